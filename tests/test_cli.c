/* test_cli.c — the `quadrender` command line, run as a user runs it.
 *
 * Each test executes the built binary ($QR_CLI) in a child process with its
 * stdout and stderr captured to files, and checks the exit code, the
 * messages and the files written. Scratch files live under qr_test_tmp(),
 * whose names carry the test process id, so tests can run in parallel.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "quadrender/gpu.h"
#include "quadrender/index.h"
#include "quadrender/scene.h"
#include "quadrender/stats.h"
#include "test_util.h"

/* ---- running the binary ---------------------------------------------------- */

typedef struct cli_result {
    int code; /* exit status, or 128 + signal */
    char *out, *err;
} cli_result;

static cli_result R; /* the last run */
static const char *stdout_to; /* where the next run's stdout goes, if not captured */

static char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(fp);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Runs $QR_CLI with args (NULL-terminated) in directory cwd (NULL: ours). */
static int run_argv(const char *cwd, const char *const *args)
{
    const char *cli = getenv("QR_CLI");
    cr_assert(cli, "QR_CLI is not set (run the tests through ctest)");
    /* not through qr_test_tmp: its few rotating buffers hold the caller's
     * paths, which must survive any number of runs */
    const char *tmp = getenv("QR_TMP") ? getenv("QR_TMP") : "/tmp";
    char out_path[1024], err_path[1024];
    snprintf(out_path, sizeof out_path, "%s/%d-stdout.txt", tmp, (int)getpid());
    snprintf(err_path, sizeof err_path, "%s/%d-stderr.txt", tmp, (int)getpid());

    const char *argv[64];
    int argc = 0;
    argv[argc++] = cli;
    for (int i = 0; args[i]; i++)
        argv[argc++] = args[i];
    argv[argc] = NULL;

    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int fo = stdout_to ? open(stdout_to, O_WRONLY)
                           : open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        if (cwd && chdir(cwd) != 0)
            _exit(126);
        execv(cli, (char *const *)argv);
        _exit(127);
    }
    int status;
    cr_assert(waitpid(pid, &status, 0) == pid);
    R.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    free(R.out);
    free(R.err);
    R.out = stdout_to ? calloc(1, 1) : read_file(out_path, NULL);
    R.err = read_file(err_path, NULL);
    cr_assert(R.out && R.err);
    return R.code;
}

#define RUN(...) run_argv(NULL, (const char *const[]){__VA_ARGS__, NULL})
#define RUN_IN(dir, ...) run_argv((dir), (const char *const[]){__VA_ARGS__, NULL})

/* ---- helpers ------------------------------------------------------------------ */

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    cr_assert(fp, "%s: %s", path, strerror(errno));
    fputs(text, fp);
    cr_assert(fclose(fp) == 0);
}

/* A scratch directory, created if needed. */
static const char *tmp_dir(const char *name)
{
    const char *dir = qr_test_tmp(name);
    cr_assert(mkdir(dir, 0755) == 0 || errno == EEXIST, "%s: %s", dir, strerror(errno));
    return dir;
}

static const char *join(const char *dir, const char *name)
{
    static char buf[8][1024];
    static int slot;
    char *out = buf[slot++ % 8];
    snprintf(out, sizeof buf[0], "%s/%s", dir, name);
    return out;
}

static bool same_bytes(const char *a, const char *b)
{
    size_t na, nb;
    char *da = read_file(a, &na), *db = read_file(b, &nb);
    cr_assert(da, "cannot read %s", a);
    cr_assert(db, "cannot read %s", b);
    bool same = na == nb && memcmp(da, db, na) == 0;
    free(da);
    free(db);
    return same;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* A PPM's size and where its pixels start; checks the file is complete. */
static unsigned char *read_ppm(const char *path, int *w, int *h)
{
    size_t len;
    char *data = read_file(path, &len);
    cr_assert(data, "cannot read %s", path);
    int maxval = 0, hdr = 0;
    cr_assert(sscanf(data, "P6 %d %d %d%n", w, h, &maxval, &hdr) == 3, "%s: bad PPM header", path);
    cr_assert_eq(maxval, 255);
    hdr++; /* the single whitespace after maxval */
    cr_assert_eq(len, (size_t)hdr + (size_t)*w * (size_t)*h * 3, "%s: %zu bytes", path, len);
    return (unsigned char *)data + hdr;
}

/* The usage error contract: exit 2, exactly two lines on stderr, the first
 * "quadrender: ..." naming `what`, the second pointing at the right help. */
static void expect_usage_error(const char *cmd, const char *what)
{
    cr_expect_eq(R.code, 2, "exit code %d, stderr: %s", R.code, R.err);
    cr_expect_eq(count_lines(R.err), 2, "stderr: %s", R.err);
    cr_expect_eq(strncmp(R.err, "quadrender: ", 12), 0, "stderr: %s", R.err);
    const char *nl = strchr(R.err, '\n');
    cr_assert(nl, "stderr: %s", R.err);
    char first[1024];
    snprintf(first, sizeof first, "%.*s", (int)(nl - R.err), R.err);
    cr_expect(strstr(first, what), "first line does not mention '%s': %s", what, R.err);
    char try_line[128];
    if (cmd)
        snprintf(try_line, sizeof try_line, "Try 'quadrender %s --help'.\n", cmd);
    else
        snprintf(try_line, sizeof try_line, "Try 'quadrender --help'.\n");
    cr_expect_str_eq(nl + 1, try_line);
    cr_expect_str_eq(R.out, "");
}

/* ---- help, version, scenes -------------------------------------------------------- */

Test(cli, help)
{
    const char *forms[] = {"--help", "-h"};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(RUN(forms[i]), 0, "%s: stderr: %s", forms[i], R.err);
        const char *cmds[] = {"render", "check", "stats", "dump", "scenes"};
        for (int k = 0; k < 5; k++)
            cr_expect(strstr(R.out, cmds[k]), "%s does not mention %s", forms[i], cmds[k]);
        cr_expect(strstr(R.out, "Exit codes"));
    }
    const char *cmds[] = {"render", "check", "stats", "dump", "scenes"};
    for (int k = 0; k < 5; k++) {
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
    cr_expect(strstr(R.out, "driver"), "%s", R.out);
    cr_expect(strstr(R.out, "compiled GPU architectures: "), "%s", R.out);
    cr_expect(strstr(R.out, "\nGPU: "), "%s", R.out);
    if (qr_gpu_probe(NULL, NULL) != QR_OK)
        cr_expect(strstr(R.out, "GPU: none usable: "), "%s", R.out);
}

Test(cli, scenes)
{
    static const char *names[] = {"rgb",      "rgby",      "rand10k",       "rand100k", "rand1M",
                                  "micro2M",  "biglittle", "littlebig",     "pattern",  "hypnosis",
                                  "fireworks", "snow",     "bouncingballs", "snowsingle"};
    cr_assert_eq(RUN("scenes"), 0, "stderr: %s", R.err);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        /* a row starts with the name and a space */
        char row[64];
        snprintf(row, sizeof row, "\n%s ", names[i]);
        cr_expect(strstr(R.out, row), "scenes does not list %s:\n%s", names[i], R.out);
    }
    cr_expect_eq(count_lines(R.out), 15, "a header and 14 rows:\n%s", R.out);
    cr_expect(strstr(R.out, "\nrand1M ") && strstr(R.out, " 1000000 "), "%s", R.out);
}

