/* host_subtree.c — the recursive part of the host build (host_build.h).
 *
 * Every node carries the ascending list of the entries whose box meets it,
 * and a split hands each child the sub-list of entries meeting the child:
 * lists stay ascending for free, counts are exact by construction, and
 * leaves come out in depth-first order. One subtree runs on one thread;
 * host_grid.c runs many at once.
 */
#include "quadtree/host/host_build.h"

#include <stdlib.h>
#include <string.h>

#include "quadtree/quadtree_geom.h"

typedef qr_host_entry entry;
typedef qr_host_subtree builder;

/* Which children (bit k: bottom-left, bottom-right, top-left, top-right)
 * an entry of a node split at (xm, ym) meets; `exist` masks the children
 * inside the region. The entry meets the node, so only the split lines
 * matter. */
static inline unsigned child_bits(const entry *e, int xm, int ym, unsigned exist)
{
    const unsigned l = e->x0 < xm, r = e->x1 > xm, b = e->y0 < ym, t = e->y1 > ym;
    return ((l & b) | (r & b) << 1 | (l & t) << 2 | (r & t) << 3) & exist;
}

/* The children of the node at (x0, y0) of this side that exist. */
static unsigned children_inside(const builder *bd, int x0, int y0, int half)
{
    unsigned m = 0;
    for (int k = 0; k < 4; k++) {
        const int cx = x0 + (k & 1) * half, cy = y0 + (k >> 1) * half;
        if (cx < bd->region.x1 && cy < bd->region.y1) m |= 1u << k;
    }
    return m;
}

static void add_leaf(builder *bd, int x0, int y0, int side, int depth, const entry *e, int32_t n)
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
    for (int32_t j = 0; j < n; j++) bd->lists[bd->num_pairs + j] = e[j].id;
    bd->num_pairs += n;
}

/* Whether the node splits (qr_node_splits, then qr_split_goes),
 * and if so its children's lists, one after the other in child order, in
 * *out (count[k] each). Returns -1 when out of memory. */
static int split_node(const builder *bd, int x0, int y0, int side, int depth, const entry *e,
                      int32_t n, int64_t count[4], entry **out)
{
    *out = NULL;
    if (!qr_node_splits(side, depth, n, bd->floor, bd->crowded, bd->p)) return 0;
    const int half = side / 2, xm = x0 + half, ym = y0 + half;
    const unsigned exist = children_inside(bd, x0, y0, half);
    memset(count, 0, 4 * sizeof *count);
    for (int32_t j = 0; j < n; j++) {
        const unsigned m = child_bits(&e[j], xm, ym, exist);
        for (int k = 0; k < 4; k++) count[k] += (m >> k) & 1u;
    }
    const int64_t total = count[0] + count[1] + count[2] + count[3];
    if (!qr_split_goes(side, n, total, bd->share, bd->p)) return 0;
    entry *o = malloc((size_t)(total ? total : 1) * sizeof *o);
    if (!o) return -1;
    int64_t at[4] = {0, count[0], count[0] + count[1], count[0] + count[1] + count[2]};
    for (int32_t j = 0; j < n; j++) {
        const unsigned m = child_bits(&e[j], xm, ym, exist);
        for (int k = 0; k < 4; k++)
            if ((m >> k) & 1u) o[at[k]++] = e[j];
    }
    *out = o;
    return 0;
}

void qr_host_build_subtree(qr_host_subtree *bd, int x0, int y0, int side, int depth,
                           const qr_host_entry *e, int32_t n)
{
    bd->num_nodes++;
    if (depth > bd->max_depth) bd->max_depth = depth;
    int64_t count[4];
    entry *children;
    if (split_node(bd, x0, y0, side, depth, e, n, count, &children)) { bd->oom = 1; return; }
    if (!children) {
        add_leaf(bd, x0, y0, side, depth, e, n);
        return;
    }
    const int half = side / 2;
    const entry *child = children;
    for (int k = 0; k < 4 && !bd->oom; k++) {
        const int cx = x0 + (k & 1) * half, cy = y0 + (k >> 1) * half;
        if (cx >= bd->region.x1 || cy >= bd->region.y1) continue; /* no such child */
        qr_host_build_subtree(bd, cx, cy, half, depth + 1, child, (int32_t)count[k]);
        child += count[k];
    }
    free(children);
}

void qr_host_subtree_free(qr_host_subtree *st)
{
    free(st->leaves);
    free(st->lists);
    st->leaves = NULL;
    st->lists = NULL;
}
