/* cmd_query.c — `quadrender query`: which circles of a scene cover points,
 * or touch boxes, read from a .npy file; the answers to a .npy or .npz file.
 *
 * A front end over quadrender/query.h (the index and the queries on the
 * CPU) and quadrender/gpu_query.h (the same on the GPU, the same answers):
 * parse, plan (device, scene, queries), run (build, ask), write, report.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "quadrender/gpu_query.h"
#include "quadrender/npy.h"
#include "quadrender/query.h"
#include "quadrender/scene.h"
#include "quadrender/text.h"
#include "quadrender/threads.h"

/* ---- the command line ------------------------------------------------------------------ */

/* What the command line asks. */
typedef struct query_plan {
    const char *scene_arg, *points, *boxes, *out;
    qr_query_mode mode;
    qr_job_device device;
    int32_t resolution; /* 0: chosen from the scene */
    uint32_t seed;
    int64_t frame;      /* with has_frame: the state frame K is rendered from */
    int has_frame;
} query_plan;

static const char *set_mode(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_query_check_mode(cli_setting(), text, dest, &err), &err);
}

static const char *set_resolution(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_query_check_resolution(cli_setting(), text, dest, &err), &err);
}

/* --device: the job's names; cpu-reference answers by testing every
 * circle against every query (the oracle), as Python's Index does */
static const char *set_device(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_job_check_device(cli_setting(), text, dest, &err), &err);
}

static const char *const mode_names[] = {"top", "count", "all"};

/* The file the mode writes: top and count a .npy, all a .npz. */
static const char *mode_ext(qr_query_mode mode)
{
    return mode == QR_QUERY_ALL ? ".npz" : ".npy";
}

/* CLI_PARSE_OK, CLI_PARSE_HELP or an exit code. */
static int query_parse(const cli_cmd *cmd, int argc, char **argv, query_plan *p)
{
    memset(p, 0, sizeof *p);
    p->mode = QR_QUERY_TOP;
    p->device = QR_JOB_AUTO;
    int no_clobber = 0;
    enum {
        O_POINTS, O_BOXES, O_MODE, O_DEVICE, O_RESOLUTION, O_SEED, O_FRAME, O_OUT, O_NO_CLOBBER,
        O_COUNT
    };
    cli_opt opts[O_COUNT] = {
        [O_POINTS] = {"--points", NULL, "FILE.npy", cli_set_string, &p->points,
                      "the points: a .npy of shape (N, 2), rows x y, float32 or float64"},
        [O_BOXES] = {"--boxes", NULL, "FILE.npy", cli_set_string, &p->boxes,
                     "the boxes: a .npy of shape (N, 4), rows x0 y0 x1 y1, float32 or float64"},
        [O_MODE] = {"--mode", NULL, "MODE", set_mode, &p->mode,
                    "top (the front-most circle or -1), count, or all (every circle, in drawing "
                    "order) (default top)"},
        [O_DEVICE] = {"--device", NULL, "DEV", set_device, &p->device,
                      "auto, gpu, cpu, or cpu-reference (no index: every circle against every query) "
                      "(default auto)"},
        [O_RESOLUTION] = {"--resolution", NULL, "N", set_resolution, &p->resolution,
                          "the index's cells a side: a power of two from 16 to 32768, or 0 to "
                          "choose from the scene (default 0)"},
        [O_SEED] = {"--seed", NULL, "N", cli_set_seed, &p->seed,
                    "random seed of a built-in scene (default 0)"},
        [O_FRAME] = {"--frame", NULL, "K", cli_set_frame, &p->frame,
                     "the circles as frame K of an animation renders them (default: as generated)"},
        [O_OUT] = {"--output", "-o", "FILE", cli_set_string, &p->out,
                   "the answers: a .npy (top, count) or .npz (all), or - for stdout (required)"},
        [O_NO_CLOBBER] = {"--no-clobber", "-n", NULL, NULL, &no_clobber,
                          "never replace an existing file (exit 4 before any work)"},
    };
    char *pos[1];
    int npos;
    int rc = cli_parse(cmd, opts, O_COUNT, argc, argv, pos, 1, &npos);
    if (rc != CLI_PARSE_OK)
        return rc;
    if (npos == 0)
        return cli_usage_error(cmd, "query: missing SCENE (a built-in name or a "
                                    ".circles/.par/.npy file)");
    p->scene_arg = pos[0];
    p->has_frame = opts[O_FRAME].given;
    if (p->points && p->boxes)
        return cli_usage_error(cmd, "--points and --boxes cannot be combined: one batch a run");
    if (!p->points && !p->boxes)
        return cli_usage_error(cmd, "query: missing --points FILE.npy or --boxes FILE.npy");
    if (!p->out)
        return cli_usage_error(cmd, "query: missing -o/--output FILE%s", mode_ext(p->mode));
    /* a stream has no name to read back by; a file's name says what it holds */
    if (!cli_output_is_stream(p->out) && !cli_ends_with(p->out, mode_ext(p->mode)))
        return cli_usage_error(cmd, "-o/--output: '%s' does not end in %s (what --mode %s writes)",
                               p->out, mode_ext(p->mode), mode_names[p->mode]);
    cli_set_no_clobber(no_clobber);
    return cli_check_output_path(p->out);
}

