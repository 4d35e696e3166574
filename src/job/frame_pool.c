/* frame_pool.c — the files of a frame sequence, written by a pool of
 * threads (see frame_pool.h): while the renderer makes frame k + 1, frames k,
 * k - 1, ... are encoded, each on one core, and written each to its own
 * file. A frame's rows wait in one of a fixed number of buffers, so memory
 * stays bounded; the main thread waits for a free buffer when all are
 * queued or being written.
 *
 * Each file is written exactly as a lone frame would be (the writer's bytes
 * do not depend on its thread count); only the order in which the files
 * appear differs, so the pool serves named files, never a stream.
 */
#include "job/frame_pool.h"
#include "common/thread_start.h"
#include "image/image_bytes.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct frame_job {
    unsigned char *rows;
    char path[4096];
    qr_image_text text[8];
    char strings[8][2][512]; /* copies of the text's keys and values */
    int ntext;
} frame_job;

struct job_frame_pool {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_t *threads;
    int nthreads;
    qr_image_format format;
    bool alpha; /* RGBA rows: a PNG that keeps the alpha channel */
    int32_t width, height;
    int png_level;
    qr_png_deflate deflate;
    size_t frame_bytes;
    frame_job *jobs;         /* nbuf of them, each with its buffer */
    int nbuf;
    int *queue, head, count; /* jobs waiting, in submission order */
    int *free_list, nfree;   /* jobs whose buffer is free */
    int busy;                /* jobs being written */
    int stop;
    qr_status status;        /* the first failure */
    qr_error err;
};

static void *worker(void *arg)
{
    job_frame_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->count && !p->stop)
            pthread_cond_wait(&p->changed, &p->lock);
        if (!p->count)
            break;
        const int j = p->queue[p->head];
        p->head = (p->head + 1) % p->nbuf;
        p->count--;
        p->busy++;
        const int failed = p->status != QR_OK;
        pthread_mutex_unlock(&p->lock);

        frame_job *job = &p->jobs[j];
        qr_status st = QR_OK;
        qr_error err;
        if (!failed) {
            qr_image_write_options o = qr_image_write_options_default();
            o.png_level = p->png_level;
            o.deflate = p->deflate;
            o.alpha = p->alpha;
            o.threads = 1;
            o.text = job->text;
            o.ntext = job->ntext;
            qr_image_writer *w = NULL;
            st = qr_image_writer_open(job->path, p->format, p->width, p->height, &o, &w, &err);
            if (st == QR_OK)
                st = p->format == QR_FORMAT_PFM
                         ? qr_image_writer_append_rgbf(w, (const float *)(void *)job->rows,
                                                       p->height, &err)
                         : qr_image_writer_append_rgb8(w, job->rows, p->height, &err);
            if (st == QR_OK)
                st = qr_image_writer_close(w, &err);
            else
                qr_image_writer_abort(w);
        }

        pthread_mutex_lock(&p->lock);
        if (st != QR_OK && p->status == QR_OK) {
            p->status = st;
            p->err = err;
        }
        p->busy--;
        p->free_list[p->nfree++] = j;
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

void job_frame_pool_free(job_frame_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    for (int t = 0; t < p->nthreads; t++)
        pthread_join(p->threads[t], NULL);
    for (int j = 0; j < p->nbuf; j++)
        free(p->jobs[j].rows);
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p->jobs);
    free(p->queue);
    free(p->free_list);
    free(p);
}

