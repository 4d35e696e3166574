/* scene_parse.c — the parallel reader of text scenes (.circles and .par).
 *
 * The file is mapped; its header is read first, then the rest is cut at line
 * starts into chunks that threads parse independently (scene_lines.c, the
 * serial reader's own line code) into per-chunk buffers, which are then
 * copied into the scene in file order. A chunk knows nothing of the lines
 * before it, so its parse keeps no error message: when a chunk fails, or the
 * circles overrun the header's count within it, that one chunk is parsed
 * again on its own with its true first line number and circle count, which
 * gives exactly the serial reader's first error. The result therefore does
 * not depend on the chunk or thread count.
 *
 * A mapped file that another process truncates while we read it raises
 * SIGBUS; files that cannot be mapped (pipes, devices) go to the serial
 * reader.
 */
#include "scene/scene_internal.h"
#include "scene/io/scene_text.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "quadrender/threads.h"

/* Chunks are at least this long by default (smaller files use fewer
 * threads) ... */
#define QR_CHUNK_MIN (1 << 20)
/* ... and there are a few per thread, so that uneven chunks even out. */
#define QR_CHUNKS_PER_THREAD 4

typedef struct qr_chunk {
    const char *begin, *end;
    qr_circle_buf buf;
    long lines;      /* lines read (all of them, unless st says otherwise) */
    size_t at;       /* index of its first circle in the scene */
    qr_status st;
    qr_error err;    /* its message, line numbers counted from the chunk */
} qr_chunk;

typedef struct qr_parse_job {
    const char *path;
    qr_text_kind kind;
    int fast;
    qr_chunk *chunks;
    qr_scene *scene;
} qr_parse_job;

int qr_default_threads(void)
{
    return qr_threads();
}

static void qr_reader_init(qr_line_reader *r, const char *path, const char *begin,
                           const char *end, long line, int fast, int at_start)
{
    r->fp = NULL;
    r->at_start = at_start;
    r->pos = begin;
    r->end = end;
    r->path = path;
    r->line = line;
    r->fast = fast;
}

static void qr_parse_chunk(void *ctx, int t)
{
    qr_parse_job *job = ctx;
    qr_chunk *c = &job->chunks[t];
    qr_line_reader r;
    qr_reader_init(&r, job->path, c->begin, c->end, 0, job->fast, 0);
    c->buf.max = SIZE_MAX / (QR_FIELDS * sizeof(float));
    int64_t count = 0;
    c->st = qr_text_parse_body(&r, job->kind, INT64_MAX, 0, &count, &c->buf, &c->err);
    c->lines = r.line;
}

static void qr_copy_chunk(void *ctx, int t)
{
    qr_parse_job *job = ctx;
    qr_chunk *c = &job->chunks[t];
    qr_text_copy_circles(&c->buf, job->scene, c->at);
    free(c->buf.v);
    c->buf.v = NULL;
}

/* Cuts [begin, end) into nchunks pieces that each start at a line start. */
static void qr_split(qr_chunk *chunks, int nchunks, const char *begin, const char *end)
{
    size_t len = (size_t)(end - begin);
    const char *prev = begin;
    for (int k = 0; k < nchunks; ++k) {
        const char *q = end;
        if (k + 1 < nchunks) {
            q = begin + (size_t)((double)len * (k + 1) / nchunks);
            if (q < prev)
                q = prev;
            const char *nl = memchr(q, '\n', (size_t)(end - q));
            q = nl ? nl + 1 : end;
        }
        chunks[k].begin = prev;
        chunks[k].end = q;
        prev = q;
    }
}

/* Parses chunk c again with its true context, to get the serial reader's
 * message for the first problem in it. */
static qr_status qr_chunk_error(const qr_parse_job *job, qr_chunk *c, long line, int64_t count,
                                int64_t n, long header_line, qr_error *err)
{
    free(c->buf.v);
    c->buf.v = NULL;
    qr_line_reader r;
    qr_reader_init(&r, job->path, c->begin, c->end, line, job->fast, 0);
    qr_circle_buf tmp = {.max = SIZE_MAX / (QR_FIELDS * sizeof(float))};
    qr_status st = qr_text_parse_body(&r, job->kind, n, header_line, &count, &tmp, err);
    free(tmp.v);
    if (st != QR_OK)
        return st;
    /* Only a failure that does not repeat (memory) gets here. */
    if (err)
        *err = c->err;
    return c->st;
}

