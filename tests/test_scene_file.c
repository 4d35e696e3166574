/* test_scene_file.c — .circles reading and writing, .par reading: bit-exact
 * round trips, the writer's exact bytes, atomic writes, and every kind of
 * bad input answered with "file:line: what is wrong" (never a crash). */
#include "test_util.h"

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>

#include "quadrender/scene.h"

/* ---- helpers ----------------------------------------------------------- */

/* Writes a scratch file named `name`; returns its path. */
static const char *write_file(const char *name, const char *data, size_t len)
{
    const char *path = qr_test_tmp(name);
    qr_test_write_file(path, data, len);
    return path;
}

static const char *write_text(const char *name, const char *text)
{
    return write_file(name, text, strlen(text));
}

/* No "<dir>/.<base>.tmp-*" file left next to path. */
static void assert_no_temp(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : path;
    char prefix[1100];
    snprintf(prefix, sizeof prefix, ".%s.tmp-", base);
    if (slash)
        *slash = '\0';
    DIR *d = opendir(slash ? dir : ".");
    if (!d)
        return; /* no folder, no temporary file */
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        cr_assert(strncmp(e->d_name, prefix, strlen(prefix)) != 0, "temporary file %s left",
                  e->d_name);
    closedir(d);
}

static uint32_t bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static void assert_same_circles(const qr_scene *a, const qr_scene *b)
{
    cr_assert_eq(a->n, b->n);
    const float *fa[7] = {a->x, a->y, a->z, a->r, a->red, a->green, a->blue};
    const float *fb[7] = {b->x, b->y, b->z, b->r, b->red, b->green, b->blue};
    for (int f = 0; f < 7; ++f)
        for (int32_t i = 0; i < a->n; ++i)
            if (bits(fa[f][i]) != bits(fb[f][i]))
                cr_assert_fail("circle %d field %d: %a != %a", i, f, (double)fa[f][i],
                               (double)fb[f][i]);
}

/* Reading `text` (as file `name`) fails with `status`, and the message is
 * "<path>:<line>: ..." containing `what`. */
static void expect_error_data(const char *name, const char *data, size_t len, int par,
                              qr_status status, long line, const char *what)
{
    const char *path = write_file(name, data, len);
    qr_scene *s = (qr_scene *)1;
    qr_error err;
    qr_status st = par ? qr_scene_read_par(path, &s, &err) : qr_scene_read_circles(path, &s, &err);
    cr_assert_eq(st, status, "%s: status %d (%s)", name, (int)st, st ? err.msg : "");
    cr_assert_null(s, "%s: no scene on failure", name);
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%s:%ld: ", path, line);
    cr_assert(strncmp(err.msg, prefix, strlen(prefix)) == 0, "%s: message '%s' should start '%s'",
              name, err.msg, prefix);
    cr_assert_not_null(strstr(err.msg, what), "%s: message '%s' should say '%s'", name, err.msg,
                       what);
    cr_assert_null(strchr(err.msg, '\n'), "one line");
    unlink(path);
}

static void expect_error(const char *name, const char *text, long line, const char *what)
{
    expect_error_data(name, text, strlen(text), 0, QR_ERR_PARSE, line, what);
}

static void expect_par_error(const char *name, const char *text, long line, const char *what)
{
    expect_error_data(name, text, strlen(text), 1, QR_ERR_PARSE, line, what);
}

static qr_scene *read_ok(const char *path)
{
    qr_scene *s = NULL;
    qr_error err;
    qr_status st = qr_scene_read_circles(path, &s, &err);
    cr_assert_eq(st, QR_OK, "%s", err.msg);
    return s;
}

static qr_scene *make_scene(int32_t n, const float (*v)[7])
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_create(n, QR_ANIM_NONE, &s, &err), QR_OK);
    for (int32_t i = 0; i < n; ++i) {
        s->x[i] = v[i][0];
        s->y[i] = v[i][1];
        s->z[i] = v[i][2];
        s->r[i] = v[i][3];
        s->red[i] = v[i][4];
        s->green[i] = v[i][5];
        s->blue[i] = v[i][6];
    }
    return s;
}

/* ---- round trips ------------------------------------------------------ */

