/* region_order.cu — which region each block of the windows kernel (the
 * frame's tail kernel) takes.
 *
 * Blocks start in blockIdx order as earlier ones finish, so regions that
 * take long and come last run nearly alone at the kernel's end while the
 * rest of the GPU idles (ncu shows far fewer instructions issued per cycle
 * over the kernel than while an SM is busy). Which regions take long cannot
 * be read off the index: biglittle and littlebig have the same leaves and
 * list lengths, and their heavy regions lie at opposite ends (reversing the
 * order speeds one up and slows the other down). So each block times
 * itself (region_done, region_order.cuh), and a one-block kernel behind the
 * tail kernel (k_region_order) orders the regions for the next frame,
 * longest first, by half octaves of their cycles: measured faster on
 * rand1M, biglittle and rand100k, the same on littlebig, whose heavy regions
 * already come first (docs/benchmarks.md). The order moves work between
 * blocks, never pixels: every region is still rendered by exactly one
 * block, the same way. The first frame, and images of more than RO_MAX
 * regions, take row-major order. Fast walks stop early and vary less;
 * there the bookkeeping costs more than it wins, so only the windows
 * kernel takes an order.
 */
#include "render/gpu/render_kernels.h"
#include "gpu/pdl.h"

/* RO_BUCKETS: gpu/tuning/tuning_default.h */

/* Half octaves of a block's cycles, longest first. */
__device__ __forceinline__ int order_bucket(uint32_t cycles)
{
    const int msb = 31 - __clz(cycles | 1u);
    const int key = 2 * msb + (msb > 0 ? (int)((cycles >> (msb - 1)) & 1u) : 0);
    return RO_BUCKETS - 1 - min(key, RO_BUCKETS - 1);
}

/* The next frame's order of n regions from this frame's cycles: a counting
 * sort by order_bucket, longest first (positions by atomics: their order
 * within a bucket moves time, never pixels). One block, after the tail
 * kernel. */
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

cudaError_t qr_launch_region_order(region_order *ro, int n, cudaStream_t st, int pdl)
{
    return qr_launch(k_region_order, 1, RO_THREADS, 0, st, pdl, ro, n);
}
