/* test_index_host.c — the host quadtree oracle, qr_index_build_host.
 *
 * Runs without a GPU. Nothing here trusts the implementation: every build
 * goes through the invariant checker (support/index_check.h), which checks
 * culling, boxes, leaf geometry and order, lists, split rules and totals
 * against brute force; scenes come from support/random_scene.h's hostile
 * mix (clusters, huge circles, NaN, infinities, overflowing values).
 * Small cases (a 64 x 64 scene, a region, culling at pixel centres) are
 * worked out by hand with coordinates where every float operation is exact.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/index.h"
#include "quadrender/scene.h"
#include "index_check.h"
#include "random_scene.h"
#include "test_util.h"

/* ---- scenes and params ------------------------------------------------------ */

static qr_scene *scene_new(int32_t n)
{
    qr_scene *s = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_alloc(n, QR_ANIM_NONE, &s, &err), QR_OK, "%s", err.msg);
    return s;
}

static void set_circle(qr_scene *s, int32_t i, float x, float y, float r)
{
    s->x[i] = x;
    s->y[i] = y;
    s->z[i] = 0.5f;
    s->r[i] = r;
    s->red[i] = 1.0f;
    s->green[i] = 0.5f;
    s->blue[i] = 0.25f;
}

static qr_scene *builtin(const char *name)
{
    qr_scene *s = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_builtin(name, 0, &s, &err), QR_OK, "%s", err.msg);
    return s;
}

static qr_index_params params(int32_t capacity, int32_t min_leaf, int32_t max_depth,
                              int32_t uniform)
{
    qr_index_params p = {capacity, min_leaf, max_depth, uniform, 0, 0};
    return p;
}

static qr_index *build(const qr_scene *s, int32_t w, int32_t h, const qr_rect *region,
                       const qr_index_params *p)
{
    qr_index *ix = NULL;
    qr_error err;
    qr_status st = qr_index_build_host(s, w, h, region, p, &ix, &err);
    cr_assert_eq(st, QR_OK, "qr_index_build_host %dx%d: %s", w, h, err.msg);
    cr_assert_not_null(ix);
    return ix;
}

/* Asserts leaf k's rectangle, depth and exact list. */
static void expect_leaf(const qr_index *ix, int32_t k, qr_rect rect, int32_t depth, int32_t count,
                        const int32_t *ids)
{
    cr_assert_lt(k, ix->num_leaves, "leaf %d missing (%d leaves)", k, ix->num_leaves);
    const qr_leaf *l = &ix->leaves[k];
    cr_assert(qr_test_rect_equal(l->rect, rect),
              "leaf %d is [%d,%d)x[%d,%d), expected [%d,%d)x[%d,%d)", k, l->rect.x0, l->rect.x1,
              l->rect.y0, l->rect.y1, rect.x0, rect.x1, rect.y0, rect.y1);
    cr_assert_eq(l->depth, depth, "leaf %d depth %d, expected %d", k, l->depth, depth);
    cr_assert_eq(l->count, count, "leaf %d count %d, expected %d", k, l->count, count);
    for (int32_t j = 0; j < count; j++)
        cr_assert_eq(ix->lists[l->offset + j], ids[j], "leaf %d entry %d: %d, expected %d", k, j,
                     ix->lists[l->offset + j], ids[j]);
}

/* [x0,x1) x [y0,y1), written in the order the messages print it. */
#define RECT(x0, x1, y0, y1) ((qr_rect){(x0), (y0), (x1), (y1)})

/* ---- hand-checked cases --------------------------------------------------------- */

/* 64 x 64, min_leaf 16, capacity 1. Coordinates are multiples of 1/64, so the
 * boxes are exact: a circle at pixel (cx, cy) of pixel radius k has the box
 * [cx-k, cx+k+1) on each axis.
 *   0: (32,32) k 2 -> [30,35)^2, meets all four 32-quadrants
 *   1: ( 8, 8) k 4 -> [4,13)^2
 *   2: (24, 8) k 4 -> [20,29) x [4,13)
 *   3: (48,48) k 4 -> [44,53)^2, meets all four 16-squares of the top right
 *   4: r = 0, culled
 * Root (4 circles) splits; bottom-left {0,1,2} splits into 16s; bottom-right
 * and top-left hold {0} only; top-right {0,3} splits, and its bottom-left
 * 16-square keeps {0,3} (over capacity, but at min_leaf). */
