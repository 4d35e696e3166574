#!/bin/bash
# One device call for scenes of circles larger than the index's nodes (the
# rule that splits no node it cannot shorten, quadtree_geom.h): makes
# 100 000 circles of radius 0.3-0.6, of radius 2, and the first mixed with
# a million small ones as .npy files, renders each with the baseline build
# (build-base, from .base/) and this one (build-dev), then benches this one
# against the grids: fast at 1024 and 4096 (tiles of 64 to 256 pixels: finer
# ones hold billions of pairs there), exact at 1024 (JSON under $OUT).
# Run after dev/device_ab.sh (it builds both). Usage: bash dev/device_large.sh
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.criterion/lib
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/large
python3 - <<'PY'
import numpy as np
g = np.random.default_rng(5)
def scene(n, rmin, rmax, small=0):
    m = n + small
    c = np.empty((m, 7), np.float32)
    c[:, 0:2] = g.random((m, 2))
    c[:, 2] = 0.5
    c[:n, 3] = g.uniform(rmin, rmax, n)
    c[n:, 3] = g.uniform(0.002, 0.01, small)
    c[:, 4:7] = g.random((m, 3))
    return c
np.save("/tmp/large/big.npy", scene(100000, 0.3, 0.6))
np.save("/tmp/large/huge.npy", scene(100000, 2.0, 2.0))
np.save("/tmp/large/mixed.npy", scene(100000, 0.3, 0.6, 1000000))
PY
for f in big huge mixed; do
    for t in base dev; do
        for s in 1024 4096; do
            for m in fast exact; do
                [ "$m" = exact ] && [ "$s" = 4096 ] && continue
                /usr/bin/time -f "%e s, %M KB" ./build-$t/quadrender render /tmp/large/$f.npy -s $s \
                    --$m -o /tmp/large/o.png > /tmp/large/log 2>&1
                echo "$t $f $s $m: rc=$? $(grep -v '^quadrender:   ' /tmp/large/log | tail -2 | tr '\n' ' ')"
            done
        done
    done
done
for f in big huge mixed; do
    ./build-dev/quadrender bench /tmp/large/$f.npy --size 1024 --mode fast --frames 10 \
        --json "$OUT/large_fast_$f.json" > "$OUT/large_fast_$f.txt" 2>&1 || tail -2 "$OUT/large_fast_$f.txt"
    # at 4096^2 a grid of 16 or 32 pixels would hold billions of pairs
    ./build-dev/quadrender bench /tmp/large/$f.npy --size 4096 --mode fast --frames 10 --tile 64,128,256 \
        --json "$OUT/large_fast4k_$f.json" > "$OUT/large_fast4k_$f.txt" 2>&1 || tail -2 "$OUT/large_fast4k_$f.txt"
    ./build-dev/quadrender bench /tmp/large/$f.npy --size 1024 --mode exact --frames 3 --warmup 1 \
        --json "$OUT/large_exact_$f.json" > "$OUT/large_exact_$f.txt" 2>&1 || tail -2 "$OUT/large_exact_$f.txt"
done
python3 - "$OUT" <<'PY'
import json, sys, glob
for p in sorted(glob.glob(sys.argv[1] + "/large_*.json")):
    rows = json.load(open(p))["results"]
    keys = sorted({(r["scene"], r["size"], r["mode"]) for r in rows})
    for k in keys:
        rs = [r for r in rows if (r["scene"], r["size"], r["mode"]) == k]
        q = [r for r in rs if r["index"] == "quadtree"][0]
        g = min((r for r in rs if r["index"] != "quadtree"), key=lambda r: r["frame_ms"]["median"])
        print(f"{k[0]:6s} {k[1]:5d} {k[2]:5s} quadtree {q['frame_ms']['median']:.3f} ms ({q['leaves']} leaves, {q['pairs']} pairs)"
              f"  best {g['index']} {g['frame_ms']['median']:.3f} ms ({g['pairs']} pairs)  ratio {g['frame_ms']['median']/q['frame_ms']['median']:.2f}x")
PY
