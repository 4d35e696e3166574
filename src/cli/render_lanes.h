/* render_lanes.h — the lanes of a split render (render_split.c drives
 * them; render_stripes.c holds one image's stripes). Internal to the CLI.
 */
#ifndef QR_CLI_RENDER_LANES_H
#define QR_CLI_RENDER_LANES_H

#include <pthread.h>
#include <stdatomic.h>

#include "cli/render_ctx.h"
#include "cli/render_split.h"

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

/* Says why lane failed, tagged with its GPU or rank; its exit code. */
int split_lane_fail(lane *ln, const qr_error *err, cli_phase phase);
/* A failure found by the split itself: said at once, its exit code. */
int split_fail_now(qr_error *err, qr_status status, const char *fmt, ...);

/* ---- one image (render_stripes.c) ---- */
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
