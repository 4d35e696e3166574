/* quadrender/job.h — a render job: one image or a frame range, to files or
 * to a callback, on the CPU, one GPU or several (and over the processes of
 * an MPI job), with progress and cancellation.
 *
 *     qr_job_params p;
 *     qr_job_params_init(&p);
 *     p.scene_name = "snow";
 *     p.width = p.height = 512;
 *     p.first = 0, p.last = 99;
 *     p.output = "out/snow_%04d.png";
 *     qr_job_result res;
 *     qr_error err;
 *     if (qr_job_run(&p, &res, &err) != QR_OK)
 *         fprintf(stderr, "quadrender: %s\n", err.msg);
 *
 * The job is what `quadrender render` does: frame k is the scene after k+1
 * animation steps; the files are those the command writes (the same bytes,
 * the same PNG text), written whole or not at all (a failure or a
 * cancellation leaves no partial and no temporary file; frames finished
 * before stay). Several GPUs (a device list) share the frames of a range,
 * dealt in turn, or one image's stripes of rows; so do the processes of a
 * job started by an MPI launcher, in a build with MPI (QR_MPI). Whatever
 * the split, the files are the same bytes.
 */
#ifndef QUADRENDER_JOB_H
#define QUADRENDER_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quadrender/error.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/render_mode.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the frames render. */
typedef enum qr_job_device {
    QR_JOB_AUTO = 0,         /* the GPU when usable, else the fast CPU renderer */
    QR_JOB_GPU = 1,          /* the GPU, or QR_ERR_NO_GPU */
    QR_JOB_CPU = 2,          /* the fast CPU renderer (quadtree, every core) */
    QR_JOB_CPU_REFERENCE = 3 /* the serial reference renderer, the oracle */
} qr_job_device;

/* Where work runs, chosen once before any is done (qr_job_choose_device). */
typedef struct qr_device_choice {
    bool gpu;          /* on the GPU */
    bool reference;    /* on the CPU: the serial reference renderer */
    qr_gpu_info info;  /* when gpu */
    char where[320];   /* "the GPU (NVIDIA H100 ..., sm_90, 132 SMs)" or "the CPU (8 threads)" */
    char note[768];    /* what to tell the user ("rendering on the GPU (...)"), or "" */
} qr_device_choice;

/* Chooses where work runs: QR_JOB_CPU and QR_JOB_CPU_REFERENCE never touch
 * the GPU; QR_JOB_AUTO and QR_JOB_GPU probe it (qr_gpu_probe). AUTO falls
 * back to the CPU, saying why in the note; GPU without a usable one answers
 * QR_ERR_NO_GPU with the probe's reason. `doing` names the work in the note
 * ("rendering", "building the index"). What qr_job_run does first; the CLI's
 * other commands choose their device with it too. */
qr_status qr_job_choose_device(qr_job_device requested, const char *doing, qr_device_choice *out,
                               qr_error *err);

/* The user's values a job takes as text (quadrender/text.h), checked as
 * the CLI's `render` checks them, so that every front end refuses the same:
 *
 * a device named "auto", "gpu", "cpu" or "cpu-reference"; else
 * QR_ERR_INVALID, "<name>: expected auto, gpu, cpu or cpu-reference, got
 * '<text>'". */
qr_status qr_job_check_device(const char *name, const char *text, qr_job_device *out,
                              qr_error *err);

/* A frame range "A:B", frames A to B: 0 <= A <= B <= QR_SCENE_MAX_FRAME
 * (the job's first and last); else QR_ERR_INVALID, "<name>: expected A:B
 * with frame numbers 0 <= A <= B <= 2147483647, got '<text>'". */
qr_status qr_job_check_frames(const char *name, const char *text, int64_t *first, int64_t *last,
                              qr_error *err);

/* Circles a chunk of a scene drawn in chunks: 1 to QR_SCENE_MAX_CIRCLES;
 * else QR_ERR_INVALID, "<name>: expected a number of circles from 1 to
 * 200000000, got '<text>'". */
qr_status qr_job_check_chunk(const char *name, const char *text, int32_t *out, qr_error *err);

/* Host bytes a circle of a scene costs loaded whole and drawn by the fast
 * CPU renderer, at most: its row, its record for the tiles, its boxes and
 * list entries while the index builds (qr_job_auto_chunk's estimate). */
