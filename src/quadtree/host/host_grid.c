/* host_grid.c — the host quadtree build (qr_index_build_host and its
 * _threads form): the
 * top of the tree decided from counts over grids of cells, the circles
 * sorted into its leaves by counting, the rest by subtrees (host_build.h).
 *
 * The node of depth d at cell (cx, cy) is cell (cx, cy) of the level-d grid
 * (cells of side root >> d over the region). Its count, the circles whose
 * box meets it, is all its split rule needs (a child's list is the
 * parent's entries meeting the child, which are all the circles meeting
 * the child), so one pass over the circles decides every node down to
 * depth T = min(TOP_DEPTH, the deepest a node can be):
 *
 *   1. boxes and counts, per chunk of circles (in parallel): each circle's
 *      box (culled or not), and the count of every cell of levels 0..T its
 *      box meets. A box inside one cell of level d is inside one cell of
 *      every coarser level, so it is counted once, at its deepest such
 *      level, and those counts are summed upwards at the end of the chunk;
 *      a box over few cells adds one to each, over many a corner of a
 *      difference grid (summed at the end too).
 *   2. the tree (serial, over cells): the chunks' counts summed, the nodes
 *      decided top down, the top's leaves ("items") in depth-first order.
 *      A node of depth T that may still split is an item too, a subtree.
 *      Each item's list starts, for each chunk, after the preceding chunks'
 *      circles of the item (a counting sort by item, chunk by chunk).
 *   3. the lists (in parallel, per chunk): every visible circle written
 *      into each item its box meets, at the chunk's place in the item's
 *      list: leaves get circle numbers (the index's lists themselves when
 *      there is no subtree), subtrees entries with boxes.
 *   4. the subtrees (in parallel, one each), then the leaves and lists
 *      joined in depth-first order.
 *
 * Chunks are consecutive circles, so every list is ascending; integer
 * counts and the fixed item order make the index the same whatever the
 * thread count or the chunking.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/index.h"
#include "quadrender/memory.h"
#include "quadrender/threads.h"
#include "quadtree/host/host_build.h"
#include "quadtree/quadtree_geom.h"

/* Deepest level counted over a grid (4^6 cells): below it, subtrees. At
 * the default 64-pixel leaves, images up to 4096 pixels are all grid. */
#define TOP_DEPTH 6
/* Chunks: at least CHUNK_MIN circles, at most MAX_CHUNKS of them (each
 * holds a count per cell and a list position per item). */
#define CHUNK_MIN 4096
#define MAX_CHUNKS 128
/* A box over at most this many cells of a level adds to each directly. */
#define DIRECT_CELLS 16

/* A circle's box, absolute and clipped to the region; x1 == 0: culled.
 * 32-bit: sides go past 65535 (QR_IMAGE_BANDS_MAX_DIM). */
typedef struct box {
    int32_t x0, x1, y0, y1;
} box;

typedef struct item {
    int32_t d, cx, cy; /* the node */
    int32_t sub;       /* 1: a subtree to build, 0: a leaf */
    int64_t count;     /* circles in its list */
    int64_t base;      /* its list's start in `lists` (leaves) or `entries` (subtrees) */
} item;

typedef struct grid_build {
    const qr_scene *s;
    int32_t width, height;
    const qr_index_params *p;
    qr_render_mode mode;               /* the render the lists feed (qr_mode_stops_early) */
    qr_rect region;
    int S, L, T;                       /* root side, log2 of it, deepest level counted */
    int T_full;                        /* the deepest a crowded tree needs counted (T is
                                          min_leaf's level while crowding is undecided) */
    int TL;                            /* the level the lists find items at: the deepest
                                          item's (<= T; coarser cells, fewer per box) */
    int floor;                         /* the smallest leaf (qr_leaf_floor) */
    int crowded;                       /* the tree is crowded (qr_node_crowds); -1: to be
                                          decided from the counts (decide_crowding) */
    int share;                         /* the share of a list a region reads (qr_read_share) */
    int nx[TOP_DEPTH + 1], ny[TOP_DEPTH + 1];
    int32_t off[TOP_DEPTH + 2];        /* first cell of level d; off[T + 1] = all cells */
    int32_t doff[TOP_DEPTH + 2];       /* the same in the difference grids ((nx+1)(ny+1)) */
    int32_t chunk, nchunks;

    box *boxes;        /* per circle */
    int32_t *counts;   /* per chunk: a count per cell */
    int32_t *visible;  /* per chunk */
    uint64_t *box_area; /* per chunk: the visible circles' box pixels */
    int64_t *totals;   /* per cell */
    int32_t *node;     /* per cell: an item, INTERNAL, or NONE (no node there) */
    item *items;
    int32_t nitems, cap_items, nsub;
    int32_t *item_of;  /* per cell of level T: the item covering it */
    int64_t *cursors;  /* per chunk: a list position per item */
    int32_t *lists;    /* leaves' lists */
    qr_host_entry *entries; /* subtrees' lists */
    int64_t leaf_pairs, sub_pairs;
    int32_t num_nodes, max_depth;
    qr_host_subtree *subs; /* per item (subtrees only used) */
    uint64_t refused;  /* bytes a step asked that the host could not give (memory.h) */
    atomic_int oom;
} grid_build;