Test(scene_file, round_trip_builtin)
{
    const char *names[] = {"rand10k", "rand100k", "pattern", "snowsingle"};
    for (int k = 0; k < 4; ++k) {
        qr_scene *s, *back;
        qr_error err;
        cr_assert_eq(qr_scene_builtin(names[k], 0, &s, &err), QR_OK);
        const char *path = qr_test_tmp("rt.circles");
        cr_assert_eq(qr_scene_write_circles(s, path, &err), QR_OK, "%s", err.msg);
        back = read_ok(path);
        assert_same_circles(s, back);
        cr_assert_eq(back->anim, QR_ANIM_NONE);
        cr_assert_eq(back->shading, QR_SHADE_FLAT);
        cr_assert_eq(back->block_floats, (size_t)back->n * 7);
        cr_assert_not_null(strstr(back->name, "rt"));
        cr_assert_null(strchr(back->name, '.'));
        qr_scene_destroy(s);
        qr_scene_destroy(back);
        unlink(path);
    }
}

Test(scene_file, round_trip_awkward_values)
{
    const float v[][7] = {
        {1e-30f, -0.0f, 3.4e38f, 0.0f, -1e10f, 0.1f, 1.0f / 3.0f},
        {FLT_MAX, -FLT_MAX, FLT_MIN, FLT_TRUE_MIN, 1.17549421e-38f /* largest denormal */,
         -FLT_TRUE_MIN, 2.5e-42f},
        {0.856839299f, 0.19919768f, 0.999993563f, 0.0224882383f, 16777217.0f, -123456.789f,
         9.99999944e-41f},
        {1.0f, 0.5f, 0.25f, FLT_MAX, 100.0f, -3.0f, 7e-45f},
    };
    qr_scene *s = make_scene(4, v);
    qr_error err;
    const char *path = qr_test_tmp("awkward.circles");
    cr_assert_eq(qr_scene_write_circles(s, path, &err), QR_OK, "%s", err.msg);
    qr_scene *back = read_ok(path);
    assert_same_circles(s, back);
    cr_assert(signbit(back->y[0]), "-0 stays -0");
    qr_scene_destroy(s);
    qr_scene_destroy(back);
    unlink(path);
}

Test(scene_file, writer_exact_bytes)
{
    const float v[2][7] = {{0.5f, 0.25f, 1.0f, 0.1f, 1.0f, 0.0f, 0.5f},
                           {-0.0f, 1e-30f, 0.333333343f, 2.0f, 0.2f, 0.3f, 1e20f}};
    qr_scene *s = make_scene(2, v);
    qr_error err;
    const char *path = qr_test_tmp("two.circles");
    cr_assert_eq(qr_scene_write_circles(s, path, &err), QR_OK, "%s", err.msg);
    size_t len;
    char *text = qr_test_read_file(path, &len);
    cr_assert_str_eq(text, "circles 2\n"
                           "0.5 0.25 1 0.100000001 1 0 0.5\n"
                           "-0 1e-30 0.333333343 2 0.200000003 0.300000012 1.00000002e+20\n");
    cr_assert_eq(len, strlen(text));
    free(text);
    assert_no_temp(path);
    unlink(path);
    qr_scene_destroy(s);
}

Test(scene_file, writes_are_deterministic_and_replace)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_builtin("fireworks", 3, &s, &err), QR_OK);
    const char *a = qr_test_tmp("a.circles"), *b = qr_test_tmp("b.circles");
    cr_assert_eq(qr_scene_write_circles(s, a, &err), QR_OK);
    cr_assert_eq(qr_scene_write_circles(s, b, &err), QR_OK);
    size_t la, lb;
    char *ta = qr_test_read_file(a, &la), *tb = qr_test_read_file(b, &lb);
    cr_assert_eq(la, lb);
    cr_assert(memcmp(ta, tb, la) == 0);
    cr_assert(strncmp(ta, "circles 315\n", 12) == 0);
    /* velocities are not written: 8 lines... 316 lines in all */
    size_t lines = 0;
    for (size_t i = 0; i < la; ++i)
        lines += ta[i] == '\n';
    cr_assert_eq(lines, 316);
    free(tb);
    /* writing over an existing file replaces it whole */
    qr_scene *small;
    cr_assert_eq(qr_scene_builtin("rgb", 0, &small, &err), QR_OK);
    cr_assert_eq(qr_scene_write_circles(small, a, &err), QR_OK);
    qr_scene *back = read_ok(a);
    cr_assert_eq(back->n, 3);
    assert_no_temp(a);
    free(ta);
    unlink(a);
    unlink(b);
    qr_scene_destroy(s);
    qr_scene_destroy(small);
    qr_scene_destroy(back);
}

