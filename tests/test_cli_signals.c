/* test_cli_signals.c — `quadrender` output interrupted or failing, run as a
 * user runs it: a signal mid-write, memory running out mid-write, and the
 * fsyncs around the rename that make a finished file survive a crash.
 * (Where it writes: test_cli_output.c.)
 *
 * The signal and memory tests execute the built binary ($QR_CLI) in a child
 * process and check its exit status, its messages and the files it leaves.
 * The fsync test calls the writer (common/atomic_file.c) in this process,
 * with fsync, rename and link replaced below by recording versions; the
 * binary the other tests run keeps the real ones.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "cli_expect.h"
#include "cli_run.h"
#include "common/atomic_file.h"
#include "test_util.h"

/* ---- a signal removes the temporary file ------------------------------------------ */

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
    const char *dir = qr_test_tmp_dir("signal");
    const char *out = qr_test_join(dir, "big.png");
    if (old)
        qr_test_write_text(out, old);
    qr_cli_proc run =
        qr_cli_start(NULL, QR_ARGS("render", "rgb", "-s", "6144", "--device", "cpu", "-o", out));
    bool seen = false;
    for (int waited = 0; waited < 100000 && !seen; waited++) {
        seen = has_entry(dir, ".big.png.tmp-");
        if (!seen && qr_cli_poll(&run, &R))
            cr_assert_fail("the render ended (status %d) before its temporary file was seen: %s",
                           R.code, R.err);
        if (!seen)
            nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
    }
    cr_assert(seen, "no temporary file appeared");
    cr_assert_eq(kill(run.pid, sig), 0);
    qr_cli_wait(&run, &R);
    cr_expect_eq(R.code, 128 + sig, "exit status %d, expected %d; stderr: %s", R.code, 128 + sig,
                 R.err);
    cli_expect_entries(dir, old ? 1 : 0);
    if (old)
        cr_expect(qr_test_holds(out, old, strlen(old)), "the existing file changed");
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

/* Ctrl-C while a .npy is read and drawn chunk by chunk (--chunk): the
 * process ends by the signal, and neither the image nor a temporary file
 * is left. */
Test(cli_output, sigint_mid_stream_leaves_nothing, .timeout = 300)
{
    const char *dir = qr_test_tmp_dir("signal_chunks");
    char npy[1024];
    snprintf(npy, sizeof npy, "%s", qr_test_tmp("signal_chunks.npy"));
    cr_assert_eq(RUN("dump", "uniform:1M", "-o", npy), 0, "%s", R.err);
    const char *out = qr_test_join(dir, "x.png");
    qr_cli_proc run = qr_cli_start(NULL, QR_ARGS("render", npy, "-s", "1024", "--reference",
                                                 "--chunk", "20000", "-o", out));
    nanosleep(&(struct timespec){0, 400 * 1000 * 1000}, NULL);
    cr_assert(!qr_cli_poll(&run, &R), "the render ended (status %d) before the signal: %s",
              R.code, R.err);
    cr_assert_eq(kill(run.pid, SIGINT), 0);
    qr_cli_wait(&run, &R);
    cr_expect_eq(R.code, 128 + SIGINT, "exit status %d; stderr: %s", R.code, R.err);
    cli_expect_entries(dir, 0);
    unlink(npy);
}

/* The same on the GPU: a file's chunks in small parts, interrupted while
 * they are drawn, leave nothing. */
Test(cli_output, sigint_mid_stream_on_the_gpu_leaves_nothing, .timeout = 300)
{
    qr_error why;
    if (qr_gpu_probe(NULL, &why) != QR_OK)
        cr_skip_test("needs a GPU: %s", why.msg);
    const char *dir = qr_test_tmp_dir("signal_gpu_chunks");
    char npy[1024];
    snprintf(npy, sizeof npy, "%s", qr_test_tmp("signal_gpu_chunks.npy"));
    cr_assert_eq(RUN("dump", "uniform:1M", "-o", npy), 0, "%s", R.err);
    const char *out = qr_test_join(dir, "x.png");
    qr_cli_proc run = qr_cli_start(NULL, QR_ARGS("render", npy, "-s", "1024", "--device", "gpu",
                                                 "--chunk", "200", "-o", out));
    nanosleep(&(struct timespec){1, 0}, NULL);
    cr_assert(!qr_cli_poll(&run, &R), "the render ended (status %d) before the signal: %s",
              R.code, R.err);
    cr_assert_eq(kill(run.pid, SIGINT), 0);
    qr_cli_wait(&run, &R);
    cr_expect_eq(R.code, 128 + SIGINT, "exit status %d; stderr: %s", R.code, R.err);
    cli_expect_entries(dir, 0);
    unlink(npy);
}

