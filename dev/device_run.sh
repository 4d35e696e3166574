#!/bin/bash
# One device call: build for sm_90 with the carried .criterion bundle, run the
# GPU tests, time frames. Usage (on the device): bash dev/device_run.sh [ctest-regex] [timer args]
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.criterion/lib
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
cmake -B build-dev -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_PREFIX_PATH="$PWD/.criterion" -DQR_BUILD_DEV=ON > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build-dev -j16 > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -40; exit 1; }
echo "built"
