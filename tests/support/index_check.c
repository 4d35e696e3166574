/* index_check.c — see index_check.h. */
#include "index_check.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static qr_index *build_mode(const qr_scene *s, int32_t w, int32_t h, const qr_rect *region,
                            const qr_index_params *p, qr_render_mode mode)
{
    qr_index *ix = NULL;
    qr_error err;
    qr_status st = qr_index_build_host(s, w, h, region, p, mode, &ix, &err);
    cr_assert_eq(st, QR_OK, "qr_index_build_host %dx%d: %s", w, h, err.msg);
    cr_assert_not_null(ix);
    return ix;
}

qr_index *qr_test_index_build(const qr_scene *s, int32_t w, int32_t h, const qr_rect *region,
                              const qr_index_params *p)
{
    return build_mode(s, w, h, region, p, QR_RENDER_FAST);
}

static int32_t imin(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }

/* CLAMP((int)v + add, 0, limit), C truncation toward zero, in double so that
 * no float -> int conversion can overflow. */
static int32_t cs149_bound(float v, int add, int32_t limit)
{
    double t = trunc((double)v) + add;
    if (t < 0.0) return 0;
    if (t > (double)limit) return limit;
    return (int32_t)t;
}

/* quadrender/index.h's culling rule, from scratch: r > 0, r * r and every value finite;
 * the CS149 box (truncate (x-r)*W, (x+r)*W + 1, clamp) clipped to the region
 * is not empty; and a box of at most 3 x 3 pixels holds a pixel centre
 * ((p + 0.5) / W) with dx*dx + dy*dy <= r*r. */
int qr_test_model_circle(const qr_scene *s, int32_t i, int32_t w, int32_t h, qr_rect reg,
                         qr_rect *box)
{
    float x = s->x[i], y = s->y[i], r = s->r[i];
    /* a radius whose square overflows covers nothing (images.md) */
    if (!isfinite(x) || !isfinite(y) || !isfinite(r) || !(r > 0.0f) || !isfinite(r * r))
        return 0;
    float fw = (float)w, fh = (float)h;
    qr_rect b;
    b.x0 = imax(cs149_bound((x - r) * fw, 0, w), reg.x0);
    b.x1 = imin(cs149_bound((x + r) * fw, 1, w), reg.x1);
    b.y0 = imax(cs149_bound((y - r) * fh, 0, h), reg.y0);
    b.y1 = imin(cs149_bound((y + r) * fh, 1, h), reg.y1);
    if (b.x0 >= b.x1 || b.y0 >= b.y1)
        return 0;
    if (b.x1 - b.x0 <= 3 && b.y1 - b.y0 <= 3) {
        float inv_w = 1.0f / fw, inv_h = 1.0f / fh, r2 = r * r;
        int hit = 0;
        for (int32_t py = b.y0; py < b.y1; py++)
            for (int32_t px = b.x0; px < b.x1; px++) {
                float dx = x - inv_w * ((float)px + 0.5f);
                float dy = y - inv_h * ((float)py + 0.5f);
                if (dx * dx + dy * dy <= r2) hit = 1;
            }
        if (!hit)
            return 0;
    }
    *box = b;
    return 1;
}

