/* job_stripes.c — one image split over lanes (job_split.c): the
 * file's rows cut into stripes on the file's grid and dealt to the lanes in
 * turn; each lane renders its stripes one ahead of its encoder (a thread
 * of its own, two row buffers), encodes each into a part and hands it to
 * the writer (lane 0's thread or process 0), which appends the parts in
 * order. See job_split.c for the whole. */
#define _POSIX_C_SOURCE 200809L
#include "job/job_lanes.h"

#include <stdlib.h>
#include <string.h>

#include "image/image_bytes.h"
#include "image/image_parts.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"

/* File rows a stripe holds at most: large enough that the rows rendered
 * again above each (its encoder's context, the render grid) cost little,
 * small enough that every lane gets several, and that a stripe with those
 * rows fits in one region of a GPU band (at most 128 MiB of file rows,
 * render_bands.cu): each region is an index build of its own. */
#define STRIPE_BYTES ((size_t)96 << 20)
#define STRIPES_PER_LANE 4

/* Message kinds from a process to process 0 (job_mpi_send): a stripe's
 * part carries its stripe index (>= 0). */
enum { MSG_END = -1 };

/* ---- one image: stripes ------------------------------------------------------------- */

/* Stripe s's file rows [row0, row1) and the first row its buffer holds
 * (row0 less the encoder's context rows). */
static void stripe_rows(const split *sp, int32_t s, int32_t *first, int32_t *row0, int32_t *row1)
{
    const int32_t h = sp->job->height;
    *row0 = s * sp->stripe_rows;
    *row1 = *row0 + sp->stripe_rows < h ? *row0 + sp->stripe_rows : h;
    *first = *row0 - qr_image_part_context(sp->format, sp->job->width, h, *row0);
}

/* Renders stripe s's rows (with the rows above it its encoder needs) into
 * rows, in the file's layout. */
static qr_status render_stripe(lane *ln, int32_t s, void *rows, qr_error *err)
{
    const split *sp = ln->sp;
    const qr_job_params *job = sp->job;
    int32_t a, row0, row1;
    stripe_rows(sp, s, &a, &row0, &row1);
    if (ln->ctx.dev.gpu)
        return qr_gpu_render_rows(ln->ctx.r, ln->ctx.gs, &job->index, job->mode, sp->format, a,
                                  row1, rows, err);
    /* the image rows (row 0 = bottom) the file rows [a, row1) are */
    const int pfm = sp->format == QR_FORMAT_PFM;
    const int32_t y0 = pfm ? a : job->height - row1, y1 = pfm ? row1 : job->height - a;
    ln->band.width = job->width;
    ln->band.height = row1 - a;
    qr_status st =
        job->chunk_circles
            ? job_render_chunks_rows(&ln->ctx, ln->scene, job->scene ? NULL : job->stream,
                                     &ln->chunks, sp->threads, y0, y1, &ln->band, err)
        : ln->ctx.dev.reference
            ? qr_render_cpu_band(ln->scene, job->width, job->height, y0, y1, &ln->band, err)
            : qr_render_cpu_fast_band(ln->scene, &job->index, job->mode, sp->threads, job->width,
                                      job->height, y0, y1, &ln->band, NULL, err);
    return st ? st : qr_image_file_rows(&ln->band, sp->format, sp->st->alpha, 0, row1 - a, rows, err);
}

/* The lane's renders, one stripe ahead of its encoder: a thread of its own
 * renders the lane's stripes in order, each into the other of two row
 * buffers, while the lane encodes the one before. */
static void *ahead_main(void *arg)
{
    lane *ln = arg;
    ahead *ah = &ln->ahead;
    if (ln->device >= 0) /* the thread renders on the lane's GPU */
        qr_gpu_probe_device(ln->device, NULL, NULL);
    for (int32_t k = 0, s = ln->index; s < ln->sp->nstripes; k++, s += ln->sp->n) {
        pthread_mutex_lock(&ah->mu);
        while (ah->ready == 2 && !ah->stop)
            pthread_cond_wait(&ah->cv, &ah->mu);
        const int stop = ah->stop;
        pthread_mutex_unlock(&ah->mu);
        if (stop)
            break;
        const double t0 = job_now_ms();
        const qr_status st = render_stripe(ln, s, ah->rows[k & 1], &ah->err[k & 1]);
        pthread_mutex_lock(&ah->mu);
        ah->st[k & 1] = st;
        ah->ready++;
        ln->render_ms += job_now_ms() - t0;
        pthread_cond_broadcast(&ah->cv);
        pthread_mutex_unlock(&ah->mu);
        if (st)
            break;
    }
    return NULL;
}

void stripes_stop(lane *ln)
{
    ahead *ah = &ln->ahead;
    if (!ah->started)
        return;
    pthread_mutex_lock(&ah->mu);
    ah->stop = 1;
    pthread_cond_broadcast(&ah->cv);
    pthread_mutex_unlock(&ah->mu);
    pthread_join(ah->tid, NULL);
    ah->started = 0;
}

/* Renders (through the thread ahead) and encodes the lane's next stripe,
 * s, into a part. */
