/* npy.c — .npy files: mapping one and parsing its header (npy_file.h, for
 * the scene reader too), reading rows of floats and writing a header
 * (quadrender/npy.h).
 *
 * The header is a Python dict literal; it is parsed here as the small
 * subset NumPy writes (strings, True/False, tuples of integers), which is
 * all a valid header of a plain array can hold.
 */
#include "scene/io/npy_file.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "quadrender/memory.h"
#include "quadrender/npy.h"
#include "quadrender/threads.h"

static const char qr_npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* ---- the header dict ---------------------------------------------------------- */

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

static int qr_shape(qr_cursor *c, qr_npy_file *h)
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

/* Parses the dict into h's descr, fortran, ndim and shape; returns NULL or
 * what is wrong. */
static const char *qr_parse_dict(const char *text, size_t len, qr_npy_file *h)
{
    qr_cursor c = {text, text + len};
    int have_descr = 0, have_fortran = 0, have_shape = 0;
    if (!qr_accept(&c, '{'))
        return "it does not start with '{'";
    for (;;) {
        if (qr_accept(&c, '}'))
            break;
        char key[32];
        if (!qr_string(&c, key, sizeof key) || !qr_accept(&c, ':'))
            return "expected a quoted key and ':'";
        if (strcmp(key, "descr") == 0) {
            if (have_descr++ || !qr_string(&c, h->descr, sizeof h->descr))
                return "'descr' is not a single type string";
        } else if (strcmp(key, "fortran_order") == 0) {
            if (have_fortran++)
                return "'fortran_order' appears twice";
            if (qr_word(&c, "True"))
                h->fortran = 1;
            else if (!qr_word(&c, "False"))
                return "'fortran_order' is neither True nor False";
        } else if (strcmp(key, "shape") == 0) {
            if (have_shape++ || !qr_shape(&c, h))
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
    if (!have_descr || !have_fortran || !have_shape)
        return "it lacks one of 'descr', 'fortran_order' and 'shape'";
    return NULL;
}

/* ---- the file -------------------------------------------------------------------- */

/* Checks the magic, the version and the header's length of the mapped
 * file, and parses the header. */
static qr_status qr_npy_check_header(qr_npy_file *f, qr_error *err)
{
    const char *path = f->path;
    const unsigned char *map = f->bytes;
    const uint64_t size = f->size;
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
    const char *why = qr_parse_dict((const char *)map + prefix, (size_t)hlen, f);
    if (why)
        return qr_fail(err, QR_ERR_PARSE, "%s: bad .npy header: %s", path, why);
    f->offset = prefix + hlen;
    return QR_OK;
}

qr_status qr_npy_open(const char *path, qr_npy_file *f, qr_error *err)
{
    memset(f, 0, sizeof *f);
    f->path = path;
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
    if (map == MAP_FAILED) /* no address space left is a want of memory, not of the file */
        return qr_fail(err, e == ENOMEM ? QR_ERR_NOMEM : QR_ERR_IO, "%s: cannot map: %s", path,
                       strerror(e));
    f->bytes = map;
    f->size = size;
    qr_status st = qr_npy_check_header(f, err);
    if (st != QR_OK)
        qr_npy_close(f);
    return st;
}

void qr_npy_close(qr_npy_file *f)
{
    if (f->bytes)
        munmap((void *)f->bytes, (size_t)f->size);
    f->bytes = NULL;
}

/* Python's repr of a tuple of ints (cut short where cap is too small). */
static void qr_tuple_text(char *buf, size_t cap, int ndim, const int64_t *shape)
{
    size_t at = 0;
    buf[0] = '\0';
    const char *close = ndim == 0 ? "()" : ndim == 1 ? ",)" : ")";
    for (int k = 0; k <= ndim && at < cap; ++k) {
        int n = k == ndim ? snprintf(buf + at, cap - at, "%s", close)
                          : snprintf(buf + at, cap - at, "%s%" PRId64, k ? ", " : "(", shape[k]);
        at += n > 0 ? (size_t)n : 0;
    }
}

void qr_npy_shape_text(const qr_npy_file *f, char *buf, size_t cap)
{
    qr_tuple_text(buf, cap, f->ndim, f->shape);
}

qr_status qr_npy_check_data(const qr_npy_file *f, uint64_t bytes, qr_error *err)
{
    const uint64_t have = f->size - f->offset;
    if (have == bytes)
        return QR_OK;
    char shape[200];
    qr_npy_shape_text(f, shape, sizeof shape);
    if (have < bytes)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: truncated: shape %s needs %" PRIu64
                       " bytes of data, the file has %" PRIu64,
                       f->path, shape, bytes, have);
    return qr_fail(err, QR_ERR_PARSE, "%s: %" PRIu64 " bytes follow the data of shape %s",
                   f->path, have - bytes, shape);
}

/* ---- rows of floats ------------------------------------------------------------------ */

/* Values per conversion task. */
#define QR_NPY_TASK_VALUES (1 << 20)

typedef struct qr_npy_floats {
    const unsigned char *data;
    float *out;
    int64_t values;
    int f8; /* '<f8': 8 bytes a value */
} qr_npy_floats;

static void qr_npy_floats_task(void *ctx, int t)
{
    const qr_npy_floats *job = ctx;
    int64_t a = (int64_t)t * QR_NPY_TASK_VALUES;
    int64_t b = a + QR_NPY_TASK_VALUES < job->values ? a + QR_NPY_TASK_VALUES : job->values;
    if (job->f8)
        for (int64_t i = a; i < b; ++i)
            job->out[i] = qr_npy_f8(job->data + 8 * i);
    else
        for (int64_t i = a; i < b; ++i)
            job->out[i] = qr_npy_f4(job->data + 4 * i);
}

qr_status qr_npy_read_floats(const char *path, int cols, const char *row_names, float **out,
                             int64_t *rows, qr_error *err)
{
    *out = NULL;
    *rows = 0;
    if (cols < 0)
        return qr_fail(err, QR_ERR_INVALID, "%s: rows of %d values", path, cols);
    const int one_d = cols == 0; /* a 1-D array (N,): one value a row */
    if (one_d)
        cols = 1;
    qr_npy_file f;
    qr_status st = qr_npy_open(path, &f, err);
    if (st != QR_OK)
        return st;
    const int f8 = strcmp(f.descr, "<f8") == 0;
    char shape[200];
    qr_npy_shape_text(&f, shape, sizeof shape);
    if (!f8 && strcmp(f.descr, "<f4") != 0)
        st = qr_fail(err, QR_ERR_PARSE,
                     "%s: dtype '%s' is not supported: expected '<f4' or '<f8' (little-endian "
                     "float32 or float64)",
                     path, f.descr);
    else if (f.fortran)
        st = qr_fail(err, QR_ERR_PARSE,
                     "%s: fortran_order True is not supported: expected C order", path);
    else if (one_d && f.ndim != 1)
        st = qr_fail(err, QR_ERR_PARSE, "%s: shape %s is not supported: expected (N,), %s", path,
                     shape, row_names);
    else if (!one_d && (f.ndim != 2 || f.shape[1] != cols))
        st = qr_fail(err, QR_ERR_PARSE,
                     "%s: shape %s is not supported: expected (N, %d), rows of %s", path, shape,
                     cols, row_names);
    else if (f.shape[0] > INT64_MAX / 8 / cols)
        st = qr_fail(err, QR_ERR_PARSE, "%s: shape %s is too large", path, shape);
    const int64_t values = st == QR_OK ? f.shape[0] * cols : 0;
    if (st == QR_OK)
        st = qr_npy_check_data(&f, (uint64_t)values * (f8 ? 8 : 4), err);
    if (st == QR_OK && values > 0) {
        char what[160];
        snprintf(what, sizeof what, "the %" PRId64 " rows of %s", f.shape[0], path);
        if ((uint64_t)values > SIZE_MAX / sizeof(float))
            st = qr_fail(err, QR_ERR_NOMEM, "%s: %s do not fit in memory", path, shape);
        else
            st = qr_host_malloc(what, (size_t)values * sizeof(float), (void **)out, err);
    }
    if (st == QR_OK && values > 0) {
        qr_npy_floats job = {f.bytes + f.offset, *out, values, f8};
        int64_t tasks = (values + QR_NPY_TASK_VALUES - 1) / QR_NPY_TASK_VALUES;
        /* (values fit in memory: far fewer than INT_MAX tasks) */
        qr_parallel_for((int)tasks, qr_threads(), qr_npy_floats_task, &job);
    }
    if (st == QR_OK)
        *rows = f.shape[0];
    qr_npy_close(&f);
    return st;
}

/* ---- writing a header ----------------------------------------------------------------- */

size_t qr_npy_header_write(char buf[QR_NPY_HEADER_WRITE_MAX], const char *descr, int ndim,
                           const int64_t *shape)
{
    if (ndim < 0 || ndim > 4 || strlen(descr) > 16)
        return 0;
    for (int k = 0; k < ndim; ++k)
        if (shape[k] < 0)
            return 0;
    char tuple[128];
    qr_tuple_text(tuple, sizeof tuple, ndim, shape);
    /* version 1.0: the magic, the version, the header's length (2 bytes),
     * the dict, then spaces and a newline up to a multiple of 64 */
    memcpy(buf, qr_npy_magic, sizeof qr_npy_magic);
    buf[6] = 1;
    buf[7] = 0;
    int dict = snprintf(buf + 10, QR_NPY_HEADER_WRITE_MAX - 10,
                        "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tuple);
    size_t total = (10 + (size_t)dict + 1 + 63) / 64 * 64;
    if (dict < 0 || total > QR_NPY_HEADER_WRITE_MAX)
        return 0;
    memset(buf + 10 + dict, ' ', total - 10 - (size_t)dict - 1);
    buf[total - 1] = '\n';
    size_t hlen = total - 10;
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8);
    return total;
}
