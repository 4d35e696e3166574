/* cmd_render.c — `quadrender render`: scene in, image file(s) out.
 *
 * load the scene -> for each frame: render_seek, render_frame, write.
 * render_seek and render_frame are the places that know which device runs;
 * render_ctx_init picks it (--device), render_ctx_start sets the GPU up.
 * On the GPU the scene is uploaded once and stepped there between frames.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/render_ctx.h"
#include "cli/render_split.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"
#include "quadrender/threads.h"

/* Longest -o we accept: leaves room for "_NNNN" and the writer's temporary
 * name within PATH_MAX. */
#define MAX_OUT_LEN 3900

/* --frames ranges longer than this need --force: a typo in A:B should not
 * fill a disk with files. */
#define MAX_FRAMES_UNFORCED INT64_C(100000)

/* --format: png, ppm or pfm, into a qr_image_format. */
static const char *set_format(const char *text, void *dest)
{
    qr_image_format f = !strcmp(text, "png")   ? QR_FORMAT_PNG
                        : !strcmp(text, "ppm") ? QR_FORMAT_PPM
                        : !strcmp(text, "pfm") ? QR_FORMAT_PFM
                                               : QR_FORMAT_UNKNOWN;
    if (f == QR_FORMAT_UNKNOWN)
        return "png, ppm or pfm";
    *(qr_image_format *)dest = f;
    return NULL;
}


/* Checks, before any work, every file a run writes (a run of more than
 * MAX_FRAMES_UNFORCED frames: the first; the writer checks the others). */
static int check_outputs(const cli_frame_names *names, cli_range frames)
{
    int64_t last = frames.last - frames.first < MAX_FRAMES_UNFORCED ? frames.last : frames.first;
    char path[sizeof names->prefix + sizeof names->suffix + 24];
    for (int64_t k = frames.first; k <= last; k++) {
        cli_frame_name(names, k, path, sizeof path);
        int rc = cli_check_output_path(path);
        if (rc != CLI_EXIT_OK)
            return rc;
        if (names->one)
            break;
    }
    return CLI_EXIT_OK;
}

/* --aspect: stretch (0) or keep (1). */
static const char *set_aspect(const char *text, void *dest)
{
    if (!strcmp(text, "stretch")) *(int *)dest = 0;
    else if (!strcmp(text, "keep")) *(int *)dest = 1;
    else return "stretch or keep";
    return NULL;
}

/* --aspect keep on a W x H image: the square of the longer side is
 * rendered (every renderer's normalized coordinates then scale both axes
 * alike, so circles stay round) and the centred W x H window of it is
 * kept: rows and columns (S - W) / 2 and (S - H) / 2 on. */
static void crop_centre(const qr_image *square, qr_image *out)
{
    const int32_t ox = (square->width - out->width) / 2, oy = (square->height - out->height) / 2;
    for (int32_t j = 0; j < out->height; j++)
        memcpy(out->rgba + (size_t)j * (size_t)out->width * 4,
               square->rgba + ((size_t)(j + oy) * (size_t)square->width + (size_t)ox) * 4,
               (size_t)out->width * 4 * sizeof(float));
}

static const char *set_png_level(const char *text, void *dest)
{
    uint64_t v;
    if (!cli_parse_u64(text, 9, &v))
        return "a PNG level from 0 to 9";
    *(int *)dest = (int)v;
    return NULL;
}

/* The render split over GPUs or processes (render_split.c): files only,
 * each image whole as rendered (no --aspect keep crop). With no -o the
 * files are named after the scene, which each process loads itself. */
