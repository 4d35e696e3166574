/* quadtree_host.c — the host quadtree builder: the oracle for the GPU build.
 *
 * Written for obviousness, not speed: every node carries the ascending list
 * of circles whose box meets it, and a split hands each child the sub-list
 * of circles meeting the child. Lists stay ascending for free, counts are
 * exact by construction, and leaves come out in depth-first order.
 */
#include "quadrender/index.h"
#include "quadtree/quadtree_geom.h"

#include <stdlib.h>
#include <string.h>

/* Chosen by measurement (docs/benchmarks.md, dev/sweep.sh): leaves of at
 * least 64 pixels holding up to 1024 circles keep the pair count (build
 * time) low, and the render kernel refines each leaf list to its 32 x 32
 * regions. Split cost 5 keeps 128-pixel leaves where circles are big
 * (rand100k, biglittle: 10-15% faster frames) and changes nothing where they
 * are small; 32-pixel leaves (micro2M's best) cost the other scenes more
 * than they gain. A leaf size limit measured no better, so none. */
void qr_index_params_default(qr_index_params *p)
{
    p->capacity = 1024;
    p->min_leaf = 64;
    p->max_depth = QR_MAX_DEPTH_LIMIT;
    p->uniform = 0;
    p->max_leaf = 0;
    p->split_cost = 5;
}

qr_status qr_index_params_check(const qr_index_params *p, qr_error *err)
{
    if (p->capacity < 1)
        return qr_fail(err, QR_ERR_INVALID, "index capacity must be at least 1 (got %d)",
                       p->capacity);
    if (p->min_leaf < QR_TILE || p->min_leaf > 32768 || (p->min_leaf & (p->min_leaf - 1)))
        return qr_fail(err, QR_ERR_INVALID,
                       "minimum leaf size must be a power of two from %d to 32768 (got %d)",
                       QR_TILE, p->min_leaf);
    /* a max_leaf below min_leaf just means every leaf is min_leaf */
    if (p->max_leaf != 0 && (p->max_leaf < QR_TILE || p->max_leaf > 32768 ||
                             (p->max_leaf & (p->max_leaf - 1))))
        return qr_fail(err, QR_ERR_INVALID,
                       "maximum leaf size must be 0 (no limit) or a power of two from %d to 32768 "
                       "(got %d)",
                       QR_TILE, p->max_leaf);
    if (p->split_cost < 0 || p->split_cost > 1000)
        return qr_fail(err, QR_ERR_INVALID, "split cost must be from 0 to 1000 (got %d)",
                       p->split_cost);
    if (p->max_depth < 0 || p->max_depth > QR_MAX_DEPTH_LIMIT)
        return qr_fail(err, QR_ERR_INVALID, "maximum depth must be from 0 to %d (got %d)",
                       QR_MAX_DEPTH_LIMIT, p->max_depth);
    return QR_OK;
}

qr_rect qr_rect_full(int32_t width, int32_t height)
{
    qr_rect r = {0, 0, width, height};
    return r;
}

qr_status qr_index_check_build(int32_t width, int32_t height, const qr_rect *region,
                               const qr_index_params *params, qr_rect *region_out, qr_error *err)
{
    qr_status st = qr_index_params_check(params, err);
    if (st) return st;
    if (width < 1 || height < 1 || width > 32768 || height > 32768)
        return qr_fail(err, QR_ERR_INVALID, "image size %dx%d out of range", width, height);
    qr_rect reg = region ? *region : qr_rect_full(width, height);
    if (reg.x0 < 0 || reg.y0 < 0 || reg.x1 > width || reg.y1 > height || reg.x0 >= reg.x1 ||
        reg.y0 >= reg.y1)
        return qr_fail(err, QR_ERR_INVALID, "region [%d,%d)x[%d,%d) is not inside %dx%d",
                       reg.x0, reg.x1, reg.y0, reg.y1, width, height);
    *region_out = reg;
    return QR_OK;
}

int qr_index_circle_box(const qr_scene *s, int32_t i, int32_t width, int32_t height,
                        const qr_rect *region, qr_rect *box)
{
    qr_rect reg = region ? *region : qr_rect_full(width, height);
    return qr_cull_circle(s->x[i], s->y[i], s->r[i], width, height, 1.0f / (float)width,
                          1.0f / (float)height, reg, box);
}

void qr_index_free(qr_index *index)
{
    if (!index) return;
    free(index->leaves);
    free(index->lists);
    free(index);
}

/* Growable output arrays for the recursion. */
typedef struct builder {
    const qr_index_params *p;
    qr_rect region;
    const qr_rect *boxes; /* per circle, valid where visible */
    qr_leaf *leaves;
    int32_t num_leaves, cap_leaves;
    int32_t *lists;
    int64_t num_pairs, cap_pairs;
    int32_t num_nodes, max_depth;
    int oom;
} builder;

static int meets(const qr_rect *b, int x0, int y0, int x1, int y1)
{
    return b->x0 < x1 && b->x1 > x0 && b->y0 < y1 && b->y1 > y0;
}

