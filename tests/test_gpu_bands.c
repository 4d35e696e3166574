/* test_gpu_bands.c — images rendered in bands (qr_gpu_renderer_create_bands,
 * qr_gpu_render_write): the file equals the whole-image render's, byte for
 * byte, in both modes and every format, whatever the band and tile sizes;
 * budgets choose whole or banded renders and refuse what holds no band; a
 * region index equals the host oracle's at regions far from the origin.
 * Needs a GPU; skips with the reason elsewhere. */
#include "gpu_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "quadrender/render_cpu_fast.h"

/* Writes `scene` through renderer r into a fresh file named `name`. */
static const char *write_with(qr_gpu_renderer *r, const qr_gpu_scene *gs, qr_render_mode mode,
                              qr_image_format fmt, int w, int h, const char *name, char *path,
                              size_t cap)
{
    qr_error err;
    qr_index_params p;
    qr_index_params_default(&p);
    snprintf(path, cap, "%s", qr_test_tmp(name));
    qr_image_writer *wr = NULL;
    QR_CHECK(err, qr_image_writer_open(path, fmt, w, h, NULL, &wr, &err));
    QR_CHECK(err, qr_gpu_render_write(r, gs, &p, mode, wr, &err));
    QR_CHECK(err, qr_image_writer_close(wr, &err));
    return path;
}

/* Bands of every shape (one row of tiles, a column of tiles, both, a band
 * taller than the image, a short last band at the top or the bottom) write
 * the same file as the whole image, in PPM, PFM and PNG, exact and fast. */
Test(gpu_bands, equal_the_whole_image, .timeout = 600)
{
    QR_REQUIRE_GPU();
    const char *scenes[] = {"rand10k", "biglittle", "snowsingle", "pattern", "rand100k"};
    const int sizes[][2] = {{333, 257}, {64, 1000}, {1000, 95}};
    const int bands[][2] = {{64, 96}, {320, 32}, {32, 1024}, {1024, 64}, {96, 128}};
    const qr_image_format fmts[] = {QR_FORMAT_PPM, QR_FORMAT_PFM, QR_FORMAT_PNG};
    const char *ext[] = {"ppm", "pfm", "png"};
    qr_error err;
    for (int si = 0; si < 5; si++) {
        qr_scene *s = gpu_test_scene(scenes[si], 0);
        qr_gpu_scene *gs = NULL;
        QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
        for (int z = 0; z < 3; z++) {
            const int w = sizes[z][0], h = sizes[z][1];
            qr_gpu_renderer *whole = NULL;
            QR_CHECK(err, qr_gpu_renderer_create(w, h, &whole, &err));
            for (int b = 0; b < 5; b++) {
                if ((si + z + b) % 2) continue; /* half the shapes per scene and size */
                const int bw = bands[b][0] < w ? bands[b][0] : w;
                qr_gpu_renderer *banded = NULL;
                QR_CHECK(err, qr_gpu_renderer_create_bands(w, h, bw, bands[b][1], &banded, &err));
                for (int mode = 0; mode < 2; mode++)
                    for (int f = 0; f < 3; f++) {
                        char a[4096], c[4096], na[64], nc[64];
                        snprintf(na, sizeof na, "bands_whole.%s", ext[f]);
                        snprintf(nc, sizeof nc, "bands_banded.%s", ext[f]);
                        write_with(whole, gs, (qr_render_mode)mode, fmts[f], w, h, na, a, sizeof a);
                        write_with(banded, gs, (qr_render_mode)mode, fmts[f], w, h, nc, c, sizeof c);
                        cr_assert(qr_test_same_bytes(a, c),
                                  "%s %dx%d, bands of %dx%d, %s mode, %s: differs from the whole image",
                                  scenes[si], w, h, bw, bands[b][1], mode ? "fast" : "exact", ext[f]);
                    }
                qr_gpu_renderer_destroy(banded);
            }
            qr_gpu_renderer_destroy(whole);
        }
        qr_gpu_scene_destroy(gs);
        qr_scene_destroy(s);
    }
}

