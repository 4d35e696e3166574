
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tests/test_index_params.c" "tests/CMakeFiles/test_index_params.dir/test_index_params.c.o" "gcc" "tests/CMakeFiles/test_index_params.dir/test_index_params.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/python/build/quadrender-cmake/tests/CMakeFiles/qr_test_support.dir/DependInfo.cmake"
  "/work/main/python/build/quadrender-cmake/src/CMakeFiles/quadrender_lib.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