Test(index_host, hand_checked_64x64)
{
    qr_scene *s = scene_new(5);
    set_circle(s, 0, 0.5f, 0.5f, 2.0f / 64);
    set_circle(s, 1, 8.0f / 64, 8.0f / 64, 4.0f / 64);
    set_circle(s, 2, 24.0f / 64, 8.0f / 64, 4.0f / 64);
    set_circle(s, 3, 48.0f / 64, 48.0f / 64, 4.0f / 64);
    set_circle(s, 4, 0.3f, 0.3f, 0.0f);
    qr_index_params p = params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 64, 64, NULL, &p);

    cr_assert_eq(ix->root_size, 64);
    cr_assert_eq(ix->num_leaves, 10);
    cr_assert_eq(ix->num_nodes, 13);
    cr_assert_eq(ix->max_depth_reached, 2);
    cr_assert_eq(ix->visible, 4);
    cr_assert_eq(ix->culled, 1);
    cr_assert_eq(ix->num_pairs, 10);
    const int32_t c0[] = {0}, c1[] = {1}, c2[] = {2}, c3[] = {3}, c03[] = {0, 3};
    expect_leaf(ix, 0, RECT(0, 16, 0, 16), 2, 1, c1);
    expect_leaf(ix, 1, RECT(16, 32, 0, 16), 2, 1, c2);
    expect_leaf(ix, 2, RECT(0, 16, 16, 32), 2, 0, NULL);
    expect_leaf(ix, 3, RECT(16, 32, 16, 32), 2, 1, c0);
    expect_leaf(ix, 4, RECT(32, 64, 0, 32), 1, 1, c0);
    expect_leaf(ix, 5, RECT(0, 32, 32, 64), 1, 1, c0);
    expect_leaf(ix, 6, RECT(32, 48, 32, 48), 2, 2, c03);
    expect_leaf(ix, 7, RECT(48, 64, 32, 48), 2, 1, c3);
    expect_leaf(ix, 8, RECT(32, 48, 48, 64), 2, 1, c3);
    expect_leaf(ix, 9, RECT(48, 64, 48, 64), 2, 1, c3);
    qr_index_free(ix);
    qr_scene_free(s);
}

/* Region [10,30) x [5,12) of 64 x 64, min_leaf 16, capacity 1: root 32 at
 * (10,5); only its bottom children exist, the right one clipped to [26,30).
 *   0: (14, 8) k 6 -> [8,21) x [2,15), clipped to [10,21) x [5,12)
 *   1: (26, 8) k 2 -> [24,29) x [6,11), meets both leaves
 *   2: well inside the image but outside the region: culled */
Test(index_host, hand_checked_region)
{
    qr_scene *s = scene_new(3);
    set_circle(s, 0, 14.0f / 64, 8.0f / 64, 6.0f / 64);
    set_circle(s, 1, 26.0f / 64, 8.0f / 64, 2.0f / 64);
    set_circle(s, 2, 0.5f, 0.75f, 0.05f);
    qr_rect region = RECT(10, 30, 5, 12);
    qr_index_params p = params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 64, 64, &region, &p);

    qr_rect box;
    cr_assert_eq(qr_index_circle_box(s, 0, 64, 64, &region, &box), 1);
    cr_assert(qr_test_rect_equal(box, RECT(10, 21, 5, 12)), "box [%d,%d)x[%d,%d)", box.x0, box.x1,
              box.y0, box.y1);
    cr_assert_eq(qr_index_circle_box(s, 2, 64, 64, &region, &box), 0);
    cr_assert_eq(qr_index_circle_box(s, 2, 64, 64, NULL, &box), 1);

    cr_assert_eq(ix->root_size, 32);
    cr_assert_eq(ix->num_leaves, 2);
    cr_assert_eq(ix->num_nodes, 3);
    cr_assert_eq(ix->visible, 2);
    cr_assert_eq(ix->culled, 1);
    cr_assert_eq(ix->num_pairs, 3);
    const int32_t c01[] = {0, 1}, c1[] = {1};
    expect_leaf(ix, 0, RECT(10, 26, 5, 12), 1, 2, c01);
    expect_leaf(ix, 1, RECT(26, 30, 5, 12), 1, 1, c1);
    qr_index_free(ix);
    qr_scene_free(s);
}

/* A single-pixel region: one leaf, [5,6) x [7,8). */
Test(index_host, region_one_pixel)
{
    qr_scene *s = scene_new(4);
    set_circle(s, 0, 5.5f / 64, 7.5f / 64, 0.3f / 64); /* covers that pixel's centre */
    set_circle(s, 1, 6.0f / 64, 8.0f / 64, 0.5f / 64); /* box meets it, centre 0.707 px away */
    set_circle(s, 2, 0.5f, 0.5f, 3.0f);                /* covers everything */
    set_circle(s, 3, 0.9f, 0.9f, 0.05f);               /* elsewhere */
    qr_rect region = RECT(5, 6, 7, 8);
    qr_index_params p = params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 64, 64, &region, &p);
    cr_assert_eq(ix->root_size, 16);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert_eq(ix->num_nodes, 1);
    cr_assert_eq(ix->visible, 2);
    const int32_t c02[] = {0, 2};
    expect_leaf(ix, 0, region, 0, 2, c02);
    qr_index_free(ix);

    /* uniform mode cannot split it either */
    p.uniform = 1;
    ix = qr_test_index_checked(s, 64, 64, &region, &p);
    cr_assert_eq(ix->num_leaves, 1);
    expect_leaf(ix, 0, region, 0, 2, c02);
    qr_index_free(ix);
    qr_scene_free(s);
}

/* ---- culling ------------------------------------------------------------------- */

static void expect_culled(const qr_scene *s, int32_t i, int32_t w, int32_t h, const char *what)
{
    qr_rect box;
    cr_assert_eq(qr_index_circle_box(s, i, w, h, NULL, &box), 0, "%s (circle %d) not culled",
                 what, i);
}

