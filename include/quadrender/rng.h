/* quadrender/rng.h — glibc's rand() sequence, portable and reentrant.
 *
 * The built-in scenes are defined in terms of glibc's rand() after
 * srand(seed) (TYPE_3 additive feedback generator). This reproduces that
 * sequence exactly on any platform, without global state.
 */
#ifndef QUADRENDER_RNG_H
#define QUADRENDER_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qr_rng {
    int32_t r[34];  /* the last 34 values of the recurrence, a ring */
    int pos;        /* ring index of the next value to produce */
} qr_rng;

/* Like srand(seed): seed 0 behaves as 1. */
void qr_rng_seed(qr_rng *rng, uint32_t seed);
/* Like rand(): the next value in [0, 2^31). */
int32_t qr_rng_next(qr_rng *rng);
/* (float)rand() / 2147483647 computed as a float division (divisor 2^31). */
float qr_rng_float(qr_rng *rng);
/* Skips k outputs, as k calls of qr_rng_next would, in O(log k) time: lets
 * several threads each produce their own stretch of one sequence. */
void qr_rng_skip(qr_rng *rng, uint64_t k);

#ifdef __cplusplus
}
#endif
#endif
