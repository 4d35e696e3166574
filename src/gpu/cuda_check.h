/* cuda_check.h — one way to check every CUDA call and launch.
 *
 * Library code returns errors instead of aborting, so the macros turn a
 * failing call into a qr_status with "file:line: call: cudaError text" and
 * jump out of the current function via `return`.
 *
 *   QR_CUDA_TRY(err, cudaMemcpy(...));          // returns qr_status on failure
 *   kernel<<<g, b, 0, s>>>(...); QR_CUDA_TRY(err, cudaGetLastError());
 */
#ifndef QR_CUDA_CHECK_H
#define QR_CUDA_CHECK_H

#include <cuda_runtime.h>
#include "quadrender/error.h"

/* Maps a CUDA error to our status: memory errors are QR_ERR_GPU_NOMEM,
 * missing driver/device/kernel image QR_ERR_NO_GPU, the rest QR_ERR_CUDA. */
static inline qr_status qr_cuda_status(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return QR_OK;
    case cudaErrorMemoryAllocation: return QR_ERR_GPU_NOMEM;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice: return QR_ERR_NO_GPU;
    default: return QR_ERR_CUDA;
    }
}

#define QR_CUDA_TRY(err, call)                                                              \
    do {                                                                                    \
        cudaError_t qr_e_ = (call);                                                         \
        if (qr_e_ != cudaSuccess)                                                           \
            return qr_fail((err), qr_cuda_status(qr_e_), "%s:%d: %s: %s", __FILE__,          \
                           __LINE__, #call, cudaGetErrorString(qr_e_));                     \
    } while (0)

/* Same, but jumps to a cleanup label with `st` set instead of returning. */
#define QR_CUDA_GOTO(err, st, label, call)                                                  \
    do {                                                                                    \
        cudaError_t qr_e_ = (call);                                                         \
        if (qr_e_ != cudaSuccess) {                                                         \
            (st) = qr_fail((err), qr_cuda_status(qr_e_), "%s:%d: %s: %s", __FILE__,          \
                           __LINE__, #call, cudaGetErrorString(qr_e_));                     \
            goto label;                                                                     \
        }                                                                                   \
    } while (0)

#endif
