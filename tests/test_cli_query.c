/* test_cli_query.c — `quadrender query`, run as a user runs it
 * (support/cli_run.h): points and boxes written here as .npy files, the
 * answers read back from the .npy and .npz files the command writes and
 * held to the library's brute-force oracle (qr_query_points_brute,
 * qr_query_boxes_brute) in every mode; standard output; bad files, boxes,
 * options and paths, and nothing left behind by a failure; the report on
 * stderr; the GPU against the CPU where there is a GPU; the .npz writer's
 * ZIP64 records, and numpy reading what was written where it is installed. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <zlib.h>

#include "cli/cli.h"
#include "cli_expect.h"
#include "cli_run.h"
#include "quadrender/query.h"
#include "quadrender/scene.h"
#include "test_util.h"

static const char *const mode_names[] = {"top", "count", "all"};

/* ---- .npy and .npz, written and read here ----------------------------------------------- */

/* path: a .npy of format 1.0 with this dtype, shape text ("(3, 2)") and
 * order, and the data bytes as they are (little-endian on the machines the
 * tests run on). */
static void write_npy(const char *path, const char *descr, const char *shape, bool fortran,
                      const void *data, size_t bytes)
{
    char dict[256];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }",
                     descr, fortran ? "True" : "False", shape);
    size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64;
    unsigned char *buf = malloc(total + bytes + 1);
    cr_assert_not_null(buf);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)((total - 10) & 0xff);
    buf[9] = (unsigned char)((total - 10) >> 8);
    memcpy(buf + 10, dict, (size_t)n);
    memset(buf + 10 + n, ' ', total - 10 - (size_t)n - 1);
    buf[total - 1] = '\n';
    if (bytes)
        memcpy(buf + total, data, bytes);
    qr_test_write_file(path, buf, total + bytes);
    free(buf);
}

/* n rows of cols float32 values as a .npy file. */
static void write_rows(const char *path, const float *v, int64_t n, int cols)
{
    char shape[64];
    snprintf(shape, sizeof shape, "(%" PRId64 ", %d)", n, cols);
    write_npy(path, "<f4", shape, false, v, (size_t)n * (size_t)cols * sizeof(float));
}

/* The data of a .npy the CLI wrote, checked to be a 1-D array of n values
 * of descr laid out as numpy.save lays it out. */
static const unsigned char *npy_data(const unsigned char *b, size_t len, const char *descr,
                                     int64_t n, int itemsize)
{
    cr_assert(len >= 10 && memcmp(b, "\x93NUMPY\x01\x00", 8) == 0, "not a .npy 1.0");
    size_t hlen = (size_t)b[8] | (size_t)b[9] << 8;
    cr_assert_eq((10 + hlen) % 64, 0, "the data starts at %zu", 10 + hlen);
    cr_assert_eq(b[10 + hlen - 1], '\n');
    char want[128];
    snprintf(want, sizeof want,
             "{'descr': '%s', 'fortran_order': False, 'shape': (%" PRId64 ",), }", descr, n);
    cr_assert(strncmp((const char *)b + 10, want, strlen(want)) == 0, "header %.*s, want %s",
              (int)hlen, (const char *)b + 10, want);
    cr_assert_eq(len, 10 + hlen + (size_t)n * (size_t)itemsize, "%zu bytes", len);
    return b + 10 + hlen;
}

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int k = bytes - 1; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

/* A member of a .npz: its name and its bytes (a .npy). */
typedef struct zip_entry {
    char name[64];
    const unsigned char *data;
    size_t size;
} zip_entry;

/* The members of a stored ZIP, read from its central directory (through
 * ZIP64's records where a field says so), each checked against its local
 * header and its CRC-32. Returns how many (at most max). */
