/* test_index_build.c — the host quadtree oracle, qr_index_build_host: the
 * trees it builds.
 *
 * Runs without a GPU. Nothing here trusts the implementation: every build
 * goes through the invariant checker (support/index_check.h), which checks
 * culling, boxes, leaf geometry and order, lists, split rules and totals
 * against brute force; scenes come from support/random_scene.h's hostile
 * mix (clusters, huge circles, NaN, infinities, overflowing values).
 * Small cases (a 64 x 64 scene, a region) are worked out by hand with
 * coordinates where every float operation is exact. Culling is
 * test_index_cull.c's, the parameters test_index_params.c's.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/index.h"
#include "quadrender/scene.h"
#include "index_check.h"
#include "random_scene.h"
#include "scene_util.h"
#include "test_util.h"

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
    qr_scene *s = qr_test_scene_new(5);
    qr_test_set_circle(s, 0, 0.5f, 0.5f, 2.0f / 64);
    qr_test_set_circle(s, 1, 8.0f / 64, 8.0f / 64, 4.0f / 64);
    qr_test_set_circle(s, 2, 24.0f / 64, 8.0f / 64, 4.0f / 64);
    qr_test_set_circle(s, 3, 48.0f / 64, 48.0f / 64, 4.0f / 64);
    qr_test_set_circle(s, 4, 0.3f, 0.3f, 0.0f);
    qr_index_params p = qr_test_params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 64, 64, NULL, &p);

    cr_assert_eq(ix->root_size, 64);
    cr_assert_eq(ix->num_leaves, 10);
    cr_assert_eq(ix->num_nodes, 13);
    cr_assert_eq(ix->max_depth_reached, 2);
    cr_assert_eq(ix->visible, 4);
    cr_assert_eq(ix->culled, 1);
    cr_assert_eq(ix->num_pairs, 10);
    const int32_t c0[] = {0}, c1[] = {1}, c2[] = {2}, c3[] = {3}, c03[] = {0, 3};
    qr_test_expect_leaf(ix, 0, QR_TEST_RECT(0, 16, 0, 16), 2, 1, c1);
    qr_test_expect_leaf(ix, 1, QR_TEST_RECT(16, 32, 0, 16), 2, 1, c2);
    qr_test_expect_leaf(ix, 2, QR_TEST_RECT(0, 16, 16, 32), 2, 0, NULL);
    qr_test_expect_leaf(ix, 3, QR_TEST_RECT(16, 32, 16, 32), 2, 1, c0);
    qr_test_expect_leaf(ix, 4, QR_TEST_RECT(32, 64, 0, 32), 1, 1, c0);
    qr_test_expect_leaf(ix, 5, QR_TEST_RECT(0, 32, 32, 64), 1, 1, c0);
    qr_test_expect_leaf(ix, 6, QR_TEST_RECT(32, 48, 32, 48), 2, 2, c03);
    qr_test_expect_leaf(ix, 7, QR_TEST_RECT(48, 64, 32, 48), 2, 1, c3);
    qr_test_expect_leaf(ix, 8, QR_TEST_RECT(32, 48, 48, 64), 2, 1, c3);
    qr_test_expect_leaf(ix, 9, QR_TEST_RECT(48, 64, 48, 64), 2, 1, c3);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* Region [10,30) x [5,12) of 64 x 64, min_leaf 16, capacity 1: root 32 at
 * (10,5); only its bottom children exist, the right one clipped to [26,30).
 *   0: (14, 8) k 6 -> [8,21) x [2,15), clipped to [10,21) x [5,12)
 *   1: (26, 8) k 2 -> [24,29) x [6,11), meets both leaves
 *   2: well inside the image but outside the region: culled */
