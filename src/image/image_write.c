/* image_write.c — the whole-image writers: a float RGBA qr_image (row 0 at
 * the bottom) to a PNG, PPM or PFM file, through the streaming writer
 * (image_stream.c), or to a PNG in memory, through the PNG encoder
 * (png_encoder.h) on a memory stream; either way in bands of about
 * BAND_BYTES, so that a write needs memory for one band beyond the image
 * itself. Each band is converted on the writer's threads: one thread
 * converts floats to bytes more slowly than all cores encode PNG.
 */
#define _POSIX_C_SOURCE 200809L
#include "quadrender/image.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/thread_start.h"
#include "image/image_bytes.h"
#include "image/png_encoder.h"

#define BAND_BYTES (8 << 20)
/* Rows converted by one thread at the least: below that a thread costs
 * more than it saves. */
#define MIN_CONVERT_BYTES (256 << 10)

static qr_status check_image(const qr_image *img, const char *path, qr_error *err)
{
    if (!path)
        return qr_fail(err, QR_ERR_INVALID, "no output file name");
    if (!img || !img->rgba || img->width < 1 || img->height < 1 ||
        img->width > QR_IMAGE_MAX_DIM || img->height > QR_IMAGE_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID, "%s: not a valid image to write", path);
    return QR_OK;
}

static const float *image_row(const qr_image *img, int32_t j)
{
    return img->rgba + (size_t)j * (size_t)img->width * 4;
}

/* 8-bit RGB, alpha dropped; or with alpha, 8-bit straight RGBA. */
static void row_to_bytes(const float *src, int32_t width, int alpha, unsigned char *dst)
{
    if (alpha) {
        for (int32_t i = 0; i < width; i++)
            qr_to_rgba8(src[4 * i + 0], src[4 * i + 1], src[4 * i + 2], src[4 * i + 3],
                        dst + 4 * i);
        return;
    }
    for (int32_t i = 0; i < width; i++) {
        dst[3 * i + 0] = qr_to_byte(src[4 * i + 0]);
        dst[3 * i + 1] = qr_to_byte(src[4 * i + 1]);
        dst[3 * i + 2] = qr_to_byte(src[4 * i + 2]);
    }
}

/* Alpha dropped, bits kept as they are (NaN payloads included). */
static void row_to_rgbf(const float *src, int32_t width, float *dst)
{
    for (int32_t i = 0; i < width; i++)
        memcpy(dst + 3 * (size_t)i, src + 4 * (size_t)i, 3 * sizeof(float));
}

/* Rows [first, first + n) of a band, in file order, converted into buf as
 * pixels of pixel_bytes (qr_image_pixel_bytes): PFM's float RGB, bottom row
 * first, or 8-bit RGBA or RGB, top row first. */
typedef struct convert_job {
    const qr_image *img;
    int pixel_bytes;
    int32_t band_first, first, n;
    void *buf;
} convert_job;

static void *convert_rows(void *arg)
{
    const convert_job *c = arg;
    const qr_image *img = c->img;
    const int pfm = c->pixel_bytes == QR_PFM_PIXEL_BYTES;
    const size_t row_bytes = (size_t)img->width * (size_t)c->pixel_bytes;
    for (int32_t r = c->first; r < c->first + c->n; r++) {
        /* PNG and PPM store the top row (our last) first, PFM the bottom one. */
        int32_t k = c->band_first + r;
        int32_t j = pfm ? k : img->height - 1 - k;
        unsigned char *dst = (unsigned char *)c->buf + (size_t)r * row_bytes;
        if (pfm)
            row_to_rgbf(image_row(img, j), img->width, (float *)(void *)dst);
        else
            row_to_bytes(image_row(img, j), img->width, c->pixel_bytes == 4, dst);
    }
    return NULL;
}

/* Converts n rows from file row band_first on, split over up to `threads`
 * threads; falls back to fewer (down to this one) if a thread won't start. */
