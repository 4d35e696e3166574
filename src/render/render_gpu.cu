/* render_gpu.cu — the GPU renderer: one thread block per 16 x 16 pixel tile,
 * four pixels per thread, colour in registers, one global write per pixel.
 *
 * A tile lies inside one quadtree leaf. The block walks the leaf's list in
 * batches of 64 circles: each thread fetches one circle (two 16-byte loads
 * of the packed scene), keeps it only if its pixel box meets the tile, and a
 * block scan compacts the survivors into shared memory in list order — the
 * leaf list is refined to the tile inside the kernel, which is what lets
 * leaves be larger than tiles. Then every thread runs over the staged
 * circles for its column of 4 pixels.
 *
 *   exact: back to front, the reference blend with the reference operations
 *          (circle_math.h): bit-identical to qr_render_cpu on flat scenes.
 *   fast:  the same lists front to back with transmittance T: C += T*a*c,
 *          T *= 1-a. Whatever lies behind can move a channel by at most
 *          T * color_span, so a pixel stops once that is <= tol/2, and the
 *          block stops once all its pixels have; the remaining T then takes
 *          the background colour. Snow and flat shading are separate kernel
 *          instances.
 */
#include "quadtree/quadtree_gpu.h"
#include "common/circle_math.h"
#include "common/cuda_check.h"
#include "quadrender/image.h"

#include <cub/block/block_scan.cuh>
#include <stdlib.h>

/* Each thread shades a column of RT_ROWS pixels: the circle's dx and dx*dx
 * are then computed once for all of them. 64 threads cover a 16 x 16 tile. */
#define RT_ROWS 4
#define RT_THREADS (QR_TILE * QR_TILE / RT_ROWS)

typedef cub::BlockScan<int, RT_THREADS> render_scan;

struct qr_gpu_renderer {
    int32_t width, height;
    float4 *image; /* width * height, row 0 = bottom */
    qr_gpu_index *index;
    int timing;
    cudaEvent_t ev[3];
    qr_frame_timing last;
    qr_render_mode last_mode;
};

/* Bits lo..hi-1 of a 16-bit tile row or column mask (0 <= lo <= hi <= 16). */
__device__ __forceinline__ uint32_t span_mask(int lo, int hi)
{
    return ((1u << hi) - 1u) & ~((1u << lo) - 1u);
}

