/* test_cli_misc.c — the `quadrender` command line as a whole, run as a
 * user runs it (support/cli_run.h): --help and --version, `scenes`,
 * unknown commands and options (and the nearest name to a typo), missing
 * values, unknown scenes (exit 3), a failing standard output or a closed
 * pipe (exit 4), -q in every command. Each command has its own
 * test_cli_<command>.c. */
#include <fcntl.h>
#include <stdbool.h>

#include "cli_expect.h"
#include "cli_run.h"
#include "test_util.h"

Test(cli, help)
{
    const char *forms[] = {"--help", "-h"};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(RUN(forms[i]), 0, "%s: stderr: %s", forms[i], R.err);
        const char *cmds[] = {"render", "check", "stats", "query", "dump", "scenes"};
        for (int k = 0; k < 6; k++)
            cr_expect(strstr(R.out, cmds[k]), "%s does not mention %s", forms[i], cmds[k]);
        cr_expect(strstr(R.out, "Exit codes"));
    }
    const char *cmds[] = {"render", "check", "stats", "query", "dump", "scenes"};
    for (int k = 0; k < 6; k++) {
        cr_expect_eq(RUN(cmds[k], "--help"), 0, "%s --help: %s", cmds[k], R.err);
        char usage[64];
        snprintf(usage, sizeof usage, "Usage: quadrender %s", cmds[k]);
        cr_expect_eq(strncmp(R.out, usage, strlen(usage)), 0, "%s", R.out);
    }
    cr_expect_eq(RUN("render", "--help"), 0);
    cr_expect(strstr(R.out, "--width") && strstr(R.out, "--frames") && strstr(R.out, "--device"));
    cr_expect(strstr(R.out, "--exact") && strstr(R.out, "--fast") && strstr(R.out, "--capacity") &&
                  strstr(R.out, "--min-leaf") && strstr(R.out, "--max-depth"),
              "%s", R.out);
    cr_expect_eq(RUN("stats", "--help"), 0);
    cr_expect(strstr(R.out, "--json") && strstr(R.out, "--picture-mode") &&
                  strstr(R.out, "(default 1024)") && strstr(R.out, "--capacity"),
              "%s", R.out);
    /* no command at all: the usage, on stderr, as an error */
    cr_expect_eq(RUN_IN(NULL, NULL), 2);
    cr_expect(strstr(R.err, "Usage: quadrender"));
}

Test(cli, version)
{
    cr_assert_eq(RUN("--version"), 0, "stderr: %s", R.err);
    cr_expect_eq(strncmp(R.out, "quadrender ", 11), 0, "%s", R.out);
    if (strncmp(qr_gpu_compiled_archs(), "none", 4) == 0) {
        /* a CPU-only build (QR_CUDA=OFF) */
        cr_expect(strstr(R.out, "\nCUDA: none (built without CUDA)\n"), "%s", R.out);
        cr_expect(strstr(R.out, "GPU: none usable: built without CUDA"), "%s", R.out);
    } else {
        cr_expect(strstr(R.out, "driver"), "%s", R.out);
        cr_expect(strstr(R.out, "compiled GPU architectures: "), "%s", R.out);
    }
    cr_expect(strstr(R.out, "\nGPU: "), "%s", R.out);
    if (qr_gpu_probe(NULL, NULL) != QR_OK)
        cr_expect(strstr(R.out, "GPU: none usable: "), "%s", R.out);
}

Test(cli, scenes)
{
    static const char *names[] = {"rgb",      "rgby",      "rand10k",       "rand100k", "rand1M",
                                  "micro2M",  "biglittle", "littlebig",     "pattern",  "hypnosis",
                                  "fireworks", "snow",     "bouncingballs", "snowsingle",
                                  "clusters", "spiral",    "powerlaw",      "hotspot",  "roads",
                                  "ring",     "uniform",   "clustered",     "zoo"};
    cr_assert_eq(RUN("scenes"), 0, "stderr: %s", R.err);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        /* a row starts with the name and a space */
        char row[64];
        snprintf(row, sizeof row, "\n%s ", names[i]);
        cr_expect(strstr(R.out, row), "scenes does not list %s:\n%s", names[i], R.out);
    }
    cr_expect_eq(cli_count_lines(R.out), 27,
                 "a header, 20 rows, a blank line, two lines of syntax, 3 families:\n%s", R.out);
    cr_expect(strstr(R.out, "\nrand1M ") && strstr(R.out, " 1000000 "), "%s", R.out);
    cr_expect(strstr(R.out, "FAMILY:COUNT") && strstr(R.out, "uniform:10k"), "%s", R.out);
    cr_expect(strstr(R.out, "zoo:SEED") && strstr(R.out, "\nzoo ") && strstr(R.out, " SEED "), "%s",
              R.out);
}

Test(cli, usage_unknown)
{
    const cli_usage_case cases[] = {
        {{"bogus"}, "'bogus'"},
        {{"--bogus"}, "'--bogus'"},
        {{"render", "rgb", "--bogus"}, "'--bogus'"},
        {{"render", "rgb", "-x", "1"}, "'-x'"},
        {{"render"}, "SCENE"},
        {{"render", "rgb", "extra"}, "'extra'"},
        {{"scenes", "extra"}, "'extra'"},
        {{"dump", "rgb"}, "-o"},
        {{"dump", "rgb", "--frames", "0:1", "-o", "x.circles"}, "'--frames'"},
        {{"dump", "rgb", "-o", "x.txt"}, "-o"},
        {{"render", "rgb", "-o", "x.jpg"}, "-o"},
        {{"render", "rgb", "--help=1"}, "--help"},
    };
    cli_expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
}

