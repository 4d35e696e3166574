/* test_render_cpu_fast.c — the fast CPU renderer against the serial
 * reference renderer (qr_render_cpu), the oracle.
 *
 *   exact mode: the same bytes as the reference, every built-in scene, small
 *               and odd image sizes (1x1, 1x4097, 3000x7), the animated
 *               scenes' first frames, degenerate circles, on 1, 2 and many
 *               threads;
 *   fast mode:  every colour channel within QR_FAST_TOLERANCE of the
 *               reference, alpha 1, the same bytes whatever the thread count;
 *   the host index build: the same index on any thread count;
 *   qr_parallel_for: every task exactly once, nested calls included.
 * Runs without a GPU.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"
#include "quadrender/threads.h"
#include "random_scene.h"
#include "scene_util.h"
#include "test_util.h"

/* Thread counts every comparison runs with: one, two, and more than this
 * machine has cores (tiles then queue for threads). */
static int thread_counts[3];

static void init_threads(void)
{
    thread_counts[0] = 1;
    thread_counts[1] = 2;
    thread_counts[2] = qr_cpu_count() + 3;
}

static qr_scene *load(const char *name, int64_t frame)
{
    return qr_test_builtin_frame(name, frame);
}

static qr_image *image(int32_t w, int32_t h)
{
    return qr_test_garbage_image(w, h);
}

static qr_image *reference(const qr_scene *s, int32_t w, int32_t h)
{
    qr_image *ref = image(w, h);
    qr_error err;
    cr_assert_eq(qr_render_cpu(s, ref, &err), QR_OK, "%s", err.msg);
    return ref;
}

static size_t floats(const qr_image *img)
{
    return (size_t)img->width * (size_t)img->height * 4;
}

/* Largest |a - b| over the colour channels, and the alpha channel where
 * the scene has no background (cover: the coverage); else fast's alpha
 * must be 1. */
static double fast_error(const qr_image *fast, const qr_image *ref, int cover, const char *what)
{
    double worst = 0;
    for (size_t i = 0; i < floats(fast); i++) {
        if (i % 4 == 3 && !cover) {
            cr_assert_eq(fast->rgba[i], 1.0f, "%s: fast mode's alpha is %g", what,
                         (double)fast->rgba[i]);
            continue;
        }
        const double d = fabs((double)fast->rgba[i] - (double)ref->rgba[i]);
        cr_assert(d == d, "%s: NaN at %zu", what, i);
        worst = d > worst ? d : worst;
    }
    return worst;
}

/* Exact: the reference's bytes on every thread count. Fast: within the
 * bound, and the same bytes on every thread count. */
static void check_scene(const qr_scene *s, int32_t w, int32_t h)
{
    qr_image *ref = reference(s, w, h);
    qr_image *fast0 = NULL;
    qr_error err;
    for (int t = 0; t < 3; t++) {
        qr_image *img = image(w, h);
        cr_assert_eq(qr_render_cpu_fast(s, NULL, QR_RENDER_EXACT, thread_counts[t], img, NULL, &err),
                     QR_OK, "%s", err.msg);
        cr_assert(memcmp(img->rgba, ref->rgba, floats(ref) * sizeof(float)) == 0,
                  "%s %dx%d, %d threads: exact mode differs from the reference", s->name, w, h,
                  thread_counts[t]);
        cr_assert_eq(qr_render_cpu_fast(s, NULL, QR_RENDER_FAST, thread_counts[t], img, NULL, &err),
                     QR_OK, "%s", err.msg);
        char what[128];
        snprintf(what, sizeof what, "%s %dx%d, %d threads", s->name, w, h, thread_counts[t]);
        const double d = fast_error(img, ref, s->transparent, what);
        cr_assert(d <= QR_FAST_TOLERANCE, "%s: fast mode differs from the reference by %g", what, d);
        if (!fast0) {
            fast0 = img;
            continue;
        }
        cr_assert(memcmp(img->rgba, fast0->rgba, floats(img) * sizeof(float)) == 0,
                  "%s: fast mode's bytes depend on the thread count", what);
        qr_image_destroy(img);
    }
    qr_image_destroy(fast0);
    qr_image_destroy(ref);
}

