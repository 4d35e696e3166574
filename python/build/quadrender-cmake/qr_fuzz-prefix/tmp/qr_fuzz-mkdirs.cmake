# Distributed under the OSI-approved BSD 3-Clause License.  See accompanying
# file Copyright.txt or https://cmake.org/licensing for details.

cmake_minimum_required(VERSION 3.5)

file(MAKE_DIRECTORY
  "/work/main/fuzz"
  "/work/main/python/build/quadrender-cmake/fuzz"
  "/work/main/python/build/quadrender-cmake/qr_fuzz-prefix"
  "/work/main/python/build/quadrender-cmake/qr_fuzz-prefix/tmp"
  "/work/main/python/build/quadrender-cmake/qr_fuzz-prefix/src/qr_fuzz-stamp"
  "/work/main/python/build/quadrender-cmake/qr_fuzz-prefix/src"
  "/work/main/python/build/quadrender-cmake/qr_fuzz-prefix/src/qr_fuzz-stamp"
)

set(configSubDirs )
foreach(subDir IN LISTS configSubDirs)
    file(MAKE_DIRECTORY "/work/main/python/build/quadrender-cmake/qr_fuzz-prefix/src/qr_fuzz-stamp/${subDir}")
endforeach()
if(cfgdir)
  file(MAKE_DIRECTORY "/work/main/python/build/quadrender-cmake/qr_fuzz-prefix/src/qr_fuzz-stamp${cfgdir}") # cfgdir has leading slash
endif()
