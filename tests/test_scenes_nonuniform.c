/* test_scenes_nonuniform.c — the non-uniform built-in scenes (clusters,
 * spiral, powerlaw, hotspot, roads, ring) and the sized families
 * (uniform:N, clustered:N): counts, determinism over seeds and thread
 * counts, the invariants every scene keeps, that the density really varies
 * (measured on a grid of cells against a uniform scene), the FAMILY:COUNT
 * and zoo:SEED syntax and their errors, and each scene's bytes pinned by a
 * hash. */
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "quadrender/scene.h"
#include "quadrender/threads.h"
#include "scene_util.h"

static const struct {
    const char *name;
    int32_t n;
} nonuniform[6] = {
    {"clusters", 1000000}, {"spiral", 1000000}, {"powerlaw", 300000},
    {"hotspot", 1000000},  {"roads", 500000},   {"ring", 1000000},
};

/* ---- helpers --------------------------------------------------------- */

/* FNV-1a, 64 bits, over the scene's circles: the seven float arrays'
 * bit patterns, each as 4 little-endian bytes, so the value is the same on
 * any host. */
static uint64_t scene_hash(const qr_scene *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < (size_t)s->n * 7; ++i) {
        uint32_t b = qr_test_float_bits(s->block[i]);
        for (int k = 0; k < 4; ++k) {
            h ^= (b >> (8 * k)) & 0xffu;
            h *= 0x100000001b3u;
        }
    }
    return h;
}

static int cmp_desc_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x < y) - (x > y);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The share of the centres that lie in the `cells` most crowded cells of a
 * grid x grid cutting of the image. A uniform scene's share is about
 * cells / grid^2. */
static double densest_share(const qr_scene *s, int grid, int cells)
{
    int *count = calloc((size_t)grid * (size_t)grid, sizeof *count);
    cr_assert_not_null(count);
    for (int32_t i = 0; i < s->n; ++i) {
        int cx = (int)(s->x[i] * (float)grid), cy = (int)(s->y[i] * (float)grid);
        cx = cx < grid ? cx : grid - 1;
        cy = cy < grid ? cy : grid - 1;
        count[cy * grid + cx]++;
    }
    qsort(count, (size_t)grid * (size_t)grid, sizeof *count, cmp_desc_int);
    long long sum = 0;
    for (int k = 0; k < cells; ++k)
        sum += count[k];
    free(count);
    return (double)sum / (double)s->n;
}

/* Every circle: centre in the image, depth in [0, 1] and never nearer than
 * the one drawn before it, radius positive and at most 0.5, colour in
 * [0, 1], flat shading, not animated. */
static void assert_invariants(const qr_scene *s)
{
    cr_assert_eq(s->anim, QR_ANIM_NONE, "%s", s->name);
    cr_assert_eq(s->shading, QR_SHADE_FLAT, "%s", s->name);
    cr_assert_null(s->vx, "%s", s->name);
    for (int32_t i = 0; i < s->n; ++i) {
        cr_assert(s->x[i] >= 0.0f && s->x[i] <= 1.0f && s->y[i] >= 0.0f && s->y[i] <= 1.0f,
                  "%s: circle %d at (%g, %g)", s->name, i, (double)s->x[i], (double)s->y[i]);
        cr_assert(s->z[i] >= 0.0f && s->z[i] <= 1.0f, "%s: z[%d] %g", s->name, i, (double)s->z[i]);
        cr_assert(i == 0 || s->z[i - 1] >= s->z[i], "%s: depth order at %d", s->name, i);
        cr_assert(s->r[i] > 0.0f && s->r[i] <= 0.5f, "%s: r[%d] %g", s->name, i, (double)s->r[i]);
        const float c[3] = {s->red[i], s->green[i], s->blue[i]};
        for (int k = 0; k < 3; ++k)
            cr_assert(c[k] >= 0.0f && c[k] <= 1.0f, "%s: colour of %d", s->name, i);
    }
}

