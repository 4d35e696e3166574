/* test_scenes.c — the built-in scenes against their specification: its
 * check values, the invariants each definition implies, an independent
 * re-implementation on glibc's srand/rand + qsort (a different code path
 * from the library's portable generator and radix sort), animation steps and
 * frame seeking, and allocation layout. Generation speed is measured, not
 * tested: dev/scene_gen_timer. */
#include "test_util.h"

#include <math.h>
#include <stdint.h>

#include "quadrender/scene.h"
#include "quadrender/threads.h"

/* ---- helpers --------------------------------------------------------- */

static qr_scene *gen(const char *name, uint32_t seed)
{
    qr_scene *s = NULL;
    qr_error err;
    qr_status st = qr_scene_builtin(name, seed, &s, &err);
    cr_assert_eq(st, QR_OK, "%s: %s", name, err.msg);
    cr_assert_not_null(s);
    return s;
}

static uint32_t bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* Equal as bit patterns (so -0 != +0 and the test is exact). */
#define assert_bits(got, want, ...) \
    cr_assert_eq(bits(got), bits(want), __VA_ARGS__)

static void assert_same_bytes(const qr_scene *a, const qr_scene *b, const char *what)
{
    cr_assert_eq(a->n, b->n, "%s: n", what);
    cr_assert_eq(a->block_floats, b->block_floats, "%s: block size", what);
    cr_assert(memcmp(a->block, b->block, a->block_floats * sizeof(float)) == 0,
              "%s: contents differ", what);
}

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
} expected[14] = {
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
};

Test(scenes, table_and_counts)
{
    int count = 0;
    const qr_builtin_info *t = qr_builtin_scenes(&count);
    cr_assert_eq(count, 14);
    for (int i = 0; i < 14; ++i) {
        cr_assert_str_eq(t[i].name, expected[i].name);
        cr_assert_eq(t[i].circles, expected[i].n, "%s", t[i].name);
        cr_assert_eq(t[i].animated != 0, expected[i].anim != QR_ANIM_NONE, "%s", t[i].name);
        cr_assert(t[i].description && strlen(t[i].description) > 10);
        cr_assert_null(strchr(t[i].description, '\n'));
        qr_scene *s = gen(t[i].name, 0);
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
        qr_scene_free(s);
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
    qr_scene *s = gen("rand10k", 0);
    assert_bits(s->x[0], 0.856839299f, "x");
    assert_bits(s->y[0], 0.19919768f, "y");
    assert_bits(s->z[0], 0.999993563f, "z");
    assert_bits(s->r[0], 0.0224882383f, "r");
    assert_bits(s->red[0], 0.419634521f, "R");
    assert_bits(s->green[0], 0.372896612f, "G");
    assert_bits(s->blue[0], 0.836913407f, "B");
    qr_scene_free(s);
}

Test(scenes, check_biglittle)
{
    qr_scene *s = gen("biglittle", 0);
    assert_bits(s->x[0], 0.0414706469f, "x0");
    assert_bits(s->y[0], 0.856839299f, "y0");
    assert_bits(s->r[0], 0.25f, "r0");
    assert_bits(s->x[9000], 0.124308556f, "x9000");
    assert_bits(s->y[9000], 0.895241439f, "y9000");
    assert_bits(s->z[9000], 0.100709498f, "z9000");
    assert_bits(s->r[9000], 0.05f, "r9000");
    qr_scene_free(s);
}

Test(scenes, check_micro2M)
{
    qr_scene *s = gen("micro2M", 0);
    assert_bits(s->x[0], 0.133219883f, "x");
    assert_bits(s->y[0], 0.590876698f, "y");
    assert_bits(s->z[0], 0.999998927f, "z");
    assert_bits(s->r[0], 0.001f, "r");
    qr_scene_free(s);
}

Test(scenes, check_pattern)
{
    qr_scene *s = gen("pattern", 0);
    assert_bits(s->x[0], 0.03125f, "x0");
    assert_bits(s->y[0], 0.03125f, "y0");
    assert_bits(s->z[0], 0.840187728f, "z0");
    assert_bits(s->x[256], 0.0f, "x256");
    assert_bits(s->y[256], 0.0f, "y256");
    assert_bits(s->z[256], 0.730729342f, "z256");
    qr_scene_free(s);
}

Test(scenes, rgb_and_rgby_exact)
{
    qr_scene *s = gen("rgb", 0);
    const float rgb[3][7] = {{0.4f, 0.5f, 0.75f, 0.3f, 1, 0, 0},
                             {0.5f, 0.5f, 0.5f, 0.3f, 0, 1, 0},
                             {0.6f, 0.5f, 0.25f, 0.3f, 0, 0, 1}};
    for (int i = 0; i < 3; ++i) {
        const float got[7] = {s->x[i], s->y[i], s->z[i], s->r[i], s->red[i], s->green[i], s->blue[i]};
        for (int f = 0; f < 7; ++f)
            assert_bits(got[f], rgb[i][f], "rgb circle %d field %d", i, f);
    }
    qr_scene_free(s);
    s = gen("rgby", 0);
    const float rgby[4][7] = {{0.25f, 0.25f, 0.75f, 0.19f, 1, 0, 0},
                              {0.3f, 0.3f, 0.5f, 0.19f, 0, 1, 0},
                              {0.5f, 0.5f, 0.25f, 0.25f, 0, 0, 1},
                              {0.2f, 0.2f, 0.9f, 0.1f, 1, 1, 0}};
    for (int i = 0; i < 4; ++i) {
        const float got[7] = {s->x[i], s->y[i], s->z[i], s->r[i], s->red[i], s->green[i], s->blue[i]};
        for (int f = 0; f < 7; ++f)
            assert_bits(got[f], rgby[i][f], "rgby circle %d field %d", i, f);
    }
    qr_scene_free(s);
}

/* ---- invariants ---------------------------------------------------------- */

static void check_random(const char *name, float rlo, float rhi, const float col[6])
{
    qr_scene *s = gen(name, 0);
    assert_sorted_descending(s);
    assert_range(s->z, 0, s->n, 0.0f, 1.0f, "z");
    assert_range(s->x, 0, s->n, 0.0f, 1.0f, "x");
    assert_range(s->y, 0, s->n, 0.0f, 1.0f, "y");
    assert_range(s->r, 0, s->n, rlo, rhi, "r");
    assert_range(s->red, 0, s->n, col[0], col[1], "R");
    assert_range(s->green, 0, s->n, col[2], col[3], "G");
    assert_range(s->blue, 0, s->n, col[4], col[5], "B");
    qr_scene_free(s);
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
        qr_scene *s = gen(bl[k].name, 0);
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
        qr_scene_free(s);
    }
}

