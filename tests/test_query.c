/* test_query.c — point and box queries on the host (quadrender/query.h)
 * against the brute-force oracle: every mode, built-in and random scenes
 * (with every value the index culls), points at pixel centres, on cell
 * edges, on the square's edges, outside it and NaN; boxes of every size;
 * the same answers whatever the resolution, the tree or the threads; a
 * point at a pixel centre meets what the reference renderer blends there.
 * The oracle is itself checked against a direct count on a tiny scene.
 */
#include <math.h>

#include "common/circle_math.h"
#include "quadrender/query.h"
#include "quadrender/render_cpu.h"
#include "quadrender/image.h"
#include "random_scene.h"
#include "test_util.h"

static void assert_same(const qr_query_result *a, const qr_query_result *b, const char *what)
{
    cr_assert_eq(a->queries, b->queries, "%s: queries", what);
    cr_assert_eq(a->mode, b->mode, "%s: mode", what);
    if (a->mode != QR_QUERY_ALL) {
        for (int64_t q = 0; q < a->queries; q++)
            cr_assert_eq(a->values[q], b->values[q], "%s: query %lld: %d, oracle %d", what,
                         (long long)q, a->values[q], b->values[q]);
        return;
    }
    for (int64_t q = 0; q <= a->queries; q++)
        cr_assert_eq(a->offsets[q], b->offsets[q], "%s: offsets[%lld]: %lld, oracle %lld", what,
                     (long long)q, (long long)a->offsets[q], (long long)b->offsets[q]);
    for (int64_t k = 0; k < a->offsets[a->queries]; k++)
        cr_assert_eq(a->ids[k], b->ids[k], "%s: ids[%lld]", what, (long long)k);
}

/* Points of every kind: uniform, at pixel centres of a 97 x 97 image, on
 * the index's cell edges, on circles' rims, on the square's edges, outside
 * it, NaN. */
static float *make_points(const qr_scene *s, int32_t res, int64_t n, uint64_t seed)
{
    float *xy = malloc((size_t)n * 2 * sizeof(float));
    qr_test_rng g = qr_test_rng_seed(seed);
    for (int64_t q = 0; q < n; q++) {
        float x, y;
        switch (q % 8) {
        case 0: case 1:
            x = qr_test_rng_float(&g, 0.0f, 1.0f), y = qr_test_rng_float(&g, 0.0f, 1.0f);
            break;
        case 2:
            x = (qr_test_rng_below(&g, 97) + 0.5f) * (1.0f / 97), y = (qr_test_rng_below(&g, 97) + 0.5f) * (1.0f / 97);
            break;
        case 3:
            x = (float)qr_test_rng_below(&g, (uint32_t)res + 1) / (float)res;
            y = (float)qr_test_rng_below(&g, (uint32_t)res + 1) / (float)res;
            break;
        case 4: { /* on a circle's rim, right or up */
            const int32_t i = s->n ? (int32_t)qr_test_rng_below(&g, (uint32_t)s->n) : 0;
            x = s->n ? s->x[i] + ((q / 8) % 2 ? s->r[i] : 0.0f) : 0.5f;
            y = s->n ? s->y[i] + ((q / 8) % 2 ? 0.0f : -s->r[i]) : 0.5f;
            break;
        }
        case 5:
            x = (q / 8) % 2 ? 0.0f : 1.0f, y = qr_test_rng_float(&g, 0.0f, 1.0f);
            break;
        case 6:
            x = qr_test_rng_float(&g, -0.5f, 1.5f), y = qr_test_rng_float(&g, -0.5f, 1.5f);
            break;
        default:
            x = (q / 8) % 2 ? NAN : 0.5f, y = (q / 8) % 2 ? 0.5f : NAN;
        }
        xy[2 * q] = x, xy[2 * q + 1] = y;
    }
    return xy;
}

static float *make_boxes(int64_t n, uint64_t seed)
{
    float *b = malloc((size_t)n * 4 * sizeof(float));
    qr_test_rng g = qr_test_rng_seed(seed);
    static const float sides[] = {0.0f, 0.001f, 0.01f, 0.1f, 0.5f, 2.0f};
    for (int64_t q = 0; q < n; q++) {
        const float w = sides[q % 6] * qr_test_rng_float(&g, 0.5f, 1.0f);
        const float h = sides[(q / 6) % 6] * qr_test_rng_float(&g, 0.5f, 1.0f);
        const float x = qr_test_rng_float(&g, -0.2f, 1.1f), y = qr_test_rng_float(&g, -0.2f, 1.1f);
        b[4 * q] = x, b[4 * q + 1] = y, b[4 * q + 2] = x + w, b[4 * q + 3] = y + h;
    }
    return b;
}

