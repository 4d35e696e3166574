/* quadtree_kernels.cu — the kernels of the GPU quadtree build, each with its
 * launcher. The stages and why they are shaped so: quadtree_gpu.h and
 * docs/architecture.md. */
#include "quadtree/quadtree_gpu.h"
#include "quadtree/quadtree_geom.h"
#include "common/pdl.h"

#include <cub/block/block_scan.cuh>

/* The tree stage is one block and a chain of barriers, block scans and
 * shared-memory round trips: 256 threads (8 warps) run it about twice as fast
 * as 1024 (measured, H100), since a barrier and a block scan's warp-total
 * pass wait on fewer warps; no level at 1024 x 1024 has more than 256 nodes. */
#define QR_TREE_THREADS 256

/* ---- boxes: cull, pixel box, corner histograms ---------------------------
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
 * Whatever a circle's size, it costs four atomics.
 *
 * The cell is a power of two (qr_index_params_check) and a box is clipped to
 * the region, so the offsets are non-negative and a shift by cs = log2(cell)
 * is the division (an integer division by a run-time value costs some twenty
 * instructions, four times per circle). Images are at most 32768 pixels a
 * side, so every index fits in an int. */
struct cell_box {
    int X0, Y0, X1, Y1; /* cells [X0, X1) x [Y0, Y1) */
};

/* The cells of the pixel box [x0, x1) x [y0, y1): x0, y0 down, x1, y1 up. */
__device__ __forceinline__ cell_box box_cells(const qr_tree_geom &g, int cs, int x0, int y0, int x1,
                                              int y1)
{
    cell_box c;
    c.X0 = (x0 - g.region.x0) >> cs;
    c.Y0 = (y0 - g.region.y0) >> cs;
    c.X1 = (x1 - g.region.x0 + g.cell - 1) >> cs;
    c.Y1 = (y1 - g.region.y0 + g.cell - 1) >> cs;
    return c;
}

__device__ __forceinline__ void add_box(uint32_t *h, const qr_tree_geom &g, int cs, int plane, int w1,
                                        const qr_rect &b)
{
    const cell_box c = box_cells(g, cs, b.x0, b.y0, b.x1, b.y1);
    const int X0 = c.X0, Y0 = c.Y0, X1 = c.X1, Y1 = c.Y1;
    atomicAdd(&h[0 * plane + Y1 * w1 + X1], 1u);
    atomicAdd(&h[1 * plane + (g.gy - Y0) * w1 + X1], 1u);
    atomicAdd(&h[2 * plane + Y1 * w1 + (g.gx - X0)], 1u);
    atomicAdd(&h[3 * plane + (g.gy - Y0) * w1 + (g.gx - X0)], 1u);
}

/* Circles per thread per grid-stride step. The kernel is latency bound (three
 * loads, then arithmetic and atomics that wait on them), so a thread issues
 * the loads of several circles, a grid stride apart (each load still
 * coalesced), before working on the first. A grid as large as n leaves one
 * circle per thread, as before. */
#define QR_BOXES_ILP 4
#define QR_BOXES_SHARED_THREADS 512

/* SHARED: the block counts into its own copy of the histograms in shared
 * memory and adds the non-zero entries to the global ones at the end — far
 * fewer global atomics when many circles fall into few cells (micro2M).
 * The counts and the visible total are sums of ones, so neither the order of
 * the circles nor their split over threads changes any result. */
template <bool SHARED>
__global__ void __launch_bounds__(QR_BOXES_SHARED_THREADS, 2)
k_boxes(int32_t n, const float *__restrict__ xs, const float *__restrict__ ys,
        const float *__restrict__ rs, qr_tree_geom g, ushort4 *__restrict__ boxes, uint32_t *hist,
        qr_build_scalars *scalars)
{
    extern __shared__ uint32_t s_hist[];
    __shared__ int32_t s_visible;
    qr_pdl_release(); /* the tree stage may be scheduled now; it waits for the end */
    const float inv_w = 1.0f / (float)g.width, inv_h = 1.0f / (float)g.height;
    const int w1 = g.gx + 1;
    const int plane = w1 * (g.gy + 1);
    const int cs = __ffs(g.cell) - 1;
    if (SHARED) {
        for (int k = threadIdx.x; k < 4 * plane; k += blockDim.x) s_hist[k] = 0;
        if (threadIdx.x == 0) s_visible = 0;
        __syncthreads();
    }
    int32_t visible = 0;
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
            boxes[i] = make_ushort4((unsigned short)b.x0, (unsigned short)b.y0, (unsigned short)b.x1,
                                    (unsigned short)b.y1);
            add_box(SHARED ? s_hist : hist, g, cs, plane, w1, b);
        }
    }
    /* visible circles: warp sums, then one atomic per warp (or block) */
    for (int o = 16; o > 0; o >>= 1) visible += __shfl_down_sync(0xffffffffu, visible, o);
    if (!SHARED) {
        if ((threadIdx.x & 31) == 0) atomicAdd(&scalars->visible, visible);
        return;
    }
    if ((threadIdx.x & 31) == 0) atomicAdd(&s_visible, visible);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&scalars->visible, s_visible);
    for (int k = threadIdx.x; k < 4 * plane; k += blockDim.x)
        if (s_hist[k]) atomicAdd(&hist[k], s_hist[k]);
}

/* Shared-memory histograms up to this size (bytes). */
#define QR_BOXES_SMEM_MAX (96 * 1024)

