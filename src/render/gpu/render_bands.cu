/* render_bands.cu — images a GPU frame does not hold whole: rendered a
 * region at a time and streamed into the writer band by band
 * (qr_gpu_render_write), so that neither the GPU nor the host ever holds
 * the whole image.
 *
 * A band is a run of whole image rows. Bands are cut from the bottom row up
 * at multiples of the band height (a multiple of QR_REGION), columns at
 * multiples of the tile width, so every region starts on the whole image's
 * grid of render blocks and every pixel is computed by the same walk over
 * the same circles in the same order as in a whole-image frame: the bytes
 * are the same (tested). The file takes the bands in its own order: PNG and
 * PPM from the top, PFM from the bottom. Each tile of a band (at most
 * QR_GPU_REGION_MAX columns) is one frame of its own, an index build and a
 * render over its region, converted into the band's rows at its columns;
 * while the host encodes band k, the GPU renders band k + 1 into the other
 * of two row slots.
 *
 * Memory: a budget (the caller's, or what the device has free) covers the
 * scene, one tile's floats (and exact mode's coverage counts), the two row
 * slots and the index of one tile. Bands start as tall as half of what the
 * scene and the index's per-circle buffers leave allows; a tile whose lists
 * would outgrow the rest fails the build with QR_ERR_GPU_NOMEM, and its band
 * is rendered again at half the height.
 */
#include "gpu/tuning.h"
#include "render/gpu/renderer.h"
#include "image/gpu/image_gpu.h"
#include "image/gpu/png_gpu.h"
#include "gpu/cuda_check.h"

#include <string.h>

/* Bytes a tile pixel holds on the GPU: its floats and exact mode's count. */
#define TILE_PX_BYTES (sizeof(float4) + sizeof(int32_t))
/* The most bytes of file rows one band slot holds (two on the GPU, two
 * pinned on the host): bands this tall already keep the copies long and
 * the encoders busy, and taller ones only delay the first band and hold
 * host memory. */
#define SLOT_MAX_BYTES ((size_t)128 << 20)


/* Device bytes of a band of `rows` rows: the tile's pixels and two slots. */
static size_t band_bytes(int32_t tile_w, int32_t rows, size_t row_bytes)
{
    return (size_t)rows * ((size_t)tile_w * TILE_PX_BYTES + 2 * row_bytes);
}

static_assert(QR_GPU_BAND_SIDE_MAX == QR_GPU_REGION_MAX, "gpu_render.h's band limit is the index's region limit");

extern "C" qr_status qr_gpu_renderer_create_bands(int32_t width, int32_t height, int32_t band_w,
                                                  int32_t band_h, qr_gpu_renderer **out,
                                                  qr_error *err)
{
    *out = NULL;
    if (width < 1 || height < 1 || width > QR_IMAGE_BANDS_MAX_DIM || height > QR_IMAGE_BANDS_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID, "image size %dx%d out of range (1..%d)", width, height,
                       QR_IMAGE_BANDS_MAX_DIM);
    if (band_w < 1 || band_h < 1 || band_w > QR_GPU_REGION_MAX || band_h > QR_GPU_REGION_MAX ||
        (band_w < width && band_w % QR_REGION) || (band_h < height && band_h % QR_REGION))
        return qr_fail(err, QR_ERR_INVALID,
                       "bands of %dx%d pixels: each side must be a multiple of %d up to %d, or the image's",
                       band_w, band_h, QR_REGION, QR_GPU_REGION_MAX);
    if (band_w > width) band_w = width;
    if (band_h > height) band_h = height;
    qr_status st = qr_renderer_make(width, height, band_w, band_h, out, err);
    /* every band's region differs: a graph would be captured for each */
    if (!st && (*out)->banded) qr_gpu_renderer_set_graph(*out, 0);
    return st;
}

