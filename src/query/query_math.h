/* query_math.h — what a point or box query tests, once, for the host index
 * (query.c), the brute-force oracle and the GPU kernels (gpu/query_gpu.cu),
 * in circle_math.h's float operations so that all of them agree bit for bit.
 */
#ifndef QR_QUERY_MATH_H
#define QR_QUERY_MATH_H

#include "common/circle_math.h"

/* Whether a point lies in the scene's square [0,1]^2 (false for NaN). */
QR_HD int qr_query_in_square(float x, float y)
{
    return x >= 0.0f && x <= 1.0f && y >= 0.0f && y <= 1.0f;
}

/* Whether circle (cx, cy, r) covers the point (x, y): the renderer's test
 * (render_cpu.c: qr_dist2 from the centre, <= r * r) for a drawable radius. */
QR_HD int qr_query_covers(float cx, float cy, float r, float x, float y)
{
    return qr_radius_draws(r) && qr_dist2(cx, cy, x, y) <= QR_MUL(r, r);
}

/* The box clipped to the square: false when nothing of it is left (a box
 * wholly outside). The box itself is checked beforehand (no NaN, min <= max). */
QR_HD int qr_query_clip_box(const float *box, float *c)
{
    c[0] = box[0] > 0.0f ? box[0] : 0.0f;
    c[1] = box[1] > 0.0f ? box[1] : 0.0f;
    c[2] = box[2] < 1.0f ? box[2] : 1.0f;
    c[3] = box[3] < 1.0f ? box[3] : 1.0f;
    return c[0] <= c[2] && c[1] <= c[3];
}

/* Whether circle (cx, cy, r) touches the clipped box c: covers the box's
 * point nearest its centre. */
QR_HD int qr_query_touches(float cx, float cy, float r, const float *c)
{
    const float nx = cx < c[0] ? c[0] : (cx > c[2] ? c[2] : cx);
    const float ny = cy < c[1] ? c[1] : (cy > c[3] ? c[3] : cy);
    return qr_query_covers(cx, cy, r, nx, ny);
}

/* The cell of the index's R x R grid holding coordinate v of [0,1] (1
 * itself is in the last cell). */
QR_HD int qr_query_cell(float v, int res)
{
    const int c = qr_trunc_clamp(QR_MUL(v, (float)res), res);
    return c < res ? c : res - 1;
}

/* The radius the index is built with: r widened by r / 2^16 and by one
 * cell. Any point of the square that r covers (in float) lies, with its
 * cell's centre, inside the widened circle with a margin far above the
 * rounding of the pixel box (qr_circle_pixbox), so the box holds that
 * point's cell and the build's culling (no pixel centre covered) never
 * drops the circle. A radius that does not draw stays as it is (culled);
 * one whose widening would stop drawing is not widened. */
QR_HD float qr_query_widen(float r, int res)
{
    if (!qr_radius_draws(r)) return r;
    const float w = QR_ADD(QR_ADD(r, QR_MUL(r, 1.52587890625e-05f)), 1.0f / (float)res);
    return qr_radius_draws(w) ? w : r;
}

#endif
