/* build_device.cuh — device helpers that several of the build's stages
 * share: a pixel box in histogram cells (boxes, pairs, single_leaf) and the
 * read-back the host waits on (pairs, single_leaf, readback). */
#ifndef QR_QUADTREE_BUILD_DEVICE_CUH
#define QR_QUADTREE_BUILD_DEVICE_CUH

#include "quadtree/gpu/quadtree_gpu.h"

/* A box in cells of the corner histograms (boxes.cu says why they are
 * cells). The cell is a power of two (qr_index_params_check) and a box is
 * clipped to the region, so the offsets are non-negative and a shift by
 * cs = log2(cell) is the division (an integer division by a run-time value
 * costs some twenty instructions, four times per circle). A region is at
 * most QR_GPU_REGION_MAX pixels a side, so every index fits in an int. */
struct cell_box {
    int X0, Y0, X1, Y1; /* cells [X0, X1) x [Y0, Y1) */
};

/* The cells of the pixel box [x0, x1) x [y0, y1), given in pixels from the
 * region's corner (as the boxes stage stores it): x0, y0 down, x1, y1 up. */
__device__ __forceinline__ cell_box box_cells_rel(const qr_tree_geom &g, int cs, int x0, int y0,
                                                  int x1, int y1)
{
    cell_box c;
    c.X0 = x0 >> cs;
    c.Y0 = y0 >> cs;
    c.X1 = (x1 + g.cell - 1) >> cs;
    c.Y1 = (y1 + g.cell - 1) >> cs;
    return c;
}

/* The same for a box in image pixels. */
__device__ __forceinline__ cell_box box_cells(const qr_tree_geom &g, int cs, int x0, int y0, int x1,
                                              int y1)
{
    return box_cells_rel(g, cs, x0 - g.region.x0, y0 - g.region.y0, x1 - g.region.x0,
                         y1 - g.region.y0);
}

/* The read-back: the scalars (word by word through volatile loads, so that
 * nothing cached from before is copied) and the emitted pairs' total, into
 * host-mapped memory. Called by every thread of a block: a word each, so
 * that the loads overlap (one thread copying word by word waits on each
 * word in turn, at the end of every build). */
__device__ __forceinline__ void write_readback(const qr_build_scalars *scalars, long long total,
                                               qr_build_readback *out)
{
    const volatile uint32_t *src = (const volatile uint32_t *)scalars;
    uint32_t *dst = (uint32_t *)&out->scalars;
    for (int k = threadIdx.x; k < (int)(sizeof *scalars / 4); k += blockDim.x) dst[k] = src[k];
    if (threadIdx.x == 0) out->total = total;
}

/* Tells the host, which waits on it, that the read-back is written: the
 * fence orders the read-back's stores before the flag's, for the host too. */
__device__ __forceinline__ void publish_readback(qr_build_readback *rb)
{
    __threadfence_system();
    *(volatile uint32_t *)&rb->ready = 1;
}

#endif
