"""Quadtree frames at several smallest leaves against the best grid, from
dev/device_leaves.sh's CSVs: python3 dev/leaves_table.py OUT LABEL..."""
import csv
import sys

out, leaves = sys.argv[1], sys.argv[2:]


def rows(path):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


grid = {}
for r in rows(f"{out}/grid.csv"):
    if not r["frame_median_ms"]:
        continue
    k = (r["scene"], r["size"], r["mode"])
    t = float(r["frame_median_ms"])
    if k not in grid or t < grid[k][0]:
        grid[k] = (t, r["index"])
q = {L: {(r["scene"], r["size"], r["mode"]): r for r in rows(f"{out}/q_{L}.csv")} for L in leaves}
print("scene size mode | best grid | " + " | ".join(f"{L}: ms (x grid) build leaves" for L in leaves))
for k in sorted(grid):
    g, gi = grid[k]
    cells = []
    for L in leaves:
        r = q[L].get(k)
        if not r or not r["frame_median_ms"]:
            cells.append("-")
            continue
        t = float(r["frame_median_ms"])
        cells.append(f"{t:.3f} ({g / t:.2f}x) {float(r['build_median_ms']):.3f} {r['leaves']}")
    print(f"{k[0]} {k[1]} {k[2]} | {g:.3f} {gi} | " + " | ".join(cells))
