/* scene_util.h — scenes made by hand or by name, and exact comparisons.
 *
 * Hand-made scenes give tests circles whose pixel boxes are worked out on
 * paper; the comparisons are bit-exact (a scene is the same bytes or it is
 * not). Failures are Criterion assertions. */
#ifndef QR_TEST_SCENE_UTIL_H
#define QR_TEST_SCENE_UTIL_H

#include <criterion/criterion.h>
#include <stdint.h>

#include "quadrender/image.h"
#include "quadrender/scene.h"

/* A new static scene (QR_ANIM_NONE) of n zeroed circles; asserts it is
 * made. */
qr_scene *qr_test_scene_new(int32_t n);

/* Circle i at (x, y) with radius r, depth 0.5 and colour (1, 0.5, 0.25). */
void qr_test_set_circle(qr_scene *s, int32_t i, float x, float y, float r);

/* The built-in scene name drawn with seed (qr_scene_builtin); asserts it is
 * made. */
qr_scene *qr_test_builtin(const char *name, uint32_t seed);

/* The built-in scene name (seed 0) at frame `frame` (qr_scene_seek_frame);
 * asserts it is made. */
qr_scene *qr_test_builtin_frame(const char *name, int64_t frame);

/* f's bit pattern. */
uint32_t qr_test_float_bits(float f);

/* Asserts two floats are equal as bit patterns (so -0 != +0 and the test is
 * exact). A macro, so that a failure names the caller's line. */
#define qr_test_assert_bits(got, want, ...) \
    cr_assert_eq(qr_test_float_bits(got), qr_test_float_bits(want), __VA_ARGS__)

/* Asserts a and b hold the same circles: the same n, block size and block
 * bytes (what names the comparison in the message). */
void qr_test_assert_same_scene(const qr_scene *a, const qr_scene *b, const char *what);

/* A new w x h image filled with garbage (-7 in every channel), so that a
 * pixel a renderer forgets to write shows; asserts it is made. */
qr_image *qr_test_garbage_image(int32_t w, int32_t h);

/* The chunk sizes of one cut of n circles into sizes (at most cap of them;
 * asserted): cut 0 one chunk (the whole), cut 1 chunks of one circle,
 * others random sizes up to n / cut circles each, drawn from `seed`.
 * Returns the number of chunks. */
int32_t qr_test_cut_scene(int32_t n, int cut, uint64_t seed, int32_t *sizes, int32_t cap);

#endif
