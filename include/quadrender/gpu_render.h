/* quadrender/gpu_render.h — the GPU renderer: whole images, bands, file rows, streamed output
 * (src/render/gpu).
 */
#ifndef QUADRENDER_GPU_RENDER_H
#define QUADRENDER_GPU_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include "quadrender/error.h"
#include "quadrender/image.h"
#include "quadrender/render_mode.h"
#include "quadrender/gpu_index.h"
#include "quadrender/gpu_scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the GPU renderer -------------------------------------------------------
 * Builds the index of a scene and renders it into a device image. One object
 * per image size; it owns the index and the image and reuses both, so
 * rendering frame after frame allocates nothing once warm. */
/* qr_render_mode and QR_FAST_TOLERANCE: quadrender/render_mode.h */

typedef struct qr_frame_timing {
    qr_build_timing build; /* index stages */
    float render_ms;       /* the render kernel */
    float frame_ms;        /* build + render, first event to last */
} qr_frame_timing;

typedef struct qr_gpu_renderer qr_gpu_renderer;

qr_status qr_gpu_renderer_create(int32_t width, int32_t height, qr_gpu_renderer **out,
                                 qr_error *err);
void qr_gpu_renderer_destroy(qr_gpu_renderer *r);

/* Builds the index for the scene's current state and renders it: one CUDA
 * graph for both. Returns once the build is checked (and, rarely, redone);
 * the render may still be running, so that a caller's next frame is queued
 * behind it (qr_gpu_renderer_download waits for it; with timing on,
 * qr_gpu_render itself does). */
qr_status qr_gpu_render(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                        const qr_index_params *params, qr_render_mode mode, qr_error *err);

/* Copies the image into img (same size). In fast mode the alpha channel is
 * left at 1: only colour is computed. */
qr_status qr_gpu_renderer_download(const qr_gpu_renderer *r, qr_image *img, qr_error *err);

/* Writes the last render into w, opened for the renderer's size: converted
 * on the GPU to what the file stores (8-bit RGB through qr_to_byte for PNG
 * and PPM, so exact mode's bytes equal the CPU reference's; float RGB for
 * PFM) and brought back in row bands, each band's copy overlapping the
 * encoding of the one before. Does not close w. */
qr_status qr_gpu_renderer_write(qr_gpu_renderer *r, qr_image_writer *w, qr_error *err);

/* ---- scenes larger than the GPU: depth-ordered chunks ----------------------
 * A scene drawn chunk by chunk, each chunk a scene of consecutive circles
 * in depth (file) order (qr_scene_view, qr_scene_stream_read) uploaded in
 * turn: the first chunk (over = 0) is rendered over the background, each
 * later one (over = 1) over the image the chunks before it left, every
 * pixel blending the chunk's circles in order onto the colour it holds.
 * After the last chunk the image is the whole scene's, whatever the
 * chunks: exact mode's bytes are qr_gpu_render's to the bit (the blends of
 * one pass, in one pass's order). Fast mode draws the chunks with the
 * exact walk, the alpha channel left at 1: qr_gpu_render's fast image where
 * that takes the exact walk too (shallow scenes), else within its tolerance
 * of it; its own walk goes front to back (qr_gpu_render_chunk_under). Every chunk
 * carries the picture's options (background, shading, anti-aliased edges,
 * transparency). For a whole-image renderer (not bands); the image stays
 * on the device, for qr_gpu_renderer_write or _download after the last
 * chunk. With a budget (qr_gpu_renderer_set_budget), a chunk whose index
 * would take more than the budget leaves after the chunk and the image
 * fails with QR_ERR_GPU_NOMEM before it touches the image: render it again
 * in two halves. */
qr_status qr_gpu_render_chunk(qr_gpu_renderer *r, const qr_gpu_scene *chunk,
                              const qr_index_params *params, qr_render_mode mode, int over,
                              qr_error *err);

/* Fast mode front to back: whether fast mode draws a scene of these
 * numbers (qr_gpu_numbers, the whole scene's) with its early-stopping walk
 * (deep scenes, snow), whose chunks then go front to back
 * (qr_gpu_render_chunk_under); else it takes the exact walk, and
 * qr_gpu_render_chunk's chunks are its one pass. 0 in exact mode. */
int qr_gpu_chunks_front_to_back(const qr_gpu_numbers *whole, qr_render_mode mode);

