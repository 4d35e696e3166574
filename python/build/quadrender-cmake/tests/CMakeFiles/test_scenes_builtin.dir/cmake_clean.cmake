file(REMOVE_RECURSE
  "CMakeFiles/test_scenes_builtin.dir/test_scenes_builtin.c.o"
  "CMakeFiles/test_scenes_builtin.dir/test_scenes_builtin.c.o.d"
  "test_scenes_builtin"
  "test_scenes_builtin.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_scenes_builtin.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