/* Every mode of points and boxes through an index of `scene` at res with
 * params (NULL: default) on threads, against the oracle. */
static void check_scene(const qr_scene *s, int32_t res, const qr_index_params *p, int threads,
                        const char *what)
{
    qr_error err;
    qr_query_index *q;
    QR_CHECK(err, qr_query_index_build(s, res, p, threads, &q, &err));
    /* fewer where the oracle's every circle against every query is long */
    const int64_t np = s->n > 100000 ? 400 : 4000, nb = s->n > 100000 ? 40 : 300;
    float *xy = make_points(s, qr_query_index_resolution(q), np, 11);
    float *boxes = make_boxes(nb, 12);
    for (int m = QR_QUERY_TOP; m <= QR_QUERY_ALL; m++) {
        qr_query_result got, want;
        QR_CHECK(err, qr_query_points(q, xy, np, (qr_query_mode)m, threads, &got, &err));
        QR_CHECK(err, qr_query_points_brute(s, xy, np, (qr_query_mode)m, &want, &err));
        assert_same(&got, &want, what);
        qr_query_result_free(&got);
        qr_query_result_free(&want);
        QR_CHECK(err, qr_query_boxes(q, boxes, nb, (qr_query_mode)m, threads, &got, &err));
        QR_CHECK(err, qr_query_boxes_brute(s, boxes, nb, (qr_query_mode)m, &want, &err));
        assert_same(&got, &want, what);
        qr_query_result_free(&got);
        qr_query_result_free(&want);
    }
    free(xy);
    free(boxes);
    qr_query_index_destroy(q);
}

Test(query, builtin_scenes_every_mode, .timeout = 300)
{
    static const char *const names[] = {"rgb", "pattern", "rand10k", "biglittle", "littlebig",
                                        "clusters", "hotspot", "ring", "powerlaw"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        qr_error err;
        qr_scene *s;
        QR_CHECK(err, qr_scene_builtin(names[k], 0, &s, &err));
        check_scene(s, 0, NULL, 2, names[k]);
        qr_scene_destroy(s);
    }
}

Test(query, random_scenes_with_culled_values, .timeout = 300)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        qr_scene *s = qr_test_random_scene(seed % 2 ? QR_TEST_MIX_HOSTILE : QR_TEST_MIX_RENDERABLE,
                                           seed, 3000);
        char what[64];
        snprintf(what, sizeof what, "mix seed %llu", (unsigned long long)seed);
        check_scene(s, 0, NULL, 2, what);
        qr_scene_destroy(s);
    }
}

/* The answers do not depend on the resolution, the tree or the threads. */
Test(query, same_answers_any_resolution_tree_threads, .timeout = 300)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 7, 5000);
    qr_index_params grid;
    qr_index_params_default(&grid);
    grid.uniform = 1;
    grid.min_leaf = 16;
    check_scene(s, 16, NULL, 1, "resolution 16");
    check_scene(s, 1024, NULL, 3, "resolution 1024, 3 threads");
    check_scene(s, 2048, &grid, 2, "a uniform grid of 16 cells at 2048");
    qr_index_params one;
    qr_index_params_default(&one);
    one.capacity = 1 << 30;
    check_scene(s, 256, &one, 2, "one leaf");
    qr_scene_destroy(s);
    /* circles larger than the square, and small ones among them */
    s = qr_test_large_circles(300, 0.3f, 2.0f, 3000, 5);
    check_scene(s, 0, NULL, 2, "large circles");
    qr_scene_destroy(s);
}

/* Circles covering the whole square: splitting shortens nothing, so the
 * index keeps its leaves large (at most 64 entries per circle), and still
 * answers as the oracle. */
