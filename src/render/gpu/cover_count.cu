/* cover_count.cu — how many circles cover each pixel, on the GPU.
 *
 * Exact mode's alpha is 1 + 0.5 N, N the number of circles whose box holds
 * the pixel and whose exact coverage test passes (the reference's
 * qr_dist2 <= r*r). Windowed exact mode (render_windows.cu) blends only each
 * pixel's last covering circles, so it takes N from here (for alpha, and to
 * choose how long a tail of each list to blend). A block takes a
 * 16 x 128 pixel tile and the lists of the index leaves holding it; for each
 * (circle, row) meeting the tile it computes the covered interval of columns
 * — a square root's estimate of each end, settled by the exact test at the
 * two columns next to it — and adds +1 at its start and -1 past its end in
 * a shared-memory row; running sums of the rows are N. So a
 * circle costs a few operations per row it covers instead of one test per
 * pixel, and the counts are integers: the result does not depend on the
 * order of the additions.
 */
#include "render/gpu/render_kernels.h"
#include "common/circle_math.h"
#include "gpu/cuda_check.h"
#include "gpu/device_limits.h"
#include "gpu/pdl.h"

#include <limits.h>

/* CC_THREADS: gpu/tuning/tuning_default.h */

/* The exact coverage test of the circle sp = (x, y, r*r, .) for a pixel at
 * centre x in a row with dy2 = fl(dy*dy): the reference's qr_dist2 <= r*r. */
__device__ __forceinline__ bool covers(const float4 sp, float x, float dy2)
{
    const float dx = QR_SUB(sp.x, x);
    return QR_ADD(QR_MUL(dx, dx), dy2) <= sp.z;
}

/* Circles up to this radius in columns take covered_span's direct path. */
/* CC_DIRECT_RADIUS: gpu/tuning/tuning_default.h */

/* The covered pixels [a, b) of circle sp = (x, y, r*r, fx) in a row at
 * squared distance dy2 = fl(dy*dy) from its centre (dy2 <= r*r), inside its
 * box's columns [x0, x1); empty when a >= b. fx = x * width - 0.5 is the
 * column whose centre is the circle's. In a row the covered columns form
 * one interval: fl(dx*dx) grows with |dx| and |dx| is unimodal along the
 * row, all roundings being monotone.
 *
 * Direct path: each end is estimated with a square root, and the one column
 * that can lie on either side of it is settled by the exact test: the
 * column nearest the estimate (one test per end, no branch: rows of one
 * warp take the same path). That is exact when the real boundary, rounding
 * included, lies less than half a column from the estimate: any other
 * column is at least half a column from the estimate, so on the side of the
 * boundary the estimate says. The error is far below that here: the exact
 * test moves the real boundary dx^2 = r^2 - dy^2 by the roundings of dx*dx,
 * the sum and r*r, at most 3u r^2 (u = 2^-24), which moves the half-width
 * by at most sqrt(3u) r = 4.2e-4 r columns (its worst, where the half-width
 * is near zero) — under 0.22 for r < 512 columns; dx's own rounding, the pixel
 * centres' and fx's add u |fx| each, under 0.02 for |fx| < 1e5; the
 * approximate reciprocal square root's error is ~1e-7 of the half-width.
 * Column p's centre is fl(inv_w * fl(p + 0.5)) (qr_pixel_center); p + 0.5 is
 * exact in float for these columns, so it is computed from the estimate's
 * float.
 * Other circles (radius 512 columns and more, absurd coordinates, NaN;
 * `direct` false) trim a widened estimate with the exact test instead. */
