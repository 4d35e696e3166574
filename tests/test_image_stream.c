/* test_image_stream.c — the streaming image writer and the parallel PNG encoder.
 *
 * Oracles: the whole-image writers (byte for byte, PPM and PFM, which keep
 * today's bytes), libpng's decoder, and a second decoder written here from
 * the PNG specification on top of zlib's inflate (chunks, CRCs, filters).
 * Sizes are chosen to reach the encoder's edge cases: one pixel, one column
 * (many rows to a chunk), few wide rows (one row to a chunk, with a
 * context row above it), and many chunks.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <png.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <zlib.h>

#include "alpha_image.h"
#include "image/png_encoder.h"
#include "quadrender/image.h"
#include "test_util.h"

/* ---- helpers ----------------------------------------------------------------- */

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *buf = malloc(cap);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *len = n;
    return buf;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}


static const char *fresh_dir(const char *name)
{
    const char *dir = qr_test_tmp(name);
    cr_assert(mkdir(dir, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
    return dir;
}

static const char *join(const char *dir, const char *name)
{
    static char buf[4][1200];
    static int slot;
    char *out = buf[slot++ % 4];
    snprintf(out, sizeof buf[0], "%s/%s", dir, name);
    return out;
}

static void assert_same_file(const char *a, const char *b)
{
    size_t la, lb;
    unsigned char *da = read_all(a, &la), *db = read_all(b, &lb);
    cr_assert_eq(la, lb, "%s: %zu bytes, %s: %zu bytes", a, la, b, lb);
    cr_assert_eq(memcmp(da, db, la), 0, "%s and %s differ", a, b);
    free(da);
    free(db);
}

static uint32_t rnd(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* The value of channel c at pixel (i, j), something like a render: smooth
 * gradients and a noise tile that repeats (so that deflate matches reach
 * back across chunk boundaries), with values outside [0,1]. */
static float pattern(int32_t i, int32_t j, int c)
{
    static float tile[61 * 53];
    static int ready;
    if (!ready) {
        uint32_t s = 2463534242u;
        for (int k = 0; k < 61 * 53; k++)
            tile[k] = (float)(rnd(&s) >> 8) / 16777216.0f;
        ready = 1;
    }
    if (c == 0)
        return -0.1f + 1.2f * (float)((i + 2 * j) % 509) / 508.0f;
    if (c == 1)
        return tile[(j % 53) * 61 + i % 61];
    return (i / 40 + j / 30) % 3 == 0 ? tile[(i * 7 + j) % (61 * 53)] : 0.25f;
}

/* A float image of the pattern (row 0 at the bottom), with a NaN and a
 * value above 1 for the 8-bit rule. */
static qr_image *make_image(int32_t w, int32_t h)
{
    qr_image *img = NULL;
    qr_error err;
    cr_assert_eq(qr_image_create(w, h, &img, &err), QR_OK, "%s", err.msg);
    for (int32_t j = 0; j < h; j++)
        for (int32_t i = 0; i < w; i++) {
            float *p = img->rgba + ((size_t)j * w + i) * 4;
            for (int c = 0; c < 3; c++)
                p[c] = pattern(i, j, c);
            p[3] = 1.0f;
        }
    img->rgba[0] = NAN;
    img->rgba[(size_t)w * h * 4 - 2] = 1.5f;
    return img;
}

/* The pattern as 8-bit rows, for sizes beyond what a qr_image holds. */
static unsigned char *pattern_rgb8(int32_t w, int32_t h)
{
    unsigned char *px = malloc((size_t)w * h * 3);
    for (int32_t r = 0; r < h; r++)
        for (int32_t i = 0; i < w; i++)
            for (int c = 0; c < 3; c++)
                px[((size_t)r * w + i) * 3 + c] = qr_to_byte(pattern(i, r, c));
    return px;
}

/* The image's 8-bit RGB rows, top row first, as PNG and PPM store them. */
static unsigned char *rows_rgb8(const qr_image *img)
{
    const size_t rb = (size_t)img->width * 3;
    unsigned char *px = malloc(rb * (size_t)img->height);
    for (int32_t r = 0; r < img->height; r++) {
        const float *src = img->rgba + (size_t)(img->height - 1 - r) * img->width * 4;
        for (int32_t i = 0; i < img->width; i++)
            for (int c = 0; c < 3; c++)
                px[r * rb + 3 * (size_t)i + c] = qr_to_byte(src[4 * i + c]);
    }
    return px;
}

/* Its float RGB rows, bottom row first, as PFM stores them. */
static float *rows_rgbf(const qr_image *img)
{
    const size_t n = (size_t)img->width * img->height;
    float *px = malloc(n * 3 * sizeof(float));
    for (size_t k = 0; k < n; k++)
        memcpy(px + 3 * k, img->rgba + 4 * k, 3 * sizeof(float));
    return px;
}

/* Streams w x h rows (rgb8, or rgbf when rgbf != NULL; RGBA rows in rgb8
 * when opts->alpha) in bands of `band`. */
static qr_status stream_file(const char *path, qr_image_format f, int32_t w, int32_t h,
                             const unsigned char *rgb8, const float *rgbf, int32_t band,
                             const qr_image_write_options *opts, qr_error *err)
{
    qr_image_writer *wr;
    qr_status st = qr_image_writer_open(path, f, w, h, opts, &wr, err);
    if (st != QR_OK)
        return st;
    const size_t row = (size_t)w * (size_t)qr_image_writer_pixel_bytes(wr); /* bytes */
    for (int32_t r = 0; st == QR_OK && r < h; r += band) {
        int32_t n = h - r < band ? h - r : band;
        st = rgbf ? qr_image_writer_append_rgbf(wr, rgbf + (size_t)r * row / sizeof(float), n,
                                                err)
                  : qr_image_writer_append_rgb8(wr, rgb8 + (size_t)r * row, n, err);
    }
    if (st != QR_OK) {
        qr_image_writer_abort(wr);
        return st;
    }
    return qr_image_writer_close(wr, err);
}

/* ---- a second PNG decoder ---------------------------------------------------------- */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return (pa <= pb && pa <= pc) ? a : pb <= pc ? b : c;
}

/* Decodes an 8-bit RGB (ch 3) or RGBA (ch 4), non-interlaced PNG to
 * top-first rows, checking every chunk's CRC, the chunk order and the zlib
 * stream (inflate checks the Adler-32). Fails the test on anything else.
 * With `filtered`, also hands back the inflated, still filtered data. */
static unsigned char *decode_png(const unsigned char *d, size_t len, int ch, int32_t *w,
                                 int32_t *h, unsigned char **filtered)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    cr_assert(len >= 8 && memcmp(d, sig, 8) == 0, "no PNG signature");
    size_t pos = 8, zlen = 0;
    unsigned char *z = NULL;
    int seen_ihdr = 0, seen_iend = 0;
    while (pos < len) {
        cr_assert(!seen_iend, "data after IEND");
        cr_assert_leq(pos + 12, len, "truncated chunk");
        uint32_t n = be32(d + pos);
        const unsigned char *type = d + pos + 4, *data = d + pos + 8;
        cr_assert_leq(pos + 12 + n, len, "truncated chunk");
        uint32_t crc = (uint32_t)crc32(crc32(0, type, 4), data, n);
        cr_assert_eq(crc, be32(data + n), "bad CRC in %.4s", (const char *)type);
        if (!memcmp(type, "IHDR", 4)) {
            cr_assert(pos == 8 && n == 13, "IHDR must come first, 13 bytes");
            *w = (int32_t)be32(data);
            *h = (int32_t)be32(data + 4);
            cr_assert(data[8] == 8 && data[9] == (ch == 4 ? 6 : 2) && !data[10] && !data[11] &&
                          !data[12],
                      "not 8-bit %s, deflate, no interlace", ch == 4 ? "RGBA" : "RGB");
            seen_ihdr = 1;
        } else if (!memcmp(type, "IDAT", 4)) {
            cr_assert(seen_ihdr);
            z = realloc(z, zlen + n + 1);
            memcpy(z + zlen, data, n);
            zlen += n;
        } else if (!memcmp(type, "IEND", 4)) {
            cr_assert_eq(n, 0);
            seen_iend = 1;
        } else {
            cr_assert(type[0] & 0x20, "unknown critical chunk %.4s", (const char *)type);
        }
        pos += 12 + (size_t)n;
    }
    cr_assert(seen_iend, "no IEND");
    const size_t rb = (size_t)*w * (size_t)ch, fb = rb + 1;
    unsigned char *raw = malloc(fb * (size_t)*h + 1);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    cr_assert_eq(inflateInit(&zs), Z_OK);
    zs.next_in = z;
    zs.avail_in = (uInt)zlen;
    zs.next_out = raw;
    zs.avail_out = (uInt)(fb * (size_t)*h + 1);
    cr_assert_eq(inflate(&zs, Z_FINISH), Z_STREAM_END, "inflate: %s", zs.msg ? zs.msg : "");
    cr_assert_eq(zs.total_out, fb * (size_t)*h, "image data has the wrong length");
    cr_assert_eq(zs.avail_in, 0, "bytes after the zlib stream");
    inflateEnd(&zs);
    free(z);

    unsigned char *px = malloc(rb * (size_t)*h);
    for (int32_t r = 0; r < *h; r++) {
        const unsigned char *f = raw + (size_t)r * fb;
        unsigned char *x = px + (size_t)r * rb;
        const unsigned char *up = r ? x - rb : NULL;
        cr_assert_leq(f[0], 4, "row %d: filter type %d", r, f[0]);
        for (size_t i = 0; i < rb; i++) {
            const size_t bpp = (size_t)ch;
            int a = i >= bpp ? x[i - bpp] : 0, b = up ? up[i] : 0;
            int c = (up && i >= bpp) ? up[i - bpp] : 0;
            int pred = f[0] == 0 ? 0 : f[0] == 1 ? a : f[0] == 2 ? b : f[0] == 3 ? (a + b) / 2
                                                                                : paeth(a, b, c);
            x[i] = (unsigned char)(f[1 + i] + pred);
        }
    }
    if (filtered)
        *filtered = raw;
    else
        free(raw);
    return px;
}

/* Checks the PNG at path against the expected rows, of ch channels (3:
 * RGB, 4: RGBA), with both decoders. */
static void assert_png_pixels(const char *path, const unsigned char *want, int32_t w, int32_t h,
                              int ch)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_file(&pi, path), "libpng: %s", pi.message);
    cr_assert_eq(pi.width, (png_uint_32)w);
    cr_assert_eq(pi.height, (png_uint_32)h);
    pi.format = ch == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    const size_t n = (size_t)w * h * (size_t)ch;
    cr_assert_eq(PNG_IMAGE_SIZE(pi), n);
    unsigned char *got = malloc(n);
    cr_assert(png_image_finish_read(&pi, NULL, got, 0, NULL), "libpng: %s", pi.message);
    cr_assert_eq(memcmp(got, want, n), 0, "%s: libpng reads other pixels", path);
    free(got);

    size_t len;
    unsigned char *file = read_all(path, &len);
    int32_t dw, dh;
    got = decode_png(file, len, ch, &dw, &dh, NULL);
    cr_assert(dw == w && dh == h, "decoded %dx%d", dw, dh);
    cr_assert_eq(memcmp(got, want, n), 0, "%s: the second decoder reads other pixels", path);
    free(got);
    free(file);
}