static void expect_box(const qr_scene *s, int32_t i, int32_t w, int32_t h, qr_rect want,
                       const char *what)
{
    qr_rect box;
    cr_assert_eq(qr_index_circle_box(s, i, w, h, NULL, &box), 1, "%s (circle %d) culled", what, i);
    cr_assert(qr_test_rect_equal(box, want), "%s: box [%d,%d)x[%d,%d), expected [%d,%d)x[%d,%d)",
              what, box.x0, box.x1, box.y0, box.y1, want.x0, want.x1, want.y0, want.y1);
}

Test(index_host, cull_bad_values)
{
    qr_scene *s = scene_new(11);
    set_circle(s, 0, 0.5f, 0.5f, 0.0f);
    set_circle(s, 1, 0.5f, 0.5f, -0.0f);
    set_circle(s, 2, 0.5f, 0.5f, -0.1f);
    set_circle(s, 3, NAN, 0.5f, 0.1f);
    set_circle(s, 4, 0.5f, NAN, 0.1f);
    set_circle(s, 5, 0.5f, 0.5f, NAN);
    set_circle(s, 6, INFINITY, 0.5f, 0.1f);
    set_circle(s, 7, 0.5f, -INFINITY, 0.1f);
    set_circle(s, 8, 0.5f, 0.5f, INFINITY);
    set_circle(s, 9, 0.25f, 0.25f, 0.125f); /* the one good circle: [16,49)^2 at 128 */
    set_circle(s, 10, -INFINITY, INFINITY, -INFINITY);
    for (int32_t i = 0; i < 11; i++)
        if (i != 9) expect_culled(s, i, 128, 128, "r <= 0 or not finite");
    expect_box(s, 9, 128, 128, RECT(16, 49, 16, 49), "ordinary circle");

    qr_index_params p;
    qr_index_params_default(&p);
    p.capacity = 1;
    p.min_leaf = 16;
    qr_index *ix = qr_test_index_checked(s, 128, 128, NULL, &p);
    cr_assert_eq(ix->visible, 1);
    cr_assert_eq(ix->culled, 10);
    cr_assert_eq(ix->num_leaves, 1, "one visible circle fits capacity 1");
    const int32_t c9[] = {9};
    expect_leaf(ix, 0, RECT(0, 128, 0, 128), 0, 1, c9);
    qr_index_free(ix);
    qr_scene_free(s);
}

/* Off-screen on each side by more than a pixel (at 64 x 64), and boxes that
 * start exactly at the far edge. */
Test(index_host, cull_offscreen)
{
    qr_scene *s = scene_new(7);
    set_circle(s, 0, -0.1f, 0.5f, 0.05f); /* left */
    set_circle(s, 1, 1.1f, 0.5f, 0.05f);  /* right */
    set_circle(s, 2, 0.5f, 1.1f, 0.05f);  /* top */
    set_circle(s, 3, 0.5f, -0.1f, 0.05f); /* bottom */
    set_circle(s, 4, 1.25f, 0.5f, 0.25f); /* (x - r) * W = W exactly: box [64,64) */
    set_circle(s, 5, 0.5f, 1.25f, 0.25f); /* likewise on top */
    set_circle(s, 6, -5.0f, -5.0f, 1.0f); /* far below left */
    for (int32_t i = 0; i < 7; i++)
        expect_culled(s, i, 64, 64, "off-screen");
    qr_index_params p = params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 64, 64, NULL, &p);
    cr_assert_eq(ix->visible, 0);
    cr_assert_eq(ix->culled, 7);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert_eq(ix->num_pairs, 0);
    qr_index_free(ix);
    qr_scene_free(s);
}

/* 8 x 8: pixel centres at (p + 0.5) / 8, all exact in float. */
Test(index_host, cull_subpixel)
{
    qr_scene *s = scene_new(7);
    /* centre on a pixel corner, radius 1/4 px: box [3,5)^2, nearest centre 0.71 px */
    set_circle(s, 0, 0.5f, 0.5f, 0.25f / 8);
    /* centre on pixel (4,4)'s centre, radius 1/4 px: box [4,5)^2, covers it */
    set_circle(s, 1, 4.5f / 8, 4.5f / 8, 0.25f / 8);
    /* on the edge between rows 3 and 4, radius exactly 1/2 px: the centres of
     * (4,3) and (4,4) lie on the circle, d2 == r2 counts as covered */
    set_circle(s, 2, 4.5f / 8, 0.5f, 0.5f / 8);
    /* the same, a hair smaller: both centres just outside */
    set_circle(s, 3, 4.5f / 8, 0.5f, 0.499f / 8);
    /* centre on pixel (0,0)'s centre, tiny radius: still covers it */
    set_circle(s, 4, 0.5f / 8, 0.5f / 8, 0.001f / 8);
    /* centre on pixel (6,6)'s centre, but r = 0 and r = -0: culled, although
     * d2 = 0 <= r*r */
    set_circle(s, 5, 6.5f / 8, 6.5f / 8, 0.0f);
    set_circle(s, 6, 6.5f / 8, 6.5f / 8, -0.0f);

    expect_culled(s, 0, 8, 8, "between pixel centres");
    expect_box(s, 1, 8, 8, RECT(4, 5, 4, 5), "one pixel centre");
    expect_box(s, 2, 8, 8, RECT(4, 6, 3, 5), "centres on the rim");
    expect_culled(s, 3, 8, 8, "centres just outside the rim");
    expect_box(s, 4, 8, 8, RECT(0, 1, 0, 1), "tiny circle on a pixel centre");
    expect_culled(s, 5, 8, 8, "r = 0 on a pixel centre");
    expect_culled(s, 6, 8, 8, "r = -0 on a pixel centre");

    qr_index_params p = params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 8, 8, NULL, &p);
    cr_assert_eq(ix->visible, 3);
    cr_assert_eq(ix->culled, 4);
    const int32_t c124[] = {1, 2, 4};
    expect_leaf(ix, 0, RECT(0, 8, 0, 8), 0, 3, c124);
    qr_index_free(ix);
    qr_scene_free(s);
}

