/* test_scenes_animate.c — scene storage and motion: allocation layout (the
 * animation arrays each kind of scene carries), deep clones, each animated
 * built-in scene's steps (against a model of the step, or the properties it
 * keeps), and frame seeking. */
#include "quadrender/threads.h"
#include "test_util.h"

#include <math.h>
#include <stdint.h>

#include "quadrender/scene.h"
#include "scene_util.h"

/* ---- allocation ---------------------------------------------------------- */

Test(scenes, alloc_layout)
{
    const struct {
        qr_anim anim;
        size_t per;
    } cases[] = {{QR_ANIM_NONE, 7}, {QR_ANIM_HYPNOSIS, 10}, {QR_ANIM_SNOW, 10},
                 {QR_ANIM_FIREWORKS, 14}};
    for (size_t c = 0; c < 4; ++c) {
        qr_scene *s;
        qr_error err;
        cr_assert_eq(qr_scene_create(5, cases[c].anim, &s, &err), QR_OK);
        cr_assert_eq(s->block_floats, 5 * cases[c].per);
        float *want[14] = {s->x, s->y, s->z, s->r, s->red, s->green, s->blue,
                           s->vx, s->vy, s->vz, s->x0, s->y0, s->vx0, s->vy0};
        for (size_t k = 0; k < 14; ++k) {
            if (k < cases[c].per)
                cr_assert_eq(want[k], s->block + 5 * k, "array %zu", k);
            else
                cr_assert_null(want[k], "array %zu", k);
        }
        for (size_t k = 0; k < s->block_floats; ++k)
            cr_assert(qr_test_float_bits(s->block[k]) == 0);
        cr_assert_eq(s->steps, 0);
        qr_scene_destroy(s);
    }
    qr_scene *s = (qr_scene *)1;
    qr_error err;
    cr_assert_eq(qr_scene_create(0, QR_ANIM_NONE, &s, &err), QR_OK);
    cr_assert_eq(s->n, 0);
    qr_scene_destroy(s);
    cr_assert_eq(qr_scene_create(-1, QR_ANIM_NONE, &s, &err), QR_ERR_INVALID);
    cr_assert_null(s);
    cr_assert_eq(qr_scene_create(QR_SCENE_MAX_CIRCLES + 1, QR_ANIM_NONE, &s, &err), QR_ERR_INVALID);
    qr_scene_destroy(NULL);
}

Test(scenes, clone_is_deep)
{
    qr_scene *a = qr_test_builtin("fireworks", 2), *b;
    qr_error err;
    qr_scene_step(a);
    cr_assert_eq(qr_scene_clone(a, &b, &err), QR_OK);
    qr_test_assert_same_scene(a, b, "clone");
    cr_assert_neq(a->block, b->block);
    cr_assert_str_eq(b->name, "fireworks");
    cr_assert_eq(b->steps, 1);
    cr_assert_eq(b->anim, a->anim);
    cr_assert_eq(b->x0, b->block + 10 * 315);
    b->x[0] = 7.0f;
    cr_assert(a->x[0] != 7.0f);
    qr_scene_destroy(a);
    qr_scene_destroy(b);
}

/* ---- animation --------------------------------------------------------- */

Test(scenes, static_scenes_do_not_move)
{
    const char *names[] = {"rgb", "pattern", "rand10k", "snowsingle"};
    for (int k = 0; k < 4; ++k) {
        qr_scene *a = qr_test_builtin(names[k], 0), *b = qr_test_builtin(names[k], 0);
        for (int i = 0; i < 10; ++i)
            qr_scene_step(a);
        qr_test_assert_same_scene(a, b, names[k]);
        cr_assert_eq(a->steps, 10);
        qr_scene_destroy(a);
        qr_scene_destroy(b);
    }
}

