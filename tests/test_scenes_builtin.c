/* test_scenes_builtin.c — the built-in scenes against their specification:
 * the table, its check values, the invariants each definition implies,
 * seeds, and loading scenes by name. The independent re-implementation is
 * test_scenes_oracle.c's, animation test_scenes_animate.c's. Generation
 * speed is measured, not tested: dev/scene_gen_timer. */
#include "test_util.h"

#include <math.h>
#include <stdint.h>

#include "quadrender/scene.h"
#include "scene_util.h"

/* ---- helpers --------------------------------------------------------- */

static void assert_sorted_descending(const qr_scene *s)
{
    for (int32_t i = 1; i < s->n; ++i)
        cr_assert(s->z[i - 1] >= s->z[i], "%s: z[%d] %.9g < z[%d] %.9g", s->name, i - 1,
                  (double)s->z[i - 1], i, (double)s->z[i]);
}

static void assert_range(const float *v, int32_t from, int32_t to, float lo, float hi,
                         const char *what)
{
    for (int32_t i = from; i < to; ++i)
        cr_assert(v[i] >= lo && v[i] <= hi, "%s[%d] = %.9g not in [%g, %g]", what, i,
                  (double)v[i], (double)lo, (double)hi);
}

/* ---- the table --------------------------------------------------------- */

static const struct {
    const char *name;
    int32_t n;
    qr_anim anim;
    qr_shading shading;
} expected[20] = {
    {"rgb", 3, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"rgby", 4, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"rand10k", 10000, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"rand100k", 100000, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"rand1M", 1000000, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"micro2M", 2000000, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"biglittle", 10000, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"littlebig", 10000, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"pattern", 1217, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"hypnosis", 25, QR_ANIM_HYPNOSIS, QR_SHADE_FLAT},
    {"bouncingballs", 10, QR_ANIM_BOUNCE, QR_SHADE_FLAT},
    {"fireworks", 315, QR_ANIM_FIREWORKS, QR_SHADE_FLAT},
    {"snow", 100000, QR_ANIM_SNOW, QR_SHADE_SNOW},
    {"snowsingle", 100000, QR_ANIM_NONE, QR_SHADE_SNOW},
    {"clusters", 1000000, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"spiral", 1000000, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"powerlaw", 300000, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"hotspot", 1000000, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"roads", 500000, QR_ANIM_NONE, QR_SHADE_FLAT},
    {"ring", 1000000, QR_ANIM_NONE, QR_SHADE_FLAT},
};

Test(scenes, table_and_counts)
{
    int count = 0;
    const qr_builtin_info *t = qr_builtin_scenes(&count);
    cr_assert_eq(count, 20);
    for (int i = 0; i < 20; ++i) {
        cr_assert_str_eq(t[i].name, expected[i].name);
        cr_assert_eq(t[i].circles, expected[i].n, "%s", t[i].name);
        cr_assert_eq(t[i].animated != 0, expected[i].anim != QR_ANIM_NONE, "%s", t[i].name);
        cr_assert(t[i].description && strlen(t[i].description) > 10);
        cr_assert_null(strchr(t[i].description, '\n'));
        qr_scene *s = qr_test_builtin(t[i].name, 0);
        cr_assert_eq(s->n, expected[i].n, "%s", t[i].name);
        cr_assert_eq(s->anim, expected[i].anim, "%s", t[i].name);
        cr_assert_eq(s->shading, expected[i].shading, "%s", t[i].name);
        cr_assert_str_eq(s->name, t[i].name);
        cr_assert_eq(s->steps, 0);
        cr_assert_eq(s->vx != NULL, expected[i].anim != QR_ANIM_NONE, "%s", t[i].name);
        cr_assert_eq(s->x0 != NULL, expected[i].anim == QR_ANIM_FIREWORKS, "%s", t[i].name);
        for (int32_t k = 0; k < s->n; ++k) {
            float v[7] = {s->x[k], s->y[k], s->z[k], s->r[k], s->red[k], s->green[k], s->blue[k]};
            for (int f = 0; f < 7; ++f)
                cr_assert(isfinite(v[f]), "%s circle %d field %d", t[i].name, k, f);
        }
        qr_scene_destroy(s);
    }
}

