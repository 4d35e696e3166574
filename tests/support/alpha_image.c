/* alpha_image.c — see alpha_image.h. */
#include "alpha_image.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "random_scene.h"

static unsigned char byte_of(float v)
{
    if (!(v > 0.0f)) /* zero, negative, NaN */
        return 0;
    if (v >= 1.0f)
        return 255;
    const float scaled = 255.0f * v;
    return (unsigned char)floorf(scaled);
}

void qr_test_rgba8(const float p[4], unsigned char out[4])
{
    out[3] = byte_of(p[3]);
    for (int k = 0; k < 3; k++) {
        const float straight = p[k] / p[3];
        out[k] = out[3] == 0 ? 0 : byte_of(straight);
    }
}

/* Tile kind k's premultiplied pixel, u and v in [0, 1). */
static void special(int k, float u, float v, float p[4])
{
    const float a_cases[] = {0.0f, 1.0f, 1e-7f, 0.0039216f, 0.0039215f, 1.25f, -0.25f, NAN};
    if (k < 8) {
        p[3] = a_cases[k];
        for (int c = 0; c < 3; c++)
            p[c] = k == 0 ? 0.2f + 0.3f * (float)c : p[3] * (u + (1.0f - u) * (float)c / 3.0f);
    } else if (k == 8) { /* a colour rounded just above its alpha */
        p[3] = 0.05f + 0.9f * u;
        p[0] = nextafterf(p[3], 2.0f);
        p[1] = p[3];
        p[2] = p[3] * v;
    } else { /* NaN colour */
        p[3] = 0.5f;
        p[0] = NAN;
        p[1] = 0.25f;
        p[2] = 0.5f;
    }
}

qr_image *qr_test_alpha_image(int32_t w, int32_t h, uint64_t seed)
{
    /* made by hand: wider than a qr_image_create's, as a band may be */
    qr_image *img = malloc(sizeof *img);
    cr_assert_not_null(img);
    img->width = w;
    img->height = h;
    img->rgba = malloc((size_t)w * (size_t)h * 4 * sizeof(float));
    cr_assert_not_null(img->rgba);
    qr_test_rng g = qr_test_rng_seed(seed);
    for (int32_t j = 0; j < h; j++)
        for (int32_t i = 0; i < w; i++) {
            float *p = img->rgba + ((size_t)j * (size_t)w + (size_t)i) * 4;
            const float u = qr_test_rng_float(&g, 0.0f, 1.0f), v = (float)((i + 3 * j) % 97) / 97.0f;
            if ((i / 8 + j / 4) % 5 == 0) {
                special((i + j) % 10, u, v, p);
                continue;
            }
            /* coverage in smooth bands, some of them whole or none */
            const float a = (float)((i + 2 * j) % 300) / 256.0f;
            p[3] = a > 1.0f ? 1.0f : a;
            p[0] = p[3] * v;
            p[1] = p[3] * (1.0f - v);
            p[2] = p[3] * (j % 7 == 0 ? u : 0.75f);
        }
    return img;
}

unsigned char *qr_test_rgba8_rows(const qr_image *img)
{
    const size_t w = (size_t)img->width;
    unsigned char *rows = malloc(4 * w * (size_t)img->height);
    cr_assert_not_null(rows);
    for (int32_t r = 0; r < img->height; r++)
        for (size_t i = 0; i < w; i++)
            qr_test_rgba8(img->rgba + ((size_t)(img->height - 1 - r) * w + i) * 4,
                          rows + ((size_t)r * w + i) * 4);
    return rows;
}
