/* cli_map.c — the data options of render and dump: circles in data
 * coordinates (--extent, --data-aspect) and coloured by a value
 * (--color-by, --cmap, --norm, --vmin, --vmax), applied to the loaded scene
 * by the library's functions (quadrender/scene_map.h; see cli.h). */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/npy.h"
#include "quadrender/scene_map.h"

static const char *set_extent(const char *text, void *dest)
{
    cli_map_opts *m = dest;
    qr_error err;
    return cli_checked(qr_extent_check(cli_setting(), text, m->extent, &m->extent_auto, &err),
                       &err);
}

static const char *set_aspect(const char *text, void *dest)
{
    qr_error err;
    qr_aspect a;
    const char *why = cli_checked(qr_aspect_check(cli_setting(), text, &a, &err), &err);
    if (!why)
        *(int *)dest = (int)a;
    return why;
}

static const char *set_cmap(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_colormap_check(cli_setting(), text, dest, &err), &err);
}

static const char *set_norm(const char *text, void *dest)
{
    qr_error err;
    qr_norm n;
    const char *why = cli_checked(qr_norm_check(cli_setting(), text, &n, &err), &err);
    if (!why)
        *(int *)dest = (int)n;
    return why;
}

static const char *set_value(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_value_check(cli_setting(), text, dest, &err), &err);
}

void cli_map_opts_init(cli_opt *opts, cli_map_opts *m)
{
    memset(m, 0, sizeof *m);
    m->aspect = QR_ASPECT_EQUAL;
    m->cmap = QR_COLORMAP_VIRIDIS;
    m->norm = QR_NORM_LINEAR;
    m->vmin = m->vmax = NAN;
    const cli_opt o[CLI_MAP_NOPTS] = {
        [CLI_MO_EXTENT] = {"--extent", NULL, "EXT", set_extent, m,
                           "the circles are in data coordinates: auto (their own bounds, radii "
                           "included) or X0,X1,Y0,Y1, mapped onto the unit square"},
        [CLI_MO_ASPECT] = {"--data-aspect", NULL, "HOW", set_aspect, &m->aspect,
                           "with --extent: equal (one scale, the longer side fills the square; "
                           "default) or stretch (a scale an axis)"},
        [CLI_MO_COLOR_BY] = {"--color-by", NULL, "FILE", cli_set_string, &m->color_by,
                             "colour each circle by its value: a .npy of shape (N,), float32 or "
                             "float64, one value a circle"},
        [CLI_MO_CMAP] = {"--cmap", NULL, "NAME", set_cmap, &m->cmap,
                         "with --color-by: viridis (default), magma, inferno, plasma, cividis "
                         "or gray"},
        [CLI_MO_NORM] = {"--norm", NULL, "NORM", set_norm, &m->norm,
                         "with --color-by: linear (default), log or eq_hist"},
        [CLI_MO_VMIN] = {"--vmin", NULL, "V", set_value, &m->vmin,
                         "with --color-by: the value of the colormap's first entry (default: "
                         "the least value)"},
        [CLI_MO_VMAX] = {"--vmax", NULL, "V", set_value, &m->vmax,
                         "with --color-by: the value of its last entry (default: the greatest)"},
    };
    memcpy(opts, o, sizeof o);
}

int cli_map_opts_finish(const cli_cmd *cmd, const cli_opt *opts, cli_map_opts *m)
{
    m->extent_given = opts[CLI_MO_EXTENT].given > 0;
    _Static_assert((int)CLI_MAP_NOPTS == (int)QR_MAPO_COUNT &&
                       (int)CLI_MO_COLOR_BY == (int)QR_MAPO_VALUES &&
                       (int)CLI_MO_VMAX == (int)QR_MAPO_VMAX,
                   "the data options in the library's order");
    unsigned given = 0;
    const char *names[CLI_MAP_NOPTS];
    for (int k = 0; k < CLI_MAP_NOPTS; k++) {
        names[k] = opts[k].name;
        given |= opts[k].given ? 1u << k : 0u;
    }
    qr_error err;
    if (qr_scene_map_check_options(given, names, &err) != QR_OK)
        return cli_usage_error(cmd, "%s", err.msg);
    return CLI_EXIT_OK;
}