/* Random scenes of 3000 circles, seeds 1..seeds, each with a random
 * picture, anti-aliased edges but for seed 2, and no background where
 * `transparent`, at 256 x 256 (check_scene). */
static void check_random_pictures(uint64_t seeds, int transparent)
{
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, seed, 3000);
        qr_test_random_picture(s, seed);
        qr_error err;
        if (transparent)
            cr_assert_eq(qr_scene_set_transparent(s, 1, "background", &err), QR_OK, "%s", err.msg);
        s->antialias = seed != 2;
        check_scene(s, 256, 256);
        qr_scene_destroy(s);
    }
}

/* The picture's options (random alphas and backgrounds, anti-aliased edges
 * and hard ones) on built-in and random scenes, shallow and deep: exact to
 * the reference's bytes, fast within the bound. */
Test(render_cpu_fast, alpha_and_background, .timeout = 300)
{
    init_threads();
    const char *names[] = {"rand10k", "rand100k", "biglittle", "micro2M"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        qr_scene *s = load(names[k], 0);
        qr_test_random_picture(s, k + 1);
        check_scene(s, 200, 200);
        s->antialias = 1;
        check_scene(s, 97, 45);
        qr_scene_destroy(s);
    }
    check_random_pictures(3, 0);
}

/* No background (the alpha channel the coverage), on built-in and random
 * scenes with and without per-circle alpha, hard and anti-aliased edges,
 * shallow and deep: exact to the reference's bytes, alpha included; fast
 * within the bound on every channel. */
Test(render_cpu_fast, transparent, .timeout = 300)
{
    init_threads();
    qr_error err;
    const char *names[] = {"rand10k", "rand100k", "micro2M"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        qr_scene *s = load(names[k], 0);
        cr_assert_eq(qr_scene_set_transparent(s, 1, "background", &err), QR_OK, "%s", err.msg);
        check_scene(s, 200, 200);
        qr_test_random_picture(s, k + 7);
        cr_assert_eq(qr_scene_set_transparent(s, 1, "background", &err), QR_OK, "%s", err.msg);
        s->antialias = 1;
        check_scene(s, 97, 45);
        qr_scene_destroy(s);
    }
    check_random_pictures(2, 1);
}

/* Small, odd and extreme sizes of one built-in scene. */
static void check_builtin(const char *name)
{
    init_threads();
    qr_scene *s = load(name, 0);
    static const int32_t sizes[][2] = {{64, 64}, {1, 1}, {1, 4097}, {3000, 7}, {97, 45}, {200, 200}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) check_scene(s, sizes[k][0], sizes[k][1]);
    qr_scene_destroy(s);
}

/* Circles larger than the image's quarters, alone and over crowds of small
 * ones: an index that splits no node it cannot shorten
 * (qr_split_shortens), rendered exactly and fast. */
Test(render_cpu_fast, circles_larger_than_nodes, .timeout = 300)
{
    init_threads();
    qr_scene *s = qr_test_large_circles(12000, 0.3f, 0.6f, 30000, 11);
    check_scene(s, 128, 128);
    check_scene(s, 90, 200);
    qr_scene_destroy(s);
    s = qr_test_large_circles(12000, 2.0f, 2.0f, 0, 12);
    check_scene(s, 96, 96);
    qr_scene_destroy(s);
}