/* qr_index_circle_box against the model for many random circles, sizes and
 * regions (check_invariants does this too, but here the circles are
 * concentrated near pixel scale, where the culling rule matters). */
Test(index_host, circle_box_matches_model)
{
    const int32_t sizes[][2] = {{8, 8}, {64, 64}, {100, 37}, {1, 1}, {1000, 300}};
    qr_test_rng st = qr_test_rng_seed(12345);
    for (int k = 0; k < 5; k++) {
        const int32_t w = sizes[k][0], h = sizes[k][1];
        qr_scene *s = scene_new(20000);
        for (int32_t i = 0; i < s->n; i++) {
            float r = qr_test_rng_float(&st, 0.0f, 2.5f) / (float)(w > h ? w : h);
            const float x = qr_test_rng_float(&st, -0.05f, 1.05f);
            set_circle(s, i, x, qr_test_rng_float(&st, -0.05f, 1.05f), r);
        }
        qr_rect regions[2] = {qr_rect_full(w, h), RECT(w / 3, w - w / 4, h / 5, h - h / 3)};
        for (int g = 0; g < 2; g++) {
            const qr_rect reg = regions[g];
            if (reg.x0 >= reg.x1 || reg.y0 >= reg.y1) continue;
            int32_t kept = 0, culled = 0;
            for (int32_t i = 0; i < s->n; i++) {
                qr_rect a = {-1, -1, -1, -1}, b = {-2, -2, -2, -2};
                int la = qr_index_circle_box(s, i, w, h, &reg, &a);
                int mb = qr_test_model_circle(s, i, w, h, reg, &b);
                if ((la != 0) != mb)
                    cr_assert_fail("%dx%d circle %d (x %a y %a r %a): library %d, model %d", w, h,
                                   i, s->x[i], s->y[i], s->r[i], la, mb);
                if (mb && !qr_test_rect_equal(a, b))
                    cr_assert_fail("%dx%d circle %d: box differs from the model", w, h, i);
                kept += mb;
                culled += !mb;
            }
            cr_assert(kept > 0 && culled > 0, "%dx%d: kept %d culled %d", w, h, kept,
                      culled);
        }
        qr_scene_free(s);
    }
}

/* ---- edge cases ---------------------------------------------------------------- */

Test(index_host, empty_scene)
{
    qr_scene *s = scene_new(0);
    qr_index_params p = params(256, 32, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 640, 480, NULL, &p);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert_eq(ix->num_nodes, 1);
    cr_assert_eq(ix->num_pairs, 0);
    cr_assert_eq(ix->visible, 0);
    cr_assert_eq(ix->culled, 0);
    cr_assert_eq(ix->root_size, 1024);
    expect_leaf(ix, 0, RECT(0, 640, 0, 480), 0, 0, NULL);
    qr_index_free(ix);

    /* uniform mode still makes the grid: 640/32 x 480/32 empty tiles */
    p.uniform = 1;
    ix = qr_test_index_checked(s, 640, 480, NULL, &p);
    cr_assert_eq(ix->num_leaves, 20 * 15);
    cr_assert_eq(ix->num_pairs, 0);
    qr_index_free(ix);
    qr_scene_free(s);
}

Test(index_host, one_circle)
{
    qr_scene *s = scene_new(1);
    set_circle(s, 0, 0.3f, 0.6f, 0.1f);
    const int32_t c0[] = {0};
    qr_index_params p = params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 256, 256, NULL, &p);
    cr_assert_eq(ix->num_leaves, 1, "one circle never exceeds capacity 1");
    expect_leaf(ix, 0, RECT(0, 256, 0, 256), 0, 1, c0);
    qr_index_free(ix);

    /* uniform 16 x 16 tiles: the circle is in exactly the tiles its box meets */
    p.uniform = 1;
    ix = qr_test_index_checked(s, 256, 256, NULL, &p);
    cr_assert_eq(ix->num_leaves, 256);
    qr_rect box;
    cr_assert_eq(qr_index_circle_box(s, 0, 256, 256, NULL, &box), 1);
    int64_t tiles = (int64_t)((box.x1 - 1) / 16 - box.x0 / 16 + 1) *
                    ((box.y1 - 1) / 16 - box.y0 / 16 + 1);
    cr_assert_eq(ix->num_pairs, tiles, "pairs %lld, tiles %lld", (long long)ix->num_pairs,
                 (long long)tiles);
    qr_index_free(ix);
    qr_scene_free(s);
}

