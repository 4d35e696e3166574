/* test_cli_map.c — render's and dump's data options (--extent,
 * --data-aspect, --color-by, --cmap, --norm, --vmin, --vmax), run as a user
 * runs them (support/cli_run.h): a scene in data coordinates renders the
 * bytes of the same scene mapped into the unit square by the library, a
 * --color-by render those of the scene coloured by qr_scene_color_by; bad
 * values exit 2 with the library's message, a values file of the wrong
 * length or with a NaN exits 3. */
#include "cli_expect.h"
#include "cli_run.h"
#include "test_util.h"

#include <math.h>

#include "quadrender/npy.h"
#include "quadrender/scene_map.h"

/* rand10k with its unit square stretched to longitudes -180..180 and
 * latitudes -60..30, radii times 90: a scene in data coordinates. */
static qr_scene *data_scene(void)
{
    qr_scene *s = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_builtin("rand10k", 0, &s, &err), QR_OK, "%s", err.msg);
    for (int32_t i = 0; i < s->n; i++) {
        s->x[i] = s->x[i] * 360.0f - 180.0f;
        s->y[i] = s->y[i] * 90.0f - 60.0f;
        s->r[i] *= 90.0f;
    }
    return s;
}

/* Paths kept apart from qr_test_tmp's few rotating slots. */
typedef struct path_buf {
    char p[1024];
} path_buf;

static const char *keep(path_buf *b, const char *path)
{
    snprintf(b->p, sizeof b->p, "%s", path);
    return b->p;
}

static const char *write_scene(const qr_scene *s, const char *name, path_buf *b)
{
    const char *path = keep(b, qr_test_tmp(name));
    qr_error err;
    cr_assert_eq(qr_scene_write_npy(s, path, &err), QR_OK, "%s", err.msg);
    return path;
}

/* n float64 values as a 1-D .npy file. */
static const char *write_values(const double *v, int64_t n, const char *name, path_buf *b)
{
    char header[QR_NPY_HEADER_WRITE_MAX];
    size_t len = qr_npy_header_write(header, "<f8", 1, &n);
    cr_assert_gt(len, 0);
    char *buf = malloc(len + (size_t)n * 8 + 1);
    memcpy(buf, header, len);
    memcpy(buf + len, v, (size_t)n * 8);
    const char *path = keep(b, qr_test_tmp(name));
    qr_test_write_file(path, buf, len + (size_t)n * 8);
    free(buf);
    return path;
}

/* Renders scene file `a` with the extra arguments and file `b` plain, on
 * the CPU at 96 x 64: the same bytes. */
static void expect_same_render(const char *a, const char *b, const char *const *extra, int nextra)
{
    path_buf ba, bb;
    const char *pa = keep(&ba, qr_test_tmp("mapped_a.ppm"));
    const char *pb = keep(&bb, qr_test_tmp("mapped_b.ppm"));
    const char *args[32] = {"render", a, "--width", "96", "--height", "64", "--device", "cpu",
                            "-o", pa};
    int n = 10;
    for (int k = 0; k < nextra; k++)
        args[n++] = extra[k];
    args[n] = NULL;
    qr_cli_result res = {0};
    cr_assert_eq(qr_cli_run(NULL, args, &res), 0, "%s", res.err);
    qr_cli_result_free(&res);
    cr_assert_eq(RUN("render", b, "--width", "96", "--height", "64", "--device", "cpu", "-o", pb),
                 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(pa, pb), "%s with %s...: not the pre-mapped scene's picture", a,
              extra[0]);
}

/* The data scene mapped by the library (extent NULL: auto), written. */
static const char *premapped(const qr_scene *data, const double *extent, qr_aspect aspect,
                             const char *name, path_buf *b)
{
    qr_scene *m = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_clone(data, &m, &err), QR_OK);
    cr_assert_eq(qr_scene_fit_extent(m, extent, aspect, NULL, &err), QR_OK, "%s", err.msg);
    const char *path = write_scene(m, name, b);
    qr_scene_destroy(m);
    return path;
}

