/* job_ctx.c — what the parts of a job share (job_ctx.h): the frames'
 * names, progress reports, the device choice, and one renderer's frames:
 * where they render (qr_job_choose_device, job_ctx_start sets the GPU up),
 * how the scene reaches a frame (job_seek), and how a frame becomes a file
 * (job_write_frame). job.c drives one of these over a frame range;
 * job_split.c drives several, one a GPU or a process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job/job_ctx.h"
#include "quadrender/memory.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/threads.h"

/* The smallest PNG (raw RGB bytes, 4096 x 4096) that AUTO compresses on
 * the GPU (docs/benchmarks.md, "PNG on the GPU"). */
#define QR_GPU_PNG_AUTO_BYTES ((uint64_t)48 << 20)

#ifndef QR_VERSION
#define QR_VERSION "unknown"
#endif

double job_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

qr_status job_frame_path(const char *pattern, int64_t k, char *buf, size_t size, qr_error *err)
{
    size_t n = 0;
    int numbers = 0;
    for (const char *c = pattern; *c; c++) {
        char piece[32] = {*c, 0};
        if (*c == '%') {
            int width = 0, zero = 0;
            const char *d = c + 1;
            if (*d == '%') {
                c = d;
            } else {
                zero = *d == '0';
                for (d += zero; *d >= '0' && *d <= '9' && width < 100; d++)
                    width = width * 10 + (*d - '0');
                if (*d != 'd' || (zero && (width < 1 || width > 18)) || (!zero && width) ||
                    numbers++)
                    return qr_fail(err, QR_ERR_INVALID,
                                   "'%s': a frame name holds one %%d or %%0Nd (N 1..18), %%%% "
                                   "for a '%%'",
                                   pattern);
                snprintf(piece, sizeof piece, "%0*lld", width, (long long)k);
                c = d;
            }
        }
        const size_t len = strlen(piece);
        if (n + len >= size)
            return qr_fail(err, QR_ERR_INVALID, "'%.200s...': file name too long", pattern);
        memcpy(buf + n, piece, len + 1);
        n += len;
    }
    if (!n)
        return qr_fail(err, QR_ERR_INVALID, "an empty file name");
    return QR_OK;
}

bool job_report(job_state *st, qr_job_progress *pr, int64_t step)
{
    if (!pr->lane)
        pr->lane = "";
    pthread_mutex_lock(&st->report_mu);
    st->done += step;
    pr->done = st->done;
    pr->total = pr->total ? pr->total : st->p->last - st->p->first + 1;
    if (st->p->on_progress && !atomic_load(&st->cancelled) &&
        st->p->on_progress(st->p->user, pr) != 0)
        atomic_store(&st->cancelled, 1);
    pthread_mutex_unlock(&st->report_mu);
    return !atomic_load(&st->cancelled);
}

bool job_cancelled(job_state *st)
{
    return atomic_load(&st->cancelled) != 0;
}

qr_status qr_job_choose_device(qr_job_device requested, const char *doing, qr_device_choice *d,
                               qr_error *err)
{
    memset(d, 0, sizeof *d);
    const int threads = qr_threads();
    snprintf(d->where, sizeof d->where, "the CPU (%d thread%s)", threads, threads == 1 ? "" : "s");
    if (requested == QR_JOB_CPU_REFERENCE) {
        d->reference = true;
        snprintf(d->where, sizeof d->where, "the CPU (the serial reference renderer)");
        return QR_OK;
    }
    if (requested == QR_JOB_CPU)
        return QR_OK;
    qr_error why;
    if (qr_gpu_probe(&d->info, &why) != QR_OK) {
        if (requested == QR_JOB_GPU)
            return qr_fail(err, why.status, "%s", why.msg);
        snprintf(d->note, sizeof d->note, "no usable GPU (%.300s): %.40s on %.200s", why.msg,
                 doing, d->where);
        return QR_OK;
    }
    d->gpu = true;
    snprintf(d->where, sizeof d->where, "the GPU (%.200s, sm_%d%d, %d SMs)", d->info.name,
             d->info.cc_major, d->info.cc_minor, d->info.sm_count);
    snprintf(d->note, sizeof d->note, "%.40s on %s", doing, d->where);
    return QR_OK;
}

