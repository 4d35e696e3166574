/* image_parts.c — parts of an image file encoded apart (image_parts.h);
 * their byte layout is in image_part_bytes.h, and the writer's side,
 * qr_image_writer_append_part, in image_stream.c beside the writer. */
#include "image/image_parts.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "image/image_part_bytes.h"
#include "image/image_bytes.h"
#include "image/png_encoder.h"

/* The size a writer takes, and so the size a part may be of. */
static int valid_size(int32_t width, int32_t height)
{
    return width >= 1 && height >= 1 && width <= QR_IMAGE_WRITER_MAX_DIM &&
           height <= QR_IMAGE_WRITER_MAX_DIM;
}

static int known_format(qr_image_format f)
{
    return f == QR_FORMAT_PNG || f == QR_FORMAT_PPM || f == QR_FORMAT_PFM;
}

/* The grid and context of a PNG part: those of the writer's encoder, whose
 * parameters depend on the level only in ways that leave the grid alone. */
static void png_layout(int32_t width, int32_t height, int32_t *grid, int32_t *ctx)
{
    qr_png_params p = qr_png_params_for(QR_PNG_LEVEL_DEFAULT, 1);
    qr_png_layout(width, height, &p, grid, ctx);
}

int32_t qr_image_part_grid(qr_image_format format, int32_t width, int32_t height)
{
    if (!known_format(format) || !valid_size(width, height))
        return 0;
    if (format != QR_FORMAT_PNG)
        return 1;
    int32_t grid, ctx;
    png_layout(width, height, &grid, &ctx);
    return grid;
}

int32_t qr_image_part_context(qr_image_format format, int32_t width, int32_t height,
                              int32_t row0)
{
    if (format != QR_FORMAT_PNG || !valid_size(width, height) || row0 < 0 || row0 > height)
        return 0;
    int32_t grid, ctx;
    png_layout(width, height, &grid, &ctx);
    return row0 < ctx ? row0 : ctx;
}

/* zlib's crc32 over a length that may pass what a uInt holds. */
static uint32_t crc_more(uint32_t crc, const unsigned char *d, size_t n)
{
    while (n > 0) {
        uInt step = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = (uint32_t)crc32(crc, d, step);
        d += step;
        n -= step;
    }
    return crc;
}

/* The checksum of a part: its header but the checksum field, then its body. */
static uint32_t part_crc(const unsigned char *part, size_t len)
{
    uint32_t crc = crc_more((uint32_t)crc32(0L, Z_NULL, 0), part, QR_PART_HEADER - 4);
    return crc_more(crc, part + QR_PART_HEADER, len - QR_PART_HEADER);
}

/* Compresses the part's rows into records after the header's room in *b,
 * then appends the context of the chunk after it; fills i's PNG fields. */
static qr_status encode_png(qr_png_buffer *b, qr_image_part_info *i,
                            const qr_image_write_options *o, const unsigned char *rows,
                            uint32_t *nrecords, qr_error *err)
{
    const qr_image_part_info *in = i;
    qr_png_params p = qr_png_params_of(o);
    int32_t grid, ctx;
    qr_png_layout(in->width, in->height, &p, &grid, &ctx);
    const size_t rb = (size_t)in->width * (size_t)p.pixel_bytes;
    const int32_t nctx = in->row0 < ctx ? in->row0 : ctx, n = in->row1 - in->row0;
    qr_png_encoder *e;
    qr_status st = qr_png_encoder_open_part(b, "image part", in->width, in->height, &p, in->row0,
                                            in->row1, rows, &e, err);
    if (st != QR_OK)
        return st;
    st = qr_png_encoder_rows(e, rows + (size_t)nctx * rb, n, err);
    if (st == QR_OK)
        st = qr_png_encoder_finish(e, err);
    qr_png_encoder_free(e);
    if (st != QR_OK)
        return st;
    i->body_len = b->len - QR_PART_HEADER;
    if (in->row1 < in->height) {
        const int32_t ntail = in->row1 < ctx ? in->row1 : ctx;
        if (qr_png_buffer_put(b, rows + (size_t)(nctx + n - ntail) * rb, (size_t)ntail * rb))
            return qr_fail(err, QR_ERR_NOMEM, "image part: out of memory");
    }
    i->level = p.level;
    i->filter = (int32_t)p.filter;
    i->strategy = p.strategy;
    i->grid = grid;
    i->dict_bytes = (int32_t)p.dict_bytes;
    i->deflate = (int32_t)p.deflate;
    *nrecords = (uint32_t)(((int64_t)in->row1 + grid - 1) / grid - in->row0 / grid);
    return QR_OK;
}

