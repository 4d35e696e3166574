/* cmd_bench.c — `quadrender bench`: the quadtree against the uniform grid,
 * stage by stage, on the GPU.
 *
 * Each scene is uploaded once; for every size, index and mode the frame
 * (index build + render, image left on the GPU) runs `warmup` times
 * untimed, then `frames` times timed with CUDA events. Medians, quartiles
 * and extremes go to the table; bench_report.c prints and saves them.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "gpu/tuning.h"
#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "cli/bench/report.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/render_cpu.h"
#include "quadrender/scene.h"

#ifndef QR_BUILD_TYPE
#define QR_BUILD_TYPE "unknown"
#endif

#define MAX_ITEMS 16

/* A comma-separated list of words ("quadtree,grid") or numbers ("16,32"). */
typedef struct word_list {
    const char *item[MAX_ITEMS];
    int n;
    char buf[256];
} word_list;

typedef struct int_list {
    int item[MAX_ITEMS];
    int n;
} int_list;

static const char *split(const char *text, word_list *l)
{
    if (strlen(text) >= sizeof l->buf) return "a shorter list";
    strcpy(l->buf, text);
    l->n = 0;
    for (char *s = l->buf, *tok; (tok = strtok(s, ",")); s = NULL) {
        if (l->n == MAX_ITEMS) return "at most 16 comma-separated values";
        l->item[l->n++] = tok;
    }
    return l->n ? NULL : "a comma-separated list";
}

static const char *set_index_list(const char *text, void *dest)
{
    word_list *l = dest;
    if (split(text, l)) return "a list of 'quadtree' and 'grid'";
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->item[i], "quadtree") && strcmp(l->item[i], "grid"))
            return "a list of 'quadtree' and 'grid'";
    return NULL;
}

static const char *set_mode_list(const char *text, void *dest)
{
    word_list *l = dest;
    if (split(text, l)) return "a list of 'fast' and 'exact'";
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->item[i], "fast") && strcmp(l->item[i], "exact")) return "a list of 'fast' and 'exact'";
    return NULL;
}

static const char *parse_ints(const char *text, int_list *out, uint64_t lo, uint64_t hi, int pow2,
                              const char *what)
{
    word_list w;
    if (split(text, &w)) return what;
    out->n = 0;
    for (int i = 0; i < w.n; i++) {
        uint64_t v;
        if (!cli_parse_u64(w.item[i], hi, &v) || v < lo || (pow2 && (v & (v - 1)))) return what;
        out->item[out->n++] = (int)v;
    }
    return NULL;
}

static const char *set_size_list(const char *text, void *dest)
{
    return parse_ints(text, dest, 1, QR_IMAGE_MAX_DIM, 0, "a list of sizes from 1 to 32768");
}

/* The best grid is the fastest of the 16- to 256-pixel tiles; a larger
 * tile leaves a 1024 x 1024 frame 16 tiles or fewer. */
#define MAX_GRID_TILE 256

static const char *set_tile_list(const char *text, void *dest)
{
    return parse_ints(text, dest, QR_TILE, MAX_GRID_TILE, 1, "a list of powers of two from 16 to 256");
}

static const char *set_count(const char *text, void *dest)
{
    uint64_t v;
    if (!cli_parse_u64(text, 100000, &v) || v < 1) return "an integer from 1 to 100000";
    *(int *)dest = (int)v;
    return NULL;
}

static const char *set_count0(const char *text, void *dest)
{
    uint64_t v;
    if (!cli_parse_u64(text, 100000, &v)) return "an integer from 0 to 100000";
    *(int *)dest = (int)v;
    return NULL;
}

/* The scenes `bench` runs when none is named: CS149's, then the
 * non-uniform ones an adaptive index exists for (docs/scenes.md). Reports
 * head each family's rows with its name. */
typedef struct scored_scene {
    const char *name, *group;
} scored_scene;

