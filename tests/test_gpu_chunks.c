/* test_gpu_chunks.c — a scene drawn on the GPU in depth-ordered chunks
 * (qr_gpu_render_chunk), each uploaded alone (qr_gpu_scene_create of a
 * qr_scene_view) and rendered over the image the chunks before it left,
 * against the whole scene in one pass:
 *
 *   exact mode: the CPU reference's bits, colour and alpha (flat scenes),
 *       or the GPU's one pass to the bit (snow), every built-in scene (the
 *       animated ones at a later frame), chunks of one circle (small
 *       scenes), random sizes and the whole scene, with the picture's
 *       options (per-circle alpha, background, no background, anti-aliased
 *       edges);
 *   fast mode: the GPU's one pass to the bit, drawn back to front with the
 *       exact walk (shallow scenes) or front to back with its own walk
 *       under the image (deep ones, snow), stopping at the whole scene's
 *       bound; the whole scene's numbers gathered over any cut are its
 *       own;
 *   a budget: a chunk whose index does not fit fails with QR_ERR_GPU_NOMEM
 *       and leaves the image as it was; drawn again in halves it gives the
 *       one pass's bits.
 * Needs a GPU; skips with the reason elsewhere. */
#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"
#include "scene_util.h"

/* The whole scene's numbers, gathered over the chunks sizes[0..k). */
static qr_gpu_numbers numbers_of(const qr_scene *s, const int32_t *sizes, int32_t k)
{
    qr_gpu_numbers n;
    qr_gpu_numbers_init(&n, s);
    qr_error err;
    int32_t first = 0;
    for (int32_t j = 0; j < k; j++) {
        qr_scene view;
        QR_CHECK(err, qr_scene_view(s, first, sizes[j], &view, &err));
        QR_CHECK(err, qr_gpu_numbers_add(&n, &view, &err));
        first += sizes[j];
    }
    return n;
}

/* s drawn on the GPU at w x h in chunks of sizes[0..k), each uploaded
 * alone: back to front over the image, or (fast mode where it walks front
 * to back) from the last chunk to the first under it. */
static qr_image *gpu_chunked(const qr_scene *s, int w, int h, qr_render_mode mode,
                             const int32_t *sizes, int32_t k)
{
    qr_error err;
    qr_gpu_renderer *r = NULL;
    QR_CHECK(err, qr_gpu_renderer_create(w, h, &r, &err));
    qr_index_params p;
    qr_index_params_default(&p);
    const qr_gpu_numbers whole = numbers_of(s, sizes, k);
    const int under = qr_gpu_chunks_front_to_back(&whole, mode);
    int32_t *starts = malloc(((size_t)k + 1) * sizeof *starts);
    cr_assert_not_null(starts);
    starts[0] = 0;
    for (int32_t j = 0; j < k; j++) starts[j + 1] = starts[j] + sizes[j];
    cr_assert_eq(starts[k], s->n);
    for (int32_t i = 0; i < k; i++) {
        const int32_t j = under ? k - 1 - i : i;
        qr_scene view;
        QR_CHECK(err, qr_scene_view(s, starts[j], sizes[j], &view, &err));
        qr_gpu_scene *gs = NULL;
        QR_CHECK(err, qr_gpu_scene_create(&view, &gs, &err));
        if (under)
            QR_CHECK(err, qr_gpu_render_chunk_under(r, gs, &whole, &p, i == 0, j == 0, &err));
        else
            QR_CHECK(err, qr_gpu_render_chunk(r, gs, &p, mode, i > 0, &err));
        qr_gpu_scene_destroy(gs);
    }
    free(starts);
    qr_image *img = qr_test_garbage_image(w, h);
    QR_CHECK(err, qr_gpu_renderer_download(r, img, &err));
    qr_gpu_renderer_destroy(r);
    return img;
}

/* Whether a and b hold the same colour bits (and alpha, with_alpha). */
static long long first_diff(const qr_image *a, const qr_image *b, int with_alpha)
{
    long long bad;
    image_max_diff(a, b, with_alpha, &bad);
    return bad;
}

