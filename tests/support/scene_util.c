/* scene_util.c — see scene_util.h. */
#include "scene_util.h"

#include <string.h>

qr_scene *qr_test_scene_new(int32_t n)
{
    qr_scene *s = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_create(n, QR_ANIM_NONE, &s, &err), QR_OK, "%s", err.msg);
    return s;
}

void qr_test_set_circle(qr_scene *s, int32_t i, float x, float y, float r)
{
    s->x[i] = x;
    s->y[i] = y;
    s->z[i] = 0.5f;
    s->r[i] = r;
    s->red[i] = 1.0f;
    s->green[i] = 0.5f;
    s->blue[i] = 0.25f;
}

qr_scene *qr_test_builtin(const char *name, uint32_t seed)
{
    qr_scene *s = NULL;
    qr_error err;
    qr_status st = qr_scene_builtin(name, seed, &s, &err);
    cr_assert_eq(st, QR_OK, "%s: %s", name, err.msg);
    cr_assert_not_null(s);
    return s;
}

uint32_t qr_test_float_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

void qr_test_assert_same_scene(const qr_scene *a, const qr_scene *b, const char *what)
{
    cr_assert_eq(a->n, b->n, "%s: n", what);
    cr_assert_eq(a->block_floats, b->block_floats, "%s: block size", what);
    cr_assert(memcmp(a->block, b->block, a->block_floats * sizeof(float)) == 0,
              "%s: contents differ", what);
}

qr_image *qr_test_garbage_image(int32_t w, int32_t h)
{
    qr_image *img = NULL;
    qr_error err;
    cr_assert_eq(qr_image_create(w, h, &img, &err), QR_OK, "%s", err.msg);
    for (size_t i = 0; i < (size_t)w * (size_t)h * 4; i++) img->rgba[i] = -7.0f;
    return img;
}

qr_scene *qr_test_builtin_frame(const char *name, int64_t frame)
{
    qr_scene *s = qr_test_builtin(name, 0);
    qr_error err;
    cr_assert_eq(qr_scene_seek_frame(s, frame, &err), QR_OK, "%s", err.msg);
    return s;
}

int32_t qr_test_cut_scene(int32_t n, int cut, uint64_t seed, int32_t *sizes, int32_t cap)
{
    if (cut == 0 || n == 0) {
        sizes[0] = n;
        return 1;
    }
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + (uint64_t)cut;
    int32_t k = 0, left = n;
    const int32_t most = n / cut > 1 ? n / cut : 1;
    while (left > 0) {
        cr_assert_lt(k, cap, "too many chunks");
        int32_t c = 1;
        if (cut > 1) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            c = 1 + (int32_t)(x % (uint64_t)most);
        }
        c = c < left ? c : left;
        sizes[k++] = c;
        left -= c;
    }
    return k;
}
