/* cmd_render.c — `quadrender render`: scene in, image file(s) out.
 *
 * load the scene -> for each frame: seek, render_frame, write.
 * render_frame is the one place that knows which renderer runs; the GPU
 * renderer slots in there (and its set-up in render_ctx_init).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/render_cpu.h"
#include "quadrender/scene.h"

/* Longest -o we accept: leaves room for "_NNNN" and the writer's temporary
 * name within PATH_MAX. */
#define MAX_OUT_LEN 3900

/* Where frames are rendered, decided once before any work is done. */
typedef struct render_ctx {
    cli_device device; /* CLI_DEVICE_CPU or CLI_DEVICE_GPU, never AUTO */
    const char *where; /* "the CPU", for the messages */
    const char *note;  /* why auto chose what it chose, or NULL */
} render_ctx;

/* Resolves --device before any work is done, so that --device gpu fails
 * at once. Returns CLI_EXIT_OK, or prints why not and returns the exit code. */
static int render_ctx_init(render_ctx *ctx, cli_device requested)
{
    ctx->device = CLI_DEVICE_CPU;
    ctx->where = "the CPU";
    ctx->note = NULL;
    switch (requested) {
    case CLI_DEVICE_CPU:
        return CLI_EXIT_OK;
    case CLI_DEVICE_AUTO:
        /* With a GPU renderer: qr_gpu_probe here, and the GPU when it is usable. */
        ctx->note = "no GPU renderer in this build yet: rendering on the CPU";
        return CLI_EXIT_OK;
    case CLI_DEVICE_GPU: {
        /* Say first what the user can fix (no driver, no device), then what
         * only a newer build can. */
        qr_error err;
        if (qr_gpu_probe(NULL, &err) != QR_OK)
            fprintf(stderr, "quadrender: --device gpu: %s\n", err.msg);
        else
            fputs("quadrender: --device gpu: this build has no GPU renderer yet "
                  "(use --device cpu)\n",
                  stderr);
        return CLI_EXIT_NO_GPU;
    }
    }
    return CLI_EXIT_FAILURE;
}

/* Renders the scene's current state into img on the device ctx chose. */
static qr_status render_frame(const render_ctx *ctx, const qr_scene *scene, qr_image *img,
                              qr_error *err)
{
    switch (ctx->device) {
    case CLI_DEVICE_GPU:
        return qr_fail(err, QR_ERR_NO_GPU, "no GPU renderer in this build yet");
    default:
        return qr_render_cpu(scene, img, err);
    }
}

/* The file frame `frame` of a --frames run goes to: "out/snow.ppm", 3 ->
 * "out/snow_0003.ppm". `out` has an extension (its format was checked). */
static void frame_path(char *buf, size_t size, const char *out, int64_t frame)
{
    const char *base = strrchr(out, '/');
    const char *dot = strrchr(base ? base + 1 : out, '.');
    int stem = dot ? (int)(dot - out) : (int)strlen(out);
    snprintf(buf, size, "%.*s_%04lld%s", stem, out, (long long)frame, dot ? dot : "");
}

