/* parse_timer.c — development timer for scene input: reads a .circles or
 * .par file with the serial reader and with the parallel reader at several
 * thread counts (or a .npy file, or a built-in scene's generation), best of
 * N runs, and prints milliseconds and MB/s of file. Each parallel read is
 * also checked to equal the first read, bit for bit.
 * Usage: parse_timer [-n runs] [-t 1,2,16] [-p] FILE|SCENE... (-p: skip the
 * serial reader) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "quadrender/scene.h"
#include "scene/scene_internal.h"
#include "scene/io/scene_text.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* threads: -1 built-in or .npy (the product's reader), 0 serial, else parallel. */
static qr_status load(const char *spec, int threads, qr_scene **s, qr_error *err)
{
    if (threads < 0)
        return qr_scene_load(spec, 0, s, err);
    qr_text_kind kind = qr_path_has_ext(spec, ".par") ? QR_TEXT_PAR : QR_TEXT_CIRCLES;
    return qr_scene_read_text(spec, kind, threads, s, err);
}

static int same(const qr_scene *a, const qr_scene *b)
{
    return a->n == b->n && memcmp(a->block, b->block, a->block_floats * sizeof(float)) == 0;
}

int main(int argc, char **argv)
{
    int runs = 5;
    int threads[16], nthreads = 0;
    int first = 1, serial = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "-n") && first + 1 < argc) {
            runs = atoi(argv[++first]);
        } else if (!strcmp(argv[first], "-t") && first + 1 < argc) {
            for (char *p = strtok(argv[++first], ","); p && nthreads < 16; p = strtok(NULL, ","))
                threads[nthreads++] = atoi(p);
        } else if (!strcmp(argv[first], "-p")) {
            serial = 0;
        } else {
            fprintf(stderr, "usage: parse_timer [-n runs] [-t 1,2,16] [-p] FILE|SCENE...\n");
            return 2;
        }
    }
    if (nthreads == 0) {
        threads[nthreads++] = 1;
        threads[nthreads++] = qr_default_threads();
    }
    for (int f = first; f < argc; ++f) {
        const char *spec = argv[f];
        struct stat sb;
        double mb = stat(spec, &sb) == 0 ? (double)sb.st_size / 1e6 : 0.0;
        int text = qr_path_has_ext(spec, ".circles") || qr_path_has_ext(spec, ".par");
        int modes[18], nmodes = 0;
        if (text) {
            if (serial)
                modes[nmodes++] = 0;
            for (int t = 0; t < nthreads; ++t)
                modes[nmodes++] = threads[t];
        } else {
            modes[nmodes++] = -1;
        }
        qr_scene *ref = NULL;
        for (int m = 0; m < nmodes; ++m) {
            double best = 1e300;
            for (int r = 0; r < runs; ++r) {
                qr_scene *s;
                qr_error err;
                double t0 = now_ms();
                if (load(spec, modes[m], &s, &err) != QR_OK) {
                    fprintf(stderr, "parse_timer: %s\n", err.msg);
                    return 1;
                }
                double t = now_ms() - t0;
                best = t < best ? t : best;
                if (!ref) {
                    ref = s;
                } else {
                    if (!same(ref, s)) {
                        fprintf(stderr, "parse_timer: %s: mode %d differs\n", spec, modes[m]);
                        return 1;
                    }
                    qr_scene_destroy(s);
                }
            }
            const char *what = modes[m] < 0 ? "load" : modes[m] == 0 ? "serial" : "parallel";
            printf("%-30s %-8s threads %-3d %9.1f ms", spec, what, modes[m] > 0 ? modes[m] : 1,
                   best);
            if (mb > 0)
                printf("  %8.1f MB/s", mb / (best / 1e3));
            printf("  (%d circles)\n", (int)ref->n);
        }
        qr_scene_destroy(ref);
    }
    return 0;
}
