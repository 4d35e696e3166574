/* test_index_params.c — the host quadtree oracle's parameters: which
 * qr_index_params and arguments qr_index_build_host refuses, and what
 * min_leaf, max_depth, max_leaf and split_cost do to the tree.
 *
 * Runs without a GPU. Every build goes through the invariant checker
 * (support/index_check.h), which checks the split rules for the parameters
 * given against brute force; the split_cost rule is also worked out by hand,
 * and random parameter sets run over support/random_scene.h's hostile mix.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/index.h"
#include "quadrender/scene.h"
#include "quadtree/quadtree_geom.h"
#include "index_check.h"
#include "random_scene.h"
#include "scene_util.h"
#include "test_util.h"

/* ---- invalid arguments ---------------------------------------------------------- */

static void expect_invalid(const qr_scene *s, int32_t w, int32_t h, const qr_rect *region,
                           qr_index_params p, const char *word)
{
    qr_error err;
    memset(&err, 0, sizeof err);
    qr_index *ix = (qr_index *)&err; /* must be reset to NULL */
    qr_status st = qr_index_build_host(s, w, h, region, &p, QR_RENDER_FAST, &ix, &err);
    cr_assert_eq(st, QR_ERR_INVALID, "%dx%d cap %d leaf %d depth %d: status %d", w, h,
                 p.capacity, p.min_leaf, p.max_depth, st);
    cr_assert_eq(err.status, QR_ERR_INVALID);
    cr_assert_null(ix);
    cr_assert(strstr(err.msg, word) != NULL, "message \"%s\" does not mention \"%s\"", err.msg,
              word);
}

Test(index_host, invalid_params)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 1, 50);
    const qr_index_params ok = qr_test_params(4, 16, 15, 0);
    expect_invalid(s, 64, 64, NULL, qr_test_params(0, 16, 15, 0), "capacity");
    expect_invalid(s, 64, 64, NULL, qr_test_params(-3, 16, 15, 0), "capacity");
    expect_invalid(s, 64, 64, NULL, qr_test_params(4, 2, 15, 0), "leaf");
    expect_invalid(s, 64, 64, NULL, qr_test_params(4, 48, 15, 0), "leaf");
    expect_invalid(s, 64, 64, NULL, qr_test_params(4, 0, 15, 0), "leaf");
    expect_invalid(s, 64, 64, NULL, qr_test_params(4, 65536, 15, 0), "leaf");
    expect_invalid(s, 64, 64, NULL, qr_test_params(4, 16, 16, 0), "depth");
    expect_invalid(s, 64, 64, NULL, qr_test_params(4, 16, -1, 0), "depth");
    qr_index_params cost = ok;
    cost.split_cost = -1;
    expect_invalid(s, 64, 64, NULL, cost, "split cost");
    cost.split_cost = 1001;
    expect_invalid(s, 64, 64, NULL, cost, "split cost");
    expect_invalid(s, 0, 64, NULL, ok, "size");
    expect_invalid(s, 64, 0, NULL, ok, "size");
    expect_invalid(s, -5, 64, NULL, ok, "size");
    expect_invalid(s, QR_IMAGE_BANDS_MAX_DIM + 1, 16, NULL, ok, "size");
    expect_invalid(s, 16, QR_IMAGE_BANDS_MAX_DIM + 1, NULL, ok, "size");

    const qr_rect bad[] = {QR_TEST_RECT(0, 65, 0, 64),  QR_TEST_RECT(-1, 10, 0, 10),
                           QR_TEST_RECT(0, 10, 60, 70), QR_TEST_RECT(0, 10, -3, 5),
                           QR_TEST_RECT(10, 10, 0, 5),  QR_TEST_RECT(0, 5, 7, 7),
                           QR_TEST_RECT(20, 10, 0, 5),  QR_TEST_RECT(64, 65, 0, 1)};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        expect_invalid(s, 64, 64, &bad[k], ok, "region");

    /* qr_index_params_check agrees, and accepts the bounds */
    qr_error err;
    const qr_index_params rejected[] = {qr_test_params(0, 16, 15, 0), qr_test_params(1, 2, 15, 0),
                                        qr_test_params(1, 48, 15, 0), qr_test_params(1, 16, 16, 0)};
    for (size_t k = 0; k < 4; k++) {
        err.msg[0] = '\0';
        cr_assert_eq(qr_index_params_check(&rejected[k], &err), QR_ERR_INVALID);
        cr_assert(err.msg[0] != '\0');
    }
    const qr_index_params accepted[] = {qr_test_params(1, 16, 0, 0),
                                        qr_test_params(1, 32768, 15, 1),
                                        qr_test_params(INT32_MAX, 16, 15, 0),
                                        qr_test_params(1, QR_MIN_LEAF, 15, 0)};
    for (size_t k = 0; k < 4; k++)
        cr_assert_eq(qr_index_params_check(&accepted[k], &err), QR_OK, "%s", err.msg);
    qr_index_params d;
    qr_index_params_default(&d);
    cr_assert_eq(qr_index_params_check(&d, &err), QR_OK, "%s", err.msg);
    qr_scene_destroy(s);
}

