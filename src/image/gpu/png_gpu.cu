/* png_gpu.cu — see png_gpu.h.
 *
 * A batch holds file rows [wr, wr + held) in `raw`: the rows before its
 * first uncompressed chunk that the chunk's dictionary needs (at most
 * ctx_max), the rows of that chunk not yet complete, and the new bands.
 * Compressing it is five steps on the stream, each a kernel:
 *   k_filter   the rows' filtered bytes (PNG's filter type byte and the
 *              row), every row that primes a dictionary or is compressed;
 *   k_deflate  a warp per run of a chunk's pieces (deflate_chunk.h), its
 *              hash table in shared memory: each piece's deflate data, its
 *              length, the Adler-32 of its input and the CRC-32 of its
 *              output;
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
/* a piece's room, whole words (k_deflate writes words) */
#define PIECE_CAP ((QR_DEFLATE_PIECE_BOUND(QR_DEFLATE_PIECE) + 3) / 4 * 4)
#define DEFAULT_BATCH ((size_t)1 << 30)
/* warps a block of k_deflate, each with a table of QR_DEFLATE_HASH_WORDS and
 * STAGE_WORDS of output bits in shared memory */
#define DEFLATE_WARPS 4
#define STAGE_WORDS 64
#define DEFLATE_SMEM                                                                               \
    (256 * 4 + DEFLATE_WARPS * (STAGE_WORDS * 4 + QR_DEFLATE_HASH_WORDS * 3 + 32))
#define GATHER_THREADS 256
/* runs of pieces a batch is cut into, at least: a few per warp the GPU holds */
#define RUNS_WANTED 4096

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

/* A filter beside each table entry (GPU only): 8 bits of another hash of
 * the entry's three bytes. An entry whose tag differs from the position's
 * cannot match three bytes, and so is never the answer: find_fast skips it
 * without reading the data, which is what the find's time goes to. */
__device__ __forceinline__ uint32_t tag_of(uint32_t v)
{
    return (v * 0x85EBCA6Bu) >> 24;
}

/* Enters the step's positions q in [base, stop) (those with 3 bytes
 * before end) into the warp's table, as qr_deflate_insert would one after
 * the other: the lowest lane of those sharing a bucket writes it whole,
 * their positions newest first, then the bucket's older ones; the tags
 * likewise. */
__device__ __forceinline__ void warp_insert(const unsigned char *data, uint32_t base, uint32_t stop,
                                            uint32_t end, uint16_t *hash, unsigned char *tags,
                                            unsigned char *scratch, int lane)
{
    __syncwarp(); /* the step's finds have read the table */
    const uint32_t q = base + (uint32_t)lane;
    const bool valid = q < stop && end - q >= 3;
    uint32_t h = 0xFFFFFFFFu;
    if (valid) {
        const uint32_t v = qr_deflate_three(data + q);
        h = qr_deflate_bucket(v);
        scratch[lane] = (unsigned char)tag_of(v);
    }
    const unsigned peers = __match_any_sync(0xFFFFFFFFu, h);
    __syncwarp();
    if (valid && (peers & ((1u << lane) - 1u)) == 0) {
        uint4 *b = (uint4 *)(hash + (size_t)h * QR_DEFLATE_WAYS);
        unsigned long long *t = (unsigned long long *)(tags + (size_t)h * QR_DEFLATE_WAYS);
        const uint4 o = *b;
        typedef unsigned __int128 u128;
        const u128 old = (u128)o.x | (u128)o.y << 32 | (u128)o.z << 64 | (u128)o.w << 96;
        const unsigned long long old_t = *t;
        u128 nw = 0;
        unsigned long long nw_t = 0;
        int cnt = 0;
        for (unsigned m = peers; m && cnt < QR_DEFLATE_WAYS; cnt++) {
            const int hi = 31 - __clz(m);
            nw |= (u128)(uint16_t)(base + (uint32_t)hi + 1) << (16 * cnt);
            nw_t |= (unsigned long long)scratch[hi] << (8 * cnt);
            m &= ~(1u << hi);
        }
        if (cnt < QR_DEFLATE_WAYS) {
            nw |= old << (16 * cnt);
            nw_t |= old_t << (8 * cnt);
        }
        *b = make_uint4((uint32_t)nw, (uint32_t)(nw >> 32), (uint32_t)(nw >> 64), (uint32_t)(nw >> 96));
        *t = nw_t;
    }
    __syncwarp();
}

