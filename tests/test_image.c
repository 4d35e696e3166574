/* test_image.c — render targets and the PNG / PPM / PFM writers.
 *
 * Writers are checked by reading the files back independently (libpng for
 * PNG, raw bytes for PPM and PFM), including the failure paths: nothing
 * half-written may be left behind and an existing target must survive a
 * failed write.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <png.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "alpha_image.h"
#include "quadrender/image.h"
#include "random_scene.h"
#include "test_util.h"

/* ---- helpers ----------------------------------------------------------------- */

static qr_image *make_image(int32_t w, int32_t h)
{
    qr_image *img = NULL;
    qr_error err;
    cr_assert_eq(qr_image_create(w, h, &img, &err), QR_OK, "%s", err.msg);
    cr_assert_not_null(img);
    return img;
}

static float *px(qr_image *img, int32_t i, int32_t j)
{
    return img->rgba + ((size_t)j * (size_t)img->width + (size_t)i) * 4;
}

/* A pattern where every pixel and channel differs, so flips and channel
 * swaps show up; values run a little outside [0,1] to exercise clamping. */
static void fill_pattern(qr_image *img)
{
    for (int32_t j = 0; j < img->height; j++)
        for (int32_t i = 0; i < img->width; i++) {
            float *p = px(img, i, j);
            p[0] = -0.1f + 1.2f * (float)i / (float)(img->width > 1 ? img->width - 1 : 1);
            p[1] = -0.1f + 1.2f * (float)j / (float)(img->height > 1 ? img->height - 1 : 1);
            p[2] = (float)((i * 7 + j * 13) % 17) / 16.0f;
            p[3] = 1.0f + 0.5f * (float)(i + j);
        }
}

/* Incompressible content, so that even the PNG is large. */
static void fill_noise(qr_image *img)
{
    qr_test_rng g = qr_test_rng_seed(12345u);
    size_t n = (size_t)img->width * (size_t)img->height * 4;
    for (size_t k = 0; k < n; k++)
        img->rgba[k] = qr_test_rng_float(&g, 0.0f, 1.0f);
}


static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t float_bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* ---- creation ------------------------------------------------------------------ */

Test(image, create_sizes)
{
    const int32_t sizes[][2] = {{1, 1}, {7, 3}, {1, 9}, {QR_IMAGE_MAX_DIM, 1}, {1, QR_IMAGE_MAX_DIM}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        qr_image *img = make_image(sizes[k][0], sizes[k][1]);
        cr_assert_eq(img->width, sizes[k][0]);
        cr_assert_eq(img->height, sizes[k][1]);
        cr_assert_not_null(img->rgba);
        /* the whole buffer is there to write */
        size_t n = (size_t)img->width * (size_t)img->height * 4;
        img->rgba[0] = 1.0f;
        img->rgba[n - 1] = 2.0f;
        qr_image_destroy(img);
    }
    qr_image_destroy(NULL);
}

Test(image, create_rejects_bad_sizes)
{
    const int32_t bad[] = {0, -1, -32768, QR_IMAGE_MAX_DIM + 1, INT32_MAX, INT32_MIN};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char want[32];
        snprintf(want, sizeof want, "%ld", (long)bad[k]);

        static qr_image dummy;
        qr_image *img = &dummy; /* must be reset to NULL */
        qr_error err;
        cr_assert_eq(qr_image_create(bad[k], 4, &img, &err), QR_ERR_INVALID);
        cr_assert_null(img);
        cr_assert_eq(err.status, QR_ERR_INVALID);
        cr_assert(strstr(err.msg, "width") && strstr(err.msg, want), "message: %s", err.msg);

        img = &dummy;
        cr_assert_eq(qr_image_create(4, bad[k], &img, &err), QR_ERR_INVALID);
        cr_assert_null(img);
        cr_assert(strstr(err.msg, "height") && strstr(err.msg, want), "message: %s", err.msg);
    }
    /* a NULL qr_error is allowed */
    qr_image *img;
    cr_assert_eq(qr_image_create(0, 0, &img, NULL), QR_ERR_INVALID);
}

/* Allocation failure is provoked with an address-space limit: the message
 * must say how many bytes were needed. */
Test(image, create_out_of_memory_names_bytes)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer's shadow memory does not fit under an address-space limit");
#endif
    struct rlimit rl;
    cr_assert_eq(getrlimit(RLIMIT_AS, &rl), 0);
    rl.rlim_cur = (rlim_t)8 << 30; /* far below the 16 GiB asked for */
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
        rl.rlim_cur = rl.rlim_max;
    cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);

    qr_image *img = NULL;
    qr_error err;
    cr_assert_eq(qr_image_create(QR_IMAGE_MAX_DIM, QR_IMAGE_MAX_DIM, &img, &err), QR_ERR_NOMEM);
    cr_assert_null(img);
    cr_assert(strstr(err.msg, "17179869184"), "message: %s", err.msg);
}

