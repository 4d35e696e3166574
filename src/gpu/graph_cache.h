/* graph_cache.h — queue a chain of launches as one CUDA graph, captured once
 * and replayed while nothing its launches bake in changes.
 *
 * A frame is a chain of a dozen short kernels (CUB's included); launched one
 * by one, small scenes wait on the host's launch latency more than on the
 * GPU. The cache captures the caller's enqueue function into a graph, keyed
 * by the bytes the caller says its launches depend on (kernels, pointers,
 * sizes, parameters). The same key replays the graph; a new key recaptures
 * it and updates the executable graph in place when the shape is the same
 * (cheaper than instantiating). A CUDA that cannot capture falls back to
 * direct launches, for good.
 *
 *   qr_graph_cache gc = {0};                 // enabled by default
 *   qr_graph_run(&gc, &key, sizeof key, enqueue, user, stream, busy, &how, &err);
 *   ...
 *   qr_graph_cache_release(&gc);
 */
#ifndef QR_GRAPH_CACHE_H
#define QR_GRAPH_CACHE_H

#include <cuda_runtime.h>
#include <stddef.h>
#include "quadrender/error.h"

#define QR_GRAPH_KEY_MAX 512

/* Queues the work on s. `capturing`: s is being captured, so events must be
 * recorded with cudaEventRecordExternal and nothing may be allocated. */
typedef qr_status (*qr_enqueue_fn)(void *user, cudaStream_t s, int capturing, qr_error *err);

typedef struct qr_graph_cache {
    int disabled;          /* direct launches only (for comparison) */
    int failed;            /* a capture failed: direct launches from then on */
    cudaGraphExec_t exec;
    cudaGraph_t src;       /* what exec was made from */
    size_t key_len;        /* 0: no valid graph */
    unsigned char key[QR_GRAPH_KEY_MAX];
} qr_graph_cache;

/* How qr_graph_run queued the work. */
typedef enum qr_graph_how {
    QR_GRAPH_DIRECT = 0,   /* launches, one by one */
    QR_GRAPH_CAPTURED = 1, /* captured now (enqueue ran under capture), then launched */
    QR_GRAPH_REPLAYED = 2  /* the cached graph launched; enqueue did not run */
} qr_graph_how;

/* Queues enqueue(user, ...) on s: as the cached graph when `key` (key_len
 * bytes, padding zeroed) matches, else captured anew, else directly.
 * `busy`: an event that ends the last launch of this graph (or NULL); it is
 * waited for before the executable graph changes. */
qr_status qr_graph_run(qr_graph_cache *gc, const void *key, size_t key_len, qr_enqueue_fn enqueue,
                       void *user, cudaStream_t s, cudaEvent_t busy, qr_graph_how *how,
                       qr_error *err);

/* Frees the graph; the cache can be used again. */
void qr_graph_cache_release(qr_graph_cache *gc);

#endif
