/* bench.h — results of `quadrender bench` and their writers (table, JSON,
 * CSV, SVG plot), kept apart from the measuring loop in cmd_bench.c. */
#ifndef QR_CLI_BENCH_H
#define QR_CLI_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include <stdint.h>

#include "quadrender/error.h"
#include "quadrender/index.h"

/* Stages of one frame, in pipeline order; "other" is what the frame took
 * beyond the sum of the stages (launch gaps, the scalar read-back). */
enum {
    BENCH_BOXES, BENCH_TREE, BENCH_COUNT, BENCH_SCAN, BENCH_EMIT, BENCH_SORT, BENCH_RENDER,
    BENCH_OTHER, BENCH_NSTAGES
};
extern const char *const bench_stage_names[BENCH_NSTAGES];

typedef struct bench_stats {
    double median, min, max, p25, p75; /* milliseconds over the timed frames */
} bench_stats;

typedef struct bench_row {
    char scene[64];
    int size;
    int exact;           /* render mode */
    int grid_tile;       /* 0: the quadtree; else the uniform grid's tile side */
    int frames;
    bench_stats frame;   /* whole frame: index build + render */
    bench_stats build;   /* index build alone */
    double stage[BENCH_NSTAGES]; /* medians */
    int leaves;
    long long pairs;
    int visible;
    size_t device_bytes;
    double cpu_ms;       /* CPU reference, one frame; < 0 when not measured */
} bench_row;

/* "quadtree" or "grid16" */
const char *bench_index_name(const bench_row *r, char *buf, size_t len);

void bench_print_table(FILE *out, const bench_row *rows, int n);
/* Per scene, size and mode: the quadtree against the best grid tile. */
void bench_print_speedups(FILE *out, const bench_row *rows, int n);

qr_status bench_write_json(const char *path, const char *header_json, const bench_row *rows, int n,
                           qr_error *err);
qr_status bench_write_csv(const char *path, const bench_row *rows, int n, qr_error *err);
/* Per-scene bars of time per frame for each index, stacked by stage, on a
 * log axis; one panel per (size, mode). */
qr_status bench_write_svg(const char *path, const char *title, const bench_row *rows, int n,
                          qr_error *err);

/* `bench --e2e` (bench_e2e.c): for each scene and size, the first frame
 * as `render` runs it, stage by stage (load, upload, GPU, out: conversion,
 * download, PNG encoding and write), with throughputs, peak RSS and GPU
 * memory; a table to `out`. The PNG goes to $TMPDIR (or /tmp) and is
 * removed. */
qr_status bench_e2e(FILE *out, const char *const *scenes, int nscenes, const int *sizes,
                    int nsizes, int exact, uint32_t seed, const qr_index_params *qp,
                    qr_error *err);

/* `bench --cpu` (bench_cpu.c): the fast CPU renderer in exact and/or fast
 * mode beside the reference renderer, a table to `out`. */
qr_status bench_cpu(FILE *out, const char *const *scenes, int nscenes, const int *sizes, int nsizes,
                    int want_exact, int want_fast, int warmup, int frames, uint32_t seed,
                    const qr_index_params *qp, qr_error *err);

#endif