Test(scenes, biglittle_and_littlebig_share_the_big_circles)
{
    qr_scene *a = gen("biglittle", 5), *b = gen("littlebig", 5);
    cr_assert(memcmp(a->x, b->x, 9000 * sizeof(float)) == 0);
    cr_assert(memcmp(a->y, b->y, 9000 * sizeof(float)) == 0);
    cr_assert(memcmp(a->z, b->z, 10000 * sizeof(float)) == 0);
    cr_assert(memcmp(a->red, b->red, 10000 * sizeof(float)) == 0);
    qr_scene_free(a);
    qr_scene_free(b);
}

Test(scenes, pattern_grids)
{
    qr_scene *s = gen("pattern", 0);
    const float r = 0.03125f;
    int32_t k = 0;
    for (int grid = 0; grid < 2; ++grid) {
        int size = grid == 0 ? 16 : 31;
        float off = grid == 0 ? r : 0.0f;
        for (int j = 0; j < size; ++j) {
            for (int i = 0; i < size; ++i, ++k) {
                /* all values here are multiples of 2^-5: exact */
                assert_bits(s->x[k], off + 0.0625f * (float)i, "x[%d]", k);
                assert_bits(s->y[k], off + 0.0625f * (float)j, "y[%d]", k);
                assert_bits(s->r[k], r, "r[%d]", k);
                assert_bits(s->red[k], 1.0f, "R[%d]", k);
                assert_bits(s->green[k], grid == 0 ? 0.0f : 1.0f, "G[%d]", k);
                assert_bits(s->blue[k], 0.0f, "B[%d]", k);
                cr_assert(s->z[k] >= 0.0f && s->z[k] <= 1.0f);
            }
        }
    }
    cr_assert_eq(k, 1217);
    qr_scene_free(s);
}

Test(scenes, hypnosis_layout)
{
    qr_scene *s = gen("hypnosis", 0);
    for (int i = 0; i < 25; ++i) {
        assert_bits(s->r[i], 0.02f + (float)i * 0.02f, "r[%d]", i);
        assert_bits(s->x[i], 0.5f, "x");
        assert_bits(s->y[i], 0.5f, "y");
        assert_bits(s->z[i], 0.0f, "z");
    }
    assert_range(s->red, 0, 25, 0.0f, 1.0f, "R");
    assert_range(s->green, 0, 25, 0.0f, 1.0f, "G");
    assert_range(s->blue, 0, 25, 0.0f, 1.0f, "B");
    /* colours are the first 75 rf() of the stream, R G B per circle */
    assert_bits(s->red[0], 0.840187728f, "R0");
    qr_scene_free(s);
}

Test(scenes, bouncingballs_layout)
{
    qr_scene *s = gen("bouncingballs", 0);
    for (int i = 0; i < 10; ++i) {
        assert_bits(s->r[i], 0.05f, "r");
        assert_bits(s->red[i], i % 3 == 0 ? 1.0f : 0.0f, "R[%d]", i);
        assert_bits(s->green[i], i % 3 == 1 ? 1.0f : 0.0f, "G[%d]", i);
        assert_bits(s->blue[i], i % 3 == 2 ? 1.0f : 0.0f, "B[%d]", i);
        assert_bits(s->vx[i], 0.0f, "vx");
        assert_bits(s->vz[i], 0.0f, "vz");
    }
    assert_range(s->x, 0, 10, 0.0f, 1.0f, "x");
    assert_range(s->y, 0, 10, 0.0f, 1.0f, "y");
    assert_range(s->z, 0, 10, 0.0f, 1.0f, "z");
    assert_range(s->vy, 0, 10, 0.0f, 1.0f, "vy");
    /* per ball: x y z vy */
    assert_bits(s->x[0], 0.840187728f, "x0");
    qr_scene_free(s);
}