/* ---- background ------------------------------------------------------------------ */

Test(image, clear_flat_is_white)
{
    qr_image *img = make_image(5, 3);
    fill_pattern(img);
    qr_image_clear(img, QR_SHADE_FLAT);
    for (size_t k = 0; k < 5 * 3 * 4; k++)
        cr_assert_eq(img->rgba[k], 1.0f, "float %zu", k);
    qr_image_destroy(img);
}

Test(image, clear_snow_gradient)
{
    const int32_t heights[] = {1, 2, 7, 480, 1024};
    for (size_t k = 0; k < sizeof heights / sizeof heights[0]; k++) {
        int32_t h = heights[k];
        qr_image *img = make_image(3, h);
        fill_pattern(img);
        qr_image_clear(img, QR_SHADE_SNOW);
        for (int32_t j = 0; j < h; j++) {
            /* the spec's expression, in float, left to right */
            float want = 0.4f + 0.45f * (float)(h - j) / (float)h;
            double exact = 0.4 + 0.45 * (double)(h - j) / (double)h;
            for (int32_t i = 0; i < 3; i++) {
                const float *p = px(img, i, j);
                cr_assert_eq(p[0], want, "H %d row %d", h, j);
                cr_assert_eq(p[1], want);
                cr_assert_eq(p[2], want);
                cr_assert_eq(p[3], 1.0f);
                cr_assert(fabs(p[0] - exact) < 1e-6);
            }
        }
        /* the bottom row is the brightest (0.85), shading darkens upwards */
        cr_assert_float_eq(px(img, 0, 0)[0], 0.85f, 1e-7);
        qr_image_destroy(img);
    }
}

/* ---- formats --------------------------------------------------------------------- */

Test(image, format_from_path)
{
    cr_assert_eq(qr_image_format_from_path("a.png"), QR_FORMAT_PNG);
    cr_assert_eq(qr_image_format_from_path("A.PNG"), QR_FORMAT_PNG);
    cr_assert_eq(qr_image_format_from_path("dir/x.PnG"), QR_FORMAT_PNG);
    cr_assert_eq(qr_image_format_from_path("out.ppm"), QR_FORMAT_PPM);
    cr_assert_eq(qr_image_format_from_path("out.PPM"), QR_FORMAT_PPM);
    cr_assert_eq(qr_image_format_from_path("/tmp/a.b/out.pfm"), QR_FORMAT_PFM);
    cr_assert_eq(qr_image_format_from_path("out.Pfm"), QR_FORMAT_PFM);
    cr_assert_eq(qr_image_format_from_path("out.jpg"), QR_FORMAT_UNKNOWN);
    cr_assert_eq(qr_image_format_from_path("out.png.bak"), QR_FORMAT_UNKNOWN);
    cr_assert_eq(qr_image_format_from_path("outpng"), QR_FORMAT_UNKNOWN);
    cr_assert_eq(qr_image_format_from_path("dir.png/out"), QR_FORMAT_UNKNOWN);
    cr_assert_eq(qr_image_format_from_path("out."), QR_FORMAT_UNKNOWN);
    cr_assert_eq(qr_image_format_from_path(""), QR_FORMAT_UNKNOWN);
    cr_assert_eq(qr_image_format_from_path(NULL), QR_FORMAT_UNKNOWN);
}

Test(image, byte_truncation_rule)
{
    cr_assert_eq(qr_to_byte(0.0f), 0);
    cr_assert_eq(qr_to_byte(1.0f), 255);
    cr_assert_eq(qr_to_byte(0.999f), 254);
    cr_assert_eq(qr_to_byte(0.5f), 127);
    cr_assert_eq(qr_to_byte(1.0f / 255.0f), 1);
    cr_assert_eq(qr_to_byte(0.003f), 0);
    cr_assert_eq(qr_to_byte(1.5f), 255);
    cr_assert_eq(qr_to_byte(-1.0f), 0);
    cr_assert_eq(qr_to_byte(-0.0f), 0);
    cr_assert_eq(qr_to_byte(NAN), 0);
    cr_assert_eq(qr_to_byte(-NAN), 0);
    cr_assert_eq(qr_to_byte(INFINITY), 255);
    cr_assert_eq(qr_to_byte(-INFINITY), 0);
}

/* ---- PPM ---------------------------------------------------------------------------- */