/* ---- the table ----------------------------------------------------------- */

Test(scenes_nonuniform, table_counts_and_names)
{
    int count = 0;
    const qr_builtin_info *t = qr_builtin_scenes(&count);
    cr_assert_eq(count, 20);
    for (int k = 0; k < 6; ++k) {
        const qr_builtin_info *e = &t[14 + k];
        cr_assert_str_eq(e->name, nonuniform[k].name);
        cr_assert_eq(e->circles, nonuniform[k].n, "%s", e->name);
        cr_assert(e->circles >= 100000 && e->circles <= 10000000, "%s", e->name);
        cr_assert_not(e->animated);
        qr_scene *s = qr_test_builtin(e->name, 0);
        cr_assert_eq(s->n, nonuniform[k].n, "%s", e->name);
        cr_assert_str_eq(s->name, e->name);
        assert_invariants(s);
        qr_scene_destroy(s);
        /* any case finds it */
        char upper[32];
        size_t len = strlen(e->name);
        for (size_t i = 0; i <= len; ++i)
            upper[i] = (char)(e->name[i] >= 'a' && e->name[i] <= 'z' ? e->name[i] - 32 : e->name[i]);
        cr_assert_eq(qr_builtin_find(upper), e->name);
    }
    int nfam = 0;
    const qr_builtin_family *f = qr_builtin_families(&nfam);
    cr_assert_eq(nfam, 3);
    cr_assert_str_eq(f[0].name, "uniform");
    cr_assert_str_eq(f[1].name, "clustered");
    cr_assert_str_eq(f[2].name, "zoo");
    cr_assert_str_eq(f[0].param, "COUNT");
    cr_assert_str_eq(f[2].param, "SEED");
    for (int k = 0; k < nfam; ++k)
        cr_assert(strlen(f[k].description) > 10);
}

/* ---- determinism ------------------------------------------------------- */

Test(scenes_nonuniform, seeds_and_thread_counts)
{
    const int saved = qr_threads();
    for (int k = 0; k < 6; ++k) {
        const char *name = nonuniform[k].name;
        qr_set_threads(1);
        qr_scene *one = qr_test_builtin(name, 42);
        qr_set_threads(5);
        qr_scene *five = qr_test_builtin(name, 42);
        qr_set_threads(saved);
        qr_test_assert_same_scene(one, five, name);
        /* seed 0 behaves as 1; another seed changes the circles */
        qr_scene *z0 = qr_test_builtin(name, 0), *z1 = qr_test_builtin(name, 1);
        qr_test_assert_same_scene(z0, z1, name);
        for (int a = 0; a < 7; ++a) {
            const float *p = one->block + (size_t)a * (size_t)one->n;
            const float *q = z0->block + (size_t)a * (size_t)one->n;
            cr_assert(memcmp(p, q, (size_t)one->n * sizeof(float)) != 0,
                      "%s: array %d does not depend on the seed", name, a);
        }
        qr_scene_destroy(one);
        qr_scene_destroy(five);
        qr_scene_destroy(z0);
        qr_scene_destroy(z1);
    }
}

/* The generated bytes, pinned: every picture in docs/scenes.md and every
 * benchmark of these scenes depends on them, so a change to a generator
 * must be deliberate (and update both). */
