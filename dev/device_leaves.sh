#!/bin/bash
# One device call for the index's leaf rules: build, the GPU tests of the
# index and the render, then frames of the scenes under several quadtree
# settings beside every grid tile. Usage (on the device):
#   CONFIGS="default=;m32=--min-leaf 32;nodeep=--deep-leaf 0" \
#   bash dev/device_leaves.sh [ctest-regex|none] [bench args...]
set -uo pipefail
REGEX=${1:-"gpu_index|gpu_render|gpu_bands|cli.gpu"}
shift 1 2>/dev/null
OUT=${OUT:-/tmp/out}
CONFIGS=${CONFIGS:-"default="}
bash dev/device_run.sh > /dev/null || exit 1
export LD_LIBRARY_PATH=$PWD/.criterion/lib
if [ "$REGEX" != none ]; then
    (cd build-dev && timeout 400 ctest -j12 --timeout 380 -R "$REGEX" > "$OUT/ctest.log" 2>&1)
    echo "ctest rc $?"; grep -E "tests passed|\(Failed\)|\(Timeout\)|\*\*\*" "$OUT/ctest.log" | head -20
fi
Q=build-dev/quadrender
SC=${SCENES:-"clusters spiral powerlaw hotspot roads ring rand10k rand100k rand1M micro2M biglittle snowsingle"}
$Q bench $SC --index grid --frames 10 --warmup 3 "$@" --csv "$OUT/grid.csv" > /dev/null 2>&1
labels=()
IFS=';' read -ra cfgs <<< "$CONFIGS"
for c in "${cfgs[@]}"; do
    label=${c%%=*}; args=${c#*=}
    labels+=("$label")
    # shellcheck disable=SC2086
    $Q bench $SC --index quadtree $args --frames 10 --warmup 3 "$@" --csv "$OUT/q_$label.csv" > /dev/null 2>&1
done
python3 dev/leaves_table.py "$OUT" "${labels[@]}"