static const scored_scene scored[] = {
    {"rgb", "CS149"},         {"pattern", "CS149"},     {"rand10k", "CS149"},
    {"rand100k", "CS149"},    {"biglittle", "CS149"},   {"littlebig", "CS149"},
    {"rand1M", "CS149"},      {"micro2M", "CS149"},     {"snowsingle", "CS149"},
    {"clusters", "non-uniform"}, {"spiral", "non-uniform"}, {"powerlaw", "non-uniform"},
    {"hotspot", "non-uniform"},  {"roads", "non-uniform"},  {"ring", "non-uniform"},
};
#define NSCORED ((int)(sizeof scored / sizeof scored[0]))

/* The scaling run's scenes when none is named: a uniform and a clustered
 * family, 10k to 100M circles. */
static const char *const scaling_scenes[] = {
    "uniform:10k",   "uniform:100k",   "uniform:1M",   "uniform:10M",   "uniform:100M",
    "clustered:10k", "clustered:100k", "clustered:1M", "clustered:10M", "clustered:100M",
};

static const char *scene_group(const char *name)
{
    for (int i = 0; i < NSCORED; i++)
        if (!strcasecmp(scored[i].name, name)) return scored[i].group;
    return "";
}

/* Device bytes of a scene once uploaded, as qr_gpu_scene_create allocates
 * them: its block of arrays, and the packed position and colour float4s the
 * renderer gathers (scene_gpu.h). */
static size_t scene_device_bytes(const qr_scene *s)
{
    return s->block_floats * sizeof(float) + 2 * (size_t)s->n * 4 * sizeof(float);
}

/* One bench run: what it measures and the rows it fills. */
typedef struct bench_plan {
    const int_list *sizes, *tiles;
    const word_list *modes;
    const qr_index_params *qp;
    int want_q, configs, warmup, frames, direct, cpu, progress, total;
    int scaling; /* a measurement out of memory is a row saying so, not the end */
    bench_row *rows;
    int nrows;
    report_floor *floors; /* with --report: per scene and size, else NULL */
    int nfloors;
} bench_plan;

static int config_tile(const bench_plan *b, int c)
{
    return b->want_q && c == 0 ? 0 : b->tiles->item[c - b->want_q];
}

/* Starts row number b->nrows (the caller counts it in). */
static bench_row *start_row(bench_plan *b, const char *scene, const char *group, long long circles,
                            size_t scene_bytes, int size, int c, int m)
{
    bench_row *row = &b->rows[b->nrows];
    memset(row, 0, sizeof *row);
    snprintf(row->scene, sizeof row->scene, "%s", scene);
    snprintf(row->group, sizeof row->group, "%s", group);
    row->circles = circles;
    row->scene_bytes = scene_bytes;
    row->size = size;
    row->exact = !strcmp(b->modes->item[m], "exact");
    row->grid_tile = config_tile(b, c);
    row->cpu_ms = -1;
    return row;
}

/* Whether the run records err as a row out of memory and goes on (a
 * scaling run, out of host or GPU memory); says so on stderr. */
static int goes_on(const bench_plan *b, const char *scene, const qr_error *err)
{
    if (!b->scaling || (err->status != QR_ERR_GPU_NOMEM && err->status != QR_ERR_NOMEM)) return 0;
    char esc[256];
    if (b->progress) fputs("\r\033[K", stderr);
    fprintf(stderr, "quadrender: %s: %s (recorded as out of memory)\n",
            cli_esc(scene, esc, sizeof esc), err->msg);
    return 1;
}

/* Every row of a scene that never reached the GPU, out of memory. */
static void scene_out_of_memory(bench_plan *b, const char *scene, const char *group,
                                long long circles, size_t scene_bytes, int oom)
{
    for (int z = 0; z < b->sizes->n; z++)
        for (int c = 0; c < b->configs; c++)
            for (int m = 0; m < b->modes->n; m++)
                start_row(b, scene, group, circles, scene_bytes, b->sizes->item[z], c, m)->oom = oom;
    b->nrows += b->sizes->n * b->configs * b->modes->n;
}

/* Every size, index and mode of one scene into b's rows; a CLI exit code.
 * Each index gets a renderer of its own, so that its device bytes are its
 * own and not the most any index before it needed. */
