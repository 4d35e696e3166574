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
#include "scene/scene_internal.h"

#include <errno.h>
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
static qr_status qr_bad_rows(const char *path, const qr_scene *s, qr_error *err)
{
    qr_scene_check_circles(s, path, err);
    if (err)
        err->status = QR_ERR_PARSE;
    return QR_ERR_PARSE;
}

/* Checks the dtype, order and shape of the opened file and the length of
 * its data; on success *rows is the number of circles and *f8 whether the
 * values are float64. */
static qr_status qr_npy_check(const qr_npy_file *f, int64_t *rows, int *f8, qr_error *err)
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
    if (n > QR_SCENE_MAX_CIRCLES)
        return qr_fail(err, QR_ERR_PARSE, "%s: %" PRId64 " circles exceed the limit of %d", path,
                       n, QR_SCENE_MAX_CIRCLES);
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
    if ((st = qr_npy_check(&f, &rows, &job.f8, err)) != QR_OK)
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
            st = qr_bad_rows(path, job.scene, err); /* the first, job.bad[t] */
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
