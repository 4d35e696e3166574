/* test_gpu_index.c — the GPU quadtree equals the host oracle, exactly.
 * Needs a GPU; skips with the reason elsewhere. */
#include "gpu/tuning.h"
#include "gpu_util.h"

/* Builds for a render in `mode` on the GPU and on the host and compares
 * everything. */
static void check_index_mode(const qr_scene *s, int w, int h, const qr_rect *region,
                             const qr_index_params *p, qr_render_mode mode, const char *what)
{
    qr_error err;
    qr_gpu_scene *gs = NULL;
    qr_gpu_index *gi = NULL;
    qr_index *host = NULL, *dev = NULL;
    QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
    QR_CHECK(err, qr_gpu_index_create(&gi, &err));
    QR_CHECK(err, qr_gpu_index_build(gi, gs, w, h, region, p, mode, &err));
    QR_CHECK(err, qr_gpu_index_download(gi, &dev, &err));
    QR_CHECK(err, qr_index_build_host(s, w, h, region, p, mode, &host, &err));
    assert_same_index(dev, host, what);
    qr_index_destroy(dev);
    /* a second build into the same buffers gives the same bytes */
    QR_CHECK(err, qr_gpu_index_build(gi, gs, w, h, region, p, mode, &err));
    QR_CHECK(err, qr_gpu_index_download(gi, &dev, &err));
    assert_same_index(dev, host, what);
    qr_index_destroy(dev);
    qr_index_destroy(host);
    qr_gpu_index_destroy(gi);
    qr_gpu_scene_destroy(gs);
}

/* check_index_mode of fast mode's index (the render default). */
static void check_index(const qr_scene *s, int w, int h, const qr_rect *region,
                        const qr_index_params *p, const char *what)
{
    check_index_mode(s, w, h, region, p, QR_RENDER_FAST, what);
}

static void check_builtin(const char *name)
{
    QR_REQUIRE_GPU();
    const int sizes[][2] = {{1024, 1024}, {640, 480}, {333, 1000}, {100, 37}};
    const uint32_t seeds[] = {0, 5};
    qr_index_params p;
    qr_index_params_default(&p);
    for (int si = 0; si < 2; si++) {
        qr_scene *s = gpu_test_scene(name, seeds[si]);
        for (int k = 0; k < 4; k++) {
            char what[128];
            snprintf(what, sizeof what, "%s seed %u %dx%d", name, seeds[si], sizes[k][0], sizes[k][1]);
            check_index(s, sizes[k][0], sizes[k][1], NULL, &p, what);
        }
        qr_scene_destroy(s);
    }
}

Test(gpu_index, rgb) { check_builtin("rgb"); }
Test(gpu_index, rgby) { check_builtin("rgby"); }
Test(gpu_index, rand10k) { check_builtin("rand10k"); }
Test(gpu_index, rand100k) { check_builtin("rand100k"); }
Test(gpu_index, rand1M) { check_builtin("rand1M"); }
Test(gpu_index, micro2M) { check_builtin("micro2M"); }
Test(gpu_index, biglittle) { check_builtin("biglittle"); }
Test(gpu_index, littlebig) { check_builtin("littlebig"); }
Test(gpu_index, pattern) { check_builtin("pattern"); }
Test(gpu_index, hypnosis) { check_builtin("hypnosis"); }
Test(gpu_index, bouncingballs) { check_builtin("bouncingballs"); }
Test(gpu_index, fireworks) { check_builtin("fireworks"); }
Test(gpu_index, snow) { check_builtin("snow"); }
Test(gpu_index, snowsingle) { check_builtin("snowsingle"); }

/* One index builds scene after scene: its cells follow the last tree
 * (coarser where leaves are large, min_leaf's, the floor's where circles
 * crowd), and a build whose cells were too coarse is redone finer. Every
 * build equals the oracle, twice in a row and after each change. */
