/* image_write.c — PNG, PPM and PFM writers for float RGBA images.
 *
 * Every writer streams one row at a time through a small row buffer (an
 * image can be 32768 x 32768, 16 GiB of floats: a second full-size copy is
 * not an option) into a temporary file that replaces the target only when
 * complete (common/atomic_file.h).
 */
#include "quadrender/image.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic_file.h"

/* Level 3 costs a little size against zlib's default 6 but keeps a 1024 x 1024
 * frame's encoding well below its render time. */
#define QR_PNG_COMPRESSION_LEVEL 3

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

/* Shared tail of the stdio writers: a failed fwrite aborts with errno's text. */
static qr_status write_failed(qr_atomic_file *af, int e, const char *path, qr_error *err)
{
    qr_atomic_abort(af);
    return qr_fail(err, QR_ERR_IO, "%s: write failed: %s", path, strerror(e ? e : EIO));
}

qr_status qr_image_write(const qr_image *img, const char *path, qr_error *err)
{
    switch (qr_image_format_from_path(path)) {
    case QR_FORMAT_PNG: return qr_image_write_png(img, path, err);
    case QR_FORMAT_PPM: return qr_image_write_ppm(img, path, err);
    case QR_FORMAT_PFM: return qr_image_write_pfm(img, path, err);
    case QR_FORMAT_UNKNOWN: break;
    }
    return qr_fail(err, QR_ERR_INVALID, "cannot tell the image format of '%s': use .png, .ppm or .pfm",
                   path ? path : "");
}

/* ---- PPM ------------------------------------------------------------------ */

/* The start every writer shares: a valid image, a one-row buffer of
 * width * pixel_bytes (its size in *row_bytes), and the temporary file. On
 * failure nothing is left behind. */
static qr_status begin_write(const qr_image *img, const char *path, size_t pixel_bytes,
                             unsigned char **row, size_t *row_bytes_out, qr_atomic_file *af,
                             qr_error *err)
{
    qr_status st = check_image(img, path, err);
    if (st != QR_OK)
        return st;
    const size_t row_bytes = (size_t)img->width * pixel_bytes;
    *row_bytes_out = row_bytes;
    *row = malloc(row_bytes);
    if (!*row)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: %zu bytes for a row of %s", row_bytes, path);
    st = qr_atomic_open(af, path, err);
    if (st != QR_OK) {
        free(*row);
        *row = NULL;
    }
    return st;
}

static void row_to_bytes(const float *src, int32_t width, unsigned char *dst)
{
    for (int32_t i = 0; i < width; i++) {
        dst[3 * i + 0] = qr_to_byte(src[4 * i + 0]);
        dst[3 * i + 1] = qr_to_byte(src[4 * i + 1]);
        dst[3 * i + 2] = qr_to_byte(src[4 * i + 2]);
    }
}

qr_status qr_image_write_ppm(const qr_image *img, const char *path, qr_error *err)
{
    size_t row_bytes;
    unsigned char *row;
    qr_atomic_file af;
    qr_status st = begin_write(img, path, 3, &row, &row_bytes, &af, err);
    if (st != QR_OK)
        return st;
    /* Byte for byte the header the CS149 tool writes. */
    errno = 0;
    if (fprintf(af.fp, "P6\n%ld %ld\n255\n", (long)img->width, (long)img->height) < 0) {
        free(row);
        return write_failed(&af, errno, path, err);
    }
    for (int32_t j = img->height - 1; j >= 0; j--) {
        row_to_bytes(image_row(img, j), img->width, row);
        errno = 0;
        if (fwrite(row, 1, row_bytes, af.fp) != row_bytes) {
            free(row);
            return write_failed(&af, errno, path, err);
        }
    }
    free(row);
    return qr_atomic_commit(&af, err);
}

/* ---- PFM ------------------------------------------------------------------ */

/* Little-endian whatever the host: PFM's negative scale promises it. */
static void put_f32_le(unsigned char *dst, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    dst[0] = (unsigned char)(u & 0xffu);
    dst[1] = (unsigned char)((u >> 8) & 0xffu);
    dst[2] = (unsigned char)((u >> 16) & 0xffu);
    dst[3] = (unsigned char)((u >> 24) & 0xffu);
}

