/* renderer.h — the GPU renderer object and its two steps as the frame
 * (frame.cu) drives them: plan a frame's render kernels, queue them behind
 * a build. Internal to the library; the public API is quadrender/gpu.h.
 */
#ifndef QR_RENDER_RENDERER_H
#define QR_RENDER_RENDERER_H

#include "render/frame.h"
#include "render/render_kernels.h"

/* The render kernels a frame queues behind its build and everything their
 * launches bake in besides the index's view: part of the key of the frame's
 * graph, so zeroed (padding included) before it is set. */
typedef struct qr_render_plan {
    const float4 *pos, *col;
    float4 *image;
    int32_t *counts;
    float color_span, lo, hi;
    int windows;            /* exact mode by windows (render_windows.cu), else a walk: */
    int exact, snow, gather, fma; /* the walk's kernel (render_walk.cu), or the windows' fma */
    int alpha, window, timing;
} qr_render_plan;

struct qr_gpu_renderer {
    int32_t width, height;
    float4 *image;      /* width * height, row 0 = bottom */
    int32_t *counts;    /* width * height covering circles, for exact windows; made on first use */
    region_order *ro;   /* which region each window-kernel block takes (region_order.cu) */
    qr_gpu_index *index;
    qr_frame frame;     /* stream, events, read-back, graph */
    qr_timing timing;
    qr_frame_timing last;
    int exact_window;   /* exact mode's first window; 0: walk whole lists */
    /* the streamed write's two band slots (render_output.cu), made on first use */
    void *band_dev[2], *band_host[2]; /* device rows; pinned host copies */
    size_t band_bytes;
    cudaEvent_t band_done[2];
};

/* Frees the streamed write's band buffers (render_output.cu). */
void qr_render_output_release(qr_gpu_renderer *r);

/* Decides this frame's render kernels (and makes the coverage buffer they
 * may need: nothing is allocated while a graph is being captured). */
qr_status qr_render_plan_frame(qr_gpu_renderer *r, const qr_gpu_scene *scene, qr_render_mode mode,
                               qr_render_plan *p, qr_error *err);

/* Queues the planned kernels on s for the build `v` views. `after_kernel`:
 * the last operation queued is a kernel, so the first may start early
 * behind it (common/pdl.h). */
qr_status qr_render_enqueue(qr_gpu_renderer *r, const qr_render_plan *p, const qr_index_view *v,
                            cudaStream_t s, int after_kernel, qr_error *err);

#endif
