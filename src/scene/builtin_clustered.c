/* builtin_clustered.c — the non-uniform built-in scenes: clusters, spiral,
 * powerlaw, hotspot, roads and ring (docs/scenes.md shows each), and the
 * generator behind the clustered:N family.
 *
 * A scene is a small model drawn from the seed (cluster centres, road
 * curves, hot squares, ...), then N circles drawn from it independently of
 * each other by qr_draw_circles, with the counter-based generator and the
 * libm-free float helpers of builtin_draw.h: the same bytes whatever the
 * thread count or platform, and a GPU port can give the same ones.
 */
#include "scene/builtin_draw.h"

#include "quadrender/threads.h"

/* ---- the models ------------------------------------------------------------ */

#define QR_CLUSTERS 64
#define QR_CURVES 40
#define QR_CURVE_POINTS 16
#define QR_HOT 3

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
        qr_walk(&c, n, step, 0.12f, m->px[j], m->py[j]);
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

static void qr_clusters_circle(const void *model, qr_ctr *c, qr_circle *o)
{
    const qr_model *m = model;
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

static void qr_spiral_circle(const void *model, qr_ctr *c, qr_circle *o)
{
    const qr_model *m = model;
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
static void qr_powerlaw_circle(const void *model, qr_ctr *c, qr_circle *o)
{
    (void)model;
    const float rmin = 0.0008f, ratio = (0.0008f / 0.45f) * (0.0008f / 0.45f);
    o->x = qr_uf(c);
    o->y = qr_uf(c);
    o->r = rmin / sqrtf(1.0f - qr_uf(c) * (1.0f - ratio));
    qr_hsv(qr_uf(c), 0.45f + 0.45f * qr_uf(c), 0.7f + 0.3f * qr_uf(c), o->rgb);
}

static void qr_hotspot_circle(const void *model, qr_ctr *c, qr_circle *o)
{
    const qr_model *m = model;
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

static void qr_roads_circle(const void *model, qr_ctr *c, qr_circle *o)
{
    const qr_model *m = model;
    int j = qr_pick(m->road_cum, QR_CURVES, qr_uf(c));
    int n = m->points[j];
    int k = (int)(qr_uf(c) * (float)(n - 1));
    if (k > n - 2)
        k = n - 2;
    float t = qr_uf(c), x, y, nx, ny;
    qr_curve_at(m->px[j], m->py[j], n, k, t, &x, &y, &nx, &ny);
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
static void qr_ring_circle(const void *model, qr_ctr *c, qr_circle *o)
{
    const qr_model *m = model;
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

typedef struct qr_draw_job {
    qr_scene *s;
    uint64_t key;
    float scale;
    qr_circle_fn draw;
    const void *model;
} qr_draw_job;

static void qr_draw_depth_task(void *ctx, int task)
{
    const qr_draw_job *job = ctx;
    qr_scene *s = job->s;
    int32_t a = task * QR_NU_TASK, b = a + QR_NU_TASK < s->n ? a + QR_NU_TASK : s->n;
    for (int32_t i = a; i < b; ++i) {
        qr_ctr c = qr_ctr_at(job->key ^ QR_DEPTH_SALT, (uint64_t)i);
        s->z[i] = qr_uf(&c);
    }
}

static void qr_draw_circle_task(void *ctx, int task)
{
    const qr_draw_job *job = ctx;
    qr_scene *s = job->s;
    int32_t a = task * QR_NU_TASK, b = a + QR_NU_TASK < s->n ? a + QR_NU_TASK : s->n;
    for (int32_t i = a; i < b; ++i) {
        qr_ctr c = qr_ctr_at(job->key, (uint64_t)i);
        qr_circle o;
        job->draw(job->model, &c, &o);
        s->x[i] = qr_clamp01(o.x);
        s->y[i] = qr_clamp01(o.y);
        s->r[i] = o.r * job->scale;
        s->red[i] = qr_clamp01(o.rgb[0]);
        s->green[i] = qr_clamp01(o.rgb[1]);
        s->blue[i] = qr_clamp01(o.rgb[2]);
    }
}

qr_status qr_draw_circles(qr_scene *s, uint64_t key, float radius_scale, qr_circle_fn draw,
                          const void *model, qr_error *err)
{
    qr_draw_job job = {.s = s, .key = key, .scale = radius_scale, .draw = draw, .model = model};
    int tasks = (int)((s->n + QR_NU_TASK - 1) / QR_NU_TASK);
    int threads = qr_threads();
    qr_parallel_for(tasks, threads, qr_draw_depth_task, &job);
    qr_status st = qr_sort_descending(s->z, (size_t)s->n, err);
    if (st != QR_OK)
        return st;
    qr_parallel_for(tasks, threads, qr_draw_circle_task, &job);
    return QR_OK;
}

qr_status qr_gen_nonuniform(qr_scene *s, qr_nonuniform kind, uint32_t seed, float radius_scale,
                            qr_error *err)
{
    static const qr_circle_fn draw[] = {qr_clusters_circle, qr_spiral_circle, qr_powerlaw_circle,
                                        qr_hotspot_circle,  qr_roads_circle,  qr_ring_circle};
    if (seed == 0)
        seed = 1;
    uint64_t key = qr_mix64(((uint64_t)(kind + 1) << 32) | seed);
    qr_model m = {0};
    qr_model_build(&m, kind, key ^ QR_MODEL_SALT);
    return qr_draw_circles(s, key, radius_scale, draw[kind], &m, err);
}
