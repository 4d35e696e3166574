/* The portable deflate encoder (image/deflate_chunk.h) and the PNG it
 * writes (image/png_portable.h): zlib inflates every chunk back to its
 * input, the checksum combines are zlib's, libpng reads the PNGs of
 * rendered scenes back to their bytes whatever the thread count, and the
 * files stay within a bound of zlib level 1's size. */
#include <criterion/criterion.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "alpha_image.h"
#include "image/deflate_chunk.h"
#include "image/png_portable.h"
#include "quadrender/image.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"
#include "files.h"
#include "test_util.h"

/* A reproducible byte stream (xorshift). */
static uint32_t next_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Inflates len bytes of raw deflate (one stream, ended by a final block),
 * primed with dict_len bytes of dictionary; returns the bytes out (*n). */
static unsigned char *inflate_raw(const unsigned char *in, size_t len, const unsigned char *dict,
                                  size_t dict_len, size_t cap, size_t *n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    cr_assert_eq(inflateInit2(&z, -15), Z_OK);
    if (dict_len)
        cr_assert_eq(inflateSetDictionary(&z, dict, (uInt)dict_len), Z_OK);
    unsigned char *out = malloc(cap + 1);
    cr_assert_not_null(out);
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)(cap + 1);
    int rc = inflate(&z, Z_FINISH);
    cr_assert_eq(rc, Z_STREAM_END, "inflate: %d (%s)", rc, z.msg ? z.msg : "");
    cr_assert_eq(z.avail_in, 0, "%u bytes after the stream's end", z.avail_in);
    *n = z.total_out;
    inflateEnd(&z);
    return out;
}

/* Compresses data[dict, dict + n) as the last chunk of a stream primed
 * with data[0, dict) and checks zlib inflates it back; also as a chunk
 * with a sync flush, followed by an empty last chunk. */
static void check_chunk(const unsigned char *data, size_t dict, size_t n, const char *what)
{
    uint16_t *hash = malloc(QR_DEFLATE_HASH_WORDS * sizeof *hash);
    const size_t cap = QR_DEFLATE_BOUND(n) + QR_DEFLATE_BOUND(0);
    unsigned char *out = malloc(cap);
    cr_assert(hash && out);
    for (int flush = 0; flush <= 1; flush++) {
        size_t len = qr_deflate_chunk(data, dict, n, out, QR_DEFLATE_BOUND(n), hash, !flush);
        cr_assert(len > 0 && len <= QR_DEFLATE_BOUND(n), "%s: %zu bytes of %zu", what, len,
                  QR_DEFLATE_BOUND(n));
        if (flush) {
            cr_assert(len >= 5 && memcmp(out + len - 4, "\x00\x00\xFF\xFF", 4) == 0,
                      "%s: no sync flush at the end", what);
            size_t more = qr_deflate_chunk(data, dict + n, 0, out + len, QR_DEFLATE_BOUND(0), hash, 1);
            cr_assert_eq(more, 2, "%s: an empty last chunk of %zu bytes", what, more);
            len += more;
        }
        size_t got;
        unsigned char *back = inflate_raw(out, len, data, dict, n, &got);
        cr_assert_eq(got, n, "%s (flush %d): %zu bytes back, want %zu", what, flush, got, n);
        cr_assert(n == 0 || memcmp(back, data + dict, n) == 0, "%s (flush %d): other bytes", what,
                  flush);
        free(back);
    }
    free(out);
    free(hash);
}

