/* test_util.h — what every test program includes: Criterion, the GPU skip
 * and library-call checks, and the file helpers (files.h). */
#ifndef QR_TEST_UTIL_H
#define QR_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "quadrender/error.h"
#include "quadrender/gpu.h"

/* GPU tests call this first: on a machine without a usable GPU the test is
 * skipped with the reason (no driver, no device, wrong architecture). */
#define QR_REQUIRE_GPU()                                                 \
    do {                                                                 \
        qr_error qr_gpu_err_;                                            \
        if (qr_gpu_probe(NULL, &qr_gpu_err_) != QR_OK)                   \
            cr_skip_test("needs a GPU: %s", qr_gpu_err_.msg);           \
    } while (0)

/* Asserts a library call succeeded, printing its error message if not. */
#define QR_CHECK(err, call)                                                       \
    do {                                                                          \
        qr_status s_ = (call);                                                    \
        cr_assert_eq(s_, QR_OK, "%s failed: %s", #call, (err).msg);               \
    } while (0)

#endif
