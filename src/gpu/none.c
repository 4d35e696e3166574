/* gpu_none.c — quadrender/gpu.h for a build without the CUDA toolkit
 * (QR_CUDA=OFF): every GPU function answers QR_ERR_NO_GPU, "built without
 * CUDA", so that `--device auto` falls back to the CPU and `--device gpu`
 * says why it cannot run. Objects are never created, so the functions that
 * take one are never reached with a valid one; they still answer sanely. */
#include "gpu/tuning.h"
#include "quadrender/gpu.h"
#include "quadrender/gpu_query.h"

#include <string.h>

#define QR_NO_CUDA "built without CUDA (configured with QR_CUDA=OFF or no CUDA compiler found)"

static qr_status no_gpu(qr_error *err)
{
    return qr_fail(err, QR_ERR_NO_GPU, "%s", QR_NO_CUDA);
}

qr_status qr_gpu_probe(qr_gpu_info *info, qr_error *err)
{
    if (info) memset(info, 0, sizeof *info);
    return no_gpu(err);
}

qr_status qr_gpu_probe_device(int device, qr_gpu_info *info, qr_error *err)
{
    return qr_gpu_probe(info, err);
}

int qr_gpu_count(void)
{
    return 0;
}

void qr_cuda_versions(int *runtime_version, int *driver_version)
{
    if (runtime_version) *runtime_version = 0;
    if (driver_version) *driver_version = 0;
}

const char *qr_gpu_compiled_archs(void)
{
    return "none (built without CUDA)";
}

qr_status qr_gpu_scene_create(const qr_scene *scene, qr_gpu_scene **out, qr_error *err)
{
    if (out) *out = NULL;
    return no_gpu(err);
}

void qr_gpu_scene_destroy(qr_gpu_scene *gs) {}

int32_t qr_gpu_scene_count(const qr_gpu_scene *gs)
{
    return 0;
}

size_t qr_gpu_scene_device_bytes(const qr_gpu_scene *gs)
{
    return 0;
}

qr_status qr_gpu_scene_set_picture(qr_gpu_scene *gs, const qr_scene *picture, qr_error *err)
{
    return no_gpu(err);
}

void qr_gpu_numbers_init(qr_gpu_numbers *numbers, const qr_scene *picture)
{
    memset(numbers, 0, sizeof *numbers);
}

