/* render_gpu.cu — the GPU renderer: one thread block per 32 x 32 pixel
 * region, four pixels per thread, colour in registers, one global write per
 * pixel (clear and render are one pass).
 *
 * The region's 16 x 16 tiles lie inside quadtree leaves (usually one). The
 * block walks the leaf's list in batches of 512 circles: each thread fetches
 * two (16-byte loads of the packed scene), keeps those whose pixel box meets
 * the region, and a block scan compacts the survivors into shared
 * memory in list order, with their box as row and column bit masks — the leaf
 * list is refined inside the kernel, which is what lets leaves be larger than
 * the region. Each warp (16 x 8 pixels) then picks, with one ballot per 32
 * staged circles, those touching its pixels (gathered into groups of 32 where
 * circles are small, walk_leaf), and each thread shades, in order, those of
 * them that touch its own column of four pixels.
 *
 *   exact: back to front, the reference blend with the reference operations
 *          (circle_math.h; one fused multiply-add where that is the same,
 *          blend_flat): bit-identical to qr_render_cpu on flat scenes.
 *   fast:  the same lists front to back with transmittance T: C += T*a*c,
 *          T *= 1-a. Whatever lies behind can move a channel by at most
 *          T * color_span, so a pixel stops once that is <= tol/2, a warp once
 *          all its pixels have, and the block once all of them have; the
 *          remaining T then takes the background colour.
 * Snow and flat shading are separate kernel instances.
 */
#include "quadtree/quadtree_gpu.h"
#include "common/circle_math.h"
#include "common/cuda_check.h"
#include "common/pdl.h"
#include "quadrender/image.h"
#include "render/cover_count.h"

#include <cub/block/block_scan.cuh>
#include <stdlib.h>
#include <string.h>

/* A block shades a 32 x 32 pixel region: 8 warps of 16 x 8 pixels, each
 * thread a column of RT_ROWS = 4 pixels (so a circle's dx and dx*dx serve
 * four pixels). */
#define RB_SIDE QR_REGION /* 32 */
#define RT_ROWS 4
#define RT_THREADS (RB_SIDE * RB_SIDE / RT_ROWS)
#define RW_W 16 /* warp region */
#define RW_H 8

/* List entries a thread stages per batch, and so the entries of a batch. */
#define RT_PER 2
#define RT_BATCH (RT_THREADS * RT_PER)

/* The staging scan: warp scans in k_render, raking in k_render_window (the
 * faster for each, measured: the raking one is 8% faster on biglittle's
 * exact frames, 2-5% slower on fast frames). */
typedef cub::BlockScan<int, RT_THREADS, cub::BLOCK_SCAN_WARP_SCANS> scan_warps;
typedef cub::BlockScan<int, RT_THREADS, cub::BLOCK_SCAN_RAKING> scan_raking;

/* Which region each block of the tail kernel takes (take_region). Blocks
 * start in blockIdx order as earlier ones finish, so regions that take
 * long and come last run nearly alone at the kernel's end while the rest
 * of the GPU idles (under ncu, biglittle's tail kernel issued 2.49
 * instructions a cycle while an SM was busy, 1.16 over the kernel). Which
 * regions take long cannot be read off the index: biglittle and littlebig
 * have the same leaves and list lengths, and their heavy regions lie at
 * opposite ends (reversing the order took 9% off one and added 12% to the
 * other). So each block times itself, and a one-block kernel behind the
 * tail kernel (k_region_order) orders the regions for the next frame,
 * longest first, by half octaves of their cycles: rand1M's exact render
 * 0.381 -> 0.331 ms, biglittle's 0.264 -> 0.239, rand100k's 0.184 ->
 * 0.175 (littlebig's heavy regions already came first: the same). The
 * order moves work between blocks, never pixels: every region is still
 * rendered by exactly one block, the same way. The first frame, and
 * images of more than RO_MAX regions, take row-major order. Fast walks
 * stop early and vary less; there the bookkeeping cost more than it won. */
#define RO_MAX 4096   /* regions ordered (2048 x 2048) */
#define RO_BUCKETS 64 /* half octaves of a block's cycles */
struct region_order {
    int32_t n;               /* regions `order` is for (0: none yet) */
    int32_t order[RO_MAX];   /* block b renders region order[b] */
    uint32_t cycles[RO_MAX]; /* the last tail kernel's, per region */
};

/* The render kernels a frame queues behind its build, and everything their
 * launches bake in besides the index's view: the key of the frame's graph
 * (qr_gpu_tail), so zeroed padding included. */
typedef void (*render_kernel)(qr_index_view, const float4 *, const float4 *, float, int, float4 *);
typedef void (*window_kernel)(qr_index_view, region_order *, const float4 *, const float4 *,
                              const int32_t *, float, float, int, float4 *);
struct render_plan {
    const float4 *pos, *col;
    float4 *image;
    int32_t *counts;
    float color_span, lo, hi;
    render_kernel kernel;  /* a k_render instance, or NULL: */
    window_kernel windows; /* exact mode by windows, a k_render_window instance */
    int alpha, window, timing;
};

struct qr_gpu_renderer {
    int32_t width, height;
    float4 *image;   /* width * height, row 0 = bottom */
    int32_t *counts; /* width * height covering circles, for exact windows; made on first use */
    region_order *ro; /* which region each tail-kernel block takes (take_region) */
    qr_gpu_index *index;
    qr_timing timing;
    cudaEvent_t ev[3];
    qr_frame_timing last;
    render_plan plan; /* this frame's */
    int exact_window; /* exact mode's first window; 0: walk whole lists */
};

/* Bits lo..hi-1 of a 32-bit row or column mask (0 <= lo < hi <= 32). */
__device__ __forceinline__ uint32_t span_mask(int lo, int hi)
{
    return (hi >= 32 ? 0xffffffffu : (1u << hi) - 1u) & ~((1u << lo) - 1u);
}

/* Fast mode's snow shading: qr_shade_snow's function with its per-circle
 * part staged (sc.x = 4/r, sc.y = log2 of the depth's peak alpha, sc.z =
 * -4 log2(e) / r^2) and the GPU's approximate square root and exponential:
 * alpha = peak * exp(-4 t^2) = 2^(sc.z d2 + sc.y), one ex2 of one fused
 * multiply-add, no t. The colour ramp is the piecewise-linear function it is
 * (with s = 4t: red 1 - 0.2 sat(s - 1), green 1 - 0.1 (sat(s - 1) + sat(s -
 * 3)), blue 1) instead of qr_shade_snow's selects and lerps, which round the
 * same values differently; the ramp terms lo = sat(s - 1), hi = sat(s - 3)
 * are what the walk accumulates (snow_blend). It stays within about 1e-6 of
 * the exact shading, inside fast mode's 1e-5 (tested on every snow scene). */