qr_status job_ctx_init_device(job_ctx *ctx, int device, qr_error *err)
{
    qr_status st = qr_gpu_probe_device(device, &ctx->dev.info, err);
    if (st != QR_OK)
        return st;
    ctx->dev.gpu = true;
    snprintf(ctx->dev.where, sizeof ctx->dev.where, "GPU %d (%.200s)", device,
             ctx->dev.info.name);
    return QR_OK;
}

/* The GPU budget: the caller's, or what the device has free less some
 * headroom for the driver and CUB (as qr_gpu_renderer_create_budget). */
static qr_status gpu_budget(const job_ctx *ctx, size_t *budget, qr_error *err)
{
    *budget = ctx->gpu_memory;
    if (*budget)
        return QR_OK;
    qr_gpu_info info;
    qr_status st = qr_gpu_probe(&info, err);
    if (st != QR_OK)
        return st;
    const size_t free_b = info.mem_free, total_b = info.mem_total;
    const size_t headroom = total_b / 20 > ((size_t)256 << 20) ? total_b / 20 : ((size_t)256 << 20);
    *budget = free_b > headroom ? free_b - headroom : 1;
    return QR_OK;
}

int32_t job_gpu_auto_chunk(const job_ctx *ctx, const qr_scene *scene, int32_t width,
                           int32_t height)
{
    size_t budget = 0;
    if (!scene || gpu_budget(ctx, &budget, NULL) != QR_OK)
        return 0;
    const uint64_t image = (uint64_t)width * (uint64_t)height * 4 * sizeof(float);
    const uint64_t need = (uint64_t)scene->n * QR_JOB_GPU_CIRCLE_BYTES + image;
    if (need <= budget || image > budget / 2)
        return 0;
    const uint64_t c = (budget - image) / QR_JOB_GPU_CIRCLE_BYTES;
    return c < 1 ? 1 : (int32_t)c;
}

/* A scene in chunks on the GPU: the image whole on the device within the
 * budget, the chunks' parts as large as the rest holds (QR_JOB_GPU_CIRCLE_BYTES
 * a circle). */
static qr_status start_chunked(job_ctx *ctx, int32_t width, int32_t height, qr_error *err)
{
    size_t budget = 0;
    qr_status st = gpu_budget(ctx, &budget, err);
    if (st != QR_OK)
        return st;
    const size_t image = (size_t)width * (size_t)height * 4 * sizeof(float);
    if (image >= budget)
        return qr_fail(err, QR_ERR_GPU_NOMEM,
                       "a scene in chunks is drawn on its image held whole on the GPU: %dx%d "
                       "takes %zu bytes, more than the GPU memory budget of %zu",
                       (int)width, (int)height, image, budget);
    const size_t fit = (budget - image) / QR_JOB_GPU_CIRCLE_BYTES;
    ctx->gpu_chunk = fit < 1 ? 1 : fit > QR_JOB_GPU_PART_MAX ? QR_JOB_GPU_PART_MAX : (int32_t)fit;
    st = qr_gpu_renderer_create(width, height, &ctx->r, err);
    if (st != QR_OK)
        return st;
    qr_gpu_renderer_set_budget(ctx->r, budget);
    qr_gpu_renderer_set_timing(ctx->r, ctx->stage_timing ? QR_TIMING_STAGES : QR_TIMING_TOTALS);
    return QR_OK;
}

/* Once the scene is loaded: on the GPU, upload it (as generated, steps ==
 * scene->steps) and make the renderer; frames then never touch the host
 * scene. A renderer whose image streams out as `format` (stream) renders
 * whole when the image fits the GPU memory budget, else in bands. */
