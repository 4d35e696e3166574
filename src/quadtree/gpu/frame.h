/* frame.h — what a frame runs on: its stream, events, read-back and graph
 * (internal; frame.cu drives builds and renders with it).
 */
#ifndef QR_RENDER_FRAME_H
#define QR_RENDER_FRAME_H

#include "gpu/graph_cache.h"
#include "quadtree/gpu/index_gpu.h"

typedef struct qr_frame {
    /* A stream of our own, since the legacy default stream cannot be
     * captured into a graph. It is a blocking stream, so it stays ordered
     * with the scene's uploads and steps on the default stream without any
     * explicit synchronisation. */
    cudaStream_t stream;
    cudaEvent_t done;  /* the end of the last frame's work */
    int inflight;      /* the last frame returned before `done`: its render may still run */
    /* the build's scalars, written by its kernels into mapped host memory */
    qr_build_readback *rb, *rb_dev;
    qr_stage_events stages;
    cudaEvent_t start, render_start, render_end; /* renderer timing */
    qr_graph_cache graph;
    const int32_t *graph_lists; /* where the graph's build leaves the lists */
    int ran_graph;     /* the last frame ran as a graph */
} qr_frame;

qr_status qr_frame_init(qr_frame *f, qr_error *err);
/* Waits for the frame's work, then frees what it holds. */
void qr_frame_release(qr_frame *f);

#endif
