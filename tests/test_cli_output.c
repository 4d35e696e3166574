/* test_cli_output.c — where `quadrender` writes, run as a user runs it:
 * symbolic links, pipes, FIFOs, devices and standard output, read-only
 * directories, the overwrite policy, long names, and the names of --frames
 * files. (Interrupted and failing writes: test_cli_signals.c.)
 *
 * Each test executes the built binary ($QR_CLI) in a child process and
 * checks its exit status, its messages and the files it leaves.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "cli_expect.h"
#include "cli_run.h"
#include "test_util.h"

/* ---- helpers --------------------------------------------------------------------------- */

/* The uid and gid of the unprivileged user `nobody`. */
#define NOBODY_ID 65534

/* A PPM's size; cli_read_ppm checks that the file is complete. */
static void expect_ppm(const char *path, int w, int h)
{
    cli_ppm p = cli_read_ppm(path);
    cr_expect_eq(p.w, w);
    cr_expect_eq(p.h, h);
    cli_ppm_free(&p);
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

/* ---- symbolic links ----------------------------------------------------------------- */

Test(cli_output, symlink_written_through)
{
    const char *dir = qr_test_tmp_dir("symlink");
    const char *ref = reference(dir, ".ppm");
    char real[512];
    snprintf(real, sizeof real, "%s", qr_test_join(dir, "real"));
    cr_assert(mkdir(real, 0755) == 0);
    qr_test_write_text(qr_test_join(real, "t.ppm"), "old");
    /* link2 -> link -> real/t.ppm, both relative */
    cr_assert(symlink("real/t.ppm", qr_test_join(dir, "link.ppm")) == 0);
    cr_assert(symlink("link.ppm", qr_test_join(dir, "link2.ppm")) == 0);
    cr_assert_eq(
        RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", qr_test_join(dir, "link2.ppm")), 0,
        "%s", R.err);
    cr_expect(is_kind(qr_test_join(dir, "link.ppm"), S_IFLNK), "link.ppm is no longer a link");
    cr_expect(is_kind(qr_test_join(dir, "link2.ppm"), S_IFLNK), "link2.ppm is no longer a link");
    cr_expect(qr_test_same_bytes(qr_test_join(real, "t.ppm"), ref),
              "the link's target does not hold the image");

    /* a dangling link: its target is created */
    cr_assert(symlink("real/new.ppm", qr_test_join(dir, "dangling.ppm")) == 0);
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o",
                     qr_test_join(dir, "dangling.ppm")),
                 0, "%s", R.err);
    cr_expect(is_kind(qr_test_join(dir, "dangling.ppm"), S_IFLNK));
    cr_expect(qr_test_same_bytes(qr_test_join(real, "new.ppm"), ref));

    /* an absolute link to another directory: dump too */
    char target[1024];
    snprintf(target, sizeof target, "%s/scene.circles", real);
    cr_assert(symlink(target, qr_test_join(dir, "abs.circles")) == 0);
    cr_assert_eq(RUN("dump", "rgb", "-o", qr_test_join(dir, "abs.circles")), 0, "%s", R.err);
    cr_expect(is_kind(qr_test_join(dir, "abs.circles"), S_IFLNK));
    cr_expect(is_kind(target, S_IFREG));

    cli_expect_entries(dir, 6); /* reference, real, link, link2, dangling, abs */
    cli_expect_entries(real, 3);
}

/* ---- FIFOs and pipes ---------------------------------------------------------------- */

/* Runs args with the read end of a FIFO or pipe open here (fd, non-blocking),
 * collecting what arrives until the process has ended; returns the bytes. */
static char *run_reading(int fd, const char *const *args, size_t *len)
{
    qr_cli_proc run = qr_cli_start(NULL, args);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    bool done = false;
    for (;;) {
        if (n == cap) {
            buf = realloc(buf, cap *= 2);
            cr_assert_not_null(buf);
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got > 0) {
            n += (size_t)got;
            continue;
        }
        if (done)
            break; /* ended, and the pipe is drained */
        if (qr_cli_poll(&run, &R))
            done = true;
        else
            nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
    }
    *len = n;
    return buf;
}

