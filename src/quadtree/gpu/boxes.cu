/* boxes.cu — the build's first stage: per circle, cull it, store its pixel
 * box, and count the box's corners into the histograms the tree stage
 * counts every node's circles with.
 *
 * The tree stage needs, for any node, the exact number of boxes meeting it.
 * A box misses a node iff it lies wholly left (L), right (R), below (B) or
 * above (T) of it; L/R and B/T exclude each other, so
 *   meets = V - L - R - B - T + LB + LT + RB + RT,
 * and each term is a dominance count over one box corner. Node edges fall on
 * multiples of the cell size, so corners quantized to cells (x0 down, x1 up)
 * give exact answers. Four (gx+1) x (gy+1) histograms, with the "greater or
 * equal" axes mirrored so that every query becomes a 2-D prefix sum:
 *   H1[X1][Y1]  H2[X1][gy-Y0]  H3[gx-X0][Y1]  H4[gx-X0][gy-Y0]
 * box_cells (build_device.cuh) quantizes the corners.
 */
#include "quadtree/gpu/build_stages.h"
#include "quadtree/gpu/build_device.cuh"
#include "quadtree/quadtree_geom.h"
#include "gpu/device_limits.h"
#include "gpu/pdl.h"

/* Counts the box's corners (add: one histogram word each); returns the
 * cells it spans. */
template <class Add>
__device__ __forceinline__ int add_box(const qr_tree_geom &g, int cs, int plane, int w1,
                                       const qr_rect &b, Add add)
{
    const cell_box c = box_cells(g, cs, b.x0, b.y0, b.x1, b.y1);
    const int X0 = c.X0, Y0 = c.Y0, X1 = c.X1, Y1 = c.Y1;
    add(0 * plane + Y1 * w1 + X1);
    add(1 * plane + (g.gy - Y0) * w1 + X1);
    add(2 * plane + Y1 * w1 + (g.gx - X0));
    add(3 * plane + (g.gy - Y0) * w1 + (g.gx - X0));
    return (X1 - X0) * (Y1 - Y0);
}

/* Histograms too large for shared memory (cells below 64 pixels) are
 * counted through a table in shared memory instead: (word + 1, count)
 * pairs, open addressing, flushed with one global atomic per word when the
 * block ends. Where circles crowd a few cells (a cluster's core holds some
 * 60 000 in one 4-pixel cell) that takes the same words' global atomics,
 * thousands each, down to one per block. A word that finds no slot within
 * QR_HASH_PROBES probes is added to the global word directly. */
/* QR_HASH_SLOTS, QR_HASH_PROBES: gpu/tuning/tuning_default.h */
struct hash_counts {
    uint32_t key[QR_HASH_SLOTS]; /* word + 1; 0: free */
    uint32_t val[QR_HASH_SLOTS];
};

__device__ __forceinline__ void hash_add(hash_counts &t, uint32_t *hist, uint32_t word)
{
    uint32_t h = (word * 2654435761u) >> 20; /* 12 bits: QR_HASH_SLOTS */
    for (int p = 0; p < QR_HASH_PROBES; p++, h = (h + 1) & (QR_HASH_SLOTS - 1)) {
        uint32_t k = *(volatile uint32_t *)&t.key[h];
        if (k == 0) {
            const uint32_t old = atomicCAS(&t.key[h], 0u, word + 1);
            k = old ? old : word + 1;
        }
        if (k == word + 1) {
            atomicAdd(&t.val[h], 1u);
            return;
        }
    }
    atomicAdd(&hist[word], 1u);
}

/* Circles per thread per grid-stride step. The kernel is latency bound (three
 * loads, then arithmetic and atomics that wait on them), so a thread issues
 * the loads of several circles, a grid stride apart (each load still
 * coalesced), before working on the first. A grid as large as n leaves one
 * circle per thread. */
/* QR_BOXES_ILP, QR_BOXES_SHARED_THREADS: gpu/tuning/tuning_default.h */

