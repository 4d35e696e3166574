/* render_cpu_fast.c — the fast CPU renderer (quadrender/render_cpu_fast.h):
 * the host index build, then the leaves' tiles spread over threads.
 *
 * A frame is three parallel passes: the index (qr_index_build_host), the
 * circles' boxes with the numbers fast mode needs (colour span, depth), and
 * the tiles. A task is one CPU_TILE x CPU_TILE part of one leaf (cpu_tile.c),
 * handed out from an atomic counter; tasks write disjoint pixels and compute
 * them the same way on any thread, so the image is the same bytes whatever
 * the thread count. The per-circle pass splits the circles into fixed
 * chunks and combines the chunks' sums in chunk order, for the same reason.
 *
 * The index and the image may be a band: full rows [y0, y1) of the image.
 * Tiles read 16-bit boxes relative to a window of at most CPU_WINDOW a
 * side, so a band larger than that renders window by window, the circles'
 * boxes recomputed for each (one window up to 32768 a side).
 */
#include "quadrender/render_cpu_fast.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/circle_math.h"
#include "scene/scene_background.h"
#include "quadrender/memory.h"
#include "quadrender/threads.h"
#include "render/cpu/cpu_tile.h"

/* Circles per task of the per-circle pass. */
#define CIRCLE_CHUNK 65536

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- per circle: boxes, colour range, depth --------------------------------------- */

typedef struct chunk_sums {
    float lo, hi;  /* colour range (flat), background included */
    double area;   /* circle area inside the unit square */
} chunk_sums;

typedef struct circle_pass {
    const qr_scene *s;
    int32_t width, height;
    qr_rect win; /* the window the boxes are clipped to, and relative to */
    cpu_circle *circles;
    chunk_sums *sums;
    int sum; /* fast mode: the colour range and the depth (exact mode needs neither) */
} circle_pass;

static int drawable(const qr_scene *s, int32_t i)
{
    return qr_radius_draws(s->r[i]) && isfinite(s->x[i]) && isfinite(s->y[i]) &&
           isfinite(s->z[i]) && isfinite(s->red[i]) && isfinite(s->green[i]) &&
           isfinite(s->blue[i]);
}

/* fmin(v, 1.0) and fmax(v, 0.0) as the GPU's depth takes them, NaN giving
 * the bound, inline (the libm calls are most of the pass). A zero's sign
 * may differ, which no difference below can tell. */
static inline double min1(double v)
{
    return v < 1.0 ? v : 1.0;
}

static inline double max0(double v)
{
    return v > 0.0 ? v : 0.0;
}

/* Circle i's part of fast mode's numbers: its colours (a drawable flat
 * circle's) into the range, the part of its box inside the unit square
 * times pi/4 (the GPU's depth, scene_gpu.cu) into the area. */
static inline void circle_numbers(const qr_scene *s, int32_t i, int draws, int snow, float *lo,
                                  float *hi, double *area)
{
    if (!snow && draws) {
        const float rgb[3] = {s->red[i], s->green[i], s->blue[i]};
        for (int k = 0; k < 3; k++) {
            *lo = rgb[k] < *lo ? rgb[k] : *lo;
            *hi = rgb[k] > *hi ? rgb[k] : *hi;
        }
    }
    const double r = fabs((double)s->r[i]);
    const double w = min1(s->x[i] + r) - max0(s->x[i] - r);
    const double h = min1(s->y[i] + r) - max0(s->y[i] - r);
    *area += w > 0 && h > 0 ? 0.7853981633974483 * w * h : 0.0;
}