/* A transform's refusal: the input's fault (exit 3), but for an animated
 * or snow-shaded scene, which the options given cannot apply to (exit 2). */
static int map_fail(const qr_error *err, const qr_scene *scene)
{
    if (scene->anim == QR_ANIM_NONE && scene->shading == QR_SHADE_FLAT)
        return cli_fail(err, CLI_PHASE_INPUT);
    cli_message("%s", err->msg);
    return CLI_EXIT_USAGE;
}

/* The scale of values v[0..n-1] (n >= 1, every one finite; above 0 for
 * log) coloured through m (see cli_color_scale). */
static void color_scale(const cli_map_opts *m, const float *v, int64_t n, cli_color_scale *out)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    int count = 0;
    out->on = 1;
    out->cmap = qr_colormap_names(&count)[m->cmap];
    out->rgb = qr_colormap_rgb(m->cmap);
    out->norm = m->norm == QR_NORM_LOG ? "log" : m->norm == QR_NORM_EQ_HIST ? "eq_hist" : "linear";
    out->vmin = isnan(m->vmin) ? lo : m->vmin;
    out->vmax = isnan(m->vmax) ? hi : m->vmax;
    double *sample = NULL;
    int ns = 0;
    if (m->norm == QR_NORM_EQ_HIST) {
        if (!(sample = malloc(65536 * sizeof *sample))) {
            out->on = 0; /* no bar, but the picture is coloured */
            return;
        }
        const int64_t stride = (n + 65535) / 65536;
        for (int64_t i = 0; i < n && ns < 65536; i += stride) {
            const double x = v[i];
            sample[ns++] = x < out->vmin ? out->vmin : x > out->vmax ? out->vmax : x;
        }
        cli_sort_doubles(sample, ns);
    }
    for (int k = 0; k < CLI_SCALE_TICKS; k++) {
        const double t = (double)k / (CLI_SCALE_TICKS - 1);
        out->t[k] = t;
        if (m->norm == QR_NORM_EQ_HIST)
            out->value[k] = cli_quantile(sample, ns, t);
        else if (m->norm == QR_NORM_LOG)
            out->value[k] = exp(log(out->vmin) + t * (log(out->vmax) - log(out->vmin)));
        else
            out->value[k] = out->vmin + t * (out->vmax - out->vmin);
    }
    free(sample);
}

int cli_map_apply(const cli_map_opts *m, qr_scene *scene, cli_color_scale *scale)
{
    if (scale)
        memset(scale, 0, sizeof *scale);
    if (!m->extent_given && !m->color_by && !m->alpha && !m->background_given && !m->antialias)
        return CLI_EXIT_OK;
    qr_error err;
    if (cli_picture_apply(m, scene, &err) != QR_OK)
        return map_fail(&err, scene);
    if (m->color_by) {
        float *values = NULL;
        int64_t rows = 0;
        qr_status st = cli_read_per_circle(m->color_by, "value", scene, &values, &rows, &err);
        if (st == QR_OK)
            st = qr_scene_color_by(scene, values, m->cmap, (qr_norm)m->norm, m->vmin, m->vmax,
                                   &err);
        if (st == QR_OK && scale && rows > 0)
            color_scale(m, values, rows, scale);
        free(values);
        if (st != QR_OK)
            return map_fail(&err, scene);
    }
    if (m->extent_given &&
        qr_scene_fit_extent(scene, m->extent_auto ? NULL : m->extent, (qr_aspect)m->aspect, NULL,
                            &err) != QR_OK)
        return map_fail(&err, scene);
    return CLI_EXIT_OK;
}
