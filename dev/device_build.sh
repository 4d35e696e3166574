# device_build.sh — sourced by the dev/device_*.sh scripts that build this
# tree on the device: the GPU's name into $OUT/gpu.txt, then a Release build
# for sm_90 with dev tools and tests (Criterion from .criterion, carried)
# into build-dev; exits on a failed configure or build. Sets t0 (the start,
# for the scripts' "at N s" lines).
export LD_LIBRARY_PATH=$PWD/.criterion/lib
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
t0=$(date +%s)
cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DQR_BUILD_DEV=ON \
      -DCMAKE_PREFIX_PATH="$PWD/.criterion" > "$OUT/cfg.log" 2>&1 || { tail -20 "$OUT/cfg.log"; exit 1; }
cmake --build build-dev -j16 > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -40; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
