/* test_render_band.c — band rendering on the CPU: rows [y0, y1) of an
 * image rendered alone equal the same rows of the whole image, byte for
 * byte.
 *
 *   the reference: qr_render_cpu_band's bands, stacked, are qr_render_cpu's
 *                  image (the oracle of the rest);
 *   the fast renderer: qr_render_cpu_fast_band's bands, stacked, are
 *                  qr_render_cpu_fast's image in both modes, on 1, 2 and 3
 *                  threads, for the default index parameters and for
 *                  16-pixel leaves (whose leaves differ between a band's
 *                  index and the whole image's); exact bands are also the
 *                  reference's bytes;
 *   large images: sides past 32768 and 65536 (the band images made by
 *                  hand: qr_image_create stops at QR_IMAGE_MAX_DIM), exact
 *                  bands equal the reference's band, fast ones lie within
 *                  QR_FAST_TOLERANCE of it, whatever the thread count;
 *   regions: any rectangle whose sides are on the 16-pixel grid (or the
 *                  right one the image's),
 *                  rendered alone by qr_render_cpu_fast_region, equals
 *                  those pixels of the whole image in both modes, on
 *                  plain, snow, picture and anti-aliased scenes;
 *   the host index at such widths passes the invariant checker;
 *   bad bands and regions are refused with a message.
 * Band heights: 1, odd ones cutting through tiles and leaves, one tile, and
 * the last band short. Runs without a GPU.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"
#include "index_check.h"
#include "random_scene.h"
#include "test_util.h"

/* A width x rows image made by hand (any width up to QR_IMAGE_BANDS_MAX_DIM),
 * filled with garbage so that a pixel a renderer forgets shows. */
static qr_image *band_image(int32_t width, int32_t rows)
{
    qr_image *img = malloc(sizeof *img);
    cr_assert(img);
    img->width = width;
    img->height = rows;
    const size_t n = (size_t)width * (size_t)rows * 4;
    img->rgba = malloc(n * sizeof *img->rgba);
    cr_assert(img->rgba, "no memory for a %dx%d band", width, rows);
    for (size_t i = 0; i < n; i++) img->rgba[i] = -7.0f;
    return img;
}

static void band_free(qr_image *img)
{
    if (!img) return;
    free(img->rgba);
    free(img);
}

static size_t row_floats(int32_t width)
{
    return (size_t)width * 4;
}

static qr_scene *load(const char *name)
{
    qr_scene *s = NULL;
    qr_error err;
    QR_CHECK(err, qr_scene_builtin(name, 0, &s, &err));
    return s;
}

/* How a band is rendered: by the reference, or by the fast renderer in a
 * mode on a thread count with index parameters (NULL: the defaults). */
typedef struct renderer {
    int fast;
    qr_render_mode mode;
    int threads;
    const qr_index_params *params;
} renderer;

static void render_band(const renderer *r, const qr_scene *s, int32_t w, int32_t h, int32_t y0,
                        int32_t y1, qr_image *band)
{
    qr_error err;
    if (r->fast)
        QR_CHECK(err, qr_render_cpu_fast_band(s, r->params, r->mode, r->threads, w, h, y0, y1,
                                              band, NULL, &err));
    else
        QR_CHECK(err, qr_render_cpu_band(s, w, h, y0, y1, band, &err));
}

/* The whole image as r renders it, through its whole-image entry point. */
static qr_image *render_whole(const renderer *r, const qr_scene *s, int32_t w, int32_t h)
{
    qr_image *img = band_image(w, h);
    qr_error err;
    if (r->fast)
        QR_CHECK(err, qr_render_cpu_fast(s, r->params, r->mode, r->threads, img, NULL, &err));
    else
        QR_CHECK(err, qr_render_cpu(s, img, &err));
    return img;
}

/* Renders w x h in bands of `rows` (the last one what is left) and
 * compares each with the same rows of `whole`. */