Test(scenes, fireworks_layout)
{
    qr_scene *s = gen("fireworks", 0);
    for (int i = 0; i < 15; ++i) {
        assert_bits(s->r[i], 0.005f, "firework r");
        assert_bits(s->red[i], 1.0f, "white");
        assert_bits(s->green[i], 1.0f, "white");
        assert_bits(s->blue[i], 1.0f, "white");
        assert_bits(s->x0[i], s->x[i], "firework start x");
        assert_bits(s->vx0[i], 0.0f, "firework velocity");
        for (int j = 0; j < 20; ++j) {
            int k = 15 + 20 * i + j;
            assert_bits(s->r[k], 0.01f, "spark r");
            assert_bits(s->z[k], 0.0f, "spark z");
            assert_bits(s->red[k], i % 3 == 0 ? 1.0f : 0.0f, "spark %d R", k);
            assert_bits(s->green[k], i % 3 == 1 ? 1.0f : 0.0f, "spark %d G", k);
            assert_bits(s->blue[k], i % 3 == 2 ? 1.0f : 0.0f, "spark %d B", k);
            double dx = (double)s->x[k] - s->x[i], dy = (double)s->y[k] - s->y[i];
            cr_assert(fabs(sqrt(dx * dx + dy * dy) - 0.005) < 1e-6, "spark %d offset", k);
            double speed = sqrt((double)s->vx[k] * s->vx[k] + (double)s->vy[k] * s->vy[k]);
            cr_assert(fabs(speed - 0.2) < 1e-6, "spark %d speed %g", k, speed);
            /* direction: angle j * 2pi / 20 (pi rounded to 3.14159) */
            double angle = j * 2 * 3.14159 / 20;
            cr_assert(fabs(s->vx[k] - cos(angle) / 5) < 1e-6 && fabs(s->vy[k] - sin(angle) / 5) < 1e-6);
            assert_bits(s->x0[k], s->x[k], "x0");
            assert_bits(s->y0[k], s->y[k], "y0");
            assert_bits(s->vx0[k], s->vx[k], "vx0");
            assert_bits(s->vy0[k], s->vy[k], "vy0");
        }
    }
    qr_scene_free(s);
}

Test(scenes, snow_layout)
{
    qr_scene *s = gen("snow", 0);
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
    qr_scene_free(s);
}

/* snowsingle: snow's rf() stream unchanged, only y = rf(). */
Test(scenes, snowsingle_is_snow_spread_over_the_sky)
{
    qr_scene *snow = gen("snow", 9), *single = gen("snowsingle", 9);
    cr_assert_eq(single->anim, QR_ANIM_NONE);
    cr_assert_null(single->vx);
    cr_assert(memcmp(snow->x, single->x, (size_t)snow->n * sizeof(float)) == 0);
    cr_assert(memcmp(snow->z, single->z, (size_t)snow->n * sizeof(float)) == 0);
    cr_assert(memcmp(snow->r, single->r, (size_t)snow->n * sizeof(float)) == 0);
    assert_range(single->y, 0, single->n, 0.0f, 1.0f, "y");
    for (int32_t i = 0; i < snow->n; ++i) {
        /* the same rf() value, mapped differently */
        float u = single->y[i];
        assert_bits(snow->y[i], 1.0f + snow->r[i] + 2.0f * u, "y[%d]", i);
    }
    qr_scene_free(snow);
    qr_scene_free(single);
}

/* ---- seeds ------------------------------------------------------------------ */

Test(scenes, seeds)
{
    int count;
    const qr_builtin_info *t = qr_builtin_scenes(&count);
    for (int i = 0; i < count; ++i) {
        qr_scene *a = gen(t[i].name, 77), *b = gen(t[i].name, 77);
        assert_same_bytes(a, b, t[i].name);
        qr_scene_free(b);
        /* seed 0 behaves as 1, like srand */
        qr_scene *z0 = gen(t[i].name, 0), *z1 = gen(t[i].name, 1);
        assert_same_bytes(z0, z1, t[i].name);
        /* a different seed changes every scene that draws random numbers */
        if (strcmp(t[i].name, "rgb") != 0 && strcmp(t[i].name, "rgby") != 0)
            cr_assert(memcmp(a->block, z0->block, a->block_floats * sizeof(float)) != 0,
                      "%s: seed has no effect", t[i].name);
        qr_scene_free(a);
        qr_scene_free(z0);
        qr_scene_free(z1);
    }
    /* seeds above 2^31 are valid (glibc reads them as negative int32) */
    qr_scene *big = gen("rand10k", 4294967295u), *small = gen("rand10k", 2);
    cr_assert(memcmp(big->block, small->block, big->block_floats * sizeof(float)) != 0);
    qr_scene_free(big);
    qr_scene_free(small);
}

/* ---- independent oracle -------------------------------------------------- */

/* The spec transcribed as plainly as possible on glibc's own srand/rand and
 * qsort, sharing no code with the library. */
static float oracle_rf(void)
{
    return (float)rand() / 2147483647;
}

static int oracle_desc(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? 1 : (x > y ? -1 : 0);
}

typedef struct oracle_scene {
    int n;
    float *x, *y, *z, *r, *cr, *cg, *cb;
} oracle_scene;