static int bench_scene(bench_plan *b, const char *spec, uint32_t seed, qr_error *err)
{
    qr_scene *scene = NULL;
    qr_gpu_scene *gs = NULL;
    if (qr_scene_load(spec, seed, &scene, err) != QR_OK) {
        if (!goes_on(b, spec, err)) return cli_fail(err, CLI_PHASE_INPUT);
        char family[64];
        long long count;
        bench_scene_family(spec, family, sizeof family, &count);
        scene_out_of_memory(b, spec, scene_group(spec), count, 0, BENCH_OOM_HOST);
        return CLI_EXIT_OK;
    }
    const char *group = scene_group(scene->name);
    const size_t scene_bytes = scene_device_bytes(scene);
    int rc = CLI_EXIT_OK;
    if (qr_gpu_scene_create(scene, &gs, err) != QR_OK) {
        if (goes_on(b, scene->name, err))
            scene_out_of_memory(b, scene->name, group, scene->n, scene_bytes,
                                err->status == QR_ERR_NOMEM ? BENCH_OOM_HOST : BENCH_OOM_GPU);
        else
            rc = cli_fail(err, CLI_PHASE_RUN);
        qr_scene_destroy(scene);
        return rc;
    }
    for (int z = 0; z < b->sizes->n && rc == CLI_EXIT_OK; z++) {
        const int size = b->sizes->item[z];
        const int first_row = b->nrows;
        for (int c = 0; c < b->configs && rc == CLI_EXIT_OK; c++) {
            qr_index_params p = *b->qp;
            if (config_tile(b, c)) {
                p.uniform = 1;
                p.min_leaf = config_tile(b, c);
            }
            qr_gpu_renderer *r = NULL;
            for (int m = 0; m < b->modes->n && rc == CLI_EXIT_OK; m++) {
                bench_row *row = start_row(b, scene->name, group, scene->n, scene_bytes, size, c, m);
                if (b->progress) {
                    char esc[256];
                    fprintf(stderr, "\r\033[K[%d/%d] %s %d %s %s", b->nrows + 1, b->total,
                            cli_esc(scene->name, esc, sizeof esc), size,
                            row->grid_tile ? "grid" : "quadtree", b->modes->item[m]);
                }
                qr_status st = r ? QR_OK : qr_gpu_renderer_create(size, size, &r, err);
                if (st == QR_OK) {
                    qr_gpu_renderer_set_graph(r, !b->direct);
                    st = bench_measure(r, gs, &p, row->exact, b->warmup, b->frames, row, err);
                }
                if (st != QR_OK) {
                    if (!goes_on(b, scene->name, err)) {
                        rc = cli_fail(err, CLI_PHASE_RUN);
                        break;
                    }
                    /* the next mode starts afresh from a renderer of its own */
                    qr_gpu_renderer_destroy(r);
                    r = NULL;
                    row->oom = err->status == QR_ERR_NOMEM ? BENCH_OOM_HOST : BENCH_OOM_GPU;
                }
                b->nrows++;
            }
            qr_gpu_renderer_destroy(r);
        }
        if (b->floors && rc == CLI_EXIT_OK) {
            report_floor *fl = &b->floors[b->nfloors];
            snprintf(fl->scene, sizeof fl->scene, "%s", scene->name);
            fl->size = size;
            if (bench_floor_count(scene, size, size, 0, &fl->floor, err) != QR_OK)
                rc = cli_fail(err, CLI_PHASE_RUN);
            else
                b->nfloors++;
        }
        /* the CPU reference comes after the GPU measurements: a GPU left
         * idle for seconds would start them at lowered clocks */
        if (b->cpu && rc == CLI_EXIT_OK) {
            qr_image *img = NULL;
            double cpu_ms = -1;
            if (qr_image_create(size, size, &img, err) == QR_OK) {
                double t0 = cli_now_ms();
                if (qr_render_cpu(scene, img, err) == QR_OK) cpu_ms = cli_now_ms() - t0;
                qr_image_destroy(img);
            }
            for (int i = first_row; i < b->nrows; i++)
                if (b->rows[i].exact && !b->rows[i].oom) b->rows[i].cpu_ms = cpu_ms;
        }
    }
    qr_gpu_scene_destroy(gs);
    qr_scene_destroy(scene);
    return rc;
}

