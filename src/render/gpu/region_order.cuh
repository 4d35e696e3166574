/* region_order.cuh — the windows kernel's side of the region order
 * (region_order.cu says why there is one): which region a block takes, and
 * the block's time for the next frame's order.
 */
#ifndef QR_RENDER_REGION_ORDER_CUH
#define QR_RENDER_REGION_ORDER_CUH

#include "render/gpu/render_kernels.h"

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

/* A block's cycles since t0, for the next frame's order (k_region_order). */
__device__ __forceinline__ void region_done(region_order *ro, int region, long long t0)
{
    if (gridDim.x > RO_MAX) return;
    __syncthreads();
    if (threadIdx.x == 0) ro->cycles[region] = (uint32_t)min(clock64() - t0, 0xffffffffll);
}

#endif