cudaError_t qr_launch_boxes(const qr_gpu_scene *s, const qr_tree_geom *g, ushort4 *boxes,
                            uint32_t *hist, qr_build_scalars *scalars, cudaStream_t st)
{
    if (s->n == 0) return cudaSuccess;
    size_t smem = qr_hist_words(g) * sizeof(uint32_t);
    /* privatize only when there are enough circles per block to pay for
     * clearing and flushing the shared copy */
    if (smem <= QR_BOXES_SMEM_MAX && s->n > 64 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(k_boxes<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             QR_BOXES_SMEM_MAX);
        if (e != cudaSuccess) return e;
        int sms = 132;
        int dev = 0;
        if (cudaGetDevice(&dev) == cudaSuccess)
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        /* Every block flushes its whole histogram with global atomics, so the
         * block count stays at two per SM (as many as 96 KiB histograms
         * allow); the latency is hidden by larger blocks and QR_BOXES_ILP. */
        const int threads = QR_BOXES_SHARED_THREADS;
        int blocks = (int)((s->n + threads - 1) / threads);
        if (blocks > 2 * sms) blocks = 2 * sms;
        k_boxes<true><<<blocks, threads, smem, st>>>(s->n, s->x, s->y, s->r, *g, boxes, hist, scalars);
    } else {
        const int threads = 256;
        int blocks = (int)((s->n + threads - 1) / threads);
        if (blocks > 132 * 16) blocks = 132 * 16;
        k_boxes<false><<<blocks, threads, 0, st>>>(s->n, s->x, s->y, s->r, *g, boxes, hist, scalars);
    }
    return cudaGetLastError();
}

/* ---- tree: one block decides the whole tree ------------------------------
 *
 * One block, so the stage is a chain of dependent steps and its time is their
 * latency. When they fit, the histograms and the node arrays live in dynamic
 * shared memory (qr_launch_tree decides): every step that re-reads what the
 * block has just written then costs a shared-memory round trip, not an L2
 * one. The kernel reaches both through generic pointers, so one body serves
 * either placement. */

/* Warp-scan block scans: with 8 warps their pass over the warp totals is
 * short (the default raking ones spilled to local memory at 1024 threads). */
typedef cub::BlockScan<int, QR_TREE_THREADS, cub::BLOCK_SCAN_WARP_SCANS> tree_scan_int;
typedef cub::BlockScan<long long, QR_TREE_THREADS, cub::BLOCK_SCAN_WARP_SCANS> tree_scan_ll;

__device__ __forceinline__ uint32_t hist_at(const uint32_t *h, const qr_tree_geom &g, int plane,
                                            int x, int y)
{
    size_t w1 = g.gx + 1;
    return h[(size_t)plane * w1 * (g.gy + 1) + (size_t)y * w1 + x];
}

/* Exact number of visible boxes meeting the node whose cell rectangle is
 * [a, a+s) x [b, b+s) (see k_boxes). */
__device__ int32_t node_count(const uint32_t *P, const qr_tree_geom &g, int32_t visible, int a,
                              int b, int s)
{
    int ra = g.gx - (a + s), tb = g.gy - (b + s);
    if (ra < 0) ra = 0;
    if (tb < 0) tb = 0;
    long long c = visible;
    c -= hist_at(P, g, 0, a, g.gy);    /* L: X1 <= a */
    c -= hist_at(P, g, 3, ra, g.gy);   /* R: X0 >= a+s */
    c -= hist_at(P, g, 0, g.gx, b);    /* B: Y1 <= b */
    c -= hist_at(P, g, 3, g.gx, tb);   /* T: Y0 >= b+s */
    c += hist_at(P, g, 0, a, b);       /* LB */
    c += hist_at(P, g, 1, a, tb);      /* LT */
    c += hist_at(P, g, 2, ra, b);      /* RB */
    c += hist_at(P, g, 3, ra, tb);     /* RT */
    return (int32_t)c;
}

/* Inclusive prefix sums, in place, along `lines` lines of `len` words: line t
 * starts at (t / per) * plane + (t % per) * lstep, its words estep apart.
 * One thread walking a whole line is a chain of len dependent steps; here a
 * group of G lanes (a power of two, as many as keep the lines within one pass
 * of the block) shares a line: each lane sums its run of consecutive words,
 * the group scans the run totals with shuffles, and each lane then writes its
 * run's running sums. Sums are mod 2^32, so the grouping changes no value.
 * Called by the whole block; whole warps loop together, so the full-mask
 * shuffles are legal. */
__device__ void scan_lines(uint32_t *h, int lines, int len, int per, size_t plane, int lstep,
                           int estep)
{
    int lg = 5; /* G = 1 << lg */
    while (lg > 0 && (lines << lg > QR_TREE_THREADS || (1 << lg) >= 2 * len)) lg--;
    const int G = 1 << lg, run = (len + G - 1) / G;
    const int work = ((lines << lg) + 31) & ~31;
    for (int t = threadIdx.x; t < work; t += QR_TREE_THREADS) {
        const int line = t >> lg, j = t & (G - 1);
        const bool live = line < lines;
        uint32_t *p = h + (size_t)(line / per) * plane + (size_t)(line % per) * lstep;
        const int lo = min(j * run, len), hi = min(lo + run, len);
        uint32_t own = 0;
        if (G > 1 && live)
            for (int k = lo; k < hi; k++) own += p[(size_t)k * estep];
        uint32_t incl = own;
        for (int o = 1; o < G; o <<= 1) {
            uint32_t v = __shfl_up_sync(0xffffffffu, incl, o, G);
            if (j >= o) incl += v;
        }
        if (live) {
            uint32_t acc = incl - own; /* the runs before this lane's */
            for (int k = lo; k < hi; k++) {
                acc += p[(size_t)k * estep];
                p[(size_t)k * estep] = acc;
            }
        }
    }
}

/* Tiles of a leaf rectangle, and writing its leaf number into the tile map
 * (threads `first`, `first + stride`, ... share the work). */
#define QR_BIG_LEAVES 256

__device__ __forceinline__ int leaf_tiles(const qr_rect &r, const qr_tree_geom &g)
{
    const int tw = (r.x1 - g.region.x0 + QR_TILE - 1) / QR_TILE - (r.x0 - g.region.x0) / QR_TILE;
    const int th = (r.y1 - g.region.y0 + QR_TILE - 1) / QR_TILE - (r.y0 - g.region.y0) / QR_TILE;
    return tw * th;
}