Test(png_portable, deflate_round_trips)
{
    const size_t N = 300000;
    unsigned char *d = malloc(N);
    cr_assert_not_null(d);
    uint32_t s = 12345;
    static const size_t sizes[] = {0, 1, 2, 3, 4, 257, 258, 259, 1000, 65536, 70000, 200000};
    const char *kinds[] = {"zeros", "one byte", "random", "runs", "small alphabet", "repeats"};
    for (int kind = 0; kind < 6; kind++) {
        for (size_t i = 0; i < N; i++) {
            uint32_t r = next_rand(&s);
            switch (kind) {
            case 0: d[i] = 0; break;
            case 1: d[i] = 0xC7; break;
            case 2: d[i] = (unsigned char)r; break;
            case 3: d[i] = (i / 300) % 2 ? 0 : (unsigned char)(r >> 24); break;
            case 4: d[i] = (unsigned char)(r % 3 + 140); break; /* both literal lengths */
            default: d[i] = i < 5000 ? (unsigned char)r : d[i - 5000 + (i % 7)]; break;
            }
        }
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            char what[96];
            snprintf(what, sizeof what, "%s, %zu bytes", kinds[kind], sizes[k]);
            check_chunk(d, 0, sizes[k], what);
            /* after a dictionary: a short one, a full window, more than a window */
            static const size_t dicts[] = {1, 5000, 32768, 40000};
            for (size_t m = 0; m < 4; m++) {
                if (dicts[m] + sizes[k] > N)
                    continue;
                snprintf(what, sizeof what, "%s, %zu bytes after %zu", kinds[kind], sizes[k],
                         dicts[m]);
                /* the data inflate is primed with is the last 32 KiB at most */
                size_t skip = dicts[m] > QR_DEFLATE_WINDOW ? dicts[m] - QR_DEFLATE_WINDOW : 0;
                check_chunk(d + skip, dicts[m] - skip, sizes[k], what);
            }
        }
    }
    free(d);
}

/* Data that only matches into the dictionary compresses to far less than
 * a literal a byte, and still inflates. */
Test(png_portable, matches_reach_into_the_dictionary)
{
    /* within what the table holds: QR_DEFLATE_HASH_WORDS positions at most */
    const size_t dict = 2000, n = 2000;
    unsigned char *d = malloc(dict + n);
    uint32_t s = 99;
    for (size_t i = 0; i < dict; i++)
        d[i] = (unsigned char)next_rand(&s);
    memcpy(d + dict, d, n);
    uint16_t *hash = malloc(QR_DEFLATE_HASH_WORDS * sizeof *hash);
    unsigned char *out = malloc(QR_DEFLATE_BOUND(n));
    size_t len = qr_deflate_chunk(d, dict, n, out, QR_DEFLATE_BOUND(n), hash, 1);
    cr_assert(len > 0 && len < n / 50, "%zu bytes for %zu bytes seen before", len, n);
    check_chunk(d, dict, n, "a copy of the dictionary");
    /* too small an output: 0, nothing beyond the capacity */
    out[10] = 0xAB;
    cr_assert_eq(qr_deflate_chunk(d, dict, n, out, 10, hash, 1), 0);
    cr_assert_eq(out[10], 0xAB);
    free(out);
    free(hash);
    free(d);
}

/* The stream cut into chunks at uneven places, each compressed with the
 * data before it as dictionary, concatenated, is one stream. */
Test(png_portable, chunks_concatenate)
{
    const size_t N = 250000;
    unsigned char *d = malloc(N);
    uint32_t s = 7;
    for (size_t i = 0; i < N; i++)
        d[i] = (i % 1000) < 600 ? (unsigned char)(next_rand(&s) % 4) : (unsigned char)next_rand(&s);
    static const size_t cuts[] = {0, 1, 2, 1000, 1000, 40000, 40003, 180000, 250000};
    const int nc = sizeof cuts / sizeof cuts[0] - 1;
    unsigned char *out = malloc(QR_DEFLATE_BOUND(N) + 8 * nc);
    uint16_t *hash = malloc(QR_DEFLATE_HASH_WORDS * sizeof *hash);
    size_t len = 0;
    uint32_t adler = 1, crc = 0;
    for (int k = 0; k < nc; k++) {
        size_t a = cuts[k], n = cuts[k + 1] - a, dict = a < 32768 ? a : 32768;
        size_t l = qr_deflate_chunk(d + a - dict, dict, n, out + len, QR_DEFLATE_BOUND(n), hash,
                                    k == nc - 1);
        cr_assert(l > 0);
        len += l;
        adler = qr_adler32_combine(adler, qr_adler32(1, d + a, n), n);
        crc = qr_crc32_combine(crc, qr_crc32(0, d + a, n), n);
    }
    size_t got;
    unsigned char *back = inflate_raw(out, len, NULL, 0, N, &got);
    cr_assert_eq(got, N);
    cr_assert_eq(memcmp(back, d, N), 0);
    cr_assert_eq(adler, (uint32_t)adler32(1, d, (uInt)N));
    cr_assert_eq(crc, (uint32_t)crc32(0, d, (uInt)N));
    free(back);
    free(hash);
    free(out);
    free(d);
}

