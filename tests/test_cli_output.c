/* test_cli_output.c — where `quadrender` writes, run as a user runs it:
 * temporary files and signals, symbolic links, pipes, FIFOs, devices and
 * standard output, read-only directories, the overwrite policy, long names,
 * the names of --frames files, and the fsyncs around the rename.
 *
 * Each test executes the built binary ($QR_CLI) in a child process and
 * checks its exit status, its messages and the files it leaves. The fsync
 * test calls the writer (common/atomic_file.c) in this process, with fsync,
 * rename and link replaced below by recording versions.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

#include "common/atomic_file.h"
#include "test_util.h"

/* ---- running the binary ----------------------------------------------------------- */

typedef struct cli_result {
    int code; /* exit status, or 128 + signal */
    char *out, *err;
    size_t out_len;
} cli_result;

static cli_result R; /* the last run */

/* How the next child runs: stdout to this file instead of captured, a pipe
 * end passed as descriptor 5, as the unprivileged user `nobody`. */
static const char *stdout_to;
static bool stdout_append; /* open stdout_to as a shell's >> does, not > */
static int pass_fd5 = -1;
static bool as_nobody;
static rlim_t address_space; /* a limit on it (RLIMIT_AS), 0 for none */

/* The uid and gid the child takes with as_nobody. */
#define NOBODY_ID 65534
/* A child that could not become nobody exits with this. */
#define EXIT_NO_SETUID 125

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

static void capture_paths(char *out_path, char *err_path, size_t size)
{
    const char *tmp = getenv("QR_TMP") ? getenv("QR_TMP") : "/tmp";
    snprintf(out_path, size, "%s/%d-out-stdout.bin", tmp, (int)getpid());
    snprintf(err_path, size, "%s/%d-out-stderr.txt", tmp, (int)getpid());
}