__device__ __forceinline__ void fill_tiles(int32_t *tile_leaf, const qr_tree_geom &g, const qr_rect &r,
                                           int32_t id, int first, int stride)
{
    const int tx0 = (r.x0 - g.region.x0) / QR_TILE;
    const int ty0 = (r.y0 - g.region.y0) / QR_TILE;
    const int tw = (r.x1 - g.region.x0 + QR_TILE - 1) / QR_TILE - tx0;
    const int n = leaf_tiles(r, g);
    for (int t = first; t < n; t += stride) tile_leaf[(ty0 + t / tw) * g.tiles_x + tx0 + t % tw] = id;
}

/* smem_hist: the histograms are copied into dynamic shared memory and summed
 * there; the global buffer keeps the raw counts (no later stage reads it).
 * smem_nodes: nodes, ncount, nleaves and nfirst (max_nodes each, after the
 * histograms when those are there too), plus each leaf's count by leaf
 * number, live in shared memory; the node arrays are copied out at the end,
 * so the global buffers end up as the all-global path leaves them. */
__global__ void __launch_bounds__(QR_TREE_THREADS)
k_tree(qr_tree_geom g, uint32_t *hist, qr_dnode *nodes, int32_t *ncount, int32_t *nleaves,
       int32_t *nfirst, qr_leaf *leaves, int32_t *tile_leaf, qr_build_scalars *scalars,
       int smem_hist, int smem_nodes)
{
    __shared__ union {
        typename tree_scan_int::TempStorage i;
        typename tree_scan_ll::TempStorage ll;
    } scan_tmp;
    __shared__ int32_t level_begin[QR_MAX_DEPTH_LIMIT + 3];
    __shared__ int32_t overflow;
    __shared__ int32_t big[QR_BIG_LEAVES], nbig;
    /* the big leaves' rectangles too, so that filling their tiles does not
     * wait on an L2 load of each leaf */
    __shared__ qr_rect big_rect[QR_BIG_LEAVES];
    qr_pdl_release();
    qr_pdl_wait(); /* the histograms */
    extern __shared__ uint4 dyn_smem[]; /* uint4: 16-byte aligned */
    const int tid = threadIdx.x;
    const int w1 = g.gx + 1, h1 = g.gy + 1;
    const size_t words = qr_hist_words(&g);
    /* issued first, so that its latency hides behind the copy and the sums */
    const int32_t visible = scalars->visible;

    uint32_t *P = hist;
    qr_dnode *N = nodes;
    int32_t *C = ncount, *NL = nleaves, *NF = nfirst, *LC = NULL;
    if (smem_hist) {
        P = (uint32_t *)dyn_smem;
        /* words is a multiple of 4 (four planes); the buffer is carved at 256 bytes */
        if (((uintptr_t)hist & 15) == 0)
            for (size_t k = tid; k < words / 4; k += QR_TREE_THREADS)
                dyn_smem[k] = ((const uint4 *)hist)[k];
        else
            for (size_t k = tid; k < words; k += QR_TREE_THREADS) P[k] = hist[k];
    }
    if (smem_nodes) {
        /* words * 4 bytes is a multiple of 16, so the records stay aligned */
        N = (qr_dnode *)(dyn_smem + (smem_hist ? words / 4 : 0));
        C = (int32_t *)(N + g.max_nodes);
        NL = C + g.max_nodes;
        NF = NL + g.max_nodes;
        LC = NF + g.max_nodes;
    }
    __syncthreads();

    /* 2-D inclusive prefix sums of the four histograms, in place: rows, then
     * columns. */
    scan_lines(P, 4 * h1, w1, h1, (size_t)w1 * h1, w1, 1);
    __syncthreads();
    scan_lines(P, 4 * w1, h1, w1, (size_t)w1 * h1, 1, w1);
    if (tid == 0) {
        qr_dnode root = {g.region.x0 | (g.region.y0 << 16), -1, -1, 0};
        N[0] = root;
        level_begin[0] = 0;
        level_begin[1] = 1;
        overflow = 0;
        nbig = 0;
    }
    __syncthreads();

    /* Level by level: count, decide, append children (scan-derived slots,
     * so the layout is deterministic). */
    int depth = 0;
    for (; depth <= g.params.max_depth; depth++) {
        const int32_t begin = level_begin[depth], end = level_begin[depth + 1];
        if (begin == end) break;
        const int side = g.root >> depth, half = side >> 1;
        int32_t next = end;
        for (int32_t base = begin; base < end; base += QR_TREE_THREADS) {
            int32_t i = base + tid;
            int mask = 0;
            qr_dnode nd;
            int x = 0, y = 0;
            if (i < end) {
                nd = N[i];
                x = nd.xy & 0xffff;
                y = nd.xy >> 16;
                const int cs = __ffs(g.cell) - 1;
                int32_t c = node_count(P, g, visible, (x - g.region.x0) >> cs,
                                       (y - g.region.y0) >> cs, side >> cs);
                C[i] = c;
                if (qr_node_splits(side, depth, c, &g.params)) {
                    long long children = 0;
                    for (int k = 0; k < 4; k++) {
                        const int kx = x + (k & 1) * half, ky = y + (k >> 1) * half;
                        if (kx >= g.region.x1 || ky >= g.region.y1) continue;
                        mask |= 1 << k;
                        if (qr_split_weighed(side, &g.params))
                            children += node_count(P, g, visible, (kx - g.region.x0) >> cs,
                                                   (ky - g.region.y0) >> cs, half >> cs);
                    }
                    if (qr_split_weighed(side, &g.params) && !qr_split_pays(side, c, children, &g.params))
                        mask = 0;
                }
            }
            int pre, total;
            tree_scan_int(scan_tmp.i).ExclusiveSum(__popc(mask), pre, total);
            if (mask) {
                int32_t first = next + pre;
                if (first + __popc(mask) > g.max_nodes) {
                    overflow = 1;
                } else {
                    nd.first_child = first;
                    nd.depth_mask = depth | (mask << 8);
                    N[i] = nd;
                    int j = 0;
                    for (int k = 0; k < 4; k++)
                        if (mask & (1 << k)) {
                            int cx = x + (k & 1) * half, cy = y + (k >> 1) * half;
                            qr_dnode ch = {cx | (cy << 16), -1, -1, depth + 1};
                            N[first + j++] = ch;
                        }
                }
            }
            next += total;
            __syncthreads();
        }
        if (tid == 0) level_begin[depth + 2] = next;
        __syncthreads();
        if (overflow) break;
    }
    const int levels = depth; /* levels 0 .. levels-1 hold nodes */
    const int32_t num_nodes = level_begin[levels];
    /* Cannot happen (max_nodes bounds every tree); the build then fails, so
     * the node arrays are left as they are. */
    if (overflow) {
        if (tid == 0) scalars->overflow = 1;
        return;
    }

    /* Depth-first leaf numbering: subtree leaf counts bottom-up, then each
     * child's first leaf top-down (children in BL, BR, TL, TR order). */
    for (int d = levels - 1; d >= 0; d--) {
        for (int32_t i = level_begin[d] + tid; i < level_begin[d + 1]; i += QR_TREE_THREADS) {
            qr_dnode nd = N[i];
            int32_t c = 1;
            if (nd.first_child >= 0) {
                c = 0;
                for (int j = 0; j < __popc(nd.depth_mask >> 8); j++) c += NL[nd.first_child + j];
            }
            NL[i] = c;
        }
        __syncthreads();
    }
    if (tid == 0) NF[0] = 0;
    __syncthreads();
    for (int d = 0; d < levels; d++) {
        for (int32_t i = level_begin[d] + tid; i < level_begin[d + 1]; i += QR_TREE_THREADS) {
            qr_dnode nd = N[i];
            if (nd.first_child < 0) continue;
            int32_t run = NF[i];
            for (int j = 0; j < __popc(nd.depth_mask >> 8); j++) {
                NF[nd.first_child + j] = run;
                run += NL[nd.first_child + j];
            }
        }
        __syncthreads();
    }
    const int32_t num_leaves = NL[0];
    for (int32_t i = tid; i < num_nodes; i += QR_TREE_THREADS) {
        qr_dnode nd = N[i];
        if (nd.first_child >= 0) continue;
        int32_t id = NF[i];
        N[i].leaf = id;
        int d = nd.depth_mask & 0xff, side = g.root >> d;
        int x = nd.xy & 0xffff, y = nd.xy >> 16;
        qr_leaf lf;
        lf.rect.x0 = x;
        lf.rect.y0 = y;
        lf.rect.x1 = min(x + side, g.region.x1);
        lf.rect.y1 = min(y + side, g.region.y1);
        lf.depth = d;
        lf.count = C[i];
        lf.offset = 0;
        leaves[id] = lf;
        if (LC) LC[id] = lf.count;
        /* its tiles in the tile -> leaf map: plain stores, no walk down the
         * tree. A big leaf is left to the whole block (below). */
        int slot = QR_BIG_LEAVES;
        if (leaf_tiles(lf.rect, g) > 64 && (slot = atomicAdd(&nbig, 1)) < QR_BIG_LEAVES) {
            big[slot] = id;
            big_rect[slot] = lf.rect;
        } else {
            fill_tiles(tile_leaf, g, lf.rect, id, 0, 1);
        }
    }
    __syncthreads();
    /* The node arrays are final: out to their global buffers (stores only,
     * nothing waits on them). */
    if (smem_nodes)
        for (int32_t i = tid; i < num_nodes; i += QR_TREE_THREADS) {
            nodes[i] = N[i];
            ncount[i] = C[i];
            nleaves[i] = NL[i];
            nfirst[i] = NF[i];
        }
    for (int k = 0; k < min(nbig, QR_BIG_LEAVES); k++)
        fill_tiles(tile_leaf, g, big_rect[k], big[k], tid, QR_TREE_THREADS);

    /* List offsets: exclusive scan of the leaf counts in leaf order (from
     * shared memory when the node arrays are there: no L2 round trip for the
     * leaves just stored). */
    long long carry = 0;
    for (int32_t base = 0; base < num_leaves; base += QR_TREE_THREADS) {
        int32_t i = base + tid;
        long long c = i < num_leaves ? (LC ? LC[i] : leaves[i].count) : 0, pre, total;
        tree_scan_ll(scan_tmp.ll).ExclusiveSum(c, pre, total);
        if (i < num_leaves) leaves[i].offset = carry + pre;
        carry += total;
        __syncthreads();
    }

    if (tid == 0) {
        scalars->num_nodes = num_nodes;
        scalars->num_leaves = num_leaves;
        scalars->max_depth = levels - 1;
        scalars->num_pairs = carry;
    }
}

