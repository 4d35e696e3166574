/* quadrender/file.h — writing an output file whole or not at all, the way
 * the library writes its images and scene files.
 *
 * A reader never sees a half-written file: the bytes go to a temporary file
 * beside the target, fsynced, and replace the target by a rename only once
 * complete; on any failure (or qr_file_abort) the temporary goes and the
 * previous target, if any, is untouched. A symbolic link is followed and
 * the file it names is written. "-" (standard output), a FIFO, a device and
 * /dev/stdout-like names are written directly, without a temporary file.
 *
 *     qr_file *f;
 *     if (qr_file_open("out.json", &f, &err) != QR_OK) return err.status;
 *     fprintf(qr_file_stream(f), "{}\n");
 *     return qr_file_commit(f, &err);
 *
 * Two settings are process-wide, for every file the library writes (images
 * included): no-clobber (an existing file is never replaced) and the table
 * of temporary files still open, which a signal handler can empty.
 */
#ifndef QUADRENDER_FILE_H
#define QUADRENDER_FILE_H

#include <stdio.h>

#include "quadrender/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qr_file qr_file;

/* Opens path for binary writing as above; *out until commit or abort. */
qr_status qr_file_open(const char *path, qr_file **out, qr_error *err);

/* Where to write (never NULL for an open file). */
FILE *qr_file_stream(qr_file *f);

/* Flushes, fsyncs and renames onto the target (a direct target: flushes
 * and closes); a failure removes the temporary. Frees f either way. */
qr_status qr_file_commit(qr_file *f, qr_error *err);

/* Closes and removes the temporary; the target is not touched. Frees f.
 * NULL: no-op. */
void qr_file_abort(qr_file *f);

/* Fails now, before any work, where open or commit would fail for a reason
 * visible already: a directory in the way, a missing or unwritable
 * directory, an existing file under no-clobber, a device or FIFO that
 * cannot be opened for writing. */
qr_status qr_file_check(const char *path, qr_error *err);

/* Whether path is written directly rather than through a temporary file
 * ("-", a FIFO, a device, /dev/stdout). */
int qr_file_is_direct(const char *path);

/* Process-wide, off by default: with on != 0 no existing regular file is
 * ever replaced (qr_file_check and every open refuse it). */
void qr_file_set_no_clobber(int on);

/* Removes every temporary file still open. Async-signal-safe: for a signal
 * handler to call before the process dies. */
void qr_file_remove_temps(void);

#ifdef __cplusplus
}
#endif
#endif
