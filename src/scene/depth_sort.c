/* depth_sort.c — sorting depths from largest to smallest, on all cores.
 *
 * The built-in scenes sort their random depths descending (the spec's
 * qsort). An LSD radix sort on the bit patterns is exact for floats (equal
 * keys are equal values) and stable; each pass is parallel: every slice of
 * the array counts its digits, the counts are summed in (digit, slice)
 * order, and every slice scatters its keys to their places. A stable sort's
 * result is unique, so the slices and threads cannot change it.
 */
#include "scene/scene_internal.h"

#include <stdlib.h>
#include <string.h>

#include "quadrender/threads.h"

#define QR_RADIX_BITS 11
#define QR_RADIX_SIZE (1u << QR_RADIX_BITS)
#define QR_RADIX_PASSES 3
/* Keys per slice at least, and slices at most. */
#define QR_SLICE_MIN 32768
#define QR_SLICES_MAX 64

/* Maps a float's bits to a key whose unsigned order is the float's
 * DESCENDING order (any sign; NaN never occurs here). */
static uint32_t qr_desc_key(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return (b & 0x80000000u) ? b : (~b & 0x7fffffffu);
}

static float qr_desc_key_inverse(uint32_t k)
{
    uint32_t b = (k & 0x80000000u) ? k : (~k & 0x7fffffffu);
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

typedef struct qr_sort_job {
    float *v;
    uint32_t *a, *b;
    size_t n;
    int slices;
    int shift;
    uint32_t (*hist)[QR_RADIX_SIZE]; /* per slice: digit counts, then offsets */
} qr_sort_job;

static void qr_slice(const qr_sort_job *job, int s, size_t *lo, size_t *hi)
{
    *lo = job->n * (size_t)s / (size_t)job->slices;
    *hi = job->n * (size_t)(s + 1) / (size_t)job->slices;
}

static void qr_to_keys(void *ctx, int s)
{
    qr_sort_job *job = ctx;
    size_t lo, hi;
    qr_slice(job, s, &lo, &hi);
    for (size_t i = lo; i < hi; ++i)
        job->a[i] = qr_desc_key(job->v[i]);
}

static void qr_from_keys(void *ctx, int s)
{
    qr_sort_job *job = ctx;
    size_t lo, hi;
    qr_slice(job, s, &lo, &hi);
    for (size_t i = lo; i < hi; ++i)
        job->v[i] = qr_desc_key_inverse(job->a[i]);
}

static void qr_count(void *ctx, int s)
{
    qr_sort_job *job = ctx;
    size_t lo, hi;
    qr_slice(job, s, &lo, &hi);
    uint32_t *h = job->hist[s];
    memset(h, 0, sizeof job->hist[s]);
    for (size_t i = lo; i < hi; ++i)
        h[(job->a[i] >> job->shift) & (QR_RADIX_SIZE - 1)]++;
}

static void qr_scatter(void *ctx, int s)
{
    qr_sort_job *job = ctx;
    size_t lo, hi;
    qr_slice(job, s, &lo, &hi);
    uint32_t *h = job->hist[s];
    for (size_t i = lo; i < hi; ++i) {
        uint32_t k = job->a[i];
        job->b[h[(k >> job->shift) & (QR_RADIX_SIZE - 1)]++] = k;
    }
}

qr_status qr_sort_descending(float *v, size_t n, qr_error *err)
{
    if (n < 2)
        return QR_OK;
    qr_sort_job job = {.v = v, .n = n};
    size_t slices = n / QR_SLICE_MIN;
    job.slices = slices < 1 ? 1 : slices > QR_SLICES_MAX ? QR_SLICES_MAX : (int)slices;
    job.a = malloc(n * sizeof *job.a);
    job.b = malloc(n * sizeof *job.b);
    job.hist = malloc((size_t)job.slices * sizeof *job.hist);
    if (!job.a || !job.b || !job.hist) {
        free(job.a);
        free(job.b);
        free(job.hist);
        return qr_fail(err, QR_ERR_NOMEM, "out of memory sorting %zu depths", n);
    }
    int threads = qr_threads();
    qr_parallel_for(job.slices, threads, qr_to_keys, &job);
    for (int p = 0; p < QR_RADIX_PASSES; ++p) {
        job.shift = p * QR_RADIX_BITS;
        qr_parallel_for(job.slices, threads, qr_count, &job);
        /* A digit every key shares (the exponent bits of [0,1] floats, say)
         * leaves the order as it is: skip the pass. */
        uint32_t d0 = (job.a[0] >> job.shift) & (QR_RADIX_SIZE - 1);
        size_t same = 0;
        for (int s = 0; s < job.slices; ++s)
            same += job.hist[s][d0];
        if (same == n)
            continue;
        uint32_t sum = 0;
        for (uint32_t d = 0; d < QR_RADIX_SIZE; ++d)
            for (int s = 0; s < job.slices; ++s) {
                uint32_t c = job.hist[s][d];
                job.hist[s][d] = sum;
                sum += c;
            }
        qr_parallel_for(job.slices, threads, qr_scatter, &job);
        uint32_t *t = job.a;
        job.a = job.b;
        job.b = t;
    }
    qr_parallel_for(job.slices, threads, qr_from_keys, &job);
    free(job.a);
    free(job.b);
    free(job.hist);
    return QR_OK;
}
