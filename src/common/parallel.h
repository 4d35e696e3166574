/* parallel.h — run numbered tasks on a few threads.
 *
 * Callers split work into tasks whose results do not depend on which thread
 * runs them or when, so that output is the same for any thread count.
 */
#ifndef QR_PARALLEL_H
#define QR_PARALLEL_H

/* Online CPUs (at least 1, at most 256). */
int qr_cpu_count(void);

/* Calls fn(ctx, t) once for every t in [0, tasks), on up to `threads`
 * threads (the caller's own among them), and returns when all are done.
 * If threads cannot be started the caller runs the remaining tasks itself. */
void qr_parallel_for(int threads, int tasks, void (*fn)(void *ctx, int task), void *ctx);

#endif
