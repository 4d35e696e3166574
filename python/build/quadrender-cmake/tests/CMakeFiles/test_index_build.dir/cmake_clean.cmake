file(REMOVE_RECURSE
  "CMakeFiles/test_index_build.dir/test_index_build.c.o"
  "CMakeFiles/test_index_build.dir/test_index_build.c.o.d"
  "test_index_build"
  "test_index_build.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_index_build.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
