/* test_gpu_render.c — GPU renders against the CPU oracle.
 *   exact mode: bit-identical on flat scenes; snow within 1e-5
 *   fast mode:  within QR_FAST_TOLERANCE (1e-5) on every channel of colour
 * Needs a GPU; skips with the reason elsewhere. */
#include "gpu/tuning.h"
#include "gpu_util.h"

static void compare(const qr_scene *s, int w, int h, const qr_index_params *p, const char *what)
{
    qr_image *cpu = cpu_render_image(s, w, h);
    qr_image *exact = gpu_render_image(s, w, h, p, QR_RENDER_EXACT);
    qr_image *fast = gpu_render_image(s, w, h, p, QR_RENDER_FAST);
    long long bad;
    double d = image_max_diff(exact, cpu, 1, &bad);
    if (s->shading == QR_SHADE_FLAT)
        cr_assert(bad < 0, "%s: exact mode differs from the CPU at pixel %lld (max diff %g)", what,
                  bad, d);
    else
        cr_assert(d <= 1e-5, "%s: exact snow differs from the CPU by %g", what, d);
    d = image_max_diff(fast, cpu, s->transparent, &bad); /* without a background, its coverage */
    cr_assert(d <= QR_FAST_TOLERANCE, "%s: fast mode differs from the CPU by %g", what, d);
    qr_image_destroy(cpu);
    qr_image_destroy(exact);
    qr_image_destroy(fast);
}

/* compare() with the default index parameters; frees the scene. */
static void compare_default(qr_scene *s, int w, int h, const char *what)
{
    qr_index_params p;
    qr_index_params_default(&p);
    compare(s, w, h, &p, what);
    qr_scene_destroy(s);
}

/* Every built-in at 1024^2 and two sizes that are neither square nor powers
 * of two, two seeds; animated scenes at frame 2, stepped on the GPU and on
 * the CPU separately. */
static void check_builtin(const char *name)
{
    QR_REQUIRE_GPU();
    const int sizes[][2] = {{1024, 1024}, {1000, 600}, {333, 777}};
    const uint32_t seeds[] = {0, 1};
    qr_index_params p;
    qr_index_params_default(&p);
    for (int si = 0; si < 2; si++) {
        qr_scene *s = gpu_test_scene(name, seeds[si]);
        if (s->anim != QR_ANIM_NONE) {
            qr_error err;
            QR_CHECK(err, qr_scene_seek_frame(s, 2, &err));
        }
        for (int k = 0; k < 3; k++) {
            char what[128];
            snprintf(what, sizeof what, "%s seed %u %dx%d", name, seeds[si], sizes[k][0], sizes[k][1]);
            compare(s, sizes[k][0], sizes[k][1], &p, what);
        }
        qr_scene_destroy(s);
    }
}

/* Circles larger than the nodes, alone and over crowds of small ones,
 * against the CPU: exact mode to the bit, fast within the bound. */
Test(gpu_render, circles_larger_than_nodes, .timeout = 600)
{
    QR_REQUIRE_GPU();
    compare_default(qr_test_large_circles(12000, 0.3f, 0.6f, 30000, 31), 256, 256, "large + small");
    compare_default(qr_test_large_circles(12000, 0.3f, 0.6f, 0, 32), 300, 170, "large");
    compare_default(qr_test_large_circles(12000, 2.0f, 2.0f, 0, 33), 200, 200, "image-sized");
}

/* A plan (qr_gpu_renderer_plan) on a zoo scene, each mode: it times the
 * candidates of qr_index_plan_candidates in order and chooses the least
 * median; the renderer's timing stays off; the chosen settings' image, on
 * the planning renderer, is the CPU's (exact to the bit, fast within the
 * bound); bad trials are refused. */
Test(gpu_render, plan, .timeout = 600)
{
    QR_REQUIRE_GPU();
    qr_scene *s = gpu_test_scene("zoo:7", 0);
    const int w = 320, h = 256;
    qr_image *cpu = cpu_render_image(s, w, h);
    gpu_session g = gpu_open(s, w, h);
    qr_index_params base, c[QR_PLAN_MAX];
    qr_index_params_default(&base);
    const int n = qr_index_plan_candidates(&base, c, QR_PLAN_MAX);
    qr_error err;
    for (int m = 0; m < 2; m++) {
        const qr_render_mode mode = m ? QR_RENDER_FAST : QR_RENDER_EXACT;
        qr_plan plan;
        QR_CHECK(err, qr_gpu_renderer_plan(g.r, g.gs, &base, mode, 3, &plan, &err));
        cr_assert_eq(plan.candidates, n);
        cr_assert(plan.plan_ms > 0);
        for (int i = 0; i < n; i++) {
            cr_assert(!memcmp(&plan.params[i], &c[i], sizeof c[i]), "candidate %d", i);
            cr_assert(plan.median_ms[i] > 0, "candidate %d: %g ms", i, plan.median_ms[i]);
            cr_assert(plan.median_ms[plan.chosen] <= plan.median_ms[i]);
        }
        qr_frame_timing t;
        cr_assert_eq(qr_gpu_renderer_timing(g.r, &t, &err), QR_ERR_INVALID, "timing left on");
        QR_CHECK(err, qr_gpu_render(g.r, g.gs, &plan.params[plan.chosen], mode, &err));
        QR_CHECK(err, qr_gpu_renderer_download(g.r, g.img, &err));
        long long bad;
        const double d = image_max_diff(g.img, cpu, 0, &bad);
        if (mode == QR_RENDER_EXACT)
            cr_assert(bad < 0, "planned exact frame differs from the CPU at pixel %lld", bad);
        else
            cr_assert(d <= QR_FAST_TOLERANCE, "planned fast frame differs from the CPU by %g", d);
    }
    qr_plan plan;
    cr_assert_eq(qr_gpu_renderer_plan(g.r, g.gs, &base, QR_RENDER_FAST, 0, &plan, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_gpu_renderer_plan(g.r, g.gs, &base, QR_RENDER_FAST, 65, &plan, &err), QR_ERR_INVALID);
    gpu_close(&g);
    qr_image_destroy(cpu);
    qr_scene_destroy(s);
}

/* Regions of more tiles than the tree kernel fills itself (k_fill_tiles
 * fills their tile map, a warp a leaf): dense clusters, so that leaves
 * go below a tile too, and a random mix, against the CPU. */
Test(gpu_render, tile_map_of_large_regions, .timeout = 600)
{
    QR_REQUIRE_GPU();
    compare_default(gpu_test_scene("clustered:300000", 3), 4100, 1100, "clustered 4100x1100");
    compare_default(qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 11, 20000), 2100, 2300,
                    "random 2100x2300");
}