static int read_zip(const unsigned char *b, size_t len, zip_entry *out, int max, bool *zip64)
{
    cr_assert(len >= 22);
    const unsigned char *end = b + len - 22;
    cr_assert_eq(le(end, 4), 0x06054b50, "no end record (a comment?)");
    uint64_t count = le(end + 10, 2), dir_size = le(end + 12, 4), dir_at = le(end + 16, 4);
    *zip64 = dir_at == 0xFFFFFFFF;
    if (*zip64) {
        const unsigned char *loc = end - 20;
        cr_assert_eq(le(loc, 4), 0x07064b50, "no ZIP64 locator");
        const unsigned char *e64 = b + le(loc + 8, 8);
        cr_assert_eq(le(e64, 4), 0x06064b50, "no ZIP64 end record");
        count = le(e64 + 32, 8);
        dir_size = le(e64 + 40, 8);
        dir_at = le(e64 + 48, 8);
    }
    cr_assert(count <= (uint64_t)max && dir_at + dir_size <= len);
    const unsigned char *c = b + dir_at;
    for (uint64_t k = 0; k < count; k++) {
        cr_assert_eq(le(c, 4), 0x02014b50, "entry %d", (int)k);
        cr_assert_eq(le(c + 10, 2), 0, "stored");
        uint64_t crc = le(c + 16, 4), csize = le(c + 20, 4), size = le(c + 24, 4);
        size_t nlen = le(c + 28, 2), xlen = le(c + 30, 2), clen = le(c + 32, 2);
        uint64_t at = le(c + 42, 4);
        const unsigned char *x = c + 46 + nlen, *xend = x + xlen;
        while (x + 4 <= xend) {
            if (le(x, 2) == 1) {
                const unsigned char *f = x + 4;
                if (size == 0xFFFFFFFF) size = le(f, 8), f += 8;
                if (csize == 0xFFFFFFFF) csize = le(f, 8), f += 8;
                if (at == 0xFFFFFFFF) at = le(f, 8), f += 8;
            }
            x += 4 + le(x + 2, 2);
        }
        cr_assert_eq(size, csize);
        cr_assert(nlen < sizeof out[k].name);
        memcpy(out[k].name, c + 46, nlen);
        out[k].name[nlen] = '\0';
        const unsigned char *l = b + at;
        cr_assert_eq(le(l, 4), 0x04034b50, "%s: local header", out[k].name);
        cr_assert_eq(le(l + 26, 2), nlen);
        cr_assert(memcmp(l + 30, out[k].name, nlen) == 0);
        out[k].data = l + 30 + nlen + le(l + 28, 2);
        out[k].size = (size_t)size;
        cr_assert(out[k].data + size <= b + dir_at, "%s: past the directory", out[k].name);
        uLong got = crc32(crc32(0L, Z_NULL, 0), out[k].data, (uInt)size);
        cr_assert_eq(got, crc, "%s: CRC-32 %lx, the directory says %lx", out[k].name,
                     (unsigned long)got, (unsigned long)crc);
        c += 46 + nlen + xlen + clen;
    }
    return (int)count;
}

/* The CLI's answers, read back from its file's bytes. */
typedef struct cli_answers {
    char *bytes;
    int64_t n;
    const unsigned char *values;  /* top, count: n int32 */
    const unsigned char *offsets; /* all: n + 1 int64 */
    const unsigned char *ids;     /* all: int32 */
} cli_answers;

static cli_answers parse_answers(char *bytes, size_t len, qr_query_mode mode, int64_t n)
{
    cli_answers a = {bytes, n, NULL, NULL, NULL};
    const unsigned char *b = (const unsigned char *)bytes;
    if (mode != QR_QUERY_ALL) {
        a.values = npy_data(b, len, "<i4", n, 4);
        return a;
    }
    zip_entry e[2];
    bool zip64;
    cr_assert_eq(read_zip(b, len, e, 2, &zip64), 2);
    cr_expect(!zip64, "a small archive needs no ZIP64 records");
    cr_assert_str_eq(e[0].name, "offsets.npy");
    cr_assert_str_eq(e[1].name, "ids.npy");
    a.offsets = npy_data(e[0].data, e[0].size, "<i8", n + 1, 8);
    int64_t total = (int64_t)le(a.offsets + 8 * n, 8);
    a.ids = npy_data(e[1].data, e[1].size, "<i4", total, 4);
    return a;
}

static cli_answers read_answers(const char *path, qr_query_mode mode, int64_t n)
{
    size_t len;
    char *bytes = qr_test_read_file(path, &len);
    return parse_answers(bytes, len, mode, n);
}

/* The CLI's answers are the oracle's, query by query. */
static void expect_answers(const cli_answers *a, const qr_query_result *want, const char *what)
{
    cr_assert_eq(a->n, want->queries, "%s: %" PRId64 " answers", what, a->n);
    for (int64_t q = 0; q < a->n; q++) {
        if (want->mode != QR_QUERY_ALL) {
            int32_t got = (int32_t)le(a->values + 4 * q, 4);
            cr_assert_eq(got, want->values[q], "%s: query %" PRId64 ": %d, the oracle %d", what, q,
                         got, want->values[q]);
            continue;
        }
        int64_t b0 = (int64_t)le(a->offsets + 8 * q, 8);
        int64_t b1 = (int64_t)le(a->offsets + 8 * q + 8, 8);
        cr_assert_eq(b0, want->offsets[q], "%s: query %" PRId64 ": offset", what, q);
        cr_assert_eq(b1, want->offsets[q + 1], "%s: query %" PRId64 ": %" PRId64 " circles, the "
                     "oracle %" PRId64, what, q, b1 - b0, want->offsets[q + 1] - want->offsets[q]);
        for (int64_t i = b0; i < b1; i++)
            cr_assert_eq((int32_t)le(a->ids + 4 * i, 4), want->ids[i],
                         "%s: query %" PRId64 ": circle %" PRId64 " of its list", what, q, i - b0);
    }
}

