/* cmd_check.c — `quadrender check`: the GPU renderer (when there is a
 * usable GPU) and the fast CPU renderer against the CPU reference on one
 * scene, in both modes.
 *
 * The scene is stepped twice, independently: on the device for the GPU
 * renders (as `render` does) and on the host for the reference and the fast
 * CPU renderer, so a check of an animated frame also checks the GPU step.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/scene.h"
#include "quadrender/threads.h"

/* CS149's checker counts a channel as wrong beyond this. */
#define CS149_TOLERANCE 0.1
/* Snow in exact mode: the GPU's sqrtf/expf differ from the host's in the
 * last bits (docs/architecture.md). */
#define SNOW_EXACT_TOLERANCE 1e-5

typedef struct diff_stats {
    double max_rgb, max_alpha; /* largest |gpu - cpu| */
    long long differing;       /* channel values whose bits differ */
    long long over;            /* channel values differing by more than 0.1 */
    double psnr;               /* over RGB, peak 1.0; inf when identical */
} diff_stats;

/* Compares RGB, and alpha when with_alpha (fast mode leaves alpha at 1). */
static void compare(const qr_image *gpu, const qr_image *cpu, bool with_alpha, diff_stats *d)
{
    memset(d, 0, sizeof *d);
    double sq = 0;
    size_t px = (size_t)gpu->width * (size_t)gpu->height;
    int channels = with_alpha ? 4 : 3;
    for (size_t i = 0; i < px; i++) {
        for (int c = 0; c < channels; c++) {
            float x = gpu->rgba[4 * i + c], y = cpu->rgba[4 * i + c];
            if (memcmp(&x, &y, sizeof x) == 0)
                continue;
            d->differing++;
            double e = fabs((double)x - (double)y);
            if (!(e == e))
                e = INFINITY; /* a NaN on one side only: as wrong as it gets */
            if (e > CS149_TOLERANCE)
                d->over++;
            if (c < 3) {
                sq += e * e;
                if (e > d->max_rgb)
                    d->max_rgb = e;
            } else if (e > d->max_alpha) {
                d->max_alpha = e;
            }
        }
    }
    double mse = sq / (3.0 * (double)px);
    d->psnr = mse > 0 ? 10.0 * log10(1.0 / mse) : INFINITY;
}

/* "inf", or the value with one decimal. */
static void fmt_psnr(char *buf, size_t size, double psnr)
{
    if (isinf(psnr))
        snprintf(buf, size, "%s", psnr > 0 ? "inf" : "-inf");
    else
        snprintf(buf, size, "%.1f", psnr);
}

static void print_row(const char *mode, const diff_stats *d, bool with_alpha, const char *limit,
                      bool pass)
{
    char rgb[32], alpha[32], psnr[32];
    snprintf(rgb, sizeof rgb, "%.3g", d->max_rgb);
    if (with_alpha)
        snprintf(alpha, sizeof alpha, "%.3g", d->max_alpha);
    else
        snprintf(alpha, sizeof alpha, "-");
    fmt_psnr(psnr, sizeof psnr, d->psnr);
    printf("%-10s  %12s  %10s  %12lld  %8lld  %9s  %-13s  %s\n", mode, rgb, alpha, d->differing,
           d->over, psnr, limit, pass ? "PASS" : "FAIL");
}

/* Renders one mode on the fast CPU renderer into img. */
static qr_status cpu_render(const qr_scene *scene, const qr_index_params *params, qr_render_mode mode,
                            qr_image *img, qr_error *err)
{
    return qr_render_cpu_fast(scene, params, mode, 0, img, NULL, err);
}

/* images: 0 reference, 1 GPU exact, 2 GPU fast, 3 CPU exact, 4 CPU fast */
enum { REF, GPU_EXACT, GPU_FAST, CPU_EXACT, CPU_FAST, NIMG };
static const char *const image_names[NIMG] = {"", "GPU exact", "GPU fast", "CPU exact", "CPU fast"};

/* What the command line asks, and whether there is a GPU to check. */
typedef struct check_plan {
    cli_scene_opts so;
    qr_index_params params;
    const char *scene_arg;
    bool gpu;
    qr_gpu_info info;
    char no_gpu[sizeof ((qr_error *)0)->msg]; /* why there is none */
} check_plan;

/* The scene and the images rendered from it. */
typedef struct check_run {
    qr_scene *scene;
    qr_gpu_scene *gs;
    qr_gpu_renderer *r;
    qr_image *img[NIMG];
} check_run;