Test(gpu_render, rgb, .timeout = 600) { check_builtin("rgb"); }
Test(gpu_render, rgby, .timeout = 600) { check_builtin("rgby"); }
Test(gpu_render, rand10k, .timeout = 600) { check_builtin("rand10k"); }
Test(gpu_render, rand100k, .timeout = 600) { check_builtin("rand100k"); }
Test(gpu_render, rand1M, .timeout = 600) { check_builtin("rand1M"); }
Test(gpu_render, micro2M, .timeout = 600) { check_builtin("micro2M"); }
Test(gpu_render, biglittle, .timeout = 600) { check_builtin("biglittle"); }
Test(gpu_render, littlebig, .timeout = 600) { check_builtin("littlebig"); }
Test(gpu_render, pattern, .timeout = 600) { check_builtin("pattern"); }
Test(gpu_render, hypnosis, .timeout = 600) { check_builtin("hypnosis"); }
Test(gpu_render, bouncingballs, .timeout = 600) { check_builtin("bouncingballs"); }
Test(gpu_render, fireworks, .timeout = 600) { check_builtin("fireworks"); }
Test(gpu_render, snow, .timeout = 600) { check_builtin("snow"); }
Test(gpu_render, snowsingle, .timeout = 600) { check_builtin("snowsingle"); }

/* The non-uniform scenes at small sizes (their exact images are the CPU
 * reference's bytes), two seeds: a square, one neither square nor a power
 * of two, and one so small that the crowded parts fall in a few pixels. */
/* The default leaves, and leaves below a tile where circles crowd. */
static void check_nonuniform(const char *name)
{
    QR_REQUIRE_GPU();
    const int sizes[][2] = {{256, 256}, {250, 130}, {64, 64}};
    const int leaves[] = {64, 8, QR_MIN_LEAF};
    gpu_each_case(name, sizes, 3, leaves, 3, compare);
}

Test(gpu_render, clusters, .timeout = 600) { check_nonuniform("clusters"); }
Test(gpu_render, spiral, .timeout = 600) { check_nonuniform("spiral"); }
Test(gpu_render, powerlaw, .timeout = 600) { check_nonuniform("powerlaw"); }
Test(gpu_render, hotspot, .timeout = 600) { check_nonuniform("hotspot"); }
Test(gpu_render, roads, .timeout = 600) { check_nonuniform("roads"); }
Test(gpu_render, ring, .timeout = 600) { check_nonuniform("ring"); }
Test(gpu_render, families, .timeout = 600)
{
    check_nonuniform("uniform:10k");
    check_nonuniform("clustered:50k");
}

Test(gpu_render, random_scenes_exact)
{
    QR_REQUIRE_GPU();
    const int sizes[][2] = {{512, 512}, {1000, 700}, {17, 301}, {1, 1}};
    for (uint64_t seed = 1; seed <= 8; seed++) {
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, seed, (int32_t)(seed * 2503 % 12000));
        for (int k = 0; k < 4; k++) {
            qr_index_params p;
            qr_index_params_default(&p);
            p.capacity = (int32_t)(1 + seed * 53 % 400);
            p.min_leaf = QR_MIN_LEAF << (seed % 5);
            char what[96];
            snprintf(what, sizeof what, "random seed %llu %dx%d", (unsigned long long)seed,
                     sizes[k][0], sizes[k][1]);
            compare(s, sizes[k][0], sizes[k][1], &p, what);
        }
        qr_scene_destroy(s);
    }
}

/* The picture's options (random alphas, 0, 1 and 0.5 among them, over
 * random backgrounds; anti-aliased edges and hard ones) against the CPU: exact to the bit (the walk: windows
 * draw plain scenes only, and rand100k, rand1M and biglittle are deep
 * enough for them), fast within the bound; random scenes with small and
 * crowded leaves. */
Test(gpu_render, alpha_and_background, .timeout = 600)
{
    QR_REQUIRE_GPU();
    const char *names[] = {"rand10k", "rand100k", "rand1M", "biglittle", "micro2M"};
    for (int n = 0; n < 5; n++) {
        qr_scene *s = gpu_test_scene(names[n], 0);
        qr_test_random_picture(s, (uint64_t)n + 1);
        char what[96];
        snprintf(what, sizeof what, "%s with alpha and background", names[n]);
        qr_index_params p;
        qr_index_params_default(&p);
        compare(s, 1024, 1024, &p, what);
        s->antialias = 1;
        snprintf(what, sizeof what, "%s with alpha, background and antialias", names[n]);
        compare(s, 333, 777, &p, what);
        compare(s, 1024, 1024, &p, what);
        qr_scene_destroy(s);
    }
    for (uint64_t seed = 1; seed <= 4; seed++) {
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, seed, 9000);
        qr_test_random_picture(s, seed);
        qr_index_params p;
        qr_index_params_default(&p);
        p.min_leaf = QR_MIN_LEAF << (seed % 3);
        p.capacity = (int32_t)(1 + seed * 97 % 300);
        char what[96];
        s->antialias = seed % 2;
        snprintf(what, sizeof what, "random seed %llu with alpha and background (antialias %d)",
                 (unsigned long long)seed, (int)s->antialias);
        compare(s, 512, 512, &p, what);
        compare(s, 17, 301, &p, what);
        qr_scene_destroy(s);
    }
}

