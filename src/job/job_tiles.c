/* job_tiles.c — a deep-zoom tile pyramid (quadrender/tiles.h).
 *
 * A level is a square image of side tile_size * 2^z, rendered in bands of
 * whole tile rows as a file's rows (qr_gpu_render_rows on the GPU; on the
 * CPU qr_render_cpu_fast_band or the reference's band, then
 * qr_image_file_rows): the same bytes as those rows of the whole image.
 * While the next band renders, a thread of its own cuts the band before
 * into tiles and encodes them on every core (qr_parallel_for), each tile a
 * PNG of its own written through a temporary file renamed into place.
 * The Deep Zoom levels below the tile size are whole images of one tile
 * each; those from the tile size up are the XYZ tiles, linked.
 */
#define _GNU_SOURCE /* syncfs */
#include "quadrender/tiles.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "image/png_encoder.h"
#include "job/job_ctx.h"
#include "quadrender/file.h"
#include "quadrender/gpu_device.h"
#include "quadrender/gpu_render.h"
#include "quadrender/gpu_scene.h"
#include "quadrender/render_cpu.h"
#include "quadrender/text.h"
#include "quadrender/threads.h"

/* The page beside the tiles (tiles_page.html, compiled in by
 * cmake/QrEmbed.cmake). */
extern const unsigned char qr_tiles_page_html[];

/* The file rows a band holds at most, in bytes of pixels (host memory:
 * two bands, one rendering while the other is encoded). */
#define TILES_BAND_BYTES ((size_t)256 << 20)

void qr_tiles_params_init(qr_tiles_params *p)
{
    memset(p, 0, sizeof *p);
    p->levels = 4;
    p->tile_size = 256;
    p->mode = QR_RENDER_FAST;
    qr_index_params_default(&p->index);
    p->device = QR_JOB_AUTO;
    p->png_level = QR_PNG_LEVEL_DEFAULT;
}

qr_status qr_tiles_check_levels(const char *name, const char *text, int32_t *out, qr_error *err)
{
    return qr_text_check_int32(name, text, 1, QR_TILES_MAX_LEVELS, QR_UINT_RANGE,
                               "an integer from 1 to 17", out, err);
}

qr_status qr_tiles_check_tile_size(const char *name, const char *text, int32_t *out, qr_error *err)
{
    return qr_text_check_int32(name, text, QR_TILE_SIZE_MIN, QR_TILE_SIZE_MAX, QR_UINT_POW2,
                               "a power of two from 16 to 4096", out, err);
}

qr_status qr_tiles_check(const qr_tiles_params *p, qr_error *err)
{
    if (!p->dir || !p->dir[0])
        return qr_fail(err, QR_ERR_INVALID, "tiles: no directory to write the pyramid into");
    if (!p->scene && !p->scene_name)
        return qr_fail(err, QR_ERR_INVALID, "tiles: no scene");
    const int32_t t = p->tile_size;
    if (t < QR_TILE_SIZE_MIN || t > QR_TILE_SIZE_MAX || (t & (t - 1)))
        return qr_fail(err, QR_ERR_INVALID,
                       "tile size: expected a power of two from %d to %d, got %d", QR_TILE_SIZE_MIN,
                       QR_TILE_SIZE_MAX, t);
    if (p->levels < 1 || p->levels > QR_TILES_MAX_LEVELS || p->levels > qr_tiles_max_levels(t))
        return qr_fail(err, QR_ERR_INVALID,
                       "levels: %d levels of %d-pixel tiles make the largest level %lld pixels a "
                       "side, more than %d",
                       p->levels, t, (long long)t << (p->levels > 0 && p->levels < 40 ? p->levels - 1 : 0),
                       QR_IMAGE_BANDS_MAX_DIM);
    if (p->mode != QR_RENDER_FAST && p->mode != QR_RENDER_EXACT)
        return qr_fail(err, QR_ERR_INVALID, "tiles: render mode %d: expected fast or exact", (int)p->mode);
    if (p->ngpus < 0 || p->ngpus > QR_JOB_MAX_GPUS)
        return qr_fail(err, QR_ERR_INVALID, "tiles: %d GPUs: expected 0 to %d", p->ngpus, QR_JOB_MAX_GPUS);
    for (int k = 0; k < p->ngpus; k++)
        if (p->gpus[k] < 0)
            return qr_fail(err, QR_ERR_INVALID, "tiles: GPU %d: expected a CUDA device number", p->gpus[k]);
    if (p->ngpus > 1 && (p->device == QR_JOB_CPU || p->device == QR_JOB_CPU_REFERENCE))
        return qr_fail(err, QR_ERR_INVALID, "tiles: several GPUs, but the device is the CPU");
    if (p->png_level < 0 || p->png_level > 9)
        return qr_fail(err, QR_ERR_INVALID, "PNG level %d: expected 0 to 9", p->png_level);
    return qr_index_params_check(&p->index, err);
}

