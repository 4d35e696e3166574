#----------------------------------------------------------------
# Generated CMake target import file for configuration "Release".
#----------------------------------------------------------------

# Commands may need to know the format version.
set(CMAKE_IMPORT_FILE_VERSION 1)

# Import target "quadrender::quadrender" for configuration "Release"
set_property(TARGET quadrender::quadrender APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(quadrender::quadrender PROPERTIES
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libquadrender.so.0.1.0"
  IMPORTED_SONAME_RELEASE "libquadrender.so.0"
  )

list(APPEND _cmake_import_check_targets quadrender::quadrender )
list(APPEND _cmake_import_check_files_for_quadrender::quadrender "${_IMPORT_PREFIX}/lib/libquadrender.so.0.1.0" )

# Import target "quadrender::quadrender_static" for configuration "Release"
set_property(TARGET quadrender::quadrender_static APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(quadrender::quadrender_static PROPERTIES
  IMPORTED_LINK_INTERFACE_LANGUAGES_RELEASE "C"
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libquadrender.a"
  )

list(APPEND _cmake_import_check_targets quadrender::quadrender_static )
list(APPEND _cmake_import_check_files_for_quadrender::quadrender_static "${_IMPORT_PREFIX}/lib/libquadrender.a" )

# Commands beyond this point should not need to know the version.
set(CMAKE_IMPORT_FILE_VERSION)
