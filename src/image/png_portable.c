/* png_portable.c — see png_portable.h.
 *
 * Two passes of tasks, a chunk each: the first filters the chunk's rows
 * into one buffer of the whole image's filtered bytes (a row's filter needs
 * only the raw row above it), the second compresses each chunk with the
 * filtered bytes before it in that buffer as the dictionary. The IDATs are
 * then written in order.
 */
#include "image/png_portable.h"
#include "image/deflate_chunk.h"
#include "image/image_bytes.h"
#include "image/png_chunks.h"
#include "image/png_encoder.h"
#include "quadrender/threads.h"

#include <stdlib.h>
#include <string.h>

typedef struct portable_job {
    const unsigned char *rows;
    int pixel_bytes;       /* 3: RGB, 4: RGBA */
    size_t row_bytes;      /* pixel_bytes * width */
    int32_t height, rows_per_chunk;
    qr_png_filter filter;
    unsigned char *filtered; /* height rows of 1 + row_bytes */
    size_t dict_bytes;
    int nchunks;
    unsigned char **out; /* per chunk: its IDAT's data (chunk 0: after the zlib header) */
    size_t *out_len;     /* after the filter pass, 1: filtered, 0: failed (memory);
                            after the compressing pass, out's length, 0: failed */
    uint32_t *adler;     /* of the chunk's filtered bytes */
    uint32_t *crc;       /* of "IDAT" and out (the last chunk: before the trailer) */
} portable_job;

static void filter_task(void *ctx, int k)
{
    portable_job *j = ctx;
    const size_t rb = j->row_bytes, fb = rb + 1;
    const int32_t r0 = k * j->rows_per_chunk;
    const int32_t r1 = r0 + j->rows_per_chunk < j->height ? r0 + j->rows_per_chunk : j->height;
    unsigned char *scratch = j->filter == QR_PNG_FILTER_ADAPTIVE ? malloc(fb) : NULL;
    if (j->filter == QR_PNG_FILTER_ADAPTIVE && !scratch) {
        j->out_len[k] = 0; /* compress_task sees no data */
        return;
    }
    for (int32_t r = r0; r < r1; r++)
        qr_png_filter_row(j->filter, j->pixel_bytes, j->rows + (size_t)r * rb,
                          r ? j->rows + (size_t)(r - 1) * rb : NULL, rb,
                          j->filtered + (size_t)r * fb, scratch);
    free(scratch);
    j->out_len[k] = 1; /* filtered */
}

static void compress_task(void *ctx, int k)
{
    portable_job *j = ctx;
    if (!j->out_len[k])
        return;
    j->out_len[k] = 0;
    const size_t fb = j->row_bytes + 1;
    const int32_t r0 = k * j->rows_per_chunk;
    const int32_t r1 = r0 + j->rows_per_chunk < j->height ? r0 + j->rows_per_chunk : j->height;
    const size_t start = (size_t)r0 * fb, n = (size_t)(r1 - r0) * fb;
    const size_t dict = start < j->dict_bytes ? start : j->dict_bytes;
    const size_t head = k == 0 ? 2 : 0;
    uint16_t *hash = malloc(QR_DEFLATE_HASH_WORDS * sizeof *hash);
    unsigned char *out = malloc(head + QR_DEFLATE_BOUND(n));
    if (!hash || !out) {
        free(hash);
        free(out);
        return;
    }
    if (head) {
        out[0] = 0x78; /* deflate, 32 KiB window */
        out[1] = 0x01; /* FLEVEL 0 (fastest), no dictionary, FCHECK */
    }
    size_t len = qr_deflate_chunk(j->filtered + start - dict, dict, n, out + head,
                                  QR_DEFLATE_BOUND(n), hash, k == j->nchunks - 1);
    free(hash);
    if (len == 0) { /* cannot happen: the bound holds */
        free(out);
        return;
    }
    j->out[k] = out;
    j->out_len[k] = head + len;
    j->adler[k] = qr_adler32(1, j->filtered + start, n);
    j->crc[k] = qr_crc32(qr_crc32(0, (const unsigned char *)"IDAT", 4), out, head + len);
}

/* PNG's lengths and checksums: big-endian. */
static void be32(unsigned char *d, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        d[i] = (unsigned char)(v >> (24 - 8 * i));
}

