/* circle_math.h — the reference per-circle math, shared by every renderer
 * and index (host C, and CUDA device code when included from a .cu file).
 *
 * Exactness is the point of this file. The CPU reference, the host index
 * oracle and the GPU kernels all call these functions so that they agree on:
 *   - a circle's conservative pixel box (CS149: truncate (x-r)*W, clamp),
 *   - the pixel-centre sample position and the coverage test d2 <= r*r,
 *   - the shading and the back-to-front blend.
 * Arithmetic goes through QR_MUL/QR_ADD/QR_SUB, which are the round-to-nearest
 * intrinsics on the device, so that no multiply-add is ever fused there; host
 * code is compiled with -ffp-contract=off for the same reason.
 */
#ifndef QR_CIRCLE_MATH_H
#define QR_CIRCLE_MATH_H

#include <math.h>

#if defined(__CUDACC__)
#define QR_HD __host__ __device__ __forceinline__
#else
#define QR_HD static inline
#endif

#if defined(__CUDA_ARCH__)
#define QR_MUL(a, b) __fmul_rn((a), (b))
#define QR_ADD(a, b) __fadd_rn((a), (b))
#define QR_SUB(a, b) __fsub_rn((a), (b))
#define QR_DIV(a, b) __fdiv_rn((a), (b))
#else
#define QR_MUL(a, b) ((a) * (b))
#define QR_ADD(a, b) ((a) + (b))
#define QR_SUB(a, b) ((a) - (b))
#define QR_DIV(a, b) ((a) / (b))
#endif

/* CLAMP((int)v, 0, limit) as C++ would compute it, without undefined
 * behaviour for values outside int range (or NaN, which maps to 0). */
QR_HD int qr_trunc_clamp(float v, int limit)
{
    if (!(v > 0.0f)) return 0;
    if (v >= (float)limit) return limit;
    return (int)v;
}

/* CLAMP((int)v + 1, 0, limit), likewise. */
QR_HD int qr_trunc_clamp_plus1(float v, int limit)
{
    if (!(v > -1.0f)) return 0;
    if (v >= (float)limit) return limit;
    int t = (int)v + 1;
    return t > limit ? limit : t;
}

/* Whether a circle of radius r can cover anything: r > 0 and r*r finite.
 * Coverage is d2 <= r*r; with r*r infinite (r above about 1.8e19) a sample
 * whose distance overflows to infinity too would pass the test although it
 * lies outside the circle (a circle far off the image would paint the
 * column or row next to it). Such circles draw nothing, like those with a
 * non-finite value; every smaller radius keeps r*r finite, so an
 * overflowing distance is always > r*r. x - x == 0 is the finite test that
 * survives fast-math assumptions (NaN and +-inf give NaN). */
QR_HD int qr_radius_draws(float r)
{
    float r2 = QR_MUL(r, r);
    return r > 0.0f && QR_SUB(r2, r2) == 0.0f;
}

/* Half-open pixel box [x0,x1) x [y0,y1) of a circle on a W x H image: the
 * only pixels the reference renderer ever tests for this circle. Empty when
 * x0 >= x1 or y0 >= y1. */
typedef struct qr_pixbox {
    int x0, x1, y0, y1;
} qr_pixbox;

QR_HD qr_pixbox qr_circle_pixbox(float x, float y, float r, int width, int height)
{
    qr_pixbox b;
    float fw = (float)width, fh = (float)height;
    b.x0 = qr_trunc_clamp(QR_MUL(QR_SUB(x, r), fw), width);
    b.x1 = qr_trunc_clamp_plus1(QR_MUL(QR_ADD(x, r), fw), width);
    b.y0 = qr_trunc_clamp(QR_MUL(QR_SUB(y, r), fh), height);
    b.y1 = qr_trunc_clamp_plus1(QR_MUL(QR_ADD(y, r), fh), height);
    return b;
}

/* Normalized coordinate of pixel p's centre; inv = 1.0f / size, computed once. */
QR_HD float qr_pixel_center(int p, float inv)
{
    return QR_MUL(inv, QR_ADD((float)p, 0.5f));
}

/* Squared distance from the circle centre to the sample, as the reference
 * computes it: dx = x - cx, dy = y - cy, dx*dx + dy*dy. Covered iff <= r*r. */
QR_HD float qr_dist2(float x, float y, float cx, float cy)
{
    float dx = QR_SUB(x, cx), dy = QR_SUB(y, cy);
    return QR_ADD(QR_MUL(dx, dx), QR_MUL(dy, dy));
}

/* ---- anti-aliased edges (qr_scene.antialias) -------------------------------
 * On an image whose longer side is S pixels, a circle of radius r reaches
 * half a pixel further, r' = r + 0.5 / S (qr_aa_radius; a circle that
 * draws nothing stays so), and every renderer and index takes r' as its
 * radius: its box, its cull, its coverage test d2 <= r'^2. A covered
 * pixel takes the part cov = min(1, (r'^2 - d2) k) of the circle's alpha,
 * k = S / (2 r') (qr_aa_slope): (r'^2 - d2) / (2 r') is about r' - d, so
 * cov rises from 0 on the outer edge to 1 one pixel in, with no square
 * root. The same operations everywhere, so exact mode stays the
 * reference's to the bit. */

