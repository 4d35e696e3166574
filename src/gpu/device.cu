/* gpu_device.cu — is there a GPU we can run on? (see quadrender/gpu.h) */
#include "quadrender/gpu_device.h"
#include "gpu/cuda_check.h"

#include <stdio.h>
#include <string.h>

/* A trivial kernel: asking for its attributes fails exactly when this binary
 * holds no machine code or PTX the device can run. */
__global__ void qr_probe_kernel(int *p)
{
    if (p) *p = 1;
}

extern "C" void qr_cuda_versions(int *runtime_version, int *driver_version)
{
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    if (runtime_version) *runtime_version = rt;
    if (driver_version) *driver_version = drv;
}

extern "C" const char *qr_gpu_compiled_archs(void)
{
    return QR_CUDA_ARCHS;
}

/* The device qr_gpu_select chose; -1: none chosen. */
static int qr_selected_device = -1;

extern "C" qr_status qr_gpu_select(int device, qr_error *err)
{
    if (device < 0)
        return qr_fail(err, QR_ERR_INVALID, "CUDA device %d: device numbers start at 0", device);
    qr_selected_device = device;
    return QR_OK;
}

extern "C" int qr_gpu_count(void)
{
    int drv = 0, count = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess || drv == 0) return 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

extern "C" qr_status qr_gpu_probe(qr_gpu_info *info, qr_error *err)
{
    return qr_gpu_probe_device(qr_selected_device, info, err);
}

extern "C" qr_status qr_gpu_probe_device(int device, qr_gpu_info *info, qr_error *err)
{
    qr_gpu_info local;
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    qr_cuda_versions(&info->runtime_version, &info->driver_version);
    if (info->driver_version == 0)
        return qr_fail(err, QR_ERR_NO_GPU, "no NVIDIA driver found (libcuda could not be loaded)");
    if (info->driver_version < info->runtime_version)
        return qr_fail(err, QR_ERR_NO_GPU,
                       "NVIDIA driver supports CUDA %d.%d but this build needs %d.%d",
                       info->driver_version / 1000, info->driver_version % 1000 / 10,
                       info->runtime_version / 1000, info->runtime_version % 1000 / 10);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        cudaGetLastError();
        return qr_fail(err, QR_ERR_NO_GPU, "no CUDA device found%s%s", e ? ": " : "",
                       e ? cudaGetErrorString(e) : "");
    }
    if (device >= 0) {
        if (device >= count)
            return qr_fail(err, QR_ERR_NO_GPU, "no CUDA device %d (%d device%s: 0%s%d)", device,
                           count, count == 1 ? "" : "s", count == 1 ? "" : " to ",
                           count == 1 ? 0 : count - 1);
        QR_CUDA_TRY(err, cudaSetDevice(device));
    }
    QR_CUDA_TRY(err, cudaGetDevice(&info->device));
    cudaDeviceProp prop;
    QR_CUDA_TRY(err, cudaGetDeviceProperties(&prop, info->device));
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->sm_count = prop.multiProcessorCount;
    cudaDeviceGetAttribute(&info->clock_khz, cudaDevAttrClockRate, info->device);
    cudaDeviceGetAttribute(&info->mem_clock_khz, cudaDevAttrMemoryClockRate, info->device);
    cudaDeviceGetAttribute(&info->mem_bus_bits, cudaDevAttrGlobalMemoryBusWidth, info->device);
    cudaFuncAttributes attr;
    e = cudaFuncGetAttributes(&attr, qr_probe_kernel);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return qr_fail(err, QR_ERR_NO_GPU,
                       "%s (sm_%d%d) cannot run this build (compiled for CUDA architectures %s): %s",
                       info->name, prop.major, prop.minor, QR_CUDA_ARCHS, cudaGetErrorString(e));
    }
    QR_CUDA_TRY(err, cudaMemGetInfo(&info->mem_free, &info->mem_total));
    return QR_OK;
}

extern "C" qr_status qr_gpu_host_alloc(size_t bytes, void **out, qr_error *err)
{
    *out = NULL;
    cudaError_t e = cudaMallocHost(out, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        cudaGetLastError();
        *out = NULL;
        return qr_fail(err, QR_ERR_NOMEM, "%zu bytes of page-locked host memory: %s", bytes,
                       cudaGetErrorString(e));
    }
    return QR_OK;
}

extern "C" void qr_gpu_host_free(void *p)
{
    /* nothing to report to: leave no error behind for the thread's next call */
    if (p && cudaFreeHost(p) != cudaSuccess) cudaGetLastError();
}
