/* cpu_tile.c — one tile of the fast CPU renderer: the circles of a leaf list
 * blended into a 32 x 32 block of pixels held in L1, eight pixels of a row
 * at a time.
 *
 * Exactness: every pixel sees the reference's operations in the reference's
 * order (common/circle_math.h): the same pixel centres, d2 = dx*dx + dy*dy,
 * the same coverage test over the same pixel box, and the blend
 * a*c + (1-a)*C then alpha + a, circle after circle in list (= drawing)
 * order. A lane of an 8-float vector rounds exactly like the scalar
 * operation, and the build never fuses a multiply and an add
 * (-ffp-contract=off), so the exact walk is the reference bit for bit.
 * Snow's shading calls the reference's qr_shade_snow (sqrtf, expf) pixel by
 * pixel: a vector exp would round differently.
 *
 * Fast mode stops a row's QR_TILE-wide group of pixels once nothing behind
 * can change it (cpu_tile.h's CPU_GROUP), so a pixel's bytes depend on its
 * group and the circles over it, not on the tiles or leaves around it: a
 * band of an image renders as the same rows of the whole.
 *
 * The vectors are GCC vector extensions (8 floats): on x86-64 the kernel is
 * compiled twice, for AVX2 and for the baseline (two SSE halves per
 * vector), and the loader picks the one the CPU runs (target_clones).
 */
#include "render/cpu/cpu_tile.h"

#include <string.h>

#include "common/circle_math.h"

#define NV (CPU_TILE / 8) /* vectors in a tile row */

typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));

#define SPLAT(v) ((v8f){(v), (v), (v), (v), (v), (v), (v), (v)})
#define SPLATI(v) ((v8i){(v), (v), (v), (v), (v), (v), (v), (v)})

/* QR_NO_TARGET_CLONES: one baseline kernel (the fuzz build: clang's
 * target_clones resolver does not link under its sanitizers). */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__has_attribute) && \
    !defined(QR_NO_TARGET_CLONES)
#if __has_attribute(target_clones)
#define QR_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef QR_SIMD_CLONES
#define QR_SIMD_CLONES
#endif

#define INLINE static inline __attribute__((always_inline))

/* The tile's pixels: colour (exact: the image so far; fast: what has been
 * gathered front to back), and alpha (exact) or transmittance T (fast).
 * Row y of the tile is at [y * CPU_TILE]. */
typedef struct tile_px {
    _Alignas(32) float r[CPU_TILE * CPU_TILE];
    _Alignas(32) float g[CPU_TILE * CPU_TILE];
    _Alignas(32) float b[CPU_TILE * CPU_TILE];
    _Alignas(32) float a[CPU_TILE * CPU_TILE];
} tile_px;

/* Where the tile lies, and its pixel centres. */
typedef struct tile_geom {
    int x0, y0, w, h;
    v8f cx[NV];          /* centre x of columns x0 + 8v + lane */
    v8i col[NV];         /* their image column */
    float cx1[CPU_TILE]; /* the same, one by one */
    float cy[CPU_TILE];  /* centre y of row y0 + k */
    float bg[3][CPU_TILE]; /* background of row y0 + k, by channel */
} tile_geom;

/* A circle's part of the tile: its box clipped to the tile, in tile
 * coordinates, and the vectors [v0, v1] it touches. */
typedef struct tile_box {
    int x0, x1, y0, y1, v0, v1;
} tile_box;

INLINE int clip_box(const cpu_box *b, const tile_geom *t, tile_box *c)
{
    c->x0 = (b->x0 > t->x0 ? b->x0 : t->x0) - t->x0;
    c->x1 = (b->x1 < t->x0 + t->w ? b->x1 : t->x0 + t->w) - t->x0;
    c->y0 = (b->y0 > t->y0 ? b->y0 : t->y0) - t->y0;
    c->y1 = (b->y1 < t->y0 + t->h ? b->y1 : t->y0 + t->h) - t->y0;
    if (c->x0 >= c->x1 || c->y0 >= c->y1) return 0;
    c->v0 = c->x0 >> 3;
    c->v1 = (c->x1 - 1) >> 3;
    return 1;
}

/* Per vector of the circle's columns: dx*dx and which lanes lie in its box
 * (all ones where they do). */
INLINE void circle_columns(const tile_geom *t, const cpu_box *b, const tile_box *c, float x,
                           v8f *dx2, v8i *in_box)
{
    const v8i bx0 = SPLATI(b->x0), bx1 = SPLATI(b->x1);
    for (int v = c->v0; v <= c->v1; v++) {
        const v8f dx = SPLAT(x) - t->cx[v];
        dx2[v] = dx * dx;
        in_box[v] = (t->col[v] >= bx0) & (t->col[v] < bx1);
    }
}

