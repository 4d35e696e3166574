/* png_filter.c — see png_filter.h. A pixel is bpp bytes (3: RGB, 4: RGBA),
 * so the "left" byte of byte i is byte i - bpp. The loops are plain byte
 * arithmetic that the compiler vectorizes; they are inlined into one copy
 * per pixel size (qr_png_filter_row), where bpp is a constant, as it was
 * when the filters took RGB only. */
#include "image/png_filter.h"

#include <stdlib.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

INLINE void filter_sub(const unsigned char *x, size_t n, size_t bpp, unsigned char *out)
{
    size_t head = n < bpp ? n : bpp;
    memcpy(out, x, head);
    for (size_t i = bpp; i < n; i++)
        out[i] = (unsigned char)(x[i] - x[i - bpp]);
}

INLINE void filter_up(const unsigned char *x, const unsigned char *p, size_t n,
                      unsigned char *out)
{
    if (!p) {
        memcpy(out, x, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)(x[i] - p[i]);
}

INLINE void filter_avg(const unsigned char *x, const unsigned char *p, size_t n,
                       size_t bpp, unsigned char *out)
{
    size_t head = n < bpp ? n : bpp;
    for (size_t i = 0; i < head; i++)
        out[i] = (unsigned char)(x[i] - ((p ? p[i] : 0) >> 1));
    if (p) {
        for (size_t i = bpp; i < n; i++)
            out[i] = (unsigned char)(x[i] - (((unsigned)x[i - bpp] + p[i]) >> 1));
    } else {
        for (size_t i = bpp; i < n; i++)
            out[i] = (unsigned char)(x[i] - (x[i - bpp] >> 1));
    }
}

/* The predictor of section 9.4, written branch-free so that it vectorizes. */
static inline unsigned char paeth(int a, int b, int c)
{
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    int r = (pb < pa) ? b : a;
    int pr = (pb < pa) ? pb : pa;
    return (unsigned char)((pc < pr) ? c : r);
}

INLINE void filter_paeth(const unsigned char *x, const unsigned char *p, size_t n,
                         size_t bpp, unsigned char *out)
{
    if (!p) { /* with b = c = 0 the predictor is the left byte: Sub */
        filter_sub(x, n, bpp, out);
        return;
    }
    size_t head = n < bpp ? n : bpp;
    for (size_t i = 0; i < head; i++)
        out[i] = (unsigned char)(x[i] - p[i]);
    for (size_t i = bpp; i < n; i++)
        out[i] = (unsigned char)(x[i] - paeth(x[i - bpp], p[i], p[i - bpp]));
}

INLINE void filter_fixed(qr_png_filter f, const unsigned char *x, const unsigned char *p,
                         size_t n, size_t bpp, unsigned char *out)
{
    out[0] = (unsigned char)f;
    switch (f) {
    case QR_PNG_FILTER_SUB: filter_sub(x, n, bpp, out + 1); break;
    case QR_PNG_FILTER_UP: filter_up(x, p, n, out + 1); break;
    case QR_PNG_FILTER_AVG: filter_avg(x, p, n, bpp, out + 1); break;
    case QR_PNG_FILTER_PAETH: filter_paeth(x, p, n, bpp, out + 1); break;
    default:
        out[0] = QR_PNG_FILTER_NONE;
        memcpy(out + 1, x, n);
        break;
    }
}

static unsigned long sum_abs(const unsigned char *b, size_t n)
{
    unsigned long s = 0;
    for (size_t i = 0; i < n; i++)
        s += (unsigned long)abs((int)(signed char)b[i]);
    return s;
}

INLINE void filter_row_bpp(qr_png_filter filter, const unsigned char *row,
                           const unsigned char *prior, size_t n, size_t bpp,
                           unsigned char *out, unsigned char *scratch)
{
    if (filter != QR_PNG_FILTER_ADAPTIVE) {
        filter_fixed(filter, row, prior, n, bpp, out);
        return;
    }
    /* Ties go to the lower type, so the choice is a function of the row
     * and its prior alone. */
    filter_fixed(QR_PNG_FILTER_NONE, row, prior, n, bpp, out);
    unsigned long best = sum_abs(out + 1, n);
    for (int f = QR_PNG_FILTER_SUB; f <= QR_PNG_FILTER_PAETH; f++) {
        filter_fixed((qr_png_filter)f, row, prior, n, bpp, scratch);
        unsigned long s = sum_abs(scratch + 1, n);
        if (s < best) {
            best = s;
            memcpy(out, scratch, n + 1);
        }
    }
}

void qr_png_filter_row(qr_png_filter filter, int bpp, const unsigned char *row,
                       const unsigned char *prior, size_t n, unsigned char *out,
                       unsigned char *scratch)
{
    if (bpp == 4)
        filter_row_bpp(filter, row, prior, n, 4, out, scratch);
    else
        filter_row_bpp(filter, row, prior, n, 3, out, scratch);
}
