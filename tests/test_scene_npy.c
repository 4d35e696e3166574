/* test_scene_npy.c — NumPy .npy scenes: bit-exact round trips of every
 * built-in scene, the header numpy.save writes, the header variants NumPy
 * may write (versions 2.0 and 3.0, key order, quotes, padding), and every
 * kind of bad file answered with one line naming the file (never a crash),
 * by the library and by the command line (exit 3, nothing written). */
#include "cli_run.h"
#include "test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>

#include "quadrender/npy.h"
#include "quadrender/scene.h"

/* ---- helpers ----------------------------------------------------------- */

/* A scratch file holding len bytes of data; its path. */
static const char *write_file(const char *name, const void *data, size_t len)
{
    const char *path = qr_test_tmp(name);
    qr_test_write_file(path, data, len);
    return path;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static uint32_t bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static void assert_same_circles(const qr_scene *a, const qr_scene *b, const char *what)
{
    cr_assert_eq(a->n, b->n, "%s: %d circles, read back %d", what, a->n, b->n);
    const float *fa[7] = {a->x, a->y, a->z, a->r, a->red, a->green, a->blue};
    const float *fb[7] = {b->x, b->y, b->z, b->r, b->red, b->green, b->blue};
    for (int f = 0; f < 7; ++f)
        for (int32_t i = 0; i < a->n; ++i)
            if (bits(fa[f][i]) != bits(fb[f][i]))
                cr_assert_fail("%s: circle %d field %d: %a != %a", what, i, f, (double)fa[f][i],
                               (double)fb[f][i]);
}

/* A .npy file built by hand: magic, version, header length (2 or 4 bytes
 * by version, or `hlen_override` when not negative), the header text as
 * given, then `data_len` bytes of data. */
static size_t build_npy(unsigned char *out, int major, const char *header, long hlen_override,
                        const void *data, size_t data_len)
{
    size_t at = 0;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    at = 8;
    size_t hlen = strlen(header);
    uint32_t h = hlen_override >= 0 ? (uint32_t)hlen_override : (uint32_t)hlen;
    out[at++] = (unsigned char)h;
    out[at++] = (unsigned char)(h >> 8);
    if (major > 1) {
        out[at++] = (unsigned char)(h >> 16);
        out[at++] = (unsigned char)(h >> 24);
    }
    memcpy(out + at, header, hlen);
    at += hlen;
    memcpy(out + at, data, data_len);
    return at + data_len;
}

/* Little-endian bytes of n rows. */
static size_t rows_le(unsigned char *out, const float (*v)[7], int n)
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 7; ++k) {
            uint32_t u = bits(v[i][k]);
            for (int b = 0; b < 4; ++b)
                *out++ = (unsigned char)(u >> (8 * b));
        }
    return (size_t)n * 28;
}

static qr_scene *read_ok(const char *path)
{
    qr_scene *s = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_read_npy(path, &s, &err), QR_OK, "%s", err.msg);
    cr_assert_not_null(s);
    return s;
}

/* Reading the file fails with a parse error, no scene, and one line
 * "<path>: ..." that says `what`. */
static void expect_bad(const char *name, const void *data, size_t len, const char *what)
{
    const char *path = write_file(name, data, len);
    qr_scene *s = (qr_scene *)1;
    qr_error err;
    qr_status st = qr_scene_read_npy(path, &s, &err);
    cr_assert_eq(st, QR_ERR_PARSE, "%s: status %d (%s)", name, (int)st, st ? err.msg : "");
    cr_assert_null(s, "%s: no scene on failure", name);
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%s: ", path);
    cr_assert(strncmp(err.msg, prefix, strlen(prefix)) == 0, "%s: '%s' should start '%s'", name,
              err.msg, prefix);
    cr_assert_not_null(strstr(err.msg, what), "%s: '%s' should say '%s'", name, err.msg, what);
    cr_assert_null(strchr(err.msg, '\n'), "one line");
    unlink(path);
}

static const char good_header[] =
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 7), }          \n";

static const float two_rows[2][7] = {{0.5f, 0.25f, 1.0f, 0.1f, 1.0f, 0.0f, 0.5f},
                                     {-0.0f, 1e-30f, FLT_TRUE_MIN, 2.0f, 0.2f, -3.0f, 1e20f}};

/* A scene of the circles of two_rows. */
static qr_scene *two_row_scene(void)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_create(2, QR_ANIM_NONE, &s, &err), QR_OK, "%s", err.msg);
    float *f[7] = {s->x, s->y, s->z, s->r, s->red, s->green, s->blue};
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 7; ++k)
            f[k][i] = two_rows[i][k];
    return s;
}

/* ---- round trips ------------------------------------------------------ */