/* The four bytes at p as a little-endian word, from aligned words (p + 7
 * must be readable). */
__device__ __forceinline__ uint32_t word_at(const unsigned char *p)
{
    const uint32_t *w = (const uint32_t *)((uintptr_t)p & ~(uintptr_t)3);
    return __funnelshift_r(w[0], w[1], 8 * (uint32_t)((uintptr_t)p & 3));
}

/* qr_deflate_find's answer, found with the candidates' first words loaded
 * at once: the same candidates in the same order (distances 3, 4, 1, then
 * the bucket up to its first empty or too distant entry), the first of the
 * longest chosen; only candidates whose first four bytes match are
 * compared further, in order, until one reaches max. */
__device__ __forceinline__ uint32_t find_fast(const unsigned char *data, uint32_t p, uint32_t end,
                                              const uint16_t *hash, const unsigned char *tags,
                                              uint32_t *dist)
{
    const uint32_t max = end - p < 258 ? end - p : 258;
    const uint32_t v = qr_deflate_three(data + p);
    const size_t h = qr_deflate_bucket(v);
    const uint4 b = *(const uint4 *)(hash + h * QR_DEFLATE_WAYS);
    const unsigned long long tg = *(const unsigned long long *)(tags + h * QR_DEFLATE_WAYS);
    const uint32_t mine = tag_of(v);
    const uint32_t entries[4] = {b.x, b.y, b.z, b.w};
    const uint32_t wp = word_at(data + p);
    const uint32_t head = max < 4 ? max : 4; /* the bytes the first word decides */
    uint32_t cand[3 + QR_DEFLATE_WAYS], lens[3 + QR_DEFLATE_WAYS];
    bool chain = true;
#pragma unroll
    for (int k = 0; k < 3 + QR_DEFLATE_WAYS; k++) {
        bool ok;
        uint32_t c;
        if (k < 3) {
            const uint32_t near = k == 2 ? 1 : 3 + (uint32_t)k;
            ok = p >= near;
            c = p - near;
        } else {
            const uint32_t e = (entries[(k - 3) / 2] >> (16 * ((k - 3) & 1))) & 0xFFFFu;
            c = e - 1;
            chain = chain && e != 0 && p - c <= QR_DEFLATE_WINDOW;
            ok = chain && ((tg >> (8 * (k - 3))) & 0xFFu) == mine;
        }
        cand[k] = c;
        uint32_t n = 0;
        if (ok) {
            const uint32_t x = word_at(data + c) ^ wp;
            n = x ? (uint32_t)(__ffs((int)x) - 1) / 8 : 4;
            n = n < head ? n : head;
        }
        lens[k] = ok ? n : 0xFFFFFFFFu; /* not a candidate */
    }
    uint32_t best = 0;
#pragma unroll
    for (int k = 0; k < 3 + QR_DEFLATE_WAYS; k++) {
        if (lens[k] == 0xFFFFFFFFu || best == max)
            continue;
        uint32_t n = lens[k];
        if (n == head && head < max) {
            if (best >= head && data[cand[k] + best] != data[p + best])
                continue; /* cannot be longer */
            n = head + qr_deflate_same(data, cand[k] + head, p + head, max - head);
        }
        if (n > best) {
            best = n;
            *dist = p - cand[k];
        }
    }
    return best >= 3 ? best : 0;
}

/* Writes the staged words that are whole to out32 and keeps the partial
 * one. */
__device__ __forceinline__ void stage_flush(uint32_t *stage, uint32_t *out32, uint32_t *words_out,
                                            uint32_t *bitpos, int lane)
{
    __syncwarp();
    const uint32_t n = *bitpos >> 5;
    for (uint32_t i = (uint32_t)lane; i < n; i += 32)
        out32[*words_out + i] = stage[i];
    const uint32_t part = stage[n];
    __syncwarp();
    for (int i = lane; i < STAGE_WORDS; i += 32)
        stage[i] = i == 0 ? part : 0;
    __syncwarp();
    *words_out += n;
    *bitpos -= n * 32;
}

/* Shifts the warp's table to positions from a data start `shift` bytes
 * later: entries before it go (they would be out of the next piece's
 * window and dictionary alike). */