Test(cli, usage_missing_value)
{
    const cli_usage_case cases[] = {
        {{"render", "rgb", "--width"}, "--width"},
        {{"render", "rgb", "-s"}, "-s"},
        {{"render", "rgb", "--seed"}, "--seed"},
        {{"render", "rgb", "-o"}, "-o"},
        {{"dump", "rgb", "--frame"}, "--frame"},
    };
    cli_expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
}

Test(cli, bad_scene)
{
    const char *out = qr_test_tmp("bad.ppm");
    cr_expect_eq(RUN("render", "nosuchscene", "-o", out), 3, "%s", R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);
    cr_expect(strstr(R.err, "nosuchscene"), "%s", R.err);
    cr_expect_eq(RUN("render", qr_test_tmp("missing.circles"), "-o", out), 3, "%s", R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);
    cr_expect_eq(RUN("dump", "nosuchscene", "-o", qr_test_tmp("bad.circles")), 3, "%s", R.err);
    cr_expect(!qr_test_exists(out));
    cr_expect(!qr_test_exists(qr_test_tmp("bad.circles")));
}

/* A family scene with a bad count, or none, is a bad scene too: one line
 * naming what is wrong, exit 3. */
Test(cli, bad_family_count)
{
    const char *out = qr_test_tmp("badfam.ppm");
    const char *specs[] = {"uniform:12x", "clustered:0", "uniform:201M", "uniform", "uniform:"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        cr_expect_eq(RUN("render", specs[k], "-o", out), 3, "%s: %s", specs[k], R.err);
        cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);
        cr_expect(strstr(R.err, specs[k]) && strstr(R.err, "count"), "%s", R.err);
        cr_expect_eq(RUN("dump", specs[k], "-o", qr_test_tmp("badfam.circles")), 3, "%s", R.err);
    }
    cr_expect(!qr_test_exists(out));
    cr_expect(!qr_test_exists(qr_test_tmp("badfam.circles")));
    /* and a good one renders, named canonically */
    cr_expect_eq(RUN("dump", "Uniform:2k", "-o", qr_test_tmp("fam.circles")), 0, "%s", R.err);
    cr_expect(strstr(R.err, "uniform:2k (2000 circles)"), "%s", R.err);
    unlink(qr_test_tmp("fam.circles"));
}

Test(cli, stdout_write_error)
{
    if (access("/dev/full", W_OK) != 0)
        cr_skip_test("no /dev/full");
    qr_cli_run(&(qr_cli_opts){.stdout_to = "/dev/full"}, (const char *const[]){"scenes", NULL},
               &R);
    cr_expect_eq(R.code, 4, "%s", R.err);
    cr_expect(strstr(R.err, "standard output"), "%s", R.err);
}

/* A typo of a command or an option names the nearest one; a word far from
 * every name names none. */
Test(cli, typos_suggest_the_nearest_name)
{
    cr_assert_eq(RUN("rendr", "rgb"), 2);
    cr_expect(strstr(R.err, "unknown command 'rendr': did you mean 'render'?"), "%s", R.err);
    cr_assert_eq(RUN("render", "rgb", "--siz", "16"), 2);
    cr_expect(strstr(R.err, "unknown option '--siz': did you mean '--size'?"), "%s", R.err);
    cr_assert_eq(RUN("stats", "rgb", "--capacty=8"), 2);
    cr_expect(strstr(R.err, "did you mean '--capacity'?"), "%s", R.err);
    cr_assert_eq(RUN("render", "rgb", "--zzzzzz"), 2);
    cr_expect(!strstr(R.err, "did you mean"), "%s", R.err);
}

/* --png-level is PNG's: with another format it is refused, not ignored. */
Test(cli, png_level_only_with_png)
{
    const char *out = qr_test_tmp("level.ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "16", "--png-level", "9", "-o", out), 2, "%s", R.err);
    cr_expect(strstr(R.err, "--png-level"), "%s", R.err);
    cr_expect(!qr_test_exists(out));
}

/* -q: nothing on stderr but errors, in every command. */
Test(cli, quiet_in_every_command)
{
    const char *dump = qr_test_tmp("quiet.circles");
    const char *const runs[][8] = {
        {"render", "rgb", "-s", "16", "-q", "-o", "-", NULL},
        {"stats", "rgb", "-s", "64", "-q", NULL},
        {"check", "rgb", "-s", "16", "-q", NULL},
        {"dump", "rgb", "-q", "-o", dump, NULL},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        qr_cli_run(NULL, runs[k], &R);
        cr_expect_eq(R.code, 0, "%s: %s", runs[k][0], R.err);
        cr_expect_eq(R.err_len, 0, "%s -q wrote to stderr: %s", runs[k][0], R.err);
    }
    unlink(dump);
}

/* Output into a pipe whose reader has gone is a write error (exit 4,
 * saying so), not a silent death by SIGPIPE (141). */
Test(cli, closed_pipe_is_exit_4)
{
    int p[2];
    cr_assert_eq(pipe(p), 0);
    /* the child holds no read end of its own (it would never see the
     * reader go) */
    cr_assert_eq(fcntl(p[0], F_SETFD, FD_CLOEXEC), 0);
    cr_assert_eq(fcntl(p[1], F_SETFD, FD_CLOEXEC), 0);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", p[1]);
    qr_cli_proc run = qr_cli_start(&(qr_cli_opts){.stdout_to = path},
                                   (const char *const[]){"render", "rand10k", "-s", "1024",
                                                         "--device", "cpu", "-o", "-", NULL});
    char head[10];
    cr_assert_eq(read(p[0], head, sizeof head), (ssize_t)sizeof head);
    close(p[0]);
    close(p[1]);
    qr_cli_wait(&run, &R);
    cr_expect_eq(R.code, 4, "exit %d: %s", R.code, R.err);
    cr_expect(strstr(R.err, "standard output"), "%s", R.err);
}

