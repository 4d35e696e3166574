/* render_split.c — see render_split.h.
 *
 * A lane is one renderer: a GPU driven by a thread of this process
 * (--gpus), or the one GPU (or the CPU) of a process of an MPI job, on
 * the GPU of its rank among the job's processes on the host. There are
 * n lanes in all; lane i is thread i or process i.
 *
 * Frames (--frames A:B): lane i renders frames A + i, A + i + n, ... and
 * writes their files, each as one process would. After every round of n
 * frames the lanes agree whether one failed (a flag; MPI_Allreduce), so
 * that all stop within a frame.
 *
 * One image: the file's rows are cut into stripes on the file's grid
 * (qr_image_part_grid) and dealt to the lanes in turn. A lane renders a
 * stripe and the few rows above it that its encoder needs
 * (qr_gpu_render_rows, or the CPU's band), encodes it into a part
 * (qr_image_part_encode) and hands the part to the writer: this process's
 * main thread, or process 0, which appends the parts in order
 * (qr_image_writer_append_part). No lane holds the image, and the file is
 * byte for byte one process's file: the parts are cut on the encoder's own
 * grid and rendered on the renderer's.
 *
 * Failures: the failing lane says why, tagged with its GPU or rank
 * ("quadrender: GPU 1: ..."); the writer aborts (no file, no temporary
 * file) and tells the other lanes to stop; every process exits with the
 * failing lane's code.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/render_lanes.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/tuning.h"
#include "quadrender/scene.h"
#include "quadrender/threads.h"

int split_fail_now(qr_error *err, qr_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[sizeof err->msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    qr_fail(err, status, "%s", msg);
    return cli_fail(err, CLI_PHASE_RUN);
}

const char *render_split_set_gpus(const char *text, void *dest)
{
    int *g = dest;
    if (!strcmp(text, "all")) {
        g[0] = -1;
        return NULL;
    }
    int n = 0;
    const char *p = text;
    for (;;) {
        uint64_t v = 0;
        char digits[8];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof digits)
            return "all, or CUDA device numbers separated by commas (0,1)";
        memcpy(digits, p, len);
        digits[len] = '\0';
        if (!cli_parse_u64(digits, 1023, &v) || n == RENDER_SPLIT_MAX_GPUS)
            return "all, or up to 64 CUDA device numbers from 0 to 1023 (0,1)";
        g[1 + n++] = (int)v;
        if (!p[len])
            break;
        p += len + 1;
    }
    g[0] = n;
    return NULL;
}

/* ---- one lane's set-up ------------------------------------------------------------ */

/* Makes lane's renderer: on its GPU (the calling thread's device from now
 * on), else the CPU. */
static qr_status lane_start(lane *ln, qr_error *err)
{
    split *sp = ln->sp;
    const render_split_job *job = sp->job;
    render_ctx *ctx = &ln->ctx;
    memset(ctx, 0, sizeof *ctx);
    ctx->mode = job->mode;
    ctx->params = job->params;
    ctx->gpu_memory = job->gpu_memory;
    if (ln->device >= 0) {
        qr_status st = render_ctx_init_device(ctx, ln->device, err);
        if (st != QR_OK)
            return st;
    } else {
        ctx->dev.reference = job->device == CLI_DEVICE_CPU_REFERENCE;
    }
    qr_status st = render_ctx_start(ctx, ln->scene, job->width, job->height, true,
                                    sp->format, err);
    /* Lanes launch their kernels directly: two lanes on one GPU share its
     * legacy stream, on which the scene steps, and a frame graph being
     * captured by one lane would make the other's step fail. */
    if (st == QR_OK && ctx->dev.gpu)
        qr_gpu_renderer_set_graph(ctx->r, 0);
    /* one image: the scene at its frame (a frame split seeks frame by frame) */
    if (st == QR_OK && !job->many)
        st = render_seek(ctx, ln->scene, job->frames.first, err);
    /* frames the GPU renders whole: this process's lanes share one pool of
     * encoders (cli_frames.c), each file on a core of its own */
    if (st == QR_OK && job->many && ctx->dev.gpu && !ctx->band_rows) {
        pthread_mutex_lock(&sp->mu);
        if (!sp->pool) {
            const int workers = sp->threads * sp->nlocal < 32 ? sp->threads * sp->nlocal : 32;
            if (cli_frame_pool_start(sp->format, job->width, job->height,
                                     job->write_opts.png_level, workers, (size_t)1 << 30,
                                     &sp->pool, err) != QR_OK)
                sp->pool = NULL; /* each lane encodes its frames itself */
        }
        ctx->pool = sp->pool;
        pthread_mutex_unlock(&sp->mu);
    }
    return st;
}

