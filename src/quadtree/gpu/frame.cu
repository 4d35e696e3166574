/* frame.cu — one frame, top to bottom: plan the index's build, queue it
 * and the caller's work behind it (qr_frame_after: the renderer's kernels,
 * render/gpu/renderer.cu) as one CUDA graph, replayed while the plans hold,
 * check the build once its read-back lands and redo it when its lists
 * overflowed, read the timing. qr_gpu_index_build runs a frame with nothing
 * behind its build.
 *
 * The usual frame waits for nothing but its build's read-back: the build
 * kernel that writes it sets a flag in mapped host memory before the lists
 * and the work behind them have run, so the host queues the next frame
 * while this one's render still runs, and back-to-back frames do not pay
 * the host's launch latency. Kernels queued behind a build that has not
 * been checked yet return at once when its pairs outgrew their slots
 * (qr_index_view.capacity); the frame then builds again, sized, and queues
 * them again.
 */
#include "quadtree/gpu/frame.h"
#include "gpu/cuda_check.h"

#include <string.h>

/* ---- the frame's resources ------------------------------------------------ */

qr_status qr_frame_init(qr_frame *f, qr_error *err)
{
    memset(f, 0, sizeof *f);
    cudaError_t e = cudaStreamCreate(&f->stream);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&f->done, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaHostAlloc((void **)&f->rb, sizeof *f->rb, cudaHostAllocMapped);
    if (e == cudaSuccess) e = cudaHostGetDevicePointer((void **)&f->rb_dev, f->rb, 0);
    for (int k = 0; k < QR_EV_N && e == cudaSuccess; k++) e = cudaEventCreate(&f->stages.ev[k]);
    if (e == cudaSuccess) e = cudaEventCreate(&f->start);
    if (e == cudaSuccess) e = cudaEventCreate(&f->after_start);
    if (e == cudaSuccess) e = cudaEventCreate(&f->after_end);
    if (e != cudaSuccess) {
        cudaGetLastError();
        qr_frame_release(f);
        return qr_fail(err, qr_cuda_status(e), "creating a GPU frame: %s", cudaGetErrorString(e));
    }
    return QR_OK;
}

void qr_frame_release(qr_frame *f)
{
    if (f->stream) cudaStreamSynchronize(f->stream);
    qr_graph_cache_release(&f->graph);
    for (int k = 0; k < QR_EV_N; k++)
        if (f->stages.ev[k]) cudaEventDestroy(f->stages.ev[k]);
    cudaEvent_t evs[4] = {f->done, f->start, f->after_start, f->after_end};
    for (int k = 0; k < 4; k++)
        if (evs[k]) cudaEventDestroy(evs[k]);
    if (f->stream) cudaStreamDestroy(f->stream);
    if (f->rb) cudaFreeHost(f->rb);
    memset(f, 0, sizeof *f);
}

/* ---- one frame's work ------------------------------------------------------ */

/* Everything a frame's launches bake in: the key of its graph (zeroed,
 * padding included, before it is set). */
struct frame_key {
    qr_build_plan build;
    qr_frame_after_fn after;  /* the work behind the build (NULL: none) */
    int after_timing;         /* its events (qr_frame_after.timing) */
    size_t after_len;
    unsigned char after_key[QR_FRAME_AFTER_KEY_MAX]; /* its key, after_len bytes */
};
static_assert(sizeof(frame_key) <= QR_GRAPH_KEY_MAX, "a frame's key outgrows the graph cache's");

/* A frame in progress: its key, and what enqueue_frame needs besides. */
struct frame_job {
    frame_key key;
    qr_frame *f;
    const qr_frame_build *b;
    const qr_frame_after *after; /* NULL: a build alone */
    const int32_t *lists; /* where the queued build leaves the lists */
};

/* The work behind the build, between its timing events. `after_kernel`:
 * the last operation queued is a kernel of the build, so the work's first
 * kernel may start early behind it (gpu/pdl.h). */
static qr_status enqueue_after(frame_job *job, cudaStream_t s, int after_kernel, qr_error *err)
{
    const qr_frame_after *a = job->after;
    const unsigned flags = job->f->stages.flags;
    if (a->timing >= QR_TIMING_TOTALS) {
        QR_CUDA_TRY(err, cudaEventRecordWithFlags(job->f->after_start, s, flags));
        after_kernel = 0;
    }
    const qr_index_view v = qr_gpu_index_view(job->b->ix, &job->key.build, job->lists);
    qr_status st = a->enqueue(a->user, &v, s, after_kernel, err);
    if (st) return st;
    if (a->timing) QR_CUDA_TRY(err, cudaEventRecordWithFlags(job->f->after_end, s, flags));
    return QR_OK;
}

/* An ahead build and the work behind it (qr_enqueue_fn: run directly, or
 * captured). */
