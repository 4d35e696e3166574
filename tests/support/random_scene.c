/* random_scene.c — see random_scene.h. */
#include "random_scene.h"
#include "scene_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

qr_test_rng qr_test_rng_seed(uint64_t seed)
{
    qr_test_rng g = {seed};
    return g;
}

uint64_t qr_test_rng_next(qr_test_rng *g) /* splitmix64 */
{
    uint64_t z = (g->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint32_t qr_test_rng_below(qr_test_rng *g, uint32_t n)
{
    return (uint32_t)(qr_test_rng_next(g) % n);
}

float qr_test_rng_float(qr_test_rng *g, float lo, float hi)
{
    return lo + (hi - lo) * ((float)(qr_test_rng_next(g) >> 40) * (1.0f / 16777216.0f));
}

static qr_test_kind kind(int weight, qr_test_form form, float x0, float x1, float y0, float y1,
                         float r0, float r1)
{
    qr_test_kind k = {weight, form, {x0, x1}, {y0, y1}, {r0, r1}};
    return k;
}

qr_test_scene_spec qr_test_mix_spec(qr_test_mix mix, uint64_t seed, int32_t n)
{
    qr_test_scene_spec s = {0};
    s.seed = seed;
    s.n = n;
    s.shading = QR_SHADE_FLAT;
    s.z[0] = 0.0f;
    s.z[1] = 1.0f;
    for (int c = 0; c < 3; c++) {
        s.rgb[c][0] = -0.5f;
        s.rgb[c][1] = 1.5f;
    }
    qr_test_kind *k = s.kinds;
    switch (mix) {
    case QR_TEST_MIX_UNIFORM:
        k[s.num_kinds++] = kind(1, QR_TEST_PLAIN, -0.2f, 1.2f, -0.2f, 1.2f, 0.001f, 0.3f);
        break;
    case QR_TEST_MIX_RENDERABLE:
    case QR_TEST_MIX_HOSTILE:
        s.clusters = 3;
        /* clustered, tiny (some sub-pixel) */
        k[s.num_kinds++] =
            kind(40, QR_TEST_CLUSTERED, -0.03f, 0.03f, -0.03f, 0.03f, 0.0002f, 0.005f);
        /* ordinary, partly off-screen */
        k[s.num_kinds++] = kind(45, QR_TEST_PLAIN, -0.15f, 1.15f, -0.15f, 1.15f, 0.001f, 0.08f);
        /* larger than the image */
        k[s.num_kinds++] = kind(7, QR_TEST_PLAIN, -0.5f, 1.5f, -0.5f, 1.5f, 0.3f, 1.5f);
        /* far away */
        k[s.num_kinds++] = kind(4, QR_TEST_PLAIN, 1.5f, 5.0f, -5.0f, 5.0f, 0.001f, 0.5f);
        /* r = 0 */
        k[s.num_kinds++] = kind(4, QR_TEST_ZERO_R, -0.15f, 1.15f, -0.15f, 1.15f, 0.0f, 0.0f);
        if (mix == QR_TEST_MIX_HOSTILE) {
            k[s.num_kinds++] =
                kind(2, QR_TEST_NEGATIVE_R, -0.15f, 1.15f, -0.15f, 1.15f, 0.001f, 0.08f);
            k[s.num_kinds++] = kind(1, QR_TEST_HUGE_FINITE, 0, 0, -0.15f, 1.15f, 0, 0);
            k[s.num_kinds++] = kind(1, QR_TEST_NAN_X, -0.15f, 1.15f, -0.15f, 1.15f, 0.001f, 0.08f);
            k[s.num_kinds++] = kind(1, QR_TEST_INF_Y, -0.15f, 1.15f, -0.15f, 1.15f, 0.001f, 0.08f);
            k[s.num_kinds++] = kind(1, QR_TEST_INF_R, -0.15f, 1.15f, -0.15f, 1.15f, 0.001f, 0.08f);
        }
        break;
    }
    return s;
}

qr_scene *qr_test_scene_generate(const qr_test_scene_spec *spec)
{
    cr_assert(spec->num_kinds >= 1 && spec->num_kinds <= QR_TEST_MAX_KINDS, "%d kinds",
              spec->num_kinds);
    cr_assert(spec->clusters >= 0 && spec->clusters <= QR_TEST_MAX_CLUSTERS);
    int total = 0;
    for (int k = 0; k < spec->num_kinds; k++) {
        cr_assert(spec->kinds[k].weight >= 0);
        total += spec->kinds[k].weight;
        cr_assert(spec->kinds[k].form != QR_TEST_CLUSTERED || spec->clusters > 0,
                  "a clustered kind needs clusters");
    }
    cr_assert(total > 0, "no kind has a weight");

    qr_scene *s = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_create(spec->n, QR_ANIM_NONE, &s, &err), QR_OK, "%s", err.msg);
    s->shading = spec->shading;
    snprintf(s->name, sizeof s->name, "random %llu", (unsigned long long)spec->seed);

    qr_test_rng g = qr_test_rng_seed(spec->seed);
    float cx[QR_TEST_MAX_CLUSTERS], cy[QR_TEST_MAX_CLUSTERS];
    for (int c = 0; c < spec->clusters; c++) {
        cx[c] = qr_test_rng_float(&g, 0.0f, 1.0f);
        cy[c] = qr_test_rng_float(&g, 0.0f, 1.0f);
    }
    for (int32_t i = 0; i < spec->n; i++) {
        int pick = (int)qr_test_rng_below(&g, (uint32_t)total), k = 0;
        while (pick >= spec->kinds[k].weight)
            pick -= spec->kinds[k++].weight;
        const qr_test_kind *kd = &spec->kinds[k];
        float x = qr_test_rng_float(&g, kd->x[0], kd->x[1]);
        float y = qr_test_rng_float(&g, kd->y[0], kd->y[1]);
        float r = qr_test_rng_float(&g, kd->r[0], kd->r[1]);
        switch (kd->form) {
        case QR_TEST_PLAIN:
            break;
        case QR_TEST_CLUSTERED: {
            const uint32_t c = qr_test_rng_below(&g, (uint32_t)spec->clusters);
            x += cx[c];
            y += cy[c];
            break;
        }
        case QR_TEST_ZERO_R:
            r = 0.0f;
            break;
        case QR_TEST_NEGATIVE_R:
            r = -r;
            break;
        case QR_TEST_NAN_X:
            x = NAN;
            break;
        case QR_TEST_INF_Y:
            y = INFINITY;
            break;
        case QR_TEST_INF_R:
            r = INFINITY;
            break;
        case QR_TEST_HUGE_FINITE:
            x = (qr_test_rng_next(&g) & 1) ? 3e38f : -3e38f;
            r = (qr_test_rng_next(&g) & 1) ? 3e38f : 1e30f;
            break;
        }
        s->x[i] = x;
        s->y[i] = y;
        s->r[i] = r;
        s->z[i] = qr_test_rng_float(&g, spec->z[0], spec->z[1]);
        s->red[i] = qr_test_rng_float(&g, spec->rgb[0][0], spec->rgb[0][1]);
        s->green[i] = qr_test_rng_float(&g, spec->rgb[1][0], spec->rgb[1][1]);
        s->blue[i] = qr_test_rng_float(&g, spec->rgb[2][0], spec->rgb[2][1]);
    }
    return s;
}

qr_scene *qr_test_random_scene(qr_test_mix mix, uint64_t seed, int32_t n)
{
    qr_test_scene_spec spec = qr_test_mix_spec(mix, seed, n);
    return qr_test_scene_generate(&spec);
}

qr_scene *qr_test_large_circles(int32_t big, float rmin, float rmax, int32_t small, uint64_t seed)
{
    qr_scene *s = qr_test_scene_new(big + small);
    qr_test_rng g = qr_test_rng_seed(seed);
    for (int32_t i = 0; i < big + small; i++) {
        const float x = qr_test_rng_float(&g, 0.0f, 1.0f), y = qr_test_rng_float(&g, 0.0f, 1.0f);
        const float r = i < big ? qr_test_rng_float(&g, rmin, rmax)
                                : qr_test_rng_float(&g, 0.002f, 0.01f);
        qr_test_set_circle(s, i, x, y, r);
        s->red[i] = qr_test_rng_float(&g, 0.0f, 1.0f);
        s->green[i] = qr_test_rng_float(&g, 0.0f, 1.0f);
        s->blue[i] = qr_test_rng_float(&g, 0.0f, 1.0f);
    }
    return s;
}

void qr_test_random_picture(qr_scene *s, uint64_t seed)
{
    qr_test_rng g = qr_test_rng_seed(seed ^ 0x5eedA1fAULL);
    float *alpha = malloc((size_t)(s->n ? s->n : 1) * sizeof *alpha);
    cr_assert(alpha != NULL);
    static const float special[] = {0.0f, 1.0f, 0.5f, 1e-6f, 0.999999f, 0x1p-20f};
    for (int32_t i = 0; i < s->n; i++) {
        const uint32_t k = qr_test_rng_below(&g, 8 * 6);
        alpha[i] = k < 6 ? special[k] : qr_test_rng_float(&g, 0.0f, 1.0f);
    }
    const uint32_t zero = qr_test_rng_below(&g, 3), one = (zero + 1 + qr_test_rng_below(&g, 2)) % 3;
    float bg[3];
    for (int k = 0; k < 3; k++) bg[k] = qr_test_rng_float(&g, 0.0f, 1.0f);
    bg[zero] = 0.0f;
    bg[one] = 1.0f;
    qr_error err;
    cr_assert_eq(qr_scene_set_alpha(s, alpha, "alpha", &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_set_background(s, bg, "background", &err), QR_OK, "%s", err.msg);
    free(alpha);
}
