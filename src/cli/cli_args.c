/* cli_args.c — the option parser, value setters, exit codes and the small
 * helpers every command shares (see cli.h). */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quadrender/image.h"
#include "quadrender/threads.h"

/* ---- exit codes -------------------------------------------------------------- */

int cli_exit_code(qr_status status, cli_phase phase)
{
    switch (status) {
    case QR_OK: return CLI_EXIT_OK;
    case QR_ERR_PARSE: return CLI_EXIT_INPUT;
    case QR_ERR_INVALID:
    case QR_ERR_IO:
        /* An unknown scene name or unreadable file is the input's fault; an
         * unwritable path the output's. */
        if (phase == CLI_PHASE_INPUT) return CLI_EXIT_INPUT;
        if (phase == CLI_PHASE_OUTPUT) return CLI_EXIT_OUTPUT;
        return CLI_EXIT_FAILURE;
    case QR_ERR_NOMEM:
    case QR_ERR_GPU_NOMEM: return CLI_EXIT_NOMEM;
    case QR_ERR_NO_GPU: return CLI_EXIT_NO_GPU;
    case QR_ERR_CUDA: return CLI_EXIT_CUDA;
    }
    return CLI_EXIT_FAILURE;
}

int cli_fail(const qr_error *err, cli_phase phase)
{
    fprintf(stderr, "quadrender: %s\n",
            err->msg[0] ? err->msg : qr_status_str(err->status));
    return cli_exit_code(err->status, phase);
}

int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("quadrender: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (cmd)
        fprintf(stderr, "\nTry 'quadrender %s --help'.\n", cmd->name);
    else
        fputs("\nTry 'quadrender --help'.\n", stderr);
    return CLI_EXIT_USAGE;
}

/* ---- value setters --------------------------------------------------------------- */

bool cli_parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    /* strtoull alone would accept " 12", "+12", "-1" (as a huge value) and
     * stop silently at "12abc": insist on digits only. */
    if (text[0] < '0' || text[0] > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || v > max)
        return false;
    *out = v;
    return true;
}

const char *cli_set_string(const char *text, void *dest)
{
    if (text[0] == '\0')
        return "a non-empty value";
    *(const char **)dest = text;
    return NULL;
}

const char *cli_set_dim(const char *text, void *dest)
{
    uint64_t v;
    if (!cli_parse_u64(text, QR_IMAGE_MAX_DIM, &v) || v == 0)
        return "an integer from 1 to 32768";
    *(int32_t *)dest = (int32_t)v;
    return NULL;
}

const char *cli_set_seed(const char *text, void *dest)
{
    uint64_t v;
    if (!cli_parse_u64(text, UINT32_MAX, &v))
        return "an integer from 0 to 4294967295";
    *(uint32_t *)dest = (uint32_t)v;
    return NULL;
}

const char *cli_set_frame(const char *text, void *dest)
{
    uint64_t v;
    if (!cli_parse_u64(text, CLI_MAX_FRAME, &v))
        return "a frame number from 0 to 2147483647";
    *(int64_t *)dest = (int64_t)v;
    return NULL;
}

const char *cli_set_frames(const char *text, void *dest)
{
    static const char expected[] = "A:B with frame numbers 0 <= A <= B <= 2147483647";
    const char *colon = strchr(text, ':');
    char first[32];
    size_t len = colon ? (size_t)(colon - text) : 0;
    if (!colon || len >= sizeof first)
        return expected;
    memcpy(first, text, len);
    first[len] = '\0';
    uint64_t a, b;
    if (!cli_parse_u64(first, CLI_MAX_FRAME, &a) || !cli_parse_u64(colon + 1, CLI_MAX_FRAME, &b) ||
        a > b)
        return expected;
    cli_range *r = dest;
    r->first = (int64_t)a;
    r->last = (int64_t)b;
    return NULL;
}

const char *cli_set_device(const char *text, void *dest)
{
    static const struct {
        const char *name;
        cli_device device;
    } names[] = {{"auto", CLI_DEVICE_AUTO},
                 {"gpu", CLI_DEVICE_GPU},
                 {"cpu", CLI_DEVICE_CPU},
                 {"cpu-reference", CLI_DEVICE_CPU_REFERENCE}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(text, names[i].name) == 0) {
            *(cli_device *)dest = names[i].device;
            return NULL;
        }
    }
    return "auto, gpu, cpu or cpu-reference";
}