/* Renders `chunk` in fast mode under the image the chunks in front of it
 * left: the chunks go from the scene's last (front = 1: from nothing) to
 * its first (back = 1: the background added), each pixel carrying its
 * colour and transmittance from chunk to chunk (in the alpha channel) and
 * stopping where one pass stops, at the whole scene's bound (`whole`, its
 * numbers): after the back chunk the image is qr_gpu_render's fast image
 * of the whole scene, to the bit (where the depth does not lie within
 * rounding of the walk's threshold). QR_ERR_INVALID where
 * qr_gpu_chunks_front_to_back says no. Otherwise as qr_gpu_render_chunk. */
qr_status qr_gpu_render_chunk_under(qr_gpu_renderer *r, const qr_gpu_scene *chunk,
                                    const qr_gpu_numbers *whole, const qr_index_params *params,
                                    int front, int back, qr_error *err);

/* The GPU bytes a whole renderer's chunks may take with their index, its
 * image and its write's band slots (qr_gpu_render_chunk; 0: no budget). */
void qr_gpu_renderer_set_budget(qr_gpu_renderer *r, size_t bytes);

/* ---- images larger than a frame: bands --------------------------------------
 * A banded renderer renders its image a region at a time, at most
 * band_w x band_h pixels (multiples of QR_REGION, or the image's sides), and
 * streams it into a writer band by band (qr_gpu_render_write); the whole
 * image exists neither on the GPU nor on the host, so its sides may reach
 * QR_IMAGE_BANDS_MAX_DIM. Its bytes equal the whole-image render's, in both
 * modes. qr_gpu_render and qr_gpu_renderer_download refuse it. */
qr_status qr_gpu_renderer_create_bands(int32_t width, int32_t height, int32_t band_w,
                                       int32_t band_h, qr_gpu_renderer **out, qr_error *err);
/* The widest and tallest band. */
#define QR_GPU_BAND_SIDE_MAX 32768

/* A renderer for a width x height image written as `format`, within a GPU
 * memory budget of `budget` bytes that covers the scene (already uploaded),
 * the index and the image's buffers (0: what the device has free now, less
 * some headroom, plus the scene). It renders whole when that fits (and the
 * sides are at most QR_IMAGE_MAX_DIM), else in bands as tall as fit; a band
 * whose lists outgrow the budget is rendered again at half the height.
 * QR_ERR_GPU_NOMEM, with the bytes needed, when not even a band of
 * QR_REGION rows fits. */
qr_status qr_gpu_renderer_create_budget(int32_t width, int32_t height, const qr_gpu_scene *scene,
                                        qr_image_format format, size_t budget,
                                        const qr_index_params *params, qr_gpu_renderer **out,
                                        qr_error *err);

/* Rows of one band (the image's height when the renderer renders whole). */
int32_t qr_gpu_renderer_band_rows(const qr_gpu_renderer *r);

/* Renders the scene and writes the image into w (opened for the renderer's
 * size; not closed): qr_gpu_render then qr_gpu_renderer_write for a whole
 * renderer, band after band for a banded one, each band rendering while the
 * one before is encoded. */
qr_status qr_gpu_render_write(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                              const qr_index_params *params, qr_render_mode mode,
                              qr_image_writer *w, qr_error *err);

/* Renders file rows [row0, row1) of the image, as the file of `format`
 * holds them (PNG and PPM: 8-bit RGB from the top row, or for a PNG of a
 * scene without a background (qr_scene.transparent) 8-bit RGBA, straight
 * alpha (qr_to_rgba8); PFM: float RGB from the bottom row), into host
 * memory `out` ((row1 - row0) rows of 3 or 4 * width bytes, or 3 * width
 * floats): the same bytes as those rows of qr_gpu_render_write's
 * file, rendered on the same grid. For work split over GPUs, threads or
 * processes, each rendering its own rows. Synchronous. */
qr_status qr_gpu_render_rows(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                             const qr_index_params *params, qr_render_mode mode,
                             qr_image_format format, int32_t row0, int32_t row1, void *out,
                             qr_error *err);

/* Renders one rectangle of the image, pixels [x0, x1) x [y0, y1) (image
 * rows, row 0 = bottom), as the file of `format` holds them (as
 * qr_gpu_render_rows: PNG and PPM from the rectangle's top row), into
 * host memory `out` ((y1 - y0) rows of (x1 - x0) pixels): the same bytes
 * as those pixels of the whole image. Its sides must lie on the QR_REGION
 * grid (or be the image's own right and top edges), and it must fit one
 * of the renderer's regions (a banded renderer's band_w x band_h; a whole
 * renderer's image); else QR_ERR_INVALID. A deep-zoom tile of an image
 * too large to hold: a renderer of bands as large as the tile renders
 * any tile of it. Synchronous. */
