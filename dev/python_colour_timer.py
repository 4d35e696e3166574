"""rand1M through quadrender.render on the CPU at 1024 x 1024: as the
float32 N x 7 array, and as a pandas DataFrame (float64 x, y, r, a value
column) coloured through viridis; medians of 7 calls after one.

    QUADRENDER_LIBRARY=build/src/libquadrender.so.0 PYTHONPATH=python python3 dev/python_colour_timer.py
"""
import time, numpy as np, pandas as pd, quadrender as qr
c = qr.scene("rand1M")
df = pd.DataFrame({"x": c[:,0].astype(np.float64), "y": c[:,1].astype(np.float64), "r": c[:,3].astype(np.float64),
                   "z": c[:,2], "value": np.random.default_rng(0).random(len(c))})
def t(f, k=7):
    f(); ts=[]
    for _ in range(k):
        t0=time.perf_counter(); f(); ts.append(time.perf_counter()-t0)
    return np.median(ts)*1e3, min(ts)*1e3, max(ts)*1e3
a = t(lambda: qr.render(c, 1024, device="cpu"))
b = t(lambda: qr.render(df, 1024, device="cpu", cmap="viridis"))
print(f"float32 array: {a[0]:.1f} ms (min {a[1]:.1f}, max {a[2]:.1f}); DataFrame + value + viridis: {b[0]:.1f} ms (min {b[1]:.1f}, max {b[2]:.1f}); ratio {b[0]/a[0]:.2f}x")