/* ---- the queries --------------------------------------------------------------------------- */

static uint32_t lcg_state;

static float unit(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float)(lcg_state >> 8) / 16777216.0f;
}

/* Points of every kind: pixel centres of a 64 x 64 image, random ones a
 * little past the square, its corners and edges, NaNs and infinities. */
static float *make_points(int64_t *n)
{
    const int64_t cap = 64 * 64 + 600 + 16;
    float *p = malloc((size_t)cap * 2 * sizeof *p);
    cr_assert_not_null(p);
    int64_t k = 0;
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            p[2 * k] = ((float)x + 0.5f) / 64.0f;
            p[2 * k++ + 1] = ((float)y + 0.5f) / 64.0f;
        }
    lcg_state = 12345;
    for (int i = 0; i < 600; i++) {
        p[2 * k] = unit() * 1.2f - 0.1f;
        p[2 * k++ + 1] = unit() * 1.2f - 0.1f;
    }
    const float odd[][2] = {{0, 0},    {1, 1},       {0, 1},         {1, 0},
                            {0.5f, 0}, {0, 0.5f},    {NAN, 0.5f},    {0.5f, NAN},
                            {NAN, NAN}, {INFINITY, 0.5f}, {-INFINITY, 0.5f}, {-0.0f, 0.5f},
                            {0.5f, 1.0f + FLT_EPSILON}, {-FLT_TRUE_MIN, 0.5f}, {2, 2},
                            {0.5f, 0.5f}};
    for (int i = 0; i < 16; i++) {
        p[2 * k] = odd[i][0];
        p[2 * k++ + 1] = odd[i][1];
    }
    *n = k;
    return p;
}

/* Boxes of every kind: random small and large ones a little past the
 * square, points (zero width and height), lines, the whole square and
 * more, boxes wholly outside. */
static float *make_boxes(int64_t *n)
{
    const int64_t cap = 400 + 8;
    float *b = malloc((size_t)cap * 4 * sizeof *b);
    cr_assert_not_null(b);
    int64_t k = 0;
    lcg_state = 777;
    for (int i = 0; i < 400; i++, k++) {
        float x = unit() * 1.2f - 0.1f, y = unit() * 1.2f - 0.1f;
        float side = i % 4 == 0 ? 0.0f : i % 4 == 1 ? unit() * 0.01f : unit() * 0.3f;
        b[4 * k] = x;
        b[4 * k + 1] = y;
        b[4 * k + 2] = x + side;
        b[4 * k + 3] = y + (i % 8 == 2 ? 0.0f : side);
    }
    const float odd[][4] = {{0, 0, 1, 1},       {-1, -1, 2, 2},     {1.5f, 1.5f, 2, 2},
                            {-2, 0, -1, 1},     {0.5f, 0.5f, 0.5f, 0.5f}, {0, 0.5f, 1, 0.5f},
                            {-INFINITY, -INFINITY, INFINITY, INFINITY}, {1, 1, 1, 1}};
    for (int i = 0; i < 8; i++, k++)
        memcpy(b + 4 * k, odd[i], sizeof odd[i]);
    *n = k;
    return b;
}

static qr_scene *load_scene(const char *name)
{
    qr_scene *s = NULL;
    qr_error err;
    QR_CHECK(err, qr_scene_load(name, 0, &s, &err));
    return s;
}

static qr_query_result oracle(const qr_scene *s, bool points, const float *v, int64_t n,
                              qr_query_mode mode)
{
    qr_query_result r;
    qr_error err;
    memset(&r, 0, sizeof r);
    if (points)
        QR_CHECK(err, qr_query_points_brute(s, v, n, mode, &r, &err));
    else
        QR_CHECK(err, qr_query_boxes_brute(s, v, n, mode, &r, &err));
    return r;
}

/* Runs query over `scenes` in every mode with the queries of `make`, on
 * `device`, and holds each answer to the oracle. */
