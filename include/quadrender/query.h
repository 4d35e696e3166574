/* quadrender/query.h — questions asked of a scene's circles: which cover a
 * point, which is on top there, how many; which touch a rectangle.
 *
 * A query index is the scene's quadtree (quadrender/index.h) built for
 * questions instead of a picture: over the scene's square [0,1]^2 at a
 * resolution R (R x R cells, the "pixels" of its tree), each leaf listing,
 * in drawing order, every circle that can touch it. Point and box queries
 * find the leaves under them and test only those lists.
 *
 * What counts, exactly (the brute-force functions below are the oracle):
 *   - point (x, y) is covered by circle i iff qr_dist2(x, y, x_i, y_i) <=
 *     r_i * r_i (common/circle_math.h: the renderer's own test, in the same
 *     float operations), r_i drawable (qr_radius_draws), and the point lies
 *     in the scene's square, 0 <= x <= 1 and 0 <= y <= 1. A point at a pixel
 *     centre of a W x H image therefore meets exactly the circles the
 *     reference renderer blends into that pixel (where they are not culled
 *     as invisible: the renderer also skips circles of a 3 x 3 box or less
 *     that cover no pixel centre, which cover none of those points either).
 *     Points outside the square, or with a NaN, match nothing.
 *   - box [x0,x1] x [y0,y1] (x0 <= x1, y0 <= y1; a box with a NaN or
 *     min > max is an error naming it) is clipped to the scene's square;
 *     circle i touches it iff the point of the clipped box nearest its
 *     centre is covered by it (the same test). A box wholly outside the
 *     square touches nothing.
 *   - answers list circles in drawing order: ascending index, back to front;
 *     the top (front-most) circle is the one of highest index.
 *
 * The index is conservative (every circle that can touch a cell is in the
 * cell's leaf's list: radii are widened by a cell and a relative 2^-16
 * before the build, so no rounding of the boxes, and no culling by pixel
 * centres, can drop one) and the test is exact, so an answer does not
 * depend on the resolution, the tree's parameters, the thread count or the
 * device (tested against the brute-force oracle).
 *
 * The resolution: 0 asks qr_query_resolution(scene): the power of two
 * nearest 2 sqrt(n) (a cell about the area of one circle's share of the
 * square), from 256 to 4096. The tree's parameters: qr_query_params_default.
 */
#ifndef QUADRENDER_QUERY_H
#define QUADRENDER_QUERY_H

#include <stdint.h>

#include "quadrender/error.h"
#include "quadrender/index.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum qr_query_mode {
    QR_QUERY_TOP = 0,   /* per query: the front-most circle's index, or -1 */
    QR_QUERY_COUNT = 1, /* per query: how many circles */
    QR_QUERY_ALL = 2    /* per query: every circle, in drawing order (CSR) */
} qr_query_mode;

/* A mode given as text: "top", "count" or "all"; else QR_ERR_INVALID,
 * "<name>: expected 'top', 'count' or 'all', got '<text>'". */
qr_status qr_query_check_mode(const char *name, const char *text, qr_query_mode *out,
                              qr_error *err);

/* A resolution given as text: 0 (chosen from the scene) or a power of two
 * from 16 to 32768; else QR_ERR_INVALID, "<name>: expected 0 (chosen from
 * the scene) or a power of two from 16 to 32768, got '<text>'". */
qr_status qr_query_check_resolution(const char *name, const char *text, int32_t *out,
                                    qr_error *err);

/* The answers to a batch of queries. Host memory for the CPU functions
 * (free with qr_query_result_free); device memory owned by the GPU query
 * object for quadrender/gpu_query.h's. */
typedef struct qr_query_result {
    int64_t queries;  /* how many were asked */
    qr_query_mode mode;
    int32_t *values;  /* TOP: circle index or -1; COUNT: circles. One a query
                         (NULL for ALL) */
    int64_t *offsets; /* ALL: queries + 1 entries; query q's circles are
                         ids[offsets[q] .. offsets[q+1]) (NULL otherwise) */
    int32_t *ids;     /* ALL: offsets[queries] circle indices */
} qr_query_result;

void qr_query_result_free(qr_query_result *res);

/* The resolution a query index of `scene` takes when asked for 0. */
int32_t qr_query_resolution(const qr_scene *scene);

/* The tree parameters a query index takes by default: capacity 64, no
 * leaf below 16 cells (at most (R/16)^2 leaves: the GPU's one-block tree
 * stage and the pairs grow with the leaves, and a query's own work with
 * its leaf's list), no split cost, deep splits to 4 cells where circles
 * crowd; the rest as qr_index_params_default. A tree whose lists hold
 * more than 64 entries per visible circle (circles far larger than its
 * leaves, where splitting shortens no list) is built again with leaves
 * twice as large, until it does not or a leaf is the whole square: the
 * same on the host and the GPU. */
void qr_query_params_default(qr_index_params *p);

/* ---- the index, on the host ------------------------------------------------
 * Holds its own copy of the circles' centres and radii: the scene may be
 * changed or freed after the build. */
typedef struct qr_query_index qr_query_index;

/* Builds the index of `scene` at `resolution` (0: qr_query_resolution) with
 * `params` (NULL: qr_query_params_default) on `threads` threads (0: all,
 * quadrender/threads.h). An empty scene gives an index that answers
 * nothing. */
qr_status qr_query_index_build(const qr_scene *scene, int32_t resolution,
                               const qr_index_params *params, int32_t threads,
                               qr_query_index **out, qr_error *err);
void qr_query_index_destroy(qr_query_index *q);

/* Its resolution, and its tree: leaves (rectangles in cells of
 * 1/resolution, from the square's bottom-left corner) and their lists. */
int32_t qr_query_index_resolution(const qr_query_index *q);
const qr_index *qr_query_index_tree(const qr_query_index *q);

/* Point queries: n points, xy[2 q] and xy[2 q + 1] the q-th's x and y
 * (scene coordinates). Answers into *out (host memory; what *out held is
 * not freed), on `threads` threads (0: all). Memory is checked before it
 * is spent (quadrender/memory.h): QR_ERR_NOMEM names the bytes. n may be 0. */
qr_status qr_query_points(const qr_query_index *q, const float *xy, int64_t n,
                          qr_query_mode mode, int32_t threads, qr_query_result *out,
                          qr_error *err);

/* Box queries: n boxes, boxes[4 q .. 4 q + 3] = x0, y0, x1, y1. TOP: the
 * front-most circle touching the box; COUNT; ALL. A box with a NaN or with
 * x0 > x1 or y0 > y1 is QR_ERR_INVALID, "box <q>: ..." (nothing answered). */
qr_status qr_query_boxes(const qr_query_index *q, const float *boxes, int64_t n,
                         qr_query_mode mode, int32_t threads, qr_query_result *out,
                         qr_error *err);

/* The oracle: the same answers by testing every circle against every
 * query, one thread. For tests and for `bench --query`'s brute-force row
 * on the CPU. */
qr_status qr_query_points_brute(const qr_scene *scene, const float *xy, int64_t n,
                                qr_query_mode mode, qr_query_result *out, qr_error *err);
qr_status qr_query_boxes_brute(const qr_scene *scene, const float *boxes, int64_t n,
                               qr_query_mode mode, qr_query_result *out, qr_error *err);

/* Checks a batch of boxes as qr_query_boxes does (the GPU functions check
 * theirs on the host the same way, before any work). */
qr_status qr_query_check_boxes(const float *boxes, int64_t n, qr_error *err);

#ifdef __cplusplus
}
#endif

#endif
