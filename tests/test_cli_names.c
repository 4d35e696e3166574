/* test_cli_names.c — names and conventions on the command line, run as a
 * user runs it (support/cli_run.h): hostile scene file names in bench's
 * JSON, CSV and SVG and in stats' JSON, terminal escapes in messages, long
 * UTF-8 names, built-in name suggestions and case, getopt conventions,
 * --gpu-device and -v, help texts, --aspect, the scene-file corner cases
 * (BOM, sign, comments only) and the PNG's text chunks. */
#include <errno.h>
#include <iconv.h>
#include <png.h>
#include <stdbool.h>

#include "cli/bench/bench.h"
#include "cli_expect.h"
#include "cli_run.h"
#include "json_find.h"
#include "test_util.h"

/* The scene file name of issue 20, row 7. */
#define NASTY_BASE "my \"a\",b&<c>"
/* JSON: quotes and backslashes escaped, and '<' as \u003c (a page may embed it) */
#define NASTY_JSON "\"my \\\"a\\\",b&\\u003cc>\""

/* Whether s[0..n-1] is UTF-8, as iconv (glibc, an independent decoder)
 * sees it. */
static bool valid_utf8(const char *s, size_t n)
{
    iconv_t cd = iconv_open("UTF-32LE", "UTF-8");
    cr_assert(cd != (iconv_t)-1, "iconv_open");
    char *in = (char *)s;
    size_t left = n;
    bool ok = true;
    while (left > 0 && ok) {
        char buf[4096], *out = buf;
        size_t room = sizeof buf;
        if (iconv(cd, &in, &left, &out, &room) == (size_t)-1 && errno != E2BIG)
            ok = false;
    }
    iconv_close(cd);
    return ok;
}

/* The fields of one CSV record as RFC 4180 reads it (quoted fields, ""
 * for a quote); *p moves past the record's line end. Returns the count and
 * copies field `want` into got. */
static int csv_record(const char **p, int want, char *got, size_t size)
{
    int n = 0;
    size_t len = 0;
    const char *s = *p;
    got[0] = '\0';
    for (;;) {
        bool quoted = *s == '"';
        len = 0;
        char field[512];
        if (quoted) {
            for (s++;; s++) {
                cr_assert(*s, "unterminated quoted field");
                if (*s == '"' && s[1] == '"') {
                    field[len++] = '"';
                    s++;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    cr_assert_lt(len, sizeof field - 1, "field too long");
                    field[len++] = *s;
                }
            }
            cr_assert(*s == ',' || *s == '\n' || *s == '\0', "text after a closing quote: %s", s);
        } else {
            while (*s && *s != ',' && *s != '\n') {
                cr_assert(*s != '"', "a quote inside an unquoted field");
                cr_assert_lt(len, sizeof field - 1, "field too long");
                field[len++] = *s++;
            }
        }
        field[len] = '\0';
        if (n == want) {
            cr_assert_lt(len, size, "field too long");
            memcpy(got, field, len + 1);
        }
        n++;
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == '\n') s++;
        *p = s;
        return n;
    }
}

static bench_row nasty_row(void)
{
    bench_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.scene, sizeof r.scene, "%s", NASTY_BASE);
    r.size = 64;
    r.frames = 3;
    r.frame.median = r.frame.min = r.frame.max = r.frame.p25 = r.frame.p75 = 0.5;
    r.build = r.frame;
    for (int k = 0; k < BENCH_NSTAGES; k++) r.stage[k] = 0.05;
    r.cpu_ms = -1;
    return r;
}

/* XML character data between tags: no raw '<' and every '&' an entity. */
static void expect_xml_text_ok(const char *svg)
{
    for (const char *p = svg; (p = strchr(p, '&')); p++)
        cr_expect(!strncmp(p, "&amp;", 5) || !strncmp(p, "&lt;", 4) || !strncmp(p, "&gt;", 4) ||
                      !strncmp(p, "&quot;", 6) || !strncmp(p, "&apos;", 6),
                  "a bare '&' in the SVG: %.40s", p);
    /* every '<' opens a tag: a letter, '/', '?' or '!' follows */
    for (const char *p = svg; (p = strchr(p, '<')); p++)
        cr_expect(p[1] == '/' || p[1] == '?' || p[1] == '!' || (p[1] >= 'a' && p[1] <= 'z'),
                  "a raw '<' in the SVG: %.40s", p);
}

