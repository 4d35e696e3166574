file(REMOVE_RECURSE
  "CMakeFiles/test_index_cull.dir/test_index_cull.c.o"
  "CMakeFiles/test_index_cull.dir/test_index_cull.c.o.d"
  "test_index_cull"
  "test_index_cull.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_index_cull.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
