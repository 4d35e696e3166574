/* scene_lines.c — the lines of text scenes: reading a line (from stdio or
 * from memory), tokens, numbers, the header and the circle lines.
 *
 * Both text readers (serial, scene_file.c; parallel, scene_parse.c) are
 * built from these functions, so they accept the same files and word every
 * error the same way: "path:line: what is wrong". A line is checked as it
 * is read (NUL bytes, length), then tokenized in a bounded buffer; the
 * header's count is only trusted as an upper bound, never as an allocation
 * size.
 */
#include "scene/io/scene_text.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_internal.h"

/* How much of a bad token or line an error message quotes. */
#define QR_QUOTE 40

static const char *const qr_circles_fields[QR_FIELDS] = {"x", "y", "z", "r", "R", "G", "B"};
static const char *const qr_par_fields[QR_FIELDS] = {"x", "y", "z", "vx", "vy", "vz", "r"};

/* ---- lines ---------------------------------------------------------------- */

static int qr_read_line_stdio(qr_line_reader *r, qr_status *st, qr_error *err)
{
    size_t len = 0;
    int c;
    int any = 0;
    while ((c = getc_unlocked(r->fp)) != EOF) {
        any = 1;
        if (c == '\n')
            break;
        if (len == QR_LINE_MAX) {
            *st = qr_fail(err, QR_ERR_PARSE, "%s:%ld: line too long (more than %d bytes)",
                          r->path, r->line + 1, QR_LINE_MAX);
            return -1;
        }
        if (c == '\0') {
            *st = qr_fail(err, QR_ERR_PARSE, "%s:%ld: NUL byte in a text file", r->path,
                          r->line + 1);
            return -1;
        }
        r->buf[len++] = (char)c;
    }
    if (ferror(r->fp)) {
        *st = qr_fail(err, QR_ERR_IO, "%s: read error: %s", r->path, strerror(errno));
        return -1;
    }
    if (!any)
        return 0;
    r->buf[len] = '\0';
    r->line++;
    return 1;
}

/* The same checks in the same order as the stdio reader: a NUL among the
 * first QR_LINE_MAX bytes, then a line longer than that. */
static int qr_read_line_mem(qr_line_reader *r, qr_status *st, qr_error *err)
{
    if (r->pos == r->end)
        return 0;
    size_t avail = (size_t)(r->end - r->pos);
    const char *nl = memchr(r->pos, '\n', avail);
    size_t len = nl ? (size_t)(nl - r->pos) : avail;
    size_t scan = len < QR_LINE_MAX ? len : QR_LINE_MAX;
    if (memchr(r->pos, '\0', scan)) {
        *st = qr_fail(err, QR_ERR_PARSE, "%s:%ld: NUL byte in a text file", r->path, r->line + 1);
        return -1;
    }
    if (len > QR_LINE_MAX) {
        *st = qr_fail(err, QR_ERR_PARSE, "%s:%ld: line too long (more than %d bytes)", r->path,
                      r->line + 1, QR_LINE_MAX);
        return -1;
    }
    memcpy(r->buf, r->pos, len);
    r->buf[len] = '\0';
    r->pos = nl ? nl + 1 : r->end;
    r->line++;
    return 1;
}

/* Reads the next line into r->buf (without '\n'; a trailing '\r' is kept:
 * it is whitespace to the tokenizer). Returns 1 for a line, 0 at the end,
 * or -1 after recording an error in *st. */
static int qr_read_line(qr_line_reader *r, qr_status *st, qr_error *err)
{
    int got = r->fp ? qr_read_line_stdio(r, st, err) : qr_read_line_mem(r, st, err);
    /* A UTF-8 byte order mark at the very start of the file (editors on
     * Windows write one) is skipped; anywhere else it is an ordinary byte,
     * also at the start of a chunk of the parallel reader (at_start 0). */
    if (got == 1 && r->at_start && r->line == 1 && memcmp(r->buf, "\xEF\xBB\xBF", 3) == 0)
        memmove(r->buf, r->buf + 3, strlen(r->buf + 3) + 1);
    return got;
}

static int qr_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Splits s in place into at most max tokens; returns the number of tokens
 * there are (which may exceed max: the extra ones are counted, not kept). */
