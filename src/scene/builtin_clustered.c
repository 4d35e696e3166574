/* builtin_clustered.c — the non-uniform built-in scenes: clusters, spiral,
 * powerlaw, hotspot, roads and ring (docs/scenes.md shows each), and the
 * generator behind the clustered:N family.
 *
 * A scene is a small model drawn from the seed (cluster centres, road
 * curves, hot squares, ...), then N circles drawn from it independently of
 * each other. Circle i's random numbers come from a counter-based generator
 * keyed by (scene, seed, i, draw number): any thread can make any circle, a
 * rejection loop can take as many draws as it needs, and the scene is the
 * same bytes whatever the thread count. Depths are drawn the same way and
 * sorted from far to near, as the random CS149 scenes do, so index order is
 * drawing order and depth does not depend on place.
 *
 * Only + - * /, sqrtf and float-integer conversions are used (the sine and
 * cosine are the polynomials below), each exact or correctly rounded in IEEE
 * float, and the build
 * forbids contraction: the bytes do not depend on the platform's libm, and
 * a GPU port can give the same ones.
 */
#include "scene/scene_internal.h"

#include <math.h>
#include <stdint.h>

#include "quadrender/threads.h"

/* ---- a counter-based generator ------------------------------------------- */

/* SplitMix64's finaliser: a bijection of 64-bit words that mixes every
 * input bit into every output bit. */
static uint64_t qr_mix64(uint64_t z)
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

static qr_ctr qr_ctr_at(uint64_t key, uint64_t i)
{
    qr_ctr c = {qr_mix64(key ^ qr_mix64(i + 0x9E3779B97F4A7C15u)), 0};
    return c;
}

/* A uniform float in [0, 1): 24 random bits, exact. */
static float qr_uf(qr_ctr *c)
{
    c->k++;
    uint64_t h = qr_mix64(c->base + c->k * 0xD1B54A32D192ED03u);
    return (float)(h >> 40) * (1.0f / 16777216.0f);
}

/* A standard normal deviate, approximately: the sum of four uniforms
 * (Irwin-Hall), centred and scaled to variance 1. Its tails end at 3.46
 * sigma, which suits clusters drawn on a bounded image. */
static float qr_gauss(qr_ctr *c)
{
    float a = qr_uf(c), b = qr_uf(c), d = qr_uf(c), e = qr_uf(c);
    return (a + b + d + e - 2.0f) * 1.7320508f;
}

/* ---- float helpers --------------------------------------------------------- */

/* floorf for |v| < 2^31, inline (floorf is a library call on baseline
 * x86-64). */
static float qr_floor(float v)
{
    float i = (float)(int32_t)v;
    return i > v ? i - 1.0f : i;
}

static void qr_sincos_turns(float t, float *sn, float *cs);

/* A round 2-D normal deviate, approximately: the length of a pair of
 * qr_gauss deviates (whose joint density is slightly square) turned to a
 * uniform direction, so that clusters come out round. */
static void qr_gauss2(qr_ctr *c, float *gx, float *gy)
{
    float a = qr_gauss(c), b = qr_gauss(c);
    float rho = sqrtf(a * a + b * b), sn, cs;
    qr_sincos_turns(qr_uf(c), &sn, &cs);
    *gx = rho * cs;
    *gy = rho * sn;
}

/* sin and cos of t turns (t * 2 pi radians), within 1e-6: the quarter turn
 * nearest t is taken out exactly, the rest (at most an eighth of a turn) goes
 * through Taylor polynomials. */
static void qr_sincos_turns(float t, float *sn, float *cs)
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

