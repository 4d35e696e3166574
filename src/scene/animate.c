/* animate.c — stepping animated scenes on the host and seeking to a frame.
 *
 * The per-circle math lives in animate_step.h so that the GPU step runs the
 * very same code; here we only loop over the circles.
 */
#include "animate_step.h"

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

qr_status qr_scene_seek_frame(qr_scene *scene, int64_t frame, qr_error *err)
{
    if (frame < 0 || frame == INT64_MAX)
        return qr_fail(err, QR_ERR_INVALID, "frame %lld is out of range", (long long)frame);
    int64_t target = frame + 1; /* frame k is rendered after k+1 steps */
    if (scene->steps > target)
        return qr_fail(err, QR_ERR_INVALID,
                       "cannot seek back to frame %lld: scene '%s' is already at frame %lld",
                       (long long)frame, scene->name, (long long)(scene->steps - 1));
    if (scene->anim == QR_ANIM_NONE) {
        scene->steps = target; /* nothing moves: skip the empty steps */
        return QR_OK;
    }
    while (scene->steps < target)
        qr_scene_step(scene);
    return QR_OK;
}