Test(image, ppm_header_and_pixels)
{
    qr_image *img = make_image(5, 3);
    fill_pattern(img);
    /* the truncation rule as it reaches the file */
    px(img, 0, 0)[0] = 0.999f;
    px(img, 0, 0)[1] = 1.5f;
    px(img, 0, 0)[2] = -1.0f;
    px(img, 1, 0)[0] = NAN;
    const char *path = qr_test_tmp("pattern.ppm");
    qr_error err;
    cr_assert_eq(qr_image_write(img, path, &err), QR_OK, "%s", err.msg);

    size_t len;
    unsigned char *data = (unsigned char *)qr_test_read_file(path, &len);
    const char header[] = "P6\n5 3\n255\n";
    size_t hl = sizeof header - 1;
    cr_assert_eq(len, hl + 5 * 3 * 3);
    cr_assert_eq(memcmp(data, header, hl), 0);
    const unsigned char *pix = data + hl;
    for (int32_t row = 0; row < 3; row++) {
        int32_t j = 2 - row; /* the file starts with the top row */
        for (int32_t i = 0; i < 5; i++)
            for (int c = 0; c < 3; c++)
                cr_assert_eq(pix[(row * 5 + i) * 3 + c], qr_to_byte(px(img, i, j)[c]),
                             "pixel %d,%d channel %d", i, j, c);
    }
    /* the bottom-left pixel is the first of the last file row */
    const unsigned char *bl = pix + 2 * 5 * 3;
    cr_assert_eq(bl[0], 254);
    cr_assert_eq(bl[1], 255);
    cr_assert_eq(bl[2], 0);
    cr_assert_eq(bl[3], 0);
    free(data);
    qr_image_destroy(img);
}

Test(image, ppm_extreme_shapes)
{
    const int32_t shapes[][2] = {{QR_IMAGE_MAX_DIM, 1}, {1, QR_IMAGE_MAX_DIM}, {1, 1}};
    for (size_t k = 0; k < 3; k++) {
        qr_image *img = make_image(shapes[k][0], shapes[k][1]);
        qr_image_clear(img, QR_SHADE_SNOW);
        const char *path = qr_test_tmp("shape.ppm");
        qr_error err;
        cr_assert_eq(qr_image_write_ppm(img, path, &err), QR_OK, "%s", err.msg);
        size_t len;
        unsigned char *data = (unsigned char *)qr_test_read_file(path, &len);
        char header[64];
        int hl = snprintf(header, sizeof header, "P6\n%d %d\n255\n", shapes[k][0], shapes[k][1]);
        cr_assert_eq(len, (size_t)hl + (size_t)shapes[k][0] * (size_t)shapes[k][1] * 3);
        cr_assert_eq(memcmp(data, header, (size_t)hl), 0);
        /* last byte: bottom row, brightest snow shade 0.85 -> 216 */
        cr_assert_eq(data[len - 1], qr_to_byte(0.4f + 0.45f * (float)shapes[k][1] / (float)shapes[k][1]));
        cr_assert_eq(data[len - 1], 216);
        free(data);
        qr_image_destroy(img);
    }
}

/* ---- PFM ----------------------------------------------------------------------------- */

Test(image, pfm_header_bits_and_row_order)
{
    qr_image *img = make_image(4, 3);
    fill_pattern(img);
    /* floats go out unclamped and untouched */
    px(img, 0, 0)[0] = -2.5f;
    px(img, 1, 0)[1] = 1e30f;
    px(img, 2, 0)[2] = NAN;
    px(img, 3, 2)[0] = INFINITY;
    px(img, 3, 2)[1] = 1.0e-40f; /* subnormal */
    const char *path = qr_test_tmp("pattern.pfm");
    qr_error err;
    cr_assert_eq(qr_image_write(img, path, &err), QR_OK, "%s", err.msg);

    size_t len;
    unsigned char *data = (unsigned char *)qr_test_read_file(path, &len);
    const char header[] = "PF\n4 3\n-1.0\n";
    size_t hl = sizeof header - 1;
    cr_assert_eq(len, hl + 4 * 3 * 3 * 4);
    cr_assert_eq(memcmp(data, header, hl), 0);
    const unsigned char *f = data + hl;
    for (int32_t j = 0; j < 3; j++) /* bottom row first: file row j is image row j */
        for (int32_t i = 0; i < 4; i++)
            for (int c = 0; c < 3; c++) {
                const unsigned char *p = f + ((size_t)(j * 4 + i) * 3 + (size_t)c) * 4;
                cr_assert_eq(le32(p), float_bits(px(img, i, j)[c]), "pixel %d,%d channel %d", i, j, c);
            }
    /* spot check, independent of float_bits: -2.5f is 0xC0200000 */
    cr_assert_eq(f[0], 0x00);
    cr_assert_eq(f[1], 0x00);
    cr_assert_eq(f[2], 0x20);
    cr_assert_eq(f[3], 0xC0);
    free(data);
    qr_image_destroy(img);
}

