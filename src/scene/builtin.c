/* builtin.c — the built-in scenes' generators (their names and the table:
 * builtin_names.c): the fourteen
 * CS149 scenes, generated exactly as docs/scene-definitions.md defines them,
 * and the uniform:N family (the non-uniform scenes and clustered:N are
 * builtin_clustered.c's, zoo:SEED builtin_zoo.c's).
 *
 * Every float expression below is written in the spec's left-to-right order
 * with float constants, and the build forbids contraction, so each value is
 * bit-identical to the CS149 tool's. Each rf() of the spec is one call of
 * qr_rng_float in the order the spec lists them; the order of statements is
 * therefore significant even where it looks arbitrary.
 */
#include "scene/scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/threads.h"
#include "quadrender/rng.h"

/* ---- generators ---------------------------------------------------------- */

static void qr_set_circle(qr_scene *s, int32_t i, float x, float y, float z, float r, float red,
                          float green, float blue)
{
    s->x[i] = x;
    s->y[i] = y;
    s->z[i] = z;
    s->r[i] = r;
    s->red[i] = red;
    s->green[i] = green;
    s->blue[i] = blue;
}

static void qr_gen_rgb(qr_scene *s)
{
    qr_set_circle(s, 0, 0.4f, 0.5f, 0.75f, 0.3f, 1.0f, 0.0f, 0.0f);
    qr_set_circle(s, 1, 0.5f, 0.5f, 0.5f, 0.3f, 0.0f, 1.0f, 0.0f);
    qr_set_circle(s, 2, 0.6f, 0.5f, 0.25f, 0.3f, 0.0f, 0.0f, 1.0f);
}

static void qr_gen_rgby(qr_scene *s)
{
    qr_set_circle(s, 0, 0.25f, 0.25f, 0.75f, 0.19f, 1.0f, 0.0f, 0.0f);
    qr_set_circle(s, 1, 0.3f, 0.3f, 0.5f, 0.19f, 0.0f, 1.0f, 0.0f);
    qr_set_circle(s, 2, 0.5f, 0.5f, 0.25f, 0.25f, 0.0f, 0.0f, 1.0f);
    qr_set_circle(s, 3, 0.2f, 0.2f, 0.9f, 0.1f, 1.0f, 1.0f, 0.0f);
}

/* The colour rule of random and sized circles of a scene of n circles;
 * `sized` selects the variant sized(N, R) uses for N > 100000. */
static void qr_gen_color(qr_scene *s, int32_t i, qr_rng *g, int sized, int32_t n)
{
    if (n <= 10000) {
        s->red[i] = 0.1f + 0.9f * qr_rng_float(g);
        s->green[i] = 0.2f + 0.5f * qr_rng_float(g);
        s->blue[i] = 0.5f + 0.5f * qr_rng_float(g);
    } else if (n <= 100000) {
        s->red[i] = 0.3f + 0.9f * qr_rng_float(g);
        s->green[i] = 0.1f + 0.9f * qr_rng_float(g);
        s->blue[i] = 0.1f + 0.4f * qr_rng_float(g);
    } else if (!sized) {
        s->red[i] = 0.2f + 0.5f * qr_rng_float(g);
        s->green[i] = 0.5f + 0.5f * qr_rng_float(g);
        s->blue[i] = 0.1f + 0.4f * qr_rng_float(g);
    } else {
        s->red[i] = 0.3f + 0.9f * qr_rng_float(g);
        s->green[i] = 0.1f + 0.3f * qr_rng_float(g);
        s->blue[i] = 0.2f + 0.2f * qr_rng_float(g);
    }
}

/* ---- random and sized scenes, in parallel ---------------------------------- */

/* random(N) and sized(N, R) draw rf() N times for the depths, then a fixed
 * number of times per circle, in circle order. With qr_rng_skip each task
 * starts at its own place in that one sequence, so any number of threads
 * produces the very values the serial loop does. */
#define QR_GEN_TASK 65536

