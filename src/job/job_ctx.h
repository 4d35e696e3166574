/* job_ctx.h — what the parts of a job share (job_ctx.c): the job as
 * resolved before any work (job_state: the scene, the file format, the
 * frames' names, progress and cancellation), and one renderer's frames
 * (job_ctx: where they render, the GPU's scene and renderer). job.c drives
 * one job_ctx over a frame range; job_split.c drives several, one a GPU
 * or a process. Internal to the job layer.
 */
#ifndef QR_JOB_CTX_H
#define QR_JOB_CTX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "job/frame_pool.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/job.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"

/* Room for a frame's file name. */
#define JOB_PATH_MAX 8192

/* A job as resolved by qr_job_run. */
typedef struct job_state {
    const qr_job_params *p;
    qr_scene *scene;         /* at its first state: the caller's, or loaded */
    bool builtin;            /* the scene is a built-in (its PNG text gives the seed) */
    qr_image_format format;  /* of every file (by the first name, else PNG) */
    bool alpha;              /* the files keep the alpha channel: a scene without a
                                background (qr_scene.transparent), as PNG */
    const char *mode_text;   /* the PNG's Mode: "fast", "exact", "reference" */
    pthread_mutex_t report_mu; /* one progress call at a time */
    atomic_int cancelled;    /* a callback answered nonzero */
    int64_t done;            /* progress reported so far */
} job_state;

/* Milliseconds on the monotonic clock. */
double job_now_ms(void);

/* Frame k's file name into buf: p->output with "%d"/"%0Nd" replaced by k
 * and "%%" by '%'. QR_ERR_INVALID for a pattern that is not one ("%x", a
 * second number). */
qr_status job_frame_path(const char *pattern, int64_t k, char *buf, size_t size, qr_error *err);

/* Reports *pr (event, its fields) to on_progress, counting done on from
 * st->done by `step` (0: none); false once the job is cancelled. */
bool job_report(job_state *st, qr_job_progress *pr, int64_t step);
/* Whether the job was cancelled (by a report or a frame callback). */
bool job_cancelled(job_state *st);

/* Where frames render, decided once before any work. */
/* Where a job renders (quadrender/job.h). */
typedef qr_device_choice job_device;

/* One renderer's frames: on the GPU, what stays there from frame to frame,
 * the scene (stepped in place) and one renderer for the image size. */
typedef struct job_ctx {
    job_device dev;
    qr_render_mode mode;
    qr_index_params params;
    bool stage_timing;      /* GPU: time the index stages */
    qr_progress_fn on_seek; /* a seek's progress, and its argument */
    void *seek_user;
    qr_gpu_scene *gs;
    qr_gpu_renderer *r;
    double upload_ms;       /* once */
    qr_frame_timing timing; /* of the last frame (CUDA events) */
    qr_cpu_timing cpu;      /* of the last frame on the fast CPU renderer */
    int32_t width, height;  /* the rendered image's */
    size_t gpu_memory;      /* the budget (0: what the device has free) */
    int32_t band_rows;      /* rows of a band when the GPU renders in bands, else 0 */
    /* GPU, a scene drawn in chunks (set before job_ctx_start): nothing is
     * uploaded at the start, the image is held whole on the device, each
     * chunk uploaded in turn in parts of at most gpu_chunk circles (what
     * fits the budget, halved when a part does not) */
    bool chunked;
    int32_t gpu_chunk;
    double chunk_read_ms, chunk_upload_ms, chunk_wait_ms; /* the last frame's (qr_job_progress) */
    job_frame_pool *pool;   /* a GPU sequence's files, written while the next renders */
} job_ctx;

/* What a PNG says about itself (tEXt chunks): enough to render it again.
 * Nothing that depends on the machine (device, threads, times), so that
 * equal images are equal files wherever they were rendered. */
typedef struct job_png_meta {
    char seed[16], frame[24], size[32], software[128];
    qr_image_text text[7];
} job_png_meta;

/* ctx on CUDA device `device`, made the calling thread's current device:
 * a lane of a split render (ctx's mode and params set by the caller). */
qr_status job_ctx_init_device(job_ctx *ctx, int device, qr_error *err);
/* Once the scene is loaded: on the GPU (the calling thread's current
 * device), uploads it and makes the renderer (whole, or in bands when
 * `stream` and the image does not fit ctx->gpu_memory). */
qr_status job_ctx_start(job_ctx *ctx, const qr_scene *scene, int32_t width, int32_t height,
                        bool stream, qr_image_format format, qr_error *err);
void job_ctx_free(job_ctx *ctx);
/* On ctx's GPU, the chunk (circles) a scene is drawn in because it and its
 * index (QR_JOB_GPU_CIRCLE_BYTES a circle) and a width x height image held
 * whole do not fit the GPU memory budget (ctx->gpu_memory, else what is
 * free), where the image takes at most half of it; else 0. */
int32_t job_gpu_auto_chunk(const job_ctx *ctx, const qr_scene *scene, int32_t width,
                           int32_t height);
/* Brings the scene to frame k's state: the host scene on the CPU, the
 * device scene on the GPU. */
qr_status job_seek(job_ctx *ctx, qr_scene *scene, int64_t k, qr_error *err);
/* Renders the current state into img (NULL: nothing, write streams it). */
qr_status job_render(job_ctx *ctx, const qr_scene *scene, qr_image *img, qr_error *err);

/* A scene drawn in depth-ordered chunks: how many, and (fast mode) the
 * whole scene's numbers and whether the chunks go front to back
 * (qr_render_cpu_fast_stops), decided once for a frame. */
typedef struct job_chunks {
    int32_t chunk;
    int64_t circles, count;
    qr_cpu_fast_numbers numbers;
    bool under;
} job_chunks;

/* The plan of the scene's current state in chunks of `chunk` (a stream:
 * read once through in fast mode). */
qr_status job_chunks_plan(const job_ctx *ctx, const qr_scene *scene, qr_scene_stream *stream,
                          int32_t chunk, job_chunks *plan, qr_error *err);

/* Rows [y0, y1) of the image (ctx's size) into band, chunk by chunk as the
 * plan says, each chunk read ahead of its turn, on `threads` (0: all). */
qr_status job_render_chunks_rows(job_ctx *ctx, const qr_scene *scene, qr_scene_stream *stream,
                                 const job_chunks *plan, int threads, int32_t y0, int32_t y1,
                                 qr_image *band, qr_error *err);

/* Renders the scene's current state into img (held whole) in depth-ordered
 * chunks of `chunk` circles: views of scene, or (stream) the file's
 * circles read chunk by chunk; the first chunk over the background, each
 * next one over the image so far. On the CPU (the reference or the fast
 * renderer; ctx->cpu sums the chunks' times), or on the GPU (ctx->chunked:
 * each chunk uploaded in parts that fit the budget, qr_gpu_render_chunk,
 * the image left on the device for job_write_frame when img is NULL;
 * ctx->timing sums the parts' times). */
qr_status job_render_chunks(job_ctx *ctx, const qr_scene *scene, qr_scene_stream *stream,
                            int32_t chunk, qr_image *img, qr_error *err);
/* The PNG text of frame k into m, pointed to by opts, and whether the file
 * keeps the alpha channel (st->alpha). */
void job_png_text(job_png_meta *m, const job_state *st, int64_t k, qr_image_write_options *opts);
/* Writes the frame to path: streamed from the renderer (stream), else img. */
qr_status job_write_frame(job_ctx *ctx, const qr_scene *scene, const qr_image *img, bool stream,
                          const char *path, qr_image_format format,
                          const qr_image_write_options *opts, qr_error *err);

#endif
