/* lists.cu — the build's last stage: the emitted (leaf, circle) pairs,
 * which come in circle order, become the leaf lists, each in circle order.
 *
 * That is a stable sort by leaf, but a sort that already knows its answer's
 * shape: the tree stage counted every leaf's circles exactly and put each
 * list's offset in qr_leaf.offset. So it is one pass of a counting sort,
 * with no histogram pass and no scan of digit counts before it (CUB's radix
 * sort has both, and sorts 8 bits a pass: two passes from 257 leaves on).
 *
 * A block takes the next tile of 256 x qr_lists_per(items) pairs (by
 * ticket, so that a tile only ever waits on tiles already running) and
 *   - ranks each pair among the tile's pairs of its leaf, in pair order:
 *     warp by warp, 32 pairs at a time, with __match_any_sync and a
 *     per-warp counter per leaf in shared memory, then the warps' counters
 *     scanned;
 *   - publishes its count of each leaf, and lays its pairs out in shared
 *     memory by leaf;
 *   - learns how many pairs of each leaf all earlier tiles hold, by
 *     decoupled look-back per leaf (a thread per leaf, four tiles a step;
 *     Merrill and Garland's single-pass scan, as CUB's onesweep does per
 *     digit), and publishes its inclusive count;
 *   - writes the circles out in leaf order, to offset(leaf) + the earlier
 *     tiles' count + the rank: a warp's stores fall in a few runs (straight
 *     from registers, each lane's to a different leaf, the stage measures
 *     far slower on micro2M).
 * Positions come from counts alone, so the lists are the same bytes whatever
 * order the blocks run in.
 *
 * Look-back state: one 32-bit word per (tile, leaf), two flag bits and a
 * 30-bit count, zeroed by the emit kernel before (qr_emit_args.zero).
 * Builds of up to 2^QR_LISTS_MAX_BITS leaves and fewer than 2^30 pair slots
 * take this path; larger ones keep CUB's radix sort (index_gpu.cu). */
#include "quadtree/gpu/build_stages.h"
#include "gpu/device_limits.h"
#include "gpu/pdl.h"

#include <cub/block/block_scan.cuh>

#define LL_THREADS QR_LISTS_THREADS
#define LL_WARPS (LL_THREADS / 32)
#define LL_AGG (1u << 30)                      /* state word: the tile's own count is known */
#define LL_INCL (2u << 30)                     /* the count up to and including it is */
#define LL_VALUE ((1u << 30) - 1)
#define LL_NONE 0xffffu                        /* no pair (past the pairs) */

/* The count of `leaf` in tiles before `tile`: walks back from tile - 1,
 * adding own counts, to the nearest inclusive count; four tiles a step,
 * their loads in flight together (one at a time, a step is an L2 round
 * trip, and a tile's walk crosses every earlier tile still walking). */
__device__ __forceinline__ uint32_t look_back_leaf(const uint32_t *state, int tile, int bins, int leaf)
{
    const volatile uint32_t *s = state;
    uint32_t before = 0;
    for (int j = tile - 1;;) {
        uint32_t w[4];
#pragma unroll
        for (int u = 0; u < 4; u++) w[u] = j - u >= 0 ? s[(size_t)(j - u) * bins + leaf] : LL_INCL;
        /* the words up to the nearest inclusive one must all be published */
        bool ready = true, incl = false;
        uint32_t sum = 0;
#pragma unroll
        for (int u = 0; u < 4; u++) {
            if (incl) break;
            ready &= (w[u] >> 30) != 0;
            sum += w[u] & LL_VALUE;
            incl = (w[u] & LL_INCL) != 0;
        }
        if (!ready) continue; /* the same four again */
        before += sum;
        if (incl) return before;
        j -= 4;
    }
}

