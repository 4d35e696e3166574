#!/usr/bin/env python3
"""A/B of `quadrender bench` JSON files (dev/device_ab.sh's rounds): per
(scene, size, mode, index) the median frame of each side, the best of its
rounds' medians, and B/A. Prints the rows beyond --limit (default 2%) and a
summary; exit status 1 if any quadtree row is slower than the limit.
Usage: bench_ab.py --a base_1.json base_2.json --b dev_1.json dev_2.json"""
import argparse
import json
import math
import sys


def rows(paths):
    best = {}
    for p in paths:
        with open(p) as f:
            for r in json.load(f)["results"]:
                k = (r["scene"], r["size"], r["mode"], r["index"])
                best[k] = min(best.get(k, math.inf), r["frame_ms"]["median"])
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", nargs="+", required=True)
    ap.add_argument("--b", nargs="+", required=True)
    ap.add_argument("--limit", type=float, default=0.02)
    o = ap.parse_args()
    a, b = rows(o.a), rows(o.b)
    keys = sorted(set(a) & set(b))
    logs, worst, slow = [], (0, None), 0
    for k in keys:
        ratio = b[k] / a[k]
        logs.append(math.log(ratio))
        if ratio > worst[0]:
            worst = (ratio, k)
        if ratio > 1 + o.limit:
            print(f"{' '.join(map(str, k)):40s} A {a[k]:.4f} ms  B {b[k]:.4f} ms  B/A {ratio:.3f}")
            slow += k[3] == "quadtree"
    g = math.exp(sum(logs) / len(logs))
    print(f"{len(keys)} rows: geometric mean B/A {g:.4f}, worst {worst[0]:.3f} ({' '.join(map(str, worst[1]))}); "
          f"{slow} quadtree rows more than {o.limit:.0%} slower")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