Test(scene_npy, round_trip_every_builtin)
{
    int count = 0;
    const qr_builtin_info *table = qr_builtin_scenes(&count);
    for (int k = 0; k < count; ++k) {
        qr_scene *s;
        qr_error err;
        cr_assert_eq(qr_scene_builtin(table[k].name, 0, &s, &err), QR_OK);
        const char *path = qr_test_tmp("rt.npy");
        cr_assert_eq(qr_scene_write_npy(s, path, &err), QR_OK, "%s", err.msg);
        size_t len;
        free((unsigned char *)qr_test_read_file(path, &len));
        cr_assert_eq(len, 128 + (size_t)s->n * 28, "%s: file of %zu bytes", table[k].name, len);
        qr_scene *back = read_ok(path);
        assert_same_circles(s, back, table[k].name);
        cr_assert_eq(back->anim, QR_ANIM_NONE);
        cr_assert_eq(back->shading, QR_SHADE_FLAT);
        cr_assert_eq(back->block_floats, (size_t)back->n * 7);
        cr_assert_not_null(strstr(back->name, "rt"), "%s", back->name);
        cr_assert_null(strchr(back->name, '.'), "the extension is not part of the name");
        qr_scene_destroy(s);
        qr_scene_destroy(back);
        unlink(path);
    }
}

Test(scene_npy, round_trip_awkward_values_and_empty)
{
    qr_scene *s = two_row_scene();
    qr_error err;
    const char *path = qr_test_tmp("awkward.npy");
    cr_assert_eq(qr_scene_write_npy(s, path, &err), QR_OK, "%s", err.msg);
    qr_scene *back = read_ok(path);
    assert_same_circles(s, back, "awkward");
    cr_assert(signbit(back->x[1]), "-0 stays -0");
    qr_scene_destroy(back);
    qr_scene_destroy(s);

    cr_assert_eq(qr_scene_create(0, QR_ANIM_NONE, &s, &err), QR_OK);
    cr_assert_eq(qr_scene_write_npy(s, path, &err), QR_OK, "%s", err.msg);
    back = read_ok(path);
    cr_assert_eq(back->n, 0);
    qr_scene_destroy(back);
    qr_scene_destroy(s);
    unlink(path);
}

/* The bytes numpy.save writes for a (2, 7) float32 array: version 1.0, the
 * dict in this exact form, padded with spaces and a newline to 64 bytes,
 * then the rows in little-endian order. */
Test(scene_npy, writer_matches_numpy_layout)
{
    qr_scene *s = two_row_scene();
    qr_error err;
    const char *path = qr_test_tmp("layout.npy");
    cr_assert_eq(qr_scene_write_npy(s, path, &err), QR_OK, "%s", err.msg);
    size_t len;
    unsigned char *got = (unsigned char *)qr_test_read_file(path, &len);
    const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 7), }";
    unsigned char want[256];
    memcpy(want, "\x93NUMPY\x01\x00\x76\x00", 10); /* 0x76 = 118 = 128 - 10 */
    memcpy(want + 10, dict, sizeof dict - 1);
    memset(want + 10 + sizeof dict - 1, ' ', 128 - 10 - (sizeof dict - 1) - 1);
    want[127] = '\n';
    size_t data = rows_le(want + 128, two_rows, 2);
    cr_assert_eq(len, 128 + data);
    cr_assert(memcmp(got, want, len) == 0, "the file differs from numpy.save's layout");
    free(got);
    qr_scene_destroy(s);
    unlink(path);
}

Test(scene_npy, writer_refuses_what_cannot_be_read)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_create(3, QR_ANIM_NONE, &s, &err), QR_OK);
    const char *path = qr_test_tmp("refused.npy");
    s->green[2] = NAN;
    cr_assert_eq(qr_scene_write_npy(s, path, &err), QR_ERR_INVALID);
    cr_assert_not_null(strstr(err.msg, "circle 2"), "%s", err.msg);
    s->green[2] = 0.0f;
    s->r[1] = -1.0f;
    cr_assert_eq(qr_scene_write_npy(s, path, &err), QR_ERR_INVALID);
    cr_assert_not_null(strstr(err.msg, "negative radius"), "%s", err.msg);
    cr_assert(!file_exists(path), "nothing written");
    cr_assert_eq(qr_scene_write_npy(s, qr_test_tmp("no/such/dir/x.npy"), &err), QR_ERR_INVALID);
    s->r[1] = 1.0f;
    cr_assert_eq(qr_scene_write_npy(s, qr_test_tmp("no/such/dir/x.npy"), &err), QR_ERR_IO);
    qr_scene_destroy(s);
}

