/* frame_pool.h — a frame sequence's files, written by a pool of threads
 * (frame_pool.c). Internal to the job layer.
 */
#ifndef QR_JOB_FRAME_POOL_H
#define QR_JOB_FRAME_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quadrender/error.h"
#include "quadrender/image.h"

/* Frames of width x height in `format`, each file encoded on one of
 * `workers` threads while the caller renders the next; as many frame
 * buffers as fit in max_bytes, at most workers + 1 (QR_ERR_NOMEM when
 * fewer than two fit). Only for files named per frame: files may appear
 * out of order. */
typedef struct job_frame_pool job_frame_pool;
qr_status job_frame_pool_start(qr_image_format format, bool alpha, int32_t width, int32_t height,
                               int png_level, qr_png_deflate deflate, int workers, size_t max_bytes,
                               job_frame_pool **out,
                               qr_error *err);
/* A free buffer for the next frame's file rows (waits for one); fails with
 * the first write's error once one has failed. */
qr_status job_frame_pool_take(job_frame_pool *p, void **rows, int *slot, qr_error *err);
/* Queues the buffer taken as `slot` to be written to path with opts' PNG
 * text (copied); the level and thread count are the pool's. */
qr_status job_frame_pool_submit(job_frame_pool *p, int slot, const char *path,
                                const qr_image_write_options *opts, qr_error *err);
/* Waits for every queued file; the first failure, if any. */
qr_status job_frame_pool_finish(job_frame_pool *p, qr_error *err);
/* Stops the threads (after what is queued) and frees the pool. NULL: no-op. */
void job_frame_pool_free(job_frame_pool *p);

#endif
