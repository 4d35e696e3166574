/* gpu_util.h — helpers for the GPU tests: open a renderer for a scene,
 * render on the device, render the CPU oracle, compare images and indexes.
 * Random scenes come from random_scene.h; the GPU tests take its
 * renderable mix. */
#ifndef QR_TEST_GPU_UTIL_H
#define QR_TEST_GPU_UTIL_H

#include <stdint.h>

#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/scene.h"
#include "random_scene.h"
#include "test_util.h"

/* A built-in scene; asserts it exists. */
qr_scene *gpu_test_scene(const char *name, uint32_t seed);

/* A GPU renderer of w x h, `scene` uploaded for it and an image of w x h to
 * download into; gpu_close frees what is left (an image taken out of it,
 * set to NULL there, is the caller's). */
typedef struct {
    qr_gpu_scene *gs;
    qr_gpu_renderer *r;
    qr_image *img;
} gpu_session;

gpu_session gpu_open(const qr_scene *scene, int w, int h);
void gpu_close(gpu_session *g);

/* Renders `scene` (already in the wanted state) on the GPU at w x h. It
 * renders twice with one renderer and requires the same bytes: the first
 * build sizes the lists, the second runs the way every later frame does (as
 * a graph, or as the single-leaf kernel), so both paths meet the caller's
 * checks. */
qr_image *gpu_render_image(const qr_scene *scene, int w, int h, const qr_index_params *params,
                           qr_render_mode mode);

/* The CPU oracle's image of `scene` at w x h. */
qr_image *cpu_render_image(const qr_scene *scene, int w, int h);

/* Largest |a - b| over the colour channels (and alpha when with_alpha);
 * *first_bad is the first pixel index where the bits differ (-1 if none). */
double image_max_diff(const qr_image *a, const qr_image *b, int with_alpha, long long *first_bad);

/* A check of one case: scene s at w x h under params p; `what` names it. */
typedef void (*gpu_case_fn)(const qr_scene *s, int w, int h, const qr_index_params *p,
                            const char *what);

/* Runs check over built-in scene `name` at seeds 0 and 3, each of the
 * nsizes sizes, and the default parameters with each minimum leaf of
 * `leaves` (nleaves of them). */
void gpu_each_case(const char *name, const int (*sizes)[2], int nsizes, const int *leaves,
                   int nleaves, gpu_case_fn check);

/* Asserts two indexes are identical: tree shape, leaves, lists. */
void assert_same_index(const qr_index *a, const qr_index *b, const char *what);

/* Asserts that gi's last build equals the host oracle's index of s for a
 * render in `mode`. */
void assert_index_matches_oracle(const qr_gpu_index *gi, const qr_scene *s, int w, int h,
                                 const qr_rect *region, const qr_index_params *p,
                                 qr_render_mode mode, const char *what);

#endif