Test(gpu_index, cells_follow_the_scenes, .timeout = 300)
{
    QR_REQUIRE_GPU();
    /* (powerlaw and biglittle at 4096^2: circles whose boxes span more than
     * QR_WARP_CELLS cells, walked by a warp each in the pairs stage) */
    const char *names[] = {"rand100k", "clusters", "rand10k", "clusters", "biglittle", "hotspot",
                           "rand1M", "spiral", "rand100k", "powerlaw", "biglittle"};
    const int sizes[] = {4096, 1024, 1024, 4096, 1024, 1024, 2048, 1024, 512, 4096, 4096};
    qr_error err;
    qr_gpu_index *gi = NULL;
    QR_CHECK(err, qr_gpu_index_create(&gi, &err));
    qr_index_params p;
    qr_index_params_default(&p);
    for (int k = 0; k < 11; k++) {
        qr_scene *s = gpu_test_scene(names[k], 0);
        qr_gpu_scene *gs = NULL;
        QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
        qr_index *host = NULL;
        QR_CHECK(err, qr_index_build_host(s, sizes[k], sizes[k], NULL, &p, QR_RENDER_FAST, &host,
                                          &err));
        for (int rep = 0; rep < 3; rep++) {
            qr_index *dev = NULL;
            QR_CHECK(err, qr_gpu_index_build(gi, gs, sizes[k], sizes[k], NULL, &p, QR_RENDER_FAST,
                                             &err));
            QR_CHECK(err, qr_gpu_index_download(gi, &dev, &err));
            char what[96];
            snprintf(what, sizeof what, "%s %d, build %d after %s", names[k], sizes[k], rep,
                     k ? names[k - 1] : "nothing");
            assert_same_index(dev, host, what);
            qr_index_destroy(dev);
        }
        qr_index_destroy(host);
        qr_gpu_scene_destroy(gs);
        qr_scene_destroy(s);
    }
    qr_gpu_index_destroy(gi);
}

/* Circles larger than the nodes, alone and over crowds of small ones: the
 * rule that splits no node it cannot shorten (qr_split_shortens) decides
 * alike on the GPU, in both modes, at the sizes where splitting them down
 * would have made billions of pairs. */
Test(gpu_index, circles_larger_than_nodes, .timeout = 300)
{
    QR_REQUIRE_GPU();
    qr_index_params p;
    qr_index_params_default(&p);
    const float radii[][2] = {{0.3f, 0.6f}, {2.0f, 2.0f}, {0.3f, 0.6f}};
    const int32_t small[] = {0, 0, 300000};
    for (int c = 0; c < 3; c++) {
        qr_scene *s = qr_test_large_circles(100000, radii[c][0], radii[c][1], small[c], 21 + c);
        for (int k = 0; k < 4; k++) {
            const int side = k < 2 ? 1024 : 4096;
            const qr_render_mode m = k % 2 ? QR_RENDER_EXACT : QR_RENDER_FAST;
            char what[128];
            snprintf(what, sizeof what, "large circles case %d %d^2 %s", c, side,
                     k % 2 ? "exact" : "fast");
            check_index_mode(s, side, side, NULL, &p, m, what);
        }
        qr_scene_destroy(s);
    }
}

/* The non-uniform scenes: their crowded parts make the deepest trees. */
/* check_index of the whole image (gpu_each_case's check). */
static void check_whole(const qr_scene *s, int w, int h, const qr_index_params *p, const char *what)
{
    check_index(s, w, h, NULL, p, what);
}

/* The default leaves, and leaves down to QR_MIN_LEAF where circles crowd. */
static void check_nonuniform(const char *name)
{
    QR_REQUIRE_GPU();
    const int sizes[][2] = {{1024, 1024}, {256, 256}, {250, 130}};
    const int leaves[] = {64, 16, 8, QR_MIN_LEAF};
    gpu_each_case(name, sizes, 3, leaves, 4, check_whole);
}

Test(gpu_index, clusters, .timeout = 300) { check_nonuniform("clusters"); }
Test(gpu_index, spiral, .timeout = 300) { check_nonuniform("spiral"); }
Test(gpu_index, powerlaw, .timeout = 300) { check_nonuniform("powerlaw"); }
Test(gpu_index, hotspot, .timeout = 300) { check_nonuniform("hotspot"); }
Test(gpu_index, roads, .timeout = 300) { check_nonuniform("roads"); }
Test(gpu_index, ring, .timeout = 300) { check_nonuniform("ring"); }