/* ---- min_leaf and max_depth ----------------------------------------------------- */

Test(index_host, min_leaf_equals_image)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 5, 400);
    qr_index_params p = qr_test_params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 16, 16, NULL, &p);
    cr_assert_eq(ix->root_size, 16);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert_eq(ix->leaves[0].count, ix->visible);
    cr_assert(qr_test_rect_equal(ix->leaves[0].rect, QR_TEST_RECT(0, 16, 0, 16)));
    qr_index_destroy(ix);

    /* a min_leaf far larger than the image: the root is min_leaf, clipped */
    p = qr_test_params(1, 32768, QR_MAX_DEPTH_LIMIT, 0);
    ix = qr_test_index_checked(s, 640, 480, NULL, &p);
    cr_assert_eq(ix->root_size, 32768);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert(qr_test_rect_equal(ix->leaves[0].rect, QR_TEST_RECT(0, 640, 0, 480)));
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

Test(index_host, max_depth_limits)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 11, 2000);
    qr_index_params p = qr_test_params(1, 16, 0, 0);
    qr_index *ix = qr_test_index_checked(s, 512, 512, NULL, &p);
    cr_assert_eq(ix->num_leaves, 1, "max_depth 0: the root is the only node");
    cr_assert_eq(ix->leaves[0].count, ix->visible);
    qr_index_destroy(ix);
    p.max_depth = 1;
    ix = qr_test_index_checked(s, 512, 512, NULL, &p);
    cr_assert_eq(ix->num_leaves, 4);
    cr_assert_eq(ix->max_depth_reached, 1);
    qr_index_destroy(ix);
    for (int32_t d = 2; d <= QR_MAX_DEPTH_LIMIT; d += 3) {
        p.max_depth = d;
        qr_test_index_check(s, 512, 512, NULL, &p);
    }
    qr_scene_destroy(s);
}

/* ---- max_leaf and split_cost ---------------------------------------------------- */

/* max_leaf: a sparse scene still gets leaves no larger than max_leaf, and
 * with no limit the same scene keeps its big leaves. */
Test(index_host, max_leaf_bounds_leaf_size)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 3, 40);
    qr_index_params p = qr_test_params(1000, 16, 15, 0);
    p.max_leaf = 64;
    qr_test_index_check(s, 512, 384, NULL, &p);
    qr_index *ix = qr_test_index_build(s, 512, 384, NULL, &p);
    for (int32_t i = 0; i < ix->num_leaves; i++)
        cr_assert((ix->root_size >> ix->leaves[i].depth) <= 64, "leaf %d of side %d", i,
                  ix->root_size >> ix->leaves[i].depth);
    cr_assert_eq(ix->num_leaves, 8 * 6, "512 x 384 in 64 px leaves");
    qr_index_destroy(ix);
    p.max_leaf = 0;
    ix = qr_test_index_build(s, 512, 384, NULL, &p);
    cr_assert_eq(ix->num_leaves, 1, "with no limit the root holds all 40 circles: %d leaves",
                 ix->num_leaves);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* The split_cost rule on a scene worked by hand: 128 x 128, capacity 1,
 * min_leaf 16; one circle covering everything and one 2-pixel circle. The
 * root holds C = 2; its children C' = 4 + 1 = 5. A split pays iff
 *   100 * (5 - 2) < cost * (16 * 2 - 4 * 5) = 12 * cost,   i.e. cost > 25.
 * Two far-apart small circles instead: C' = C = 2, it pays for any cost > 0. */
