/* text.h — user text (file names, file content, arguments) written into
 * the formats that quote it: terminal messages, JSON, CSV, XML/SVG.
 *
 * User text is bytes, not necessarily UTF-8, and may hold control bytes.
 * Each writer keeps its output well formed whatever comes in: one escaper
 * per format (quadrender/text.h), used by every place that writes that
 * format, so that the formats cannot disagree about a name; here the UTF-8
 * helpers they rest on, internal.
 */
#ifndef QR_TEXT_H
#define QR_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* the escapers of each format: public */
#include "quadrender/text.h"

/* The length (1 to 4) of the well-formed UTF-8 character at s[0..n-1], or 0
 * when the bytes there are not one (a stray continuation byte, an overlong
 * form, a surrogate, a value past U+10FFFF, a character cut short). */
size_t qr_utf8_char_len(const char *s, size_t n);

/* The longest prefix of s[0..n-1] of at most max bytes that does not end
 * inside a UTF-8 character (bytes that are not UTF-8 count one each). */
size_t qr_utf8_prefix(const char *s, size_t n, size_t max);

#endif
