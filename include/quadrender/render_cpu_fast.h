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
 *       T *= 1 - a); each QR_TILE-wide group of a tile row stops once
 *       whatever lies behind can move no channel by more than
 *       QR_FAST_TOLERANCE / 2, and the rest of T takes
 *       the background. Every colour channel lies within QR_FAST_TOLERANCE of
 *       the exact image; alpha is left at 1 (as on the GPU). Flat scenes too
 *       shallow for the stop to skip anything take the exact walk (same rule
 *       as the GPU), alpha again left at 1.
 *
 * The image is the same bytes whatever the thread count, in both modes.
 *
 * Bands: qr_render_cpu_fast_band renders rows [y0, y1) of a width x height
 * image (row 0 = bottom) into an image of just those rows, indexing only
 * them. A band is byte for byte the same rows of the whole image, in both
 * modes, whatever the band's rows, the thread count and the index
 * parameters: a pixel depends on the circles over it and (fast mode) on
 * the QR_TILE-wide group of its row it stops with, never on the leaves
 * around it. Sides go up to QR_IMAGE_BANDS_MAX_DIM (quadrender/image.h);
 * the band image is any width x (y1 - y0) qr_image,
 * made by qr_image_create or by hand (width * (y1 - y0) * 4 floats).
 */
#ifndef QUADRENDER_RENDER_CPU_FAST_H
#define QUADRENDER_RENDER_CPU_FAST_H

#include "quadrender/error.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_mode.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Times of the last qr_render_cpu_fast(_band) call, milliseconds (wall clock). */
typedef struct qr_cpu_timing {
    double build_ms;  /* the host index build */
    double render_ms; /* the tiles */
} qr_cpu_timing;

/* The render mode whose index (quadrender/index.h) the fast CPU renderer
 * builds to draw in `mode`: exact's, whose split rule weighs whole lists,
 * in both modes. Fast mode's discount for the lists' unread tails suits
 * the GPU, whose block stages a batch of a list at once and stops; this
 * renderer's fast walk tests every list entry against each 32 x 32 tile
 * until all its pixel groups stop, so the larger leaves the discount keeps
 * cost it more than their lists save (docs/benchmarks.md, "The CPU
 * backend"). A fast image does not depend on the index. */
static inline qr_render_mode qr_render_cpu_fast_index_mode(qr_render_mode mode)
{
    (void)mode;
    return QR_RENDER_EXACT;
}

/* Builds the index of the scene's current state over rows [y0, y1) of a
 * width x height image (params: NULL = qr_index_params_default; the index
 * of qr_render_cpu_fast_index_mode) and renders
 * those rows into band, a width x (y1 - y0) image whose row 0 is image row
 * y0, on `threads` threads (0: qr_threads()). Sides 1..QR_IMAGE_BANDS_MAX_DIM,
 * 0 <= y0 < y1 <= height; else QR_ERR_INVALID. timing may be NULL. */
qr_status qr_render_cpu_fast_band(const qr_scene *scene, const qr_index_params *params,
                                  qr_render_mode mode, int threads, int32_t width,
                                  int32_t height, int32_t y0, int32_t y1, qr_image *band,
                                  qr_cpu_timing *timing, qr_error *err);

/* The same for any rectangle of the image: pixels [x0, x1) x [y0, y1)
 * (image rows, row 0 = bottom) into out, an (x1 - x0) x (y1 - y0) image
 * whose pixel (0, 0) is image pixel (x0, y0): the same bytes as those
 * pixels of the whole image, in both modes. x0, and x1 unless it is the
 * width, must be multiples of QR_TILE (fast mode's pixel groups stop
 * together, on that grid); else QR_ERR_INVALID. A deep-zoom tile of an
 * image too large to hold. */
qr_status qr_render_cpu_fast_region(const qr_scene *scene, const qr_index_params *params,
                                    qr_render_mode mode, int threads, int32_t width,
                                    int32_t height, const qr_rect *region, qr_image *out,
                                    qr_cpu_timing *timing, qr_error *err);

/* The whole image: the band of all img's rows. */
qr_status qr_render_cpu_fast(const qr_scene *scene, const qr_index_params *params,
                             qr_render_mode mode, int threads, qr_image *img,
                             qr_cpu_timing *timing, qr_error *err);