qr_status qr_gpu_numbers_add(qr_gpu_numbers *numbers, const qr_scene *chunk, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_scene_download(const qr_gpu_scene *gs, qr_scene *scene, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_scene_step(qr_gpu_scene *gs, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_scene_seek_frame(qr_gpu_scene *gs, int64_t frame, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_scene_seek_frame_progress(qr_gpu_scene *gs, int64_t frame,
                                           qr_progress_fn progress, void *ctx, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_index_create(qr_gpu_index **out, qr_error *err)
{
    if (out) *out = NULL;
    return no_gpu(err);
}

void qr_gpu_index_destroy(qr_gpu_index *ix) {}

qr_status qr_gpu_index_build(qr_gpu_index *ix, const qr_gpu_scene *scene, int32_t width,
                             int32_t height, const qr_rect *region,
                             const qr_index_params *params, qr_render_mode mode,
                             qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_index_download(const qr_gpu_index *ix, qr_index **out, qr_error *err)
{
    if (out) *out = NULL;
    return no_gpu(err);
}

void qr_gpu_index_set_timing(qr_gpu_index *ix, qr_timing level) {}

qr_status qr_gpu_index_timing(const qr_gpu_index *ix, qr_build_timing *t, qr_error *err)
{
    if (t) memset(t, 0, sizeof *t);
    return no_gpu(err);
}

int qr_gpu_index_single_kernel(const qr_gpu_index *ix)
{
    return 0;
}

size_t qr_gpu_index_device_bytes(const qr_gpu_index *ix)
{
    return 0;
}

qr_status qr_gpu_renderer_create(int32_t width, int32_t height, qr_gpu_renderer **out,
                                 qr_error *err)
{
    if (out) *out = NULL;
    return no_gpu(err);
}

void qr_gpu_renderer_destroy(qr_gpu_renderer *r) {}

qr_status qr_gpu_render_chunk(qr_gpu_renderer *r, const qr_gpu_scene *chunk,
                              const qr_index_params *params, qr_render_mode mode, int over,
                              qr_error *err)
{
    return no_gpu(err);
}

void qr_gpu_renderer_set_budget(qr_gpu_renderer *r, size_t bytes) {}

int qr_gpu_chunks_front_to_back(const qr_gpu_numbers *whole, qr_render_mode mode)
{
    return 0;
}

qr_status qr_gpu_render_chunk_under(qr_gpu_renderer *r, const qr_gpu_scene *chunk,
                                    const qr_gpu_numbers *whole, const qr_index_params *params,
                                    int front, int back, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_render(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                        const qr_index_params *params, qr_render_mode mode, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_renderer_download(const qr_gpu_renderer *r, qr_image *img, qr_error *err)
{
    return no_gpu(err);
}

void qr_gpu_renderer_set_timing(qr_gpu_renderer *r, qr_timing level) {}

qr_status qr_gpu_renderer_timing(const qr_gpu_renderer *r, qr_frame_timing *t, qr_error *err)
{
    if (t) memset(t, 0, sizeof *t);
    return no_gpu(err);
}

void qr_gpu_renderer_set_exact_window(qr_gpu_renderer *r, int window) {}

void qr_gpu_renderer_set_graph(qr_gpu_renderer *r, int on) {}

qr_status qr_gpu_renderer_plan(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                               const qr_index_params *base, qr_render_mode mode, int32_t trials,
                               qr_plan *plan, qr_error *err)
{
    if (plan) memset(plan, 0, sizeof *plan);
    return no_gpu(err);
}

int qr_gpu_renderer_uses_graph(const qr_gpu_renderer *r)
{
    return 0;
}

qr_gpu_index *qr_gpu_renderer_index(qr_gpu_renderer *r)
{
    return NULL;
}

size_t qr_gpu_renderer_device_bytes(const qr_gpu_renderer *r)
{
    return 0;
}

qr_status qr_gpu_renderer_write(qr_gpu_renderer *r, qr_image_writer *w, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_renderer_create_bands(int32_t width, int32_t height, int32_t band_w,
                                       int32_t band_h, qr_gpu_renderer **out, qr_error *err)
{
    if (out) *out = NULL;
    return no_gpu(err);
}

qr_status qr_gpu_renderer_create_budget(int32_t width, int32_t height, const qr_gpu_scene *scene,
                                        qr_image_format format, size_t budget,
                                        const qr_index_params *params, qr_gpu_renderer **out,
                                        qr_error *err)
{
    if (out) *out = NULL;
    return no_gpu(err);
}

int32_t qr_gpu_renderer_band_rows(const qr_gpu_renderer *r)
{
    return 0;
}

qr_status qr_gpu_render_write(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                              const qr_index_params *params, qr_render_mode mode,
                              qr_image_writer *w, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_render_rows(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                             const qr_index_params *params, qr_render_mode mode,
                             qr_image_format format, int32_t row0, int32_t row1, void *out,
                             qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_render_rect(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                             const qr_index_params *params, qr_render_mode mode,
                             qr_image_format format, const qr_rect *rect, void *out,
                             qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_renderer_read_rows(qr_gpu_renderer *r, qr_image_format format, int alpha,
                                    void *rows, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_scene_create_device(const float *rows, int32_t n, qr_gpu_scene **out,
                                     qr_error *err)
{
    if (out) *out = NULL;
    return no_gpu(err);
}

void qr_gpu_scene_get_ranges(const qr_gpu_scene *gs, qr_gpu_scene_ranges *out)
{
    memset(out, 0, sizeof *out);
}

qr_status qr_gpu_scene_update_device(qr_gpu_scene *gs, const float *rows, int32_t n,
                                     qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_scene_update_host(qr_gpu_scene *gs, const float *rows, int32_t n, int threads,
                                   qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_scene_create_host(const float *rows, int32_t n, int threads, qr_gpu_scene **out,
                                   qr_error *err)
{
    if (out) *out = NULL;
    return no_gpu(err);
}

qr_status qr_gpu_renderer_copy_image(const qr_gpu_renderer *r, void *dst, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_renderer_download_rgb(qr_gpu_renderer *r, float *dst, int threads, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_select(int device, qr_error *err)
{
    return no_gpu(err);
}

qr_status qr_gpu_host_alloc(size_t bytes, void **out, qr_error *err)
{
    (void)bytes;
    *out = NULL;
    return no_gpu(err);
}

void qr_gpu_host_free(void *p)
{
    (void)p;
}

/* ---- quadrender/gpu_query.h ---- */

qr_status qr_gpu_query_create(const qr_scene *scene, int32_t resolution,
                              const qr_index_params *params, qr_gpu_query **out, qr_error *err)
{
    (void)scene, (void)resolution, (void)params;
    *out = NULL;
    return no_gpu(err);
}

void qr_gpu_query_destroy(qr_gpu_query *q)
{
    (void)q;
}

qr_status qr_gpu_query_rebuild(qr_gpu_query *q, qr_error *err)
{
    (void)q;
    return no_gpu(err);
}

int32_t qr_gpu_query_resolution(const qr_gpu_query *q)
{
    (void)q;
    return 0;
}

qr_status qr_gpu_query_points(qr_gpu_query *q, const float *d_xy, int64_t n, qr_query_mode mode,
                              qr_query_result *out, qr_error *err)
{
    (void)q, (void)d_xy, (void)n, (void)mode;
    memset(out, 0, sizeof *out);
    return no_gpu(err);
}

qr_status qr_gpu_query_boxes(qr_gpu_query *q, const float *d_boxes, int64_t n, qr_query_mode mode,
                             qr_query_result *out, qr_error *err)
{
    return qr_gpu_query_points(q, d_boxes, n, mode, out, err);
}

qr_status qr_gpu_query_points_host(qr_gpu_query *q, const float *xy, int64_t n,
                                   qr_query_mode mode, qr_query_result *out, qr_error *err)
{
    return qr_gpu_query_points(q, xy, n, mode, out, err);
}

qr_status qr_gpu_query_boxes_host(qr_gpu_query *q, const float *boxes, int64_t n,
                                  qr_query_mode mode, qr_query_result *out, qr_error *err)
{
    return qr_gpu_query_points(q, boxes, n, mode, out, err);
}

qr_status qr_gpu_query_points_brute(qr_gpu_query *q, const float *d_xy, int64_t n,
                                    qr_query_mode mode, qr_query_result *out, qr_error *err)
{
    return qr_gpu_query_points(q, d_xy, n, mode, out, err);
}

qr_status qr_gpu_query_last_ms(const qr_gpu_query *q, float *ms, qr_error *err)
{
    (void)q;
    *ms = 0.0f;
    return no_gpu(err);
}

qr_status qr_gpu_query_upload(const float *host, int64_t floats, float **d_out, qr_error *err)
{
    (void)host, (void)floats;
    *d_out = NULL;
    return no_gpu(err);
}

void qr_gpu_query_free(float *d)
{
    (void)d;
}

int64_t qr_gpu_query_last_total(const qr_gpu_query *q)
{
    (void)q;
    return 0;
}
