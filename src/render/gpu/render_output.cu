/* render_output.cu — a render's image back to the host: whole, as floats
 * (qr_gpu_renderer_download), or streamed into an image file
 * (qr_gpu_renderer_write).
 *
 * The streamed write converts on the GPU to what the file stores (8-bit RGB
 * for PNG and PPM, float RGB for PFM: image_gpu.h), so that a quarter (or
 * three quarters) of the float image's bytes cross the bus, and brings it
 * back in row bands through two pinned buffers: while the writer encodes
 * one band, the GPU converts and copies the next. The host never holds
 * more than two bands.
 */
#include "render/gpu/renderer.h"
#include "image/gpu/image_gpu.h"
#include "gpu/cuda_check.h"

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
static qr_status plan_bands(qr_gpu_renderer *r, int pfm, size_t *row_bytes, int32_t *band, qr_error *err)
{
    *row_bytes = (size_t)r->width * 3 * (pfm ? sizeof(float) : 1);
    int32_t b = (int32_t)(BAND_BYTES / *row_bytes);
    *band = b < 1 ? 1 : b > r->height ? r->height : b;
    return qr_render_output_slots(r, (size_t)*band * *row_bytes, err);
}

/* Queues file rows [first, first + rows) of the whole image, converted for
 * the file (pfm: float RGB, else 8-bit), into band slot k and their copy
 * into its pinned host twin. */
static cudaError_t queue_band(qr_gpu_renderer *r, int pfm, int32_t first, int32_t rows, int k,
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
    cudaError_t e = pfm ? qr_launch_rows_rgbf(&a, s) : qr_launch_rows_rgb8(&a, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(r->band_host[k], r->band_dev[k], (size_t)rows * row_bytes,
                            cudaMemcpyDeviceToHost, s);
    return e;
}

extern "C" qr_status qr_gpu_renderer_write(qr_gpu_renderer *r, qr_image_writer *w, qr_error *err)
{
    if (r->banded)
        return qr_fail(err, QR_ERR_INVALID, "a %dx%d image rendered in bands is written as it renders (qr_gpu_render_write)",
                       r->width, r->height);
    const qr_image_format format = qr_image_writer_format(w);
    const int pfm = format == QR_FORMAT_PFM;
    size_t row_bytes = 0;
    int32_t band = 0;
    qr_status st = plan_bands(r, pfm, &row_bytes, &band, err);
    if (st) return st;
    const cudaStream_t s = r->frame.stream; /* behind the frame's render */
    const int32_t bands = (r->height + band - 1) / band;
    /* band k: queued in round k into slot k % 2, appended in round k + 1 */
    for (int32_t k = 0; k <= bands && st == QR_OK; k++) {
        if (k < bands) {
            const int32_t first = k * band;
            cudaError_t e = queue_band(r, pfm, first, r->height - first < band ? r->height - first : band,
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
            st = pfm ? qr_image_writer_append_rgbf(w, (const float *)r->band_host[j & 1], rows, err)
                     : qr_image_writer_append_rgb8(w, (const unsigned char *)r->band_host[j & 1], rows, err);
        }
    }
    if (st) cudaStreamSynchronize(s); /* no band copy may outlive the call */
    return st;
}

extern "C" qr_status qr_gpu_renderer_read_rows(qr_gpu_renderer *r, qr_image_format format, void *rows,
                                              qr_error *err)
{
    if (r->banded)
        return qr_fail(err, QR_ERR_INVALID, "a %dx%d image rendered in bands is never whole on the GPU",
                       r->width, r->height);
    const int pfm = format == QR_FORMAT_PFM;
    size_t row_bytes = 0;
    int32_t band = 0;
    qr_status st = plan_bands(r, pfm, &row_bytes, &band, err);
    if (st) return st;
    const cudaStream_t s = r->frame.stream; /* behind the frame's render */
    for (int32_t first = 0; first < r->height; first += band) {
        const int32_t rows_n = r->height - first < band ? r->height - first : band;
        cudaError_t e = queue_band(r, pfm, first, rows_n, 0, row_bytes);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) {
            cudaStreamSynchronize(s);
            return qr_fail(err, qr_cuda_status(e), "reading the image back: %s", cudaGetErrorString(e));
        }
        memcpy((char *)rows + (size_t)first * row_bytes, r->band_host[0], (size_t)rows_n * row_bytes);
    }
    return QR_OK;
}
