/* animate.c — stepping animated scenes on the host and seeking to a frame.
 *
 * The per-circle math lives in animate_step.h so that the GPU step runs the
 * very same code; here we only loop over the circles.
 */
#include "animate_step.h"
#include "scene_seek.h"

#include "quadrender/scene.h"

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

qr_status qr_seek_frame_by_steps(int64_t *steps, qr_anim anim, int64_t frame, const char *name,
                                 qr_step_fn step, void *scene, qr_error *err)
{
    if (frame < 0 || frame == INT64_MAX)
        return qr_fail(err, QR_ERR_INVALID, "frame %lld is out of range", (long long)frame);
    int64_t target = frame + 1; /* frame k is rendered after k+1 steps */
    if (*steps > target) {
        if (name)
            return qr_fail(err, QR_ERR_INVALID,
                           "cannot seek back to frame %lld: scene '%s' is already at frame %lld",
                           (long long)frame, name, (long long)(*steps - 1));
        return qr_fail(err, QR_ERR_INVALID,
                       "cannot seek back to frame %lld: the scene is already at frame %lld",
                       (long long)frame, (long long)(*steps - 1));
    }
    if (anim == QR_ANIM_NONE) {
        *steps = target; /* nothing moves: skip the empty steps */
        return QR_OK;
    }
    while (*steps < target) {
        qr_status st = step(scene, err);
        if (st != QR_OK)
            return st;
    }
    return QR_OK;
}

static qr_status host_step(void *scene, qr_error *err)
{
    (void)err;
    qr_scene_step(scene);
    return QR_OK;
}

qr_status qr_scene_seek_frame(qr_scene *scene, int64_t frame, qr_error *err)
{
    return qr_seek_frame_by_steps(&scene->steps, scene->anim, frame, scene->name, host_step, scene,
                                  err);
}
