/* image_write.c — the whole-image writers: a float RGBA qr_image (row 0 at
 * the bottom) to a PNG, PPM or PFM file, through the streaming writer
 * (image_stream.c) in bands of about BAND_BYTES, so that a write needs
 * memory for one band beyond the image itself.
 */
#include "quadrender/image.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BAND_BYTES (1 << 20)

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

static void row_to_bytes(const float *src, int32_t width, unsigned char *dst)
{
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

static qr_status write_format(const qr_image *img, const char *path, qr_image_format format,
                              const qr_image_write_options *opts, qr_error *err)
{
    qr_status st = check_image(img, path, err);
    if (st != QR_OK)
        return st;
    const int pfm = format == QR_FORMAT_PFM;
    const size_t row_bytes = (size_t)img->width * 3 * (pfm ? sizeof(float) : 1);
    int32_t band = (int32_t)(BAND_BYTES / row_bytes);
    if (band < 1)
        band = 1;
    if (band > img->height)
        band = img->height;
    void *buf = malloc((size_t)band * row_bytes);
    if (!buf)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: %zu bytes for a band of %s",
                       (size_t)band * row_bytes, path);
    qr_image_writer *w;
    st = qr_image_writer_open(path, format, img->width, img->height, opts, &w, err);
    /* PNG and PPM store the top row (our last) first, PFM the bottom one. */
    for (int32_t done = 0; st == QR_OK && done < img->height; done += band) {
        int32_t n = img->height - done < band ? img->height - done : band;
        for (int32_t r = 0; r < n; r++) {
            int32_t j = pfm ? done + r : img->height - 1 - (done + r);
            if (pfm)
                row_to_rgbf(image_row(img, j), img->width, (float *)buf + (size_t)r * img->width * 3);
            else
                row_to_bytes(image_row(img, j), img->width, (unsigned char *)buf + (size_t)r * row_bytes);
        }
        st = pfm ? qr_image_writer_append_rgbf(w, buf, n, err)
                 : qr_image_writer_append_rgb8(w, buf, n, err);
    }
    free(buf);
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
