/* quadrender/render_cpu_fast.h — the fast CPU renderer: the quadtree index,
 * every core, SIMD over the pixels of a tile.
 *
 * What `--device cpu` and the CPU fallback run. It builds the same index as
 * the GPU (qr_index_build_host) and renders each 32 x 32 pixel tile of each
 * leaf from the leaf's list, tiles spread over threads (quadrender/threads.h):
 *
 *   QR_RENDER_EXACT: back to front, the reference's per-pixel blend with the
 *       reference's operations in the reference's order (common/circle_math.h),
 *       so the image equals qr_render_cpu's byte for byte, snow included,
 *       whatever the thread count.
 *   QR_RENDER_FAST:  front to back with transmittance T (C += T a c,
 *       T *= 1 - a); a row of a tile stops once whatever lies behind can move
 *       no channel by more than QR_FAST_TOLERANCE / 2, and the rest of T takes
 *       the background. Every colour channel lies within QR_FAST_TOLERANCE of
 *       the exact image; alpha is left at 1 (as on the GPU). Flat scenes too
 *       shallow for the stop to skip anything take the exact walk (same rule
 *       as the GPU), alpha again left at 1.
 *
 * The image is the same bytes whatever the thread count, in both modes.
 */
#ifndef QUADRENDER_RENDER_CPU_FAST_H
#define QUADRENDER_RENDER_CPU_FAST_H

#include "quadrender/error.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/render_mode.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Times of the last qr_render_cpu_fast call, milliseconds (wall clock). */
typedef struct qr_cpu_timing {
    double build_ms;  /* the host index build */
    double render_ms; /* the tiles */
} qr_cpu_timing;

/* Builds the index of the scene's current state for img's size (params:
 * NULL = qr_index_params_default) and renders it into img, on `threads`
 * threads (0: qr_threads()). timing may be NULL. */
qr_status qr_render_cpu_fast(const qr_scene *scene, const qr_index_params *params,
                             qr_render_mode mode, int threads, qr_image *img,
                             qr_cpu_timing *timing, qr_error *err);

/* Renders from an index built for this scene and img's size over the whole
 * image (qr_index_build_host, or a GPU build downloaded). */
qr_status qr_render_cpu_index(const qr_scene *scene, const qr_index *index,
                              qr_render_mode mode, int threads, qr_image *img, qr_error *err);

#ifdef __cplusplus
}
#endif
#endif