Test(scenes_nonuniform, pinned_bytes)
{
    static const struct {
        const char *name;
        uint32_t seed;
        uint64_t hash;
    } pins[] = {
        {"clusters", 0, 0xb192faa7d34cdd71u},
        {"spiral", 0, 0x5d6620a1bd1bad86u},
        {"powerlaw", 0, 0xd8f557fc117f79d5u},
        {"hotspot", 0, 0x25ee7a7bece078f3u},
        {"roads", 0, 0xf8af24e4b5394186u},
        {"ring", 0, 0xc33d794badb01382u},
        {"clusters", 7, 0xb58a5142a0d647c4u},
        {"uniform:10k", 3, 0x87edc333bd4decabu},
        {"clustered:12345", 3, 0x252bbf9a0e7e97ceu},
        {"zoo:22", 0, 0xacd0a0faa765a481u},
    };
    for (size_t k = 0; k < sizeof pins / sizeof pins[0]; ++k) {
        qr_scene *s = qr_test_builtin(pins[k].name, pins[k].seed);
        uint64_t h = scene_hash(s);
        cr_assert_eq(h, pins[k].hash, "%s seed %u: hash 0x%016llxu", pins[k].name, pins[k].seed,
                     (unsigned long long)h);
        qr_scene_destroy(s);
    }
}

/* ---- the density varies ---------------------------------------------------- */

Test(scenes_nonuniform, uniform_reference_is_flat)
{
    /* the measure below, on a uniform scene: the densest 10% of the cells
     * hold about 10% of the centres */
    qr_scene *s = qr_test_builtin("rand1M", 0);
    double share = densest_share(s, 64, 410);
    cr_assert(share > 0.09 && share < 0.13, "rand1M: %g", share);
    qr_scene_destroy(s);
}

Test(scenes_nonuniform, hotspot_99_percent_in_1_percent)
{
    const uint32_t seeds[] = {0, 3, 1234567};
    for (size_t k = 0; k < 3; ++k) {
        qr_scene *s = qr_test_builtin("hotspot", seeds[k]);
        /* 100 of 10,000 cells: 1% of the image */
        double share = densest_share(s, 100, 100);
        cr_assert(share >= 0.98, "hotspot seed %u: %g of the centres in 1%% of the image",
                  seeds[k], share);
        /* and the rest is spread: every 10 x 10 block of the image has some */
        cr_assert(densest_share(s, 10, 99) < 1.0, "hotspot seed %u: no field", seeds[k]);
        qr_scene_destroy(s);
    }
}

Test(scenes_nonuniform, powerlaw_few_huge_over_many_tiny)
{
    const uint32_t seeds[] = {0, 3, 1234567};
    for (size_t k = 0; k < 3; ++k) {
        qr_scene *s = qr_test_builtin("powerlaw", seeds[k]);
        float *r = malloc((size_t)s->n * sizeof *r);
        cr_assert_not_null(r);
        memcpy(r, s->r, (size_t)s->n * sizeof *r);
        qsort(r, (size_t)s->n, sizeof *r, cmp_float);
        float median = r[s->n / 2], largest = r[s->n - 1];
        int32_t above = 0;
        for (int32_t i = 0; i < s->n; ++i)
            above += r[i] > 10.0f * median;
        cr_assert(median < 0.002f, "seed %u: median radius %g", seeds[k], (double)median);
        cr_assert(above >= 500 && above <= 5000, "seed %u: %d radii above 10x the median",
                  seeds[k], above);
        cr_assert(largest > 100.0f * median, "seed %u: largest %g", seeds[k], (double)largest);
        /* few huge ones: under 1 in 3000 is above 0.05 */
        cr_assert(r[s->n - 100] < 0.05f, "seed %u: the 100th largest is %g", seeds[k],
                  (double)r[s->n - 100]);
        free(r);
        qr_scene_destroy(s);
    }
}

Test(scenes_nonuniform, crowded_scenes_are_crowded)
{
    static const struct {
        const char *name;
        int cells; /* of 64 x 64 */
        double share;
    } want[] = {
        {"clusters", 205, 0.5},   /* 5% of the image holds half the centres */
        {"clustered:100k", 205, 0.5},
        {"spiral", 205, 0.6},
        {"roads", 410, 0.4},      /* 10% of the image holds 40% */
        {"ring", 410, 0.4},
    };
    const uint32_t seeds[] = {0, 3};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; ++k)
        for (size_t j = 0; j < 2; ++j) {
            qr_scene *s = qr_test_builtin(want[k].name, seeds[j]);
            double share = densest_share(s, 64, want[k].cells);
            cr_assert(share >= want[k].share, "%s seed %u: %g of the centres in %d cells",
                      want[k].name, seeds[j], share, want[k].cells);
            qr_scene_destroy(s);
        }
}