/* Vectors through macros, not functions: a function taking or returning a
 * 32-byte vector has a different ABI with and without AVX. */
#define SELECT(m, yes, no) ((v8f)(((v8i)(yes) & (m)) | ((v8i)(no) & ~(m))))
/* the tile's channels as vectors (32-byte aligned, aliasing the floats) */
typedef float v8f_alias __attribute__((vector_size(32), may_alias));
#define VEC(p) (*(v8f_alias *)(p))
#define STORE(p, v) (VEC(p) = (v))

/* ---- exact: back to front, the reference blend ------------------------------- */

/* LANE_ALPHA: the per-pixel alpha of a flat circle's lanes: its own (a), or with
 * anti-aliased edges (aa, a compile-time constant at each call) a times the
 * coverage, min(1, (r'^2 - d2) k), lane by lane as qr_aa_alpha computes
 * it. */
#define LANE_COVER(d2, r2, k) (((r2) - (d2)) * (k))
#define LANE_ALPHA(aa, a, d2, r2, k)                                                          \
    ((aa) ? (a) * SELECT(LANE_COVER(d2, r2, k) < SPLAT(1.0f), LANE_COVER(d2, r2, k),          \
                         SPLAT(1.0f))                                                         \
          : (a))

/* Flat circles in list order: qr_blend lane by lane, a c + (1 - a) C and
 * alpha + a (a c and 1 - a once a circle where every lane's a is the
 * circle's); cover: qr_blend_cover's alpha, a + (1 - a) A. */
INLINE void exact_flat(const cpu_frame *f, const cpu_circle *list, const float *alpha,
                       int32_t count, const tile_geom *t, tile_px *p, int aa, int cover)
{
    const v8f one = SPLAT(1.0f);
    for (int32_t j = 0; j < count; j++) {
        const cpu_circle *ci = &list[j];
        tile_box c;
        if (!clip_box(&ci->box, t, &c)) continue;
        const float x = ci->x, y = ci->y, rad = ci->rad;
        const v8f r2 = SPLAT(QR_MUL(rad, rad)), k = SPLAT(aa ? qr_aa_slope(rad, f->side) : 0.0f);
        const v8f a = SPLAT(alpha ? alpha[j] : 0.5f);
        const v8f cr = SPLAT(ci->c0), cg = SPLAT(ci->c1), cb = SPLAT(ci->c2);
        /* the circle's own alpha * colour and 1 - alpha, as qr_blend computes them */
        const v8f hr = a * cr, hg = a * cg, hb = a * cb, half = one - a;
        v8f dx2[NV];
        v8i in_box[NV];
        circle_columns(t, &ci->box, &c, x, dx2, in_box);
        for (int row = c.y0; row < c.y1; row++) {
            const float dy = QR_SUB(y, t->cy[row]);
            const v8f dy2 = SPLAT(QR_MUL(dy, dy));
            for (int v = c.v0; v <= c.v1; v++) {
                const v8f d2 = dx2[v] + dy2;
                /* covered unless d2 > r*r, as the reference tests it */
                const v8i m = ~(d2 > r2) & in_box[v];
                const v8f ae = LANE_ALPHA(aa, a, d2, r2, k);
                const v8f om = aa ? one - ae : half;
                const int at = row * CPU_TILE + 8 * v;
                const v8f pr = VEC(p->r + at), pg = VEC(p->g + at), pb = VEC(p->b + at);
                const v8f pa = VEC(p->a + at);
                STORE(p->r + at, SELECT(m, (aa ? ae * cr : hr) + om * pr, pr));
                STORE(p->g + at, SELECT(m, (aa ? ae * cg : hg) + om * pg, pg));
                STORE(p->b + at, SELECT(m, (aa ? ae * cb : hb) + om * pb, pb));
                STORE(p->a + at, SELECT(m, cover ? ae + om * pa : pa + ae, pa));
            }
        }
    }
}

/* qr_blend on the tile's channels. */
INLINE void blend_px(tile_px *p, int at, float alpha, float r, float g, float b)
{
    const float one_minus = QR_SUB(1.0f, alpha);
    p->r[at] = QR_ADD(QR_MUL(alpha, r), QR_MUL(one_minus, p->r[at]));
    p->g[at] = QR_ADD(QR_MUL(alpha, g), QR_MUL(one_minus, p->g[at]));
    p->b[at] = QR_ADD(QR_MUL(alpha, b), QR_MUL(one_minus, p->b[at]));
    p->a[at] = QR_ADD(p->a[at], alpha);
}

