/* test_index_plan.c — the settings a plan times (qr_index_plan_candidates):
 * the base first, every candidate valid and distinct, changed only where
 * the plan table changes it, a grid left alone; and every candidate's index
 * renders the reference's bytes in exact mode (the fast CPU renderer
 * against qr_render_cpu), so a plan never changes an image. The timing
 * itself runs on the GPU (test_gpu_render.c, gpu_render.plan).
 *
 * Runs without a GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "quadrender/index.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"
#include "random_scene.h"
#include "test_util.h"

static int same(const qr_index_params *a, const qr_index_params *b)
{
    return !memcmp(a, b, sizeof *a);
}

static void check_candidates(const qr_index_params *base)
{
    qr_index_params c[QR_PLAN_MAX + 4];
    const int n = qr_index_plan_candidates(base, c, QR_PLAN_MAX);
    cr_assert(n >= 2 && n <= QR_PLAN_MAX, "%d candidates", n);
    cr_assert(same(&c[0], base), "the base settings come first");
    for (int i = 0; i < n; i++) {
        qr_error err;
        cr_assert_eq(qr_index_params_check(&c[i], &err), QR_OK, "candidate %d: %s", i, err.msg);
        /* only the fields a plan varies */
        cr_assert_eq(c[i].max_depth, base->max_depth);
        /* a maximum leaf only ever lowered */
        cr_assert(!base->max_leaf || (c[i].max_leaf && c[i].max_leaf <= base->max_leaf));
        cr_assert_eq(c[i].uniform, 0);
        for (int j = 0; j < i; j++) cr_assert(!same(&c[i], &c[j]), "candidates %d and %d are equal", j, i);
    }
    /* max bounds what is written, in the same order */
    qr_index_params two[2];
    cr_assert_eq(qr_index_plan_candidates(base, two, 2), 2);
    cr_assert(same(&two[0], &c[0]) && same(&two[1], &c[1]));
    cr_assert_eq(qr_index_plan_candidates(base, two, 0), 0);
}

Test(index_plan, candidates_of_the_defaults)
{
    qr_index_params p;
    qr_index_params_default(&p);
    check_candidates(&p);
}

Test(index_plan, candidates_of_other_settings)
{
    qr_index_params p;
    qr_index_params_default(&p);
    p.min_leaf = 16;
    p.capacity = 100;
    check_candidates(&p);
    p.min_leaf = 128;
    p.split_cost = 0;
    p.deep_leaf = 0;
    check_candidates(&p);
}

Test(index_plan, a_grid_is_its_own_only_candidate)
{
    qr_index_params p, c[QR_PLAN_MAX];
    qr_index_params_default(&p);
    p.uniform = 1;
    p.min_leaf = 32;
    cr_assert_eq(qr_index_plan_candidates(&p, c, QR_PLAN_MAX), 1);
    cr_assert(same(&c[0], &p));
}

/* Every candidate's index, exact mode: the reference's bytes. */
Test(index_plan, every_candidate_renders_the_reference, .timeout = 300)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 7, 4000);
    const int w = 200, h = 136;
    qr_image *ref = NULL, *img = NULL;
    qr_error err;
    QR_CHECK(err, qr_image_create(w, h, &ref, &err));
    QR_CHECK(err, qr_image_create(w, h, &img, &err));
    QR_CHECK(err, qr_render_cpu(s, ref, &err));
    qr_index_params base, c[QR_PLAN_MAX];
    qr_index_params_default(&base);
    base.capacity = 64; /* splits on this small scene, so candidates differ in trees */
    const int n = qr_index_plan_candidates(&base, c, QR_PLAN_MAX);
    for (int i = 0; i < n; i++) {
        QR_CHECK(err, qr_render_cpu_fast(s, &c[i], QR_RENDER_EXACT, 2, img, NULL, &err));
        cr_assert(!memcmp(img->rgba, ref->rgba, (size_t)w * h * 4 * sizeof(float)),
                  "candidate %d (capacity %d, min leaf %d, split cost %d, deep leaf %d) differs", i,
                  c[i].capacity, c[i].min_leaf, c[i].split_cost, c[i].deep_leaf);
    }
    qr_image_destroy(ref);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}
