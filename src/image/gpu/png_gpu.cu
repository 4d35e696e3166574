/* png_gpu.cu — see png_gpu.h.
 *
 * A batch holds file rows [wr, wr + held) in `raw`: the rows before its
 * first uncompressed chunk that the chunk's dictionary needs (at most
 * ctx_max), the rows of that chunk not yet complete, and the new bands.
 * Compressing it is five steps on the stream, each a kernel:
 *   k_filter   the rows' filtered bytes (PNG's filter type byte and the
 *              row), every row that primes a dictionary or is compressed;
 *   k_deflate  a thread per piece (deflate_chunk.h), with work memory of
 *              its own: the piece's deflate data, its length, the Adler-32
 *              of its input and the CRC-32 of its output;
 *   the scan   of the records' sizes (CUB), their places in the batch;
 *   k_records  a thread per chunk: the record's head, its checksums
 *              combined from its pieces' (zlib's adler32_combine and
 *              crc32_combine), and chunk 0's zlib header;
 *   k_gather   a block per piece: its data into place.
 * The host then copies the records back on a second stream and writes them
 * while the next batch compresses; the rows that the next chunk still
 * needs move to the front of `raw`.
 */
#include "image/gpu/png_gpu.h"
#include "gpu/cuda_check.h"

#include <cub/device/device_scan.cuh>
#include <stdlib.h>
#include <string.h>

#include "image/deflate_chunk.h"

#define RECORD_HEAD 24 /* png_encoder.c's record: raw length, Adler-32, CRC, data length */
#define PIECE_CAP QR_DEFLATE_PIECE_BOUND(QR_DEFLATE_PIECE)
#define DEFAULT_BATCH ((size_t)1 << 30)
/* threads (and work memories of QR_DEFLATE_HASH_WORDS) that compress at once */
#define DEFLATE_THREADS 64
#define MAX_WORKERS 32768
#define GATHER_THREADS 256

struct qr_gpu_png {
    int32_t width, height, max_rows;
    size_t row_bytes, fb; /* a raw row; a filtered row (1 + row_bytes) */
    qr_png_params p;
    int32_t rpc, ctx_max;
    int64_t nchunks;
    cudaStream_t s, copy_s;

    int32_t wr, held;   /* raw holds file rows [wr, wr + held) */
    int32_t cap_rows;   /* raw's capacity in rows */
    int64_t k_next;     /* the first chunk not compressed */
    unsigned char *raw, *moved, *filtered;
    size_t pieces_max;
    unsigned char *pieces; /* pieces_max slots of PIECE_CAP */
    uint32_t *plen, *padler, *pcrc;
    unsigned long long *sizes, *offsets, *total_dev;
    void *scan_tmp;
    size_t scan_bytes;
    uint16_t *hash;
    int workers;

    /* two batches in flight: compressed records on the device and on the host */
    unsigned char *rec_dev[2], *rec_host[2];
    size_t rec_cap, host_cap[2];
    unsigned long long *total_host; /* pinned, 2 */
    cudaEvent_t made[2], copied[2];
    int nbatch;        /* batches queued */
    int pending;       /* the last batch is copied or copying, not yet written */
    int pend_b;        /* its slots */
    int32_t pend_r0, pend_r1;
    size_t pend_len;
};

/* ---- kernels ---------------------------------------------------------------------------------- */

/* Filtered rows [fr, fr + n) of the image into out, a row of fb bytes each;
 * raw holds rows from file row wr (wr < fr unless fr is 0). */
__global__ void k_filter(const unsigned char *__restrict__ raw, int32_t wr, int32_t fr, int32_t n,
                         size_t row_bytes, int filter, unsigned char *__restrict__ out)
{
    const size_t fb = row_bytes + 1, total = (size_t)n * fb;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        const int32_t r = (int32_t)(i / fb);
        const size_t c = i - (size_t)r * fb;
        const int32_t row = fr + r;
        unsigned char v;
        if (c == 0) {
            v = (unsigned char)filter;
        } else {
            const unsigned char *me = raw + (size_t)(row - wr) * row_bytes;
            v = me[c - 1];
            if (filter == QR_PNG_FILTER_UP && row > 0)
                v = (unsigned char)(v - me[(ptrdiff_t)(c - 1) - (ptrdiff_t)row_bytes]);
        }
        out[i] = v;
    }
}

/* Where piece j of a batch lies: its chunk (from k0), its place in it,
 * its length, and whether it ends the stream. */