Test(scene_file, empty_scene)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_create(0, QR_ANIM_NONE, &s, &err), QR_OK);
    const char *path = qr_test_tmp("empty.circles");
    cr_assert_eq(qr_scene_write_circles(s, path, &err), QR_OK);
    char *text = qr_test_read_file(path, NULL);
    cr_assert_str_eq(text, "circles 0\n");
    free(text);
    qr_scene *back = read_ok(path);
    cr_assert_eq(back->n, 0);
    qr_scene_destroy(back);
    qr_scene_destroy(s);
    unlink(path);
}

/* ---- failed writes ------------------------------------------------------- */

Test(scene_file, failed_write_leaves_nothing)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_builtin("rgb", 0, &s, &err), QR_OK);

    const char *dir = qr_test_tmp("no-such-dir");
    char path[1200];
    snprintf(path, sizeof path, "%s/out.circles", dir);
    cr_assert_eq(qr_scene_write_circles(s, path, &err), QR_ERR_IO);
    cr_assert_not_null(strstr(err.msg, path), "%s", err.msg);
    cr_assert(!qr_test_exists(path));
    cr_assert(!qr_test_exists(dir));

    /* the target is a directory: refused, nothing created beside it */
    const char *d2 = qr_test_tmp("target-dir.circles");
    cr_assert_eq(mkdir(d2, 0755), 0);
    cr_assert_eq(qr_scene_write_circles(s, d2, &err), QR_ERR_IO);
    cr_assert_not_null(strstr(err.msg, "is a directory"), "%s", err.msg);
    assert_no_temp(d2);
    rmdir(d2);

    /* a value the reader would reject is refused before anything is written */
    const char *p3 = qr_test_tmp("nan.circles");
    s->x[1] = NAN;
    cr_assert_eq(qr_scene_write_circles(s, p3, &err), QR_ERR_INVALID);
    cr_assert(!qr_test_exists(p3));
    assert_no_temp(p3);
    s->x[1] = 0.5f;
    s->r[2] = -1.0f;
    cr_assert_eq(qr_scene_write_circles(s, p3, &err), QR_ERR_INVALID);
    cr_assert(!qr_test_exists(p3));
    qr_scene_destroy(s);
}

/* ---- accepted syntax --------------------------------------------------- */

Test(scene_file, comments_blank_lines_and_spacing)
{
    const char *path = write_text("comments.circles",
                                  "# a comment first\n"
                                  "\n"
                                  "   # an indented comment\n"
                                  "circles 3\n"
                                  "0.1 0.2 0.3 0.4 0.5 0.6 0.7\n"
                                  "\n"
                                  "# between circles\n"
                                  "\t0.5\t 0.5  0.5 0.1 1 +1 1e0   \n"
                                  "1 2 3 4 5 6 7\r\n"
                                  "# trailing comment\n"
                                  "\n");
    qr_scene *s = read_ok(path);
    cr_assert_eq(s->n, 3);
    cr_assert(s->x[0] == 0.1f && s->blue[0] == 0.7f);
    cr_assert(s->x[1] == 0.5f && s->green[1] == 1.0f && s->blue[1] == 1.0f);
    cr_assert(s->x[2] == 1.0f && s->blue[2] == 7.0f);
    cr_assert_eq(s->shading, QR_SHADE_FLAT);
    cr_assert_eq(s->anim, QR_ANIM_NONE);
    cr_assert_null(s->vx);
    qr_scene_destroy(s);
    unlink(path);

    /* no newline at the end of the last line */
    path = write_text("nonl.circles", "circles 1\n0 0 0 0.5 1 1 1");
    s = read_ok(path);
    cr_assert_eq(s->n, 1);
    cr_assert(s->r[0] == 0.5f);
    qr_scene_destroy(s);
    unlink(path);
}

Test(scene_file, example_scenes_load)
{
    const char *files[] = {"scenes/three.circles", "scenes/target.circles", "scenes/edge.circles"};
    const int32_t counts[] = {3, 8, 7};
    for (int k = 0; k < 3; ++k) {
        qr_scene *s = read_ok(qr_test_src(files[k]));
        cr_assert_eq(s->n, counts[k], "%s", files[k]);
        qr_scene_destroy(s);
    }
}