qr_status qr_image_part_encode(qr_image_format format, int32_t width, int32_t height,
                               const qr_image_write_options *opts, int32_t row0, int32_t row1,
                               const void *rows, void **out, size_t *len, qr_error *err)
{
    if (!out || !len)
        return qr_fail(err, QR_ERR_INVALID, "qr_image_part_encode: no output pointer");
    *out = NULL;
    *len = 0;
    if (!known_format(format))
        return qr_fail(err, QR_ERR_INVALID, "image part: unknown image format");
    if (!valid_size(width, height))
        return qr_fail(err, QR_ERR_INVALID,
                       "image part: cannot write a %ldx%ld image (1..%d a side)", (long)width,
                       (long)height, QR_IMAGE_WRITER_MAX_DIM);
    qr_image_write_options o = opts ? *opts : qr_image_write_options_default();
    o.text = NULL; /* ignored: the writer writes the header */
    o.ntext = 0;
    qr_status st = qr_image_options_check(&o, format, "image part", &o, err);
    if (st != QR_OK)
        return st;
    const int32_t grid = qr_image_part_grid(format, width, height);
    if (row0 < 0 || row1 <= row0 || row1 > height)
        return qr_fail(err, QR_ERR_INVALID, "image part: rows %ld to %ld are not rows of a "
                       "%ld-row image (a part holds at least one)", (long)row0, (long)row1,
                       (long)height);
    if (row0 % grid != 0 || (row1 % grid != 0 && row1 != height))
        return qr_fail(err, QR_ERR_INVALID, "image part: rows %ld to %ld are off the image's grid "
                       "of %ld rows", (long)row0, (long)row1, (long)grid);
    if (!rows)
        return qr_fail(err, QR_ERR_INVALID, "image part: no rows to encode");

    qr_image_part_info i = {.format = format, .width = width, .height = height, .row0 = row0,
                            .row1 = row1, .pixel_bytes = qr_image_pixel_bytes(format, o.alpha)};
    uint32_t nrecords = 0;
    const size_t row_bytes = (size_t)width * (size_t)i.pixel_bytes;
    const size_t n = (size_t)(row1 - row0);
    qr_png_buffer b = {0};
    if (format == QR_FORMAT_PNG) {
        static const unsigned char room[QR_PART_HEADER]; /* for the header, filled last */
        if (qr_png_buffer_put(&b, room, sizeof room))
            st = qr_fail(err, QR_ERR_NOMEM, "image part: out of memory");
        else
            st = encode_png(&b, &i, &o, rows, &nrecords, err);
    } else {
        i.body_len = n * row_bytes;
        b.cap = b.len = QR_PART_HEADER + i.body_len;
        if (!(b.data = malloc(b.cap)))
            st = qr_fail(err, QR_ERR_NOMEM, "image part: out of memory for %zu bytes", b.cap);
        else if (format == QR_FORMAT_PPM)
            memcpy(b.data + QR_PART_HEADER, rows, i.body_len);
        else
            qr_image_pfm_le(b.data + QR_PART_HEADER, rows, n * (size_t)width * 3);
    }
    if (st != QR_OK) {
        free(b.data);
        return st;
    }
    unsigned char *h = b.data;
    memcpy(h, QR_PART_MAGIC, 8);
    const uint32_t fields[QR_PART_FIELDS] = {
        QR_PART_VERSION, (uint32_t)format, (uint32_t)width, (uint32_t)height, (uint32_t)row0,
        (uint32_t)row1, (uint32_t)i.level, (uint32_t)i.filter, (uint32_t)i.strategy,
        (uint32_t)i.grid, (uint32_t)i.dict_bytes, nrecords,
        (uint32_t)((b.len - QR_PART_HEADER - i.body_len) / row_bytes), (uint32_t)i.pixel_bytes,
        (uint32_t)i.deflate};
    for (int k = 0; k < QR_PART_FIELDS; k++)
        qr_le_put(h + 8 + 4 * k, fields[k], 4);
    qr_le_put(h + QR_PART_BODY_LEN_AT, i.body_len, 8);
    qr_le_put(h + QR_PART_CRC_AT, part_crc(h, b.len), 4);
    *out = b.data;
    *len = b.len;
    return QR_OK;
}

