/* cover_count.cu — circles covering each pixel (cover_count.h says why). */
#include "render/cover_count.h"
#include "common/circle_math.h"
#include "common/cuda_check.h"
#include "common/pdl.h"

#define CC_THREADS 256

/* The exact coverage test of the circle sp = (x, y, r*r, r) for a pixel at
 * centre x in a row with dy2 = fl(dy*dy): the reference's qr_dist2 <= r*r. */
__device__ __forceinline__ bool covers(const float4 sp, float x, float dy2)
{
    const float dx = QR_SUB(sp.x, x);
    return QR_ADD(QR_MUL(dx, dx), dy2) <= sp.z;
}

/* One end of a row's covered interval. The exact boundary lies within del
 * of e (in columns); when no integer does, the first covered column past it
 * is ceil(e) (left end) and the last floor(e) (right end), else one exact
 * test at the integer n decides. Returns the left end, or one past the right
 * end. */
__device__ __forceinline__ int span_end(float e, float del, bool left, const float4 sp, float dy2,
                                        float inv_w)
{
    const float n = rintf(e);
    if (fabsf(e - n) > del) return left ? (int)ceilf(e) : (int)floorf(e) + 1;
    const bool in = covers(sp, qr_pixel_center((int)n, inv_w), dy2);
    return left ? (int)n + !in : (int)n + in;
}

/* The covered pixels [a, b) of circle sp in the row at height y, inside its
 * box's columns [x0, x1); empty when a >= b. In a row the covered columns
 * form one interval: fl(dx*dx) grows with |dx| and |dx| is unimodal along
 * the row, all roundings being monotone. Its ends come from a square root,
 * checked with the exact test only where they fall within the float error
 * bound `del` of a pixel centre: 4e-3 columns, plus 1e-6 of the column (the
 * pixel centres' rounding), plus 1e-6 of the half-width (the approximate
 * square root's), plus 1e-6 (rW)^2 / half-width (the rounding of
 * dx*dx + dy*dy near r*r, ten times over). Rows within a column of the
 * circle's top or bottom, where that bound grows, and absurd coordinates are
 * trimmed with the exact test from a widened estimate instead. */
__device__ __forceinline__ int2 covered_span(const float4 sp, int x0, int x1, float y, int width,
                                             float inv_w)
{
    const float dy = QR_SUB(sp.y, y);
    const float dy2 = QR_MUL(dy, dy);
    if (!(dy2 <= sp.z)) return make_int2(0, 0); /* fl(dx*dx + dy2) >= dy2 */
    const float w = (float)width;
    const float h2 = sp.z - dy2, is = rsqrtf(h2);
    const float half = h2 > 0.0f ? h2 * is * w : 0.0f; /* within 3e-7 of it (relative) */
    const float fx = sp.x * w - 0.5f;
    const float rw = sp.w * w;
    int a, b;
    if (half >= 1.0f && fabsf(fx) < 1e6f && rw < 1e5f) {
        const float del = 4e-3f + 1e-6f * (fabsf(fx) + half + rw * rw * is * inv_w);
        a = max(span_end(fx - half, del, true, sp, dy2, inv_w), x0);
        b = min(span_end(fx + half, del, false, sp, dy2, inv_w), x1);
    } else {
        const float slack = 1.0f + 1e-3f * rw;
        const float fa = ceilf(fx - half - slack), fb = floorf(fx + half + slack) + 1.0f;
        a = x0;
        b = x1; /* and so when the estimate is NaN (huge coordinates) */
        if (fa > (float)x0) a = fa >= (float)x1 ? x1 : (int)fa;
        if (fb < (float)x1) b = fb <= (float)x0 ? x0 : (int)fb;
        while (a < b && !covers(sp, qr_pixel_center(a, inv_w), dy2)) a++;
        while (b > a && !covers(sp, qr_pixel_center(b - 1, inv_w), dy2)) b--;
        if (a < b) {
            while (a > x0 && covers(sp, qr_pixel_center(a - 1, inv_w), dy2)) a--;
            while (b < x1 && covers(sp, qr_pixel_center(b, inv_w), dy2)) b++;
        }
    }
    return make_int2(a, b);
}

/* A block counts one tile of CT_H x CT_W pixels (a row of index tiles). It
 * walks the lists of the leaves holding the tile CC_BATCH entries at a time:
 * each thread loads CC_PER entries and queues each in shared memory if its box
 * meets the leaf's part of the tile; then the queue is worked as (circle,
 * row) items, a thread per item, each adding its covered span to a
 * difference row in shared memory. Order does not matter to a count, so the
 * queue needs no scan. Row sums then give N, written once. */
#define CT_H QR_TILE       /* 16: one row of index tiles */
#define CT_W (8 * QR_TILE) /* 128 */

/* List entries per thread per batch, their loads in flight together: four
 * measured 2-3% faster than one on biglittle and rand1M (two in between;
 * dev/frame_timer, H100). */
#define CC_PER 4
#define CC_BATCH (CC_THREADS * CC_PER)

struct cover_queue {
    float4 sp[CC_BATCH]; /* x, y, r*r, r */
    int4 box[CC_BATCH];  /* the box inside the leaf's part: x0, x1, y0, y1 */
    int n;
};