static void oracle_alloc(oracle_scene *o, int n)
{
    o->n = n;
    o->x = malloc(n * sizeof(float));
    o->y = malloc(n * sizeof(float));
    o->z = malloc(n * sizeof(float));
    o->r = malloc(n * sizeof(float));
    o->cr = malloc(n * sizeof(float));
    o->cg = malloc(n * sizeof(float));
    o->cb = malloc(n * sizeof(float));
}

static void oracle_free(oracle_scene *o)
{
    free(o->x); free(o->y); free(o->z); free(o->r);
    free(o->cr); free(o->cg); free(o->cb);
}

static void oracle_color(oracle_scene *o, int i, int sized)
{
    int n = o->n;
    if (n <= 10000) {
        o->cr[i] = .1f + .9f * oracle_rf();
        o->cg[i] = .2f + .5f * oracle_rf();
        o->cb[i] = .5f + .5f * oracle_rf();
    } else if (n <= 100000) {
        o->cr[i] = .3f + .9f * oracle_rf();
        o->cg[i] = .1f + .9f * oracle_rf();
        o->cb[i] = .1f + .4f * oracle_rf();
    } else if (sized) {
        o->cr[i] = .3f + .9f * oracle_rf();
        o->cg[i] = .1f + .3f * oracle_rf();
        o->cb[i] = .2f + .2f * oracle_rf();
    } else {
        o->cr[i] = .2f + .5f * oracle_rf();
        o->cg[i] = .5f + .5f * oracle_rf();
        o->cb[i] = .1f + .4f * oracle_rf();
    }
}

/* sized_radius < 0: random circles; else sized(N, sized_radius). */
static void oracle_gen(oracle_scene *o, int n, unsigned seed, float sized_radius)
{
    oracle_alloc(o, n);
    srand(seed);
    float *depth = malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        depth[i] = oracle_rf();
    qsort(depth, n, sizeof(float), oracle_desc);
    for (int i = 0; i < n; i++) {
        if (sized_radius < 0)
            o->r[i] = n > 100000 ? .009f + .005f * oracle_rf() : .02f + .06f * oracle_rf();
        else
            o->r[i] = sized_radius;
        o->x[i] = oracle_rf();
        o->y[i] = oracle_rf();
        o->z[i] = depth[i];
        oracle_color(o, i, sized_radius >= 0);
    }
    free(depth);
}

static void oracle_compare(const oracle_scene *o, const qr_scene *s)
{
    cr_assert_eq(s->n, o->n);
    const float *want[7] = {o->x, o->y, o->z, o->r, o->cr, o->cg, o->cb};
    const float *got[7] = {s->x, s->y, s->z, s->r, s->red, s->green, s->blue};
    for (int f = 0; f < 7; ++f)
        for (int i = 0; i < o->n; ++i)
            if (bits(got[f][i]) != bits(want[f][i]))
                cr_assert_fail("%s circle %d field %d: got %.9g, oracle %.9g", s->name, i, f,
                               (double)got[f][i], (double)want[f][i]);
}

