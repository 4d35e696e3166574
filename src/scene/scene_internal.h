/* scene_internal.h — helpers shared by the scene module's own sources. */
#ifndef QR_SCENE_INTERNAL_H
#define QR_SCENE_INTERNAL_H

#include "quadrender/scene.h"

/* Copies name into scene->name, truncated to fit. */
void qr_scene_set_name(qr_scene *scene, const char *name);

/* Sets scene->name to path's base name without its extension
 * ("dir/three.circles" -> "three"). */
void qr_scene_name_from_path(qr_scene *scene, const char *path);

/* Non-zero when path ends in ext (".par"), compared case-insensitively. */
int qr_path_has_ext(const char *path, const char *ext);

/* Sorts v[0..n) from largest to smallest (depth_sort.c), on all cores. */
qr_status qr_sort_descending(float *v, size_t n, qr_error *err);

#endif
