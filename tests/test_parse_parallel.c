/* test_parse_parallel.c — the parallel text reader against the serial one.
 *
 * The serial reader (stdio, strtof alone) is the oracle: on every built-in
 * scene's dump, on files cut into many small chunks, and on bad files with
 * errors anywhere (before the header, at chunk edges, two errors in
 * different chunks, too many or too few circles), the parallel reader with
 * 1, 2 and 8 threads must give the very same floats, or the very same
 * message. Its exact number fast path is checked against strtof directly.
 */
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>

#include "quadrender/rng.h"
#include "quadrender/scene.h"
#include "scene/io/scene_text.h"

static const int thread_counts[] = {1, 2, 8};
/* Default chunks (1 MiB), and chunks small enough that every file here is
 * cut into as many chunks as the threads allow. */
static const size_t chunk_sizes[] = {1 << 20, 1, 700};

/* A scratch file holding len bytes of data; its path. */
static const char *write_file(const char *name, const void *data, size_t len)
{
    const char *path = qr_test_tmp(name);
    qr_test_write_file(path, data, len);
    return path;
}

static void assert_same_scene(const qr_scene *a, const qr_scene *b, const char *what)
{
    cr_assert_eq(a->n, b->n, "%s: %d circles against %d", what, a->n, b->n);
    cr_assert_eq(a->block_floats, b->block_floats, "%s", what);
    cr_assert(memcmp(a->block, b->block, a->block_floats * sizeof(float)) == 0,
              "%s: the circles differ", what);
    cr_assert_str_eq(a->name, b->name, "%s", what);
    cr_assert_eq(a->shading, b->shading, "%s", what);
    cr_assert_eq(a->anim, b->anim, "%s", what);
}

/* Reads path serially and in parallel in every configuration; the results
 * (scene or status and message) must all be the same. Returns the serial
 * scene (or NULL) and its status. */
static qr_status read_every_way(const char *path, qr_text_kind kind, qr_scene **serial_out,
                                qr_error *serial_err)
{
    qr_scene *ref = NULL;
    qr_status ref_st = qr_scene_read_text(path, kind, 0, &ref, serial_err);
    cr_assert((ref_st == QR_OK) == (ref != NULL));
    for (size_t c = 0; c < sizeof chunk_sizes / sizeof chunk_sizes[0]; ++c)
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; ++t) {
            qr_scene *s = (qr_scene *)1;
            qr_error err;
            qr_status st = qr_scene_read_text_chunked(path, kind, thread_counts[t],
                                                      chunk_sizes[c], &s, &err);
            char what[1400];
            snprintf(what, sizeof what, "%s, %d threads, chunks of %zu bytes", path,
                     thread_counts[t], chunk_sizes[c]);
            cr_assert_eq(st, ref_st, "%s: status %d, serial %d (%s | %s)", what, (int)st,
                         (int)ref_st, st ? err.msg : "", ref_st ? serial_err->msg : "");
            if (st != QR_OK) {
                cr_assert_null(s, "%s: no scene on failure", what);
                cr_assert_str_eq(err.msg, serial_err->msg, "%s", what);
            } else {
                assert_same_scene(ref, s, what);
                qr_scene_destroy(s);
            }
        }
    *serial_out = ref;
    return ref_st;
}

/* ---- every built-in scene's dump ------------------------------------------- */

static void check_builtin_dump(const char *name)
{
    qr_scene *gen;
    qr_error err;
    cr_assert_eq(qr_scene_builtin(name, 0, &gen, &err), QR_OK, "%s", err.msg);
    char file[80];
    snprintf(file, sizeof file, "%s.circles", name);
    const char *path = qr_test_tmp(file);
    cr_assert_eq(qr_scene_write_circles(gen, path, &err), QR_OK, "%s", err.msg);
    qr_scene *s;
    cr_assert_eq(read_every_way(path, QR_TEXT_CIRCLES, &s, &err), QR_OK, "%s", err.msg);
    /* and the dump is the generated scene's circles, bit for bit */
    cr_assert_eq(s->n, gen->n);
    cr_assert(memcmp(s->block, gen->block, (size_t)gen->n * 7 * sizeof(float)) == 0, "%s", name);
    qr_scene_destroy(s);
    qr_scene_destroy(gen);
    unlink(path);
}