/* Starts $QR_CLI with args (NULL-terminated); the caller waits. */
static pid_t spawn(const char *const *args)
{
    const char *cli = getenv("QR_CLI");
    cr_assert(cli, "QR_CLI is not set (run the tests through ctest)");
    char out_path[1024], err_path[1024];
    capture_paths(out_path, err_path, sizeof out_path);
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
        int fo = stdout_to ? open(stdout_to, O_WRONLY | (stdout_append ? O_APPEND : O_TRUNC))
                           : open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        if (pass_fd5 >= 0 && dup2(pass_fd5, 5) < 0)
            _exit(126);
        if (as_nobody && (setgid(NOBODY_ID) != 0 || setuid(NOBODY_ID) != 0))
            _exit(EXIT_NO_SETUID);
        struct rlimit rl = {address_space, address_space};
        if (address_space && setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(126);
        execv(cli, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Waits for pid and fills R. */
static int finish(pid_t pid)
{
    int status;
    cr_assert(waitpid(pid, &status, 0) == pid);
    char out_path[1024], err_path[1024];
    capture_paths(out_path, err_path, sizeof out_path);
    R.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    free(R.out);
    free(R.err);
    R.out_len = 0;
    R.out = stdout_to ? calloc(1, 1) : read_file(out_path, &R.out_len);
    R.err = read_file(err_path, NULL);
    cr_assert(R.out && R.err);
    return R.code;
}

static int run_argv(const char *const *args)
{
    return finish(spawn(args));
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define RUN(...) run_argv(ARGS(__VA_ARGS__))

/* ---- files ------------------------------------------------------------------------- */

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    cr_assert(fp, "%s: %s", path, strerror(errno));
    fputs(text, fp);
    cr_assert(fclose(fp) == 0);
}

/* A fresh, empty scratch directory. */
static const char *tmp_dir(const char *name)
{
    const char *dir = qr_test_tmp(name);
    cr_assert(mkdir(dir, 0755) == 0, "%s: %s", dir, strerror(errno));
    return dir;
}

static const char *join(const char *dir, const char *name)
{
    static char buf[8][2048];
    static int slot;
    char *out = buf[slot++ % 8];
    snprintf(out, sizeof buf[0], "%s/%s", dir, name);
    return out;
}

static bool same_bytes(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    char *da = read_file(a, &na), *db = read_file(b, &nb);
    cr_assert(da, "cannot read %s", a);
    cr_assert(db, "cannot read %s", b);
    bool same = na == nb && memcmp(da, db, na) == 0;
    free(da);
    free(db);
    return same;
}

/* Whether the file at path holds exactly data[0..len). */
static bool holds(const char *path, const char *data, size_t len)
{
    size_t n = 0;
    char *d = read_file(path, &n);
    cr_assert(d, "cannot read %s", path);
    bool same = n == len && memcmp(d, data, len) == 0;
    free(d);
    return same;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The names in dir other than . and .., joined by spaces (for messages), and
 * their count. */
static int list_dir(const char *dir, char *names, size_t size)
{
    DIR *d = opendir(dir);
    cr_assert(d, "%s: %s", dir, strerror(errno));
    int n = 0;
    size_t used = 0;
    names[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        n++;
        int w = snprintf(names + used, size - used, "%s ", e->d_name);
        if (w > 0 && (size_t)w < size - used)
            used += (size_t)w;
    }
    closedir(d);
    return n;
}

/* Expects dir to hold exactly `want` entries, none of them a temporary file. */
static void expect_entries(const char *dir, int want)
{
    char names[8192];
    int n = list_dir(dir, names, sizeof names);
    cr_expect_eq(n, want, "%s holds %d entries, expected %d: %s", dir, n, want, names);
    cr_expect(!strstr(names, ".tmp-"), "a temporary file left in %s: %s", dir, names);
}

/* A PPM's size; checks that the file is complete. */
static void expect_ppm(const char *path, int w, int h)
{
    size_t len;
    char *data = read_file(path, &len);
    cr_assert(data, "cannot read %s", path);
    int pw = 0, ph = 0, maxval = 0, hdr = 0;
    cr_assert(sscanf(data, "P6 %d %d %d%n", &pw, &ph, &maxval, &hdr) == 3, "%s: not a PPM", path);
    cr_expect_eq(pw, w);
    cr_expect_eq(ph, h);
    cr_expect_eq(len, (size_t)hdr + 1 + (size_t)w * (size_t)h * 3, "%s: %zu bytes", path, len);
    free(data);
}

static bool is_kind(const char *path, mode_t kind)
{
    struct stat st;
    return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

/* The reference bytes: `render rgb -s 8` into a plain file of the format. */
static const char *reference(const char *dir, const char *ext)
{
    static char path[2][1024];
    static int slot;
    char *p = path[slot++ % 2];
    snprintf(p, sizeof path[0], "%s/reference%s", dir, ext);
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", p), 0, "%s", R.err);
    return p;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- 1: a signal removes the temporary file ------------------------------------------ */

/* Has dir an entry starting with prefix? */
static bool has_entry(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    cr_assert(d);
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL)
        found = strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return found;
}

/* Starts a render whose PNG takes a while to encode, waits until its
 * temporary file exists, sends sig, and expects the process to end by that
 * signal (exit status 128 + sig) leaving nothing behind, or with `old` set,
 * an existing big.png untouched. */
static void expect_signal_cleans_up(int sig, const char *old)
{
    const char *dir = tmp_dir("signal");
    const char *out = join(dir, "big.png");
    if (old)
        write_text(out, old);
    pid_t pid = spawn(ARGS("render", "rgb", "-s", "6144", "--device", "cpu", "-o", out));
    bool seen = false;
    for (int waited = 0; waited < 100000 && !seen; waited++) {
        seen = has_entry(dir, ".big.png.tmp-");
        int status;
        if (!seen && waitpid(pid, &status, WNOHANG) == pid)
            cr_assert_fail("the render ended (status %d) before its temporary file was seen",
                           status);
        if (!seen)
            sleep_ms(1);
    }
    cr_assert(seen, "no temporary file appeared");
    cr_assert_eq(kill(pid, sig), 0);
    finish(pid);
    cr_expect_eq(R.code, 128 + sig, "exit status %d, expected %d; stderr: %s", R.code, 128 + sig,
                 R.err);
    expect_entries(dir, old ? 1 : 0);
    if (old)
        cr_expect(holds(out, old, strlen(old)), "the existing file changed");
}

Test(cli_output, sigterm_removes_temp, .timeout = 300)
{
    expect_signal_cleans_up(SIGTERM, NULL);
}

Test(cli_output, sigint_removes_temp, .timeout = 300)
{
    expect_signal_cleans_up(SIGINT, NULL);
}

Test(cli_output, sighup_removes_temp_keeps_old, .timeout = 300)
{
    expect_signal_cleans_up(SIGHUP, "the previous picture");
}

/* ---- 2: symbolic links ----------------------------------------------------------------- */

Test(cli_output, symlink_written_through)
{
    const char *dir = tmp_dir("symlink");
    const char *ref = reference(dir, ".ppm");
    char real[512];
    snprintf(real, sizeof real, "%s", join(dir, "real"));
    cr_assert(mkdir(real, 0755) == 0);
    write_text(join(real, "t.ppm"), "old");
    /* link2 -> link -> real/t.ppm, both relative */
    cr_assert(symlink("real/t.ppm", join(dir, "link.ppm")) == 0);
    cr_assert(symlink("link.ppm", join(dir, "link2.ppm")) == 0);
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", join(dir, "link2.ppm")),
                 0, "%s", R.err);
    cr_expect(is_kind(join(dir, "link.ppm"), S_IFLNK), "link.ppm is no longer a link");
    cr_expect(is_kind(join(dir, "link2.ppm"), S_IFLNK), "link2.ppm is no longer a link");
    cr_expect(same_bytes(join(real, "t.ppm"), ref), "the link's target does not hold the image");

    /* a dangling link: its target is created */
    cr_assert(symlink("real/new.ppm", join(dir, "dangling.ppm")) == 0);
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o",
                     join(dir, "dangling.ppm")),
                 0, "%s", R.err);
    cr_expect(is_kind(join(dir, "dangling.ppm"), S_IFLNK));
    cr_expect(same_bytes(join(real, "new.ppm"), ref));

    /* an absolute link to another directory: dump too */
    char target[1024];
    snprintf(target, sizeof target, "%s/scene.circles", real);
    cr_assert(symlink(target, join(dir, "abs.circles")) == 0);
    cr_assert_eq(RUN("dump", "rgb", "-o", join(dir, "abs.circles")), 0, "%s", R.err);
    cr_expect(is_kind(join(dir, "abs.circles"), S_IFLNK));
    cr_expect(is_kind(target, S_IFREG));

    expect_entries(dir, 6); /* reference, real, link, link2, dangling, abs */
    expect_entries(real, 3);
}

/* ---- 3: FIFOs and pipes ---------------------------------------------------------------- */

/* Runs args with the read end of a FIFO or pipe open here (fd, non-blocking),
 * collecting what arrives until the process has ended; returns the bytes. */
static char *run_reading(int fd, const char *const *args, size_t *len)
{
    pid_t pid = spawn(args);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    bool done = false;
    int status = 0;
    for (;;) {
        if (n == cap)
            buf = realloc(buf, cap *= 2);
        ssize_t got = read(fd, buf + n, cap - n);
        if (got > 0) {
            n += (size_t)got;
            continue;
        }
        if (done)
            break; /* ended, and the pipe is drained */
        if (waitpid(pid, &status, WNOHANG) == pid)
            done = true;
        else
            sleep_ms(1);
    }
    R.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    free(R.err);
    char out_path[1024], err_path[1024];
    capture_paths(out_path, err_path, sizeof out_path);
    R.err = read_file(err_path, NULL);
    *len = n;
    return buf;
}

Test(cli_output, fifo_written_directly)
{
    const char *dir = tmp_dir("fifo");
    const char *ref = reference(dir, ".png");
    const char *fifo = join(dir, "fifo");
    cr_assert(mkfifo(fifo, 0644) == 0, "%s", strerror(errno));
    /* open for reading first (non-blocking), so the writer's open succeeds */
    int fd = open(fifo, O_RDONLY | O_NONBLOCK);
    cr_assert(fd >= 0);
    size_t len;
    char *json = run_reading(fd, ARGS("stats", "rgb", "-s", "16", "--device", "cpu", "--json",
                                      fifo),
                             &len);
    cr_expect_eq(R.code, 0, "%s", R.err);
    cr_expect(len > 20 && strncmp(json, "{\n  \"schema_version\": ", 22) == 0 &&
                  json[len - 2] == '}',
              "not the JSON (%zu bytes)", len);
    free(json);

    /* an image: PNG, as no extension says otherwise */
    char *png = run_reading(fd, ARGS("render", "rgb", "-s", "8", "--device", "cpu", "-o", fifo),
                            &len);
    cr_expect_eq(R.code, 0, "%s", R.err);
    size_t ref_len;
    char *want = read_file(ref, &ref_len);
    cr_expect(len == ref_len && memcmp(png, want, len) == 0, "the FIFO got %zu bytes, not the PNG",
              len);
    free(png);
    free(want);
    close(fd);
    cr_expect(is_kind(fifo, S_IFIFO), "the FIFO was replaced");
    expect_entries(dir, 2);
}

Test(cli_output, pipe_by_descriptor_name)
{
    /* what bash's >(cmd) passes: /dev/fd/N, a pipe */
    const char *dir = tmp_dir("pipe");
    const char *ref = reference(dir, ".ppm");
    int p[2];
    cr_assert(pipe(p) == 0);
    cr_assert(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
    pass_fd5 = p[1];
    pid_t pid = spawn(ARGS("render", "rgb", "-s", "8", "--device", "cpu", "--format", "ppm", "-o",
                           "/dev/fd/5"));
    pass_fd5 = -1;
    close(p[1]);
    finish(pid); /* 8x8: the image fits the pipe's buffer */
    cr_expect_eq(R.code, 0, "%s", R.err);
    char buf[4096];
    ssize_t n = read(p[0], buf, sizeof buf);
    close(p[0]);
    cr_assert(n > 0);
    cr_expect(holds(ref, buf, (size_t)n), "the pipe got %zd bytes, not the PPM", n);
}

/* ---- 4: standard output ------------------------------------------------------------------ */

Test(cli_output, stdout_dash_and_dev_stdout)
{
    const char *dir = tmp_dir("stdout");
    const char *ref_png = reference(dir, ".png");
    const char *ref_ppm = reference(dir, ".ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", "-"), 0, "%s", R.err);
    cr_expect(holds(ref_png, R.out, R.out_len), "-o - is not the PNG (%zu bytes)", R.out_len);
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--format", "ppm", "-o", "-"),
                 0, "%s", R.err);
    cr_expect(holds(ref_ppm, R.out, R.out_len), "-o - --format ppm is not the PPM");

    const char *dump = join(dir, "rgb.circles");
    cr_assert_eq(RUN("dump", "rgb", "-o", dump), 0, "%s", R.err);
    cr_assert_eq(RUN("dump", "rgb", "-o", "-"), 0, "%s", R.err);
    cr_expect(holds(dump, R.out, R.out_len), "dump -o - differs from the file");

    /* /dev/stdout, here a regular file the parent opened */
    const char *captured = join(dir, "captured");
    write_text(captured, "something longer than nothing, to be truncated");
    stdout_to = captured;
    RUN("render", "rgb", "-s", "8", "--device", "cpu", "--format", "ppm", "-o", "/dev/stdout");
    stdout_to = NULL;
    cr_expect_eq(R.code, 0, "%s", R.err);
    cr_expect(same_bytes(captured, ref_ppm), "-o /dev/stdout is not the PPM");

    /* a shell's >> keeps what the file holds: the image is appended */
    write_text(captured, "head\n");
    stdout_to = captured;
    stdout_append = true;
    RUN("render", "rgb", "-s", "8", "--device", "cpu", "--format", "ppm", "-o", "/dev/stdout");
    stdout_to = NULL;
    stdout_append = false;
    cr_expect_eq(R.code, 0, "%s", R.err);
    size_t ref_len = 0, got_len = 0;
    char *want = read_file(ref_ppm, &ref_len), *got = read_file(captured, &got_len);
    cr_expect(got_len == 5 + ref_len && memcmp(got, "head\n", 5) == 0 &&
                  memcmp(got + 5, want, ref_len) == 0,
              ">> /dev/stdout did not append the PPM (%zu bytes)", got_len);
    free(want);
    free(got);
    cr_expect(is_kind("/dev/stdout", S_IFLNK) || !exists("/dev/stdout"),
              "/dev/stdout was replaced");
    expect_entries(dir, 4);
}

/* ---- 5: a read-only directory fails before any work ----------------------------------------- */

Test(cli_output, readonly_directory_fails_early)
{
    const char *dir = tmp_dir("readonly");
    char ro[512];
    snprintf(ro, sizeof ro, "%s", join(dir, "ro"));
    cr_assert(mkdir(ro, 0555) == 0);
    char out[1024];
    snprintf(out, sizeof out, "%s/x.png", ro);
    /* The program asks access(2). Root passes it, so a root run drops to
     * nobody, for whom the directory is read-only as for any user. */
    as_nobody = geteuid() == 0;
    RUN("render", "rgb", "-s", "4096", "--device", "cpu", "-o", out);
    if (R.code == EXIT_NO_SETUID) {
        /* cannot become nobody: the directory is writable to us, and
         * the program must agree with access(2) */
        as_nobody = false;
        cr_assert_eq(access(ro, W_OK | X_OK), 0);
        cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", out), 0, "%s",
                     R.err);
        cr_expect(exists(out));
        return;
    }
    cr_expect_eq(R.code, 4, "stderr: %s", R.err);
    cr_expect_eq(count_lines(R.err), 1, "not one line: rendering started?\n%s", R.err);
    cr_expect(strstr(R.err, out) && strstr(R.err, strerror(EACCES)), "%s", R.err);
    cr_expect_eq(RUN("dump", "rgb", "-o", join(ro, "x.circles")), 4, "%s", R.err);
    cr_expect_eq(RUN("stats", "rgb", "-s", "16", "--device", "cpu", "--json", join(ro, "x.json")),
                 4, "%s", R.err);
    as_nobody = false;
    expect_entries(ro, 0);
}

