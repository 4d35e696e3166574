/* quadtree_build.cu — orchestration of the GPU quadtree build: memory plan,
 * stage launches and the CUDA graph that replays them, the one scalar
 * read-back, timing. Kernels live in
 * quadtree_kernels.cu; the stages are described in quadtree_gpu.h.
 *
 * Memory: buffers that scale with the circle count and the image are carved
 * from one allocation whose size is computed first; the pair buffers (which
 * scale with the number of (leaf, circle) pairs, known only once the tree is
 * decided) are a second allocation. Both are kept and only ever grown, so a
 * steady stream of frames allocates nothing.
 */
#include "quadtree/build_stages.h"
#include "quadtree/quadtree_geom.h"
#include "common/cuda_check.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <stdlib.h>
#include <string.h>

/* What the launches of an ahead build and its tail bake into its graph. */
struct build_key {
    qr_tree_geom geom;
    const float *x, *y, *r;
    int32_t n;
    void *fixed, *pairs;
    long long pair_cap, items;
    int bits, timing, single;
    qr_gpu_tail tail;
};

enum { EV_START, EV_BOXES, EV_TREE, EV_COUNT, EV_SCAN, EV_EMIT, EV_SORT, EV_END, EV_N };

struct qr_gpu_index {
    cudaStream_t stream;
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
    /* last build */
    qr_tree_geom geom;
    int32_t n;
    qr_build_scalars result;
    const int32_t *lists; /* vals[0] or vals[1], after the sort */
    int built;
    /* timing */
    qr_timing timing;
    cudaEvent_t ev[EV_N];
    qr_build_timing last_timing;
    /* a build under way (qr_gpu_index_start .. qr_gpu_index_finish) */
    int pending;
    int ahead;    /* the pending build publishes its read-back (rb->ready) */
    int inflight; /* finish returned before `done`: the frame's tail may still run */
    long long items;      /* pair slots the build emits and sorts (<= pair_cap) */
    long long last_pairs; /* pairs of the last finished build */
    cudaEvent_t done;
    qr_build_readback *rb, *rb_dev; /* mapped pinned host memory; its device address */
    const qr_gpu_scene *scene;
    int32_t width, height;
    int has_region;
    qr_rect region;
    qr_index_params params;
    /* the ahead build as a CUDA graph (see run_ahead) */
    int use_graph;    /* on by default */
    int graph_failed; /* a capture failed: direct launches from then on */
    int ran_graph;    /* the last build ran as a graph */
    int ran_single;   /* the last build: 1 the one-kernel single-leaf build, -1 that and then
                         the general one (the root split), 0 the general one */
    int last_single;  /* the last finished build was a single leaf */
    int capturing;
    qr_gpu_tail tail; /* queued behind every build (enqueue NULL: none) */
    cudaGraphExec_t graph;
    cudaGraph_t graph_src; /* what ix->graph was made from */
    build_key graph_key;
    const int32_t *graph_lists; /* where the graph's sort leaves the lists */
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
    ix->tile_leaf = (int32_t *)carve(&c, (size_t)g->tiles_x * g->tiles_y * sizeof(int32_t));
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

extern "C" qr_status qr_gpu_index_create(qr_gpu_index **out, qr_error *err)
{
    *out = NULL;
    qr_gpu_index *ix = (qr_gpu_index *)calloc(1, sizeof *ix);
    if (!ix) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    /* A stream of our own, since the legacy default stream cannot be
     * captured into a graph. It is a blocking stream, so it stays ordered
     * with the scene's uploads and steps on the default stream without any
     * explicit synchronisation. */
    ix->use_graph = 1;
    cudaError_t e = cudaStreamCreate(&ix->stream);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ix->done, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaHostAlloc((void **)&ix->rb, sizeof *ix->rb, cudaHostAllocMapped);
    if (e == cudaSuccess) e = cudaHostGetDevicePointer((void **)&ix->rb_dev, ix->rb, 0);
    for (int k = 0; k < EV_N && e == cudaSuccess; k++) e = cudaEventCreate(&ix->ev[k]);
    if (e != cudaSuccess) {
        qr_gpu_index_destroy(ix);
        return qr_fail(err, qr_cuda_status(e), "creating the GPU index: %s", cudaGetErrorString(e));
    }
    *out = ix;
    return QR_OK;
}

extern "C" void qr_gpu_index_destroy(qr_gpu_index *ix)
{
    if (!ix) return;
    if (ix->inflight || ix->pending) cudaEventSynchronize(ix->done);
    if (ix->graph) cudaGraphExecDestroy(ix->graph);
    if (ix->graph_src) cudaGraphDestroy(ix->graph_src);
    if (ix->stream) cudaStreamDestroy(ix->stream);
    cudaFree(ix->fixed);
    cudaFree(ix->pairs);
    for (int k = 0; k < EV_N; k++)
        if (ix->ev[k]) cudaEventDestroy(ix->ev[k]);
    if (ix->done) cudaEventDestroy(ix->done);
    cudaFreeHost(ix->rb);
    free(ix);
}

extern "C" void qr_gpu_index_set_timing(qr_gpu_index *ix, qr_timing level)
{
    ix->timing = level;
}

extern "C" void qr_gpu_index_set_graph(qr_gpu_index *ix, int on)
{
    ix->use_graph = on;
    ix->graph_failed = 0;
}

extern "C" int qr_gpu_index_uses_graph(const qr_gpu_index *ix)
{
    return ix->ran_graph;
}

cudaStream_t qr_gpu_index_stream(const qr_gpu_index *ix)
{
    return ix->stream;
}

extern "C" int qr_gpu_index_single_kernel(const qr_gpu_index *ix)
{
    return ix->ran_single;
}

extern "C" size_t qr_gpu_index_device_bytes(const qr_gpu_index *ix)
{
    return ix->fixed_bytes + ix->pairs_bytes;
}

/* Waits for the last frame's work to end (qr_gpu_index_finish returns once
 * the build is, while the tail may still run): before freeing buffers that
 * work uses, or changing the graph it runs in. */
static qr_status settle(qr_gpu_index *ix, qr_error *err)
{
    if (ix->inflight) QR_CUDA_TRY(err, cudaEventSynchronize(ix->done));
    ix->inflight = 0;
    return QR_OK;
}

static qr_status make_geom(int32_t width, int32_t height, const qr_rect *region,
                           const qr_index_params *params, qr_tree_geom *g, qr_error *err)
{
    qr_rect reg;
    qr_status st = qr_index_check_build(width, height, region, params, &reg, err);
    if (st) return st;
    memset(g, 0, sizeof *g);
    g->width = width;
    g->height = height;
    g->region = reg;
    g->params = *params;
    g->root = qr_root_size(reg, params->min_leaf);
    g->cell = params->min_leaf;
    int w = reg.x1 - reg.x0, h = reg.y1 - reg.y0;
    g->gx = (w + g->cell - 1) / g->cell;
    g->gy = (h + g->cell - 1) / g->cell;
    g->tiles_x = (w + QR_TILE - 1) / QR_TILE;
    g->tiles_y = (h + QR_TILE - 1) / QR_TILE;
    g->max_nodes = qr_tree_max_nodes(g);
    return QR_OK;
}

/* Makes sure the fixed buffers fit n circles and geometry g. */
static qr_status ensure_fixed(qr_gpu_index *ix, const qr_tree_geom *g, int32_t n, qr_error *err)
{
    /* CUB's size query depends only on n; asked once per n, since a frame
     * of a small scene is short enough for host time to show */
    if (!ix->scan_sized || ix->scan_n != n) {
        size_t bytes = 0;
        QR_CUDA_TRY(err, cub::DeviceScan::ExclusiveScan(NULL, bytes, (const uint32_t *)NULL,
                                                        (long long *)NULL, cuda::std::plus<long long>(),
                                                        (long long)0, n ? n * qr_cell_rows(n) : 1,
                                                        ix->stream));
        ix->scan_bytes_for_n = bytes;
        ix->scan_n = n;
        ix->scan_sized = 1;
    }
    const size_t scan_bytes = ix->scan_bytes_for_n;
    size_t need = plan_fixed(ix, g, n, scan_bytes, NULL);
    if (need > ix->fixed_bytes) {
        qr_status st = settle(ix, err);
        if (st) return st;
        cudaFree(ix->fixed);
        ix->fixed = NULL;
        ix->fixed_bytes = 0;
        st = dev_alloc(&ix->fixed, need, "per-circle and tree buffers", err);
        if (st) return st;
        ix->fixed_bytes = need;
    }
    plan_fixed(ix, g, n, scan_bytes, (char *)ix->fixed);
    return QR_OK;
}

static qr_status ensure_pairs(qr_gpu_index *ix, long long pairs, qr_error *err)
{
    if (pairs <= ix->pair_cap && ix->pairs) return QR_OK;
    qr_status st = settle(ix, err);
    if (st) return st;
    long long cap = pairs + pairs / 4 + 1024;
    size_t sort_bytes = 0;
    size_t bytes16 = 0;
    cub::DoubleBuffer<int32_t> k(NULL, NULL), v(NULL, NULL);
    cub::DoubleBuffer<uint16_t> k16(NULL, NULL);
    QR_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, k, v, cap, 0, 32,
                                                     ix->stream));
    QR_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(NULL, bytes16, k16, v, cap, 0, 16, ix->stream));
    if (bytes16 > sort_bytes) sort_bytes = bytes16;
    size_t need = plan_pairs(ix, cap, sort_bytes, NULL);
    cudaFree(ix->pairs);
    ix->pairs = NULL;
    ix->pairs_bytes = 0;
    ix->pair_cap = 0;
    st = dev_alloc(&ix->pairs, need, "the per-leaf circle lists", err);
    if (st) return st;
    ix->pairs_bytes = need;
    ix->pair_cap = cap;
    plan_pairs(ix, cap, sort_bytes, (char *)ix->pairs);
    return QR_OK;
}