Test(scenes_nonuniform, spiral_has_a_dense_core)
{
    qr_scene *s = qr_test_builtin("spiral", 5);
    int32_t core = 0;
    for (int32_t i = 0; i < s->n; ++i) {
        float dx = s->x[i] - 0.5f, dy = s->y[i] - 0.5f;
        core += dx * dx + dy * dy < 0.1f * 0.1f;
    }
    /* 3% of the image, at least 45% of the centres */
    cr_assert(core >= s->n / 100 * 45, "%d of %d in the core", core, s->n);
    qr_scene_destroy(s);
}

/* ---- families ---------------------------------------------------------------- */

Test(scenes_nonuniform, family_names)
{
    static const struct {
        const char *spec, *canonical;
    } ok[] = {
        {"uniform:10k", "uniform:10k"},         {"Uniform:10K", "uniform:10k"},
        {"uniform:10000000", "uniform:10M"},    {"uniform:10000k", "uniform:10M"},
        {"CLUSTERED:1500", "clustered:1500"},   {"clustered:1500k", "clustered:1500k"},
        {"clustered:0001000", "clustered:1k"},  {"uniform:1", "uniform:1"},
        {"uniform:200m", "uniform:200M"},       {"uniform:200000000", "uniform:200M"},
        {"clustered:100M", "clustered:100M"},   {"uniform:1000001", "uniform:1000001"},
        {"zoo:1000", "zoo:1000"},               {"ZOO:007", "zoo:7"},
        {"zoo:0", "zoo:0"},                     {"zoo:2147483647", "zoo:2147483647"},
    };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; ++k) {
        char out[64];
        qr_error err;
        cr_assert_eq(qr_builtin_family_name(ok[k].spec, out, sizeof out, &err), QR_OK, "%s: %s",
                     ok[k].spec, err.msg);
        cr_assert_str_eq(out, ok[k].canonical, "%s", ok[k].spec);
        const char *family = qr_builtin_find(ok[k].spec);
        cr_assert_not_null(family, "%s", ok[k].spec);
        cr_assert(strncmp(out, family, strlen(family)) == 0 && out[strlen(family)] == ':');
    }
}