/* ---- 6: the overwrite policy --------------------------------------------------------------- */

static mode_t mode_of(const char *path)
{
    struct stat st;
    cr_assert(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
    return st.st_mode & 07777;
}

Test(cli_output, overwrite_keeps_mode)
{
    const char *dir = tmp_dir("overwrite");
    const mode_t modes[] = {0444, 0640, 0600};
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "m%o.ppm", (unsigned)modes[i]);
        const char *out = join(dir, name);
        write_text(out, "old");
        cr_assert(chmod(out, modes[i]) == 0);
        cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", out), 0, "%s",
                     R.err);
        expect_ppm(out, 8, 8);
        cr_expect_eq(mode_of(out), modes[i], "%s: mode %o", name, (unsigned)mode_of(out));
    }
    /* a new file gets 0666 less the umask */
    mode_t mask = umask(022);
    const char *fresh = join(dir, "new.ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", fresh), 0, "%s", R.err);
    umask(mask);
    cr_expect_eq(mode_of(fresh), 0644, "mode %o", (unsigned)mode_of(fresh));
    expect_entries(dir, 4);
}

Test(cli_output, no_clobber_refuses_before_work)
{
    const char *dir = tmp_dir("noclobber");
    const char *out = join(dir, "x.ppm");
    write_text(out, "precious");
    cr_expect_eq(RUN("render", "rgb", "-s", "4096", "--device", "cpu", "-n", "-o", out), 4, "%s",
                 R.err);
    cr_expect_eq(count_lines(R.err), 1, "not one line: rendering started?\n%s", R.err);
    cr_expect(strstr(R.err, out) && strstr(R.err, "exists"), "%s", R.err);
    cr_expect(holds(out, "precious", 8));

    const char *dump = join(dir, "x.circles"), *json = join(dir, "x.json");
    write_text(dump, "precious");
    write_text(json, "precious");
    cr_expect_eq(RUN("dump", "rgb", "--no-clobber", "-o", dump), 4, "%s", R.err);
    cr_expect(holds(dump, "precious", 8));
    cr_expect_eq(RUN("stats", "rgb", "-s", "16", "--device", "cpu", "-n", "--json", json), 4, "%s",
                 R.err);
    cr_expect(holds(json, "precious", 8));

    /* one existing frame stops the whole run before its first frame */
    write_text(join(dir, "f_0002.ppm"), "precious");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-n", "--frames", "0:2", "-o",
                     join(dir, "f.ppm")),
                 4, "%s", R.err);
    cr_expect(!exists(join(dir, "f_0000.ppm")), "frame 0 was written");

    /* a new name is written; a device is written into, not replaced */
    const char *fresh = join(dir, "new.ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-n", "-o", fresh), 0, "%s",
                 R.err);
    expect_ppm(fresh, 8, 8);
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-n", "-o", "/dev/null"), 0,
                 "%s", R.err);
    expect_entries(dir, 5);
}

