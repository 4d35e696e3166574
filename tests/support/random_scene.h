/* random_scene.h — the tests' random numbers and random scenes.
 *
 * One generator (splitmix64) for every test that draws numbers, and one
 * scene generator driven by a spec: the scene's circles are drawn from up to
 * QR_TEST_MAX_KINDS kinds, each with a weight, a centre range, a radius range
 * and a form (ordinary, near a cluster centre, or one of the values the
 * index must cull: r <= 0, NaN, infinities, finite values whose pixel box
 * overflows). Three ready mixes cover what the tests need; a test may take
 * one (qr_test_mix_spec) and change fields before generating. Scenes are
 * the same for the same spec on every machine. */
#ifndef QR_TEST_RANDOM_SCENE_H
#define QR_TEST_RANDOM_SCENE_H

#include <stdint.h>

#include "quadrender/scene.h"

typedef struct qr_test_rng {
    uint64_t state;
} qr_test_rng;

qr_test_rng qr_test_rng_seed(uint64_t seed);
uint64_t qr_test_rng_next(qr_test_rng *g);
/* Uniform in [0, n), n > 0. */
uint32_t qr_test_rng_below(qr_test_rng *g, uint32_t n);
/* Uniform on a grid of 2^24 steps from lo up to hi (reached only by
 * rounding). */
float qr_test_rng_float(qr_test_rng *g, float lo, float hi);

typedef enum qr_test_form {
    QR_TEST_PLAIN,       /* centre in x x y, radius in r */
    QR_TEST_CLUSTERED,   /* centre = a random cluster centre + an offset in x x y */
    QR_TEST_ZERO_R,      /* as PLAIN, radius 0 */
    QR_TEST_NEGATIVE_R,  /* as PLAIN, radius -r */
    QR_TEST_NAN_X,       /* as PLAIN, x NaN */
    QR_TEST_INF_Y,       /* as PLAIN, y +infinity */
    QR_TEST_INF_R,       /* as PLAIN, radius +infinity */
    QR_TEST_HUGE_FINITE, /* x = +-3e38, r 3e38 or 1e30: (x +- r) * width overflows */
} qr_test_form;

typedef struct qr_test_kind {
    int weight; /* a circle is of this kind with probability weight / (sum of weights) */
    qr_test_form form;
    float x[2], y[2], r[2]; /* {lo, hi} ranges */
} qr_test_kind;

enum { QR_TEST_MAX_KINDS = 12, QR_TEST_MAX_CLUSTERS = 8 };

typedef struct qr_test_scene_spec {
    uint64_t seed;
    int32_t n;
    qr_shading shading;
    int clusters; /* cluster centres, uniform in the unit square */
    float z[2];
    float rgb[3][2]; /* each channel's range */
    int num_kinds;
    qr_test_kind kinds[QR_TEST_MAX_KINDS];
} qr_test_scene_spec;

typedef enum qr_test_mix {
    /* Centres over the image and past its edges, radii 0.001..0.3; colours
     * in [-0.5, 1.5]: every circle renders. */
    QR_TEST_MIX_UNIFORM,
    /* Clusters of tiny (some sub-pixel) circles for deep trees, ordinary
     * circles partly off-screen, circles larger than the image, far-away
     * circles and r = 0; colours in [-0.5, 1.5]. Finite values only, so
     * renderers and the GPU index take it. */
    QR_TEST_MIX_RENDERABLE,
    /* As RENDERABLE, plus every value the index must cull: r < 0, NaN,
     * infinities, huge finite values. */
    QR_TEST_MIX_HOSTILE,
} qr_test_mix;

qr_test_scene_spec qr_test_mix_spec(qr_test_mix mix, uint64_t seed, int32_t n);

/* A new scene (QR_ANIM_NONE) drawn as spec says; asserts on failure. Free
 * it with qr_scene_destroy. */
qr_scene *qr_test_scene_generate(const qr_test_scene_spec *spec);

/* qr_test_scene_generate(qr_test_mix_spec(mix, seed, n)). */
qr_scene *qr_test_random_scene(qr_test_mix mix, uint64_t seed, int32_t n);

/* `big` circles of radius rmin..rmax (image widths: 0.3-0.6 covers most of
 * the image, 2 all of it), then `small` of radius 0.002-0.01, centres
 * uniform over the unit square, random colours: the scenes whose index
 * splitting can only multiply the pairs (quadtree_geom.h,
 * qr_split_shortens). */
qr_scene *qr_test_large_circles(int32_t big, float rmin, float rmax, int32_t small, uint64_t seed);

/* Gives a flat scene random picture options (quadrender/scene.h): each
 * circle an alpha from 0 to 1 (about one in eight exactly 0, 1 or 0.5,
 * the rest uniform; tiny ones too), and a random background colour with a
 * channel of 0 and one of 1. Asserts on failure. */
void qr_test_random_picture(qr_scene *s, uint64_t seed);

#endif