/* Each cut of s at w x h, exact and fast, against the one pass. */
static void check_chunks(const qr_scene *s, int w, int h, const char *what)
{
    const int cuts[] = {0, 1, 3, 17};
    enum { CAP = 5000 };
    int32_t *sizes = malloc(CAP * sizeof *sizes);
    cr_assert_not_null(sizes);
    qr_index_params p;
    qr_index_params_default(&p);
    const int flat = s->shading == QR_SHADE_FLAT;
    /* the oracle: the reference's bits (flat), the GPU's one pass (snow;
     * fast mode) */
    qr_image *ref = flat ? cpu_render_image(s, w, h) : gpu_render_image(s, w, h, &p, QR_RENDER_EXACT);
    qr_image *one_fast = gpu_render_image(s, w, h, &p, QR_RENDER_FAST);
    for (int c = 0; c < 4; c++) {
        if (cuts[c] == 1 && s->n > CAP) continue;
        const int32_t k = qr_test_cut_scene(s->n, cuts[c], (uint64_t)s->n + 7u, sizes, CAP);
        qr_image *exact = gpu_chunked(s, w, h, QR_RENDER_EXACT, sizes, k);
        qr_image *fast = gpu_chunked(s, w, h, QR_RENDER_FAST, sizes, k);
        long long bad = first_diff(exact, ref, 1);
        if (bad >= 0) {
            const float *e = exact->rgba + 4 * bad, *o = ref->rgba + 4 * bad;
            cr_assert(bad < 0,
                      "%s %dx%d, %d chunks, exact: pixel %lld differs from the one pass: "
                      "(%.9g %.9g %.9g %.9g), not (%.9g %.9g %.9g %.9g)",
                      what, w, h, (int)k, bad, e[0], e[1], e[2], e[3], o[0], o[1], o[2], o[3]);
        }
        /* fast: the one pass's colour (and coverage, without a background) */
        bad = first_diff(fast, one_fast, s->transparent);
        cr_assert(bad < 0, "%s %dx%d, %d chunks, fast: pixel %lld differs from the one pass", what,
                  w, h, (int)k, bad);
        qr_image_destroy(exact);
        qr_image_destroy(fast);
    }
    qr_image_destroy(ref);
    qr_image_destroy(one_fast);
    free(sizes);
}

/* The numbers gathered over any cut are the whole scene's to the bit
 * (host code: runs without a GPU). */
Test(gpu_chunks, numbers_do_not_depend_on_the_cut)
{
    const char *names[] = {"rand100k", "snow", "micro2M"};
    enum { CAP = 200000 };
    int32_t *sizes = malloc(CAP * sizeof *sizes);
    cr_assert_not_null(sizes);
    for (int i = 0; i < 3; i++) {
        qr_scene *s = gpu_test_scene(names[i], 0);
        sizes[0] = s->n;
        const qr_gpu_numbers one = numbers_of(s, sizes, 1);
        cr_assert(s->shading == QR_SHADE_SNOW || one.area + one.open > 0.0, "%s: no depth",
                  names[i]); /* snow starts above the picture */
        cr_assert_lt(one.lo, one.hi, "%s", names[i]);
        const int cuts[] = {1, 3, 1000};
        for (int c = 0; c < 3; c++) {
            if (cuts[c] == 1 && s->n > CAP) continue;
            const int32_t k = qr_test_cut_scene(s->n, cuts[c], 99u + (uint64_t)c, sizes, CAP);
            const qr_gpu_numbers n = numbers_of(s, sizes, k);
            cr_expect_eq(n.circles, s->n);
            qr_test_assert_bits(n.lo, one.lo, "%s cut %d: lo", names[i], cuts[c]);
            qr_test_assert_bits(n.hi, one.hi, "%s cut %d: hi", names[i], cuts[c]);
            cr_expect_eq(n.finite, one.finite);
            cr_expect(n.area + n.open == one.area + one.open, "%s cut %d: depth %.17g, not %.17g",
                      names[i], cuts[c], n.area + n.open, one.area + one.open);
        }
        qr_scene_destroy(s);
    }
    free(sizes);
}

static void check_builtin(const char *name)
{
    QR_REQUIRE_GPU();
    qr_scene *s = gpu_test_scene(name, 0);
    if (s->anim != QR_ANIM_NONE) {
        qr_error err;
        QR_CHECK(err, qr_scene_seek_frame(s, 2, &err));
    }
    check_chunks(s, 333, 277, name);
    if (s->n <= 100000) check_chunks(s, 1024, 1024, name);
    qr_scene_destroy(s);
}

Test(gpu_chunks, every_builtin_scene, .timeout = 900)
{
    int count = 0;
    const qr_builtin_info *all = qr_builtin_scenes(&count);
    for (int i = 0; i < count; i++) check_builtin(all[i].name);
}

Test(gpu_chunks, families, .timeout = 600)
{
    QR_REQUIRE_GPU();
    const char *names[] = {"uniform:300000", "clustered:200000", "zoo:1003"};
    for (int i = 0; i < 3; i++) {
        qr_scene *s = gpu_test_scene(names[i], 0);
        check_chunks(s, 640, 480, names[i]);
        qr_scene_destroy(s);
    }
}

