/* frame.cu — one frame, top to bottom: plan the index's build and the
 * render, queue both (one CUDA graph, replayed while the plan holds), check
 * the build once its read-back lands and redo it when its lists overflowed,
 * read the timing. qr_gpu_render runs a frame; qr_gpu_index_build runs one
 * without a render.
 *
 * The usual frame waits for nothing but its build's read-back: the build
 * kernel that writes it sets a flag in mapped host memory before the lists
 * and the render have run, so the host queues the next frame while this
 * one's render still runs, and back-to-back frames do not pay the host's
 * launch latency. The render kernels, queued behind a build that has not
 * been checked yet, return at once when its pairs outgrew their slots
 * (qr_index_view.capacity); the frame then builds again, sized, and renders
 * again.
 */
#include "quadtree/gpu/frame.h"
#include "render/gpu/renderer.h"
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
    if (e == cudaSuccess) e = cudaEventCreate(&f->render_start);
    if (e == cudaSuccess) e = cudaEventCreate(&f->render_end);
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
    cudaEvent_t evs[4] = {f->done, f->start, f->render_start, f->render_end};
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
    qr_render_plan render;
    int has_render;
};

/* A frame in progress: its key, and what enqueue_frame needs besides. */
struct frame_job {
    frame_key key;
    qr_frame *f;
    qr_gpu_index *ix;
    const qr_gpu_scene *scene;
    qr_gpu_renderer *r; /* NULL: a build without a render */
    int32_t width, height;
    const qr_rect *region;
    const qr_index_params *params;
    qr_render_mode mode; /* the render the index is for (qr_mode_stops_early) */
    const int32_t *lists; /* where the queued build leaves the lists */
};

/* The render kernels behind the build, between the render's timing events.
 * `after_kernel`: the last operation queued is a kernel of the build, so the
 * render's first kernel may start early behind it (gpu/pdl.h). */
static qr_status enqueue_render(frame_job *job, cudaStream_t s, int after_kernel, qr_error *err)
{
    const qr_render_plan *p = &job->key.render;
    const unsigned flags = job->f->stages.flags;
    if (p->timing >= QR_TIMING_TOTALS) {
        QR_CUDA_TRY(err, cudaEventRecordWithFlags(job->f->render_start, s, flags));
        after_kernel = 0;
    }
    const qr_index_view v = qr_gpu_index_view(job->ix, &job->key.build, job->lists);
    qr_status st = qr_render_enqueue(job->r, p, &v, s, after_kernel, err);
    if (st) return st;
    if (p->timing) QR_CUDA_TRY(err, cudaEventRecordWithFlags(job->f->render_end, s, flags));
    return QR_OK;
}