qr_status job_ctx_start(job_ctx *ctx, const qr_scene *scene, int32_t width, int32_t height,
                        bool stream, qr_image_format format, qr_error *err)
{
    ctx->width = width;
    ctx->height = height;
    if (!ctx->dev.gpu)
        return QR_OK;
    double t0 = job_now_ms();
    if (ctx->chunked)
        return start_chunked(ctx, width, height, err);
    qr_status st = qr_gpu_scene_create(scene, &ctx->gs, err);
    if (st == QR_OK && stream)
        st = qr_gpu_renderer_create_budget(width, height, ctx->gs, format, ctx->gpu_memory,
                                           &ctx->params, &ctx->r, err);
    else if (st == QR_OK)
        st = qr_gpu_renderer_create(width, height, &ctx->r, err);
    if (st != QR_OK)
        return st;
    if (qr_gpu_renderer_band_rows(ctx->r) < height)
        ctx->band_rows = qr_gpu_renderer_band_rows(ctx->r);
    /* the index build's stages too, at the cost of an event per stage */
    qr_gpu_renderer_set_timing(ctx->r, ctx->stage_timing ? QR_TIMING_STAGES : QR_TIMING_TOTALS);
    ctx->upload_ms = job_now_ms() - t0;
    return QR_OK;
}

void job_ctx_free(job_ctx *ctx)
{
    job_frame_pool_free(ctx->pool);
    qr_gpu_renderer_destroy(ctx->r);
    qr_gpu_scene_destroy(ctx->gs);
}

/* Brings the scene to the state frame k is rendered from: the host scene
 * on the CPU, the device scene on the GPU. */
qr_status job_seek(job_ctx *ctx, qr_scene *scene, int64_t k, qr_error *err)
{
    if (ctx->dev.gpu && !ctx->chunked)
        return qr_gpu_scene_seek_frame_progress(ctx->gs, k, ctx->on_seek, ctx->seek_user, err);
    return qr_scene_seek_frame_progress(scene, k, ctx->on_seek, ctx->seek_user, err);
}

/* Renders the scene's current state on the device ctx chose into img.
 * Without one (stream) the image is rendered as job_write_frame writes it. */
qr_status job_render(job_ctx *ctx, const qr_scene *scene, qr_image *img, qr_error *err)
{
    if (!img)
        return QR_OK;
    if (ctx->dev.reference)
        return qr_render_cpu(scene, img, err);
    if (!ctx->dev.gpu)
        return qr_render_cpu_fast(scene, &ctx->params, ctx->mode, 0, img, &ctx->cpu, err);
    qr_status st = qr_gpu_render(ctx->r, ctx->gs, &ctx->params, ctx->mode, err);
    if (st == QR_OK)
        st = qr_gpu_renderer_timing(ctx->r, &ctx->timing, err);
    if (st == QR_OK)
        st = qr_gpu_renderer_download(ctx->r, img, err);
    return st;
}

/* Chunk c of the scene, of `chunk` circles (the last one fewer): a view of
 * it, or read from the stream into *read (destroyed by the caller), the
 * chunk after it in `order` (c + 1 or c - 1) then read ahead. */
static qr_status chunk_of(const qr_scene *scene, qr_scene_stream *stream, int64_t n,
                          int32_t chunk, int64_t c, int order, qr_scene *view, qr_scene **read,
                          qr_error *err)
{
    *read = NULL;
    const int64_t first = c * chunk;
    const int32_t count = n - first < chunk ? (int32_t)(n - first) : chunk;
    if (!stream)
        return qr_scene_view(scene, (int32_t)first, count, view, err);
    const qr_status st = qr_scene_stream_read(stream, first, count, read, err);
    const int64_t next = (c + order) * chunk;
    if (st == QR_OK && next >= 0 && next < n)
        qr_scene_stream_prefetch(stream, next, n - next < chunk ? (int32_t)(n - next) : chunk);
    return st;
}

