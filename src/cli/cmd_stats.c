/* cmd_stats.c — `quadrender stats`: what the quadtree index of a scene looks
 * like, and how long it takes to build.
 *
 * On the GPU the index is built by the GPU builder (warm-up builds first,
 * then timed ones: the first builds allocate and warm caches) and
 * downloaded; on the CPU by the host oracle, which gives the very same index
 * (the GPU tests hold the two to that), so the statistics do not depend on
 * the device, only the times do.
 */
#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "quadrender/file.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/memory.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "cli/bench/report.h"
#include "quadrender/scene.h"
#include "quadrender/stats.h"
#include "quadrender/threads.h"

enum { GPU_WARMUP = 3, GPU_TIMED = 10, CPU_TIMED = 3 };

typedef enum picture_mode { PICTURE_LEAVES, PICTURE_HEAT } picture_mode;

static const char *set_picture_mode(const char *text, void *dest)
{
    if (strcmp(text, "leaves") == 0)
        *(picture_mode *)dest = PICTURE_LEAVES;
    else if (strcmp(text, "heat") == 0)
        *(picture_mode *)dest = PICTURE_HEAT;
    else
        return "leaves or heat";
    return NULL;
}

/* ---- building the index ------------------------------------------------------------ */

/* GPU: upload, step to the frame on the device, build GPU_WARMUP +
 * GPU_TIMED times; the medians per stage go to ctx. Leaves the device scene
 * in *gs for the picture. */
static qr_status build_gpu(const qr_scene *scene, int64_t frame, int32_t w, int32_t h,
                           const qr_index_params *p, qr_gpu_scene **gs, qr_index **ix,
                           qr_stats_context *ctx, qr_error *err)
{
    qr_gpu_index *gix = NULL;
    qr_status st = qr_gpu_scene_create(scene, gs, err);
    if (st == QR_OK)
        st = cli_seek(NULL, *gs, frame, err);
    if (st == QR_OK)
        st = qr_gpu_index_create(&gix, err);
    if (st != QR_OK)
        return st;
    qr_gpu_index_set_timing(gix, QR_TIMING_STAGES);
    double v[7][GPU_TIMED];
    for (int i = 0; i < GPU_WARMUP + GPU_TIMED && st == QR_OK; i++) {
        qr_build_timing t;
        st = qr_gpu_index_build(gix, *gs, w, h, NULL, p, QR_RENDER_FAST, err);
        if (st == QR_OK)
            st = qr_gpu_index_timing(gix, &t, err);
        if (st != QR_OK || i < GPU_WARMUP)
            continue;
        const float stage[7] = {t.boxes_ms, t.tree_ms, t.count_ms, t.scan_ms,
                                t.emit_ms,  t.sort_ms, t.total_ms};
        for (int k = 0; k < 7; k++)
            v[k][i - GPU_WARMUP] = stage[k];
    }
    if (st == QR_OK)
        st = qr_gpu_index_download(gix, ix, err);
    if (st == QR_OK) {
        /* medians stage by stage: they need not add up to the total's */
        float *m[7] = {&ctx->build.boxes_ms, &ctx->build.tree_ms, &ctx->build.count_ms,
                       &ctx->build.scan_ms,  &ctx->build.emit_ms, &ctx->build.sort_ms,
                       &ctx->build.total_ms};
        for (int k = 0; k < 7; k++)
            *m[k] = (float)cli_median(v[k], GPU_TIMED);
        ctx->timed_builds = GPU_TIMED;
        ctx->warmup_builds = GPU_WARMUP;
        ctx->has_stages = 1;
        ctx->device_bytes = qr_gpu_index_device_bytes(gix);
    }
    qr_gpu_index_destroy(gix);
    return st;
}

/* CPU: the host oracle, CPU_TIMED builds on the wall clock; keeps the last. */
static qr_status build_cpu(qr_scene *scene, int64_t frame, int32_t w, int32_t h,
                           const qr_index_params *p, qr_index **ix, qr_stats_context *ctx,
                           qr_error *err)
{
    qr_status st = cli_seek(scene, NULL, frame, err);
    double v[CPU_TIMED];
    for (int i = 0; i < CPU_TIMED && st == QR_OK; i++) {
        qr_index_destroy(*ix);
        *ix = NULL;
        double t0 = cli_now_ms();
        st = qr_index_build_host(scene, w, h, NULL, p, QR_RENDER_FAST, ix, err);
        v[i] = cli_now_ms() - t0;
    }
    if (st == QR_OK) {
        ctx->build.total_ms = (float)cli_median(v, CPU_TIMED);
        ctx->timed_builds = CPU_TIMED;
    }
    return st;
}

/* ---- the picture ------------------------------------------------------------------------ */

/* A band of the picture: rows [y0, y0 + img->height) of an image of
 * img->width x full_h pixels (the whole picture when y0 is 0 and img is
 * full_h rows tall). */
typedef struct canvas {
    qr_image *img;
    int32_t y0, full_h;
    bool cover; /* the scene has no background: alpha is the coverage */
} canvas;

static void blend(const canvas *c, int x, int y, const float rgb[3], float a)
{
    if (y < c->y0 || y >= c->y0 + c->img->height)
        return;
    float *p = c->img->rgba + 4 * ((size_t)(y - c->y0) * (size_t)c->img->width + (size_t)x);
    for (int k = 0; k < 3; k++)
        p[k] = (1.0f - a) * p[k] + a * rgb[k];
    if (c->cover) p[3] = (1.0f - a) * p[3] + a;
}

