/* render_walk.cu — the render's walk kernel: one thread block per 32 x 32
 * pixel region, four pixels per thread, colour in registers, one global
 * write per pixel (clear and render are one pass).
 *
 * The region's 16 x 16 tiles lie inside quadtree leaves (usually one). The
 * block walks the leaf's list in batches of 512 circles: each thread fetches
 * two (16-byte loads of the packed scene), keeps those whose pixel box meets
 * the region, and a block scan compacts the survivors into shared
 * memory in list order, with their box as row and column bit masks — the leaf
 * list is refined inside the kernel, which is what lets leaves be larger than
 * the region (render_stage.cuh). Each warp (16 x 8 pixels) then picks, with
 * one ballot per 32 staged circles, those touching its pixels (gathered into
 * groups of 32 where circles are small), and each thread shades, in order,
 * those of them that touch its own column of four pixels (walk_leaf,
 * render_walk.cuh).
 *
 *   exact: back to front, the reference blend with the reference operations
 *          (circle_math.h; one fused multiply-add where that is the same,
 *          blend_flat): bit-identical to qr_render_cpu on flat scenes.
 *   fast:  the same lists front to back with transmittance T: C += T*a*c,
 *          T *= 1-a. Whatever lies behind can move a channel by at most
 *          T * color_span, so a pixel stops once that is <= tol/2, a warp once
 *          all its pixels have, and the block once all of them have; the
 *          remaining T then takes the background colour.
 * A chunk of a larger scene (carry) starts each pixel from what the image
 * holds: exact, the colour the chunks behind it left; fast, the colour and
 * transmittance the chunks in front of it gathered. A fast chunk with more
 * behind it (unfinished) leaves T in the alpha channel, the background
 * still to come.
 * Snow and flat shading are separate kernel instances. Exact mode on deep
 * scenes goes by windows instead (render_windows.cu).
 */
#include "render/gpu/render_walk.cuh"
#include "gpu/pdl.h"
#include "gpu/device_limits.h"

#include <limits.h>

/* alpha (QR_WALK_ALPHA_*, render_kernels.h): 1, the exact walk's alpha (as
 * fast mode leaves it; the exact walk also serves fast mode on shallow
 * scenes: plan_render, renderer.cu), or the coverage of a scene without a
 * background (exact: qr_blend_cover's from 0; fast: 1 - T). */
