#!/bin/bash
# One device call that measures the zoo for tuning: builds this tree,
# optionally runs its test suite, then `quadrender bench --zoo` on the
# tuning seeds (below 1000) with every grid, and the quadtree alone under
# a few option settings (JSON under $OUT; the settings' files come back as
# one $OUT/sweep.tar.gz).
# Usage (on the device): bash dev/device_zoo_sweep.sh FIRST COUNT SIZES [test|notest] [nodefault]
# (QR_SWEEP: the settings, one line each, instead of the list below)
#   e.g. bash dev/device_zoo_sweep.sh 100 24 1024,4096 test
set -uo pipefail
first=${1:-100} count=${2:-24} sizes=${3:-1024,4096}
# shellcheck source=dev/device_build.sh
source dev/device_build.sh
if [ "${4:-}" = test ]; then
    (cd build-dev && timeout 240 ctest -j16 --timeout 120 > "$OUT/ctest.log" 2>&1)
    grep -E "tests passed|tests failed" "$OUT/ctest.log"; grep -E "\(Failed\)|Timeout|Exception" "$OUT/ctest.log"
    echo "tested at $(( $(date +%s) - t0 )) s"
fi
q=./build-dev/quadrender
if [ "${5:-}" != nodefault ]; then
    $q bench --zoo "$count" --zoo-first "$first" --size "$sizes" --frames 8 --warmup 3 \
       --json "$OUT/zoo_default.json" > "$OUT/zoo_default.txt" 2>&1 || tail -3 "$OUT/zoo_default.txt"
    grep -A8 -i "## zoo" "$OUT/zoo_default.txt"
    echo "default at $(( $(date +%s) - t0 )) s"
fi
i=0
mkdir -p "$OUT/sweep"
while read -r opts; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    $q bench --zoo "$count" --zoo-first "$first" --size "$sizes" --index quadtree \
       --frames 6 --warmup 2 $opts --json "$OUT/sweep/zoo_s$i.json" > /dev/null 2>&1 || echo "setting $i failed"
    echo "$i $opts" >> "$OUT/sweep/settings.txt"
    echo "setting $i ($opts) at $(( $(date +%s) - t0 )) s"
done <<EOF
${QR_SWEEP:-$(cat <<'LIST'
--min-leaf 32
--min-leaf 16
--capacity 4096 --min-leaf 16 --split-cost 0
--split-cost 0
--capacity 256
--deep-leaf 0
--deep-leaf 16
--min-leaf 128
--min-leaf 32 --split-cost 0
--capacity 4096
--min-leaf 32 --deep-leaf 0
--capacity 256 --min-leaf 32
--min-leaf 16 --split-cost 0
LIST
)}
EOF
tar -C "$OUT" -czf "$OUT/sweep.tar.gz" sweep && rm -rf "$OUT/sweep"