static int qr_tokenize(char *s, char **tok, int max)
{
    int n = 0;
    for (;;) {
        while (qr_is_space(*s))
            ++s;
        if (!*s)
            return n;
        if (n < max)
            tok[n] = s;
        ++n;
        while (*s && !qr_is_space(*s))
            ++s;
        if (*s)
            *s++ = '\0';
    }
}

/* Blank lines and lines whose first non-blank character is '#'. */
static int qr_is_skippable(const char *s)
{
    while (qr_is_space(*s))
        ++s;
    return *s == '\0' || *s == '#';
}

/* Reads the next line that is not a comment or blank: 1, 0 at the end, -1. */
static int qr_next_content_line(qr_line_reader *r, qr_status *st, qr_error *err)
{
    int got;
    while ((got = qr_read_line(r, st, err)) == 1)
        if (!qr_is_skippable(r->buf))
            return 1;
    return got;
}

/* ---- numbers --------------------------------------------------------------- */

static const double qr_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A plain decimal [+-]digits[.digits][e[+-]digits] converted exactly as
 * strtof does, or 0 to leave the token to strtof.
 *
 * With a significand m <= 2^53 and a power 10^k with |k| <= 22, both are
 * exact doubles, so m * 10^k or m / 10^k is one correctly rounded double d.
 * Rounding d to float then gives strtof's float unless a float midpoint lies
 * between d and the exact value; a midpoint is itself a double, and d is the
 * double nearest the exact value, so that can only happen when d is the
 * midpoint: those (and subnormal or overflowing results) go to strtof. */
static int qr_fast_float_at(const char *s, const char **endp, float *out)
{
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    uint64_t m = 0;
    int sig = 0, exp10 = 0, any = 0;
    for (; *p >= '0' && *p <= '9'; ++p) {
        any = 1;
        if (m == 0 && *p == '0')
            continue;
        if (++sig > 19)
            return 0;
        m = m * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.') {
        for (++p; *p >= '0' && *p <= '9'; ++p) {
            any = 1;
            exp10--;
            if (m == 0 && *p == '0')
                continue;
            if (++sig > 19)
                return 0;
            m = m * 10 + (uint64_t)(*p - '0');
        }
    }
    if (!any)
        return 0;
    if (*p == 'e' || *p == 'E') {
        ++p;
        int eneg = 0;
        if (*p == '+' || *p == '-')
            eneg = *p++ == '-';
        int e = 0, digits = 0;
        for (; *p >= '0' && *p <= '9'; ++p) {
            if (++digits > 4)
                return 0;
            e = e * 10 + (*p - '0');
        }
        if (digits == 0)
            return 0;
        exp10 += eneg ? -e : e;
    }
    *endp = p;
    if (m == 0) {
        *out = neg ? -0.0f : 0.0f;
        return 1;
    }
    if (m > (UINT64_C(1) << 53) || exp10 < -22 || exp10 > 22)
        return 0;
    double d = (double)m;
    d = exp10 < 0 ? d / qr_pow10[-exp10] : d * qr_pow10[exp10];
    if (!(d >= (double)FLT_MIN && d <= (double)FLT_MAX))
        return 0;
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    /* The 29 mantissa bits a normal float drops: 1000...0 is a midpoint. */
    if ((b & ((UINT64_C(1) << 29) - 1)) == (UINT64_C(1) << 28))
        return 0;
    float f = (float)d;
    *out = neg ? -f : f;
    return 1;
}

/* The same for a whole NUL-terminated token. */
static int qr_fast_float(const char *tok, float *out)
{
    const char *end;
    float v;
    if (!qr_fast_float_at(tok, &end, &v) || *end != '\0')
        return 0;
    *out = v;
    return 1;
}

int qr_text_parse_float(const char *tok, int fast, float *out)
{
    if (fast && qr_fast_float(tok, out))
        return 1;
    char *end;
    float v = strtof(tok, &end);
    if (end == tok || *end != '\0')
        return 0;
    *out = v;
    return 1;
}

/* A finite float from a whole token; `what` names the field. */
static qr_status qr_parse_float(const qr_line_reader *r, const char *tok, const char *what,
                                float *out, qr_error *err)
{
    float v;
    if (!qr_text_parse_float(tok, r->fast, &v))
        return qr_fail(err, QR_ERR_PARSE, "%s:%ld: %s: '%.*s' is not a number", r->path, r->line,
                       what, QR_QUOTE, tok);
    /* errno's ERANGE is not consulted: it also flags underflow to a
     * denormal or zero, which we accept; only overflow (to infinity) is
     * out of range, and isinf catches it. */
    if (isnan(v) || isinf(v))
        return qr_fail(err, QR_ERR_PARSE, "%s:%ld: %s: '%.*s' is not a finite number", r->path,
                       r->line, what, QR_QUOTE, tok);
    *out = v;
    return QR_OK;
}

