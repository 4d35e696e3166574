"""The tables of docs/benchmarks.md from bench's JSON:
    python3 dev/bench_tables.py bench.json [scaling.json]
(bench --size 1024,4096 --json bench.json; bench --scaling-plot ... --json
scaling.json). Prints markdown: frame times per size, the quadtree against
the grids, the 1024^2 build by stage, and the scaling table."""
import json
import sys

d = json.load(open(sys.argv[1]))
R = {(r["scene"], r["size"], r["mode"], r["index"]): r for r in d["results"]}
scenes, group = [], {}
for r in d["results"]:
    if r["scene"] not in scenes:
        scenes.append(r["scene"])
        group[r["scene"]] = r["group"]


def med(s, z, m, i):
    return R[(s, z, m, i)]["frame_ms"]["median"]


def best(s, z, m):
    g = {i: med(s, z, m, i) for (ss, zz, mm, i) in R if ss == s and zz == z and mm == m and i != "quadtree"}
    bi = min(g, key=g.get)
    return bi, g[bi], g.get("grid16")


out = []
for size in (1024, 4096):
    out.append(f"\n## Frame times, {size} x {size} (ms, median of 20)\n")
    out.append("| scene | fast: quadtree | best grid | grid16 | exact: quadtree | best grid | grid16 |")
    out.append("|---|---:|---:|---:|---:|---:|---:|")
    cur = None
    for s in scenes:
        if group[s] != cur:
            cur = group[s]
            out.append(f"| *{'CS149 scenes' if cur == 'CS149' else 'non-uniform scenes'}* | | | | | | |")
        row = [s]
        for m in ("fast", "exact"):
            q = med(s, size, m, "quadtree")
            bi, b, g16 = best(s, size, m)
            qs, bs = f"{q:.3f}", f"{b:.3f} ({bi[4:]})"
            if q < b * 0.98:
                qs = f"**{qs}**"
            elif b < q * 0.98:
                bs = f"**{bs}**"
            row += [qs, bs, f"{g16:.3f}"]
        out.append("| " + " | ".join(row) + " |")
out.append("\n## Quadtree against uniform grids\n")
out.append("| scene | 1024² fast | 1024² exact | 4096² fast | 4096² exact | over grid16, 1024² fast / exact | 4096² fast / exact |")
out.append("|---|---:|---:|---:|---:|---:|---:|")
for s in scenes:
    row = [s]
    for z in (1024, 4096):
        for m in ("fast", "exact"):
            bi, b, _ = best(s, z, m)
            row.append(f"{b / med(s, z, m, 'quadtree'):.2f}x ({bi[4:]})")
    for z in (1024, 4096):
        row.append(" / ".join(f"{best(s, z, m)[2] / med(s, z, m, 'quadtree'):.1f}x" for m in ("fast", "exact")))
    out.append("| " + " | ".join(row) + " |")
out.append("\n## Index build by stage, 1024 x 1024, quadtree (ms, median of 20)\n")
out.append("| scene | boxes | tree | count | scan | emit | sort | build | render fast | render exact | leaves | pairs | pairs per circle |")
out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for s in scenes:
    rf, rx = R[(s, 1024, "fast", "quadtree")], R[(s, 1024, "exact", "quadtree")]
    st = rf["stage_ms"]
    pairs = f"{rf['pairs']:,}".replace(",", " ")
    out.append(f"| {s} | {st['boxes']:.3f} | {st['tree']:.3f} | {st['count']:.3f} | {st['scan']:.3f} | "
               f"{st['emit']:.3f} | {st['sort']:.3f} | {rf['build_ms']['median']:.3f} | {st['render']:.3f} | "
               f"{rx['stage_ms']['render']:.3f} | {rf['leaves']} | {pairs} | {rf['pairs'] / max(1, rf['visible']):.2f} |")
if len(sys.argv) > 2:
    sc = json.load(open(sys.argv[2]))["scaling"]
    S = {}
    for r in sc:
        if r["mode"] != "fast":
            continue
        S.setdefault((r["family"], r["circles"], r["size"]), []).append(r)
    out.append("\n## Frame time against circle count (fast, ms)\n")
    out.append("| family | circles | 1024² quadtree | best grid | 4096² quadtree | best grid | pairs (quadtree, 4096²) | leaves | GPU MiB (index + image + scene) |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    names = {10**4: "10k", 10**5: "100k", 10**6: "1M", 10**7: "10M", 10**8: "100M"}
    for fam, n in sorted({(f, c) for (f, c, z) in S}, key=lambda k: (k[0] != "uniform", k[1])):
        row = [fam, names.get(n, str(n))]
        for z in (1024, 4096):
            rs = S.get((fam, n, z), [])
            q = [r for r in rs if r["index"] == "quadtree" and r.get("frame_ms")]
            g = [r for r in rs if r["index"] != "quadtree" and r.get("frame_ms")]
            if not q or not g:
                row += ["-", "-"]
                continue
            qt, gb = q[0]["frame_ms"], min(g, key=lambda r: r["frame_ms"])
            qs, bs = f"{qt:.3f}", f"{gb['frame_ms']:.3f} ({gb['tile']})"
            if qt < gb["frame_ms"] * 0.98:
                qs = f"**{qs}**"
            elif gb["frame_ms"] < qt * 0.98:
                bs = f"**{bs}**"
            row += [qs, bs]
        q4 = [r for r in S.get((fam, n, 4096), []) if r["index"] == "quadtree"]
        if q4:
            r = q4[0]
            row += [f"{r['pairs']:,}".replace(",", " "), str(r["leaves"]),
                    f"{(r['index_bytes'] + r['image_bytes'] + r['scene_bytes']) / 2**20:,.0f}".replace(",", " ")]
        out.append("| " + " | ".join(row) + " |")
print("\n".join(out))
