/* render_ctx.h — one renderer's frames for `quadrender render` (render_ctx.c),
 * shared by the single-process command (cmd_render.c) and the work split
 * over GPUs and processes (render_split.c). Internal to the CLI.
 */
#ifndef QR_CLI_RENDER_CTX_H
#define QR_CLI_RENDER_CTX_H

#include <stdbool.h>

#include "cli/cli.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"

/* Where frames are rendered, decided once before any work is done, and on
 * the GPU what stays there from frame to frame: the scene (stepped in
 * place) and one renderer for the image size. */
typedef struct render_ctx {
    cli_device_choice dev;
    qr_render_mode mode;
    qr_index_params params;
    qr_gpu_scene *gs;
    qr_gpu_renderer *r;
    double upload_ms;       /* once, with the first frame's times */
    qr_frame_timing timing; /* of the last frame (CUDA events) */
    qr_cpu_timing cpu;      /* of the last frame on the fast CPU renderer */
    int32_t width, height;  /* the rendered image's */
    size_t gpu_memory;      /* --gpu-memory (0: what the device has free) */
    int32_t band_rows;      /* rows of a band when the GPU renders in bands, else 0 */
    cli_frame_pool *pool;   /* a GPU sequence's files, written while the next renders */
} render_ctx;

/* What a PNG says about itself (tEXt chunks): enough to render it again.
 * Nothing that depends on the machine (device, threads, times), so that
 * equal images are equal files wherever they were rendered. */
typedef struct png_meta {
    char seed[16], frame[24], size[32];
    qr_image_text text[7];
} png_meta;

/* Resolves --device before any work is done, so that --device gpu fails
 * at once: CLI_EXIT_OK, or prints why not and answers the exit code. */
int render_ctx_init(render_ctx *ctx, cli_device requested, qr_render_mode mode,
                    const qr_index_params *params);
/* The GPU part of render_ctx_init for CUDA device `device`, made the calling
 * thread's current device: a lane of a split render (ctx's mode and params
 * set by the caller). */
qr_status render_ctx_init_device(render_ctx *ctx, int device, qr_error *err);
/* Once the scene is loaded: on the GPU (the calling thread's current
 * device), uploads it and makes the renderer (whole, or in bands when
 * `stream` and the image does not fit ctx->gpu_memory). */
qr_status render_ctx_start(render_ctx *ctx, const qr_scene *scene, int32_t width,
                           int32_t height, bool stream, qr_image_format format, qr_error *err);
void render_ctx_free(render_ctx *ctx);
/* Brings the scene to frame k's state: the host scene on the CPU, the
 * device scene on the GPU. */
qr_status render_seek(render_ctx *ctx, qr_scene *scene, int64_t k, qr_error *err);
/* Renders the current state into img (NULL: nothing, write streams it). */
qr_status render_frame(render_ctx *ctx, const qr_scene *scene, qr_image *img, qr_error *err);
/* The PNG text of a frame into m, pointed to by opts. */
void render_png_meta(png_meta *m, const qr_scene *scene, bool builtin, uint32_t seed,
                     int64_t frame, int32_t width, int32_t height, const char *mode, bool keep,
                     qr_image_write_options *opts);
/* Writes the frame to path: streamed from the renderer (stream), else img. */
qr_status render_write_frame(render_ctx *ctx, const qr_scene *scene, const qr_image *img,
                             bool stream, const char *path, qr_image_format format,
                             const qr_image_write_options *opts, qr_error *err);

#endif