/* ---- files ------------------------------------------------------------------------------ */

/* Makes directory path and its parents. */
static qr_status make_dirs(const char *path, qr_error *err)
{
    char buf[JOB_PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return qr_fail(err, QR_ERR_IO, "%s: name too long", path);
    for (char *s = buf + 1;; s++) {
        const char c = *s;
        if (c != '/' && c != '\0')
            continue;
        *s = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return qr_fail(err, QR_ERR_IO, "%s: cannot make the directory: %s", buf, strerror(errno));
        struct stat sb;
        if (stat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return qr_fail(err, QR_ERR_IO, "%s: not a directory", buf);
        *s = c;
        if (!c)
            return QR_OK;
    }
}

/* A tile (side x side pixels, rows `stride` bytes apart) as a PNG at path:
 * whole or not at all, not fsynced. */
static qr_status write_tile(const char *path, const unsigned char *rows, size_t stride,
                            int32_t side, const qr_png_params *png, qr_error *err)
{
    qr_atomic_file af;
    qr_status st = qr_atomic_open(&af, path, err);
    if (st != QR_OK)
        return st;
    af.no_sync = 1;
    if ((st = qr_png_encode_rows(af.fp, path, side, side, png, rows, stride, err)) != QR_OK) {
        qr_atomic_abort(&af);
        return st;
    }
    return qr_atomic_commit(&af, err);
}

/* ---- a level's bands, cut into tiles ------------------------------------------------------ */

typedef struct tiles_run tiles_run;

/* A band of file rows of one level, to cut into tiles. */
typedef struct band {
    tiles_run *run;
    const unsigned char *rows; /* nrows rows of side * px bytes, from file row row0 */
    int32_t side, tile, row0, nrows;
    int32_t z;                 /* XYZ level, or -1: a Deep Zoom level alone */
    int32_t dz;                /* its Deep Zoom level */
    int threads;               /* its encoders */
    pthread_mutex_t mu;
    qr_status st;              /* the first failure of its tiles */
    qr_error err;
} band;

struct tiles_run {
    const qr_tiles_params *p;
    const qr_scene *scene;
    qr_device_choice dev;
    qr_png_params png;
    int px;                    /* bytes a pixel: 3 (RGB) or 4 (RGBA, no background) */
    int threads;
    char dzi_dir[JOB_PATH_MAX - 64]; /* room for a tile's name after it */
    pthread_mutex_t report_mu; /* the lanes report one at a time */
    int64_t done, total;
    atomic_int cancelled;
};

/* A GPU (or the CPU) rendering its share of each level's bands: bands
 * index, index + n, ... Several GPUs are a lane each, a thread each. */
typedef struct lane {
    tiles_run *run;
    int device;                /* its CUDA device; -1: the calling thread's */
    qr_gpu_scene *gs;          /* the scene on it */
    int index, n;
    int threads;               /* its CPU threads: encoders, the CPU's render */
    double render_ms;
    /* the level it renders (render_level) */
    int32_t side, tile, z, dz, band_rows;
    qr_status st;
    qr_error err;
    pthread_t tid;
} lane;

static void band_fail(band *b, qr_status st, const qr_error *err)
{
    pthread_mutex_lock(&b->mu);
    if (b->st == QR_OK) {
        b->st = st;
        b->err = *err;
    }
    pthread_mutex_unlock(&b->mu);
}

/* Task t of a band: its tile, written as z/x/y.png and linked as the Deep
 * Zoom level's x_y.png (written again where links are refused). */
static void encode_tile(void *ctx, int t)
{
    band *b = ctx;
    const tiles_run *run = b->run;
    pthread_mutex_lock(&b->mu);
    const int failed = b->st != QR_OK;
    pthread_mutex_unlock(&b->mu);
    if (failed)
        return;
    const int32_t cols = b->side / b->tile;
    const int32_t tx = t % cols, ty = b->row0 / b->tile + t / cols;
    const size_t stride = (size_t)b->side * (size_t)run->px;
    const unsigned char *rows =
        b->rows + (size_t)(ty * b->tile - b->row0) * stride + (size_t)tx * b->tile * run->px;
    qr_error err;
    qr_status st = QR_OK;
    char xyz[JOB_PATH_MAX], dzi[JOB_PATH_MAX];
    snprintf(dzi, sizeof dzi, "%s/%d/%d_%d.png", run->dzi_dir, b->dz, tx, ty);
    if (b->z >= 0) {
        snprintf(xyz, sizeof xyz, "%s/%d/%d/%d.png", run->p->dir, b->z, tx, ty);
        st = write_tile(xyz, rows, stride, b->tile, &run->png, &err);
        if (st == QR_OK && (unlink(dzi) == 0 || errno == ENOENT) && link(xyz, dzi) == 0)
            return;
    }
    if (st == QR_OK)
        st = write_tile(dzi, rows, stride, b->tile, &run->png, &err);
    if (st != QR_OK)
        band_fail(b, st, &err);
}

typedef struct encoder {
    pthread_t tid;
    int started;
    band *b;
    int ntiles;
} encoder;

static void *encoder_main(void *arg)
{
    encoder *e = arg;
    qr_parallel_for(e->ntiles, e->b->threads, encode_tile, e->b);
    return NULL;
}

/* Renders file rows [row0, row0 + n) of a side x side image into out. */
static qr_status render_band(lane *ln, qr_gpu_renderer *r, qr_image *img, int32_t side, int32_t row0,
                             int32_t n, unsigned char *out, qr_error *err)
{
    const tiles_run *run = ln->run;
    const qr_tiles_params *p = run->p;
    const double t0 = job_now_ms();
    qr_status st;
    if (run->dev.gpu) {
        st = qr_gpu_render_rows(r, ln->gs, &p->index, p->mode, QR_FORMAT_PNG, row0, row0 + n, out, err);
    } else {
        /* the image rows (row 0 = bottom) the file rows are */
        const int32_t y0 = side - (row0 + n), y1 = side - row0;
        img->width = side;
        img->height = n;
        st = run->dev.reference
                 ? qr_render_cpu_band(run->scene, side, side, y0, y1, img, err)
                 : qr_render_cpu_fast_band(run->scene, &p->index, p->mode, ln->threads, side, side,
                                           y0, y1, img, NULL, err);
        if (st == QR_OK)
            st = qr_image_file_rows(img, QR_FORMAT_PNG, run->px == 4, 0, n, out, err);
    }
    ln->render_ms += job_now_ms() - t0;
    return st;
}

/* Counts step tiles done and reports; false once the run is cancelled. */
static bool report(tiles_run *run, int64_t step)
{
    pthread_mutex_lock(&run->report_mu);
    run->done += step;
    if (!atomic_load(&run->cancelled) && run->p->on_progress &&
        run->p->on_progress(run->p->user, run->done, run->total) != 0)
        atomic_store(&run->cancelled, 1);
    pthread_mutex_unlock(&run->report_mu);
    return !atomic_load(&run->cancelled);
}

/* A level's folders: the Deep Zoom level's, and an XYZ level's columns. */
static qr_status level_dirs(const tiles_run *run, int32_t side, int32_t tile, int32_t z, int32_t dz,
                            qr_error *err)
{
    char dir[JOB_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/%d", run->dzi_dir, dz);
    qr_status st = make_dirs(dir, err);
    for (int32_t x = 0; st == QR_OK && z >= 0 && x < side / tile; x++) {
        snprintf(dir, sizeof dir, "%s/%d/%d", run->p->dir, z, x);
        st = make_dirs(dir, err);
    }
    return st;
}

/* The rows of a level's bands: whole tile rows (and whole regions of the
 * GPU's), within the host's share; the same for every lane. */
static int32_t level_band_rows(const tiles_run *run, int32_t side, int32_t tile)
{
    const int32_t unit = tile < QR_REGION ? QR_REGION : tile;
    int32_t rows = (int32_t)(TILES_BAND_BYTES / ((size_t)side * run->px));
    if (!run->dev.gpu && (size_t)rows * 16 / run->px * side > 2 * TILES_BAND_BYTES)
        rows = (int32_t)(2 * TILES_BAND_BYTES / 16 / side); /* the CPU's float band */
    rows -= rows % unit;
    if (rows < unit)
        rows = unit;
    return rows > side ? side : rows;
}

/* A lane's bands of one level (ln->side x ln->side pixels in tiles of
 * ln->tile, the level's side when smaller: a Deep Zoom level of one tile;
 * XYZ level ln->z, -1: none; Deep Zoom level ln->dz), each band encoded
 * while the next renders. */
static qr_status render_level(lane *ln, qr_error *err)
{
    tiles_run *run = ln->run;
    const qr_tiles_params *p = run->p;
    const int32_t side = ln->side, tile = ln->tile, band_rows = ln->band_rows;
    qr_status st = QR_OK;
    qr_gpu_renderer *r = NULL;
    if (run->dev.gpu) {
        st = qr_gpu_renderer_create_budget(side, side, ln->gs, QR_FORMAT_PNG, p->gpu_memory, &p->index, &r,
                                           err);
        if (st != QR_OK)
            return st;
        /* the renderer's own bands as tall as ours where its budget allows, so
         * that no row renders twice (else render_rows renders ours in several) */
        if (band_rows < side && band_rows < qr_gpu_renderer_band_rows(r)) {
            qr_gpu_renderer_destroy(r);
            r = NULL;
            st = qr_gpu_renderer_create_bands(side, side, side < QR_GPU_BAND_SIDE_MAX ? side : QR_GPU_BAND_SIDE_MAX,
                                              band_rows, &r, err);
            if (st != QR_OK)
                return st;
        }
    }
    const size_t band_bytes = (size_t)band_rows * side * run->px;
    unsigned char *buf[2] = {NULL, NULL};
    for (int k = 0; k < 2 && st == QR_OK; k++) /* page-locked on the GPU: its copies at full speed */
        st = run->dev.gpu ? qr_gpu_host_alloc(band_bytes, (void **)&buf[k], err)
                          : ((buf[k] = malloc(band_bytes)) ? QR_OK
                                                            : qr_fail(err, QR_ERR_NOMEM, "out of memory: a band"));
    qr_image img = {side, band_rows, NULL};
    if (!run->dev.gpu)
        img.rgba = malloc((size_t)band_rows * side * 4 * sizeof(float));
    band bands[2];
    encoder enc[2];
    memset(enc, 0, sizeof enc);
    for (int k = 0; k < 2; k++) {
        memset(&bands[k], 0, sizeof bands[k]);
        pthread_mutex_init(&bands[k].mu, NULL);
    }
    if (st == QR_OK && !run->dev.gpu && !img.rgba)
        st = qr_fail(err, QR_ERR_NOMEM, "out of memory: a band of %d rows of %d pixels", band_rows, side);
    for (int32_t row0 = ln->index * band_rows, k = 0; st == QR_OK && row0 < side;
         row0 += ln->n * band_rows, k ^= 1) {
        const int32_t n = side - row0 < band_rows ? side - row0 : band_rows;
        /* the band two before used this buffer: its tiles must be out */
        if (enc[k].started) {
            pthread_join(enc[k].tid, NULL);
            enc[k].started = 0;
            if (bands[k].st != QR_OK) {
                *err = bands[k].err;
                st = bands[k].st;
                break;
            }
            if (!report(run, enc[k].ntiles)) {
                st = qr_fail(err, QR_ERR_CANCELLED, "tiles: cancelled");
                break;
            }
        }
        if (atomic_load(&run->cancelled)) {
            st = qr_fail(err, QR_ERR_CANCELLED, "tiles: cancelled");
            break;
        }
        if ((st = render_band(ln, r, &img, side, row0, n, buf[k], err)) != QR_OK)
            break;
        band *b = &bands[k];
        b->run = run;
        b->rows = buf[k];
        b->side = side;
        b->tile = tile;
        b->row0 = row0;
        b->nrows = n;
        b->z = ln->z;
        b->dz = ln->dz;
        b->threads = ln->threads;
        enc[k].b = b;
        enc[k].ntiles = (n / tile) * (side / tile);
        if (pthread_create(&enc[k].tid, NULL, encoder_main, &enc[k]) != 0) {
            encoder_main(&enc[k]); /* no thread: encode it here */
        } else {
            enc[k].started = 1;
            continue;
        }
        if (b->st != QR_OK) {
            *err = b->err;
            st = b->st;
        } else if (!report(run, enc[k].ntiles)) {
            st = qr_fail(err, QR_ERR_CANCELLED, "tiles: cancelled");
        }
    }
    for (int k = 0; k < 2; k++) {
        if (enc[k].started) {
            pthread_join(enc[k].tid, NULL);
            if (st == QR_OK && bands[k].st != QR_OK) {
                *err = bands[k].err;
                st = bands[k].st;
            }
            if (st == QR_OK && !report(run, enc[k].ntiles))
                st = qr_fail(err, QR_ERR_CANCELLED, "tiles: cancelled");
        }
        pthread_mutex_destroy(&bands[k].mu);
    }
    for (int k = 0; k < 2; k++)
        run->dev.gpu ? qr_gpu_host_free(buf[k]) : free(buf[k]);
    free(img.rgba);
    qr_gpu_renderer_destroy(r);
    return st;
}

/* A lane of several GPUs: its device made the thread's, the scene put on
 * it (once), then its share of the level. */
static void *lane_main(void *arg)
{
    lane *ln = arg;
    ln->st = qr_gpu_probe_device(ln->device, NULL, &ln->err);
    if (ln->st == QR_OK && !ln->gs)
        ln->st = qr_gpu_scene_create(ln->run->scene, &ln->gs, &ln->err);
    if (ln->st == QR_OK)
        ln->st = render_level(ln, &ln->err);
    if (ln->st != QR_OK)
        atomic_store(&ln->run->cancelled, 1); /* the others stop too */
    return NULL;
}

/* One level over the lanes: on this thread for one, a thread each for
 * several; the first failure (a cancellation last) is the level's. */
static qr_status run_level(tiles_run *run, lane *lanes, int nl, int32_t side, int32_t tile, int32_t z,
                           int32_t dz, qr_error *err)
{
    qr_status st = level_dirs(run, side, tile, z, dz, err);
    if (st != QR_OK)
        return st;
    const int32_t band_rows = level_band_rows(run, side, tile);
    for (int k = 0; k < nl; k++) {
        lanes[k].side = side, lanes[k].tile = tile, lanes[k].z = z, lanes[k].dz = dz;
        lanes[k].band_rows = band_rows;
        lanes[k].st = QR_OK;
    }
    if (nl == 1)
        return render_level(&lanes[0], err);
    int started = 0;
    for (; started < nl; started++)
        if (pthread_create(&lanes[started].tid, NULL, lane_main, &lanes[started]) != 0)
            break;
    if (started < nl) {
        atomic_store(&run->cancelled, 1);
        st = qr_fail(err, QR_ERR_NOMEM, "tiles: cannot start a thread for GPU %d", lanes[started].device);
    }
    for (int k = 0; k < started; k++)
        pthread_join(lanes[k].tid, NULL);
    for (int k = 0; k < started && st == QR_OK; k++)
        if (lanes[k].st != QR_OK && lanes[k].st != QR_ERR_CANCELLED) {
            *err = lanes[k].err;
            st = lanes[k].st;
        }
    for (int k = 0; k < started && st == QR_OK; k++)
        if (lanes[k].st != QR_OK) {
            *err = lanes[k].err;
            st = lanes[k].st;
        }
    return st;
}

/* ---- the descriptor and the page ---------------------------------------------------------- */

/* s as a JSON string that is safe inside a <script>: '<', '>' and '&'
 * escaped too. */
static void page_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c < 0x20 || *c == '"' || *c == '\\' || *c == '<' || *c == '>' || *c == '&')
            fprintf(fp, "\\u%04x", *c);
        else
            fputc(*c, fp);
    }
    fputc('"', fp);
}

