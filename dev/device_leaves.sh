#!/bin/bash
# One device call for leaves below a tile: build, the GPU tests of the index
# and the render, then the non-uniform scenes' frames at several smallest
# leaves beside the best grid. Usage (on the device):
#   bash dev/device_leaves.sh [ctest-regex] [leaf sizes] [bench args...]
set -uo pipefail
REGEX=${1:-"gpu_index|gpu_render|gpu_bands|cli.gpu"}
LEAVES=${2:-"64 16 8 4"}
shift 2 2>/dev/null
OUT=${OUT:-/tmp/out}
bash dev/device_run.sh || exit 1
export LD_LIBRARY_PATH=$PWD/.criterion/lib
if [ "$REGEX" != none ]; then
    (cd build-dev && timeout 420 ctest -j8 --timeout 400 -R "$REGEX" > "$OUT/ctest.log" 2>&1)
    echo "ctest rc $?"; grep -E "tests passed|FAILED|Failed|\*\*\*" "$OUT/ctest.log" | head -20
fi
Q=build-dev/quadrender
SC=${SCENES:-"clusters spiral powerlaw hotspot roads ring rand10k rand100k rand1M micro2M biglittle snowsingle"}
$Q bench $SC --index grid --frames 10 --warmup 3 "$@" --csv "$OUT/grid.csv" > "$OUT/grid.txt" 2>&1
for L in $LEAVES; do
    $Q bench $SC --index quadtree --min-leaf "$L" --frames 10 --warmup 3 "$@" --csv "$OUT/q$L.csv" > "$OUT/q$L.txt" 2>&1
done
python3 dev/leaves_table.py "$OUT" $LEAVES
