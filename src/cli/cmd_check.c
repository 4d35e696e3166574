/* cmd_check.c — `quadrender check`: the GPU renderer against the CPU
 * reference on one scene, in both modes.
 *
 * The scene is stepped twice, independently: on the device for the GPU
 * renders (as `render` does) and on the host for the reference, so a check
 * of an animated frame also checks the GPU step.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/render_cpu.h"
#include "quadrender/scene.h"

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
    printf("%-6s  %12s  %10s  %12lld  %8lld  %9s  %-13s  %s\n", mode, rgb, alpha, d->differing,
           d->over, psnr, limit, pass ? "PASS" : "FAIL");
}

static int run_check(const cli_cmd *cmd, int argc, char **argv)
{
    cli_scene_opts so;
    qr_index_params params;
    enum { O_SCENE, O_INDEX = O_SCENE + CLI_SCENE_NOPTS, O_COUNT = O_INDEX + CLI_INDEX_NOPTS };
    cli_opt opts[O_COUNT];
    const char *scene_arg = NULL;
    int rc = cli_parse_scene_command(cmd, opts, O_COUNT, O_SCENE, O_INDEX, argc, argv, &so,
                                     &params, &scene_arg);
    if (rc == CLI_PARSE_HELP)
        return CLI_EXIT_OK;
    if (rc != CLI_PARSE_OK)
        return rc;

    qr_error err;
    qr_gpu_info info;
    if (qr_gpu_probe(&info, &err) != QR_OK) {
        fprintf(stderr, "quadrender: check needs a GPU, and there is no usable one: %s\n", err.msg);
        return CLI_EXIT_NO_GPU;
    }

    qr_scene *scene = NULL;
    qr_gpu_scene *gs = NULL;
    qr_gpu_renderer *r = NULL;
    qr_image *exact = NULL, *fast = NULL, *cpu = NULL;
    double t0 = cli_now_ms();
    if (qr_scene_load(scene_arg, so.seed, &scene, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    double t1 = cli_now_ms();
    fprintf(stderr, "quadrender: check %s (%d circles) %dx%d frame %lld on the GPU (%s, sm_%d%d)\n",
            scene->name, (int)scene->n, (int)so.width, (int)so.height, (long long)so.frame,
            info.name, info.cc_major, info.cc_minor);
    if (qr_image_create(so.width, so.height, &exact, &err) != QR_OK ||
        qr_image_create(so.width, so.height, &fast, &err) != QR_OK ||
        qr_image_create(so.width, so.height, &cpu, &err) != QR_OK ||
        qr_gpu_scene_upload(scene, &gs, &err) != QR_OK ||
        qr_gpu_renderer_create(so.width, so.height, &r, &err) != QR_OK ||
        qr_gpu_scene_seek_frame(gs, so.frame, &err) != QR_OK) {
        rc = cli_fail(&err, CLI_PHASE_RUN);
        goto done;
    }
    double t2 = cli_now_ms();
    if (qr_gpu_render(r, gs, &params, QR_RENDER_EXACT, &err) != QR_OK ||
        qr_gpu_renderer_download(r, exact, &err) != QR_OK) {
        rc = cli_fail(&err, CLI_PHASE_RUN);
        goto done;
    }
    double t3 = cli_now_ms();
    if (qr_gpu_render(r, gs, &params, QR_RENDER_FAST, &err) != QR_OK ||
        qr_gpu_renderer_download(r, fast, &err) != QR_OK) {
        rc = cli_fail(&err, CLI_PHASE_RUN);
        goto done;
    }
    double t4 = cli_now_ms();
    if (qr_scene_seek_frame(scene, so.frame, &err) != QR_OK ||
        qr_render_cpu(scene, cpu, &err) != QR_OK) {
        rc = cli_fail(&err, CLI_PHASE_RUN);
        goto done;
    }
    double t5 = cli_now_ms();
    fprintf(stderr,
            "quadrender:   load %.1f ms, upload and GPU seek %.1f ms, GPU exact %.1f ms, "
            "GPU fast %.1f ms, CPU seek and render %.1f ms (with downloads)\n",
            t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4);

    diff_stats de, df;
    compare(exact, cpu, true, &de);
    compare(fast, cpu, false, &df);
    bool snow = scene->shading == QR_SHADE_SNOW;
    /* exact: the same bits as the reference, except snow's transcendental
     * functions; fast: within the bound its early stop guarantees */
    bool exact_ok = snow ? fmax(de.max_rgb, de.max_alpha) <= SNOW_EXACT_TOLERANCE
                         : de.differing == 0;
    bool fast_ok = df.max_rgb <= (double)QR_FAST_TOLERANCE;
    char fast_limit[32];
    snprintf(fast_limit, sizeof fast_limit, "<= %g", (double)QR_FAST_TOLERANCE);

    printf("%s (%d circles) %dx%d frame %lld: GPU against the CPU reference\n", scene->name,
           (int)scene->n, (int)so.width, (int)so.height, (long long)so.frame);
    printf("%-6s  %12s  %10s  %12s  %8s  %9s  %-13s  %s\n", "mode", "max|d| RGB", "max|d| A",
           "differing", "> 0.1", "PSNR dB", "required", "result");
    print_row("exact", &de, true, snow ? "<= 1e-05" : "bit-identical", exact_ok);
    print_row("fast", &df, false, fast_limit, fast_ok);
    if (exact_ok && fast_ok) {
        printf("PASS\n");
        rc = CLI_EXIT_OK;
    } else {
        printf("FAIL:%s%s\n", exact_ok ? "" : " exact", fast_ok ? "" : " fast");
        rc = CLI_EXIT_CHECK;
    }
done:
    qr_gpu_renderer_destroy(r);
    qr_gpu_scene_free(gs);
    qr_image_free(exact);
    qr_image_free(fast);
    qr_image_free(cpu);
    qr_scene_free(scene);
    return rc;
}

const cli_cmd cli_cmd_check = {
    .name = "check",
    .summary = "render on the GPU and the CPU and compare the images",
    .args = "SCENE [options]",
    .about = "Renders SCENE on the GPU in exact and in fast mode and with the CPU reference\n"
             "renderer, compares each GPU image with the reference and prints a table:\n"
             "the largest difference (colour; and alpha in exact mode), how many channel\n"
             "values differ at all and by more than 0.1 (CS149's tolerance), and the PSNR\n"
             "of the colour in dB (peak 1.0).\n",
    .notes = "Passes when exact mode is bit-identical to the reference (snow: within 1e-5,\n"
             "the GPU's sqrtf and expf differ in the last bits) and fast mode is within\n"
             "1e-5 on every colour channel.\n"
             "\n"
             "Exit codes: 0 both modes pass, 2 bad command line, 3 bad scene, 5 no usable\n"
             "GPU, 6 out of memory, 7 CUDA error, 8 a mode fails.\n",
    .run = run_check,
};
