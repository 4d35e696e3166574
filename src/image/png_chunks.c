/* png_chunks.c — see png_chunks.h. */
#include "image/png_chunks.h"
#include "common/text.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int qr_png_buffer_put(qr_png_buffer *b, const void *data, size_t len)
{
    if (len > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 4096;
        while (len > cap - b->len)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d)
            return -1;
        b->data = d;
        b->cap = cap;
    }
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

void qr_le_put(unsigned char *d, uint64_t v, int nbytes)
{
    for (int i = 0; i < nbytes; i++)
        d[i] = (unsigned char)(v >> (8 * i));
}

uint64_t qr_le_get(const unsigned char *d, int nbytes)
{
    uint64_t v = 0;
    for (int i = nbytes - 1; i >= 0; i--)
        v = v << 8 | d[i];
    return v;
}

static void put_be32(unsigned char *d, uint32_t v)
{
    d[0] = (unsigned char)(v >> 24);
    d[1] = (unsigned char)(v >> 16);
    d[2] = (unsigned char)(v >> 8);
    d[3] = (unsigned char)v;
}

/* One PNG chunk: length, type, data, the CRC of type and data. */
static int put_chunk(qr_png_buffer *b, const char *type, const unsigned char *data, uint32_t len)
{
    unsigned char head[8], tail[4];
    put_be32(head, len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0L, head + 4, 4);
    if (len) /* crc32 of a NULL buffer answers the initial value, not crc */
        crc = crc32(crc, data, len);
    put_be32(tail, (uint32_t)crc);
    return qr_png_buffer_put(b, head, 8) || qr_png_buffer_put(b, data, len) ||
           qr_png_buffer_put(b, tail, 4);
}

/* PNG's rule for a keyword: 1 to 79 printable Latin-1 characters, no
 * leading, trailing or consecutive spaces; we take ASCII only. */
static int valid_key(const char *k)
{
    size_t n = strlen(k);
    if (n < 1 || n > 79 || k[0] == ' ' || k[n - 1] == ' ' || strstr(k, "  "))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (k[i] < 0x20 || k[i] > 0x7E)
            return 0;
    return 1;
}

/* Whether v goes into a tEXt chunk as it is: printable ASCII and '\n'. */
static int plain_text(const char *v)
{
    for (; *v; v++)
        if ((*v < 0x20 || *v > 0x7E) && *v != '\n')
            return 0;
    return 1;
}

/* One tEXt (or iTXt, for text that is not plain ASCII) chunk. */
static qr_status put_text(qr_png_buffer *b, const char *name, const qr_image_text *t,
                          qr_error *err)
{
    const size_t klen = strlen(t->key), vlen = strlen(t->value);
    const int itxt = !plain_text(t->value);
    /* iTXt: key NUL, compression flag and method, empty language tag and
     * translated keyword (NUL each), then the text; a byte that is not
     * UTF-8 becomes the 3 bytes of U+FFFD */
    const size_t cap = klen + 1 + (itxt ? 4 + 3 * vlen : vlen);
    if (cap > 0x7FFFFFFF)
        return qr_fail(err, QR_ERR_INVALID, "%s: PNG text '%s' is too long", name, t->key);
    unsigned char *d = malloc(cap ? cap : 1);
    if (!d)
        return qr_fail(err, QR_ERR_NOMEM, "%s: out of memory writing PNG text", name);
    size_t n = 0;
    memcpy(d, t->key, klen + 1);
    n = klen + 1;
    if (itxt) {
        memset(d + n, 0, 4);
        n += 4;
        for (size_t at = 0; at < vlen;) {
            size_t len = qr_utf8_char_len(t->value + at, vlen - at);
            if (len == 0) {
                memcpy(d + n, "\xEF\xBF\xBD", 3);
                n += 3;
                at++;
            } else {
                memcpy(d + n, t->value + at, len);
                n += len;
                at += len;
            }
        }
    } else {
        memcpy(d + n, t->value, vlen);
        n += vlen;
    }
    int bad = put_chunk(b, itxt ? "iTXt" : "tEXt", d, (uint32_t)n);
    free(d);
    return bad ? qr_fail(err, QR_ERR_NOMEM, "%s: out of memory writing PNG text", name) : QR_OK;
}

qr_status qr_png_head(qr_png_buffer *b, const char *name, int32_t width, int32_t height,
                      int pixel_bytes, const qr_image_text *text, int ntext, qr_error *err)
{
    for (int i = 0; i < ntext; i++)
        if (!text[i].key || !text[i].value || !valid_key(text[i].key))
            return qr_fail(err, QR_ERR_INVALID, "%s: PNG text key '%s' is not a PNG keyword (1 to 79 "
                           "printable ASCII characters, no leading, trailing or double spaces)",
                           name, text[i].key ? text[i].key : "(null)");
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char ihdr[13];
    put_be32(ihdr, (uint32_t)width);
    put_be32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = pixel_bytes == 4 ? 6 : 2; /* colour type: RGBA, RGB */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering, types 0-4 */
    ihdr[12] = 0; /* no interlace */
    if (qr_png_buffer_put(b, sig, sizeof sig) || put_chunk(b, "IHDR", ihdr, sizeof ihdr))
        return qr_fail(err, QR_ERR_NOMEM, "%s: out of memory writing the PNG header", name);
    qr_status st = QR_OK;
    for (int i = 0; st == QR_OK && i < ntext; i++)
        st = put_text(b, name, &text[i], err);
    return st;
}