static void circle_chunk(void *ctx, int task)
{
    const circle_pass *cp = ctx;
    const qr_scene *s = cp->s;
    const int32_t first = (int32_t)task * CIRCLE_CHUNK;
    const int32_t last = s->n - first < CIRCLE_CHUNK ? s->n : first + CIRCLE_CHUNK;
    chunk_sums sum = {INFINITY, -INFINITY, 0.0};
    const int snow = s->shading == QR_SHADE_SNOW;
    for (int32_t i = first; i < last; i++) {
        cpu_box b = {0, 0, 0, 0};
        const int draws = drawable(s, i);
        if (draws) {
            const qr_pixbox pb = qr_circle_pixbox(s->x[i], s->y[i], s->r[i], cp->width, cp->height);
            const qr_rect *w = &cp->win;
            const int x0 = pb.x0 > w->x0 ? pb.x0 : w->x0, x1 = pb.x1 < w->x1 ? pb.x1 : w->x1;
            const int y0 = pb.y0 > w->y0 ? pb.y0 : w->y0, y1 = pb.y1 < w->y1 ? pb.y1 : w->y1;
            if (x0 < x1 && y0 < y1) {
                b.x0 = (uint16_t)(x0 - w->x0);
                b.x1 = (uint16_t)(x1 - w->x0);
                b.y0 = (uint16_t)(y0 - w->y0);
                b.y1 = (uint16_t)(y1 - w->y0);
            }
        }
        cpu_circle *c = &cp->circles[i];
        c->x = s->x[i];
        c->y = s->y[i];
        c->rad = s->r[i];
        c->c0 = snow ? s->z[i] : s->red[i];
        c->c1 = snow ? 0.0f : s->green[i];
        c->c2 = snow ? 0.0f : s->blue[i];
        c->box = b;
        if (cp->sum) circle_numbers(s, i, draws, snow, &sum.lo, &sum.hi, &sum.area);
    }
    cp->sums[task] = sum;
}

/* ---- blocks of leaves, and their tiles ---------------------------------------------------- */

/* A task: a block of up to BLOCK x BLOCK pixels of one leaf. It gathers
 * the circles of the leaf's list that meet it into one array (a leaf list
 * jumps through the scene; the block's tiles then read the array in order)
 * and renders its tiles from it. */
#define BLOCK (2 * CPU_TILE)
/* Tiles per block side. */
#define TILES (BLOCK / CPU_TILE)
/* Bins pay while a block's circles meet at most this many tiles each on
 * average. */
#define BIN_SPREAD 2
/* How far ahead of the gather the circles are fetched. */
#define PREFETCH 16

typedef struct block_task {
    int32_t leaf;
    int32_t x0, y0, x1, y1;
} block_task;

typedef struct block_pass {
    const cpu_frame *f;
    const qr_index *ix;
    const cpu_circle *circles;
    const float *alpha; /* the scene's per-circle alpha (flat), or NULL */
    const block_task *tasks;
    atomic_int oom; /* a block found no memory for its circles */
} block_pass;

static int box_meets(const cpu_box *b, int x0, int y0, int x1, int y1)
{
    return b->x0 < x1 && b->x1 > x0 && b->y0 < y1 && b->y1 > y0;
}

/* a within b, in *out; 0 when they do not meet */
static int clip_rect(const qr_rect *a, qr_rect b, qr_rect *out)
{
    out->x0 = a->x0 > b.x0 ? a->x0 : b.x0;
    out->y0 = a->y0 > b.y0 ? a->y0 : b.y0;
    out->x1 = a->x1 < b.x1 ? a->x1 : b.x1;
    out->y1 = a->y1 < b.y1 ? a->y1 : b.y1;
    return out->x0 < out->x1 && out->y0 < out->y1;
}

/* The tiles of a block (columns a0..a1, rows b0..b1 of it) that a box
 * meeting the block meets. */
static void tiles_met(const cpu_box *b, const block_task *t, int *a0, int *a1, int *b0, int *b1)
{
    *a0 = ((b->x0 > t->x0 ? b->x0 : t->x0) - t->x0) / CPU_TILE;
    *a1 = ((b->x1 < t->x1 ? b->x1 : t->x1) - 1 - t->x0) / CPU_TILE;
    *b0 = ((b->y0 > t->y0 ? b->y0 : t->y0) - t->y0) / CPU_TILE;
    *b1 = ((b->y1 < t->y1 ? b->y1 : t->y1) - 1 - t->y0) / CPU_TILE;
}

/* Renders the block's tiles from its circles c[0..m) (alphas a[0..m), or
 * NULL), every tile from all of them (each skips the circles missing it). */
