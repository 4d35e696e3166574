/* bench_query.c — `quadrender bench --query`: point and box queries on the
 * GPU (quadrender/gpu_query.h), the quadtree against the uniform grid at
 * each tile and the brute-force kernel, in the same run (bench.h).
 *
 * Per scene: 10M points uniform over the square and 100k boxes of side
 * 0.01, made on the host from a fixed seed and uploaded once (the queries
 * start on the GPU). A measurement is warm-up runs, then timed ones, each
 * the index's build (qr_gpu_query_rebuild, wall clock, as a user of a
 * changing scene pays it) plus the query (CUDA events around its kernels);
 * medians. The brute-force kernel (every circle against every point, no
 * index) is timed on the first 1/QB_BRUTE_SHARE of the points and scaled
 * up: its work is linear in the points. The floor is the bytes any method
 * must move (points in, answers out) at the GPU's peak memory bandwidth.
 */
#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "quadrender/gpu.h"
#include "quadrender/gpu_query.h"
#include "quadrender/query.h"
#include "quadrender/text.h"
#include "quadrender/threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QB_POINTS 10000000
#define QB_BOXES 100000
#define QB_BOX_SIDE 0.01f
#define QB_BRUTE_SHARE 100
#define QB_GRIDS 5 /* tiles of 4 to 64 cells */

enum { QB_TOP, QB_COUNT, QB_ALL, QB_BOX_COUNT, QB_BOX_ALL, QB_QUERIES };
static const char *const query_names[QB_QUERIES] = {"points top", "points count", "points all",
                                                    "boxes count", "boxes all"};

