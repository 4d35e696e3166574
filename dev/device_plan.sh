#!/bin/bash
# One device call for plans: builds this tree, runs the plan tests, then
# `quadrender bench --plan 3` on the zoo's reporting seeds (1000-1049) and
# on the scored scenes (CS149 and non-uniform), 1024 and 4096, every grid
# in the same run (JSON and tables under $OUT).
# Usage (on the device): bash dev/device_plan.sh [zoo-count] [sizes]
set -uo pipefail
count=${1:-50} sizes=${2:-1024,4096}
# shellcheck source=dev/device_build.sh
source dev/device_build.sh
(cd build-dev && ctest -j8 --timeout 300 -R "${QR_PLAN_TESTS:-plan}" --output-on-failure > "$OUT/ctest.log" 2>&1)
grep -E "tests passed|tests failed|\(Failed\)|Skipped" "$OUT/ctest.log"
q=./build-dev/quadrender
$q bench --zoo "$count" --size "$sizes" --frames 8 --warmup 3 --plan 3 \
   --json "$OUT/zoo_plan.json" > "$OUT/zoo_plan.txt" 2>&1 || tail -3 "$OUT/zoo_plan.txt"
grep -A6 "## zoo" "$OUT/zoo_plan.txt"
echo "zoo at $(( $(date +%s) - t0 )) s"
$q bench --size "$sizes" --frames 10 --warmup 3 --plan 3 \
   --json "$OUT/scored_plan.json" > "$OUT/scored_plan.txt" 2>&1 || tail -3 "$OUT/scored_plan.txt"
echo "scored at $(( $(date +%s) - t0 )) s"