/* k_tree may take the opt-in maximum of shared memory per block (227 KiB on
 * sm_90) less its static part. */
cudaError_t qr_launch_tree(const qr_tree_geom *g, uint32_t *hist, qr_dnode *nodes,
                           int32_t *node_count, int32_t *node_nleaves, int32_t *node_first,
                           qr_leaf *leaves, int32_t *tile_leaf, qr_build_scalars *scalars,
                           cudaStream_t st, int pdl)
{
    cudaFuncAttributes fa;
    cudaError_t e = cudaFuncGetAttributes(&fa, k_tree);
    if (e != cudaSuccess) return e;
    int dev = 0, optin = 48 * 1024;
    if (cudaGetDevice(&dev) == cudaSuccess)
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    const size_t budget = (size_t)optin > fa.sharedSizeBytes ? (size_t)optin - fa.sharedSizeBytes : 0;
    /* The histograms first: the level loop reads eight words per node. */
    const size_t hist_bytes = qr_hist_words(g) * sizeof(uint32_t);
    const size_t node_bytes = (size_t)g->max_nodes * (sizeof(qr_dnode) + 4 * sizeof(int32_t));
    size_t smem = 0;
    int smem_hist = 0, smem_nodes = 0;
    if (hist_bytes <= budget) {
        smem_hist = 1;
        smem = hist_bytes;
    }
    if (smem + node_bytes <= budget) {
        smem_nodes = 1;
        smem += node_bytes;
    }
    /* always the same value, so a launch captured earlier never finds the
     * limit below what it was captured with */
    e = cudaFuncSetAttribute(k_tree, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)budget);
    if (e != cudaSuccess) return e;
    return qr_launch(k_tree, 1, QR_TREE_THREADS, smem, st, pdl, *g, hist, nodes, node_count,
                     node_nleaves, node_first, leaves, tile_leaf, scalars, smem_hist, smem_nodes);
}

