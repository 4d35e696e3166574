/* render_kernels.h — the launchers of the GPU renderer's kernels, one
 * source file each, and the constants both they and the renderer object
 * (renderer.cu) need.
 *
 *   render_walk.cu     qr_launch_render_walk: a block walks the leaf lists
 *                      of its 32 x 32 region, exact or fast
 *   cover_count.cu     qr_launch_cover_count: circles covering each pixel
 *   render_windows.cu  qr_launch_render_windows: exact mode by windows
 *   region_order.cu    qr_launch_region_order: the next frame's order of
 *                      the windows kernel's regions
 * Their shared device code: render_stage.cuh (staging, shading, block
 * setup), render_walk.cuh (a warp's walk of a staged list) and
 * region_order.cuh.
 *
 * Each launcher takes its arguments in a struct (device pointers unless
 * said otherwise, read only during the call), checks its launch and
 * returns its error. pdl: launch as a programmatic dependent of the kernel
 * queued just before (gpu/pdl.h).
 */
#ifndef QR_RENDER_KERNELS_H
#define QR_RENDER_KERNELS_H

#include "quadtree/gpu/quadtree_gpu.h"
#include "gpu/tuning/tuning_default.h"

/* A block shades a 32 x 32 pixel region: 8 warps of 16 x 8 pixels, each
 * thread a column of RT_ROWS = 4 pixels (so a circle's dx and dx*dx serve
 * four pixels). */
#define RB_SIDE QR_REGION /* 32 */
/* RT_ROWS: gpu/tuning/tuning_default.h */
#define RT_THREADS (RB_SIDE * RB_SIDE / RT_ROWS)

/* The 32 x 32 regions of the view's region: a block each. */
__host__ __device__ inline int qr_render_regions(const qr_index_view *v)
{
    return ((v->geom.tiles_x + 1) / 2) * ((v->geom.tiles_y + 1) / 2);
}

/* Whether the index can have leaves below a region, which the render kernels
 * then take as work items of their own (render_stage.cuh, next_item). */
static inline int qr_render_items(const qr_index_view *v)
{
    return v->geom.cell < RB_SIDE;
}


#ifdef __CUDACC__
/* The next of `total` work items for this block (the same on every
 * thread; >= total: none left), from a counter in the build's scalars.
 * Blocks, as many as stay resident, take items in turn until none are
 * left: each takes one ticket past the end, and the block taking the last
 * of those puts the counter back to 0 for the next launch. */
__device__ __forceinline__ int next_ticket(uint32_t *counter, int total, int *s_item)
{
    __syncthreads(); /* every thread has read the last item */
    if (threadIdx.x == 0) {
        const unsigned t = atomicAdd(counter, 1u);
        if (t == (unsigned)total + gridDim.x - 1) *counter = 0;
        *s_item = (int)t;
    }
    __syncthreads();
    return *s_item;
}
#endif

/* ---- one walk of the leaf lists (render_walk.cu) ---- */

/* What a walk writes as each pixel's alpha: 1; the exact walk's (CS149's:
 * 1 plus the alphas blended); the coverage of a scene without a background
 * (qr_gpu_scene.transparent), in either walk. */
enum { QR_WALK_ALPHA_ONE = 0, QR_WALK_ALPHA_EXACT = 1, QR_WALK_ALPHA_COVER = 2 };

typedef struct qr_render_walk_args {
    const qr_index_view *view; /* host: the built index */
    const float4 *pos, *col;   /* the scene's packed circles (qr_gpu_scene) */
    float color_span;          /* qr_gpu_scene.color_span: fast mode's stopping bound */
    int alpha;                 /* QR_WALK_ALPHA_* */
    float back[3];             /* flat: the background colour (qr_gpu_scene.background) */
    int aa;                    /* flat: anti-aliased edges (pos holds the widened radii) */
    int carry;                 /* a later chunk of a scene: each pixel starts from image,
                                  not the background (exact: colour and alpha; fast:
                                  colour and transmittance) */
    int unfinished;            /* fast: chunks lie behind this one; the background is not
                                  added, and alpha holds the transmittance */
    float4 *image;             /* out (in too with carry): the view's full image, row 0 = bottom */
    /* Which k_render instance: exact (else fast, front to back), snow
     * shading (else flat), gather each warp's circles (walk_leaf), exact
     * flat blends fused (blend_flat). Fast flat walks never gather; only
     * the exact flat walk fuses. */
    int exact, snow, gather, fma;
} qr_render_walk_args;
cudaError_t qr_launch_render_walk(const qr_render_walk_args *a, cudaStream_t st, int pdl);

/* ---- exact mode by windows (render_windows.cu) ---- */

/* Windows: at most this long a first window; RW_DEEP: windows pay where
 * the scene's estimated depth is over RW_DEEP windows. */
#define RW_MAX_WINDOW (1 << 24)
/* RW_DEEP: gpu/tuning/tuning_default.h */

/* Which region each block of the windows kernel takes (region_order.cu
 * says why): RO_MAX regions at most (2048 x 2048), larger images take
 * row-major order. */
/* RO_MAX, RO_THREADS: gpu/tuning/tuning_default.h */
struct region_order {
    int32_t n;               /* regions `order` is for (0: none yet) */
    int32_t order[RO_MAX];   /* block b renders region order[b] */
    uint32_t cycles[RO_MAX]; /* the last tail kernel's, per region */
};

typedef struct qr_render_windows_args {
    const qr_index_view *view; /* host: the built index */
    region_order *ro;          /* the region order, zeroed once */
    const float4 *pos, *col;   /* the scene's packed circles */
    const int32_t *counts;     /* each pixel's covering circles (qr_launch_cover_count) */
    float lo, hi;              /* the runs' start, outside every colour value */
    int window;                /* the first window, covering circles per pixel */
    float4 *image;             /* out: the view's full image, row 0 = bottom */
    int fma;                   /* flat blends fused (blend_flat): the instance */
} qr_render_windows_args;
cudaError_t qr_launch_render_windows(const qr_render_windows_args *a, cudaStream_t st, int pdl);

/* The next frame's order of n (<= RO_MAX) regions, from the cycles the
 * windows kernel just queued records. */
cudaError_t qr_launch_region_order(region_order *ro, int n, cudaStream_t st, int pdl);

/* ---- coverage counts (cover_count.cu) ---- */

typedef struct qr_cover_count_args {
    const qr_index_view *view; /* host: the built index */
    const float4 *pos;         /* the scene's packed circles */
    int32_t *counts;           /* out: geom.width * geom.height, row 0 = bottom */
} qr_cover_count_args;
/* Fails (QR_ERR_INVALID) without a counts buffer. */
qr_status qr_launch_cover_count(const qr_cover_count_args *a, cudaStream_t st, int pdl,
                                qr_error *err);

#endif