Test(render_cpu_fast, builtin_rgb) { check_builtin("rgb"); }
Test(render_cpu_fast, builtin_rgby) { check_builtin("rgby"); }
Test(render_cpu_fast, builtin_rand10k) { check_builtin("rand10k"); }
Test(render_cpu_fast, builtin_rand100k) { check_builtin("rand100k"); }
Test(render_cpu_fast, builtin_rand1M) { check_builtin("rand1M"); }
Test(render_cpu_fast, builtin_micro2M) { check_builtin("micro2M"); }
Test(render_cpu_fast, builtin_biglittle) { check_builtin("biglittle"); }
Test(render_cpu_fast, builtin_littlebig) { check_builtin("littlebig"); }
Test(render_cpu_fast, builtin_pattern) { check_builtin("pattern"); }
Test(render_cpu_fast, builtin_hypnosis) { check_builtin("hypnosis"); }
Test(render_cpu_fast, builtin_bouncingballs) { check_builtin("bouncingballs"); }
Test(render_cpu_fast, builtin_fireworks) { check_builtin("fireworks"); }
Test(render_cpu_fast, builtin_snow) { check_builtin("snow"); }
Test(render_cpu_fast, builtin_snowsingle) { check_builtin("snowsingle"); }
Test(render_cpu_fast, builtin_clusters) { check_builtin("clusters"); }
Test(render_cpu_fast, builtin_spiral) { check_builtin("spiral"); }
Test(render_cpu_fast, builtin_powerlaw) { check_builtin("powerlaw"); }
Test(render_cpu_fast, builtin_hotspot) { check_builtin("hotspot"); }
Test(render_cpu_fast, builtin_roads) { check_builtin("roads"); }
Test(render_cpu_fast, builtin_ring) { check_builtin("ring"); }

/* The table above names every built-in scene. */
Test(render_cpu_fast, every_builtin_is_tested)
{
    static const char *const tested[] = {"rgb",      "rgby",     "rand10k",       "rand100k",
                                         "rand1M",   "micro2M",  "biglittle",     "littlebig",
                                         "pattern",  "hypnosis", "bouncingballs", "fireworks",
                                         "snow",     "snowsingle", "clusters",      "spiral",
                                         "powerlaw", "hotspot",  "roads",         "ring"};
    int n = 0;
    const qr_builtin_info *info = qr_builtin_scenes(&n);
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (size_t k = 0; k < sizeof tested / sizeof tested[0]; k++)
            found |= strcmp(info[i].name, tested[k]) == 0;
        cr_assert(found, "built-in scene %s has no test here", info[i].name);
    }
}

/* The first frames of every animated scene, and a later one of snow (its
 * flakes start above the image). */
Test(render_cpu_fast, animated_first_frames)
{
    init_threads();
    int n = 0;
    const qr_builtin_info *info = qr_builtin_scenes(&n);
    for (int i = 0; i < n; i++) {
        if (!info[i].animated) continue;
        qr_scene *s = load(info[i].name, 0);
        qr_error err;
        for (int64_t f = 0; f < 4; f++) {
            cr_assert_eq(qr_scene_seek_frame(s, f, &err), QR_OK, "%s", err.msg);
            check_scene(s, 96, 80);
        }
        qr_scene_destroy(s);
    }
    qr_scene *s = load("snow", 150);
    check_scene(s, 128, 128);
    qr_scene_destroy(s);
}

/* Circles the reference draws nothing of (r <= 0, non-finite values),
 * colours outside [0, 1], circles far larger than the image, piled deep on
 * a few pixels. */
Test(render_cpu_fast, degenerate_circles)
{
    init_threads();
    const int32_t n = 400;
    qr_scene *s = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_create(n, QR_ANIM_NONE, &s, &err), QR_OK, "%s", err.msg);
    snprintf(s->name, sizeof s->name, "degenerate");
    uint32_t state = 12345;
    for (int32_t i = 0; i < n; i++) {
        state = state * 1664525u + 1013904223u;
        const float u = (float)(state >> 8) / 16777216.0f;
        s->x[i] = 0.5f + 0.3f * (u - 0.5f);
        s->y[i] = 0.5f - 0.2f * (u - 0.5f);
        s->z[i] = u;
        s->r[i] = 0.02f + 0.1f * u;
        s->red[i] = 2.0f * u - 0.5f;
        s->green[i] = 1.0f - u;
        s->blue[i] = u * u;
    }
    s->r[3] = 0.0f;
    s->r[4] = -0.1f;
    s->r[5] = INFINITY;
    s->x[6] = NAN;
    s->red[7] = NAN;
    s->z[8] = INFINITY;
    s->blue[9] = -INFINITY;
    s->r[10] = 5.0f;   /* covers everything */
    s->x[11] = -3.0f;  /* off the image */
    s->r[12] = 1e-6f;  /* between pixel centres */
    check_scene(s, 64, 48);
    check_scene(s, 1, 1);
    s->shading = QR_SHADE_SNOW;
    check_scene(s, 64, 48);
    qr_scene_destroy(s);
}