enum { NONE = -1, INTERNAL = -2 };

static inline int32_t cell(const grid_build *g, int d, int cx, int cy)
{
    return g->off[d] + cy * g->nx[d] + cx;
}

static inline int bit_length(unsigned v)
{
    return v ? 32 - __builtin_clz(v) : 0;
}

/* ---- 1. boxes and counts ------------------------------------------------------------ */

/* qr_cull_circle (quadtree_geom.h), with the centre test of small boxes
 * free of branches: all 3 x 3 centres from the box's corner are tested and
 * those outside the box masked off. The same float operations on the same
 * values, so the same answer; most circles of the scenes with millions are
 * small, and the early exit's branches mispredict. */
static inline int circle_box(const grid_build *g, float x, float y, float r, float inv_w,
                             float inv_h, qr_rect *out)
{
    if (!qr_radius_draws(r) || !qr_is_finite(x) || !qr_is_finite(y)) return 0;
    const qr_pixbox b = qr_circle_pixbox(x, y, r, g->width, g->height);
    const qr_rect reg = g->region;
    const int x0 = b.x0 > reg.x0 ? b.x0 : reg.x0, x1 = b.x1 < reg.x1 ? b.x1 : reg.x1;
    const int y0 = b.y0 > reg.y0 ? b.y0 : reg.y0, y1 = b.y1 < reg.y1 ? b.y1 : reg.y1;
    if (x0 >= x1 || y0 >= y1) return 0;
    if (x1 - x0 <= QR_CULL_TEST_SIDE && y1 - y0 <= QR_CULL_TEST_SIDE) {
        const float r2 = QR_MUL(r, r);
        float dx2[QR_CULL_TEST_SIDE], dy2[QR_CULL_TEST_SIDE];
        for (int k = 0; k < QR_CULL_TEST_SIDE; k++) {
            const float dx = QR_SUB(x, qr_pixel_center(x0 + k, inv_w));
            const float dy = QR_SUB(y, qr_pixel_center(y0 + k, inv_h));
            dx2[k] = QR_MUL(dx, dx);
            dy2[k] = QR_MUL(dy, dy);
        }
        int hit = 0;
        for (int j = 0; j < QR_CULL_TEST_SIDE; j++)
            for (int k = 0; k < QR_CULL_TEST_SIDE; k++)
                hit |= (y0 + j < y1) & (x0 + k < x1) & (QR_ADD(dx2[k], dy2[j]) <= r2);
        if (!hit) return 0;
    }
    out->x0 = x0;
    out->x1 = x1;
    out->y0 = y0;
    out->y1 = y1;
    return 1;
}