/* Where the block counts (MODE):
 *   BOX_GLOBAL  straight into the global histograms;
 *   BOX_SHARED  into its own copy of the histograms in shared memory, adding
 *               the non-zero entries to the global ones at the end — far
 *               fewer global atomics when many circles fall into few cells
 *               (micro2M);
 *   BOX_HASHED  through a table of words in shared memory (hash_add), for
 *               histograms too large to copy.
 * The counts and the visible total are sums of ones, so neither the order of
 * the circles nor their split over threads changes any result. */
enum { BOX_GLOBAL, BOX_SHARED, BOX_HASHED };
template <int MODE>
__global__ void __launch_bounds__(QR_BOXES_SHARED_THREADS, 2)
k_boxes(int32_t n, const float *__restrict__ xs, const float *__restrict__ ys,
        const float *__restrict__ rs, qr_tree_geom g, ushort4 *__restrict__ boxes, uint32_t *hist,
        qr_build_scalars *scalars)
{
    extern __shared__ uint32_t s_hist[];
    __shared__ int32_t s_visible;
    __shared__ unsigned long long s_area;
    qr_pdl_release(); /* the tree stage may be scheduled now; it waits for the end */
    const float inv_w = 1.0f / (float)g.width, inv_h = 1.0f / (float)g.height;
    const int w1 = g.gx + 1;
    const int plane = w1 * (g.gy + 1);
    const int cs = __ffs(g.cell) - 1;
    hash_counts &table = *(hash_counts *)s_hist;
    if (MODE == BOX_SHARED) {
        for (int k = threadIdx.x; k < 4 * plane; k += blockDim.x) s_hist[k] = 0;
    } else if (MODE == BOX_HASHED) {
        for (int k = threadIdx.x; k < 2 * QR_HASH_SLOTS; k += blockDim.x) s_hist[k] = 0;
    }
    if (threadIdx.x == 0) {
        s_visible = 0;
        s_area = 0;
    }
    __syncthreads();
    int32_t visible = 0, most_cells = 0;
    unsigned long long area = 0;
    /* 64-bit positions: base + ILP strides must not wrap for n near 2^31 */
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x + threadIdx.x; base < n;
         base += QR_BOXES_ILP * stride) {
        float x[QR_BOXES_ILP], y[QR_BOXES_ILP], r[QR_BOXES_ILP];
#pragma unroll
        for (int k = 0; k < QR_BOXES_ILP; k++) {
            const long long i = base + k * stride;
            x[k] = y[k] = r[k] = 0.0f;
            if (i < n) {
                x[k] = xs[i];
                y[k] = ys[i];
                r[k] = rs[i];
            }
        }
#pragma unroll
        for (int k = 0; k < QR_BOXES_ILP; k++) {
            const long long i = base + k * stride;
            if (i >= n) break;
            qr_rect b;
            int vis = qr_cull_circle(x[k], y[k], r[k], g.width, g.height, inv_w, inv_h, g.region, &b);
            visible += vis;
            if (!vis) {
                boxes[i] = make_ushort4(0, 0, 0, 0);
                continue;
            }
            area += (unsigned long long)(b.x1 - b.x0) * (unsigned long long)(b.y1 - b.y0);
            /* from the region's corner: 16 bits hold any region's */
            boxes[i] = make_ushort4((unsigned short)(b.x0 - g.region.x0), (unsigned short)(b.y0 - g.region.y0),
                                    (unsigned short)(b.x1 - g.region.x0), (unsigned short)(b.y1 - g.region.y0));
            most_cells = max(most_cells, add_box(g, cs, plane, w1, b, [&](uint32_t word) {
                if (MODE == BOX_SHARED) atomicAdd(&s_hist[word], 1u);
                else if (MODE == BOX_HASHED) hash_add(table, hist, word);
                else atomicAdd(&hist[word], 1u);
            }));
        }
    }
    /* the widest box (whether the pairs stage shares big boxes among a
     * warp, pairs.cu): a warp's maximum, one atomic per warp */
    for (int o = 16; o > 0; o >>= 1) most_cells = max(most_cells, __shfl_down_sync(0xffffffffu, most_cells, o));
    if ((threadIdx.x & 31) == 0 && most_cells > 0) atomicMax(&scalars->max_box_cells, most_cells);
    /* visible circles and their box pixels (qr_read_share): warp sums, then
     * one global atomic per block */
    for (int o = 16; o > 0; o >>= 1) {
        visible += __shfl_down_sync(0xffffffffu, visible, o);
        area += __shfl_down_sync(0xffffffffu, area, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&s_visible, visible);
        if (area) atomicAdd(&s_area, area);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&scalars->visible, s_visible);
        if (s_area) atomicAdd(&scalars->box_area, s_area);
    }
    if (MODE == BOX_GLOBAL) return;
    if (MODE == BOX_SHARED) {
        for (int k = threadIdx.x; k < 4 * plane; k += blockDim.x)
            if (s_hist[k]) atomicAdd(&hist[k], s_hist[k]);
    } else {
        for (int k = threadIdx.x; k < QR_HASH_SLOTS; k += blockDim.x)
            if (table.key[k]) atomicAdd(&hist[table.key[k] - 1], table.val[k]);
    }
}

