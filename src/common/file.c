/* file.c — the public atomic file writer (quadrender/file.h) over the
 * library's own (common/atomic_file.h). */
#include "quadrender/file.h"

#include <stdlib.h>

#include "common/atomic_file.h"

struct qr_file {
    qr_atomic_file af;
};

qr_status qr_file_open(const char *path, qr_file **out, qr_error *err)
{
    *out = NULL;
    qr_file *f = malloc(sizeof *f);
    if (!f)
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    qr_status st = qr_atomic_open(&f->af, path, err);
    if (st != QR_OK) {
        free(f);
        return st;
    }
    *out = f;
    return QR_OK;
}

FILE *qr_file_stream(qr_file *f)
{
    return f->af.fp;
}

qr_status qr_file_commit(qr_file *f, qr_error *err)
{
    qr_status st = qr_atomic_commit(&f->af, err);
    free(f);
    return st;
}

void qr_file_abort(qr_file *f)
{
    if (!f)
        return;
    qr_atomic_abort(&f->af);
    free(f);
}

qr_status qr_file_check(const char *path, qr_error *err)
{
    return qr_atomic_check(path, err);
}

int qr_file_is_direct(const char *path)
{
    return qr_atomic_is_direct(path);
}

void qr_file_set_no_clobber(int on)
{
    qr_atomic_set_no_clobber(on);
}

void qr_file_remove_temps(void)
{
    qr_atomic_remove_temps();
}
