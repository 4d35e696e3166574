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
#include <stdio.h>

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

#ifdef __cplusplus
}
#endif
#endif
