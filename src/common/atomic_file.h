/* atomic_file.h — write an output file whole or not at all (the library's
 * own; its public face is quadrender/file.h, common/file.c).
 *
 * A reader never sees a half-written output: the data goes to
 * "<dir>/.<name>.tmp-XXXXXX" in the target's own directory (so the rename
 * stays on one file system), is flushed and fsynced, and replaces the target
 * only once every byte is on disk; the directory is fsynced after the rename,
 * so a power loss leaves the old file or the new one. On any failure the
 * temporary file is removed and the previous target, if any, is untouched.
 *
 * What the target is decides how it is written:
 * - a regular file, or no file yet: through a temporary file as above. An
 *   existing file is replaced by one with its mode (and, where permitted,
 *   its owner); with qr_atomic_set_no_clobber(1) an existing file is refused.
 * - a symbolic link: followed (link to link, relative or absolute), and the
 *   file it points to is written as above; the link itself stays.
 * - "-": standard output, written directly (never closed).
 * - a FIFO, a character or block device, a socket: opened and written
 *   directly, with no temporary file and no rename, so /dev/null works and
 *   /dev/full reports its error; a descriptor name (/dev/stdout,
 *   /dev/fd/N, /proc/self/fd/N) is written through a copy of that
 *   descriptor, so `--json >(jq .)` works and a shell's >> appends.
 *
 * Temporary files still open are recorded in a process-wide table that
 * qr_atomic_remove_temps() empties from a signal handler.
 */
#ifndef QR_ATOMIC_FILE_H
#define QR_ATOMIC_FILE_H

#include <stdio.h>
#include "quadrender/error.h"

typedef struct qr_atomic_file {
    FILE *fp;           /* write here */
    char tmp_path[4096]; /* "" when written directly */
    char path[4096];    /* as given, for messages */
    char target[4096];  /* what the rename replaces: path with links followed */
    int direct;         /* 1: fp writes straight into the target (no rename) */
    int slot;           /* its entry in the signal-cleanup table, or -1 */
    int no_sync;        /* set after open: commit renames without fsyncing the file
                           or its directory (many small files a caller syncs at
                           once: a tile pyramid); readers still never see a
                           partial file */
} qr_atomic_file;

/* Opens path for binary writing as described above. */
qr_status qr_atomic_open(qr_atomic_file *af, const char *path, qr_error *err);

/* Flushes, fsyncs, closes and renames onto the target, then fsyncs its
 * directory (direct targets: flushes and closes). Removes the temporary on
 * failure. */
qr_status qr_atomic_commit(qr_atomic_file *af, qr_error *err);

/* Closes and removes the temporary file; the target is not touched. */
void qr_atomic_abort(qr_atomic_file *af);

/* Whether path is written directly rather than through a temporary file
 * ("-", a FIFO, a device, /dev/stdout, ...). */
int qr_atomic_is_direct(const char *path);

/* Fails now, before any work, where qr_atomic_open and commit would fail for
 * a reason visible already: a directory in the way, a missing or
 * unwritable directory (access(2) with W_OK|X_OK, so a privileged user
 * passes where the kernel would let it write), an existing file under
 * no-clobber, a device or FIFO that cannot be opened for writing. */
qr_status qr_atomic_check(const char *path, qr_error *err);

/* Process-wide: with on != 0, an existing regular file is never replaced
 * (qr_atomic_check and qr_atomic_open refuse it, and the final rename does
 * not replace one created meanwhile). Off by default. */
void qr_atomic_set_no_clobber(int on);

/* Removes every temporary file still open. Async-signal-safe: a signal
 * handler calls it before the process dies. */
void qr_atomic_remove_temps(void);

#endif
