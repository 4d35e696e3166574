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

/* The steps a scene at `steps` steps must run to reach the state frame
 * `frame` is rendered from (frame + 1 steps from generation), in *count.
 * Fails for a frame out of range or one the scene has already passed.
 * `name` names the scene in messages (NULL: "the scene"). */
qr_status qr_seek_count(int64_t steps, int64_t frame, const char *name, int64_t *count,
                        qr_error *err);

/* Circle-steps a seek runs between two progress reports: on the host, and
 * in one kernel launch on the GPU. */
#define QR_SEEK_HOST_WORK ((int64_t)1 << 24)
#define QR_SEEK_GPU_WORK ((int64_t)1 << 31)

/* How many steps a seek of a scene of n circles runs at a time when each
 * time a chunk does `work` circle-steps: every step at once for the
 * animations that seek by cycles (their cost does not grow with the steps),
 * else work / n (at least 1). */
int64_t qr_seek_chunk(qr_anim anim, int32_t n, int64_t work);

#ifdef __cplusplus
}
#endif

#endif
