/* job.c — quadrender/job.h: a job's params checked, its plan (the device,
 * the lanes), then its frames: on one device here (job_ctx.c), over
 * several GPUs or processes in job_split.c.
 *
 * One device: load the scene -> for each frame: job_seek, job_render,
 * write (or hand the image to on_frame). On the GPU the scene is uploaded
 * once and stepped there between frames; a sequence of files the GPU
 * renders whole is encoded by a pool of threads (frame_pool.c) while the
 * next frames render.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/atomic_file.h"
#include "job/job_ctx.h"
#include "job/job_mpi.h"
#include "job/job_split.h"
#include "quadrender/job.h"
#include "quadrender/memory.h"
#include "quadrender/text.h"
#include "quadrender/threads.h"

void qr_job_params_init(qr_job_params *p)
{
    memset(p, 0, sizeof *p);
    p->width = p->height = 1024;
    p->mode = QR_RENDER_FAST;
    qr_index_params_default(&p->index);
    p->device = QR_JOB_AUTO;
    p->format = QR_FORMAT_UNKNOWN;
    p->png_level = QR_PNG_LEVEL_DEFAULT;
    p->png_deflate = QR_PNG_DEFLATE_AUTO;
}

qr_status qr_job_check_device(const char *name, const char *text, qr_job_device *out,
                              qr_error *err)
{
    static const char *const words[] = {"auto", "gpu", "cpu", "cpu-reference"};
    static const qr_job_device devices[] = {QR_JOB_AUTO, QR_JOB_GPU, QR_JOB_CPU,
                                            QR_JOB_CPU_REFERENCE};
    int i = 0;
    qr_status st = qr_text_check_word(name, text, words, 4, "auto, gpu, cpu or cpu-reference", &i, err);
    if (st == QR_OK)
        *out = devices[i];
    return st;
}

qr_status qr_job_check_frames(const char *name, const char *text, int64_t *first, int64_t *last,
                              qr_error *err)
{
    static const char expected[] = "A:B with frame numbers 0 <= A <= B <= 2147483647";
    const char *colon = text ? strchr(text, ':') : NULL;
    char a_text[32];
    size_t len = colon ? (size_t)(colon - text) : 0;
    if (!colon || len >= sizeof a_text)
        return qr_text_refuse(name, text, expected, err);
    memcpy(a_text, text, len);
    a_text[len] = '\0';
    uint64_t a, b;
    if (!qr_text_parse_u64(a_text, QR_SCENE_MAX_FRAME, &a) ||
        !qr_text_parse_u64(colon + 1, QR_SCENE_MAX_FRAME, &b) || a > b)
        return qr_text_refuse(name, text, expected, err);
    *first = (int64_t)a;
    *last = (int64_t)b;
    return QR_OK;
}

qr_status qr_job_check_chunk(const char *name, const char *text, int32_t *out, qr_error *err)
{
    return qr_text_check_int32(name, text, 1, QR_SCENE_MAX_CIRCLES, QR_UINT_RANGE,
                               "a number of circles from 1 to 200000000", out, err);
}

qr_status qr_job_auto_chunk(const char *scene_name, int32_t width, int32_t height, int32_t *chunk,
                            qr_error *err)
{
    *chunk = 0;
    const size_t len = scene_name ? strlen(scene_name) : 0;
    if (len < 5 || strcasecmp(scene_name + len - 4, ".npy"))
        return QR_OK;
    qr_scene_stream *sm = NULL;
    qr_status st = qr_scene_stream_open(scene_name, &sm, err);
    if (st != QR_OK)
        return st;
    const uint64_t n = (uint64_t)qr_scene_stream_circles(sm);
    qr_scene_stream_close(sm);
    const uint64_t image = (uint64_t)width * (uint64_t)height * 4 * sizeof(float);
    const uint64_t half = qr_host_memory_available() / 2;
    if (n <= QR_SCENE_MAX_CIRCLES && (n * QR_JOB_CIRCLE_BYTES + image <= half || n == 0))
        return QR_OK;
    uint64_t c = half > image ? (half - image) / QR_JOB_CIRCLE_BYTES : 0;
    c = c < 65536 ? 65536 : c > QR_SCENE_MAX_CIRCLES ? QR_SCENE_MAX_CIRCLES : c;
    *chunk = (int32_t)c;
    return QR_OK;
}

/* The params' own sense, before anything is touched. */
static qr_status check_params(const qr_job_params *p, qr_error *err)
{
    /* an image held whole: handed to on_frame, cropped, or drawn in chunks */
    const int32_t most = p->on_frame || p->keep_aspect || p->chunk_circles > 0
                             ? QR_IMAGE_MAX_DIM
                             : QR_IMAGE_BANDS_MAX_DIM;
    if (p->width < 1 || p->height < 1 || p->width > most || p->height > most)
        return qr_fail(err, QR_ERR_INVALID, "image of %dx%d: each side from 1 to %d",
                       (int)p->width, (int)p->height, (int)most);
    if (p->first < 0 || p->last < p->first)
        return qr_fail(err, QR_ERR_INVALID, "frames %lld to %lld: expected 0 <= first <= last",
                       (long long)p->first, (long long)p->last);
    if (!p->scene && !p->scene_name && !p->stream)
        return qr_fail(err, QR_ERR_INVALID, "no scene: set scene, scene_name or stream");
    if (p->chunk_circles < 0 || p->chunk_circles > QR_SCENE_MAX_CIRCLES)
        return qr_fail(err, QR_ERR_INVALID, "chunks of %ld circles: expected 1 to %d (0: none)",
                       (long)p->chunk_circles, QR_SCENE_MAX_CIRCLES);
    if (p->stream && !p->scene && !p->chunk_circles)
        return qr_fail(err, QR_ERR_INVALID, "a stream is read in chunks: set chunk_circles");
    if (p->chunk_circles && p->ngpus > 1)
        return qr_fail(err, QR_ERR_INVALID, "a scene in chunks renders on one device, not on %d GPUs",
                       p->ngpus);
    if (!p->output == !p->on_frame)
        return qr_fail(err, QR_ERR_INVALID, "expected one of output and on_frame");
    if (p->mode != QR_RENDER_FAST && p->mode != QR_RENDER_EXACT)
        return qr_fail(err, QR_ERR_INVALID, "render mode %d: expected fast or exact", (int)p->mode);
    if (p->device < QR_JOB_AUTO || p->device > QR_JOB_CPU_REFERENCE)
        return qr_fail(err, QR_ERR_INVALID, "device %d: expected auto, gpu, cpu or cpu-reference",
                       (int)p->device);
    if (p->ngpus < 0 || p->ngpus > QR_JOB_MAX_GPUS)
        return qr_fail(err, QR_ERR_INVALID, "%d GPUs: expected 0 to %d", p->ngpus,
                       QR_JOB_MAX_GPUS);
    for (int i = 0; i < p->ngpus; i++)
        if (p->gpus[i] < 0)
            return qr_fail(err, QR_ERR_INVALID, "GPU %d: not a CUDA device number", p->gpus[i]);
    if (p->ngpus > 1 && (p->device == QR_JOB_CPU || p->device == QR_JOB_CPU_REFERENCE))
        return qr_fail(err, QR_ERR_INVALID, "several GPUs: not on the CPU");
    if (p->format < QR_FORMAT_UNKNOWN || p->format > QR_FORMAT_PFM)
        return qr_fail(err, QR_ERR_INVALID, "image format %d: expected png, ppm or pfm",
                       (int)p->format);
    if (p->png_level < 0 || p->png_level > 9)
        return qr_fail(err, QR_ERR_INVALID, "PNG level %d: expected 0 to 9", p->png_level);
    if (p->png_deflate < QR_PNG_DEFLATE_AUTO || p->png_deflate > QR_PNG_DEFLATE_PORTABLE)
        return qr_fail(err, QR_ERR_INVALID, "deflate encoder %d: expected auto, zlib or portable",
                       (int)p->png_deflate);
    if (p->png_deflate == QR_PNG_DEFLATE_PORTABLE && p->png_level != QR_PNG_LEVEL_DEFAULT)
        return qr_fail(err, QR_ERR_INVALID, "PNG level %d: the portable encoder has no levels",
                       p->png_level);
    if (p->plan_trials < 0 || p->plan_trials > QR_PLAN_TRIALS_MAX)
        return qr_fail(err, QR_ERR_INVALID, "plan of %d frames a candidate: expected 0 to 64",
                       (int)p->plan_trials);
    char path[JOB_PATH_MAX];
    if (p->output && job_frame_path(p->output, p->first, path, sizeof path, err) != QR_OK)
        return err ? err->status : QR_ERR_INVALID;
    /* a level is PNG's: asked of another format it is refused, not ignored */
    const qr_image_format f = p->format != QR_FORMAT_UNKNOWN ? p->format
                              : p->output ? qr_image_format_from_path(path) : QR_FORMAT_UNKNOWN;
    if (p->png_level != QR_PNG_LEVEL_DEFAULT && p->output && f != QR_FORMAT_PNG &&
        f != QR_FORMAT_UNKNOWN)
        return qr_fail(err, QR_ERR_INVALID, "PNG level %d: only with PNG output", p->png_level);
    return qr_index_params_check(&p->index, err);
}