static void count_chunk(void *ctx, int task)
{
    grid_build *g = ctx;
    const qr_scene *s = g->s;
    const int32_t i0 = task * g->chunk, i1 = s->n - i0 < g->chunk ? s->n : i0 + g->chunk;
    const int T = g->T, L = g->L, rx = g->region.x0, ry = g->region.y0;
    const int32_t cells = g->off[T + 1];
    int32_t *cnt = g->counts + (size_t)task * (size_t)cells;
    int32_t *single = calloc((size_t)cells + (size_t)g->doff[T + 1], sizeof *single);
    if (!single) {
        atomic_store(&g->oom, 1);
        return;
    }
    int32_t *diff = single + cells;
    memset(cnt, 0, (size_t)cells * sizeof *cnt);
    const float inv_w = 1.0f / (float)g->width, inv_h = 1.0f / (float)g->height;
    int32_t visible = 0;
    uint64_t area = 0;
    for (int32_t i = i0; i < i1; i++) {
        qr_rect b;
        box *o = &g->boxes[i];
        if (!circle_box(g, s->x[i], s->y[i], s->r[i], inv_w, inv_h, &b)) {
            *o = (box){0, 0, 0, 0};
            continue;
        }
        *o = (box){b.x0, b.x1, b.y0, b.y1};
        visible++;
        area += (uint64_t)(b.x1 - b.x0) * (uint64_t)(b.y1 - b.y0);
        /* inclusive cell coordinates relative to the region */
        const int bx0 = b.x0 - rx, bx1 = b.x1 - 1 - rx, by0 = b.y0 - ry, by1 = b.y1 - 1 - ry;
        int d = L - bit_length((unsigned)(bx0 ^ bx1) | (unsigned)(by0 ^ by1));
        if (d > T) d = T;
        single[cell(g, d, bx0 >> (L - d), by0 >> (L - d))]++;
        for (d++; d <= T; d++) {
            const int k = L - d;
            const int cx0 = bx0 >> k, cx1 = bx1 >> k, cy0 = by0 >> k, cy1 = by1 >> k;
            if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) <= DIRECT_CELLS) {
                for (int cy = cy0; cy <= cy1; cy++)
                    for (int cx = cx0; cx <= cx1; cx++) cnt[cell(g, d, cx, cy)]++;
            } else {
                int32_t *dd = diff + g->doff[d];
                const int w = g->nx[d] + 1;
                dd[cy0 * w + cx0]++;
                dd[cy0 * w + cx1 + 1]--;
                dd[(cy1 + 1) * w + cx0]--;
                dd[(cy1 + 1) * w + cx1 + 1]++;
            }
        }
    }
    /* the difference grids summed into counts */
    for (int d = 0; d <= T; d++) {
        int32_t *dd = diff + g->doff[d];
        const int w = g->nx[d] + 1;
        for (int cy = 0; cy < g->ny[d]; cy++) {
            int32_t run = 0;
            for (int cx = 0; cx < g->nx[d]; cx++) {
                run += dd[cy * w + cx];
                if (cy) dd[cy * w + cx] = run + dd[(cy - 1) * w + cx];
                else dd[cx] = run;
                cnt[cell(g, d, cx, cy)] += dd[cy * w + cx];
            }
        }
    }
    /* boxes inside one cell: each counts in its cell and every ancestor */
    for (int d = T - 1; d >= 0; d--)
        for (int cy = 0; cy < g->ny[d + 1]; cy++)
            for (int cx = 0; cx < g->nx[d + 1]; cx++)
                single[cell(g, d, cx >> 1, cy >> 1)] += single[cell(g, d + 1, cx, cy)];
    for (int32_t c = 0; c < cells; c++) cnt[c] += single[c];
    g->visible[task] = visible;
    g->box_area[task] = area;
    free(single);
}

/* ---- 2. the tree ---------------------------------------------------------------------- */

static int exists(const grid_build *g, int d, int cx, int cy)
{
    return cx < g->nx[d] && cy < g->ny[d];
}

static int add_item(grid_build *g, int d, int cx, int cy, int sub)
{
    if (g->nitems == g->cap_items) {
        const int32_t cap = g->cap_items ? 2 * g->cap_items : 256;
        item *it = realloc(g->items, (size_t)cap * sizeof *it);
        if (!it) return -1;
        g->items = it;
        g->cap_items = cap;
    }
    item *it = &g->items[g->nitems];
    it->d = d;
    it->cx = cx;
    it->cy = cy;
    it->sub = sub;
    it->count = g->totals[cell(g, d, cx, cy)];
    if (sub) {
        it->base = g->sub_pairs;
        g->sub_pairs += it->count;
        g->nsub++;
    } else {
        it->base = g->leaf_pairs;
        g->leaf_pairs += it->count;
        g->num_nodes++; /* a subtree counts its own nodes */
    }
    g->node[cell(g, d, cx, cy)] = g->nitems++;
    return 0;
}

/* Decides the node of depth d at cell (cx, cy) and those below it, as the
 * recursive build would. Returns -1 when out of memory. */