static void render_tiles(block_pass *bp, const block_task *t, const cpu_circle *c, const float *a,
                         int32_t m)
{
    for (int32_t y = t->y0; y < t->y1; y += CPU_TILE)
        for (int32_t x = t->x0; x < t->x1; x += CPU_TILE) {
            const int32_t x1 = x + CPU_TILE < t->x1 ? x + CPU_TILE : t->x1;
            const int32_t y1 = y + CPU_TILE < t->y1 ? y + CPU_TILE : t->y1;
            cpu_render_tile(bp->f, c, a, m, x, y, x1, y1);
        }
}

/* Renders the block's tiles from its circles c[0..m): where most circles
 * meet one tile each, every tile from a bin of the circles meeting it, in
 * order (one pass over c fills them, and no tile then scans the others'
 * circles). Not where circles meet several tiles (the bins would copy most
 * of them several times), nor front to back (a tile's walk stops after the
 * few circles it needs, and the bins would cost a pass over all). */
static void render_bins(block_pass *bp, const block_task *t, const cpu_circle *c, const float *ca,
                        int32_t m)
{
    const int tw = (t->x1 - t->x0 + CPU_TILE - 1) / CPU_TILE;
    const int th = (t->y1 - t->y0 + CPU_TILE - 1) / CPU_TILE;
    if (tw * th == 1 || bp->f->front_to_back) {
        render_tiles(bp, t, c, ca, m);
        return;
    }
    int32_t at[TILES * TILES + 1] = {0};
    int a0, a1, b0, b1;
    for (int32_t j = 0; j < m; j++) {
        tiles_met(&c[j].box, t, &a0, &a1, &b0, &b1);
        for (int b = b0; b <= b1; b++)
            for (int a = a0; a <= a1; a++) at[b * TILES + a + 1]++;
    }
    for (int k = 0; k < TILES * TILES; k++) at[k + 1] += at[k];
    if (at[TILES * TILES] > BIN_SPREAD * (int64_t)m) {
        render_tiles(bp, t, c, ca, m);
        return;
    }
    const size_t nb = (size_t)(at[TILES * TILES] ? at[TILES * TILES] : 1);
    cpu_circle *bins = malloc(nb * sizeof *bins);
    float *bin_a = ca ? malloc(nb * sizeof *bin_a) : NULL;
    if (!bins || (ca && !bin_a)) {
        free(bins);
        atomic_store(&bp->oom, 1);
        return;
    }
    int32_t fill[TILES * TILES];
    memcpy(fill, at, sizeof fill);
    for (int32_t j = 0; j < m; j++) {
        tiles_met(&c[j].box, t, &a0, &a1, &b0, &b1);
        for (int b = b0; b <= b1; b++)
            for (int a = a0; a <= a1; a++) {
                const int32_t at_bin = fill[b * TILES + a]++;
                bins[at_bin] = c[j];
                if (ca) bin_a[at_bin] = ca[j];
            }
    }
    for (int b = 0; b < th; b++)
        for (int a = 0; a < tw; a++) {
            const int32_t x = t->x0 + a * CPU_TILE, y = t->y0 + b * CPU_TILE;
            const int32_t x1 = x + CPU_TILE < t->x1 ? x + CPU_TILE : t->x1;
            const int32_t y1 = y + CPU_TILE < t->y1 ? y + CPU_TILE : t->y1;
            const int k = b * TILES + a;
            cpu_render_tile(bp->f, bins + at[k], ca ? bin_a + at[k] : NULL, at[k + 1] - at[k], x,
                            y, x1, y1);
        }
    free(bins);
    free(bin_a);
}

static void block_job(void *ctx, int task)
{
    block_pass *bp = ctx;
    const block_task *t = &bp->tasks[task];
    const qr_leaf *leaf = &bp->ix->leaves[t->leaf];
    const int32_t *list = bp->ix->lists + leaf->offset;
    const size_t cap = (size_t)(leaf->count ? leaf->count : 1);
    cpu_circle *mine = malloc(cap * sizeof *mine);
    float *mine_a = bp->alpha ? malloc(cap * sizeof *mine_a) : NULL;
    if (!mine || (bp->alpha && !mine_a)) {
        free(mine);
        atomic_store(&bp->oom, 1);
        return;
    }
    int32_t m = 0;
    for (int32_t j = 0; j < leaf->count; j++) {
        /* the list jumps through the circles in ascending steps too long
         * for the hardware's prefetcher */
        if (j + PREFETCH < leaf->count) __builtin_prefetch(&bp->circles[list[j + PREFETCH]]);
        const cpu_circle *c = &bp->circles[list[j]];
        if (box_meets(&c->box, t->x0, t->y0, t->x1, t->y1)) {
            if (mine_a) mine_a[m] = bp->alpha[list[j]];
            mine[m++] = *c;
        }
    }
    render_bins(bp, t, mine, mine_a, m);
    free(mine);
    free(mine_a);
}