Test(scenes, unknown_builtin)
{
    qr_scene *s = (qr_scene *)1;
    qr_error err;
    cr_assert_eq(qr_scene_builtin("rand10", 0, &s, &err), QR_ERR_INVALID);
    cr_assert_null(s);
    cr_assert_not_null(strstr(err.msg, "rand10"));
}

/* ---- spec check values ----------------------------------------------- */

Test(scenes, check_rand10k)
{
    qr_scene *s = qr_test_builtin("rand10k", 0);
    qr_test_assert_bits(s->x[0], 0.856839299f, "x");
    qr_test_assert_bits(s->y[0], 0.19919768f, "y");
    qr_test_assert_bits(s->z[0], 0.999993563f, "z");
    qr_test_assert_bits(s->r[0], 0.0224882383f, "r");
    qr_test_assert_bits(s->red[0], 0.419634521f, "R");
    qr_test_assert_bits(s->green[0], 0.372896612f, "G");
    qr_test_assert_bits(s->blue[0], 0.836913407f, "B");
    qr_scene_destroy(s);
}

Test(scenes, check_biglittle)
{
    qr_scene *s = qr_test_builtin("biglittle", 0);
    qr_test_assert_bits(s->x[0], 0.0414706469f, "x0");
    qr_test_assert_bits(s->y[0], 0.856839299f, "y0");
    qr_test_assert_bits(s->r[0], 0.25f, "r0");
    qr_test_assert_bits(s->x[9000], 0.124308556f, "x9000");
    qr_test_assert_bits(s->y[9000], 0.895241439f, "y9000");
    qr_test_assert_bits(s->z[9000], 0.100709498f, "z9000");
    qr_test_assert_bits(s->r[9000], 0.05f, "r9000");
    qr_scene_destroy(s);
}

Test(scenes, check_micro2M)
{
    qr_scene *s = qr_test_builtin("micro2M", 0);
    qr_test_assert_bits(s->x[0], 0.133219883f, "x");
    qr_test_assert_bits(s->y[0], 0.590876698f, "y");
    qr_test_assert_bits(s->z[0], 0.999998927f, "z");
    qr_test_assert_bits(s->r[0], 0.001f, "r");
    qr_scene_destroy(s);
}

Test(scenes, check_pattern)
{
    qr_scene *s = qr_test_builtin("pattern", 0);
    qr_test_assert_bits(s->x[0], 0.03125f, "x0");
    qr_test_assert_bits(s->y[0], 0.03125f, "y0");
    qr_test_assert_bits(s->z[0], 0.840187728f, "z0");
    qr_test_assert_bits(s->x[256], 0.0f, "x256");
    qr_test_assert_bits(s->y[256], 0.0f, "y256");
    qr_test_assert_bits(s->z[256], 0.730729342f, "z256");
    qr_scene_destroy(s);
}

Test(scenes, rgb_and_rgby_exact)
{
    qr_scene *s = qr_test_builtin("rgb", 0);
    const float rgb[3][7] = {{0.4f, 0.5f, 0.75f, 0.3f, 1, 0, 0},
                             {0.5f, 0.5f, 0.5f, 0.3f, 0, 1, 0},
                             {0.6f, 0.5f, 0.25f, 0.3f, 0, 0, 1}};
    for (int i = 0; i < 3; ++i) {
        const float got[7] = {s->x[i], s->y[i], s->z[i], s->r[i], s->red[i], s->green[i], s->blue[i]};
        for (int f = 0; f < 7; ++f)
            qr_test_assert_bits(got[f], rgb[i][f], "rgb circle %d field %d", i, f);
    }
    qr_scene_destroy(s);
    s = qr_test_builtin("rgby", 0);
    const float rgby[4][7] = {{0.25f, 0.25f, 0.75f, 0.19f, 1, 0, 0},
                              {0.3f, 0.3f, 0.5f, 0.19f, 0, 1, 0},
                              {0.5f, 0.5f, 0.25f, 0.25f, 0, 0, 1},
                              {0.2f, 0.2f, 0.9f, 0.1f, 1, 1, 0}};
    for (int i = 0; i < 4; ++i) {
        const float got[7] = {s->x[i], s->y[i], s->z[i], s->r[i], s->red[i], s->green[i], s->blue[i]};
        for (int f = 0; f < 7; ++f)
            qr_test_assert_bits(got[f], rgby[i][f], "rgby circle %d field %d", i, f);
    }
    qr_scene_destroy(s);
}

