/* animate_step.h — one animation step of one circle, and many steps of one
 * circle (qr_run_circle), shared by the host (animate.c) and the CUDA
 * kernels (scene_gpu.cu), which must match it bit for bit.
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
#include <string.h>

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

QR_STEP_FN float qr_hypnosis_next(float r)
{
    return r > 0.5f ? 0.02f : QR_ADD(r, 0.01f);
}

QR_STEP_FN void qr_step_hypnosis(qr_step_arrays a, int32_t i, int64_t step)
{
    a.r[i] = qr_hypnosis_next(a.r[i]);
}

/* ---- bouncing balls --------------------------------------------------- */

QR_STEP_FN void qr_bounce_next(float *py, float *pvy)
{
    const float dt = QR_STEP_DT;
    const float eps = 0.001f;
    float vy = *pvy, y = *py;
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
    *pvy = vy;
    *py = y;
}

QR_STEP_FN void qr_step_bounce(qr_step_arrays a, int32_t i, int64_t step)
{
    qr_bounce_next(&a.y[i], &a.vy[i]);
}

/* ---- fireworks ------------------------------------------------------------ */

#define QR_STEP_FIREWORKS 15
#define QR_STEP_SPARKS 20

/* A spark: s = (x, y, vx, vy); (fx, fy) is its firework, s0 its launch
 * state, where it restarts once it is more than 0.25 away. */
QR_STEP_FN void qr_spark_next(float fx, float fy, const float s0[4], float s[4])
{
    const float dt = QR_STEP_DT;
    float x = QR_ADD(s[0], QR_MUL(s[2], dt));
    float y = QR_ADD(s[1], QR_MUL(s[3], dt));
    float dx = QR_SUB(x, fx);
    float dy = QR_SUB(y, fy);
    float dist = QR_STEP_SQRT(QR_ADD(QR_MUL(dx, dx), QR_MUL(dy, dy)));
    if (dist > 0.25f) {
        for (int k = 0; k < 4; k++)
            s[k] = s0[k];
    } else {
        s[0] = x;
        s[1] = y;
    }
}