qr_status job_chunks_plan(const job_ctx *ctx, const qr_scene *scene, qr_scene_stream *stream,
                          int32_t chunk, job_chunks *plan, qr_error *err)
{
    plan->chunk = chunk;
    plan->circles = stream ? qr_scene_stream_circles(stream) : scene->n;
    plan->count = plan->circles ? (plan->circles + chunk - 1) / chunk : 1; /* empty: its background */
    qr_cpu_fast_numbers_init(&plan->numbers);
    plan->under = false;
    if (ctx->dev.reference || ctx->mode != QR_RENDER_FAST)
        return QR_OK;
    /* fast mode: the whole scene's numbers (a stream: a pass over the file) */
    qr_status st = QR_OK;
    if (!stream)
        qr_cpu_fast_numbers_add(&plan->numbers, scene);
    for (int64_t c = 0; stream && st == QR_OK && c < plan->count; c++) {
        qr_scene view, *read;
        st = chunk_of(scene, stream, plan->circles, chunk, c, 1, &view, &read, err);
        if (st == QR_OK) qr_cpu_fast_numbers_add(&plan->numbers, read);
        qr_scene_destroy(read);
    }
    plan->under = st == QR_OK && qr_render_cpu_fast_stops(scene, &plan->numbers);
    return st;
}

qr_status job_render_chunks_rows(job_ctx *ctx, const qr_scene *scene, qr_scene_stream *stream,
                                 const job_chunks *plan, int threads, int32_t y0, int32_t y1,
                                 qr_image *band, qr_error *err)
{
    const int64_t n = plan->circles, chunks = plan->count;
    const int32_t chunk = plan->chunk, W = ctx->width, H = ctx->height;
    const bool under = plan->under;
    qr_cpu_timing sum = {0, 0};
    qr_status st = QR_OK;
    /* the chunk drawn first is read ahead */
    if (stream && n)
        qr_scene_stream_prefetch(stream, under ? (chunks - 1) * chunk : 0,
                                 (int32_t)(under ? n - (chunks - 1) * chunk
                                                 : (n < chunk ? n : chunk)));
    for (int64_t k = 0; st == QR_OK && k < chunks; k++) {
        const int64_t c = under ? chunks - 1 - k : k; /* front to back, or back to front */
        qr_scene view, *read;
        st = chunk_of(scene, stream, n, chunk, c, under ? -1 : 1, &view, &read, err);
        const qr_scene *part = stream ? read : &view;
        if (st == QR_OK && ctx->dev.reference)
            st = c ? qr_render_cpu_band_over(part, W, H, y0, y1, band, err)
                   : qr_render_cpu_band(part, W, H, y0, y1, band, err);
        else if (st == QR_OK && under)
            st = qr_render_cpu_fast_band_under(part, &ctx->params, threads, W, H, y0, y1, band,
                                               &plan->numbers, k == 0, c == 0, &ctx->cpu, err);
        else if (st == QR_OK)
            st = c ? qr_render_cpu_fast_band_over(part, &ctx->params, ctx->mode, threads, W, H, y0,
                                                  y1, band, &ctx->cpu, err)
                   : qr_render_cpu_fast_band(part, &ctx->params, ctx->mode, threads, W, H, y0, y1,
                                             band, &ctx->cpu, err);
        if (st == QR_OK && !ctx->dev.reference) {
            sum.build_ms += ctx->cpu.build_ms;
            sum.render_ms += ctx->cpu.render_ms;
        }
        qr_scene_destroy(read);
    }
    ctx->cpu = sum;
    return st;
}

/* Adds t's times to sum. */
static void add_timing(qr_frame_timing *sum, const qr_frame_timing *t)
{
    float *a = (float *)&sum->build;
    const float *b = (const float *)&t->build;
    for (size_t k = 0; k < sizeof t->build / sizeof(float); k++)
        a[k] += b[k];
    sum->render_ms += t->render_ms;
    sum->frame_ms += t->frame_ms;
}

/* After a part of `count` circles from circle `circle` was sent and
 * rendered with status st: QR_ERR_GPU_NOMEM of more than one circle halves
 * the parts (the part is drawn again: *again); of one circle, that circle
 * named; else, rendered, its times added. */
static qr_status part_rendered(job_ctx *ctx, qr_status st, int32_t count, int64_t circle,
                               bool *again, qr_error *err)
{
    *again = st == QR_ERR_GPU_NOMEM && count > 1;
    if (*again) {
        ctx->gpu_chunk = count / 2;
        return QR_OK;
    }
    if (st == QR_ERR_GPU_NOMEM) {
        qr_error e = err ? *err : (qr_error){0};
        return qr_fail(err, QR_ERR_GPU_NOMEM, "circle %lld alone does not fit the GPU: %s",
                       (long long)circle, e.msg);
    }
    qr_frame_timing t;
    if (st == QR_OK)
        st = qr_gpu_renderer_timing(ctx->r, &t, err);
    if (st == QR_OK)
        add_timing(&ctx->timing, &t);
    return st;
}