Test(cli_names, bench_writers_quote_a_hostile_name)
{
    bench_row rows[2] = {nasty_row(), nasty_row()};
    rows[1].grid_tile = 16;
    qr_error err;
    const char *json = qr_test_tmp("nasty.json"), *csv = qr_test_tmp("nasty.csv"),
               *svg = qr_test_tmp("nasty.svg");
    cr_assert_eq(bench_write_json(json, "{}", rows, 2, 0, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(bench_write_csv(csv, rows, 2, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(bench_write_svg(svg, "bench of " NASTY_BASE, rows, 2, &err), QR_OK, "%s", err.msg);

    char *text = qr_test_read_file(json, NULL);
    const char *v = json_find(text, "results.0.scene");
    cr_assert_not_null(v);
    cr_expect(!strncmp(v, NASTY_JSON, strlen(NASTY_JSON)), "%.40s", v);
    free(text);

    text = qr_test_read_file(csv, NULL);
    const char *p = text;
    char field[256];
    int header = csv_record(&p, 0, field, sizeof field);
    for (int i = 0; i < 2; i++) {
        cr_expect_eq(csv_record(&p, 0, field, sizeof field), header, "row %d", i);
        cr_expect_str_eq(field, NASTY_BASE);
    }
    cr_expect_eq(*p, '\0');
    free(text);

    text = qr_test_read_file(svg, NULL);
    expect_xml_text_ok(text);
    cr_expect(strstr(text, "my &quot;a&quot;,b&amp;&lt;c&gt;"), "the name is not escaped");
    free(text);
}

/* A scene file under a name; returns its path. */
static const char *scene_file(const char *dir, const char *name, const char *text)
{
    const char *path = qr_test_join(qr_test_tmp_dir(dir), name);
    qr_test_write_text(path, text);
    return path;
}

Test(cli_names, bench_command_quotes_a_hostile_name)
{
    QR_REQUIRE_GPU();
    char path[1024];
    snprintf(path, sizeof path, "%s",
             scene_file("nasty", NASTY_BASE ".circles", "circles 1\n0.5 0.5 0 0.25 1 0 0\n"));
    const char *json = qr_test_tmp("b.json"), *csv = qr_test_tmp("b.csv"), *svg = qr_test_tmp("b.svg");
    cr_assert_eq(RUN("bench", path, "-s", "64", "--frames", "2", "--warmup", "0", "--tile", "16",
                     "--json", json, "--csv", csv, "--plot", svg),
                 0, "%s", R.err);
    char *text = qr_test_read_file(json, NULL);
    cr_expect(json_find(text, "results.0.scene"));
    free(text);
    text = qr_test_read_file(csv, NULL);
    const char *p = text;
    char field[256];
    int header = csv_record(&p, 0, field, sizeof field);
    while (*p) {
        cr_expect_eq(csv_record(&p, 0, field, sizeof field), header);
        cr_expect_str_eq(field, NASTY_BASE);
    }
    free(text);
    text = qr_test_read_file(svg, NULL);
    expect_xml_text_ok(text);
    free(text);
}

Test(cli_names, stats_json_of_a_hostile_name)
{
    const char *path =
        scene_file("nasty", NASTY_BASE ".circles", "circles 1\n0.5 0.5 0 0.25 1 0 0\n");
    const char *json = qr_test_tmp("s.json");
    cr_assert_eq(RUN("stats", path, "-s", "64", "--device", "cpu", "--json", json), 0, "%s", R.err);
    char *text = qr_test_read_file(json, NULL);
    const char *v = json_find(text, "scene.name");
    cr_assert_not_null(v, "%s", text);
    cr_expect(!strncmp(v, NASTY_JSON, strlen(NASTY_JSON)), "%.40s", v);
    free(text);
}

/* ---- row 18: escapes in messages ---------------------------------------------- */

Test(cli_names, messages_escape_control_bytes)
{
    const char *path = scene_file("esc", "title.circles", "\x1b[2J\x1b]0;TITLE\x07\n");
    cr_assert_eq(RUN("render", path, "-s", "8", "-o", qr_test_tmp("esc.ppm")), 3, "%s", R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);
    cr_expect(!strchr(R.err, '\x1b') && !strchr(R.err, '\x07'), "raw escapes: %s", R.err);
    cr_expect(strstr(R.err, "'\\x1b[2J\\x1b]0;TITLE\\x07'"), "%s", R.err);
    /* a name given on the command line, and bytes that are not UTF-8 */
    cr_assert_eq(RUN("render", "bad\x1b[31m\xff", "-s", "8"), 3);
    cr_expect(strstr(R.err, "'bad\\x1b[31m\\xff'"), "%s", R.err);
    cr_assert_eq(RUN("render", "rgb", "--bogus\x1b]0;x\x07"), 2);
    cr_expect(!strchr(R.err, '\x1b') && strstr(R.err, "--bogus\\x1b]0;x\\x07"), "%s", R.err);
    /* the progress lines quote file names too */
    const char *named = scene_file("esc", "t\x1b[2Jx.circles", "circles 0\n");
    cr_assert_eq(RUN("render", named, "-s", "8", "-o", qr_test_tmp("esc2.ppm")), 0, "%s", R.err);
    cr_expect(!strchr(R.err, '\x1b') && strstr(R.err, "t\\x1b[2Jx (0 circles)"), "%s", R.err);
}

/* ---- row 19: long UTF-8 names --------------------------------------------------- */

Test(cli_names, long_utf8_name_is_cut_at_a_character)
{
    /* 40 x "é" (2 bytes): 80 bytes; 63 bytes would end inside the 32nd */
    char base[128] = "";
    for (int i = 0; i < 40; i++) strcat(base, "\xC3\xA9");
    char name[160];
    snprintf(name, sizeof name, "%s.circles", base);
    const char *path = scene_file("utf8", name, "circles 1\n0.5 0.5 0 0.25 1 0 0\n");
    const char *json = qr_test_tmp("u.json");
    cr_assert_eq(RUN("stats", path, "-s", "64", "--device", "cpu", "--json", json), 0, "%s", R.err);
    size_t len;
    char *text = qr_test_read_file(json, &len);
    cr_expect(valid_utf8(text, len), "stats --json is not UTF-8");
    char want[80];
    snprintf(want, sizeof want, "\"%.62s\"", base); /* 31 whole characters */
    const char *v = json_find(text, "scene.name");
    cr_assert_not_null(v);
    cr_expect(!strncmp(v, want, strlen(want)), "%.80s", v);
    free(text);
    /* a name that is not UTF-8 at all still makes UTF-8 JSON */
    path = scene_file("utf8", "x\xff\xfey.circles", "circles 1\n0.5 0.5 0 0.25 1 0 0\n");
    cr_assert_eq(RUN("stats", path, "-s", "64", "--device", "cpu", "--json", json), 0, "%s", R.err);
    text = qr_test_read_file(json, &len);
    cr_expect(valid_utf8(text, len));
    cr_expect(strstr(text, "\"x\\ufffd\\ufffdy\""), "%s", text);
    free(text);
}

/* ---- row 10: built-in names -------------------------------------------------------- */

Test(cli_names, builtin_names_ignore_case_and_suggest)
{
    const char *a = qr_test_tmp("Rand10k.ppm"), *b = qr_test_tmp("rand10k.ppm");
    cr_assert_eq(RUN("render", "Rand10k", "-s", "32", "-o", a), 0, "%s", R.err);
    cr_expect(strstr(R.err, "rand10k (10000 circles)"), "named as the table names it: %s", R.err);
    cr_assert_eq(RUN("render", "rand10k", "-s", "32", "-o", b), 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b));
    const struct {
        const char *typed, *meant;
    } cases[] = {{"rand10k_", "rand10k"}, {"snwo", "snow"}, {"RAND1m", NULL},
                 {"firewrks", "fireworks"}, {"bouncingbals", "bouncingballs"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = RUN("render", cases[i].typed, "-s", "8", "-o", qr_test_tmp("x.ppm"));
        if (!cases[i].meant) {
            cr_expect_eq(rc, 0, "%s is a built-in name in another case: %s", cases[i].typed, R.err);
            continue;
        }
        cr_expect_eq(rc, 3, "%s", cases[i].typed);
        char want[96];
        snprintf(want, sizeof want, "did you mean '%s'?", cases[i].meant);
        cr_expect(strstr(R.err, want), "%s: %s", cases[i].typed, R.err);
        cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);
    }
    /* nothing close: no suggestion */
    cr_expect_eq(RUN("render", "zzzzzzzz", "-s", "8"), 3);
    cr_expect(!strstr(R.err, "did you mean"), "%s", R.err);
    cr_expect_eq(RUN("dump", "xy", "-o", qr_test_tmp("x.circles")), 3);
    cr_expect(!strstr(R.err, "did you mean"), "%s", R.err);
}

/* ---- row 11: option conventions ------------------------------------------------------ */

Test(cli_names, getopt_conventions)
{
    const char *ref = qr_test_tmp("ref.ppm"), *out = qr_test_tmp("conv.ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "16", "-o", ref), 0, "%s", R.err);
    const char *forms[][4] = {{"-s16", "-o", out, NULL},
                              {"--size=16", "-o", out, NULL},
                              {"-o", out, "--size", "16"},
                              {"-s16", "-o", out, "-n"}};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        unlink(out);
        const char *args[] = {"render", "rgb", forms[i][0], forms[i][1], forms[i][2], forms[i][3]};
        int rc = forms[i][3] ? qr_cli_run(NULL, (const char *const[]){args[0], args[1], args[2], args[3], args[4], args[5], NULL}, &R)
                             : qr_cli_run(NULL, (const char *const[]){args[0], args[1], args[2], args[3], args[4], NULL}, &R);
        cr_expect_eq(rc, 0, "form %zu: %s", i, R.err);
        cr_expect(qr_test_same_bytes(out, ref), "form %zu", i);
    }
    /* "-o" with its value attached, and flags grouped with it */
    cr_assert_eq(RUN("render", "rgb", "-s16", "-nvo", out), 4, "-n refuses the existing file: %s",
                 R.err);
    unlink(out);
    cr_assert_eq(RUN("render", "rgb", "-s16", "-nvo", out), 0, "%s", R.err);
    cr_expect(strstr(R.err, "settings: 16x16"), "-v: %s", R.err);
    cr_expect(qr_test_same_bytes(out, ref));
    unlink(out);
    cr_assert_eq(RUN("render", "rgb", "-s16", "-o", out, "--verbose"), 0, "%s", R.err);
    cr_expect(strstr(R.err, "settings: 16x16"), "--verbose: %s", R.err);
    /* every command that takes -s takes -s16 */
    cr_expect_eq(RUN("stats", "rgb", "-s64", "--device", "cpu"), 0, "%s", R.err);
    cr_expect(strstr(R.out, "64x64"), "%s", R.out);
    cr_expect_eq(RUN("check", "rgb", "-s16", "--threads=2"), 0, "%s", R.err);
    /* -s=16: getopt would read "=16"; a hint instead */
    const cli_usage_case cases[] = {
        {{"render", "rgb", "-s=16"}, "--size=16"},
        {{"stats", "rgb", "-s=16"}, "-s16"},
        {{"render", "rgb", "-nx"}, "'-x' in '-nx'"},
        {{"render", "rgb", "--gpu-device", "x"}, "--gpu-device"},
        {{"render", "rgb", "--gpu-device=-1"}, "--gpu-device"},
        {{"render", "rgb", "--verbose=1"}, "--verbose"},
        {{"render", "rgb", "--siz", "16"}, "'--siz'"},
    };
    cli_expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
}

Test(cli_names, gpu_device_without_that_device)
{
    /* the CPU never looks at the GPU: any device number is fine there */
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--gpu-device", "7", "-o",
                     qr_test_tmp("g.ppm")),
                 0, "%s", R.err);
    /* a device that is not there: --device gpu fails, auto falls back */
    cr_expect_eq(RUN("stats", "rgb", "-s", "16", "--device", "gpu", "--gpu-device", "1023"), 5,
                 "%s", R.err);
    cr_expect(strstr(R.err, "--device gpu: "), "%s", R.err);
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_expect(strstr(R.err, "no CUDA device 1023"), "%s", R.err);
    cr_expect_eq(RUN("stats", "rgb", "-s", "16", "--gpu-device", "1023"), 0, "%s", R.err);
    cr_expect(strstr(R.err, "building the index on the CPU"), "%s", R.err);
}

Test(cli_names, gpu_device_zero_is_the_default)
{
    QR_REQUIRE_GPU();
    const char *a = qr_test_tmp("d0.ppm"), *b = qr_test_tmp("dn.ppm");
    cr_assert_eq(RUN("render", "rand10k", "-s", "64", "--device", "gpu", "--gpu-device", "0", "-v",
                     "-o", a),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "CUDA device 0: "), "-v names the device: %s", R.err);
    cr_expect(strstr(R.err, "index stages: boxes "), "-v gives the stages: %s", R.err);
    cr_assert_eq(RUN("render", "rand10k", "-s", "64", "--device", "gpu", "-o", b), 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b));
}