Test(index_host, split_cost_rule)
{
    qr_scene *s = qr_test_scene_new(2);
    qr_test_set_circle(s, 0, 0.5f, 0.5f, 1.0f);
    qr_test_set_circle(s, 1, 0.1f, 0.1f, 0.008f); /* pixel box [11,14)^2 at 128 */
    qr_index_params p = qr_test_params(1, 16, 15, 0);
    const int32_t costs[] = {1, 25, 26, 1000};
    const int32_t leaves[] = {1, 1, 0, 0}; /* 0: split */
    for (int k = 0; k < 4; k++) {
        p.split_cost = costs[k];
        qr_index *ix = qr_test_index_checked(s, 128, 128, NULL, &p);
        if (leaves[k])
            cr_assert_eq(ix->num_leaves, 1, "cost %d: the root should stay a leaf", costs[k]);
        else
            cr_assert_gt(ix->num_leaves, 1, "cost %d: the root should split", costs[k]);
        qr_index_destroy(ix);
    }
    /* capacity alone splits it down to min_leaf around the small circle */
    p.split_cost = 0;
    qr_index *ix = qr_test_index_checked(s, 128, 128, NULL, &p);
    cr_assert_gt(ix->num_leaves, 4);
    qr_index_destroy(ix);
    qr_test_set_circle(s, 0, 0.9f, 0.9f, 0.008f);
    p.split_cost = 1;
    ix = qr_test_index_checked(s, 128, 128, NULL, &p);
    cr_assert_gt(ix->num_leaves, 1, "two separate small circles: splitting costs nothing");
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* qr_split_pays (quadtree_geom.h, both builders' rule) against the rule in
 * 128-bit integers, for shares of a list read from a fifth to all, at every side up to the host build's largest root and
 * counts up to a scene's largest, where split_cost * (R(s) C - R(s/2) C')
 * passes 2^63. */
__extension__ typedef __int128 wide_int;

static int split_pays_wide(int32_t side, long long count, long long children, int32_t cost,
                           int32_t share)
{
    const wide_int r = side > 32 ? side / 32 : 1, rh = side / 2 > 32 ? side / 64 : 1;
    /* QR_SPLIT_DEEP, when the children's lists are half as long */
    if (count > 16384 && (wide_int)4 * children <= (wide_int)8 * count) return 1;
    return (wide_int)100 * 1000 * (children - count) <
           (wide_int)cost * share * (r * r * count - rh * rh * children);
}

Test(index_host, split_rule_exact_at_large_sides)
{
    const long long counts[] = {0, 1, 2, 1000, 1LL << 20, 550000000LL, 1LL << 30, INT32_MAX};
    const int32_t costs[] = {0, 1, 5, 999, 1000};
    /* the share of a list a region reads (qr_read_share), thousandths */
    const int32_t shares[] = {QR_READ_SHARE_MIN, 333, 451, 999, QR_READ_SHARE_ONE};
    qr_index_params p = qr_test_params(1, 16, 15, 0);
    int decided = 0;
    for (int32_t side = 16; side <= QR_IMAGE_BANDS_MAX_DIM; side *= 2)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int k = 0; k <= 16; k++) {
                /* children from count (no circle on a split line) to 4 count */
                const long long count = counts[c], children = count + count * k * 3 / 16;
                for (size_t j = 0; j < sizeof costs / sizeof costs[0]; j++)
                    for (size_t a = 0; a < sizeof shares / sizeof shares[0]; a++) {
                        p.split_cost = costs[j];
                        const int want =
                            split_pays_wide(side, count, children, costs[j], shares[a]);
                        cr_assert_eq(qr_split_pays(side, count, children, shares[a], &p), want,
                                     "side %d, %lld circles, %lld in the children, cost %d, "
                                     "share %d: %d",
                                     side, count, children, costs[j], shares[a], want);
                        decided += want;
                    }
            }
    cr_assert_gt(decided, 0);
}

/* ---- random parameter sets ------------------------------------------------------ */