/* ---- count, emit: the leaves a circle's box meets --------------------------
 *
 * Rather than walking the tree (a chain of dependent loads, and one thread
 * stuck with every leaf of a big circle), a circle visits the min_leaf cells
 * its box covers and looks each one's leaf up in the tile map: independent,
 * cached loads. Leaf and box are rectangles, so their intersection has one
 * bottom-left cell: a cell counts iff neither its left nor its lower
 * neighbour inside the box belongs to the same leaf.
 *
 * Work unit: a slot t = i * R + j, circle i's cell rows j, j + R, j + 2R, ...
 * (R = qr_cell_rows(n)). Few circles (biglittle's 10 000 big ones) would
 * leave most of the GPU idle with one thread per circle; R > 1 spreads their
 * rows. A circle's pairs may come out in any fixed order (its leaves are
 * distinct keys, and the sort is stable across circles), so the rows need no
 * coordination beyond the scan over slots. (Counting inside the scan, as the
 * input iterator of CUB's scan, measured slower: its tiles of many items per
 * thread leave few blocks for biglittle's few slots.) */
template <class F>
__device__ __forceinline__ uint32_t cell_leaves(const qr_tree_geom &g, const ushort4 b,
                                                const int32_t *__restrict__ tile_leaf,
                                                const qr_leaf *__restrict__ leaves, int j, int R,
                                                F leaf_found)
{
    if (!(b.x < b.z)) return 0;
    /* shifts, not divisions (see add_box): these kernels are issue-bound */
    const int cs = __ffs(g.cell) - 1;
    const int tpc = g.cell / QR_TILE; /* tiles per cell side */
    const cell_box cb = box_cells(g, cs, b.x, b.y, b.z, b.w);
    const int X0 = cb.X0, X1 = cb.X1, Y0 = cb.Y0, Y1 = cb.Y1;
    /* a wide box steps from leaf to leaf along a row, not cell by cell */
    const bool wide = X1 - X0 > 2;
    uint32_t c = 0;
    for (int cy = Y0 + j; cy < Y1; cy += R) {
        const int32_t *row = tile_leaf + (size_t)cy * tpc * g.tiles_x;
        const int32_t *below = row - (size_t)tpc * g.tiles_x;
        int32_t left = -1, leaf = row[X0 * tpc];
        for (int cx = X0; cx < X1;) {
            if (leaf != left && (cy == Y0 || below[cx * tpc] != leaf)) leaf_found(c++, leaf);
            /* the next cell's leaf; if it is this one again, the leaf spans
             * several cells: jump past its right edge */
            int nx = cx + 1;
            int32_t next = nx < X1 ? row[nx * tpc] : -1;
            if (wide && next == leaf) {
                nx = (leaves[leaf].rect.x1 - g.region.x0 + g.cell - 1) >> cs;
                next = nx < X1 ? row[nx * tpc] : -1;
            }
            left = leaf;
            leaf = next;
            cx = nx;
        }
    }
    return c;
}

struct ignore_leaf {
    __device__ void operator()(uint32_t, int32_t) const {}
};

__global__ void k_count(int32_t slots, int R, qr_tree_geom g, const ushort4 *__restrict__ boxes,
                        const int32_t *__restrict__ tile_leaf, const qr_leaf *__restrict__ leaves,
                        uint32_t *counts)
{
    const int lr = __ffs(R) - 1; /* R is a power of two */
    qr_pdl_wait(); /* the tree */
    for (int32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < slots; t += gridDim.x * blockDim.x)
        counts[t] = cell_leaves(g, boxes[t >> lr], tile_leaf, leaves, t & (R - 1), R, ignore_leaf());
}

/* Blocks of 256 threads for a loop over `slots` work slots: a slot per
 * thread, but at most 16 blocks per SM, each thread then looping (the loads
 * of a slot wait on one another, and a few slots per thread keep more of
 * them in flight than one: micro2M's emit over 2 M slots takes 35 us with
 * 2112 blocks against 47 with 7813, ncu). `at_least`: blocks wanted anyway
 * (to pad). */
#define SLOT_MAX_BLOCKS (132 * 16)
static int slot_blocks(long long slots, long long at_least = 1)
{
    long long blocks = (slots + 255) / 256;
    if (blocks < at_least) blocks = at_least;
    if (blocks > SLOT_MAX_BLOCKS) blocks = SLOT_MAX_BLOCKS;
    return blocks < 1 ? 1 : (int)blocks;
}

cudaError_t qr_launch_count(int32_t n, const qr_tree_geom *g, const ushort4 *boxes,
                            const int32_t *tile_leaf, const qr_leaf *leaves, uint32_t *counts,
                            cudaStream_t st, int pdl)
{
    if (n == 0) return cudaSuccess;
    const int R = qr_cell_rows(n);
    return qr_launch(k_count, slot_blocks(n * R), 256, 0, st, pdl, n * R, R, *g, boxes, tile_leaf,
                     leaves, counts);
}

