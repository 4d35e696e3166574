/* frame.h — one frame of GPU work: an index build and, optionally, work
 * queued behind it in the same CUDA graph (the renderer's kernels:
 * render/gpu/renderer.cu), with the stream, events, read-back and graph it
 * runs on. Internal; frame.cu drives it, and qr_gpu_index_build is a frame
 * with nothing behind its build.
 */
#ifndef QR_QUADTREE_FRAME_H
#define QR_QUADTREE_FRAME_H

#include "gpu/graph_cache.h"
#include "quadtree/gpu/index_gpu.h"

typedef struct qr_frame {
    /* A stream of our own, since the legacy default stream cannot be
     * captured into a graph. It is a blocking stream, so it stays ordered
     * with the scene's uploads and steps on the default stream without any
     * explicit synchronisation. */
    cudaStream_t stream;
    cudaEvent_t done;  /* the end of the last frame's work */
    int inflight;      /* the last frame returned before `done`: its work after
                          the build may still run */
    /* the build's scalars, written by its kernels into mapped host memory */
    qr_build_readback *rb, *rb_dev;
    qr_stage_events stages;
    /* timing of a frame with work after its build (qr_frame_after.timing):
     * the frame's start, and that work's start and end */
    cudaEvent_t start, after_start, after_end;
    qr_graph_cache graph;
    const int32_t *graph_lists; /* where the graph's build leaves the lists */
    int ran_graph;     /* the last frame ran as a graph */
} qr_frame;

qr_status qr_frame_init(qr_frame *f, qr_error *err);
/* Waits for the frame's work, then frees what it holds. */
void qr_frame_release(qr_frame *f);

/* What a frame builds: the index of `scene` for a width x height image
 * (region NULL = the whole image) whose lists feed a render in `mode`. */
typedef struct qr_frame_build {
    qr_gpu_index *ix;
    const qr_gpu_scene *scene;
    int32_t width, height;
    const qr_rect *region;
    const qr_index_params *params;
    qr_render_mode mode;
} qr_frame_build;

/* Queues the work behind the build on s, for the build `v` views (device
 * pointers; a build not checked yet: qr_index_view.capacity). `after_kernel`:
 * the last operation queued is a kernel, so the first may start early
 * behind it (gpu/pdl.h). Called directly or while s is captured into the
 * frame's graph: it must not allocate. */
typedef qr_status (*qr_frame_after_fn)(void *user, const qr_index_view *v, cudaStream_t s,
                                       int after_kernel, qr_error *err);

/* Most bytes of a qr_frame_after's key. */
#define QR_FRAME_AFTER_KEY_MAX 128

/* The work a frame queues behind its build. */
typedef struct qr_frame_after {
    qr_frame_after_fn enqueue; /* NULL: the build alone */
    void *user;
    /* Everything enqueue's launches bake in besides the view: key_len bytes
     * (at most QR_FRAME_AFTER_KEY_MAX, padding zeroed), part of the key of
     * the frame's graph with enqueue and timing. */
    const void *key;
    size_t key_len;
    /* events around the work: the frame's start and the work's end from
     * QR_TIMING_FRAME, the work's start from QR_TIMING_TOTALS (read them
     * with qr_frame_after_times) */
    qr_timing timing;
} qr_frame_after;

/* Runs one frame on f: plans the build, queues it and `after` (NULL: none)
 * as one graph (replayed while nothing they bake in changes), checks the
 * build once its read-back lands, and builds (and queues `after`) again,
 * sized, when its lists overflowed; accepts the build into the index.
 * Returns once the build is checked: the work after it may still run
 * (timed frames wait for it). f's graph is one frame's: a frame run with
 * another key replaces it. */
qr_status qr_frame_run(qr_frame *f, const qr_frame_build *b, const qr_frame_after *after,
                       qr_error *err);

/* The last frame's time from its start to its `after` work's end, and that
 * work's own (0 below QR_TIMING_TOTALS), in milliseconds. */
qr_status qr_frame_after_times(qr_frame *f, qr_timing timing, float *frame_ms, float *after_ms,
                               qr_error *err);

#endif