/* ---- PNG ------------------------------------------------------------------------------ */

/* The pattern, its first pixel holding a value just below 1, one above
 * and NaN. */
static qr_image *pattern_with_edges(int32_t w, int32_t h)
{
    qr_image *img = make_image(w, h);
    fill_pattern(img);
    px(img, 0, 0)[0] = 0.999f;
    px(img, 0, 0)[1] = 1.5f;
    px(img, 0, 0)[2] = NAN;
    return img;
}

Test(image, png_reads_back)
{
    qr_image *img = pattern_with_edges(6, 4);
    const char *path = qr_test_tmp("pattern.png");
    qr_error err;
    cr_assert_eq(qr_image_write(img, path, &err), QR_OK, "%s", err.msg);

    /* IHDR straight from the bytes: 8-bit depth, colour type 2 (RGB), no interlace */
    size_t len;
    unsigned char *raw = (unsigned char *)qr_test_read_file(path, &len);
    cr_assert_gt(len, 33);
    cr_assert_eq(memcmp(raw + 12, "IHDR", 4), 0);
    cr_assert_eq(raw[24], 8);
    cr_assert_eq(raw[25], 2);
    cr_assert_eq(raw[28], 0);
    free(raw);

    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_file(&pi, path), "%s", pi.message);
    cr_assert_eq(pi.width, 6);
    cr_assert_eq(pi.height, 4);
    cr_assert_eq(pi.format, PNG_FORMAT_RGB);
    unsigned char buf[6 * 4 * 3];
    cr_assert_eq(PNG_IMAGE_SIZE(pi), sizeof buf);
    cr_assert(png_image_finish_read(&pi, NULL, buf, 0, NULL), "%s", pi.message);
    for (int32_t row = 0; row < 4; row++) {
        int32_t j = 3 - row; /* top row first */
        for (int32_t i = 0; i < 6; i++)
            for (int c = 0; c < 3; c++)
                cr_assert_eq(buf[(row * 6 + i) * 3 + c], qr_to_byte(px(img, i, j)[c]),
                             "pixel %d,%d channel %d", i, j, c);
    }
    const unsigned char *bl = buf + 3 * 6 * 3;
    cr_assert_eq(bl[0], 254);
    cr_assert_eq(bl[1], 255);
    cr_assert_eq(bl[2], 0);
    qr_image_destroy(img);
}

Test(image, png_same_bytes_as_ppm)
{
    qr_image *img = make_image(97, 61);
    fill_noise(img);
    const char *png_path = qr_test_tmp("noise.png");
    const char *ppm_path = qr_test_tmp("noise.ppm");
    qr_error err;
    cr_assert_eq(qr_image_write(img, png_path, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_image_write(img, ppm_path, &err), QR_OK, "%s", err.msg);

    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_file(&pi, png_path), "%s", pi.message);
    pi.format = PNG_FORMAT_RGB;
    size_t n = PNG_IMAGE_SIZE(pi);
    unsigned char *buf = malloc(n);
    cr_assert(png_image_finish_read(&pi, NULL, buf, 0, NULL), "%s", pi.message);
    size_t len;
    unsigned char *ppm = (unsigned char *)qr_test_read_file(ppm_path, &len);
    const size_t hl = strlen("P6\n97 61\n255\n");
    cr_assert_eq(len, hl + n);
    cr_assert_eq(memcmp(ppm + hl, buf, n), 0);
    free(ppm);
    free(buf);
    qr_image_destroy(img);
}

/* img's pixels as a PNG holds them (qr_to_byte, top row first; with
 * alpha, qr_test_rgba8's RGBA): the oracle the PNGs in memory below are
 * decoded against. */
static unsigned char *png_pixels(const qr_image *img, int alpha)
{
    if (alpha)
        return qr_test_rgba8_rows(img);
    unsigned char *want = malloc((size_t)img->width * img->height * 3);
    cr_assert_not_null(want);
    for (int32_t row = 0; row < img->height; row++)
        for (int32_t i = 0; i < img->width; i++)
            for (int c = 0; c < 3; c++)
                want[((size_t)row * img->width + i) * 3 + c] = qr_to_byte(
                    img->rgba[((size_t)(img->height - 1 - row) * img->width + i) * 4 + c]);
    return want;
}

/* Encodes img in memory with opts, decodes it with libpng and compares
 * every pixel with png_pixels; then checks the bytes are the file's
 * qr_image_write_with writes with the same options. */