/* Parses the command line and probes the GPU: CLI_PARSE_OK, CLI_PARSE_HELP
 * or an exit code. */
static int check_parse(const cli_cmd *cmd, int argc, char **argv, check_plan *plan)
{
    enum { O_SCENE, O_INDEX = O_SCENE + CLI_SCENE_NOPTS, O_COUNT = O_INDEX + CLI_INDEX_NOPTS };
    cli_opt opts[O_COUNT];
    memset(plan, 0, sizeof *plan);
    int rc = cli_parse_scene_command(cmd, opts, O_COUNT, O_SCENE, O_INDEX, argc, argv, &plan->so,
                                     &plan->params, &plan->scene_arg);
    if (rc != CLI_PARSE_OK)
        return rc;
    qr_error err;
    plan->gpu = qr_gpu_probe(&plan->info, &err) == QR_OK;
    if (!plan->gpu)
        snprintf(plan->no_gpu, sizeof plan->no_gpu, "%s", err.msg);
    return CLI_PARSE_OK;
}

/* Both modes on the GPU into img[GPU_*]: the device scene stepped to the
 * frame on the device. */
static qr_status render_gpu(const check_plan *plan, check_run *run, qr_error *err)
{
    const cli_scene_opts *so = &plan->so;
    qr_status st = qr_gpu_scene_create(run->scene, &run->gs, err);
    if (st == QR_OK)
        st = qr_gpu_renderer_create(so->width, so->height, &run->r, err);
    if (st == QR_OK)
        st = cli_seek(NULL, run->gs, so->frame, err);
    for (int k = GPU_EXACT; k <= GPU_FAST && st == QR_OK; k++) {
        st = qr_gpu_render(run->r, run->gs, &plan->params,
                           k == GPU_EXACT ? QR_RENDER_EXACT : QR_RENDER_FAST, err);
        if (st == QR_OK)
            st = qr_gpu_renderer_download(run->r, run->img[k], err);
    }
    return st;
}

/* Loads the scene and renders every image; says what it checks and how long
 * each part took on stderr. An exit code. */
