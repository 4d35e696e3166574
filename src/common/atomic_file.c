/* atomic_file.c — see atomic_file.h. */
#include "common/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* Symbolic links followed before giving up, as the kernel's own limit. */
#define MAX_LINK_HOPS 40

/* The part of a temporary name around the base name: "." and ".tmp-XXXXXX". */
#define TMP_EXTRA_LEN 12

static atomic_int no_clobber;

void qr_atomic_set_no_clobber(int on)
{
    atomic_store(&no_clobber, on != 0);
}

/* ---- the temporaries a signal handler removes ------------------------------------ */

/* A slot is free (0), being filled (1) or holds a live temporary name (2).
 * The handler reads only live slots; lock-free atomics are async-signal-safe. */
#define TEMP_SLOTS 64
static atomic_int temp_state[TEMP_SLOTS];
static char temp_name[TEMP_SLOTS][4096];

static int temp_register(const char *name)
{
    for (int i = 0; i < TEMP_SLOTS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&temp_state[i], &expected, 1)) {
            memcpy(temp_name[i], name, strlen(name) + 1);
            atomic_store(&temp_state[i], 2);
            return i;
        }
    }
    return -1; /* more temporaries open than slots: this one is not cleaned up */
}

static void temp_unregister(int slot)
{
    if (slot >= 0)
        atomic_store(&temp_state[slot], 0);
}

void qr_atomic_remove_temps(void)
{
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (atomic_load(&temp_state[i]) == 2)
            unlink(temp_name[i]);
}

/* ---- what the path is -------------------------------------------------------------- */

typedef enum target_kind {
    TARGET_FILE,   /* a regular file or nothing yet: temporary + rename */
    TARGET_DIRECT, /* FIFO, device, socket, descriptor name: opened and written */
    TARGET_STDOUT  /* "-" */
} target_kind;

/* /dev/stdout, /dev/fd/N and /proc/self/fd/N name an open descriptor: the
 * file behind it is the one the caller's shell opened, written in place. */
static int is_descriptor_name(const char *p)
{
    return strncmp(p, "/dev/fd/", 8) == 0 || strncmp(p, "/proc/", 6) == 0 ||
           strcmp(p, "/dev/stdout") == 0 || strcmp(p, "/dev/stderr") == 0;
}

/* Length of the directory part of p including its '/', 0 for none. */
static size_t dir_len(const char *p)
{
    const char *slash = strrchr(p, '/');
    return slash ? (size_t)(slash - p) + 1 : 0;
}

/* Resolves path to what a write goes to: *kind, the final target (symbolic
 * links followed) in target[4096], and whether it exists (*st filled). */
static qr_status resolve(const char *path, target_kind *kind, char *target, int *exists,
                         struct stat *st, qr_error *err)
{
    *exists = 0;
    size_t len = strlen(path);
    if (len == 0)
        return qr_fail(err, QR_ERR_INVALID, "empty output file name");
    if (len + TMP_EXTRA_LEN + 1 >= 4096)
        return qr_fail(err, QR_ERR_INVALID, "output file name too long: %.200s...", path);
    memcpy(target, path, len + 1);
    if (strcmp(path, "-") == 0) {
        *kind = TARGET_STDOUT;
        return QR_OK;
    }
    for (int hop = 0;; hop++) {
        if (is_descriptor_name(target)) {
            *kind = TARGET_DIRECT;
            *exists = stat(target, st) == 0;
            return QR_OK;
        }
        if (lstat(target, st) != 0) {
            if (errno == ENOENT) {
                *kind = TARGET_FILE;
                return QR_OK;
            }
            return qr_fail(err, QR_ERR_IO, "%s: %s", path, strerror(errno));
        }
        if (!S_ISLNK(st->st_mode))
            break;
        if (hop == MAX_LINK_HOPS)
            return qr_fail(err, QR_ERR_IO, "%s: %s", path, strerror(ELOOP));
        char link[4096];
        ssize_t n = readlink(target, link, sizeof link - 1);
        if (n < 0)
            return qr_fail(err, QR_ERR_IO, "%s: %s", path, strerror(errno));
        link[n] = '\0';
        /* a relative link is relative to the directory holding the link */
        size_t keep = link[0] == '/' ? 0 : dir_len(target);
        if (keep + (size_t)n + TMP_EXTRA_LEN + 1 >= 4096)
            return qr_fail(err, QR_ERR_IO, "%s: %s", path, strerror(ENAMETOOLONG));
        memcpy(target + keep, link, (size_t)n + 1);
    }
    *exists = 1;
    if (S_ISDIR(st->st_mode))
        return qr_fail(err, QR_ERR_IO, "%s: is a directory", path);
    *kind = S_ISREG(st->st_mode) ? TARGET_FILE : TARGET_DIRECT;
    return QR_OK;
}

