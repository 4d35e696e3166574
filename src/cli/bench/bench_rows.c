/* bench_rows.c — what the bench's writers share about its rows: the stage
 * and index names, the best grid of a scene, what a row out of memory
 * says, and the scaling report's points (bench.h). The table and file
 * writers (bench_report.c) and the scaling report's (bench_scaling.c) call
 * these; these call neither. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench/bench.h"

const char *const bench_stage_names[BENCH_NSTAGES] = {"boxes", "tree", "count", "scan",
                                                      "emit",  "sort", "render", "other"};

const char *bench_index_name(const bench_row *r, char *buf, size_t len)
{
    if (r->grid_tile)
        snprintf(buf, len, "grid%d", r->grid_tile);
    else
        snprintf(buf, len, "quadtree");
    return buf;
}

const bench_row *bench_best_grid(const bench_row *rows, int n, const bench_row *like)
{
    const bench_row *best = NULL;
    for (int j = 0; j < n; j++) {
        const bench_row *g = &rows[j];
        if (!g->grid_tile || strcmp(g->scene, like->scene) || g->size != like->size ||
            g->exact != like->exact)
            continue;
        if (!best || (best->oom && !g->oom) ||
            (!g->oom && !best->oom && g->frame.median < best->frame.median))
            best = g;
    }
    return best;
}

const char *bench_oom_text(int oom)
{
    return oom == BENCH_OOM_HOST ? "out of host memory" : "out of memory";
}

int bench_scene_family(const char *scene, char *family, size_t len, long long *count)
{
    snprintf(family, len, "%s", scene);
    *count = 0;
    const char *colon = strrchr(scene, ':');
    if (!colon || colon == scene) return 0;
    const char *p = colon + 1;
    long long v = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (digits == 12) return 0; /* a count is never near 10^12 */
        v = v * 10 + (*p - '0');
    }
    if (!digits) return 0;
    long long mult = 1;
    if (*p == 'k' || *p == 'K')
        mult = 1000, p++;
    else if (*p == 'M')
        mult = 1000000, p++;
    else if (*p == 'G')
        mult = 1000000000, p++;
    if (*p) return 0;
    size_t flen = (size_t)(colon - scene);
    snprintf(family, len, "%.*s", (int)(flen < len ? flen : len - 1), scene);
    *count = v * mult;
    return 1;
}

long long bench_point_circles(const bench_point *p)
{
    if (p->row->circles > 0) return p->row->circles;
    char family[64];
    long long count;
    bench_scene_family(p->row->scene, family, sizeof family, &count);
    return count;
}

typedef struct ordered_point {
    bench_point p;
    int family_order, row_order;
    long long circles;
} ordered_point;

static int cmp_point(const void *a, const void *b)
{
    const ordered_point *x = a, *y = b;
    const bench_row *r = x->p.row, *s = y->p.row;
#define CMP(u, v) \
    if ((u) != (v)) return (u) < (v) ? -1 : 1
    CMP(x->family_order, y->family_order);
    CMP(r->size, s->size);
    CMP(r->exact, s->exact);
    CMP(x->p.best_grid, y->p.best_grid);
    CMP(x->circles, y->circles);
    CMP(x->row_order, y->row_order);
#undef CMP
    return 0;
}

int bench_scaling_points(const bench_row *rows, int n, bench_point *pts)
{
    ordered_point *o = malloc(sizeof *o * (2 * (size_t)n + 1));
    char(*families)[64] = malloc(sizeof *families * ((size_t)n + 1));
    if (!o || !families) {
        free(o);
        free(families);
        return -1;
    }
    int np = 0, nfam = 0;
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        const bench_row *pick = NULL;
        if (!r->grid_tile) {
            pick = r;
        } else {
            /* the best grid once per scene, size and mode: at its first grid row */
            int first = 1;
            for (int j = 0; j < i && first; j++)
                first = !(rows[j].grid_tile && rows[j].size == r->size && rows[j].exact == r->exact &&
                          !strcmp(rows[j].scene, r->scene));
            if (first) pick = bench_best_grid(rows, n, r);
        }
        if (!pick) continue;
        ordered_point *q = &o[np++];
        q->p.row = pick;
        q->p.best_grid = pick->grid_tile != 0;
        long long count;
        bench_scene_family(pick->scene, q->p.family, sizeof q->p.family, &count);
        int f;
        for (f = 0; f < nfam && strcmp(families[f], q->p.family); f++) {}
        if (f == nfam) snprintf(families[nfam++], sizeof families[0], "%s", q->p.family);
        q->family_order = f;
        q->row_order = i;
        q->circles = bench_point_circles(&q->p);
    }
    qsort(o, np, sizeof *o, cmp_point);
    for (int i = 0; i < np; i++) pts[i] = o[i].p;
    free(o);
    free(families);
    return np;
}
