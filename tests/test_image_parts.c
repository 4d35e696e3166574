/* test_image_parts.c — image files assembled from parts encoded apart
 * (src/image/image_parts.h).
 *
 * Oracle: the streaming writer fed the whole image's pixel rows
 * (qr_image_writer_append_rgb8/_rgbf), whose bytes the assembled file must
 * equal; libpng reads an assembled PNG back once. Sizes reach the PNG
 * grid's edge cases: one row a chunk (context of two rows), many rows a
 * chunk (context of thousands), a last chunk shorter than the others, an
 * image of one chunk. Cuts: one part, two, three uneven, an odd number at
 * pseudo-random grid rows, one part per grid row.
 */
#include <errno.h>
#include <png.h>
#include <stdint.h>

#include "alpha_image.h"
#include "image/image_parts.h"
#include "quadrender/image.h"
#include "test_util.h"

/* ---- images -------------------------------------------------------------------- */

static uint32_t rnd(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* A w x h image in the file's order: 8-bit RGB rows, or float RGB rows for
 * PFM. Noise (random), or a smooth gradient with a repeating texture, which
 * deflate compresses with matches that reach back across chunks. */
typedef struct img {
    qr_image_format format;
    int32_t w, h;
    size_t row_bytes;
    unsigned char *px; /* h rows of row_bytes */
} img;

static img make_img(qr_image_format f, int32_t w, int32_t h, int smooth, uint32_t seed)
{
    img im = {f, w, h, (size_t)w * (f == QR_FORMAT_PFM ? 12 : 3), NULL};
    const size_t n = (size_t)w * h * 3;
    im.px = malloc(im.row_bytes * (size_t)h);
    uint32_t s = seed | 1u;
    for (size_t k = 0; k < n; k++) {
        size_t pix = k / 3, i = pix % (size_t)w, j = pix / (size_t)w;
        float v = smooth ? (float)((i + 2 * j + 40 * (k % 3)) % 256) / 255.0f +
                               ((i * 7 + j * 3) % 11 == 0 ? 0.1f : 0.0f)
                         : (float)(rnd(&s) >> 8) / 16777216.0f;
        if (f == QR_FORMAT_PFM)
            memcpy(im.px + 4 * k, &v, 4);
        else
            im.px[k] = qr_to_byte(v);
    }
    return im;
}

/* A w x h PNG image of a transparent background: its RGBA rows (4 bytes a
 * pixel), for a writer and parts with alpha. */
static img make_rgba_img(int32_t w, int32_t h, uint32_t seed)
{
    qr_image *f = qr_test_alpha_image(w, h, seed);
    img im = {QR_FORMAT_PNG, w, h, (size_t)w * 4, qr_test_rgba8_rows(f)};
    qr_image_destroy(f);
    return im;
}

/* ---- writing ------------------------------------------------------------------------ */

static qr_image_write_options opts_for(int level, int threads)
{
    qr_image_write_options o = qr_image_write_options_default();
    o.png_level = level;
    o.threads = threads;
    return o;
}

/* The oracle: the whole image as pixel rows. */
static void write_whole(const char *path, const img *im, const qr_image_write_options *o)
{
    qr_error err;
    qr_image_writer *w;
    QR_CHECK(err, qr_image_writer_open(path, im->format, im->w, im->h, o, &w, &err));
    if (im->format == QR_FORMAT_PFM)
        QR_CHECK(err, qr_image_writer_append_rgbf(w, (const float *)im->px, im->h, &err));
    else
        QR_CHECK(err, qr_image_writer_append_rgb8(w, im->px, im->h, &err));
    QR_CHECK(err, qr_image_writer_close(w, &err));
}

/* Part [row0, row1) encoded as another process would, from its context
 * rows and its own rows only. */
static void *encode_part(const img *im, const qr_image_write_options *o, int32_t row0,
                         int32_t row1, size_t *len)
{
    qr_error err;
    int32_t c = qr_image_part_context(im->format, im->w, im->h, row0);
    cr_assert(c >= 0 && c <= row0, "context of %d rows before row %d", c, row0);
    void *part = NULL;
    QR_CHECK(err, qr_image_part_encode(im->format, im->w, im->h, o, row0, row1,
                                       im->px + (size_t)(row0 - c) * im->row_bytes, &part, len,
                                       &err));
    cr_assert(part && *len > 0);
    return part;
}

/* Appends rows [row0, row1) as pixels. */
static void append_pixels(qr_image_writer *w, const img *im, int32_t row0, int32_t row1)
{
    qr_error err;
    const unsigned char *p = im->px + (size_t)row0 * im->row_bytes;
    if (im->format == QR_FORMAT_PFM)
        QR_CHECK(err, qr_image_writer_append_rgbf(w, (const float *)p, row1 - row0, &err));
    else
        QR_CHECK(err, qr_image_writer_append_rgb8(w, p, row1 - row0, &err));
}

/* The file from the parts between cuts[0..ncuts] (cuts[0] = 0, cuts[ncuts]
 * = h), parts encoded with `po` and assembled by a writer with `wo`; the
 * parts whose bit is set in `as_pixels` go in as pixel rows instead. */
static void write_parts(const char *path, const img *im, const qr_image_write_options *po,
                        const qr_image_write_options *wo, const int32_t *cuts, int ncuts,
                        uint64_t as_pixels)
{
    qr_error err;
    qr_image_writer *w;
    QR_CHECK(err, qr_image_writer_open(path, im->format, im->w, im->h, wo, &w, &err));
    for (int k = 0; k < ncuts; k++) {
        if (k < 64 && (as_pixels >> k & 1)) {
            append_pixels(w, im, cuts[k], cuts[k + 1]);
            continue;
        }
        size_t len;
        void *part = encode_part(im, po, cuts[k], cuts[k + 1], &len);
        QR_CHECK(err, qr_image_writer_append_part(w, part, len, &err));
        free(part);
    }
    QR_CHECK(err, qr_image_writer_close(w, &err));
}

/* Cut sets on the grid g of an h-row image: `kind` 0 one part, 1 two, 2
 * three uneven, 3 an odd number at pseudo-random grid rows, 4 one part per
 * grid row. Answers the number of parts, 0 when the image has too few grid
 * rows for the kind. */
enum { CUT_KINDS = 5, MAX_CUTS = 4096 };
static int make_cuts(int32_t g, int32_t h, int kind, int32_t *cuts)
{
    const int32_t G = (h + g - 1) / g; /* grid rows */
    int n = 0;
    cuts[0] = 0;
    switch (kind) {
    case 0:
        n = 1;
        break;
    case 1:
        if (G < 2)
            return 0;
        cuts[1] = g * (G / 2);
        n = 2;
        break;
    case 2:
        if (G < 3)
            return 0;
        cuts[1] = g;             /* one grid row */
        cuts[2] = g * (G - 1);   /* most of the image, then the (short) last grid row */
        n = 3;
        break;
    case 3: {
        if (G < 6)
            return 0;
        /* 5 parts: 4 distinct interior grid rows, in order */
        uint32_t s = (uint32_t)(G * 2654435761u) | 1u;
        int32_t picks[4];
        int np = 0;
        while (np < 4) {
            int32_t c = 1 + (int32_t)(rnd(&s) % (uint32_t)(G - 1));
            int dup = 0;
            for (int i = 0; i < np; i++)
                dup |= picks[i] == c;
            if (!dup)
                picks[np++] = c;
        }
        for (int i = 1; i < 4; i++) /* sort */
            for (int j = i; j > 0 && picks[j - 1] > picks[j]; j--) {
                int32_t t = picks[j];
                picks[j] = picks[j - 1];
                picks[j - 1] = t;
            }
        for (int i = 0; i < 4; i++)
            cuts[i + 1] = picks[i] * g;
        n = 5;
        break;
    }
    default:
        if (G < 2 || G >= MAX_CUTS)
            return 0;
        for (int32_t i = 1; i < G; i++)
            cuts[i] = i * g;
        n = G;
        break;
    }
    cuts[n] = h;
    return n;
}

/* Every cut kind of an image, against the whole-image writer's file. */
static void check_all_cuts(const char *tag, const img *im, const qr_image_write_options *o)
{
    char whole[1024], parts[1024];
    snprintf(whole, sizeof whole, "%s", qr_test_tmp("parts-whole"));
    snprintf(parts, sizeof parts, "%s", qr_test_tmp("parts-assembled"));
    write_whole(whole, im, o);
    const int32_t g = qr_image_part_grid(im->format, im->w, im->h);
    cr_assert_gt(g, 0);
    static int32_t cuts[MAX_CUTS + 1];
    int tried = 0;
    for (int kind = 0; kind < CUT_KINDS; kind++) {
        int n = make_cuts(g, im->h, kind, cuts);
        if (!n)
            continue;
        tried++;
        /* the parts' threads differ from the writer's: neither shapes the bytes */
        qr_image_write_options po = *o;
        po.threads = o->threads == 1 ? 3 : 1;
        write_parts(parts, im, &po, o, cuts, n, 0);
        cr_assert(qr_test_same_bytes(whole, parts),
                  "%s: %dx%d, grid %d, %d parts (cut kind %d): the assembled file differs", tag,
                  im->w, im->h, g, n, kind);
    }
    cr_assert_geq(tried, 1);
    remove(whole);
    remove(parts);
}

static void check_png(int32_t w, int32_t h, const int *levels, int nlevels)
{
    const int threads[] = {1, 3};
    for (int smooth = 0; smooth < 2; smooth++) {
        img im = make_img(QR_FORMAT_PNG, w, h, smooth, (uint32_t)(w * 31 + h));
        for (int l = 0; l < nlevels; l++)
            for (int t = 0; t < 2; t++) {
                qr_image_write_options o = opts_for(levels[l], threads[t]);
                char tag[96];
                snprintf(tag, sizeof tag, "PNG %s, level %d, %d threads",
                         smooth ? "smooth" : "noise", levels[l], threads[t]);
                check_all_cuts(tag, &im, &o);
            }
        free(im.px);
    }
}

static const int all_levels[] = {0, 1, 6};

/* ---- the same bytes as the pixel rows --------------------------------------------------- */

/* 3000 wide: 15-row chunks, 5 rows of context; 100 rows: a short last chunk */
Test(image_parts, png_uneven_height)
{
    check_png(3000, 100, all_levels, 3);
}

/* so wide that a chunk is one row, and its context two */
Test(image_parts, png_one_row_chunks)
{
    cr_assert_eq(qr_image_part_grid(QR_FORMAT_PNG, 43691, 12), 1);
    cr_assert_eq(qr_image_part_context(QR_FORMAT_PNG, 43691, 12, 5), 2);
    check_png(43691, 12, all_levels, 3);
}

/* one column: chunks of many rows, with thousands of rows of context */
Test(image_parts, png_many_row_chunks)
{
    cr_assert_gt(qr_image_part_grid(QR_FORMAT_PNG, 1, 100000), 1000);
    check_png(1, 100000, all_levels, 3);
}

/* 257 x 1100: grid rows that do not divide the height; an image of one chunk */
Test(image_parts, png_odd_sizes)
{
    check_png(257, 1100, all_levels, 3);
    check_png(100, 50, all_levels, 3);
    check_png(1, 1, all_levels, 1);
}

Test(image_parts, ppm_and_pfm)
{
    const int32_t sizes[][2] = {{1, 1}, {7, 37}, {300, 201}};
    const qr_image_format formats[] = {QR_FORMAT_PPM, QR_FORMAT_PFM};
    for (int f = 0; f < 2; f++)
        for (int s = 0; s < 3; s++)
            for (int smooth = 0; smooth < 2; smooth++) {
                img im = make_img(formats[f], sizes[s][0], sizes[s][1], smooth, 7u + (uint32_t)s);
                cr_assert_eq(qr_image_part_grid(im.format, im.w, im.h), 1);
                cr_assert_eq(qr_image_part_context(im.format, im.w, im.h, im.h / 2), 0);
                qr_image_write_options o = opts_for(1, 0);
                check_all_cuts(f ? "PFM" : "PPM", &im, &o);
                free(im.px);
            }
}

/* Parts and pixel rows, alternating at grid rows both ways round. */
Test(image_parts, mixed_with_pixel_rows)
{
    const qr_image_format formats[] = {QR_FORMAT_PNG, QR_FORMAT_PPM, QR_FORMAT_PFM};
    char whole[1024], parts[1024];
    snprintf(whole, sizeof whole, "%s", qr_test_tmp("mixed-whole"));
    snprintf(parts, sizeof parts, "%s", qr_test_tmp("mixed-assembled"));
    for (int f = 0; f < 3; f++) {
        img im = make_img(formats[f], 3000, 100, 1, 5);
        qr_image_write_options o = opts_for(6, 2);
        write_whole(whole, &im, &o);
        int32_t g = qr_image_part_grid(im.format, im.w, im.h), cuts[8];
        const int32_t at[] = {0, g, 3 * g, 4 * g, 6 * g, im.h};
        memcpy(cuts, at, sizeof at);
        for (uint64_t mask = 0; mask < 32; mask++) {
            write_parts(parts, &im, &o, &o, cuts, 5, mask);
            cr_assert(qr_test_same_bytes(whole, parts),
                      "format %d, parts mask %#llx: the file differs", f,
                      (unsigned long long)mask);
        }
        free(im.px);
    }
    remove(whole);
    remove(parts);
}

/* libpng reads the pixels back from an assembled file. */
Test(image_parts, png_reads_back_with_libpng)
{
    img im = make_img(QR_FORMAT_PNG, 257, 1100, 0, 99);
    const char *path = qr_test_tmp("parts-libpng.png");
    qr_image_write_options o = opts_for(1, 2);
    int32_t cuts[MAX_CUTS + 1];
    int n = make_cuts(qr_image_part_grid(im.format, im.w, im.h), im.h, 3, cuts);
    cr_assert_eq(n, 5);
    write_parts(path, &im, &o, &o, cuts, n, 0);
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_file(&pi, path), "libpng: %s", pi.message);
    cr_assert(pi.width == (png_uint_32)im.w && pi.height == (png_uint_32)im.h);
    pi.format = PNG_FORMAT_RGB;
    unsigned char *got = malloc(PNG_IMAGE_SIZE(pi));
    cr_assert(png_image_finish_read(&pi, NULL, got, 0, NULL), "libpng: %s", pi.message);
    cr_assert_eq(memcmp(got, im.px, (size_t)im.w * im.h * 3), 0, "libpng reads other pixels");
    free(got);
    free(im.px);
    remove(path);
}

