/* scene.c — scene allocation, copies, and loading by name or path.
 *
 * All arrays of a scene live in one zero-filled allocation (scene->block) so
 * that a renderer can upload a whole scene with one copy; the order of the
 * arrays inside it is part of the contract in scene.h.
 */
#include "scene/scene_internal.h"
#include "common/text.h"

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

/* Whether a and b are equal but for ASCII case (built-in names are ASCII). */
static int qr_ascii_casecmp_eq(const char *a, const char *b)
{
    for (; *a && *b; ++a, ++b) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

const char *qr_builtin_find(const char *name)
{
    int count = 0;
    const qr_builtin_info *table = qr_builtin_scenes(&count);
    for (int i = 0; i < count; ++i)
        if (qr_ascii_casecmp_eq(name, table[i].name))
            return table[i].name;
    int family;
    int32_t n;
    if (qr_builtin_family_parse(name, &family, &n, NULL) > 0)
        return qr_builtin_families(NULL)[family].name;
    return NULL;
}

/* The optimal string alignment distance between a and b, ASCII case
 * ignored: insertions, deletions, substitutions and swaps of two neighbours
 * ("snwo" is one from "snow"). Only names up to QR_SUGGEST_MAX bytes are
 * compared; longer ones answer a distance larger than any suggestion. */
#define QR_SUGGEST_MAX 32
static int qr_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > QR_SUGGEST_MAX || m > QR_SUGGEST_MAX)
        return QR_SUGGEST_MAX;
    int d[QR_SUGGEST_MAX + 1][QR_SUGGEST_MAX + 1];
    char x[QR_SUGGEST_MAX + 1], y[QR_SUGGEST_MAX + 1];
    for (size_t i = 0; i < n; ++i)
        x[i] = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] - 'A' + 'a') : a[i];
    for (size_t j = 0; j < m; ++j)
        y[j] = b[j] >= 'A' && b[j] <= 'Z' ? (char)(b[j] - 'A' + 'a') : b[j];
    for (size_t i = 0; i <= n; ++i)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; ++j)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; ++i) {
        for (size_t j = 1; j <= m; ++j) {
            int best = d[i - 1][j - 1] + (x[i - 1] != y[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[n][m];
}

const char *qr_builtin_suggest(const char *name)
{
    /* a path is never a mistyped built-in name */
    if (strchr(name, '/'))
        return NULL;
    size_t len = strlen(name);
    /* at most two edits, and fewer than half the name: "ab" suggests nothing */
    int limit = len >= 6 ? 2 : len >= 3 ? 1 : 0;
    int count = 0, best = limit + 1;
    const char *found = NULL;
    const qr_builtin_info *table = qr_builtin_scenes(&count);
    for (int i = 0; i < count; ++i) {
        int d = qr_edit_distance(name, table[i].name);
        if (d < best) {
            best = d;
            found = table[i].name;
        }
    }
    return found;
}

qr_status qr_scene_load(const char *spec, uint32_t seed, qr_scene **out, qr_error *err)
{
    *out = NULL;
    /* A built-in name (in any case) wins over a file of that name in the
     * working folder: built-in names have no extension, so the two cannot be
     * confused. */
    const char *builtin = qr_builtin_find(spec);
    if (builtin)
        return qr_scene_builtin(spec, seed, out, err);
    if (qr_path_has_ext(spec, ".circles"))
        return qr_scene_read_circles(spec, out, err);
    if (qr_path_has_ext(spec, ".par"))
        return qr_scene_read_par(spec, out, err);
    if (qr_path_has_ext(spec, ".npy"))
        return qr_scene_read_npy(spec, out, err);
    /* a family's name with a bad count or none: say what is wrong with it */
    int family;
    int32_t n;
    if (qr_builtin_family_parse(spec, &family, &n, err) < 0)
        return QR_ERR_INVALID;
    const char *near = qr_builtin_suggest(spec);
    if (near)
        return qr_fail(err, QR_ERR_INVALID, "unknown scene '%s': did you mean '%s'? (try 'quadrender scenes')",
                       spec, near);
    return qr_fail(err, QR_ERR_INVALID,
                   "unknown scene '%s' (not a built-in name, not a .circles, .par or .npy file); "
                   "try 'quadrender scenes'",
                   spec);
}