/* The picture's options: per-circle alpha and a background, no background,
 * anti-aliased edges, on random scenes. */
Test(gpu_chunks, picture_options, .timeout = 600)
{
    QR_REQUIRE_GPU();
    for (uint64_t seed = 1; seed <= 4; seed++) {
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, seed, 4000);
        qr_test_random_picture(s, seed);
        char what[64];
        snprintf(what, sizeof what, "random picture %llu", (unsigned long long)seed);
        check_chunks(s, 301, 257, what);
        qr_scene_destroy(s);
    }
}

/* A chunk whose index outgrows the budget fails before touching the image;
 * its halves then draw the one pass's bits. */
Test(gpu_chunks, a_chunk_over_the_budget_leaves_the_image, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int w = 512, h = 512;
    qr_scene *s = gpu_test_scene("rand100k", 0);
    qr_index_params p;
    qr_index_params_default(&p);
    qr_error err;
    qr_gpu_renderer *r = NULL;
    QR_CHECK(err, qr_gpu_renderer_create(w, h, &r, &err));
    qr_scene view;
    qr_gpu_scene *gs = NULL;
    QR_CHECK(err, qr_scene_view(s, 0, 10000, &view, &err));
    QR_CHECK(err, qr_gpu_scene_create(&view, &gs, &err));
    QR_CHECK(err, qr_gpu_render_chunk(r, gs, &p, QR_RENDER_EXACT, 0, &err));
    qr_gpu_scene_destroy(gs);
    qr_image *before = qr_test_garbage_image(w, h), *after = qr_test_garbage_image(w, h);
    QR_CHECK(err, qr_gpu_renderer_download(r, before, &err));

    /* the rest at once, within a budget that holds the scene and the image
     * and not the index it grows to */
    QR_CHECK(err, qr_scene_view(s, 10000, 90000, &view, &err));
    QR_CHECK(err, qr_gpu_scene_create(&view, &gs, &err));
    const size_t tight = qr_gpu_scene_device_bytes(gs) + (size_t)w * h * 16 + 4096;
    qr_gpu_renderer_set_budget(r, tight);
    cr_assert_eq(qr_gpu_render_chunk(r, gs, &p, QR_RENDER_EXACT, 1, &err), QR_ERR_GPU_NOMEM);
    cr_assert(strstr(err.msg, "GPU memory"), "%s", err.msg);
    QR_CHECK(err, qr_gpu_renderer_download(r, after, &err));
    cr_assert(first_diff(before, after, 1) < 0, "a refused chunk changed the image");
    qr_gpu_scene_destroy(gs);

    /* in halves, with room for their index */
    qr_gpu_renderer_set_budget(r, 0);
    for (int half = 0; half < 2; half++) {
        QR_CHECK(err, qr_scene_view(s, 10000 + half * 45000, 45000, &view, &err));
        QR_CHECK(err, qr_gpu_scene_create(&view, &gs, &err));
        QR_CHECK(err, qr_gpu_render_chunk(r, gs, &p, QR_RENDER_EXACT, 1, &err));
        qr_gpu_scene_destroy(gs);
    }
    QR_CHECK(err, qr_gpu_renderer_download(r, after, &err));
    qr_image *ref = cpu_render_image(s, w, h);
    cr_assert(first_diff(after, ref, 1) < 0, "the halves are not the one pass");
    qr_image_destroy(ref);
    qr_image_destroy(before);
    qr_image_destroy(after);
    qr_gpu_renderer_destroy(r);
    qr_scene_destroy(s);
}

/* A banded renderer has no whole image to draw chunks over. */
Test(gpu_chunks, bands_refuse_chunks)
{
    QR_REQUIRE_GPU();
    qr_scene *s = gpu_test_scene("rgb", 0);
    qr_error err;
    qr_gpu_renderer *r = NULL;
    QR_CHECK(err, qr_gpu_renderer_create_bands(256, 256, 64, 64, &r, &err));
    qr_gpu_scene *gs = NULL;
    QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
    qr_index_params p;
    qr_index_params_default(&p);
    cr_assert_eq(qr_gpu_render_chunk(r, gs, &p, QR_RENDER_EXACT, 0, &err), QR_ERR_INVALID);
    cr_assert(strstr(err.msg, "bands"), "%s", err.msg);
    qr_gpu_scene_destroy(gs);
    qr_gpu_renderer_destroy(r);
    qr_scene_destroy(s);
}
