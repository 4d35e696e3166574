/* quadtree_host.c — the host quadtree builder: the oracle for the GPU build,
 * and the index of the fast CPU renderer.
 *
 * Every node carries the ascending list of the circles whose box meets it,
 * each entry with its box (so that a pass over a list reads one contiguous
 * array), and a split hands each child the sub-list of entries meeting the
 * child. Lists stay ascending for free, counts are exact by construction,
 * and leaves come out in depth-first order.
 *
 * In parallel (quadrender/threads.h): the boxes of fixed chunks of circles,
 * the splits of nodes holding many entries (chunks of the list counted,
 * then scattered), and the subtrees below depth SUBTREE_DEPTH, each into a
 * builder of its own, joined in depth-first order. Every decision is the
 * serial recursion's, so the index is the same whatever the thread count.
 */
#include "quadrender/index.h"
#include "quadtree/quadtree_geom.h"

#include <stdlib.h>
#include <string.h>

#include "quadrender/threads.h"

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

/* ---- the build -------------------------------------------------------------------- */

/* A list entry: a circle and its box, clipped to the region (< 2^16). */
typedef struct entry {
    int32_t id;
    uint16_t x0, x1, y0, y1;
} entry;

/* Entries per task of a parallel pass; nodes holding at least PAR_SPLIT
 * entries split in parallel passes; nodes at depth SUBTREE_DEPTH (up to 64)
 * or holding fewer than SUBTREE_MIN entries are built as subtrees, one task
 * each. */
#define CHUNK 65536
#define PAR_SPLIT (4 * CHUNK)
#define SUBTREE_DEPTH 3
#define SUBTREE_MIN 4096

/* Growable output arrays of one (sub)tree. */
typedef struct builder {
    const qr_index_params *p;
    qr_rect region;
    qr_leaf *leaves;
    int32_t num_leaves, cap_leaves;
    int32_t *lists;
    int64_t num_pairs, cap_pairs;
    int32_t num_nodes, max_depth;
    int oom;
} builder;

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

/* ---- splitting one node's list, serially or in chunks ------------------------------------- */

typedef struct split_pass {
    const entry *e;
    int32_t n;
    int xm, ym;
    unsigned exist;
    int64_t (*counts)[4]; /* per chunk; then its first slot in each child's part */
    entry *out;           /* the children's lists, one after the other */
} split_pass;

static void count_chunk(void *ctx, int task)
{
    split_pass *sp = ctx;
    const int32_t j0 = (int32_t)task * CHUNK, j1 = sp->n - j0 < CHUNK ? sp->n : j0 + CHUNK;
    int64_t c[4] = {0, 0, 0, 0};
    for (int32_t j = j0; j < j1; j++) {
        const unsigned m = child_bits(&sp->e[j], sp->xm, sp->ym, sp->exist);
        for (int k = 0; k < 4; k++) c[k] += (m >> k) & 1u;
    }
    memcpy(sp->counts[task], c, sizeof c);
}

static void scatter_chunk(void *ctx, int task)
{
    split_pass *sp = ctx;
    const int32_t j0 = (int32_t)task * CHUNK, j1 = sp->n - j0 < CHUNK ? sp->n : j0 + CHUNK;
    int64_t at[4];
    memcpy(at, sp->counts[task], sizeof at);
    for (int32_t j = j0; j < j1; j++) {
        const unsigned m = child_bits(&sp->e[j], sp->xm, sp->ym, sp->exist);
        for (int k = 0; k < 4; k++)
            if ((m >> k) & 1u) sp->out[at[k]++] = sp->e[j];
    }
}

/* Counts the entries of each child (count[k]); on the entries of the
 * children, in child order, when `out` is not NULL. threads <= 1: serial. */
typedef struct node_split {
    int64_t count[4];
    entry *out;
} node_split;

static int split_counts(const entry *e, int32_t n, int xm, int ym, unsigned exist, int threads,
                        int64_t (**chunk_counts)[4], node_split *ns)
{
    const int chunks = (int)((n + CHUNK - 1) / CHUNK);
    int64_t(*cc)[4] = malloc((size_t)(chunks ? chunks : 1) * sizeof *cc);
    if (!cc) return -1;
    split_pass sp = {e, n, xm, ym, exist, cc, NULL};
    qr_parallel_for(chunks, n >= PAR_SPLIT ? threads : 1, count_chunk, &sp);
    memset(ns->count, 0, sizeof ns->count);
    for (int c = 0; c < chunks; c++)
        for (int k = 0; k < 4; k++) ns->count[k] += cc[c][k];
    *chunk_counts = cc;
    return 0;
}