/* Exact mode's banded file equals the CPU reference's bytes (PPM through
 * qr_to_byte on both sides). */
Test(gpu_bands, exact_equals_the_reference, .timeout = 300)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_scene *s = gpu_test_scene("rand10k", 3);
    qr_gpu_scene *gs = NULL;
    QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
    const int w = 700, h = 450;
    qr_gpu_renderer *r = NULL;
    QR_CHECK(err, qr_gpu_renderer_create_bands(w, h, 256, 64, &r, &err));
    char g[4096], c[4096];
    write_with(r, gs, QR_RENDER_EXACT, QR_FORMAT_PPM, w, h, "bands_ref_gpu.ppm", g, sizeof g);
    qr_image *img = cpu_render_image(s, w, h);
    snprintf(c, sizeof c, "%s", qr_test_tmp("bands_ref_cpu.ppm"));
    QR_CHECK(err, qr_image_write_ppm(img, c, &err));
    cr_assert(qr_test_same_bytes(g, c), "banded exact render differs from the CPU reference");
    qr_image_destroy(img);
    qr_gpu_renderer_destroy(r);
    qr_gpu_scene_destroy(gs);
    qr_scene_destroy(s);
}

/* A budget that holds the whole image renders whole; one that holds a few
 * bands renders banded, the same bytes; one that holds no band fails with
 * QR_ERR_GPU_NOMEM naming the bytes needed. Bad band shapes are refused. */
Test(gpu_bands, budgets, .timeout = 300)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_scene *s = gpu_test_scene("rand100k", 0);
    qr_gpu_scene *gs = NULL;
    QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
    qr_index_params p;
    qr_index_params_default(&p);
    const int w = 1024, h = 1000;
    qr_gpu_renderer *big = NULL, *small = NULL, *none = NULL;
    QR_CHECK(err, qr_gpu_renderer_create_budget(w, h, gs, QR_FORMAT_PPM, (size_t)8 << 30, &p, &big, &err));
    cr_assert_eq(qr_gpu_renderer_band_rows(big), h, "8 GiB holds a 1024 x 1000 image whole");
    /* the scene (100k circles: ~8 MB), its index and bands of a few rows */
    QR_CHECK(err, qr_gpu_renderer_create_budget(w, h, gs, QR_FORMAT_PPM, (size_t)40 << 20, &p, &small, &err));
    const int rows = qr_gpu_renderer_band_rows(small);
    cr_assert(rows >= 32 && rows < h && rows % 32 == 0, "40 MiB: bands of %d rows", rows);
    char a[4096], c[4096];
    write_with(big, gs, QR_RENDER_FAST, QR_FORMAT_PPM, w, h, "budget_whole.ppm", a, sizeof a);
    write_with(small, gs, QR_RENDER_FAST, QR_FORMAT_PPM, w, h, "budget_bands.ppm", c, sizeof c);
    cr_assert(qr_test_same_bytes(a, c), "the budget's bands differ from the whole image");
    cr_assert_eq(qr_gpu_renderer_create_budget(w, h, gs, QR_FORMAT_PPM, (size_t)1 << 20, &p, &none, &err),
                 QR_ERR_GPU_NOMEM);
    cr_assert_null(none);
    cr_assert(strstr(err.msg, "needs at least") != NULL, "message: %s", err.msg);
    cr_assert_eq(qr_gpu_renderer_create_bands(w, h, 48, 64, &none, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_gpu_renderer_create_bands(w, h, 64, 40000, &none, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_gpu_renderer_create_bands(QR_IMAGE_BANDS_MAX_DIM + 1, 64, 64, 64, &none, &err),
                 QR_ERR_INVALID);
    cr_assert_eq(qr_gpu_render(small, gs, &p, QR_RENDER_FAST, &err), QR_ERR_INVALID,
                 "a banded renderer has no whole image to render into");
    qr_gpu_renderer_destroy(big);
    qr_gpu_renderer_destroy(small);
    qr_gpu_scene_destroy(gs);
    qr_scene_destroy(s);
}

/* Wider than one GPU index (QR_GPU_REGION_MAX): tiles of the full width and
 * of 4096 columns write the same file; a region index far from the origin
 * (node corners and boxes are stored from the region's corner) equals the
 * host oracle's. */
Test(gpu_bands, wider_than_one_index, .timeout = 300)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_scene *s = gpu_test_scene("rand10k", 0);
    qr_gpu_scene *gs = NULL;
    QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
    const int w = 40000, h = 64;
    qr_gpu_renderer *wide = NULL, *narrow = NULL;
    QR_CHECK(err, qr_gpu_renderer_create_bands(w, h, 32768, 32, &wide, &err));
    QR_CHECK(err, qr_gpu_renderer_create_bands(w, h, 4096, 64, &narrow, &err));
    for (int mode = 0; mode < 2; mode++) {
        char a[4096], c[4096];
        write_with(wide, gs, (qr_render_mode)mode, QR_FORMAT_PPM, w, h, "wide_a.ppm", a, sizeof a);
        write_with(narrow, gs, (qr_render_mode)mode, QR_FORMAT_PPM, w, h, "wide_b.ppm", c, sizeof c);
        cr_assert(qr_test_same_bytes(a, c), "40000 x 64, %s mode: tilings differ", mode ? "fast" : "exact");
    }
    qr_index_params p;
    qr_index_params_default(&p);
    qr_gpu_index *ix = NULL;
    QR_CHECK(err, qr_gpu_index_create(&ix, &err));
    const qr_rect regions[] = {{70000, 90000, 70000 + 4096, 90000 + 2048}, {100000, 0, 131072, 512}};
    for (int k = 0; k < 2; k++) {
        QR_CHECK(err, qr_gpu_index_build(ix, gs, 131072, 131072, &regions[k], &p, QR_RENDER_FAST,
                                         &err));
        assert_index_matches_oracle(ix, s, 131072, 131072, &regions[k], &p, QR_RENDER_FAST,
                                    "a far region");
    }
    const qr_rect too_big = {0, 0, 32769, 64};
    cr_assert_eq(qr_gpu_index_build(ix, gs, 131072, 131072, &too_big, &p, QR_RENDER_FAST, &err),
                 QR_ERR_INVALID);
    qr_gpu_index_destroy(ix);
    qr_gpu_renderer_destroy(wide);
    qr_gpu_renderer_destroy(narrow);
    qr_gpu_scene_destroy(gs);
    qr_scene_destroy(s);
}

