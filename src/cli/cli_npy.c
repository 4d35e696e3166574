/* cli_npy.c — 1-D integer arrays written as a NumPy .npy file, or several
 * as a .npz (see cli.h): `query`'s answers.
 *
 * A .npz is what numpy.savez writes: a ZIP archive holding NAME.npy for
 * each array, stored (no compression), each member's CRC-32 from zlib. An
 * archive or member past 4 GiB takes ZIP64's records, as Python's zipfile
 * writes them, only where a size or an offset needs them. Files go through
 * the library's writer (quadrender/file.h): whole or not at all.
 */
#include "cli/cli.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "quadrender/file.h"
#include "quadrender/npy.h"

/* Bytes converted to little-endian at a time. */
#define NPY_CHUNK (1 << 16)

/* ---- .npy ------------------------------------------------------------------------------ */

/* Writes the little-endian bytes of a->data[first .. first + n) into out. */
static void le_bytes(const cli_array *a, int64_t first, size_t n, unsigned char *out)
{
    const unsigned char *src = (const unsigned char *)a->data + (size_t)first * a->itemsize;
    for (size_t i = 0; i < n; i++, src += a->itemsize, out += a->itemsize) {
        uint64_t v = 0;
        if (a->itemsize == 8) {
            memcpy(&v, src, 8);
        } else {
            uint32_t u;
            memcpy(&u, src, 4);
            v = u;
        }
        for (int b = 0; b < a->itemsize; b++)
            out[b] = (unsigned char)(v >> (8 * b));
    }
}

/* An array's .npy bytes: its header, then its data. */
typedef struct npy_bytes {
    char head[QR_NPY_HEADER_WRITE_MAX];
    size_t head_len;
    uint64_t total; /* header and data */
} npy_bytes;

static void npy_prepare(const cli_array *a, npy_bytes *b)
{
    b->head_len = qr_npy_header_write(b->head, a->descr, 1, &a->n);
    b->total = b->head_len + (uint64_t)a->n * (uint64_t)a->itemsize;
}

/* Passes the array's .npy bytes, a chunk at a time, to fp (when not NULL)
 * and into *crc (when not NULL). Answers 0 when a write failed. */
static int npy_stream(const cli_array *a, const npy_bytes *b, FILE *fp, uLong *crc)
{
    static unsigned char buf[NPY_CHUNK];
    if (crc)
        *crc = crc32(*crc, (const Bytef *)b->head, (uInt)b->head_len);
    if (fp && fwrite(b->head, 1, b->head_len, fp) != b->head_len)
        return 0;
    /* a little-endian host's values are the file's bytes already */
    const uint16_t one = 1;
    const bool host_le = *(const unsigned char *)&one == 1;
    const int64_t per = NPY_CHUNK / a->itemsize;
    for (int64_t i = 0; i < a->n; i += per) {
        size_t n = (size_t)(a->n - i < per ? a->n - i : per), bytes = n * (size_t)a->itemsize;
        const unsigned char *p = buf;
        if (host_le)
            p = (const unsigned char *)a->data + (size_t)i * (size_t)a->itemsize;
        else
            le_bytes(a, i, n, buf);
        if (crc)
            *crc = crc32(*crc, p, (uInt)bytes);
        if (fp && fwrite(p, 1, bytes, fp) != bytes)
            return 0;
    }
    return 1;
}

static qr_status write_failed(qr_file *f, const char *path, qr_error *err)
{
    int e = errno;
    qr_file_abort(f);
    return qr_fail(err, QR_ERR_IO, "%s: write failed: %s", path, strerror(e));
}

qr_status cli_write_npy(const char *path, const cli_array *a, qr_error *err)
{
    npy_bytes b;
    npy_prepare(a, &b);
    qr_file *f;
    qr_status st = qr_file_open(path, &f, err);
    if (st != QR_OK)
        return st;
    if (!npy_stream(a, &b, qr_file_stream(f), NULL))
        return write_failed(f, path, err);
    return qr_file_commit(f, err);
}

/* ---- .npz ------------------------------------------------------------------------------ */