/* ---- invariants ---------------------------------------------------------- */

static void check_random(const char *name, float rlo, float rhi, const float col[6])
{
    qr_scene *s = qr_test_builtin(name, 0);
    assert_sorted_descending(s);
    assert_range(s->z, 0, s->n, 0.0f, 1.0f, "z");
    assert_range(s->x, 0, s->n, 0.0f, 1.0f, "x");
    assert_range(s->y, 0, s->n, 0.0f, 1.0f, "y");
    assert_range(s->r, 0, s->n, rlo, rhi, "r");
    assert_range(s->red, 0, s->n, col[0], col[1], "R");
    assert_range(s->green, 0, s->n, col[2], col[3], "G");
    assert_range(s->blue, 0, s->n, col[4], col[5], "B");
    qr_scene_destroy(s);
}

Test(scenes, invariants_random)
{
    const float c10k[6] = {0.1f, 1.0f, 0.2f, 0.7f, 0.5f, 1.0f};
    const float c100k[6] = {0.3f, 1.2f, 0.1f, 1.0f, 0.1f, 0.5f};
    const float c1M[6] = {0.2f, 0.7f, 0.5f, 1.0f, 0.1f, 0.5f};
    check_random("rand10k", 0.02f, 0.08f, c10k);
    check_random("rand100k", 0.02f, 0.08f, c100k);
    check_random("rand1M", 0.009f, 0.014f, c1M);
}

Test(scenes, invariants_sized)
{
    const float c2M[6] = {0.3f, 1.2f, 0.1f, 0.4f, 0.2f, 0.4f};
    check_random("micro2M", 0.001f, 0.001f, c2M);

    const struct {
        const char *name;
        float xlo, ylo;
    } bl[2] = {{"biglittle", 0.05f, 0.85f}, {"littlebig", 0.85f, 0.05f}};
    for (int k = 0; k < 2; ++k) {
        qr_scene *s = qr_test_builtin(bl[k].name, 0);
        assert_sorted_descending(s);
        assert_range(s->r, 0, 9000, 0.25f, 0.25f, "r big");
        assert_range(s->r, 9000, 10000, 0.05f, 0.05f, "r little");
        assert_range(s->x, 0, 9000, 0.0f, 1.0f, "x big");
        assert_range(s->y, 0, 9000, 0.0f, 1.0f, "y big");
        assert_range(s->x, 9000, 10000, bl[k].xlo - 1e-6f, bl[k].xlo + 0.1f + 1e-6f, "x little");
        assert_range(s->y, 9000, 10000, bl[k].ylo - 1e-6f, bl[k].ylo + 0.1f + 1e-6f, "y little");
        assert_range(s->red, 0, s->n, 0.1f, 1.0f, "R");
        assert_range(s->green, 0, s->n, 0.2f, 0.7f, "G");
        assert_range(s->blue, 0, s->n, 0.5f, 1.0f, "B");
        qr_scene_destroy(s);
    }
}

Test(scenes, biglittle_and_littlebig_share_the_big_circles)
{
    qr_scene *a = qr_test_builtin("biglittle", 5), *b = qr_test_builtin("littlebig", 5);
    cr_assert(memcmp(a->x, b->x, 9000 * sizeof(float)) == 0);
    cr_assert(memcmp(a->y, b->y, 9000 * sizeof(float)) == 0);
    cr_assert(memcmp(a->z, b->z, 10000 * sizeof(float)) == 0);
    cr_assert(memcmp(a->red, b->red, 10000 * sizeof(float)) == 0);
    qr_scene_destroy(a);
    qr_scene_destroy(b);
}

