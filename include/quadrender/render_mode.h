/* quadrender/render_mode.h — the two render modes every renderer offers
 * (GPU: quadrender/gpu.h; CPU: quadrender/render_cpu_fast.h). */
#ifndef QUADRENDER_RENDER_MODE_H
#define QUADRENDER_RENDER_MODE_H

typedef enum qr_render_mode {
    QR_RENDER_FAST = 0, /* front to back with early stop: within 1e-5 of exact */
    QR_RENDER_EXACT = 1 /* back to front, bit-identical to qr_render_cpu (non-snow) */
} qr_render_mode;

/* Stopping bound of fast mode: every colour channel of a fast render lies
 * within this of the exact render (docs/architecture.md derives it). */
#define QR_FAST_TOLERANCE 1e-5f

#endif