__device__ __forceinline__ int2 covered_span(const float4 sp, float dy2, bool direct, int x0, int x1,
                                             float w, float inv_w)
{
    const float h2 = sp.z - dy2;
    float is; /* 1 / sqrt(h2), approximate; h2 below 1e-30 is a half-width of 0 */
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(is) : "f"(h2));
    const float half = h2 > 1e-30f ? h2 * is * w : 0.0f;
    if (direct) {
        const float nl = rintf(sp.w - half), nr = rintf(sp.w + half); /* the columns nearest the ends */
        const bool in_l = covers(sp, QR_MUL(inv_w, QR_ADD(nl, 0.5f)), dy2);
        const bool in_r = covers(sp, QR_MUL(inv_w, QR_ADD(nr, 0.5f)), dy2);
        const int a = (int)nl + !in_l, b = (int)nr + in_r;
        return make_int2(max(a, x0), min(b, x1));
    }
    const float slack = 1.0f + 1e-3f * sqrtf(sp.z) * w;
    const float fa = ceilf(sp.w - half - slack), fb = floorf(sp.w + half + slack) + 1.0f;
    int a = x0, b = x1; /* and so when the estimate is NaN (huge coordinates) */
    if (fa > (float)x0) a = fa >= (float)x1 ? x1 : (int)fa;
    if (fb < (float)x1) b = fb <= (float)x0 ? x0 : (int)fb;
    while (a < b && !covers(sp, qr_pixel_center(a, inv_w), dy2)) a++;
    while (b > a && !covers(sp, qr_pixel_center(b - 1, inv_w), dy2)) b--;
    if (a < b) {
        while (a > x0 && covers(sp, qr_pixel_center(a - 1, inv_w), dy2)) a--;
        while (b < x1 && covers(sp, qr_pixel_center(b, inv_w), dy2)) b++;
    }
    return make_int2(a, b);
}

/* A block counts one tile of CT_H x CT_W pixels, a row of eight index tiles
 * (tiles 64 wide measure slower on rand100k, biglittle and littlebig, the
 * same on rand1M). It walks the lists of the leaves holding the tile
 * CC_THREADS entries at a time: each thread loads one, keeps it in its own
 * slot if its box meets the tile and starts (its first column in the tile)
 * in the leaf's part — a circle is in the list of every leaf its
 * box meets, so it is counted once per tile, not once per leaf — and queues
 * one item per tile row of that box; then each thread takes items, one
 * (circle, row) each, and adds the row's covered span to a difference row in
 * shared memory.
 * Items, not circles, go to the threads, so no thread idles on a row the
 * circle does not reach. Order does not matter to a count, so the queue
 * needs no scan. Row sums then give N, written once. */
#define CT_H QR_TILE       /* 16 */
#define CT_W (8 * QR_TILE) /* 128 */

/* A block's list entries per batch, one a thread. 512 threads with one
 * each keep an SM busier than 256 with two (1024² has only 512 tiles, and
 * the larger blocks keep more of the SMs' warp slots in use). */
#define CC_BATCH CC_THREADS

struct cover_queue {
    float4 sp[CC_BATCH];            /* by slot (thread): x, y, r*r, fx (covered_span) */
    ushort2 cols[CC_BATCH];         /* by slot: the box's columns in the tile, tile-relative;
                                       CC_INDIRECT set in .y: not covered_span's direct path */
    uint16_t item[CC_BATCH * CT_H]; /* slot << 4 | tile row */
    int n;                          /* items queued */
    int diff[CT_H][CT_W + 1];       /* per row: +1 where a span starts, -1 past its end */
    float row_y[CT_H];              /* the rows' pixel centres */
};

#define CC_INDIRECT 0x8000u

/* Counts into q.diff the circles of `leaf`'s list that the tile
 * [bx0, bx1) x [by0, by1) takes from this part [cx0, cx1) x [cy0, cy1) of
 * it: those whose box's first pixel in the tile lies in the part (a circle
 * is in the list of every leaf its box meets, so it counts once per tile).
 * Called by the whole block. */