qr_status qr_job_plan_of(const qr_job_params *p, qr_job_plan *plan, qr_error *err)
{
    memset(plan, 0, sizeof *plan);
    plan->lanes = plan->processes = 1;
    qr_status st = check_params(p, err);
    job_mpi m;
    if (st == QR_OK)
        st = job_mpi_start(&m, err);
    if (st != QR_OK)
        return st;
    plan->processes = m.size;
    plan->rank = m.rank;
    if (m.size > 1 && p->chunk_circles && (p->first != p->last || p->on_frame))
        return qr_fail(err, QR_ERR_INVALID,
                       "a scene in chunks over several processes: one image to a file only");
    if (m.size > 1 && p->chunk_circles && p->device == QR_JOB_GPU)
        return qr_fail(err, QR_ERR_INVALID, "a scene in chunks over several processes renders on "
                       "their CPUs, not on GPUs");
    if (m.size > 1 && p->chunk_circles && p->device == QR_JOB_AUTO)
        snprintf(plan->note, sizeof plan->note, "a scene in chunks renders on the CPU of each "
                 "process (not on a GPU yet)");
    if (m.size > 1) {
        plan->lanes = m.size;
        return QR_OK;
    }
    if (p->ngpus > 1 && qr_gpu_count() > 0) {
        plan->lanes = p->ngpus;
        return QR_OK;
    }
    /* no GPU to split over: QR_JOB_GPU fails as it would alone, AUTO
     * renders in this one process on the CPU, saying so */
    if (p->ngpus > 1 && p->device == QR_JOB_GPU)
        return qr_fail(err, QR_ERR_NO_GPU, "several GPUs: no CUDA device found");
    if (p->ngpus == 1 && p->device != QR_JOB_CPU && p->device != QR_JOB_CPU_REFERENCE)
        qr_gpu_select(p->gpus[0], NULL);
    job_device d;
    if ((st = qr_job_choose_device(p->device, "rendering", &d, err)) != QR_OK)
        return st;
    plan->gpu = d.gpu;
    plan->info = d.info;
    snprintf(plan->where, sizeof plan->where, "%s", d.where);
    snprintf(plan->note, sizeof plan->note, "%s", d.note);
    return QR_OK;
}