static void expect_oracle(bool points, const char *device)
{
    const char *scenes[] = {"rgb", "pattern", "rand10k", "uniform:2k", "biglittle"};
    int64_t n;
    float *v = points ? make_points(&n) : make_boxes(&n);
    const char *in = qr_test_tmp(points ? "points.npy" : "boxes.npy");
    char in_path[1200];
    snprintf(in_path, sizeof in_path, "%s", in);
    write_rows(in_path, v, n, points ? 2 : 4);
    for (size_t s = 0; s < sizeof scenes / sizeof scenes[0]; s++) {
        qr_scene *scene = load_scene(scenes[s]);
        for (int m = 0; m < 3; m++) {
            const char *out = qr_test_tmp(m == QR_QUERY_ALL ? "answers.npz" : "answers.npy");
            cr_assert_eq(RUN("query", scenes[s], points ? "--points" : "--boxes", in_path,
                             "--mode", mode_names[m], "--device", device, "-o", out),
                         0, "%s %s: %s", scenes[s], mode_names[m], R.err);
            qr_query_result want = oracle(scene, points, v, n, (qr_query_mode)m);
            cli_answers got = read_answers(out, (qr_query_mode)m, n);
            char what[96];
            snprintf(what, sizeof what, "%s, %s, %s", scenes[s], points ? "points" : "boxes",
                     mode_names[m]);
            expect_answers(&got, &want, what);
            free(got.bytes);
            qr_query_result_free(&want);
            unlink(out);
        }
        qr_scene_destroy(scene);
    }
    free(v);
}

Test(cli_query, points_match_the_oracle, .timeout = 300)
{
    expect_oracle(true, "cpu");
}

Test(cli_query, boxes_match_the_oracle, .timeout = 300)
{
    expect_oracle(false, "cpu");
}

/* --device cpu-reference answers without an index, every circle against
 * every query (as Python's Index(device="cpu-reference")). */
Test(cli_query, reference_matches_the_oracle, .timeout = 300)
{
    expect_oracle(true, "cpu-reference");
    expect_oracle(false, "cpu-reference");
}

Test(cli_query, gpu_matches_the_oracle, .timeout = 300)
{
    QR_REQUIRE_GPU();
    expect_oracle(true, "gpu");
    expect_oracle(false, "gpu");
}

/* float64 points are float32 points, rounded. */
Test(cli_query, float64_is_rounded_to_float32)
{
    int64_t n;
    float *v = make_points(&n);
    double *d = malloc((size_t)n * 2 * sizeof *d);
    cr_assert_not_null(d);
    for (int64_t i = 0; i < 2 * n; i++)
        d[i] = (double)v[i] * (1.0 + 1e-12); /* rounds back to v[i] */
    const char *f4 = qr_test_tmp("p4.npy"), *f8 = qr_test_tmp("p8.npy");
    const char *a = qr_test_tmp("a4.npz"), *b = qr_test_tmp("a8.npz");
    write_rows(f4, v, n, 2);
    char shape[64];
    snprintf(shape, sizeof shape, "(%" PRId64 ", 2)", n);
    write_npy(f8, "<f8", shape, false, d, (size_t)n * 2 * sizeof *d);
    cr_assert_eq(RUN("query", "rand10k", "--points", f4, "--mode", "all", "-o", a), 0, "%s", R.err);
    cr_assert_eq(RUN("query", "rand10k", "--points", f8, "--mode", "all", "-o", b), 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b), "float64 points answer otherwise");
    free(v);
    free(d);
}

/* -o - writes the file's bytes to standard output, and nothing else. */
Test(cli_query, stdout_gets_the_files_bytes)
{
    int64_t n;
    float *v = make_points(&n);
    const char *in = qr_test_tmp("pts.npy");
    write_rows(in, v, n, 2);
    free(v);
    for (int m = 0; m < 3; m++) {
        const char *out = qr_test_tmp(m == QR_QUERY_ALL ? "o.npz" : "o.npy");
        cr_assert_eq(RUN("query", "pattern", "--points", in, "--mode", mode_names[m], "-o", out),
                     0, "%s", R.err);
        cr_assert_eq(RUN("query", "pattern", "--points", in, "--mode", mode_names[m], "-o", "-"),
                     0, "%s", R.err);
        cr_expect(qr_test_holds(out, R.out, R.out_len), "%s: stdout differs from the file",
                  mode_names[m]);
        unlink(out);
    }
}

/* The answers are the same bytes whatever the resolution and the threads. */
Test(cli_query, answers_do_not_depend_on_resolution_or_threads, .timeout = 120)
{
    int64_t n;
    float *v = make_boxes(&n);
    const char *in = qr_test_tmp("bx.npy");
    write_rows(in, v, n, 4);
    free(v);
    const char *base = qr_test_tmp("base.npz"), *other = qr_test_tmp("other.npz");
    cr_assert_eq(RUN("query", "rand10k", "--boxes", in, "--mode", "all", "-o", base), 0, "%s",
                 R.err);
    const char *const runs[][4] = {{"--resolution", "16", "--threads", "1"},
                                   {"--resolution", "2048", "--threads", "2"},
                                   {"--resolution", "0", "--threads", "3"}};
    for (size_t k = 0; k < 3; k++) {
        cr_assert_eq(RUN("query", "rand10k", "--boxes", in, "--mode", "all", runs[k][0], runs[k][1],
                         runs[k][2], runs[k][3], "-o", other),
                     0, "%s", R.err);
        cr_expect(qr_test_same_bytes(base, other), "%s %s %s %s: other answers", runs[k][0],
                  runs[k][1], runs[k][2], runs[k][3]);
    }
}

