/* image.c — float RGBA render targets: allocation, background, format names.
 *
 * See include/quadrender/image.h. Row 0 is the bottom row; the background
 * follows the reference semantics of docs/scene-definitions.md.
 */
#include "quadrender/image.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/circle_math.h"
#include "quadrender/memory.h"
#include "quadrender/text.h"

qr_status qr_image_check_side(const char *name, const char *text, int32_t *out, qr_error *err)
{
    return qr_text_check_int32(name, text, 1, QR_IMAGE_BANDS_MAX_DIM, QR_UINT_RANGE,
                               "an integer from 1 to 131072", out, err);
}

qr_status qr_image_check_png_level(const char *name, const char *text, int *out, qr_error *err)
{
    uint64_t v;
    qr_status st =
        qr_text_check_uint(name, text, 0, 9, QR_UINT_RANGE, "a PNG level from 0 to 9", &v, err);
    if (st == QR_OK)
        *out = (int)v;
    return st;
}

qr_status qr_image_check_png_deflate(const char *name, const char *text, qr_png_deflate *out,
                                     qr_error *err)
{
    static const char *const words[] = {"auto", "zlib", "portable"};
    static const qr_png_deflate values[] = {QR_PNG_DEFLATE_AUTO, QR_PNG_DEFLATE_ZLIB,
                                            QR_PNG_DEFLATE_PORTABLE};
    int i = 0;
    qr_status st = qr_text_check_word(name, text, words, 3, "auto, zlib or portable", &i, err);
    if (st == QR_OK)
        *out = values[i];
    return st;
}

qr_status qr_image_check_whole(const char *name, const char *who, const char *streamer,
                               int32_t width, int32_t height, int32_t max, qr_error *err)
{
    if (width > max || height > max)
        return qr_fail(err, QR_ERR_INVALID,
                       "%s: %s takes images up to %d pixels a side (%dx%d asked); %s streams "
                       "larger ones in bands",
                       name, who, (int)max, (int)width, (int)height, streamer);
    return QR_OK;
}

qr_status qr_image_check_fits(int32_t width, int32_t height, uint32_t extra, qr_error *err)
{
    char what[64];
    snprintf(what, sizeof what, "a %ldx%ld image", (long)width, (long)height);
    const uint64_t per_pixel = 4 * sizeof(float) + (uint64_t)extra;
    return qr_host_memory_check(what, (uint64_t)width * (uint64_t)height * per_pixel, err);
}

qr_status qr_image_create(int32_t width, int32_t height, qr_image **out, qr_error *err)
{
    if (!out)
        return qr_fail(err, QR_ERR_INVALID, "qr_image_create: no output pointer");
    *out = NULL;
    if (width < 1 || width > QR_IMAGE_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID, "image width %ld is out of range (1..%d)",
                       (long)width, QR_IMAGE_MAX_DIM);
    if (height < 1 || height > QR_IMAGE_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID, "image height %ld is out of range (1..%d)",
                       (long)height, QR_IMAGE_MAX_DIM);

    /* 32768^2 pixels of 16 bytes is 16 GiB: more than a 32-bit size_t holds,
     * so the product is checked rather than trusted. */
    size_t pixels = (size_t)width * (size_t)height;
    size_t per_pixel = 4 * sizeof(float);
    if (pixels > SIZE_MAX / per_pixel)
        return qr_fail(err, QR_ERR_NOMEM, "a %ldx%ld image needs more memory than can be addressed",
                       (long)width, (long)height);
    size_t bytes = pixels * per_pixel;
    qr_status st;
    if (bytes >= QR_IMAGE_CHECKED_BYTES && (st = qr_image_check_fits(width, height, 0, err)) != QR_OK)
        return st;

    qr_image *img = malloc(sizeof *img);
    if (!img)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory allocating an image header (%zu bytes)",
                       sizeof *img);
    img->rgba = malloc(bytes);
    if (!img->rgba) {
        free(img);
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: a %ldx%ld image needs %zu bytes",
                       (long)width, (long)height, bytes);
    }
    img->width = width;
    img->height = height;
    *out = img;
    return QR_OK;
}

void qr_image_destroy(qr_image *img)
{
    if (!img)
        return;
    free(img->rgba);
    free(img);
}

void qr_image_clear(qr_image *img, qr_shading shading)
{
    if (!img || !img->rgba)
        return;
    size_t w = (size_t)img->width;
    for (int32_t j = 0; j < img->height; j++) {
        float shade = shading == QR_SHADE_SNOW ? qr_snow_shade_row(j, img->height) : 1.0f;
        float *row = img->rgba + (size_t)j * w * 4;
        for (size_t i = 0; i < w; i++) {
            row[4 * i + 0] = shade;
            row[4 * i + 1] = shade;
            row[4 * i + 2] = shade;
            row[4 * i + 3] = 1.0f;
        }
    }
}

qr_image_format qr_image_format_from_path(const char *path)
{
    if (!path)
        return QR_FORMAT_UNKNOWN;
    /* Only the last path component may hold the extension: "out.d/img" has none. */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot)
        return QR_FORMAT_UNKNOWN;
    if (strcasecmp(dot, ".png") == 0)
        return QR_FORMAT_PNG;
    if (strcasecmp(dot, ".ppm") == 0)
        return QR_FORMAT_PPM;
    if (strcasecmp(dot, ".pfm") == 0)
        return QR_FORMAT_PFM;
    return QR_FORMAT_UNKNOWN;
}