static qr_status qr_read_mapped(const char *path, qr_text_kind kind, int threads,
                                size_t chunk_min, const char *data, size_t len, qr_scene **out,
                                qr_error *err)
{
    const struct lconv *lc = localeconv();
    qr_parse_job job = {.path = path, .kind = kind};
    /* The fast number path knows only '.' as the decimal point. */
    job.fast = lc->decimal_point[0] == '.' && lc->decimal_point[1] == '\0';

    qr_line_reader r;
    qr_reader_init(&r, path, data, data + len, 0, job.fast, 1);
    int64_t n;
    long header_line;
    qr_status st = qr_text_read_header(&r, kind, &n, &header_line, err);
    if (st != QR_OK)
        return st;

    size_t body = (size_t)(r.end - r.pos);
    size_t most = (size_t)threads * QR_CHUNKS_PER_THREAD;
    size_t want = body / (chunk_min ? chunk_min : 1);
    int nchunks = (int)(want < 1 ? 1 : want > most ? most : want);
    job.chunks = calloc((size_t)nchunks, sizeof *job.chunks);
    if (!job.chunks)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory reading %s", path);
    qr_split(job.chunks, nchunks, r.pos, r.end);
    qr_parallel_for(nchunks, threads, qr_parse_chunk, &job);

    long line = header_line;
    int64_t count = 0;
    for (int k = 0; k < nchunks; ++k) {
        qr_chunk *c = &job.chunks[k];
        if (c->st != QR_OK || count + (int64_t)c->buf.n > n) {
            st = qr_chunk_error(&job, c, line, count, n, header_line, err);
            goto done;
        }
        c->at = (size_t)count;
        line += c->lines;
        count += (int64_t)c->buf.n;
    }
    if (count < n) {
        st = qr_text_short_error(path, line, n, count, err);
        goto done;
    }
    if ((st = qr_scene_create((int32_t)count, QR_ANIM_NONE, &job.scene, err)) != QR_OK)
        goto done;
    qr_parallel_for(nchunks, threads, qr_copy_chunk, &job);
    qr_text_finish_scene(job.scene, path, kind);
    *out = job.scene;

done:
    for (int k = 0; k < nchunks; ++k)
        free(job.chunks[k].buf.v);
    free(job.chunks);
    return st;
}

qr_status qr_scene_read_text(const char *path, qr_text_kind kind, int threads, qr_scene **out,
                             qr_error *err)
{
    return qr_scene_read_text_chunked(path, kind, threads, QR_CHUNK_MIN, out, err);
}

/* What cannot be mapped (a pipe, a FIFO, a device) is read by the serial
 * reader from this open: a FIFO opened again would wait for a writer that
 * may have come and gone. */
static qr_status serial_from(const char *path, int fd, qr_text_kind kind, qr_scene **out,
                             qr_error *err)
{
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        const int e = errno;
        close(fd);
        return qr_fail(err, QR_ERR_IO, "%s: %s", path, strerror(e));
    }
    return qr_scene_read_text_stream(path, fp, kind, out, err);
}

qr_status qr_scene_read_text_chunked(const char *path, qr_text_kind kind, int threads,
                                     size_t chunk_min, qr_scene **out, qr_error *err)
{
    *out = NULL;
    if (threads <= 0)
        return qr_scene_read_text_serial(path, kind, out, err);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return qr_fail(err, QR_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    int got_stat = fstat(fd, &sb) == 0;
    if (!got_stat || !S_ISREG(sb.st_mode)) {
        if (got_stat && S_ISDIR(sb.st_mode)) {
            close(fd);
            return qr_fail(err, QR_ERR_IO, "%s: is a directory", path);
        }
        return serial_from(path, fd, kind, out, err);
    }
    size_t len = (size_t)sb.st_size;
    const char *data = "";
    void *map = NULL;
    if (len > 0) {
        map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED)
            return serial_from(path, fd, kind, out, err);
        data = map;
    }
    close(fd);
    qr_status st = qr_read_mapped(path, kind, threads, chunk_min, data, len, out, err);
    if (map)
        munmap(map, len);
    return st;
}

/* The public entries: the parallel reader on every core. */
qr_status qr_scene_read_circles(const char *path, qr_scene **out, qr_error *err)
{
    return qr_scene_read_text(path, QR_TEXT_CIRCLES, qr_default_threads(), out, err);
}

qr_status qr_scene_read_par(const char *path, qr_scene **out, qr_error *err)
{
    return qr_scene_read_text(path, QR_TEXT_PAR, qr_default_threads(), out, err);
}