/* No background: the alpha channel is the coverage (exact: to the CPU's
 * bit; fast: 1 - T within the bound), on plain and picture scenes, hard and
 * anti-aliased edges, shallow ones (fast mode takes the exact walk) and
 * deep ones, the walk gathered and chunk by chunk, crowded leaves. */
Test(gpu_render, transparent, .timeout = 600)
{
    QR_REQUIRE_GPU();
    qr_error err;
    const char *names[] = {"rgb", "rand10k", "rand100k", "micro2M", "clusters"};
    for (int n = 0; n < 5; n++) {
        qr_scene *s = gpu_test_scene(names[n], 0);
        QR_CHECK(err, qr_scene_set_transparent(s, 1, "background", &err));
        char what[96];
        snprintf(what, sizeof what, "%s without a background", names[n]);
        qr_index_params p;
        qr_index_params_default(&p);
        compare(s, 1024, 1024, &p, what);
        qr_test_random_picture(s, (uint64_t)n + 11);
        QR_CHECK(err, qr_scene_set_transparent(s, 1, "background", &err));
        s->antialias = n % 2;
        snprintf(what, sizeof what, "%s with alpha, no background (antialias %d)", names[n], n % 2);
        compare(s, 333, 777, &p, what);
        qr_scene_destroy(s);
    }
    for (uint64_t seed = 1; seed <= 2; seed++) {
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, seed, 9000);
        qr_test_random_picture(s, seed);
        QR_CHECK(err, qr_scene_set_transparent(s, 1, "background", &err));
        qr_index_params p;
        qr_index_params_default(&p);
        p.capacity = (int32_t)(1 + seed * 97 % 300);
        char what[96];
        snprintf(what, sizeof what, "random seed %llu, no background", (unsigned long long)seed);
        compare(s, 512, 512, &p, what);
        qr_scene_destroy(s);
    }
}

/* Circles of radius at most 1.5 pixels (micro2M's kind): the same image, to
 * the bit, as the CPU — where they spread (about 2 per pixel), where
 * thousands pile onto a few pixels, on the image edges, with colours
 * outside [0, 1]; fast mode within the tolerance. */
Test(gpu_render, tiny_circles_equal_the_cpu, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int sizes[][2] = {{256, 256}, {333, 200}, {97, 611}};
    for (int k = 0; k < 3; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        const float px = 1.0f / (float)(w > h ? w : h); /* a pixel, in scene units */
        const float r[2] = {0.05f * px, 1.5f * px};
        const qr_test_scene_spec spec = {
            .seed = 77 + (uint64_t)k, .n = 2 * w * h, .z = {0.0f, 1.0f},
            .rgb = {{-0.5f, 1.5f}, {0.0f, 1.0f}, {0.0f, 1.0f}}, .num_kinds = 2,
            .kinds = {/* a pile on a few pixels */
                      {1, QR_TEST_PLAIN, {0.3f, 0.3f + 3.0f / w}, {0.6f, 0.6f + 3.0f / h},
                       {r[0], r[1]}},
                      /* anywhere, a little past the edges */
                      {7, QR_TEST_PLAIN, {-0.01f, 1.01f}, {-0.01f, 1.01f}, {r[0], r[1]}}}};
        qr_scene *s = qr_test_scene_generate(&spec);
        char what[64];
        snprintf(what, sizeof what, "tiny circles %dx%d", w, h);
        compare_default(s, w, h, what);
    }
}

/* Geometry that overflows a float draws nothing on the GPU either (the
 * shared cull, common/circle_math.h qr_radius_draws): circles far off the
 * image whose r*r overflows (the issue's `-3e38 3e38 0 3e38 0 1 0`), a huge
 * radius, a finite r*r whose pixel distances overflow. Alone (the
 * single-leaf build) they leave the background in both modes; spread among
 * 20,000 ordinary circles (the general build) the image equals the CPU's,
 * flat and snow. */