/* Half a pixel of an image whose longer side is `side` pixels, in the unit
 * square's units. */
QR_HD float qr_aa_half_pixel(int side)
{
    return QR_DIV(0.5f, (float)side);
}

QR_HD float qr_aa_radius(float r, float half_pixel)
{
    return qr_radius_draws(r) ? QR_ADD(r, half_pixel) : r;
}

QR_HD float qr_aa_slope(float r_out, int side)
{
    return QR_DIV((float)side, QR_MUL(2.0f, r_out));
}

/* A covered pixel's alpha: the circle's a times its coverage (r2 = r'^2,
 * d2 <= r2). */
QR_HD float qr_aa_alpha(float a, float d2, float r2, float k)
{
    const float cov = QR_MUL(QR_SUB(r2, d2), k);
    return QR_MUL(a, cov < 1.0f ? cov : 1.0f);
}

/* The reference blend of one circle into one pixel's colour (back to
 * front), one_minus = fl(1 - alpha). */
QR_HD void qr_blend_rgb(float alpha, float one_minus, float r, float g, float b, float *px)
{
    px[0] = QR_ADD(QR_MUL(alpha, r), QR_MUL(one_minus, px[0]));
    px[1] = QR_ADD(QR_MUL(alpha, g), QR_MUL(one_minus, px[1]));
    px[2] = QR_ADD(QR_MUL(alpha, b), QR_MUL(one_minus, px[2]));
}

/* The reference blend of one circle into one pixel: the colour, and the
 * alpha channel adds alpha (CS149's). */
QR_HD void qr_blend(float alpha, float r, float g, float b, float *px)
{
    qr_blend_rgb(alpha, QR_SUB(1.0f, alpha), r, g, b, px);
    px[3] = QR_ADD(px[3], alpha);
}

/* The same over no background (qr_scene.transparent): the alpha channel is
 * the coverage, blended as a colour channel of value 1, A' = a + (1 - a) A. */
QR_HD void qr_blend_cover(float alpha, float r, float g, float b, float *px)
{
    const float one_minus = QR_SUB(1.0f, alpha);
    qr_blend_rgb(alpha, one_minus, r, g, b, px);
    px[3] = QR_ADD(alpha, QR_MUL(one_minus, px[3]));
}

/* Snow's peak alpha for a circle at depth z: half of 0.6 + 0.4 (1 - z),
 * clamped to [0, 1]. */
QR_HD float qr_snow_peak_alpha(float z)
{
    float a = QR_ADD(0.6f, QR_MUL(0.4f, QR_SUB(1.0f, z)));
    a = a > 1.0f ? 1.0f : a;
    a = a < 0.0f ? 0.0f : a;
    return QR_MUL(0.5f, a);
}

/* Snow shading of a covered sample at squared distance d2 from a circle of
 * radius rad and depth z: colour from the 5-entry ramp, alpha with a
 * Gaussian falloff. The device build uses the GPU's sqrtf/expf (within 1e-5). */
QR_HD void qr_shade_snow(float d2, float rad, float z, float *alpha, float *r, float *g, float *b)
{
    /* The ramp (1,1,1) (1,1,1) (.8,.9,1) (.8,.9,1) (.8,.8,1) as selects, not a
     * table: an indexed local array would live in slow local memory on the
     * GPU. Blue is 1 everywhere. */
    float t = sqrtf(d2) / rad;
    float scaled = QR_MUL(t, 4.0f);
    int base = scaled >= 4.0f ? 4 : (scaled > 0.0f ? (int)scaled : 0);
    int next = base < 4 ? base + 1 : 4;
    float r0 = base < 2 ? 1.0f : 0.8f, r1 = next < 2 ? 1.0f : 0.8f;
    float g0 = base < 2 ? 1.0f : (base < 4 ? 0.9f : 0.8f);
    float g1 = next < 2 ? 1.0f : (next < 4 ? 0.9f : 0.8f);
    float w = QR_SUB(scaled, (float)base);
    float one_minus_w = QR_SUB(1.0f, w);
    *r = QR_ADD(QR_MUL(one_minus_w, r0), QR_MUL(w, r1));
    *g = QR_ADD(QR_MUL(one_minus_w, g0), QR_MUL(w, g1));
    *b = QR_ADD(QR_MUL(one_minus_w, 1.0f), QR_MUL(w, 1.0f));
    *alpha = QR_MUL(qr_snow_peak_alpha(z), expf(QR_MUL(QR_MUL(-4.0f, t), t)));
}

/* Background of row j (0 = bottom) for snow: 0.4 + 0.45 * (H - j) / H. */
QR_HD float qr_snow_shade_row(int j, int height)
{
    return QR_ADD(0.4f, QR_MUL(0.45f, (float)(height - j)) / (float)height);
}

#endif
