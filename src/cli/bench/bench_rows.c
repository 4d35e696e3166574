/* bench_rows.c — what the bench's writers share about its rows: the stage
 * and index names, the best grid of a scene, the zoo's summary, what a
 * row out of memory says, and the scaling report's points (bench.h). The table and file
 * writers (bench_report.c) and the scaling report's (bench_scaling.c) call
 * these; these call neither. */
#include <math.h>
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

/* The measured row of `tile` of q's scene, size and mode, or NULL. */
static const bench_row *tile_row(const bench_row *rows, int n, const bench_row *q, int tile)
{
    for (int j = 0; j < n; j++)
        if (rows[j].grid_tile == tile && !rows[j].oom && rows[j].size == q->size &&
            rows[j].exact == q->exact && !strcmp(rows[j].scene, q->scene))
            return &rows[j];
    return NULL;
}

/* Whether row q counts in the zoo's line of its size and mode: a zoo
 * scene's quadtree, measured, with a measured best grid. */
static int zoo_counts(const bench_row *rows, int n, const bench_row *q)
{
    if (q->grid_tile || q->oom || strcmp(q->group, "zoo")) return 0;
    const bench_row *best = bench_best_grid(rows, n, q);
    return best && !best->oom;
}

static int in_line(const bench_row *r, const bench_zoo_line *z)
{
    return r->size == z->size && r->exact == z->exact;
}

/* z's best single tile: the least geometric mean frame over z's scenes,
 * among the tiles measured on all of them. */
static void zoo_single_tile(const bench_row *rows, int n, bench_zoo_line *z)
{
    double best = 0;
    for (int t = 0; t < n; t++) {
        const int tile = rows[t].grid_tile;
        int seen = 0;
        for (int u = 0; u < t && !seen; u++) seen = rows[u].grid_tile == tile;
        if (!tile || seen) continue;
        double log_g = 0, log_q = 0;
        int all = 1;
        for (int i = 0; i < n && all; i++) {
            if (!in_line(&rows[i], z) || !zoo_counts(rows, n, &rows[i])) continue;
            const bench_row *g = tile_row(rows, n, &rows[i], tile);
            all = g != NULL;
            if (g) {
                log_g += log(g->frame.median);
                log_q += log(rows[i].frame.median);
            }
        }
        if (all && (!z->single_tile || log_g < best)) {
            best = log_g;
            z->single_tile = tile;
            z->single = exp((log_g - log_q) / z->scenes);
        }
    }
}

int bench_zoo_summary(const bench_row *rows, int n, bench_zoo_line *out, int max)
{
    int lines = 0;
    for (int i = 0; i < n; i++) {
        const bench_row *q = &rows[i];
        if (!zoo_counts(rows, n, q)) continue;
        int k;
        for (k = 0; k < lines && !in_line(q, &out[k]); k++) {}
        if (k == lines) {
            if (lines == max) continue;
            out[lines++] = (bench_zoo_line){.size = q->size, .exact = q->exact};
        }
        bench_zoo_line *z = &out[k];
        const double speedup = bench_best_grid(rows, n, q)->frame.median / q->frame.median;
        if (!z->scenes || speedup < z->min) {
            z->min = speedup;
            snprintf(z->min_scene, sizeof z->min_scene, "%s", q->scene);
        }
        z->geomean += log(speedup); /* the sum of the logs until the end */
        z->behind += speedup < BENCH_BEHIND;
        z->scenes++;
    }
    for (int k = 0; k < lines; k++) {
        out[k].geomean = exp(out[k].geomean / out[k].scenes);
        zoo_single_tile(rows, n, &out[k]);
    }
    return lines;
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
