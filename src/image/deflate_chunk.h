/* deflate_chunk.h — a deflate encoder for one chunk of a stream, and the
 * checksums that join chunks, in one source for the host and the GPU.
 *
 * PNG's pixels can be compressed in independent chunks, as pigz does
 * (png_encoder.h): each chunk's raw deflate data ends on a byte boundary
 * with a sync flush (an empty stored block), the last one ends the stream,
 * and the pieces concatenated are one valid stream. The zlib encoder of
 * png_encoder.c cannot run on a GPU; this one is written so that it can, a
 * chunk per thread or per block, and the same source is the host's
 * reference (png_portable.h) and the test oracle for the device's bytes,
 * as common/circle_math.h is for the renderers.
 *
 * Hence the constraints: plain C in QR_HD functions (__host__ __device__
 * under nvcc, static inline in C), no allocation, no library calls, no
 * tables in static memory (fixed Huffman codes and the length and distance
 * codes are computed), and work memory the caller provides.
 *
 * Format choices:
 *   - A chunk is cut into pieces of QR_DEFLATE_PIECE bytes from its start
 *     (the last one shorter), each compressed on its own with the 32 KiB
 *     before it as dictionary and ended on a byte boundary: the pieces are
 *     the unit of parallel work on the GPU (a warp each), and their
 *     positions fit 16 bits (dictionary and piece, 64 KiB at most).
 *   - One fixed-Huffman block (BTYPE 01) per piece: no code lengths to
 *     send, no buffering of symbols; a fixed block has no length limit.
 *   - Matches (length 3..258, distance 1..32768) found through a hash of 3
 *     bytes into buckets of QR_DEFLATE_WAYS positions, most recent first.
 *     Positions go in QR_DEFLATE_STEP at a time (a warp's lanes): a
 *     position's candidates are the distances 3, 4 and 1 (the pixel before
 *     in RGB and RGBA, the byte before), then its bucket as it was before
 *     its step; every position is entered after its step, those inside
 *     matches included. The first longest candidate wins; greedy, not
 *     lazy. Each position's match is thus known before the parse reaches
 *     it, and a warp finds those of its 32 positions at once.
 *   - The `dict` bytes before the piece (the last 32 KiB of them) are
 *     inserted first, so matches reach back into them as they would after
 *     zlib's deflateSetDictionary.
 * The bytes out depend on the input bytes, dict and `last` alone.
 */
#ifndef QR_DEFLATE_CHUNK_H
#define QR_DEFLATE_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#ifndef QR_HD /* as common/circle_math.h defines it */
#if defined(__CUDACC__)
#define QR_HD __host__ __device__ __forceinline__
#else
#define QR_HD static inline
#endif
#endif

#define QR_DEFLATE_WINDOW 32768 /* deflate's largest distance */
#define QR_DEFLATE_HASH_BITS 9
#define QR_DEFLATE_WAYS 8
/* Positions found and entered a step at a time: a step's matches see only
 * the positions before the step (a warp's 32 lanes find them at once). */
#define QR_DEFLATE_STEP 32
/* The most bytes one piece compresses (see above). */
#define QR_DEFLATE_PIECE 32768
/* The work memory qr_deflate_piece and qr_deflate_chunk take: this many
 * uint16_t (8 KiB: a warp's share of a GPU's shared memory), positions + 1
 * from the dictionary's first byte. It need not be cleared: they clear it. */
#define QR_DEFLATE_HASH_WORDS ((size_t)QR_DEFLATE_WAYS << QR_DEFLATE_HASH_BITS)

/* The most bytes qr_deflate_piece writes for n input bytes: every byte a
 * 9-bit literal (a match never costs more than 9 bits a byte: at least
 * 7 + 18 bits for 3 bytes), the block's 3-bit header and 7-bit end code,
 * then the sync flush's empty stored block (3 bits, up to 7 of alignment,
 * 4 bytes) or, on the last piece, up to 7 bits of alignment:
 * ceil((9n + 3 + 7 + 3 + 7) / 8) + 4 <= n + n / 8 + 8. */
