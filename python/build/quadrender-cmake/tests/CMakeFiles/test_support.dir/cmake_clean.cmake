file(REMOVE_RECURSE
  "CMakeFiles/test_support.dir/test_support.c.o"
  "CMakeFiles/test_support.dir/test_support.c.o.d"
  "test_support"
  "test_support.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_support.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
