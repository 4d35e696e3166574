/* quadrender/tiles.h — a deep-zoom tile pyramid of a scene: every level a
 * square image twice the side of the one above, cut into square tiles, as
 * map and gigapixel viewers load them.
 *
 *     qr_tiles_params p;
 *     qr_tiles_params_init(&p);
 *     p.scene_name = "rand1M";
 *     p.dir = "rand1M_tiles";
 *     p.levels = 9;                 // z = 0..8: 256 to 65536 pixels a side
 *     if (qr_tiles_run(&p, &res, &err) != QR_OK) ...
 *
 * The directory gets:
 *   z/x/y.png          level z (side tile_size * 2^z), column x, row y from
 *                      the top: the XYZ layout of web maps
 *   tiles.dzi          a Deep Zoom descriptor of the largest level, and
 *   tiles_files/L/x_y.png  its levels: L = log2(side), those from side 1
 *                      to tile_size - 1 one tile each, the others the XYZ
 *                      tiles again (hard links where the file system has
 *                      them)
 *   index.html         a page that views the pyramid from file:// (no
 *                      network): drag to pan, wheel or +/- to zoom
 *
 * Every tile is the region of its level's full image, rendered by the same
 * renderer over the same pixel grid: its bytes are those of cutting
 * `quadrender render -s SIDE` of that level (tested). Each level renders in
 * bands of whole tile rows, on the GPU, several GPUs (the bands dealt to
 * them in turn) or the CPU (qr_job_device), while every core encodes the
 * band before. Tiles are written whole or not at
 * all (a temporary file renamed into place, as every file the library
 * writes, but not fsynced one by one: the pyramid is synced once at the
 * end); a failure leaves the tiles finished before it and no partial one.
 */
#ifndef QUADRENDER_TILES_H
#define QUADRENDER_TILES_H

#include <stdint.h>

#include "quadrender/error.h"
#include "quadrender/index.h"
#include "quadrender/job.h"
#include "quadrender/render_mode.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest level's side may reach QR_IMAGE_BANDS_MAX_DIM. */
#define QR_TILES_MAX_LEVELS 17
#define QR_TILE_SIZE_MIN 16
#define QR_TILE_SIZE_MAX 4096

/* Progress: tiles done of total (the XYZ tiles and the Deep Zoom levels
 * below tile_size); a nonzero answer cancels the run. */
typedef int (*qr_tiles_progress_fn)(void *user, int64_t done, int64_t total);

typedef struct qr_tiles_params {
    /* the scene: `scene`, or else scene_name (a built-in or a file) and seed */
    const char *scene_name;
    uint32_t seed;
    const qr_scene *scene;
    const char *dir;          /* the pyramid's directory (made, with its parents) */
    int32_t levels;           /* z = 0 .. levels - 1; default 4 */
    int32_t tile_size;        /* a power of two, QR_TILE_SIZE_MIN..MAX; default 256 */
    qr_render_mode mode;      /* default QR_RENDER_FAST */
    qr_index_params index;    /* default qr_index_params_default() */
    qr_job_device device;     /* default QR_JOB_AUTO */
    /* several GPUs (ngpus > 1, on the GPU): each level's bands dealt to
     * them in turn, a thread each; else the current CUDA device */
    int gpus[QR_JOB_MAX_GPUS];
    int ngpus;
    size_t gpu_memory;        /* a GPU's budget (0: what is free) */
    int png_level;            /* default QR_PNG_LEVEL_DEFAULT */
    int threads;              /* encoding (and CPU rendering) threads; 0: every core */
    qr_tiles_progress_fn on_progress;
    void *user;
} qr_tiles_params;

void qr_tiles_params_init(qr_tiles_params *p);

/* Checked as the CLI checks --levels and --tile-size: QR_ERR_INVALID,
 * "<name>: expected ...", else QR_OK. levels: 1 to QR_TILES_MAX_LEVELS,
 * with tile_size * 2^(levels - 1) at most QR_IMAGE_BANDS_MAX_DIM (checked
 * by qr_tiles_check). */
qr_status qr_tiles_check_levels(const char *name, const char *text, int32_t *out, qr_error *err);
qr_status qr_tiles_check_tile_size(const char *name, const char *text, int32_t *out,
                                   qr_error *err);