/* qr_gpu_render_rows: any run of file rows, from a banded renderer or a
 * whole one, equals those rows of the whole image's file rows, in the
 * 8-bit layout (top row first) and the float one (bottom row first). */
Test(gpu_bands, rows_equal_the_whole_image, .timeout = 300)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_index_params p;
    qr_index_params_default(&p);
    qr_scene *s = gpu_test_scene("biglittle", 1);
    qr_gpu_scene *gs = NULL;
    QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
    const int w = 333, h = 457;
    const int runs[][2] = {{0, 457}, {0, 1}, {456, 457}, {5, 70}, {31, 33}, {100, 390}};
    for (int exact = 0; exact < 2; exact++)
        for (int f = 0; f < 2; f++) {
            const qr_image_format fmt = f ? QR_FORMAT_PFM : QR_FORMAT_PNG;
            const size_t row_bytes = (size_t)w * 3 * (f ? sizeof(float) : 1);
            const qr_render_mode mode = exact ? QR_RENDER_EXACT : QR_RENDER_FAST;
            qr_gpu_renderer *whole = NULL, *banded = NULL;
            QR_CHECK(err, qr_gpu_renderer_create(w, h, &whole, &err));
            QR_CHECK(err, qr_gpu_renderer_create_bands(w, h, 96, 64, &banded, &err));
            unsigned char *all = malloc((size_t)h * row_bytes), *part = malloc((size_t)h * row_bytes);
            cr_assert(all && part);
            QR_CHECK(err, qr_gpu_render(whole, gs, &p, mode, &err));
            QR_CHECK(err, qr_gpu_renderer_read_rows(whole, fmt, 0, all, &err));
            for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
                const int a = runs[k][0], b = runs[k][1];
                qr_gpu_renderer *rs[2] = {whole, banded};
                for (int j = 0; j < 2; j++) {
                    memset(part, 0xab, (size_t)h * row_bytes);
                    QR_CHECK(err, qr_gpu_render_rows(rs[j], gs, &p, mode, fmt, a, b, part, &err));
                    cr_expect(!memcmp(part, all + (size_t)a * row_bytes, (size_t)(b - a) * row_bytes),
                              "rows [%d, %d) %s %s, %s renderer", a, b, f ? "pfm" : "rgb8",
                              exact ? "exact" : "fast", j ? "banded" : "whole");
                }
            }
            cr_expect_eq(qr_gpu_render_rows(banded, gs, &p, mode, fmt, 5, 5, part, &err),
                         QR_ERR_INVALID);
            cr_expect_eq(qr_gpu_render_rows(banded, gs, &p, mode, fmt, 0, h + 1, part, &err),
                         QR_ERR_INVALID);
            free(all);
            free(part);
            qr_gpu_renderer_destroy(whole);
            qr_gpu_renderer_destroy(banded);
        }
    qr_gpu_scene_destroy(gs);
    qr_scene_destroy(s);
}