static qr_status write_meta(const tiles_run *run, int32_t full, qr_error *err)
{
    const qr_tiles_params *p = run->p;
    char path[JOB_PATH_MAX], text[512];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<Image xmlns=\"http://schemas.microsoft.com/deepzoom/2008\" Format=\"png\" "
             "Overlap=\"0\" TileSize=\"%d\">\n  <Size Width=\"%d\" Height=\"%d\"/>\n</Image>\n",
             p->tile_size, full, full);
    snprintf(path, sizeof path, "%s/tiles.dzi", p->dir);
    qr_file *f;
    qr_status st = qr_file_open(path, &f, err);
    if (st != QR_OK)
        return st;
    fputs(text, qr_file_stream(f));
    if ((st = qr_file_commit(f, err)) != QR_OK)
        return st;
    char *html = NULL;
    if ((st = qr_tiles_page(run->scene, p->levels, p->tile_size, 0, &html, err)) != QR_OK)
        return st;
    snprintf(path, sizeof path, "%s/index.html", p->dir);
    if ((st = qr_file_open(path, &f, err)) == QR_OK) {
        fputs(html, qr_file_stream(f));
        st = qr_file_commit(f, err);
    }
    free(html);
    return st;
}

qr_status qr_tiles_page(const qr_scene *scene, int32_t levels, int32_t tile_size, int served, char **html,
                        qr_error *err)
{
    *html = NULL;
    /* the run's facts in place of the QR_TILES comment's object */
    const char *page = (const char *)qr_tiles_page_html;
    const char *at = strstr(page, "/*QR_TILES*/");
    const char *rest = at ? strchr(at, ';') : NULL;
    if (!at || !rest)
        return qr_fail(err, QR_ERR_INVALID, "tiles: the page has no QR_TILES mark");
    size_t len = 0;
    FILE *fp = open_memstream(html, &len);
    if (!fp)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: the page");
    fwrite(page, 1, (size_t)(at - page), fp);
    fputs("{\"scene\": ", fp);
    page_string(fp, scene->name);
    fprintf(fp, ", \"circles\": %d, \"levels\": %d, \"tile\": %d, \"served\": %s}", scene->n, levels,
            tile_size, served ? "true" : "false");
    fputs(rest, fp);
    if (fclose(fp) != 0 || !*html) {
        free(*html);
        *html = NULL;
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: the page");
    }
    return QR_OK;
}