/* ---- rendering ------------------------------------------------------------------- */

Test(cli, render_rgb_ppm)
{
    const char *out = qr_test_tmp("rgb.ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "64", "-o", out), 0, "stderr: %s", R.err);
    int w, h;
    read_ppm(out, &w, &h);
    cr_expect_eq(w, 64);
    cr_expect_eq(h, 64);
    char *data = read_file(out, NULL);
    cr_expect_eq(memcmp(data, "P6\n64 64\n255\n", 13), 0, "header: %.13s", data);
    free(data);
    /* "on the GPU" where there is one (auto) */
    cr_expect(strstr(R.err, "rgb (3 circles) 64x64 frame 0 on the "), "%s", R.err);
    cr_expect(strstr(R.err, "render "), "no stage times: %s", R.err);

    cr_assert_eq(RUN("render", "rgb", "--width", "40", "--height", "24", "-o", out), 0, "%s",
                 R.err);
    read_ppm(out, &w, &h);
    cr_expect(w == 40 && h == 24, "%dx%d", w, h);
    cr_assert_eq(RUN("render", "rgb", "--width=16", "-o", out), 0, "%s", R.err);
    read_ppm(out, &w, &h);
    cr_expect(w == 16 && h == 1024, "--width alone keeps the default height: %dx%d", w, h);
}

Test(cli, render_default_output_name)
{
    const char *dir = tmp_dir("cwd");
    cr_assert_eq(RUN_IN(dir, "render", "rgb", "-s", "16"), 0, "stderr: %s", R.err);
    cr_expect(exists(join(dir, "rgb.png")), "no rgb.png in the working directory");
}

Test(cli, render_circles_file)
{
    /* one half-transparent red circle in the middle of a white image */
    const char *scene = qr_test_tmp("one.circles");
    write_text(scene, "# a test scene\n"
                      "circles 1\n"
                      "0.5 0.5 0 0.25 1 0 0\n");
    const char *out = qr_test_tmp("one.ppm");
    cr_assert_eq(RUN("render", scene, "-s", "32", "-o", out), 0, "stderr: %s", R.err);
    cr_expect(strstr(R.err, "one (1 circles) 32x32"), "%s", R.err);
    int w, h;
    unsigned char *px = read_ppm(out, &w, &h);
    const unsigned char *centre = px + (16 * 32 + 16) * 3, *corner = px;
    cr_expect(centre[0] == 255 && centre[1] == 127 && centre[2] == 127, "centre %d %d %d",
              centre[0], centre[1], centre[2]);
    cr_expect(corner[0] == 255 && corner[1] == 255 && corner[2] == 255, "corner %d %d %d",
              corner[0], corner[1], corner[2]);
}

Test(cli, render_device)
{
    const char *out = qr_test_tmp("dev.ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", out), 0, "%s", R.err);
    cr_expect(strstr(R.err, "on the CPU"), "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "auto", "-o", out), 0, "%s", R.err);
}

Test(cli, device_gpu_without_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    const char *out = qr_test_tmp("gpu.ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "gpu", "-o", out), 5, "%s", R.err);
    cr_expect_eq(count_lines(R.err), 1, "%s", R.err);
    cr_expect(strstr(R.err, "--device gpu") && strstr(R.err, err.msg), "%s", R.err);
    cr_expect(!exists(out));
}

Test(cli, frames)
{
    const char *dir = tmp_dir("frames");
    cr_assert_eq(RUN("render", "hypnosis", "-s", "48", "--frames", "0:2", "-o",
                     join(dir, "hyp.ppm")),
                 0, "stderr: %s", R.err);
    const char *names[] = {"hyp_0000.ppm", "hyp_0001.ppm", "hyp_0002.ppm"};
    for (int k = 0; k < 3; k++) {
        cr_assert(exists(join(dir, names[k])), "%s missing", names[k]);
        char frame[8];
        snprintf(frame, sizeof frame, "%d", k);
        const char *single = join(dir, "single.ppm");
        cr_assert_eq(RUN("render", "hypnosis", "-s", "48", "--frame", frame, "-o", single), 0,
                     "%s", R.err);
        cr_expect(same_bytes(join(dir, names[k]), single), "%s differs from --frame %d", names[k],
                  k);
    }
    cr_expect(!exists(join(dir, "hyp_0003.ppm")));
    cr_expect(!exists(join(dir, "hyp.ppm")));
    /* the scene does move from frame to frame */
    cr_expect(!same_bytes(join(dir, "hyp_0000.ppm"), join(dir, "hyp_0001.ppm")));
}

/* dump, then render the dump: the same image as rendering the built-in. */
static void expect_dump_roundtrip(const char *scene, const char *frame)
{
    const char *dir = tmp_dir("dump");
    const char *file = join(dir, "scene.circles");
    const char *a = join(dir, "from_file.ppm"), *b = join(dir, "builtin.ppm");
    if (frame)
        cr_assert_eq(RUN("dump", scene, "--frame", frame, "-o", file), 0, "%s", R.err);
    else
        cr_assert_eq(RUN("dump", scene, "-o", file), 0, "%s", R.err);
    cr_assert_eq(RUN("render", file, "-s", "64", "-o", a), 0, "%s", R.err);
    cr_assert_eq(RUN("render", scene, "-s", "64", "--frame", frame ? frame : "0", "-o", b), 0,
                 "%s", R.err);
    cr_expect(same_bytes(a, b), "%s (frame %s): the dump renders differently", scene,
              frame ? frame : "-");
}

Test(cli, dump_roundtrip)
{
    expect_dump_roundtrip("rgb", NULL);
    expect_dump_roundtrip("pattern", NULL);
    expect_dump_roundtrip("hypnosis", "3");
}

Test(cli, dump_default_is_generated_state)
{
    const char *gen = qr_test_tmp("gen.circles"), *f0 = qr_test_tmp("f0.circles");
    cr_assert_eq(RUN("dump", "hypnosis", "-o", gen), 0, "%s", R.err);
    cr_assert_eq(RUN("dump", "hypnosis", "--frame", "0", "-o", f0), 0, "%s", R.err);
    /* frame 0 is one step past generation: hypnosis has grown */
    cr_expect(!same_bytes(gen, f0));
    char *text = read_file(gen, NULL);
    cr_expect_eq(strncmp(text, "circles 25\n", 11), 0, "%.40s", text);
    free(text);
}

/* ---- errors ----------------------------------------------------------------------- */

typedef struct usage_case {
    const char *args[8];
    const char *what; /* the first line must mention this */
} usage_case;

static void expect_usage_cases(const usage_case *cases, size_t n)
{
    const char *out = qr_test_tmp("never.ppm");
    for (size_t i = 0; i < n; i++) {
        run_argv(NULL, cases[i].args);
        cr_expect(R.code == 2, "case %zu (%s %s %s %s): exit %d", i, cases[i].args[0],
                  cases[i].args[1] ? cases[i].args[1] : "", cases[i].args[2] ? cases[i].args[2] : "",
                  cases[i].args[3] ? cases[i].args[3] : "", R.code);
        const char *a0 = cases[i].args[0];
        bool is_cmd = !strcmp(a0, "render") || !strcmp(a0, "dump") || !strcmp(a0, "scenes") ||
                      !strcmp(a0, "check") || !strcmp(a0, "stats");
        const char *cmd = is_cmd ? a0 : NULL;
        expect_usage_error(cmd, cases[i].what);
    }
    cr_expect(!exists(out), "a usage error wrote an image");
}

Test(cli, usage_unknown)
{
    const usage_case cases[] = {
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
    expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
}

Test(cli, usage_missing_value)
{
    const usage_case cases[] = {
        {{"render", "rgb", "--width"}, "--width"},
        {{"render", "rgb", "-s"}, "-s"},
        {{"render", "rgb", "--seed"}, "--seed"},
        {{"render", "rgb", "-o"}, "-o"},
        {{"dump", "rgb", "--frame"}, "--frame"},
    };
    expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
}

Test(cli, usage_bad_numbers)
{
    const usage_case cases[] = {
        {{"render", "rgb", "--width", "abc"}, "--width"},
        {{"render", "rgb", "--width", "-5"}, "--width"},
        {{"render", "rgb", "--height", "0"}, "--height"},
        {{"render", "rgb", "-s", "32769"}, "-s"},
        {{"render", "rgb", "-s", "64x"}, "-s"},
        {{"render", "rgb", "-s", " 64"}, "-s"},
        {{"render", "rgb", "-s", "+64"}, "-s"},
        {{"render", "rgb", "--width", ""}, "--width"},
        {{"render", "rgb", "--width", "99999999999999999999999"}, "--width"},
        {{"render", "rgb", "--seed", "-1"}, "--seed"},
        {{"render", "rgb", "--seed", "4294967296"}, "--seed"},
        {{"render", "rgb", "--seed", "1.5"}, "--seed"},
        {{"render", "rgb", "--frame", "-1"}, "--frame"},
        {{"render", "rgb", "--frame", "abc"}, "--frame"},
        {{"render", "rgb", "--frames", "5:3"}, "--frames"},
        {{"render", "rgb", "--frames", "x:y"}, "--frames"},
        {{"render", "rgb", "--frames", "3"}, "--frames"},
        {{"render", "rgb", "--frames", "1:"}, "--frames"},
        {{"render", "rgb", "--frames", ":2"}, "--frames"},
        {{"render", "rgb", "--frames", "1:2:3"}, "--frames"},
        {{"render", "rgb", "--device", "tpu"}, "--device"},
        {{"dump", "rgb", "--seed", "x", "-o", "x.circles"}, "--seed"},
    };
    expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
    /* the message shows what was expected and what was given */
    RUN("render", "rgb", "--width", "abc");
    cr_expect_str_eq(R.err, "quadrender: --width: expected an integer from 1 to 32768, got 'abc'\n"
                            "Try 'quadrender render --help'.\n");
}

Test(cli, usage_conflicts)
{
    const usage_case cases[] = {
        {{"render", "rgb", "-s", "64", "--width", "64"}, "-s"},
        {{"render", "rgb", "--height", "64", "-s", "64"}, "-s"},
        {{"render", "hypnosis", "--frame", "1", "--frames", "0:2"}, "--frame"},
    };
    expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
}

Test(cli, bad_scene)
{
    const char *out = qr_test_tmp("bad.ppm");
    cr_expect_eq(RUN("render", "nosuchscene", "-o", out), 3, "%s", R.err);
    cr_expect_eq(count_lines(R.err), 1, "%s", R.err);
    cr_expect(strstr(R.err, "nosuchscene"), "%s", R.err);
    cr_expect_eq(RUN("render", qr_test_tmp("missing.circles"), "-o", out), 3, "%s", R.err);
    cr_expect_eq(count_lines(R.err), 1, "%s", R.err);
    cr_expect_eq(RUN("dump", "nosuchscene", "-o", qr_test_tmp("bad.circles")), 3, "%s", R.err);
    cr_expect(!exists(out));
    cr_expect(!exists(qr_test_tmp("bad.circles")));
}

Test(cli, malformed_scene)
{
    const char *scene = qr_test_tmp("bad.circles");
    write_text(scene, "circles 2\n"
                      "0.5 0.5 0 0.25 1 0 0\n"
                      "0.5 oops 0 0.25 1 0 0\n");
    const char *out = qr_test_tmp("bad.ppm");
    cr_expect_eq(RUN("render", scene, "-s", "8", "-o", out), 3, "%s", R.err);
    cr_expect_eq(count_lines(R.err), 1, "%s", R.err);
    char where[1100];
    snprintf(where, sizeof where, "quadrender: %s:3:", scene);
    cr_expect_eq(strncmp(R.err, where, strlen(where)), 0, "expected '%s...', got %s", where, R.err);
    cr_expect(!exists(out));
}

Test(cli, unwritable_output)
{
    const char *dir = tmp_dir("unwritable");
    const char *missing = join(dir, "no/such/dir/x.ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "-o", missing), 4, "%s", R.err);
    cr_expect_eq(count_lines(R.err), 1, "%s", R.err);
    cr_expect(strstr(R.err, missing), "%s", R.err);
    cr_expect(!exists(join(dir, "no")), "created a directory");
    cr_expect_eq(RUN("dump", "rgb", "-o", join(dir, "no/x.circles")), 4, "%s", R.err);

    /* the output names an existing directory */
    const char *taken = join(dir, "taken.ppm");
    cr_assert(mkdir(taken, 0755) == 0);
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "-o", taken), 4, "%s", R.err);
    cr_expect_eq(count_lines(R.err), 1, "%s", R.err);

    /* nothing half-written left behind: only the directory made above */
    DIR *d = opendir(dir);
    cr_assert(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        cr_expect(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
                      strcmp(e->d_name, "taken.ppm") == 0,
                  "left behind: %s", e->d_name);
    closedir(d);
}

Test(cli, failed_render_keeps_existing_output)
{
    const char *out = qr_test_tmp("keep.ppm");
    write_text(out, "precious");
    cr_expect_eq(RUN("render", "nosuchscene", "-o", out), 3);
    char *text = read_file(out, NULL);
    cr_expect_str_eq(text, "precious");
    free(text);
}

Test(cli, stdout_write_error)
{
    if (access("/dev/full", W_OK) != 0)
        cr_skip_test("no /dev/full");
    stdout_to = "/dev/full";
    RUN("scenes");
    stdout_to = NULL;
    cr_expect_eq(R.code, 4, "%s", R.err);
    cr_expect(strstr(R.err, "standard output"), "%s", R.err);
}

/* ---- the GPU, check, stats ------------------------------------------------------------ */

Test(cli, render_auto_without_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    const char *out = qr_test_tmp("auto.ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--threads", "3", "-o", out), 0, "%s", R.err);
    char why[700];
    snprintf(why, sizeof why,
             "quadrender: no usable GPU (%s): rendering on the CPU (3 threads), fast mode\n",
             err.msg);
    cr_expect_eq(strncmp(R.err, why, strlen(why)), 0, "expected '%s' first, got %s", why, R.err);
    cr_expect(strstr(R.err, "rgb (3 circles) 8x8 frame 0 on the CPU (3 threads) -> "), "%s", R.err);
    /* rgb is too shallow for fast mode to stop early: it takes the exact
     * walk, and a PPM holds no alpha */
    const char *exact = qr_test_tmp("exact.ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--exact", "--capacity", "1", "-o", exact), 0,
                 "%s", R.err);
    cr_expect(same_bytes(out, exact));
}

Test(cli, check_without_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    cr_expect_eq(RUN("check", "rand10k", "-s", "64", "--threads", "2"), 0, "%s", R.err);
    cr_expect(strstr(R.err, "no usable GPU") && strstr(R.err, err.msg), "%s", R.err);
    cr_expect_eq(count_lines(R.out), 5, "title, header, two rows, verdict:\n%s", R.out);
    cr_expect(strstr(R.out, "\nCPU exact ") && strstr(R.out, "bit-identical  PASS") &&
                  strstr(R.out, "\nCPU fast ") && strstr(R.out, "\nPASS\n"),
              "%s", R.out);
    cr_expect(!strstr(R.out, "GPU exact"), "%s", R.out);
    /* a bad command line is still a bad command line */
    cr_expect_eq(RUN("check"), 2, "%s", R.err);
}

/* The fast CPU renderer's exact mode and the reference write the same
 * file, on any thread count; --threads is checked like any option. */
Test(cli, cpu_exact_equals_reference)
{
    const char *dir = tmp_dir("cpu-ref");
    cr_assert_eq(RUN("render", "rand10k", "--width", "120", "--height", "77", "--reference", "-o",
                     join(dir, "r.pfm")),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "the serial reference renderer"), "%s", R.err);
    cr_assert_eq(RUN("render", "rand10k", "--width", "120", "--height", "77", "--device",
                     "cpu-reference", "-o", join(dir, "r2.pfm")),
                 0, "%s", R.err);
    cr_expect(same_bytes(join(dir, "r.pfm"), join(dir, "r2.pfm")));
    const char *threads[] = {"1", "2", "5"};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(RUN("render", "rand10k", "--width", "120", "--height", "77", "--device", "cpu",
                         "--exact", "--threads", threads[k], "-o", join(dir, "c.pfm")),
                     0, "%s", R.err);
        cr_expect(same_bytes(join(dir, "r.pfm"), join(dir, "c.pfm")), "%s threads", threads[k]);
    }
    cr_expect_eq(RUN("render", "rgb", "--threads", "x"), 2, "%s", R.err);
    cr_expect(strstr(R.err, "--threads: expected"), "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "--threads", "1025"), 2, "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "--reference", "--fast"), 2, "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "--reference", "--device", "gpu"), 2, "%s", R.err);
    cr_expect_eq(RUN("stats", "rgb", "--help"), 0, "%s", R.err);
    cr_expect(strstr(R.out, "--threads N"), "%s", R.out);
}

