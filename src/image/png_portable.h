/* png_portable.h — a whole PNG in memory through the portable deflate
 * encoder (deflate_chunk.h) instead of zlib.
 *
 * The image is cut into the chunk grid of the zlib encoder (qr_png_layout
 * with the product's parameters) and filtered as it filters
 * (QR_PNG_FILTER_DEFAULT); each chunk is compressed on its own by
 * qr_deflate_chunk, with the 32 KiB of filtered data before it as its
 * dictionary, and becomes one IDAT; the zlib trailer's Adler-32 is
 * combined from the chunks' own. This is the host side, and the oracle, of
 * the GPU encoder that runs the same source per chunk on the device.
 *
 * The bytes depend on the pixels alone, never on the thread count.
 */
#ifndef QR_PNG_PORTABLE_H
#define QR_PNG_PORTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "quadrender/error.h"

/* Encodes height rows of 3 * width bytes (8-bit RGB, top row first), or
 * with alpha of 4 * width bytes (8-bit RGBA, straight alpha, as
 * qr_to_rgba8 makes them; colour type 6), as a PNG (signature, IHDR, an
 * IDAT per chunk, IEND): *png, *len bytes,
 * malloc'd (free it with free()). threads: 0 for qr_threads(), else at
 * most that many. A size below 1 or too large: QR_ERR_INVALID; memory:
 * QR_ERR_NOMEM; on failure *png is NULL and *len 0. */
qr_status qr_png_encode_portable(const unsigned char *rows, int32_t width, int32_t height,
                                 int alpha, int threads, unsigned char **png, size_t *len,
                                 qr_error *err);

#endif