Test(gpu_render, overflowing_circles_draw_nothing, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const float far[][3] = {
        {-3e38f, 3e38f, 3e38f}, {3e38f, -3e38f, 3e38f}, {-3e38f, -3e38f, 3e38f},
        {1e30f, 1e30f, 1e30f},  {0.5f, 0.5f, 2e19f},    {-1.5e19f, 1.5e19f, 1.5e19f},
    };
    const int32_t nfar = (int32_t)(sizeof far / sizeof far[0]);
    qr_index_params p;
    qr_index_params_default(&p);
    for (int mixed = 0; mixed < 2; mixed++)
        for (int snow = 0; snow < 2; snow++) {
            qr_scene *s = NULL;
            if (mixed) {
                const qr_test_scene_spec spec = {
                    .seed = 99, .n = 20000, .z = {0.0f, 1.0f},
                    .shading = snow ? QR_SHADE_SNOW : QR_SHADE_FLAT,
                    .rgb = {{0.0f, 1.0f}, {0.0f, 1.0f}, {0.0f, 1.0f}}, .num_kinds = 1,
                    .kinds = {{1, QR_TEST_PLAIN, {0.0f, 1.0f}, {0.0f, 1.0f}, {0.001f, 0.02f}}}};
                s = qr_test_scene_generate(&spec);
            } else {
                qr_error err;
                QR_CHECK(err, qr_scene_create(nfar, QR_ANIM_NONE, &s, &err));
                s->shading = snow ? QR_SHADE_SNOW : QR_SHADE_FLAT;
            }
            for (int32_t k = 0; k < nfar; k++) {
                const int32_t i = mixed ? k * 3001 : k;
                s->x[i] = far[k][0];
                s->y[i] = far[k][1];
                s->r[i] = far[k][2];
                s->z[i] = 0.5f;
                s->red[i] = 0.0f;
                s->green[i] = 1.0f;
                s->blue[i] = 0.0f;
            }
            const int w = 200, h = 120;
            if (!mixed) {
                qr_image *bg = NULL;
                qr_error err;
                QR_CHECK(err, qr_image_create(w, h, &bg, &err));
                qr_image_clear(bg, s->shading);
                for (int m = 0; m < 2; m++) {
                    const qr_render_mode mode = m ? QR_RENDER_FAST : QR_RENDER_EXACT;
                    qr_image *img = gpu_render_image(s, w, h, &p, mode);
                    long long bad;
                    const double d = image_max_diff(img, bg, !m, &bad);
                    /* exact: the background's bytes; fast: its colour within the bound */
                    cr_assert(m ? d <= QR_FAST_TOLERANCE : bad < 0,
                              "%s, %s mode: an overflowing circle drew (pixel %lld, diff %g)",
                              snow ? "snow" : "flat", m ? "fast" : "exact", bad, d);
                    qr_image_destroy(img);
                }
                qr_image_destroy(bg);
            }
            compare(s, w, h, &p, mixed ? "overflowing circles among others" : "overflowing circles");
            qr_scene_destroy(s);
        }
}

/* Snow shading with circles narrower and wider than a render region (the
 * render gathers each warp's circles for the first kind, renderer.cu
 * walk_leaf): both walks within 1e-5 of the CPU, in both modes. */
Test(gpu_render, snow_small_and_large_circles, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int w = 512, h = 384;
    /* mean radius, pixels; the third scene's sub-pixel circles have depths
     * outside [0, 1], so their peak alpha is clamped to 0.5 (z < -0.5) or
     * to 0 (z > 2.5: fast mode stages log2 0 = -inf) */
    const float radii[] = {3.0f, 40.0f, 0.6f};
    for (int k = 0; k < 3; k++) {
        const float r[2] = {0.2f * radii[k] / (float)w, 1.8f * radii[k] / (float)w};
        const qr_test_scene_spec spec = {
            .seed = 5 + (uint64_t)k, .n = k == 0 ? 40000 : k == 1 ? 3000 : 60000,
            .shading = QR_SHADE_SNOW, .z = {k == 2 ? -2.0f : 0.0f, k == 2 ? 3.0f : 1.0f},
            .num_kinds = 1, /* colours 0: snow shading ignores them */
            .kinds = {{1, QR_TEST_PLAIN, {-0.05f, 1.05f}, {-0.05f, 1.05f}, {r[0], r[1]}}}};
        qr_scene *s = qr_test_scene_generate(&spec);
        char what[64];
        snprintf(what, sizeof what, "snow, radius %g px", radii[k]);
        compare_default(s, w, h, what);
    }
}

/* Exact flat blends are one fused multiply-add only where that is exact
 * (qr_gpu_scene.fma_blend): scenes near its edges — subnormal colours, long
 * stacks of black circles that halve a colour towards the subnormal range,
 * negative colours — must still equal the CPU to the bit, walked whole and
 * by windows (depth over three windows). */
Test(gpu_render, fused_blend_edges_equal_the_cpu, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int w = 160, h = 96;
    for (int kind = 0; kind < 3; kind++)
        for (int deep = 0; deep < 2; deep++) {
            qr_error err;
            qr_scene *s = NULL;
            const int32_t n = deep ? 600 : 140;
            QR_CHECK(err, qr_scene_create(n, QR_ANIM_NONE, &s, &err));
            qr_test_rng st = qr_test_rng_seed(11 + kind);
            for (int32_t i = 0; i < n; i++) {
                s->x[i] = qr_test_rng_float(&st, 0.3f, 0.7f);
                s->y[i] = qr_test_rng_float(&st, 0.2f, 0.5f);
                s->r[i] = qr_test_rng_float(&st, 0.3f, 0.6f);
                s->z[i] = qr_test_rng_float(&st, 0.0f, 1.0f);
                s->green[i] = qr_test_rng_float(&st, 0.0f, 1.0f);
                s->blue[i] = qr_test_rng_float(&st, 0.0f, 1.0f);
                if (kind == 0) /* subnormal and tiny reds: 0.5 c is inexact there */
                    s->red[i] = (float)(1 + 2 * (int)qr_test_rng_below(&st, 50)) * 0x1p-149f;
                else if (kind == 1) /* black stacks: most circles halve red */
                    s->red[i] = qr_test_rng_below(&st, 8) ? 0.0f : 0x1p-40f;
                else
                    s->red[i] = qr_test_rng_float(&st, -1.0f, 1.0f);
            }
            char what[64];
            snprintf(what, sizeof what, "blend edge %d, %d circles", kind, n);
            compare_default(s, w, h, what);
        }
}

/* The index (quadtree parameters, or the uniform grid) changes the work,
 * never the picture: a pixel blends the circles covering it in the same
 * order whatever list they came from, in both modes. */
