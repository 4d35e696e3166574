#!/bin/bash
# Index parameter sweep on the device (after dev/device_run.sh built build-dev):
# frame time per scene and mode for capacities x minimum leaf sizes.
OUT=${OUT:-/tmp/out}
for leaf in 16 32 64; do
  for cap in 256 1024 4096 16384; do
    ./build-dev/dev/frame_timer -n 15 --cap $cap --leaf $leaf rand10k rand100k biglittle rand1M micro2M \
      | awk -v c=$cap -v l=$leaf 'NR>2 {printf "leaf %3d cap %6d %-10s %-5s build %7.4f render %7.4f frame %7.4f pairs %8d\n", l, c, $1, $2, $9, $10, $11, $15}'
  done
done | tee "$OUT/sweep.txt"
