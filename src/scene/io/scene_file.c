/* scene_file.c — the serial reader of text scenes (.circles, CS149 .par)
 * and the .circles writer.
 *
 * The format is documented in docs/scene-format.md. The serial reader
 * streams the file through a bounded line buffer (scene_lines.c): a file of
 * any size, or a pipe, is read line by line, and memory grows with the
 * circles actually read, so a lying or hostile header cannot make us
 * allocate much or read out of bounds. Its numbers go through strtof alone:
 * it is the reference the parallel reader (scene_parse.c) is tested against,
 * and the parallel reader's fallback for what it cannot map (pipes).
 * Every rejection names the file and line: "path:line: what is wrong".
 */
#include "scene/scene_internal.h"
#include "scene/io/scene_text.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/atomic_file.h"

static const char *const qr_circles_fields[QR_FIELDS] = {"x", "y", "z", "r", "R", "G", "B"};

qr_status qr_scene_read_text_serial(const char *path, qr_text_kind kind, qr_scene **out,
                                    qr_error *err)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return qr_fail(err, QR_ERR_IO, "%s: %s", path, strerror(errno));
    return qr_scene_read_text_stream(path, fp, kind, out, err);
}

qr_status qr_scene_read_text_stream(const char *path, FILE *fp, qr_text_kind kind, qr_scene **out,
                                    qr_error *err)
{
    *out = NULL;
    qr_line_reader *r = malloc(sizeof *r);
    if (!r) {
        fclose(fp);
        return qr_fail(err, QR_ERR_NOMEM, "out of memory reading %s", path);
    }
    memset(r, 0, offsetof(qr_line_reader, buf));
    r->path = path;
    r->at_start = 1;
    r->fp = fp;

    qr_status st = QR_OK;
    qr_circle_buf buf = {0};
    struct stat sb;
    if (fstat(fileno(r->fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        st = qr_fail(err, QR_ERR_IO, "%s: is a directory", path);
        goto done;
    }
    int64_t n, count = 0;
    long header_line;
    if ((st = qr_text_read_header(r, kind, &n, &header_line, err)) != QR_OK)
        goto done;
    /* The buffer grows with the circles read, up to the announced count. */
    buf.max = (size_t)n;
    if ((st = qr_text_parse_body(r, kind, n, header_line, &count, &buf, err)) != QR_OK)
        goto done;
    if (count < n) {
        st = qr_text_short_error(path, r->line, n, count, err);
        goto done;
    }
    qr_scene *s;
    if ((st = qr_scene_create((int32_t)count, QR_ANIM_NONE, &s, err)) != QR_OK)
        goto done;
    qr_text_copy_circles(&buf, s, 0);
    qr_text_finish_scene(s, path, kind);
    *out = s;

done:
    fclose(r->fp);
    free(r);
    free(buf.v);
    return st;
}

qr_status qr_scene_write_circles(const qr_scene *scene, const char *path, qr_error *err)
{
    /* A written file must always read back: refuse what the reader rejects. */
    for (int32_t i = 0; i < scene->n; ++i) {
        float v[QR_FIELDS] = {scene->x[i],   scene->y[i],     scene->z[i],   scene->r[i],
                              scene->red[i], scene->green[i], scene->blue[i]};
        for (int k = 0; k < QR_FIELDS; ++k)
            if (!isfinite(v[k]))
                return qr_fail(err, QR_ERR_INVALID,
                               "%s: cannot write circle %ld: %s is not a finite number", path,
                               (long)i, qr_circles_fields[k]);
        if (v[3] < 0.0f)
            return qr_fail(err, QR_ERR_INVALID, "%s: cannot write circle %ld: negative radius",
                           path, (long)i);
    }

    qr_atomic_file af;
    qr_status st = qr_atomic_open(&af, path, err);
    if (st != QR_OK)
        return st;
    if (fprintf(af.fp, "circles %ld\n", (long)scene->n) < 0)
        goto write_error;
    for (int32_t i = 0; i < scene->n; ++i) {
        /* %.9g gives every float back bit for bit through strtof. */
        if (fprintf(af.fp, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", (double)scene->x[i],
                    (double)scene->y[i], (double)scene->z[i], (double)scene->r[i],
                    (double)scene->red[i], (double)scene->green[i], (double)scene->blue[i]) < 0)
            goto write_error;
    }
    return qr_atomic_commit(&af, err);

write_error:;
    int e = errno;
    qr_atomic_abort(&af);
    return qr_fail(err, QR_ERR_IO, "%s: write failed: %s", path, strerror(e));
}