/* bench --cpu without a GPU times the CPU renderers alone: one row per
 * scene, size and mode, and the fast/exact ratio. */
Test(cli, bench_cpu_without_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    cr_assert_eq(RUN("bench", "--cpu", "rgb", "rand10k", "--size", "48", "--cpu-frames", "2",
                     "--threads", "2"),
                 0, "%s", R.err);
    cr_expect(strstr(R.out, "fast CPU renderer: 2 threads"), "%s", R.out);
    cr_expect(strstr(R.out, "\nrand10k          48 exact ") && strstr(R.out, "\nrand10k          48 fast "),
              "%s", R.out);
    cr_expect(strstr(R.out, "rand10k          48 fast mode "), "%s", R.out);
    cr_expect_eq(RUN("bench", "--cpu", "rgb", "--json", "x.json"), 2, "%s", R.err);
}

Test(cli, stats_device_gpu_without_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    cr_expect_eq(RUN("stats", "rgb", "-s", "16", "--device", "gpu"), 5, "%s", R.err);
    cr_expect_eq(count_lines(R.err), 1, "%s", R.err);
    cr_expect(strstr(R.err, "--device gpu") && strstr(R.err, err.msg), "%s", R.err);
    cr_expect_eq(RUN("stats", "rgb", "-s", "16"), 0, "%s", R.err);
    cr_expect(strstr(R.err, "no usable GPU (") && strstr(R.err, "building the index on the CPU"),
              "%s", R.err);
}

