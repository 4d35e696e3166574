/* query_probe.c — the query index on one scene, host against GPU: the
 * trees' shapes and where they first differ, the GPU build's stages
 * (median of 5 timed builds), and the first point whose GPU answer differs
 * from the host's, with the leaves each side looked up.
 *
 *   query_probe SCENE [RESOLUTION [CAPACITY [MIN_LEAF [SPLIT_COST]]]]
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quadrender/gpu.h"
#include "quadrender/gpu_query.h"
#include "quadrender/query.h"
#include "query/query_internal.h"

static void die(const qr_error *err)
{
    fprintf(stderr, "query_probe: %s\n", err->msg);
    exit(1);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: query_probe SCENE [RESOLUTION [CAPACITY [MIN_LEAF [SPLIT_COST]]]]\n");
        return 2;
    }
    qr_error err;
    qr_scene *s;
    if (qr_scene_load(argv[1], 0, &s, &err) != QR_OK) die(&err);
    qr_index_params p;
    qr_query_params_default(&p);
    int32_t res = argc > 2 ? atoi(argv[2]) : 0;
    if (argc > 3) p.capacity = atoi(argv[3]);
    if (argc > 4) p.min_leaf = atoi(argv[4]);
    if (argc > 5) p.split_cost = atoi(argv[5]);
    if (!res) res = qr_query_resolution(s);
    qr_query_index *hq;
    if (qr_query_index_build(s, res, &p, 0, &hq, &err) != QR_OK) die(&err);
    const qr_index *ht = qr_query_index_tree(hq);
    printf("%s: %d circles, resolution %d, capacity %d, min leaf %d, split cost %d\n", argv[1], s->n,
           res, p.capacity, p.min_leaf, p.split_cost);
    printf("host tree: %d leaves, %d nodes, depth %d, %lld pairs\n", ht->num_leaves, ht->num_nodes,
           ht->max_depth_reached, (long long)ht->num_pairs);

    qr_scene *w;
    if (qr_query_widened_scene(s, res, &w, &err) != QR_OK) die(&err);
    qr_gpu_scene *gs;
    qr_gpu_index *ix;
    if (qr_gpu_scene_create(w, &gs, &err) != QR_OK || qr_gpu_index_create(&ix, &err) != QR_OK) die(&err);
    qr_gpu_index_set_timing(ix, QR_TIMING_STAGES);
    float st[5][7];
    for (int k = 0; k < 6; k++) {
        if (qr_gpu_index_build(ix, gs, res, res, NULL, &p, QR_RENDER_EXACT, &err) != QR_OK) die(&err);
        qr_build_timing t;
        if (qr_gpu_index_timing(ix, &t, &err) != QR_OK) die(&err);
        if (k) {
            float v[7] = {t.boxes_ms, t.tree_ms, t.count_ms, t.scan_ms, t.emit_ms, t.sort_ms, t.total_ms};
            memcpy(st[k - 1], v, sizeof v);
        }
    }
    printf("GPU build stages (5 builds): boxes tree count scan emit sort total\n");
    for (int k = 0; k < 5; k++)
        printf("  %.3f %.3f %.3f %.3f %.3f %.3f %.3f\n", st[k][0], st[k][1], st[k][2], st[k][3], st[k][4],
               st[k][5], st[k][6]);
    qr_index *gt;
    if (qr_gpu_index_download(ix, &gt, &err) != QR_OK) die(&err);
    printf("GPU tree: %d leaves, %d nodes, depth %d, %lld pairs\n", gt->num_leaves, gt->num_nodes,
           gt->max_depth_reached, (long long)gt->num_pairs);
    int same = gt->num_leaves == ht->num_leaves && gt->num_pairs == ht->num_pairs;
    for (int32_t l = 0; same && l < ht->num_leaves; l++) {
        const qr_leaf *a = &ht->leaves[l], *b = &gt->leaves[l];
        if (memcmp(&a->rect, &b->rect, sizeof a->rect) || a->count != b->count || a->offset != b->offset ||
            memcmp(ht->lists + a->offset, gt->lists + b->offset, (size_t)a->count * 4)) {
            printf("trees differ first at leaf %d: host [%d,%d)x[%d,%d) %d circles, GPU [%d,%d)x[%d,%d) %d\n", l,
                   a->rect.x0, a->rect.x1, a->rect.y0, a->rect.y1, a->count, b->rect.x0, b->rect.x1,
                   b->rect.y0, b->rect.y1, b->count);
            same = 0;
        }
    }
    printf("trees %s\n", same ? "equal" : "DIFFER");

    /* answers: 100k points, TOP */
    const int64_t n = 100000;
    float *xy = malloc((size_t)n * 8);
    uint64_t z = 12345;
    for (int64_t q = 0; q < 2 * n; q++) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        xy[q] = (float)(z >> 40) / 16777216.0f;
    }
    qr_gpu_query *gq;
    if (qr_gpu_query_create(s, res, &p, &gq, &err) != QR_OK) die(&err);
    for (int m = 0; m < 2; m++) {
        qr_query_result a, b;
        if (qr_query_points(hq, xy, n, (qr_query_mode)m, 0, &a, &err) != QR_OK) die(&err);
        if (qr_gpu_query_points_host(gq, xy, n, (qr_query_mode)m, &b, &err) != QR_OK) die(&err);
        int64_t bad = 0;
        for (int64_t q = 0; q < n; q++)
            if (a.values[q] != b.values[q]) {
                if (!bad)
                    printf("mode %d point %lld (%.9g, %.9g): host %d, GPU %d\n", m, (long long)q,
                           (double)xy[2 * q], (double)xy[2 * q + 1], a.values[q], b.values[q]);
                bad++;
            }
        printf("mode %d: %lld of %lld points differ\n", m, (long long)bad, (long long)n);
        qr_query_result_free(&a);
        qr_query_result_free(&b);
    }
    /* timing: 10M points (TOP, COUNT) and 100k boxes of side 0.01 (ALL),
     * build included, medians of 5 after 2 */
    const int64_t big = 10000000, nbox = 100000;
    float *pts = malloc((size_t)big * 8), *bx = malloc((size_t)nbox * 16);
    for (int64_t q = 0; q < 2 * big; q++) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        pts[q] = (float)(z >> 40) / 16777216.0f;
    }
    for (int64_t b = 0; b < nbox; b++) {
        bx[4 * b] = pts[2 * b] * 0.99f, bx[4 * b + 1] = pts[2 * b + 1] * 0.99f;
        bx[4 * b + 2] = bx[4 * b] + 0.01f, bx[4 * b + 3] = bx[4 * b + 1] + 0.01f;
    }
    float *d_pts, *d_bx;
    if (qr_gpu_query_upload(pts, 2 * big, &d_pts, &err) != QR_OK ||
        qr_gpu_query_upload(bx, 4 * nbox, &d_bx, &err) != QR_OK)
        die(&err);
    static const char *const what[] = {"points top", "points count", "boxes all"};
    for (int k = 0; k < 3; k++) {
        float tot[7], qms[7];
        for (int f = 0; f < 7; f++) {
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            qr_query_result r;
            if (qr_gpu_query_rebuild(gq, &err) != QR_OK) die(&err);
            qr_status st = k == 2 ? qr_gpu_query_boxes(gq, d_bx, nbox, QR_QUERY_ALL, &r, &err)
                                  : qr_gpu_query_points(gq, d_pts, big, (qr_query_mode)k, &r, &err);
            if (st != QR_OK || qr_gpu_query_last_ms(gq, &qms[f], &err) != QR_OK) die(&err);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            tot[f] = (float)((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
        }
        /* median of the last 5 */
        for (int i = 2; i < 7; i++)
            for (int j = i + 1; j < 7; j++) {
                if (tot[j] < tot[i]) { float t = tot[i]; tot[i] = tot[j]; tot[j] = t; }
                if (qms[j] < qms[i]) { float t = qms[i]; qms[i] = qms[j]; qms[j] = t; }
            }
        printf("%-13s build+query %8.3f ms, query %8.3f ms\n", what[k], tot[4], qms[4]);
    }
    return 0;
}