#define ZIP_LIMIT 0xFFFFFFFFu   /* a 32-bit field at or past this takes ZIP64's */
#define ZIP_MEMBERS_MAX 8       /* the most arrays an archive holds here */
#define ZIP_NAME_MAX 64
/* version needed to extract: 2.0 (stored), 4.5 (ZIP64) */
#define ZIP_V20 20
#define ZIP_V45 45
/* made by UNIX (3), a regular file of mode 0644 */
#define ZIP_MADE_BY_UNIX 0x0300u
#define ZIP_EXTERNAL_ATTR ((uint32_t)0100644 << 16)
/* 1980-01-01 00:00, the earliest DOS date, as Python's zipfile dates
 * members by default: the same arrays make the same bytes */
#define ZIP_DOS_TIME 0
#define ZIP_DOS_DATE ((1u << 5) | 1u)

/* A little-endian record under construction. */
typedef struct zip_rec {
    unsigned char b[256];
    size_t n;
} zip_rec;

static void put(zip_rec *r, uint64_t v, int bytes)
{
    for (int k = 0; k < bytes; k++)
        r->b[r->n++] = (unsigned char)(v >> (8 * k));
}

static void put_bytes(zip_rec *r, const void *p, size_t n)
{
    memcpy(r->b + r->n, p, n);
    r->n += n;
}

/* One member: its name, CRC, size and where its local header starts. */
typedef struct zip_member {
    char name[ZIP_NAME_MAX];
    size_t name_len;
    npy_bytes npy;
    uLong crc;
    uint64_t offset;
} zip_member;

/* What the local header and the directory's entry share: the version
 * needed, flags, method, date, CRC and both sizes (as 32-bit fields). */
static void put_entry(zip_rec *r, int version, uLong crc, uint64_t size)
{
    put(r, (uint64_t)version, 2);
    put(r, 0, 2); /* flags */
    put(r, 0, 2); /* stored */
    put(r, ZIP_DOS_TIME, 2);
    put(r, ZIP_DOS_DATE, 2);
    put(r, crc, 4);
    put(r, size, 4); /* compressed */
    put(r, size, 4);
}

/* The local header: with ZIP64 (the size past the limit, or forced) both
 * sizes go to the extra field. */
static void local_header(zip_rec *r, const zip_member *m, bool zip64)
{
    r->n = 0;
    put(r, 0x04034b50, 4);
    put_entry(r, zip64 ? ZIP_V45 : ZIP_V20, m->crc, zip64 ? ZIP_LIMIT : m->npy.total);
    put(r, m->name_len, 2);
    put(r, zip64 ? 20 : 0, 2);
    put_bytes(r, m->name, m->name_len);
    if (zip64) {
        put(r, 0x0001, 2);
        put(r, 16, 2);
        put(r, m->npy.total, 8);
        put(r, m->npy.total, 8);
    }
}

/* The central directory's entry: each field past the limit (or all,
 * forced) goes to the ZIP64 extra field, in the order the format gives. */
static void central_header(zip_rec *r, const zip_member *m, bool force)
{
    const bool big_size = force || m->npy.total >= ZIP_LIMIT;
    const bool big_offset = force || m->offset >= ZIP_LIMIT;
    const int extra = (big_size ? 16 : 0) + (big_offset ? 8 : 0);
    const int version = extra ? ZIP_V45 : ZIP_V20;
    r->n = 0;
    put(r, 0x02014b50, 4);
    put(r, ZIP_MADE_BY_UNIX | (unsigned)version, 2);
    put_entry(r, version, m->crc, big_size ? ZIP_LIMIT : m->npy.total);
    put(r, m->name_len, 2);
    put(r, extra ? 4 + extra : 0, 2);
    put(r, 0, 2); /* comment */
    put(r, 0, 2); /* disk */
    put(r, 0, 2); /* internal attributes */
    put(r, ZIP_EXTERNAL_ATTR, 4);
    put(r, big_offset ? ZIP_LIMIT : m->offset, 4);
    put_bytes(r, m->name, m->name_len);
    if (extra) {
        put(r, 0x0001, 2);
        put(r, (uint64_t)extra, 2);
        if (big_size) {
            put(r, m->npy.total, 8);
            put(r, m->npy.total, 8);
        }
        if (big_offset)
            put(r, m->offset, 8);
    }
}

