/* test_gpu_scene.c — scenes made on the GPU from rows already there
 * (qr_gpu_scene_create_device, qr_gpu_scene_update_device) and from host
 * rows through the scene's pinned staging (qr_gpu_scene_create_host,
 * qr_gpu_scene_update_host) against the host's upload of the same circles
 * (qr_gpu_scene_create, the oracle): the same arrays, the same ranges the
 * renderer chooses its kernels by, to the bit, and the same images; a scene
 * updated again and again, growing and shrinking, equals a new one each
 * time; bad host rows are refused with qr_scene_check_circles' message.
 * Needs a GPU; skips with the reason elsewhere. */
#include "gpu/tuning.h"
#include "gpu_util.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <string.h>

/* s's circles as host rows of x y z r R G B (free with free). */
static float *host_rows(const qr_scene *s)
{
    const size_t n = (size_t)s->n, bytes = 7 * n * sizeof(float);
    float *host = malloc(bytes ? bytes : 1);
    cr_assert(host);
    for (size_t i = 0; i < n; i++) {
        const float row[7] = {s->x[i],   s->y[i],     s->z[i],    s->r[i],
                              s->red[i], s->green[i], s->blue[i]};
        memcpy(host + 7 * i, row, sizeof row);
    }
    return host;
}

/* s's circles as device rows of x y z r R G B (free with cudaFree). */
static float *device_rows(const qr_scene *s)
{
    const size_t bytes = 7 * (size_t)s->n * sizeof(float);
    float *host = host_rows(s);
    float *dev = NULL;
    cr_assert_eq(cudaMalloc((void **)&dev, bytes ? bytes : 1), cudaSuccess);
    cr_assert_eq(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    free(host);
    return dev;
}

static qr_gpu_scene_ranges ranges_of(const qr_gpu_scene *gs)
{
    qr_gpu_scene_ranges r;
    qr_gpu_scene_get_ranges(gs, &r);
    return r;
}

/* Asserts a and b hold the same circles and the same ranges, to the bit. */
static void assert_same_scene(const qr_gpu_scene *a, const qr_gpu_scene *b, const char *what)
{
    qr_error err;
    const int32_t n = qr_gpu_scene_count(b);
    cr_assert_eq(qr_gpu_scene_count(a), n, "%s: %d circles, not %d", what, qr_gpu_scene_count(a),
                 n);
    qr_scene *sa = NULL, *sb = NULL;
    QR_CHECK(err, qr_scene_create(n, QR_ANIM_NONE, &sa, &err));
    QR_CHECK(err, qr_scene_create(n, QR_ANIM_NONE, &sb, &err));
    QR_CHECK(err, qr_gpu_scene_download(a, sa, &err));
    QR_CHECK(err, qr_gpu_scene_download(b, sb, &err));
    cr_assert(memcmp(sa->block, sb->block, sa->block_floats * sizeof(float)) == 0,
              "%s: the circles' arrays differ", what);
    qr_scene_destroy(sa);
    qr_scene_destroy(sb);
    const qr_gpu_scene_ranges ra = ranges_of(a), rb = ranges_of(b);
    cr_assert(memcmp(&ra, &rb, sizeof ra) == 0,
              "%s: ranges differ: span %a / %a, lo %a / %a, hi %a / %a, finite %d / %d, "
              "fma %d / %d, depth %a / %a, radius %a / %a",
              what, ra.color_span, rb.color_span, ra.color_lo, rb.color_lo, ra.color_hi,
              rb.color_hi, ra.colors_finite, rb.colors_finite, ra.fma_blend, rb.fma_blend,
              ra.depth, rb.depth, ra.radius, rb.radius);
}

/* Asserts gs is the scene the host's upload of s makes. */
static void assert_scene_of(const qr_gpu_scene *gs, const qr_scene *s, const char *what)
{
    qr_error err;
    qr_gpu_scene *oracle = NULL;
    QR_CHECK(err, qr_gpu_scene_create(s, &oracle, &err));
    assert_same_scene(gs, oracle, what);
    qr_gpu_scene_destroy(oracle);
}

/* gs rendered by r (w x h) in `mode`, downloaded. */
static qr_image *render_with(qr_gpu_renderer *r, const qr_gpu_scene *gs, int w, int h,
                             qr_render_mode mode)
{
    qr_error err;
    qr_index_params p;
    qr_index_params_default(&p);
    qr_image *img = NULL;
    QR_CHECK(err, qr_image_create(w, h, &img, &err));
    QR_CHECK(err, qr_gpu_render(r, gs, &p, mode, &err));
    QR_CHECK(err, qr_gpu_renderer_download(r, img, &err));
    return img;
}

/* Asserts that kept_r, a renderer kept across scenes, draws `kept` as a new
 * renderer draws `fresh` (w x h), in both modes, to the bit. */
static void assert_kept_draws_as_new(qr_gpu_renderer *kept_r, const qr_gpu_scene *kept,
                                     const qr_gpu_scene *fresh, int w, int h, const char *what)
{
    qr_error err;
    for (int mode = 0; mode < 2; mode++) {
        const qr_render_mode md = mode ? QR_RENDER_EXACT : QR_RENDER_FAST;
        qr_gpu_renderer *r = NULL;
        QR_CHECK(err, qr_gpu_renderer_create(w, h, &r, &err));
        qr_image *a = render_with(kept_r, kept, w, h, md);
        qr_image *b = render_with(r, fresh, w, h, md);
        long long bad;
        image_max_diff(a, b, 1, &bad);
        cr_assert(bad < 0, "%s, mode %d: the kept renderer's image differs at pixel %lld", what,
                  mode, bad);
        qr_image_destroy(a);
        qr_image_destroy(b);
        qr_gpu_renderer_destroy(r);
    }
}

/* Scenes of the sizes below, made from device rows, equal the host's
 * upload of the same circles: several runs of 65536 circles and a partial
 * one, colours of both signs, zeros, and every value the index culls (NaN
 * and infinite centres and radii, huge ones), which the depth and radius
 * sums take in. */
Test(gpu_scene, from_device_rows_equals_the_hosts_upload, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int32_t sizes[] = {0, 1, 31, 33, 1000, 65536, 65537, 200003};
    const qr_test_mix mixes[] = {QR_TEST_MIX_RENDERABLE, QR_TEST_MIX_HOSTILE};
    for (int m = 0; m < 2; m++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            qr_error err;
            qr_scene *s = qr_test_random_scene(mixes[m], 10 + k, sizes[k]);
            float *rows = device_rows(s);
            qr_gpu_scene *gs = NULL;
            QR_CHECK(err, qr_gpu_scene_create_device(rows, s->n, &gs, &err));
            char what[96];
            snprintf(what, sizeof what, "mix %d, %d circles", (int)mixes[m], sizes[k]);
            assert_scene_of(gs, s, what);
            qr_gpu_scene_destroy(gs);
            cudaFree(rows);
            qr_scene_destroy(s);
        }
}

/* The colour range is found as one pass over the circles finds it, channel
 * after channel: of a 0 and a -0, whichever comes first is the lowest
 * colour; NaN colours never are. Zeros are placed in different lanes,
 * groups of 32 and runs of the device's pass. Colours in [0, 1] make the
 * fused blend's conditions hold (up to the zeros' count), then fail. */
Test(gpu_scene, colour_range_in_circle_order, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int32_t n = 140000;
    /* (circle, channel) of the zeros, in circle order, the first of each
     * pair -0 or +0: in two groups of 32, in two runs, in two lanes */
    const int32_t at[][2] = {{5, 2}, {40, 0}, {65535, 2}, {65536, 0}, {130, 2}, {131, 0}};
    for (int variant = 0; variant < 6; variant++) {
        qr_test_scene_spec spec = qr_test_mix_spec(QR_TEST_MIX_UNIFORM, 40 + variant, n);
        for (int c = 0; c < 3; c++) {
            spec.rgb[c][0] = 0.25f;
            spec.rgb[c][1] = 1.0f;
        }
        qr_scene *s = qr_test_scene_generate(&spec);
        float *ch[3] = {s->red, s->green, s->blue};
        const int pair = variant % 3;
        const float first = variant < 3 ? -0.0f : 0.0f;
        ch[at[2 * pair][1]][at[2 * pair][0]] = first;
        ch[at[2 * pair + 1][1]][at[2 * pair + 1][0]] = -first;
        if (variant == 2) s->green[99] = NAN;                 /* not finite: no fused blend */
        if (variant == 4)                                     /* 61 zeros in red: no fused blend */
            for (int i = 0; i < 61; i++) s->red[1000 + 977 * i] = 0.0f;
        if (variant == 5) s->blue[123456] = 0x1p-70f;         /* tiny: no fused blend */
        float *rows = device_rows(s);
        qr_gpu_scene *gs = NULL;
        qr_error err;
        QR_CHECK(err, qr_gpu_scene_create_device(rows, n, &gs, &err));
        char what[64];
        snprintf(what, sizeof what, "zeros variant %d", variant);
        assert_scene_of(gs, s, what);
        const qr_gpu_scene_ranges r = ranges_of(gs);
        cr_assert(r.color_lo == 0.0f && !!signbit(r.color_lo) == (variant < 3),
                  "%s: lowest colour %a", what, r.color_lo);
        cr_assert_eq(r.fma_blend, variant < 2 || variant == 3, "%s: fused blend %d", what,
                     r.fma_blend);
        qr_gpu_scene_destroy(gs);
        cudaFree(rows);
        qr_scene_destroy(s);
    }
}

/* One scene updated from rows of other circles again and again, growing
 * (past its memory) and shrinking (within it), down to no circles: after
 * every update it is the scene qr_gpu_scene_create_device makes of the same
 * rows and the host's upload makes of the same circles, and one renderer
 * kept across the updates draws it as a new renderer draws the new scene,
 * in both modes. */
Test(gpu_scene, update_from_device_rows_grows_and_shrinks, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int32_t sizes[] = {1000, 200003, 70000, 0, 131072, 65537, 250001, 7};
    const int w = 256, h = 192;
    qr_error err;
    qr_gpu_scene *kept = NULL;
    qr_gpu_renderer *kept_r = NULL;
    QR_CHECK(err, qr_gpu_renderer_create(w, h, &kept_r, &err));
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 100 + k, sizes[k]);
        float *rows = device_rows(s);
        if (k == 0)
            QR_CHECK(err, qr_gpu_scene_create_device(rows, s->n, &kept, &err));
        else
            QR_CHECK(err, qr_gpu_scene_update_device(kept, rows, s->n, &err));
        qr_gpu_scene *fresh = NULL;
        QR_CHECK(err, qr_gpu_scene_create_device(rows, s->n, &fresh, &err));
        char what[64];
        snprintf(what, sizeof what, "update %zu, %d circles", k, sizes[k]);
        assert_same_scene(kept, fresh, what);
        assert_scene_of(kept, s, what);
        assert_kept_draws_as_new(kept_r, kept, fresh, w, h, what);
        qr_gpu_scene_destroy(fresh);
        cudaFree(rows);
        qr_scene_destroy(s);
    }
    qr_gpu_renderer_destroy(kept_r);
    qr_gpu_scene_destroy(kept);
}

