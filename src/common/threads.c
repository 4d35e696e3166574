/* threads.c — the thread count and qr_parallel_for (quadrender/threads.h).
 *
 * POSIX threads, not OpenMP: the library already links pthreads, every
 * parallel loop here is "tasks from an atomic counter" (which a dozen lines
 * of pthreads express exactly), and the thread count is an argument of each
 * call rather than OpenMP's process-wide state, which a host program may
 * set for its own purposes. A team is started per call: starting threads
 * costs little beside the work of a parallel part of a frame, and there is
 * no pool whose idle threads spin.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "quadrender/threads.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "quadrender/text.h"
#include "common/thread_start.h"

static atomic_int requested_threads; /* 0: all cores */
static _Thread_local int inside_task;

int qr_cpu_count(void)
{
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n >= 1) return n;
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (int)(n < QR_MAX_THREADS ? n : QR_MAX_THREADS) : 1;
}

qr_status qr_threads_check(const char *name, const char *text, int *out, qr_error *err)
{
    uint64_t v;
    qr_status st = qr_text_check_uint(name, text, 0, QR_MAX_THREADS, QR_UINT_RANGE,
                                      "a thread count from 1 to 1024, or 0 for all cores", &v, err);
    if (st == QR_OK)
        *out = (int)v;
    return st;
}

void qr_set_threads(int n)
{
    atomic_store(&requested_threads, n < 0 ? 0 : (n > QR_MAX_THREADS ? QR_MAX_THREADS : n));
}

int qr_threads(void)
{
    int n = atomic_load(&requested_threads);
    if (n == 0) n = qr_cpu_count();
    return n < 1 ? 1 : (n > QR_MAX_THREADS ? QR_MAX_THREADS : n);
}

typedef struct team {
    qr_task_fn fn;
    void *ctx;
    int ntasks;
    atomic_int next;
} team;

static void run_tasks(team *t)
{
    inside_task = 1;
    for (;;) {
        int k = atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed);
        if (k >= t->ntasks) break;
        t->fn(t->ctx, k);
    }
    inside_task = 0;
}

static void *worker(void *arg)
{
    run_tasks(arg);
    return NULL;
}

int qr_parallel_for(int ntasks, int threads, qr_task_fn fn, void *ctx)
{
    if (ntasks <= 0) return 0;
    if (threads <= 0) threads = qr_threads();
    if (threads > ntasks) threads = ntasks;
    if (threads > QR_MAX_THREADS) threads = QR_MAX_THREADS;
    team t = {fn, ctx, ntasks, 0};
    if (threads <= 1 || inside_task) {
        const int was = inside_task;
        run_tasks(&t);
        inside_task = was;
        return 0;
    }
    pthread_t ids[QR_MAX_THREADS];
    int started = 0;
    for (int i = 1; i < threads; i++) {
        if (qr_thread_start(&ids[started], worker, &t) != 0) break;
        started++;
    }
    run_tasks(&t);
    for (int i = 0; i < started; i++) pthread_join(ids[i], NULL);
    return started > 0 ? 0 : -1;
}

int qr_thread_start(pthread_t *tid, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    int e = pthread_attr_init(&attr);
    if (e) return e;
    e = pthread_attr_setstacksize(&attr, QR_THREAD_STACK);
    if (!e) e = pthread_create(tid, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    return e;
}