Test(index_host, hand_checked_region)
{
    qr_scene *s = qr_test_scene_new(3);
    qr_test_set_circle(s, 0, 14.0f / 64, 8.0f / 64, 6.0f / 64);
    qr_test_set_circle(s, 1, 26.0f / 64, 8.0f / 64, 2.0f / 64);
    qr_test_set_circle(s, 2, 0.5f, 0.75f, 0.05f);
    qr_rect region = QR_TEST_RECT(10, 30, 5, 12);
    qr_index_params p = qr_test_params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 64, 64, &region, &p);

    qr_rect box;
    cr_assert_eq(qr_index_circle_box(s, 0, 64, 64, &region, &box), 1);
    cr_assert(qr_test_rect_equal(box, QR_TEST_RECT(10, 21, 5, 12)), "box [%d,%d)x[%d,%d)",
              box.x0, box.x1, box.y0, box.y1);
    cr_assert_eq(qr_index_circle_box(s, 2, 64, 64, &region, &box), 0);
    cr_assert_eq(qr_index_circle_box(s, 2, 64, 64, NULL, &box), 1);

    cr_assert_eq(ix->root_size, 32);
    cr_assert_eq(ix->num_leaves, 2);
    cr_assert_eq(ix->num_nodes, 3);
    cr_assert_eq(ix->visible, 2);
    cr_assert_eq(ix->culled, 1);
    cr_assert_eq(ix->num_pairs, 3);
    const int32_t c01[] = {0, 1}, c1[] = {1};
    qr_test_expect_leaf(ix, 0, QR_TEST_RECT(10, 26, 5, 12), 1, 2, c01);
    qr_test_expect_leaf(ix, 1, QR_TEST_RECT(26, 30, 5, 12), 1, 1, c1);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* A single-pixel region: one leaf, [5,6) x [7,8). */
Test(index_host, region_one_pixel)
{
    qr_scene *s = qr_test_scene_new(4);
    /* 0 covers that pixel's centre; 1's box meets it, its centre 0.707 px
     * away; 2 covers everything; 3 is elsewhere */
    qr_test_set_circle(s, 0, 5.5f / 64, 7.5f / 64, 0.3f / 64);
    qr_test_set_circle(s, 1, 6.0f / 64, 8.0f / 64, 0.5f / 64);
    qr_test_set_circle(s, 2, 0.5f, 0.5f, 3.0f);
    qr_test_set_circle(s, 3, 0.9f, 0.9f, 0.05f);
    qr_rect region = QR_TEST_RECT(5, 6, 7, 8);
    qr_index_params p = qr_test_params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 64, 64, &region, &p);
    cr_assert_eq(ix->root_size, 16);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert_eq(ix->num_nodes, 1);
    cr_assert_eq(ix->visible, 2);
    const int32_t c02[] = {0, 2};
    qr_test_expect_leaf(ix, 0, region, 0, 2, c02);
    qr_index_destroy(ix);

    /* uniform mode cannot split it either */
    p.uniform = 1;
    ix = qr_test_index_checked(s, 64, 64, &region, &p);
    cr_assert_eq(ix->num_leaves, 1);
    qr_test_expect_leaf(ix, 0, region, 0, 2, c02);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* ---- edge cases ---------------------------------------------------------------- */

Test(index_host, empty_scene)
{
    qr_scene *s = qr_test_scene_new(0);
    qr_index_params p = qr_test_params(256, 32, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 640, 480, NULL, &p);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert_eq(ix->num_nodes, 1);
    cr_assert_eq(ix->num_pairs, 0);
    cr_assert_eq(ix->visible, 0);
    cr_assert_eq(ix->culled, 0);
    cr_assert_eq(ix->root_size, 1024);
    qr_test_expect_leaf(ix, 0, QR_TEST_RECT(0, 640, 0, 480), 0, 0, NULL);
    qr_index_destroy(ix);

    /* uniform mode still makes the grid: 640/32 x 480/32 empty tiles */
    p.uniform = 1;
    ix = qr_test_index_checked(s, 640, 480, NULL, &p);
    cr_assert_eq(ix->num_leaves, 20 * 15);
    cr_assert_eq(ix->num_pairs, 0);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

Test(index_host, one_circle)
{
    qr_scene *s = qr_test_scene_new(1);
    qr_test_set_circle(s, 0, 0.3f, 0.6f, 0.1f);
    const int32_t c0[] = {0};
    qr_index_params p = qr_test_params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 256, 256, NULL, &p);
    cr_assert_eq(ix->num_leaves, 1, "one circle never exceeds capacity 1");
    qr_test_expect_leaf(ix, 0, QR_TEST_RECT(0, 256, 0, 256), 0, 1, c0);
    qr_index_destroy(ix);

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
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

Test(index_host, all_offscreen)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 7, 500);
    for (int32_t i = 0; i < s->n; i++) { /* move every circle far right */
        s->x[i] = fabsf(s->x[i]) + 3.0f;
        if (s->r[i] > 1.0f) s->r[i] = 1.0f;
    }
    qr_index_params p = qr_test_params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 300, 200, NULL, &p);
    cr_assert_eq(ix->visible, 0);
    cr_assert_eq(ix->culled, 500);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert_eq(ix->num_pairs, 0);
    qr_test_expect_leaf(ix, 0, QR_TEST_RECT(0, 300, 0, 200), 0, 0, NULL);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* Five circles larger than the image: every node holds all five, so with
 * capacity 2 the tree goes down to min_leaf everywhere, each leaf listing
 * 0..4. */
