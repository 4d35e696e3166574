/* tile_timer.c — development timer: one deep-zoom tile rendered alone
 * (qr_gpu_render_rect on the GPU, qr_render_cpu_fast_region on the CPU),
 * each timed tile a different one of its level, as a viewer asks them;
 * wall clock around the call (the GPU's includes its index build, the
 * conversion and the copy back), median and quartiles after warm-up.
 * Not part of the product.
 *
 *   tile_timer SCENE LEVEL [FRAMES [cpu|gpu [THREADS [fast|exact]]]]
 *
 * LEVEL z: the image is 256 * 2^z pixels a side. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"

#define T 256

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void die(const qr_error *err)
{
    fprintf(stderr, "tile_timer: %s\n", err->msg);
    exit(1);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tile_timer SCENE LEVEL [FRAMES [cpu|gpu [THREADS [fast|exact]]]]\n");
        return 2;
    }
    const int level = atoi(argv[2]), frames = argc > 3 ? atoi(argv[3]) : 50;
    const int cpu = argc > 4 && !strcmp(argv[4], "cpu"), threads = argc > 5 ? atoi(argv[5]) : 0;
    const qr_render_mode mode = argc > 6 && !strcmp(argv[6], "exact") ? QR_RENDER_EXACT : QR_RENDER_FAST;
    const int32_t side = T << level, n = 1 << level;
    qr_error err;
    qr_scene *s;
    double t0 = now_ms();
    if (qr_scene_load(argv[1], 0, &s, &err) != QR_OK) die(&err);
    const double load_ms = now_ms() - t0;
    qr_index_params p;
    qr_index_params_default(&p);
    qr_gpu_scene *gs = NULL;
    qr_gpu_renderer *r = NULL;
    if (!cpu) {
        t0 = now_ms();
        if (qr_gpu_scene_create(s, &gs, &err) || qr_gpu_renderer_create_bands(side, side, T, T, &r, &err))
            die(&err);
        printf("upload %.1f ms\n", now_ms() - t0);
    }
    unsigned char *rows = malloc((size_t)T * T * 4);
    qr_image img = {T, T, malloc((size_t)T * T * 4 * sizeof(float))};
    double *ms = malloc(sizeof(double) * (size_t)frames);
    unsigned long long lcg = 12345;
    const int warmup = 3;
    for (int f = 0; f < warmup + frames; f++) {
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        const int32_t tx = (int32_t)((lcg >> 33) % (unsigned long long)n);
        const int32_t ty = (int32_t)((lcg >> 13) % (unsigned long long)n);
        const qr_rect rc = {tx * T, ty * T, tx * T + T, ty * T + T};
        t0 = now_ms();
        qr_status st = cpu ? qr_render_cpu_fast_region(s, &p, mode, threads, side, side, &rc, &img, NULL, &err)
                           : qr_gpu_render_rect(r, gs, &p, mode, QR_FORMAT_PNG, &rc, rows, &err);
        if (st == QR_OK && cpu) st = qr_image_file_rows(&img, QR_FORMAT_PNG, 0, 0, T, rows, &err);
        if (st != QR_OK) die(&err);
        if (f >= warmup) ms[f - warmup] = now_ms() - t0;
    }
    qsort(ms, (size_t)frames, sizeof *ms, cmpd);
    printf("%s, %d circles (loaded in %.0f ms), level %d (%d^2), %s %s: a %d^2 tile in %.3f ms median "
           "(quartiles %.3f-%.3f, %d tiles)\n",
           s->name, s->n, load_ms, level, side, cpu ? "CPU" : "GPU", mode == QR_RENDER_FAST ? "fast" : "exact",
           T, ms[frames / 2], ms[frames / 4], ms[3 * frames / 4], frames);
    free(ms);
    free(rows);
    free(img.rgba);
    qr_gpu_renderer_destroy(r);
    qr_gpu_scene_destroy(gs);
    qr_scene_destroy(s);
    return 0;
}
