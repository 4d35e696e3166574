/* cpu_tile.h — the fast CPU renderer's tile kernel (cpu_tile.c), driven by
 * render_cpu_fast.c. Internal to the library. */
#ifndef QR_RENDER_CPU_TILE_H
#define QR_RENDER_CPU_TILE_H

#include <stdint.h>

#include "quadrender/image.h"
#include "quadrender/scene.h"

/* Side of a tile: a tile's colour lives in L1 (4 channels of 32 x 32
 * floats), and a row is four 8-float vectors. */
#define CPU_TILE 32

/* A circle's pixel box (qr_circle_pixbox) as the tiles read it; empty
 * (x0 == x1) when the circle draws nothing (qr_render_cpu's rule). */
typedef struct cpu_box {
    uint16_t x0, x1, y0, y1;
} cpu_box;

/* A circle as the tiles read it: one 32-byte record, so that a leaf's
 * list, which jumps through the scene, costs one cache line per circle. */
typedef struct cpu_circle {
    float x, y, rad;
    float c0, c1, c2; /* flat: red, green, blue; snow: z, unused, unused */
    cpu_box box;
} cpu_circle;

/* What every tile of a frame shares. */
typedef struct cpu_frame {
    int snow;
    qr_image *img;
    float inv_w, inv_h;   /* 1.0f / width, 1.0f / height, as the reference */
    int front_to_back;    /* fast mode's walk; else the exact walk */
    int keep_alpha;       /* write the exact walk's alpha (else 1) */
    float stop;           /* fast: a pixel is done once T <= stop */
} cpu_frame;

/* Renders pixels [x0,x1) x [y0,y1) (at most CPU_TILE on a side) from the
 * circles c[0..count), in drawing order, into f->img. */
void cpu_render_tile(const cpu_frame *f, const cpu_circle *c, int32_t count, int x0, int y0,
                     int x1, int y1);

#endif