Test(index_host, all_offscreen)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 7, 500);
    for (int32_t i = 0; i < s->n; i++) { /* move every circle far right */
        s->x[i] = fabsf(s->x[i]) + 3.0f;
        if (s->r[i] > 1.0f) s->r[i] = 1.0f;
    }
    qr_index_params p = params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 300, 200, NULL, &p);
    cr_assert_eq(ix->visible, 0);
    cr_assert_eq(ix->culled, 500);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert_eq(ix->num_pairs, 0);
    expect_leaf(ix, 0, RECT(0, 300, 0, 200), 0, 0, NULL);
    qr_index_free(ix);
    qr_scene_free(s);
}

/* Five circles larger than the image: every node holds all five, so with
 * capacity 2 the tree goes down to min_leaf everywhere, each leaf listing
 * 0..4. */
Test(index_host, circles_bigger_than_image)
{
    qr_scene *s = scene_new(5);
    for (int32_t i = 0; i < 5; i++)
        set_circle(s, i, 0.5f + 0.1f * (float)i, 0.4f, 2.0f + (float)i);
    const int32_t all[] = {0, 1, 2, 3, 4};
    qr_index_params p = params(2, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 100, 70, NULL, &p);
    cr_assert_eq(ix->root_size, 128);
    cr_assert_eq(ix->num_leaves, 7 * 5); /* ceil(100/16) x ceil(70/16) */
    cr_assert_eq(ix->num_pairs, 7 * 5 * 5);
    for (int32_t k = 0; k < ix->num_leaves; k++) {
        const qr_leaf *l = &ix->leaves[k];
        cr_assert_eq(l->depth, 3);
        expect_leaf(ix, k, l->rect, 3, 5, all);
    }
    qr_index_free(ix);

    /* capacity 5 holds them all in the root */
    p.capacity = 5;
    ix = qr_test_index_checked(s, 100, 70, NULL, &p);
    cr_assert_eq(ix->num_leaves, 1);
    expect_leaf(ix, 0, RECT(0, 100, 0, 70), 0, 5, all);
    qr_index_free(ix);
    qr_scene_free(s);
}

/* Non-square and non-power-of-two images, under several parameter sets. */
Test(index_host, image_shapes)
{
    const int32_t sizes[][2] = {{1000, 300}, {300, 1000}, {17, 301}, {100, 37},
                                {257, 257}, {1023, 1025}, {513, 16}, {1, 1}, {16, 16},
                                {32768, 16}, {16, 32768}};
    const qr_index_params ps[] = {params(256, 32, 15, 0), params(8, 16, 15, 0),
                                  params(1, 16, 4, 0), params(1, 64, 15, 0),
                                  params(1, 16, 15, 1), params(1, 32, 2, 1)};
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 99, 3000);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++)
            qr_test_index_check(s, sizes[k][0], sizes[k][1], NULL, &ps[j]);
    qr_scene_free(s);
}

Test(index_host, wide_and_tall_uniform_grid)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 3, 1000);
    qr_index_params p = params(1, 16, QR_MAX_DEPTH_LIMIT, 1);
    qr_index *ix = qr_test_index_checked(s, 1000, 300, NULL, &p);
    cr_assert_eq(ix->root_size, 1024);
    cr_assert_eq(ix->num_leaves, 63 * 19);
    cr_assert_eq(ix->max_depth_reached, 6);
    qr_index_free(ix);
    ix = qr_test_index_checked(s, 300, 1000, NULL, &p);
    cr_assert_eq(ix->num_leaves, 19 * 63);
    qr_index_free(ix);

    /* max_depth 3 stops at 1024 >> 3 = 128: ceil(1000/128) x ceil(300/128) */
    p.max_depth = 3;
    ix = qr_test_index_checked(s, 1000, 300, NULL, &p);
    cr_assert_eq(ix->num_leaves, 8 * 3);
    for (int32_t k = 0; k < ix->num_leaves; k++)
        cr_assert_eq(ix->leaves[k].depth, 3);
    qr_index_free(ix);
    qr_scene_free(s);
}

Test(index_host, one_by_one_image)
{
    qr_scene *s = scene_new(3);
    set_circle(s, 0, 0.5f, 0.5f, 0.1f);  /* covers the only pixel centre */
    set_circle(s, 1, 0.9f, 0.9f, 0.05f); /* box [0,1)^2, centre 0.57 away */
    set_circle(s, 2, 0.5f, 0.5f, 5.0f);
    qr_index_params p = params(1, 16, QR_MAX_DEPTH_LIMIT, 1);
    qr_index *ix = qr_test_index_checked(s, 1, 1, NULL, &p);
    cr_assert_eq(ix->root_size, 16);
    cr_assert_eq(ix->num_leaves, 1);
    const int32_t c02[] = {0, 2};
    expect_leaf(ix, 0, RECT(0, 1, 0, 1), 0, 2, c02);
    qr_index_free(ix);
    qr_scene_free(s);
}

Test(index_host, min_leaf_equals_image)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 5, 400);
    qr_index_params p = params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 16, 16, NULL, &p);
    cr_assert_eq(ix->root_size, 16);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert_eq(ix->leaves[0].count, ix->visible);
    cr_assert(qr_test_rect_equal(ix->leaves[0].rect, RECT(0, 16, 0, 16)));
    qr_index_free(ix);

    /* a min_leaf far larger than the image: the root is min_leaf, clipped */
    p = params(1, 32768, QR_MAX_DEPTH_LIMIT, 0);
    ix = qr_test_index_checked(s, 640, 480, NULL, &p);
    cr_assert_eq(ix->root_size, 32768);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert(qr_test_rect_equal(ix->leaves[0].rect, RECT(0, 640, 0, 480)));
    qr_index_free(ix);
    qr_scene_free(s);
}

