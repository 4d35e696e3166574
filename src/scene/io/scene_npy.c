/* scene_npy.c — scenes as NumPy .npy files: float32 rows x y z r R G B.
 *
 * What is accepted is documented in docs/scene-format.md: format versions
 * 1.0, 2.0 and 3.0, dtype '<f4', C order, shape (N, 7), and nothing after
 * the data. The header is a Python dict literal; it is parsed here as the
 * small subset NumPy writes (strings, True/False, tuples of integers), which
 * is all a valid header of this kind can hold.
 *
 * The data is mapped and transposed into the scene's arrays by several
 * threads, each checking its rows as the .circles reader checks a line
 * (finite numbers, no negative radius); the first bad row in file order is
 * reported, so the answer does not depend on the thread count.
 */
#include "scene/scene_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "quadrender/threads.h"

#define QR_NPY_COLS 7
#define QR_NPY_ROW_BYTES (QR_NPY_COLS * 4)
/* The longest header we read; NumPy's own reader refuses far shorter ones. */
#define QR_NPY_HEADER_MAX (1u << 20)
/* Rows per transposition task. */
#define QR_NPY_TASK_ROWS 65536

static const char qr_npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
static const char *const qr_npy_fields[QR_NPY_COLS] = {"x", "y", "z", "r", "R", "G", "B"};

/* ---- the header dict ---------------------------------------------------------- */

typedef struct qr_npy_header {
    char descr[32];
    int fortran; /* 0, 1 */
    int ndim;
    int64_t shape[8];
    int have_descr, have_fortran, have_shape;
} qr_npy_header;

typedef struct qr_cursor {
    const char *p, *end;
} qr_cursor;

static void qr_skip_ws(qr_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int qr_accept(qr_cursor *c, char ch)
{
    qr_skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A quoted string without escapes, into out (truncated to cap - 1). */
static int qr_string(qr_cursor *c, char *out, size_t cap)
{
    qr_skip_ws(c);
    if (c->p == c->end || (*c->p != '\'' && *c->p != '"'))
        return 0;
    char q = *c->p++;
    size_t len = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || *c->p == '\n')
            return 0;
        if (len + 1 < cap)
            out[len++] = *c->p;
        c->p++;
    }
    if (c->p == c->end)
        return 0;
    c->p++;
    out[len] = '\0';
    return 1;
}

static int qr_word(qr_cursor *c, const char *w)
{
    qr_skip_ws(c);
    size_t len = strlen(w);
    if ((size_t)(c->end - c->p) < len || memcmp(c->p, w, len) != 0)
        return 0;
    c->p += len;
    return 1;
}

/* A non-negative decimal integer (Python 2 headers may add an 'L'). */
static int qr_integer(qr_cursor *c, int64_t *out)
{
    qr_skip_ws(c);
    int64_t v = 0;
    int digits = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        if (v > (INT64_MAX - 9) / 10)
            return 0;
        v = v * 10 + (*c->p++ - '0');
        digits++;
    }
    if (c->p < c->end && *c->p == 'L')
        c->p++;
    *out = v;
    return digits > 0;
}

static int qr_shape(qr_cursor *c, qr_npy_header *h)
{
    if (!qr_accept(c, '('))
        return 0;
    h->ndim = 0;
    for (;;) {
        if (qr_accept(c, ')'))
            return 1;
        if (h->ndim == 8 || !qr_integer(c, &h->shape[h->ndim++]))
            return 0;
        if (!qr_accept(c, ','))
            return qr_accept(c, ')');
    }
}

