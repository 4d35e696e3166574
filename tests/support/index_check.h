/* index_check.h — the index invariant checker: a host index build checked
 * against brute force. Nothing trusts the implementation:
 *   - each circle's culling and clipped pixel box is re-derived from the
 *     CS149 formulas (qr_test_model_circle) and compared with
 *     qr_index_circle_box;
 *   - the leaves are painted over the region (every pixel exactly once);
 *     each leaf is an aligned square of side root_size >> depth clipped to
 *     the region, and leaves come in depth-first (Z) order;
 *   - every leaf's list is recomputed by scanning all circles, and so are
 *     the counts, offsets and totals;
 *   - the split rules hold: a leaf over capacity could not split (or the
 *     split did not pay, under split_cost), every split parent held more
 *     than capacity circles, max_leaf bounds leaf sides, and in uniform
 *     mode every leaf is as small as allowed;
 *   - the tree's node count is re-counted from the leaves' ancestors.
 * Failures are Criterion assertions naming the scene, size and parameters. */
#ifndef QR_TEST_INDEX_CHECK_H
#define QR_TEST_INDEX_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "quadrender/index.h"
#include "quadrender/scene.h"

/* Builds s's host index for a render in `mode` (qr_index_build_host) and
 * checks it; returns it for further checks (free it with qr_index_destroy). */
qr_index *qr_test_index_checked_mode(const qr_scene *s, int32_t w, int32_t h,
                                     const qr_rect *region, const qr_index_params *p,
                                     qr_render_mode mode);

/* The same for fast mode (the render default). */
qr_index *qr_test_index_checked(const qr_scene *s, int32_t w, int32_t h, const qr_rect *region,
                                const qr_index_params *p);

/* The same, freeing the index. */
void qr_test_index_check(const qr_scene *s, int32_t w, int32_t h, const qr_rect *region,
                         const qr_index_params *p);

/* quadrender/index.h's culling rule, from scratch: whether circle i of s is
 * visible at w x h within reg, and then its clipped pixel box. */
int qr_test_model_circle(const qr_scene *s, int32_t i, int32_t w, int32_t h, qr_rect reg,
                         qr_rect *box);

bool qr_test_rect_equal(qr_rect a, qr_rect b);

/* ---- for hand-worked cases ---- */

/* [x0,x1) x [y0,y1), written in the order the messages print it. */
#define QR_TEST_RECT(x0, x1, y0, y1) ((qr_rect){(x0), (y0), (x1), (y1)})

/* Index parameters with no max_leaf and no split_cost. */
qr_index_params qr_test_params(int32_t capacity, int32_t min_leaf, int32_t max_depth,
                               int32_t uniform);

/* Builds s's host index (for fast mode) without checking it; asserts the
 * build succeeds. */
qr_index *qr_test_index_build(const qr_scene *s, int32_t w, int32_t h, const qr_rect *region,
                              const qr_index_params *p);

/* Asserts leaf k's rectangle, depth and exact list (count ids). */
void qr_test_expect_leaf(const qr_index *ix, int32_t k, qr_rect rect, int32_t depth,
                         int32_t count, const int32_t *ids);

#endif
