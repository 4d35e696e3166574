/* render_stage.cuh — device code the render kernels share (render_walk.cu,
 * render_windows.cu): a block's place and the leaves of its region, a
 * batch of a leaf list staged in shared memory with its pixel-box masks,
 * and the shading and blending of one circle. The kernels and how they
 * fit together: render_walk.cu.
 */
#ifndef QR_RENDER_STAGE_CUH
#define QR_RENDER_STAGE_CUH

#include "render/gpu/render_kernels.h"
#include "common/circle_math.h"

#include <cub/block/block_scan.cuh>
#include <limits.h>

/* RW_W, RW_H: gpu/tuning/tuning_default.h */

/* List entries a thread stages per batch, and so the entries of a batch. */
/* RT_PER: gpu/tuning/tuning_default.h */
#define RT_BATCH (RT_THREADS * RT_PER)

/* The staging scan: warp scans in k_render, raking in k_render_window (the
 * faster for each, measured on biglittle's exact frames and on fast
 * frames, docs/benchmarks.md). */
typedef cub::BlockScan<int, RT_THREADS, cub::BLOCK_SCAN_WARP_SCANS> scan_warps;
typedef cub::BlockScan<int, RT_THREADS, cub::BLOCK_SCAN_RAKING> scan_raking;

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

/* The same with the circle's own alpha a: c' = fl(h + fl(m c)), h = fl(a
 * colour) and m = fl(1 - a) staged, as qr_blend computes them. FMA only
 * where every a is 0.5 (qr_gpu_scene.fma_blend), m = 0.5: blend_flat. */
template <bool FMA>
__device__ __forceinline__ float blend_alpha(float h, float m, float c)
{
    return FMA ? __fmaf_rn(m, c, h) : QR_ADD(h, QR_MUL(m, c));
}

/* Blends circle k of the staged batch into this thread's column of pixels
 * (rows = which of its RT_ROWS pixels the circle's box holds). HALF: every
 * alpha is 0.5 (a plain scene's, staged so: stage_batch), the constant.
 * AA: anti-aliased edges, each pixel's alpha the circle's times its
 * coverage (qr_aa_alpha; staged: r'^2 and the slope in sp, the raw colour
 * and alpha in sc). cover: the scene has no background, and the exact
 * blends' alpha channel is the coverage (qr_blend_cover; plain scenes, the
 * HALF ones, never). */
template <bool EXACT, bool SNOW, bool FMA, bool HALF, bool AA>
__device__ __forceinline__ void shade(const float4 sp, const float4 sc, uint32_t rows, float cx,
                                      const float *cy, float (*c)[4], float *T, float stop,
                                      uint32_t &live, bool cover)
{
    const float dx = QR_SUB(sp.x, cx);
    const float dx2 = QR_MUL(dx, dx);
    if constexpr (SNOW && !EXACT) {
        /* every row, an uncovered one with alpha 0 (a blend that changes
         * nothing): lanes shade different circles, and branches per row
         * diverge (measured slower on snowsingle) */
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
         * row is computed and not kept (measured faster on snowsingle) */
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
            if (AA) {
                const float ae = qr_aa_alpha(sc.w, d2, sp.z, sp.w);
                if (EXACT) {
                    /* qr_blend with alpha ae */
                    const float m = QR_SUB(1.0f, ae);
                    c[r][0] = QR_ADD(QR_MUL(ae, sc.x), QR_MUL(m, c[r][0]));
                    c[r][1] = QR_ADD(QR_MUL(ae, sc.y), QR_MUL(m, c[r][1]));
                    c[r][2] = QR_ADD(QR_MUL(ae, sc.z), QR_MUL(m, c[r][2]));
                    c[r][3] = cover ? QR_ADD(ae, QR_MUL(m, c[r][3])) : QR_ADD(c[r][3], ae);
                } else {
                    const float w = T[r] * ae;
                    c[r][0] += w * sc.x;
                    c[r][1] += w * sc.y;
                    c[r][2] += w * sc.z;
                    T[r] -= w;
                }
            } else if (EXACT && HALF) {
                /* qr_blend with alpha = 0.5: alpha*colour was staged */
                c[r][0] = blend_flat<FMA>(sc.x, c[r][0]);
                c[r][1] = blend_flat<FMA>(sc.y, c[r][1]);
                c[r][2] = blend_flat<FMA>(sc.z, c[r][2]);
                c[r][3] = QR_ADD(c[r][3], 0.5f);
            } else if (EXACT) {
                /* qr_blend: alpha*colour and 1 - alpha were staged (sc),
                 * alpha in sp.w */
                c[r][0] = blend_alpha<FMA>(sc.x, sc.w, c[r][0]);
                c[r][1] = blend_alpha<FMA>(sc.y, sc.w, c[r][1]);
                c[r][2] = blend_alpha<FMA>(sc.z, sc.w, c[r][2]);
                /* qr_blend_cover's alpha where there is no background */
                c[r][3] = cover ? QR_ADD(sp.w, QR_MUL(sc.w, c[r][3])) : QR_ADD(c[r][3], sp.w);
            } else {
                c[r][0] += T[r] * sc.x;
                c[r][1] += T[r] * sc.y;
                c[r][2] += T[r] * sc.z;
                T[r] *= HALF ? 0.5f : sc.w;
            }
            if (!EXACT && T[r] <= stop) live &= ~(1u << r);
        }
    }
}

