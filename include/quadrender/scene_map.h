/* quadrender/scene_map.h — circles in data coordinates and coloured by a
 * value: transforms of a scene's circles made before it is rendered, so
 * that every renderer draws them unchanged.
 *
 *   - qr_scene_fit_extent maps centres and radii from a data extent
 *     (x0, x1, y0, y1; or the circles' own bounds) into the unit square the
 *     renderers draw, one scale for both axes or one for each;
 *   - qr_scene_color_by sets each circle's red, green, blue from a value
 *     through a norm (linear, log, eq_hist) and a named colormap, a table of
 *     256 entries (viridis, magma, inferno, plasma, cividis, gray:
 *     matplotlib's, CC0).
 *
 * The checks of the user's values (qr_*_check) are the ones the quadrender
 * command's options and Python's arguments go through (quadrender/text.h),
 * so that both refuse the same value with the same message.
 */
#ifndef QUADRENDER_SCENE_MAP_H
#define QUADRENDER_SCENE_MAP_H

#include "quadrender/error.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a data extent fills the unit square. */
typedef enum qr_aspect {
    QR_ASPECT_EQUAL = 0,  /* one scale for both axes: the longer side fills the square, the
                             other is centred in it; radii scaled by the same */
    QR_ASPECT_STRETCH = 1 /* each axis its own scale, filling the square; radii scaled by the
                             geometric mean of the two (circles stay circles: a circle is
                             not drawn as an ellipse) */
} qr_aspect;

/* How a value becomes t in [0, 1], the place in the colormap. */
typedef enum qr_norm {
    QR_NORM_LINEAR = 0, /* (v - vmin) / (vmax - vmin), clamped */
    QR_NORM_LOG = 1,    /* the same of log(v); every value, vmin and vmax above 0 */
    QR_NORM_EQ_HIST = 2 /* the value's rank among the values (histogram equalization) */
} qr_norm;

/* The colormaps, in the order of qr_colormap_names. */
enum {
    QR_COLORMAP_VIRIDIS = 0,
    QR_COLORMAP_MAGMA,
    QR_COLORMAP_INFERNO,
    QR_COLORMAP_PLASMA,
    QR_COLORMAP_CIVIDIS,
    QR_COLORMAP_GRAY,
    QR_COLORMAP_COUNT
};

/* The entries of a colormap's table. */
#define QR_COLORMAP_ENTRIES 256

/* The colormaps' names ("viridis", ..., "gray"), QR_COLORMAP_COUNT of them. */
const char *const *qr_colormap_names(int *count);

/* Colormap `colormap`'s table: QR_COLORMAP_ENTRIES RGB triples, entry i
 * the colour of t = i / 255; NULL for a number out of range. */
const float *qr_colormap_rgb(int colormap);

/* ---- the user's values, checked (quadrender/text.h) ------------------------------ */

/* A colormap's name, exactly: QR_OK and *out, else QR_ERR_INVALID,
 * "<name>: expected viridis, magma, inferno, plasma, cividis or gray, got
 * '<text>'", and " (did you mean 'viridis'?)" for a near miss. */
qr_status qr_colormap_check(const char *name, const char *text, int *out, qr_error *err);

/* "equal" or "stretch"; else "<name>: expected equal or stretch, got '<text>'". */
qr_status qr_aspect_check(const char *name, const char *text, qr_aspect *out, qr_error *err);

/* "linear", "log" or "eq_hist"; else "<name>: expected linear, log or
 * eq_hist, got '<text>'". */
qr_status qr_norm_check(const char *name, const char *text, qr_norm *out, qr_error *err);

/* An extent: "auto" (*is_auto 1: the circles' own bounds) or four finite
 * numbers "X0,X1,Y0,Y1" (strtod's, no blanks) with X0 < X1 and Y0 < Y1,
 * into extent[0..3] (*is_auto 0); else "<name>: expected auto or
 * X0,X1,Y0,Y1, four finite numbers with X0 < X1 and Y0 < Y1, got '<text>'". */
qr_status qr_extent_check(const char *name, const char *text, double extent[4], int *is_auto,
                          qr_error *err);