Test(scenes, hypnosis_step_wraps_at_half)
{
    qr_scene *s = qr_test_builtin("hypnosis", 0);
    int wrapped = 0;
    for (int step = 0; step < 200; ++step) {
        float before[25];
        memcpy(before, s->r, sizeof before);
        qr_scene_step(s);
        for (int i = 0; i < 25; ++i) {
            float want = before[i] > 0.5f ? 0.02f : before[i] + 0.01f;
            qr_test_assert_bits(s->r[i], want, "step %d circle %d", step, i);
            cr_assert(s->r[i] >= 0.02f && s->r[i] <= 0.52f);
            wrapped += before[i] > 0.5f;
        }
    }
    cr_assert(wrapped > 25, "radii wrap around repeatedly");
    /* circle 24 starts at 0.5 (not above it): it grows once more first */
    qr_scene *t = qr_test_builtin("hypnosis", 0);
    qr_scene_step(t);
    cr_assert(t->r[24] > 0.5f);
    qr_scene_step(t);
    qr_test_assert_bits(t->r[24], 0.02f, "wrapped");
    qr_scene_destroy(s);
    qr_scene_destroy(t);
}

Test(scenes, bouncingballs_bounce_and_stop)
{
    qr_scene *s = qr_test_builtin("bouncingballs", 0);
    qr_scene *ref = qr_test_builtin("bouncingballs", 0);
    const float dt = 1.0f / 60.0f;
    int bounced = 0;
    for (int step = 0; step < 2000; ++step) {
        for (int i = 0; i < 10; ++i) {
            float vy = ref->vy[i], y = ref->y[i];
            if (vy == 0.0f && y == 0.0f)
                continue;
            float ovy = vy, oy = y;
            if (y < 0 && vy < 0) {
                vy *= -0.8f;
                bounced++;
            }
            vy += -2.8f * dt;
            y += vy * dt;
            if (fabsf(vy - ovy) < 0.001f && oy < 0 && fabsf(y - oy) < 0.001f)
                vy = y = 0.0f;
            ref->vy[i] = vy;
            ref->y[i] = y;
        }
        qr_scene_step(s);
        qr_test_assert_same_scene(s, ref, "bounce step");
        for (int i = 0; i < 10; ++i)
            cr_assert(s->y[i] > -0.1f && s->y[i] < 2.0f);
    }
    cr_assert(bounced > 10);
    for (int i = 0; i < 10; ++i) {
        qr_test_assert_bits(s->vy[i], 0.0f, "ball %d stopped", i);
        qr_test_assert_bits(s->y[i], 0.0f, "ball %d on the floor", i);
        qr_test_assert_bits(s->vx[i], 0.0f, "no sideways motion");
    }
    qr_scene_destroy(s);
    qr_scene_destroy(ref);
}

Test(scenes, fireworks_sparks_fly_and_reset)
{
    qr_scene *s = qr_test_builtin("fireworks", 0);
    qr_scene *start = qr_test_builtin("fireworks", 0);
    const float dt = 1.0f / 60.0f;
    int resets = 0;
    for (int step = 0; step < 300; ++step) {
        float px[315], py[315];
        memcpy(px, s->x, sizeof px);
        memcpy(py, s->y, sizeof py);
        qr_scene_step(s);
        for (int i = 0; i < 15; ++i) {
            qr_test_assert_bits(s->x[i], start->x[i], "fireworks stay");
            qr_test_assert_bits(s->y[i], start->y[i], "fireworks stay");
        }
        for (int k = 15; k < 315; ++k) {
            int f = (k - 15) / 20;
            float x = px[k] + s->vx[k] * dt, y = py[k] + s->vy[k] * dt;
            float dx = x - s->x[f], dy = y - s->y[f];
            if (sqrtf(dx * dx + dy * dy) > 0.25f) {
                resets++;
                qr_test_assert_bits(s->x[k], start->x[k], "reset x");
                qr_test_assert_bits(s->y[k], start->y[k], "reset y");
                qr_test_assert_bits(s->vx[k], start->vx[k], "reset vx");
                qr_test_assert_bits(s->vy[k], start->vy[k], "reset vy");
            } else {
                qr_test_assert_bits(s->x[k], x, "spark %d x", k);
                qr_test_assert_bits(s->y[k], y, "spark %d y", k);
            }
            double d = hypot((double)s->x[k] - s->x[f], (double)s->y[k] - s->y[f]);
            cr_assert(d <= 0.25 + 1e-6);
        }
    }
    /* 0.245 at 0.2 per second is 74 steps: 4 full cycles of 300 sparks */
    cr_assert(resets >= 4 * 300, "resets %d", resets);
    qr_scene_destroy(s);
    qr_scene_destroy(start);
}

