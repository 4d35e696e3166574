/* query_gpu.cu — point and box queries on the GPU (quadrender/gpu_query.h).
 *
 * The index is the GPU quadtree (quadtree/gpu) built over the widened
 * scene (query_internal.h), the same tree as the host query index's; the
 * kernels read it through its view: leaves, lists and the tile map.
 *
 *   points  k_point_leaf: each point's leaf (tile map; a tile cut into
 *           smaller leaves holds the depth-first run between its first
 *           and last, tested by rectangle), or "none" for points outside
 *           the square; CUB's radix sort of (leaf, point), so that a
 *           block's points share one or two leaves; k_point_test: a block
 *           over a run of sorted points stages each of its leaves' lists
 *           through shared memory, every thread testing its point (TOP
 *           from the end, until each has its hit), answering at the
 *           point's own place. ALL counts into offsets[1..n], scans them
 *           (CUB, 64-bit) and tests again, writing.
 *   boxes   k_box_pairs: a warp a box lists the leaves under it, each
 *           once (from the tile holding the bottom-left cell of its overlap
 *           with the box), as (box, leaf) pairs grouped by leaf;
 *           k_box_test: a block a leaf stages the leaf's circles in shared
 *           memory once for all its boxes, a warp a pair testing them, each
 *           circle reported once (by the leaf holding the bottom-left cell
 *           of its widened box's overlap with the box's cells), as query.c
 *           does. ALL marks the hits as bits and counts, scans, then
 *           k_box_emit writes them, and k_box_order puts each box's circles
 *           in drawing order: they are a few ascending runs (a leaf's list
 *           is in drawing order), merged by rank in shared memory; the rare
 *           box too large for it goes to CUB's segmented sort. A batch of
 *           too many pairs goes a warp a box instead (k_box).
 *   brute   k_point_brute: every circle against every point, circles
 *           staged through shared memory a block-load at a time.
 */
#include <cub/cub.cuh>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cuda_check.h"
#include "quadrender/gpu.h"
#include "quadrender/gpu_query.h"
#include "quadrender/memory.h"
#include "quadrender/gpu_index.h"
#include "quadrender/gpu_scene.h"
#include "quadtree/gpu/frame.h"
#include "quadtree/gpu/index_gpu.h"
#include "quadtree/gpu/quadtree_gpu.h"
#include "query/query_internal.h"
#include "query/query_math.h"

#define QT_THREADS 256

/* The query object's buffers, grown as queries need. B_BOX_PAIRS to
 * B_MASK: the boxes' (box, leaf) pairs (k_box_pairs) and ALL's hit bits. */
enum {
    B_KEYS, B_VALS, B_SORT_TMP, B_VALUES, B_OFFSETS, B_IDS, B_IDS2, B_BAD,
    B_BOX_PAIRS, B_LEAF_START, B_LEAF_FILL, B_LEAF_PAIRS, B_PAIR_BOX, B_PAIR_HITS, B_PAIR_OUT,
    B_LEAF_WORDS, B_MASK, B_COUNT
};

struct qr_gpu_query {
    int32_t res, n;
    qr_index_params params;
    qr_gpu_scene *widened;   /* what the tree is built over */
    qr_gpu_index *ix;
    float4 *circles;         /* (x, y, r, 0) a circle: what the queries test */
    qr_index_view view;      /* the last build's */
    int32_t num_leaves;
    long long last_total;    /* the last ALL answer's circles */
    long long pairs_max;     /* boxes: the most (box, leaf) pairs a batch lists */
    qr_frame frame;          /* the builds, kept: its graph replays a rebuild */
    int frame_ready;
    cudaStream_t stream;     /* the frame's: builds and queries in order */
    cudaEvent_t t0, t1;
    /* buffers, grown as queries need */
    void *buf[B_COUNT];
    size_t cap[B_COUNT];
};


static qr_status grow(qr_gpu_query *q, int which, size_t bytes, qr_error *err)
{
    if (bytes <= q->cap[which]) return QR_OK;
    cudaFree(q->buf[which]);
    q->buf[which] = NULL;
    q->cap[which] = 0;
    bytes += bytes / 8;
    cudaError_t e = cudaMalloc(&q->buf[which], bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return qr_fail(err, qr_cuda_status(e), "out of GPU memory: the queries need %zu bytes more",
                       bytes);
    }
    q->cap[which] = bytes;
    return QR_OK;
}

/* ---- kernels ----------------------------------------------------------------- */

/* The leaf holding cell (cx, cy), through the tile map. */
__device__ __forceinline__ int32_t cell_leaf(const qr_index_view &v, int32_t num_leaves, int cx, int cy)
{
    if (num_leaves == 1) return 0;
    const qr_tree_geom &g = v.geom;
    const size_t t = (size_t)(cy / QR_TILE) * g.tiles_x + cx / QR_TILE;
    int32_t a = v.tile_leaf[t];
    const int32_t b = v.tile_leaf[(size_t)g.tiles_x * g.tiles_y + t];
    for (; a < b; a++) {
        const qr_rect r = v.leaves[a].rect;
        if (cx >= r.x0 && cx < r.x1 && cy >= r.y0 && cy < r.y1) break;
    }
    return a;
}

__global__ void k_point_leaf(qr_index_view v, int32_t num_leaves, int res, const float *__restrict__ xy,
                             int64_t n, int32_t *__restrict__ keys, int32_t *__restrict__ vals)
{
    const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    const float x = xy[2 * p], y = xy[2 * p + 1];
    keys[p] = qr_query_in_square(x, y) && num_leaves > 0
                  ? cell_leaf(v, num_leaves, qr_query_cell(x, res), qr_query_cell(y, res))
                  : num_leaves;
    vals[p] = (int32_t)p;
}

/* A block over QT_THREADS consecutive points in leaf order (most of them
 * in one or two leaves): it stages each of its leaves' lists through
 * shared memory QT_THREADS circles at a time, which every thread whose
 * point lies in that leaf tests (TOP from the list's end, the block going
 * on while any of them has not found its circle). MODE: TOP, COUNT, ALL
 * (count into offsets[p + 1]) or ALL + 1 (write the ids, in list order). */
