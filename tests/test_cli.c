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
        const char *cmds[] = {"render", "dump", "scenes"};
        for (int k = 0; k < 3; k++)
            cr_expect(strstr(R.out, cmds[k]), "%s does not mention %s", forms[i], cmds[k]);
        cr_expect(strstr(R.out, "Exit codes"));
    }
    const char *cmds[] = {"render", "dump", "scenes"};
    for (int k = 0; k < 3; k++) {
        cr_expect_eq(RUN(cmds[k], "--help"), 0, "%s --help: %s", cmds[k], R.err);
        char usage[64];
        snprintf(usage, sizeof usage, "Usage: quadrender %s", cmds[k]);
        cr_expect_eq(strncmp(R.out, usage, strlen(usage)), 0, "%s", R.out);
    }
    cr_expect_eq(RUN("render", "--help"), 0);
    cr_expect(strstr(R.out, "--width") && strstr(R.out, "--frames") && strstr(R.out, "--device"));
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
    cr_expect(strstr(R.err, "rgb (3 circles) 64x64 frame 0 on the CPU -> "), "%s", R.err);
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
        bool is_cmd = !strcmp(a0, "render") || !strcmp(a0, "dump") || !strcmp(a0, "scenes");
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