__device__ __forceinline__ void shade_snow_fast(float d2, const float4 sc, float *alpha, float *lo,
                                                float *hi)
{
    float root; /* sqrt(d2), the hardware's approximation (0 at 0) */
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(root) : "f"(d2));
    const float s = d2 > 0.0f ? root * sc.x : 0.0f; /* 0, not NaN, for a circle of radius 0 */
    *lo = __saturatef(s - 1.0f);
    *hi = __saturatef(s - 3.0f);
    /* 2^x, the hardware's approximation (x >= -5.78 + log2 0.3 here: no subnormals) */
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(*alpha) : "f"(__fmaf_rn(sc.z, d2, sc.y)));
}

/* Fast snow front to back. With w = T alpha the colour gains w (1 - 0.2 lo,
 * 1 - 0.1 (lo + hi), 1): the walk keeps c = (sum w lo, sum w hi, sum w),
 * three multiply-adds a pixel instead of the colour's five operations and
 * three, and snow_finish turns them into the colour. */
__device__ __forceinline__ void snow_blend(float alpha, float lo, float hi, float *c, float *T)
{
    const float w = *T * alpha;
    c[0] = __fmaf_rn(w, lo, c[0]);
    c[1] = __fmaf_rn(w, hi, c[1]);
    c[2] += w;
    *T -= w; /* T (1 - alpha) */
}

__device__ __forceinline__ void snow_finish(float *c)
{
    const float a = c[0], b = c[1];
    c[0] = c[2] - 0.2f * a;
    c[1] = c[2] - 0.1f * (a + b);
}

/* The reference's flat blend with alpha = 0.5, c' = fl(h + fl(0.5 c)) (h =
 * fl(0.5 colour), staged). FMA: one fused multiply-add, fl(h + 0.5 c) —
 * the same bits wherever 0.5 c is exact, that is unless c is subnormal or
 * within a factor 2 of it; qr_gpu_scene.fma_blend says no colour value of
 * the scene can get there (scene_gpu.cu proves it). */
template <bool FMA>
__device__ __forceinline__ float blend_flat(float h, float c)
{
    return FMA ? __fmaf_rn(0.5f, c, h) : QR_ADD(h, QR_MUL(0.5f, c));
}

/* Blends circle k of the staged batch into this thread's column of pixels
 * (rows = which of its RT_ROWS pixels the circle's box holds). */
template <bool EXACT, bool SNOW, bool FMA>
__device__ __forceinline__ void shade(const float4 sp, const float4 sc, uint32_t rows, float cx,
                                      const float *cy, float (*c)[4], float *T, float stop,
                                      uint32_t &live)
{
    const float dx = QR_SUB(sp.x, cx);
    const float dx2 = QR_MUL(dx, dx);
    if constexpr (SNOW && !EXACT) {
        /* every row, an uncovered one with alpha 0 (a blend that changes
         * nothing): lanes shade different circles, and branches per row
         * diverged (snowsingle's render 0.194 -> 0.174 ms) */
#pragma unroll
        for (int r = 0; r < RT_ROWS; r++) {
            const float dy = QR_SUB(sp.y, cy[r]);
            const float d2 = QR_ADD(dx2, QR_MUL(dy, dy)); /* = qr_dist2 */
            float alpha, lo, hi;
            shade_snow_fast(d2, sc, &alpha, &lo, &hi);
            alpha = ((rows >> r) & 1u) && d2 <= sp.z ? alpha : 0.0f;
            snow_blend(alpha, lo, hi, c[r], &T[r]);
            if (T[r] <= stop) live &= ~(1u << r);
        }
    } else if constexpr (SNOW) {
        /* the same for the reference's shading: the blend of an uncovered
         * row is computed and not kept (snowsingle 0.460 -> 0.441 ms) */
#pragma unroll
        for (int r = 0; r < RT_ROWS; r++) {
            const float dy = QR_SUB(sp.y, cy[r]);
            const float d2 = QR_ADD(dx2, QR_MUL(dy, dy)); /* = qr_dist2 */
            float alpha, cr, cg, cb, out[4] = {c[r][0], c[r][1], c[r][2], c[r][3]};
            qr_shade_snow(d2, sp.w, sc.w, &alpha, &cr, &cg, &cb);
            qr_blend(alpha, cr, cg, cb, out);
            const bool in = ((rows >> r) & 1u) && d2 <= sp.z;
#pragma unroll
            for (int k = 0; k < 4; k++) c[r][k] = in ? out[k] : c[r][k];
        }
    } else {
#pragma unroll
        for (int r = 0; r < RT_ROWS; r++) {
            if (!((rows >> r) & 1u)) continue;
            const float dy = QR_SUB(sp.y, cy[r]);
            const float d2 = QR_ADD(dx2, QR_MUL(dy, dy)); /* = qr_dist2 */
            if (!(d2 <= sp.z)) continue;
            if (EXACT) {
                /* qr_blend with alpha = 0.5: alpha*colour was staged */
                c[r][0] = blend_flat<FMA>(sc.x, c[r][0]);
                c[r][1] = blend_flat<FMA>(sc.y, c[r][1]);
                c[r][2] = blend_flat<FMA>(sc.z, c[r][2]);
                c[r][3] = QR_ADD(c[r][3], 0.5f);
            } else {
                c[r][0] += T[r] * sc.x;
                c[r][1] += T[r] * sc.y;
                c[r][2] += T[r] * sc.z;
                T[r] *= 0.5f;
            }
            if (!EXACT && T[r] <= stop) live &= ~(1u << r);
        }
    }
}

/* One batch of a leaf list staged in shared memory, in list order. */
struct stage_mem {
    float4 pos[RT_BATCH];  /* x, y, r*r, r */
    float4 col[RT_BATCH];  /* flat: 0.5*(r, g, b); snow: 4/r, log2 peak alpha, -4 log2(e)/r^2 (fast), z */
    uint2 mask[RT_BATCH];  /* the circle's pixel box inside the block region and the
                                current leaf: column bits, row bits */
    uint16_t queue[RT_THREADS / 32][64]; /* each warp's gathered circles (walk_leaf) */
    unsigned long long worst;            /* next_tail's block-wide maximum */
    union {
        typename scan_warps::TempStorage warps;
        typename scan_raking::TempStorage raking;
    } scan;
};

/* Where a block is and which leaf part of its region it is walking. */
struct region_ctx {
    int bx0, by0;           /* the region's first pixel */
    int cx0, cx1, cy0, cy1; /* the leaf's part of the region, block-local */
};

/* This thread's list entries of batch bi (-1: past the list's end). */
__device__ __forceinline__ void load_ids(const int32_t *list, int count, int bi, int32_t (&id)[RT_PER])
{
    const int j0 = bi * RT_BATCH + threadIdx.x * RT_PER;
#pragma unroll
    for (int k = 0; k < RT_PER; k++) id[k] = bi >= 0 && j0 + k < count ? list[j0 + k] : -1;
}

