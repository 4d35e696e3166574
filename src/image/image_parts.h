/* image_parts.h — an image file written from parts encoded apart.
 *
 * When rows are rendered in several threads, processes or machines, each
 * can encode its own rows into a part: bytes that travel anywhere (a
 * message, a file) and that the one process writing the file appends to
 * its qr_image_writer in row order. The file's bytes are those the writer
 * writes from the same rows as pixels, whoever encoded what: for PNG, each
 * part holds whole chunks of the encoder's fixed grid, compressed exactly
 * as the writer's own encoder compresses them (png_encoder.h), so the
 * expensive work (filtering and deflate) happens where the rows are.
 *
 *     // anywhere: rows [row0, row1), with the context rows above them
 *     int32_t g = qr_image_part_grid(QR_FORMAT_PNG, W, H);   // cut on multiples of g
 *     int32_t c = qr_image_part_context(QR_FORMAT_PNG, W, H, row0);
 *     qr_image_part_encode(QR_FORMAT_PNG, W, H, &opts, row0, row1, rows_from_row0_minus_c,
 *                          &part, &len, &err);
 *     // in the writing process, in row order
 *     qr_image_writer_append_part(w, part, len, &err);
 */
#ifndef QR_IMAGE_PARTS_H
#define QR_IMAGE_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "quadrender/image.h"
#include "image/png_encoder.h"

/* Rows a part's first row must be a multiple of (its last row too, unless
 * it is the image's last): the file's grid. PNG: the encoder's rows per
 * chunk, which depend on the width and height alone, so every process
 * computes the same grid (with alpha or without); PPM and PFM: 1. An unknown format or a size out
 * of 1..QR_IMAGE_WRITER_MAX_DIM: 0. */
int32_t qr_image_part_grid(qr_image_format format, int32_t width, int32_t height);

/* Rows just before row0 that the encoder of a part starting at file row
 * row0 needs, given before its rows: PNG primes each chunk's compressor
 * with the 32 KiB of filtered data before it, so those rows (plus the one
 * row their filter needs) make the part's bytes equal the whole file's;
 * 0 for PPM and PFM. At most row0; 0 for arguments out of range. */
int32_t qr_image_part_context(qr_image_format format, int32_t width, int32_t height,
                              int32_t row0);

/* Encodes file rows [row0, row1) of a width x height image in `format`
 * (file order: PNG and PPM top row first as RGB8, 3 * width bytes a row,
 * or for a PNG with opts->alpha as RGBA8, 4 * width bytes a row; PFM
 * bottom row first as float RGB, 3 * width floats a row, as
 * qr_image_writer_append_rgb8/_rgbf take them). `rows` holds the context
 * rows (qr_image_part_context) and then the part's rows, contiguous.
 * opts (NULL: the defaults): the PNG level, the threads that compress
 * (opts->threads, 0 = all) and alpha (refused by PPM and PFM, as the
 * writer refuses it); text is ignored, since the writer writes the
 * header. *out (malloc'd, *len bytes, free with free()) is the part:
 * opaque, self-describing bytes (format, size, rows, the PNG parameters
 * that shape the bytes, a checksum) to be sent anywhere and given to
 * qr_image_writer_append_part. A part holds at least one row; row0 or
 * row1 off the grid, or out of range: QR_ERR_INVALID. */
qr_status qr_image_part_encode(qr_image_format format, int32_t width, int32_t height,
                               const qr_image_write_options *opts, int32_t row0, int32_t row1,
                               const void *rows, void **out, size_t *len, qr_error *err);

/* Appends a part to a writer opened (qr_image_writer_open) for the whole
 * image with the same format, size and options: its rows must be the next
 * rows the writer expects. Validates the bytes, since they may come from
 * another process: a part of another image, format or level, or out of
 * order, or with alpha where the writer has none or the other way round,
 * or malformed (its checksum covers every byte): QR_ERR_INVALID
 * with a one-line message; the writer then fails as on any error (abort
 * removes the temporary file). Parts and pixel rows (append_rgb8/_rgbf)
 * may be mixed at grid boundaries. The file's bytes equal those of the
 * same rows appended as pixels. */
qr_status qr_image_writer_append_part(qr_image_writer *w, const void *part, size_t len,
                                      qr_error *err);

/* For a PNG encoded elsewhere in this process (the GPU's encoder,
 * image/gpu/png_gpu.h): the writer's PNG parameters (its chunk grid,
 * filter, dictionary and deflate encoder); QR_ERR_INVALID when it does not
 * write a PNG. */
qr_status qr_image_writer_png_params(const qr_image_writer *w, qr_png_params *out, qr_error *err);

/* The file rows appended so far. */
int64_t qr_image_writer_rows_in(const qr_image_writer *w);

/* Appends the records (png_encoder.h) of chunks compressed elsewhere with
 * the writer's parameters, those of file rows [row0, row1): row0 the next
 * row, on the chunk grid, and row1 too or the height. Rows that follow
 * must come as records too. Records of other lengths: QR_ERR_INVALID, and
 * the writer fails as on any error. */
qr_status qr_image_writer_append_png_records(qr_image_writer *w, int32_t row0, int32_t row1,
                                             const unsigned char *rec, size_t len, qr_error *err);

#endif