/* Headers NumPy writes in other versions or that other writers produce. */
Test(scene_npy, accepted_header_variants)
{
    const char *headers[][2] = {
        {"1", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 7), }          \n"},
        {"2", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 7), }        \n"},
        {"3", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 7), }        \n"},
        {"1", "{\"shape\": (2,7), \"fortran_order\": False, \"descr\": \"<f4\"}"},
        {"1", "{'descr':'<f4','fortran_order':False,'shape':(2L, 7L)}\n"},
        {"1", "  {  'shape' : ( 2 , 7 , ) , 'descr' : '<f4' , 'fortran_order' : False , }  \r\n"},
    };
    for (size_t h = 0; h < sizeof headers / sizeof headers[0]; ++h) {
        unsigned char data[64], file[512];
        size_t dlen = rows_le(data, two_rows, 2);
        size_t len = build_npy(file, headers[h][0][0] - '0', headers[h][1], -1, data, dlen);
        const char *path = write_file("variant.npy", file, len);
        qr_scene *s = read_ok(path);
        cr_assert_eq(s->n, 2, "header %zu", h);
        for (int i = 0; i < 2; ++i) {
            float got[7] = {s->x[i],   s->y[i],     s->z[i],   s->r[i],
                            s->red[i], s->green[i], s->blue[i]};
            for (int k = 0; k < 7; ++k)
                cr_assert_eq(bits(got[k]), bits(two_rows[i][k]), "header %zu row %d col %d", h,
                             i, k);
        }
        qr_scene_destroy(s);
        unlink(path);
    }
}

/* ---- bad files -------------------------------------------------------- */

static void expect_bad_header(const char *name, int major, const char *header, const char *what)
{
    unsigned char data[64], file[512];
    size_t dlen = rows_le(data, two_rows, 2);
    size_t len = build_npy(file, major, header, -1, data, dlen);
    expect_bad(name, file, len, what);
}

Test(scene_npy, wrong_dtype_order_or_shape)
{
    expect_bad_header("f2.npy", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1, 7), }\n",
                      "dtype '<f2' is not supported: expected '<f4' or '<f8'");
    expect_bad_header("be.npy", 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 7), }\n",
                      "dtype '>f4' is not supported");
    expect_bad_header("i4.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 7), }\n",
                      "dtype '<i4'");
    expect_bad_header("struct.npy", 1,
                      "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (2, 7), }\n",
                      "'descr'");
    expect_bad_header("fortran.npy", 1,
                      "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 7), }\n",
                      "fortran_order True is not supported");
    expect_bad_header("cols6.npy", 1,
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 6), }\n",
                      "shape (2, 6) is not supported: expected (N, 7)");
    expect_bad_header("flat.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (14,), }\n",
                      "shape (14,) is not supported");
    expect_bad_header("3d.npy", 1,
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 7, 1), }\n",
                      "shape (2, 7, 1) is not supported");
    expect_bad_header("scalar.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n",
                      "shape () is not supported");
    expect_bad_header("nokey.npy", 1, "{'descr': '<f4', 'shape': (2, 7), }\n", "lacks");
    expect_bad_header("extrakey.npy", 1,
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 7), 'x': 1}\n",
                      "a key other than");
    expect_bad_header("negshape.npy", 1,
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 7), }\n", "'shape'");
    expect_bad_header("huge.npy", 1,
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (300000000, 7), }\n",
                      "exceed the limit");
    expect_bad_header("version.npy", 4, good_header, "version 4.0 is not supported");
    expect_bad_header("notdict.npy", 1, "[1, 2]\n", "bad .npy header");
}

Test(scene_npy, truncated_files)
{
    unsigned char data[64], file[512];
    size_t dlen = rows_le(data, two_rows, 2);
    size_t full = build_npy(file, 1, good_header, -1, data, dlen);
    /* cut anywhere: inside the magic, the header, the data */
    const size_t cuts[] = {1, 5, 6, 8, 9, 10, 40, 10 + sizeof good_header - 2,
                           10 + sizeof good_header - 1, full - 28, full - 1};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; ++c) {
        const char *what = cuts[c] >= 10 + sizeof good_header - 1 ? "truncated: shape (2, 7) needs"
                           : cuts[c] >= 10                        ? "truncated"
                                                                  : "truncated .npy header";
        char name[32];
        snprintf(name, sizeof name, "cut%zu.npy", cuts[c]);
        expect_bad(name, file, cuts[c], what);
    }
    expect_bad("empty.npy", "", 0, "empty file");
    expect_bad("text.npy", "circles 1\n", 10, "not a NumPy .npy file");
    /* more data than the shape */
    unsigned char more[600];
    memcpy(more, file, full);
    memset(more + full, 0, 28);
    expect_bad("long.npy", more, full + 28, "28 bytes follow the data");
}

/* The header's length field disagrees with the header. */
Test(scene_npy, header_length_lies)
{
    unsigned char data[64], file[512];
    size_t dlen = rows_le(data, two_rows, 2);
    size_t hlen = strlen(good_header);
    size_t len;
    /* longer than the file */
    len = build_npy(file, 1, good_header, 60000, data, dlen);
    expect_bad("hlen_past_end.npy", file, len, "header says it is 60000 bytes long");
    /* longer than the dict: the data's bytes become part of the header */
    len = build_npy(file, 1, good_header, (long)hlen + 28, data, dlen);
    expect_bad("hlen_long.npy", file, len, "bad .npy header");
    /* shorter: the dict is cut */
    len = build_npy(file, 1, good_header, (long)hlen - 20, data, dlen);
    expect_bad("hlen_short.npy", file, len, "bad .npy header");
    /* a version 2.0 length field read as if it were 1.0's */
    len = build_npy(file, 2, good_header, (long)hlen + (1L << 16), data, dlen);
    expect_bad("hlen_v2.npy", file, len, "header says it is");
}

