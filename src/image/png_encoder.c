/* png_encoder.c — see png_encoder.h.
 *
 * Chunk k lives in slot k % nslots from the moment its first row arrives
 * until its compressed bytes are written. The caller's thread fills slots,
 * hands full ones to the workers (in chunk order) and writes finished ones
 * (in chunk order); it waits only when the slot the next chunk needs still
 * holds an unwritten one, which bounds the memory to nslots chunks.
 *
 * A chunk's slot also holds the rows just above it (its context): enough
 * to filter 32 KiB of the data before the chunk, which becomes the
 * compressor's dictionary, plus the one row that filter needs above them.
 * A worker therefore never needs another chunk's results.
 */
#define _POSIX_C_SOURCE 200809L
#include "image/png_encoder.h"
#include "common/thread_start.h"
#include "image/deflate_chunk.h"
#include "image/image_bytes.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DICT_BYTES 32768 /* deflate's window */

enum { SLOT_FREE, SLOT_FILLING, SLOT_QUEUED, SLOT_DONE };

typedef struct chunk_slot {
    int64_t index;      /* chunk number */
    int32_t first_row;  /* image row of the chunk's first row */
    int32_t nrows;      /* rows in the chunk */
    int32_t filled;     /* rows copied in so far */
    int32_t nctx;       /* context rows before them in raw */
    int last;           /* the chunk that ends the zlib stream */
    int state;          /* SLOT_*, under the encoder's mutex */
    unsigned char *raw; /* nctx + nrows rows of row_bytes */
    /* the worker's results */
    unsigned char *out; /* deflate data (chunk 0: after the zlib header) */
    size_t out_len, out_cap;
    uint32_t adler;     /* of the chunk's filtered bytes */
    uint32_t crc;       /* of "IDAT" and out */
    int zerr;           /* non-zero: zlib failed with this code */
} chunk_slot;

/* What one compressing thread owns. */
typedef struct worker {
    z_stream zs;
    int zs_ready;
    unsigned char *filtered; /* (ctx_max + rows_per_chunk) filtered rows */
    unsigned char *scratch;  /* one filtered row, for the adaptive filter */
    uint16_t *hash;          /* the portable encoder's work memory */
    struct qr_png_encoder *enc;
    pthread_t tid;
} worker;

struct qr_png_encoder {
    FILE *fp;
    char *name;
    int32_t width, height;
    size_t row_bytes;
    qr_png_params p;
    int32_t rows_per_chunk, ctx_max;
    int64_t nchunks;
    int64_t rows_in;
    /* The rows this encoder takes end at row_end, its chunks at chunk_end:
     * the image's end, unless it encodes a part (qr_png_encoder_open_part),
     * whose chunks go to mem as records instead of to fp as IDATs. */
    int32_t row_end;
    int64_t chunk_end;
    qr_png_buffer *mem;

    chunk_slot *slots;
    int nslots;
    int64_t filling;    /* chunk being filled */
    int64_t next_write; /* chunk to write next */
    uint32_t adler;     /* of the chunks written so far */

    worker *workers;
    int nworkers, started; /* started == 0: chunks are compressed in the caller */
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    int sync_ready;        /* mu and the condition variables exist */
    int64_t submitted, taken;
    int stop;
    int records_only; /* records were appended without the context for rows */

    qr_error fail; /* sticky: once set, every call answers it */
};

qr_png_params qr_png_params_for(int level, int threads)
{
    qr_png_params p = {.level = level,
                       .threads = threads,
                       .filter = QR_PNG_FILTER_DEFAULT,
                       .strategy = Z_DEFAULT_STRATEGY,
                       .chunk_bytes = 0,
                       .dict_bytes = QR_PNG_DICT_BYTES,
                       .pixel_bytes = 3,
                       .deflate = QR_PNG_DEFLATE_ZLIB};
    return p;
}

