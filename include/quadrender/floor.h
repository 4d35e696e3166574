/* quadrender/floor.h — the least work a scene asks of any renderer,
 * whatever its index.
 *
 * What a frame time is set beside (`quadrender bench --report`), so that a
 * frame is read against the scene's own demands (a scene of large
 * overlapping circles needs more blends than one of small scattered ones)
 * rather than against other scenes' frames. Counted on the CPU with the
 * reference renderer's math, so that the pairs counted are the renderers':
 *
 *   visible      circles with a non-empty pixel box (those any index keeps)
 *   box_tests    pixel-circle tests the reference renderer makes (the sum of
 *                the visible circles' box areas)
 *   covered      pixel-circle pairs that blend: a whole exact walk does each
 *   fast_blends  the blends front to back until the pixel's transmittance
 *                drops to fast mode's stop (0.5 * QR_FAST_TOLERANCE, snow
 *                shading's alpha for snow scenes): what fast mode must do
 *   bytes        packed circles read once (32 B each) and the image written
 *                once (16 B per pixel)
 */
#ifndef QUADRENDER_FLOOR_H
#define QUADRENDER_FLOOR_H

#include <stdint.h>

#include "quadrender/error.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qr_work_floor {
    int32_t visible;          /* circles with a non-empty box in the image */
    int64_t box_tests, covered, fast_blends;
    double bytes;             /* 32 B per visible circle + 16 B per pixel */
} qr_work_floor;

/* Counts for the scene's current state on a width x height image, on
 * `threads` threads (0: qr_threads(), quadrender/threads.h). The counts do
 * not depend on the thread count. QR_ERR_INVALID when width or height is
 * below 1, QR_ERR_NOMEM out of host memory (*out is then untouched). */
qr_status qr_work_floor_count(const qr_scene *scene, int32_t width, int32_t height, int threads,
                              qr_work_floor *out, qr_error *err);

#ifdef __cplusplus
}
#endif
#endif
