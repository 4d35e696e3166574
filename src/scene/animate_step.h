/* animate_step.h — one animation step of one circle, shared by the host
 * (animate.c) and, later, a CUDA kernel that must match it bit for bit.
 *
 * Compiled as C11 by the host build and as host+device code by nvcc (QR_HD
 * from circle_math.h). Only + - * /, sqrt, comparisons and integer ops are
 * used, all through QR_MUL/QR_ADD/QR_SUB (round-to-nearest intrinsics on the
 * device, so nothing is ever fused into a multiply-add) or QR_STEP_SQRT
 * below; divisions are by powers of two only. Each operation is exactly
 * rounded IEEE float32 on both sides, so CPU and GPU agree on every bit. No sinf/cosf/expf/powf: their
 * device versions round differently.
 *
 * A step of circle i reads and writes only circle i's own entries (fireworks
 * sparks also read their firework's x and y, which never change), so all
 * circles of a step may run in parallel. `step` is the number of steps done
 * before this one (scene->steps), i.e. the step runs from time step*dt.
 *
 * Snow (our design; the spec leaves the flutter to us). Per flake, per step:
 *   p  = clamp(1 - z, 0.1, 1)                      parallax: far flakes react slowly
 *   nx, ny = flutter noise in [-1, 1) (below)
 *   ax = p * (1.0 * nx - 2 * vx)
 *   ay = p * (-1.8 + 0.5 * ny - 2 * vy)            gravity -1.8, drag coefficient 2
 *   vx += ax * dt;  vy += ay * dt;  x += vx * dt;  y += vy * dt     (dt = 1/60)
 *   x < -r: x += 1 + 2r;  x > 1 + r: x -= 1 + 2r   (re-enter from the other side)
 *   y < -r: y = 1 + r                              (back to the top, same velocity)
 * The parallax factor scales the forces as in the CS149 snow: a near flake
 * (z ~ 0) reaches its terminal fall speed of 0.9 image heights per second
 * within a fraction of a second and sways visibly; a far one (z ~ 1) speeds
 * up ten times slower and barely sways.
 * Flutter noise: 1-D value noise in time, one independent curve per flake and
 * axis. Lattice values are an integer hash of (flake index, axis, cell)
 * mapped to [-1, 1); between lattice points they are blended with the
 * smoothstep weight s = f*f*(3 - 2f), so the force is smooth (C1) in time.
 * A cell spans 128 steps (x) or 64 steps (y) and each flake's curve is
 * shifted by a hashed phase so that flakes do not change direction in step.
 * Cells and fractions are computed from the integer step count (the
 * fraction is (step mod cell) / cell, exact for a power-of-two cell), so the
 * noise is exact and never loses precision however long the animation runs.
 */
#ifndef QR_ANIMATE_STEP_H
#define QR_ANIMATE_STEP_H

#include <stdint.h>

#include "common/circle_math.h"
#include "quadrender/scene.h"

#define QR_STEP_FN QR_HD

#if defined(__CUDA_ARCH__)
#define QR_STEP_SQRT(a) __fsqrt_rn(a)
#else
#define QR_STEP_SQRT(a) sqrtf(a)
#endif

/* 1/60 rounded once, identically by every compiler. */
#define QR_STEP_DT (1.0f / 60.0f)

/* Pointers to the arrays a step touches (host or device memory). */
typedef struct qr_step_arrays {
    float *x, *y, *z, *r;
    float *vx, *vy;
    const float *x0, *y0, *vx0, *vy0; /* fireworks only */
} qr_step_arrays;

/* ---- hypnosis ------------------------------------------------------------ */

QR_STEP_FN void qr_step_hypnosis(qr_step_arrays a, int32_t i, int64_t step)
{
    float r = a.r[i];
    a.r[i] = r > 0.5f ? 0.02f : QR_ADD(r, 0.01f);
}

/* ---- bouncing balls --------------------------------------------------- */

QR_STEP_FN void qr_step_bounce(qr_step_arrays a, int32_t i, int64_t step)
{
    const float dt = QR_STEP_DT;
    const float eps = 0.001f;
    float vy = a.vy[i], y = a.y[i];
    if (vy == 0.0f && y == 0.0f)
        return; /* at rest for good */
    float old_vy = vy, old_y = y;
    if (y < 0.0f && vy < 0.0f)
        vy = QR_MUL(vy, -0.8f);
    vy = QR_ADD(vy, QR_MUL(-2.8f, dt));
    y = QR_ADD(y, QR_MUL(vy, dt));
    if (fabsf(QR_SUB(vy, old_vy)) < eps && old_y < 0.0f && fabsf(QR_SUB(y, old_y)) < eps) {
        vy = 0.0f;
        y = 0.0f;
    }
    a.vy[i] = vy;
    a.y[i] = y;
}

/* ---- fireworks ------------------------------------------------------------ */

#define QR_STEP_FIREWORKS 15
#define QR_STEP_SPARKS 20

