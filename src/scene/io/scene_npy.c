/* scene_npy.c — scenes as NumPy .npy files: float32 rows x y z r R G B.
 *
 * What is accepted is documented in docs/scene-format.md: format versions
 * 1.0, 2.0 and 3.0, dtype '<f4' or '<f8' (rounded to float32, as NumPy's
 * astype rounds: Python's front end takes float64 arrays so), C order,
 * shape (N, 7), and nothing after the data. The file's mapping and its header's parsing are npy.c's
 * (npy_file.h), shared with the reader of query points and boxes.
 *
 * The data is mapped and transposed into the scene's arrays by several
 * threads, each checking its rows as the .circles reader checks a line
 * (finite numbers, no negative radius); the first bad row in file order is
 * reported, so the answer does not depend on the thread count.
 */
#define _POSIX_C_SOURCE 200809L /* pread, strdup */
#include "scene/scene_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic_file.h"
#include "quadrender/npy.h"
#include "quadrender/threads.h"
#include "scene/io/npy_file.h"

#define QR_NPY_COLS 7
#define QR_NPY_ROW_BYTES (QR_NPY_COLS * 4) /* a float32 row, as written */
/* Rows per transposition task. */
#define QR_NPY_TASK_ROWS 65536

static const char *const qr_npy_fields[QR_NPY_COLS] = {"x", "y", "z", "r", "R", "G", "B"};

/* ---- reading -------------------------------------------------------------------- */

typedef struct qr_npy_job {
    const unsigned char *data;
    qr_scene *scene;
    int64_t rows;
    int f8; /* '<f8': 8 bytes a value */
    int64_t *bad; /* per task: first bad row, or -1 */
} qr_npy_job;

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
    const int size = job->f8 ? 8 : 4;
    const unsigned char *p = job->data + a * QR_NPY_COLS * size;
    for (int64_t i = a; i < b; ++i, p += QR_NPY_COLS * size) {
        float v[QR_NPY_COLS];
        for (int k = 0; k < QR_NPY_COLS; ++k)
            v[k] = job->f8 ? qr_npy_f8(p + 8 * k) : qr_npy_f4(p + 4 * k);
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
static qr_status qr_bad_rows(const char *path, const qr_scene *s, int64_t first, qr_error *err)
{
    qr_scene_check_rows(s, path, first, err);
    if (err)
        err->status = QR_ERR_PARSE;
    return QR_ERR_PARSE;
}

/* Checks the dtype, order and shape of the opened file and the length of
 * its data, and that it holds at most `most` circles; on success *rows is
 * the number of circles and *f8 whether the values are float64. */
static qr_status qr_npy_check(const qr_npy_file *f, int64_t most, int64_t *rows, int *f8,
                              qr_error *err)
{
    const char *path = f->path;
    *f8 = strcmp(f->descr, "<f8") == 0;
    if (!*f8 && strcmp(f->descr, "<f4") != 0)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: dtype '%s' is not supported: expected '<f4' or '<f8' (little-endian "
                       "float32 or float64)",
                       path, f->descr);
    if (f->fortran)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: fortran_order True is not supported: expected C order", path);
    if (f->ndim != 2 || f->shape[1] != QR_NPY_COLS) {
        char shape[160];
        qr_npy_shape_text(f, shape, sizeof shape);
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: shape %s is not supported: expected (N, 7), rows of x y z r R G B",
                       path, shape);
    }
    int64_t n = f->shape[0];
    if (n > most)
        return qr_fail(err, QR_ERR_PARSE,
                       "%s: %" PRId64 " circles exceed the limit of %d (read it in chunks)", path,
                       n, QR_SCENE_MAX_CIRCLES);
    if (n > INT64_MAX / (QR_NPY_COLS * 8))
        return qr_fail(err, QR_ERR_PARSE, "%s: %" PRId64 " circles: more than a file can hold",
                       path, n);
    qr_status st = qr_npy_check_data(f, (uint64_t)n * QR_NPY_COLS * (*f8 ? 8 : 4), err);
    if (st == QR_OK)
        *rows = n;
    return st;
}