int32_t qr_tiles_max_levels(int32_t tile_size)
{
    int32_t levels = 1;
    while (levels < QR_TILES_MAX_LEVELS && ((int64_t)tile_size << levels) <= QR_IMAGE_BANDS_MAX_DIM)
        levels++;
    return levels;
}

/* ---- the run ------------------------------------------------------------------------------ */

qr_status qr_tiles_run(const qr_tiles_params *p, qr_tiles_result *res, qr_error *err)
{
    qr_tiles_result local;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    const double t0 = job_now_ms();
    qr_status st = qr_tiles_check(p, err);
    if (st != QR_OK)
        return st;
    tiles_run run;
    memset(&run, 0, sizeof run);
    run.p = p;
    run.threads = p->threads > 0 ? p->threads : qr_threads();
    qr_scene *loaded = NULL;
    if (p->scene) {
        run.scene = p->scene;
    } else {
        if ((st = qr_scene_load(p->scene_name, p->seed, &loaded, err)) != QR_OK)
            return st;
        run.scene = loaded;
    }
    run.px = run.scene->transparent ? 4 : 3;
    run.png = qr_png_params_for(p->png_level, 1);
    run.png.pixel_bytes = run.px;
    const int32_t full = p->tile_size << (p->levels - 1);
    int32_t log_tile = 0;
    while ((1 << log_tile) < p->tile_size)
        log_tile++;
    run.total = 0;
    for (int32_t z = 0; z < p->levels; z++)
        run.total += (int64_t)1 << (2 * z);
    run.total += log_tile; /* the Deep Zoom levels of side 1 .. tile_size / 2 */
    if (snprintf(run.dzi_dir, sizeof run.dzi_dir, "%s/tiles_files", p->dir) >= (int)sizeof run.dzi_dir - 1)
        st = qr_fail(err, QR_ERR_IO, "%s: name too long", p->dir);
    /* the device first: a run refused for want of a GPU makes no folder */
    if (st == QR_OK)
        st = qr_job_choose_device(p->device, "rendering the tiles", &run.dev, err);
    if (st == QR_OK)
        st = make_dirs(p->dir, err);
    /* the lanes: one GPU, the CPU, or a thread a GPU of p->gpus */
    const int nl = run.dev.gpu && p->ngpus > 1 ? p->ngpus : 1;
    lane lanes[QR_JOB_MAX_GPUS];
    memset(lanes, 0, sizeof lanes);
    pthread_mutex_init(&run.report_mu, NULL);
    for (int k = 0; k < nl; k++) {
        lanes[k].run = &run;
        lanes[k].device = nl > 1 ? p->gpus[k] : -1;
        lanes[k].index = k;
        lanes[k].n = nl;
        lanes[k].threads = run.threads / nl > 0 ? run.threads / nl : 1;
    }
    if (st == QR_OK && run.dev.gpu && nl == 1)
        st = qr_gpu_scene_create(run.scene, &lanes[0].gs, err);
    if (st == QR_OK) {
        res->gpu = run.dev.gpu;
        if (nl > 1)
            snprintf(res->where, sizeof res->where, "%d GPUs", nl);
        else
            snprintf(res->where, sizeof res->where, "%s", run.dev.where);
        snprintf(res->note, sizeof res->note, "%s", run.dev.note);
        if (!report(&run, 0))
            st = qr_fail(err, QR_ERR_CANCELLED, "tiles: cancelled");
    }
    /* the Deep Zoom levels smaller than a tile, then the XYZ levels */
    for (int32_t dz = 0; st == QR_OK && dz < log_tile; dz++)
        st = run_level(&run, lanes, nl, 1 << dz, 1 << dz, -1, dz, err);
    for (int32_t z = 0; st == QR_OK && z < p->levels; z++)
        st = run_level(&run, lanes, nl, p->tile_size << z, p->tile_size, z, log_tile + z, err);
    if (st == QR_OK)
        st = write_meta(&run, full, err);
    if (st == QR_OK) {
        /* the tiles were not synced one by one: the whole pyramid at once */
        const int fd = open(p->dir, O_RDONLY | O_DIRECTORY);
        if (fd < 0 || syncfs(fd) != 0)
            st = qr_fail(err, QR_ERR_IO, "%s: cannot sync: %s", p->dir, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    res->tiles = run.done;
    for (int k = 0; k < nl; k++) {
        res->render_ms += lanes[k].render_ms / nl; /* the lanes render side by side */
        qr_gpu_scene_destroy(lanes[k].gs);
    }
    res->ms = job_now_ms() - t0;
    pthread_mutex_destroy(&run.report_mu);
    qr_scene_destroy(loaded);
    return st;
}