static int plan(grid_build *g, int d, int cx, int cy)
{
    const int side = g->S >> d;
    const int64_t n = g->totals[cell(g, d, cx, cy)];
    if (d > g->max_depth) g->max_depth = d;
    if (d == g->T) return add_item(g, d, cx, cy, qr_node_splits(side, d, n, g->floor, g->crowded, g->p));
    int splits = qr_node_splits(side, d, n, g->floor, g->crowded, g->p);
    if (splits) {
        int64_t children = 0;
        for (int k = 0; k < 4; k++) {
            const int x = 2 * cx + (k & 1), y = 2 * cy + (k >> 1);
            if (exists(g, d + 1, x, y)) children += g->totals[cell(g, d + 1, x, y)];
        }
        splits = qr_split_goes(side, n, children, g->share, g->p);
    }
    if (!splits) return add_item(g, d, cx, cy, 0);
    g->node[cell(g, d, cx, cy)] = INTERNAL;
    g->num_nodes++;
    for (int k = 0; k < 4; k++) {
        const int x = 2 * cx + (k & 1), y = 2 * cy + (k >> 1);
        if (exists(g, d + 1, x, y) && plan(g, d + 1, x, y)) return -1;
    }
    return 0;
}

/* Each chunk's place in each item's list. */
static void place_chunks(grid_build *g)
{
    const int32_t cells = g->off[g->T + 1];
    for (int32_t i = 0; i < g->nitems; i++) {
        const item *it = &g->items[i];
        const int32_t c = cell(g, it->d, it->cx, it->cy);
        int64_t at = it->base;
        for (int32_t k = 0; k < g->nchunks; k++) {
            g->cursors[(size_t)k * (size_t)g->nitems + (size_t)i] = at;
            at += g->counts[(size_t)k * (size_t)cells + (size_t)c];
        }
    }
}

/* ---- 3. the lists --------------------------------------------------------------------- */

static inline void put(grid_build *g, int64_t *cur, int32_t it, int32_t i, const box *b)
{
    if (g->items[it].sub)
        g->entries[cur[it]++] = (qr_host_entry){i, b->x0, b->x1, b->y0, b->y1};
    else
        g->lists[cur[it]++] = i;
}

/* Every item under the node of depth d at cell (cx, cy) that the box (cell
 * coordinates of level TL, inclusive) meets. */
static void put_below(grid_build *g, int64_t *cur, int d, int cx, int cy, int32_t i, const box *b,
                      const int c[4])
{
    const int32_t v = g->node[cell(g, d, cx, cy)];
    if (v >= 0) {
        put(g, cur, v, i, b);
        return;
    }
    const int k = g->TL - (d + 1);
    for (int q = 0; q < 4; q++) {
        const int x = 2 * cx + (q & 1), y = 2 * cy + (q >> 1);
        if (exists(g, d + 1, x, y) && (c[0] >> k) <= x && x <= (c[1] >> k) && (c[2] >> k) <= y &&
            y <= (c[3] >> k))
            put_below(g, cur, d + 1, x, y, i, b, c);
    }
}

static void list_chunk(void *ctx, int task)
{
    grid_build *g = ctx;
    const int32_t i0 = task * g->chunk, i1 = g->s->n - i0 < g->chunk ? g->s->n : i0 + g->chunk;
    const int T = g->TL, k = g->L - T, rx = g->region.x0, ry = g->region.y0, nx = g->nx[T];
    int64_t *cur = g->cursors + (size_t)task * (size_t)g->nitems;
    for (int32_t i = i0; i < i1; i++) {
        const box *b = &g->boxes[i];
        if (!b->x1) continue;
        const int c[4] = {(b->x0 - rx) >> k, (b->x1 - 1 - rx) >> k, (b->y0 - ry) >> k,
                          (b->y1 - 1 - ry) >> k};
        if (c[0] == c[1] && c[2] == c[3]) {
            put(g, cur, g->item_of[c[2] * nx + c[0]], i, b);
        } else if ((c[1] - c[0] + 1) * (c[3] - c[2] + 1) <= DIRECT_CELLS) {
            /* an item is met once: at its cell nearest the box's corner */
            for (int cy = c[2]; cy <= c[3]; cy++)
                for (int cx = c[0]; cx <= c[1]; cx++) {
                    const int32_t it = g->item_of[cy * nx + cx];
                    const int sh = T - g->items[it].d;
                    const int ox = g->items[it].cx << sh, oy = g->items[it].cy << sh;
                    if (cx == (ox > c[0] ? ox : c[0]) && cy == (oy > c[2] ? oy : c[2]))
                        put(g, cur, it, i, b);
                }
        } else {
            put_below(g, cur, 0, 0, 0, i, b, c);
        }
    }
}

/* ---- 4. subtrees, and the join ---------------------------------------------------------- */