Test(index_host, max_depth_limits)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 11, 2000);
    qr_index_params p = params(1, 16, 0, 0);
    qr_index *ix = qr_test_index_checked(s, 512, 512, NULL, &p);
    cr_assert_eq(ix->num_leaves, 1, "max_depth 0: the root is the only node");
    cr_assert_eq(ix->leaves[0].count, ix->visible);
    qr_index_free(ix);
    p.max_depth = 1;
    ix = qr_test_index_checked(s, 512, 512, NULL, &p);
    cr_assert_eq(ix->num_leaves, 4);
    cr_assert_eq(ix->max_depth_reached, 1);
    qr_index_free(ix);
    for (int32_t d = 2; d <= QR_MAX_DEPTH_LIMIT; d += 3) {
        p.max_depth = d;
        qr_test_index_check(s, 512, 512, NULL, &p);
    }
    qr_scene_free(s);
}

/* 64 tiny circles in the bottom-left corner: the tree is deep there and
 * nowhere else (nodes split only when needed). */
Test(index_host, splits_only_where_needed)
{
    qr_scene *s = scene_new(64);
    for (int32_t i = 0; i < 64; i++)
        set_circle(s, i, (float)(4 + (i % 8) * 4) / 512, (float)(4 + (i / 8) * 4) / 512,
                   1.0f / 512);
    qr_index_params p = params(4, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 512, 512, NULL, &p);
    cr_assert_eq(ix->visible, 64);
    cr_assert_eq(ix->max_depth_reached, 5);
    /* the three other quadrants of the root, and of its bottom-left child, ... */
    const qr_rect big[] = {RECT(256, 512, 0, 256), RECT(0, 256, 256, 512),
                           RECT(256, 512, 256, 512), RECT(128, 256, 0, 128),
                           RECT(0, 128, 128, 256), RECT(128, 256, 128, 256)};
    for (size_t b = 0; b < sizeof big / sizeof big[0]; b++) {
        int found = 0;
        for (int32_t k = 0; k < ix->num_leaves; k++)
            found |= qr_test_rect_equal(ix->leaves[k].rect, big[b]) && ix->leaves[k].count == 0;
        cr_assert(found, "no empty leaf [%d,%d)x[%d,%d)", big[b].x0, big[b].x1, big[b].y0,
                  big[b].y1);
    }
    qr_index_free(ix);
    qr_scene_free(s);
}

/* ---- regions ------------------------------------------------------------------- */

Test(index_host, regions)
{
    qr_scene *s = builtin("rand10k");
    const qr_rect regions[] = {RECT(0, 640, 100, 200), RECT(37, 291, 53, 170),
                               RECT(0, 640, 0, 480), RECT(639, 640, 479, 480),
                               RECT(600, 640, 0, 480), RECT(5, 6, 7, 8)};
    const qr_index_params ps[] = {params(256, 32, 15, 0), params(16, 16, 15, 0),
                                  params(1, 16, 15, 1), params(4, 32, 3, 0)};
    for (size_t k = 0; k < sizeof regions / sizeof regions[0]; k++)
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++)
            qr_test_index_check(s, 640, 480, &regions[k], &ps[j]);

    /* the band as a uniform 32-grid: 20 columns, rows at 100, 132, 164, 196
     * (the last clipped to 4 pixels) */
    qr_rect band = RECT(0, 640, 100, 200);
    qr_index_params p = params(1, 32, QR_MAX_DEPTH_LIMIT, 1);
    qr_index *ix = qr_test_index_checked(s, 640, 480, &band, &p);
    cr_assert_eq(ix->root_size, 1024);
    cr_assert_eq(ix->num_leaves, 20 * 4);
    int clipped = 0;
    for (int32_t k = 0; k < ix->num_leaves; k++)
        clipped += ix->leaves[k].rect.y0 == 196 && ix->leaves[k].rect.y1 == 200;
    cr_assert_eq(clipped, 20);
    cr_assert(qr_test_rect_equal(ix->leaves[0].rect, RECT(0, 32, 100, 132)));
    qr_index_free(ix);
    qr_scene_free(s);
}

/* A region equal to the whole image indexes exactly like region NULL. */
Test(index_host, full_region_equals_null)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 21, 3000);
    qr_index_params p = params(8, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_rect full = qr_rect_full(333, 200);
    qr_index *a = qr_test_index_checked(s, 333, 200, NULL, &p);
    qr_index *b = qr_test_index_checked(s, 333, 200, &full, &p);
    cr_assert_eq(a->num_leaves, b->num_leaves);
    cr_assert_eq(a->num_pairs, b->num_pairs);
    cr_assert(memcmp(a->leaves, b->leaves, (size_t)a->num_leaves * sizeof *a->leaves) == 0);
    cr_assert(memcmp(a->lists, b->lists, (size_t)a->num_pairs * sizeof *a->lists) == 0);
    qr_index_free(a);
    qr_index_free(b);
    qr_scene_free(s);
}

/* ---- invalid arguments ---------------------------------------------------------- */