/* The read-back: the scalars (word by word through volatile loads, so that
 * nothing cached from before is copied) and the emitted pairs' total, into
 * host-mapped memory. Called by every thread of a block: a word each, so
 * that the loads overlap (one thread copying word by word waited on each in
 * turn, ~0.2 us a word at the end of every build). */
__device__ void write_readback(const qr_build_scalars *scalars, long long total,
                               qr_build_readback *out)
{
    const volatile uint32_t *src = (const volatile uint32_t *)scalars;
    uint32_t *dst = (uint32_t *)&out->scalars;
    for (int k = threadIdx.x; k < (int)(sizeof *scalars / 4); k += blockDim.x) dst[k] = src[k];
    if (threadIdx.x == 0) out->total = total;
}

/* Tells the host, which waits on it, that the read-back is written: the
 * fence orders the read-back's stores before the flag's, for the host too. */
__device__ void publish_readback(qr_build_readback *rb)
{
    __threadfence_system();
    *(volatile uint32_t *)&rb->ready = 1;
}

/* Slot t's pairs at out, out + 1, ...; past `items` only bad_emit is set. */
template <class Key>
__device__ __forceinline__ void emit_slot(const qr_tree_geom &g, ushort4 box, int32_t t, int R,
                                          const int32_t *__restrict__ tile_leaf,
                                          const qr_leaf *__restrict__ leaves, long long out,
                                          long long items, Key *keys, int32_t *vals,
                                          qr_build_scalars *scalars)
{
    const int32_t i = t >> (__ffs(R) - 1); /* R is a power of two */
    cell_leaves(g, box, tile_leaf, leaves, t & (R - 1), R, [&](uint32_t k, int32_t leaf) {
        if (out + k < items) {
            keys[out + k] = (Key)leaf;
            vals[out + k] = i;
        } else {
            scalars->bad_emit = 1;
        }
    });
}

/* The emit's last jobs, done by it rather than by kernels of their own in
 * the chain: zero the lists stage's look-back state (zero_words words at
 * zero), pad the unused slots [num_pairs, items) with pad_key (< 0: none;
 * for CUB's sort, which sorts every slot), and, in the last block to finish
 * (rb non-NULL), write and publish the read-back; total() gives that block
 * the emitted pairs. Every block's stores are ordered before its ticket
 * (barrier, then a device-wide fence), so the last one sees them all. */
template <class Key, class Total>
__device__ __forceinline__ void finish_emit(long long items, int32_t pad_key, Key *keys,
                                            uint32_t *zero, long long zero_words,
                                            qr_build_scalars *scalars, qr_build_readback *rb,
                                            Total total)
{
    __shared__ bool last;
    const long long t0 = blockIdx.x * (long long)blockDim.x + threadIdx.x,
                    step = (long long)gridDim.x * blockDim.x;
    for (long long k = t0; k < zero_words; k += step) zero[k] = 0;
    if (pad_key >= 0)
        for (long long k = scalars->num_pairs + t0; k < items; k += step) keys[k] = (Key)pad_key;
    if (!rb) return;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(&scalars->blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last) { /* (the same on every thread) */
        __threadfence();
        write_readback(scalars, total(), rb);
        __threadfence_system(); /* each thread's words before the flag */
        __syncthreads();
        if (threadIdx.x == 0) publish_readback(rb);
    }
}

/* Blocks wanted for finish_emit's grid-stride work: padding keys up to
 * `items` and zeroing zero_words words (0: none). */
static long long spare_blocks(long long items, int32_t pad_key, long long zero_words)
{
    const long long pad = pad_key >= 0 ? items / 256 : 0, z = zero_words / 1024;
    return pad > z ? pad : z;
}

/* Emit at the scanned offsets (the count and CUB's scan ran before). */
template <class Key>
__global__ void k_emit(int32_t slots, int R, qr_tree_geom g, const ushort4 *__restrict__ boxes,
                       const int32_t *__restrict__ tile_leaf, const qr_leaf *__restrict__ leaves,
                       const long long *__restrict__ offsets, const uint32_t *__restrict__ counts,
                       long long items, int32_t pad_key, Key *keys, int32_t *vals,
                       uint32_t *zero, long long zero_words, qr_build_scalars *scalars,
                       qr_build_readback *rb)
{
    const int lr = __ffs(R) - 1;
    qr_pdl_wait(); /* the offsets */
    for (int32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < slots; t += gridDim.x * blockDim.x)
        emit_slot(g, boxes[t >> lr], t, R, tile_leaf, leaves, offsets[t], items, keys, vals, scalars);
    finish_emit(items, pad_key, keys, zero, zero_words, scalars, rb, [&] {
        return slots ? offsets[slots - 1] + counts[slots - 1] : 0ll;
    });
}

cudaError_t qr_launch_emit(int32_t n, const qr_tree_geom *g, const ushort4 *boxes,
                           const int32_t *tile_leaf, const qr_leaf *leaves, const long long *offsets,
                           const uint32_t *counts, long long items, int32_t pad_key, void *keys,
                           int key_bytes, int32_t *vals, uint32_t *zero, long long zero_words,
                           qr_build_scalars *scalars, qr_build_readback *rb, cudaStream_t st, int pdl)
{
    if (n == 0 && pad_key < 0 && !zero_words && !rb) return cudaSuccess;
    const int R = qr_cell_rows(n);
    const int32_t slots = n * R;
    const int blocks = slot_blocks(slots, spare_blocks(items, pad_key, zero_words));
    if (key_bytes == 2)
        return qr_launch(k_emit<uint16_t>, blocks, 256, 0, st, pdl, slots, R, *g, boxes, tile_leaf,
                         leaves, offsets, counts, items, pad_key, (uint16_t *)keys, vals, zero,
                         zero_words, scalars, rb);
    return qr_launch(k_emit<int32_t>, blocks, 256, 0, st, pdl, slots, R, *g, boxes, tile_leaf, leaves,
                     offsets, counts, items, pad_key, (int32_t *)keys, vals, zero, zero_words,
                     scalars, rb);
}