/* --frame K asks the circles as frame K renders them: the answers equal
 * the oracle's on the scene stepped there, and the query of the state
 * `dump --frame K` writes; a frame past the end of the animation the same
 * way render refuses it. */
Test(cli_query, frame_asks_the_animated_state, .timeout = 120)
{
    int64_t n;
    float *v = make_points(&n);
    const char *in = qr_test_tmp("fr.npy");
    write_rows(in, v, n, 2);
    const char *out = qr_test_tmp("fr_all.npz"), *state = qr_test_tmp("fr_state.npy");
    const char *from_state = qr_test_tmp("fr_state_all.npz");
    cr_assert_eq(RUN("query", "hypnosis", "--frame", "7", "--points", in, "--mode", "all",
                     "--device", "cpu", "-o", out),
                 0, "%s", R.err);
    qr_scene *s = load_scene("hypnosis");
    qr_error err;
    QR_CHECK(err, qr_scene_seek_frame(s, 7, &err));
    qr_query_result want = oracle(s, true, v, n, QR_QUERY_ALL);
    cli_answers a = read_answers(out, QR_QUERY_ALL, n);
    expect_answers(&a, &want, "hypnosis --frame 7");
    free(a.bytes);
    cr_assert_eq(RUN("dump", "hypnosis", "--frame", "7", "-o", state), 0, "%s", R.err);
    cr_assert_eq(RUN("query", state, "--points", in, "--mode", "all", "--device", "cpu", "-o",
                     from_state),
                 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(out, from_state), "--frame 7 and dump --frame 7 answer apart");
    cr_assert_eq(RUN("query", "hypnosis", "--frame", "-1", "--points", in, "-o", out), 2, "%s", R.err);
    qr_query_result_free(&want);
    qr_scene_destroy(s);
    free(v);
}

/* No queries: empty answers, and for all one offset, 0. */
Test(cli_query, empty_batch)
{
    const char *in = qr_test_tmp("none.npy");
    write_npy(in, "<f4", "(0, 2)", false, NULL, 0);
    const char *top = qr_test_tmp("none.npy.out.npy"), *all = qr_test_tmp("none.npz");
    cr_assert_eq(RUN("query", "rgb", "--points", in, "-o", top), 0, "%s", R.err);
    cli_answers a = read_answers(top, QR_QUERY_TOP, 0);
    free(a.bytes);
    cr_assert_eq(RUN("query", "rgb", "--points", in, "--mode", "all", "-o", all), 0, "%s", R.err);
    a = read_answers(all, QR_QUERY_ALL, 0);
    cr_expect_eq(le(a.offsets, 8), 0);
    free(a.bytes);
}

/* ---- bad input, bad command lines ---------------------------------------------------------- */

/* A bad query file: exit 3, one line naming it and saying `what`, and
 * nothing in the output's folder. */
static void expect_bad_file(const char *flag, const char *file, const char *what)
{
    const char *dir = qr_test_tmp_dir("bad-query");
    char out[1200];
    snprintf(out, sizeof out, "%s", qr_test_join(dir, "out.npy"));
    cr_expect_eq(RUN("query", "rgb", flag, file, "-o", out), 3, "%s: %s", file, R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);
    char prefix[1300];
    snprintf(prefix, sizeof prefix, "quadrender: %s: ", file);
    cr_expect_eq(strncmp(R.err, prefix, strlen(prefix)), 0, "'%s' does not start '%s'", R.err,
                 prefix);
    cr_expect(strstr(R.err, what), "'%s' does not say '%s'", R.err, what);
    cr_expect_str_eq(R.out, "");
    cli_expect_entries(dir, 0);
}

Test(cli_query, bad_query_files_are_exit_3)
{
    const float six[6] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f};
    const struct {
        const char *name, *descr, *shape;
        bool fortran;
        const char *flag, *what;
    } bad[] = {
        {"cols3.npy", "<f4", "(2, 3)", false, "--points",
         "shape (2, 3) is not supported: expected (N, 2), rows of x y"},
        {"cols3.npy", "<f4", "(2, 3)", false, "--boxes", "expected (N, 4), rows of x0 y0 x1 y1"},
        {"flat.npy", "<f4", "(6,)", false, "--points", "shape (6,) is not supported"},
        {"i4.npy", "<i4", "(3, 2)", false, "--points",
         "dtype '<i4' is not supported: expected '<f4' or '<f8'"},
        {"be.npy", ">f4", "(3, 2)", false, "--points", "dtype '>f4'"},
        {"fortran.npy", "<f4", "(3, 2)", true, "--points", "fortran_order True"},
        {"short.npy", "<f4", "(4, 2)", false, "--points",
         "truncated: shape (4, 2) needs 32 bytes of data, the file has 24"},
        {"long.npy", "<f4", "(1, 2)", false, "--points",
         "16 bytes follow the data of shape (1, 2)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char f[1200];
        snprintf(f, sizeof f, "%s", qr_test_tmp(bad[k].name));
        write_npy(f, bad[k].descr, bad[k].shape, bad[k].fortran, six, sizeof six);
        expect_bad_file(bad[k].flag, f, bad[k].what);
    }
    const char *f = qr_test_tmp("text.npy");
    qr_test_write_text(f, "0.5 0.5\n");
    expect_bad_file("--points", f, "not a NumPy .npy file");
    f = qr_test_tmp("empty.npy");
    qr_test_write_file(f, "", 0);
    expect_bad_file("--points", f, "empty file");
    expect_bad_file("--points", qr_test_tmp("missing.npy"), "No such file");
    expect_bad_file("--boxes", qr_test_tmp_dir("a-folder"), "is a directory");
}