/* --aspect keep on a W x H image: the square of the longer side is
 * rendered (every renderer's normalized coordinates then scale both axes
 * alike, so circles stay round) and the centred W x H window of it is
 * kept: rows and columns (S - W) / 2 and (S - H) / 2 on. */
static void crop_centre(const qr_image *square, qr_image *out)
{
    const int32_t ox = (square->width - out->width) / 2, oy = (square->height - out->height) / 2;
    for (int32_t j = 0; j < out->height; j++)
        memcpy(out->rgba + (size_t)j * (size_t)out->width * 4,
               square->rgba + ((size_t)(j + oy) * (size_t)square->width + (size_t)ox) * 4,
               (size_t)out->width * 4 * sizeof(float));
}

/* One device's frames: what stays from frame to frame. */
typedef struct single {
    job_state *st;
    job_ctx ctx;
    qr_image *img, *square; /* the host image (not streamed), the square (crop) */
    bool crop, stream;
    int32_t chunk;          /* circles a chunk (the params', or a scene the GPU cannot hold), or 0 */
    qr_job_stage stage;     /* of a failure */
    qr_plan plan;           /* plan_trials: the plan of the first frame */
    bool planned;
} single;

/* The renderer and the host images; the START report. */
static qr_status single_start(single *s, const qr_job_plan *plan, qr_error *err)
{
    const qr_job_params *p = s->st->p;
    job_ctx *ctx = &s->ctx;
    ctx->mode = p->mode;
    ctx->params = p->index;
    ctx->gpu_memory = p->gpu_memory;
    ctx->stage_timing = p->stage_timing;
    ctx->on_seek = p->on_seek;
    ctx->seek_user = p->user;
    qr_status st = qr_job_choose_device(plan->gpu ? QR_JOB_GPU : p->device, "rendering", &ctx->dev,
                                        err);
    if (st != QR_OK)
        return st;
    snprintf(ctx->dev.note, sizeof ctx->dev.note, "%s", plan->note);
    /* the image rendered: the output itself, or with keep_aspect on a
     * non-square image the square of its longer side (crop_centre); it is
     * streamed out in bands unless it is cropped or handed to on_frame */
    const int32_t side = p->width > p->height ? p->width : p->height;
    s->crop = p->keep_aspect && p->width != p->height;
    /* chunks: the params', or on the GPU those of a scene it cannot hold
     * with its index (job_gpu_auto_chunk); there the image stays on the
     * device and streams out from it */
    s->chunk = p->chunk_circles;
    if (!s->chunk && ctx->dev.gpu && !s->crop)
        s->chunk = job_gpu_auto_chunk(ctx, s->st->scene, p->width, p->height);
    ctx->chunked = s->chunk && ctx->dev.gpu;
    s->stream = !s->crop && !p->on_frame && (!s->chunk || ctx->chunked);
    if ((!s->stream && (st = qr_image_create(p->width, p->height, &s->img, err)) != QR_OK) ||
        (s->crop && (st = qr_image_create(side, side, &s->square, err)) != QR_OK) ||
        (st = job_ctx_start(ctx, s->st->scene, s->crop ? side : p->width,
                            s->crop ? side : p->height, s->stream, s->st->format, err)) != QR_OK)
        return st;
    /* A GPU sequence of named files (not a stream) of whole images: each
     * file is encoded on one core while the next frames render, up to
     * 1 GiB of frames waiting. Without it (frames too large) every frame is
     * encoded on all cores in turn. */
    char a[JOB_PATH_MAX], b[JOB_PATH_MAX];
    if (p->first < p->last && ctx->dev.gpu && s->stream && !ctx->band_rows && !ctx->chunked &&
        job_frame_path(p->output, p->first, a, sizeof a, NULL) == QR_OK &&
        job_frame_path(p->output, p->first + 1, b, sizeof b, NULL) == QR_OK && strcmp(a, b)) {
        const int workers = qr_threads() < 32 ? qr_threads() : 32;
        if (job_frame_pool_start(s->st->format, s->st->alpha, p->width, p->height, p->png_level, p->png_deflate, workers,
                                 (size_t)1 << 30, &ctx->pool, NULL) != QR_OK)
            ctx->pool = NULL;
    }
    qr_job_progress pr = {.event = QR_JOB_START, .scene = s->st->scene,
                          .where = ctx->dev.where, .note = ctx->dev.note,
                          .gpu = ctx->dev.gpu, .reference = ctx->dev.reference, .lanes = 1,
                          .band_rows = ctx->band_rows, .upload_ms = ctx->upload_ms,
                          .frame = p->first,
                          /* on the GPU, what it draws at once (job_render_chunks) */
                          .chunk_circles = ctx->chunked && ctx->gpu_chunk < s->chunk ? ctx->gpu_chunk
                                                                                     : s->chunk,
                          .circles = p->stream && !p->scene ? qr_scene_stream_circles(p->stream)
                                                            : s->st->scene->n};
    if (!job_report(s->st, &pr, 0))
        return qr_fail(err, QR_ERR_CANCELLED, "cancelled");
    return QR_OK;
}