/* The GPU's peak memory bandwidth: two transfers a memory clock over the
 * bus. */
static double peak_bytes_per_s(const qr_gpu_info *g)
{
    return 2.0 * g->mem_clock_khz * 1e3 * g->mem_bus_bits / 8.0;
}

/* Its FP32 instructions per second: lanes per SM by architecture (the
 * CUDA programming guide's throughput table) x SMs x clock. */
static double peak_flops(const qr_gpu_info *g)
{
    const int lanes = g->cc_major >= 9 || (g->cc_major == 8 && g->cc_minor >= 6) ? 128 : 64;
    return (double)lanes * g->sm_count * g->clock_khz * 1e3;
}

static int run_bench(const cli_cmd *cmd, int argc, char **argv)
{
    word_list indexes, modes;
    int_list sizes = {{1024}, 1}, tiles = {{16, 32, 64, 128, 256}, 5};
    set_index_list("quadtree,grid", &indexes);
    set_mode_list("fast,exact", &modes);
    int frames = 20, warmup = 5, cpu = 0, direct = 0, cpu_frames = 5, e2e = 0;
    uint32_t seed = 0;
    const char *json = NULL, *csv = NULL, *plot = NULL, *scaling = NULL, *report = NULL;
    qr_index_params qp;
    qr_index_params_default(&qp);
    /* the quadtree options' help shows the library's defaults, whatever
     * they are now (one process parses one command line) */
    static char cap_help[80], min_help[80], max_help[80], cost_help[96], depth_help[64];
    snprintf(cap_help, sizeof cap_help, "quadtree: split nodes holding more than N circles (default %d)",
             qp.capacity);
    snprintf(min_help, sizeof min_help, "quadtree: smallest leaf side (default %d)", qp.min_leaf);
    snprintf(max_help, sizeof max_help, "quadtree: largest leaf side, 0 for no limit (default %d)",
             qp.max_leaf);
    snprintf(cost_help, sizeof cost_help,
             "quadtree: split only where it pays, 0 for capacity alone (default %d)", qp.split_cost);
    snprintf(depth_help, sizeof depth_help, "quadtree: deepest level (default %d)", qp.max_depth);
    static char deep_help[96];
    snprintf(deep_help, sizeof deep_help,
             "quadtree: smallest leaf of a crowded node, 0 for none (default %d)", qp.deep_leaf);
    cli_opt opts[] = {
        {"--index", NULL, "LIST", set_index_list, &indexes,
         "indexes to compare: quadtree, grid or both (default quadtree,grid)", 0},
        {"--size", "-s", "LIST", set_size_list, &sizes, "square image sizes, e.g. 1024,2048 (default 1024)", 0},
        {"--mode", NULL, "LIST", set_mode_list, &modes, "render modes: fast, exact or both (default fast,exact)", 0},
        {"--tile", NULL, "LIST", set_tile_list, &tiles,
         "grid tile sides to try, powers of two to 256 (default 16,32,64,128,256)", 0},
        {"--frames", NULL, "N", set_count, &frames, "timed frames per measurement (default 20)", 0},
        {"--warmup", NULL, "N", set_count0, &warmup, "untimed frames first (default 5)", 0},
        {"--seed", NULL, "N", cli_set_seed, &seed, "seed of the built-in scenes (default 0)", 0},
        {"--cpu", NULL, NULL, NULL, &cpu,
         "also time the fast CPU renderer beside the reference (alone without a GPU)", 0},
        {"--cpu-frames", NULL, "N", set_count, &cpu_frames,
         "timed frames per mode on the CPU with --cpu (default 5)", 0},
        {"--direct", NULL, NULL, NULL, &direct, "launch build stages one by one, not as a CUDA graph", 0},
        {"--e2e", NULL, NULL, NULL, &e2e,
         "time the whole path of a render instead (load, upload, GPU, PNG out; RSS, GPU memory)", 0},
        {"--json", NULL, "FILE", cli_set_string, &json, "write all results as JSON, or - for stdout", 0},
        {"--csv", NULL, "FILE", cli_set_string, &csv, "write all results as CSV, or - for stdout", 0},
        {"--plot", NULL, "FILE.svg", cli_set_string, &plot, "draw stacked stage times per scene (SVG)", 0},
        {"--report", NULL, "FILE.html", cli_set_string, &report,
         "write a self-contained HTML report: charts of the frames against the best grid and "
         "the floor", 0},
        {"--scaling-plot", NULL, "FILE.svg", cli_set_string, &scaling,
         "also draw frame time against circle count of FAMILY:COUNT scenes (SVG)", 0},
        {"--capacity", NULL, "N", cli_set_capacity, &qp.capacity, cap_help, 0},
        {"--min-leaf", NULL, "N", cli_set_min_leaf, &qp.min_leaf, min_help, 0},
        {"--max-leaf", NULL, "N", cli_set_max_leaf, &qp.max_leaf, max_help, 0},
        {"--split-cost", NULL, "N", cli_set_split_cost, &qp.split_cost, cost_help, 0},
        {"--max-depth", NULL, "N", cli_set_max_depth, &qp.max_depth, depth_help, 0},
        {"--deep-leaf", NULL, "N", cli_set_deep_leaf, &qp.deep_leaf, deep_help, 0},
    };
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    char *pos[64];
    int npos;
    int rc = cli_parse(cmd, opts, nopts, argc, argv, pos, 64, &npos);
    if (rc == CLI_PARSE_HELP) return CLI_EXIT_OK;
    if (rc != CLI_PARSE_OK) return rc;
    /* option, its file, the ending the file's format needs */
    const char *const named[][3] = {
        {"--plot", plot, ".svg"}, {"--scaling-plot", scaling, ".svg"}, {"--report", report, ".html"}};
    for (int k = 0; k < 3; k++)
        if (named[k][1] && !cli_ends_with(named[k][1], named[k][2]))
            return cli_usage_error(cmd, "%s: expected a file name ending in %s, got '%s'",
                                   named[k][0], named[k][2], named[k][1]);
    const char *scored_names[NSCORED];
    for (int i = 0; i < NSCORED; i++) scored_names[i] = scored[i].name;
    const char *const *scenes = (const char *const *)pos;
    int nscenes = npos;
    if (!npos && scaling) {
        scenes = scaling_scenes;
        nscenes = (int)(sizeof scaling_scenes / sizeof scaling_scenes[0]);
    } else if (!npos) {
        scenes = scored_names;
        nscenes = NSCORED;
    }
    const char *outs[] = {json, csv, plot, scaling, report};
    for (int k = 0; k < 5; k++)
        if (outs[k] && strcmp(outs[k], "-") && (rc = cli_check_output_path(outs[k]))) return rc;

    qr_error err;
    qr_gpu_info gpu;
    int want_exact = 0, want_fast = 0;
    for (int i = 0; i < modes.n; i++) {
        want_exact |= !strcmp(modes.item[i], "exact");
        want_fast |= !strcmp(modes.item[i], "fast");
    }
    if (e2e && (cpu || json || csv || plot || scaling || report))
        return cli_usage_error(cmd, "--e2e prints a table: not with --cpu, --json, --csv, --plot, "
                                    "--scaling-plot or --report");
    if (qr_gpu_probe(&gpu, &err) != QR_OK) {
        if (e2e) {
            fprintf(stderr, "quadrender: bench --e2e needs a GPU: %s\n", err.msg);
            return CLI_EXIT_NO_GPU;
        }
        if (!cpu) {
            fprintf(stderr, "quadrender: bench needs a GPU (or --cpu): %s\n", err.msg);
            return CLI_EXIT_NO_GPU;
        }
        if (json || csv || plot || scaling || report)
            return cli_usage_error(cmd,
                                   "--json, --csv, --plot, --scaling-plot and --report need a GPU "
                                   "(no usable one: %s)",
                                   err.msg);
        fprintf(stderr, "quadrender: no usable GPU (%s): timing the CPU renderers only\n", err.msg);
        if (bench_cpu(stdout, scenes, nscenes, sizes.item, sizes.n, want_exact, want_fast, 1,
                      cpu_frames, seed, &qp, &err) != QR_OK)
            return cli_fail(&err, CLI_PHASE_RUN);
        return CLI_EXIT_OK;
    }
    if (e2e) {
        if (bench_e2e(stdout, scenes, nscenes, sizes.item, sizes.n, want_exact && !want_fast, seed,
                      &qp, &err) != QR_OK)
            return cli_fail(&err, CLI_PHASE_RUN);
        return CLI_EXIT_OK;
    }
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    printf("# quadrender bench, %s\n# %s (sm_%d%d, %d SMs, %.1f GiB), max clocks: SM %d MHz, memory %d MHz\n"
           "# driver CUDA %d.%d, runtime %d.%d, build %s, %d warm-up + %d timed frames, "
           "builds launched %s, scene on the GPU, image left on the GPU\n",
           date, gpu.name, gpu.cc_major, gpu.cc_minor, gpu.sm_count, gpu.mem_total / 1073741824.0,
           gpu.clock_khz / 1000, gpu.mem_clock_khz / 1000, gpu.driver_version / 1000,
           gpu.driver_version % 1000 / 10, gpu.runtime_version / 1000, gpu.runtime_version % 1000 / 10,
           QR_BUILD_TYPE, warmup, frames,
           direct ? "directly (a tree of one leaf: one kernel)"
                  : "as a CUDA graph (a tree of one leaf: one kernel)");
    printf("# quadtree: capacity %d, min leaf %d px, max leaf %d px (0: none), split cost %d, "
           "max depth %d, deep leaf %d px (0: none)\n",
           qp.capacity, qp.min_leaf, qp.max_leaf, qp.split_cost, qp.max_depth, qp.deep_leaf);
    char header_json[1024];
    snprintf(header_json, sizeof header_json,
             "{\"date\": \"%s\", \"gpu\": \"%s\", \"gpu_memory_bytes\": %zu, \"sm_clock_mhz\": %d, "
             "\"mem_clock_mhz\": %d, "
             "\"driver_cuda\": %d, \"runtime_cuda\": %d, \"build_type\": \"%s\", \"warmup\": %d, "
             "\"frames\": %d, \"seed\": %u, \"launch\": \"%s\", \"quadtree\": {\"capacity\": %d, "
             "\"min_leaf\": %d, \"max_leaf\": %d, \"split_cost\": %d, \"max_depth\": %d, "
             "\"deep_leaf\": %d}}",
             date, gpu.name, gpu.mem_total, gpu.clock_khz / 1000, gpu.mem_clock_khz / 1000,
             gpu.driver_version, gpu.runtime_version, QR_BUILD_TYPE, warmup, frames, seed, direct ? "direct" : "graph",
             qp.capacity, qp.min_leaf, qp.max_leaf, qp.split_cost, qp.max_depth, qp.deep_leaf);

    int want_q = 0, want_g = 0;
    for (int i = 0; i < indexes.n; i++) {
        want_q |= !strcmp(indexes.item[i], "quadtree");
        want_g |= !strcmp(indexes.item[i], "grid");
    }
    const int configs = want_q + (want_g ? tiles.n : 0);
    const int total = nscenes * sizes.n * configs * modes.n;
    bench_row *rows = calloc(total ? total : 1, sizeof *rows);
    if (!rows) {
        qr_fail(&err, QR_ERR_NOMEM, "out of host memory");
        return cli_fail(&err, CLI_PHASE_RUN);
    }
    report_floor *floors = report ? calloc((size_t)nscenes * sizes.n + 1, sizeof *floors) : NULL;
    if (report && !floors) {
        free(rows);
        qr_fail(&err, QR_ERR_NOMEM, "out of host memory");
        return cli_fail(&err, CLI_PHASE_RUN);
    }
    bench_plan plan = {.floors = floors, .sizes = &sizes, .tiles = &tiles, .modes = &modes, .qp = &qp,
                       .want_q = want_q, .configs = configs, .warmup = warmup, .frames = frames,
                       .direct = direct, .cpu = cpu, .progress = isatty(STDERR_FILENO),
                       .total = total, .scaling = scaling != NULL, .rows = rows};
    const int progress = plan.progress;
    rc = CLI_EXIT_OK;
    for (int s = 0; s < nscenes && rc == CLI_EXIT_OK; s++) rc = bench_scene(&plan, scenes[s], seed, &err);
    const int nrows = plan.nrows;
    if (progress) fputs("\r\033[K", stderr);
    if (rc == CLI_EXIT_OK) {
        bench_print_table(stdout, rows, nrows);
        bench_print_speedups(stdout, rows, nrows);
        if (scaling && bench_print_scaling(stdout, rows, nrows, &err) != QR_OK)
            rc = cli_fail(&err, CLI_PHASE_RUN);
        if (cpu && bench_cpu(stdout, scenes, nscenes, sizes.item, sizes.n, want_exact, want_fast, 1,
                             cpu_frames, seed, &qp, &err) != QR_OK)
            rc = cli_fail(&err, CLI_PHASE_RUN);
        char title[512];
        snprintf(title, sizeof title, "quadrender bench — %s — %s", gpu.name, date);
        if (!rc && json && bench_write_json(json, header_json, rows, nrows, scaling != NULL, &err))
            rc = cli_fail(&err, CLI_PHASE_OUTPUT);
        if (!rc && csv && bench_write_csv(csv, rows, nrows, &err)) rc = cli_fail(&err, CLI_PHASE_OUTPUT);
        if (!rc && plot && bench_write_svg(plot, title, rows, nrows, &err)) rc = cli_fail(&err, CLI_PHASE_OUTPUT);
        if (!rc && scaling && bench_write_scaling_svg(scaling, title, rows, nrows, gpu.mem_total, &err))
            rc = cli_fail(&err, CLI_PHASE_OUTPUT);
        if (!rc && report) {
            report_bench rb = {.header_json = header_json, .rows = rows, .nrows = nrows,
                               .floors = floors, .nfloors = plan.nfloors,
                               .bytes_per_s = peak_bytes_per_s(&gpu), .flops = peak_flops(&gpu)};
            if (report_bench_write(report, &rb, &err)) rc = cli_fail(&err, CLI_PHASE_OUTPUT);
        }
    }
    free(floors);
    free(rows);
    return rc;
}

