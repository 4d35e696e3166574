/* scene_load.c — a scene by name or path: a built-in name (any case) or
 * family, else a .circles, .par or .npy file; an unknown name gets a
 * suggestion. The top of the scene layer: it calls the generators and the
 * readers (scene/io), none of which calls it.
 */
#include "scene/scene_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A spec that names no built-in scene and no file of a known extension:
 * what is wrong with it. */
static qr_status unknown_scene(const char *spec, qr_error *err)
{
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
    return unknown_scene(spec, err);
}

qr_status qr_scene_check_spec(const char *spec, qr_error *err)
{
    int family;
    int32_t n;
    if (qr_builtin_family_parse(spec, &family, &n, err) < 0)
        return QR_ERR_INVALID;
    if (qr_builtin_find(spec))
        return QR_OK;
    if (!qr_path_has_ext(spec, ".circles") && !qr_path_has_ext(spec, ".par") &&
        !qr_path_has_ext(spec, ".npy"))
        return unknown_scene(spec, err);
    /* not opened: a FIFO's open would wait for its writer */
    struct stat sb;
    if (stat(spec, &sb) != 0 || access(spec, R_OK) != 0)
        return qr_fail(err, QR_ERR_IO, "%s: %s", spec, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return qr_fail(err, QR_ERR_IO, "%s: is a directory", spec);
    return QR_OK;
}
