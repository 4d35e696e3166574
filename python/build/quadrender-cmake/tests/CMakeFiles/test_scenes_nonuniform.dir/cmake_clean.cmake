file(REMOVE_RECURSE
  "CMakeFiles/test_scenes_nonuniform.dir/test_scenes_nonuniform.c.o"
  "CMakeFiles/test_scenes_nonuniform.dir/test_scenes_nonuniform.c.o.d"
  "test_scenes_nonuniform"
  "test_scenes_nonuniform.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_scenes_nonuniform.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