static int check_render(const check_plan *plan, check_run *run)
{
    const cli_scene_opts *so = &plan->so;
    qr_error err;
    double t0 = cli_now_ms();
    if (qr_scene_load(plan->scene_arg, so->seed, &run->scene, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    const qr_scene *scene = run->scene;
    double t1 = cli_now_ms();
    if (plan->gpu)
        cli_info("check %s (%d circles) %dx%d frame %lld on the GPU (%s, sm_%d%d) and "
                    "the CPU (%d threads)",
                    scene->name, (int)scene->n, (int)so->width, (int)so->height,
                    (long long)so->frame, plan->info.name, plan->info.cc_major,
                    plan->info.cc_minor, qr_threads());
    else
        cli_info("check %s (%d circles) %dx%d frame %lld on the CPU (%d threads); no "
                    "usable GPU (%s)",
                    scene->name, (int)scene->n, (int)so->width, (int)so->height,
                    (long long)so->frame, qr_threads(), plan->no_gpu);
    for (int k = 0; k < NIMG; k++) {
        if (!plan->gpu && (k == GPU_EXACT || k == GPU_FAST)) continue;
        if (qr_image_create(so->width, so->height, &run->img[k], &err) != QR_OK)
            return cli_fail(&err, CLI_PHASE_RUN);
    }
    double t2 = cli_now_ms(), t3 = t2;
    if (plan->gpu) {
        if (render_gpu(plan, run, &err) != QR_OK)
            return cli_fail(&err, CLI_PHASE_RUN);
        t3 = cli_now_ms();
    }
    if (cli_seek(run->scene, NULL, so->frame, &err) != QR_OK ||
        qr_render_cpu(scene, run->img[REF], &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_RUN);
    double t4 = cli_now_ms();
    if (cpu_render(scene, &plan->params, QR_RENDER_EXACT, run->img[CPU_EXACT], &err) != QR_OK ||
        cpu_render(scene, &plan->params, QR_RENDER_FAST, run->img[CPU_FAST], &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_RUN);
    double t5 = cli_now_ms();
    cli_info("  load %.1f ms, GPU (upload, seek, both modes, downloads) %.1f ms, CPU seek and "
             "reference %.1f ms, fast CPU both modes %.1f ms",
             t1 - t0, t3 - t2, t4 - t3, t5 - t4);
    return CLI_EXIT_OK;
}

/* Whether image k passes against the reference (d: their differences), and
 * the bound it is held to in *limit (which may be buf, of size bytes). */
static bool check_image(const check_run *run, int k, const diff_stats *d, const char **limit,
                        char *buf, size_t size)
{
    if (k == GPU_FAST || k == CPU_FAST) {
        /* within the bound its early stop guarantees */
        snprintf(buf, size, "<= %g", (double)QR_FAST_TOLERANCE);
        *limit = buf;
        return d->max_rgb <= (double)QR_FAST_TOLERANCE;
    }
    if (run->scene->shading == QR_SHADE_SNOW && k == GPU_EXACT) {
        /* the GPU's sqrtf and expf differ from the host's in the last bits */
        *limit = "<= 1e-05";
        return fmax(d->max_rgb, d->max_alpha) <= SNOW_EXACT_TOLERANCE;
    }
    *limit = "bit-identical";
    return d->differing == 0;
}

/* The table on stdout and the verdict: CLI_EXIT_OK or CLI_EXIT_CHECK. */
static int check_report(const check_plan *plan, const check_run *run)
{
    const qr_scene *scene = run->scene;
    char esc[4 * sizeof scene->name];
    printf("%s (%d circles) %dx%d frame %lld: %s against the CPU reference\n",
           cli_esc(scene->name, esc, sizeof esc), (int)scene->n, (int)plan->so.width,
           (int)plan->so.height, (long long)plan->so.frame,
           plan->gpu ? "GPU and fast CPU" : "fast CPU (no GPU)");
    printf("%-10s  %12s  %10s  %12s  %8s  %9s  %-13s  %s\n", "renderer", "max|d| RGB", "max|d| A",
           "differing", "> 0.1", "PSNR dB", "required", "result");
    bool failed[NIMG] = {false}, any = false;
    for (int k = GPU_EXACT; k < NIMG; k++) {
        if (!run->img[k]) continue;
        const bool exact = k == GPU_EXACT || k == CPU_EXACT;
        diff_stats d;
        compare(run->img[k], run->img[REF], exact, &d);
        const char *limit;
        char buf[32];
        failed[k] = !check_image(run, k, &d, &limit, buf, sizeof buf);
        any |= failed[k];
        print_row(image_names[k], &d, exact, limit, !failed[k]);
    }
    if (!any) {
        printf("PASS\n");
        return CLI_EXIT_OK;
    }
    printf("FAIL:");
    for (int k = 0; k < NIMG; k++)
        if (failed[k]) printf(" %s", image_names[k]);
    printf("\n");
    return CLI_EXIT_CHECK;
}

static void check_run_free(check_run *run)
{
    qr_gpu_renderer_destroy(run->r);
    qr_gpu_scene_destroy(run->gs);
    for (int k = 0; k < NIMG; k++) qr_image_destroy(run->img[k]);
    qr_scene_destroy(run->scene);
}

static int run_check(const cli_cmd *cmd, int argc, char **argv)
{
    check_plan plan;
    int rc = check_parse(cmd, argc, argv, &plan);
    if (rc == CLI_PARSE_HELP)
        return CLI_EXIT_OK;
    if (rc != CLI_PARSE_OK)
        return rc;
    check_run run = {0};
    rc = check_render(&plan, &run);
    if (rc == CLI_EXIT_OK)
        rc = check_report(&plan, &run);
    check_run_free(&run);
    return rc;
}

const cli_cmd cli_cmd_check = {
    .name = "check",
    .summary = "render on the GPU, the fast CPU renderer and the reference, and compare",
    .args = "SCENE [options]",
    .about = "Renders SCENE in exact and in fast mode on the GPU (when there is a usable\n"
             "one) and on the fast CPU renderer, and with the serial CPU reference renderer;\n"
             "compares each image with the reference and prints a table:\n"
             "the largest difference (colour; and alpha in exact mode), how many channel\n"
             "values differ at all and by more than 0.1 (CS149's tolerance), and the PSNR\n"
             "of the colour in dB (peak 1.0).\n",
    .notes = "Passes when exact mode is bit-identical to the reference (GPU snow: within\n"
             "1e-5, the GPU's sqrtf and expf differ in the last bits) and fast mode is\n"
             "within 1e-5 on every colour channel. Without a usable GPU only the CPU rows\n"
             "are checked.\n"
             "\n"
             "Exit codes: 0 every row passes, 2 bad command line, 3 bad scene, 6 out of\n"
             "memory, 7 CUDA error, 8 a row fails.\n",
    .run = run_check,
};
