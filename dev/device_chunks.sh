#!/bin/bash
# device_chunks.sh — one device call for scenes in chunks on the GPU: the
# build (device_build.sh), the GPU chunk tests, then the targets: uniform
# circles from a .npy (dev/npy_uniform.py) to a PNG, in chunks, with the
# wall time, the peak RSS and where the time went (-v); the same scene of
# fewer circles whole and within a small --gpu-memory budget, compared.
# Usage (on the device): bash dev/device_chunks.sh TESTS|- BIG_N SIZE [SMALL_N SMALL_SIZE BUDGET]
set -uo pipefail
source dev/device_build.sh
tests=$1 big=$2 size=$3 small=${4:-0} small_size=${5:-4096} budget=${6:-2G}
Q=build-dev/quadrender
if [ "$tests" != - ]; then
  ctest --test-dir build-dev -R "$tests" -j4 --timeout 900 --output-on-failure > "$OUT/ctest.log" 2>&1
  grep -E "tests passed|Failed|\*\*\*Timeout|\(Failed\)|Exception|Assertion|\[----\]   [^ ]" "$OUT/ctest.log" | head -40
  echo "tests done at $(( $(date +%s) - t0 )) s"
fi
timed() { # name, then the command: wall, peak RSS and its own lines into $OUT/$name.txt
  local name=$1; shift
  /usr/bin/time -f "wall %e s, peak RSS %M KB" "$@" > "$OUT/$name.txt" 2>&1
  echo "== $name (rc $?)"; grep -vE "^\s*$" "$OUT/$name.txt" | tail -3
}
if [ "$small" != 0 ]; then
  python3 dev/npy_uniform.py /tmp/small.npy "$small"
  for mode in fast exact; do
    flag=; [ $mode = exact ] && flag=--exact
    for k in 1 2; do
      timed small_${mode}_whole_$k $Q render /tmp/small.npy -s "$small_size" $flag -o /tmp/small_whole.png -v
      timed small_${mode}_budget_$k $Q render /tmp/small.npy -s "$small_size" $flag --gpu-memory "$budget" -o /tmp/small_budget.png -v
    done
    cmp /tmp/small_whole.png /tmp/small_budget.png && echo "small, $mode: the budget's chunks are the whole scene's bytes"
  done
  rm -f /tmp/small.npy
fi
if [ "$big" != 0 ]; then
  g0=$(date +%s)
  python3 dev/npy_uniform.py /tmp/big.npy "$big"
  echo "generated $(ls -l /tmp/big.npy | awk '{print $5}') bytes in $(( $(date +%s) - g0 )) s"
  cat /tmp/big.npy > /dev/null # warm
  for k in 1 2; do
    timed big_$k $Q render /tmp/big.npy -s "$size" -o /tmp/big.png -v
  done
  ls -l /tmp/big.png
fi
echo "done at $(( $(date +%s) - t0 )) s"
