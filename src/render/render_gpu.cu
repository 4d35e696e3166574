/* render_gpu.cu — the GPU renderer: one thread block per 32 x 32 pixel
 * region, four pixels per thread, colour in registers, one global write per
 * pixel (clear and render are one pass).
 *
 * The region's 16 x 16 tiles lie inside quadtree leaves (usually one). The
 * block walks the leaf's list in batches of 256 circles: each thread fetches
 * one circle (a 16-byte load of the packed scene), keeps it only if its pixel
 * box meets the region, and a block scan compacts the survivors into shared
 * memory in list order, with their box as row and column bit masks — the leaf
 * list is refined inside the kernel, which is what lets leaves be larger than
 * the region. Each warp (16 x 8 pixels) then picks, with one ballot per 32
 * staged circles, those touching its pixels, and each thread shades its
 * column of four pixels.
 *
 *   exact: back to front, the reference blend with the reference operations
 *          (circle_math.h): bit-identical to qr_render_cpu on flat scenes.
 *   fast:  the same lists front to back with transmittance T: C += T*a*c,
 *          T *= 1-a. Whatever lies behind can move a channel by at most
 *          T * color_span, so a pixel stops once that is <= tol/2, a warp once
 *          all its pixels have, and the block once all of them have; the
 *          remaining T then takes the background colour.
 * Snow and flat shading are separate kernel instances.
 */
#include "quadtree/quadtree_gpu.h"
#include "common/circle_math.h"
#include "common/cuda_check.h"
#include "quadrender/image.h"

#include <cub/block/block_scan.cuh>
#include <stdlib.h>

/* A block shades a 32 x 32 pixel region: 8 warps of 16 x 8 pixels, each
 * thread a column of RT_ROWS = 4 pixels (so a circle's dx and dx*dx serve
 * four pixels). */
#define RB_SIDE QR_REGION /* 32 */
#define RT_ROWS 4
#define RT_THREADS (RB_SIDE * RB_SIDE / RT_ROWS)
#define RW_W 16 /* warp region */
#define RW_H 8

typedef cub::BlockScan<int, RT_THREADS> render_scan;

struct qr_gpu_renderer {
    int32_t width, height;
    float4 *image; /* width * height, row 0 = bottom */
    qr_gpu_index *index;
    qr_timing timing;
    cudaEvent_t ev[3];
    qr_frame_timing last;
    qr_render_mode last_mode;
};

/* Bits lo..hi-1 of a 32-bit row or column mask (0 <= lo < hi <= 32). */
__device__ __forceinline__ uint32_t span_mask(int lo, int hi)
{
    return (hi >= 32 ? 0xffffffffu : (1u << hi) - 1u) & ~((1u << lo) - 1u);
}

/* Fast mode's snow shading: qr_shade_snow's function with its per-circle
 * part staged (sc.x = 1/r, sc.y = the depth's peak alpha) and the GPU's
 * approximate square root and exponential. It stays within about 1e-6 of the
 * exact shading (the ramp and the falloff are continuous in t), inside fast
 * mode's 1e-5 (tested on every snow scene); blue is 1 all along the ramp. */
__device__ __forceinline__ void shade_snow_fast(float d2, const float4 sc, float *alpha, float *r,
                                                float *g)
{
    const float t = d2 > 0.0f ? d2 * rsqrtf(d2) * sc.x : 0.0f;
    const float scaled = 4.0f * t;
    const int base = scaled >= 4.0f ? 4 : (int)scaled;
    const int next = base < 4 ? base + 1 : 4;
    const float r0 = base < 2 ? 1.0f : 0.8f, r1 = next < 2 ? 1.0f : 0.8f;
    const float g0 = base < 2 ? 1.0f : (base < 4 ? 0.9f : 0.8f);
    const float g1 = next < 2 ? 1.0f : (next < 4 ? 0.9f : 0.8f);
    const float w = scaled - (float)base;
    *r = r0 + w * (r1 - r0);
    *g = g0 + w * (g1 - g0);
    *alpha = sc.y * __expf(-4.0f * t * t);
}