INLINE void exact_snow(const cpu_frame *f, const cpu_circle *list, int32_t count, const tile_geom *t,
                       tile_px *p)
{
    for (int32_t j = 0; j < count; j++) {
        const cpu_circle *ci = &list[j];
        tile_box c;
        if (!clip_box(&ci->box, t, &c)) continue;
        const float x = ci->x, y = ci->y, z = ci->c0, rad = ci->rad;
        const float r2 = QR_MUL(rad, rad);
        for (int k = c.y0; k < c.y1; k++) {
            const float dy = QR_SUB(y, t->cy[k]);
            const float dy2 = QR_MUL(dy, dy);
            for (int px = c.x0; px < c.x1; px++) {
                const float dx = QR_SUB(x, t->cx1[px]);
                const float d2 = QR_ADD(QR_MUL(dx, dx), dy2);
                if (d2 > r2) continue;
                float alpha, cr, cg, cb;
                qr_shade_snow(d2, rad, z, &alpha, &cr, &cg, &cb);
                blend_px(p, k * CPU_TILE + px, alpha, cr, cg, cb);
            }
        }
    }
}

/* ---- fast: front to back with transmittance ------------------------------------ */

#define NG (CPU_TILE / CPU_GROUP) /* groups in a tile row */
#define VG (CPU_GROUP / 8)        /* vectors in a group */
_Static_assert(CPU_GROUP % 8 == 0 && CPU_TILE % CPU_GROUP == 0, "groups of whole vectors");

/* Whether every pixel of group g of tile row k has T <= stop (columns past
 * the tile's width hold T = 0). */
INLINE int group_done(const tile_px *p, int k, int g, float stop)
{
    const v8f st = SPLAT(stop);
    v8i open = SPLATI(0);
    for (int v = g * VG; v < (g + 1) * VG; v++) open |= VEC(p->a + k * CPU_TILE + 8 * v) > st;
    int64_t any[4];
    memcpy(any, &open, sizeof any);
    return (any[0] | any[1] | any[2] | any[3]) == 0;
}

/* Rows [y0, y1) as a bit mask. */
INLINE uint32_t row_bits(int y0, int y1)
{
    const uint32_t hi = y1 >= 32 ? 0xffffffffu : (1u << y1) - 1u;
    return hi & ~((1u << y0) - 1u);
}

/* Rows where any of groups [g0, g1] is still open. */
INLINE uint32_t live_rows(const uint32_t live[NG], int g0, int g1)
{
    uint32_t rows = 0;
    for (int g = g0; g <= g1; g++) rows |= live[g];
    return rows;
}

INLINE int any_live(const uint32_t live[NG])
{
    return live_rows(live, 0, NG - 1) != 0;
}

/* After a circle over groups [g0, g1] of row k: closes those now done. A
 * group's T changes only under circles whose box meets it, and it is
 * tested after each of them, so the circles it takes are the same in a
 * tile of any width. */
INLINE void close_groups(const tile_px *p, uint32_t live[NG], int k, int g0, int g1, float stop)
{
    for (int g = g0; g <= g1; g++)
        if (((live[g] >> k) & 1u) && group_done(p, k, g, stop)) live[g] &= ~(1u << k);
}

/* Flat circles front to back: w = T a (LANE_ALPHA), C += w c, T -= w. */
INLINE void fast_flat(const cpu_frame *f, const cpu_circle *list, const float *alpha,
                      int32_t count, const tile_geom *t, tile_px *p, uint32_t live[NG], int aa)
{
    const v8f zero = SPLAT(0.0f);
    for (int32_t j = count - 1; j >= 0 && any_live(live); j--) {
        const cpu_circle *ci = &list[j];
        tile_box c;
        if (!clip_box(&ci->box, t, &c)) continue;
        const int g0 = c.x0 / CPU_GROUP, g1 = (c.x1 - 1) / CPU_GROUP;
        uint32_t rows = row_bits(c.y0, c.y1) & live_rows(live, g0, g1);
        if (!rows) continue;
        const float x = ci->x, y = ci->y, rad = ci->rad;
        const v8f r2 = SPLAT(QR_MUL(rad, rad)), k = SPLAT(aa ? qr_aa_slope(rad, f->side) : 0.0f);
        const v8f a = SPLAT(alpha ? alpha[j] : 0.5f);
        const v8f cr = SPLAT(ci->c0), cg = SPLAT(ci->c1), cb = SPLAT(ci->c2);
        v8f dx2[NV];
        v8i in_box[NV];
        circle_columns(t, &ci->box, &c, x, dx2, in_box);
        while (rows) {
            const int row = __builtin_ctz(rows);
            rows &= rows - 1;
            const float dy = QR_SUB(y, t->cy[row]);
            const v8f dy2 = SPLAT(QR_MUL(dy, dy));
            for (int v = c.v0; v <= c.v1; v++) {
                if (!((live[v / VG] >> row) & 1u)) continue;
                const v8f d2 = dx2[v] + dy2;
                const v8i m = ~(d2 > r2) & in_box[v];
                const int at = row * CPU_TILE + 8 * v;
                const v8f T = VEC(p->a + at);
                const v8f w = SELECT(m, T * LANE_ALPHA(aa, a, d2, r2, k), zero);
                STORE(p->r + at, VEC(p->r + at) + w * cr);
                STORE(p->g + at, VEC(p->g + at) + w * cg);
                STORE(p->b + at, VEC(p->b + at) + w * cb);
                STORE(p->a + at, T - w);
            }
            close_groups(p, live, row, g0, g1, f->stop);
        }
    }
}

