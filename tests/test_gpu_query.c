/* test_gpu_query.c — point and box queries on the GPU (quadrender/
 * gpu_query.h) against the host's (quadrender/query.h, itself checked
 * against the brute-force oracle by test_query.c) and, on the smaller
 * scenes, against the oracle directly: every mode, points and boxes given
 * in device memory and on the host, built-in and random scenes, large
 * circles, several resolutions, an empty scene and empty batches, the
 * brute-force kernel, and a bad box named as the host names it.
 */
#include <cuda_runtime_api.h>
#include <math.h>

#include "gpu_util.h"
#include "quadrender/gpu_query.h"
#include "quadrender/query.h"
#include "query/query_internal.h"

static void *to_device(const void *host, size_t bytes)
{
    void *d = NULL;
    cr_assert_eq(cudaMalloc(&d, bytes ? bytes : 1), cudaSuccess);
    if (bytes) cr_assert_eq(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    return d;
}

/* The device answer r copied to the host, compared with want. */
static void assert_device_same(const qr_query_result *r, const qr_query_result *want, const char *what)
{
    cr_assert_eq(r->queries, want->queries, "%s: queries", what);
    const int64_t n = want->queries;
    if (want->mode != QR_QUERY_ALL) {
        int32_t *v = malloc((size_t)(n ? n : 1) * 4);
        cr_assert_eq(cudaMemcpy(v, r->values, (size_t)n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int64_t q = 0; q < n; q++)
            cr_assert_eq(v[q], want->values[q], "%s: mode %d query %lld: GPU %d, host %d", what,
                         (int)want->mode, (long long)q, v[q], want->values[q]);
        free(v);
        return;
    }
    int64_t *off = malloc((size_t)(n + 1) * 8);
    cr_assert_eq(cudaMemcpy(off, r->offsets, (size_t)(n + 1) * 8, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int64_t q = 0; q <= n; q++)
        cr_assert_eq(off[q], want->offsets[q], "%s: offsets[%lld]", what, (long long)q);
    const int64_t total = want->offsets[n];
    int32_t *ids = malloc((size_t)(total ? total : 1) * 4);
    cr_assert_eq(cudaMemcpy(ids, r->ids, (size_t)total * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int64_t k = 0; k < total; k++)
        cr_assert_eq(ids[k], want->ids[k], "%s: ids[%lld]", what, (long long)k);
    free(ids);
    free(off);
}

static void assert_host_same(const qr_query_result *a, const qr_query_result *b, const char *what)
{
    cr_assert_eq(a->queries, b->queries, "%s", what);
    if (a->mode != QR_QUERY_ALL) {
        for (int64_t q = 0; q < a->queries; q++)
            cr_assert_eq(a->values[q], b->values[q], "%s: query %lld", what, (long long)q);
        return;
    }
    for (int64_t q = 0; q <= a->queries; q++)
        cr_assert_eq(a->offsets[q], b->offsets[q], "%s: offsets[%lld]", what, (long long)q);
    for (int64_t k = 0; k < a->offsets[a->queries]; k++)
        cr_assert_eq(a->ids[k], b->ids[k], "%s: ids[%lld]", what, (long long)k);
}

static float *points(int64_t n, int32_t res, uint64_t seed)
{
    float *xy = malloc((size_t)n * 8);
    qr_test_rng g = qr_test_rng_seed(seed);
    for (int64_t q = 0; q < n; q++) {
        switch (q % 5) {
        case 0: case 1:
            xy[2 * q] = qr_test_rng_float(&g, 0.0f, 1.0f), xy[2 * q + 1] = qr_test_rng_float(&g, 0.0f, 1.0f);
            break;
        case 2: /* cell edges */
            xy[2 * q] = (float)qr_test_rng_below(&g, (uint32_t)res + 1) / (float)res;
            xy[2 * q + 1] = (float)qr_test_rng_below(&g, (uint32_t)res + 1) / (float)res;
            break;
        case 3:
            xy[2 * q] = qr_test_rng_float(&g, -0.3f, 1.3f), xy[2 * q + 1] = qr_test_rng_float(&g, -0.3f, 1.3f);
            break;
        default:
            xy[2 * q] = q % 10 == 4 ? NAN : 0.25f, xy[2 * q + 1] = 0.5f;
        }
    }
    return xy;
}

static float *boxes(int64_t n, uint64_t seed)
{
    float *b = malloc((size_t)n * 16);
    qr_test_rng g = qr_test_rng_seed(seed);
    static const float sides[] = {0.0f, 0.002f, 0.01f, 0.05f, 0.3f, 1.5f};
    for (int64_t q = 0; q < n; q++) {
        const float x = qr_test_rng_float(&g, -0.2f, 1.1f), y = qr_test_rng_float(&g, -0.2f, 1.1f);
        b[4 * q] = x, b[4 * q + 1] = y;
        b[4 * q + 2] = x + sides[q % 6], b[4 * q + 3] = y + sides[(q / 6) % 6];
    }
    return b;
}

/* pairs_max: the GPU's box queries list at most that many (box, leaf)
 * pairs before they go a warp a box (-1: the default). */
static void check_scene(const qr_scene *s, int32_t res, int brute, long long pairs_max, const char *what)
{
    qr_error err;
    qr_gpu_query *gq;
    qr_query_index *hq;
    QR_CHECK(err, qr_gpu_query_create(s, res, NULL, &gq, &err));
    if (pairs_max >= 0) qr_gpu_query_set_pairs_max(gq, pairs_max);
    QR_CHECK(err, qr_query_index_build(s, res, NULL, 0, &hq, &err));
    cr_assert_eq(qr_gpu_query_resolution(gq), qr_query_index_resolution(hq));
    const int64_t np = 20000, nb = s->n > 100000 ? 300 : 1500;
    float *xy = points(np, qr_query_index_resolution(hq), 3), *bx = boxes(nb, 4);
    float *d_xy = to_device(xy, (size_t)np * 8), *d_bx = to_device(bx, (size_t)nb * 16);
    for (int m = QR_QUERY_TOP; m <= QR_QUERY_ALL; m++) {
        qr_query_result want, r, h;
        char w[128];
        QR_CHECK(err, qr_query_points(hq, xy, np, (qr_query_mode)m, 0, &want, &err));
        if (brute) {
            QR_CHECK(err, qr_query_points_brute(s, xy, np, (qr_query_mode)m, &h, &err));
            snprintf(w, sizeof w, "%s: host index against the oracle", what);
            assert_host_same(&want, &h, w);
            qr_query_result_free(&h);
        }
        snprintf(w, sizeof w, "%s: points, device", what);
        QR_CHECK(err, qr_gpu_query_points(gq, d_xy, np, (qr_query_mode)m, &r, &err));
        assert_device_same(&r, &want, w);
        snprintf(w, sizeof w, "%s: points, host arrays", what);
        QR_CHECK(err, qr_gpu_query_points_host(gq, xy, np, (qr_query_mode)m, &h, &err));
        assert_host_same(&h, &want, w);
        qr_query_result_free(&h);
        if (m != QR_QUERY_ALL) {
            snprintf(w, sizeof w, "%s: points, brute-force kernel", what);
            QR_CHECK(err, qr_gpu_query_points_brute(gq, d_xy, np, (qr_query_mode)m, &r, &err));
            assert_device_same(&r, &want, w);
        }
        qr_query_result_free(&want);

        QR_CHECK(err, qr_query_boxes(hq, bx, nb, (qr_query_mode)m, 0, &want, &err));
        if (brute) {
            QR_CHECK(err, qr_query_boxes_brute(s, bx, nb, (qr_query_mode)m, &h, &err));
            snprintf(w, sizeof w, "%s: host boxes against the oracle", what);
            assert_host_same(&want, &h, w);
            qr_query_result_free(&h);
        }
        snprintf(w, sizeof w, "%s: boxes, device", what);
        QR_CHECK(err, qr_gpu_query_boxes(gq, d_bx, nb, (qr_query_mode)m, &r, &err));
        assert_device_same(&r, &want, w);
        snprintf(w, sizeof w, "%s: boxes, host arrays", what);
        QR_CHECK(err, qr_gpu_query_boxes_host(gq, bx, nb, (qr_query_mode)m, &h, &err));
        assert_host_same(&h, &want, w);
        qr_query_result_free(&h);
        qr_query_result_free(&want);
    }
    /* a rebuild answers the same */
    QR_CHECK(err, qr_gpu_query_rebuild(gq, &err));
    qr_query_result want, r;
    QR_CHECK(err, qr_query_points(hq, xy, np, QR_QUERY_COUNT, 0, &want, &err));
    QR_CHECK(err, qr_gpu_query_points(gq, d_xy, np, QR_QUERY_COUNT, &r, &err));
    assert_device_same(&r, &want, what);
    qr_query_result_free(&want);
    float ms = -1.0f;
    QR_CHECK(err, qr_gpu_query_last_ms(gq, &ms, &err));
    cr_assert(ms >= 0.0f);
    cudaFree(d_xy);
    cudaFree(d_bx);
    free(xy);
    free(bx);
    qr_query_index_destroy(hq);
    qr_gpu_query_destroy(gq);
}

Test(gpu_query, builtin_scenes, .timeout = 600)
{
    QR_REQUIRE_GPU();
    static const char *const names[] = {"rgb", "rand10k", "biglittle", "littlebig", "rand100k",
                                        "micro2M", "clusters", "hotspot", "ring"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        qr_scene *s = gpu_test_scene(names[k], 0);
        check_scene(s, 0, s->n <= 10000, -1, names[k]);
        qr_scene_destroy(s);
    }
}

Test(gpu_query, random_and_large_circles_any_resolution, .timeout = 600)
{
    QR_REQUIRE_GPU();
    for (uint64_t seed = 1; seed <= 3; seed++) {
        qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, seed, 4000);
        static const int32_t res[] = {16, 0, 2048};
        char w[64];
        snprintf(w, sizeof w, "mix %llu at %d", (unsigned long long)seed, res[seed - 1]);
        check_scene(s, res[seed - 1], 1, -1, w);
        qr_scene_destroy(s);
    }
    qr_scene *s = qr_test_large_circles(2000, 0.3f, 2.0f, 20000, 9);
    check_scene(s, 0, 0, -1, "large circles");
    qr_scene_destroy(s);
}

/* Boxes past the most (box, leaf) pairs a batch lists go a warp a box:
 * the same answers. */
Test(gpu_query, boxes_a_warp_each, .timeout = 600)
{
    QR_REQUIRE_GPU();
    qr_scene *s = gpu_test_scene("rand10k", 0);
    check_scene(s, 0, 1, 0, "rand10k, a warp a box");
    qr_scene_destroy(s);
    s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 5, 4000);
    check_scene(s, 2048, 1, 0, "mix 5 at 2048, a warp a box");
    qr_scene_destroy(s);
}

Test(gpu_query, empty_scene_empty_batch_bad_box)
{
    QR_REQUIRE_GPU();
    qr_error err, herr;
    qr_scene *s;
    QR_CHECK(err, qr_scene_create(0, QR_ANIM_NONE, &s, &err));
    check_scene(s, 64, 1, -1, "empty scene");
    check_scene(s, 64, 1, 0, "empty scene, a warp a box");
    qr_scene_destroy(s);
    s = gpu_test_scene("rgb", 0);
    qr_gpu_query *gq;
    QR_CHECK(err, qr_gpu_query_create(s, 0, NULL, &gq, &err));
    qr_query_result r;
    QR_CHECK(err, qr_gpu_query_points(gq, NULL, 0, QR_QUERY_ALL, &r, &err));
    cr_assert_eq(r.queries, 0);
    const float bad[] = {0, 0, 1, 1, 0, 0.6f, 1, 0.5f, 0.5f, 0.5f, 0.4f, 0.6f};
    float *d = to_device(bad, sizeof bad);
    cr_assert_eq(qr_gpu_query_boxes(gq, d, 3, QR_QUERY_COUNT, &r, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_query_check_boxes(bad, 3, &herr), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, herr.msg);
    cr_assert_str_eq(err.msg, "box 1: y0 0.6 > y1 0.5");
    cr_assert_eq(qr_gpu_query_boxes_host(gq, bad, 3, QR_QUERY_ALL, &r, &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, herr.msg);
    cudaFree(d);
    qr_gpu_query_destroy(gq);
    qr_scene_destroy(s);
}
