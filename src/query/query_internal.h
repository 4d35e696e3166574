/* query_internal.h — what the host query index (query.c) shares with the
 * GPU's (gpu/query_gpu.cu): the scene the tree is built over, and the
 * message of a bad box.
 */
#ifndef QR_QUERY_INTERNAL_H
#define QR_QUERY_INTERNAL_H

#include "quadrender/query.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A scene of the circles' centres and widened radii (qr_query_widen) at
 * resolution res: what both builders index. */
qr_status qr_query_widened_scene(const qr_scene *scene, int32_t res, qr_scene **out,
                                 qr_error *err);

/* The resolution asked for (0: chosen) and the params (NULL: the default),
 * checked: *res_out and *p_out are what the build uses. */
qr_status qr_query_setup(const qr_scene *scene, int32_t resolution, const qr_index_params *params,
                         int32_t *res_out, qr_index_params *p_out, qr_error *err);

/* Pairs per visible circle past which a query index is built again with
 * leaves twice as large: where circles are far larger than the leaves
 * (100k circles over the whole square), splitting shortens no list and
 * multiplies the pairs. */
#define QR_QUERY_PAIRS_PER_CIRCLE 64

/* Whether a tree of `pairs` over `visible` circles at resolution res is
 * built again coarser: if so, *p's min_leaf is doubled. Both builders ask
 * it after each build, of the same trees. */
int qr_query_coarser(long long pairs, int32_t visible, int32_t res, qr_index_params *p);

/* The most (box, leaf) pairs a batch of box queries on the GPU lists
 * before it takes the warp-a-box path instead (gpu/query_gpu.cu); tests
 * lower it to reach that path. */
struct qr_gpu_query;
void qr_gpu_query_set_pairs_max(struct qr_gpu_query *q, long long pairs);

/* QR_OK, or QR_ERR_INVALID "box <q>: ..." for box b (4 floats), the q-th. */
qr_status qr_query_check_box(const float *b, int64_t q, qr_error *err);

#ifdef __cplusplus
}
#endif

#endif
