/* cli_args.c — the option parser, value setters, exit codes and the small
 * helpers every command shares (see cli.h). */
#include "cli/cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quadrender/text.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/job.h"
#include "quadrender/memory.h"
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
    case QR_ERR_CANCELLED: return CLI_EXIT_FAILURE; /* never from the CLI itself */
    }
    return CLI_EXIT_FAILURE;
}

/* ---- messages ------------------------------------------------------------------ */

/* Room for a message of a few paths (each up to PATH_MAX), escaped. */
#define CLI_MSG_MAX 16384

const char *cli_esc(const char *s, char *buf, size_t size)
{
    qr_escape_terminal(buf, size, s);
    return buf;
}

/* What this thread's messages say after "quadrender: " (a rank or a GPU
 * of a split render), or "". */
static _Thread_local const char *message_tag = "";

void cli_set_message_tag(const char *tag)
{
    message_tag = tag ? tag : "";
}

/* "quadrender: ", the tag and the formatted message, escaped, and `end`,
 * in one write: the lanes of a split render print from several threads. */
static void vmessage(const char *end, const char *fmt, va_list ap)
{
    static _Thread_local char raw[CLI_MSG_MAX], esc[CLI_MSG_MAX];
    vsnprintf(raw, sizeof raw, fmt, ap);
    qr_escape_terminal(esc, sizeof esc, raw);
    fprintf(stderr, "quadrender: %s%s%s", message_tag, esc, end);
}

void cli_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("\n", fmt, ap);
    va_end(ap);
}

int cli_fail(const qr_error *err, cli_phase phase)
{
    cli_message("%s", err->msg[0] ? err->msg : qr_status_str(err->status));
    return cli_exit_code(err->status, phase);
}

int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("", fmt, ap);
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
    return qr_text_parse_u64(text, max, out) != 0;
}

/* The option cli_parse is setting, as typed, and the message of a setter
 * the library checked (cli_checked). */
static _Thread_local const char *setting = "";
static _Thread_local char checked_msg[QR_ERROR_MSG_MAX];

const char *cli_setting(void)
{
    return setting;
}

const char *cli_checked(qr_status status, const qr_error *err)
{
    if (status == QR_OK)
        return NULL;
    snprintf(checked_msg, sizeof checked_msg, "%s", err->msg);
    return checked_msg;
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
    qr_error err;
    return cli_checked(qr_image_check_side(setting, text, dest, &err), &err);
}

const char *cli_set_bytes(const char *text, void *dest)
{
    static const char suffixes[] = "KMGT";
    const char *bad = "a size in bytes, e.g. 8G, 512M or 1073741824 (K, M, G, T: powers of 1024)";
    size_t len = strlen(text);
    int shift = 0;
    char digits[32];
    if (len == 0 || len >= sizeof digits) return bad;
    memcpy(digits, text, len + 1);
    const char *at = strchr(suffixes, digits[len - 1]);
    if (at && digits[len - 1]) {
        shift = 10 * (int)(at - suffixes + 1);
        digits[--len] = '\0';
    }
    uint64_t v;
    if (len == 0 || !cli_parse_u64(digits, UINT64_MAX >> shift, &v) || v == 0) return bad;
    v <<= shift;
    if (v > SIZE_MAX) return bad;
    *(size_t *)dest = (size_t)v;
    return NULL;
}

const char *cli_set_seed(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_scene_check_seed(setting, text, dest, &err), &err);
}

const char *cli_set_frame(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_scene_check_frame(setting, text, dest, &err), &err);
}

const char *cli_set_frames(const char *text, void *dest)
{
    cli_range *r = dest;
    qr_error err;
    return cli_checked(qr_job_check_frames(setting, text, &r->first, &r->last, &err), &err);
}

const char *cli_set_device(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_job_check_device(setting, text, dest, &err), &err);
}

const char *cli_set_png_level(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_image_check_png_level(setting, text, dest, &err), &err);
}

const char *cli_set_deflate(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_image_check_png_deflate(setting, text, dest, &err), &err);
}

const char *cli_set_threads(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_threads_check(setting, text, dest, &err), &err);
}

const char *cli_set_chunk(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_job_check_chunk(setting, text, (int32_t *)dest, &err), &err);
}

const char *cli_set_plan(const char *text, void *dest)
{
    qr_error err;
    int32_t v = 0;
    const char *bad = cli_checked(qr_index_check_plan(setting, text, &v, &err), &err);
    if (!bad) *(int *)dest = (int)v;
    return bad;
}

