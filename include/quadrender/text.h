/* quadrender/text.h — user text (scene and file names, file content) written
 * into the formats that quote it: terminal messages, JSON, CSV, XML/SVG;
 * the nearest of a list of words, for a typo's suggestion.
 *
 * A scene's name comes from its file's name or the user, so it is bytes,
 * not necessarily UTF-8, and may hold control bytes. Each writer here keeps
 * its output well formed whatever comes in; the library's own JSON (index
 * statistics) and the quadrender program's messages, tables and files use
 * the same ones, so that no two outputs disagree about a name.
 */
#ifndef QUADRENDER_TEXT_H
#define QUADRENDER_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quadrender/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* For a terminal: s with every byte that could move the cursor or change
 * the terminal's state, and every byte that is not UTF-8, written as \xHH
 * (\t \n \r as themselves escaped: "\t"); a backslash stays one. C0 and
 * DEL bytes, and the C1 characters U+0080..U+009F, are escaped; other
 * UTF-8 characters pass. Writes at most size - 1 bytes and a NUL, never
 * cutting an escape or a character; returns the length written. */
size_t qr_escape_terminal(char *dst, size_t size, const char *s);

/* A JSON string with its quotes: '"' and '\\' escaped, control bytes and
 * '<' as \u00HH (so that the JSON can stand inside an HTML <script>
 * element: no "</script>" in it), bytes that are not UTF-8 as \ufffd (the replacement character),
 * so that the output is valid UTF-8 JSON whatever s holds. */
void qr_json_write_string(FILE *fp, const char *s);

/* A CSV field as RFC 4180 has it: quoted (with '"' doubled) when it holds a
 * comma, a quote, CR or LF, or starts or ends with a blank; as is otherwise. */
void qr_csv_write_field(FILE *fp, const char *s);

/* XML character data or an attribute value: & < > " ' as entities; the
 * bytes XML 1.0 cannot hold (control bytes other than tab, LF and CR) and
 * bytes that are not UTF-8 as U+FFFD. */
void qr_xml_write_text(FILE *fp, const char *s);

/* The word of words[0..n) nearest to `word` by the optimal string alignment
 * distance, ASCII case ignored (insertions, deletions, substitutions and
 * swaps of two neighbours: "snwo" is one from "snow"), when it is close
 * enough to be a typo: at most two edits for a word of six bytes or more,
 * one from three, none below; else NULL. Words over 32 bytes are never
 * near. For "did you mean" in messages (scene names, options, commands). */
const char *qr_text_nearest(const char *word, const char *const *words, int n);

/* ---- a user's values, checked --------------------------------------------
 *
 * The values a front end takes from its user (the CLI's options, Python's
 * arguments) are checked by the library, so that every front end refuses
 * the same values with the same one-line message:
 *
 *     <name>: expected <what is expected>, got '<text>'
 *
 * `name` is the value's name as the front end spells it ("--width" in the
 * CLI, "width" in Python), `text` what the user gave (Python writes an int
 * in decimal and anything else as its repr, so that True or 8.0 is refused
 * as "got 'True'"). The qr_*_check_* functions next to what they check
 * (image.h, scene.h, index.h, threads.h) rest on these. */

/* Whether text is an unsigned decimal integer of at most max: digits only
 * (no sign, no blank, no "0x"), any length; *out then holds it. */
int qr_text_parse_u64(const char *text, uint64_t max, uint64_t *out);

/* QR_ERR_INVALID with "<name>: expected <expected>, got '<text>'". */
qr_status qr_text_refuse(const char *name, const char *text, const char *expected, qr_error *err);

/* Which of the n words `text` is: QR_OK and *index, or qr_text_refuse's
 * QR_ERR_INVALID saying `expected` ("auto, gpu, cpu or cpu-reference"). */
qr_status qr_text_check_word(const char *name, const char *text, const char *const *words, int n,
                             const char *expected, int *index, qr_error *err);

/* How qr_text_check_uint takes lo..hi. */
enum {
    QR_UINT_RANGE = 0, /* any integer from lo to hi */
    QR_UINT_POW2 = 1,  /* a power of two from lo to hi */
    QR_UINT_OR_0 = 2   /* also 0 (with QR_UINT_POW2: "0, or a power of two") */
};

/* An integer value `text` of `name` from lo to hi (as `how` says): QR_OK
 * and *out, or qr_text_refuse's QR_ERR_INVALID saying `expected`. */
qr_status qr_text_check_uint(const char *name, const char *text, uint64_t lo, uint64_t hi,
                             int how, const char *expected, uint64_t *out, qr_error *err);
/* The same into an int32_t (hi at most INT32_MAX). */
qr_status qr_text_check_int32(const char *name, const char *text, int32_t lo, int32_t hi, int how,
                              const char *expected, int32_t *out, qr_error *err);

#ifdef __cplusplus
}
#endif
#endif
