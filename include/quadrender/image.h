/* quadrender/image.h — float RGBA render targets and image files.
 *
 * Pixels are 4 floats (R, G, B, A), row-major, and row 0 is the BOTTOM row
 * (y = 0), matching the normalized scene coordinates. Writers flip to the
 * file format's own convention.
 *
 * Output formats, chosen by extension:
 *   .png  8-bit RGB (libpng)        .ppm  P6 8-bit RGB, top row first
 *   .pfm  float RGB, little-endian, bottom row first (as PFM specifies)
 * 8-bit values are (unsigned char)(255 * clamp(v, 0, 1)) — truncation — so a
 * PPM equals byte for byte the one the CS149 tool writes.
 * Every writer goes through a temporary file and a rename: a failed run never
 * leaves a half-written image behind.
 */
#ifndef QUADRENDER_IMAGE_H
#define QUADRENDER_IMAGE_H

#include <stdint.h>
#include "quadrender/error.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QR_IMAGE_MAX_DIM 32768

typedef struct qr_image {
    int32_t width, height;
    float *rgba; /* width * height * 4 floats, row 0 = bottom */
} qr_image;

typedef enum qr_image_format {
    QR_FORMAT_UNKNOWN = 0,
    QR_FORMAT_PNG,
    QR_FORMAT_PPM,
    QR_FORMAT_PFM
} qr_image_format;

/* Allocates a width x height image (1..QR_IMAGE_MAX_DIM each); contents undefined. */
qr_status qr_image_create(int32_t width, int32_t height, qr_image **out, qr_error *err);
void qr_image_free(qr_image *img);

/* The background the reference clears to: white (1,1,1,1) for flat shading;
 * for snow, row j gets shade = 0.4 + 0.45 * (H - j) / H in R, G, B, alpha 1. */
void qr_image_clear(qr_image *img, qr_shading shading);

/* The format named by the file extension (case-insensitive), or UNKNOWN. */
qr_image_format qr_image_format_from_path(const char *path);

/* Writes by extension; an unknown extension is QR_ERR_INVALID. */
qr_status qr_image_write(const qr_image *img, const char *path, qr_error *err);
qr_status qr_image_write_png(const qr_image *img, const char *path, qr_error *err);
qr_status qr_image_write_ppm(const qr_image *img, const char *path, qr_error *err);
qr_status qr_image_write_pfm(const qr_image *img, const char *path, qr_error *err);

/* The 8-bit value a float channel is written as. */
static inline unsigned char qr_to_byte(float v)
{
    float c = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    if (!(v == v)) c = 0.0f; /* NaN */
    return (unsigned char)(255.0f * c);
}

#ifdef __cplusplus
}
#endif
#endif
