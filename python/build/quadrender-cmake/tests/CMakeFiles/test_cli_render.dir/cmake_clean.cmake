file(REMOVE_RECURSE
  "CMakeFiles/test_cli_render.dir/test_cli_render.c.o"
  "CMakeFiles/test_cli_render.dir/test_cli_render.c.o.d"
  "test_cli_render"
  "test_cli_render.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_render.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