/* A box with min > max or a NaN: the library's message, naming the file
 * and the box, exit 3, before any work. */
Test(cli_query, bad_box_is_exit_3)
{
    const float boxes[3][4] = {{0, 0, 1, 1}, {0.2f, 0.5f, 0.1f, 0.6f}, {0, 0, NAN, 1}};
    const char *f = qr_test_tmp("badbox.npy");
    write_rows(f, &boxes[0][0], 3, 4);
    qr_error want;
    cr_assert_neq(qr_query_check_boxes(&boxes[0][0], 3, &want), QR_OK);
    cr_assert(strstr(want.msg, "box 1"), "%s", want.msg);
    expect_bad_file("--boxes", f, want.msg);
    write_rows(f, &boxes[2][0], 1, 4);
    cr_assert_neq(qr_query_check_boxes(&boxes[2][0], 1, &want), QR_OK);
    expect_bad_file("--boxes", f, want.msg);
    /* a NaN point is no error: it meets nothing */
    const float nan_point[2] = {NAN, 0.5f};
    write_rows(f, nan_point, 1, 2);
    const char *out = qr_test_tmp("nan.npy");
    cr_assert_eq(RUN("query", "rgb", "--points", f, "-o", out), 0, "%s", R.err);
    cli_answers a = read_answers(out, QR_QUERY_TOP, 1);
    cr_expect_eq((int32_t)le(a.values, 4), -1);
    free(a.bytes);
}

/* The library's message for a bad --mode or --resolution. */
static const char *library_message(bool mode, const char *text)
{
    static char msg[QR_ERROR_MSG_MAX];
    qr_error err;
    qr_query_mode m;
    int32_t r;
    qr_status st = mode ? qr_query_check_mode("--mode", text, &m, &err)
                        : qr_query_check_resolution("--resolution", text, &r, &err);
    cr_assert_neq(st, QR_OK, "%s is good", text);
    snprintf(msg, sizeof msg, "%s", err.msg);
    return msg;
}

Test(cli_query, usage_errors_are_exit_2)
{
    const char *pts = qr_test_tmp("u.npy");
    const float p[2] = {0.5f, 0.5f};
    write_rows(pts, p, 1, 2);
    char points[1300], boxes[1300];
    snprintf(points, sizeof points, "--points=%s", pts);
    snprintf(boxes, sizeof boxes, "--boxes=%s", pts);
    const char *dir = qr_test_tmp_dir("usage-query");
    char npy[1200], npz[1200];
    snprintf(npy, sizeof npy, "%s", qr_test_join(dir, "a.npy"));
    snprintf(npz, sizeof npz, "%s", qr_test_join(dir, "a.npz"));
    char mode_msg[QR_ERROR_MSG_MAX], res_msg[QR_ERROR_MSG_MAX], res0_msg[QR_ERROR_MSG_MAX];
    snprintf(mode_msg, sizeof mode_msg, "%s", library_message(true, "first"));
    snprintf(res_msg, sizeof res_msg, "%s", library_message(false, "100"));
    snprintf(res0_msg, sizeof res0_msg, "%s", library_message(false, "65536"));
    const cli_usage_case cases[] = {
        {{"query", "rgb", points, "--mode", "first", "-o", npy}, mode_msg},
        {{"query", "rgb", points, "--resolution", "100", "-o", npy}, res_msg},
        {{"query", "rgb", points, "--resolution", "65536", "-o", npy}, res0_msg},
        {{"query", "rgb", points, "--threads", "2000", "-o", npy}, "--threads"},
        {{"query", "rgb", points, "--device", "cpu-ref", "-o", npy}, "--device: expected"},
        {{"query", "rgb", points, boxes, "-o", npy}, "--boxes"},
        {{"query", "rgb", "-o", npy}, "--points"},
        {{"query", "rgb", points}, "-o"},
        {{"query", points, "-o", npy}, "SCENE"},
        {{"query", "rgb", points, "-o", npz}, ".npy"},
        {{"query", "rgb", points, "--mode", "count", "-o", npz}, ".npy"},
        {{"query", "rgb", points, "--mode", "all", "-o", npy}, ".npz"},
        {{"query", "rgb", points, "--mode", "all", "-o", "a.npz.txt"}, ".npz"},
        {{"query", "rgb", "--pionts", pts, "-o", npy}, "did you mean '--points'?"},
    };
    cli_expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
    cli_expect_entries(dir, 0);
    /* the command itself, misspelt */
    cr_assert_eq(RUN("qeury", "rgb"), 2);
    cr_expect(strstr(R.err, "did you mean 'query'?"), "%s", R.err);
}