/* ---- the work ---------------------------------------------------------------------------- */

/* What the run made, and its times. */
typedef struct query_run {
    cli_device_choice dev;
    qr_scene *scene;
    float *queries;  /* 2 (points) or 4 (boxes) floats a query */
    int64_t n;       /* queries */
    qr_query_result res;
    qr_query_index *index; /* on the CPU */
    qr_gpu_query *gq;      /* on the GPU */
    int32_t resolution;
    double load_ms, read_ms, build_ms, query_ms, write_ms;
    float gpu_ms;    /* the GPU's own time of the queries' last batch (CUDA events) */
} query_run;

/* The device, the scene and the queries: an exit code. */
static int query_load(const query_plan *p, query_run *run)
{
    int rc = cli_choose_device(p->device, "answering the queries", &run->dev);
    if (rc != CLI_EXIT_OK)
        return rc;
    qr_error err;
    double t0 = cli_now_ms();
    if (qr_scene_load(p->scene_arg, p->seed, &run->scene, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    if (p->has_frame && cli_seek(run->scene, NULL, p->frame, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_RUN);
    double t1 = cli_now_ms();
    const char *path = p->points ? p->points : p->boxes;
    qr_status st = p->points
                       ? qr_npy_read_floats(path, 2, "x y", &run->queries, &run->n, &err)
                       : qr_npy_read_floats(path, 4, "x0 y0 x1 y1", &run->queries, &run->n, &err);
    if (st != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    /* a bad box is the file's fault: said before any work, naming it */
    if (p->boxes && qr_query_check_boxes(run->queries, run->n, &err) != QR_OK) {
        cli_message("%s: %s", path, err.msg);
        return CLI_EXIT_INPUT;
    }
    run->load_ms = t1 - t0;
    run->read_ms = cli_now_ms() - t1;
    return CLI_EXIT_OK;
}

/* Builds the index and asks it, on the device chosen. */
static qr_status query_ask(const query_plan *p, query_run *run, qr_error *err)
{
    const bool points = p->points != NULL;
    double t0 = cli_now_ms();
    qr_status st;
    if (run->dev.gpu) {
        st = qr_gpu_query_create(run->scene, p->resolution, NULL, &run->gq, err);
        double t1 = cli_now_ms();
        if (st == QR_OK)
            st = points ? qr_gpu_query_points_host(run->gq, run->queries, run->n, p->mode,
                                                   &run->res, err)
                        : qr_gpu_query_boxes_host(run->gq, run->queries, run->n, p->mode,
                                                  &run->res, err);
        run->build_ms = t1 - t0;
        run->query_ms = cli_now_ms() - t1;
        if (st == QR_OK)
            run->resolution = qr_gpu_query_resolution(run->gq);
        /* (no queries: no GPU work, no time) */
        if (st == QR_OK && run->n > 0)
            st = qr_gpu_query_last_ms(run->gq, &run->gpu_ms, err);
        return st;
    }
    if (run->dev.reference) {
        /* no index: every circle against every query, one thread */
        st = points ? qr_query_points_brute(run->scene, run->queries, run->n, p->mode, &run->res, err)
                    : qr_query_boxes_brute(run->scene, run->queries, run->n, p->mode, &run->res, err);
        run->query_ms = cli_now_ms() - t0;
        return st;
    }
    st = qr_query_index_build(run->scene, p->resolution, NULL, 0, &run->index, err);
    double t1 = cli_now_ms();
    if (st == QR_OK)
        st = points ? qr_query_points(run->index, run->queries, run->n, p->mode, 0, &run->res, err)
                    : qr_query_boxes(run->index, run->queries, run->n, p->mode, 0, &run->res, err);
    run->build_ms = t1 - t0;
    run->query_ms = cli_now_ms() - t1;
    if (st == QR_OK)
        run->resolution = qr_query_index_resolution(run->index);
    return st;
}

/* The answers to p->out: values as a .npy, or offsets and ids as a .npz. */
static qr_status query_write(const query_plan *p, query_run *run, qr_error *err)
{
    const qr_query_result *r = &run->res;
    double t0 = cli_now_ms();
    qr_status st;
    if (r->mode == QR_QUERY_ALL) {
        /* no queries: one offset, 0, whatever the library left */
        static const int64_t zero = 0;
        const int64_t *offsets = r->offsets ? r->offsets : &zero;
        const cli_array a[2] = {
            {"offsets", "<i8", 8, r->queries + 1, offsets},
            {"ids", "<i4", 4, offsets[r->queries], r->ids},
        };
        st = cli_write_npz(p->out, a, 2, false, err);
    } else {
        const cli_array a = {"values", "<i4", 4, r->queries, r->values};
        st = cli_write_npy(p->out, &a, err);
    }
    run->write_ms = cli_now_ms() - t0;
    return st;
}

/* ---- the report -------------------------------------------------------------------------- */

/* One line unless -q: what was asked, where, of what index, how long; -v
 * adds the settings, the times stage by stage and what the answers hold. */
static void query_report(const query_plan *p, const query_run *run)
{
    const char *what = p->points ? "points" : "boxes";
    const char *mode = mode_names[p->mode];
    char index[160];
    if (run->index) {
        const qr_index *t = qr_query_index_tree(run->index);
        snprintf(index, sizeof index, "resolution %d, %d leaves, %" PRId64 " pairs",
                 (int)run->resolution, (int)t->num_leaves, t->num_pairs);
    } else if (run->dev.reference) {
        snprintf(index, sizeof index, "no index (every circle against every query)");
    } else {
        snprintf(index, sizeof index, "resolution %d", (int)run->resolution);
    }
    cli_info("query %s (%d circles): %" PRId64 " %s, mode %s, on %s, %s; %.1f ms -> %s",
             run->scene->name, (int)run->scene->n, run->n, what, mode,
             run->dev.gpu ? "the GPU" : run->dev.where, index, run->build_ms + run->query_ms,
             p->out);
    if (!cli_verbose())
        return;
    if (run->dev.note[0])
        cli_message("%s", run->dev.note);
    cli_message("settings: seed %u, resolution %s%d, %d CPU threads", p->seed,
                p->resolution ? "" : "chosen from the scene: ", (int)run->resolution,
                qr_threads());
    cli_message("  load %.1f ms, read %s %.1f ms, index %.1f ms + %s %.1f ms, write %.1f ms",
                run->load_ms, p->points ? p->points : p->boxes, run->read_ms, run->build_ms,
                what, run->query_ms, run->write_ms);
    if (run->dev.gpu && run->n > 0)
        cli_message("  the GPU's own time of the queries (of their last batch, past millions): "
                    "%.3f ms (CUDA events)",
                    (double)run->gpu_ms);
    const qr_query_result *r = &run->res;
    if (r->mode == QR_QUERY_ALL) {
        cli_message("  answers: %" PRId64 " circle ids over %" PRId64 " %s",
                    r->offsets ? r->offsets[r->queries] : 0, r->queries, what);
    } else {
        int64_t hit = 0, sum = 0, most = 0;
        for (int64_t q = 0; q < r->queries; q++) {
            hit += r->values[q] >= (r->mode == QR_QUERY_TOP ? 0 : 1);
            sum += r->values[q];
            most = r->values[q] > most ? r->values[q] : most;
        }
        if (r->mode == QR_QUERY_TOP)
            cli_message("  answers: %" PRId64 " of %" PRId64 " %s under a circle", hit,
                        r->queries, what);
        else
            cli_message("  answers: %" PRId64 " of %" PRId64 " %s under a circle, %" PRId64
                        " circles in all, at most %" PRId64,
                        hit, r->queries, what, sum, most);
    }
}

/* ---- the command ------------------------------------------------------------------------- */

static int run_query(const cli_cmd *cmd, int argc, char **argv)
{
    query_plan plan;
    int rc = query_parse(cmd, argc, argv, &plan);
    if (rc == CLI_PARSE_HELP)
        return CLI_EXIT_OK;
    if (rc != CLI_PARSE_OK)
        return rc;
    query_run run = {0};
    qr_error err;
    rc = query_load(&plan, &run);
    if (rc == CLI_EXIT_OK && query_ask(&plan, &run, &err) != QR_OK)
        rc = cli_fail(&err, CLI_PHASE_RUN);
    if (rc == CLI_EXIT_OK && query_write(&plan, &run, &err) != QR_OK)
        rc = cli_fail(&err, CLI_PHASE_OUTPUT);
    if (rc == CLI_EXIT_OK)
        query_report(&plan, &run);
    qr_query_result_free(&run.res);
    qr_query_index_destroy(run.index);
    qr_gpu_query_destroy(run.gq);
    free(run.queries);
    qr_scene_destroy(run.scene);
    return rc;
}

const cli_cmd cli_cmd_query = {
    .name = "query",
    .summary = "which circles cover points or touch boxes (.npy in, .npy/.npz out)",
    .args = "SCENE (--points FILE.npy | --boxes FILE.npy) -o OUT [options]",
    .about = "Builds a query index of SCENE (a built-in name, FAMILY:COUNT or a .circles,\n"
             ".par or .npy file) and asks it, for each point (x, y) of --points or each box\n"
             "(x0, y0, x1, y1) of --boxes, in scene coordinates (the unit square), which\n"
             "circles cover the point or touch the box: the front-most one (--mode top, its\n"
             "index or -1), how many (count), or all of them in drawing order (all). A point\n"
             "meets what the renderer's own test says covers it (so a pixel's centre meets\n"
             "the circles blended into that pixel); points outside the square or with a NaN\n"
             "meet nothing, and a box with a NaN or with x0 > x1 or y0 > y1 is an error.\n",
    .notes = "Output: top and count write a .npy of N int32 values, one a query; all writes\n"
             "a .npz (numpy.load reads it) of 'offsets' (int64, N+1) and 'ids' (int32):\n"
             "query q's circles are ids[offsets[q]:offsets[q+1]], back to front. A file is\n"
             "replaced whole (a temporary file beside it, synced, renamed over it); -o -\n"
             "writes the same bytes to standard output.\n"
             "\n"
             "The answers do not depend on --device, --resolution or --threads.\n"
             "\n"
             "Exit codes: 0 success, 2 bad command line, 3 bad scene or query file (a bad\n"
             "box too), 4 cannot write the output, 5 no usable GPU (--device gpu), 6 out of\n"
             "memory, 7 CUDA error.\n",
    .run = run_query,
};