/* One test each (CTest finds tests by their literal Test(...) lines). */
Test(parse_parallel, dump_rgb) { check_builtin_dump("rgb"); }
Test(parse_parallel, dump_rgby) { check_builtin_dump("rgby"); }
Test(parse_parallel, dump_rand10k) { check_builtin_dump("rand10k"); }
Test(parse_parallel, dump_rand100k) { check_builtin_dump("rand100k"); }
Test(parse_parallel, dump_rand1M) { check_builtin_dump("rand1M"); }
Test(parse_parallel, dump_micro2M) { check_builtin_dump("micro2M"); }
Test(parse_parallel, dump_biglittle) { check_builtin_dump("biglittle"); }
Test(parse_parallel, dump_littlebig) { check_builtin_dump("littlebig"); }
Test(parse_parallel, dump_pattern) { check_builtin_dump("pattern"); }
Test(parse_parallel, dump_hypnosis) { check_builtin_dump("hypnosis"); }
Test(parse_parallel, dump_bouncingballs) { check_builtin_dump("bouncingballs"); }
Test(parse_parallel, dump_fireworks) { check_builtin_dump("fireworks"); }
Test(parse_parallel, dump_snow) { check_builtin_dump("snow"); }
Test(parse_parallel, dump_snowsingle) { check_builtin_dump("snowsingle"); }
Test(parse_parallel, dump_clusters) { check_builtin_dump("clusters"); }
Test(parse_parallel, dump_spiral) { check_builtin_dump("spiral"); }
Test(parse_parallel, dump_powerlaw) { check_builtin_dump("powerlaw"); }
Test(parse_parallel, dump_hotspot) { check_builtin_dump("hotspot"); }
Test(parse_parallel, dump_roads) { check_builtin_dump("roads"); }
Test(parse_parallel, dump_ring) { check_builtin_dump("ring"); }

Test(parse_parallel, every_builtin_has_a_dump_test)
{
    /* the list above names every built-in scene */
    int count = 0;
    qr_builtin_scenes(&count);
    cr_assert_eq(count, 20, "a built-in scene was added: give it a DUMP_TEST");
}

Test(parse_parallel, example_files)
{
    const char *files[] = {"scenes/three.circles", "scenes/target.circles",
                           "scenes/edge.circles"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        qr_scene *s;
        qr_error err;
        cr_assert_eq(read_every_way(qr_test_src(files[f]), QR_TEXT_CIRCLES, &s, &err), QR_OK,
                     "%s", err.msg);
        qr_scene_destroy(s);
    }
    qr_scene *s;
    qr_error err;
    cr_assert_eq(read_every_way(qr_test_src("scenes/example.par"), QR_TEXT_PAR, &s, &err), QR_OK,
                 "%s", err.msg);
    cr_assert_eq(s->shading, QR_SHADE_SNOW);
    qr_scene_destroy(s);
}

/* ---- generated files, good and bad ------------------------------------------- */

/* A text buffer that grows. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char line[8192];
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0 && (size_t)n < sizeof line);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, line, (size_t)n + 1);
    t->len += (size_t)n;
}

/* A .circles file of `n` circle lines with comments and blank lines mixed
 * in, odd spacing and CRLF endings; line `bad` (1-based circle number, 0 for
 * none) is replaced by `bad_line` and line `bad2` by `bad_line2`. */
static text make_file(int header_n, int n, int bad, const char *bad_line, int bad2,
                      const char *bad_line2, int final_newline)
{
    text t = {0};
    qr_rng g;
    qr_rng_seed(&g, 42);
    put(&t, "# generated\n\n");
    put(&t, "circles %d\n", header_n);
    for (int i = 1; i <= n; ++i) {
        int kind = qr_rng_next(&g) % 16;
        if (kind == 0)
            put(&t, "# comment %d\n", i);
        else if (kind == 1)
            put(&t, "   \t\n");
        const char *end = i == n && !final_newline ? "" : kind == 2 ? "\r\n" : "\n";
        if (i == bad) {
            put(&t, "%s%s", bad_line, end);
        } else if (i == bad2) {
            put(&t, "%s%s", bad_line2, end);
        } else {
            float v[7];
            for (int k = 0; k < 7; ++k)
                v[k] = qr_rng_float(&g);
            put(&t, kind == 3 ? "  %.9g\t%.3g %g %.9g %.2e  %a %.9g  " : "%.9g %.3g %g %.9g %.2e %a %.9g",
                (double)v[0], (double)v[1], (double)v[2] * 100, (double)v[3], (double)v[4],
                (double)v[5], (double)(v[6] * 1e-3f));
            put(&t, "%s", end);
        }
    }
    return t;
}