Test(gpu_index, random_scenes)
{
    QR_REQUIRE_GPU();
    const int sizes[][2] = {{512, 512}, {1000, 700}, {17, 301}, {1, 1}, {2048, 64}};
    for (uint64_t seed = 1; seed <= 12; seed++) {
        const int32_t n = (int32_t)(seed * seed * 337 % 20000);
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, seed, n);
        for (int k = 0; k < 5; k++) {
            qr_index_params p;
            qr_index_params_default(&p);
            p.capacity = (int32_t)(1 + (seed * 37 + k) % 200);
            p.min_leaf = QR_MIN_LEAF << ((seed + k) % 5);
            p.max_depth = (int32_t)((seed + 2 * k) % 9);
            p.max_leaf = (seed + k) % 4 == 0 ? 0 : 16 << ((seed + k) % 4);
            p.split_cost = (seed + k) % 3 == 0 ? 0 : (int32_t)(5 * ((seed * 7 + k) % 41));
            const qr_render_mode mode = (seed + k) % 2 ? QR_RENDER_FAST : QR_RENDER_EXACT;
            char what[160];
            snprintf(what, sizeof what,
                     "random seed %llu %dx%d cap %d leaf %d depth %d cost %d %s mode",
                     (unsigned long long)seed, sizes[k][0], sizes[k][1], p.capacity, p.min_leaf,
                     p.max_depth, p.split_cost, mode == QR_RENDER_FAST ? "fast" : "exact");
            check_index_mode(s, sizes[k][0], sizes[k][1], NULL, &p, mode, what);
        }
        qr_scene_destroy(s);
    }
}

Test(gpu_index, uniform_grid_and_regions)
{
    QR_REQUIRE_GPU();
    qr_scene *s = gpu_test_scene("rand10k", 3);
    qr_index_params p;
    qr_index_params_default(&p);
    p.uniform = 1;
    for (int leaf = 16; leaf <= 64; leaf *= 2) {
        p.min_leaf = leaf;
        check_index(s, 1024, 768, NULL, &p, "uniform grid");
    }
    qr_index_params_default(&p);
    const qr_rect regions[] = {{0, 0, 1024, 256}, {0, 256, 1024, 512}, {100, 200, 357, 999}, {1023, 1023, 1024, 1024}};
    for (int k = 0; k < 4; k++)
        check_index(s, 1024, 1024, &regions[k], &p, "region");
    qr_scene_destroy(s);
}

/* The lists stage (lists.cu) takes up to 1024 leaves in one pass, CUB's
 * radix sort the rest: lists equal the oracle's at 9 and 10 key bits, with
 * one work slot per emit thread and with four (micro2M: two million
 * slots), and past 10 bits. The first build of each check_index sizes its
 * buffers exactly; the second is the ahead one. */
Test(gpu_index, lists_of_many_leaves, .timeout = 600)
{
    QR_REQUIRE_GPU();
    qr_index_params p;
    qr_index_params_default(&p);
    qr_scene *s = gpu_test_scene("micro2M", 0);
    p.min_leaf = 32;
    check_index(s, 1024, 1024, NULL, &p, "micro2M, 32-pixel leaves (10 key bits)");
    check_index(s, 1024, 512, NULL, &p, "micro2M 1024 x 512, 32-pixel leaves (9 key bits)");
    p.uniform = 1;
    check_index(s, 1024, 1024, NULL, &p, "micro2M, 32-pixel grid (10 key bits)");
    p.min_leaf = 16;
    check_index(s, 1024, 1024, NULL, &p, "micro2M, 16-pixel grid (12 key bits: CUB's sort)");
    qr_scene_destroy(s);
    qr_index_params_default(&p);
    s = gpu_test_scene("rand1M", 1);
    check_index(s, 2048, 2048, NULL, &p, "rand1M at 2048 x 2048 (10 key bits)");
    qr_scene_destroy(s);
    s = gpu_test_scene("biglittle", 0);
    p.min_leaf = 16;
    p.capacity = 64;
    check_index(s, 512, 512, NULL, &p, "biglittle 512 x 512, 16-pixel leaves (10 key bits)");
    check_index(s, 1024, 1024, NULL, &p, "biglittle, 16-pixel leaves (12 key bits: CUB's sort)");
    qr_scene_destroy(s);
}

Test(gpu_index, empty_and_all_culled)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_scene *s = NULL;
    qr_index_params p;
    qr_index_params_default(&p);
    QR_CHECK(err, qr_scene_create(0, QR_ANIM_NONE, &s, &err));
    check_index(s, 256, 256, NULL, &p, "empty scene");
    qr_scene_destroy(s);
    QR_CHECK(err, qr_scene_create(3, QR_ANIM_NONE, &s, &err));
    for (int i = 0; i < 3; i++) {
        s->x[i] = 3.0f + i;
        s->y[i] = 0.5f;
        s->r[i] = 0.1f;
    }
    check_index(s, 256, 256, NULL, &p, "all off-screen");
    qr_scene_destroy(s);
}