/* ---- 17: device nodes ------------------------------------------------------------------------ */

Test(cli_output, dev_null_written_directly)
{
    cr_expect_eq(RUN("stats", "rgb", "-s", "16", "--device", "cpu", "--json", "/dev/null"), 0,
                 "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", "/dev/null"), 0, "%s",
                 R.err);
    cr_expect_eq(RUN("dump", "rgb", "-o", "/dev/null"), 0, "%s", R.err);
    cr_expect(is_kind("/dev/null", S_IFCHR), "/dev/null is no longer a device");
}

Test(cli_output, dev_full_fails)
{
    if (access("/dev/full", W_OK) != 0)
        cr_skip_test("no /dev/full");
    cr_expect_eq(RUN("stats", "rgb", "-s", "16", "--device", "cpu", "--json", "/dev/full"), 4,
                 "%s", R.err);
    cr_expect(strstr(R.err, "/dev/full") && strstr(R.err, strerror(ENOSPC)), "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", "/dev/full"), 4, "%s",
                 R.err);
    cr_expect_eq(RUN("dump", "rgb", "-o", "/dev/full"), 4, "%s", R.err);
    cr_expect(is_kind("/dev/full", S_IFCHR), "/dev/full is no longer a device");
}

/* ---- 21: long base names ----------------------------------------------------------------------- */