/* A leaf's rectangle, clipped to the image (it always lies inside; this
 * only keeps a bad index from writing out of bounds), and whether any of
 * it lies in the canvas's band. */
static bool leaf_rect(const canvas *c, const qr_leaf *l, qr_rect *out)
{
    qr_rect r = l->rect;
    r.x0 = r.x0 < 0 ? 0 : r.x0;
    r.y0 = r.y0 < 0 ? 0 : r.y0;
    r.x1 = r.x1 > c->img->width ? c->img->width : r.x1;
    r.y1 = r.y1 > c->full_h ? c->full_h : r.y1;
    *out = r;
    return r.x0 < r.x1 && r.y0 < r.y1 && r.y1 > c->y0 && r.y0 < c->y0 + c->img->height;
}

/* Every leaf boundary as a 1-pixel line: each leaf draws its bottom row and
 * left column, and its top row and right column only on the image's edge,
 * so that a boundary two leaves share is drawn once and no pixel is blended
 * twice. */
static void draw_edges(const canvas *c, const qr_index *ix, const float rgb[3], float a)
{
    const int32_t band_end = c->y0 + c->img->height;
    for (int32_t i = 0; i < ix->num_leaves; i++) {
        qr_rect r;
        if (!leaf_rect(c, &ix->leaves[i], &r))
            continue;
        bool top = r.y1 == c->full_h, right = r.x1 == c->img->width;
        if (r.y0 >= c->y0)
            for (int x = r.x0; x < r.x1; x++)
                blend(c, x, r.y0, rgb, a);
        if (top && r.y1 - 1 > r.y0 && r.y1 - 1 >= c->y0)
            for (int x = r.x0; x < r.x1; x++)
                blend(c, x, r.y1 - 1, rgb, a);
        int y_end = top ? r.y1 - 1 : r.y1;
        y_end = y_end < band_end ? y_end : band_end;
        for (int y = r.y0 + 1 > c->y0 ? r.y0 + 1 : c->y0; y < y_end; y++) {
            blend(c, r.x0, y, rgb, a);
            if (right && r.x1 - 1 > r.x0)
                blend(c, r.x1 - 1, y, rgb, a);
        }
    }
}

/* Dark blue (few circles) through blue, green and yellow to red (many). */
static void heat_colour(float t, float rgb[3])
{
    static const float stops[5][3] = {{0.05f, 0.05f, 0.35f},
                                      {0.10f, 0.40f, 0.90f},
                                      {0.10f, 0.75f, 0.45f},
                                      {0.95f, 0.85f, 0.10f},
                                      {0.85f, 0.10f, 0.05f}};
    float s = (t < 0 ? 0 : t > 1 ? 1 : t) * 4.0f;
    int k = s >= 4.0f ? 3 : (int)s;
    float f = s - (float)k;
    for (int c = 0; c < 3; c++)
        rgb[c] = (1.0f - f) * stops[k][c] + f * stops[k + 1][c];
}

/* Colours each leaf by its circle count on a log scale from the emptiest
 * leaf (dark blue) to the fullest (red): log(1 + count), so that a few heavy
 * leaves do not wash out the differences among the many light ones, and
 * from the scene's own minimum, since a busy scene may have no light leaf. */
static void draw_heat(const canvas *c, const qr_index *ix, int32_t min_count, int32_t max_count)
{
    const int32_t band_end = c->y0 + c->img->height;
    double lo = log1p((double)min_count), span = log1p((double)max_count) - lo;
    for (int32_t i = 0; i < ix->num_leaves; i++) {
        qr_rect r;
        if (!leaf_rect(c, &ix->leaves[i], &r))
            continue;
        float rgb[3];
        double t = span > 0 ? (log1p((double)ix->leaves[i].count) - lo) / span : 0.0;
        heat_colour((float)t, rgb);
        for (int y = r.y0 > c->y0 ? r.y0 : c->y0; y < (r.y1 < band_end ? r.y1 : band_end); y++)
            for (int x = r.x0; x < r.x1; x++)
                blend(c, x, y, rgb, 0.8f);
    }
    static const float black[3] = {0, 0, 0};
    draw_edges(c, ix, black, 0.35f);
}

/* The scene as `render` draws it in fast mode, on the GPU when gs is
 * there, else with the fast CPU renderer, into a new *img. */
static qr_status draw_scene(const qr_scene *scene, qr_gpu_scene *gs, int32_t w, int32_t h,
                            const qr_index_params *p, qr_image **img, qr_error *err)
{
    qr_status st = qr_image_create(w, h, img, err);
    if (st == QR_OK && gs) {
        qr_gpu_renderer *r = NULL;
        st = qr_gpu_renderer_create(w, h, &r, err);
        if (st == QR_OK)
            st = qr_gpu_render(r, gs, p, QR_RENDER_FAST, err);
        if (st == QR_OK)
            st = qr_gpu_renderer_download(r, *img, err);
        qr_gpu_renderer_destroy(r);
    } else if (st == QR_OK) {
        st = qr_render_cpu_fast(scene, p, QR_RENDER_FAST, 0, *img, NULL, err);
    }
    return st;
}

/* Where the picture's rows come from: the GPU renderer r when gs is there
 * (whole, or banded with rgb holding a band's float RGB), else the fast
 * CPU renderer. */