Test(cli_map, extent_renders_the_premapped_scene)
{
    qr_scene *data = data_scene();
    path_buf b[4];
    const char *file = write_scene(data, "data.npy", &b[0]);
    const double world[4] = {-180, 180, -90, 90};
    const char *eq = premapped(data, world, QR_ASPECT_EQUAL, "pre_equal.npy", &b[1]);
    const char *st = premapped(data, world, QR_ASPECT_STRETCH, "pre_stretch.npy", &b[2]);
    const char *au = premapped(data, NULL, QR_ASPECT_EQUAL, "pre_auto.npy", &b[3]);
    const char *a1[] = {"--extent", "-180,180,-90,90"};
    expect_same_render(file, eq, a1, 2);
    const char *a2[] = {"--extent=-180,180,-90,90", "--data-aspect", "stretch"};
    expect_same_render(file, st, a2, 3);
    const char *a3[] = {"--extent", "auto"};
    expect_same_render(file, au, a3, 2);
    /* the data scene as it is draws something else */
    path_buf p1, p2;
    const char *pa = keep(&p1, qr_test_tmp("plain.ppm")), *pb = keep(&p2, qr_test_tmp("eq.ppm"));
    cr_assert_eq(RUN("render", file, "-s", "64", "--device", "cpu", "-o", pa), 0);
    cr_assert_eq(RUN("render", eq, "-s", "64", "--device", "cpu", "-o", pb), 0);
    cr_expect(!qr_test_same_bytes(pa, pb));
    qr_scene_destroy(data);
}

/* stats --extent indexes the premapped scene: the same statistics (JSON
 * without its timings) as stats of that scene. */
Test(cli_map, stats_indexes_the_premapped_scene)
{
    qr_scene *data = data_scene();
    path_buf b[2];
    const char *file = write_scene(data, "data_stats.npy", &b[0]);
    const double world[4] = {-180, 180, -90, 90};
    const char *eq = premapped(data, world, QR_ASPECT_EQUAL, "pre_stats.npy", &b[1]);
    cr_assert_eq(RUN("stats", file, "-s", "256", "--device", "cpu", "--extent", "-180,180,-90,90",
                     "--json", "-"),
                 0, "%s", R.err);
    char *with_extent = strdup(R.out);
    cr_assert_eq(RUN("stats", eq, "-s", "256", "--device", "cpu", "--json", "-"), 0, "%s", R.err);
    /* the trees' and lists' statistics, up to the build's times */
    const char *keys[] = {"\"tree\"", "\"circles_per_leaf\"", "\"circles\""};
    for (int k = 0; k < 3; k++) {
        const char *a = strstr(with_extent, keys[k]), *c = strstr(R.out, keys[k]);
        cr_assert(a && c, "%s missing", keys[k]);
        const char *ae = strchr(a, '}'), *ce = strchr(c, '}');
        cr_assert(ae && ce && ae - a == ce - c && !memcmp(a, c, (size_t)(ae - a)),
                  "%s differs: %.200s against %.200s", keys[k], a, c);
    }
    free(with_extent);
    qr_scene_destroy(data);
}

