file(REMOVE_RECURSE
  "CMakeFiles/qr_test_support.dir/support/cli_expect.c.o"
  "CMakeFiles/qr_test_support.dir/support/cli_expect.c.o.d"
  "CMakeFiles/qr_test_support.dir/support/cli_run.c.o"
  "CMakeFiles/qr_test_support.dir/support/cli_run.c.o.d"
  "CMakeFiles/qr_test_support.dir/support/files.c.o"
  "CMakeFiles/qr_test_support.dir/support/files.c.o.d"
  "CMakeFiles/qr_test_support.dir/support/gpu_util.c.o"
  "CMakeFiles/qr_test_support.dir/support/gpu_util.c.o.d"
  "CMakeFiles/qr_test_support.dir/support/index_check.c.o"
  "CMakeFiles/qr_test_support.dir/support/index_check.c.o.d"
  "CMakeFiles/qr_test_support.dir/support/json_find.c.o"
  "CMakeFiles/qr_test_support.dir/support/json_find.c.o.d"
  "CMakeFiles/qr_test_support.dir/support/random_scene.c.o"
  "CMakeFiles/qr_test_support.dir/support/random_scene.c.o.d"
  "CMakeFiles/qr_test_support.dir/support/scene_util.c.o"
  "CMakeFiles/qr_test_support.dir/support/scene_util.c.o.d"
  "libqr_test_support.a"
  "libqr_test_support.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/qr_test_support.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