/* A scene uploaded from the host (animated, stepped) becomes, updated from
 * device rows, the static scene of those rows; bad arguments leave a scene
 * as it was. */
Test(gpu_scene, update_replaces_a_host_scene, .timeout = 120)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_scene *balls = gpu_test_scene("bouncingballs", 0);
    qr_gpu_scene *gs = NULL;
    QR_CHECK(err, qr_gpu_scene_create(balls, &gs, &err));
    QR_CHECK(err, qr_gpu_scene_step(gs, &err));
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 7, 5000);
    float *rows = device_rows(s);
    QR_CHECK(err, qr_gpu_scene_update_device(gs, rows, s->n, &err));
    assert_scene_of(gs, s, "bouncingballs updated");
    cr_assert_eq(qr_gpu_scene_update_device(gs, rows, -1, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_gpu_scene_update_device(gs, NULL, 3, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_gpu_scene_update_device(NULL, rows, 3, &err), QR_ERR_INVALID);
    assert_scene_of(gs, s, "after refused updates");
    qr_gpu_scene_destroy(gs);
    cudaFree(rows);
    qr_scene_destroy(s);
    qr_scene_destroy(balls);
}

/* Scenes made from host rows (qr_gpu_scene_create_host) equal the host's
 * upload of the same circles and the scene of the same device rows, on one
 * thread and several (pieces of 32768 rows: sizes on both sides of one and
 * of two, several runs of 65536), colours of both signs, zeros, tiny and
 * huge finite values, r = 0 and r = -0 (not negative). */
Test(gpu_scene, from_host_rows_equals_the_hosts_upload, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int32_t sizes[] = {0, 1, 33, 32767, 32768, 32769, 65537, 200003};
    const int threads[] = {1, 3, 0};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        qr_error err;
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 300 + k, sizes[k]);
        if (s->n > 2) s->r[s->n / 2] = -0.0f;
        float *rows = host_rows(s);
        float *drows = device_rows(s);
        qr_gpu_scene *dev = NULL;
        QR_CHECK(err, qr_gpu_scene_create_device(drows, s->n, &dev, &err));
        for (int t = 0; t < 3; t++) {
            qr_gpu_scene *gs = NULL;
            QR_CHECK(err, qr_gpu_scene_create_host(rows, s->n, threads[t], &gs, &err));
            char what[96];
            snprintf(what, sizeof what, "%d circles from the host on %d threads", sizes[k],
                     threads[t]);
            assert_scene_of(gs, s, what);
            assert_same_scene(gs, dev, what);
            qr_gpu_scene_destroy(gs);
        }
        qr_gpu_scene_destroy(dev);
        cudaFree(drows);
        free(rows);
        qr_scene_destroy(s);
    }
}