/* Geometry that overflows a float draws nothing, in both modes, as in the
 * reference: circles far off the image whose r*r overflows (the issue's
 * `-3e38 3e38 0 3e38 0 1 0`), a huge radius, and a finite r*r whose pixel
 * distances overflow; mixed with ordinary circles that do draw. */
Test(render_cpu_fast, overflowing_circles_draw_nothing)
{
    init_threads();
    const float far[][3] = {
        {-3e38f, 3e38f, 3e38f}, {3e38f, -3e38f, 3e38f}, {-3e38f, -3e38f, 3e38f},
        {1e30f, 1e30f, 1e30f},  {0.5f, 0.5f, 2e19f},    {-1.5e19f, 1.5e19f, 1.5e19f},
    };
    const int32_t nfar = (int32_t)(sizeof far / sizeof far[0]);
    for (int with_others = 0; with_others < 2; with_others++) {
        const int32_t n = nfar + (with_others ? 3 : 0);
        qr_scene *s = NULL;
        qr_error err;
        cr_assert_eq(qr_scene_create(n, QR_ANIM_NONE, &s, &err), QR_OK, "%s", err.msg);
        snprintf(s->name, sizeof s->name, "overflow");
        for (int32_t i = 0; i < n; i++) {
            const int f = i < nfar;
            s->x[i] = f ? far[i][0] : 0.25f * (float)(i - nfar + 1);
            s->y[i] = f ? far[i][1] : 0.5f;
            s->r[i] = f ? far[i][2] : 0.2f;
            s->z[i] = 0.5f;
            s->red[i] = 0.0f;
            s->green[i] = 1.0f;
            s->blue[i] = 0.0f;
        }
        if (!with_others) {
            /* the oracle itself draws nothing */
            qr_image *ref = reference(s, 64, 48);
            for (size_t k = 0; k < floats(ref); k++)
                cr_assert_eq(ref->rgba[k], 1.0f, "the reference drew an overflowing circle");
            qr_image_destroy(ref);
        }
        check_scene(s, 64, 48);
        check_scene(s, 1, 1);
        s->shading = QR_SHADE_SNOW;
        check_scene(s, 64, 48);
        qr_scene_destroy(s);
    }
}

/* An index from elsewhere (here the host build with other parameters) gives
 * the same image: the index decides the speed, never the picture. */
Test(render_cpu_fast, any_index_same_image)
{
    init_threads();
    qr_scene *s = load("rand10k", 0);
    qr_image *ref = reference(s, 160, 96);
    qr_index_params p;
    qr_index_params_default(&p);
    const int32_t leaves[] = {16, 32, 128};
    for (size_t k = 0; k < sizeof leaves / sizeof leaves[0]; k++) {
        p.min_leaf = leaves[k];
        p.capacity = 64;
        qr_index *ix = NULL;
        qr_error err;
        cr_assert_eq(qr_index_build_host(s, 160, 96, NULL, &p, QR_RENDER_FAST, &ix, &err), QR_OK,
                     "%s", err.msg);
        qr_image *img = image(160, 96);
        cr_assert_eq(qr_render_cpu_index(s, ix, QR_RENDER_EXACT, 3, img, &err), QR_OK, "%s",
                     err.msg);
        cr_assert(memcmp(img->rgba, ref->rgba, floats(ref) * sizeof(float)) == 0,
                  "min leaf %d: exact mode differs from the reference", leaves[k]);
        qr_image_destroy(img);
        qr_index_destroy(ix);
    }
    qr_image_destroy(ref);
    qr_scene_destroy(s);
}