qr_status job_frame_pool_start(qr_image_format format, bool alpha, int32_t width, int32_t height,
                               int png_level, qr_png_deflate deflate, int workers, size_t max_bytes,
                               job_frame_pool **out,
                               qr_error *err)
{
    *out = NULL;
    const size_t frame_bytes =
        (size_t)width * (size_t)height * (size_t)qr_image_pixel_bytes(format, alpha);
    /* a buffer per worker and one being filled, as many as max_bytes holds */
    size_t nbuf = (size_t)workers + 1;
    if (nbuf * frame_bytes > max_bytes)
        nbuf = max_bytes / frame_bytes;
    if (nbuf < 2 || workers < 1)
        return qr_fail(err, QR_ERR_NOMEM, "frames of %zu bytes: too large for a pool of buffers",
                       frame_bytes);
    job_frame_pool *p = calloc(1, sizeof *p);
    if (!p)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->changed, NULL);
    p->format = format;
    p->alpha = alpha;
    p->width = width;
    p->height = height;
    p->png_level = png_level;
    p->deflate = deflate == QR_PNG_DEFLATE_PORTABLE ? QR_PNG_DEFLATE_PORTABLE : QR_PNG_DEFLATE_ZLIB;
    p->frame_bytes = frame_bytes;
    p->nbuf = (int)nbuf;
    p->jobs = calloc(nbuf, sizeof *p->jobs);
    p->queue = calloc(nbuf, sizeof *p->queue);
    p->free_list = calloc(nbuf, sizeof *p->free_list);
    p->threads = calloc((size_t)workers, sizeof *p->threads);
    int ok = p->jobs && p->queue && p->free_list && p->threads;
    for (int j = 0; ok && j < p->nbuf; j++) {
        ok = (p->jobs[j].rows = malloc(frame_bytes)) != NULL;
        p->free_list[p->nfree++] = j;
    }
    for (int t = 0; ok && t < workers; t++) {
        ok = qr_thread_start(&p->threads[t], worker, p) == 0;
        if (ok)
            p->nthreads++;
    }
    if (!ok && p->nthreads == 0) {
        job_frame_pool_free(p);
        return qr_fail(err, QR_ERR_NOMEM, "out of memory for %zu frame buffers of %zu bytes",
                       nbuf, frame_bytes);
    }
    *out = p;
    return QR_OK;
}

/* The first failure so far, copied into err (QR_OK: none). */
static qr_status pool_status(job_frame_pool *p, qr_error *err)
{
    if (p->status != QR_OK && err)
        *err = p->err;
    return p->status;
}

qr_status job_frame_pool_take(job_frame_pool *p, void **rows, int *slot, qr_error *err)
{
    pthread_mutex_lock(&p->lock);
    while (!p->nfree && p->status == QR_OK)
        pthread_cond_wait(&p->changed, &p->lock);
    qr_status st = pool_status(p, err);
    if (st == QR_OK) {
        *slot = p->free_list[--p->nfree];
        *rows = p->jobs[*slot].rows;
    }
    pthread_mutex_unlock(&p->lock);
    return st;
}

qr_status job_frame_pool_submit(job_frame_pool *p, int slot, const char *path,
                                const qr_image_write_options *opts, qr_error *err)
{
    frame_job *job = &p->jobs[slot];
    snprintf(job->path, sizeof job->path, "%s", path);
    job->ntext = 0;
    for (int k = 0; opts && k < opts->ntext && k < 8; k++) {
        snprintf(job->strings[k][0], sizeof job->strings[k][0], "%s", opts->text[k].key);
        snprintf(job->strings[k][1], sizeof job->strings[k][1], "%s", opts->text[k].value);
        job->text[k] = (qr_image_text){job->strings[k][0], job->strings[k][1]};
        job->ntext++;
    }
    pthread_mutex_lock(&p->lock);
    p->queue[(p->head + p->count) % p->nbuf] = slot;
    p->count++;
    pthread_cond_broadcast(&p->changed);
    qr_status st = pool_status(p, err);
    pthread_mutex_unlock(&p->lock);
    return st;
}

qr_status job_frame_pool_finish(job_frame_pool *p, qr_error *err)
{
    pthread_mutex_lock(&p->lock);
    while (p->count || p->busy)
        pthread_cond_wait(&p->changed, &p->lock);
    qr_status st = pool_status(p, err);
    pthread_mutex_unlock(&p->lock);
    return st;
}
