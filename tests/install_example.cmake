# The installed package, used as a program of its own would use it: installs
# this build into a scratch prefix, builds examples/c against it (shared and
# static, by find_package; and by pkg-config when there is one) and runs each
# build. Its image must equal `quadrender render`'s bytes and its index
# statistics `quadrender stats`'s. Run by CTest (tests/CMakeLists.txt):
#   cmake -DQR_BUILD_DIR=... -DQR_SOURCE_DIR=... -DQR_WORK=... -DQR_CLI=...
#         -DQR_LIBDIR=... -DQR_C_COMPILER=... -DQR_GENERATOR=... [-DQR_PKG_CONFIG=...]
#         [-DQR_BUILD_TYPE=...] [-DQR_C_FLAGS=...] [-DQR_EXE_LINKER_FLAGS=...]
#         -P install_example.cmake
# The example is built with the library's compiler, build type and flags,
# so that a sanitizer build's library links into it.
cmake_minimum_required(VERSION 3.24)

foreach(v QR_BUILD_DIR QR_SOURCE_DIR QR_WORK QR_CLI QR_LIBDIR QR_C_COMPILER QR_GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_example.cmake: ${v} is not set")
  endif()
endforeach()

# Runs a command; stops the test with its output when it fails. The
# command's stdout goes to the variable named by OUT, if given.
function(run what)
  cmake_parse_arguments(PARSE_ARGV 1 a "" "OUT" "COMMAND")
  execute_process(COMMAND ${a_COMMAND} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${a_COMMAND}\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  if(a_OUT)
    set(${a_OUT} "${out}" PARENT_SCOPE)
  endif()
endfunction()

# The statistics of a JSON report that do not depend on where or how fast
# the index was built: the tree, circles per leaf, pairs.
function(index_part json out)
  string(REGEX MATCH "\"tree\":.*\"replication\": [^}]*}" part "${json}")
  if(NOT part)
    message(FATAL_ERROR "no index statistics in:\n${json}")
  endif()
  set(${out} "${part}" PARENT_SCOPE)
endfunction()

set(prefix "${QR_WORK}/prefix")
file(REMOVE_RECURSE "${QR_WORK}")
file(MAKE_DIRECTORY "${QR_WORK}")
run("cmake --install" COMMAND "${CMAKE_COMMAND}" --install "${QR_BUILD_DIR}" --prefix "${prefix}")
foreach(f include/quadrender/scene.h include/quadrender/quadrender.h
          ${QR_LIBDIR}/libquadrender.a ${QR_LIBDIR}/libquadrender.so
          ${QR_LIBDIR}/cmake/quadrender/quadrenderConfig.cmake
          ${QR_LIBDIR}/pkgconfig/quadrender.pc bin/quadrender)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()
# The umbrella header includes every public header (the example includes it alone).
file(READ "${prefix}/include/quadrender/quadrender.h" umbrella)
file(GLOB headers RELATIVE "${prefix}/include" "${prefix}/include/quadrender/*.h")
foreach(h IN LISTS headers)
  if(NOT h STREQUAL "quadrender/quadrender.h" AND NOT umbrella MATCHES "#include \"${h}\"")
    message(FATAL_ERROR "quadrender/quadrender.h does not include ${h}")
  endif()
endforeach()

# The oracle: the program's image and statistics of the same scene.
set(scene rand10k)
set(size 192)
run("quadrender render" COMMAND "${QR_CLI}" render ${scene} --size ${size} -q
                                -o "${QR_WORK}/cli.ppm")
run("quadrender stats" COMMAND "${QR_CLI}" stats ${scene} --size ${size} -q --json - OUT cli_json)
index_part("${cli_json}" want)

set(programs "")
foreach(kind shared static)
  if(kind STREQUAL "static")
    set(static ON)
  else()
    set(static OFF)
  endif()
  set(bin "${QR_WORK}/build-${kind}")
  run("example (${kind}): configure" COMMAND "${CMAKE_COMMAND}" -S "${QR_SOURCE_DIR}/examples/c"
      -B "${bin}" -G "${QR_GENERATOR}" -DCMAKE_C_COMPILER=${QR_C_COMPILER}
      "-DCMAKE_BUILD_TYPE=${QR_BUILD_TYPE}" -DCMAKE_COMPILE_WARNING_AS_ERROR=ON
      "-DCMAKE_C_FLAGS=${QR_C_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${QR_EXE_LINKER_FLAGS}"
      -DCMAKE_PREFIX_PATH=${prefix} -DQUADRENDER_STATIC=${static})
  run("example (${kind}): build" COMMAND "${CMAKE_COMMAND}" --build "${bin}")
  list(APPEND programs "${kind}=${bin}/render_stats")
endforeach()

# The shared library needs nothing found for it: with zlib, MPI and the CUDA
# toolkit hidden from find_package, the package is found and the example
# builds; so it does against a copy of the package that says the library
# was built with CUDA and MPI (what a CPU-only build cannot show otherwise),
# while asking for the static component there fails, naming what is missing.
set(pkgdir "${prefix}/${QR_LIBDIR}/cmake/quadrender")
# A copy of the installed package in ${prefix}/${QR_LIBDIR}/cmake/NAME whose
# config says the library was built with CUDA (and MPI, when mpi is ON).
function(package_copy name mpi)
  set(dir "${prefix}/${QR_LIBDIR}/cmake/${name}")
  file(COPY "${pkgdir}/" DESTINATION "${dir}")
  file(READ "${dir}/quadrenderConfig.cmake" config)
  string(REGEX REPLACE "set\\(quadrender_HAS_CUDA [A-Za-z0-9]*\\)" "set(quadrender_HAS_CUDA ON)"
         config "${config}")
  string(REGEX REPLACE "set\\(quadrender_HAS_MPI [A-Za-z0-9]*\\)" "set(quadrender_HAS_MPI ${mpi})"
         config "${config}")
  if(NOT config MATCHES "quadrender_HAS_CUDA ON" OR NOT config MATCHES "quadrender_HAS_MPI ${mpi}")
    message(FATAL_ERROR "no quadrender_HAS_CUDA or quadrender_HAS_MPI in quadrenderConfig.cmake")
  endif()
  file(WRITE "${dir}/quadrenderConfig.cmake" "${config}")
endfunction()
package_copy(quadrender-with-cuda-mpi ON)
package_copy(quadrender-with-cuda OFF)
set(cudadir "${prefix}/${QR_LIBDIR}/cmake/quadrender-with-cuda-mpi")
set(hidden -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON
           -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON)
foreach(kind no-deps with-cuda)
  set(bin "${QR_WORK}/build-shared-${kind}")
  set(dir "${pkgdir}")
  if(kind STREQUAL "with-cuda")
    set(dir "${cudadir}")
  endif()
  run("example (shared, ${kind}): configure" COMMAND "${CMAKE_COMMAND}"
      -S "${QR_SOURCE_DIR}/examples/c" -B "${bin}" -G "${QR_GENERATOR}"
      -DCMAKE_C_COMPILER=${QR_C_COMPILER} "-DCMAKE_BUILD_TYPE=${QR_BUILD_TYPE}"
      -DCMAKE_COMPILE_WARNING_AS_ERROR=ON "-DCMAKE_C_FLAGS=${QR_C_FLAGS}"
      "-DCMAKE_EXE_LINKER_FLAGS=${QR_EXE_LINKER_FLAGS}" "-Dquadrender_DIR=${dir}" ${hidden})
  run("example (shared, ${kind}): build" COMMAND "${CMAKE_COMMAND}" --build "${bin}")
  list(APPEND programs "shared-${kind}=${bin}/render_stats")
endforeach()
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${QR_SOURCE_DIR}/examples/c"
                        -B "${QR_WORK}/build-static-with-cuda" -G "${QR_GENERATOR}"
                        -DCMAKE_C_COMPILER=${QR_C_COMPILER} -DQUADRENDER_STATIC=ON
                        "-Dquadrender_DIR=${prefix}/${QR_LIBDIR}/cmake/quadrender-with-cuda"
                        -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "CUDAToolkit")
  message(FATAL_ERROR "example (static, with-cuda): the static component was found without the "
                      "CUDA toolkit, or the failure does not name it (${rc}):\n${out}\n${err}")
endif()
message(STATUS "example (static, with-cuda): refused without the CUDA toolkit: ok")

find_program(pkg_config NAMES pkg-config)
if(QR_PKG_CONFIG)
  set(pkg_config "${QR_PKG_CONFIG}")
endif()
if(pkg_config)
  set(ENV{PKG_CONFIG_PATH} "${prefix}/${QR_LIBDIR}/pkgconfig")
  run("pkg-config" COMMAND "${pkg_config}" --cflags --libs quadrender OUT flags)
  string(STRIP "${flags}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  separate_arguments(own UNIX_COMMAND "${QR_C_FLAGS} ${QR_EXE_LINKER_FLAGS}")
  run("example (pkg-config): build" COMMAND "${QR_C_COMPILER}" -std=c11 -Wall -Wextra -Werror
      ${own} "${QR_SOURCE_DIR}/examples/c/render_stats.c" ${flags}
      "-Wl,-rpath,${prefix}/${QR_LIBDIR}" -o "${QR_WORK}/render_stats_pc")
  list(APPEND programs "pkg-config=${QR_WORK}/render_stats_pc")
else()
  message(STATUS "pkg-config not found: the example is not built with it")
endif()

foreach(p IN LISTS programs)
  string(REGEX REPLACE "=.*" "" kind "${p}")
  string(REGEX REPLACE "^[^=]*=" "" exe "${p}")
  run("example (${kind}): run" COMMAND "${exe}" ${scene} "${QR_WORK}/${kind}.ppm" ${size}
      OUT json)
  file(SHA256 "${QR_WORK}/cli.ppm" a)
  file(SHA256 "${QR_WORK}/${kind}.ppm" b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "example (${kind}): its image differs from quadrender render's")
  endif()
  index_part("${json}" got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "example (${kind}): its statistics differ from quadrender stats':\n"
                        "${got}\nquadrender stats:\n${want}")
  endif()
endforeach()

# Its default output is a PNG file.
run("example: PNG" COMMAND "${CMAKE_COMMAND}" -E chdir "${QR_WORK}" "${QR_WORK}/build-shared/render_stats"
    ${scene} render_stats.png ${size})
file(READ "${QR_WORK}/render_stats.png" sig LIMIT 8 HEX)
if(NOT sig STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "example: render_stats.png is not a PNG file (${sig})")
endif()
file(REMOVE_RECURSE "${QR_WORK}")