/* Growth past the initial capacity, to exactly the announced count. */
Test(scene_file, large_file_streams)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_builtin("rand1M", 5, &s, &err), QR_OK);
    s->n = 150001; /* a prefix, not a power of two (the arrays keep rand1M's stride) */
    const char *path = qr_test_tmp("big.circles");
    cr_assert_eq(qr_scene_write_circles(s, path, &err), QR_OK, "%s", err.msg);
    qr_scene *back = read_ok(path);
    cr_assert_eq(back->n, 150001);
    cr_assert_eq(back->block_floats, (size_t)150001 * 7);
    assert_same_circles(s, back);
    s->n = 1000000;
    qr_scene_destroy(s);
    qr_scene_destroy(back);
    unlink(path);
}

/* ---- bad input -------------------------------------------------------- */

Test(scene_file, wrong_circle_count)
{
    expect_error("short.circles",
                 "circles 5\n1 1 1 1 1 1 1\n1 1 1 1 1 1 1\n1 1 1 1 1 1 1\n1 1 1 1 1 1 1\n", 5,
                 "unexpected end of file: expected 5 circles, found 4");
    expect_error("long.circles",
                 "circles 5\n1 1 1 1 1 1 1\n1 1 1 1 1 1 1\n1 1 1 1 1 1 1\n1 1 1 1 1 1 1\n"
                 "1 1 1 1 1 1 1\n1 1 1 1 1 1 1\n",
                 7, "more than the 5 circles the header on line 1 announces");
    expect_error("zero.circles", "circles 0\n1 1 1 1 1 1 1\n", 2, "more than the 0 circles");
    expect_error("none.circles", "# hdr\ncircles 2\n# nothing\n", 3,
                 "expected 2 circles, found 0");
}

Test(scene_file, exact_messages)
{
    const char *path = write_text("m.circles", "circles 2\n0 0 0 1 1 1 1\n0 0 0 1 1 1\n");
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_read_circles(path, &s, &err), QR_ERR_PARSE);
    char want[1400];
    snprintf(want, sizeof want, "%s:3: expected 7 numbers (x y z r R G B), found 6", path);
    cr_assert_str_eq(err.msg, want);
    cr_assert_eq(err.status, QR_ERR_PARSE);
    unlink(path);

    path = write_text("m2.circles", "circles 1\n0 0 1.0abc 1 1 1 1\n");
    cr_assert_eq(qr_scene_read_circles(path, &s, &err), QR_ERR_PARSE);
    snprintf(want, sizeof want, "%s:2: z: '1.0abc' is not a number", path);
    cr_assert_str_eq(err.msg, want);
    unlink(path);
}

Test(scene_file, bad_fields)
{
    expect_error("missing.circles", "circles 1\n1 2 3 4 5 6\n", 2, "expected 7 numbers");
    expect_error("extra.circles", "circles 1\n1 2 3 4 5 6 7 8\n", 2, "found 8");
    expect_error("trailing.circles", "circles 1\n1 2 3 4 5 6 7 # no\n", 2, "found 9");
    expect_error("junk.circles", "circles 1\n1 2 3 4 5 6 1.0abc\n", 2, "B: '1.0abc' is not a number");
    expect_error("word.circles", "circles 1\nx 2 3 4 5 6 7\n", 2, "x: 'x' is not a number");
    expect_error("comma.circles", "circles 1\n1,2 3 4 5 6 7 8\n", 2, "is not a number");
    expect_error("dot.circles", "circles 1\n. 2 3 4 5 6 7\n", 2, "is not a number");
    expect_error("nan.circles", "circles 1\n1 nan 3 4 5 6 7\n", 2, "y: 'nan' is not a finite number");
    expect_error("inf.circles", "circles 1\n1 2 inf 4 5 6 7\n", 2, "not a finite number");
    expect_error("minf.circles", "circles 1\n1 2 3 4 -Infinity 6 7\n", 2, "not a finite number");
    expect_error("ovf.circles", "circles 1\n1 2 3 4 5 6 1e39\n", 2, "not a finite number");
    expect_error("negr.circles", "circles 2\n1 2 3 4 5 6 7\n1 2 3 -0.5 5 6 7\n", 3,
                 "negative radius -0.5");
    expect_error("blank-field.circles", "circles 1\n\t\t\n1 2 3\n", 3, "found 3");
}

