/* png_gpu.h — a PNG's compressed data made on the GPU (internal).
 *
 * The portable deflate encoder (image/deflate_chunk.h) runs a warp per run
 * of 32 KiB pieces on the device: file rows rendered on the GPU are filtered
 * there, compressed there, and their chunks' records (png_encoder.h: the
 * lengths, the Adler-32 of the filtered bytes and the IDAT's CRC, then the
 * deflate data) are gathered there, so that only compressed bytes cross
 * the bus and the host only writes them (qr_image_writer_append_png_records).
 * The bytes are those the host's portable encoder writes for the same
 * pixels and parameters (tested).
 *
 * Rows come in bands of at most max_rows, each put where qr_gpu_png_slot
 * says by work queued on the encoder's stream; they gather until a batch
 * of about batch_bytes is held, which is then compressed as a whole. The
 * host writes one batch while the GPU compresses the next.
 */
#ifndef QR_PNG_GPU_H
#define QR_PNG_GPU_H

#include <cuda_runtime.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* the C headers below have no guards of their own */
#endif

#include "image/image_parts.h"
#include "image/png_encoder.h"
#include "quadrender/error.h"

typedef struct qr_gpu_png qr_gpu_png;

/* Whether the GPU encodes a PNG of these parameters: the portable deflate
 * encoder, with filter NONE or UP. */
int qr_gpu_png_supports(const qr_png_params *p);

/* Whether writer w's PNG is compressed here (its encoder is the portable
 * one, qr_gpu_png_supports), with its parameters into *p. */
int qr_gpu_png_for(const qr_image_writer *w, qr_png_params *p);

/* Whether a write through this encoder that ended in st may be done again
 * by the host's encoder, with the same bytes: the GPU had no room for the
 * encoder's buffers and nothing reached the writer. */
int qr_gpu_png_host_instead(qr_status st, const qr_image_writer *w);

/* The bytes of raw rows a batch gathers by default for an image of
 * `height` rows of row_bytes: about 1 GiB, or the whole image. */
size_t qr_gpu_png_batch_bytes(size_t row_bytes, int32_t height);

/* An encoder for the file rows (top row first) of a width x height PNG
 * whose writer has parameters p, taking bands of at most max_rows rows,
 * compressing batches of about batch_bytes (0: a default), its work
 * queued on stream s. Device or pinned memory short: QR_ERR_GPU_NOMEM
 * (the caller then encodes on the host, with the same bytes). */
qr_status qr_gpu_png_create(int32_t width, int32_t height, const qr_png_params *p,
                            int32_t max_rows, size_t batch_bytes, cudaStream_t s,
                            qr_gpu_png **out, qr_error *err);

/* Where the next band's rows go: device memory for max_rows rows of
 * width * p->pixel_bytes bytes, valid until the next push. */
unsigned char *qr_gpu_png_slot(qr_gpu_png *g);

/* The next `rows` file rows are in the slot (or will be, by work already
 * queued on the stream). When the batch is full, or the image complete,
 * queues its compression, and writes to w the batch before it. */
qr_status qr_gpu_png_push(qr_gpu_png *g, int32_t rows, qr_image_writer *w, qr_error *err);

/* Once every row is pushed: writes what is left to w. */
qr_status qr_gpu_png_finish(qr_gpu_png *g, qr_image_writer *w, qr_error *err);

/* Tests only: batches of at most this many bytes (0: the default), so that
 * small images cross batches and carry rows between them. */
void qr_gpu_png_set_batch_max(size_t bytes);

/* Waits for the stream and frees everything; safe on NULL. */
void qr_gpu_png_free(qr_gpu_png *g);

#ifdef __cplusplus
}
#endif

#endif
