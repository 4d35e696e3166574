/* quadrender/memory.h — how much host memory this process can still take,
 * asked before a large allocation rather than learnt from the OOM killer.
 *
 * On Linux a large malloc usually succeeds whatever the machine has (the
 * kernel overcommits) and the process is killed later, when the pages are
 * touched. So whatever allocates an image, or sizes a band of one, asks
 * first: a request that cannot fit is refused with QR_ERR_NOMEM and the
 * bytes it needed, or is done in smaller pieces. The CLI and Python share
 * these functions.
 */
#ifndef QUADRENDER_MEMORY_H
#define QUADRENDER_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "quadrender/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of host memory this process can still allocate and use, read
 * afresh on each call: the least of
 *   - the machine's: MemAvailable plus SwapFree (/proc/meminfo);
 *   - its memory cgroup's limit less its usage, page cache it could drop
 *     (inactive_file) counted as free (cgroup v2 memory.max and
 *     memory.current, or v1 memory.limit_in_bytes and memory.usage_in_bytes,
 *     of the cgroup in /proc/self/cgroup or the hierarchy's root);
 *   - its address-space limit (RLIMIT_AS) less the address space it has
 *     mapped now (/proc/self/statm).
 * What cannot be read does not limit; UINT64_MAX when nothing can be read
 * (not Linux). */
uint64_t qr_host_memory_available(void);

/* A budget of host memory for this process, 0 (the default) for none: from
 * then on qr_host_memory_available() is also at most the budget less what
 * the process holds resident now (/proc/self/statm), so that work done in
 * bands takes smaller bands and a request past it is refused, as under a
 * smaller machine (the CLI's --memory, Python's set_memory_budget). Not a
 * hard limit on what the process can map: memory taken outside these
 * checks (the CUDA driver's, a caller's) counts only once resident. */
void qr_host_memory_set_budget(uint64_t bytes);
uint64_t qr_host_memory_budget(void);

/* QR_OK when `bytes` more fit in qr_host_memory_available(); else
 * QR_ERR_NOMEM, "<what> needs <bytes> bytes (<GiB>) of host memory; this
 * process can take <n> bytes (<GiB>)". */
qr_status qr_host_memory_check(const char *what, uint64_t bytes, qr_error *err);

/* The least request the library's own builders check (the host index, the
 * CPU renderer): asking what is available reads several files of /proc,
 * which a frame of a few circles would spend more on than on its work;
 * smaller requests are left to malloc. (Whole images have their own,
 * QR_IMAGE_CHECKED_BYTES.) */
#define QR_HOST_CHECKED_BYTES ((uint64_t)1 << 20)

/* malloc(bytes) into *out, after qr_host_memory_check(what, bytes): a
 * request that cannot fit, or that malloc refuses, is QR_ERR_NOMEM naming
 * what and the bytes, with *out NULL. Free it with free(). */
qr_status qr_host_malloc(const char *what, size_t bytes, void **out, qr_error *err);

/* How many rows of row_bytes each a band held in host memory takes: as
 * many as fit max_bytes and a QR_HOST_BAND_SHARE-th of
 * qr_host_memory_available() (the rest is left to what works on the band:
 * an index, encoders, a writer's rows), at least min_rows, at most rows.
 * For work done a band of rows at a time, so that a small budget makes
 * smaller bands rather than a failure. */
#define QR_HOST_BAND_SHARE 4
int32_t qr_host_band_rows(uint64_t row_bytes, int32_t rows, int32_t min_rows, uint64_t max_bytes);

#ifdef __cplusplus
}
#endif
#endif
