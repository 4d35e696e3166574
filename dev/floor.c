/* floor.c — what each scene needs, whatever the index: the numbers
 * docs/benchmarks.md compares our times with. Runs on the CPU.
 *
 *   box tests   pixel-circle tests the reference renderer makes (box areas)
 *   covered     pixel-circle pairs that blend (exact mode must do each)
 *   fast blends blends front to back until the pixel's transmittance T
 *               drops to the fast-mode stop (what fast mode must do)
 *   bytes       packed circles read once (32 B each) + the image written
 *               once (16 B per pixel)
 * Usage: floor [-s size] scene... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/circle_math.h"
#include "quadrender/gpu.h"
#include "quadrender/scene.h"

int main(int argc, char **argv)
{
    int size = 1024, first = 1;
    if (argc > 2 && !strcmp(argv[1], "-s")) {
        size = atoi(argv[2]);
        first = 3;
    }
    const int W = size, H = size;
    const float inv_w = 1.0f / W, inv_h = 1.0f / H;
    /* per pixel: covering circles, nearest first, as (index) lists would be
     * too big; instead walk circles back to front and keep per pixel the
     * count, then a second pass front to back for the fast count */
    int *cover = calloc((size_t)W * H, sizeof *cover);
    float *T = malloc((size_t)W * H * sizeof *T);
    printf("%-11s %9s %9s %14s %14s %14s %12s\n", "scene", "circles", "visible", "box tests",
           "covered", "fast blends", "MB floor");
    for (int a = first; a < argc; a++) {
        qr_error err;
        qr_scene *s = NULL;
        if (qr_scene_load(argv[a], 0, &s, &err)) { fprintf(stderr, "%s\n", err.msg); return 1; }
        memset(cover, 0, (size_t)W * H * sizeof *cover);
        for (size_t i = 0; i < (size_t)W * H; i++) T[i] = 1.0f;
        const float stop = 0.5f * QR_FAST_TOLERANCE; /* span 1 for the built-ins */
        long long box = 0, covered = 0, fast = 0;
        int visible = 0;
        for (int32_t i = s->n - 1; i >= 0; i--) { /* front to back */
            if (!(s->r[i] > 0)) continue;
            qr_pixbox b = qr_circle_pixbox(s->x[i], s->y[i], s->r[i], W, H);
            if (b.x0 >= b.x1 || b.y0 >= b.y1) continue;
            visible++;
            box += (long long)(b.x1 - b.x0) * (b.y1 - b.y0);
            const float r2 = s->r[i] * s->r[i];
            for (int py = b.y0; py < b.y1; py++)
                for (int px = b.x0; px < b.x1; px++) {
                    float d2 = qr_dist2(s->x[i], s->y[i], qr_pixel_center(px, inv_w), qr_pixel_center(py, inv_h));
                    if (d2 > r2) continue;
                    size_t k = (size_t)py * W + px;
                    covered++;
                    if (T[k] > stop) {
                        fast++;
                        float alpha = 0.5f;
                        if (s->shading == QR_SHADE_SNOW) {
                            float cr, cg, cb;
                            qr_shade_snow(d2, s->r[i], s->z[i], &alpha, &cr, &cg, &cb);
                        }
                        T[k] *= 1.0f - alpha;
                    }
                }
        }
        double mb = (visible * 32.0 + (double)W * H * 16.0) / 1e6;
        printf("%-11s %9d %9d %14lld %14lld %14lld %12.1f\n", s->name, s->n, visible, box, covered, fast, mb);
        qr_scene_destroy(s);
    }
    free(cover);
    free(T);
    return 0;
}
