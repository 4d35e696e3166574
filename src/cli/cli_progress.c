/* cli_progress.c — the progress bar of long commands (cli.h). */
#include "cli/cli.h"

#include <stdio.h>
#include <unistd.h>

#define BAR_WIDTH 30

void cli_progress_begin(cli_progress *p, const char *what, int64_t total)
{
    p->what = what;
    p->total = total > 0 ? total : 1;
    p->start_ms = cli_now_ms();
    p->drawn_ms = 0;
    p->shown = false;
    p->on = !cli_quiet() && isatty(STDERR_FILENO);
}

void cli_progress_step(cli_progress *p, int64_t done)
{
    if (!p->on)
        return;
    const double now = cli_now_ms(), elapsed = now - p->start_ms;
    /* short work never shows a bar; a shown one is redrawn at most 10 times a second */
    if (elapsed < 1000.0 || (p->shown && now - p->drawn_ms < 100.0 && done < p->total))
        return;
    const double f = (double)done / (double)p->total;
    const int full = (int)(f * BAR_WIDTH + 0.5);
    char bar[BAR_WIDTH + 1];
    for (int k = 0; k < BAR_WIDTH; k++)
        bar[k] = k < full ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    const double left_s = done > 0 ? elapsed * (double)(p->total - done) / (double)done / 1000.0 : 0;
    fprintf(stderr, "\r\033[Kquadrender: %s [%s] %lld/%lld, %.0f s left", p->what, bar,
            (long long)done, (long long)p->total, left_s);
    fflush(stderr);
    p->drawn_ms = now;
    p->shown = true;
}

void cli_progress_end(cli_progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->shown = false;
}