Test(cli_output, long_base_names)
{
    const char *dir = tmp_dir("longname");
    long name_max = pathconf(dir, _PC_NAME_MAX);
    cr_assert(name_max >= 255, "this file system allows %ld-byte names", name_max);
    /* 255 bytes: the longest legal name */
    char name[300];
    memset(name, 'a', 251);
    strcpy(name + 251, ".ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", join(dir, name)), 0,
                 "%s", R.err);
    expect_ppm(join(dir, name), 8, 8);
    /* 254 bytes of two-byte characters: the temporary name's cut falls
     * inside one unless it respects character boundaries */
    name[0] = 'b';
    for (int i = 1; i < 251; i += 2)
        memcpy(name + i, "\xc3\xa9", 2);
    strcpy(name + 251, ".ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", join(dir, name)), 0,
                 "%s", R.err);
    expect_ppm(join(dir, name), 8, 8);
    /* 256 bytes: too long for the file system, an output error */
    memset(name, 'c', 252);
    strcpy(name + 252, ".ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", join(dir, name)), 4,
                 "%s", R.err);
    expect_entries(dir, 2);
}

/* ---- 8: the names of --frames files ------------------------------------------------------------ */

Test(cli_output, frame_names_sort)
{
    const char *dir = tmp_dir("framenames");
    /* the range's last frame needs 5 digits: every name gets 5 */
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "9998:10001", "-o",
                     join(dir, "x.ppm")),
                 0, "%s", R.err);
    const char *names[] = {"x_09998.ppm", "x_09999.ppm", "x_10000.ppm", "x_10001.ppm"};
    for (int i = 0; i < 4; i++) {
        cr_expect(exists(join(dir, names[i])), "%s missing", names[i]);
        if (i > 0)
            cr_expect_lt(strcmp(names[i - 1], names[i]), 0);
    }
    expect_entries(dir, 4);
    /* small ranges keep 4 digits */
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "7:8", "-o",
                     join(dir, "y.ppm")),
                 0, "%s", R.err);
    cr_expect(exists(join(dir, "y_0007.ppm")) && exists(join(dir, "y_0008.ppm")));
}

