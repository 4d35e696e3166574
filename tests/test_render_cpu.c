/* test_render_cpu.c — the CPU reference renderer against hand-checked images
 * and against a naive, independent transcription of the CS149 reference loop.
 *
 * The hand-checked cases use coordinates where every float operation is exact
 * (multiples of 1/16 on 4 x 4 and 8 x 8 images) or where every pixel centre is
 * far from the circle's edge, so the expected coverage can be worked out on
 * paper; the expected colours are written as literals.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "quadrender/image.h"
#include "quadrender/render_cpu.h"
#include "quadrender/scene.h"
#include "random_scene.h"
#include "scene_util.h"
#include "test_util.h"

/* ---- helpers -------------------------------------------------------------------- */

static qr_scene *scene_new(int32_t n, qr_shading shading)
{
    qr_scene *s = NULL;
    qr_error err;
    cr_assert_eq(qr_scene_create(n, QR_ANIM_NONE, &s, &err), QR_OK, "%s", err.msg);
    s->shading = shading;
    return s;
}

static void set_circle(qr_scene *s, int32_t i, float x, float y, float r, float red, float green,
                       float blue)
{
    s->x[i] = x;
    s->y[i] = y;
    s->z[i] = 0.5f;
    s->r[i] = r;
    s->red[i] = red;
    s->green[i] = green;
    s->blue[i] = blue;
}

/* Renders into an image pre-filled with garbage, so a missing clear shows. */
static qr_image *render(const qr_scene *s, int32_t w, int32_t h)
{
    qr_image *img = qr_test_garbage_image(w, h);
    qr_error err;
    cr_assert_eq(qr_render_cpu(s, img, &err), QR_OK, "%s", err.msg);
    return img;
}

static const float *pixel(const qr_image *img, int32_t i, int32_t j)
{
    return img->rgba + ((size_t)j * (size_t)img->width + (size_t)i) * 4;
}

static void expect_pixel(const qr_image *img, int32_t i, int32_t j, float r, float g, float b,
                         float a)
{
    const float *p = pixel(img, i, j);
    cr_assert(p[0] == r && p[1] == g && p[2] == b && p[3] == a,
              "pixel (%d,%d) is (%.9g, %.9g, %.9g, %.9g), expected (%.9g, %.9g, %.9g, %.9g)", i, j,
              p[0], p[1], p[2], p[3], r, g, b, a);
}

typedef struct pix {
    int32_t i, j;
} pix;

/* Exactly the listed pixels hold `want`; every other pixel is still white. */
static void expect_only(const qr_image *img, const pix *covered, int ncovered, const float want[4])
{
    for (int32_t j = 0; j < img->height; j++)
        for (int32_t i = 0; i < img->width; i++) {
            int hit = 0;
            for (int k = 0; k < ncovered; k++)
                hit |= covered[k].i == i && covered[k].j == j;
            if (hit)
                expect_pixel(img, i, j, want[0], want[1], want[2], want[3]);
            else
                expect_pixel(img, i, j, 1.0f, 1.0f, 1.0f, 1.0f);
        }
}

static void expect_all_white(const qr_image *img)
{
    expect_only(img, NULL, 0, NULL);
}

/* ---- flat shading, hand-checked --------------------------------------------------- */

/* 4 x 4: pixel centres at 1/8, 3/8, 5/8, 7/8. A circle of radius 1/4 at the
 * centre reaches the four middle pixels (d2 = 1/32 <= 1/16) and no others
 * (nearest outside: d2 = 9/64 + 1/64 = 5/32). */