QR_STEP_FN void qr_step_fireworks(qr_step_arrays a, int32_t i, int64_t step)
{
    if (i < QR_STEP_FIREWORKS)
        return; /* the fireworks themselves stay put */
    int32_t f = (i - QR_STEP_FIREWORKS) / QR_STEP_SPARKS;
    const float s0[4] = {a.x0[i], a.y0[i], a.vx0[i], a.vy0[i]};
    float s[4] = {a.x[i], a.y[i], a.vx[i], a.vy[i]};
    qr_spark_next(a.x[f], a.y[f], s0, s);
    a.x[i] = s[0];
    a.y[i] = s[1];
    a.vx[i] = s[2];
    a.vy[i] = s[3];
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

/* One flake's noise curve for one axis, with the lattice values of the
 * cell it last looked at: stepping through time, a curve computes each
 * cell's two lattice values once instead of once a step (the values are a
 * pure function of key and cell, so the result is the same bits). */
typedef struct qr_snow_curve {
    uint32_t key;
    int cell_log2;
    int have; /* cell, v0 and v1 are set */
    uint32_t cell;
    float v0, v1;
} qr_snow_curve;

QR_STEP_FN qr_snow_curve qr_snow_curve_of(int32_t i, uint32_t axis, int cell_log2)
{
    qr_snow_curve c;
    c.key = qr_snow_mix((uint32_t)i * 2u + axis + 0x632be5abu);
    c.cell_log2 = cell_log2;
    c.have = 0;
    c.cell = 0u;
    c.v0 = c.v1 = 0.0f;
    return c;
}

/* The curve at integer time `step`. */
QR_STEP_FN float qr_snow_curve_at(qr_snow_curve *c, int64_t step)
{
    const int cell_log2 = c->cell_log2;
    uint64_t mask = ((uint64_t)1 << cell_log2) - 1u;
    uint64_t t = (uint64_t)step + (c->key & (uint32_t)mask); /* per-flake phase */
    uint32_t cell = (uint32_t)(t >> cell_log2);               /* wraps after 2^32 cells */
    float f = QR_MUL((float)(uint32_t)(t & mask), 1.0f / (float)((uint32_t)1 << cell_log2));
    float s = QR_MUL(QR_MUL(f, f), QR_SUB(3.0f, QR_MUL(2.0f, f)));
    if (!c->have || cell != c->cell) {
        c->v0 = c->have && cell == c->cell + 1u ? c->v1 : qr_snow_lattice(c->key, cell);
        c->v1 = qr_snow_lattice(c->key, cell + 1u);
        c->cell = cell;
        c->have = 1;
    }
    return QR_ADD(c->v0, QR_MUL(QR_SUB(c->v1, c->v0), s));
}

/* Flake i's noise curve for one axis at integer time `step`. */
QR_STEP_FN float qr_snow_noise(int32_t i, uint32_t axis, int64_t step, int cell_log2)
{
    qr_snow_curve c = qr_snow_curve_of(i, axis, cell_log2);
    return qr_snow_curve_at(&c, step);
}

/* The parallax factor of a flake at depth z. */
QR_STEP_FN float qr_snow_parallax(float z)
{
    float p = QR_SUB(1.0f, z);
    return p < 0.1f ? 0.1f : (p > 1.0f ? 1.0f : p);
}

/* One step of a flake of radius r and parallax p under noise (nx, ny). */
QR_STEP_FN void qr_snow_move(float p, float r, float nx, float ny, float *px, float *py, float *pvx,
                             float *pvy)
{
    const float dt = QR_STEP_DT;
    float x = *px, y = *py, vx = *pvx, vy = *pvy;
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
    *px = x;
    *py = y;
    *pvx = vx;
    *pvy = vy;
}

QR_STEP_FN void qr_step_snow(qr_step_arrays a, int32_t i, int64_t step)
{
    float nx = qr_snow_noise(i, 0u, step, QR_SNOW_CELL_LOG2_X);
    float ny = qr_snow_noise(i, 1u, step, QR_SNOW_CELL_LOG2_Y);
    qr_snow_move(qr_snow_parallax(a.z[i]), a.r[i], nx, ny, &a.x[i], &a.y[i], &a.vx[i], &a.vy[i]);
}

/* `count` steps of flake i from time `step`, in registers. */
QR_STEP_FN void qr_run_snow(qr_step_arrays a, int32_t i, int64_t step, int64_t count)
{
    float x = a.x[i], y = a.y[i], vx = a.vx[i], vy = a.vy[i];
    const float r = a.r[i], p = qr_snow_parallax(a.z[i]);
    qr_snow_curve cx = qr_snow_curve_of(i, 0u, QR_SNOW_CELL_LOG2_X);
    qr_snow_curve cy = qr_snow_curve_of(i, 1u, QR_SNOW_CELL_LOG2_Y);
    for (int64_t k = 0; k < count; k++) {
        float nx = qr_snow_curve_at(&cx, step + k);
        float ny = qr_snow_curve_at(&cy, step + k);
        qr_snow_move(p, r, nx, ny, &x, &y, &vx, &vy);
    }
    a.x[i] = x;
    a.y[i] = y;
    a.vx[i] = vx;
    a.vy[i] = vy;
}

/* ---- many steps of one circle --------------------------------------------
 * qr_run_circle(anim, a, i, step, count) leaves circle i as count calls of
 * qr_step_circle(anim, a, i, step + k), k = 0, 1, ..., would, bit for bit:
 * a circle's step reads and writes only its own state, so its steps can run
 * back to back, and seeking runs each circle through all its steps at once
 * (on the GPU, one thread per circle).
 *
 * Hypnosis, bouncing balls and fireworks step a circle by a function of its
 * own state alone, not of the time: a float state (at most four floats)
 * from any start runs into a cycle (hypnosis' radius ramp, a spark's flight
 * from its launch state back to it, a ball at rest). Brent's cycle
 * detection finds a cycle length L after at most about twice (steps before
 * the cycle + L) steps; the steps left are then cut to their remainder
 * modulo L. States compare by their bits, so a NaN state is a fixed point
 * too. Snow's step depends on the time (its flutter noise) and runs every
 * step, the noise's lattice values computed once per cell. */

/* The time-independent step of a state s (see qr_run_circle's loads). */
QR_STEP_FN void qr_state_next(qr_anim anim, float fx, float fy, const float s0[4], float s[4])
{
    switch (anim) {
    case QR_ANIM_HYPNOSIS: s[0] = qr_hypnosis_next(s[0]); break;
    case QR_ANIM_BOUNCE: qr_bounce_next(&s[0], &s[1]); break;
    case QR_ANIM_FIREWORKS: qr_spark_next(fx, fy, s0, s); break;
    default: break;
    }
}

QR_STEP_FN int qr_state_same(const float a[4], const float b[4])
{
    for (int k = 0; k < 4; k++) {
        uint32_t ua, ub;
        memcpy(&ua, &a[k], sizeof ua);
        memcpy(&ub, &b[k], sizeof ub);
        if (ua != ub)
            return 0;
    }
    return 1;
}

QR_STEP_FN void qr_state_copy(float to[4], const float from[4])
{
    for (int k = 0; k < 4; k++)
        to[k] = from[k];
}

/* `count` time-independent steps of state s, by Brent's cycle detection. */
QR_STEP_FN void qr_run_cyclic(qr_anim anim, float fx, float fy, const float s0[4], float s[4],
                              int64_t count)
{
    if (count <= 0)
        return;
    float tortoise[4], hare[4];
    qr_state_copy(tortoise, s);
    qr_state_copy(hare, s);
    qr_state_next(anim, fx, fy, s0, hare);
    int64_t done = 1, power = 1, lambda = 1;
    /* hare is `done` steps from s, tortoise `lambda` steps behind it */
    while (done < count && !qr_state_same(tortoise, hare)) {
        if (power == lambda) {
            qr_state_copy(tortoise, hare);
            power *= 2;
            lambda = 0;
        }
        qr_state_next(anim, fx, fy, s0, hare);
        done++;
        lambda++;
    }
    /* on exit before count, the states repeat every lambda steps from the
     * tortoise's on, the hare's among them */
    int64_t left = count - done;
    if (left > 0)
        left %= lambda;
    for (int64_t k = 0; k < left; k++)
        qr_state_next(anim, fx, fy, s0, hare);
    qr_state_copy(s, hare);
}

QR_STEP_FN void qr_run_circle(qr_anim anim, qr_step_arrays a, int32_t i, int64_t step,
                              int64_t count)
{
    if (anim == QR_ANIM_SNOW) {
        qr_run_snow(a, i, step, count);
        return;
    }
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f}, s0[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float fx = 0.0f, fy = 0.0f;
    switch (anim) {
    case QR_ANIM_HYPNOSIS: s[0] = a.r[i]; break;
    case QR_ANIM_BOUNCE:
        s[0] = a.y[i];
        s[1] = a.vy[i];
        break;
    case QR_ANIM_FIREWORKS: {
        if (i < QR_STEP_FIREWORKS)
            return;
        int32_t f = (i - QR_STEP_FIREWORKS) / QR_STEP_SPARKS;
        fx = a.x[f];
        fy = a.y[f];
        s[0] = a.x[i];
        s[1] = a.y[i];
        s[2] = a.vx[i];
        s[3] = a.vy[i];
        s0[0] = a.x0[i];
        s0[1] = a.y0[i];
        s0[2] = a.vx0[i];
        s0[3] = a.vy0[i];
        break;
    }
    default: return;
    }
    qr_run_cyclic(anim, fx, fy, s0, s, count);
    switch (anim) {
    case QR_ANIM_HYPNOSIS: a.r[i] = s[0]; break;
    case QR_ANIM_BOUNCE:
        a.y[i] = s[0];
        a.vy[i] = s[1];
        break;
    default:
        a.x[i] = s[0];
        a.y[i] = s[1];
        a.vx[i] = s[2];
        a.vy[i] = s[3];
        break;
    }
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