Test(cli_output, frame_name_pattern)
{
    const char *dir = tmp_dir("framepattern");
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "3:4", "-o",
                     join(dir, "f%06d.ppm")),
                 0, "%s", R.err);
    cr_expect(exists(join(dir, "f000003.ppm")) && exists(join(dir, "f000004.ppm")));
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "5:5", "-o",
                     join(dir, "p%%_%d.ppm")),
                 0, "%s", R.err);
    cr_expect(exists(join(dir, "p%_5.ppm")));
    expect_entries(dir, 3);
    /* anything else with a '%' is a usage error, before any work */
    const char *bad[] = {"a%s.ppm", "a%d_%d.ppm", "a%5d.ppm", "a%.ppm", "a%019d.ppm"};
    for (int i = 0; i < 5; i++) {
        cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "0:1", "-o",
                         join(dir, bad[i])),
                     2, "%s: %s", bad[i], R.err);
        cr_expect(strstr(R.err, "%d"), "%s", R.err);
    }
    expect_entries(dir, 3);
}

Test(cli_output, many_frames_need_force)
{
    const char *dir = tmp_dir("force");
    const char *out = join(dir, "x.ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "0:100000", "-o",
                     out),
                 2, "%s", R.err);
    cr_expect(strstr(R.err, "--force") && strstr(R.err, "100001 frames"), "%s", R.err);
    /* with --force the range is accepted: -n and an existing first frame
     * stop it before any work, with the 6-digit name */
    write_text(join(dir, "x_000000.ppm"), "precious");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "0:100000",
                     "--force", "-n", "-o", out),
                 4, "%s", R.err);
    cr_expect(strstr(R.err, "x_000000.ppm"), "%s", R.err);
    expect_entries(dir, 1);
}