/* Frame k: seek, render, write or hand over; its report. */
static qr_status single_frame(single *s, int64_t k, double *gpu_ms, qr_error *err)
{
    const qr_job_params *p = s->st->p;
    job_ctx *ctx = &s->ctx;
    char path[JOB_PATH_MAX];
    qr_job_progress pr = {.event = QR_JOB_FRAME, .frame = k, .path = p->output ? path : NULL};
    s->stage = QR_JOB_STAGE_OUTPUT;
    qr_status st = p->output ? job_frame_path(p->output, k, path, sizeof path, err) : QR_OK;
    if (st != QR_OK)
        return st;
    s->stage = QR_JOB_STAGE_RENDER;
    const double t1 = job_now_ms();
    if ((st = job_seek(ctx, s->st->scene, k, err)) != QR_OK)
        return st;
    /* a plan, on the first frame's scene: its settings for every frame */
    if (k == p->first && p->plan_trials && ctx->dev.gpu && !ctx->band_rows && !ctx->chunked) {
        if ((st = qr_gpu_renderer_plan(ctx->r, ctx->gs, &ctx->params, ctx->mode, p->plan_trials,
                                       &s->plan, err)) != QR_OK)
            return st;
        s->planned = true;
        ctx->params = s->plan.params[s->plan.chosen];
    }
    const double t2 = job_now_ms();
    qr_image *into = s->crop ? s->square : s->img;
    st = s->chunk ? job_render_chunks(ctx, s->st->scene, p->scene ? NULL : p->stream, s->chunk,
                                      into, err)
                          : job_render(ctx, s->st->scene, into, err);
    if (st != QR_OK)
        return st;
    if (s->crop)
        crop_centre(s->square, s->img);
    const double t3 = job_now_ms();
    if (p->on_frame) {
        if (p->on_frame(p->user, k, s->img) != 0) {
            atomic_store(&s->st->cancelled, 1);
            return qr_fail(err, QR_ERR_CANCELLED, "cancelled");
        }
    } else {
        s->stage = QR_JOB_STAGE_OUTPUT;
        job_png_meta meta;
        qr_image_write_options opts = qr_image_write_options_default();
        opts.png_level = p->png_level;
        opts.deflate = p->png_deflate; /* AUTO: job_write_frame decides */
        job_png_text(&meta, s->st, k, &opts);
        if ((st = job_write_frame(ctx, s->st->scene, s->img, s->stream, path, s->st->format,
                                  &opts, err)) != QR_OK)
            return st;
    }
    const double t4 = job_now_ms();
    pr.seek_ms = t2 - t1;
    pr.render_ms = t3 - t2;
    pr.write_ms = t4 - t3;
    pr.gpu = ctx->dev.gpu;
    pr.reference = ctx->dev.reference;
    pr.band_rows = ctx->band_rows;
    pr.gpu_timing = ctx->timing;
    pr.cpu_timing = ctx->cpu;
    pr.chunk_read_ms = ctx->chunk_read_ms;
    pr.chunk_upload_ms = ctx->chunk_upload_ms;
    pr.chunk_wait_ms = ctx->chunk_wait_ms;
    if (ctx->dev.gpu)
        *gpu_ms += ctx->timing.frame_ms;
    s->stage = QR_JOB_STAGE_RENDER;
    if (!job_report(s->st, &pr, 1))
        return qr_fail(err, QR_ERR_CANCELLED, "cancelled");
    return QR_OK;
}

