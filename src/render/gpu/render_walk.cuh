/* render_walk.cuh — a block's walk of one leaf's list (walk_leaf): batch
 * by batch staged (render_stage.cuh), then per warp the staged circles
 * that touch its pixels, each lane shading those that touch its own. Used
 * by the walk kernel (render_walk.cu) and by the windows kernel's whole
 * walks (render_windows.cu).
 */
#ifndef QR_RENDER_WALK_CUH
#define QR_RENDER_WALK_CUH

#include "render/gpu/render_stage.cuh"

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
 * exact first to last, fast last to first with early stop (live, T);
 * cover: shade's.
 *
 * Each staged batch goes to the lanes in groups of up to 32 circles that
 * touch the warp's 16 x 8 pixels; a 32 x 32 bit transpose turns "the lanes
 * circle k touches" into "the circles touching this lane", and each lane
 * shades, in order, only those (small circles touch a few of the warp's 32
 * columns, and a warp stepping through them together would shade each with
 * most lanes idle). A group is
 *   GATHER = false: one chunk of 32 staged circles, those of them touching
 *           the warp (one ballot);
 *   GATHER = true:  the next 32 staged circles that touch the warp, gathered
 *           from as many chunks as it takes into a queue in walking order.
 * Gathering pays where few staged circles touch a warp (small circles,
 * micro2M) and costs where most do (the queue's bookkeeping per circle);
 * plan_render (renderer.cu) chooses. */
template <bool EXACT, bool SNOW, bool WINDOW, bool GATHER, bool FMA, bool AA = false>
__device__ __forceinline__ void walk_leaf(stage_mem &sm, const qr_leaf &leaf, const int32_t *list,
                                          const region_ctx &rc, const block_setup &b, uint32_t mine,
                                          const float4 *__restrict__ pos,
                                          const float4 *__restrict__ col, const qr_tree_geom &g,
                                          float (*c)[4], float *T, float stop, uint32_t &live,
                                          bool cover = false)
{
    const int lane = threadIdx.x % 32;
    uint16_t *queue = sm.queue[threadIdx.x / 32];
    const int batches = (leaf.count + RT_BATCH - 1) / RT_BATCH;
    int32_t id[RT_PER];
    load_ids(list, leaf.count, EXACT ? 0 : batches - 1, id);
    for (int bi = 0; bi < batches; bi++) {
        /* windows and fused blends draw plain scenes only: alpha 0.5 */
        const int kept = stage_batch<EXACT, SNOW, WINDOW, WINDOW || FMA, AA>(sm, id, pos, col, g, rc);
        __syncthreads();
        /* the next batch's list entries load while this one is walked (one
         * memory round trip fewer before its circles) */
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
                if (rows)
                    shade<EXACT, SNOW, FMA, WINDOW || FMA, AA>(sm.pos[k], sm.col[k], rows, b.cx,
                                                              b.cy, c, T, stop, live, cover);
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

#endif