static void check_bands(const renderer *r, const qr_scene *s, int32_t w, int32_t h, int32_t rows,
                        const qr_image *whole, const char *what)
{
    for (int32_t y0 = 0; y0 < h; y0 += rows) {
        const int32_t y1 = y0 + rows < h ? y0 + rows : h;
        qr_image *band = band_image(w, y1 - y0);
        render_band(r, s, w, h, y0, y1, band);
        for (int32_t y = y0; y < y1; y++)
            cr_assert(memcmp(band->rgba + (size_t)(y - y0) * row_floats(w),
                             whole->rgba + (size_t)y * row_floats(w),
                             row_floats(w) * sizeof(float)) == 0,
                      "%s, %s %dx%d, bands of %d: row %d of band [%d,%d) differs from the whole "
                      "image's",
                      what, s->name, w, h, rows, y, y0, y1);
        band_free(band);
    }
}

/* Band heights for an image of height h: one row, odd heights that cut
 * through tiles (32) and leaves (64), and all rows but one (a band of
 * h - 1 and a last band of one row). */
static int32_t band_heights(int32_t h, int32_t out[5])
{
    const int32_t heights[] = {1, 7, 17, 45, h > 1 ? h - 1 : 1};
    memcpy(out, heights, sizeof heights);
    return 5;
}

/* Odd and small sizes; one wider than tall and one taller than wide (the
 * index's root then follows the width or the height). */
static const int32_t sizes[][2] = {{97, 45}, {130, 67}, {40, 100}, {1, 9}};

static void check_reference(const char *name)
{
    qr_scene *s = load(name);
    const renderer ref = {0, QR_RENDER_EXACT, 0, NULL};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int32_t w = sizes[k][0], h = sizes[k][1];
        qr_image *whole = render_whole(&ref, s, w, h);
        int32_t heights[5];
        const int nh = band_heights(h, heights);
        for (int j = 0; j < nh; j++) check_bands(&ref, s, w, h, heights[j], whole, "reference");
        band_free(whole);
    }
    qr_scene_destroy(s);
}

Test(render_band, reference_rand10k) { check_reference("rand10k"); }
Test(render_band, reference_biglittle) { check_reference("biglittle"); }
Test(render_band, reference_snowsingle) { check_reference("snowsingle"); }
Test(render_band, reference_pattern) { check_reference("pattern"); }

/* The fast renderer in both modes, default parameters and small leaves,
 * bands on 1, 2 and 3 threads in turn against the whole image on one;
 * exact mode also against the reference image. */
static void check_fast(const char *name)
{
    qr_scene *s = load(name);
    qr_index_params small;
    qr_index_params_default(&small);
    small.min_leaf = 16; /* rand10k's leaves: mostly 16, a few 32 and 64 */
    small.capacity = 1024;
    small.split_cost = 0;
    const qr_index_params *params[] = {NULL, &small};
    const renderer ref = {0, QR_RENDER_EXACT, 0, NULL};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int32_t w = sizes[k][0], h = sizes[k][1];
        qr_image *oracle = render_whole(&ref, s, w, h);
        int32_t heights[5];
        const int nh = band_heights(h, heights);
        for (int p = 0; p < 2; p++)
            for (int m = 0; m < 2; m++) {
                const qr_render_mode mode = m ? QR_RENDER_FAST : QR_RENDER_EXACT;
                const renderer one = {1, mode, 1, params[p]};
                qr_image *whole = render_whole(&one, s, w, h);
                if (mode == QR_RENDER_EXACT)
                    cr_assert(memcmp(whole->rgba, oracle->rgba,
                                     (size_t)h * row_floats(w) * sizeof(float)) == 0,
                              "%s %dx%d: exact mode differs from the reference", name, w, h);
                for (int j = 0; j < nh; j++) {
                    const int t = 1 + (j + p + m) % 3;
                    char what[96];
                    snprintf(what, sizeof what, "%s, %d threads, %s leaves",
                             m ? "fast" : "exact", t, p ? "16-pixel" : "default");
                    const renderer r = {1, mode, t, params[p]};
                    check_bands(&r, s, w, h, heights[j], whole, what);
                }
                band_free(whole);
            }
        band_free(oracle);
    }
    qr_scene_destroy(s);
}

Test(render_band, fast_rand10k) { check_fast("rand10k"); }
Test(render_band, fast_biglittle) { check_fast("biglittle"); }
Test(render_band, fast_snowsingle) { check_fast("snowsingle"); }
Test(render_band, fast_pattern) { check_fast("pattern"); }