/* With alpha: parts of RGBA rows on the same grid (the grid and context
 * are those of RGB, whatever the pixels), assembled into the file the
 * writer writes from the rows. */
Test(image_parts, png_with_alpha)
{
    const int32_t dims[][2] = {{3000, 100}, {43691, 12}, {1, 100000}, {257, 1100}, {1, 1}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        img im = make_rgba_img(dims[d][0], dims[d][1], 40u + (uint32_t)d);
        for (int l = 0; l < 3; l++) {
            qr_image_write_options o = opts_for(all_levels[l], l == 1 ? 1 : 3);
            o.alpha = 1;
            char tag[96];
            snprintf(tag, sizeof tag, "RGBA PNG, level %d", all_levels[l]);
            check_all_cuts(tag, &im, &o);
        }
        free(im.px);
    }
}

/* ---- what is refused ----------------------------------------------------------------- */

/* Opens a writer in a folder of its own, appends `part` after `before`
 * rows of pixels, and expects it refused with a message holding `want`;
 * then the writer stays failed, and nothing is left in the folder. */
static void expect_refused(const char *dirname, const img *im, const qr_image_write_options *o,
                           int32_t before, const void *part, size_t len, const char *want)
{
    qr_error err;
    const char *dir = qr_test_tmp_dir(dirname);
    char path[1024];
    snprintf(path, sizeof path, "%s/out", dir);
    qr_image_writer *w;
    QR_CHECK(err, qr_image_writer_open(path, im->format, im->w, im->h, o, &w, &err));
    if (before)
        append_pixels(w, im, 0, before);
    cr_assert_eq(qr_image_writer_append_part(w, part, len, &err), QR_ERR_INVALID,
                 "a part that should be refused (%s) was taken", want);
    cr_assert(strstr(err.msg, want), "message: %s (want '%s')", err.msg, want);
    cr_assert(!strchr(err.msg, '\n'), "a one-line message: %s", err.msg);
    cr_assert_eq(qr_test_count_temp_files(dir), 0, "the temporary file outlives the failure");
    /* the failure sticks */
    qr_error again;
    cr_assert_neq(qr_image_writer_append_rgb8(w, im->px, 1, &again), QR_OK);
    cr_assert_neq(qr_image_writer_close(w, &again), QR_OK);
    cr_assert(!qr_test_exists(path), "a failed writer left %s", path);
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
}