template <int MODE>
__global__ void __launch_bounds__(QT_THREADS) k_point_test(qr_index_view v, int32_t num_leaves,
                                                          const float4 *__restrict__ circles,
                                                          const float *__restrict__ xy, int64_t n,
                                                          const int32_t *__restrict__ keys,
                                                          const int32_t *__restrict__ vals,
                                                          int32_t *__restrict__ values,
                                                          long long *__restrict__ offsets,
                                                          int32_t *__restrict__ ids)
{
    __shared__ float4 sc[QT_THREADS];
    __shared__ int32_t sid[QT_THREADS];
    __shared__ int32_t s_next;
    const int tid = threadIdx.x;
    const int64_t s = (int64_t)blockIdx.x * QT_THREADS + tid;
    const int valid = s < n;
    const int32_t leaf = valid ? keys[s] : INT32_MAX;
    const int32_t p = valid ? vals[s] : 0;
    const float x = valid ? xy[2 * (int64_t)p] : 0.0f, y = valid ? xy[2 * (int64_t)p + 1] : 0.0f;
    int32_t count = 0, top = -1;
    int32_t *out = MODE == QR_QUERY_ALL + 1 && valid ? ids + offsets[p] : NULL;
    int32_t l = keys[(int64_t)blockIdx.x * QT_THREADS]; /* the block's first (least) leaf */
    while (l < num_leaves) {
        const qr_leaf L = v.leaves[l];
        const int32_t *list = v.lists + L.offset;
        const int mine = leaf == l;
        if (MODE == QR_QUERY_TOP) {
            for (int32_t end = L.count; end > 0; end -= QT_THREADS) {
                const int32_t first = end > QT_THREADS ? end - QT_THREADS : 0, m = end - first;
                __syncthreads();
                if (tid < m) {
                    const int32_t i = list[first + tid];
                    sc[tid] = circles[i];
                    sid[tid] = i;
                }
                __syncthreads();
                if (mine && top < 0)
                    for (int k = m - 1; k >= 0; k--) {
                        const float4 c = sc[k];
                        if (qr_query_covers(c.x, c.y, c.z, x, y)) {
                            top = sid[k];
                            break;
                        }
                    }
                if (!__syncthreads_or(mine && top < 0)) break;
            }
        } else {
            for (int32_t first = 0; first < L.count; first += QT_THREADS) {
                const int32_t m = L.count - first < QT_THREADS ? L.count - first : QT_THREADS;
                __syncthreads();
                if (tid < m) {
                    const int32_t i = list[first + tid];
                    sc[tid] = circles[i];
                    sid[tid] = i;
                }
                __syncthreads();
                if (mine)
                    for (int k = 0; k < m; k++) {
                        const float4 c = sc[k];
                        if (qr_query_covers(c.x, c.y, c.z, x, y)) {
                            if (MODE == QR_QUERY_ALL + 1) out[count] = sid[k];
                            count++;
                        }
                    }
            }
        }
        /* the block's next leaf: the least key past l */
        __syncthreads();
        if (tid == 0) s_next = INT32_MAX;
        __syncthreads();
        if (leaf > l && leaf != INT32_MAX) atomicMin(&s_next, leaf);
        __syncthreads();
        l = s_next;
    }
    if (!valid) return;
    if (MODE == QR_QUERY_TOP) values[p] = top;
    if (MODE == QR_QUERY_COUNT) values[p] = count;
    if (MODE == QR_QUERY_ALL) offsets[p + 1] = count;
}

/* The lowest index of a bad box (query_internal.h's rules) into *bad. */
__global__ void k_box_check(const float *__restrict__ boxes, int64_t n, unsigned long long *bad)
{
    const int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n) return;
    const float *b = boxes + 4 * q;
    if (!(b[0] <= b[2]) || !(b[1] <= b[3]) || b[0] != b[0] || b[1] != b[1] || b[2] != b[2] || b[3] != b[3])
        atomicMin(bad, (unsigned long long)q);
}

/* A warp a box: its lanes share the box's leaves, 32 list entries a step;
 * MODE as k_point_test's. ALL + 1 writes the box's circles leaf after leaf
 * (each leaf's in drawing order; the caller sorts each box's run). */
template <int MODE>
__global__ void k_box(qr_index_view v, int32_t num_leaves, int res, const float4 *__restrict__ circles,
                      const float *__restrict__ boxes, int64_t n, int32_t *__restrict__ values,
                      long long *__restrict__ offsets, int32_t *__restrict__ ids)
{
    const int64_t q = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (q >= n) return;
    float c[4];
    int32_t count = 0, top = -1;
    int32_t *out = MODE == QR_QUERY_ALL + 1 ? ids + offsets[q] : NULL;
    if (qr_query_clip_box(boxes + 4 * q, c) && num_leaves > 0) {
        const int cx0 = qr_query_cell(c[0], res), cx1 = qr_query_cell(c[2], res);
        const int cy0 = qr_query_cell(c[1], res), cy1 = qr_query_cell(c[3], res);
        const qr_tree_geom &g = v.geom;
        for (int ty = cy0 / QR_TILE; ty <= cy1 / QR_TILE; ty++)
            for (int tx = cx0 / QR_TILE; tx <= cx1 / QR_TILE; tx++) {
                const size_t t = (size_t)ty * g.tiles_x + tx;
                const int32_t a = num_leaves == 1 ? 0 : v.tile_leaf[t];
                const int32_t b = num_leaves == 1 ? 0 : v.tile_leaf[(size_t)g.tiles_x * g.tiles_y + t];
                for (int32_t l = a; l <= b; l++) {
                    const qr_leaf L = v.leaves[l];
                    if (L.rect.x0 > cx1 || L.rect.x1 <= cx0 || L.rect.y0 > cy1 || L.rect.y1 <= cy0)
                        continue; /* a small leaf of the tile outside the box */
                    const int ox = L.rect.x0 > cx0 ? L.rect.x0 : cx0;
                    const int oy = L.rect.y0 > cy0 ? L.rect.y0 : cy0;
                    if (ox / QR_TILE != tx || oy / QR_TILE != ty) continue; /* another tile's */
                    const int32_t *list = v.lists + L.offset;
                    for (int32_t k0 = 0; k0 < L.count; k0 += 32) {
                        const int32_t k = k0 + lane;
                        int hit = 0, i = -1;
                        if (k < L.count) {
                            i = list[k];
                            const float4 ci = circles[i];
                            const qr_pixbox bx = qr_circle_pixbox(ci.x, ci.y, qr_query_widen(ci.z, res), res, res);
                            const int px = bx.x0 > cx0 ? bx.x0 : cx0, py = bx.y0 > cy0 ? bx.y0 : cy0;
                            /* reported by the leaf holding its overlap's corner, once */
                            hit = px >= L.rect.x0 && px < L.rect.x1 && py >= L.rect.y0 && py < L.rect.y1 &&
                                  qr_query_touches(ci.x, ci.y, ci.z, c);
                        }
                        const unsigned m = __ballot_sync(0xffffffffu, hit);
                        if (MODE == QR_QUERY_ALL + 1 && hit) out[count + __popc(m & ((1u << lane) - 1u))] = i;
                        count += __popc(m);
                        if (hit) top = i > top ? i : top;
                    }
                }
            }
    }
    if (MODE == QR_QUERY_TOP) {
        for (int o = 16; o > 0; o /= 2) {
            const int32_t other = __shfl_down_sync(0xffffffffu, top, o);
            top = other > top ? other : top;
        }
    }
    if (lane) return;
    if (MODE == QR_QUERY_TOP) values[q] = top;
    if (MODE == QR_QUERY_COUNT) values[q] = count;
    if (MODE == QR_QUERY_ALL) offsets[q + 1] = count;
}

/* ---- boxes through (box, leaf) pairs ------------------------------------------
 * A box of side 0.01 over rand1M meets about three leaves of a thousand
 * circles each, and each leaf some sixteen boxes: a warp a box gathers every
 * circle of its leaves from memory, sixteen times a leaf in all. Here the
 * boxes' (box, leaf) pairs are listed first, grouped by leaf, and a block a
 * leaf stages the leaf's circles in shared memory once for all its boxes. */

/* The most pairs a batch of boxes lists (qr_gpu_query.pairs_max); past it
 * the warp-a-box kernel (k_box) answers, with no memory for pairs. */
#define QB_PAIRS_MAX ((long long)1 << 24)
/* ALL: the most words of hit bits (k_box_test) a batch keeps; past it,
 * the warp-a-box kernel too. */
#define QB_MASK_MAX ((long long)1 << 28)

/* A warp a box: the leaves it meets, each once (k_box's rule), counted
 * (WRITE 0: box_pairs[q + 1] = how many, leaf_fill[l] += 1 each) or listed
 * (WRITE 1: the box's j-th pair is p = box_pairs[q] + j, pair_box[p] = q, and
 * p goes into leaf l's part of leaf_pairs, from leaf_start[l]). */