static void check_png_in_memory(const qr_image *img, const qr_image_write_options *opts,
                                const char *what)
{
    unsigned char *png = NULL;
    size_t len = 0;
    qr_error err;
    cr_assert_eq(qr_image_encode_png(img, opts, &png, &len, &err), QR_OK, "%s: %s", what,
                 err.msg);
    cr_assert(png && len > 8, "%s", what);
    const int alpha = opts && opts->alpha;
    const size_t ch = alpha ? 4 : 3;
    cr_assert_eq(png[25], alpha ? 6 : 2, "%s: IHDR's colour type %d", what, png[25]);

    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_memory(&pi, png, len), "%s: %s", what, pi.message);
    cr_assert_eq(pi.width, (png_uint_32)img->width, "%s", what);
    cr_assert_eq(pi.height, (png_uint_32)img->height, "%s", what);
    cr_assert_eq(pi.format, alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB, "%s", what);
    const size_t n = (size_t)img->width * img->height * ch;
    cr_assert_eq(PNG_IMAGE_SIZE(pi), n, "%s", what);
    unsigned char *got = malloc(n);
    cr_assert_not_null(got);
    cr_assert(png_image_finish_read(&pi, NULL, got, 0, NULL), "%s: %s", what, pi.message);
    unsigned char *want = png_pixels(img, alpha);
    for (size_t k = 0; k < n; k++)
        cr_assert_eq(got[k], want[k], "%s: byte %zu (row %zu from the top, pixel %zu) %d, want %d",
                     what, k, k / ch / img->width, k / ch % img->width, got[k], want[k]);
    free(want);
    free(got);

    const char *path = qr_test_tmp("in_memory.png");
    cr_assert_eq(qr_image_write_with(img, path, opts, &err), QR_OK, "%s: %s", what, err.msg);
    size_t flen;
    unsigned char *file = (unsigned char *)qr_test_read_file(path, &flen);
    cr_assert(flen == len && memcmp(file, png, len) == 0, "%s: %zu bytes in memory, the file %zu",
              what, len, flen);
    free(file);
    free(png);
}

Test(image, png_in_memory_decodes_to_the_pixels)
{
    /* values outside [0, 1] and NaN, every level's extremes and the default */
    qr_image *img = pattern_with_edges(6, 4);
    qr_image_write_options o = qr_image_write_options_default();
    check_png_in_memory(img, NULL, "6x4 defaults");
    for (int level = 0; level <= 9; level += 9) {
        o.png_level = level;
        check_png_in_memory(img, &o, level ? "6x4 level 9" : "6x4 level 0");
    }
    qr_image_destroy(img);

    /* one row, one column */
    img = make_image(1, 1);
    fill_pattern(img);
    check_png_in_memory(img, NULL, "1x1");
    qr_image_destroy(img);

    /* noise over many of the encoder's chunks (128 KiB of rows at the
     * least), on one thread and on several: the same bytes */
    img = make_image(333, 700);
    fill_noise(img);
    o = qr_image_write_options_default();
    o.threads = 1;
    check_png_in_memory(img, &o, "333x700 on 1 thread");
    o.threads = 4;
    check_png_in_memory(img, &o, "333x700 on 4 threads");
    qr_image_destroy(img);
}

/* Whether the n bytes of s stand somewhere in p[0..len). */
static int holds(const unsigned char *p, size_t len, const char *s, size_t n)
{
    for (size_t k = 0; k + n <= len; k++)
        if (memcmp(p + k, s, n) == 0)
            return 1;
    return 0;
}

Test(image, png_in_memory_carries_text)
{
    qr_image *img = make_image(16, 9);
    fill_pattern(img);
    const qr_image_text text[] = {{"Scene", "rand10k"}, {"Comment", "caf\xc3\xa9"}};
    qr_image_write_options o = qr_image_write_options_default();
    o.text = text;
    o.ntext = 2;
    check_png_in_memory(img, &o, "with text");
    unsigned char *png = NULL;
    size_t len = 0;
    qr_error err;
    cr_assert_eq(qr_image_encode_png(img, &o, &png, &len, &err), QR_OK, "%s", err.msg);
    cr_assert(holds(png, len, "tEXtScene\0rand10k", 17), "no tEXt chunk");
    cr_assert(holds(png, len, "iTXtComment", 11), "no iTXt chunk");
    free(png);
    qr_image_destroy(img);
}