Test(scenes, pattern_grids)
{
    qr_scene *s = qr_test_builtin("pattern", 0);
    const float r = 0.03125f;
    int32_t k = 0;
    for (int grid = 0; grid < 2; ++grid) {
        int size = grid == 0 ? 16 : 31;
        float off = grid == 0 ? r : 0.0f;
        for (int j = 0; j < size; ++j) {
            for (int i = 0; i < size; ++i, ++k) {
                /* all values here are multiples of 2^-5: exact */
                qr_test_assert_bits(s->x[k], off + 0.0625f * (float)i, "x[%d]", k);
                qr_test_assert_bits(s->y[k], off + 0.0625f * (float)j, "y[%d]", k);
                qr_test_assert_bits(s->r[k], r, "r[%d]", k);
                qr_test_assert_bits(s->red[k], 1.0f, "R[%d]", k);
                qr_test_assert_bits(s->green[k], grid == 0 ? 0.0f : 1.0f, "G[%d]", k);
                qr_test_assert_bits(s->blue[k], 0.0f, "B[%d]", k);
                cr_assert(s->z[k] >= 0.0f && s->z[k] <= 1.0f);
            }
        }
    }
    cr_assert_eq(k, 1217);
    qr_scene_destroy(s);
}

Test(scenes, hypnosis_layout)
{
    qr_scene *s = qr_test_builtin("hypnosis", 0);
    for (int i = 0; i < 25; ++i) {
        qr_test_assert_bits(s->r[i], 0.02f + (float)i * 0.02f, "r[%d]", i);
        qr_test_assert_bits(s->x[i], 0.5f, "x");
        qr_test_assert_bits(s->y[i], 0.5f, "y");
        qr_test_assert_bits(s->z[i], 0.0f, "z");
    }
    assert_range(s->red, 0, 25, 0.0f, 1.0f, "R");
    assert_range(s->green, 0, 25, 0.0f, 1.0f, "G");
    assert_range(s->blue, 0, 25, 0.0f, 1.0f, "B");
    /* colours are the first 75 rf() of the stream, R G B per circle */
    qr_test_assert_bits(s->red[0], 0.840187728f, "R0");
    qr_scene_destroy(s);
}

Test(scenes, bouncingballs_layout)
{
    qr_scene *s = qr_test_builtin("bouncingballs", 0);
    for (int i = 0; i < 10; ++i) {
        qr_test_assert_bits(s->r[i], 0.05f, "r");
        qr_test_assert_bits(s->red[i], i % 3 == 0 ? 1.0f : 0.0f, "R[%d]", i);
        qr_test_assert_bits(s->green[i], i % 3 == 1 ? 1.0f : 0.0f, "G[%d]", i);
        qr_test_assert_bits(s->blue[i], i % 3 == 2 ? 1.0f : 0.0f, "B[%d]", i);
        qr_test_assert_bits(s->vx[i], 0.0f, "vx");
        qr_test_assert_bits(s->vz[i], 0.0f, "vz");
    }
    assert_range(s->x, 0, 10, 0.0f, 1.0f, "x");
    assert_range(s->y, 0, 10, 0.0f, 1.0f, "y");
    assert_range(s->z, 0, 10, 0.0f, 1.0f, "z");
    assert_range(s->vy, 0, 10, 0.0f, 1.0f, "vy");
    /* per ball: x y z vy */
    qr_test_assert_bits(s->x[0], 0.840187728f, "x0");
    qr_scene_destroy(s);
}

