/* cmd_dump.c — `quadrender dump`: a scene's circles to a .circles or .npy file.
 *
 * Without --frame the file holds the scene as generated, before any
 * animation step; with --frame K it holds the state frame K is rendered
 * from (K+1 steps), so `render FILE` draws the same picture as
 * `render SCENE --frame K`.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "quadrender/scene.h"

/* The writer follows the output's extension (case-insensitive). */
static int has_ext(const char *path, const char *ext)
{
    size_t len = strlen(path), n = strlen(ext);
    return len > n && strcasecmp(path + len - n, ext) == 0;
}

static int run_dump(const cli_cmd *cmd, int argc, char **argv)
{
    uint32_t seed = 0;
    int64_t frame = 0;
    const char *out = NULL;
    int no_clobber = 0;
    cli_map_opts map;
    enum { O_SEED, O_FRAME, O_OUT, O_NO_CLOBBER, O_MAP, O_COUNT = O_MAP + CLI_MAP_NOPTS };
    cli_opt opts[O_COUNT] = {
        [O_SEED] = {"--seed", NULL, "N", cli_set_seed, &seed,
                    "random seed of a built-in scene (default 0)"},
        [O_FRAME] = {"--frame", NULL, "K", cli_set_frame, &frame,
                     "the state frame K is rendered from (default: as generated)"},
        [O_OUT] = {"--output", "-o", "FILE", cli_set_string, &out,
                   "the .circles or .npy file to write, or - for stdout (required)"},
        [O_NO_CLOBBER] = {"--no-clobber", "-n", NULL, NULL, &no_clobber,
                          "never replace an existing file (exit 4 before any work)"},
    };
    cli_map_opts_init(&opts[O_MAP], &map);
    char *pos[1];
    int npos;
    int rc = cli_parse(cmd, opts, O_COUNT, argc, argv, pos, 1, &npos);
    if (rc == CLI_PARSE_HELP)
        return CLI_EXIT_OK;
    if (rc != CLI_PARSE_OK)
        return rc;
    if ((rc = cli_map_opts_finish(cmd, &opts[O_MAP], &map)) != CLI_EXIT_OK)
        return rc;
    if (npos == 0)
        return cli_usage_error(cmd, "dump: missing SCENE (a built-in name or a .circles/.par/.npy file)");
    if (!out)
        return cli_usage_error(cmd, "dump: missing -o/--output FILE.circles or FILE.npy");
    /* scenes are loaded by extension: any other file name could not be read
     * back; a stream (stdout, a pipe, a device) has no name to read back and
     * gets .circles text unless its name ends in .npy */
    int npy = has_ext(out, ".npy");
    if (!npy && !has_ext(out, ".circles") && !cli_output_is_stream(out))
        return cli_usage_error(cmd, "-o/--output: '%s' does not end in .circles or .npy", out);
    cli_set_no_clobber(no_clobber);
    if ((rc = cli_check_output_path(out)) != CLI_EXIT_OK)
        return rc;

    qr_error err;
    qr_scene *scene = NULL;
    double t0 = cli_now_ms();
    if (qr_scene_load(pos[0], seed, &scene, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    if ((rc = cli_map_apply(&map, scene, NULL)) != CLI_EXIT_OK)
        goto done;
    double t1 = cli_now_ms();
    if (opts[O_FRAME].given)
        cli_info("%s (%d circles) state of frame %lld -> %s", scene->name,
                (int)scene->n, (long long)frame, out);
    else
        cli_info("%s (%d circles) as generated -> %s", scene->name,
                (int)scene->n, out);
    if (opts[O_FRAME].given && cli_seek(scene, NULL, frame, &err) != QR_OK) {
        rc = cli_fail(&err, CLI_PHASE_RUN);
        goto done;
    }
    double t2 = cli_now_ms();
    if ((npy ? qr_scene_write_npy(scene, out, &err) : qr_scene_write_circles(scene, out, &err)) !=
        QR_OK) {
        rc = cli_fail(&err, CLI_PHASE_OUTPUT);
        goto done;
    }
    cli_info("  load %.1f ms, seek %.1f ms, write %.1f ms", t1 - t0, t2 - t1, cli_now_ms() - t2);
    rc = CLI_EXIT_OK;
done:
    qr_scene_destroy(scene);
    return rc;
}

const cli_cmd cli_cmd_dump = {
    .name = "dump",
    .summary = "write a scene's circles to a .circles or .npy file",
    .args = "SCENE -o FILE.circles|FILE.npy [options]",
    .about = "Writes the circles of SCENE (a built-in name or a .circles, .par or .npy file)\n"
             "to a .circles text file or a NumPy .npy file of float32 rows x y z r R G B,\n"
             "by the output's extension (docs/scene-format.md). Velocities are not written:\n"
             "the file is a still scene.\n",
    .notes = "Without --frame the file holds the scene as generated, before any animation\n"
             "step. With --frame K it holds the state frame K is rendered from (K+1 steps),\n"
             "so 'quadrender render FILE' draws what 'quadrender render SCENE --frame K' does.\n"
             "\n"
             "--extent and --color-by write the circles mapped into the unit square and\n"
             "coloured, as render draws them with the same options.\n"
             "\n"
             "The file is replaced whole (a temporary file beside it, synced, renamed over\n"
             "it); -o - writes .circles text to standard output.\n"
             "\n"
             "Exit codes: 0 success, 2 bad command line, 3 bad scene, 4 cannot write the\n"
             "file (or it exists, with -n), 6 out of memory.\n",
    .run = run_dump,
};
