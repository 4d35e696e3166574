/* animate.c — stepping animated scenes on the host and seeking to a frame.
 *
 * The per-circle math lives in animate_step.h so that the GPU runs the very
 * same code; here we only loop over the circles. A seek runs each circle
 * through all its steps at once (qr_run_circle), the circles in parallel:
 * each circle's result is its own, whatever thread runs it.
 */
#include "scene/animate_step.h"
#include "scene/scene_seek.h"

#include "quadrender/scene.h"
#include "quadrender/threads.h"

static qr_step_arrays qr_step_arrays_of(qr_scene *s)
{
    qr_step_arrays a;
    a.x = s->x;
    a.y = s->y;
    a.z = s->z;
    a.r = s->r;
    a.vx = s->vx;
    a.vy = s->vy;
    a.x0 = s->x0;
    a.y0 = s->y0;
    a.vx0 = s->vx0;
    a.vy0 = s->vy0;
    return a;
}

void qr_scene_step(qr_scene *scene)
{
    /* Static scenes count steps too, so frame numbers mean the same thing
     * for every scene. */
    if (scene->anim != QR_ANIM_NONE) {
        qr_step_arrays a = qr_step_arrays_of(scene);
        for (int32_t i = 0; i < scene->n; ++i)
            qr_step_circle(scene->anim, a, i, scene->steps);
    }
    scene->steps++;
}

qr_status qr_seek_count(int64_t steps, int64_t frame, const char *name, int64_t *count,
                        qr_error *err)
{
    *count = 0;
    if (frame < 0 || frame == INT64_MAX)
        return qr_fail(err, QR_ERR_INVALID, "frame %lld is out of range", (long long)frame);
    int64_t target = frame + 1; /* frame k is rendered after k+1 steps */
    if (steps > target) {
        if (name)
            return qr_fail(err, QR_ERR_INVALID,
                           "cannot seek back to frame %lld: scene '%s' is already at frame %lld",
                           (long long)frame, name, (long long)(steps - 1));
        return qr_fail(err, QR_ERR_INVALID,
                       "cannot seek back to frame %lld: the scene is already at frame %lld",
                       (long long)frame, (long long)(steps - 1));
    }
    *count = target - steps;
    return QR_OK;
}

int64_t qr_seek_chunk(qr_anim anim, int32_t n, int64_t work)
{
    if (anim != QR_ANIM_SNOW)
        return INT64_MAX;
    int64_t c = work / (n > 0 ? n : 1);
    return c > 0 ? c : 1;
}

/* Circles per task of a seek. */
#define RUN_CIRCLES 1024

typedef struct run_pass {
    qr_step_arrays a;
    qr_anim anim;
    int32_t n;
    int64_t step, count;
} run_pass;

static void run_task(void *ctx, int task)
{
    const run_pass *rp = ctx;
    const int32_t i0 = (int32_t)task * RUN_CIRCLES;
    const int32_t i1 = rp->n - i0 < RUN_CIRCLES ? rp->n : i0 + RUN_CIRCLES;
    for (int32_t i = i0; i < i1; i++)
        qr_run_circle(rp->anim, rp->a, i, rp->step, rp->count);
}

qr_status qr_scene_seek_frame_progress(qr_scene *scene, int64_t frame, qr_progress_fn progress,
                                       void *ctx, qr_error *err)
{
    int64_t count;
    qr_status st = qr_seek_count(scene->steps, frame, scene->name, &count, err);
    if (st != QR_OK)
        return st;
    if (scene->anim == QR_ANIM_NONE || scene->n <= 0) {
        scene->steps += count; /* nothing moves: only count the steps */
        return QR_OK;
    }
    const int64_t chunk = qr_seek_chunk(scene->anim, scene->n, QR_SEEK_HOST_WORK);
    run_pass rp;
    rp.a = qr_step_arrays_of(scene);
    rp.anim = scene->anim;
    rp.n = scene->n;
    const int tasks = (int)((scene->n + (RUN_CIRCLES - 1)) / RUN_CIRCLES);
    for (int64_t done = 0; done < count;) {
        rp.step = scene->steps;
        rp.count = count - done < chunk ? count - done : chunk;
        /* a thread that cannot start leaves its tasks to this one: same result */
        (void)qr_parallel_for(tasks, 0, run_task, &rp);
        scene->steps += rp.count;
        done += rp.count;
        if (progress && chunk < count)
            progress(ctx, done, count);
    }
    return QR_OK;
}

qr_status qr_scene_seek_frame(qr_scene *scene, int64_t frame, qr_error *err)
{
    return qr_scene_seek_frame_progress(scene, frame, NULL, NULL, err);
}
