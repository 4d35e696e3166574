/* index_gpu.cu — the GPU index: its memory, and its stages queued in order
 * on a stream the frame gives it (index_gpu.h says how a build goes; the
 * stages' kernels live in boxes.cu, tree.cu, pairs.cu, lists.cu,
 * single_leaf.cu; src/quadtree/gpu/frame.cu drives a build).
 *
 * Memory: buffers that scale with the circle count and the image are carved
 * from one allocation whose size is computed first; the pair buffers (which
 * scale with the number of (leaf, circle) pairs, known only once the tree is
 * decided) are a second allocation. Both are kept and only ever grown, so a
 * steady stream of frames allocates nothing.
 */
#include "gpu/tuning.h"
#include "quadtree/gpu/index_gpu.h"
#include "quadtree/quadtree_geom.h"
#include "gpu/cuda_check.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <stdlib.h>
#include <string.h>

struct qr_gpu_index {
    /* fixed part */
    void *fixed;
    size_t fixed_bytes;
    ushort4 *boxes;
    uint32_t *counts;   /* per work slot (qr_cell_rows) */
    long long *offsets;
    unsigned long long *tiles; /* the fused count-and-emit's look-back states */
    uint32_t *hist;
    qr_dnode *nodes;
    int32_t *ncount, *nleaves, *nfirst;
    qr_leaf *leaves;
    int32_t *tile_leaf;
    int32_t *extra, *small;
    qr_build_scalars *scalars;
    void *scan_tmp;
    size_t scan_tmp_bytes;
    int scan_sized; /* scan_bytes_for_n holds CUB's answer for scan_n circles */
    int32_t scan_n;
    size_t scan_bytes_for_n;
    /* pair part */
    void *pairs;
    size_t pairs_bytes;
    long long pair_cap;
    int32_t *keys[2], *vals[2]; /* keys: 16-bit when the leaf numbers fit */
    uint32_t *list_state;       /* the lists stage's look-back words */
    void *sort_tmp;
    size_t sort_tmp_bytes;
    /* the last accepted build */
    int built;
    qr_tree_geom geom;
    int32_t n;
    qr_build_scalars result;
    const int32_t *lists;
    long long items;      /* its pair slots */
    int last_single;      /* its tree was one leaf */
    int ran_single;       /* how it was built (qr_gpu_index_single_kernel) */
    qr_build_timing last_timing;
    /* The side of the next build's histogram cells (0: min_leaf). Finer
     * cells cost time in every stage (histograms, tree, pairs), so a build
     * counts over cells as coarse as the last accepted tree allows: half
     * its smallest leaf S where S > min_leaf (a node of S is decided by its
     * children's counts too; no node of S / 2 existed), min_leaf where S
     * is min_leaf, and the floor (qr_leaf_floor) where S is below it (a
     * crowded tree: there the boxes stage's atomics on crowded cells cost
     * less the finer the cells). A build whose cells were too coarse for a
     * node it should have split (deep_cut) is redone finer: min_leaf, then
     * the floor. The index is the same whatever the cells: they only bound
     * where nodes can split, and a build that needed finer ones is
     * redone. */
    int32_t cell;
    /* settings */
    qr_timing timing;
    size_t mem_limit; /* 0: none; else the most device bytes fixed + pairs may take */
};

/* Carves aligned sub-buffers out of one allocation: call once with base NULL
 * to size, once with the real base to assign. */
typedef struct carver {
    char *base;
    size_t used;
} carver;

static void *carve(carver *c, size_t bytes)
{
    size_t at = (c->used + 255) & ~(size_t)255;
    c->used = at + bytes;
    return c->base ? c->base + at : NULL;
}

