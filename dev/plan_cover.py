#!/usr/bin/env python3
"""Chooses a plan's candidate settings (src/quadtree/index_plan.c) from a
sweep on the zoo's tuning seeds: dev/device_zoo_sweep.sh's JSON of the
default quadtree and every grid (zoo_default.json) and of the quadtree
under each setting (sweep/zoo_sN.json, sweep/settings.txt). Prints each
setting's summary against each scene's best grid (minimum, geometric
mean, scenes behind below 0.98x, per size and mode), then a greedy cover:
from the defaults, add the setting that most raises the sum over sizes and
modes of the geometric mean of each scene's best candidate.

Usage: dev/plan_cover.py ZOO_DEFAULT.json SWEEP_DIR [steps]"""
import collections
import json
import math
import sys


def rows(path):
    return json.load(open(path))["results"]


def main(default_json, sweep_dir, steps=5):
    grid = collections.defaultdict(dict)
    frames = {0: {}}
    names = {0: "defaults"}
    for r in rows(default_json):
        k = (r["scene"], r["size"], r["mode"])
        if r["index"] == "quadtree":
            frames[0][k] = r["frame_ms"]["median"]
        else:
            grid[k][r["index"]] = r["frame_ms"]["median"]
    best = {k: min(v.values()) for k, v in grid.items()}
    for line in open(f"{sweep_dir}/settings.txt"):
        i, opts = line.split(" ", 1)
        names[int(i)] = opts.strip()
        frames[int(i)] = {(r["scene"], r["size"], r["mode"]): r["frame_ms"]["median"]
                          for r in rows(f"{sweep_dir}/zoo_s{int(i)}.json")}
    groups = sorted({(k[1], k[2]) for k in best})

    def summary(cands):
        out = []
        for g in groups:
            sp = [best[k] / min(frames[c][k] for c in cands)
                  for k in best if (k[1], k[2]) == g and all(k in frames[c] for c in cands)]
            gm = math.exp(sum(map(math.log, sp)) / len(sp))
            out.append((g, min(sp), gm, sum(s < 0.98 for s in sp)))
        return out

    def show(label, cands):
        print(f"{label:48s}", "  ".join(f"{s}{m[0]} min {lo:.2f} gm {gm:.2f} behind {b:2d}"
                                        for (s, m), lo, gm, b in summary(cands)))

    for c in frames:
        show(names[c], [c])
    chosen = [0]
    for _ in range(steps):
        left = [c for c in frames if c not in chosen]
        if not left:
            break
        nxt = max(left, key=lambda c: sum(gm for _, _, gm, _ in summary(chosen + [c])))
        chosen.append(nxt)
        show("+ " + names[nxt], chosen)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 5)