/* Stage events; inside a capture they become event nodes of the graph. */
#define REC(k)                                                                                  \
    do {                                                                                        \
        if (ix->timing == QR_TIMING_STAGES ||                                                   \
            (ix->timing >= QR_TIMING_TOTALS && ((k) == EV_START || (k) == EV_END)))             \
            QR_CUDA_TRY(err, cudaEventRecordWithFlags(ix->ev[k], ix->stream,                    \
                                                      ix->capturing ? cudaEventRecordExternal   \
                                                                    : cudaEventRecordDefault)); \
    } while (0)

/* Whether the stages' kernels may start early behind one another
 * (common/pdl.h): not when stage events lie between them. */
static int stage_pdl(const qr_gpu_index *ix)
{
    return ix->timing != QR_TIMING_STAGES;
}

/* Whether an ahead build over n circles counts and scans inside its emit
 * (qr_launch_count_emit). */
static int fused_emit(int32_t n)
{
    return qr_count_emit_tiles(n) <= QR_CE_MAX_TILES;
}

/* Stages up to the pair slots: boxes, tree, and the count and the scan
 * (unless `fused`: the emit does them). */
static qr_status launch_front(qr_gpu_index *ix, const qr_gpu_scene *scene, const qr_tree_geom *g,
                              int fused, qr_error *err)
{
    cudaStream_t s = ix->stream;
    const int32_t n = scene->n;
    REC(EV_START);
    const size_t hist_bytes = qr_hist_words(g) * sizeof(uint32_t);
    QR_CUDA_TRY(err, cudaMemsetAsync(ix->scalars, 0, (char *)ix->hist + hist_bytes - (char *)ix->scalars, s));
    qr_boxes_args ba = {};
    ba.scene = scene;
    ba.geom = g;
    ba.boxes = ix->boxes;
    ba.hist = ix->hist;
    ba.scalars = ix->scalars;
    QR_CUDA_TRY(err, qr_launch_boxes(&ba, s));
    REC(EV_BOXES);
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
    ta.scalars = ix->scalars;
    QR_CUDA_TRY(err, qr_launch_tree(&ta, s, stage_pdl(ix) && n > 0));
    REC(EV_TREE);
    if (!fused) {
        qr_count_args ca = {};
        ca.n = n;
        ca.geom = g;
        ca.boxes = ix->boxes;
        ca.tile_leaf = ix->tile_leaf;
        ca.leaves = ix->leaves;
        ca.counts = ix->counts;
        QR_CUDA_TRY(err, qr_launch_count(&ca, s, stage_pdl(ix)));
    }
    REC(EV_COUNT);
    if (!fused && n > 0) {
        size_t bytes = ix->scan_tmp_bytes;
        QR_CUDA_TRY(err, cub::DeviceScan::ExclusiveScan(ix->scan_tmp, bytes, ix->counts, ix->offsets,
                                                        cuda::std::plus<long long>(), (long long)0,
                                                        n * qr_cell_rows(n), s));
    }
    REC(EV_SCAN);
    return QR_OK;
}