/* One chunk on the GPU, uploaded in parts of at most ctx->gpu_chunk
 * circles. Back to front (whole NULL), each part rendered over the image
 * (but the scene's very first, over the background: *drawn false); front
 * to back (fast mode's walk, whole: the scene's numbers), the chunk's parts
 * from its last, each under the image (but the scene's very last, from
 * nothing), the background added under the part that starts the scene
 * (back: this chunk is the scene's first). A part whose index does not fit
 * the budget is drawn again in halves, and the parts after it no larger.
 * `first`: the chunk's first circle in the scene, for the message of one
 * that cannot fit. */
static qr_status gpu_chunk(job_ctx *ctx, const qr_scene *part, int64_t first,
                           const qr_gpu_numbers *whole, bool back, bool *drawn, qr_error *err)
{
    qr_status st = QR_OK;
    /* the circles left to draw: [0, left) front to back, [done, n) back to front */
    int32_t left = part->n, done = 0;
    while (st == QR_OK && ((whole ? left > 0 : done < part->n) || !*drawn)) {
        const int32_t rest = whole ? left : part->n - done;
        const int32_t count = rest < ctx->gpu_chunk ? rest : ctx->gpu_chunk;
        const int32_t at = whole ? left - count : done;
        qr_scene view;
        const double t0 = job_now_ms();
        qr_gpu_scene_destroy(ctx->gs); /* the part before (waits for its render) */
        ctx->gs = NULL;
        const double t1 = job_now_ms();
        st = qr_scene_view(part, at, count, &view, err);
        if (st == QR_OK)
            st = qr_gpu_scene_create(&view, &ctx->gs, err);
        ctx->chunk_wait_ms += t1 - t0;
        ctx->chunk_upload_ms += job_now_ms() - t1;
        if (st == QR_OK && whole)
            st = qr_gpu_render_chunk_under(ctx->r, ctx->gs, whole, &ctx->params, !*drawn,
                                           back && at == 0, err);
        else if (st == QR_OK)
            st = qr_gpu_render_chunk(ctx->r, ctx->gs, &ctx->params, ctx->mode, *drawn, err);
        bool again;
        if ((st = part_rendered(ctx, st, count, first + at, &again, err)) != QR_OK || again)
            continue;
        *drawn = true;
        left -= count;
        done += count;
    }
    return st;
}

/* One chunk of a file's rows on the GPU (first: its first circle in the
 * file), in parts of at most ctx->gpu_chunk circles, each checked and sent
 * through the pinned buffer of a device scene kept from part to part
 * (qr_gpu_scene_update_host: no host columns, no allocation once warm),
 * given the file's picture and rendered over the image (the file's very
 * first part over the background: *drawn false). A part that does not fit
 * the budget is drawn again in halves (the scene's buffers made anew, no
 * larger); a bad row is read again from the file for its message. */
static qr_status gpu_rows(job_ctx *ctx, qr_scene_stream *stream, const float *rows,
                          int64_t first, int32_t n, bool *drawn, qr_error *err)
{
    const qr_scene *picture = qr_scene_stream_picture(stream);
    qr_status st = QR_OK;
    for (int32_t at = 0; st == QR_OK && (at < n || !*drawn);) {
        const int32_t count = n - at < ctx->gpu_chunk ? n - at : ctx->gpu_chunk;
        const double t0 = job_now_ms();
        const float *part = rows + (size_t)at * 7;
        st = ctx->gs ? qr_gpu_scene_update_host(ctx->gs, part, count, 0, err)
                     : qr_gpu_scene_create_host(part, count, 0, &ctx->gs, err);
        if (st == QR_ERR_INVALID) {
            /* a bad row: the stream's own message, which names the file's row */
            qr_scene *again = NULL;
            const qr_status st2 = qr_scene_stream_read(stream, first + at, count, &again, err);
            qr_scene_destroy(again);
            return st2 != QR_OK ? st2 : st;
        }
        if (st == QR_OK)
            st = qr_gpu_scene_set_picture(ctx->gs, picture, err);
        ctx->chunk_upload_ms += job_now_ms() - t0;
        if (st == QR_OK)
            st = qr_gpu_render_chunk(ctx->r, ctx->gs, &ctx->params, ctx->mode, *drawn, err);
        bool again;
        if ((st = part_rendered(ctx, st, count, first + at, &again, err)) != QR_OK)
            continue;
        if (again) {
            qr_gpu_scene_destroy(ctx->gs); /* its buffers too: the halves' are smaller */
            ctx->gs = NULL;
            continue;
        }
        *drawn = true;
        at += count;
    }
    return st;
}