Test(gpu_render, index_does_not_change_the_image)
{
    QR_REQUIRE_GPU();
    const char *names[] = {"rand100k", "biglittle", "snowsingle"};
    for (int n = 0; n < 3; n++) {
        qr_scene *s = gpu_test_scene(names[n], 0);
        for (int mode = 0; mode < 2; mode++) {
            qr_index_params p;
            qr_index_params_default(&p);
            qr_image *ref = gpu_render_image(s, 800, 600, &p, (qr_render_mode)mode);
            const int caps[] = {1, 64, 4096, 1 << 30};
            for (int k = 0; k < 4; k++)
                for (int leaf = QR_MIN_LEAF; leaf <= 128; leaf *= 2)
                    for (int uniform = 0; uniform < 2; uniform++) {
                        p.capacity = caps[k];
                        p.min_leaf = leaf;
                        p.uniform = uniform;
                        qr_image *img = gpu_render_image(s, 800, 600, &p, (qr_render_mode)mode);
                        cr_assert(memcmp(img->rgba, ref->rgba, (size_t)800 * 600 * 16) == 0,
                                  "%s %s: cap %d leaf %d %s changes the image", names[n],
                                  mode ? "exact" : "fast", caps[k], leaf, uniform ? "grid" : "quadtree");
                        qr_image_destroy(img);
                    }
            qr_image_destroy(ref);
        }
        qr_scene_destroy(s);
    }
}

/* The same where circles crowd: the default quadtree goes below min_leaf
 * there (work items, fine cells), and its image equals every grid's and
 * the no-deep quadtree's, byte for byte, in both modes. */
Test(gpu_render, crowded_index_does_not_change_the_image, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const char *names[] = {"clusters", "hotspot", "clustered:300k"};
    const int sizes[][2] = {{1024, 1024}, {500, 700}};
    for (int n = 0; n < 3; n++) {
        qr_scene *s = gpu_test_scene(names[n], 1);
        for (int k = 0; k < 2; k++) {
            const int w = sizes[k][0], h = sizes[k][1];
            for (int mode = 0; mode < 2; mode++) {
                qr_index_params p;
                qr_index_params_default(&p);
                qr_image *ref = gpu_render_image(s, w, h, &p, (qr_render_mode)mode);
                for (int v = 0; v < 4; v++) {
                    qr_index_params q;
                    qr_index_params_default(&q);
                    if (v == 0) q.deep_leaf = 0;
                    else if (v == 1) q.deep_leaf = 8;
                    else {
                        q.uniform = 1;
                        q.min_leaf = v == 2 ? 16 : 64;
                    }
                    qr_image *img = gpu_render_image(s, w, h, &q, (qr_render_mode)mode);
                    cr_assert(memcmp(img->rgba, ref->rgba, (size_t)w * h * 16) == 0,
                              "%s %dx%d %s: variant %d changes the image", names[n], w, h,
                              mode ? "exact" : "fast", v);
                    qr_image_destroy(img);
                }
                qr_image_destroy(ref);
            }
        }
        qr_scene_destroy(s);
    }
}

Test(gpu_render, deterministic)
{
    QR_REQUIRE_GPU();
    const char *names[] = {"rand1M", "snowsingle", "biglittle"};
    qr_index_params p;
    qr_index_params_default(&p);
    for (int k = 0; k < 3; k++) {
        qr_scene *s = gpu_test_scene(names[k], 0);
        for (int mode = 0; mode < 2; mode++) {
            qr_image *a = gpu_render_image(s, 1024, 1024, &p, (qr_render_mode)mode);
            qr_image *b = gpu_render_image(s, 1024, 1024, &p, (qr_render_mode)mode);
            cr_assert(memcmp(a->rgba, b->rgba, (size_t)1024 * 1024 * 16) == 0,
                      "%s mode %d: two renders differ", names[k], mode);
            qr_image_destroy(a);
            qr_image_destroy(b);
        }
        qr_scene_destroy(s);
    }
}

/* A sequence stepped on the GPU equals the CPU-stepped scene frame by frame:
 * same circle bits after each step, same exact image. */
Test(gpu_render, animation_steps_match_the_cpu)
{
    QR_REQUIRE_GPU();
    const char *names[] = {"hypnosis", "bouncingballs", "fireworks", "snow"};
    qr_index_params p;
    qr_index_params_default(&p);
    for (int k = 0; k < 4; k++) {
        qr_error err;
        qr_scene *cpu = gpu_test_scene(names[k], 0);
        qr_scene *back = NULL;
        qr_gpu_scene *gs = NULL;
        qr_gpu_renderer *r = NULL;
        qr_image *img = NULL;
        QR_CHECK(err, qr_scene_clone(cpu, &back, &err));
        QR_CHECK(err, qr_gpu_scene_create(cpu, &gs, &err));
        QR_CHECK(err, qr_gpu_renderer_create(300, 200, &r, &err));
        QR_CHECK(err, qr_image_create(300, 200, &img, &err));
        for (int frame = 0; frame < 90; frame++) {
            qr_scene_step(cpu);
            QR_CHECK(err, qr_gpu_scene_step(gs, &err));
            if (frame % 15 != 14) continue;
            QR_CHECK(err, qr_gpu_scene_download(gs, back, &err));
            cr_assert(memcmp(back->block, cpu->block, cpu->block_floats * sizeof(float)) == 0,
                      "%s: GPU state differs from the CPU after %d steps", names[k], frame + 1);
            QR_CHECK(err, qr_gpu_render(r, gs, &p, QR_RENDER_EXACT, &err));
            QR_CHECK(err, qr_gpu_renderer_download(r, img, &err));
            qr_image *ref = cpu_render_image(cpu, 300, 200);
            long long bad;
            double d = image_max_diff(img, ref, 1, &bad);
            cr_assert(cpu->shading == QR_SHADE_SNOW ? d <= 1e-5 : bad < 0,
                      "%s frame %d: GPU image differs (%g)", names[k], frame, d);
            qr_image_destroy(ref);
        }
        qr_image_destroy(img);
        qr_gpu_renderer_destroy(r);
        qr_gpu_scene_destroy(gs);
        qr_scene_destroy(back);
        qr_scene_destroy(cpu);
    }
}