Test(index_host, random_scenes)
{
    const int32_t sizes[][2] = {{512, 512}, {1000, 700}, {17, 301}, {1, 1}, {2048, 64}, {96, 96}};
    for (uint64_t seed = 1; seed <= 10; seed++) {
        const int32_t n = (int32_t)(seed * seed * 37 % 3000);
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, seed, n);
        for (int k = 0; k < 6; k++) {
            qr_index_params p;
            p.capacity = (int32_t)(1 + (seed * 37 + (uint64_t)k) % 100);
            p.min_leaf = QR_MIN_LEAF << ((seed + (uint64_t)k) % 5);
            p.deep_leaf = (seed + (uint64_t)k) % 2 ? QR_MIN_LEAF << (seed % 3) : 0;
            p.max_depth = (int32_t)((seed + 2 * (uint64_t)k) % 16);
            p.uniform = (seed + (uint64_t)k) % 5 == 0;
            p.max_leaf = (seed + (uint64_t)k) % 4 == 0 ? 0 : 32 << ((seed + (uint64_t)k) % 3);
            p.split_cost = (seed + (uint64_t)k) % 3 == 0 ? 0 : (int32_t)(5 * ((seed * 7 + (uint64_t)k) % 41));
            const qr_render_mode mode =
                (seed + 3 * (uint64_t)k) % 2 ? QR_RENDER_FAST : QR_RENDER_EXACT;
            const int32_t w = sizes[k][0], h = sizes[k][1];
            qr_index_destroy(qr_test_index_checked_mode(s, w, h, NULL, &p, mode));
            qr_rect region = QR_TEST_RECT(w / 7, w - w / 5, h / 3, h - h / 9);
            if (region.x0 < region.x1 && region.y0 < region.y1)
                qr_index_destroy(qr_test_index_checked_mode(s, w, h, &region, &p, mode));
        }
        qr_scene_destroy(s);
    }
}

/* ---- early stop: list reads weighed by the share a region reads ------------------ */

/* Big circles cover each pixel hundreds of times: in fast mode a region
 * reads a fifth of a list, the split rule weighs list reads by that, and
 * the tree keeps larger leaves than with every list read whole (exact
 * mode); the checker holds both to the rule. Thin coverage reads whole
 * lists either way: the same tree. */
Test(index_host, fast_mode_index_keeps_larger_leaves_where_circles_cover_deeply)
{
    qr_scene *deep = qr_test_scene_new(3000), *thin = qr_test_scene_new(3000);
    for (int32_t i = 0; i < 3000; i++) {
        const float x = (float)((i * 37) % 101) / 101.0f, y = (float)((i * 53) % 97) / 97.0f;
        qr_test_set_circle(deep, i, x, y, 0.12f + 0.1f * (float)(i % 7) / 7.0f);
        qr_test_set_circle(thin, i, x, y, 0.004f);
    }
    qr_index_params p;
    qr_index_params_default(&p);
    p.capacity = 64;
    p.min_leaf = 16;
    qr_index *ix[2][2];
    for (int e = 0; e < 2; e++) { /* e: fast mode, whose walks stop early */
        const qr_render_mode mode = e ? QR_RENDER_FAST : QR_RENDER_EXACT;
        ix[0][e] = qr_test_index_checked_mode(deep, 512, 512, NULL, &p, mode);
        ix[1][e] = qr_test_index_checked_mode(thin, 512, 512, NULL, &p, mode);
    }
    cr_expect_lt(ix[0][1]->num_leaves, ix[0][0]->num_leaves, "deep coverage: %d leaves, %d read whole",
                 ix[0][1]->num_leaves, ix[0][0]->num_leaves);
    cr_expect_eq(ix[1][1]->num_leaves, ix[1][0]->num_leaves);
    cr_expect_eq(ix[1][1]->num_pairs, ix[1][0]->num_pairs);
    for (int k = 0; k < 2; k++)
        for (int e = 0; e < 2; e++) qr_index_destroy(ix[k][e]);
    qr_scene_destroy(deep);
    qr_scene_destroy(thin);
}

/* ---- crowded nodes split below min_leaf ---------------------------------------- */

/* 100000 small circles packed around one point over a thin field: the
 * crowded leaves split below min_leaf down to the deep_leaf floor (the
 * checker holds every leaf to the rule), and without deep_leaf they stay
 * at min_leaf. */