Test(png_portable, checksums_and_combines_are_zlibs)
{
    const size_t N = 100000;
    unsigned char *d = malloc(N);
    uint32_t s = 3;
    for (size_t i = 0; i < N; i++)
        d[i] = (i / 7000) % 2 ? 0xFF : (unsigned char)next_rand(&s); /* runs of 0xFF: sums near the base */
    static const size_t cuts[] = {0, 1, 2, 3, 5551, 5552, 5553, 65521, 65522, 99999, 100000};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        size_t a = cuts[i], b = N - a;
        uint32_t want_a = (uint32_t)adler32(1, d, (uInt)N);
        uint32_t want_c = (uint32_t)crc32(0, d, (uInt)N);
        cr_assert_eq(qr_adler32(1, d, a), (uint32_t)adler32(1, d, (uInt)a), "adler of %zu", a);
        cr_assert_eq(qr_crc32(0, d, a), (uint32_t)crc32(0, d, (uInt)a), "crc of %zu", a);
        cr_assert_eq(qr_adler32_combine(qr_adler32(1, d, a), qr_adler32(1, d + a, b), b), want_a,
                     "adler combined at %zu", a);
        cr_assert_eq(qr_crc32_combine(qr_crc32(0, d, a), qr_crc32(0, d + a, b), b), want_c,
                     "crc combined at %zu", a);
        /* zlib's own combines, lengths beyond the buffer's included */
        uint32_t x = (uint32_t)next_rand(&s), y = (uint32_t)next_rand(&s) % 0xFFF1u << 16 | 1;
        uint64_t l = (uint64_t)a * 104729u + b;
        cr_assert_eq(qr_crc32_combine(x, y, l), (uint32_t)crc32_combine(x, y, (z_off_t)l));
        cr_assert_eq(qr_adler32_combine(y, y ^ 0x5, l),
                     (uint32_t)adler32_combine(y, y ^ 0x5, (z_off_t)l));
    }
    free(d);
}

/* ---- PNGs of rendered scenes ------------------------------------------------------------------ */

/* The scene rendered (fast CPU renderer, exact) as a PNG's 8-bit rows. */
static qr_image *render(const char *name, int32_t w, int32_t h)
{
    qr_error err;
    qr_scene *s;
    qr_image *img;
    QR_CHECK(err, qr_scene_builtin(name, 0, &s, &err));
    QR_CHECK(err, qr_image_create(w, h, &img, &err));
    QR_CHECK(err, qr_render_cpu_fast(s, NULL, QR_RENDER_EXACT, 0, img, NULL, &err));
    qr_scene_destroy(s);
    return img;
}

static unsigned char *rows_of(const qr_image *img)
{
    qr_error err;
    unsigned char *rows = malloc((size_t)img->width * img->height * 3);
    cr_assert_not_null(rows);
    QR_CHECK(err, qr_image_file_rows(img, QR_FORMAT_PNG, 0, 0, img->height, rows, &err));
    return rows;
}

/* Decodes a PNG in memory with libpng and compares it with rows, of ch
 * channels (3: RGB, 4: RGBA). */
static void check_decodes(const unsigned char *png, size_t len, const unsigned char *rows,
                          int32_t w, int32_t h, int ch, const char *what)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_memory(&pi, png, len), "%s: %s", what, pi.message);
    cr_assert_eq(pi.width, (png_uint_32)w, "%s", what);
    cr_assert_eq(pi.height, (png_uint_32)h, "%s", what);
    cr_assert_eq(pi.format, ch == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB, "%s", what);
    const size_t n = (size_t)w * h * (size_t)ch;
    cr_assert_eq(PNG_IMAGE_SIZE(pi), n, "%s", what);
    unsigned char *got = malloc(n);
    cr_assert_not_null(got);
    cr_assert(png_image_finish_read(&pi, NULL, got, 0, NULL), "%s: %s", what, pi.message);
    cr_assert_eq(memcmp(got, rows, n), 0, "%s: other pixels", what);
    free(got);
}