/* One renderer, scenes whose pair counts grow and shrink: a build that runs
 * ahead into buffers sized for a smaller scene must notice, build again and
 * render again; one into larger buffers pads the unused slots. Every image
 * stays bit-identical to the CPU, every index equal to the oracle. */
static void grow_and_shrink(int w, int h, int min_leaf)
{
    const char *names[] = {"rgb", "rand10k", "rand1M", "rand100k", "pattern", "biglittle", "rgb"};
    qr_error err;
    qr_gpu_renderer *r = NULL;
    qr_image *img = NULL;
    qr_index_params p;
    qr_index_params_default(&p);
    p.min_leaf = min_leaf;
    QR_CHECK(err, qr_gpu_renderer_create(w, h, &r, &err));
    QR_CHECK(err, qr_image_create(w, h, &img, &err));
    for (int k = 0; k < 7; k++) {
        qr_scene *s = gpu_test_scene(names[k], 0);
        qr_gpu_scene *gs = NULL;
        QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
        for (int rep = 0; rep < 2; rep++) {
            QR_CHECK(err, qr_gpu_render(r, gs, &p, QR_RENDER_EXACT, &err));
            QR_CHECK(err, qr_gpu_renderer_download(r, img, &err));
            qr_image *ref = cpu_render_image(s, w, h);
            long long bad;
            image_max_diff(img, ref, 1, &bad);
            cr_assert(bad < 0, "%s %dx%d leaf %d (render %d after %s): differs from the CPU at pixel %lld",
                      names[k], w, h, min_leaf, rep, k ? names[k - 1] : "nothing", bad);
            qr_image_destroy(ref);
            /* an exact render reads every list whole: its index is exact mode's */
            assert_index_matches_oracle(qr_gpu_renderer_index(r), s, w, h, NULL, &p,
                                        QR_RENDER_EXACT, names[k]);
        }
        qr_gpu_scene_destroy(gs);
        qr_scene_destroy(s);
    }
    qr_image_destroy(img);
    qr_gpu_renderer_destroy(r);
}

Test(gpu_render, list_buffers_grow_and_shrink)
{
    QR_REQUIRE_GPU();
    grow_and_shrink(640, 480, 64);
}

/* The same with 9, 10 and 11 key bits (300, 1024 and 1200 cells): a build
 * that outgrows its buffers is caught by the lists stage (up to 1024
 * leaves) or by CUB's sort of padded slots, and redone. */
Test(gpu_render, list_buffers_grow_and_shrink_many_leaves, .timeout = 300)
{
    QR_REQUIRE_GPU();
    grow_and_shrink(640, 480, 32);
    grow_and_shrink(512, 512, 16);
    grow_and_shrink(640, 480, 16);
}

/* A frame is one graph: the build, then the render behind it. When the
 * single-leaf kernel finds that the root splits after all, the render queued
 * behind it must skip, and the general build, redone, must queue the render
 * again: every frame of a sequence that goes from one leaf to many and back
 * equals the CPU (exact) and stays within the tolerance (fast), with each
 * build taken the way the sequence says. */
Test(gpu_render, single_leaf_hand_over_renders_again)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_scene *s = gpu_test_scene("pattern", 0);
    qr_gpu_scene *gs = NULL;
    qr_gpu_renderer *r = NULL;
    qr_image *img = NULL;
    QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
    QR_CHECK(err, qr_gpu_renderer_create(480, 320, &r, &err));
    QR_CHECK(err, qr_image_create(480, 320, &img, &err));
    qr_image *ref = cpu_render_image(s, 480, 320);
    qr_index_params one, split;
    qr_index_params_default(&one);
    split = one;
    split.capacity = 64; /* pattern's 545 visible circles split the root */
    split.split_cost = 0;
    /* each frame's parameters (a fast and an exact render of each), and how
     * each render's build must have gone (qr_gpu_index_single_kernel): the
     * one-kernel build is tried once the last tree was one leaf */
    const qr_index_params *seq[] = {&one, &one, &split, &split, &one, &one, &split};
    const int way[14] = {0, 1, 1, 1, -1, 0, 0, 0, 0, 1, 1, 1, -1, 0};
    for (int c = 0; c < 14; c++) {
        const int f = c / 2, mode = c % 2;
        QR_CHECK(err, qr_gpu_render(r, gs, seq[f], (qr_render_mode)mode, &err));
        const int got = qr_gpu_index_single_kernel(qr_gpu_renderer_index(r));
        cr_assert_eq(got, way[c], "render %d: the build went %d, not %d", c, got, way[c]);
        QR_CHECK(err, qr_gpu_renderer_download(r, img, &err));
        long long bad;
        const double d = image_max_diff(img, ref, mode == QR_RENDER_EXACT, &bad);
        if (mode == QR_RENDER_EXACT)
            cr_assert(bad < 0, "render %d (exact): differs from the CPU at pixel %lld", c, bad);
        else
            cr_assert(d <= QR_FAST_TOLERANCE, "render %d (fast): differs from the CPU by %g", c, d);
    }
    qr_image_destroy(ref);
    qr_image_destroy(img);
    qr_gpu_renderer_destroy(r);
    qr_gpu_scene_destroy(gs);
    qr_scene_destroy(s);
}

