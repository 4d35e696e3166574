/* fuzz_npy.c — libFuzzer harness of the .npy reader. A file it accepts
 * must write back (qr_scene_write_npy) and read again to the same circles. */
#include <stdint.h>

#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(0, ".npy", data, size);
    qr_scene *s = NULL;
    qr_error err;
    const qr_status st = qr_scene_read_npy(path, &s, &err);
    fuzz_check((st == QR_OK) == (s != NULL), "the reader's scene and status disagree");
    if (st != QR_OK) return 0;
    fuzz_check(s->n >= 0, "negative circle count");
    const char *again = fuzz_file(1, ".npy", NULL, 0);
    fuzz_check(qr_scene_write_npy(s, again, &err) == QR_OK, "an accepted scene does not write back");
    qr_scene *t = NULL;
    fuzz_check(qr_scene_read_npy(again, &t, &err) == QR_OK, "a written scene does not read back");
    fuzz_check(fuzz_same_scene(s, t), "the round trip changed the circles");
    qr_scene_destroy(t);
    qr_scene_destroy(s);
    return 0;
}
