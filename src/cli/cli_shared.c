/* cli_shared.c — what render, check and stats share: the scene and index
 * options, the choice of device, stepping a scene on the GPU (see cli.h). */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "quadrender/image.h"
#include "quadrender/threads.h"
#include "quadrender/text.h"

/* ---- scene options ------------------------------------------------------------- */

void cli_scene_opts_init(cli_opt *opts, cli_scene_opts *s)
{
    s->size = s->width = s->height = 1024;
    s->seed = 0;
    s->frame = 0;
    const cli_opt o[CLI_SCENE_NOPTS] = {
        [CLI_SO_SIZE] = {"--size", "-s", "N", cli_set_dim, &s->size,
                         "image width and height in pixels (default 1024)"},
        [CLI_SO_WIDTH] = {"--width", NULL, "W", cli_set_dim, &s->width,
                          "image width (default 1024)"},
        [CLI_SO_HEIGHT] = {"--height", NULL, "H", cli_set_dim, &s->height,
                           "image height (default 1024)"},
        [CLI_SO_SEED] = {"--seed", NULL, "N", cli_set_seed, &s->seed,
                         "random seed of a built-in scene (default 0)"},
        [CLI_SO_FRAME] = {"--frame", NULL, "K", cli_set_frame, &s->frame,
                          "frame K, after K+1 animation steps (default 0)"},
    };
    memcpy(opts, o, sizeof o);
}

int cli_scene_opts_finish(const cli_cmd *cmd, const cli_opt *opts, cli_scene_opts *s)
{
    if (opts[CLI_SO_SIZE].given && (opts[CLI_SO_WIDTH].given || opts[CLI_SO_HEIGHT].given))
        return cli_usage_error(cmd, "-s/--size cannot be combined with --width or --height");
    if (opts[CLI_SO_SIZE].given)
        s->width = s->height = s->size;
    const int32_t max = cmd->max_side ? cmd->max_side : QR_IMAGE_MAX_DIM;
    qr_error err;
    if (qr_image_check_whole("-s/--width/--height", cmd->name, "'render'", s->width, s->height,
                             max, &err) != QR_OK)
        return cli_usage_error(cmd, "%s", err.msg);
    return CLI_EXIT_OK;
}

/* ---- index options ----------------------------------------------------------------- */

/* An index option's value, checked by the library (qr_index_check_value). */
static const char *set_index_value(int option, const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_index_check_value(option, cli_setting(), text, dest, &err), &err);
}

const char *cli_set_capacity(const char *text, void *dest)
{
    return set_index_value(QR_IXO_CAPACITY, text, dest);
}

const char *cli_set_min_leaf(const char *text, void *dest)
{
    return set_index_value(QR_IXO_MIN_LEAF, text, dest);
}

const char *cli_set_deep_leaf(const char *text, void *dest)
{
    return set_index_value(QR_IXO_DEEP_LEAF, text, dest);
}

/* --tile: a grid's tiles are render tiles, at least QR_TILE */
const char *cli_set_tile(const char *text, void *dest)
{
    return set_index_value(QR_IXO_TILE, text, dest);
}

const char *cli_set_max_depth(const char *text, void *dest)
{
    return set_index_value(QR_IXO_MAX_DEPTH, text, dest);
}

/* --index: "quadtree" or "grid" into qr_index_params.uniform */
static const char *set_index_kind(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_index_check_kind(cli_setting(), text, dest, &err), &err);
}

/* --tile: the grid's tile side, applied by cli_index_opts_finish (one
 * process parses one command line). */
static int32_t grid_tile = 16;

const char *cli_set_max_leaf(const char *text, void *dest)
{
    return set_index_value(QR_IXO_MAX_LEAF, text, dest);
}

const char *cli_set_split_cost(const char *text, void *dest)
{
    return set_index_value(QR_IXO_SPLIT_COST, text, dest);
}

void cli_index_opts_init(cli_opt *opts, qr_index_params *p)
{
    qr_index_params_default(p);
    /* the help shows the library's defaults, whatever they are now; one
     * process parses one command line, so static buffers do */
    static char cap_help[96], leaf_help[96], depth_help[96], max_leaf_help[96], cost_help[128],
        deep_help[160];
    snprintf(deep_help, sizeof deep_help,
             "smallest leaf of a crowded node (over %d circles): nodes that crowded split below "
             "--min-leaf down to N; 0: never (default %d)",
             QR_SPLIT_DEEP, p->deep_leaf);
    snprintf(cost_help, sizeof cost_help,
             "split nodes over capacity only where it pays: a list read in %% of a pair "
             "(0: capacity alone; default %d)",
             p->split_cost);
    snprintf(max_leaf_help, sizeof max_leaf_help,
             "largest index leaf side, a power of two from 16, or 0 for no limit (default %d)",
             p->max_leaf);
    snprintf(cap_help, sizeof cap_help, "split index nodes holding more than N circles (default %d)",
             p->capacity);
    snprintf(leaf_help, sizeof leaf_help,
             "smallest index leaf side, a power of two from 4 (default %d)", p->min_leaf);
    snprintf(depth_help, sizeof depth_help, "deepest index level, 0 to %d (default %d)",
             QR_MAX_DEPTH_LIMIT, p->max_depth);
    const cli_opt o[CLI_INDEX_NOPTS] = {
        {"--capacity", NULL, "N", cli_set_capacity, &p->capacity, cap_help, 0},
        {"--min-leaf", NULL, "N", cli_set_min_leaf, &p->min_leaf, leaf_help, 0},
        {"--max-depth", NULL, "N", cli_set_max_depth, &p->max_depth, depth_help, 0},
        {"--index", NULL, "KIND", set_index_kind, &p->uniform,
         "quadtree (default), or grid: the classic uniform grid of --tile tiles", 0},
        {"--tile", NULL, "N", cli_set_tile, &grid_tile,
         "grid tile side with --index grid, a power of two from 16 (default 16)", 0},
        {"--max-leaf", NULL, "N", cli_set_max_leaf, &p->max_leaf, max_leaf_help, 0},
        {"--split-cost", NULL, "N", cli_set_split_cost, &p->split_cost, cost_help, 0},
        {"--deep-leaf", NULL, "N", cli_set_deep_leaf, &p->deep_leaf, deep_help, 0},
    };
    memcpy(opts, o, sizeof o);
}