Test(scenes_nonuniform, family_errors)
{
    static const struct {
        const char *spec, *says;
    } bad[] = {
        {"uniform:", "bad circle count '' in 'uniform:'"},
        {"uniform:abc", "bad circle count 'abc'"},
        {"uniform:1.5M", "bad circle count '1.5M'"},
        {"uniform:-3", "bad circle count '-3'"},
        {"uniform:+3", "bad circle count '+3'"},
        {"uniform: 3", "bad circle count ' 3'"},
        {"uniform:3 ", "bad circle count '3 '"},
        {"uniform:10kk", "bad circle count '10kk'"},
        {"uniform:10k5", "bad circle count '10k5'"},
        {"uniform:k", "bad circle count 'k'"},
        {"uniform:0", "circle count '0' in 'uniform:0' is out of range: give 1 to 200M"},
        {"clustered:0k", "out of range"},
        {"clustered:200000001", "out of range"},
        {"clustered:201M", "out of range"},
        {"uniform:99999999999999999999999", "out of range"},
        {"uniform", "'uniform' is a family of scenes: give a circle count, e.g. uniform:1M"},
        {"Clustered", "e.g. clustered:1M"},
        {"zoo:", "bad seed '' in 'zoo:': give a non-negative integer, e.g. zoo:1000"},
        {"zoo:abc", "bad seed 'abc' in 'zoo:abc'"},
        {"zoo:1k", "bad seed '1k'"},
        {"zoo:-1", "bad seed '-1'"},
        {"zoo:+1", "bad seed '+1'"},
        {"zoo: 1", "bad seed ' 1'"},
        {"zoo:2147483648", "seed '2147483648' in 'zoo:2147483648' is out of range: give 0 to 2147483647"},
        {"zoo:99999999999999999999999", "out of range"},
        {"Zoo", "'Zoo' is a family of scenes: give a seed, e.g. zoo:1000"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        qr_scene *s = (qr_scene *)1;
        qr_error err;
        cr_assert_eq(qr_scene_builtin(bad[k].spec, 0, &s, &err), QR_ERR_INVALID, "%s",
                     bad[k].spec);
        cr_assert_null(s);
        cr_assert_not_null(strstr(err.msg, bad[k].says), "%s: %s", bad[k].spec, err.msg);
        cr_assert_null(strchr(err.msg, '\n'));
        /* loading by name says the same */
        s = (qr_scene *)1;
        cr_assert_eq(qr_scene_load(bad[k].spec, 0, &s, &err), QR_ERR_INVALID, "%s", bad[k].spec);
        cr_assert_null(s);
        cr_assert_not_null(strstr(err.msg, bad[k].says), "load %s: %s", bad[k].spec, err.msg);
        cr_assert_null(qr_builtin_find(bad[k].spec), "%s", bad[k].spec);
        char out[64];
        cr_assert_eq(qr_builtin_family_name(bad[k].spec, out, sizeof out, &err), QR_ERR_INVALID);
    }
    /* not a family at all: the usual unknown-scene answer */
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_load("galaxy:10k", 0, &s, &err), QR_ERR_INVALID);
    cr_assert_not_null(strstr(err.msg, "unknown scene 'galaxy:10k'"), "%s", err.msg);
    cr_assert_null(qr_builtin_find("galaxy:10k"));
    cr_assert_null(qr_builtin_find("uniformx:10k"));
}

Test(scenes_nonuniform, family_scenes)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_load("Uniform:10K", 9, &s, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(s->n, 10000);
    cr_assert_str_eq(s->name, "uniform:10k");
    assert_invariants(s);
    qr_scene *again = qr_test_builtin("uniform:10000", 9);
    qr_test_assert_same_scene(s, again, "uniform:10k");
    qr_scene_destroy(again);
    qr_scene_destroy(s);

    s = qr_test_builtin("clustered:1234", 2);
    cr_assert_eq(s->n, 1234);
    cr_assert_str_eq(s->name, "clustered:1234");
    assert_invariants(s);
    qr_scene_destroy(s);

    s = qr_test_builtin("uniform:1", 0);
    cr_assert_eq(s->n, 1);
    qr_scene_destroy(s);
}

/* uniform:1M is rand1M and clustered:1M is clusters, byte for byte; only
 * the names differ. */
Test(scenes_nonuniform, families_at_one_million)
{
    const char *pairs[2][2] = {{"uniform:1M", "rand1M"}, {"clustered:1M", "clusters"}};
    for (int k = 0; k < 2; ++k) {
        qr_scene *a = qr_test_builtin(pairs[k][0], 11), *b = qr_test_builtin(pairs[k][1], 11);
        qr_test_assert_same_scene(a, b, pairs[k][0]);
        cr_assert_str_eq(a->name, pairs[k][0]);
        qr_scene_destroy(a);
        qr_scene_destroy(b);
    }
}

/* Radii shrink as 1/sqrt(N): the summed circle area (the mean coverage of a
 * pixel) stays that of N = 1M, within sampling noise; uniform:N's radii are
 * rand1M's range scaled. */