/* The number on the human-readable line "  LABEL   VALUE ..." ("max", not
 * "max depth": the label is followed by spaces and a number). */
static double stats_value(const char *out, const char *label)
{
    char key[64];
    snprintf(key, sizeof key, "\n  %s ", label);
    for (const char *at = strstr(out, key); at; at = strstr(at + 1, key)) {
        const char *v = at + strlen(key);
        while (*v == ' ')
            v++;
        double x;
        if ((*v == '-' || (*v >= '0' && *v <= '9')) && sscanf(v, "%lf", &x) == 1)
            return x;
    }
    cr_assert_fail("no '%s' line with a number in:\n%s", label, out);
    return 0;
}

Test(cli, stats_rgb)
{
    /* at 64 x 64 the default minimum leaf (64) makes the root the only leaf,
     * holding all three circles */
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu"), 0, "%s", R.err);
    cr_expect(strstr(R.out, "rgb (3 circles), 64x64, frame 0"), "%s", R.out);
    cr_expect_eq(stats_value(R.out, "nodes"), 1);
    cr_expect_eq(stats_value(R.out, "leaves"), 1);
    cr_expect_eq(stats_value(R.out, "max depth"), 0);
    cr_expect_eq(stats_value(R.out, "pairs"), 3);
    cr_expect_eq(stats_value(R.out, "visible"), 3);
    cr_expect_eq(stats_value(R.out, "culled"), 0);
    cr_expect_eq(stats_value(R.out, "replication"), 1);
    cr_expect(strstr(R.out, " ms"), "no build time: %s", R.out);

    /* capacity 1 splits down to 16-pixel leaves: 1 + 4 + 16 nodes. The
     * circles (x = 0.4, 0.5, 0.6; y = 0.5; r = 0.3) span pixels 6..44,
     * 12..51 and 19..57 across and 12..51 up, so the four columns of leaves
     * hold 2, 3, 3 and 2 circles in every row: 40 pairs. */
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu", "--capacity", "1",
                     "--min-leaf", "16", "--split-cost", "0"),
                 0, "%s", R.err);
    cr_expect_eq(stats_value(R.out, "nodes"), 21);
    cr_expect_eq(stats_value(R.out, "leaves"), 16);
    cr_expect_eq(stats_value(R.out, "max depth"), 2);
    cr_expect_eq(stats_value(R.out, "pairs"), 40);
    cr_expect_eq(stats_value(R.out, "min"), 2);
    cr_expect_eq(stats_value(R.out, "max"), 3);
    cr_expect_eq(stats_value(R.out, "median"), 2.5);
    /* --max-depth 1 stops at 32-pixel leaves */
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu", "--capacity", "1",
                     "--min-leaf", "16", "--max-depth", "1", "--split-cost", "0"),
                 0, "%s", R.err);
    cr_expect_eq(stats_value(R.out, "leaves"), 4);
    /* with the default split cost (5) the root does not split: each of the
     * three circles meets all four children (C = 3, C' = 12), and
     * 100 * 9 < 5 * (4 * 3 - 1 * 12) is false */
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu", "--capacity", "1",
                     "--min-leaf", "16"),
                 0, "%s", R.err);
    cr_expect(strstr(R.out, "split cost 5"), "%s", R.out);
    cr_expect_eq(stats_value(R.out, "leaves"), 1);
    cr_expect_eq(RUN("stats", "rgb", "--device", "cpu", "--split-cost", "1001"), 2);
    cr_expect(strstr(R.err, "--split-cost"), "%s", R.err);
    cr_expect_eq(RUN("stats", "rgb", "--device", "cpu", "--index", "grid", "--split-cost", "9"),
                 2);
}

