/* scene_map.c — circles from data coordinates into the unit square, and
 * their colours from values through a norm and a colormap
 * (quadrender/scene_map.h); the tables are colormaps.c's. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/memory.h"
#include "quadrender/scene_map.h"
#include "quadrender/text.h"
#include "scene/colormaps.h"

const char *const *qr_colormap_names(int *count)
{
    if (count)
        *count = QR_COLORMAP_COUNT;
    return qr_colormap_names_table;
}

const float *qr_colormap_rgb(int colormap)
{
    if (colormap < 0 || colormap >= QR_COLORMAP_COUNT)
        return NULL;
    return &qr_colormap_table[colormap][0][0];
}

/* ---- checks ------------------------------------------------------------------------ */

qr_status qr_colormap_check(const char *name, const char *text, int *out, qr_error *err)
{
    for (int k = 0; text && k < QR_COLORMAP_COUNT; k++)
        if (!strcmp(text, qr_colormap_names_table[k])) {
            *out = k;
            return QR_OK;
        }
    const char *expected = "viridis, magma, inferno, plasma, cividis or gray";
    const char *near = text ? qr_text_nearest(text, qr_colormap_names_table, QR_COLORMAP_COUNT)
                            : NULL;
    qr_status st = qr_text_refuse(name, text, expected, err);
    if (near && err) {
        size_t len = strlen(err->msg);
        snprintf(err->msg + len, sizeof err->msg - len, " (did you mean '%s'?)", near);
    }
    return st;
}

qr_status qr_aspect_check(const char *name, const char *text, qr_aspect *out, qr_error *err)
{
    if (text && !strcmp(text, "equal"))
        *out = QR_ASPECT_EQUAL;
    else if (text && !strcmp(text, "stretch"))
        *out = QR_ASPECT_STRETCH;
    else
        return qr_text_refuse(name, text, "equal or stretch", err);
    return QR_OK;
}

qr_status qr_norm_check(const char *name, const char *text, qr_norm *out, qr_error *err)
{
    if (text && !strcmp(text, "linear"))
        *out = QR_NORM_LINEAR;
    else if (text && !strcmp(text, "log"))
        *out = QR_NORM_LOG;
    else if (text && !strcmp(text, "eq_hist"))
        *out = QR_NORM_EQ_HIST;
    else
        return qr_text_refuse(name, text, "linear, log or eq_hist", err);
    return QR_OK;
}

/* A finite number spanning text[0..len) whole, as strtod reads it (no
 * blank before it: strtod would skip one). */
