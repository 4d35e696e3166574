file(REMOVE_RECURSE
  "CMakeFiles/test_index_params.dir/test_index_params.c.o"
  "CMakeFiles/test_index_params.dir/test_index_params.c.o.d"
  "test_index_params"
  "test_index_params.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_index_params.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