Test(scene_npy, bad_values)
{
    const struct {
        int row, col;
        float v;
        const char *what;
    } cases[] = {
        {1, 1, NAN, "row 1: y: nan is not a finite number"},
        {0, 6, INFINITY, "row 0: B: inf is not a finite number"},
        {1, 3, -0.5f, "row 1: negative radius -0.5"},
        {1, 0, -INFINITY, "row 1: x: -inf is not a finite number"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        float rows[2][7];
        memcpy(rows, two_rows, sizeof rows);
        rows[cases[c].row][cases[c].col] = cases[c].v;
        unsigned char data[64], file[512];
        size_t dlen = rows_le(data, (const float(*)[7])rows, 2);
        size_t len = build_npy(file, 1, good_header, -1, data, dlen);
        expect_bad("value.npy", file, len, cases[c].what);
    }
}

/* Little-endian bytes of n rows of float64. */
static size_t rows_le_f8(unsigned char *out, const double (*v)[7], int n)
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 7; ++k) {
            uint64_t u;
            memcpy(&u, &v[i][k], sizeof u);
            for (int b = 0; b < 8; ++b)
                *out++ = (unsigned char)(u >> (8 * b));
        }
    return (size_t)n * 56;
}

/* float64 rows (what NumPy makes by default, and what Python's front end
 * takes) are rounded to float32 as NumPy's astype rounds them; the rows are
 * checked as float32 rows are, on the rounded values (1e300 is an
 * infinity); truncated data is refused by its float64 length; the CLI
 * renders the file to the bytes of its float32 rounding. */
Test(scene_npy, float64_rows_are_float32_rows_rounded)
{
    const double rows[2][7] = {{0.1, 0.3, 1.0 / 3.0, 0.05, 1.0, 0.0, 0.7},
                               {0.9, 0.6, 1e-50, 0.2, 0.2, 1e-45, 2.0 / 3.0}};
    unsigned char data[128], file[512];
    size_t dlen = rows_le_f8(data, rows, 2);
    size_t len = build_npy(file, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 7), }\n", -1,
                           data, dlen);
    const char *path = write_file("f8.npy", file, len);
    qr_scene *s = read_ok(path);
    const float *f[7] = {s->x, s->y, s->z, s->r, s->red, s->green, s->blue};
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 7; ++k)
            cr_expect_eq(bits(f[k][i]), bits((float)rows[i][k]), "row %d field %d", i, k);
    /* the same circles as float32, and the same image from the CLI */
    float rounded[2][7];
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 7; ++k)
            rounded[i][k] = (float)rows[i][k];
    unsigned char data4[64], file4[512];
    size_t len4 = build_npy(file4, 1, good_header, -1, data4, rows_le(data4, (const float(*)[7])rounded, 2));
    const char *path4 = write_file("f8_as_f4.npy", file4, len4);
    qr_scene *s4 = read_ok(path4);
    assert_same_circles(s4, s, "float64 against float32");
    qr_scene_destroy(s4);
    qr_scene_destroy(s);
    const char *a = qr_test_tmp("f8.ppm"), *b = qr_test_tmp("f4.ppm");
    cr_assert_eq(RUN("render", path, "-s", "32", "--device", "cpu", "-o", a), 0, "%s", R.err);
    cr_assert_eq(RUN("render", path4, "-s", "32", "--device", "cpu", "-o", b), 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b), "a float64 file renders otherwise");
    /* checked as float32: an overflow is an infinity, a negative radius stays one */
    double bad[2][7];
    memcpy(bad, rows, sizeof bad);
    bad[1][2] = 1e300;
    len = build_npy(file, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 7), }\n", -1, data,
                    rows_le_f8(data, (const double(*)[7])bad, 2));
    expect_bad("f8_inf.npy", file, len, "row 1: z: inf is not a finite number");
    memcpy(bad, rows, sizeof bad);
    bad[0][3] = -0.5;
    len = build_npy(file, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 7), }\n", -1, data,
                    rows_le_f8(data, (const double(*)[7])bad, 2));
    expect_bad("f8_neg.npy", file, len, "row 0: negative radius -0.5");
    /* float32's length of data is short for float64 */
    len = build_npy(file, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 7), }\n", -1, data4,
                    56);
    expect_bad("f8_short.npy", file, len, "truncated");
}

