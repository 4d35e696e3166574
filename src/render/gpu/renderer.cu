/* renderer.cu — the GPU renderer object: its image and buffers, which
 * render kernels a frame takes (plan_render) and their launches
 * (enqueue_render), queued behind the index's build by the frame
 * (quadtree/gpu/frame.cu runs it: qr_gpu_render_region), timing.
 * render_output.cu brings the image back; the kernels themselves:
 * render_kernels.h lists them, a source file each.
 */
#include "gpu/tuning.h"
#include "render/gpu/renderer.h"
#include "gpu/cuda_check.h"
#include "quadtree/gpu/index_gpu.h"
#include "common/circle_math.h"
#include "quadrender/image.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

qr_status qr_renderer_make(int32_t width, int32_t height, int32_t tile_w, int32_t tile_h,
                           qr_gpu_renderer **out, qr_error *err)
{
    *out = NULL;
    qr_gpu_renderer *r = (qr_gpu_renderer *)calloc(1, sizeof *r);
    if (!r) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    r->width = width;
    r->height = height;
    r->tile_w = tile_w;
    r->tile_h = tile_h;
    r->banded = tile_w < width || tile_h < height;
    r->exact_window = QR_EXACT_WINDOW;
    qr_status st = qr_gpu_index_create(&r->index, err);
    if (!st) st = qr_frame_init(&r->frame, err);
    if (st) {
        qr_gpu_renderer_destroy(r);
        return st;
    }
    size_t bytes = (size_t)tile_w * tile_h * sizeof(float4);
    cudaError_t e = cudaMalloc((void **)&r->image, bytes);
    if (e == cudaSuccess) e = cudaMalloc((void **)&r->ro, sizeof(region_order));
    if (e == cudaSuccess) e = cudaMemset(r->ro, 0, sizeof(region_order));
    if (e != cudaSuccess) {
        cudaGetLastError();
        qr_gpu_renderer_destroy(r);
        return qr_fail(err, qr_cuda_status(e), "a %dx%d image needs %zu bytes of GPU memory: %s",
                       tile_w, tile_h, bytes + sizeof(region_order), cudaGetErrorString(e));
    }
    *out = r;
    return QR_OK;
}

extern "C" qr_status qr_gpu_renderer_create(int32_t width, int32_t height, qr_gpu_renderer **out,
                                            qr_error *err)
{
    *out = NULL;
    if (width < 1 || height < 1 || width > QR_IMAGE_MAX_DIM || height > QR_IMAGE_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID, "image size %dx%d out of range (1..%d)", width, height,
                       QR_IMAGE_MAX_DIM);
    return qr_renderer_make(width, height, width, height, out, err);
}

extern "C" void qr_gpu_renderer_destroy(qr_gpu_renderer *r)
{
    if (!r) return;
    qr_frame_release(&r->frame); /* waits for the last frame */
    qr_render_output_release(r);
    cudaFree(r->image);
    cudaFree(r->counts);
    cudaFree(r->ro);
    cudaFree(r->aa_r);
    cudaFree(r->aa_pos);
    qr_gpu_index_destroy(r->index);
    free(r);
}