static size_t plan_fixed(qr_gpu_index *ix, const qr_tree_geom *g, int32_t n, size_t scan_bytes,
                         char *base)
{
    carver c = {base, 0};
    size_t nn = n ? (size_t)n : 1;
    const size_t slots = nn * qr_cell_rows(n);
    ix->boxes = (ushort4 *)carve(&c, nn * sizeof(ushort4));
    ix->counts = (uint32_t *)carve(&c, slots * sizeof(uint32_t));
    ix->offsets = (long long *)carve(&c, slots * sizeof(long long));
    /* scalars, look-back states and histograms side by side: one memset
     * clears them all */
    ix->scalars = (qr_build_scalars *)carve(&c, sizeof(qr_build_scalars));
    ix->tiles = (unsigned long long *)carve(&c, qr_count_emit_tiles(n) * sizeof(unsigned long long));
    ix->hist = (uint32_t *)carve(&c, qr_hist_words(g) * sizeof(uint32_t));
    ix->nodes = (qr_dnode *)carve(&c, (size_t)g->max_nodes * sizeof(qr_dnode));
    ix->ncount = (int32_t *)carve(&c, (size_t)g->max_nodes * sizeof(int32_t));
    ix->nleaves = (int32_t *)carve(&c, (size_t)g->max_nodes * sizeof(int32_t));
    ix->nfirst = (int32_t *)carve(&c, (size_t)g->max_nodes * sizeof(int32_t));
    ix->leaves = (qr_leaf *)carve(&c, (size_t)g->max_nodes * sizeof(qr_leaf));
    ix->tile_leaf = (int32_t *)carve(&c, 2 * (size_t)g->tiles_x * g->tiles_y * sizeof(int32_t));
    ix->extra = (int32_t *)carve(&c, (size_t)g->max_nodes * sizeof(int32_t));
    ix->small = (int32_t *)carve(&c, (size_t)g->max_nodes * sizeof(int32_t));
    ix->scan_tmp = carve(&c, scan_bytes);
    ix->scan_tmp_bytes = scan_bytes;
    return c.used;
}

static size_t plan_pairs(qr_gpu_index *ix, long long cap, size_t sort_bytes, char *base)
{
    carver c = {base, 0};
    for (int k = 0; k < 2; k++) {
        ix->keys[k] = (int32_t *)carve(&c, (size_t)cap * sizeof(int32_t));
        ix->vals[k] = (int32_t *)carve(&c, (size_t)cap * sizeof(int32_t));
    }
    const long long state = cap < QR_LISTS_MAX_ITEMS ? qr_lists_state_cap(cap) : 0;
    ix->list_state = (uint32_t *)carve(&c, (size_t)state * sizeof(uint32_t));
    ix->sort_tmp = carve(&c, sort_bytes);
    ix->sort_tmp_bytes = sort_bytes;
    return c.used;
}

/* cudaMalloc with a message that names the bytes needed and free. */
static qr_status dev_alloc(void **p, size_t bytes, const char *what, qr_error *err)
{
    cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaSuccess) return QR_OK;
    cudaGetLastError();
    *p = NULL;
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    return qr_fail(err, qr_cuda_status(e),
                   "the index needs %zu bytes of GPU memory for %s, but only %zu of %zu are free (%s)",
                   bytes, what, free_b, total_b, cudaGetErrorString(e));
}

/* A build that would take more than the limit (qr_gpu_index_set_limit). */
static qr_status over_limit(const qr_gpu_index *ix, size_t need, qr_error *err)
{
    return qr_fail(err, QR_ERR_GPU_NOMEM,
                   "the index needs %zu bytes of GPU memory, more than the %zu its budget leaves",
                   need, ix->mem_limit);
}

static qr_status make_geom(int32_t width, int32_t height, const qr_rect *region,
                           const qr_index_params *params, qr_render_mode mode, int32_t cell,
                           qr_tree_geom *g, qr_error *err)
{
    qr_rect reg;
    qr_status st = qr_index_check_build(width, height, region, params, &reg, err);
    if (st) return st;
    if (reg.x1 - reg.x0 > QR_GPU_REGION_MAX || reg.y1 - reg.y0 > QR_GPU_REGION_MAX)
        return qr_fail(err, QR_ERR_INVALID,
                       "a GPU index covers at most %dx%d pixels; [%d,%d)x[%d,%d) is built in bands",
                       QR_GPU_REGION_MAX, QR_GPU_REGION_MAX, reg.x0, reg.x1, reg.y0, reg.y1);
    memset(g, 0, sizeof *g);
    g->width = width;
    g->height = height;
    g->region = reg;
    g->params = *params;
    g->early_stop = qr_mode_stops_early(mode);
    g->root = qr_root_size(reg, params->min_leaf);
    g->floor = qr_leaf_floor(g->root, params);
    /* cell: a power of two from the floor to the root (0: min_leaf) */
    g->cell = cell ? cell : params->min_leaf;
    if (g->cell < g->floor) g->cell = g->floor;
    if (g->cell > g->root) g->cell = g->root;
    int w = reg.x1 - reg.x0, h = reg.y1 - reg.y0;
    g->gx = (w + g->cell - 1) / g->cell;
    g->gy = (h + g->cell - 1) / g->cell;
    g->tiles_x = (w + QR_TILE - 1) / QR_TILE;
    g->tiles_y = (h + QR_TILE - 1) / QR_TILE;
    g->max_nodes = qr_tree_max_nodes(g);
    return QR_OK;
}

