/* image_bytes.h — what every image writer shares (image_bytes.c): how many
 * threads encode, the options checked, PFM's little-endian floats. */
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

/* opts (NULL: the defaults) as every PNG writer takes them, into *out: a
 * level outside 0..9, a negative thread count or a bad text list is
 * QR_ERR_INVALID, its message prefixed by `name` where it names the output. */
qr_status qr_image_options_check(const qr_image_write_options *opts, const char *name,
                                 qr_image_write_options *out, qr_error *err);

/* Non-zero on a little-endian host. */
int qr_host_is_little_endian(void);

/* n floats into dst as little-endian bytes (PFM's negative scale promises
 * little-endian whatever the host). */
void qr_image_pfm_le(unsigned char *dst, const float *src, size_t n);

#endif