qr_status qr_scene_read_npy(const char *path, qr_scene **out, qr_error *err)
{
    *out = NULL;
    qr_npy_file f;
    qr_status st = qr_npy_open(path, &f, err);
    if (st != QR_OK)
        return st;
    int64_t rows = 0;
    qr_npy_job job = {0};
    if ((st = qr_npy_check(&f, QR_SCENE_MAX_CIRCLES, &rows, &job.f8, err)) != QR_OK)
        goto done;
    if ((st = qr_scene_create((int32_t)rows, QR_ANIM_NONE, &job.scene, err)) != QR_OK)
        goto done;
    int tasks = (int)((rows + QR_NPY_TASK_ROWS - 1) / QR_NPY_TASK_ROWS);
    job.data = f.bytes + f.offset;
    job.rows = rows;
    job.bad = malloc(((size_t)tasks + 1) * sizeof *job.bad);
    if (!job.bad) {
        st = qr_fail(err, QR_ERR_NOMEM, "out of memory reading %s", path);
        goto done;
    }
    qr_parallel_for(tasks, qr_threads(), qr_npy_task, &job);
    for (int t = 0; t < tasks; ++t)
        if (job.bad[t] >= 0) {
            st = qr_bad_rows(path, job.scene, 0, err); /* the first, job.bad[t] */
            goto done;
        }
    qr_scene_name_from_path(job.scene, path);
    *out = job.scene;
    job.scene = NULL;

done:
    free(job.bad);
    qr_scene_destroy(job.scene);
    qr_npy_close(&f);
    return st;
}

/* ---- reading in chunks ------------------------------------------------------------ */

/* A read of circles [first, first + count) into buf, on the caller's
 * thread or a read-ahead's. */
typedef struct stream_read {
    int64_t first;
    int32_t count;
    unsigned char *buf; /* malloc'd; NULL when out of memory */
    qr_status st;
    qr_error err;
} stream_read;

struct qr_scene_stream {
    char *path;
    int fd;
    uint64_t offset; /* where the data starts */
    int64_t rows;
    int f8;
    qr_scene *picture; /* no circles: the name and the picture's options chunks take */
    /* the read-ahead (qr_scene_stream_prefetch): a thread reading `ahead` */
    pthread_t thread;
    int reading;
    stream_read ahead;
};

static size_t row_bytes(const qr_scene_stream *sm)
{
    return (size_t)QR_NPY_COLS * (sm->f8 ? 8 : 4);
}

/* Large reads go in slices on threads of their own: one thread copies
 * the page cache at a fraction of what the memory system gives. */
#define READ_SLICES 8
#define READ_SLICE_MIN ((size_t)16 << 20)

/* One slice of a read: bytes [at, at + bytes) of the rows. */
typedef struct read_slice {
    const qr_scene_stream *sm;
    unsigned char *buf;
    uint64_t at;
    size_t bytes, got;
    int error; /* errno of a failed read, else 0 */
} read_slice;

