/* parallel.c — a minimal task runner over POSIX threads (see parallel.h). */
#include "common/parallel.h"

#include <pthread.h>
#include <unistd.h>

#define QR_MAX_THREADS 256

int qr_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > QR_MAX_THREADS ? QR_MAX_THREADS : (int)n;
}

typedef struct qr_pool {
    pthread_mutex_t lock;
    int next, tasks;
    void (*fn)(void *ctx, int task);
    void *ctx;
} qr_pool;

static void *qr_pool_worker(void *arg)
{
    qr_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int t = p->next < p->tasks ? p->next++ : -1;
        pthread_mutex_unlock(&p->lock);
        if (t < 0)
            return NULL;
        p->fn(p->ctx, t);
    }
}

void qr_parallel_for(int threads, int tasks, void (*fn)(void *ctx, int task), void *ctx)
{
    if (threads > tasks)
        threads = tasks;
    if (threads > QR_MAX_THREADS)
        threads = QR_MAX_THREADS;
    if (threads <= 1) {
        for (int t = 0; t < tasks; ++t)
            fn(ctx, t);
        return;
    }
    qr_pool p = {.next = 0, .tasks = tasks, .fn = fn, .ctx = ctx};
    pthread_mutex_init(&p.lock, NULL);
    pthread_t tid[QR_MAX_THREADS];
    int started = 0;
    for (int i = 1; i < threads; ++i) {
        if (pthread_create(&tid[started], NULL, qr_pool_worker, &p) != 0)
            break;
        started++;
    }
    qr_pool_worker(&p);
    for (int i = 0; i < started; ++i)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&p.lock);
}