/* Stages a batch of a leaf list (id: this thread's RT_PER consecutive
 * entries of it, load_ids): each thread fetches its circles, keeps those
 * whose pixel box meets the leaf's part of the region, and a block scan
 * compacts the survivors in list order (two loads in flight per thread:
 * micro2M's render 0.33 -> 0.30 ms, rand1M 0.087 -> 0.082; four measured no
 * better). Returns how many were kept (the same on every thread). The
 * caller synchronizes before reading the staged batch. Deterministic: the
 * same batch stages the same circles in the same slots every time.
 *
 * WINDOW: for k_render_window, which scans raking (8% faster there) and
 * loads the kept circles' colours after the scan; k_render loads them
 * before it, so that the loads and the scan's barrier overlap (micro2M's
 * render 0.212 -> 0.205 ms; the window kernel, at 80 registers, spilled
 * more and lost 2-4%). */
template <bool EXACT, bool SNOW, bool WINDOW>
__device__ __forceinline__ int stage_batch(stage_mem &sm, const int32_t (&id)[RT_PER],
                                           const float4 *__restrict__ pos,
                                           const float4 *__restrict__ col, const qr_tree_geom &g,
                                           const region_ctx &rc)
{
    uint2 mask[RT_PER];
    float4 p[RT_PER];
    int mine = 0;
#pragma unroll
    for (int k = 0; k < RT_PER; k++) {
        mask[k] = make_uint2(0, 0);
        if (id[k] < 0) continue;
        p[k] = pos[id[k]];
        qr_pixbox b = qr_circle_pixbox(p[k].x, p[k].y, p[k].w, g.width, g.height);
        int x0 = max(b.x0 - rc.bx0, rc.cx0), x1 = min(b.x1 - rc.bx0, rc.cx1);
        int y0 = max(b.y0 - rc.by0, rc.cy0), y1 = min(b.y1 - rc.by0, rc.cy1);
        if (x0 < x1 && y0 < y1) {
            mask[k] = make_uint2(span_mask(x0, x1), span_mask(y0, y1));
            mine++;
        }
    }
    float4 cl[RT_PER];
#pragma unroll
    for (int k = 0; k < RT_PER; k++)
        if (!SNOW && !WINDOW && mask[k].x) cl[k] = col[id[k]];
    int slot, kept;
    if (WINDOW)
        scan_raking(sm.scan.raking).ExclusiveSum(mine, slot, kept);
    else
        scan_warps(sm.scan.warps).ExclusiveSum(mine, slot, kept);
#pragma unroll
    for (int k = 0; k < RT_PER; k++) {
        if (!mask[k].x) continue;
        /* colour only for circles that touch the region: when leaves are
         * much larger than the region most list entries do not */
        if (!SNOW && WINDOW) cl[k] = col[id[k]];
        sm.pos[slot] = make_float4(p[k].x, p[k].y, QR_MUL(p[k].w, p[k].w), p[k].w);
        if (SNOW) {
            /* fast mode's per-circle shading terms (shade_snow_fast) */
            sm.col[slot] = EXACT ? make_float4(0.0f, 0.0f, 0.0f, p[k].z)
                                 : make_float4(4.0f / p[k].w, log2f(qr_snow_peak_alpha(p[k].z)),
                                               -5.7707801635558535f / (p[k].w * p[k].w), p[k].z);
        } else {
            sm.col[slot] = make_float4(QR_MUL(0.5f, cl[k].x), QR_MUL(0.5f, cl[k].y), QR_MUL(0.5f, cl[k].z), 0.0f);
        }
        sm.mask[slot] = mask[k];
        slot++;
    }
    return kept;
}

/* The block's place: region origin, this thread's pixels, the leaves that
 * hold the region's up to four 16 x 16 tiles. */
struct block_setup {
    int bx0, by0, wx, wy, lx, ly0, px;
    float cx, cy[RT_ROWS];
};

/* Fills b and the region's distinct leaves (returns how many, 1 to 4; the
 * ids stay out of b, which must live in registers). */
__device__ __forceinline__ int setup_block(const qr_index_view &v, int region, block_setup &b,
                                           int32_t leaf_ids[4])
{
    const qr_tree_geom &g = v.geom;
    const int blocks_x = (g.tiles_x + 1) / 2;
    b.bx0 = g.region.x0 + (region % blocks_x) * RB_SIDE;
    b.by0 = g.region.y0 + (region / blocks_x) * RB_SIDE;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    b.wx = (warp & 1) * RW_W;
    b.wy = (warp >> 1) * RW_H;
    b.lx = b.wx + (lane % RW_W);
    b.ly0 = b.wy + (lane / RW_W) * RT_ROWS;
    b.px = b.bx0 + b.lx;
    const float inv_h = 1.0f / (float)g.height;
    b.cx = qr_pixel_center(b.px, 1.0f / (float)g.width);
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) b.cy[r] = qr_pixel_center(b.by0 + b.ly0 + r, inv_h);
    /* The region's tiles may lie in different leaves: each distinct leaf's
     * list is walked for the pixels that leaf holds, so every pixel still
     * sees exactly its own leaf's list, in order. */
    const int tx = (b.bx0 - g.region.x0) / QR_TILE, ty = (b.by0 - g.region.y0) / QR_TILE;
    int nleaf = 0;
    for (int k = 0; k < 4; k++) {
        const int ttx = tx + (k & 1), tty = ty + (k >> 1);
        if (ttx >= g.tiles_x || tty >= g.tiles_y) continue;
        const int32_t id = v.tile_leaf[tty * g.tiles_x + ttx];
        bool seen = false;
        for (int m = 0; m < nleaf; m++) seen |= leaf_ids[m] == id;
        if (!seen) leaf_ids[nleaf++] = id;
    }
    return nleaf;
}

/* This block's region: the order the last frame left (for the same number
 * of regions), else row-major. Read before the kernel waits for the kernel
 * before it: the last frame wrote it, and that frame has ended; this
 * frame's k_region_order writes it only after this kernel has ended. */
__device__ __forceinline__ int take_region(const region_order *ro)
{
    if (gridDim.x > RO_MAX) return blockIdx.x;
    const int n = ro->n, r = ro->order[blockIdx.x];
    return n == (int)gridDim.x ? r : (int)blockIdx.x;
}

/* Half octaves of a block's cycles, longest first. */
__device__ __forceinline__ int order_bucket(uint32_t cycles)
{
    const int msb = 31 - __clz(cycles | 1u);
    const int key = 2 * msb + (msb > 0 ? (int)((cycles >> (msb - 1)) & 1u) : 0);
    return RO_BUCKETS - 1 - min(key, RO_BUCKETS - 1);
}

/* A block's cycles since t0, for the next frame's order (k_region_order). */
__device__ __forceinline__ void region_done(region_order *ro, int region, long long t0)
{
    if (gridDim.x > RO_MAX) return;
    __syncthreads();
    if (threadIdx.x == 0) ro->cycles[region] = (uint32_t)min(clock64() - t0, 0xffffffffll);
}

/* The next frame's order of n regions from this frame's cycles: a counting
 * sort by order_bucket, longest first (positions by atomics: their order
 * within a bucket moves time, never pixels). One block, after the tail
 * kernel. */