extern "C" qr_status qr_gpu_renderer_plan(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                                          const qr_index_params *base, qr_render_mode mode,
                                          int32_t trials, qr_plan *plan, qr_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (trials < 1 || trials > QR_PLAN_TRIALS_MAX)
        return qr_fail(err, QR_ERR_INVALID, "plan trials must be from 1 to %d (got %d)",
                       QR_PLAN_TRIALS_MAX, trials);
    qr_status st = qr_index_params_check(base, err);
    if (st) return st;
    plan->candidates = qr_index_plan_candidates(base, plan->params, QR_PLAN_MAX);
    const qr_timing level = r->timing;
    qr_gpu_renderer_set_timing(r, QR_TIMING_FRAME);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    float ms[QR_PLAN_TRIALS_MAX];
    long long shape[QR_PLAN_MAX][4];
    for (int c = 0; c < plan->candidates && !st; c++) {
        /* the untimed frame; a tree shaped as an earlier candidate's (the
         * same leaves, nodes, depth and pairs) is that tree: its time is
         * the earlier one's, not measured again */
        st = qr_gpu_render(r, scene, &plan->params[c], mode, err);
        if (st) break;
        qr_gpu_index_shape(r->index, shape[c]);
        int same = -1;
        for (int j = 0; j < c && same < 0; j++)
            if (!memcmp(shape[j], shape[c], sizeof shape[c])) same = j;
        if (same >= 0) {
            plan->median_ms[c] = plan->median_ms[same];
            continue;
        }
        for (int f = 0; f < trials && !st; f++) {
            st = qr_gpu_render(r, scene, &plan->params[c], mode, err);
            /* with timing on, the render has finished and set r->last */
            if (!st) ms[f] = r->last.frame_ms;
        }
        if (st) break;
        /* the median: insertion sort of at most 64 */
        for (int i = 1; i < trials; i++)
            for (int j = i; j > 0 && ms[j - 1] > ms[j]; j--) {
                const float t = ms[j];
                ms[j] = ms[j - 1];
                ms[j - 1] = t;
            }
        plan->median_ms[c] = trials % 2 ? ms[trials / 2] : 0.5f * (ms[trials / 2 - 1] + ms[trials / 2]);
        if (plan->median_ms[c] < plan->median_ms[plan->chosen]) plan->chosen = c;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    plan->plan_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    qr_gpu_renderer_set_timing(r, level);
    return st;
}

extern "C" void qr_gpu_renderer_set_timing(qr_gpu_renderer *r, qr_timing level)
{
    r->timing = level;
    /* a frame timed whole records no event inside it */
    qr_gpu_index_set_timing(r->index, level >= QR_TIMING_TOTALS ? level : QR_TIMING_OFF);
}

extern "C" void qr_gpu_renderer_set_exact_window(qr_gpu_renderer *r, int window)
{
    r->exact_window = window < 0 ? 0 : (window > RW_MAX_WINDOW ? RW_MAX_WINDOW : window);
}

extern "C" void qr_gpu_renderer_set_graph(qr_gpu_renderer *r, int on)
{
    r->frame.graph.disabled = !on;
    r->frame.graph.failed = 0;
}

extern "C" int qr_gpu_renderer_uses_graph(const qr_gpu_renderer *r)
{
    return r->frame.ran_graph;
}

extern "C" qr_gpu_index *qr_gpu_renderer_index(qr_gpu_renderer *r)
{
    return r->index;
}

extern "C" size_t qr_gpu_renderer_device_bytes(const qr_gpu_renderer *r)
{
    const size_t px = (size_t)r->tile_w * r->tile_h;
    return px * sizeof(float4) + (r->counts ? px * sizeof(int32_t) : 0) + sizeof(region_order) +
           qr_gpu_index_device_bytes(r->index);
}

/* ---- a frame's render ------------------------------------------------------------ */

/* The render kernels a frame queues behind its build and everything their
 * launches bake in besides the index's view: the key of the frame's work
 * after the build (qr_frame_after), so zeroed (padding included) before it
 * is set. */
typedef struct render_plan {
    const float4 *pos, *col;
    float4 *image;
    int32_t *counts;
    float color_span, lo, hi;
    float back[3];          /* flat: the background colour */
    int aa;                 /* anti-aliased edges (the walk's AA instance) */
    int windows;            /* exact mode by windows (render_windows.cu), else a walk: */
    int exact, snow, gather, fma; /* the walk's kernel (render_walk.cu), or the windows' fma */
    int alpha, window, timing;
    int carry;              /* a later chunk: pixels start from the image (the walk's carry) */
    int unfinished;         /* fast, front to back: chunks lie behind this one */
} render_plan;
static_assert(sizeof(render_plan) <= QR_FRAME_AFTER_KEY_MAX, "a render plan outgrows a frame's key");

/* A frame's place in a scene drawn in chunks: none (chunk 0: the whole
 * scene); back to front (qr_gpu_render_chunk), over the image (carry) or
 * the background; front to back (qr_gpu_render_chunk_under, whole: the
 * scene's numbers), under the image (carry) or from nothing, and the
 * background added (finish) or left for the chunks behind. */
typedef struct chunk_place {
    int chunk, carry, finish;
    const qr_gpu_numbers *whole;
} chunk_place;

/* Whether fast mode takes the exact walk: where pixels hold on average
 * less than half the blends it stops after (log2(2 span / tol): 17.6 for
 * colours in [0, 1]), it has nothing to skip and its bookkeeping only
 * costs (micro2M, rgb, pattern); never on snow. */
static bool fast_takes_exact(bool snow, float depth, float span)
{
    return !snow && depth < 0.5f * log2f(2.0f * span / QR_FAST_TOLERANCE);
}

/* The depth qr_gpu_scene_create finds for the whole scene of `n`. */
static float numbers_depth(const qr_gpu_numbers *n)
{
    return (float)(n->area + n->open);
}

extern "C" int qr_gpu_chunks_front_to_back(const qr_gpu_numbers *whole, qr_render_mode mode)
{
    return mode == QR_RENDER_FAST &&
           !fast_takes_exact(whole->snow, numbers_depth(whole), whole->hi - whole->lo);
}

/* Decides this frame's render kernels (and makes the coverage buffer they
 * may need: nothing is allocated while a graph is being captured). */
static qr_status plan_render(qr_gpu_renderer *r, const qr_gpu_scene *scene, qr_render_mode mode,
                             const chunk_place *cp, render_plan *p, qr_error *err)
{
    memset(p, 0, sizeof *p);
    p->pos = scene->pos;
    p->col = scene->col;
    p->image = r->image;
    p->color_span = scene->color_span;
    for (int k = 0; k < 3; k++) p->back[k] = scene->background[k];
    p->aa = scene->antialias;
    p->timing = (int)r->timing;
    const bool snow = scene->shading == QR_SHADE_SNOW;
    /* exact flat blends as one fused multiply-add, where that is exact
     * (blend_flat) */
    const bool fma = !snow && scene->fma_blend;
    /* windows pay on deep scenes (rand100k, biglittle, littlebig and rand1M
     * at 1024 and 2048; docs/benchmarks.md) */
    const bool deep = scene->depth >= RW_DEEP * r->exact_window;
    /* windows draw alpha 0.5 over white only: other scenes (qr_gpu_scene.plain)
     * take the exact walk */
    const float box_px = 2.0f * scene->radius * (float)(r->width > r->height ? r->width : r->height);
    if (cp->chunk) {
        /* A chunk: each pixel blends the chunk's circles in order onto what
         * it holds, one pass's blends in one pass's order. Back to front,
         * the exact walk, unfused (blend_flat's proof and the windows' runs
         * need the whole scene's colours); front to back, fast mode's walk
         * stopping at the whole scene's bound. */
        const bool under = cp->whole != NULL;
        p->exact = !under;
        p->snow = snow;
        p->gather = (!under || snow) && box_px < RB_SIDE;
        p->carry = cp->carry;
        p->unfinished = under && !cp->finish;
        if (under) p->color_span = cp->whole->hi - cp->whole->lo;
        p->alpha = scene->transparent          ? QR_WALK_ALPHA_COVER
                   : mode == QR_RENDER_EXACT ? QR_WALK_ALPHA_EXACT
                                             : QR_WALK_ALPHA_ONE;
    } else if (mode == QR_RENDER_EXACT && !snow && r->exact_window > 0 && scene->colors_finite &&
               deep && scene->plain) {
        if (!r->counts) {
            const size_t bytes = (size_t)r->tile_w * r->tile_h * sizeof(int32_t);
            cudaError_t e = cudaMalloc((void **)&r->counts, bytes);
            if (e != cudaSuccess) {
                cudaGetLastError();
                r->counts = NULL;
                return qr_fail(err, qr_cuda_status(e),
                               "exact mode's coverage counts need %zu more bytes of GPU memory: %s",
                               bytes, cudaGetErrorString(e));
            }
        }
        p->windows = 1;
        p->fma = fma;
        p->counts = r->counts;
        p->window = r->exact_window;
        /* the windows' runs start 1e-3 (relative) outside every value a
         * colour can take, so rounding can never carry the true one past
         * them; where the blend is fused (fma_blend: no colour below 0) the
         * low run starts at 0, which no computed colour goes below either,
         * so that it too stays out of the subnormal range */
        const float m = 1e-3f * (1.0f + fmaxf(fabsf(scene->color_lo), fabsf(scene->color_hi)));
        p->lo = fma ? 0.0f : scene->color_lo - m;
        p->hi = scene->color_hi + m;
    } else {
        /* fast mode on shallow scenes: the exact walk (the exact image,
         * alpha left at 1) */
        const bool exact = mode == QR_RENDER_EXACT ||
                           fast_takes_exact(snow, scene->depth, scene->color_span);
        p->alpha = scene->transparent          ? QR_WALK_ALPHA_COVER
                   : mode == QR_RENDER_EXACT ? QR_WALK_ALPHA_EXACT
                                             : QR_WALK_ALPHA_ONE;
        /* Walks that go to the end of their lists gather each warp's circles
         * where circles are narrower than the region (walk_leaf): faster on
         * micro2M and snowsingle; flat fast walks stop after a few groups
         * and lose to gathering (rand1M, rand10k). */
        const bool gather = box_px < RB_SIDE;
        /* only the flags that pick another k_render instance (gather: not
         * for fast flat walks; fma: only for exact flat ones) */
        p->exact = exact;
        p->snow = snow;
        p->gather = (exact || snow) && gather;
        p->fma = exact && fma;
    }
    return QR_OK;
}

/* A frame's render: the renderer and its plan (qr_frame_after.user). */
typedef struct render_after {
    qr_gpu_renderer *r;
    render_plan plan;
} render_after;

/* Queues the planned kernels on s for the build `view` views (a
 * qr_frame_after_fn). `after_kernel`: the last operation queued is a
 * kernel, so the first may start early behind it (gpu/pdl.h). */
static qr_status enqueue_render(void *user, const qr_index_view *view, cudaStream_t s,
                                int after_kernel, qr_error *err)
{
    qr_gpu_renderer *r = ((render_after *)user)->r;
    const render_plan &p = ((render_after *)user)->plan;
    const qr_index_view &v = *view;
    const int tiles = qr_render_regions(&v); /* 32 x 32 regions */
    cudaError_t e;
    if (!p.windows) {
        qr_render_walk_args wa;
        memset(&wa, 0, sizeof wa);
        wa.view = &v;
        wa.pos = p.pos;
        wa.col = p.col;
        wa.color_span = p.color_span;
        wa.alpha = p.alpha;
        for (int k = 0; k < 3; k++) wa.back[k] = p.back[k];
        wa.aa = p.aa;
        wa.image = p.image;
        wa.exact = p.exact;
        wa.snow = p.snow;
        wa.gather = p.gather;
        wa.fma = p.fma;
        wa.carry = p.carry;
        wa.unfinished = p.unfinished;
        e = qr_launch_render_walk(&wa, s, after_kernel);
    } else {
        qr_cover_count_args ca;
        memset(&ca, 0, sizeof ca);
        ca.view = &v;
        ca.pos = p.pos;
        ca.counts = p.counts;
        qr_status st = qr_launch_cover_count(&ca, s, after_kernel, err);
        if (st) return st;
        qr_render_windows_args wa;
        memset(&wa, 0, sizeof wa);
        wa.view = &v;
        wa.ro = r->ro;
        wa.pos = p.pos;
        wa.col = p.col;
        wa.counts = p.counts;
        wa.lo = p.lo;
        wa.hi = p.hi;
        wa.window = p.window;
        wa.image = p.image;
        wa.fma = p.fma;
        e = qr_launch_render_windows(&wa, s, 1);
        if (e == cudaSuccess && tiles <= RO_MAX && !qr_render_items(&v))
            e = qr_launch_region_order(r->ro, tiles, s, 1);
    }
    QR_CUDA_TRY(err, e);
    return QR_OK;
}

/* Anti-aliased edges: every radius half a pixel of this image larger
 * (qr_aa_radius), into the index's radii and the render's packed circles. */
__global__ void k_widen(int32_t n, const float4 *__restrict__ pos, float half_px, float *r_out,
                        float4 *pos_out)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float4 p = pos[i];
        p.w = qr_aa_radius(p.w, half_px);
        r_out[i] = p.w;
        pos_out[i] = p;
    }
}