QR_STEP_FN void qr_step_fireworks(qr_step_arrays a, int32_t i, int64_t step)
{
    const float dt = QR_STEP_DT;
    if (i < QR_STEP_FIREWORKS)
        return; /* the fireworks themselves stay put */
    int32_t f = (i - QR_STEP_FIREWORKS) / QR_STEP_SPARKS;
    float x = QR_ADD(a.x[i], QR_MUL(a.vx[i], dt));
    float y = QR_ADD(a.y[i], QR_MUL(a.vy[i], dt));
    float dx = QR_SUB(x, a.x[f]);
    float dy = QR_SUB(y, a.y[f]);
    float dist = QR_STEP_SQRT(QR_ADD(QR_MUL(dx, dx), QR_MUL(dy, dy)));
    if (dist > 0.25f) {
        a.x[i] = a.x0[i];
        a.y[i] = a.y0[i];
        a.vx[i] = a.vx0[i];
        a.vy[i] = a.vy0[i];
    } else {
        a.x[i] = x;
        a.y[i] = y;
    }
}

/* ---- snow ------------------------------------------------------------------ */

#define QR_SNOW_GRAVITY (-1.8f)
#define QR_SNOW_DRAG 2.0f
#define QR_SNOW_FLUTTER_X 1.0f
#define QR_SNOW_FLUTTER_Y 0.5f
#define QR_SNOW_CELL_LOG2_X 7 /* 128 steps per noise cell */
#define QR_SNOW_CELL_LOG2_Y 6 /* 64 steps */

/* A 32-bit integer mixer (xorshift-multiply rounds): every input bit
 * affects every output bit. */
QR_STEP_FN uint32_t qr_snow_mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

/* Lattice value in [-1, 1): 24 hash bits, exactly representable, scaled by
 * a power of two. */
QR_STEP_FN float qr_snow_lattice(uint32_t key, uint32_t cell)
{
    uint32_t h = qr_snow_mix(key ^ qr_snow_mix(cell + 0x9e3779b9u));
    return QR_SUB(QR_MUL((float)(h >> 8), 1.0f / 8388608.0f), 1.0f);
}

/* Flake i's noise curve for one axis at integer time `step`. */
QR_STEP_FN float qr_snow_noise(int32_t i, uint32_t axis, int64_t step, int cell_log2)
{
    uint32_t key = qr_snow_mix((uint32_t)i * 2u + axis + 0x632be5abu);
    uint64_t mask = ((uint64_t)1 << cell_log2) - 1u;
    uint64_t t = (uint64_t)step + (key & (uint32_t)mask); /* per-flake phase */
    uint32_t cell = (uint32_t)(t >> cell_log2);            /* wraps after 2^32 cells */
    float f = QR_MUL((float)(uint32_t)(t & mask), 1.0f / (float)((uint32_t)1 << cell_log2));
    float s = QR_MUL(QR_MUL(f, f), QR_SUB(3.0f, QR_MUL(2.0f, f)));
    float v0 = qr_snow_lattice(key, cell);
    float v1 = qr_snow_lattice(key, cell + 1u);
    return QR_ADD(v0, QR_MUL(QR_SUB(v1, v0), s));
}

QR_STEP_FN void qr_step_snow(qr_step_arrays a, int32_t i, int64_t step)
{
    const float dt = QR_STEP_DT;
    float x = a.x[i], y = a.y[i], r = a.r[i];
    float vx = a.vx[i], vy = a.vy[i];

    float p = QR_SUB(1.0f, a.z[i]);
    p = p < 0.1f ? 0.1f : (p > 1.0f ? 1.0f : p);
    float nx = qr_snow_noise(i, 0u, step, QR_SNOW_CELL_LOG2_X);
    float ny = qr_snow_noise(i, 1u, step, QR_SNOW_CELL_LOG2_Y);

    float ax = QR_MUL(p, QR_SUB(QR_MUL(QR_SNOW_FLUTTER_X, nx), QR_MUL(QR_SNOW_DRAG, vx)));
    float ay = QR_MUL(p, QR_SUB(QR_ADD(QR_SNOW_GRAVITY, QR_MUL(QR_SNOW_FLUTTER_Y, ny)),
                                QR_MUL(QR_SNOW_DRAG, vy)));
    vx = QR_ADD(vx, QR_MUL(ax, dt));
    vy = QR_ADD(vy, QR_MUL(ay, dt));
    x = QR_ADD(x, QR_MUL(vx, dt));
    y = QR_ADD(y, QR_MUL(vy, dt));

    float span = QR_ADD(1.0f, QR_MUL(2.0f, r));
    if (x < -r)
        x = QR_ADD(x, span);
    else if (x > QR_ADD(1.0f, r))
        x = QR_SUB(x, span);
    if (y < -r)
        y = QR_ADD(1.0f, r);

    a.x[i] = x;
    a.y[i] = y;
    a.vx[i] = vx;
    a.vy[i] = vy;
}

/* ---- dispatch ------------------------------------------------------------ */

QR_STEP_FN void qr_step_circle(qr_anim anim, qr_step_arrays a, int32_t i, int64_t step)
{
    switch (anim) {
    case QR_ANIM_HYPNOSIS: qr_step_hypnosis(a, i, step); break;
    case QR_ANIM_BOUNCE: qr_step_bounce(a, i, step); break;
    case QR_ANIM_FIREWORKS: qr_step_fireworks(a, i, step); break;
    case QR_ANIM_SNOW: qr_step_snow(a, i, step); break;
    default: break;
    }
}

#endif
