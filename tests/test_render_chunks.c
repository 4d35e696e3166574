/* test_render_chunks.c — a scene drawn in depth-ordered chunks of
 * consecutive circles (qr_scene_view), each over the image the chunks
 * before it left (qr_render_cpu_over, qr_render_cpu_fast_over), against the
 * whole scene drawn in one pass by the reference renderer (the oracle):
 *
 *   the reference and the fast CPU renderer's exact mode: the same bytes,
 *       every built-in scene (the animated ones at a later frame), chunks
 *       of many sizes (one circle, random, the whole scene) and the
 *       picture's options (per-circle alpha, background, no background,
 *       anti-aliased edges);
 *   fast mode back to front (over): every channel within QR_FAST_TOLERANCE,
 *       however many chunks; front to back (under, with the whole scene's
 *       numbers): the one pass's bytes, every scene above;
 *   views: their circles are the scene's; a range outside it is refused.
 * Runs without a GPU.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/image.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"
#include "random_scene.h"
#include "scene_util.h"
#include "test_util.h"

typedef enum drawer { REFERENCE, FAST_EXACT, FAST } drawer;

static const char *drawer_name[] = {"reference", "fast CPU exact", "fast CPU fast"};

static qr_image *image(int32_t w, int32_t h)
{
    return qr_test_garbage_image(w, h);
}

static size_t floats(const qr_image *img)
{
    return (size_t)img->width * (size_t)img->height * 4;
}

/* Draws circles [first, first + count) of s into img: over it unless first
 * is 0 (the first chunk clears to the background). */
static void draw(drawer d, const qr_scene *s, int32_t first, int32_t count, qr_image *img)
{
    qr_scene view;
    qr_error err;
    cr_assert_eq(qr_scene_view(s, first, count, &view, &err), QR_OK, "%s", err.msg);
    const qr_render_mode mode = d == FAST ? QR_RENDER_FAST : QR_RENDER_EXACT;
    qr_status st;
    if (d == REFERENCE)
        st = first ? qr_render_cpu_over(&view, img, &err) : qr_render_cpu(&view, img, &err);
    else
        st = first ? qr_render_cpu_fast_over(&view, NULL, mode, 0, img, NULL, &err)
                   : qr_render_cpu_fast(&view, NULL, mode, 0, img, NULL, &err);
    cr_assert_eq(st, QR_OK, "%s", err.msg);
}

/* Largest |a - b| over the colour channels (and alpha, where cover). */
static double worst(const qr_image *a, const qr_image *b, int cover)
{
    double w = 0;
    for (size_t i = 0; i < floats(a); i++) {
        if (i % 4 == 3 && !cover) continue;
        const double d = fabs((double)a->rgba[i] - (double)b->rgba[i]);
        cr_assert(d == d, "NaN at %zu", i);
        w = d > w ? d : w;
    }
    return w;
}

/* Each drawer, each cut of s into chunks drawn in order, against the
 * reference's one pass: exact bytes, or fast within the bound. */
static void check_chunks(const qr_scene *s, int32_t w, int32_t h, const int *cuts, int ncuts)
{
    qr_error err;
    qr_image *ref = image(w, h);
    cr_assert_eq(qr_render_cpu(s, ref, &err), QR_OK, "%s", err.msg);
    enum { CAP = 4096 };
    int32_t *sizes = malloc(CAP * sizeof *sizes);
    cr_assert_not_null(sizes);
    for (int d = REFERENCE; d <= FAST; d++)
        for (int c = 0; c < ncuts; c++) {
            if (cuts[c] == 1 && s->n > CAP) continue;
            const int32_t k = qr_test_cut_scene(s->n, cuts[c], (uint64_t)s->n + 17u * (uint64_t)d, sizes, CAP);
            qr_image *img = image(w, h);
            int32_t first = 0;
            for (int32_t j = 0; j < k; j++) {
                draw((drawer)d, s, first, sizes[j], img);
                first += sizes[j];
            }
            cr_assert_eq(first, s->n);
            if (d == FAST) {
                const double e = worst(img, ref, s->transparent);
                cr_assert(e <= QR_FAST_TOLERANCE,
                          "%s %dx%d, %s, %d chunks: %g from the one pass", s->name, w, h,
                          drawer_name[d], k, e);
            } else {
                cr_assert(memcmp(img->rgba, ref->rgba, floats(ref) * sizeof(float)) == 0,
                          "%s %dx%d, %s, %d chunks: not the one pass's bytes", s->name, w, h,
                          drawer_name[d], k);
            }
            qr_image_destroy(img);
        }
    free(sizes);
    qr_image_destroy(ref);
}

/* Fast mode front to back: each cut of s drawn from its last chunk to its
 * first (qr_render_cpu_fast_under) with the whole scene's numbers, gathered
 * chunk by chunk, gives qr_render_cpu_fast's one pass byte for byte; where
 * fast mode does not stop (a shallow scene) the numbers say so. */
