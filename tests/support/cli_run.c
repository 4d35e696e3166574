/* cli_run.c — see cli_run.h. */
#include "cli_run.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int qr_cli_run(const qr_cli_opts *opts, const char *const *args, qr_cli_result *res)
{
    const qr_cli_opts none = {0};
    if (!opts)
        opts = &none;
    const char *cli = getenv("QR_CLI");
    cr_assert(cli, "QR_CLI is not set (run the tests through ctest)");
    /* own buffers, not qr_test_tmp's: its few rotating ones hold the
     * caller's paths, which must survive any number of runs */
    const char *tmp = getenv("QR_TMP") ? getenv("QR_TMP") : "/tmp";
    char out_path[1024], err_path[1024], in_path[1024];
    snprintf(out_path, sizeof out_path, "%s/%d-stdout.txt", tmp, (int)getpid());
    snprintf(err_path, sizeof err_path, "%s/%d-stderr.txt", tmp, (int)getpid());
    snprintf(in_path, sizeof in_path, "%s/%d-stdin.txt", tmp, (int)getpid());
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

    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int fi = open(opts->stdin_data ? in_path : "/dev/null", O_RDONLY);
        int fo = opts->stdout_to ? open(opts->stdout_to, O_WRONLY)
                                 : open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fi < 0 || fo < 0 || fe < 0 || dup2(fi, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        if (opts->cwd && chdir(opts->cwd) != 0)
            _exit(126);
        execv(cli, (char *const *)argv);
        _exit(127);
    }
    const double limit = opts->timeout_s > 0 ? opts->timeout_s : QR_CLI_TIMEOUT_S;
    const double deadline = now_s() + limit;
    int status;
    pid_t got;
    while ((got = waitpid(pid, &status, WNOHANG)) == 0) {
        if (now_s() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            cr_assert_fail("%s %s: still running after %.0f s, killed", cli,
                           args[0] ? args[0] : "", limit);
        }
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    cr_assert(got == pid, "waitpid: %s", strerror(errno));
    res->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    qr_cli_result_free(res);
    if (opts->stdout_to) {
        res->out = calloc(1, 1);
        cr_assert_not_null(res->out);
    } else {
        res->out = qr_test_read_file(out_path, &res->out_len);
    }
    res->err = qr_test_read_file(err_path, &res->err_len);
    return res->code;
}