typedef struct qr_gen_job {
    qr_scene *s;
    qr_rng start;  /* the generator right after seeding */
    int sized;     /* sized(N, radius) rather than random(N) */
    int uniform;   /* uniform:N: random(N) with rand1M's rules, radii times scale */
    float scale;
    float radius;
    int per;       /* rf() calls per circle */
} qr_gen_job;

static void qr_gen_depth_task(void *ctx, int t)
{
    qr_gen_job *job = ctx;
    qr_scene *s = job->s;
    int32_t a = t * QR_GEN_TASK, b = a + QR_GEN_TASK < s->n ? a + QR_GEN_TASK : s->n;
    qr_rng g = job->start;
    qr_rng_skip(&g, (uint64_t)a);
    for (int32_t i = a; i < b; ++i)
        s->z[i] = qr_rng_float(&g);
}

static void qr_gen_circle_task(void *ctx, int t)
{
    qr_gen_job *job = ctx;
    qr_scene *s = job->s;
    int32_t n = s->n;
    int32_t a = t * QR_GEN_TASK, b = a + QR_GEN_TASK < n ? a + QR_GEN_TASK : n;
    qr_rng g = job->start;
    qr_rng_skip(&g, (uint64_t)n + (uint64_t)job->per * (uint64_t)a);
    for (int32_t i = a; i < b; ++i) {
        if (job->sized)
            s->r[i] = job->radius;
        else if (job->uniform)
            s->r[i] = (0.009f + 0.005f * qr_rng_float(&g)) * job->scale;
        else if (n > 100000)
            s->r[i] = 0.009f + 0.005f * qr_rng_float(&g);
        else
            s->r[i] = 0.02f + 0.06f * qr_rng_float(&g);
        s->x[i] = qr_rng_float(&g);
        s->y[i] = qr_rng_float(&g);
        qr_gen_color(s, i, &g, job->sized, job->uniform ? INT32_MAX : n);
    }
}

/* Reseeds g, generates the scene, and leaves g where the serial loop would
 * (biglittle goes on drawing from it). */
static qr_status qr_gen_circles(qr_scene *s, qr_rng *g, uint32_t seed, int sized, float radius,
                                int uniform, qr_error *err)
{
    qr_rng_seed(g, seed);
    qr_gen_job job = {.s = s, .start = *g, .sized = sized, .radius = radius, .per = sized ? 5 : 6};
    if (uniform) {
        /* the mean coverage of rand1M whatever the count: exactly 1 at 1M */
        job.uniform = 1;
        job.scale = sqrtf(1000000.0f / (float)s->n);
    }
    int tasks = (int)((s->n + QR_GEN_TASK - 1) / QR_GEN_TASK);
    int threads = qr_threads();
    qr_parallel_for(tasks, threads, qr_gen_depth_task, &job);
    qr_status st = qr_sort_descending(s->z, (size_t)s->n, err);
    if (st != QR_OK)
        return st;
    qr_parallel_for(tasks, threads, qr_gen_circle_task, &job);
    qr_rng_skip(g, (uint64_t)s->n * (uint64_t)(1 + job.per));
    return QR_OK;
}

static qr_status qr_gen_random(qr_scene *s, qr_rng *g, uint32_t seed, qr_error *err)
{
    return qr_gen_circles(s, g, seed, 0, 0.0f, 0, err);
}

/* uniform:N: random(N) drawn as rand1M is (radius 0.009-0.014, its colour
 * rule) whatever N, the radius then scaled by sqrt(1M / N). */
static qr_status qr_gen_uniform(qr_scene *s, uint32_t seed, qr_error *err)
{
    qr_rng g;
    return qr_gen_circles(s, &g, seed, 0, 0.0f, 1, err);
}

static qr_status qr_gen_sized(qr_scene *s, qr_rng *g, uint32_t seed, float radius, qr_error *err)
{
    return qr_gen_circles(s, g, seed, 1, radius, 0, err);
}

