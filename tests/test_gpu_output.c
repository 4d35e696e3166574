/* test_gpu_output.c — what comes out of the GPU besides a frame, against
 * the CPU: animated scenes seeked on the device (qr_gpu_scene_seek_frame),
 * images streamed into files (qr_gpu_renderer_write), and the top-first
 * RGB download (qr_gpu_renderer_download_rgb) against the float image.
 * Needs a GPU; skips with the reason elsewhere. */
#include "gpu_util.h"

#include <string.h>

/* qr_gpu_scene_seek_frame follows qr_scene_seek_frame's rule: the state of
 * frame k on the device equals the host's bit for bit, for animated and
 * static scenes, seeking forward in jumps, far (by cycles: frames up to
 * 2^31 - 1) and, for snow, across two launches (2^31 circle-steps a
 * launch); seeking back fails on both. */
Test(gpu_render, seek_frame_matches_the_cpu, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const char *names[] = {"fireworks", "bouncingballs", "hypnosis", "rand10k", "snow"};
    const int64_t far[] = {0, 0, 3, 17, 40, 1000, 999999, 2147483646};
    const int64_t snow[] = {0, 0, 3, 17, 40, 130, 3000, 25000};
    for (int k = 0; k < 5; k++) {
        qr_error err;
        qr_scene *cpu = gpu_test_scene(names[k], 0);
        qr_scene *back = NULL;
        qr_gpu_scene *gs = NULL;
        QR_CHECK(err, qr_scene_clone(cpu, &back, &err));
        QR_CHECK(err, qr_gpu_scene_create(cpu, &gs, &err));
        const int64_t *frames = k == 4 ? snow : far;
        for (int f = 0; f < 8; f++) {
            QR_CHECK(err, qr_scene_seek_frame(cpu, frames[f], &err));
            QR_CHECK(err, qr_gpu_scene_seek_frame(gs, frames[f], &err));
            QR_CHECK(err, qr_gpu_scene_download(gs, back, &err));
            cr_assert_eq(back->steps, cpu->steps, "%s frame %lld: %lld steps on the GPU, %lld on the CPU",
                         names[k], (long long)frames[f], (long long)back->steps, (long long)cpu->steps);
            cr_assert(memcmp(back->block, cpu->block, cpu->block_floats * sizeof(float)) == 0,
                      "%s frame %lld: GPU state differs from the CPU", names[k], (long long)frames[f]);
        }
        cr_assert_eq(qr_scene_seek_frame(cpu, 39, &err), QR_ERR_INVALID);
        cr_assert_eq(qr_gpu_scene_seek_frame(gs, 39, &err), QR_ERR_INVALID, "%s: seeking back", names[k]);
        cr_assert_eq(qr_gpu_scene_seek_frame(gs, -1, &err), QR_ERR_INVALID);
        qr_gpu_scene_destroy(gs);
        qr_scene_destroy(back);
        qr_scene_destroy(cpu);
    }
}

/* The streamed write (qr_gpu_renderer_write): images converted on the GPU
 * and brought back in bands write the same file bytes as the host writers
 * do from the CPU reference (PPM, exact mode: qr_to_byte on both sides) and
 * from the downloaded float image (PFM, both modes); PNG decodes to the PPM's
 * pixels. Sizes with one band, many bands and a partial last band. */