Test(cli_output, fifo_written_directly)
{
    const char *dir = qr_test_tmp_dir("fifo");
    const char *ref = reference(dir, ".png");
    const char *fifo = qr_test_join(dir, "fifo");
    cr_assert(mkfifo(fifo, 0644) == 0, "%s", strerror(errno));
    /* open for reading first (non-blocking), so the writer's open succeeds */
    int fd = open(fifo, O_RDONLY | O_NONBLOCK);
    cr_assert(fd >= 0);
    size_t len;
    char *json = run_reading(
        fd, QR_ARGS("stats", "rgb", "-s", "16", "--device", "cpu", "--json", fifo), &len);
    cr_expect_eq(R.code, 0, "%s", R.err);
    cr_expect(len > 20 && strncmp(json, "{\n  \"schema_version\": ", 22) == 0 &&
                  json[len - 2] == '}',
              "not the JSON (%zu bytes)", len);
    free(json);

    /* an image: PNG, as no extension says otherwise */
    char *png =
        run_reading(fd, QR_ARGS("render", "rgb", "-s", "8", "--device", "cpu", "-o", fifo), &len);
    cr_expect_eq(R.code, 0, "%s", R.err);
    size_t ref_len;
    char *want = qr_test_read_file(ref, &ref_len);
    cr_expect(len == ref_len && memcmp(png, want, len) == 0, "the FIFO got %zu bytes, not the PNG",
              len);
    free(png);
    free(want);
    close(fd);
    cr_expect(is_kind(fifo, S_IFIFO), "the FIFO was replaced");
    cli_expect_entries(dir, 2);
}

Test(cli_output, pipe_by_descriptor_name)
{
    /* what bash's >(cmd) passes: /dev/fd/N, a pipe */
    const char *dir = qr_test_tmp_dir("pipe");
    const char *ref = reference(dir, ".ppm");
    int p[2];
    cr_assert(pipe(p) == 0);
    cr_assert(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
    qr_cli_proc run = qr_cli_start(&(qr_cli_opts){.pass_fd = p[1], .pass_fd_as = 5},
                                   QR_ARGS("render", "rgb", "-s", "8", "--device", "cpu",
                                           "--format", "ppm", "-o", "/dev/fd/5"));
    close(p[1]);
    qr_cli_wait(&run, &R); /* 8x8: the image fits the pipe's buffer */
    cr_expect_eq(R.code, 0, "%s", R.err);
    char buf[4096];
    ssize_t n = read(p[0], buf, sizeof buf);
    close(p[0]);
    cr_assert(n > 0);
    cr_expect(qr_test_holds(ref, buf, (size_t)n), "the pipe got %zd bytes, not the PPM", n);
}

/* ---- standard output ------------------------------------------------------------------ */

Test(cli_output, stdout_dash_and_dev_stdout)
{
    const char *dir = qr_test_tmp_dir("stdout");
    const char *ref_png = reference(dir, ".png");
    const char *ref_ppm = reference(dir, ".ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", "-"), 0, "%s", R.err);
    cr_expect(qr_test_holds(ref_png, R.out, R.out_len), "-o - is not the PNG (%zu bytes)",
              R.out_len);
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--format", "ppm", "-o", "-"),
                 0, "%s", R.err);
    cr_expect(qr_test_holds(ref_ppm, R.out, R.out_len), "-o - --format ppm is not the PPM");

    const char *dump = qr_test_join(dir, "rgb.circles");
    cr_assert_eq(RUN("dump", "rgb", "-o", dump), 0, "%s", R.err);
    cr_assert_eq(RUN("dump", "rgb", "-o", "-"), 0, "%s", R.err);
    cr_expect(qr_test_holds(dump, R.out, R.out_len), "dump -o - differs from the file");

    /* /dev/stdout, here a regular file the parent opened */
    const char *captured = qr_test_join(dir, "captured");
    qr_test_write_text(captured, "something longer than nothing, to be truncated");
    qr_cli_run(&(qr_cli_opts){.stdout_to = captured},
               QR_ARGS("render", "rgb", "-s", "8", "--device", "cpu", "--format", "ppm", "-o",
                       "/dev/stdout"),
               &R);
    cr_expect_eq(R.code, 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(captured, ref_ppm), "-o /dev/stdout is not the PPM");

    /* a shell's >> keeps what the file holds: the image is appended */
    qr_test_write_text(captured, "head\n");
    qr_cli_run(&(qr_cli_opts){.stdout_to = captured, .stdout_append = true},
               QR_ARGS("render", "rgb", "-s", "8", "--device", "cpu", "--format", "ppm", "-o",
                       "/dev/stdout"),
               &R);
    cr_expect_eq(R.code, 0, "%s", R.err);
    size_t ref_len = 0, got_len = 0;
    char *want = qr_test_read_file(ref_ppm, &ref_len);
    char *got = qr_test_read_file(captured, &got_len);
    cr_expect(got_len == 5 + ref_len && memcmp(got, "head\n", 5) == 0 &&
                  memcmp(got + 5, want, ref_len) == 0,
              ">> /dev/stdout did not append the PPM (%zu bytes)", got_len);
    free(want);
    free(got);
    cr_expect(is_kind("/dev/stdout", S_IFLNK) || !qr_test_exists("/dev/stdout"),
              "/dev/stdout was replaced");
    cli_expect_entries(dir, 4);
}

