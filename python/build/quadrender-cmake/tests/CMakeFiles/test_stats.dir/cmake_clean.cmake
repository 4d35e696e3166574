file(REMOVE_RECURSE
  "CMakeFiles/test_stats.dir/test_stats.c.o"
  "CMakeFiles/test_stats.dir/test_stats.c.o.d"
  "test_stats"
  "test_stats.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_stats.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
