/* test_cli_transparent.c — render --background none, run as a user runs it
 * (support/cli_run.h): the PNG is 8-bit RGBA, and its pixels (read back by
 * libpng) are those the image layer's rule (support/alpha_image.h) gives
 * for the library's own render of the scene without a background, on every
 * path a file takes: the reference, the fast CPU renderer, the GPU whole,
 * in bands, a sequence's frame pool, several GPUs. PPM and PFM, which have
 * no alpha channel, exit 2 before any work and leave no file. */
#include "alpha_image.h"
#include "cli_run.h"
#include "test_util.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/render_cpu.h"

/* The file's pixels as 8-bit RGBA, top row first (malloc'd); the PNG must
 * hold an alpha channel. */
static unsigned char *read_rgba(const char *path, int32_t w, int32_t h)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_file(&pi, path), "%s: %s", path, pi.message);
    cr_assert(pi.format & PNG_FORMAT_FLAG_ALPHA, "%s has no alpha channel", path);
    cr_assert(pi.width == (png_uint_32)w && pi.height == (png_uint_32)h, "%s: %ux%u", path,
              pi.width, pi.height);
    pi.format = PNG_FORMAT_RGBA;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(pi));
    cr_assert(px != NULL);
    cr_assert(png_image_finish_read(&pi, NULL, px, 0, NULL), "%s: %s", path, pi.message);
    return px;
}

/* The rows the PNG of `name` without a background must hold: the
 * reference's exact render through the rule. */
static unsigned char *expected(const char *name, int64_t frame, int32_t w, int32_t h)
{
    qr_error err;
    qr_scene *s = NULL;
    QR_CHECK(err, qr_scene_builtin(name, 0, &s, &err));
    if (s->anim != QR_ANIM_NONE) QR_CHECK(err, qr_scene_seek_frame(s, frame, &err));
    QR_CHECK(err, qr_scene_set_transparent(s, 1, "background", &err));
    qr_image *img = NULL;
    QR_CHECK(err, qr_image_create(w, h, &img, &err));
    QR_CHECK(err, qr_render_cpu(s, img, &err));
    unsigned char *rows = qr_test_rgba8_rows(img);
    qr_image_destroy(img);
    qr_scene_destroy(s);
    return rows;
}

/* Whether the file's pixels are `want`'s, and some of them neither clear
 * nor opaque (the test is not vacuous). */
static void expect_pixels(const char *path, const unsigned char *want, int32_t w, int32_t h)
{
    unsigned char *got = read_rgba(path, w, h);
    const size_t n = (size_t)w * (size_t)h * 4;
    size_t partial = 0;
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(got[i], want[i], "%s: pixel (%zu,%zu) channel %zu: %d, expected %d", path,
                     i / 4 % (size_t)w, i / 4 / (size_t)w, i % 4, got[i], want[i]);
        partial += i % 4 == 3 && want[i] > 0 && want[i] < 255;
    }
    cr_assert_gt(partial, 0, "%s: no pixel in part covered", path);
    free(got);
}

static char *dup_path(const char *p)
{
    char *d = strdup(p);
    cr_assert(d != NULL);
    return d;
}

/* hypnosis's frames 0 to last on `device` (a sequence: on the GPU, its
 * frame pool), each the rule's bytes of the reference's frame. */
static void expect_sequence(const char *dir, const char *device, int side, int last)
{
    char *seq = dup_path(qr_test_join(dir, "h_%d.png"));
    char size[16], frames[16];
    snprintf(size, sizeof size, "%d", side);
    snprintf(frames, sizeof frames, "0:%d", last);
    cr_assert_eq(RUN("render", "hypnosis", "-s", size, "--frames", frames, "--exact", "--device",
                     device, "--background", "none", "-o", seq),
                 0, "%s", R.err);
    for (int k = 0; k <= last; k++) {
        char name[32];
        snprintf(name, sizeof name, "h_%d.png", k);
        unsigned char *want = expected("hypnosis", k, side, side);
        expect_pixels(qr_test_join(dir, name), want, side, side);
        free(want);
    }
    free(seq);
}

/* On the CPU: the reference and the fast renderer's exact mode write the
 * rule's bytes of the reference's render; fast mode's alpha lies within a
 * step of it; a sequence's frames are the single frames'. */
