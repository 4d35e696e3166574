file(REMOVE_RECURSE
  "CMakeFiles/test_image.dir/test_image.c.o"
  "CMakeFiles/test_image.dir/test_image.c.o.d"
  "test_image"
  "test_image.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_image.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