/* The scalars, and the scan's total as a consistency check, written by one
 * small kernel straight into mapped host memory: a kernel node is cheaper in
 * a graph than copy-engine transfers. */
static qr_status launch_readback(qr_gpu_index *ix, int32_t n, qr_error *err)
{
    const size_t last = n > 0 ? (size_t)n * qr_cell_rows(n) - 1 : 0;
    qr_readback_args ra = {};
    ra.scalars = ix->scalars;
    ra.last_offset = n > 0 ? ix->offsets + last : NULL;
    ra.last_count = ix->counts + last;
    ra.out = ix->rb_dev;
    QR_CUDA_TRY(err, qr_launch_readback(&ra, ix->stream));
    return QR_OK;
}

/* Whether the lists stage of `items` slots over leaf numbers of `bits` bits
 * is leaf_lists.cu's one pass (else CUB's radix sort). */
static int own_lists(long long items, int bits)
{
    return bits >= 1 && bits <= QR_LISTS_MAX_BITS && items < QR_LISTS_MAX_ITEMS;
}

/* Stages from the pairs on: emit `items` slots (the exact count; or, ahead,
 * more, the read-back written by the emit kernel itself, which also counts
 * and scans when fused_emit) and turn the pairs into the leaves' lists by
 * their `bits` key bits. */