/* ---- against the whole-image writers ----------------------------------------------------- */

/* 1000 x 1000: the whole-image writers convert it on several threads */
static const int32_t sizes[][2] = {{1, 1}, {1, 4097}, {3000, 7}, {257, 301}, {1000, 1000}};
static const int32_t bands[] = {1, 7, 1 << 30 /* whole */};

Test(image_stream, ppm_and_pfm_equal_the_whole_image_writers)
{
    const char *dir = fresh_dir("stream-vs-whole");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int32_t w = sizes[s][0], h = sizes[s][1];
        qr_image *img = make_image(w, h);
        unsigned char *rgb8 = rows_rgb8(img);
        float *rgbf = rows_rgbf(img);
        qr_error err;
        cr_assert_eq(qr_image_write_ppm(img, join(dir, "whole.ppm"), &err), QR_OK, "%s", err.msg);
        cr_assert_eq(qr_image_write_pfm(img, join(dir, "whole.pfm"), &err), QR_OK, "%s", err.msg);
        for (size_t b = 0; b < sizeof bands / sizeof bands[0]; b++) {
            cr_assert_eq(stream_file(join(dir, "s.ppm"), QR_FORMAT_PPM, w, h, rgb8, NULL,
                                     bands[b], NULL, &err), QR_OK, "%s", err.msg);
            assert_same_file(join(dir, "whole.ppm"), join(dir, "s.ppm"));
            cr_assert_eq(stream_file(join(dir, "s.pfm"), QR_FORMAT_PFM, w, h, NULL, rgbf,
                                     bands[b], NULL, &err), QR_OK, "%s", err.msg);
            assert_same_file(join(dir, "whole.pfm"), join(dir, "s.pfm"));
        }
        free(rgb8);
        free(rgbf);
        qr_image_destroy(img);
    }
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
}