/* A file on the GPU: chunks of its rows read in turn (the next one on a
 * thread of its own while this one is sent and drawn), back to front. */
static qr_status gpu_file_chunks(job_ctx *ctx, qr_scene_stream *stream, int32_t chunk,
                                 qr_error *err)
{
    const int64_t n = qr_scene_stream_circles(stream);
    const int64_t chunks = n ? (n + chunk - 1) / chunk : 1;
    if (n)
        qr_scene_stream_prefetch(stream, 0, (int32_t)(n < chunk ? n : chunk));
    bool drawn = false;
    qr_status st = QR_OK;
    for (int64_t c = 0; st == QR_OK && c < chunks; c++) {
        const int64_t first = c * chunk;
        const int32_t count = n - first < chunk ? (int32_t)(n - first) : chunk;
        float *rows = NULL;
        const double t0 = job_now_ms();
        st = qr_scene_stream_read_rows(stream, first, count, &rows, err);
        if (st == QR_OK && first + count < n)
            qr_scene_stream_prefetch(stream, first + count,
                                     n - first - count < chunk ? (int32_t)(n - first - count) : chunk);
        ctx->chunk_read_ms += job_now_ms() - t0;
        if (st == QR_OK)
            st = gpu_rows(ctx, stream, rows, first, count, &drawn, err);
        free(rows);
    }
    return st;
}

/* A scene held on the host on the GPU, in chunks of its views. Fast mode
 * where it walks front to back (deep scenes, snow): the chunks from the
 * scene's last, under the colour the ones in front gathered, stopping at
 * the whole scene's bound (its numbers first); else from its first, over
 * the image (exact mode's walk). */
static qr_status gpu_scene_chunks(job_ctx *ctx, const qr_scene *scene, int32_t chunk,
                                  qr_error *err)
{
    const int64_t n = scene->n;
    const int64_t chunks = n ? (n + chunk - 1) / chunk : 1; /* empty: its background */
    qr_gpu_numbers whole;
    bool under = false;
    const double t0 = job_now_ms();
    if (ctx->mode == QR_RENDER_FAST) {
        qr_gpu_numbers_init(&whole, scene);
        qr_status st = qr_gpu_numbers_add(&whole, scene, err);
        if (st != QR_OK)
            return st;
        under = qr_gpu_chunks_front_to_back(&whole, ctx->mode);
    }
    ctx->chunk_read_ms += job_now_ms() - t0;
    bool drawn = false;
    qr_status st = QR_OK;
    for (int64_t k = 0; st == QR_OK && k < chunks; k++) {
        const int64_t c = under ? chunks - 1 - k : k;
        qr_scene view, *read;
        st = chunk_of(scene, NULL, n, chunk, c, 1, &view, &read, err);
        if (st == QR_OK)
            st = gpu_chunk(ctx, &view, c * chunk, under ? &whole : NULL, c == 0, &drawn, err);
    }
    return st;
}

/* On the GPU: a file's chunks read once, drawn back to front (its fast
 * chunks too: the whole scene's numbers would take a second read, which
 * costs far more than the exact walk's extra blends on the GPU, so they
 * give the exact image, within fast mode's tolerance of its one pass), or
 * a held scene's; the image then downloaded into img (NULL: left on the
 * device). */