/* After split_counts: the children's lists into ns->out (allocated here). */
static int split_scatter(const entry *e, int32_t n, int xm, int ym, unsigned exist, int threads,
                         int64_t (*cc)[4], node_split *ns)
{
    const int chunks = (int)((n + CHUNK - 1) / CHUNK);
    const int64_t total = ns->count[0] + ns->count[1] + ns->count[2] + ns->count[3];
    ns->out = malloc((size_t)(total ? total : 1) * sizeof *ns->out);
    if (!ns->out) return -1;
    int64_t base = 0;
    for (int k = 0; k < 4; k++) {
        int64_t at = base;
        for (int c = 0; c < chunks; c++) {
            const int64_t m = cc[c][k];
            cc[c][k] = at;
            at += m;
        }
        base += ns->count[k];
    }
    split_pass sp = {e, n, xm, ym, exist, cc, ns->out};
    qr_parallel_for(chunks, n >= PAR_SPLIT ? threads : 1, scatter_chunk, &sp);
    return 0;
}

/* Whether the node splits (qr_node_splits, and where weighed, qr_split_pays),
 * and if so its children's lists in ns. Returns -1 when out of memory. */
static int decide_split(const builder *bd, int x0, int y0, int side, int depth, const entry *e,
                        int32_t n, int threads, node_split *ns, int *splits)
{
    *splits = 0;
    ns->out = NULL;
    if (!qr_node_splits(side, depth, n, bd->p)) return 0;
    const int half = side / 2;
    const unsigned exist = children_inside(bd, x0, y0, half);
    int64_t(*cc)[4] = NULL;
    if (split_counts(e, n, x0 + half, y0 + half, exist, threads, &cc, ns)) return -1;
    const long long children = ns->count[0] + ns->count[1] + ns->count[2] + ns->count[3];
    if (qr_split_weighed(side, bd->p) && !qr_split_pays(side, n, children, bd->p)) {
        free(cc);
        return 0;
    }
    int rc = split_scatter(e, n, x0 + half, y0 + half, exist, threads, cc, ns);
    free(cc);
    *splits = rc == 0;
    return rc;
}

/* The subtree of the node at absolute pixel (x0, y0) with the given side;
 * e = the ascending list of entries meeting it. */
static void build_node(builder *bd, int x0, int y0, int side, int depth, const entry *e, int32_t n)
{
    bd->num_nodes++;
    if (depth > bd->max_depth) bd->max_depth = depth;
    node_split ns;
    int splits;
    if (decide_split(bd, x0, y0, side, depth, e, n, 1, &ns, &splits)) { bd->oom = 1; return; }
    if (!splits) {
        add_leaf(bd, x0, y0, side, depth, e, n);
        return;
    }
    const int half = side / 2;
    const entry *child = ns.out;
    for (int k = 0; k < 4 && !bd->oom; k++) {
        if (!ns.count[k]) {
            const int cx = x0 + (k & 1) * half, cy = y0 + (k >> 1) * half;
            if (cx >= bd->region.x1 || cy >= bd->region.y1) continue; /* no such child */
        }
        build_node(bd, x0 + (k & 1) * half, y0 + (k >> 1) * half, half, depth + 1, child,
                   (int32_t)ns.count[k]);
        child += ns.count[k];
    }
    free(ns.out);
}

/* ---- the top of the tree, and the subtrees in parallel ---------------------------------------- */

typedef struct subtree {
    int x0, y0, side, depth;
    const entry *e;
    int32_t n;
    builder bd;
    int64_t leaf_base, pair_base; /* where its output goes */
} subtree;

typedef struct top {
    const qr_index_params *p;
    qr_rect region;
    int threads;
    subtree *items;
    int nitems, cap_items;
    entry **bufs; /* the top splits' lists, freed after the subtrees */
    int nbufs, cap_bufs;
    int32_t num_nodes, max_depth;
    int oom;
} top;