Test(image_parts, refuses_parts_out_of_order)
{
    img im = make_img(QR_FORMAT_PNG, 3000, 100, 1, 3);
    qr_image_write_options o = opts_for(1, 1);
    const int32_t g = qr_image_part_grid(im.format, im.w, im.h);
    size_t len;
    void *second = encode_part(&im, &o, g, 2 * g, &len);
    expect_refused("order-first", &im, &o, 0, second, len, "out of order");
    expect_refused("order-again", &im, &o, 2 * g, second, len, "out of order");
    free(second);
    /* and one whose rows the writer already has, mid-grid after pixel rows */
    void *first = encode_part(&im, &o, 0, g, &len);
    expect_refused("order-mid", &im, &o, 1, first, len, "out of order");
    free(first);
    free(im.px);
}

Test(image_parts, refuses_parts_of_another_image)
{
    img im = make_img(QR_FORMAT_PNG, 3000, 100, 1, 3);
    qr_image_write_options o = opts_for(1, 1), o6 = opts_for(6, 1);
    const int32_t g = qr_image_part_grid(im.format, im.w, im.h);
    size_t len;
    /* another width (same grid) */
    img wider = make_img(QR_FORMAT_PNG, 3001, 100, 1, 3);
    cr_assert_eq(qr_image_part_grid(wider.format, wider.w, wider.h), g);
    void *p = encode_part(&wider, &o, 0, g, &len);
    expect_refused("other-width", &im, &o, 0, p, len, "3001x100 PNG image");
    free(p);
    /* another level */
    p = encode_part(&im, &o6, 0, g, &len);
    expect_refused("other-level", &im, &o, 0, p, len, "level 6");
    free(p);
    /* another format */
    img ppm = make_img(QR_FORMAT_PPM, 3000, 100, 1, 3);
    p = encode_part(&ppm, &o, 0, g, &len);
    expect_refused("other-format", &im, &o, 0, p, len, "PPM image");
    free(p);
    free(ppm.px);
    free(wider.px);
    free(im.px);
}

