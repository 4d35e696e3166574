/* quadtree_geom.h — index rules shared by the host oracle and the GPU build.
 *
 * Both builders must make the same decisions bit for bit, so the per-circle
 * culling and the tree geometry live here, in functions that compile as
 * plain C and as CUDA host/device code.
 */
#ifndef QR_QUADTREE_GEOM_H
#define QR_QUADTREE_GEOM_H

#include "common/circle_math.h"
#include "quadrender/index.h"

/* Largest box (per side, pixels) whose pixel centres are tested one by one
 * when deciding whether a circle covers any pixel at all. */
#define QR_CULL_TEST_SIDE 3

/* Finite check that survives -ffast-math style assumptions: x - x is NaN for
 * +-inf and NaN. */
QR_HD int qr_is_finite(float v)
{
    return QR_SUB(v, v) == 0.0f;
}

/* The circle's pixel box clipped to the region, or 0 when the circle is
 * culled (see quadrender/index.h). inv_w = 1.0f / width, likewise inv_h. */
QR_HD int qr_cull_circle(float x, float y, float r, int width, int height, float inv_w,
                         float inv_h, qr_rect region, qr_rect *box)
{
    if (!qr_radius_draws(r) || !qr_is_finite(x) || !qr_is_finite(y))
        return 0;
    qr_pixbox b = qr_circle_pixbox(x, y, r, width, height);
    int x0 = b.x0 > region.x0 ? b.x0 : region.x0;
    int x1 = b.x1 < region.x1 ? b.x1 : region.x1;
    int y0 = b.y0 > region.y0 ? b.y0 : region.y0;
    int y1 = b.y1 < region.y1 ? b.y1 : region.y1;
    if (x0 >= x1 || y0 >= y1)
        return 0;
    if (x1 - x0 <= QR_CULL_TEST_SIDE && y1 - y0 <= QR_CULL_TEST_SIDE) {
        float r2 = QR_MUL(r, r);
        int hit = 0;
        /* stops at the first covered centre: most small circles cover one */
        for (int py = y0; py < y1 && !hit; py++) {
            float cy = qr_pixel_center(py, inv_h);
            for (int px = x0; px < x1 && !hit; px++)
                hit = qr_dist2(x, y, qr_pixel_center(px, inv_w), cy) <= r2;
        }
        if (!hit)
            return 0;
    }
    box->x0 = x0;
    box->x1 = x1;
    box->y0 = y0;
    box->y1 = y1;
    return 1;
}

/* Root side: the smallest power of two >= max(region w, region h, min_leaf). */
QR_HD int qr_root_size(qr_rect region, int min_leaf)
{
    int w = region.x1 - region.x0, h = region.y1 - region.y0;
    int need = w > h ? w : h;
    if (need < min_leaf) need = min_leaf;
    int s = 1;
    while (s < need) s <<= 1;
    return s;
}

/* The smallest leaf of a tree with this root: deep_leaf, or the root's
 * 1/256 if larger (the GPU build counts circles over cells of this side),
 * never above min_leaf; min_leaf itself without deep splits (deep_leaf 0,
 * or a uniform grid). */
QR_HD int qr_leaf_floor(int root, const qr_index_params *p)
{
    if (p->uniform || p->deep_leaf == 0) return p->min_leaf;
    int f = root / 256 > p->deep_leaf ? root / 256 : p->deep_leaf;
    return f < p->min_leaf ? f : p->min_leaf;
}

/* Whether a node of side min_leaf makes its tree crowded: it may split
 * below min_leaf (floor: qr_leaf_floor), it holds more than
 * QR_SPLIT_CROWDED circles (and more than capacity), and more than
 * QR_CROWD_CONTRAST times its share of the region's `visible` circles by
 * area (`area`: the region's pixels; evenly dense scenes, whose pixels all
 * stop early, gain nothing from smaller leaves). Integers: both builders
 * decide alike (visible * side^2 < 2^31 * 2^30). */
#define QR_CROWD_CONTRAST 8
QR_HD int qr_node_crowds(int side, int depth, long long count, int floor, long long visible,
                         long long area, const qr_index_params *p)
{
    return !p->uniform && side == p->min_leaf && side > floor && depth < p->max_depth &&
           count > p->capacity && count > QR_SPLIT_CROWDED &&
           count > visible * side * side / area * QR_CROWD_CONTRAST;
}

/* Whether a node of this side and depth splits by the capacity rules, in a
 * tree whose leaves are at least `floor` (qr_leaf_floor): above min_leaf
 * when over capacity or larger than max_leaf; at min_leaf and below, down
 * to the floor, only in a crowded tree (one node of min_leaf crowds it:
 * qr_node_crowds), past QR_SPLIT_DEEP circles (a weighed split must also
 * pay: qr_split_pays). */
QR_HD int qr_node_splits(int side, int depth, long long count, int floor, int crowded,
                         const qr_index_params *p)
{
    if (depth >= p->max_depth) return 0;
    if (side > p->min_leaf)
        return p->uniform || count > p->capacity || (p->max_leaf && side > p->max_leaf);
    return crowded && side > floor && count > p->capacity && count > QR_SPLIT_DEEP;
}