template <bool EXACT, bool SNOW, bool GATHER, bool FMA, bool AA = false>
__global__ void __launch_bounds__(RT_THREADS, 4) /* 64 registers: 4 blocks per SM */
k_render(qr_index_view v, const float4 *__restrict__ pos, const float4 *__restrict__ col,
         float color_span, int alpha, float3 back, int items, int carry, int finish,
         float4 *__restrict__ image)
{
    __shared__ stage_mem sm;
    __shared__ int s_item;
    qr_pdl_wait(); /* the build (or the coverage count) */
    if (qr_build_redone(v)) return; /* the build will be redone */
    const qr_tree_geom &g = v.geom;
    const int regions = qr_render_regions(&v);
    /* a block a region, or (items) work items in turn: render_stage.cuh */
    for (int item = first_item(v, regions, items, blockIdx.x, &s_item); item < end_item(v, regions, items);
         item = later_item(v, regions, items, &s_item)) {
        block_setup b;
        int32_t first_leaf;
        const int nleaf = setup_item(v, regions, items, item, b, &first_leaf);
        /* the background: snow's row shade, else the scene's colour (back) */
        float bg[RT_ROWS][3], c[RT_ROWS][4], T[RT_ROWS];
#pragma unroll
        for (int r = 0; r < RT_ROWS; r++) {
            const float shade = SNOW ? qr_snow_shade_row(b.by0 + b.ly0 + r, g.height) : 0.0f;
            bg[r][0] = SNOW ? shade : back.x;
            bg[r][1] = SNOW ? shade : back.y;
            bg[r][2] = SNOW ? shade : back.z;
            for (int k = 0; k < 3; k++) c[r][k] = EXACT ? bg[r][k] : 0.0f;
            c[r][3] = alpha == QR_WALK_ALPHA_COVER ? 0.0f : 1.0f;
            T[r] = 1.0f;
            /* a later chunk of a scene (carry): exact, the colour and alpha
             * the chunks behind left; fast, the colour the chunks in front
             * gathered and their transmittance (in alpha's place) */
            const int y = b.by0 + b.ly0 + r;
            if (carry && b.px < g.region.x1 && y < g.region.y1) {
                const float4 p = image[qr_region_pixel(g, b.px, y)];
                c[r][0] = p.x;
                c[r][1] = p.y;
                c[r][2] = p.z;
                if (EXACT) c[r][3] = p.w;
                else T[r] = p.w;
            }
        }
        const float stop = 0.5f * QR_FAST_TOLERANCE / color_span;
        uint32_t live = (1u << RT_ROWS) - 1; /* rows that can still change (fast) */
#pragma unroll
        for (int r = 0; r < RT_ROWS; r++)
            if (!EXACT && T[r] <= stop) live &= ~(1u << r); /* stopped in a chunk in front */
        uint32_t owned = 0;                  /* this thread's pixels in the walked leaves */
        for (int li = 0; li < nleaf; li++) {
            const qr_leaf leaf = v.leaves[first_leaf + li];
            region_ctx rc;
            const uint32_t mine = leaf_part(leaf, b, rc);
            owned |= mine;
            walk_leaf<EXACT, SNOW, false, GATHER, FMA, AA>(sm, leaf, v.lists + leaf.offset, rc, b, mine,
                                                          pos, col, g, c, T, stop, live,
                                                          alpha == QR_WALK_ALPHA_COVER);
        }
#pragma unroll
        for (int r = 0; r < RT_ROWS; r++) {
            if (!((owned >> r) & 1u)) continue;
            if (!EXACT && finish) {
                if (SNOW) snow_finish(c[r]);
                c[r][0] += T[r] * bg[r][0];
                c[r][1] += T[r] * bg[r][1];
                c[r][2] += T[r] * bg[r][2];
                if (alpha == QR_WALK_ALPHA_COVER) c[r][3] = 1.0f - T[r];
            } else if (!EXACT) {
                c[r][3] = T[r]; /* a chunk with more behind it: its transmittance */
            }
            image[qr_region_pixel(g, b.px, b.by0 + b.ly0 + r)] =
                make_float4(c[r][0], c[r][1], c[r][2],
                            alpha != QR_WALK_ALPHA_ONE || (!EXACT && !finish) ? c[r][3] : 1.0f);
        }
    }
}

/* The k_render instance for a walk: exact or fast, snow or flat shading,
 * gathered or chunk by chunk (walk_leaf), fused flat blends (blend_flat;
 * only the exact flat walk blends that way). Fast flat walks stop early and
 * never gather. */
typedef void (*render_kernel)(qr_index_view, const float4 *, const float4 *, float, int, float3, int,
                              int, int, float4 *);
static render_kernel walk_kernel(bool exact, bool snow, bool gather, bool fma, bool aa)
{
    /* anti-aliased edges: flat scenes, never fused (not plain) */
    if (aa && exact) return gather ? k_render<true, false, true, false, true> : k_render<true, false, false, false, true>;
    if (aa) return k_render<false, false, false, false, true>;
    if (snow && exact) return gather ? k_render<true, true, true, false> : k_render<true, true, false, false>;
    if (snow) return gather ? k_render<false, true, true, false> : k_render<false, true, false, false>;
    if (!exact) return k_render<false, false, false, false>;
    if (fma) return gather ? k_render<true, false, true, true> : k_render<true, false, false, true>;
    return gather ? k_render<true, false, true, false> : k_render<true, false, false, false>;
}

cudaError_t qr_launch_render_walk(const qr_render_walk_args *a, cudaStream_t st, int pdl)
{
    const render_kernel kernel = walk_kernel(a->exact, a->snow, a->gather, a->fma, a->aa && !a->snow);
    const int items = qr_render_items(a->view);
    /* with items, as many blocks as stay resident (4 per SM) */
    const int blocks = items ? 4 * qr_device_sms() : qr_render_regions(a->view);
    return qr_launch(kernel, blocks, RT_THREADS, 0, st, pdl, *a->view, a->pos, a->col,
                     a->color_span, a->alpha, make_float3(a->back[0], a->back[1], a->back[2]), items,
                     a->carry, a->exact || !a->unfinished, a->image);
}
