#!/bin/bash
# One device call for the HTML reports: build (dev/device_run.sh), the GPU,
# CLI, bench and report tests, then real pages: stats of a crowded scene and
# of rand1M (its size), and bench at 1024^2 with floors. Files to $OUT.
# Usage (on the device): bash dev/device_report.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
bash dev/device_run.sh || exit 1
export LD_LIBRARY_PATH=$PWD/.criterion/lib
Q=$PWD/build-dev/quadrender
(cd build-dev && ctest -R "${QR_TESTS:-gpu|cli_stats|cli_bench|bench|report}" -j8 --output-on-failure \
    > "$OUT/ctest.log" 2>&1; tail -15 "$OUT/ctest.log"; grep -E "Failed|\*\*\*" "$OUT/ctest.log" | head -20)
$Q stats hotspot -s 1024 --report "$OUT/stats_hotspot.html" --json "$OUT/stats_hotspot.json" -q | tail -3
$Q stats rand1M -s 1024 --report "$OUT/stats_rand1M.html" -q > /dev/null
ls -la "$OUT"/*.html
/usr/bin/time -f "bench: %e s" $Q bench --size 1024 --report "$OUT/bench.html" --json "$OUT/bench.json" \
    > "$OUT/bench.txt" 2>&1
tail -40 "$OUT/bench.txt"
