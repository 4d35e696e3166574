/* cli_seek.c — seeking to a frame with progress on a terminal (see cli.h). */
#include "cli/cli.h"

#include <unistd.h>

/* One line, rewritten in place; erased once the seek is done, so that the
 * messages after it start on a clean line. */
void cli_seek_show(void *ctx, int64_t done, int64_t total)
{
    cli_seek_display *p = ctx;
    const int pct = total > 0 ? (int)((double)done * 100.0 / (double)total) : 100;
    if (done >= total) {
        if (p->shown >= 0) fputs("\r\033[K", stderr);
        return;
    }
    if (pct == p->shown) return;
    p->shown = pct;
    fprintf(stderr, "\rquadrender: seeking frame %lld: %d%%", (long long)p->frame, pct);
    fflush(stderr);
}

qr_status cli_seek(qr_scene *scene, qr_gpu_scene *gs, int64_t frame, qr_error *err)
{
    cli_seek_display p = {frame, -1};
    const qr_progress_fn fn = isatty(STDERR_FILENO) ? cli_seek_show : NULL;
    if (gs) return qr_gpu_scene_seek_frame_progress(gs, frame, fn, &p, err);
    return qr_scene_seek_frame_progress(scene, frame, fn, &p, err);
}