Test(index_host, circles_bigger_than_image)
{
    qr_scene *s = qr_test_scene_new(5);
    for (int32_t i = 0; i < 5; i++)
        qr_test_set_circle(s, i, 0.5f + 0.1f * (float)i, 0.4f, 2.0f + (float)i);
    const int32_t all[] = {0, 1, 2, 3, 4};
    qr_index_params p = qr_test_params(2, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 100, 70, NULL, &p);
    cr_assert_eq(ix->root_size, 128);
    cr_assert_eq(ix->num_leaves, 7 * 5); /* ceil(100/16) x ceil(70/16) */
    cr_assert_eq(ix->num_pairs, 7 * 5 * 5);
    for (int32_t k = 0; k < ix->num_leaves; k++) {
        const qr_leaf *l = &ix->leaves[k];
        cr_assert_eq(l->depth, 3);
        qr_test_expect_leaf(ix, k, l->rect, 3, 5, all);
    }
    qr_index_destroy(ix);

    /* capacity 5 holds them all in the root */
    p.capacity = 5;
    ix = qr_test_index_checked(s, 100, 70, NULL, &p);
    cr_assert_eq(ix->num_leaves, 1);
    qr_test_expect_leaf(ix, 0, QR_TEST_RECT(0, 100, 0, 70), 0, 5, all);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* Non-square and non-power-of-two images, under several parameter sets. */
Test(index_host, image_shapes)
{
    const int32_t sizes[][2] = {{1000, 300}, {300, 1000}, {17, 301}, {100, 37},
                                {257, 257}, {1023, 1025}, {513, 16}, {1, 1}, {16, 16},
                                {32768, 16}, {16, 32768}};
    const qr_index_params ps[] = {qr_test_params(256, 32, 15, 0), qr_test_params(8, 16, 15, 0),
                                  qr_test_params(1, 16, 4, 0), qr_test_params(1, 64, 15, 0),
                                  qr_test_params(1, 16, 15, 1), qr_test_params(1, 32, 2, 1),
                                  qr_test_params(8, 4, 15, 0), qr_test_params(2, 8, 15, 0)};
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 99, 3000);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++)
            qr_test_index_check(s, sizes[k][0], sizes[k][1], NULL, &ps[j]);
    qr_scene_destroy(s);
}

Test(index_host, wide_and_tall_uniform_grid)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 3, 1000);
    qr_index_params p = qr_test_params(1, 16, QR_MAX_DEPTH_LIMIT, 1);
    qr_index *ix = qr_test_index_checked(s, 1000, 300, NULL, &p);
    cr_assert_eq(ix->root_size, 1024);
    cr_assert_eq(ix->num_leaves, 63 * 19);
    cr_assert_eq(ix->max_depth_reached, 6);
    qr_index_destroy(ix);
    ix = qr_test_index_checked(s, 300, 1000, NULL, &p);
    cr_assert_eq(ix->num_leaves, 19 * 63);
    qr_index_destroy(ix);

    /* max_depth 3 stops at 1024 >> 3 = 128: ceil(1000/128) x ceil(300/128) */
    p.max_depth = 3;
    ix = qr_test_index_checked(s, 1000, 300, NULL, &p);
    cr_assert_eq(ix->num_leaves, 8 * 3);
    for (int32_t k = 0; k < ix->num_leaves; k++)
        cr_assert_eq(ix->leaves[k].depth, 3);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

