/* test_scenes_oracle.c — the built-in random scenes against an independent
 * re-implementation of their specification on glibc's srand/rand + qsort (a
 * different code path from the library's portable generator and radix
 * sort), compared bit for bit. */
#include "test_util.h"

#include <math.h>
#include <stdint.h>

#include "quadrender/scene.h"
#include "scene_util.h"

/* ---- independent oracle -------------------------------------------------- */

/* The spec transcribed as plainly as possible on glibc's own srand/rand and
 * qsort, sharing no code with the library. */
static float oracle_rf(void)
{
    return (float)rand() / 2147483647;
}

static int oracle_desc(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? 1 : (x > y ? -1 : 0);
}

typedef struct oracle_scene {
    int n;
    float *x, *y, *z, *r, *cr, *cg, *cb;
} oracle_scene;

static void oracle_alloc(oracle_scene *o, int n)
{
    o->n = n;
    o->x = malloc(n * sizeof(float));
    o->y = malloc(n * sizeof(float));
    o->z = malloc(n * sizeof(float));
    o->r = malloc(n * sizeof(float));
    o->cr = malloc(n * sizeof(float));
    o->cg = malloc(n * sizeof(float));
    o->cb = malloc(n * sizeof(float));
}

static void oracle_free(oracle_scene *o)
{
    free(o->x); free(o->y); free(o->z); free(o->r);
    free(o->cr); free(o->cg); free(o->cb);
}

static void oracle_color(oracle_scene *o, int i, int sized)
{
    int n = o->n;
    if (n <= 10000) {
        o->cr[i] = .1f + .9f * oracle_rf();
        o->cg[i] = .2f + .5f * oracle_rf();
        o->cb[i] = .5f + .5f * oracle_rf();
    } else if (n <= 100000) {
        o->cr[i] = .3f + .9f * oracle_rf();
        o->cg[i] = .1f + .9f * oracle_rf();
        o->cb[i] = .1f + .4f * oracle_rf();
    } else if (sized) {
        o->cr[i] = .3f + .9f * oracle_rf();
        o->cg[i] = .1f + .3f * oracle_rf();
        o->cb[i] = .2f + .2f * oracle_rf();
    } else {
        o->cr[i] = .2f + .5f * oracle_rf();
        o->cg[i] = .5f + .5f * oracle_rf();
        o->cb[i] = .1f + .4f * oracle_rf();
    }
}

/* sized_radius < 0: random circles; else sized(N, sized_radius). */
static void oracle_gen(oracle_scene *o, int n, unsigned seed, float sized_radius)
{
    oracle_alloc(o, n);
    srand(seed);
    float *depth = malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        depth[i] = oracle_rf();
    qsort(depth, n, sizeof(float), oracle_desc);
    for (int i = 0; i < n; i++) {
        if (sized_radius < 0)
            o->r[i] = n > 100000 ? .009f + .005f * oracle_rf() : .02f + .06f * oracle_rf();
        else
            o->r[i] = sized_radius;
        o->x[i] = oracle_rf();
        o->y[i] = oracle_rf();
        o->z[i] = depth[i];
        oracle_color(o, i, sized_radius >= 0);
    }
    free(depth);
}

static void oracle_compare(const oracle_scene *o, const qr_scene *s)
{
    cr_assert_eq(s->n, o->n);
    const float *want[7] = {o->x, o->y, o->z, o->r, o->cr, o->cg, o->cb};
    const float *got[7] = {s->x, s->y, s->z, s->r, s->red, s->green, s->blue};
    for (int f = 0; f < 7; ++f)
        for (int i = 0; i < o->n; ++i)
            if (qr_test_float_bits(got[f][i]) != qr_test_float_bits(want[f][i]))
                cr_assert_fail("%s circle %d field %d: got %.9g, oracle %.9g", s->name, i, f,
                               (double)got[f][i], (double)want[f][i]);
}

Test(scenes, oracle_random)
{
    const struct {
        const char *name;
        int n;
        unsigned seed;
    } cases[] = {{"rand10k", 10000, 0}, {"rand10k", 10000, 3}, {"rand100k", 100000, 11},
                 {"rand1M", 1000000, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        oracle_scene o;
        oracle_gen(&o, cases[c].n, cases[c].seed, -1.0f);
        qr_scene *s = qr_test_builtin(cases[c].name, cases[c].seed);
        oracle_compare(&o, s);
        qr_scene_destroy(s);
        oracle_free(&o);
    }
}

Test(scenes, oracle_sized)
{
    unsigned seeds[2] = {0, 3};
    for (int k = 0; k < 2; ++k) {
        oracle_scene o;
        oracle_gen(&o, 2000000, seeds[k], 0.001f);
        qr_scene *s = qr_test_builtin("micro2M", seeds[k]);
        oracle_compare(&o, s);
        qr_scene_destroy(s);
        oracle_free(&o);
    }
    for (int k = 0; k < 2; ++k) {
        for (int little = 0; little < 2; ++little) {
            oracle_scene o;
            oracle_gen(&o, 10000, seeds[k], 0.25f);
            /* the same rand stream continues */
            float corner = little ? .05f : .85f;
            for (int i = 9000; i < 10000; i++) {
                o.r[i] = .05f;
                o.x[i] = .9f - corner + .1f * oracle_rf();
                o.y[i] = corner + .1f * oracle_rf();
            }
            qr_scene *s = qr_test_builtin(little ? "littlebig" : "biglittle", seeds[k]);
            oracle_compare(&o, s);
            qr_scene_destroy(s);
            oracle_free(&o);
        }
    }
}

Test(scenes, oracle_pattern_hypnosis)
{
    srand(4);
    qr_scene *p = qr_test_builtin("pattern", 4);
    for (int k = 0; k < 1217; ++k)
        qr_test_assert_bits(p->z[k], oracle_rf(), "pattern z[%d]", k);
    qr_scene_destroy(p);
    srand(4);
    qr_scene *h = qr_test_builtin("hypnosis", 4);
    for (int k = 0; k < 25; ++k) {
        qr_test_assert_bits(h->red[k], oracle_rf(), "R");
        qr_test_assert_bits(h->green[k], oracle_rf(), "G");
        qr_test_assert_bits(h->blue[k], oracle_rf(), "B");
    }
    qr_scene_destroy(h);
}
