/* builtin_zoo.c — the zoo:SEED family: a random non-uniform scene per seed,
 * for measuring on scenes nobody tuned to (docs/scenes.md#the-zoo).
 *
 * The seed draws a model: a circle count, log-uniform in 100k-4M; the
 * shares of three kinds of parts (Gaussian clusters of random count, size,
 * tightness and elongation; filaments along smooth random curves of random
 * width; a background field whose density follows a linear or radial
 * gradient); holes (discs and rectangles no circle's centre falls in); a
 * radius law per part, uniform over a short range or a truncated power law
 * of random index; and a mean coverage, from which the radius unit follows.
 * Then qr_draw_circles draws the circles from the model (builtin_draw.h):
 * the same bytes whatever the thread count, and only + - * / and sqrtf, so
 * whatever the platform. The zoo's seed is its name's SEED; the scene seed
 * the loaders take plays no part.
 */
#include "scene/builtin_draw.h"

#include <stdlib.h>

#define QR_ZOO_MIN 100000
#define QR_ZOO_MAX 4000000
#define QR_ZOO_CLUSTERS 256
#define QR_ZOO_CURVES 24
#define QR_ZOO_POINTS 24
#define QR_ZOO_DISCS 8
#define QR_ZOO_PARTS (QR_ZOO_CLUSTERS + QR_ZOO_CURVES + 1)
/* Tries for a centre in the image, outside the holes and kept by the
 * field's gradient; the last try is kept whatever it is (clamped into the
 * image), which the holes' area makes rare. */
#define QR_ZOO_TRIES 32
/* The largest radius (a truncated power law's tail is cut here). */
#define QR_ZOO_RMAX 0.25f

#define QR_ZOO_SALT 0x7A6F6F0000000000u
#define QR_ZOO_MODEL_SALT 0x7A6F6F6D6F64656Cu

enum { QR_ZOO_CLUSTER, QR_ZOO_FILAMENT, QR_ZOO_FIELD };

typedef struct qr_zoo_part {
    int kind;
    int curve;          /* a filament's curve */
    float cx, cy;       /* a cluster's centre */
    float ux, uy, vx, vy; /* a cluster's axes, scaled by its sigmas */
    /* radius: unit * size * f, f uniform in [1, 1 + spread] (law 0) or
     * from a power law P(f > v) ~ v^-alpha on [1, 2^octaves], alpha 1, 4/3,
     * 2 or 4 (law 1 to 4) */
    int law;
    float size, spread, tail; /* tail: 2^(-alpha octaves) */
    float hue, sat, val;
} qr_zoo_part;

typedef struct qr_zoo {
    int32_t n;
    int nparts;
    qr_zoo_part part[QR_ZOO_PARTS];
    float cum[QR_ZOO_PARTS];
    float px[QR_ZOO_CURVES][QR_ZOO_POINTS], py[QR_ZOO_CURVES][QR_ZOO_POINTS];
    int points[QR_ZOO_CURVES];
    float width[QR_ZOO_CURVES];
    /* the field's density: 1 - depth * ramp, ramp linear along (gc, gs)
     * or radial from (gx, gy) out to gr */
    int radial;
    float gc, gs, gx, gy, gr, depth;
    /* holes */
    int ndiscs, rect;
    float dx[QR_ZOO_DISCS], dy[QR_ZOO_DISCS], dr[QR_ZOO_DISCS];
    float rx0, ry0, rx1, ry1;
    float unit; /* the radius unit */
} qr_zoo;

/* 2^x for |x| < 100, within 2e-6 relative: 2^floor(x) exactly times a
 * Taylor polynomial of 2^f, f in [0, 1). */
static float qr_exp2(float x)
{
    float k = qr_floor(x), a = (x - k) * 0.6931472f;
    float p = 1.0f + a * (1.0f + a * 0.5f *
                                     (1.0f + a * (1.0f / 3.0f) *
                                                 (1.0f + a * 0.25f *
                                                             (1.0f + a * 0.2f *
                                                                         (1.0f + a * (1.0f / 6.0f) *
                                                                                     (1.0f + a * (1.0f / 7.0f)))))));
    for (; k > 0.0f; k -= 1.0f)
        p *= 2.0f;
    for (; k < 0.0f; k += 1.0f)
        p *= 0.5f;
    return p;
}