static void expect_invalid(const qr_scene *s, int32_t w, int32_t h, const qr_rect *region,
                           qr_index_params p, const char *word)
{
    qr_error err;
    memset(&err, 0, sizeof err);
    qr_index *ix = (qr_index *)&err; /* must be reset to NULL */
    qr_status st = qr_index_build_host(s, w, h, region, &p, &ix, &err);
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
    const qr_index_params ok = params(4, 16, 15, 0);
    expect_invalid(s, 64, 64, NULL, params(0, 16, 15, 0), "capacity");
    expect_invalid(s, 64, 64, NULL, params(-3, 16, 15, 0), "capacity");
    expect_invalid(s, 64, 64, NULL, params(4, 8, 15, 0), "leaf");
    expect_invalid(s, 64, 64, NULL, params(4, 48, 15, 0), "leaf");
    expect_invalid(s, 64, 64, NULL, params(4, 0, 15, 0), "leaf");
    expect_invalid(s, 64, 64, NULL, params(4, 65536, 15, 0), "leaf");
    expect_invalid(s, 64, 64, NULL, params(4, 16, 16, 0), "depth");
    expect_invalid(s, 64, 64, NULL, params(4, 16, -1, 0), "depth");
    qr_index_params cost = ok;
    cost.split_cost = -1;
    expect_invalid(s, 64, 64, NULL, cost, "split cost");
    cost.split_cost = 1001;
    expect_invalid(s, 64, 64, NULL, cost, "split cost");
    expect_invalid(s, 0, 64, NULL, ok, "size");
    expect_invalid(s, 64, 0, NULL, ok, "size");
    expect_invalid(s, -5, 64, NULL, ok, "size");
    expect_invalid(s, 32769, 16, NULL, ok, "size");

    const qr_rect bad[] = {RECT(0, 65, 0, 64), RECT(-1, 10, 0, 10), RECT(0, 10, 60, 70),
                           RECT(0, 10, -3, 5), RECT(10, 10, 0, 5), RECT(0, 5, 7, 7),
                           RECT(20, 10, 0, 5), RECT(64, 65, 0, 1)};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        expect_invalid(s, 64, 64, &bad[k], ok, "region");

    /* qr_index_params_check agrees, and accepts the bounds */
    qr_error err;
    const qr_index_params rejected[] = {params(0, 16, 15, 0), params(1, 8, 15, 0),
                                        params(1, 48, 15, 0), params(1, 16, 16, 0)};
    for (size_t k = 0; k < 4; k++) {
        err.msg[0] = '\0';
        cr_assert_eq(qr_index_params_check(&rejected[k], &err), QR_ERR_INVALID);
        cr_assert(err.msg[0] != '\0');
    }
    const qr_index_params accepted[] = {params(1, 16, 0, 0), params(1, 32768, 15, 1),
                                        params(INT32_MAX, 16, 15, 0)};
    for (size_t k = 0; k < 3; k++)
        cr_assert_eq(qr_index_params_check(&accepted[k], &err), QR_OK, "%s", err.msg);
    qr_index_params d;
    qr_index_params_default(&d);
    cr_assert_eq(qr_index_params_check(&d, &err), QR_OK, "%s", err.msg);
    qr_scene_free(s);
}

/* ---- determinism ---------------------------------------------------------------- */

static void expect_same(const qr_index *a, const qr_index *b)
{
    cr_assert(a->root_size == b->root_size && a->num_nodes == b->num_nodes &&
              a->num_leaves == b->num_leaves && a->max_depth_reached == b->max_depth_reached &&
              a->visible == b->visible && a->culled == b->culled && a->num_pairs == b->num_pairs,
              "headers differ");
    for (int32_t k = 0; k < a->num_leaves; k++) {
        const qr_leaf *x = &a->leaves[k], *y = &b->leaves[k];
        cr_assert(qr_test_rect_equal(x->rect, y->rect) && x->depth == y->depth &&
                      x->count == y->count && x->offset == y->offset,
                  "leaf %d differs", k);
    }
    cr_assert(memcmp(a->lists, b->lists, (size_t)a->num_pairs * sizeof *a->lists) == 0,
              "lists differ");
}

Test(index_host, deterministic)
{
    qr_scene *s = builtin("rand10k");
    qr_scene *c = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_clone(s, &c, &err), QR_OK, "%s", err.msg);
    qr_index_params p = params(32, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_rect region = RECT(37, 291, 53, 170);
    qr_index *a = build(s, 640, 480, NULL, &p), *b = build(s, 640, 480, NULL, &p);
    qr_index *d = build(c, 640, 480, NULL, &p);
    cr_assert(a->num_leaves > 10);
    expect_same(a, b);
    expect_same(a, d);
    qr_index_free(a);
    qr_index_free(b);
    qr_index_free(d);
    a = build(s, 640, 480, &region, &p);
    b = build(s, 640, 480, &region, &p);
    expect_same(a, b);
    qr_index_free(a);
    qr_index_free(b);
    qr_scene_free(c);
    qr_scene_free(s);
}

/* ---- built-in and random scenes ---------------------------------------------------- */

