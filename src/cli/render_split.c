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
#include "cli/render_split.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/render_ctx.h"
#include "common/gpu_tuning.h"
#include "image/image_parts.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"
#include "quadrender/threads.h"

/* File rows a stripe holds at most: large enough that the rows rendered
 * again above each (its encoder's context, the render grid) cost little,
 * small enough that every lane gets several, and that a stripe with those
 * rows fits in one region of a GPU band (at most 128 MiB of file rows,
 * render_bands.cu): each region is an index build of its own. */
#define STRIPE_BYTES ((size_t)96 << 20)
#define STRIPES_PER_LANE 4

/* Message kinds from a process to process 0 (cli_mpi_send): a stripe's
 * part carries its stripe index (>= 0). */
enum { MSG_END = -1 };

typedef struct split split;

/* A lane's render thread and its two row buffers (ahead_main). */
typedef struct ahead {
    pthread_t tid;
    int started, stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    void *rows[2];      /* stripe k of the lane in rows[k & 1] */
    qr_status st[2];    /* how its render went */
    qr_error err[2];
    int ready;          /* rendered and not yet taken */
    int64_t taken;      /* stripes taken by the encoder */
} ahead;

typedef struct lane {
    split *sp;
    int index;       /* 0..n-1 */
    int device;      /* CUDA device, or -1: the CPU */
    char tag[48];    /* "GPU 1: ", "rank 1: " */
    render_ctx ctx;
    qr_scene *scene; /* this process's scene (every lane of a process reads it) */
    ahead ahead;     /* one image: the stripes rendered ahead */
    qr_image band;   /* the CPU's stripe, in floats */
    int rc;          /* this lane's exit code */
    int64_t done;    /* frames or stripes */
    double render_ms, encode_ms;
    pthread_t tid;
} lane;

struct split {
    const render_split_job *job;
    qr_scene *scene;
    int n;                  /* lanes in all */
    lane *lanes;            /* this process's: n threads, or 1 */
    int nlocal;
    bool builtin;
    qr_image_format format; /* of every file */
    int threads;            /* CPU threads of a lane's encoder */
    /* one image */
    int32_t stripe_rows, nstripes, grid;
    size_t row_bytes;
    /* the parts waiting for the writer (threads) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    void **parts;
    size_t *part_len;
    int *part_rc;
    int32_t next;           /* the stripe the writer appends next */
    int ready;              /* lanes set up (or failed): they start together */
    atomic_int stop;        /* a lane's or the writer's exit code: everyone stops */
    cli_frame_pool *pool;   /* frames: the encoders the lanes share, or NULL */
};

/* A failure found here: said at once, its exit code answered. */
static int fail_now(qr_error *err, qr_status status, const char *fmt, ...)
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

static void ahead_stop(lane *ln);

static void lane_free(lane *ln)
{
    ahead_stop(ln);
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

/* Says why lane failed, tagged, and answers the exit code. */
static int lane_fail(lane *ln, const qr_error *err, cli_phase phase)
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
        return lane_fail(ln, &err, CLI_PHASE_RUN);
    png_meta meta;
    qr_image_write_options opts = job->write_opts;
    render_png_meta(&meta, ln->scene, sp->builtin, job->seed, k, job->width, job->height,
                    ln->ctx.dev.reference ? "reference"
                    : job->mode == QR_RENDER_EXACT ? "exact"
                                                   : "fast",
                    job->keep, &opts);
    if (render_write_frame(&ln->ctx, ln->scene, NULL, true, path, sp->format, &opts, &err) !=
        QR_OK)
        return lane_fail(ln, &err, CLI_PHASE_OUTPUT);
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
    const render_split_job *job = sp->job;
    int32_t a, row0, row1;
    stripe_rows(sp, s, &a, &row0, &row1);
    if (ln->ctx.dev.gpu)
        return qr_gpu_render_rows(ln->ctx.r, ln->ctx.gs, &job->params, job->mode, sp->format, a,
                                  row1, rows, err);
    /* the image rows (row 0 = bottom) the file rows [a, row1) are */
    const int pfm = sp->format == QR_FORMAT_PFM;
    const int32_t y0 = pfm ? a : job->height - row1, y1 = pfm ? row1 : job->height - a;
    ln->band.width = job->width;
    ln->band.height = row1 - a;
    qr_status st =
        ln->ctx.dev.reference
            ? qr_render_cpu_band(ln->scene, job->width, job->height, y0, y1, &ln->band, err)
            : qr_render_cpu_fast_band(ln->scene, &job->params, job->mode, sp->threads, job->width,
                                      job->height, y0, y1, &ln->band, NULL, err);
    return st ? st : qr_image_file_rows(&ln->band, sp->format, 0, row1 - a, rows, err);
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
        const double t0 = cli_now_ms();
        const qr_status st = render_stripe(ln, s, ah->rows[k & 1], &ah->err[k & 1]);
        pthread_mutex_lock(&ah->mu);
        ah->st[k & 1] = st;
        ah->ready++;
        ln->render_ms += cli_now_ms() - t0;
        pthread_cond_broadcast(&ah->cv);
        pthread_mutex_unlock(&ah->mu);
        if (st)
            break;
    }
    return NULL;
}

