/* quadrender/npy.h — NumPy .npy arrays other than scenes: rows of floats
 * read from a file (the query points and boxes of `quadrender query`), and
 * the header of a .npy file to write.
 *
 * What is read is what the scene reader reads (quadrender/scene.h,
 * docs/scene-format.md): format versions 1.0, 2.0 and 3.0, a header dict of
 * 'descr', 'fortran_order' and 'shape' only, C order, and nothing after the
 * data; one parser serves both.
 */
#ifndef QUADRENDER_NPY_H
#define QUADRENDER_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "quadrender/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads path, a 2-D array of shape (N, cols) (cols >= 1) of dtype '<f4' or
 * '<f8' (float64 is rounded to float32; one beyond float32's range becomes
 * an infinity, a NaN stays a NaN), into *out: N * cols floats, row after row,
 * malloc'd (free with free(); NULL when N is 0), and N into *rows. The
 * values are not checked: what a NaN means is the caller's to say.
 * row_names says what a row holds, for messages ("x y"). Errors, one line
 * starting with the path: QR_ERR_IO (cannot open or read it), QR_ERR_PARSE
 * (not such an array: the magic, the header, the dtype, the order, the
 * shape "expected (N, <cols>), rows of <row_names>", the data's length),
 * QR_ERR_NOMEM (the floats do not fit: quadrender/memory.h). cols 0 reads
 * a 1-D array of shape (N,) instead (N floats; the shape's message then
 * says "expected (N,), <row_names>"): the values of `render --color-by`. */
qr_status qr_npy_read_floats(const char *path, int cols, const char *row_names, float **out,
                             int64_t *rows, qr_error *err);

/* The longest header qr_npy_header_write writes. */
#define QR_NPY_HEADER_WRITE_MAX 256

/* Writes into buf the header of a .npy file of format 1.0 holding a C-order
 * array of dtype descr ("<i4", "<f4"; at most 16 bytes) and shape
 * shape[0..ndim) (ndim 0 to 4, each >= 0), laid out as numpy.save lays it
 * out: the dict, then spaces and a newline so that the data starts at a
 * multiple of 64 bytes. Returns its length in bytes (a multiple of 64, at
 * most QR_NPY_HEADER_WRITE_MAX), or 0 for arguments out of those ranges. */
size_t qr_npy_header_write(char buf[QR_NPY_HEADER_WRITE_MAX], const char *descr, int ndim,
                           const int64_t *shape);

#ifdef __cplusplus
}
#endif
#endif