typedef struct picture_src {
    const qr_scene *scene;
    qr_gpu_scene *gs;
    qr_gpu_renderer *r;
    const qr_index_params *p;
    int32_t width, height;
    float *rgb;
} picture_src;

/* A band of the picture at most 256 MiB of float pixels, less when the host
 * memory left is small (qr_host_band_rows). */
#define PICTURE_BAND_BYTES ((uint64_t)256 << 20)

/* Rows of the picture's bands (the whole image when it takes at most a
 * QR_HOST_BAND_SHARE-th of the host memory left and fits QR_IMAGE_MAX_DIM),
 * and its GPU renderer when gs is there. */
static qr_status picture_open(picture_src *src, int32_t *rows, qr_error *err)
{
    const int32_t w = src->width, h = src->height;
    const bool whole = w <= QR_IMAGE_MAX_DIM && h <= QR_IMAGE_MAX_DIM &&
                       qr_host_band_rows((uint64_t)w * 4 * sizeof(float), h, 1, UINT64_MAX) == h;
    /* banded on the GPU: a band's float RGB comes back beside its RGBA */
    const uint64_t row_bytes = (uint64_t)w * (src->gs ? 7 : 4) * sizeof(float);
    *rows = whole ? h : qr_host_band_rows(row_bytes, h, QR_REGION, PICTURE_BAND_BYTES);
    /* a band's float rows from the GPU carry no alpha: a picture without a
     * background is rendered in bands on the CPU */
    if (!whole && src->scene->transparent) src->gs = NULL;
    if (!src->gs)
        return QR_OK;
    if (whole)
        return qr_gpu_renderer_create(w, h, &src->r, err);
    qr_status st = qr_host_malloc("a band of the picture's float rows",
                                  (size_t)*rows * (size_t)w * 3 * sizeof(float),
                                  (void **)&src->rgb, err);
    if (st == QR_OK)
        st = qr_gpu_renderer_create_budget(w, h, src->gs, QR_FORMAT_PFM, 0, src->p, &src->r, err);
    return st;
}

/* Rows [y0, y0 + band->height) of the scene as `render` draws them in
 * fast mode. */
static qr_status picture_rows(const picture_src *src, int32_t y0, qr_image *band, qr_error *err)
{
    const int32_t w = src->width, n = band->height;
    if (!src->gs)
        return qr_render_cpu_fast_band(src->scene, src->p, QR_RENDER_FAST, 0, w, src->height, y0,
                                       y0 + n, band, NULL, err);
    qr_status st;
    if (!src->rgb) {
        st = qr_gpu_render(src->r, src->gs, src->p, QR_RENDER_FAST, err);
        return st == QR_OK ? qr_gpu_renderer_download(src->r, band, err) : st;
    }
    /* PFM's file rows are float RGB from the bottom row: image rows */
    st = qr_gpu_render_rows(src->r, src->gs, src->p, QR_RENDER_FAST, QR_FORMAT_PFM, y0, y0 + n,
                            src->rgb, err);
    for (size_t i = 0; st == QR_OK && i < (size_t)w * (size_t)n; i++) {
        memcpy(band->rgba + 4 * i, src->rgb + 3 * i, 3 * sizeof(float));
        band->rgba[4 * i + 3] = 1.0f;
    }
    return st;
}

/* The scene as `render` draws it (fast mode), with the index over it,
 * rendered, drawn over and written a band of rows at a time (the whole
 * picture as one band when picture_open allows): the same bytes however
 * it is banded. */
static qr_status write_picture(const char *path, picture_mode mode, const qr_scene *scene,
                               qr_gpu_scene *gs, const qr_index *ix, const qr_index_params *p,
                               const qr_index_stats *s, qr_error *err)
{
    picture_src src = {scene, gs, NULL, p, ix->width, ix->height, NULL};
    const int32_t H = ix->height;
    int32_t rows = 0;
    qr_image band = {ix->width, 0, NULL};
    qr_image_writer *w = NULL;
    qr_status st = picture_open(&src, &rows, err);
    if (st == QR_OK)
        st = qr_host_malloc("a band of the picture", (size_t)rows * (size_t)ix->width * 16,
                            (void **)&band.rgba, err);
    const qr_image_format format = qr_image_format_from_path(path);
    qr_image_write_options o = qr_image_write_options_default();
    o.alpha = scene->transparent; /* PNG keeps it; PPM and PFM refuse */
    if (st == QR_OK)
        st = qr_image_writer_open(path, format, ix->width, H, &o, &w, err);
    for (int32_t done = 0; st == QR_OK && done < H; done += rows) {
        band.height = H - done < rows ? H - done : rows;
        /* PNG and PPM from the top row down, PFM from the bottom up */
        canvas c = {&band, format == QR_FORMAT_PFM ? done : H - done - band.height, H,
                    scene->transparent != 0};
        st = picture_rows(&src, c.y0, &band, err);
        static const float dark_red[3] = {0.55f, 0.0f, 0.0f};
        if (st == QR_OK && mode == PICTURE_HEAT)
            draw_heat(&c, ix, s->min_per_leaf, s->max_per_leaf);
        else if (st == QR_OK)
            draw_edges(&c, ix, dark_red, 0.7f);
        if (st == QR_OK)
            st = qr_image_writer_append_image(w, &band, err);
    }
    if (st == QR_OK)
        st = qr_image_writer_close(w, err);
    else
        qr_image_writer_abort(w);
    free(band.rgba);
    free(src.rgb);
    qr_gpu_renderer_destroy(src.r);
    return st;
}