/* The PPM bytes themselves, independently of any writer of ours. */
Test(image_stream, ppm_is_header_and_rows)
{
    const unsigned char rows[2 * 2 * 3] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const char *path = qr_test_tmp("tiny.ppm");
    qr_error err;
    cr_assert_eq(stream_file(path, QR_FORMAT_PPM, 2, 2, rows, NULL, 1, NULL, &err), QR_OK, "%s",
                 err.msg);
    size_t len;
    unsigned char *d = read_all(path, &len);
    const char *head = "P6\n2 2\n255\n";
    cr_assert_eq(len, strlen(head) + sizeof rows);
    cr_assert_eq(memcmp(d, head, strlen(head)), 0);
    cr_assert_eq(memcmp(d + strlen(head), rows, sizeof rows), 0);
    free(d);
}

/* The whole-image writer's PNG of img, RGB or with alpha RGBA (ch 3 or
 * 4), reads back as `rows` with both decoders; the streaming writer given
 * those rows in any banding, on 1 or 3 threads, and given the image whole
 * (qr_image_writer_append_image) writes the same bytes. */
static void check_stream_equals_whole(const char *dir, const qr_image *img,
                                      const unsigned char *rows, int ch)
{
    const int32_t w = img->width, h = img->height;
    qr_image_write_options o = qr_image_write_options_default();
    o.alpha = ch == 4;
    qr_error err;
    QR_CHECK(err, qr_image_write_with(img, join(dir, "whole.png"), &o, &err));
    assert_png_pixels(join(dir, "whole.png"), rows, w, h, ch);
    for (size_t b = 0; b < sizeof bands / sizeof bands[0]; b++) {
        o.threads = b == 0 ? 1 : 3;
        QR_CHECK(err, stream_file(join(dir, "s.png"), QR_FORMAT_PNG, w, h, rows, NULL, bands[b],
                                  &o, &err));
        assert_same_file(join(dir, "whole.png"), join(dir, "s.png"));
    }
    qr_image_writer *wr;
    QR_CHECK(err, qr_image_writer_open(join(dir, "i.png"), QR_FORMAT_PNG, w, h, &o, &wr, &err));
    QR_CHECK(err, qr_image_writer_append_image(wr, img, &err));
    QR_CHECK(err, qr_image_writer_close(wr, &err));
    assert_same_file(join(dir, "whole.png"), join(dir, "i.png"));
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
}