/* Builds after the first run as one CUDA graph (or, for a single leaf, one
 * kernel). Over an animated sequence
 * (pair counts drift, so the graph is kept, updated or recaptured) every
 * graph build must equal the host oracle and render the same bytes as
 * direct launches, with per-stage timing on (event nodes in the graph). */
Test(gpu_render, graph_builds_match_direct_launches, .timeout = 600)
{
    QR_REQUIRE_GPU();
    const char *names[] = {"fireworks", "snow", "bouncingballs"};
    qr_index_params p;
    qr_index_params_default(&p);
    p.capacity = 64; /* a deeper, changing tree */
    p.min_leaf = 16;
    for (int k = 0; k < 3; k++) {
        qr_error err;
        qr_scene *cpu = gpu_test_scene(names[k], 0);
        qr_gpu_scene *gs = NULL;
        qr_gpu_renderer *rg = NULL, *rd = NULL;
        qr_image *a = NULL, *b = NULL;
        QR_CHECK(err, qr_gpu_scene_create(cpu, &gs, &err));
        QR_CHECK(err, qr_gpu_renderer_create(300, 200, &rg, &err));
        QR_CHECK(err, qr_gpu_renderer_create(300, 200, &rd, &err));
        qr_gpu_renderer_set_graph(rd, 0);
        qr_gpu_renderer_set_timing(rg, QR_TIMING_STAGES);
        QR_CHECK(err, qr_image_create(300, 200, &a, &err));
        QR_CHECK(err, qr_image_create(300, 200, &b, &err));
        int graphs = 0, singles = 0;
        for (int frame = 0; frame < 40; frame++) {
            const qr_render_mode mode = frame % 2 ? QR_RENDER_FAST : QR_RENDER_EXACT;
            QR_CHECK(err, qr_gpu_render(rg, gs, &p, mode, &err));
            graphs += qr_gpu_renderer_uses_graph(rg);
            singles += qr_gpu_index_single_kernel(qr_gpu_renderer_index(rg)) == 1;
            qr_frame_timing t;
            QR_CHECK(err, qr_gpu_renderer_timing(rg, &t, &err));
            cr_assert(t.frame_ms > 0 && t.build.total_ms > 0 && t.render_ms > 0,
                      "%s frame %d: timing %g %g %g", names[k], frame, t.frame_ms,
                      t.build.total_ms, t.render_ms);
            QR_CHECK(err, qr_gpu_renderer_download(rg, a, &err));
            QR_CHECK(err, qr_gpu_render(rd, gs, &p, mode, &err));
            cr_assert(!qr_gpu_renderer_uses_graph(rd));
            QR_CHECK(err, qr_gpu_renderer_download(rd, b, &err));
            cr_assert(memcmp(a->rgba, b->rgba, (size_t)300 * 200 * 16) == 0,
                      "%s frame %d: graph and direct renders differ", names[k], frame);
            assert_index_matches_oracle(qr_gpu_renderer_index(rg), cpu, 300, 200, NULL, &p, mode,
                                        names[k]);
            qr_scene_step(cpu);
            QR_CHECK(err, qr_gpu_scene_step(gs, &err));
        }
        /* bouncingballs' ten circles make one leaf: the single-leaf kernel */
        cr_assert(graphs + singles >= 30 && (k == 2 || graphs >= 30),
                  "%s: only %d of 40 builds ran as a graph (%d as one kernel)", names[k], graphs, singles);
        qr_image_destroy(a);
        qr_image_destroy(b);
        qr_gpu_renderer_destroy(rg);
        qr_gpu_renderer_destroy(rd);
        qr_gpu_scene_destroy(gs);
        qr_scene_destroy(cpu);
    }
}

/* Exact mode's windows (render_windows.cu): whatever the first window, from one
 * circle (almost every pixel doubles it many times over) to whole lists,
 * the image is the full walk's to the bit, alpha included, and the CPU's.
 * Random scenes have colours in [-0.5, 1.5], whose values near zero make the
 * two runs meet late. */
static qr_image *render_window(const qr_scene *s, int w, int h, int window)
{
    qr_error err;
    qr_index_params p;
    qr_index_params_default(&p);
    gpu_session g = gpu_open(s, w, h);
    qr_gpu_renderer_set_exact_window(g.r, window);
    QR_CHECK(err, qr_gpu_render(g.r, g.gs, &p, QR_RENDER_EXACT, &err));
    QR_CHECK(err, qr_gpu_renderer_download(g.r, g.img, &err));
    qr_image *img = g.img;
    g.img = NULL;
    gpu_close(&g);
    return img;
}

Test(gpu_render, exact_windows_equal_the_full_walk, .timeout = 600)
{
    QR_REQUIRE_GPU();
    const char *names[] = {"rand100k", "biglittle", "rand1M", "micro2M", "random 3", "random 7"};
    const int windows[] = {1, 3, 20, QR_EXACT_WINDOW, 100000};
    for (int n = 0; n < 6; n++) {
        qr_scene *s = n < 4 ? gpu_test_scene(names[n], 0)
                            : qr_test_random_scene(QR_TEST_MIX_RENDERABLE, n == 4 ? 3 : 7, 9000);
        const int w = n % 2 ? 333 : 800, h = n % 2 ? 777 : 600;
        qr_image *full = render_window(s, w, h, 0);
        qr_image *cpu = cpu_render_image(s, w, h);
        long long bad;
        image_max_diff(full, cpu, 1, &bad);
        cr_assert(bad < 0, "%s: the full walk differs from the CPU at pixel %lld", names[n], bad);
        for (int k = 0; k < 5; k++) {
            qr_image *img = render_window(s, w, h, windows[k]);
            image_max_diff(img, full, 1, &bad);
            cr_assert(bad < 0, "%s, first window %d: differs from the full walk at pixel %lld",
                      names[n], windows[k], bad);
            qr_image_destroy(img);
        }
        qr_image_destroy(full);
        qr_image_destroy(cpu);
        qr_scene_destroy(s);
    }
}

