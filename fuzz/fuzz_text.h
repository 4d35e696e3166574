/* fuzz_text.h — the body of the .circles and .par harnesses: the serial
 * reader is the oracle, and the parallel reader, cut into chunks of 1 and
 * 61 bytes on 1 and 3 threads, must give the same scene or the same status
 * and message. */
#ifndef QR_FUZZ_TEXT_H
#define QR_FUZZ_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "quadrender/threads.h"
#include "scene/io/scene_text.h"

static inline void fuzz_text(qr_text_kind kind, const char *ext, const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(0, ext, data, size);
    qr_scene *ref = NULL;
    qr_error ref_err;
    const qr_status ref_st = qr_scene_read_text_serial(path, kind, &ref, &ref_err);
    fuzz_check((ref_st == QR_OK) == (ref != NULL), "the serial reader's scene and status disagree");
    static const int threads[] = {1, 3};
    static const size_t chunks[] = {1, 61};
    for (int t = 0; t < 2; t++)
        for (int c = 0; c < 2; c++) {
            qr_scene *s = NULL;
            qr_error err;
            const qr_status st = qr_scene_read_text_chunked(path, kind, threads[t], chunks[c], &s, &err);
            fuzz_check(st == ref_st, "the parallel reader's status differs from the serial one's");
            if (st == QR_OK)
                fuzz_check(fuzz_same_scene(s, ref), "the parallel reader's scene differs");
            else
                fuzz_check(strcmp(err.msg, ref_err.msg) == 0, "the parallel reader's message differs");
            qr_scene_destroy(s);
        }
    qr_scene_destroy(ref);
}

#endif