Test(scene_file, bad_headers)
{
    expect_error("empty.circles", "", 1, "empty file: expected 'circles N'");
    expect_error("onlycomments.circles", "# just\n# comments\n\n", 3,
                 "no header: only blank and comment lines, expected 'circles N'");
    expect_error("neg.circles", "circles -1\n", 1, "circle count -1 is negative");
    expect_error("huge.circles", "circles 200000001\n", 1, "exceeds the limit of 200000000");
    expect_error("vhuge.circles", "circles 99999999999999999999999\n", 1, "exceeds the limit");
    expect_error("float.circles", "circles 5.0\n", 1, "circle count '5.0' is not an integer");
    expect_error("nocount.circles", "circles\n", 1, "expected the header 'circles N'");
    expect_error("word.circles", "circle 5\n", 1, "expected the header 'circles N', found 'circle 5'");
    expect_error("three.circles", "circles 5 6\n", 1, "expected the header");
    expect_error("data.circles", "1 2 3 4 5 6 7\n", 1, "expected the header");
    expect_error("hex.circles", "circles 0x10\n", 1, "is not an integer");
}

/* A header may announce up to the limit; memory follows the lines read. */
Test(scene_file, lying_header_is_harmless)
{
    expect_error("liar.circles", "circles 200000000\n0 0 0 1 1 1 1\n", 2,
                 "expected 200000000 circles, found 1");
}

Test(scene_file, long_lines_and_binary)
{
    size_t n = 1 << 20;
    char *big = malloc(n + 64);
    strcpy(big, "circles 1\n");
    memset(big + 10, '1', n);
    memcpy(big + 10 + n, "\n", 2);
    expect_error_data("longline.circles", big, strlen(big), 0, QR_ERR_PARSE, 2, "line too long");
    /* a long comment is still a long line */
    big[10] = '#';
    expect_error_data("longcomment.circles", big, strlen(big), 0, QR_ERR_PARSE, 2, "line too long");
    /* an endless first line without any newline */
    memset(big, ' ', n);
    expect_error_data("nonewline.circles", big, n, 0, QR_ERR_PARSE, 1, "line too long");
    free(big);

    const char nul[] = "circles 1\n0 0\0 0 1 1 1 1\n";
    expect_error_data("nul.circles", nul, sizeof nul - 1, 0, QR_ERR_PARSE, 2, "NUL byte");
    /* arbitrary binary bytes: a parse error, never a crash */
    unsigned char junk[4096];
    uint32_t h = 12345;
    for (size_t i = 0; i < sizeof junk; ++i) {
        h = h * 1103515245u + 12345u;
        junk[i] = (unsigned char)((h >> 16) | 1); /* no NUL */
    }
    expect_error_data("junk.circles", (const char *)junk, sizeof junk, 0, QR_ERR_PARSE, 1, "");
}

Test(scene_file, io_errors)
{
    qr_scene *s = (qr_scene *)1;
    qr_error err;
    const char *missing = qr_test_tmp("does-not-exist.circles");
    cr_assert_eq(qr_scene_read_circles(missing, &s, &err), QR_ERR_IO);
    cr_assert_null(s);
    char want[1200];
    snprintf(want, sizeof want, "%s: No such file or directory", missing);
    cr_assert_str_eq(err.msg, want);

    const char *dir = qr_test_tmp("a-dir.circles");
    cr_assert_eq(mkdir(dir, 0755), 0);
    cr_assert_eq(qr_scene_read_circles(dir, &s, &err), QR_ERR_IO);
    snprintf(want, sizeof want, "%s: is a directory", dir);
    cr_assert_str_eq(err.msg, want);
    cr_assert_eq(qr_scene_read_par(dir, &s, &err), QR_ERR_IO);
    rmdir(dir);
}

/* ---- .par ------------------------------------------------------------------ */