/* The first bad row is reported, however the rows are split among threads. */
Test(scene_npy, first_bad_row_of_a_large_file)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_builtin("micro2M", 0, &s, &err), QR_OK);
    const char *path = qr_test_tmp("big_bad.npy");
    cr_assert_eq(qr_scene_write_npy(s, path, &err), QR_OK, "%s", err.msg);
    /* poison rows near the end of the file and one earlier, in another task */
    int fd = open(path, O_WRONLY);
    cr_assert(fd >= 0);
    const float nan = NAN, neg = -1.0f;
    cr_assert_eq(pwrite(fd, &nan, 4, 128 + 1999990L * 28 + 4), 4);
    cr_assert_eq(pwrite(fd, &neg, 4, 128 + 700001L * 28 + 12), 4);
    close(fd);
    qr_scene *back = (qr_scene *)1;
    cr_assert_eq(qr_scene_read_npy(path, &back, &err), QR_ERR_PARSE);
    cr_assert_null(back);
    cr_assert_not_null(strstr(err.msg, ": row 700001: negative radius -1"), "%s", err.msg);
    qr_scene_destroy(s);
    unlink(path);
}

Test(scene_npy, io_errors)
{
    qr_scene *s = (qr_scene *)1;
    qr_error err;
    cr_assert_eq(qr_scene_read_npy(qr_test_tmp("missing.npy"), &s, &err), QR_ERR_IO);
    cr_assert_null(s);
    cr_assert_not_null(strstr(err.msg, "No such file"), "%s", err.msg);
    const char *dir = qr_test_tmp("dir.npy");
    mkdir(dir, 0755);
    cr_assert_eq(qr_scene_read_npy(dir, &s, &err), QR_ERR_IO);
    cr_assert_not_null(strstr(err.msg, "is a directory"), "%s", err.msg);
    rmdir(dir);
    /* loading by extension */
    cr_assert_eq(qr_scene_load(qr_test_tmp("missing.NPY"), 0, &s, &err), QR_ERR_IO);
}

/* ---- the command line --------------------------------------------------- */

Test(scene_npy, cli_dump_and_render)
{
    const char *npy = qr_test_tmp("cli.npy"), *circles = qr_test_tmp("cli.circles");
    const char *a = qr_test_tmp("from_npy.ppm"), *b = qr_test_tmp("builtin.ppm");
    cr_assert_eq(RUN("dump", "pattern", "-o", npy), 0, "%s", R.err);
    cr_assert_eq(RUN("render", npy, "-s", "64", "-o", a), 0, "%s", R.err);
    cr_assert_eq(RUN("render", "pattern", "-s", "64", "-o", b), 0, "%s", R.err);
    cr_assert(qr_test_same_bytes(a, b), "the .npy dump renders differently");
    /* .npy -> .circles -> .npy gives the same bytes */
    cr_assert_eq(RUN("dump", npy, "-o", circles), 0, "%s", R.err);
    const char *again = qr_test_tmp("again.NPY");
    cr_assert_eq(RUN("dump", circles, "-o", again), 0, "%s", R.err);
    cr_assert(qr_test_same_bytes(npy, again));
    cr_assert_eq(RUN("dump", "rgb", "-o", qr_test_tmp("x.npz")), 2, "%s", R.err);
}

Test(scene_npy, cli_bad_file_exits_3_and_writes_nothing)
{
    unsigned char data[64], file[512];
    size_t dlen = rows_le(data, two_rows, 2);
    size_t len = build_npy(file, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 7), }\n",
                           -1, data, dlen);
    const char *bad = write_file("cli_bad.npy", file, len);
    const char *cut = write_file("cli_cut.npy", file, len - 3);
    const char *out = qr_test_tmp("cli_bad.ppm"), *dumped = qr_test_tmp("cli_bad.circles");
    const char *inputs[] = {bad, cut};
    for (int i = 0; i < 2; ++i) {
        cr_assert_eq(RUN("render", inputs[i], "-s", "8", "-o", out), 3, "%s", R.err);
        char prefix[1200];
        snprintf(prefix, sizeof prefix, "quadrender: %s: ", inputs[i]);
        cr_assert_eq(strncmp(R.err, prefix, strlen(prefix)), 0, "%s", R.err);
        cr_assert_eq(strchr(R.err, '\n'), R.err + strlen(R.err) - 1, "one line: %s", R.err);
        cr_assert_eq(RUN("dump", inputs[i], "-o", dumped), 3, "%s", R.err);
        cr_assert(!file_exists(out) && !file_exists(dumped), "nothing written");
    }
    unlink(bad);
    unlink(cut);
}

/* ---- rows of floats (quadrender/npy.h) ------------------------------------------------ */

/* float64 rows are rounded to float32; what float32 cannot hold becomes an
 * infinity, a NaN stays one; the values are not checked; (0, cols) is no
 * rows; the parser and its messages are the scene reader's. */