/* Rectangles on the 32-pixel grid (and the image's own right and top
 * edges) rendered alone (qr_gpu_render_rect) hold the whole image's bytes,
 * by a whole renderer and by one of small bands, in both modes, with and
 * without a background; deep in an image too large to hold (65536^2 in
 * 256^2 bands) a tile equals the fast CPU renderer's region (exact) and the
 * same pixels of the band of rows around it (fast). Off-grid and
 * oversized rectangles are refused. */
Test(gpu_bands, rectangles_equal_the_whole_image, .timeout = 300)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_index_params p;
    qr_index_params_default(&p);
    const int w = 500, h = 430;
    const qr_rect rects[] = {{0, 0, 128, 96},   {32, 64, 96, 96},  {480, 0, 500, 96},
                             {384, 416, 500, 430}, {96, 320, 128, 352}, {0, 384, 64, 430}};
    for (int sc = 0; sc < 3; sc++) {
        qr_scene *s = gpu_test_scene(sc == 2 ? "rand10k" : sc ? "snowsingle" : "biglittle", 1);
        if (sc == 2) QR_CHECK(err, qr_scene_set_transparent(s, 1, "background", &err));
        const int px = s->transparent ? 4 : 3;
        qr_gpu_scene *gs = NULL;
        QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
        for (int exact = 0; exact < 2; exact++) {
            const qr_render_mode mode = exact ? QR_RENDER_EXACT : QR_RENDER_FAST;
            qr_gpu_renderer *whole = NULL, *banded = NULL;
            QR_CHECK(err, qr_gpu_renderer_create(w, h, &whole, &err));
            QR_CHECK(err, qr_gpu_renderer_create_bands(w, h, 128, 96, &banded, &err));
            unsigned char *all = malloc((size_t)w * h * px), *part = malloc((size_t)w * h * px);
            cr_assert(all && part);
            QR_CHECK(err, qr_gpu_render(whole, gs, &p, mode, &err));
            QR_CHECK(err, qr_gpu_renderer_read_rows(whole, QR_FORMAT_PNG, px == 4, all, &err));
            for (size_t k = 0; k < sizeof rects / sizeof rects[0]; k++) {
                const qr_rect rc = rects[k];
                const int rw = rc.x1 - rc.x0;
                qr_gpu_renderer *rs[2] = {whole, banded};
                for (int j = 0; j < 2; j++) {
                    memset(part, 0xab, (size_t)w * h * px);
                    QR_CHECK(err, qr_gpu_render_rect(rs[j], gs, &p, mode, QR_FORMAT_PNG, &rc, part, &err));
                    /* file row t of the rectangle is file row h - rc.y1 + t of the image */
                    for (int t = 0; t < rc.y1 - rc.y0; t++)
                        cr_assert(!memcmp(part + (size_t)t * rw * px,
                                          all + ((size_t)(h - rc.y1 + t) * w + rc.x0) * px, (size_t)rw * px),
                                  "%s %s: [%d,%d) x [%d,%d) file row %d, %s renderer", s->name,
                                  exact ? "exact" : "fast", rc.x0, rc.x1, rc.y0, rc.y1, t,
                                  j ? "banded" : "whole");
                }
            }
            const qr_rect bad[] = {{16, 0, 48, 32}, {0, 0, 48, 32}, {0, 0, 160, 96}, {0, 0, 0, 32}};
            for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
                cr_expect_eq(qr_gpu_render_rect(banded, gs, &p, mode, QR_FORMAT_PNG, &bad[k], part, &err),
                             QR_ERR_INVALID, "[%d,%d) x [%d,%d) accepted", bad[k].x0, bad[k].x1,
                             bad[k].y0, bad[k].y1);
            free(all);
            free(part);
            qr_gpu_renderer_destroy(whole);
            qr_gpu_renderer_destroy(banded);
        }
        qr_gpu_scene_destroy(gs);
        qr_scene_destroy(s);
    }
    /* deep: a tile of rand10k at 65536^2 */
    qr_scene *s = gpu_test_scene("rand10k", 0);
    qr_gpu_scene *gs = NULL;
    QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
    const int W = 65536, T = 256;
    const qr_rect tile = {T * 101, T * 37, T * 102, T * 38};
    qr_gpu_renderer *deep = NULL;
    QR_CHECK(err, qr_gpu_renderer_create_bands(W, W, T, T, &deep, &err));
    unsigned char *got = malloc((size_t)T * T * 3), *want = malloc((size_t)T * T * 3);
    unsigned char *band = malloc((size_t)T * W * 3);
    cr_assert(got && want && band);
    QR_CHECK(err, qr_gpu_render_rect(deep, gs, &p, QR_RENDER_EXACT, QR_FORMAT_PNG, &tile, got, &err));
    qr_image img = {T, T, malloc((size_t)T * T * 4 * sizeof(float))};
    cr_assert(img.rgba);
    QR_CHECK(err, qr_render_cpu_fast_region(s, NULL, QR_RENDER_EXACT, 0, W, W, &tile, &img, NULL, &err));
    QR_CHECK(err, qr_image_file_rows(&img, QR_FORMAT_PNG, 0, 0, T, want, &err));
    cr_assert(!memcmp(got, want, (size_t)T * T * 3), "exact deep tile differs from the CPU's region");
    size_t lit = 0;
    for (size_t i = 0; i < (size_t)T * T * 3; i++) lit += want[i] != 255;
    cr_assert_gt(lit, 0, "the deep tile is empty: the test shows nothing");
    QR_CHECK(err, qr_gpu_render_rect(deep, gs, &p, QR_RENDER_FAST, QR_FORMAT_PNG, &tile, got, &err));
    qr_gpu_renderer *rows = NULL;
    QR_CHECK(err, qr_gpu_renderer_create_bands(W, W, 32768, T, &rows, &err));
    QR_CHECK(err, qr_gpu_render_rows(rows, gs, &p, QR_RENDER_FAST, QR_FORMAT_PNG, W - tile.y1, W - tile.y0,
                                     band, &err));
    for (int t = 0; t < T; t++)
        cr_assert(!memcmp(got + (size_t)t * T * 3, band + ((size_t)t * W + tile.x0) * 3, (size_t)T * 3),
                  "fast deep tile row %d differs from its band's", t);
    free(img.rgba);
    free(got);
    free(want);
    free(band);
    qr_gpu_renderer_destroy(rows);
    qr_gpu_renderer_destroy(deep);
    qr_gpu_scene_destroy(gs);
    qr_scene_destroy(s);
}
