/* test_rng.c — qr_rng against the spec's check values and against glibc's
 * own rand(), which the spec reproduces (glibc is this platform's C library,
 * so the real srand/rand serve as an independent oracle here). */
#include "test_util.h"

#include <stdint.h>

#include "quadrender/rng.h"

Test(rng, spec_check_values_seed0)
{
    qr_rng g;
    qr_rng_seed(&g, 0);
    cr_assert_eq(qr_rng_next(&g), 1804289383);
    cr_assert_eq(qr_rng_next(&g), 846930886);
    cr_assert_eq(qr_rng_next(&g), 1681692777);
}

Test(rng, seed0_equals_seed1)
{
    qr_rng a, b;
    qr_rng_seed(&a, 0);
    qr_rng_seed(&b, 1);
    for (int i = 0; i < 1000; ++i)
        cr_assert_eq(qr_rng_next(&a), qr_rng_next(&b), "output %d", i);
}

Test(rng, spec_check_values_seed7)
{
    qr_rng g;
    qr_rng_seed(&g, 7);
    cr_assert_eq(qr_rng_next(&g), 1045618677);
    cr_assert_eq(qr_rng_next(&g), 1863967299);
    cr_assert_eq(qr_rng_next(&g), 1272579899);
}

/* Seeds around every edge of the uint32 -> int32 conversion glibc does. */
Test(rng, matches_glibc_rand)
{
    const unsigned seeds[] = {0u, 1u, 2u, 7u, 12345u, 2147483646u, 2147483647u,
                              2147483648u, 2147483653u, 3000000000u, 4294967294u, 4294967295u};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; ++s) {
        qr_rng g;
        qr_rng_seed(&g, seeds[s]);
        srand(seeds[s]);
        for (int i = 0; i < 1000; ++i) {
            int want = rand();
            int32_t got = qr_rng_next(&g);
            cr_assert_eq(got, want, "seed %u output %d: got %d, glibc %d", seeds[s], i, (int)got,
                         want);
        }
    }
}

/* Far along the stream, past many trips around the 34-entry ring. */
Test(rng, matches_glibc_rand_long_run)
{
    qr_rng g;
    qr_rng_seed(&g, 987654321u);
    srand(987654321u);
    for (int i = 0; i < 3000000; ++i) {
        int want = rand();
        int32_t got = qr_rng_next(&g);
        if (got != want)
            cr_assert_fail("output %d: got %d, glibc %d", i, (int)got, want);
    }
}

Test(rng, float_is_float_division_by_2pow31)
{
    qr_rng a, b;
    qr_rng_seed(&a, 42);
    qr_rng_seed(&b, 42);
    for (int i = 0; i < 100000; ++i) {
        int32_t v = qr_rng_next(&a);
        float want = (float)v / 2147483648.0f;
        float got = qr_rng_float(&b);
        cr_assert(got == want, "output %d", i);
        cr_assert(got >= 0.0f && got <= 1.0f);
    }
    /* The first value of seed 0 is the spec's pattern circle 0 depth. */
    qr_rng_seed(&a, 0);
    cr_assert_float_eq(qr_rng_float(&a), 0.840187728f, 0.0f);
}

Test(rng, independent_generators_do_not_interfere)
{
    qr_rng a, b, ref;
    qr_rng_seed(&a, 3);
    qr_rng_seed(&b, 4);
    qr_rng_seed(&ref, 3);
    for (int i = 0; i < 500; ++i) {
        (void)qr_rng_next(&b);
        cr_assert_eq(qr_rng_next(&a), qr_rng_next(&ref));
    }
}

/* Skipping k outputs lands where k calls of qr_rng_next land, for short and
 * long skips, from any ring position, and after earlier skips. */
Test(rng, skip_equals_stepping)
{
    const uint64_t skips[] = {0, 1, 2, 30, 31, 33, 34, 35, 4095, 4096, 4097, 5000, 65536, 999983,
                              3000001};
    for (int start = 0; start < 40; start += 13)
        for (size_t s = 0; s < sizeof skips / sizeof skips[0]; ++s) {
            qr_rng a, b;
            qr_rng_seed(&a, 12345u + (unsigned)start);
            for (int i = 0; i < start; ++i)
                (void)qr_rng_next(&a);
            b = a;
            for (uint64_t i = 0; i < skips[s]; ++i)
                (void)qr_rng_next(&a);
            qr_rng_skip(&b, skips[s]);
            for (int i = 0; i < 100; ++i)
                cr_assert_eq(qr_rng_next(&a), qr_rng_next(&b), "start %d skip %llu output %d",
                             start, (unsigned long long)skips[s], i);
        }
    /* two skips make one */
    qr_rng a, b;
    qr_rng_seed(&a, 3);
    b = a;
    qr_rng_skip(&a, 123456);
    qr_rng_skip(&a, 654321);
    qr_rng_skip(&b, 777777);
    for (int i = 0; i < 100; ++i)
        cr_assert_eq(qr_rng_next(&a), qr_rng_next(&b));
}

/* Against glibc's own rand() after a long skip. */
Test(rng, skip_matches_glibc_rand)
{
    qr_rng g;
    qr_rng_seed(&g, 99);
    srand(99);
    for (int i = 0; i < 2000000; ++i)
        (void)rand();
    qr_rng_skip(&g, 2000000);
    for (int i = 0; i < 1000; ++i)
        cr_assert_eq(qr_rng_next(&g), rand(), "output %d", i);
}
