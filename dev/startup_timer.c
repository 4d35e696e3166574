/* startup_timer.c — what a process's CUDA start is made of: each step of
 * `quadrender render rgb -s 16` on the GPU, timed on the wall clock in one
 * fresh process (run it several times; the first step pays the driver's
 * start). Usage: startup_timer */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#include <cuda_runtime.h>

#include "quadrender/gpu.h"
#include "quadrender/scene.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define STEP(label, call)                                                       \
    do {                                                                        \
        double t0_ = now_ms();                                                  \
        call;                                                                   \
        printf("%-44s %8.1f ms\n", label, now_ms() - t0_);                      \
    } while (0)

int main(void)
{
    double start = now_ms();
    int n = 0, rt = 0;
    struct cudaDeviceProp prop;
    qr_gpu_info info;
    qr_error err;
    qr_scene *s = NULL;
    qr_gpu_scene *gs = NULL;
    qr_gpu_renderer *r = NULL;
    qr_index_params p;
    qr_index_params_default(&p);
    STEP("cudaRuntimeGetVersion (no driver call)", cudaRuntimeGetVersion(&rt));
    STEP("cudaGetDeviceCount (driver init)", cudaGetDeviceCount(&n));
    STEP("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0));
    STEP("qr_gpu_probe (cudaSetDevice: the context)", qr_gpu_probe(&info, &err));
    STEP("qr_scene_builtin rgb", qr_scene_builtin("rgb", 0, &s, &err));
    STEP("qr_gpu_scene_create (first kernel: module load)", qr_gpu_scene_create(s, &gs, &err));
    STEP("qr_gpu_renderer_create 16x16", qr_gpu_renderer_create(16, 16, &r, &err));
    STEP("qr_gpu_render, first (sized build)", qr_gpu_render(r, gs, &p, QR_RENDER_FAST, &err));
    STEP("cudaDeviceSynchronize", cudaDeviceSynchronize());
    STEP("qr_gpu_render, second", qr_gpu_render(r, gs, &p, QR_RENDER_FAST, &err));
    STEP("cudaDeviceSynchronize", cudaDeviceSynchronize());
    STEP("free all", (qr_gpu_renderer_destroy(r), qr_gpu_scene_destroy(gs), qr_scene_destroy(s)));
    printf("%-44s %8.1f ms\n", "total", now_ms() - start);
    return 0;
}
