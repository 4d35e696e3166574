/* query.c — point and box queries on the host (quadrender/query.h): the
 * query index (the scene's quadtree over widened radii, plus a map from
 * cells to leaves), its answers on every thread, and the brute-force
 * oracle.
 *
 * A point's leaf is one map lookup; its list is tested in order (TOP from
 * its end, stopping at the first hit). A box visits the leaves under it
 * row by row, stepping over each leaf's width, each leaf once (from the
 * first row the leaf meets); a circle in several of those leaves is
 * reported by the one holding the bottom-left cell of its box's overlap
 * with the query's cells, so once, then sorted into drawing order.
 * ALL counts first (answers are independent per query, so the counts fix
 * every query's place), then fills: the same bytes whatever the threads.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/memory.h"
#include "quadrender/text.h"
#include "quadrender/threads.h"
#include "query/query_internal.h"
#include "query/query_math.h"

/* ---- options --------------------------------------------------------------- */

qr_status qr_query_check_mode(const char *name, const char *text, qr_query_mode *out,
                              qr_error *err)
{
    static const char *const names[] = {"top", "count", "all"};
    for (int m = 0; m < 3; m++)
        if (text && !strcmp(text, names[m])) {
            *out = (qr_query_mode)m;
            return QR_OK;
        }
    return qr_text_refuse(name, text, "'top', 'count' or 'all'", err);
}

qr_status qr_query_check_resolution(const char *name, const char *text, int32_t *out,
                                    qr_error *err)
{
    uint64_t v;
    qr_status st = qr_text_check_uint(name, text, 16, 32768, QR_UINT_POW2 | QR_UINT_OR_0,
                                      "0 (chosen from the scene) or a power of two from 16 to 32768",
                                      &v, err);
    if (st == QR_OK)
        *out = (int32_t)v;
    return st;
}

int32_t qr_query_resolution(const qr_scene *scene)
{
    const double want = 2.0 * sqrt((double)(scene && scene->n > 0 ? scene->n : 0));
    int32_t res = 256;
    while (res < 4096 && (double)res * 1.41421356 < want) /* nearest power of two */
        res *= 2;
    return res;
}

void qr_query_params_default(qr_index_params *p)
{
    qr_index_params_default(p);
    p->capacity = 64;
    p->min_leaf = 16;
    p->split_cost = 0;
    p->deep_leaf = QR_MIN_LEAF;
}

qr_status qr_query_setup(const qr_scene *scene, int32_t resolution, const qr_index_params *params,
                         int32_t *res_out, qr_index_params *p_out, qr_error *err)
{
    if (!scene)
        return qr_fail(err, QR_ERR_INVALID, "query index: no scene");
    if (resolution != 0 &&
        (resolution < 16 || resolution > 32768 || (resolution & (resolution - 1))))
        return qr_fail(err, QR_ERR_INVALID,
                       "query resolution: expected 0 (chosen from the scene) or a power of two "
                       "from 16 to 32768, got %d", resolution);
    *res_out = resolution ? resolution : qr_query_resolution(scene);
    if (params)
        *p_out = *params;
    else
        qr_query_params_default(p_out);
    return qr_index_params_check(p_out, err);
}

int qr_query_coarser(long long pairs, int32_t visible, int32_t res, qr_index_params *p)
{
    if (p->uniform || p->min_leaf >= res ||
        pairs <= (long long)QR_QUERY_PAIRS_PER_CIRCLE * (visible > 0 ? visible : 1))
        return 0;
    p->min_leaf *= 2;
    if (p->max_leaf && p->max_leaf < p->min_leaf)
        p->max_leaf = p->min_leaf;
    return 1;
}

qr_status qr_query_widened_scene(const qr_scene *scene, int32_t res, qr_scene **out, qr_error *err)
{
    qr_status st = qr_scene_create(scene->n, QR_ANIM_NONE, out, err);
    if (st != QR_OK)
        return st;
    qr_scene *w = *out;
    for (int32_t i = 0; i < scene->n; i++) {
        w->x[i] = scene->x[i];
        w->y[i] = scene->y[i];
        w->r[i] = qr_query_widen(scene->r[i], res);
    }
    return QR_OK;
}