/* Blends circle k of the staged batch into this thread's column of pixels
 * (rows = which of its RT_ROWS pixels the circle's box holds). */
template <bool EXACT, bool SNOW>
__device__ __forceinline__ void shade(const float4 sp, const float4 sc, uint32_t rows, float cx,
                                      const float *cy, float (*c)[4], float *T, float stop,
                                      uint32_t &live)
{
    const float dx = QR_SUB(sp.x, cx);
    const float dx2 = QR_MUL(dx, dx);
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) {
        if (!((rows >> r) & 1u)) continue;
        const float dy = QR_SUB(sp.y, cy[r]);
        const float d2 = QR_ADD(dx2, QR_MUL(dy, dy)); /* = qr_dist2 */
        if (!(d2 <= sp.z)) continue;
        if (SNOW) {
            float alpha, cr, cg, cb;
            if (EXACT) {
                qr_shade_snow(d2, sp.w, sc.w, &alpha, &cr, &cg, &cb);
                qr_blend(alpha, cr, cg, cb, c[r]);
            } else {
                shade_snow_fast(d2, sc, &alpha, &cr, &cg);
                const float w = T[r] * alpha;
                c[r][0] += w * cr;
                c[r][1] += w * cg;
                c[r][2] += w;
                T[r] *= 1.0f - alpha;
            }
        } else if (EXACT) {
            /* qr_blend with alpha = 0.5: alpha*colour was staged */
            c[r][0] = QR_ADD(sc.x, QR_MUL(0.5f, c[r][0]));
            c[r][1] = QR_ADD(sc.y, QR_MUL(0.5f, c[r][1]));
            c[r][2] = QR_ADD(sc.z, QR_MUL(0.5f, c[r][2]));
            c[r][3] = QR_ADD(c[r][3], 0.5f);
        } else {
            c[r][0] += T[r] * sc.x;
            c[r][1] += T[r] * sc.y;
            c[r][2] += T[r] * sc.z;
            T[r] *= 0.5f;
        }
        if (!EXACT && T[r] <= stop) live &= ~(1u << r);
    }
}

