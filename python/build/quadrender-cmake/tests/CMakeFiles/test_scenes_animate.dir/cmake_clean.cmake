file(REMOVE_RECURSE
  "CMakeFiles/test_scenes_animate.dir/test_scenes_animate.c.o"
  "CMakeFiles/test_scenes_animate.dir/test_scenes_animate.c.o.d"
  "test_scenes_animate"
  "test_scenes_animate.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_scenes_animate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
