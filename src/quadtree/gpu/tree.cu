/* tree.cu — the build's second stage: one block decides the whole tree
 * from the boxes stage's corner histograms (boxes.cu says how they count a
 * node's circles), numbers its leaves depth first, lays out their lists
 * and maps every tile to its leaf.
 */
#include "quadtree/gpu/build_stages.h"
#include "quadtree/quadtree_geom.h"
#include "gpu/device_limits.h"
#include "gpu/pdl.h"

#include <cub/block/block_scan.cuh>

/* The tree stage is one block and a chain of barriers, block scans and
 * shared-memory round trips: 256 threads (8 warps) run it faster than 1024
 * (measured, docs/benchmarks.md), since a barrier and a block scan's
 * warp-total pass wait on fewer warps; no level at 1024 x 1024 has more
 * than 256 nodes. */
/* QR_TREE_THREADS: gpu/tuning/tuning_default.h */

/* One block, so the stage is a chain of dependent steps and its time is their
 * latency. When they fit, the histograms and the node arrays live in dynamic
 * shared memory (qr_launch_tree decides): every step that re-reads what the
 * block has just written then costs a shared-memory round trip, not an L2
 * one. The kernel reaches both through generic pointers, so one body serves
 * either placement. */

/* Warp-scan block scans: with 8 warps their pass over the warp totals is
 * short (the default raking ones spill to local memory at 1024 threads). */
typedef cub::BlockScan<int, QR_TREE_THREADS, cub::BLOCK_SCAN_WARP_SCANS> tree_scan_int;
typedef cub::BlockScan<long long, QR_TREE_THREADS, cub::BLOCK_SCAN_WARP_SCANS> tree_scan_ll;

__device__ __forceinline__ uint32_t hist_at(const uint32_t *h, const qr_tree_geom &g, int plane,
                                            int x, int y)
{
    size_t w1 = g.gx + 1;
    return h[(size_t)plane * w1 * (g.gy + 1) + (size_t)y * w1 + x];
}

/* Exact number of visible boxes meeting the node whose cell rectangle is
 * [a, a+s) x [b, b+s) (see boxes.cu). */
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

/* The same prefix sums by a kernel of many blocks, a warp per line: for
 * histograms too large for the tree block's shared memory (cells below 64
 * pixels on large images), which one block would sum slowly from L2. */
__global__ void k_hist_lines(uint32_t *h, int lines, int len, int per, size_t plane, int lstep,
                             int estep)
{
    qr_pdl_release();
    qr_pdl_wait(); /* the boxes stage's counts, or the rows' sums */
    const int lane = threadIdx.x % 32, run = (len + 31) / 32;
    const int warps = gridDim.x * blockDim.x / 32;
    for (int line = (blockIdx.x * blockDim.x + threadIdx.x) / 32; line < lines; line += warps) {
        uint32_t *p = h + (size_t)(line / per) * plane + (size_t)(line % per) * lstep;
        const int lo = min(lane * run, len), hi = min(lo + run, len);
        uint32_t own = 0;
        for (int k = lo; k < hi; k++) own += p[(size_t)k * estep];
        uint32_t incl = own;
        for (int o = 1; o < 32; o <<= 1) {
            const uint32_t v = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o) incl += v;
        }
        uint32_t acc = incl - own;
        for (int k = lo; k < hi; k++) {
            acc += p[(size_t)k * estep];
            p[(size_t)k * estep] = acc;
        }
    }
}

/* Tiles of a leaf rectangle, and writing its leaf number into the tile map
 * (threads `first`, `first + stride`, ... share the work). */
/* QR_BIG_LEAVES: gpu/tuning/tuning_default.h */

__device__ __forceinline__ int leaf_tiles(const qr_rect &r, const qr_tree_geom &g)
{
    const int tw = (r.x1 - g.region.x0 + QR_TILE - 1) / QR_TILE - (r.x0 - g.region.x0) / QR_TILE;
    const int th = (r.y1 - g.region.y0 + QR_TILE - 1) / QR_TILE - (r.y0 - g.region.y0) / QR_TILE;
    return tw * th;
}