#define QR_JOB_CIRCLE_BYTES 128
/* GPU bytes a circle of a chunk costs, at most as a rule: its arrays and
 * packed copies (60), its boxes and list entries while the index builds
 * (the first part of a chunk is sized by it; one that does not fit after
 * all is halved). */
#define QR_JOB_GPU_CIRCLE_BYTES 160
/* The most circles the GPU takes of a chunk at once (a file is read in
 * chunks no larger): more only holds more host memory. */
#define QR_JOB_GPU_PART_MAX (1 << 25)

/* The chunk (*chunk circles) a render of scene_name at width x height is
 * drawn in when its scene cannot be held whole: a .npy of more than
 * QR_SCENE_MAX_CIRCLES circles, or whose circles (QR_JOB_CIRCLE_BYTES each)
 * and float image take more than half of what this process can still
 * allocate (quadrender/memory.h): chunks then take that half less the
 * image, at least 65536 circles. *chunk is 0 when the scene fits, or is
 * not a .npy (a built-in or a text file is loaded whole). Errors: the
 * .npy's own (qr_scene_stream_open). */
qr_status qr_job_auto_chunk(const char *scene_name, int32_t width, int32_t height, int32_t *chunk,
                            qr_error *err);

/* The most GPUs a device list names. */
#define QR_JOB_MAX_GPUS 64
/* Runs of frames up to this many have every file checked before any work
 * (the CLI before a job starts; each process of a split its own frames);
 * a longer run checks its first, and each file as it is written. */
#define QR_JOB_CHECKED_FRAMES 100000

/* What a progress report tells. */
typedef enum qr_job_event {
    QR_JOB_START = 0,  /* once, before any frame: the plan (scene, where) */
    QR_JOB_FRAME = 1,  /* a frame was written (or handed to on_frame) */
    QR_JOB_STRIPE = 2, /* a stripe of one image split over lanes was written */
    QR_JOB_LANE = 3    /* a lane of a split image is done: its totals */
} qr_job_event;

/* A progress report. done of total counts frames, or the stripes of one
 * image split over several lanes; it never goes back and reaches total
 * when the job succeeds. Under MPI each process reports its own frames
 * (total: the job's), and process 0 the stripes. Times are milliseconds. */
typedef struct qr_job_progress {
    qr_job_event event;
    int64_t done, total;
    /* QR_JOB_START */
    const qr_scene *scene;  /* the scene (name, circles), at its first state */
    const char *where;      /* "the GPU (NVIDIA ..., sm_90, 132 SMs)", "the CPU (8
                               threads)", "2 GPUs", "3 processes" */
    const char *note;       /* what a user may want to know ("no usable GPU (why):
                               rendering on the CPU ..."), or "" */
    bool gpu, reference;    /* one device: the GPU; the CPU reference renderer */
    int lanes, rank;        /* GPUs or processes sharing the work (1: none); this
                               process's rank in an MPI job (0) */
    int32_t stripes, stripe_rows; /* one image split over lanes; else 0 */
    int32_t band_rows;      /* one GPU rendering an image too large for its memory
                               budget in bands of rows; else 0 */
    double upload_ms;       /* the scene's upload to the GPU */
    /* QR_JOB_FRAME and QR_JOB_LANE */
    int64_t frame;          /* the frame written */
    const char *path;       /* its file (NULL: on_frame) */
    const char *lane;       /* a split's lane, "GPU 1: " or "rank 1: "; else "" */
    double seek_ms;         /* stepping the scene to the frame */
    double render_ms;       /* rendering (a streamed frame: rendering and writing) */
    double write_ms;        /* writing the file (QR_JOB_LANE: encoding) */
    qr_frame_timing gpu_timing; /* one GPU, whole images: CUDA events */
    qr_cpu_timing cpu_timing;   /* the fast CPU renderer */
    int64_t lane_done;      /* QR_JOB_LANE: its stripes */
    /* QR_JOB_START */
    int64_t circles;        /* the scene's circles (a stream's: its file's) */
    int32_t chunk_circles;  /* drawn in chunks of this many circles (on the GPU, the
                               most it draws at once); else 0 */
    /* QR_JOB_FRAME, a scene in chunks on the GPU (gpu_timing sums the
     * chunks' index and render): the wall time spent waiting for chunks
     * to be read from the file and parsed, uploading them, and waiting for
     * the GPU to finish a chunk before its memory takes the next */
    double chunk_read_ms, chunk_upload_ms, chunk_wait_ms;
} qr_job_progress;