Test(cli_transparent, cpu_png_holds_the_coverage, .timeout = 300)
{
    const char *dir = qr_test_tmp_dir("transparent-cpu");
    unsigned char *want = expected("rand10k", 0, 96, 64);
    char *ref = dup_path(qr_test_join(dir, "ref.png"));
    cr_assert_eq(RUN("render", "rand10k", "--width", "96", "--height", "64", "--reference",
                     "--background", "none", "-o", ref),
                 0, "%s", R.err);
    expect_pixels(ref, want, 96, 64);
    char *cpu = dup_path(qr_test_join(dir, "cpu.png"));
    cr_assert_eq(RUN("render", "rand10k", "--width", "96", "--height", "64", "--device", "cpu",
                     "--exact", "--background", "none", "-o", cpu),
                 0, "%s", R.err);
    expect_pixels(cpu, want, 96, 64);
    cr_assert_eq(RUN("render", "rand10k", "--width", "96", "--height", "64", "--device", "cpu",
                     "--fast", "--background", "none", "-o", cpu),
                 0, "%s", R.err);
    unsigned char *fast = read_rgba(cpu, 96, 64);
    for (size_t i = 3; i < (size_t)96 * 64 * 4; i += 4)
        cr_assert(abs((int)fast[i] - (int)want[i]) <= 1, "fast alpha %d, exact %d", fast[i],
                  want[i]);
    free(fast);
    free(want);
    expect_sequence(dir, "cpu", 48, 2);
    free(cpu);
    free(ref);
}

/* PPM and PFM cannot keep an alpha channel: exit 2 with the library's
 * message, no file, for render's output and stats' picture; a snow-shaded
 * scene has its own background. */
Test(cli_transparent, refusals)
{
    const char *dir = qr_test_tmp_dir("transparent-refused");
    const char *ext[] = {"ppm", "pfm"};
    for (int k = 0; k < 2; k++) {
        char name[16];
        snprintf(name, sizeof name, "t.%s", ext[k]);
        char *out = dup_path(qr_test_join(dir, name));
        cr_expect_eq(RUN("render", "rgb", "-s", "16", "--background", "none", "-o", out), 2, "%s",
                     R.err);
        cr_expect(strstr(R.err, "only PNG keeps its alpha channel"), "%s", R.err);
        cr_expect(!qr_test_exists(out), "%s was written", out);
        free(out);
    }
    /* stats' picture alike, before any work */
    char *pic = dup_path(qr_test_join(dir, "p.ppm"));
    cr_expect_eq(RUN("stats", "rgb", "-s", "16", "--background", "none", "--picture", pic), 2,
                 "%s", R.err);
    cr_expect(strstr(R.err, "only PNG keeps its alpha channel"), "%s", R.err);
    cr_expect(!strstr(R.err, "frame 0 on"), "work began: %s", R.err);
    cr_expect(!qr_test_exists(pic), "%s was written", pic);
    free(pic);
    char *out = dup_path(qr_test_join(dir, "s.png"));
    cr_expect_eq(RUN("render", "snowsingle", "-s", "16", "--background", "none", "-o", out), 2,
                 "%s", R.err);
    cr_expect(strstr(R.err, "snow-shaded"), "%s", R.err);
    cr_expect(!qr_test_exists(out));
    free(out);
}

/* On the GPU: whole, in bands (a memory budget), a sequence through the
 * frame pool and two lanes (the same GPU twice where there is one), each
 * the rule's bytes of the reference's render. */
Test(cli_transparent, gpu_png_holds_the_coverage, .timeout = 600)
{
    QR_REQUIRE_GPU();
    const char *dir = qr_test_tmp_dir("transparent-gpu");
    unsigned char *want = expected("rand10k", 0, 300, 200);
    char *out = dup_path(qr_test_join(dir, "g.png"));
    cr_assert_eq(RUN("render", "rand10k", "--width", "300", "--height", "200", "--device", "gpu",
                     "--exact", "--background", "none", "-o", out),
                 0, "%s", R.err);
    expect_pixels(out, want, 300, 200);
    cr_assert_eq(RUN("render", "rand10k", "--width", "300", "--height", "200", "--device", "gpu",
                     "--exact", "--background", "none", "--gpus", "0,0", "-o", out),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "on 2 GPUs"), "%s", R.err);
    expect_pixels(out, want, 300, 200);
    free(want);
    /* rand10k leaves pixels in part covered (rand100k's are all opaque); a
     * budget below the whole image's 36 MB of floats bands it */
    want = expected("rand10k", 0, 1500, 1500);
    cr_assert_eq(RUN("render", "rand10k", "-s", "1500", "--exact", "--device", "gpu",
                     "--gpu-memory", "30M", "--background", "none", "-o", out),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "in bands of "), "%s", R.err);
    expect_pixels(out, want, 1500, 1500);
    free(want);
    expect_sequence(dir, "gpu", 64, 3);
    free(out);
}