INLINE void fast_snow(const cpu_frame *f, const cpu_circle *list, int32_t count,
                      const tile_geom *t, tile_px *p, uint32_t live[NG])
{
    for (int32_t j = count - 1; j >= 0 && any_live(live); j--) {
        const cpu_circle *ci = &list[j];
        tile_box c;
        if (!clip_box(&ci->box, t, &c)) continue;
        const int g0 = c.x0 / CPU_GROUP, g1 = (c.x1 - 1) / CPU_GROUP;
        uint32_t rows = row_bits(c.y0, c.y1) & live_rows(live, g0, g1);
        if (!rows) continue;
        const float x = ci->x, y = ci->y, z = ci->c0, rad = ci->rad;
        const float r2 = QR_MUL(rad, rad);
        while (rows) {
            const int k = __builtin_ctz(rows);
            rows &= rows - 1;
            const float dy = QR_SUB(y, t->cy[k]);
            const float dy2 = QR_MUL(dy, dy);
            for (int px = c.x0; px < c.x1; px++) {
                if (!((live[px / CPU_GROUP] >> k) & 1u)) continue;
                const float dx = QR_SUB(x, t->cx1[px]);
                const float d2 = QR_ADD(QR_MUL(dx, dx), dy2);
                if (d2 > r2) continue;
                float alpha, cr, cg, cb;
                qr_shade_snow(d2, rad, z, &alpha, &cr, &cg, &cb);
                const int at = k * CPU_TILE + px;
                const float w = p->a[at] * alpha;
                p->r[at] += w * cr;
                p->g[at] += w * cg;
                p->b[at] += w * cb;
                p->a[at] -= w;
            }
            close_groups(p, live, k, g0, g1, f->stop);
        }
    }
}

/* ---- the tile ----------------------------------------------------------------- */

/* The band's pixel at window pixel (x, y). */
static inline float *band_pixel(const cpu_frame *f, int x, int y)
{
    const size_t row = (size_t)(f->oy + y - f->band_y0);
    return f->band->rgba + (row * (size_t)f->band->width + (size_t)(f->ox + x - f->band_x0)) * 4;
}

/* The tile's pixels as the band holds them (the four channels). */
static void load_band(const cpu_frame *f, const tile_geom *t, tile_px *p)
{
    for (int k = 0; k < t->h; k++) {
        const float *in = band_pixel(f, t->x0, t->y0 + k);
        for (int c = 0; c < t->w; c++) {
            const int at = k * CPU_TILE + c;
            p->r[at] = in[4 * c + 0];
            p->g[at] = in[4 * c + 1];
            p->b[at] = in[4 * c + 2];
            p->a[at] = in[4 * c + 3];
        }
    }
}