/* Progress: called from one thread at a time (perhaps not the caller's);
 * a nonzero answer cancels the job. */
typedef int (*qr_job_progress_fn)(void *user, const qr_job_progress *p);

/* A frame's image (float RGBA, row 0 at the bottom), valid during the
 * call; frames come in order on one device, in any order over several.
 * A nonzero answer cancels the job. */
typedef int (*qr_job_frame_fn)(void *user, int64_t frame, const qr_image *image);

typedef struct qr_job_params {
    /* the scene: `scene` itself, at its first state, which the job steps
     * in place (the caller keeps it), or else `stream` (below), or else
     * the one scene_name (a built-in name or a file) and seed load;
     * scene_name, when set, also decides whether the PNG text gives the
     * seed (a built-in's) */
    const char *scene_name;
    uint32_t seed;
    qr_scene *scene;
    int32_t width, height;  /* 1..QR_IMAGE_BANDS_MAX_DIM (on_frame, keep_aspect:
                               QR_IMAGE_MAX_DIM); default 1024 */
    int64_t first, last;    /* the frames, first <= last; default 0..0 */
    bool keep_aspect;       /* circles stay round: the square of the longer side,
                               its centre kept (one device only) */
    qr_render_mode mode;    /* default QR_RENDER_FAST */
    qr_index_params index;  /* default qr_index_params_default() */
    qr_job_device device;   /* default QR_JOB_AUTO */
    /* the GPUs: ngpus 0, the current CUDA device; 1, gpus[0] (made the
     * current device); more, the work is split over them (not with
     * QR_JOB_CPU or QR_JOB_CPU_REFERENCE; without any GPU, QR_JOB_AUTO
     * renders on the CPU) */
    int gpus[QR_JOB_MAX_GPUS];
    int ngpus;
    size_t gpu_memory;      /* a GPU's memory budget (0: what is free); an image
                               that does not fit renders in bands */
    /* files: output names them. For a frame range it holds "%d" or "%0Nd"
     * (N 1..18) for the frame number ("%%": a '%'); a name without one
     * receives every frame in turn (a stream: "-" is stdout, a FIFO, a
     * device; a file is replaced by each). */
    const char *output;
    qr_image_format format; /* QR_FORMAT_UNKNOWN (default): by output's
                               extension, else PNG */
    int png_level;          /* 0..9, default QR_PNG_LEVEL_DEFAULT */
    qr_png_deflate png_deflate; /* QR_PNG_DEFLATE_AUTO (default): the portable
                               encoder, on the GPU, for a large PNG the GPU
                               renders at the default level; else zlib
                               (quadrender/image.h) */
    const char *software;   /* the PNG's Software text (NULL: "quadrender VERSION") */
    bool stage_timing;      /* GPU: time each index stage (an event each) */
    /* or frames to a callback instead of files (output NULL) */
    qr_job_frame_fn on_frame;
    qr_job_progress_fn on_progress; /* NULL: no reports, no cancellation */
    qr_progress_fn on_seek; /* a seek's steps done of total (a long one: snow) */
    void *user;             /* passed to on_frame, on_progress and on_seek */
    /* one GPU, whole images: before the first frame, time the quadtree's
     * candidate settings plan_trials frames each on the first frame's scene
     * (qr_gpu_renderer_plan) and render every frame with the fastest; for
     * sequences long enough to pay for it. 0 (default): the index as given;
     * elsewhere (the CPU, bands, several GPUs) ignored. 0..64 */
    int32_t plan_trials;
    /* Depth-ordered chunks: chunk_circles > 0 draws the scene in chunks of
     * that many consecutive circles (1..QR_SCENE_MAX_CIRCLES), each indexed
     * and rendered over the image the chunks before it left (fast mode
     * where it stops early: under the colour the chunks in front of it
     * gathered, qr_render_cpu_fast_under, qr_gpu_render_chunk_under): the
     * whole scene's bytes (a stream's fast chunks on the GPU: exact mode's
     * walk, within fast mode's tolerance).
     * The scene is `scene` or the loaded one, cut into views, or `stream`
     * (qr_scene_stream_open; the caller keeps it): a .npy file read chunk by
     * chunk, never whole, whatever its number of circles, drawn with the
     * stream's picture (qr_scene_stream_picture). On one device (several
     * GPUs refuse it): on the GPU the image is held on the device and each
     * chunk uploaded in parts that fit gpu_memory (halved where one does
     * not; one circle that cannot fit: QR_ERR_GPU_NOMEM), and a scene that
     * gpu_memory (0: what is free) cannot hold whole with its index is
     * drawn in chunks unasked; under MPI one image only, each process
     * drawing its stripes chunk by chunk on its CPU (every process opens
     * its own stream); one device holds the image whole (QR_IMAGE_MAX_DIM a
     * side). */
    qr_scene_stream *stream;
    int32_t chunk_circles;
} qr_job_params;