/* The tasks of a window: every leaf's part inside it cut into blocks of
 * BLOCK from that part's corner, in window coordinates. */
static block_task *make_tasks(const qr_index *ix, qr_rect win, int *ntasks)
{
    size_t n = 0;
    qr_rect r;
    for (int32_t l = 0; l < ix->num_leaves; l++)
        if (clip_rect(&ix->leaves[l].rect, win, &r))
            n += (size_t)((r.x1 - r.x0 + BLOCK - 1) / BLOCK) *
                 (size_t)((r.y1 - r.y0 + BLOCK - 1) / BLOCK);
    if (n > (size_t)INT32_MAX) return NULL;
    block_task *t = malloc((n ? n : 1) * sizeof *t);
    if (!t) return NULL;
    size_t k = 0;
    for (int32_t l = 0; l < ix->num_leaves; l++) {
        if (!clip_rect(&ix->leaves[l].rect, win, &r)) continue;
        for (int32_t y = r.y0; y < r.y1; y += BLOCK)
            for (int32_t x = r.x0; x < r.x1; x += BLOCK) {
                block_task *tk = &t[k++];
                tk->leaf = l;
                tk->x0 = x - win.x0;
                tk->y0 = y - win.y0;
                tk->x1 = (x + BLOCK < r.x1 ? x + BLOCK : r.x1) - win.x0;
                tk->y1 = (y + BLOCK < r.y1 ? y + BLOCK : r.y1) - win.y0;
            }
    }
    *ntasks = (int)n;
    return t;
}

/* ---- the renderer ----------------------------------------------------------------------- */

static qr_status check_scene(const qr_scene *scene, qr_error *err)
{
    if (!scene)
        return qr_fail(err, QR_ERR_INVALID, "CPU renderer: no scene");
    if (scene->n < 0 ||
        (scene->n > 0 && (!scene->x || !scene->y || !scene->z || !scene->r || !scene->red ||
                          !scene->green || !scene->blue)))
        return qr_fail(err, QR_ERR_INVALID, "CPU renderer: scene '%s' is malformed", scene->name);
    return QR_OK;
}

/* The band's size and rows, and the image that holds them. */
static qr_status check_region(int32_t width, int32_t height, const qr_rect *reg,
                              const qr_image *out, qr_error *err)
{
    if (width < 1 || height < 1 || width > QR_IMAGE_BANDS_MAX_DIM || height > QR_IMAGE_BANDS_MAX_DIM)
        return qr_fail(err, QR_ERR_INVALID,
                       "CPU renderer: image size %ldx%ld out of range (1 to %d a side)",
                       (long)width, (long)height, QR_IMAGE_BANDS_MAX_DIM);
    if (!reg || reg->x0 < 0 || reg->y0 < 0 || reg->x1 > width || reg->y1 > height ||
        reg->x0 >= reg->x1 || reg->y0 >= reg->y1 || reg->x0 % QR_TILE ||
        (reg->x1 % QR_TILE && reg->x1 != width))
        return qr_fail(err, QR_ERR_INVALID,
                       "CPU renderer: pixels [%ld,%ld) x [%ld,%ld) are not a region of %ldx%ld "
                       "whose sides lie on the %d-pixel grid (or the right one on the image's)",
                       reg ? (long)reg->x0 : 0L, reg ? (long)reg->x1 : 0L, reg ? (long)reg->y0 : 0L,
                       reg ? (long)reg->y1 : 0L, (long)width, (long)height, QR_TILE);
    if (!out || !out->rgba || out->width != reg->x1 - reg->x0 || out->height != reg->y1 - reg->y0)
        return qr_fail(err, QR_ERR_INVALID, "CPU renderer: the image is not %ldx%ld",
                       (long)(reg->x1 - reg->x0), (long)(reg->y1 - reg->y0));
    return QR_OK;
}