static qr_status lane_stripe(lane *ln, int32_t s, void **part, size_t *len, qr_error *err)
{
    const split *sp = ln->sp;
    ahead *ah = &ln->ahead;
    if (!ah->started) {
        if (pthread_create(&ah->tid, NULL, ahead_main, ln) != 0)
            return qr_fail(err, QR_ERR_NOMEM, "cannot start a thread to render stripes");
        ah->started = 1;
    }
    const int slot = ah->taken & 1;
    pthread_mutex_lock(&ah->mu);
    while (!ah->ready)
        pthread_cond_wait(&ah->cv, &ah->mu);
    qr_status st = ah->st[slot];
    pthread_mutex_unlock(&ah->mu);
    if (st)
        return qr_fail(err, st, "%s", ah->err[slot].msg);
    int32_t a, row0, row1;
    stripe_rows(sp, s, &a, &row0, &row1);
    const double t0 = job_now_ms();
    qr_image_write_options o = qr_image_write_options_default();
    o.png_level = sp->job->png_level;
    o.deflate = sp->job->png_deflate == QR_PNG_DEFLATE_PORTABLE ? QR_PNG_DEFLATE_PORTABLE
                                                                : QR_PNG_DEFLATE_ZLIB;
    o.alpha = sp->st->alpha;
    o.threads = sp->threads;
    st = qr_image_part_encode(sp->format, sp->job->width, sp->job->height, &o, row0, row1,
                              ah->rows[slot], part, len, err);
    ln->encode_ms += job_now_ms() - t0;
    pthread_mutex_lock(&ah->mu);
    ah->taken++;
    ah->ready--;
    pthread_cond_broadcast(&ah->cv);
    pthread_mutex_unlock(&ah->mu);
    if (st == QR_OK)
        ln->done++;
    return st;
}

/* The most context rows any stripe needs. */
static int32_t max_context(const split *sp)
{
    int32_t most = 0;
    for (int32_t s = 1; s < sp->nstripes; s++) {
        int32_t c = qr_image_part_context(sp->format, sp->job->width, sp->job->height,
                                          s * sp->stripe_rows);
        most = c > most ? c : most;
    }
    return most;
}

qr_status stripes_buffers(lane *ln, qr_error *err)
{
    const split *sp = ln->sp;
    const size_t rows = (size_t)sp->stripe_rows + (size_t)max_context(sp);
    ahead *ah = &ln->ahead;
    if (ln->device >= 0) {
        /* page-locked: the rows come back from the GPU at the bus's speed
         * (made before the lane's thread sets its GPU up, so by its device) */
        ah->pinned = 1;
        for (int k = 0; k < 2; k++) {
            qr_status st = qr_gpu_host_alloc(rows * sp->row_bytes, &ah->rows[k], err);
            if (st != QR_OK)
                return st;
        }
        return QR_OK;
    }
    ah->rows[0] = malloc(rows * sp->row_bytes);
    ah->rows[1] = malloc(rows * sp->row_bytes);
    ln->band.rgba = malloc(rows * (size_t)sp->job->width * 4 * sizeof(float));
    if (!ah->rows[0] || !ah->rows[1] || !ln->band.rgba)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory for stripes of %zu rows", rows);
    return QR_OK;
}

/* Threads: a lane's stripes into the table, at most 2n ahead of the writer. */
void *stripes_lane(void *arg)
{
    lane *ln = arg;
    split *sp = ln->sp;
    for (int32_t s = ln->index; s < sp->nstripes; s += sp->n) {
        pthread_mutex_lock(&sp->mu);
        while (s >= sp->next + 2 * sp->n && !atomic_load(&sp->stop))
            pthread_cond_wait(&sp->cv, &sp->mu);
        pthread_mutex_unlock(&sp->mu);
        if (atomic_load(&sp->stop))
            break;
        void *part = NULL;
        size_t len = 0;
        qr_error err;
        int rc = 0;
        if (lane_stripe(ln, s, &part, &len, &err) != QR_OK)
            rc = lane_fail(ln, &err, QR_JOB_STAGE_RENDER);
        pthread_mutex_lock(&sp->mu);
        sp->parts[s] = part;
        sp->part_len[s] = len;
        sp->part_rc[s] = rc ? rc : -1; /* -1: ready */
        pthread_cond_broadcast(&sp->cv);
        pthread_mutex_unlock(&sp->mu);
        if (rc)
            break;
    }
    return NULL;
}