static void convert_band(const qr_image *img, int pixel_bytes, int32_t band_first, int32_t n,
                         void *buf, int threads)
{
    const size_t row_bytes = (size_t)img->width * (size_t)pixel_bytes;
    int64_t most = (int64_t)((size_t)n * row_bytes / MIN_CONVERT_BYTES);
    if (threads > most)
        threads = most < 1 ? 1 : (int)most;
    convert_job jobs[QR_IMAGE_MAX_THREADS];
    pthread_t tids[QR_IMAGE_MAX_THREADS];
    int started = 0;
    for (int t = 0; t < threads; t++) {
        int32_t a = (int32_t)((int64_t)n * t / threads), b = (int32_t)((int64_t)n * (t + 1) / threads);
        jobs[t] = (convert_job){img, pixel_bytes, band_first, a, b - a, buf};
        if (t == threads - 1 || qr_thread_start(&tids[started], convert_rows, &jobs[t]) != 0) {
            /* the last part, and any a thread refused, is done here */
            convert_rows(&jobs[t]);
        } else {
            started++;
        }
    }
    for (int t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
}

qr_status qr_image_file_rows(const qr_image *img, qr_image_format format, int alpha,
                             int32_t first, int32_t n, void *rows, qr_error *err)
{
    if (format != QR_FORMAT_PNG && format != QR_FORMAT_PPM && format != QR_FORMAT_PFM)
        return qr_fail(err, QR_ERR_INVALID, "rows of an unknown image format");
    qr_status st = qr_image_check_alpha(format, alpha, "file rows", err);
    if (st != QR_OK)
        return st;
    if (!img || !img->rgba || !rows || first < 0 || n < 1 || n > img->height - first)
        return qr_fail(err, QR_ERR_INVALID, "file rows [%d, %d) of a %d-row image", (int)first,
                       (int)(first + n), img ? (int)img->height : 0);
    convert_band(img, qr_image_pixel_bytes(format, alpha), first, n, rows, qr_image_threads(0));
    return QR_OK;
}

/* Where append_image sends each band of converted rows. */
typedef qr_status (*rows_sink)(void *to, const void *rows, int32_t n, qr_error *err);

static qr_status to_writer(void *to, const void *rows, int32_t n, qr_error *err)
{
    qr_image_writer *w = to;
    return qr_image_writer_pixel_bytes(w) == QR_PFM_PIXEL_BYTES
               ? qr_image_writer_append_rgbf(w, rows, n, err)
               : qr_image_writer_append_rgb8(w, rows, n, err);
}

static qr_status to_png_encoder(void *to, const void *rows, int32_t n, qr_error *err)
{
    return qr_png_encoder_rows(to, rows, n, err);
}

/* Sends every row of img to `to`, in the file's order and as its pixels
 * of pixel_bytes (QR_PFM_PIXEL_BYTES: PFM's, else PNG's and PPM's),
 * converted in bands of about BAND_BYTES on `threads` threads. */
static qr_status append_image(const qr_image *img, int pixel_bytes, rows_sink sink, void *to,
                              int threads, qr_error *err)
{
    const size_t row_bytes = (size_t)img->width * (size_t)pixel_bytes;
    int32_t band = (int32_t)(BAND_BYTES / row_bytes);
    if (band < 1)
        band = 1;
    if (band > img->height)
        band = img->height;
    void *buf = malloc((size_t)band * row_bytes);
    if (!buf)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: %zu bytes for a band of rows",
                       (size_t)band * row_bytes);
    qr_status st = QR_OK;
    for (int32_t done = 0; st == QR_OK && done < img->height; done += band) {
        int32_t n = img->height - done < band ? img->height - done : band;
        convert_band(img, pixel_bytes, done, n, buf, threads);
        st = sink(to, buf, n, err);
    }
    free(buf);
    return st;
}

