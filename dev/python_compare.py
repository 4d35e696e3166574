"""quadrender beside other Python tools that draw many points or circles,
on one machine, at 1024 x 1024: the same random circles (uniform centres
in the unit square, rand1M's radii 0.009-0.014, random colours, alpha 0.5,
drawn in row order over white) through
  - quadrender on the CPU: quadrender.render(..., device="cpu"), all cores;
  - quadrender on the GPU, where there is one: a kept quadrender.Renderer
    (NumPy in, NumPy out) and quadrender.render;
  - matplotlib: one EllipseCollection of the circles (data units, no edges,
    no anti-aliasing, as quadrender draws them), Agg, drawn into an RGBA
    buffer of 1024 x 1024 pixels and copied out as an array;
  - datashader: the circles' centres as points,
    Canvas(1024, 1024).points(df, "x", "y", agg=ds.count()) then tf.shade
    (a count of points, not circles: the usual way it draws this many).
Each call is timed whole (for quadrender and matplotlib from the array to an
image array; for datashader from the DataFrame, made once, to the shaded
image); the median of a few calls after one warm-up call (which also pays
numba's compilation and CUDA's start), fewer for a tool whose calls outlast
--budget seconds (a warm-up call longer than that is the only one: calls
0). A tool that cannot be imported is listed as not installed. Prints a
Markdown table: ms a call and each one's ratio to quadrender CPU.

Usage: PYTHONPATH=python:.pydeps python3 dev/python_compare.py [--sizes 1M,10M]
       [--runs 5] [--budget 60]
(scripts/device-python-bundle.sh puts datashader into .pydeps/ for a
machine that lacks it.)"""
import argparse
import statistics
import time

import numpy as np

import quadrender as qr

SIDE = 1024


def circles(n, seed=0):
    """n circles, float32 N x 7: x y z r R G B."""
    rng = np.random.default_rng(seed)
    c = rng.random((n, 7), dtype=np.float32)
    c[:, 2] = 0.0
    c[:, 3] = 0.009 + 0.005 * c[:, 3]
    return c


def timed(call, runs, budget):
    """(median ms, calls) of call() over up to `runs` calls after a warm-up
    call, stopping early (after one at least) once `budget` seconds are
    spent; a warm-up that itself takes longer than `budget` is the one call
    timed (calls 0)."""
    t = time.perf_counter()
    call()
    warm = 1e3 * (time.perf_counter() - t)
    if warm > 1e3 * budget:
        return warm, 0
    times, start = [], time.perf_counter()
    while len(times) < runs and (not times or time.perf_counter() - start < budget):
        t = time.perf_counter()
        call()
        times.append(1e3 * (time.perf_counter() - t))
    return statistics.median(times), len(times)


def quadrender_cpu(c):
    return lambda: qr.render(c, SIDE, SIDE, device="cpu")


def quadrender_gpu_tools(c):
    """(name, call) of quadrender on the GPU, where there is one."""
    if not qr.gpu_available()[0]:
        return []
    kept = qr.Renderer(SIDE, SIDE)
    return [("quadrender GPU, kept Renderer", lambda: kept.render(c)),
            ("quadrender GPU, quadrender.render", lambda: qr.render(c, SIDE, SIDE, device="gpu"))]


def matplotlib_call(c):
    """A call drawing c with matplotlib's Agg, or the reason it cannot."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.collections import EllipseCollection
        from matplotlib.figure import Figure
    except ImportError:
        return None
    dpi = 100
    fig = Figure(figsize=(SIDE / dpi, SIDE / dpi), dpi=dpi, facecolor="white")
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_axis_off()
    colours = np.empty((c.shape[0], 4), np.float32)
    colours[:, :3] = c[:, 4:7]
    colours[:, 3] = 0.5

    def draw():
        d = 2 * c[:, 3]
        coll = EllipseCollection(d, d, np.zeros_like(d), units="xy", offsets=c[:, :2],
                                 offset_transform=ax.transData, facecolors=colours,
                                 edgecolors="none", linewidths=0, antialiaseds=False)
        ax.add_collection(coll)
        canvas.draw()
        image = np.array(canvas.buffer_rgba())  # a copy: the canvas is reused
        coll.remove()
        assert image.shape == (SIDE, SIDE, 4)
        return image

    return draw


def datashader_call(c):
    """A call shading c's centres with datashader, or None without it."""
    try:
        import datashader as ds
        import datashader.transfer_functions as tf
        import pandas as pd
    except ImportError:
        return None
    df = pd.DataFrame({"x": c[:, 0], "y": c[:, 1]})
    canvas = ds.Canvas(plot_width=SIDE, plot_height=SIDE, x_range=(0, 1), y_range=(0, 1))
    return lambda: tf.shade(canvas.points(df, "x", "y", agg=ds.count()))


def parse_count(text):
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1M,10M", help="circle counts, comma-separated")
    ap.add_argument("--runs", type=int, default=5, help="timed calls after the warm-up")
    ap.add_argument("--budget", type=float, default=60.0,
                    help="seconds of timed calls a tool may take at most (one call at least)")
    args = ap.parse_args()
    gpu = qr.gpu_available()
    print(f"{SIDE}x{SIDE}; GPU: {gpu[1] if gpu[0] else 'none (' + gpu[1] + ')'}; "
          f"median of up to {args.runs} calls after a warm-up, ms")
    print()
    print("| circles | tool | ms a call | x quadrender CPU | calls |")
    print("|---|---|---:|---:|---:|")
    for text in args.sizes.split(","):
        n = parse_count(text)
        c = circles(n)
        base, calls = timed(quadrender_cpu(c), args.runs, args.budget)
        print(f"| {text} | quadrender CPU ({qr.__version__}) | {base:.1f} | 1.00 | {calls} |",
              flush=True)
        tools = quadrender_gpu_tools(c)
        tools += [("matplotlib EllipseCollection, Agg", matplotlib_call(c)),
                  ("datashader points + shade", datashader_call(c))]
        for name, call in tools:
            if call is None:
                print(f"| {text} | {name} | not installed | | |", flush=True)
                continue
            ms, calls = timed(call, args.runs, args.budget)
            print(f"| {text} | {name} | {ms:.1f} | {ms / base:.2f} | {calls} |", flush=True)


if __name__ == "__main__":
    main()
