/* quadrender/threads.h — how many CPU threads quadrender's parallel parts use,
 * and the one way they run in parallel.
 *
 * Every parallel part of the library (the CPU renderer, the host index build,
 * and anything added later) asks qr_threads() how many threads to use and
 * runs its work through qr_parallel_for, so that one setting (the CLI's
 * --threads N) governs them all. Results never depend on the thread count:
 * callers split work into tasks whose outputs do not depend on which thread
 * runs them or when.
 */
#ifndef QUADRENDER_THREADS_H
#define QUADRENDER_THREADS_H

#include "quadrender/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest thread count accepted; larger requests are clamped to it. */
#define QR_MAX_THREADS 1024

/* A thread count given as text (quadrender/text.h): 0 (all cores) to
 * QR_MAX_THREADS; else QR_ERR_INVALID, "<name>: expected a thread count
 * from 1 to 1024, or 0 for all cores, got '<text>'". qr_set_threads clamps
 * what it is given; this is what the CLI and Python refuse instead. */
qr_status qr_threads_check(const char *name, const char *text, int *out, qr_error *err);

/* Sets the thread count of every parallel part: n >= 1, or 0 for all the
 * cores this process may run on (the default). Meant to be called once, at
 * start-up, before any parallel work. */
void qr_set_threads(int n);

/* The thread count in effect (>= 1). */
int qr_threads(void);

/* The cores this process may run on (its CPU affinity mask; >= 1). */
int qr_cpu_count(void);

/* Calls fn(ctx, task) once for every task in [0, ntasks), on up to
 * `threads` threads (0: qr_threads()), the calling thread among them; tasks
 * are handed out in ascending order as threads become free. Returns when all
 * are done. A call made from inside a task runs its tasks on the calling
 * thread alone (no nested thread teams). Returns 0, or -1 when no thread
 * could be started (all tasks have then run on the calling thread). */
typedef void (*qr_task_fn)(void *ctx, int task);
int qr_parallel_for(int ntasks, int threads, qr_task_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
