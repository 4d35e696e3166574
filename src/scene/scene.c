/* scene.c — scene allocation, copies and names (loading by name or path:
 * scene_load.c).
 *
 * All arrays of a scene live in one zero-filled allocation (scene->block) so
 * that a renderer can upload a whole scene with one copy; the order of the
 * arrays inside it is part of the contract in scene.h.
 */
#include "scene/scene_internal.h"
#include "common/text.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Floats per circle in block for a given animation kind. */
static size_t qr_floats_per_circle(qr_anim anim)
{
    size_t k = 7; /* x y z r red green blue */
    if (anim != QR_ANIM_NONE)
        k += 3; /* vx vy vz */
    if (anim == QR_ANIM_FIREWORKS)
        k += 4; /* x0 y0 vx0 vy0 */
    return k;
}

qr_status qr_scene_check_seed(const char *name, const char *text, uint32_t *out, qr_error *err)
{
    uint64_t v;
    qr_status st = qr_text_check_uint(name, text, 0, UINT32_MAX, QR_UINT_RANGE,
                                      "an integer from 0 to 4294967295", &v, err);
    if (st == QR_OK)
        *out = (uint32_t)v;
    return st;
}

qr_status qr_scene_check_frame(const char *name, const char *text, int64_t *out, qr_error *err)
{
    uint64_t v;
    qr_status st = qr_text_check_uint(name, text, 0, QR_SCENE_MAX_FRAME, QR_UINT_RANGE,
                                      "a frame number from 0 to 2147483647", &v, err);
    if (st == QR_OK)
        *out = (int64_t)v;
    return st;
}

qr_status qr_scene_check_circles(const qr_scene *scene, const char *where, qr_error *err)
{
    return qr_scene_check_rows(scene, where, 0, err);
}

qr_status qr_scene_check_rows(const qr_scene *scene, const char *where, int64_t first,
                              qr_error *err)
{
    static const char *const fields[7] = {"x", "y", "z", "r", "R", "G", "B"};
    for (int32_t i = 0; i < scene->n; ++i) {
        const float v[7] = {scene->x[i],   scene->y[i],     scene->z[i],   scene->r[i],
                            scene->red[i], scene->green[i], scene->blue[i]};
        for (int k = 0; k < 7; ++k)
            if (!isfinite(v[k]))
                return qr_fail(err, QR_ERR_INVALID,
                               "%s: row %" PRId64 ": %s: %g is not a finite number", where,
                               first + i, fields[k], (double)v[k]);
        if (v[3] < 0.0f)
            return qr_fail(err, QR_ERR_INVALID, "%s: row %" PRId64 ": negative radius %.9g", where,
                           first + i, (double)v[3]);
    }
    return QR_OK;
}

qr_status qr_scene_create(int32_t n, qr_anim anim, qr_scene **out, qr_error *err)
{
    *out = NULL;
    if (n < 0 || n > QR_SCENE_MAX_CIRCLES)
        return qr_fail(err, QR_ERR_INVALID, "scene of %ld circles: must be 0..%d", (long)n,
                       QR_SCENE_MAX_CIRCLES);
    if ((int)anim < (int)QR_ANIM_NONE || (int)anim > (int)QR_ANIM_SNOW)
        return qr_fail(err, QR_ERR_INVALID, "unknown animation kind %d", (int)anim);

    qr_scene *s = calloc(1, sizeof *s);
    if (!s)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory allocating a scene");
    size_t un = (size_t)n;
    s->block_floats = un * qr_floats_per_circle(anim);
    /* calloc(0) may return NULL; an empty scene still gets a real block. */
    s->block = calloc(s->block_floats ? s->block_floats : 1, sizeof(float));
    if (!s->block) {
        free(s);
        return qr_fail(err, QR_ERR_NOMEM, "out of memory allocating a scene of %ld circles",
                       (long)n);
    }
    float *p = s->block;
    float **arrays[] = {&s->x, &s->y, &s->z, &s->r, &s->red, &s->green, &s->blue,
                        &s->vx, &s->vy, &s->vz, &s->x0, &s->y0, &s->vx0, &s->vy0};
    size_t count = qr_floats_per_circle(anim);
    for (size_t k = 0; k < count; ++k) {
        *arrays[k] = p;
        p += un;
    }
    s->n = n;
    s->anim = anim;
    s->shading = QR_SHADE_FLAT;
    s->steps = 0;
    s->background[0] = s->background[1] = s->background[2] = 1.0f;
    *out = s;
    return QR_OK;
}