/* Both planes of the tile map (qr_index_view): a leaf of a tile or more is
 * the first and the last leaf of each of its tiles; a smaller one is the
 * first of its tile if it holds the tile's bottom-left pixel, the last if
 * it holds the top-right one. */
__device__ __forceinline__ void fill_tiles(int32_t *tile_leaf, const qr_tree_geom &g, const qr_rect &r,
                                           int32_t id, int first, int stride)
{
    const size_t plane = (size_t)g.tiles_x * g.tiles_y;
    const int tx0 = (r.x0 - g.region.x0) / QR_TILE;
    const int ty0 = (r.y0 - g.region.y0) / QR_TILE;
    if (r.x1 - r.x0 < QR_TILE && r.y1 - r.y0 < QR_TILE) {
        /* inside one tile (a leaf of a tile or more clipped this small by
         * the region's edge holds its whole tile, so both corners) */
        const int rx0 = tx0 * QR_TILE, ry0 = ty0 * QR_TILE;
        const int rx1 = min(rx0 + QR_TILE, g.region.x1 - g.region.x0);
        const int ry1 = min(ry0 + QR_TILE, g.region.y1 - g.region.y0);
        const size_t t = (size_t)ty0 * g.tiles_x + tx0;
        if (first == 0 && r.x0 - g.region.x0 == rx0 && r.y0 - g.region.y0 == ry0) tile_leaf[t] = id;
        if (first == 0 && r.x1 - g.region.x0 == rx1 && r.y1 - g.region.y0 == ry1) tile_leaf[plane + t] = id;
        return;
    }
    const int tw = (r.x1 - g.region.x0 + QR_TILE - 1) / QR_TILE - tx0;
    const int n = leaf_tiles(r, g);
    for (int t = first; t < n; t += stride) {
        const size_t at = (size_t)(ty0 + t / tw) * g.tiles_x + tx0 + t % tw;
        tile_leaf[at] = id;
        tile_leaf[plane + at] = id;
    }
}

/* summed: the histograms come summed (k_hist_lines) and are read from the
 * global buffer.
 * smem_hist: the histograms are copied into dynamic shared memory and summed
 * there; the global buffer keeps the raw counts (no later stage reads it).
 * smem_nodes: nodes, ncount, nleaves and nfirst (max_nodes each, after the
 * histograms when those are there too), plus each leaf's count by leaf
 * number, live in shared memory; the node arrays are copied out at the end,
 * so the global buffers end up as the all-global path leaves them. */