static void subtree_job(void *ctx, int task)
{
    grid_build *g = ctx;
    const item *it = &g->items[task];
    if (!it->sub) return;
    qr_host_subtree *st = &g->subs[task];
    const int side = g->S >> it->d;
    qr_host_build_subtree(st, g->region.x0 + it->cx * side, g->region.y0 + it->cy * side, side,
                          it->d, g->entries + it->base, (int32_t)it->count);
}

typedef struct join {
    grid_build *g;
    int64_t *leaf_base, *pair_base; /* per item */
    qr_leaf *leaves;
    int32_t *lists;
} join;

static qr_leaf leaf_of(const grid_build *g, const item *it, int64_t offset)
{
    const int side = g->S >> it->d;
    const int x0 = g->region.x0 + it->cx * side, y0 = g->region.y0 + it->cy * side;
    qr_leaf l;
    l.rect.x0 = x0;
    l.rect.y0 = y0;
    l.rect.x1 = x0 + side < g->region.x1 ? x0 + side : g->region.x1;
    l.rect.y1 = y0 + side < g->region.y1 ? y0 + side : g->region.y1;
    l.depth = it->d;
    l.count = (int32_t)it->count;
    l.offset = offset;
    return l;
}

static void join_job(void *ctx, int task)
{
    const join *j = ctx;
    const grid_build *g = j->g;
    const item *it = &g->items[task];
    if (!it->sub) {
        j->leaves[j->leaf_base[task]] = leaf_of(g, it, j->pair_base[task]);
        if (j->lists != g->lists && it->count)
            memcpy(j->lists + j->pair_base[task], g->lists + it->base,
                   (size_t)it->count * sizeof *j->lists);
        return;
    }
    const qr_host_subtree *st = &g->subs[task];
    for (int32_t l = 0; l < st->num_leaves; l++) {
        qr_leaf leaf = st->leaves[l];
        leaf.offset += j->pair_base[task];
        j->leaves[j->leaf_base[task] + l] = leaf;
    }
    if (st->num_pairs)
        memcpy(j->lists + j->pair_base[task], st->lists, (size_t)st->num_pairs * sizeof *j->lists);
}

/* ---- the build -------------------------------------------------------------------------- */

/* The grids' shapes: levels 0..T over the region. */
static void shape(grid_build *g, const qr_index_params *p)
{
    g->S = qr_root_size(g->region, p->min_leaf);
    g->L = bit_length((unsigned)g->S) - 1;
    g->floor = qr_leaf_floor(g->S, p);
    int deepest = g->L - (bit_length((unsigned)g->floor) - 1);
    if (deepest > p->max_depth) deepest = p->max_depth;
    g->T = g->T_full = deepest < TOP_DEPTH ? deepest : TOP_DEPTH;
    /* undecided (decide_crowding): down to min_leaf's level only, all a tree
     * without deep splits reads; a crowded one is counted again, deeper */
    const int dmin = g->L - (bit_length((unsigned)p->min_leaf) - 1);
    if (g->crowded < 0 && dmin < g->T) g->T = dmin;
    const int w = g->region.x1 - g->region.x0, h = g->region.y1 - g->region.y0;
    g->off[0] = g->doff[0] = 0;
    for (int d = 0; d <= g->T; d++) {
        g->nx[d] = ((w - 1) >> (g->L - d)) + 1;
        g->ny[d] = ((h - 1) >> (g->L - d)) + 1;
        g->off[d + 1] = g->off[d] + g->nx[d] * g->ny[d];
        g->doff[d + 1] = g->doff[d] + (g->nx[d] + 1) * (g->ny[d] + 1);
    }
    const int32_t n = g->s->n;
    g->chunk = (int32_t)(((int64_t)n + MAX_CHUNKS - 1) / MAX_CHUNKS);
    if (g->chunk < CHUNK_MIN) g->chunk = CHUNK_MIN;
    g->nchunks = (int32_t)(((int64_t)n + g->chunk - 1) / g->chunk);
}

static void *alloc(size_t count, size_t size)
{
    return malloc((count ? count : 1) * size);
}

static void release(grid_build *g)
{
    free(g->boxes);
    free(g->counts);
    free(g->visible);
    free(g->box_area);
    free(g->totals);
    free(g->node);
    free(g->items);
    free(g->item_of);
    free(g->cursors);
    free(g->entries);
    if (g->subs)
        for (int32_t i = 0; i < g->nitems; i++) qr_host_subtree_free(&g->subs[i]);
    free(g->subs);
}