int qr_atomic_is_direct(const char *path)
{
    target_kind kind;
    char target[4096];
    int exists;
    struct stat st;
    return resolve(path, &kind, target, &exists, &st, NULL) == QR_OK && kind != TARGET_FILE;
}

/* The directory of target into dir[4096]: "." for a bare name, "/" for "/x". */
static void dir_of(const char *target, char *dir)
{
    size_t n = dir_len(target);
    if (n == 0) {
        strcpy(dir, ".");
        return;
    }
    if (n > 1)
        n--; /* drop the trailing '/', but keep "/" itself */
    memcpy(dir, target, n);
    dir[n] = '\0';
}

qr_status qr_atomic_check(const char *path, qr_error *err)
{
    target_kind kind;
    char target[4096], dir[4096];
    int exists;
    struct stat st;
    qr_status s = resolve(path, &kind, target, &exists, &st, err);
    if (s != QR_OK || kind == TARGET_STDOUT)
        return s;
    if (kind == TARGET_DIRECT) {
        if (access(target, W_OK) != 0)
            return qr_fail(err, QR_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        return QR_OK;
    }
    if (exists && atomic_load(&no_clobber))
        return qr_fail(err, QR_ERR_IO, "%s: already exists, not overwritten", path);
    dir_of(target, dir);
    struct stat dst;
    if (stat(dir, &dst) != 0)
        return qr_fail(err, QR_ERR_IO, "%s: cannot write into '%s': %s", path, dir,
                       strerror(errno));
    if (!S_ISDIR(dst.st_mode))
        return qr_fail(err, QR_ERR_IO, "%s: cannot write into '%s': not a directory", path, dir);
    /* the temporary file is created and renamed in dir: both need W and X */
    if (access(dir, W_OK | X_OK) != 0)
        return qr_fail(err, QR_ERR_IO, "%s: cannot write into '%s': %s", path, dir,
                       strerror(errno));
    return QR_OK;
}

/* ---- writing -------------------------------------------------------------------------- */

/* "dir/.base.tmp-XXXXXX" for target into tmp[4096], the base name cut (at a
 * UTF-8 character boundary) so that the whole name fits NAME_MAX. */
static void temp_template(const char *target, char *tmp)
{
    size_t dn = dir_len(target);
    const char *base = target + dn;
    size_t bn = strlen(base);
    if (bn > NAME_MAX - TMP_EXTRA_LEN) {
        bn = NAME_MAX - TMP_EXTRA_LEN;
        while (bn > 0 && ((unsigned char)base[bn] & 0xC0) == 0x80)
            bn--;
    }
    snprintf(tmp, 4096, "%.*s.%.*s.tmp-XXXXXX", (int)dn, target, (int)bn, base);
}

/* The descriptor a name such as /dev/stdout, /dev/fd/N or /proc/self/fd/N
 * stands for, or -1. */
static int named_descriptor(const char *p)
{
    if (strcmp(p, "/dev/stdout") == 0)
        return 1;
    if (strcmp(p, "/dev/stderr") == 0)
        return 2;
    const char *digits = strncmp(p, "/dev/fd/", 8) == 0         ? p + 8
                         : strncmp(p, "/proc/self/fd/", 14) == 0 ? p + 14
                                                                 : NULL;
    if (!digits || *digits < '0' || *digits > '9')
        return -1;
    char *end;
    long n = strtol(digits, &end, 10);
    return *end == '\0' && n <= INT_MAX ? (int)n : -1;
}

static qr_status open_direct(qr_atomic_file *af, qr_error *err)
{
    /* A descriptor name writes through a copy of that descriptor, so that it
     * shares the offset and flags the caller's shell gave it (> or >>);
     * anything else (a FIFO, a device) is opened. */
    int named = named_descriptor(af->target);
    int fd = named >= 0 ? dup(named) : open(af->target, O_WRONLY | O_NOCTTY);
    if (fd < 0)
        return qr_fail(err, QR_ERR_IO, "%s: cannot open: %s", af->path, strerror(errno));
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        int e = errno;
        close(fd);
        return qr_fail(err, QR_ERR_IO, "%s: cannot open: %s", af->path, strerror(e));
    }
    af->direct = 1;
    return QR_OK;
}

/* mkstemp and the table entry under blocked termination signals, so that a
 * signal finds either no file or a recorded one. */
static int create_temp(qr_atomic_file *af)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int fd = mkstemp(af->tmp_path);
    int e = errno;
    if (fd >= 0)
        af->slot = temp_register(af->tmp_path);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return fd;
}

static void remove_temp(qr_atomic_file *af)
{
    if (af->tmp_path[0]) {
        unlink(af->tmp_path);
        temp_unregister(af->slot);
    }
    af->slot = -1;
    af->tmp_path[0] = '\0';
}

