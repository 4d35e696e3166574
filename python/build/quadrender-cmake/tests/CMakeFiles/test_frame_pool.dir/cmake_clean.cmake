file(REMOVE_RECURSE
  "CMakeFiles/test_frame_pool.dir/test_frame_pool.c.o"
  "CMakeFiles/test_frame_pool.dir/test_frame_pool.c.o.d"
  "test_frame_pool"
  "test_frame_pool.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_frame_pool.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