template <bool EXACT, bool SNOW>
__global__ void __launch_bounds__(RT_THREADS, 4) /* 64 registers: 4 blocks per SM */
k_render(qr_index_view v, const float4 *__restrict__ pos, const float4 *__restrict__ col,
         float color_span, float4 *__restrict__ image)
{
    /* the staged circles of the current batch, in list order */
    __shared__ float4 s_pos[RT_THREADS];  /* x, y, r*r, r */
    __shared__ float4 s_col[RT_THREADS];  /* flat: 0.5*(r, g, b); snow: 1/r, peak alpha (fast), -, z */
    __shared__ uint2 s_mask[RT_THREADS];  /* the circle's pixel box inside the block region
                                             and the current leaf: column bits, row bits */
    __shared__ typename render_scan::TempStorage scan_tmp;

    if (v.scalars->num_pairs > v.capacity) return; /* the build will be redone */
    const qr_tree_geom &g = v.geom;
    const int blocks_x = (g.tiles_x + 1) / 2;
    const int bx0 = g.region.x0 + (blockIdx.x % blocks_x) * RB_SIDE;
    const int by0 = g.region.y0 + (blockIdx.x / blocks_x) * RB_SIDE;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wx = (warp & 1) * RW_W, wy = (warp >> 1) * RW_H;
    const int lx = wx + (lane % RW_W), ly0 = wy + (lane / RW_W) * RT_ROWS;
    const int px = bx0 + lx;
    const float inv_h = 1.0f / (float)g.height;
    const float cx = qr_pixel_center(px, 1.0f / (float)g.width);
    float cy[RT_ROWS], bg[RT_ROWS], c[RT_ROWS][4], T[RT_ROWS];
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) {
        cy[r] = qr_pixel_center(by0 + ly0 + r, inv_h);
        bg[r] = SNOW ? qr_snow_shade_row(by0 + ly0 + r, g.height) : 1.0f;
        c[r][0] = c[r][1] = c[r][2] = EXACT ? bg[r] : 0.0f;
        c[r][3] = 1.0f;
        T[r] = 1.0f;
    }
    const float stop = 0.5f * QR_FAST_TOLERANCE / color_span;
    uint32_t live = (1u << RT_ROWS) - 1; /* fast: rows that can still change */

    /* The region's up to four 16 x 16 tiles may lie in different leaves: each
     * distinct leaf's list is walked for the pixels that leaf holds, so every
     * pixel still sees exactly its own leaf's list, in order. */
    const int tx = (bx0 - g.region.x0) / QR_TILE, ty = (by0 - g.region.y0) / QR_TILE;
    int32_t leaf_ids[4];
    int nleaf = 0;
    for (int k = 0; k < 4; k++) {
        const int ttx = tx + (k & 1), tty = ty + (k >> 1);
        if (ttx >= g.tiles_x || tty >= g.tiles_y) continue;
        const int32_t id = v.tile_leaf[tty * g.tiles_x + ttx];
        bool seen = false;
        for (int m = 0; m < nleaf; m++) seen |= leaf_ids[m] == id;
        if (!seen) leaf_ids[nleaf++] = id;
    }
    for (int li = 0; li < nleaf; li++) {
        const qr_leaf leaf = v.leaves[leaf_ids[li]];
        const int32_t *list = v.lists + leaf.offset;
        /* this leaf's part of the region, block-local */
        const int cx0 = max(leaf.rect.x0 - bx0, 0), cx1 = min(leaf.rect.x1 - bx0, RB_SIDE);
        const int cy0 = max(leaf.rect.y0 - by0, 0), cy1 = min(leaf.rect.y1 - by0, RB_SIDE);
        /* which of this thread's pixels the leaf holds */
        const uint32_t mine = lx >= cx0 && lx < cx1 ? (span_mask(cy0, cy1) >> ly0) & ((1u << RT_ROWS) - 1) : 0u;
        const int count = leaf.count;
        const int batches = (count + RT_THREADS - 1) / RT_THREADS;
        for (int bi = 0; bi < batches; bi++) {
            /* exact walks the list first to last, fast last to first */
            const int base = (EXACT ? bi : batches - 1 - bi) * RT_THREADS;
            const int j = base + threadIdx.x;
            uint2 mask = make_uint2(0, 0);
            float4 p;
            int32_t id = 0;
            if (j < count) {
                id = list[j];
                p = pos[id];
                qr_pixbox b = qr_circle_pixbox(p.x, p.y, p.w, g.width, g.height);
                int x0 = max(b.x0 - bx0, cx0), x1 = min(b.x1 - bx0, cx1);
                int y0 = max(b.y0 - by0, cy0), y1 = min(b.y1 - by0, cy1);
                if (x0 < x1 && y0 < y1) mask = make_uint2(span_mask(x0, x1), span_mask(y0, y1));
            }
            int slot, kept;
            render_scan(scan_tmp).ExclusiveSum(mask.x != 0, slot, kept);
            if (mask.x) {
                /* colour only for circles that touch the region: when leaves
                 * are much larger than the region most list entries do not */
                const float4 cl = SNOW ? make_float4(0.0f, 0.0f, 0.0f, 0.0f) : col[id];
                s_pos[slot] = make_float4(p.x, p.y, QR_MUL(p.w, p.w), p.w);
                if (SNOW) {
                    /* fast mode's per-circle shading terms (shade_snow_fast) */
                    s_col[slot] = EXACT ? make_float4(0.0f, 0.0f, 0.0f, p.z)
                                        : make_float4(1.0f / p.w, qr_snow_peak_alpha(p.z), 0.0f, p.z);
                } else {
                    s_col[slot] = make_float4(QR_MUL(0.5f, cl.x), QR_MUL(0.5f, cl.y),
                                              QR_MUL(0.5f, cl.z), 0.0f);
                }
                s_mask[slot] = mask;
            }
            __syncthreads();
            /* Each warp picks, 32 at a time, the staged circles that touch its
             * 16 x 8 pixels (one ballot), and shades only those, in order. */
            const int chunks = (kept + 31) / 32;
            for (int ci = 0; ci < chunks; ci++) {
                if (!EXACT && !__any_sync(0xffffffffu, live & mine)) break;
                const int chunk = (EXACT ? ci : chunks - 1 - ci) * 32;
                const int k = chunk + lane;
                bool hit = false;
                if (k < kept) {
                    const uint2 m = s_mask[k];
                    hit = ((m.x >> wx) & 0xffffu) && ((m.y >> wy) & 0xffu);
                }
                uint32_t bits = __ballot_sync(0xffffffffu, hit);
                while (bits) {
                    const int b = EXACT ? __ffs(bits) - 1 : 31 - __clz(bits);
                    bits &= ~(1u << b);
                    const uint2 m = s_mask[chunk + b];
                    const uint32_t rows = ((m.x >> lx) & 1u) ? (m.y >> ly0) & live : 0u;
                    if (rows & ((1u << RT_ROWS) - 1))
                        shade<EXACT, SNOW>(s_pos[chunk + b], s_col[chunk + b],
                                           rows & ((1u << RT_ROWS) - 1), cx, cy, c, T, stop, live);
                }
            }
            if (EXACT) {
                __syncthreads();
            } else if (__syncthreads_and((live & mine) == 0)) {
                break;
            }
        }
    }
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) {
        const int py = by0 + ly0 + r;
        if (px >= g.region.x1 || py >= g.region.y1) continue;
        if (!EXACT) {
            c[r][0] += T[r] * bg[r];
            c[r][1] += T[r] * bg[r];
            c[r][2] += T[r] * bg[r];
        }
        image[(size_t)py * g.width + px] = make_float4(c[r][0], c[r][1], c[r][2], c[r][3]);
    }
}