/* ---- out of memory while writing ------------------------------------------------------ */

/* Whether a run's output has a line of its own, "quadrender: ...". A loader's
 * message names the program by its path ("/.../quadrender: error while
 * loading"), and a library's crash report may print that path in a backtrace:
 * neither is the program speaking. */
static bool speaks(const char *text)
{
    return strncmp(text, "quadrender: ", 12) == 0 || strstr(text, "\nquadrender: ") != NULL;
}

/* Address-space limits from too small to start the program up to enough to
 * write the image: every failure on the way is exit 6 (never 4, "cannot write"),
 * leaves no temporary file, and some happen inside the writer (the message
 * names the file). */
Test(cli_output, out_of_memory_while_writing, .timeout = 300)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer's shadow memory does not fit under an address-space limit");
#endif
    const char *dir = qr_test_tmp_dir("oom");
    char out[1024];
    snprintf(out, sizeof out, "%s/x.png", qr_test_tmp("oom"));
    int writer_failures = 0, other_failures = 0;
    bool written = false;
    for (unsigned long mb = 8; mb <= 1024 && !written; mb += 2) {
        qr_cli_run(&(qr_cli_opts){.address_space = (size_t)mb << 20},
                   QR_ARGS("render", "rgb", "-s", "1024", "--device", "cpu", "-o", out), &R);
        if (R.code == 0) {
            written = true;
            break;
        }
        if (!speaks(R.err) && !speaks(R.out))
            continue; /* too small for the program to start at all: exec, the
                         loader, the C runtime or a library's constructor
                         fails before main, which never speaks as quadrender
                         (the loader exits 127; the static CUDA runtime's
                         constructor dereferences a failed allocation, and the
                         MPI build's UCX prints a backtrace naming the
                         program's path; its hwloc exits 1, "Out of memory
                         allocating bitmask") */
        cr_assert_eq(R.code, 6, "%lu MiB: exit %d: %s", mb, R.code, R.err);
        if (strstr(R.err, "x.png:"))
            writer_failures++;
        else
            other_failures++;
        cli_expect_entries(dir, 0);
    }
    cr_assert(written, "not written under 1 GiB of address space: %s", R.err);
    cr_expect_gt(writer_failures, 0, "no limit failed inside the writer (%d other failures)",
                 other_failures);
}

/* ---- fsync before and after the rename -------------------------------------------- */

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
    const char *dir = qr_test_tmp_dir("fsync");
    const char *path = qr_test_join(dir, "x.txt");
    qr_atomic_file af;
    qr_error err;
    nevents = 0;
    cr_assert_eq(qr_atomic_open(&af, path, &err), QR_OK, "%s", err.msg);
    fputs("data", af.fp);
    cr_assert_eq(qr_atomic_commit(&af, &err), QR_OK, "%s", err.msg);
    expect_events("sync", "rename", "syncdir");
    cr_expect(qr_test_holds(path, "data", 4));

    /* under no-clobber the temporary is linked into place, not renamed */
    nevents = 0;
    qr_atomic_set_no_clobber(1);
    const char *other = qr_test_join(dir, "y.txt");
    cr_assert_eq(qr_atomic_open(&af, other, &err), QR_OK, "%s", err.msg);
    fputs("more", af.fp);
    qr_status st = qr_atomic_commit(&af, &err);
    qr_atomic_set_no_clobber(0);
    cr_assert_eq(st, QR_OK, "%s", err.msg);
    expect_events("sync", "link", "syncdir");
    cr_expect(qr_test_holds(other, "more", 4));
    cli_expect_entries(dir, 2);
}