Test(render_cpu, one_circle)
{
    qr_scene *s = scene_new(1, QR_SHADE_FLAT);
    set_circle(s, 0, 0.5f, 0.5f, 0.25f, 0.0f, 0.25f, 1.0f);
    qr_image *img = render(s, 4, 4);
    const pix cov[] = {{1, 1}, {2, 1}, {1, 2}, {2, 2}};
    /* 0.5 * c + 0.5 * 1 */
    const float want[4] = {0.5f, 0.625f, 1.0f, 1.5f};
    expect_only(img, cov, 4, want);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

/* 4 x 1: A (red, r 0.2 at x 0.25) covers pixels 0 and 1; B (blue, r 0.4 at
 * x 0.75) covers pixels 1, 2, 3 (pixel 1: d2 = 9/64 < 0.16). Pixel 1 gets
 * both, and the later circle dominates. */
Test(render_cpu, blending_order_matters)
{
    for (int order = 0; order < 2; order++) {
        qr_scene *s = scene_new(2, QR_SHADE_FLAT);
        int a = order == 0 ? 0 : 1, b = 1 - a;
        set_circle(s, a, 0.25f, 0.5f, 0.2f, 1.0f, 0.0f, 0.0f);
        set_circle(s, b, 0.75f, 0.5f, 0.4f, 0.0f, 0.0f, 1.0f);
        qr_image *img = render(s, 4, 1);
        expect_pixel(img, 0, 0, 1.0f, 0.5f, 0.5f, 1.5f);
        if (order == 0) /* red, then blue: (1,.5,.5) -> (.5,.25,.75) */
            expect_pixel(img, 1, 0, 0.5f, 0.25f, 0.75f, 2.0f);
        else /* blue, then red: (.5,.5,1) -> (.75,.25,.5) */
            expect_pixel(img, 1, 0, 0.75f, 0.25f, 0.5f, 2.0f);
        expect_pixel(img, 2, 0, 0.5f, 0.5f, 1.0f, 1.5f);
        expect_pixel(img, 3, 0, 0.5f, 0.5f, 1.0f, 1.5f);
        qr_image_destroy(img);
        qr_scene_destroy(s);
    }
}

/* 8 x 8, circle centred on pixel (0,0)'s centre (1/16, 1/16). Pixel (i,j) is
 * at distance (i/8, j/8), all exact, so with r = 5/8 a pixel is covered iff
 * i*i + j*j <= 25: (5,0), (0,5), (3,4), (4,3) lie exactly on the edge and are
 * covered (d2 == r*r). One ulp less radius drops them; one ulp more adds none. */
Test(render_cpu, edge_through_pixel_centre)
{
    const float radii[3] = {0.625f, nextafterf(0.625f, 0.0f), nextafterf(0.625f, 1.0f)};
    const int inclusive[3] = {1, 0, 1};
    for (int k = 0; k < 3; k++) {
        qr_scene *s = scene_new(1, QR_SHADE_FLAT);
        set_circle(s, 0, 0.0625f, 0.0625f, radii[k], 0.0f, 0.0f, 0.0f);
        qr_image *img = render(s, 8, 8);
        int count = 0;
        for (int32_t j = 0; j < 8; j++)
            for (int32_t i = 0; i < 8; i++) {
                int q = i * i + j * j;
                int in = inclusive[k] ? q <= 25 : q < 25;
                count += in;
                if (in)
                    expect_pixel(img, i, j, 0.5f, 0.5f, 0.5f, 1.5f);
                else
                    expect_pixel(img, i, j, 1.0f, 1.0f, 1.0f, 1.0f);
            }
        cr_assert_eq(count, inclusive[k] ? 26 : 22, "radius %d", k);
        qr_image_destroy(img);
        qr_scene_destroy(s);
    }
}

/* 7 x 3: centres x = (i+.5)/7, y = 1/6, 1/2, 5/6. r = 0.2 at the middle:
 * only the middle row (dy 0) is within reach, and there |dx| <= 1/7 for
 * i = 2, 3, 4 (the next ones are 2/7 away). */
Test(render_cpu, non_square_7x3)
{
    qr_scene *s = scene_new(1, QR_SHADE_FLAT);
    set_circle(s, 0, 0.5f, 0.5f, 0.2f, 1.0f, 0.0f, 0.5f);
    qr_image *img = render(s, 7, 3);
    const pix cov[] = {{2, 1}, {3, 1}, {4, 1}};
    const float want[4] = {1.0f, 0.5f, 0.75f, 1.5f};
    expect_only(img, cov, 3, want);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

/* 1 x 9 and 9 x 1: the same circle reaches centres within 0.2 of 0.5, i.e.
 * indices 3, 4, 5 (offsets 1/9; the next is 2/9 > 0.2). */
Test(render_cpu, thin_images)
{
    qr_scene *s = scene_new(1, QR_SHADE_FLAT);
    set_circle(s, 0, 0.5f, 0.5f, 0.2f, 0.0f, 0.5f, 1.0f);
    const float want[4] = {0.5f, 0.75f, 1.0f, 1.5f};

    qr_image *img = render(s, 1, 9);
    const pix tall[] = {{0, 3}, {0, 4}, {0, 5}};
    expect_only(img, tall, 3, want);
    qr_image_destroy(img);

    img = render(s, 9, 1);
    const pix wide[] = {{3, 0}, {4, 0}, {5, 0}};
    expect_only(img, wide, 3, want);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

/* 1 x 1: the only sample is (0.5, 0.5). */
Test(render_cpu, one_pixel)
{
    const struct {
        float x, y, r;
        int covered;
    } cases[] = {
        {0.5f, 0.5f, 0.1f, 1},  /* centred */
        {0.3f, 0.5f, 0.1f, 0},  /* 0.2 away */
        {0.0f, 0.0f, 0.6f, 0},  /* corner, 0.707 away */
        {0.0f, 0.0f, 0.75f, 1},
        {0.5f, 1.0f, 0.5f, 1},  /* edge exactly on the sample */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        qr_scene *s = scene_new(1, QR_SHADE_FLAT);
        set_circle(s, 0, cases[k].x, cases[k].y, cases[k].r, 0.0f, 0.0f, 0.0f);
        qr_image *img = render(s, 1, 1);
        if (cases[k].covered)
            expect_pixel(img, 0, 0, 0.5f, 0.5f, 0.5f, 1.5f);
        else
            expect_pixel(img, 0, 0, 1.0f, 1.0f, 1.0f, 1.0f);
        qr_image_destroy(img);
        qr_scene_destroy(s);
    }
}

/* 4 x 4, circles hanging over each edge and corner, and two wholly outside.
 *   (-0.1, 0.5) r .3: (0,1), (0,2)  [d2 = .050625 + .015625 = .06625 <= .09]
 *   (1.0, 0.5) r .3:  (3,1), (3,2)  [d2 = 1/32]
 *   (1.05,1.05) r .3: (3,3)         [d2 = 2 * .175^2 = .06125]
 * The nearest misses are all above .15. */
Test(render_cpu, partly_off_screen)
{
    qr_scene *s = scene_new(5, QR_SHADE_FLAT);
    set_circle(s, 0, -0.1f, 0.5f, 0.3f, 0.0f, 0.0f, 0.0f);
    set_circle(s, 1, 1.0f, 0.5f, 0.3f, 0.0f, 0.0f, 0.0f);
    set_circle(s, 2, 1.05f, 1.05f, 0.3f, 0.0f, 0.0f, 0.0f);
    set_circle(s, 3, -0.5f, -0.5f, 0.3f, 0.0f, 0.0f, 0.0f);
    set_circle(s, 4, 1.5f, 0.5f, 0.4f, 0.0f, 0.0f, 0.0f);
    qr_image *img = render(s, 4, 4);
    const pix cov[] = {{0, 1}, {0, 2}, {3, 1}, {3, 2}, {3, 3}};
    const float want[4] = {0.5f, 0.5f, 0.5f, 1.5f};
    expect_only(img, cov, 5, want);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

Test(render_cpu, circle_larger_than_image)
{
    qr_scene *s = scene_new(1, QR_SHADE_FLAT);
    set_circle(s, 0, 0.5f, 0.5f, 5.0f, 0.25f, 0.5f, 0.75f);
    qr_image *img = render(s, 7, 3);
    for (int32_t j = 0; j < 3; j++)
        for (int32_t i = 0; i < 7; i++)
            expect_pixel(img, i, j, 0.625f, 0.75f, 0.875f, 1.5f);
    qr_image_destroy(img);

    /* centred far off-screen and still covering everything */
    set_circle(s, 0, -3.0f, -3.0f, 10.0f, 0.0f, 0.0f, 0.0f);
    img = render(s, 5, 6);
    for (int32_t j = 0; j < 6; j++)
        for (int32_t i = 0; i < 5; i++)
            expect_pixel(img, i, j, 0.5f, 0.5f, 0.5f, 1.5f);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

/* Degenerate circles draw nothing (the documented deviation: the reference
 * would colour the sample a zero-radius circle sits on). */
Test(render_cpu, degenerate_circles_draw_nothing)
{
    const float c = 0.125f; /* pixel (0,0)'s centre on a 4 x 4 image */
    const float bad[][7] = {
        /* x, y, r, red, green, blue, z */
        {c, c, 0.0f, 0, 0, 0, 0.5f},
        {c, c, -0.0f, 0, 0, 0, 0.5f},
        {c, c, -0.1f, 0, 0, 0, 0.5f},
        {c, c, NAN, 0, 0, 0, 0.5f},
        {c, c, INFINITY, 0, 0, 0, 0.5f},
        {NAN, c, 0.2f, 0, 0, 0, 0.5f},
        {c, INFINITY, 0.2f, 0, 0, 0, 0.5f},
        {c, c, 0.2f, NAN, 0, 0, 0.5f},
        {c, c, 0.2f, 0, -INFINITY, 0, 0.5f},
        {c, c, 0.2f, 0, 0, 0, NAN},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        qr_scene *s = scene_new(1, QR_SHADE_FLAT);
        set_circle(s, 0, bad[k][0], bad[k][1], bad[k][2], bad[k][3], bad[k][4], bad[k][5]);
        s->z[0] = bad[k][6];
        qr_image *img = render(s, 4, 4);
        expect_all_white(img);
        qr_image_destroy(img);
        qr_scene_destroy(s);
    }
    /* while the tiniest real circle on that centre does draw */
    qr_scene *s = scene_new(1, QR_SHADE_FLAT);
    set_circle(s, 0, c, c, 1e-6f, 0.0f, 0.0f, 0.0f);
    qr_image *img = render(s, 4, 4);
    const pix cov[] = {{0, 0}};
    const float want[4] = {0.5f, 0.5f, 0.5f, 1.5f};
    expect_only(img, cov, 1, want);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

/* Geometry that overflows a float draws nothing: with r*r infinite, a pixel
 * whose squared distance overflows too would pass d2 <= r*r. The first
 * circle is the issue's `-3e38 3e38 0 3e38 0 1 0`: its box is column 0, and
 * it lies ~4e38 away from every pixel. The others: a radius whose square
 * overflows, off and on the image; a finite r*r with distances that
 * overflow (box column 0 and row 0, the circle 2e19 away). */
Test(render_cpu, overflowing_circles_draw_nothing)
{
    const float far[][3] = {
        /* x, y, r */
        {-3e38f, 3e38f, 3e38f},
        {3e38f, -3e38f, 3e38f},
        {-3e38f, -3e38f, 3e38f},
        {1e30f, 1e30f, 1e30f},
        {0.5f, 0.5f, 2e19f},
        {-1.5e19f, 1.5e19f, 1.5e19f},
        {-1.5e19f, -1.5e19f, 1.5e19f},
    };
    const int32_t sizes[][2] = {{4, 4}, {7, 3}, {1, 1}};
    for (size_t k = 0; k < sizeof far / sizeof far[0]; k++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            qr_scene *s = scene_new(1, QR_SHADE_FLAT);
            set_circle(s, 0, far[k][0], far[k][1], far[k][2], 0.0f, 1.0f, 0.0f);
            qr_image *img = render(s, sizes[z][0], sizes[z][1]);
            expect_all_white(img);
            qr_image_destroy(img);
            s->shading = QR_SHADE_SNOW;
            qr_image *snow = render(s, sizes[z][0], sizes[z][1]);
            qr_image *bg = NULL;
            qr_error err;
            cr_assert_eq(qr_image_create(sizes[z][0], sizes[z][1], &bg, &err), QR_OK, "%s", err.msg);
            qr_image_clear(bg, QR_SHADE_SNOW);
            cr_assert(memcmp(snow->rgba, bg->rgba, (size_t)sizes[z][0] * sizes[z][1] * 4 * sizeof(float)) == 0,
                      "circle %zu drew on a snow background", k);
            qr_image_destroy(bg);
            qr_image_destroy(snow);
            qr_scene_destroy(s);
        }
    /* a radius just below the overflow still covers the image it sits on */
    qr_scene *s = scene_new(1, QR_SHADE_FLAT);
    set_circle(s, 0, 0.5f, 0.5f, 1e19f, 0.0f, 0.0f, 0.0f);
    qr_image *img = render(s, 3, 2);
    for (int32_t j = 0; j < 2; j++)
        for (int32_t i = 0; i < 3; i++)
            expect_pixel(img, i, j, 0.5f, 0.5f, 0.5f, 1.5f);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

Test(render_cpu, empty_scene_is_background)
{
    qr_scene *s = scene_new(0, QR_SHADE_FLAT);
    qr_image *img = render(s, 3, 2);
    expect_all_white(img);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

/* 3 x 3; k circles on the middle pixel only (r 0.1, neighbours 1/3 away).
 * Colour (0, 1, 0.5) blended k times: red 2^-k, green 1, blue 0.5 + 2^-(k+1),
 * alpha 1 + 0.5 k: all exact in float. */
Test(render_cpu, alpha_accumulates)
{
    for (int32_t k = 0; k <= 12; k++) {
        qr_scene *s = scene_new(k, QR_SHADE_FLAT);
        for (int32_t i = 0; i < k; i++)
            set_circle(s, i, 0.5f, 0.5f, 0.1f, 0.0f, 1.0f, 0.5f);
        qr_image *img = render(s, 3, 3);
        const pix cov[] = {{1, 1}};
        const float want[4] = {ldexpf(1.0f, -k), 1.0f, 0.5f + ldexpf(1.0f, -(k + 1)),
                               1.0f + 0.5f * (float)k};
        expect_only(img, cov, 1, want);
        qr_image_destroy(img);
        qr_scene_destroy(s);
    }
}

Test(render_cpu, rejects_bad_arguments)
{
    qr_image *img = NULL;
    qr_error err;
    cr_assert_eq(qr_image_create(2, 2, &img, &err), QR_OK);
    cr_assert_eq(qr_render_cpu(NULL, img, &err), QR_ERR_INVALID);
    qr_scene *s = scene_new(1, QR_SHADE_FLAT);
    cr_assert_eq(qr_render_cpu(s, NULL, &err), QR_ERR_INVALID);
    qr_scene_destroy(s);
    qr_image_destroy(img);
}

/* ---- snow shading ------------------------------------------------------------------ */

static double snow_background(int32_t j, int32_t h)
{
    return 0.4 + 0.45 * (double)(h - j) / (double)h;
}

Test(render_cpu, snow_background_only)
{
    qr_scene *s = scene_new(0, QR_SHADE_SNOW);
    qr_image *img = render(s, 5, 7);
    for (int32_t j = 0; j < 7; j++)
        for (int32_t i = 0; i < 5; i++) {
            const float *p = pixel(img, i, j);
            for (int c = 0; c < 3; c++)
                cr_assert(fabs(p[c] - snow_background(j, 7)) < 1e-6, "row %d: %.9g", j, p[c]);
            cr_assert_eq(p[3], 1.0f);
        }
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

/* One flake, radius 1/4 at the centre of 8 x 8, depth 0.3. Centres are at
 * odd sixteenths, so pixel offsets are (a/16, b/16) with a, b odd, and the
 * flake covers a*a + b*b <= 16: the middle 4 x 4 block minus its corners.
 * Expected values from the spec's formula in double precision. */
Test(render_cpu, snow_one_flake)
{
    const float fz = 0.3f, fr = 0.25f;
    qr_scene *s = scene_new(1, QR_SHADE_SNOW);
    set_circle(s, 0, 0.5f, 0.5f, fr, 0.1f, 0.2f, 0.3f); /* colour is ignored by snow */
    s->z[0] = fz;
    qr_image *img = render(s, 8, 8);

    static const double ramp[5][3] = {
        {1, 1, 1}, {1, 1, 1}, {0.8, 0.9, 1}, {0.8, 0.9, 1}, {0.8, 0.8, 1}};
    int covered = 0;
    for (int32_t j = 0; j < 8; j++)
        for (int32_t i = 0; i < 8; i++) {
            double dx = 0.5 - (i + 0.5) / 8.0, dy = 0.5 - (j + 0.5) / 8.0;
            double d2 = dx * dx + dy * dy;
            double bg = snow_background(j, 8);
            double want[4] = {bg, bg, bg, 1.0};
            if (d2 <= (double)fr * fr) {
                covered++;
                double t = sqrt(d2) / fr;
                int base = (int)(t * 4) < 4 ? (int)(t * 4) : 4;
                int next = base < 4 ? base + 1 : 4;
                double w = t * 4 - base;
                double maxa = 0.6 + 0.4 * (1.0 - fz);
                maxa = maxa > 1 ? 1 : (maxa < 0 ? 0 : maxa);
                double alpha = 0.5 * maxa * exp(-4 * t * t);
                for (int c = 0; c < 3; c++) {
                    double col = (1 - w) * ramp[base][c] + w * ramp[next][c];
                    want[c] = alpha * col + (1 - alpha) * bg;
                }
                want[3] = 1.0 + alpha;
            }
            const float *p = pixel(img, i, j);
            for (int c = 0; c < 4; c++)
                cr_assert(fabs(p[c] - want[c]) < 1e-6, "pixel (%d,%d) channel %d: %.9g vs %.9g",
                          i, j, c, p[c], want[c]);
        }
    cr_assert_eq(covered, 12);
    /* the flake is visible: a covered pixel differs from the background */
    cr_assert(fabs(pixel(img, 3, 3)[0] - snow_background(3, 8)) > 0.05);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

/* ---- bit-exactness against a naive transcription of the CS149 loop ------------------ */

#define NAIVE_CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : ((v) > (hi) ? (hi) : (v)))

/* Written straight from the reference: its own bounding box with plain (int)
 * casts (safe here: |coordinates * size| stays far inside int range), no
 * shared helpers, plain float arithmetic. The picture's options read
 * straight from the scene: the background colour instead of white, the
 * circle's alpha instead of .5f. */
static void naive_reference(const qr_scene *s, int width, int height, float *data)
{
    for (size_t k = 0; k < (size_t)width * (size_t)height * 4; k++)
        data[k] = k % 4 == 3 ? (s->transparent ? 0.f : 1.f) : s->background[k % 4];
    const int side = width > height ? width : height;
    for (int c = 0; c < s->n; c++) {
        float px = s->x[c], py = s->y[c], rad = s->r[c];
        /* anti-aliased edges: half a pixel further, for circles that draw */
        if (s->antialias && rad > 0.f && rad * rad - rad * rad == 0.f)
            rad = rad + 0.5f / (float)side;
        float minX = px - rad, maxX = px + rad;
        float minY = py - rad, maxY = py + rad;
        int screenMinX = NAIVE_CLAMP((int)(minX * width), 0, width);
        int screenMaxX = NAIVE_CLAMP((int)(maxX * width) + 1, 0, width);
        int screenMinY = NAIVE_CLAMP((int)(minY * height), 0, height);
        int screenMaxY = NAIVE_CLAMP((int)(maxY * height) + 1, 0, height);
        float invWidth = 1.f / width;
        float invHeight = 1.f / height;
        for (int pixelY = screenMinY; pixelY < screenMaxY; pixelY++) {
            float *imgPtr = &data[4 * (pixelY * width + screenMinX)];
            for (int pixelX = screenMinX; pixelX < screenMaxX; pixelX++) {
                float centerX = invWidth * ((float)pixelX + 0.5f);
                float centerY = invHeight * ((float)pixelY + 0.5f);
                float diffX = px - centerX;
                float diffY = py - centerY;
                float pixelDist = diffX * diffX + diffY * diffY;
                float maxDist = rad * rad;
                if (!(pixelDist > maxDist)) {
                    float alpha = s->alpha ? s->alpha[c] : .5f;
                    if (s->antialias) {
                        float cover = (maxDist - pixelDist) * ((float)side / (2.f * rad));
                        alpha = alpha * (cover < 1.f ? cover : 1.f);
                    }
                    float oneMinusAlpha = 1.f - alpha;
                    imgPtr[0] = alpha * s->red[c] + oneMinusAlpha * imgPtr[0];
                    imgPtr[1] = alpha * s->green[c] + oneMinusAlpha * imgPtr[1];
                    imgPtr[2] = alpha * s->blue[c] + oneMinusAlpha * imgPtr[2];
                    /* no background: the coverage, a channel of value 1 */
                    if (s->transparent)
                        imgPtr[3] = alpha + oneMinusAlpha * imgPtr[3];
                    else
                        imgPtr[3] += alpha;
                }
                imgPtr += 4;
            }
        }
    }
}

/* Random circles would almost never put an edge within an ulp of a pixel
 * centre, so in flat shading (where only coverage decisions matter) a renderer
 * computing the centres slightly differently would still pass. Here each
 * circle's radius is tuned, in ulps, so that its edge grazes one pixel centre
 * (as the spec computes it): alternately just covering it (r*r <= d2 by the
 * least margin) and just missing it. */
static qr_scene *grazing_scene(int32_t n, uint64_t seed, int width, int height)
{
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_UNIFORM, seed, n);
    qr_test_rng st = qr_test_rng_seed(seed ^ 0x9e3779b9u);
    for (int32_t i = 0; i < n; i++) {
        int px = (int)qr_test_rng_below(&st, (uint32_t)width);
        int py = (int)qr_test_rng_below(&st, (uint32_t)height);
        float cx = (1.f / width) * ((float)px + 0.5f);
        float cy = (1.f / height) * ((float)py + 0.5f);
        float dx = s->x[i] - cx, dy = s->y[i] - cy;
        float d2 = dx * dx + dy * dy;
        float r = sqrtf(d2);
        while (r * r > d2)
            r = nextafterf(r, 0.0f);
        while (!(nextafterf(r, INFINITY) * nextafterf(r, INFINITY) > d2))
            r = nextafterf(r, INFINITY);
        if (i % 2)
            r = nextafterf(r, INFINITY);
        if (r > 0.0f)
            s->r[i] = r;
    }
    return s;
}

Test(render_cpu, bit_exact_against_naive_reference)
{
    const int32_t sizes[][2] = {{64, 48}, {100, 100}, {37, 91}, {1, 1}};
    const uint32_t seeds[] = {1u, 2463534242u, 88172645u};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (size_t k = 0; k < 2 * sizeof seeds / sizeof seeds[0]; k++) {
            int32_t w = sizes[z][0], h = sizes[z][1];
            size_t seed = k % 3;
            qr_scene *s = k < 3 ? qr_test_random_scene(QR_TEST_MIX_UNIFORM, seeds[seed], 300)
                                : grazing_scene(300, seeds[seed], w, h);
            qr_image *img = render(s, w, h);
            size_t n = (size_t)w * (size_t)h * 4;
            float *want = malloc(n * sizeof *want);
            naive_reference(s, w, h, want);
            for (size_t q = 0; q < n; q++) {
                uint32_t a, b;
                memcpy(&a, &img->rgba[q], 4);
                memcpy(&b, &want[q], 4);
                cr_assert_eq(a, b, "%dx%d scene %zu: pixel (%zu,%zu) channel %zu: %.9g vs %.9g", w,
                             h, k, (q / 4) % (size_t)w, (q / 4) / (size_t)w, q % 4,
                             img->rgba[q], want[q]);
            }
            /* the comparison is not vacuous: circles were drawn */
            int drawn = 0;
            for (size_t q = 3; q < n; q += 4)
                drawn += want[q] > 1.0f;
            cr_assert_gt(drawn, 0);
            free(want);
            qr_image_destroy(img);
            qr_scene_destroy(s);
        }
}

/* The picture's options against the naive transcription: random alphas
 * (0, 1, 0.5 and tiny ones among them) over random backgrounds, with
 * anti-aliased edges and without. */
Test(render_cpu, alpha_and_background_against_naive_reference)
{
    const int32_t sizes[][2] = {{64, 48}, {37, 91}};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            const int32_t w = sizes[z][0], h = sizes[z][1];
            qr_scene *s = qr_test_random_scene(QR_TEST_MIX_UNIFORM, seed, 300);
            qr_test_random_picture(s, seed);
            s->antialias = seed != 2; /* and hard edges */
            if (seed == 3) { /* and no background */
                qr_error err;
                cr_assert_eq(qr_scene_set_transparent(s, 1, "background", &err), QR_OK);
            }
            qr_image *img = render(s, w, h);
            const size_t n = (size_t)w * (size_t)h * 4;
            float *want = malloc(n * sizeof *want);
            naive_reference(s, w, h, want);
            cr_assert(memcmp(img->rgba, want, n * sizeof *want) == 0,
                      "%dx%d seed %llu: the reference differs from the naive loop", w, h,
                      (unsigned long long)seed);
            free(want);
            qr_image_destroy(img);
            qr_scene_destroy(s);
        }
}

/* 3 x 1 over a blue-grey background: a circle of alpha 0.25 on pixels 0
 * and 1, one of alpha 1 on pixel 1 only after it, one of alpha 0 on pixel
 * 2: c' = a c + (1 - a) C, alpha + a, all exact in float. */
Test(render_cpu, alpha_and_background_by_hand)
{
    qr_scene *s = scene_new(3, QR_SHADE_FLAT);
    set_circle(s, 0, 0.25f, 0.5f, 0.3f, 1.0f, 0.0f, 0.0f);   /* centres 1/6, 1/2: covers 0, 1 */
    set_circle(s, 1, 0.5f, 0.5f, 0.1f, 0.0f, 1.0f, 0.0f);    /* covers 1 */
    set_circle(s, 2, 5.0f / 6.0f, 0.5f, 0.1f, 0.0f, 0.0f, 1.0f); /* covers 2 */
    const float alpha[3] = {0.25f, 1.0f, 0.0f}, bg[3] = {0.5f, 0.75f, 1.0f};
    qr_error err;
    cr_assert_eq(qr_scene_set_alpha(s, alpha, "alpha", &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_set_background(s, bg, "background", &err), QR_OK, "%s", err.msg);
    qr_image *img = render(s, 3, 1);
    /* 0.25 (1, 0, 0) + 0.75 (0.5, 0.75, 1) */
    expect_pixel(img, 0, 0, 0.625f, 0.5625f, 0.75f, 1.25f);
    expect_pixel(img, 1, 0, 0.0f, 1.0f, 0.0f, 2.25f);
    expect_pixel(img, 2, 0, 0.5f, 0.75f, 1.0f, 1.0f);
    qr_image_destroy(img);
    /* every alpha 0.5 over white: the plain scene's bytes */
    const float half[3] = {0.5f, 0.5f, 0.5f}, white[3] = {1.0f, 1.0f, 1.0f};
    cr_assert_eq(qr_scene_set_alpha(s, half, "alpha", &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_set_background(s, white, "background", &err), QR_OK, "%s", err.msg);
    img = render(s, 3, 1);
    cr_assert_eq(qr_scene_set_alpha(s, NULL, "alpha", &err), QR_OK);
    cr_assert(s->alpha == NULL && qr_scene_is_plain(s));
    qr_image *plain = render(s, 3, 1);
    cr_assert(memcmp(img->rgba, plain->rgba, 3 * 4 * sizeof(float)) == 0);
    qr_image_destroy(plain);
    qr_image_destroy(img);
    qr_scene_destroy(s);
}

/* No background, by hand: the circles over black, the alpha channel their
 * coverage a + (1 - a) A (exact in float here); and, on random scenes, what
 * the coverage means: over white a pixel shows 1 - A more than over black. */
Test(render_cpu, transparent_by_hand)
{
    qr_scene *s = scene_new(3, QR_SHADE_FLAT);
    set_circle(s, 0, 0.25f, 0.5f, 0.3f, 1.0f, 0.0f, 0.0f);   /* covers 0, 1 */
    set_circle(s, 1, 0.5f, 0.5f, 0.1f, 0.0f, 1.0f, 0.0f);    /* covers 1 */
    set_circle(s, 2, 5.0f / 6.0f, 0.5f, 0.1f, 0.0f, 0.0f, 1.0f); /* covers 2 */
    const float alpha[3] = {0.25f, 0.5f, 0.0f};
    qr_error err;
    cr_assert_eq(qr_scene_set_alpha(s, alpha, "alpha", &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_set_transparent(s, 1, "background", &err), QR_OK, "%s", err.msg);
    cr_assert(!qr_scene_is_plain(s));
    qr_image *img = render(s, 3, 1);
    expect_pixel(img, 0, 0, 0.25f, 0.0f, 0.0f, 0.25f);
    expect_pixel(img, 1, 0, 0.125f, 0.5f, 0.0f, 0.625f); /* 0.5 + 0.5 * 0.25 */
    expect_pixel(img, 2, 0, 0.0f, 0.0f, 0.0f, 0.0f);
    qr_image_destroy(img);
    /* a background set again ends the transparency; off restores white */
    const float grey[3] = {0.5f, 0.5f, 0.5f};
    cr_assert_eq(qr_scene_set_background(s, grey, "background", &err), QR_OK);
    cr_assert(!s->transparent);
    cr_assert_eq(qr_scene_set_transparent(s, 0, "background", &err), QR_OK);
    cr_assert(!s->transparent && s->background[0] == 1.0f && s->background[2] == 1.0f);
    qr_scene_destroy(s);
    for (uint64_t seed = 1; seed <= 2; seed++) {
        qr_scene *r = qr_test_random_scene(QR_TEST_MIX_UNIFORM, seed, 400);
        qr_test_random_picture(r, seed);
        r->antialias = seed == 2;
        const float white[3] = {1.0f, 1.0f, 1.0f};
        cr_assert_eq(qr_scene_set_background(r, white, "background", &err), QR_OK);
        qr_image *over_white = render(r, 64, 48);
        cr_assert_eq(qr_scene_set_transparent(r, 1, "background", &err), QR_OK);
        qr_image *none = render(r, 64, 48);
        int covered = 0;
        for (size_t i = 0; i < (size_t)64 * 48; i++) {
            const float A = none->rgba[4 * i + 3];
            cr_assert(A >= 0.0f && A <= 1.0f, "pixel %zu: coverage %g", i, (double)A);
            covered += A > 0.0f;
            for (int c = 0; c < 3; c++)
                cr_assert(fabs(over_white->rgba[4 * i + c] - none->rgba[4 * i + c] - (1.0 - A)) < 1e-5,
                          "seed %llu pixel %zu channel %d: white %g, none %g, coverage %g",
                          (unsigned long long)seed, i, c, (double)over_white->rgba[4 * i + c],
                          (double)none->rgba[4 * i + c], (double)A);
        }
        cr_assert_gt(covered, 0);
        qr_image_destroy(none);
        qr_image_destroy(over_white);
        qr_scene_destroy(r);
    }
}

/* The options' refusals, and a clone keeps them. */
Test(render_cpu, alpha_and_background_checked)
{
    qr_scene *s = scene_new(2, QR_SHADE_FLAT);
    qr_error err;
    const float bad[2][2] = {{0.5f, 1.5f}, {NAN, 0.5f}};
    cr_assert_eq(qr_scene_set_alpha(s, bad[0], "--alpha", &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "--alpha: circle 1's alpha 1.5 is not between 0 and 1");
    cr_assert_eq(qr_scene_set_alpha(s, bad[1], "--alpha", &err), QR_ERR_INVALID);
    cr_assert(s->alpha == NULL, "a refused alpha leaves none");
    const float bg_bad[3] = {0.0f, -0.5f, 1.0f};
    cr_assert_eq(qr_scene_set_background(s, bg_bad, "--background", &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "--background: expected three numbers from 0 to 1, got 0,-0.5,1");
    float rgb[3];
    cr_assert_eq(qr_background_check("bg", "#FF8000", rgb, NULL, &err), QR_OK, "%s", err.msg);
    cr_assert(rgb[0] == 1.0f && rgb[1] == 128.0f / 255.0f && rgb[2] == 0.0f);
    cr_assert_eq(qr_background_check("bg", "0.25,0.5,1", rgb, NULL, &err), QR_OK, "%s", err.msg);
    cr_assert(rgb[0] == 0.25f && rgb[1] == 0.5f && rgb[2] == 1.0f);
    cr_assert_eq(qr_background_check("bg", "black", rgb, NULL, &err), QR_OK);
    cr_assert(rgb[0] == 0.0f && rgb[1] == 0.0f && rgb[2] == 0.0f);
    const char *refused[] = {"", "red", "#12345", "#12345g", "1,1", "1,1,1,", "0.5,2,0",
                             "0.5, 0.5,0.5", "nan,0,0"};
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        cr_assert_eq(qr_background_check("bg", refused[k], rgb, NULL, &err), QR_ERR_INVALID, "'%s'",
                     refused[k]);
        char want[160];
        snprintf(want, sizeof want,
                 "bg: expected white, black, #RRGGBB or R,G,B (numbers from 0 to 1), got '%s'",
                 refused[k]);
        cr_assert_str_eq(err.msg, want);
    }
    const float alpha[2] = {0.125f, 1.0f}, bg[3] = {0.0f, 0.25f, 0.5f};
    cr_assert_eq(qr_scene_set_alpha(s, alpha, "alpha", &err), QR_OK);
    cr_assert_eq(qr_scene_set_background(s, bg, "background", &err), QR_OK);
    qr_scene *c = NULL;
    cr_assert_eq(qr_scene_clone(s, &c, &err), QR_OK, "%s", err.msg);
    cr_assert(c->alpha && c->alpha != s->alpha && memcmp(c->alpha, alpha, sizeof alpha) == 0);
    cr_assert(memcmp(c->background, bg, sizeof bg) == 0);
    qr_scene_destroy(c);
    cr_assert_eq(qr_scene_set_transparent(s, 1, "background", &err), QR_OK);
    cr_assert_eq(qr_scene_clone(s, &c, &err), QR_OK, "%s", err.msg);
    cr_assert(c->transparent);
    qr_scene_destroy(c);
    int none = -1;
    cr_assert_eq(qr_background_check("bg", "none", rgb, &none, &err), QR_OK, "%s", err.msg);
    cr_assert(none == 1 && rgb[0] == 0.0f && rgb[1] == 0.0f && rgb[2] == 0.0f);
    cr_assert_eq(qr_background_check("bg", "black", rgb, &none, &err), QR_OK);
    cr_assert_eq(none, 0);
    cr_assert_eq(qr_background_check("bg", "none", rgb, NULL, &err), QR_ERR_INVALID);
    cr_assert_eq(qr_background_check("bg", "grey", rgb, &none, &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "bg: expected white, black, #RRGGBB, R,G,B (numbers from 0 to 1) "
                              "or none, got 'grey'");
    qr_scene_destroy(s);
    /* snow's alpha and background are its shading's */
    s = scene_new(1, QR_SHADE_SNOW);
    snprintf(s->name, sizeof s->name, "flakes");
    cr_assert_eq(qr_scene_set_alpha(s, alpha, "--alpha", &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "--alpha: flat scenes only; flakes is snow-shaded");
    cr_assert_eq(qr_scene_set_transparent(s, 1, "--background", &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "--background: flat scenes only; flakes is snow-shaded");
    cr_assert_eq(qr_scene_set_background(s, bg, "--background", &err), QR_ERR_INVALID);
    qr_scene_destroy(s);
}

/* Anti-aliased edges on one circle of radius 10 pixels at a pixel centre of
 * a 64 x 32 image (side 64): the pixels within 9.5 pixels are as the hard
 * edge draws them, coverage falls along the row from there to 0 at 10.5,
 * and a pixel 10.5 pixels out (d2 = r'^2 exactly) takes alpha 0, while the
 * hard edge reaches 10 only. */
Test(render_cpu, antialias_edge_by_hand)
{
    qr_scene *s = scene_new(1, QR_SHADE_FLAT);
    set_circle(s, 0, 32.5f / 64.0f, 16.5f / 32.0f, 10.0f / 64.0f, 0.0f, 0.0f, 0.0f);
    qr_image *hard = render(s, 64, 32);
    qr_error err;
    cr_assert_eq(qr_scene_set_antialias(s, 1, "antialias", &err), QR_OK, "%s", err.msg);
    qr_image *aa = render(s, 64, 32);
    float last = 2.0f;
    for (int i = 32; i < 64; i++) {
        const float *h = pixel(hard, i, 16), *a = pixel(aa, i, 16);
        const int d = i - 32;
        if (d <= 9) cr_assert(h[0] == a[0] && h[3] == a[3], "pixel %d: %g vs %g", d, h[0], a[0]);
        if (d >= 1) cr_assert(a[3] <= last, "pixel %d: coverage %g rises past %g", d, a[3], last);
        last = a[3];
        if (d == 10) cr_assert(a[3] > 1.0f && a[3] < 1.5f && h[3] == 1.5f, "the edge pixel in part: %g", a[3]);
        if (d >= 11) cr_assert(a[3] == 1.0f && a[0] == 1.0f, "pixel %d is past the edge", d);
    }
    qr_image_destroy(hard);
    qr_image_destroy(aa);
    /* snow refuses it */
    s->shading = QR_SHADE_SNOW;
    cr_assert_eq(qr_scene_set_antialias(s, 1, "--antialias", &err), QR_ERR_INVALID);
    qr_scene_destroy(s);
}