static void lane_free(lane *ln)
{
    stripes_stop(ln);
    for (int k = 0; k < 2; k++) {
        if (ln->ctx.dev.gpu)
            qr_gpu_host_free(ln->ahead.rows[k]);
        else
            free(ln->ahead.rows[k]);
    }
    render_ctx_free(&ln->ctx);
    pthread_cond_destroy(&ln->ahead.cv);
    pthread_mutex_destroy(&ln->ahead.mu);
    free(ln->band.rgba);
}

int split_lane_fail(lane *ln, const qr_error *err, cli_phase phase)
{
    cli_set_message_tag(ln->tag);
    int rc = cli_fail(err, phase);
    cli_set_message_tag(NULL);
    return rc;
}

/* ---- frames ----------------------------------------------------------------------- */

/* Renders and writes frame k. */
static int lane_frame(lane *ln, int64_t k)
{
    const split *sp = ln->sp;
    const render_split_job *job = sp->job;
    qr_error err;
    char path[sizeof job->names->prefix + sizeof job->names->suffix + 24];
    cli_frame_name(job->names, k, path, sizeof path);
    if (cli_verbose())
        cli_message("%sframe %lld -> %s", ln->tag, (long long)k, path);
    if (render_seek(&ln->ctx, ln->scene, k, &err) != QR_OK)
        return split_lane_fail(ln, &err, CLI_PHASE_RUN);
    png_meta meta;
    qr_image_write_options opts = job->write_opts;
    render_png_meta(&meta, ln->scene, sp->builtin, job->seed, k, job->width, job->height,
                    ln->ctx.dev.reference ? "reference"
                    : job->mode == QR_RENDER_EXACT ? "exact"
                                                   : "fast",
                    job->keep, &opts);
    if (render_write_frame(&ln->ctx, ln->scene, NULL, true, path, sp->format, &opts, &err) !=
        QR_OK)
        return split_lane_fail(ln, &err, CLI_PHASE_OUTPUT);
    ln->done++;
    return CLI_EXIT_OK;
}

/* Whether any lane failed by the end of this round: its exit code, or 0. */
static int round_end(lane *ln, int rc)
{
    split *sp = ln->sp;
    if (sp->job->mpi->size > 1)
        return cli_mpi_max(sp->job->mpi, rc);
    if (rc) {
        int zero = 0;
        atomic_compare_exchange_strong(&sp->stop, &zero, rc);
    }
    return atomic_load(&sp->stop);
}

/* Lane's frames, in rounds of n. */
static int lane_frames(lane *ln)
{
    const render_split_job *job = ln->sp->job;
    const int64_t first = job->frames.first, count = job->frames.last - first + 1;
    const int64_t rounds = (count + ln->sp->n - 1) / ln->sp->n;
    int rc = CLI_EXIT_OK;
    for (int64_t round = 0; round < rounds; round++) {
        const int64_t k = first + round * ln->sp->n + ln->index;
        if (k < first + count && rc == CLI_EXIT_OK)
            rc = lane_frame(ln, k);
        const int any = round_end(ln, rc);
        if (any)
            return rc ? rc : any;
    }
    return rc;
}