/* Shared-memory histograms up to this size (bytes). */
/* QR_BOXES_SMEM_MAX: gpu/tuning/tuning_default.h */

cudaError_t qr_launch_boxes(const qr_boxes_args *a, cudaStream_t st)
{
    const qr_gpu_scene *s = a->scene;
    const qr_tree_geom *g = a->geom;
    ushort4 *boxes = a->boxes;
    uint32_t *hist = a->hist;
    qr_build_scalars *scalars = a->scalars;
    if (s->n == 0) return cudaSuccess;
    size_t smem = qr_hist_words(g) * sizeof(uint32_t);
    /* privatize only when there are enough circles per block to pay for
     * clearing and flushing the shared copy */
    const bool fits = smem <= QR_BOXES_SMEM_MAX && qr_device_smem_optin() >= QR_BOXES_SMEM_MAX;
    /* the table where cells are finer than min_leaf (a crowded tree: few
     * words take most corners); elsewhere its misses would cost more than
     * the global atomics it saves */
    const bool hashed = !fits && g->cell < g->params.min_leaf;
    if (s->n > 64 * 1024 && (fits || hashed)) {
        if (!fits) smem = sizeof(hash_counts);
        void (*kernel)(int32_t, const float *, const float *, const float *, qr_tree_geom, ushort4 *,
                       uint32_t *, qr_build_scalars *) = fits ? k_boxes<BOX_SHARED> : k_boxes<BOX_HASHED>;
        cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             fits ? QR_BOXES_SMEM_MAX : (int)sizeof(hash_counts));
        if (e != cudaSuccess) return e;
        const int sms = qr_device_sms();
        /* Every block flushes its whole histogram with global atomics, so the
         * block count stays at two per SM (as many as 96 KiB histograms
         * allow); the latency is hidden by larger blocks and QR_BOXES_ILP. */
        const int threads = QR_BOXES_SHARED_THREADS;
        int blocks = (int)((s->n + threads - 1) / threads);
        if (blocks > 2 * sms) blocks = 2 * sms;
        kernel<<<blocks, threads, smem, st>>>(s->n, s->x, s->y, s->r, *g, boxes, hist, scalars);
    } else {
        const int threads = 256;
        int blocks = (int)((s->n + threads - 1) / threads);
        if (blocks > qr_device_sms() * 16) blocks = qr_device_sms() * 16;
        k_boxes<BOX_GLOBAL><<<blocks, threads, 0, st>>>(s->n, s->x, s->y, s->r, *g, boxes, hist, scalars);
    }
    return cudaGetLastError();
}
