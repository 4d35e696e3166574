/* render_stats — quadrender's C library from an installed package.
 *
 *     render_stats [SCENE [OUTPUT [SIZE]]]     (defaults: rand10k render_stats.png 1024)
 *
 * Generates a built-in scene, renders it on the GPU when one is usable (else
 * with the fast CPU renderer, on every core), writes the image (PNG, or PPM
 * or PFM by the name's extension) and prints the statistics of the scene's
 * quadtree index as JSON on stdout: the same numbers as
 * `quadrender stats SCENE --size SIZE --json -`.
 */
#include <stdio.h>
#include <stdlib.h>

#include <quadrender/quadrender.h> /* the whole API; or the headers it includes, one by one */

/* Renders the scene on the GPU into img (same size as the renderer's). */
static qr_status render_gpu(const qr_scene *scene, const qr_index_params *params,
                            qr_image *img, qr_error *err)
{
    qr_gpu_scene *gs = NULL;
    qr_gpu_renderer *r = NULL;
    qr_status st = qr_gpu_scene_create(scene, &gs, err);
    if (st == QR_OK)
        st = qr_gpu_renderer_create(img->width, img->height, &r, err);
    if (st == QR_OK)
        st = qr_gpu_render(r, gs, params, QR_RENDER_FAST, err);
    if (st == QR_OK)
        st = qr_gpu_renderer_download(r, img, err);
    qr_gpu_renderer_destroy(r);
    qr_gpu_scene_destroy(gs);
    return st;
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "rand10k";
    const char *output = argc > 2 ? argv[2] : "render_stats.png";
    long size = argc > 3 ? strtol(argv[3], NULL, 10) : 1024;
    if (argc > 4 || size < 1 || size > QR_IMAGE_MAX_DIM) {
        fprintf(stderr, "usage: render_stats [SCENE [OUTPUT [SIZE 1..%d]]]\n", QR_IMAGE_MAX_DIM);
        return 2;
    }
    int32_t side = (int32_t)size;

    qr_error err;
    qr_error_clear(&err);
    qr_scene *scene = NULL;
    qr_image *img = NULL;
    qr_index *ix = NULL;
    qr_index_params params;
    qr_index_params_default(&params);

    qr_status st = qr_scene_builtin(name, 0, &scene, &err);
    if (st == QR_OK)
        st = qr_image_create(side, side, &img, &err);

    /* The GPU when one is usable; the probe's reason otherwise. */
    qr_gpu_info info;
    qr_error why;
    int gpu = st == QR_OK && qr_gpu_probe(&info, &why) == QR_OK;
    if (st == QR_OK) {
        if (gpu)
            st = render_gpu(scene, &params, img, &err);
        else
            st = qr_render_cpu_fast(scene, &params, QR_RENDER_FAST, 0, img, NULL, &err);
    }
    if (st == QR_OK)
        st = qr_image_write(img, output, &err);
    if (st == QR_OK)
        fprintf(stderr, "%s: %d circles, %dx%d, on %s -> %s\n", scene->name, (int)scene->n,
                (int)side, (int)side, gpu ? info.name : "the CPU", output);
    if (st == QR_OK && !gpu)
        fprintf(stderr, "(no GPU: %s)\n", why.msg);

    /* The index the renderers build, built on the host (the GPU builds the
     * same one, bit for bit), and its statistics. */
    qr_index_stats stats;
    if (st == QR_OK)
        st = qr_index_build_host(scene, side, side, NULL, &params, QR_RENDER_FAST, &ix, &err);
    if (st == QR_OK)
        st = qr_index_stats_compute(ix, scene->n, &stats, &err);
    if (st == QR_OK) {
        qr_stats_context ctx = {0};
        ctx.scene = scene->name;
        ctx.circles = scene->n;
        ctx.width = ctx.height = side;
        ctx.params = params;
        ctx.device = gpu ? "gpu" : "cpu";
        st = qr_index_stats_write_json(stdout, &stats, &ctx, &err);
    }

    qr_index_destroy(ix);
    qr_image_destroy(img);
    qr_scene_destroy(scene);
    if (st != QR_OK) {
        fprintf(stderr, "render_stats: %s\n", err.msg);
        return 1;
    }
    return 0;
}