/* Makes sure the fixed buffers fit n circles and geometry g; before freeing
 * smaller ones, waits for `busy` (work that may still use them). */
static qr_status ensure_fixed(qr_gpu_index *ix, const qr_tree_geom *g, int32_t n, cudaEvent_t busy,
                              qr_error *err)
{
    /* CUB's size query depends only on n; asked once per n, since a frame
     * of a small scene is short enough for host time to show */
    if (!ix->scan_sized || ix->scan_n != n) {
        size_t bytes = 0;
        QR_CUDA_TRY(err, cub::DeviceScan::ExclusiveScan(NULL, bytes, (const uint32_t *)NULL,
                                                        (long long *)NULL, cuda::std::plus<long long>(),
                                                        (long long)0, n ? n * qr_cell_rows(n) : 1,
                                                        (cudaStream_t)0));
        ix->scan_bytes_for_n = bytes;
        ix->scan_n = n;
        ix->scan_sized = 1;
    }
    const size_t scan_bytes = ix->scan_bytes_for_n;
    size_t need = plan_fixed(ix, g, n, scan_bytes, NULL);
    if (need > ix->fixed_bytes) {
        if (ix->mem_limit && need + ix->pairs_bytes > ix->mem_limit)
            return over_limit(ix, need + ix->pairs_bytes, err);
        if (busy) QR_CUDA_TRY(err, cudaEventSynchronize(busy));
        cudaFree(ix->fixed);
        ix->fixed = NULL;
        ix->fixed_bytes = 0;
        qr_status st = dev_alloc(&ix->fixed, need, "per-circle and tree buffers", err);
        if (st) return st;
        ix->fixed_bytes = need;
    }
    plan_fixed(ix, g, n, scan_bytes, (char *)ix->fixed);
    return QR_OK;
}

/* Makes sure the pair buffers hold `pairs` (the stream is idle: only a
 * sized build grows them). */
static qr_status ensure_pairs(qr_gpu_index *ix, long long pairs, qr_error *err)
{
    if (pairs <= ix->pair_cap && ix->pairs) return QR_OK;
    long long cap = pairs + pairs / 4 + 1024;
    if (cap > QR_GPU_MAX_PAIRS) cap = QR_GPU_MAX_PAIRS;
    size_t sort_bytes = 0;
    size_t bytes16 = 0;
    cub::DoubleBuffer<int32_t> k(NULL, NULL), v(NULL, NULL);
    cub::DoubleBuffer<uint16_t> k16(NULL, NULL);
    QR_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, k, v, cap, 0, 32));
    QR_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(NULL, bytes16, k16, v, cap, 0, 16));
    if (bytes16 > sort_bytes) sort_bytes = bytes16;
    size_t need = plan_pairs(ix, cap, sort_bytes, NULL);
    if (ix->mem_limit && ix->fixed_bytes + need > ix->mem_limit)
        return over_limit(ix, ix->fixed_bytes + need, err);
    cudaFree(ix->pairs);
    ix->pairs = NULL;
    ix->pairs_bytes = 0;
    ix->pair_cap = 0;
    qr_status st = dev_alloc(&ix->pairs, need, "the per-leaf circle lists", err);
    if (st) return st;
    ix->pairs_bytes = need;
    ix->pair_cap = cap;
    plan_pairs(ix, cap, sort_bytes, (char *)ix->pairs);
    return QR_OK;
}


/* ---- the stages, queued ------------------------------------------------ */

/* Records stage event k when the timing level asks for it; inside a capture
 * it becomes an event node of the graph. */
#define REC(k)                                                                                  \
    do {                                                                                        \
        if (ev && (ev->level == QR_TIMING_STAGES ||                                             \
                   (ev->level >= QR_TIMING_TOTALS && ((k) == QR_EV_START || (k) == QR_EV_END)))) \
            QR_CUDA_TRY(err, cudaEventRecordWithFlags(ev->ev[k], s, ev->flags));                \
    } while (0)

/* Whether the stages' kernels may start early behind one another
 * (gpu/pdl.h): not when stage events lie between them. */
static int stage_pdl(const qr_stage_events *ev)
{
    return !ev || ev->level != QR_TIMING_STAGES;
}

