/* npy_file.h — a .npy file mapped and its header parsed (npy.c): what the
 * scene reader (scene_npy.c) and the reader of rows of floats
 * (quadrender/npy.h) share. Each then checks the dtype, order and shape it
 * takes, with its own message, and the data's length (qr_npy_check_data).
 *
 * Every message is one line starting with "<path>: ".
 */
#ifndef QR_NPY_FILE_H
#define QR_NPY_FILE_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "quadrender/error.h"

/* The longest header read; NumPy's own reader refuses far shorter ones. */
#define QR_NPY_HEADER_MAX (1u << 20)

typedef struct qr_npy_file {
    const char *path;           /* as given, for messages */
    const unsigned char *bytes; /* the whole file, mapped read-only */
    uint64_t size;
    uint64_t offset;            /* where the data starts */
    char descr[32];             /* the dtype string ("<f4") */
    int fortran;                /* fortran_order True */
    int ndim;
    int64_t shape[8];
} qr_npy_file;

/* Opens and maps path (a regular, non-empty file), checks the magic, the
 * format version (1.0, 2.0, 3.0) and the header's length, and parses the
 * header dict into *f. QR_ERR_IO when the file cannot be opened or mapped,
 * QR_ERR_PARSE when it is not such a file; then nothing stays mapped. */
qr_status qr_npy_open(const char *path, qr_npy_file *f, qr_error *err);

/* Unmaps what qr_npy_open mapped. */
void qr_npy_close(qr_npy_file *f);

/* The shape as Python writes a tuple: "(2, 7)", "(14,)", "()". */
void qr_npy_shape_text(const qr_npy_file *f, char *buf, size_t cap);

/* The float32 at p, little-endian whatever the host. */
static inline float qr_npy_f4(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The float64 at p, little-endian whatever the host, rounded to float32
 * (to nearest, as NumPy's astype does); beyond float's range (which the
 * conversion would leave undefined in ISO C) the infinity of that sign. */
static inline float qr_npy_f8(const unsigned char *p)
{
    uint64_t u = 0;
    for (int b = 7; b >= 0; --b)
        u = u << 8 | p[b];
    double d;
    memcpy(&d, &u, sizeof d);
    if (d > FLT_MAX || d < -FLT_MAX)
        return d > 0 ? INFINITY : -INFINITY;
    return (float)d;
}

/* QR_OK when the data after the header is exactly `bytes` long; else
 * QR_ERR_PARSE: "truncated: shape (N, 7) needs B bytes of data, the file has
 * H" or "E bytes follow the data of shape (N, 7)". */
qr_status qr_npy_check_data(const qr_npy_file *f, uint64_t bytes, qr_error *err);

#endif