/* lo times 2^(octaves u): log-uniform from lo to lo 2^octaves. */
static float qr_log_uniform(qr_ctr *c, float lo, float octaves)
{
    return lo * qr_exp2(octaves * qr_uf(c));
}

static uint64_t qr_zoo_key(uint32_t seed)
{
    return qr_mix64(QR_ZOO_SALT | seed);
}

int32_t qr_zoo_circles(uint32_t seed)
{
    qr_ctr c = qr_ctr_at(qr_zoo_key(seed) ^ QR_ZOO_MODEL_SALT, 0);
    /* 100k x 40^u; 5.321928 = log2(40) */
    int32_t n = (int32_t)qr_log_uniform(&c, (float)QR_ZOO_MIN, 5.321928f);
    return n < QR_ZOO_MIN ? QR_ZOO_MIN : n > QR_ZOO_MAX ? QR_ZOO_MAX : n;
}

static int qr_zoo_in_hole(const qr_zoo *m, float x, float y)
{
    for (int k = 0; k < m->ndiscs; ++k) {
        float dx = x - m->dx[k], dy = y - m->dy[k];
        if (dx * dx + dy * dy < m->dr[k] * m->dr[k])
            return 1;
    }
    return m->rect && x >= m->rx0 && x < m->rx1 && y >= m->ry0 && y < m->ry1;
}

static void qr_zoo_holes(qr_zoo *m, qr_ctr *c)
{
    float u = qr_uf(c);
    m->ndiscs = (int)(u * u * (float)(QR_ZOO_DISCS + 1));
    for (int k = 0; k < m->ndiscs; ++k) {
        m->dx[k] = qr_uf(c);
        m->dy[k] = qr_uf(c);
        m->dr[k] = qr_log_uniform(c, 0.02f, 3.3f); /* 0.02-0.2 */
    }
    m->rect = qr_uf(c) < 0.3f;
    if (m->rect) { /* an empty region, often at an edge */
        float w = 0.1f + 0.4f * qr_uf(c), h = 0.1f + 0.4f * qr_uf(c);
        m->rx0 = (1.0f - w) * qr_uf(c);
        m->ry0 = (1.0f - h) * qr_uf(c);
        m->rx1 = m->rx0 + w;
        m->ry1 = m->ry0 + h;
    }
}

/* The part's radius law and colour, drawn from c; returns its mean f^2
 * (the radius's second moment in units of unit * size). */
static float qr_zoo_law(qr_zoo_part *p, qr_ctr *c, float power_share, float size_lo)
{
    static const float alphas[4] = {1.0f, 4.0f / 3.0f, 2.0f, 4.0f};
    p->size = qr_log_uniform(c, size_lo, 3.0f);
    p->hue = qr_uf(c);
    p->sat = 0.3f + 0.6f * qr_uf(c);
    p->val = 0.6f + 0.4f * qr_uf(c);
    if (qr_uf(c) >= power_share) {
        p->law = 0;
        p->spread = 0.05f + 2.0f * qr_uf(c);
        float e = 1.0f + p->spread;
        return (e * e * e - 1.0f) / (3.0f * p->spread);
    }
    p->law = 1 + (int)(4.0f * qr_uf(c));
    float alpha = alphas[p->law - 1], octaves = (float)(2 + (int)(7.0f * qr_uf(c)));
    p->tail = qr_exp2(-alpha * octaves);
    if (p->law == 3) /* alpha 2: 2 ln(ratio) / (1 - tail) */
        return 2.0f * 0.6931472f * octaves / (1.0f - p->tail);
    return alpha / (1.0f - p->tail) * (qr_exp2((2.0f - alpha) * octaves) - 1.0f) / (2.0f - alpha);
}

