file(REMOVE_RECURSE
  "CMakeFiles/test_image_stream.dir/test_image_stream.c.o"
  "CMakeFiles/test_image_stream.dir/test_image_stream.c.o.d"
  "test_image_stream"
  "test_image_stream.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_image_stream.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