extern "C" qr_status qr_gpu_renderer_create_budget(int32_t width, int32_t height,
                                                   const qr_gpu_scene *scene,
                                                   qr_image_format format, size_t budget,
                                                   const qr_index_params *params,
                                                   qr_gpu_renderer **out, qr_error *err)
{
    *out = NULL;
    if (width < 1 || height < 1 || width > QR_IMAGE_BANDS_MAX_DIM || height > QR_IMAGE_BANDS_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID, "image size %dx%d out of range (1..%d)", width, height,
                       QR_IMAGE_BANDS_MAX_DIM);
    if (budget == 0) {
        /* what is free now, less headroom for the driver and CUB, plus the
         * scene already uploaded */
        size_t free_b = 0, total_b = 0;
        QR_CUDA_TRY(err, cudaMemGetInfo(&free_b, &total_b));
        size_t headroom = total_b / 20 > ((size_t)256 << 20) ? total_b / 20 : ((size_t)256 << 20);
        budget = qr_gpu_scene_device_bytes(scene) + (free_b > headroom ? free_b - headroom : 0);
    }
    const int32_t tile_w = width < QR_GPU_REGION_MAX ? width : QR_GPU_REGION_MAX;
    const qr_rect first = {0, 0, tile_w, height < QR_GPU_REGION_MAX ? height : QR_GPU_REGION_MAX};
    size_t fixed = 0;
    qr_status st = qr_gpu_index_fixed_bytes(scene->n, width, height, &first, params, &fixed, err);
    if (st) return st;
    /* a PNG of a scene without a background keeps its alpha (qr_job_run) */
    const size_t row_bytes = (size_t)width * (size_t)qr_file_px(format, scene->transparent);
    const size_t base = qr_gpu_scene_device_bytes(scene) + fixed;
    /* the bands get half of what the scene and the index leave; the other
     * half is for the index's lists */
    const size_t per_row = band_bytes(tile_w, 1, row_bytes);
    const size_t left = budget > base ? budget - base : 0;
    long long rows = (long long)(left / 2 / per_row);
    if (rows >= height && tile_w == width && height <= QR_GPU_REGION_MAX) {
        st = qr_gpu_renderer_create(width, height, out, err); /* it fits whole */
        if (!st) (*out)->budget = budget;
        return st;
    }
    if (rows > (long long)(SLOT_MAX_BYTES / row_bytes)) rows = (long long)(SLOT_MAX_BYTES / row_bytes);
    rows -= rows % QR_REGION;
    if (rows > QR_GPU_REGION_MAX) rows = QR_GPU_REGION_MAX;
    if (rows < QR_REGION && rows < height) {
        const int32_t min_rows = height < QR_REGION ? height : QR_REGION;
        return qr_fail(err, QR_ERR_GPU_NOMEM,
                       "a GPU memory budget of %zu bytes cannot hold one band of %d rows: that needs at "
                       "least %zu (scene %zu, index %zu, band %zu, as much again for its lists)",
                       budget, min_rows, base + 2 * band_bytes(tile_w, min_rows, row_bytes),
                       qr_gpu_scene_device_bytes(scene), fixed, band_bytes(tile_w, min_rows, row_bytes));
    }
    st = qr_gpu_renderer_create_bands(width, height, tile_w, (int32_t)rows, out, err);
    if (!st) (*out)->budget = budget;
    return st;
}

int32_t qr_gpu_renderer_band_rows(const qr_gpu_renderer *r)
{
    return r->tile_h;
}

/* Makes the tile buffers hold `rows` rows (freeing the larger ones first). */
static qr_status shrink_tiles(qr_gpu_renderer *r, int32_t rows, qr_error *err)
{
    QR_CUDA_TRY(err, cudaStreamSynchronize(r->frame.stream));
    cudaFree(r->image);
    cudaFree(r->counts);
    r->image = NULL;
    r->counts = NULL; /* made again on first use, at the new size */
    r->tile_h = rows;
    const size_t bytes = (size_t)r->tile_w * rows * sizeof(float4);
    cudaError_t e = cudaMalloc((void **)&r->image, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError();
        r->image = NULL;
        return qr_fail(err, qr_cuda_status(e), "a band of %dx%d pixels needs %zu bytes of GPU memory: %s",
                       r->tile_w, rows, bytes, cudaGetErrorString(e));
    }
    return QR_OK;
}

/* What the index may take: the budget less the scene and the band buffers
 * (counts included, made or not). */
static void limit_index(qr_gpu_renderer *r, const qr_gpu_scene *scene, size_t slot_bytes)
{
    if (!r->budget) return;
    const size_t taken = qr_gpu_scene_device_bytes(scene) + (size_t)r->tile_w * r->tile_h * TILE_PX_BYTES +
                         2 * slot_bytes;
    qr_gpu_index_set_limit(r->index, r->budget > taken ? r->budget - taken : 1);
}

