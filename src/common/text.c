/* text.c — user text into terminal messages, JSON, CSV and XML (text.h). */
#include "common/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t qr_utf8_char_len(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    if (n == 0)
        return 0;
    if (p[0] < 0x80)
        return 1;
    size_t len;
    unsigned cp;
    unsigned min;
    if ((p[0] & 0xE0) == 0xC0) len = 2, cp = p[0] & 0x1Fu, min = 0x80;
    else if ((p[0] & 0xF0) == 0xE0) len = 3, cp = p[0] & 0x0Fu, min = 0x800;
    else if ((p[0] & 0xF8) == 0xF0) len = 4, cp = p[0] & 0x07u, min = 0x10000;
    else return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

size_t qr_utf8_prefix(const char *s, size_t n, size_t max)
{
    size_t at = 0;
    while (at < n) {
        size_t len = qr_utf8_char_len(s + at, n - at);
        if (len == 0)
            len = 1;
        if (at + len > max)
            break;
        at += len;
    }
    return at;
}

/* Whether the UTF-8 character c[0..len-1] is a C0, DEL or C1 control. */
static int is_control(const unsigned char *c, size_t len)
{
    if (len == 1)
        return c[0] < 0x20 || c[0] == 0x7F;
    return len == 2 && c[0] == 0xC2 && c[1] < 0xA0;
}

size_t qr_escape_terminal(char *dst, size_t size, const char *s)
{
    if (size == 0)
        return 0;
    size_t out = 0, n = strlen(s);
    for (size_t at = 0; at < n;) {
        const unsigned char *c = (const unsigned char *)s + at;
        size_t len = qr_utf8_char_len(s + at, n - at);
        char esc[16 * 4 + 1];
        size_t elen;
        if (len && !is_control(c, len)) {
            memcpy(esc, c, len);
            elen = len;
        } else {
            if (len == 0)
                len = 1;
            elen = 0;
            for (size_t i = 0; i < len; i++) {
                const char *named = c[i] == '\t' ? "\\t" : c[i] == '\n' ? "\\n" : c[i] == '\r' ? "\\r" : NULL;
                if (named) {
                    memcpy(esc + elen, named, 2);
                    elen += 2;
                } else {
                    static const char hex[] = "0123456789abcdef";
                    esc[elen++] = '\\';
                    esc[elen++] = 'x';
                    esc[elen++] = hex[c[i] >> 4];
                    esc[elen++] = hex[c[i] & 15];
                }
            }
        }
        if (out + elen > size - 1)
            break;
        memcpy(dst + out, esc, elen);
        out += elen;
        at += len;
    }
    dst[out] = '\0';
    return out;
}

void qr_json_write_string(FILE *fp, const char *s)
{
    size_t n = strlen(s);
    fputc('"', fp);
    for (size_t at = 0; at < n;) {
        const unsigned char c = (unsigned char)s[at];
        size_t len = qr_utf8_char_len(s + at, n - at);
        if (len == 0) {
            fputs("\\ufffd", fp);
            at++;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c < 0x20 || c == '<')
            fprintf(fp, "\\u%04x", c);
        else
            fwrite(s + at, 1, len, fp);
        at += len;
    }
    fputc('"', fp);
}

void qr_csv_write_field(FILE *fp, const char *s)
{
    size_t n = strlen(s);
    int quote = strpbrk(s, ",\"\r\n") != NULL ||
                (n > 0 && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t'));
    if (!quote) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', fp);
        fputc(*p, fp);
    }
    fputc('"', fp);
}

void qr_xml_write_text(FILE *fp, const char *s)
{
    size_t n = strlen(s);
    for (size_t at = 0; at < n;) {
        const unsigned char c = (unsigned char)s[at];
        size_t len = qr_utf8_char_len(s + at, n - at);
        if (len == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
            fputs("\xEF\xBF\xBD", fp); /* U+FFFD */
            at += len ? len : 1;
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&apos;", fp); break;
        default: fwrite(s + at, 1, len, fp);
        }
        at += len;
    }
}

/* The optimal string alignment distance between a and b, ASCII case
 * ignored: insertions, deletions, substitutions and swaps of two neighbours
 * ("snwo" is one from "snow"). Only names up to QR_SUGGEST_MAX bytes are
 * compared; longer ones answer a distance larger than any suggestion. */
#define QR_SUGGEST_MAX 32
static int edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > QR_SUGGEST_MAX || m > QR_SUGGEST_MAX)
        return QR_SUGGEST_MAX;
    int d[QR_SUGGEST_MAX + 1][QR_SUGGEST_MAX + 1];
    char x[QR_SUGGEST_MAX + 1], y[QR_SUGGEST_MAX + 1];
    for (size_t i = 0; i < n; ++i)
        x[i] = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] - 'A' + 'a') : a[i];
    for (size_t j = 0; j < m; ++j)
        y[j] = b[j] >= 'A' && b[j] <= 'Z' ? (char)(b[j] - 'A' + 'a') : b[j];
    for (size_t i = 0; i <= n; ++i)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; ++j)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; ++i) {
        for (size_t j = 1; j <= m; ++j) {
            int best = d[i - 1][j - 1] + (x[i - 1] != y[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[n][m];
}

const char *qr_text_nearest(const char *word, const char *const *words, int n)
{
    const size_t len = strlen(word);
    /* at most two edits, and fewer than half the word: "ab" suggests nothing */
    const int limit = len >= 6 ? 2 : len >= 3 ? 1 : 0;
    int best = limit + 1;
    const char *found = NULL;
    for (int i = 0; i < n; ++i) {
        const int d = edit_distance(word, words[i]);
        if (d < best) {
            best = d;
            found = words[i];
        }
    }
    return found;
}

int qr_text_parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    /* strtoull alone would accept " 12", "+12", "-1" (as a huge value) and
     * stop silently at "12abc": insist on digits only. */
    if (!text || text[0] < '0' || text[0] > '9')
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || v > max)
        return 0;
    *out = v;
    return 1;
}

qr_status qr_text_refuse(const char *name, const char *text, const char *expected, qr_error *err)
{
    return qr_fail(err, QR_ERR_INVALID, "%s: expected %s, got '%s'", name, expected,
                   text ? text : "");
}

qr_status qr_text_check_word(const char *name, const char *text, const char *const *words, int n,
                             const char *expected, int *index, qr_error *err)
{
    for (int i = 0; text && i < n; i++) {
        if (strcmp(text, words[i]) == 0) {
            *index = i;
            return QR_OK;
        }
    }
    return qr_text_refuse(name, text, expected, err);
}

qr_status qr_text_check_uint(const char *name, const char *text, uint64_t lo, uint64_t hi,
                             int how, const char *expected, uint64_t *out, qr_error *err)
{
    uint64_t v;
    int ok = qr_text_parse_u64(text, hi, &v);
    if (ok && v == 0 && (how & QR_UINT_OR_0)) {
        *out = 0;
        return QR_OK;
    }
    if (!ok || v < lo || ((how & QR_UINT_POW2) && (v & (v - 1))))
        return qr_text_refuse(name, text, expected, err);
    *out = v;
    return QR_OK;
}

qr_status qr_text_check_int32(const char *name, const char *text, int32_t lo, int32_t hi, int how,
                              const char *expected, int32_t *out, qr_error *err)
{
    uint64_t v = 0;
    qr_status st = qr_text_check_uint(name, text, (uint64_t)lo, (uint64_t)hi, how, expected, &v, err);
    if (st == QR_OK)
        *out = (int32_t)v;
    return st;
}