static qr_status launch_back(qr_gpu_index *ix, const qr_tree_geom *g, int32_t n, long long items,
                             int ahead, int bits, qr_error *err)
{
    cudaStream_t s = ix->stream;
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
    ea.n = n;
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
    ea.vals = ix->vals[0];
    ea.zero = zero;
    ea.zero_words = zero_words;
    ea.scalars = ix->scalars;
    ea.rb = ahead ? ix->rb_dev : NULL;
    if (ahead && fused_emit(n))
        QR_CUDA_TRY(err, qr_launch_count_emit(&ea, s, stage_pdl(ix)));
    else
        QR_CUDA_TRY(err, qr_launch_emit(&ea, s, stage_pdl(ix)));
    REC(EV_EMIT);
    ix->lists = ix->vals[0];
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
        QR_CUDA_TRY(err, qr_launch_lists(&la, s, stage_pdl(ix)));
        ix->lists = ix->vals[1];
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
        ix->lists = v.Current();
    }
    REC(EV_SORT);
    return QR_OK;
}

/* Checks the read-back of a finished build. */
static qr_status check_readback(const qr_gpu_index *ix, const qr_tree_geom *g, int32_t n, qr_error *err)
{
    const qr_build_scalars *r = &ix->rb->scalars;
    if (r->overflow)
        return qr_fail(err, QR_ERR_CUDA, "internal error: the quadtree outgrew its %d-node bound",
                       g->max_nodes);
    const long long total = ix->rb->total;
    if (total != r->num_pairs)
        return qr_fail(err, QR_ERR_CUDA,
                       "internal error: the tree holds %lld pairs but the circles emit %lld",
                       r->num_pairs, total);
    return QR_OK;
}

/* The build of a tree that is one leaf, as one kernel (qr_launch_single_leaf).
 * Its stage events all fall after that kernel, so its time shows as boxes. */