/* The file's read must agree every way; returns the serial status. */
static qr_status check_text(const char *name, const text *t, qr_text_kind kind, qr_error *err)
{
    const char *path = write_file(name, t->s, t->len);
    qr_scene *s;
    qr_status st = read_every_way(path, kind, &s, err);
    qr_scene_destroy(s);
    unlink(path);
    return st;
}

Test(parse_parallel, generated_files_agree)
{
    for (int nl = 0; nl < 2; ++nl) {
        text t = make_file(3000, 3000, 0, NULL, 0, NULL, nl);
        qr_error err;
        cr_assert_eq(check_text("gen.circles", &t, QR_TEXT_CIRCLES, &err), QR_OK, "%s", err.msg);
        free(t.s);
    }
}

/* The serial message for a bad file is `line:` + `what`; parallel agrees. */
static void expect_error(const char *name, const text *t, qr_text_kind kind, long line,
                         const char *what)
{
    qr_error err;
    qr_status st = check_text(name, t, kind, &err);
    cr_assert_neq(st, QR_OK, "%s: read fine", name);
    char where[64];
    snprintf(where, sizeof where, ":%ld: ", line);
    cr_assert_not_null(strstr(err.msg, where), "%s: '%s' should be at line %ld", name, err.msg,
                       line);
    cr_assert_not_null(strstr(err.msg, what), "%s: '%s' should say '%s'", name, err.msg, what);
}

/* Line number of circle line i in make_file's output: found by reading. */
static long line_of_circle(const text *t, int circle)
{
    long line = 0;
    int seen = -1; /* the header is circle 0's predecessor */
    const char *p = t->s, *end = t->s + t->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        line++;
        const char *q = p;
        while (q < p + len && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < p + len && *q != '#' && ++seen == circle)
            return line;
        p = nl ? nl + 1 : end;
    }
    return -1;
}

Test(parse_parallel, errors_anywhere_agree)
{
    const int n = 3000;
    const int where[] = {1, 2, 57, 1499, 1500, 2999, 3000};
    const struct {
        const char *line, *what;
    } bad[] = {
        {"0.5 0.5 0.5 0.1 1 1", "expected 7 numbers"},
        {"0.5 0.5 0.5 0.1 1 1 1 1", "expected 7 numbers"},
        {"0.5 0.5 0.5x 0.1 1 1 1", "z: '0.5x' is not a number"},
        {"0.5 nan 0.5 0.1 1 1 1", "y: 'nan' is not a finite number"},
        {"0.5 0.5 0.5 1e39 1 1 1", "r: '1e39' is not a finite number"},
        {"0.5 0.5 0.5 -0.25 1 1 1", "negative radius -0.25"},
        {"0.5 0.5 0.5 0.1 1 1 1 # trailing", "expected 7 numbers"},
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b)
        for (size_t w = 0; w < sizeof where / sizeof where[0]; ++w) {
            text t = make_file(n, n, where[w], bad[b].line, 0, NULL, 1);
            expect_error("bad.circles", &t, QR_TEXT_CIRCLES, line_of_circle(&t, where[w]),
                         bad[b].what);
            free(t.s);
        }
    /* two errors far apart: the first one wins */
    text t = make_file(n, n, 2900, "1 2 3", 100, "1 2 3 -4 5 6 7", 1);
    expect_error("two.circles", &t, QR_TEXT_CIRCLES, line_of_circle(&t, 100), "negative radius");
    free(t.s);
}

Test(parse_parallel, line_errors_agree)
{
    char long_line[QR_LINE_MAX + 2];
    memset(long_line, ' ', sizeof long_line - 1);
    long_line[sizeof long_line - 1] = '\0';
    long_line[0] = '1';
    text t = make_file(3000, 3000, 1700, long_line, 0, NULL, 1);
    expect_error("long.circles", &t, QR_TEXT_CIRCLES, line_of_circle(&t, 1700), "line too long");
    free(t.s);
    /* exactly QR_LINE_MAX bytes is fine (but is then a bad circle line) */
    long_line[QR_LINE_MAX] = '\0';
    t = make_file(3000, 3000, 1700, long_line, 0, NULL, 1);
    expect_error("max.circles", &t, QR_TEXT_CIRCLES, line_of_circle(&t, 1700),
                 "expected 7 numbers");
    free(t.s);

    t = make_file(3000, 3000, 2000, "0.5 0.5 0.5 0.1 1 1 1X", 0, NULL, 1);
    char *x = strstr(t.s, "1 1 1X");
    cr_assert_not_null(x);
    x[5] = '\0'; /* a NUL byte inside a line */
    expect_error("nul.circles", &t, QR_TEXT_CIRCLES, line_of_circle(&t, 2000), "NUL byte");
    free(t.s);
}