const char *cli_set_gpu_device(const char *text, void *dest)
{
    uint64_t v;
    if (!cli_parse_u64(text, 1023, &v))
        return "a CUDA device number from 0 to 1023";
    *(int *)dest = (int)v;
    return NULL;
}

/* The options every command takes (cli.h), applied as soon as parsed. */
static int threads_opt, gpu_device_opt, verbose_opt, quiet_opt;
static size_t memory_opt;
enum { COMMON_THREADS, COMMON_GPU_DEVICE, COMMON_MEMORY, COMMON_VERBOSE, COMMON_QUIET, COMMON_NOPTS };
static cli_opt common_opts[COMMON_NOPTS] = {
    [COMMON_THREADS] = {"--threads", NULL, "N", cli_set_threads, &threads_opt,
                        "CPU threads of every parallel part (default 0: all cores)", 0},
    [COMMON_GPU_DEVICE] = {"--gpu-device", NULL, "N", cli_set_gpu_device, &gpu_device_opt,
                           "the CUDA device to run on, 0, 1, ... as CUDA numbers them (default 0)", 0},
    [COMMON_MEMORY] = {"--memory", NULL, "SIZE", cli_set_bytes, &memory_opt,
                       "host memory the command may use, e.g. 8G: bands get smaller, and what "
                       "cannot fit is refused (exit 6) (default: what the machine has)", 0},
    [COMMON_VERBOSE] = {"--verbose", "-v", NULL, NULL, &verbose_opt,
                        "say more on stderr: the settings in effect and per-stage times", 0},
    [COMMON_QUIET] = {"--quiet", "-q", NULL, NULL, &quiet_opt,
                      "say nothing on stderr but errors (no progress, no timings)", 0},
};

bool cli_verbose(void)
{
    return verbose_opt != 0 && quiet_opt == 0;
}

bool cli_quiet(void)
{
    return quiet_opt != 0;
}

void cli_info(const char *fmt, ...)
{
    if (quiet_opt)
        return;
    va_list ap;
    va_start(ap, fmt);
    vmessage("\n", fmt, ap);
    va_end(ap);
}

/* ---- the parser ------------------------------------------------------------------- */

/* The option named exactly name[0..len-1] ("--width", "-s"), or NULL. */
static cli_opt *find_opt(cli_opt *opts, int nopts, const char *name, size_t len)
{
    for (int i = 0; i < nopts; i++) {
        const char *names[2] = {opts[i].name, opts[i].alias};
        for (int k = 0; k < 2; k++)
            if (names[k] && strlen(names[k]) == len && strncmp(names[k], name, len) == 0)
                return &opts[i];
    }
    return NULL;
}

static cli_opt *find_any(cli_opt *opts, int nopts, const char *name, size_t len)
{
    cli_opt *o = find_opt(opts, nopts, name, len);
    return o ? o : find_opt(common_opts, COMMON_NOPTS, name, len);
}

/* "unknown option", with the nearest of the command's and the common
 * options' names when the typed one looks like a typo of it. */
static int unknown_option(const cli_cmd *cmd, const cli_opt *opts, int nopts, const char *typed)
{
    const char *names[128];
    int n = 0;
    for (int k = 0; k < nopts && n < 128; k++) names[n++] = opts[k].name;
    for (int k = 0; k < COMMON_NOPTS && n < 128; k++) names[n++] = common_opts[k].name;
    const char *near = qr_text_nearest(typed, names, n);
    if (near)
        return cli_usage_error(cmd, "%s: unknown option '%s': did you mean '%s'?", cmd->name,
                               typed, near);
    return cli_usage_error(cmd, "%s: unknown option '%s'", cmd->name, typed);
}

/* Gives option o its value (NULL for a flag); `typed` is how the user
 * spelled it. Returns CLI_PARSE_OK or the usage error's exit code. */
static int apply_opt(const cli_cmd *cmd, cli_opt *o, const char *typed, const char *value)
{
    if (!o->set) {
        *(int *)o->dest = 1;
        o->given++;
        return CLI_PARSE_OK;
    }
    setting = typed;
    const char *expected = o->set(value, o->dest);
    if (expected == checked_msg)
        return cli_usage_error(cmd, "%s", checked_msg);
    if (expected) {
        qr_error err;
        qr_text_refuse(typed, value, expected, &err);
        return cli_usage_error(cmd, "%s", err.msg);
    }
    o->given++;
    if (o == &common_opts[COMMON_THREADS])
        qr_set_threads(threads_opt);
    if (o == &common_opts[COMMON_GPU_DEVICE])
        qr_gpu_select(gpu_device_opt, NULL);
    if (o == &common_opts[COMMON_MEMORY])
        qr_host_memory_set_budget(memory_opt);
    return CLI_PARSE_OK;
}