/* Output errors: exit 4, before any work, nothing written; -n keeps an
 * existing file. */
Test(cli_query, output_errors_are_exit_4)
{
    const char *pts = qr_test_tmp("o4.npy");
    const float p[2] = {0.5f, 0.5f};
    write_rows(pts, p, 1, 2);
    char pts_path[1200];
    snprintf(pts_path, sizeof pts_path, "%s", pts);
    cr_expect_eq(RUN("query", "rgb", "--points", pts_path, "-o", qr_test_tmp("no/such/dir/a.npy")),
                 4, "%s", R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);
    const char *dir = qr_test_tmp_dir("clobber-query");
    char out[1200];
    snprintf(out, sizeof out, "%s", qr_test_join(dir, "keep.npy"));
    qr_test_write_text(out, "old");
    cr_expect_eq(RUN("query", "rgb", "--points", pts_path, "-n", "-o", out), 4, "%s", R.err);
    cr_expect(qr_test_holds(out, "old", 3), "-n replaced the file");
    cr_expect_eq(RUN("query", "rgb", "--points", pts_path, "-o", out), 0, "%s", R.err);
    cli_expect_entries(dir, 1);
    cli_answers a = read_answers(out, QR_QUERY_TOP, 1);
    free(a.bytes);
    if (access("/dev/full", W_OK) == 0) {
        cr_expect_eq(RUN("query", "rgb", "--points", pts_path, "-o", "/dev/full"), 4, "%s", R.err);
        cr_expect(strstr(R.err, "/dev/full"), "%s", R.err);
    }
}

/* --device gpu without a GPU: exit 5, the reason, nothing written. */
Test(cli_query, device_gpu_without_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    const char *pts = qr_test_tmp("g.npy");
    const float p[2] = {0.5f, 0.5f};
    write_rows(pts, p, 1, 2);
    const char *out = qr_test_tmp("g-out.npy");
    cr_expect_eq(RUN("query", "rgb", "--points", pts, "--device", "gpu", "-o", out), 5, "%s",
                 R.err);
    cr_expect(strstr(R.err, "--device gpu") && strstr(R.err, err.msg), "%s", R.err);
    cr_expect(!qr_test_exists(out));
    /* auto falls back to the CPU, and -v says why */
    cr_expect_eq(RUN("query", "rgb", "--points", pts, "-v", "-o", out), 0, "%s", R.err);
    cr_expect(strstr(R.err, "no usable GPU") && strstr(R.err, "on the CPU"), "%s", R.err);
}

/* ---- what it says --------------------------------------------------------------------------- */

Test(cli_query, reports_one_line_or_more_or_nothing)
{
    const char *pts = qr_test_tmp("r.npy");
    const float p[4] = {0.5f, 0.5f, 0.25f, 0.75f};
    write_rows(pts, p, 2, 2);
    char pts_path[1200];
    snprintf(pts_path, sizeof pts_path, "%s", pts);
    const char *out = qr_test_tmp("r-out.npy");
    cr_assert_eq(RUN("query", "rand10k", "--points", pts_path, "--mode", "count", "--device", "cpu",
                     "--resolution", "64", "-o", out),
                 0, "%s", R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "one line: %s", R.err);
    cr_expect(strstr(R.err, "rand10k (10000 circles)") && strstr(R.err, "2 points") &&
                  strstr(R.err, "mode count") && strstr(R.err, "the CPU") &&
                  strstr(R.err, "resolution 64") && strstr(R.err, " leaves") &&
                  strstr(R.err, " pairs") && strstr(R.err, " ms") && strstr(R.err, out),
              "%s", R.err);
    cr_expect_str_eq(R.out, "");
    cr_assert_eq(RUN("query", "rand10k", "--points", pts_path, "-q", "-o", out), 0, "%s", R.err);
    cr_expect_eq(R.err_len, 0, "-q: %s", R.err);
    cr_assert_eq(RUN("query", "rand10k", "--points", pts_path, "-v", "--device", "cpu", "-o", out),
                 0, "%s", R.err);
    cr_expect(cli_count_lines(R.err) > 2, "-v: %s", R.err);
    cr_expect(strstr(R.err, "chosen from the scene") && strstr(R.err, "answers: "), "%s", R.err);
}