/* A scene whose tree was one leaf is built next time by one kernel
 * (qr_launch_single_leaf). It must equal the oracle wherever it applies,
 * including a root that holds more circles than the capacity but whose
 * split does not pay (the split cost rule, decided inside that kernel), and
 * hand over to the general build when the root splits after all. */
static qr_scene *wide_circles(int n)
{
    qr_error err;
    qr_scene *s = NULL;
    QR_CHECK(err, qr_scene_create(n, QR_ANIM_NONE, &s, &err));
    for (int i = 0; i < n; i++) {
        s->x[i] = 0.3f + 0.4f * (float)(i % 7) / 7.0f;
        s->y[i] = 0.3f + 0.4f * (float)(i % 5) / 5.0f;
        s->r[i] = 1.5f; /* covers the whole image */
        s->z[i] = 0.5f;
        s->red[i] = s->green[i] = s->blue[i] = 0.5f;
    }
    return s;
}

static int build_region(qr_gpu_index *gi, const qr_scene *s, const qr_gpu_scene *gs, int w, int h,
                        const qr_rect *region, const qr_index_params *p, const char *what)
{
    qr_error err;
    QR_CHECK(err, qr_gpu_index_build(gi, gs, w, h, region, p, QR_RENDER_FAST, &err));
    assert_index_matches_oracle(gi, s, w, h, region, p, QR_RENDER_FAST, what);
    return qr_gpu_index_single_kernel(gi);
}

static int build_and_compare(qr_gpu_index *gi, const qr_scene *s, const qr_gpu_scene *gs, int w,
                             int h, const qr_index_params *p, const char *what)
{
    return build_region(gi, s, gs, w, h, NULL, p, what);
}

Test(gpu_index, single_leaf_kernel)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_index_params p;
    qr_index_params_default(&p);
    const char *names[] = {"rgb", "rgby", "pattern", "hypnosis", "wide", "empty"};
    /* the wide circles' root split pays unless all four children exist */
    const int sizes[][3][2] = {{{1024, 1024}, {333, 1000}, {2048, 64}},
                               {{1024, 1024}, {1000, 1000}, {600, 700}}};
    for (int k = 0; k < 6; k++) {
        qr_scene *s = NULL;
        if (k == 4) {
            s = wide_circles(3000); /* 3000 > capacity 1024, yet one leaf */
        } else if (k == 5) {
            QR_CHECK(err, qr_scene_create(0, QR_ANIM_NONE, &s, &err));
        } else {
            s = gpu_test_scene(names[k], 0);
        }
        qr_gpu_scene *gs = NULL;
        QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
        for (int z = 0; z < 3; z++) {
            qr_gpu_index *gi = NULL;
            QR_CHECK(err, qr_gpu_index_create(&gi, &err));
            char what[96];
            for (int rep = 0; rep < 3; rep++) {
                const int *wh = sizes[k == 4][z];
                snprintf(what, sizeof what, "%s %dx%d build %d", names[k], wh[0], wh[1], rep);
                const int single = build_and_compare(gi, s, gs, wh[0], wh[1], &p, what);
                /* the first build sizes the lists the general way */
                cr_assert_eq(single, rep == 0 ? 0 : 1, "%s: single-leaf kernel %d", what, single);
            }
            qr_gpu_index_destroy(gi);
        }
        /* regions: the leaf is the region, the culling the region's */
        const qr_rect regions[] = {{0, 0, 1024, 256}, {100, 200, 357, 999}, {1023, 1023, 1024, 1024}};
        for (int z = 0; z < 3 && k != 4; z++) {
            qr_gpu_index *gi = NULL;
            QR_CHECK(err, qr_gpu_index_create(&gi, &err));
            for (int rep = 0; rep < 2; rep++) {
                char what[96];
                snprintf(what, sizeof what, "%s region %d build %d", names[k], z, rep);
                const int single = build_region(gi, s, gs, 1024, 1024, &regions[z], &p, what);
                cr_assert_eq(single, rep, "%s: single-leaf kernel %d", what, single);
            }
            qr_gpu_index_destroy(gi);
        }
        qr_gpu_scene_destroy(gs);
        qr_scene_destroy(s);
    }
}

