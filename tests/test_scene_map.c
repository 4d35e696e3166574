/* test_scene_map.c — quadrender/scene_map.h: extents against mappings
 * worked out by hand on scenes of a few circles (both aspects, the
 * circles' own bounds, a zero-size axis), the refusals and their one-line
 * messages, colour by value against the colormaps' table entries with each
 * norm (log, eq_hist's ranks and ties), and the checks of the user's values. */
#include "test_util.h"

#include <math.h>

#include "quadrender/scene_map.h"

/* A static scene of n circles with the given x, y, r; z and colours 0. */
static qr_scene *scene_of(int n, const float *x, const float *y, const float *r)
{
    qr_scene *s = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_create(n, QR_ANIM_NONE, &s, &err), QR_OK, "%s", err.msg);
    for (int i = 0; i < n; i++) {
        s->x[i] = x[i];
        s->y[i] = y[i];
        s->r[i] = r[i];
    }
    return s;
}

#define EXPECT_NEAR(a, b) cr_expect(fabs((double)(a) - (double)(b)) < 1e-6, "%s = %.9g, expected %.9g", #a, (double)(a), (double)(b))

/* ---- extent -------------------------------------------------------------- */

Test(scene_map, extent_equal_centres_the_shorter_axis)
{
    /* extent x 0..4, y 10..12: s = 1/4; y's span 2 * 1/4 = 0.5, centred: shift 0.25 */
    const float x[] = {0, 4, 2}, y[] = {10, 12, 11}, r[] = {1, 0.5f, 0};
    qr_scene *s = scene_of(3, x, y, r);
    double ext[4] = {0, 4, 10, 12}, used[4];
    qr_error err;
    cr_assert_eq(qr_scene_fit_extent(s, ext, QR_ASPECT_EQUAL, used, &err), QR_OK, "%s", err.msg);
    EXPECT_NEAR(s->x[0], 0.0);
    EXPECT_NEAR(s->x[1], 1.0);
    EXPECT_NEAR(s->x[2], 0.5);
    EXPECT_NEAR(s->y[0], 0.25);
    EXPECT_NEAR(s->y[1], 0.75);
    EXPECT_NEAR(s->y[2], 0.5);
    EXPECT_NEAR(s->r[0], 0.25);
    EXPECT_NEAR(s->r[1], 0.125);
    EXPECT_NEAR(s->r[2], 0.0);
    for (int k = 0; k < 4; k++)
        cr_expect_eq(used[k], ext[k]);
    qr_scene_destroy(s);
}

Test(scene_map, extent_stretch_scales_each_axis)
{
    /* x 0..4 (sx 1/4), y 10..11 (sy 1): radii by sqrt(1/4 * 1) = 1/2 */
    const float x[] = {1, 3}, y[] = {10.5f, 11}, r[] = {1, 0.25f};
    qr_scene *s = scene_of(2, x, y, r);
    double ext[4] = {0, 4, 10, 11};
    qr_error err;
    cr_assert_eq(qr_scene_fit_extent(s, ext, QR_ASPECT_STRETCH, NULL, &err), QR_OK, "%s", err.msg);
    EXPECT_NEAR(s->x[0], 0.25);
    EXPECT_NEAR(s->x[1], 0.75);
    EXPECT_NEAR(s->y[0], 0.5);
    EXPECT_NEAR(s->y[1], 1.0);
    EXPECT_NEAR(s->r[0], 0.5);
    EXPECT_NEAR(s->r[1], 0.125);
    qr_scene_destroy(s);
}

