#!/bin/bash
# The split over GPUs and processes on a multi-GPU device machine: builds
# with MPI (the image's mpicc), runs the split and band tests, then
# dev/split_scaling.sh. Usage (on the device): bash dev/device_split.sh
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.criterion/lib
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L; nproc; mpirun --version 2>&1 | head -2
cmake -B build-split -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_PREFIX_PATH="$PWD/.criterion" -DQR_MPI=ON -DBUILD_TESTING=ON > "$OUT/configure.log" 2>&1 ||
    { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build-split -j"$(nproc)" > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -40; exit 1; }
ctest --test-dir build-split -R "${SPLIT_TESTS:-^(split|gpu_bands)\.}" -j4 > "$OUT/ctest.log" 2>&1
tail -4 "$OUT/ctest.log"; grep -E "Failed|\*\*\*" "$OUT/ctest.log" | head
bash dev/split_scaling.sh "$PWD/build-split/quadrender" "${SPLIT_GPUS:-}" "${SPLIT_REPEAT:-3}"