__global__ void __launch_bounds__(QR_TREE_THREADS)
k_tree(qr_tree_geom g, uint32_t *hist, qr_dnode *nodes, int32_t *ncount, int32_t *nleaves,
       int32_t *nfirst, qr_leaf *leaves, int32_t *tile_leaf, int32_t *extra, int32_t *small,
       qr_build_scalars *scalars, int summed, int smem_hist, int smem_nodes, int fill_apart)
{
    __shared__ union {
        typename tree_scan_int::TempStorage i;
        typename tree_scan_ll::TempStorage ll;
    } scan_tmp;
    __shared__ int32_t level_begin[QR_MAX_DEPTH_LIMIT + 3];
    __shared__ int32_t overflow;
    __shared__ int32_t big[QR_BIG_LEAVES], nbig, nextra, nsmall;
    __shared__ int crowded; /* qr_node_crowds, once the level of min_leaf is reached */
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
    if (!summed) {
        scan_lines(P, 4 * h1, w1, h1, (size_t)w1 * h1, w1, 1);
        __syncthreads();
        scan_lines(P, 4 * w1, h1, w1, (size_t)w1 * h1, 1, w1);
    }
    if (tid == 0) {
        qr_dnode root = {0, -1, -1, 0}; /* region-relative: see qr_dnode */
        N[0] = root;
        level_begin[0] = 0;
        level_begin[1] = 1;
        overflow = 0;
        nbig = 0;
        nextra = 0;
        nsmall = 0;
        crowded = 0;
    }
    __syncthreads();

    /* Level by level: count, decide, append children (scan-derived slots,
     * so the layout is deterministic). */
    const int rw = g.region.x1 - g.region.x0, rh = g.region.y1 - g.region.y0;
    const int share = qr_read_share(scalars->box_area, (long long)rw * rh, g.early_stop);
    int depth = 0;
    for (; depth <= g.params.max_depth; depth++) {
        const int32_t begin = level_begin[depth], end = level_begin[depth + 1];
        if (begin == end) break;
        const int side = g.root >> depth, half = side >> 1;
        const int cs = __ffs(g.cell) - 1;
        const bool reads = qr_split_reads_children(side, &g.params); /* this level's splits */
        if (side == g.params.min_leaf) {
            /* whether the tree is crowded (qr_node_crowds): every node of
             * min_leaf is at this level, and the splits from here on depend
             * on it */
            bool crowds = false;
            for (int32_t i = begin + tid; i < end; i += QR_TREE_THREADS) {
                const qr_dnode nd = N[i];
                const int x = nd.xy & 0xffff, y = nd.xy >> 16;
                crowds |= (bool)qr_node_crowds(side, depth, node_count(P, g, visible, x >> cs, y >> cs, side >> cs),
                                               g.floor, visible, (long long)rw * rh, &g.params);
            }
            if (crowds) crowded = 1;
            __syncthreads();
        }
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
                int32_t c = node_count(P, g, visible, x >> cs, y >> cs, side >> cs);
                C[i] = c;
                bool split = qr_node_splits(side, depth, c, g.floor, crowded, &g.params);
                if (split && side <= g.cell) {
                    /* crowded below these cells: this build is cut short */
                    scalars->deep_cut = 1;
                    split = false;
                }
                if (split) {
                    long long children = 0;
                    for (int k = 0; k < 4; k++) {
                        const int kx = x + (k & 1) * half, ky = y + (k >> 1) * half;
                        if (kx >= rw || ky >= rh) continue;
                        mask |= 1 << k;
                        if (reads) children += node_count(P, g, visible, kx >> cs, ky >> cs, half >> cs);
                    }
                    if (reads && !qr_split_goes(side, c, children, share, &g.params))
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
        lf.rect.x0 = g.region.x0 + x;
        lf.rect.y0 = g.region.y0 + y;
        lf.rect.x1 = g.region.x0 + min(x + side, rw);
        lf.rect.y1 = g.region.y0 + min(y + side, rh);
        lf.depth = d;
        lf.count = C[i];
        lf.offset = 0;
        leaves[id] = lf;
        if (LC) LC[id] = lf.count;
        /* a leaf below a render block, other than the block's first: an
         * extra render work item (qr_index_view.extra) */
        if (side < QR_REGION && ((x | y) & (QR_REGION - 1))) extra[atomicAdd(&nextra, 1)] = id;
        /* and one below a tile, a work item of the coverage count */
        if (side < QR_TILE) small[atomicAdd(&nsmall, 1)] = id;
        /* its tiles in the tile -> leaf map: plain stores, no walk down the
         * tree. A big leaf is left to the whole block (below). */
        int slot = QR_BIG_LEAVES;
        if (fill_apart) {
            /* k_fill_tiles, after this kernel */
        } else if (leaf_tiles(lf.rect, g) > 64 && (slot = atomicAdd(&nbig, 1)) < QR_BIG_LEAVES) {
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
        scalars->extra_items = nextra;
        scalars->small_leaves = nsmall;
        scalars->num_nodes = num_nodes;
        scalars->num_leaves = num_leaves;
        scalars->max_depth = levels - 1;
        scalars->num_pairs = carry;
    }
}

/* The tile map of a large region, apart from k_tree: a warp a leaf, its
 * lanes over the leaf's tiles in row order, so that a store instruction
 * writes a few runs of neighbouring words (k_tree's loop gives each thread
 * a leaf of its own, so there every store of a warp lands on 32 lines).
 * Many blocks, where the tree is one. */
__global__ void __launch_bounds__(256) k_fill_tiles(qr_tree_geom g, const qr_leaf *leaves,
                                                    const qr_build_scalars *scalars,
                                                    int32_t *tile_leaf)
{
    qr_pdl_release();
    qr_pdl_wait(); /* the tree */
    if (scalars->overflow) return;
    const int32_t n = scalars->num_leaves;
    const int lane = threadIdx.x % 32, warps = gridDim.x * blockDim.x / 32;
    for (int32_t id = (blockIdx.x * blockDim.x + threadIdx.x) / 32; id < n; id += warps)
        fill_tiles(tile_leaf, g, leaves[id].rect, id, lane, 32);
}

/* Regions of more tiles than this fill their tile map in k_fill_tiles. */
#define QR_FILL_APART_TILES 16384

/* k_tree may take the opt-in maximum of shared memory per block (227 KiB on
 * sm_90) less its static part. */
cudaError_t qr_launch_tree(const qr_tree_args *a, cudaStream_t st, int pdl)
{
    const qr_tree_geom *g = a->geom;
    uint32_t *hist = a->hist;
    qr_dnode *nodes = a->nodes;
    int32_t *node_count = a->node_count, *node_nleaves = a->node_nleaves, *node_first = a->node_first;
    qr_leaf *leaves = a->leaves;
    int32_t *tile_leaf = a->tile_leaf;
    int32_t *extra = a->extra, *small = a->small;
    qr_build_scalars *scalars = a->scalars;
    cudaFuncAttributes fa;
    cudaError_t e = cudaFuncGetAttributes(&fa, k_tree);
    if (e != cudaSuccess) return e;
    const int optin = qr_device_smem_optin();
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
    const int summed = !smem_hist;
    if (summed) {
        const int w1 = g->gx + 1, h1 = g->gy + 1;
        const size_t plane = (size_t)w1 * h1;
        const int row_blocks = (4 * h1 * 32 + 255) / 256, col_blocks = (4 * w1 * 32 + 255) / 256;
        e = qr_launch(k_hist_lines, row_blocks, 256, 0, st, pdl, hist, 4 * h1, w1, h1, plane, w1, 1);
        if (e == cudaSuccess)
            e = qr_launch(k_hist_lines, col_blocks, 256, 0, st, 1, hist, 4 * w1, h1, w1, plane, 1, w1);
        if (e != cudaSuccess) return e;
        pdl = 1;
    }
    const int fill_apart = (long long)g->tiles_x * g->tiles_y > QR_FILL_APART_TILES;
    e = qr_launch(k_tree, 1, QR_TREE_THREADS, smem, st, pdl, *g, hist, nodes, node_count,
                  node_nleaves, node_first, leaves, tile_leaf, extra, small, scalars, summed,
                  smem_hist, smem_nodes, fill_apart);
    if (e != cudaSuccess || !fill_apart) return e;
    return qr_launch(k_fill_tiles, 2 * qr_device_sms(), 256, 0, st, 1, *g, (const qr_leaf *)leaves,
                     (const qr_build_scalars *)scalars, tile_leaf);
}

int32_t qr_tree_max_nodes(const qr_tree_geom *g)
{
    long long total = 0;
    int w = g->region.x1 - g->region.x0, h = g->region.y1 - g->region.y0;
    for (int d = 0, side = g->root; d <= g->params.max_depth && side >= g->cell;
         d++, side >>= 1)
        total += (long long)((w + side - 1) / side) * ((h + side - 1) / side);
    return total > INT32_MAX ? INT32_MAX : (int32_t)total;
}