static qr_status gpu_chunks(job_ctx *ctx, const qr_scene *scene, qr_scene_stream *stream,
                            int32_t chunk, qr_image *img, qr_error *err)
{
    /* a file is read in chunks no larger than the GPU's parts: the host
     * holds two of them (one read ahead) */
    if (stream && chunk > ctx->gpu_chunk)
        chunk = ctx->gpu_chunk;
    memset(&ctx->timing, 0, sizeof ctx->timing);
    ctx->chunk_read_ms = ctx->chunk_upload_ms = ctx->chunk_wait_ms = 0;
    qr_status st = stream ? gpu_file_chunks(ctx, stream, chunk, err)
                          : gpu_scene_chunks(ctx, scene, chunk, err);
    const double t0 = job_now_ms();
    qr_gpu_scene_destroy(ctx->gs); /* waits for the last render */
    ctx->gs = NULL;
    ctx->chunk_wait_ms += job_now_ms() - t0;
    if (st == QR_OK && img)
        st = qr_gpu_renderer_download(ctx->r, img, err);
    return st;
}

qr_status job_render_chunks(job_ctx *ctx, const qr_scene *scene, qr_scene_stream *stream,
                            int32_t chunk, qr_image *img, qr_error *err)
{
    if (ctx->chunked)
        return gpu_chunks(ctx, scene, stream, chunk, img, err);
    job_chunks plan;
    qr_status st = job_chunks_plan(ctx, scene, stream, chunk, &plan, err);
    return st ? st
              : job_render_chunks_rows(ctx, scene, stream, &plan, 0, 0, img->height, img, err);
}

void job_png_text(job_png_meta *m, const job_state *st, int64_t k, qr_image_write_options *opts)
{
    const qr_job_params *p = st->p;
    int n = 0;
    m->text[n++] = (qr_image_text){"Scene", st->scene->name};
    if (st->builtin) {
        snprintf(m->seed, sizeof m->seed, "%u", p->seed);
        m->text[n++] = (qr_image_text){"Seed", m->seed};
    }
    snprintf(m->frame, sizeof m->frame, "%lld", (long long)k);
    m->text[n++] = (qr_image_text){"Frame", m->frame};
    snprintf(m->size, sizeof m->size, "%dx%d", (int)p->width, (int)p->height);
    m->text[n++] = (qr_image_text){"Size", m->size};
    m->text[n++] = (qr_image_text){"Mode", st->mode_text};
    if (p->keep_aspect) /* what Size means: only the default is left unsaid */
        m->text[n++] = (qr_image_text){"Aspect", "keep"};
    snprintf(m->software, sizeof m->software, "%s",
             p->software ? p->software : "quadrender " QR_VERSION);
    m->text[n++] = (qr_image_text){"Software", m->software};
    opts->text = m->text;
    opts->ntext = n;
    opts->alpha = st->alpha;
}

/* Bytes of float pixels a band of the CPU's streamed render holds at most
 * (less when the host memory left is small: qr_host_band_rows). */
#define CPU_BAND_BYTES ((size_t)256 << 20)

/* The CPU's streamed render: bands of rows in the file's order, each
 * rendered into one band image (of qr_host_band_rows, made by hand: wider
 * than QR_IMAGE_MAX_DIM is allowed) and appended to w. A band's rows equal
 * the whole image's (qr_render_cpu_fast_band). */