/* One batch of a leaf list staged in shared memory, in list order. */
struct stage_mem {
    float4 pos[RT_BATCH];  /* x, y, r*r, and r (snow, HALF), alpha a (flat) or the
                              slope (AA, qr_aa_slope) */
    float4 col[RT_BATCH];  /* flat: a*(r, g, b), 1 - a; AA: r, g, b, a; snow: 4/r, log2 peak
                              alpha, -4 log2(e)/r^2 (fast), z */
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
 * compacts the survivors in list order (two loads in flight per thread
 * measure faster than one on micro2M and rand1M, four no better than two).
 * Returns how many were kept (the same on every thread). The
 * caller synchronizes before reading the staged batch. Deterministic: the
 * same batch stages the same circles in the same slots every time.
 *
 * WINDOW: for k_render_window, which scans raking (the faster there) and
 * loads the kept circles' colours after the scan; k_render loads them
 * before it, so that the loads and the scan's barrier overlap (faster on
 * micro2M; the window kernel, at 80 registers, spills more that way and
 * is slower). HALF: the scene is plain (every alpha 0.5: windows and fused
 * blends draw no other), staged as a constant, with the radius in pos.w. */
template <bool EXACT, bool SNOW, bool WINDOW, bool HALF, bool AA>
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
        const float pw = SNOW || HALF ? p[k].w
                       : AA ? qr_aa_slope(p[k].w, g.width > g.height ? g.width : g.height)
                            : cl[k].w;
        sm.pos[slot] = make_float4(p[k].x, p[k].y, QR_MUL(p[k].w, p[k].w), pw);
        if (SNOW) {
            /* fast mode's per-circle shading terms (shade_snow_fast) */
            sm.col[slot] = EXACT ? make_float4(0.0f, 0.0f, 0.0f, p[k].z)
                                 : make_float4(4.0f / p[k].w, log2f(qr_snow_peak_alpha(p[k].z)),
                                               -5.7707801635558535f / (p[k].w * p[k].w), p[k].z);
        } else {
            const float a = HALF ? 0.5f : cl[k].w; /* the circle's alpha (qr_gpu_scene.col) */
            sm.col[slot] = AA ? cl[k]
                              : make_float4(QR_MUL(a, cl[k].x), QR_MUL(a, cl[k].y),
                                            QR_MUL(a, cl[k].z), QR_SUB(1.0f, a));
        }
        sm.mask[slot] = mask[k];
        slot++;
    }
    return kept;
}