qr_status qr_gpu_render_rect(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                             const qr_index_params *params, qr_render_mode mode,
                             qr_image_format format, const qr_rect *rect, void *out,
                             qr_error *err);

/* Copies the last render's float RGBA image (row 0 = bottom) into device
 * memory dst (width * height * 4 floats): for callers that keep the image
 * on the GPU. For a whole-image renderer. */
qr_status qr_gpu_renderer_copy_image(const qr_gpu_renderer *r, void *dst, qr_error *err);

/* The last render's file rows, as qr_gpu_renderer_write would write them
 * (converted on the GPU: 8-bit RGB from the top row for PNG and PPM, or
 * with alpha (PNG only, else QR_ERR_INVALID) 8-bit RGBA through
 * qr_to_rgba8; float RGB from the bottom row for PFM), into rows: width *
 * height * 3 or 4 bytes, or 3 floats, a pixel, of host memory. For a
 * whole-image renderer. */
qr_status qr_gpu_renderer_read_rows(qr_gpu_renderer *r, qr_image_format format, int alpha,
                                    void *rows, qr_error *err);

/* The last render's colour as float RGB, row 0 the image's top row (what
 * Python's render returns): width * height * 3 floats of host memory at
 * dst, the float image's red, green and blue unchanged (no rounding, no
 * clamping). Converted on the GPU (12 bytes a pixel cross the bus), brought
 * back in bands through the renderer's two pinned slots (those of
 * qr_gpu_renderer_write, kept), and copied from them into dst on `threads`
 * threads (0: qr_threads()), each band's copy overlapping the next one's
 * transfer. For a whole-image renderer. Synchronous. */
qr_status qr_gpu_renderer_download_rgb(qr_gpu_renderer *r, float *dst, int threads,
                                       qr_error *err);

void qr_gpu_renderer_set_timing(qr_gpu_renderer *r, qr_timing level);
qr_status qr_gpu_renderer_timing(const qr_gpu_renderer *r, qr_frame_timing *t, qr_error *err);

/* Device bytes held: image plus index. */
size_t qr_gpu_renderer_device_bytes(const qr_gpu_renderer *r);

/* The index the renderer builds each frame, as the last render left it:
 * for its statistics (qr_gpu_index_download, qr_gpu_index_device_bytes).
 * Owned by the renderer, valid until qr_gpu_renderer_destroy; the next
 * render rebuilds it. */
qr_gpu_index *qr_gpu_renderer_index(qr_gpu_renderer *r);

/* ---- plans: index settings timed on the scene --------------------------------
 * For many frames of one scene (a sequence, a Python Renderer, bench):
 * renders the scene with each candidate of qr_index_plan_candidates(base)
 * (quadrender/index.h), one untimed frame then `trials` frames timed whole
 * with CUDA events (as bench times them), and chooses the fastest by median
 * (the earlier on a tie); a candidate whose tree comes out shaped as an
 * earlier one's (the same leaves, nodes, depth and pairs) takes that one's
 * median without being timed again. Later frames built with
 * plan->params[plan->chosen] cost about plan->median_ms[plan->chosen]; the
 * planning itself (plan->plan_ms: the wall time of all those frames, the
 * untimed ones and each candidate's first graph capture included) is what
 * the first frame costs beyond one frame. Images do not depend on the
 * choice: exact mode's bytes are the same with every index, fast mode's
 * within its tolerance. The renderer's timing level is kept; its image is
 * the last candidate's render. For a whole-image renderer. */
typedef struct qr_plan {
    int32_t candidates;                  /* how many were timed */
    int32_t chosen;                      /* the fastest's number */
    qr_index_params params[QR_PLAN_MAX]; /* each candidate's settings */
    float median_ms[QR_PLAN_MAX];        /* each candidate's median frame */
    double plan_ms;                      /* wall time of the planning */
} qr_plan;

qr_status qr_gpu_renderer_plan(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                               const qr_index_params *base, qr_render_mode mode, int32_t trials,
                               qr_plan *plan, qr_error *err);

/* How frames are launched: on (the default), once a first frame has sized
 * the lists, a frame (build and render, a dozen short kernels) is queued as
 * one CUDA graph; off, its kernels are launched one by one, for comparison
 * (`bench --direct`). The image is the same either way; only the time
 * changes. */
void qr_gpu_renderer_set_graph(qr_gpu_renderer *r, int on);

#ifdef __cplusplus
}
#endif
#endif
