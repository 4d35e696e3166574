/* quadrender/gpu_query.h — point and box queries on the GPU (src/query/gpu).
 *
 * The same questions and the same answers as quadrender/query.h, bit for
 * bit: the index is the same tree (built by the GPU builder, which gives
 * the host builder's index), the test the same float operations. Queries
 * given in device memory are read where they are (no copy); the answers
 * are left in device memory owned by the query object, valid until its
 * next query or its destruction.
 *
 * How a batch runs: each point's leaf is looked up in the tree's tile map,
 * the points are sorted by leaf (CUB), and a block takes a run of points
 * of one leaf: it stages the leaf's list in shared memory a batch at a
 * time, every thread testing its point against each staged circle (TOP
 * walks the list from its end and stops at the first hit). ALL counts,
 * scans the counts (CUB), then writes. Boxes are a warp each over the
 * leaves under them, a circle reported by the leaf holding the bottom-left
 * cell of its box's overlap with the query's, so once; ALL then puts each
 * box's circles in drawing order (merged by rank in shared memory, CUB's
 * segmented sort for the largest boxes).
 *
 * Streams: a query object queues its work on a stream of its own that is
 * ordered with the legacy default stream (cudaStreamDefault flags), so
 * queries written by cudaMemcpy or by kernels on the default stream are
 * read after those writes; a caller writing them on streams of its own
 * must synchronize those first. Each call waits for its work to finish.
 *
 * Every function returns QR_ERR_NO_GPU in a build without CUDA.
 */
#ifndef QUADRENDER_GPU_QUERY_H
#define QUADRENDER_GPU_QUERY_H

#include <stdint.h>

#include "quadrender/error.h"
#include "quadrender/query.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qr_gpu_query qr_gpu_query;

/* Uploads the scene's circles and builds the index on the current GPU
 * (resolution and params as qr_query_index_build). */
qr_status qr_gpu_query_create(const qr_scene *scene, int32_t resolution,
                              const qr_index_params *params, qr_gpu_query **out,
                              qr_error *err);
void qr_gpu_query_destroy(qr_gpu_query *q);

/* Builds the index again from the circles on the GPU (what a benchmark of
 * "build included" times; the answers do not change). */
qr_status qr_gpu_query_rebuild(qr_gpu_query *q, qr_error *err);

int32_t qr_gpu_query_resolution(const qr_gpu_query *q);

/* Point queries on points in device memory (xy as in qr_query_points).
 * *out gets device pointers owned by q. */
qr_status qr_gpu_query_points(qr_gpu_query *q, const float *d_xy, int64_t n,
                              qr_query_mode mode, qr_query_result *out, qr_error *err);

/* Box queries on boxes in device memory. A bad box (as qr_query_check_boxes
 * says) is QR_ERR_INVALID, "box <q>: ...", the lowest such q. */
qr_status qr_gpu_query_boxes(qr_gpu_query *q, const float *d_boxes, int64_t n,
                             qr_query_mode mode, qr_query_result *out, qr_error *err);

/* The same on host arrays, answers into host memory (free with
 * qr_query_result_free): the queries go to the GPU in batches that fit
 * its memory, the answers come back. */
qr_status qr_gpu_query_points_host(qr_gpu_query *q, const float *xy, int64_t n,
                                   qr_query_mode mode, qr_query_result *out, qr_error *err);
qr_status qr_gpu_query_boxes_host(qr_gpu_query *q, const float *boxes, int64_t n,
                                  qr_query_mode mode, qr_query_result *out, qr_error *err);

/* The brute-force GPU kernel: every circle against every point, a block
 * staging the circles through shared memory (TOP and COUNT only; what
 * `bench --query` compares against). *out as qr_gpu_query_points. */
qr_status qr_gpu_query_points_brute(qr_gpu_query *q, const float *d_xy, int64_t n,
                                    qr_query_mode mode, qr_query_result *out, qr_error *err);

/* A device copy of `floats` floats from the host, for queries a caller
 * times on the GPU (bench, tests); free with qr_gpu_query_free. */
qr_status qr_gpu_query_upload(const float *host, int64_t floats, float **d_out, qr_error *err);
void qr_gpu_query_free(float *d);

/* The circles of the last ALL answer (its offsets[queries], which the
 * call read back to size its buffers); 0 before any. */
int64_t qr_gpu_query_last_total(const qr_gpu_query *q);

/* Waits for the queued work; the milliseconds of the last call's GPU work
 * (CUDA events around it: lookup, sort, test and output). */
qr_status qr_gpu_query_last_ms(const qr_gpu_query *q, float *ms, qr_error *err);

#ifdef __cplusplus
}
#endif

#endif
