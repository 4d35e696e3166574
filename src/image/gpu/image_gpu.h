/* image_gpu.h — a device image's rows as a file stores them, converted on
 * the GPU so that only the file's bytes cross the bus (internal).
 *
 * The device image is float RGBA, width x height, row 0 at the bottom.
 * PNG and PPM store 8-bit RGB from the top row down, each channel through
 * qr_to_byte, the very function the host writers use (a PNG with alpha:
 * 8-bit RGBA through qr_to_rgba8, likewise shared); PFM stores float RGB
 * from the bottom row up.
 */
#ifndef QR_IMAGE_GPU_H
#define QR_IMAGE_GPU_H

#include <cuda_runtime.h>
#include <stdint.h>

typedef struct qr_rows_args {
    const float4 *image;   /* device, width x height */
    int32_t width, height;
    int32_t first, rows;   /* file rows [first, first + rows) */
    void *out;             /* device: rows of 3 bytes (rgb8; 4 with alpha) or 3 floats
                              (rgbf) a pixel */
    int32_t out_pitch;     /* pixels from one out row to the next (0: width) */
    int32_t out_x;         /* the image's first column lands at this pixel of its out row */
    int alpha;             /* rgb8 only: 1 writes RGBA (qr_to_rgba8), 0 RGB */
} qr_rows_args;

/* 8-bit RGB (or RGBA) rows, file row 0 = the image's top row. */
cudaError_t qr_launch_rows_rgb8(const qr_rows_args *a, cudaStream_t st);
/* Float RGB rows, file row 0 = the image's bottom row. */
cudaError_t qr_launch_rows_rgbf(const qr_rows_args *a, cudaStream_t st);

#endif