static int run_render(const cli_cmd *cmd, int argc, char **argv)
{
    int32_t size = 1024, width = 1024, height = 1024;
    uint32_t seed = 0;
    int64_t frame = 0;
    cli_range frames = {0, 0};
    const char *out = NULL;
    cli_device device = CLI_DEVICE_AUTO;
    enum { O_SIZE, O_WIDTH, O_HEIGHT, O_SEED, O_FRAME, O_FRAMES, O_OUT, O_DEVICE, O_COUNT };
    cli_opt opts[O_COUNT] = {
        [O_SIZE] = {"--size", "-s", "N", cli_set_dim, &size,
                    "image width and height in pixels (default 1024)"},
        [O_WIDTH] = {"--width", NULL, "W", cli_set_dim, &width, "image width (default 1024)"},
        [O_HEIGHT] = {"--height", NULL, "H", cli_set_dim, &height, "image height (default 1024)"},
        [O_SEED] = {"--seed", NULL, "N", cli_set_seed, &seed,
                    "random seed of a built-in scene (default 0)"},
        [O_FRAME] = {"--frame", NULL, "K", cli_set_frame, &frame,
                     "render frame K, after K+1 animation steps (default 0)"},
        [O_FRAMES] = {"--frames", NULL, "A:B", cli_set_frames, &frames,
                      "render frames A to B, one file each (NAME_%04d.EXT)"},
        [O_OUT] = {"--output", "-o", "FILE", cli_set_string, &out,
                   "output image, .png, .ppm or .pfm (default SCENE.png)"},
        [O_DEVICE] = {"--device", NULL, "DEV", cli_set_device, &device,
                      "auto, gpu or cpu (default auto: the GPU when usable)"},
    };
    char *pos[1];
    int npos;
    int rc = cli_parse(cmd, opts, O_COUNT, argc, argv, pos, 1, &npos);
    if (rc == CLI_PARSE_HELP)
        return CLI_EXIT_OK;
    if (rc != CLI_PARSE_OK)
        return rc;
    if (npos == 0)
        return cli_usage_error(cmd, "render: missing SCENE (a built-in name or a .circles/.par file)");
    if (opts[O_SIZE].given && (opts[O_WIDTH].given || opts[O_HEIGHT].given))
        return cli_usage_error(cmd, "-s/--size cannot be combined with --width or --height");
    if (opts[O_FRAME].given && opts[O_FRAMES].given)
        return cli_usage_error(cmd, "--frame cannot be combined with --frames");
    if (opts[O_SIZE].given)
        width = height = size;
    bool many = opts[O_FRAMES].given;
    if (!many)
        frames.first = frames.last = frame;
    if (out) {
        if (qr_image_format_from_path(out) == QR_FORMAT_UNKNOWN)
            return cli_usage_error(cmd, "-o/--output: '%s' is not a .png, .ppm or .pfm file name",
                                   out);
        if (strlen(out) > MAX_OUT_LEN)
            return cli_usage_error(cmd, "-o/--output: file name longer than %d bytes",
                                   MAX_OUT_LEN);
        if ((rc = cli_check_output_path(out)) != CLI_EXIT_OK)
            return rc;
    }

    render_ctx ctx;
    if ((rc = render_ctx_init(&ctx, device)) != CLI_EXIT_OK)
        return rc;

    qr_error err;
    qr_scene *scene = NULL;
    qr_image *img = NULL;
    double t0 = cli_now_ms();
    if (qr_scene_load(pos[0], seed, &scene, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    double load_ms = cli_now_ms() - t0;
    if (qr_image_create(width, height, &img, &err) != QR_OK) {
        rc = cli_fail(&err, CLI_PHASE_RUN);
        goto done;
    }
    if (ctx.note)
        fprintf(stderr, "quadrender: %s\n", ctx.note);
    char default_out[sizeof scene->name + 8];
    if (!out) {
        snprintf(default_out, sizeof default_out, "%s.png", scene->name);
        out = default_out;
    }

    for (int64_t k = frames.first; k <= frames.last; k++) {
        char path[MAX_OUT_LEN + 32];
        if (many)
            frame_path(path, sizeof path, out, k);
        else
            snprintf(path, sizeof path, "%s", out);
        fprintf(stderr, "quadrender: %s (%d circles) %dx%d frame %lld on %s -> %s\n", scene->name,
                (int)scene->n, (int)width, (int)height, (long long)k, ctx.where, path);

        double t1 = cli_now_ms();
        if (qr_scene_seek_frame(scene, k, &err) != QR_OK) {
            rc = cli_fail(&err, CLI_PHASE_RUN);
            goto done;
        }
        double t2 = cli_now_ms();
        if (render_frame(&ctx, scene, img, &err) != QR_OK) {
            rc = cli_fail(&err, CLI_PHASE_RUN);
            goto done;
        }
        double t3 = cli_now_ms();
        if (qr_image_write(img, path, &err) != QR_OK) {
            rc = cli_fail(&err, CLI_PHASE_OUTPUT);
            goto done;
        }
        double t4 = cli_now_ms();
        /* the scene is loaded once: its time belongs to the first frame */
        char load[48] = "";
        if (k == frames.first)
            snprintf(load, sizeof load, "load %.1f ms, ", load_ms);
        fprintf(stderr, "quadrender:   %sseek %.1f ms, render %.1f ms, write %.1f ms\n", load,
                t2 - t1, t3 - t2, t4 - t3);
    }
    rc = CLI_EXIT_OK;
done:
    qr_image_free(img);
    qr_scene_free(scene);
    return rc;
}

const cli_cmd cli_cmd_render = {
    .name = "render",
    .summary = "render a scene to an image file (PNG, PPM or PFM)",
    .args = "SCENE [options]",
    .about = "Renders SCENE, a built-in scene name (see 'quadrender scenes') or a\n"
             ".circles or .par file, and writes the image.\n",
    .notes = "Frame K of an animated scene is rendered after K+1 animation steps; static\n"
             "scenes look the same in every frame. With --frames A:B the frames go to\n"
             "NAME_%04d.EXT for NAME.EXT given by -o, e.g. -o out/snow.ppm writes\n"
             "out/snow_0003.ppm for frame 3.\n"
             "\n"
             "Exit codes: 0 success, 2 bad command line, 3 bad scene, 4 cannot write the\n"
             "image, 5 no usable GPU (--device gpu), 6 out of memory, 7 CUDA error.\n",
    .run = run_render,
};
