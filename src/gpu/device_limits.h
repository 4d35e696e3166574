/* device_limits.h — limits of the current device that a launch must
 * respect, asked once (per translation unit). Kernels that take more than
 * the default 48 KiB of shared memory fall back to another way where the
 * device's opt-in limit is below what they need (Turing: 64 KiB; Ampere
 * and later: 99 KiB or more). */
#ifndef QR_DEVICE_LIMITS_H
#define QR_DEVICE_LIMITS_H

#include <cuda_runtime.h>

/* Resident threads per SM of the architecture being compiled (device
 * code; 2048 in host code), and the minimum blocks per SM a kernel of
 * `threads` threads may ask of __launch_bounds__ there: `want`, or as many
 * as fit. ptxas refuses a minimum that cannot fit (sm_75 holds 1024
 * threads, sm_86 and sm_89 1536, sm_80 and sm_90 2048); the value asked
 * for sm_90 is always `want`. */
#if !defined(__CUDA_ARCH__)
#define QR_SM_THREADS 2048
#elif __CUDA_ARCH__ < 800
#define QR_SM_THREADS 1024
#elif __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030
#define QR_SM_THREADS 2048
#else
#define QR_SM_THREADS 1536
#endif
#define QR_MIN_BLOCKS(threads, want) \
    ((want) * (threads) <= QR_SM_THREADS ? (want) : QR_SM_THREADS / (threads))

/* An attribute of the current device, or `fallback` when it cannot be
 * asked or is not positive. The functions below ask once and keep it. */
static inline int qr_device_attribute(cudaDeviceAttr attr, int fallback)
{
    int dev = 0, v = 0;
    return cudaGetDevice(&dev) == cudaSuccess &&
                   cudaDeviceGetAttribute(&v, attr, dev) == cudaSuccess && v > 0
               ? v
               : fallback;
}

/* Shared memory one block may opt in to, in bytes (48 KiB if unknown). */
static inline int qr_device_smem_optin()
{
    static int known = -1;
    if (known < 0) known = qr_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, 48 * 1024);
    return known;
}

/* Streaming multiprocessors of the current device (132 if unknown). */
static inline int qr_device_sms()
{
    static int known = -1;
    if (known < 0) known = qr_device_attribute(cudaDevAttrMultiProcessorCount, 132);
    return known;
}

#endif