Test(gpu_render, streamed_write_equals_host_writers, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int sizes[][2] = {{1, 1}, {97, 45}, {3000, 7}, {3000, 3000}};
    const char *scenes[] = {"rand10k", "snowsingle", "pattern"};
    qr_error err;
    for (int si = 0; si < 3; si++) {
        qr_scene *s = gpu_test_scene(scenes[si], 0);
        for (int k = 0; k < 4; k++) {
            if (k == 3 && si > 0) continue; /* several bands: one scene is enough */
            const int w = sizes[k][0], h = sizes[k][1];
            gpu_session g = gpu_open(s, w, h);
            qr_index_params p;
            qr_index_params_default(&p);
            for (int mode = 0; mode < 2; mode++) {
                QR_CHECK(err, qr_gpu_render(g.r, g.gs, &p, (qr_render_mode)mode, &err));
                QR_CHECK(err, qr_gpu_renderer_download(g.r, g.img, &err));
                const qr_image_format fmts[] = {QR_FORMAT_PPM, QR_FORMAT_PFM, QR_FORMAT_PNG};
                const char *ext[] = {"ppm", "pfm", "png"};
                for (int f = 0; f < 3; f++) {
                    char gp[64], hp[64];
                    snprintf(gp, sizeof gp, "stream_g_%d_%d.%s", si, k, ext[f]);
                    snprintf(hp, sizeof hp, "stream_h_%d_%d.%s", si, k, ext[f]);
                    const char *gpath = qr_test_tmp(gp);
                    char gsave[4096];
                    snprintf(gsave, sizeof gsave, "%s", gpath);
                    const char *hpath = qr_test_tmp(hp);
                    qr_image_writer *wr = NULL;
                    QR_CHECK(err, qr_image_writer_open(gsave, fmts[f], w, h, NULL, &wr, &err));
                    QR_CHECK(err, qr_gpu_renderer_write(g.r, wr, &err));
                    QR_CHECK(err, qr_image_writer_close(wr, &err));
                    /* the host writers from the downloaded image */
                    QR_CHECK(err, qr_image_write_as(g.img, hpath, fmts[f], NULL, &err));
                    cr_expect(qr_test_same_bytes(gsave, hpath), "%s %dx%d %s mode %d", scenes[si],
                              w, h, ext[f], mode);
                }
                if (mode == QR_RENDER_EXACT && strcmp(scenes[si], "snowsingle") != 0) {
                    /* and from the CPU reference: the same PPM bytes */
                    qr_image *c = cpu_render_image(s, w, h);
                    char cp[64], gp[64];
                    snprintf(cp, sizeof cp, "stream_c_%d_%d.ppm", si, k);
                    snprintf(gp, sizeof gp, "stream_g_%d_%d.ppm", si, k);
                    char csave[4096];
                    snprintf(csave, sizeof csave, "%s", qr_test_tmp(cp));
                    QR_CHECK(err, qr_image_write_ppm(c, csave, &err));
                    cr_expect(qr_test_same_bytes(qr_test_tmp(gp), csave), "%s %dx%d vs CPU",
                              scenes[si], w, h);
                    qr_image_destroy(c);
                }
            }
            gpu_close(&g);
        }
        qr_scene_destroy(s);
    }
}

typedef struct gpu_progress_log {
    int calls;
    int64_t last_done, total;
} gpu_progress_log;

static void log_gpu_progress(void *ctx, int64_t done, int64_t total)
{
    gpu_progress_log *p = ctx;
    cr_assert(done > p->last_done && done <= total, "progress %lld of %lld after %lld", (long long)done,
              (long long)total, (long long)p->last_done);
    p->calls++;
    p->last_done = done;
    p->total = total;
}

/* A device seek equals single device steps (qr_gpu_scene_step, one launch a
 * step) on every animated scene; a snow seek of several launches reports
 * its progress up to the total, and lands on the state of the host's seek. */