#define RO_THREADS 256
__global__ void __launch_bounds__(RO_THREADS) k_region_order(region_order *ro, int n)
{
    __shared__ uint32_t hist[RO_BUCKETS];
    qr_pdl_wait(); /* the tail kernel's cycles */
    int bucket[RO_MAX / RO_THREADS]; /* every region's, all loads in flight at once */
#pragma unroll
    for (int k = 0; k < RO_MAX / RO_THREADS; k++) {
        const int r = k * RO_THREADS + threadIdx.x;
        bucket[k] = r < n ? order_bucket(ro->cycles[r]) : -1;
    }
    for (int k = threadIdx.x; k < RO_BUCKETS; k += RO_THREADS) hist[k] = 0;
    __syncthreads();
    /* one atomic per bucket and warp: most regions share a few buckets */
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int k = 0; k < RO_MAX / RO_THREADS; k++) {
        const uint32_t peers = __match_any_sync(0xffffffffu, bucket[k]);
        if (bucket[k] >= 0 && lane == __ffs(peers) - 1) atomicAdd(&hist[bucket[k]], __popc(peers));
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t run = 0;
        for (int k = 0; k < RO_BUCKETS; k++) {
            const uint32_t c = hist[k];
            hist[k] = run;
            run += c;
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < RO_MAX / RO_THREADS; k++) {
        const uint32_t peers = __match_any_sync(0xffffffffu, bucket[k]);
        const int leader = __ffs(peers) - 1;
        uint32_t at = 0;
        if (bucket[k] >= 0 && lane == leader) at = atomicAdd(&hist[bucket[k]], __popc(peers));
        at = __shfl_sync(0xffffffffu, at, leader) + __popc(peers & ((1u << lane) - 1u));
        if (bucket[k] >= 0) ro->order[at] = k * RO_THREADS + threadIdx.x;
    }
    if (threadIdx.x == 0) ro->n = n;
}

/* This leaf's part of the region, and which of this thread's pixels it holds. */
__device__ __forceinline__ uint32_t leaf_part(const qr_leaf &leaf, const block_setup &b, region_ctx &rc)
{
    rc.bx0 = b.bx0;
    rc.by0 = b.by0;
    rc.cx0 = max(leaf.rect.x0 - b.bx0, 0);
    rc.cx1 = min(leaf.rect.x1 - b.bx0, RB_SIDE);
    rc.cy0 = max(leaf.rect.y0 - b.by0, 0);
    rc.cy1 = min(leaf.rect.y1 - b.by0, RB_SIDE);
    return b.lx >= rc.cx0 && b.lx < rc.cx1 ? (span_mask(rc.cy0, rc.cy1) >> b.ly0) & ((1u << RT_ROWS) - 1) : 0u;
}

/* The staged circles chunk .. chunk+31 whose box touches this warp's 16 x 8
 * pixels, as ballot bits (one per circle, the same on every lane). */
__device__ __forceinline__ uint32_t warp_hits(const stage_mem &sm, int chunk, int kept,
                                              const block_setup &b)
{
    const int k = chunk + threadIdx.x % 32;
    bool hit = false;
    if (k < kept) {
        const uint2 m = sm.mask[k];
        hit = ((m.x >> b.wx) & 0xffffu) && ((m.y >> b.wy) & 0xffu);
    }
    return __ballot_sync(0xffffffffu, hit);
}

/* The lanes of this warp whose pixels staged circle k's box touches:
 * lanes 0-15 are the warp's columns at rows wy..wy+3, lanes 16-31 the same
 * at wy+4..wy+7. */
__device__ __forceinline__ uint32_t touched_lanes(const stage_mem &sm, int k, const block_setup &b)
{
    const uint2 m = sm.mask[k];
    const uint32_t cols = (m.x >> b.wx) & 0xffffu;
    return (((m.y >> b.wy) & 0xfu) ? cols : 0u) | (((m.y >> (b.wy + RT_ROWS)) & 0xfu) ? cols << 16 : 0u);
}

/* Transposes a 32 x 32 bit matrix held one row per lane (bit j of lane i's
 * word = entry (i, j)): five shuffle steps, each swapping the off-diagonal
 * blocks of every 2s x 2s block. */
__device__ __forceinline__ uint32_t warp_transpose(uint32_t x)
{
    const int lane = threadIdx.x % 32;
    const uint32_t masks[5] = {0x0000ffffu, 0x00ff00ffu, 0x0f0f0f0fu, 0x33333333u, 0x55555555u};
#pragma unroll
    for (int k = 0; k < 5; k++) {
        const int s = 16 >> k;
        const uint32_t m = masks[k];
        const uint32_t p = __shfl_xor_sync(0xffffffffu, x, s);
        x = (lane & s) ? ((p & ~m) >> s) | (x & ~m) : (x & m) | ((p & m) << s);
    }
    return x;
}

/* Which of this thread's pixels (bits of `pixels`) staged circle k's box holds. */
__device__ __forceinline__ uint32_t box_rows(const stage_mem &sm, int k, const block_setup &b,
                                             uint32_t pixels)
{
    const uint2 m = sm.mask[k];
    return ((m.x >> b.lx) & 1u) ? (m.y >> b.ly0) & pixels : 0u;
}

/* Walks one leaf's list for this thread's pixels `mine` of the leaf part rc:
 * exact first to last, fast last to first with early stop (live, T).
 *
 * Each staged batch goes to the lanes in groups of up to 32 circles that
 * touch the warp's 16 x 8 pixels; a 32 x 32 bit transpose turns "the lanes
 * circle k touches" into "the circles touching this lane", and each lane
 * shades, in order, only those (small circles touch a few of the warp's 32
 * columns, and a warp stepping through them together would shade each with
 * most lanes idle: micro2M 0.44 -> 0.33 ms render). A group is
 *   GATHER = false: one chunk of 32 staged circles, those of them touching
 *           the warp (one ballot);
 *   GATHER = true:  the next 32 staged circles that touch the warp, gathered
 *           from as many chunks as it takes into a queue in walking order.
 * Gathering pays where few staged circles touch a warp (small circles:
 * micro2M's render 0.277 -> 0.217 ms) and costs 2-16% where most do (the
 * queue's bookkeeping per circle); plan_render chooses. */