static int parse_finite(const char *text, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (buf[0] == ' ' || (buf[0] >= '\t' && buf[0] <= '\r'))
        return 0;
    char *end;
    double v = strtod(buf, &end);
    if (*end || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

qr_status qr_extent_check(const char *name, const char *text, double extent[4], int *is_auto,
                          qr_error *err)
{
    const char *expected = "auto or X0,X1,Y0,Y1, four finite numbers with X0 < X1 and Y0 < Y1";
    if (text && !strcmp(text, "auto")) {
        *is_auto = 1;
        return QR_OK;
    }
    double e[4];
    const char *p = text;
    for (int k = 0; p && k < 4; k++) {
        size_t len = strcspn(p, ",");
        if (!parse_finite(p, len, &e[k]) || (k < 3) != (p[len] == ','))
            return qr_text_refuse(name, text, expected, err);
        p += len + (k < 3);
    }
    if (!text || !(e[0] < e[1] && e[2] < e[3]))
        return qr_text_refuse(name, text, expected, err);
    memcpy(extent, e, sizeof e);
    *is_auto = 0;
    return QR_OK;
}

qr_status qr_value_check(const char *name, const char *text, double *out, qr_error *err)
{
    if (!text || !parse_finite(text, strlen(text), out))
        return qr_text_refuse(name, text, "a finite number", err);
    return QR_OK;
}

/* ---- the extent -------------------------------------------------------------------- */

/* The circles' own bounds, radii included, into e; an axis of zero size
 * widened to size 1 around it; the unit square for no circles. */
static qr_status own_bounds(const qr_scene *s, double e[4], qr_error *err)
{
    if (s->n == 0) {
        e[0] = e[2] = 0.0;
        e[1] = e[3] = 1.0;
        return QR_OK;
    }
    e[0] = e[2] = INFINITY;
    e[1] = e[3] = -INFINITY;
    for (int32_t i = 0; i < s->n; i++) {
        double x = s->x[i], y = s->y[i], r = s->r[i];
        if (!isfinite(x) || !isfinite(y) || !isfinite(r) || r < 0)
            return qr_fail(err, QR_ERR_INVALID,
                           "extent: circle %d (x %g, y %g, r %g) is not a finite circle", (int)i,
                           x, y, r);
        e[0] = fmin(e[0], x - r);
        e[1] = fmax(e[1], x + r);
        e[2] = fmin(e[2], y - r);
        e[3] = fmax(e[3], y + r);
    }
    for (int a = 0; a < 4; a += 2)
        if (!(e[a] < e[a + 1])) {
            e[a] -= 0.5;
            e[a + 1] += 0.5;
        }
    return QR_OK;
}

/* The affine map of one axis and the radii's scale: v' = (v - from) * scale + shift. */
typedef struct axis_map {
    double from, scale, shift;
} axis_map;

/* Whether circle i maps to finite floats. */
static int maps_finite(const qr_scene *s, int32_t i, axis_map mx, axis_map my, double rs)
{
    double x = ((double)s->x[i] - mx.from) * mx.scale + mx.shift;
    double y = ((double)s->y[i] - my.from) * my.scale + my.shift;
    double r = (double)s->r[i] * rs;
    return fabs(x) <= FLT_MAX && fabs(y) <= FLT_MAX && fabs(r) <= FLT_MAX;
}

qr_status qr_scene_map_check_options(unsigned given, const char *const *names, qr_error *err)
{
    if ((given & (1u << QR_MAPO_ASPECT)) && !(given & (1u << QR_MAPO_EXTENT)))
        return qr_fail(err, QR_ERR_INVALID, "%s: only with %s", names[QR_MAPO_ASPECT],
                       names[QR_MAPO_EXTENT]);
    if (!(given & (1u << QR_MAPO_VALUES)))
        for (int k = QR_MAPO_CMAP; k <= QR_MAPO_VMAX; k++)
            if (given & (1u << k))
                return qr_fail(err, QR_ERR_INVALID, "%s: only with %s", names[k],
                               names[QR_MAPO_VALUES]);
    return QR_OK;
}

/* The transforms' refusal of an animated scene. */
static qr_status static_only(const qr_scene *s, qr_error *err)
{
    if (s->anim == QR_ANIM_NONE)
        return QR_OK;
    return qr_fail(err, QR_ERR_INVALID,
                   "data coordinates and colours: static scenes only; %s is animated", s->name);
}

qr_status qr_scene_fit_extent(qr_scene *s, const double *extent, qr_aspect aspect, double *used,
                              qr_error *err)
{
    const qr_status stat = static_only(s, err);
    if (stat != QR_OK)
        return stat;
    double e[4];
    if (aspect != QR_ASPECT_EQUAL && aspect != QR_ASPECT_STRETCH)
        return qr_fail(err, QR_ERR_INVALID, "extent: aspect %d is not equal (0) or stretch (1)",
                       (int)aspect);
    if (extent) {
        memcpy(e, extent, sizeof e);
        for (int k = 0; k < 4; k++)
            if (!isfinite(e[k]))
                return qr_fail(err, QR_ERR_INVALID,
                               "extent (%g, %g, %g, %g): every bound must be a finite number",
                               e[0], e[1], e[2], e[3]);
        if (!(e[0] < e[1] && e[2] < e[3]))
            return qr_fail(err, QR_ERR_INVALID,
                           "extent (%g, %g, %g, %g) is empty or inverted: expected x0 < x1 and "
                           "y0 < y1",
                           e[0], e[1], e[2], e[3]);
    } else {
        qr_status st = own_bounds(s, e, err);
        if (st != QR_OK)
            return st;
    }
    const double w = e[1] - e[0], h = e[3] - e[2];
    axis_map mx = {e[0], 0, 0}, my = {e[2], 0, 0};
    double rs;
    if (!isfinite(w) || !isfinite(h))
        return qr_fail(err, QR_ERR_INVALID, "extent (%g, %g, %g, %g) spans more than a double",
                       e[0], e[1], e[2], e[3]);
    if (aspect == QR_ASPECT_EQUAL) {
        rs = mx.scale = my.scale = 1.0 / fmax(w, h);
        mx.shift = (1.0 - w * rs) / 2;
        my.shift = (1.0 - h * rs) / 2;
    } else {
        mx.scale = 1.0 / w;
        my.scale = 1.0 / h;
        rs = sqrt(mx.scale) * sqrt(my.scale);
    }
    for (int32_t i = 0; i < s->n; i++)
        if (!maps_finite(s, i, mx, my, rs))
            return qr_fail(err, QR_ERR_INVALID,
                           "extent (%g, %g, %g, %g): circle %d (x %g, y %g, r %g) maps beyond "
                           "float's range",
                           e[0], e[1], e[2], e[3], (int)i, (double)s->x[i], (double)s->y[i],
                           (double)s->r[i]);
    for (int32_t i = 0; i < s->n; i++) {
        s->x[i] = (float)(((double)s->x[i] - mx.from) * mx.scale + mx.shift);
        s->y[i] = (float)(((double)s->y[i] - my.from) * my.scale + my.shift);
        s->r[i] = (float)((double)s->r[i] * rs);
    }
    if (used)
        memcpy(used, e, sizeof e);
    return QR_OK;
}

/* ---- colour by value ------------------------------------------------------------------ */

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The first index of sorted v[0..n) holding a value >= x (upper: > x). */
static int64_t bound(const float *v, int64_t n, float x, int upper)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (upper ? v[mid] <= x : v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The values' checks, their range where vmin/vmax are NaN, and the bounds'. */
static qr_status check_values(const qr_scene *s, const float *values, qr_norm norm, double *vmin,
                              double *vmax, qr_error *err)
{
    if (!isfinite(*vmin) && !isnan(*vmin))
        return qr_fail(err, QR_ERR_INVALID, "vmin: %g is not a finite number", *vmin);
    if (!isfinite(*vmax) && !isnan(*vmax))
        return qr_fail(err, QR_ERR_INVALID, "vmax: %g is not a finite number", *vmax);
    double lo = INFINITY, hi = -INFINITY;
    for (int32_t i = 0; i < s->n; i++) {
        double v = values[i];
        if (!isfinite(v))
            return qr_fail(err, QR_ERR_INVALID, "values[%d]: %g is not a finite number", (int)i,
                           v);
        if (norm == QR_NORM_LOG && !(v > 0))
            return qr_fail(err, QR_ERR_INVALID,
                           "values[%d]: %g is not above 0: norm log takes positive values only",
                           (int)i, v);
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    if (isnan(*vmin))
        *vmin = s->n ? lo : 0.0;
    if (isnan(*vmax))
        *vmax = s->n ? hi : 1.0;
    if (norm == QR_NORM_LOG && !(*vmin > 0 && *vmax > 0))
        return qr_fail(err, QR_ERR_INVALID,
                       "vmin %g, vmax %g: norm log takes bounds above 0 only", *vmin, *vmax);
    if (*vmin > *vmax)
        return qr_fail(err, QR_ERR_INVALID, "vmin %g is above vmax %g", *vmin, *vmax);
    return QR_OK;
}

/* t of v, linear in v (or log v) between lo and hi, clamped to [0, 1]. */
static double t_of(double v, double lo, double hi)
{
    if (!(hi > lo))
        return 0.0;
    double t = (v - lo) / (hi - lo);
    return t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
}

static void set_colour(qr_scene *s, int32_t i, const float *table, double t)
{
    const float *c = table + 3 * (int)lround(t * (QR_COLORMAP_ENTRIES - 1));
    s->red[i] = c[0];
    s->green[i] = c[1];
    s->blue[i] = c[2];
}

qr_status qr_scene_color_by(qr_scene *s, const float *values, int colormap, qr_norm norm,
                            double vmin, double vmax, qr_error *err)
{
    const qr_status stat = static_only(s, err);
    if (stat != QR_OK)
        return stat;
    const float *table = qr_colormap_rgb(colormap);
    if (!table)
        return qr_fail(err, QR_ERR_INVALID, "colormap %d: expected 0 to %d", colormap,
                       QR_COLORMAP_COUNT - 1);
    if (norm != QR_NORM_LINEAR && norm != QR_NORM_LOG && norm != QR_NORM_EQ_HIST)
        return qr_fail(err, QR_ERR_INVALID, "norm %d: expected linear (0), log (1) or eq_hist (2)",
                       (int)norm);
    if (s->n > 0 && !values)
        return qr_fail(err, QR_ERR_INVALID, "values: none given for %d circles", (int)s->n);
    qr_status st = check_values(s, values, norm, &vmin, &vmax, err);
    if (st != QR_OK || s->n == 0)
        return st;
    if (norm == QR_NORM_LINEAR) {
        for (int32_t i = 0; i < s->n; i++)
            set_colour(s, i, table, t_of(values[i], vmin, vmax));
        return QR_OK;
    }
    if (norm == QR_NORM_LOG) {
        const double lo = log(vmin), hi = log(vmax);
        for (int32_t i = 0; i < s->n; i++)
            set_colour(s, i, table, t_of(log((double)values[i]), lo, hi));
        return QR_OK;
    }
    /* eq_hist: ranks among the clamped values, from a sorted copy */
    const int64_t n = s->n;
    float *sorted;
    st = qr_host_malloc("the sorted values of eq_hist", (size_t)n * sizeof *sorted,
                        (void **)&sorted, err);
    if (st != QR_OK)
        return st;
    const float flo = (float)vmin, fhi = (float)vmax;
    for (int64_t i = 0; i < n; i++)
        sorted[i] = fminf(fmaxf(values[i], flo), fhi);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_float);
    for (int32_t i = 0; i < s->n; i++) {
        const float v = fminf(fmaxf(values[i], flo), fhi);
        const int64_t below = bound(sorted, n, v, 0), equal = bound(sorted, n, v, 1) - below;
        const double t = n == 1 ? 0.5 : (below + (equal - 1) / 2.0) / (double)(n - 1);
        set_colour(s, i, table, t);
    }
    free(sorted);
    return QR_OK;
}