Test(image_stream, png_equals_the_whole_image_writer_and_reads_back)
{
    const char *dir = fresh_dir("png-vs-whole");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        qr_image *img = make_image(sizes[s][0], sizes[s][1]);
        unsigned char *rgb8 = rows_rgb8(img);
        check_stream_equals_whole(dir, img, rgb8, 3);
        free(rgb8);
        qr_image_destroy(img);
    }
}

/* ---- a transparent background: RGBA ---------------------------------------------------------- */

/* The streaming writer with alpha takes RGBA rows (4 bytes a pixel) and
 * writes the whole-image writer's file byte for byte; both decoders read
 * the rule's bytes. */
Test(image_stream, png_with_alpha_equals_the_whole_image_writer)
{
    const char *dir = fresh_dir("alpha-vs-whole");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        qr_image *img = qr_test_alpha_image(sizes[s][0], sizes[s][1], 10u + s);
        unsigned char *rgba = qr_test_rgba8_rows(img);
        check_stream_equals_whole(dir, img, rgba, 4);
        free(rgba);
        qr_image_destroy(img);
    }
}

Test(image_stream, pixel_bytes)
{
    const char *dir = fresh_dir("pixel-bytes");
    const struct {
        qr_image_format f;
        int alpha, bytes;
        const char *name;
    } cases[] = {{QR_FORMAT_PNG, 0, 3, "a.png"},
                 {QR_FORMAT_PNG, 1, 4, "b.png"},
                 {QR_FORMAT_PPM, 0, 3, "c.ppm"},
                 {QR_FORMAT_PFM, 0, 12, "d.pfm"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        qr_image_write_options o = qr_image_write_options_default();
        o.alpha = cases[k].alpha;
        qr_image_writer *w;
        qr_error err;
        QR_CHECK(err, qr_image_writer_open(join(dir, cases[k].name), cases[k].f, 3, 2, &o, &w,
                                           &err));
        cr_assert_eq(qr_image_writer_pixel_bytes(w), cases[k].bytes, "%s", cases[k].name);
        qr_image_writer_abort(w);
    }
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
}

/* Every filter with pixels of 3 and 4 bytes (the left byte is a pixel
 * back): the second decoder, which unfilters by the specification, and
 * libpng read the rows back. The product filters Up, which looks at no
 * left byte; the others serve the tools (dev/png_timer.c). */
Test(image_stream, every_filter_with_rgb_and_rgba)
{
    const char *path = qr_test_tmp("filters.png");
    const int32_t dims[][2] = {{257, 301}, {1, 500}, {3000, 7}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        const int32_t w = dims[d][0], h = dims[d][1];
        qr_image *img = qr_test_alpha_image(w, h, 20u + d);
        unsigned char *rows[2] = {rows_rgb8(img), qr_test_rgba8_rows(img)};
        for (int ch = 3; ch <= 4; ch++)
            for (int f = QR_PNG_FILTER_NONE; f <= QR_PNG_FILTER_ADAPTIVE; f++) {
                qr_png_params p = qr_png_params_for(QR_PNG_LEVEL_DEFAULT, 2);
                p.filter = (qr_png_filter)f;
                p.pixel_bytes = ch;
                qr_error err;
                qr_png_encoder *e;
                FILE *fp = fopen(path, "wb");
                cr_assert_not_null(fp);
                QR_CHECK(err, qr_png_encoder_open(fp, path, w, h, &p, &e, &err));
                QR_CHECK(err, qr_png_encoder_rows(e, rows[ch - 3], h, &err));
                QR_CHECK(err, qr_png_encoder_finish(e, &err));
                qr_png_encoder_free(e);
                cr_assert_eq(fclose(fp), 0);
                assert_png_pixels(path, rows[ch - 3], w, h, ch);
            }
        free(rows[0]);
        free(rows[1]);
        qr_image_destroy(img);
    }
    remove(path);
}

/* ---- the parallel PNG encoder ---------------------------------------------------------------- */

/* Many chunks; rows of over 128 KiB (a chunk per row, its context row
 * reaching the top at chunk 1); a column of single pixels (chunks of
 * 32768 rows, 8193 context rows). */
static const int32_t png_sizes[][2] = {{1000, 1000}, {50000, 4}, {1, 200000}};

Test(image_stream, png_reads_back_at_every_level)
{
    const char *path = qr_test_tmp("levels.png");
    for (size_t s = 0; s < sizeof png_sizes / sizeof png_sizes[0]; s++) {
        int32_t w = png_sizes[s][0], h = png_sizes[s][1];
        unsigned char *rgb8 = pattern_rgb8(w, h);
        const int levels[] = {0, 1, 6, 9};
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
            qr_image_write_options o = {.png_level = levels[l], .threads = 3};
            qr_error err;
            cr_assert_eq(stream_file(path, QR_FORMAT_PNG, w, h, rgb8, NULL, 97, &o, &err), QR_OK,
                         "%s", err.msg);
            assert_png_pixels(path, rgb8, w, h, 3);
        }
        free(rgb8);
    }
}