Test(scenes, snow_falls_and_wraps)
{
    qr_scene *s = qr_test_builtin("snow", 0);
    qr_scene *start = qr_test_builtin("snow", 0);
    int32_t n = s->n;
    float *prev_y = malloc((size_t)n * sizeof(float));
    long wrapped_bottom = 0, wrapped_side = 0;
    for (int step = 0; step < 600; ++step) {
        memcpy(prev_y, s->y, (size_t)n * sizeof(float));
        float *prev_x = malloc((size_t)n * sizeof(float));
        memcpy(prev_x, s->x, (size_t)n * sizeof(float));
        qr_scene_step(s);
        for (int32_t i = 0; i < n; ++i) {
            float r = s->r[i];
            cr_assert(isfinite(s->x[i]) && isfinite(s->y[i]) && isfinite(s->vx[i]) &&
                      isfinite(s->vy[i]), "flake %d not finite", i);
            if (s->y[i] > prev_y[i]) {
                /* only a flake that fell out at the bottom (one step moves
                 * less than 0.05) moves up: to the top */
                cr_assert(prev_y[i] < 0.05f, "flake %d rose from %g", i, prev_y[i]);
                qr_test_assert_bits(s->y[i], 1.0f + r, "flake %d back at the top", i);
                wrapped_bottom++;
            }
            if (fabsf(s->x[i] - prev_x[i]) > 0.5f)
                wrapped_side++;
            cr_assert(s->x[i] >= -r - 0.02f && s->x[i] <= 1.0f + r + 0.02f, "flake %d x", i);
            cr_assert(s->vy[i] < 0.0f && s->vy[i] > -2.0f, "flake %d vy %g", i, s->vy[i]);
            cr_assert(fabsf(s->vx[i]) < 1.0f);
        }
        free(prev_x);
    }
    cr_assert(wrapped_bottom > 1000, "bottom wraps %ld", wrapped_bottom);
    cr_assert(wrapped_side > 10, "side wraps %ld", wrapped_side);
    /* the flakes sway: horizontal velocities vary in sign */
    int left = 0, right = 0;
    for (int32_t i = 0; i < n; ++i) {
        left += s->vx[i] < 0;
        right += s->vx[i] > 0;
        qr_test_assert_bits(s->z[i], start->z[i], "depth unchanged");
        qr_test_assert_bits(s->r[i], start->r[i], "radius unchanged");
    }
    cr_assert(left > n / 4 && right > n / 4, "left %d right %d", left, right);
    free(prev_y);
    qr_scene_destroy(s);
    qr_scene_destroy(start);
}

Test(scenes, snow_is_deterministic)
{
    qr_scene *a = qr_test_builtin("snow", 1), *b = qr_test_builtin("snow", 1);
    for (int i = 0; i < 100; ++i)
        qr_scene_step(a);
    qr_error err;
    cr_assert_eq(qr_scene_seek_frame(b, 99, &err), QR_OK);
    qr_test_assert_same_scene(a, b, "snow after 100 steps");
    qr_scene_destroy(a);
    qr_scene_destroy(b);
}

