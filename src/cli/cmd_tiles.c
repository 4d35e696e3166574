/* cmd_tiles.c — `quadrender tiles`: a scene's deep-zoom tile pyramid and
 * the page that views it (quadrender/tiles.h): parse, run, report.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "quadrender/gpu.h"
#include "quadrender/scene.h"
#include "quadrender/tiles.h"

static const char *set_levels(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_tiles_check_levels(cli_setting(), text, dest, &err), &err);
}

static const char *set_tile_size(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_tiles_check_tile_size(cli_setting(), text, dest, &err), &err);
}

/* The progress bar, fed from the library's reports. */
static int on_progress(void *user, int64_t done, int64_t total)
{
    cli_progress *bar = user;
    if (bar->total != total)
        cli_progress_begin(bar, "tiles", total);
    cli_progress_step(bar, done);
    return 0;
}

static int tiles_run(const cli_cmd *cmd, int argc, char **argv)
{
    qr_tiles_params p;
    qr_tiles_params_init(&p);
    int exact = 0, fast = 0;
    int gpus[QR_JOB_MAX_GPUS + 1] = {0};
    enum { O_OUT, O_LEVELS, O_TILE_SIZE, O_SEED, O_DEVICE, O_EXACT, O_FAST, O_PNG_LEVEL,
           O_GPU_MEMORY, O_GPUS, O_INDEX, O_COUNT = O_INDEX + CLI_INDEX_NOPTS };
    cli_opt opts[O_COUNT] = {
        [O_OUT] = {"--output", "-o", "DIR", cli_set_string, &p.dir,
                   "the pyramid's directory, made if missing (required)"},
        [O_LEVELS] = {"--levels", NULL, "N", set_levels, &p.levels,
                      "levels z = 0 .. N-1, level z tile-size * 2^z pixels a side (default 4)"},
        [O_TILE_SIZE] = {"--tile-size", NULL, "N", set_tile_size, &p.tile_size,
                         "pixels a tile's side, a power of two from 16 to 4096 (default 256)"},
        [O_SEED] = {"--seed", NULL, "N", cli_set_seed, &p.seed,
                    "random seed of a built-in scene (default 0)"},
        [O_DEVICE] = {"--device", NULL, "DEV", cli_set_device, &p.device,
                      "auto, gpu, cpu or cpu-reference (default auto: the GPU when usable)"},
        [O_EXACT] = {"--exact", NULL, NULL, NULL, &exact,
                     "bit-identical to the CPU reference (back to front)"},
        [O_FAST] = {"--fast", NULL, NULL, NULL, &fast,
                    "front to back with early stop, within 1e-5 (the default)"},
        [O_PNG_LEVEL] = {"--png-level", NULL, "N", cli_set_png_level, &p.png_level,
                         "PNG compression, 0 (none) to 9 (smallest) (default 1, the fastest)"},
        [O_GPU_MEMORY] = {"--gpu-memory", NULL, "SIZE", cli_set_bytes, &p.gpu_memory,
                          "GPU memory the render may use, e.g. 8G (default: what is free)"},
        [O_GPUS] = {"--gpus", NULL, "LIST", cli_set_gpus, gpus,
                    "all, or CUDA devices 0,1,...: deal each level's bands to these GPUs"},
    };
    cli_index_opts_init(&opts[O_INDEX], &p.index);
    int rc = cli_parse_index_command(cmd, opts, O_COUNT, O_INDEX, argc, argv, &p.index, &exact, &fast,
                                     &p.scene_name, &p.mode);
    if (rc != CLI_PARSE_OK)
        return rc == CLI_PARSE_HELP ? CLI_EXIT_OK : rc;
    if (!p.dir)
        return cli_usage_error(cmd, "tiles: missing -o/--output DIR");
    p.ngpus = gpus[0] < 0 ? qr_gpu_count() : gpus[0];
    if (p.ngpus > QR_JOB_MAX_GPUS)
        p.ngpus = QR_JOB_MAX_GPUS;
    for (int k = 0; k < p.ngpus; k++)
        p.gpus[k] = gpus[0] < 0 ? k : gpus[1 + k];
    qr_error err;
    if (qr_tiles_check(&p, &err) != QR_OK)
        return cli_usage_error(cmd, "%s", err.msg);
    qr_scene *scene;
    if (qr_scene_load(p.scene_name, p.seed, &scene, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    p.scene = scene;
    cli_progress bar;
    memset(&bar, 0, sizeof bar);
    p.on_progress = on_progress;
    p.user = &bar;
    qr_tiles_result res;
    qr_status st = qr_tiles_run(&p, &res, &err);
    cli_progress_end(&bar);
    qr_scene_destroy(scene);
    if (st != QR_OK) /* a tile that cannot be written is the output's fault */
        return cli_fail(&err, CLI_PHASE_OUTPUT);
    if (res.note[0])
        cli_info("%s", res.note);
    cli_info("%lld tiles in %s/ (levels 0 to %d, %d-pixel tiles, the largest %d pixels a side) "
             "on %s in %.0f ms (rendering %.0f)",
             (long long)res.tiles, p.dir, p.levels - 1, p.tile_size, p.tile_size << (p.levels - 1),
             res.where, res.ms, res.render_ms);
    return CLI_EXIT_OK;
}

const cli_cmd cli_cmd_tiles = {
    .name = "tiles",
    .summary = "render a scene as a deep-zoom tile pyramid, with a page that views it",
    .args = "SCENE -o DIR [options]",
    .run = tiles_run,
    .about = "Renders SCENE at --levels sizes, each twice the side of the one before, cut\n"
             "into square tiles, as map and gigapixel viewers load them.\n",
    .notes = "DIR gets z/x/y.png (level z, column x, row y from the top: the XYZ layout of\n"
             "web maps), tiles.dzi and tiles_files/ (the same pyramid as Deep Zoom, with\n"
             "its levels smaller than a tile), and index.html, which views the pyramid\n"
             "from the file system with no network: drag to pan, wheel or +/- to zoom.\n"
             "\n"
             "Every tile holds the bytes of that region of `quadrender render -s SIDE` of\n"
             "its level, rendered by the same renderer. Tiles are written whole or not at\n"
             "all; a failure leaves the tiles finished before it and no partial one.\n",
};