/* Whether an ahead build over n circles counts and scans inside its emit
 * (qr_launch_count_emit). Its tiles sum their slots' pairs in 32 bits; a
 * slot meets at most one leaf per histogram cell, so the sums cannot wrap
 * while a tile's slots times the cells stay below 2^32 (else the count and
 * CUB's 64-bit scan run apart). */
static int fused_emit(int32_t n, const qr_tree_geom *g)
{
    const long long span = (long long)QR_CE_TILE * qr_count_emit_per(n);
    return qr_count_emit_tiles(n) <= QR_CE_MAX_TILES &&
           span * ((long long)g->gx * g->gy) < (1LL << 32);
}

/* Whether the lists stage of `items` slots over leaf numbers of `bits` bits
 * is lists.cu's one pass (else CUB's radix sort). */
static int own_lists(long long items, int bits)
{
    return bits >= 1 && bits <= QR_LISTS_MAX_BITS && items < QR_LISTS_MAX_ITEMS && qr_lists_fit(items);
}

/* Stages up to the pair slots: boxes, tree, and the count and the scan
 * (unless `fused`: the emit does them). */
static qr_status launch_front(qr_gpu_index *ix, const qr_gpu_scene *scene, const qr_tree_geom *g,
                              int fused, int big_boxes, cudaStream_t s, const qr_stage_events *ev,
                              qr_error *err)
{
    const int32_t n = scene->n;
    const int pdl = stage_pdl(ev);
    REC(QR_EV_START);
    /* scalars, look-back states and histograms lie side by side (plan_fixed) */
    const size_t hist_bytes = qr_hist_words(g) * sizeof(uint32_t);
    QR_CUDA_TRY(err, cudaMemsetAsync(ix->scalars, 0, (char *)ix->hist + hist_bytes - (char *)ix->scalars, s));
    qr_boxes_args ba = {};
    ba.scene = scene;
    ba.geom = g;
    ba.boxes = ix->boxes;
    ba.hist = ix->hist;
    ba.scalars = ix->scalars;
    QR_CUDA_TRY(err, qr_launch_boxes(&ba, s));
    REC(QR_EV_BOXES);
    /* (with no circles, no boxes kernel: the memset comes before the tree) */
    qr_tree_args ta = {};
    ta.geom = g;
    ta.hist = ix->hist;
    ta.nodes = ix->nodes;
    ta.node_count = ix->ncount;
    ta.node_nleaves = ix->nleaves;
    ta.node_first = ix->nfirst;
    ta.leaves = ix->leaves;
    ta.tile_leaf = ix->tile_leaf;
    ta.extra = ix->extra;
    ta.small = ix->small;
    ta.scalars = ix->scalars;
    QR_CUDA_TRY(err, qr_launch_tree(&ta, s, pdl && n > 0));
    REC(QR_EV_TREE);
    if (!fused) {
        qr_count_args ca = {};
        ca.n = n;
        ca.geom = g;
        ca.boxes = ix->boxes;
        ca.tile_leaf = ix->tile_leaf;
        ca.leaves = ix->leaves;
        ca.counts = ix->counts;
        ca.scalars = ix->scalars;
        ca.big = big_boxes;
        QR_CUDA_TRY(err, qr_launch_count(&ca, s, pdl));
    }
    REC(QR_EV_COUNT);
    if (!fused && n > 0) {
        size_t bytes = ix->scan_tmp_bytes;
        QR_CUDA_TRY(err, cub::DeviceScan::ExclusiveScan(ix->scan_tmp, bytes, ix->counts, ix->offsets,
                                                        cuda::std::plus<long long>(), (long long)0,
                                                        n * qr_cell_rows(n), s));
    }
    REC(QR_EV_SCAN);
    return QR_OK;
}

/* Stages from the pairs on: emit p->items slots (a sized build's exact
 * count; an ahead build's guess, its read-back written by the emit kernel,
 * which also counts and scans when fused_emit) and turn the pairs into the
 * leaves' lists by their p->bits key bits. */