Test(scenes, oracle_random)
{
    const struct {
        const char *name;
        int n;
        unsigned seed;
    } cases[] = {{"rand10k", 10000, 0}, {"rand10k", 10000, 3}, {"rand100k", 100000, 11},
                 {"rand1M", 1000000, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        oracle_scene o;
        oracle_gen(&o, cases[c].n, cases[c].seed, -1.0f);
        qr_scene *s = gen(cases[c].name, cases[c].seed);
        oracle_compare(&o, s);
        qr_scene_free(s);
        oracle_free(&o);
    }
}

Test(scenes, oracle_sized)
{
    unsigned seeds[2] = {0, 3};
    for (int k = 0; k < 2; ++k) {
        oracle_scene o;
        oracle_gen(&o, 2000000, seeds[k], 0.001f);
        qr_scene *s = gen("micro2M", seeds[k]);
        oracle_compare(&o, s);
        qr_scene_free(s);
        oracle_free(&o);
    }
    for (int k = 0; k < 2; ++k) {
        for (int little = 0; little < 2; ++little) {
            oracle_scene o;
            oracle_gen(&o, 10000, seeds[k], 0.25f);
            /* the same rand stream continues */
            float corner = little ? .05f : .85f;
            for (int i = 9000; i < 10000; i++) {
                o.r[i] = .05f;
                o.x[i] = .9f - corner + .1f * oracle_rf();
                o.y[i] = corner + .1f * oracle_rf();
            }
            qr_scene *s = gen(little ? "littlebig" : "biglittle", seeds[k]);
            oracle_compare(&o, s);
            qr_scene_free(s);
            oracle_free(&o);
        }
    }
}

Test(scenes, oracle_pattern_hypnosis)
{
    srand(4);
    qr_scene *p = gen("pattern", 4);
    for (int k = 0; k < 1217; ++k)
        assert_bits(p->z[k], oracle_rf(), "pattern z[%d]", k);
    qr_scene_free(p);
    srand(4);
    qr_scene *h = gen("hypnosis", 4);
    for (int k = 0; k < 25; ++k) {
        assert_bits(h->red[k], oracle_rf(), "R");
        assert_bits(h->green[k], oracle_rf(), "G");
        assert_bits(h->blue[k], oracle_rf(), "B");
    }
    qr_scene_free(h);
}

/* ---- allocation ---------------------------------------------------------- */

Test(scenes, alloc_layout)
{
    const struct {
        qr_anim anim;
        size_t per;
    } cases[] = {{QR_ANIM_NONE, 7}, {QR_ANIM_HYPNOSIS, 10}, {QR_ANIM_SNOW, 10},
                 {QR_ANIM_FIREWORKS, 14}};
    for (size_t c = 0; c < 4; ++c) {
        qr_scene *s;
        qr_error err;
        cr_assert_eq(qr_scene_alloc(5, cases[c].anim, &s, &err), QR_OK);
        cr_assert_eq(s->block_floats, 5 * cases[c].per);
        float *want[14] = {s->x, s->y, s->z, s->r, s->red, s->green, s->blue,
                           s->vx, s->vy, s->vz, s->x0, s->y0, s->vx0, s->vy0};
        for (size_t k = 0; k < 14; ++k) {
            if (k < cases[c].per)
                cr_assert_eq(want[k], s->block + 5 * k, "array %zu", k);
            else
                cr_assert_null(want[k], "array %zu", k);
        }
        for (size_t k = 0; k < s->block_floats; ++k)
            cr_assert(bits(s->block[k]) == 0);
        cr_assert_eq(s->steps, 0);
        qr_scene_free(s);
    }
    qr_scene *s = (qr_scene *)1;
    qr_error err;
    cr_assert_eq(qr_scene_alloc(0, QR_ANIM_NONE, &s, &err), QR_OK);
    cr_assert_eq(s->n, 0);
    qr_scene_free(s);
    cr_assert_eq(qr_scene_alloc(-1, QR_ANIM_NONE, &s, &err), QR_ERR_INVALID);
    cr_assert_null(s);
    cr_assert_eq(qr_scene_alloc(QR_SCENE_MAX_CIRCLES + 1, QR_ANIM_NONE, &s, &err), QR_ERR_INVALID);
    qr_scene_free(NULL);
}

Test(scenes, clone_is_deep)
{
    qr_scene *a = gen("fireworks", 2), *b;
    qr_error err;
    qr_scene_step(a);
    cr_assert_eq(qr_scene_clone(a, &b, &err), QR_OK);
    assert_same_bytes(a, b, "clone");
    cr_assert_neq(a->block, b->block);
    cr_assert_str_eq(b->name, "fireworks");
    cr_assert_eq(b->steps, 1);
    cr_assert_eq(b->anim, a->anim);
    cr_assert_eq(b->x0, b->block + 10 * 315);
    b->x[0] = 7.0f;
    cr_assert(a->x[0] != 7.0f);
    qr_scene_free(a);
    qr_scene_free(b);
}

/* ---- loading ------------------------------------------------------------- */

Test(scenes, load_builtin_and_unknown)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_load("rgby", 0, &s, &err), QR_OK);
    cr_assert_eq(s->n, 4);
    qr_scene_free(s);
    cr_assert_eq(qr_scene_load("nosuchscene", 0, &s, &err), QR_ERR_INVALID);
    cr_assert_null(s);
    cr_assert_str_eq(err.msg, "unknown scene 'nosuchscene' (not a built-in name, not a .circles, "
                              ".par or .npy file); try `quadrender scenes`");
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
    qr_scene_free(s);
    cr_assert_eq(qr_scene_load(qr_test_src("scenes/example.par"), 0, &s, &err), QR_OK, "%s",
                 err.msg);
    cr_assert_eq(s->shading, QR_SHADE_SNOW);
    qr_scene_free(s);

    /* the extension is case-insensitive */
    qr_scene *rgb = gen("rgb", 0);
    const char *upper = qr_test_tmp("Upper.CIRCLES");
    cr_assert_eq(qr_scene_write_circles(rgb, upper, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_load(upper, 0, &s, &err), QR_OK, "%s", err.msg);
    cr_assert_not_null(strstr(s->name, "Upper"));
    cr_assert_null(strchr(s->name, '.'), "the extension is not part of the name");
    cr_assert(memcmp(s->block, rgb->block, rgb->block_floats * sizeof(float)) == 0);
    qr_scene_free(s);
    qr_scene_free(rgb);
    unlink(upper);

    /* a missing file with a known extension is an i/o error, not "unknown scene" */
    cr_assert_eq(qr_scene_load("/nonexistent/x.circles", 0, &s, &err), QR_ERR_IO);
    cr_assert_eq(qr_scene_load("/nonexistent/x.Par", 0, &s, &err), QR_ERR_IO);
}

/* ---- animation --------------------------------------------------------- */

Test(scenes, static_scenes_do_not_move)
{
    const char *names[] = {"rgb", "pattern", "rand10k", "snowsingle"};
    for (int k = 0; k < 4; ++k) {
        qr_scene *a = gen(names[k], 0), *b = gen(names[k], 0);
        for (int i = 0; i < 10; ++i)
            qr_scene_step(a);
        assert_same_bytes(a, b, names[k]);
        cr_assert_eq(a->steps, 10);
        qr_scene_free(a);
        qr_scene_free(b);
    }
}