Test(scene_map, extent_auto_is_the_bounds_with_radii)
{
    /* bounds: x -1..5 (circle 0's left edge, circle 1's right), y 0..3 */
    const float x[] = {0, 4}, y[] = {1, 2}, r[] = {1, 1};
    qr_scene *s = scene_of(2, x, y, r);
    double used[4];
    qr_error err;
    cr_assert_eq(qr_scene_fit_extent(s, NULL, QR_ASPECT_EQUAL, used, &err), QR_OK, "%s", err.msg);
    cr_expect_eq(used[0], -1.0);
    cr_expect_eq(used[1], 5.0);
    cr_expect_eq(used[2], 0.0);
    cr_expect_eq(used[3], 3.0);
    /* s = 1/6, y shift (1 - 3/6)/2 = 0.25 */
    EXPECT_NEAR(s->x[0], 1.0 / 6);
    EXPECT_NEAR(s->x[1], 5.0 / 6);
    EXPECT_NEAR(s->y[0], 0.25 + 1.0 / 6);
    EXPECT_NEAR(s->y[1], 0.25 + 2.0 / 6);
    EXPECT_NEAR(s->r[0], 1.0 / 6);
    /* every circle lies inside the square */
    for (int i = 0; i < 2; i++)
        cr_expect(s->x[i] - s->r[i] >= -1e-6 && s->x[i] + s->r[i] <= 1 + 1e-6);
    qr_scene_destroy(s);
}

Test(scene_map, extent_auto_widens_a_zero_size_axis)
{
    /* one circle of radius 0 at (3, 7): both axes widened to size 1 around it */
    const float x[] = {3}, y[] = {7}, r[] = {0};
    qr_scene *s = scene_of(1, x, y, r);
    double used[4];
    qr_error err;
    cr_assert_eq(qr_scene_fit_extent(s, NULL, QR_ASPECT_EQUAL, used, &err), QR_OK, "%s", err.msg);
    cr_expect_eq(used[0], 2.5);
    cr_expect_eq(used[1], 3.5);
    cr_expect_eq(used[2], 6.5);
    cr_expect_eq(used[3], 7.5);
    EXPECT_NEAR(s->x[0], 0.5);
    EXPECT_NEAR(s->y[0], 0.5);
    qr_scene_destroy(s);
    /* one circle of radius 2: its own bounds, no widening */
    const float r2[] = {2};
    s = scene_of(1, x, y, r2);
    cr_assert_eq(qr_scene_fit_extent(s, NULL, QR_ASPECT_STRETCH, used, &err), QR_OK);
    cr_expect_eq(used[0], 1.0);
    cr_expect_eq(used[1], 5.0);
    EXPECT_NEAR(s->r[0], 0.5);
    qr_scene_destroy(s);
}

Test(scene_map, extent_refusals_leave_the_scene)
{
    const float x[] = {1}, y[] = {1}, r[] = {1};
    qr_scene *s = scene_of(1, x, y, r);
    qr_error err;
    double inverted[4] = {1, 0, 0, 1}, empty[4] = {0, 1, 2, 2}, inf[4] = {0, INFINITY, 0, 1};
    cr_expect_eq(qr_scene_fit_extent(s, inverted, QR_ASPECT_EQUAL, NULL, &err), QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "extent (1, 0, 0, 1) is empty or inverted: expected x0 < x1 and "
                              "y0 < y1");
    cr_expect_eq(qr_scene_fit_extent(s, empty, QR_ASPECT_EQUAL, NULL, &err), QR_ERR_INVALID);
    cr_expect(strstr(err.msg, "empty or inverted") != NULL, "%s", err.msg);
    cr_expect_eq(qr_scene_fit_extent(s, inf, QR_ASPECT_EQUAL, NULL, &err), QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "extent (0, inf, 0, 1): every bound must be a finite number");
    double tiny[4] = {0, 1e-300, 0, 1e-300};
    cr_expect_eq(qr_scene_fit_extent(s, tiny, QR_ASPECT_EQUAL, NULL, &err), QR_ERR_INVALID);
    cr_expect(strstr(err.msg, "maps beyond float's range") != NULL, "%s", err.msg);
    s->x[0] = NAN;
    cr_expect_eq(qr_scene_fit_extent(s, NULL, QR_ASPECT_EQUAL, NULL, &err), QR_ERR_INVALID);
    cr_expect(strncmp(err.msg, "extent: circle 0", 16) == 0, "%s", err.msg);
    s->x[0] = 1;
    cr_expect_eq(s->y[0], 1.0f);
    cr_expect_eq(s->r[0], 1.0f);
    qr_scene_destroy(s);
}