qr_status qr_png_encode_portable(const unsigned char *rows, int32_t width, int32_t height,
                                 int alpha, int threads, unsigned char **png, size_t *len,
                                 qr_error *err)
{
    *png = NULL;
    *len = 0;
    const char *name = "portable PNG";
    qr_png_params p = qr_png_params_for(QR_PNG_LEVEL_DEFAULT, threads);
    p.pixel_bytes = qr_image_pixel_bytes(QR_FORMAT_PNG, alpha != 0);
    /* a filtered row, and an IDAT (at most a chunk's bound), well within 2^31 */
    if (!rows || width < 1 || height < 1 || width > (INT32_MAX - 1) / p.pixel_bytes / 8)
        return qr_fail(err, QR_ERR_INVALID, "%s: a %d x %d image", name, (int)width, (int)height);
    int32_t rpc, ctx_rows;
    qr_png_layout(width, height, &p, &rpc, &ctx_rows);
    const int64_t nchunks = ((int64_t)height + rpc - 1) / rpc;
    portable_job j = {.rows = rows,
                      .pixel_bytes = p.pixel_bytes,
                      .row_bytes = (size_t)width * (size_t)p.pixel_bytes,
                      .height = height,
                      .rows_per_chunk = rpc,
                      .filter = p.filter,
                      .dict_bytes = p.dict_bytes,
                      .nchunks = (int)nchunks};
    const size_t fb = j.row_bytes + 1;
    if (nchunks > INT32_MAX || (size_t)height > SIZE_MAX / fb)
        return qr_fail(err, QR_ERR_INVALID, "%s: a %d x %d image", name, (int)width, (int)height);
    j.filtered = malloc(fb * (size_t)height);
    j.out = calloc((size_t)nchunks, sizeof *j.out);
    j.out_len = calloc((size_t)nchunks, sizeof *j.out_len);
    j.adler = calloc((size_t)nchunks, sizeof *j.adler);
    j.crc = calloc((size_t)nchunks, sizeof *j.crc);
    qr_status st = QR_OK;
    qr_png_buffer b = {0};
    if (!j.filtered || !j.out || !j.out_len || !j.adler || !j.crc) {
        st = qr_fail(err, QR_ERR_NOMEM, "%s: out of memory", name);
        goto done;
    }
    qr_parallel_for(j.nchunks, threads, filter_task, &j);
    qr_parallel_for(j.nchunks, threads, compress_task, &j);

    st = qr_png_head(&b, name, width, height, p.pixel_bytes, NULL, 0, err);
    uint32_t adler = 1;
    for (int k = 0; st == QR_OK && k < j.nchunks; k++) {
        if (!j.out_len[k]) {
            st = qr_fail(err, QR_ERR_NOMEM, "%s: out of memory", name);
            break;
        }
        const int32_t r0 = k * rpc, r1 = r0 + rpc < height ? r0 + rpc : height;
        adler = qr_adler32_combine(adler, j.adler[k], (uint64_t)(r1 - r0) * fb);
        const int last = k == j.nchunks - 1;
        unsigned char head[8], tail[8];
        size_t tl = 0;
        uint32_t crc = j.crc[k];
        if (last) {
            be32(tail, adler);
            crc = qr_crc32(crc, tail, 4);
            tl = 4;
        }
        be32(head, (uint32_t)(j.out_len[k] + tl));
        memcpy(head + 4, "IDAT", 4);
        be32(tail + tl, crc);
        if (qr_png_buffer_put(&b, head, 8) || qr_png_buffer_put(&b, j.out[k], j.out_len[k]) ||
            qr_png_buffer_put(&b, tail, tl + 4))
            st = qr_fail(err, QR_ERR_NOMEM, "%s: out of memory", name);
    }
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    if (st == QR_OK && qr_png_buffer_put(&b, iend, sizeof iend))
        st = qr_fail(err, QR_ERR_NOMEM, "%s: out of memory", name);
done:
    for (int k = 0; j.out && k < j.nchunks; k++)
        free(j.out[k]);
    free(j.out);
    free(j.out_len);
    free(j.adler);
    free(j.crc);
    free(j.filtered);
    if (st == QR_OK) {
        *png = b.data;
        *len = b.len;
    } else {
        free(b.data);
    }
    return st;
}