/* The end records: ZIP64's end record and its locator first where the
 * directory's size or offset needs them (or forced). */
static void end_records(zip_rec *r, int members, uint64_t dir_offset, uint64_t dir_size,
                        bool force)
{
    const uint64_t end64 = dir_offset + dir_size;
    const bool zip64 = force || dir_offset >= ZIP_LIMIT || dir_size >= ZIP_LIMIT;
    r->n = 0;
    if (zip64) {
        put(r, 0x06064b50, 4);
        put(r, 44, 8); /* the record's size after this field */
        put(r, ZIP_MADE_BY_UNIX | ZIP_V45, 2);
        put(r, ZIP_V45, 2);
        put(r, 0, 4); /* this disk */
        put(r, 0, 4); /* the directory's disk */
        put(r, (uint64_t)members, 8);
        put(r, (uint64_t)members, 8);
        put(r, dir_size, 8);
        put(r, dir_offset, 8);
        put(r, 0x07064b50, 4); /* the locator */
        put(r, 0, 4);
        put(r, end64, 8);
        put(r, 1, 4); /* disks */
    }
    put(r, 0x06054b50, 4);
    put(r, 0, 2);
    put(r, 0, 2);
    put(r, (uint64_t)members, 2);
    put(r, (uint64_t)members, 2);
    put(r, zip64 ? ZIP_LIMIT : dir_size, 4);
    put(r, zip64 ? ZIP_LIMIT : dir_offset, 4);
    put(r, 0, 2); /* comment */
}

qr_status cli_write_npz(const char *path, const cli_array *arrays, int n, bool force_zip64,
                        qr_error *err)
{
    if (n < 1 || n > ZIP_MEMBERS_MAX)
        return qr_fail(err, QR_ERR_INVALID, "%s: %d arrays (1 to %d)", path, n, ZIP_MEMBERS_MAX);
    zip_member m[ZIP_MEMBERS_MAX];
    uint64_t at = 0;
    for (int k = 0; k < n; k++) {
        const int len = snprintf(m[k].name, sizeof m[k].name, "%s.npy", arrays[k].name);
        if (len < 0 || len >= ZIP_NAME_MAX)
            return qr_fail(err, QR_ERR_INVALID, "%s: array name '%s' too long", path,
                           arrays[k].name);
        m[k].name_len = (size_t)len;
        npy_prepare(&arrays[k], &m[k].npy);
        /* the CRC first: it goes before the data */
        m[k].crc = crc32(0L, Z_NULL, 0);
        npy_stream(&arrays[k], &m[k].npy, NULL, &m[k].crc);
        m[k].offset = at;
        zip_rec r;
        local_header(&r, &m[k], force_zip64 || m[k].npy.total >= ZIP_LIMIT);
        at += r.n + m[k].npy.total;
    }
    qr_file *f;
    qr_status st = qr_file_open(path, &f, err);
    if (st != QR_OK)
        return st;
    FILE *fp = qr_file_stream(f);
    zip_rec r;
    for (int k = 0; k < n; k++) {
        local_header(&r, &m[k], force_zip64 || m[k].npy.total >= ZIP_LIMIT);
        if (fwrite(r.b, 1, r.n, fp) != r.n || !npy_stream(&arrays[k], &m[k].npy, fp, NULL))
            return write_failed(f, path, err);
    }
    uint64_t dir_size = 0;
    for (int k = 0; k < n; k++) {
        central_header(&r, &m[k], force_zip64);
        dir_size += r.n;
        if (fwrite(r.b, 1, r.n, fp) != r.n)
            return write_failed(f, path, err);
    }
    end_records(&r, n, at, dir_size, force_zip64);
    if (fwrite(r.b, 1, r.n, fp) != r.n)
        return write_failed(f, path, err);
    return qr_file_commit(f, err);
}
