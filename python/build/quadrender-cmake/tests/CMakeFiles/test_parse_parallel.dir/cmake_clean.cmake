file(REMOVE_RECURSE
  "CMakeFiles/test_parse_parallel.dir/test_parse_parallel.c.o"
  "CMakeFiles/test_parse_parallel.dir/test_parse_parallel.c.o.d"
  "test_parse_parallel"
  "test_parse_parallel.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_parse_parallel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