/* The colour span and the depth as the GPU's upload computes them
 * (scene_gpu.cu), over the circles that draw: fast mode's stop, and
 * whether it can stop at all. */
static void frame_numbers(const qr_scene *scene, const chunk_sums *sums, int nchunks,
                          qr_render_mode mode, const float behind[2],
                          const qr_cpu_fast_numbers *given, cpu_frame *f)
{
    float lo, hi;
    qr_background_range(scene, &lo, &hi);
    if (f->over) { /* what lies behind is the band's pixels too */
        lo = behind[0] < lo ? behind[0] : lo;
        hi = behind[1] > hi ? behind[1] : hi;
    }
    double area = 0.0;
    if (given) { /* the whole scene's, gathered chunk by chunk */
        lo = given->lo < lo ? given->lo : lo;
        hi = given->hi > hi ? given->hi : hi;
        area = given->area + given->open;
    }
    for (int c = 0; c < nchunks && !given; c++) {
        lo = sums[c].lo < lo ? sums[c].lo : lo;
        hi = sums[c].hi > hi ? sums[c].hi : hi;
        area += sums[c].area;
    }
    const float span = hi - lo;
    const int snow = scene->shading == QR_SHADE_SNOW;
    const float stop_blends = log2f(2.0f * span / QR_FAST_TOLERANCE);
    const int shallow = !snow && (float)area < 0.5f * stop_blends;
    f->snow = snow;
    f->front_to_back = (mode == QR_RENDER_FAST && !shallow) || f->under;
    f->keep_alpha = mode == QR_RENDER_EXACT;
    f->stop = 0.5f * QR_FAST_TOLERANCE / span;
    for (int k = 0; k < 3; k++) f->bg[k] = scene->background[k];
    f->aa = !snow && scene->antialias;
    f->cover = !snow && scene->transparent;
}

/* One window of the band: its circles' boxes, then its blocks. Returns -1
 * when out of memory. */
static int render_window(const qr_scene *scene, const qr_index *ix, cpu_circle *circles,
                         chunk_sums *sums, int nchunks, qr_render_mode mode, int threads,
                         qr_rect win, int first, const float behind[2],
                         const qr_cpu_fast_numbers *given, cpu_frame *f)
{
    int ntasks = 0;
    block_task *tasks = make_tasks(ix, win, &ntasks);
    if (!tasks) return -1;
    circle_pass cp = {scene, ix->width, ix->height, win, circles, sums,
                      first && mode == QR_RENDER_FAST && !given};
    qr_parallel_for(nchunks, threads, circle_chunk, &cp);
    if (first) frame_numbers(scene, sums, nchunks, mode, behind, given, f);
    f->ox = win.x0;
    f->oy = win.y0;
    block_pass bp;
    bp.f = f;
    bp.ix = ix;
    bp.circles = circles;
    bp.alpha = scene->shading == QR_SHADE_FLAT ? scene->alpha : NULL;
    bp.tasks = tasks;
    atomic_init(&bp.oom, 0);
    qr_parallel_for(ntasks, threads, block_job, &bp);
    free(tasks);
    return atomic_load(&bp.oom) ? -1 : 0;
}

/* ---- what lies behind: the range of the band's colours ------------------------------ */

/* Rows per task of the pass over the band. */
#define BEHIND_ROWS 64

typedef struct behind_pass {
    const qr_image *band;
    float (*range)[2]; /* per task */
} behind_pass;

static void behind_rows(void *ctx, int task)
{
    const behind_pass *bp = ctx;
    const qr_image *b = bp->band;
    const int32_t y1 = (task + 1) * BEHIND_ROWS < b->height ? (task + 1) * BEHIND_ROWS : b->height;
    float lo = INFINITY, hi = -INFINITY;
    for (int32_t y = task * BEHIND_ROWS; y < y1; y++) {
        const float *row = b->rgba + (size_t)y * (size_t)b->width * 4;
        for (size_t i = 0; i < (size_t)b->width * 4; i++) {
            if ((i & 3) == 3) continue; /* colours only */
            lo = row[i] < lo ? row[i] : lo;
            hi = row[i] > hi ? row[i] : hi;
        }
    }
    bp->range[task][0] = lo;
    bp->range[task][1] = hi;
}