/* --index grid is the uniform grid: every leaf a --tile square, whatever
 * the circles; nonsense combinations are usage errors. */
Test(cli, stats_grid)
{
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu", "--index", "grid"), 0, "%s", R.err);
    cr_expect(strstr(R.out, "uniform grid of 16 px tiles"), "%s", R.out);
    cr_expect_eq(stats_value(R.out, "leaves"), 16);
    cr_expect_eq(stats_value(R.out, "pairs"), 40); /* as capacity 1 above: every 16 px tile */
    cr_assert_eq(RUN("stats", "rgb", "-s", "100", "--device", "cpu", "--index", "grid", "--tile", "32"),
                 0, "%s", R.err);
    cr_expect_eq(stats_value(R.out, "leaves"), 16); /* 4 x 4 tiles, the last row and column clipped */
    const usage_case cases[] = {
        {{"stats", "rgb", "--tile", "32", NULL}, "--tile"},
        {{"stats", "rgb", "--index", "grid", "--capacity", "8", NULL}, "--capacity"},
        {{"stats", "rgb", "--index", "grid", "--min-leaf", "32", NULL}, "--min-leaf"},
        {{"stats", "rgb", "--index", "octree", NULL}, "--index"},
        {{"render", "rgb", "--index", "grid", "--tile", "24", NULL}, "--tile"},
    };
    expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
}