static qr_status launch_single(qr_gpu_index *ix, const qr_gpu_scene *scene, const qr_tree_geom *g,
                               qr_error *err)
{
    REC(EV_START);
    qr_single_leaf_args sa = {};
    sa.scene = scene;
    sa.geom = g;
    sa.items = ix->items;
    sa.vals = ix->vals[0];
    sa.leaves = ix->leaves;
    sa.tile_leaf = ix->tile_leaf;
    sa.scalars = ix->scalars;
    sa.rb = ix->rb_dev;
    QR_CUDA_TRY(err, qr_launch_single_leaf(&sa, ix->stream));
    for (int k = EV_BOXES; k <= EV_END; k++) REC(k);
    ix->lists = ix->vals[0];
    return QR_OK;
}

/* What runs behind every build (qr_gpu_tail). After a timed build the last
 * operation queued is its end event, not a kernel. */
static qr_status enqueue_tail(qr_gpu_index *ix, qr_error *err)
{
    if (!ix->tail.enqueue) return QR_OK;
    return ix->tail.enqueue(ix->tail.user, ix->stream, ix->capturing,
                            ix->timing < QR_TIMING_TOTALS, err);
}

/* Every stage of an ahead build (or the one-kernel build), then the tail,
 * queued on the index's stream. */
static qr_status enqueue_ahead(qr_gpu_index *ix, const qr_gpu_scene *scene, const qr_tree_geom *g,
                               int bits, int single, qr_error *err)
{
    qr_status st;
    if (single) {
        st = launch_single(ix, scene, g, err);
    } else {
        st = launch_front(ix, scene, g, fused_emit(scene->n), err);
        if (!st) st = launch_back(ix, g, scene->n, ix->items, 1, bits, err);
        if (!st) REC(EV_END);
    }
    return st ? st : enqueue_tail(ix, err);
}

/* Whether two captured graphs have the same nodes in the same order (by
 * type): only then can an executable graph of one be updated to the other
 * (a frame's tail of one render kernel or of two, a timing change, a sort
 * of a different kind all change the shape). Asking cudaGraphExecUpdate
 * instead would answer the same, as an error. */
static int same_shape(cudaGraph_t a, cudaGraph_t b)
{
    size_t na = 0, nb = 0;
    if (!a || !b || cudaGraphGetNodes(a, NULL, &na) != cudaSuccess ||
        cudaGraphGetNodes(b, NULL, &nb) != cudaSuccess || na != nb)
        return 0;
    cudaGraphNode_t *nodes = (cudaGraphNode_t *)malloc(2 * na * sizeof *nodes);
    int same = nodes && cudaGraphGetNodes(a, nodes, &na) == cudaSuccess &&
               cudaGraphGetNodes(b, nodes + na, &nb) == cudaSuccess;
    for (size_t k = 0; same && k < na; k++) {
        cudaGraphNodeType ta, tb;
        same = cudaGraphNodeGetType(nodes[k], &ta) == cudaSuccess &&
               cudaGraphNodeGetType(nodes[na + k], &tb) == cudaSuccess && ta == tb;
    }
    free(nodes);
    return same;
}

/* Captures enqueue_ahead into a graph and makes ix->graph run it (updating
 * the executable graph in place when only parameters changed). Any failure
 * leaves the stream out of capture and returns non-zero; the caller then
 * queues the stages directly. */