/* ---- the whole job ------------------------------------------------------------------ */

static void *frames_thread(void *arg)
{
    lane *ln = arg;
    cli_set_message_tag(NULL);
    ln->rc = lane_frames(ln);
    return NULL;
}

/* Starts lane's renderer in its own thread (a GPU's current device is the
 * thread's), then runs the frames or the stripes. */
static void *lane_main(void *arg)
{
    lane *ln = arg;
    qr_error err;
    if (lane_start(ln, &err) != QR_OK) {
        ln->rc = split_lane_fail(ln, &err, CLI_PHASE_RUN);
        int zero = 0;
        atomic_compare_exchange_strong(&ln->sp->stop, &zero, ln->rc);
    }
    /* every lane is ready (or failed) before any renders */
    pthread_mutex_lock(&ln->sp->mu);
    ln->sp->ready++;
    pthread_cond_broadcast(&ln->sp->cv);
    while (ln->sp->ready < ln->sp->nlocal)
        pthread_cond_wait(&ln->sp->cv, &ln->sp->mu);
    pthread_mutex_unlock(&ln->sp->mu);
    if (atomic_load(&ln->sp->stop))
        return NULL;
    if (ln->sp->job->many)
        return frames_thread(ln);
    return stripes_lane(ln);
}

/* This process's lanes: a thread per GPU of --gpus. */
static int run_threads(split *sp, qr_image_writer *w)
{
    int started = 0;
    for (int i = 0; i < sp->nlocal; i++) {
        if (pthread_create(&sp->lanes[i].tid, NULL, lane_main, &sp->lanes[i]) != 0) {
            cli_message("cannot start a thread for GPU %d", sp->lanes[i].device);
            atomic_store(&sp->stop, CLI_EXIT_FAILURE);
            /* the lanes started wait for this one to count itself in */
            pthread_mutex_lock(&sp->mu);
            sp->ready += sp->nlocal - i;
            pthread_cond_broadcast(&sp->cv);
            pthread_mutex_unlock(&sp->mu);
            break;
        }
        started++;
    }
    int rc = CLI_EXIT_OK;
    if (w) {
        /* wait until every lane is set up, then write */
        pthread_mutex_lock(&sp->mu);
        while (sp->ready < sp->nlocal)
            pthread_cond_wait(&sp->cv, &sp->mu);
        pthread_mutex_unlock(&sp->mu);
        rc = atomic_load(&sp->stop);
        if (!rc)
            rc = stripes_write_threads(sp, w);
    }
    for (int i = 0; i < started; i++)
        pthread_join(sp->lanes[i].tid, NULL);
    for (int i = 0; i < sp->nlocal && !rc; i++)
        rc = sp->lanes[i].rc;
    return rc ? rc : atomic_load(&sp->stop);
}

/* This process's one lane of an MPI job. */
static int run_process(split *sp, qr_image_writer *w)
{
    lane *ln = &sp->lanes[0];
    const cli_mpi *m = sp->job->mpi;
    qr_error err;
    int rc = CLI_EXIT_OK;
    if (lane_start(ln, &err) != QR_OK)
        rc = split_lane_fail(ln, &err, CLI_PHASE_RUN);
    if ((rc = cli_mpi_max(m, rc)) != CLI_EXIT_OK)
        return rc;
    if (sp->job->many)
        return lane_frames(ln);
    if (m->rank == 0)
        rc = stripes_write_root(sp, ln, w);
    else
        rc = stripes_send(sp, ln);
    return cli_mpi_max(m, rc);
}

/* The CUDA device of lane i of this process, or -1 for the CPU. Lanes
 * that are threads always have a GPU: they share the host scene, which
 * only the GPU's seeks leave alone (cmd_render.c renders in one process
 * when there is no GPU). */
