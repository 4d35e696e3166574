/* alpha_image.h — images of a transparent background, and the 8-bit RGBA
 * their PNGs must hold, computed here from image.h's rule alone.
 *
 * The rule (qr_to_rgba8): A = 255 * clamp(a) rounded down (NaN: 0); where
 * A is 0 the colour is 0, else each channel is 255 * clamp(c / a) rounded
 * down, the product and the quotient in float. */
#ifndef QR_TEST_ALPHA_IMAGE_H
#define QR_TEST_ALPHA_IMAGE_H

#include <stdint.h>

#include "quadrender/image.h"

/* The test's oracle of a pixel's RGBA bytes: p = r, g, b (premultiplied), a. */
void qr_test_rgba8(const float p[4], unsigned char out[4]);

/* A w x h image (row 0 at the bottom) of premultiplied colours and alphas
 * like a render of a scene without a background (smooth coverage, colours
 * times it), with tiles of the cases the rule turns on: a = 0 under a
 * colour, a = 1, a too small for a byte, a just above 1/255, a colour just
 * above its alpha, a above 1 or below 0, NaN alpha and NaN colour. The same
 * for the same seed. Made by hand, so wider than QR_IMAGE_MAX_DIM if need
 * be (as a band is); qr_image_destroy frees it. */
qr_image *qr_test_alpha_image(int32_t w, int32_t h, uint64_t seed);

/* img's RGBA rows as a PNG holds them (top row first, qr_test_rgba8):
 * 4 * width * height bytes, malloc'd. */
unsigned char *qr_test_rgba8_rows(const qr_image *img);

#endif