/* biglittle (corner_y 0.85) and littlebig (0.05): the last 1000 circles of
 * sized(10000, 0.25) become small ones in a 0.1 x 0.1 square, continuing the
 * same rand stream. */
static qr_status qr_gen_biglittle(qr_scene *s, qr_rng *g, uint32_t seed, float corner,
                                  qr_error *err)
{
    qr_status st = qr_gen_sized(s, g, seed, 0.25f, err);
    if (st != QR_OK)
        return st;
    for (int32_t i = 9000; i < 10000; ++i) {
        s->r[i] = 0.05f;
        s->x[i] = 0.9f - corner + 0.1f * qr_rng_float(g);
        s->y[i] = corner + 0.1f * qr_rng_float(g);
    }
    return QR_OK;
}

static void qr_gen_pattern(qr_scene *s, qr_rng *g)
{
    float r = 0.5f * (1.0f / 16.0f);
    const struct {
        int size;
        float offset, red, green, blue;
    } grids[2] = {{16, r, 1.0f, 0.0f, 0.0f}, {31, 0.0f, 1.0f, 1.0f, 0.0f}};
    int32_t k = 0;
    for (int gi = 0; gi < 2; ++gi) {
        for (int j = 0; j < grids[gi].size; ++j) {
            for (int i = 0; i < grids[gi].size; ++i) {
                float x = grids[gi].offset + 2.0f * r * (float)i;
                float y = grids[gi].offset + 2.0f * r * (float)j;
                float z = qr_rng_float(g);
                qr_set_circle(s, k++, x, y, z, r, grids[gi].red, grids[gi].green,
                              grids[gi].blue);
            }
        }
    }
}

static void qr_gen_hypnosis(qr_scene *s, qr_rng *g)
{
    for (int32_t i = 0; i < s->n; ++i) {
        s->x[i] = 0.5f;
        s->y[i] = 0.5f;
        s->z[i] = 0.0f;
        s->r[i] = 0.02f + (float)i * 0.02f;
        s->red[i] = qr_rng_float(g);
        s->green[i] = qr_rng_float(g);
        s->blue[i] = qr_rng_float(g);
    }
}

/* Red, green, blue by i % 3 (bouncing balls and fireworks sparks). */
static void qr_set_rgb_cycle(qr_scene *s, int32_t k, int i)
{
    s->red[k] = i % 3 == 0 ? 1.0f : 0.0f;
    s->green[k] = i % 3 == 1 ? 1.0f : 0.0f;
    s->blue[k] = i % 3 == 2 ? 1.0f : 0.0f;
}

static void qr_gen_bouncingballs(qr_scene *s, qr_rng *g)
{
    for (int32_t i = 0; i < s->n; ++i) {
        s->r[i] = 0.05f;
        s->x[i] = qr_rng_float(g);
        s->y[i] = qr_rng_float(g);
        s->z[i] = qr_rng_float(g);
        qr_set_rgb_cycle(s, i, i);
        s->vx[i] = 0.0f;
        s->vy[i] = qr_rng_float(g);
        s->vz[i] = 0.0f;
    }
}

#define QR_FIREWORKS 15
#define QR_SPARKS 20

static void qr_gen_fireworks(qr_scene *s, qr_rng *g)
{
    const float pi = 3.14159f;
    for (int i = 0; i < QR_FIREWORKS; ++i) {
        float fx = qr_rng_float(g);
        float fy = qr_rng_float(g);
        qr_set_circle(s, i, fx, fy, 0.0f, 0.005f, 1.0f, 1.0f, 1.0f);
        s->x0[i] = fx;
        s->y0[i] = fy;
        for (int j = 0; j < QR_SPARKS; ++j) {
            int32_t k = QR_FIREWORKS + QR_SPARKS * i + j;
            float angle = (float)(j * 2) * pi / (float)QR_SPARKS;
            float c = cosf(angle), sn = sinf(angle);
            s->x[k] = fx + c * 0.005f;
            s->y[k] = fy + sn * 0.005f;
            s->z[k] = 0.0f;
            s->r[k] = 0.01f;
            qr_set_rgb_cycle(s, k, i);
            /* The spec divides in double and stores the float result. */
            s->vx[k] = (float)((double)c / 5.0);
            s->vy[k] = (float)((double)sn / 5.0);
            /* The start state is kept so the step resets a spark without
             * calling cosf/sinf, which the GPU would round differently. */
            s->x0[k] = s->x[k];
            s->y0[k] = s->y[k];
            s->vx0[k] = s->vx[k];
            s->vy0[k] = s->vy[k];
        }
    }
}