const cli_cmd cli_cmd_bench = {
    .name = "bench",
    .summary = "time the quadtree against the uniform grid on the GPU (--cpu: the CPU renderers)",
    .args = "[SCENE...] [options]",
    .about = "Times frames (index build + render, scene and image on the GPU) for each\n"
             "scene, size, index and mode, with CUDA events: warm-up frames first, then\n"
             "the median, quartiles and extremes of the timed ones, per stage. With no\n"
             "scene, the scored set in two families: CS149's (rgb pattern rand10k\n"
             "rand100k biglittle littlebig rand1M micro2M snowsingle) and the non-uniform\n"
             "scenes (clusters spiral powerlaw hotspot roads ring). 'grid' is the classic\n"
             "uniform grid of --tile pixel tiles, built and rendered by the same code as\n"
             "the quadtree; the speedups compare the quadtree with the fastest tile.\n"
             "With --scaling-plot, also frame time against circle count: scenes named\n"
             "FAMILY:COUNT (with no scene: uniform and clustered, 10k to 100M circles;\n"
             "any other scene is a family of its own), a table on stdout and an SVG\n"
             "plot, quadtree and best grid per family and size; a measurement out of\n"
             "memory is recorded as such and the run goes on.\n"
             "With --report, also one self-contained HTML page (no network needed): per\n"
             "size and mode a chart of each scene's quadtree and best-grid frames beside\n"
             "the scene's floor (the bytes and blends any index must spend, counted on the\n"
             "CPU, at this GPU's peak bandwidth and FP32 rate), hover for the numbers.\n"
             "With --cpu, the fast CPU renderer (quadtree index, --threads N threads, both\n"
             "modes; --cpu-frames timed frames, medians) is timed beside the serial\n"
             "reference renderer too; without a usable GPU, only they are.\n",
    .notes = "The table goes to stdout, a progress line to stderr when it is a terminal.\n"
             "Exit codes: 0 success, 2 bad command line, 3 bad scene, 4 cannot write an output,\n"
             "5 no usable GPU (and no --cpu), 6 out of memory, 7 CUDA error.\n",
    .run = run_bench,
};
