#!/usr/bin/env python3
"""Where the zoo's time goes, from `quadrender bench --zoo N --json`: per
size and mode, the scenes whose default quadtree is behind its best grid
(< 0.98x), each with the quadtree's and that grid's frame split into build
and render, leaves and pairs; then the geometric mean over all scenes and
how many lose more in the build than in the render (docs/benchmarks.md,
"The zoo").

Usage: dev/zoo_stages.py BENCH.json [--all]"""
import collections
import json
import math
import sys


def main(path, show_all=False):
    rows = collections.defaultdict(dict)
    for r in json.load(open(path))["results"]:
        if r["scene"].startswith("zoo:") and "frame_ms" in r:
            rows[(r["size"], r["mode"], r["scene"])][r["index"]] = r
    for size, mode in sorted({(s, m) for s, m, _ in rows}):
        print(f"## {size} {mode}")
        ratios, build_bound = [], 0
        for (s, m, scene), v in sorted(rows.items()):
            if (s, m) != (size, mode) or "quadtree" not in v:
                continue
            q = v["quadtree"]
            grids = {k: x for k, x in v.items() if k.startswith("grid")}
            if not grids:
                continue
            g = min(grids.values(), key=lambda x: x["frame_ms"]["median"])
            ratio = g["frame_ms"]["median"] / q["frame_ms"]["median"]
            ratios.append(ratio)
            qb, gb = q["build_ms"]["median"], g["build_ms"]["median"]
            qr, gr = q["stage_ms"]["render"], g["stage_ms"]["render"]
            if ratio < 0.98 and qb - gb > qr - gr:
                build_bound += 1
            if ratio < 0.98 or show_all:
                print(f"{scene:9} {q['circles']:8d} circles  quadtree {q['frame_ms']['median']:.3f} ms"
                      f" (build {qb:.3f}, render {qr:.3f}, {q['leaves']} leaves, {q['pairs']} pairs)"
                      f"  {g['index']} {g['frame_ms']['median']:.3f} (build {gb:.3f}, render {gr:.3f},"
                      f" {g['pairs']} pairs)  {ratio:.2f}x")
        if ratios:
            gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
            behind = sum(r < 0.98 for r in ratios)
            print(f"geometric mean {gm:.3f}x, {behind} of {len(ratios)} behind, "
                  f"{build_bound} of them more by the build than by the render\n")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], "--all" in sys.argv[2:])