Test(scenes, hypnosis_step_wraps_at_half)
{
    qr_scene *s = gen("hypnosis", 0);
    int wrapped = 0;
    for (int step = 0; step < 200; ++step) {
        float before[25];
        memcpy(before, s->r, sizeof before);
        qr_scene_step(s);
        for (int i = 0; i < 25; ++i) {
            float want = before[i] > 0.5f ? 0.02f : before[i] + 0.01f;
            assert_bits(s->r[i], want, "step %d circle %d", step, i);
            cr_assert(s->r[i] >= 0.02f && s->r[i] <= 0.52f);
            wrapped += before[i] > 0.5f;
        }
    }
    cr_assert(wrapped > 25, "radii wrap around repeatedly");
    /* circle 24 starts at 0.5 (not above it): it grows once more first */
    qr_scene *t = gen("hypnosis", 0);
    qr_scene_step(t);
    cr_assert(t->r[24] > 0.5f);
    qr_scene_step(t);
    assert_bits(t->r[24], 0.02f, "wrapped");
    qr_scene_free(s);
    qr_scene_free(t);
}

Test(scenes, bouncingballs_bounce_and_stop)
{
    qr_scene *s = gen("bouncingballs", 0);
    qr_scene *ref = gen("bouncingballs", 0);
    const float dt = 1.0f / 60.0f;
    int bounced = 0;
    for (int step = 0; step < 2000; ++step) {
        for (int i = 0; i < 10; ++i) {
            float vy = ref->vy[i], y = ref->y[i];
            if (vy == 0.0f && y == 0.0f)
                continue;
            float ovy = vy, oy = y;
            if (y < 0 && vy < 0) {
                vy *= -0.8f;
                bounced++;
            }
            vy += -2.8f * dt;
            y += vy * dt;
            if (fabsf(vy - ovy) < 0.001f && oy < 0 && fabsf(y - oy) < 0.001f)
                vy = y = 0.0f;
            ref->vy[i] = vy;
            ref->y[i] = y;
        }
        qr_scene_step(s);
        assert_same_bytes(s, ref, "bounce step");
        for (int i = 0; i < 10; ++i)
            cr_assert(s->y[i] > -0.1f && s->y[i] < 2.0f);
    }
    cr_assert(bounced > 10);
    for (int i = 0; i < 10; ++i) {
        assert_bits(s->vy[i], 0.0f, "ball %d stopped", i);
        assert_bits(s->y[i], 0.0f, "ball %d on the floor", i);
        assert_bits(s->vx[i], 0.0f, "no sideways motion");
    }
    qr_scene_free(s);
    qr_scene_free(ref);
}

Test(scenes, fireworks_sparks_fly_and_reset)
{
    qr_scene *s = gen("fireworks", 0);
    qr_scene *start = gen("fireworks", 0);
    const float dt = 1.0f / 60.0f;
    int resets = 0;
    for (int step = 0; step < 300; ++step) {
        float px[315], py[315];
        memcpy(px, s->x, sizeof px);
        memcpy(py, s->y, sizeof py);
        qr_scene_step(s);
        for (int i = 0; i < 15; ++i) {
            assert_bits(s->x[i], start->x[i], "fireworks stay");
            assert_bits(s->y[i], start->y[i], "fireworks stay");
        }
        for (int k = 15; k < 315; ++k) {
            int f = (k - 15) / 20;
            float x = px[k] + s->vx[k] * dt, y = py[k] + s->vy[k] * dt;
            float dx = x - s->x[f], dy = y - s->y[f];
            if (sqrtf(dx * dx + dy * dy) > 0.25f) {
                resets++;
                assert_bits(s->x[k], start->x[k], "reset x");
                assert_bits(s->y[k], start->y[k], "reset y");
                assert_bits(s->vx[k], start->vx[k], "reset vx");
                assert_bits(s->vy[k], start->vy[k], "reset vy");
            } else {
                assert_bits(s->x[k], x, "spark %d x", k);
                assert_bits(s->y[k], y, "spark %d y", k);
            }
            double d = hypot((double)s->x[k] - s->x[f], (double)s->y[k] - s->y[f]);
            cr_assert(d <= 0.25 + 1e-6);
        }
    }
    /* 0.245 at 0.2 per second is 74 steps: 4 full cycles of 300 sparks */
    cr_assert(resets >= 4 * 300, "resets %d", resets);
    qr_scene_free(s);
    qr_scene_free(start);
}

Test(scenes, snow_falls_and_wraps)
{
    qr_scene *s = gen("snow", 0);
    qr_scene *start = gen("snow", 0);
    int32_t n = s->n;
    float *prev_y = malloc((size_t)n * sizeof(float));
    long wrapped_bottom = 0, wrapped_side = 0;
    for (int step = 0; step < 600; ++step) {
        memcpy(prev_y, s->y, (size_t)n * sizeof(float));
        float *prev_x = malloc((size_t)n * sizeof(float));
        memcpy(prev_x, s->x, (size_t)n * sizeof(float));
        qr_scene_step(s);
        for (int32_t i = 0; i < n; ++i) {
            float r = s->r[i];
            cr_assert(isfinite(s->x[i]) && isfinite(s->y[i]) && isfinite(s->vx[i]) &&
                      isfinite(s->vy[i]), "flake %d not finite", i);
            if (s->y[i] > prev_y[i]) {
                /* only a flake that fell out at the bottom (one step moves
                 * less than 0.05) moves up: to the top */
                cr_assert(prev_y[i] < 0.05f, "flake %d rose from %g", i, prev_y[i]);
                assert_bits(s->y[i], 1.0f + r, "flake %d back at the top", i);
                wrapped_bottom++;
            }
            if (fabsf(s->x[i] - prev_x[i]) > 0.5f)
                wrapped_side++;
            cr_assert(s->x[i] >= -r - 0.02f && s->x[i] <= 1.0f + r + 0.02f, "flake %d x", i);
            cr_assert(s->vy[i] < 0.0f && s->vy[i] > -2.0f, "flake %d vy %g", i, s->vy[i]);
            cr_assert(fabsf(s->vx[i]) < 1.0f);
        }
        free(prev_x);
    }
    cr_assert(wrapped_bottom > 1000, "bottom wraps %ld", wrapped_bottom);
    cr_assert(wrapped_side > 10, "side wraps %ld", wrapped_side);
    /* the flakes sway: horizontal velocities vary in sign */
    int left = 0, right = 0;
    for (int32_t i = 0; i < n; ++i) {
        left += s->vx[i] < 0;
        right += s->vx[i] > 0;
        assert_bits(s->z[i], start->z[i], "depth unchanged");
        assert_bits(s->r[i], start->r[i], "radius unchanged");
    }
    cr_assert(left > n / 4 && right > n / 4, "left %d right %d", left, right);
    free(prev_y);
    qr_scene_free(s);
    qr_scene_free(start);
}

