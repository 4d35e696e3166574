/* cpu_tile.h — the fast CPU renderer's tile kernel (cpu_tile.c), driven by
 * render_cpu_fast.c. Internal to the library. */
#ifndef QR_RENDER_CPU_TILE_H
#define QR_RENDER_CPU_TILE_H

#include <stdint.h>

#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/scene.h"

/* Side of a tile: a tile's colour lives in L1 (4 channels of 32 x 32
 * floats), and a row is four 8-float vectors. */
#define CPU_TILE 32

/* The widest and tallest window the tiles address: boxes are 16-bit and
 * relative to the window's corner, so an image larger than this renders
 * window by window (render_cpu_fast.c). */
#define CPU_WINDOW 32768

/* Columns whose pixels fast mode stops together: a tile row's QR_TILE-wide
 * groups, which every tile of every index is made of (leaves are QR_TILE
 * multiples from column 0), so the stop does not depend on how the index
 * cut the image into leaves. */
#define CPU_GROUP QR_TILE

/* A circle's pixel box (qr_circle_pixbox) clipped to the window, relative
 * to its corner, as the tiles read it; empty (x0 == x1) when the circle
 * draws nothing there (qr_render_cpu's rule). */
typedef struct cpu_box {
    uint16_t x0, x1, y0, y1;
} cpu_box;

/* A circle as the tiles read it: one 32-byte record, so that a leaf's
 * list, which jumps through the scene, costs one cache line per circle.
 * Per-circle alpha (qr_scene.alpha) travels beside the records, in a list
 * of its own (cpu_render_tile). */
typedef struct cpu_circle {
    float x, y, rad;
    float c0, c1, c2; /* flat: red, green, blue; snow: z, unused, unused */
    cpu_box box;
} cpu_circle;
_Static_assert(sizeof(cpu_circle) == 32, "a circle record a half cache line");

/* What every tile of a window shares. Tiles and boxes are in window
 * coordinates: image pixel (ox + x, oy + y). */
typedef struct cpu_frame {
    int snow;
    int32_t width, height; /* the whole image */
    float inv_w, inv_h;    /* 1.0f / width, 1.0f / height, as the reference */
    int32_t ox, oy;        /* the window's corner in the image */
    qr_image *band;        /* out: the image's pixels from (band_x0, band_y0) on */
    int32_t band_x0, band_y0;
    int front_to_back;     /* fast mode's walk; else the exact walk */
    int keep_alpha;        /* write the exact walk's alpha (else 1) */
    int cover;             /* flat: no background (qr_scene.transparent): the
                              alpha channel is the coverage, in both walks */
    float stop;            /* fast: a pixel group is done once T <= stop */
    float bg[3];           /* flat: the background colour (qr_scene.background) */
    int over;              /* the band holds what lies behind the circles (the
                              image of the circles before them): the exact walk
                              starts from its pixels, and the fast walk takes
                              them through what is left of T, in place of the
                              background */
    int under;             /* fast, chunk by chunk front to back: the band holds
                              the colour gathered in front (rgb) and the
                              transmittance T left (alpha); the walk goes on
                              from them, a pixel group whose T is all done
                              stays done, and the band gets the new colour and
                              T, the background added only at the back */
    int front, back;       /* under: nothing in front (C = 0, T = 1); the last
                              circles behind (the background then shows) */
    int aa;                /* flat: anti-aliased edges; the records' radii are then
                              widened (qr_aa_radius) */
    int side;              /* the whole image's longer side (qr_aa_slope) */
} cpu_frame;

/* Renders window pixels [x0,x1) x [y0,y1) (at most CPU_TILE on a side; x0
 * a multiple of CPU_GROUP) from the circles c[0..count), in drawing order,
 * into f->band; alpha[0..count) their alphas (flat scenes with per-circle
 * alpha), or NULL: 0.5 each. */
void cpu_render_tile(const cpu_frame *f, const cpu_circle *c, const float *alpha, int32_t count,
                     int x0, int y0, int x1, int y1);

#endif
