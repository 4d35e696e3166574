/* gpu_tuning.h — the GPU library's tuning and test hooks: switches that
 * change how a frame runs, never what it draws, for the benchmarks, the
 * dev tools and the tests. Internal: not installed with the public headers
 * (quadrender/gpu.h is the API).
 */
#ifndef QR_COMMON_GPU_TUNING_H
#define QR_COMMON_GPU_TUNING_H

#include "quadrender/gpu.h"
#include "gpu/tuning/tuning_default.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A scene whose last tree was a single leaf (few circles: rgb, pattern) is
 * built by one kernel instead of the graph; it equals the general build and
 * falls back to it when the root splits after all. Its time counts as the
 * boxes stage. Says how the last build went: 1 that kernel, -1 that kernel
 * and then the general build (the root split after all), 0 the general build. */
int qr_gpu_index_single_kernel(const qr_gpu_index *ix);

/* Exact mode on deep flat scenes blends only a tail of each list, run from
 * both ends of the colour range; equal runs are provably the full walk's
 * result to the bit, unequal ones double the tail (docs/architecture.md).
 * Sets how many covering circles the first tail should hold for the
 * fewest-covered pixel of a block (default QR_EXACT_WINDOW); 0 walks every
 * list whole, as snow scenes always do. Any value gives the same image;
 * only the time changes. */
/* QR_EXACT_WINDOW: gpu/tuning/tuning_default.h */
void qr_gpu_renderer_set_exact_window(qr_gpu_renderer *r, int window);

/* Whether the last frame ran as a CUDA graph (qr_gpu_renderer_set_graph,
 * quadrender/gpu.h: on by default; launched one by one, a frame's dozen
 * short kernels wait on the host): a CUDA that cannot capture it falls
 * back to direct launches. A build on its own (qr_gpu_index_build) always
 * launches directly. */
int qr_gpu_renderer_uses_graph(const qr_gpu_renderer *r);

/* What a scene's upload learned of its circles, on which the renderer's
 * choices rest (qr_gpu_scene in scene/gpu/scene_gpu.h says what each is): for
 * the tests, which hold every way of making a scene to the same bits. */
typedef struct qr_gpu_scene_ranges {
    float color_span, color_lo, color_hi;
    int colors_finite, fma_blend;
    float depth, radius;
} qr_gpu_scene_ranges;
void qr_gpu_scene_get_ranges(const qr_gpu_scene *gs, qr_gpu_scene_ranges *out);

#ifdef __cplusplus
}
#endif
#endif