/* Threads: the writer appends the parts in order as the lanes make them. */
int stripes_write_threads(split *sp, qr_image_writer *w)
{
    int rc = 0;
    for (int32_t s = 0; s < sp->nstripes && rc == 0; s++) {
        pthread_mutex_lock(&sp->mu);
        while (!sp->part_rc[s])
            pthread_cond_wait(&sp->cv, &sp->mu);
        void *part = sp->parts[s];
        size_t len = sp->part_len[s];
        rc = sp->part_rc[s] > 0 ? sp->part_rc[s] : 0;
        sp->parts[s] = NULL;
        pthread_mutex_unlock(&sp->mu);
        qr_error err;
        if (rc == 0 && qr_image_writer_append_part(w, part, len, &err) != QR_OK)
            rc = split_fail(sp, "", &err, QR_JOB_STAGE_OUTPUT);
        free(part);
        qr_job_progress pr = {0};
        if (rc == 0)
            rc = split_report(sp, NULL, QR_JOB_STRIPE, &pr);
        pthread_mutex_lock(&sp->mu);
        sp->next = s + 1;
        if (rc) {
            int zero = 0;
            atomic_compare_exchange_strong(&sp->stop, &zero, rc);
        }
        pthread_cond_broadcast(&sp->cv);
        pthread_mutex_unlock(&sp->mu);
    }
    return rc;
}

/* MPI, process 0: its own stripes and the others', appended in order;
 * after a failure the others are told to stop and their messages drained. */
int stripes_write_root(split *sp, lane *ln, qr_image_writer *w)
{
    const job_mpi *m = sp->mpi;
    int rc = 0;
    qr_error err;
    for (int32_t s = 0; s < sp->nstripes && rc == 0; s++) {
        void *part = NULL;
        size_t len = 0;
        const int from = s % sp->n;
        if (from == 0) {
            if (lane_stripe(ln, s, &part, &len, &err) != QR_OK)
                rc = lane_fail(ln, &err, QR_JOB_STAGE_RENDER);
        } else {
            int sender = 0, kind = 0, status = 0;
            if (job_mpi_recv(m, from, &sender, &kind, &status, &part, &len, &err) != QR_OK)
                rc = split_fail(sp, "", &err, QR_JOB_STAGE_RENDER);
            else if (status)
                rc = status; /* the process said why */
            else if (kind != s)
            {
                qr_fail(&err, QR_ERR_IO, "rank %d sent stripe %d for stripe %d", from, kind, (int)s);
                rc = split_fail(sp, "", &err, QR_JOB_STAGE_RENDER);
            }
        }
        if (rc == 0 && qr_image_writer_append_part(w, part, len, &err) != QR_OK)
            rc = split_fail(sp, "", &err, QR_JOB_STAGE_OUTPUT);
        free(part);
        qr_job_progress pr = {0};
        if (rc == 0)
            rc = split_report(sp, NULL, QR_JOB_STRIPE, &pr);
    }
    if (rc)
        job_mpi_stop_all(m);
    /* every other process ends with MSG_END; what comes before it after a
     * failure is dropped */
    for (int ended = 0; ended < m->size - 1;) {
        int sender = 0, kind = 0, status = 0;
        void *data = NULL;
        size_t len = 0;
        if (job_mpi_recv(m, -1, &sender, &kind, &status, &data, &len, &err) != QR_OK) {
            rc = rc ? rc : split_fail(sp, "", &err, QR_JOB_STAGE_RENDER);
            break;
        }
        free(data);
        if (kind == MSG_END)
            ended++;
        else if (status && !rc)
            rc = status;
    }
    return rc;
}

/* MPI, the other processes: their stripes to process 0, then MSG_END. */
int stripes_send(split *sp, lane *ln)
{
    const job_mpi *m = sp->mpi;
    int rc = 0;
    qr_error err;
    for (int32_t s = ln->index; s < sp->nstripes && !job_mpi_stopped(m); s += sp->n) {
        void *part = NULL;
        size_t len = 0;
        if (lane_stripe(ln, s, &part, &len, &err) != QR_OK)
            rc = lane_fail(ln, &err, QR_JOB_STAGE_RENDER);
        qr_status st = job_mpi_send(m, s, rc, part, len, &err);
        free(part);
        if (st != QR_OK && !rc)
            rc = lane_fail(ln, &err, QR_JOB_STAGE_RENDER);
        if (rc)
            break;
    }
    if (job_mpi_send(m, MSG_END, rc, NULL, 0, &err) != QR_OK && !rc)
        rc = lane_fail(ln, &err, QR_JOB_STAGE_RENDER);
    return rc;
}

/* The stripes' height: STRIPE_BYTES of rows on the file's grid, fewer when
 * that leaves a lane fewer than STRIPES_PER_LANE. */
void stripes_plan(split *sp)
{
    const qr_job_params *job = sp->job;
    sp->grid = qr_image_part_grid(sp->format, job->width, job->height);
    sp->row_bytes = (size_t)job->width * (size_t)qr_image_pixel_bytes(sp->format, sp->st->alpha);
    int64_t rows = (int64_t)(STRIPE_BYTES / sp->row_bytes);
    const int64_t share = (job->height + (int64_t)sp->n * STRIPES_PER_LANE - 1) /
                          ((int64_t)sp->n * STRIPES_PER_LANE);
    rows = rows < share ? rows : share;
    rows = (rows + sp->grid - 1) / sp->grid * sp->grid;
    sp->stripe_rows = (int32_t)(rows < sp->grid ? sp->grid : rows);
    sp->nstripes = (int32_t)((job->height + sp->stripe_rows - 1) / sp->stripe_rows);
}
