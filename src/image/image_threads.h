/* image_threads.h — how many threads the image writers use. */
#ifndef QR_IMAGE_THREADS_H
#define QR_IMAGE_THREADS_H

/* More threads than this gain nothing on any machine we know. */
#define QR_IMAGE_MAX_THREADS 256

/* `requested` (qr_image_write_options.threads) if positive, else the
 * online cores; at most QR_IMAGE_MAX_THREADS. */
int qr_image_threads(int requested);

#endif
