/* render_gpu.cu — the GPU renderer: one thread block per 16 x 16 pixel tile,
 * one thread per pixel, colour in registers, one global write per pixel.
 *
 * A tile lies inside one quadtree leaf. The block walks the leaf's list in
 * batches of 256 circles: each thread fetches one circle (two 16-byte loads
 * of the packed scene), keeps it only if its pixel box meets the tile, and a
 * block scan compacts the survivors into shared memory in list order — the
 * leaf list is refined to the tile inside the kernel, which is what lets
 * leaves be larger than tiles. Then every pixel runs over the staged circles.
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

#define RT_THREADS (QR_TILE * QR_TILE)

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

template <bool EXACT, bool SNOW>
__global__ void __launch_bounds__(RT_THREADS)
k_render(qr_index_view v, const float4 *__restrict__ pos, const float4 *__restrict__ col,
         float color_span, float4 *__restrict__ image)
{
    __shared__ float4 s_pos[RT_THREADS]; /* x, y, r*r, r */
    __shared__ float4 s_col[RT_THREADS]; /* red, green, blue, z */
    __shared__ int2 s_box[RT_THREADS];   /* x0 | x1 << 16, y0 | y1 << 16 */
    __shared__ typename render_scan::TempStorage scan_tmp;

    const qr_tree_geom &g = v.geom;
    const int tile = blockIdx.x;
    const int tx0 = g.region.x0 + (tile % g.tiles_x) * QR_TILE;
    const int ty0 = g.region.y0 + (tile / g.tiles_x) * QR_TILE;
    const int tx1 = min(tx0 + QR_TILE, g.region.x1), ty1 = min(ty0 + QR_TILE, g.region.y1);
    const int px = tx0 + (threadIdx.x % QR_TILE), py = ty0 + (threadIdx.x / QR_TILE);
    const bool inside = px < tx1 && py < ty1;
    const float cx = qr_pixel_center(px, 1.0f / (float)g.width);
    const float cy = qr_pixel_center(py, 1.0f / (float)g.height);
    const float bg = SNOW ? qr_snow_shade_row(py, g.height) : 1.0f;
    const qr_leaf leaf = v.leaves[v.tile_leaf[tile]];
    const int32_t *list = v.lists + leaf.offset;

    float c[4] = {EXACT ? bg : 0.0f, EXACT ? bg : 0.0f, EXACT ? bg : 0.0f, EXACT ? 1.0f : 0.0f};
    float T = 1.0f;               /* fast: transmittance left */
    bool done = !inside;          /* fast: this pixel can no longer change */
    const float stop = 0.5f * QR_FAST_TOLERANCE / color_span;

    const int count = leaf.count;
    const int batches = (count + RT_THREADS - 1) / RT_THREADS;
    for (int bi = 0; bi < batches; bi++) {
        /* exact walks batches first to last, fast last to first */
        const int base = EXACT ? bi * RT_THREADS : (batches - 1 - bi) * RT_THREADS;
        const int j = base + threadIdx.x;
        int keep = 0;
        float4 p, cl;
        qr_pixbox b;
        if (j < count) {
            int32_t id = list[j];
            p = pos[id];
            cl = col[id];
            b = qr_circle_pixbox(p.x, p.y, p.w, g.width, g.height);
            keep = b.x0 < tx1 && b.x1 > tx0 && b.y0 < ty1 && b.y1 > ty0;
        }
        int slot, kept;
        render_scan(scan_tmp).ExclusiveSum(keep, slot, kept);
        if (keep) {
            s_pos[slot] = make_float4(p.x, p.y, QR_MUL(p.w, p.w), p.w);
            s_col[slot] = make_float4(cl.x, cl.y, cl.z, p.z);
            s_box[slot] = make_int2(b.x0 | (b.x1 << 16), b.y0 | (b.y1 << 16));
        }
        __syncthreads();
        if (!done) {
            for (int k0 = 0; k0 < kept; k0++) {
                const int k = EXACT ? k0 : kept - 1 - k0;
                const float4 sp = s_pos[k];
                const float d2 = qr_dist2(sp.x, sp.y, cx, cy);
                const int2 sb = s_box[k];
                /* the reference only shades pixels inside the circle's box */
                const bool in_box = (unsigned)(px - (sb.x & 0xffff)) < (unsigned)((sb.x >> 16) - (sb.x & 0xffff)) &&
                                    (unsigned)(py - (sb.y & 0xffff)) < (unsigned)((sb.y >> 16) - (sb.y & 0xffff));
                if (!(d2 <= sp.z) || !in_box) continue;
                const float4 sc = s_col[k];
                float alpha, r = sc.x, gr = sc.y, bl = sc.z;
                if (SNOW)
                    qr_shade_snow(d2, sp.w, sc.w, &alpha, &r, &gr, &bl);
                else
                    alpha = 0.5f;
                if (EXACT) {
                    qr_blend(alpha, r, gr, bl, c);
                } else {
                    const float w = T * alpha;
                    c[0] += w * r;
                    c[1] += w * gr;
                    c[2] += w * bl;
                    T *= 1.0f - alpha;
                    if (T <= stop) {
                        done = true;
                        break;
                    }
                }
            }
        }
        if (EXACT) {
            __syncthreads();
        } else if (__syncthreads_and(done)) {
            break;
        }
    }
    if (!inside) return;
    if (!EXACT) {
        c[0] += T * bg;
        c[1] += T * bg;
        c[2] += T * bg;
        c[3] = 1.0f;
    }
    image[(size_t)py * g.width + px] = make_float4(c[0], c[1], c[2], c[3]);
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