qr_status qr_image_write_pfm(const qr_image *img, const char *path, qr_error *err)
{
    size_t row_bytes;
    unsigned char *row;
    qr_atomic_file af;
    qr_status st = begin_write(img, path, 3 * 4, &row, &row_bytes, &af, err);
    if (st != QR_OK)
        return st;
    errno = 0;
    if (fprintf(af.fp, "PF\n%ld %ld\n-1.0\n", (long)img->width, (long)img->height) < 0) {
        free(row);
        return write_failed(&af, errno, path, err);
    }
    /* PFM stores the bottom row first, which is our row 0. */
    for (int32_t j = 0; j < img->height; j++) {
        const float *src = image_row(img, j);
        for (int32_t i = 0; i < img->width; i++) {
            put_f32_le(row + 12 * (size_t)i + 0, src[4 * i + 0]);
            put_f32_le(row + 12 * (size_t)i + 4, src[4 * i + 1]);
            put_f32_le(row + 12 * (size_t)i + 8, src[4 * i + 2]);
        }
        errno = 0;
        if (fwrite(row, 1, row_bytes, af.fp) != row_bytes) {
            free(row);
            return write_failed(&af, errno, path, err);
        }
    }
    free(row);
    return qr_atomic_commit(&af, err);
}

/* ---- PNG ------------------------------------------------------------------ */

/* What libpng's callbacks report back; lives in the caller of png_encode, so
 * it survives the longjmp with defined contents. */
typedef struct png_sink {
    FILE *fp;
    int io_errno;   /* non-zero once a write to fp failed */
    char msg[200];  /* libpng's own error text */
} png_sink;

static void png_on_error(png_structp png, png_const_charp msg)
{
    png_sink *sink = png_get_error_ptr(png);
    if (sink)
        snprintf(sink->msg, sizeof sink->msg, "%s", msg ? msg : "unknown libpng error");
    png_longjmp(png, 1);
}

/* The library never prints: libpng's warnings (none expected for 8-bit RGB)
 * are dropped rather than sent to stderr. */
static void png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* Our own write callback, rather than png_init_io, so that the errno of a
 * failed write is kept for the message. */
static void png_on_write(png_structp png, png_bytep data, png_size_t len)
{
    png_sink *sink = png_get_io_ptr(png);
    errno = 0;
    if (fwrite(data, 1, len, sink->fp) != len) {
        sink->io_errno = errno ? errno : EIO;
        png_error(png, "write failed");
    }
}

static void png_on_flush(png_structp png)
{
    (void)png; /* qr_atomic_commit flushes once at the end */
}

/* The part of the PNG writer that libpng may longjmp out of. It has no local
 * state that matters after the jump, so nothing here needs to be volatile. */
static int png_encode(png_structp png, png_infop info, const qr_image *img, unsigned char *row)
{
    if (setjmp(png_jmpbuf(png)))
        return -1;
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, QR_PNG_COMPRESSION_LEVEL);
    png_write_info(png, info);
    for (int32_t j = img->height - 1; j >= 0; j--) {
        row_to_bytes(image_row(img, j), img->width, row);
        png_write_row(png, row);
    }
    png_write_end(png, info);
    return 0;
}

qr_status qr_image_write_png(const qr_image *img, const char *path, qr_error *err)
{
    size_t row_bytes;
    unsigned char *row;
    qr_atomic_file af;
    qr_status st = begin_write(img, path, 3, &row, &row_bytes, &af, err);
    if (st != QR_OK)
        return st;
    png_sink sink = {.fp = af.fp, .io_errno = 0, .msg = ""};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, png_on_error,
                                              png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        qr_atomic_abort(&af);
        free(row);
        return qr_fail(err, QR_ERR_NOMEM, "%s: out of memory starting the PNG encoder", path);
    }
    png_set_write_fn(png, &sink, png_on_write, png_on_flush);

    int failed = png_encode(png, info, img, row) != 0;
    png_destroy_write_struct(&png, &info);
    free(row);
    if (failed) {
        qr_atomic_abort(&af);
        if (sink.io_errno)
            return qr_fail(err, QR_ERR_IO, "%s: write failed: %s", path, strerror(sink.io_errno));
        return qr_fail(err, QR_ERR_IO, "%s: cannot encode PNG: %s", path, sink.msg);
    }
    return qr_atomic_commit(&af, err);
}