static int run_split(const cli_cmd *cmd, render_split_job *job, const char *out,
                     cli_frame_names *names)
{
    const char *how = job->mpi->size > 1 ? "under an MPI launcher" : "--gpus";
    if (job->keep && job->width != job->height)
        return cli_usage_error(cmd, "%s: --aspect keep only on a square image", how);
    if (out && cli_output_is_stream(out))
        return cli_usage_error(cmd, "%s: files only, not -, a FIFO or a device", how);
    qr_error err;
    qr_scene *scene = NULL;
    int rc = CLI_EXIT_OK;
    if (qr_scene_load(job->scene_arg, job->seed, &scene, &err) != QR_OK)
        rc = cli_fail(&err, CLI_PHASE_INPUT);
    char default_out[sizeof scene->name + 8];
    if (rc == CLI_EXIT_OK && !out) {
        snprintf(default_out, sizeof default_out, "%s.png", scene->name);
        if (job->format == QR_FORMAT_UNKNOWN)
            job->format = QR_FORMAT_PNG;
        cli_frame_names_init(names, default_out, job->many ? &job->frames : NULL, false);
        rc = check_outputs(names, job->frames);
    }
    job->scene = scene;
    if ((rc = cli_mpi_max(job->mpi, rc)) == CLI_EXIT_OK)
        rc = render_split(job);
    qr_scene_destroy(scene);
    return rc;
}

