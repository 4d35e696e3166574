/* gpu_util.c — see gpu_util.h. */
#include "gpu_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "quadrender/render_cpu.h"

qr_scene *gpu_test_scene(const char *name, uint32_t seed)
{
    qr_error err;
    qr_scene *s = NULL;
    QR_CHECK(err, qr_scene_builtin(name, seed, &s, &err));
    return s;
}

gpu_session gpu_open(const qr_scene *scene, int w, int h)
{
    qr_error err;
    gpu_session g = {NULL, NULL, NULL};
    QR_CHECK(err, qr_gpu_scene_create(scene, &g.gs, &err));
    QR_CHECK(err, qr_gpu_renderer_create(w, h, &g.r, &err));
    QR_CHECK(err, qr_image_create(w, h, &g.img, &err));
    return g;
}

void gpu_close(gpu_session *g)
{
    qr_image_destroy(g->img);
    qr_gpu_renderer_destroy(g->r);
    qr_gpu_scene_destroy(g->gs);
}

qr_image *gpu_render_image(const qr_scene *scene, int w, int h, const qr_index_params *params,
                           qr_render_mode mode)
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

qr_image *cpu_render_image(const qr_scene *scene, int w, int h)
{
    qr_error err;
    qr_image *img = NULL;
    QR_CHECK(err, qr_image_create(w, h, &img, &err));
    QR_CHECK(err, qr_render_cpu(scene, img, &err));
    return img;
}

double image_max_diff(const qr_image *a, const qr_image *b, int with_alpha, long long *first_bad)
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

void assert_same_index(const qr_index *a, const qr_index *b, const char *what)
{
    cr_assert_eq(a->num_leaves, b->num_leaves, "%s: leaves %d vs %d", what, a->num_leaves, b->num_leaves);
    cr_assert_eq(a->num_nodes, b->num_nodes, "%s: nodes %d vs %d", what, a->num_nodes, b->num_nodes);
    cr_assert_eq(a->num_pairs, b->num_pairs, "%s: pairs %lld vs %lld", what, (long long)a->num_pairs,
                 (long long)b->num_pairs);
    cr_assert_eq(a->visible, b->visible, "%s: visible %d vs %d", what, a->visible, b->visible);
    cr_assert_eq(a->max_depth_reached, b->max_depth_reached, "%s: depth", what);
    cr_assert_eq(a->root_size, b->root_size, "%s: root", what);
    cr_assert_eq(a->mode, b->mode, "%s: built for render mode %d vs %d", what, (int)a->mode,
                 (int)b->mode);
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

void assert_index_matches_oracle(const qr_gpu_index *gi, const qr_scene *s, int w, int h,
                                 const qr_rect *region, const qr_index_params *p,
                                 qr_render_mode mode, const char *what)
{
    qr_error err;
    qr_index *dev = NULL, *host = NULL;
    QR_CHECK(err, qr_gpu_index_download(gi, &dev, &err));
    QR_CHECK(err, qr_index_build_host(s, w, h, region, p, mode, &host, &err));
    assert_same_index(dev, host, what);
    qr_index_destroy(dev);
    qr_index_destroy(host);
}

void gpu_each_case(const char *name, const int (*sizes)[2], int nsizes, const int *leaves,
                   int nleaves, gpu_case_fn check)
{
    const uint32_t seeds[] = {0, 3};
    for (int si = 0; si < 2; si++) {
        qr_scene *s = gpu_test_scene(name, seeds[si]);
        for (int l = 0; l < nleaves; l++)
            for (int k = 0; k < nsizes; k++) {
                qr_index_params p;
                qr_index_params_default(&p);
                p.min_leaf = leaves[l];
                char what[128];
                snprintf(what, sizeof what, "%s seed %u %dx%d leaf %d", name, seeds[si],
                         sizes[k][0], sizes[k][1], leaves[l]);
                check(s, sizes[k][0], sizes[k][1], &p, what);
            }
        qr_scene_destroy(s);
    }
}