__device__ __forceinline__ void warp_rebase(uint16_t *hash, uint32_t shift, int lane)
{
    uint4 *h4 = (uint4 *)hash;
    for (int i = lane; i < (int)(QR_DEFLATE_HASH_WORDS / 8); i += 32) {
        uint4 v = h4[i];
        uint16_t e[8];
        memcpy(e, &v, sizeof e);
        for (int k = 0; k < 8; k++)
            e[k] = e[k] > shift ? (uint16_t)(e[k] - shift) : 0;
        memcpy(&v, e, sizeof v);
        h4[i] = v;
    }
    __syncwarp();
}

/* One piece by one warp: data[start, end) with data[0, start) its
 * dictionary, already in the table; writes its deflate data to out32 and
 * returns its length. The lanes find the matches of a step's 32 positions
 * at once, walk the greedy parse through them (from match to match), and
 * place the tokens' bits by a prefix sum: the bytes of qr_deflate_piece. */
__device__ uint32_t warp_piece(const unsigned char *data, uint32_t start, uint32_t end, int last,
                               uint16_t *hash, unsigned char *tags, unsigned char *scratch,
                               uint32_t *stage, uint32_t *out32, int lane)
{
    for (int i = lane; i < STAGE_WORDS; i += 32)
        stage[i] = 0;
    __syncwarp();
    uint32_t bitpos = 0, words_out = 0;
    if (end > start || last) {
        if (lane == 0)
            stage[0] = last ? 3u : 2u; /* BFINAL, BTYPE = 01 (fixed) */
        bitpos = 3;
        uint32_t p = start;
        for (uint32_t base = start; base < end; base += QR_DEFLATE_STEP) {
            const uint32_t stop = end - base < QR_DEFLATE_STEP ? end : base + QR_DEFLATE_STEP;
            if (p < stop) {
                const uint32_t q = base + (uint32_t)lane;
                uint32_t len = 0, dist = 0;
                if (q >= p && q < stop && end - q >= 3)
                    len = find_fast(data, q, end, hash, tags, &dist);
                const unsigned matches = __ballot_sync(0xFFFFFFFFu, len > 0);
                const int span = (int)(stop - base);
                const unsigned lanes = span == 32 ? 0xFFFFFFFFu : (1u << span) - 1u;
                unsigned mask = 0;
                uint32_t pp = p;
                while (pp < stop) { /* literals up to the next match, then the match */
                    const int l = (int)(pp - base);
                    const unsigned rest = matches & (0xFFFFFFFFu << l);
                    if (!rest) {
                        mask |= lanes & (0xFFFFFFFFu << l);
                        pp = stop;
                        break;
                    }
                    const int m = __ffs((int)rest) - 1;
                    mask |= (((1u << m) - 1u) & (0xFFFFFFFFu << l)) | (1u << m);
                    pp = base + (uint32_t)m + __shfl_sync(0xFFFFFFFFu, len, m);
                }
                p = pp;
                int nb = 0;
                uint32_t bits = 0;
                if ((mask >> lane) & 1u)
                    bits = qr_deflate_token(data[q], len, dist, &nb);
                uint32_t incl = (uint32_t)nb;
                for (int o = 1; o < 32; o <<= 1) {
                    const uint32_t v = __shfl_up_sync(0xFFFFFFFFu, incl, o);
                    if (lane >= o)
                        incl += v;
                }
                const uint32_t at = bitpos + incl - (uint32_t)nb;
                if (nb) {
                    const uint32_t w = at >> 5, sh = at & 31;
                    atomicOr(&stage[w], bits << sh);
                    if (sh + (uint32_t)nb > 32)
                        atomicOr(&stage[w + 1], bits >> (32 - sh));
                }
                bitpos += __shfl_sync(0xFFFFFFFFu, incl, 31);
            }
            warp_insert(data, base, stop, end, hash, tags, scratch, lane);
            if (bitpos >= 32 * 32)
                stage_flush(stage, out32, &words_out, &bitpos, lane);
        }
        stage_flush(stage, out32, &words_out, &bitpos, lane);
        bitpos += 7; /* end of block: seven zero bits */
    }
    if (!last) {
        bitpos += 3; /* BFINAL 0, BTYPE 00 (stored) */
        bitpos = (bitpos + 7) & ~7u;
        bitpos += 16; /* LEN 0000, then NLEN FFFF */
        if (lane == 0) {
            const uint32_t w = bitpos >> 5, sh = bitpos & 31;
            stage[w] |= 0xFFFFu << sh;
            if (sh > 16)
                stage[w + 1] |= 0xFFFFu >> (32 - sh);
        }
        bitpos += 16;
    }
    bitpos = (bitpos + 7) & ~7u;
    __syncwarp();
    for (uint32_t i = (uint32_t)lane; i < (bitpos + 31) >> 5; i += 32)
        out32[words_out + i] = stage[i];
    __syncwarp();
    return words_out * 4 + (bitpos >> 3);
}