static void qr_zoo_build(qr_zoo *m, uint32_t seed)
{
    m->n = qr_zoo_circles(seed);
    uint64_t key = qr_zoo_key(seed) ^ QR_ZOO_MODEL_SALT;
    qr_ctr c = qr_ctr_at(key, 0);
    qr_uf(&c); /* the count's draw */
    float wc = qr_uf(&c) < 0.85f ? 0.2f + qr_uf(&c) : 0.0f;
    float wf = qr_uf(&c) < 0.6f ? 0.2f + qr_uf(&c) : 0.0f;
    float u = qr_uf(&c), wb = 0.02f + 0.5f * u * u;
    float power_share = qr_uf(&c) < 0.4f ? 0.0f : qr_uf(&c);
    qr_zoo_holes(m, &c);

    /* the field */
    m->radial = qr_uf(&c) < 0.5f;
    qr_sincos_turns(qr_uf(&c), &m->gs, &m->gc);
    m->gx = qr_uf(&c);
    m->gy = qr_uf(&c);
    m->gr = 0.3f + 0.7f * qr_uf(&c);
    m->depth = 0.98f * qr_uf(&c);
    if (wc == 0.0f && wf == 0.0f) /* a field alone: a steep gradient */
        m->depth = 0.9f + 0.08f * qr_uf(&c);

    /* per part: its weight, then the second moment of its radius */
    float weight[QR_ZOO_PARTS], m2[QR_ZOO_PARTS];
    int np = 0;
    int nclusters = wc > 0.0f ? (int)qr_log_uniform(&c, 1.0f, 8.0f) : 0;
    int zipf = (int)(4.0f * qr_uf(&c));
    float sigma_lo = qr_log_uniform(&c, 0.0015f, 4.0f), sigma_oct = 4.0f * qr_uf(&c);
    float cw = 0.0f;
    for (int j = 0; j < nclusters; ++j) {
        qr_ctr d = qr_ctr_at(key, 1 + (uint64_t)j);
        qr_zoo_part *p = &m->part[np];
        p->kind = QR_ZOO_CLUSTER;
        for (int t = 0; t < 16; ++t) { /* a centre outside the holes */
            p->cx = 0.05f + 0.9f * qr_uf(&d);
            p->cy = 0.05f + 0.9f * qr_uf(&d);
            if (!qr_zoo_in_hole(m, p->cx, p->cy))
                break;
        }
        float sigma = qr_log_uniform(&d, sigma_lo, sigma_oct), v = qr_uf(&d);
        float stretch = sqrtf(qr_exp2(3.0f * v * v)), sn, cs; /* aspect 1-8, mostly round */
        if (sigma > 0.1f)
            sigma = 0.1f;
        qr_sincos_turns(qr_uf(&d), &sn, &cs);
        p->ux = cs * sigma * stretch;
        p->uy = sn * sigma * stretch;
        p->vx = -sn * sigma / stretch;
        p->vy = cs * sigma / stretch;
        m2[np] = qr_zoo_law(p, &d, power_share, 0.35f);
        /* very uneven weights take a draw of their own, after the others */
        float w = zipf == 0 ? 1.0f : zipf == 1 ? 1.0f / (float)(j + 1)
                  : zipf == 2 ? 1.0f / ((float)(j + 1) * (float)(j + 1))
                              : 0.0f;
        if (zipf == 3) {
            const float e = qr_uf(&d);
            w = e * e * e * e + 1e-3f;
        }
        weight[np] = w;
        cw += w;
        np++;
    }
    for (int j = 0; j < np; ++j)
        weight[j] *= wc / cw;

    int ncurves = wf > 0.0f ? 1 + (int)(qr_uf(&c) * (float)QR_ZOO_CURVES) : 0;
    float fw = 0.0f;
    int first = np;
    for (int j = 0; j < ncurves; ++j) {
        qr_ctr d = qr_ctr_at(key, 1 + QR_ZOO_CLUSTERS + (uint64_t)j);
        int n = 4 + (int)(qr_uf(&d) * (float)(QR_ZOO_POINTS - 4));
        float step = 0.02f + 0.08f * qr_uf(&d), turn = 0.05f + 0.45f * qr_uf(&d);
        qr_walk(&d, n, step, turn, m->px[j], m->py[j]);
        m->points[j] = n;
        m->width[j] = qr_log_uniform(&d, 0.0008f, 4.0f);
        qr_zoo_part *p = &m->part[np];
        p->kind = QR_ZOO_FILAMENT;
        p->curve = j;
        weight[np] = (float)(n - 1) * step * (0.3f + qr_uf(&d));
        fw += weight[np];
        m2[np] = qr_zoo_law(p, &d, power_share, 0.35f);
        np++;
    }
    for (int j = first; j < np; ++j)
        weight[j] *= wf / fw;

    qr_zoo_part *field = &m->part[np];
    field->kind = QR_ZOO_FIELD;
    weight[np] = wb;
    {
        qr_ctr d = qr_ctr_at(key, 1 + QR_ZOO_CLUSTERS + QR_ZOO_CURVES);
        m2[np] = qr_zoo_law(field, &d, power_share, 0.7f);
    }
    np++;

    /* the radius unit that gives the mean coverage drawn: n pi E[r^2] */
    float total = 0.0f, mean_m2 = 0.0f;
    for (int j = 0; j < np; ++j)
        total += weight[j];
    for (int j = 0; j < np; ++j) {
        weight[j] /= total;
        mean_m2 += weight[j] * m->part[j].size * m->part[j].size * m2[j];
        m->cum[j] = weight[j];
    }
    qr_cumulate(m->cum, np);
    float coverage = qr_log_uniform(&c, 1.0f, 6.0f); /* 1-64 */
    m->unit = sqrtf(coverage / (3.1415927f * (float)m->n * mean_m2));
    m->nparts = np;
}