static float qr_clampf(float v, float lo, float hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* snow, and snowsingle (`single`). snowsingle is our choice of "one still
 * frame of falling snow": the snow generation with every rf() call
 * unchanged, except that a flake's y is rf() instead of 1 + r + 2*rf(), so
 * the flakes fill the whole sky as in the steady state of falling snow
 * (snow's own first frames show flakes only just entering from the top). */
static qr_status qr_gen_snow(qr_scene *s, qr_rng *g, int single, qr_error *err)
{
    int32_t n = s->n;
    for (int32_t i = 0; i < n; ++i) {
        float d = powf((float)i / (float)n, 0.1f) + (-0.05f + 0.1f * qr_rng_float(g));
        s->z[i] = qr_clampf(d, 0.0f, 1.0f);
    }
    qr_status st = qr_sort_descending(s->z, (size_t)n, err);
    if (st != QR_OK)
        return st;
    for (int32_t i = 0; i < n; ++i) {
        float z = s->z[i];
        float size = 0.08f - 0.0075f + 0.015f * qr_rng_float(g);
        float r = (1.0f - z) * size + z * size / 15.0f;
        if (z < 0.02f)
            r = r * 3.0f;
        else if (r < 0.0075f)
            r = 0.0075f;
        s->r[i] = r;
        s->x[i] = qr_rng_float(g);
        if (single)
            s->y[i] = qr_rng_float(g);
        else
            s->y[i] = 1.0f + r + 2.0f * qr_rng_float(g);
        s->red[i] = 1.0f;
        s->green[i] = 1.0f;
        s->blue[i] = 1.0f;
    }
    return QR_OK;
}

static qr_anim qr_builtin_anim(int id)
{
    switch (id) {
    case QR_B_HYPNOSIS: return QR_ANIM_HYPNOSIS;
    case QR_B_BOUNCINGBALLS: return QR_ANIM_BOUNCE;
    case QR_B_FIREWORKS: return QR_ANIM_FIREWORKS;
    case QR_B_SNOW: return QR_ANIM_SNOW;
    default: return QR_ANIM_NONE;
    }
}

/* A family scene: uniform:N, clustered:N, or zoo:SEED (n is SEED; the
 * scene seed plays no part). */
static qr_status qr_scene_family(const char *spec, int family, int32_t n, uint32_t seed,
                                 qr_scene **out, qr_error *err)
{
    qr_scene *s;
    qr_status st = qr_scene_create(family == QR_FAMILY_ZOO ? qr_zoo_circles((uint32_t)n) : n,
                                   QR_ANIM_NONE, &s, err);
    if (st != QR_OK)
        return st;
    char name[sizeof s->name];
    st = qr_builtin_family_name(spec, name, sizeof name, err);
    if (st == QR_OK) {
        qr_scene_set_name(s, name);
        s->shading = QR_SHADE_FLAT;
        if (family == QR_FAMILY_UNIFORM)
            st = qr_gen_uniform(s, seed, err);
        else if (family == QR_FAMILY_ZOO)
            st = qr_gen_zoo(s, (uint32_t)n, err);
        else /* exactly 1 at 1M: clustered:1M is the clusters scene */
            st = qr_gen_nonuniform(s, QR_NU_CLUSTERS, seed, sqrtf(1000000.0f / (float)n), err);
    }
    if (st != QR_OK) {
        qr_scene_destroy(s);
        return st;
    }
    *out = s;
    return QR_OK;
}

qr_status qr_scene_builtin(const char *name, uint32_t seed, qr_scene **out, qr_error *err)
{
    *out = NULL;
    int family;
    int32_t family_n;
    int parsed = qr_builtin_family_parse(name, &family, &family_n, err);
    if (parsed < 0)
        return QR_ERR_INVALID;
    if (parsed > 0)
        return qr_scene_family(name, family, family_n, seed, out, err);
    int id = -1;
    const char *canonical = qr_builtin_find(name);
    for (int i = 0; i < QR_B_COUNT; ++i)
        if (canonical && strcmp(canonical, qr_builtin_scenes(NULL)[i].name) == 0)
            id = i;
    if (id < 0) {
        const char *near = qr_builtin_suggest(name);
        if (near)
            return qr_fail(err, QR_ERR_INVALID,
                           "unknown built-in scene '%s': did you mean '%s'? (try 'quadrender scenes')",
                           name, near);
        return qr_fail(err, QR_ERR_INVALID,
                       "unknown built-in scene '%s'; try 'quadrender scenes'", name);
    }

    qr_scene *s;
    qr_status st = qr_scene_create(qr_builtin_scenes(NULL)[id].circles, qr_builtin_anim(id), &s, err);
    if (st != QR_OK)
        return st;
    qr_scene_set_name(s, canonical);
    s->shading = (id == QR_B_SNOW || id == QR_B_SNOWSINGLE) ? QR_SHADE_SNOW : QR_SHADE_FLAT;

    /* srand(seed) when the scene starts loading; the generators that the
     * spec says "reseed" seed again themselves (with no effect on the
     * stream, since nothing has been drawn yet, but it keeps them exact). */
    qr_rng g;
    qr_rng_seed(&g, seed);
    switch (id) {
    case QR_B_RGB: qr_gen_rgb(s); break;
    case QR_B_RGBY: qr_gen_rgby(s); break;
    case QR_B_RAND10K:
    case QR_B_RAND100K:
    case QR_B_RAND1M: st = qr_gen_random(s, &g, seed, err); break;
    case QR_B_MICRO2M: st = qr_gen_sized(s, &g, seed, 0.001f, err); break;
    case QR_B_BIGLITTLE: st = qr_gen_biglittle(s, &g, seed, 0.85f, err); break;
    case QR_B_LITTLEBIG: st = qr_gen_biglittle(s, &g, seed, 0.05f, err); break;
    case QR_B_PATTERN: qr_gen_pattern(s, &g); break;
    case QR_B_HYPNOSIS: qr_gen_hypnosis(s, &g); break;
    case QR_B_BOUNCINGBALLS: qr_gen_bouncingballs(s, &g); break;
    case QR_B_FIREWORKS: qr_gen_fireworks(s, &g); break;
    case QR_B_SNOW: st = qr_gen_snow(s, &g, 0, err); break;
    case QR_B_SNOWSINGLE: st = qr_gen_snow(s, &g, 1, err); break;
    case QR_B_CLUSTERS: st = qr_gen_nonuniform(s, QR_NU_CLUSTERS, seed, 1.0f, err); break;
    case QR_B_SPIRAL: st = qr_gen_nonuniform(s, QR_NU_SPIRAL, seed, 1.0f, err); break;
    case QR_B_POWERLAW: st = qr_gen_nonuniform(s, QR_NU_POWERLAW, seed, 1.0f, err); break;
    case QR_B_HOTSPOT: st = qr_gen_nonuniform(s, QR_NU_HOTSPOT, seed, 1.0f, err); break;
    case QR_B_ROADS: st = qr_gen_nonuniform(s, QR_NU_ROADS, seed, 1.0f, err); break;
    case QR_B_RING: st = qr_gen_nonuniform(s, QR_NU_RING, seed, 1.0f, err); break;
    }
    if (st != QR_OK) {
        qr_scene_destroy(s);
        return st;
    }
    *out = s;
    return QR_OK;
}
