/* job_lanes.h — the lanes of a split render (job_split.c drives them and
 * calls job_stripes.c, which holds one image's stripes and calls nothing
 * of job_split.c: what both need is here). Internal to the job layer.
 *
 * A failure is a code (job_code): a qr_status and the job stage it
 * happened in, 0 for none, so that the lanes and the processes of an MPI
 * job agree on one with a maximum (job_mpi_max).
 */
#ifndef QR_JOB_LANES_H
#define QR_JOB_LANES_H

#include <pthread.h>
#include <stdatomic.h>

#include "job/job_ctx.h"
#include "job/job_mpi.h"

typedef struct split split;

/* A lane's render thread and its two row buffers (ahead_main). */
typedef struct ahead {
    pthread_t tid;
    int started, stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    void *rows[2];      /* stripe k of the lane in rows[k & 1] */
    int pinned;         /* rows are page-locked (qr_gpu_host_alloc), else malloc'd */
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
    job_ctx ctx;
    qr_scene *scene; /* this process's scene (every lane of a process reads it) */
    ahead ahead;     /* one image: the stripes rendered ahead */
    qr_image band;   /* the CPU's stripe, in floats */
    job_chunks chunks; /* a scene in chunks (job chunk_circles): planned once */
    qr_image *image; /* frames to a callback: the lane's image */
    int rc;          /* this lane's failure code, or 0 */
    int64_t done;    /* frames or stripes */
    double render_ms, encode_ms;
    pthread_t tid;
} lane;

struct split {
    job_state *st;
    const qr_job_params *job; /* st->p */
    const job_mpi *mpi;      /* the job's processes (size 1 without MPI) */
    const int *gpus;         /* a thread's GPU: gpus[0..ngpus-1]; ngpus 0: one each process */
    int ngpus;
    bool many;               /* frames, each whole (a range, or on_frame); else one
                                image cut into stripes */
    qr_scene *scene;
    int n;                  /* lanes in all */
    lane *lanes;            /* this process's: n threads, or 1 */
    int nlocal;
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
    atomic_int stop;        /* a lane's or the writer's failure code: everyone stops */
    job_frame_pool *pool;   /* frames: the encoders the lanes share, or NULL */
    /* the first failure of this process, tagged with its lane */
    pthread_mutex_t fail_mu;
    int fail_code;
    qr_error fail_err;
};

/* A failure's code: status and stage, 0 for QR_OK. */
static inline int job_code(qr_status status, qr_job_stage stage)
{
    return status == QR_OK ? 0 : (int)status * 8 + (int)stage;
}
static inline qr_status job_code_status(int code)
{
    return (qr_status)(code / 8);
}
static inline qr_job_stage job_code_stage(int code)
{
    return (qr_job_stage)(code % 8);
}

/* Records err (tagged: "GPU 1: ", "rank 1: ", or "") as the split's
 * failure unless one came first, and tells every lane to stop; its code. */
static inline int split_fail(split *sp, const char *tag, const qr_error *err, qr_job_stage stage)
{
    const int code = job_code(err->status, stage);
    pthread_mutex_lock(&sp->fail_mu);
    if (!sp->fail_code) {
        sp->fail_code = code;
        qr_fail(&sp->fail_err, err->status, "%s%s", tag, err->msg);
    }
    pthread_mutex_unlock(&sp->fail_mu);
    int zero = 0;
    atomic_compare_exchange_strong(&sp->stop, &zero, code);
    return code;
}

/* A lane's failure, tagged with its GPU or rank. */
static inline int lane_fail(lane *ln, const qr_error *err, qr_job_stage stage)
{
    return split_fail(ln->sp, ln->tag, err, stage);
}

/* Reports a step of the split (event, with lane's tag, or NULL) and
 * answers the cancellation's code when a callback cancelled the job. */
static inline int split_report(split *sp, lane *ln, qr_job_event event, qr_job_progress *pr)
{
    pr->event = event;
    pr->lane = ln ? ln->tag : "";
    pr->total = event == QR_JOB_STRIPE ? sp->nstripes : 0;
    if (job_report(sp->st, pr, event == QR_JOB_LANE ? 0 : 1))
        return 0;
    qr_error err;
    qr_fail(&err, QR_ERR_CANCELLED, "cancelled");
    return split_fail(sp, "", &err, QR_JOB_STAGE_RENDER);
}

/* ---- one image (job_stripes.c) ---- */
/* Cuts the image into stripes (sp->stripe_rows, nstripes, grid, row_bytes). */
void stripes_plan(split *sp);
/* The lane's two row buffers (page-locked on a GPU) and its CPU band. */
qr_status stripes_buffers(lane *ln, qr_error *err);
/* Stops and joins the lane's render-ahead thread, if it started. */
void stripes_stop(lane *ln);
/* Threads: a lane's stripes into the writer's table (pthread body). */
void *stripes_lane(void *arg);
/* Threads: the writer appends the parts in order as the lanes make them. */
int stripes_write_threads(split *sp, qr_image_writer *w);
/* MPI, process 0: its own stripes and the others', in order. */
int stripes_write_root(split *sp, lane *ln, qr_image_writer *w);
/* MPI, the other processes: their stripes to process 0. */
int stripes_send(split *sp, lane *ln);

#endif