/* ---- row 13: help texts ------------------------------------------------------------------ */

Test(cli_names, help_texts_are_consistent)
{
    const char *cmds[] = {"render", "check", "stats", "query", "dump", "scenes", "bench"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        cr_assert_eq(RUN(cmds[k], "--help"), 0, "%s", R.err);
        cr_expect(strstr(R.out, "\nExit codes: 0 ") && strstr(R.out, ", 2 bad command line"),
                  "%s --help has no exit codes:\n%s", cmds[k], R.out);
        cr_expect(!strchr(R.out, '`'), "%s --help quotes with backquotes", cmds[k]);
        cr_expect(!strstr(R.out, "('-'"), "%s --help: '-' for stdout is said one way", cmds[k]);
        cr_expect(strstr(R.out, "--gpu-device N") && strstr(R.out, "-v, --verbose") &&
                      strstr(R.out, "--threads N"),
                  "%s --help lacks the common options", cmds[k]);
        const char *first_nl = strchr(R.out, '\n');
        if (strcmp(cmds[k], "scenes"))
            cr_expect(first_nl && !strncmp(first_nl - 9, "[options]", 9),
                      "%s: usage line does not end in [options]:\n%s", cmds[k], R.out);
    }
    /* every option that has a default says it */
    const char *with_index[] = {"render", "stats", "bench"};
    for (size_t k = 0; k < 3; k++) {
        cr_assert_eq(RUN(with_index[k], "--help"), 0);
        const char *opts[] = {"--index", "--capacity", "--min-leaf", "--max-leaf", "--split-cost",
                              "--max-depth"};
        for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
            const char *line = strstr(R.out, opts[i]);
            cr_assert_not_null(line, "%s --help: %s", with_index[k], opts[i]);
            const char *end = strchr(line, '\n');
            char buf[256];
            snprintf(buf, sizeof buf, "%.*s", (int)(end - line), line);
            cr_expect(strstr(buf, "default"), "%s --help: %s shows no default", with_index[k], buf);
        }
    }
}