/* ---- a small JSON reader: validates the whole text and finds one value by
 * its path ("tree.leaves", "tree.leaves_per_depth.0") */

typedef struct json_cursor {
    const char *p;
    const char *want;  /* path looked for */
    const char *found; /* where its value starts */
} json_cursor;

static void json_ws(json_cursor *c)
{
    while (*c->p == ' ' || *c->p == '\n' || *c->p == '\t' || *c->p == '\r')
        c->p++;
}

static bool json_string(json_cursor *c)
{
    if (*c->p != '"')
        return false;
    for (c->p++; *c->p && *c->p != '"'; c->p++) {
        if ((unsigned char)*c->p < 0x20)
            return false;
        if (*c->p == '\\' && !*++c->p)
            return false;
    }
    if (*c->p != '"')
        return false;
    c->p++;
    return true;
}

static bool json_value(json_cursor *c, const char *path)
{
    json_ws(c);
    if (strcmp(path, c->want) == 0)
        c->found = c->p;
    char sub[256];
    if (*c->p == '{' || *c->p == '[') {
        bool object = *c->p == '{';
        char close = object ? '}' : ']';
        c->p++;
        json_ws(c);
        if (*c->p == close) {
            c->p++;
            return true;
        }
        for (int i = 0;; i++) {
            if (object) {
                json_ws(c);
                const char *key = c->p;
                if (!json_string(c))
                    return false;
                snprintf(sub, sizeof sub, "%s%s%.*s", path, path[0] ? "." : "",
                         (int)(c->p - key - 2), key + 1);
                json_ws(c);
                if (*c->p++ != ':')
                    return false;
            } else {
                snprintf(sub, sizeof sub, "%s%s%d", path, path[0] ? "." : "", i);
            }
            if (!json_value(c, sub))
                return false;
            json_ws(c);
            if (*c->p == ',') {
                c->p++;
                continue;
            }
            return *c->p++ == close;
        }
    }
    if (*c->p == '"')
        return json_string(c);
    const char *words[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++)
        if (strncmp(c->p, words[k], strlen(words[k])) == 0) {
            c->p += strlen(words[k]);
            return true;
        }
    /* a number: strtod also takes "inf" and "nan", which JSON does not */
    if (*c->p != '-' && (*c->p < '0' || *c->p > '9'))
        return false;
    char *end;
    strtod(c->p, &end);
    c->p = end;
    return true;
}

/* Where the value at `path` starts (NULL if absent); asserts the text is one
 * valid JSON value. */
static const char *json_find(const char *text, const char *path)
{
    json_cursor c = {text, path, NULL};
    bool ok = json_value(&c, "");
    json_ws(&c);
    cr_assert(ok && *c.p == '\0', "invalid JSON near '%.30s':\n%s", c.p, text);
    return c.found;
}

static double json_number(const char *text, const char *path)
{
    const char *v = json_find(text, path);
    cr_assert(v, "no %s in:\n%s", path, text);
    cr_assert(*v == '-' || (*v >= '0' && *v <= '9'), "%s is not a number: %.20s", path, v);
    return strtod(v, NULL);
}