__device__ void count_part(cover_queue &q, const qr_index_view &v, const float4 *__restrict__ pos,
                           const qr_leaf &leaf, int bx0, int by0, int bx1, int by1, int cx0,
                           int cx1, int cy0, int cy1)
{
    const qr_tree_geom &g = v.geom;
    const float w = (float)g.width, inv_w = 1.0f / w;
    const int32_t *list = v.lists + leaf.offset;
    for (int j0 = 0; j0 < leaf.count; j0 += CC_BATCH) {
        if (threadIdx.x == 0) q.n = 0;
        __syncthreads();
        const int j = j0 + threadIdx.x;
        if (j < leaf.count) {
            const float4 p = pos[list[j]];
            const qr_pixbox b = qr_circle_pixbox(p.x, p.y, p.w, g.width, g.height);
            const int x0 = max(b.x0, bx0), x1 = min(b.x1, bx1);
            const int y0 = max(b.y0, by0), y1 = min(b.y1, by1);
            if (x0 >= cx0 && x0 < cx1 && y0 >= cy0 && y0 < cy1 && x0 < x1 && y0 < y1) {
                const int slot = threadIdx.x;
                const float fx = p.x * w - 0.5f;
                const bool direct = p.w * w < CC_DIRECT_RADIUS && fabsf(fx) < 1e5f;
                q.sp[slot] = make_float4(p.x, p.y, QR_MUL(p.w, p.w), fx);
                q.cols[slot] = make_ushort2((unsigned short)(x0 - bx0),
                                            (unsigned short)(x1 - bx0) | (direct ? 0u : CC_INDIRECT));
                const int at = atomicAdd(&q.n, y1 - y0);
                for (int y = y0; y < y1; y++) q.item[at + y - y0] = (uint16_t)(slot << 4 | (y - by0));
            }
        }
        __syncthreads();
        const int n = q.n;
        for (int k = threadIdx.x; k < n; k += CC_THREADS) {
            const int it = q.item[k], slot = it >> 4, row = it & 15;
            const float4 sp = q.sp[slot];
            const float dy = QR_SUB(sp.y, q.row_y[row]);
            const float dy2 = QR_MUL(dy, dy);
            if (!(dy2 <= sp.z)) continue; /* fl(dx*dx + dy2) >= dy2 */
            const ushort2 c = q.cols[slot];
            const int2 ab = covered_span(sp, dy2, !(c.y & CC_INDIRECT), bx0 + c.x,
                                         bx0 + (c.y & ~CC_INDIRECT), w, inv_w);
            if (ab.x < ab.y) {
                atomicAdd(&q.diff[row][ab.x - bx0], 1);
                atomicAdd(&q.diff[row][ab.y - bx0], -1);
            }
        }
        __syncthreads();
    }
}

/* Work items (items: the index may have leaves below a tile): the strips
 * of CT_W x CT_H pixels, less their tiles cut into smaller leaves, then
 * each such leaf (qr_index_view.small), taken in turn (next_ticket); each
 * item writes exactly its own pixels' counts. Without items, a block a
 * strip. */