extern "C" qr_status qr_gpu_renderer_create(int32_t width, int32_t height, qr_gpu_renderer **out,
                                            qr_error *err)
{
    *out = NULL;
    if (width < 1 || height < 1 || width > QR_IMAGE_MAX_DIM || height > QR_IMAGE_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID, "image size %dx%d out of range (1..%d)", width, height,
                       QR_IMAGE_MAX_DIM);
    qr_gpu_renderer *r = (qr_gpu_renderer *)calloc(1, sizeof *r);
    if (!r) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    r->width = width;
    r->height = height;
    qr_status st = qr_gpu_index_create(&r->index, err);
    if (st) {
        free(r);
        return st;
    }
    size_t bytes = (size_t)width * height * sizeof(float4);
    cudaError_t e = cudaMalloc((void **)&r->image, bytes);
    for (int k = 0; k < 3 && e == cudaSuccess; k++) e = cudaEventCreate(&r->ev[k]);
    if (e != cudaSuccess) {
        cudaGetLastError();
        qr_gpu_renderer_destroy(r);
        return qr_fail(err, qr_cuda_status(e), "a %dx%d image needs %zu bytes of GPU memory: %s",
                       width, height, bytes, cudaGetErrorString(e));
    }
    *out = r;
    return QR_OK;
}

extern "C" void qr_gpu_renderer_destroy(qr_gpu_renderer *r)
{
    if (!r) return;
    for (int k = 0; k < 3; k++)
        if (r->ev[k]) cudaEventDestroy(r->ev[k]);
    cudaFree(r->image);
    qr_gpu_index_destroy(r->index);
    free(r);
}

extern "C" void qr_gpu_renderer_set_timing(qr_gpu_renderer *r, qr_timing level)
{
    r->timing = level;
    qr_gpu_index_set_timing(r->index, level);
}

extern "C" qr_gpu_index *qr_gpu_renderer_index(qr_gpu_renderer *r)
{
    return r->index;
}

extern "C" size_t qr_gpu_renderer_device_bytes(const qr_gpu_renderer *r)
{
    return (size_t)r->width * r->height * sizeof(float4) + qr_gpu_index_device_bytes(r->index);
}