/* One scene updated from host rows again and again, growing (past its
 * staging and its memory) and shrinking (within them), down to no circles,
 * now and then from device rows in between: after every update it is the
 * scene the host's upload makes of the same circles, and one renderer kept
 * across the updates draws it as a new renderer draws a new upload, in both
 * modes. */
Test(gpu_scene, update_from_host_rows_grows_and_shrinks, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int32_t sizes[] = {1000, 200003, 70000, 0, 131072, 65537, 250001, 7, 250001};
    const int w = 256, h = 192;
    qr_error err;
    qr_gpu_scene *kept = NULL;
    qr_gpu_renderer *kept_r = NULL;
    QR_CHECK(err, qr_gpu_renderer_create(w, h, &kept_r, &err));
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 400 + k, sizes[k]);
        float *rows = host_rows(s);
        if (k == 0) {
            QR_CHECK(err, qr_gpu_scene_create_host(rows, s->n, 0, &kept, &err));
        } else if (k % 3 == 2) { /* from device rows, between host updates */
            float *drows = device_rows(s);
            QR_CHECK(err, qr_gpu_scene_update_device(kept, drows, s->n, &err));
            cudaFree(drows);
        } else {
            QR_CHECK(err, qr_gpu_scene_update_host(kept, rows, s->n, (int)k % 4, &err));
        }
        qr_gpu_scene *fresh = NULL;
        QR_CHECK(err, qr_gpu_scene_create(s, &fresh, &err));
        char what[64];
        snprintf(what, sizeof what, "update %zu, %d circles", k, sizes[k]);
        assert_same_scene(kept, fresh, what);
        assert_kept_draws_as_new(kept_r, kept, fresh, w, h, what);
        qr_gpu_scene_destroy(fresh);
        free(rows);
        qr_scene_destroy(s);
    }
    qr_gpu_renderer_destroy(kept_r);
    qr_gpu_scene_destroy(kept);
}