static qr_status launch_back(qr_gpu_index *ix, const qr_build_plan *p, cudaStream_t s,
                             const qr_stage_events *ev, qr_build_readback *rb,
                             const int32_t **lists, qr_error *err)
{
    const qr_tree_geom *g = &p->geom;
    const long long items = p->items;
    const int bits = p->bits, ahead = p->ahead, pdl = stage_pdl(ev);
    const int own = own_lists(items, bits);
    /* CUB's sort sorts every slot: an ahead build pads the unused ones with
     * a key that sorts last. The one-pass lists stage stops at the pairs
     * instead, and needs its look-back state zeroed. */
    const int32_t pad_key = ahead && bits > 0 && !own ? (1 << bits) - 1 : -1;
    uint32_t *zero = own ? ix->list_state : NULL;
    const long long zero_words = own ? qr_lists_state_words(items, bits) : 0;
    /* 16-bit keys when the leaf numbers fit: a third fewer bytes to move */
    const int key_bytes = bits <= 16 ? 2 : 4;
    qr_emit_args ea = {};
    ea.n = p->n;
    ea.geom = g;
    ea.boxes = ix->boxes;
    ea.tile_leaf = ix->tile_leaf;
    ea.leaves = ix->leaves;
    ea.offsets = ix->offsets;
    ea.counts = ix->counts;
    ea.tiles = ix->tiles;
    ea.items = items;
    ea.pad_key = pad_key;
    ea.keys = ix->keys[0];
    ea.key_bytes = key_bytes;
    ea.bits = bits > 0 ? bits : 31;
    ea.big = p->big_boxes;
    ea.vals = ix->vals[0];
    ea.zero = zero;
    ea.zero_words = zero_words;
    ea.scalars = ix->scalars;
    ea.rb = ahead ? rb : NULL;
    if (ahead && fused_emit(p->n, &p->geom))
        QR_CUDA_TRY(err, qr_launch_count_emit(&ea, s, pdl));
    else
        QR_CUDA_TRY(err, qr_launch_emit(&ea, s, pdl));
    REC(QR_EV_EMIT);
    *lists = ix->vals[0];
    if (own) {
        /* (bits <= QR_LISTS_MAX_BITS: 16-bit keys) */
        qr_lists_args la = {};
        la.items = items;
        la.bits = bits;
        la.keys = (const uint16_t *)ix->keys[0];
        la.vals = ix->vals[0];
        la.leaves = ix->leaves;
        la.state = ix->list_state;
        la.lists = ix->vals[1];
        la.scalars = ix->scalars;
        QR_CUDA_TRY(err, qr_launch_lists(&la, s, pdl));
        *lists = ix->vals[1];
    } else if (bits > 0 && items > 1) {
        cub::DoubleBuffer<int32_t> v(ix->vals[0], ix->vals[1]);
        size_t bytes = ix->sort_tmp_bytes;
        if (key_bytes == 2) {
            cub::DoubleBuffer<uint16_t> k((uint16_t *)ix->keys[0], (uint16_t *)ix->keys[1]);
            QR_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(ix->sort_tmp, bytes, k, v, items, 0, bits, s));
        } else {
            cub::DoubleBuffer<int32_t> k(ix->keys[0], ix->keys[1]);
            QR_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(ix->sort_tmp, bytes, k, v, items, 0, bits, s));
        }
        *lists = v.Current();
    }
    REC(QR_EV_SORT);
    REC(QR_EV_END);
    return QR_OK;
}

/* The build of a tree that is one leaf, as one kernel (qr_launch_single_leaf).
 * Its stage events all fall after that kernel, so its time shows as boxes. */
static qr_status launch_single(qr_gpu_index *ix, const qr_gpu_scene *scene, const qr_build_plan *p,
                               cudaStream_t s, const qr_stage_events *ev, qr_build_readback *rb,
                               const int32_t **lists, qr_error *err)
{
    REC(QR_EV_START);
    qr_single_leaf_args sa = {};
    sa.scene = scene;
    sa.geom = &p->geom;
    sa.items = p->items;
    sa.vals = ix->vals[0];
    sa.leaves = ix->leaves;
    sa.tile_leaf = ix->tile_leaf;
    sa.scalars = ix->scalars;
    sa.rb = rb;
    QR_CUDA_TRY(err, qr_launch_single_leaf(&sa, s));
    for (int k = QR_EV_BOXES; k <= QR_EV_END; k++) REC(k);
    *lists = ix->vals[0];
    return QR_OK;
}

/* Pair slots an ahead build emits and sorts: about as many as the last build
 * had, a sixteenth more (every slot is sorted, so the margin is small; a
 * build that outgrows it is redone). Kept while the pairs drift only a little,
 * so that an animated scene does not change the frame's graph every frame. */
static long long ahead_items(const qr_gpu_index *ix)
{
    const long long p = ix->result.num_pairs;
    long long items = ix->items;
    if (!(items >= p + p / 32 + 256 && items <= p + p / 8 + 2048)) items = p + p / 16 + 1024;
    return items < ix->pair_cap ? items : ix->pair_cap;
}