const char *cli_set_threads(const char *text, void *dest)
{
    uint64_t v;
    if (!cli_parse_u64(text, QR_MAX_THREADS, &v))
        return "a thread count from 1 to 1024, or 0 for all cores";
    *(int *)dest = (int)v;
    return NULL;
}

/* The option every command takes (cli.h): applied as soon as it is parsed. */
static int threads_opt;
static cli_opt threads_cli_opt = {"--threads", NULL, "N", cli_set_threads, &threads_opt,
                                  "CPU threads of every parallel part (default 0: all cores)", 0};

/* ---- the parser ------------------------------------------------------------------- */

static bool is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

/* The option `arg` names (up to '=' for long forms), or NULL. */
static cli_opt *find_opt(cli_opt *opts, int nopts, const char *arg, size_t len)
{
    for (int i = 0; i < nopts; i++) {
        const char *names[2] = {opts[i].name, opts[i].alias};
        for (int k = 0; k < 2; k++)
            if (names[k] && strlen(names[k]) == len && strncmp(names[k], arg, len) == 0)
                return &opts[i];
    }
    return NULL;
}

int cli_parse(const cli_cmd *cmd, cli_opt *opts, int nopts, int argc, char **argv,
              char **pos, int max_pos, int *npos)
{
    *npos = 0;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        /* "-" alone is an argument (conventionally stdin/stdout), not an option */
        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            if (*npos >= max_pos)
                return cli_usage_error(cmd, "%s: unexpected argument '%s'", cmd->name, arg);
            pos[(*npos)++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = true;
            continue;
        }
        /* "--name=value" carries its value; short options never do */
        const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        /* messages name the option the way the user spelled it */
        char typed[64];
        snprintf(typed, sizeof typed, "%.*s", (int)len, arg);
        if (is_help(typed)) {
            if (eq)
                return cli_usage_error(cmd, "%s: takes no value", typed);
            cli_print_help(stdout, cmd, opts, nopts);
            return CLI_PARSE_HELP;
        }
        cli_opt *o = find_opt(opts, nopts, arg, len);
        if (!o) o = find_opt(&threads_cli_opt, 1, arg, len);
        if (!o)
            return cli_usage_error(cmd, "%s: unknown option '%s'", cmd->name, typed);
        if (!o->set) {
            if (eq)
                return cli_usage_error(cmd, "%s: takes no value", typed);
            *(int *)o->dest = 1;
            o->given++;
            continue;
        }
        const char *value;
        if (eq) {
            value = eq + 1;
        } else {
            /* the next word is the value even if it starts with '-', so that
             * "--seed -1" reports a bad seed, not a missing one */
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "%s: missing value", typed);
            value = argv[++i];
        }
        const char *expected = o->set(value, o->dest);
        if (expected)
            return cli_usage_error(cmd, "%s: expected %s, got '%s'", typed, expected, value);
        o->given++;
        if (o == &threads_cli_opt) qr_set_threads(threads_opt);
    }
    return CLI_PARSE_OK;
}

/* "-s, --size N" for the left column of --help. */
static void opt_label(const cli_opt *o, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
             o->metavar ? " " : "", o->metavar ? o->metavar : "");
}

void cli_print_help(FILE *out, const cli_cmd *cmd, const cli_opt *opts, int nopts)
{
    static const char help_label[] = "-h, --help";
    char label[128];
    int width = (int)strlen(help_label);
    for (int i = 0; i <= nopts; i++) {
        opt_label(i < nopts ? &opts[i] : &threads_cli_opt, label, sizeof label);
        if ((int)strlen(label) > width)
            width = (int)strlen(label);
    }
    fprintf(out, "Usage: quadrender %s%s%s\n\n%s\nOptions:\n", cmd->name, cmd->args[0] ? " " : "",
            cmd->args, cmd->about);
    for (int i = 0; i < nopts; i++) {
        opt_label(&opts[i], label, sizeof label);
        fprintf(out, "  %-*s  %s\n", width, label, opts[i].help);
    }
    opt_label(&threads_cli_opt, label, sizeof label);
    fprintf(out, "  %-*s  %s\n", width, label, threads_cli_opt.help);
    fprintf(out, "  %-*s  %s\n", width, help_label, "show this help and exit");
    if (cmd->notes)
        fprintf(out, "\n%s", cmd->notes);
}

/* ---- misc ---------------------------------------------------------------------------- */

double cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