/* Renders band rows [y0, y1) tile by tile into device slot `slot`. */
static qr_status render_band(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                             const qr_index_params *params, qr_render_mode mode, int px, int32_t y0,
                             int32_t y1, void *slot, qr_error *err)
{
    for (int32_t x0 = 0; x0 < r->width; x0 += r->tile_w) {
        const qr_rect region = {x0, y0, x0 + r->tile_w < r->width ? x0 + r->tile_w : r->width, y1};
        qr_status st = qr_gpu_render_region(r, scene, params, mode, &region, err);
        if (st) return st;
        qr_rows_args a;
        a.image = r->image;
        a.width = region.x1 - region.x0;
        a.height = y1 - y0;
        a.first = 0;
        a.rows = y1 - y0;
        a.out = slot;
        a.out_pitch = r->width;
        a.out_x = x0;
        cudaError_t e = qr_launch_rows_px(&a, px, r->frame.stream);
        if (e != cudaSuccess)
            return qr_fail(err, qr_cuda_status(e), "converting a band: %s", cudaGetErrorString(e));
    }
    return QR_OK;
}

/* The bands, each rendered, copied back and appended while the next one
 * renders. */
static qr_status write_bands(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                             const qr_index_params *params, qr_render_mode mode, qr_image_writer *w,
                             qr_error *err)
{
    const int px = qr_image_writer_pixel_bytes(w), pfm = px == QR_PX_RGBF;
    const size_t row_bytes = (size_t)r->width * (size_t)px;
    const cudaStream_t s = r->frame.stream;
    qr_status st = qr_render_output_slots(r, (size_t)r->tile_h * row_bytes, err);
    if (st) return st;
    /* rows [done_lo, done_hi) are queued or written: PNG and PPM grow them
     * downwards from the top, PFM upwards from the bottom */
    int32_t next_lo = 0, next_hi = r->height;
    int32_t pend_rows = 0, k = 0;
    for (;;) {
        int32_t y0 = 0, y1 = 0;
        if (next_lo < next_hi) {
            const int32_t h = r->tile_h;
            if (pfm) {
                y0 = next_lo;
                y1 = next_lo + h < next_hi ? next_lo + h : next_hi;
            } else {
                y1 = next_hi;
                y0 = (next_hi - 1) / h * h; /* on the band grid from the bottom */
            }
            limit_index(r, scene, r->band_bytes);
            st = render_band(r, scene, params, mode, px, y0, y1, r->band_dev[k & 1], err);
            if (st == QR_ERR_GPU_NOMEM && r->tile_h > QR_REGION) {
                /* this band's lists outgrew the budget: halve the bands */
                int32_t rows = r->tile_h / 2;
                rows -= rows % QR_REGION;
                st = shrink_tiles(r, rows, err);
                if (st) break;
                continue;
            }
            if (st) break;
            cudaError_t e = cudaMemcpyAsync(r->band_host[k & 1], r->band_dev[k & 1],
                                            (size_t)(y1 - y0) * row_bytes, cudaMemcpyDeviceToHost, s);
            if (e == cudaSuccess) e = cudaEventRecord(r->band_done[k & 1], s);
            if (e != cudaSuccess) {
                st = qr_fail(err, qr_cuda_status(e), "streaming a band out: %s", cudaGetErrorString(e));
                break;
            }
            if (pfm) next_lo = y1;
            else next_hi = y0;
        }
        /* the band before this one: its copy is done or nearly */
        if (pend_rows) {
            const int j = (k + 1) & 1;
            cudaError_t e = cudaEventSynchronize(r->band_done[j]);
            if (e != cudaSuccess) {
                st = qr_fail(err, qr_cuda_status(e), "streaming a band out: %s", cudaGetErrorString(e));
                break;
            }
            st = pfm ? qr_image_writer_append_rgbf(w, (const float *)r->band_host[j], pend_rows, err)
                     : qr_image_writer_append_rgb8(w, (const unsigned char *)r->band_host[j], pend_rows, err);
            if (st) break;
        }
        pend_rows = y1 - y0;
        if (!pend_rows) break;
        k++;
    }
    if (st) cudaStreamSynchronize(s); /* no band copy may outlive the call */
    return st;
}

