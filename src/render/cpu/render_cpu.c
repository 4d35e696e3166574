/* render_cpu.c — the serial CPU reference renderer, the oracle every GPU
 * result is checked against.
 *
 * Written for clarity over speed: it follows the "Shading and blending"
 * section of docs/scene-definitions.md step by step, and takes every piece of
 * per-pixel math from common/circle_math.h so that it agrees bit for bit with
 * the CS149 reference renderer (non-snow scenes) and with the GPU kernels.
 *
 * One documented deviation, for degenerate input only: a circle whose radius
 * is not positive, or whose x, y, z, r or colour is not finite, draws
 * nothing. (The reference would, for example, paint the whole image with a
 * circle of infinite radius, or blend NaN into every pixel it touches.)
 */
#include "quadrender/render_cpu.h"

#include <math.h>
#include <stddef.h>

#include "common/circle_math.h"

static int circle_is_drawable(const qr_scene *s, int32_t i)
{
    return qr_radius_draws(s->r[i]) && isfinite(s->x[i]) && isfinite(s->y[i]) &&
           isfinite(s->z[i]) && isfinite(s->red[i]) && isfinite(s->green[i]) &&
           isfinite(s->blue[i]);
}

/* Rows [y0, y1) of the width x height image into band: cleared to the
 * background first, or (over) drawn over the band's pixels as they are. */
static qr_status draw_band(const qr_scene *scene, int32_t width, int32_t height, int32_t y0,
                           int32_t y1, qr_image *band, int over, qr_error *err)
{
    if (!scene || !band || !band->rgba)
        return qr_fail(err, QR_ERR_INVALID, "qr_render_cpu: no scene or no image");
    if (width < 1 || height < 1 || width > QR_IMAGE_BANDS_MAX_DIM || height > QR_IMAGE_BANDS_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID,
                       "qr_render_cpu: image size %ldx%ld out of range (1 to %d a side)",
                       (long)width, (long)height, QR_IMAGE_BANDS_MAX_DIM);
    if (y0 < 0 || y1 > height || y0 >= y1)
        return qr_fail(err, QR_ERR_INVALID, "qr_render_cpu: rows [%ld,%ld) are not a band of %ld",
                       (long)y0, (long)y1, (long)height);
    if (band->width != width || band->height != y1 - y0)
        return qr_fail(err, QR_ERR_INVALID, "qr_render_cpu: the band image is %ldx%ld, not %ldx%ld",
                       (long)band->width, (long)band->height, (long)width, (long)(y1 - y0));
    if (scene->n < 0 ||
        (scene->n > 0 && (!scene->x || !scene->y || !scene->z || !scene->r || !scene->red ||
                          !scene->green || !scene->blue)))
        return qr_fail(err, QR_ERR_INVALID, "qr_render_cpu: scene '%s' is malformed", scene->name);

    const int snow = scene->shading == QR_SHADE_SNOW;
    /* the background of image rows y0.. (qr_image_clear's, by image row;
     * a flat scene's own colour, white unless set; black where it is
     * transparent); over: the pixels of the circles before these */
    for (int32_t py = y0; py < y1 && !over; py++) {
        const float shade = snow ? qr_snow_shade_row(py, height) : 1.0f;
        float *row = band->rgba + (size_t)(py - y0) * (size_t)width * 4;
        for (size_t px = 0; px < (size_t)width; px++) {
            for (int k = 0; k < 3; k++) row[4 * px + k] = snow ? shade : scene->background[k];
            row[4 * px + 3] = scene->transparent ? 0.0f : 1.0f; /* no background: no coverage */
        }
    }

    /* Computed once, as the reference does: the pixel centres depend on it. */
    const float inv_width = 1.f / (float)width;
    const float inv_height = 1.f / (float)height;
    /* anti-aliased edges: every circle half a pixel larger (circle_math.h) */
    const int aa = !snow && scene->antialias;
    const int side = width > height ? width : height;
    const float half_px = qr_aa_half_pixel(side);

    for (int32_t i = 0; i < scene->n; i++) {
        if (!circle_is_drawable(scene, i))
            continue;
        const float x = scene->x[i], y = scene->y[i], z = scene->z[i];
        const float rad = aa ? qr_aa_radius(scene->r[i], half_px) : scene->r[i];
        const float max_d2 = rad * rad;
        const float slope = aa ? qr_aa_slope(rad, side) : 0.0f;
        const qr_pixbox box = qr_circle_pixbox(x, y, rad, width, height);
        /* the box's rows inside the band */
        const int32_t by0 = box.y0 > y0 ? box.y0 : y0, by1 = box.y1 < y1 ? box.y1 : y1;

        for (int32_t py = by0; py < by1; py++) {
            const float cy = qr_pixel_center(py, inv_height);
            float *row = band->rgba + (size_t)(py - y0) * (size_t)width * 4;
            for (int32_t px = box.x0; px < box.x1; px++) {
                const float cx = qr_pixel_center(px, inv_width);
                const float d2 = qr_dist2(x, y, cx, cy);
                if (d2 > max_d2)
                    continue;
                float alpha, r, g, b;
                if (snow) {
                    qr_shade_snow(d2, rad, z, &alpha, &r, &g, &b);
                } else {
                    alpha = qr_scene_alpha(scene, i);
                    if (aa) alpha = qr_aa_alpha(alpha, d2, max_d2, slope);
                    r = scene->red[i];
                    g = scene->green[i];
                    b = scene->blue[i];
                }
                if (scene->transparent)
                    qr_blend_cover(alpha, r, g, b, row + 4 * (size_t)px);
                else
                    qr_blend(alpha, r, g, b, row + 4 * (size_t)px);
            }
        }
    }
    return QR_OK;
}

qr_status qr_render_cpu_band(const qr_scene *scene, int32_t width, int32_t height, int32_t y0,
                             int32_t y1, qr_image *band, qr_error *err)
{
    return draw_band(scene, width, height, y0, y1, band, 0, err);
}

qr_status qr_render_cpu(const qr_scene *scene, qr_image *img, qr_error *err)
{
    if (!img)
        return qr_fail(err, QR_ERR_INVALID, "qr_render_cpu: no scene or no image");
    return draw_band(scene, img->width, img->height, 0, img->height, img, 0, err);
}

qr_status qr_render_cpu_over(const qr_scene *scene, qr_image *img, qr_error *err)
{
    if (!img)
        return qr_fail(err, QR_ERR_INVALID, "qr_render_cpu: no scene or no image");
    return draw_band(scene, img->width, img->height, 0, img->height, img, 1, err);
}

qr_status qr_render_cpu_band_over(const qr_scene *scene, int32_t width, int32_t height,
                                  int32_t y0, int32_t y1, qr_image *band, qr_error *err)
{
    return draw_band(scene, width, height, y0, y1, band, 1, err);
}
