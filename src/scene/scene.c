/* scene.c — scene allocation, copies and names (loading by name or path:
 * scene_load.c).
 *
 * All arrays of a scene live in one zero-filled allocation (scene->block) so
 * that a renderer can upload a whole scene with one copy; the order of the
 * arrays inside it is part of the contract in scene.h.
 */
#include "scene/scene_internal.h"
#include "common/text.h"

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
    static const char *const fields[7] = {"x", "y", "z", "r", "R", "G", "B"};
    for (int32_t i = 0; i < scene->n; ++i) {
        const float v[7] = {scene->x[i],   scene->y[i],     scene->z[i],   scene->r[i],
                            scene->red[i], scene->green[i], scene->blue[i]};
        for (int k = 0; k < 7; ++k)
            if (!isfinite(v[k]))
                return qr_fail(err, QR_ERR_INVALID,
                               "%s: row %" PRId32 ": %s: %g is not a finite number", where, i,
                               fields[k], (double)v[k]);
        if (v[3] < 0.0f)
            return qr_fail(err, QR_ERR_INVALID, "%s: row %" PRId32 ": negative radius %.9g", where,
                           i, (double)v[3]);
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
    *out = s;
    return QR_OK;
}

void qr_scene_destroy(qr_scene *scene)
{
    if (!scene)
        return;
    free(scene->block);
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
