/* scene_file.c — .circles files (read and write) and CS149 .par dumps (read).
 *
 * The format is documented in docs/scene-format.md. Readers stream the file
 * through a bounded line buffer: a file of any size is read line by line,
 * and memory grows with the circles actually read (the header's count is
 * only trusted as an upper bound, never as an allocation size), so a lying
 * or hostile header cannot make us allocate much or read out of bounds.
 * Every rejection names the file and line: "path:line: what is wrong".
 */
#include "scene_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/atomic_file.h"

/* Longest accepted line, in bytes without the newline. A circle line is
 * about 110 bytes; this leaves room for generous spacing and comments. */
#define QR_LINE_MAX 4096
/* Circles allocated before the first growth: the header's count is not
 * trusted beyond this. */
#define QR_INITIAL_CAPACITY 65536
#define QR_FIELDS 7
/* How much of a bad token or line an error message quotes. */
#define QR_QUOTE 40

typedef struct qr_line_reader {
    FILE *fp;
    const char *path;
    long line;                  /* number of the line in buf, 1-based */
    char buf[QR_LINE_MAX + 1];
} qr_line_reader;

/* Reads the next line into r->buf (without '\n', trailing '\r' kept: it is
 * whitespace to the tokenizer). Returns 1 for a line, 0 at end of file, or
 * -1 after recording an error in *st. */
static int qr_read_line(qr_line_reader *r, qr_status *st, qr_error *err)
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

/* Reads the next line that is not a comment or blank: 1, 0 at EOF, -1. */
static int qr_next_content_line(qr_line_reader *r, qr_status *st, qr_error *err)
{
    int got;
    while ((got = qr_read_line(r, st, err)) == 1)
        if (!qr_is_skippable(r->buf))
            return 1;
    return got;
}

/* A finite float from a whole token; `what` names the field. */
static qr_status qr_parse_float(const qr_line_reader *r, const char *tok, const char *what,
                                float *out, qr_error *err)
{
    char *end;
    float v = strtof(tok, &end);
    if (end == tok || *end != '\0')
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
static qr_status qr_parse_count(const qr_line_reader *r, const char *tok, int32_t *out,
                                qr_error *err)
{
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
    *out = (int32_t)v;
    return QR_OK;
}

/* Moves the first `count` circles of *s into a scene of `cap` circles. */
static qr_status qr_grow(qr_scene **s, int32_t count, int32_t cap, qr_error *err)
{
    qr_scene *d;
    qr_status st = qr_scene_alloc(cap, QR_ANIM_NONE, &d, err);
    if (st != QR_OK)
        return st;
    const qr_scene *o = *s;
    size_t bytes = (size_t)count * sizeof(float);
    memcpy(d->x, o->x, bytes);
    memcpy(d->y, o->y, bytes);
    memcpy(d->z, o->z, bytes);
    memcpy(d->r, o->r, bytes);
    memcpy(d->red, o->red, bytes);
    memcpy(d->green, o->green, bytes);
    memcpy(d->blue, o->blue, bytes);
    qr_scene_free(*s);
    *s = d;
    return QR_OK;
}

typedef enum qr_file_kind { QR_FILE_CIRCLES, QR_FILE_PAR } qr_file_kind;

static const char *const qr_circles_fields[QR_FIELDS] = {"x", "y", "z", "r", "R", "G", "B"};
static const char *const qr_par_fields[QR_FIELDS] = {"x", "y", "z", "vx", "vy", "vz", "r"};

/* Parses the header line in r->buf into *n. */
static qr_status qr_parse_header(const qr_line_reader *r, qr_file_kind kind, int32_t *n,
                                 qr_error *err)
{
    char *tok[2];
    char line[QR_LINE_MAX + 1];
    memcpy(line, r->buf, sizeof line);
    int nt = qr_tokenize(line, tok, 2);
    if (kind == QR_FILE_CIRCLES) {
        if (nt != 2 || strcmp(tok[0], "circles") != 0)
            return qr_fail(err, QR_ERR_PARSE, "%s:%ld: expected the header `circles N`, found '%.*s'",
                           r->path, r->line, QR_QUOTE, r->buf);
        return qr_parse_count(r, tok[1], n, err);
    }
    if (nt != 1)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s:%ld: expected the particle count N on its own, found '%.*s'",
                       r->path, r->line, QR_QUOTE, r->buf);
    return qr_parse_count(r, tok[0], n, err);
}