template <bool EXACT, bool SNOW, bool WINDOW, bool GATHER, bool FMA>
__device__ __forceinline__ void walk_leaf(stage_mem &sm, const qr_leaf &leaf, const int32_t *list,
                                          const region_ctx &rc, const block_setup &b, uint32_t mine,
                                          const float4 *__restrict__ pos,
                                          const float4 *__restrict__ col, const qr_tree_geom &g,
                                          float (*c)[4], float *T, float stop, uint32_t &live)
{
    const int lane = threadIdx.x % 32;
    uint16_t *queue = sm.queue[threadIdx.x / 32];
    const int batches = (leaf.count + RT_BATCH - 1) / RT_BATCH;
    int32_t id[RT_PER];
    load_ids(list, leaf.count, EXACT ? 0 : batches - 1, id);
    for (int bi = 0; bi < batches; bi++) {
        const int kept = stage_batch<EXACT, SNOW, WINDOW>(sm, id, pos, col, g, rc);
        __syncthreads();
        /* the next batch's list entries load while this one is walked (one
         * memory round trip fewer before its circles: micro2M's render
         * 0.205 -> 0.201 ms) */
        load_ids(list, leaf.count, bi + 1 >= batches ? -1 : EXACT ? bi + 1 : batches - 2 - bi, id);
        const int chunks = (kept + 31) / 32;
        int ci = 0, queued = 0;
        while (ci < chunks || queued > 0) {
            if (!EXACT && !__any_sync(0xffffffffu, live & mine)) break;
            /* the group: up to 32 staged circles touching the warp. Gathered,
             * lane k holds the k-th one's slot, in walking order (ascending
             * slots in exact mode, descending in fast mode); a chunk's lane k
             * holds slot chunk + k if that one touches the warp. */
            int slot = -1, take = 0, chunk = 0;
            if (GATHER) {
                for (; ci < chunks && queued < 32; ci++) {
                    const int at = (EXACT ? ci : chunks - 1 - ci) * 32;
                    const uint32_t hits = warp_hits(sm, at, kept, b);
                    const uint32_t before = hits & (EXACT ? (1u << lane) - 1u : 0xfffffffeu << lane);
                    if ((hits >> lane) & 1u) queue[queued + __popc(before)] = (uint16_t)(at + lane);
                    queued += __popc(hits);
                }
                __syncwarp();
                take = min(queued, 32);
                if (lane < take) slot = queue[lane];
            } else {
                chunk = (EXACT ? ci : chunks - 1 - ci) * 32;
                ci++;
                const uint32_t hits = warp_hits(sm, chunk, kept, b);
                if (!hits) continue;
                if ((hits >> lane) & 1u) slot = chunk + lane;
            }
            /* row k of the matrix: the lanes circle k touches; column `lane`:
             * the circles touching this lane */
            uint32_t bits = warp_transpose(slot >= 0 ? touched_lanes(sm, slot, b) : 0u);
            if (!EXACT && !(live & mine)) bits = 0;
            while (bits) {
                const int bb = GATHER || EXACT ? __ffs(bits) - 1 : 31 - __clz(bits);
                bits &= ~(1u << bb);
                const int k = GATHER ? queue[bb] : chunk + bb;
                const uint32_t rows = box_rows(sm, k, b, live);
                if (rows) shade<EXACT, SNOW, FMA>(sm.pos[k], sm.col[k], rows, b.cx, b.cy, c, T, stop, live);
            }
            if (GATHER) {
                /* the rest (under 32) to the queue's front */
                const int rest = queued - take;
                const uint16_t next = lane < rest ? queue[take + lane] : 0;
                __syncwarp();
                if (lane < rest) queue[lane] = next;
                queued = rest;
            }
        }
        if (EXACT) {
            __syncthreads();
        } else if (__syncthreads_and((live & mine) == 0)) {
            break;
        }
    }
}

/* alpha: write the exact walk's alpha (else 1, as fast mode leaves it; the
 * exact walk also serves fast mode on shallow scenes, see plan_render). */
template <bool EXACT, bool SNOW, bool GATHER, bool FMA>
__global__ void __launch_bounds__(RT_THREADS, 4) /* 64 registers: 4 blocks per SM */
k_render(qr_index_view v, const float4 *__restrict__ pos, const float4 *__restrict__ col,
         float color_span, int alpha, float4 *__restrict__ image)
{
    __shared__ stage_mem sm;
    qr_pdl_wait(); /* the build (or the coverage count) */
    if (v.scalars->num_pairs > v.capacity) return; /* the build will be redone */
    const qr_tree_geom &g = v.geom;
    block_setup b;
    int32_t leaf_ids[4];
    const int nleaf = setup_block(v, blockIdx.x, b, leaf_ids);
    float bg[RT_ROWS], c[RT_ROWS][4], T[RT_ROWS];
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) {
        bg[r] = SNOW ? qr_snow_shade_row(b.by0 + b.ly0 + r, g.height) : 1.0f;
        c[r][0] = c[r][1] = c[r][2] = EXACT ? bg[r] : 0.0f;
        c[r][3] = 1.0f;
        T[r] = 1.0f;
    }
    const float stop = 0.5f * QR_FAST_TOLERANCE / color_span;
    uint32_t live = (1u << RT_ROWS) - 1; /* rows that can still change (fast) */
    for (int li = 0; li < nleaf; li++) {
        const qr_leaf leaf = v.leaves[leaf_ids[li]];
        region_ctx rc;
        const uint32_t mine = leaf_part(leaf, b, rc);
        walk_leaf<EXACT, SNOW, false, GATHER, FMA>(sm, leaf, v.lists + leaf.offset, rc, b, mine, pos, col, g, c, T, stop, live);
    }
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) {
        const int py = b.by0 + b.ly0 + r;
        if (b.px >= g.region.x1 || py >= g.region.y1) continue;
        if (!EXACT) {
            if (SNOW) snow_finish(c[r]);
            c[r][0] += T[r] * bg[r];
            c[r][1] += T[r] * bg[r];
            c[r][2] += T[r] * bg[r];
        }
        image[(size_t)py * g.width + b.px] = make_float4(c[r][0], c[r][1], c[r][2], alpha ? c[r][3] : 1.0f);
    }
}

/* ---- exact mode by windows ---------------------------------------------
 * A flat blend c' = fl(h + fl(0.5 c)), h = fl(0.5 colour), is monotone in c
 * (round to nearest is monotone) and halves any gap between two inputs. So
 * the colour a pixel ends with depends, to the last bit, only on its last
 * few dozen covering circles: run the blends of a list's tail from the
 * lowest and the highest value the colour can have had before it (every
 * colour value and the background lie in [lo_bound, hi_bound]); every true
 * starting colour lies between the two runs, so if the runs end equal, the
 * true one ends there too ("coupling from the past"). Where the tail starts
 * does not matter to that argument, only to how often the runs meet; so a
 * block takes, per leaf part, the one tail in which the part's
 * fewest-covered pixel can expect `window` covering circles if its circles
 * are spread evenly along the list (its count N is known: cover_count.cu
 * counted every pixel's covering circles before this kernel runs), and
 *   - blends that tail back to front, the reference operations on both runs;
 *     equal runs are the answer;
 *   - pixels whose runs still differ go again with a longer tail
 *     (next_tail), up to the whole list, which starts from the background:
 *     the exact walk.
 * Alpha is 1 + 0.5 N (exact in float for N < 2^22).
 * Windows pay only where pixels have many circles: the host takes them for
 * deep scenes (qr_gpu_scene.depth). */

#define RW_MAX_WINDOW (1 << 24)
#define RW_DEEP 3 /* windows when the estimated depth is over 3 windows */