static int capture_ahead(qr_gpu_index *ix, const qr_gpu_scene *scene, const qr_tree_geom *g, int bits,
                         int single)
{
    qr_error scratch;
    cudaGraph_t graph = NULL;
    if (cudaStreamBeginCapture(ix->stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        cudaGetLastError();
        return 1;
    }
    ix->capturing = 1;
    qr_status st = enqueue_ahead(ix, scene, g, bits, single, &scratch);
    ix->capturing = 0;
    cudaError_t e = cudaStreamEndCapture(ix->stream, &graph);
    if (st || e != cudaSuccess) {
        if (graph) cudaGraphDestroy(graph);
        cudaGetLastError();
        return 1;
    }
    /* the executable graph may still be running the last frame */
    if (settle(ix, &scratch)) {
        cudaGraphDestroy(graph);
        return 1;
    }
    cudaGraphExecUpdateResultInfo info;
    if (!ix->graph || !same_shape(ix->graph_src, graph) ||
        cudaGraphExecUpdate(ix->graph, graph, &info) != cudaSuccess) {
        cudaGetLastError();
        if (ix->graph) cudaGraphExecDestroy(ix->graph);
        ix->graph = NULL;
        e = cudaGraphInstantiate(&ix->graph, graph, 0);
        if (e != cudaSuccess) {
            cudaGetLastError();
            ix->graph = NULL;
        }
    }
    if (ix->graph_src) cudaGraphDestroy(ix->graph_src);
    ix->graph_src = graph;
    return ix->graph == NULL;
}

/* Queues an ahead build and its tail. A frame is a chain of a dozen short
 * kernels, CUB's included; launched one by one, small scenes wait on the
 * host's launch latency more than on the GPU. So the chain, the tail's
 * kernels included, is captured once into a CUDA graph and relaunched whole
 * while nothing that the launches bake in changes (geometry, buffers, item
 * count, sort bits, which build, the tail: graph_key); a change recaptures
 * and updates the graph in place. The scene's data is read when the graph
 * runs, so animation does not invalidate it. `single`: the one-kernel build
 * of a tree that is one leaf. */
static qr_status run_ahead(qr_gpu_index *ix, const qr_gpu_scene *scene, const qr_tree_geom *g,
                           int bits, int single, qr_error *err)
{
    build_key k;
    memset(&k, 0, sizeof k); /* padding too: keys are compared bytewise */
    k.geom = *g;
    k.x = scene->x;
    k.y = scene->y;
    k.r = scene->r;
    k.n = scene->n;
    k.fixed = ix->fixed;
    k.pairs = ix->pairs;
    k.pair_cap = ix->pair_cap;
    k.items = ix->items;
    k.bits = bits;
    k.timing = (int)ix->timing;
    k.single = single;
    k.tail = ix->tail;
    if (ix->use_graph && !ix->graph_failed) {
        int ready = ix->graph && memcmp(&k, &ix->graph_key, sizeof k) == 0;
        if (!ready) {
            memset(&ix->graph_key, 0, sizeof ix->graph_key);
            if (capture_ahead(ix, scene, g, bits, single) == 0) {
                ix->graph_key = k;
                ix->graph_lists = ix->lists;
                ready = 1;
            } else {
                ix->graph_failed = 1; /* this CUDA cannot capture it: stay direct */
            }
        }
        if (ready) {
            /* the graph's view of the lists is the capture's (same buffers and
             * sort bits give the same buffer) */
            QR_CUDA_TRY(err, cudaGraphLaunch(ix->graph, ix->stream));
            ix->lists = ix->graph_lists;
            ix->ran_graph = 1;
            return QR_OK;
        }
    }
    return enqueue_ahead(ix, scene, g, bits, single, err);
}

/* Pair slots an ahead build emits and sorts: about as many as the last build
 * had, a sixteenth more (every slot is sorted, so the margin is small; a
 * build that outgrows it is redone). Kept while the pairs drift only a little,
 * so that an animated scene does not change the graph every frame. */
static long long ahead_items(const qr_gpu_index *ix)
{
    const long long p = ix->last_pairs;
    long long items = ix->items;
    if (!(items >= p + p / 32 + 256 && items <= p + p / 8 + 2048)) items = p + p / 16 + 1024;
    return items < ix->pair_cap ? items : ix->pair_cap;
}

/* Two ways to build. Exact: read the pair count back between the scan and
 * the emit, size the lists to it and sort exactly those pairs — a host round
 * trip in the middle of the build, during which the GPU waits. Ahead: once
 * the lists have buffers, expect about as many pairs as the last build had
 * (ahead_items), emit into that many slots, pad the unused tail with keys
 * that sort after every leaf, sort them, and check afterwards
 * (qr_gpu_index_finish) that the pairs fit; if not, build again exactly.
 * Leaves never outnumber the min_leaf cells, so their key bits are known
 * before the tree is. */
static qr_status start_build(qr_gpu_index *ix, const qr_gpu_scene *scene, int32_t width,
                             int32_t height, const qr_rect *region, const qr_index_params *params,
                             int exact_sizing, qr_error *err)
{
    if (ix->pending) /* an unchecked build: let it finish before reusing its buffers */
        QR_CUDA_TRY(err, cudaEventSynchronize(ix->done));
    ix->built = 0;
    ix->pending = 0;
    ix->ahead = 0;
    ix->ran_graph = 0;
    ix->ran_single = 0;
    qr_tree_geom g;
    qr_status st = make_geom(width, height, region, params, &g, err);
    if (st) return st;
    st = ensure_fixed(ix, &g, scene->n, err);
    if (st) return st;
    const int32_t n = scene->n;
    ix->geom = g;
    ix->n = n;
    if (!exact_sizing && ix->pairs) {
        ix->items = ahead_items(ix);
        /* a scene whose last tree was one leaf likely stays one: try the
         * one-kernel build (it reports when it was wrong, and the build is
         * then redone the general way) */
        const int single = ix->last_single && n <= QR_SINGLE_MAX_CIRCLES;
        ix->rb->ready = 0; /* no kernel still to come sets it: the last build's was awaited */
        ix->ahead = 1;
        st = run_ahead(ix, scene, &g, single ? 0 : qr_key_bits((long long)g.gx * g.gy), single, err);
        if (st) return st;
        ix->ran_single = single;
        QR_CUDA_TRY(err, cudaEventRecord(ix->done, ix->stream));
        ix->pending = 1;
        return QR_OK;
    }
    st = launch_front(ix, scene, &g, 0, err);
    if (st) return st;
    st = launch_readback(ix, n, err);
    if (st) return st;
    QR_CUDA_TRY(err, cudaStreamSynchronize(ix->stream));
    ix->inflight = 0;
    st = check_readback(ix, &g, n, err);
    if (st) return st;
    const long long pairs = ix->rb->scalars.num_pairs;
    st = ensure_pairs(ix, pairs, err);
    if (st) return st;
    ix->items = pairs;
    st = launch_back(ix, &g, n, pairs, 0, qr_key_bits(ix->rb->scalars.num_leaves), err);
    if (st) return st;
    REC(EV_END);
    st = enqueue_tail(ix, err);
    if (st) return st;
    QR_CUDA_TRY(err, cudaEventRecord(ix->done, ix->stream));
    ix->pending = 1;
    return QR_OK;
}

static qr_status read_timing(qr_gpu_index *ix, qr_error *err)
{
    if (ix->timing < QR_TIMING_TOTALS) return QR_OK;
    qr_build_timing *t = &ix->last_timing;
    memset(t, 0, sizeof *t);
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->total_ms, ix->ev[EV_START], ix->ev[EV_END]));
    if (ix->timing != QR_TIMING_STAGES) return QR_OK;
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->boxes_ms, ix->ev[EV_START], ix->ev[EV_BOXES]));
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->tree_ms, ix->ev[EV_BOXES], ix->ev[EV_TREE]));
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->count_ms, ix->ev[EV_TREE], ix->ev[EV_COUNT]));
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->scan_ms, ix->ev[EV_COUNT], ix->ev[EV_SCAN]));
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->emit_ms, ix->ev[EV_SCAN], ix->ev[EV_EMIT]));
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->sort_ms, ix->ev[EV_EMIT], ix->ev[EV_SORT]));
    return QR_OK;
}