static void *read_slice_run(void *arg)
{
    read_slice *sl = arg;
    while (sl->got < sl->bytes) {
        const ssize_t n = pread(sl->sm->fd, sl->buf + sl->at + sl->got, sl->bytes - sl->got,
                                (off_t)(sl->sm->offset + sl->at + sl->got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) sl->error = errno;
        if (n <= 0) break;
        sl->got += (size_t)n;
    }
    return NULL;
}

/* The bytes of r's circles, however many reads it takes (in slices on
 * threads where they are many); a file that ends early was cut since it
 * was opened: the first circle missing is named. */
static void read_bytes(const qr_scene_stream *sm, stream_read *r)
{
    const size_t row = row_bytes(sm), bytes = (size_t)r->count * row;
    r->buf = malloc(bytes ? bytes : 1);
    r->st = r->buf ? QR_OK
                   : qr_fail(&r->err, QR_ERR_NOMEM, "out of memory reading %" PRId32
                             " circles of %s", r->count, sm->path);
    if (r->st != QR_OK)
        return;
    int slices = (int)(bytes / READ_SLICE_MIN);
    slices = slices < 1 ? 1 : slices > READ_SLICES ? READ_SLICES : slices;
    read_slice sl[READ_SLICES];
    pthread_t th[READ_SLICES];
    int started[READ_SLICES] = {0};
    const uint64_t base = (uint64_t)r->first * row;
    for (int k = 0; k < slices; k++) {
        const size_t from = bytes / (size_t)slices * (size_t)k;
        const size_t to = k == slices - 1 ? bytes : bytes / (size_t)slices * (size_t)(k + 1);
        sl[k] = (read_slice){sm, r->buf - base, base + from, to - from, 0, 0};
        /* the first slice here; a thread that cannot be had: here too */
        if (k > 0)
            started[k] = pthread_create(&th[k], NULL, read_slice_run, &sl[k]) == 0;
    }
    read_slice_run(&sl[0]);
    for (int k = 1; k < slices; k++) {
        if (started[k])
            pthread_join(th[k], NULL);
        else
            read_slice_run(&sl[k]);
    }
    for (int k = 0; k < slices && r->st == QR_OK; k++) {
        if (sl[k].error)
            r->st = qr_fail(&r->err, QR_ERR_IO, "%s: %s", sm->path, strerror(sl[k].error));
        else if (sl[k].got < sl[k].bytes)
            r->st = qr_fail(&r->err, QR_ERR_PARSE,
                            "%s: truncated: circle %" PRId64 " of %" PRId64
                            " is missing (the file is shorter than its header says)",
                            sm->path, (int64_t)((sl[k].at + sl[k].got) / row), sm->rows);
    }
}

static void *read_ahead(void *arg)
{
    qr_scene_stream *sm = arg;
    read_bytes(sm, &sm->ahead);
    return NULL;
}

/* Waits for the read-ahead, if any: its bytes are then in sm->ahead. */
static void join_ahead(qr_scene_stream *sm)
{
    if (!sm->reading)
        return;
    pthread_join(sm->thread, NULL);
    sm->reading = 0;
}

static void drop_ahead(qr_scene_stream *sm)
{
    join_ahead(sm);
    free(sm->ahead.buf);
    memset(&sm->ahead, 0, sizeof sm->ahead);
}

void qr_scene_stream_prefetch(qr_scene_stream *sm, int64_t first, int32_t count)
{
    if (!sm || first < 0 || count <= 0 || first > sm->rows || count > sm->rows - first)
        return;
    drop_ahead(sm);
    sm->ahead.first = first;
    sm->ahead.count = count;
    /* no thread to be had: the read happens when it is asked */
    sm->reading = pthread_create(&sm->thread, NULL, read_ahead, sm) == 0;
    if (!sm->reading)
        memset(&sm->ahead, 0, sizeof sm->ahead);
}

qr_status qr_scene_stream_open(const char *path, qr_scene_stream **out, qr_error *err)
{
    *out = NULL;
    if (!path || !qr_path_has_ext(path, ".npy"))
        return qr_fail(err, QR_ERR_INVALID, "%s: only .npy scenes are read in chunks",
                       path ? path : "(no path)");
    qr_npy_file f;
    qr_status st = qr_npy_open(path, &f, err);
    if (st != QR_OK)
        return st;
    qr_scene_stream *sm = calloc(1, sizeof *sm);
    int64_t rows = 0;
    int f8 = 0;
    if (!sm || !(sm->path = strdup(path)))
        st = qr_fail(err, QR_ERR_NOMEM, "out of memory opening %s", path);
    else if ((st = qr_npy_check(&f, INT64_MAX, &rows, &f8, err)) == QR_OK)
        st = qr_scene_create(0, QR_ANIM_NONE, &sm->picture, err);
    const uint64_t offset = f.offset;
    qr_npy_close(&f); /* the header is read: the chunks come by pread */
    if (st == QR_OK && (sm->fd = open(path, O_RDONLY)) < 0)
        st = qr_fail(err, QR_ERR_IO, "%s: %s", path, strerror(errno));
    if (st != QR_OK) {
        if (sm) {
            free(sm->path);
            qr_scene_destroy(sm->picture);
        }
        free(sm);
        return st;
    }
    sm->offset = offset;
    sm->rows = rows;
    sm->f8 = f8;
    qr_scene_name_from_path(sm->picture, path);
    *out = sm;
    return QR_OK;
}

int64_t qr_scene_stream_circles(const qr_scene_stream *sm)
{
    return sm ? sm->rows : 0;
}

qr_scene *qr_scene_stream_picture(qr_scene_stream *sm)
{
    return sm ? sm->picture : NULL;
}

/* The bytes of circles [first, first + count): the read-ahead's when it
 * read these circles (its errors with them), else read now. */
static stream_read take_read(qr_scene_stream *sm, int64_t first, int32_t count)
{
    join_ahead(sm);
    stream_read r = {first, count, NULL, QR_OK, {0}};
    if (sm->ahead.count == count && sm->ahead.first == first && (sm->ahead.buf || sm->ahead.st)) {
        r = sm->ahead;
        memset(&sm->ahead, 0, sizeof sm->ahead);
    } else {
        drop_ahead(sm);
        read_bytes(sm, &r);
    }
    return r;
}

qr_status qr_scene_stream_read(qr_scene_stream *sm, int64_t first, int32_t count, qr_scene **out,
                               qr_error *err)
{
    *out = NULL;
    if (!sm || first < 0 || count < 0 || first > sm->rows || count > sm->rows - first)
        return qr_fail(err, QR_ERR_INVALID, "%s: circles %" PRId64 " to %" PRId64
                       " are not the file's", sm ? sm->path : "(no stream)", first,
                       first + count);
    /* the bytes: the read-ahead's when it read these circles, else now */
    stream_read r = take_read(sm, first, count);
    unsigned char *buf = r.buf;
    qr_status st = r.st;
    if (st != QR_OK && err)
        *err = r.err;
    qr_npy_job job = {0};
    job.f8 = sm->f8;
    job.rows = count;
    const int tasks = (int)((count + QR_NPY_TASK_ROWS - 1) / QR_NPY_TASK_ROWS);
    job.bad = malloc(((size_t)tasks + 1) * sizeof *job.bad);
    if (st == QR_OK && !job.bad)
        st = qr_fail(err, QR_ERR_NOMEM, "out of memory reading %" PRId32 " circles of %s", count,
                     sm->path);
    if (st == QR_OK)
        st = qr_scene_create(count, QR_ANIM_NONE, &job.scene, err);
    if (st == QR_OK) {
        job.data = buf;
        qr_parallel_for(tasks, qr_threads(), qr_npy_task, &job);
        for (int t = 0; t < tasks && st == QR_OK; ++t)
            if (job.bad[t] >= 0)
                st = qr_bad_rows(sm->path, job.scene, first, err);
    }
    if (st == QR_OK) {
        const qr_scene *pic = sm->picture;
        memcpy(job.scene->name, pic->name, sizeof pic->name);
        memcpy(job.scene->background, pic->background, sizeof pic->background);
        job.scene->antialias = pic->antialias;
        job.scene->transparent = pic->transparent;
        *out = job.scene;
        job.scene = NULL;
    }
    qr_scene_destroy(job.scene);
    free(job.bad);
    free(buf);
    return st;
}

qr_status qr_scene_stream_read_rows(qr_scene_stream *sm, int64_t first, int32_t count,
                                    float **rows, qr_error *err)
{
    *rows = NULL;
    if (!sm || first < 0 || count < 0 || first > sm->rows || count > sm->rows - first)
        return qr_fail(err, QR_ERR_INVALID, "%s: circles %" PRId64 " to %" PRId64
                       " are not the file's", sm ? sm->path : "(no stream)", first,
                       first + count);
    stream_read r = take_read(sm, first, count);
    if (r.st != QR_OK) {
        if (err)
            *err = r.err;
        free(r.buf);
        return r.st;
    }
    /* the file's values as floats, in place: a value's float never lies
     * after its bytes */
    float *out = (float *)(void *)r.buf;
    const size_t values = (size_t)count * QR_NPY_COLS;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (sm->f8)
#endif
        for (size_t i = 0; i < values; i++)
            out[i] = sm->f8 ? qr_npy_f8(r.buf + 8 * i) : qr_npy_f4(r.buf + 4 * i);
    *rows = out;
    return QR_OK;
}

void qr_scene_stream_close(qr_scene_stream *sm)
{
    if (!sm)
        return;
    drop_ahead(sm);
    close(sm->fd);
    free(sm->path);
    qr_scene_destroy(sm->picture);
    free(sm);
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

    /* version 1.0, laid out as numpy.save lays it out */
    char head[QR_NPY_HEADER_WRITE_MAX];
    const int64_t shape[2] = {scene->n, QR_NPY_COLS};
    size_t total = qr_npy_header_write(head, "<f4", 2, shape);

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