Test(parse_parallel, count_errors_agree)
{
    /* more circles than the header says: the first extra line */
    const int counts[] = {0, 1, 1499, 2999};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        text t = make_file(counts[c], 3000, 0, NULL, 0, NULL, c % 2);
        char what[96];
        snprintf(what, sizeof what, "more than the %d circles the header on line 3 announces",
                 counts[c]);
        expect_error("more.circles", &t, QR_TEXT_CIRCLES, line_of_circle(&t, counts[c] + 1),
                     what);
        free(t.s);
    }
    /* an extra circle before a bad line: the count error comes first */
    text t = make_file(1000, 3000, 2000, "x", 0, NULL, 1);
    expect_error("more_then_bad.circles", &t, QR_TEXT_CIRCLES, line_of_circle(&t, 1001),
                 "more than the 1000 circles");
    free(t.s);
    /* a bad line before the count is exceeded: the bad line comes first */
    t = make_file(2000, 3000, 1500, "x", 0, NULL, 1);
    expect_error("bad_then_more.circles", &t, QR_TEXT_CIRCLES, line_of_circle(&t, 1500),
                 "expected 7 numbers");
    free(t.s);
    /* fewer circles: at the last line (trailing comments count) */
    t = make_file(5000, 3000, 0, NULL, 0, NULL, 1);
    put(&t, "# the end\n\n");
    long last = 0;
    for (size_t i = 0; i < t.len; ++i)
        last += t.s[i] == '\n';
    expect_error("fewer.circles", &t, QR_TEXT_CIRCLES, last,
                 "unexpected end of file: expected 5000 circles, found 3000");
    free(t.s);
}