/* ---- a read-only directory fails before any work ----------------------------------------- */

Test(cli_output, readonly_directory_fails_early)
{
    const char *dir = qr_test_tmp_dir("readonly");
    char ro[512];
    snprintf(ro, sizeof ro, "%s", qr_test_join(dir, "ro"));
    cr_assert(mkdir(ro, 0555) == 0);
    char out[1024];
    snprintf(out, sizeof out, "%s/x.png", ro);
    /* The program asks access(2). Root passes it, so a root run drops to
     * nobody, for whom the directory is read-only as for any user. nobody
     * may not reach the build tree (a checkout in a mode 0700 directory):
     * it runs a copy of the program from a directory anyone can enter. */
    const bool root = geteuid() == 0;
    char copy_dir[] = "/tmp/qr-nobody-XXXXXX", copy[64] = "";
    if (root) {
        cr_assert(mkdtemp(copy_dir) && chmod(copy_dir, 0755) == 0);
        snprintf(copy, sizeof copy, "%s/quadrender", copy_dir);
        size_t len;
        char *bin = qr_test_read_file(getenv("QR_CLI"), &len);
        qr_test_write_file(copy, bin, len);
        free(bin);
        cr_assert(chmod(copy, 0755) == 0);
    }
    const qr_cli_opts as = {.program = root ? copy : NULL, .set_ids = root, .uid = NOBODY_ID,
                            .gid = NOBODY_ID};
    qr_cli_run(&as, QR_ARGS("render", "rgb", "-s", "4096", "--device", "cpu", "-o", out), &R);
    if (R.code == QR_CLI_EXIT_NO_IDS) {
        /* cannot become nobody: the directory is writable to us, and
         * the program must agree with access(2) */
        cr_assert_eq(access(ro, W_OK | X_OK), 0);
        cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", out), 0, "%s",
                     R.err);
        cr_expect(qr_test_exists(out));
        return;
    }
    cr_expect_eq(R.code, 4, "stderr: %s", R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "not one line: rendering started?\n%s", R.err);
    cr_expect(strstr(R.err, out) && strstr(R.err, strerror(EACCES)), "%s", R.err);
    cr_expect_eq(qr_cli_run(&as, QR_ARGS("dump", "rgb", "-o", qr_test_join(ro, "x.circles")), &R),
                 4, "%s", R.err);
    cr_expect_eq(qr_cli_run(&as,
                            QR_ARGS("stats", "rgb", "-s", "16", "--device", "cpu", "--json",
                                    qr_test_join(ro, "x.json")),
                            &R),
                 4, "%s", R.err);
    cli_expect_entries(ro, 0);
    if (root) {
        unlink(copy);
        rmdir(copy_dir);
    }
}

