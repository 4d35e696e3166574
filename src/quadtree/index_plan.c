/* index_plan.c — the settings a plan times (quadrender/index.h,
 * qr_index_plan_candidates; the timing itself: qr_gpu_renderer_plan).
 *
 * The candidates are data: changes to the base settings, a field at KEEP
 * keeping the base's value. They were chosen on the zoo's tuning seeds
 * (zoo:100 to zoo:123, never the seeds reported on) as a greedy cover: from
 * the defaults, add the setting of dev/device_zoo_sweep.sh's sweep that
 * most raises the geometric mean, over sizes 1024 and 4096 and both modes,
 * of each scene's best candidate against its best grid (dev/plan_cover.py;
 * docs/benchmarks.md, "Plans", has the method and the numbers).
 */
#include "quadrender/index.h"
#include "quadrender/text.h"

#define KEEP (-1)

static const struct plan_change {
    int32_t capacity, min_leaf, split_cost, deep_leaf, max_leaf;
} plan_table[] = {
    /* the base settings themselves */
    {KEEP, KEEP, KEEP, KEEP, KEEP},
    /* small leaves by capacity alone: clusters too sparse to crowd */
    {4096, 16, 0, KEEP, KEEP},
    /* 32-pixel leaves, unweighed: long lists of small circles */
    {KEEP, 32, 0, KEEP, KEEP},
    /* no splits below min_leaf: crowds whose deep splits cost the build more
     * than they save the render */
    {KEEP, KEEP, KEEP, 0, KEEP},
    /* crowds split down to 16 pixels only */
    {KEEP, KEEP, KEEP, 16, KEEP},
    /* 128-pixel leaves: big circles on large images */
    {KEEP, 128, KEEP, KEEP, KEEP},
    /* no leaf above 256 pixels: every 32-pixel block of a leaf reads its
     * whole list, so on large images a few circles over a wide leaf cost
     * more than the pairs of splitting it (not chosen by the sweep: added
     * for large images, where the grids of 256-pixel tiles beat wide
     * leaves) */
    {KEEP, KEEP, KEEP, KEEP, 256},
};

static int same_params(const qr_index_params *a, const qr_index_params *b)
{
    return a->capacity == b->capacity && a->min_leaf == b->min_leaf && a->max_depth == b->max_depth &&
           a->uniform == b->uniform && a->max_leaf == b->max_leaf && a->split_cost == b->split_cost &&
           a->deep_leaf == b->deep_leaf;
}

int qr_index_plan_candidates(const qr_index_params *base, qr_index_params *out, int max)
{
    int n = 0;
    const int rows = (int)(sizeof plan_table / sizeof plan_table[0]);
    for (int k = 0; k < rows && n < max; k++) {
        const struct plan_change *c = &plan_table[k];
        qr_index_params p = *base;
        if (k > 0 && base->uniform) break; /* a grid's tiles are the user's */
        if (c->capacity != KEEP) p.capacity = c->capacity;
        if (c->min_leaf != KEEP) p.min_leaf = c->min_leaf;
        if (c->split_cost != KEEP) p.split_cost = c->split_cost;
        if (c->deep_leaf != KEEP) p.deep_leaf = c->deep_leaf;
        if (c->max_leaf != KEEP && (!p.max_leaf || c->max_leaf < p.max_leaf)) p.max_leaf = c->max_leaf;
        if (p.max_leaf && p.max_leaf < p.min_leaf) continue;
        if (qr_index_params_check(&p, NULL)) continue;
        int dup = 0;
        for (int j = 0; j < n && !dup; j++) dup = same_params(&out[j], &p);
        if (!dup) out[n++] = p;
    }
    return n;
}

qr_status qr_index_check_plan(const char *name, const char *text, int32_t *out, qr_error *err)
{
    return qr_text_check_int32(name, text, 0, QR_PLAN_TRIALS_MAX, QR_UINT_RANGE,
                               "0 (no plan) to 64 frames a candidate", out, err);
}