struct piece_at {
    int64_t chunk;
    size_t in_chunk, n, chunk_len;
    int first, last;
};

__device__ __forceinline__ piece_at locate(long long j, int64_t k0, int64_t nchunks,
                                           int32_t height, int32_t rpc, size_t fb)
{
    const size_t full = (size_t)rpc * fb;
    const long long ppc = (long long)((full + QR_DEFLATE_PIECE - 1) / QR_DEFLATE_PIECE);
    piece_at a;
    a.chunk = k0 + j / ppc;
    a.in_chunk = (size_t)(j % ppc) * QR_DEFLATE_PIECE;
    const int32_t rows = a.chunk == nchunks - 1 ? height - (int32_t)(a.chunk * rpc) : rpc;
    a.chunk_len = (size_t)rows * fb;
    a.n = a.chunk_len - a.in_chunk < QR_DEFLATE_PIECE ? a.chunk_len - a.in_chunk : QR_DEFLATE_PIECE;
    a.first = a.in_chunk == 0;
    a.last = a.chunk == nchunks - 1 && a.in_chunk + a.n == a.chunk_len;
    return a;
}

/* The bytes of chunk k's record before its data: the head, and chunk 0's
 * zlib header. */
__device__ __forceinline__ size_t record_head(int64_t k)
{
    return RECORD_HEAD + (k == 0 ? 2 : 0);
}