Test(image_stream, png_same_bytes_whatever_the_threads)
{
    const char *dir = fresh_dir("png-threads");
    for (size_t s = 0; s < sizeof png_sizes / sizeof png_sizes[0]; s++) {
        int32_t w = png_sizes[s][0], h = png_sizes[s][1];
        unsigned char *rgb8 = pattern_rgb8(w, h);
        const int threads[] = {1, 2, 5, 0 /* one per core */};
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            qr_image_write_options o = {.png_level = QR_PNG_LEVEL_DEFAULT, .threads = threads[t]};
            qr_error err;
            const char *path = join(dir, t == 0 ? "t1.png" : "tn.png");
            cr_assert_eq(stream_file(path, QR_FORMAT_PNG, w, h, rgb8, NULL, t == 0 ? h : 13, &o,
                                     &err), QR_OK, "%s", err.msg);
            if (t == 0)
                assert_png_pixels(path, rgb8, w, h, 3);
            else
                assert_same_file(join(dir, "t1.png"), path);
        }
        free(rgb8);
    }
}

/* A chunked stream is no bigger than a few bytes a chunk over zlib's own
 * one-stream deflate of the same filtered data: the dictionaries work. */
Test(image_stream, png_size_close_to_one_stream)
{
    const int32_t w = 1000, h = 1000;
    qr_image *img = make_image(w, h);
    unsigned char *rgb8 = rows_rgb8(img);
    const char *path = qr_test_tmp("size.png");
    qr_error err;
    cr_assert_eq(stream_file(path, QR_FORMAT_PNG, w, h, rgb8, NULL, h, NULL, &err), QR_OK, "%s",
                 err.msg);
    size_t len;
    unsigned char *file = read_all(path, &len);
    /* the file's own filtered data, deflated in one stream */
    const size_t fb = (size_t)w * 3 + 1;
    unsigned char *filt;
    int32_t dw, dh;
    unsigned char *px = decode_png(file, len, 3, &dw, &dh, &filt);
    uLongf zlen = compressBound(fb * h);
    unsigned char *z = malloc(zlen);
    cr_assert_eq(compress2(z, &zlen, filt, fb * h, QR_PNG_LEVEL_DEFAULT), Z_OK);
    size_t chunks = (fb * h + QR_PNG_CHUNK_MIN - 1) / QR_PNG_CHUNK_MIN;
    cr_assert_leq(len, 8 + 25 + 12 + zlen + chunks * (12 + 16) + 32,
                  "%zu bytes against %lu in one stream", len, (unsigned long)zlen);
    free(z);
    free(filt);
    free(px);
    free(file);
    free(rgb8);
    qr_image_destroy(img);
}