/* ---- row 12: --aspect ------------------------------------------------------------------------ */

/* One pixel of a PPM the CLI wrote, x from the left, y from the top. */
static const unsigned char *ppm_px(const cli_ppm *p, int x, int y)
{
    return p->px + ((size_t)y * (size_t)p->w + (size_t)x) * 3;
}

Test(cli_names, aspect_keep_is_the_centred_window_of_the_square)
{
    /* oracle: the square render of the longer side, cut by hand */
    const char *sq = qr_test_tmp("sq.ppm"), *wide = qr_test_tmp("wide.ppm"),
               *tall = qr_test_tmp("tall.ppm"), *str = qr_test_tmp("str.ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "64", "--device", "cpu-reference", "-o", sq), 0, "%s", R.err);
    cr_assert_eq(RUN("render", "rgb", "--width", "64", "--height", "21", "--aspect", "keep",
                     "--device", "cpu-reference", "-o", wide),
                 0, "%s", R.err);
    cr_assert_eq(RUN("render", "rgb", "--width", "21", "--height", "64", "--aspect=keep", "-o", tall),
                 0, "%s", R.err);
    cr_assert_eq(RUN("render", "rgb", "--width", "64", "--height", "21", "--aspect", "stretch",
                     "-o", str),
                 0, "%s", R.err);
    cli_ppm s = cli_read_ppm(sq), w = cli_read_ppm(wide), t = cli_read_ppm(tall),
            st = cli_read_ppm(str);
    cr_assert(w.w == 64 && w.h == 21 && t.w == 21 && t.h == 64);
    /* rows of the image are counted from the bottom: 64 - 21 = 43 spare rows,
     * 21 below the window; a PPM's rows from the top: 22 above it */
    const int oy = 43 - 43 / 2, ox = 43 - 43 / 2;
    for (int y = 0; y < 21; y++)
        for (int x = 0; x < 64; x++)
            cr_assert(!memcmp(ppm_px(&w, x, y), ppm_px(&s, x, y + oy), 3), "wide (%d,%d)", x, y);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 21; x++)
            cr_assert(!memcmp(ppm_px(&t, x, y), ppm_px(&s, x + 43 / 2, y), 3), "tall (%d,%d)", x, y);
    (void)ox;
    /* stretch (the default) differs: the circles are ellipses */
    cr_expect(memcmp(st.px, w.px, 64 * 21 * 3) != 0);
    cli_ppm_free(&s);
    cli_ppm_free(&w);
    cli_ppm_free(&t);
    cli_ppm_free(&st);
    cli_expect_usage_cases((const cli_usage_case[]){{{"render", "rgb", "--aspect", "round"}, "--aspect"}}, 1);
}