/* A part of RGBA rows to a file of RGB ones, and the other way round; a
 * PPM or PFM part with alpha is not encoded at all. */
Test(image_parts, refuses_parts_of_other_pixels)
{
    img rgb = make_img(QR_FORMAT_PNG, 300, 1000, 1, 3), rgba = make_rgba_img(300, 1000, 3);
    qr_image_write_options o = opts_for(1, 1), oa = o;
    oa.alpha = 1;
    const int32_t g = qr_image_part_grid(QR_FORMAT_PNG, 300, 1000);
    size_t len;
    void *p = encode_part(&rgba, &oa, 0, g, &len);
    expect_refused("rgba-to-rgb", &rgb, &o, 0, p, len, "a part of RGBA pixels given to a file "
                                                       "of RGB pixels");
    free(p);
    p = encode_part(&rgb, &o, g, 2 * g, &len);
    expect_refused("rgb-to-rgba", &rgba, &oa, g, p, len, "a part of RGB pixels given to a file "
                                                          "of RGBA pixels");
    free(p);
    const qr_image_format formats[] = {QR_FORMAT_PPM, QR_FORMAT_PFM};
    for (int f = 0; f < 2; f++) {
        qr_error err;
        void *part = (void *)&err;
        cr_assert_eq(qr_image_part_encode(formats[f], 300, 1000, &oa, 0, 1, rgb.px, &part, &len,
                                          &err),
                     QR_ERR_INVALID);
        cr_assert(part == NULL && len == 0);
        cr_assert(strstr(err.msg, "has no alpha channel"), "message: %s", err.msg);
    }
    free(rgb.px);
    free(rgba.px);
}