/* An ahead build and its render (qr_enqueue_fn: run directly, or captured). */
static qr_status enqueue_frame(void *user, cudaStream_t s, int capturing, qr_error *err)
{
    frame_job *job = (frame_job *)user;
    job->f->stages.flags = capturing ? cudaEventRecordExternal : cudaEventRecordDefault;
    qr_status st = qr_gpu_index_enqueue(job->ix, job->scene, &job->key.build, s, &job->f->stages,
                                        job->f->rb_dev, &job->lists, err);
    if (st || !job->r) return st;
    /* after a timed build the last operation queued is its end event */
    return enqueue_render(job, s, job->f->stages.level < QR_TIMING_TOTALS, err);
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

/* A sized build and its render, with the host's read of the pair count
 * between the build's halves; returns once all of it has run. */
static qr_status run_sized(frame_job *job, qr_error *err)
{
    qr_frame *f = job->f;
    qr_build_plan *p = &job->key.build;
    const cudaStream_t s = f->stream;
    f->stages.flags = cudaEventRecordDefault;
    qr_status st = qr_gpu_index_enqueue_front(job->ix, job->scene, p, s, &f->stages, f->rb_dev, err);
    if (st) return st;
    QR_CUDA_TRY(err, cudaStreamSynchronize(s));
    f->inflight = 0;
    st = qr_gpu_index_check(p, f->rb, err);
    /* cells too coarse for a node it should have split: again, finer (at
     * most twice: min_leaf's cells, then the floor's) */
    for (int again = 0; !st && again < 2 && qr_gpu_index_cut(job->ix, p, f->rb); again++) {
        st = qr_gpu_index_plan(job->ix, job->scene, job->width, job->height, job->region,
                               job->params, job->mode, 1, NULL, p, err);
        if (!st) st = qr_gpu_index_enqueue_front(job->ix, job->scene, p, s, &f->stages, f->rb_dev, err);
        if (st) return st;
        QR_CUDA_TRY(err, cudaStreamSynchronize(s));
        st = qr_gpu_index_check(p, f->rb, err);
    }
    if (!st) st = qr_gpu_index_size_pairs(job->ix, p, f->rb, err);
    if (!st) st = qr_gpu_index_enqueue_back(job->ix, p, s, &f->stages, &job->lists, err);
    if (!st && job->r) st = enqueue_render(job, s, f->stages.level < QR_TIMING_TOTALS, err);
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

/* The build (and render) of a planned job: queued ahead when it can be,
 * checked, redone sized when its lists overflowed, accepted. */
static qr_status run_job(frame_job *job, qr_error *err)
{
    qr_frame *f = job->f;
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
            qr_gpu_index_cut(job->ix, &job->key.build, f->rb);
            /* the lists outgrew their slots (or the one-kernel build found
             * the root splitting): build again, the general way, sized */
            how_single = how_single ? -1 : 0;
            st = qr_gpu_index_plan(job->ix, job->scene, job->width, job->height, job->region,
                                   job->params, job->mode, 1, f->done, &job->key.build, err);
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
    qr_gpu_index_accept(job->ix, &job->key.build, f->rb, job->lists, how_single, &t);
    return QR_OK;
}

static qr_status plan_build(frame_job *job, qr_error *err)
{
    qr_frame *f = job->f;
    f->stages.level = qr_gpu_index_timing_level(job->ix);
    return qr_gpu_index_plan(job->ix, job->scene, job->width, job->height, job->region, job->params,
                             job->mode, 0, f->inflight ? f->done : NULL, &job->key.build, err);
}

/* ---- the two entry points --------------------------------------------------- */

qr_status qr_gpu_render_region(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                               const qr_index_params *params, qr_render_mode mode,
                               const qr_rect *region, qr_error *err)
{
    qr_frame *f = &r->frame;
    frame_job job;
    memset(&job, 0, sizeof job);
    job.f = f;
    job.ix = r->index;
    job.scene = scene;
    job.r = r;
    job.width = r->width;
    job.height = r->height;
    job.region = region;
    job.params = params;
    job.mode = mode; /* this render's index */
    job.key.has_render = 1;

    /* 1. plan the build (its buffers, its pair slots) and the render kernels */
    qr_status st = plan_build(&job, err);
    if (!st) st = qr_render_plan_frame(r, scene, mode, &job.key.render, err);
    if (st) return st;

    /* 2. build, render, check (and, rarely, build and render again) */
    if (r->timing) QR_CUDA_TRY(err, cudaEventRecord(f->start, f->stream));
    st = run_job(&job, err);
    if (st) return st;

    /* 3. timing */
    memset(&r->last, 0, sizeof r->last);
    if (r->timing) {
        QR_CUDA_TRY(err, cudaEventSynchronize(f->render_end));
        QR_CUDA_TRY(err, cudaEventElapsedTime(&r->last.frame_ms, f->start, f->render_end));
        if (r->timing >= QR_TIMING_TOTALS) {
            QR_CUDA_TRY(err, cudaEventElapsedTime(&r->last.render_ms, f->render_start, f->render_end));
            st = qr_gpu_index_timing(r->index, &r->last.build, err);
        }
    }
    return st;
}

extern "C" qr_status qr_gpu_render(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                                   const qr_index_params *params, qr_render_mode mode,
                                   qr_error *err)
{
    if (r->banded)
        return qr_fail(err, QR_ERR_INVALID,
                       "a %dx%d image is rendered in bands: render it into a writer (qr_gpu_render_write)",
                       r->width, r->height);
    return qr_gpu_render_region(r, scene, params, mode, NULL, err);
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
    frame_job job;
    memset(&job, 0, sizeof job);
    job.f = &f;
    job.ix = ix;
    job.scene = scene;
    job.width = width;
    job.height = height;
    job.region = region;
    job.params = params;
    job.mode = mode;
    st = plan_build(&job, err);
    if (!st) st = run_job(&job, err);
    qr_frame_release(&f);
    return st;
}
