#!/bin/bash
# Final device run, part 1: all tests and compute-sanitizer (memcheck and
# racecheck) on a small and a large scene. Part 2 is the benchmark:
#   ./build-dev/quadrender bench --size 1024,2048 --cpu --json .. --csv .. --plot ..
OUT=${OUT:-/tmp/out}
export LD_LIBRARY_PATH=$PWD/.criterion/lib
(cd build-dev && ctest -j16 --timeout 500 > "$OUT/ctest.log" 2>&1; tail -3 "$OUT/ctest.log"; grep -E "\(Failed\)|Timeout" "$OUT/ctest.log")
# rand100k, biglittle and rand1M at these sizes take exact mode's windows
# (and the coverage count kernel)
for run in "memcheck 256 rand10k" "memcheck 1024 rand100k" "memcheck 1024 biglittle" "memcheck 512 rand1M" "racecheck 256 rand10k" "racecheck 512 rand100k" "racecheck 512 biglittle" "racecheck 512 rand1M"; do
  set -- $run
  echo "== compute-sanitizer --tool $1: $3 at $2x$2 (index build + exact and fast renders)"
  timeout 240 compute-sanitizer --tool $1 --print-limit 5 ./build-dev/dev/frame_timer --timing frame -n 1 -s $2 $3 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|========= (Invalid|Error)" | head -4
done 2>&1 | tee "$OUT/sanitizer.log"
