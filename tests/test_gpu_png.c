/* test_gpu_png.c — PNG compressed on the GPU (image/gpu/png_gpu.h) against
 * the host's portable encoder, its oracle: the same file bytes for the
 * same pixels, whole images and banded ones, RGB and RGBA, one batch and
 * many (rows carried between them). Needs a GPU; skips with the reason
 * elsewhere. */
#include "gpu_util.h"

#include <string.h>

/* Internal (png_gpu.h): batches of at most this many bytes. */
void qr_gpu_png_set_batch_max(size_t bytes);

static qr_image_write_options portable(void)
{
    qr_image_write_options o = qr_image_write_options_default();
    o.deflate = QR_PNG_DEFLATE_PORTABLE;
    return o;
}

/* The host's portable PNG of img, and the GPU's through writer `gpath`. */
static void expect_same_png(const qr_image *img, int alpha, const char *gpath, const char *what)
{
    char hpath[4096];
    snprintf(hpath, sizeof hpath, "%s", qr_test_tmp("gpu_png_host.png"));
    qr_error err;
    qr_image_write_options o = portable();
    o.alpha = alpha;
    QR_CHECK(err, qr_image_write_as(img, hpath, QR_FORMAT_PNG, &o, &err));
    cr_expect(qr_test_same_bytes(gpath, hpath), "%s: the GPU's PNG differs from the host's", what);
}

/* Whole images, streamed through the GPU's encoder (qr_gpu_renderer_write),
 * in one batch and in batches of a few rows. */
Test(gpu_png, whole_images_equal_the_host_encoder, .timeout = 300)
{
    QR_REQUIRE_GPU();
    /* 700 x 1280: a last chunk shorter than the rows a dictionary needs */
    const int sizes[][2] = {{1, 1}, {97, 45}, {3000, 7}, {700, 1500}, {700, 1280}, {11000, 130}};
    const char *scenes[] = {"rand10k", "snowsingle"};
    const size_t batches[] = {0, 200000, 40000};
    qr_error err;
    for (int si = 0; si < 2; si++) {
        qr_scene *s = gpu_test_scene(scenes[si], 0);
        for (int k = 0; k < 6; k++) {
            const int w = sizes[k][0], h = sizes[k][1];
            gpu_session g = gpu_open(s, w, h);
            qr_index_params p;
            qr_index_params_default(&p);
            QR_CHECK(err, qr_gpu_render(g.r, g.gs, &p, QR_RENDER_EXACT, &err));
            QR_CHECK(err, qr_gpu_renderer_download(g.r, g.img, &err));
            for (int b = 0; b < 3; b++) {
                qr_gpu_png_set_batch_max(batches[b]);
                char gpath[4096], what[128];
                snprintf(gpath, sizeof gpath, "%s", qr_test_tmp("gpu_png_gpu.png"));
                snprintf(what, sizeof what, "%s %dx%d, batches of %zu bytes", scenes[si], w, h,
                         batches[b]);
                qr_image_write_options o = portable();
                qr_image_writer *wr = NULL;
                QR_CHECK(err, qr_image_writer_open(gpath, QR_FORMAT_PNG, w, h, &o, &wr, &err));
                QR_CHECK(err, qr_gpu_renderer_write(g.r, wr, &err));
                QR_CHECK(err, qr_image_writer_close(wr, &err));
                expect_same_png(g.img, 0, gpath, what);
            }
            qr_gpu_png_set_batch_max(0);
            gpu_close(&g);
        }
        qr_scene_destroy(s);
    }
}

/* Banded renders (qr_gpu_render_write) hand the encoder bands that do not
 * fall on its chunks: the same bytes as the whole image through the host;
 * with a transparent background, RGBA. */
Test(gpu_png, banded_renders_equal_the_host_encoder, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int sizes[][2] = {{300, 1000}, {2100, 333}};
    const int bands[] = {32, 96};
    qr_error err;
    for (int transparent = 0; transparent < 2; transparent++) {
        qr_scene *s = gpu_test_scene("rand10k", 0);
        if (transparent)
            QR_CHECK(err, qr_scene_set_transparent(s, 1, "test", &err));
        qr_gpu_scene *gs = NULL;
        QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
        for (int k = 0; k < 2; k++) {
            const int w = sizes[k][0], h = sizes[k][1];
            qr_index_params p;
            qr_index_params_default(&p);
            qr_image *whole = gpu_render_image(s, w, h, &p, QR_RENDER_FAST);
            for (int b = 0; b < 2; b++) {
                for (int batch = 0; batch < 2; batch++) {
                    qr_gpu_png_set_batch_max(batch ? 100000 : 0);
                    qr_gpu_renderer *r = NULL;
                    QR_CHECK(err, qr_gpu_renderer_create_bands(w, h, w < 1024 ? w : 1024, bands[b],
                                                               &r, &err));
                    char gpath[4096], what[128];
                    snprintf(gpath, sizeof gpath, "%s", qr_test_tmp("gpu_png_bands.png"));
                    snprintf(what, sizeof what, "%dx%d in bands of %d, transparent %d, batch %d", w,
                             h, bands[b], transparent, batch);
                    qr_image_write_options o = portable();
                    o.alpha = transparent;
                    qr_image_writer *wr = NULL;
                    QR_CHECK(err, qr_image_writer_open(gpath, QR_FORMAT_PNG, w, h, &o, &wr, &err));
                    QR_CHECK(err, qr_gpu_render_write(r, gs, &p, QR_RENDER_FAST, wr, &err));
                    QR_CHECK(err, qr_image_writer_close(wr, &err));
                    expect_same_png(whole, transparent, gpath, what);
                    qr_gpu_renderer_destroy(r);
                }
            }
            qr_gpu_png_set_batch_max(0);
            qr_image_destroy(whole);
        }
        qr_gpu_scene_destroy(gs);
        qr_scene_destroy(s);
    }
}
