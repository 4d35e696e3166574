/* quadrender/render_cpu.h — the serial CPU reference renderer (the oracle).
 *
 * Follows the reference semantics of docs/scene-definitions.md exactly and
 * reproduces the CS149 reference renderer bit for bit on non-snow scenes:
 * clear to the scene's background, then for each circle in order, for each
 * pixel of its conservative pixel bounding box, test the pixel centre and
 * blend. Every GPU result is checked against this.
 */
#ifndef QUADRENDER_RENDER_CPU_H
#define QUADRENDER_RENDER_CPU_H

#include "quadrender/error.h"
#include "quadrender/image.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Clears img to the scene's background and draws every circle in order. */
qr_status qr_render_cpu(const qr_scene *scene, qr_image *img, qr_error *err);

/* Draws every circle in order over img's pixels as they are, without
 * clearing: img holds what lies behind the scene. A scene cut into chunks
 * of consecutive circles (qr_scene_view), drawn chunk after chunk, the
 * first by qr_render_cpu and the rest by this, gives qr_render_cpu's image
 * of the whole scene byte for byte: each pixel sees the same blends in the
 * same order. */
qr_status qr_render_cpu_over(const qr_scene *scene, qr_image *img, qr_error *err);

/* The same over rows [y0, y1) of a width x height image held in band (as
 * qr_render_cpu_band's). */
qr_status qr_render_cpu_band_over(const qr_scene *scene, int32_t width, int32_t height,
                                  int32_t y0, int32_t y1, qr_image *band, qr_error *err);

/* Rows [y0, y1) of the width x height image qr_render_cpu would draw
 * (row 0 = bottom), into band, a width x (y1 - y0) image whose row 0 is
 * image row y0: the same bytes as those rows of the whole image. Sides
 * 1..QR_IMAGE_BANDS_MAX_DIM, 0 <= y0 < y1 <= height; else QR_ERR_INVALID. */
qr_status qr_render_cpu_band(const qr_scene *scene, int32_t width, int32_t height, int32_t y0,
                             int32_t y1, qr_image *band, qr_error *err);

#ifdef __cplusplus
}
#endif
#endif
