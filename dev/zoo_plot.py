#!/usr/bin/env python3
"""Draws the zoo's distribution from `bench --zoo N --plan T --json`:
per size and mode, every scene's speedup over its best grid, sorted, for
the quadtree's base settings (each row's plan.base_ms) and for its plan
(the row's frame), on one PNG (docs/benchmarks.md, "Plans").

Usage: dev/zoo_plot.py BENCH.json OUT.png"""
import collections
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, out):
    rows = collections.defaultdict(dict)
    for r in json.load(open(path))["results"]:
        if r.get("group") == "zoo" and "frame_ms" in r:
            rows[(r["size"], r["mode"], r["scene"])][r["index"]] = r
    groups = sorted({(s, m) for s, m, _ in rows})
    fig, axes = plt.subplots(1, len(groups), figsize=(4 * len(groups), 3.6), sharey=True)
    for ax, (size, mode) in zip(axes, groups):
        base, plan = [], []
        for (s, m, _), v in rows.items():
            if (s, m) != (size, mode) or "plan" not in v.get("quadtree", {}):
                continue
            grid = min(x["frame_ms"]["median"] for k, x in v.items() if k != "quadtree")
            q = v["quadtree"]
            base.append(grid / q["plan"]["base_ms"])
            plan.append(grid / q["frame_ms"]["median"])
        gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
        ax.plot(sorted(base), ".-", label=f"base settings (gm {gm(base):.2f}x)", color="#999")
        ax.plot(sorted(plan), ".-", label=f"planned (gm {gm(plan):.2f}x)", color="#1f77b4")
        ax.axhline(1.0, color="k", lw=0.6)
        ax.axhline(0.98, color="r", lw=0.6, ls=":")
        ax.set_yscale("log")
        ax.set_title(f"{size}², {mode}")
        ax.set_xlabel("zoo scenes, sorted")
        ax.legend(fontsize=8, loc="upper left")
    axes[0].set_ylabel("speed-up over the scene's best grid")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