template <int WRITE>
__global__ void k_box_pairs(qr_index_view v, int32_t num_leaves, int res, const float *__restrict__ boxes,
                            int64_t n, long long *__restrict__ box_pairs, int32_t *__restrict__ leaf_fill,
                            const int32_t *__restrict__ leaf_start, int32_t *__restrict__ leaf_pairs,
                            int32_t *__restrict__ pair_box)
{
    const int64_t q = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (q >= n) return;
    float c[4];
    long long j = 0;
    const long long base = WRITE ? box_pairs[q] : 0;
    if (qr_query_clip_box(boxes + 4 * q, c) && num_leaves > 0) {
        const int cx0 = qr_query_cell(c[0], res), cx1 = qr_query_cell(c[2], res);
        const int cy0 = qr_query_cell(c[1], res), cy1 = qr_query_cell(c[3], res);
        const qr_tree_geom &g = v.geom;
        const int tx0 = cx0 / QR_TILE, ty0 = cy0 / QR_TILE, nx = cx1 / QR_TILE - tx0 + 1;
        const int tiles = nx * (cy1 / QR_TILE - ty0 + 1);
        for (int t0 = 0; t0 < tiles; t0 += 32) {
            const int k = t0 + lane, tx = tx0 + k % nx, ty = ty0 + k / nx;
            int32_t l = 0, last = -1;
            if (k < tiles) {
                const size_t t = (size_t)ty * g.tiles_x + tx;
                l = num_leaves == 1 ? 0 : v.tile_leaf[t];
                last = num_leaves == 1 ? 0 : v.tile_leaf[(size_t)g.tiles_x * g.tiles_y + t];
            }
            for (;; l++) {
                const bool live = l <= last;
                if (!__any_sync(0xffffffffu, live)) break;
                bool hit = false;
                if (live) {
                    const qr_rect r = v.leaves[l].rect;
                    const int ox = r.x0 > cx0 ? r.x0 : cx0, oy = r.y0 > cy0 ? r.y0 : cy0;
                    hit = !(r.x0 > cx1 || r.x1 <= cx0 || r.y0 > cy1 || r.y1 <= cy0) && ox / QR_TILE == tx &&
                          oy / QR_TILE == ty;
                }
                const unsigned m = __ballot_sync(0xffffffffu, hit);
                if (hit) {
                    if (!WRITE) {
                        atomicAdd(&leaf_fill[l], 1);
                    } else {
                        const long long p = base + j + __popc(m & ((1u << lane) - 1u));
                        pair_box[p] = (int32_t)q;
                        leaf_pairs[leaf_start[l] + atomicAdd(&leaf_fill[l], 1)] = (int32_t)p;
                    }
                }
                j += __popc(m);
            }
        }
    }
    if (!WRITE && lane == 0) box_pairs[q + 1] = j;
}

/* A block a leaf: the leaf's circles staged in shared memory QB_STAGE at a
 * time (the circle, its id, and the bottom-left cell of its widened box),
 * a warp a pair of the leaf's tested against them as k_box tests. What a
 * pair has found so far is kept in hits[p] between stagings; at the end TOP
 * and COUNT fold it into the box's value (atomicMax, atomicAdd: the same
 * whatever the order), ALL keeps the count in hits[p] and the hits
 * themselves as bits, a word per 32 list entries: the leaf's pairs' words
 * from mask + leaf_words[l], a pair's after the one before (k_box_emit
 * writes them). */
#define QB_STAGE 1536
template <int MODE>
__global__ void __launch_bounds__(QT_THREADS)
    k_box_test(qr_index_view v, int res, const float4 *__restrict__ circles, const float *__restrict__ boxes,
               const int32_t *__restrict__ leaf_start, const int32_t *__restrict__ leaf_pairs,
               const int32_t *__restrict__ pair_box, long long *__restrict__ hits,
               const long long *__restrict__ leaf_words, unsigned *__restrict__ mask, int32_t *__restrict__ values)
{
    __shared__ float4 sc[QB_STAGE];
    __shared__ int2 sb[QB_STAGE];
    const int32_t l = blockIdx.x, s = leaf_start[l], e = leaf_start[l + 1];
    if (s == e) return;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const qr_leaf L = v.leaves[l];
    const int32_t *list = v.lists + L.offset;
    int32_t b0 = 0;
    do { /* once at least: a leaf of no circles still answers its pairs */
        const int nb = L.count - b0 < QB_STAGE ? L.count - b0 : QB_STAGE;
        __syncthreads();
        for (int k = threadIdx.x; k < nb; k += QT_THREADS) {
            const int32_t i = list[b0 + k];
            const float4 ci = circles[i];
            const qr_pixbox bx = qr_circle_pixbox(ci.x, ci.y, qr_query_widen(ci.z, res), res, res);
            sc[k] = make_float4(ci.x, ci.y, ci.z, __int_as_float(i));
            sb[k] = make_int2(bx.x0, bx.y0);
        }
        __syncthreads();
        const bool last = b0 + nb == L.count;
        for (int32_t j = s + warp; j < e; j += QT_THREADS / 32) {
            const int32_t p = leaf_pairs[j], q = pair_box[p];
            float c[4];
            qr_query_clip_box(boxes + 4 * (int64_t)q, c); /* not empty: the box has this pair */
            const int cx0 = qr_query_cell(c[0], res), cy0 = qr_query_cell(c[1], res);
            long long found = b0 ? hits[p] : (MODE == QR_QUERY_TOP ? -1 : 0);
            unsigned *bits = MODE == QR_QUERY_ALL
                                 ? mask + leaf_words[l] + (long long)(j - s) * ((L.count + 31) / 32) + b0 / 32
                                 : NULL;
            for (int k0 = 0; k0 < nb; k0 += 32) {
                const int k = k0 + lane;
                int hit = 0;
                float4 ci = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                if (k < nb) {
                    ci = sc[k];
                    const int2 b = sb[k];
                    const int px = b.x > cx0 ? b.x : cx0, py = b.y > cy0 ? b.y : cy0;
                    /* reported by the leaf holding its overlap's corner, once */
                    hit = px >= L.rect.x0 && px < L.rect.x1 && py >= L.rect.y0 && py < L.rect.y1 &&
                          qr_query_touches(ci.x, ci.y, ci.z, c);
                }
                const unsigned m = __ballot_sync(0xffffffffu, hit);
                if (MODE == QR_QUERY_TOP) {
                    if (m) found = __shfl_sync(0xffffffffu, __float_as_int(ci.w), 31 - __clz(m));
                } else {
                    if (MODE == QR_QUERY_ALL && lane == 0) bits[k0 / 32] = m;
                    found += __popc(m);
                }
            }
            if (lane) continue;
            if (!last) hits[p] = found;
            else if (MODE == QR_QUERY_TOP) atomicMax(&values[q], (int32_t)found);
            else if (MODE == QR_QUERY_COUNT) atomicAdd(&values[q], (int32_t)found);
            else if (MODE == QR_QUERY_ALL) hits[p] = found;
        }
    } while ((b0 += QB_STAGE) < L.count);
}

/* ALL's second pass, a block a leaf and a warp a pair: the hits
 * k_box_test<ALL> marked, written from pair_out[p] on in list order; the
 * list is read again, nothing tested. */
__global__ void __launch_bounds__(QT_THREADS)
    k_box_emit(qr_index_view v, const int32_t *__restrict__ leaf_start, const int32_t *__restrict__ leaf_pairs,
               const long long *__restrict__ leaf_words, const unsigned *__restrict__ mask,
               const long long *__restrict__ pair_out, int32_t *__restrict__ ids)
{
    const int32_t l = blockIdx.x, s = leaf_start[l], e = leaf_start[l + 1];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const qr_leaf L = v.leaves[l];
    const int32_t *list = v.lists + L.offset;
    const int words = (L.count + 31) / 32;
    for (int32_t j = s + warp; j < e; j += QT_THREADS / 32) {
        const unsigned *bits = mask + leaf_words[l] + (long long)(j - s) * words;
        int32_t *out = ids + pair_out[leaf_pairs[j]];
        long long found = 0;
#pragma unroll 4
        for (int c = 0; c < words; c++) {
            const unsigned m = bits[c];
            if ((m >> lane) & 1u) out[found + __popc(m & ((1u << lane) - 1u))] = list[32 * c + lane];
            found += __popc(m);
        }
    }
}

