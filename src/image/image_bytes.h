/* image_bytes.h — what every image writer shares (image_bytes.c): how many
 * threads encode, the options checked, the bytes of a pixel, PFM's
 * little-endian floats. */
#ifndef QR_IMAGE_BYTES_H
#define QR_IMAGE_BYTES_H

#include <stddef.h>

#include "quadrender/error.h"
#include "quadrender/image.h"

/* More threads than this gain nothing on any machine we know. */
#define QR_IMAGE_MAX_THREADS 256

/* `requested` (qr_image_write_options.threads) if positive, else the
 * online cores; at most QR_IMAGE_MAX_THREADS. */
int qr_image_threads(int requested);

/* opts (NULL: the defaults) as every writer of `format` takes them, into
 * *out: a level outside 0..9, a negative thread count, a bad text list or
 * an alpha qr_image_check_alpha refuses is QR_ERR_INVALID, its message
 * prefixed by `name` where it names the output. */
qr_status qr_image_options_check(const qr_image_write_options *opts, qr_image_format format,
                                 const char *name, qr_image_write_options *out, qr_error *err);

/* Whether `format` can keep alpha (0 or 1; qr_image_write_options.alpha):
 * only PNG has an alpha channel. Else QR_ERR_INVALID, "<name>: PPM has no
 * alpha channel: write a PNG for a transparent background". */
qr_status qr_image_check_alpha(qr_image_format format, int alpha, const char *name,
                               qr_error *err);

/* The bytes of a pixel in the file rows of `format`: QR_PFM_PIXEL_BYTES
 * (PFM's float RGB), 4 (8-bit RGBA: PNG with alpha) or 3 (8-bit RGB). */
#define QR_PFM_PIXEL_BYTES 12
int qr_image_pixel_bytes(qr_image_format format, int alpha);

/* "PNG", "PPM" or "PFM". */
const char *qr_image_format_name(qr_image_format format);

/* Non-zero on a little-endian host. */
int qr_host_is_little_endian(void);

/* n floats into dst as little-endian bytes (PFM's negative scale promises
 * little-endian whatever the host). */
void qr_image_pfm_le(unsigned char *dst, const float *src, size_t n);

#endif