/* ---- the overwrite policy --------------------------------------------------------------- */

static mode_t mode_of(const char *path)
{
    struct stat st;
    cr_assert(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
    return st.st_mode & 07777;
}

Test(cli_output, overwrite_keeps_mode)
{
    const char *dir = qr_test_tmp_dir("overwrite");
    const mode_t modes[] = {0444, 0640, 0600};
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "m%o.ppm", (unsigned)modes[i]);
        const char *out = qr_test_join(dir, name);
        qr_test_write_text(out, "old");
        cr_assert(chmod(out, modes[i]) == 0);
        cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", out), 0, "%s",
                     R.err);
        expect_ppm(out, 8, 8);
        cr_expect_eq(mode_of(out), modes[i], "%s: mode %o", name, (unsigned)mode_of(out));
    }
    /* a new file gets 0666 less the umask */
    mode_t mask = umask(022);
    const char *fresh = qr_test_join(dir, "new.ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", fresh), 0, "%s", R.err);
    umask(mask);
    cr_expect_eq(mode_of(fresh), 0644, "mode %o", (unsigned)mode_of(fresh));
    cli_expect_entries(dir, 4);
}

Test(cli_output, no_clobber_refuses_before_work)
{
    const char *dir = qr_test_tmp_dir("noclobber");
    const char *out = qr_test_join(dir, "x.ppm");
    qr_test_write_text(out, "precious");
    cr_expect_eq(RUN("render", "rgb", "-s", "4096", "--device", "cpu", "-n", "-o", out), 4, "%s",
                 R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "not one line: rendering started?\n%s", R.err);
    cr_expect(strstr(R.err, out) && strstr(R.err, "exists"), "%s", R.err);
    cr_expect(qr_test_holds(out, "precious", 8));

    const char *dump = qr_test_join(dir, "x.circles"), *json = qr_test_join(dir, "x.json");
    qr_test_write_text(dump, "precious");
    qr_test_write_text(json, "precious");
    cr_expect_eq(RUN("dump", "rgb", "--no-clobber", "-o", dump), 4, "%s", R.err);
    cr_expect(qr_test_holds(dump, "precious", 8));
    cr_expect_eq(RUN("stats", "rgb", "-s", "16", "--device", "cpu", "-n", "--json", json), 4, "%s",
                 R.err);
    cr_expect(qr_test_holds(json, "precious", 8));

    /* one existing frame stops the whole run before its first frame */
    qr_test_write_text(qr_test_join(dir, "f_0002.ppm"), "precious");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-n", "--frames", "0:2", "-o",
                     qr_test_join(dir, "f.ppm")),
                 4, "%s", R.err);
    cr_expect(!qr_test_exists(qr_test_join(dir, "f_0000.ppm")), "frame 0 was written");

    /* a new name is written; a device is written into, not replaced */
    const char *fresh = qr_test_join(dir, "new.ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-n", "-o", fresh), 0, "%s",
                 R.err);
    expect_ppm(fresh, 8, 8);
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-n", "-o", "/dev/null"), 0,
                 "%s", R.err);
    cli_expect_entries(dir, 5);
}

/* ---- device nodes ------------------------------------------------------------------------ */

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

/* ---- long base names ----------------------------------------------------------------------- */