Test(scene_map, extent_of_no_circles)
{
    qr_scene *s = scene_of(0, NULL, NULL, NULL);
    double used[4];
    qr_error err;
    cr_expect_eq(qr_scene_fit_extent(s, NULL, QR_ASPECT_EQUAL, used, &err), QR_OK);
    cr_expect(used[0] == 0 && used[1] == 1 && used[2] == 0 && used[3] == 1);
    qr_scene_destroy(s);
}

/* ---- colour by ------------------------------------------------------------- */

/* Whether circle i holds entry e of colormap c. */
static void expect_entry(const qr_scene *s, int i, int c, int e)
{
    const float *t = qr_colormap_rgb(c) + 3 * e;
    cr_expect(s->red[i] == t[0] && s->green[i] == t[1] && s->blue[i] == t[2],
              "circle %d: (%g, %g, %g), expected entry %d (%g, %g, %g)", i, s->red[i],
              s->green[i], s->blue[i], e, t[0], t[1], t[2]);
}

static qr_scene *n_circles(int n)
{
    qr_scene *s = NULL;
    cr_assert_eq(qr_scene_create(n, QR_ANIM_NONE, &s, NULL), QR_OK);
    return s;
}

Test(scene_map, color_by_linear)
{
    qr_scene *s = n_circles(5);
    const float v[] = {0, 10, 5, 2, 7.5f};
    qr_error err;
    cr_assert_eq(qr_scene_color_by(s, v, QR_COLORMAP_VIRIDIS, QR_NORM_LINEAR, NAN, NAN, &err),
                 QR_OK, "%s", err.msg);
    expect_entry(s, 0, QR_COLORMAP_VIRIDIS, 0);
    expect_entry(s, 1, QR_COLORMAP_VIRIDIS, 255);
    expect_entry(s, 2, QR_COLORMAP_VIRIDIS, 128); /* round(127.5) */
    expect_entry(s, 3, QR_COLORMAP_VIRIDIS, 51);
    expect_entry(s, 4, QR_COLORMAP_VIRIDIS, 191); /* round(191.25) */
    /* given bounds clamp */
    cr_assert_eq(qr_scene_color_by(s, v, QR_COLORMAP_MAGMA, QR_NORM_LINEAR, 2, 7.5, &err), QR_OK);
    expect_entry(s, 0, QR_COLORMAP_MAGMA, 0);
    expect_entry(s, 1, QR_COLORMAP_MAGMA, 255);
    expect_entry(s, 3, QR_COLORMAP_MAGMA, 0);
    expect_entry(s, 4, QR_COLORMAP_MAGMA, 255);
    /* vmin == vmax: t 0 */
    cr_assert_eq(qr_scene_color_by(s, v, QR_COLORMAP_GRAY, QR_NORM_LINEAR, 3, 3, &err), QR_OK);
    for (int i = 0; i < 5; i++)
        expect_entry(s, i, QR_COLORMAP_GRAY, 0);
    qr_scene_destroy(s);
}

