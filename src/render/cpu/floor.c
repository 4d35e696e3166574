/* floor.c — the floor's counts (quadrender/floor.h) over bands of rows.
 *
 * Fast blends depend on each pixel's transmittance, which only the circles
 * in front of it change, so a pixel's circles must be taken front to back;
 * across pixels nothing is shared. Each task therefore owns a band of rows
 * and its own transmittances, and walks every circle front to back, clipping
 * its box to the band. A task's counts are integers in its own slot, summed
 * in task order at the end: the result is the same for any thread count
 * (and any split into bands). Every band repeats the walk over all circles
 * (a box each), so bands are no thinner than 16 rows; 64 of them at most
 * are enough to keep the cores of one machine busy. */
#include "quadrender/floor.h"

#include <stdlib.h>
#include <string.h>

#include "common/circle_math.h"
#include "quadrender/render_mode.h"
#include "quadrender/threads.h"

enum { BAND_MIN_ROWS = 16, MAX_BANDS = 64 };

typedef struct band_counts {
    int64_t box_tests, covered, fast_blends;
    int32_t visible;
    int nomem;
} band_counts;

typedef struct floor_job {
    const qr_scene *scene;
    int width, height, bands;
    band_counts *counts; /* one per band */
} floor_job;

static void count_band(void *ctx, int task)
{
    const floor_job *job = ctx;
    const qr_scene *s = job->scene;
    const int W = job->width, H = job->height;
    const int y0 = (int)((long long)H * task / job->bands);
    const int y1 = (int)((long long)H * (task + 1) / job->bands);
    band_counts *c = &job->counts[task];
    memset(c, 0, sizeof *c);
    if (y0 >= y1) return;
    const size_t npix = (size_t)W * (size_t)(y1 - y0);
    float *T = malloc(npix * sizeof *T);
    if (!T) {
        c->nomem = 1;
        return;
    }
    for (size_t k = 0; k < npix; k++) T[k] = 1.0f;
    const float inv_w = 1.0f / W, inv_h = 1.0f / H;
    const float stop = 0.5f * QR_FAST_TOLERANCE; /* span 1 for the built-ins */
    const int snow = s->shading == QR_SHADE_SNOW;
    int64_t box = 0, covered = 0, fast = 0;
    int32_t visible = 0;
    for (int32_t i = s->n - 1; i >= 0; i--) { /* front to back */
        const float cx = s->x[i], cy = s->y[i], r = s->r[i];
        if (!(r > 0)) continue;
        qr_pixbox b = qr_circle_pixbox(cx, cy, r, W, H);
        if (b.x0 >= b.x1 || b.y0 >= b.y1) continue;
        /* each circle is counted by the band holding its box's first row */
        if (b.y0 >= y0 && b.y0 < y1) visible++;
        const int by0 = b.y0 > y0 ? b.y0 : y0, by1 = b.y1 < y1 ? b.y1 : y1;
        if (by0 >= by1) continue;
        box += (int64_t)(b.x1 - b.x0) * (by1 - by0);
        const float r2 = r * r;
        for (int py = by0; py < by1; py++) {
            const float sy = qr_pixel_center(py, inv_h);
            float *row = T + (size_t)(py - y0) * W;
            for (int px = b.x0; px < b.x1; px++) {
                float d2 = qr_dist2(cx, cy, qr_pixel_center(px, inv_w), sy);
                if (d2 > r2) continue;
                covered++;
                if (row[px] > stop) {
                    fast++;
                    float alpha = snow ? 0.0f : qr_scene_alpha(s, i);
                    if (snow) {
                        float cr, cg, cb;
                        qr_shade_snow(d2, r, s->z[i], &alpha, &cr, &cg, &cb);
                    }
                    row[px] *= 1.0f - alpha;
                }
            }
        }
    }
    free(T);
    c->box_tests = box;
    c->covered = covered;
    c->fast_blends = fast;
    c->visible = visible;
}

qr_status qr_work_floor_count(const qr_scene *scene, int32_t width, int32_t height, int threads,
                              qr_work_floor *out, qr_error *err)
{
    if (width < 1 || height < 1)
        return qr_fail(err, QR_ERR_INVALID, "floor: image size %dx%d is not positive",
                       (int)width, (int)height);
    int bands = (int)(height / BAND_MIN_ROWS);
    if (bands < 1) bands = 1;
    if (bands > MAX_BANDS) bands = MAX_BANDS;
    band_counts *counts = calloc((size_t)bands, sizeof *counts);
    if (!counts) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    floor_job job = {scene, (int)width, (int)height, bands, counts};
    qr_parallel_for(bands, threads, count_band, &job);
    qr_work_floor f = {0, 0, 0, 0, 0.0};
    for (int t = 0; t < bands; t++) {
        if (counts[t].nomem) {
            free(counts);
            return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
        }
        f.visible += counts[t].visible;
        f.box_tests += counts[t].box_tests;
        f.covered += counts[t].covered;
        f.fast_blends += counts[t].fast_blends;
    }
    free(counts);
    f.bytes = f.visible * 32.0 + (double)width * height * 16.0;
    *out = f;
    return QR_OK;
}
