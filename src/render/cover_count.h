/* cover_count.h — how many circles cover each pixel, on the GPU.
 *
 * Exact mode's alpha is 1 + 0.5 N, N the number of circles whose box holds
 * the pixel and whose exact coverage test passes (the reference's
 * qr_dist2 <= r*r). Windowed exact mode (render_gpu.cu) blends only each
 * pixel's last covering circles, so it takes N from here (for alpha, and to
 * choose how long a tail of each list to blend). A block takes a
 * 16 x 128 pixel tile and the lists of the index leaves holding it; for each
 * (circle, row) meeting the tile it computes the covered interval of columns
 * — a square root's estimate of each end, settled by the exact test at the
 * two columns next to it — and adds +1 at its start and -1 past its end in
 * a shared-memory row; running sums of the rows are N. So a
 * circle costs a few operations per row it covers instead of one test per
 * pixel, and the counts are integers: the result does not depend on the
 * order of the additions.
 */
#ifndef QR_RENDER_COVER_COUNT_H
#define QR_RENDER_COVER_COUNT_H

#include "quadtree/quadtree_gpu.h"

/* Queues the count of every pixel of the view's region into counts
 * (geom.width * geom.height int32, row 0 = bottom, like the image) on s;
 * pdl: as a programmatic dependent of the kernel queued before (common/pdl.h). */
qr_status qr_cover_count(const qr_index_view *v, const float4 *pos, int32_t *counts, cudaStream_t s,
                         int pdl, qr_error *err);

#endif
