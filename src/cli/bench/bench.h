/* bench.h — results of `quadrender bench` and their writers (table, JSON,
 * CSV, SVG plot), kept apart from the measuring loop in cmd_bench.c.
 *
 * The writers call one way: bench_report.c (table, JSON, CSV, SVG) and
 * bench_scaling.c (the scaling report) both rest on bench_rows.c (names,
 * the best grid, the scaling points); bench_report.c calls bench_scaling.c
 * for the scaling points' JSON, never the other way. */
#ifndef QR_CLI_BENCH_H
#define QR_CLI_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include <stdint.h>

#include "quadrender/error.h"
#include "quadrender/gpu.h"
#include "quadrender/index.h"
#include "quadrender/render_mode.h"

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

/* What a row holds when its measurement ran out of memory (only the
 * scaling run goes on past that; the plain bench stops). */
enum { BENCH_FITS = 0, BENCH_OOM_GPU = 1, BENCH_OOM_HOST = 2 };

typedef struct bench_row {
    char scene[64];
    char group[16];      /* "CS149", "non-uniform", "zoo" or "" (a scene of none) */
    long long circles;   /* the scene's circle count */
    int oom;             /* BENCH_FITS, else nothing below `frames` is measured */
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
    size_t device_bytes; /* held by the renderer: image + index */
    size_t index_bytes;  /* the index's share of device_bytes */
    size_t scene_bytes;  /* the scene on the GPU, beside device_bytes */
    double cpu_ms;       /* CPU reference, one frame; < 0 when not measured */
    /* --plan: the quadtree's settings chosen by qr_gpu_renderer_plan (its
     * frames are those settings'), the planning's wall time, and the
     * median frame of the base settings among the candidates */
    int planned;
    qr_index_params chosen;
    double plan_ms, default_ms;
    int plan_candidates;
} bench_row;

/* Medians, quartiles and extremes of v[0..n-1] (sorts v). */
bench_stats bench_stats_of(double *v, int n);

/* One measurement into row (bench_measure.c): `warmup` untimed frames of
 * index build + render on r, then `frames` frames timed whole, as many
 * timed build and render apart, and as many stage by stage; also the
 * index's leaves, pairs and device bytes. */
qr_status bench_measure(qr_gpu_renderer *r, const qr_gpu_scene *gs,
                        const qr_index_params *p, int exact, int warmup, int frames,
                        bench_row *row, qr_error *err);

/* The same on the fast CPU renderer (bench_cpu.c), on qr_threads() threads:
 * `warmup` untimed frames of a w x h image, then `frames` timed ones (the
 * renderer's own build and render times); the frame, build and render
 * stats. */
qr_status bench_measure_cpu(const qr_scene *scene, int w, int h, const qr_index_params *p,
                            qr_render_mode mode, int warmup, int frames, bench_row *row,
                            qr_error *err);

/* ---- rows (bench_rows.c) ---------------------------------------------------- */

/* "quadtree" or "grid16" */
const char *bench_index_name(const bench_row *r, char *buf, size_t len);

/* What a row out of memory says: "out of host memory" or "out of memory". */
const char *bench_oom_text(int oom);

/* The grid row of the fastest tile with the same scene, size and mode as
 * `like` (rows that ran out of memory count only when all did); NULL when
 * there is none. */
const bench_row *bench_best_grid(const bench_row *rows, int n, const bench_row *like);

/* The zoo (`bench --zoo`) in one size and mode: the quadtree against the best
 * grid of each scene (its speedup, best grid ms / quadtree ms) over the zoo's
 * scenes (rows of group "zoo" whose quadtree and best grid were measured),
 * and against the best single tile, the one whose frames' geometric mean
 * over those scenes is least (what one grid for the whole zoo gives; a tile
 * that ran out of memory on any of them is not a candidate). */
typedef struct bench_zoo_line {
    int size, exact;
    int scenes;
    double min;          /* the least speedup */
    char min_scene[64];  /* the scene it was on */
    double geomean;      /* the geometric mean of the speedups */
    int behind;          /* scenes whose speedup is below BENCH_BEHIND */
    int single_tile;     /* the best single tile; 0: none */
    double single;       /* its frames' geometric mean / the quadtree's */
} bench_zoo_line;

#define BENCH_BEHIND 0.98

/* The zoo's lines, one per size and mode in the rows' first-seen order, at
 * most max; returns how many. */
int bench_zoo_summary(const bench_row *rows, int n, bench_zoo_line *out, int max);

/* ---- tables and files (bench_report.c) --------------------------------------- */

/* Tables of rows in order; a heading line starts each family of scenes
 * (bench_row.group) when there are several. */