/* Parses the dict; returns NULL or what is wrong. */
static const char *qr_parse_dict(const char *text, size_t len, qr_npy_header *h)
{
    qr_cursor c = {text, text + len};
    memset(h, 0, sizeof *h);
    if (!qr_accept(&c, '{'))
        return "it does not start with '{'";
    for (;;) {
        if (qr_accept(&c, '}'))
            break;
        char key[32];
        if (!qr_string(&c, key, sizeof key) || !qr_accept(&c, ':'))
            return "expected a quoted key and ':'";
        if (strcmp(key, "descr") == 0) {
            if (h->have_descr++ || !qr_string(&c, h->descr, sizeof h->descr))
                return "'descr' is not a single type string";
        } else if (strcmp(key, "fortran_order") == 0) {
            if (h->have_fortran++)
                return "'fortran_order' appears twice";
            if (qr_word(&c, "True"))
                h->fortran = 1;
            else if (!qr_word(&c, "False"))
                return "'fortran_order' is neither True nor False";
        } else if (strcmp(key, "shape") == 0) {
            if (h->have_shape++ || !qr_shape(&c, h))
                return "'shape' is not a tuple of integers";
        } else {
            return "it has a key other than 'descr', 'fortran_order' and 'shape'";
        }
        if (!qr_accept(&c, ',')) {
            if (!qr_accept(&c, '}'))
                return "expected ',' or '}'";
            break;
        }
    }
    qr_skip_ws(&c);
    if (c.p != c.end)
        return "there is more than whitespace after the '}'";
    if (!h->have_descr || !h->have_fortran || !h->have_shape)
        return "it lacks one of 'descr', 'fortran_order' and 'shape'";
    return NULL;
}

/* ---- reading -------------------------------------------------------------------- */

typedef struct qr_npy_job {
    const unsigned char *data;
    qr_scene *scene;
    int64_t rows;
    int64_t *bad; /* per task: first bad row, or -1 */
} qr_npy_job;

static float qr_le_float(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static int qr_row_ok(const float *v)
{
    for (int k = 0; k < QR_NPY_COLS; ++k)
        if (!isfinite(v[k]))
            return 0;
    return !(v[3] < 0.0f);
}

static void qr_npy_task(void *ctx, int t)
{
    qr_npy_job *job = ctx;
    qr_scene *s = job->scene;
    int64_t a = (int64_t)t * QR_NPY_TASK_ROWS;
    int64_t b = a + QR_NPY_TASK_ROWS < job->rows ? a + QR_NPY_TASK_ROWS : job->rows;
    job->bad[t] = -1;
    const unsigned char *p = job->data + a * QR_NPY_ROW_BYTES;
    for (int64_t i = a; i < b; ++i, p += QR_NPY_ROW_BYTES) {
        float v[QR_NPY_COLS];
        for (int k = 0; k < QR_NPY_COLS; ++k)
            v[k] = qr_le_float(p + 4 * k);
        if (job->bad[t] < 0 && !qr_row_ok(v))
            job->bad[t] = i;
        s->x[i] = v[0];
        s->y[i] = v[1];
        s->z[i] = v[2];
        s->r[i] = v[3];
        s->red[i] = v[4];
        s->green[i] = v[5];
        s->blue[i] = v[6];
    }
}

/* The message of the first bad row (qr_scene_check_circles'), as a
 * malformed file's. */
static qr_status qr_bad_rows(const char *path, const qr_scene *s, qr_error *err)
{
    qr_scene_check_circles(s, path, err);
    if (err)
        err->status = QR_ERR_PARSE;
    return QR_ERR_PARSE;
}

/* Checks the header of the file's first `size` bytes at `map`; on success
 * *rows and *offset say where the data is. */
static qr_status qr_npy_check(const char *path, const unsigned char *map, uint64_t size,
                              int64_t *rows, uint64_t *offset, qr_error *err)
{
    size_t head = size < sizeof qr_npy_magic ? (size_t)size : sizeof qr_npy_magic;
    if (memcmp(map, qr_npy_magic, head) != 0)
        return qr_fail(err, QR_ERR_PARSE, "%s: not a NumPy .npy file (no \\x93NUMPY magic)",
                       path);
    if (size < 10)
        return qr_fail(err, QR_ERR_PARSE, "%s: truncated .npy header (%" PRIu64 " bytes)", path,
                       size);
    int major = map[6], minor = map[7];
    if (major < 1 || major > 3 || minor != 0)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: .npy format version %d.%d is not supported (1.0, 2.0 and 3.0 are)",
                       path, major, minor);
    uint64_t prefix = major == 1 ? 10 : 12;
    if (size < prefix)
        return qr_fail(err, QR_ERR_PARSE, "%s: truncated .npy header (%" PRIu64 " bytes)", path,
                       size);
    uint64_t hlen = (uint64_t)map[8] | (uint64_t)map[9] << 8;
    if (major > 1)
        hlen |= (uint64_t)map[10] << 16 | (uint64_t)map[11] << 24;
    if (hlen > QR_NPY_HEADER_MAX)
        return qr_fail(err, QR_ERR_PARSE, "%s: .npy header length %" PRIu64 " exceeds %u bytes",
                       path, hlen, QR_NPY_HEADER_MAX);
    if (prefix + hlen > size)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: truncated: the .npy header says it is %" PRIu64
                       " bytes long, but the file ends after %" PRIu64,
                       path, hlen, size - prefix);
    qr_npy_header h;
    const char *why = qr_parse_dict((const char *)map + prefix, (size_t)hlen, &h);
    if (why)
        return qr_fail(err, QR_ERR_PARSE, "%s: bad .npy header: %s", path, why);
    if (strcmp(h.descr, "<f4") != 0)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: dtype '%s' is not supported: expected '<f4' (little-endian float32)",
                       path, h.descr);
    if (h.fortran)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: fortran_order True is not supported: expected C order", path);
    if (h.ndim != 2 || h.shape[1] != QR_NPY_COLS) {
        char shape[160];
        int at = snprintf(shape, sizeof shape, "(");
        for (int k = 0; k < h.ndim && at < 120; ++k)
            at += snprintf(shape + at, sizeof shape - (size_t)at, "%s%" PRId64, k ? ", " : "",
                           h.shape[k]);
        snprintf(shape + at, sizeof shape - (size_t)at, h.ndim == 1 ? ",)" : ")");
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: shape %s is not supported: expected (N, 7), rows of x y z r R G B",
                       path, shape);
    }
    int64_t n = h.shape[0];
    if (n > QR_SCENE_MAX_CIRCLES)
        return qr_fail(err, QR_ERR_PARSE, "%s: %" PRId64 " circles exceed the limit of %d", path,
                       n, QR_SCENE_MAX_CIRCLES);
    uint64_t need = (uint64_t)n * QR_NPY_ROW_BYTES, have = size - prefix - hlen;
    if (have < need)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: truncated: shape (%" PRId64 ", 7) needs %" PRIu64
                       " bytes of data, the file has %" PRIu64,
                       path, n, need, have);
    if (have > need)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: %" PRIu64 " bytes follow the data of shape (%" PRId64 ", 7)", path,
                       have - need, n);
    *rows = n;
    *offset = prefix + hlen;
    return QR_OK;
}