Test(scenes, snow_is_deterministic)
{
    qr_scene *a = gen("snow", 1), *b = gen("snow", 1);
    for (int i = 0; i < 100; ++i)
        qr_scene_step(a);
    qr_error err;
    cr_assert_eq(qr_scene_seek_frame(b, 99, &err), QR_OK);
    assert_same_bytes(a, b, "snow after 100 steps");
    qr_scene_free(a);
    qr_scene_free(b);
}

Test(scenes, seek_frame)
{
    qr_error err;
    const char *names[] = {"hypnosis", "bouncingballs", "fireworks", "snow", "rgb"};
    for (int k = 0; k < 5; ++k) {
        qr_scene *a = gen(names[k], 0), *b = gen(names[k], 0);
        /* frame 0 is rendered after one step */
        cr_assert_eq(qr_scene_seek_frame(a, 0, &err), QR_OK);
        cr_assert_eq(a->steps, 1);
        qr_scene_step(b);
        assert_same_bytes(a, b, names[k]);
        /* frame k after k+1 steps, from wherever the scene is */
        cr_assert_eq(qr_scene_seek_frame(a, 40, &err), QR_OK);
        cr_assert_eq(a->steps, 41);
        for (int i = 0; i < 40; ++i)
            qr_scene_step(b);
        assert_same_bytes(a, b, names[k]);
        /* the same frame again is a no-op */
        cr_assert_eq(qr_scene_seek_frame(a, 40, &err), QR_OK);
        cr_assert_eq(a->steps, 41);
        assert_same_bytes(a, b, names[k]);
        /* backwards is refused and changes nothing */
        cr_assert_eq(qr_scene_seek_frame(a, 39, &err), QR_ERR_INVALID);
        cr_assert_not_null(strstr(err.msg, "39"));
        cr_assert_eq(a->steps, 41);
        cr_assert_eq(qr_scene_seek_frame(a, -1, &err), QR_ERR_INVALID);
        qr_scene_free(a);
        qr_scene_free(b);
    }
    /* a static scene reaches a far frame at once */
    qr_scene *s = gen("rand10k", 0);
    cr_assert_eq(qr_scene_seek_frame(s, 1000000000000LL, &err), QR_OK);
    cr_assert_eq(s->steps, 1000000000001LL);
    qr_scene_free(s);
}

/* ---- fast seeking ------------------------------------------------------------ */

/* Seeks a copy of `start` to each frame in turn and steps another copy one
 * step at a time alongside: the two agree on every byte at every frame. */