/* ---- the report ----------------------------------------------------------------------------- */

/* The grid tiles the report times against the quadtree: bench's. */
static const int report_tiles[] = {16, 32, 64, 128, 256};
enum {
    REPORT_NTILES = sizeof report_tiles / sizeof report_tiles[0],
    REPORT_WARMUP = 3,
    REPORT_FRAMES = 10,
    REPORT_CPU_FRAMES = 3
};

static const char *set_report_tile(const char *text, void *dest)
{
    int v = atoi(text);
    for (int k = 0; k < REPORT_NTILES; k++)
        if (v == report_tiles[k] && strspn(text, "0123456789") == strlen(text)) {
            *(int *)dest = v;
            return NULL;
        }
    return "16, 32, 64, 128 or 256";
}

/* The index of tile (0: the quadtree of p) */
static qr_index_params tile_params(const qr_index_params *p, int tile)
{
    qr_index_params c = *p;
    if (tile) {
        c.uniform = 1;
        c.min_leaf = tile;
    }
    return c;
}

/* Fast-mode frames of each row's index: as bench times them on the GPU,
 * else the fast CPU renderer's. */
static qr_status time_rows(const qr_scene *scene, qr_gpu_scene *gs, int32_t w, int32_t h,
                           const qr_index_params *p, bench_row *rows, int n, qr_error *err)
{
    qr_status st = QR_OK;
    for (int i = 0; i < n && st == QR_OK; i++) {
        qr_index_params c = tile_params(p, rows[i].grid_tile);
        if (!gs) {
            st = bench_measure_cpu(scene, w, h, &c, QR_RENDER_FAST, 0, REPORT_CPU_FRAMES, &rows[i], err);
            continue;
        }
        qr_gpu_renderer *r = NULL;
        st = qr_gpu_renderer_create(w, h, &r, err);
        if (st == QR_OK)
            st = bench_measure(r, gs, &c, 0, REPORT_WARMUP, REPORT_FRAMES, &rows[i], err);
        qr_gpu_renderer_destroy(r);
    }
    return st;
}

/* The index of p for the scene's frame: on the GPU when gs is there (the
 * device scene holds the frame), else on the host. */
static qr_status build_index(const qr_scene *scene, qr_gpu_scene *gs, int32_t w, int32_t h,
                             const qr_index_params *p, qr_index **out, qr_error *err)
{
    if (!gs)
        return qr_index_build_host(scene, w, h, NULL, p, QR_RENDER_FAST, out, err);
    qr_gpu_index *gix = NULL;
    qr_status st = qr_gpu_index_create(&gix, err);
    if (st == QR_OK)
        st = qr_gpu_index_build(gix, gs, w, h, NULL, p, QR_RENDER_FAST, err);
    if (st == QR_OK)
        st = qr_gpu_index_download(gix, out, err);
    qr_gpu_index_destroy(gix);
    return st;
}

/* Times the quadtree and the grid tiles (only `tile` when the user chose
 * one), builds the grid shown beside the quadtree (that tile, else the
 * fastest) and writes the page. */
static qr_status write_report(const char *path, int tile, const qr_scene *scene,
                              qr_gpu_scene *gs, const qr_index *ix, const qr_index_params *p,
                              const qr_index_stats *s, const qr_stats_context *ctx,
                              const char *gpu_name, const cli_color_scale *scale, qr_error *err)
{
    bench_row rows[1 + REPORT_NTILES];
    memset(rows, 0, sizeof rows);
    int n = 1;
    for (int k = 0; k < REPORT_NTILES; k++)
        if (!tile || tile == report_tiles[k])
            rows[n++].grid_tile = report_tiles[k];
    qr_status st = time_rows(scene, gs, ix->width, ix->height, p, rows, n, err);
    if (st != QR_OK)
        return st;
    const bench_row *best = bench_best_grid(rows, n, &rows[0]);
    qr_index_params gp = tile_params(p, best->grid_tile);
    qr_index *grid = NULL;
    qr_image *img = NULL;
    st = build_index(scene, gs, ix->width, ix->height, &gp, &grid, err);
    const int k = report_image_scale(ix->width, ix->height);
    if (st == QR_OK)
        st = draw_scene(scene, gs, (ix->width + k - 1) / k, (ix->height + k - 1) / k, p, &img,
                        err);
    char timing[384];
    if (gs)
        snprintf(timing, sizeof timing,
                 "GPU %s: index build + render (fast mode), median of %d frames after %d "
                 "warm-up, CUDA events",
                 gpu_name, REPORT_FRAMES, REPORT_WARMUP);
    else
        snprintf(timing, sizeof timing,
                 "CPU, %d threads: the fast CPU renderer's host build + render (fast mode), "
                 "median of %d frames, wall clock; it renders the quadtree with leaves of %d px "
                 "and up",
                 qr_threads(), REPORT_CPU_FRAMES, QR_TILE);
    if (st == QR_OK) {
        report_stats rs = {.stats = s, .ctx = ctx, .picture = img,
                           .picture_alpha = scene->transparent, .quadtree = ix, .grid = grid,
                           .rows = rows, .nrows = n, .grid_chosen = tile != 0, .timing = timing,
                           .scale = scale};
        st = report_stats_write(path, &rs, err);
    }
    qr_image_destroy(img);
    qr_index_destroy(grid);
    return st;
}

/* ---- output -------------------------------------------------------------------------------- */

