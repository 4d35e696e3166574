/* cli_run.c — see cli_run.h. */
#include "cli_run.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "files.h"

qr_cli_result R;

void qr_cli_result_free(qr_cli_result *res)
{
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
    res->out_len = res->err_len = 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The capture file for `what` (stdout, stderr, stdin). Own buffers, not
 * qr_test_tmp's: its few rotating ones hold the caller's paths, which must
 * survive any number of runs. */
static void capture_path(char *buf, size_t size, const char *what)
{
    const char *tmp = getenv("QR_TMP") ? getenv("QR_TMP") : "/tmp";
    snprintf(buf, size, "%s/%d-%s.txt", tmp, (int)getpid(), what);
}

/* In the child: the descriptors, identity and limits opts asks for, then
 * the program. Only async-signal-safe calls from here on. */
static void become_cli(const qr_cli_opts *opts, const char *in_path, const char *out_path,
                       const char *err_path, const char *cli, const char **argv)
{
    int fi = open(opts->stdin_data ? in_path : "/dev/null", O_RDONLY);
    int fo = opts->stdout_to
                 ? open(opts->stdout_to, O_WRONLY | (opts->stdout_append ? O_APPEND : O_TRUNC))
                 : open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fi < 0 || fo < 0 || fe < 0 || dup2(fi, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
        _exit(126);
    if (opts->pass_fd_as > 2 && dup2(opts->pass_fd, opts->pass_fd_as) < 0)
        _exit(126);
    if (opts->cwd && chdir(opts->cwd) != 0)
        _exit(126);
    if (opts->set_ids && (setgid(opts->gid) != 0 || setuid(opts->uid) != 0))
        _exit(QR_CLI_EXIT_NO_IDS);
    const struct rlimit fs = {(rlim_t)opts->file_size, (rlim_t)opts->file_size};
    if (opts->file_size && (signal(SIGXFSZ, SIG_IGN) == SIG_ERR || setrlimit(RLIMIT_FSIZE, &fs) != 0))
        _exit(126);
    const struct rlimit rl = {(rlim_t)opts->address_space, (rlim_t)opts->address_space};
    if (opts->address_space && setrlimit(RLIMIT_AS, &rl) != 0)
        _exit(126);
    execv(cli, (char *const *)argv);
    _exit(127);
}

qr_cli_proc qr_cli_start(const qr_cli_opts *opts, const char *const *args)
{
    const qr_cli_opts none = {0};
    if (!opts)
        opts = &none;
    const char *cli = opts->program ? opts->program : getenv("QR_CLI");
    cr_assert(cli, "QR_CLI is not set (run the tests through ctest)");
    char out_path[1024], err_path[1024], in_path[1024];
    capture_path(out_path, sizeof out_path, "stdout");
    capture_path(err_path, sizeof err_path, "stderr");
    capture_path(in_path, sizeof in_path, "stdin");
    if (opts->stdin_data)
        qr_test_write_file(in_path, opts->stdin_data, opts->stdin_len);

    const char *argv[64];
    int argc = 0;
    argv[argc++] = cli;
    for (int i = 0; args[i]; i++) {
        cr_assert(argc < 62, "too many arguments");
        argv[argc++] = args[i];
    }
    argv[argc] = NULL;

    qr_cli_proc p = {0};
    p.timeout_s = opts->timeout_s > 0 ? opts->timeout_s : QR_CLI_TIMEOUT_S;
    p.stdout_captured = !opts->stdout_to;
    snprintf(p.what, sizeof p.what, "%s", args[0] ? args[0] : "");
    fflush(NULL);
    p.deadline = now_s() + p.timeout_s;
    p.pid = fork();
    cr_assert(p.pid >= 0, "fork: %s", strerror(errno));
    if (p.pid == 0)
        become_cli(opts, in_path, out_path, err_path, cli, argv);
    return p;
}

bool qr_cli_poll(qr_cli_proc *p, qr_cli_result *res)
{
    cr_assert(p->pid > 0, "the run has already ended");
    int status;
    pid_t got = waitpid(p->pid, &status, WNOHANG);
    if (got == 0) {
        if (now_s() <= p->deadline)
            return false;
        kill(p->pid, SIGKILL);
        waitpid(p->pid, &status, 0);
        p->pid = 0;
        cr_assert_fail("%s %s: still running after %.0f s, killed", getenv("QR_CLI"), p->what,
                       p->timeout_s);
    }
    cr_assert(got == p->pid, "waitpid: %s", strerror(errno));
    p->pid = 0;
    qr_cli_result_free(res);
    res->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    char path[1024];
    if (p->stdout_captured) {
        capture_path(path, sizeof path, "stdout");
        res->out = qr_test_read_file(path, &res->out_len);
    } else {
        res->out = calloc(1, 1);
        cr_assert_not_null(res->out);
    }
    capture_path(path, sizeof path, "stderr");
    res->err = qr_test_read_file(path, &res->err_len);
    return true;
}

int qr_cli_wait(qr_cli_proc *p, qr_cli_result *res)
{
    while (!qr_cli_poll(p, res)) {
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    return res->code;
}

int qr_cli_run(const qr_cli_opts *opts, const char *const *args, qr_cli_result *res)
{
    qr_cli_proc p = qr_cli_start(opts, args);
    return qr_cli_wait(&p, res);
}