Test(cli_map, color_by_renders_the_library_colours)
{
    qr_scene *s = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_builtin("rand10k", 0, &s, &err), QR_OK);
    path_buf b[4];
    const char *file = write_scene(s, "plain.npy", &b[0]);
    double *v = malloc(sizeof *v * (size_t)s->n);
    float *vf = malloc(sizeof *vf * (size_t)s->n);
    for (int32_t i = 0; i < s->n; i++)
        v[i] = 1.0 + (double)((i * 7919) % 1000) / 10.0; /* ties, all above 0 */
    for (int32_t i = 0; i < s->n; i++)
        vf[i] = (float)v[i];
    const char *values = write_values(v, s->n, "values.npy", &b[1]);
    struct {
        int cmap;
        qr_norm norm;
        double vmin, vmax;
        const char *args[8];
        int nargs;
    } cases[] = {
        {QR_COLORMAP_VIRIDIS, QR_NORM_LINEAR, NAN, NAN, {"--color-by", values}, 2},
        {QR_COLORMAP_MAGMA, QR_NORM_LOG, NAN, NAN,
         {"--color-by", values, "--cmap", "magma", "--norm", "log"}, 6},
        {QR_COLORMAP_GRAY, QR_NORM_EQ_HIST, NAN, 50, {"--color-by", values, "--cmap=gray",
                                                      "--norm=eq_hist", "--vmax", "50"}, 6},
        {QR_COLORMAP_CIVIDIS, QR_NORM_LINEAR, 20, 80,
         {"--color-by", values, "--cmap", "cividis", "--vmin", "20", "--vmax", "80"}, 8},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        qr_scene *c = NULL;
        cr_assert_eq(qr_scene_clone(s, &c, &err), QR_OK);
        cr_assert_eq(qr_scene_color_by(c, vf, cases[k].cmap, cases[k].norm, cases[k].vmin,
                                       cases[k].vmax, &err),
                     QR_OK, "%s", err.msg);
        const char *pre = write_scene(c, "coloured.npy", &b[2]);
        expect_same_render(file, pre, cases[k].args, cases[k].nargs);
        /* dump writes the very same circles */
        const char *dumped = keep(&b[3], qr_test_tmp("dumped.npy"));
        const char *args[16] = {"dump", file, "-o", dumped};
        int n = 4;
        for (int j = 0; j < cases[k].nargs; j++)
            args[n++] = cases[k].args[j];
        args[n] = NULL;
        qr_cli_result res = {0};
        cr_assert_eq(qr_cli_run(NULL, args, &res), 0, "%s", res.err);
        qr_cli_result_free(&res);
        cr_expect(qr_test_same_bytes(dumped, pre), "case %zu: dump differs", k);
        qr_scene_destroy(c);
    }
    free(v);
    free(vf);
    qr_scene_destroy(s);
}

/* Each bad value: exit 2 and the library's own message for the option. */
Test(cli_map, bad_values_exit_2_with_the_library_message)
{
    path_buf b[2];
    const char *out = keep(&b[0], qr_test_tmp("bad.ppm"));
    qr_error err;
    double e[4], v;
    int is_auto, c;
    qr_aspect a;
    qr_norm nm;
    const double three[] = {1, 2, 3};
    const char *values = write_values(three, 3, "v3.npy", &b[1]);
    /* the message each check gives, then the command's stderr holds it */
    char want[QR_ERROR_MSG_MAX + 32];
#define EXPECT_REFUSED(check_call, ...)                                                          \
    do {                                                                                         \
        cr_assert_neq(check_call, QR_OK);                                                        \
        snprintf(want, sizeof want, "quadrender: %s\n", err.msg);                                \
        cr_expect_eq(RUN("render", "rgb", "-s", "16", "-o", out, __VA_ARGS__), 2, "%s", R.err);  \
        cr_expect(strncmp(R.err, want, strlen(want)) == 0, "got %s, expected %s", R.err, want);  \
    } while (0)
    EXPECT_REFUSED(qr_extent_check("--extent", "1,0,0,1", e, &is_auto, &err), "--extent",
                   "1,0,0,1");
    EXPECT_REFUSED(qr_extent_check("--extent", "0,1,0", e, &is_auto, &err), "--extent=0,1,0");
    EXPECT_REFUSED(qr_aspect_check("--data-aspect", "keep", &a, &err), "--extent", "auto",
                   "--data-aspect", "keep");
    EXPECT_REFUSED(qr_colormap_check("--cmap", "virdis", &c, &err), "--color-by", values,
                   "--cmap", "virdis");
    EXPECT_REFUSED(qr_norm_check("--norm", "log10", &nm, &err), "--color-by", values, "--norm",
                   "log10");
    EXPECT_REFUSED(qr_value_check("--vmin", "nan", &v, &err), "--color-by", values, "--vmin",
                   "nan");
    /* options that need another */
    cr_expect_eq(RUN("render", "rgb", "-s", "16", "-o", out, "--data-aspect", "stretch"), 2);
    cr_expect(strstr(R.err, "--data-aspect: only with --extent") != NULL, "%s", R.err);
    cr_expect_eq(RUN("dump", "rgb", "-o", qr_test_tmp("x.npy"), "--cmap", "magma"), 2);
    cr_expect(strstr(R.err, "--cmap: only with --color-by") != NULL, "%s", R.err);
    /* an animated scene */
    cr_expect_eq(RUN("render", "hypnosis", "-s", "16", "-o", out, "--extent", "auto"), 2);
    cr_expect(strstr(R.err, "static scenes only; hypnosis is animated") != NULL, "%s", R.err);
    cr_expect(!qr_test_exists(out));
}