/* The scene a frame of an anti-aliased scene builds and renders: `scene`
 * with its radii widened for this image (r->aa_r, r->aa_pos), in *view;
 * queued on the legacy stream, which the frame's stream waits for. */
static qr_status widened_scene(qr_gpu_renderer *r, const qr_gpu_scene *scene, qr_gpu_scene *view,
                               qr_error *err)
{
    if (scene->n > r->aa_cap) {
        cudaFree(r->aa_r);
        cudaFree(r->aa_pos);
        r->aa_r = NULL;
        r->aa_pos = NULL;
        r->aa_cap = 0;
        cudaError_t e = cudaMalloc((void **)&r->aa_r, (size_t)scene->n * sizeof(float));
        if (e == cudaSuccess) e = cudaMalloc((void **)&r->aa_pos, (size_t)scene->n * sizeof(float4));
        if (e != cudaSuccess) {
            cudaGetLastError();
            return qr_fail(err, qr_cuda_status(e),
                           "anti-aliased edges need %zu more bytes of GPU memory: %s",
                           (size_t)scene->n * (sizeof(float) + sizeof(float4)), cudaGetErrorString(e));
        }
        r->aa_cap = scene->n;
    }
    *view = *scene;
    view->r = r->aa_r;
    view->pos = r->aa_pos;
    if (scene->n == 0) return QR_OK;
    const int side = r->width > r->height ? r->width : r->height;
    const int blocks = (int)((scene->n + 255) / 256 < 4096 ? (scene->n + 255) / 256 : 4096);
    k_widen<<<blocks, 256, 0, cudaStreamLegacy>>>(scene->n, scene->pos, qr_aa_half_pixel(side),
                                                 r->aa_r, r->aa_pos);
    QR_CUDA_TRY(err, cudaGetLastError());
    return QR_OK;
}