/* ---- row 24: scene-file corner cases ------------------------------------------------------- */

Test(cli_names, bom_sign_and_comments_only)
{
    const char *body = "circles 1\n0.5 0.5 0 0.25 1 0 0\n";
    char bom[128];
    snprintf(bom, sizeof bom, "\xEF\xBB\xBF%s", body);
    const char *plain = scene_file("corner", "plain.circles", body);
    const char *with_bom = scene_file("corner", "bom.circles", bom);
    const char *a = qr_test_tmp("plain.ppm"), *b = qr_test_tmp("bom.ppm");
    cr_assert_eq(RUN("render", plain, "-s", "16", "-o", a), 0, "%s", R.err);
    cr_assert_eq(RUN("render", with_bom, "-s", "16", "-o", b), 0, "a BOM is skipped: %s", R.err);
    cr_expect(qr_test_same_bytes(a, b));
    /* a BOM before a comment line, and read serially from a pipe */
    snprintf(bom, sizeof bom, "\xEF\xBB\xBF# made on Windows\r\n%s", body);
    cr_assert_eq(RUN("render", scene_file("corner", "bomc.circles", bom), "-s", "16", "-o", b), 0,
                 "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b));
    /* a BOM anywhere else is a stray byte */
    cr_expect_eq(RUN("render", scene_file("corner", "mid.circles", "# c\n\xEF\xBB\xBF" "circles 1\n"),
                     "-s", "16"),
                 3);
    cr_expect(strstr(R.err, "mid.circles:2: expected the header 'circles N', found '\xEF\xBB\xBF"),
              "%s", R.err);
    /* a sign on the count */
    cr_expect_eq(RUN("render", scene_file("corner", "plus.circles", "circles +1\n0 0 0 1 1 1 1\n"),
                     "-s", "16"),
                 3);
    cr_expect(strstr(R.err, "plus.circles:1: circle count '+1': expected digits only, no sign"), "%s",
              R.err);
    /* only comments: the end of the file, at its last line */
    cr_expect_eq(RUN("render", scene_file("corner", "com.circles", "# a\n\n# b\n"), "-s", "16"), 3);
    cr_expect(strstr(R.err, "com.circles:3: no header: only blank and comment lines, expected "
                            "'circles N'"),
              "%s", R.err);
    cr_expect_eq(RUN("render", scene_file("corner", "empty.circles", ""), "-s", "16"), 3);
    cr_expect(strstr(R.err, "empty.circles:1: empty file: expected 'circles N'"), "%s", R.err);
    /* the table of docs/scene-format.md, line for line */
    cr_expect_eq(RUN("render", scene_file("corner", "s.circles", "circles 2\n1 2 3 4 5 6 7\n1 2 3 4 5 6\n"),
                     "-s", "16"),
                 3);
    cr_expect(strstr(R.err, "s.circles:3: expected 7 numbers (x y z r R G B), found 6"), "%s", R.err);
}

/* ---- PNG text chunks --------------------------------------------------------------------------- */

/* The value of key in the PNG's text chunks before its pixels, or NULL
 * (copied into buf). */
static const char *png_text_value(const char *path, const char *key, char *buf, size_t size)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "%s", path);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png)))
        cr_assert_fail("libpng failed on %s", path);
    png_init_io(png, fp);
    png_read_info(png, info);
    png_textp text;
    int n = png_get_text(png, info, &text, NULL);
    const char *found = NULL;
    for (int i = 0; i < n; i++)
        if (!strcmp(text[i].key, key)) {
            snprintf(buf, size, "%s", text[i].text);
            found = buf;
        }
    png_destroy_read_struct(&png, &info, NULL);
    fclose(fp);
    return found;
}