qr_png_params qr_png_params_of(const qr_image_write_options *o)
{
    qr_png_params p = qr_png_params_for(o->png_level, qr_image_threads(o->threads));
    p.text = o->text;
    p.ntext = o->ntext;
    p.pixel_bytes = qr_image_pixel_bytes(QR_FORMAT_PNG, o->alpha);
    p.deflate = o->deflate == QR_PNG_DEFLATE_PORTABLE ? QR_PNG_DEFLATE_PORTABLE : QR_PNG_DEFLATE_ZLIB;
    return p;
}

static chunk_slot *slot_of(qr_png_encoder *e, int64_t k)
{
    return &e->slots[k % e->nslots];
}

static void put_be32(unsigned char *d, uint32_t v)
{
    d[0] = (unsigned char)(v >> 24);
    d[1] = (unsigned char)(v >> 16);
    d[2] = (unsigned char)(v >> 8);
    d[3] = (unsigned char)v;
}

/* ---- compressing one chunk ----------------------------------------------------- */

static int grow_out(chunk_slot *s, size_t need)
{
    if (need <= s->out_cap)
        return 0;
    unsigned char *p = realloc(s->out, need);
    if (!p)
        return -1;
    s->out = p;
    s->out_cap = need;
    return 0;
}

/* Filters the chunk's context and rows, then deflates the rows with the
 * context's last 32 KiB as dictionary. Sets s->zerr on failure. */