/* The sides of ix's leaves, before clipping: bit k set for a side of 2^k. */
static unsigned leaf_sides(const qr_index *ix)
{
    unsigned sides = 0;
    for (int32_t i = 0; i < ix->num_leaves; i++)
        sides |= (unsigned)(ix->root_size >> ix->leaves[i].depth);
    return sides;
}

/* Fast mode's bytes do not depend on the index: a whole image from indexes
 * whose leaves mix 16 pixels (tiles of 16 columns) with larger ones is the
 * default index's image. */
Test(render_band, fast_mode_same_for_any_index)
{
    qr_scene *s = load("rand10k");
    const int32_t w = 160, h = 96;
    const renderer dflt = {1, QR_RENDER_FAST, 2, NULL};
    qr_image *want = render_whole(&dflt, s, w, h);
    qr_index_params p;
    qr_index_params_default(&p);
    p.min_leaf = 16;
    p.split_cost = 0;
    int mixed = 0;
    for (int32_t cap = 256; cap <= 4096; cap *= 2) {
        p.capacity = cap;
        qr_index *ix = NULL;
        qr_error err;
        QR_CHECK(err, qr_index_build_host(s, w, h, NULL, &p, QR_RENDER_FAST, &ix, &err));
        const unsigned sides = leaf_sides(ix);
        mixed |= (sides & 16u) && (sides & ~16u);
        qr_image *img = band_image(w, h);
        QR_CHECK(err, qr_render_cpu_index(s, ix, QR_RENDER_FAST, 3, img, &err));
        cr_assert(memcmp(img->rgba, want->rgba, (size_t)h * row_floats(w) * sizeof(float)) == 0,
                  "capacity %d (leaf sides %#x): fast mode's bytes depend on the index", cap,
                  sides);
        band_free(img);
        qr_index_destroy(ix);
    }
    cr_assert(mixed, "no index mixed 16-pixel leaves with larger ones");
    band_free(want);
    qr_scene_destroy(s);
}

/* ---- images larger than 32768 and 65536 a side ---------------------------------------- */

/* A sparse scene for a w x h image: circles of 2 to 60 pixels all over it,
 * some on the 32768 and 65536 columns and rows (where the fast renderer's
 * windows and 16-bit limits lie), a few large ones, a few flat colours
 * beyond [0, 1]. */
static qr_scene *sparse_scene(int32_t w, int32_t h, int32_t n, qr_shading shading)
{
    qr_test_scene_spec spec = qr_test_mix_spec(QR_TEST_MIX_UNIFORM, 25, n);
    spec.shading = shading;
    const float px = 1.0f / (float)(w > h ? w : h); /* a pixel of the longer side */
    spec.num_kinds = 4;
    spec.kinds[0] = (qr_test_kind){60, QR_TEST_PLAIN, {0.0f, 1.0f}, {0.0f, 1.0f},
                                   {2 * px, 60 * px}};
    /* on the lines x = 32768 and 65536 pixels, y likewise */
    const float lx = 32768.0f / (float)w, ly = 32768.0f / (float)h;
    spec.kinds[1] = (qr_test_kind){15, QR_TEST_PLAIN, {lx - 0.0004f, lx + 0.0004f},
                                   {0.0f, 1.0f}, {2 * px, 40 * px}};
    spec.kinds[2] = (qr_test_kind){15, QR_TEST_PLAIN, {2 * lx - 0.0004f, 2 * lx + 0.0004f},
                                   {ly - 0.0004f, 2 * ly + 0.0004f}, {2 * px, 40 * px}};
    spec.kinds[3] = (qr_test_kind){2, QR_TEST_PLAIN, {0.0f, 1.0f}, {0.0f, 1.0f}, {0.01f, 0.2f}};
    return qr_test_scene_generate(&spec);
}

/* Rows [y0, y1) of a w x h image: exact bands on 1 and 3 threads equal
 * the reference's band; fast bands lie within QR_FAST_TOLERANCE of it with
 * alpha 1, the same bytes on both thread counts. */
