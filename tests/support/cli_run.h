/* cli_run.h — runs the real `quadrender` binary as a user does.
 *
 * qr_cli_run spawns $QR_CLI (set by CTest) with the given arguments in a
 * child process, feeds it stdin (or /dev/null), captures its stdout and
 * stderr through files under $QR_TMP, and waits for it, killing it and
 * failing the test past the time limit. Exit status is the child's, or
 * 128 + the signal that ended it. RUN and RUN_IN keep the last run in R.
 *
 * A test that acts on the child while it runs (signals it, reads a pipe
 * it writes) splits the run: qr_cli_start, then qr_cli_poll or
 * qr_cli_wait. One run at a time per test process: the capture files are
 * named after the test's process id. */
#ifndef QR_TEST_CLI_RUN_H
#define QR_TEST_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct qr_cli_result {
    int code;         /* exit status, or 128 + signal */
    char *out, *err;  /* what it wrote, NUL-terminated ("" for stdout when redirected) */
    size_t out_len, err_len;
} qr_cli_result;

typedef struct qr_cli_opts {
    const char *program;    /* the binary to run; NULL: $QR_CLI */
    const char *cwd;        /* working directory; NULL: the test's */
    const char *stdin_data; /* its standard input; NULL: /dev/null */
    size_t stdin_len;
    const char *stdout_to;  /* an existing file stdout is written to instead of captured,
                               truncated as a shell's > does */
    bool stdout_append;     /* open stdout_to as a shell's >> does instead */
    int pass_fd, pass_fd_as; /* pass_fd_as > 2: this process's descriptor pass_fd
                                becomes the child's descriptor pass_fd_as */
    bool set_ids;           /* the child takes uid and gid before it starts, and
                               exits QR_CLI_EXIT_NO_IDS if it cannot */
    uid_t uid;
    gid_t gid;
    size_t file_size;       /* a limit on the size of any file the child writes
                               (RLIMIT_FSIZE, SIGXFSZ ignored: a write past it fails
                               with EFBIG, as on a full disk); 0: none */
    size_t address_space;   /* a limit on the child's address space (RLIMIT_AS),
                               in bytes; 0: none */
    double timeout_s;       /* 0: QR_CLI_TIMEOUT_S */
} qr_cli_opts;

#define QR_CLI_TIMEOUT_S 300.0

/* The exit status of a child that could not take opts->uid and opts->gid. */
#define QR_CLI_EXIT_NO_IDS 125

/* A started run. */
typedef struct qr_cli_proc {
    pid_t pid;
    double deadline;       /* monotonic seconds; past it the child is killed */
    double timeout_s;
    bool stdout_captured;
    char what[32];         /* its first argument, for messages */
} qr_cli_proc;

/* Starts $QR_CLI args... (args NULL-terminated, at most 60) with opts
 * (NULL: all defaults); the time limit counts from here. */
qr_cli_proc qr_cli_start(const qr_cli_opts *opts, const char *const *args);

/* Whether the run has ended; if so, fills *res (as qr_cli_run does) and
 * the run is over. Kills it and fails the test past the time limit. */
bool qr_cli_poll(qr_cli_proc *p, qr_cli_result *res);

/* Waits for the run to end, fills *res, and returns res->code. */
int qr_cli_wait(qr_cli_proc *p, qr_cli_result *res);

/* Runs $QR_CLI args... (args NULL-terminated, at most 60) with opts (NULL:
 * all defaults) into *res, freeing what *res held (start from a zeroed
 * result); returns res->code. */
int qr_cli_run(const qr_cli_opts *opts, const char *const *args, qr_cli_result *res);

void qr_cli_result_free(qr_cli_result *res);

/* The last run of RUN / RUN_IN. */
extern qr_cli_result R;

/* A NULL-terminated argument list, as qr_cli_run and qr_cli_start take. */
#define QR_ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

#define RUN(...) qr_cli_run(NULL, QR_ARGS(__VA_ARGS__), &R)
#define RUN_IN(dir, ...) qr_cli_run(&(qr_cli_opts){.cwd = (dir)}, QR_ARGS(__VA_ARGS__), &R)

#endif