void qr_scene_destroy(qr_scene *scene)
{
    if (!scene)
        return;
    free(scene->block);
    free(scene->alpha);
    free(scene);
}

qr_status qr_scene_clone(const qr_scene *src, qr_scene **out, qr_error *err)
{
    qr_status st = qr_scene_create(src->n, src->anim, out, err);
    if (st != QR_OK)
        return st;
    qr_scene *d = *out;
    memcpy(d->block, src->block, src->block_floats * sizeof(float));
    d->shading = src->shading;
    d->steps = src->steps;
    memcpy(d->name, src->name, sizeof d->name);
    memcpy(d->background, src->background, sizeof d->background);
    d->antialias = src->antialias;
    d->transparent = src->transparent;
    st = src->alpha ? qr_scene_set_alpha(d, src->alpha, "alpha", err) : QR_OK;
    if (st != QR_OK) {
        qr_scene_destroy(d);
        *out = NULL;
    }
    return st;
}

qr_status qr_scene_view(const qr_scene *scene, int32_t first, int32_t count, qr_scene *view,
                        qr_error *err)
{
    if (!scene || !view)
        return qr_fail(err, QR_ERR_INVALID, "scene view: no scene");
    if (first < 0 || count < 0 || first > scene->n || count > scene->n - first)
        return qr_fail(err, QR_ERR_INVALID,
                       "scene view: circles [%ld, %ld) are not within the %ld of '%s'", (long)first,
                       (long)first + (long)count, (long)scene->n, scene->name);
    *view = *scene;
    float **arrays[] = {&view->x,  &view->y,  &view->z,  &view->r,   &view->red,
                        &view->green, &view->blue, &view->vx, &view->vy, &view->vz,
                        &view->x0, &view->y0, &view->vx0, &view->vy0, &view->alpha};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        if (*arrays[k]) *arrays[k] += first;
    view->n = count;
    view->block = NULL; /* the arrays are the scene's: a view frees nothing */
    view->block_floats = 0;
    return QR_OK;
}

/* QR_OK when the scene is flat-shaded, else the refusal of `what`. */
static qr_status flat_only(const qr_scene *scene, const char *what, qr_error *err)
{
    if (scene->shading == QR_SHADE_FLAT) return QR_OK;
    return qr_fail(err, QR_ERR_INVALID, "%s: flat scenes only; %s is snow-shaded", what,
                   scene->name);
}

qr_status qr_scene_set_alpha(qr_scene *scene, const float *alpha, const char *what, qr_error *err)
{
    if (!alpha) {
        free(scene->alpha);
        scene->alpha = NULL;
        return QR_OK;
    }
    qr_status st = flat_only(scene, what, err);
    if (st != QR_OK) return st;
    for (int32_t i = 0; i < scene->n; i++)
        if (!(alpha[i] >= 0.0f && alpha[i] <= 1.0f)) /* NaN fails too */
            return qr_fail(err, QR_ERR_INVALID, "%s: circle %ld's alpha %g is not between 0 and 1",
                           what, (long)i, (double)alpha[i]);
    const size_t bytes = (size_t)(scene->n ? scene->n : 1) * sizeof(float);
    float *a = scene->alpha == alpha ? scene->alpha : malloc(bytes);
    if (!a) return qr_fail(err, QR_ERR_NOMEM, "out of memory for %ld alphas", (long)scene->n);
    if (a != alpha) memcpy(a, alpha, (size_t)scene->n * sizeof(float));
    if (a != scene->alpha) free(scene->alpha);
    scene->alpha = a;
    return QR_OK;
}

