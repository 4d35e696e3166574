/* scene_gen_timer.c — development timer: how long built-in scene
 * generation takes on the host (qr_scene_builtin, allocation included),
 * as median, min, max and interquartile spread of N runs after one
 * warm-up. Generation speed is measured here, not asserted in tests: a
 * time depends on the machine, its load and sanitizers.
 * Usage: scene_gen_timer [-n runs] [--seed S] [scene...] (default: every
 * built-in) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "quadrender/scene.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* Times `runs` generations of `name` into t (sorted), *n its circles; 0 on
 * success. */
static int time_scene(const char *name, uint32_t seed, int runs, double *t, int32_t *n)
{
    for (int k = -1; k < runs; k++) { /* k = -1: warm-up (page faults, caches) */
        qr_error err;
        qr_scene *s = NULL;
        const double t0 = now_ms();
        if (qr_scene_builtin(name, seed, &s, &err) != QR_OK) {
            fprintf(stderr, "scene_gen_timer: %s\n", err.msg);
            return 1;
        }
        const double dt = now_ms() - t0;
        *n = s->n;
        qr_scene_destroy(s);
        if (k >= 0) t[k] = dt;
    }
    cli_sort_doubles(t, runs);
    return 0;
}

int main(int argc, char **argv)
{
    int runs = 11, first = 1;
    uint32_t seed = 0;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "-n") && first + 1 < argc) runs = atoi(argv[++first]);
        else if (!strcmp(argv[first], "--seed") && first + 1 < argc)
            seed = (uint32_t)strtoul(argv[++first], NULL, 10);
        else {
            fprintf(stderr, "usage: scene_gen_timer [-n runs] [--seed S] [scene...]\n");
            return 2;
        }
    }
    if (runs < 1) {
        fprintf(stderr, "scene_gen_timer: -n must be at least 1\n");
        return 2;
    }
    int count = 0;
    const qr_builtin_info *table = qr_builtin_scenes(&count);
    const int nscenes = first < argc ? argc - first : count;
    double *t = malloc((size_t)runs * sizeof *t);
    if (!t) return 1;
    printf("# host generation time of built-in scenes, ms, over %d runs after 1 warm-up\n", runs);
    printf("%-14s %9s %10s %10s %10s %10s %10s\n", "scene", "circles", "median", "min", "max",
           "p25", "p75");
    for (int a = 0; a < nscenes; a++) {
        const char *name = first < argc ? argv[first + a] : table[a].name;
        int32_t n = 0;
        if (time_scene(name, seed, runs, t, &n)) {
            free(t);
            return 1;
        }
        printf("%-14s %9d %10.3f %10.3f %10.3f %10.3f %10.3f\n", name, n, cli_quantile(t, runs, 0.5),
               t[0], t[runs - 1], cli_quantile(t, runs, 0.25), cli_quantile(t, runs, 0.75));
    }
    free(t);
    return 0;
}