Test(scene_file, par_happy_path)
{
    const char *path = write_text("flakes.par", "3\n"
                                                "0.1 0.2 0.9 0.01 -0.1 0 0.0075\n"
                                                "0.5 0.6 0.5 0 -0.2 0 0.02\n"
                                                "0.9 1.1 0.01 -0.3 -0.5 0.1 0.15\n");
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_read_par(path, &s, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(s->n, 3);
    cr_assert_eq(s->shading, QR_SHADE_SNOW);
    cr_assert_eq(s->anim, QR_ANIM_NONE);
    cr_assert_null(s->vx);
    cr_assert(s->x[0] == 0.1f && s->y[0] == 0.2f && s->z[0] == 0.9f && s->r[0] == 0.0075f);
    cr_assert(s->x[2] == 0.9f && s->y[2] == 1.1f && s->z[2] == 0.01f && s->r[2] == 0.15f);
    for (int i = 0; i < 3; ++i)
        cr_assert(s->red[i] == 1.0f && s->green[i] == 1.0f && s->blue[i] == 1.0f);
    cr_assert_not_null(strstr(s->name, "flakes"));
    cr_assert_null(strchr(s->name, '.'));
    qr_scene_destroy(s);
    unlink(path);

    cr_assert_eq(qr_scene_read_par(qr_test_src("scenes/example.par"), &s, &err), QR_OK, "%s",
                 err.msg);
    cr_assert_eq(s->n, 12);
    cr_assert_str_eq(s->name, "example");
    qr_scene_destroy(s);
}

Test(scene_file, par_errors)
{
    expect_par_error("empty.par", "", 1, "empty file: expected the particle count N");
    expect_par_error("hdr.par", "circles 1\n0 0 0 0 0 0 1\n", 1,
                     "expected the particle count N on its own");
    expect_par_error("neg.par", "-3\n", 1, "is negative");
    expect_par_error("short.par", "2\n0 0 0 0 0 0 1\n", 2, "expected 2 circles, found 1");
    expect_par_error("long.par", "1\n0 0 0 0 0 0 1\n0 0 0 0 0 0 1\n", 3, "more than the 1");
    expect_par_error("fields.par", "1\n0 0 0 0 0 1\n", 2,
                     "expected 7 numbers (x y z vx vy vz r), found 6");
    expect_par_error("negr.par", "1\n0 0 0 0 0 0 -1\n", 2, "negative radius");
    expect_par_error("junk.par", "1\n0 0 0 0 0q 0 1\n", 2, "vy: '0q' is not a number");
    expect_par_error("nan.par", "1\n0 0 0 NaN 0 0 1\n", 2, "vx: 'NaN' is not a finite number");
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_read_par(qr_test_tmp("none.par"), &s, &err), QR_ERR_IO);
    cr_assert_not_null(strstr(err.msg, "No such file or directory"));
}

/* ---- FIFOs ----------------------------------------------------------------- */

/* A writer process for `fifo`: writes `text` (pausing `pause_ms` after its
 * first line) and closes; its pid. */
static pid_t fifo_writer(const char *fifo, const char *text, int pause_ms)
{
    const pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid > 0) return pid;
    const int fd = open(fifo, O_WRONLY);
    if (fd < 0) _exit(1);
    const size_t len = strlen(text), first = (size_t)(strchr(text, '\n') - text) + 1;
    int ok = write(fd, text, first) == (ssize_t)first;
    if (pause_ms) nanosleep(&(struct timespec){0, pause_ms * 1000000L}, NULL);
    ok = ok && write(fd, text + first, len - first) == (ssize_t)(len - first);
    close(fd);
    _exit(ok ? 0 : 1);
}

/* A scene read from a FIFO is read once, from the open that meets its
 * writer, whether the writer writes everything and closes at once or
 * slowly: opened again, it would wait for a writer that has gone (the test
 * then times out). The circles equal the same text read from a file. */
Test(scene_file, fifo_is_read_once, .timeout = 60)
{
    const char *text = "circles 3\n0.25 0.5 0.1 0.2 1 0 0\n0.5 0.5 0.2 0.2 0 1 0\n0.75 0.5 0.3 0.2 0 0 1\n";
    const char *file = qr_test_tmp("fifo_ref.circles");
    qr_test_write_text(file, text);
    qr_scene *want = read_ok(file);
    const char *fifo = qr_test_tmp("fifo.circles");
    for (int k = 0; k < 20; k++) {
        unlink(fifo);
        cr_assert_eq(mkfifo(fifo, 0600), 0);
        const pid_t pid = fifo_writer(fifo, text, k % 2 ? 30 : 0);
        qr_scene *got;
        qr_error err;
        cr_assert_eq(qr_scene_load(fifo, 0, &got, &err), QR_OK, "run %d: %s", k, err.msg);
        assert_same_circles(want, got);
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "run %d: the writer failed", k);
        qr_scene_destroy(got);
    }
    unlink(fifo);
    unlink(file);
    qr_scene_destroy(want);
}