Test(image, png_in_memory_rejects_bad_arguments)
{
    qr_image *img = make_image(4, 4);
    fill_pattern(img);
    unsigned char *png = (unsigned char *)"untouched";
    size_t len = 7;
    qr_error err;
    cr_assert_eq(qr_image_encode_png(NULL, NULL, &png, &len, &err), QR_ERR_INVALID);
    cr_assert(png == NULL && len == 0);
    cr_assert_str_eq(err.msg, "PNG in memory: not a valid image to write");
    qr_image_write_options o = qr_image_write_options_default();
    o.png_level = 10;
    cr_assert_eq(qr_image_encode_png(img, &o, &png, &len, &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "PNG level 10 is out of range (0..9)");
    o = qr_image_write_options_default();
    const qr_image_text bad[] = {{" Scene", "x"}};
    o.text = bad;
    o.ntext = 1;
    cr_assert_eq(qr_image_encode_png(img, &o, &png, &len, &err), QR_ERR_INVALID);
    cr_assert(png == NULL && len == 0);
    cr_assert_eq(qr_image_encode_png(img, NULL, NULL, &len, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_image_encode_png(img, NULL, &png, NULL, &err), QR_ERR_INVALID);
    qr_image_destroy(img);
}

/* ---- a transparent background: RGBA PNG --------------------------------------------------- */

/* qr_to_rgba8, the one conversion of the host writers and the GPU, against
 * the test's reading of the rule, on every alpha byte's edges and the
 * cases the rule turns on. */
Test(image, rgba8_follows_the_rule)
{
    const float alphas[] = {0.0f, -0.0f, 1.0f, 1e-30f, 1e-7f, 0.0039215f, 0.0039216f,
                            0.5f, 0.999f, 1.0000001f, 3.0f, -1.0f, NAN, INFINITY};
    qr_test_rng g = qr_test_rng_seed(99u);
    for (int n = 0; n < 200000; n++) {
        float p[4];
        /* an alpha of the list, or one near an alpha byte's edge k / 255 */
        if (n % 4 == 0)
            p[3] = alphas[n / 4 % (sizeof alphas / sizeof alphas[0])];
        else
            p[3] = nextafterf((float)(n % 256) / 255.0f, n % 3 ? 2.0f : -2.0f);
        for (int c = 0; c < 3; c++) {
            const float u = qr_test_rng_float(&g, 0.0f, 1.0f);
            /* premultiplied, exactly a, just above a, or anything */
            p[c] = c == 0 ? p[3] * u : c == 1 ? nextafterf(p[3], 5.0f) : 2.0f * u - 0.5f;
        }
        unsigned char got[4], want[4];
        qr_to_rgba8(p[0], p[1], p[2], p[3], got);
        qr_test_rgba8(p, want);
        cr_assert(memcmp(got, want, 4) == 0,
                  "(%a %a %a %a): %d %d %d %d, want %d %d %d %d", (double)p[0], (double)p[1],
                  (double)p[2], (double)p[3], got[0], got[1], got[2], got[3], want[0], want[1],
                  want[2], want[3]);
    }
    unsigned char o[4];
    qr_to_rgba8(0.7f, 0.7f, 0.7f, 0.0f, o); /* no coverage: no colour */
    cr_assert(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0);
    qr_to_rgba8(0.25f, 0.5f, 0.2500001f, 0.25f, o); /* straight 1, 2 and above 1 */
    cr_assert(o[0] == 255 && o[1] == 255 && o[2] == 255 && o[3] == 63);
    qr_to_rgba8(0.1f, 0.05f, 0.0f, 0.2f, o);
    cr_assert(o[0] == 127 && o[1] == 63 && o[2] == 0 && o[3] == 51);
}

/* The PNG keeps the alpha channel, straight: libpng reads every byte the
 * rule gives, on any thread count, in memory as in the file. */
Test(image, png_with_alpha_decodes_to_the_rule)
{
    qr_image_write_options o = qr_image_write_options_default();
    o.alpha = 1;
    qr_image *img = qr_test_alpha_image(37, 23, 1u);
    check_png_in_memory(img, &o, "37x23 with alpha");
    o.png_level = 9;
    check_png_in_memory(img, &o, "37x23 with alpha, level 9");
    qr_image_destroy(img);

    img = qr_test_alpha_image(1, 1, 2u);
    o = qr_image_write_options_default();
    o.alpha = 1;
    check_png_in_memory(img, &o, "1x1 with alpha");
    qr_image_destroy(img);

    /* many chunks: the same bytes on one thread and on four */
    img = qr_test_alpha_image(333, 700, 3u);
    o.threads = 1;
    check_png_in_memory(img, &o, "333x700 with alpha on 1 thread");
    unsigned char *one, *four;
    size_t len1, len4;
    qr_error err;
    QR_CHECK(err, qr_image_encode_png(img, &o, &one, &len1, &err));
    o.threads = 4;
    check_png_in_memory(img, &o, "333x700 with alpha on 4 threads");
    QR_CHECK(err, qr_image_encode_png(img, &o, &four, &len4, &err));
    cr_assert(len1 == len4 && memcmp(one, four, len1) == 0, "other bytes on 4 threads");
    free(one);
    free(four);

    /* without alpha the same image is RGB, alpha dropped */
    check_png_in_memory(img, NULL, "333x700 without alpha");
    qr_image_destroy(img);
}

/* File rows with alpha, from any first row: the rule's bytes, top row first. */
Test(image, file_rows_with_alpha)
{
    qr_image *img = qr_test_alpha_image(41, 30, 4u);
    unsigned char *want = qr_test_rgba8_rows(img);
    const size_t rb = 4 * (size_t)img->width;
    unsigned char *rows = malloc(rb * 30);
    qr_error err;
    QR_CHECK(err, qr_image_file_rows(img, QR_FORMAT_PNG, 1, 0, 30, rows, &err));
    cr_assert_eq(memcmp(rows, want, rb * 30), 0);
    QR_CHECK(err, qr_image_file_rows(img, QR_FORMAT_PNG, 1, 7, 11, rows, &err));
    cr_assert_eq(memcmp(rows, want + 7 * rb, rb * 11), 0);
    free(rows);
    free(want);
    qr_image_destroy(img);
}

/* PPM and PFM have no alpha channel: a write that asks for it is refused
 * with a one-line message before any file exists; alpha is 0 or 1. */
Test(image, alpha_refused_where_the_format_has_none)
{
    qr_image *img = qr_test_alpha_image(8, 5, 5u);
    const char *dir = qr_test_tmp_dir("alpha-refused");
    qr_image_write_options o = qr_image_write_options_default();
    o.alpha = 1;
    const char *names[] = {"t.ppm", "t.pfm"};
    const qr_image_format formats[] = {QR_FORMAT_PPM, QR_FORMAT_PFM};
    for (int k = 0; k < 2; k++) {
        char path[1200], want[128];
        snprintf(path, sizeof path, "%s", qr_test_join(dir, names[k]));
        snprintf(want, sizeof want,
                 "%s has no alpha channel: write a PNG for a transparent background",
                 k ? "PFM" : "PPM");
        qr_error err;
        cr_assert_eq(qr_image_write_with(img, path, &o, &err), QR_ERR_INVALID);
        cr_assert(strstr(err.msg, want) && !strchr(err.msg, '\n'), "message: %s", err.msg);
        cr_assert_eq(qr_image_write_as(img, path, formats[k], &o, &err), QR_ERR_INVALID);
        cr_assert(strstr(err.msg, want), "message: %s", err.msg);
        qr_image_writer *w = (qr_image_writer *)&err;
        cr_assert_eq(qr_image_writer_open(path, formats[k], 8, 5, &o, &w, &err), QR_ERR_INVALID);
        cr_assert(w == NULL && strstr(err.msg, want), "message: %s", err.msg);
        cr_assert(!qr_test_exists(path), "%s was written", path);
        unsigned char rows[8 * 5 * 12];
        cr_assert_eq(qr_image_file_rows(img, formats[k], 1, 0, 5, rows, &err), QR_ERR_INVALID);
        cr_assert(strstr(err.msg, want), "message: %s", err.msg);
    }
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
    /* alpha is a flag */
    qr_error err;
    o.alpha = 2;
    cr_assert_eq(qr_image_write_with(img, qr_test_join(dir, "t.png"), &o, &err), QR_ERR_INVALID);
    cr_assert(strstr(err.msg, "alpha 2 is not 0 or 1"), "message: %s", err.msg);
    unsigned char *png = NULL;
    size_t len = 0;
    cr_assert_eq(qr_image_encode_png(img, &o, &png, &len, &err), QR_ERR_INVALID);
    cr_assert(png == NULL && len == 0);
    cr_assert(!qr_test_exists(qr_test_join(dir, "t.png")));
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
    qr_image_destroy(img);
}

/* ---- errors and atomicity ------------------------------------------------------------------ */

Test(image, unknown_extension)
{
    qr_image *img = make_image(2, 2);
    qr_image_clear(img, QR_SHADE_FLAT);
    const char *dir = qr_test_tmp_dir("unknown-ext");
    const char *path = qr_test_join(dir, "out.jpg");
    qr_error err;
    cr_assert_eq(qr_image_write(img, path, &err), QR_ERR_INVALID);
    char want[1400];
    snprintf(want, sizeof want, "cannot tell the image format of '%s': use .png, .ppm or .pfm", path);
    cr_assert_str_eq(err.msg, want);
    cr_assert(!qr_test_exists(path));
    cr_assert_eq(qr_test_count_temp_files(dir), 0);

    cr_assert_eq(qr_image_write(img, "noextension", &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "cannot tell the image format of 'noextension': use .png, .ppm or .pfm");
    qr_image_destroy(img);
}

Test(image, invalid_image_is_rejected)
{
    qr_error err;
    const char *path = qr_test_tmp("invalid.ppm");
    cr_assert_eq(qr_image_write(NULL, path, &err), QR_ERR_INVALID);
    qr_image bad = {0, 0, NULL};
    cr_assert_eq(qr_image_write_png(&bad, qr_test_tmp("invalid.png"), &err), QR_ERR_INVALID);
    cr_assert_eq(qr_image_write_pfm(&bad, qr_test_tmp("invalid.pfm"), &err), QR_ERR_INVALID);
    cr_assert(!qr_test_exists(path));
}

Test(image, missing_directory_fails_cleanly)
{
    qr_image *img = make_image(3, 2);
    qr_image_clear(img, QR_SHADE_FLAT);
    const char *dir = qr_test_tmp_dir("missing-parent");
    const char *names[] = {"absent/out.png", "absent/out.ppm", "absent/out.pfm"};
    for (int k = 0; k < 3; k++) {
        const char *path = qr_test_join(dir, names[k]);
        qr_error err;
        cr_assert_eq(qr_image_write(img, path, &err), QR_ERR_IO);
        cr_assert(strstr(err.msg, path), "message: %s", err.msg);
        cr_assert(strstr(err.msg, strerror(ENOENT)), "message: %s", err.msg);
        cr_assert(!qr_test_exists(qr_test_join(dir, "absent")));
        cr_assert_eq(qr_test_count_temp_files(dir), 0);
    }
    qr_image_destroy(img);
}

Test(image, target_is_a_directory)
{
    qr_image *img = make_image(3, 2);
    qr_image_clear(img, QR_SHADE_FLAT);
    const char *dir = qr_test_tmp_dir("dir-target");
    const char *path = qr_test_join(dir, "taken.png");
    cr_assert_eq(mkdir(path, 0777), 0);
    qr_error err;
    cr_assert_eq(qr_image_write(img, path, &err), QR_ERR_IO);
    cr_assert(strstr(err.msg, path), "message: %s", err.msg);
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
    qr_image_destroy(img);
}

Test(image, overwrite_existing_file)
{
    qr_image *img = make_image(4, 4);
    fill_pattern(img);
    const char *dir = qr_test_tmp_dir("overwrite");
    const char *names[] = {"o.png", "o.ppm", "o.pfm"};
    for (int k = 0; k < 3; k++) {
        const char *path = qr_test_join(dir, names[k]);
        /* longer than the image, so a write in place would leave a tail */
        char junk[5000];
        memset(junk, 'x', sizeof junk - 1);
        junk[sizeof junk - 1] = '\0';
        qr_test_write_text(path, junk);
        qr_error err;
        cr_assert_eq(qr_image_write(img, path, &err), QR_OK, "%s", err.msg);
        size_t len;
        unsigned char *data = (unsigned char *)qr_test_read_file(path, &len);
        cr_assert_lt(len, sizeof junk - 1);
        cr_assert(data[0] == 0x89 || data[0] == 'P');
        free(data);
    }
    cr_assert_eq(qr_test_count_temp_files(dir), 0);

    /* the replaced file is a real image again */
    size_t len;
    unsigned char *data = (unsigned char *)qr_test_read_file(qr_test_join(dir, "o.ppm"), &len);
    cr_assert_eq(len, strlen("P6\n4 4\n255\n") + 4 * 4 * 3);
    free(data);
    qr_image_destroy(img);
}

/* A write that runs out of room (here: a file-size limit, EFBIG) must fail
 * with QR_ERR_IO, leave the previous target as it was, and leave no temporary. */
Test(image, failed_write_keeps_old_target)
{
    signal(SIGXFSZ, SIG_IGN);
    qr_image *img = make_image(256, 256);
    fill_noise(img);
    const char *dir = qr_test_tmp_dir("failed-write");
    const char *names[] = {"keep.png", "keep.ppm", "keep.pfm"};
    const char *old = "the previous image\n";
    for (int k = 0; k < 3; k++)
        qr_test_write_text(qr_test_join(dir, names[k]), old);

    struct rlimit rl;
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &rl), 0);
    rl.rlim_cur = 4096;
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);

    for (int k = 0; k < 3; k++) {
        const char *path = qr_test_join(dir, names[k]);
        qr_error err;
        cr_assert_eq(qr_image_write(img, path, &err), QR_ERR_IO, "%s: %s", names[k], err.msg);
        cr_assert_eq(err.status, QR_ERR_IO);
        cr_assert(strstr(err.msg, path), "message: %s", err.msg);
        cr_assert(strstr(err.msg, strerror(EFBIG)), "message: %s", err.msg);
        size_t len;
        unsigned char *data = (unsigned char *)qr_test_read_file(path, &len);
        cr_assert_eq(len, strlen(old));
        cr_assert_eq(memcmp(data, old, len), 0);
        free(data);
        cr_assert_eq(qr_test_count_temp_files(dir), 0);
    }
    qr_image_destroy(img);
}
