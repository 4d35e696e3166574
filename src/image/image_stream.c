/* image_stream.c — the streaming image writer (qr_image_writer, see
 * include/quadrender/image.h).
 *
 * PPM and PFM rows go straight to the file; PNG rows go to the parallel
 * encoder (png_encoder.h). Either way the bytes land in a temporary file
 * that replaces the target only on a successful close
 * (common/atomic_file.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "quadrender/image.h"
#include "quadrender/threads.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "image/image_part_bytes.h"
#include "image/image_parts.h"
#include "image/image_bytes.h"
#include "image/png_encoder.h"

/* stdio's buffer: large writes of whole bands pass it by, small ones (headers,
 * PNG chunk framing) gather in it. */
#define IO_BUFFER_BYTES (1 << 20)
struct qr_image_writer {
    qr_atomic_file af;
    qr_image_format format;
    int32_t width, height;
    int png_level;
    qr_png_deflate png_deflate;
    int pixel_bytes; /* of the rows it takes: 3, 4 (PNG with alpha) or 12 (PFM) */
    int64_t rows_in;
    qr_png_encoder *png;
    char *iobuf;
    unsigned char *conv; /* PFM on a big-endian host: one row of little-endian floats */
    qr_error fail;       /* sticky: the first failure */
};

static void writer_free(qr_image_writer *w)
{
    qr_png_encoder_free(w->png);
    free(w->conv);
    free(w->iobuf);
    free(w);
}

/* Records the first failure, removes the temporary file and answers it. */
static qr_status writer_failed(qr_image_writer *w, qr_error *err)
{
    if (w->af.fp || w->af.tmp_path[0]) {
        qr_png_encoder_free(w->png); /* its threads stop before the file goes */
        w->png = NULL;
        qr_atomic_abort(&w->af);
    }
    return qr_fail(err, w->fail.status, "%s", w->fail.msg);
}

static qr_status write_bytes(qr_image_writer *w, const void *data, size_t len, qr_error *err)
{
    errno = 0;
    if (fwrite(data, 1, len, w->af.fp) != len) {
        int e = errno ? errno : EIO;
        qr_fail(&w->fail, QR_ERR_IO, "%s: write failed: %s", w->af.path, strerror(e));
        return writer_failed(w, err);
    }
    return QR_OK;
}

qr_status qr_image_writer_open(const char *path, qr_image_format format, int32_t width,
                               int32_t height, const qr_image_write_options *opts,
                               qr_image_writer **out, qr_error *err)
{
    if (!out)
        return qr_fail(err, QR_ERR_INVALID, "qr_image_writer_open: no output pointer");
    *out = NULL;
    if (!path)
        return qr_fail(err, QR_ERR_INVALID, "no output file name");
    if (format != QR_FORMAT_PNG && format != QR_FORMAT_PPM && format != QR_FORMAT_PFM)
        return qr_fail(err, QR_ERR_INVALID, "%s: unknown image format", path);
    if (width < 1 || height < 1 || width > QR_IMAGE_WRITER_MAX_DIM ||
        height > QR_IMAGE_WRITER_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID, "%s: cannot write a %ldx%ld image (1..%d a side)",
                       path, (long)width, (long)height, QR_IMAGE_WRITER_MAX_DIM);
    qr_image_write_options o;
    qr_status st = qr_image_options_check(opts, format, path, &o, err);
    if (st != QR_OK)
        return st;

    qr_image_writer *w = calloc(1, sizeof *w);
    if (!w)
        return qr_fail(err, QR_ERR_NOMEM, "%s: out of memory starting the writer", path);
    w->format = format;
    w->width = width;
    w->height = height;
    w->png_level = o.png_level;
    w->png_deflate = o.deflate;
    w->pixel_bytes = qr_image_pixel_bytes(format, o.alpha);
    qr_error_clear(&w->fail);
    w->iobuf = malloc(IO_BUFFER_BYTES);
    if (!w->iobuf || (format == QR_FORMAT_PFM && !qr_host_is_little_endian() &&
                      !(w->conv = malloc((size_t)width * (size_t)w->pixel_bytes)))) {
        writer_free(w);
        return qr_fail(err, QR_ERR_NOMEM, "%s: out of memory starting the writer", path);
    }
    st = qr_atomic_open(&w->af, path, err);
    if (st != QR_OK) {
        writer_free(w);
        return st;
    }
    setvbuf(w->af.fp, w->iobuf, _IOFBF, IO_BUFFER_BYTES);

    if (format == QR_FORMAT_PNG) {
        qr_png_params p = qr_png_params_of(&o);
        st = qr_png_encoder_open(w->af.fp, path, width, height, &p, &w->png, err);
    } else {
        /* Byte for byte the headers the CS149 tool and the PFM convention use. */
        char head[64];
        int n = snprintf(head, sizeof head, format == QR_FORMAT_PPM ? "P6\n%ld %ld\n255\n"
                                                                    : "PF\n%ld %ld\n-1.0\n",
                         (long)width, (long)height);
        errno = 0;
        if (fwrite(head, 1, (size_t)n, w->af.fp) != (size_t)n)
            st = qr_fail(err, QR_ERR_IO, "%s: write failed: %s", path,
                         strerror(errno ? errno : EIO));
    }
    if (st != QR_OK) {
        qr_png_encoder_free(w->png);
        qr_atomic_abort(&w->af);
        writer_free(w);
        return st;
    }
    *out = w;
    return QR_OK;
}

