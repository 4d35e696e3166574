/* cmd_render.c — `quadrender render`: scene in, image file(s) out, through
 * the job API (quadrender/job.h): parse the command line, plan the job
 * (the device, the GPUs or MPI processes it splits over), run it, and
 * report what it says as it goes (one line a frame, or a progress bar).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/job.h"
#include "quadrender/scene.h"
#include "quadrender/threads.h"

/* Longest -o we accept: leaves room for "_NNNN" and the writer's temporary
 * name within PATH_MAX. */
#define MAX_OUT_LEN 3900

/* --frames ranges longer than this need --force: a typo in A:B should not
 * fill a disk with files. */
#define MAX_FRAMES_UNFORCED INT64_C(100000)

/* The command line, parsed. */
typedef struct render_args {
    cli_scene_opts so;
    cli_map_opts map;
    cli_range frames;
    bool many; /* --frames */
    const char *out, *scene_arg;
    qr_job_device device;
    int exact, fast, reference, no_clobber, force, keep;
    qr_image_format format;
    int png_level;
    qr_png_deflate deflate;
    int plan; /* --plan N */
    int32_t chunk; /* --chunk N (0: the scene whole) */
    qr_index_params params;
    size_t gpu_memory;
    int gpus[QR_JOB_MAX_GPUS + 1]; /* count (-1: all), devices */
    bool gpus_given, png_level_given;
    cli_frame_names names; /* once -o is known */
} render_args;

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

/* Whether the scene is a .npy file (any case, as the loader takes it),
 * which --chunk reads chunk by chunk. */
static bool streamed(const render_args *a)
{
    const size_t n = strlen(a->scene_arg);
    return a->chunk > 0 && n > 4 && !strcasecmp(a->scene_arg + n - 4, ".npy");
}

/* --aspect: stretch (0) or keep (1). */
static const char *set_aspect(const char *text, void *dest)
{
    if (!strcmp(text, "stretch")) *(int *)dest = 0;
    else if (!strcmp(text, "keep")) *(int *)dest = 1;
    else return "stretch or keep";
    return NULL;
}

/* Checks, before any work, every file a run writes (a run of more than
 * QR_JOB_CHECKED_FRAMES frames: the first; the writer checks the others). */
