/* test_floor.c — the floor's counts (quadrender/floor.h) against a
 * plain reference written here: pixel by pixel, each pixel's circles front
 * to back, on one thread. The banded, threaded count must agree exactly, on
 * square and non-square images, flat and snow shading, and scenes holding
 * every value the index culls; and it must not depend on the thread count. */
#include <stdint.h>

#include "common/circle_math.h"
#include "quadrender/floor.h"
#include "quadrender/render_mode.h"
#include "random_scene.h"
#include "scene_util.h"
#include "test_util.h"

/* Per pixel, every circle (front to back) whose box holds the pixel: a box
 * test; covered, a blend; a fast blend while the pixel's transmittance is
 * above fast mode's stop. The circles of a row are gathered first only to
 * keep the test quick. */
static qr_work_floor reference(const qr_scene *s, int W, int H)
{
    qr_work_floor f;
    memset(&f, 0, sizeof f);
    const size_t n = (size_t)s->n;
    qr_pixbox *box = calloc(n ? n : 1, sizeof *box);
    int32_t *row = malloc((n ? n : 1) * sizeof *row);
    cr_assert(box && row);
    for (size_t i = 0; i < n; i++) {
        if (!(s->r[i] > 0)) continue; /* an empty box (calloc's zeros) */
        box[i] = qr_circle_pixbox(s->x[i], s->y[i], s->r[i], W, H);
        if (box[i].x0 < box[i].x1 && box[i].y0 < box[i].y1) f.visible++;
    }
    const float inv_w = 1.0f / W, inv_h = 1.0f / H, stop = 0.5f * QR_FAST_TOLERANCE;
    for (int py = 0; py < H; py++) {
        int m = 0;
        for (int32_t i = s->n - 1; i >= 0; i--)
            if (box[i].x0 < box[i].x1 && box[i].y0 <= py && py < box[i].y1) row[m++] = i;
        for (int px = 0; px < W; px++) {
            float T = 1.0f;
            for (int k = 0; k < m; k++) {
                const int32_t i = row[k];
                if (px < box[i].x0 || px >= box[i].x1) continue;
                f.box_tests++;
                const float d2 = qr_dist2(s->x[i], s->y[i], qr_pixel_center(px, inv_w),
                                          qr_pixel_center(py, inv_h));
                if (d2 > s->r[i] * s->r[i]) continue;
                f.covered++;
                if (!(T > stop)) continue;
                f.fast_blends++;
                float alpha = 0.5f, cr, cg, cb;
                if (s->shading == QR_SHADE_SNOW)
                    qr_shade_snow(d2, s->r[i], s->z[i], &alpha, &cr, &cg, &cb);
                T *= 1.0f - alpha;
            }
        }
    }
    free(box);
    free(row);
    f.bytes = f.visible * 32.0 + (double)W * H * 16.0;
    return f;
}

static void assert_same(const qr_work_floor *got, const qr_work_floor *want, const char *what)
{
    cr_assert_eq(got->visible, want->visible, "%s: visible %d, want %d", what, (int)got->visible,
                 (int)want->visible);
    cr_assert_eq(got->box_tests, want->box_tests, "%s: box tests %lld, want %lld", what,
                 (long long)got->box_tests, (long long)want->box_tests);
    cr_assert_eq(got->covered, want->covered, "%s: covered %lld, want %lld", what,
                 (long long)got->covered, (long long)want->covered);
    cr_assert_eq(got->fast_blends, want->fast_blends, "%s: fast blends %lld, want %lld", what,
                 (long long)got->fast_blends, (long long)want->fast_blends);
    cr_assert(got->bytes == want->bytes, "%s: bytes %.17g, want %.17g", what, got->bytes,
              want->bytes);
}

/* The reference's counts on one thread and on several, and the default
 * thread count's. */
static qr_work_floor check_scene(const qr_scene *s, int W, int H)
{
    const qr_work_floor want = reference(s, W, H);
    static const int threads[] = {1, 2, 3, 8, 0};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        qr_work_floor got;
        qr_error err;
        QR_CHECK(err, qr_work_floor_count(s, W, H, threads[t], &got, &err));
        char what[128];
        snprintf(what, sizeof what, "%s %dx%d on %d threads", s->name, W, H, threads[t]);
        assert_same(&got, &want, what);
    }
    return want;
}

Test(floor, rand10k_square_and_not)
{
    qr_scene *s = qr_test_builtin("rand10k", 0);
    const qr_work_floor f = check_scene(s, 64, 48);
    /* the scene overlaps: the counts say something */
    cr_assert_eq(f.visible, 10000);
    cr_assert(f.covered > 0 && f.covered <= f.box_tests && f.fast_blends < f.covered,
              "box %lld covered %lld fast %lld", (long long)f.box_tests, (long long)f.covered,
              (long long)f.fast_blends);
    check_scene(s, 64, 64);
    check_scene(s, 41, 150); /* taller than wide, bands of uneven height */
    check_scene(s, 7, 3);    /* one band */
    qr_scene_destroy(s);
}

Test(floor, snowsingle_uses_snow_alpha)
{
    qr_scene *s = qr_test_builtin("snowsingle", 0);
    cr_assert_eq(s->shading, QR_SHADE_SNOW);
    check_scene(s, 64, 64);
    qr_scene_destroy(s);
}

Test(floor, random_scenes_with_culled_values)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_HOSTILE, 7, 3000);
    check_scene(s, 97, 61);
    qr_scene_destroy(s);
    /* snow shading, and more than 64 bands' worth of rows */
    qr_test_scene_spec spec = qr_test_mix_spec(QR_TEST_MIX_RENDERABLE, 11, 1500);
    spec.shading = QR_SHADE_SNOW;
    s = qr_test_scene_generate(&spec);
    check_scene(s, 37, 1100);
    qr_scene_destroy(s);
}

Test(floor, empty_scene_and_bad_size)
{
    qr_scene *s = qr_test_scene_new(0);
    const qr_work_floor f = check_scene(s, 16, 16);
    cr_assert_eq(f.visible, 0);
    cr_assert(f.bytes == 16.0 * 16 * 16);
    qr_work_floor out;
    qr_error err;
    cr_assert_eq(qr_work_floor_count(s, 0, 16, 1, &out, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_work_floor_count(s, 16, -1, 1, &out, &err), QR_ERR_INVALID);
    qr_scene_destroy(s);
}