/* ALL: the mask words of leaf l's pairs, words[l] (summed afterwards). */
__global__ void k_leaf_words(qr_index_view v, const int32_t *__restrict__ leaf_pairs_count, int32_t nl,
                             long long *__restrict__ words)
{
    const int32_t l = blockIdx.x * blockDim.x + threadIdx.x;
    if (l < nl) words[l] = (long long)leaf_pairs_count[l] * ((v.leaves[l].count + 31) / 32);
}

/* ALL: box q's circles start where its first pair's do. */
__global__ void k_box_offsets(const long long *__restrict__ box_pairs, const long long *__restrict__ pair_out,
                              int64_t n, long long *__restrict__ offsets)
{
    const int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q <= n) offsets[q] = pair_out[box_pairs[q]];
}

/* ALL's last step: each box's circles, as written (pair after pair, or leaf
 * after leaf, each in drawing order), into drawing order. They are a few
 * ascending runs, and a box's circles are distinct. A block a box stages
 * them in shared memory, finds the runs (a run starts where a circle is
 * less than the one before it) and writes each circle at its rank: its
 * place in its own run plus, in every other run, how many are less (a
 * binary search). A box of more than QB_ORDER_CAP circles or QB_ORDER_RUNS
 * runs is left to the caller's segmented sort: seg_begin/seg_end get its
 * [begin, end) (empty for the others) and *hard counts it. */
#define QB_ORDER_THREADS 128
#define QB_ORDER_CAP 3008
#define QB_ORDER_RUNS 16

__global__ void __launch_bounds__(QB_ORDER_THREADS)
    k_box_order(const long long *__restrict__ offsets, const int32_t *__restrict__ unsorted,
                int32_t *__restrict__ ids, long long *__restrict__ seg_begin, long long *__restrict__ seg_end,
                unsigned long long *hard)
{
    __shared__ int32_t s[QB_ORDER_CAP];
    __shared__ int32_t st[QB_ORDER_RUNS + 1]; /* the runs' starts, then the end */
    __shared__ int32_t starts;                /* runs found past the first */
    const int64_t q = blockIdx.x;
    const int tid = threadIdx.x;
    const long long o0 = offsets[q], o1 = offsets[q + 1];
    const int len = o1 - o0 <= QB_ORDER_CAP ? (int)(o1 - o0) : 0;
    if (tid == 0) starts = 0;
#pragma unroll 4
    for (int i = tid; i < len; i += QB_ORDER_THREADS) s[i] = unsorted[o0 + i];
    __syncthreads();
    for (int i = tid + 1; i < len; i += QB_ORDER_THREADS)
        if (s[i] < s[i - 1]) {
            const int k = atomicAdd(&starts, 1);
            if (k + 1 < QB_ORDER_RUNS) st[k + 1] = i;
        }
    __syncthreads();
    const int runs = 1 + starts;
    const bool easy = o1 - o0 <= QB_ORDER_CAP && runs <= QB_ORDER_RUNS;
    if (tid == 0) {
        seg_begin[q] = o0;
        seg_end[q] = easy ? o0 : o1;
        if (!easy) {
            atomicAdd(hard, 1ull);
        } else {
            st[0] = 0; /* the starts in order (found in any) */
            for (int a = 2; a < runs; a++)
                for (int b = a; b > 1 && st[b] < st[b - 1]; b--) {
                    const int32_t t = st[b];
                    st[b] = st[b - 1];
                    st[b - 1] = t;
                }
            st[runs] = len;
        }
    }
    if (!easy) return;
    __syncthreads();
    int32_t *out = ids + o0;
    for (int i = tid; i < len; i += QB_ORDER_THREADS) {
        const int32_t x = s[i];
        int pos = i;
        for (int r = 0; r < runs; r++) {
            const int a = st[r], b = st[r + 1];
            if (i >= a && i < b) {
                pos -= a; /* its place in its own run */
                continue;
            }
            int lo = a, hi = b; /* how many of run r are less */
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (s[mid] < x) lo = mid + 1;
                else hi = mid;
            }
            pos += lo - a;
        }
        out[pos] = x;
    }
}

template <int MODE>
__global__ void __launch_bounds__(QT_THREADS) k_point_brute(const float4 *__restrict__ circles, int32_t nc,
                                                           const float *__restrict__ xy, int64_t n,
                                                           int32_t *__restrict__ values)
{
    __shared__ float4 sc[QT_THREADS];
    const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    float x = 2.0f, y = 2.0f;
    if (p < n) x = xy[2 * p], y = xy[2 * p + 1];
    const int in = qr_query_in_square(x, y);
    int32_t count = 0, top = -1;
    for (int32_t base = 0; base < nc; base += QT_THREADS) {
        __syncthreads();
        if (base + (int)threadIdx.x < nc) sc[threadIdx.x] = circles[base + threadIdx.x];
        __syncthreads();
        const int m = nc - base < QT_THREADS ? nc - base : QT_THREADS;
        if (!in) continue;
        for (int k = 0; k < m; k++) {
            const float4 c = sc[k];
            if (qr_query_covers(c.x, c.y, c.z, x, y)) {
                count++;
                top = base + k;
            }
        }
    }
    if (p < n) values[p] = MODE == QR_QUERY_TOP ? top : count;
}

__global__ void k_pack_circles(const float *__restrict__ x, const float *__restrict__ y,
                               const float *__restrict__ r, int32_t n, float4 *__restrict__ out)
{
    const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = make_float4(x[i], y[i], r[i], 0.0f);
}

/* ---- the object ---------------------------------------------------------------- */

static unsigned blocks_for(int64_t n)
{
    return (unsigned)((n + QT_THREADS - 1) / QT_THREADS);
}

extern "C" qr_status qr_gpu_query_rebuild(qr_gpu_query *q, qr_error *err)
{
    const qr_frame_build b = {q->ix, q->widened, q->res, q->res, NULL, &q->params, QR_RENDER_EXACT};
    qr_status st = qr_frame_run(&q->frame, &b, NULL, err);
    if (st != QR_OK) return st;
    long long pairs;
    q->view = qr_gpu_index_last_view(q->ix, &q->num_leaves, &pairs);
    return QR_OK;
}

extern "C" qr_status qr_gpu_query_create(const qr_scene *scene, int32_t resolution,
                                         const qr_index_params *params, qr_gpu_query **out,
                                         qr_error *err)
{
    *out = NULL;
    int32_t res;
    qr_index_params p;
    qr_status st = qr_query_setup(scene, resolution, params, &res, &p, err);
    if (st != QR_OK) return st;
    if ((st = qr_gpu_probe(NULL, err)) != QR_OK) return st;
    qr_gpu_query *q = (qr_gpu_query *)calloc(1, sizeof *q);
    if (!q) return qr_fail(err, QR_ERR_NOMEM, "out of memory: the GPU query object");
    q->res = res;
    q->n = scene->n;
    q->params = p;
    q->pairs_max = QB_PAIRS_MAX;
    qr_scene *w = NULL;
    if ((st = qr_frame_init(&q->frame, err)) != QR_OK) goto fail;
    q->frame_ready = 1;
    q->stream = q->frame.stream;
    QR_CUDA_GOTO(err, st, fail, cudaEventCreate(&q->t0));
    QR_CUDA_GOTO(err, st, fail, cudaEventCreate(&q->t1));
    if ((st = qr_query_widened_scene(scene, res, &w, err)) != QR_OK) goto fail;
    st = qr_gpu_scene_create(w, &q->widened, err);
    qr_scene_destroy(w);
    if (st != QR_OK) goto fail;
    if ((st = qr_gpu_index_create(&q->ix, err)) != QR_OK) goto fail;
    QR_CUDA_GOTO(err, st, fail, cudaMalloc(&q->circles, (size_t)(scene->n > 0 ? scene->n : 1) * sizeof(float4)));
    if (scene->n > 0) {
        /* the real radii: the widened scene's centres, the scene's radii */
        float *r = NULL;
        QR_CUDA_GOTO(err, st, fail, cudaMalloc(&r, (size_t)scene->n * sizeof(float)));
        cudaError_t e = cudaMemcpy(r, scene->r, (size_t)scene->n * sizeof(float), cudaMemcpyHostToDevice);
        if (e == cudaSuccess) {
            k_pack_circles<<<blocks_for(scene->n), QT_THREADS, 0, q->stream>>>(q->widened->x, q->widened->y, r,
                                                                scene->n, q->circles);
            e = cudaGetLastError();
        }
        if (e == cudaSuccess) e = cudaStreamSynchronize(q->stream);
        cudaFree(r);
        QR_CUDA_GOTO(err, st, fail, e);
    }
    if ((st = qr_gpu_query_rebuild(q, err)) != QR_OK) goto fail;
    for (;;) { /* coarser where splits only multiplied the pairs, as the host's */
        int32_t leaves;
        long long pairs;
        qr_gpu_index_last_view(q->ix, &leaves, &pairs);
        if (!qr_query_coarser(pairs, qr_gpu_index_visible(q->ix), res, &q->params)) break;
        if ((st = qr_gpu_query_rebuild(q, err)) != QR_OK) goto fail;
    }
    *out = q;
    return QR_OK;
fail:
    qr_gpu_query_destroy(q);
    return st;
}