/* The job on one device (the CPU, or one GPU). */
static qr_status run_single(job_state *js, const qr_job_plan *plan, qr_job_result *res,
                            qr_error *err)
{
    const qr_job_params *p = js->p;
    single s = {.st = js, .stage = QR_JOB_STAGE_RENDER};
    qr_status st = single_start(&s, plan, err);
    const double t0 = job_now_ms();
    for (int64_t k = p->first; st == QR_OK && k <= p->last; k++) {
        st = single_frame(&s, k, &res->gpu_ms, err);
        res->frames += st == QR_OK;
    }
    if (st == QR_OK && s.ctx.pool) {
        s.stage = QR_JOB_STAGE_OUTPUT;
        st = job_frame_pool_finish(s.ctx.pool, err);
    }
    res->ms = job_now_ms() - t0;
    res->stage = s.stage;
    if (s.planned) {
        res->planned = true;
        res->plan_chosen = s.plan.params[s.plan.chosen];
        res->plan_ms = s.plan.plan_ms;
        res->plan_frame_ms = s.plan.median_ms[s.plan.chosen];
        res->ms -= s.plan.plan_ms;
    }
    job_ctx_free(&s.ctx);
    qr_image_destroy(s.img);
    qr_image_destroy(s.square);
    return st;
}

bool qr_job_mpi_launched(void)
{
    return job_mpi_launched();
}

/* What a split cannot do, refused before any work. */
static qr_status check_split(const qr_job_params *p, const qr_job_plan *plan, qr_error *err)
{
    const char *how = plan->processes > 1 ? "under an MPI launcher" : "over several GPUs";
    char path[JOB_PATH_MAX];
    if (p->keep_aspect && p->width != p->height)
        return qr_fail(err, QR_ERR_INVALID, "%s: keep_aspect only on a square image", how);
    if (p->output && job_frame_path(p->output, p->first, path, sizeof path, err) == QR_OK &&
        qr_atomic_is_direct(path))
        return qr_fail(err, QR_ERR_INVALID, "%s: files only, not -, a FIFO or a device", how);
    return QR_OK;
}