static int rects_meet(qr_rect a, qr_rect b)
{
    return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

bool qr_test_rect_equal(qr_rect a, qr_rect b)
{
    return a.x0 == b.x0 && a.y0 == b.y0 && a.x1 == b.x1 && a.y1 == b.y1;
}

/* Morton key, y bits above x bits: depth-first order with children
 * bottom-left, bottom-right, top-left, top-right sorts leaves by it. */
static uint64_t zkey(uint32_t x, uint32_t y)
{
    uint64_t k = 0;
    for (int b = 0; b < 20; b++)
        k |= (uint64_t)((x >> b) & 1u) << (2 * b) | (uint64_t)((y >> b) & 1u) << (2 * b + 1);
    return k;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The split_cost rule, written out from its definition in index.h: regions
 * reading a leaf of side s are max(1, s / 32)^2, and a region reads
 * share / 1000 of a list (fast mode; 1000 in exact mode). In 128 bits. */
__extension__ typedef __int128 wide_int;
static int split_pays(int32_t side, long long count, long long children, int32_t cost,
                      int32_t share)
{
    long long r = side > 32 ? side / 32 : 1, rh = side / 2 > 32 ? side / 64 : 1;
    /* a list too long for one block splits, where the split shortens it:
     * the children's lists half as long on average */
    if (count > 16384 && (wide_int)4 * children <= (wide_int)2 * 4 * count) return 1;
    return (wide_int)100 * 1000 * (children - count) <
           (wide_int)cost * share * (r * r * count - rh * rh * children);
}

/* The share of a list a region reads (index.h, the render mode): in fast
 * mode 128 box pixels per pixel over the coverage, from a fifth to all of
 * it, in thousandths; all of it in exact mode. */
static int32_t read_share(qr_render_mode mode, unsigned long long box_area, long long area)
{
    if (mode != QR_RENDER_FAST || box_area == 0) return 1000;
    const unsigned long long s = 1000ULL * 128 * (unsigned long long)area / box_area;
    return s >= 1000 ? 1000 : s <= 200 ? 200 : (int32_t)s;
}

/* Visible circles summed over the existing children of the node at (x0, y0)
 * of this side (brute force). */
static long long children_sum(const qr_rect *boxes, const unsigned char *vis, int32_t n,
                              qr_rect reg, int32_t x0, int32_t y0, int32_t side)
{
    long long sum = 0;
    const int32_t half = side / 2;
    for (int k = 0; k < 4; k++) {
        qr_rect c = {x0 + (k & 1) * half, y0 + (k >> 1) * half, 0, 0};
        if (c.x0 >= reg.x1 || c.y0 >= reg.y1) continue;
        c.x1 = c.x0 + half;
        c.y1 = c.y0 + half;
        for (int32_t i = 0; i < n; i++) sum += vis[i] && rects_meet(boxes[i], c);
    }
    return sum;
}

qr_index *qr_test_index_checked_mode(const qr_scene *s, int32_t w, int32_t h,
                                     const qr_rect *region, const qr_index_params *p,
                                     qr_render_mode mode)
{
    qr_rect reg = region ? *region : qr_rect_full(w, h);
    char ctx[256];
    snprintf(ctx, sizeof ctx,
             "%s (%d circles) %dx%d region [%d,%d)x[%d,%d) cap %d leaf %d depth %d cost %d%s%s",
             s->name[0] ? s->name : "scene", s->n, w, h, reg.x0, reg.x1, reg.y0, reg.y1,
             p->capacity, p->min_leaf, p->max_depth, p->split_cost, p->uniform ? " uniform" : "",
             mode == QR_RENDER_FAST ? "" : " exact mode");
    qr_index *ix = build_mode(s, w, h, region, p, mode);
    const int32_t n = s->n, rw = reg.x1 - reg.x0, rh = reg.y1 - reg.y0;

    /* the header */
    cr_assert_eq(ix->width, w, "%s", ctx);
    cr_assert_eq(ix->height, h, "%s", ctx);
    cr_assert(qr_test_rect_equal(ix->region, reg), "%s: index region [%d,%d)x[%d,%d)", ctx,
              ix->region.x0, ix->region.x1, ix->region.y0, ix->region.y1);
    cr_assert(ix->params.capacity == p->capacity && ix->params.min_leaf == p->min_leaf &&
                  ix->params.max_depth == p->max_depth && ix->params.uniform == p->uniform &&
                  ix->params.deep_leaf == p->deep_leaf && ix->mode == mode,
              "%s: params not recorded", ctx);
    int32_t root = p->min_leaf;
    while (root < rw || root < rh) root *= 2;
    cr_assert_eq(ix->root_size, root, "%s: root_size %d, expected %d", ctx, ix->root_size, root);
    /* the smallest leaf: deep_leaf or root / 256, at most min_leaf */
    int32_t floor = p->min_leaf;
    if (!p->uniform && p->deep_leaf) {
        floor = p->deep_leaf > root / 256 ? p->deep_leaf : root / 256;
        if (floor > p->min_leaf) floor = p->min_leaf;
    }
    cr_assert(ix->num_leaves >= 1, "%s: %d leaves", ctx, ix->num_leaves);

    /* circles: culling and clipped boxes, against the model */
    qr_rect *boxes = calloc((size_t)n + 1, sizeof *boxes);
    unsigned char *vis = calloc((size_t)n + 1, 1), *listed = calloc((size_t)n + 1, 1);
    int32_t *expect = malloc(((size_t)n + 1) * sizeof *expect);
    cr_assert(boxes && vis && listed && expect);
    int32_t visible = 0;
    unsigned long long box_area = 0;
    for (int32_t i = 0; i < n; i++) {
        qr_rect lib = {-1, -1, -1, -1};
        int lv = qr_index_circle_box(s, i, w, h, region, &lib);
        vis[i] = (unsigned char)qr_test_model_circle(s, i, w, h, reg, &boxes[i]);
        if ((lv != 0) != vis[i])
            cr_assert_fail("%s: circle %d (x %a y %a r %a): qr_index_circle_box says %s, "
                           "expected %s", ctx, i, s->x[i], s->y[i], s->r[i],
                           lv ? "visible" : "culled", vis[i] ? "visible" : "culled");
        if (vis[i] && !qr_test_rect_equal(lib, boxes[i]))
            cr_assert_fail("%s: circle %d box [%d,%d)x[%d,%d), expected [%d,%d)x[%d,%d)", ctx, i,
                           lib.x0, lib.x1, lib.y0, lib.y1, boxes[i].x0, boxes[i].x1, boxes[i].y0,
                           boxes[i].y1);
        visible += vis[i];
        if (vis[i])
            box_area += (unsigned long long)(boxes[i].x1 - boxes[i].x0) *
                        (unsigned long long)(boxes[i].y1 - boxes[i].y0);
    }
    const int32_t read = read_share(mode, box_area, (long long)rw * rh);
    cr_assert_eq(ix->visible, visible, "%s: visible %d, expected %d", ctx, ix->visible, visible);
    cr_assert_eq(ix->culled, n - visible, "%s: culled %d, expected %d", ctx, ix->culled,
                 n - visible);

    /* crowded: a node of side min_leaf holds more than 65536 circles (and
     * more than capacity) and may split below it (brute force, cell by
     * cell of min_leaf over the region) */
    int crowded = 0;
    int32_t d_ml = 0;
    while ((root >> d_ml) > p->min_leaf) d_ml++;
    if (!p->uniform && floor < p->min_leaf && d_ml < p->max_depth) {
        const int32_t m = p->min_leaf, gx = (rw + m - 1) / m, gy = (rh + m - 1) / m;
        int32_t *cells = calloc((size_t)gx * (size_t)gy, sizeof *cells);
        cr_assert(cells);
        for (int32_t i = 0; i < n; i++) {
            if (!vis[i]) continue;
            for (int32_t cy = (boxes[i].y0 - reg.y0) / m; cy <= (boxes[i].y1 - 1 - reg.y0) / m; cy++)
                for (int32_t cx = (boxes[i].x0 - reg.x0) / m; cx <= (boxes[i].x1 - 1 - reg.x0) / m; cx++)
                    cells[(size_t)cy * gx + cx]++;
        }
        /* ... and more than 8 times its share of the visible circles by area */
        const long long share = (long long)visible * m * m / ((long long)rw * rh) * 8;
        for (size_t k = 0; k < (size_t)gx * (size_t)gy; k++)
            crowded |= cells[k] > 65536 && cells[k] > p->capacity && cells[k] > share;
        free(cells);
    }

    /* leaves */
    unsigned char *paint = calloc((size_t)rw * (size_t)rh, 1);
    uint64_t *anc = malloc(((size_t)ix->num_leaves * 16 + 1) * sizeof *anc);
    cr_assert(paint && anc);
    size_t num_anc = 0;
    int64_t offset = 0;
    int32_t deepest = 0;
    uint64_t prev_key = 0;
    for (int32_t k = 0; k < ix->num_leaves; k++) {
        const qr_leaf *l = &ix->leaves[k];
        const qr_rect q = l->rect;
        char lc[96];
        snprintf(lc, sizeof lc, "leaf %d [%d,%d)x[%d,%d) depth %d", k, q.x0, q.x1, q.y0, q.y1,
                 l->depth);

        /* geometry: an aligned square of side root >> depth, clipped to the region */
        if (l->depth < 0 || l->depth > p->max_depth)
            cr_assert_fail("%s: %s: depth out of 0..%d", ctx, lc, p->max_depth);
        const int32_t side = root >> l->depth;
        if (side < floor || (side << l->depth) != root)
            cr_assert_fail("%s: %s: side %d not a power of two >= %d", ctx, lc, side, floor);
        const int32_t rx = q.x0 - reg.x0, ry = q.y0 - reg.y0;
        if (rx < 0 || ry < 0 || rx % side || ry % side)
            cr_assert_fail("%s: %s: not aligned to %d from the region corner", ctx, lc, side);
        if (q.x0 >= reg.x1 || q.y0 >= reg.y1)
            cr_assert_fail("%s: %s: outside the region", ctx, lc);
        if (q.x1 != imin(q.x0 + side, reg.x1) || q.y1 != imin(q.y0 + side, reg.y1))
            cr_assert_fail("%s: %s: not the square of side %d clipped to the region", ctx, lc,
                           side);
        const uint64_t key = zkey((uint32_t)rx, (uint32_t)ry);
        if (k > 0 && key <= prev_key)
            cr_assert_fail("%s: %s: leaves out of depth-first order", ctx, lc);
        prev_key = key;
        for (int32_t y = q.y0; y < q.y1; y++)
            for (int32_t x = q.x0; x < q.x1; x++)
                paint[(size_t)(y - reg.y0) * (size_t)rw + (size_t)(x - reg.x0)]++;
        if (l->depth > deepest) deepest = l->depth;

        /* the list: exactly the circles whose box meets the leaf, ascending */
        if (l->offset != offset)
            cr_assert_fail("%s: %s: offset %lld, expected %lld", ctx, lc, (long long)l->offset,
                           (long long)offset);
        int32_t m = 0;
        for (int32_t i = 0; i < n; i++)
            if (vis[i] && rects_meet(boxes[i], q)) expect[m++] = i;
        if (l->count != m)
            cr_assert_fail("%s: %s: count %d, expected %d", ctx, lc, l->count, m);
        for (int32_t j = 0; j < m; j++) {
            if (ix->lists[offset + j] != expect[j])
                cr_assert_fail("%s: %s: entry %d is circle %d, expected %d", ctx, lc, j,
                               ix->lists[offset + j], expect[j]);
            listed[expect[j]] = 1;
        }
        offset += m;

        /* split rules */
        const int may_split = side > p->min_leaf && l->depth < p->max_depth;
        if (p->uniform && may_split)
            cr_assert_fail("%s: %s: uniform mode left a splittable leaf", ctx, lc);
        /* (nodes of the render region's side or less split by capacity alone) */
        const int weighed = p->split_cost > 0 && !p->uniform && !(p->max_leaf && side > p->max_leaf) &&
                            side > QR_REGION;
        if (!p->uniform && may_split && l->count > p->capacity &&
            !(weighed && !split_pays(side, l->count,
                                     children_sum(boxes, vis, n, reg, q.x0, q.y0, side),
                                     p->split_cost, read)))
            cr_assert_fail("%s: %s: %d circles > capacity, yet not split", ctx, lc, l->count);
        if (!p->uniform && may_split && p->max_leaf && side > p->max_leaf)
            cr_assert_fail("%s: %s: side %d > max_leaf %d, yet not split", ctx, lc, side, p->max_leaf);
        /* at min_leaf or below, in a crowded tree, a leaf of more than 16384
         * circles splits down to the floor where the split shortens its list
         * (weighed at min_leaf itself, when larger than a region) */
        if (crowded && side <= p->min_leaf && side > floor && l->depth < p->max_depth &&
            l->count > p->capacity && l->count > 16384) {
            const long long own = children_sum(boxes, vis, n, reg, q.x0, q.y0, side);
            if (4 * own <= 8 * (long long)l->count &&
                !(weighed && !split_pays(side, l->count, own, p->split_cost, read)))
                cr_assert_fail("%s: %s: %d circles crowd it, yet not split", ctx, lc, l->count);
        }
        if (l->depth > 0 && !p->uniform) {
            const int32_t ps = 2 * side;
            qr_rect par;
            par.x0 = reg.x0 + rx / ps * ps;
            par.y0 = reg.y0 + ry / ps * ps;
            par.x1 = imin(par.x0 + ps, reg.x1);
            par.y1 = imin(par.y0 + ps, reg.y1);
            int32_t c = 0;
            for (int32_t i = 0; i < n; i++)
                c += vis[i] && rects_meet(boxes[i], par);
            if ((c <= p->capacity && !(p->max_leaf && ps > p->max_leaf)) ||
                (ps <= p->min_leaf && (!crowded || c <= 16384)))
                cr_assert_fail("%s: %s: parent [%d,%d)x[%d,%d) split with only %d circles", ctx,
                               lc, par.x0, par.x1, par.y0, par.y1, c);
            const long long cc = children_sum(boxes, vis, n, reg, par.x0, par.y0, ps);
            /* a split below the weighed sides must shorten the lists */
            if (ps <= p->min_leaf && !(p->split_cost > 0 && ps > QR_REGION) && 4 * cc > 8 * (long long)c)
                cr_assert_fail("%s: %s: parent [%d,%d)x[%d,%d) split though its children's lists "
                               "(%lld) are not shorter than its own (%d)",
                               ctx, lc, par.x0, par.x1, par.y0, par.y1, cc, c);
            if (p->split_cost > 0 && !(p->max_leaf && ps > p->max_leaf) && ps > QR_REGION &&
                !split_pays(ps, c, cc, p->split_cost, read))
                cr_assert_fail("%s: %s: parent [%d,%d)x[%d,%d) split though it does not pay "
                               "(%d circles, children %lld)",
                               ctx, lc, par.x0, par.x1, par.y0, par.y1, c, cc);
        }
        for (int32_t d = 0; d < l->depth; d++) {
            const int32_t as = root >> d;
            anc[num_anc++] = (uint64_t)d << 48 | (uint64_t)(rx / as) << 24 | (uint64_t)(ry / as);
        }
    }
    for (int32_t y = 0; y < rh; y++)
        for (int32_t x = 0; x < rw; x++)
            if (paint[(size_t)y * (size_t)rw + (size_t)x] != 1)
                cr_assert_fail("%s: pixel (%d,%d) covered by %d leaves", ctx, reg.x0 + x,
                               reg.y0 + y, paint[(size_t)y * (size_t)rw + (size_t)x]);
    cr_assert_eq(ix->num_pairs, offset, "%s: num_pairs %lld, expected %lld", ctx,
                 (long long)ix->num_pairs, (long long)offset);
    for (int32_t i = 0; i < n; i++)
        if (listed[i] != vis[i])
            cr_assert_fail("%s: circle %d visible %d but listed %d", ctx, i, vis[i], listed[i]);

    /* tree totals: the internal nodes are the leaves' distinct ancestors */
    qsort(anc, num_anc, sizeof *anc, cmp_u64);
    int32_t internal = 0;
    for (size_t a = 0; a < num_anc; a++)
        internal += a == 0 || anc[a] != anc[a - 1];
    cr_assert_eq(ix->num_nodes, ix->num_leaves + internal, "%s: num_nodes %d, expected %d", ctx,
                 ix->num_nodes, ix->num_leaves + internal);
    cr_assert_eq(ix->max_depth_reached, deepest, "%s: max_depth_reached %d, expected %d", ctx,
                 ix->max_depth_reached, deepest);

    free(boxes);
    free(vis);
    free(listed);
    free(expect);
    free(paint);
    free(anc);
    return ix;
}

qr_index *qr_test_index_checked(const qr_scene *s, int32_t w, int32_t h, const qr_rect *region,
                                const qr_index_params *p)
{
    return qr_test_index_checked_mode(s, w, h, region, p, QR_RENDER_FAST);
}

void qr_test_index_check(const qr_scene *s, int32_t w, int32_t h, const qr_rect *region,
                         const qr_index_params *p)
{
    qr_index_destroy(qr_test_index_checked(s, w, h, region, p));
}

qr_index_params qr_test_params(int32_t capacity, int32_t min_leaf, int32_t max_depth,
                               int32_t uniform)
{
    qr_index_params p = {capacity, min_leaf, max_depth, uniform, 0, 0, 0};
    return p;
}

void qr_test_expect_leaf(const qr_index *ix, int32_t k, qr_rect rect, int32_t depth,
                         int32_t count, const int32_t *ids)
{
    cr_assert_lt(k, ix->num_leaves, "leaf %d missing (%d leaves)", k, ix->num_leaves);
    const qr_leaf *l = &ix->leaves[k];
    cr_assert(qr_test_rect_equal(l->rect, rect),
              "leaf %d is [%d,%d)x[%d,%d), expected [%d,%d)x[%d,%d)", k, l->rect.x0, l->rect.x1,
              l->rect.y0, l->rect.y1, rect.x0, rect.x1, rect.y0, rect.y1);
    cr_assert_eq(l->depth, depth, "leaf %d depth %d, expected %d", k, l->depth, depth);
    cr_assert_eq(l->count, count, "leaf %d count %d, expected %d", k, l->count, count);
    for (int32_t j = 0; j < count; j++)
        cr_assert_eq(ix->lists[l->offset + j], ids[j], "leaf %d entry %d: %d, expected %d", k, j,
                     ix->lists[l->offset + j], ids[j]);
}