/* The next tail's length, after a tail of `len` entries left the pixels
 * `open` with runs (c, hi) that differ. Doubling is right where a pixel met
 * enough covering circles and its runs were slow to meet; it is slow where
 * the circles are not spread evenly along the list (biglittle: the last
 * thousand entries of one 256-pixel leaf are small circles that many of its
 * regions do not meet, and such regions doubled their tails four or five
 * times). So the block also searches the list from its end for 1.5 windows
 * of covering circles of its worst pixel (the open one whose runs are
 * furthest apart, so the one that met the fewest): the next tail reaches
 * at least as far as that. */
__device__ long long next_tail(stage_mem &sm, const int32_t *list, int count, long long len,
                               int window, uint32_t open, const float (*c)[4],
                               const float (*hi)[3], const block_setup &b,
                               const float4 *__restrict__ pos, const qr_tree_geom &g)
{
    unsigned long long key = 0; /* gap's bits (order-preserving for gaps >= 0), pixel */
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) {
        if (!((open >> r) & 1u)) continue;
        const float gap = fmaxf(fmaxf(hi[r][0] - c[r][0], hi[r][1] - c[r][1]), hi[r][2] - c[r][2]);
        const unsigned long long k = (unsigned long long)__float_as_uint(fmaxf(gap, 0.0f)) << 32 |
                                     (unsigned)((b.ly0 + r) * RB_SIDE + b.lx);
        key = max(key, k);
    }
    if (threadIdx.x == 0) sm.worst = 0;
    __syncthreads();
    if (key) atomicMax(&sm.worst, key);
    __syncthreads();
    const unsigned long long worst = sm.worst;
    if (!worst) return 2 * len; /* no pixel left open */
    const int wp = (int)(worst & 0xffffffffu);
    const float px = qr_pixel_center(b.bx0 + wp % RB_SIDE, 1.0f / (float)g.width);
    const float py = qr_pixel_center(b.by0 + wp / RB_SIDE, 1.0f / (float)g.height);
    const int need = (3 * window + 1) / 2;
    int found = 0;
    long long reach = count;
    for (int j1 = count; j1 > 0; j1 -= RT_BATCH) {
        const int j0 = max(j1 - RT_BATCH, 0);
        int hits = 0;
#pragma unroll
        for (int k = 0; k < RT_PER; k++) {
            const int j = j0 + threadIdx.x * RT_PER + k;
            if (j < j1) {
                const float4 p = pos[list[j]];
                hits += qr_dist2(px, py, p.x, p.y) <= QR_MUL(p.w, p.w);
            }
        }
        found += __syncthreads_count(hits >= 1) + __syncthreads_count(hits >= 2);
        if (found >= need) {
            reach = count - j0;
            break;
        }
    }
    return max(2 * len, reach);
}

template <bool FMA>
__global__ void __launch_bounds__(RT_THREADS, 3) /* 80 registers */
k_render_window(qr_index_view v, region_order *ro, const float4 *__restrict__ pos,
                const float4 *__restrict__ col,
                const int32_t *__restrict__ counts, float lo_bound, float hi_bound, int window,
                float4 *__restrict__ image)
{
    __shared__ stage_mem sm;
    __shared__ int s_fewest; /* the leaf part's smallest N */
    qr_pdl_release(); /* k_region_order */
    const int region = take_region(ro);
    qr_pdl_wait(); /* the coverage count */
    const long long t0 = clock64();
    if (v.scalars->num_pairs > v.capacity) return; /* the build will be redone */
    const qr_tree_geom &g = v.geom;
    block_setup b;
    int32_t leaf_ids[4];
    const int nleaf = setup_block(v, region, b, leaf_ids);
    const int lane = threadIdx.x % 32;

    /* N of this thread's pixels (those in the image) */
    int n[RT_ROWS];
    uint32_t inside = 0;
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) {
        const int py = b.by0 + b.ly0 + r;
        n[r] = 0;
        if (b.px < g.region.x1 && py < g.region.y1) {
            n[r] = counts[(size_t)py * g.width + b.px];
            inside |= 1u << r;
        }
    }

    /* c: colour (the low run while a tail is run from the bounds); hi: the
     * high run. Alpha comes from N at the end. */
    float c[RT_ROWS][4], hi[RT_ROWS][3], T[RT_ROWS];
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) {
        T[r] = 1.0f;
        c[r][0] = c[r][1] = c[r][2] = c[r][3] = 1.0f;
    }

    for (int li = 0; li < nleaf; li++) {
        const qr_leaf leaf = v.leaves[leaf_ids[li]];
        const int32_t *list = v.lists + leaf.offset;
        region_ctx rc;
        const uint32_t mine = leaf_part(leaf, b, rc) & inside;
        int fewest = INT_MAX;
#pragma unroll
        for (int r = 0; r < RT_ROWS; r++)
            if ((mine >> r) & 1u) fewest = min(fewest, n[r]);
        fewest = __reduce_min_sync(0xffffffffu, fewest);
        if (threadIdx.x == 0) s_fewest = INT_MAX;
        __syncthreads();
        if (lane == 0) atomicMin(&s_fewest, fewest);
        __syncthreads();
        fewest = s_fewest;
        if (fewest == INT_MAX) continue; /* none of the part's pixels is in the image */
        /* the tail's length, in list entries */
        long long len = fewest > 0 ? ((long long)leaf.count * window + fewest - 1) / fewest : leaf.count;
        uint32_t open = mine; /* pixels still without their final colour */
        while (__syncthreads_or(open != 0)) {
            if (len >= leaf.count) {
                /* the whole list, from the background: the reference walk */
#pragma unroll
                for (int r = 0; r < RT_ROWS; r++)
                    if ((open >> r) & 1u) c[r][0] = c[r][1] = c[r][2] = 1.0f;
                uint32_t rows = open;
                walk_leaf<true, false, true, false, FMA>(sm, leaf, list, rc, b, open, pos, col, g, c, T, 0.0f, rows);
                break;
            }
            const int from = leaf.count - (int)len;
#pragma unroll
            for (int r = 0; r < RT_ROWS; r++) {
                if (!((open >> r) & 1u)) continue;
#pragma unroll
                for (int ch = 0; ch < 3; ch++) {
                    c[r][ch] = lo_bound;
                    hi[r][ch] = hi_bound;
                }
            }
            /* the tail back to front, staged from its own first entry */
            const int batches = ((int)len + RT_BATCH - 1) / RT_BATCH;
            for (int bi = 0; bi < batches; bi++) {
                int32_t id[RT_PER];
                load_ids(list + from, (int)len, bi, id);
                const int kept = stage_batch<true, false, true>(sm, id, pos, col, g, rc);
                __syncthreads();
                const int chunks = (kept + 31) / 32;
                for (int ci = 0; ci < chunks; ci++) {
                    const int chunk = ci * 32;
                    uint32_t bits = warp_hits(sm, chunk, kept, b);
                    while (bits) {
                        const int bb = __ffs(bits) - 1;
                        bits &= ~(1u << bb);
                        const uint32_t rows = box_rows(sm, chunk + bb, b, open);
                        if (!rows) continue;
                        const float4 sp = sm.pos[chunk + bb], sc = sm.col[chunk + bb];
                        const float dx = QR_SUB(sp.x, b.cx), dx2 = QR_MUL(dx, dx);
#pragma unroll
                        for (int r = 0; r < RT_ROWS; r++) {
                            if (!((rows >> r) & 1u)) continue;
                            const float dy = QR_SUB(sp.y, b.cy[r]);
                            if (!(QR_ADD(dx2, QR_MUL(dy, dy)) <= sp.z)) continue;
                            /* qr_blend with alpha = 0.5: alpha*colour was staged */
                            c[r][0] = blend_flat<FMA>(sc.x, c[r][0]);
                            c[r][1] = blend_flat<FMA>(sc.y, c[r][1]);
                            c[r][2] = blend_flat<FMA>(sc.z, c[r][2]);
                            hi[r][0] = blend_flat<FMA>(sc.x, hi[r][0]);
                            hi[r][1] = blend_flat<FMA>(sc.y, hi[r][1]);
                            hi[r][2] = blend_flat<FMA>(sc.z, hi[r][2]);
                        }
                    }
                }
                __syncthreads();
            }
#pragma unroll
            for (int r = 0; r < RT_ROWS; r++) {
                /* finite colours keep both runs finite, so == is bitwise */
                if (((open >> r) & 1u) && c[r][0] == hi[r][0] && c[r][1] == hi[r][1] &&
                    c[r][2] == hi[r][2])
                    open &= ~(1u << r);
            }
            len = next_tail(sm, list, leaf.count, len, window, open, c, hi, b, pos, g);
        }
    }
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) {
        if (!((inside >> r) & 1u)) continue;
        const size_t at = (size_t)(b.by0 + b.ly0 + r) * g.width + b.px;
        /* alpha: the reference adds 0.5 per covering circle to 1, exact
         * while the sums stay below 2^22; past that, the same additions */
        float a = 1.0f;
        if (n[r] < (1 << 22)) {
            a = QR_ADD(1.0f, QR_MUL(0.5f, (float)n[r]));
        } else {
            for (int k = 0; k < n[r]; k++) a = QR_ADD(a, 0.5f);
        }
        image[at] = make_float4(c[r][0], c[r][1], c[r][2], a);
    }
    region_done(ro, region, t0);
}

