"""Python calls on the GPU, wall clock per call, each call waited for on the
GPU (cudaDeviceSynchronize) before its clock stops:
  - a 10M-circle CuPy array rendered at 4096² by one quadrender.Renderer
    (the first call, then the median of --calls calls after it: the kept
    scene refilled in place), fast and exact mode;
  - the same through a new Renderer per call (quadrender.render);
  - rand1M as a NumPy array at 1024² through quadrender.render (a new
    Renderer, scene and pinned buffers each call) and through one kept
    Renderer (its scene and pinned staging refilled, the image back as
    top-first RGB).
Usage: QUADRENDER_LIBRARY=build/release/src/libquadrender.so.0 PYTHONPATH=python \\
       python3 dev/python_timer.py [--calls 20]"""
import argparse
import statistics
import time

import cupy
import quadrender as qr


def timed(call, calls):
    """(first, median, min, max) milliseconds of call(): the first call,
    then `calls` more."""
    times = []
    for _ in range(calls + 1):
        t = time.perf_counter()
        call()
        cupy.cuda.runtime.deviceSynchronize()
        times.append(1e3 * (time.perf_counter() - t))
    rest = times[1:]
    return times[0], statistics.median(rest), min(rest), max(rest)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=20, help="timed calls after the first (>= 20)")
    args = ap.parse_args()
    calls = max(args.calls, 20)
    print(f"device: {qr.gpu_available()[1]}; {calls} calls after the first, ms")
    rng = cupy.random.default_rng(0)
    circles = rng.random((10_000_000, 7), dtype=cupy.float32)
    circles[:, 3] = 0.0005 + 0.002 * circles[:, 3]
    rows = []
    with qr.Renderer(4096, 4096) as r:
        for mode in ("fast", "exact"):
            rows.append((f"10M CuPy, 4096², Renderer.render, {mode}",
                         timed(lambda: r.render(circles, mode=mode), calls)))
    rows.append(("10M CuPy, 4096², quadrender.render, fast",
                 timed(lambda: qr.render(circles, 4096, 4096), calls)))
    host = qr.scene("rand1M")
    rows.append(("rand1M NumPy, 1024², quadrender.render, fast",
                 timed(lambda: qr.render(host, 1024, 1024), calls)))
    with qr.Renderer(1024, 1024) as r:
        rows.append(("rand1M NumPy, 1024², Renderer.render (kept), fast",
                     timed(lambda: r.render(host), calls)))
    width = max(len(name) for name, _ in rows)
    print(f"| {'case':<{width}} | first | median | min | max |")
    print(f"|{'-' * (width + 2)}|------:|-------:|----:|----:|")
    for name, (first, med, lo, hi) in rows:
        print(f"| {name:<{width}} | {first:.2f} | {med:.2f} | {lo:.2f} | {hi:.2f} |")


if __name__ == "__main__":
    main()
