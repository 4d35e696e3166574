/* quadrender/gpu_scene.h — the scene on the GPU: uploaded, made from rows already there, stepped
 * and sought (src/scene/gpu).
 */
#ifndef QUADRENDER_GPU_SCENE_H
#define QUADRENDER_GPU_SCENE_H

#include <stddef.h>
#include <stdint.h>
#include "quadrender/error.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the scene on the GPU ---------------------------------------------------
 * Uploaded once; animated scenes are stepped in place on the device. */
typedef struct qr_gpu_scene qr_gpu_scene;

qr_status qr_gpu_scene_create(const qr_scene *scene, qr_gpu_scene **out, qr_error *err);
void qr_gpu_scene_destroy(qr_gpu_scene *gs);
/* A static flat scene made from circles already on the GPU: `rows` is a
 * device pointer to n rows of 7 floats, x y z r R G B in C order (a CuPy
 * or PyTorch array's memory, the layout of a .npy scene); nothing goes
 * through the host. The same scene, to the bit, as qr_gpu_scene_create of
 * the same circles. Waits first for all work on the device, so that rows
 * another library is still writing are complete. */
qr_status qr_gpu_scene_create_device(const float *rows, int32_t n, qr_gpu_scene **out,
                                     qr_error *err);
/* Makes gs the scene qr_gpu_scene_create_device(rows, n) makes (the same
 * scene, to the bit), for a caller that renders new circles from the GPU
 * frame after frame: a scene made or last updated from at least n device
 * rows is refilled in its own device memory, allocating nothing; any other
 * gets new memory (the old is freed first). gs may have been made either
 * way; it becomes a static flat scene. Waits first for all work on the
 * device, as qr_gpu_scene_create_device does, so that the rows are complete
 * and no render of gs's last circles is still reading it. On failure gs is
 * left as it was (bad arguments) or empty with no device memory: update it
 * again before rendering it, or destroy it. */
qr_status qr_gpu_scene_update_device(qr_gpu_scene *gs, const float *rows, int32_t n,
                                     qr_error *err);
/* Makes gs the scene of n rows of host memory, 7 floats each, x y z r R G B
 * in C order (a NumPy float32 array's, a .npy scene's layout): the same
 * scene, to the bit, as qr_gpu_scene_create of the same circles, for a
 * caller that renders new circles from the host frame after frame. The
 * rows are checked as qr_scene_check_circles(scene, "circles") checks them
 * (finite numbers, no negative radius: QR_ERR_INVALID with its message for
 * the first bad row, "circles: row 3: negative radius -0.5"), copied on
 * `threads` threads (0: qr_threads()) into a pinned buffer that gs keeps,
 * and sent from it into device rows that gs also keeps, each piece's
 * transfer overlapping the copy of the next; the scene's arrays are then
 * made from those device rows as qr_gpu_scene_update_device makes them.
 * Both buffers (28 bytes a row each, pinned and on the GPU) grow when more
 * rows come than they hold and are kept until qr_gpu_scene_destroy; the
 * scene's own memory is kept as qr_gpu_scene_update_device keeps it. So
 * after a first call, a call with as many rows or fewer allocates nothing.
 * Waits for all work on the device and returns when the scene is made. On
 * failure gs is left as it was (bad arguments, a bad row, staging memory
 * that cannot be had) or empty with no device memory, as
 * qr_gpu_scene_update_device leaves it. */
qr_status qr_gpu_scene_update_host(qr_gpu_scene *gs, const float *rows, int32_t n, int threads,
                                   qr_error *err);
/* Gives a scene made from rows (qr_gpu_scene_update_host, _update_device;
 * else QR_ERR_INVALID) the picture's options: its background (or none,
 * qr_scene.transparent) and anti-aliased edges, for rows read from a file
 * whose picture says so (qr_scene_stream_picture); flat pictures without
 * per-circle alpha only. The next update makes it plain again. */
qr_status qr_gpu_scene_set_picture(qr_gpu_scene *gs, const qr_scene *picture, qr_error *err);
/* A new scene made as qr_gpu_scene_update_host makes it, to be refilled by
 * it (or by qr_gpu_scene_update_device) later. */
qr_status qr_gpu_scene_create_host(const float *rows, int32_t n, int threads, qr_gpu_scene **out,
                                   qr_error *err);
int32_t qr_gpu_scene_count(const qr_gpu_scene *gs);
/* ---- a scene's numbers, gathered chunk by chunk -----------------------------
 * What fast mode's render takes from a whole scene, its colour range (the
 * background's with it) and its depth (the circles' area), gathered from
 * its chunks in order (consecutive circles, qr_scene_view or
 * qr_scene_stream_read) on the host, never uploaded: the numbers
 * qr_gpu_scene_create finds in the whole scene, to the bit. For a scene
 * drawn in chunks front to back (qr_gpu_render_chunk_under). */
typedef struct qr_gpu_numbers {
    float lo, hi;     /* every colour and background value lies in [lo, hi] */
    int finite;       /* no colour is NaN or infinite */
    int snow;         /* the picture is snow-shaded */
    int64_t circles;  /* added so far */
    double area;      /* the depth of the runs of circles complete so far */
    double open;      /* ... and of the run still open */
} qr_gpu_numbers;
/* Starts the numbers of a scene with `picture`'s shading and background
 * (qr_scene_stream_picture, or the scene itself). */
void qr_gpu_numbers_init(qr_gpu_numbers *numbers, const qr_scene *picture);
/* Adds the next chunk's circles (on all threads). */
qr_status qr_gpu_numbers_add(qr_gpu_numbers *numbers, const qr_scene *chunk, qr_error *err);

/* Device bytes the scene's circles take (its arrays and packed copies; 0
 * for NULL): what a GPU memory budget counts for it. */
size_t qr_gpu_scene_device_bytes(const qr_gpu_scene *gs);
/* Copies the device state (positions, radii, velocities...) back into `scene`,
 * which must have the same circle count and animation kind. */
qr_status qr_gpu_scene_download(const qr_gpu_scene *gs, qr_scene *scene, qr_error *err);

/* One animation step on the device: the very same math as qr_scene_step, so
 * the state matches the host bit for bit. A no-op (but counted) for static
 * scenes. */
qr_status qr_gpu_scene_step(qr_gpu_scene *gs, qr_error *err);

/* Steps the device scene to the state frame `frame` is rendered from, by the
 * same rule as qr_scene_seek_frame (frame k after k+1 steps from generation;
 * static scenes only count) and with the same per-circle math, so frame k's
 * state matches the host's bit for bit. Fails if the scene has already been
 * stepped past that point. */
qr_status qr_gpu_scene_seek_frame(qr_gpu_scene *gs, int64_t frame, qr_error *err);

/* qr_gpu_scene_seek_frame, seeking as qr_scene_seek_frame does (one thread
 * per circle runs all of the circle's steps) and calling progress(ctx,
 * done, total) between kernel launches when the seek takes more than one
 * (snow: about 2^31 circle-steps a launch); the last call has done ==
 * total. progress may be NULL (the launches are then queued without
 * waiting). */
qr_status qr_gpu_scene_seek_frame_progress(qr_gpu_scene *gs, int64_t frame,
                                           qr_progress_fn progress, void *ctx, qr_error *err);

#ifdef __cplusplus
}
#endif
#endif
