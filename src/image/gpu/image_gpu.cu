/* image_gpu.cu — file rows from a device image (image_gpu.h). */
#include "image/gpu/image_gpu.h"
#include "quadrender/image.h"

#define ROWS_THREADS 256

/* A thread per pixel; a warp's 32 pixels write 96 contiguous bytes (128
 * with alpha). */
__global__ void __launch_bounds__(ROWS_THREADS)
k_rows_rgb8(const float4 *__restrict__ image, int32_t width, int32_t height, int32_t first,
            long long pixels, int32_t pitch, int32_t out_x, int alpha,
            unsigned char *__restrict__ out)
{
    const int bytes = alpha ? 4 : 3;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < pixels;
         i += (long long)gridDim.x * blockDim.x) {
        const int32_t f = (int32_t)(i / width), x = (int32_t)(i - (long long)f * width);
        const float4 p = image[(size_t)(height - 1 - (first + f)) * width + x];
        unsigned char *o = out + bytes * ((size_t)f * pitch + out_x + x);
        if (alpha) {
            qr_to_rgba8(p.x, p.y, p.z, p.w, o);
        } else {
            o[0] = qr_to_byte(p.x);
            o[1] = qr_to_byte(p.y);
            o[2] = qr_to_byte(p.z);
        }
    }
}

__global__ void __launch_bounds__(ROWS_THREADS)
k_rows_rgbf(const float4 *__restrict__ image, int32_t width, int32_t first, long long pixels,
            int32_t pitch, int32_t out_x, float *__restrict__ out)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < pixels;
         i += (long long)gridDim.x * blockDim.x) {
        const int32_t f = (int32_t)(i / width), x = (int32_t)(i - (long long)f * width);
        const float4 p = image[(size_t)first * width + i];
        float *o = out + 3 * ((size_t)f * pitch + out_x + x);
        o[0] = p.x;
        o[1] = p.y;
        o[2] = p.z;
    }
}

static unsigned grid_for(long long pixels)
{
    const long long blocks = (pixels + ROWS_THREADS - 1) / ROWS_THREADS;
    return (unsigned)(blocks < 132 * 32 ? (blocks > 0 ? blocks : 1) : 132 * 32);
}

cudaError_t qr_launch_rows_rgb8(const qr_rows_args *a, cudaStream_t st)
{
    const long long pixels = (long long)a->rows * a->width;
    k_rows_rgb8<<<grid_for(pixels), ROWS_THREADS, 0, st>>>(a->image, a->width, a->height, a->first,
                                                           pixels, a->out_pitch ? a->out_pitch : a->width,
                                                           a->out_x, a->alpha, (unsigned char *)a->out);
    return cudaGetLastError();
}

cudaError_t qr_launch_rows_rgbf(const qr_rows_args *a, cudaStream_t st)
{
    const long long pixels = (long long)a->rows * a->width;
    k_rows_rgbf<<<grid_for(pixels), ROWS_THREADS, 0, st>>>(a->image, a->width, a->first, pixels,
                                                           a->out_pitch ? a->out_pitch : a->width,
                                                           a->out_x, (float *)a->out);
    return cudaGetLastError();
}