/* The circle count of a header: a whole non-negative decimal integer no
 * larger than QR_SCENE_MAX_CIRCLES. */
static qr_status qr_parse_count(const qr_line_reader *r, const char *tok, int64_t *out,
                                qr_error *err)
{
    /* digits only, as the writer writes it: strtoll alone would also take
     * "+5" (and the CLI's integer options take no sign either) */
    if (tok[0] == '+')
        return qr_fail(err, QR_ERR_PARSE, "%s:%ld: circle count '%.*s': expected digits only, no sign",
                       r->path, r->line, QR_QUOTE, tok);
    char *end;
    errno = 0;
    long long v = strtoll(tok, &end, 10);
    if (end == tok || *end != '\0')
        return qr_fail(err, QR_ERR_PARSE, "%s:%ld: circle count '%.*s' is not an integer",
                       r->path, r->line, QR_QUOTE, tok);
    if (v < 0)
        return qr_fail(err, QR_ERR_PARSE, "%s:%ld: circle count %.*s is negative", r->path,
                       r->line, QR_QUOTE, tok);
    if (errno == ERANGE || v > QR_SCENE_MAX_CIRCLES)
        return qr_fail(err, QR_ERR_PARSE, "%s:%ld: circle count %.*s exceeds the limit of %d",
                       r->path, r->line, QR_QUOTE, tok, QR_SCENE_MAX_CIRCLES);
    *out = (int64_t)v;
    return QR_OK;
}

/* ---- header and circle lines ------------------------------------------------ */

qr_status qr_text_read_header(qr_line_reader *r, qr_text_kind kind, int64_t *n,
                              long *header_line, qr_error *err)
{
    qr_status st = QR_OK;
    int got = qr_next_content_line(r, &st, err);
    if (got < 0)
        return st;
    /* an empty file is wrong at line 1; a file of blank and comment lines
     * at its end, its last line, as a file cut short is */
    const char *expected = kind == QR_TEXT_CIRCLES ? "'circles N'" : "the particle count N";
    if (got == 0 && r->line == 0)
        return qr_fail(err, QR_ERR_PARSE, "%s:1: empty file: expected %s", r->path, expected);
    if (got == 0)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s:%ld: no header: only blank and comment lines, expected %s", r->path,
                       r->line, expected);
    *header_line = r->line;
    char *tok[2];
    char line[QR_LINE_MAX + 1];
    memcpy(line, r->buf, sizeof line);
    int nt = qr_tokenize(line, tok, 2);
    if (kind == QR_TEXT_CIRCLES) {
        if (nt != 2 || strcmp(tok[0], "circles") != 0)
            return qr_fail(err, QR_ERR_PARSE, "%s:%ld: expected the header 'circles N', found '%.*s'",
                           r->path, r->line, QR_QUOTE, r->buf);
        return qr_parse_count(r, tok[1], n, err);
    }
    if (nt != 1)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s:%ld: expected the particle count N on its own, found '%.*s'",
                       r->path, r->line, QR_QUOTE, r->buf);
    return qr_parse_count(r, tok[0], n, err);
}

/* Circles allocated before the first growth. */
#define QR_INITIAL_CAPACITY 65536

/* Room for one more circle: geometric growth, never beyond b->max. */
static qr_status qr_buf_reserve(qr_circle_buf *b, const char *path, qr_error *err)
{
    if (b->n < b->cap)
        return QR_OK;
    size_t cap = b->cap ? b->cap * 2 : QR_INITIAL_CAPACITY;
    if (cap > b->max)
        cap = b->max;
    float *v = realloc(b->v, cap * QR_FIELDS * sizeof(float));
    if (!v)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory reading %s (%zu circles)", path, b->n);
    b->v = v;
    b->cap = cap;
    return QR_OK;
}

/* The common line of a mapped file in one pass, without copying it: seven
 * plain decimals the fast path converts, separated by blanks, a radius that
 * is not negative, and a '\n' within QR_LINE_MAX bytes. Returns 1 with the
 * line consumed and v filled, or 0 to leave the line, untouched, to the
 * general code (comments, blank lines, other numbers, every error). The
 * '\n' stops every scan, so nothing past it is read. */
