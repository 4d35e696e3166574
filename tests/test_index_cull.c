/* test_index_cull.c — which circles the host quadtree oracle keeps, and
 * their pixel boxes (qr_index_circle_box, qr_index_build_host).
 *
 * Runs without a GPU. Bad values (r <= 0, NaN, infinities), off-screen
 * circles and circles near pixel scale are worked out by hand at sizes where
 * every float operation is exact (pixel centres at (p + 0.5) / 8), and many
 * random circles are compared with the invariant checker's model of the
 * culling rule (support/index_check.h).
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
    qr_scene *s = qr_test_scene_new(11);
    qr_test_set_circle(s, 0, 0.5f, 0.5f, 0.0f);
    qr_test_set_circle(s, 1, 0.5f, 0.5f, -0.0f);
    qr_test_set_circle(s, 2, 0.5f, 0.5f, -0.1f);
    qr_test_set_circle(s, 3, NAN, 0.5f, 0.1f);
    qr_test_set_circle(s, 4, 0.5f, NAN, 0.1f);
    qr_test_set_circle(s, 5, 0.5f, 0.5f, NAN);
    qr_test_set_circle(s, 6, INFINITY, 0.5f, 0.1f);
    qr_test_set_circle(s, 7, 0.5f, -INFINITY, 0.1f);
    qr_test_set_circle(s, 8, 0.5f, 0.5f, INFINITY);
    qr_test_set_circle(s, 9, 0.25f, 0.25f, 0.125f); /* the one good circle: [16,49)^2 at 128 */
    qr_test_set_circle(s, 10, -INFINITY, INFINITY, -INFINITY);
    for (int32_t i = 0; i < 11; i++)
        if (i != 9) expect_culled(s, i, 128, 128, "r <= 0 or not finite");
    expect_box(s, 9, 128, 128, QR_TEST_RECT(16, 49, 16, 49), "ordinary circle");

    qr_index_params p;
    qr_index_params_default(&p);
    p.capacity = 1;
    p.min_leaf = 16;
    qr_index *ix = qr_test_index_checked(s, 128, 128, NULL, &p);
    cr_assert_eq(ix->visible, 1);
    cr_assert_eq(ix->culled, 10);
    cr_assert_eq(ix->num_leaves, 1, "one visible circle fits capacity 1");
    const int32_t c9[] = {9};
    qr_test_expect_leaf(ix, 0, QR_TEST_RECT(0, 128, 0, 128), 0, 1, c9);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* Off-screen on each side by more than a pixel (at 64 x 64), and boxes that
 * start exactly at the far edge. */
Test(index_host, cull_offscreen)
{
    qr_scene *s = qr_test_scene_new(7);
    qr_test_set_circle(s, 0, -0.1f, 0.5f, 0.05f); /* left */
    qr_test_set_circle(s, 1, 1.1f, 0.5f, 0.05f);  /* right */
    qr_test_set_circle(s, 2, 0.5f, 1.1f, 0.05f);  /* top */
    qr_test_set_circle(s, 3, 0.5f, -0.1f, 0.05f); /* bottom */
    qr_test_set_circle(s, 4, 1.25f, 0.5f, 0.25f); /* (x - r) * W = W exactly: box [64,64) */
    qr_test_set_circle(s, 5, 0.5f, 1.25f, 0.25f); /* likewise on top */
    qr_test_set_circle(s, 6, -5.0f, -5.0f, 1.0f); /* far below left */
    for (int32_t i = 0; i < 7; i++)
        expect_culled(s, i, 64, 64, "off-screen");
    qr_index_params p = qr_test_params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 64, 64, NULL, &p);
    cr_assert_eq(ix->visible, 0);
    cr_assert_eq(ix->culled, 7);
    cr_assert_eq(ix->num_leaves, 1);
    cr_assert_eq(ix->num_pairs, 0);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* 8 x 8: pixel centres at (p + 0.5) / 8, all exact in float. */
Test(index_host, cull_subpixel)
{
    qr_scene *s = qr_test_scene_new(7);
    /* centre on a pixel corner, radius 1/4 px: box [3,5)^2, nearest centre 0.71 px */
    qr_test_set_circle(s, 0, 0.5f, 0.5f, 0.25f / 8);
    /* centre on pixel (4,4)'s centre, radius 1/4 px: box [4,5)^2, covers it */
    qr_test_set_circle(s, 1, 4.5f / 8, 4.5f / 8, 0.25f / 8);
    /* on the edge between rows 3 and 4, radius exactly 1/2 px: the centres of
     * (4,3) and (4,4) lie on the circle, d2 == r2 counts as covered */
    qr_test_set_circle(s, 2, 4.5f / 8, 0.5f, 0.5f / 8);
    /* the same, a hair smaller: both centres just outside */
    qr_test_set_circle(s, 3, 4.5f / 8, 0.5f, 0.499f / 8);
    /* centre on pixel (0,0)'s centre, tiny radius: still covers it */
    qr_test_set_circle(s, 4, 0.5f / 8, 0.5f / 8, 0.001f / 8);
    /* centre on pixel (6,6)'s centre, but r = 0 and r = -0: culled, although
     * d2 = 0 <= r*r */
    qr_test_set_circle(s, 5, 6.5f / 8, 6.5f / 8, 0.0f);
    qr_test_set_circle(s, 6, 6.5f / 8, 6.5f / 8, -0.0f);

    expect_culled(s, 0, 8, 8, "between pixel centres");
    expect_box(s, 1, 8, 8, QR_TEST_RECT(4, 5, 4, 5), "one pixel centre");
    expect_box(s, 2, 8, 8, QR_TEST_RECT(4, 6, 3, 5), "centres on the rim");
    expect_culled(s, 3, 8, 8, "centres just outside the rim");
    expect_box(s, 4, 8, 8, QR_TEST_RECT(0, 1, 0, 1), "tiny circle on a pixel centre");
    expect_culled(s, 5, 8, 8, "r = 0 on a pixel centre");
    expect_culled(s, 6, 8, 8, "r = -0 on a pixel centre");

    qr_index_params p = qr_test_params(1, 16, QR_MAX_DEPTH_LIMIT, 0);
    qr_index *ix = qr_test_index_checked(s, 8, 8, NULL, &p);
    cr_assert_eq(ix->visible, 3);
    cr_assert_eq(ix->culled, 4);
    const int32_t c124[] = {1, 2, 4};
    qr_test_expect_leaf(ix, 0, QR_TEST_RECT(0, 8, 0, 8), 0, 3, c124);
    qr_index_destroy(ix);
    qr_scene_destroy(s);
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
        qr_scene *s = qr_test_scene_new(20000);
        for (int32_t i = 0; i < s->n; i++) {
            float r = qr_test_rng_float(&st, 0.0f, 2.5f) / (float)(w > h ? w : h);
            const float x = qr_test_rng_float(&st, -0.05f, 1.05f);
            qr_test_set_circle(s, i, x, qr_test_rng_float(&st, -0.05f, 1.05f), r);
        }
        qr_rect regions[2] = {qr_rect_full(w, h), QR_TEST_RECT(w / 3, w - w / 4, h / 5, h - h / 3)};
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
        qr_scene_destroy(s);
    }
}