static void check_large(const qr_scene *s, int32_t w, int32_t h, int32_t y0, int32_t y1)
{
    const int32_t rows = y1 - y0;
    const size_t n = (size_t)rows * row_floats(w);
    qr_image *ref = band_image(w, rows);
    qr_error err;
    QR_CHECK(err, qr_render_cpu_band(s, w, h, y0, y1, ref, &err));
    qr_image *fast0 = NULL;
    for (int t = 1; t <= 3; t += 2) {
        qr_image *band = band_image(w, rows);
        QR_CHECK(err, qr_render_cpu_fast_band(s, NULL, QR_RENDER_EXACT, t, w, h, y0, y1, band,
                                              NULL, &err));
        for (size_t i = 0; i < n; i++)
            cr_assert(memcmp(&band->rgba[i], &ref->rgba[i], sizeof(float)) == 0,
                      "%s %dx%d rows [%d,%d), %d threads: exact float %zu (pixel %zu of row %zu) "
                      "is %a, the reference's %a",
                      s->name, w, h, y0, y1, t, i, i / 4 % (size_t)w, i / row_floats(w),
                      (double)band->rgba[i], (double)ref->rgba[i]);
        QR_CHECK(err, qr_render_cpu_fast_band(s, NULL, QR_RENDER_FAST, t, w, h, y0, y1, band,
                                              NULL, &err));
        for (size_t i = 0; i < n; i++) {
            if (i % 4 == 3) {
                cr_assert_eq(band->rgba[i], 1.0f, "fast mode's alpha is %g", (double)band->rgba[i]);
                continue;
            }
            const double d = fabs((double)band->rgba[i] - (double)ref->rgba[i]);
            cr_assert(d <= QR_FAST_TOLERANCE,
                      "%s %dx%d rows [%d,%d), %d threads: fast float %zu is off by %g", s->name, w,
                      h, y0, y1, t, i, d);
        }
        if (!fast0) {
            fast0 = band;
            continue;
        }
        cr_assert(memcmp(band->rgba, fast0->rgba, n * sizeof(float)) == 0,
                  "%s %dx%d: fast mode's bytes depend on the thread count", s->name, w, h);
        band_free(band);
    }
    band_free(fast0);
    band_free(ref);
}

/* Wider than 32768 and than 65536 (boxes past 16 bits, several windows),
 * and taller than both (the band's rows in several windows). */
Test(render_band, wide_and_tall_images)
{
    qr_scene *s = sparse_scene(70000, 50000, 3000, QR_SHADE_FLAT);
    check_large(s, 70000, 50000, 32760, 32800);
    check_large(s, 70000, 50000, 0, 1);
    check_large(s, 40000, 70000, 65530, 65541);
    qr_scene_destroy(s);
    s = sparse_scene(3, 70000, 3000, QR_SHADE_SNOW);
    check_large(s, 3, 70000, 0, 70000);
    check_large(s, 70000, 3, 0, 3);
    qr_scene_destroy(s);
}

/* The largest side: a band of the last rows and one of the first. */
Test(render_band, largest_side)
{
    qr_scene *s = sparse_scene(QR_IMAGE_BANDS_MAX_DIM, QR_IMAGE_BANDS_MAX_DIM, 2000, QR_SHADE_FLAT);
    check_large(s, QR_IMAGE_BANDS_MAX_DIM, QR_IMAGE_BANDS_MAX_DIM, QR_IMAGE_BANDS_MAX_DIM - 5, QR_IMAGE_BANDS_MAX_DIM);
    check_large(s, QR_IMAGE_BANDS_MAX_DIM, 1000, 0, 4);
    qr_scene_destroy(s);
}

/* Fast bands of a wide image stacked equal its whole render from one
 * index (qr_render_cpu_index over the whole image). */
Test(render_band, wide_bands_stack)
{
    const int32_t w = 66000, h = 21;
    qr_scene *s = sparse_scene(w, h, 2000, QR_SHADE_FLAT);
    qr_index *ix = NULL;
    qr_index_params p;
    qr_index_params_default(&p);
    qr_error err;
    QR_CHECK(err, qr_index_build_host(s, w, h, NULL, &p, QR_RENDER_FAST, &ix, &err));
    for (int m = 0; m < 2; m++) {
        const qr_render_mode mode = m ? QR_RENDER_FAST : QR_RENDER_EXACT;
        qr_image *whole = band_image(w, h);
        QR_CHECK(err, qr_render_cpu_index(s, ix, mode, 2, whole, &err));
        const renderer r = {1, mode, 3, NULL};
        check_bands(&r, s, w, h, 5, whole, m ? "fast, wide" : "exact, wide");
        band_free(whole);
    }
    qr_index_destroy(ix);
    qr_scene_destroy(s);
}