static qr_status launch_render(qr_gpu_renderer *r, const qr_gpu_scene *scene, qr_render_mode mode,
                               qr_error *err);

extern "C" qr_status qr_gpu_render(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                                   const qr_index_params *params, qr_render_mode mode,
                                   qr_error *err)
{
    cudaStream_t s = qr_gpu_index_stream(r->index);
    if (r->timing) QR_CUDA_TRY(err, cudaEventRecord(r->ev[0], s));
    /* the render is queued right behind the build, which is checked after */
    qr_status st = qr_gpu_index_start(r->index, scene, r->width, r->height, NULL, params, err);
    if (st) return st;
    st = launch_render(r, scene, mode, err);
    if (st) return st;
    int rebuilt = 0;
    st = qr_gpu_index_finish(r->index, &rebuilt, err);
    if (st) return st;
    if (rebuilt) {
        st = launch_render(r, scene, mode, err);
        if (st) return st;
    }
    r->last_mode = mode;
    if (r->timing) {
        QR_CUDA_TRY(err, cudaEventSynchronize(r->ev[2]));
        QR_CUDA_TRY(err, cudaEventElapsedTime(&r->last.render_ms, r->ev[1], r->ev[2]));
        QR_CUDA_TRY(err, cudaEventElapsedTime(&r->last.frame_ms, r->ev[0], r->ev[2]));
        st = qr_gpu_index_timing(r->index, &r->last.build, err);
        if (st) return st;
    }
    return QR_OK;
}

/* Queues the render kernel for the index's current build, between the
 * render's two timing events (the frame ends when the render does, not when
 * the host gets round to checking the build). */
static qr_status launch_render(qr_gpu_renderer *r, const qr_gpu_scene *scene, qr_render_mode mode,
                               qr_error *err)
{
    cudaStream_t s = qr_gpu_index_stream(r->index);
    if (r->timing) QR_CUDA_TRY(err, cudaEventRecord(r->ev[1], s));
    qr_index_view v = qr_gpu_index_view(r->index);
    int tiles = ((v.geom.tiles_x + 1) / 2) * ((v.geom.tiles_y + 1) / 2); /* 32 x 32 regions */
    const bool snow = scene->shading == QR_SHADE_SNOW;
    if (mode == QR_RENDER_EXACT) {
        if (snow)
            k_render<true, true><<<tiles, RT_THREADS, 0, s>>>(v, scene->pos, scene->col, scene->color_span, r->image);
        else
            k_render<true, false><<<tiles, RT_THREADS, 0, s>>>(v, scene->pos, scene->col, scene->color_span, r->image);
    } else {
        if (snow)
            k_render<false, true><<<tiles, RT_THREADS, 0, s>>>(v, scene->pos, scene->col, scene->color_span, r->image);
        else
            k_render<false, false><<<tiles, RT_THREADS, 0, s>>>(v, scene->pos, scene->col, scene->color_span, r->image);
    }
    QR_CUDA_TRY(err, cudaGetLastError());
    if (r->timing) QR_CUDA_TRY(err, cudaEventRecord(r->ev[2], s));
    return QR_OK;
}

extern "C" qr_status qr_gpu_renderer_timing(const qr_gpu_renderer *r, qr_frame_timing *t,
                                            qr_error *err)
{
    if (!r->timing) return qr_fail(err, QR_ERR_INVALID, "timing is not enabled");
    *t = r->last;
    return QR_OK;
}

extern "C" qr_status qr_gpu_renderer_download(const qr_gpu_renderer *r, qr_image *img, qr_error *err)
{
    if (img->width != r->width || img->height != r->height)
        return qr_fail(err, QR_ERR_INVALID, "image is %dx%d, the renderer's %dx%d", img->width,
                       img->height, r->width, r->height);
    QR_CUDA_TRY(err, cudaMemcpy(img->rgba, r->image, (size_t)r->width * r->height * sizeof(float4),
                                cudaMemcpyDeviceToHost));
    return QR_OK;
}
