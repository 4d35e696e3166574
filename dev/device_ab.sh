#!/bin/bash
# One device call for a change that must keep speed: builds the baseline
# tree in .base/ (`git archive BASE | tar -x -C .base`, carried with
# .criterion) and this tree, runs this tree's whole test suite, then
# `quadrender bench` of both, alternated twice (JSON under $OUT); first the
# kernels' SASS of both builds compared (dev/sass_diff.sh; SASS_RENAMES).
# Usage (on the device): bash dev/device_ab.sh [ctest-regex]
# (BENCH_ARGS: bench's arguments instead of --size 1024,2048)
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.criterion/lib
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
cfg() {
    cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
          -DCMAKE_PREFIX_PATH="$PWD/.criterion" "${@:3}"
}
cfg .base build-base -DBUILD_TESTING=OFF > "$OUT/cfg-base.log" 2>&1 || { tail -20 "$OUT/cfg-base.log"; exit 1; }
cfg . build-dev -DQR_BUILD_DEV=ON > "$OUT/cfg.log" 2>&1 || { tail -20 "$OUT/cfg.log"; exit 1; }
cmake --build build-base -j6 --target quadrender > "$OUT/build-base.log" 2>&1 &
base=$!
cmake --build build-dev -j10 > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -40; exit 1; }
wait $base || { grep -E "error" -A3 "$OUT/build-base.log" | head -20; exit 1; }
echo "built"
RENAMES="${SASS_RENAMES:-}" bash dev/sass_diff.sh build-base build-dev > "$OUT/sass.txt" 2>&1; echo "sass_diff rc=$?"; tail -5 "$OUT/sass.txt"
(cd build-dev && ctest -j16 --timeout 300 ${1:+-R "$1"} > "$OUT/ctest.log" 2>&1)
grep -E "tests passed|tests failed" "$OUT/ctest.log"; grep -E "\(Failed\)|Timeout|Exception" "$OUT/ctest.log"
for round in 1 2; do
    for t in base dev; do
        # shellcheck disable=SC2086
        ./build-$t/quadrender bench ${BENCH_ARGS:---size 1024,2048} --json "$OUT/bench_${t}_$round.json" > "$OUT/bench_${t}_$round.txt" 2>&1 || echo "bench $t failed: $(tail -2 "$OUT/bench_${t}_$round.txt")"
    done
done
echo "benched"
