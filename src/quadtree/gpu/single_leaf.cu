/* single_leaf.cu — the whole build of a tree that is one leaf, in one
 * kernel.
 *
 * A scene whose root stays a leaf (rgb, pattern: fewer visible circles than
 * a leaf holds) needs no histograms, tree, counts, scan or sort: its one list
 * is the visible circles in circle order. The general build pays the fixed
 * cost of its ten graph nodes for that; one block does it in a fraction.
 * It decides the root as k_tree does (qr_node_splits, and qr_split_goes
 * over the children's counts, gathered on the way), so where it applies
 * its result is the general build's, byte for byte. Where the root would
 * split, or the list outgrows `items`, it reports items + 1 pairs: the
 * renderer then skips the frame and the host builds again the general way
 * (the frame then redoes the build: quadtree/gpu/frame.cu). */
#include "quadtree/gpu/build_stages.h"
#include "quadtree/gpu/build_device.cuh"
#include "quadtree/quadtree_geom.h"
#include "gpu/pdl.h"

#include <cub/block/block_scan.cuh>

/* QR_SINGLE_THREADS, QR_SINGLE_PER_THREAD: gpu/tuning/tuning_default.h */
typedef cub::BlockScan<int, QR_SINGLE_THREADS, cub::BLOCK_SCAN_WARP_SCANS> single_scan;

__global__ void __launch_bounds__(QR_SINGLE_THREADS)
k_single_leaf(int32_t n, const float *__restrict__ xs, const float *__restrict__ ys,
              const float *__restrict__ rs, qr_tree_geom g, long long items, int32_t *vals,
              qr_leaf *leaves, int32_t *tile_leaf, qr_build_scalars *scalars, qr_build_readback *rb)
{
    __shared__ typename single_scan::TempStorage scan;
    __shared__ unsigned long long s_area; /* the visible boxes' pixels (qr_read_share) */
    qr_pdl_release(); /* the render may be scheduled now; it waits for the end */
    const float inv_w = 1.0f / (float)g.width, inv_h = 1.0f / (float)g.height;
    const int cs = __ffs(g.cell) - 1;
    /* the root's children in cells (see box_cells): child k is
     * [(k&1) hc, +hc) x [(k>>1) hc, +hc); those past the region do not exist */
    const int half = g.root >> 1, hc = half >> cs;
    int exists = 0;
    for (int k = 0; k < 4; k++)
        if (g.region.x0 + (k & 1) * half < g.region.x1 && g.region.y0 + (k >> 1) * half < g.region.y1)
            exists |= 1 << k;
    /* every tile is the one leaf's; stored whatever the outcome, since a
     * general build that redoes this one rewrites them all */
    for (int t = threadIdx.x; t < 2 * g.tiles_x * g.tiles_y; t += QR_SINGLE_THREADS) tile_leaf[t] = 0;
    if (threadIdx.x == 0) s_area = 0;
    unsigned long long area = 0;
    int listed = 0;   /* visible circles so far (the same on every thread) */
    int children = 0; /* this thread's (child, box) meetings */
    for (int32_t c0 = 0; c0 < n; c0 += QR_SINGLE_THREADS * QR_SINGLE_PER_THREAD) {
        /* each thread a run of consecutive circles, so that slots follow
         * circle order: a run's first slot is the scan of the run counts */
        const int32_t i0 = c0 + threadIdx.x * QR_SINGLE_PER_THREAD;
        float x[QR_SINGLE_PER_THREAD], y[QR_SINGLE_PER_THREAD], r[QR_SINGLE_PER_THREAD];
#pragma unroll
        for (int k = 0; k < QR_SINGLE_PER_THREAD; k++) {
            x[k] = y[k] = r[k] = 0.0f;
            if (i0 + k < n) {
                x[k] = xs[i0 + k];
                y[k] = ys[i0 + k];
                r[k] = rs[i0 + k];
            }
        }
        int vis = 0, nvis = 0;
#pragma unroll
        for (int k = 0; k < QR_SINGLE_PER_THREAD; k++) {
            qr_rect b;
            if (i0 + k >= n ||
                !qr_cull_circle(x[k], y[k], r[k], g.width, g.height, inv_w, inv_h, g.region, &b))
                continue;
            vis |= 1 << k;
            nvis++;
            area += (unsigned long long)(b.x1 - b.x0) * (unsigned long long)(b.y1 - b.y0);
            const cell_box cb = box_cells(g, cs, b.x0, b.y0, b.x1, b.y1);
            for (int c = 0; c < 4; c++) {
                const int a = (c & 1) * hc, e = (c >> 1) * hc;
                children += (exists >> c & 1) && cb.X0 < a + hc && cb.X1 > a && cb.Y0 < e + hc && cb.Y1 > e;
            }
        }
        int slot, total;
        single_scan(scan).ExclusiveSum(nvis, slot, total);
        slot += listed;
#pragma unroll
        for (int k = 0; k < QR_SINGLE_PER_THREAD; k++)
            if (vis >> k & 1) {
                if (slot < items) vals[slot] = i0 + k;
                slot++;
            }
        listed += total;
        __syncthreads(); /* before the scan's storage is reused */
    }
    int unused, child_total;
    single_scan(scan).ExclusiveSum(children, unused, child_total);
    /* warp sums, then one shared atomic per warp that has any (a thousand
     * atomics on one word would queue behind each other) */
    for (int o = 16; o > 0; o >>= 1) area += __shfl_down_sync(0xffffffffu, area, o);
    if ((threadIdx.x & 31) == 0 && area) atomicAdd(&s_area, area);
    __syncthreads();
    const long long region_area = (long long)(g.region.x1 - g.region.x0) * (g.region.y1 - g.region.y0);
    const long long count = listed;
    bool split = qr_node_splits(g.root, 0, count, g.floor,
                                qr_node_crowds(g.root, 0, count, g.floor, count, region_area,
                                               &g.params),
                                &g.params);
    const int share = qr_read_share(s_area, region_area, g.early_stop);
    if (split && !qr_split_goes(g.root, count, child_total, share, &g.params))
        split = false;
    const bool fits = !split && count <= items;
    if (threadIdx.x != 0) return;
    qr_build_scalars sc = {};
    sc.visible = listed;
    sc.num_nodes = 1;
    sc.num_leaves = 1;
    sc.num_pairs = fits ? count : items + 1;
    if (fits) {
        qr_leaf lf;
        lf.rect = g.region; /* the root, clipped to the region */
        lf.depth = 0;
        lf.count = listed;
        lf.offset = 0;
        leaves[0] = lf;
    }
    *scalars = sc;
    rb->scalars = sc;
    rb->total = sc.num_pairs;
    publish_readback(rb);
}

cudaError_t qr_launch_single_leaf(const qr_single_leaf_args *a, cudaStream_t st)
{
    const qr_gpu_scene *s = a->scene;
    const qr_tree_geom *g = a->geom;
    const long long items = a->items;
    int32_t *vals = a->vals;
    qr_leaf *leaves = a->leaves;
    int32_t *tile_leaf = a->tile_leaf;
    qr_build_scalars *scalars = a->scalars;
    qr_build_readback *rb = a->rb;
    k_single_leaf<<<1, QR_SINGLE_THREADS, 0, st>>>(s->n, s->x, s->y, s->r, *g, items, vals, leaves,
                                                    tile_leaf, scalars, rb);
    return cudaGetLastError();
}