Test(scene_npy, rows_of_floats)
{
    const double d[3][2] = {{0.1, -2.5}, {1e300, -1e300}, {NAN, 1e-50}};
    unsigned char file[512];
    size_t len = build_npy(file, 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }\n",
                           -1, (const unsigned char *)d, sizeof d);
    const char *path = write_file("rows_f8.npy", file, len);
    float *v = NULL;
    int64_t rows = -1;
    qr_error err;
    cr_assert_eq(qr_npy_read_floats(path, 2, "x y", &v, &rows, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(rows, 3);
    cr_expect_eq(bits(v[0]), bits(0.1f));
    cr_expect_eq(bits(v[1]), bits(-2.5f));
    cr_expect(isinf(v[2]) && v[2] > 0 && isinf(v[3]) && v[3] < 0, "%g %g", v[2], v[3]);
    cr_expect(isnan(v[4]) && v[5] == 0.0f, "%g %g", v[4], v[5]);
    free(v);
    len = build_npy(file, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }\n", -1,
                    d, 0);
    path = write_file("rows_none.npy", file, len);
    cr_assert_eq(qr_npy_read_floats(path, 4, "x0 y0 x1 y1", &v, &rows, &err), QR_OK, "%s", err.msg);
    cr_expect(rows == 0 && v == NULL);
    cr_assert_eq(qr_npy_read_floats(path, 2, "x y", &v, &rows, &err), QR_ERR_PARSE);
    cr_expect(strstr(err.msg, "shape (0, 4) is not supported: expected (N, 2), rows of x y"), "%s",
              err.msg);
    cr_expect(v == NULL && rows == 0);
    cr_assert_eq(qr_npy_read_floats(qr_test_tmp("no_rows.npy"), 2, "x y", &v, &rows, &err),
                 QR_ERR_IO);
}

/* The header of a 1-D int32 array as numpy.save writes it. */
Test(scene_npy, header_write)
{
    char head[QR_NPY_HEADER_WRITE_MAX];
    const int64_t shape[2] = {5, 3};
    size_t n = qr_npy_header_write(head, "<i4", 1, shape);
    /* numpy.save's bytes for np.arange(5, dtype=np.int32) */
    static const char want[] = "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }";
    cr_assert_eq(n, 128);
    cr_expect(memcmp(head, "\x93NUMPY\x01\x00\x76\x00", 10) == 0);
    cr_expect(memcmp(head + 10, want, sizeof want - 1) == 0, "%.57s", head + 10);
    for (size_t k = 10 + sizeof want - 1; k < 127; k++)
        cr_assert_eq(head[k], ' ', "byte %zu", k);
    cr_expect_eq(head[127], '\n');
    cr_expect_eq(qr_npy_header_write(head, "<f4", 2, shape), 128);
    cr_expect_eq(qr_npy_header_write(head, "<f4", 0, shape), 128);
    static const char scalar[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (), }";
    cr_expect(memcmp(head + 10, scalar, sizeof scalar - 1) == 0, "%.56s", head + 10);
    cr_expect_eq(qr_npy_header_write(head, "<f4", 5, shape), 0);
}

/* ---- read in chunks --------------------------------------------------------------------- */