static int check_under(const qr_scene *s, int32_t w, int32_t h, const int *cuts, int ncuts)
{
    int checked = 0;
    qr_error err;
    qr_image *one = image(w, h);
    cr_assert_eq(qr_render_cpu_fast(s, NULL, QR_RENDER_FAST, 0, one, NULL, &err), QR_OK, "%s",
                 err.msg);
    enum { CAP = 4096 };
    int32_t *sizes = malloc(CAP * sizeof *sizes), *starts = malloc(CAP * sizeof *starts);
    cr_assert(sizes && starts);
    for (int c = 0; c < ncuts; c++) {
        if (cuts[c] == 1 && s->n > CAP) continue;
        const int32_t k = qr_test_cut_scene(s->n, cuts[c], (uint64_t)s->n + 99u, sizes, CAP);
        qr_cpu_fast_numbers numbers;
        qr_cpu_fast_numbers_init(&numbers);
        int32_t first = 0;
        for (int32_t j = 0; j < k; j++) {
            qr_scene view;
            cr_assert_eq(qr_scene_view(s, first, sizes[j], &view, &err), QR_OK, "%s", err.msg);
            qr_cpu_fast_numbers_add(&numbers, &view);
            starts[j] = first;
            first += sizes[j];
        }
        cr_assert_eq(numbers.circles, s->n);
        if (!qr_render_cpu_fast_stops(s, &numbers))
            continue; /* its chunks go back to front: check_chunks */
        qr_image *img = image(w, h);
        for (int32_t j = k - 1; j >= 0; j--) {
            qr_scene view;
            cr_assert_eq(qr_scene_view(s, starts[j], sizes[j], &view, &err), QR_OK, "%s", err.msg);
            cr_assert_eq(qr_render_cpu_fast_under(&view, NULL, 0, img, &numbers, j == k - 1, j == 0,
                                                  NULL, &err),
                         QR_OK, "%s", err.msg);
        }
        cr_assert(memcmp(img->rgba, one->rgba, floats(one) * sizeof(float)) == 0,
                  "%s %dx%d, %d chunks front to back: not the one pass's bytes", s->name, w, h, k);
        qr_image_destroy(img);
        checked++;
    }
    free(sizes);
    free(starts);
    qr_image_destroy(one);
    return checked;
}

static qr_scene *load(const char *name, int64_t frame)
{
    return qr_test_builtin_frame(name, frame);
}

/* Every built-in scene, the animated ones at frame 3, at an odd size. */
Test(render_chunks, builtin_scenes_equal_one_pass, .timeout = 600)
{
    int count = 0;
    const qr_builtin_info *info = qr_builtin_scenes(&count);
    const int cuts[] = {0, 1, 3, 40};
    for (int k = 0; k < count; k++) {
        qr_scene *s = load(info[k].name, info[k].animated ? 3 : 0);
        check_chunks(s, 131, 97, cuts, 4);
        check_under(s, 131, 97, cuts, 4);
        qr_scene_destroy(s);
    }
}

/* Per-circle alpha, a background, anti-aliased edges, and no background
 * (the alpha channel the coverage, composited chunk over chunk). */
Test(render_chunks, picture_options_equal_one_pass, .timeout = 300)
{
    qr_error err;
    const int cuts[] = {2, 7, 100};
    for (uint64_t seed = 1; seed <= 4; seed++) {
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, seed, 3000);
        qr_test_random_picture(s, seed);
        s->antialias = seed % 2;
        if (seed > 2)
            cr_assert_eq(qr_scene_set_transparent(s, 1, "background", &err), QR_OK, "%s", err.msg);
        check_chunks(s, 160, 96, cuts, 3);
        check_under(s, 160, 96, cuts, 3);
        qr_scene_destroy(s);
    }
    qr_scene *s = load("rand100k", 0);
    qr_test_random_picture(s, 9);
    check_chunks(s, 256, 256, cuts, 3);
    cr_assert_eq(check_under(s, 256, 256, cuts, 3), 3, "rand100k stops early");
    qr_scene_destroy(s);
}

/* Deep scenes, where fast mode stops early in most pixels, cut into many
 * chunks: each stop shrinks what the chunks behind missed, so the error
 * does not grow with the chunks. */
Test(render_chunks, fast_mode_stays_within_the_bound, .timeout = 300)
{
    const int cuts[] = {2, 50, 400};
    const char *names[] = {"micro2M", "snowsingle"};
    for (size_t k = 0; k < 2; k++) {
        qr_scene *s = load(names[k], 0);
        check_chunks(s, 192, 192, cuts, 3);
        /* micro2M is too shallow to stop: its chunks go back to front */
        cr_assert_eq(check_under(s, 192, 192, cuts, 3), k == 1 ? 3 : 0, "%s", names[k]);
        qr_scene_destroy(s);
    }
    qr_scene *s = qr_test_large_circles(4000, 0.3f, 0.6f, 20000, 5);
    check_chunks(s, 128, 128, cuts, 3);
    cr_assert_eq(check_under(s, 128, 128, cuts, 3), 3, "large circles stop early");
    qr_scene_destroy(s);
}

Test(render_chunks, views_are_the_scenes_circles)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 3, 100);
    qr_test_random_picture(s, 3);
    qr_scene v;
    qr_error err;
    cr_assert_eq(qr_scene_view(s, 10, 20, &v, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(v.n, 20);
    cr_assert_null(v.block);
    cr_assert(v.x == s->x + 10 && v.r == s->r + 10 && v.blue == s->blue + 10);
    cr_assert(v.alpha == s->alpha + 10);
    cr_assert_eq(qr_scene_view(s, 100, 0, &v, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(v.n, 0);
    cr_assert_eq(qr_scene_view(s, 90, 11, &v, &err), QR_ERR_INVALID);
    cr_assert(strstr(err.msg, "[90, 101)"), "%s", err.msg);
    cr_assert_eq(qr_scene_view(s, -1, 5, &v, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_scene_view(s, 0, -1, &v, &err), QR_ERR_INVALID);
    qr_scene_destroy(s);
}