Test(scenes, fireworks_layout)
{
    qr_scene *s = qr_test_builtin("fireworks", 0);
    for (int i = 0; i < 15; ++i) {
        qr_test_assert_bits(s->r[i], 0.005f, "firework r");
        qr_test_assert_bits(s->red[i], 1.0f, "white");
        qr_test_assert_bits(s->green[i], 1.0f, "white");
        qr_test_assert_bits(s->blue[i], 1.0f, "white");
        qr_test_assert_bits(s->x0[i], s->x[i], "firework start x");
        qr_test_assert_bits(s->vx0[i], 0.0f, "firework velocity");
        for (int j = 0; j < 20; ++j) {
            int k = 15 + 20 * i + j;
            qr_test_assert_bits(s->r[k], 0.01f, "spark r");
            qr_test_assert_bits(s->z[k], 0.0f, "spark z");
            qr_test_assert_bits(s->red[k], i % 3 == 0 ? 1.0f : 0.0f, "spark %d R", k);
            qr_test_assert_bits(s->green[k], i % 3 == 1 ? 1.0f : 0.0f, "spark %d G", k);
            qr_test_assert_bits(s->blue[k], i % 3 == 2 ? 1.0f : 0.0f, "spark %d B", k);
            double dx = (double)s->x[k] - s->x[i], dy = (double)s->y[k] - s->y[i];
            cr_assert(fabs(sqrt(dx * dx + dy * dy) - 0.005) < 1e-6, "spark %d offset", k);
            double speed = sqrt((double)s->vx[k] * s->vx[k] + (double)s->vy[k] * s->vy[k]);
            cr_assert(fabs(speed - 0.2) < 1e-6, "spark %d speed %g", k, speed);
            /* direction: angle j * 2pi / 20 (pi rounded to 3.14159) */
            double angle = j * 2 * 3.14159 / 20;
            cr_assert(fabs(s->vx[k] - cos(angle) / 5) < 1e-6 && fabs(s->vy[k] - sin(angle) / 5) < 1e-6);
            qr_test_assert_bits(s->x0[k], s->x[k], "x0");
            qr_test_assert_bits(s->y0[k], s->y[k], "y0");
            qr_test_assert_bits(s->vx0[k], s->vx[k], "vx0");
            qr_test_assert_bits(s->vy0[k], s->vy[k], "vy0");
        }
    }
    qr_scene_destroy(s);
}

Test(scenes, snow_layout)
{
    qr_scene *s = qr_test_builtin("snow", 0);
    assert_sorted_descending(s);
    assert_range(s->z, 0, s->n, 0.0f, 1.0f, "z");
    assert_range(s->x, 0, s->n, 0.0f, 1.0f, "x");
    for (int32_t i = 0; i < s->n; ++i) {
        float r = s->r[i];
        if (s->z[i] < 0.02f)
            cr_assert(r >= 3 * 0.0075f * (1 - 0.02f) && r <= 3 * 0.0875f, "r[%d] %g", i, r);
        else
            cr_assert(r >= 0.0075f && r <= 0.0875f, "r[%d] %g", i, r);
        cr_assert(s->y[i] >= 1.0f + r && s->y[i] <= 3.0f + r + 1e-6f, "y[%d]", i);
        cr_assert(s->vx[i] == 0.0f && s->vy[i] == 0.0f && s->vz[i] == 0.0f);
    }
    /* depth = powf(i/N, 0.1) +- 0.05: most flakes are far away */
    cr_assert(s->z[s->n / 2] > 0.85f);
    qr_scene_destroy(s);
}

/* snowsingle: snow's rf() stream unchanged, only y = rf(). */
Test(scenes, snowsingle_is_snow_spread_over_the_sky)
{
    qr_scene *snow = qr_test_builtin("snow", 9), *single = qr_test_builtin("snowsingle", 9);
    cr_assert_eq(single->anim, QR_ANIM_NONE);
    cr_assert_null(single->vx);
    cr_assert(memcmp(snow->x, single->x, (size_t)snow->n * sizeof(float)) == 0);
    cr_assert(memcmp(snow->z, single->z, (size_t)snow->n * sizeof(float)) == 0);
    cr_assert(memcmp(snow->r, single->r, (size_t)snow->n * sizeof(float)) == 0);
    assert_range(single->y, 0, single->n, 0.0f, 1.0f, "y");
    for (int32_t i = 0; i < snow->n; ++i) {
        /* the same rf() value, mapped differently */
        float u = single->y[i];
        qr_test_assert_bits(snow->y[i], 1.0f + snow->r[i] + 2.0f * u, "y[%d]", i);
    }
    qr_scene_destroy(snow);
    qr_scene_destroy(single);
}

