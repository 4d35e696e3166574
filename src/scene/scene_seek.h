/* scene_seek.h — the one rule for seeking to a frame, shared by the host
 * scene (qr_scene_seek_frame) and the device scene (qr_gpu_scene_seek_frame),
 * so that a frame number means the same state on the CPU and the GPU. */
#ifndef QR_SCENE_SEEK_H
#define QR_SCENE_SEEK_H

#include <stdint.h>

#include "quadrender/error.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One animation step of `scene`; it advances the scene's own step count. */
typedef qr_status (*qr_step_fn)(void *scene, qr_error *err);

/* Brings a scene whose step count is *steps to the state frame `frame` is
 * rendered from (frame + 1 steps), calling step(scene) until *steps gets
 * there; static scenes only count the steps. Fails, without stepping, for a
 * frame out of range or one the scene has already passed. `name` names the
 * scene in messages (NULL: "the scene"). */
qr_status qr_seek_frame_by_steps(int64_t *steps, qr_anim anim, int64_t frame, const char *name,
                                 qr_step_fn step, void *scene, qr_error *err);

#ifdef __cplusplus
}
#endif

#endif
