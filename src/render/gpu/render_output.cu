/* render_output.cu — a render's image back to the host: whole, as floats
 * (qr_gpu_renderer_download), as top-first float RGB
 * (qr_gpu_renderer_download_rgb), or streamed into an image file
 * (qr_gpu_renderer_write).
 *
 * The streamed write converts on the GPU to what the file stores (8-bit RGB
 * for PNG and PPM, float RGB for PFM: image_gpu.h), so that a quarter (or
 * three quarters) of the float image's bytes cross the bus, and brings it
 * back in row bands through two pinned buffers: while the writer encodes
 * one band, the GPU converts and copies the next. The host never holds
 * more than two bands. The RGB download streams the same way (PFM's rows,
 * 12 bytes a pixel), each band copied from its slot into the caller's
 * image, flipped to top first, on the host's threads.
 */
#include "render/gpu/renderer.h"
#include "image/gpu/image_gpu.h"
#include "image/gpu/png_gpu.h"
#include "gpu/cuda_check.h"
#include "quadrender/threads.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of one band of file rows: big enough that a copy outlasts its
 * launch overhead, small enough that the first band comes back early. */
#define BAND_BYTES ((size_t)16 << 20)

extern "C" qr_status qr_gpu_renderer_download(const qr_gpu_renderer *r, qr_image *img, qr_error *err)
{
    if (r->banded)
        return qr_fail(err, QR_ERR_INVALID, "a %dx%d image rendered in bands is never whole on the GPU",
                       r->width, r->height);
    if (img->width != r->width || img->height != r->height)
        return qr_fail(err, QR_ERR_INVALID, "image is %dx%d, the renderer's %dx%d", img->width,
                       img->height, r->width, r->height);
    QR_CUDA_TRY(err, cudaMemcpy(img->rgba, r->image, (size_t)r->width * r->height * sizeof(float4),
                                cudaMemcpyDeviceToHost));
    return QR_OK;
}

extern "C" qr_status qr_gpu_renderer_copy_image(const qr_gpu_renderer *r, void *dst, qr_error *err)
{
    if (r->banded)
        return qr_fail(err, QR_ERR_INVALID, "a %dx%d image rendered in bands is never whole on the GPU",
                       r->width, r->height);
    /* the legacy stream waits for the frame's (blocking) stream */
    QR_CUDA_TRY(err, cudaMemcpy(dst, r->image, (size_t)r->width * r->height * sizeof(float4),
                                cudaMemcpyDeviceToDevice));
    return QR_OK;
}

void qr_render_output_release(qr_gpu_renderer *r)
{
    for (int k = 0; k < 2; k++) {
        cudaFree(r->band_dev[k]);
        cudaFreeHost(r->band_host[k]);
        if (r->band_done[k]) cudaEventDestroy(r->band_done[k]);
        r->band_dev[k] = r->band_host[k] = NULL;
        r->band_done[k] = NULL;
    }
    r->band_bytes = 0;
}

qr_status qr_render_output_slots(qr_gpu_renderer *r, size_t bytes, qr_error *err)
{
    if (r->band_bytes >= bytes) return QR_OK;
    /* the slots may still be in use by a write that failed half way */
    QR_CUDA_TRY(err, cudaStreamSynchronize(r->frame.stream));
    qr_render_output_release(r);
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < 2 && e == cudaSuccess; k++) {
        e = cudaMalloc(&r->band_dev[k], bytes);
        if (e == cudaSuccess) e = cudaHostAlloc(&r->band_host[k], bytes, cudaHostAllocDefault);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&r->band_done[k], cudaEventDisableTiming);
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        qr_render_output_release(r);
        return qr_fail(err, qr_cuda_status(e), "streaming the image out needs 2 x %zu bytes of GPU and pinned host memory: %s",
                       bytes, cudaGetErrorString(e));
    }
    r->band_bytes = bytes;
    return QR_OK;
}

/* The bytes of a file row, the rows of a band (about BAND_BYTES) and the
 * two slots that hold them. */
static qr_status plan_bands(qr_gpu_renderer *r, int px, size_t *row_bytes, int32_t *band, qr_error *err)
{
    *row_bytes = (size_t)r->width * (size_t)px;
    int32_t b = (int32_t)(BAND_BYTES / *row_bytes);
    *band = b < 1 ? 1 : b > r->height ? r->height : b;
    return qr_render_output_slots(r, (size_t)*band * *row_bytes, err);
}

/* Queues file rows [first, first + rows) of the whole image, converted for
 * the file (px: qr_file_px), into band slot k and their copy into its
 * pinned host twin. */
