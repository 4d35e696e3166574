file(REMOVE_RECURSE
  "CMakeFiles/test_scene_npy.dir/test_scene_npy.c.o"
  "CMakeFiles/test_scene_npy.dir/test_scene_npy.c.o.d"
  "test_scene_npy"
  "test_scene_npy.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_scene_npy.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