extern "C" void qr_gpu_query_destroy(qr_gpu_query *q)
{
    if (!q) return;
    if (q->frame_ready) qr_frame_release(&q->frame); /* waits for its work first */
    for (int k = 0; k < B_COUNT; k++) cudaFree(q->buf[k]);
    cudaFree(q->circles);
    qr_gpu_index_destroy(q->ix);
    qr_gpu_scene_destroy(q->widened);
    if (q->t0) cudaEventDestroy(q->t0);
    if (q->t1) cudaEventDestroy(q->t1);
    free(q);
}

extern "C" void qr_gpu_query_set_pairs_max(qr_gpu_query *q, long long pairs)
{
    q->pairs_max = pairs;
}

extern "C" int32_t qr_gpu_query_resolution(const qr_gpu_query *q)
{
    return q->res;
}

/* ALL's second half: offsets[0] = 0, offsets[1..n] summed in place; the
 * ids buffer sized to the total (read back). */
static qr_status scan_offsets(qr_gpu_query *q, int64_t n, long long *total, qr_error *err)
{
    long long *off = (long long *)q->buf[B_OFFSETS];
    size_t tmp = 0;
    QR_CUDA_TRY(err, cub::DeviceScan::InclusiveSum(NULL, tmp, off + 1, off + 1, n, q->stream));
    qr_status st = grow(q, B_SORT_TMP, tmp, err);
    if (st != QR_OK) return st;
    tmp = q->cap[B_SORT_TMP];
    QR_CUDA_TRY(err, cub::DeviceScan::InclusiveSum(q->buf[B_SORT_TMP], tmp, off + 1, off + 1, n, q->stream));
    QR_CUDA_TRY(err, cudaMemcpyAsync(total, off + n, sizeof *total, cudaMemcpyDeviceToHost, q->stream));
    QR_CUDA_TRY(err, cudaStreamSynchronize(q->stream));
    q->last_total = *total;
    return grow(q, B_IDS, (size_t)(*total > 0 ? *total : 1) * sizeof(int32_t), err);
}

static qr_status finish(qr_gpu_query *q, int64_t n, qr_query_mode mode, qr_query_result *out,
                        qr_error *err)
{
    if (mode == QR_QUERY_ALL && n == 0) q->last_total = 0;
    QR_CUDA_TRY(err, cudaEventRecord(q->t1, q->stream));
    QR_CUDA_TRY(err, cudaStreamSynchronize(q->stream));
    memset(out, 0, sizeof *out);
    out->queries = n;
    out->mode = mode;
    if (mode == QR_QUERY_ALL) {
        out->offsets = (int64_t *)q->buf[B_OFFSETS];
        out->ids = (int32_t *)q->buf[B_IDS];
    } else {
        out->values = (int32_t *)q->buf[B_VALUES];
    }
    return QR_OK;
}

static qr_status check_args(qr_gpu_query *q, const void *in, int64_t n, qr_query_mode mode, qr_error *err)
{
    if (!q) return qr_fail(err, QR_ERR_INVALID, "queries: no GPU query object");
    if (n < 0 || (n > 0 && !in) || n > INT32_MAX)
        return qr_fail(err, QR_ERR_INVALID, "queries: %lld at %p (at most %d a batch on the GPU)",
                       (long long)n, in, INT32_MAX);
    if (mode < QR_QUERY_TOP || mode > QR_QUERY_ALL)
        return qr_fail(err, QR_ERR_INVALID, "query mode %d: expected top, count or all", (int)mode);
    return QR_OK;
}

/* Room for the answers of n queries in mode. */
static qr_status answers_room(qr_gpu_query *q, int64_t n, qr_query_mode mode, qr_error *err)
{
    if (mode == QR_QUERY_ALL) {
        qr_status st = grow(q, B_OFFSETS, (size_t)(n + 1) * sizeof(long long), err);
        if (st != QR_OK) return st;
        QR_CUDA_TRY(err, cudaMemsetAsync(q->buf[B_OFFSETS], 0, sizeof(long long), q->stream));
        return grow(q, B_IDS, sizeof(int32_t), err);
    }
    return grow(q, B_VALUES, (size_t)(n > 0 ? n : 1) * sizeof(int32_t), err);
}

extern "C" qr_status qr_gpu_query_points(qr_gpu_query *q, const float *d_xy, int64_t n,
                                         qr_query_mode mode, qr_query_result *out, qr_error *err)
{
    memset(out, 0, sizeof *out);
    qr_status st = check_args(q, d_xy, n, mode, err);
    if (st != QR_OK) return st;
    const size_t words = (size_t)(n > 0 ? n : 1) * sizeof(int32_t);
    if ((st = grow(q, B_KEYS, 2 * words, err)) != QR_OK) return st;
    if ((st = grow(q, B_VALS, 2 * words, err)) != QR_OK) return st;
    if ((st = answers_room(q, n, mode, err)) != QR_OK) return st;
    int32_t *keys = (int32_t *)q->buf[B_KEYS], *vals = (int32_t *)q->buf[B_VALS];
    const int bits = qr_key_bits((long long)q->num_leaves + 1);
    size_t tmp = 0;
    QR_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(NULL, tmp, keys, keys + n, vals, vals + n, (int)n, 0,
                                                     bits > 0 ? bits : 1, q->stream));
    if ((st = grow(q, B_SORT_TMP, tmp, err)) != QR_OK) return st;
    tmp = q->cap[B_SORT_TMP];
    QR_CUDA_TRY(err, cudaEventRecord(q->t0, q->stream));
    if (n > 0) {
        k_point_leaf<<<blocks_for(n), QT_THREADS, 0, q->stream>>>(q->view, q->num_leaves, q->res, d_xy, n, keys, vals);
        QR_CUDA_TRY(err, cudaGetLastError());
        QR_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(q->buf[B_SORT_TMP], tmp, keys, keys + n, vals, vals + n,
                                                         (int)n, 0, bits > 0 ? bits : 1, q->stream));
    }
    const int32_t *sk = keys + n, *sv = vals + n;
    int32_t *values = (int32_t *)q->buf[B_VALUES];
    long long *off = (long long *)q->buf[B_OFFSETS];
    const unsigned nb = blocks_for(n);
    if (mode == QR_QUERY_TOP && n > 0)
        k_point_test<QR_QUERY_TOP><<<nb, QT_THREADS, 0, q->stream>>>(q->view, q->num_leaves, q->circles, d_xy, n, sk, sv,
                                                                   values, off, NULL);
    if (mode == QR_QUERY_COUNT && n > 0)
        k_point_test<QR_QUERY_COUNT><<<nb, QT_THREADS, 0, q->stream>>>(q->view, q->num_leaves, q->circles, d_xy, n,
                                                                     sk, sv, values, off, NULL);
    QR_CUDA_TRY(err, cudaGetLastError());
    if (mode == QR_QUERY_ALL && n > 0) {
        k_point_test<QR_QUERY_ALL><<<nb, QT_THREADS, 0, q->stream>>>(q->view, q->num_leaves, q->circles, d_xy, n, sk,
                                                                   sv, values, off, NULL);
        QR_CUDA_TRY(err, cudaGetLastError());
        long long total;
        if ((st = scan_offsets(q, n, &total, err)) != QR_OK) return st;
        k_point_test<QR_QUERY_ALL + 1><<<nb, QT_THREADS, 0, q->stream>>>(
            q->view, q->num_leaves, q->circles, d_xy, n, sk, sv, values, (long long *)q->buf[B_OFFSETS],
            (int32_t *)q->buf[B_IDS]);
        QR_CUDA_TRY(err, cudaGetLastError());
    }
    return finish(q, n, mode, out, err);
}