/* One word of short options, getopt's way: "-n", "-nv" (flags in a
 * cluster), "-s16" (the rest of the word is the value) or "-s" (the value
 * is the next word). *i is the word's index, advanced past a value taken. */
static int parse_short(const cli_cmd *cmd, cli_opt *opts, int nopts, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    for (const char *c = arg + 1; *c; c++) {
        char typed[3] = {'-', *c, '\0'};
        if (!strcmp(typed, "-h")) {
            cli_print_help(stdout, cmd, opts, nopts);
            return CLI_PARSE_HELP;
        }
        cli_opt *o = find_any(opts, nopts, typed, 2);
        if (!o) {
            /* name the option; the whole word too when it is a cluster */
            if (c == arg + 1 && c[1] == '\0')
                return cli_usage_error(cmd, "%s: unknown option '%s'", cmd->name, typed);
            return cli_usage_error(cmd, "%s: unknown option '%s' in '%s'", cmd->name, typed, arg);
        }
        if (!o->set) {
            apply_opt(cmd, o, typed, NULL);
            continue;
        }
        if (c[1] == '=')
            /* getopt would take "=16" as the value: say what is meant */
            return cli_usage_error(cmd,
                                   "%s: a short option takes its value as %s16 or '%s 16' (no "
                                   "'='); the long form takes %s=16",
                                   arg, typed, typed, o->name);
        if (c[1])
            return apply_opt(cmd, o, typed, c + 1);
        if (*i + 1 >= argc)
            return cli_usage_error(cmd, "%s: missing value", typed);
        return apply_opt(cmd, o, typed, argv[++*i]);
    }
    return CLI_PARSE_OK;
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
        int rc;
        if (arg[1] != '-') {
            if ((rc = parse_short(cmd, opts, nopts, argc, argv, &i)) != CLI_PARSE_OK)
                return rc;
            continue;
        }
        /* "--name=value" carries its value */
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        /* messages name the option the way the user spelled it */
        char typed[64];
        snprintf(typed, sizeof typed, "%.*s", (int)len, arg);
        if (!strcmp(typed, "--help")) {
            if (eq)
                return cli_usage_error(cmd, "%s: takes no value", typed);
            cli_print_help(stdout, cmd, opts, nopts);
            return CLI_PARSE_HELP;
        }
        cli_opt *o = find_any(opts, nopts, arg, len);
        if (!o)
            return unknown_option(cmd, opts, nopts, typed);
        if (!o->set && eq)
            return cli_usage_error(cmd, "%s: takes no value", typed);
        const char *value = NULL;
        if (eq) {
            value = eq + 1;
        } else if (o->set) {
            /* the next word is the value even if it starts with '-', so that
             * "--seed -1" reports a bad seed, not a missing one */
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "%s: missing value", typed);
            value = argv[++i];
        }
        if ((rc = apply_opt(cmd, o, typed, value)) != CLI_PARSE_OK)
            return rc;
    }
    return CLI_PARSE_OK;
}

/* "-s, --size N" for the left column of --help; options without a short
 * form line up under the long forms. */
static void opt_label(const cli_opt *o, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "    ", o->name,
             o->metavar ? " " : "");
    if (o->metavar)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s", o->metavar);
}

void cli_print_help(FILE *out, const cli_cmd *cmd, const cli_opt *opts, int nopts)
{
    static const char help_label[] = "-h, --help";
    char label[128];
    int width = (int)strlen(help_label);
    for (int i = 0; i < nopts + COMMON_NOPTS; i++) {
        opt_label(i < nopts ? &opts[i] : &common_opts[i - nopts], label, sizeof label);
        if ((int)strlen(label) > width)
            width = (int)strlen(label);
    }
    fprintf(out, "Usage: quadrender %s%s%s\n\n%s\nOptions:\n", cmd->name, cmd->args[0] ? " " : "",
            cmd->args, cmd->about);
    for (int i = 0; i < nopts + COMMON_NOPTS; i++) {
        const cli_opt *o = i < nopts ? &opts[i] : &common_opts[i - nopts];
        opt_label(o, label, sizeof label);
        fprintf(out, "  %-*s  %s\n", width, label, o->help);
    }
    fprintf(out, "  %-*s  %s\n", width, help_label, "show this help and exit");
    fputs("\nOptions follow getopt_long's conventions: --name VALUE or --name=VALUE,\n"
          "-s VALUE or -s16, flags grouped (-nv); '--' ends the options.\n",
          out);
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