Test(gpu_render, seek_frame_equals_gpu_steps, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const char *names[] = {"fireworks", "bouncingballs", "hypnosis", "snow"};
    for (int k = 0; k < 4; k++) {
        qr_error err;
        qr_scene *host = gpu_test_scene(names[k], 5);
        qr_scene *a = NULL, *b = NULL;
        qr_gpu_scene *seek = NULL, *step = NULL;
        QR_CHECK(err, qr_scene_clone(host, &a, &err));
        QR_CHECK(err, qr_scene_clone(host, &b, &err));
        QR_CHECK(err, qr_gpu_scene_create(host, &seek, &err));
        QR_CHECK(err, qr_gpu_scene_create(host, &step, &err));
        const int64_t frames[] = {0, 63, 64, 129, 700};
        for (int f = 0; f < 5; f++) {
            QR_CHECK(err, qr_gpu_scene_seek_frame(seek, frames[f], &err));
            for (int64_t i = 0; i < frames[f] + 1 - (f ? frames[f - 1] + 1 : 0); i++)
                QR_CHECK(err, qr_gpu_scene_step(step, &err));
            QR_CHECK(err, qr_gpu_scene_download(seek, a, &err));
            QR_CHECK(err, qr_gpu_scene_download(step, b, &err));
            cr_assert_eq(a->steps, b->steps);
            cr_assert(memcmp(a->block, b->block, a->block_floats * sizeof(float)) == 0,
                      "%s frame %lld: the seek differs from single GPU steps", names[k],
                      (long long)frames[f]);
        }
        if (k == 3) {
            gpu_progress_log p = {0, 0, 0};
            QR_CHECK(err, qr_gpu_scene_seek_frame_progress(seek, 25000, log_gpu_progress, &p, &err));
            cr_assert(p.calls >= 2, "%d progress calls", p.calls);
            cr_assert_eq(p.last_done, p.total);
            cr_assert_eq(p.total, 25000 - 700);
            QR_CHECK(err, qr_scene_seek_frame(host, 25000, &err));
            QR_CHECK(err, qr_gpu_scene_download(seek, a, &err));
            cr_assert(memcmp(a->block, host->block, a->block_floats * sizeof(float)) == 0,
                      "snow frame 25000: the GPU seek differs from the CPU's");
        }
        qr_gpu_scene_destroy(seek);
        qr_gpu_scene_destroy(step);
        qr_scene_destroy(a);
        qr_scene_destroy(b);
        qr_scene_destroy(host);
    }
}

/* Asserts rgb (w x h x 3 floats, the top row first) holds img's colour
 * (float RGBA, the bottom row first), bit for bit. */
static void assert_rgb_of(const float *rgb, const qr_image *img, const char *what)
{
    const int w = img->width, h = img->height;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const float *want = img->rgba + 4 * ((size_t)(h - 1 - y) * w + x);
            const float *got = rgb + 3 * ((size_t)y * w + x);
            cr_assert(memcmp(want, got, 3 * sizeof(float)) == 0,
                      "%s: pixel (%d, %d) from the top: %a %a %a, not %a %a %a", what, x, y,
                      (double)got[0], (double)got[1], (double)got[2], (double)want[0],
                      (double)want[1], (double)want[2]);
        }
}

/* qr_gpu_renderer_download_rgb gives the downloaded float image's colour,
 * top row first, bit for bit: one band, many bands and a partial last one,
 * both modes, one thread and several; a banded renderer is refused. */
Test(gpu_render, rgb_download_equals_the_float_image, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const int sizes[][2] = {{1, 1}, {97, 45}, {3000, 7}, {1500, 3000}};
    const int threads[] = {1, 0, 7};
    qr_error err;
    qr_scene *s = gpu_test_scene("rand10k", 0);
    for (int k = 0; k < 4; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        gpu_session g = gpu_open(s, w, h);
        qr_index_params p;
        qr_index_params_default(&p);
        float *rgb = malloc((size_t)w * h * 3 * sizeof(float));
        cr_assert(rgb);
        for (int mode = 0; mode < 2; mode++) {
            QR_CHECK(err, qr_gpu_render(g.r, g.gs, &p, (qr_render_mode)mode, &err));
            QR_CHECK(err, qr_gpu_renderer_download(g.r, g.img, &err));
            for (int t = 0; t < 3; t++) {
                memset(rgb, 0xff, (size_t)w * h * 3 * sizeof(float));
                QR_CHECK(err, qr_gpu_renderer_download_rgb(g.r, rgb, threads[t], &err));
                char what[96];
                snprintf(what, sizeof what, "%dx%d mode %d, %d threads", w, h, mode, threads[t]);
                assert_rgb_of(rgb, g.img, what);
            }
        }
        gpu_close(&g);
        free(rgb);
    }
    qr_gpu_renderer *banded = NULL;
    QR_CHECK(err, qr_gpu_renderer_create_bands(256, 256, 256, 64, &banded, &err));
    float one[256 * 3];
    cr_assert_eq(qr_gpu_renderer_download_rgb(banded, one, 0, &err), QR_ERR_INVALID);
    qr_gpu_renderer_destroy(banded);
    qr_scene_destroy(s);
}