/* ALL's last step on either path: the boxes' circles, written into
 * B_IDS2 at the offsets, into drawing order in B_IDS. */
static qr_status order_boxes(qr_gpu_query *q, int64_t n, long long total, qr_error *err)
{
    qr_status st;
    if ((st = grow(q, B_KEYS, (size_t)n * sizeof(long long), err)) != QR_OK) return st;
    if ((st = grow(q, B_VALS, (size_t)n * sizeof(long long), err)) != QR_OK) return st;
    const long long *off = (const long long *)q->buf[B_OFFSETS];
    const int32_t *unsorted = (const int32_t *)q->buf[B_IDS2];
    long long *seg_begin = (long long *)q->buf[B_KEYS], *seg_end = (long long *)q->buf[B_VALS];
    unsigned long long *hard = (unsigned long long *)q->buf[B_BAD] + 1, nhard = 0;
    QR_CUDA_TRY(err, cudaMemsetAsync(hard, 0, sizeof *hard, q->stream));
    k_box_order<<<(unsigned)n, QB_ORDER_THREADS, 0, q->stream>>>(off, unsorted, (int32_t *)q->buf[B_IDS], seg_begin,
                                                                 seg_end, hard);
    QR_CUDA_TRY(err, cudaGetLastError());
    QR_CUDA_TRY(err, cudaMemcpyAsync(&nhard, hard, sizeof nhard, cudaMemcpyDeviceToHost, q->stream));
    QR_CUDA_TRY(err, cudaStreamSynchronize(q->stream));
    if (nhard == 0) return QR_OK;
    /* the boxes k_box_order left: the others' segments are empty */
    size_t tmp = 0;
    QR_CUDA_TRY(err, cub::DeviceSegmentedSort::SortKeys(NULL, tmp, unsorted, (int32_t *)q->buf[B_IDS], total, n,
                                                        seg_begin, seg_end, q->stream));
    if ((st = grow(q, B_SORT_TMP, tmp, err)) != QR_OK) return st;
    tmp = q->cap[B_SORT_TMP];
    QR_CUDA_TRY(err, cub::DeviceSegmentedSort::SortKeys(q->buf[B_SORT_TMP], tmp, unsorted, (int32_t *)q->buf[B_IDS],
                                                        total, n, seg_begin, seg_end, q->stream));
    return QR_OK;
}

/* In-place inclusive sum of v[0, n) (CUB, into B_SORT_TMP). */
template <typename T>
static qr_status inclusive_sum(qr_gpu_query *q, T *v, int64_t n, qr_error *err)
{
    size_t tmp = 0;
    QR_CUDA_TRY(err, cub::DeviceScan::InclusiveSum(NULL, tmp, v, v, n, q->stream));
    qr_status st = grow(q, B_SORT_TMP, tmp, err);
    if (st != QR_OK) return st;
    tmp = q->cap[B_SORT_TMP];
    QR_CUDA_TRY(err, cub::DeviceScan::InclusiveSum(q->buf[B_SORT_TMP], tmp, v, v, n, q->stream));
    return QR_OK;
}

/* Boxes through their (box, leaf) pairs: *listed 0 (nothing answered)
 * where they number more than q->pairs_max. */