extern "C" qr_status qr_gpu_renderer_create(int32_t width, int32_t height, qr_gpu_renderer **out,
                                            qr_error *err)
{
    *out = NULL;
    if (width < 1 || height < 1 || width > QR_IMAGE_MAX_DIM || height > QR_IMAGE_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID, "image size %dx%d out of range (1..%d)", width, height,
                       QR_IMAGE_MAX_DIM);
    qr_gpu_renderer *r = (qr_gpu_renderer *)calloc(1, sizeof *r);
    if (!r) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    r->width = width;
    r->height = height;
    r->exact_window = QR_EXACT_WINDOW;
    qr_status st = qr_gpu_index_create(&r->index, err);
    if (st) {
        free(r);
        return st;
    }
    size_t bytes = (size_t)width * height * sizeof(float4);
    cudaError_t e = cudaMalloc((void **)&r->image, bytes);
    if (e == cudaSuccess) e = cudaMalloc((void **)&r->ro, sizeof(region_order));
    if (e == cudaSuccess) e = cudaMemset(r->ro, 0, sizeof(region_order));
    for (int k = 0; k < 3 && e == cudaSuccess; k++) e = cudaEventCreate(&r->ev[k]);
    if (e != cudaSuccess) {
        cudaGetLastError();
        qr_gpu_renderer_destroy(r);
        return qr_fail(err, qr_cuda_status(e), "a %dx%d image needs %zu bytes of GPU memory: %s",
                       width, height, bytes + sizeof(region_order), cudaGetErrorString(e));
    }
    *out = r;
    return QR_OK;
}

extern "C" void qr_gpu_renderer_destroy(qr_gpu_renderer *r)
{
    if (!r) return;
    for (int k = 0; k < 3; k++)
        if (r->ev[k]) cudaEventDestroy(r->ev[k]);
    cudaFree(r->image);
    cudaFree(r->counts);
    cudaFree(r->ro);
    qr_gpu_index_destroy(r->index);
    free(r);
}

extern "C" void qr_gpu_renderer_set_timing(qr_gpu_renderer *r, qr_timing level)
{
    r->timing = level;
    /* a frame timed whole records no event inside it */
    qr_gpu_index_set_timing(r->index, level >= QR_TIMING_TOTALS ? level : QR_TIMING_OFF);
}

extern "C" void qr_gpu_renderer_set_exact_window(qr_gpu_renderer *r, int window)
{
    r->exact_window = window < 0 ? 0 : (window > RW_MAX_WINDOW ? RW_MAX_WINDOW : window);
}

extern "C" qr_gpu_index *qr_gpu_renderer_index(qr_gpu_renderer *r)
{
    return r->index;
}

extern "C" size_t qr_gpu_renderer_device_bytes(const qr_gpu_renderer *r)
{
    const size_t px = (size_t)r->width * r->height;
    return px * sizeof(float4) + (r->counts ? px * sizeof(int32_t) : 0) + sizeof(region_order) +
           qr_gpu_index_device_bytes(r->index);
}

/* The k_render instance for a walk: exact or fast, snow or flat shading,
 * gathered or chunk by chunk (walk_leaf), fused flat blends (blend_flat;
 * only the exact flat walk blends that way). Fast flat walks stop early and
 * never gather. */
static render_kernel walk_kernel(bool exact, bool snow, bool gather, bool fma)
{
    if (snow && exact) return gather ? k_render<true, true, true, false> : k_render<true, true, false, false>;
    if (snow) return gather ? k_render<false, true, true, false> : k_render<false, true, false, false>;
    if (!exact) return k_render<false, false, false, false>;
    if (fma) return gather ? k_render<true, false, true, true> : k_render<true, false, false, true>;
    return gather ? k_render<true, false, true, false> : k_render<true, false, false, false>;
}

/* Decides this frame's render kernels (and makes the coverage buffer they
 * may need: nothing is allocated while a graph is being captured). */
