#!/bin/bash
# Device run: every test, then the CLI's GPU paths by hand (pictures and
# logs under $OUT). Run after dev/device_run.sh has built build-dev.
OUT=${OUT:-/tmp/out}
export LD_LIBRARY_PATH=$PWD/.criterion/lib
Q=./build-dev/quadrender
(cd build-dev && ctest -j16 --timeout 500 > "$OUT/ctest.log" 2>&1; grep -E "tests passed|tests failed" "$OUT/ctest.log"; grep -E "\(Failed\)|Timeout" "$OUT/ctest.log")
{
  set -x
  $Q render rand100k -o "$OUT/rand100k.png"
  $Q render biglittle -o "$OUT/biglittle.png"
  $Q render rand10k --exact -o /tmp/g.ppm && $Q render rand10k --device cpu -o /tmp/c.ppm && cmp /tmp/g.ppm /tmp/c.ppm && echo "exact PPM identical"
  mkdir -p /tmp/g /tmp/c && $Q render hypnosis --frames 3:8 --exact -o /tmp/g/h.ppm && $Q render hypnosis --frames 3:8 --device cpu -o /tmp/c/h.ppm && for f in /tmp/g/*.ppm; do cmp $f /tmp/c/$(basename $f) && echo "same $(basename $f)"; done
  for s in rgb rgby rand10k rand100k rand1M micro2M biglittle littlebig pattern hypnosis fireworks snow bouncingballs snowsingle; do $Q check $s --frame 2 > /tmp/check.txt 2>&1; echo "check $s: exit $?"; tail -4 /tmp/check.txt; done
  $Q check rand100k --width 1000 --height 600 --index grid --tile 32
  $Q stats rand100k --picture "$OUT/stats_rand100k.png"
  $Q stats micro2M --picture "$OUT/stats_micro2M.png" --picture-mode heat
  $Q stats biglittle --capacity 64 --min-leaf 16 --json /tmp/sg.json && $Q stats biglittle --capacity 64 --min-leaf 16 --device cpu --json /tmp/sc.json && diff <(grep -v -E "build|device|bytes" /tmp/sg.json) <(grep -v -E "build|device|bytes" /tmp/sc.json) && echo "GPU and CPU stats agree"
  $Q stats rand100k --index grid --tile 16 | head -12
  timeout 120 $Q render rand1M -s 32768 --capacity 1 --min-leaf 16 -o /tmp/big.ppm; echo "huge render exit $?"
} > "$OUT/cli.log" 2>&1
grep -E "exit|identical|same|agree|PASS|FAIL|rendering|index .* ms" "$OUT/cli.log" | head -80