/* The params as a whole (sizes, directory given): what qr_tiles_run checks
 * first. */
qr_status qr_tiles_check(const qr_tiles_params *p, qr_error *err);

typedef struct qr_tiles_result {
    int64_t tiles;          /* files written (the XYZ tiles and the small Deep Zoom levels) */
    double ms;              /* the whole run */
    double render_ms;       /* rendering (the GPU's or the CPU's bands) */
    bool gpu;
    char where[320];        /* "the GPU (...)" or "the CPU (N threads)" */
    char note[768];         /* why not the GPU, or "" */
} qr_tiles_result;

/* Renders the pyramid into p->dir. QR_ERR_CANCELLED when on_progress asked;
 * QR_ERR_IO for a file that cannot be written (its name in the message). */
qr_status qr_tiles_run(const qr_tiles_params *p, qr_tiles_result *res, qr_error *err);

/* ---- tiles on demand: what a viewer serves --------------------------------------
 * A service renders any tile of the pyramid as a viewer asks for it, each
 * alone (qr_gpu_render_rect, or qr_render_cpu_fast_region: the bytes of
 * that region of the whole level, as qr_tiles_run writes them), and keeps
 * the PNGs in a cache within a memory budget, the least recently asked
 * going first. Every function may be called from several threads at once:
 * GPU renders take turns, CPU renders run side by side. levels may reach
 * the largest a renderer takes (tile_size * 2^(levels - 1) at most
 * QR_IMAGE_BANDS_MAX_DIM); the device is the GPU or the fast CPU renderer
 * (cpu-reference is refused: it has no region renderer). */
typedef struct qr_tile_service qr_tile_service;

/* The most levels of `tile_size` tiles a service or a pyramid takes. */
int32_t qr_tiles_max_levels(int32_t tile_size);

/* The params a service takes, checked as qr_tile_service_create checks
 * them first (qr_tiles_check's, less the directory, which a service does
 * not write; and no cpu-reference, no tiles under QR_REGION pixels):
 * QR_ERR_INVALID with a one-line message, else QR_OK. */
qr_status qr_tile_service_check(const qr_tiles_params *p, qr_error *err);
qr_status qr_tile_service_create(const qr_tiles_params *p, size_t cache_bytes, qr_tile_service **out,
                                 qr_error *err);
void qr_tile_service_destroy(qr_tile_service *s);

/* The scene served, and where its tiles render ("the GPU (...)", "the CPU
 * (N threads)") with why, if not the GPU ("" else). */
const qr_scene *qr_tile_service_scene(const qr_tile_service *s);
const char *qr_tile_service_where(const qr_tile_service *s);
const char *qr_tile_service_note(const qr_tile_service *s);

/* Tile (z, x, y), y from the top, as PNG bytes: *png (malloc'd; free())
 * and *len. QR_ERR_INVALID (message "no tile z/x/y: ...") for a tile
 * outside the pyramid. */
qr_status qr_tile_service_png(qr_tile_service *s, int32_t z, int32_t x, int32_t y, unsigned char **png,
                              size_t *len, qr_error *err);

/* The front-most circle over the point (x, y) of the scene's unit square
 * (quadrender/query.h's TOP), or -1: *id. */
qr_status qr_tile_service_top(qr_tile_service *s, float x, float y, int32_t *id, qr_error *err);

/* The leaves of the index that tile (z, x, y) renders from: *n rectangles
 * (malloc'd; free()) in the tile's pixels, x from the left and y from the
 * top, [x0, x1) x [y0, y1), each with its circles in *counts (malloc'd). */
qr_status qr_tile_service_leaves(qr_tile_service *s, int32_t z, int32_t x, int32_t y, qr_rect **rects,
                                 int32_t **counts, int32_t *n, qr_error *err);

/* The viewer's page, as qr_tiles_run writes it beside a pyramid (served 0:
 * tiles at z/x/y.png beside it) or as a service's front end serves it
 * (served 1: tiles at tiles/z/x/y.png, with hover, leaves and save): *html
 * (malloc'd, NUL-terminated; free()). */
qr_status qr_tiles_page(const qr_scene *scene, int32_t levels, int32_t tile_size, int served, char **html,
                        qr_error *err);

#ifdef __cplusplus
}
#endif
#endif