/* The checks every append makes. */
static qr_status check_append(qr_image_writer *w, qr_image_format want, const void *rows,
                              int32_t nrows, qr_error *err)
{
    if (!w)
        return qr_fail(err, QR_ERR_INVALID, "no image writer");
    if (w->fail.status != QR_OK)
        return qr_fail(err, w->fail.status, "%s", w->fail.msg);
    if (nrows < 0 || (nrows > 0 && !rows))
        qr_fail(&w->fail, QR_ERR_INVALID, "%s: no rows to append", w->af.path);
    else if ((want == QR_FORMAT_PFM) != (w->format == QR_FORMAT_PFM))
        qr_fail(&w->fail, QR_ERR_INVALID, "%s: %s", w->af.path,
                w->format == QR_FORMAT_PFM ? "a PFM file takes float rows"
                                           : "a PNG or PPM file takes 8-bit rows");
    else if (nrows > w->height - w->rows_in)
        qr_fail(&w->fail, QR_ERR_INVALID, "%s: %lld rows appended to a %ld-row image",
                w->af.path, (long long)(w->rows_in + nrows), (long)w->height);
    if (w->fail.status != QR_OK)
        return writer_failed(w, err);
    return QR_OK;
}

qr_image_format qr_image_writer_format(const qr_image_writer *w)
{
    return w->format;
}

int qr_image_writer_pixel_bytes(const qr_image_writer *w)
{
    return w->pixel_bytes;
}

qr_status qr_image_writer_append_rgb8(qr_image_writer *w, const unsigned char *rows,
                                      int32_t nrows, qr_error *err)
{
    qr_status st = check_append(w, QR_FORMAT_PNG, rows, nrows, err);
    if (st != QR_OK || nrows == 0)
        return st;
    if (w->png) {
        st = qr_png_encoder_rows(w->png, rows, nrows, &w->fail);
        if (st != QR_OK)
            return writer_failed(w, err);
    } else {
        st = write_bytes(w, rows, (size_t)nrows * (size_t)w->width * (size_t)w->pixel_bytes, err);
        if (st != QR_OK)
            return st;
    }
    w->rows_in += nrows;
    return QR_OK;
}

qr_status qr_image_writer_append_rgbf(qr_image_writer *w, const float *rows, int32_t nrows,
                                      qr_error *err)
{
    qr_status st = check_append(w, QR_FORMAT_PFM, rows, nrows, err);
    if (st != QR_OK || nrows == 0)
        return st;
    const size_t row_floats = (size_t)w->width * 3;
    if (!w->conv) {
        st = write_bytes(w, rows, (size_t)nrows * row_floats * sizeof(float), err);
    } else {
        for (int32_t r = 0; st == QR_OK && r < nrows; r++) {
            qr_image_pfm_le(w->conv, rows + (size_t)r * row_floats, row_floats);
            st = write_bytes(w, w->conv, row_floats * 4, err);
        }
    }
    if (st == QR_OK)
        w->rows_in += nrows;
    return st;
}

/* Whether a PNG part was encoded as this writer's encoder encodes: the
 * same parameters, and so the same chunk grid and the same bytes. */
static int png_part_fits(const qr_image_writer *w, const qr_image_part_info *i)
{
    qr_png_params p = qr_png_params_for(w->png_level, 1);
    int32_t grid, ctx;
    qr_png_layout(w->width, w->height, &p, &grid, &ctx);
    return i->level == p.level && i->filter == (int32_t)p.filter && i->deflate == (int32_t)w->png_deflate &&
           i->strategy == p.strategy && i->dict_bytes == (int32_t)p.dict_bytes &&
           i->grid == grid;
}

