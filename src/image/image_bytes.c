/* image_bytes.c — what every image writer shares: how many threads encode,
 * the options they take, and PFM's little-endian floats on any host. Below the streaming writer
 * (image_stream.c) and the parts encoder (image_parts.c), which both call it.
 */
#include "image/image_bytes.h"

#include <stdint.h>
#include <string.h>

#include "quadrender/threads.h"

int qr_image_threads(int requested)
{
    long n = requested > 0 ? requested : qr_threads(); /* the process's setting (--threads) */
    return n < 1 ? 1 : n > QR_IMAGE_MAX_THREADS ? QR_IMAGE_MAX_THREADS : (int)n;
}

qr_status qr_image_options_check(const qr_image_write_options *opts, const char *name,
                                 qr_image_write_options *out, qr_error *err)
{
    qr_image_write_options o = opts ? *opts : qr_image_write_options_default();
    if (o.png_level < 0 || o.png_level > 9)
        return qr_fail(err, QR_ERR_INVALID, "PNG level %d is out of range (0..9)", o.png_level);
    if (o.threads < 0)
        return qr_fail(err, QR_ERR_INVALID, "thread count %d is negative", o.threads);
    if (o.ntext < 0 || (o.ntext > 0 && !o.text))
        return qr_fail(err, QR_ERR_INVALID, "%s: bad PNG text list", name);
    *out = o;
    return QR_OK;
}

int qr_host_is_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* Little-endian whatever the host: PFM's negative scale promises it. */
void qr_image_pfm_le(unsigned char *dst, const float *src, size_t n)
{
    if (qr_host_is_little_endian()) {
        memcpy(dst, src, n * sizeof(float));
        return;
    }
    for (size_t k = 0; k < n; k++) {
        uint32_t u;
        memcpy(&u, &src[k], sizeof u);
        dst[4 * k] = (unsigned char)(u & 0xffu);
        dst[4 * k + 1] = (unsigned char)((u >> 8) & 0xffu);
        dst[4 * k + 2] = (unsigned char)((u >> 16) & 0xffu);
        dst[4 * k + 3] = (unsigned char)((u >> 24) & 0xffu);
    }
}