template <bool EXACT, bool SNOW>
__global__ void __launch_bounds__(RT_THREADS)
k_render(qr_index_view v, const float4 *__restrict__ pos, const float4 *__restrict__ col,
         float color_span, float4 *__restrict__ image)
{
    /* staged circles of the current batch, in list order */
    __shared__ float4 s_pos[RT_THREADS];  /* x, y, r*r, r */
    __shared__ float4 s_col[RT_THREADS];  /* flat: 0.5*(r, g, b); snow: -, -, -, z */
    __shared__ uint32_t s_mask[RT_THREADS]; /* the circle's pixel box inside the tile:
                                               column bits | row bits << 16 */
    __shared__ typename render_scan::TempStorage scan_tmp;

    const qr_tree_geom &g = v.geom;
    const int tile = blockIdx.x;
    const int tx0 = g.region.x0 + (tile % g.tiles_x) * QR_TILE;
    const int ty0 = g.region.y0 + (tile / g.tiles_x) * QR_TILE;
    const int lx = threadIdx.x % QR_TILE, ly0 = (threadIdx.x / QR_TILE) * RT_ROWS;
    const int px = tx0 + lx;
    const float inv_h = 1.0f / (float)g.height;
    const float cx = qr_pixel_center(px, 1.0f / (float)g.width);
    float cy[RT_ROWS], bg[RT_ROWS], c[RT_ROWS][4], T[RT_ROWS];
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) {
        cy[r] = qr_pixel_center(ty0 + ly0 + r, inv_h);
        bg[r] = SNOW ? qr_snow_shade_row(ty0 + ly0 + r, g.height) : 1.0f;
        c[r][0] = c[r][1] = c[r][2] = EXACT ? bg[r] : 0.0f;
        c[r][3] = 1.0f;
        T[r] = 1.0f;
    }
    const qr_leaf leaf = v.leaves[v.tile_leaf[tile]];
    const int32_t *list = v.lists + leaf.offset;
    const float stop = 0.5f * QR_FAST_TOLERANCE / color_span;
    uint32_t live = (1u << RT_ROWS) - 1; /* fast: rows that can still change */

    const int count = leaf.count;
    const int batches = (count + RT_THREADS - 1) / RT_THREADS;
    for (int bi = 0; bi < batches; bi++) {
        /* exact walks the list first to last, fast last to first */
        const int base = (EXACT ? bi : batches - 1 - bi) * RT_THREADS;
        const int j = base + threadIdx.x;
        uint32_t mask = 0;
        float4 p, cl;
        if (j < count) {
            int32_t id = list[j];
            p = pos[id];
            cl = col[id];
            qr_pixbox b = qr_circle_pixbox(p.x, p.y, p.w, g.width, g.height);
            int x0 = max(b.x0 - tx0, 0), x1 = min(b.x1 - tx0, QR_TILE);
            int y0 = max(b.y0 - ty0, 0), y1 = min(b.y1 - ty0, QR_TILE);
            if (x0 < x1 && y0 < y1) mask = span_mask(x0, x1) | (span_mask(y0, y1) << 16);
        }
        int slot, kept;
        render_scan(scan_tmp).ExclusiveSum(mask != 0, slot, kept);
        if (mask) {
            s_pos[slot] = make_float4(p.x, p.y, QR_MUL(p.w, p.w), p.w);
            s_col[slot] = SNOW ? make_float4(0.0f, 0.0f, 0.0f, p.z)
                               : make_float4(QR_MUL(0.5f, cl.x), QR_MUL(0.5f, cl.y),
                                             QR_MUL(0.5f, cl.z), 0.0f);
            s_mask[slot] = mask;
        }
        __syncthreads();
        for (int k0 = 0; k0 < kept && live; k0++) {
            const int k = EXACT ? k0 : kept - 1 - k0;
            const uint32_t m = s_mask[k];
            /* the reference only shades pixels inside the circle's box */
            uint32_t rows = ((m >> lx) & 1u) ? (m >> (16 + ly0)) & live : 0u;
            if (!rows) continue;
            const float4 sp = s_pos[k];
            const float4 sc = s_col[k];
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
                    qr_shade_snow(d2, sp.w, sc.w, &alpha, &cr, &cg, &cb);
                    if (EXACT) {
                        qr_blend(alpha, cr, cg, cb, c[r]);
                    } else {
                        const float w = T[r] * alpha;
                        c[r][0] += w * cr;
                        c[r][1] += w * cg;
                        c[r][2] += w * cb;
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
        if (EXACT) {
            __syncthreads();
        } else if (__syncthreads_and(live == 0)) {
            break;
        }
    }
#pragma unroll
    for (int r = 0; r < RT_ROWS; r++) {
        const int py = ty0 + ly0 + r;
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

extern "C" void qr_gpu_renderer_set_timing(qr_gpu_renderer *r, int on)
{
    r->timing = on;
    qr_gpu_index_set_timing(r->index, on);
}

extern "C" qr_gpu_index *qr_gpu_renderer_index(qr_gpu_renderer *r)
{
    return r->index;
}

extern "C" size_t qr_gpu_renderer_device_bytes(const qr_gpu_renderer *r)
{
    return (size_t)r->width * r->height * sizeof(float4) + qr_gpu_index_device_bytes(r->index);
}

extern "C" qr_status qr_gpu_render(qr_gpu_renderer *r, const qr_gpu_scene *scene,
                                   const qr_index_params *params, qr_render_mode mode,
                                   qr_error *err)
{
    if (r->timing) QR_CUDA_TRY(err, cudaEventRecord(r->ev[0], 0));
    qr_status st = qr_gpu_index_build(r->index, scene, r->width, r->height, NULL, params, err);
    if (st) return st;
    if (r->timing) QR_CUDA_TRY(err, cudaEventRecord(r->ev[1], 0));
    qr_index_view v = qr_gpu_index_view(r->index);
    int tiles = v.geom.tiles_x * v.geom.tiles_y;
    const bool snow = scene->shading == QR_SHADE_SNOW;
    if (mode == QR_RENDER_EXACT) {
        if (snow)
            k_render<true, true><<<tiles, RT_THREADS>>>(v, scene->pos, scene->col, scene->color_span, r->image);
        else
            k_render<true, false><<<tiles, RT_THREADS>>>(v, scene->pos, scene->col, scene->color_span, r->image);
    } else {
        if (snow)
            k_render<false, true><<<tiles, RT_THREADS>>>(v, scene->pos, scene->col, scene->color_span, r->image);
        else
            k_render<false, false><<<tiles, RT_THREADS>>>(v, scene->pos, scene->col, scene->color_span, r->image);
    }
    QR_CUDA_TRY(err, cudaGetLastError());
    r->last_mode = mode;
    if (r->timing) {
        QR_CUDA_TRY(err, cudaEventRecord(r->ev[2], 0));
        QR_CUDA_TRY(err, cudaEventSynchronize(r->ev[2]));
        QR_CUDA_TRY(err, cudaEventElapsedTime(&r->last.render_ms, r->ev[1], r->ev[2]));
        QR_CUDA_TRY(err, cudaEventElapsedTime(&r->last.frame_ms, r->ev[0], r->ev[2]));
        st = qr_gpu_index_timing(r->index, &r->last.build, err);
        if (st) return st;
    }
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