static void row_int(const char *label, long long v, const char *unit)
{
    printf("  %-18s %12lld%s%s\n", label, v, unit ? " " : "", unit ? unit : "");
}

static void row_num(const char *label, double v, int decimals, const char *unit)
{
    printf("  %-18s %12.*f%s%s\n", label, decimals, v, unit ? " " : "", unit ? unit : "");
}

static void print_human(const qr_index_stats *s, const qr_stats_context *c, const char *where)
{
    char esc[256];
    char chunks[80] = "";
    if (c->chunks)
        snprintf(chunks, sizeof chunks, " in %lld chunks of %ld, each indexed alone, summed",
                 (long long)c->chunks, (long)c->chunk_circles);
    printf("%s (%d circles%s), %dx%d, frame %lld, seed %u\n", cli_esc(c->scene, esc, sizeof esc),
           c->circles, chunks, c->width, c->height, (long long)c->frame, c->seed);
    char max_leaf[32] = "none";
    if (c->params.max_leaf) snprintf(max_leaf, sizeof max_leaf, "%d px", c->params.max_leaf);
    if (c->params.uniform)
        printf("index: uniform grid of %d px tiles; built on %s\n", c->params.min_leaf, where);
    else
        printf("index: quadtree, capacity %d, min leaf %d px, max leaf %s, split cost %d, max depth "
               "%d, deep leaf %d px; built on %s\n",
               c->params.capacity, c->params.min_leaf, max_leaf, c->params.split_cost,
               c->params.max_depth, c->params.deep_leaf, where);
    printf("\ntree\n");
    row_int("root side", s->root_size, "px");
    row_int("nodes", s->nodes, NULL);
    row_int("leaves", s->leaves, NULL);
    row_int("max depth", s->max_depth, NULL);
    row_int("clipped leaves", s->clipped_leaves, "(cut by the image edge)");
    printf("\nleaves by depth\n  %5s  %9s  %10s\n", "depth", "side px", "leaves");
    for (int d = 0; d <= s->max_depth; d++)
        printf("  %5d  %9d  %10d\n", d, s->root_size >> d, s->leaves_per_depth[d]);
    printf("\ncircles per leaf\n");
    row_int("min", s->min_per_leaf, NULL);
    row_num("mean", s->mean_per_leaf, 1, NULL);
    row_num("median", s->median_per_leaf, 1, NULL);
    row_int("p90", s->p90_per_leaf, NULL);
    row_int("p99", s->p99_per_leaf, NULL);
    row_int("max", s->max_per_leaf, NULL);
    row_int("empty leaves", s->empty_leaves, NULL);
    printf("\ncircles\n");
    row_int("visible", s->visible, NULL);
    row_int("culled", s->culled, NULL);
    row_int("pairs", s->pairs, "(leaf, circle)");
    row_num("replication", s->replication, 3, "pairs per visible circle");
    if (c->has_stages) {
        printf("\nbuild time, median of %d builds after %d warm-up (CUDA events)\n",
               c->timed_builds, c->warmup_builds);
        const char *names[] = {"boxes", "tree", "count", "scan", "emit", "sort", "total"};
        const float v[] = {c->build.boxes_ms, c->build.tree_ms, c->build.count_ms,
                           c->build.scan_ms,  c->build.emit_ms, c->build.sort_ms,
                           c->build.total_ms};
        for (int k = 0; k < 7; k++)
            row_num(names[k], v[k], 3, "ms");
        printf("\ndevice memory\n");
        row_num("index", (double)c->device_bytes / (1024.0 * 1024.0), 1, "MiB");
    } else if (c->chunks) {
        printf("\nbuild time, the sum of the %lld chunks' builds (host oracle, wall clock)\n",
               (long long)c->chunks);
        row_num("total", c->build.total_ms, 3, "ms");
    } else {
        printf("\nbuild time, median of %d builds (host oracle, wall clock)\n", c->timed_builds);
        row_num("total", c->build.total_ms, 3, "ms");
    }
}