template <int LL_ITEMS>
__global__ void __launch_bounds__(LL_THREADS, LL_ITEMS == 8 ? 4 : LL_ITEMS == 16 ? 3 : 2)
k_leaf_lists(long long items, int bins, const uint16_t *__restrict__ keys,
             const int32_t *__restrict__ vals, const qr_leaf *__restrict__ leaves, uint32_t *state,
             int32_t *__restrict__ lists, qr_build_scalars *scalars)
{
    typedef cub::BlockScan<uint32_t, LL_THREADS> bin_scan;
    constexpr int TILE = LL_THREADS * LL_ITEMS;
    extern __shared__ long long ll_smem[];
    long long *out = ll_smem;                          /* [bins]: list index = out[leaf] + q */
    uint32_t *cnt = (uint32_t *)(out + bins);          /* [LL_WARPS][bins]: counts, then where
                                                          each warp's pairs of a leaf go (q) */
    int32_t *sval = (int32_t *)(cnt + LL_WARPS * bins); /* [TILE]: the tile's circles, by leaf */
    uint16_t *skey = (uint16_t *)(sval + TILE);          /* [TILE]: their leaves */
    __shared__ typename bin_scan::TempStorage scan;
    __shared__ int s_tile;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    qr_pdl_wait(); /* the pairs, the leaves and the zeroed state */
    const long long pairs = scalars->num_pairs;
    /* pairs that outgrew the slots: the host redoes the build (and the
     * render behind skips); nothing here may be trusted */
    if (pairs > items) return;
    const int nleaves = scalars->num_leaves < bins ? scalars->num_leaves : bins;
    for (int k = tid; k < LL_WARPS * bins; k += LL_THREADS) cnt[k] = 0;
    if (tid == 0) s_tile = (int)atomicAdd(&scalars->list_tickets, 1u);
    __syncthreads();
    const int tile = s_tile;
    const long long first = (long long)tile * TILE;
    if (first >= pairs) return; /* (the same on every thread) */

    /* Rank: warp w holds pairs [w * 32 * LL_ITEMS, (w + 1) * 32 * LL_ITEMS)
     * of the tile, 32 consecutive ones a step, so ranking step by step, lane
     * by lane, is pair order. */
    const uint32_t below = (1u << lane) - 1;
    uint32_t kr[LL_ITEMS]; /* leaf | rank among the warp's pairs of that leaf << 16 */
    int32_t val[LL_ITEMS];
    const long long at = first + (long long)warp * 32 * LL_ITEMS + lane;
    const long long left = pairs - at; /* pairs from this thread's first on */
    const uint16_t *kp = keys + at;
    const int32_t *vp = vals + at;
#pragma unroll
    for (int i = 0; i < LL_ITEMS; i++) {
        kr[i] = 32 * i < left ? kp[32 * i] : LL_NONE;
        val[i] = 32 * i < left ? vp[32 * i] : 0;
    }
    uint32_t *wcnt = cnt + warp * bins;
    int bad = 0;
#pragma unroll
    for (int i = 0; i < LL_ITEMS; i++) {
        const uint32_t k = kr[i] < (uint32_t)nleaves ? kr[i] : LL_NONE;
        bad |= kr[i] != k;
        const uint32_t peers = __match_any_sync(0xffffffffu, k);
        const uint32_t seen = k != LL_NONE ? wcnt[k] : 0;
        __syncwarp();
        if (k != LL_NONE && lane == 31 - __clz(peers)) wcnt[k] = seen + __popc(peers);
        __syncwarp();
        kr[i] = k | (seen + __popc(peers & below)) << 16;
    }
    __syncthreads();

    /* Per leaf (a thread takes `per` consecutive leaves): the tile's count,
     * published at once, and where in the tile's leaf order (q) each warp's
     * pairs of it start. */
    const int per = bins > LL_THREADS ? bins / LL_THREADS : 1;
    constexpr int PER_MAX = (1 << QR_LISTS_MAX_BITS) / LL_THREADS;
    uint32_t own[PER_MAX], sum = 0;
#pragma unroll
    for (int m = 0; m < PER_MAX; m++) {
        const int b = tid * per + m;
        own[m] = 0;
        if (m < per && b < nleaves) {
#pragma unroll
            for (int w = 0; w < LL_WARPS; w++) {
                const uint32_t c = cnt[w * bins + b];
                cnt[w * bins + b] = own[m];
                own[m] += c;
            }
            *(volatile uint32_t *)&state[(size_t)tile * bins + b] = (tile ? LL_AGG : LL_INCL) | own[m];
            sum += own[m];
        }
    }
    uint32_t start, placed;
    bin_scan(scan).ExclusiveSum(sum, start, placed);
#pragma unroll
    for (int m = 0; m < PER_MAX; m++) {
        const int b = tid * per + m;
        if (m < per && b < nleaves) {
#pragma unroll
            for (int w = 0; w < LL_WARPS; w++) cnt[w * bins + b] += start;
            out[b] = -(long long)start; /* the rest once the earlier tiles' counts are known */
            start += own[m];
        }
    }
    __syncthreads();
    /* the tile's pairs in leaf order, in shared memory */
#pragma unroll
    for (int i = 0; i < LL_ITEMS; i++) {
        const uint32_t k = kr[i] & 0xffff;
        if (k == LL_NONE) continue;
        const uint32_t q = wcnt[k] + (kr[i] >> 16);
        sval[q] = val[i];
        skey[q] = (uint16_t)k;
    }
    /* the earlier tiles' counts (look-back), so the list index of the
     * tile's q-th pair, of leaf b, is out[b] + q */
#pragma unroll
    for (int m = 0; m < PER_MAX; m++) {
        const int b = tid * per + m;
        if (m < per && b < nleaves) {
            const uint32_t before = tile ? look_back_leaf(state, tile, bins, b) : 0;
            if (tile) *(volatile uint32_t *)&state[(size_t)tile * bins + b] = LL_INCL | (before + own[m]);
            out[b] += leaves[b].offset + before;
        }
    }
    __syncthreads();
    /* written in leaf order: a warp's stores fall in a few runs */
    for (int q = tid; q < (int)placed; q += LL_THREADS) {
        const long long p = out[skey[q]] + q;
        if (p < pairs)
            lists[p] = sval[q];
        else
            bad = 1;
    }
    /* a pair past the leaves, or more pairs for a leaf than the tree
     * counted: the emit and the tree disagree (never expected) */
    if (bad) scalars->bad_emit = 1;
}