/* ---- 22: out of memory while writing ------------------------------------------------------ */

/* Address-space limits from too small to start the program up to enough to
 * write the image: every failure on the way is exit 6 (never 4, "cannot write"),
 * leaves no temporary file, and some happen inside the writer (the message
 * names the file). */
Test(cli_output, out_of_memory_while_writing, .timeout = 300)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer's shadow memory does not fit under an address-space limit");
#endif
    const char *dir = tmp_dir("oom");
    char out[1024];
    snprintf(out, sizeof out, "%s/x.png", qr_test_tmp("oom"));
    int writer_failures = 0, other_failures = 0;
    bool written = false;
    for (rlim_t mb = 8; mb <= 1024 && !written; mb += 2) {
        address_space = mb << 20;
        RUN("render", "rgb", "-s", "1024", "--device", "cpu", "-o", out);
        address_space = 0;
        if (R.code == 0) {
            written = true;
            break;
        }
        if ((R.code == 127 && strstr(R.err, "error while loading shared libraries")) ||
            (R.code > 128 && R.err[0] == '\0' && mb < 32))
            continue; /* too small for the program to start at all (the loader or
                         the C runtime dies before main, which prints nothing) */
        cr_assert_eq(R.code, 6, "%lu MiB: exit %d: %s", (unsigned long)mb, R.code, R.err);
        if (strstr(R.err, "x.png:"))
            writer_failures++;
        else
            other_failures++;
        expect_entries(dir, 0);
    }
    cr_assert(written, "not written under 1 GiB of address space: %s", R.err);
    cr_expect_gt(writer_failures, 0, "no limit failed inside the writer (%d other failures)",
                 other_failures);
}

/* ---- 23: fsync before and after the rename -------------------------------------------------------- */

/* This process's fsync, rename and link record what they do (the writer
 * under test is linked in statically), then do it by other means. */
static char events[16][8];
static int nevents;

static void record(const char *what)
{
    if (nevents < 16)
        snprintf(events[nevents++], sizeof events[0], "%s", what);
}

int fsync(int fd);
int fsync(int fd)
{
    struct stat st;
    record(fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) ? "syncdir" : "sync");
    return fdatasync(fd);
}

int rename(const char *from, const char *to);
int rename(const char *from, const char *to)
{
    record("rename");
    return renameat(AT_FDCWD, from, AT_FDCWD, to);
}

int link(const char *from, const char *to);
int link(const char *from, const char *to)
{
    record("link");
    return linkat(AT_FDCWD, from, AT_FDCWD, to, 0);
}

static void expect_events(const char *a, const char *b, const char *c)
{
    cr_assert_eq(nevents, 3, "%d events: %s %s %s %s", nevents, events[0], events[1], events[2],
                 events[3]);
    cr_expect_str_eq(events[0], a);
    cr_expect_str_eq(events[1], b);
    cr_expect_str_eq(events[2], c);
}

Test(cli_output, fsync_around_rename)
{
    const char *dir = tmp_dir("fsync");
    const char *path = join(dir, "x.txt");
    qr_atomic_file af;
    qr_error err;
    nevents = 0;
    cr_assert_eq(qr_atomic_open(&af, path, &err), QR_OK, "%s", err.msg);
    fputs("data", af.fp);
    cr_assert_eq(qr_atomic_commit(&af, &err), QR_OK, "%s", err.msg);
    expect_events("sync", "rename", "syncdir");
    cr_expect(holds(path, "data", 4));

    /* under no-clobber the temporary is linked into place, not renamed */
    nevents = 0;
    qr_atomic_set_no_clobber(1);
    const char *other = join(dir, "y.txt");
    cr_assert_eq(qr_atomic_open(&af, other, &err), QR_OK, "%s", err.msg);
    fputs("more", af.fp);
    qr_status st = qr_atomic_commit(&af, &err);
    qr_atomic_set_no_clobber(0);
    cr_assert_eq(st, QR_OK, "%s", err.msg);
    expect_events("sync", "link", "syncdir");
    cr_expect(holds(other, "more", 4));
    expect_entries(dir, 2);
}