/* One frame of `region` (NULL: the whole image), of the whole scene or of
 * a chunk of one (cp). */
static qr_status render_region(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                               const qr_index_params *params, qr_render_mode mode,
                               const qr_rect *region, const chunk_place *cp, qr_error *err)
{
    qr_gpu_scene view;
    if (scene->antialias) {
        qr_status wst = widened_scene(r, scene, &view, err);
        if (wst) return wst;
        scene = &view;
    }
    /* 1. plan the render kernels */
    render_after ra;
    ra.r = r;
    qr_status st = plan_render(r, scene, mode, cp, &ra.plan, err);
    if (st) return st;

    /* 2. build this render's index, render behind it, check (and, rarely,
     * build and render again) */
    qr_frame_after after;
    memset(&after, 0, sizeof after);
    after.enqueue = enqueue_render;
    after.user = &ra;
    after.key = &ra.plan;
    after.key_len = sizeof ra.plan;
    after.timing = r->timing;
    const qr_frame_build b = {r->index, scene, r->width, r->height, region, params, mode};
    st = qr_frame_run(&r->frame, &b, &after, err);
    if (st) return st;

    /* 3. timing */
    memset(&r->last, 0, sizeof r->last);
    st = qr_frame_after_times(&r->frame, r->timing, &r->last.frame_ms, &r->last.render_ms, err);
    if (!st && r->timing >= QR_TIMING_TOTALS) st = qr_gpu_index_timing(r->index, &r->last.build, err);
    return st;
}