/* The bands of a PNG compressed on the GPU (png_gpu.h): each band
 * rendered straight into the encoder's slot, from the top; only the
 * compressed bytes come back. */
static qr_status write_bands_gpu_png(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                                     const qr_index_params *params, qr_render_mode mode,
                                     qr_image_writer *w, const qr_png_params *pp, qr_error *err)
{
    const int px = qr_image_writer_pixel_bytes(w);
    const size_t row_bytes = (size_t)r->width * (size_t)px;
    qr_gpu_png *g = NULL;
    qr_status st = qr_gpu_png_create(r->width, r->height, pp, r->tile_h,
                                     qr_gpu_png_batch_bytes(row_bytes, r->height), r->frame.stream,
                                     &g, err);
    for (int32_t next_hi = r->height; st == QR_OK && next_hi > 0;) {
        const int32_t h = r->tile_h;
        const int32_t y1 = next_hi, y0 = (next_hi - 1) / h * h; /* on the band grid from the bottom */
        limit_index(r, scene, 0);
        st = render_band(r, scene, params, mode, px, y0, y1, qr_gpu_png_slot(g), err);
        if (st == QR_ERR_GPU_NOMEM && r->tile_h > QR_REGION) {
            int32_t rows = r->tile_h / 2; /* this band's lists outgrew the budget */
            rows -= rows % QR_REGION;
            st = shrink_tiles(r, rows, err);
            continue;
        }
        if (st == QR_OK)
            st = qr_gpu_png_push(g, y1 - y0, w, err);
        next_hi = y0;
    }
    if (st == QR_OK)
        st = qr_gpu_png_finish(g, w, err);
    qr_gpu_png_free(g);
    return st;
}

/* Renders file rows [row0, row1) into host `out`: image rows on the render
 * grid (regions from a multiple of QR_REGION, at most a band tall) covering
 * them, each converted on the GPU and its wanted rows copied back. */