Test(cli_output, long_base_names)
{
    const char *dir = qr_test_tmp_dir("longname");
    long name_max = pathconf(dir, _PC_NAME_MAX);
    cr_assert(name_max >= 255, "this file system allows %ld-byte names", name_max);
    /* 255 bytes: the longest legal name */
    char name[300];
    memset(name, 'a', 251);
    strcpy(name + 251, ".ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", qr_test_join(dir, name)),
                 0, "%s", R.err);
    expect_ppm(qr_test_join(dir, name), 8, 8);
    /* 254 bytes of two-byte characters: the temporary name's cut falls
     * inside one unless it respects character boundaries */
    name[0] = 'b';
    for (int i = 1; i < 251; i += 2)
        memcpy(name + i, "\xc3\xa9", 2);
    strcpy(name + 251, ".ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", qr_test_join(dir, name)),
                 0, "%s", R.err);
    expect_ppm(qr_test_join(dir, name), 8, 8);
    /* 256 bytes: too long for the file system, an output error */
    memset(name, 'c', 252);
    strcpy(name + 252, ".ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", qr_test_join(dir, name)),
                 4, "%s", R.err);
    cli_expect_entries(dir, 2);
}

/* ---- the names of --frames files ------------------------------------------------------------ */

Test(cli_output, frame_names_sort)
{
    const char *dir = qr_test_tmp_dir("framenames");
    /* the range's last frame needs 5 digits: every name gets 5 */
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "9998:10001", "-o",
                     qr_test_join(dir, "x.ppm")),
                 0, "%s", R.err);
    const char *names[] = {"x_09998.ppm", "x_09999.ppm", "x_10000.ppm", "x_10001.ppm"};
    for (int i = 0; i < 4; i++) {
        cr_expect(qr_test_exists(qr_test_join(dir, names[i])), "%s missing", names[i]);
        if (i > 0)
            cr_expect_lt(strcmp(names[i - 1], names[i]), 0);
    }
    cli_expect_entries(dir, 4);
    /* small ranges keep 4 digits */
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "7:8", "-o",
                     qr_test_join(dir, "y.ppm")),
                 0, "%s", R.err);
    cr_expect(qr_test_exists(qr_test_join(dir, "y_0007.ppm")) &&
              qr_test_exists(qr_test_join(dir, "y_0008.ppm")));
}

Test(cli_output, frame_name_pattern)
{
    const char *dir = qr_test_tmp_dir("framepattern");
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "3:4", "-o",
                     qr_test_join(dir, "f%06d.ppm")),
                 0, "%s", R.err);
    cr_expect(qr_test_exists(qr_test_join(dir, "f000003.ppm")) &&
              qr_test_exists(qr_test_join(dir, "f000004.ppm")));
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "5:5", "-o",
                     qr_test_join(dir, "p%%_%d.ppm")),
                 0, "%s", R.err);
    cr_expect(qr_test_exists(qr_test_join(dir, "p%_5.ppm")));
    cli_expect_entries(dir, 3);
    /* anything else with a '%' is a usage error, before any work */
    const char *bad[] = {"a%s.ppm", "a%d_%d.ppm", "a%5d.ppm", "a%.ppm", "a%019d.ppm"};
    for (int i = 0; i < 5; i++) {
        cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "0:1", "-o",
                         qr_test_join(dir, bad[i])),
                     2, "%s: %s", bad[i], R.err);
        cr_expect(strstr(R.err, "%d"), "%s", R.err);
    }
    cli_expect_entries(dir, 3);
}

Test(cli_output, many_frames_need_force)
{
    const char *dir = qr_test_tmp_dir("force");
    const char *out = qr_test_join(dir, "x.ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "0:100000", "-o",
                     out),
                 2, "%s", R.err);
    cr_expect(strstr(R.err, "--force") && strstr(R.err, "100001 frames"), "%s", R.err);
    /* with --force the range is accepted: -n and an existing first frame
     * stop it before any work, with the 6-digit name */
    qr_test_write_text(qr_test_join(dir, "x_000000.ppm"), "precious");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "--frames", "0:100000",
                     "--force", "-n", "-o", out),
                 4, "%s", R.err);
    cr_expect(strstr(R.err, "x_000000.ppm"), "%s", R.err);
    cli_expect_entries(dir, 1);
}
