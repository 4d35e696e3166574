/* thread_start.h — starting the library's CPU worker threads (threads.c).
 *
 * A worker is started with a stack of QR_THREAD_STACK bytes instead of the
 * system's default (RLIMIT_STACK, commonly 8 MiB): each thread's stack is
 * address space taken whether used or not, and with one worker per core a
 * 16-core machine's default stacks alone take 128 MiB of a process limited
 * to a few hundred (memory checked before it is spent: quadrender/memory.h).
 * The workers (tiles, the host build's chunks, PNG encoding, file rows)
 * keep little on their stacks. Threads that call into CUDA keep the
 * default.
 */
#ifndef QR_THREAD_START_H
#define QR_THREAD_START_H

#include <pthread.h>

#define QR_THREAD_STACK ((size_t)1 << 20)

/* pthread_create with a QR_THREAD_STACK stack: 0, or its error number. */
int qr_thread_start(pthread_t *tid, void *(*fn)(void *), void *arg);

#endif
