/* json_check.h — a strict RFC 8259 well-formedness check (no values kept),
 * for what the stats writer emits: one value, optional whitespace around,
 * strings of valid UTF-8 with no raw control characters. */
#ifndef QR_FUZZ_JSON_CHECK_H
#define QR_FUZZ_JSON_CHECK_H

#include <stddef.h>

/* 1 when text[0..len) is one well-formed JSON value. */
int json_well_formed(const char *text, size_t len);

#endif