/* ---- seeds ------------------------------------------------------------------ */

Test(scenes, seeds)
{
    int count;
    const qr_builtin_info *t = qr_builtin_scenes(&count);
    for (int i = 0; i < count; ++i) {
        qr_scene *a = qr_test_builtin(t[i].name, 77), *b = qr_test_builtin(t[i].name, 77);
        qr_test_assert_same_scene(a, b, t[i].name);
        qr_scene_destroy(b);
        /* seed 0 behaves as 1, like srand */
        qr_scene *z0 = qr_test_builtin(t[i].name, 0), *z1 = qr_test_builtin(t[i].name, 1);
        qr_test_assert_same_scene(z0, z1, t[i].name);
        /* a different seed changes every scene that draws random numbers */
        if (strcmp(t[i].name, "rgb") != 0 && strcmp(t[i].name, "rgby") != 0)
            cr_assert(memcmp(a->block, z0->block, a->block_floats * sizeof(float)) != 0,
                      "%s: seed has no effect", t[i].name);
        qr_scene_destroy(a);
        qr_scene_destroy(z0);
        qr_scene_destroy(z1);
    }
    /* seeds above 2^31 are valid (glibc reads them as negative int32) */
    qr_scene *big = qr_test_builtin("rand10k", 4294967295u), *small = qr_test_builtin("rand10k", 2);
    cr_assert(memcmp(big->block, small->block, big->block_floats * sizeof(float)) != 0);
    qr_scene_destroy(big);
    qr_scene_destroy(small);
}

/* ---- loading ------------------------------------------------------------- */

Test(scenes, load_builtin_and_unknown)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_load("rgby", 0, &s, &err), QR_OK);
    cr_assert_eq(s->n, 4);
    qr_scene_destroy(s);
    cr_assert_eq(qr_scene_load("nosuchscene", 0, &s, &err), QR_ERR_INVALID);
    cr_assert_null(s);
    cr_assert_str_eq(err.msg, "unknown scene 'nosuchscene' (not a built-in name, not a .circles, "
                              ".par or .npy file); try 'quadrender scenes'");
    cr_assert_eq(qr_scene_load("picture.png", 0, &s, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_scene_load("", 0, &s, &err), QR_ERR_INVALID);
}

Test(scenes, load_files_by_extension)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_load(qr_test_src("scenes/three.circles"), 0, &s, &err), QR_OK, "%s",
                 err.msg);
    cr_assert_eq(s->n, 3);
    cr_assert_str_eq(s->name, "three");
    qr_scene_destroy(s);
    cr_assert_eq(qr_scene_load(qr_test_src("scenes/example.par"), 0, &s, &err), QR_OK, "%s",
                 err.msg);
    cr_assert_eq(s->shading, QR_SHADE_SNOW);
    qr_scene_destroy(s);

    /* the extension is case-insensitive */
    qr_scene *rgb = qr_test_builtin("rgb", 0);
    const char *upper = qr_test_tmp("Upper.CIRCLES");
    cr_assert_eq(qr_scene_write_circles(rgb, upper, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_load(upper, 0, &s, &err), QR_OK, "%s", err.msg);
    cr_assert_not_null(strstr(s->name, "Upper"));
    cr_assert_null(strchr(s->name, '.'), "the extension is not part of the name");
    cr_assert(memcmp(s->block, rgb->block, rgb->block_floats * sizeof(float)) == 0);
    qr_scene_destroy(s);
    qr_scene_destroy(rgb);
    unlink(upper);

    /* a missing file with a known extension is an i/o error, not "unknown scene" */
    cr_assert_eq(qr_scene_load("/nonexistent/x.circles", 0, &s, &err), QR_ERR_IO);
    cr_assert_eq(qr_scene_load("/nonexistent/x.Par", 0, &s, &err), QR_ERR_IO);
}