qr_status qr_gpu_index_plan(qr_gpu_index *ix, const qr_gpu_scene *scene, int32_t width,
                            int32_t height, const qr_rect *region, const qr_index_params *params,
                            qr_render_mode mode, int sized, cudaEvent_t busy, qr_build_plan *p,
                            qr_error *err)
{
    memset(p, 0, sizeof *p); /* padding too: plans are compared bytewise */
    qr_status st = make_geom(width, height, region, params, mode, ix->cell, &p->geom, err);
    if (st) return st;
    st = ensure_fixed(ix, &p->geom, scene->n, busy, err);
    if (st) return st;
    p->x = scene->x;
    p->y = scene->y;
    p->r = scene->r;
    p->n = scene->n;
    p->fixed = ix->fixed;
    p->pairs = ix->pairs;
    p->pair_cap = ix->pair_cap;
    p->timing = (int)ix->timing;
    p->ahead = !sized && ix->pairs && ix->built;
    p->big_boxes = ix->built && ix->result.max_box_cells > QR_WARP_CELLS;
    if (p->ahead) {
        p->items = ahead_items(ix);
        /* a scene whose last tree was one leaf likely stays one: try the
         * one-kernel build (it reports when it was wrong) */
        p->single = ix->last_single && scene->n <= QR_SINGLE_MAX_CIRCLES;
        /* leaves never outnumber the cells; where they are far fewer (fine
         * cells), a build guesses twice the last one's (an emit past them
         * has the build redone): ten bits or fewer take the one-pass lists
         * stage */
        long long leaves = (long long)p->geom.gx * p->geom.gy;
        if (ix->geom.cell == p->geom.cell) {
            const long long guess = 2LL * ix->result.num_leaves > 1024 ? 2LL * ix->result.num_leaves : 1024;
            if (guess < leaves) leaves = guess;
        }
        p->bits = p->single ? 0 : qr_key_bits(leaves);
    }
    return QR_OK;
}

qr_status qr_gpu_index_enqueue(qr_gpu_index *ix, const qr_gpu_scene *scene, const qr_build_plan *p,
                               cudaStream_t s, const qr_stage_events *ev, qr_build_readback *rb,
                               const int32_t **lists, qr_error *err)
{
    if (p->single) return launch_single(ix, scene, p, s, ev, rb, lists, err);
    qr_status st = launch_front(ix, scene, &p->geom, fused_emit(p->n, &p->geom), p->big_boxes, s, ev, err);
    return st ? st : launch_back(ix, p, s, ev, rb, lists, err);
}

qr_status qr_gpu_index_enqueue_front(qr_gpu_index *ix, const qr_gpu_scene *scene,
                                     const qr_build_plan *p, cudaStream_t s,
                                     const qr_stage_events *ev, qr_build_readback *rb,
                                     qr_error *err)
{
    qr_status st = launch_front(ix, scene, &p->geom, 0, p->big_boxes, s, ev, err);
    if (st) return st;
    /* the scalars, and the scan's total as a consistency check, written by
     * one small kernel straight into mapped host memory */
    const int32_t n = p->n;
    const size_t last = n > 0 ? (size_t)n * qr_cell_rows(n) - 1 : 0;
    qr_readback_args ra = {};
    ra.scalars = ix->scalars;
    ra.last_offset = n > 0 ? ix->offsets + last : NULL;
    ra.last_count = ix->counts + last;
    ra.out = rb;
    QR_CUDA_TRY(err, qr_launch_readback(&ra, s));
    return QR_OK;
}

qr_status qr_gpu_index_size_pairs(qr_gpu_index *ix, qr_build_plan *p, const qr_build_readback *rb,
                                  qr_error *err)
{
    const long long pairs = rb->scalars.num_pairs;
    /* list entries are addressed by int32 in the sorts and the lists stage */
    if (pairs > QR_GPU_MAX_PAIRS)
        return qr_fail(err, QR_ERR_GPU_NOMEM,
                       "the index would hold %lld (leaf, circle) pairs, more than one build takes "
                       "(%d); render in smaller bands",
                       pairs, QR_GPU_MAX_PAIRS);
    qr_status st = ensure_pairs(ix, pairs, err);
    if (st) return st;
    p->pairs = ix->pairs;
    p->pair_cap = ix->pair_cap;
    p->items = pairs;
    p->bits = qr_key_bits(rb->scalars.num_leaves);
    return QR_OK;
}