/* Steps 1 to 3; on success g->lists holds the leaves' lists. */
/* Plans the top of the tree. With g->crowded at -1, whether it is crowded
 * is decided here, from the counts alone, where the nodes of min_leaf lie
 * within the grid (depth <= T): the tree without splits below min_leaf is
 * planned, and if one of its leaves of min_leaf crowds (qr_node_crowds)
 * it is planned again, crowded, from the same counts, or, where they stop
 * at min_leaf's level (shape), g->crowded is 2: the build stops before any
 * list, for the caller to build the crowded tree, counted deeper. Where
 * min_leaf lies deeper than the grid, g->crowded stays -1 and the build is
 * the tree without splits below min_leaf, for the caller to check and
 * redo. */
static int decide_crowding(grid_build *g)
{
    const int ask = g->crowded < 0;
    if (ask) g->crowded = 0;
    if (plan(g, 0, 0, 0)) return -1;
    if (!ask) return 0;
    const int dmin = g->L - (bit_length((unsigned)g->p->min_leaf) - 1);
    if (dmin > g->T) {
        g->crowded = -1;
        return 0;
    }
    int32_t visible = 0;
    for (int32_t k = 0; k < g->nchunks; k++) visible += g->visible[k];
    const long long area = (long long)(g->region.x1 - g->region.x0) * (g->region.y1 - g->region.y0);
    int crowded = 0;
    for (int32_t i = 0; i < g->nitems && !crowded; i++) {
        const item *it = &g->items[i];
        crowded = it->d == dmin && qr_node_crowds(g->S >> it->d, it->d, it->count, g->floor,
                                                  visible, area, g->p);
    }
    if (!crowded) return 0;
    if (g->T < g->T_full) {
        g->crowded = 2;
        return 0;
    }
    /* the crowded tree's plan, from the same counts */
    g->crowded = 1;
    g->nitems = g->nsub = 0;
    g->leaf_pairs = g->sub_pairs = 0;
    g->num_nodes = g->max_depth = 0;
    for (int32_t c = 0; c < g->off[g->T + 1]; c++) g->node[c] = NONE;
    return plan(g, 0, 0, 0);
}

/* Steps 1 to 3; 1 (nothing listed) where the tree turned out crowded and
 * must be counted deeper, -1 when out of memory. */
/* Whether `bytes` more fit in what the host can give (qr_host_memory_check),
 * checked before a step allocates them; else they are kept in g->refused. */
static int fits(grid_build *g, uint64_t bytes)
{
    if (bytes < QR_HOST_CHECKED_BYTES || qr_host_memory_check("", bytes, NULL) == QR_OK) return 1;
    g->refused = bytes;
    return 0;
}

static int top_of_tree(grid_build *g, int threads)
{
    const int32_t n = g->s->n, cells = g->off[g->T + 1];
    if (!fits(g, (uint64_t)n * sizeof *g->boxes +
                     (uint64_t)g->nchunks * (uint64_t)cells * sizeof *g->counts +
                     (uint64_t)cells * (sizeof *g->totals + sizeof *g->node)))
        return -1;
    g->boxes = alloc((size_t)n, sizeof *g->boxes);
    g->counts = alloc((size_t)g->nchunks * (size_t)cells, sizeof *g->counts);
    g->visible = alloc((size_t)g->nchunks, sizeof *g->visible);
    g->box_area = alloc((size_t)g->nchunks, sizeof *g->box_area);
    g->totals = calloc((size_t)cells, sizeof *g->totals);
    g->node = alloc((size_t)cells, sizeof *g->node);
    g->item_of = alloc((size_t)(g->nx[g->T] * g->ny[g->T]), sizeof *g->item_of);
    if (!g->boxes || !g->counts || !g->visible || !g->box_area || !g->totals || !g->node ||
        !g->item_of)
        return -1;
    qr_parallel_for(g->nchunks, threads, count_chunk, g);
    if (atomic_load(&g->oom)) return -1;

    for (int32_t k = 0; k < g->nchunks; k++)
        for (int32_t c = 0; c < cells; c++)
            g->totals[c] += g->counts[(size_t)k * (size_t)cells + (size_t)c];
    for (int32_t c = 0; c < cells; c++) g->node[c] = NONE;
    uint64_t box_area = 0;
    for (int32_t k = 0; k < g->nchunks; k++) box_area += g->box_area[k];
    g->share = qr_read_share(box_area, (long long)(g->region.x1 - g->region.x0) *
                                           (g->region.y1 - g->region.y0),
                             qr_mode_stops_early(g->mode));
    if (decide_crowding(g)) return -1;
    if (g->crowded == 2) return 1; /* crowded: to be counted deeper (decide_crowding) */
    /* the level-TL cells each item covers (TL: the deepest item's level) */
    g->TL = 0;
    for (int32_t i = 0; i < g->nitems; i++)
        if (g->items[i].d > g->TL) g->TL = g->items[i].d;
    const int T = g->TL, nx = g->nx[T], ny = g->ny[T];
    for (int32_t i = 0; i < g->nitems; i++) {
        const item *it = &g->items[i];
        const int sh = T - it->d;
        for (int y = it->cy << sh; y < ((it->cy + 1) << sh) && y < ny; y++)
            for (int x = it->cx << sh; x < ((it->cx + 1) << sh) && x < nx; x++)
                g->item_of[y * nx + x] = i;
    }
    if (!fits(g, (uint64_t)g->nchunks * (uint64_t)g->nitems * sizeof *g->cursors +
                     (uint64_t)g->leaf_pairs * sizeof *g->lists +
                     (uint64_t)g->sub_pairs * sizeof *g->entries))
        return -1;
    g->cursors = alloc((size_t)g->nchunks * (size_t)g->nitems, sizeof *g->cursors);
    g->lists = alloc((size_t)g->leaf_pairs, sizeof *g->lists);
    g->entries = g->nsub ? alloc((size_t)g->sub_pairs, sizeof *g->entries) : NULL;
    if (!g->cursors || !g->lists || (g->nsub && !g->entries)) return -1;
    place_chunks(g);
    qr_parallel_for(g->nchunks, threads, list_chunk, g);
    return 0;
}

