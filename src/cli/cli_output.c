/* cli_output.c — where output goes: the early output checks, the names of
 * --frames files, and the signal handlers that remove temporary files
 * (see cli.h). How a file is written lives in the library (quadrender/file.h). */
#include "cli/cli.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "quadrender/file.h"

/* ---- early checks -------------------------------------------------------------- */

bool cli_ends_with(const char *path, const char *ending)
{
    size_t n = strlen(path), m = strlen(ending);
    return n >= m && !strcmp(path + n - m, ending);
}

int cli_check_output_path(const char *path)
{
    qr_error err;
    if (qr_file_check(path, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_OUTPUT);
    return CLI_EXIT_OK;
}

void cli_set_no_clobber(bool on)
{
    qr_file_set_no_clobber(on);
}

bool cli_output_is_stream(const char *path)
{
    return qr_file_is_direct(path) != 0;
}

/* ---- frame names ------------------------------------------------------------------ */

static int decimal_digits(int64_t v)
{
    int n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Copies src[0..n) into dst, turning "%%" into "%"; answers false on any
 * other '%'. */
static bool unescape(char *dst, size_t size, const char *src, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (src[i] == '%') {
            if (i + 1 >= n || src[i + 1] != '%')
                return false;
            i++;
        }
        if (o + 1 >= size)
            return false;
        dst[o++] = src[i];
    }
    dst[o] = '\0';
    return true;
}

const char *cli_frame_names_init(cli_frame_names *fn, const char *out, const cli_range *frames,
                                 bool user_pattern)
{
    static const char expected[] =
        "at most one %d or %0Nd (N from 1 to 18) for the frame number, and %% for a '%'";
    fn->one = !frames || cli_output_is_stream(out);
    if (fn->one) {
        snprintf(fn->prefix, sizeof fn->prefix, "%s", out);
        fn->suffix[0] = '\0';
        fn->width = -1;
        return NULL;
    }
    const char *pct = NULL;
    for (const char *p = user_pattern ? strchr(out, '%') : NULL; p; p = strchr(p + 2, '%')) {
        if (p[1] == '%')
            continue;
        pct = p;
        break;
    }
    if (pct) {
        /* a pattern: PREFIX %d or %0Nd SUFFIX */
        const char *conv = pct + 1;
        int width = 0;
        if (conv[0] == '0') {
            conv++;
            while (*conv >= '0' && *conv <= '9' && width <= 18)
                width = width * 10 + (*conv++ - '0');
            if (width < 1 || width > 18)
                return expected;
        }
        if (*conv != 'd')
            return expected;
        if (!unescape(fn->prefix, sizeof fn->prefix, out, (size_t)(pct - out)) ||
            !unescape(fn->suffix, sizeof fn->suffix, conv + 1, strlen(conv + 1)))
            return expected;
        fn->width = width;
        return NULL;
    }
    /* NAME.EXT -> NAME_%0Dd.EXT, D digits for the last frame, at least 4, so
     * that the names of a run sort in frame order */
    char name[sizeof fn->prefix];
    if (!user_pattern)
        snprintf(name, sizeof name, "%s", out);
    else if (!unescape(name, sizeof name, out, strlen(out)))
        return expected;
    const char *base = strrchr(name, '/');
    const char *dot = strrchr(base ? base + 1 : name, '.');
    size_t stem = dot ? (size_t)(dot - name) : strlen(name);
    snprintf(fn->prefix, sizeof fn->prefix, "%.*s_", (int)stem, name);
    snprintf(fn->suffix, sizeof fn->suffix, "%s", dot ? dot : "");
    int digits = decimal_digits(frames->last);
    fn->width = digits > 4 ? digits : 4;
    return NULL;
}

void cli_frame_name(const cli_frame_names *fn, int64_t frame, char *buf, size_t size)
{
    if (fn->one)
        snprintf(buf, size, "%s", fn->prefix);
    else
        snprintf(buf, size, "%s%0*lld%s", fn->prefix, fn->width, (long long)frame, fn->suffix);
}

/* ---- signals ------------------------------------------------------------------------- */

static void on_termination_signal(int sig)
{
    qr_file_remove_temps();
    /* SA_RESETHAND has restored the default action: raised again (and
     * delivered once this handler returns), the signal ends the process as
     * it would have without us, so a shell sees 128 + sig (130, 143, 129) */
    raise(sig);
}

void cli_install_signal_handlers(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    /* output into a pipe whose reader has gone (`-o - | head -c 10`) fails
     * as a write (EPIPE: exit 4, saying so) instead of killing the process
     * silently with SIGPIPE */
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);
    sa.sa_handler = on_termination_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* a signal the parent ignores (nohup, a background job) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}
