/* fuzz_input.h — what the harnesses share: the readers take paths, so each
 * input goes to a file of this process (created once, rewritten per input,
 * removed at exit), and a failed check aborts, which libFuzzer reports as a
 * crash with the input that caused it. */
#ifndef QR_FUZZ_INPUT_H
#define QR_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "quadrender/scene.h"

/* The path of this process' input file `slot` (0 or 1) with extension ext
 * (".circles"), holding data[0..size). */
const char *fuzz_file(int slot, const char *ext, const uint8_t *data, size_t size);

/* Prints "fuzz check failed: <what>" and aborts unless ok. */
void fuzz_check(int ok, const char *what);

/* Whether two scenes hold the same circles, bit for bit. */
int fuzz_same_scene(const qr_scene *a, const qr_scene *b);

#endif
