file(REMOVE_RECURSE
  "CMakeFiles/test_render_band.dir/test_render_band.c.o"
  "CMakeFiles/test_render_band.dir/test_render_band.c.o.d"
  "test_render_band"
  "test_render_band.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_render_band.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