#define QR_DEFLATE_PIECE_BOUND(n) ((size_t)(n) + (size_t)(n) / 8 + 8)
/* The most qr_deflate_chunk writes for n bytes: a piece's bound for each
 * of its pieces (at least one). */
#define QR_DEFLATE_BOUND(n)                                                                        \
    ((size_t)(n) + (size_t)(n) / 8 + 8 * (((size_t)(n) + QR_DEFLATE_PIECE - 1) / QR_DEFLATE_PIECE + 1))

/* ---- bits out ------------------------------------------------------------------------------- */

typedef struct qr_bit_writer {
    unsigned char *out;
    size_t len, cap;
    uint64_t acc; /* bits not yet written, the first in bit 0 */
    int nbits;
    int overflow; /* a byte did not fit in cap */
} qr_bit_writer;

/* Appends the n (<= 32) low bits of v, bit 0 first (deflate's order). */
QR_HD void qr_bits_put(qr_bit_writer *w, uint32_t v, int n)
{
    w->acc |= (uint64_t)v << w->nbits;
    w->nbits += n;
    while (w->nbits >= 8) {
        if (w->len < w->cap)
            w->out[w->len++] = (unsigned char)w->acc;
        else
            w->overflow = 1;
        w->acc >>= 8;
        w->nbits -= 8;
    }
}

/* Pads with zero bits to the next byte boundary. */
QR_HD void qr_bits_align(qr_bit_writer *w)
{
    if (w->nbits & 7)
        qr_bits_put(w, 0, 8 - (w->nbits & 7));
}

/* ---- the fixed Huffman code (RFC 1951, 3.2.6) ------------------------------------------------- */

/* floor(log2(v)) for v >= 1. */
QR_HD int qr_deflate_log2(uint32_t v)
{
    int k = 0;
    while (v >>= 1)
        k++;
    return k;
}

/* The n bits of a Huffman code as deflate sends them (most significant
 * first), ready for qr_bits_put. */
QR_HD uint32_t qr_deflate_reverse(uint32_t code, int n)
{
    uint32_t r = 0;
    for (int i = 0; i < n; i++)
        r |= ((code >> i) & 1u) << (n - 1 - i);
    return r;
}

/* A literal/length symbol 0..287 in the fixed code: its bits, *n of them. */
QR_HD uint32_t qr_deflate_symbol_bits(uint32_t s, int *n)
{
    if (s < 144) {
        *n = 8;
        return qr_deflate_reverse(0x30 + s, 8);
    }
    if (s < 256) {
        *n = 9;
        return qr_deflate_reverse(0x190 + (s - 144), 9);
    }
    if (s < 280) {
        *n = 7;
        return qr_deflate_reverse(s - 256, 7);
    }
    *n = 8;
    return qr_deflate_reverse(0xC0 + (s - 280), 8);
}

/* One token, a literal byte (len 0) or a match (length 3..258, distance
 * 1..32768), as the bits the block holds: *n of them, at most 31. */
QR_HD uint32_t qr_deflate_token(uint32_t literal, uint32_t len, uint32_t dist, int *n)
{
    if (len == 0)
        return qr_deflate_symbol_bits(literal, n);
    uint32_t bits, sym, extra = 0;
    int e = 0, k;
    if (len == 258) {
        sym = 285;
    } else if (len - 3 < 8) {
        sym = 257 + (len - 3);
    } else {
        const uint32_t l = len - 3;
        e = qr_deflate_log2(l) - 2; /* extra bits, 1..5 */
        sym = 257 + 4 * (uint32_t)(e + 1) + ((l >> e) - 4);
        extra = l & ((1u << e) - 1);
    }
    bits = qr_deflate_symbol_bits(sym, &k);
    bits |= extra << k;
    k += e;
    const uint32_t d = dist - 1;
    uint32_t dcode = d, dextra = 0;
    int de = 0;
    if (d >= 4) {
        de = qr_deflate_log2(d) - 1; /* extra bits, 1..13 */
        dcode = 2 * (uint32_t)(de + 1) + ((d >> de) - 2);
        dextra = d & ((1u << de) - 1);
    }
    bits |= qr_deflate_reverse(dcode, 5) << k;
    k += 5;
    bits |= dextra << k;
    *n = k + de;
    return bits;
}

