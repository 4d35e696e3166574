/* quadrender/gpu.h — finding out whether a usable GPU is there, and which.
 *
 * qr_gpu_probe answers with QR_ERR_NO_GPU and the reason (no driver, driver
 * too old, no device, binary not built for this device's architecture), so
 * that `--device auto` can fall back to the CPU and `--device gpu` can fail
 * with a message a user understands.
 */
#ifndef QUADRENDER_GPU_H
#define QUADRENDER_GPU_H

#include <stddef.h>
#include <stdint.h>
#include "quadrender/error.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/render_mode.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qr_gpu_info {
    int device;             /* CUDA device ordinal in use */
    char name[256];
    int cc_major, cc_minor; /* compute capability */
    int sm_count;
    size_t mem_total, mem_free;
    int clock_khz, mem_clock_khz;
    int runtime_version;    /* e.g. 13000 */
    int driver_version;     /* 0 when no driver */
    int mem_bus_bits;       /* memory bus width: peak bytes/s =
                               2 * mem_clock_khz * 1000 * mem_bus_bits / 8 */
} qr_gpu_info;

/* Makes qr_gpu_probe use CUDA device `device` (0, 1, ... as the CUDA
 * runtime numbers them: after $CUDA_VISIBLE_DEVICES, in nvidia-smi's order
 * when CUDA_DEVICE_ORDER=PCI_BUS_ID). Touches no CUDA state itself, so a
 * program can call it before knowing whether it will use the GPU; a device
 * that is not there is reported by qr_gpu_probe. QR_ERR_INVALID for a
 * negative number. */
qr_status qr_gpu_select(int device, qr_error *err);

/* Checks the selected device (qr_gpu_select; else the calling thread's
 * current device, 0 unless the program chose another) can run our kernels
 * and makes it the calling thread's current device (cudaSetDevice, before
 * any other CUDA work of this library): call it, then do the CUDA work, on
 * the same thread. */
qr_status qr_gpu_probe(qr_gpu_info *info, qr_error *err);

/* qr_gpu_probe of CUDA device `device` (-1: the calling thread's current
 * one), whatever qr_gpu_select chose: for a program that drives several
 * GPUs, each from a thread of its own. */
qr_status qr_gpu_probe_device(int device, qr_gpu_info *info, qr_error *err);

/* How many CUDA devices the driver shows: 0 without a driver or a device. */
int qr_gpu_count(void);

/* CUDA runtime version this binary was built against, and the driver's (0 if none). */
void qr_cuda_versions(int *runtime_version, int *driver_version);

/* The CUDA architectures compiled in, e.g. "90". */
const char *qr_gpu_compiled_archs(void);

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
int32_t qr_gpu_scene_count(const qr_gpu_scene *gs);
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

/* ---- the quadtree index built on the GPU ----------------------------------
 * An index object owns its device buffers and reuses them from build to
 * build; it grows them only when a build needs more. */
typedef struct qr_gpu_index qr_gpu_index;

/* What a timed build or frame records with CUDA events. An event between
 * two kernels is a node of the frame's graph that costs one to two
 * microseconds and keeps the second kernel from starting early, so the more
 * a frame is split, the longer it takes: time whole frames with
 * QR_TIMING_FRAME, the build/render split with QR_TIMING_TOTALS and the
 * build's stages with QR_TIMING_STAGES, each in frames of its own. */
typedef enum qr_timing {
    QR_TIMING_OFF = 0,
    QR_TIMING_FRAME = 1,  /* renderer: the frame only (build and render read 0) */
    QR_TIMING_TOTALS = 2, /* build, render and frame totals */
    QR_TIMING_STAGES = 3  /* also every build stage */
} qr_timing;

/* Build time per stage, in milliseconds (CUDA events), of the last build
 * made with QR_TIMING_TOTALS or QR_TIMING_STAGES (stages 0 unless the latter;
 * for an index, QR_TIMING_FRAME records nothing). */
