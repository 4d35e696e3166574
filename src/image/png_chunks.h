/* png_chunks.h — what a PNG holds before its pixels, built in memory.
 *
 * The encoder (png_encoder.h) writes these bytes ahead of its IDATs; a
 * growable byte buffer carries them, and also the records of an image's
 * parts (image_parts.h), which are encoded away from any file.
 */
#ifndef QR_PNG_CHUNKS_H
#define QR_PNG_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "quadrender/error.h"
#include "quadrender/image.h"

typedef struct qr_png_buffer {
    unsigned char *data; /* malloc'd; free with free() */
    size_t len, cap;
} qr_png_buffer;

/* Appends len bytes; -1 (and nothing appended) when memory runs out. */
int qr_png_buffer_put(qr_png_buffer *b, const void *data, size_t len);

/* Little-endian fields of nbytes (1..8) bytes, as parts and their
 * records hold them (image_part_bytes.h). */
void qr_le_put(unsigned char *d, uint64_t v, int nbytes);
uint64_t qr_le_get(const unsigned char *d, int nbytes);

/* Appends the signature, IHDR (8-bit, not interlaced; RGB for pixels of 3
 * bytes, RGBA for 4) and one tEXt or iTXt chunk for each of
 * text[0..ntext-1]. A key that is not a PNG keyword: QR_ERR_INVALID, whose
 * message `name` prefixes. */
qr_status qr_png_head(qr_png_buffer *b, const char *name, int32_t width, int32_t height,
                      int pixel_bytes, const qr_image_text *text, int ntext, qr_error *err);

#endif