static cudaError_t queue_band(qr_gpu_renderer *r, int px, int32_t first, int32_t rows, int k,
                              size_t row_bytes)
{
    qr_rows_args a;
    a.image = r->image;
    a.width = r->width;
    a.height = r->height;
    a.first = first;
    a.rows = rows;
    a.out = r->band_dev[k];
    a.out_pitch = 0;
    a.out_x = 0;
    const cudaStream_t s = r->frame.stream; /* behind the frame's render */
    cudaError_t e = qr_launch_rows_px(&a, px, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(r->band_host[k], r->band_dev[k], (size_t)rows * row_bytes,
                            cudaMemcpyDeviceToHost, s);
    return e;
}

/* Where a band of rows goes once on the host (stream_bands): `rows` holds
 * file rows [first, first + count), in a pinned slot the next band but one
 * reuses. */
typedef qr_status (*band_sink)(void *ctx, const void *rows, int32_t first, int32_t count,
                               qr_error *err);

/* Brings the whole image back as file rows (px: qr_file_px; float RGB from
 * the bottom row, 8-bit rows from the top) in bands of `band` rows through the two
 * slots, each band handed to sink: band k is queued in round k into slot
 * k % 2 and handed over in round k + 1, so that the GPU converts and copies
 * one band while the host takes the one before. */
static qr_status stream_bands(qr_gpu_renderer *r, int px, size_t row_bytes, int32_t band,
                              band_sink sink, void *ctx, qr_error *err)
{
    const cudaStream_t s = r->frame.stream; /* behind the frame's render */
    const int32_t bands = (r->height + band - 1) / band;
    qr_status st = QR_OK;
    for (int32_t k = 0; k <= bands && st == QR_OK; k++) {
        if (k < bands) {
            const int32_t first = k * band;
            cudaError_t e = queue_band(r, px, first, r->height - first < band ? r->height - first : band,
                                       k & 1, row_bytes);
            if (e == cudaSuccess) e = cudaEventRecord(r->band_done[k & 1], s);
            if (e != cudaSuccess) {
                st = qr_fail(err, qr_cuda_status(e), "streaming the image out: %s", cudaGetErrorString(e));
                break;
            }
        }
        if (k > 0) {
            const int32_t j = k - 1, first = j * band;
            const int32_t rows = r->height - first < band ? r->height - first : band;
            cudaError_t e = cudaEventSynchronize(r->band_done[j & 1]);
            if (e != cudaSuccess) {
                st = qr_fail(err, qr_cuda_status(e), "streaming the image out: %s", cudaGetErrorString(e));
                break;
            }
            st = sink(ctx, r->band_host[j & 1], first, rows, err);
        }
    }
    if (st) cudaStreamSynchronize(s); /* no band copy may outlive the call */
    return st;
}

/* stream_bands' sink of qr_gpu_renderer_write: appends the band to the
 * writer (ctx). */
static qr_status append_band(void *ctx, const void *rows, int32_t first, int32_t count,
                             qr_error *err)
{
    qr_image_writer *w = (qr_image_writer *)ctx;
    (void)first;
    return qr_image_writer_format(w) == QR_FORMAT_PFM
               ? qr_image_writer_append_rgbf(w, (const float *)rows, count, err)
               : qr_image_writer_append_rgb8(w, (const unsigned char *)rows, count, err);
}

/* The whole image into a PNG writer through the GPU's encoder, in batches
 * of rows converted straight into its slot. Its buffers short:
 * QR_ERR_GPU_NOMEM before anything is written. */
static qr_status write_gpu_png(qr_gpu_renderer *r, qr_image_writer *w, const qr_png_params *pp,
                               qr_error *err)
{
    const int px = qr_image_writer_pixel_bytes(w);
    const size_t row_bytes = (size_t)r->width * (size_t)px;
    const size_t batch = qr_gpu_png_batch_bytes(row_bytes, r->height);
    int32_t band = (int32_t)(batch / row_bytes);
    band = band < 1 ? 1 : band > r->height ? r->height : band;
    qr_gpu_png *g = NULL;
    qr_status st = qr_gpu_png_create(r->width, r->height, pp, band, batch, r->frame.stream, &g, err);
    for (int32_t first = 0; st == QR_OK && first < r->height; first += band) {
        qr_rows_args a;
        a.image = r->image;
        a.width = r->width;
        a.height = r->height;
        a.first = first;
        a.rows = r->height - first < band ? r->height - first : band;
        a.out = qr_gpu_png_slot(g);
        a.out_pitch = 0;
        a.out_x = 0;
        cudaError_t e = qr_launch_rows_px(&a, px, r->frame.stream);
        st = e == cudaSuccess ? qr_gpu_png_push(g, a.rows, w, err)
                              : qr_fail(err, qr_cuda_status(e), "converting rows: %s", cudaGetErrorString(e));
    }
    if (st == QR_OK)
        st = qr_gpu_png_finish(g, w, err);
    qr_gpu_png_free(g);
    return st;
}

extern "C" qr_status qr_gpu_renderer_write(qr_gpu_renderer *r, qr_image_writer *w, qr_error *err)
{
    if (r->banded)
        return qr_fail(err, QR_ERR_INVALID, "a %dx%d image rendered in bands is written as it renders (qr_gpu_render_write)",
                       r->width, r->height);
    qr_png_params pp;
    if (qr_gpu_png_for(w, &pp)) {
        const qr_status st = write_gpu_png(r, w, &pp, err);
        if (!qr_gpu_png_host_instead(st, w))
            return st;
    }
    const int px = qr_image_writer_pixel_bytes(w);
    size_t row_bytes = 0;
    int32_t band = 0;
    qr_status st = plan_bands(r, px, &row_bytes, &band, err);
    if (st) return st;
    return stream_bands(r, px, row_bytes, band, append_band, w, err);
}

/* Bytes of a band a thread copies into the caller's image. */
#define RGB_PIECE_BYTES ((size_t)1 << 20)

/* qr_gpu_renderer_download_rgb's sink: the band's rows (float RGB, the
 * image's rows from `first` up) copied into the caller's top-first image on
 * `threads` threads, rows_per_task rows a task. */
typedef struct rgb_sink {
    float *dst;
    int32_t height, rows_per_task;
    size_t row_bytes;
    int threads;
    const char *band; /* the band being copied, */
    int32_t first, count; /* its rows */
} rgb_sink;

static void copy_rgb_rows(void *ctx, int task)
{
    const rgb_sink *o = (const rgb_sink *)ctx;
    const int32_t a = task * o->rows_per_task;
    const int32_t b = o->count - a < o->rows_per_task ? o->count : a + o->rows_per_task;
    for (int32_t j = a; j < b; j++) /* the image's row first + j, from the bottom */
        memcpy((char *)o->dst + (size_t)(o->height - 1 - o->first - j) * o->row_bytes,
               o->band + (size_t)j * o->row_bytes, o->row_bytes);
}

static qr_status rgb_band(void *ctx, const void *rows, int32_t first, int32_t count, qr_error *err)
{
    rgb_sink *o = (rgb_sink *)ctx;
    (void)err;
    o->band = (const char *)rows;
    o->first = first;
    o->count = count;
    const int tasks = (count + o->rows_per_task - 1) / o->rows_per_task;
    qr_parallel_for(tasks, o->threads, copy_rgb_rows, o);
    return QR_OK;
}

extern "C" qr_status qr_gpu_renderer_download_rgb(qr_gpu_renderer *r, float *dst, int threads,
                                                 qr_error *err)
{
    if (r->banded)
        return qr_fail(err, QR_ERR_INVALID, "a %dx%d image rendered in bands is never whole on the GPU",
                       r->width, r->height);
    if (!dst) return qr_fail(err, QR_ERR_INVALID, "no host image to download into");
    rgb_sink o = {dst, r->height, 1, 0, threads, NULL, 0, 0};
    int32_t band = 0;
    qr_status st = plan_bands(r, QR_PX_RGBF, &o.row_bytes, &band, err);
    if (st) return st;
    if (RGB_PIECE_BYTES / o.row_bytes > 1)
        o.rows_per_task = (int32_t)(RGB_PIECE_BYTES / o.row_bytes);
    return stream_bands(r, QR_PX_RGBF, o.row_bytes, band, rgb_band, &o, err);
}

extern "C" qr_status qr_gpu_renderer_read_rows(qr_gpu_renderer *r, qr_image_format format, int alpha,
                                              void *rows, qr_error *err)
{
    if (r->banded)
        return qr_fail(err, QR_ERR_INVALID, "a %dx%d image rendered in bands is never whole on the GPU",
                       r->width, r->height);
    if (alpha && format != QR_FORMAT_PNG)
        return qr_fail(err, QR_ERR_INVALID, "only PNG rows keep the alpha channel");
    const int px = qr_file_px(format, alpha);
    size_t row_bytes = 0;
    int32_t band = 0;
    qr_status st = plan_bands(r, px, &row_bytes, &band, err);
    if (st) return st;
    const cudaStream_t s = r->frame.stream; /* behind the frame's render */
    for (int32_t first = 0; first < r->height; first += band) {
        const int32_t rows_n = r->height - first < band ? r->height - first : band;
        cudaError_t e = queue_band(r, px, first, rows_n, 0, row_bytes);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) {
            cudaStreamSynchronize(s);
            return qr_fail(err, qr_cuda_status(e), "reading the image back: %s", cudaGetErrorString(e));
        }
        memcpy((char *)rows + (size_t)first * row_bytes, r->band_host[0], (size_t)rows_n * row_bytes);
    }
    return QR_OK;
}
