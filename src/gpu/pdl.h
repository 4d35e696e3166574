/* pdl.h — programmatic dependent launch (sm_90 and later), and the one
 * launch helper that uses it.
 *
 * A frame is a chain of short dependent kernels (the build's stages, then
 * the render), and a kernel's blocks normally start only after the kernel
 * before it has ended and its own launch has gone through. Launched with
 * qr_launch(..., pdl = 1, ...), a kernel may be scheduled while the one
 * before it still runs; the gap between the two goes away.
 *
 * The rules that keep that safe:
 *   - a kernel launched with pdl = 1 calls qr_pdl_wait() before it touches
 *     (reads or writes) any memory that earlier work in the stream uses; the
 *     wait returns once the kernel before it has ended and its writes are
 *     visible (and that kernel started only after everything before it);
 *   - pdl = 1 only where the operation queued just before is a kernel of
 *     the same frame (an event or a memset between takes the overlap away,
 *     and the first kernel of a frame must not overlap the last frame);
 *   - qr_pdl_release() lets the kernel queued behind be scheduled early; it
 *     orders nothing (the one behind still waits), so any kernel may call it
 *     first thing.
 * Before sm_90, and in kernels launched without the attribute, both calls
 * are no-ops. QR_PDL=0 at compile time turns the attribute off (for
 * measuring what it buys).
 */
#ifndef QR_PDL_H
#define QR_PDL_H

#include <cuda_runtime.h>

#include "gpu/device_limits.h"

#ifndef QR_PDL
#define QR_PDL 1
#endif

__device__ __forceinline__ void qr_pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
}

__device__ __forceinline__ void qr_pdl_release()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}

/* Whether the current device can overlap dependent launches (sm_90+);
 * asked once. */
static inline int qr_pdl_supported()
{
    static int known = -1;
    if (known < 0) known = qr_device_attribute(cudaDevAttrComputeCapabilityMajor, 0) >= 9;
    return known;
}

/* kernel<<<grid, block, smem, s>>>(args...), with pdl != 0 as a programmatic
 * dependent of the kernel queued before it (see the rules above). Returns
 * the launch's error. */
template <typename... Params, typename... Args>
static inline cudaError_t qr_launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem,
                                    cudaStream_t s, int pdl, Args... args)
{
    cudaLaunchAttribute at;
    at.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cfg.attrs = &at;
    cfg.numAttrs = QR_PDL && pdl && qr_pdl_supported() ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, kernel, args...);
}

#endif
