/* cli_run.h — runs the real `quadrender` binary as a user does.
 *
 * qr_cli_run spawns $QR_CLI (set by CTest) with the given arguments in a
 * child process, feeds it stdin (or /dev/null), captures its stdout and
 * stderr through files under $QR_TMP, and waits for it, killing it and
 * failing the test past the time limit. Exit status is the child's, or
 * 128 + the signal that ended it. RUN and RUN_IN keep the last run in R. */
#ifndef QR_TEST_CLI_RUN_H
#define QR_TEST_CLI_RUN_H

#include <stddef.h>

typedef struct qr_cli_result {
    int code;         /* exit status, or 128 + signal */
    char *out, *err;  /* what it wrote, NUL-terminated ("" for stdout when redirected) */
    size_t out_len, err_len;
} qr_cli_result;

typedef struct qr_cli_opts {
    const char *cwd;        /* working directory; NULL: the test's */
    const char *stdin_data; /* its standard input; NULL: /dev/null */
    size_t stdin_len;
    const char *stdout_to;  /* an existing file stdout is written to instead of captured */
    double timeout_s;       /* 0: QR_CLI_TIMEOUT_S */
} qr_cli_opts;

#define QR_CLI_TIMEOUT_S 300.0

/* Runs $QR_CLI args... (args NULL-terminated, at most 60) with opts (NULL:
 * all defaults) into *res, freeing what *res held (start from a zeroed
 * result); returns res->code. */
int qr_cli_run(const qr_cli_opts *opts, const char *const *args, qr_cli_result *res);

void qr_cli_result_free(qr_cli_result *res);

/* The last run of RUN / RUN_IN. */
extern qr_cli_result R;

#define RUN(...) qr_cli_run(NULL, (const char *const[]){__VA_ARGS__, NULL}, &R)
#define RUN_IN(dir, ...) \
    qr_cli_run(&(qr_cli_opts){.cwd = (dir)}, (const char *const[]){__VA_ARGS__, NULL}, &R)

#endif