static qr_status render_rows(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                             const qr_index_params *params, qr_render_mode mode,
                             qr_image_format format, int32_t row0, int32_t row1, void *out,
                             qr_error *err)
{
    const int pfm = format == QR_FORMAT_PFM;
    /* a PNG of a scene without a background keeps its alpha (qr_job_run) */
    const int px = qr_file_px(format, scene->transparent);
    const size_t row_bytes = (size_t)r->width * (size_t)px;
    /* the image rows (row 0 = bottom) the file rows are */
    const int32_t lo = pfm ? row0 : r->height - row1, hi = pfm ? row1 : r->height - row0;
    qr_status st = qr_render_output_slots(r, (size_t)r->tile_h * row_bytes, err);
    for (int32_t y0 = lo - lo % QR_REGION; st == QR_OK && y0 < hi;) {
        const int32_t y1 = y0 + r->tile_h < r->height ? y0 + r->tile_h : r->height;
        limit_index(r, scene, r->band_bytes);
        st = render_band(r, scene, params, mode, px, y0, y1, r->band_dev[0], err);
        if (st == QR_ERR_GPU_NOMEM && r->tile_h > QR_REGION) {
            int32_t rows = r->tile_h / 2;
            rows -= rows % QR_REGION;
            st = shrink_tiles(r, rows, err);
            continue;
        }
        if (st) break;
        /* the band's file rows [f0, f1) in the slot; of them [a, b) are wanted */
        const int32_t f0 = pfm ? y0 : r->height - y1, f1 = pfm ? y1 : r->height - y0;
        const int32_t a = f0 > row0 ? f0 : row0, b = f1 < row1 ? f1 : row1;
        cudaError_t e = cudaMemcpyAsync((char *)out + (size_t)(a - row0) * row_bytes,
                                        (const char *)r->band_dev[0] + (size_t)(a - f0) * row_bytes,
                                        (size_t)(b - a) * row_bytes, cudaMemcpyDeviceToHost,
                                        r->frame.stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(r->frame.stream);
        if (e != cudaSuccess)
            st = qr_fail(err, qr_cuda_status(e), "copying rows back: %s", cudaGetErrorString(e));
        y0 = y1;
    }
    return st;
}

extern "C" qr_status qr_gpu_render_rows(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                                       const qr_index_params *params, qr_render_mode mode,
                                       qr_image_format format, int32_t row0, int32_t row1,
                                       void *out, qr_error *err)
{
    if (format != QR_FORMAT_PNG && format != QR_FORMAT_PPM && format != QR_FORMAT_PFM)
        return qr_fail(err, QR_ERR_INVALID, "rows of an unknown image format");
    if (row0 < 0 || row1 <= row0 || row1 > r->height || !out)
        return qr_fail(err, QR_ERR_INVALID, "file rows [%d, %d) of a %d-row image", row0, row1,
                       r->height);
    /* every region differs: no graph is captured for them */
    qr_gpu_renderer_set_graph(r, 0);
    qr_status st = render_rows(r, scene, params, mode, format, row0, row1, out, err);
    qr_gpu_index_set_limit(r->index, 0);
    return st;
}

extern "C" qr_status qr_gpu_render_rect(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                                       const qr_index_params *params, qr_render_mode mode,
                                       qr_image_format format, const qr_rect *rect, void *out,
                                       qr_error *err)
{
    if (format != QR_FORMAT_PNG && format != QR_FORMAT_PPM && format != QR_FORMAT_PFM)
        return qr_fail(err, QR_ERR_INVALID, "a rectangle of an unknown image format");
    if (!rect || !out || rect->x0 < 0 || rect->y0 < 0 || rect->x1 > r->width || rect->y1 > r->height ||
        rect->x0 >= rect->x1 || rect->y0 >= rect->y1 || rect->x0 % QR_REGION || rect->y0 % QR_REGION ||
        (rect->x1 % QR_REGION && rect->x1 != r->width) || (rect->y1 % QR_REGION && rect->y1 != r->height))
        return qr_fail(err, QR_ERR_INVALID,
                       "pixels [%d,%d) x [%d,%d) are not a rectangle of the %dx%d image on the %d-pixel "
                       "grid", rect ? rect->x0 : 0, rect ? rect->x1 : 0, rect ? rect->y0 : 0,
                       rect ? rect->y1 : 0, r->width, r->height, QR_REGION);
    if (rect->x1 - rect->x0 > r->tile_w || rect->y1 - rect->y0 > r->tile_h)
        return qr_fail(err, QR_ERR_INVALID, "a %dx%d rectangle is larger than the renderer's %dx%d regions",
                       rect->x1 - rect->x0, rect->y1 - rect->y0, r->tile_w, r->tile_h);
    const int px = qr_file_px(format, scene->transparent);
    const int32_t w = rect->x1 - rect->x0, h = rect->y1 - rect->y0;
    const size_t bytes = (size_t)w * (size_t)h * (size_t)px;
    /* every rectangle differs: no graph is captured for them */
    qr_gpu_renderer_set_graph(r, 0);
    qr_status st = qr_render_output_slots(r, bytes, err);
    if (!st) {
        limit_index(r, scene, r->band_bytes);
        st = qr_gpu_render_region(r, scene, params, mode, rect, err);
    }
    if (!st) {
        qr_rows_args a;
        a.image = r->image;
        a.width = w;
        a.height = h;
        a.first = 0;
        a.rows = h;
        a.out = r->band_dev[0];
        a.out_pitch = w;
        a.out_x = 0;
        cudaError_t e = qr_launch_rows_px(&a, px, r->frame.stream);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(out, r->band_dev[0], bytes, cudaMemcpyDeviceToHost, r->frame.stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(r->frame.stream);
        if (e != cudaSuccess)
            st = qr_fail(err, qr_cuda_status(e), "a rectangle's pixels: %s", cudaGetErrorString(e));
    }
    qr_gpu_index_set_limit(r->index, 0);
    return st;
}

extern "C" qr_status qr_gpu_render_write(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                                        const qr_index_params *params, qr_render_mode mode,
                                        qr_image_writer *w, qr_error *err)
{
    if (!r->banded) {
        qr_status st = qr_gpu_render(r, scene, params, mode, err);
        return st ? st : qr_gpu_renderer_write(r, w, err);
    }
    qr_png_params pp;
    const int on_gpu = qr_gpu_png_for(w, &pp);
    qr_status st = on_gpu ? write_bands_gpu_png(r, scene, params, mode, w, &pp, err) : QR_OK;
    if (!on_gpu || qr_gpu_png_host_instead(st, w))
        st = write_bands(r, scene, params, mode, w, err);
    qr_gpu_index_set_limit(r->index, 0);
    return st;
}
