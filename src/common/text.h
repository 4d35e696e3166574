/* text.h — user text (file names, file content, arguments) written into
 * the formats that quote it: terminal messages, JSON, CSV, XML/SVG.
 *
 * User text is bytes, not necessarily UTF-8, and may hold control bytes.
 * Each writer here keeps its output well formed whatever comes in: one
 * escaper per format, used by every place that writes that format, so that
 * the formats cannot disagree about a name.
 */
#ifndef QR_TEXT_H
#define QR_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* The length (1 to 4) of the well-formed UTF-8 character at s[0..n-1], or 0
 * when the bytes there are not one (a stray continuation byte, an overlong
 * form, a surrogate, a value past U+10FFFF, a character cut short). */
size_t qr_utf8_char_len(const char *s, size_t n);

/* The longest prefix of s[0..n-1] of at most max bytes that does not end
 * inside a UTF-8 character (bytes that are not UTF-8 count one each). */
size_t qr_utf8_prefix(const char *s, size_t n, size_t max);

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

#endif