static void check_seek_against_steps(const qr_scene *start, const int64_t *frames, int nframes)
{
    qr_error err;
    qr_scene *a = NULL, *b = NULL;
    cr_assert_eq(qr_scene_clone(start, &a, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_clone(start, &b, &err), QR_OK, "%s", err.msg);
    for (int f = 0; f < nframes; f++) {
        cr_assert_eq(qr_scene_seek_frame(a, frames[f], &err), QR_OK, "%s", err.msg);
        while (b->steps < frames[f] + 1)
            qr_scene_step(b);
        cr_assert_eq(a->steps, frames[f] + 1);
        char what[96];
        snprintf(what, sizeof what, "%s seeking frame %lld", start->name, (long long)frames[f]);
        assert_same_bytes(a, b, what);
    }
    qr_scene_free(a);
    qr_scene_free(b);
}

/* Hypnosis, bouncing balls and fireworks seek by cycles: each frame, reached
 * straight from generation and in jumps, equals stepping one by one, well
 * past several cycles (a spark's flight, the radius ramp, balls at rest). */
Test(scenes, seek_by_cycles_equals_stepping, .timeout = 120)
{
    const char *names[] = {"hypnosis", "bouncingballs", "fireworks"};
    const int64_t jumps[] = {0, 1, 2, 47, 48, 49, 50, 333, 1000, 4095, 4096, 77777, 200000};
    for (int k = 0; k < 3; k++)
        for (uint32_t seed = 0; seed < 2; seed++) {
            qr_scene *s = gen(names[k], seed);
            check_seek_against_steps(s, jumps, (int)(sizeof jumps / sizeof jumps[0]));
            for (size_t j = 0; j < sizeof jumps / sizeof jumps[0]; j++)
                check_seek_against_steps(s, &jumps[j], 1);
            qr_scene_free(s);
        }
}

/* States far from the built-ins' own: a radius far below the ramp (a long
 * way into the cycle), one so negative that adding 0.01 leaves it alone, NaN
 * and infinite radii; sparks that never move, that move too slowly to
 * change, or that start outside their firework's reach; balls below the
 * floor, at rest, with NaN. Seeking still equals stepping. */
Test(scenes, seek_by_cycles_odd_states, .timeout = 120)
{
    qr_error err;
    const int64_t frames[] = {0, 5, 99, 12345, 150000};

    qr_scene *h = NULL;
    cr_assert_eq(qr_scene_alloc(7, QR_ANIM_HYPNOSIS, &h, &err), QR_OK, "%s", err.msg);
    const float radii[] = {-1000.0f, -1e7f, NAN, INFINITY, -INFINITY, 0.5f, 0.50001f};
    for (int i = 0; i < 7; i++)
        h->r[i] = radii[i];
    snprintf(h->name, sizeof h->name, "odd hypnosis");
    check_seek_against_steps(h, frames, 5);
    qr_scene_free(h);

    qr_scene *b = NULL;
    cr_assert_eq(qr_scene_alloc(6, QR_ANIM_BOUNCE, &b, &err), QR_OK, "%s", err.msg);
    const float ys[] = {-0.5f, 0.0f, NAN, 3.0f, -0.0f, 1e30f};
    const float vys[] = {-2.0f, 0.0f, 0.1f, 5.0f, -0.0f, 0.0f};
    for (int i = 0; i < 6; i++) {
        b->y[i] = ys[i];
        b->vy[i] = vys[i];
    }
    snprintf(b->name, sizeof b->name, "odd balls");
    check_seek_against_steps(b, frames, 5);
    qr_scene_free(b);

    qr_scene *f = gen("fireworks", 3);
    f->vx[20] = f->vy[20] = 0.0f;                       /* never moves */
    f->vx[40] = 1e-12f;                                  /* too slow to change x */
    f->x[60] = f->x[60] + 0.5f;                          /* starts out of reach */
    f->x0[61] = f->x0[61] + 0.5f;                        /* restarts out of reach */
    f->vx0[80] = f->vy0[80] = 0.0f;                      /* restarts, then stays */
    f->x[100] = NAN;
    check_seek_against_steps(f, frames, 5);
    qr_scene_free(f);
}

/* Snow steps every step (its noise depends on the time), each flake's steps
 * back to back and the flakes in chunks of steps: frames across noise-cell
 * edges (64 and 128 steps) and across chunk edges equal stepping one by
 * one, on one thread and on many. */
Test(scenes, snow_seek_equals_stepping, .timeout = 300)
{
    const int64_t frames[] = {0, 62, 63, 64, 127, 128, 200, 420};
    qr_scene *s = gen("snow", 7);
    check_seek_against_steps(s, frames, (int)(sizeof frames / sizeof frames[0]));
    qr_scene *one = NULL, *many = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_clone(s, &one, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_clone(s, &many, &err), QR_OK, "%s", err.msg);
    qr_set_threads(1);
    cr_assert_eq(qr_scene_seek_frame(one, 500, &err), QR_OK, "%s", err.msg);
    qr_set_threads(qr_cpu_count() + 3);
    cr_assert_eq(qr_scene_seek_frame(many, 500, &err), QR_OK, "%s", err.msg);
    qr_set_threads(0);
    assert_same_bytes(one, many, "snow frame 500 on one thread and on many");
    qr_scene_free(one);
    qr_scene_free(many);
    qr_scene_free(s);
}

typedef struct progress_log {
    int calls;
    int64_t last_done, total;
    int increasing;
} progress_log;

static void log_progress(void *ctx, int64_t done, int64_t total)
{
    progress_log *p = ctx;
    p->increasing &= done > p->last_done && done <= total && (p->calls == 0 || total == p->total);
    p->calls++;
    p->last_done = done;
    p->total = total;
}

/* A snow seek of several chunks reports its progress, rising to the total;
 * a seek by cycles and a static scene's report nothing (they take no time). */
Test(scenes, seek_progress)
{
    qr_error err;
    qr_scene *s = gen("snow", 1);
    progress_log p = {0, 0, 0, 1};
    cr_assert_eq(qr_scene_seek_frame_progress(s, 999, log_progress, &p, &err), QR_OK, "%s", err.msg);
    cr_assert(p.calls >= 2, "%d progress calls", p.calls);
    cr_assert(p.increasing);
    cr_assert_eq(p.total, 1000);
    cr_assert_eq(p.last_done, 1000);
    qr_scene_free(s);
    const char *quiet[] = {"fireworks", "rand10k"};
    for (int k = 0; k < 2; k++) {
        s = gen(quiet[k], 1);
        progress_log q = {0, 0, 0, 1};
        cr_assert_eq(qr_scene_seek_frame_progress(s, 1000000, log_progress, &q, &err), QR_OK, "%s",
                     err.msg);
        cr_assert_eq(q.calls, 0, "%s: %d progress calls", quiet[k], q.calls);
        cr_assert_eq(s->steps, 1000001);
        qr_scene_free(s);
    }
}