qr_status qr_gpu_render_region(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                               const qr_index_params *params, qr_render_mode mode,
                               const qr_rect *region, qr_error *err)
{
    const chunk_place whole = {0, 0, 1, NULL};
    return render_region(r, scene, params, mode, region, &whole, err);
}

extern "C" void qr_gpu_renderer_set_budget(qr_gpu_renderer *r, size_t bytes)
{
    r->budget = bytes;
    if (!bytes) qr_gpu_index_set_limit(r->index, 0);
}

/* A chunk's frame, its index held to the budget. */
static qr_status render_chunk(qr_gpu_renderer *r, const qr_gpu_scene *chunk,
                              const qr_index_params *params, qr_render_mode mode,
                              const chunk_place *cp, qr_error *err)
{
    if (r->banded)
        return qr_fail(err, QR_ERR_INVALID,
                       "a scene in chunks is drawn on an image held whole, not in bands of %dx%d",
                       r->tile_w, r->tile_h);
    if (r->budget) {
        /* what the index may take: the budget less the chunk, the image
         * and the write's band slots */
        const size_t taken = qr_gpu_scene_device_bytes(chunk) +
                             (size_t)r->width * r->height * sizeof(float4) + 2 * r->band_bytes;
        if (taken >= r->budget)
            return qr_fail(err, QR_ERR_GPU_NOMEM,
                           "a chunk of %d circles and a %dx%d image need %zu bytes of GPU memory, "
                           "more than the budget of %zu",
                           chunk->n, r->width, r->height, taken, r->budget);
        qr_gpu_index_set_limit(r->index, r->budget - taken);
    }
    return render_region(r, chunk, params, mode, NULL, cp, err);
}

extern "C" qr_status qr_gpu_render_chunk(qr_gpu_renderer *r, const qr_gpu_scene *chunk,
                                         const qr_index_params *params, qr_render_mode mode,
                                         int over, qr_error *err)
{
    const chunk_place cp = {1, over != 0, 1, NULL};
    return render_chunk(r, chunk, params, mode, &cp, err);
}

extern "C" qr_status qr_gpu_render_chunk_under(qr_gpu_renderer *r, const qr_gpu_scene *chunk,
                                               const qr_gpu_numbers *whole,
                                               const qr_index_params *params, int front,
                                               int back, qr_error *err)
{
    if (!whole || !qr_gpu_chunks_front_to_back(whole, QR_RENDER_FAST))
        return qr_fail(err, QR_ERR_INVALID,
                       "fast mode draws this scene's chunks back to front (qr_gpu_render_chunk)");
    const chunk_place cp = {1, !front, back != 0, whole};
    return render_chunk(r, chunk, params, QR_RENDER_FAST, &cp, err);
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

extern "C" qr_status qr_gpu_renderer_timing(const qr_gpu_renderer *r, qr_frame_timing *t,
                                            qr_error *err)
{
    if (!r->timing) return qr_fail(err, QR_ERR_INVALID, "timing is not enabled");
    *t = r->last;
    return QR_OK;
}