static qr_status enqueue_frame(void *user, cudaStream_t s, int capturing, qr_error *err)
{
    frame_job *job = (frame_job *)user;
    job->f->stages.flags = capturing ? cudaEventRecordExternal : cudaEventRecordDefault;
    qr_status st = qr_gpu_index_enqueue(job->b->ix, job->b->scene, &job->key.build, s,
                                        &job->f->stages, job->f->rb_dev, &job->lists, err);
    if (st || !job->after) return st;
    /* after a timed build the last operation queued is its end event */
    return enqueue_after(job, s, job->f->stages.level < QR_TIMING_TOTALS, err);
}

/* Waits for the ahead build's read-back (rb->ready), not for the frame's
 * end; timed frames wait for their events. */
static qr_status await_readback(qr_frame *f, qr_error *err)
{
    if (f->stages.level >= QR_TIMING_TOTALS) {
        QR_CUDA_TRY(err, cudaEventSynchronize(f->done));
        f->inflight = 0;
        return QR_OK;
    }
    const volatile uint32_t *ready = &f->rb->ready;
    for (;;) {
        for (int spin = 0; spin < 256 && !*ready; spin++) {
        }
        if (*ready) break;
        const cudaError_t e = cudaEventQuery(f->done);
        if (e == cudaSuccess) {
            if (!*ready) return qr_fail(err, QR_ERR_CUDA, "internal error: a build ended without its read-back");
            break;
        }
        if (e != cudaErrorNotReady) QR_CUDA_TRY(err, e);
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE); /* the read-back after the flag */
    f->inflight = 1;
    return QR_OK;
}

/* A sized build and the work behind it, with the host's read of the pair
 * count between the build's halves; returns once all of it has run. */
static qr_status run_sized(frame_job *job, qr_error *err)
{
    qr_frame *f = job->f;
    const qr_frame_build *b = job->b;
    qr_build_plan *p = &job->key.build;
    const cudaStream_t s = f->stream;
    f->stages.flags = cudaEventRecordDefault;
    qr_status st = qr_gpu_index_enqueue_front(b->ix, b->scene, p, s, &f->stages, f->rb_dev, err);
    if (st) return st;
    QR_CUDA_TRY(err, cudaStreamSynchronize(s));
    f->inflight = 0;
    st = qr_gpu_index_check(p, f->rb, err);
    /* cells too coarse for a node it should have split: again, finer (at
     * most twice: min_leaf's cells, then the floor's) */
    for (int again = 0; !st && again < 2 && qr_gpu_index_cut(b->ix, p, f->rb); again++) {
        st = qr_gpu_index_plan(b->ix, b->scene, b->width, b->height, b->region, b->params, b->mode,
                               1, NULL, p, err);
        if (!st) st = qr_gpu_index_enqueue_front(b->ix, b->scene, p, s, &f->stages, f->rb_dev, err);
        if (st) return st;
        QR_CUDA_TRY(err, cudaStreamSynchronize(s));
        st = qr_gpu_index_check(p, f->rb, err);
    }
    if (!st) st = qr_gpu_index_size_pairs(b->ix, p, f->rb, err);
    if (!st) st = qr_gpu_index_enqueue_back(b->ix, p, s, &f->stages, &job->lists, err);
    if (!st && job->after) st = enqueue_after(job, s, f->stages.level < QR_TIMING_TOTALS, err);
    if (st) return st;
    QR_CUDA_TRY(err, cudaEventRecord(f->done, s));
    QR_CUDA_TRY(err, cudaEventSynchronize(f->done));
    return QR_OK;
}

/* The build's stage times, once its events have completed. */
static qr_status stage_timing(const qr_stage_events *ev, qr_build_timing *t, qr_error *err)
{
    memset(t, 0, sizeof *t);
    if (ev->level < QR_TIMING_TOTALS) return QR_OK;
    const cudaEvent_t *e = ev->ev;
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->total_ms, e[QR_EV_START], e[QR_EV_END]));
    if (ev->level != QR_TIMING_STAGES) return QR_OK;
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->boxes_ms, e[QR_EV_START], e[QR_EV_BOXES]));
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->tree_ms, e[QR_EV_BOXES], e[QR_EV_TREE]));
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->count_ms, e[QR_EV_TREE], e[QR_EV_COUNT]));
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->scan_ms, e[QR_EV_COUNT], e[QR_EV_SCAN]));
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->emit_ms, e[QR_EV_SCAN], e[QR_EV_EMIT]));
    QR_CUDA_TRY(err, cudaEventElapsedTime(&t->sort_ms, e[QR_EV_EMIT], e[QR_EV_SORT]));
    return QR_OK;
}

/* The build (and the work behind it) of a planned job: queued ahead when it
 * can be, checked, redone sized when its lists overflowed, accepted. */
