"""npy_uniform.py — writes N uniform random circles as a float32 .npy
(x y z r R G B), drawn as the uniform:N family draws them (radius
0.009-0.014 times sqrt(1M / N): mean coverage 1 at any N; colours and
depth uniform), block by block so that N may exceed memory.
Usage: python3 dev/npy_uniform.py OUT.npy N [SEED]"""
import sys

import numpy as np

out, n = sys.argv[1], int(float(sys.argv[2]))
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
rng = np.random.default_rng(seed)
scale = np.float32((1e6 / n) ** 0.5)
block = 1 << 24
with open(out, "wb") as f:
    np.lib.format.write_array_header_1_0(
        f, {"descr": "<f4", "fortran_order": False, "shape": (n, 7)})
    for at in range(0, n, block):
        k = min(block, n - at)
        a = rng.random((k, 7), dtype=np.float32)
        a[:, 3] = (np.float32(0.009) + np.float32(0.005) * a[:, 3]) * scale
        a.tofile(f)
