/* files.c — see files.h. */
#include <dirent.h>
#include "files.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SLOTS = 8, PATH_LEN = 1200 };

/* Each path-returning function rotates over its own buffers. */
typedef char path_slots[SLOTS][PATH_LEN];

static char *next_slot(path_slots *bufs, int *slot)
{
    return (*bufs)[(*slot)++ % SLOTS];
}

const char *qr_test_tmp(const char *name)
{
    const char *dir = getenv("QR_TMP");
    static path_slots bufs;
    static int slot;
    char *out = next_slot(&bufs, &slot);
    snprintf(out, PATH_LEN, "%s/%d-%s", dir ? dir : "/tmp", (int)getpid(), name);
    return out;
}

const char *qr_test_tmp_dir(const char *name)
{
    const char *dir = qr_test_tmp(name);
    cr_assert(mkdir(dir, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
    return dir;
}

const char *qr_test_src(const char *rel)
{
    const char *dir = getenv("QR_SOURCE_DIR");
    static path_slots bufs;
    static int slot;
    char *out = next_slot(&bufs, &slot);
    snprintf(out, PATH_LEN, "%s/%s", dir ? dir : "..", rel);
    return out;
}

const char *qr_test_join(const char *dir, const char *name)
{
    static path_slots bufs;
    static int slot;
    char *out = next_slot(&bufs, &slot);
    snprintf(out, PATH_LEN, "%s/%s", dir, name);
    return out;
}

char *qr_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap + 1);
    cr_assert_not_null(buf);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            buf = realloc(buf, (cap *= 2) + 1);
            cr_assert_not_null(buf);
        }
    }
    cr_assert(!ferror(f), "cannot read %s", path);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

void qr_test_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot create %s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(data, 1, len, f), len, "cannot write %s", path);
    cr_assert_eq(fclose(f), 0, "cannot write %s", path);
}

void qr_test_write_text(const char *path, const char *text)
{
    qr_test_write_file(path, text, strlen(text));
}

bool qr_test_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

bool qr_test_same_bytes(const char *a, const char *b)
{
    size_t na, nb;
    char *da = qr_test_read_file(a, &na), *db = qr_test_read_file(b, &nb);
    bool same = na == nb && memcmp(da, db, na) == 0;
    free(da);
    free(db);
    return same;
}

bool qr_test_holds(const char *path, const void *data, size_t len)
{
    size_t n;
    char *d = qr_test_read_file(path, &n);
    bool same = n == len && memcmp(d, data, len) == 0;
    free(d);
    return same;
}

int qr_test_count_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot list %s", dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp-"))
            n++;
    closedir(d);
    return n;
}
