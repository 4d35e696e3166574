/* atomic_file.c — see atomic_file.h. */
#include "atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

qr_status qr_atomic_open(qr_atomic_file *af, const char *path, qr_error *err)
{
    af->fp = NULL;
    af->tmp_path[0] = '\0';
    size_t len = strlen(path);
    if (len == 0)
        return qr_fail(err, QR_ERR_INVALID, "empty output file name");
    if (len + 32 >= sizeof af->tmp_path)
        return qr_fail(err, QR_ERR_INVALID, "output file name too long: %s", path);
    memcpy(af->path, path, len + 1);

    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return qr_fail(err, QR_ERR_IO, "%s: is a directory", path);

    /* temporary name in the same directory: dir/.base.tmp-XXXXXX */
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    snprintf(af->tmp_path, sizeof af->tmp_path, "%.*s.%s.tmp-XXXXXX", (int)dirlen, path,
             path + dirlen);
    int fd = mkstemp(af->tmp_path);
    if (fd < 0) {
        int e = errno;
        af->tmp_path[0] = '\0';
        return qr_fail(err, QR_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    }
    /* mkstemp makes 0600 files; an image should get the usual umask-based mode */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        int e = errno;
        close(fd);
        unlink(af->tmp_path);
        af->tmp_path[0] = '\0';
        return qr_fail(err, QR_ERR_IO, "%s: cannot open: %s", path, strerror(e));
    }
    return QR_OK;
}

qr_status qr_atomic_commit(qr_atomic_file *af, qr_error *err)
{
    if (!af->fp)
        return qr_fail(err, QR_ERR_IO, "%s: not open", af->path);
    int bad = ferror(af->fp) || fflush(af->fp) != 0;
    int e = errno;
    if (fclose(af->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    af->fp = NULL;
    if (bad) {
        unlink(af->tmp_path);
        return qr_fail(err, QR_ERR_IO, "%s: write failed: %s", af->path, strerror(e));
    }
    if (rename(af->tmp_path, af->path) != 0) {
        e = errno;
        unlink(af->tmp_path);
        return qr_fail(err, QR_ERR_IO, "%s: cannot rename into place: %s", af->path, strerror(e));
    }
    return QR_OK;
}

void qr_atomic_abort(qr_atomic_file *af)
{
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
    }
    if (af->tmp_path[0])
        unlink(af->tmp_path);
    af->tmp_path[0] = '\0';
}
