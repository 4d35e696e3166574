/* quadrender/gpu.h — finding out whether a usable GPU is there, and which.
 *
 * qr_gpu_probe answers with QR_ERR_NO_GPU and the reason (no driver, driver
 * too old, no device, binary not built for this device's architecture), so
 * that `--device auto` can fall back to the CPU and `--device gpu` can fail
 * with a message a user understands.
 */
#ifndef QUADRENDER_GPU_H
#define QUADRENDER_GPU_H

#include <stddef.h>
#include "quadrender/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qr_gpu_info {
    int device;             /* CUDA device ordinal in use */
    char name[256];
    int cc_major, cc_minor; /* compute capability */
    int sm_count;
    size_t mem_total, mem_free;
    int clock_khz, mem_clock_khz;
    int runtime_version;    /* e.g. 13000 */
    int driver_version;     /* 0 when no driver */
} qr_gpu_info;

/* Checks device 0 (or $CUDA_VISIBLE_DEVICES' first) can run our kernels. */
qr_status qr_gpu_probe(qr_gpu_info *info, qr_error *err);

/* CUDA runtime version this binary was built against, and the driver's (0 if none). */
void qr_cuda_versions(int *runtime_version, int *driver_version);

/* The CUDA architectures compiled in, e.g. "90". */
const char *qr_gpu_compiled_archs(void);

#ifdef __cplusplus
}
#endif
#endif
