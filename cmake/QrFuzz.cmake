# The fuzz harnesses (fuzz/, their own project built with clang) and a short
# run of each as a test. QR_FUZZ defaults to ON when the tests are built and
# a clang that links -fsanitize=fuzzer is found (QR_FUZZ_CLANG); without
# one the harnesses and their tests are left out. fuzz/README.md says how
# to run them for long.
include_guard(GLOBAL)

find_program(QR_FUZZ_CLANG NAMES clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14
             DOC "clang for the libFuzzer harnesses")
set(qr_fuzz_works FALSE)
if(QR_FUZZ_CLANG)
  set(probe "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/qr_fuzz_probe")
  file(WRITE "${probe}.c" "#include <stddef.h>\n#include <stdint.h>\n"
       "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
       "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
  execute_process(COMMAND "${QR_FUZZ_CLANG}" -fsanitize=fuzzer,address,undefined "${probe}.c"
                          -o "${probe}"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(qr_fuzz_works TRUE)
  endif()
endif()
if(qr_fuzz_works AND BUILD_TESTING)
  set(qr_fuzz_default ON)
else()
  set(qr_fuzz_default OFF)
endif()
option(QR_FUZZ "Build the libFuzzer harnesses (fuzz/) with clang and run each briefly as a test"
       ${qr_fuzz_default})

if(QR_FUZZ)
  if(NOT qr_fuzz_works)
    message(FATAL_ERROR "QR_FUZZ is ON but no clang that links -fsanitize=fuzzer was found "
                        "(set QR_FUZZ_CLANG)")
  endif()
  include(ExternalProject)
  set(QR_FUZZ_DIR "${PROJECT_BINARY_DIR}/fuzz")
  ExternalProject_Add(qr_fuzz
    SOURCE_DIR "${PROJECT_SOURCE_DIR}/fuzz"
    BINARY_DIR "${QR_FUZZ_DIR}"
    CMAKE_ARGS -DCMAKE_C_COMPILER=${QR_FUZZ_CLANG} -DCMAKE_BUILD_TYPE=RelWithDebInfo
               -DCMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH}
    INSTALL_COMMAND ""
    BUILD_ALWAYS TRUE) # its sources are the library's: let its own build decide what changed
  message(STATUS "Fuzz harnesses: built with ${QR_FUZZ_CLANG} into ${QR_FUZZ_DIR}")
  if(BUILD_TESTING)
    # A short run per harness from its seed corpus; new inputs go to the
    # build tree, never to fuzz/corpus.
    foreach(h circles par npy render part)
      file(MAKE_DIRECTORY "${QR_FUZZ_DIR}/found_${h}")
      add_test(NAME fuzz.${h}
               COMMAND "${QR_FUZZ_DIR}/fuzz_${h}" -runs=3000 -seed=1 -max_total_time=60
                       -timeout=10 -rss_limit_mb=2048
                       "${QR_FUZZ_DIR}/found_${h}" "${PROJECT_SOURCE_DIR}/fuzz/corpus/${h}")
      set_tests_properties(fuzz.${h} PROPERTIES ENVIRONMENT "TMPDIR=${QR_FUZZ_DIR}")
    endforeach()
  endif()
else()
  message(STATUS "Fuzz harnesses not built (QR_FUZZ=OFF; needs clang with libFuzzer)")
endif()