/* Step 4: builds the subtrees and joins everything into ix's leaves and
 * lists (taking g->lists when there is no subtree). */
static int finish(grid_build *g, int threads, qr_index *ix)
{
    int64_t leaves = 0, pairs = 0;
    if (!g->nsub) {
        leaves = g->nitems;
        pairs = g->leaf_pairs;
    } else {
        g->subs = calloc((size_t)g->nitems, sizeof *g->subs);
        if (!g->subs) return -1;
        for (int32_t i = 0; i < g->nitems; i++) {
            g->subs[i].p = g->p;
            g->subs[i].floor = g->floor;
            g->subs[i].crowded = g->crowded > 0;
            g->subs[i].share = g->share;
            g->subs[i].region = g->region;
        }
        qr_parallel_for(g->nitems, threads, subtree_job, g);
    }
    int64_t *bases = alloc(2 * (size_t)g->nitems, sizeof *bases);
    if (!bases) return -1;
    join j = {g, bases, bases + g->nitems, NULL, g->lists};
    if (g->nsub) {
        for (int32_t i = 0; i < g->nitems; i++) {
            const item *it = &g->items[i];
            j.leaf_base[i] = leaves;
            j.pair_base[i] = pairs;
            if (!it->sub) {
                leaves++;
                pairs += it->count;
                continue;
            }
            const qr_host_subtree *st = &g->subs[i];
            if (st->oom) { free(bases); return -1; }
            leaves += st->num_leaves;
            pairs += st->num_pairs;
            g->num_nodes += st->num_nodes;
            if (st->max_depth > g->max_depth) g->max_depth = st->max_depth;
        }
        if (!fits(g, (uint64_t)pairs * sizeof *j.lists + (uint64_t)leaves * sizeof *j.leaves)) {
            free(bases);
            return -1;
        }
        j.lists = alloc((size_t)pairs, sizeof *j.lists);
    } else {
        for (int32_t i = 0; i < g->nitems; i++) {
            j.leaf_base[i] = i;
            j.pair_base[i] = g->items[i].base;
        }
    }
    j.leaves = g->nsub || fits(g, (uint64_t)leaves * sizeof *j.leaves)
                   ? alloc((size_t)leaves, sizeof *j.leaves) : NULL;
    if (!j.leaves || !j.lists || leaves > INT32_MAX) {
        free(j.leaves);
        if (j.lists != g->lists) free(j.lists);
        free(bases);
        return -1;
    }
    /* without subtrees the join only writes the leaves: not worth a team */
    qr_parallel_for(g->nitems, g->nsub ? threads : 1, join_job, &j);
    free(bases);
    if (j.lists != g->lists) free(g->lists);
    g->lists = NULL;
    ix->leaves = j.leaves;
    ix->lists = j.lists;
    ix->num_leaves = (int32_t)leaves;
    ix->num_pairs = pairs;
    return 0;
}