/* Whether a split of a node of this side is weighed by split_cost (not when
 * it is forced: uniform grid, or larger than max_leaf; nor at the render
 * region's side or below, where split_cost's rule, which counts list reads
 * per region, can never pay: there a leaf's list is walked for its own
 * pixels only, and a crowded node splits by capacity). */
QR_HD int qr_split_weighed(int side, const qr_index_params *p)
{
    return p->split_cost > 0 && !p->uniform && !(p->max_leaf && side > p->max_leaf) &&
           side > QR_REGION;
}

/* Regions of the render kernel that read the list of a leaf of this side. */
QR_HD long long qr_leaf_regions(int side)
{
    long long r = side > QR_REGION ? side / QR_REGION : 1;
    return r * r;
}

/* Whether the lists of an index built for `mode` feed a render that stops
 * walking them early (quadrender/index.h, the render mode): fast mode's.
 * The builders' one reading of the mode. */
static inline int qr_mode_stops_early(qr_render_mode mode)
{
    return mode == QR_RENDER_FAST;
}

/* The share of a list a region of the render reads, in thousandths:
 * QR_READ_SHARE_ONE without early stop (qr_mode_stops_early) or
 * when nothing is visible; else QR_STOP_COVERAGE over the coverage
 * box_area / area (the visible circles' box pixels per pixel of the
 * region), within [QR_READ_SHARE_MIN, QR_READ_SHARE_ONE]. Integers: both
 * builders sum the same boxes in 64 bits (modulo 2^64, which only scenes
 * of millions of image-sized circles on the largest images reach: the
 * builders still agree), and 1000 * 128 * area < 2^51. */
QR_HD int qr_read_share(unsigned long long box_area, long long area, int early_stop)
{
    if (!early_stop || box_area == 0) return QR_READ_SHARE_ONE;
    const unsigned long long s =
        (unsigned long long)QR_READ_SHARE_ONE * QR_STOP_COVERAGE * (unsigned long long)area / box_area;
    return s >= QR_READ_SHARE_ONE ? QR_READ_SHARE_ONE
         : s <= QR_READ_SHARE_MIN ? QR_READ_SHARE_MIN : (int)s;
}

/* Whether a split shortens the node's lists: its children's lists sum to
 * at most QR_SPLIT_SHORTEN quarters of its own (C' <= 2 C: a child's list
 * half the node's on average). Where most circles meet every child
 * (circles larger than the node) a split shortens no list and multiplies
 * the pairs by up to four: split down to the floor, 100 000 image-sized
 * circles made 6.5 billion pairs at 1024^2; a crowd of small circles under
 * large ones kept splitting while the small ones shortened the lists a
 * little and the large ones were copied into every child (7.7 million
 * pairs where a 256-pixel grid holds 2.1 million, frames 1.7x the grid's).
 * The threshold changes no tree of the built-in scenes. */
#define QR_SPLIT_SHORTEN 8
QR_HD int qr_split_shortens(long long count, long long children)
{
    return 4 * children <= QR_SPLIT_SHORTEN * count;
}

/* The split rule of qr_index_params.split_cost, in integers (both builders
 * decide alike): count = the node's circles, children = the sum of its
 * children's (count < 2^31, count <= children <= 4 count), share = the
 * share of a list a region reads (qr_read_share):
 *   100 * (C' - C) < split_cost * share / QR_READ_SHARE_ONE * d,
 *   d = R(s) C - R(s/2) C'.
 * Exactly, for every input: the left side times QR_READ_SHARE_ONE is below
 * 100 * 1000 * 2^33 < 2^50, and L < w d with w = split_cost * share > 0 and
 * d an integer holds iff floor(L / w) < d. */
QR_HD int qr_split_pays(int side, long long count, long long children, int share,
                        const qr_index_params *p)
{
    /* a list this long is one render block's walk for a long time (the
     * frame waits on its slowest block): it splits whatever pairs it adds,
     * so long as the split shortens it (qr_split_shortens) */
    if (count > QR_SPLIT_DEEP && qr_split_shortens(count, children)) return 1;
    const long long d = qr_leaf_regions(side) * count - qr_leaf_regions(side / 2) * children;
    const long long w = (long long)p->split_cost * share;
    if (d <= 0 || w <= 0) return 0;
    return 100LL * QR_READ_SHARE_ONE * (children - count) / w < d;
}

/* Whether a split qr_node_splits allows goes ahead, given the children's
 * summed counts: where weighed (qr_split_weighed) it must pay
 * (qr_split_pays); a split at min_leaf or below (a crowded tree's, which
 * split_cost does not weigh at the render region's side or below) must
 * shorten the node's lists (qr_split_shortens); a uniform grid's and
 * max_leaf's splits are forced. The builders' one decision. */
/* Whether qr_split_goes reads the children's counts for a node of this
 * side (a forced split does not: the builders count them only then). */
QR_HD int qr_split_reads_children(int side, const qr_index_params *p)
{
    return qr_split_weighed(side, p) || (!p->uniform && side <= p->min_leaf);
}

QR_HD int qr_split_goes(int side, long long count, long long children, int share,
                        const qr_index_params *p)
{
    if (qr_split_weighed(side, p)) return qr_split_pays(side, count, children, share, p);
    if (!p->uniform && side <= p->min_leaf) return qr_split_shortens(count, children);
    return 1;
}

#endif
