"""Python calls on the GPU: a 10M-circle CuPy array rendered at 4096² by one
quadrender.Renderer, per call after the first (wall clock, median of 10),
and a NumPy array of rand1M at 1024² through quadrender.render.
Usage: QUADRENDER_LIBRARY=build-dev/src/libquadrender.so.0 PYTHONPATH=python python3 dev/python_timer.py"""
import statistics
import time

import cupy
import numpy as np
import quadrender as qr

rng = cupy.random.default_rng(0)
n = 10_000_000
circles = rng.random((n, 7), dtype=cupy.float32)
circles[:, 3] = 0.0005 + 0.002 * circles[:, 3]
with qr.Renderer(4096, 4096) as r:
    r.render(circles)
    times = []
    for _ in range(10):
        t = time.perf_counter()
        img = r.render(circles)
        cupy.cuda.runtime.deviceSynchronize()
        times.append(1e3 * (time.perf_counter() - t))
print(f"10M CuPy circles, 4096², Renderer.render: median {statistics.median(times):.2f} ms "
      f"(min {min(times):.2f}, max {max(times):.2f})")
host = qr.scene("rand1M")
qr.render(host, 1024, 1024)
times = []
for _ in range(5):
    t = time.perf_counter()
    qr.render(host, 1024, 1024)
    times.append(1e3 * (time.perf_counter() - t))
print(f"rand1M NumPy, 1024², quadrender.render: median {statistics.median(times):.2f} ms")