static void compress_chunk(const qr_png_encoder *e, worker *w, chunk_slot *s)
{
    const size_t rb = e->row_bytes, fb = rb + 1;
    /* The top context row is only the prior of the next one, unless the
     * context reaches the image's top row, whose prior is nothing. */
    int32_t r0 = (s->nctx == s->first_row) ? 0 : 1;
    for (int32_t r = r0; r < s->nctx + s->nrows; r++) {
        const unsigned char *prior = r > 0 ? s->raw + (size_t)(r - 1) * rb : NULL;
        qr_png_filter_row(e->p.filter, e->p.pixel_bytes, s->raw + (size_t)r * rb, prior, rb,
                          w->filtered + (size_t)(r - r0) * fb, w->scratch);
    }
    size_t ctx_len = (size_t)(s->nctx - r0) * fb;
    size_t dict_len = ctx_len < e->p.dict_bytes ? ctx_len : e->p.dict_bytes;
    const unsigned char *in = w->filtered + ctx_len;
    size_t in_len = (size_t)s->nrows * fb;

    s->zerr = 0;
    s->adler = (uint32_t)adler32(adler32(0L, Z_NULL, 0), in, (uInt)in_len);
    if (e->p.deflate == QR_PNG_DEFLATE_PORTABLE) {
        const size_t head = s->index == 0 ? 2 : 0;
        if (grow_out(s, head + QR_DEFLATE_BOUND(in_len))) {
            s->zerr = Z_MEM_ERROR;
            return;
        }
        if (head) {
            s->out[0] = 0x78; /* deflate, 32 KiB window */
            s->out[1] = 0x01; /* FLEVEL 0 (fastest), no dictionary, FCHECK */
        }
        /* the bound always holds */
        s->out_len = head + qr_deflate_chunk(in - dict_len, dict_len, in_len, s->out + head,
                                             QR_DEFLATE_BOUND(in_len), w->hash, s->last);
        s->crc = (uint32_t)crc32(crc32(0L, (const Bytef *)"IDAT", 4), s->out, (uInt)s->out_len);
        return;
    }
    z_stream *zs = &w->zs;
    int zr = deflateReset(zs);
    if (zr == Z_OK && dict_len)
        zr = deflateSetDictionary(zs, in - dict_len, (uInt)dict_len);
    if (zr != Z_OK) {
        s->zerr = zr;
        return;
    }
    size_t head = 0;
    if (s->index == 0) {
        /* zlib header: deflate, 32 KiB window, FLEVEL as zlib sets it */
        int lv = e->p.level;
        unsigned flevel = (lv < 2 || e->p.strategy >= Z_HUFFMAN_ONLY) ? 0 : lv < 6 ? 1 : lv == 6 ? 2 : 3;
        unsigned cmf = 0x78, flg = flevel << 6;
        flg += 31 - ((cmf << 8) + flg) % 31;
        if (grow_out(s, 2)) {
            s->zerr = Z_MEM_ERROR;
            return;
        }
        s->out[0] = (unsigned char)cmf;
        s->out[1] = (unsigned char)flg;
        head = 2;
    }
    /* deflateBound covers a finished stream; a sync flush adds an empty
     * stored block and at most a byte of bits before it. */
    size_t cap = head + deflateBound(zs, (uLong)in_len) + 16;
    if (grow_out(s, cap)) {
        s->zerr = Z_MEM_ERROR;
        return;
    }
    zs->next_in = (Bytef *)in;
    zs->avail_in = (uInt)in_len;
    size_t len = head;
    int flush = s->last ? Z_FINISH : Z_SYNC_FLUSH;
    for (;;) {
        if (len == s->out_cap && grow_out(s, s->out_cap * 2)) {
            s->zerr = Z_MEM_ERROR;
            return;
        }
        zs->next_out = s->out + len;
        zs->avail_out = (uInt)(s->out_cap - len);
        zr = deflate(zs, flush);
        len = s->out_cap - zs->avail_out;
        if (zr == Z_STREAM_END)
            break;
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            s->zerr = zr;
            return;
        }
        /* a sync flush is complete once deflate leaves output space unused */
        if (!s->last && zs->avail_in == 0 && zs->avail_out > 0)
            break;
    }
    s->out_len = len;
    s->crc = (uint32_t)crc32(crc32(0L, (const Bytef *)"IDAT", 4), s->out, (uInt)len);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    qr_png_encoder *e = w->enc;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->stop && e->taken == e->submitted)
            pthread_cond_wait(&e->work_cv, &e->mu);
        if (e->stop)
            break;
        chunk_slot *s = slot_of(e, e->taken++);
        pthread_mutex_unlock(&e->mu);
        compress_chunk(e, w, s);
        pthread_mutex_lock(&e->mu);
        s->state = SLOT_DONE;
        pthread_cond_broadcast(&e->done_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- writing, in chunk order ------------------------------------------------------ */

static qr_status fail_write(qr_png_encoder *e, qr_error *err)
{
    int en = errno ? errno : EIO;
    qr_fail(&e->fail, QR_ERR_IO, "%s: write failed: %s", e->name, strerror(en));
    return qr_fail(err, e->fail.status, "%s", e->fail.msg);
}

static qr_status put(qr_png_encoder *e, const void *data, size_t len, qr_error *err)
{
    if (e->mem) {
        if (qr_png_buffer_put(e->mem, data, len) == 0)
            return QR_OK;
        qr_fail(&e->fail, QR_ERR_NOMEM, "%s: out of memory for the encoded part", e->name);
        return qr_fail(err, e->fail.status, "%s", e->fail.msg);
    }
    errno = 0;
    if (len && fwrite(data, 1, len, e->fp) != len)
        return fail_write(e, err);
    return QR_OK;
}

/* Writes one compressed chunk as an IDAT: `raw_len` filtered bytes whose
 * Adler-32 is `adler` became `data`, and `crc` is that of "IDAT" and data.
 * The last one carries the stream's Adler-32 and is followed by IEND.
 * Chunks encoded here and chunks of parts (append_records) pass through
 * here alike, so a file's bytes do not depend on where its chunks were
 * compressed. */
static qr_status write_idat(qr_png_encoder *e, uint64_t raw_len, uint32_t adler, uint32_t crc,
                            const unsigned char *data, size_t data_len, int last, qr_error *err)
{
    e->adler = (uint32_t)adler32_combine(e->adler, adler, (z_off_t)raw_len);
    unsigned char head[8], trailer[4], tail[4];
    size_t len = data_len;
    if (last) {
        put_be32(trailer, e->adler);
        crc = (uint32_t)crc32(crc, trailer, 4);
        len += 4;
    }
    put_be32(head, (uint32_t)len);
    memcpy(head + 4, "IDAT", 4);
    put_be32(tail, crc);
    qr_status st = put(e, head, 8, err);
    if (st == QR_OK)
        st = put(e, data, data_len, err);
    if (st == QR_OK && last)
        st = put(e, trailer, 4, err);
    if (st == QR_OK)
        st = put(e, tail, 4, err);
    /* IEND: no data, and the CRC of its type alone */
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    if (st == QR_OK && last)
        st = put(e, iend, sizeof iend, err);
    return st;
}

/* A part's record of one chunk (little-endian): the filtered length, the
 * Adler-32 of the filtered bytes, the CRC of "IDAT" and the data, the data's
 * length, the data; what write_idat needs, so that assembling compresses
 * nothing again. */
#define RECORD_HEAD 24

static qr_status put_record(qr_png_encoder *e, uint64_t raw_len, uint32_t adler, uint32_t crc,
                            const unsigned char *data, size_t data_len, qr_error *err)
{
    unsigned char head[RECORD_HEAD];
    qr_le_put(head, raw_len, 8);
    qr_le_put(head + 8, adler, 4);
    qr_le_put(head + 12, crc, 4);
    qr_le_put(head + 16, data_len, 8);
    qr_status st = put(e, head, sizeof head, err);
    return st == QR_OK ? put(e, data, data_len, err) : st;
}

/* Writes chunk e->next_write, whose slot is DONE: an IDAT, or a part's
 * record. */
static qr_status write_next(qr_png_encoder *e, qr_error *err)
{
    chunk_slot *s = slot_of(e, e->next_write);
    if (s->zerr) {
        qr_fail(&e->fail, s->zerr == Z_MEM_ERROR ? QR_ERR_NOMEM : QR_ERR_IO,
                "%s: cannot compress the PNG data: %s", e->name,
                s->zerr == Z_MEM_ERROR ? "out of memory" : zError(s->zerr));
        return qr_fail(err, e->fail.status, "%s", e->fail.msg);
    }
    const uint64_t raw_len = (uint64_t)s->nrows * (e->row_bytes + 1);
    qr_status st = e->mem ? put_record(e, raw_len, s->adler, s->crc, s->out, s->out_len, err)
                          : write_idat(e, raw_len, s->adler, s->crc, s->out, s->out_len, s->last,
                                       err);
    if (st != QR_OK)
        return st;
    e->next_write++;
    if (e->started) {
        pthread_mutex_lock(&e->mu);
        s->state = SLOT_FREE;
        pthread_mutex_unlock(&e->mu);
    } else {
        s->state = SLOT_FREE;
    }
    return QR_OK;
}

/* Writes the oldest unwritten chunk, waiting for it if `wait`; answers
 * QR_OK with *wrote = 0 when it is not ready and wait is 0. */
static qr_status write_oldest(qr_png_encoder *e, int wait, int *wrote, qr_error *err)
{
    *wrote = 0;
    if (e->next_write >= e->submitted)
        return QR_OK;
    chunk_slot *s = slot_of(e, e->next_write);
    if (e->started) {
        pthread_mutex_lock(&e->mu);
        while (wait && s->state != SLOT_DONE)
            pthread_cond_wait(&e->done_cv, &e->mu);
        int ready = s->state == SLOT_DONE;
        pthread_mutex_unlock(&e->mu);
        if (!ready)
            return QR_OK;
    }
    *wrote = 1;
    return write_next(e, err);
}

/* ---- filling ------------------------------------------------------------------------- */

static void setup_slot(qr_png_encoder *e, int64_t k)
{
    chunk_slot *s = slot_of(e, k);
    s->index = k;
    s->first_row = (int32_t)(k * e->rows_per_chunk);
    int64_t left = (int64_t)e->height - s->first_row;
    s->nrows = (int32_t)(left < e->rows_per_chunk ? left : e->rows_per_chunk);
    s->filled = 0;
    s->nctx = 0;
    s->last = (k == e->nchunks - 1);
    s->state = SLOT_FILLING;
}

/* Chunk e->filling is full: hand it over, write what is ready, and set up
 * the next chunk's slot with its context. */
static qr_status complete_chunk(qr_png_encoder *e, qr_error *err)
{
    int64_t k = e->filling;
    chunk_slot *s = slot_of(e, k);
    if (e->started) {
        pthread_mutex_lock(&e->mu);
        s->state = SLOT_QUEUED;
        e->submitted++;
        pthread_cond_signal(&e->work_cv);
        pthread_mutex_unlock(&e->mu);
    } else {
        compress_chunk(e, &e->workers[0], s);
        s->state = SLOT_DONE;
        e->submitted++;
    }
    int wrote = 1;
    qr_status st = QR_OK;
    while (st == QR_OK && wrote)
        st = write_oldest(e, 0, &wrote, err);
    if (st != QR_OK || k + 1 == e->chunk_end)
        return st;
    /* the next chunk's slot must have been written out */
    while (st == QR_OK && e->next_write <= k + 1 - e->nslots)
        st = write_oldest(e, 1, &wrote, err);
    if (st != QR_OK)
        return st;
    setup_slot(e, k + 1);
    chunk_slot *d = slot_of(e, k + 1);
    int32_t have = s->nctx + s->nrows;
    int32_t need = d->first_row < e->ctx_max ? d->first_row : e->ctx_max;
    memcpy(d->raw, s->raw + (size_t)(have - need) * e->row_bytes, (size_t)need * e->row_bytes);
    d->nctx = need;
    e->filling = k + 1;
    return QR_OK;
}

qr_status qr_png_encoder_rows(qr_png_encoder *e, const unsigned char *rows, int32_t nrows,
                              qr_error *err)
{
    if (e->fail.status != QR_OK)
        return qr_fail(err, e->fail.status, "%s", e->fail.msg);
    if (nrows < 0 || (nrows > 0 && !rows))
        return qr_fail(err, QR_ERR_INVALID, "%s: no rows to append", e->name);
    if (nrows > e->row_end - e->rows_in)
        return qr_fail(err, QR_ERR_INVALID, "%s: rows appended beyond row %ld", e->name,
                       (long)e->row_end);
    if (nrows > 0 && e->records_only)
        return qr_fail(err, QR_ERR_INVALID, "%s: pixel rows after chunks compressed elsewhere "
                       "without their context", e->name);
    while (nrows > 0) {
        chunk_slot *s = slot_of(e, e->filling);
        int32_t take = s->nrows - s->filled;
        if (take > nrows)
            take = nrows;
        size_t bytes = (size_t)take * e->row_bytes;
        memcpy(s->raw + (size_t)(s->nctx + s->filled) * e->row_bytes, rows, bytes);
        s->filled += take;
        rows += bytes;
        nrows -= take;
        e->rows_in += take;
        if (s->filled == s->nrows) {
            qr_status st = complete_chunk(e, err);
            if (st != QR_OK)
                return st;
        }
    }
    return QR_OK;
}

qr_status qr_png_encoder_finish(qr_png_encoder *e, qr_error *err)
{
    if (e->fail.status != QR_OK)
        return qr_fail(err, e->fail.status, "%s", e->fail.msg);
    if (e->rows_in != e->row_end)
        return qr_fail(err, QR_ERR_INVALID, "%s: rows up to %lld of the %ld expected were appended",
                       e->name, (long long)e->rows_in, (long)e->row_end);
    int wrote;
    qr_status st = QR_OK;
    while (st == QR_OK && e->next_write < e->chunk_end)
        st = write_oldest(e, 1, &wrote, err);
    return st;
}

/* ---- set-up and tear-down ------------------------------------------------------------- */

void qr_png_encoder_free(qr_png_encoder *e)
{
    if (!e)
        return;
    if (e->started) {
        pthread_mutex_lock(&e->mu);
        e->stop = 1;
        pthread_cond_broadcast(&e->work_cv);
        pthread_mutex_unlock(&e->mu);
        for (int i = 0; i < e->started; i++)
            pthread_join(e->workers[i].tid, NULL);
    }
    if (e->workers) {
        for (int i = 0; i < e->nworkers; i++) {
            if (e->workers[i].zs_ready)
                deflateEnd(&e->workers[i].zs);
            free(e->workers[i].filtered);
            free(e->workers[i].scratch);
            free(e->workers[i].hash);
        }
    }
    if (e->slots) {
        for (int i = 0; i < e->nslots; i++) {
            free(e->slots[i].raw);
            free(e->slots[i].out);
        }
    }
    if (e->sync_ready) {
        pthread_mutex_destroy(&e->mu);
        pthread_cond_destroy(&e->work_cv);
        pthread_cond_destroy(&e->done_cv);
    }
    free(e->workers);
    free(e->slots);
    free(e->name);
    free(e);
}

void qr_png_layout(int32_t width, int32_t height, const qr_png_params *p,
                   int32_t *rows_per_chunk, int32_t *ctx_rows)
{
    const size_t fb = (size_t)width * 3 + 1; /* RGB's, whatever p->pixel_bytes */
    size_t chunk = p->chunk_bytes;
    if (chunk == 0) {
        chunk = fb * (size_t)height / QR_PNG_CHUNKS;
        chunk = chunk < QR_PNG_CHUNK_MIN ? QR_PNG_CHUNK_MIN
                : chunk > QR_PNG_CHUNK_MAX ? QR_PNG_CHUNK_MAX : chunk;
    }
    size_t rpc = (chunk + fb - 1) / fb;
    *rows_per_chunk = (int32_t)(rpc < (size_t)height ? rpc : (size_t)height);
    *ctx_rows = (int32_t)((p->dict_bytes + fb - 1) / fb) + 1;
}

/* An encoder for rows [row0, row_end), both on the chunk grid (row_end
 * may be the height), with its buffers and threads; writes nothing. */
static qr_status encoder_new(const char *name, int32_t width, int32_t height,
                             const qr_png_params *params, int32_t row0, int32_t row_end,
                             qr_png_encoder **out, qr_error *err)
{
    *out = NULL;
    if (width < 1 || height < 1 || params->level < 0 || params->level > 9 ||
        params->dict_bytes > DICT_BYTES || (params->pixel_bytes != 3 && params->pixel_bytes != 4))
        return qr_fail(err, QR_ERR_INVALID, "%s: invalid PNG parameters", name);
    qr_png_encoder *e = calloc(1, sizeof *e);
    if (!e || !(e->name = strdup(name))) {
        free(e);
        return qr_fail(err, QR_ERR_NOMEM, "%s: out of memory starting the PNG encoder", name);
    }
    qr_error_clear(&e->fail);
    e->width = width;
    e->height = height;
    e->p = *params;
    e->row_bytes = (size_t)width * (size_t)params->pixel_bytes;
    const size_t fb = e->row_bytes + 1;
    qr_png_layout(width, height, params, &e->rows_per_chunk, &e->ctx_max);
    e->nchunks = ((int64_t)height + e->rows_per_chunk - 1) / e->rows_per_chunk;
    e->adler = (uint32_t)adler32(0L, Z_NULL, 0);
    e->rows_in = row0;
    e->row_end = row_end;
    const int64_t k0 = row0 / e->rows_per_chunk;
    e->chunk_end = ((int64_t)row_end + e->rows_per_chunk - 1) / e->rows_per_chunk;
    e->filling = e->next_write = e->submitted = e->taken = k0;

    int64_t chunks = e->chunk_end - k0;
    int threads = e->p.threads < 1 ? 1 : e->p.threads;
    if (threads > chunks)
        threads = chunks < 1 ? 1 : (int)chunks;
    e->nworkers = threads;
    e->nslots = threads == 1 ? 2 : 2 * threads;
    e->workers = calloc((size_t)e->nworkers, sizeof *e->workers);
    e->slots = calloc((size_t)e->nslots, sizeof *e->slots);
    int ok = e->workers && e->slots;
    const size_t slot_rows = (size_t)e->ctx_max + (size_t)e->rows_per_chunk;
    for (int i = 0; ok && i < e->nslots; i++)
        ok = (e->slots[i].raw = malloc(slot_rows * e->row_bytes)) != NULL;
    for (int i = 0; ok && i < e->nworkers; i++) {
        worker *w = &e->workers[i];
        w->enc = e;
        w->filtered = malloc(slot_rows * fb);
        w->scratch = malloc(fb);
        if (e->p.deflate == QR_PNG_DEFLATE_PORTABLE) {
            w->hash = malloc(QR_DEFLATE_HASH_WORDS * sizeof *w->hash);
            ok = w->filtered && w->scratch && w->hash;
        } else {
            ok = w->filtered && w->scratch &&
                 deflateInit2(&w->zs, e->p.level, Z_DEFLATED, -15, 8, e->p.strategy) == Z_OK;
            w->zs_ready = ok;
        }
    }
    if (!ok) {
        qr_png_encoder_free(e);
        return qr_fail(err, QR_ERR_NOMEM, "%s: out of memory for the PNG encoder's buffers", name);
    }
    if (threads > 1) {
        pthread_mutex_init(&e->mu, NULL);
        pthread_cond_init(&e->work_cv, NULL);
        pthread_cond_init(&e->done_cv, NULL);
        e->sync_ready = 1;
        for (int i = 0; i < threads; i++) {
            if (qr_thread_start(&e->workers[i].tid, worker_main, &e->workers[i]) != 0) {
                qr_png_encoder_free(e);
                return qr_fail(err, QR_ERR_NOMEM,
                               "%s: cannot start %d encoding threads: out of memory for their "
                               "stacks",
                               name, threads);
            }
            e->started++;
        }
    }
    if (k0 < e->nchunks)
        setup_slot(e, k0);
    *out = e;
    return QR_OK;
}

qr_status qr_png_encoder_open(FILE *fp, const char *name, int32_t width, int32_t height,
                              const qr_png_params *params, qr_png_encoder **out, qr_error *err)
{
    *out = NULL;
    qr_png_encoder *e = NULL;
    qr_png_buffer head = {0};
    qr_status st = qr_png_head(&head, name, width, height, params->pixel_bytes, params->text,
                               params->ntext, err);
    if (st == QR_OK)
        st = encoder_new(name, width, height, params, 0, height, &e, err);
    if (st == QR_OK) {
        e->fp = fp;
        st = put(e, head.data, head.len, err);
    }
    free(head.data);
    if (st != QR_OK) {
        qr_png_encoder_free(e);
        return st;
    }
    *out = e;
    return QR_OK;
}

qr_status qr_png_encoder_open_part(qr_png_buffer *buf, const char *name, int32_t width,
                                   int32_t height, const qr_png_params *params, int32_t row0,
                                   int32_t row1, const unsigned char *ctx, qr_png_encoder **out,
                                   qr_error *err)
{
    qr_png_params p = *params;
    p.text = NULL; /* the writer that assembles the parts writes the header */
    p.ntext = 0;
    int32_t rpc, ctx_rows;
    if (width >= 1 && height >= 1) {
        qr_png_layout(width, height, &p, &rpc, &ctx_rows);
        if (row0 < 0 || row0 >= row1 || row1 > height || row0 % rpc != 0 ||
            (row1 % rpc != 0 && row1 != height)) {
            *out = NULL;
            return qr_fail(err, QR_ERR_INVALID, "%s: rows %ld to %ld are not a part of the image",
                           name, (long)row0, (long)row1);
        }
    }
    qr_png_encoder *e;
    qr_status st = encoder_new(name, width, height, &p, row0, row1, &e, err);
    if (st != QR_OK) {
        *out = NULL;
        return st;
    }
    e->mem = buf;
    chunk_slot *s = slot_of(e, e->filling);
    s->nctx = row0 < e->ctx_max ? row0 : e->ctx_max;
    memcpy(s->raw, ctx, (size_t)s->nctx * e->row_bytes);
    *out = e;
    return QR_OK;
}

/* Waits for the chunks handed to the workers and writes them. */
static qr_status drain(qr_png_encoder *e, qr_error *err)
{
    int wrote;
    qr_status st = QR_OK;
    while (st == QR_OK && e->next_write < e->submitted)
        st = write_oldest(e, 1, &wrote, err);
    return st;
}

qr_status qr_png_encoder_append_records(qr_png_encoder *e, int32_t row0, int32_t row1,
                                        const unsigned char *rec, size_t len,
                                        const unsigned char *tail, qr_error *err)
{
    if (e->fail.status != QR_OK)
        return qr_fail(err, e->fail.status, "%s", e->fail.msg);
    const int32_t rpc = e->rows_per_chunk;
    if (e->mem || row0 != e->rows_in || row0 % rpc != 0 || row0 >= row1 || row1 > e->height ||
        (row1 % rpc != 0 && row1 != e->height))
        return qr_fail(err, QR_ERR_INVALID, "%s: a part of rows %ld to %ld does not fit here "
                       "(the next row is %lld)", e->name, (long)row0, (long)row1,
                       (long long)e->rows_in);
    const int64_t k0 = row0 / rpc, k1 = ((int64_t)row1 + rpc - 1) / rpc;
    const uint64_t fb = e->row_bytes + 1;
    /* every record is checked before any is written */
    size_t at = 0;
    for (int64_t k = k0; k < k1; k++) {
        int64_t nrows = k == e->nchunks - 1 ? e->height - k * rpc : rpc;
        if (len - at < RECORD_HEAD || qr_le_get(rec + at, 8) != (uint64_t)nrows * fb ||
            qr_le_get(rec + at + 16, 8) > len - at - RECORD_HEAD ||
            qr_le_get(rec + at + 16, 8) > 0x7FFFFFFFu - 4)
            return qr_fail(err, QR_ERR_INVALID, "%s: the part's chunk %lld is malformed", e->name,
                           (long long)(k - k0));
        at += RECORD_HEAD + (size_t)qr_le_get(rec + at + 16, 8);
    }
    if (at != len)
        return qr_fail(err, QR_ERR_INVALID, "%s: the part has bytes after its last chunk",
                       e->name);
    qr_status st = drain(e, err);
    at = 0;
    for (int64_t k = k0; st == QR_OK && k < k1; k++) {
        const unsigned char *r = rec + at;
        size_t data_len = (size_t)qr_le_get(r + 16, 8);
        st = write_idat(e, qr_le_get(r, 8), (uint32_t)qr_le_get(r + 8, 4),
                        (uint32_t)qr_le_get(r + 12, 4), r + RECORD_HEAD, data_len,
                        k == e->nchunks - 1, err);
        at += RECORD_HEAD + data_len;
    }
    if (st != QR_OK)
        return st;
    /* the chunks went straight to the file: none is left for the workers,
     * and the slot that waited for chunk k0's rows waits for chunk k1's,
     * its context the part's last rows */
    if (e->started)
        pthread_mutex_lock(&e->mu);
    e->next_write = e->submitted = e->taken = k1;
    slot_of(e, k0)->state = SLOT_FREE;
    if (e->started)
        pthread_mutex_unlock(&e->mu);
    e->rows_in = row1;
    if (k1 < e->nchunks && !tail) {
        e->records_only = 1; /* the rows after come as records too */
    } else if (k1 < e->nchunks) {
        setup_slot(e, k1);
        chunk_slot *s = slot_of(e, k1);
        s->nctx = row1 < e->ctx_max ? row1 : e->ctx_max;
        memcpy(s->raw, tail, (size_t)s->nctx * e->row_bytes);
        e->filling = k1;
    }
    return QR_OK;
}

qr_status qr_png_encode_rows(FILE *fp, const char *name, int32_t width, int32_t height,
                             const qr_png_params *params, const unsigned char *rows, size_t stride,
                             qr_error *err)
{
    const size_t row = (size_t)width * (size_t)params->pixel_bytes;
    unsigned char *packed = NULL;
    if (stride != row) { /* the rows of a larger image: packed first */
        if (!(packed = malloc(row * (size_t)height)))
            return qr_fail(err, QR_ERR_NOMEM, "%s: out of host memory", name);
        for (int32_t y = 0; y < height; y++)
            memcpy(packed + (size_t)y * row, rows + (size_t)y * stride, row);
        rows = packed;
    }
    qr_png_encoder *e = NULL;
    qr_status st = qr_png_encoder_open(fp, name, width, height, params, &e, err);
    if (st == QR_OK)
        st = qr_png_encoder_rows(e, rows, height, err);
    if (st == QR_OK)
        st = qr_png_encoder_finish(e, err);
    qr_png_encoder_free(e);
    free(packed);
    return st;
}