static int push(void **arr, int *len, int *cap, size_t size)
{
    if (*len == *cap) {
        int c = *cap ? *cap * 2 : 16;
        void *a = realloc(*arr, (size_t)c * size);
        if (!a) return -1;
        *arr = a;
        *cap = c;
    }
    (*len)++;
    return 0;
}

/* Splits the top of the tree as build_node would, in parallel passes where
 * nodes are big; nodes at SUBTREE_DEPTH, small ones and leaves become
 * subtree tasks, in depth-first order. */
static void descend(top *tp, int x0, int y0, int side, int depth, const entry *e, int32_t n)
{
    if (tp->oom) return;
    node_split ns = {{0, 0, 0, 0}, NULL};
    int splits = 0;
    if (depth < SUBTREE_DEPTH && n >= SUBTREE_MIN) {
        builder probe = {0};
        probe.p = tp->p;
        probe.region = tp->region;
        if (decide_split(&probe, x0, y0, side, depth, e, n, tp->threads, &ns, &splits)) {
            tp->oom = 1;
            return;
        }
    }
    if (!splits) {
        if (push((void **)&tp->items, &tp->nitems, &tp->cap_items, sizeof *tp->items)) {
            tp->oom = 1;
            return;
        }
        subtree *s = &tp->items[tp->nitems - 1];
        memset(s, 0, sizeof *s);
        s->x0 = x0;
        s->y0 = y0;
        s->side = side;
        s->depth = depth;
        s->e = e;
        s->n = n;
        s->bd.p = tp->p;
        s->bd.region = tp->region;
        return;
    }
    if (push((void **)&tp->bufs, &tp->nbufs, &tp->cap_bufs, sizeof *tp->bufs)) {
        free(ns.out);
        tp->oom = 1;
        return;
    }
    tp->bufs[tp->nbufs - 1] = ns.out;
    tp->num_nodes++;
    if (depth > tp->max_depth) tp->max_depth = depth;
    const int half = side / 2;
    const entry *child = ns.out;
    for (int k = 0; k < 4; k++) {
        const int cx = x0 + (k & 1) * half, cy = y0 + (k >> 1) * half;
        if (cx >= tp->region.x1 || cy >= tp->region.y1) continue;
        descend(tp, cx, cy, half, depth + 1, child, (int32_t)ns.count[k]);
        child += ns.count[k];
    }
}

static void build_subtree(void *ctx, int task)
{
    subtree *s = &((top *)ctx)->items[task];
    build_node(&s->bd, s->x0, s->y0, s->side, s->depth, s->e, s->n);
}

typedef struct join {
    const top *tp;
    qr_leaf *leaves;
    int32_t *lists;
} join;

static void join_subtree(void *ctx, int task)
{
    const join *j = ctx;
    const subtree *s = &j->tp->items[task];
    for (int32_t l = 0; l < s->bd.num_leaves; l++) {
        qr_leaf leaf = s->bd.leaves[l];
        leaf.offset += s->pair_base;
        j->leaves[s->leaf_base + l] = leaf;
    }
    if (s->bd.num_pairs)
        memcpy(j->lists + s->pair_base, s->bd.lists, (size_t)s->bd.num_pairs * sizeof *j->lists);
}

/* ---- boxes ------------------------------------------------------------------------------- */

typedef struct box_pass {
    const qr_scene *s;
    int32_t width, height;
    qr_rect region;
    entry *tmp;       /* per circle; id -1 where culled */
    int32_t *visible; /* per chunk; then its first slot in `out` */
    entry *out;
} box_pass;

static void box_chunk(void *ctx, int task)
{
    box_pass *bp = ctx;
    const int32_t i0 = (int32_t)task * CHUNK, i1 = bp->s->n - i0 < CHUNK ? bp->s->n : i0 + CHUNK;
    int32_t v = 0;
    for (int32_t i = i0; i < i1; i++) {
        qr_rect b;
        entry *t = &bp->tmp[i];
        t->id = -1;
        if (qr_index_circle_box(bp->s, i, bp->width, bp->height, &bp->region, &b)) {
            t->id = i;
            t->x0 = (uint16_t)b.x0;
            t->x1 = (uint16_t)b.x1;
            t->y0 = (uint16_t)b.y0;
            t->y1 = (uint16_t)b.y1;
            v++;
        }
    }
    bp->visible[task] = v;
}

