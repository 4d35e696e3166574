#!/usr/bin/env python3
"""Summarises dev/sweep.sh's CSV: per (min_leaf, capacity, split_cost) and
mode, the sum of the scenes' median frame times and each scene's."""
import collections, csv, sys

rows = list(csv.reader(open(sys.argv[1])))
total, per, scenes = collections.defaultdict(float), {}, []
for r in rows:
    key = (int(r[0]), int(r[1]), int(r[2]), r[5])  # leaf, cap, cost, mode
    total[key] += float(r[8])
    per[key + (r[3],)] = float(r[8])
    if r[3] not in scenes:
        scenes.append(r[3])
for mode in ("fast", "exact"):
    print(mode, "leaf cap cost total", " ".join(s[:8] for s in scenes))
    for key in sorted(k for k in total if k[3] == mode):
        print(*key[:3], f"{total[key]:.3f}", " ".join(f"{per[key + (s,)]:.3f}" for s in scenes))
