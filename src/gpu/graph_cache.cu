/* graph_cache.cu — capture, replay and in-place update of one CUDA graph
 * (graph_cache.h). */
#include "gpu/graph_cache.h"
#include "gpu/cuda_check.h"

#include <stdlib.h>
#include <string.h>

/* Whether two captured graphs have the same nodes in the same order (by
 * type): only then can an executable graph of one be updated to the other
 * (one render kernel or two, a timing change, a sort of another kind all
 * change the shape). Asking cudaGraphExecUpdate instead answers the same,
 * as an error. */
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

/* Captures enqueue into a graph and makes gc->exec run it. Any failure
 * leaves the stream out of capture and returns non-zero; the caller then
 * queues the work directly. */
static int capture(qr_graph_cache *gc, qr_enqueue_fn enqueue, void *user, cudaStream_t s,
                   cudaEvent_t busy)
{
    qr_error scratch;
    cudaGraph_t graph = NULL;
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        cudaGetLastError();
        return 1;
    }
    qr_status st = enqueue(user, s, 1, &scratch);
    cudaError_t e = cudaStreamEndCapture(s, &graph);
    if (st || e != cudaSuccess) {
        if (graph) cudaGraphDestroy(graph);
        cudaGetLastError();
        return 1;
    }
    /* the executable graph may still be running the last launch */
    if (busy && cudaEventSynchronize(busy) != cudaSuccess) {
        cudaGraphDestroy(graph);
        return 1;
    }
    cudaGraphExecUpdateResultInfo info;
    if (!gc->exec || !same_shape(gc->src, graph) || cudaGraphExecUpdate(gc->exec, graph, &info) != cudaSuccess) {
        cudaGetLastError();
        if (gc->exec) cudaGraphExecDestroy(gc->exec);
        gc->exec = NULL;
        if (cudaGraphInstantiate(&gc->exec, graph, 0) != cudaSuccess) {
            cudaGetLastError();
            gc->exec = NULL;
        }
    }
    if (gc->src) cudaGraphDestroy(gc->src);
    gc->src = graph;
    return gc->exec == NULL;
}

qr_status qr_graph_run(qr_graph_cache *gc, const void *key, size_t key_len, qr_enqueue_fn enqueue,
                       void *user, cudaStream_t s, cudaEvent_t busy, qr_graph_how *how,
                       qr_error *err)
{
    *how = QR_GRAPH_DIRECT;
    if (key_len > QR_GRAPH_KEY_MAX)
        return qr_fail(err, QR_ERR_INVALID, "internal error: a graph key of %zu bytes", key_len);
    if (!gc->disabled && !gc->failed) {
        if (!(gc->key_len == key_len && memcmp(gc->key, key, key_len) == 0)) {
            gc->key_len = 0;
            if (capture(gc, enqueue, user, s, busy) != 0) {
                gc->failed = 1; /* this CUDA cannot capture it: stay direct */
                return enqueue(user, s, 0, err);
            }
            memcpy(gc->key, key, key_len);
            gc->key_len = key_len;
            *how = QR_GRAPH_CAPTURED;
        } else {
            *how = QR_GRAPH_REPLAYED;
        }
        QR_CUDA_TRY(err, cudaGraphLaunch(gc->exec, s));
        return QR_OK;
    }
    return enqueue(user, s, 0, err);
}

void qr_graph_cache_release(qr_graph_cache *gc)
{
    if (gc->exec) cudaGraphExecDestroy(gc->exec);
    if (gc->src) cudaGraphDestroy(gc->src);
    gc->exec = NULL;
    gc->src = NULL;
    gc->key_len = 0;
}
