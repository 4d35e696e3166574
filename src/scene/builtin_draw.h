/* builtin_draw.h — what the non-uniform generators share (builtin_clustered.c,
 * builtin_zoo.c): a counter-based generator, float helpers that use only
 * + - * /, sqrtf and float-integer conversions (each exact or correctly
 * rounded in IEEE float, so the bytes do not depend on the platform's libm),
 * smooth random curves, and the parallel driver that draws a scene's circles
 * from a model.
 *
 * Circle i's random numbers come from a generator keyed by (scene, seed, i,
 * draw number): any thread can make any circle, a rejection loop can take as
 * many draws as it needs, and the scene is the same bytes whatever the
 * thread count.
 */
#ifndef QR_SCENE_BUILTIN_DRAW_H
#define QR_SCENE_BUILTIN_DRAW_H

#include <math.h>
#include <stdint.h>

#include "scene/scene_internal.h"

/* ---- a counter-based generator ------------------------------------------- */

/* SplitMix64's finaliser: a bijection of 64-bit words that mixes every
 * input bit into every output bit. */
static inline uint64_t qr_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* The draws of one circle (or one model item): the k-th is a hash of
 * (base, k). */
typedef struct qr_ctr {
    uint64_t base;
    uint64_t k;
} qr_ctr;

static inline qr_ctr qr_ctr_at(uint64_t key, uint64_t i)
{
    qr_ctr c = {qr_mix64(key ^ qr_mix64(i + 0x9E3779B97F4A7C15u)), 0};
    return c;
}

/* A uniform float in [0, 1): 24 random bits, exact. */
static inline float qr_uf(qr_ctr *c)
{
    c->k++;
    uint64_t h = qr_mix64(c->base + c->k * 0xD1B54A32D192ED03u);
    return (float)(h >> 40) * (1.0f / 16777216.0f);
}

/* A standard normal deviate, approximately: the sum of four uniforms
 * (Irwin-Hall), centred and scaled to variance 1. Its tails end at 3.46
 * sigma, which suits clusters drawn on a bounded image. */
static inline float qr_gauss(qr_ctr *c)
{
    float a = qr_uf(c), b = qr_uf(c), d = qr_uf(c), e = qr_uf(c);
    return (a + b + d + e - 2.0f) * 1.7320508f;
}

/* ---- float helpers --------------------------------------------------------- */

/* floorf for |v| < 2^31, inline (floorf is a library call on baseline
 * x86-64). */
static inline float qr_floor(float v)
{
    float i = (float)(int32_t)v;
    return i > v ? i - 1.0f : i;
}

/* sin and cos of t turns (t * 2 pi radians), within 1e-6: the quarter turn
 * nearest t is taken out exactly, the rest (at most an eighth of a turn) goes
 * through Taylor polynomials. */
static inline void qr_sincos_turns(float t, float *sn, float *cs)
{
    float f = t - qr_floor(t);
    float m = f * 4.0f;
    int q = (int)(m + 0.5f);
    float a = (m - (float)q) * 1.5707964f;
    float a2 = a * a;
    /* Taylor's coefficients as nested factors 1/(k (k+1)), multiplied
     * rather than divided (a division costs several multiplications) */
    float s = a * (1.0f - a2 * (1.0f / 6.0f) *
                              (1.0f - a2 * (1.0f / 20.0f) * (1.0f - a2 * (1.0f / 42.0f))));
    float c = 1.0f - a2 * 0.5f *
                         (1.0f - a2 * (1.0f / 12.0f) *
                                     (1.0f - a2 * (1.0f / 30.0f) * (1.0f - a2 * (1.0f / 56.0f))));
    switch (q & 3) {
    case 0: *sn = s; *cs = c; break;
    case 1: *sn = c; *cs = -s; break;
    case 2: *sn = -s; *cs = -c; break;
    default: *sn = -c; *cs = s; break;
    }
}

/* A round 2-D normal deviate, approximately: the length of a pair of
 * qr_gauss deviates (whose joint density is slightly square) turned to a
 * uniform direction, so that clusters come out round. */
static inline void qr_gauss2(qr_ctr *c, float *gx, float *gy)
{
    float a = qr_gauss(c), b = qr_gauss(c);
    float rho = sqrtf(a * a + b * b), sn, cs;
    qr_sincos_turns(qr_uf(c), &sn, &cs);
    *gx = rho * cs;
    *gy = rho * sn;
}