/* The statistics the library computes for a host build of the scene. */
static void host_stats(const char *name, int64_t frame, int size, qr_index_stats *s)
{
    qr_error err;
    qr_scene *scene = NULL;
    qr_index *ix = NULL;
    cr_assert_eq(qr_scene_builtin(name, 0, &scene, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_seek_frame(scene, frame, &err), QR_OK, "%s", err.msg);
    qr_index_params p;
    qr_index_params_default(&p);
    cr_assert_eq(qr_index_build_host(scene, size, size, NULL, &p, &ix, &err), QR_OK, "%s",
                 err.msg);
    cr_assert_eq(qr_index_stats_compute(ix, scene->n, s, &err), QR_OK, "%s", err.msg);
    qr_index_free(ix);
    qr_scene_free(scene);
}

Test(cli, stats_json_stdout)
{
    cr_assert_eq(RUN("stats", "rand10k", "--device", "cpu", "--json", "-"), 0, "%s", R.err);
    /* stdout is the JSON alone */
    cr_expect_eq(json_number(R.out, "schema_version"), 1);
    const char *keys[] = {"scene.name", "scene.circles", "scene.seed", "scene.frame",
                          "image.width", "image.height", "params.capacity", "params.min_leaf",
                          "params.max_depth", "device.kind", "tree.root_size", "tree.nodes",
                          "tree.leaves", "tree.max_depth", "tree.leaves_per_depth.0",
                          "tree.leaves_per_side.0.side", "circles_per_leaf.min",
                          "circles_per_leaf.mean", "circles_per_leaf.median",
                          "circles_per_leaf.p90", "circles_per_leaf.p99", "circles_per_leaf.max",
                          "circles_per_leaf.empty_leaves", "circles.visible", "circles.culled",
                          "circles.pairs", "circles.replication", "build_ms.total",
                          "build_ms.timed_builds"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        cr_expect(json_find(R.out, keys[k]), "no %s in:\n%s", keys[k], R.out);
    cr_expect_eq(strncmp(json_find(R.out, "scene.name"), "\"rand10k\"", 9), 0);
    cr_expect_eq(strncmp(json_find(R.out, "device.kind"), "\"cpu\"", 5), 0);
    cr_expect(!json_find(R.out, "device.index_bytes"), "no device memory on the CPU");
    cr_expect_eq(json_number(R.out, "scene.circles"), 10000);
    cr_expect_eq(json_number(R.out, "image.width"), 1024);

    qr_index_stats s;
    host_stats("rand10k", 0, 1024, &s);
    cr_expect_eq(json_number(R.out, "tree.leaves"), s.leaves);
    cr_expect_eq(json_number(R.out, "tree.nodes"), s.nodes);
    cr_expect_eq(json_number(R.out, "circles.pairs"), (double)s.pairs);
    cr_expect_eq(json_number(R.out, "circles.visible"), s.visible);
    cr_expect_eq(json_number(R.out, "circles_per_leaf.max"), s.max_per_leaf);
    cr_expect_eq(json_number(R.out, "circles_per_leaf.median"), s.median_per_leaf);
}

Test(cli, stats_json_file)
{
    /* an animated scene: the index is of frame 2's state (3 steps) */
    const char *json = qr_test_tmp("stats.json");
    cr_assert_eq(RUN("stats", "hypnosis", "-s", "256", "--frame", "2", "--device", "cpu",
                     "--json", json),
                 0, "%s", R.err);
    cr_expect(strstr(R.out, "hypnosis (25 circles), 256x256, frame 2"), "human output: %s",
              R.out);
    char *text = read_file(json, NULL);
    cr_assert(text, "no %s", json);
    qr_index_stats s;
    host_stats("hypnosis", 2, 256, &s);
    cr_expect_eq(json_number(text, "circles.pairs"), (double)s.pairs);
    cr_expect_eq(json_number(text, "tree.leaves"), s.leaves);
    cr_expect_eq(json_number(text, "scene.frame"), 2);
    free(text);

    /* an unwritable JSON path fails before any work, and writes nothing */
    const char *dir = tmp_dir("stats-out");
    cr_expect_eq(RUN("stats", "rgb", "--device", "cpu", "--json", join(dir, "no/s.json")), 4,
                 "%s", R.err);
    cr_expect(strstr(R.err, "no/s.json"), "%s", R.err);
    cr_expect_str_eq(R.out, "");
}

/* Width and height from a PNG's IHDR chunk. */
static void png_size(const char *path, int *w, int *h)
{
    size_t len;
    unsigned char *d = (unsigned char *)read_file(path, &len);
    cr_assert(d, "cannot read %s", path);
    cr_assert(len > 24 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(d + 12, "IHDR", 4) == 0,
              "%s is not a PNG", path);
    *w = (int)((unsigned)d[16] << 24 | (unsigned)d[17] << 16 | (unsigned)d[18] << 8 | d[19]);
    *h = (int)((unsigned)d[20] << 24 | (unsigned)d[21] << 16 | (unsigned)d[22] << 8 | d[23]);
    free(d);
}

Test(cli, stats_picture)
{
    const char *png = qr_test_tmp("leaves.png");
    cr_assert_eq(RUN("stats", "rand10k", "-s", "64", "--device", "cpu", "--min-leaf", "16",
                     "--capacity", "100", "--picture", png),
                 0, "%s", R.err);
    int w, h;
    png_size(png, &w, &h);
    cr_expect(w == 64 && h == 64, "%dx%d", w, h);

    const char *heat = qr_test_tmp("heat.png");
    cr_assert_eq(RUN("stats", "rand10k", "--width", "40", "--height", "24", "--device", "cpu",
                     "--picture", heat, "--picture-mode", "heat"),
                 0, "%s", R.err);
    png_size(heat, &w, &h);
    cr_expect(w == 40 && h == 24, "%dx%d", w, h);

    /* the boundaries are drawn over the render: the picture differs from it */
    const char *ppm = qr_test_tmp("leaves.ppm"), *plain = qr_test_tmp("plain.ppm");
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu", "--min-leaf", "16",
                     "--capacity", "1", "--picture", ppm),
                 0, "%s", R.err);
    cr_assert_eq(RUN("render", "rgb", "-s", "64", "--device", "cpu", "-o", plain), 0, "%s", R.err);
    cr_expect(!same_bytes(ppm, plain));
    int pw, ph;
    unsigned char *px = read_ppm(ppm, &pw, &ph);
    /* the PPM's top row first: the bottom-left pixel (0, 0) lies on the
     * boundary of the first leaf, white blended 70% towards dark red */
    const unsigned char *bl = px + (size_t)(ph - 1) * pw * 3;
    cr_expect(bl[0] > bl[1] && bl[1] < 100 && bl[1] == bl[2], "bottom-left %d %d %d", bl[0], bl[1],
              bl[2]);
}

Test(cli, usage_stats_and_check)
{
    const usage_case cases[] = {
        {{"stats", "rgb", "--capacity", "0"}, "--capacity"},
        {{"stats", "rgb", "--capacity", "1073741825"}, "--capacity"},
        {{"stats", "rgb", "--capacity", "-1"}, "--capacity"},
        {{"stats", "rgb", "--min-leaf", "48"}, "--min-leaf"},
        {{"stats", "rgb", "--min-leaf", "8"}, "--min-leaf"},
        {{"stats", "rgb", "--min-leaf", "65536"}, "--min-leaf"},
        {{"stats", "rgb", "--max-depth", "16"}, "--max-depth"},
        {{"stats", "rgb", "--max-depth", "x"}, "--max-depth"},
        {{"stats", "rgb", "--device", "tpu"}, "--device"},
        {{"stats", "rgb", "--picture", "x.jpg"}, "--picture"},
        {{"stats", "rgb", "--picture-mode", "heat"}, "--picture"},
        {{"stats", "rgb", "--picture", "x.png", "--picture-mode", "hot"}, "--picture-mode"},
        {{"stats", "rgb", "-s", "64", "--width", "64"}, "-s"},
        {{"stats", "rgb", "--json"}, "--json"},
        {{"stats"}, "SCENE"},
        {{"render", "rgb", "--capacity", "0"}, "--capacity"},
        {{"render", "rgb", "--min-leaf", "100"}, "--min-leaf"},
        {{"render", "rgb", "--max-depth", "99"}, "--max-depth"},
        {{"render", "rgb", "--exact", "--fast"}, "--exact"},
        {{"render", "rgb", "--exact=1"}, "--exact"},
        {{"check", "rgb", "--capacity", "abc"}, "--capacity"},
        {{"check", "rgb", "--min-leaf", "32768x"}, "--min-leaf"},
        {{"check", "rgb", "--device", "cpu"}, "'--device'"},
        {{"check", "rgb", "extra"}, "'extra'"},
        {{"check"}, "SCENE"},
    };
    expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
    RUN("stats", "rgb", "--min-leaf", "48");
    cr_expect_str_eq(R.err, "quadrender: --min-leaf: expected a power of two from 16 to 32768, "
                            "got '48'\nTry 'quadrender stats --help'.\n");
}

/* ---- on a GPU (skipped without one) ------------------------------------------------------ */

