/* job_split.c — see job_split.h.
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
 * Failures: the failing lane records why, tagged with its GPU or rank
 * ("GPU 1: ..."); the writer aborts (no file, no temporary file) and tells
 * the other lanes to stop; every process answers the failing lane's
 * status. A cancellation (a progress callback's answer) is a failure of
 * its own, QR_ERR_CANCELLED.
 */
#define _POSIX_C_SOURCE 200809L
#include "job/job_split.h"

#include "job/job_lanes.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic_file.h"
#include "gpu/tuning.h"
#include "quadrender/scene.h"
#include "quadrender/threads.h"

/* ---- one lane's set-up ------------------------------------------------------------ */

/* Makes lane's renderer: on its GPU (the calling thread's device from now
 * on), else the CPU. */
static qr_status lane_start(lane *ln, qr_error *err)
{
    split *sp = ln->sp;
    const qr_job_params *job = sp->job;
    job_ctx *ctx = &ln->ctx;
    memset(ctx, 0, sizeof *ctx);
    ctx->mode = job->mode;
    ctx->params = job->index;
    ctx->gpu_memory = job->gpu_memory;
    ctx->stage_timing = job->stage_timing;
    if (ln->device >= 0) {
        qr_status st = job_ctx_init_device(ctx, ln->device, err);
        if (st != QR_OK)
            return st;
    } else {
        ctx->dev.reference = job->device == QR_JOB_CPU_REFERENCE;
    }
    /* frames to a callback: whole images on the host */
    qr_status st = job_ctx_start(ctx, ln->scene, job->width, job->height, !job->on_frame,
                                 sp->format, err);
    if (st == QR_OK && job->on_frame)
        st = qr_image_create(job->width, job->height, &ln->image, err);
    /* Lanes launch their kernels directly: two lanes on one GPU share its
     * legacy stream, on which the scene steps, and a frame graph being
     * captured by one lane would make the other's step fail. */
    if (st == QR_OK && ctx->dev.gpu)
        qr_gpu_renderer_set_graph(ctx->r, 0);
    /* one image: the scene at its frame (a frame split seeks frame by frame),
     * in chunks planned once for all the lane's stripes */
    if (st == QR_OK && !sp->many)
        st = job_seek(ctx, ln->scene, job->first, err);
    if (st == QR_OK && !sp->many && job->chunk_circles)
        st = job_chunks_plan(ctx, ln->scene, job->scene ? NULL : job->stream, job->chunk_circles,
                             &ln->chunks, err);
    /* frames the GPU renders whole: this process's lanes share one pool of
     * encoders (frame_pool.c), each file on a core of its own */
    if (st == QR_OK && sp->many && !job->on_frame && ctx->dev.gpu && !ctx->band_rows) {
        pthread_mutex_lock(&sp->mu);
        if (!sp->pool) {
            const int workers = sp->threads * sp->nlocal < 32 ? sp->threads * sp->nlocal : 32;
            if (job_frame_pool_start(sp->format, sp->st->alpha, job->width, job->height, job->png_level, job->png_deflate,
                                     workers, (size_t)1 << 30, &sp->pool, NULL) != QR_OK)
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
        if (ln->ahead.pinned)
            qr_gpu_host_free(ln->ahead.rows[k]);
        else
            free(ln->ahead.rows[k]);
    }
    job_ctx_free(&ln->ctx);
    qr_image_destroy(ln->image);
    pthread_cond_destroy(&ln->ahead.cv);
    pthread_mutex_destroy(&ln->ahead.mu);
    free(ln->band.rgba);
}

/* ---- frames ----------------------------------------------------------------------- */

/* Renders frame k and writes its file, or hands it to on_frame. */
static int lane_frame(lane *ln, int64_t k)
{
    split *sp = ln->sp;
    const qr_job_params *job = sp->job;
    qr_error err;
    char path[JOB_PATH_MAX] = "";
    qr_job_progress pr = {.frame = k, .path = job->on_frame ? NULL : path};
    if (!job->on_frame && job_frame_path(job->output, k, path, sizeof path, &err) != QR_OK)
        return lane_fail(ln, &err, QR_JOB_STAGE_OUTPUT);
    const double t0 = job_now_ms();
    if (job_seek(&ln->ctx, ln->scene, k, &err) != QR_OK)
        return lane_fail(ln, &err, QR_JOB_STAGE_RENDER);
    const double t1 = job_now_ms();
    pr.seek_ms = t1 - t0;
    if (job->on_frame) {
        if (job_render(&ln->ctx, ln->scene, ln->image, &err) != QR_OK)
            return lane_fail(ln, &err, QR_JOB_STAGE_RENDER);
        pr.render_ms = job_now_ms() - t1;
        /* one frame at a time, whichever lane made it */
        pthread_mutex_lock(&sp->mu);
        const int stop = job->on_frame(job->user, k, ln->image);
        pthread_mutex_unlock(&sp->mu);
        if (stop) {
            atomic_store(&sp->st->cancelled, 1);
            qr_fail(&err, QR_ERR_CANCELLED, "cancelled");
            return split_fail(sp, "", &err, QR_JOB_STAGE_RENDER);
        }
    } else {
        job_png_meta meta;
        qr_image_write_options opts = qr_image_write_options_default();
        opts.png_level = job->png_level;
        opts.deflate = job->png_deflate; /* AUTO: job_write_frame decides */
        job_png_text(&meta, sp->st, k, &opts);
        if (job_write_frame(&ln->ctx, ln->scene, NULL, true, path, sp->format, &opts, &err) !=
            QR_OK)
            return lane_fail(ln, &err, QR_JOB_STAGE_OUTPUT);
        pr.render_ms = job_now_ms() - t1;
    }
    ln->done++;
    return split_report(sp, ln, QR_JOB_FRAME, &pr);
}

/* Whether any lane failed by the end of this round: its exit code, or 0. */
static int round_end(lane *ln, int rc)
{
    split *sp = ln->sp;
    if (sp->mpi->size > 1)
        return job_mpi_max(sp->mpi, rc);
    if (rc) {
        int zero = 0;
        atomic_compare_exchange_strong(&sp->stop, &zero, rc);
    }
    return atomic_load(&sp->stop);
}

/* Lane's frames, in rounds of n. */
static int lane_frames(lane *ln)
{
    const qr_job_params *job = ln->sp->job;
    const int64_t first = job->first, count = job->last - first + 1;
    const int64_t rounds = (count + ln->sp->n - 1) / ln->sp->n;
    int rc = 0;
    for (int64_t round = 0; round < rounds; round++) {
        const int64_t k = first + round * ln->sp->n + ln->index;
        if (k < first + count && rc == 0)
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
    ln->rc = lane_frames(ln);
    return NULL;
}

/* Starts lane's renderer in its own thread (a GPU's current device is the
 * thread's), then runs the frames or the stripes. */
static void *lane_main(void *arg)
{
    lane *ln = arg;
    qr_error err;
    if (lane_start(ln, &err) != QR_OK)
        ln->rc = lane_fail(ln, &err, QR_JOB_STAGE_RENDER);
    /* every lane is ready (or failed) before any renders */
    pthread_mutex_lock(&ln->sp->mu);
    ln->sp->ready++;
    pthread_cond_broadcast(&ln->sp->cv);
    while (ln->sp->ready < ln->sp->nlocal)
        pthread_cond_wait(&ln->sp->cv, &ln->sp->mu);
    pthread_mutex_unlock(&ln->sp->mu);
    if (atomic_load(&ln->sp->stop))
        return NULL;
    if (ln->sp->many)
        return frames_thread(ln);
    return stripes_lane(ln);
}

/* This process's lanes: a thread per GPU of --gpus. */
static int run_threads(split *sp, qr_image_writer *w)
{
    int started = 0;
    for (int i = 0; i < sp->nlocal; i++) {
        if (pthread_create(&sp->lanes[i].tid, NULL, lane_main, &sp->lanes[i]) != 0) {
            qr_error err;
            qr_fail(&err, QR_ERR_NOMEM, "cannot start a thread for GPU %d", sp->lanes[i].device);
            split_fail(sp, "", &err, QR_JOB_STAGE_RENDER);
            /* the lanes started wait for this one to count itself in */
            pthread_mutex_lock(&sp->mu);
            sp->ready += sp->nlocal - i;
            pthread_cond_broadcast(&sp->cv);
            pthread_mutex_unlock(&sp->mu);
            break;
        }
        started++;
    }
    int rc = 0;
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
    const job_mpi *m = sp->mpi;
    qr_error err;
    int rc = 0;
    if (lane_start(ln, &err) != QR_OK)
        rc = lane_fail(ln, &err, QR_JOB_STAGE_RENDER);
    if ((rc = job_mpi_max(m, rc)) != 0)
        return rc;
    if (sp->many)
        return lane_frames(ln);
    if (m->rank == 0)
        rc = stripes_write_root(sp, ln, w);
    else
        rc = stripes_send(sp, ln);
    return job_mpi_max(m, rc);
}

/* The CUDA device of lane i of this process, or -1 for the CPU. Lanes
 * that are threads always have a GPU: they share the host scene, which
 * only the GPU's seeks leave alone (job.c renders in one process when
 * there is no GPU). */
static int lane_device(const split *sp, int i, int count)
{
    if (sp->mpi->size == 1)
        return sp->gpus[i];
    if (sp->job->device == QR_JOB_CPU || sp->job->device == QR_JOB_CPU_REFERENCE || count == 0 ||
        sp->job->chunk_circles) /* chunks are the CPU's */
        return -1;
    const int k = sp->mpi->local_rank;
    return sp->ngpus ? sp->gpus[k % sp->ngpus] : k % count;
}


/* The lanes of this process, named and numbered; one image's stripes. */
static qr_status split_setup(split *sp, qr_error *err)
{
    const job_mpi *m = sp->mpi;
    const int count = qr_gpu_count();
    if (count == 0 && sp->job->device == QR_JOB_GPU)
        return qr_fail(err, QR_ERR_NO_GPU, "no usable GPU");
    sp->lanes = calloc((size_t)sp->nlocal, sizeof *sp->lanes);
    if (!sp->lanes)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory");
    for (int i = 0; i < sp->nlocal; i++) {
        lane *ln = &sp->lanes[i];
        ln->sp = sp;
        ln->index = m->size > 1 ? m->rank : i;
        ln->device = lane_device(sp, i, count);
        ln->scene = sp->scene;
        pthread_mutex_init(&ln->ahead.mu, NULL);
        pthread_cond_init(&ln->ahead.cv, NULL);
        if (m->size > 1)
            snprintf(ln->tag, sizeof ln->tag, "rank %d: ", m->rank);
        else
            snprintf(ln->tag, sizeof ln->tag, "GPU %d: ", ln->device);
    }
    if (!sp->many)
        stripes_plan(sp);
    return QR_OK;
}

/* The files this process writes, checked before any work, as processes on
 * separate machines must check theirs (the job then agrees on a failure):
 * one image's file on process 0, its writer; each lane's frames (its first
 * only in runs past QR_JOB_CHECKED_FRAMES). Answers a failure code. */
static int split_check_outputs(split *sp)
{
    const qr_job_params *job = sp->job;
    char path[JOB_PATH_MAX];
    qr_error err;
    if (!job->output || job->on_frame)
        return 0; /* frames to a callback: no file */
    const bool all = job->last - job->first < QR_JOB_CHECKED_FRAMES;
    for (int i = 0; i < sp->nlocal; i++) {
        lane *ln = &sp->lanes[i];
        if (!sp->many && !(sp->mpi->rank == 0 && i == 0))
            continue; /* one image: the writer's file only */
        const int64_t first = sp->many ? job->first + ln->index : job->first;
        const int64_t last = sp->many && all ? job->last : first;
        for (int64_t k = first; k <= last; k += sp->n)
            if (job_frame_path(job->output, k, path, sizeof path, &err) != QR_OK ||
                qr_atomic_check(path, &err) != QR_OK)
                return lane_fail(ln, &err, QR_JOB_STAGE_OUTPUT);
    }
    return 0;
}

/* Process 0's report of the plan; for one image, its writer (and the
 * stripes' table). Answers a failure code. */
static int split_start(split *sp, qr_image_writer **w)
{
    const qr_job_params *job = sp->job;
    const job_mpi *m = sp->mpi;
    char where[64], note[256] = "", path[JOB_PATH_MAX] = "";
    snprintf(where, sizeof where, "%d %s%s", sp->n, m->size > 1 ? "process" : "GPU",
             sp->n == 1 ? "" : m->size > 1 ? "es" : "s");
    const int cores = job_cores_allowed();
    if (m->size > 1 && cores > 0 && cores < sp->threads)
        snprintf(note, sizeof note,
                 "each process may run on %d core%s (the launcher binds it): `mpirun "
                 "--bind-to none` gives its %d threads the host's cores",
                 cores, cores == 1 ? "" : "s", sp->threads);
    qr_error err;
    int rc = 0;
    if (!sp->many && m->rank == 0) {
        job_png_meta meta;
        qr_image_write_options opts = qr_image_write_options_default();
        opts.png_level = job->png_level;
        opts.deflate = job->png_deflate == QR_PNG_DEFLATE_PORTABLE ? QR_PNG_DEFLATE_PORTABLE
                                                                   : QR_PNG_DEFLATE_ZLIB;
        job_png_text(&meta, sp->st, job->first, &opts);
        sp->parts = calloc((size_t)sp->nstripes, sizeof *sp->parts);
        sp->part_len = calloc((size_t)sp->nstripes, sizeof *sp->part_len);
        sp->part_rc = calloc((size_t)sp->nstripes, sizeof *sp->part_rc);
        if (!sp->parts || !sp->part_len || !sp->part_rc) {
            qr_fail(&err, QR_ERR_NOMEM, "out of memory");
            rc = split_fail(sp, "", &err, QR_JOB_STAGE_RENDER);
        } else if (job_frame_path(job->output, job->first, path, sizeof path, &err) != QR_OK ||
                   qr_image_writer_open(path, sp->format, job->width, job->height, &opts, w,
                                        &err) != QR_OK) {
            rc = split_fail(sp, "", &err, QR_JOB_STAGE_OUTPUT);
        }
    }
    if (rc == 0 && m->rank == 0) {
        qr_job_progress pr = {.scene = sp->scene, .where = where, .note = note,
                              .lanes = sp->n, .rank = m->rank, .frame = job->first,
                              .path = sp->many ? NULL : path,
                              .stripes = sp->many ? 0 : sp->nstripes,
                              .stripe_rows = sp->many ? 0 : sp->stripe_rows,
                              .chunk_circles = job->chunk_circles,
                              .circles = job->stream && !job->scene
                                             ? qr_scene_stream_circles(job->stream)
                                             : sp->scene->n};
        pr.event = QR_JOB_START;
        pr.total = sp->many ? 0 : sp->nstripes;
        if (!job_report(sp->st, &pr, 0)) {
            qr_fail(&err, QR_ERR_CANCELLED, "cancelled");
            rc = split_fail(sp, "", &err, QR_JOB_STAGE_RENDER);
        }
    }
    return rc;
}

/* The end: the frames queued written, the one image's file closed (or
 * aborted), the lanes' totals reported. Answers the job's code. */
static int split_end(split *sp, qr_image_writer *w, int rc)
{
    qr_error err;
    /* frames: the files queued are written (or the failure is the pool's) */
    if (sp->pool && rc == 0 && job_frame_pool_finish(sp->pool, &err) != QR_OK)
        rc = split_fail(sp, "", &err, QR_JOB_STAGE_OUTPUT);
    for (int i = 0; i < sp->nlocal; i++)
        sp->lanes[i].ctx.pool = NULL; /* the pool is freed once, below */
    job_frame_pool_free(sp->pool);
    sp->pool = NULL;
    rc = job_mpi_max(sp->mpi, rc);
    if (w && rc == 0 && qr_image_writer_close(w, &err) != QR_OK)
        rc = split_fail(sp, "", &err, QR_JOB_STAGE_OUTPUT);
    else if (w && rc != 0)
        qr_image_writer_abort(w);
    rc = job_mpi_max(sp->mpi, rc);
    for (int i = 0; rc == 0 && !sp->many && i < sp->nlocal; i++) {
        lane *ln = &sp->lanes[i];
        qr_job_progress pr = {.lane_done = ln->done, .render_ms = ln->render_ms,
                              .write_ms = ln->encode_ms};
        split_report(sp, ln, QR_JOB_LANE, &pr);
    }
    return rc;
}

qr_status job_split(job_state *st, const job_mpi *m, const int *gpus, int ngpus,
                    qr_job_result *res, qr_error *err)
{
    split sp;
    memset(&sp, 0, sizeof sp);
    sp.st = st;
    sp.job = st->p;
    sp.mpi = m;
    sp.gpus = gpus;
    sp.ngpus = ngpus;
    sp.many = st->p->first < st->p->last || st->p->on_frame;
    sp.scene = st->scene;
    sp.format = st->format;
    sp.nlocal = m->size > 1 ? 1 : ngpus;
    sp.n = m->size > 1 ? m->size : ngpus;
    pthread_mutex_init(&sp.mu, NULL);
    pthread_cond_init(&sp.cv, NULL);
    pthread_mutex_init(&sp.fail_mu, NULL);
    atomic_init(&sp.stop, 0);
    /* the host's cores, shared by the lanes on it */
    const int on_host = m->size > 1 ? m->local_size : sp.nlocal;
    sp.threads = qr_threads() / on_host > 0 ? qr_threads() / on_host : 1;
    qr_error e;
    int rc = 0;
    if (split_setup(&sp, &e) != QR_OK)
        rc = split_fail(&sp, "", &e, QR_JOB_STAGE_RENDER);
    else
        rc = split_check_outputs(&sp);
    const double t0 = job_now_ms();
    qr_image_writer *w = NULL;
    if ((rc = job_mpi_max(m, rc)) == 0)
        rc = job_mpi_max(m, split_start(&sp, &w));
    for (int i = 0; rc == 0 && !sp.many && i < sp.nlocal; i++)
        if (stripes_buffers(&sp.lanes[i], &e) != QR_OK)
            rc = lane_fail(&sp.lanes[i], &e, QR_JOB_STAGE_RENDER);
    if ((rc = job_mpi_max(m, rc)) == 0)
        rc = m->size > 1 ? run_process(&sp, w) : run_threads(&sp, w);
    rc = split_end(&sp, w, rc);
    res->ms = job_now_ms() - t0;
    for (int i = 0; sp.lanes && i < sp.nlocal; i++) {
        res->frames += sp.lanes[i].done;
        lane_free(&sp.lanes[i]);
    }
    for (int32_t s = 0; sp.parts && s < sp.nstripes; s++)
        free(sp.parts[s]);
    free(sp.parts);
    free(sp.part_len);
    free(sp.part_rc);
    free(sp.lanes);
    pthread_cond_destroy(&sp.cv);
    pthread_mutex_destroy(&sp.mu);
    pthread_mutex_destroy(&sp.fail_mu);
    if (rc == 0)
        return QR_OK;
    res->stage = job_code_stage(rc);
    /* this process's own failure, else another's, which that one reports */
    res->elsewhere = sp.fail_code == 0;
    if (!res->elsewhere)
        return qr_fail(err, job_code_status(rc), "%s", sp.fail_err.msg);
    return qr_fail(err, job_code_status(rc), "another process of the job failed");
}