static int lane_device(const render_split_job *job, int i, int count)
{
    if (job->mpi->size == 1)
        return job->gpus[i];
    if (job->device == CLI_DEVICE_CPU || job->device == CLI_DEVICE_CPU_REFERENCE || count == 0)
        return -1;
    const int k = job->mpi->local_rank;
    return job->ngpus ? job->gpus[k % job->ngpus] : k % count;
}

int render_split(const render_split_job *job)
{
    const cli_mpi *m = job->mpi;
    split sp;
    memset(&sp, 0, sizeof sp);
    sp.job = job;
    sp.nlocal = m->size > 1 ? 1 : job->ngpus;
    sp.n = m->size > 1 ? m->size : job->ngpus;
    pthread_mutex_init(&sp.mu, NULL);
    pthread_cond_init(&sp.cv, NULL);
    atomic_init(&sp.stop, 0);
    qr_error err;
    int rc = CLI_EXIT_OK;
    const int count = qr_gpu_count();
    if (count == 0 && job->device == CLI_DEVICE_GPU)
        rc = split_fail_now(&err, QR_ERR_NO_GPU, "--device gpu: no usable GPU");
    sp.scene = job->scene;
    if ((rc = cli_mpi_max(m, rc)) != CLI_EXIT_OK)
        return rc;
    sp.builtin = qr_builtin_find(job->scene_arg) != NULL;
    sp.format = job->format;
    if (sp.format == QR_FORMAT_UNKNOWN) {
        char path[sizeof job->names->prefix + sizeof job->names->suffix + 24];
        cli_frame_name(job->names, job->frames.first, path, sizeof path);
        sp.format = qr_image_format_from_path(path);
        if (sp.format == QR_FORMAT_UNKNOWN)
            sp.format = QR_FORMAT_PNG;
    }
    /* the host's cores, shared by the lanes on it */
    const int on_host = m->size > 1 ? m->local_size : sp.nlocal;
    sp.threads = qr_threads() / on_host > 0 ? qr_threads() / on_host : 1;
    const int cores = cli_cores_allowed();
    if (m->size > 1 && cores > 0 && cores < sp.threads && m->rank == 0)
        cli_info("each process may run on %d core%s (the launcher binds it): `mpirun "
                 "--bind-to none` gives its %d threads the host's cores",
                 cores, cores == 1 ? "" : "s", sp.threads);
    sp.lanes = calloc((size_t)sp.nlocal, sizeof *sp.lanes);
    if (!sp.lanes) {
        return split_fail_now(&err, QR_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < sp.nlocal; i++) {
        lane *ln = &sp.lanes[i];
        ln->sp = &sp;
        ln->index = m->size > 1 ? m->rank : i;
        ln->device = lane_device(job, i, count);
        ln->scene = sp.scene;
        pthread_mutex_init(&ln->ahead.mu, NULL);
        pthread_cond_init(&ln->ahead.cv, NULL);
        if (m->size > 1)
            snprintf(ln->tag, sizeof ln->tag, "rank %d: ", m->rank);
        else
            snprintf(ln->tag, sizeof ln->tag, "GPU %d: ", ln->device);
    }
    if (!job->many)
        stripes_plan(&sp);

    const double t0 = cli_now_ms();
    char where[64];
    snprintf(where, sizeof where, "%d %s%s", sp.n,
             m->size > 1 ? "process" : "GPU", sp.n == 1 ? "" : m->size > 1 ? "es" : "s");
    /* the one image's writer: this process's, or process 0's */
    qr_image_writer *w = NULL;
    char path[sizeof job->names->prefix + sizeof job->names->suffix + 24];
    cli_frame_name(job->names, job->frames.first, path, sizeof path);
    png_meta meta;
    if (!job->many && m->rank == 0) {
        qr_image_write_options opts = job->write_opts;
        render_png_meta(&meta, sp.scene, sp.builtin, job->seed, job->frames.first, job->width,
                        job->height,
                        job->device == CLI_DEVICE_CPU_REFERENCE ? "reference"
                        : job->mode == QR_RENDER_EXACT          ? "exact"
                                                                : "fast",
                        job->keep, &opts);
        sp.parts = calloc((size_t)sp.nstripes, sizeof *sp.parts);
        sp.part_len = calloc((size_t)sp.nstripes, sizeof *sp.part_len);
        sp.part_rc = calloc((size_t)sp.nstripes, sizeof *sp.part_rc);
        if (!sp.parts || !sp.part_len || !sp.part_rc)
            rc = split_fail_now(&err, QR_ERR_NOMEM, "out of memory");
        else if (qr_image_writer_open(path, sp.format, job->width, job->height, &opts, &w,
                                      &err) != QR_OK)
            rc = cli_fail(&err, CLI_PHASE_OUTPUT);
        if (rc == CLI_EXIT_OK)
            cli_info("%s (%d circles) %dx%d frame %lld in %d stripes of %d rows on %s -> %s",
                     sp.scene->name, (int)sp.scene->n, (int)job->width, (int)job->height,
                     (long long)job->frames.first, (int)sp.nstripes, (int)sp.stripe_rows, where,
                     path);
    } else if (m->rank == 0) {
        cli_info("%s (%d circles) %dx%d frames %lld to %lld on %s", sp.scene->name,
                 (int)sp.scene->n, (int)job->width, (int)job->height,
                 (long long)job->frames.first, (long long)job->frames.last, where);
    }
    if ((rc = cli_mpi_max(m, rc)) == CLI_EXIT_OK) {
        for (int i = 0; i < sp.nlocal; i++) {
            if (!job->many && stripes_buffers(&sp.lanes[i], &err) != QR_OK) {
                rc = split_lane_fail(&sp.lanes[i], &err, CLI_PHASE_RUN);
                break;
            }
        }
        rc = cli_mpi_max(m, rc);
    }
    if (rc == CLI_EXIT_OK)
        rc = m->size > 1 ? run_process(&sp, w) : run_threads(&sp, w);

    /* frames: the files queued are written (or the failure is the pool's) */
    if (sp.pool && rc == CLI_EXIT_OK && cli_frame_pool_finish(sp.pool, &err) != QR_OK)
        rc = cli_fail(&err, CLI_PHASE_OUTPUT);
    for (int i = 0; i < sp.nlocal; i++)
        sp.lanes[i].ctx.pool = NULL; /* the pool is freed once, below */
    cli_frame_pool_free(sp.pool);
    rc = cli_mpi_max(m, rc);
    if (w && rc == CLI_EXIT_OK && qr_image_writer_close(w, &err) != QR_OK)
        rc = cli_fail(&err, CLI_PHASE_OUTPUT);
    else if (w && rc != CLI_EXIT_OK)
        qr_image_writer_abort(w);
    rc = cli_mpi_max(m, rc);
    if (rc == CLI_EXIT_OK) {
        for (int i = 0; i < sp.nlocal; i++) {
            const lane *ln = &sp.lanes[i];
            if (cli_verbose() && !job->many)
                cli_message("%s%lld stripes: render %.1f ms, encode %.1f ms", ln->tag,
                            (long long)ln->done, ln->render_ms, ln->encode_ms);
        }
        if (m->rank == 0)
            cli_info("%s in %.1f ms on %s", job->many ? "frames" : "image", cli_now_ms() - t0,
                     where);
    }
    for (int i = 0; i < sp.nlocal; i++)
        lane_free(&sp.lanes[i]);
    for (int32_t s = 0; sp.parts && s < sp.nstripes; s++)
        free(sp.parts[s]);
    free(sp.parts);
    free(sp.part_len);
    free(sp.part_rc);
    free(sp.lanes);
    pthread_cond_destroy(&sp.cv);
    pthread_mutex_destroy(&sp.mu);
    return rc;
}