static void check_builtin(const char *name)
{
    qr_scene *s = builtin(name);
    const int32_t sizes[][2] = {{512, 512}, {640, 480}};
    qr_index_params def;
    qr_index_params_default(&def);
    const qr_index_params ps[] = {def, params(16, 16, 15, 0), params(64, 32, 3, 0),
                                  params(1, 16, 15, 1), params(1000, 64, 15, 0)};
    const qr_rect region = RECT(37, 291, 53, 170);
    for (int k = 0; k < 2; k++) {
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++)
            qr_test_index_check(s, sizes[k][0], sizes[k][1], NULL, &ps[j]);
        qr_test_index_check(s, sizes[k][0], sizes[k][1], &region, &ps[1]);
    }
    qr_scene_free(s);
}

Test(index_host, builtin_rand10k) { check_builtin("rand10k"); }
Test(index_host, builtin_biglittle) { check_builtin("biglittle"); }
Test(index_host, builtin_pattern) { check_builtin("pattern"); }

/* max_leaf: a sparse scene still gets leaves no larger than max_leaf, and
 * with no limit the same scene keeps its big leaves. */
Test(index_host, max_leaf_bounds_leaf_size)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 3, 40);
    qr_index_params p = params(1000, 16, 15, 0);
    p.max_leaf = 64;
    qr_test_index_check(s, 512, 384, NULL, &p);
    qr_index *ix = build(s, 512, 384, NULL, &p);
    for (int32_t i = 0; i < ix->num_leaves; i++)
        cr_assert((ix->root_size >> ix->leaves[i].depth) <= 64, "leaf %d of side %d", i,
                  ix->root_size >> ix->leaves[i].depth);
    cr_assert_eq(ix->num_leaves, 8 * 6, "512 x 384 in 64 px leaves");
    qr_index_free(ix);
    p.max_leaf = 0;
    ix = build(s, 512, 384, NULL, &p);
    cr_assert_eq(ix->num_leaves, 1, "with no limit the root holds all 40 circles: %d leaves",
                 ix->num_leaves);
    qr_index_free(ix);
    qr_scene_free(s);
}

/* The split_cost rule on a scene worked by hand: 128 x 128, capacity 1,
 * min_leaf 16; one circle covering everything and one 2-pixel circle. The
 * root holds C = 2; its children C' = 4 + 1 = 5. A split pays iff
 *   100 * (5 - 2) < cost * (16 * 2 - 4 * 5) = 12 * cost,   i.e. cost > 25.
 * Two far-apart small circles instead: C' = C = 2, it pays for any cost > 0. */
Test(index_host, split_cost_rule)
{
    qr_scene *s = scene_new(2);
    set_circle(s, 0, 0.5f, 0.5f, 1.0f);
    set_circle(s, 1, 0.1f, 0.1f, 0.008f); /* pixel box [11,14)^2 at 128 */
    qr_index_params p = params(1, 16, 15, 0);
    const int32_t costs[] = {1, 25, 26, 1000};
    const int32_t leaves[] = {1, 1, 0, 0}; /* 0: split */
    for (int k = 0; k < 4; k++) {
        p.split_cost = costs[k];
        qr_index *ix = qr_test_index_checked(s, 128, 128, NULL, &p);
        if (leaves[k])
            cr_assert_eq(ix->num_leaves, 1, "cost %d: the root should stay a leaf", costs[k]);
        else
            cr_assert_gt(ix->num_leaves, 1, "cost %d: the root should split", costs[k]);
        qr_index_free(ix);
    }
    /* capacity alone splits it down to min_leaf around the small circle */
    p.split_cost = 0;
    qr_index *ix = qr_test_index_checked(s, 128, 128, NULL, &p);
    cr_assert_gt(ix->num_leaves, 4);
    qr_index_free(ix);
    set_circle(s, 0, 0.9f, 0.9f, 0.008f);
    p.split_cost = 1;
    ix = qr_test_index_checked(s, 128, 128, NULL, &p);
    cr_assert_gt(ix->num_leaves, 1, "two separate small circles: splitting costs nothing");
    qr_index_free(ix);
    qr_scene_free(s);
}

Test(index_host, random_scenes)
{
    const int32_t sizes[][2] = {{512, 512}, {1000, 700}, {17, 301}, {1, 1}, {2048, 64}, {96, 96}};
    for (uint64_t seed = 1; seed <= 10; seed++) {
        const int32_t n = (int32_t)(seed * seed * 37 % 3000);
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, seed, n);
        for (int k = 0; k < 6; k++) {
            qr_index_params p;
            p.capacity = (int32_t)(1 + (seed * 37 + (uint64_t)k) % 100);
            p.min_leaf = 16 << ((seed + (uint64_t)k) % 3);
            p.max_depth = (int32_t)((seed + 2 * (uint64_t)k) % 16);
            p.uniform = (seed + (uint64_t)k) % 5 == 0;
            p.max_leaf = (seed + (uint64_t)k) % 4 == 0 ? 0 : 32 << ((seed + (uint64_t)k) % 3);
            p.split_cost = (seed + (uint64_t)k) % 3 == 0 ? 0 : (int32_t)(5 * ((seed * 7 + (uint64_t)k) % 41));
            const int32_t w = sizes[k][0], h = sizes[k][1];
            qr_test_index_check(s, w, h, NULL, &p);
            qr_rect region = RECT(w / 7, w - w / 5, h / 3, h - h / 9);
            if (region.x0 < region.x1 && region.y0 < region.y1)
                qr_test_index_check(s, w, h, &region, &p);
        }
        qr_scene_free(s);
    }
}