static qr_status boxes_by_pairs(qr_gpu_query *q, const float *d_boxes, int64_t n, qr_query_mode mode,
                                int *listed, qr_error *err)
{
    *listed = 0;
    const int32_t nl = q->num_leaves;
    const int all = mode == QR_QUERY_ALL;
    qr_status st;
    if ((st = grow(q, B_BOX_PAIRS, (size_t)(n + 1) * sizeof(long long), err)) != QR_OK) return st;
    if ((st = grow(q, B_LEAF_START, (size_t)(nl + 1) * sizeof(int32_t), err)) != QR_OK) return st;
    if ((st = grow(q, B_LEAF_FILL, (size_t)(nl + 1) * sizeof(int32_t), err)) != QR_OK) return st;
    if ((st = grow(q, B_LEAF_WORDS, (size_t)(nl + 1) * sizeof(long long), err)) != QR_OK) return st;
    long long *box_pairs = (long long *)q->buf[B_BOX_PAIRS], *leaf_words = (long long *)q->buf[B_LEAF_WORDS];
    int32_t *leaf_start = (int32_t *)q->buf[B_LEAF_START], *leaf_fill = (int32_t *)q->buf[B_LEAF_FILL];
    const unsigned nb = blocks_for(32 * n);
    QR_CUDA_TRY(err, cudaMemsetAsync(box_pairs, 0, sizeof(long long), q->stream));
    QR_CUDA_TRY(err, cudaMemsetAsync(leaf_words, 0, sizeof(long long), q->stream));
    QR_CUDA_TRY(err, cudaMemsetAsync(leaf_start, 0, (size_t)(nl + 1) * sizeof(int32_t), q->stream));
    k_box_pairs<0><<<nb, QT_THREADS, 0, q->stream>>>(q->view, nl, q->res, d_boxes, n, box_pairs, leaf_start + 1,
                                                     NULL, NULL, NULL);
    QR_CUDA_TRY(err, cudaGetLastError());
    if ((st = inclusive_sum(q, box_pairs + 1, n, err)) != QR_OK) return st;
    if (all && nl > 0) {
        k_leaf_words<<<blocks_for(nl), QT_THREADS, 0, q->stream>>>(q->view, leaf_start + 1, nl, leaf_words + 1);
        QR_CUDA_TRY(err, cudaGetLastError());
        if ((st = inclusive_sum(q, leaf_words + 1, nl, err)) != QR_OK) return st;
    }
    long long pairs = 0, words = 0;
    QR_CUDA_TRY(err, cudaMemcpyAsync(&pairs, box_pairs + n, sizeof pairs, cudaMemcpyDeviceToHost, q->stream));
    if (all)
        QR_CUDA_TRY(err, cudaMemcpyAsync(&words, leaf_words + nl, sizeof words, cudaMemcpyDeviceToHost, q->stream));
    QR_CUDA_TRY(err, cudaStreamSynchronize(q->stream));
    if (pairs > q->pairs_max || words > QB_MASK_MAX) return QR_OK;
    if ((st = inclusive_sum(q, leaf_start + 1, nl, err)) != QR_OK) return st;
    const size_t np = (size_t)(pairs > 0 ? pairs : 1);
    if ((st = grow(q, B_LEAF_PAIRS, np * sizeof(int32_t), err)) != QR_OK) return st;
    if ((st = grow(q, B_PAIR_BOX, np * sizeof(int32_t), err)) != QR_OK) return st;
    if ((st = grow(q, B_PAIR_HITS, np * sizeof(long long), err)) != QR_OK) return st;
    if ((st = grow(q, B_PAIR_OUT, (np + 1) * sizeof(long long), err)) != QR_OK) return st;
    if ((st = grow(q, B_MASK, (size_t)(words > 0 ? words : 1) * sizeof(unsigned), err)) != QR_OK) return st;
    int32_t *leaf_pairs = (int32_t *)q->buf[B_LEAF_PAIRS], *pair_box = (int32_t *)q->buf[B_PAIR_BOX];
    long long *hits = (long long *)q->buf[B_PAIR_HITS], *pair_out = (long long *)q->buf[B_PAIR_OUT];
    unsigned *mask = (unsigned *)q->buf[B_MASK];
    QR_CUDA_TRY(err, cudaMemsetAsync(leaf_fill, 0, (size_t)nl * sizeof(int32_t), q->stream));
    k_box_pairs<1><<<nb, QT_THREADS, 0, q->stream>>>(q->view, nl, q->res, d_boxes, n, box_pairs, leaf_fill,
                                                     leaf_start, leaf_pairs, pair_box);
    QR_CUDA_TRY(err, cudaGetLastError());
    int32_t *values = (int32_t *)q->buf[B_VALUES];
    const unsigned leaves = (unsigned)(pairs > 0 ? nl : 0); /* no launch without pairs */
    *listed = 1;
    if (!all) {
        /* -1 (TOP: none) or 0 (COUNT) before the leaves' atomics */
        QR_CUDA_TRY(err, cudaMemsetAsync(values, mode == QR_QUERY_TOP ? 0xff : 0, (size_t)n * sizeof(int32_t),
                                         q->stream));
        if (leaves == 0) return QR_OK;
        if (mode == QR_QUERY_TOP)
            k_box_test<QR_QUERY_TOP><<<leaves, QT_THREADS, 0, q->stream>>>(
                q->view, q->res, q->circles, d_boxes, leaf_start, leaf_pairs, pair_box, hits, NULL, NULL, values);
        else
            k_box_test<QR_QUERY_COUNT><<<leaves, QT_THREADS, 0, q->stream>>>(
                q->view, q->res, q->circles, d_boxes, leaf_start, leaf_pairs, pair_box, hits, NULL, NULL, values);
        QR_CUDA_TRY(err, cudaGetLastError());
        return QR_OK;
    }
    QR_CUDA_TRY(err, cudaMemsetAsync(pair_out, 0, sizeof(long long), q->stream));
    if (leaves > 0) {
        k_box_test<QR_QUERY_ALL><<<leaves, QT_THREADS, 0, q->stream>>>(
            q->view, q->res, q->circles, d_boxes, leaf_start, leaf_pairs, pair_box, hits, leaf_words, mask, NULL);
        QR_CUDA_TRY(err, cudaGetLastError());
        size_t tmp = 0;
        QR_CUDA_TRY(err, cub::DeviceScan::InclusiveSum(NULL, tmp, hits, pair_out + 1, pairs, q->stream));
        if ((st = grow(q, B_SORT_TMP, tmp, err)) != QR_OK) return st;
        tmp = q->cap[B_SORT_TMP];
        QR_CUDA_TRY(err, cub::DeviceScan::InclusiveSum(q->buf[B_SORT_TMP], tmp, hits, pair_out + 1, pairs, q->stream));
    }
    long long *off = (long long *)q->buf[B_OFFSETS];
    k_box_offsets<<<blocks_for(n + 1), QT_THREADS, 0, q->stream>>>(box_pairs, pair_out, n, off);
    QR_CUDA_TRY(err, cudaGetLastError());
    long long total = 0;
    QR_CUDA_TRY(err, cudaMemcpyAsync(&total, pair_out + pairs, sizeof total, cudaMemcpyDeviceToHost, q->stream));
    QR_CUDA_TRY(err, cudaStreamSynchronize(q->stream));
    q->last_total = total;
    if ((st = grow(q, B_IDS, (size_t)(total > 0 ? total : 1) * sizeof(int32_t), err)) != QR_OK) return st;
    if ((st = grow(q, B_IDS2, (size_t)(total > 0 ? total : 1) * sizeof(int32_t), err)) != QR_OK) return st;
    if (leaves > 0) {
        k_box_emit<<<leaves, QT_THREADS, 0, q->stream>>>(q->view, leaf_start, leaf_pairs, leaf_words, mask, pair_out,
                                                         (int32_t *)q->buf[B_IDS2]);
        QR_CUDA_TRY(err, cudaGetLastError());
    }
    return order_boxes(q, n, total, err);
}

extern "C" qr_status qr_gpu_query_boxes(qr_gpu_query *q, const float *d_boxes, int64_t n,
                                        qr_query_mode mode, qr_query_result *out, qr_error *err)
{
    memset(out, 0, sizeof *out);
    qr_status st = check_args(q, d_boxes, n, mode, err);
    if (st != QR_OK) return st;
    if ((st = grow(q, B_BAD, 2 * sizeof(unsigned long long), err)) != QR_OK) return st;
    if ((st = answers_room(q, n, mode, err)) != QR_OK) return st;
    QR_CUDA_TRY(err, cudaEventRecord(q->t0, q->stream));
    if (n > 0) {
        unsigned long long bad = ~0ull;
        QR_CUDA_TRY(err, cudaMemcpyAsync(q->buf[B_BAD], &bad, sizeof bad, cudaMemcpyHostToDevice, q->stream));
        k_box_check<<<blocks_for(n), QT_THREADS, 0, q->stream>>>(d_boxes, n, (unsigned long long *)q->buf[B_BAD]);
        QR_CUDA_TRY(err, cudaGetLastError());
        QR_CUDA_TRY(err, cudaMemcpyAsync(&bad, q->buf[B_BAD], sizeof bad, cudaMemcpyDeviceToHost, q->stream));
        QR_CUDA_TRY(err, cudaStreamSynchronize(q->stream));
        if (bad != ~0ull) {
            float b[4];
            QR_CUDA_TRY(err, cudaMemcpy(b, d_boxes + 4 * bad, sizeof b, cudaMemcpyDeviceToHost));
            return qr_query_check_box(b, (int64_t)bad, err);
        }
    }
    int listed = 0;
    if (n > 0 && (st = boxes_by_pairs(q, d_boxes, n, mode, &listed, err)) != QR_OK) return st;
    if (listed || n == 0) return finish(q, n, mode, out, err);
    /* too many pairs: a warp a box */
    int32_t *values = (int32_t *)q->buf[B_VALUES];
    long long *off = (long long *)q->buf[B_OFFSETS];
    const unsigned nb = blocks_for(32 * n);
    if (mode == QR_QUERY_TOP)
        k_box<QR_QUERY_TOP><<<nb, QT_THREADS, 0, q->stream>>>(q->view, q->num_leaves, q->res, q->circles, d_boxes, n,
                                                            values, off, NULL);
    if (mode == QR_QUERY_COUNT)
        k_box<QR_QUERY_COUNT><<<nb, QT_THREADS, 0, q->stream>>>(q->view, q->num_leaves, q->res, q->circles, d_boxes, n,
                                                              values, off, NULL);
    QR_CUDA_TRY(err, cudaGetLastError());
    if (mode == QR_QUERY_ALL) {
        k_box<QR_QUERY_ALL><<<nb, QT_THREADS, 0, q->stream>>>(q->view, q->num_leaves, q->res, q->circles, d_boxes, n,
                                                            values, off, NULL);
        QR_CUDA_TRY(err, cudaGetLastError());
        long long total;
        if ((st = scan_offsets(q, n, &total, err)) != QR_OK) return st;
        if ((st = grow(q, B_IDS2, (size_t)(total > 0 ? total : 1) * sizeof(int32_t), err)) != QR_OK) return st;
        off = (long long *)q->buf[B_OFFSETS];
        k_box<QR_QUERY_ALL + 1><<<nb, QT_THREADS, 0, q->stream>>>(q->view, q->num_leaves, q->res, q->circles, d_boxes,
                                                                n, values, off, (int32_t *)q->buf[B_IDS2]);
        QR_CUDA_TRY(err, cudaGetLastError());
        if ((st = order_boxes(q, n, total, err)) != QR_OK) return st;
    }
    return finish(q, n, mode, out, err);
}