qr_status qr_query_check_box(const float *b, int64_t q, qr_error *err)
{
    for (int k = 0; k < 4; k++)
        if (isnan(b[k]))
            return qr_fail(err, QR_ERR_INVALID, "box %lld: %s is not a number", (long long)q,
                           (const char *const[]){"x0", "y0", "x1", "y1"}[k]);
    if (b[0] > b[2])
        return qr_fail(err, QR_ERR_INVALID, "box %lld: x0 %g > x1 %g", (long long)q,
                       (double)b[0], (double)b[2]);
    if (b[1] > b[3])
        return qr_fail(err, QR_ERR_INVALID, "box %lld: y0 %g > y1 %g", (long long)q,
                       (double)b[1], (double)b[3]);
    return QR_OK;
}

qr_status qr_query_check_boxes(const float *boxes, int64_t n, qr_error *err)
{
    if (n < 0 || (n > 0 && !boxes))
        return qr_fail(err, QR_ERR_INVALID, "box queries: %lld boxes at %p", (long long)n,
                       (const void *)boxes);
    for (int64_t q = 0; q < n; q++) {
        qr_status st = qr_query_check_box(boxes + 4 * q, q, err);
        if (st != QR_OK)
            return st;
    }
    return QR_OK;
}

void qr_query_result_free(qr_query_result *res)
{
    if (!res)
        return;
    free(res->values);
    free(res->offsets);
    free(res->ids);
    memset(res, 0, sizeof *res);
}

/* ---- the index --------------------------------------------------------------- */

/* A list entry with its circle: a leaf's walk reads memory in order
 * instead of gathering each circle from wherever it lies. */
typedef struct qr_query_item {
    float x, y, r;
    int32_t id;
} qr_query_item;

struct qr_query_index {
    int32_t res, n;
    qr_query_item *items;  /* the tree's lists, entry by entry, with their circles */
    qr_index *tree;
    int32_t g;             /* map granule: the smallest leaf's side, in cells */
    int32_t side;          /* res / g granules a side */
    int32_t *map;          /* side * side leaf numbers, rows from the bottom */
};

/* The items, QR_FILL_TASK entries a task. */
#define QR_FILL_TASK 65536

typedef struct fill_job {
    qr_query_index *q;
    const qr_scene *scene;
} fill_job;

static void fill_task(void *ctx, int task)
{
    const fill_job *f = ctx;
    const int64_t first = (int64_t)task * QR_FILL_TASK, pairs = f->q->tree->num_pairs;
    const int64_t last = first + QR_FILL_TASK < pairs ? first + QR_FILL_TASK : pairs;
    for (int64_t k = first; k < last; k++) {
        const int32_t i = f->q->tree->lists[k];
        f->q->items[k] = (qr_query_item){f->scene->x[i], f->scene->y[i], f->scene->r[i], i};
    }
}