typedef struct qr_build_timing {
    float boxes_ms;  /* cull, pixel boxes, corner histograms */
    float tree_ms;   /* prefix sums, node splits, leaf numbering, tile map */
    float count_ms;  /* leaves per circle (0 where emit counts: see emit_ms) */
    float scan_ms;   /* per-circle pair offsets (likewise) */
    float emit_ms;   /* (leaf, circle) pairs; a build after the first, of up to
                        four million work slots (every scored scene), counts and
                        scans in the same kernel, and count_ms and scan_ms read
                        about 0 */
    float sort_ms;   /* the lists: stable sort of the pairs by leaf */
    float total_ms;  /* first event to last, including the scalar read-back */
} qr_build_timing;

qr_status qr_gpu_index_create(qr_gpu_index **out, qr_error *err);
void qr_gpu_index_destroy(qr_gpu_index *ix);

/* Builds the index of `scene` for a width x height image (region NULL = the
 * whole image) that a render in `mode` uses (quadrender/index.h). Same
 * result as qr_index_build_host, bit for bit. */
qr_status qr_gpu_index_build(qr_gpu_index *ix, const qr_gpu_scene *scene, int32_t width,
                             int32_t height, const qr_rect *region,
                             const qr_index_params *params, qr_render_mode mode,
                             qr_error *err);

/* Copies the last build back into a host qr_index (free with qr_index_destroy). */
qr_status qr_gpu_index_download(const qr_gpu_index *ix, qr_index **out, qr_error *err);

/* Record CUDA events in subsequent builds (see qr_timing). */
void qr_gpu_index_set_timing(qr_gpu_index *ix, qr_timing level);
qr_status qr_gpu_index_timing(const qr_gpu_index *ix, qr_build_timing *t, qr_error *err);

/* Device bytes held by the index now. */
size_t qr_gpu_index_device_bytes(const qr_gpu_index *ix);

/* ---- the GPU renderer -------------------------------------------------------
 * Builds the index of a scene and renders it into a device image. One object
 * per image size; it owns the index and the image and reuses both, so
 * rendering frame after frame allocates nothing once warm. */
/* qr_render_mode and QR_FAST_TOLERANCE: quadrender/render_mode.h */

typedef struct qr_frame_timing {
    qr_build_timing build; /* index stages */
    float render_ms;       /* the render kernel */
    float frame_ms;        /* build + render, first event to last */
} qr_frame_timing;

typedef struct qr_gpu_renderer qr_gpu_renderer;

qr_status qr_gpu_renderer_create(int32_t width, int32_t height, qr_gpu_renderer **out,
                                 qr_error *err);
void qr_gpu_renderer_destroy(qr_gpu_renderer *r);

/* Builds the index for the scene's current state and renders it: one CUDA
 * graph for both. Returns once the build is checked (and, rarely, redone);
 * the render may still be running, so that a caller's next frame is queued
 * behind it (qr_gpu_renderer_download waits for it; with timing on,
 * qr_gpu_render itself does). */
qr_status qr_gpu_render(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                        const qr_index_params *params, qr_render_mode mode, qr_error *err);

/* Copies the image into img (same size). In fast mode the alpha channel is
 * left at 1: only colour is computed. */
qr_status qr_gpu_renderer_download(const qr_gpu_renderer *r, qr_image *img, qr_error *err);

/* Writes the last render into w, opened for the renderer's size: converted
 * on the GPU to what the file stores (8-bit RGB through qr_to_byte for PNG
 * and PPM, so exact mode's bytes equal the CPU reference's; float RGB for
 * PFM) and brought back in row bands, each band's copy overlapping the
 * encoding of the one before. Does not close w. */
qr_status qr_gpu_renderer_write(qr_gpu_renderer *r, qr_image_writer *w, qr_error *err);

/* ---- images larger than a frame: bands --------------------------------------
 * A banded renderer renders its image a region at a time, at most
 * band_w x band_h pixels (multiples of QR_REGION, or the image's sides), and
 * streams it into a writer band by band (qr_gpu_render_write); the whole
 * image exists neither on the GPU nor on the host, so its sides may reach
 * QR_IMAGE_BANDS_MAX_DIM. Its bytes equal the whole-image render's, in both
 * modes. qr_gpu_render and qr_gpu_renderer_download refuse it. */
qr_status qr_gpu_renderer_create_bands(int32_t width, int32_t height, int32_t band_w,
                                       int32_t band_h, qr_gpu_renderer **out, qr_error *err);

