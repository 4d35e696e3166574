/* fuzz_circles.c — libFuzzer harness of the .circles reader (fuzz_text.h). */
#include "fuzz_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_text(QR_TEXT_CIRCLES, ".circles", data, size);
    return 0;
}