static qr_status plan_render(qr_gpu_renderer *r, const qr_gpu_scene *scene, qr_render_mode mode,
                             render_plan *p, qr_error *err)
{
    memset(p, 0, sizeof *p);
    p->pos = scene->pos;
    p->col = scene->col;
    p->image = r->image;
    p->color_span = scene->color_span;
    p->timing = (int)r->timing;
    const bool snow = scene->shading == QR_SHADE_SNOW;
    /* exact flat blends as one fused multiply-add, where that is exact
     * (blend_flat) */
    const bool fma = !snow && scene->fma_blend;
    /* windows pay on deep scenes: rand100k, biglittle, littlebig and rand1M
     * gain 1.1-2.6x at 1024 and 2048 (measured, docs/benchmarks.md) */
    const bool deep = scene->depth >= RW_DEEP * r->exact_window;
    if (mode == QR_RENDER_EXACT && !snow && r->exact_window > 0 && scene->colors_finite && deep) {
        if (!r->counts) {
            const size_t bytes = (size_t)r->width * r->height * sizeof(int32_t);
            cudaError_t e = cudaMalloc((void **)&r->counts, bytes);
            if (e != cudaSuccess) {
                cudaGetLastError();
                r->counts = NULL;
                return qr_fail(err, qr_cuda_status(e),
                               "exact mode's coverage counts need %zu more bytes of GPU memory: %s",
                               bytes, cudaGetErrorString(e));
            }
        }
        p->windows = fma ? k_render_window<true> : k_render_window<false>;
        p->counts = r->counts;
        p->window = r->exact_window;
        /* the windows' runs start 1e-3 (relative) outside every value a
         * colour can take, so rounding can never carry the true one past
         * them; where the blend is fused (fma_blend: no colour below 0) the
         * low run starts at 0, which no computed colour goes below either,
         * so that it too stays out of the subnormal range */
        const float m = 1e-3f * (1.0f + fmaxf(fabsf(scene->color_lo), fabsf(scene->color_hi)));
        p->lo = fma ? 0.0f : scene->color_lo - m;
        p->hi = scene->color_hi + m;
    } else {
        /* Fast mode stops a pixel after about log2(2 span / tol) blends
         * (17.6 for colours in [0, 1]). Where pixels hold on average less
         * than half that, it has nothing to skip and its bookkeeping costs
         * 3-8% (micro2M, rgb, pattern), so it takes the exact walk (the
         * exact image, alpha left at 1). */
        const float stop_blends = log2f(2.0f * scene->color_span / QR_FAST_TOLERANCE);
        const bool exact = mode == QR_RENDER_EXACT || (!snow && scene->depth < 0.5f * stop_blends);
        p->alpha = mode == QR_RENDER_EXACT;
        /* Walks that go to the end of their lists gather each warp's circles
         * where circles are narrower than the region (walk_leaf): micro2M
         * 0.277 -> 0.217 ms, snowsingle 3-4% faster; flat fast walks stop
         * after a few groups and lose 2-8% to gathering (rand1M, rand10k). */
        const float box_px = 2.0f * scene->radius * (float)(r->width > r->height ? r->width : r->height);
        const bool gather = box_px < RB_SIDE;
        p->kernel = walk_kernel(exact, snow, gather, fma);
    }
    return QR_OK;
}

/* The frame's tail (qr_gpu_tail): the planned render kernels for the index's
 * current build, between the render's timing events. Inside the build's
 * graph when it is one; queued again behind a build that is redone. */
static qr_status enqueue_render(void *user, cudaStream_t s, int capturing, int after_kernel,
                                qr_error *err)
{
    qr_gpu_renderer *r = (qr_gpu_renderer *)user;
    const render_plan &p = r->plan;
    const unsigned flags = capturing ? cudaEventRecordExternal : cudaEventRecordDefault;
    if (p.timing >= QR_TIMING_TOTALS) {
        QR_CUDA_TRY(err, cudaEventRecordWithFlags(r->ev[1], s, flags));
        after_kernel = 0;
    }
    const qr_index_view v = qr_gpu_index_view(r->index);
    const int tiles = ((v.geom.tiles_x + 1) / 2) * ((v.geom.tiles_y + 1) / 2); /* 32 x 32 regions */
    cudaError_t e;
    if (p.kernel) {
        e = qr_launch(p.kernel, tiles, RT_THREADS, 0, s, after_kernel, v, p.pos, p.col, p.color_span,
                      p.alpha, p.image);
    } else {
        qr_status st = qr_cover_count(&v, p.pos, p.counts, s, after_kernel, err);
        if (st) return st;
        e = qr_launch(p.windows, tiles, RT_THREADS, 0, s, 1, v, r->ro, p.pos, p.col,
                      (const int32_t *)p.counts, p.lo, p.hi, p.window, p.image);
        if (e == cudaSuccess && tiles <= RO_MAX)
            e = qr_launch(k_region_order, 1, RO_THREADS, 0, s, 1, r->ro, tiles);
    }
    QR_CUDA_TRY(err, e);
    if (p.timing) QR_CUDA_TRY(err, cudaEventRecordWithFlags(r->ev[2], s, flags));
    return QR_OK;
}

/* A frame: the build and, queued behind it (in its graph), the render;
 * then the build is checked (and, rarely, redone with the render). */
extern "C" qr_status qr_gpu_render(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                                   const qr_index_params *params, qr_render_mode mode,
                                   qr_error *err)
{
    qr_status st = plan_render(r, scene, mode, &r->plan, err);
    if (st) return st;
    qr_gpu_tail tail;
    memset(&tail, 0, sizeof tail);
    tail.enqueue = enqueue_render;
    tail.user = r;
    static_assert(sizeof(render_plan) <= sizeof tail.key, "the render plan outgrew the tail's key");
    memcpy(tail.key, &r->plan, sizeof r->plan);
    if (r->timing) QR_CUDA_TRY(err, cudaEventRecord(r->ev[0], qr_gpu_index_stream(r->index)));
    st = qr_gpu_index_start(r->index, scene, r->width, r->height, NULL, params, &tail, err);
    if (st) return st;
    int rebuilt = 0;
    st = qr_gpu_index_finish(r->index, &rebuilt, err);
    if (st) return st;
    memset(&r->last, 0, sizeof r->last);
    if (r->timing) {
        QR_CUDA_TRY(err, cudaEventSynchronize(r->ev[2]));
        QR_CUDA_TRY(err, cudaEventElapsedTime(&r->last.frame_ms, r->ev[0], r->ev[2]));
        if (r->timing >= QR_TIMING_TOTALS) {
            QR_CUDA_TRY(err, cudaEventElapsedTime(&r->last.render_ms, r->ev[1], r->ev[2]));
            st = qr_gpu_index_timing(r->index, &r->last.build, err);
            if (st) return st;
        }
    }
    return QR_OK;
}

extern "C" qr_status qr_gpu_renderer_timing(const qr_gpu_renderer *r, qr_frame_timing *t,
                                            qr_error *err)
{
    if (!r->timing) return qr_fail(err, QR_ERR_INVALID, "timing is not enabled");
    *t = r->last;
    return QR_OK;
}

extern "C" qr_status qr_gpu_renderer_download(const qr_gpu_renderer *r, qr_image *img, qr_error *err)
{
    if (img->width != r->width || img->height != r->height)
        return qr_fail(err, QR_ERR_INVALID, "image is %dx%d, the renderer's %dx%d", img->width,
                       img->height, r->width, r->height);
    QR_CUDA_TRY(err, cudaMemcpy(img->rgba, r->image, (size_t)r->width * r->height * sizeof(float4),
                                cudaMemcpyDeviceToHost));
    return QR_OK;
}
