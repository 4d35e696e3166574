file(REMOVE_RECURSE
  "CMakeFiles/test_render_cpu.dir/test_render_cpu.c.o"
  "CMakeFiles/test_render_cpu.dir/test_render_cpu.c.o.d"
  "test_render_cpu"
  "test_render_cpu.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_render_cpu.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
