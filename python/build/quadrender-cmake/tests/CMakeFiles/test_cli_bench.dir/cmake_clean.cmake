file(REMOVE_RECURSE
  "CMakeFiles/test_cli_bench.dir/test_cli_bench.c.o"
  "CMakeFiles/test_cli_bench.dir/test_cli_bench.c.o.d"
  "test_cli_bench"
  "test_cli_bench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_bench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
