/* atomic_file.h — write a file under a temporary name, then rename it.
 *
 * A reader never sees a half-written output: the data goes to
 * "<dir>/.<name>.tmp-XXXXXX" in the target's own directory (so the rename
 * stays on one file system) and replaces the target only once every byte is
 * written and flushed. On any failure the temporary file is removed and the
 * previous target, if any, is left untouched.
 */
#ifndef QR_ATOMIC_FILE_H
#define QR_ATOMIC_FILE_H

#include <stdio.h>
#include "quadrender/error.h"

typedef struct qr_atomic_file {
    FILE *fp;           /* write here */
    char tmp_path[4096];
    char path[4096];
} qr_atomic_file;

/* Opens a temporary file next to path for binary writing. */
qr_status qr_atomic_open(qr_atomic_file *af, const char *path, qr_error *err);

/* Flushes, closes and renames onto the target. Removes the temporary on failure. */
qr_status qr_atomic_commit(qr_atomic_file *af, qr_error *err);

/* Closes and removes the temporary file; the target is not touched. */
void qr_atomic_abort(qr_atomic_file *af);

#endif