/* The whole image, over img's pixels as they are: img holds what lies
 * behind the scene (the image of the circles before it), in place of the
 * background. A scene cut into chunks of consecutive circles
 * (qr_scene_view) drawn chunk after chunk, the first by qr_render_cpu_fast
 * and the rest by this, gives in QR_RENDER_EXACT the whole scene's image
 * byte for byte (each pixel sees the same blends in the same order), and in
 * QR_RENDER_FAST every channel within QR_FAST_TOLERANCE of it: a chunk
 * stops a pixel once what lies behind, the pixels' own colours, can move
 * it by no more than half of it, and a stop shrinks what the chunks behind
 * missed by as much. */
qr_status qr_render_cpu_fast_over(const qr_scene *scene, const qr_index_params *params,
                                  qr_render_mode mode, int threads, qr_image *img,
                                  qr_cpu_timing *timing, qr_error *err);

/* The same over rows [y0, y1) of a width x height image held in band (as
 * qr_render_cpu_fast_band's): a band drawn chunk by chunk. */
qr_status qr_render_cpu_fast_band_over(const qr_scene *scene, const qr_index_params *params,
                                       qr_render_mode mode, int threads, int32_t width,
                                       int32_t height, int32_t y0, int32_t y1, qr_image *band,
                                       qr_cpu_timing *timing, qr_error *err);

/* Fast mode chunk by chunk, front to back: the chunks are drawn from the
 * last (in front) to the first, each behind the colour the ones in front
 * gathered, so a pixel group stopped in front costs nothing behind; with
 * the whole scene's numbers, the image is qr_render_cpu_fast's of the whole
 * scene, byte for byte (each pixel takes the same circles in the same
 * order, and stops where it would).
 *
 * The numbers: the drawable flat circles' colour range and the scene's
 * depth (the circles' area), which decide where a pixel stops and whether
 * it can; gathered over every circle of the scene in order (init, then add
 * each chunk from the first), as one pass computes them. */
typedef struct qr_cpu_fast_numbers {
    float lo, hi;       /* colour range */
    double area;        /* summed in tasks of circles, as one pass sums it */
    double open;        /* the task not yet closed */
    int64_t circles;    /* circles added */
} qr_cpu_fast_numbers;
void qr_cpu_fast_numbers_init(qr_cpu_fast_numbers *numbers);
void qr_cpu_fast_numbers_add(qr_cpu_fast_numbers *numbers, const qr_scene *chunk);

/* Whether fast mode stops early on a scene of these numbers and the
 * picture of `picture` (its background; qr_scene_is_plain's options): if
 * not, its walk is exact mode's, and chunks go back to front
 * (qr_render_cpu_fast_over). */
int qr_render_cpu_fast_stops(const qr_scene *picture, const qr_cpu_fast_numbers *numbers);

/* Draws chunk `scene` behind what img holds (front: nothing; else the
 * colour gathered in front and, in the alpha channel, the transmittance
 * left); back: the chunk is the scene's first (the last behind), and img
 * then gets the finished image (the background through what is left).
 * numbers: the whole scene's. For scenes where qr_render_cpu_fast_stops. */
qr_status qr_render_cpu_fast_under(const qr_scene *scene, const qr_index_params *params,
                                   int threads, qr_image *img, const qr_cpu_fast_numbers *numbers,
                                   int front, int back, qr_cpu_timing *timing, qr_error *err);

/* The same over rows [y0, y1) of a width x height image held in band. */
qr_status qr_render_cpu_fast_band_under(const qr_scene *scene, const qr_index_params *params,
                                        int threads, int32_t width, int32_t height, int32_t y0,
                                        int32_t y1, qr_image *band,
                                        const qr_cpu_fast_numbers *numbers, int front, int back,
                                        qr_cpu_timing *timing, qr_error *err);

/* Renders from an index built for this scene over a region of its image
 * (qr_index_build_host, or a GPU build downloaded; its sides on the
 * QR_TILE grid as above) into band, an image of the region's size; the whole image when
 * the index's region is. Its min_leaf must be at least QR_TILE (the fast
 * renderers above raise a smaller one to QR_TILE: the image is the same). */
qr_status qr_render_cpu_index(const qr_scene *scene, const qr_index *index,
                              qr_render_mode mode, int threads, qr_image *band, qr_error *err);

#ifdef __cplusplus
}
#endif
#endif