Test(cli_map, bad_values_files_exit_3)
{
    path_buf b[5];
    const char *out = keep(&b[0], qr_test_tmp("bad3.ppm"));
    /* rgb has 3 circles */
    const double two[] = {1, 2}, nan3[] = {1, NAN, 3}, neg[] = {1, -2, 3};
    const char *short_file = write_values(two, 2, "two.npy", &b[1]);
    cr_expect_eq(RUN("render", "rgb", "-s", "16", "-o", out, "--color-by", short_file), 3);
    char want[600];
    snprintf(want, sizeof want, "quadrender: %s: 2 values for the 3 circles of rgb\n", short_file);
    cr_expect_str_eq(R.err, want);
    const char *nan_file = write_values(nan3, 3, "nan.npy", &b[2]);
    cr_expect_eq(RUN("render", "rgb", "-s", "16", "-o", out, "--color-by", nan_file), 3);
    cr_expect_str_eq(R.err, "quadrender: values[1]: nan is not a finite number\n");
    const char *neg_file = write_values(neg, 3, "neg.npy", &b[3]);
    cr_expect_eq(RUN("render", "rgb", "-s", "16", "-o", out, "--color-by", neg_file, "--norm",
                     "log"),
                 3);
    cr_expect_str_eq(R.err, "quadrender: values[1]: -2 is not above 0: norm log takes positive "
                            "values only\n");
    /* a 2-D file is not one value a circle */
    qr_scene *s = NULL;
    cr_assert_eq(qr_scene_builtin("rgb", 0, &s, NULL), QR_OK);
    const char *rows = write_scene(s, "rows.npy", &b[4]);
    qr_scene_destroy(s);
    cr_expect_eq(RUN("dump", "rgb", "-o", qr_test_tmp("d.npy"), "--color-by", rows), 3);
    cr_expect(strstr(R.err, "expected (N,), one value a circle") != NULL, "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "-o", out, "--color-by", qr_test_tmp("missing.npy")), 3);
    cr_expect(!qr_test_exists(out));
}

/* --alpha, --background and --antialias: a number for every circle equals a file of
 * that number a circle; 0.5 over white is the plain picture; each changes
 * the picture; bad values exit 2 with the library's message, bad files 3;
 * snow-shaded scenes refuse them, dump has neither. */
Test(cli_map, alpha_and_background)
{
    path_buf b[8];
    const char *num = keep(&b[0], qr_test_tmp("alpha_num.ppm"));
    const char *file = keep(&b[1], qr_test_tmp("alpha_file.ppm"));
    const char *plain = keep(&b[2], qr_test_tmp("alpha_plain.ppm"));
    const char *half = keep(&b[3], qr_test_tmp("alpha_half.ppm"));
    double v[10000];
    for (int k = 0; k < 10000; k++) v[k] = 0.75;
    const char *values = write_values(v, 10000, "alpha.npy", &b[4]);
    for (int exact = 0; exact < 2; exact++) {
        const char *mode = exact ? "--exact" : "--fast";
        cr_assert_eq(RUN("render", "rand10k", "-s", "64", "--device", "cpu", mode, "--alpha",
                         "0.75", "--background", "#204060", "-o", num),
                     0, "%s", R.err);
        cr_assert_eq(RUN("render", "rand10k", "-s", "64", "--device", "cpu", mode, "--alpha",
                         values, "--background=0.1254902,0.2509804,0.3764706", "-o", file),
                     0, "%s", R.err);
        cr_expect(qr_test_same_bytes(num, file), "--alpha 0.75 and a file of 0.75");
        cr_assert_eq(RUN("render", "rand10k", "-s", "64", "--device", "cpu", mode, "-o", plain),
                     0, "%s", R.err);
        cr_assert_eq(RUN("render", "rand10k", "-s", "64", "--device", "cpu", mode, "--alpha",
                         "0.5", "--background", "white", "-o", half),
                     0, "%s", R.err);
        cr_expect(qr_test_same_bytes(plain, half), "alpha 0.5 over white is the plain picture");
        cr_expect(!qr_test_same_bytes(plain, num), "the options change the picture");
    }
    qr_error err;
    float a, rgb[3];
    char want[QR_ERROR_MSG_MAX + 32];
    cr_assert_eq(qr_alpha_check("--alpha", "1.5", &a, &err), QR_ERR_INVALID);
    snprintf(want, sizeof want, "quadrender: %s\n", err.msg);
    cr_expect_eq(RUN("render", "rgb", "-s", "16", "-o", num, "--alpha", "1.5"), 2);
    cr_expect(strncmp(R.err, want, strlen(want)) == 0, "%s", R.err);
    int none;
    cr_assert_eq(qr_background_check("--background", "grey", rgb, &none, &err), QR_ERR_INVALID);
    snprintf(want, sizeof want, "quadrender: %s\n", err.msg);
    cr_expect_eq(RUN("render", "rgb", "-s", "16", "-o", num, "--background", "grey"), 2);
    cr_expect(strncmp(R.err, want, strlen(want)) == 0, "%s", R.err);
    const double two[] = {0.5, 0.5}, bad[] = {0.5, 2.0, 0.5};
    const char *short_file = write_values(two, 2, "alpha2.npy", &b[5]);
    const char *out = keep(&b[6], qr_test_tmp("alpha_bad.ppm"));
    cr_expect_eq(RUN("render", "rgb", "-s", "16", "-o", out, "--alpha", short_file), 3);
    snprintf(want, sizeof want, "quadrender: %s: 2 alphas for the 3 circles of rgb\n", short_file);
    cr_expect_str_eq(R.err, want);
    const char *bad_file = write_values(bad, 3, "alpha_bad.npy", &b[7]);
    cr_expect_eq(RUN("render", "rgb", "-s", "16", "-o", out, "--alpha", bad_file), 3);
    cr_expect_str_eq(R.err, "quadrender: --alpha: circle 1's alpha 2 is not between 0 and 1\n");
    cr_expect_eq(RUN("render", "snowsingle", "-s", "16", "-o", out, "--background", "black"), 2);
    cr_expect(strstr(R.err, "--background: flat scenes only; snowsingle is snow-shaded"), "%s",
              R.err);
    cr_expect(!qr_test_exists(out));
    cr_expect_eq(RUN("dump", "rgb", "-o", qr_test_tmp("d.npy"), "--alpha", "0.3"), 2);
    /* --antialias: the fast CPU renderer's exact image is the reference's,
     * and not the hard-edged one */
    cr_assert_eq(RUN("render", "rand10k", "-s", "64", "--device", "cpu", "--exact", "--antialias",
                     "--alpha", values, "-o", num),
                 0, "%s", R.err);
    cr_assert_eq(RUN("render", "rand10k", "-s", "64", "--device", "cpu-reference", "--antialias",
                     "--alpha", "0.75", "-o", file),
                 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(num, file), "--antialias: exact CPU and the reference");
    cr_assert_eq(RUN("render", "rand10k", "-s", "64", "--device", "cpu", "--exact", "--alpha",
                     "0.75", "-o", plain),
                 0, "%s", R.err);
    cr_expect(!qr_test_same_bytes(num, plain), "--antialias changes the picture");
    cr_expect_eq(RUN("render", "snowsingle", "-s", "16", "-o", out, "--antialias"), 2);
    cr_expect(strstr(R.err, "--antialias: flat scenes only") != NULL, "%s", R.err);
}
