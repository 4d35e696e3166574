/* renderer.h — the GPU renderer object, and its frame: the index's build
 * with the render kernels queued behind it (quadtree/gpu/frame.h runs it).
 * Internal to the library; the public API is quadrender/gpu.h.
 */
#ifndef QR_RENDER_RENDERER_H
#define QR_RENDER_RENDERER_H

#include "quadrender/gpu_render.h"
#include "quadtree/gpu/frame.h"
#include "render/gpu/render_kernels.h"
#include "image/gpu/image_gpu.h"

struct qr_gpu_renderer {
    int32_t width, height; /* the image */
    /* The region a frame renders: the whole image, or for a banded
     * renderer (render_bands.cu) at most tile_w x tile_h of it at a time. */
    int32_t tile_w, tile_h;
    int banded;
    size_t budget;      /* banded: GPU bytes the scene, index and buffers may take (0: none) */
    float4 *image;      /* tile_w * tile_h, the region's rows from its bottom one */
    int32_t *counts;    /* likewise, covering circles, for exact windows; made on first use */
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
    /* anti-aliased edges: the scene's radii widened for this image (the
     * index's r, the render's pos), aa_cap circles each; made on first use */
    float *aa_r;
    float4 *aa_pos;
    int32_t aa_cap;
};

/* Makes a renderer for a width x height image whose frames render regions
 * of at most tile_w x tile_h (renderer.cu; the public constructors are
 * qr_gpu_renderer_create and qr_gpu_renderer_create_bands). */
qr_status qr_renderer_make(int32_t width, int32_t height, int32_t tile_w, int32_t tile_h,
                           qr_gpu_renderer **out, qr_error *err);

/* One frame of `region` of the image (NULL: the whole image), into the
 * renderer's image buffer (renderer.cu). */
qr_status qr_gpu_render_region(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                               const qr_index_params *params, qr_render_mode mode,
                               const qr_rect *region, qr_error *err);

/* The bytes of a pixel of a file's rows, as the GPU converts them
 * (image/gpu/image_gpu.h): float RGB for PFM, 8-bit RGBA for a PNG that
 * keeps the alpha channel (alpha: PNG only), else 8-bit RGB. */
enum { QR_PX_RGB8 = 3, QR_PX_RGBA8 = 4, QR_PX_RGBF = 12 };
static inline int qr_file_px(qr_image_format format, int alpha)
{
    return format == QR_FORMAT_PFM                ? QR_PX_RGBF
           : format == QR_FORMAT_PNG && alpha ? QR_PX_RGBA8
                                              : QR_PX_RGB8;
}

/* Queues the conversion of a's rows into px-byte pixels (qr_file_px). */
static inline cudaError_t qr_launch_rows_px(qr_rows_args *a, int px, cudaStream_t s)
{
    a->alpha = px == QR_PX_RGBA8;
    return px == QR_PX_RGBF ? qr_launch_rows_rgbf(a, s) : qr_launch_rows_rgb8(a, s);
}

/* Frees the streamed write's band buffers (render_output.cu). */
void qr_render_output_release(qr_gpu_renderer *r);
/* Two band slots of at least `bytes` each, device and pinned host. */
qr_status qr_render_output_slots(qr_gpu_renderer *r, size_t bytes, qr_error *err);

#endif
