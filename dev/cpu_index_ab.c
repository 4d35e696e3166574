/* cpu_index_ab.c — development timer: the fast CPU renderer's fast mode on
 * the tree fast mode's split rule makes against exact mode's (the one it
 * builds, qr_render_cpu_fast_index_mode), on the same binary. Per scene:
 * both host trees (leaves); where they differ, `rounds` alternated rounds
 * of build + render (qr_index_build_host_threads + qr_render_cpu_index) on
 * each, the medians' median. Scenes whose trees agree are only counted.
 * Usage: cpu_index_ab [-s SIZE] [-r ROUNDS] [-t THREADS] scene... */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The parameters the fast CPU renderer builds with: the defaults, no leaf
 * below QR_TILE. */
static qr_index_params params(void)
{
    qr_index_params p;
    qr_index_params_default(&p);
    p.min_leaf = p.min_leaf < QR_TILE ? QR_TILE : p.min_leaf;
    return p;
}

/* One frame's build + render of `s` in fast mode on the tree of `tree`. */
static double frame(const qr_scene *s, int side, qr_render_mode tree, int threads, qr_image *img)
{
    qr_error err;
    const qr_index_params p = params();
    const double t0 = now_ms();
    qr_index *ix = NULL;
    if (qr_index_build_host_threads(s, side, side, NULL, &p, tree, threads, &ix, &err) != QR_OK ||
        qr_render_cpu_index(s, ix, QR_RENDER_FAST, threads, img, &err) != QR_OK) {
        fprintf(stderr, "cpu_index_ab: %s\n", err.msg);
        exit(1);
    }
    const double t = now_ms() - t0;
    qr_index_destroy(ix);
    return t;
}

static int leaves(const qr_scene *s, int side, qr_render_mode tree)
{
    qr_error err;
    const qr_index_params p = params();
    qr_index *ix = NULL;
    if (qr_index_build_host(s, side, side, NULL, &p, tree, &ix, &err) != QR_OK) {
        fprintf(stderr, "cpu_index_ab: %s\n", err.msg);
        exit(1);
    }
    const int n = ix->num_leaves;
    qr_index_destroy(ix);
    return n;
}

int main(int argc, char **argv)
{
    int side = 1024, rounds = 5, threads = 0, a = 1;
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        if (!strcmp(argv[a], "-s")) side = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "-r")) rounds = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "-t")) threads = atoi(argv[a + 1]);
    }
    if (a >= argc || side < 1 || rounds < 1 || rounds > 64) {
        fprintf(stderr, "usage: cpu_index_ab [-s SIZE] [-r ROUNDS] [-t THREADS] scene...\n");
        return 2;
    }
    qr_image *img = NULL;
    qr_error err;
    if (qr_image_create(side, side, &img, &err) != QR_OK) return 1;
    int same = 0;
    printf("%-10s %7s %7s %10s %10s %7s\n", "scene", "leaves", "leaves", "fast tree", "exact tree",
           "ratio");
    for (; a < argc; a++) {
        qr_scene *s = NULL;
        if (qr_scene_load(argv[a], 0, &s, &err) != QR_OK || qr_scene_seek_frame(s, 0, &err) != QR_OK) {
            fprintf(stderr, "cpu_index_ab: %s\n", err.msg);
            return 1;
        }
        const int lf = leaves(s, side, QR_RENDER_FAST), le = leaves(s, side, QR_RENDER_EXACT);
        if (lf == le) {
            same++;
            qr_scene_destroy(s);
            continue;
        }
        double tf[64], te[64];
        frame(s, side, QR_RENDER_FAST, threads, img); /* warm-up */
        frame(s, side, QR_RENDER_EXACT, threads, img);
        for (int r = 0; r < rounds; r++) {
            double f[3], e[3];
            for (int k = 0; k < 3; k++) {
                f[k] = frame(s, side, QR_RENDER_FAST, threads, img);
                e[k] = frame(s, side, QR_RENDER_EXACT, threads, img);
            }
            qsort(f, 3, sizeof *f, cmp);
            qsort(e, 3, sizeof *e, cmp);
            tf[r] = f[1];
            te[r] = e[1];
        }
        qsort(tf, (size_t)rounds, sizeof *tf, cmp);
        qsort(te, (size_t)rounds, sizeof *te, cmp);
        printf("%-10s %7d %7d %10.2f %10.2f %6.2fx\n", s->name, lf, le, tf[rounds / 2],
               te[rounds / 2], tf[rounds / 2] / te[rounds / 2]);
        fflush(stdout);
        qr_scene_destroy(s);
    }
    printf("# %d scene(s) with the same tree for both rules (not timed)\n", same);
    qr_image_destroy(img);
    return 0;
}