Test(image_parts, refuses_damaged_parts)
{
    const qr_image_format formats[] = {QR_FORMAT_PNG, QR_FORMAT_PPM};
    for (int f = 0; f < 2; f++) {
        img im = make_img(formats[f], 3000, 100, 0, 3);
        qr_image_write_options o = opts_for(1, 1);
        const int32_t g = qr_image_part_grid(im.format, im.w, im.h);
        size_t len;
        unsigned char *p = encode_part(&im, &o, 0, 2 * g, &len);
        expect_refused("truncated", &im, &o, 0, p, len - 1, "truncated");
        expect_refused("short", &im, &o, 0, p, 20, "not an image part");
        expect_refused("empty", &im, &o, 0, p, 0, "not an image part");
        const size_t at[] = {30 /* row1 in the header */, len / 2, len - 1};
        for (int k = 0; k < 3; k++) {
            p[at[k]] ^= 0x10;
            expect_refused("corrupted", &im, &o, 0, p, len, "corrupted");
            p[at[k]] ^= 0x10;
        }
        memcpy(p, "QRIMPARX", 8);
        expect_refused("magic", &im, &o, 0, p, len, "not an image part");
        free(p);
        free(im.px);
    }
}

Test(image_parts, refuses_rows_off_the_grid)
{
    qr_error err;
    img im = make_img(QR_FORMAT_PNG, 3000, 100, 1, 3);
    const int32_t g = qr_image_part_grid(im.format, im.w, im.h);
    cr_assert_gt(g, 2);
    cr_assert_neq(im.h % g, 0);
    const int32_t bad[][2] = {{1, g},     {0, g + 1}, {g, g},   {2 * g, g},
                              {-g, g},    {0, 101},   {0, 99}, {im.h, im.h}};
    for (int k = 0; k < 8; k++) {
        void *part = (void *)&err;
        size_t len = 7;
        cr_assert_eq(qr_image_part_encode(QR_FORMAT_PNG, im.w, im.h, NULL, bad[k][0], bad[k][1],
                                          im.px, &part, &len, &err),
                     QR_ERR_INVALID, "rows %d to %d were taken", bad[k][0], bad[k][1]);
        cr_assert(part == NULL && len == 0);
        cr_assert(strstr(err.msg, "rows"), "message: %s", err.msg);
    }
    /* the last part may end at the height, off the grid */
    size_t len;
    void *part = encode_part(&im, NULL, g * (im.h / g), im.h, &len);
    free(part);
    free(im.px);
}