static qr_status write_cpu_bands(job_ctx *ctx, const qr_scene *scene, qr_image_writer *w,
                                 qr_error *err)
{
    const int32_t W = ctx->width, H = ctx->height;
    const bool pfm = qr_image_writer_format(w) == QR_FORMAT_PFM;
    const size_t rows = (size_t)qr_host_band_rows((uint64_t)W * 4 * sizeof(float), H, QR_REGION,
                                                  CPU_BAND_BYTES);
    char what[96];
    snprintf(what, sizeof what, "a band of %zu rows of %d pixels", rows, (int)W);
    qr_image band = {W, (int32_t)rows, NULL};
    qr_status check = qr_host_malloc(what, (size_t)W * rows * 4 * sizeof(float),
                                     (void **)&band.rgba, err);
    if (check != QR_OK)
        return check;
    qr_status st = QR_OK;
    qr_cpu_timing sum = {0, 0};
    for (int32_t done = 0; st == QR_OK && done < H; done += (int32_t)rows) {
        const int32_t n = H - done < (int32_t)rows ? H - done : (int32_t)rows;
        /* PNG and PPM from the top row down, PFM from the bottom up */
        const int32_t y0 = pfm ? done : H - done - n;
        band.height = n;
        if (ctx->dev.reference) {
            st = qr_render_cpu_band(scene, W, H, y0, y0 + n, &band, err);
        } else {
            st = qr_render_cpu_fast_band(scene, &ctx->params, ctx->mode, 0, W, H, y0, y0 + n,
                                         &band, &ctx->cpu, err);
            sum.build_ms += ctx->cpu.build_ms;
            sum.render_ms += ctx->cpu.render_ms;
        }
        if (st == QR_OK)
            st = qr_image_writer_append_image(w, &band, err);
    }
    ctx->cpu = sum;
    free(band.rgba);
    return st;
}

/* Writes the frame to `path` in `format` (--format, else the name's
 * extension, else PNG): from the GPU, rendered, converted there and
 * streamed in bands into the file's writer (stream = true); else the host
 * image rendered by job_render. */
qr_status job_write_frame(job_ctx *ctx, const qr_scene *scene, const qr_image *img, bool stream,
                          const char *path, qr_image_format format,
                          const qr_image_write_options *opts, qr_error *err)
{
    if (format == QR_FORMAT_UNKNOWN)
        format = qr_image_format_from_path(path);
    if (format == QR_FORMAT_UNKNOWN)
        format = QR_FORMAT_PNG;
    qr_image_write_options o = opts ? *opts : qr_image_write_options_default();
    if (o.deflate == QR_PNG_DEFLATE_AUTO) {
        /* the GPU's encoder where it pays: one large PNG that the GPU renders */
        const uint64_t bytes = (uint64_t)ctx->width * (uint64_t)ctx->height * 3;
        o.deflate = stream && !ctx->pool && ctx->dev.gpu && format == QR_FORMAT_PNG &&
                            o.png_level == QR_PNG_LEVEL_DEFAULT && bytes >= QR_GPU_PNG_AUTO_BYTES
                        ? QR_PNG_DEFLATE_PORTABLE
                        : QR_PNG_DEFLATE_ZLIB;
    }
    opts = &o;
    if (!stream)
        return qr_image_write_as(img, path, format, opts, err);
    if (ctx->pool) {
        /* a sequence: the file rows into a free buffer, written by the pool */
        void *rows = NULL;
        int slot = 0;
        qr_status st = job_frame_pool_take(ctx->pool, &rows, &slot, err);
        if (st == QR_OK)
            st = qr_gpu_render(ctx->r, ctx->gs, &ctx->params, ctx->mode, err);
        if (st == QR_OK)
            st = qr_gpu_renderer_timing(ctx->r, &ctx->timing, err);
        if (st == QR_OK)
            st = qr_gpu_renderer_read_rows(ctx->r, format, opts && opts->alpha, rows, err);
        if (st == QR_OK)
            st = job_frame_pool_submit(ctx->pool, slot, path, opts, err);
        return st;
    }
    qr_image_writer *w = NULL;
    qr_status st = qr_image_writer_open(path, format, ctx->width, ctx->height, opts, &w, err);
    if (st == QR_OK && !ctx->dev.gpu)
        st = write_cpu_bands(ctx, scene, w, err);
    else if (st == QR_OK && ctx->chunked) /* rendered already, chunk by chunk */
        st = qr_gpu_renderer_write(ctx->r, w, err);
    else if (st == QR_OK)
        st = qr_gpu_render_write(ctx->r, ctx->gs, &ctx->params, ctx->mode, w, err);
    if (!ctx->chunked)
        memset(&ctx->timing, 0, sizeof ctx->timing);
    if (st == QR_OK && ctx->dev.gpu && !ctx->band_rows && !ctx->chunked)
        st = qr_gpu_renderer_timing(ctx->r, &ctx->timing, err);
    if (st == QR_OK)
        return qr_image_writer_close(w, err);
    qr_image_writer_abort(w);
    return st;
}
