/* render_split.h — `quadrender render` over several GPUs of this host
 * (--gpus: a thread each) or several processes (an MPI launcher: a process
 * each, on its GPU on the host), "lanes" (render_split.c). Internal to the
 * CLI; cmd_render.c parses and checks the command line, then hands over.
 */
#ifndef QR_CLI_RENDER_SPLIT_H
#define QR_CLI_RENDER_SPLIT_H

#include "cli/cli.h"
#include "cli/cli_mpi.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/render_mode.h"
#include "quadrender/scene.h"

/* The most GPUs --gpus names. */
#define RENDER_SPLIT_MAX_GPUS 64

typedef struct render_split_job {
    const char *scene_arg; /* built-in name or file */
    qr_scene *scene;       /* loaded by this process, as generated */
    uint32_t seed;
    int32_t width, height;
    bool keep;             /* --aspect keep on a square image (noted in the PNG) */
    cli_range frames;      /* first == last: one image, cut into stripes */
    bool many;             /* --frames given */
    const cli_frame_names *names;
    qr_image_format format; /* --format, or UNKNOWN: by each file's name */
    qr_image_write_options write_opts;
    qr_index_params params;
    qr_render_mode mode;
    cli_device device;
    size_t gpu_memory;     /* --gpu-memory, per GPU */
    int gpus[RENDER_SPLIT_MAX_GPUS], ngpus; /* --gpus; ngpus 0: one each process */
    const cli_mpi *mpi;    /* the job's processes (size 1 without MPI) */
} render_split_job;

/* --gpus all|LIST into an int[RENDER_SPLIT_MAX_GPUS + 1] whose first entry
 * is the count, -1 for all. */
const char *render_split_set_gpus(const char *text, void *dest);

/* Renders the job; prints what a failure was (tagged by lane) and answers
 * the exit code, the same in every process. */
int render_split(const render_split_job *job);

#endif
