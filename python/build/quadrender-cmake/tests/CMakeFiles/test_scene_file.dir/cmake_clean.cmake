file(REMOVE_RECURSE
  "CMakeFiles/test_scene_file.dir/test_scene_file.c.o"
  "CMakeFiles/test_scene_file.dir/test_scene_file.c.o.d"
  "test_scene_file"
  "test_scene_file.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_scene_file.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