/* Dynamic shared memory of a block. */
static size_t lists_smem(int bins, int items_per_thread)
{
    return (size_t)bins * (sizeof(long long) + LL_WARPS * sizeof(uint32_t)) +
           (size_t)LL_THREADS * items_per_thread * (sizeof(int32_t) + sizeof(uint16_t));
}

int qr_lists_fit(long long items)
{
    return lists_smem(1 << QR_LISTS_MAX_BITS, qr_lists_per(items)) <= (size_t)qr_device_smem_optin();
}

cudaError_t qr_launch_lists(const qr_lists_args *a, cudaStream_t st, int pdl)
{
    const long long items = a->items;
    const int bits = a->bits;
    const uint16_t *keys = a->keys;
    const int32_t *vals = a->vals;
    const qr_leaf *leaves = a->leaves;
    uint32_t *state = a->state;
    int32_t *lists = a->lists;
    qr_build_scalars *scalars = a->scalars;
    if (bits < 1 || bits > QR_LISTS_MAX_BITS || items >= QR_LISTS_MAX_ITEMS) return cudaErrorInvalidValue;
    if (items <= 0) return cudaSuccess;
    const int bins = 1 << bits, per = qr_lists_per(items);
    auto k = per == 32 ? k_leaf_lists<32> : per == 16 ? k_leaf_lists<16> : k_leaf_lists<8>;
    /* 1024 leaves take more than the default 48 KiB; always the same value,
     * so a launch captured earlier never finds the limit below its own */
    cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)lists_smem(1 << QR_LISTS_MAX_BITS, per));
    if (e != cudaSuccess) return e;
    return qr_launch(k, (unsigned)qr_lists_tiles(items), LL_THREADS, lists_smem(bins, per), st, pdl,
                     items, bins, keys, vals, leaves, state, lists, scalars);
}
