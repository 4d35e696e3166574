/* scene_background.h — the range of a scene's background values, where
 * fast mode's stopping bound starts (the CPU renderer and the GPU upload
 * take it alike). Internal to the library. */
#ifndef QR_SCENE_BACKGROUND_H
#define QR_SCENE_BACKGROUND_H

#include "quadrender/scene.h"

/* [*lo, *hi] holds every background value: snow's grey ramp lies in
 * [0.4, 0.85] (its circles' colours in [0.8, 1]: [0.4, 1]); a flat scene's
 * background is its colour's three channels; a transparent one's, the
 * coverage the alpha channel holds, from 0 to 1 (whatever lies behind a
 * pixel moves it by at most T, as a colour channel whose circles are 1 and
 * whose background is 0). */
static inline void qr_background_range(const qr_scene *s, float *lo, float *hi)
{
    if (s->shading == QR_SHADE_SNOW) {
        *lo = 0.4f;
        *hi = 1.0f;
        return;
    }
    if (s->transparent) { /* the alpha channel's values: 0 behind, 1 in each circle */
        *lo = 0.0f;
        *hi = 1.0f;
        return;
    }
    *lo = *hi = s->background[0];
    for (int k = 1; k < 3; k++) {
        *lo = s->background[k] < *lo ? s->background[k] : *lo;
        *hi = s->background[k] > *hi ? s->background[k] : *hi;
    }
}

#endif
