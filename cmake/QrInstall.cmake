# What `cmake --install` puts under the prefix: the public headers
# (include/quadrender), libquadrender both static and shared, the
# `quadrender` program, a CMake package (find_package(quadrender) gives
# quadrender::quadrender, the shared library, and
# quadrender::quadrender_static) and quadrender.pc for pkg-config.
# docs/library.md shows both in use.
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

set(QR_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/quadrender" CACHE STRING
    "Where the CMake package files go, relative to the prefix")
mark_as_advanced(QR_INSTALL_CMAKEDIR)

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/quadrender"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.h")
install(TARGETS quadrender_shared quadrender_lib EXPORT quadrenderTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(TARGETS quadrender RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(EXPORT quadrenderTargets NAMESPACE quadrender::
        DESTINATION "${QR_INSTALL_CMAKEDIR}")

# The package config finds what the static library's users link
# (quadrenderConfig.cmake.in); it records where this build found the CUDA
# toolkit as a fallback for machines that keep it there too.
set(QR_PKG_CUDA "${QR_CUDA}")
set(QR_PKG_MPI "${QR_MPI}")
if(QR_CUDA)
  get_filename_component(QR_PKG_CUDA_ROOT "${CUDAToolkit_BIN_DIR}" DIRECTORY)
endif()
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/quadrenderConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/package/quadrenderConfig.cmake"
  INSTALL_DESTINATION "${QR_INSTALL_CMAKEDIR}")
# 0.x: a minor version may change the API, so only the same minor matches;
# from 1.0 on, the same major.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(qr_compat SameMinorVersion)
else()
  set(qr_compat SameMajorVersion)
endif()
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/package/quadrenderConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY ${qr_compat})
install(FILES "${PROJECT_BINARY_DIR}/package/quadrenderConfig.cmake"
              "${PROJECT_BINARY_DIR}/package/quadrenderConfigVersion.cmake"
        DESTINATION "${QR_INSTALL_CMAKEDIR}")

# quadrender.pc: its prefix is found from the file's own place
# (${pcfiledir}), so the package works wherever `cmake --install --prefix`
# puts it. `pkg-config --static` adds what the static library needs.
file(RELATIVE_PATH QR_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
set(QR_PC_LIBS_PRIVATE "")
if(QR_CUDA)
  string(APPEND QR_PC_LIBS_PRIVATE
         " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lstdc++ -ldl -lrt")
endif()
if(QR_MPI)
  foreach(lib ${MPI_C_LIBRARIES})
    string(APPEND QR_PC_LIBS_PRIVATE " ${lib}")
  endforeach()
endif()
string(APPEND QR_PC_LIBS_PRIVATE " -lpthread -lm")
configure_file("${PROJECT_SOURCE_DIR}/cmake/quadrender.pc.in"
               "${PROJECT_BINARY_DIR}/package/quadrender.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/package/quadrender.pc"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
