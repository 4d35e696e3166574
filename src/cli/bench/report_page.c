/* report_page.c — the HTML page of the reports, and the pieces of data
 * both kinds send it (report.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/bench/report.h"
#include "quadrender/file.h"
#include "quadrender/image.h"

/* report_page.html, compiled in (cmake/QrEmbed.cmake) */
extern const unsigned char qr_report_page[];
extern const size_t qr_report_page_len;

/* Where the data goes: the page holds this text exactly once, as the
 * content of its data element. */
static const char data_marker[] = "\"QR_REPORT_DATA\"";

qr_status report_write_page(const char *path, report_data_fn data, const void *arg,
                            qr_error *err)
{
    const char *page = (const char *)qr_report_page;
    const char *at = strstr(page, data_marker);
    if (!at)
        return qr_fail(err, QR_ERR_INVALID, "report page: no data marker (a broken build)");
    qr_file *out;
    qr_status st = qr_file_open(path, &out, err);
    if (st != QR_OK)
        return st;
    FILE *f = qr_file_stream(out);
    fwrite(page, 1, (size_t)(at - page), f);
    st = data(f, arg, err);
    if (st == QR_OK) {
        const char *rest = at + strlen(data_marker);
        fwrite(rest, 1, qr_report_page_len - (size_t)(rest - page), f);
        if (ferror(f))
            st = qr_fail(err, QR_ERR_IO, "%s: cannot write", path);
    }
    if (st != QR_OK) {
        qr_file_abort(out);
        return st;
    }
    return qr_file_commit(out, err);
}

/* ---- the image -------------------------------------------------------------------- */

static void write_base64(FILE *f, const unsigned char *p, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n) v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n) v |= p[i + 2];
        char out[4] = {abc[v >> 18], abc[(v >> 12) & 63], i + 1 < n ? abc[(v >> 6) & 63] : '=',
                       i + 2 < n ? abc[v & 63] : '='};
        fwrite(out, 1, 4, f);
    }
}

int report_image_scale(int32_t width, int32_t height)
{
    const int32_t side = width > height ? width : height;
    return (side + REPORT_IMAGE_MAX_SIDE - 1) / REPORT_IMAGE_MAX_SIDE;
}

qr_status report_write_image(FILE *f, const qr_image *picture, int alpha, int32_t width,
                             int32_t height, qr_error *err)
{
    unsigned char *png = NULL;
    size_t len = 0;
    qr_image_write_options o = qr_image_write_options_default();
    o.png_level = 9; /* the smallest page */
    o.alpha = alpha;  /* a scene without a background: RGBA */
    qr_status st = qr_image_encode_png(picture, &o, &png, &len, err);
    if (st != QR_OK)
        return st;
    fprintf(f, "\"image\": {\"width\": %d, \"height\": %d, \"scale\": %d, \"png\": \"", width,
            height, report_image_scale(width, height));
    write_base64(f, png, len);
    fputs("\"}", f);
    free(png);
    return QR_OK;
}

/* ---- the leaves --------------------------------------------------------------------- */

enum { COL_X0, COL_Y0, COL_X1, COL_Y1, COL_DEPTH, COL_COUNT, COL_FIRST, COL_LAST, NCOLS };

static long long leaf_value(const qr_index *ix, const qr_leaf *l, int col)
{
    switch (col) {
    case COL_X0: return l->rect.x0;
    case COL_Y0: return l->rect.y0;
    case COL_X1: return l->rect.x1;
    case COL_Y1: return l->rect.y1;
    case COL_DEPTH: return l->depth;
    case COL_COUNT: return l->count;
    case COL_FIRST: return l->count ? ix->lists[l->offset] : -1;
    default: return l->count ? ix->lists[l->offset + l->count - 1] : -1;
    }
}

void report_write_leaves(FILE *f, const qr_index *ix)
{
    static const char *const names[NCOLS] = {"x0",    "y0",    "x1",    "y1",
                                              "depth", "count", "first", "last"};
    fputc('{', f);
    for (int c = 0; c < NCOLS; c++) {
        fprintf(f, "%s\"%s\": [", c ? ", " : "", names[c]);
        for (int32_t i = 0; i < ix->num_leaves; i++)
            fprintf(f, i ? ",%lld" : "%lld", leaf_value(ix, &ix->leaves[i], c));
        fputc(']', f);
    }
    fputc('}', f);
}
