/* quadrender/gpu_device.h — finding out whether a usable GPU is there, and which; page-locked
 * host memory (src/gpu/device.cu).
 *
 * qr_gpu_probe answers with QR_ERR_NO_GPU and the reason (no driver, driver
 * too old, no device, binary not built for this device's architecture), so
 * that `--device auto` can fall back to the CPU and `--device gpu` can fail
 * with a message a user understands.
 */
#ifndef QUADRENDER_GPU_DEVICE_H
#define QUADRENDER_GPU_DEVICE_H

#include <stddef.h>
#include <stdint.h>
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
    int mem_bus_bits;       /* memory bus width: peak bytes/s =
                               2 * mem_clock_khz * 1000 * mem_bus_bits / 8 */
} qr_gpu_info;

/* Makes qr_gpu_probe use CUDA device `device` (0, 1, ... as the CUDA
 * runtime numbers them: after $CUDA_VISIBLE_DEVICES, in nvidia-smi's order
 * when CUDA_DEVICE_ORDER=PCI_BUS_ID). Touches no CUDA state itself, so a
 * program can call it before knowing whether it will use the GPU; a device
 * that is not there is reported by qr_gpu_probe. QR_ERR_INVALID for a
 * negative number. */
qr_status qr_gpu_select(int device, qr_error *err);

/* Checks the selected device (qr_gpu_select; else the calling thread's
 * current device, 0 unless the program chose another) can run our kernels
 * and makes it the calling thread's current device (cudaSetDevice, before
 * any other CUDA work of this library): call it, then do the CUDA work, on
 * the same thread. */
qr_status qr_gpu_probe(qr_gpu_info *info, qr_error *err);

/* qr_gpu_probe of CUDA device `device` (-1: the calling thread's current
 * one), whatever qr_gpu_select chose: for a program that drives several
 * GPUs, each from a thread of its own. */
qr_status qr_gpu_probe_device(int device, qr_gpu_info *info, qr_error *err);

/* How many CUDA devices the driver shows: 0 without a driver or a device. */
int qr_gpu_count(void);

/* CUDA runtime version this binary was built against, and the driver's (0 if none). */
void qr_cuda_versions(int *runtime_version, int *driver_version);

/* The CUDA architectures compiled in, e.g. "90". */
const char *qr_gpu_compiled_archs(void);

/* Page-locked host memory of `bytes` (for qr_gpu_render_rows' output:
 * copies into it run at the bus's speed, where pageable memory goes through
 * the driver's staging buffers), usable with every GPU; QR_ERR_NOMEM when
 * the system refuses. Free it with qr_gpu_host_free (NULL: no-op). */
qr_status qr_gpu_host_alloc(size_t bytes, void **out, qr_error *err);
void qr_gpu_host_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