qr_status qr_query_index_build(const qr_scene *scene, int32_t resolution,
                               const qr_index_params *params, int32_t threads,
                               qr_query_index **out, qr_error *err)
{
    *out = NULL;
    int32_t res;
    qr_index_params p;
    qr_status st = qr_query_setup(scene, resolution, params, &res, &p, err);
    if (st != QR_OK)
        return st;
    qr_query_index *q = calloc(1, sizeof *q);
    if (!q)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: the query index");
    q->res = res;
    q->n = scene->n;
    qr_scene *w = NULL;
    st = qr_query_widened_scene(scene, res, &w, err);
    if (st != QR_OK)
        goto fail;
    st = qr_index_build_host_threads(w, res, res, NULL, &p, QR_RENDER_EXACT, threads, &q->tree, err);
    while (st == QR_OK && qr_query_coarser(q->tree->num_pairs, q->tree->visible, res, &p)) {
        qr_index_destroy(q->tree);
        q->tree = NULL;
        st = qr_index_build_host_threads(w, res, res, NULL, &p, QR_RENDER_EXACT, threads, &q->tree,
                                         err);
    }
    qr_scene_destroy(w);
    w = NULL;
    if (st != QR_OK)
        goto fail;
    st = qr_host_malloc("the query index's lists", (size_t)(q->tree->num_pairs > 0 ? q->tree->num_pairs : 1) *
                                                       sizeof(qr_query_item),
                        (void **)&q->items, err);
    if (st != QR_OK)
        goto fail;
    fill_job fj = {q, scene};
    qr_parallel_for((int)((q->tree->num_pairs + QR_FILL_TASK - 1) / QR_FILL_TASK),
                    threads > 0 ? threads : qr_threads(), fill_task, &fj);
    /* the map, at the smallest leaf's side */
    q->g = res;
    for (int32_t l = 0; l < q->tree->num_leaves; l++) {
        const qr_rect *rc = &q->tree->leaves[l].rect;
        const int32_t s = rc->x1 - rc->x0 < rc->y1 - rc->y0 ? rc->x1 - rc->x0 : rc->y1 - rc->y0;
        if (s < q->g)
            q->g = s;
    }
    q->side = res / q->g;
    st = qr_host_malloc("the query index's cell map", (size_t)q->side * (size_t)q->side * 4,
                        (void **)&q->map, err);
    if (st != QR_OK)
        goto fail;
    for (int32_t l = 0; l < q->tree->num_leaves; l++) {
        const qr_rect *rc = &q->tree->leaves[l].rect;
        for (int32_t j = rc->y0 / q->g; j < rc->y1 / q->g; j++)
            for (int32_t i = rc->x0 / q->g; i < rc->x1 / q->g; i++)
                q->map[(size_t)j * q->side + i] = l;
    }
    *out = q;
    return QR_OK;
fail:
    qr_scene_destroy(w);
    qr_query_index_destroy(q);
    return st;
}

void qr_query_index_destroy(qr_query_index *q)
{
    if (!q)
        return;
    free(q->items);
    qr_index_destroy(q->tree);
    free(q->map);
    free(q);
}

int32_t qr_query_index_resolution(const qr_query_index *q)
{
    return q->res;
}

const qr_index *qr_query_index_tree(const qr_query_index *q)
{
    return q->tree;
}

/* ---- answers ------------------------------------------------------------------ */

/* Queries a task. */
#define QR_QUERY_TASK 4096

typedef struct query_job {
    const qr_query_index *q;   /* NULL: brute force over scene */
    const qr_scene *scene;
    const float *in;           /* points (2 floats) or boxes (4) */
    int boxes;
    int64_t n;
    qr_query_mode mode;
    int fill;                  /* ALL's second pass */
    qr_query_result *out;
} query_job;

/* Point (x, y)'s answer: TOP the front-most circle covering it (or -1);
 * else how many, their indices into ids (if not NULL) in drawing order.
 * The circles tested are its leaf's list, or every circle (brute force). */
