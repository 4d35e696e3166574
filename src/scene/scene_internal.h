/* scene_internal.h — helpers shared by the scene module's own sources. */
#ifndef QR_SCENE_INTERNAL_H
#define QR_SCENE_INTERNAL_H

#include "quadrender/scene.h"

/* Copies name into scene->name, truncated to fit. */
void qr_scene_set_name(qr_scene *scene, const char *name);

/* Sets scene->name to path's base name without its extension
 * ("dir/three.circles" -> "three"). */
void qr_scene_name_from_path(qr_scene *scene, const char *path);

/* qr_scene_check_circles of a scene holding rows first.. of a file: its
 * message counts rows from the file's first. */
qr_status qr_scene_check_rows(const qr_scene *scene, const char *where, int64_t first,
                              qr_error *err);

/* Non-zero when path ends in ext (".par"), compared case-insensitively. */
int qr_path_has_ext(const char *path, const char *ext);

/* Sorts v[0..n) from largest to smallest (depth_sort.c), on all cores. */
qr_status qr_sort_descending(float *v, size_t n, qr_error *err);

/* The non-uniform built-in scenes (builtin_clustered.c). */
typedef enum qr_nonuniform {
    QR_NU_CLUSTERS,
    QR_NU_SPIRAL,
    QR_NU_POWERLAW,
    QR_NU_HOTSPOT,
    QR_NU_ROADS,
    QR_NU_RING
} qr_nonuniform;

/* Fills the s->n circles of s with non-uniform scene `kind` for `seed` (0
 * behaves as 1), every radius multiplied by radius_scale; on all cores, the
 * same bytes whatever the thread count. */
qr_status qr_gen_nonuniform(qr_scene *s, qr_nonuniform kind, uint32_t seed, float radius_scale,
                            qr_error *err);

/* zoo:SEED (builtin_zoo.c): its circle count, 100k to 4M, and its circles
 * (s->n must be that count); the same bytes whatever the thread count. */
int32_t qr_zoo_circles(uint32_t seed);
qr_status qr_gen_zoo(qr_scene *s, uint32_t seed, qr_error *err);

/* The built-in scenes, in qr_builtin_scenes order (builtin_names.c). */
enum qr_builtin_id {
    QR_B_RGB,
    QR_B_RGBY,
    QR_B_RAND10K,
    QR_B_RAND100K,
    QR_B_RAND1M,
    QR_B_MICRO2M,
    QR_B_BIGLITTLE,
    QR_B_LITTLEBIG,
    QR_B_PATTERN,
    QR_B_HYPNOSIS,
    QR_B_BOUNCINGBALLS,
    QR_B_FIREWORKS,
    QR_B_SNOW,
    QR_B_SNOWSINGLE,
    QR_B_CLUSTERS,
    QR_B_SPIRAL,
    QR_B_POWERLAW,
    QR_B_HOTSPOT,
    QR_B_ROADS,
    QR_B_RING,
    QR_B_COUNT
};

/* The families, in qr_builtin_families order. */
enum { QR_FAMILY_UNIFORM, QR_FAMILY_CLUSTERED, QR_FAMILY_ZOO, QR_FAMILY_COUNT };

/* The largest zoo seed. */
#define QR_ZOO_MAX_SEED 2147483647

/* Reads spec as FAMILY:COUNT, or zoo:SEED (builtin_names.c). Returns 1 with
 * *family and *count (the seed for the zoo) set; 0 when spec does not start
 * with a family's name and a ':' (it is some other name); -1 when it does
 * but the count is bad, err saying why. */
int qr_builtin_family_parse(const char *spec, int *family, int32_t *count, qr_error *err);

#endif