/* The field's density at (x, y), at most 1. */
static float qr_zoo_field(const qr_zoo *m, float x, float y)
{
    float ramp;
    if (m->radial) {
        float dx = x - m->gx, dy = y - m->gy;
        ramp = qr_clamp01(sqrtf(dx * dx + dy * dy) / m->gr);
    } else {
        ramp = qr_clamp01(0.5f + 0.7f * ((x - 0.5f) * m->gc + (y - 0.5f) * m->gs));
    }
    return 1.0f - m->depth * ramp;
}

/* f of the part's radius law (qr_zoo_law) for a uniform u. */
static float qr_zoo_f(const qr_zoo_part *p, float u)
{
    if (p->law == 0)
        return 1.0f + p->spread * u;
    /* the inverse of the truncated law's distribution: x^(-1/alpha) */
    float x = 1.0f - u * (1.0f - p->tail), s = sqrtf(x);
    switch (p->law) {
    case 1: return 1.0f / x;
    case 2: return 1.0f / (s * sqrtf(s));
    case 3: return 1.0f / s;
    default: return 1.0f / sqrtf(s);
    }
}

static void qr_zoo_circle(const void *model, qr_ctr *c, qr_circle *o)
{
    const qr_zoo *m = model;
    const qr_zoo_part *p = &m->part[0];
    for (int t = 0; t < QR_ZOO_TRIES; ++t) {
        p = &m->part[qr_pick(m->cum, m->nparts, qr_uf(c))];
        int keep = 1;
        if (p->kind == QR_ZOO_CLUSTER) {
            float gx, gy;
            qr_gauss2(c, &gx, &gy);
            o->x = p->cx + gx * p->ux + gy * p->vx;
            o->y = p->cy + gx * p->uy + gy * p->vy;
        } else if (p->kind == QR_ZOO_FILAMENT) {
            int j = p->curve, n = m->points[j];
            int k = (int)(qr_uf(c) * (float)(n - 1));
            if (k > n - 2)
                k = n - 2;
            float x, y, nx, ny, off;
            qr_curve_at(m->px[j], m->py[j], n, k, qr_uf(c), &x, &y, &nx, &ny);
            off = m->width[j] * qr_gauss(c);
            o->x = x + off * nx;
            o->y = y + off * ny;
        } else {
            o->x = qr_uf(c);
            o->y = qr_uf(c);
            keep = qr_uf(c) < qr_zoo_field(m, o->x, o->y);
        }
        if (keep && qr_inside(o->x, o->y) && !qr_zoo_in_hole(m, o->x, o->y))
            break;
    }
    float r = m->unit * p->size * qr_zoo_f(p, qr_uf(c));
    o->r = r < QR_ZOO_RMAX ? r : QR_ZOO_RMAX;
    qr_hsv(p->hue + 0.08f * (qr_uf(c) - 0.5f), p->sat, p->val * (0.8f + 0.2f * qr_uf(c)), o->rgb);
}

qr_status qr_gen_zoo(qr_scene *s, uint32_t seed, qr_error *err)
{
    qr_zoo *m = calloc(1, sizeof *m);
    if (!m)
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    qr_zoo_build(m, seed);
    qr_status st = s->n == m->n ? qr_draw_circles(s, qr_zoo_key(seed), 1.0f, qr_zoo_circle, m, err)
                                : qr_fail(err, QR_ERR_INVALID, "zoo:%u holds %d circles, not %d",
                                          seed, (int)m->n, (int)s->n);
    free(m);
    return st;
}