qr_status qr_gpu_index_enqueue_back(qr_gpu_index *ix, const qr_build_plan *p, cudaStream_t s,
                                    const qr_stage_events *ev, const int32_t **lists, qr_error *err)
{
    return launch_back(ix, p, s, ev, NULL, lists, err);
}

qr_status qr_gpu_index_check(const qr_build_plan *p, const qr_build_readback *rb, qr_error *err)
{
    const qr_build_scalars *r = &rb->scalars;
    if (r->overflow)
        return qr_fail(err, QR_ERR_CUDA, "internal error: the quadtree outgrew its %d-node bound",
                       p->geom.max_nodes);
    if (rb->total != r->num_pairs)
        return qr_fail(err, QR_ERR_CUDA,
                       "internal error: the tree holds %lld pairs but the circles emit %lld",
                       r->num_pairs, rb->total);
    return QR_OK;
}

int qr_gpu_index_fits(const qr_build_plan *p, const qr_build_readback *rb)
{
    /* bad_emit: a one-kernel build found the root splitting after all */
    return rb->scalars.num_pairs <= p->items && !rb->scalars.bad_emit && !rb->scalars.deep_cut;
}

int qr_gpu_index_cut(qr_gpu_index *ix, const qr_build_plan *p, const qr_build_readback *rb)
{
    if (!rb->scalars.deep_cut) return 0;
    ix->cell = p->geom.cell > p->geom.params.min_leaf ? p->geom.params.min_leaf : p->geom.floor;
    return 1;
}

void qr_gpu_index_accept(qr_gpu_index *ix, const qr_build_plan *p, const qr_build_readback *rb,
                         const int32_t *lists, int how_single, const qr_build_timing *timing)
{
    ix->geom = p->geom;
    /* the next build's cells, from this tree's smallest leaf (see cell) */
    const int32_t smallest = p->geom.root >> rb->scalars.max_depth;
    const int32_t min_leaf = p->geom.params.min_leaf;
    ix->cell = smallest > min_leaf ? smallest / 2 : smallest == min_leaf ? min_leaf : p->geom.floor;
    ix->n = p->n;
    ix->items = p->items;
    ix->lists = lists;
    ix->result = rb->scalars;
    ix->last_single = ix->result.num_leaves == 1;
    ix->ran_single = how_single;
    if (timing) ix->last_timing = *timing;
    ix->built = 1;
}

qr_index_view qr_gpu_index_view(const qr_gpu_index *ix, const qr_build_plan *p, const int32_t *lists)
{
    qr_index_view v;
    memset(&v, 0, sizeof v);
    v.geom = p->geom;
    v.leaves = ix->leaves;
    v.lists = lists;
    v.tile_leaf = ix->tile_leaf;
    v.extra = ix->extra;
    v.small = ix->small;
    v.scalars = ix->scalars;
    v.capacity = p->items;
    return v;
}

qr_index_view qr_gpu_index_last_view(const qr_gpu_index *ix, int32_t *num_leaves, long long *num_pairs)
{
    qr_index_view v;
    memset(&v, 0, sizeof v);
    v.geom = ix->geom;
    v.leaves = ix->leaves;
    v.lists = ix->lists;
    v.tile_leaf = ix->tile_leaf;
    v.extra = ix->extra;
    v.small = ix->small;
    v.scalars = ix->scalars;
    v.capacity = ix->items;
    *num_leaves = ix->built ? ix->result.num_leaves : 0;
    *num_pairs = ix->built ? ix->result.num_pairs : 0;
    return v;
}

int32_t qr_gpu_index_visible(const qr_gpu_index *ix)
{
    return ix->built ? ix->result.visible : 0;
}

qr_timing qr_gpu_index_timing_level(const qr_gpu_index *ix)
{
    return ix->timing;
}

/* ---- the public object ---------------------------------------------------- */

extern "C" qr_status qr_gpu_index_create(qr_gpu_index **out, qr_error *err)
{
    *out = (qr_gpu_index *)calloc(1, sizeof **out);
    if (!*out) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    return QR_OK;
}

extern "C" void qr_gpu_index_destroy(qr_gpu_index *ix)
{
    if (!ix) return;
    /* cudaFree waits for work still using the buffers */
    cudaFree(ix->fixed);
    cudaFree(ix->pairs);
    free(ix);
}

extern "C" void qr_gpu_index_set_timing(qr_gpu_index *ix, qr_timing level)
{
    ix->timing = level;
}

