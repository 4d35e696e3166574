# CMake generated Testfile for 
# Source directory: /work/main
# Build directory: /work/main/python/build/quadrender-cmake
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test([=[fuzz.circles]=] "/work/main/python/build/quadrender-cmake/fuzz/fuzz_circles" "-runs=3000" "-seed=1" "-max_total_time=60" "-timeout=10" "-rss_limit_mb=2048" "/work/main/python/build/quadrender-cmake/fuzz/found_circles" "/work/main/fuzz/corpus/circles")
set_tests_properties([=[fuzz.circles]=] PROPERTIES  ENVIRONMENT "TMPDIR=/work/main/python/build/quadrender-cmake/fuzz" _BACKTRACE_TRIPLES "/work/main/cmake/QrFuzz.cmake;51;add_test;/work/main/cmake/QrFuzz.cmake;0;;/work/main/CMakeLists.txt;115;include;/work/main/CMakeLists.txt;0;")
add_test([=[fuzz.par]=] "/work/main/python/build/quadrender-cmake/fuzz/fuzz_par" "-runs=3000" "-seed=1" "-max_total_time=60" "-timeout=10" "-rss_limit_mb=2048" "/work/main/python/build/quadrender-cmake/fuzz/found_par" "/work/main/fuzz/corpus/par")
set_tests_properties([=[fuzz.par]=] PROPERTIES  ENVIRONMENT "TMPDIR=/work/main/python/build/quadrender-cmake/fuzz" _BACKTRACE_TRIPLES "/work/main/cmake/QrFuzz.cmake;51;add_test;/work/main/cmake/QrFuzz.cmake;0;;/work/main/CMakeLists.txt;115;include;/work/main/CMakeLists.txt;0;")
add_test([=[fuzz.npy]=] "/work/main/python/build/quadrender-cmake/fuzz/fuzz_npy" "-runs=3000" "-seed=1" "-max_total_time=60" "-timeout=10" "-rss_limit_mb=2048" "/work/main/python/build/quadrender-cmake/fuzz/found_npy" "/work/main/fuzz/corpus/npy")
set_tests_properties([=[fuzz.npy]=] PROPERTIES  ENVIRONMENT "TMPDIR=/work/main/python/build/quadrender-cmake/fuzz" _BACKTRACE_TRIPLES "/work/main/cmake/QrFuzz.cmake;51;add_test;/work/main/cmake/QrFuzz.cmake;0;;/work/main/CMakeLists.txt;115;include;/work/main/CMakeLists.txt;0;")
add_test([=[fuzz.render]=] "/work/main/python/build/quadrender-cmake/fuzz/fuzz_render" "-runs=3000" "-seed=1" "-max_total_time=60" "-timeout=10" "-rss_limit_mb=2048" "/work/main/python/build/quadrender-cmake/fuzz/found_render" "/work/main/fuzz/corpus/render")
set_tests_properties([=[fuzz.render]=] PROPERTIES  ENVIRONMENT "TMPDIR=/work/main/python/build/quadrender-cmake/fuzz" _BACKTRACE_TRIPLES "/work/main/cmake/QrFuzz.cmake;51;add_test;/work/main/cmake/QrFuzz.cmake;0;;/work/main/CMakeLists.txt;115;include;/work/main/CMakeLists.txt;0;")
subdirs("src")
subdirs("tests")