/* The block's place: region origin, this thread's pixels. */
struct block_setup {
    int bx0, by0, wx, wy, lx, ly0, px;
    float cx, cy[RT_ROWS];
};

/* Fills b; returns the region's leaves as a run of leaf numbers, first in
 * *first (it stays out of b, which must live in registers). The region is
 * a node of the tree (or lies in a leaf), so its leaves are the depth-first
 * run from the leaf of its first tile's bottom-left pixel to that of its
 * last tile's top-right one (the tile map's two planes): one leaf, up to
 * four of a tile, or more where leaves are smaller than a tile. */
__device__ __forceinline__ int setup_block(const qr_index_view &v, int region, block_setup &b,
                                           int32_t *first)
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
    const int tx = (b.bx0 - g.region.x0) / QR_TILE, ty = (b.by0 - g.region.y0) / QR_TILE;
    const int tx1 = min(tx + 1, g.tiles_x - 1), ty1 = min(ty + 1, g.tiles_y - 1);
    const size_t plane = (size_t)g.tiles_x * g.tiles_y;
    *first = v.tile_leaf[ty * g.tiles_x + tx];
    return v.tile_leaf[plane + ty1 * g.tiles_x + tx1] - *first + 1;
}

/* Work items. Where leaves can be smaller than a region (min_leaf below
 * RB_SIDE), a block walking all of a region's leaves one after another
 * would hold a crowded region's work on one SM; so each leaf of such a
 * region is a work item of its own: items [0, regions) are the regions,
 * each with its first leaf only (or its one leaf), and items [regions,
 * regions + extra_items) the index's extra leaves (qr_index_view.extra),
 * each in its own region. Blocks take them in turn (next_ticket,
 * render_kernels.h). An item writes exactly its leaf parts' pixels, so the
 * pixels, and their bytes, do not depend on which block took which item.
 * Returns the next item (the same on every thread). */
__device__ __forceinline__ int next_item(const qr_index_view &v, int regions, int *s_item)
{
    /* the one word of the build a render writes */
    qr_build_scalars *sc = const_cast<qr_build_scalars *>(v.scalars);
    return next_ticket(&sc->render_tickets, regions + sc->extra_items, s_item);
}

/* A kernel's loop over its block's items: with items (qr_render_items),
 * every ticket it takes, else the one region `own`:
 *   for (int k = first_item(v, regions, items, own, &s); k < end_item(v, regions, items);
 *        k = later_item(v, regions, items, &s)) */
__device__ __forceinline__ int first_item(const qr_index_view &v, int regions, int items, int own,
                                          int *s_item)
{
    return items ? next_item(v, regions, s_item) : own;
}
__device__ __forceinline__ int end_item(const qr_index_view &v, int regions, int items)
{
    return regions + (items ? v.scalars->extra_items : 0);
}
__device__ __forceinline__ int later_item(const qr_index_view &v, int regions, int items,
                                          int *s_item)
{
    return items ? next_item(v, regions, s_item) : INT_MAX;
}

/* Item k's region and leaves (first in *first; returns how many): without
 * items, region k and all its leaves; with them, a region's first leaf
 * only, or an extra leaf in its region. */
__device__ __forceinline__ int setup_item(const qr_index_view &v, int regions, int items, int item,
                                          block_setup &b, int32_t *first)
{
    if (!items) return setup_block(v, item, b, first);
    if (item < regions) {
        setup_block(v, item, b, first);
        return 1;
    }
    const int32_t id = v.extra[item - regions];
    const qr_rect r = v.leaves[id].rect;
    const int blocks_x = (v.geom.tiles_x + 1) / 2;
    const int region = (r.y0 - v.geom.region.y0) / RB_SIDE * blocks_x + (r.x0 - v.geom.region.x0) / RB_SIDE;
    setup_block(v, region, b, first);
    *first = id;
    return 1;
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

#endif
