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

#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "cli/bench/report.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/render_cpu.h"
#include "quadrender/scene.h"
#include "quadrender/threads.h"

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

/* --zoo: at most this many scenes */
#define MAX_ZOO 1000

static const char *set_zoo(const char *text, void *dest)
{
    uint64_t v;
    if (!cli_parse_u64(text, MAX_ZOO, &v) || v < 1) return "an integer from 1 to 1000";
    *(int *)dest = (int)v;
    return NULL;
}

static const char *set_zoo_first(const char *text, void *dest)
{
    uint64_t v;
    if (!cli_parse_u64(text, 2147482647, &v)) return "a seed from 0 to 2147482647";
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
/* bench --query's scenes when none is named: CS149's densest and the
 * non-uniform ones. */
static const char *const query_scenes[] = {"rand1M",  "micro2M", "clusters", "spiral",
                                           "powerlaw", "hotspot", "roads",    "ring"};

static const char *const scaling_scenes[] = {
    "uniform:10k",   "uniform:100k",   "uniform:1M",   "uniform:10M",   "uniform:100M",
    "clustered:10k", "clustered:100k", "clustered:1M", "clustered:10M", "clustered:100M",
};

static const char *scene_group(const char *name)
{
    if (!strncasecmp(name, "zoo:", 4)) return "zoo";
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
    int plan_trials; /* --plan N: the quadtree rows planned, N frames a candidate */
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

/* With --plan, a quadtree row's settings timed on the scene
 * (qr_gpu_renderer_plan) into the row: it is then measured with the
 * chosen ones. */
static qr_status plan_row(const bench_plan *b, qr_gpu_renderer *r, const qr_gpu_scene *gs,
                          const qr_index_params *p, bench_row *row, qr_error *err)
{
    if (row->grid_tile || !b->plan_trials) return QR_OK;
    qr_plan plan;
    qr_status st = qr_gpu_renderer_plan(r, gs, p, row->exact ? QR_RENDER_EXACT : QR_RENDER_FAST,
                                        b->plan_trials, &plan, err);
    if (st) return st;
    row->planned = 1;
    row->chosen = plan.params[plan.chosen];
    row->plan_ms = plan.plan_ms;
    row->default_ms = plan.median_ms[0];
    row->plan_candidates = plan.candidates;
    return QR_OK;
}

/* Every mode of index configuration c of one scene at one size into b's
 * rows, on a renderer of the configuration's own. An exit code. */
static int bench_config(bench_plan *b, const qr_scene *scene, const qr_gpu_scene *gs,
                        const char *group, size_t scene_bytes, int size, int c, qr_error *err)
{
    qr_index_params p = *b->qp;
    if (config_tile(b, c)) {
        p.uniform = 1;
        p.min_leaf = config_tile(b, c);
    }
    int rc = CLI_EXIT_OK;
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
            st = plan_row(b, r, gs, &p, row, err);
            if (!st) st = bench_measure(r, gs, row->planned ? &row->chosen : &p, row->exact, b->warmup,
                                        b->frames, row, err);
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
    return rc;
}

/* The CPU reference's frame for the exact rows from first_row on (those that
 * fit). */
static void bench_reference(bench_plan *b, const qr_scene *scene, int size, int first_row,
                            qr_error *err)
{
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

/* Every index and mode of one scene at one size, then its floor (--report)
 * and the CPU reference (--cpu). An exit code. */
static int bench_size(bench_plan *b, const qr_scene *scene, const qr_gpu_scene *gs, int size,
                      qr_error *err)
{
    const char *group = scene_group(scene->name);
    const size_t scene_bytes = scene_device_bytes(scene);
    const int first_row = b->nrows;
    int rc = CLI_EXIT_OK;
    for (int c = 0; c < b->configs && rc == CLI_EXIT_OK; c++)
        rc = bench_config(b, scene, gs, group, scene_bytes, size, c, err);
    if (b->floors && rc == CLI_EXIT_OK) {
        report_floor *fl = &b->floors[b->nfloors];
        snprintf(fl->scene, sizeof fl->scene, "%s", scene->name);
        fl->size = size;
        if (qr_work_floor_count(scene, size, size, 0, &fl->floor, err) != QR_OK)
            rc = cli_fail(err, CLI_PHASE_RUN);
        else
            b->nfloors++;
    }
    /* the CPU reference comes after the GPU measurements: a GPU left
     * idle for seconds would start them at lowered clocks */
    if (b->cpu && rc == CLI_EXIT_OK)
        bench_reference(b, scene, size, first_row, err);
    return rc;
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
    int rc = CLI_EXIT_OK;
    if (qr_gpu_scene_create(scene, &gs, err) != QR_OK) {
        if (goes_on(b, scene->name, err))
            scene_out_of_memory(b, scene->name, scene_group(scene->name), scene->n,
                                scene_device_bytes(scene),
                                err->status == QR_ERR_NOMEM ? BENCH_OOM_HOST : BENCH_OOM_GPU);
        else
            rc = cli_fail(err, CLI_PHASE_RUN);
        qr_scene_destroy(scene);
        return rc;
    }
    for (int z = 0; z < b->sizes->n && rc == CLI_EXIT_OK; z++)
        rc = bench_size(b, scene, gs, b->sizes->item[z], err);
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

/* What the command line asks. */
typedef struct bench_args {
    word_list indexes, modes;
    int_list sizes, tiles;
    int frames, warmup, cpu, direct, cpu_frames, e2e, query;
    int plan; /* --plan N */
    int zoo, zoo_first; /* --zoo N: zoo:zoo_first .. zoo:zoo_first+N-1 */
    uint32_t seed;
    const char *json, *csv, *plot, *scaling, *report;
    qr_index_params qp;
    char *pos[64];
    const char *scored_names[NSCORED];
    char zoo_names[MAX_ZOO][16];
    const char *listed[64 + MAX_ZOO]; /* the scenes named, then the zoo's */
    const char *const *scenes; /* the scenes named and the zoo's, else the scored or the scaling set */
    int nscenes;
    int want_exact, want_fast, want_q, want_g;
} bench_args;

/* The GPU the run measures and the header of its outputs. */
typedef struct bench_env {
    qr_gpu_info gpu;
    char date[32];
    char header_json[1024];
} bench_env;

/* The quadtree options' help shows the library's defaults, whatever they
 * are now (one process parses one command line). */
enum { HELP_CAP, HELP_MIN, HELP_MAX, HELP_COST, HELP_DEPTH, HELP_DEEP, NHELP };
static void quadtree_help(const qr_index_params *qp, char help[NHELP][96])
{
    snprintf(help[HELP_CAP], 96, "quadtree: split nodes holding more than N circles (default %d)",
             qp->capacity);
    snprintf(help[HELP_MIN], 96, "quadtree: smallest leaf side (default %d)", qp->min_leaf);
    snprintf(help[HELP_MAX], 96, "quadtree: largest leaf side, 0 for no limit (default %d)",
             qp->max_leaf);
    snprintf(help[HELP_COST], 96,
             "quadtree: split only where it pays, 0 for capacity alone (default %d)",
             qp->split_cost);
    snprintf(help[HELP_DEPTH], 96, "quadtree: deepest level (default %d)", qp->max_depth);
    snprintf(help[HELP_DEEP], 96,
             "quadtree: smallest leaf of a crowded node, 0 for none (default %d)", qp->deep_leaf);
}

/* What follows the options: the files' endings, the scenes, the outputs'
 * paths, the modes and indexes asked for. An exit code. */
static int bench_check_args(const cli_cmd *cmd, bench_args *a, int npos)
{
    int rc;
    /* option, its file, the ending the file's format needs */
    const char *const named[][3] = {{"--plot", a->plot, ".svg"},
                                    {"--scaling-plot", a->scaling, ".svg"},
                                    {"--report", a->report, ".html"}};
    for (int k = 0; k < 3; k++)
        if (named[k][1] && !cli_ends_with(named[k][1], named[k][2]))
            return cli_usage_error(cmd, "%s: expected a file name ending in %s, got '%s'",
                                   named[k][0], named[k][2], named[k][1]);
    for (int i = 0; i < NSCORED; i++) a->scored_names[i] = scored[i].name;
    a->scenes = (const char *const *)a->pos;
    a->nscenes = npos;
    if (a->zoo) {
        for (int i = 0; i < npos; i++) a->listed[i] = a->pos[i];
        for (int i = 0; i < a->zoo; i++) {
            snprintf(a->zoo_names[i], sizeof a->zoo_names[i], "zoo:%d", a->zoo_first + i);
            a->listed[npos + i] = a->zoo_names[i];
        }
        a->scenes = a->listed;
        a->nscenes = npos + a->zoo;
    } else if (!npos && a->query) {
        a->scenes = query_scenes;
        a->nscenes = (int)(sizeof query_scenes / sizeof query_scenes[0]);
    } else if (!npos && a->scaling) {
        a->scenes = scaling_scenes;
        a->nscenes = (int)(sizeof scaling_scenes / sizeof scaling_scenes[0]);
    } else if (!npos) {
        a->scenes = a->scored_names;
        a->nscenes = NSCORED;
    }
    const char *outs[] = {a->json, a->csv, a->plot, a->scaling, a->report};
    for (int k = 0; k < 5; k++)
        if (outs[k] && strcmp(outs[k], "-") && (rc = cli_check_output_path(outs[k]))) return rc;
    for (int i = 0; i < a->modes.n; i++) {
        a->want_exact |= !strcmp(a->modes.item[i], "exact");
        a->want_fast |= !strcmp(a->modes.item[i], "fast");
    }
    for (int i = 0; i < a->indexes.n; i++) {
        a->want_q |= !strcmp(a->indexes.item[i], "quadtree");
        a->want_g |= !strcmp(a->indexes.item[i], "grid");
    }
    if (a->plan && (a->e2e || a->direct))
        return cli_usage_error(cmd, "--plan: not with %s (a plan times graph frames)",
                               a->e2e ? "--e2e" : "--direct");
    if (a->query && (a->e2e || a->cpu || a->plan || a->direct || a->zoo || a->csv || a->plot ||
                     a->scaling || a->report))
        return cli_usage_error(cmd, "--query prints a table (and --json): not with --e2e, --cpu, "
                                    "--plan, --direct, --zoo, --csv, --plot, --scaling-plot or "
                                    "--report");
    if (a->e2e && (a->cpu || a->json || a->csv || a->plot || a->scaling || a->report))
        return cli_usage_error(cmd, "--e2e prints a table: not with --cpu, --json, --csv, --plot, "
                                    "--scaling-plot or --report");
    /* every named scene before any work (exit 3), as render does */
    qr_error err;
    for (int i = 0; i < npos; i++)
        if (qr_scene_check_spec(a->pos[i], &err) != QR_OK)
            return cli_fail(&err, CLI_PHASE_INPUT);
    return CLI_EXIT_OK;
}

/* CLI_PARSE_OK, CLI_PARSE_HELP or an exit code. */
static int bench_parse(const cli_cmd *cmd, int argc, char **argv, bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->sizes = (int_list){{1024}, 1};
    a->tiles = (int_list){{16, 32, 64, 128, 256}, 5};
    set_index_list("quadtree,grid", &a->indexes);
    set_mode_list("fast,exact", &a->modes);
    a->frames = 20, a->warmup = 5, a->cpu_frames = 5, a->zoo_first = 1000;
    qr_index_params_default(&a->qp);
    qr_index_params *qp = &a->qp;
    static char help[NHELP][96];
    quadtree_help(qp, help);
    cli_opt opts[] = {
        {"--index", NULL, "LIST", set_index_list, &a->indexes,
         "indexes to compare: quadtree, grid or both (default quadtree,grid)", 0},
        {"--size", "-s", "LIST", set_size_list, &a->sizes, "square image sizes, e.g. 1024,2048 (default 1024)", 0},
        {"--mode", NULL, "LIST", set_mode_list, &a->modes, "render modes: fast, exact or both (default fast,exact)", 0},
        {"--tile", NULL, "LIST", set_tile_list, &a->tiles,
         "grid tile sides to try, powers of two to 256 (default 16,32,64,128,256)", 0},
        {"--frames", NULL, "N", set_count, &a->frames, "timed frames per measurement (default 20)", 0},
        {"--warmup", NULL, "N", set_count0, &a->warmup, "untimed frames first (default 5)", 0},
        {"--seed", NULL, "N", cli_set_seed, &a->seed, "seed of the built-in scenes (default 0)", 0},
        {"--zoo", NULL, "N", set_zoo, &a->zoo,
         "also the zoo scenes zoo:S to zoo:S+N-1, summed up after the rows", 0},
        {"--zoo-first", NULL, "S", set_zoo_first, &a->zoo_first,
         "the first zoo seed S (default 1000; tune on seeds below 1000 only)", 0},
        {"--cpu", NULL, NULL, NULL, &a->cpu,
         "also time the fast CPU renderer beside the reference (alone without a GPU)", 0},
        {"--cpu-frames", NULL, "N", set_count, &a->cpu_frames,
         "timed frames per mode on the CPU with --cpu (default 5)", 0},
        {"--direct", NULL, NULL, NULL, &a->direct, "launch build stages one by one, not as a CUDA graph", 0},
        {"--plan", NULL, "N", cli_set_plan, &a->plan,
         "plan the quadtree rows: time its candidate settings N frames each on the scene and "
         "measure the fastest (0: the settings as given, the default)", 0},
        {"--e2e", NULL, NULL, NULL, &a->e2e,
         "time the whole path of a render instead (load, upload, GPU, PNG out; RSS, GPU memory)", 0},
        {"--query", NULL, NULL, NULL, &a->query,
         "time point and box queries instead: 10M points and 100k boxes, the quadtree "
         "against each grid and a brute-force kernel (index build included)", 0},
        {"--json", NULL, "FILE", cli_set_string, &a->json, "write all results as JSON, or - for stdout", 0},
        {"--csv", NULL, "FILE", cli_set_string, &a->csv, "write all results as CSV, or - for stdout", 0},
        {"--plot", NULL, "FILE.svg", cli_set_string, &a->plot, "draw stacked stage times per scene (SVG)", 0},
        {"--report", NULL, "FILE.html", cli_set_string, &a->report,
         "write a self-contained HTML report: charts of the frames against the best grid and "
         "the floor", 0},
        {"--scaling-plot", NULL, "FILE.svg", cli_set_string, &a->scaling,
         "also draw frame time against circle count of FAMILY:COUNT scenes (SVG)", 0},
        {"--capacity", NULL, "N", cli_set_capacity, &qp->capacity, help[HELP_CAP], 0},
        {"--min-leaf", NULL, "N", cli_set_min_leaf, &qp->min_leaf, help[HELP_MIN], 0},
        {"--max-leaf", NULL, "N", cli_set_max_leaf, &qp->max_leaf, help[HELP_MAX], 0},
        {"--split-cost", NULL, "N", cli_set_split_cost, &qp->split_cost, help[HELP_COST], 0},
        {"--max-depth", NULL, "N", cli_set_max_depth, &qp->max_depth, help[HELP_DEPTH], 0},
        {"--deep-leaf", NULL, "N", cli_set_deep_leaf, &qp->deep_leaf, help[HELP_DEEP], 0},
    };
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    int npos;
    int rc = cli_parse(cmd, opts, nopts, argc, argv, a->pos, 64, &npos);
    if (rc != CLI_PARSE_OK) return rc;
    return bench_check_args(cmd, a, npos);
}

/* Without a GPU, rows on the fast CPU renderer for scenes[first..] (the
 * zoo's, the last a->zoo; with --json the named ones too), every size,
 * index and mode as the GPU bench's; then their table, the speed-ups, the
 * zoo's lines and, with --json, the JSON. An exit code. */
static int bench_rows_cpu(const bench_args *a, int first, qr_error *err)
{
    const int configs = a->want_q + (a->want_g ? a->tiles.n : 0);
    bench_plan b = {.sizes = &a->sizes, .tiles = &a->tiles, .modes = &a->modes, .qp = &a->qp,
                    .want_q = a->want_q, .configs = configs};
    b.rows = calloc((size_t)(a->nscenes - first) * a->sizes.n * configs * a->modes.n + 1,
                    sizeof *b.rows);
    if (!b.rows) {
        qr_fail(err, QR_ERR_NOMEM, "out of host memory");
        return cli_fail(err, CLI_PHASE_RUN);
    }
    int rc = CLI_EXIT_OK;
    for (int s = first; s < a->nscenes && rc == CLI_EXIT_OK; s++) {
        qr_scene *scene = NULL;
        if (qr_scene_load(a->scenes[s], a->seed, &scene, err) != QR_OK ||
            qr_scene_seek_frame(scene, 0, err) != QR_OK) {
            qr_scene_destroy(scene);
            rc = cli_fail(err, CLI_PHASE_INPUT);
            break;
        }
        for (int z = 0; z < a->sizes.n && rc == CLI_EXIT_OK; z++)
            for (int c = 0; c < configs && rc == CLI_EXIT_OK; c++)
                for (int m = 0; m < a->modes.n && rc == CLI_EXIT_OK; m++) {
                    bench_row *row = start_row(&b, scene->name, scene_group(a->scenes[s]), scene->n, 0,
                                               a->sizes.item[z], c, m);
                    qr_index_params p = a->qp;
                    if (row->grid_tile) {
                        p.uniform = 1;
                        p.min_leaf = row->grid_tile;
                    }
                    if (bench_measure_cpu(scene, row->size, row->size, &p,
                                          row->exact ? QR_RENDER_EXACT : QR_RENDER_FAST, 1,
                                          a->cpu_frames, row, err) != QR_OK)
                        rc = cli_fail(err, CLI_PHASE_RUN);
                    b.nrows++;
                }
        qr_scene_destroy(scene);
    }
    if (rc == CLI_EXIT_OK) {
        printf("# %s on the fast CPU renderer: %d threads, 1 warm-up + %d timed frames "
               "(--cpu-frames) per row\n",
               first < a->nscenes - a->zoo ? "the scenes" : "the zoo",
               qr_threads(), a->cpu_frames);
        bench_print_table(stdout, b.rows, b.nrows);
        bench_print_speedups(stdout, b.rows, b.nrows);
        bench_print_zoo(stdout, b.rows, b.nrows);
        char header[256];
        snprintf(header, sizeof header,
                 "{\"device\": \"cpu\", \"threads\": %d, \"warmup\": 1, \"frames\": %d, "
                 "\"seed\": %u}",
                 qr_threads(), a->cpu_frames, a->seed);
        if (a->json && bench_write_json(a->json, header, b.rows, b.nrows, 0, err) != QR_OK)
            rc = cli_fail(err, CLI_PHASE_OUTPUT);
    }
    free(b.rows);
    return rc;
}

/* Without a usable GPU (why: the probe's error): the CPU renderers alone
 * with --cpu (the zoo's rows too with --zoo), else why not. An exit code. */
static int bench_without_gpu(const cli_cmd *cmd, const bench_args *a, const qr_error *why)
{
    if (a->e2e || a->query) {
        fprintf(stderr, "quadrender: bench %s needs a GPU: %s\n", a->e2e ? "--e2e" : "--query",
                why->msg);
        return CLI_EXIT_NO_GPU;
    }
    if (!a->cpu) {
        fprintf(stderr, "quadrender: bench needs a GPU (or --cpu): %s\n", why->msg);
        return CLI_EXIT_NO_GPU;
    }
    if (a->csv || a->plot || a->scaling || a->report) {
        cli_message("--csv, --plot, --scaling-plot and --report need a GPU (no usable one: %s)",
                    why->msg);
        return CLI_EXIT_NO_GPU;
    }
    cli_info("no usable GPU (%s): timing the CPU renderers only", why->msg);
    qr_error err;
    const int named = a->nscenes - a->zoo;
    /* with --json, every scene's rows (and no reference, which takes
     * seconds a scene); else the named scenes against the reference, and
     * the zoo's rows */
    if (a->json) return bench_rows_cpu(a, 0, &err);
    if (named && bench_cpu(stdout, a->scenes, named, a->sizes.item, a->sizes.n, a->want_exact,
                           a->want_fast, 1, a->cpu_frames, a->seed, &a->qp, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT); /* a scene that does not load: exit 3 */
    return a->zoo ? bench_rows_cpu(a, named, &err) : CLI_EXIT_OK;
}

/* The run's header: comment lines on stdout, and the same as a JSON object
 * into env->header_json. */
static void bench_header(const bench_args *a, bench_env *env)
{
    const qr_gpu_info *gpu = &env->gpu;
    const qr_index_params *qp = &a->qp;
    time_t now = time(NULL);
    strftime(env->date, sizeof env->date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    printf("# quadrender bench, %s\n# %s (sm_%d%d, %d SMs, %.1f GiB), max clocks: SM %d MHz, memory %d MHz\n"
           "# driver CUDA %d.%d, runtime %d.%d, build %s, %d warm-up + %d timed frames, "
           "builds launched %s, scene on the GPU, image left on the GPU\n",
           env->date, gpu->name, gpu->cc_major, gpu->cc_minor, gpu->sm_count,
           gpu->mem_total / 1073741824.0, gpu->clock_khz / 1000, gpu->mem_clock_khz / 1000,
           gpu->driver_version / 1000, gpu->driver_version % 1000 / 10,
           gpu->runtime_version / 1000, gpu->runtime_version % 1000 / 10, QR_BUILD_TYPE,
           a->warmup, a->frames,
           a->direct ? "directly (a tree of one leaf: one kernel)"
                     : "as a CUDA graph (a tree of one leaf: one kernel)");
    printf("# quadtree: capacity %d, min leaf %d px, max leaf %d px (0: none), split cost %d, "
           "max depth %d, deep leaf %d px (0: none)\n",
           qp->capacity, qp->min_leaf, qp->max_leaf, qp->split_cost, qp->max_depth, qp->deep_leaf);
    if (a->plan)
        printf("# quadtree rows planned: its candidate settings timed %d frames each after one, "
               "the fastest measured (JSON: each row's plan)\n", a->plan);
    snprintf(env->header_json, sizeof env->header_json,
             "{\"date\": \"%s\", \"gpu\": \"%s\", \"gpu_memory_bytes\": %zu, \"sm_clock_mhz\": %d, "
             "\"mem_clock_mhz\": %d, "
             "\"driver_cuda\": %d, \"runtime_cuda\": %d, \"build_type\": \"%s\", \"warmup\": %d, "
             "\"frames\": %d, \"seed\": %u, \"launch\": \"%s\", \"quadtree\": {\"capacity\": %d, "
             "\"min_leaf\": %d, \"max_leaf\": %d, \"split_cost\": %d, \"max_depth\": %d, "
             "\"deep_leaf\": %d}}",
             env->date, gpu->name, gpu->mem_total, gpu->clock_khz / 1000,
             gpu->mem_clock_khz / 1000, gpu->driver_version, gpu->runtime_version, QR_BUILD_TYPE,
             a->warmup, a->frames, a->seed, a->direct ? "direct" : "graph", qp->capacity,
             qp->min_leaf, qp->max_leaf, qp->split_cost, qp->max_depth, qp->deep_leaf);
}

/* Every scene's rows into plan (its rows and floors allocated here; the
 * caller frees them, also on failure). An exit code. */
static int bench_measure_all(const bench_args *a, bench_plan *plan, qr_error *err)
{
    const int configs = a->want_q + (a->want_g ? a->tiles.n : 0);
    const int total = a->nscenes * a->sizes.n * configs * a->modes.n;
    *plan = (bench_plan){.sizes = &a->sizes, .tiles = &a->tiles, .modes = &a->modes,
                         .qp = &a->qp, .want_q = a->want_q, .configs = configs,
                         .warmup = a->warmup, .frames = a->frames, .direct = a->direct,
                         .plan_trials = a->plan,
                         .cpu = a->cpu, .progress = isatty(STDERR_FILENO), .total = total,
                         .scaling = a->scaling != NULL};
    plan->rows = calloc(total ? total : 1, sizeof *plan->rows);
    if (a->report)
        plan->floors = calloc((size_t)a->nscenes * a->sizes.n + 1, sizeof *plan->floors);
    if (!plan->rows || (a->report && !plan->floors)) {
        qr_fail(err, QR_ERR_NOMEM, "out of host memory");
        return cli_fail(err, CLI_PHASE_RUN);
    }
    int rc = CLI_EXIT_OK;
    for (int s = 0; s < a->nscenes && rc == CLI_EXIT_OK; s++)
        rc = bench_scene(plan, a->scenes[s], a->seed, err);
    if (plan->progress) fputs("\r\033[K", stderr);
    return rc;
}

/* The tables on stdout (with --cpu, the CPU renderers' after them), then
 * the files asked for. An exit code. */
static int bench_report(const bench_args *a, const bench_env *env, const bench_plan *plan,
                        qr_error *err)
{
    const bench_row *rows = plan->rows;
    const int nrows = plan->nrows;
    int rc = CLI_EXIT_OK;
    bench_print_table(stdout, rows, nrows);
    bench_print_speedups(stdout, rows, nrows);
    bench_print_zoo(stdout, rows, nrows);
    if (a->scaling && bench_print_scaling(stdout, rows, nrows, err) != QR_OK)
        rc = cli_fail(err, CLI_PHASE_RUN);
    if (a->cpu && bench_cpu(stdout, a->scenes, a->nscenes, a->sizes.item, a->sizes.n,
                            a->want_exact, a->want_fast, 1, a->cpu_frames, a->seed, &a->qp,
                            err) != QR_OK)
        rc = cli_fail(err, CLI_PHASE_RUN);
    char title[512];
    snprintf(title, sizeof title, "quadrender bench — %s — %s", env->gpu.name, env->date);
    if (!rc && a->json && bench_write_json(a->json, env->header_json, rows, nrows, a->scaling != NULL, err))
        rc = cli_fail(err, CLI_PHASE_OUTPUT);
    if (!rc && a->csv && bench_write_csv(a->csv, rows, nrows, err)) rc = cli_fail(err, CLI_PHASE_OUTPUT);
    if (!rc && a->plot && bench_write_svg(a->plot, title, rows, nrows, err))
        rc = cli_fail(err, CLI_PHASE_OUTPUT);
    if (!rc && a->scaling &&
        bench_write_scaling_svg(a->scaling, title, rows, nrows, env->gpu.mem_total, err))
        rc = cli_fail(err, CLI_PHASE_OUTPUT);
    if (!rc && a->report) {
        report_bench rb = {.header_json = env->header_json, .rows = rows, .nrows = nrows,
                           .floors = plan->floors, .nfloors = plan->nfloors,
                           .bytes_per_s = peak_bytes_per_s(&env->gpu),
                           .flops = peak_flops(&env->gpu)};
        if (report_bench_write(a->report, &rb, err)) rc = cli_fail(err, CLI_PHASE_OUTPUT);
    }
    return rc;
}

static int run_bench(const cli_cmd *cmd, int argc, char **argv)
{
    bench_args a;
    int rc = bench_parse(cmd, argc, argv, &a);
    if (rc == CLI_PARSE_HELP) return CLI_EXIT_OK;
    if (rc != CLI_PARSE_OK) return rc;
    qr_error err;
    bench_env env;
    if (qr_gpu_probe(&env.gpu, &err) != QR_OK) return bench_without_gpu(cmd, &a, &err);
    if (a.query) {
        if (bench_query(stdout, a.scenes, a.nscenes, a.seed, a.warmup, a.frames, a.json, &err) !=
            QR_OK)
            return cli_fail(&err, CLI_PHASE_RUN);
        return CLI_EXIT_OK;
    }
    if (a.e2e) {
        if (bench_e2e(stdout, a.scenes, a.nscenes, a.sizes.item, a.sizes.n,
                      a.want_exact && !a.want_fast, a.seed, &a.qp, &err) != QR_OK)
            return cli_fail(&err, CLI_PHASE_RUN);
        return CLI_EXIT_OK;
    }
    bench_header(&a, &env);
    bench_plan plan;
    rc = bench_measure_all(&a, &plan, &err);
    if (rc == CLI_EXIT_OK) rc = bench_report(&a, &env, &plan, &err);
    free(plan.floors);
    free(plan.rows);
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