Test(render_cpu_fast, rejects_wrong_index)
{
    qr_scene *s = load("rgb", 0);
    qr_index *ix = NULL;
    qr_error err;
    qr_index_params p;
    qr_index_params_default(&p);
    cr_assert_eq(qr_index_build_host(s, 64, 64, NULL, &p, QR_RENDER_FAST, &ix, &err), QR_OK, "%s",
                 err.msg);
    qr_image *img = image(64, 32);
    cr_assert_eq(qr_render_cpu_index(s, ix, QR_RENDER_EXACT, 1, img, &err), QR_ERR_INVALID);
    cr_assert(strlen(err.msg) > 0);
    cr_assert_eq(qr_render_cpu_fast(s, NULL, QR_RENDER_EXACT, 1, NULL, NULL, &err), QR_ERR_INVALID);
    qr_image_destroy(img);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* ---- the host build on any thread count ---------------------------------------- */

static void same_index(const qr_index *a, const qr_index *b, const char *what)
{
    cr_assert_eq(a->num_leaves, b->num_leaves, "%s: leaves", what);
    cr_assert_eq(a->num_pairs, b->num_pairs, "%s: pairs", what);
    cr_assert_eq(a->num_nodes, b->num_nodes, "%s: nodes", what);
    cr_assert_eq(a->max_depth_reached, b->max_depth_reached, "%s: depth", what);
    cr_assert_eq(a->visible, b->visible, "%s: visible", what);
    cr_assert(memcmp(a->leaves, b->leaves, (size_t)a->num_leaves * sizeof *a->leaves) == 0,
              "%s: leaves differ", what);
    cr_assert(memcmp(a->lists, b->lists, (size_t)a->num_pairs * sizeof *a->lists) == 0,
              "%s: lists differ", what);
}

Test(render_cpu_fast, index_same_on_any_thread_count)
{
    init_threads();
    static const char *const names[] = {"micro2M", "rand1M", "biglittle"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        qr_scene *s = load(names[k], 0);
        qr_index_params p;
        qr_index_params_default(&p);
        qr_index *one = NULL;
        qr_error err;
        cr_assert_eq(qr_index_build_host_threads(s, 1024, 768, NULL, &p, QR_RENDER_FAST, 1, &one,
                                                 &err),
                     QR_OK, "%s", err.msg);
        for (int t = 1; t < 3; t++) {
            qr_index *ix = NULL;
            cr_assert_eq(qr_index_build_host_threads(s, 1024, 768, NULL, &p, QR_RENDER_FAST,
                                                     thread_counts[t], &ix, &err),
                         QR_OK, "%s", err.msg);
            same_index(one, ix, names[k]);
            qr_index_destroy(ix);
        }
        qr_index_destroy(one);
        qr_scene_destroy(s);
    }
}

/* ---- qr_parallel_for ---------------------------------------------------------------- */

typedef struct tally {
    atomic_int hits[1000];
    atomic_int nested;
} tally;

static void count_task(void *ctx, int task)
{
    tally *t = ctx;
    atomic_fetch_add(&t->hits[task], 1);
}

static void nested_task(void *ctx, int task)
{
    tally *t = ctx;
    (void)task;
    /* a parallel loop inside a task runs on this thread */
    qr_parallel_for(10, 4, count_task, ctx);
    atomic_fetch_add(&t->nested, 1);
}

Test(render_cpu_fast, parallel_for_runs_every_task_once)
{
    static const int threads[] = {1, 2, 7, 0};
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        tally *t = calloc(1, sizeof *t);
        cr_assert(t);
        cr_assert_eq(qr_parallel_for(1000, threads[k], count_task, t), 0);
        for (int i = 0; i < 1000; i++)
            cr_assert_eq(atomic_load(&t->hits[i]), 1, "%d threads: task %d ran %d times",
                         threads[k], i, atomic_load(&t->hits[i]));
        memset(t, 0, sizeof *t);
        cr_assert_eq(qr_parallel_for(5, threads[k], nested_task, t), 0);
        cr_assert_eq(atomic_load(&t->nested), 5);
        for (int i = 0; i < 10; i++) cr_assert_eq(atomic_load(&t->hits[i]), 5);
        free(t);
    }
    cr_assert_eq(qr_parallel_for(0, 4, count_task, NULL), 0);
}

Test(render_cpu_fast, thread_setting)
{
    const int cores = qr_cpu_count();
    cr_assert(cores >= 1);
    qr_set_threads(3);
    cr_assert_eq(qr_threads(), 3);
    qr_set_threads(QR_MAX_THREADS + 5);
    cr_assert_eq(qr_threads(), QR_MAX_THREADS);
    qr_set_threads(0);
    cr_assert_eq(qr_threads(), cores);
}