static void compact_chunk(void *ctx, int task)
{
    box_pass *bp = ctx;
    const int32_t i0 = (int32_t)task * CHUNK, i1 = bp->s->n - i0 < CHUNK ? bp->s->n : i0 + CHUNK;
    int32_t at = bp->visible[task];
    for (int32_t i = i0; i < i1; i++)
        if (bp->tmp[i].id >= 0) bp->out[at++] = bp->tmp[i];
}

qr_status qr_index_build_host(const qr_scene *scene, int32_t width, int32_t height,
                              const qr_rect *region, const qr_index_params *params,
                              qr_index **out, qr_error *err)
{
    return qr_index_build_host_threads(scene, width, height, region, params, 0, out, err);
}

qr_status qr_index_build_host_threads(const qr_scene *scene, int32_t width, int32_t height,
                                      const qr_rect *region, const qr_index_params *params,
                                      int threads, qr_index **out, qr_error *err)
{
    *out = NULL;
    qr_rect reg;
    qr_status st = qr_index_check_build(width, height, region, params, &reg, err);
    if (st) return st;
    if (threads <= 0) threads = qr_threads();

    const int32_t n = scene->n;
    const int chunks = (int)((n + CHUNK - 1) / CHUNK);
    entry *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
    entry *root = malloc((size_t)(n ? n : 1) * sizeof *root);
    int32_t *vis = malloc((size_t)(chunks ? chunks : 1) * sizeof *vis);
    qr_index *ix = calloc(1, sizeof *ix);
    top tp;
    memset(&tp, 0, sizeof tp);
    if (!tmp || !root || !vis || !ix) {
        free(tmp); free(root); free(vis); free(ix);
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory building the index of %d circles", n);
    }
    box_pass bp = {scene, width, height, reg, tmp, vis, root};
    qr_parallel_for(chunks, threads, box_chunk, &bp);
    int32_t visible = 0;
    for (int c = 0; c < chunks; c++) {
        const int32_t v = vis[c];
        vis[c] = visible;
        visible += v;
    }
    qr_parallel_for(chunks, threads, compact_chunk, &bp);
    free(tmp);
    free(vis);

    tp.p = params;
    tp.region = reg;
    tp.threads = threads;
    const int rootside = qr_root_size(reg, params->min_leaf);
    descend(&tp, reg.x0, reg.y0, rootside, 0, root, visible);
    if (!tp.oom) qr_parallel_for(tp.nitems, threads, build_subtree, &tp);

    int64_t leaves = 0, pairs = 0;
    int32_t nodes = tp.num_nodes, depth = tp.max_depth;
    for (int k = 0; k < tp.nitems; k++) {
        subtree *s = &tp.items[k];
        tp.oom |= s->bd.oom;
        s->leaf_base = leaves;
        s->pair_base = pairs;
        leaves += s->bd.num_leaves;
        pairs += s->bd.num_pairs;
        nodes += s->bd.num_nodes;
        depth = s->bd.max_depth > depth ? s->bd.max_depth : depth;
    }
    join j = {&tp, NULL, NULL};
    if (!tp.oom) {
        j.leaves = malloc((size_t)(leaves ? leaves : 1) * sizeof *j.leaves);
        j.lists = malloc((size_t)(pairs ? pairs : 1) * sizeof *j.lists);
        tp.oom = !j.leaves || !j.lists;
    }
    if (!tp.oom) qr_parallel_for(tp.nitems, threads, join_subtree, &j);
    for (int k = 0; k < tp.nitems; k++) {
        free(tp.items[k].bd.leaves);
        free(tp.items[k].bd.lists);
    }
    for (int k = 0; k < tp.nbufs; k++) free(tp.bufs[k]);
    free(tp.items);
    free(tp.bufs);
    free(root);
    if (tp.oom) {
        free(j.leaves); free(j.lists); free(ix);
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory building the index");
    }
    ix->width = width;
    ix->height = height;
    ix->region = reg;
    ix->params = *params;
    ix->root_size = rootside;
    ix->num_nodes = nodes;
    ix->num_leaves = (int32_t)leaves;
    ix->max_depth_reached = depth;
    ix->visible = visible;
    ix->culled = n - visible;
    ix->num_pairs = pairs;
    ix->leaves = j.leaves;
    ix->lists = j.lists;
    *out = ix;
    return QR_OK;
}