/* The coverage count (cover_count.cu) settles each row's covered columns
 * with exact tests next to a square root's estimate: circles centred on
 * pixel centres and corners with radii of whole and half pixels put pixel
 * centres on and within rounding of their edges; in the second image,
 * circles over 512 columns wide take the count's other path. Windowed exact
 * mode (first window 1 and the default) must equal the CPU to the bit,
 * alpha (the count) included. */
Test(gpu_render, exact_counts_on_pixel_edges, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int sizes[][2] = {{256, 256}, {1100, 300}};
    for (int k = 0; k < 2; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        const int32_t n = k == 0 ? 1500 : 3040;
        qr_error err;
        qr_scene *s = NULL;
        QR_CHECK(err, qr_scene_create(n, QR_ANIM_NONE, &s, &err));
        qr_test_rng st = qr_test_rng_seed(31 + k);
        for (int32_t i = 0; i < n; i++) {
            const float fx = (float)qr_test_rng_below(&st, (uint32_t)w);
            const float fy = (float)qr_test_rng_below(&st, (uint32_t)h);
            const float off = qr_test_rng_below(&st, 2) ? 0.5f : 0.0f; /* a pixel's centre or its corner */
            s->x[i] = (fx + off) / (float)w;
            s->y[i] = (fy + off) / (float)h;
            s->r[i] = (float)(1 + qr_test_rng_below(&st, 40)) * 0.5f / (float)w;
            if (k == 1 && i < 40) s->r[i] = qr_test_rng_float(&st, 0.47f, 0.6f); /* 517 to 660 columns */
            s->z[i] = qr_test_rng_float(&st, 0.0f, 1.0f);
            s->red[i] = qr_test_rng_float(&st, 0.0f, 1.0f);
            s->green[i] = qr_test_rng_float(&st, 0.0f, 1.0f);
            s->blue[i] = qr_test_rng_float(&st, 0.0f, 1.0f);
        }
        qr_image *cpu = cpu_render_image(s, w, h);
        const int windows[] = {1, QR_EXACT_WINDOW};
        for (int m = 0; m < 2; m++) {
            qr_image *img = render_window(s, w, h, windows[m]);
            long long bad;
            image_max_diff(img, cpu, 1, &bad);
            cr_assert(bad < 0, "%dx%d, first window %d: differs from the CPU at pixel %lld (alpha %g, CPU %g)",
                      w, h, windows[m], bad, bad < 0 ? 0.0 : (double)img->rgba[4 * bad + 3],
                      bad < 0 ? 0.0 : (double)cpu->rgba[4 * bad + 3]);
            qr_image_destroy(img);
        }
        qr_image_destroy(cpu);
        qr_scene_destroy(s);
    }
}

/* The tail kernel's blocks take their regions in an order the last
 * frame's kernel measured (region_order.cu, take_region): one renderer over
 * frames of both modes, on a deep scene whose regions differ much in cost
 * (a dense corner of small circles over hundreds of big ones), every frame
 * as the CPU renders it. */
Test(gpu_render, region_order_from_the_last_frame, .timeout = 300)
{
    QR_REQUIRE_GPU();
    qr_error err;
    const qr_test_scene_spec spec = {
        .seed = 4242, .n = 24000, .z = {0.0f, 1.0f},
        .rgb = {{0.0f, 1.0f}, {0.0f, 1.0f}, {0.0f, 1.0f}}, .num_kinds = 2,
        .kinds = {{1, QR_TEST_PLAIN, {0.0f, 1.0f}, {0.0f, 1.0f}, {0.1f, 0.3f}},
                  {7, QR_TEST_PLAIN, {0.0f, 0.25f}, {0.75f, 1.0f}, {0.0005f, 0.003f}}}};
    qr_scene *s = qr_test_scene_generate(&spec);
    const int sizes[][2] = {{1024, 1024}, {1000, 600}};
    for (int k = 0; k < 2; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        qr_image *cpu = cpu_render_image(s, w, h);
        qr_index_params p;
        qr_index_params_default(&p);
        gpu_session g = gpu_open(s, w, h);
        for (int f = 0; f < 6; f++) {
            const qr_render_mode mode = f % 3 == 2 ? QR_RENDER_FAST : QR_RENDER_EXACT;
            QR_CHECK(err, qr_gpu_render(g.r, g.gs, &p, mode, &err));
            QR_CHECK(err, qr_gpu_renderer_download(g.r, g.img, &err));
            long long bad;
            const double d = image_max_diff(g.img, cpu, mode == QR_RENDER_EXACT, &bad);
            if (mode == QR_RENDER_EXACT)
                cr_assert(bad < 0, "%dx%d frame %d: exact differs from the CPU at pixel %lld (%g)", w, h, f, bad, d);
            else
                cr_assert(d <= QR_FAST_TOLERANCE, "%dx%d frame %d: fast differs from the CPU by %g", w, h, f, d);
        }
        qr_image_destroy(cpu);
        gpu_close(&g);
    }
    qr_scene_destroy(s);
}