Test(scene_map, color_by_log)
{
    qr_scene *s = n_circles(3);
    const float v[] = {1, 100, 10};
    qr_error err;
    cr_assert_eq(qr_scene_color_by(s, v, QR_COLORMAP_PLASMA, QR_NORM_LOG, NAN, NAN, &err), QR_OK,
                 "%s", err.msg);
    expect_entry(s, 0, QR_COLORMAP_PLASMA, 0);
    expect_entry(s, 1, QR_COLORMAP_PLASMA, 255);
    expect_entry(s, 2, QR_COLORMAP_PLASMA, 128);
    const float bad[] = {1, 0, -2};
    cr_expect_eq(qr_scene_color_by(s, bad, QR_COLORMAP_PLASMA, QR_NORM_LOG, NAN, NAN, &err),
                 QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "values[1]: 0 is not above 0: norm log takes positive values only");
    cr_expect_eq(qr_scene_color_by(s, v, QR_COLORMAP_PLASMA, QR_NORM_LOG, -1, NAN, &err),
                 QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "vmin -1, vmax 100: norm log takes bounds above 0 only");
    /* the scene kept the colours of the last success */
    expect_entry(s, 1, QR_COLORMAP_PLASMA, 255);
    qr_scene_destroy(s);
}

Test(scene_map, color_by_eq_hist_ranks_and_ties)
{
    /* sorted: 1 2 2 2 1000; n - 1 = 4. 1: rank 0; 2s: 1 + (3-1)/2 = 2 -> t 0.5; 1000: 4 */
    qr_scene *s = n_circles(5);
    const float v[] = {2, 1000, 1, 2, 2};
    qr_error err;
    cr_assert_eq(qr_scene_color_by(s, v, QR_COLORMAP_INFERNO, QR_NORM_EQ_HIST, NAN, NAN, &err),
                 QR_OK, "%s", err.msg);
    expect_entry(s, 2, QR_COLORMAP_INFERNO, 0);
    expect_entry(s, 0, QR_COLORMAP_INFERNO, 128);
    expect_entry(s, 3, QR_COLORMAP_INFERNO, 128);
    expect_entry(s, 4, QR_COLORMAP_INFERNO, 128);
    expect_entry(s, 1, QR_COLORMAP_INFERNO, 255);
    /* with vmax 2, 1000 clamps to 2 and ties with them: 4 equal, below 1: 1 + 1.5 = 2.5 / 4 */
    cr_assert_eq(qr_scene_color_by(s, v, QR_COLORMAP_INFERNO, QR_NORM_EQ_HIST, NAN, 2, &err),
                 QR_OK);
    expect_entry(s, 1, QR_COLORMAP_INFERNO, 159); /* round(0.625 * 255) = round(159.375) */
    expect_entry(s, 0, QR_COLORMAP_INFERNO, 159);
    qr_scene_destroy(s);
    /* one circle: the middle */
    s = n_circles(1);
    cr_assert_eq(qr_scene_color_by(s, v, QR_COLORMAP_CIVIDIS, QR_NORM_EQ_HIST, NAN, NAN, &err),
                 QR_OK);
    expect_entry(s, 0, QR_COLORMAP_CIVIDIS, 128);
    qr_scene_destroy(s);
}

Test(scene_map, color_by_is_deterministic)
{
    enum { N = 5000 };
    static float v[N];
    uint32_t h = 12345;
    for (int i = 0; i < N; i++) {
        h = h * 1664525u + 1013904223u;
        v[i] = (float)((h >> 20) + 1) / 7.0f; /* many ties, all above 0 */
    }
    qr_scene *a = n_circles(N), *b = n_circles(N);
    qr_error err;
    for (int norm = 0; norm < 3; norm++) {
        cr_assert_eq(qr_scene_color_by(a, v, QR_COLORMAP_VIRIDIS, (qr_norm)norm, NAN, NAN, &err),
                     QR_OK, "%s", err.msg);
        cr_assert_eq(qr_scene_color_by(b, v, QR_COLORMAP_VIRIDIS, (qr_norm)norm, NAN, NAN, &err),
                     QR_OK);
        cr_expect(memcmp(a->block, b->block, a->block_floats * sizeof(float)) == 0);
        /* equal values, equal colours; order of values, order of entries (viridis' red
         * is not monotone, so the entry is found back by the green channel, which is) */
        for (int i = 1; i < N; i++)
            if (v[i] == v[0])
                cr_expect(a->green[i] == a->green[0]);
    }
    qr_scene_destroy(a);
    qr_scene_destroy(b);
}

