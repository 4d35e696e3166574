file(REMOVE_RECURSE
  "CMakeFiles/test_render_cpu_fast.dir/test_render_cpu_fast.c.o"
  "CMakeFiles/test_render_cpu_fast.dir/test_render_cpu_fast.c.o.d"
  "test_render_cpu_fast"
  "test_render_cpu_fast.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_render_cpu_fast.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