Test(scenes, seek_frame)
{
    qr_error err;
    const char *names[] = {"hypnosis", "bouncingballs", "fireworks", "snow", "rgb"};
    for (int k = 0; k < 5; ++k) {
        qr_scene *a = qr_test_builtin(names[k], 0), *b = qr_test_builtin(names[k], 0);
        /* frame 0 is rendered after one step */
        cr_assert_eq(qr_scene_seek_frame(a, 0, &err), QR_OK);
        cr_assert_eq(a->steps, 1);
        qr_scene_step(b);
        qr_test_assert_same_scene(a, b, names[k]);
        /* frame k after k+1 steps, from wherever the scene is */
        cr_assert_eq(qr_scene_seek_frame(a, 40, &err), QR_OK);
        cr_assert_eq(a->steps, 41);
        for (int i = 0; i < 40; ++i)
            qr_scene_step(b);
        qr_test_assert_same_scene(a, b, names[k]);
        /* the same frame again is a no-op */
        cr_assert_eq(qr_scene_seek_frame(a, 40, &err), QR_OK);
        cr_assert_eq(a->steps, 41);
        qr_test_assert_same_scene(a, b, names[k]);
        /* backwards is refused and changes nothing */
        cr_assert_eq(qr_scene_seek_frame(a, 39, &err), QR_ERR_INVALID);
        cr_assert_not_null(strstr(err.msg, "39"));
        cr_assert_eq(a->steps, 41);
        cr_assert_eq(qr_scene_seek_frame(a, -1, &err), QR_ERR_INVALID);
        qr_scene_destroy(a);
        qr_scene_destroy(b);
    }
    /* a static scene reaches a far frame at once */
    qr_scene *s = qr_test_builtin("rand10k", 0);
    cr_assert_eq(qr_scene_seek_frame(s, 1000000000000LL, &err), QR_OK);
    cr_assert_eq(s->steps, 1000000000001LL);
    qr_scene_destroy(s);
}

/* ---- fast seeking ------------------------------------------------------------ */

/* Seeks a copy of `start` to each frame in turn and steps another copy one
 * step at a time alongside: the two agree on every byte at every frame. */