/* Reads the circles of either format into a new scene. */
static qr_status qr_read_scene(const char *path, qr_file_kind kind, qr_scene **out, qr_error *err)
{
    *out = NULL;
    qr_line_reader *r = malloc(sizeof *r);
    if (!r)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory reading %s", path);
    r->path = path;
    r->line = 0;
    r->fp = fopen(path, "rb");
    if (!r->fp) {
        qr_status st = qr_fail(err, QR_ERR_IO, "%s: %s", path, strerror(errno));
        free(r);
        return st;
    }

    qr_status st = QR_OK;
    qr_scene *s = NULL;
    const char *const *names = kind == QR_FILE_CIRCLES ? qr_circles_fields : qr_par_fields;
    const char *expect = kind == QR_FILE_CIRCLES ? "`circles N`" : "the particle count N";
    struct stat sb;
    if (fstat(fileno(r->fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        st = qr_fail(err, QR_ERR_IO, "%s: is a directory", path);
        goto done;
    }

    int got = qr_next_content_line(r, &st, err);
    if (got < 0)
        goto done;
    if (got == 0) {
        st = qr_fail(err, QR_ERR_PARSE, "%s:%ld: empty file: expected %s", path,
                     r->line > 0 ? r->line : 1, expect);
        goto done;
    }
    int32_t n;
    long header_line = r->line;
    if ((st = qr_parse_header(r, kind, &n, err)) != QR_OK)
        goto done;

    int32_t cap = n < QR_INITIAL_CAPACITY ? n : QR_INITIAL_CAPACITY;
    if ((st = qr_scene_alloc(cap, QR_ANIM_NONE, &s, err)) != QR_OK)
        goto done;
    int32_t count = 0;
    while ((got = qr_next_content_line(r, &st, err)) == 1) {
        if (count == n) {
            st = qr_fail(err, QR_ERR_PARSE,
                         "%s:%ld: more than the %ld circles the header on line %ld announces",
                         path, r->line, (long)n, header_line);
            goto done;
        }
        char *tok[QR_FIELDS];
        int nt = qr_tokenize(r->buf, tok, QR_FIELDS);
        if (nt != QR_FIELDS) {
            st = qr_fail(err, QR_ERR_PARSE, "%s:%ld: expected %d numbers (%s %s %s %s %s %s %s), found %d",
                         path, r->line, QR_FIELDS, names[0], names[1], names[2], names[3],
                         names[4], names[5], names[6], nt);
            goto done;
        }
        float v[QR_FIELDS];
        for (int k = 0; k < QR_FIELDS; ++k)
            if ((st = qr_parse_float(r, tok[k], names[k], &v[k], err)) != QR_OK)
                goto done;
        float radius = kind == QR_FILE_CIRCLES ? v[3] : v[6];
        if (radius < 0.0f) {
            st = qr_fail(err, QR_ERR_PARSE, "%s:%ld: negative radius %.9g", path, r->line,
                         (double)radius);
            goto done;
        }
        if (count == cap) {
            /* Geometric growth up to the announced count, never beyond. */
            int32_t grown = cap > n / 2 ? n : cap * 2;
            if ((st = qr_grow(&s, count, grown, err)) != QR_OK)
                goto done;
            cap = grown;
        }
        s->x[count] = v[0];
        s->y[count] = v[1];
        s->z[count] = v[2];
        s->r[count] = radius;
        if (kind == QR_FILE_CIRCLES) {
            s->red[count] = v[4];
            s->green[count] = v[5];
            s->blue[count] = v[6];
        } else {
            s->red[count] = s->green[count] = s->blue[count] = 1.0f;
        }
        count++;
    }
    if (got < 0)
        goto done;
    if (count < n) {
        st = qr_fail(err, QR_ERR_PARSE,
                     "%s:%ld: unexpected end of file: expected %ld circles, found %ld", path,
                     r->line, (long)n, (long)count);
        goto done;
    }
    /* count == n, and cap only ever grows to n, so the block is exact. */
    qr_scene_name_from_path(s, path);
    s->shading = kind == QR_FILE_PAR ? QR_SHADE_SNOW : QR_SHADE_FLAT;

done:
    fclose(r->fp);
    free(r);
    if (st != QR_OK) {
        qr_scene_free(s);
        return st;
    }
    *out = s;
    return QR_OK;
}

qr_status qr_scene_read_circles(const char *path, qr_scene **out, qr_error *err)
{
    return qr_read_scene(path, QR_FILE_CIRCLES, out, err);
}

qr_status qr_scene_read_par(const char *path, qr_scene **out, qr_error *err)
{
    return qr_read_scene(path, QR_FILE_PAR, out, err);
}

qr_status qr_scene_write_circles(const qr_scene *scene, const char *path, qr_error *err)
{
    /* A written file must always read back: refuse what the reader rejects. */
    for (int32_t i = 0; i < scene->n; ++i) {
        float v[QR_FIELDS] = {scene->x[i],   scene->y[i],     scene->z[i],   scene->r[i],
                              scene->red[i], scene->green[i], scene->blue[i]};
        for (int k = 0; k < QR_FIELDS; ++k)
            if (!isfinite(v[k]))
                return qr_fail(err, QR_ERR_INVALID,
                               "%s: cannot write circle %ld: %s is not a finite number", path,
                               (long)i, qr_circles_fields[k]);
        if (v[3] < 0.0f)
            return qr_fail(err, QR_ERR_INVALID, "%s: cannot write circle %ld: negative radius",
                           path, (long)i);
    }

    qr_atomic_file af;
    qr_status st = qr_atomic_open(&af, path, err);
    if (st != QR_OK)
        return st;
    if (fprintf(af.fp, "circles %ld\n", (long)scene->n) < 0)
        goto write_error;
    for (int32_t i = 0; i < scene->n; ++i) {
        /* %.9g gives every float back bit for bit through strtof. */
        if (fprintf(af.fp, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", (double)scene->x[i],
                    (double)scene->y[i], (double)scene->z[i], (double)scene->r[i],
                    (double)scene->red[i], (double)scene->green[i], (double)scene->blue[i]) < 0)
            goto write_error;
    }
    return qr_atomic_commit(&af, err);

write_error:;
    int e = errno;
    qr_atomic_abort(&af);
    return qr_fail(err, QR_ERR_IO, "%s: write failed: %s", path, strerror(e));
}