QR_SIMD_CLONES
void cpu_render_tile(const cpu_frame *f, const cpu_circle *list, const float *alpha, int32_t count,
                     int x0, int y0, int x1, int y1)
{
    tile_geom t;
    tile_px p;
    t.x0 = x0;
    t.y0 = y0;
    t.w = x1 - x0;
    t.h = y1 - y0;
    const int32_t height = f->height, width = f->width;
    for (int k = 0; k < CPU_TILE; k++) {
        /* columns past the image repeat its last one: never inside a box */
        const int32_t ax = f->ox + x0 + k, px = ax < width ? ax : width - 1;
        t.cx1[k] = qr_pixel_center(px, f->inv_w);
        t.cx[k / 8][k % 8] = t.cx1[k];
        t.col[k / 8][k % 8] = x0 + k;
        const int32_t ay = f->oy + y0 + k, py = ay < height ? ay : height - 1;
        t.cy[k] = qr_pixel_center(py, f->inv_h);
        const float shade = f->snow ? qr_snow_shade_row(py, height) : 0.0f;
        for (int ch = 0; ch < 3; ch++) t.bg[ch][k] = f->snow ? shade : f->bg[ch];
    }
    if (!f->front_to_back) {
        for (int k = 0; k < CPU_TILE; k++)
            for (int c = 0; c < CPU_TILE; c++) {
                const int at = k * CPU_TILE + c;
                p.r[at] = t.bg[0][k];
                p.g[at] = t.bg[1][k];
                p.b[at] = t.bg[2][k];
                p.a[at] = f->cover ? 0.0f : 1.0f;
            }
        if (f->over) /* the walk goes on from the pixels of the circles before */
            load_band(f, &t, &p);
        /* the walk's instances: aa and cover are constants in each */
        if (f->snow)
            exact_snow(f, list, count, &t, &p);
        else if (f->cover)
            f->aa ? exact_flat(f, list, alpha, count, &t, &p, 1, 1)
                  : exact_flat(f, list, alpha, count, &t, &p, 0, 1);
        else if (f->aa)
            exact_flat(f, list, alpha, count, &t, &p, 1, 0);
        else
            exact_flat(f, list, alpha, count, &t, &p, 0, 0);
    } else {
        for (int k = 0; k < CPU_TILE; k++)
            for (int c = 0; c < CPU_TILE; c++) {
                const int at = k * CPU_TILE + c;
                p.r[at] = p.g[at] = p.b[at] = 0.0f;
                p.a[at] = c < t.w ? 1.0f : 0.0f; /* T */
            }
        const int carried = f->under && !f->front;
        if (carried) /* what the circles in front left */
            load_band(f, &t, &p);
        /* the groups the tile holds are open on its rows, but for those the
         * circles in front closed (close_groups' test, after their last) */
        uint32_t live[NG];
        for (int g = 0; g < NG; g++) live[g] = g * CPU_GROUP < t.w ? row_bits(0, t.h) : 0u;
        for (int k = 0; k < t.h && carried; k++)
            close_groups(&p, live, k, 0, NG - 1, f->stop);
        if (f->snow)
            fast_snow(f, list, count, &t, &p, live);
        else if (f->aa)
            fast_flat(f, list, alpha, count, &t, &p, live, 1);
        else
            fast_flat(f, list, alpha, count, &t, &p, live, 0);
        /* what lies behind: the background, through what is left of T
         * (chunk by chunk: behind the last chunk only) */
        for (int k = 0; k < t.h && !f->over && (!f->under || f->back); k++)
            for (int c = 0; c < t.w; c++) {
                const int at = k * CPU_TILE + c;
                p.r[at] += p.a[at] * t.bg[0][k];
                p.g[at] += p.a[at] * t.bg[1][k];
                p.b[at] += p.a[at] * t.bg[2][k];
            }
        /* or the image of the circles before, whose coverage A leaves
         * T (1 - A) of the tile uncovered */
        for (int k = 0; k < t.h && f->over; k++) {
            const float *in = band_pixel(f, x0, y0 + k);
            for (int c = 0; c < t.w; c++) {
                const int at = k * CPU_TILE + c;
                p.r[at] += p.a[at] * in[4 * c + 0];
                p.g[at] += p.a[at] * in[4 * c + 1];
                p.b[at] += p.a[at] * in[4 * c + 2];
                if (f->cover) p.a[at] *= 1.0f - in[4 * c + 3];
            }
        }
    }
    /* the alpha channel: the coverage (fast: 1 - T), the exact walk's
     * CS149 alpha, or 1 */
    const int keep_alpha = !f->front_to_back && (f->keep_alpha || f->cover);
    const int cover_t = f->front_to_back && f->cover;
    const int raw_t = f->under && !f->back; /* T itself, for the chunks behind */
    for (int k = 0; k < t.h; k++) {
        float *out = band_pixel(f, x0, y0 + k);
        for (int c = 0; c < t.w; c++) {
            const int at = k * CPU_TILE + c;
            out[4 * c + 0] = p.r[at];
            out[4 * c + 1] = p.g[at];
            out[4 * c + 2] = p.b[at];
            out[4 * c + 3] = raw_t     ? p.a[at]
                             : cover_t ? 1.0f - p.a[at]
                             : keep_alpha ? p.a[at]
                                          : 1.0f;
        }
    }
}