/* ---- failures leave nothing behind ------------------------------------------------------------ */

Test(image_stream, abort_leaves_no_file)
{
    const char *dir = fresh_dir("abort");
    const char *names[] = {"a.png", "a.ppm", "a.pfm"};
    const qr_image_format formats[] = {QR_FORMAT_PNG, QR_FORMAT_PPM, QR_FORMAT_PFM};
    qr_image *img = make_image(600, 900);
    unsigned char *rgb8 = rows_rgb8(img);
    float *rgbf = rows_rgbf(img);
    for (int k = 0; k < 3; k++) {
        const char *path = join(dir, names[k]);
        qr_image_writer *w;
        qr_error err;
        qr_image_write_options o = {.png_level = 1, .threads = 4};
        cr_assert_eq(qr_image_writer_open(path, formats[k], 600, 900, &o, &w, &err), QR_OK, "%s",
                     err.msg);
        /* most of the rows: several PNG chunks are compressed or written by now */
        qr_status st = formats[k] == QR_FORMAT_PFM
                           ? qr_image_writer_append_rgbf(w, rgbf, 800, &err)
                           : qr_image_writer_append_rgb8(w, rgb8, 800, &err);
        cr_assert_eq(st, QR_OK, "%s", err.msg);
        cr_assert_eq(qr_test_count_temp_files(dir), 1);
        qr_image_writer_abort(w);
        cr_assert(!file_exists(path), "%s exists after abort", path);
        cr_assert_eq(qr_test_count_temp_files(dir), 0);
    }
    qr_image_writer_abort(NULL);
    free(rgb8);
    free(rgbf);
    qr_image_destroy(img);
}