typedef struct qb_time {
    double total_ms; /* build + query, median */
    double query_ms; /* the query alone, median */
} qb_time;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float unit(uint64_t *s)
{
    return (float)(splitmix(s) >> 40) * (1.0f / 16777216.0f);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One query kind on q: warmup + frames runs of build + query. brute: the
 * brute-force kernel on the first n / QB_BRUTE_SHARE points, no build. */
static qr_status time_query(qr_gpu_query *q, int kind, const float *d_pts, const float *d_boxes,
                            int brute, int warmup, int frames, qb_time *t, qr_error *err)
{
    double total[64], query[64];
    memset(t, 0, sizeof *t);
    for (int f = 0; f < warmup + frames; f++) {
        const double t0 = cli_now_ms();
        qr_status st = brute ? QR_OK : qr_gpu_query_rebuild(q, err);
        qr_query_result r;
        if (st == QR_OK) {
            if (brute)
                st = qr_gpu_query_points_brute(q, d_pts, QB_POINTS / QB_BRUTE_SHARE,
                                               kind == QB_TOP ? QR_QUERY_TOP : QR_QUERY_COUNT, &r, err);
            else if (kind >= QB_BOX_COUNT)
                st = qr_gpu_query_boxes(q, d_boxes, QB_BOXES,
                                        kind == QB_BOX_ALL ? QR_QUERY_ALL : QR_QUERY_COUNT, &r, err);
            else
                st = qr_gpu_query_points(q, d_pts, QB_POINTS, (qr_query_mode)kind, &r, err);
        }
        float ms = 0.0f;
        if (st == QR_OK) st = qr_gpu_query_last_ms(q, &ms, err);
        if (st != QR_OK) return st;
        const double wall = cli_now_ms() - t0;
        if (f >= warmup) {
            total[f - warmup] = brute ? wall * QB_BRUTE_SHARE : wall;
            query[f - warmup] = brute ? ms * (double)QB_BRUTE_SHARE : ms;
        }
    }
    t->total_ms = median(total, frames);
    t->query_ms = median(query, frames);
    return QR_OK;
}

static qr_status bench_query_scene(FILE *out, FILE *json, int first, const char *name, uint32_t seed,
                                   int warmup, int frames, double peak_gbs, qr_error *err)
{
    qr_scene *scene = NULL;
    float *pts = NULL, *bx = NULL, *d_pts = NULL, *d_boxes = NULL;
    qr_gpu_query *quad = NULL, *grids[QB_GRIDS] = {NULL};
    qr_status st = qr_scene_load(name, seed, &scene, err);
    if (st != QR_OK) return st;
    pts = malloc((size_t)QB_POINTS * 2 * sizeof(float));
    bx = malloc((size_t)QB_BOXES * 4 * sizeof(float));
    if (!pts || !bx) {
        st = qr_fail(err, QR_ERR_NOMEM, "out of host memory: the bench's queries");
        goto done;
    }
    uint64_t s = 0x5eed0000ull + seed;
    for (int64_t p = 0; p < 2 * (int64_t)QB_POINTS; p++) pts[p] = unit(&s);
    for (int64_t b = 0; b < QB_BOXES; b++) {
        const float x = unit(&s) * (1.0f - QB_BOX_SIDE), y = unit(&s) * (1.0f - QB_BOX_SIDE);
        bx[4 * b] = x, bx[4 * b + 1] = y, bx[4 * b + 2] = x + QB_BOX_SIDE, bx[4 * b + 3] = y + QB_BOX_SIDE;
    }
    if ((st = qr_gpu_query_upload(pts, 2 * (int64_t)QB_POINTS, &d_pts, err)) != QR_OK) goto done;
    if ((st = qr_gpu_query_upload(bx, 4 * (int64_t)QB_BOXES, &d_boxes, err)) != QR_OK) goto done;
    if ((st = qr_gpu_query_create(scene, 0, NULL, &quad, err)) != QR_OK) goto done;
    const int32_t res = qr_gpu_query_resolution(quad);
    for (int g = 0; g < QB_GRIDS; g++) {
        qr_index_params gp;
        qr_index_params_default(&gp);
        gp.uniform = 1;
        gp.min_leaf = 4 << g;
        if ((st = qr_gpu_query_create(scene, res, &gp, &grids[g], err)) != QR_OK) goto done;
    }
    for (int k = 0; k < QB_QUERIES; k++) {
        qb_time tq, tg[QB_GRIDS], tb = {0};
        if ((st = time_query(quad, k, d_pts, d_boxes, 0, warmup, frames, &tq, err)) != QR_OK) goto done;
        int best = 0;
        for (int g = 0; g < QB_GRIDS; g++) {
            if ((st = time_query(grids[g], k, d_pts, d_boxes, 0, warmup, frames, &tg[g], err)) != QR_OK)
                goto done;
            if (tg[g].total_ms < tg[best].total_ms) best = g;
        }
        const int brute = k == QB_TOP || k == QB_COUNT;
        if (brute && (st = time_query(quad, k, d_pts, d_boxes, 1, 1, 3, &tb, err)) != QR_OK) goto done;
        /* the floor: queries in, answers out (ALL: offsets and circles) */
        const int boxes = k >= QB_BOX_COUNT, all = k == QB_ALL || k == QB_BOX_ALL;
        const double nq = boxes ? QB_BOXES : QB_POINTS;
        const double ids = all ? (double)qr_gpu_query_last_total(quad) : 0.0;
        const double bytes = nq * (boxes ? 16 : 8) + nq * (all ? 8 : 4) + 4 * ids;
        const double floor_ms = bytes / (peak_gbs * 1e9) * 1e3;
        fprintf(out, "%-10s %8d %5d  %-12s  %8.3f %8.3f   grid%-3d %8.3f %8.3f  %5.2fx", scene->name,
                scene->n, res, query_names[k], tq.total_ms, tq.query_ms, 4 << best, tg[best].total_ms,
                tg[best].query_ms, tg[best].total_ms / tq.total_ms);
        if (brute)
            fprintf(out, "  %9.2f %7.1fx", tb.query_ms, tb.query_ms / tq.total_ms);
        else
            fprintf(out, "  %9s %8s", "-", "-");
        fprintf(out, "  %7.3f\n", floor_ms);
        fflush(out);
        if (json) {
            fprintf(json, "%s    {\"scene\": ", first ? "" : ",\n");
            first = 0;
            qr_json_write_string(json, scene->name);
            fprintf(json,
                    ", \"circles\": %d, \"resolution\": %d, \"query\": \"%s\", \"queries\": %.0f, "
                    "\"quadtree_ms\": %.4f, \"quadtree_query_ms\": %.4f, \"grid_tile\": %d, "
                    "\"grid_ms\": %.4f, \"grid_query_ms\": %.4f, \"grids_ms\": [",
                    scene->n, res, query_names[k], nq, tq.total_ms, tq.query_ms, 4 << best,
                    tg[best].total_ms, tg[best].query_ms);
            for (int g = 0; g < QB_GRIDS; g++) fprintf(json, "%s%.4f", g ? ", " : "", tg[g].total_ms);
            fprintf(json, "], \"brute_ms\": ");
            if (brute)
                fprintf(json, "%.4f", tb.query_ms);
            else
                fprintf(json, "null");
            fprintf(json, ", \"answers\": %.0f, \"floor_ms\": %.4f}", ids, floor_ms);
        }
    }
    {
        /* the CPU on every thread: build + TOP of the same points, median of 3 after 1 */
        double cpu[3];
        for (int f = 0; f < 4 && st == QR_OK; f++) {
            const double t0 = cli_now_ms();
            qr_query_index *hq = NULL;
            qr_query_result r = {0};
            st = qr_query_index_build(scene, res, NULL, 0, &hq, err);
            if (st == QR_OK) st = qr_query_points(hq, pts, QB_POINTS, QR_QUERY_TOP, 0, &r, err);
            qr_query_result_free(&r);
            qr_query_index_destroy(hq);
            if (f) cpu[f - 1] = cli_now_ms() - t0;
        }
        if (st != QR_OK) goto done;
        const double ms = median(cpu, 3);
        fprintf(out, "%-10s %8d %5d  %-12s  %8.3f   (the CPU, %d threads: index build + points top)\n",
                scene->name, scene->n, res, "cpu top", ms, qr_threads());
        if (json)
            fprintf(json, ",\n    {\"scene\": \"%s\", \"query\": \"cpu points top\", \"threads\": %d, "
                          "\"cpu_ms\": %.3f}", scene->name, qr_threads(), ms);
    }
done:
    for (int g = 0; g < QB_GRIDS; g++) qr_gpu_query_destroy(grids[g]);
    qr_gpu_query_destroy(quad);
    qr_gpu_query_free(d_pts);
    qr_gpu_query_free(d_boxes);
    free(pts);
    free(bx);
    qr_scene_destroy(scene);
    return st;
}

qr_status bench_query(FILE *out, const char *const *scenes, int nscenes, uint32_t seed, int warmup,
                      int frames, const char *json_path, qr_error *err)
{
    qr_gpu_info info;
    qr_status st = qr_gpu_probe(&info, err);
    if (st != QR_OK) return st;
    if (frames > 64) frames = 64;
    const double peak_gbs = 2.0 * info.mem_clock_khz * 1e3 * info.mem_bus_bits / 8 / 1e9;
    FILE *json = NULL;
    if (json_path) {
        json = strcmp(json_path, "-") ? fopen(json_path, "w") : stdout;
        if (!json) return qr_fail(err, QR_ERR_IO, "%s: cannot open for writing", json_path);
        fprintf(json, "{\"schema_version\": 1, \"gpu\": ");
        qr_json_write_string(json, info.name);
        fprintf(json, ", \"points\": %d, \"boxes\": %d, \"box_side\": %g, \"frames\": %d, "
                      "\"warmup\": %d, \"peak_gbs\": %.1f, \"rows\": [\n",
                QB_POINTS, QB_BOXES, (double)QB_BOX_SIDE, frames, warmup, peak_gbs);
    }
    fprintf(out, "# bench --query on %s: %d points uniform over the square, %d boxes of side %g;\n"
                 "# ms = index build + query, median of %d after %d (query = its kernels alone);\n"
                 "# grid = the best uniform grid of 4 to 64 cells at the same resolution;\n"
                 "# brute = every circle against every point (timed on 1/%d of the points, scaled);\n"
                 "# floor = queries in + answers out at %.0f GB/s\n",
            info.name, QB_POINTS, QB_BOXES, (double)QB_BOX_SIDE, frames, warmup, QB_BRUTE_SHARE, peak_gbs);
    fprintf(out, "%-10s %8s %5s  %-12s  %8s %8s   %-7s %8s %8s  %6s  %9s %8s  %7s\n", "scene", "circles",
            "res", "query", "quadtree", "query", "grid", "ms", "query", "ratio", "brute", "ratio",
            "floor");
    for (int i = 0; i < nscenes && st == QR_OK; i++)
        st = bench_query_scene(out, json, i == 0, scenes[i], seed, warmup, frames, peak_gbs, err);
    if (json) {
        fprintf(json, "\n  ]}\n");
        if (json != stdout && fclose(json) != 0 && st == QR_OK)
            st = qr_fail(err, QR_ERR_IO, "%s: cannot write", json_path);
    }
    return st;
}