/* ---- count, scan and emit in one pass (ahead builds) -----------------------
 *
 * An ahead build need not know its pair count before it emits (it emits into
 * `items` slots and is checked afterwards), so counting, the scan over the
 * slots and the emit are one kernel. Each block takes the next tile of
 * QR_CE_TILE * PER slots (by ticket, so that tiles start in order and a tile only
 * ever waits on tiles already running), counts its slots' pairs, scans them,
 * and learns the pairs of all earlier tiles by decoupled look-back (Merrill
 * and Garland's single-pass scan): a tile publishes its own total at once
 * and its inclusive prefix as soon as it knows it, and a tile sums the
 * totals before it, 32 at a time, back to the nearest published prefix.
 * Then it emits, walking the same cells again (now cached). No per-slot
 * counts or offsets go through memory, and the build's chain loses two
 * nodes (the count and CUB's scan). Prefix sums of integers: deterministic. */
#define CE_AGG (1ull << 62)  /* state word: the tile's own total is known */
#define CE_INCL (2ull << 62) /* its inclusive prefix is known (value: low 62 bits) */
#define CE_VALUE ((1ull << 62) - 1)

/* Warp 0 of tile `tile`: publishes the tile's total, returns the pairs of
 * all tiles before it (on every lane), publishes the inclusive prefix. Tile
 * 0 finds the sentinel before it at once. */
__device__ long long look_back(unsigned long long *tiles, int tile, unsigned long long total)
{
    volatile unsigned long long *state = tiles;
    const int lane = threadIdx.x % 32;
    if (lane == 0) state[tile] = CE_AGG | total;
    long long prefix = 0;
    for (int end = tile;; end -= 32) {
        const int at = end - 1 - lane; /* lane 0: the nearest */
        unsigned long long w;
        do { /* before tile 0 lies an inclusive prefix of 0 */
            w = at >= 0 ? state[at] : CE_INCL;
        } while (__any_sync(0xffffffffu, (w >> 62) == 0));
        const uint32_t incl = __ballot_sync(0xffffffffu, (w >> 62) == 2);
        const int last = incl ? __ffs(incl) - 1 : 31;
        long long v = lane <= last ? (long long)(w & CE_VALUE) : 0;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        prefix += v;
        if (incl) break;
    }
    if (lane == 0) state[tile] = CE_INCL | (unsigned long long)(prefix + (long long)total);
    return prefix;
}

/* The fused count, scan (look_back) and emit, the chain's last build kernel
 * before the lists; then finish_emit. A thread takes PER consecutive slots.
 * Registers: ptxas's own choice with one slot a thread (32); with four,
 * its choice (40) spills, so at most 48 (47). */
template <class Key, int PER>
__global__ void __launch_bounds__(QR_CE_TILE, PER == 1 ? 0 : 5)
k_count_emit(int32_t slots, int R, qr_tree_geom g, const ushort4 *__restrict__ boxes,
             const int32_t *__restrict__ tile_leaf, const qr_leaf *__restrict__ leaves,
             unsigned long long *tiles, long long items, int32_t pad_key, Key *keys, int32_t *vals,
             uint32_t *zero, long long zero_words, qr_build_scalars *scalars, qr_build_readback *rb)
{
    typedef cub::BlockScan<uint32_t, QR_CE_TILE> tile_scan;
    __shared__ typename tile_scan::TempStorage scan;
    __shared__ int s_tile;
    __shared__ long long s_before;
    const int ntiles = (slots + QR_CE_TILE * PER - 1) / (QR_CE_TILE * PER);
    const int lr = __ffs(R) - 1;
    qr_pdl_wait(); /* the tree */
    if (threadIdx.x == 0) s_tile = (int)atomicAdd(&scalars->tickets, 1u);
    __syncthreads();
    const int tile = s_tile;
    if (tile < ntiles) { /* blocks past the tiles only zero and pad */
        const int32_t t0 = (tile * QR_CE_TILE + threadIdx.x) * PER;
        ushort4 box[PER];
        uint32_t count[PER], sum = 0;
#pragma unroll
        for (int k = 0; k < PER; k++) {
            box[k] = make_ushort4(0, 0, 0, 0); /* empty */
            if (t0 + k < slots) box[k] = boxes[(t0 + k) >> lr];
        }
#pragma unroll
        for (int k = 0; k < PER; k++) {
            count[k] = cell_leaves(g, box[k], tile_leaf, leaves, (t0 + k) & (R - 1), R, ignore_leaf());
            sum += count[k];
        }
        uint32_t at, total;
        tile_scan(scan).ExclusiveSum(sum, at, total);
        if (threadIdx.x < 32) {
            const long long before = look_back(tiles, tile, total);
            if (threadIdx.x == 0) s_before = before;
        }
        __syncthreads();
        long long offset = s_before + at;
#pragma unroll
        for (int k = 0; k < PER; k++) {
            if (t0 + k < slots)
                emit_slot(g, box[k], t0 + k, R, tile_leaf, leaves, offset, items, keys, vals, scalars);
            offset += count[k];
        }
    }
    /* the total: the last tile's inclusive prefix */
    finish_emit(items, pad_key, keys, zero, zero_words, scalars, rb, [&] {
        const volatile unsigned long long *state = tiles;
        return ntiles ? (long long)(state[ntiles - 1] & CE_VALUE) : 0ll;
    });
}

