file(REMOVE_RECURSE
  "CMakeFiles/test_cli_stats.dir/test_cli_stats.c.o"
  "CMakeFiles/test_cli_stats.dir/test_cli_stats.c.o.d"
  "test_cli_stats"
  "test_cli_stats.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_stats.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