qr_status qr_scene_read_npy(const char *path, qr_scene **out, qr_error *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return qr_fail(err, QR_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return qr_fail(err, QR_ERR_IO, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return qr_fail(err, QR_ERR_IO, "%s: %s", path,
                       S_ISDIR(sb.st_mode) ? "is a directory" : "is not a regular file");
    }
    uint64_t size = (uint64_t)sb.st_size;
    if (size == 0) {
        close(fd);
        return qr_fail(err, QR_ERR_PARSE, "%s: empty file, not a NumPy .npy file", path);
    }
    void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (map == MAP_FAILED)
        return qr_fail(err, QR_ERR_IO, "%s: cannot map: %s", path, strerror(e));

    int64_t rows = 0;
    uint64_t offset = 0;
    qr_npy_job job = {0};
    qr_status st = qr_npy_check(path, map, size, &rows, &offset, err);
    if (st != QR_OK)
        goto done;
    if ((st = qr_scene_create((int32_t)rows, QR_ANIM_NONE, &job.scene, err)) != QR_OK)
        goto done;
    int tasks = (int)((rows + QR_NPY_TASK_ROWS - 1) / QR_NPY_TASK_ROWS);
    job.data = (const unsigned char *)map + offset;
    job.rows = rows;
    job.bad = malloc(((size_t)tasks + 1) * sizeof *job.bad);
    if (!job.bad) {
        st = qr_fail(err, QR_ERR_NOMEM, "out of memory reading %s", path);
        goto done;
    }
    qr_parallel_for(tasks, qr_threads(), qr_npy_task, &job);
    for (int t = 0; t < tasks; ++t)
        if (job.bad[t] >= 0) {
            st = qr_bad_rows(path, job.scene, err); /* the first, job.bad[t] */
            goto done;
        }
    qr_scene_name_from_path(job.scene, path);
    *out = job.scene;
    job.scene = NULL;

done:
    free(job.bad);
    qr_scene_destroy(job.scene);
    munmap(map, (size_t)size);
    return st;
}

/* ---- writing -------------------------------------------------------------------- */

/* Rows per write. */
#define QR_NPY_WRITE_ROWS 4096

qr_status qr_scene_write_npy(const qr_scene *scene, const char *path, qr_error *err)
{
    /* A written file must always read back: refuse what the reader rejects. */
    for (int32_t i = 0; i < scene->n; ++i) {
        float v[QR_NPY_COLS] = {scene->x[i],   scene->y[i],     scene->z[i],   scene->r[i],
                                scene->red[i], scene->green[i], scene->blue[i]};
        for (int k = 0; k < QR_NPY_COLS; ++k)
            if (!isfinite(v[k]))
                return qr_fail(err, QR_ERR_INVALID,
                               "%s: cannot write circle %ld: %s is not a finite number", path,
                               (long)i, qr_npy_fields[k]);
        if (v[3] < 0.0f)
            return qr_fail(err, QR_ERR_INVALID, "%s: cannot write circle %ld: negative radius",
                           path, (long)i);
    }

    /* Version 1.0, laid out as numpy.save lays it out: the dict, then
     * spaces and a newline so that the data starts at a multiple of 64. */
    char head[192];
    memcpy(head, qr_npy_magic, sizeof qr_npy_magic);
    head[6] = 1;
    head[7] = 0;
    int dict = snprintf(head + 10, sizeof head - 10,
                        "{'descr': '<f4', 'fortran_order': False, 'shape': (%ld, 7), }",
                        (long)scene->n);
    size_t total = (10 + (size_t)dict + 1 + 63) / 64 * 64;
    memset(head + 10 + dict, ' ', total - 10 - (size_t)dict - 1);
    head[total - 1] = '\n';
    size_t hlen = total - 10;
    head[8] = (char)(hlen & 0xff);
    head[9] = (char)(hlen >> 8);

    unsigned char *rows = malloc(QR_NPY_WRITE_ROWS * QR_NPY_ROW_BYTES);
    if (!rows)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory writing %s", path);
    qr_atomic_file af;
    qr_status st = qr_atomic_open(&af, path, err);
    if (st != QR_OK) {
        free(rows);
        return st;
    }
    if (fwrite(head, 1, total, af.fp) != total)
        goto write_error;
    const float *src[QR_NPY_COLS] = {scene->x,   scene->y,     scene->z,   scene->r,
                                     scene->red, scene->green, scene->blue};
    for (int32_t a = 0; a < scene->n; a += QR_NPY_WRITE_ROWS) {
        int32_t b = scene->n - a < QR_NPY_WRITE_ROWS ? scene->n : a + QR_NPY_WRITE_ROWS;
        unsigned char *p = rows;
        for (int32_t i = a; i < b; ++i)
            for (int k = 0; k < QR_NPY_COLS; ++k, p += 4) {
                uint32_t u;
                memcpy(&u, &src[k][i], sizeof u);
                p[0] = (unsigned char)u;
                p[1] = (unsigned char)(u >> 8);
                p[2] = (unsigned char)(u >> 16);
                p[3] = (unsigned char)(u >> 24);
            }
        size_t bytes = (size_t)(p - rows);
        if (fwrite(rows, 1, bytes, af.fp) != bytes)
            goto write_error;
    }
    free(rows);
    return qr_atomic_commit(&af, err);

write_error:;
    int e = errno;
    free(rows);
    qr_atomic_abort(&af);
    return qr_fail(err, QR_ERR_IO, "%s: write failed: %s", path, strerror(e));
}