int cli_index_opts_finish(const cli_cmd *cmd, const cli_opt *opts, qr_index_params *p)
{
    /* the table's order is the library's (QR_IXO_*) */
    _Static_assert(CLI_INDEX_NOPTS == QR_IXO_COUNT, "one entry per index option");
    const char *names[QR_IXO_COUNT];
    unsigned given = 0;
    for (int k = 0; k < QR_IXO_COUNT; k++) {
        names[k] = opts[k].name;
        if (opts[k].given)
            given |= 1u << k;
    }
    names[QR_IXO_INDEX] = "--index grid";
    qr_error err;
    if (qr_index_check_options(p->uniform, given, names, &err) != QR_OK)
        return cli_usage_error(cmd, "%s", err.msg);
    if (p->uniform)
        p->min_leaf = grid_tile;
    return CLI_EXIT_OK;
}

/* ---- device ---------------------------------------------------------------------------- */

int cli_choose_device(qr_job_device requested, const char *doing, cli_device_choice *c)
{
    qr_error err;
    if (qr_job_choose_device(requested, doing, c, &err) != QR_OK) {
        cli_message("--device gpu: %s", err.msg);
        return CLI_EXIT_NO_GPU;
    }
    if (c->gpu && cli_verbose())
        cli_message("CUDA device %d: %s, sm_%d%d, %d SMs, %.1f of %.1f GiB free, CPU threads %d",
                    c->info.device, c->info.name, c->info.cc_major, c->info.cc_minor,
                    c->info.sm_count, (double)c->info.mem_free / 1073741824.0,
                    (double)c->info.mem_total / 1073741824.0, qr_threads());
    return CLI_EXIT_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cli_sort_doubles(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
}

double cli_quantile(const double *v, int n, double q)
{
    double pos = q * (n - 1);
    int i = (int)pos;
    return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[n - 1];
}

double cli_median(double *v, int n)
{
    cli_sort_doubles(v, n);
    return cli_quantile(v, n, 0.5);
}

/* ---- commands on one scene ------------------------------------------------------- */

int cli_parse_scene_command(const cli_cmd *cmd, cli_opt *opts, int nopts, int o_scene, int o_index,
                            int argc, char **argv, cli_scene_opts *so, qr_index_params *params,
                            const char **scene)
{
    char *pos[1];
    int npos;
    cli_scene_opts_init(&opts[o_scene], so);
    cli_index_opts_init(&opts[o_index], params);
    int rc = cli_parse(cmd, opts, nopts, argc, argv, pos, 1, &npos);
    if (rc != CLI_PARSE_OK)
        return rc;
    if (npos == 0)
        return cli_usage_error(cmd, "%s: missing SCENE (a built-in name or a .circles/.par file)",
                               cmd->name);
    if ((rc = cli_index_opts_finish(cmd, &opts[o_index], params)) != CLI_EXIT_OK)
        return rc;
    if ((rc = cli_scene_opts_finish(cmd, &opts[o_scene], so)) != CLI_EXIT_OK)
        return rc;
    *scene = pos[0];
    return CLI_PARSE_OK;
}

const char *cli_set_gpus(const char *text, void *dest)
{
    int *g = dest;
    if (!strcmp(text, "all")) {
        g[0] = -1;
        return NULL;
    }
    int n = 0;
    const char *p = text;
    for (;;) {
        uint64_t v = 0;
        char digits[8];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof digits)
            return "all, or CUDA device numbers separated by commas (0,1)";
        memcpy(digits, p, len);
        digits[len] = '\0';
        if (!cli_parse_u64(digits, 1023, &v) || n == QR_JOB_MAX_GPUS)
            return "all, or up to 64 CUDA device numbers from 0 to 1023 (0,1)";
        g[1 + n++] = (int)v;
        if (!p[len])
            break;
        p += len + 1;
    }
    g[0] = n;
    return NULL;
}

int cli_parse_index_command(const cli_cmd *cmd, cli_opt *opts, int nopts, int o_index, int argc,
                            char **argv, qr_index_params *params, const int *exact, const int *fast,
                            const char **scene, qr_render_mode *mode)
{
    char *pos[1];
    int npos;
    int rc = cli_parse(cmd, opts, nopts, argc, argv, pos, 1, &npos);
    if (rc != CLI_PARSE_OK)
        return rc;
    if ((rc = cli_index_opts_finish(cmd, &opts[o_index], params)) != CLI_EXIT_OK)
        return rc;
    if (npos == 0)
        return cli_usage_error(cmd, "%s: missing SCENE (a built-in name or a .circles/.par/.npy file)",
                               cmd->name);
    if (*exact && *fast)
        return cli_usage_error(cmd, "--exact and --fast cannot be combined");
    *scene = pos[0];
    *mode = *exact ? QR_RENDER_EXACT : QR_RENDER_FAST;
    return CLI_PARSE_OK;
}