/* Asserts qr_gpu_scene_update_host refuses rows of s (on `threads`
 * threads) as qr_scene_check_circles refuses s, with its message, and
 * leaves gs the scene of `was`. */
static void assert_refused_as_the_check(qr_gpu_scene *gs, const qr_scene *s, int threads,
                                        const qr_scene *was, const char *what)
{
    qr_error want, got;
    cr_assert_eq(qr_scene_check_circles(s, "circles", &want), QR_ERR_INVALID,
                 "%s: the oracle takes the circles", what);
    float *rows = host_rows(s);
    cr_assert_eq(qr_gpu_scene_update_host(gs, rows, s->n, threads, &got), QR_ERR_INVALID,
                 "%s: taken", what);
    cr_assert_str_eq(got.msg, want.msg, "%s", what);
    assert_scene_of(gs, was, what);
    free(rows);
}

/* Bad host rows (NaN, infinities, negative radii) are refused with the
 * message qr_scene_check_circles gives the same circles, for the first bad
 * row whichever thread's piece finds one first, and the scene is left as it
 * was; so are bad arguments. */
Test(gpu_scene, update_from_host_rows_refuses_bad_rows, .timeout = 300)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_scene *good = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 500, 5000);
    float *good_rows = host_rows(good);
    qr_gpu_scene *gs = NULL;
    QR_CHECK(err, qr_gpu_scene_create_host(good_rows, good->n, 0, &gs, &err));
    const int threads[] = {1, 4, 0};
    for (int t = 0; t < 3; t++) {
        char what[96];
        qr_scene *hostile = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 501 + t, 200003);
        snprintf(what, sizeof what, "hostile circles on %d threads", threads[t]);
        assert_refused_as_the_check(gs, hostile, threads[t], good, what);
        qr_scene_destroy(hostile);
        /* a late piece's bad row and an earlier piece's: the earlier one */
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 510 + t, 200003);
        s->r[150001] = -0.5f;
        s->y[70000] = NAN;
        snprintf(what, sizeof what, "two bad rows on %d threads", threads[t]);
        assert_refused_as_the_check(gs, s, threads[t], good, what);
        s->y[70000] = INFINITY; /* the same row, another value */
        assert_refused_as_the_check(gs, s, threads[t], good, what);
        s->y[70000] = 0.5f; /* now the radius */
        assert_refused_as_the_check(gs, s, threads[t], good, what);
        qr_scene_destroy(s);
    }
    cr_assert_eq(qr_gpu_scene_update_host(gs, good_rows, -1, 0, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_gpu_scene_update_host(gs, NULL, 3, 0, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_gpu_scene_update_host(NULL, good_rows, 3, 0, &err), QR_ERR_INVALID);
    qr_gpu_scene *none = NULL;
    cr_assert_eq(qr_gpu_scene_create_host(good_rows, QR_SCENE_MAX_CIRCLES + 1, 0, &none, &err),
                 QR_ERR_INVALID);
    cr_assert(!none);
    assert_scene_of(gs, good, "after refused updates");
    qr_gpu_scene_destroy(gs);
    free(good_rows);
    qr_scene_destroy(good);
}