static inline float qr_clamp01(float v)
{
    return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

static inline int qr_inside(float x, float y)
{
    return x >= 0.0f && x <= 1.0f && y >= 0.0f && y <= 1.0f;
}

/* Hue (turns), saturation and value to RGB, piecewise linear. */
static inline void qr_hsv(float h, float s, float v, float rgb[3])
{
    h = h - qr_floor(h);
    float x = h * 6.0f;
    int sector = (int)x;
    if (sector > 5)
        sector = 5;
    float f = x - (float)sector;
    float p = v * (1.0f - s), q = v * (1.0f - s * f), t = v * (1.0f - s * (1.0f - f));
    float r, g, b;
    switch (sector) {
    case 0: r = v; g = t; b = p; break;
    case 1: r = q; g = v; b = p; break;
    case 2: r = p; g = v; b = t; break;
    case 3: r = p; g = q; b = v; break;
    case 4: r = t; g = p; b = v; break;
    default: r = v; g = p; b = q; break;
    }
    rgb[0] = r;
    rgb[1] = g;
    rgb[2] = b;
}

/* The first index whose cumulative weight exceeds u (cum ascending, the
 * last entry 1). */
static inline int qr_pick(const float *cum, int n, float u)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (u < cum[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Turns weights w[0..n) into cumulative fractions ending at exactly 1. */
static inline void qr_cumulate(float *w, int n)
{
    float total = 0.0f;
    for (int i = 0; i < n; ++i)
        total += w[i];
    float run = 0.0f;
    for (int i = 0; i < n; ++i) {
        run += w[i];
        w[i] = run / total;
    }
    w[n - 1] = 1.0f;
}

/* ---- smooth random curves -------------------------------------------------- */

/* A smooth random walk of n points px, py, `step` apart, each step turning
 * by up to `turn`/2 turns either way, bouncing off the image's margins: its
 * start and heading drawn from c, then one draw per point. */
static inline void qr_walk(qr_ctr *c, int n, float step, float turn, float *px, float *py)
{
    float x = 0.05f + 0.9f * qr_uf(c), y = 0.05f + 0.9f * qr_uf(c);
    float heading = qr_uf(c);
    for (int k = 0; k < n; ++k) {
        px[k] = x;
        py[k] = y;
        heading += (qr_uf(c) - 0.5f) * turn;
        float sn, cs;
        qr_sincos_turns(heading, &sn, &cs);
        float nx = x + step * cs, ny = y + step * sn;
        if (nx < 0.03f || nx > 0.97f) {
            heading = 0.5f - heading; /* mirror in a vertical wall */
            cs = -cs;
            nx = x + step * cs;
        }
        if (ny < 0.03f || ny > 0.97f) {
            heading = -heading; /* mirror in a horizontal wall */
            sn = -sn;
            ny = y + step * sn;
        }
        x = nx;
        y = ny;
    }
}

/* The point at t in [0, 1) of the uniform Catmull-Rom segment from point k
 * to k + 1 of the n >= 2 points px, py (0 <= k <= n - 2), and the unit
 * normal there (0 where the curve stops). */
static inline void qr_curve_at(const float *px, const float *py, int n, int k, float t, float *x,
                               float *y, float *nx, float *ny)
{
    int k0 = k > 0 ? k - 1 : 0, k3 = k + 2 < n ? k + 2 : n - 1;
    float ax = -px[k0] + 3.0f * px[k] - 3.0f * px[k + 1] + px[k3];
    float bx = 2.0f * px[k0] - 5.0f * px[k] + 4.0f * px[k + 1] - px[k3];
    float cx = -px[k0] + px[k + 1];
    float ay = -py[k0] + 3.0f * py[k] - 3.0f * py[k + 1] + py[k3];
    float by = 2.0f * py[k0] - 5.0f * py[k] + 4.0f * py[k + 1] - py[k3];
    float cy = -py[k0] + py[k + 1];
    *x = 0.5f * (2.0f * px[k] + t * (cx + t * (bx + t * ax)));
    *y = 0.5f * (2.0f * py[k] + t * (cy + t * (by + t * ay)));
    float dx = cx + t * (2.0f * bx + t * 3.0f * ax), dy = cy + t * (2.0f * by + t * 3.0f * ay);
    float len = sqrtf(dx * dx + dy * dy);
    *nx = len > 1e-6f ? -dy / len : 0.0f;
    *ny = len > 1e-6f ? dx / len : 0.0f;
}

/* ---- drawing a scene ------------------------------------------------------- */

/* One circle as a model draws it: centre, radius (before the scene's
 * radius scale) and colour. */
typedef struct qr_circle {
    float x, y, r, rgb[3];
} qr_circle;

/* Draws one circle of `model` from c. */
typedef void (*qr_circle_fn)(const void *model, qr_ctr *c, qr_circle *o);

/* Fills the s->n circles of s on all cores: depths drawn from key and sorted
 * from far to near (index order is drawing order, and depth does not depend
 * on place), then circle i drawn by `draw` from (key, i), its centre and
 * colour clamped into [0, 1] and its radius multiplied by radius_scale.
 * builtin_clustered.c. */
qr_status qr_draw_circles(qr_scene *s, uint64_t key, float radius_scale, qr_circle_fn draw,
                          const void *model, qr_error *err);

#endif