Test(image_stream, missing_rows_fail_and_leave_no_file)
{
    const char *dir = fresh_dir("missing-rows");
    const char *path = join(dir, "short.png");
    unsigned char row[30 * 3] = {0};
    qr_image_writer *w;
    qr_error err;
    cr_assert_eq(qr_image_writer_open(path, QR_FORMAT_PNG, 30, 3, NULL, &w, &err), QR_OK);
    cr_assert_eq(qr_image_writer_append_rgb8(w, row, 1, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_image_writer_close(w, &err), QR_ERR_INVALID);
    cr_assert(strstr(err.msg, "1 of the image's 3 rows"), "message: %s", err.msg);
    cr_assert(!file_exists(path));
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
}

Test(image_stream, misuse_fails_and_sticks)
{
    const char *dir = fresh_dir("misuse");
    const char *path = join(dir, "m.png");
    unsigned char rows[4 * 3 * 3] = {0};
    float frow[4 * 3] = {0};
    qr_image_writer *w;
    qr_error err;
    cr_assert_eq(qr_image_writer_open(path, QR_FORMAT_PNG, 4, 3, NULL, &w, &err), QR_OK);
    cr_assert_eq(qr_image_writer_append_rgbf(w, frow, 1, &err), QR_ERR_INVALID);
    cr_assert(strstr(err.msg, "8-bit rows"), "message: %s", err.msg);
    cr_assert_eq(qr_test_count_temp_files(dir), 0, "the temporary file outlives a failure");
    /* the writer stays failed, even for a call that would otherwise be right */
    cr_assert_eq(qr_image_writer_append_rgb8(w, rows, 3, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_image_writer_close(w, &err), QR_ERR_INVALID);
    cr_assert(!file_exists(path));

    cr_assert_eq(qr_image_writer_open(path, QR_FORMAT_PPM, 4, 3, NULL, &w, &err), QR_OK);
    cr_assert_eq(qr_image_writer_append_rgb8(w, rows, 2, &err), QR_OK);
    cr_assert_eq(qr_image_writer_append_rgb8(w, rows, 2, &err), QR_ERR_INVALID);
    cr_assert(strstr(err.msg, "4 rows appended to a 3-row image"), "message: %s", err.msg);
    qr_image_writer_abort(w);
    cr_assert(!file_exists(path));
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
}

Test(image_stream, bad_arguments_are_rejected)
{
    const char *dir = fresh_dir("bad-args");
    const char *path = join(dir, "x.png");
    qr_image_writer *w = (qr_image_writer *)&w;
    qr_error err;
    cr_assert_eq(qr_image_writer_open(path, QR_FORMAT_PNG, 0, 5, NULL, &w, &err), QR_ERR_INVALID);
    cr_assert_null(w);
    cr_assert_eq(qr_image_writer_open(path, QR_FORMAT_PNG, 5, QR_IMAGE_WRITER_MAX_DIM + 1, NULL,
                                      &w, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_image_writer_open(path, QR_FORMAT_UNKNOWN, 5, 5, NULL, &w, &err),
                 QR_ERR_INVALID);
    qr_image_write_options o = {.png_level = 10, .threads = 0};
    cr_assert_eq(qr_image_writer_open(path, QR_FORMAT_PNG, 5, 5, &o, &w, &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "PNG level 10 is out of range (0..9)");
    o.png_level = 1;
    o.threads = -1;
    cr_assert_eq(qr_image_writer_open(path, QR_FORMAT_PNG, 5, 5, &o, &w, &err), QR_ERR_INVALID);
    cr_assert(!file_exists(path));
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
}

/* A write error in the middle of a parallel PNG (a file-size limit: EFBIG)
 * fails the stream with the system's reason and leaves no file. */
Test(image_stream, write_error_mid_stream)
{
    signal(SIGXFSZ, SIG_IGN);
    const char *dir = fresh_dir("efbig");
    /* noise, so that the PNG is large */
    unsigned char *rgb8 = malloc((size_t)700 * 700 * 3);
    uint32_t s = 99u;
    for (size_t k = 0; k < (size_t)700 * 700 * 3; k++)
        rgb8[k] = (unsigned char)rnd(&s);
    struct rlimit rl;
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &rl), 0);
    rl.rlim_cur = 256 * 1024;
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    const char *names[] = {"big.png", "big.ppm"};
    const qr_image_format formats[] = {QR_FORMAT_PNG, QR_FORMAT_PPM};
    for (int k = 0; k < 2; k++) {
        const char *path = join(dir, names[k]);
        qr_image_write_options o = {.png_level = 1, .threads = 4};
        qr_error err;
        cr_assert_eq(stream_file(path, formats[k], 700, 700, rgb8, NULL, 10, &o, &err), QR_ERR_IO,
                     "%s", err.msg);
        cr_assert(strstr(err.msg, path), "message: %s", err.msg);
        cr_assert(strstr(err.msg, strerror(EFBIG)), "message: %s", err.msg);
        cr_assert(!file_exists(path));
        cr_assert_eq(qr_test_count_temp_files(dir), 0);
    }
    free(rgb8);
}

/* ---- text chunks ---------------------------------------------------------------- */

/* The text libpng finds before the first IDAT (png_read_info stops there);
 * *n the count. */
static png_textp png_text_before_pixels(const char *path, png_structp *png, png_infop *info,
                                        FILE **fp, int *n)
{
    *fp = fopen(path, "rb");
    cr_assert_not_null(*fp, "%s: %s", path, strerror(errno));
    *png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    *info = png_create_info_struct(*png);
    cr_assert(*png && *info);
    if (setjmp(png_jmpbuf(*png)))
        cr_assert_fail("libpng failed reading %s", path);
    png_init_io(*png, *fp);
    png_read_info(*png, *info);
    png_textp text = NULL;
    *n = png_get_text(*png, *info, &text, NULL);
    return text;
}

Test(image_stream, png_text_chunks_read_back_before_the_pixels)
{
    const int32_t w = 37, h = 23;
    qr_image *img = make_image(w, h);
    /* plain ASCII (tEXt), UTF-8 (iTXt), and bytes that are not UTF-8
     * (iTXt, each bad byte as U+FFFD) */
    const qr_image_text text[] = {{"Scene", "rand10k"},
                                  {"Frame", "12"},
                                  {"Title", "caf\xC3\xA9 \xE2\x86\x92"},
                                  {"Bad bytes", "a\xFF" "b"}};
    qr_image_write_options o = qr_image_write_options_default();
    o.text = text;
    o.ntext = 4;
    const char *path = qr_test_tmp("text.png");
    qr_error err;
    cr_assert_eq(qr_image_write_with(img, path, &o, &err), QR_OK, "%s", err.msg);

    png_structp png;
    png_infop info;
    FILE *fp;
    int n;
    png_textp got = png_text_before_pixels(path, &png, &info, &fp, &n);
    cr_assert_eq(n, 4);
    const char *want[] = {"rand10k", "12", "caf\xC3\xA9 \xE2\x86\x92", "a\xEF\xBF\xBD" "b"};
    const int itxt[] = {0, 0, 1, 1};
    for (int i = 0; i < 4; i++) {
        cr_expect_str_eq(got[i].key, text[i].key);
        cr_expect_str_eq(got[i].text, want[i], "%s", text[i].key);
        cr_expect_eq(got[i].compression,
                     itxt[i] ? PNG_ITXT_COMPRESSION_NONE : PNG_TEXT_COMPRESSION_NONE, "%s",
                     text[i].key);
    }
    png_destroy_read_struct(&png, &info, NULL);
    fclose(fp);

    /* the pixels are those of the same image written without text */
    unsigned char *rgb = rows_rgb8(img);
    assert_png_pixels(path, rgb, w, h, 3);
    free(rgb);
    qr_image_destroy(img);
}

Test(image_stream, png_text_with_a_bad_key_writes_nothing)
{
    qr_image *img = make_image(4, 4);
    const char *bad_keys[] = {"", " lead", "trail ", "two  spaces", "tab\there",
                              "a123456789b123456789c123456789d123456789e123456789f123456789g123456789h123456789" /* 80 */};
    for (size_t k = 0; k < sizeof bad_keys / sizeof bad_keys[0]; k++) {
        const qr_image_text text[] = {{bad_keys[k], "x"}};
        qr_image_write_options o = qr_image_write_options_default();
        o.text = text;
        o.ntext = 1;
        const char *path = qr_test_tmp("badkey.png");
        qr_error err;
        cr_expect_eq(qr_image_write_with(img, path, &o, &err), QR_ERR_INVALID, "key '%s'",
                     bad_keys[k]);
        cr_expect(!file_exists(path), "key '%s' left a file", bad_keys[k]);
    }
    qr_image_destroy(img);
}