/* A warp per run of `run` pieces of one chunk, its hash table in shared
 * memory: the first piece's dictionary is entered whole; each next piece's
 * is the piece before, already in the table (qr_deflate_piece would enter
 * the same positions in the same order: the window drops the older ones),
 * so the table moves on (warp_rebase) and takes the two last positions the
 * piece before could not. Then each piece's checksums: the Adler-32 of its
 * input and the CRC-32 of its output, a segment a lane, joined by lane 0. */
__global__ void __launch_bounds__(DEFLATE_WARPS * 32)
k_deflate(const unsigned char *__restrict__ filtered, size_t filtered_from, long long npieces,
          int run, int64_t k0, int64_t nchunks, int32_t height, int32_t rpc, size_t fb,
          size_t dict_bytes, unsigned char *__restrict__ pieces, uint32_t *__restrict__ plen,
          uint32_t *__restrict__ padler, uint32_t *__restrict__ pcrc,
          unsigned long long *__restrict__ sizes)
{
    extern __shared__ uint4 smem[];
    uint32_t *table = (uint32_t *)smem; /* 256 words */
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    uint32_t *stage = table + 256 + warp * STAGE_WORDS;
    uint16_t *hash = (uint16_t *)(table + 256 + DEFLATE_WARPS * STAGE_WORDS) +
                     (size_t)warp * QR_DEFLATE_HASH_WORDS;
    unsigned char *tags = (unsigned char *)((uint16_t *)(table + 256 + DEFLATE_WARPS * STAGE_WORDS) +
                                            DEFLATE_WARPS * QR_DEFLATE_HASH_WORDS) +
                          (size_t)warp * (QR_DEFLATE_HASH_WORDS + 32);
    unsigned char *scratch = tags + QR_DEFLATE_HASH_WORDS;
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        uint32_t c = (uint32_t)i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (QR_CRC32_POLY & (0u - (c & 1u)));
        table[i] = c;
    }
    __syncthreads();
    const long long ppc = (long long)(((size_t)rpc * fb + QR_DEFLATE_PIECE - 1) / QR_DEFLATE_PIECE);
    const long long runs_per_chunk = (ppc + run - 1) / run;
    const long long w = (long long)blockIdx.x * DEFLATE_WARPS + warp;
    const long long j0 = w / runs_per_chunk * ppc + w % runs_per_chunk * run;
    uint32_t prev_end = 0, prev_base = 0; /* the piece before: its end, its data start */
    for (long long j = j0; j < j0 + run && j < npieces; j++) {
        const piece_at a = locate(j, k0, nchunks, height, rpc, fb);
        if (j > j0 && a.first)
            break; /* the run ends with its chunk */
        const size_t g0 = (size_t)a.chunk * rpc * fb; /* the chunk's first filtered byte */
        const size_t dict0 = g0 < dict_bytes ? g0 : dict_bytes;
        const uint32_t start =
            (uint32_t)(dict0 + a.in_chunk < QR_DEFLATE_WINDOW ? dict0 + a.in_chunk : QR_DEFLATE_WINDOW);
        const size_t at = g0 + a.in_chunk - filtered_from; /* the piece's input in `filtered` */
        const unsigned char *in = filtered + at;
        const unsigned char *data = in - start;
        const uint32_t end = start + (uint32_t)a.n, base = (uint32_t)(at - start);
        if (j == j0) {
            uint4 *h4 = (uint4 *)hash;
            for (int i = lane; i < (int)(QR_DEFLATE_HASH_WORDS / 8); i += 32)
                h4[i] = make_uint4(0, 0, 0, 0);
            __syncwarp();
            for (uint32_t b = 0; b < start; b += QR_DEFLATE_STEP)
                warp_insert(data, b, start, end, hash, tags, scratch, lane);
        } else {
            const uint32_t shift = base - prev_base;
            warp_rebase(hash, shift, lane);
            /* the two positions the piece before left out, now in the dictionary */
            const uint32_t from = prev_end - shift - 2;
            warp_insert(data, from, from + 2, end, hash, tags, scratch, lane);
        }
        uint32_t *out32 = (uint32_t *)(pieces + (size_t)j * PIECE_CAP);
        const uint32_t len =
            warp_piece(data, start, end, a.last, hash, tags, scratch, stage, out32, lane);
        prev_end = end;
        prev_base = base;

        const uint32_t iseg = ((uint32_t)a.n + 31) / 32, oseg = (len + 31) / 32;
        const uint32_t i0 = min((uint32_t)lane * iseg, (uint32_t)a.n), i1 = min(i0 + iseg, (uint32_t)a.n);
        const uint32_t o0 = min((uint32_t)lane * oseg, len), o1 = min(o0 + oseg, len);
        const uint32_t ad = qr_adler32(1, in + i0, i1 - i0);
        const uint32_t cr = crc_bytes(table, 0, (const unsigned char *)out32 + o0, o1 - o0);
        /* joined in a tree: lane l takes lane l + off's, its lengths after */
        uint32_t adler = ad, crc = cr, ilen = i1 - i0, olen = o1 - o0;
        for (int off = 1; off < 32; off <<= 1) {
            const uint32_t a2 = __shfl_down_sync(0xFFFFFFFFu, adler, off);
            const uint32_t c2 = __shfl_down_sync(0xFFFFFFFFu, crc, off);
            const uint32_t il2 = __shfl_down_sync(0xFFFFFFFFu, ilen, off);
            const uint32_t ol2 = __shfl_down_sync(0xFFFFFFFFu, olen, off);
            if ((lane & (2 * off - 1)) == 0) {
                adler = qr_adler32_combine(adler, a2, il2);
                crc = qr_crc32_combine(crc, c2, ol2);
                ilen += il2;
                olen += ol2;
            }
        }
        if (lane == 0) {
            plen[j] = len;
            padler[j] = adler;
            pcrc[j] = crc;
            sizes[j] = len + (a.first ? record_head(a.chunk) : 0);
        }
        __syncwarp();
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

extern "C" int qr_gpu_png_for(const qr_image_writer *w, qr_png_params *p)
{
    qr_error quiet;
    return qr_image_writer_png_params(w, p, &quiet) == QR_OK && qr_gpu_png_supports(p);
}

extern "C" int qr_gpu_png_host_instead(qr_status st, const qr_image_writer *w)
{
    return st == QR_ERR_GPU_NOMEM && qr_image_writer_rows_in(w) == 0;
}

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
    qr_status st = QR_OK;
    cudaError_t e = cudaStreamCreateWithFlags(&g->copy_s, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMalloc(&g->raw, raw_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&g->moved, keep_bytes);
    /* + 16: qr_deflate_same reads whole words past the bytes it compares */
    if (e == cudaSuccess) e = cudaMalloc(&g->filtered, filt_bytes + 16);
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
        e = cudaFuncSetAttribute(k_deflate, cudaFuncAttributeMaxDynamicSharedMemorySize, DEFLATE_SMEM);
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
                     (raw_bytes + filt_bytes + g->pieces_max * PIECE_CAP + 2 * g->rec_cap) >> 20,
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
    /* runs of pieces, a warp each: as long as leaves warps enough for the GPU */
    long long run = npieces / RUNS_WANTED;
    run = run < 1 ? 1 : run > ppc ? ppc : run;
    const long long runs = (nch - 1) * ((ppc + run - 1) / run) +
                           ((npieces - (nch - 1) * ppc) + run - 1) / run;
    const unsigned blocks = (unsigned)((runs + DEFLATE_WARPS - 1) / DEFLATE_WARPS);
    k_deflate<<<blocks, DEFLATE_WARPS * 32, DEFLATE_SMEM, s>>>(
        g->filtered, (size_t)fr * fb, npieces, (int)run, g->k_next, g->nchunks, g->height, g->rpc,
        fb, g->p.dict_bytes, g->pieces, g->plen, g->padler, g->pcrc, g->sizes);
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