Test(parse_parallel, header_errors_agree)
{
    const struct {
        const char *data, *what;
        long line;
    } cases[] = {
        {"", "empty file", 1},
        {"# only\n# comments\n\n", "no header: only blank and comment lines", 3},
        {"\n\ncircle 5\n", "expected the header", 3},
        {"circles 5.0\n", "is not an integer", 1},
        {"circles -1\n", "is negative", 1},
        {"circles 300000000\n", "exceeds the limit", 1},
        {"# x\ncircles 2\n0 0 0 0 0 0 0\n", "unexpected end of file", 3},
        {"circles 1\n0 0 0 0 0 0 0\n0 0 0 0 0 0 0", "more than the 1 circles", 3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        text t = {0};
        put(&t, "%s", cases[c].data);
        if (!t.s)
            t.s = calloc(1, 1);
        expect_error("head.circles", &t, QR_TEXT_CIRCLES, cases[c].line, cases[c].what);
        free(t.s);
    }
}

Test(parse_parallel, par_files_agree)
{
    text t = {0};
    put(&t, "2500\n");
    qr_rng g;
    qr_rng_seed(&g, 9);
    for (int i = 0; i < 2500; ++i)
        put(&t, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", (double)qr_rng_float(&g),
            (double)qr_rng_float(&g), (double)qr_rng_float(&g), (double)qr_rng_float(&g),
            (double)qr_rng_float(&g), (double)qr_rng_float(&g), (double)qr_rng_float(&g) * 0.01);
    qr_error err;
    cr_assert_eq(check_text("good.par", &t, QR_TEXT_PAR, &err), QR_OK, "%s", err.msg);
    char *line = strstr(t.s + t.len / 2, "\n") + 1;
    long number = 1;
    for (const char *p = t.s; p < line; ++p)
        number += *p == '\n';
    line[0] = 'q';
    expect_error("bad.par", &t, QR_TEXT_PAR, number, "x: 'q");
    /* a negative radius is the last field of a .par line */
    line[0] = '0';
    char *r = strchr(line, '\n');
    while (r[-1] != ' ')
        --r;
    cr_assert_eq(r[0], '0');
    r[0] = '-'; /* "0.00123" becomes "-.00123" */
    expect_error("neg.par", &t, QR_TEXT_PAR, number, "negative radius");
    free(t.s);
}

/* ---- numbers ---------------------------------------------------------------- */

static uint32_t bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* The fast path (fast = 1) agrees with strtof on whether tok is a number,
 * and on its bits. */
static void expect_like_strtof(const char *tok)
{
    char *end;
    float want = strtof(tok, &end);
    int want_ok = end != tok && *end == '\0';
    float got = 0.0f;
    int ok = qr_text_parse_float(tok, 1, &got);
    cr_assert_eq(ok, want_ok, "'%s': accepted %d, strtof %d", tok, ok, want_ok);
    if (ok)
        cr_assert_eq(bits(got), bits(want), "'%s': %a, strtof %a", tok, (double)got, (double)want);
}

Test(parse_parallel, numbers_like_strtof)
{
    const char *tokens[] = {
        "0", "-0", "+0", "0.0", "-0.000", ".5", "5.", "-.5", "+.5e1", "1e5", "1E-5", "1e+05",
        "0.333333343", "1.00000002e+20", "3.40282347e+38", "3.4028235e38", "3.5e38", "1e39",
        "1.17549435e-38", "1e-38", "1e-45", "1.4e-45", "7e-46", "16777216", "16777217",
        "16777219", "33554433", "0.5000000298023223876953125", "0.50000002980232238769531",
        "1.000000059604644775390625", "1.0000000596046447753906249", "9007199254740993",
        "9007199254740992", "12345678901234567890", "0.1234567890123456789",
        "00000000000000000000001", "1e22", "1e23", "1e-22", "1e-23", "123456789e-30",
        ".", "-", "+", "e5", ".e5", "1e", "1e+", "1.5.2", "1e5.5", "--1", "1-", "0x1p-3",
        "0X1.8P1", "inf", "-Infinity", "nan", "NAN(123)", "1e00005", "1e-00005", "1e99999",
        "1,5", "1d5", "0.1f", "1e0000000000000000000001",
    };
    for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; ++i)
        expect_like_strtof(tokens[i]);

    /* random decimals of every shape, many near float midpoints */
    qr_rng g;
    qr_rng_seed(&g, 7);
    char tok[128];
    for (int i = 0; i < 300000; ++i) {
        int len = 0;
        int sign = qr_rng_next(&g) % 4;
        if (sign == 1)
            tok[len++] = '-';
        else if (sign == 2)
            tok[len++] = '+';
        int digits = 1 + qr_rng_next(&g) % 20;
        int point = qr_rng_next(&g) % (digits + 2) - 1; /* -1: none */
        for (int d = 0; d < digits; ++d) {
            if (d == point)
                tok[len++] = '.';
            tok[len++] = (char)('0' + (d == 0 && qr_rng_next(&g) % 3 == 0 ? 0
                                                                            : qr_rng_next(&g) % 10));
        }
        if (point == digits)
            tok[len++] = '.';
        if (qr_rng_next(&g) % 2)
            len += snprintf(tok + len, sizeof tok - (size_t)len, "e%d",
                            qr_rng_next(&g) % 100 - 50);
        tok[len] = '\0';
        expect_like_strtof(tok);
    }
    /* exact midpoints between neighbouring floats, and their neighbours */
    for (int i = 0; i < 20000; ++i) {
        float f = qr_rng_float(&g) * (float)(1 << (qr_rng_next(&g) % 20));
        float next = nextafterf(f, INFINITY);
        double mid = ((double)f + (double)next) / 2;
        snprintf(tok, sizeof tok, "%.17g", mid);
        expect_like_strtof(tok);
        snprintf(tok, sizeof tok, "%.9g", mid);
        expect_like_strtof(tok);
        snprintf(tok, sizeof tok, "%.16g", mid);
        expect_like_strtof(tok);
        snprintf(tok, sizeof tok, "%.60g", mid);
        expect_like_strtof(tok);
    }
}

/* A byte order mark is skipped at the start of the file only: at the start
 * of a later line (where a chunk of the parallel reader may begin) it is an
 * ordinary byte and the number it prefixes is not a number (found by the
 * fuzzer: the chunks used to skip it). */
Test(parse_parallel, byte_order_mark_only_at_the_start)
{
    const char later[] = "circles 3\n\xEF\xBB\xBF" "12 0.5 0.25 000012 0 0 1\n";
    qr_scene *s = NULL;
    qr_error err;
    cr_assert_neq(read_every_way(write_file("bom_later.circles", later, sizeof later - 1),
                                 QR_TEXT_CIRCLES, &s, &err),
                  QR_OK);
    cr_expect(strstr(err.msg, ":2: x:"), "%s", err.msg);
    const char first[] = "\xEF\xBB\xBF" "circles 1\n0.5 0.5 0 0.1 1 0 0\n";
    cr_assert_eq(read_every_way(write_file("bom_first.circles", first, sizeof first - 1),
                                QR_TEXT_CIRCLES, &s, &err),
                 QR_OK, "%s", err.msg);
    cr_expect_eq(s->n, 1);
    qr_scene_destroy(s);
}
