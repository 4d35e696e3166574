/* scene_gpu.h — the device copy of a scene (internal to the library).
 *
 * The device block mirrors the host qr_scene block float for float, so the
 * upload is one copy and every device array sits at the same offset as its
 * host twin.
 */
#ifndef QR_SCENE_GPU_H
#define QR_SCENE_GPU_H

#include "quadrender/gpu_scene.h"

struct range_part; /* scene_gpu.cu */

struct qr_gpu_scene {
    int32_t n;
    qr_shading shading;
    qr_anim anim;
    int64_t steps;
    float *block; /* device */
    size_t block_floats;
    float *x, *y, *z, *r, *red, *green, *blue; /* device views into block */
    float *vx, *vy, *vz, *x0, *y0, *vx0, *vy0; /* NULL when the host has none */
    /* Packed copies the renderer gathers with two 16-byte loads per circle:
     * pos = (x, y, z, r), col = (red, green, blue, alpha): alpha the
     * host scene's (qr_scene_alpha), 0.5 without. Kept in step with the
     * arrays above by the upload and by every step. */
    float4 *pos, *col;
    /* The picture's options (qr_scene.alpha, qr_scene.background): alpha
     * holds the scene's alphas on the device (NULL: 0.5 each); plain: no
     * alpha and a white background, what exact mode's windows draw
     * (renderer.cu). Scenes made from device rows are plain. */
    float *alpha;
    float background[3];
    int antialias; /* qr_scene.antialias (the renderer widens the radii) */
    int transparent; /* qr_scene.transparent: the alpha channel is the coverage */
    int plain;
    /* A scene made from device rows (qr_gpu_scene_create_device, _update_device)
     * keeps its memory for the next update: block holds 7 cap floats, pos
     * 2 cap, dparts (device) a colour-range part for each run of cap
     * circles. cap is 0 for a scene uploaded from the host. */
    int32_t cap;
    struct range_part *dparts;
    /* Fast mode's stopping bound: the largest distance, over the channels,
     * between any colour or background value and the background. */
    float color_span;
    /* Every colour and background value lies in [color_lo, color_hi] (flat
     * scenes; exact mode's windows start from these); colors_finite says no
     * colour is NaN or infinite. */
    float color_lo, color_hi;
    int colors_finite;
    /* Exact flat blends may be one fused multiply-add (render_stage.cuh
     * blend_flat): every colour channel is >= 0, none is below 2^-60 but 0,
     * and no channel is 0 in more than 60 circles (scene_gpu.cu says why
     * that suffices). */
    int fma_blend;
    /* The scene's mean depth (circle area inside the unit square, summed:
     * how many circles cover an average pixel): what exact mode's choice
     * between windows and whole walks rests on. */
    float depth;
    /* The circles' mean radius (unit square): whether the render gathers
     * each warp's circles before walking them (renderer.cu). */
    float radius;
    /* Host rows (qr_gpu_scene_update_host) pass through host_rows (pinned,
     * write-combined) into dev_rows (device), staged_cap rows of 7 floats
     * each, kept from call to call and grown when more rows come; NULL and 0
     * until the first. The scene's arrays are then made from dev_rows as
     * from any device rows. */
    float *host_rows, *dev_rows;
    int32_t staged_cap;
};

#endif
