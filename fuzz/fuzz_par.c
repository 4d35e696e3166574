/* fuzz_par.c — libFuzzer harness of the CS149 .par reader (fuzz_text.h). */
#include "fuzz_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_text(QR_TEXT_PAR, ".par", data, size);
    return 0;
}