/* A literal/length symbol 0..287. */
QR_HD void qr_deflate_put_symbol(qr_bit_writer *w, uint32_t s)
{
    int n;
    const uint32_t bits = qr_deflate_symbol_bits(s, &n);
    qr_bits_put(w, bits, n);
}

/* A match: length 3..258, distance 1..32768. */
QR_HD void qr_deflate_put_match(qr_bit_writer *w, uint32_t len, uint32_t dist)
{
    int n;
    const uint32_t bits = qr_deflate_token(0, len, dist, &n);
    qr_bits_put(w, bits, n);
}

/* ---- matches ---------------------------------------------------------------------------------- */

/* The three bytes at p as one value, and its bucket. */
QR_HD uint32_t qr_deflate_three(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

QR_HD uint32_t qr_deflate_bucket(uint32_t three)
{
    return (three * 0x9E3779B1u) >> (32 - QR_DEFLATE_HASH_BITS);
}

QR_HD uint32_t qr_deflate_hash(const unsigned char *p)
{
    return qr_deflate_bucket(qr_deflate_three(p));
}

/* Enters position q (which has 3 bytes after it) at the head of its bucket;
 * slots hold position + 1, 0 when empty. */
QR_HD void qr_deflate_insert(const unsigned char *data, uint32_t q, uint16_t *hash)
{
    uint16_t *b = hash + (size_t)qr_deflate_hash(data + q) * QR_DEFLATE_WAYS;
    for (int i = QR_DEFLATE_WAYS - 1; i > 0; i--)
        b[i] = b[i - 1];
    b[0] = (uint16_t)(q + 1);
}

/* How many bytes from c equal those from p, up to max. On the GPU, four
 * bytes at a time from aligned words (reading up to 3 bytes past the
 * compared ones: the caller's buffer leaves room). */
QR_HD uint32_t qr_deflate_same(const unsigned char *data, uint32_t c, uint32_t p, uint32_t max)
{
    uint32_t n = 0;
#ifdef __CUDA_ARCH__
    const unsigned char *a = data + c, *b = data + p;
    const uint32_t *wa = (const uint32_t *)((uintptr_t)a & ~(uintptr_t)3);
    const uint32_t *wb = (const uint32_t *)((uintptr_t)b & ~(uintptr_t)3);
    const uint32_t sa = 8 * (uint32_t)((uintptr_t)a & 3), sb = 8 * (uint32_t)((uintptr_t)b & 3);
    uint32_t a0 = wa[0], b0 = wb[0];
    for (; n + 4 <= max; n += 4) {
        const uint32_t a1 = *++wa, b1 = *++wb;
        const uint32_t x = __funnelshift_r(a0, a1, sa) ^ __funnelshift_r(b0, b1, sb);
        if (x)
            return n + (uint32_t)(__ffs((int)x) - 1) / 8;
        a0 = a1;
        b0 = b1;
    }
#endif
    while (n < max && data[c + n] == data[p + n])
        n++;
    return n;
}

/* The longest match for position p (end - p >= 3) among its bucket's
 * candidates within the window, the nearest on a tie; its length (0 when
 * under 3) and, through *dist, its distance. */
QR_HD uint32_t qr_deflate_find(const unsigned char *data, uint32_t p, uint32_t end,
                               const uint16_t *hash, uint32_t *dist)
{
    const uint16_t *b = hash + (size_t)qr_deflate_hash(data + p) * QR_DEFLATE_WAYS;
    const uint32_t max = end - p < 258 ? end - p : 258;
    uint32_t best = 0;
    /* first the pixel before (of RGB, of RGBA) and the byte before: the
     * runs inside a step, whose positions are not in the table yet */
    for (uint32_t d = 3; d <= 5; d++) {
        const uint32_t near = d == 5 ? 1 : d;
        if (p < near)
            continue;
        const uint32_t c = p - near;
        if (best && data[c + best] != data[p + best])
            continue;
        const uint32_t n = qr_deflate_same(data, c, p, max);
        if (n > best) {
            best = n;
            *dist = near;
            if (best == max)
                return best;
        }
    }
    for (int i = 0; i < QR_DEFLATE_WAYS; i++) {
        if (b[i] == 0)
            break;
        uint32_t c = (uint32_t)b[i] - 1;
        if (p - c > QR_DEFLATE_WINDOW)
            break; /* positions only get older along the bucket */
        if (best && data[c + best] != data[p + best])
            continue; /* cannot be longer (best < max here) */
        const uint32_t n = qr_deflate_same(data, c, p, max);
        if (n > best) {
            best = n;
            *dist = p - c;
            if (best == max)
                break;
        }
    }
    return best >= 3 ? best : 0;
}

/* ---- one piece, one chunk ----------------------------------------------------------------- */

/* Compresses data[dict .. dict + n) as raw deflate (no zlib header) into
 * out (out_cap bytes): one fixed-Huffman block whose matches may reach back
 * into the dict bytes before it. dict <= QR_DEFLATE_WINDOW and
 * n <= QR_DEFLATE_PIECE. Unless `last`, the block is followed by a sync
 * flush (an empty stored block, ending in 00 00 FF FF), and the next
 * piece's data continues the stream; with `last`, the block has BFINAL set
 * and is padded to a byte. With n == 0 and not last there is no block,
 * only the sync flush. `hash` is QR_DEFLATE_HASH_WORDS words of work
 * memory. Returns the bytes written (at least 2), or 0 when they would not
 * fit in out_cap (QR_DEFLATE_PIECE_BOUND(n) always does). */
QR_HD size_t qr_deflate_piece(const unsigned char *data, uint32_t dict, uint32_t n,
                              unsigned char *out, size_t out_cap, uint16_t *hash, int last)
{
    for (size_t i = 0; i < QR_DEFLATE_HASH_WORDS; i++)
        hash[i] = 0;
    const uint32_t start = dict, end = dict + n;
    qr_bit_writer w;
    w.out = out;
    w.len = 0;
    w.cap = out_cap;
    w.acc = 0;
    w.nbits = 0;
    w.overflow = 0;

    for (uint32_t q = 0; q < start && end - q >= 3; q++)
        qr_deflate_insert(data, q, hash);

    if (n > 0 || last) {
        qr_bits_put(&w, last ? 3u : 2u, 3); /* BFINAL, BTYPE = 01 (fixed) */
        uint32_t p = start;
        for (uint32_t base = start; base < end; base += QR_DEFLATE_STEP) {
            const uint32_t stop = end - base < QR_DEFLATE_STEP ? end : base + QR_DEFLATE_STEP;
            /* the step's matches see the table as it was before the step */
            while (p < stop) {
                uint32_t len = 0, dist = 0;
                if (end - p >= 3)
                    len = qr_deflate_find(data, p, end, hash, &dist);
                if (len) {
                    qr_deflate_put_match(&w, len, dist);
                    p += len;
                } else {
                    qr_deflate_put_symbol(&w, data[p]);
                    p++;
                }
            }
            for (uint32_t q = base; q < stop && end - q >= 3; q++)
                qr_deflate_insert(data, q, hash);
        }
        qr_deflate_put_symbol(&w, 256); /* end of block */
    }
    if (!last) {
        qr_bits_put(&w, 0, 3); /* BFINAL 0, BTYPE 00 (stored) */
        qr_bits_align(&w);
        qr_bits_put(&w, 0x0000, 16);
        qr_bits_put(&w, 0xFFFF, 16);
    }
    qr_bits_align(&w);
    return w.overflow ? 0 : w.len;
}

/* Compresses data[dict .. dict + n) as its pieces (QR_DEFLATE_PIECE bytes
 * from its start, at least one), each with the 32 KiB before it (of the
 * dict bytes and the chunk's own) as dictionary, one after the other into
 * out: a chunk of a stream, ending with a sync flush unless `last`. Returns
 * the bytes written, or 0 when they would not fit in out_cap
 * (QR_DEFLATE_BOUND(n) always does). */
QR_HD size_t qr_deflate_chunk(const unsigned char *data, size_t dict, size_t n,
                              unsigned char *out, size_t out_cap, uint16_t *hash, int last)
{
    size_t len = 0, at = 0;
    do {
        const size_t take = n - at < QR_DEFLATE_PIECE ? n - at : QR_DEFLATE_PIECE;
        const size_t before = dict + at < QR_DEFLATE_WINDOW ? dict + at : QR_DEFLATE_WINDOW;
        const size_t got = qr_deflate_piece(data + dict + at - before, (uint32_t)before,
                                            (uint32_t)take, out + len, out_cap - len, hash,
                                            last && at + take == n);
        if (got == 0)
            return 0;
        len += got;
        at += take;
    } while (at < n);
    return len;
}

/* ---- checksums -------------------------------------------------------------------------------- */

#define QR_ADLER_BASE 65521u

/* Adler-32 of buf after `adler` (1 to start), as zlib's adler32. */
QR_HD uint32_t qr_adler32(uint32_t adler, const unsigned char *buf, size_t len)
{
    uint32_t a = adler & 0xFFFF, b = adler >> 16;
    while (len > 0) {
        size_t k = len < 5552 ? len : 5552; /* the most before b can overflow */
        len -= k;
        for (; k > 0; k--) {
            a += *buf++;
            b += a;
        }
        a %= QR_ADLER_BASE;
        b %= QR_ADLER_BASE;
    }
    return b << 16 | a;
}

/* The Adler-32 of A then B from those of A (adler1) and B (adler2, len2
 * bytes), as zlib's adler32_combine. */
QR_HD uint32_t qr_adler32_combine(uint32_t adler1, uint32_t adler2, uint64_t len2)
{
    const uint32_t rem = (uint32_t)(len2 % QR_ADLER_BASE);
    uint32_t sum1 = adler1 & 0xFFFF;
    uint32_t sum2 = (uint32_t)(((uint64_t)rem * sum1) % QR_ADLER_BASE);
    sum1 += (adler2 & 0xFFFF) + QR_ADLER_BASE - 1;
    sum2 += (adler1 >> 16) + (adler2 >> 16) + QR_ADLER_BASE - rem;
    if (sum1 >= QR_ADLER_BASE)
        sum1 -= QR_ADLER_BASE;
    if (sum1 >= QR_ADLER_BASE)
        sum1 -= QR_ADLER_BASE;
    if (sum2 >= 2 * QR_ADLER_BASE)
        sum2 -= 2 * QR_ADLER_BASE;
    if (sum2 >= QR_ADLER_BASE)
        sum2 -= QR_ADLER_BASE;
    return sum1 | sum2 << 16;
}

#define QR_CRC32_POLY 0xEDB88320u /* reflected */

/* CRC-32 of buf after `crc` (0 to start), as zlib's crc32; bit by bit, no
 * table. */
QR_HD uint32_t qr_crc32(uint32_t crc, const unsigned char *buf, size_t len)
{
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= buf[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (QR_CRC32_POLY & (0u - (crc & 1u)));
    }
    return ~crc;
}

/* a * b modulo the CRC polynomial, both reflected (x^0 in bit 31). */
QR_HD uint32_t qr_crc32_multmodp(uint32_t a, uint32_t b)
{
    uint32_t p = 0;
    for (uint32_t m = 1u << 31; m != 0; m >>= 1) {
        if (a & m)
            p ^= b;
        b = (b & 1u) ? (b >> 1) ^ QR_CRC32_POLY : b >> 1;
    }
    return p;
}

/* The CRC-32 of A then B from those of A (crc1) and B (crc2, len2 bytes),
 * as zlib's crc32_combine: crc1 times x^(8 len2) modulo P, plus crc2. */
QR_HD uint32_t qr_crc32_combine(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
    uint32_t p = 1u << 31;    /* x^0 */
    uint32_t sq = 1u << 23;   /* x^8: one byte */
    for (; len2 != 0; len2 >>= 1) {
        if (len2 & 1)
            p = qr_crc32_multmodp(sq, p);
        sq = qr_crc32_multmodp(sq, sq);
    }
    return qr_crc32_multmodp(p, crc1) ^ crc2;
}

#endif