/* ---- the .npz writer ---------------------------------------------------------------------- */

/* With ZIP64's records everywhere (what a member or an archive of 4 GiB
 * takes), the archive reads the same. */
Test(cli_query, npz_with_zip64_records)
{
    int64_t off[4] = {0, 2, 2, 5};
    int32_t ids[5] = {7, 9, -1, 3, 2147483647};
    const cli_array a[2] = {{"offsets", "<i8", 8, 4, off}, {"ids", "<i4", 4, 5, ids}};
    const char *plain = qr_test_tmp("plain.npz"), *big = qr_test_tmp("zip64.npz");
    qr_error err;
    QR_CHECK(err, cli_write_npz(plain, a, 2, false, &err));
    QR_CHECK(err, cli_write_npz(big, a, 2, true, &err));
    const char *paths[2] = {plain, big};
    for (int k = 0; k < 2; k++) {
        size_t len;
        char *bytes = qr_test_read_file(paths[k], &len);
        zip_entry e[2];
        bool zip64;
        cr_assert_eq(read_zip((const unsigned char *)bytes, len, e, 2, &zip64), 2);
        cr_expect_eq(zip64, k == 1);
        const unsigned char *o = npy_data(e[0].data, e[0].size, "<i8", 4, 8);
        const unsigned char *i = npy_data(e[1].data, e[1].size, "<i4", 5, 4);
        for (int q = 0; q < 4; q++)
            cr_expect_eq((int64_t)le(o + 8 * q, 8), off[q]);
        for (int q = 0; q < 5; q++)
            cr_expect_eq((int32_t)le(i + 4 * q, 4), ids[q]);
        free(bytes);
    }
}

/* numpy.load reads what query writes, both kinds of .npz included (where
 * python3 has numpy; elsewhere the readers above are the check). */
Test(cli_query, numpy_reads_the_output)
{
    if (qr_cli_run(&(qr_cli_opts){.program = "/usr/bin/env"},
                   QR_ARGS("python3", "-c", "import numpy"), &R) != 0)
        cr_skip_test("no python3 with numpy");
    const char *pts = qr_test_tmp("np.npy");
    const float p[6] = {0.5f, 0.5f, 0.25f, 0.75f, 2.0f, 2.0f};
    write_rows(pts, p, 3, 2);
    char pts_path[1200];
    snprintf(pts_path, sizeof pts_path, "%s", pts);
    char top[1200], all[1200], z64[1200];
    snprintf(top, sizeof top, "%s", qr_test_tmp("np-top.npy"));
    snprintf(all, sizeof all, "%s", qr_test_tmp("np-all.npz"));
    snprintf(z64, sizeof z64, "%s", qr_test_tmp("np-z64.npz"));
    cr_assert_eq(RUN("query", "rand10k", "--points", pts_path, "-o", top), 0, "%s", R.err);
    cr_assert_eq(RUN("query", "rand10k", "--points", pts_path, "--mode", "all", "-o", all), 0,
                 "%s", R.err);
    int64_t off[3] = {0, 1, 1};
    int32_t ids[1] = {42};
    const cli_array a[2] = {{"offsets", "<i8", 8, 3, off}, {"ids", "<i4", 4, 1, ids}};
    qr_error err;
    QR_CHECK(err, cli_write_npz(z64, a, 2, true, &err));
    static const char script[] =
        "import sys, numpy as np\n"
        "t = np.load(sys.argv[1]); a = np.load(sys.argv[2]); z = np.load(sys.argv[3])\n"
        "assert t.dtype == np.int32 and t.shape == (3,) and t[2] == -1, t\n"
        "o, i = a['offsets'], a['ids']\n"
        "assert o.dtype == np.int64 and o.shape == (4,) and i.dtype == np.int32\n"
        "assert sorted(a.files) == ['ids', 'offsets'] and o[-1] == len(i)\n"
        "for q in range(3):\n"
        "    l = i[o[q]:o[q + 1]]\n"
        "    assert (len(l) == 0 and t[q] == -1) or l[-1] == t[q], (q, l, t)\n"
        "assert list(z['offsets']) == [0, 1, 1] and list(z['ids']) == [42]\n"
        "print('ok')\n";
    cr_assert_eq(qr_cli_run(&(qr_cli_opts){.program = "/usr/bin/env"},
                            QR_ARGS("python3", "-c", script, top, all, z64), &R),
                 0, "%s%s", R.out, R.err);
    cr_expect_str_eq(R.out, "ok\n");
}