__device__ __forceinline__ uint32_t crc_bytes(const uint32_t *table, uint32_t crc,
                                              const unsigned char *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

__global__ void __launch_bounds__(DEFLATE_THREADS)
k_deflate(const unsigned char *__restrict__ filtered, size_t filtered_from, long long npieces,
          int64_t k0, int64_t nchunks, int32_t height, int32_t rpc, size_t fb, size_t dict_bytes,
          uint16_t *__restrict__ hash_pool, unsigned char *__restrict__ pieces,
          uint32_t *__restrict__ plen, uint32_t *__restrict__ padler, uint32_t *__restrict__ pcrc,
          unsigned long long *__restrict__ sizes)
{
    __shared__ uint32_t table[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        uint32_t c = (uint32_t)i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (QR_CRC32_POLY & (0u - (c & 1u)));
        table[i] = c;
    }
    __syncthreads();
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    uint16_t *hash = hash_pool + (size_t)t * QR_DEFLATE_HASH_WORDS;
    for (long long j = t; j < npieces; j += (long long)gridDim.x * blockDim.x) {
        const piece_at a = locate(j, k0, nchunks, height, rpc, fb);
        const size_t g0 = (size_t)a.chunk * rpc * fb; /* the chunk's first filtered byte */
        const size_t dict0 = g0 < dict_bytes ? g0 : dict_bytes;
        const size_t before =
            dict0 + a.in_chunk < QR_DEFLATE_WINDOW ? dict0 + a.in_chunk : QR_DEFLATE_WINDOW;
        const unsigned char *in = filtered + (g0 + a.in_chunk - filtered_from);
        unsigned char *out = pieces + (size_t)j * PIECE_CAP;
        const size_t len = qr_deflate_piece(in - before, (uint32_t)before, (uint32_t)a.n, out,
                                            PIECE_CAP, hash, a.last);
        plen[j] = (uint32_t)len; /* the bound always holds */
        padler[j] = qr_adler32(1, in, a.n);
        pcrc[j] = crc_bytes(table, 0, out, len);
        sizes[j] = len + (a.first ? record_head(a.chunk) : 0);
    }
}

__device__ __forceinline__ void le_put(unsigned char *d, unsigned long long v, int n)
{
    for (int i = 0; i < n; i++)
        d[i] = (unsigned char)(v >> (8 * i));
}

/* A thread per chunk of the batch: its record's head. */
__global__ void k_records(int64_t k0, int64_t nchunks_batch, int64_t nchunks, int32_t height,
                          int32_t rpc, size_t fb, long long npieces,
                          const uint32_t *__restrict__ plen, const uint32_t *__restrict__ padler,
                          const uint32_t *__restrict__ pcrc,
                          const unsigned long long *__restrict__ sizes,
                          const unsigned long long *__restrict__ offsets,
                          unsigned char *__restrict__ rec, unsigned long long *total)
{
    const int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (c >= nchunks_batch)
        return;
    const int64_t k = k0 + c;
    const long long ppc = (long long)(((size_t)rpc * fb + QR_DEFLATE_PIECE - 1) / QR_DEFLATE_PIECE);
    const long long j0 = c * ppc;
    const int32_t rows = k == nchunks - 1 ? height - (int32_t)(k * rpc) : rpc;
    const size_t chunk_len = (size_t)rows * fb;
    const long long jn = (long long)((chunk_len + QR_DEFLATE_PIECE - 1) / QR_DEFLATE_PIECE);
    const unsigned char idat[6] = {'I', 'D', 'A', 'T', 0x78, 0x01};
    uint32_t crc = qr_crc32(0, idat, k == 0 ? 6 : 4);
    uint32_t adler = 1;
    unsigned long long data_len = k == 0 ? 2 : 0;
    for (long long j = j0; j < j0 + jn; j++) {
        const size_t n = j - j0 < jn - 1 ? QR_DEFLATE_PIECE : chunk_len - (size_t)(jn - 1) * QR_DEFLATE_PIECE;
        adler = qr_adler32_combine(adler, padler[j], n);
        crc = qr_crc32_combine(crc, pcrc[j], plen[j]);
        data_len += plen[j];
    }
    unsigned char *h = rec + offsets[j0];
    le_put(h, chunk_len, 8);
    le_put(h + 8, adler, 4);
    le_put(h + 12, crc, 4);
    le_put(h + 16, data_len, 8);
    if (k == 0) {
        h[RECORD_HEAD] = 0x78; /* deflate, 32 KiB window */
        h[RECORD_HEAD + 1] = 0x01; /* FLEVEL 0, no dictionary, FCHECK */
    }
    if (j0 + jn == npieces)
        *total = offsets[npieces - 1] + sizes[npieces - 1];
}

/* A block per piece: its deflate data into its record. */
__global__ void __launch_bounds__(GATHER_THREADS)
k_gather(int64_t k0, int64_t nchunks, int32_t height, int32_t rpc, size_t fb,
         const unsigned char *__restrict__ pieces, const uint32_t *__restrict__ plen,
         const unsigned long long *__restrict__ offsets, unsigned char *__restrict__ rec)
{
    const long long j = blockIdx.x;
    const piece_at a = locate(j, k0, nchunks, height, rpc, fb);
    unsigned char *dst = rec + offsets[j] + (a.first ? record_head(a.chunk) : 0);
    const unsigned char *src = pieces + (size_t)j * PIECE_CAP;
    const uint32_t n = plen[j];
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
        dst[i] = src[i];
}

/* ---- the host side ---------------------------------------------------------------------------- */

extern "C" int qr_gpu_png_supports(const qr_png_params *p)
{
    return p->deflate == QR_PNG_DEFLATE_PORTABLE &&
           (p->filter == QR_PNG_FILTER_NONE || p->filter == QR_PNG_FILTER_UP) &&
           (p->pixel_bytes == 3 || p->pixel_bytes == 4);
}

static size_t batch_max; /* tests: qr_gpu_png_set_batch_max */

extern "C" void qr_gpu_png_set_batch_max(size_t bytes)
{
    batch_max = bytes;
}

extern "C" size_t qr_gpu_png_batch_bytes(size_t row_bytes, int32_t height)
{
    const size_t whole = row_bytes * (size_t)height;
    return whole < DEFAULT_BATCH ? whole : DEFAULT_BATCH;
}

extern "C" void qr_gpu_png_free(qr_gpu_png *g)
{
    if (!g)
        return;
    if (g->s)
        cudaStreamSynchronize(g->s);
    if (g->copy_s) {
        cudaStreamSynchronize(g->copy_s);
        cudaStreamDestroy(g->copy_s);
    }
    cudaFree(g->raw);
    cudaFree(g->moved);
    cudaFree(g->filtered);
    cudaFree(g->pieces);
    cudaFree(g->plen);
    cudaFree(g->padler);
    cudaFree(g->pcrc);
    cudaFree(g->sizes);
    cudaFree(g->offsets);
    cudaFree(g->total_dev);
    cudaFree(g->scan_tmp);
    cudaFree(g->hash);
    for (int b = 0; b < 2; b++) {
        cudaFree(g->rec_dev[b]);
        cudaFreeHost(g->rec_host[b]);
        if (g->made[b])
            cudaEventDestroy(g->made[b]);
        if (g->copied[b])
            cudaEventDestroy(g->copied[b]);
    }
    cudaFreeHost(g->total_host);
    cudaGetLastError();
    free(g);
}

extern "C" qr_status qr_gpu_png_create(int32_t width, int32_t height, const qr_png_params *p,
                                       int32_t max_rows, size_t batch_bytes, cudaStream_t s,
                                       qr_gpu_png **out, qr_error *err)
{
    *out = NULL;
    if (!qr_gpu_png_supports(p) || width < 1 || height < 1 || max_rows < 1 ||
        p->dict_bytes > QR_DEFLATE_WINDOW)
        return qr_fail(err, QR_ERR_INVALID, "the GPU's PNG encoder takes the portable encoder with "
                       "filter none or up");
    qr_gpu_png *g = (qr_gpu_png *)calloc(1, sizeof *g);
    if (!g)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory for the GPU's PNG encoder");
    g->width = width;
    g->height = height;
    g->max_rows = max_rows < height ? max_rows : height;
    g->p = *p;
    g->row_bytes = (size_t)width * (size_t)p->pixel_bytes;
    g->fb = g->row_bytes + 1;
    qr_png_layout(width, height, p, &g->rpc, &g->ctx_max);
    g->nchunks = ((int64_t)height + g->rpc - 1) / g->rpc;
    g->s = s;
    /* a batch: the bands it gathers, and the rows kept before them */
    if (batch_bytes == 0)
        batch_bytes = DEFAULT_BATCH;
    if (batch_max && batch_bytes > batch_max)
        batch_bytes = batch_max;
    int64_t batch_rows = (int64_t)(batch_bytes / g->row_bytes);
    if (batch_rows < g->max_rows)
        batch_rows = g->max_rows;
    if (batch_rows > height)
        batch_rows = height;
    int64_t cap = batch_rows + g->ctx_max + g->rpc;
    g->cap_rows = (int32_t)(cap < (int64_t)height + g->ctx_max ? cap : (int64_t)height + g->ctx_max);
    const size_t raw_bytes = (size_t)g->cap_rows * g->row_bytes;
    const size_t keep_bytes = (size_t)(g->ctx_max + g->rpc) * g->row_bytes;
    const size_t filt_bytes = (size_t)g->cap_rows * g->fb;
    /* a batch's pieces: each chunk's bytes in pieces, at most one short one a chunk */
    g->pieces_max = filt_bytes / QR_DEFLATE_PIECE + (size_t)(g->cap_rows / g->rpc) + 2;
    g->rec_cap = g->pieces_max * (PIECE_CAP + RECORD_HEAD + 2);
    g->workers = (int)(g->pieces_max < MAX_WORKERS ? g->pieces_max : MAX_WORKERS);
    g->workers = (g->workers + DEFLATE_THREADS - 1) / DEFLATE_THREADS * DEFLATE_THREADS;
    qr_status st = QR_OK;
    cudaError_t e = cudaStreamCreateWithFlags(&g->copy_s, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMalloc(&g->raw, raw_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&g->moved, keep_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&g->filtered, filt_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&g->pieces, g->pieces_max * PIECE_CAP);
    if (e == cudaSuccess) e = cudaMalloc(&g->plen, g->pieces_max * sizeof(uint32_t));
    if (e == cudaSuccess) e = cudaMalloc(&g->padler, g->pieces_max * sizeof(uint32_t));
    if (e == cudaSuccess) e = cudaMalloc(&g->pcrc, g->pieces_max * sizeof(uint32_t));
    if (e == cudaSuccess) e = cudaMalloc(&g->sizes, g->pieces_max * sizeof(unsigned long long));
    if (e == cudaSuccess) e = cudaMalloc(&g->offsets, g->pieces_max * sizeof(unsigned long long));
    if (e == cudaSuccess) e = cudaMalloc(&g->total_dev, sizeof(unsigned long long));
    if (e == cudaSuccess)
        e = cub::DeviceScan::ExclusiveSum(NULL, g->scan_bytes, g->sizes, g->offsets,
                                          (int)g->pieces_max, s);
    if (e == cudaSuccess) e = cudaMalloc(&g->scan_tmp, g->scan_bytes);
    if (e == cudaSuccess)
        e = cudaMalloc(&g->hash, (size_t)g->workers * QR_DEFLATE_HASH_WORDS * sizeof(uint16_t));
    for (int b = 0; b < 2 && e == cudaSuccess; b++) {
        e = cudaMalloc(&g->rec_dev[b], g->rec_cap);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&g->made[b], cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&g->copied[b], cudaEventDisableTiming);
    }
    if (e == cudaSuccess)
        e = cudaHostAlloc((void **)&g->total_host, 2 * sizeof(unsigned long long), cudaHostAllocDefault);
    if (e != cudaSuccess) {
        st = qr_fail(err, qr_cuda_status(e), "the GPU's PNG encoder needs about %zu MB of GPU memory "
                     "for batches of %d rows: %s",
                     (raw_bytes + filt_bytes + g->pieces_max * PIECE_CAP + 2 * g->rec_cap +
                      (size_t)g->workers * QR_DEFLATE_HASH_WORDS * 2) >> 20,
                     g->cap_rows, cudaGetErrorString(e));
        cudaGetLastError();
        qr_gpu_png_free(g);
        return st;
    }
    *out = g;
    return QR_OK;
}

extern "C" unsigned char *qr_gpu_png_slot(qr_gpu_png *g)
{
    return g->raw + (size_t)g->held * g->row_bytes;
}

/* Grows host slot b to hold n bytes. */
static qr_status host_room(qr_gpu_png *g, int b, size_t n, qr_error *err)
{
    if (g->host_cap[b] >= n)
        return QR_OK;
    cudaFreeHost(g->rec_host[b]);
    g->rec_host[b] = NULL;
    g->host_cap[b] = 0;
    const size_t want = n + n / 4;
    QR_CUDA_TRY(err, cudaHostAlloc((void **)&g->rec_host[b], want, cudaHostAllocDefault));
    g->host_cap[b] = want;
    return QR_OK;
}

/* Writes the batch before, once copied. */
static qr_status write_pending(qr_gpu_png *g, qr_image_writer *w, qr_error *err)
{
    if (!g->pending)
        return QR_OK;
    const int b = g->pend_b;
    QR_CUDA_TRY(err, cudaEventSynchronize(g->copied[b]));
    g->pending = 0;
    return qr_image_writer_append_png_records(w, g->pend_r0, g->pend_r1, g->rec_host[b],
                                              g->pend_len, err);
}

/* Compresses the chunks complete in the batch and keeps the rows the next
 * chunk needs. */
static qr_status compress_batch(qr_gpu_png *g, qr_image_writer *w, qr_error *err)
{
    const int32_t end = g->wr + g->held;
    const int64_t k_end = end == g->height ? g->nchunks : end / g->rpc;
    if (k_end <= g->k_next)
        return QR_OK;
    const int32_t r0 = (int32_t)(g->k_next * g->rpc);
    const int32_t r1 = (int32_t)(k_end * g->rpc < g->height ? k_end * g->rpc : g->height);
    const int32_t fr = g->wr == 0 ? 0 : g->wr + 1;
    const size_t fb = g->fb;
    const cudaStream_t s = g->s;
    const int b = g->nbatch & 1;
    /* the copy of the batch that used rec_dev[b] must be done: it was
     * written before the batch after it was queued */
    const long long rows_f = r1 - fr;
    const size_t fbytes = (size_t)rows_f * fb;
    k_filter<<<(unsigned)((fbytes + 255) / 256 < 132 * 64 ? (fbytes + 255) / 256 : 132 * 64), 256, 0, s>>>(
        g->raw, g->wr, fr, (int32_t)rows_f, g->row_bytes, (int)g->p.filter, g->filtered);
    QR_CUDA_TRY(err, cudaGetLastError());
    const int64_t nch = k_end - g->k_next;
    const size_t full = (size_t)g->rpc * fb;
    const long long ppc = (long long)((full + QR_DEFLATE_PIECE - 1) / QR_DEFLATE_PIECE);
    const int32_t last_rows = (int32_t)(r1 - (k_end - 1) * g->rpc);
    const long long npieces =
        (nch - 1) * ppc + (long long)(((size_t)last_rows * fb + QR_DEFLATE_PIECE - 1) / QR_DEFLATE_PIECE);
    if ((size_t)npieces > g->pieces_max)
        return qr_fail(err, QR_ERR_CUDA, "GPU PNG: %lld pieces in a batch of room for %zu",
                       npieces, g->pieces_max);
    const long long threads = npieces < g->workers ? npieces : g->workers;
    const unsigned blocks = (unsigned)((threads + DEFLATE_THREADS - 1) / DEFLATE_THREADS);
    k_deflate<<<blocks, DEFLATE_THREADS, 0, s>>>(g->filtered, (size_t)fr * fb, npieces, g->k_next,
                                                 g->nchunks, g->height, g->rpc, fb, g->p.dict_bytes,
                                                 g->hash, g->pieces, g->plen, g->padler, g->pcrc,
                                                 g->sizes);
    QR_CUDA_TRY(err, cudaGetLastError());
    QR_CUDA_TRY(err, cub::DeviceScan::ExclusiveSum(g->scan_tmp, g->scan_bytes, g->sizes, g->offsets,
                                                   (int)npieces, s));
    k_records<<<(unsigned)((nch + 127) / 128), 128, 0, s>>>(g->k_next, nch, g->nchunks, g->height,
                                                           g->rpc, fb, npieces, g->plen, g->padler,
                                                           g->pcrc, g->sizes, g->offsets,
                                                           g->rec_dev[b], g->total_dev);
    QR_CUDA_TRY(err, cudaGetLastError());
    k_gather<<<(unsigned)npieces, GATHER_THREADS, 0, s>>>(g->k_next, g->nchunks, g->height, g->rpc,
                                                          fb, g->pieces, g->plen, g->offsets,
                                                          g->rec_dev[b]);
    QR_CUDA_TRY(err, cudaGetLastError());
    QR_CUDA_TRY(err, cudaMemcpyAsync(&g->total_host[b], g->total_dev, sizeof(unsigned long long),
                                     cudaMemcpyDeviceToHost, s));
    QR_CUDA_TRY(err, cudaEventRecord(g->made[b], s));
    /* the rows the next chunk needs move to the front (behind the kernels) */
    int64_t keep0 = k_end * g->rpc - g->ctx_max;
    keep0 = keep0 < 0 ? 0 : keep0 > end ? end : keep0; /* the image's end: nothing to keep */
    const int32_t from = keep0 > g->wr ? (int32_t)keep0 : g->wr;
    const size_t kept = (size_t)(end - from) * g->row_bytes;
    if (kept && from > g->wr) {
        QR_CUDA_TRY(err, cudaMemcpyAsync(g->moved, g->raw + (size_t)(from - g->wr) * g->row_bytes,
                                         kept, cudaMemcpyDeviceToDevice, s));
        QR_CUDA_TRY(err, cudaMemcpyAsync(g->raw, g->moved, kept, cudaMemcpyDeviceToDevice, s));
    }
    g->held = end - from;
    g->wr = from;
    g->k_next = k_end;
    g->nbatch++;

    /* while the GPU compresses: the batch before goes to the file */
    qr_status st = write_pending(g, w, err);
    if (st)
        return st;
    QR_CUDA_TRY(err, cudaEventSynchronize(g->made[b]));
    const size_t total = (size_t)g->total_host[b];
    st = host_room(g, b, total, err);
    if (st)
        return st;
    QR_CUDA_TRY(err, cudaMemcpyAsync(g->rec_host[b], g->rec_dev[b], total, cudaMemcpyDeviceToHost,
                                     g->copy_s));
    QR_CUDA_TRY(err, cudaEventRecord(g->copied[b], g->copy_s));
    g->pending = 1;
    g->pend_b = b;
    g->pend_r0 = r0;
    g->pend_r1 = r1;
    g->pend_len = total;
    return QR_OK;
}

extern "C" qr_status qr_gpu_png_push(qr_gpu_png *g, int32_t rows, qr_image_writer *w, qr_error *err)
{
    if (rows < 1 || rows > g->max_rows || g->wr + g->held + rows > g->height)
        return qr_fail(err, QR_ERR_INVALID, "GPU PNG: %d rows pushed after row %d of %d (bands of "
                       "at most %d)", rows, g->wr + g->held, g->height, g->max_rows);
    g->held += rows;
    if (g->wr + g->held < g->height && g->held + g->max_rows <= g->cap_rows)
        return QR_OK; /* room for another band */
    return compress_batch(g, w, err);
}

extern "C" qr_status qr_gpu_png_finish(qr_gpu_png *g, qr_image_writer *w, qr_error *err)
{
    if (g->wr + g->held != g->height || g->k_next != g->nchunks)
        return qr_fail(err, QR_ERR_INVALID, "GPU PNG: finished after row %d of %d",
                       g->wr + g->held, g->height);
    return write_pending(g, w, err);
}