qr_status qr_gpu_index_start(qr_gpu_index *ix, const qr_gpu_scene *scene, int32_t width,
                             int32_t height, const qr_rect *region, const qr_index_params *params,
                             const qr_gpu_tail *tail, qr_error *err)
{
    if (tail)
        ix->tail = *tail;
    else
        memset(&ix->tail, 0, sizeof ix->tail);
    ix->scene = scene;
    ix->width = width;
    ix->height = height;
    ix->has_region = region != NULL;
    if (region) ix->region = *region;
    ix->params = *params;
    return start_build(ix, scene, width, height, region, params, 0, err);
}

/* Waits for the pending build's read-back. An ahead build's kernel publishes
 * it (rb->ready) before the sort and the tail have run: waiting for that
 * instead of for `done` (the end of the frame) lets the caller queue its
 * next frame while this one's render still runs, so back-to-back frames do
 * not pay the host's launch latency. Timed builds wait for their events. */
static qr_status await_build(qr_gpu_index *ix, qr_error *err)
{
    if (ix->ahead && ix->timing < QR_TIMING_TOTALS) {
        const volatile uint32_t *ready = &ix->rb->ready;
        for (;;) {
            for (int spin = 0; spin < 256 && !*ready; spin++) {
            }
            if (*ready) break;
            const cudaError_t e = cudaEventQuery(ix->done);
            if (e == cudaSuccess) {
                if (!*ready)
                    return qr_fail(err, QR_ERR_CUDA, "internal error: a build ended without its read-back");
                break;
            }
            if (e != cudaErrorNotReady) QR_CUDA_TRY(err, e);
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE); /* the read-back after the flag */
        ix->inflight = 1;
        return QR_OK;
    }
    QR_CUDA_TRY(err, cudaEventSynchronize(ix->done));
    ix->inflight = 0;
    return QR_OK;
}