Test(gpu_index, single_leaf_kernel_hands_over)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_index_params p;
    qr_index_params_default(&p);
    qr_scene *one = gpu_test_scene("rgb", 0);
    /* <= QR_SINGLE_MAX_CIRCLES, but the root splits */
    qr_scene *many = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 7, 6000);
    qr_scene *wide = wide_circles(3000);
    qr_gpu_scene *g_one = NULL, *g_many = NULL, *g_wide = NULL;
    QR_CHECK(err, qr_gpu_scene_create(one, &g_one, &err));
    QR_CHECK(err, qr_gpu_scene_create(many, &g_many, &err));
    QR_CHECK(err, qr_gpu_scene_create(wide, &g_wide, &err));
    qr_gpu_index *gi = NULL;
    QR_CHECK(err, qr_gpu_index_create(&gi, &err));
    for (int round = 0; round < 3; round++) {
        build_and_compare(gi, one, g_one, 640, 480, &p, "rgb");
        cr_assert_eq(build_and_compare(gi, one, g_one, 640, 480, &p, "rgb again"), 1);
        /* tried as one leaf, redone the general way */
        cr_assert_eq(build_and_compare(gi, many, g_many, 640, 480, &p, "6000 circles"), -1);
        cr_assert_eq(build_and_compare(gi, many, g_many, 640, 480, &p, "6000 again"), 0);
        /* the split cost rule: 3000 wide circles stay one leaf; with split
         * cost 0 the root splits (capacity alone) */
        build_and_compare(gi, wide, g_wide, 1024, 1024, &p, "wide");
        cr_assert_eq(build_and_compare(gi, wide, g_wide, 1024, 1024, &p, "wide again"), 1);
        qr_index_params cap = p;
        cap.split_cost = 0;
        cr_assert_eq(build_and_compare(gi, wide, g_wide, 1024, 1024, &cap, "wide, cost 0"), -1);
        /* a different geometry under a single-leaf guess */
        build_and_compare(gi, one, g_one, 640, 480, &p, "rgb");
        cr_assert_eq(build_and_compare(gi, one, g_one, 100, 37, &p, "rgb 100x37"), 1);
    }
    qr_gpu_index_destroy(gi);
    qr_gpu_scene_destroy(g_one);
    qr_gpu_scene_destroy(g_many);
    qr_gpu_scene_destroy(g_wide);
    qr_scene_destroy(one);
    qr_scene_destroy(many);
    qr_scene_destroy(wide);
}

/* With the GPU full, an image and an index that do not fit fail with
 * QR_ERR_GPU_NOMEM and a message naming the bytes needed — no crash — and
 * the index object stays usable: once memory is free the next build equals
 * the oracle. It takes the whole GPU, so CTest runs it alone (RUN_SERIAL). */
Test(gpu_index, out_of_memory, .timeout = 300)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_scene *s = gpu_test_scene("rand1M", 0);
    qr_gpu_scene *gs = NULL;
    qr_gpu_index *ix = NULL;
    QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
    QR_CHECK(err, qr_gpu_index_create(&ix, &err));

    /* 1 GiB images until one does not fit */
    enum { MAX_HOGS = 512 };
    qr_gpu_renderer *hog[MAX_HOGS];
    int nhog = 0;
    qr_status st = QR_OK;
    while (nhog < MAX_HOGS && (st = qr_gpu_renderer_create(8192, 8192, &hog[nhog], &err)) == QR_OK)
        nhog++;
    cr_assert_eq(st, QR_ERR_GPU_NOMEM, "after %d images: %s", nhog, err.msg);
    cr_assert(strstr(err.msg, "bytes of GPU memory") != NULL, "%s", err.msg);

    /* an index whose lists alone need gigabytes: a circle meets ~600
     * 16-pixel leaves at 16384 x 16384 */
    qr_index_params p;
    qr_index_params_default(&p);
    p.capacity = 1;
    p.min_leaf = 16;
    p.split_cost = 0; /* capacity alone: split down to 16 pixels everywhere */
    st = qr_gpu_index_build(ix, gs, 16384, 16384, NULL, &p, QR_RENDER_FAST, &err);
    cr_assert_eq(st, QR_ERR_GPU_NOMEM, "status %d: %s", (int)st, err.msg);
    cr_assert(strstr(err.msg, "the index needs") && strstr(err.msg, "bytes of GPU memory"), "%s",
              err.msg);

    while (nhog > 0) qr_gpu_renderer_destroy(hog[--nhog]);
    qr_index_params_default(&p);
    QR_CHECK(err, qr_gpu_index_build(ix, gs, 1024, 1024, NULL, &p, QR_RENDER_FAST, &err));
    assert_index_matches_oracle(ix, s, 1024, 1024, NULL, &p, QR_RENDER_FAST,
                                "after running out of memory");
    qr_gpu_index_destroy(ix);
    qr_gpu_scene_destroy(gs);
    qr_scene_destroy(s);
}