Test(query, large_circles_keep_leaves_large, .timeout = 120)
{
    qr_scene *s = qr_test_large_circles(5000, 2.0f, 2.0f, 0, 3);
    qr_error err;
    qr_query_index *q;
    QR_CHECK(err, qr_query_index_build(s, 1024, NULL, 2, &q, &err));
    const qr_index *t = qr_query_index_tree(q);
    cr_assert_eq(t->visible, 5000);
    cr_assert(t->num_pairs <= 64LL * t->visible, "%lld pairs for %d circles", (long long)t->num_pairs,
              t->visible);
    cr_assert(t->num_leaves > 1, "one leaf: coarsened past what the bound asks");
    qr_query_index_destroy(q);
    check_scene(s, 1024, NULL, 2, "radius 2");
    qr_scene_destroy(s);
}

Test(query, empty_scene_and_empty_batches)
{
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_create(0, QR_ANIM_NONE, &s, &err));
    check_scene(s, 0, NULL, 2, "empty scene");
    qr_query_index *q;
    QR_CHECK(err, qr_query_index_build(s, 64, NULL, 1, &q, &err));
    qr_query_result r;
    QR_CHECK(err, qr_query_points(q, NULL, 0, QR_QUERY_ALL, 1, &r, &err));
    cr_assert(r.queries == 0 && r.offsets && r.offsets[0] == 0);
    qr_query_result_free(&r);
    QR_CHECK(err, qr_query_boxes(q, NULL, 0, QR_QUERY_TOP, 1, &r, &err));
    cr_assert_eq(r.queries, 0);
    qr_query_result_free(&r);
    qr_query_index_destroy(q);
    qr_scene_destroy(s);
}

/* The oracle itself, against a count made here, on circles whose answers
 * are known: three nested circles around (0.5, 0.5). */
Test(query, oracle_knows_nested_circles)
{
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_create(4, QR_ANIM_NONE, &s, &err));
    const float r[4] = {0.4f, 0.2f, 0.1f, -1.0f};
    for (int i = 0; i < 4; i++)
        s->x[i] = 0.5f, s->y[i] = 0.5f, s->r[i] = r[i];
    const float xy[] = {0.5f, 0.5f, 0.65f, 0.5f, 0.85f, 0.5f, 0.95f, 0.5f, 2.0f, 0.5f, NAN, 0.5f};
    const int32_t top[] = {2, 1, 0, -1, -1, -1}, count[] = {3, 2, 1, 0, 0, 0};
    qr_query_index *q;
    QR_CHECK(err, qr_query_index_build(s, 0, NULL, 1, &q, &err));
    for (int brute = 0; brute < 2; brute++) {
        qr_query_result t, c, a;
        if (brute) {
            QR_CHECK(err, qr_query_points_brute(s, xy, 6, QR_QUERY_TOP, &t, &err));
            QR_CHECK(err, qr_query_points_brute(s, xy, 6, QR_QUERY_COUNT, &c, &err));
            QR_CHECK(err, qr_query_points_brute(s, xy, 6, QR_QUERY_ALL, &a, &err));
        } else {
            QR_CHECK(err, qr_query_points(q, xy, 6, QR_QUERY_TOP, 1, &t, &err));
            QR_CHECK(err, qr_query_points(q, xy, 6, QR_QUERY_COUNT, 1, &c, &err));
            QR_CHECK(err, qr_query_points(q, xy, 6, QR_QUERY_ALL, 1, &a, &err));
        }
        for (int k = 0; k < 6; k++) {
            cr_assert_eq(t.values[k], top[k], "point %d top", k);
            cr_assert_eq(c.values[k], count[k], "point %d count", k);
            cr_assert_eq(a.offsets[k + 1] - a.offsets[k], count[k], "point %d all", k);
        }
        cr_assert(a.ids[0] == 0 && a.ids[1] == 1 && a.ids[2] == 2, "drawing order");
        qr_query_result_free(&t);
        qr_query_result_free(&c);
        qr_query_result_free(&a);
    }
    /* a box just right of the middle circle touches all three; one past
     * the big one's rim touches none */
    const float boxes[] = {0.69f, 0.4f, 0.7f, 0.6f, 0.91f, 0.91f, 1.0f, 1.0f};
    qr_query_result b;
    QR_CHECK(err, qr_query_boxes(q, boxes, 2, QR_QUERY_COUNT, 1, &b, &err));
    cr_assert(b.values[0] == 2 && b.values[1] == 0, "boxes: %d %d", b.values[0], b.values[1]);
    qr_query_result_free(&b);
    qr_query_index_destroy(q);
    qr_scene_destroy(s);
}