/* A renderer for a width x height image written as `format`, within a GPU
 * memory budget of `budget` bytes that covers the scene (already uploaded),
 * the index and the image's buffers (0: what the device has free now, less
 * some headroom, plus the scene). It renders whole when that fits (and the
 * sides are at most QR_IMAGE_MAX_DIM), else in bands as tall as fit; a band
 * whose lists outgrow the budget is rendered again at half the height.
 * QR_ERR_GPU_NOMEM, with the bytes needed, when not even a band of
 * QR_REGION rows fits. */
qr_status qr_gpu_renderer_create_budget(int32_t width, int32_t height, const qr_gpu_scene *scene,
                                        qr_image_format format, size_t budget,
                                        const qr_index_params *params, qr_gpu_renderer **out,
                                        qr_error *err);

/* Rows of one band (the image's height when the renderer renders whole). */
int32_t qr_gpu_renderer_band_rows(const qr_gpu_renderer *r);

/* Renders the scene and writes the image into w (opened for the renderer's
 * size; not closed): qr_gpu_render then qr_gpu_renderer_write for a whole
 * renderer, band after band for a banded one, each band rendering while the
 * one before is encoded. */
qr_status qr_gpu_render_write(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                              const qr_index_params *params, qr_render_mode mode,
                              qr_image_writer *w, qr_error *err);

/* Renders file rows [row0, row1) of the image, as the file of `format`
 * holds them (PNG and PPM: 8-bit RGB from the top row; PFM: float RGB from
 * the bottom row), into host memory `out` ((row1 - row0) rows of 3 * width
 * bytes or floats): the same bytes as those rows of qr_gpu_render_write's
 * file, rendered on the same grid. For work split over GPUs, threads or
 * processes, each rendering its own rows. Synchronous. */
qr_status qr_gpu_render_rows(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                             const qr_index_params *params, qr_render_mode mode,
                             qr_image_format format, int32_t row0, int32_t row1, void *out,
                             qr_error *err);

/* Page-locked host memory of `bytes` (for qr_gpu_render_rows' output:
 * copies into it run at the bus's speed, where pageable memory goes through
 * the driver's staging buffers), usable with every GPU; QR_ERR_NOMEM when
 * the system refuses. Free it with qr_gpu_host_free (NULL: no-op). */
qr_status qr_gpu_host_alloc(size_t bytes, void **out, qr_error *err);
void qr_gpu_host_free(void *p);

/* Copies the last render's float RGBA image (row 0 = bottom) into device
 * memory dst (width * height * 4 floats): for callers that keep the image
 * on the GPU. For a whole-image renderer. */
qr_status qr_gpu_renderer_copy_image(const qr_gpu_renderer *r, void *dst, qr_error *err);

/* The last render's file rows, as qr_gpu_renderer_write would write them
 * (converted on the GPU: 8-bit RGB from the top row for PNG and PPM, float
 * RGB from the bottom row for PFM), into rows: width * height * 3 bytes or
 * floats of host memory. For a whole-image renderer. */
qr_status qr_gpu_renderer_read_rows(qr_gpu_renderer *r, qr_image_format format, void *rows,
                                    qr_error *err);

void qr_gpu_renderer_set_timing(qr_gpu_renderer *r, qr_timing level);
qr_status qr_gpu_renderer_timing(const qr_gpu_renderer *r, qr_frame_timing *t, qr_error *err);

/* Device bytes held: image plus index. */
size_t qr_gpu_renderer_device_bytes(const qr_gpu_renderer *r);

/* The index the renderer builds each frame, as the last render left it:
 * for its statistics (qr_gpu_index_download, qr_gpu_index_device_bytes).
 * Owned by the renderer, valid until qr_gpu_renderer_destroy; the next
 * render rebuilds it. */
qr_gpu_index *qr_gpu_renderer_index(qr_gpu_renderer *r);

/* How frames are launched: on (the default), once a first frame has sized
 * the lists, a frame (build and render, a dozen short kernels) is queued as
 * one CUDA graph; off, its kernels are launched one by one, for comparison
 * (`bench --direct`). The image is the same either way; only the time
 * changes. */
void qr_gpu_renderer_set_graph(qr_gpu_renderer *r, int on);

#ifdef __cplusplus
}
#endif
#endif