qr_status qr_gpu_index_finish(qr_gpu_index *ix, int *rebuilt, qr_error *err)
{
    *rebuilt = 0;
    if (!ix->pending) return qr_fail(err, QR_ERR_INVALID, "no GPU index build under way");
    qr_status st = await_build(ix, err);
    if (st) return st;
    ix->pending = 0;
    st = check_readback(ix, &ix->geom, ix->n, err);
    if (st) return st;
    if (ix->rb->scalars.num_pairs > ix->items || ix->rb->scalars.bad_emit) {
        /* the lists outgrew their buffers (or a single-leaf build found
         * the root splitting): build again, the general way, sized exactly */
        const int tried_single = ix->ran_single;
        st = start_build(ix, ix->scene, ix->width, ix->height, ix->has_region ? &ix->region : NULL,
                         &ix->params, 1, err);
        if (st) return st;
        QR_CUDA_TRY(err, cudaEventSynchronize(ix->done));
        ix->pending = 0;
        *rebuilt = 1;
        if (tried_single) ix->ran_single = -1;
    }
    ix->result = ix->rb->scalars;
    ix->last_pairs = ix->result.num_pairs;
    ix->last_single = ix->result.num_leaves == 1;
    st = read_timing(ix, err);
    if (st) return st;
    ix->built = 1;
    return QR_OK;
}

extern "C" qr_status qr_gpu_index_build(qr_gpu_index *ix, const qr_gpu_scene *scene, int32_t width,
                                        int32_t height, const qr_rect *region,
                                        const qr_index_params *params, qr_error *err)
{
    int rebuilt;
    qr_status st = qr_gpu_index_start(ix, scene, width, height, region, params, NULL, err);
    return st ? st : qr_gpu_index_finish(ix, &rebuilt, err);
}

extern "C" qr_status qr_gpu_index_timing(const qr_gpu_index *ix, qr_build_timing *t, qr_error *err)
{
    if (ix->timing < QR_TIMING_TOTALS || !ix->built)
        return qr_fail(err, QR_ERR_INVALID, "no timed build yet (enable timing before building)");
    *t = ix->last_timing;
    return QR_OK;
}

qr_index_view qr_gpu_index_view(const qr_gpu_index *ix)
{
    qr_index_view v;
    v.geom = ix->geom;
    v.leaves = ix->leaves;
    v.lists = ix->lists;
    v.tile_leaf = ix->tile_leaf;
    v.num_leaves = ix->result.num_leaves;
    v.num_pairs = ix->result.num_pairs;
    v.scalars = ix->scalars;
    v.capacity = ix->items;
    return v;
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
        qr_index_free(h);
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
    qr_index_free(h);
    return st;
}