static float qr_clamp01(float v)
{
    return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

static int qr_inside(float x, float y)
{
    return x >= 0.0f && x <= 1.0f && y >= 0.0f && y <= 1.0f;
}

/* Hue (turns), saturation and value to RGB, piecewise linear. */
static void qr_hsv(float h, float s, float v, float rgb[3])
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
static int qr_pick(const float *cum, int n, float u)
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
static void qr_cumulate(float *w, int n)
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

/* ---- the models ------------------------------------------------------------ */

#define QR_CLUSTERS 64
#define QR_CURVES 40
#define QR_CURVE_POINTS 16
#define QR_HOT 3

typedef struct qr_circle {
    float x, y, r, rgb[3];
} qr_circle;

typedef struct qr_model {
    /* clusters */
    float cx[QR_CLUSTERS], cy[QR_CLUSTERS], sigma[QR_CLUSTERS], hue[QR_CLUSTERS],
        sat[QR_CLUSTERS], cum[QR_CLUSTERS];
    /* spiral */
    float phase;
    /* hotspot: squares [x0, x0 + w) x [y0, y0 + w) on the 1/100 grid; the
     * last holds a disc */
    float hx[QR_HOT], hy[QR_HOT], hw[QR_HOT], hcum[QR_HOT];
    /* roads: Catmull-Rom curves through the points */
    float px[QR_CURVES][QR_CURVE_POINTS], py[QR_CURVES][QR_CURVE_POINTS];
    int points[QR_CURVES];
    float width[QR_CURVES], road_hue[QR_CURVES], road_sat[QR_CURVES], road_cum[QR_CURVES];
    /* ring: centre, radius, and the gradient's direction */
    float ring_x, ring_y, ring_r, grad_c, grad_s;
} qr_model;

/* Model draws use their own key, apart from the circles'. */
#define QR_MODEL_SALT 0x6D6F64656C000000u
#define QR_DEPTH_SALT 0x6465707468000000u

/* clusters: 64 Gaussian clusters whose sizes follow Zipf's law (the k-th
 * largest holds 1/k of the largest's circles), most of them tight. */
static void qr_model_clusters(qr_model *m, uint64_t key)
{
    for (int j = 0; j < QR_CLUSTERS; ++j) {
        qr_ctr c = qr_ctr_at(key, (uint64_t)j);
        m->cx[j] = 0.08f + 0.84f * qr_uf(&c);
        m->cy[j] = 0.08f + 0.84f * qr_uf(&c);
        float u = qr_uf(&c);
        m->sigma[j] = 0.005f + 0.035f * u * u;
        m->hue[j] = qr_uf(&c);
        m->sat[j] = 0.55f + 0.4f * qr_uf(&c);
        m->cum[j] = 1.0f / (float)(j + 1);
    }
    qr_cumulate(m->cum, QR_CLUSTERS);
}

/* hotspot: a 6 x 6 and a 5 x 5 square and a disc in a 4 x 4 square of the
 * 1/100 grid (0.77% of the image), apart from each other. */
static void qr_model_hotspot(qr_model *m, uint64_t key)
{
    static const int cells[QR_HOT] = {6, 5, 4};
    static const float share[QR_HOT] = {0.45f, 0.33f, 0.21f};
    qr_ctr c = qr_ctr_at(key, 0);
    int gx[QR_HOT], gy[QR_HOT];
    for (int j = 0; j < QR_HOT; ++j) {
        for (int tries = 0; tries < 1000; ++tries) {
            gx[j] = 4 + (int)(qr_uf(&c) * (float)(92 - cells[j]));
            gy[j] = 4 + (int)(qr_uf(&c) * (float)(92 - cells[j]));
            int clear = 1;
            for (int k = 0; k < j; ++k) /* at least 3 cells between squares */
                if (gx[j] < gx[k] + cells[k] + 3 && gx[k] < gx[j] + cells[j] + 3 &&
                    gy[j] < gy[k] + cells[k] + 3 && gy[k] < gy[j] + cells[j] + 3)
                    clear = 0;
            if (clear)
                break;
        }
        m->hx[j] = (float)gx[j] / 100.0f;
        m->hy[j] = (float)gy[j] / 100.0f;
        m->hw[j] = (float)cells[j] / 100.0f;
        m->hcum[j] = share[j];
    }
    qr_cumulate(m->hcum, QR_HOT);
}

/* roads: 40 smooth random walks (6 long highways, then streets), each step
 * turning a little, bouncing off the image's margins. */
static void qr_model_roads(qr_model *m, uint64_t key)
{
    for (int j = 0; j < QR_CURVES; ++j) {
        qr_ctr c = qr_ctr_at(key, (uint64_t)j);
        int highway = j < 6;
        int n = highway ? QR_CURVE_POINTS : 5 + (int)(8.0f * qr_uf(&c));
        float step = highway ? 0.09f : 0.04f + 0.05f * qr_uf(&c);
        float x = 0.05f + 0.9f * qr_uf(&c), y = 0.05f + 0.9f * qr_uf(&c);
        float heading = qr_uf(&c);
        for (int k = 0; k < n; ++k) {
            m->px[j][k] = x;
            m->py[j][k] = y;
            heading += (qr_uf(&c) - 0.5f) * 0.12f;
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
        m->points[j] = n;
        m->width[j] = highway ? 0.0035f : 0.0012f + 0.001f * qr_uf(&c);
        m->road_hue[j] = highway ? 0.08f + 0.06f * qr_uf(&c) : qr_uf(&c);
        m->road_sat[j] = highway ? 0.85f : 0.35f + 0.3f * qr_uf(&c);
        /* circles per unit length: highways three times the streets' */
        m->road_cum[j] = (float)(n - 1) * step * (highway ? 3.0f : 1.0f);
    }
    qr_cumulate(m->road_cum, QR_CURVES);
}

static void qr_model_build(qr_model *m, qr_nonuniform kind, uint64_t key)
{
    qr_ctr c = qr_ctr_at(key, 1000000);
    switch (kind) {
    case QR_NU_CLUSTERS: qr_model_clusters(m, key); break;
    case QR_NU_SPIRAL: m->phase = qr_uf(&c); break;
    case QR_NU_POWERLAW: break;
    case QR_NU_HOTSPOT: qr_model_hotspot(m, key); break;
    case QR_NU_ROADS: qr_model_roads(m, key); break;
    case QR_NU_RING: {
        m->ring_x = 0.44f + 0.12f * qr_uf(&c);
        m->ring_y = 0.44f + 0.12f * qr_uf(&c);
        m->ring_r = 0.26f + 0.06f * qr_uf(&c);
        qr_sincos_turns(qr_uf(&c), &m->grad_s, &m->grad_c);
        break;
    }
    }
}

/* ---- one circle of each scene ---------------------------------------------- */

/* Up to this many tries for a centre inside the image; the last try is then
 * clamped into it (for the distributions here that is almost never needed). */
#define QR_TRIES 16

static void qr_clusters_circle(const qr_model *m, qr_ctr *c, qr_circle *o)
{
    /* 2% thin uniform field, larger and pale */
    if (qr_uf(c) < 0.02f) {
        o->x = qr_uf(c);
        o->y = qr_uf(c);
        o->r = 0.0015f + 0.002f * qr_uf(c);
        qr_hsv(0.58f + 0.06f * qr_uf(c), 0.2f + 0.15f * qr_uf(c), 0.75f + 0.2f * qr_uf(c), o->rgb);
        return;
    }
    int j = qr_pick(m->cum, QR_CLUSTERS, qr_uf(c));
    for (int t = 0; t < QR_TRIES; ++t) {
        float gx, gy;
        qr_gauss2(c, &gx, &gy);
        o->x = m->cx[j] + m->sigma[j] * gx;
        o->y = m->cy[j] + m->sigma[j] * gy;
        if (qr_inside(o->x, o->y))
            break;
    }
    o->r = 0.0008f + 0.0022f * qr_uf(c);
    qr_hsv(m->hue[j] + 0.08f * (qr_uf(c) - 0.5f), m->sat[j], 0.75f + 0.25f * qr_uf(c), o->rgb);
}

static void qr_spiral_circle(const qr_model *m, qr_ctr *c, qr_circle *o)
{
    float u = qr_uf(c);
    if (u < 0.5f) { /* the core */
        float gx, gy;
        qr_gauss2(c, &gx, &gy);
        o->x = 0.5f + 0.035f * gx;
        o->y = 0.5f + 0.035f * gy;
        o->r = 0.0006f + 0.0009f * qr_uf(c);
        qr_hsv(0.08f + 0.06f * qr_uf(c), 0.35f + 0.3f * qr_uf(c), 0.9f + 0.1f * qr_uf(c), o->rgb);
    } else if (u < 0.97f) { /* two arms, thinning outwards */
        float arm = qr_uf(c) < 0.5f ? 0.0f : 0.5f;
        float t = 1.0f - sqrtf(1.0f - qr_uf(c));
        float rho = 0.05f + 0.38f * t, spread = 0.004f + 0.014f * t;
        float sn, cs, gx, gy;
        qr_sincos_turns(m->phase + arm + 1.5f * t, &sn, &cs);
        qr_gauss2(c, &gx, &gy);
        o->x = 0.5f + rho * cs + spread * gx;
        o->y = 0.5f + rho * sn + spread * gy;
        o->r = 0.0008f + 0.0017f * qr_uf(c);
        if (qr_uf(c) < 0.04f) /* star-forming regions */
            qr_hsv(0.93f + 0.04f * qr_uf(c), 0.6f, 1.0f, o->rgb);
        else
            qr_hsv(0.58f + 0.06f * qr_uf(c), 0.25f + 0.35f * qr_uf(c), 0.85f + 0.15f * qr_uf(c),
                   o->rgb);
    } else { /* a faint halo disc */
        float rho = 0.45f * sqrtf(qr_uf(c)), sn, cs;
        qr_sincos_turns(qr_uf(c), &sn, &cs);
        o->x = 0.5f + rho * cs;
        o->y = 0.5f + rho * sn;
        o->r = 0.0008f + 0.0012f * qr_uf(c);
        qr_hsv(0.6f + 0.1f * qr_uf(c), 0.15f, 0.7f + 0.2f * qr_uf(c), o->rgb);
    }
}

/* Radii from a Pareto law of index 2 truncated to [0.0008, 0.45]
 * (P(R > r) falls as 1/r^2): a few circles cover much of the image, the
 * median is 0.0011. */
static void qr_powerlaw_circle(const qr_model *m, qr_ctr *c, qr_circle *o)
{
    (void)m;
    const float rmin = 0.0008f, ratio = (0.0008f / 0.45f) * (0.0008f / 0.45f);
    o->x = qr_uf(c);
    o->y = qr_uf(c);
    o->r = rmin / sqrtf(1.0f - qr_uf(c) * (1.0f - ratio));
    qr_hsv(qr_uf(c), 0.45f + 0.45f * qr_uf(c), 0.7f + 0.3f * qr_uf(c), o->rgb);
}

static void qr_hotspot_circle(const qr_model *m, qr_ctr *c, qr_circle *o)
{
    if (qr_uf(c) < 0.01f) { /* 1%: spread over the image */
        o->x = qr_uf(c);
        o->y = qr_uf(c);
        o->r = 0.002f + 0.004f * qr_uf(c);
        qr_hsv(0.55f + 0.1f * qr_uf(c), 0.5f, 0.8f + 0.2f * qr_uf(c), o->rgb);
        return;
    }
    int j = qr_pick(m->hcum, QR_HOT, qr_uf(c));
    float w = m->hw[j];
    for (int t = 0; t < QR_TRIES; ++t) {
        float dx = qr_uf(c), dy = qr_uf(c);
        o->x = m->hx[j] + w * dx;
        o->y = m->hy[j] + w * dy;
        /* the last region is the disc inscribed in its square */
        if (j < QR_HOT - 1 ||
            (dx - 0.5f) * (dx - 0.5f) + (dy - 0.5f) * (dy - 0.5f) <= 0.25f)
            break;
        o->x = m->hx[j] + 0.5f * w;
        o->y = m->hy[j] + 0.5f * w;
    }
    o->r = 0.0004f + 0.0006f * qr_uf(c);
    qr_hsv(0.07f * (float)j + 0.04f * qr_uf(c), 0.75f + 0.2f * qr_uf(c), 0.85f + 0.15f * qr_uf(c),
           o->rgb);
}

static void qr_roads_circle(const qr_model *m, qr_ctr *c, qr_circle *o)
{
    int j = qr_pick(m->road_cum, QR_CURVES, qr_uf(c));
    int n = m->points[j];
    int k = (int)(qr_uf(c) * (float)(n - 1));
    if (k > n - 2)
        k = n - 2;
    int k0 = k > 0 ? k - 1 : 0, k3 = k + 2 < n ? k + 2 : n - 1;
    const float *px = m->px[j], *py = m->py[j];
    /* the uniform Catmull-Rom segment from point k to k + 1 */
    float ax = -px[k0] + 3.0f * px[k] - 3.0f * px[k + 1] + px[k3];
    float bx = 2.0f * px[k0] - 5.0f * px[k] + 4.0f * px[k + 1] - px[k3];
    float cx = -px[k0] + px[k + 1];
    float ay = -py[k0] + 3.0f * py[k] - 3.0f * py[k + 1] + py[k3];
    float by = 2.0f * py[k0] - 5.0f * py[k] + 4.0f * py[k + 1] - py[k3];
    float cy = -py[k0] + py[k + 1];
    float t = qr_uf(c);
    float x = 0.5f * (2.0f * px[k] + t * (cx + t * (bx + t * ax)));
    float y = 0.5f * (2.0f * py[k] + t * (cy + t * (by + t * ay)));
    float dx = cx + t * (2.0f * bx + t * 3.0f * ax), dy = cy + t * (2.0f * by + t * 3.0f * ay);
    float len = sqrtf(dx * dx + dy * dy);
    float nx = len > 1e-6f ? -dy / len : 0.0f, ny = len > 1e-6f ? dx / len : 0.0f;
    for (int tr = 0; tr < QR_TRIES; ++tr) {
        float off = m->width[j] * qr_gauss(c);
        o->x = x + off * nx;
        o->y = y + off * ny;
        if (qr_inside(o->x, o->y))
            break;
    }
    o->r = 0.0006f + 0.001f * qr_uf(c);
    qr_hsv(m->road_hue[j] + 0.03f * qr_uf(c), m->road_sat[j], 0.6f + 0.4f * qr_uf(c), o->rgb);
}

/* The ring scene's density at (x, y), and the part of it the ring gives:
 * a smooth linear gradient from 0.1 to 0.6 across the image, plus an
 * annulus of half-width 0.045 peaking at 5. */
#define QR_RING_PEAK 5.0f
#define QR_RING_MAX (0.6f + QR_RING_PEAK)

static float qr_ring_density(const qr_model *m, float x, float y, float *ring, float *grad)
{
    float dx = x - m->ring_x, dy = y - m->ring_y;
    float d = (sqrtf(dx * dx + dy * dy) - m->ring_r) / 0.045f;
    float p = d * d < 1.0f ? (1.0f - d * d) * (1.0f - d * d) : 0.0f;
    float g = qr_clamp01(0.5f + 0.7f * ((x - 0.5f) * m->grad_c + (y - 0.5f) * m->grad_s));
    *ring = QR_RING_PEAK * p;
    *grad = g;
    return 0.1f + 0.5f * g + *ring;
}

/* Rejection sampling from the density: a uniform point is kept with
 * probability density / QR_RING_MAX (about one in seven is). */
static void qr_ring_circle(const qr_model *m, qr_ctr *c, qr_circle *o)
{
    float ring = 0.0f, grad = 0.0f, d = 1.0f;
    for (int t = 0; t < 256; ++t) {
        o->x = qr_uf(c);
        o->y = qr_uf(c);
        d = qr_ring_density(m, o->x, o->y, &ring, &grad);
        if (qr_uf(c) * QR_RING_MAX < d)
            break;
    }
    o->r = 0.0009f + 0.0014f * qr_uf(c);
    float a[3], b[3], share = ring / d;
    qr_hsv(0.83f + 0.05f * qr_uf(c), 0.7f, 0.95f, a);
    qr_hsv(0.45f + 0.2f * grad, 0.55f + 0.2f * qr_uf(c), 0.75f + 0.2f * qr_uf(c), b);
    for (int k = 0; k < 3; ++k)
        o->rgb[k] = share * a[k] + (1.0f - share) * b[k];
}

/* ---- in parallel ------------------------------------------------------------- */

#define QR_NU_TASK 65536

typedef struct qr_nu_job {
    qr_scene *s;
    qr_nonuniform kind;
    uint64_t key;
    float scale;
    const qr_model *m;
} qr_nu_job;

static void qr_nu_depth_task(void *ctx, int task)
{
    const qr_nu_job *job = ctx;
    qr_scene *s = job->s;
    int32_t a = task * QR_NU_TASK, b = a + QR_NU_TASK < s->n ? a + QR_NU_TASK : s->n;
    for (int32_t i = a; i < b; ++i) {
        qr_ctr c = qr_ctr_at(job->key ^ QR_DEPTH_SALT, (uint64_t)i);
        s->z[i] = qr_uf(&c);
    }
}

static void qr_nu_circle_task(void *ctx, int task)
{
    const qr_nu_job *job = ctx;
    qr_scene *s = job->s;
    int32_t a = task * QR_NU_TASK, b = a + QR_NU_TASK < s->n ? a + QR_NU_TASK : s->n;
    for (int32_t i = a; i < b; ++i) {
        qr_ctr c = qr_ctr_at(job->key, (uint64_t)i);
        qr_circle o;
        switch (job->kind) {
        case QR_NU_CLUSTERS: qr_clusters_circle(job->m, &c, &o); break;
        case QR_NU_SPIRAL: qr_spiral_circle(job->m, &c, &o); break;
        case QR_NU_POWERLAW: qr_powerlaw_circle(job->m, &c, &o); break;
        case QR_NU_HOTSPOT: qr_hotspot_circle(job->m, &c, &o); break;
        case QR_NU_ROADS: qr_roads_circle(job->m, &c, &o); break;
        default: qr_ring_circle(job->m, &c, &o); break;
        }
        s->x[i] = qr_clamp01(o.x);
        s->y[i] = qr_clamp01(o.y);
        s->r[i] = o.r * job->scale;
        s->red[i] = qr_clamp01(o.rgb[0]);
        s->green[i] = qr_clamp01(o.rgb[1]);
        s->blue[i] = qr_clamp01(o.rgb[2]);
    }
}

qr_status qr_gen_nonuniform(qr_scene *s, qr_nonuniform kind, uint32_t seed, float radius_scale,
                            qr_error *err)
{
    if (seed == 0)
        seed = 1;
    uint64_t key = qr_mix64(((uint64_t)(kind + 1) << 32) | seed);
    qr_model m = {0};
    qr_model_build(&m, kind, key ^ QR_MODEL_SALT);
    qr_nu_job job = {.s = s, .kind = kind, .key = key, .scale = radius_scale, .m = &m};
    int tasks = (int)((s->n + QR_NU_TASK - 1) / QR_NU_TASK);
    int threads = qr_threads();
    qr_parallel_for(tasks, threads, qr_nu_depth_task, &job);
    qr_status st = qr_sort_descending(s->z, (size_t)s->n, err);
    if (st != QR_OK)
        return st;
    qr_parallel_for(tasks, threads, qr_nu_circle_task, &job);
    return QR_OK;
}
