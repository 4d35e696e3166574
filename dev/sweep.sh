#!/bin/bash
# Index parameter sweep on the device (after dev/device_run.sh built build-dev):
# `quadrender bench` (frames timed whole) of the scored scenes, quadtree only,
# for minimum leaf sizes x capacities x split costs; one CSV with the three
# parameters in front. Usage: dev/sweep.sh ["32 64"] ["1024"] ["0 10 20"]
OUT=${OUT:-/tmp/out}
leaves=${1:-"16 32 64"}
caps=${2:-"256 1024 4096 16384"}
costs=${3:-"0"}
for leaf in $leaves; do
  for cap in $caps; do
    for cost in $costs; do
      ./build-dev/quadrender bench --index quadtree --frames 15 --warmup 3 --min-leaf $leaf \
        --capacity $cap --split-cost $cost --csv - > /tmp/sweep_one.txt 2>/dev/null
      awk -v l=$leaf -v c=$cap -v k=$cost -F, 'NF > 15 && $1 != "scene" {print l "," c "," k "," $0}' /tmp/sweep_one.txt
    done
  done
done > "$OUT/sweep.csv"