/* The smallest and largest colour channel of the band's pixels: fast mode
 * stops a pixel once what lies behind can move it by no more than its
 * tolerance, and over a band what lies behind is those pixels. Returns -1
 * when out of memory. */
static int behind_range(const qr_image *band, int threads, float out[2])
{
    const int ntasks = (int)((band->height + BEHIND_ROWS - 1) / BEHIND_ROWS);
    behind_pass bp = {band, malloc((size_t)ntasks * sizeof *bp.range)};
    if (!bp.range) return -1;
    qr_parallel_for(ntasks, threads, behind_rows, &bp);
    out[0] = INFINITY;
    out[1] = -INFINITY;
    for (int t = 0; t < ntasks; t++) {
        out[0] = bp.range[t][0] < out[0] ? bp.range[t][0] : out[0];
        out[1] = bp.range[t][1] > out[1] ? bp.range[t][1] : out[1];
    }
    free(bp.range);
    return 0;
}

/* How a render meets what the band holds: over it (back to front), under
 * it (front to back, fast mode: the band carries the colour gathered and T;
 * `back`: the scene is the last behind, the background then shows), or
 * neither (the band is written whole). */
typedef struct band_use {
    int over, under, front, back; /* under, front: nothing gathered yet (C = 0, T = 1) */
    const qr_cpu_fast_numbers *numbers; /* under: the whole scene's */
} band_use;

/* qr_render_cpu_index, as `use` says. */
static qr_status render_index(const qr_scene *scene, const qr_index *ix, qr_render_mode mode,
                              int threads, qr_image *band, band_use use, qr_error *err)
{
    const int over = use.over;
    qr_status st = check_scene(scene, err);
    if (st) return st;
    if (!ix)
        return qr_fail(err, QR_ERR_INVALID, "CPU renderer: no index");
    const qr_rect reg = ix->region;
    if ((st = check_region(ix->width, ix->height, &reg, band, err))) return st;
    if (ix->visible + ix->culled != scene->n)
        return qr_fail(err, QR_ERR_INVALID, "CPU renderer: the index is not of this scene");
    if (ix->params.min_leaf < QR_TILE)
        return qr_fail(err, QR_ERR_INVALID,
                       "CPU renderer: the index's leaves must be at least %d pixels (its minimum is %d)",
                       QR_TILE, ix->params.min_leaf);
    if (threads <= 0) threads = qr_threads();

    const int nchunks = (int)((scene->n + CIRCLE_CHUNK - 1) / CIRCLE_CHUNK);
    /* its per-circle copy, checked first (quadrender/memory.h) */
    const uint64_t copy = (uint64_t)scene->n * sizeof(cpu_circle);
    if (copy >= QR_HOST_CHECKED_BYTES) {
        qr_status fit = qr_host_memory_check("the CPU renderer's circles", copy, err);
        if (fit) return fit;
    }
    cpu_circle *circles = malloc((size_t)(scene->n ? scene->n : 1) * sizeof *circles);
    chunk_sums *sums = malloc((size_t)(nchunks ? nchunks : 1) * sizeof *sums);
    float behind[2] = {0.0f, 0.0f};
    int oom = !circles || !sums ||
              (over && mode == QR_RENDER_FAST && behind_range(band, threads, behind));
    cpu_frame f;
    memset(&f, 0, sizeof f);
    f.over = over;
    f.under = use.under;
    f.front = use.front;
    f.back = use.back;
    f.width = ix->width;
    f.height = ix->height;
    f.inv_w = 1.f / (float)ix->width;
    f.inv_h = 1.f / (float)ix->height;
    f.band = band;
    f.band_x0 = reg.x0;
    f.band_y0 = reg.y0;
    f.side = ix->width > ix->height ? ix->width : ix->height;
    /* windows of CPU_WINDOW from the band's corner, row by row */
    int first = 1;
    for (int32_t y = reg.y0; y < reg.y1 && !oom; y += CPU_WINDOW)
        for (int32_t x = reg.x0; x < reg.x1 && !oom; x += CPU_WINDOW) {
            const qr_rect win = {x, y, x + CPU_WINDOW < reg.x1 ? x + CPU_WINDOW : reg.x1,
                                 y + CPU_WINDOW < reg.y1 ? y + CPU_WINDOW : reg.y1};
            oom = render_window(scene, ix, circles, sums, nchunks, mode, threads, win, first,
                                behind, use.under ? use.numbers : NULL, &f);
            first = 0;
        }
    free(sums);
    free(circles);
    if (oom)
        return qr_fail(err, QR_ERR_NOMEM, "CPU renderer: out of host memory (%d circles)",
                       scene->n);
    return QR_OK;
}

