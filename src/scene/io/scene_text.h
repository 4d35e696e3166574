/* scene_text.h — the pieces of the text scene readers (.circles and .par)
 * that the serial stdio reader (scene_file.c) and the parallel mapped reader
 * (scene_parse.c) share, so that both accept the same lines, give the same
 * floats and word every error the same way.
 */
#ifndef QR_SCENE_TEXT_H
#define QR_SCENE_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quadrender/scene.h"

/* Longest accepted line, in bytes without the newline. A circle line is
 * about 110 bytes; this leaves room for generous spacing and comments. */
#define QR_LINE_MAX 4096
#define QR_FIELDS 7

typedef enum qr_text_kind { QR_TEXT_CIRCLES, QR_TEXT_PAR } qr_text_kind;

/* Lines come either from a stdio stream (fp) or from memory [pos, end). */
typedef struct qr_line_reader {
    FILE *fp;
    const char *pos, *end;
    const char *path;
    long line;     /* number of the line in buf, 1-based */
    int fast;      /* numbers go through qr_text_parse_float's exact fast path */
    int at_start;  /* the reader starts at the file's first byte (a byte order
                      mark may open its first line) */
    char buf[QR_LINE_MAX + 1];
} qr_line_reader;

/* Circles read so far, 7 floats each in the order x y z r R G B (a .par
 * line's r goes to slot 3 and its colour is white), growing up to `max`. */
typedef struct qr_circle_buf {
    float *v;
    size_t n, cap, max;
} qr_circle_buf;

/* Reads the first content line and parses it as kind's header: the circle
 * count into *n and its line number into *header_line. */
qr_status qr_text_read_header(qr_line_reader *r, qr_text_kind kind, int64_t *n,
                              long *header_line, qr_error *err);

/* Parses circle lines until the reader's end. *count is the number of
 * circles before this stretch of the file (updated); more than n in all is
 * an error naming header_line. Circles are appended to out. */
qr_status qr_text_parse_body(qr_line_reader *r, qr_text_kind kind, int64_t n, long header_line,
                             int64_t *count, qr_circle_buf *out, qr_error *err);

/* The "unexpected end of file" error for a file of `lines` lines. */
qr_status qr_text_short_error(const char *path, long lines, int64_t n, int64_t count,
                              qr_error *err);

/* Copies b's circles into scene s's arrays from circle `at` on. */
void qr_text_copy_circles(const qr_circle_buf *b, qr_scene *s, size_t at);

/* Names s after path and shades it for kind. */
void qr_text_finish_scene(qr_scene *s, const char *path, qr_text_kind kind);

/* The float strtof reads from the whole NUL-terminated token tok: returns 1
 * with *out, or 0 when strtof does not read all of tok. With fast set, plain
 * decimals are converted without strtof, to the very same bits. */
int qr_text_parse_float(const char *tok, int fast, float *out);

/* Reads a text scene. threads == 0: the serial stdio reader (any file,
 * pipes too; numbers through strtof alone). threads >= 1: the file is mapped
 * and its lines parsed by that many threads; a file that cannot be mapped
 * falls back to the serial reader. Either way the same scene or the same
 * error comes back. */
qr_status qr_scene_read_text(const char *path, qr_text_kind kind, int threads, qr_scene **out,
                             qr_error *err);

/* qr_scene_read_text with chunks of at least chunk_min bytes (the default
 * is 1 MiB); tests cut small files into many chunks with it. */
qr_status qr_scene_read_text_chunked(const char *path, qr_text_kind kind, int threads,
                                     size_t chunk_min, qr_scene **out, qr_error *err);

/* The serial reader of scene_file.c. */
qr_status qr_scene_read_text_serial(const char *path, qr_text_kind kind, qr_scene **out,
                                    qr_error *err);

/* The serial reader over a stream already open (closed here): a pipe or a
 * FIFO is read once, from the open that met its writer, never reopened
 * (path names it in messages). */
qr_status qr_scene_read_text_stream(const char *path, FILE *fp, qr_text_kind kind, qr_scene **out,
                                    qr_error *err);

/* Worker threads for a parallel read or transposition: the online CPUs. */
int qr_default_threads(void);

#endif
