/* image_bytes.c — what every image writer shares: how many threads encode,
 * the options they take, the bytes of a pixel, and PFM's little-endian
 * floats on any host. Below the streaming writer
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

qr_status qr_image_options_check(const qr_image_write_options *opts, qr_image_format format,
                                 const char *name, qr_image_write_options *out, qr_error *err)
{
    qr_image_write_options o = opts ? *opts : qr_image_write_options_default();
    if (o.png_level < 0 || o.png_level > 9)
        return qr_fail(err, QR_ERR_INVALID, "PNG level %d is out of range (0..9)", o.png_level);
    if (o.threads < 0)
        return qr_fail(err, QR_ERR_INVALID, "thread count %d is negative", o.threads);
    if (o.deflate != QR_PNG_DEFLATE_ZLIB && o.deflate != QR_PNG_DEFLATE_PORTABLE)
        return qr_fail(err, QR_ERR_INVALID, "%s: deflate encoder %d is not zlib (0) or portable (1)",
                       name, (int)o.deflate);
    if (o.ntext < 0 || (o.ntext > 0 && !o.text))
        return qr_fail(err, QR_ERR_INVALID, "%s: bad PNG text list", name);
    qr_status st = qr_image_check_alpha(format, o.alpha, name, err);
    if (st == QR_OK)
        *out = o;
    return st;
}

qr_status qr_image_check_alpha(qr_image_format format, int alpha, const char *name,
                               qr_error *err)
{
    if (alpha != 0 && alpha != 1)
        return qr_fail(err, QR_ERR_INVALID, "%s: alpha %d is not 0 or 1", name, alpha);
    if (alpha && format != QR_FORMAT_PNG)
        return qr_fail(err, QR_ERR_INVALID,
                       "%s: %s has no alpha channel: write a PNG for a transparent background",
                       name, qr_image_format_name(format));
    return QR_OK;
}

int qr_image_pixel_bytes(qr_image_format format, int alpha)
{
    return format == QR_FORMAT_PFM ? QR_PFM_PIXEL_BYTES : alpha ? 4 : 3;
}

const char *qr_image_format_name(qr_image_format format)
{
    return format == QR_FORMAT_PNG   ? "PNG"
           : format == QR_FORMAT_PPM ? "PPM"
           : format == QR_FORMAT_PFM ? "PFM"
                                     : "unknown";
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