qr_status qr_image_writer_append_part(qr_image_writer *w, const void *part, size_t len,
                                      qr_error *err)
{
    if (!w)
        return qr_fail(err, QR_ERR_INVALID, "no image writer");
    if (w->fail.status != QR_OK)
        return qr_fail(err, w->fail.status, "%s", w->fail.msg);
    qr_image_part_info i;
    if (qr_image_part_read(w->af.path, part, len, &i, &w->fail) != QR_OK)
        return writer_failed(w, err);
    if (i.format != w->format || i.width != w->width || i.height != w->height)
        qr_fail(&w->fail, QR_ERR_INVALID, "%s: a part of a %ldx%ld %s image given to a %ldx%ld "
                "%s file", w->af.path, (long)i.width, (long)i.height,
                qr_image_format_name(i.format), (long)w->width, (long)w->height,
                qr_image_format_name(w->format));
    else if (i.pixel_bytes != w->pixel_bytes)
        qr_fail(&w->fail, QR_ERR_INVALID, "%s: a part of %s pixels given to a file of %s pixels",
                w->af.path, i.pixel_bytes == 4 ? "RGBA" : "RGB",
                w->pixel_bytes == 4 ? "RGBA" : "RGB");
    else if (w->png && !png_part_fits(w, &i))
        qr_fail(&w->fail, QR_ERR_INVALID, "%s: a part encoded at PNG level %ld (filter %ld, "
                "%s) given to a file written at level %d (%s)", w->af.path, (long)i.level,
                (long)i.filter, i.deflate ? "portable" : "zlib", w->png_level,
                w->png_deflate ? "portable" : "zlib");
    else if (i.row0 != w->rows_in)
        qr_fail(&w->fail, QR_ERR_INVALID, "%s: a part of rows %ld to %ld out of order (the "
                "file's next row is %lld)", w->af.path, (long)i.row0, (long)i.row1,
                (long long)w->rows_in);
    if (w->fail.status != QR_OK)
        return writer_failed(w, err);
    if (w->png) {
        if (qr_png_encoder_append_records(w->png, i.row0, i.row1, i.body, i.body_len, i.tail,
                                          &w->fail) != QR_OK)
            return writer_failed(w, err);
    } else {
        qr_status st = write_bytes(w, i.body, i.body_len, err);
        if (st != QR_OK)
            return st;
    }
    w->rows_in = i.row1;
    return QR_OK;
}

int64_t qr_image_writer_rows_in(const qr_image_writer *w)
{
    return w->rows_in;
}

qr_status qr_image_writer_png_params(const qr_image_writer *w, qr_png_params *out, qr_error *err)
{
    if (!w || !w->png)
        return qr_fail(err, QR_ERR_INVALID, "not a PNG writer");
    qr_image_write_options o = qr_image_write_options_default();
    o.png_level = w->png_level;
    o.alpha = w->pixel_bytes == 4;
    o.deflate = w->png_deflate;
    *out = qr_png_params_of(&o);
    return QR_OK;
}

qr_status qr_image_writer_append_png_records(qr_image_writer *w, int32_t row0, int32_t row1,
                                             const unsigned char *rec, size_t len, qr_error *err)
{
    if (!w)
        return qr_fail(err, QR_ERR_INVALID, "no image writer");
    if (w->fail.status != QR_OK)
        return qr_fail(err, w->fail.status, "%s", w->fail.msg);
    if (!w->png)
        qr_fail(&w->fail, QR_ERR_INVALID, "%s: compressed PNG chunks given to a %s file",
                w->af.path, qr_image_format_name(w->format));
    else
        qr_png_encoder_append_records(w->png, row0, row1, rec, len, NULL, &w->fail);
    if (w->fail.status != QR_OK)
        return writer_failed(w, err);
    w->rows_in = row1;
    return QR_OK;
}

qr_status qr_image_writer_close(qr_image_writer *w, qr_error *err)
{
    if (!w)
        return qr_fail(err, QR_ERR_INVALID, "no image writer");
    qr_status st = QR_OK;
    if (w->fail.status != QR_OK) {
        st = writer_failed(w, err);
    } else if (w->rows_in != w->height) {
        qr_fail(&w->fail, QR_ERR_INVALID, "%s: %lld of the image's %ld rows were written",
                w->af.path, (long long)w->rows_in, (long)w->height);
        st = writer_failed(w, err);
    } else if (w->png && qr_png_encoder_finish(w->png, &w->fail) != QR_OK) {
        st = writer_failed(w, err);
    } else {
        qr_png_encoder_free(w->png);
        w->png = NULL;
        st = qr_atomic_commit(&w->af, err);
    }
    writer_free(w);
    return st;
}

void qr_image_writer_abort(qr_image_writer *w)
{
    if (!w)
        return;
    qr_png_encoder_free(w->png);
    w->png = NULL;
    qr_atomic_abort(&w->af);
    writer_free(w);
}