static void check_seek_against_steps(const qr_scene *start, const int64_t *frames, int nframes)
{
    qr_error err;
    qr_scene *a = NULL, *b = NULL;
    cr_assert_eq(qr_scene_clone(start, &a, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_clone(start, &b, &err), QR_OK, "%s", err.msg);
    for (int f = 0; f < nframes; f++) {
        cr_assert_eq(qr_scene_seek_frame(a, frames[f], &err), QR_OK, "%s", err.msg);
        while (b->steps < frames[f] + 1)
            qr_scene_step(b);
        cr_assert_eq(a->steps, frames[f] + 1);
        char what[96];
        snprintf(what, sizeof what, "%s seeking frame %lld", start->name, (long long)frames[f]);
        qr_test_assert_same_scene(a, b, what);
    }
    qr_scene_destroy(a);
    qr_scene_destroy(b);
}

/* Hypnosis, bouncing balls and fireworks seek by cycles: each frame, reached
 * straight from generation and in jumps, equals stepping one by one, well
 * past several cycles (a spark's flight, the radius ramp, balls at rest). */
Test(scenes, seek_by_cycles_equals_stepping, .timeout = 120)
{
    const char *names[] = {"hypnosis", "bouncingballs", "fireworks"};
    const int64_t jumps[] = {0, 1, 2, 47, 48, 49, 50, 333, 1000, 4095, 4096, 77777, 200000};
    for (int k = 0; k < 3; k++)
        for (uint32_t seed = 0; seed < 2; seed++) {
            qr_scene *s = qr_test_builtin(names[k], seed);
            check_seek_against_steps(s, jumps, (int)(sizeof jumps / sizeof jumps[0]));
            for (size_t j = 0; j < sizeof jumps / sizeof jumps[0]; j++)
                check_seek_against_steps(s, &jumps[j], 1);
            qr_scene_destroy(s);
        }
}

/* States far from the built-ins' own: a radius far below the ramp (a long
 * way into the cycle), one so negative that adding 0.01 leaves it alone, NaN
 * and infinite radii; sparks that never move, that move too slowly to
 * change, or that start outside their firework's reach; balls below the
 * floor, at rest, with NaN. Seeking still equals stepping. */
Test(scenes, seek_by_cycles_odd_states, .timeout = 120)
{
    qr_error err;
    const int64_t frames[] = {0, 5, 99, 12345, 150000};

    qr_scene *h = NULL;
    cr_assert_eq(qr_scene_create(7, QR_ANIM_HYPNOSIS, &h, &err), QR_OK, "%s", err.msg);
    const float radii[] = {-1000.0f, -1e7f, NAN, INFINITY, -INFINITY, 0.5f, 0.50001f};
    for (int i = 0; i < 7; i++)
        h->r[i] = radii[i];
    snprintf(h->name, sizeof h->name, "odd hypnosis");
    check_seek_against_steps(h, frames, 5);
    qr_scene_destroy(h);

    qr_scene *b = NULL;
    cr_assert_eq(qr_scene_create(6, QR_ANIM_BOUNCE, &b, &err), QR_OK, "%s", err.msg);
    const float ys[] = {-0.5f, 0.0f, NAN, 3.0f, -0.0f, 1e30f};
    const float vys[] = {-2.0f, 0.0f, 0.1f, 5.0f, -0.0f, 0.0f};
    for (int i = 0; i < 6; i++) {
        b->y[i] = ys[i];
        b->vy[i] = vys[i];
    }
    snprintf(b->name, sizeof b->name, "odd balls");
    check_seek_against_steps(b, frames, 5);
    qr_scene_destroy(b);

    qr_scene *f = qr_test_builtin("fireworks", 3);
    f->vx[20] = f->vy[20] = 0.0f;                       /* never moves */
    f->vx[40] = 1e-12f;                                  /* too slow to change x */
    f->x[60] = f->x[60] + 0.5f;                          /* starts out of reach */
    f->x0[61] = f->x0[61] + 0.5f;                        /* restarts out of reach */
    f->vx0[80] = f->vy0[80] = 0.0f;                      /* restarts, then stays */
    f->x[100] = NAN;
    check_seek_against_steps(f, frames, 5);
    qr_scene_destroy(f);
}

/* Snow steps every step (its noise depends on the time), each flake's steps
 * back to back and the flakes in chunks of steps: frames across noise-cell
 * edges (64 and 128 steps) and across chunk edges equal stepping one by
 * one, on one thread and on many. */
Test(scenes, snow_seek_equals_stepping, .timeout = 300)
{
    const int64_t frames[] = {0, 62, 63, 64, 127, 128, 200, 420};
    qr_scene *s = qr_test_builtin("snow", 7);
    check_seek_against_steps(s, frames, (int)(sizeof frames / sizeof frames[0]));
    qr_scene *one = NULL, *many = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_clone(s, &one, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_clone(s, &many, &err), QR_OK, "%s", err.msg);
    qr_set_threads(1);
    cr_assert_eq(qr_scene_seek_frame(one, 500, &err), QR_OK, "%s", err.msg);
    qr_set_threads(qr_cpu_count() + 3);
    cr_assert_eq(qr_scene_seek_frame(many, 500, &err), QR_OK, "%s", err.msg);
    qr_set_threads(0);
    qr_test_assert_same_scene(one, many, "snow frame 500 on one thread and on many");
    qr_scene_destroy(one);
    qr_scene_destroy(many);
    qr_scene_destroy(s);
}

typedef struct progress_log {
    int calls;
    int64_t last_done, total;
    int increasing;
} progress_log;

static void log_progress(void *ctx, int64_t done, int64_t total)
{
    progress_log *p = ctx;
    p->increasing &= done > p->last_done && done <= total && (p->calls == 0 || total == p->total);
    p->calls++;
    p->last_done = done;
    p->total = total;
}

/* A snow seek of several chunks reports its progress, rising to the total;
 * a seek by cycles and a static scene's report nothing (they take no time). */
Test(scenes, seek_progress)
{
    qr_error err;
    qr_scene *s = qr_test_builtin("snow", 1);
    progress_log p = {0, 0, 0, 1};
    cr_assert_eq(qr_scene_seek_frame_progress(s, 999, log_progress, &p, &err), QR_OK, "%s", err.msg);
    cr_assert(p.calls >= 2, "%d progress calls", p.calls);
    cr_assert(p.increasing);
    cr_assert_eq(p.total, 1000);
    cr_assert_eq(p.last_done, 1000);
    qr_scene_destroy(s);
    const char *quiet[] = {"fireworks", "rand10k"};
    for (int k = 0; k < 2; k++) {
        s = qr_test_builtin(quiet[k], 1);
        progress_log q = {0, 0, 0, 1};
        cr_assert_eq(qr_scene_seek_frame_progress(s, 1000000, log_progress, &q, &err), QR_OK, "%s",
                     err.msg);
        cr_assert_eq(q.calls, 0, "%s: %d progress calls", quiet[k], q.calls);
        cr_assert_eq(s->steps, 1000001);
        qr_scene_destroy(s);
    }
}