/* Circles [first, first + count) of a read as one chunk of the stream. */
static void expect_chunk(qr_scene_stream *sm, const qr_scene *whole, int64_t first, int32_t count)
{
    qr_scene *chunk = NULL, view;
    qr_error err;
    cr_assert_eq(qr_scene_stream_read(sm, first, count, &chunk, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_view(whole, (int32_t)first, count, &view, &err), QR_OK, "%s", err.msg);
    char what[64];
    snprintf(what, sizeof what, "chunk at %lld", (long long)first);
    assert_same_circles(&view, chunk, what);
    cr_assert_str_eq(chunk->name, whole->name);
    qr_scene_destroy(chunk);
}

/* Every chunking of a file gives its circles, float32 or float64, and the
 * header is checked as the whole reader checks it. */
Test(scene_npy, chunks_are_the_files_circles)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_builtin("rand100k", 0, &s, &err), QR_OK);
    const char *path = qr_test_tmp("chunks.npy");
    cr_assert_eq(qr_scene_write_npy(s, path, &err), QR_OK, "%s", err.msg);
    qr_scene *whole = read_ok(path);
    qr_scene_stream *sm = NULL;
    cr_assert_eq(qr_scene_stream_open(path, &sm, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_stream_circles(sm), 100000);
    cr_assert_str_eq(qr_scene_stream_picture(sm)->name, whole->name);
    cr_assert_eq(qr_scene_stream_picture(sm)->n, 0);
    const int32_t sizes[] = {1, 7, 65536, 70001, 100000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int64_t first = 0; first < 100000; first += sizes[k]) {
            const int32_t c = 100000 - first < sizes[k] ? (int32_t)(100000 - first) : sizes[k];
            if (sizes[k] == 1 && first % 9973) continue; /* a sample of the single circles */
            expect_chunk(sm, whole, first, c);
        }
    expect_chunk(sm, whole, 100000, 0);
    /* read ahead: the same circles when the read asks for them, dropped for
     * any other; a range outside the file is ignored */
    qr_scene_stream_prefetch(sm, 5000, 3000);
    expect_chunk(sm, whole, 5000, 3000);
    qr_scene_stream_prefetch(sm, 5000, 3000);
    expect_chunk(sm, whole, 5001, 3000);
    expect_chunk(sm, whole, 5000, 3000);
    qr_scene_stream_prefetch(sm, 99000, 2000);
    qr_scene_stream_prefetch(sm, -1, 10);
    expect_chunk(sm, whole, 99000, 1000);
    /* the picture's options go with every chunk read after */
    const float grey[3] = {0.25f, 0.5f, 0.75f};
    cr_assert_eq(qr_scene_set_background(qr_scene_stream_picture(sm), grey, "bg", &err), QR_OK);
    cr_assert_eq(qr_scene_set_antialias(qr_scene_stream_picture(sm), 1, "aa", &err), QR_OK);
    qr_scene *out = NULL;
    cr_assert_eq(qr_scene_stream_read(sm, 5, 5, &out, &err), QR_OK, "%s", err.msg);
    cr_assert(out->background[1] == 0.5f && out->antialias == 1 && !out->transparent);
    qr_scene_destroy(out);
    cr_assert_eq(qr_scene_set_transparent(qr_scene_stream_picture(sm), 1, "bg", &err), QR_OK);
    cr_assert_eq(qr_scene_stream_read(sm, 5, 5, &out, &err), QR_OK, "%s", err.msg);
    cr_assert(out->transparent == 1);
    qr_scene_destroy(out);
    out = (qr_scene *)1;
    cr_assert_eq(qr_scene_stream_read(sm, 99999, 2, &out, &err), QR_ERR_INVALID);
    cr_assert_null(out);
    cr_assert_eq(qr_scene_stream_read(sm, -1, 1, &out, &err), QR_ERR_INVALID);
    qr_scene_stream_close(sm);
    qr_scene_stream_close(NULL);
    qr_scene_destroy(whole);
    qr_scene_destroy(s);

    /* float64 rows, read in chunks, are the whole reader's rounded rows */
    const double rows[2][7] = {{0.1, 0.3, 1.0 / 3.0, 0.05, 1.0, 0.0, 0.7},
                               {0.9, 0.6, 1e-50, 0.2, 0.2, 1e-45, 2.0 / 3.0}};
    unsigned char data[128], file[512];
    size_t len = build_npy(file, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 7), }\n",
                           -1, data, rows_le_f8(data, rows, 2));
    const char *p8 = write_file("chunks_f8.npy", file, len);
    whole = read_ok(p8);
    cr_assert_eq(qr_scene_stream_open(p8, &sm, &err), QR_OK, "%s", err.msg);
    expect_chunk(sm, whole, 0, 1);
    expect_chunk(sm, whole, 1, 1);
    qr_scene_stream_close(sm);
    qr_scene_destroy(whole);

    /* the header's faults, as the whole reader words them */
    len = build_npy(file, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 7), }\n", -1,
                    data, 56);
    const char *bad = write_file("chunks_i4.npy", file, len);
    sm = (qr_scene_stream *)1;
    cr_assert_eq(qr_scene_stream_open(bad, &sm, &err), QR_ERR_PARSE);
    cr_assert_null(sm);
    cr_assert(strstr(err.msg, "dtype '<i4' is not supported"), "%s", err.msg);
    len = build_npy(file, 1, good_header, -1, data, 30);
    bad = write_file("chunks_short.npy", file, len);
    cr_assert_eq(qr_scene_stream_open(bad, &sm, &err), QR_ERR_PARSE);
    cr_assert(strstr(err.msg, "truncated"), "%s", err.msg);
    cr_assert_eq(qr_scene_stream_open(qr_test_tmp("nothing_here.npy"), &sm, &err), QR_ERR_IO);
    cr_assert_eq(qr_scene_stream_open("scene.circles", &sm, &err), QR_ERR_INVALID);
    cr_assert(strstr(err.msg, "only .npy"), "%s", err.msg);
}

/* A bad row names its row in the file, not in its chunk; a file cut short
 * after it was opened is found when its missing rows are read. */