/* The defaults above; every other field zero. */
void qr_job_params_init(qr_job_params *p);

/* Whether files of `format` (QR_FORMAT_UNKNOWN: PNG, the job's default)
 * hold the scene's picture: one without a background (qr_scene.transparent)
 * needs the alpha channel only PNG keeps; else QR_ERR_INVALID "<scene> has
 * no background: only PNG keeps its alpha channel, not PPM". What
 * qr_job_run checks of its files first. */
qr_status qr_job_check_format(const qr_scene *scene, qr_image_format format, qr_error *err);

/* What the job was doing when it failed. */
typedef enum qr_job_stage {
    QR_JOB_STAGE_PARAMS = 0, /* checking the params: nothing was done */
    QR_JOB_STAGE_INPUT = 1,  /* loading the scene */
    QR_JOB_STAGE_RENDER = 2, /* choosing the device, rendering, a split's messages */
    QR_JOB_STAGE_OUTPUT = 3  /* writing a file */
} qr_job_stage;

typedef struct qr_job_result {
    int64_t frames;         /* frames (or one image's stripes) done here */
    qr_job_stage stage;     /* of a failure */
    bool elsewhere;         /* the failure was another MPI process's, which
                               reports it (err then says only that) */
    double ms;              /* from the first frame to the end */
    double gpu_ms;          /* one GPU: the index and render of every frame */
    /* plan_trials: whether a plan ran, the settings it chose, its wall time
     * (in ms and gpu_ms neither) and the chosen settings' median frame */
    bool planned;
    qr_index_params plan_chosen;
    double plan_ms, plan_frame_ms;
} qr_job_result;

/* Whether an MPI launcher started this process (its environment says so):
 * a job then runs as one of the launcher's processes (qr_job_plan_of), and
 * each process checks only the files it writes itself (qr_job_run: one
 * image's writer its file, each lane of frames its own), as processes on
 * separate machines must. */
bool qr_job_mpi_launched(void);

/* How a job with these params would run, decided before any work: the
 * params checked, the GPU probed (QR_ERR_NO_GPU for QR_JOB_GPU without
 * one), MPI started in a process an MPI launcher started (once; MPI ends
 * as the process exits). qr_job_run plans the same itself. */
typedef struct qr_job_plan {
    int lanes;           /* GPUs or processes sharing the work; 1: one device */
    int processes, rank; /* of the MPI job: 1, 0 without one */
    bool gpu;            /* one lane: on the GPU (info) */
    qr_gpu_info info;
    char where[320];     /* one lane: "the GPU (...)", "the CPU (8 threads)" */
    char note[768];      /* "no usable GPU (why): rendering on the CPU ...", or "" */
} qr_job_plan;
qr_status qr_job_plan_of(const qr_job_params *p, qr_job_plan *plan, qr_error *err);

/* Runs the job. QR_ERR_CANCELLED when a callback cancelled it; res (may be
 * NULL) says where a failure happened. A .npy scene_name (no scene, no
 * stream, no chunk_circles) that qr_job_auto_chunk finds too large to hold
 * whole is drawn in its chunks, read chunk by chunk, on one device, unless
 * the params ask for several GPUs or an image over QR_IMAGE_MAX_DIM; the
 * START report's chunk_circles says so. */
qr_status qr_job_run(const qr_job_params *p, qr_job_result *res, qr_error *err);

#ifdef __cplusplus
}
#endif
#endif