void bench_print_table(FILE *out, const bench_row *rows, int n);
/* Per scene, size and mode: the quadtree against the best grid tile. */
void bench_print_speedups(FILE *out, const bench_row *rows, int n);

/* The zoo's lines as a table (nothing without zoo rows). */
void bench_print_zoo(FILE *out, const bench_row *rows, int n);

/* All rows, and per scene, size and mode the quadtree against the best
 * grid ("speedups"); with zoo rows, the zoo's lines ("zoo"); with
 * `scaling`, also the points of the scaling report ("scaling", as
 * bench_print_scaling). */
qr_status bench_write_json(const char *path, const char *header_json, const bench_row *rows, int n,
                           int scaling, qr_error *err);
/* The same object to a stream (no error of the stream's own is checked). */
qr_status bench_write_json_to(FILE *f, const char *header_json, const bench_row *rows, int n,
                              int scaling, qr_error *err);
qr_status bench_write_csv(const char *path, const bench_row *rows, int n, qr_error *err);
/* Per-scene bars of time per frame for each index, stacked by stage, on a
 * log axis; one panel per (size, mode). */
qr_status bench_write_svg(const char *path, const char *title, const bench_row *rows, int n,
                          qr_error *err);

/* ---- the scaling report (points: bench_rows.c; writers: bench_scaling.c) ------
 * Frame time against circle count. A scene named FAMILY:COUNT ("uniform:10k",
 * "clustered:100M") is a point of FAMILY's curve; any other scene is a family
 * of its own. Per family, size, mode and index kind (the quadtree, the best
 * grid tile) one curve; a point that ran out of memory shows where memory
 * ends. */

/* Splits a scene name into its family and the count its name gives (COUNT
 * is digits with an optional k, M or G suffix: 10k = 10000). Returns 1 for
 * FAMILY:COUNT; else 0, the whole name as the family and *count 0. */
int bench_scene_family(const char *scene, char *family, size_t len, long long *count);

typedef struct bench_point {
    const bench_row *row; /* the quadtree's row, or the best grid tile's */
    char family[64];
    int best_grid;        /* 0: the quadtree */
} bench_point;

/* The circle count a point is drawn at: its scene's, else its name's (a
 * scene that never loaded). */
long long bench_point_circles(const bench_point *p);

/* The points of the report, two per (scene, size, mode) at most, ordered by
 * family (in first-seen order), size, mode, index kind and circle count;
 * `pts` holds room for 2 * n. Returns how many, or -1 out of host memory. */
int bench_scaling_points(const bench_row *rows, int n, bench_point *pts);

/* The table of points: frame time, pairs, leaves and device bytes (index,
 * image, scene, total), or where memory ran out. */
qr_status bench_print_scaling(FILE *out, const bench_row *rows, int n, qr_error *err);
/* The points as a JSON array (no trailing newline); for bench_write_json. */
void bench_write_scaling_json(FILE *f, const bench_point *pts, int npts);
/* A row of panels per mode, plotting against the circle count frame time,
 * pairs and device memory, all on log axes: a line per (family, size,
 * index kind), points out of memory as crosses along a panel's top, and
 * with gpu_bytes > 0 the GPU's memory as a line among the bytes. */
qr_status bench_write_scaling_svg(const char *path, const char *title, const bench_row *rows, int n,
                                  size_t gpu_bytes, qr_error *err);

/* `bench --e2e` (bench_e2e.c): for each scene and size, the first frame
 * as `render` runs it, stage by stage (load, upload, GPU, out: conversion,
 * download, PNG encoding and write), with throughputs, peak RSS and GPU
 * memory; a table to `out`. The PNG goes to $TMPDIR (or /tmp) and is
 * removed. */
qr_status bench_e2e(FILE *out, const char *const *scenes, int nscenes, const int *sizes,
                    int nsizes, int exact, uint32_t seed, const qr_index_params *qp,
                    qr_error *err);

/* `bench --query` (bench_query.c): point and box queries on the GPU, the
 * quadtree's index against the uniform grid at each tile and the
 * brute-force kernel, a table to `out` (and JSON rows to json_path, "-":
 * stdout). */
qr_status bench_query(FILE *out, const char *const *scenes, int nscenes, uint32_t seed, int warmup,
                      int frames, const char *json_path, qr_error *err);

/* `bench --cpu` (bench_cpu.c): the fast CPU renderer in exact and/or fast
 * mode beside the reference renderer, a table to `out`. */
qr_status bench_cpu(FILE *out, const char *const *scenes, int nscenes, const int *sizes, int nsizes,
                    int want_exact, int want_fast, int warmup, int frames, uint32_t seed,
                    const qr_index_params *qp, qr_error *err);

#endif