/* A point at a pixel centre meets exactly what the reference renderer
 * blends there: blending its ALL answer in order over the background gives
 * the reference's pixel, bit for bit. */
Test(query, pixel_centres_meet_what_the_renderer_blends, .timeout = 120)
{
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_builtin("rand10k", 0, &s, &err));
    const int32_t w = 131, h = 67;
    qr_image *img;
    QR_CHECK(err, qr_image_create(w, h, &img, &err));
    qr_image_clear(img, s->shading);
    QR_CHECK(err, qr_render_cpu(s, img, &err));
    float *xy = malloc((size_t)w * h * 2 * sizeof(float));
    for (int32_t j = 0; j < h; j++)
        for (int32_t i = 0; i < w; i++) {
            xy[2 * ((size_t)j * w + i)] = qr_pixel_center(i, 1.0f / (float)w);
            xy[2 * ((size_t)j * w + i) + 1] = qr_pixel_center(j, 1.0f / (float)h);
        }
    qr_query_index *q;
    QR_CHECK(err, qr_query_index_build(s, 0, NULL, 2, &q, &err));
    qr_query_result a;
    QR_CHECK(err, qr_query_points(q, xy, (int64_t)w * h, QR_QUERY_ALL, 2, &a, &err));
    for (int64_t p = 0; p < (int64_t)w * h; p++) {
        float px[4] = {1.0f, 1.0f, 1.0f, 1.0f};
        for (int64_t k = a.offsets[p]; k < a.offsets[p + 1]; k++) {
            const int32_t i = a.ids[k];
            qr_blend(0.5f, s->red[i], s->green[i], s->blue[i], px);
        }
        for (int c = 0; c < 3; c++)
            cr_assert_eq(px[c], img->rgba[4 * p + c], "pixel %lld channel %d", (long long)p, c);
    }
    qr_query_result_free(&a);
    qr_query_index_destroy(q);
    free(xy);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

Test(query, bad_boxes_and_options)
{
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_builtin("rgb", 0, &s, &err));
    qr_query_index *q;
    QR_CHECK(err, qr_query_index_build(s, 0, NULL, 1, &q, &err));
    const float boxes[] = {0, 0, 1, 1, 0.5f, 0, 0.4f, 1, NAN, 0, 1, 1};
    qr_query_result r;
    cr_assert_eq(qr_query_boxes(q, boxes, 3, QR_QUERY_ALL, 1, &r, &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "box 1: x0 0.5 > x1 0.4");
    cr_assert_eq(qr_query_check_boxes(boxes + 8, 1, &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "box 0: x0 is not a number");
    qr_query_mode m;
    cr_assert_eq(qr_query_check_mode("--mode", "first", &m, &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "--mode: expected 'top', 'count' or 'all', got 'first'");
    QR_CHECK(err, qr_query_check_mode("--mode", "all", &m, &err));
    cr_assert_eq(m, QR_QUERY_ALL);
    int32_t res;
    cr_assert_eq(qr_query_check_resolution("--resolution", "100", &res, &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "--resolution: expected 0 (chosen from the scene) or a power of "
                              "two from 16 to 32768, got '100'");
    QR_CHECK(err, qr_query_check_resolution("--resolution", "0", &res, &err));
    cr_assert_eq(res, 0);
    cr_assert_eq(qr_query_index_build(s, 100, NULL, 1, &q, &err), QR_ERR_INVALID);
    qr_query_index_destroy(q);
    qr_scene_destroy(s);
}

Test(query, resolution_chosen_from_the_scene)
{
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_create(0, QR_ANIM_NONE, &s, &err));
    cr_assert_eq(qr_query_resolution(s), 256);
    qr_scene_destroy(s);
    QR_CHECK(err, qr_scene_create(250000, QR_ANIM_NONE, &s, &err));
    cr_assert_eq(qr_query_resolution(s), 1024); /* 2 sqrt(n) = 1000 */
    qr_scene_destroy(s);
    QR_CHECK(err, qr_scene_create(4000000, QR_ANIM_NONE, &s, &err));
    cr_assert_eq(qr_query_resolution(s), 4096);
    qr_scene_destroy(s);
}