__global__ void __launch_bounds__(CC_THREADS, QR_MIN_BLOCKS(CC_THREADS, 4))
k_cover_tiles(qr_index_view v, const float4 *__restrict__ pos, int items, int32_t *__restrict__ counts)
{
    static_assert(CC_BATCH <= 4096 && CT_H == 16, "an item packs its slot in 12 bits and its row in 4");
    __shared__ cover_queue q;
    __shared__ int s_item;
    qr_pdl_release(); /* the render may be scheduled now; it waits for the end */
    qr_pdl_wait();    /* the build */
    if (qr_build_redone(v)) return; /* the build will be redone */
    const qr_tree_geom &g = v.geom;
    const int chunks = (g.tiles_x + CT_W / QR_TILE - 1) / (CT_W / QR_TILE);
    const int strips = chunks * g.tiles_y;
    /* the one word of the build the count writes */
    qr_build_scalars *sc = const_cast<qr_build_scalars *>(v.scalars);
    const int total = strips + (items ? sc->small_leaves : 0);
    const size_t plane = (size_t)g.tiles_x * g.tiles_y;
    for (int item = items ? next_ticket(&sc->cover_tickets, total, &s_item) : blockIdx.x; item < total;
         item = items ? next_ticket(&sc->cover_tickets, total, &s_item) : INT_MAX) {
        const int32_t *first_map = NULL, *last_map = NULL;
        int tx0 = 0, bx0, by0, bx1, by1;
        qr_leaf small_leaf;
        if (item < strips) {
            tx0 = (item % chunks) * (CT_W / QR_TILE);
            const int ty = item / chunks;
            bx0 = g.region.x0 + tx0 * QR_TILE;
            by0 = g.region.y0 + ty * QR_TILE;
            bx1 = min(bx0 + CT_W, g.region.x1);
            by1 = min(by0 + CT_H, g.region.y1);
            first_map = v.tile_leaf + (size_t)ty * g.tiles_x;
            last_map = first_map + plane;
        } else {
            small_leaf = v.leaves[v.small[item - strips]];
            bx0 = small_leaf.rect.x0;
            by0 = small_leaf.rect.y0;
            bx1 = small_leaf.rect.x1;
            by1 = small_leaf.rect.y1;
        }
        for (int k = threadIdx.x; k < CT_H * (CT_W + 1); k += CC_THREADS) (&q.diff[0][0])[k] = 0;
        if (threadIdx.x < CT_H) q.row_y[threadIdx.x] = qr_pixel_center(by0 + threadIdx.x, 1.0f / (float)g.height);
        __syncthreads();

        if (!first_map) {
            count_part(q, v, pos, small_leaf, bx0, by0, bx1, by1, bx0, bx1, by0, by1);
        } else {
            /* The strip's leaves: along a row of tiles a leaf holds one run
             * of them, each run a part. A tile cut into smaller leaves (the
             * tile map's planes differ) is left to those leaves' items. */
            const int tx_end = min(tx0 + CT_W / QR_TILE, g.tiles_x);
            for (int tx = tx0; tx < tx_end;) {
                const int32_t id = first_map[tx];
                if (id != last_map[tx]) {
                    tx++;
                    continue;
                }
                int run_end = tx + 1;
                while (run_end < tx_end && first_map[run_end] == id && last_map[run_end] == id) run_end++;
                const int cx0 = g.region.x0 + tx * QR_TILE, cx1 = min(g.region.x0 + run_end * QR_TILE, bx1);
                tx = run_end;
                const qr_leaf leaf = v.leaves[id];
                count_part(q, v, pos, leaf, bx0, by0, bx1, by1, cx0, cx1, by0, by1);
            }
        }
        __syncthreads();

        /* running sums along each row, a warp per row, 32 columns at a time;
         * a strip's cut tiles are their leaves' to write */
        const int lane = threadIdx.x % 32;
        for (int row = threadIdx.x / 32; row < by1 - by0; row += CC_THREADS / 32) {
            int carry = 0;
#pragma unroll
            for (int k = 0; k < CT_W / 32; k++) {
                int n = q.diff[row][k * 32 + lane];
                for (int o = 1; o < 32; o <<= 1) {
                    const int t = __shfl_up_sync(0xffffffffu, n, o);
                    if (lane >= o) n += t;
                }
                const int x = bx0 + k * 32 + lane;
                const int tx = (x - g.region.x0) / QR_TILE;
                if (x < bx1 && !(first_map && first_map[tx] != last_map[tx]))
                    counts[qr_region_pixel(g, x, by0 + row)] = n + carry;
                carry += __shfl_sync(0xffffffffu, n, 31);
            }
        }
    }
}

qr_status qr_launch_cover_count(const qr_cover_count_args *a, cudaStream_t s, int pdl,
                                qr_error *err)
{
    const qr_index_view *v = a->view;
    const float4 *pos = a->pos;
    int32_t *counts = a->counts;
    if (!counts) return qr_fail(err, QR_ERR_INVALID, "cover count: no buffer");
    const qr_tree_geom &g = v->geom;
    const int chunks = (g.tiles_x + CT_W / QR_TILE - 1) / (CT_W / QR_TILE);
    /* with leaves below a tile, work items: as many blocks as stay resident */
    const int items = g.cell < QR_TILE;
    const int blocks = items ? QR_MIN_BLOCKS(CC_THREADS, 4) * qr_device_sms() : chunks * g.tiles_y;
    QR_CUDA_TRY(err, qr_launch(k_cover_tiles, blocks, CC_THREADS, 0, s, pdl, *v, pos, items, counts));
    return QR_OK;
}
