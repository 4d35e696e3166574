/* gpu_util.h — helpers for the GPU tests: render on the device, compare with
 * the CPU oracle, compare indexes. */
#ifndef QR_GPU_UTIL_H
#define QR_GPU_UTIL_H

#include "test_util.h"

#include <math.h>
#include <stdint.h>

#include "quadrender/gpu.h"
#include "quadrender/index.h"
#include "quadrender/render_cpu.h"
#include "quadrender/scene.h"

/* Asserts a library call succeeded, printing its error message if not. */
#define QR_CHECK(err, call)                                                       \
    do {                                                                          \
        qr_status s_ = (call);                                                    \
        cr_assert_eq(s_, QR_OK, "%s failed: %s", #call, (err).msg);               \
    } while (0)

static inline qr_scene *gpu_test_scene(const char *name, uint32_t seed)
{
    qr_error err;
    qr_scene *s = NULL;
    QR_CHECK(err, qr_scene_builtin(name, seed, &s, &err));
    return s;
}

/* A GPU renderer of w x h, `scene` uploaded for it and an image of w x h to
 * download into; gpu_close frees what is left (an image taken out of it,
 * set to NULL there, is the caller's). */
typedef struct {
    qr_gpu_scene *gs;
    qr_gpu_renderer *r;
    qr_image *img;
} gpu_session;

static inline gpu_session gpu_open(const qr_scene *scene, int w, int h)
{
    qr_error err;
    gpu_session g = {NULL, NULL, NULL};
    QR_CHECK(err, qr_gpu_scene_upload(scene, &g.gs, &err));
    QR_CHECK(err, qr_gpu_renderer_create(w, h, &g.r, &err));
    QR_CHECK(err, qr_image_create(w, h, &g.img, &err));
    return g;
}

static inline void gpu_close(gpu_session *g)
{
    qr_image_free(g->img);
    qr_gpu_renderer_destroy(g->r);
    qr_gpu_scene_free(g->gs);
}

/* Renders `scene` (already in the wanted state) on the GPU at w x h. It
 * renders twice with one renderer and requires the same bytes: the first
 * build sizes the lists, the second runs the way every later frame does (as
 * a graph, or as the single-leaf kernel), so both paths meet the caller's
 * checks. */
static inline qr_image *gpu_render_image(const qr_scene *scene, int w, int h,
                                         const qr_index_params *params, qr_render_mode mode)
{
    qr_error err;
    gpu_session g = gpu_open(scene, w, h);
    qr_image *img = NULL;
    QR_CHECK(err, qr_gpu_render(g.r, g.gs, params, mode, &err));
    QR_CHECK(err, qr_gpu_renderer_download(g.r, g.img, &err));
    QR_CHECK(err, qr_gpu_render(g.r, g.gs, params, mode, &err));
    QR_CHECK(err, qr_image_create(w, h, &img, &err));
    QR_CHECK(err, qr_gpu_renderer_download(g.r, img, &err));
    cr_assert(memcmp(g.img->rgba, img->rgba, (size_t)w * h * 4 * sizeof(float)) == 0,
              "%s %dx%d: the first and the second frame differ", scene->name, w, h);
    gpu_close(&g);
    return img;
}

static inline qr_image *cpu_render_image(const qr_scene *scene, int w, int h)
{
    qr_error err;
    qr_image *img = NULL;
    QR_CHECK(err, qr_image_create(w, h, &img, &err));
    QR_CHECK(err, qr_render_cpu(scene, img, &err));
    return img;
}

/* Largest |a - b| over the colour channels (and alpha when with_alpha);
 * *first_bad is the first pixel index where the bits differ (-1 if none). */
static inline double image_max_diff(const qr_image *a, const qr_image *b, int with_alpha,
                                    long long *first_bad)
{
    double m = 0;
    *first_bad = -1;
    size_t px = (size_t)a->width * a->height;
    for (size_t i = 0; i < px; i++)
        for (int c = 0; c < (with_alpha ? 4 : 3); c++) {
            float x = a->rgba[4 * i + c], y = b->rgba[4 * i + c];
            if (memcmp(&x, &y, sizeof x) != 0 && *first_bad < 0) *first_bad = (long long)i;
            double d = fabs((double)x - (double)y);
            if (!(d <= m)) m = isnan(d) ? INFINITY : d;
        }
    return m;
}

/* Asserts two indexes are identical: tree shape, leaves, lists. */
static inline void assert_same_index(const qr_index *a, const qr_index *b, const char *what)
{
    cr_assert_eq(a->num_leaves, b->num_leaves, "%s: leaves %d vs %d", what, a->num_leaves, b->num_leaves);
    cr_assert_eq(a->num_nodes, b->num_nodes, "%s: nodes %d vs %d", what, a->num_nodes, b->num_nodes);
    cr_assert_eq(a->num_pairs, b->num_pairs, "%s: pairs %lld vs %lld", what, (long long)a->num_pairs,
                 (long long)b->num_pairs);
    cr_assert_eq(a->visible, b->visible, "%s: visible %d vs %d", what, a->visible, b->visible);
    cr_assert_eq(a->max_depth_reached, b->max_depth_reached, "%s: depth", what);
    cr_assert_eq(a->root_size, b->root_size, "%s: root", what);
    for (int32_t i = 0; i < a->num_leaves; i++) {
        const qr_leaf *x = &a->leaves[i], *y = &b->leaves[i];
        cr_assert(x->rect.x0 == y->rect.x0 && x->rect.y0 == y->rect.y0 && x->rect.x1 == y->rect.x1 &&
                      x->rect.y1 == y->rect.y1 && x->depth == y->depth && x->count == y->count &&
                      x->offset == y->offset,
                  "%s: leaf %d differs: [%d,%d)x[%d,%d) d%d n%d @%lld vs [%d,%d)x[%d,%d) d%d n%d @%lld",
                  what, i, x->rect.x0, x->rect.x1, x->rect.y0, x->rect.y1, x->depth, x->count,
                  (long long)x->offset, y->rect.x0, y->rect.x1, y->rect.y0, y->rect.y1, y->depth,
                  y->count, (long long)y->offset);
    }
    cr_assert(memcmp(a->lists, b->lists, (size_t)a->num_pairs * sizeof(int32_t)) == 0,
              "%s: lists differ", what);
}

/* Asserts that gi's last build equals the host oracle's index of s. */
static inline void assert_index_matches_oracle(const qr_gpu_index *gi, const qr_scene *s, int w,
                                               int h, const qr_rect *region,
                                               const qr_index_params *p, const char *what)
{
    qr_error err;
    qr_index *dev = NULL, *host = NULL;
    QR_CHECK(err, qr_gpu_index_download(gi, &dev, &err));
    QR_CHECK(err, qr_index_build_host(s, w, h, region, p, &host, &err));
    assert_same_index(dev, host, what);
    qr_index_free(dev);
    qr_index_free(host);
}

/* xorshift for reproducible random scenes */
static inline uint32_t rnd(uint64_t *st)
{
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    return (uint32_t)(*st >> 11);
}
static inline float rndf(uint64_t *st, float lo, float hi)
{
    return lo + (hi - lo) * (float)(rnd(st) & 0xffffff) / 16777216.0f;
}

/* Random scene: clusters, sub-pixel to larger-than-image radii, off-screen
 * circles, colours outside [0,1]. */
static inline qr_scene *random_scene(uint64_t seed, int32_t n)
{
    qr_error err;
    qr_scene *s = NULL;
    QR_CHECK(err, qr_scene_alloc(n, QR_ANIM_NONE, &s, &err));
    uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
    float cxs[4], cys[4];
    for (int k = 0; k < 4; k++) {
        cxs[k] = rndf(&st, 0.0f, 1.0f);
        cys[k] = rndf(&st, 0.0f, 1.0f);
    }
    for (int32_t i = 0; i < n; i++) {
        int kind = rnd(&st) % 10;
        if (kind < 5) { /* clustered, tiny */
            int c = rnd(&st) % 4;
            s->x[i] = cxs[c] + rndf(&st, -0.02f, 0.02f);
            s->y[i] = cys[c] + rndf(&st, -0.02f, 0.02f);
            s->r[i] = rndf(&st, 0.0002f, 0.004f);
        } else if (kind < 8) { /* anywhere, partly off-screen */
            s->x[i] = rndf(&st, -0.2f, 1.2f);
            s->y[i] = rndf(&st, -0.2f, 1.2f);
            s->r[i] = rndf(&st, 0.001f, 0.1f);
        } else if (kind < 9) { /* huge */
            s->x[i] = rndf(&st, -0.5f, 1.5f);
            s->y[i] = rndf(&st, -0.5f, 1.5f);
            s->r[i] = rndf(&st, 0.5f, 2.0f);
        } else { /* far away or degenerate */
            s->x[i] = rndf(&st, 2.0f, 5.0f);
            s->y[i] = rndf(&st, -5.0f, 5.0f);
            s->r[i] = (rnd(&st) & 1) ? 0.0f : rndf(&st, 0.001f, 0.5f);
        }
        s->z[i] = rndf(&st, 0.0f, 1.0f);
        s->red[i] = rndf(&st, -0.5f, 1.5f);
        s->green[i] = rndf(&st, -0.5f, 1.5f);
        s->blue[i] = rndf(&st, -0.5f, 1.5f);
    }
    return s;
}

#endif
