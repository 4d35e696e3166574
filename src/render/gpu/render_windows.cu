/* render_windows.cu — exact mode by windows.
 *
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

#include "render/gpu/render_walk.cuh"
#include "render/gpu/region_order.cuh"
#include "gpu/pdl.h"
#include "gpu/device_limits.h"

#include <limits.h>

/* The next tail's length, after a tail of `len` entries left the pixels
 * `open` with runs (c, hi) that differ. Doubling is right where a pixel met
 * enough covering circles and its runs were slow to meet; it is slow where
 * the circles are not spread evenly along the list (biglittle: the last
 * thousand entries of one 256-pixel leaf are small circles that many of its
 * regions do not meet, and such regions would double their tails four or
 * five times). So the block also searches the list from its end for 1.5 windows
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
                int items, float4 *__restrict__ image)
{
    __shared__ stage_mem sm;
    __shared__ int s_fewest; /* the leaf part's smallest N */
    __shared__ int s_item;
    qr_pdl_release(); /* k_region_order */
    /* (with work items, no region order: render_stage.cuh, next_item) */
    const int ordered = items ? 0 : take_region(ro);
    qr_pdl_wait(); /* the coverage count */
    const long long t0 = clock64();
    if (qr_build_redone(v)) return; /* the build will be redone */
    const qr_tree_geom &g = v.geom;
    const int regions = qr_render_regions(&v);
    for (int item = first_item(v, regions, items, ordered, &s_item); item < end_item(v, regions, items);
         item = later_item(v, regions, items, &s_item)) {
        block_setup b;
        int32_t first_leaf;
        const int nleaf = setup_item(v, regions, items, item, b, &first_leaf);
        const int lane = threadIdx.x % 32;

        /* N of this thread's pixels (those in the image) */
        int n[RT_ROWS];
        uint32_t inside = 0;
#pragma unroll
        for (int r = 0; r < RT_ROWS; r++) {
            const int py = b.by0 + b.ly0 + r;
            n[r] = 0;
            if (b.px < g.region.x1 && py < g.region.y1) {
                n[r] = counts[qr_region_pixel(g, b.px, py)];
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

        uint32_t owned = 0; /* this thread's pixels in the walked leaves */
        for (int li = 0; li < nleaf; li++) {
            const qr_leaf leaf = v.leaves[first_leaf + li];
            const int32_t *list = v.lists + leaf.offset;
            region_ctx rc;
            const uint32_t mine = leaf_part(leaf, b, rc) & inside;
            owned |= mine;
            int fewest = INT_MAX;
#pragma unroll
            for (int r = 0; r < RT_ROWS; r++)
                if ((mine >> r) & 1u) fewest = min(fewest, n[r]);
#if __CUDA_ARCH__ >= 800
            fewest = __reduce_min_sync(0xffffffffu, fewest);
#else
            /* (the warp reduction instructions came with sm_80) */
            for (int o = 16; o > 0; o >>= 1) fewest = min(fewest, __shfl_xor_sync(0xffffffffu, fewest, o));
#endif
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
                    const int kept = stage_batch<true, false, true, true, false>(sm, id, pos, col, g, rc);
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
            if (!((owned >> r) & 1u)) continue;
            const size_t at = qr_region_pixel(g, b.px, b.by0 + b.ly0 + r);
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
        if (!items) region_done(ro, item, t0);
    }
}

cudaError_t qr_launch_render_windows(const qr_render_windows_args *a, cudaStream_t st, int pdl)
{
    const int items = qr_render_items(a->view);
    /* with items, as many blocks as stay resident (3 per SM) */
    const int blocks = items ? 3 * qr_device_sms() : qr_render_regions(a->view);
    return qr_launch(a->fma ? k_render_window<true> : k_render_window<false>, blocks, RT_THREADS,
                     0, st, pdl, *a->view, a->ro, a->pos, a->col, a->counts, a->lo, a->hi,
                     a->window, items, a->image);
}