Test(scene_npy, chunks_find_bad_rows_and_a_file_cut_short)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_builtin("rand100k", 0, &s, &err), QR_OK);
    const char *path = qr_test_tmp("chunks_bad.npy");
    cr_assert_eq(qr_scene_write_npy(s, path, &err), QR_OK, "%s", err.msg);
    int fd = open(path, O_WRONLY);
    cr_assert(fd >= 0);
    const float neg = -1.0f;
    cr_assert_eq(pwrite(fd, &neg, 4, 128 + 70005L * 28 + 12), 4);
    close(fd);
    qr_scene_stream *sm = NULL;
    cr_assert_eq(qr_scene_stream_open(path, &sm, &err), QR_OK, "%s", err.msg);
    qr_scene *c = (qr_scene *)1;
    cr_assert_eq(qr_scene_stream_read(sm, 0, 70000, &c, &err), QR_OK, "%s", err.msg);
    qr_scene_destroy(c);
    cr_assert_eq(qr_scene_stream_read(sm, 70000, 30000, &c, &err), QR_ERR_PARSE);
    cr_assert_null(c);
    cr_assert(strstr(err.msg, ": row 70005: negative radius -1"), "%s", err.msg);
    /* cut to 50 000 circles while open */
    cr_assert_eq(truncate(path, 128 + 50000L * 28), 0);
    cr_assert_eq(qr_scene_stream_read(sm, 0, 40000, &c, &err), QR_OK, "%s", err.msg);
    qr_scene_destroy(c);
    cr_assert_eq(qr_scene_stream_read(sm, 40000, 20000, &c, &err), QR_ERR_PARSE);
    cr_assert(strstr(err.msg, "truncated: circle 50000 of 100000 is missing"), "%s", err.msg);
    /* a read-ahead's failure comes with the read that takes it */
    qr_scene_stream_prefetch(sm, 45000, 10000);
    cr_assert_eq(qr_scene_stream_read(sm, 45000, 10000, &c, &err), QR_ERR_PARSE);
    cr_assert_null(c);
    cr_assert(strstr(err.msg, "truncated: circle 50000 of 100000 is missing"), "%s", err.msg);
    /* closed with a read-ahead in flight */
    qr_scene_stream_prefetch(sm, 0, 40000);
    qr_scene_stream_close(sm);
    qr_scene_destroy(s);
    unlink(path);
}

/* A chunk's rows (qr_scene_stream_read_rows) are its circles as the file
 * holds them, float32 or float64 rounded, read ahead or not; the same
 * errors for a range outside the file. Reads large enough to go in slices
 * on threads give the same circles, and a file cut short within a later
 * slice names its first missing circle. */
Test(scene_npy, chunk_rows_are_the_files_circles, .timeout = 120)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_builtin("uniform:2000000", 0, &s, &err), QR_OK, "%s", err.msg);
    const char *path = qr_test_tmp("rows.npy");
    cr_assert_eq(qr_scene_write_npy(s, path, &err), QR_OK, "%s", err.msg);
    qr_scene_stream *sm = NULL;
    cr_assert_eq(qr_scene_stream_open(path, &sm, &err), QR_OK, "%s", err.msg);
    const int64_t firsts[] = {0, 0, 12345, 1999999};
    const int32_t counts[] = {2000000, 1, 1500000, 1};
    for (int k = 0; k < 4; k++) {
        if (k == 2) qr_scene_stream_prefetch(sm, firsts[k], counts[k]);
        float *rows = NULL;
        cr_assert_eq(qr_scene_stream_read_rows(sm, firsts[k], counts[k], &rows, &err), QR_OK, "%s",
                     err.msg);
        qr_scene *c = NULL;
        cr_assert_eq(qr_scene_stream_read(sm, firsts[k], counts[k], &c, &err), QR_OK, "%s", err.msg);
        const float *cols[7] = {c->x, c->y, c->z, c->r, c->red, c->green, c->blue};
        for (int32_t i = 0; i < counts[k]; i++)
            for (int j = 0; j < 7; j++)
                cr_assert_eq(bits(rows[7 * (size_t)i + j]), bits(cols[j][i]), "circle %lld field %d",
                             (long long)(firsts[k] + i), j);
        free(rows);
        qr_scene_destroy(c);
    }
    float *rows = (float *)1;
    cr_assert_eq(qr_scene_stream_read_rows(sm, 1999999, 2, &rows, &err), QR_ERR_INVALID);
    cr_assert_null(rows);
    /* cut to 1.8M circles while open: the third slice of a whole read */
    cr_assert_eq(truncate(path, 128 + 1800000L * 28), 0);
    cr_assert_eq(qr_scene_stream_read_rows(sm, 0, 2000000, &rows, &err), QR_ERR_PARSE);
    cr_assert_null(rows);
    cr_assert(strstr(err.msg, "truncated: circle 1800000 of 2000000 is missing"), "%s", err.msg);
    qr_scene_stream_close(sm);
    unlink(path);
    qr_scene_destroy(s);

    /* float64 rows, rounded */
    const double f8[2][7] = {{0.1, 0.3, 1.0 / 3.0, 0.05, 1.0, 0.0, 0.7},
                             {0.9, 0.6, 1e-50, 0.2, 0.2, 1e-45, 2.0 / 3.0}};
    unsigned char data[128], file[512];
    size_t len = build_npy(file, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 7), }\n",
                           -1, data, rows_le_f8(data, f8, 2));
    const char *p8 = write_file("rows_f8.npy", file, len);
    cr_assert_eq(qr_scene_stream_open(p8, &sm, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_stream_read_rows(sm, 0, 2, &rows, &err), QR_OK, "%s", err.msg);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 7; j++)
            cr_expect_eq(bits(rows[7 * i + j]), bits((float)f8[i][j]), "row %d field %d", i, j);
    free(rows);
    qr_scene_stream_close(sm);
}