static int write_json(const char *path, const qr_index_stats *s, const qr_stats_context *c)
{
    qr_error err;
    if (strcmp(path, "-") == 0) {
        /* a write error on stdout shows in main's final flush (exit 4) */
        qr_index_stats_write_json(stdout, s, c, &err);
        return CLI_EXIT_OK;
    }
    qr_file *f;
    if (qr_file_open(path, &f, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_OUTPUT);
    if (qr_index_stats_write_json(qr_file_stream(f), s, c, &err) != QR_OK) {
        qr_file_abort(f);
        snprintf(err.msg, sizeof err.msg, "%s: cannot write", path);
        return cli_fail(&err, CLI_PHASE_OUTPUT);
    }
    if (qr_file_commit(f, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_OUTPUT);
    return CLI_EXIT_OK;
}

/* ---- the command ------------------------------------------------------------------------------ */

/* What the command line asks. */
typedef struct stats_plan {
    cli_scene_opts so;
    cli_map_opts map; /* circles in data coordinates, coloured by a value */
    qr_index_params params;
    qr_job_device device;
    const char *scene_arg, *json, *picture, *report;
    picture_mode pmode;
    int report_tile;
    int32_t chunk; /* --chunk N: chunks indexed alone, summed (0: the scene whole) */
} stats_plan;

/* The scene, where it is built, the index and its statistics. */
typedef struct stats_run {
    cli_device_choice dev;
    qr_scene *scene;
    qr_gpu_scene *gs;
    qr_index *ix;
    qr_stats_context ctx;
    qr_index_stats s;
    cli_color_scale scale; /* --color-by's, for the report's colour bar */
    char name[sizeof ((qr_scene *)0)->name]; /* --chunk: the scene's, its chunks gone */
} stats_run;

/* Whether the scene is a .npy read chunk by chunk (--chunk). */
static bool stats_streamed(const stats_plan *p)
{
    const size_t n = strlen(p->scene_arg);
    return p->chunk > 0 && n > 4 && !strcasecmp(p->scene_arg + n - 4, ".npy");
}

/* The options' mutual checks and the outputs' paths (before any work). An
 * exit code. */
static int stats_check_plan(const cli_cmd *cmd, const stats_plan *p, const cli_opt *pmode_opt,
                            int no_clobber)
{
    int rc;
    if (pmode_opt->given && !p->picture)
        return cli_usage_error(cmd, "--picture-mode needs --picture FILE");
    if (p->picture && qr_image_format_from_path(p->picture) == QR_FORMAT_UNKNOWN)
        return cli_usage_error(cmd, "--picture: '%s' is not a .png, .ppm or .pfm file name",
                               p->picture);
    if (p->report && p->params.uniform)
        return cli_usage_error(cmd, "--report compares the quadtree with the grids: not with "
                                    "--index grid (--report-tile picks the grid shown)");
    if (p->report_tile && !p->report)
        return cli_usage_error(cmd, "--report-tile needs --report FILE.html");
    if (p->chunk && (p->picture || p->report))
        return cli_usage_error(cmd, "--chunk sums the chunks' indexes: not with --picture or "
                                    "--report, which draw one index");
    if (stats_streamed(p) && (p->map.alpha || p->map.extent_given || p->map.color_by))
        return cli_usage_error(cmd, "--chunk reads %s chunk by chunk: --alpha, --extent and "
                               "--color-by need its circles whole", p->scene_arg);
    if (p->chunk && p->device == QR_JOB_GPU)
        return cli_usage_error(cmd, "--chunk: the chunks' indexes are built on the CPU only for "
                                    "now, not with --device gpu");
    if (p->report && !cli_ends_with(p->report, ".html"))
        return cli_usage_error(cmd, "--report: expected a file name ending in .html, got '%s'",
                               p->report);
    cli_set_no_clobber(no_clobber);
    if (p->json && strcmp(p->json, "-") != 0 &&
        (rc = cli_check_output_path(p->json)) != CLI_EXIT_OK)
        return rc;
    if (p->picture && (rc = cli_check_output_path(p->picture)) != CLI_EXIT_OK)
        return rc;
    if (p->report && (rc = cli_check_output_path(p->report)) != CLI_EXIT_OK)
        return rc;
    return CLI_EXIT_OK;
}

/* CLI_PARSE_OK, CLI_PARSE_HELP or an exit code. */
static int stats_parse(const cli_cmd *cmd, int argc, char **argv, stats_plan *p)
{
    memset(p, 0, sizeof *p);
    p->device = QR_JOB_AUTO;
    p->pmode = PICTURE_LEAVES;
    int no_clobber = 0;
    enum {
        O_SCENE,
        O_INDEX = O_SCENE + CLI_SCENE_NOPTS,
        O_DEVICE = O_INDEX + CLI_INDEX_NOPTS,
        O_JSON,
        O_PICTURE,
        O_PICTURE_MODE,
        O_REPORT,
        O_REPORT_TILE,
        O_NO_CLOBBER,
        O_CHUNK,
        O_MAP,
        O_LOOK = O_MAP + CLI_MAP_NOPTS,
        O_COUNT = O_LOOK + CLI_PICTURE_NOPTS
    };
    cli_opt opts[O_COUNT] = {
        [O_DEVICE] = {"--device", NULL, "DEV", cli_set_device, &p->device,
                      "auto, gpu or cpu: where the index is built (default auto)"},
        [O_JSON] = {"--json", NULL, "FILE", cli_set_string, &p->json,
                    "also write the statistics as JSON to FILE or - for stdout (then alone)"},
        [O_PICTURE] = {"--picture", NULL, "FILE", cli_set_string, &p->picture,
                       "draw the leaves over the rendered scene (.png, .ppm or .pfm)"},
        [O_PICTURE_MODE] = {"--picture-mode", NULL, "MODE", set_picture_mode, &p->pmode,
                            "leaves (boundaries) or heat (circles per leaf) (default leaves)"},
        [O_REPORT] = {"--report", NULL, "FILE.html", cli_set_string, &p->report,
                      "write a self-contained HTML report: the leaves over the image beside "
                      "the fastest grid's, histograms, times"},
        [O_REPORT_TILE] = {"--report-tile", NULL, "N", set_report_tile, &p->report_tile,
                           "the report's grid: this tile (16 to 256) instead of the fastest"},
        [O_NO_CLOBBER] = {"--no-clobber", "-n", NULL, NULL, &no_clobber,
                          "never replace an existing file (exit 4 before any work)"},
        [O_CHUNK] = {"--chunk", NULL, "N", cli_set_chunk, &p->chunk,
                     "the scene in depth-ordered chunks of N circles, as render --chunk draws "
                     "it: each chunk's index built alone on the CPU, the statistics summed (a "
                     ".npy read chunk by chunk)"},
    };
    cli_map_opts_init(&opts[O_MAP], &p->map);
    cli_picture_opts_init(&opts[O_LOOK], &p->map);
    int rc = cli_parse_scene_command(cmd, opts, O_COUNT, O_SCENE, O_INDEX, argc, argv, &p->so,
                                     &p->params, &p->scene_arg);
    if (rc != CLI_PARSE_OK)
        return rc;
    if ((rc = cli_map_opts_finish(cmd, &opts[O_MAP], &p->map)) != CLI_EXIT_OK)
        return rc;
    return stats_check_plan(cmd, p, &opts[O_PICTURE_MODE], no_clobber);
}

/* --chunk: the scene in chunks (views, or a .npy's chunks read in turn),
 * each chunk's index built on the CPU and added to the statistics, the
 * builds' times summed. An exit code. */
static int stats_chunks(const stats_plan *p, stats_run *run)
{
    const cli_scene_opts *so = &p->so;
    qr_error err;
    qr_scene_stream *stream = NULL;
    qr_scene *whole = NULL;
    if (stats_streamed(p) ? qr_scene_stream_open(p->scene_arg, &stream, &err) != QR_OK
                          : qr_scene_load(p->scene_arg, so->seed, &whole, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    qr_scene *scene = stream ? qr_scene_stream_picture(stream) : whole;
    int rc = cli_map_apply(&p->map, scene, NULL);
    qr_status st = QR_OK;
    if (rc == CLI_EXIT_OK && !stream) st = cli_seek(scene, NULL, so->frame, &err);
    const int64_t n = stream ? qr_scene_stream_circles(stream) : scene->n;
    const int64_t chunks = n ? (n + p->chunk - 1) / p->chunk : 1;
    if (rc == CLI_EXIT_OK && st == QR_OK) {
        if (p->device == QR_JOB_AUTO)
            cli_info("statistics in chunks: each chunk's index built on the CPU");
        cli_info("stats %s (%lld circles in %lld chunks of %ld) %dx%d frame %lld on the CPU",
                 scene->name, (long long)n, (long long)chunks, (long)p->chunk, (int)so->width,
                 (int)so->height, (long long)so->frame);
    }
    qr_index_stats_sum *sum = NULL;
    if (rc == CLI_EXIT_OK && st == QR_OK) st = qr_index_stats_sum_create(&sum, &err);
    double build_ms = 0;
    for (int64_t c = 0; rc == CLI_EXIT_OK && st == QR_OK && c < chunks; c++) {
        const int64_t first = c * p->chunk;
        const int32_t count = n - first < p->chunk ? (int32_t)(n - first) : p->chunk;
        qr_scene view, *read = NULL;
        st = stream ? qr_scene_stream_read(stream, first, count, &read, &err)
                    : qr_scene_view(scene, (int32_t)first, count, &view, &err);
        if (stream && st == QR_OK && c + 1 < chunks)
            qr_scene_stream_prefetch(stream, first + count,
                                     n - first - count < p->chunk ? (int32_t)(n - first - count)
                                                                  : p->chunk);
        qr_index *ix = NULL;
        const double t0 = cli_now_ms();
        if (st == QR_OK)
            st = qr_index_build_host(stream ? read : &view, so->width, so->height, NULL,
                                     &p->params, QR_RENDER_FAST, &ix, &err);
        build_ms += cli_now_ms() - t0;
        if (st == QR_OK) st = qr_index_stats_sum_add(sum, ix, count, &err);
        qr_index_destroy(ix);
        qr_scene_destroy(read);
    }
    if (rc == CLI_EXIT_OK && st == QR_OK) st = qr_index_stats_sum_get(sum, &run->s, NULL, &err);
    if (rc == CLI_EXIT_OK && st != QR_OK)
        rc = cli_fail(&err, err.status == QR_ERR_PARSE || err.status == QR_ERR_IO
                                ? CLI_PHASE_INPUT
                                : CLI_PHASE_RUN);
    if (rc == CLI_EXIT_OK) {
        run->ctx = (qr_stats_context){
            .scene = run->name,
            .circles = n > INT32_MAX ? INT32_MAX : (int32_t)n,
            .seed = so->seed,
            .frame = so->frame,
            .width = so->width,
            .height = so->height,
            .params = p->params,
            .mode = QR_RENDER_FAST,
            .device = "cpu",
            .timed_builds = (int)(chunks < INT32_MAX ? chunks : INT32_MAX),
            .chunks = chunks,
            .chunk_circles = p->chunk,
        };
        snprintf(run->name, sizeof run->name, "%s", scene->name);
        run->ctx.build.total_ms = (float)build_ms;
    }
    qr_index_stats_sum_destroy(sum);
    qr_scene_stream_close(stream);
    qr_scene_destroy(whole);
    return rc;
}

/* Chooses the device, loads the scene, builds the index and computes its
 * statistics. An exit code. */
static int stats_build(const stats_plan *p, stats_run *run)
{
    int rc;
    if (p->chunk)
        return stats_chunks(p, run);
    if ((rc = cli_choose_device(p->device, "building the index", &run->dev)) != CLI_EXIT_OK)
        return rc;
    const cli_device_choice *dev = &run->dev;
    const cli_scene_opts *so = &p->so;
    qr_error err;
    if (qr_scene_load(p->scene_arg, so->seed, &run->scene, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    if ((rc = cli_map_apply(&p->map, run->scene, &run->scale)) != CLI_EXIT_OK)
        return rc;
    /* --background none and --picture x.ppm: the command line's, before any work */
    if (p->picture &&
        qr_job_check_format(run->scene, qr_image_format_from_path(p->picture), &err) != QR_OK) {
        cli_message("%s", err.msg);
        return CLI_EXIT_USAGE;
    }
    qr_scene *scene = run->scene;
    if (dev->note[0])
        cli_info("%s", dev->note);
    cli_info("stats %s (%d circles) %dx%d frame %lld on %s", scene->name,
            (int)scene->n, (int)so->width, (int)so->height, (long long)so->frame,
            dev->gpu ? "the GPU" : "the CPU");
    run->ctx = (qr_stats_context){
        .scene = scene->name,
        .circles = scene->n,
        .seed = so->seed,
        .frame = so->frame,
        .width = so->width,
        .height = so->height,
        .params = p->params,
        .device = dev->gpu ? "gpu" : "cpu",
        .device_name = dev->gpu ? dev->info.name : NULL,
    };
    qr_status st = dev->gpu ? build_gpu(scene, so->frame, so->width, so->height, &p->params,
                                        &run->gs, &run->ix, &run->ctx, &err)
                            : build_cpu(scene, so->frame, so->width, so->height, &p->params,
                                        &run->ix, &run->ctx, &err);
    if (st == QR_OK)
        st = qr_index_stats_compute(run->ix, scene->n, &run->s, &err);
    if (st != QR_OK)
        return cli_fail(&err, CLI_PHASE_RUN);
    return CLI_EXIT_OK;
}

/* The table (unless the JSON goes to stdout), the JSON, the picture and the
 * report page. An exit code. */
static int stats_report(const stats_plan *p, const stats_run *run)
{
    const qr_index_stats *s = &run->s;
    int rc;
    qr_error err;
    if (!(p->json && strcmp(p->json, "-") == 0))
        print_human(s, &run->ctx, run->dev.gpu ? run->dev.where : "the CPU (host oracle)");
    if (p->json && (rc = write_json(p->json, s, &run->ctx)) != CLI_EXIT_OK)
        return rc;
    if (p->picture) {
        cli_info("picture (%s) -> %s",
                p->pmode == PICTURE_HEAT ? "circles per leaf, log scale" : "leaf boundaries",
                p->picture);
        if (write_picture(p->picture, p->pmode, run->scene, run->gs, run->ix, &p->params, s,
                          &err) != QR_OK)
            /* the renders' errors are the run's, the writer's the output's */
            return cli_fail(&err, err.status == QR_ERR_IO ? CLI_PHASE_OUTPUT : CLI_PHASE_RUN);
        if (p->pmode == PICTURE_HEAT)
            cli_info("  heat: dark blue %d, blue, green, yellow, red %d circles per leaf (log scale)",
                     s->min_per_leaf, s->max_per_leaf);
    }
    if (p->report) {
        cli_info("report -> %s (timing the quadtree and %s)", p->report,
                p->report_tile ? "the chosen grid" : "grids of 16 to 256 px");
        if (write_report(p->report, p->report_tile, run->scene, run->gs, run->ix, &p->params, s,
                         &run->ctx, run->dev.gpu ? run->dev.info.name : NULL, &run->scale,
                         &err) != QR_OK)
            return cli_fail(&err, err.status == QR_ERR_IO ? CLI_PHASE_OUTPUT : CLI_PHASE_RUN);
    }
    return CLI_EXIT_OK;
}

static int run_stats(const cli_cmd *cmd, int argc, char **argv)
{
    stats_plan plan;
    int rc = stats_parse(cmd, argc, argv, &plan);
    if (rc == CLI_PARSE_HELP)
        return CLI_EXIT_OK;
    if (rc != CLI_PARSE_OK)
        return rc;
    stats_run run = {0};
    rc = stats_build(&plan, &run);
    if (rc == CLI_EXIT_OK)
        rc = stats_report(&plan, &run);
    qr_index_destroy(run.ix);
    qr_gpu_scene_destroy(run.gs);
    qr_scene_destroy(run.scene);
    return rc;
}

const cli_cmd cli_cmd_stats = {
    .name = "stats",
    .summary = "statistics of a scene's quadtree index",
    .args = "SCENE [options]",
    .about = "Builds the quadtree index of SCENE for the image size and prints its shape\n"
             "(nodes, leaves by depth and side), circles per leaf (min, mean, median, p90,\n"
             "p99, max, empty leaves), pairs and replication (pairs per visible circle),\n"
             "and the build time: on the GPU the median per stage of 10 builds after 3\n"
             "warm-up builds, on the CPU the median wall time of 3 host-oracle builds.\n"
             "With --report, also one self-contained HTML page (no network needed): the\n"
             "image with the leaves over it beside the fastest grid's (of 16 to 256 px\n"
             "tiles, each timed build + render in fast mode; --report-tile picks one),\n"
             "zoom, pan, leaves coloured by depth, list length or predicted render cost,\n"
             "hover for a leaf's rectangle, depth and list; histograms of circles per leaf\n"
             "and leaves per depth, the frame's stages and the index's memory.\n",
    .notes = "Both builders make the same index, so only the times and the device memory\n"
             "depend on --device. JSON: docs/cli.md lists the keys (schema_version 1).\n"
             "\n"
             "Exit codes: 0 success, 2 bad command line, 3 bad scene, 4 cannot write an\n"
             "output, 5 no usable GPU (--device gpu), 6 out of memory, 7 CUDA error.\n",
    .run = run_stats,
};
