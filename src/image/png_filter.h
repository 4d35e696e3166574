/* png_filter.h — PNG's per-row filters (ISO/IEC 15948, section 9) for 8-bit
 * RGB and RGBA.
 *
 * A filtered row is the filter type byte followed by the row's bytes with
 * that filter applied; `prior` is the unfiltered row above, or NULL for the
 * image's top row (PNG treats the missing row as zeros).
 */
#ifndef QR_PNG_FILTER_H
#define QR_PNG_FILTER_H

#include <stddef.h>

typedef enum qr_png_filter {
    QR_PNG_FILTER_NONE = 0,
    QR_PNG_FILTER_SUB = 1,
    QR_PNG_FILTER_UP = 2,
    QR_PNG_FILTER_AVG = 3,
    QR_PNG_FILTER_PAETH = 4,
    /* per row, the filter with the smallest sum of |signed byte| (the
     * heuristic the PNG specification suggests and libpng uses) */
    QR_PNG_FILTER_ADAPTIVE = 5
} qr_png_filter;

/* Writes 1 + n bytes to out: the type actually used, then the filtered row
 * of pixels of bpp bytes (3: RGB, 4: RGBA). `scratch` (ADAPTIVE only, else
 * may be NULL) holds 1 + n bytes. */
void qr_png_filter_row(qr_png_filter filter, int bpp, const unsigned char *row,
                       const unsigned char *prior, size_t n, unsigned char *out,
                       unsigned char *scratch);

#endif
