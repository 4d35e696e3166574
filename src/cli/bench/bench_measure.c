/* bench_measure.c — one (scene, size, index, mode) measurement on the GPU:
 * frames timed with CUDA events after warm-up ones, their medians and
 * quartiles, and the index's shape and bytes (bench.h). `bench` runs it
 * for every row, `stats --report` for the indexes it compares. */
#include <stdlib.h>

#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "quadrender/gpu.h"

bench_stats bench_stats_of(double *v, int n)
{
    cli_sort_doubles(v, n);
    bench_stats s = {cli_quantile(v, n, 0.5), v[0], v[n - 1], cli_quantile(v, n, 0.25),
                     cli_quantile(v, n, 0.75)};
    return s;
}

/* `warmup` untimed frames, then `frames` frames timed at `level` into t. */
static qr_status time_frames(qr_gpu_renderer *r, const qr_gpu_scene *gs, const qr_index_params *p,
                             qr_render_mode mode, qr_timing level, int warmup, int frames,
                             qr_frame_timing *t, qr_error *err)
{
    qr_gpu_renderer_set_timing(r, level);
    for (int f = -warmup; f < frames; f++) {
        qr_status st = qr_gpu_render(r, gs, p, mode, err);
        if (!st && f >= 0) st = qr_gpu_renderer_timing(r, &t[f], err);
        if (st) return st;
    }
    return QR_OK;
}

/* One (scene, size, index, mode) measurement: `frames` frames timed whole
 * (no event inside the frame), as many timed with events between build and
 * render, and as many stage by stage — separately, because every event
 * inside a frame is one more node in its graph and lengthens the frames it
 * times (qr_timing). */
qr_status bench_measure(qr_gpu_renderer *r, const qr_gpu_scene *gs, const qr_index_params *p,
                         int exact, int warmup, int frames, bench_row *row, qr_error *err)
{
    double *v = malloc(sizeof(double) * frames * (BENCH_NSTAGES + 2));
    qr_frame_timing *t = malloc(sizeof *t * frames);
    if (!v || !t) {
        free(v);
        free(t);
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    }
    double *frame = v, *build = v + frames, *stage = v + 2 * frames;
    const qr_render_mode mode = exact ? QR_RENDER_EXACT : QR_RENDER_FAST;
    qr_status st = time_frames(r, gs, p, mode, QR_TIMING_FRAME, warmup, frames, t, err);
    for (int f = 0; f < frames && !st; f++) frame[f] = t[f].frame_ms;
    if (!st) st = time_frames(r, gs, p, mode, QR_TIMING_TOTALS, 2, frames, t, err);
    for (int f = 0; f < frames && !st; f++) {
        build[f] = t[f].build.total_ms;
        stage[BENCH_RENDER * frames + f] = t[f].render_ms;
    }
    if (!st) {
        row->frames = frames;
        row->frame = bench_stats_of(frame, frames);
        row->build = bench_stats_of(build, frames);
    }
    /* stage by stage; the render comes from the frames split in two, the
     * frame's rest ("other") from those timed whole */
    if (!st) st = time_frames(r, gs, p, mode, QR_TIMING_STAGES, 2, frames, t, err);
    for (int f = 0; f < frames && !st; f++) {
        const double s[BENCH_RENDER] = {t[f].build.boxes_ms, t[f].build.tree_ms, t[f].build.count_ms,
                                        t[f].build.scan_ms,  t[f].build.emit_ms, t[f].build.sort_ms};
        for (int k = 0; k < BENCH_RENDER; k++) stage[k * frames + f] = s[k];
    }
    if (!st) {
        for (int k = 0; k < BENCH_OTHER; k++) row->stage[k] = bench_stats_of(stage + k * frames, frames).median;
        /* whatever the median frame holds beyond the stages' medians: launch
         * gaps, the read-back, the events themselves */
        double sum = 0;
        for (int k = 0; k < BENCH_OTHER; k++) sum += row->stage[k];
        row->stage[BENCH_OTHER] = row->frame.median > sum ? row->frame.median - sum : 0;
        qr_index *ix = NULL;
        st = qr_gpu_index_download(qr_gpu_renderer_index(r), &ix, err);
        if (!st) {
            row->leaves = ix->num_leaves;
            row->pairs = ix->num_pairs;
            row->visible = ix->visible;
            qr_index_destroy(ix);
        }
        row->device_bytes = qr_gpu_renderer_device_bytes(r);
        row->index_bytes = qr_gpu_index_device_bytes(qr_gpu_renderer_index(r));
    }
    free(t);
    free(v);
    return st;
}