qr_status qr_atomic_open(qr_atomic_file *af, const char *path, qr_error *err)
{
    af->fp = NULL;
    af->tmp_path[0] = '\0';
    af->path[0] = '\0';
    af->direct = 0;
    af->slot = -1;
    af->no_sync = 0;
    target_kind kind;
    int exists;
    struct stat st;
    qr_status s = resolve(path, &kind, af->target, &exists, &st, err);
    if (s != QR_OK)
        return s;
    memcpy(af->path, path, strlen(path) + 1);
    if (kind == TARGET_STDOUT) {
        af->fp = stdout;
        af->direct = 1;
        return QR_OK;
    }
    if (kind == TARGET_DIRECT)
        return open_direct(af, err);
    if (exists && atomic_load(&no_clobber))
        return qr_fail(err, QR_ERR_IO, "%s: already exists, not overwritten", path);

    temp_template(af->target, af->tmp_path);
    int fd = create_temp(af);
    if (fd < 0) {
        int e = errno;
        af->tmp_path[0] = '\0';
        return qr_fail(err, QR_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    }
    if (exists) {
        /* the replacement keeps what the old file had; a change of owner is
         * only permitted to a privileged user, and only attempted there */
        if (st.st_uid != geteuid() || st.st_gid != getegid())
            (void)!fchown(fd, st.st_uid, st.st_gid);
        fchmod(fd, st.st_mode & 07777);
    } else {
        /* mkstemp makes 0600 files; a new file gets the usual umask-based mode */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        int e = errno;
        close(fd);
        remove_temp(af);
        return qr_fail(err, QR_ERR_IO, "%s: cannot open: %s", path, strerror(e));
    }
    return QR_OK;
}

static qr_status commit_direct(qr_atomic_file *af, qr_error *err)
{
    FILE *fp = af->fp;
    af->fp = NULL;
    errno = 0;
    int bad = fflush(fp) != 0 || ferror(fp);
    int e = errno;
    if (fp != stdout && fclose(fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad)
        return qr_fail(err, QR_ERR_IO, "%s: write failed: %s",
                       fp == stdout ? "standard output" : af->path, strerror(e ? e : EIO));
    return QR_OK;
}

/* Puts the complete temporary in place: a rename, or under no-clobber a link
 * that fails on an existing name (then the temporary goes). */
static int place_temp(const qr_atomic_file *af)
{
    if (!atomic_load(&no_clobber))
        return rename(af->tmp_path, af->target);
    if (link(af->tmp_path, af->target) == 0)
        return unlink(af->tmp_path) == 0 || errno == ENOENT ? 0 : -1;
    if (errno == EEXIST)
        return -1;
    /* a file system without hard links: check, then rename */
    struct stat st;
    if (lstat(af->target, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(af->tmp_path, af->target);
}

/* After the rename the directory entry itself must reach the disk. File
 * systems that cannot sync a directory say so with EINVAL; that is no error. */
static qr_status sync_dir(const qr_atomic_file *af, qr_error *err)
{
    char dir[4096];
    dir_of(af->target, dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return qr_fail(err, QR_ERR_IO, "%s: cannot sync its directory: %s", af->path,
                       strerror(errno));
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0 && e != EINVAL && e != ENOTSUP && e != EROFS)
        return qr_fail(err, QR_ERR_IO, "%s: cannot sync its directory: %s", af->path,
                       strerror(e));
    return QR_OK;
}

qr_status qr_atomic_commit(qr_atomic_file *af, qr_error *err)
{
    if (!af->fp)
        return qr_fail(err, QR_ERR_IO, "%s: not open", af->path);
    if (af->direct)
        return commit_direct(af, err);
    errno = 0;
    int bad = ferror(af->fp) || fflush(af->fp) != 0 || (!af->no_sync && fsync(fileno(af->fp)) != 0);
    int e = errno;
    if (fclose(af->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    af->fp = NULL;
    if (bad) {
        remove_temp(af);
        return qr_fail(err, QR_ERR_IO, "%s: write failed: %s", af->path, strerror(e ? e : EIO));
    }
    if (place_temp(af) != 0) {
        e = errno;
        remove_temp(af);
        if (e == EEXIST)
            return qr_fail(err, QR_ERR_IO, "%s: already exists, not overwritten", af->path);
        return qr_fail(err, QR_ERR_IO, "%s: cannot rename into place: %s", af->path,
                       strerror(e));
    }
    temp_unregister(af->slot);
    af->slot = -1;
    af->tmp_path[0] = '\0';
    return af->no_sync ? QR_OK : sync_dir(af, err);
}

void qr_atomic_abort(qr_atomic_file *af)
{
    if (af->fp && af->fp != stdout)
        fclose(af->fp);
    else if (af->fp)
        fflush(af->fp);
    af->fp = NULL;
    remove_temp(af);
}