static void ahead_stop(lane *ln)
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
    const double t0 = cli_now_ms();
    qr_image_write_options o = sp->job->write_opts;
    o.threads = sp->threads;
    st = qr_image_part_encode(sp->format, sp->job->width, sp->job->height, &o, row0, row1,
                              ah->rows[slot], part, len, err);
    ln->encode_ms += cli_now_ms() - t0;
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

static qr_status lane_stripe_buffers(lane *ln, qr_error *err)
{
    const split *sp = ln->sp;
    const size_t rows = (size_t)sp->stripe_rows + (size_t)max_context(sp);
    ahead *ah = &ln->ahead;
    if (ln->ctx.dev.gpu) {
        /* page-locked: the rows come back from the GPU at the bus's speed */
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
static void *stripes_thread(void *arg)
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
        int rc = CLI_EXIT_OK;
        if (lane_stripe(ln, s, &part, &len, &err) != QR_OK)
            rc = lane_fail(ln, &err, CLI_PHASE_RUN);
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
static int write_stripes_threads(split *sp, qr_image_writer *w)
{
    int rc = CLI_EXIT_OK;
    for (int32_t s = 0; s < sp->nstripes && rc == CLI_EXIT_OK; s++) {
        pthread_mutex_lock(&sp->mu);
        while (!sp->part_rc[s])
            pthread_cond_wait(&sp->cv, &sp->mu);
        void *part = sp->parts[s];
        size_t len = sp->part_len[s];
        rc = sp->part_rc[s] > 0 ? sp->part_rc[s] : CLI_EXIT_OK;
        sp->parts[s] = NULL;
        pthread_mutex_unlock(&sp->mu);
        qr_error err;
        if (rc == CLI_EXIT_OK && qr_image_writer_append_part(w, part, len, &err) != QR_OK)
            rc = cli_fail(&err, CLI_PHASE_OUTPUT);
        free(part);
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
static int write_stripes_root(split *sp, lane *ln, qr_image_writer *w)
{
    const cli_mpi *m = sp->job->mpi;
    int rc = CLI_EXIT_OK;
    qr_error err;
    for (int32_t s = 0; s < sp->nstripes && rc == CLI_EXIT_OK; s++) {
        void *part = NULL;
        size_t len = 0;
        const int from = s % sp->n;
        if (from == 0) {
            if (lane_stripe(ln, s, &part, &len, &err) != QR_OK)
                rc = lane_fail(ln, &err, CLI_PHASE_RUN);
        } else {
            int sender = 0, kind = 0, status = 0;
            if (cli_mpi_recv(m, from, &sender, &kind, &status, &part, &len, &err) != QR_OK)
                rc = cli_fail(&err, CLI_PHASE_RUN);
            else if (status)
                rc = status; /* the process said why */
            else if (kind != s)
                rc = fail_now(&err, QR_ERR_IO, "rank %d sent stripe %d for stripe %d", from,
                              kind, (int)s);
        }
        if (rc == CLI_EXIT_OK && qr_image_writer_append_part(w, part, len, &err) != QR_OK)
            rc = cli_fail(&err, CLI_PHASE_OUTPUT);
        free(part);
    }
    if (rc)
        cli_mpi_stop_all(m);
    /* every other process ends with MSG_END; what comes before it after a
     * failure is dropped */
    for (int ended = 0; ended < m->size - 1;) {
        int sender = 0, kind = 0, status = 0;
        void *data = NULL;
        size_t len = 0;
        if (cli_mpi_recv(m, -1, &sender, &kind, &status, &data, &len, &err) != QR_OK) {
            rc = rc ? rc : cli_fail(&err, CLI_PHASE_RUN);
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
static int send_stripes(split *sp, lane *ln)
{
    const cli_mpi *m = sp->job->mpi;
    int rc = CLI_EXIT_OK;
    qr_error err;
    for (int32_t s = ln->index; s < sp->nstripes && !cli_mpi_stopped(m); s += sp->n) {
        void *part = NULL;
        size_t len = 0;
        if (lane_stripe(ln, s, &part, &len, &err) != QR_OK)
            rc = lane_fail(ln, &err, CLI_PHASE_RUN);
        qr_status st = cli_mpi_send(m, s, rc, part, len, &err);
        free(part);
        if (st != QR_OK && !rc)
            rc = lane_fail(ln, &err, CLI_PHASE_RUN);
        if (rc)
            break;
    }
    if (cli_mpi_send(m, MSG_END, rc, NULL, 0, &err) != QR_OK && !rc)
        rc = lane_fail(ln, &err, CLI_PHASE_RUN);
    return rc;
}

/* The stripes' height: STRIPE_BYTES of rows on the file's grid, fewer when
 * that leaves a lane fewer than STRIPES_PER_LANE. */
static void plan_stripes(split *sp)
{
    const render_split_job *job = sp->job;
    sp->grid = qr_image_part_grid(sp->format, job->width, job->height);
    sp->row_bytes = (size_t)job->width * 3 * (sp->format == QR_FORMAT_PFM ? sizeof(float) : 1);
    int64_t rows = (int64_t)(STRIPE_BYTES / sp->row_bytes);
    const int64_t share = (job->height + (int64_t)sp->n * STRIPES_PER_LANE - 1) /
                          ((int64_t)sp->n * STRIPES_PER_LANE);
    rows = rows < share ? rows : share;
    rows = (rows + sp->grid - 1) / sp->grid * sp->grid;
    sp->stripe_rows = (int32_t)(rows < sp->grid ? sp->grid : rows);
    sp->nstripes = (int32_t)((job->height + sp->stripe_rows - 1) / sp->stripe_rows);
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
 * thread's), then runs `body`. */
typedef struct lane_run {
    lane *ln;
    void *(*body)(void *);
} lane_run;

static void *lane_main(void *arg)
{
    lane *ln = arg;
    qr_error err;
    if (lane_start(ln, &err) != QR_OK) {
        ln->rc = lane_fail(ln, &err, CLI_PHASE_RUN);
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
    return stripes_thread(ln);
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
            rc = write_stripes_threads(sp, w);
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
        rc = lane_fail(ln, &err, CLI_PHASE_RUN);
    if ((rc = cli_mpi_max(m, rc)) != CLI_EXIT_OK)
        return rc;
    if (sp->job->many)
        return lane_frames(ln);
    if (m->rank == 0)
        rc = write_stripes_root(sp, ln, w);
    else
        rc = send_stripes(sp, ln);
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
        rc = fail_now(&err, QR_ERR_NO_GPU, "--device gpu: no usable GPU");
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
        return fail_now(&err, QR_ERR_NOMEM, "out of memory");
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
        plan_stripes(&sp);

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
            rc = fail_now(&err, QR_ERR_NOMEM, "out of memory");
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
            if (!job->many && lane_stripe_buffers(&sp.lanes[i], &err) != QR_OK) {
                rc = lane_fail(&sp.lanes[i], &err, CLI_PHASE_RUN);
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