/* A bound of a colour range (vmin, vmax): a finite number (strtod's, no
 * blanks); else "<name>: expected a finite number, got '<text>'". */
qr_status qr_value_check(const char *name, const char *text, double *out, qr_error *err);

/* The data options, as a front end names them (the CLI's --extent,
 * --data-aspect, --color-by, ...; Python's extent=, aspect=, values=, ...). */
enum {
    QR_MAPO_EXTENT,
    QR_MAPO_ASPECT,
    QR_MAPO_VALUES,
    QR_MAPO_CMAP,
    QR_MAPO_NORM,
    QR_MAPO_VMIN,
    QR_MAPO_VMAX,
    QR_MAPO_COUNT
};

/* Whether the data options a user gave (bit 1 << QR_MAPO_k for each option
 * k given) go together: the aspect only with an extent; the colormap, the
 * norm, vmin and vmax only with values. names[k] is how the front end
 * spells option k. Else QR_ERR_INVALID, "<option>: only with <extent>" or
 * "<option>: only with <values>". */
qr_status qr_scene_map_check_options(unsigned given, const char *const *names, qr_error *err);

/* ---- the transforms -------------------------------------------------------------- *
 * Both take static scenes only: an animated scene's steps move its circles
 * within the unit square, whatever their data coordinates were
 * (QR_ERR_INVALID, "data coordinates and colours: static scenes only; <name>
 * is animated"). */

/* Maps the scene's centres and radii from data coordinates into the unit
 * square: extent (x0, x1, y0, y1), or NULL for the circles' own bounds, radii
 * included (min of x - r to max of x + r, the same in y). An axis of those
 * bounds of zero size (circles of radius 0 on one line or one point) is
 * widened to size 1 around it; an empty scene's bounds are the unit square
 * (nothing changes). With QR_ASPECT_EQUAL, s = 1 / max(x1 - x0, y1 - y0) and
 *     x' = (x - x0) s + (1 - (x1 - x0) s) / 2,  y' likewise,  r' = r s;
 * with QR_ASPECT_STRETCH, sx = 1 / (x1 - x0), sy = 1 / (y1 - y0) and
 *     x' = (x - x0) sx,  y' = (y - y0) sy,  r' = r sqrt(sx sy);
 * in double, rounded to float once. z and the colours stay. `used` (may be
 * NULL) receives the extent used. QR_ERR_INVALID, with a one-line message
 * starting "extent", and the scene unchanged, for an extent that is not
 * finite or is empty or inverted (x0 >= x1 or y0 >= y1), a circle that is
 * not finite, or a circle that would map beyond float's range. */
qr_status qr_scene_fit_extent(qr_scene *scene, const double *extent, qr_aspect aspect,
                              double *used, qr_error *err);

/* Sets each circle's red, green, blue from values[0..scene->n) through
 * `norm` and colormap `colormap`: t in [0, 1] (values below vmin 0, above
 * vmax 1) picks entry round(t * 255) of the table (no interpolation).
 * vmin, vmax: the range; NaN for the values' own least or greatest. With
 * QR_NORM_LINEAR and vmin == vmax every t is 0. QR_NORM_LOG takes values,
 * vmin and vmax above 0 only. QR_NORM_EQ_HIST clamps the values to
 * [vmin, vmax] and gives each its rank: t = (b + (e - 1) / 2) / (n - 1), b
 * the values below it and e those equal to it (itself included), so that
 * equal values get equal colours; t = 0.5 for one circle. Deterministic:
 * nothing depends on the threads. QR_ERR_INVALID, one line, the scene
 * unchanged: a value that is NaN or infinite ("values[3]: nan is not a
 * finite number": NaN values are refused, never given a colour), with log a
 * value not above 0 (the first one's index), vmin above vmax, a bound not
 * finite, a colormap or norm out of range; QR_ERR_NOMEM for eq_hist's
 * sorted copy. */
qr_status qr_scene_color_by(qr_scene *scene, const float *values, int colormap, qr_norm norm,
                            double vmin, double vmax, qr_error *err);

#ifdef __cplusplus
}
#endif
#endif