qr_status qr_scene_set_background(qr_scene *scene, const float rgb[3], const char *what,
                                  qr_error *err)
{
    for (int k = 0; k < 3; k++)
        if (!(rgb[k] >= 0.0f && rgb[k] <= 1.0f))
            return qr_fail(err, QR_ERR_INVALID, "%s: expected three numbers from 0 to 1, got %g,%g,%g",
                           what, (double)rgb[0], (double)rgb[1], (double)rgb[2]);
    const int white = rgb[0] == 1.0f && rgb[1] == 1.0f && rgb[2] == 1.0f;
    if (!white) {
        qr_status st = flat_only(scene, what, err);
        if (st != QR_OK) return st;
    }
    memcpy(scene->background, rgb, sizeof scene->background);
    scene->transparent = 0;
    return QR_OK;
}

qr_status qr_scene_set_transparent(qr_scene *scene, int on, const char *what, qr_error *err)
{
    static const float white[3] = {1.0f, 1.0f, 1.0f}, black[3] = {0.0f, 0.0f, 0.0f};
    qr_status st = on ? flat_only(scene, what, err) : QR_OK;
    if (st != QR_OK) return st;
    memcpy(scene->background, on ? black : white, sizeof scene->background);
    scene->transparent = on != 0;
    return QR_OK;
}

qr_status qr_background_check(const char *name, const char *text, float rgb[3], int *transparent,
                              qr_error *err)
{
    const char *expected = transparent ? "white, black, #RRGGBB, R,G,B (numbers from 0 to 1) or none"
                                       : "white, black, #RRGGBB or R,G,B (numbers from 0 to 1)";
    float v[3];
    int ok = 0, none = 0;
    if (!text) return qr_text_refuse(name, text, expected, err);
    if (transparent && !strcmp(text, "none")) {
        v[0] = v[1] = v[2] = 0.0f;
        ok = none = 1;
    } else if (!strcmp(text, "white") || !strcmp(text, "black")) {
        v[0] = v[1] = v[2] = text[0] == 'w' ? 1.0f : 0.0f;
        ok = 1;
    } else if (text[0] == '#' && strlen(text) == 7 && strspn(text + 1, "0123456789abcdefABCDEF") == 6) {
        for (int k = 0; k < 3; k++) {
            char hex[3] = {text[1 + 2 * k], text[2 + 2 * k], 0};
            v[k] = (float)strtol(hex, NULL, 16) / 255.0f;
        }
        ok = 1;
    } else {
        const char *p = text;
        ok = 1;
        for (int k = 0; k < 3 && ok; k++) {
            char *end;
            const double d = strtod(p, &end);
            ok = end != p && d >= 0.0 && d <= 1.0 && *end == (k < 2 ? ',' : '\0') &&
                 !isspace((unsigned char)*p);
            v[k] = (float)d;
            p = end + 1;
        }
    }
    if (!ok) return qr_text_refuse(name, text, expected, err);
    memcpy(rgb, v, sizeof v);
    if (transparent) *transparent = none;
    return QR_OK;
}

qr_status qr_scene_set_antialias(qr_scene *scene, int on, const char *what, qr_error *err)
{
    qr_status st = on ? flat_only(scene, what, err) : QR_OK;
    if (st == QR_OK) scene->antialias = on != 0;
    return st;
}

qr_status qr_alpha_check(const char *name, const char *text, float *out, qr_error *err)
{
    char *end;
    const double a = text ? strtod(text, &end) : NAN;
    if (!text || end == text || *end || isspace((unsigned char)*text) || !(a >= 0.0 && a <= 1.0))
        return qr_text_refuse(name, text, "a number from 0 to 1", err);
    *out = (float)a;
    return QR_OK;
}

void qr_scene_set_name(qr_scene *scene, const char *name)
{
    /* a cut never splits a UTF-8 character: the name goes into JSON and
     * messages */
    size_t len = qr_utf8_prefix(name, strlen(name), sizeof scene->name - 1);
    memcpy(scene->name, name, len);
    scene->name[len] = '\0';
}

void qr_scene_name_from_path(qr_scene *scene, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    len = qr_utf8_prefix(base, len, sizeof scene->name - 1);
    memcpy(scene->name, base, len);
    scene->name[len] = '\0';
}

int qr_path_has_ext(const char *path, const char *ext)
{
    size_t lp = strlen(path), le = strlen(ext);
    if (lp < le)
        return 0;
    const char *tail = path + lp - le;
    for (size_t i = 0; i < le; ++i) {
        char c = tail[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != ext[i])
            return 0;
    }
    return 1;
}
