/* index_gpu.h — the GPU index as the frame drives it (src/quadtree/gpu/frame.cu).
 *
 * The index owns its device buffers and the result of its last build; it
 * queues its stages on a stream it is given and never waits on the GPU
 * itself. A build is planned on the host (geometry, buffers, how many pair
 * slots), queued, and accepted once its read-back has landed:
 *
 *   ahead  the usual case, once the lists have buffers: expect about as
 *          many pairs as the last build had (plan.items), queue every stage
 *          at once (qr_gpu_index_enqueue), and check afterwards that the
 *          pairs fit; if they did not, the frame builds again, sized.
 *   sized  the first build, and a redo: queue the stages up to the pair
 *          count (qr_gpu_index_enqueue_front), wait for its read-back, size
 *          the lists to it (qr_gpu_index_size_pairs), queue the rest
 *          (qr_gpu_index_enqueue_back).
 * Leaves never outnumber the min_leaf cells, so an ahead build knows its
 * sort's key bits before the tree is built.
 */
#ifndef QR_INDEX_GPU_H
#define QR_INDEX_GPU_H

#include "quadtree/gpu/build_stages.h"

/* A build's stage events (QR_TIMING_TOTALS records the first and last,
 * QR_TIMING_STAGES all). Owned by the frame; the index records them. */
enum { QR_EV_START, QR_EV_BOXES, QR_EV_TREE, QR_EV_COUNT, QR_EV_SCAN, QR_EV_EMIT, QR_EV_SORT,
       QR_EV_END, QR_EV_N };
typedef struct qr_stage_events {
    cudaEvent_t ev[QR_EV_N];
    qr_timing level;
    unsigned flags; /* cudaEventRecordExternal while the stream is captured */
} qr_stage_events;

/* What a build will do, decided before anything is queued. Together with
 * the render's plan it is the key of the frame's graph: everything the
 * launches bake in (so it is zeroed, padding included, before it is set). */
typedef struct qr_build_plan {
    qr_tree_geom geom;
    const float *x, *y, *r; /* the scene's device arrays */
    int32_t n;
    void *fixed, *pairs;    /* the index's two allocations */
    long long pair_cap;
    long long items;        /* pair slots emitted and turned into lists */
    int bits;               /* key bits of the leaf numbers (0: no sort) */
    int ahead;              /* see above; else sized */
    int single;             /* ahead, as the one-kernel build of a one-leaf tree */
    int timing;             /* qr_timing of the stage events */
    int big_boxes;          /* the pairs kernels that walk big boxes by warps: the last
                               build had a box of more than QR_WARP_CELLS cells */
} qr_build_plan;

/* Plans a build of `scene` for a width x height image (region NULL = the
 * whole image) whose lists feed a render in `mode`, growing the fixed buffers when needed (waiting first for
 * `busy`, the end of the work that may still use them, when not NULL).
 * `sized`: plan a sized build even when an ahead one could run. */
qr_status qr_gpu_index_plan(qr_gpu_index *ix, const qr_gpu_scene *scene, int32_t width,
                            int32_t height, const qr_rect *region, const qr_index_params *params,
                            qr_render_mode mode, int sized, cudaEvent_t busy, qr_build_plan *plan,
                            qr_error *err);

/* An ahead build: every stage (or the one-kernel build), ending with its
 * read-back written to rb (device address of mapped host memory) and
 * rb->ready set. *lists: where the lists will be. */
qr_status qr_gpu_index_enqueue(qr_gpu_index *ix, const qr_gpu_scene *scene, const qr_build_plan *p,
                               cudaStream_t s, const qr_stage_events *ev, qr_build_readback *rb,
                               const int32_t **lists, qr_error *err);

/* A sized build in two halves around the host's read of rb. */
qr_status qr_gpu_index_enqueue_front(qr_gpu_index *ix, const qr_gpu_scene *scene,
                                     const qr_build_plan *p, cudaStream_t s,
                                     const qr_stage_events *ev, qr_build_readback *rb,
                                     qr_error *err);
/* Sizes the lists to rb's pair count (the stream is idle) and sets the
 * plan's items and bits. */
qr_status qr_gpu_index_size_pairs(qr_gpu_index *ix, qr_build_plan *p, const qr_build_readback *rb,
                                  qr_error *err);
qr_status qr_gpu_index_enqueue_back(qr_gpu_index *ix, const qr_build_plan *p, cudaStream_t s,
                                    const qr_stage_events *ev, const int32_t **lists, qr_error *err);

/* Whether a landed read-back is consistent (an error if not: a bug). */
qr_status qr_gpu_index_check(const qr_build_plan *p, const qr_build_readback *rb, qr_error *err);

/* Whether the build's pairs fit its slots and its cells were fine enough
 * (else it must be redone, sized). */
int qr_gpu_index_fits(const qr_build_plan *p, const qr_build_readback *rb);

/* Whether the build's cells were too coarse for a node it should have
 * split (qr_build_scalars.deep_cut): the index then plans finer ones. */
int qr_gpu_index_cut(qr_gpu_index *ix, const qr_build_plan *p, const qr_build_readback *rb);

/* Makes a checked, fitting build the index's last build. `how_single`: 1
 * the one-kernel build, -1 that and then the general one, 0 the general. */
void qr_gpu_index_accept(qr_gpu_index *ix, const qr_build_plan *p, const qr_build_readback *rb,
                         const int32_t *lists, int how_single, const qr_build_timing *timing);

/* The last accepted build's shape, from the host's copy of its scalars:
 * leaves, nodes, deepest level and pairs (what a plan compares to skip a
 * candidate whose tree came out as an earlier one's). */
void qr_gpu_index_shape(const qr_gpu_index *ix, long long shape[4]);

/* What the render kernels read of a queued build (device pointers). */
qr_index_view qr_gpu_index_view(const qr_gpu_index *ix, const qr_build_plan *p,
                                const int32_t *lists);

/* The last accepted build as the render kernels see it (what other layers
 * read of a finished index: the query kernels), with its leaf and pair
 * counts. Only after qr_gpu_index_build or a checked frame. */
qr_index_view qr_gpu_index_last_view(const qr_gpu_index *ix, int32_t *num_leaves,
                                     long long *num_pairs);

/* The circles in at least one list of the last accepted build. */
int32_t qr_gpu_index_visible(const qr_gpu_index *ix);

/* Caps the device bytes the index's buffers may take (0: no cap): a build
 * that would need more fails with QR_ERR_GPU_NOMEM, allocating nothing. */
void qr_gpu_index_set_limit(qr_gpu_index *ix, size_t bytes);

/* The bytes of an index's per-circle and tree buffers for n circles over
 * this region (the pair buffers come on top). */
qr_status qr_gpu_index_fixed_bytes(int32_t n, int32_t width, int32_t height, const qr_rect *region,
                                   const qr_index_params *params, size_t *bytes, qr_error *err);

/* The index's timing level (qr_gpu_index_set_timing). */
qr_timing qr_gpu_index_timing_level(const qr_gpu_index *ix);

#endif
