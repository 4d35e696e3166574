/* bench_cpu.c — `quadrender bench --cpu`: the fast CPU renderer (index
 * build + render, both modes) beside the serial reference renderer.
 *
 * Per scene and size: `warmup` untimed frames, then `frames` timed ones per
 * mode on qr_threads() threads (wall clock); medians and quartiles of the
 * frame, medians of its build and render; the reference once (it takes
 * seconds). Runs with or without a GPU. Also one measurement as a bench
 * row (bench_measure_cpu: `bench --zoo` and `stats --report` without a GPU).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/threads.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quartile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double pos = q * (n - 1);
    int i = (int)pos;
    return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[n - 1];
}

qr_status bench_measure_cpu(const qr_scene *scene, int w, int h, const qr_index_params *p,
                            qr_render_mode mode, int warmup, int frames, bench_row *row,
                            qr_error *err)
{
    double *v = malloc(sizeof(double) * (size_t)frames * 3);
    qr_image *img = NULL;
    if (!v) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    qr_status st = qr_image_create(w, h, &img, err);
    double *frame = v, *build = v + frames, *render = v + 2 * frames;
    for (int f = -warmup; f < frames && st == QR_OK; f++) {
        qr_cpu_timing t = {0, 0};
        st = qr_render_cpu_fast(scene, p, mode, 0, img, &t, err);
        if (f < 0) continue;
        frame[f] = t.build_ms + t.render_ms;
        build[f] = t.build_ms;
        render[f] = t.render_ms;
    }
    qr_image_destroy(img);
    /* the index's shape: the whole image's, as the renderer builds it */
    qr_index *ix = NULL;
    if (st == QR_OK && (st = qr_index_build_host(scene, w, h, NULL, p,
                                                 qr_render_cpu_fast_index_mode(mode), &ix, err)) ==
                           QR_OK) {
        row->leaves = ix->num_leaves;
        row->pairs = ix->num_pairs;
        row->visible = ix->visible;
    }
    qr_index_destroy(ix);
    if (st == QR_OK) {
        row->frames = frames;
        row->frame = bench_stats_of(frame, frames);
        row->build = bench_stats_of(build, frames);
        row->stage[BENCH_RENDER] = bench_stats_of(render, frames).median;
    }
    free(v);
    return st;
}

/* The CPU's model name, from /proc/cpuinfo where there is one. */
static void cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *colon = strchr(line, ':');
        if (colon) {
            snprintf(buf, size, "%s", colon + 2);
            buf[strcspn(buf, "\n")] = '\0';
        }
        break;
    }
    fclose(f);
}

qr_status bench_cpu(FILE *out, const char *const *scenes, int nscenes, const int *sizes, int nsizes,
                    int want_exact, int want_fast, int warmup, int frames, uint32_t seed,
                    const qr_index_params *qp, qr_error *err)
{
    char model[256];
    cpu_model(model, sizeof model);
    fprintf(out,
            "# fast CPU renderer: %d threads (%d cores available), %s; %d warm-up + %d timed "
            "frames per mode (wall clock), the reference renderer once\n",
            qr_threads(), qr_cpu_count(), model, warmup, frames);
    fprintf(out, "%-12s %6s %-6s %10s %10s %10s %10s %10s %12s %9s\n", "scene", "size", "mode",
            "frame_ms", "p25", "p75", "build_ms", "render_ms", "reference_ms", "speedup");
    double *v = malloc(sizeof(double) * (size_t)frames * 3);
    if (!v) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    qr_status st = QR_OK;
    for (int s = 0; s < nscenes && !st; s++) {
        qr_scene *scene = NULL;
        char esc[256];
        st = qr_scene_load(scenes[s], seed, &scene, err);
        if (!st) st = qr_scene_seek_frame(scene, 0, err);
        for (int z = 0; z < nsizes && !st; z++) {
            qr_image *img = NULL;
            st = qr_image_create(sizes[z], sizes[z], &img, err);
            double mode_ms[2] = {0, 0};
            double ref_ms = -1;
            for (int m = 0; m < 2 && !st; m++) {
                const int exact = m == 0;
                if ((exact && !want_exact) || (!exact && !want_fast)) continue;
                const qr_render_mode mode = exact ? QR_RENDER_EXACT : QR_RENDER_FAST;
                double *frame = v, *build = v + frames, *render = v + 2 * frames;
                for (int f = -warmup; f < frames && !st; f++) {
                    qr_cpu_timing t;
                    const double t0 = cli_now_ms();
                    st = qr_render_cpu_fast(scene, qp, mode, 0, img, &t, err);
                    if (f < 0) continue;
                    frame[f] = cli_now_ms() - t0;
                    build[f] = t.build_ms;
                    render[f] = t.render_ms;
                }
                if (st) break;
                const double p25 = quartile(frame, frames, 0.25), p75 = quartile(frame, frames, 0.75);
                mode_ms[m] = quartile(frame, frames, 0.5);
                const double b = quartile(build, frames, 0.5), r = quartile(render, frames, 0.5);
                if (ref_ms < 0) {
                    const double t0 = cli_now_ms();
                    st = qr_render_cpu(scene, img, err);
                    ref_ms = cli_now_ms() - t0;
                }
                if (!st)
                    fprintf(out, "%-12s %6d %-6s %10.2f %10.2f %10.2f %10.2f %10.2f %12.1f %8.1fx\n",
                            cli_esc(scene->name, esc, sizeof esc), sizes[z], exact ? "exact" : "fast", mode_ms[m], p25, p75,
                            b, r, ref_ms, ref_ms / mode_ms[m]);
            }
            if (!st && mode_ms[0] > 0 && mode_ms[1] > 0)
                fprintf(out, "%-12s %6d fast mode %.2fx faster than exact\n",
                        cli_esc(scene->name, esc, sizeof esc),
                        sizes[z], mode_ms[0] / mode_ms[1]);
            fflush(out);
            qr_image_destroy(img);
        }
        qr_scene_destroy(scene);
    }
    free(v);
    return st;
}