Test(index_host, one_by_one_image)
{
    qr_scene *s = qr_test_scene_new(3);
    qr_test_set_circle(s, 0, 0.5f, 0.5f, 0.1f);  /* covers the only pixel centre */
    qr_test_set_circle(s, 1, 0.9f, 0.9f, 0.05f); /* box [0,1)^2, centre 0.57 away */
    qr_test_set_circle(s, 2, 0.5f, 0.5f, 5.0f);
    qr_index_params p = qr_test_params(1, 16, QR_MAX_DEPTH_LIMIT, 1);
    qr_index *ix = qr_test_index_checked(s, 1, 1, NULL, &p);
    cr_assert_eq(ix->root_size, 16);
    cr_assert_eq(ix->num_leaves, 1);
    const int32_t c02[] = {0, 2};
    qr_test_expect_leaf(ix, 0, QR_TEST_RECT(0, 1, 0, 1), 0, 2, c02);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* 64 tiny circles in the bottom-left corner: the tree is deep there and
 * nowhere else (nodes split only when needed). */
Test(index_host, splits_only_where_needed)
{
    qr_scene *s = qr_test_scene_new(64);
    for (int32_t i = 0; i < 64; i++)
        qr_test_set_circle(s, i, (float)(4 + (i % 8) * 4) / 512, (float)(4 + (i / 8) * 4) / 512,
                           1.0f / 512);
    qr_index_params p = qr_test_params(4, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 512, 512, NULL, &p);
    cr_assert_eq(ix->visible, 64);
    cr_assert_eq(ix->max_depth_reached, 5);
    /* the three other quadrants of the root, and of its bottom-left child, ... */
    const qr_rect big[] = {QR_TEST_RECT(256, 512, 0, 256), QR_TEST_RECT(0, 256, 256, 512),
                           QR_TEST_RECT(256, 512, 256, 512), QR_TEST_RECT(128, 256, 0, 128),
                           QR_TEST_RECT(0, 128, 128, 256), QR_TEST_RECT(128, 256, 128, 256)};
    for (size_t b = 0; b < sizeof big / sizeof big[0]; b++) {
        int found = 0;
        for (int32_t k = 0; k < ix->num_leaves; k++)
            found |= qr_test_rect_equal(ix->leaves[k].rect, big[b]) && ix->leaves[k].count == 0;
        cr_assert(found, "no empty leaf [%d,%d)x[%d,%d)", big[b].x0, big[b].x1, big[b].y0,
                  big[b].y1);
    }
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* ---- regions ------------------------------------------------------------------- */

Test(index_host, regions)
{
    qr_scene *s = qr_test_builtin("rand10k", 0);
    const qr_rect regions[] = {QR_TEST_RECT(0, 640, 100, 200), QR_TEST_RECT(37, 291, 53, 170),
                               QR_TEST_RECT(0, 640, 0, 480), QR_TEST_RECT(639, 640, 479, 480),
                               QR_TEST_RECT(600, 640, 0, 480), QR_TEST_RECT(5, 6, 7, 8)};
    const qr_index_params ps[] = {qr_test_params(256, 32, 15, 0), qr_test_params(16, 16, 15, 0),
                                  qr_test_params(1, 16, 15, 1), qr_test_params(4, 32, 3, 0)};
    for (size_t k = 0; k < sizeof regions / sizeof regions[0]; k++)
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++)
            qr_test_index_check(s, 640, 480, &regions[k], &ps[j]);

    /* the band as a uniform 32-grid: 20 columns, rows at 100, 132, 164, 196
     * (the last clipped to 4 pixels) */
    qr_rect band = QR_TEST_RECT(0, 640, 100, 200);
    qr_index_params p = qr_test_params(1, 32, QR_MAX_DEPTH_LIMIT, 1);
    qr_index *ix = qr_test_index_checked(s, 640, 480, &band, &p);
    cr_assert_eq(ix->root_size, 1024);
    cr_assert_eq(ix->num_leaves, 20 * 4);
    int clipped = 0;
    for (int32_t k = 0; k < ix->num_leaves; k++)
        clipped += ix->leaves[k].rect.y0 == 196 && ix->leaves[k].rect.y1 == 200;
    cr_assert_eq(clipped, 20);
    cr_assert(qr_test_rect_equal(ix->leaves[0].rect, QR_TEST_RECT(0, 32, 100, 132)));
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* A region equal to the whole image indexes exactly like region NULL. */
Test(index_host, full_region_equals_null)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 21, 3000);
    qr_index_params p = qr_test_params(8, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_rect full = qr_rect_full(333, 200);
    qr_index *a = qr_test_index_checked(s, 333, 200, NULL, &p);
    qr_index *b = qr_test_index_checked(s, 333, 200, &full, &p);
    cr_assert_eq(a->num_leaves, b->num_leaves);
    cr_assert_eq(a->num_pairs, b->num_pairs);
    cr_assert(memcmp(a->leaves, b->leaves, (size_t)a->num_leaves * sizeof *a->leaves) == 0);
    cr_assert(memcmp(a->lists, b->lists, (size_t)a->num_pairs * sizeof *a->lists) == 0);
    qr_index_destroy(a);
    qr_index_destroy(b);
    qr_scene_destroy(s);
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
    qr_scene *s = qr_test_builtin("rand10k", 0);
    qr_scene *c = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_clone(s, &c, &err), QR_OK, "%s", err.msg);
    qr_index_params p = qr_test_params(32, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_rect region = QR_TEST_RECT(37, 291, 53, 170);
    qr_index *a = qr_test_index_build(s, 640, 480, NULL, &p);
    qr_index *b = qr_test_index_build(s, 640, 480, NULL, &p);
    qr_index *d = qr_test_index_build(c, 640, 480, NULL, &p);
    cr_assert(a->num_leaves > 10);
    expect_same(a, b);
    expect_same(a, d);
    qr_index_destroy(a);
    qr_index_destroy(b);
    qr_index_destroy(d);
    a = qr_test_index_build(s, 640, 480, &region, &p);
    b = qr_test_index_build(s, 640, 480, &region, &p);
    expect_same(a, b);
    qr_index_destroy(a);
    qr_index_destroy(b);
    qr_scene_destroy(c);
    qr_scene_destroy(s);
}

/* Trees deeper than the levels the build counts over grids (the top six):
 * the nodes of depth 6 that split become subtrees, built by list
 * splitting and joined in depth-first order. Checked against brute force,
 * and the same index on any thread count. */
Test(index_host, deep_trees)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 33, 3000);
    const qr_index_params ps[] = {qr_test_params(2, 16, QR_MAX_DEPTH_LIMIT, 0),
                                  qr_test_params(1, 16, QR_MAX_DEPTH_LIMIT, 1)};
    const qr_rect region = QR_TEST_RECT(100, 1900, 333, 2047);
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
        qr_index *a = qr_test_index_checked(s, 2048, 2048, NULL, &ps[k]);
        cr_assert_eq(a->max_depth_reached, 7, "the tree reaches below the grid levels");
        for (int threads = 1; threads <= 7; threads += 3) {
            qr_index *b = NULL;
            qr_error err;
            cr_assert_eq(qr_index_build_host_threads(s, 2048, 2048, NULL, &ps[k], QR_RENDER_FAST,
                                                     threads, &b, &err),
                         QR_OK, "%s", err.msg);
            expect_same(a, b);
            qr_index_destroy(b);
        }
        qr_index_destroy(a);
        qr_test_index_check(s, 2048, 2048, &region, &ps[k]);
    }
    qr_scene_destroy(s);
}

/* ---- built-in scenes ------------------------------------------------------------ */

static void check_builtin(const char *name)
{
    qr_scene *s = qr_test_builtin(name, 0);
    const int32_t sizes[][2] = {{512, 512}, {640, 480}};
    qr_index_params def;
    qr_index_params_default(&def);
    const qr_index_params ps[] = {def, qr_test_params(16, 16, 15, 0), qr_test_params(64, 32, 3, 0),
                                  qr_test_params(1, 16, 15, 1), qr_test_params(1000, 64, 15, 0)};
    const qr_rect region = QR_TEST_RECT(37, 291, 53, 170);
    for (int k = 0; k < 2; k++) {
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++)
            qr_test_index_check(s, sizes[k][0], sizes[k][1], NULL, &ps[j]);
        qr_test_index_check(s, sizes[k][0], sizes[k][1], &region, &ps[1]);
    }
    qr_scene_destroy(s);
}

Test(index_host, builtin_rand10k) { check_builtin("rand10k"); }
Test(index_host, builtin_biglittle) { check_builtin("biglittle"); }
Test(index_host, builtin_pattern) { check_builtin("pattern"); }