Test(scene_map, color_by_refusals)
{
    qr_scene *s = n_circles(3);
    const float nan_v[] = {1, 2, NAN}, v[] = {1, 2, 3};
    qr_error err;
    cr_expect_eq(qr_scene_color_by(s, nan_v, QR_COLORMAP_GRAY, QR_NORM_LINEAR, NAN, NAN, &err),
                 QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "values[2]: nan is not a finite number");
    cr_expect_eq(qr_scene_color_by(s, v, QR_COLORMAP_GRAY, QR_NORM_LINEAR, 3, 1, &err),
                 QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "vmin 3 is above vmax 1");
    cr_expect_eq(qr_scene_color_by(s, v, QR_COLORMAP_COUNT, QR_NORM_LINEAR, NAN, NAN, &err),
                 QR_ERR_INVALID);
    cr_expect_eq(qr_scene_color_by(s, v, 0, (qr_norm)7, NAN, NAN, &err), QR_ERR_INVALID);
    cr_expect_eq(qr_scene_color_by(s, v, 0, QR_NORM_LINEAR, INFINITY, NAN, &err), QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "vmin: inf is not a finite number");
    for (int i = 0; i < 3; i++)
        cr_expect(s->red[i] == 0 && s->green[i] == 0 && s->blue[i] == 0);
    qr_scene_destroy(s);
}

Test(scene_map, colormap_tables)
{
    int n;
    const char *const *names = qr_colormap_names(&n);
    cr_assert_eq(n, QR_COLORMAP_COUNT);
    cr_expect_str_eq(names[QR_COLORMAP_VIRIDIS], "viridis");
    cr_expect_str_eq(names[QR_COLORMAP_GRAY], "gray");
    const float *gray = qr_colormap_rgb(QR_COLORMAP_GRAY);
    for (int i = 0; i < QR_COLORMAP_ENTRIES; i++)
        cr_expect(fabsf(gray[3 * i] - i / 255.0f) < 1e-6f && gray[3 * i] == gray[3 * i + 2]);
    /* viridis' ends, as matplotlib's _cm_listed gives them */
    const float *vir = qr_colormap_rgb(QR_COLORMAP_VIRIDIS);
    cr_expect(fabsf(vir[0] - 0.267004f) < 1e-6f && fabsf(vir[2] - 0.329415f) < 1e-6f);
    cr_expect(fabsf(vir[3 * 255] - 0.993248f) < 1e-6f && fabsf(vir[3 * 255 + 1] - 0.906157f) < 1e-6f);
    cr_expect_null(qr_colormap_rgb(-1));
    cr_expect_null(qr_colormap_rgb(QR_COLORMAP_COUNT));
}

/* ---- the user's values ---------------------------------------------------------- */