__global__ void __launch_bounds__(CC_THREADS)
k_cover_tiles(qr_index_view v, const float4 *__restrict__ pos, int32_t *__restrict__ counts)
{
    __shared__ int diff[CT_H][CT_W + 1]; /* per row: +1 where a span starts, -1 past its end */
    __shared__ cover_queue q;
    qr_pdl_release(); /* the render may be scheduled now; it waits for the end */
    qr_pdl_wait();    /* the build */
    if (v.scalars->num_pairs > v.capacity) return; /* the build will be redone */
    const qr_tree_geom &g = v.geom;
    const int chunks = (g.tiles_x + CT_W / QR_TILE - 1) / (CT_W / QR_TILE);
    const int tx0 = (blockIdx.x % chunks) * (CT_W / QR_TILE), ty = blockIdx.x / chunks;
    const int bx0 = g.region.x0 + tx0 * QR_TILE, by0 = g.region.y0 + ty * QR_TILE;
    const int bx1 = min(bx0 + CT_W, g.region.x1), by1 = min(by0 + CT_H, g.region.y1);
    for (int k = threadIdx.x; k < CT_H * (CT_W + 1); k += CC_THREADS) (&diff[0][0])[k] = 0;
    const float inv_w = 1.0f / (float)g.width, inv_h = 1.0f / (float)g.height;
    const int my_row = threadIdx.x % CT_H; /* the tile row of this thread's items */

    /* the tile's leaves: along a row of tiles a leaf holds one run of them */
    const int tx_end = min(tx0 + CT_W / QR_TILE, g.tiles_x);
    for (int tx = tx0; tx < tx_end;) {
        const int32_t id = v.tile_leaf[ty * g.tiles_x + tx];
        int run_end = tx + 1;
        while (run_end < tx_end && v.tile_leaf[ty * g.tiles_x + run_end] == id) run_end++;
        const int cx0 = g.region.x0 + tx * QR_TILE, cx1 = min(g.region.x0 + run_end * QR_TILE, bx1);
        tx = run_end;
        const qr_leaf leaf = v.leaves[id];
        const int32_t *list = v.lists + leaf.offset;
        for (int j0 = 0; j0 < leaf.count; j0 += CC_BATCH) {
            if (threadIdx.x == 0) q.n = 0;
            __syncthreads();
            int32_t id[CC_PER];
#pragma unroll
            for (int e = 0; e < CC_PER; e++) {
                const int j = j0 + e * CC_THREADS + threadIdx.x;
                id[e] = j < leaf.count ? list[j] : -1;
            }
#pragma unroll
            for (int e = 0; e < CC_PER; e++) {
                if (id[e] < 0) continue;
                const float4 p = pos[id[e]];
                const qr_pixbox b = qr_circle_pixbox(p.x, p.y, p.w, g.width, g.height);
                const int x0 = max(b.x0, cx0), x1 = min(b.x1, cx1);
                const int y0 = max(b.y0, by0), y1 = min(b.y1, by1);
                if (x0 < x1 && y0 < y1) {
                    const int k = atomicAdd(&q.n, 1);
                    q.sp[k] = make_float4(p.x, p.y, QR_MUL(p.w, p.w), p.w);
                    q.box[k] = make_int4(x0, x1, y0, y1);
                }
            }
            __syncthreads();
            const int n = q.n;
            for (int k = threadIdx.x / CT_H; k < n; k += CC_THREADS / CT_H) {
                const int4 bx = q.box[k];
                const int y = by0 + my_row;
                if (y < bx.z || y >= bx.w) continue;
                const float4 sp = q.sp[k];
                const int2 ab = covered_span(sp, bx.x, bx.y, qr_pixel_center(y, inv_h), g.width, inv_w);
                if (ab.x < ab.y) {
                    atomicAdd(&diff[my_row][ab.x - bx0], 1);
                    atomicAdd(&diff[my_row][ab.y - bx0], -1);
                }
            }
            __syncthreads();
        }
    }

    /* running sums along each row, a warp per row, 4 x 32 columns */
    const int lane = threadIdx.x % 32;
    for (int row = threadIdx.x / 32; row < by1 - by0; row += CC_THREADS / 32) {
        int carry = 0;
#pragma unroll
        for (int k = 0; k < CT_W / 32; k++) {
            int n = diff[row][k * 32 + lane];
            for (int o = 1; o < 32; o <<= 1) {
                const int t = __shfl_up_sync(0xffffffffu, n, o);
                if (lane >= o) n += t;
            }
            const int x = bx0 + k * 32 + lane;
            if (x < bx1) counts[(size_t)(by0 + row) * g.width + x] = n + carry;
            carry += __shfl_sync(0xffffffffu, n, 31);
        }
    }
}

qr_status qr_cover_count(const qr_index_view *v, const float4 *pos, int32_t *counts, cudaStream_t s,
                         int pdl, qr_error *err)
{
    if (!counts) return qr_fail(err, QR_ERR_INVALID, "cover count: no buffer");
    const qr_tree_geom &g = v->geom;
    const int chunks = (g.tiles_x + CT_W / QR_TILE - 1) / (CT_W / QR_TILE);
    QR_CUDA_TRY(err, qr_launch(k_cover_tiles, chunks * g.tiles_y, CC_THREADS, 0, s, pdl, *v, pos, counts));
    return QR_OK;
}
