/* rng.c — glibc's TYPE_3 rand() sequence (see include/quadrender/rng.h).
 *
 * The state is the recurrence r[i] = r[i-31] + r[i-3] (mod 2^32), kept in a
 * ring of the last 34 values; output k is r[k+344] >> 1. Seeding fills
 * r[0..30] with a Park–Miller sequence computed by Schrage's method, exactly
 * as glibc's srandom_r does in 32-bit signed arithmetic, so that every seed
 * (including those >= 2^31, which glibc reads as negative int32) matches.
 */
#include "quadrender/rng.h"

#define QR_RNG_RING 34
/* glibc throws away 10 * 31 outputs after seeding: r[34..343]. */
#define QR_RNG_DISCARD 310

/* uint32 -> int32 with wrap-around, spelled so that it is defined behaviour
 * in C (a plain cast of a value above INT32_MAX is implementation-defined);
 * compilers reduce it to nothing. */
static int32_t qr_u32_to_i32(uint32_t u)
{
    if (u <= (uint32_t)INT32_MAX)
        return (int32_t)u;
    return (int32_t)(u - 2147483648u) - INT32_MAX - 1;
}

static int32_t qr_rng_advance(qr_rng *rng)
{
    int pos = rng->pos;
    int back31 = pos >= 31 ? pos - 31 : pos + QR_RNG_RING - 31;
    int back3 = pos >= 3 ? pos - 3 : pos + QR_RNG_RING - 3;
    uint32_t v = (uint32_t)rng->r[back31] + (uint32_t)rng->r[back3];
    int32_t s = qr_u32_to_i32(v);
    rng->r[pos] = s;
    rng->pos = pos + 1 == QR_RNG_RING ? 0 : pos + 1;
    return s;
}

void qr_rng_seed(qr_rng *rng, uint32_t seed)
{
    if (seed == 0)
        seed = 1;
    int32_t word = qr_u32_to_i32(seed);
    rng->r[0] = word;
    for (int i = 1; i <= 30; ++i) {
        /* Schrage: 16807 * word mod (2^31 - 1) without overflowing int32. */
        int32_t hi = word / 127773;
        int32_t lo = word % 127773;
        word = 16807 * lo - 2836 * hi;
        if (word < 0)
            word += 2147483647;
        rng->r[i] = word;
    }
    for (int i = 31; i <= 33; ++i)
        rng->r[i] = rng->r[i - 31];
    rng->pos = 0; /* r[34] goes to ring slot 34 % 34 */
    for (int i = 0; i < QR_RNG_DISCARD; ++i)
        (void)qr_rng_advance(rng);
}

int32_t qr_rng_next(qr_rng *rng)
{
    uint32_t v = (uint32_t)qr_rng_advance(rng);
    return (int32_t)(v >> 1);
}

float qr_rng_float(qr_rng *rng)
{
    /* The CS149 expression (float)rand() / RAND_MAX: RAND_MAX converts to
     * float and rounds to 2147483648.0f, and the division is in float. */
    return (float)qr_rng_next(rng) / (float)2147483647;
}

/* Jumping ahead: the recurrence r[i] = r[i-31] + r[i-3] is linear over the
 * integers mod 2^32 with characteristic polynomial P(x) = x^31 - x^28 - 1,
 * so r[b + k] = sum_j c_j r[b + j] (j < 31) where c = x^k mod P. Polynomial
 * arithmetic mod 2^32 is exactly uint32_t arithmetic. */
#define QR_RNG_DEG 31

/* a = a * b mod P. */
static void qr_poly_mulmod(uint32_t *a, const uint32_t *b)
{
    uint32_t prod[2 * QR_RNG_DEG - 1] = {0};
    for (int i = 0; i < QR_RNG_DEG; ++i)
        for (int j = 0; j < QR_RNG_DEG; ++j)
            prod[i + j] += a[i] * b[j];
    /* x^d = x^(d-31) * x^31 = x^(d-3) + x^(d-31) (mod P), from the top down */
    for (int d = 2 * QR_RNG_DEG - 2; d >= QR_RNG_DEG; --d) {
        prod[d - 3] += prod[d];
        prod[d - QR_RNG_DEG] += prod[d];
    }
    for (int i = 0; i < QR_RNG_DEG; ++i)
        a[i] = prod[i];
}

void qr_rng_skip(qr_rng *rng, uint64_t k)
{
    if (k < 4096) {
        while (k--)
            (void)qr_rng_advance(rng);
        return;
    }
    /* c = x^k mod P by square and multiply. */
    uint32_t c[QR_RNG_DEG] = {1}, x[QR_RNG_DEG] = {0, 1};
    for (uint64_t e = k; e; e >>= 1) {
        if (e & 1)
            qr_poly_mulmod(c, x);
        qr_poly_mulmod(x, x);
    }
    /* The last 34 values, oldest first, and the 30 after them. */
    uint32_t w[QR_RNG_RING + QR_RNG_DEG - 1];
    for (int i = 0; i < QR_RNG_RING; ++i)
        w[i] = (uint32_t)rng->r[(rng->pos + i) % QR_RNG_RING];
    for (int i = QR_RNG_RING; i < QR_RNG_RING + QR_RNG_DEG - 1; ++i)
        w[i] = w[i - 31] + w[i - 3];
    /* Value i of the new window is k values after w[i]. */
    for (int i = 0; i < QR_RNG_RING; ++i) {
        uint32_t v = 0;
        for (int j = 0; j < QR_RNG_DEG; ++j)
            v += c[j] * w[i + j];
        rng->r[i] = qr_u32_to_i32(v);
    }
    rng->pos = 0;
}
