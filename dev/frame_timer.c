/* frame_timer.c — development timer: per-stage GPU frame times for a list of
 * scenes (CUDA events, warm-up, median/min/max of N frames). Not part of the
 * product; `quadrender bench` is. Usage: frame_timer [-n frames] [-s size]
 * [--cap C] [--leaf L] [--uniform] [--window W] [--timing frame|totals|stages]
 * scene... (W: exact mode's first window, 0 for whole lists; timing: which
 * events a frame records, qr_timing — with `frame` only the frame column is
 * measured, and nothing inside the frame keeps kernels from starting early) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/tuning.h"
#include "quadrender/gpu.h"
#include "quadrender/scene.h"

static int cmpf(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static float median(float *v, int n)
{
    qsort(v, n, sizeof *v, cmpf);
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int frames = 30, size = 1024, window = QR_EXACT_WINDOW;
    qr_timing timing = QR_TIMING_STAGES;
    qr_index_params p;
    qr_index_params_default(&p);
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "-n")) frames = atoi(argv[++first]);
        else if (!strcmp(argv[first], "-s")) size = atoi(argv[++first]);
        else if (!strcmp(argv[first], "--cap")) p.capacity = atoi(argv[++first]);
        else if (!strcmp(argv[first], "--leaf")) p.min_leaf = atoi(argv[++first]);
        else if (!strcmp(argv[first], "--uniform")) p.uniform = 1;
        else if (!strcmp(argv[first], "--window")) window = atoi(argv[++first]);
        else if (!strcmp(argv[first], "--timing")) {
            const char *t = argv[++first];
            timing = !strcmp(t, "frame") ? QR_TIMING_FRAME : !strcmp(t, "totals") ? QR_TIMING_TOTALS : QR_TIMING_STAGES;
        }
    }
    qr_error err;
    qr_gpu_info info;
    if (qr_gpu_probe(&info, &err)) { fprintf(stderr, "%s\n", err.msg); return 1; }
    printf("# %s, %dx%d, cap %d leaf %d uniform %d, exact window %d, median of %d frames (min..max)\n",
           info.name, size, size, p.capacity, p.min_leaf, p.uniform, window, frames);
    printf("%-12s %-5s %8s %8s %8s %8s %8s %8s %8s %8s %8s %9s %7s %8s\n", "scene", "mode", "boxes", "tree",
           "count", "scan", "emit", "sort", "build", "render", "frame", "frame.min", "leaves", "pairs");
    for (int a = first; a < argc; a++) {
        qr_scene *s = NULL;
        if (qr_scene_load(argv[a], 0, &s, &err)) { fprintf(stderr, "%s\n", err.msg); return 1; }
        qr_gpu_scene *gs = NULL;
        qr_gpu_renderer *r = NULL;
        if (qr_gpu_scene_create(s, &gs, &err) || qr_gpu_renderer_create(size, size, &r, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        qr_gpu_renderer_set_timing(r, timing);
        qr_gpu_renderer_set_exact_window(r, window);
        for (int mode = 1; mode >= 0; mode--) {
            float *t[10];
            for (int k = 0; k < 10; k++) t[k] = calloc(frames, sizeof(float));
            for (int f = -5; f < frames; f++) {
                if (qr_gpu_render(r, gs, &p, (qr_render_mode)mode, &err)) {
                    fprintf(stderr, "%s\n", err.msg);
                    return 1;
                }
                if (f < 0) continue;
                qr_frame_timing ft;
                qr_gpu_renderer_timing(r, &ft, &err);
                t[0][f] = ft.build.boxes_ms; t[1][f] = ft.build.tree_ms; t[2][f] = ft.build.count_ms;
                t[3][f] = ft.build.scan_ms; t[4][f] = ft.build.emit_ms; t[5][f] = ft.build.sort_ms;
                t[6][f] = ft.build.total_ms; t[7][f] = ft.render_ms; t[8][f] = ft.frame_ms;
            }
            qr_index *ix = NULL;
            qr_gpu_index_download(qr_gpu_renderer_index(r), &ix, &err);
            float med[9];
            for (int k = 0; k < 9; k++) med[k] = median(t[k], frames);
            printf("%-12s %-5s %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %9.4f %7d %8lld\n",
                   s->name, mode ? "exact" : "fast", med[0], med[1], med[2], med[3], med[4], med[5],
                   med[6], med[7], med[8], t[8][0], ix->num_leaves, (long long)ix->num_pairs);
            qr_index_destroy(ix);
            for (int k = 0; k < 10; k++) free(t[k]);
        }
        qr_gpu_renderer_destroy(r);
        qr_gpu_scene_destroy(gs);
        qr_scene_destroy(s);
    }
    return 0;
}
