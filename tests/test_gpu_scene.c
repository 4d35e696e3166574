/* test_gpu_scene.c — scenes made on the GPU from rows already there
 * (qr_gpu_scene_create_device, qr_gpu_scene_update_device) against the
 * host's upload of the same circles (qr_gpu_scene_create, the oracle): the
 * same arrays, the same ranges the renderer chooses its kernels by, to the
 * bit, and the same images; a scene updated again and again, growing and
 * shrinking, equals a new one each time.
 * Needs a GPU; skips with the reason elsewhere. */
#include "gpu/tuning.h"
#include "gpu_util.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <string.h>

/* s's circles as device rows of x y z r R G B (free with cudaFree). */
static float *device_rows(const qr_scene *s)
{
    const size_t n = (size_t)s->n, bytes = 7 * n * sizeof(float);
    float *host = malloc(bytes ? bytes : 1);
    cr_assert(host);
    for (size_t i = 0; i < n; i++) {
        const float row[7] = {s->x[i],   s->y[i],     s->z[i],    s->r[i],
                              s->red[i], s->green[i], s->blue[i]};
        memcpy(host + 7 * i, row, sizeof row);
    }
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