/* Two PPMs of the same size whose bytes differ by at most `tol`. */
static void expect_ppm_close(const char *a, const char *b, int tol)
{
    int wa, ha, wb, hb;
    unsigned char *pa = read_ppm(a, &wa, &ha), *pb = read_ppm(b, &wb, &hb);
    cr_assert(wa == wb && ha == hb, "%s %dx%d, %s %dx%d", a, wa, ha, b, wb, hb);
    for (size_t i = 0; i < (size_t)wa * ha * 3; i++)
        cr_assert(abs((int)pa[i] - (int)pb[i]) <= tol, "%s and %s differ at byte %zu: %d %d", a,
                  b, i, pa[i], pb[i]);
}

Test(cli, gpu_render_matches_cpu, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const char *dir = tmp_dir("gpu-render");
    cr_assert_eq(RUN("render", "rand10k", "--width", "300", "--height", "200", "--exact", "-o",
                     join(dir, "g.ppm")),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "quadrender: rendering on the GPU (") && strstr(R.err, "exact mode"),
              "%s", R.err);
    cr_expect(strstr(R.err, " frame 0 on the GPU -> ") && strstr(R.err, "upload ") &&
                  strstr(R.err, "index ") && strstr(R.err, " on the GPU, download "),
              "%s", R.err);
    cr_assert_eq(RUN("render", "rand10k", "--width", "300", "--height", "200", "--reference",
                     "-o", join(dir, "c.ppm")),
                 0, "%s", R.err);
    cr_expect(same_bytes(join(dir, "g.ppm"), join(dir, "c.ppm")), "exact GPU render differs");
    /* fast mode is within 1e-5: a byte may land one lower or higher */
    cr_assert_eq(RUN("render", "rand10k", "--width", "300", "--height", "200", "--device", "gpu",
                     "-o", join(dir, "f.ppm")),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "fast mode"), "%s", R.err);
    expect_ppm_close(join(dir, "f.ppm"), join(dir, "c.ppm"), 1);

    /* a sequence stepped on the device, starting past frame 0 */
    const char *scenes[] = {"hypnosis", "fireworks", "bouncingballs"};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(RUN("render", scenes[k], "-s", "160", "--frames", "2:4", "--exact", "--device",
                         "gpu", "-o", join(dir, "g.ppm")),
                     0, "%s", R.err);
        cr_expect(strstr(R.err, "3 frames in ") && strstr(R.err, "per frame on the GPU"), "%s",
                  R.err);
        cr_assert_eq(RUN("render", scenes[k], "-s", "160", "--frames", "2:4", "--device", "cpu",
                         "--exact", "-o", join(dir, "c.ppm")),
                     0, "%s", R.err);
        for (int f = 2; f <= 4; f++) {
            char g[32], c[32];
            snprintf(g, sizeof g, "g_%04d.ppm", f);
            snprintf(c, sizeof c, "c_%04d.ppm", f);
            cr_expect(same_bytes(join(dir, g), join(dir, c)), "%s frame %d differs", scenes[k], f);
        }
    }
}

Test(cli, gpu_check, .timeout = 300)
{
    QR_REQUIRE_GPU();
    cr_assert_eq(RUN("check", "rand10k", "-s", "256"), 0, "%s%s", R.out, R.err);
    cr_expect_eq(count_lines(R.out), 7, "title, header, four rows, verdict:\n%s", R.out);
    cr_expect(strstr(R.out, "\nGPU exact ") && strstr(R.out, "\nGPU fast ") &&
                  strstr(R.out, "\nCPU exact ") && strstr(R.out, "\nCPU fast ") &&
                  strstr(R.out, "\nPASS\n"),
              "%s", R.out);
    cr_expect(strstr(R.out, "bit-identical  PASS"), "%s", R.out);
    cr_assert_eq(RUN("check", "snow", "-s", "256", "--frame", "3"), 0, "%s%s", R.out, R.err);
    cr_assert_eq(RUN("check", "rgb", "--width", "333", "--height", "77", "--capacity", "1",
                     "--min-leaf", "16"),
                 0, "%s%s", R.out, R.err);
}

Test(cli, gpu_stats, .timeout = 300)
{
    QR_REQUIRE_GPU();
    cr_assert_eq(RUN("stats", "rand100k", "--device", "gpu", "--json", "-"), 0, "%s", R.err);
    cr_expect_eq(strncmp(json_find(R.out, "device.kind"), "\"gpu\"", 5), 0, "%s", R.out);
    cr_expect_gt(json_number(R.out, "device.index_bytes"), 0);
    cr_expect_eq(json_number(R.out, "build_ms.timed_builds"), 10);
    cr_expect_eq(json_number(R.out, "build_ms.warmup_builds"), 3);
    const char *stages[] = {"boxes", "tree", "count", "scan", "emit", "sort", "total"};
    for (int k = 0; k < 7; k++) {
        char key[32];
        snprintf(key, sizeof key, "build_ms.%s", stages[k]);
        cr_expect_geq(json_number(R.out, key), 0, "%s", key);
    }
    /* the GPU's index is the host oracle's */
    qr_index_stats s;
    host_stats("rand100k", 0, 1024, &s);
    cr_expect_eq(json_number(R.out, "tree.leaves"), s.leaves);
    cr_expect_eq(json_number(R.out, "tree.nodes"), s.nodes);
    cr_expect_eq(json_number(R.out, "circles.pairs"), (double)s.pairs);
    cr_expect_eq(json_number(R.out, "circles.visible"), s.visible);
    cr_expect_eq(json_number(R.out, "circles_per_leaf.median"), s.median_per_leaf);

    const char *png = qr_test_tmp("gpu-leaves.png");
    cr_assert_eq(RUN("stats", "hypnosis", "-s", "128", "--frame", "5", "--picture", png), 0, "%s",
                 R.err);
    cr_expect(strstr(R.err, "building the index on the GPU ("), "%s", R.err);
    cr_expect(strstr(R.out, "median of 10 builds after 3 warm-up"), "%s", R.out);
    cr_expect(strstr(R.out, "\ndevice memory\n"), "%s", R.out);
    int w, h;
    png_size(png, &w, &h);
    cr_expect(w == 128 && h == 128, "%dx%d", w, h);
}