static int qr_quick_line(qr_line_reader *r, qr_text_kind kind, float *v)
{
    const char *p = r->pos;
    size_t avail = (size_t)(r->end - p);
    const char *nl = memchr(p, '\n', avail < QR_LINE_MAX + 1 ? avail : QR_LINE_MAX + 1);
    if (!nl)
        return 0;
    for (int k = 0; k < QR_FIELDS; ++k) {
        while (qr_is_space(*p))
            ++p;
        if (!qr_fast_float_at(p, &p, &v[k]) || !(qr_is_space(*p) || *p == '\n'))
            return 0;
    }
    while (qr_is_space(*p))
        ++p;
    if (p != nl)
        return 0;
    if (kind == QR_TEXT_PAR) {
        v[3] = v[6];
        v[4] = v[5] = v[6] = 1.0f;
    }
    if (v[3] < 0.0f)
        return 0;
    r->pos = nl + 1;
    r->line++;
    return 1;
}

qr_status qr_text_parse_body(qr_line_reader *r, qr_text_kind kind, int64_t n, long header_line,
                             int64_t *count, qr_circle_buf *out, qr_error *err)
{
    const char *const *names = kind == QR_TEXT_CIRCLES ? qr_circles_fields : qr_par_fields;
    qr_status st = QR_OK;
    int got = 0;
    float v[QR_FIELDS];
    for (;;) {
        if (!r->fp && r->fast && *count < n && qr_quick_line(r, kind, v)) {
            if ((st = qr_buf_reserve(out, r->path, err)) != QR_OK)
                return st;
            memcpy(out->v + out->n * QR_FIELDS, v, sizeof v);
            out->n++;
            (*count)++;
            continue;
        }
        if ((got = qr_next_content_line(r, &st, err)) != 1)
            break;
        if (*count == n)
            return qr_fail(err, QR_ERR_PARSE,
                           "%s:%ld: more than the %lld circles the header on line %ld announces",
                           r->path, r->line, (long long)n, header_line);
        char *tok[QR_FIELDS];
        int nt = qr_tokenize(r->buf, tok, QR_FIELDS);
        if (nt != QR_FIELDS)
            return qr_fail(err, QR_ERR_PARSE,
                           "%s:%ld: expected %d numbers (%s %s %s %s %s %s %s), found %d", r->path,
                           r->line, QR_FIELDS, names[0], names[1], names[2], names[3], names[4],
                           names[5], names[6], nt);
        for (int k = 0; k < QR_FIELDS; ++k)
            if ((st = qr_parse_float(r, tok[k], names[k], &v[k], err)) != QR_OK)
                return st;
        if (kind == QR_TEXT_PAR) {
            v[3] = v[6];
            v[4] = v[5] = v[6] = 1.0f;
        }
        if (v[3] < 0.0f)
            return qr_fail(err, QR_ERR_PARSE, "%s:%ld: negative radius %.9g", r->path, r->line,
                           (double)v[3]);
        if ((st = qr_buf_reserve(out, r->path, err)) != QR_OK)
            return st;
        memcpy(out->v + out->n * QR_FIELDS, v, sizeof v);
        out->n++;
        (*count)++;
    }
    return got < 0 ? st : QR_OK;
}

qr_status qr_text_short_error(const char *path, long lines, int64_t n, int64_t count,
                              qr_error *err)
{
    return qr_fail(err, QR_ERR_PARSE,
                   "%s:%ld: unexpected end of file: expected %lld circles, found %lld", path,
                   lines, (long long)n, (long long)count);
}

void qr_text_copy_circles(const qr_circle_buf *b, qr_scene *s, size_t at)
{
    float *dst[QR_FIELDS] = {s->x, s->y, s->z, s->r, s->red, s->green, s->blue};
    const float *v = b->v;
    for (size_t i = 0; i < b->n; ++i, ++at, v += QR_FIELDS)
        for (int k = 0; k < QR_FIELDS; ++k)
            dst[k][at] = v[k];
}

void qr_text_finish_scene(qr_scene *s, const char *path, qr_text_kind kind)
{
    qr_scene_name_from_path(s, path);
    s->shading = kind == QR_TEXT_PAR ? QR_SHADE_SNOW : QR_SHADE_FLAT;
}
