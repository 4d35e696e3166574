/* quadrender/gpu_index.h — the quadtree index built on the GPU (src/quadtree/gpu).
 */
#ifndef QUADRENDER_GPU_INDEX_H
#define QUADRENDER_GPU_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include "quadrender/error.h"
#include "quadrender/index.h"
#include "quadrender/render_mode.h"
#include "quadrender/gpu_scene.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