Test(cli_names, png_carries_its_metadata)
{
    const char *out = qr_test_tmp("meta.png");
    cr_assert_eq(RUN("render", "hypnosis", "--width", "40", "--height", "24", "--seed", "7",
                     "--frame", "3", "--exact", "-o", out),
                 0, "%s", R.err);
    char buf[256];
    const struct {
        const char *key, *value;
    } want[] = {{"Scene", "hypnosis"}, {"Seed", "7"}, {"Frame", "3"}, {"Size", "40x24"},
                {"Mode", "exact"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *v = png_text_value(out, want[i].key, buf, sizeof buf);
        cr_expect(v && !strcmp(v, want[i].value), "%s: %s", want[i].key, v ? v : "(none)");
    }
    const char *sw = png_text_value(out, "Software", buf, sizeof buf);
    cr_expect(sw && !strncmp(sw, "quadrender ", 11), "%s", sw ? sw : "(none)");
    cr_expect_null(png_text_value(out, "Aspect", buf, sizeof buf));
    /* each frame of a sequence names its own frame; a file scene has no seed */
    const char *dir = qr_test_tmp_dir("metaframes");
    cr_assert_eq(RUN("render", "hypnosis", "-s", "16", "--frames", "4:5", "-o",
                     qr_test_join(dir, "h.png")),
                 0, "%s", R.err);
    const char *v = png_text_value(qr_test_join(dir, "h_0005.png"), "Frame", buf, sizeof buf);
    cr_expect(v && !strcmp(v, "5"), "%s", v ? v : "(none)");
    const char *file = scene_file("meta", "three.circles", "circles 1\n0.5 0.5 0 0.25 1 0 0\n");
    cr_assert_eq(RUN("render", file, "-s", "16", "--aspect", "keep", "--reference", "-o", out), 0,
                 "%s", R.err);
    cr_expect_null(png_text_value(out, "Seed", buf, sizeof buf));
    v = png_text_value(out, "Mode", buf, sizeof buf);
    cr_expect(v && !strcmp(v, "reference"), "%s", v ? v : "(none)");
    v = png_text_value(out, "Scene", buf, sizeof buf);
    cr_expect(v && !strcmp(v, "three"), "%s", v ? v : "(none)");
}