/* The host index past 65536 a side passes the invariant checker, whole and
 * over a band's rows. */
Test(render_band, host_index_wide)
{
    qr_scene *s = sparse_scene(100000, 300, 1500, QR_SHADE_FLAT);
    qr_index_params p;
    qr_index_params_default(&p);
    qr_test_index_check(s, 100000, 300, NULL, &p);
    const qr_rect rows = {0, 130, 100000, 170};
    qr_test_index_check(s, 100000, 300, &rows, &p);
    p.capacity = 4;
    p.min_leaf = 16;
    qr_test_index_check(s, 100000, 300, &rows, &p);
    qr_scene_destroy(s);
}

/* ---- refusals ----------------------------------------------------------------------------- */

Test(render_band, rejects_bad_bands)
{
    qr_scene *s = load("rgb");
    qr_image *band = band_image(64, 8);
    qr_error err;
    /* rows outside the image, empty, reversed; sizes out of range; a band
     * image of another size */
    const int32_t bad[][4] = {{64, 64, -1, 7},  {64, 64, 60, 68},
                              {64, 64, 8, 8},   {64, 64, 8, 0},
                              {0, 64, 0, 8},    {64, 0, 0, 8},
                              {QR_IMAGE_BANDS_MAX_DIM + 1, 64, 0, 8}, {64, QR_IMAGE_BANDS_MAX_DIM + 1, 0, 8},
                              {64, 64, 0, 9},   {63, 64, 0, 8}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const int32_t *b = bad[k];
        err.msg[0] = '\0';
        cr_assert_eq(qr_render_cpu_band(s, b[0], b[1], b[2], b[3], band, &err), QR_ERR_INVALID,
                     "reference: %dx%d rows [%d,%d) accepted", b[0], b[1], b[2], b[3]);
        cr_assert(err.msg[0] != '\0');
        for (int m = 0; m < 2; m++) {
            err.msg[0] = '\0';
            cr_assert_eq(qr_render_cpu_fast_band(s, NULL, m ? QR_RENDER_FAST : QR_RENDER_EXACT, 1,
                                                 b[0], b[1], b[2], b[3], band, NULL, &err),
                         QR_ERR_INVALID, "fast: %dx%d rows [%d,%d) accepted", b[0], b[1], b[2],
                         b[3]);
            cr_assert(err.msg[0] != '\0');
        }
    }
    cr_assert_eq(qr_render_cpu_band(s, 64, 64, 0, 8, NULL, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_render_cpu_fast_band(s, NULL, QR_RENDER_EXACT, 1, 64, 64, 0, 8, NULL, NULL,
                                         &err),
                 QR_ERR_INVALID);
    /* an index over other rows than the band's */
    qr_index *ix = NULL;
    qr_index_params p;
    qr_index_params_default(&p);
    const qr_rect rows = {0, 8, 64, 17};
    QR_CHECK(err, qr_index_build_host(s, 64, 64, &rows, &p, QR_RENDER_FAST, &ix, &err));
    cr_assert_eq(qr_render_cpu_index(s, ix, QR_RENDER_EXACT, 1, band, &err), QR_ERR_INVALID);
    qr_index_destroy(ix);
    /* nor a region off the 16-pixel grid, or of another size than the image */
    const qr_rect part = {8, 0, 64, 8};
    QR_CHECK(err, qr_index_build_host(s, 64, 64, &part, &p, QR_RENDER_FAST, &ix, &err));
    cr_assert_eq(qr_render_cpu_index(s, ix, QR_RENDER_EXACT, 1, band, &err), QR_ERR_INVALID);
    qr_index_destroy(ix);
    band_free(band);
    qr_scene_destroy(s);
}

/* Rectangles of a w x h image rendered alone against the whole image's
 * pixels, to the bit: sides on the 16-pixel grid, or the right one the
 * image's; heights from one row to the rest of the image. */
static void check_regions(const qr_scene *s, int32_t w, int32_t h, qr_render_mode mode, int threads,
                          const char *what)
{
    const renderer r = {1, mode, threads, NULL};
    qr_image *whole = render_whole(&r, s, w, h);
    static const int32_t xs[] = {0, 16, 48, 160};
    static const int32_t ws[] = {16, 32, 112, 1 << 20};
    static const int32_t ys[][2] = {{0, 1}, {5, 70}, {31, 1 << 20}};
    qr_error err;
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        for (size_t j = 0; j < sizeof ws / sizeof ws[0]; j++)
            for (size_t k = 0; k < sizeof ys / sizeof ys[0]; k++) {
                qr_rect reg = {xs[i], ys[k][0], xs[i] + ws[j], ys[k][1]};
                if (reg.x0 >= w || reg.y0 >= h) continue;
                if (reg.x1 > w) reg.x1 = w;
                if (reg.y1 > h) reg.y1 = h;
                const int32_t rw = reg.x1 - reg.x0;
                qr_image *out = band_image(rw, reg.y1 - reg.y0);
                QR_CHECK(err, qr_render_cpu_fast_region(s, NULL, mode, threads, w, h, &reg, out, NULL,
                                                        &err));
                for (int32_t y = reg.y0; y < reg.y1; y++)
                    cr_assert(!memcmp(out->rgba + row_floats(rw) * (size_t)(y - reg.y0),
                                      whole->rgba + row_floats(w) * (size_t)y + (size_t)reg.x0 * 4,
                                      row_floats(rw) * sizeof(float)),
                              "%s, %s: region [%d,%d) x [%d,%d) row %d differs from the whole image",
                              what, mode == QR_RENDER_FAST ? "fast" : "exact", reg.x0, reg.x1, reg.y0,
                              reg.y1, y);
                band_free(out);
            }
    band_free(whole);
}

Test(render_band, regions_equal_the_whole_image, .timeout = 300)
{
    static const char *const names[] = {"rand10k", "biglittle", "snowsingle", "pattern"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        qr_scene *s = load(names[k]);
        check_regions(s, 300, 260, QR_RENDER_FAST, 2, names[k]);
        check_regions(s, 300, 260, QR_RENDER_EXACT, 3, names[k]);
        qr_scene_destroy(s);
    }
    qr_error err;
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 11, 2000);
    QR_CHECK(err, qr_scene_set_transparent(s, 1, "background", &err));
    check_regions(s, 257, 190, QR_RENDER_FAST, 2, "a random scene without a background");
    check_regions(s, 257, 190, QR_RENDER_EXACT, 2, "a random scene without a background");
    s->antialias = 1;
    check_regions(s, 257, 190, QR_RENDER_FAST, 2, "anti-aliased");
    check_regions(s, 257, 190, QR_RENDER_EXACT, 1, "anti-aliased");
    qr_scene_destroy(s);
}

Test(render_band, rejects_bad_regions)
{
    qr_scene *s = load("rgb");
    qr_image *out = band_image(32, 8);
    qr_error err;
    const qr_rect bad[] = {{8, 0, 40, 8}, {16, 0, 47, 8}, /* off the 16-pixel grid */
                           {-16, 0, 16, 8}, {48, 0, 80, 8}, /* outside the image */
                           {16, 8, 16, 16}, {16, 8, 48, 8}, /* empty */
                           {0, 0, 48, 8},   {0, 0, 32, 9}}; /* not the image's size */
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err.msg[0] = '\0';
        cr_assert_eq(qr_render_cpu_fast_region(s, NULL, QR_RENDER_FAST, 1, 64, 64, &bad[k], out, NULL,
                                               &err),
                     QR_ERR_INVALID, "[%d,%d) x [%d,%d) accepted", bad[k].x0, bad[k].x1, bad[k].y0,
                     bad[k].y1);
        cr_assert(err.msg[0] != '\0');
    }
    cr_assert_eq(qr_render_cpu_fast_region(s, NULL, QR_RENDER_FAST, 1, 64, 64, NULL, out, NULL, &err),
                 QR_ERR_INVALID);
    band_free(out);
    qr_scene_destroy(s);
}