qr_status qr_job_check_format(const qr_scene *scene, qr_image_format format, qr_error *err)
{
    if (!scene->transparent || format == QR_FORMAT_PNG || format == QR_FORMAT_UNKNOWN)
        return QR_OK;
    return qr_fail(err, QR_ERR_INVALID, "%s has no background: only PNG keeps its alpha channel, not %s",
                   scene->name, format == QR_FORMAT_PPM ? "PPM" : "PFM");
}

static qr_status run_job(const qr_job_params *p, qr_job_result *res, qr_error *err);

qr_status qr_job_run(const qr_job_params *p, qr_job_result *res, qr_error *err)
{
    qr_job_result spare;
    res = res ? res : &spare;
    /* a .npy the job loads itself that this process cannot hold whole is
     * drawn in chunks unasked (qr_job_auto_chunk), where chunks can go: one
     * device, an image that can be held whole */
    int32_t chunk = 0;
    qr_error why;
    if (p && !p->scene && !p->stream && p->scene_name && !p->chunk_circles &&
        p->ngpus <= 1 && !qr_job_mpi_launched() &&
        p->width <= QR_IMAGE_MAX_DIM && p->height <= QR_IMAGE_MAX_DIM &&
        qr_job_auto_chunk(p->scene_name, p->width, p->height, &chunk, &why) == QR_OK && chunk) {
        qr_job_params chunked = *p;
        chunked.chunk_circles = chunk;
        qr_status st = qr_scene_stream_open(p->scene_name, &chunked.stream, err);
        if (st != QR_OK) {
            memset(res, 0, sizeof *res);
            res->stage = QR_JOB_STAGE_INPUT;
            return st;
        }
        st = run_job(&chunked, res, err);
        qr_scene_stream_close(chunked.stream);
        return st;
    }
    return run_job(p, res, err);
}

/* qr_job_run, its params as they are. */
static qr_status run_job(const qr_job_params *p, qr_job_result *res, qr_error *err)
{
    memset(res, 0, sizeof *res);
    res->stage = QR_JOB_STAGE_PARAMS;
    qr_job_plan plan;
    qr_status st = qr_job_plan_of(p, &plan, err);
    if (st == QR_OK && plan.lanes > 1)
        st = check_split(p, &plan, err);
    if (st != QR_OK) {
        res->stage = st == QR_ERR_INVALID ? QR_JOB_STAGE_PARAMS : QR_JOB_STAGE_RENDER;
        return st;
    }
    /* the scene: the caller's, a stream's picture (its chunks are read
     * frame by frame), or loaded here (and freed) */
    job_state js = {.p = p, .scene = p->scene};
    if (!js.scene && p->stream)
        js.scene = qr_scene_stream_picture(p->stream);
    const bool loaded = !js.scene;
    res->stage = QR_JOB_STAGE_INPUT;
    if (!js.scene && (st = qr_scene_load(p->scene_name, p->seed, &js.scene, err)) != QR_OK)
        return st;
    js.builtin = p->scene_name && qr_builtin_find(p->scene_name) != NULL;
    js.format = p->format;
    char path[JOB_PATH_MAX];
    if (js.format == QR_FORMAT_UNKNOWN && p->output &&
        job_frame_path(p->output, p->first, path, sizeof path, NULL) == QR_OK)
        js.format = qr_image_format_from_path(path);
    if (js.format == QR_FORMAT_UNKNOWN)
        js.format = QR_FORMAT_PNG;
    /* a scene without a background needs a file with an alpha channel */
    js.alpha = js.scene->transparent && p->output;
    if (p->output && (st = qr_job_check_format(js.scene, js.format, err)) != QR_OK) {
        res->stage = QR_JOB_STAGE_PARAMS;
        if (loaded) qr_scene_destroy(js.scene);
        return st;
    }
    js.mode_text = p->device == QR_JOB_CPU_REFERENCE ? "reference"
                   : p->mode == QR_RENDER_EXACT      ? "exact"
                                                     : "fast";
    pthread_mutex_init(&js.report_mu, NULL);
    atomic_init(&js.cancelled, 0);
    if (plan.lanes > 1) {
        job_mpi m;
        job_mpi_start(&m, NULL); /* started by the plan: the same */
        int all[QR_JOB_MAX_GPUS];
        const int ngpus = p->ngpus ? p->ngpus : 0;
        memcpy(all, p->gpus, sizeof all);
        st = job_split(&js, &m, all, ngpus, res, err);
    } else {
        st = run_single(&js, &plan, res, err);
    }
    pthread_mutex_destroy(&js.report_mu);
    if (loaded)
        qr_scene_destroy(js.scene);
    return st;
}
