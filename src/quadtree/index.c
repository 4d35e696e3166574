/* index.c — what the host and the GPU builds share: the index's
 * parameters, their defaults and checks, the checked size and region of a
 * build, the per-circle box, and freeing a host index. The host build is
 * quadtree/host (its entry qr_index_build_host in host_grid.c), the GPU
 * build quadtree/gpu; both decide by quadtree_geom.h's rules.
 */
#include "quadrender/index.h"
#include "quadtree/quadtree_geom.h"
#include "quadrender/text.h"

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
    p->deep_leaf = QR_MIN_LEAF;
}

qr_status qr_index_params_check(const qr_index_params *p, qr_error *err)
{
    if (p->capacity < 1)
        return qr_fail(err, QR_ERR_INVALID, "index capacity must be at least 1 (got %d)",
                       p->capacity);
    if (p->min_leaf < QR_MIN_LEAF || p->min_leaf > 32768 || (p->min_leaf & (p->min_leaf - 1)))
        return qr_fail(err, QR_ERR_INVALID,
                       "minimum leaf size must be a power of two from %d to 32768 (got %d)",
                       QR_MIN_LEAF, p->min_leaf);
    /* a max_leaf below min_leaf just means every leaf is min_leaf */
    if (p->max_leaf != 0 && (p->max_leaf < QR_TILE || p->max_leaf > 32768 ||
                             (p->max_leaf & (p->max_leaf - 1))))
        return qr_fail(err, QR_ERR_INVALID,
                       "maximum leaf size must be 0 (no limit) or a power of two from %d to 32768 "
                       "(got %d)",
                       QR_TILE, p->max_leaf);
    if (p->deep_leaf != 0 && (p->deep_leaf < QR_MIN_LEAF || p->deep_leaf > 32768 ||
                              (p->deep_leaf & (p->deep_leaf - 1))))
        return qr_fail(err, QR_ERR_INVALID,
                       "deep leaf size must be 0 (none) or a power of two from %d to 32768 (got %d)",
                       QR_MIN_LEAF, p->deep_leaf);
    if (p->split_cost < 0 || p->split_cost > 1000)
        return qr_fail(err, QR_ERR_INVALID, "split cost must be from 0 to 1000 (got %d)",
                       p->split_cost);
    if (p->max_depth < 0 || p->max_depth > QR_MAX_DEPTH_LIMIT)
        return qr_fail(err, QR_ERR_INVALID, "maximum depth must be from 0 to %d (got %d)",
                       QR_MAX_DEPTH_LIMIT, p->max_depth);
    return QR_OK;
}

qr_status qr_index_check_kind(const char *name, const char *text, int32_t *uniform, qr_error *err)
{
    if (text && !strcmp(text, "quadtree"))
        *uniform = 0;
    else if (text && !strcmp(text, "grid"))
        *uniform = 1;
    else
        return qr_text_refuse(name, text, "'quadtree' or 'grid'", err);
    return QR_OK;
}

/* What qr_index_check_value takes of each option (index.h): lo..hi as
 * qr_text_check_uint's `how` says. */
static const struct {
    uint64_t lo, hi;
    int how;
    const char *expected;
} index_values[QR_IXO_COUNT] = {
    [QR_IXO_CAPACITY] = {1, UINT64_C(1) << 30, QR_UINT_RANGE, "an integer from 1 to 1073741824"},
    [QR_IXO_MIN_LEAF] = {QR_MIN_LEAF, 32768, QR_UINT_POW2, "a power of two from 4 to 32768"},
    [QR_IXO_MAX_DEPTH] = {0, QR_MAX_DEPTH_LIMIT, QR_UINT_RANGE, "an integer from 0 to 15"},
    [QR_IXO_TILE] = {QR_TILE, 32768, QR_UINT_POW2, "a power of two from 16 to 32768"},
    [QR_IXO_MAX_LEAF] = {QR_TILE, 32768, QR_UINT_POW2 | QR_UINT_OR_0,
                         "0, or a power of two from 16 to 32768"},
    [QR_IXO_SPLIT_COST] = {0, 1000, QR_UINT_RANGE, "an integer from 0 to 1000"},
    [QR_IXO_DEEP_LEAF] = {QR_MIN_LEAF, 32768, QR_UINT_POW2 | QR_UINT_OR_0,
                          "0, or a power of two from 4 to 32768"},
};

qr_status qr_index_check_value(int option, const char *name, const char *text, int32_t *out,
                               qr_error *err)
{
    if (option < 0 || option >= QR_IXO_COUNT || !index_values[option].expected)
        return qr_fail(err, QR_ERR_INVALID, "index option %d: not a number", option);
    uint64_t v;
    qr_status st = qr_text_check_uint(name, text, index_values[option].lo, index_values[option].hi,
                                      index_values[option].how, index_values[option].expected, &v,
                                      err);
    if (st == QR_OK)
        *out = (int32_t)v;
    return st;
}

qr_status qr_index_check_tile(const char *name, const char *text, int32_t *out, qr_error *err)
{
    return qr_index_check_value(QR_IXO_TILE, name, text, out, err);
}

qr_status qr_index_check_options(int32_t uniform, unsigned given, const char *const *names,
                                 qr_error *err)
{
    if (!uniform) {
        if (given & (1u << QR_IXO_TILE))
            return qr_fail(err, QR_ERR_INVALID, "%s: only with %s", names[QR_IXO_TILE],
                           names[QR_IXO_INDEX]);
        return QR_OK;
    }
    /* the quadtree's own options, in the order the CLI has named them */
    static const int quadtree_only[] = {QR_IXO_CAPACITY, QR_IXO_MIN_LEAF, QR_IXO_MAX_LEAF,
                                        QR_IXO_SPLIT_COST, QR_IXO_DEEP_LEAF};
    for (size_t k = 0; k < sizeof quadtree_only / sizeof quadtree_only[0]; k++)
        if (given & (1u << quadtree_only[k]))
            return qr_fail(err, QR_ERR_INVALID, "%s: not with %s (its tiles are set by %s)",
                           names[quadtree_only[k]], names[QR_IXO_INDEX], names[QR_IXO_TILE]);
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
    if (width < 1 || height < 1 || width > QR_IMAGE_BANDS_MAX_DIM || height > QR_IMAGE_BANDS_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID, "image size %dx%d out of range (1 to %d a side)",
                       width, height, QR_IMAGE_BANDS_MAX_DIM);
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

void qr_index_destroy(qr_index *index)
{
    if (!index) return;
    free(index->leaves);
    free(index->lists);
    free(index);
}