static int32_t point_answer(const query_job *job, float x, float y, int32_t *ids)
{
    const qr_query_mode mode = job->mode;
    if (!qr_query_in_square(x, y))
        return mode == QR_QUERY_TOP ? -1 : 0;
    if (!job->q) {
        const qr_scene *sc = job->scene;
        int32_t hits = 0, top = -1;
        for (int32_t i = 0; i < sc->n; i++)
            if (qr_query_covers(sc->x[i], sc->y[i], sc->r[i], x, y)) {
                if (ids)
                    ids[hits] = i;
                hits++;
                top = i;
            }
        return mode == QR_QUERY_TOP ? top : hits;
    }
    const qr_query_index *q = job->q;
    if (q->tree->num_leaves == 0)
        return mode == QR_QUERY_TOP ? -1 : 0;
    const int32_t gi = qr_query_cell(x, q->res) / q->g, gj = qr_query_cell(y, q->res) / q->g;
    const qr_leaf *leaf = &q->tree->leaves[q->map[(size_t)gj * q->side + gi]];
    const qr_query_item *it = q->items + leaf->offset;
    if (mode == QR_QUERY_TOP) {
        for (int32_t k = leaf->count - 1; k >= 0; k--)
            if (qr_query_covers(it[k].x, it[k].y, it[k].r, x, y))
                return it[k].id;
        return -1;
    }
    int32_t hits = 0;
    for (int32_t k = 0; k < leaf->count; k++)
        if (qr_query_covers(it[k].x, it[k].y, it[k].r, x, y)) {
            if (ids)
                ids[hits] = it[k].id;
            hits++;
        }
    return hits;
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Box b's circles into ids (room for all of them; NULL: only count),
 * unsorted; returns how many, the front-most into *top (-1: none). */
static int64_t box_circles(const query_job *job, const float *b, int32_t *ids, int32_t *top)
{
    float c[4];
    *top = -1;
    if (!qr_query_clip_box(b, c))
        return 0;
    int64_t hits = 0;
    if (!job->q) {
        const qr_scene *s = job->scene;
        for (int32_t i = 0; i < s->n; i++)
            if (qr_query_touches(s->x[i], s->y[i], s->r[i], c)) {
                if (ids)
                    ids[hits] = i;
                hits++;
                *top = i;
            }
        return hits;
    }
    const qr_query_index *q = job->q;
    if (q->tree->num_leaves == 0)
        return 0;
    const int32_t res = q->res;
    const int32_t cx0 = qr_query_cell(c[0], res), cx1 = qr_query_cell(c[2], res);
    const int32_t cy0 = qr_query_cell(c[1], res), cy1 = qr_query_cell(c[3], res);
    const int32_t gy1 = cy1 / q->g, gx1 = cx1 / q->g;
    for (int32_t gj = cy0 / q->g; gj <= gy1; gj++) {
        for (int32_t gi = cx0 / q->g; gi <= gx1;) {
            const int32_t l = q->map[(size_t)gj * q->side + gi];
            const qr_leaf *leaf = &q->tree->leaves[l];
            /* each leaf from the first row it meets */
            if (gj == cy0 / q->g || q->map[(size_t)(gj - 1) * q->side + gi] != l) {
                const qr_query_item *it = q->items + leaf->offset;
                for (int32_t k = 0; k < leaf->count; k++) {
                    const int32_t i = it[k].id;
                    const qr_pixbox bx =
                        qr_circle_pixbox(it[k].x, it[k].y, qr_query_widen(it[k].r, res), res, res);
                    const int32_t ox = bx.x0 > cx0 ? bx.x0 : cx0, oy = bx.y0 > cy0 ? bx.y0 : cy0;
                    if (ox < leaf->rect.x0 || ox >= leaf->rect.x1 || oy < leaf->rect.y0 ||
                        oy >= leaf->rect.y1)
                        continue; /* another leaf reports it */
                    if (qr_query_touches(it[k].x, it[k].y, it[k].r, c)) {
                        if (ids)
                            ids[hits] = i;
                        hits++;
                        if (i > *top)
                            *top = i;
                    }
                }
            }
            gi = leaf->rect.x1 / q->g;
        }
    }
    return hits;
}

static void query_task(void *ctx, int task)
{
    query_job *job = ctx;
    const int64_t first = (int64_t)task * QR_QUERY_TASK;
    const int64_t last = first + QR_QUERY_TASK < job->n ? first + QR_QUERY_TASK : job->n;
    qr_query_result *out = job->out;
    for (int64_t qi = first; qi < last; qi++) {
        if (!job->boxes) {
            const float x = job->in[2 * qi], y = job->in[2 * qi + 1];
            if (job->mode != QR_QUERY_ALL)
                out->values[qi] = point_answer(job, x, y, NULL);
            else if (!job->fill)
                out->offsets[qi + 1] = point_answer(job, x, y, NULL);
            else
                point_answer(job, x, y, out->ids + out->offsets[qi]);
            continue;
        }
        int32_t top;
        if (job->mode != QR_QUERY_ALL || !job->fill) {
            const int64_t hits = box_circles(job, job->in + 4 * qi, NULL, &top);
            if (job->mode == QR_QUERY_TOP)
                out->values[qi] = top;
            else if (job->mode == QR_QUERY_COUNT)
                out->values[qi] = (int32_t)hits;
            else
                out->offsets[qi + 1] = hits;
        } else {
            int32_t *ids = out->ids + out->offsets[qi];
            const int64_t hits = out->offsets[qi + 1] - out->offsets[qi];
            box_circles(job, job->in + 4 * qi, ids, &top);
            qsort(ids, (size_t)hits, sizeof *ids, cmp_i32);
        }
    }
}

/* Runs the job's queries into job->out (allocating it), on threads. */
static qr_status query_run(query_job *job, int32_t threads, qr_error *err)
{
    qr_query_result *out = job->out;
    memset(out, 0, sizeof *out);
    out->queries = job->n;
    out->mode = job->mode;
    if (!job->q && !job->scene)
        return qr_fail(err, QR_ERR_INVALID, "queries: no index");
    if (job->n < 0 || (job->n > 0 && !job->in))
        return qr_fail(err, QR_ERR_INVALID, "queries: %lld at %p", (long long)job->n,
                       (const void *)job->in);
    if (job->mode < QR_QUERY_TOP || job->mode > QR_QUERY_ALL)
        return qr_fail(err, QR_ERR_INVALID, "query mode %d: expected top, count or all",
                       (int)job->mode);
    if (job->boxes) {
        qr_status st = qr_query_check_boxes(job->in, job->n, err);
        if (st != QR_OK)
            return st;
    }
    if (job->n > (int64_t)INT_MAX * QR_QUERY_TASK / 2)
        return qr_fail(err, QR_ERR_INVALID, "queries: %lld in one batch is too many",
                       (long long)job->n);
    const int tasks = (int)((job->n + QR_QUERY_TASK - 1) / QR_QUERY_TASK);
    const int nthreads = threads > 0 ? threads : qr_threads();
    qr_status st;
    if (job->mode != QR_QUERY_ALL) {
        st = qr_host_malloc("the query answers", (size_t)(job->n ? job->n : 1) * sizeof(int32_t),
                            (void **)&out->values, err);
        if (st != QR_OK)
            return st;
        qr_parallel_for(tasks, nthreads, query_task, job);
        return QR_OK;
    }
    st = qr_host_malloc("the query answers' offsets", (size_t)(job->n + 1) * sizeof(int64_t),
                        (void **)&out->offsets, err);
    if (st != QR_OK)
        return st;
    out->offsets[0] = 0;
    qr_parallel_for(tasks, nthreads, query_task, job);
    for (int64_t qi = 0; qi < job->n; qi++)
        out->offsets[qi + 1] += out->offsets[qi];
    st = qr_host_malloc("the query answers' circles", (size_t)out->offsets[job->n] * sizeof(int32_t),
                        (void **)&out->ids, err);
    if (st != QR_OK) {
        qr_query_result_free(out);
        return st;
    }
    job->fill = 1;
    qr_parallel_for(tasks, nthreads, query_task, job);
    return QR_OK;
}

qr_status qr_query_points(const qr_query_index *q, const float *xy, int64_t n, qr_query_mode mode,
                          int32_t threads, qr_query_result *out, qr_error *err)
{
    query_job job = {.q = q, .in = xy, .n = n, .mode = mode, .out = out};
    return query_run(&job, threads, err);
}

qr_status qr_query_boxes(const qr_query_index *q, const float *boxes, int64_t n, qr_query_mode mode,
                         int32_t threads, qr_query_result *out, qr_error *err)
{
    query_job job = {.q = q, .in = boxes, .boxes = 1, .n = n, .mode = mode, .out = out};
    return query_run(&job, threads, err);
}

qr_status qr_query_points_brute(const qr_scene *scene, const float *xy, int64_t n,
                                qr_query_mode mode, qr_query_result *out, qr_error *err)
{
    query_job job = {.scene = scene, .in = xy, .n = n, .mode = mode, .out = out};
    return query_run(&job, 1, err);
}

qr_status qr_query_boxes_brute(const qr_scene *scene, const float *boxes, int64_t n,
                               qr_query_mode mode, qr_query_result *out, qr_error *err)
{
    query_job job = {.scene = scene, .in = boxes, .boxes = 1, .n = n, .mode = mode, .out = out};
    return query_run(&job, 1, err);
}
