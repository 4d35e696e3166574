/* readback.cu — what the host checks after a build (the scalars, and the
 * scan's total against the tree's pair count), copied into host-mapped
 * memory by one small kernel: in a graph a kernel node is cheaper than
 * copy-engine transfers. Ahead builds write it from their emit instead
 * (pairs.cu), and the one-leaf build from its kernel (single_leaf.cu). */
#include "quadtree/gpu/build_stages.h"
#include "quadtree/gpu/build_device.cuh"

__global__ void k_readback(const qr_build_scalars *scalars, const long long *last_offset,
                           const uint32_t *last_count, qr_build_readback *out)
{
    write_readback(scalars, last_offset ? *last_offset + *last_count : 0, out);
}

cudaError_t qr_launch_readback(const qr_readback_args *a, cudaStream_t st)
{
    k_readback<<<1, 1, 0, st>>>(a->scalars, a->last_offset, a->last_count, a->out);
    return cudaGetLastError();
}
