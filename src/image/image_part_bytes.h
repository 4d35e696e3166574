/* image_part_bytes.h — the layout of an image part (image_parts.h), shared
 * by the part encoder (image_parts.c) and the writer that appends parts
 * (image_stream.c).
 *
 * A part is a 76-byte header and a body, every field little-endian:
 *   "QRIMPART", version, format, width, height, row0, row1, (u32 each)
 *   PNG level, filter, strategy, rows per chunk, dictionary bytes,
 *   record count, context rows after the body (u32 each; 0 for PPM, PFM),
 *   bytes a pixel of the rows (u32: qr_image_pixel_bytes, 4 for a PNG
 *   with alpha), the deflate encoder (u32: qr_png_deflate, 0 for PPM,
 *   PFM), body length (u64), CRC-32 of the header's other bytes and
 *   everything after it (u32);
 * then the body: PNG, the chunks' records (png_encoder.h) followed by the
 * last rows of the part (the next chunk's context, when rows follow);
 * PPM and PFM, the rows' bytes as the file holds them.
 */
#ifndef QR_IMAGE_PART_BYTES_H
#define QR_IMAGE_PART_BYTES_H

#include <stddef.h>
#include <stdint.h>

#include "quadrender/image.h"

#define QR_PART_MAGIC "QRIMPART"
#define QR_PART_VERSION 3
#define QR_PART_FIELDS 15 /* the u32 fields after the magic */
#define QR_PART_BODY_LEN_AT (8 + 4 * QR_PART_FIELDS)
#define QR_PART_CRC_AT (QR_PART_BODY_LEN_AT + 8)
#define QR_PART_HEADER (QR_PART_CRC_AT + 4)

typedef struct qr_image_part_info {
    qr_image_format format;
    int32_t width, height, row0, row1;
    /* PNG: what besides the pixels shapes the chunks' bytes */
    int32_t level, filter, strategy, grid, dict_bytes;
    int32_t pixel_bytes; /* of the rows: 3, 4 (PNG with alpha) or 12 (PFM) */
    int32_t deflate;     /* PNG: qr_png_deflate, ZLIB or PORTABLE */
    const unsigned char *body; /* PNG: the records; PPM, PFM: the rows */
    size_t body_len;
    const unsigned char *tail; /* PNG: min(row1, context) raw rows ending at row1 */
} qr_image_part_info;

/* Reads and checks a part's header, checksum and lengths; anything amiss:
 * QR_ERR_INVALID, whose message `name` prefixes. */
qr_status qr_image_part_read(const char *name, const void *part, size_t len,
                             qr_image_part_info *out, qr_error *err);

#endif