Test(scene_map, checks_and_messages)
{
    qr_error err;
    int c;
    cr_expect_eq(qr_colormap_check("--cmap", "magma", &c, &err), QR_OK);
    cr_expect_eq(c, QR_COLORMAP_MAGMA);
    cr_expect_eq(qr_colormap_check("--cmap", "viridsi", &c, &err), QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "--cmap: expected viridis, magma, inferno, plasma, cividis or "
                              "gray, got 'viridsi' (did you mean 'viridis'?)");
    cr_expect_eq(qr_colormap_check("cmap", "jet", &c, &err), QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "cmap: expected viridis, magma, inferno, plasma, cividis or gray, "
                              "got 'jet'");
    qr_aspect a;
    cr_expect_eq(qr_aspect_check("aspect", "stretch", &a, &err), QR_OK);
    cr_expect_eq(a, QR_ASPECT_STRETCH);
    cr_expect_eq(qr_aspect_check("aspect", "keep", &a, &err), QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "aspect: expected equal or stretch, got 'keep'");
    qr_norm nm;
    cr_expect_eq(qr_norm_check("--norm", "eq_hist", &nm, &err), QR_OK);
    cr_expect_eq(nm, QR_NORM_EQ_HIST);
    cr_expect_eq(qr_norm_check("--norm", "sqrt", &nm, &err), QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "--norm: expected linear, log or eq_hist, got 'sqrt'");
    double e[4], v;
    int is_auto = -1;
    cr_expect_eq(qr_extent_check("--extent", "auto", e, &is_auto, &err), QR_OK);
    cr_expect_eq(is_auto, 1);
    cr_expect_eq(qr_extent_check("--extent", "-1.5,2,1e3,2e3", e, &is_auto, &err), QR_OK);
    cr_expect(is_auto == 0 && e[0] == -1.5 && e[1] == 2 && e[2] == 1000 && e[3] == 2000);
    const char *bad[] = {"1,0,0,1", "0,1,0", "0,1,0,1,", "0,1,0,1,2", "0, 1,0,1", "0,inf,0,1",
                         "0,1,nan,1", "", "0,,0,1", "a,b,c,d", "0,1,1,1"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        cr_expect_eq(qr_extent_check("--extent", bad[k], e, &is_auto, &err), QR_ERR_INVALID, "%s",
                     bad[k]);
        char want[200];
        snprintf(want, sizeof want,
                 "--extent: expected auto or X0,X1,Y0,Y1, four finite numbers with X0 < X1 and "
                 "Y0 < Y1, got '%s'",
                 bad[k]);
        cr_expect_str_eq(err.msg, want);
    }
    cr_expect_eq(qr_value_check("--vmin", "-0.25", &v, &err), QR_OK);
    cr_expect_eq(v, -0.25);
    cr_expect_eq(qr_value_check("--vmax", "nan", &v, &err), QR_ERR_INVALID);
    cr_expect_str_eq(err.msg, "--vmax: expected a finite number, got 'nan'");
}

/* Options that need another, in each front end's spelling, and the
 * transforms' refusal of an animated scene (its steps would move the
 * mapped circles within the unit square). */
Test(scene_map, options_that_need_another_and_animated_scenes)
{
    qr_error err;
    const char *const cli[QR_MAPO_COUNT] = {"--extent", "--data-aspect", "--color-by", "--cmap",
                                            "--norm", "--vmin", "--vmax"};
    cr_assert_eq(qr_scene_map_check_options(0, cli, &err), QR_OK);
    cr_assert_eq(qr_scene_map_check_options((1u << QR_MAPO_EXTENT) | (1u << QR_MAPO_ASPECT), cli,
                                            &err),
                 QR_OK);
    cr_assert_eq(qr_scene_map_check_options(1u << QR_MAPO_ASPECT, cli, &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "--data-aspect: only with --extent");
    for (int k = QR_MAPO_CMAP; k <= QR_MAPO_VMAX; k++) {
        cr_assert_eq(qr_scene_map_check_options((1u << k) | (1u << QR_MAPO_VALUES), cli, &err),
                     QR_OK);
        cr_assert_eq(qr_scene_map_check_options(1u << k, cli, &err), QR_ERR_INVALID);
        char want[64];
        snprintf(want, sizeof want, "%s: only with --color-by", cli[k]);
        cr_assert_str_eq(err.msg, want);
    }
    qr_scene *s;
    QR_CHECK(err, qr_scene_builtin("hypnosis", 0, &s, &err));
    const float x0 = s->x[0], r0 = s->red[0];
    float *v = calloc((size_t)s->n, sizeof *v);
    cr_assert_eq(qr_scene_fit_extent(s, NULL, QR_ASPECT_EQUAL, NULL, &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "data coordinates and colours: static scenes only; hypnosis is animated");
    cr_assert_eq(qr_scene_color_by(s, v, 0, QR_NORM_LINEAR, NAN, NAN, &err), QR_ERR_INVALID);
    cr_assert(s->x[0] == x0 && s->red[0] == r0, "a refused transform changed the scene");
    free(v);
    qr_scene_destroy(s);
}
