/* test_support.c — the test-support layer's own promises that other tests
 * lean on: the random generator is deterministic and stays in range, and
 * scenes hold what their spec asks for — in particular the hostile mix
 * really contains every value the index must cull, so the index tests'
 * random scenes cannot quietly lose them. */
#include <math.h>

#include "random_scene.h"
#include "test_util.h"

Test(support, rng_is_deterministic_and_in_range)
{
    qr_test_rng a = qr_test_rng_seed(42), b = qr_test_rng_seed(42), c = qr_test_rng_seed(43);
    int differ = 0;
    for (int i = 0; i < 1000; i++) {
        const uint64_t x = qr_test_rng_next(&a);
        cr_assert_eq(x, qr_test_rng_next(&b), "draw %d", i);
        differ += x != qr_test_rng_next(&c);
    }
    cr_assert_gt(differ, 990, "seeds 42 and 43 give the same stream");
    int hit[7] = {0};
    for (int i = 0; i < 7000; i++) {
        const uint32_t k = qr_test_rng_below(&a, 7);
        cr_assert_lt(k, 7u);
        hit[k]++;
        const float f = qr_test_rng_float(&a, -0.5f, 1.5f);
        cr_assert(f >= -0.5f && f <= 1.5f, "%a out of [-0.5, 1.5]", (double)f);
    }
    for (int k = 0; k < 7; k++)
        cr_assert(hit[k] > 800 && hit[k] < 1200, "%d drawn %d times of 7000", k, hit[k]);
}

Test(support, scene_follows_its_spec)
{
    const qr_test_scene_spec spec = {
        .seed = 9, .n = 4000, .shading = QR_SHADE_SNOW, .clusters = 2, .z = {-1.0f, 2.0f},
        .rgb = {{0.0f, 0.5f}, {0.5f, 1.0f}, {-1.0f, 0.0f}}, .num_kinds = 2,
        .kinds = {{3, QR_TEST_PLAIN, {2.0f, 3.0f}, {4.0f, 5.0f}, {0.1f, 0.2f}},
                  {1, QR_TEST_CLUSTERED, {-0.01f, 0.01f}, {-0.01f, 0.01f}, {0.001f, 0.002f}}}};
    qr_scene *s = qr_test_scene_generate(&spec), *again = qr_test_scene_generate(&spec);
    cr_assert_eq(s->n, 4000);
    cr_assert_eq(s->shading, QR_SHADE_SNOW);
    cr_assert_eq(s->anim, QR_ANIM_NONE);
    cr_assert(memcmp(s->block, again->block, s->block_floats * sizeof(float)) == 0,
              "the same spec gave another scene");
    int plain = 0;
    for (int32_t i = 0; i < s->n; i++) {
        if (s->x[i] >= 2.0f) { /* PLAIN */
            plain++;
            cr_assert(s->x[i] <= 3.0f && s->y[i] >= 4.0f && s->y[i] <= 5.0f, "circle %d", i);
            cr_assert(s->r[i] >= 0.1f && s->r[i] <= 0.2f, "circle %d r %g", i, (double)s->r[i]);
        } else { /* CLUSTERED: within 0.01 of a centre in the unit square */
            cr_assert(s->x[i] >= -0.01f && s->x[i] <= 1.01f && s->y[i] >= -0.01f &&
                          s->y[i] <= 1.01f, "circle %d", i);
            cr_assert(s->r[i] >= 0.001f && s->r[i] <= 0.002f, "circle %d r %g", i, (double)s->r[i]);
        }
        cr_assert(s->z[i] >= -1.0f && s->z[i] <= 2.0f);
        cr_assert(s->red[i] >= 0.0f && s->red[i] <= 0.5f);
        cr_assert(s->green[i] >= 0.5f && s->green[i] <= 1.0f);
        cr_assert(s->blue[i] >= -1.0f && s->blue[i] <= 0.0f);
    }
    cr_assert(plain > 2800 && plain < 3200, "weights 3:1, yet %d of 4000 plain", plain);
    qr_scene_destroy(s);
    qr_scene_destroy(again);
}

/* Counts of the circles of s by what makes them special. */
typedef struct {
    int nan_x, inf_y, inf_r, zero_r, negative_r, huge, far, big, tiny;
} census;

static census count(const qr_scene *s)
{
    census c = {0};
    for (int32_t i = 0; i < s->n; i++) {
        const float x = s->x[i], y = s->y[i], r = s->r[i];
        c.nan_x += isnan(x);
        c.inf_y += isinf(y);
        c.inf_r += isinf(r);
        c.zero_r += r == 0.0f;
        c.negative_r += r < 0.0f;
        c.huge += isfinite(x) && fabsf(x) >= 1e38f;
        c.far += isfinite(x) && x > 1.5f && x < 5.0f;
        c.big += isfinite(r) && r >= 0.3f && r < 1.5f;
        c.tiny += r > 0.0f && r < 0.005f;
    }
    return c;
}

Test(support, mixes_hold_what_they_promise)
{
    qr_scene *hostile = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 1, 3000);
    census h = count(hostile);
    cr_assert(h.nan_x > 0 && h.inf_y > 0 && h.inf_r > 0 && h.zero_r > 0 && h.negative_r > 0 &&
                  h.huge > 0 && h.far > 0 && h.big > 0 && h.tiny > 0,
              "hostile: NaN x %d, inf y %d, inf r %d, r = 0 %d, r < 0 %d, huge %d, far %d, big %d, "
              "tiny %d", h.nan_x, h.inf_y, h.inf_r, h.zero_r, h.negative_r, h.huge, h.far, h.big,
              h.tiny);
    qr_scene *renderable = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 1, 3000);
    census r = count(renderable);
    cr_assert(r.nan_x == 0 && r.inf_y == 0 && r.inf_r == 0 && r.negative_r == 0 && r.huge == 0,
              "renderable holds values only the index takes");
    cr_assert(r.zero_r > 0 && r.far > 0 && r.big > 0 && r.tiny > 0);
    for (int32_t i = 0; i < renderable->n; i++)
        cr_assert(renderable->red[i] >= -0.5f && renderable->red[i] <= 1.5f);
    qr_scene *uniform = qr_test_random_scene(QR_TEST_MIX_UNIFORM, 1, 3000);
    for (int32_t i = 0; i < uniform->n; i++)
        cr_assert(uniform->x[i] >= -0.2f && uniform->x[i] <= 1.2f && uniform->r[i] >= 0.001f &&
                      uniform->r[i] <= 0.3f, "uniform circle %d", i);
    qr_scene_destroy(hostile);
    qr_scene_destroy(renderable);
    qr_scene_destroy(uniform);
}
