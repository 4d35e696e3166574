
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tests/support/cli_expect.c" "tests/CMakeFiles/qr_test_support.dir/support/cli_expect.c.o" "gcc" "tests/CMakeFiles/qr_test_support.dir/support/cli_expect.c.o.d"
  "/work/main/tests/support/cli_run.c" "tests/CMakeFiles/qr_test_support.dir/support/cli_run.c.o" "gcc" "tests/CMakeFiles/qr_test_support.dir/support/cli_run.c.o.d"
  "/work/main/tests/support/files.c" "tests/CMakeFiles/qr_test_support.dir/support/files.c.o" "gcc" "tests/CMakeFiles/qr_test_support.dir/support/files.c.o.d"
  "/work/main/tests/support/gpu_util.c" "tests/CMakeFiles/qr_test_support.dir/support/gpu_util.c.o" "gcc" "tests/CMakeFiles/qr_test_support.dir/support/gpu_util.c.o.d"
  "/work/main/tests/support/index_check.c" "tests/CMakeFiles/qr_test_support.dir/support/index_check.c.o" "gcc" "tests/CMakeFiles/qr_test_support.dir/support/index_check.c.o.d"
  "/work/main/tests/support/json_find.c" "tests/CMakeFiles/qr_test_support.dir/support/json_find.c.o" "gcc" "tests/CMakeFiles/qr_test_support.dir/support/json_find.c.o.d"
  "/work/main/tests/support/random_scene.c" "tests/CMakeFiles/qr_test_support.dir/support/random_scene.c.o" "gcc" "tests/CMakeFiles/qr_test_support.dir/support/random_scene.c.o.d"
  "/work/main/tests/support/scene_util.c" "tests/CMakeFiles/qr_test_support.dir/support/scene_util.c.o" "gcc" "tests/CMakeFiles/qr_test_support.dir/support/scene_util.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/python/build/quadrender-cmake/src/CMakeFiles/quadrender_lib.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