extern "C" int qr_gpu_index_single_kernel(const qr_gpu_index *ix)
{
    return ix->ran_single;
}

void qr_gpu_index_shape(const qr_gpu_index *ix, long long shape[4])
{
    shape[0] = ix->result.num_leaves;
    shape[1] = ix->result.num_nodes;
    shape[2] = ix->result.max_depth;
    shape[3] = ix->result.num_pairs;
}

extern "C" size_t qr_gpu_index_device_bytes(const qr_gpu_index *ix)
{
    return ix->fixed_bytes + ix->pairs_bytes;
}

extern "C" qr_status qr_gpu_index_timing(const qr_gpu_index *ix, qr_build_timing *t, qr_error *err)
{
    if (ix->timing < QR_TIMING_TOTALS || !ix->built)
        return qr_fail(err, QR_ERR_INVALID, "no timed build yet (enable timing before building)");
    *t = ix->last_timing;
    return QR_OK;
}

extern "C" qr_status qr_gpu_index_download(const qr_gpu_index *ix, qr_index **out, qr_error *err)
{
    *out = NULL;
    if (!ix->built) return qr_fail(err, QR_ERR_INVALID, "the GPU index has not been built");
    qr_index *h = (qr_index *)calloc(1, sizeof *h);
    const qr_build_scalars *r = &ix->result;
    if (h) {
        h->leaves = (qr_leaf *)malloc((size_t)(r->num_leaves ? r->num_leaves : 1) * sizeof(qr_leaf));
        h->lists = (int32_t *)malloc((size_t)(r->num_pairs ? r->num_pairs : 1) * sizeof(int32_t));
    }
    if (!h || !h->leaves || !h->lists) {
        qr_index_destroy(h);
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory copying the index");
    }
    qr_status st = QR_OK;
    int32_t bad = 0;
    QR_CUDA_GOTO(err, st, fail, cudaMemcpy(&bad, &ix->scalars->bad_emit, sizeof bad, cudaMemcpyDeviceToHost));
    if (bad) {
        st = qr_fail(err, QR_ERR_CUDA, "internal error: a circle emitted more pairs than it counted");
        goto fail;
    }
    QR_CUDA_GOTO(err, st, fail, cudaMemcpy(h->leaves, ix->leaves, (size_t)r->num_leaves * sizeof(qr_leaf),
                                           cudaMemcpyDeviceToHost));
    QR_CUDA_GOTO(err, st, fail, cudaMemcpy(h->lists, ix->lists, (size_t)r->num_pairs * sizeof(int32_t),
                                           cudaMemcpyDeviceToHost));
    h->width = ix->geom.width;
    h->height = ix->geom.height;
    h->region = ix->geom.region;
    h->params = ix->geom.params;
    h->mode = ix->geom.early_stop ? QR_RENDER_FAST : QR_RENDER_EXACT;
    h->root_size = ix->geom.root;
    h->num_nodes = r->num_nodes;
    h->num_leaves = r->num_leaves;
    h->max_depth_reached = r->max_depth;
    h->visible = r->visible;
    h->culled = ix->n - r->visible;
    h->num_pairs = r->num_pairs;
    *out = h;
    return QR_OK;
fail:
    qr_index_destroy(h);
    return st;
}

void qr_gpu_index_set_limit(qr_gpu_index *ix, size_t bytes)
{
    ix->mem_limit = bytes;
}

qr_status qr_gpu_index_fixed_bytes(int32_t n, int32_t width, int32_t height, const qr_rect *region,
                                   const qr_index_params *params, size_t *bytes, qr_error *err)
{
    qr_tree_geom g;
    /* the finest cells; either mode's buffers are the same */
    qr_status st = make_geom(width, height, region, params, QR_RENDER_FAST, QR_MIN_LEAF, &g, err);
    if (st) return st;
    size_t scan = 0;
    QR_CUDA_TRY(err, cub::DeviceScan::ExclusiveScan(NULL, scan, (const uint32_t *)NULL, (long long *)NULL,
                                                    cuda::std::plus<long long>(), (long long)0,
                                                    n ? n * qr_cell_rows(n) : 1, (cudaStream_t)0));
    qr_gpu_index probe; /* plan_fixed sets its pointers (to nothing, with no base) */
    memset(&probe, 0, sizeof probe);
    *bytes = plan_fixed(&probe, &g, n, scan, NULL);
    return QR_OK;
}