static void add_leaf(builder *bd, int x0, int y0, int side, int depth, const int32_t *ids,
                     int32_t n)
{
    if (bd->num_leaves == bd->cap_leaves) {
        int32_t cap = bd->cap_leaves ? bd->cap_leaves * 2 : 64;
        qr_leaf *l = realloc(bd->leaves, (size_t)cap * sizeof *l);
        if (!l) { bd->oom = 1; return; }
        bd->leaves = l;
        bd->cap_leaves = cap;
    }
    if (bd->num_pairs + n > bd->cap_pairs) {
        int64_t cap = bd->cap_pairs ? bd->cap_pairs : 1024;
        while (cap < bd->num_pairs + n) cap *= 2;
        int32_t *l = realloc(bd->lists, (size_t)cap * sizeof *l);
        if (!l) { bd->oom = 1; return; }
        bd->lists = l;
        bd->cap_pairs = cap;
    }
    qr_leaf *leaf = &bd->leaves[bd->num_leaves++];
    int x1 = x0 + side, y1 = y0 + side;
    leaf->rect.x0 = x0;
    leaf->rect.y0 = y0;
    leaf->rect.x1 = x1 < bd->region.x1 ? x1 : bd->region.x1;
    leaf->rect.y1 = y1 < bd->region.y1 ? y1 : bd->region.y1;
    leaf->depth = depth;
    leaf->count = n;
    leaf->offset = bd->num_pairs;
    if (n) memcpy(bd->lists + bd->num_pairs, ids, (size_t)n * sizeof *ids);
    bd->num_pairs += n;
}

/* Node at absolute pixel (x0, y0) with the given side; ids = the ascending
 * list of circles whose box meets it. */
static void build_node(builder *bd, int x0, int y0, int side, int depth, const int32_t *ids,
                       int32_t n)
{
    bd->num_nodes++;
    if (depth > bd->max_depth) bd->max_depth = depth;
    if (!qr_node_splits(side, depth, n, bd->p)) {
        add_leaf(bd, x0, y0, side, depth, ids, n);
        return;
    }
    int half = side / 2;
    if (qr_split_weighed(side, bd->p)) {
        /* the children's counts first: the split may not pay */
        long long children = 0;
        for (int k = 0; k < 4; k++) {
            int cx = x0 + (k & 1) * half, cy = y0 + (k >> 1) * half;
            if (cx >= bd->region.x1 || cy >= bd->region.y1) continue;
            for (int32_t j = 0; j < n; j++)
                children += meets(&bd->boxes[ids[j]], cx, cy, cx + half, cy + half);
        }
        if (!qr_split_pays(side, n, children, bd->p)) {
            add_leaf(bd, x0, y0, side, depth, ids, n);
            return;
        }
    }
    int32_t *sub = malloc((size_t)(n ? n : 1) * sizeof *sub);
    if (!sub) { bd->oom = 1; return; }
    for (int k = 0; k < 4 && !bd->oom; k++) {
        int cx = x0 + (k & 1) * half, cy = y0 + (k >> 1) * half;
        if (cx >= bd->region.x1 || cy >= bd->region.y1)
            continue; /* wholly outside the region: no such child */
        int32_t m = 0;
        for (int32_t j = 0; j < n; j++)
            if (meets(&bd->boxes[ids[j]], cx, cy, cx + half, cy + half))
                sub[m++] = ids[j];
        build_node(bd, cx, cy, half, depth + 1, sub, m);
    }
    free(sub);
}

qr_status qr_index_build_host(const qr_scene *scene, int32_t width, int32_t height,
                              const qr_rect *region, const qr_index_params *params,
                              qr_index **out, qr_error *err)
{
    *out = NULL;
    qr_rect reg;
    qr_status st = qr_index_check_build(width, height, region, params, &reg, err);
    if (st) return st;

    int32_t n = scene->n;
    qr_rect *boxes = malloc((size_t)(n ? n : 1) * sizeof *boxes);
    int32_t *ids = malloc((size_t)(n ? n : 1) * sizeof *ids);
    qr_index *ix = calloc(1, sizeof *ix);
    if (!boxes || !ids || !ix) {
        free(boxes); free(ids); free(ix);
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory building the index of %d circles", n);
    }
    int32_t visible = 0;
    for (int32_t i = 0; i < n; i++)
        if (qr_index_circle_box(scene, i, width, height, &reg, &boxes[i]))
            ids[visible++] = i;

    builder bd = {0};
    bd.p = params;
    bd.region = reg;
    bd.boxes = boxes;
    int root = qr_root_size(reg, params->min_leaf);
    build_node(&bd, reg.x0, reg.y0, root, 0, ids, visible);
    free(boxes);
    free(ids);
    if (!bd.lists && !bd.oom) /* an index with no pairs still has a list array */
        bd.oom = !(bd.lists = malloc(sizeof *bd.lists));
    if (bd.oom) {
        free(bd.leaves); free(bd.lists); free(ix);
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory building the index");
    }
    ix->width = width;
    ix->height = height;
    ix->region = reg;
    ix->params = *params;
    ix->root_size = root;
    ix->num_nodes = bd.num_nodes;
    ix->num_leaves = bd.num_leaves;
    ix->max_depth_reached = bd.max_depth;
    ix->visible = visible;
    ix->culled = n - visible;
    ix->num_pairs = bd.num_pairs;
    ix->leaves = bd.leaves;
    ix->lists = bd.lists;
    *out = ix;
    return QR_OK;
}