extern "C" qr_status qr_gpu_query_points_brute(qr_gpu_query *q, const float *d_xy, int64_t n,
                                               qr_query_mode mode, qr_query_result *out, qr_error *err)
{
    memset(out, 0, sizeof *out);
    qr_status st = check_args(q, d_xy, n, mode, err);
    if (st != QR_OK) return st;
    if (mode == QR_QUERY_ALL)
        return qr_fail(err, QR_ERR_INVALID, "the brute-force GPU kernel answers top and count only");
    if ((st = answers_room(q, n, mode, err)) != QR_OK) return st;
    QR_CUDA_TRY(err, cudaEventRecord(q->t0, q->stream));
    int32_t *values = (int32_t *)q->buf[B_VALUES];
    if (n > 0 && mode == QR_QUERY_TOP)
        k_point_brute<QR_QUERY_TOP><<<blocks_for(n), QT_THREADS, 0, q->stream>>>(q->circles, q->n, d_xy, n, values);
    if (n > 0 && mode == QR_QUERY_COUNT)
        k_point_brute<QR_QUERY_COUNT><<<blocks_for(n), QT_THREADS, 0, q->stream>>>(q->circles, q->n, d_xy, n, values);
    QR_CUDA_TRY(err, cudaGetLastError());
    return finish(q, n, mode, out, err);
}

extern "C" qr_status qr_gpu_query_last_ms(const qr_gpu_query *q, float *ms, qr_error *err)
{
    QR_CUDA_TRY(err, cudaEventSynchronize(q->t1));
    QR_CUDA_TRY(err, cudaEventElapsedTime(ms, q->t0, q->t1));
    return QR_OK;
}

/* ---- host arrays, in batches ------------------------------------------------------ */

/* Queries a batch of the host functions: their inputs and answers on the
 * GPU stay within a few hundred MB (ALL's ids come on top). */
#define QR_GPU_QUERY_BATCH ((int64_t)1 << 23)

static qr_status run_host(qr_gpu_query *q, const float *in, int per, int64_t n, qr_query_mode mode,
                          int boxes, qr_query_result *out, qr_error *err)
{
    memset(out, 0, sizeof *out);
    qr_status st = check_args(q, in ? in : (const float *)q, n, mode, err);
    if (st != QR_OK) return st;
    if (boxes && (st = qr_query_check_boxes(in, n, err)) != QR_OK) return st;
    out->queries = n;
    out->mode = mode;
    if (mode == QR_QUERY_ALL) {
        if ((st = qr_host_malloc("the query answers' offsets", (size_t)(n + 1) * sizeof(int64_t),
                                 (void **)&out->offsets, err)) != QR_OK)
            return st;
        out->offsets[0] = 0;
    } else if ((st = qr_host_malloc("the query answers", (size_t)(n > 0 ? n : 1) * sizeof(int32_t),
                                    (void **)&out->values, err)) != QR_OK) {
        return st;
    }
    float *d_in = NULL;
    const int64_t batch = n < QR_GPU_QUERY_BATCH ? n : QR_GPU_QUERY_BATCH;
    QR_CUDA_GOTO(err, st, fail, cudaMalloc(&d_in, (size_t)(batch > 0 ? batch : 1) * per * sizeof(float)));
    for (int64_t first = 0; first < n; first += batch) {
        const int64_t m = n - first < batch ? n - first : batch;
        QR_CUDA_GOTO(err, st, fail, cudaMemcpy(d_in, in + first * per, (size_t)m * per * sizeof(float),
                                               cudaMemcpyHostToDevice));
        qr_query_result r;
        st = boxes ? qr_gpu_query_boxes(q, d_in, m, mode, &r, err) : qr_gpu_query_points(q, d_in, m, mode, &r, err);
        if (st != QR_OK) goto fail;
        if (mode != QR_QUERY_ALL) {
            QR_CUDA_GOTO(err, st, fail, cudaMemcpy(out->values + first, r.values, (size_t)m * sizeof(int32_t),
                                                   cudaMemcpyDeviceToHost));
            continue;
        }
        QR_CUDA_GOTO(err, st, fail, cudaMemcpy(out->offsets + first + 1, r.offsets + 1, (size_t)m * sizeof(int64_t),
                                               cudaMemcpyDeviceToHost));
        const int64_t base = out->offsets[first], total = out->offsets[first + m];
        for (int64_t k = first + 1; k <= first + m; k++) out->offsets[k] += base;
        const int64_t had = base, now = base + total;
        int32_t *ids = (int32_t *)realloc(out->ids, (size_t)(now > 0 ? now : 1) * sizeof(int32_t));
        if (!ids) {
            st = qr_fail(err, QR_ERR_NOMEM, "out of memory: the query answers' %lld circles", (long long)now);
            goto fail;
        }
        out->ids = ids;
        QR_CUDA_GOTO(err, st, fail, cudaMemcpy(out->ids + had, r.ids, (size_t)total * sizeof(int32_t),
                                               cudaMemcpyDeviceToHost));
    }
    if (mode == QR_QUERY_ALL && !out->ids) {
        out->ids = (int32_t *)malloc(sizeof(int32_t));
        if (!out->ids) {
            st = qr_fail(err, QR_ERR_NOMEM, "out of memory");
            goto fail;
        }
    }
    cudaFree(d_in);
    return QR_OK;
fail:
    cudaFree(d_in);
    qr_query_result_free(out);
    return st;
}

extern "C" qr_status qr_gpu_query_points_host(qr_gpu_query *q, const float *xy, int64_t n,
                                              qr_query_mode mode, qr_query_result *out, qr_error *err)
{
    return run_host(q, xy, 2, n, mode, 0, out, err);
}

extern "C" qr_status qr_gpu_query_boxes_host(qr_gpu_query *q, const float *boxes, int64_t n,
                                             qr_query_mode mode, qr_query_result *out, qr_error *err)
{
    return run_host(q, boxes, 4, n, mode, 1, out, err);
}

extern "C" qr_status qr_gpu_query_upload(const float *host, int64_t floats, float **d_out, qr_error *err)
{
    *d_out = NULL;
    if (floats < 0 || (floats > 0 && !host))
        return qr_fail(err, QR_ERR_INVALID, "upload: %lld floats at %p", (long long)floats, (const void *)host);
    const size_t bytes = (size_t)(floats > 0 ? floats : 1) * sizeof(float);
    cudaError_t e = cudaMalloc((void **)d_out, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *d_out = NULL;
        return qr_fail(err, qr_cuda_status(e), "out of GPU memory: %zu bytes of queries", bytes);
    }
    if (floats > 0 && (e = cudaMemcpy(*d_out, host, bytes, cudaMemcpyHostToDevice)) != cudaSuccess) {
        cudaFree(*d_out);
        *d_out = NULL;
        return qr_fail(err, qr_cuda_status(e), "copying queries to the GPU: %s", cudaGetErrorString(e));
    }
    return QR_OK;
}

extern "C" void qr_gpu_query_free(float *d)
{
    cudaFree(d);
}

extern "C" int64_t qr_gpu_query_last_total(const qr_gpu_query *q)
{
    return q ? q->last_total : 0;
}