static qr_status run_job(frame_job *job, qr_error *err)
{
    qr_frame *f = job->f;
    const qr_frame_build *b = job->b;
    qr_status st;
    int how_single = 0;
    f->ran_graph = 0;
    if (job->key.build.ahead) {
        f->rb->ready = 0; /* no kernel still to come sets it: the last frame's was awaited */
        qr_graph_how how;
        st = qr_graph_run(&f->graph, &job->key, sizeof job->key, enqueue_frame, job, f->stream,
                          f->inflight ? f->done : NULL, &how, err);
        if (st) return st;
        f->ran_graph = how != QR_GRAPH_DIRECT;
        /* a replayed graph leaves the lists where its capture did */
        if (how == QR_GRAPH_CAPTURED) f->graph_lists = job->lists;
        if (how == QR_GRAPH_REPLAYED) job->lists = f->graph_lists;
        QR_CUDA_TRY(err, cudaEventRecord(f->done, f->stream));
        st = await_readback(f, err);
        if (!st) st = qr_gpu_index_check(&job->key.build, f->rb, err);
        if (st) return st;
        how_single = job->key.build.single;
        if (!qr_gpu_index_fits(&job->key.build, f->rb)) {
            qr_gpu_index_cut(b->ix, &job->key.build, f->rb);
            /* the lists outgrew their slots (or the one-kernel build found
             * the root splitting): build again, the general way, sized */
            how_single = how_single ? -1 : 0;
            st = qr_gpu_index_plan(b->ix, b->scene, b->width, b->height, b->region, b->params,
                                   b->mode, 1, f->done, &job->key.build, err);
            if (!st) st = run_sized(job, err);
            if (st) return st;
        }
    } else {
        st = run_sized(job, err);
        if (st) return st;
    }
    qr_build_timing t;
    st = stage_timing(&f->stages, &t, err);
    if (st) return st;
    qr_gpu_index_accept(b->ix, &job->key.build, f->rb, job->lists, how_single, &t);
    return QR_OK;
}

/* ---- the entry points --------------------------------------------------------- */

qr_status qr_frame_run(qr_frame *f, const qr_frame_build *b, const qr_frame_after *after,
                       qr_error *err)
{
    frame_job job;
    memset(&job, 0, sizeof job); /* the key's padding too: keys are compared bytewise */
    job.f = f;
    job.b = b;
    job.after = after && after->enqueue ? after : NULL;
    if (job.after) {
        if (after->key_len > QR_FRAME_AFTER_KEY_MAX)
            return qr_fail(err, QR_ERR_INVALID, "internal error: a frame's key of %zu bytes",
                           after->key_len);
        job.key.after = after->enqueue;
        job.key.after_timing = (int)after->timing;
        job.key.after_len = after->key_len;
        if (after->key_len) memcpy(job.key.after_key, after->key, after->key_len);
    }

    /* 1. plan the build (its buffers, its pair slots) */
    f->stages.level = qr_gpu_index_timing_level(b->ix);
    qr_status st = qr_gpu_index_plan(b->ix, b->scene, b->width, b->height, b->region, b->params,
                                     b->mode, 0, f->inflight ? f->done : NULL, &job.key.build, err);
    if (st) return st;

    /* 2. build, queue the work behind it, check (and, rarely, build and
     * queue it again) */
    if (job.after && job.after->timing) QR_CUDA_TRY(err, cudaEventRecord(f->start, f->stream));
    return run_job(&job, err);
}

qr_status qr_frame_after_times(qr_frame *f, qr_timing timing, float *frame_ms, float *after_ms,
                               qr_error *err)
{
    *frame_ms = *after_ms = 0;
    if (!timing) return QR_OK;
    QR_CUDA_TRY(err, cudaEventSynchronize(f->after_end));
    QR_CUDA_TRY(err, cudaEventElapsedTime(frame_ms, f->start, f->after_end));
    if (timing >= QR_TIMING_TOTALS)
        QR_CUDA_TRY(err, cudaEventElapsedTime(after_ms, f->after_start, f->after_end));
    return QR_OK;
}

/* A build on its own (statistics, tests) runs on a frame of its own, with
 * direct launches: a graph pays only when it is replayed. */
extern "C" qr_status qr_gpu_index_build(qr_gpu_index *ix, const qr_gpu_scene *scene, int32_t width,
                                        int32_t height, const qr_rect *region,
                                        const qr_index_params *params, qr_render_mode mode,
                                        qr_error *err)
{
    qr_frame f;
    qr_status st = qr_frame_init(&f, err);
    if (st) return st;
    f.graph.disabled = 1;
    const qr_frame_build b = {ix, scene, width, height, region, params, mode};
    st = qr_frame_run(&f, &b, NULL, err);
    qr_frame_release(&f);
    return st;
}