qr_status qr_render_cpu_index(const qr_scene *scene, const qr_index *ix, qr_render_mode mode,
                              int threads, qr_image *band, qr_error *err)
{
    return render_index(scene, ix, mode, threads, band, (band_use){0, 0, 0, 0, NULL}, err);
}

/* The scene's radii widened for anti-aliased edges on an image whose longer
 * side is `side` (qr_aa_radius), or NULL when out of memory. */
static float *widened_radii(const qr_scene *s, int side)
{
    float *r = malloc((size_t)(s->n ? s->n : 1) * sizeof *r);
    if (!r) return NULL;
    const float half = qr_aa_half_pixel(side);
    for (int32_t i = 0; i < s->n; i++) r[i] = qr_aa_radius(s->r[i], half);
    return r;
}

/* qr_render_cpu_fast_region, as `use` says. */
static qr_status render_region(const qr_scene *scene, const qr_index_params *params,
                               qr_render_mode mode, int threads, int32_t width, int32_t height,
                               const qr_rect *region, qr_image *out, band_use use,
                               qr_cpu_timing *timing, qr_error *err)
{
    qr_status st = check_scene(scene, err);
    if (!st) st = check_region(width, height, region, out, err);
    if (st) return st;
    qr_index_params def;
    if (!params) {
        qr_index_params_default(&def);
    } else {
        def = *params;
    }
    /* the tiles' pixel groups are QR_TILE wide (cpu_tile.h): smaller leaves
     * would split them, and leave the image as it is anyway */
    if (def.min_leaf < QR_TILE) def.min_leaf = QR_TILE;
    params = &def;
    const double t0 = now_ms();
    /* anti-aliased edges: the index and the tiles take every radius half a
     * pixel larger (a view of the scene with its own radii) */
    qr_scene view;
    float *wide = NULL;
    if (scene->antialias && scene->shading == QR_SHADE_FLAT) {
        if (!(wide = widened_radii(scene, width > height ? width : height)))
            return qr_fail(err, QR_ERR_NOMEM, "CPU renderer: out of memory for %ld radii",
                           (long)scene->n);
        view = *scene;
        view.r = wide;
        scene = &view;
    }
    qr_index *ix = NULL;
    st = qr_index_build_host_threads(scene, width, height, region, params,
                                     qr_render_cpu_fast_index_mode(mode), threads, &ix, err);
    const double t1 = now_ms();
    if (!st) st = render_index(scene, ix, mode, threads, out, use, err);
    const double t2 = now_ms();
    qr_index_destroy(ix);
    free(wide);
    if (timing) {
        timing->build_ms = t1 - t0;
        timing->render_ms = t2 - t1;
    }
    return st;
}

qr_status qr_render_cpu_fast_region(const qr_scene *scene, const qr_index_params *params,
                                    qr_render_mode mode, int threads, int32_t width,
                                    int32_t height, const qr_rect *region, qr_image *out,
                                    qr_cpu_timing *timing, qr_error *err)
{
    return render_region(scene, params, mode, threads, width, height, region, out,
                         (band_use){0, 0, 0, 0, NULL}, timing, err);
}

qr_status qr_render_cpu_fast_band(const qr_scene *scene, const qr_index_params *params,
                                  qr_render_mode mode, int threads, int32_t width,
                                  int32_t height, int32_t y0, int32_t y1, qr_image *band,
                                  qr_cpu_timing *timing, qr_error *err)
{
    const qr_rect rows = {0, y0, width, y1};
    if (y0 < 0 || y1 > height || y0 >= y1)
        return qr_fail(err, QR_ERR_INVALID, "CPU renderer: rows [%ld,%ld) are not a band of %ld",
                       (long)y0, (long)y1, (long)height);
    return qr_render_cpu_fast_region(scene, params, mode, threads, width, height, &rows, band,
                                     timing, err);
}