/* rows (RGB, or RGBA with alpha) encoded on 1 and on 3 threads: the same
 * bytes, which libpng reads back as rows, with the IHDR's colour type. */
static void check_any_threads(const unsigned char *rows, int32_t w, int32_t h, int alpha,
                              const char *what)
{
    unsigned char *first = NULL;
    size_t first_len = 0;
    for (int threads = 1; threads <= 3; threads += 2) {
        unsigned char *png;
        size_t len;
        qr_error err;
        QR_CHECK(err, qr_png_encode_portable(rows, w, h, alpha, threads, &png, &len, &err));
        cr_assert_eq(png[25], alpha ? 6 : 2, "%s: colour type %d", what, png[25]);
        check_decodes(png, len, rows, w, h, alpha ? 4 : 3, what);
        if (!first) {
            first = png;
            first_len = len;
        } else {
            cr_assert(len == first_len && memcmp(png, first, len) == 0,
                      "%s: other bytes on %d threads", what, threads);
            free(png);
        }
    }
    free(first);
}

Test(png_portable, scenes_decode_to_their_bytes_whatever_the_threads)
{
    static const struct {
        const char *scene;
        int32_t w, h;
    } cases[] = {{"rgb", 256, 256}, {"rand10k", 1000, 300}, {"snowsingle", 256, 256},
                 {"pattern", 1, 1}, {"rgb", 3, 700}, {"rand10k", 700, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char what[96];
        snprintf(what, sizeof what, "%s %dx%d", cases[c].scene, (int)cases[c].w, (int)cases[c].h);
        qr_image *img = render(cases[c].scene, cases[c].w, cases[c].h);
        unsigned char *rows = rows_of(img);
        check_any_threads(rows, img->width, img->height, 0, what);
        free(rows);
        qr_image_destroy(img);
    }
}

/* Tall enough for many chunks, each primed with the one before. */
Test(png_portable, many_chunks_decode)
{
    qr_image *img = render("rand10k", 600, 1500);
    unsigned char *rows = rows_of(img);
    unsigned char *png;
    size_t len;
    qr_error err;
    QR_CHECK(err, qr_png_encode_portable(rows, 600, 1500, 0, 2, &png, &len, &err));
    int idats = 0;
    for (size_t at = 8; at + 8 <= len;) {
        uint32_t l = (uint32_t)png[at] << 24 | png[at + 1] << 16 | png[at + 2] << 8 | png[at + 3];
        idats += memcmp(png + at + 4, "IDAT", 4) == 0;
        cr_assert_eq(qr_crc32(0, png + at + 4, 4 + (size_t)l),
                     (uint32_t)png[at + 8 + l] << 24 | png[at + 9 + l] << 16 |
                         png[at + 10 + l] << 8 | png[at + 11 + l]);
        at += 12 + (size_t)l;
    }
    cr_assert_gt(idats, 10);
    check_decodes(png, len, rows, 600, 1500, 3, "rand10k 600x1500");
    free(png);
    free(rows);
    qr_image_destroy(img);
}

/* With alpha: RGBA rows (colour type 6), the same bytes whatever the
 * threads, read back by libpng; many chunks at 600 x 1500. */
Test(png_portable, rgba_decodes_to_its_bytes_whatever_the_threads)
{
    const int32_t dims[][2] = {{256, 256}, {3, 700}, {700, 3}, {1, 1}, {600, 1500}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        const int32_t w = dims[d][0], h = dims[d][1];
        char what[64];
        snprintf(what, sizeof what, "RGBA %dx%d", (int)w, (int)h);
        qr_image *img = qr_test_alpha_image(w, h, 30u + d);
        unsigned char *rows = qr_test_rgba8_rows(img);
        check_any_threads(rows, w, h, 1, what);
        free(rows);
        qr_image_destroy(img);
    }
}

Test(png_portable, refuses_bad_sizes)
{
    unsigned char px[3] = {0};
    unsigned char *png = (unsigned char *)px;
    size_t len = 5;
    qr_error err;
    cr_assert_eq(qr_png_encode_portable(px, 0, 1, 0, 1, &png, &len, &err), QR_ERR_INVALID);
    cr_assert(png == NULL && len == 0);
    cr_assert_eq(qr_png_encode_portable(px, 1, -1, 0, 1, &png, &len, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_png_encode_portable(NULL, 1, 1, 0, 1, &png, &len, &err), QR_ERR_INVALID);
}

/* The portable encoder's PNG against the zlib encoder's at level 1 (the
 * product's default), both with the same filter and chunks. */
Test(png_portable, size_against_zlib_level_1)
{
    static const struct {
        const char *scene;
        int32_t side;
        double bound; /* issue #34's target, met by every scene here */
    } cases[] = {{"rgb", 1024, 1.3},     {"rand10k", 1024, 1.3},    {"rand1M", 1024, 1.3},
                 {"micro2M", 1024, 1.3}, {"snowsingle", 1024, 1.3}, {"clusters", 1024, 1.3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        qr_image *img = render(cases[c].scene, cases[c].side, cases[c].side);
        unsigned char *rows = rows_of(img);
        unsigned char *png, *zpng;
        size_t len, zlen;
        qr_error err;
        QR_CHECK(err, qr_png_encode_portable(rows, img->width, img->height, 0, 0, &png, &len, &err));
        qr_image_write_options o = qr_image_write_options_default();
        o.png_level = 1;
        QR_CHECK(err, qr_image_encode_png(img, &o, &zpng, &zlen, &err));
        double ratio = (double)len / (double)zlen;
        cr_log_info("%s %d: portable %zu, zlib level 1 %zu, ratio %.3f", cases[c].scene,
                    (int)cases[c].side, len, zlen, ratio);
        cr_assert(ratio <= cases[c].bound, "%s %d: portable %zu bytes, zlib level 1 %zu: %.3f x",
                  cases[c].scene, (int)cases[c].side, len, zlen, ratio);
        free(png);
        free(zpng);
        free(rows);
        qr_image_destroy(img);
    }
}

/* The streaming writer with the portable encoder (qr_image_write_options
 * .deflate, the GPU encoder's host fallback and oracle) writes the very
 * bytes of qr_png_encode_portable, whatever the thread count and however
 * the rows are banded; RGB and RGBA, chunks of several pieces. */
Test(png_portable, the_streaming_writer_writes_the_same_bytes)
{
    const int32_t dims[][2] = {{1, 1}, {600, 1500}, {11000, 40}, {5, 3000}};
    const int bands[] = {1, 7, 1000};
    qr_error err;
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        for (int alpha = 0; alpha < 2; alpha++) {
            const int32_t w = dims[d][0], h = dims[d][1];
            qr_image *img = qr_test_alpha_image(w, h, 70u + d);
            unsigned char *rows = alpha ? qr_test_rgba8_rows(img) : rows_of(img);
            unsigned char *want;
            size_t want_len;
            QR_CHECK(err, qr_png_encode_portable(rows, w, h, alpha, 2, &want, &want_len, &err));
            const size_t rb = (size_t)w * (alpha ? 4 : 3);
            for (int b = 0; b < 3; b++) {
                qr_image_write_options o = qr_image_write_options_default();
                o.deflate = QR_PNG_DEFLATE_PORTABLE;
                o.alpha = alpha;
                o.threads = b + 1;
                char path[4096];
                snprintf(path, sizeof path, "%s", qr_test_tmp("portable_stream.png"));
                qr_image_writer *wr = NULL;
                QR_CHECK(err, qr_image_writer_open(path, QR_FORMAT_PNG, w, h, &o, &wr, &err));
                for (int32_t r = 0; r < h; r += bands[b]) {
                    const int32_t n = h - r < bands[b] ? h - r : bands[b];
                    QR_CHECK(err, qr_image_writer_append_rgb8(wr, rows + (size_t)r * rb, n, &err));
                }
                QR_CHECK(err, qr_image_writer_close(wr, &err));
                cr_assert(qr_test_holds(path, want, want_len),
                          "%dx%d alpha %d, bands of %d: not the oracle's %zu bytes", (int)w, (int)h,
                          alpha, bands[b], want_len);
            }
            free(want);
            free(rows);
            qr_image_destroy(img);
        }
    }
}