qr_status qr_image_part_read(const char *name, const void *part, size_t len,
                             qr_image_part_info *out, qr_error *err)
{
    const unsigned char *p = part;
    if (!p || len < QR_PART_HEADER || memcmp(p, QR_PART_MAGIC, 8) != 0)
        return qr_fail(err, QR_ERR_INVALID, "%s: not an image part (no part header)", name);
    uint32_t f[QR_PART_FIELDS];
    for (int k = 0; k < QR_PART_FIELDS; k++)
        f[k] = (uint32_t)qr_le_get(p + 8 + 4 * k, 4);
    if (f[0] != QR_PART_VERSION)
        return qr_fail(err, QR_ERR_INVALID, "%s: an image part of version %lu (this library "
                       "reads version %d)", name, (unsigned long)f[0], QR_PART_VERSION);
    /* a part's length, from its header: the body and the PNG context rows
     * (a width or pixel size out of range fails below; here it only must
     * not overflow) */
    const uint64_t body_len = qr_le_get(p + QR_PART_BODY_LEN_AT, 8);
    const uint64_t width = f[2] <= QR_IMAGE_WRITER_MAX_DIM ? f[2] : 0;
    const uint64_t pixel_bytes = f[13] <= QR_PFM_PIXEL_BYTES ? f[13] : 0;
    const uint64_t want = QR_PART_HEADER + body_len + (uint64_t)f[12] * width * pixel_bytes;
    if (body_len > UINT64_MAX / 2 || want != len)
        return qr_fail(err, QR_ERR_INVALID, "%s: the image part is %s (%zu bytes, its header "
                       "says %llu)", name, want > len ? "truncated" : "too long", len,
                       (unsigned long long)want);
    if ((uint32_t)qr_le_get(p + QR_PART_CRC_AT, 4) != part_crc(p, len))
        return qr_fail(err, QR_ERR_INVALID, "%s: the image part is corrupted (checksum "
                       "mismatch)", name);
    qr_image_part_info i = {.format = (qr_image_format)f[1], .width = (int32_t)f[2],
                            .height = (int32_t)f[3], .row0 = (int32_t)f[4], .row1 = (int32_t)f[5],
                            .level = (int32_t)f[6], .filter = (int32_t)f[7],
                            .strategy = (int32_t)f[8], .grid = (int32_t)f[9],
                            .dict_bytes = (int32_t)f[10], .pixel_bytes = (int32_t)pixel_bytes,
                            .deflate = (int32_t)f[14],
                            .body = p + QR_PART_HEADER, .body_len = (size_t)body_len};
    i.tail = i.body + i.body_len;
    /* the checksum holds, so what follows catches parts made wrongly, not
     * bytes damaged on the way */
    const int32_t grid = qr_image_part_grid(i.format, i.width, i.height);
    int ok = grid > 0 && f[2] <= QR_IMAGE_WRITER_MAX_DIM && f[3] <= QR_IMAGE_WRITER_MAX_DIM &&
             f[4] < f[5] && f[5] <= f[3] && i.row0 % grid == 0 &&
             (i.row1 % grid == 0 || i.row1 == i.height) &&
             (f[13] == (uint32_t)qr_image_pixel_bytes(i.format, 0) ||
              (i.format == QR_FORMAT_PNG && f[13] == (uint32_t)qr_image_pixel_bytes(i.format, 1)));
    if (ok && i.format == QR_FORMAT_PNG) {
        const int32_t ctx = qr_image_part_context(i.format, i.width, i.height, i.row1);
        const uint32_t ntail = i.row1 < i.height ? (uint32_t)ctx : 0;
        ok = i.grid == grid && (f[14] == QR_PNG_DEFLATE_ZLIB || f[14] == QR_PNG_DEFLATE_PORTABLE) &&
             f[11] == (uint32_t)(((int64_t)i.row1 + grid - 1) / grid - i.row0 / grid) &&
             f[12] == ntail;
    } else if (ok) {
        const size_t row_bytes = (size_t)i.width * (size_t)i.pixel_bytes;
        ok = f[11] == 0 && f[12] == 0 && f[14] == 0 && i.body_len == (size_t)(i.row1 - i.row0) * row_bytes;
    }
    if (!ok)
        return qr_fail(err, QR_ERR_INVALID, "%s: the image part's header is inconsistent", name);
    *out = i;
    return QR_OK;
}