qr_status qr_render_cpu_fast(const qr_scene *scene, const qr_index_params *params,
                             qr_render_mode mode, int threads, qr_image *img,
                             qr_cpu_timing *timing, qr_error *err)
{
    if (!img)
        return qr_fail(err, QR_ERR_INVALID, "CPU renderer: no image");
    return qr_render_cpu_fast_band(scene, params, mode, threads, img->width, img->height, 0,
                                   img->height, img, timing, err);
}

qr_status qr_render_cpu_fast_over(const qr_scene *scene, const qr_index_params *params,
                                  qr_render_mode mode, int threads, qr_image *img,
                                  qr_cpu_timing *timing, qr_error *err)
{
    if (!img)
        return qr_fail(err, QR_ERR_INVALID, "CPU renderer: no image");
    return qr_render_cpu_fast_band_over(scene, params, mode, threads, img->width, img->height, 0,
                                        img->height, img, timing, err);
}

qr_status qr_render_cpu_fast_band_over(const qr_scene *scene, const qr_index_params *params,
                                       qr_render_mode mode, int threads, int32_t width,
                                       int32_t height, int32_t y0, int32_t y1, qr_image *band,
                                       qr_cpu_timing *timing, qr_error *err)
{
    const qr_rect rows = {0, y0, width, y1};
    return render_region(scene, params, mode, threads, width, height, &rows, band,
                         (band_use){1, 0, 0, 0, NULL}, timing, err);
}

/* ---- front to back, chunk by chunk ---------------------------------------------------------- */

void qr_cpu_fast_numbers_init(qr_cpu_fast_numbers *n)
{
    n->lo = INFINITY;
    n->hi = -INFINITY;
    n->area = n->open = 0.0;
    n->circles = 0;
}

void qr_cpu_fast_numbers_add(qr_cpu_fast_numbers *n, const qr_scene *chunk)
{
    const int snow = chunk->shading == QR_SHADE_SNOW;
    for (int32_t i = 0; i < chunk->n; i++) {
        circle_numbers(chunk, i, drawable(chunk, i), snow, &n->lo, &n->hi, &n->open);
        /* tasks of CIRCLE_CHUNK circles from the scene's first, summed in
         * order, as one pass sums them */
        if (++n->circles % CIRCLE_CHUNK == 0) {
            n->area += n->open;
            n->open = 0.0;
        }
    }
}

int qr_render_cpu_fast_stops(const qr_scene *picture, const qr_cpu_fast_numbers *n)
{
    cpu_frame f;
    memset(&f, 0, sizeof f);
    frame_numbers(picture, NULL, 0, QR_RENDER_FAST, NULL, n, &f);
    return f.front_to_back;
}

qr_status qr_render_cpu_fast_under(const qr_scene *scene, const qr_index_params *params,
                                   int threads, qr_image *img, const qr_cpu_fast_numbers *numbers,
                                   int front, int back, qr_cpu_timing *timing, qr_error *err)
{
    if (!img)
        return qr_fail(err, QR_ERR_INVALID, "CPU renderer: no image");
    return qr_render_cpu_fast_band_under(scene, params, threads, img->width, img->height, 0,
                                         img->height, img, numbers, front, back, timing, err);
}

qr_status qr_render_cpu_fast_band_under(const qr_scene *scene, const qr_index_params *params,
                                        int threads, int32_t width, int32_t height, int32_t y0,
                                        int32_t y1, qr_image *band,
                                        const qr_cpu_fast_numbers *numbers, int front, int back,
                                        qr_cpu_timing *timing, qr_error *err)
{
    if (!numbers)
        return qr_fail(err, QR_ERR_INVALID, "CPU renderer: no numbers");
    const qr_rect rows = {0, y0, width, y1};
    return render_region(scene, params, QR_RENDER_FAST, threads, width, height, &rows, band,
                         (band_use){0, 1, front, back, numbers}, timing, err);
}