qr_status qr_image_writer_append_image(qr_image_writer *w, const qr_image *rows, qr_error *err)
{
    if (!rows || !rows->rgba || rows->width < 1 || rows->height < 1)
        return qr_fail(err, QR_ERR_INVALID, "appending an empty image");
    return append_image(rows, qr_image_writer_pixel_bytes(w), to_writer, w, qr_image_threads(0),
                        err);
}

static qr_status write_format(const qr_image *img, const char *path, qr_image_format format,
                              const qr_image_write_options *opts, qr_error *err)
{
    qr_status st = check_image(img, path, err);
    if (st != QR_OK)
        return st;
    qr_image_writer *w = NULL;
    st = qr_image_writer_open(path, format, img->width, img->height, opts, &w, err);
    if (st == QR_OK)
        st = append_image(img, qr_image_writer_pixel_bytes(w), to_writer, w,
                          qr_image_threads(opts ? opts->threads : 0), err);
    if (st == QR_OK)
        return qr_image_writer_close(w, err);
    if (w)
        qr_image_writer_abort(w);
    return st;
}

qr_status qr_image_write_with(const qr_image *img, const char *path,
                              const qr_image_write_options *opts, qr_error *err)
{
    qr_image_format f = qr_image_format_from_path(path);
    if (f == QR_FORMAT_UNKNOWN)
        return qr_fail(err, QR_ERR_INVALID,
                       "cannot tell the image format of '%s': use .png, .ppm or .pfm",
                       path ? path : "");
    return write_format(img, path, f, opts, err);
}

qr_status qr_image_write_as(const qr_image *img, const char *path, qr_image_format format,
                            const qr_image_write_options *opts, qr_error *err)
{
    if (format != QR_FORMAT_PNG && format != QR_FORMAT_PPM && format != QR_FORMAT_PFM)
        return qr_fail(err, QR_ERR_INVALID, "%s: unknown image format", path ? path : "");
    return write_format(img, path, format, opts, err);
}

qr_status qr_image_write(const qr_image *img, const char *path, qr_error *err)
{
    return qr_image_write_with(img, path, NULL, err);
}

qr_status qr_image_write_png(const qr_image *img, const char *path, qr_error *err)
{
    return write_format(img, path, QR_FORMAT_PNG, NULL, err);
}

qr_status qr_image_write_ppm(const qr_image *img, const char *path, qr_error *err)
{
    return write_format(img, path, QR_FORMAT_PPM, NULL, err);
}

qr_status qr_image_write_pfm(const qr_image *img, const char *path, qr_error *err)
{
    return write_format(img, path, QR_FORMAT_PFM, NULL, err);
}

qr_status qr_image_encode_png(const qr_image *img, const qr_image_write_options *opts,
                              unsigned char **png, size_t *len, qr_error *err)
{
    static const char name[] = "PNG in memory";
    if (!png || !len)
        return qr_fail(err, QR_ERR_INVALID, "qr_image_encode_png: no output pointer");
    *png = NULL;
    *len = 0;
    qr_image_write_options o;
    qr_status st = check_image(img, name, err);
    if (st == QR_OK)
        st = qr_image_options_check(opts, QR_FORMAT_PNG, name, &o, err);
    if (st != QR_OK)
        return st;
    char *buf = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&buf, &size);
    if (!mem)
        return qr_fail(err, QR_ERR_NOMEM, "%s: out of host memory", name);
    qr_png_params p = qr_png_params_of(&o);
    qr_png_encoder *e = NULL;
    st = qr_png_encoder_open(mem, name, img->width, img->height, &p, &e, err);
    if (st == QR_OK)
        st = append_image(img, p.pixel_bytes, to_png_encoder, e, p.threads, err);
    if (st == QR_OK)
        st = qr_png_encoder_finish(e, err);
    qr_png_encoder_free(e);
    if (fclose(mem) != 0 && st == QR_OK)
        st = qr_fail(err, QR_ERR_NOMEM, "%s: out of host memory", name);
    if (st != QR_OK) {
        free(buf);
        return st;
    }
    *png = (unsigned char *)buf;
    *len = size;
    return QR_OK;
}
