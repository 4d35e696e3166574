"""Render a million circles made with NumPy and show them with matplotlib.

    python python/examples/render_numpy.py [out.png]
"""
import sys
import time

import numpy as np
import quadrender as qr

rng = np.random.default_rng(0)
n = 1_000_000
circles = np.empty((n, 7), np.float32)
circles[:, 0:2] = rng.normal(0.5, 0.15, (n, 2))           # a Gaussian cloud
circles[:, 2] = rng.random(n)                             # depth
circles = circles[np.argsort(-circles[:, 2])]             # far ones first
circles[:, 3] = rng.uniform(0.001, 0.004, n)              # radius
circles[:, 4:7] = rng.random((n, 3))                      # colour

t = time.perf_counter()
image = qr.render(circles, 1024, 1024)
print(f"rendered {n} circles in {1e3 * (time.perf_counter() - t):.1f} ms "
      f"({'GPU: ' + qr.gpu_available()[1] if qr.gpu_available()[0] else 'CPU'})")
if len(sys.argv) > 1:
    qr.save(image, sys.argv[1])
else:
    import matplotlib.pyplot as plt
    plt.imshow(image)
    plt.axis("off")
    plt.show()
