/* png_encoder.h — a streaming, multi-threaded PNG encoder (8-bit RGB or RGBA).
 *
 * Rows arrive top row first, in bands of any height. They are cut into
 * chunks of a fixed number of rows that depends on the width alone, and
 * each chunk is filtered and deflated independently on a pool of threads,
 * the technique of pigz: every chunk's raw deflate data ends with a sync
 * flush (an empty stored block) so it stops on a byte boundary, the last
 * one ends the stream, and the pieces are written in order, one IDAT each,
 * between the zlib header and a trailer whose Adler-32 is combined from
 * the chunks' own (adler32_combine). Each chunk's compressor is primed
 * with the 32 KiB of filtered data before it (deflateSetDictionary), so
 * matches reach across chunk boundaries as they would in one stream.
 *
 * The bytes written depend on the pixels, the level, the filter and the
 * chunk size only: never on the thread count or on how rows are banded.
 *
 * Since chunks are independent, a band of whole chunks can be compressed
 * anywhere (image_parts.h): an encoder opened for a part leaves its chunks
 * in memory as records, and the file's encoder writes such records as the
 * IDATs it would have written itself from the rows.
 */
#ifndef QR_PNG_ENCODER_H
#define QR_PNG_ENCODER_H

#include <stdint.h>
#include <stdio.h>

#include "image/png_chunks.h"
#include "image/png_filter.h"
#include "quadrender/error.h"
#include "quadrender/image.h"

/* Filtered bytes per chunk, rounded up to whole rows: the image's share
 * of QR_PNG_CHUNKS chunks, within [QR_PNG_CHUNK_MIN, QR_PNG_CHUNK_MAX].
 * Small images get chunks enough for every core; large ones, chunks
 * large enough that priming each with the dictionary costs little. */
#define QR_PNG_CHUNKS 64
#define QR_PNG_CHUNK_MIN (128 * 1024)
#define QR_PNG_CHUNK_MAX (1024 * 1024)
#define QR_PNG_FILTER_DEFAULT QR_PNG_FILTER_UP
#define QR_PNG_DICT_BYTES 32768

typedef struct qr_png_params {
    int level;            /* zlib level 0..9 */
    int threads;          /* >= 1; 1 encodes in the caller's thread */
    qr_png_filter filter; /* QR_PNG_FILTER_DEFAULT in the product */
    int strategy;         /* zlib strategy; Z_DEFAULT_STRATEGY in the product */
    size_t chunk_bytes;   /* 0 in the product: by the image's size, as above */
    size_t dict_bytes;    /* 0..32768: how much of the data before a chunk primes
                             its compressor; QR_PNG_DICT_BYTES in the product */
    const qr_image_text *text; /* written after IHDR (quadrender/image.h) */
    int ntext;
    int pixel_bytes;      /* 3: RGB; 4: RGBA (colour type 6) */
    qr_png_deflate deflate; /* ZLIB (level, strategy) or PORTABLE (deflate_chunk.h) */
} qr_png_params;

/* The product's parameters for a level and a thread count (RGB). */
qr_png_params qr_png_params_for(int level, int threads);

/* The product's parameters for write options as qr_image_options_check
 * passed them: their level, threads (qr_image_threads), text and alpha. */
qr_png_params qr_png_params_of(const qr_image_write_options *o);

/* The chunk grid: rows per chunk, and the rows above a chunk its
 * compressor needs (the rows whose filtered bytes prime its dictionary,
 * plus the one row their filter needs); the first chunk's chunk index is
 * row / rows_per_chunk. Both are counted in rows of RGB whatever
 * p->pixel_bytes: the grid is a function of the width and height alone
 * (image_parts.h), and context rows enough for RGB's dictionary are more
 * than enough for RGBA's (the compressor takes the last dict_bytes). */
void qr_png_layout(int32_t width, int32_t height, const qr_png_params *p,
                   int32_t *rows_per_chunk, int32_t *ctx_rows);

typedef struct qr_png_encoder qr_png_encoder;

/* Writes the signature, IHDR and the text chunks to fp and starts the
 * threads (a bad text key: QR_ERR_INVALID, nothing written). `name`
 * (the file's name) prefixes error messages. */
qr_status qr_png_encoder_open(FILE *fp, const char *name, int32_t width, int32_t height,
                              const qr_png_params *params, qr_png_encoder **out, qr_error *err);

/* Opens an encoder for the rows [row0, row1) of the image, row0 on the
 * chunk grid and row1 too unless it is the height: `ctx` holds the
 * min(row0, ctx_rows) rows just above row0. Its chunks, compressed as in
 * the whole image's encoder, are appended to *buf as records (24 bytes of
 * lengths and checksums, then the deflate data) for
 * qr_png_encoder_append_records; nothing else is written (no signature,
 * header, trailer or IEND; params->text is ignored). Rows go in with
 * qr_png_encoder_rows, starting at row0; qr_png_encoder_finish appends
 * the last records. */
qr_status qr_png_encoder_open_part(qr_png_buffer *buf, const char *name, int32_t width,
                                   int32_t height, const qr_png_params *params, int32_t row0,
                                   int32_t row1, const unsigned char *ctx, qr_png_encoder **out,
                                   qr_error *err);

/* Writes a part's records (rec, len bytes: those of rows [row0, row1),
 * encoded with this encoder's parameters) as the IDATs the rows would have
 * become, after the chunks still being compressed. `tail` holds the
 * min(row1, ctx_rows) rows ending at row1, the context of the chunk after
 * the part (unused when row1 is the height; NULL when the rows after come
 * as records too, and then rows are refused). The encoder must wait for
 * row0, a chunk boundary; records that are not those of rows [row0, row1)
 * by their lengths: QR_ERR_INVALID, nothing written. The deflate data is
 * not checked here: the part's own checksum covers it (image_parts.c). */
qr_status qr_png_encoder_append_records(qr_png_encoder *e, int32_t row0, int32_t row1,
                                        const unsigned char *rec, size_t len,
                                        const unsigned char *tail, qr_error *err);

/* Appends nrows rows of pixel_bytes * width bytes each, top row first. */
qr_status qr_png_encoder_rows(qr_png_encoder *e, const unsigned char *rows, int32_t nrows,
                              qr_error *err);

/* Once every row is in: writes the remaining IDATs and IEND. */
qr_status qr_png_encoder_finish(qr_png_encoder *e, qr_error *err);

/* A whole width x height image from its rows (top row first, row k at
 * rows + k * stride, width * params->pixel_bytes bytes each) as a PNG
 * into fp: open, the rows, finish. For small images made whole in memory
 * (a tile). */
qr_status qr_png_encode_rows(FILE *fp, const char *name, int32_t width, int32_t height,
                             const qr_png_params *params, const unsigned char *rows, size_t stride,
                             qr_error *err);
/* Stops the threads and frees everything; safe on NULL and after a failure. */
void qr_png_encoder_free(qr_png_encoder *e);

#endif