static int check_outputs(const cli_frame_names *names, cli_range frames)
{
    int64_t last = frames.last - frames.first < QR_JOB_CHECKED_FRAMES ? frames.last : frames.first;
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

/* ---- parse ------------------------------------------------------------------------- */

/* The options into a, by cli_parse: CLI_PARSE_OK, CLI_PARSE_HELP or an exit code. */
static int parse_options(const cli_cmd *cmd, int argc, char **argv, render_args *a)
{
    memset(a, 0, sizeof *a);
    a->device = QR_JOB_AUTO;
    a->format = QR_FORMAT_UNKNOWN;
    a->png_level = QR_PNG_LEVEL_DEFAULT;
    a->deflate = QR_PNG_DEFLATE_AUTO;
    enum {
        O_SCENE,
        O_FRAMES = O_SCENE + CLI_SCENE_NOPTS,
        O_OUT, O_DEVICE, O_EXACT, O_FAST, O_PNG_LEVEL, O_DEFLATE, O_REFERENCE, O_FORMAT, O_NO_CLOBBER,
        O_FORCE, O_ASPECT, O_GPU_MEMORY, O_GPUS, O_PLAN, O_CHUNK, O_MAP,
        O_PICTURE = O_MAP + CLI_MAP_NOPTS,
        O_INDEX = O_PICTURE + CLI_PICTURE_NOPTS,
        O_COUNT = O_INDEX + CLI_INDEX_NOPTS
    };
    cli_opt opts[O_COUNT] = {
        [O_FRAMES] = {"--frames", NULL, "A:B", cli_set_frames, &a->frames,
                      "render frames A to B, one file each (NAME_%04d.EXT)"},
        [O_OUT] = {"--output", "-o", "FILE", cli_set_string, &a->out,
                   "output image, .png, .ppm or .pfm, or - for stdout (default SCENE.png)"},
        [O_FORMAT] = {"--format", NULL, "FMT", set_format, &a->format,
                      "png, ppm or pfm (default: by extension; png for - and devices)"},
        [O_NO_CLOBBER] = {"--no-clobber", "-n", NULL, NULL, &a->no_clobber,
                          "never replace an existing file (exit 4 before any work)"},
        [O_ASPECT] = {"--aspect", NULL, "HOW", set_aspect, &a->keep,
                      "stretch (the scene's unit square fills the image; default) or keep "
                      "(circles stay round)"},
        [O_GPU_MEMORY] = {"--gpu-memory", NULL, "SIZE", cli_set_bytes, &a->gpu_memory,
                          "GPU memory the render may use, e.g. 8G; an image that does not fit "
                          "renders in bands, a scene that does not fit in chunks (default: what "
                          "is free)"},
        [O_GPUS] = {"--gpus", NULL, "LIST", cli_set_gpus, a->gpus,
                    "all, or CUDA devices 0,1,...: split the frames (--frames), or one image's "
                    "stripes of rows, over these GPUs"},
        [O_CHUNK] = {"--chunk", NULL, "N", cli_set_chunk, &a->chunk,
                     "draw the scene in depth-ordered chunks of N circles, each over the image "
                     "the ones before left (a .npy is then read chunk by chunk, never whole: "
                     "files larger than memory); one device (a GPU keeps the image on the device, "
                     "taking the chunks in parts that fit --gpu-memory), one image held whole"},
        [O_PLAN] = {"--plan", NULL, "N", cli_set_plan, &a->plan,
                    "one GPU: time the quadtree's candidate settings N frames each on the first "
                    "frame and render with the fastest (for long --frames runs; default 0: off)"},
        [O_FORCE] = {"--force", NULL, NULL, NULL, &a->force,
                     "allow --frames ranges of more than 100000 frames"},
        [O_DEVICE] = {"--device", NULL, "DEV", cli_set_device, &a->device,
                      "auto, gpu, cpu or cpu-reference (default auto: the GPU when usable)"},
        [O_EXACT] = {"--exact", NULL, NULL, NULL, &a->exact,
                     "bit-identical to the CPU reference (back to front)"},
        [O_FAST] = {"--fast", NULL, NULL, NULL, &a->fast,
                    "front to back with early stop, within 1e-5 (the default)"},
        [O_PNG_LEVEL] = {"--png-level", NULL, "N", cli_set_png_level, &a->png_level,
                         "PNG compression, 0 (none) to 9 (smallest) (default 1, the fastest)"},
        [O_DEFLATE] = {"--deflate", NULL, "ENC", cli_set_deflate, &a->deflate,
                       "PNG's compressor: zlib (on the host's cores, --png-level), portable "
                       "(quadrender's, on the GPU when it renders; the same bytes on the host) "
                       "or auto (portable for a large PNG the GPU renders; default)"},
        [O_REFERENCE] = {"--reference", NULL, NULL, NULL, &a->reference,
                         "the serial CPU reference renderer (= --device cpu-reference)"},
    };
    cli_map_opts_init(&opts[O_MAP], &a->map);
    cli_picture_opts_init(&opts[O_PICTURE], &a->map);
    int rc = cli_parse_scene_command(cmd, opts, O_COUNT, O_SCENE, O_INDEX, argc, argv, &a->so,
                                     &a->params, &a->scene_arg);
    if (rc != CLI_PARSE_OK)
        return rc;
    if ((rc = cli_map_opts_finish(cmd, &opts[O_MAP], &a->map)) != CLI_EXIT_OK)
        return rc;
    if (opts[O_SCENE + CLI_SO_FRAME].given && opts[O_FRAMES].given)
        return cli_usage_error(cmd, "--frame cannot be combined with --frames");
    if (a->reference && opts[O_DEVICE].given && a->device != QR_JOB_CPU_REFERENCE)
        return cli_usage_error(cmd, "--reference cannot be combined with --device gpu/cpu/auto");
    a->many = opts[O_FRAMES].given;
    a->gpus_given = opts[O_GPUS].given;
    a->png_level_given = opts[O_PNG_LEVEL].given;
    return CLI_PARSE_OK;
}

/* The checks of what was given together, and the files' names (-o). */
static int check_args(const cli_cmd *cmd, render_args *a)
{
    if (a->exact && a->fast)
        return cli_usage_error(cmd, "--exact cannot be combined with --fast");
    if (a->reference) {
        if (a->fast)
            return cli_usage_error(cmd, "--reference renders the exact image: not with --fast");
        a->device = QR_JOB_CPU_REFERENCE;
    }
    if (!a->many)
        a->frames.first = a->frames.last = a->so.frame;
    /* a .npy that cannot be held whole is drawn in chunks unasked, where
     * chunks can go (one device of one process) */
    qr_error err;
    int32_t chunk = 0;
    if (!a->chunk && !a->gpus_given && !qr_job_mpi_launched() &&
        qr_job_auto_chunk(a->scene_arg, a->so.width, a->so.height, &chunk, &err) == QR_OK &&
        chunk) {
        a->chunk = chunk;
        cli_info("%s cannot be held whole in this process's memory: drawn in chunks of %ld "
                 "circles (--chunk)", a->scene_arg, (long)chunk);
    }
    if (streamed(a) && (a->map.alpha || a->map.extent_given || a->map.color_by))
        return cli_usage_error(cmd, "--chunk reads %s chunk by chunk: --alpha, --extent and "
                               "--color-by need its circles whole", a->scene_arg);
    if (a->many && a->frames.last - a->frames.first >= MAX_FRAMES_UNFORCED && !a->force)
        return cli_usage_error(cmd,
                               "--frames %lld:%lld: %lld frames, one file each; more than %lld "
                               "need --force",
                               (long long)a->frames.first, (long long)a->frames.last,
                               (long long)(a->frames.last - a->frames.first + 1),
                               (long long)MAX_FRAMES_UNFORCED);
    cli_set_no_clobber(a->no_clobber);
    if (!a->out)
        return CLI_EXIT_OK;
    if (strlen(a->out) > MAX_OUT_LEN)
        return cli_usage_error(cmd, "-o/--output: file name longer than %d bytes", MAX_OUT_LEN);
    if (a->format == QR_FORMAT_UNKNOWN)
        a->format = qr_image_format_from_path(a->out);
    if (a->format == QR_FORMAT_UNKNOWN && cli_output_is_stream(a->out))
        a->format = QR_FORMAT_PNG;
    if (a->format == QR_FORMAT_UNKNOWN)
        return cli_usage_error(cmd,
                               "-o/--output: '%s' is not a .png, .ppm or .pfm file name "
                               "(or -, or give --format)",
                               a->out);
    if (a->png_level_given && a->deflate == QR_PNG_DEFLATE_PORTABLE)
        return cli_usage_error(cmd, "--png-level: the portable encoder (--deflate portable) has "
                               "no levels");
    /* a level only for PNG, and only where the name says PNG (the writers
     * that take a format besides the name's take no level) */
    if (a->png_level_given &&
        (a->format != QR_FORMAT_PNG || qr_image_format_from_path(a->out) != a->format))
        return cli_usage_error(cmd, "--png-level: only with an -o name ending in .png");
    const char *bad = cli_frame_names_init(&a->names, a->out, a->many ? &a->frames : NULL, true);
    if (bad)
        return cli_usage_error(cmd, "-o/--output: '%s': expected %s", a->out, bad);
    /* one of an MPI job's processes checks only what it writes itself, and
     * only once the job has started (qr_job_run): on another machine the
     * file's folder need not exist */
    return qr_job_mpi_launched() ? CLI_EXIT_OK : check_outputs(&a->names, a->frames);
}

/* ---- plan -------------------------------------------------------------------------- */

/* The job's params from the command line (the scene and the files' names
 * are set once the scene is loaded). */
static void job_params(const render_args *a, qr_job_params *p)
{
    qr_job_params_init(p);
    p->scene_name = a->scene_arg;
    p->seed = a->so.seed;
    p->width = a->so.width;
    p->height = a->so.height;
    p->first = a->frames.first;
    p->last = a->frames.last;
    p->keep_aspect = a->keep != 0;
    p->mode = a->exact ? QR_RENDER_EXACT : QR_RENDER_FAST;
    p->index = a->params;
    p->device = a->device;
    p->gpu_memory = a->gpu_memory;
    p->format = a->format;
    p->png_level = a->png_level;
    p->png_deflate = a->deflate;
    p->software = "quadrender " QR_VERSION " (git " QR_GIT_REV ")";
    p->stage_timing = cli_verbose();
    p->plan_trials = a->plan;
    p->chunk_circles = a->chunk;
    p->output = "-"; /* a stand-in until the names are known */
    int n = a->gpus[0];
    if (n < 0) /* all */
        n = qr_gpu_count() < QR_JOB_MAX_GPUS ? qr_gpu_count() : QR_JOB_MAX_GPUS;
    for (int i = 0; i < n; i++)
        p->gpus[i] = a->gpus[0] < 0 ? i : a->gpus[1 + i];
    p->ngpus = n;
}

/* What the job's plan refuses, and what the CLI refuses of it (a split
 * writes files only; --aspect keep crops on the host). */
static int plan_job(const cli_cmd *cmd, const render_args *a, const qr_job_params *p,
                    qr_job_plan *plan)
{
    if (a->gpus_given && (a->device == QR_JOB_CPU || a->device == QR_JOB_CPU_REFERENCE))
        return cli_usage_error(cmd, "--gpus: not with --device cpu or --reference");
    /* the library refuses these too (qr_job_plan_of); here they are the
     * command line's mistakes */
    if (a->chunk && a->gpus_given)
        return cli_usage_error(cmd, "--chunk: a scene in chunks renders on one device (not with "
                               "--gpus)");
    if (a->chunk && qr_job_mpi_launched() && a->device == QR_JOB_GPU)
        return cli_usage_error(cmd, "--chunk under an MPI launcher: each process draws its "
                               "stripes on its CPU, not with --device gpu");
    if (a->chunk && qr_job_mpi_launched() && a->many)
        return cli_usage_error(cmd, "--chunk under an MPI launcher: one image, not --frames");
    if (a->chunk && (a->so.width > QR_IMAGE_MAX_DIM || a->so.height > QR_IMAGE_MAX_DIM))
        return cli_usage_error(cmd,
                               "-s/--width/--height: a scene in chunks (--chunk) is drawn into "
                               "one image held whole, up to %d pixels a side (%dx%d asked)",
                               (int)QR_IMAGE_MAX_DIM, (int)a->so.width, (int)a->so.height);
    qr_error err;
    if (qr_job_plan_of(p, plan, &err) != QR_OK) {
        if (err.status == QR_ERR_NO_GPU && a->device == QR_JOB_GPU) {
            cli_message("--device gpu: %s", err.msg);
            return CLI_EXIT_NO_GPU;
        }
        return cli_fail(&err, CLI_PHASE_RUN);
    }
    if (cli_verbose() && plan->gpu)
        cli_message("CUDA device %d: %s, sm_%d%d, %d SMs, %.1f of %.1f GiB free, CPU threads %d",
                    plan->info.device, plan->info.name, plan->info.cc_major, plan->info.cc_minor,
                    plan->info.sm_count, (double)plan->info.mem_free / 1073741824.0,
                    (double)plan->info.mem_total / 1073741824.0, qr_threads());
    if (plan->lanes > 1) {
        const char *how = plan->processes > 1 ? "under an MPI launcher" : "--gpus";
        if (a->keep && a->so.width != a->so.height)
            return cli_usage_error(cmd, "%s: --aspect keep only on a square image", how);
        if (a->out && cli_output_is_stream(a->out))
            return cli_usage_error(cmd, "%s: files only, not -, a FIFO or a device", how);
    } else if ((a->so.width > QR_IMAGE_MAX_DIM || a->so.height > QR_IMAGE_MAX_DIM) && a->keep) {
        return cli_usage_error(cmd,
                               "-s/--width/--height: --aspect keep takes images up to %d pixels a "
                               "side (%dx%d asked)",
                               (int)QR_IMAGE_MAX_DIM, (int)a->so.width, (int)a->so.height);
    }
    return CLI_EXIT_OK;
}

/* The names' pattern for the job: "%%" for each '%' of the name, "%0Nd"
 * for the frame number. */
static void names_pattern(const cli_frame_names *n, char *buf, size_t size)
{
    size_t k = 0;
    for (int part = 0; part < 2; part++) {
        for (const char *c = part ? n->suffix : n->prefix; *c && k + 3 < size; c++) {
            if (*c == '%')
                buf[k++] = '%';
            buf[k++] = *c;
        }
        if (!part && !n->one && n->width > 0 && k + 8 < size)
            k += (size_t)snprintf(buf + k, size - k, "%%0%dd", n->width);
        else if (!part && !n->one && k + 3 < size)
            k += (size_t)snprintf(buf + k, size - k, "%%d");
    }
    buf[k] = '\0';
}

/* ---- report ------------------------------------------------------------------------ */

/* What the report needs besides the job's words. */
typedef struct render_report {
    const render_args *a;
    const qr_job_plan *plan;
    const qr_scene *scene;
    int64_t circles;         /* the scene's (a stream's: its file's) */
    int32_t chunk;           /* drawn in chunks of this many circles; else 0 */
    double load_ms, gpu_ms, wall0;
    char where[320];
    cli_progress bar;
    bool lines;              /* a line a frame (else the bar) */
    cli_seek_display seek;   /* a long seek's display on a terminal */
} render_report;

/* The plan: where the frames render, what was set. */
static void report_start(render_report *r, const qr_job_progress *p)
{
    const render_args *a = r->a;
    snprintf(r->where, sizeof r->where, "%s", p->where);
    r->circles = p->circles;
    r->chunk = p->chunk_circles;
    r->wall0 = cli_now_ms();
    r->seek.frame = p->frame;
    char chunks[64] = "";
    if (r->chunk)
        snprintf(chunks, sizeof chunks, " in chunks of %ld", (long)r->chunk);
    if (p->lanes > 1) {
        if (p->note[0])
            cli_info("%s", p->note);
        if (p->stripes)
            cli_info("%s (%lld circles%s) %dx%d frame %lld in %d stripes of %d rows on %s -> %s",
                     p->scene->name, (long long)r->circles, chunks, (int)a->so.width,
                     (int)a->so.height, (long long)p->frame, (int)p->stripes,
                     (int)p->stripe_rows, p->where, p->path);
        else
            cli_info("%s (%lld circles) %dx%d frames %lld to %lld on %s", p->scene->name,
                     (long long)r->circles, (int)a->so.width, (int)a->so.height,
                     (long long)a->frames.first, (long long)a->frames.last, p->where);
        return;
    }
    if (p->note[0])
        cli_info("%s%s", p->note,
                 p->reference ? "" : a->exact ? ", exact mode" : ", fast mode");
    if (cli_verbose())
        cli_message("settings: %dx%d, seed %u, %s (capacity %d, min leaf %d, max leaf %d, split "
                    "cost %d, max depth %d, deep leaf %d), PNG level %d, %d CPU threads",
                    (int)a->so.width, (int)a->so.height, a->so.seed,
                    a->params.uniform ? "uniform grid" : "quadtree", a->params.capacity,
                    a->params.min_leaf, a->params.max_leaf, a->params.split_cost,
                    a->params.max_depth, a->params.deep_leaf, a->png_level, qr_threads());
    /* a sequence on a terminal shows a progress bar instead of a line per frame */
    cli_progress_begin(&r->bar, "frames", a->frames.last - a->frames.first + 1);
    r->lines = !a->many || !r->bar.on || cli_verbose();
}

/* One device's frame: what it took. */
static void report_frame(render_report *r, const qr_job_progress *p)
{
    const render_args *a = r->a;
    r->seek.frame = p->frame + 1;
    if (p->gpu)
        r->gpu_ms += p->gpu_timing.frame_ms;
    cli_progress_step(&r->bar, p->done);
    if (!r->lines)
        return;
    char chunks[64] = "";
    if (r->chunk)
        snprintf(chunks, sizeof chunks, " in chunks of %ld", (long)r->chunk);
    cli_info("%s (%lld circles%s) %dx%d frame %lld on %s -> %s", r->scene->name,
             (long long)r->circles, chunks, (int)a->so.width, (int)a->so.height,
             (long long)p->frame, p->gpu ? "the GPU" : r->where, p->path);
    /* the scene is loaded (and uploaded) once: its time belongs to the first frame */
    char once[96] = "";
    if (p->frame == a->frames.first && p->gpu)
        snprintf(once, sizeof once, "load %.1f ms, upload %.1f ms, ", r->load_ms, p->upload_ms);
    else if (p->frame == a->frames.first)
        snprintf(once, sizeof once, "load %.1f ms, ", r->load_ms);
    const qr_frame_timing *ft = &p->gpu_timing;
    if (p->gpu && p->band_rows) {
        cli_info("  %sseek %.1f ms, render and write in bands of %d rows %.1f ms", once,
                 p->seek_ms, (int)p->band_rows, p->write_ms);
    } else if (p->gpu && r->chunk) {
        /* chunk by chunk: the host's waits beside the GPU's sums */
        cli_info("  %sread %.1f ms, upload %.1f ms, index %.1f ms + render %.1f ms on the GPU "
                 "(waited for %.1f ms), write %.1f ms",
                 once, p->chunk_read_ms, p->chunk_upload_ms, ft->build.total_ms, ft->render_ms,
                 p->chunk_wait_ms, p->write_ms);
    } else if (p->gpu) {
        /* the GPU stages from CUDA events; the wall time around them adds
         * the launches and the read-back of the index's size */
        cli_info("  %sseek %.1f ms, index %.3f ms + render %.3f ms = %.3f ms on the GPU, "
                 "download and write %.1f ms",
                 once, p->seek_ms, ft->build.total_ms, ft->render_ms, ft->frame_ms, p->write_ms);
        if (cli_verbose())
            cli_message("    index stages: boxes %.3f, tree %.3f, count %.3f, scan %.3f, "
                        "emit %.3f, sort %.3f ms",
                        ft->build.boxes_ms, ft->build.tree_ms, ft->build.count_ms,
                        ft->build.scan_ms, ft->build.emit_ms, ft->build.sort_ms);
    } else if (p->reference) {
        cli_info("  %sseek %.1f ms, render and write %.1f ms", once, p->seek_ms,
                 p->render_ms + p->write_ms);
    } else {
        /* streamed: the index and the render happen while writing */
        const double rest =
            p->render_ms + p->write_ms - p->cpu_timing.build_ms - p->cpu_timing.render_ms;
        cli_info("  %sseek %.1f ms, index %.1f ms + render %.1f ms (%s mode), write %.1f ms",
                 once, p->seek_ms, p->cpu_timing.build_ms, p->cpu_timing.render_ms,
                 a->exact ? "exact" : "fast", rest > 0 ? rest : 0.0);
    }
}

/* The job's reports (qr_job_progress_fn): never cancels. */
static int on_progress(void *user, const qr_job_progress *p)
{
    render_report *r = user;
    if (p->event == QR_JOB_START)
        report_start(r, p);
    else if (p->event == QR_JOB_FRAME && p->lane[0] && cli_verbose())
        cli_message("%sframe %lld -> %s", p->lane, (long long)p->frame, p->path);
    else if (p->event == QR_JOB_FRAME && !p->lane[0])
        report_frame(r, p);
    else if (p->event == QR_JOB_LANE && cli_verbose())
        cli_message("%s%lld stripes: render %.1f ms, encode %.1f ms", p->lane,
                    (long long)p->lane_done, p->render_ms, p->write_ms);
    return 0;
}

/* The last line: how long it all took. */
static void report_end(render_report *r, const qr_job_result *res)
{
    const render_args *a = r->a;
    if (r->plan->lanes > 1) {
        if (r->plan->rank == 0)
            cli_info("%s in %.1f ms on %s", a->many ? "frames" : "image", res->ms, r->where);
    } else if (a->many) {
        int64_t n = a->frames.last - a->frames.first + 1;
        char per[80] = "";
        if (r->plan->gpu)
            snprintf(per, sizeof per, ", %.3f ms per frame on the GPU (index + render)",
                     r->gpu_ms / (double)n);
        cli_info("%lld frames in %.1f ms%s", (long long)n, cli_now_ms() - r->wall0, per);
    }
    if (res->planned)
        cli_info("plan: %.1f ms before the first frame, chose capacity %d, min leaf %d, split cost "
                 "%d, deep leaf %d, max leaf %d (%.3f ms a frame)",
                 res->plan_ms, (int)res->plan_chosen.capacity, (int)res->plan_chosen.min_leaf,
                 (int)res->plan_chosen.split_cost, (int)res->plan_chosen.deep_leaf,
                 (int)res->plan_chosen.max_leaf, res->plan_frame_ms);
}

/* ---- run --------------------------------------------------------------------------- */

/* Loads the scene (or, streamed, opens it: its picture is the scene the
 * reports and the checks see), names the files (-o, else SCENE.png), runs
 * the job. */
static int run_job(render_args *a, qr_job_params *p, const qr_job_plan *plan)
{
    qr_error err;
    qr_scene *scene = NULL;
    qr_scene_stream *stream = NULL;
    const double t0 = cli_now_ms();
    if (streamed(a) ? qr_scene_stream_open(a->scene_arg, &stream, &err) != QR_OK
                    : qr_scene_load(a->scene_arg, a->so.seed, &scene, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    if (stream)
        scene = qr_scene_stream_picture(stream);
    int map_rc = cli_map_apply(&a->map, scene, NULL);
    if (map_rc == CLI_EXIT_OK && qr_job_check_format(scene, a->format, &err) != QR_OK) {
        cli_message("%s", err.msg); /* --background none with -o x.ppm: the command line's */
        map_rc = CLI_EXIT_USAGE;
    }
    if (map_rc != CLI_EXIT_OK) {
        if (!stream) qr_scene_destroy(scene);
        qr_scene_stream_close(stream);
        return map_rc;
    }
    render_report r = {.a = a, .plan = plan, .scene = scene, .load_ms = cli_now_ms() - t0};
    int rc = CLI_EXIT_OK;
    char default_out[sizeof scene->name + 8], pattern[2 * sizeof a->names.prefix + 16];
    if (!a->out) {
        snprintf(default_out, sizeof default_out, "%s.png", scene->name);
        if (p->format == QR_FORMAT_UNKNOWN)
            p->format = QR_FORMAT_PNG;
        cli_frame_names_init(&a->names, default_out, a->many ? &a->frames : NULL, false);
        if (plan->processes == 1)
            rc = check_outputs(&a->names, a->frames);
    } else if (plan->processes == 1 && qr_job_mpi_launched()) {
        rc = check_outputs(&a->names, a->frames); /* a job of one process (check_args) */
    }
    names_pattern(&a->names, pattern, sizeof pattern);
    p->output = pattern;
    p->scene = stream ? NULL : scene;
    p->stream = stream;
    p->on_progress = on_progress;
    p->on_seek = plan->lanes == 1 && isatty(STDERR_FILENO) ? cli_seek_show : NULL;
    r.seek.shown = -1;
    p->user = &r;
    qr_job_result res;
    if (rc == CLI_EXIT_OK && qr_job_run(p, &res, &err) != QR_OK) {
        cli_progress_end(&r.bar); /* (the message on a line of its own) */
        static const cli_phase phases[] = {[QR_JOB_STAGE_PARAMS] = CLI_PHASE_RUN,
                                           [QR_JOB_STAGE_INPUT] = CLI_PHASE_INPUT,
                                           [QR_JOB_STAGE_RENDER] = CLI_PHASE_RUN,
                                           [QR_JOB_STAGE_OUTPUT] = CLI_PHASE_OUTPUT};
        rc = res.elsewhere ? cli_exit_code(err.status, phases[res.stage])
                           : cli_fail(&err, phases[res.stage]);
    } else if (rc == CLI_EXIT_OK) {
        cli_progress_end(&r.bar);
        report_end(&r, &res);
    }
    if (!stream) qr_scene_destroy(scene);
    qr_scene_stream_close(stream);
    return rc;
}

static int run_render(const cli_cmd *cmd, int argc, char **argv)
{
    render_args a;
    int rc = parse_options(cmd, argc, argv, &a);
    if (rc == CLI_PARSE_HELP)
        return CLI_EXIT_OK;
    if (rc != CLI_PARSE_OK || (rc = check_args(cmd, &a)) != CLI_EXIT_OK)
        return rc;
    qr_job_params p;
    qr_job_plan plan;
    job_params(&a, &p);
    if ((rc = plan_job(cmd, &a, &p, &plan)) != CLI_EXIT_OK)
        return rc;
    return run_job(&a, &p, &plan);
}

const cli_cmd cli_cmd_render = {
    .name = "render",
    .summary = "render a scene to an image file (PNG, PPM or PFM)",
    .args = "SCENE [options]",
    .about = "Renders SCENE, a built-in scene name or family (FAMILY:COUNT, zoo:SEED;\n"
             "see 'quadrender scenes') or a .circles, .par or .npy file, and writes the\n"
             "image.\n",
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
             "131072 pixels. The CPU renders large images in bands too. A scene that does\n"
             "not fit with its index is drawn in depth-ordered chunks (--chunk) over the\n"
             "image held on the device: the same bytes.\n"
             "\n"
             "--gpus all|LIST, or an MPI launcher (mpirun --bind-to none -n N, in a build\n"
             "with -DQR_MPI=ON), splits the work: frames are dealt to the GPUs or\n"
             "processes in turn; one image is cut into stripes of rows, each rendered\n"
             "and compressed by one of them and written in order by the first. The\n"
             "files are the same bytes; a failing GPU or process stops them all. On a\n"
             "machine with no usable GPU at all, --gpus renders on the CPU and says so\n"
             "(exit 5 only with --device gpu).\n"
             "\n"
             "Exit codes: 0 success, 1 other failure (an MPI error), 2 bad command line,\n"
             "3 bad scene, 4 cannot write the image (or it exists, with -n), 5 no usable\n"
             "GPU (--device gpu, a --gpus device not there), 6 out of memory (also: a\n"
             "--gpu-memory that holds no band), 7 CUDA error; ended by SIGINT, SIGTERM or\n"
             "SIGHUP: 130, 143, 129.\n",
    .run = run_render,
    .max_side = QR_IMAGE_BANDS_MAX_DIM,
};