/* One build: *crowded 0 or 1, the tree crowded or not (qr_node_crowds), or
 * -1, decided by the build (decide_crowding), which says in *crowded what
 * it built (-1: the tree without deep splits, undecided); *out NULL (and
 * *crowded 1) when the tree turned out crowded before any list: build it
 * again, crowded. */
static qr_status build_once(const qr_scene *scene, int32_t width, int32_t height, qr_rect reg,
                            const qr_index_params *params, qr_render_mode mode, int threads,
                            int *crowded, qr_index **out, qr_error *err)
{
    grid_build g;
    memset(&g, 0, sizeof g);
    g.s = scene;
    g.width = width;
    g.height = height;
    g.p = params;
    g.mode = mode;
    g.region = reg;
    g.crowded = *crowded;
    atomic_init(&g.oom, 0);
    shape(&g, params);
    qr_index *ix = calloc(1, sizeof *ix);
    const int top = ix ? top_of_tree(&g, threads) : -1;
    if (top == 1) {
        /* crowded, and counted too shallow for it: nothing to keep */
        *crowded = 1;
        release(&g);
        free(ix);
        *out = NULL;
        return QR_OK;
    }
    if (top || finish(&g, threads, ix)) {
        const uint64_t refused = g.refused;
        free(g.lists);
        release(&g);
        free(ix);
        if (refused) {
            /* the message of the check that refused it, with what it was for */
            char what[96];
            snprintf(what, sizeof what, "the index of %d circles", scene->n);
            qr_host_memory_check(what, refused, err);
            if (err && err->status == QR_ERR_NOMEM) return QR_ERR_NOMEM;
        }
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory building the index of %d circles",
                       scene->n);
    }
    int32_t visible = 0;
    for (int32_t k = 0; k < g.nchunks; k++) visible += g.visible[k];
    *crowded = g.crowded;
    release(&g);
    ix->width = width;
    ix->height = height;
    ix->region = reg;
    ix->params = *params;
    ix->mode = mode;
    ix->root_size = g.S;
    ix->num_nodes = g.num_nodes;
    ix->max_depth_reached = g.max_depth;
    ix->visible = visible;
    ix->culled = scene->n - visible;
    *out = ix;
    return QR_OK;
}

qr_status qr_index_build_host_threads(const qr_scene *scene, int32_t width, int32_t height,
                                      const qr_rect *region, const qr_index_params *params,
                                      qr_render_mode mode, int threads, qr_index **out,
                                      qr_error *err)
{
    *out = NULL;
    qr_rect reg;
    qr_status st =
        qr_index_check_build(width, height, region, params, &reg, err);
    if (st) return st;
    if (threads <= 0) threads = qr_threads();
    /* The tree without splits below min_leaf is the crowded tree's down to
     * min_leaf: whether one of its leaves of min_leaf crowds decides which
     * tree this is (the GPU build decides alike, tree.cu). Where the nodes
     * of min_leaf lie in the counted grid the build decides it before any
     * list is made (decide_crowding); else that tree is built, its leaves
     * checked, and the crowded one built when one crowds. */
    qr_index *ix = NULL;
    int crowded = -1;
    st = build_once(scene, width, height, reg, params, mode, threads, &crowded, &ix, err);
    if (!st && !ix) /* crowded: counted again, deeper */
        st = build_once(scene, width, height, reg, params, mode, threads, &crowded, &ix, err);
    if (st || crowded >= 0) {
        if (!st) *out = ix;
        return st;
    }
    const int floor = qr_leaf_floor(ix->root_size, params);
    crowded = 0;
    for (int32_t k = 0; k < ix->num_leaves && !crowded; k++) {
        const qr_leaf *l = &ix->leaves[k];
        crowded = qr_node_crowds(ix->root_size >> l->depth, l->depth, l->count, floor, ix->visible,
                                 (long long)(reg.x1 - reg.x0) * (reg.y1 - reg.y0), params);
    }
    if (crowded) {
        qr_index_destroy(ix);
        ix = NULL;
        st = build_once(scene, width, height, reg, params, mode, threads, &crowded, &ix, err);
        if (st) return st;
    }
    *out = ix;
    return QR_OK;
}

qr_status qr_index_build_host(const qr_scene *scene, int32_t width, int32_t height,
                              const qr_rect *region, const qr_index_params *params,
                              qr_render_mode mode, qr_index **out, qr_error *err)
{
    return qr_index_build_host_threads(scene, width, height, region, params, mode, 0, out, err);
}