Test(scenes_nonuniform, families_keep_the_coverage)
{
    const char *families[] = {"uniform", "clustered"};
    const char *counts[] = {"10k", "100k", "3M"};
    for (int f = 0; f < 2; ++f) {
        char spec[32];
        snprintf(spec, sizeof spec, "%s:1M", families[f]);
        qr_scene *ref = qr_test_builtin(spec, 0);
        double ref_area = 0;
        for (int32_t i = 0; i < ref->n; ++i)
            ref_area += (double)ref->r[i] * ref->r[i];
        qr_scene_destroy(ref);
        for (int c = 0; c < 3; ++c) {
            snprintf(spec, sizeof spec, "%s:%s", families[f], counts[c]);
            qr_scene *s = qr_test_builtin(spec, 0);
            double area = 0, scale = sqrt(1e6 / s->n);
            for (int32_t i = 0; i < s->n; ++i) {
                area += (double)s->r[i] * s->r[i];
                if (f == 0)
                    cr_assert(s->r[i] >= 0.009 * scale * (1 - 1e-6) &&
                                  s->r[i] <= 0.014 * scale * (1 + 1e-6),
                              "%s: r[%d] %g", spec, i, (double)s->r[i]);
            }
            cr_assert(fabs(area / ref_area - 1) < 0.02, "%s: summed r^2 %g, at 1M %g", spec, area,
                      ref_area);
            qr_scene_destroy(s);
        }
    }
}

/* ---- the zoo ------------------------------------------------------------------ */

/* Twenty seeds: 100k to 4M circles, spread over that range, every circle
 * keeping the invariants (so finite, radius positive and at most 0.5), the
 * density never flat (the densest tenth of the cells holds at least 15% of
 * the centres; a uniform scene's about 10%), each scene named zoo:SEED. */
Test(scenes_nonuniform, zoo_counts_and_invariants, .timeout = 120)
{
    int32_t least = INT32_MAX, most = 0;
    for (uint32_t seed = 0; seed < 20; ++seed) {
        char name[32];
        snprintf(name, sizeof name, "zoo:%u", seed);
        qr_scene *s = qr_test_builtin(name, 0);
        cr_assert_str_eq(s->name, name);
        cr_assert(s->n >= 100000 && s->n <= 4000000, "%s: %d circles", name, s->n);
        least = s->n < least ? s->n : least;
        most = s->n > most ? s->n : most;
        assert_invariants(s);
        double share = densest_share(s, 64, 410);
        cr_assert(share >= 0.15, "%s: %g of the centres in the densest tenth", name, share);
        qr_scene_destroy(s);
    }
    cr_assert(least < 200000 && most > 2000000, "counts %d to %d", least, most);
}

/* The same seed gives the same bytes on any thread count and whatever the
 * scene seed (SEED is the identity); distinct seeds give distinct scenes. */
Test(scenes_nonuniform, zoo_seeds_and_thread_counts, .timeout = 120)
{
    const int saved = qr_threads();
    const char *names[] = {"zoo:1000", "zoo:3"};
    for (int k = 0; k < 2; ++k) {
        qr_set_threads(1);
        qr_scene *one = qr_test_builtin(names[k], 0);
        qr_set_threads(5);
        qr_scene *five = qr_test_builtin(names[k], 0);
        qr_set_threads(saved);
        qr_test_assert_same_scene(one, five, names[k]);
        qr_scene *other = qr_test_builtin(names[k], 12345);
        qr_test_assert_same_scene(one, other, names[k]);
        qr_scene_destroy(five);
        qr_scene_destroy(other);
        qr_scene_destroy(one);
    }
    qr_scene *a = qr_test_builtin("zoo:1000", 0), *b = qr_test_builtin("zoo:1001", 0);
    int32_t n = a->n < b->n ? a->n : b->n;
    for (int arr = 0; arr < 7; ++arr)
        cr_assert(memcmp(a->block + (size_t)arr * (size_t)a->n, b->block + (size_t)arr * (size_t)b->n,
                         (size_t)n * sizeof(float)) != 0,
                  "zoo:1000 and zoo:1001 share array %d", arr);
    qr_scene_destroy(a);
    qr_scene_destroy(b);
}