static int run_render(const cli_cmd *cmd, int argc, char **argv)
{
    cli_scene_opts so;
    cli_range frames = {0, 0};
    const char *out = NULL;
    cli_device device = CLI_DEVICE_AUTO;
    int exact = 0, fast = 0, reference = 0, no_clobber = 0, force = 0, keep = 0;
    qr_image_format format = QR_FORMAT_UNKNOWN;
    qr_image_write_options write_opts = qr_image_write_options_default();
    qr_index_params params;
    size_t gpu_memory = 0;
    int gpus[RENDER_SPLIT_MAX_GPUS + 1] = {0};
    enum {
        O_SCENE,
        O_FRAMES = O_SCENE + CLI_SCENE_NOPTS,
        O_OUT,
        O_DEVICE,
        O_EXACT,
        O_FAST,
        O_PNG_LEVEL,
        O_REFERENCE,
        O_FORMAT,
        O_NO_CLOBBER,
        O_FORCE,
        O_ASPECT,
        O_GPU_MEMORY,
        O_GPUS,
        O_INDEX,
        O_COUNT = O_INDEX + CLI_INDEX_NOPTS
    };
    cli_opt opts[O_COUNT] = {
        [O_FRAMES] = {"--frames", NULL, "A:B", cli_set_frames, &frames,
                      "render frames A to B, one file each (NAME_%04d.EXT)"},
        [O_OUT] = {"--output", "-o", "FILE", cli_set_string, &out,
                   "output image, .png, .ppm or .pfm, or - for stdout (default SCENE.png)"},
        [O_FORMAT] = {"--format", NULL, "FMT", set_format, &format,
                      "png, ppm or pfm (default: by extension; png for - and devices)"},
        [O_NO_CLOBBER] = {"--no-clobber", "-n", NULL, NULL, &no_clobber,
                          "never replace an existing file (exit 4 before any work)"},
        [O_ASPECT] = {"--aspect", NULL, "HOW", set_aspect, &keep,
                      "stretch (the scene's unit square fills the image; default) or keep "
                      "(circles stay round)"},
        [O_GPU_MEMORY] = {"--gpu-memory", NULL, "SIZE", cli_set_bytes, &gpu_memory,
                          "GPU memory the render may use, e.g. 8G; an image that does not fit "
                          "renders in bands (default: what is free)"},
        [O_GPUS] = {"--gpus", NULL, "LIST", render_split_set_gpus, gpus,
                    "all, or CUDA devices 0,1,...: split the frames (--frames), or one image's "
                    "stripes of rows, over these GPUs"},
        [O_FORCE] = {"--force", NULL, NULL, NULL, &force,
                     "allow --frames ranges of more than 100000 frames"},
        [O_DEVICE] = {"--device", NULL, "DEV", cli_set_device, &device,
                      "auto, gpu, cpu or cpu-reference (default auto: the GPU when usable)"},
        [O_EXACT] = {"--exact", NULL, NULL, NULL, &exact,
                     "bit-identical to the CPU reference (back to front)"},
        [O_FAST] = {"--fast", NULL, NULL, NULL, &fast,
                    "front to back with early stop, within 1e-5 (the default)"},
        [O_PNG_LEVEL] = {"--png-level", NULL, "N", set_png_level, &write_opts.png_level,
                         "PNG compression, 0 (none) to 9 (smallest) (default 1, the fastest)"},
        [O_REFERENCE] = {"--reference", NULL, NULL, NULL, &reference,
                         "the serial CPU reference renderer (= --device cpu-reference)"},
    };
    const char *scene_arg = NULL;
    int rc = cli_parse_scene_command(cmd, opts, O_COUNT, O_SCENE, O_INDEX, argc, argv, &so,
                                     &params, &scene_arg);
    if (rc == CLI_PARSE_HELP)
        return CLI_EXIT_OK;
    if (rc != CLI_PARSE_OK)
        return rc;
    if (opts[O_SCENE + CLI_SO_FRAME].given && opts[O_FRAMES].given)
        return cli_usage_error(cmd, "--frame cannot be combined with --frames");
    if (exact && fast)
        return cli_usage_error(cmd, "--exact cannot be combined with --fast");
    if (reference) {
        if (opts[O_DEVICE].given && device != CLI_DEVICE_CPU_REFERENCE)
            return cli_usage_error(cmd, "--reference cannot be combined with --device gpu/cpu/auto");
        if (fast)
            return cli_usage_error(cmd, "--reference renders the exact image: not with --fast");
        device = CLI_DEVICE_CPU_REFERENCE;
    }
    bool many = opts[O_FRAMES].given;
    if (!many)
        frames.first = frames.last = so.frame;
    if (many && frames.last - frames.first >= MAX_FRAMES_UNFORCED && !force)
        return cli_usage_error(cmd,
                               "--frames %lld:%lld: %lld frames, one file each; more than %lld "
                               "need --force",
                               (long long)frames.first, (long long)frames.last,
                               (long long)(frames.last - frames.first + 1),
                               (long long)MAX_FRAMES_UNFORCED);
    cli_set_no_clobber(no_clobber);
    cli_frame_names names;
    if (out) {
        if (strlen(out) > MAX_OUT_LEN)
            return cli_usage_error(cmd, "-o/--output: file name longer than %d bytes",
                                   MAX_OUT_LEN);
        if (format == QR_FORMAT_UNKNOWN)
            format = qr_image_format_from_path(out);
        if (format == QR_FORMAT_UNKNOWN && cli_output_is_stream(out))
            format = QR_FORMAT_PNG;
        if (format == QR_FORMAT_UNKNOWN)
            return cli_usage_error(cmd,
                                   "-o/--output: '%s' is not a .png, .ppm or .pfm file name "
                                   "(or -, or give --format)",
                                   out);
        /* the writers that take a format besides the name's take no level */
        if (opts[O_PNG_LEVEL].given && qr_image_format_from_path(out) != format)
            return cli_usage_error(cmd, "--png-level: only with an -o name ending in .png");
        const char *bad = cli_frame_names_init(&names, out, many ? &frames : NULL, true);
        if (bad)
            return cli_usage_error(cmd, "-o/--output: '%s': expected %s", out, bad);
        if ((rc = check_outputs(&names, frames)) != CLI_EXIT_OK)
            return rc;
    }

    qr_render_mode mode = exact ? QR_RENDER_EXACT : QR_RENDER_FAST;
    qr_error err;
    /* several GPUs (--gpus) or processes (an MPI launcher): render_split.c */
    cli_mpi mpi;
    if (cli_mpi_start(&mpi, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_RUN);
    if (opts[O_GPUS].given && (device == CLI_DEVICE_CPU || device == CLI_DEVICE_CPU_REFERENCE))
        rc = cli_usage_error(cmd, "--gpus: not with --device cpu or --reference");
    int ngpus = gpus[0];
    if (ngpus < 0) { /* all */
        ngpus = qr_gpu_count() < RENDER_SPLIT_MAX_GPUS ? qr_gpu_count() : RENDER_SPLIT_MAX_GPUS;
        for (int i = 0; i < ngpus; i++)
            gpus[1 + i] = i;
    }
    if (rc == CLI_EXIT_OK && ngpus > 1 && qr_gpu_count() == 0) {
        /* no GPU to split over: --device gpu fails as it would alone, auto
         * renders in this one process on the CPU, saying so */
        if (device == CLI_DEVICE_GPU) {
            cli_message("--device gpu: --gpus: no CUDA device found");
            rc = CLI_EXIT_NO_GPU;
        }
        ngpus = 0;
    }
    if (rc == CLI_EXIT_OK && (mpi.size > 1 || ngpus > 1)) {
        render_split_job job = {
            .scene_arg = scene_arg, .seed = so.seed, .width = so.width, .height = so.height,
            .keep = keep != 0, .frames = frames, .many = many, .names = &names,
            .format = format, .write_opts = write_opts, .params = params, .mode = mode,
            .device = device, .gpu_memory = gpu_memory, .ngpus = ngpus, .mpi = &mpi};
        memcpy(job.gpus, gpus + 1, sizeof job.gpus);
        rc = run_split(cmd, &job, out, &names);
    }
    cli_mpi_end(&mpi);
    if (rc != CLI_EXIT_OK || mpi.size > 1 || ngpus > 1)
        return rc;
    if (ngpus == 1)
        qr_gpu_select(gpus[1], NULL);

    render_ctx ctx;
    if ((rc = render_ctx_init(&ctx, device, mode, &params)) != CLI_EXIT_OK)
        return rc;
    ctx.gpu_memory = gpu_memory;
    /* the image is streamed out in bands, except with --aspect keep, which
     * crops a whole square on the host */
    if ((so.width > QR_IMAGE_MAX_DIM || so.height > QR_IMAGE_MAX_DIM) && keep)
        return cli_usage_error(cmd,
                               "-s/--width/--height: --aspect keep takes images up to %d pixels a "
                               "side (%dx%d asked)",
                               (int)QR_IMAGE_MAX_DIM, (int)so.width, (int)so.height);

    qr_scene *scene = NULL;
    qr_image *img = NULL, *square = NULL;
    cli_progress bar = {0};
    double t0 = cli_now_ms();
    if (qr_scene_load(scene_arg, so.seed, &scene, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    double load_ms = cli_now_ms() - t0;
    if (ctx.dev.note[0])
        cli_info("%s%s", ctx.dev.note,
                 ctx.dev.reference ? "" : mode == QR_RENDER_EXACT ? ", exact mode" : ", fast mode");
    if (cli_verbose())
        cli_message("settings: %dx%d, seed %u, %s (capacity %d, min leaf %d, max leaf %d, split "
                    "cost %d, max depth %d, deep leaf %d), PNG level %d, %d CPU threads",
                    (int)so.width, (int)so.height, so.seed,
                    params.uniform ? "uniform grid" : "quadtree", params.capacity,
                    params.min_leaf, params.max_leaf, params.split_cost, params.max_depth,
                    params.deep_leaf,
                    write_opts.png_level, qr_threads());
    /* the image rendered: the output itself, or with --aspect keep on a
     * non-square image the square of its longer side (crop_centre) */
    const int32_t side = so.width > so.height ? so.width : so.height;
    const bool crop = keep && so.width != so.height;
    /* render_write_frame renders and streams the image out in bands (from the GPU
     * or the CPU), unless it is cropped on the host */
    const bool stream = !crop;
    if ((!stream && qr_image_create(so.width, so.height, &img, &err) != QR_OK) ||
        (crop && qr_image_create(side, side, &square, &err) != QR_OK) ||
        render_ctx_start(&ctx, scene, crop ? side : so.width, crop ? side : so.height, stream,
                         format == QR_FORMAT_UNKNOWN ? QR_FORMAT_PNG : format, &err) != QR_OK) {
        rc = cli_fail(&err, CLI_PHASE_RUN);
        goto done;
    }
    char default_out[sizeof scene->name + 8];
    if (!out) {
        snprintf(default_out, sizeof default_out, "%s.png", scene->name);
        out = default_out;
        if (format == QR_FORMAT_UNKNOWN)
            format = QR_FORMAT_PNG;
        cli_frame_names_init(&names, out, many ? &frames : NULL, false);
        if ((rc = check_outputs(&names, frames)) != CLI_EXIT_OK)
            goto done;
    }

    /* A GPU sequence of named files (not a stream) of whole images: each
     * file is encoded on one core while the next frames render, up to
     * 1 GiB of frames waiting. Without it (frames too large) every frame is
     * encoded on all cores in turn. */
    if (many && ctx.dev.gpu && stream && !ctx.band_rows && !names.one &&
        !cli_output_is_stream(out)) {
        const qr_image_format f = format != QR_FORMAT_UNKNOWN ? format
                                  : qr_image_format_from_path(out) != QR_FORMAT_UNKNOWN
                                      ? qr_image_format_from_path(out)
                                      : QR_FORMAT_PNG;
        int workers = qr_threads();
        if (workers > 32)
            workers = 32;
        if (cli_frame_pool_start(f, so.width, so.height, write_opts.png_level, workers,
                                 (size_t)1 << 30, &ctx.pool, &err) != QR_OK)
            ctx.pool = NULL;
    }
    double gpu_ms = 0, wall0 = cli_now_ms();
    /* a sequence on a terminal shows a progress bar instead of a line per frame */
    cli_progress_begin(&bar, "frames", frames.last - frames.first + 1);
    const bool lines = !many || !bar.on || cli_verbose();
    for (int64_t k = frames.first; k <= frames.last; k++) {
        char path[sizeof names.prefix + sizeof names.suffix + 24];
        cli_frame_name(&names, k, path, sizeof path);
        if (lines)
            cli_info("%s (%d circles) %dx%d frame %lld on %s -> %s", scene->name, (int)scene->n,
                     (int)so.width, (int)so.height, (long long)k,
                     ctx.dev.gpu ? "the GPU" : ctx.dev.where, path);

        double t1 = cli_now_ms();
        if (render_seek(&ctx, scene, k, &err) != QR_OK) {
            rc = cli_fail(&err, CLI_PHASE_RUN);
            goto done;
        }
        double t2 = cli_now_ms();
        if (render_frame(&ctx, scene, crop ? square : stream ? NULL : img, &err) != QR_OK) {
            rc = cli_fail(&err, CLI_PHASE_RUN);
            goto done;
        }
        if (crop)
            crop_centre(square, img);
        double t3 = cli_now_ms();
        png_meta meta;
        render_png_meta(&meta, scene, qr_builtin_find(scene_arg) != NULL, so.seed, k, so.width,
                      so.height,
                      ctx.dev.reference ? "reference" : mode == QR_RENDER_EXACT ? "exact" : "fast",
                      keep, &write_opts);
        if (render_write_frame(&ctx, scene, img, stream, path, format, &write_opts, &err) != QR_OK) {
            rc = cli_fail(&err, CLI_PHASE_OUTPUT);
            goto done;
        }
        double t4 = cli_now_ms();
        /* the scene is loaded (and uploaded) once: its time belongs to the
         * first frame */
        char once[96] = "";
        if (k == frames.first && ctx.dev.gpu)
            snprintf(once, sizeof once, "load %.1f ms, upload %.1f ms, ", load_ms, ctx.upload_ms);
        else if (k == frames.first)
            snprintf(once, sizeof once, "load %.1f ms, ", load_ms);
        if (ctx.dev.gpu)
            gpu_ms += ctx.timing.frame_ms;
        cli_progress_step(&bar, k - frames.first + 1);
        if (!lines) {
        } else if (ctx.dev.gpu && ctx.band_rows) {
            cli_info("  %sseek %.1f ms, render and write in bands of %d rows %.1f ms", once,
                     t2 - t1, (int)ctx.band_rows, t4 - t3);
        } else if (ctx.dev.gpu) {
            /* the GPU stages from CUDA events; the wall time around them adds
             * the launches and the read-back of the index's size */
            const qr_frame_timing *ft = &ctx.timing;
            cli_info("  %sseek %.1f ms, index %.3f ms + render %.3f ms = %.3f ms on the GPU, "
                     "download and write %.1f ms",
                     once, t2 - t1, ft->build.total_ms, ft->render_ms, ft->frame_ms, t4 - t3);
            if (cli_verbose())
                cli_message("    index stages: boxes %.3f, tree %.3f, count %.3f, scan %.3f, "
                            "emit %.3f, sort %.3f ms",
                            ft->build.boxes_ms, ft->build.tree_ms, ft->build.count_ms,
                            ft->build.scan_ms, ft->build.emit_ms, ft->build.sort_ms);
        } else if (ctx.dev.reference) {
            cli_info("  %sseek %.1f ms, render and write %.1f ms", once, t2 - t1, t4 - t2);
        } else {
            /* streamed: the index and the render happen inside t2..t4 */
            const double rest = (t4 - t2) - ctx.cpu.build_ms - ctx.cpu.render_ms;
            cli_info("  %sseek %.1f ms, index %.1f ms + render %.1f ms (%s mode), write %.1f ms",
                     once, t2 - t1, ctx.cpu.build_ms, ctx.cpu.render_ms,
                     mode == QR_RENDER_EXACT ? "exact" : "fast", rest > 0 ? rest : 0.0);
        }
    }
    if (ctx.pool && cli_frame_pool_finish(ctx.pool, &err) != QR_OK) {
        rc = cli_fail(&err, CLI_PHASE_OUTPUT);
        goto done;
    }
    cli_progress_end(&bar);
    if (many) {
        int64_t n = frames.last - frames.first + 1;
        char per[80] = "";
        if (ctx.dev.gpu)
            snprintf(per, sizeof per, ", %.3f ms per frame on the GPU (index + render)",
                     gpu_ms / (double)n);
        cli_info("%lld frames in %.1f ms%s", (long long)n, cli_now_ms() - wall0, per);
    }
    rc = CLI_EXIT_OK;
done:
    cli_progress_end(&bar); /* (a failure's message on a line of its own) */
    render_ctx_free(&ctx);
    qr_image_destroy(img);
    qr_image_destroy(square);
    qr_scene_destroy(scene);
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
             "NAME_%04d.EXT for NAME.EXT given by -o (more digits when B needs them),\n"
             "e.g. -o out/snow.ppm writes out/snow_0003.ppm for frame 3; an -o holding\n"
             "%d or %0Nd names the files itself (-o out/f%06d.png; %% for a '%').\n"
             "More than 100000 frames need --force. To -, a FIFO or a device every frame\n"
             "is written in turn.\n"
             "\n"
             "Files are replaced whole: written to a temporary file beside the target,\n"
             "synced, then renamed over it, keeping an existing file's mode; a symbolic\n"
             "link is followed. Interrupted (INT, TERM, HUP), the temporary file goes.\n"
             "\n"
             "--fast (the default) lets every colour channel differ from the CPU reference\n"
             "by at most 1e-5 and leaves alpha at 1; --exact matches it bit for bit (on the\n"
             "GPU, snow within 1e-5). Without a usable GPU (or with --device cpu) the fast\n"
             "CPU renderer runs: the same quadtree, every core (--threads N). --reference\n"
             "runs the serial reference renderer, the oracle. The index options change the\n"
             "speed, never the picture; the reference has no index and ignores them.\n"
             "\n"
             "On the GPU an image that does not fit the GPU memory budget (--gpu-memory,\n"
             "default what the device has free) is rendered in bands of rows, each\n"
             "streamed into the file as the next renders: the same bytes, sides up to\n"
             "131072 pixels. The CPU renders large images in bands too.\n"
             "\n"
             "--gpus all|LIST, or an MPI launcher (mpirun --bind-to none -n N, in a build\n"
             "with -DQR_MPI=ON), splits the work: frames are dealt to the GPUs or\n"
             "processes in turn; one image is cut into stripes of rows, each rendered\n"
             "and compressed by one of them and written in order by the first. The\n"
             "files are the same bytes; a failing GPU or process stops them all.\n"
             "\n"
             "Exit codes: 0 success, 1 other failure (an MPI error), 2 bad command line,\n"
             "3 bad scene, 4 cannot write the image (or it exists, with -n), 5 no usable\n"
             "GPU (--device gpu, a --gpus device not there), 6 out of memory (also: a\n"
             "--gpu-memory that holds no band), 7 CUDA error; ended by SIGINT, SIGTERM or\n"
             "SIGHUP: 130, 143, 129.\n",
    .run = run_render,
    .max_side = QR_IMAGE_BANDS_MAX_DIM,
};