cudaError_t qr_launch_count_emit(int32_t n, const qr_tree_geom *g, const ushort4 *boxes,
                                 const int32_t *tile_leaf, const qr_leaf *leaves,
                                 unsigned long long *tiles, long long items, int32_t pad_key,
                                 void *keys, int key_bytes, int32_t *vals, uint32_t *zero,
                                 long long zero_words, qr_build_scalars *scalars,
                                 qr_build_readback *rb, cudaStream_t st, int pdl)
{
    const int R = qr_cell_rows(n);
    const int32_t slots = n * R;
    /* a block per tile (at most QR_CE_MAX_TILES <= SLOT_MAX_BLOCKS), more to
     * zero and pad quickly, at least one for the read-back */
    long long blocks = (long long)qr_count_emit_tiles(n);
    long long spare = spare_blocks(items, pad_key, zero_words);
    if (spare > SLOT_MAX_BLOCKS) spare = SLOT_MAX_BLOCKS;
    if (spare > blocks) blocks = spare; /* never fewer blocks than tiles */
    if (blocks < 1) blocks = 1;
    const bool four = qr_count_emit_per(n) == 4;
#define QR_CE_LAUNCH(K)                                                                           \
    qr_launch(four ? k_count_emit<K, 4> : k_count_emit<K, 1>, (unsigned)blocks, QR_CE_TILE, 0, st, \
              pdl, slots, R, *g, boxes, tile_leaf, leaves, tiles, items, pad_key, (K *)keys, vals,  \
              zero, zero_words, scalars, rb)
    if (key_bytes == 2) return QR_CE_LAUNCH(uint16_t);
    return QR_CE_LAUNCH(int32_t);
#undef QR_CE_LAUNCH
}

/* ---- single leaf: the whole build in one kernel -----------------------------
 *
 * A scene whose root stays a leaf (rgb, pattern: fewer visible circles than
 * a leaf holds) needs no histograms, tree, counts, scan or sort: its one list
 * is the visible circles in circle order. The general build pays the fixed
 * cost of its ten graph nodes (~25 us) for that; one block does it in a few.
 * It decides the root as k_tree does (qr_node_splits, and the split cost
 * rule over the children's counts, gathered on the way), so where it applies
 * its result is the general build's, byte for byte. Where the root would
 * split, or the list outgrows `items`, it reports items + 1 pairs: the
 * renderer then skips the frame and the host builds again the general way
 * (the redo in qr_gpu_index_finish). */
#define QR_SINGLE_THREADS 1024
#define QR_SINGLE_PER_THREAD 4
typedef cub::BlockScan<int, QR_SINGLE_THREADS, cub::BLOCK_SCAN_WARP_SCANS> single_scan;

__global__ void __launch_bounds__(QR_SINGLE_THREADS)
k_single_leaf(int32_t n, const float *__restrict__ xs, const float *__restrict__ ys,
              const float *__restrict__ rs, qr_tree_geom g, long long items, int32_t *vals,
              qr_leaf *leaves, int32_t *tile_leaf, qr_build_scalars *scalars, qr_build_readback *rb)
{
    __shared__ typename single_scan::TempStorage scan;
    qr_pdl_release(); /* the render may be scheduled now; it waits for the end */
    const float inv_w = 1.0f / (float)g.width, inv_h = 1.0f / (float)g.height;
    const int cs = __ffs(g.cell) - 1;
    /* the root's children in cells (see add_box): child k is
     * [(k&1) hc, +hc) x [(k>>1) hc, +hc); those past the region do not exist */
    const int half = g.root >> 1, hc = half >> cs;
    int exists = 0;
    for (int k = 0; k < 4; k++)
        if (g.region.x0 + (k & 1) * half < g.region.x1 && g.region.y0 + (k >> 1) * half < g.region.y1)
            exists |= 1 << k;
    /* every tile is the one leaf's; stored whatever the outcome, since a
     * general build that redoes this one rewrites them all */
    for (int t = threadIdx.x; t < g.tiles_x * g.tiles_y; t += QR_SINGLE_THREADS) tile_leaf[t] = 0;
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
    const long long count = listed;
    bool split = qr_node_splits(g.root, 0, count, &g.params);
    if (split && qr_split_weighed(g.root, &g.params) && !qr_split_pays(g.root, count, child_total, &g.params))
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

cudaError_t qr_launch_single_leaf(const qr_gpu_scene *s, const qr_tree_geom *g, long long items,
                                  int32_t *vals, qr_leaf *leaves, int32_t *tile_leaf,
                                  qr_build_scalars *scalars, qr_build_readback *rb, cudaStream_t st)
{
    k_single_leaf<<<1, QR_SINGLE_THREADS, 0, st>>>(s->n, s->x, s->y, s->r, *g, items, vals, leaves,
                                                    tile_leaf, scalars, rb);
    return cudaGetLastError();
}

/* ---- readback ------------------------------------------------------------ */

__global__ void k_readback(const qr_build_scalars *scalars, const long long *last_offset,
                           const uint32_t *last_count, qr_build_readback *out)
{
    write_readback(scalars, last_offset ? *last_offset + *last_count : 0, out);
}

cudaError_t qr_launch_readback(const qr_build_scalars *scalars, const long long *last_offset,
                               const uint32_t *last_count, qr_build_readback *out, cudaStream_t st)
{
    k_readback<<<1, 1, 0, st>>>(scalars, last_offset, last_count, out);
    return cudaGetLastError();
}

int32_t qr_tree_max_nodes(const qr_tree_geom *g)
{
    long long total = 0;
    int w = g->region.x1 - g->region.x0, h = g->region.y1 - g->region.y0;
    for (int d = 0, side = g->root; d <= g->params.max_depth && side >= g->params.min_leaf;
         d++, side >>= 1)
        total += (long long)((w + side - 1) / side) * ((h + side - 1) / side);
    return total > INT32_MAX ? INT32_MAX : (int32_t)total;
}