Test(index_host, crowded_leaves_split_below_min_leaf)
{
    const int32_t n = 101000;
    qr_scene *s = qr_test_scene_new(n);
    for (int32_t i = 0; i < n; i++) {
        if (i < 1000) { /* the field */
            qr_test_set_circle(s, i, (float)(i % 37) / 37.0f, (float)(i % 29) / 29.0f, 0.004f);
            continue;
        }
        const float a = (float)i * 2.3999632f, d = 0.02f * (float)(i % 97) / 97.0f;
        qr_test_set_circle(s, i, 0.3f + d * cosf(a), 0.6f + d * sinf(a), 0.003f);
    }
    qr_index_params p;
    qr_index_params_default(&p);
    cr_assert_eq(p.deep_leaf, QR_MIN_LEAF);
    qr_index *ix = qr_test_index_checked(s, 512, 512, NULL, &p);
    int32_t smallest = ix->root_size, most = 0;
    for (int32_t k = 0; k < ix->num_leaves; k++) {
        const int32_t side = ix->root_size >> ix->leaves[k].depth;
        if (side < smallest) smallest = side;
        if (ix->leaves[k].count > most) most = ix->leaves[k].count;
    }
    cr_assert_lt(smallest, p.min_leaf, "no leaf below min_leaf %d", p.min_leaf);
    qr_index_destroy(ix);
    p.deep_leaf = 0;
    ix = qr_test_index_checked(s, 512, 512, NULL, &p);
    int32_t most0 = 0;
    for (int32_t k = 0; k < ix->num_leaves; k++) {
        cr_assert_geq(ix->root_size >> ix->leaves[k].depth, p.min_leaf);
        if (ix->leaves[k].count > most0) most0 = ix->leaves[k].count;
    }
    cr_assert_gt(most0, QR_SPLIT_CROWDED);
    cr_assert_lt(most, most0, "deep splits should shorten the longest list (%d, %d)", most, most0);
    qr_index_destroy(ix);
    /* a floor above the deep_leaf asked for: the root's 1/256 */
    p.deep_leaf = QR_MIN_LEAF;
    qr_test_index_check(s, 4096, 4096, NULL, &p);
    qr_scene_destroy(s);

    /* as many circles per node spread evenly: no node holds more than its
     * share, so none splits below min_leaf */
    const int32_t m = 300000;
    s = qr_test_scene_new(m);
    for (int32_t i = 0; i < m; i++)
        qr_test_set_circle(s, i, (float)(i % 547) / 547.0f, (float)(i / 547) / 549.0f, 0.012f);
    ix = qr_test_index_checked(s, 128, 128, NULL, &p);
    for (int32_t k = 0; k < ix->num_leaves; k++) {
        cr_assert_geq(ix->root_size >> ix->leaves[k].depth, p.min_leaf);
        cr_assert_gt(ix->leaves[k].count, QR_SPLIT_CROWDED, "the nodes should be that full");
    }
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* Circles larger than the nodes: every child of a node meets nearly every
 * circle, so splitting shortens no list and multiplies the pairs by up to
 * four; split down to the floor, 70 000 such circles would make over
 * four billion pairs at 1024^2. Whatever the mode and wherever small circles
 * crowd among them, the index holds no more than a few times the pairs of
 * the coarsest grid, and every leaf follows the rule (the checker). */
Test(index_host, circles_larger_than_nodes_do_not_split, .timeout = 120)
{
    const struct {
        int32_t big, small;
        float rmin, rmax;
    } cases[] = {{70000, 0, 0.3f, 0.6f}, {70000, 0, 2.0f, 2.0f}, {40000, 200000, 0.3f, 0.6f}};
    qr_index_params p;
    qr_index_params_default(&p);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        qr_scene *s = qr_test_large_circles(cases[c].big, cases[c].rmin, cases[c].rmax,
                                            cases[c].small, 7 + c);
        for (int k = 0; k < 4; k++) {
            const qr_render_mode m = k % 2 ? QR_RENDER_EXACT : QR_RENDER_FAST;
            const int32_t side = k < 2 ? 256 : 1024;
            qr_index *ix = qr_test_index_checked_mode(s, side, side, NULL, &p, m);
            /* the grid of 256-pixel tiles, the coarsest bench times: the
             * fewest pairs a grid holds */
            qr_index_params grid = p;
            grid.uniform = 1;
            grid.min_leaf = 256;
            qr_index *gx = qr_test_index_checked_mode(s, side, side, NULL, &grid, m);
            cr_assert_leq(ix->num_pairs, 4 * gx->num_pairs,
                          "case %zu, %d^2, %s mode: %lld pairs in %d leaves, the 256-pixel grid "
                          "%lld", c, side, k % 2 ? "exact" : "fast", (long long)ix->num_pairs,
                          (int)ix->num_leaves, (long long)gx->num_pairs);
            qr_index_destroy(gx);
            qr_index_destroy(ix);
        }
        qr_scene_destroy(s);
    }
}
