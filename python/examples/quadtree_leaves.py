"""Draw the quadtree's leaves over a clustered scene: small leaves where
circles crowd, large ones where they are sparse.

    python python/examples/quadtree_leaves.py [out.png]
"""
import sys

import matplotlib
import numpy as np
import quadrender as qr

if len(sys.argv) > 1:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

W = H = 1024
circles = qr.scene("clustered:300k")
image = qr.render(circles, W, H)
leaves = qr.leaves(circles, W, H, capacity=128, min_leaf=16)

fig, ax = plt.subplots(figsize=(8, 8))
ax.imshow(image)
for x0, y0, x1, y1, depth, count in leaves:
    # the library counts rows from the bottom; the image's first row is the top
    ax.add_patch(Rectangle((x0, H - y1), x1 - x0, y1 - y0, fill=False, lw=0.4, ec="black"))
ax.set_title(f"{len(leaves)} leaves, {int(leaves[:, 5].sum())} (leaf, circle) pairs")
ax.axis("off")
if len(sys.argv) > 1:
    fig.savefig(sys.argv[1], dpi=100, bbox_inches="tight")
else:
    plt.show()
