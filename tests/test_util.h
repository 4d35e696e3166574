/* test_util.h — helpers shared by the Criterion test programs. */
#ifndef QR_TEST_UTIL_H
#define QR_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quadrender/gpu.h"

/* GPU tests call this first: on a machine without a usable GPU the test is
 * skipped with the reason (no driver, no device, wrong architecture). */
#define QR_REQUIRE_GPU()                                                 \
    do {                                                                 \
        qr_error qr_gpu_err_;                                            \
        if (qr_gpu_probe(NULL, &qr_gpu_err_) != QR_OK)                   \
            cr_skip_test("needs a GPU: %s", qr_gpu_err_.msg);           \
    } while (0)

/* A scratch path under the build's test tmp folder (QR_TMP), unique per name. */
static inline const char *qr_test_tmp(const char *name)
{
    static char buf[8][1024];
    static int slot;
    const char *dir = getenv("QR_TMP");
    char *out = buf[slot++ % 8];
    snprintf(out, sizeof buf[0], "%s/%d-%s", dir ? dir : "/tmp", (int)getpid(), name);
    return out;
}

/* A file under the source tree (QR_SOURCE_DIR), e.g. "scenes/three.circles". */
static inline const char *qr_test_src(const char *rel)
{
    static char buf[4][1024];
    static int slot;
    const char *dir = getenv("QR_SOURCE_DIR");
    char *out = buf[slot++ % 4];
    snprintf(out, sizeof buf[0], "%s/%s", dir ? dir : "..", rel);
    return out;
}

#endif
