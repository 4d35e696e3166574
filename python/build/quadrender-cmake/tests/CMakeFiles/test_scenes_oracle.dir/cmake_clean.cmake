file(REMOVE_RECURSE
  "CMakeFiles/test_scenes_oracle.dir/test_scenes_oracle.c.o"
  "CMakeFiles/test_scenes_oracle.dir/test_scenes_oracle.c.o.d"
  "test_scenes_oracle"
  "test_scenes_oracle.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_scenes_oracle.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
