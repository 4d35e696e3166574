/* tile_service.c — tiles on demand (quadrender/tiles.h): any tile of the
 * pyramid rendered alone as a viewer asks for it, its PNG kept in a cache
 * of the most recently asked within a memory budget.
 *
 * On the GPU a renderer a level, of bands one tile large
 * (qr_gpu_render_rect), all behind one lock: a renderer is not shared
 * between threads, and each thread that renders first makes the service's
 * device its own. On the CPU every request renders its tile itself
 * (qr_render_cpu_fast_region), side by side. The point query under the
 * cursor asks a host query index built on first use.
 */
#define _POSIX_C_SOURCE 200809L
#include "quadrender/tiles.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/png_encoder.h"
#include "quadrender/gpu_device.h"
#include "quadrender/gpu_render.h"
#include "quadrender/gpu_scene.h"
#include "quadrender/query.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/threads.h"

#define CACHE_BUCKETS 4096

typedef struct entry {
    int32_t z, x, y;
    unsigned char *png;
    size_t len;
    struct entry *prev, *next; /* most recent first */
    struct entry *chain;       /* its bucket's */
} entry;

struct qr_tile_service {
    qr_tiles_params p;
    qr_scene *loaded;
    const qr_scene *scene;
    qr_device_choice dev;
    int device; /* the CUDA device the service renders on */
    qr_gpu_scene *gs;
    qr_gpu_renderer *levels[QR_TILES_MAX_LEVELS];
    pthread_mutex_t gpu_mu;
    /* the cache */
    pthread_mutex_t cache_mu;
    entry *buckets[CACHE_BUCKETS];
    entry *head, *tail;
    size_t bytes, budget;
    /* the point query */
    pthread_mutex_t query_mu;
    qr_query_index *query;
};

static _Thread_local const qr_tile_service *thread_device_of = NULL;

int32_t qr_tiles_max_levels(int32_t tile_size);

qr_status qr_tile_service_check(const qr_tiles_params *p, qr_error *err)
{
    qr_tiles_params q = *p;
    q.dir = "."; /* a service writes nothing */
    qr_status st = qr_tiles_check(&q, err);
    if (st != QR_OK)
        return st;
    if (q.device == QR_JOB_CPU_REFERENCE)
        return qr_fail(err, QR_ERR_INVALID,
                       "device: tiles on demand render on the GPU or the fast CPU renderer (auto, gpu or cpu), "
                       "not cpu-reference (it renders no region alone)");
    if (q.tile_size < QR_REGION)
        return qr_fail(err, QR_ERR_INVALID, "tiles on demand: tiles of at least %d pixels, not %d", QR_REGION,
                       q.tile_size);
    return QR_OK;
}

qr_status qr_tile_service_create(const qr_tiles_params *p, size_t cache_bytes, qr_tile_service **out,
                                 qr_error *err)
{
    *out = NULL;
    qr_status st = qr_tile_service_check(p, err);
    if (st != QR_OK)
        return st;
    qr_tiles_params q = *p;
    qr_tile_service *s = calloc(1, sizeof *s);
    if (!s)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: the tile service");
    s->p = q;
    s->p.dir = NULL;
    s->budget = cache_bytes;
    pthread_mutex_init(&s->gpu_mu, NULL);
    pthread_mutex_init(&s->cache_mu, NULL);
    pthread_mutex_init(&s->query_mu, NULL);
    if (p->scene) {
        s->scene = p->scene;
    } else if ((st = qr_scene_load(p->scene_name, p->seed, &s->loaded, err)) == QR_OK) {
        s->scene = s->loaded;
    }
    if (st == QR_OK)
        st = qr_job_choose_device(q.device, "rendering tiles", &s->dev, err);
    if (st == QR_OK && s->dev.gpu) {
        qr_gpu_info info;
        s->device = -1;
        if ((st = qr_gpu_probe(&info, err)) == QR_OK) {
            s->device = info.device;
            thread_device_of = s;
            st = qr_gpu_scene_create(s->scene, &s->gs, err);
        }
    }
    if (st != QR_OK) {
        qr_tile_service_destroy(s);
        return st;
    }
    *out = s;
    return QR_OK;
}

void qr_tile_service_destroy(qr_tile_service *s)
{
    if (!s)
        return;
    for (int z = 0; z < QR_TILES_MAX_LEVELS; z++)
        qr_gpu_renderer_destroy(s->levels[z]);
    qr_gpu_scene_destroy(s->gs);
    for (entry *e = s->head, *n; e; e = n) {
        n = e->next;
        free(e->png);
        free(e);
    }
    qr_query_index_destroy(s->query);
    qr_scene_destroy(s->loaded);
    pthread_mutex_destroy(&s->gpu_mu);
    pthread_mutex_destroy(&s->cache_mu);
    pthread_mutex_destroy(&s->query_mu);
    free(s);
}

const qr_scene *qr_tile_service_scene(const qr_tile_service *s)
{
    return s->scene;
}

const char *qr_tile_service_where(const qr_tile_service *s)
{
    return s->dev.where;
}

const char *qr_tile_service_note(const qr_tile_service *s)
{
    return s->dev.note;
}

/* ---- the cache ------------------------------------------------------------------------------ */

static size_t bucket_of(int32_t z, int32_t x, int32_t y)
{
    const uint64_t h = ((uint64_t)(uint32_t)z * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)(uint32_t)x * 0xbf58476d1ce4e5b9ull) ^
                       ((uint64_t)(uint32_t)y * 0x94d049bb133111ebull);
    return (size_t)((h ^ (h >> 29)) % CACHE_BUCKETS);
}

static void unlink_lru(qr_tile_service *s, entry *e)
{
    if (e->prev) e->prev->next = e->next;
    else s->head = e->next;
    if (e->next) e->next->prev = e->prev;
    else s->tail = e->prev;
    e->prev = e->next = NULL;
}

static void push_front(qr_tile_service *s, entry *e)
{
    e->next = s->head;
    e->prev = NULL;
    if (s->head) s->head->prev = e;
    s->head = e;
    if (!s->tail) s->tail = e;
}

/* A copy of the cached tile, or 0. Under cache_mu. */
static int cache_get(qr_tile_service *s, int32_t z, int32_t x, int32_t y, unsigned char **png, size_t *len)
{
    for (entry *e = s->buckets[bucket_of(z, x, y)]; e; e = e->chain)
        if (e->z == z && e->x == x && e->y == y) {
            if (!(*png = malloc(e->len)))
                return 0;
            memcpy(*png, e->png, e->len);
            *len = e->len;
            unlink_lru(s, e);
            push_front(s, e);
            return 1;
        }
    return 0;
}

/* Keeps a copy of the tile, dropping the least recent past the budget.
 * Under cache_mu. */
static void cache_put(qr_tile_service *s, int32_t z, int32_t x, int32_t y, const unsigned char *png, size_t len)
{
    if (len > s->budget)
        return;
    const size_t b = bucket_of(z, x, y);
    for (entry *e = s->buckets[b]; e; e = e->chain)
        if (e->z == z && e->x == x && e->y == y)
            return; /* another request rendered it meanwhile */
    entry *e = calloc(1, sizeof *e);
    if (!e || !(e->png = malloc(len))) {
        free(e);
        return;
    }
    memcpy(e->png, png, len);
    e->len = len;
    e->z = z, e->x = x, e->y = y;
    e->chain = s->buckets[b];
    s->buckets[b] = e;
    push_front(s, e);
    s->bytes += len;
    while (s->bytes > s->budget && s->tail) {
        entry *old = s->tail;
        unlink_lru(s, old);
        entry **at = &s->buckets[bucket_of(old->z, old->x, old->y)];
        while (*at != old)
            at = &(*at)->chain;
        *at = old->chain;
        s->bytes -= old->len;
        free(old->png);
        free(old);
    }
}

/* ---- a tile ----------------------------------------------------------------------------------- */

/* Tile (z, x, y)'s rectangle of its level, image rows (row 0 = bottom). */
static qr_status tile_rect(const qr_tile_service *s, int32_t z, int32_t x, int32_t y, qr_rect *rc, int32_t *side,
                           qr_error *err)
{
    const int32_t t = s->p.tile_size;
    if (z < 0 || z >= s->p.levels || x < 0 || y < 0 || x >= (1 << z) || y >= (1 << z))
        return qr_fail(err, QR_ERR_INVALID, "no tile %d/%d/%d: levels 0 to %d, columns and rows 0 to 2^z - 1", z,
                       x, y, s->p.levels - 1);
    *side = t << z;
    rc->x0 = x * t;
    rc->x1 = rc->x0 + t;
    rc->y1 = *side - y * t;
    rc->y0 = rc->y1 - t;
    return QR_OK;
}

/* The tile's file rows (8-bit RGB, or RGBA without a background) into rows. */
static qr_status render_tile(qr_tile_service *s, int32_t z, const qr_rect *rc, int32_t side, unsigned char *rows,
                             qr_error *err)
{
    const int alpha = s->scene->transparent;
    const int32_t t = s->p.tile_size;
    if (!s->dev.gpu) {
        qr_image img = {t, t, malloc((size_t)t * t * 4 * sizeof(float))};
        if (!img.rgba)
            return qr_fail(err, QR_ERR_NOMEM, "out of memory: a tile");
        qr_status st = qr_render_cpu_fast_region(s->scene, &s->p.index, s->p.mode, s->p.threads, side, side, rc, &img,
                                                 NULL, err);
        if (st == QR_OK)
            st = qr_image_file_rows(&img, QR_FORMAT_PNG, alpha, 0, t, rows, err);
        free(img.rgba);
        return st;
    }
    pthread_mutex_lock(&s->gpu_mu);
    qr_status st = QR_OK;
    if (thread_device_of != s) { /* this thread's first render: the service's device */
        if ((st = qr_gpu_probe_device(s->device, NULL, err)) == QR_OK)
            thread_device_of = s;
    }
    if (st == QR_OK && !s->levels[z])
        st = qr_gpu_renderer_create_bands(side, side, t, t, &s->levels[z], err);
    if (st == QR_OK)
        st = qr_gpu_render_rect(s->levels[z], s->gs, &s->p.index, s->p.mode, QR_FORMAT_PNG, rc, rows, err);
    pthread_mutex_unlock(&s->gpu_mu);
    return st;
}

qr_status qr_tile_service_png(qr_tile_service *s, int32_t z, int32_t x, int32_t y, unsigned char **png,
                              size_t *len, qr_error *err)
{
    *png = NULL;
    *len = 0;
    qr_rect rc;
    int32_t side = 0;
    qr_status st = tile_rect(s, z, x, y, &rc, &side, err);
    if (st != QR_OK)
        return st;
    pthread_mutex_lock(&s->cache_mu);
    const int hit = cache_get(s, z, x, y, png, len);
    pthread_mutex_unlock(&s->cache_mu);
    if (hit)
        return QR_OK;
    const int32_t t = s->p.tile_size;
    qr_png_params pp = qr_png_params_for(s->p.png_level, 1);
    pp.pixel_bytes = s->scene->transparent ? 4 : 3;
    unsigned char *rows = malloc((size_t)t * t * (size_t)pp.pixel_bytes);
    if (!rows)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: a tile");
    st = render_tile(s, z, &rc, side, rows, err);
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = st == QR_OK ? open_memstream(&buf, &n) : NULL;
    if (st == QR_OK && !fp)
        st = qr_fail(err, QR_ERR_NOMEM, "out of memory: a tile's PNG");
    if (fp) {
        st = qr_png_encode_rows(fp, "a tile", t, t, &pp, rows, (size_t)t * (size_t)pp.pixel_bytes, err);
        if (fclose(fp) != 0 && st == QR_OK)
            st = qr_fail(err, QR_ERR_NOMEM, "out of memory: a tile's PNG");
    }
    free(rows);
    if (st != QR_OK) {
        free(buf);
        return st;
    }
    pthread_mutex_lock(&s->cache_mu);
    cache_put(s, z, x, y, (const unsigned char *)buf, n);
    pthread_mutex_unlock(&s->cache_mu);
    *png = (unsigned char *)buf;
    *len = n;
    return QR_OK;
}

/* ---- what lies under the cursor, and the leaves ------------------------------------------------- */

qr_status qr_tile_service_top(qr_tile_service *s, float x, float y, int32_t *id, qr_error *err)
{
    *id = -1;
    qr_status st = QR_OK;
    pthread_mutex_lock(&s->query_mu);
    if (!s->query)
        st = qr_query_index_build(s->scene, 0, NULL, s->p.threads, &s->query, err);
    pthread_mutex_unlock(&s->query_mu);
    if (st != QR_OK)
        return st;
    const float xy[2] = {x, y};
    qr_query_result r;
    if ((st = qr_query_points(s->query, xy, 1, QR_QUERY_TOP, 1, &r, err)) != QR_OK)
        return st;
    *id = r.values[0];
    qr_query_result_free(&r);
    return QR_OK;
}

qr_status qr_tile_service_leaves(qr_tile_service *s, int32_t z, int32_t x, int32_t y, qr_rect **rects,
                                 int32_t **counts, int32_t *n, qr_error *err)
{
    *rects = NULL;
    *counts = NULL;
    *n = 0;
    qr_rect rc;
    int32_t side = 0;
    qr_status st = tile_rect(s, z, x, y, &rc, &side, err);
    if (st != QR_OK)
        return st;
    qr_index *ix = NULL;
    if ((st = qr_index_build_host_threads(s->scene, side, side, &rc, &s->p.index,
                                          s->dev.gpu ? s->p.mode : qr_render_cpu_fast_index_mode(s->p.mode),
                                          s->p.threads, &ix, err)) != QR_OK)
        return st;
    qr_rect *r = malloc(sizeof *r * (size_t)(ix->num_leaves ? ix->num_leaves : 1));
    int32_t *c = malloc(sizeof *c * (size_t)(ix->num_leaves ? ix->num_leaves : 1));
    if (!r || !c) {
        free(r);
        free(c);
        qr_index_destroy(ix);
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: %d leaves", ix->num_leaves);
    }
    for (int32_t k = 0; k < ix->num_leaves; k++) {
        const qr_rect l = ix->leaves[k].rect;
        /* clipped to the tile, in its pixels from its top-left corner */
        const int32_t x0 = l.x0 > rc.x0 ? l.x0 : rc.x0, x1 = l.x1 < rc.x1 ? l.x1 : rc.x1;
        const int32_t y0 = l.y0 > rc.y0 ? l.y0 : rc.y0, y1 = l.y1 < rc.y1 ? l.y1 : rc.y1;
        r[k] = (qr_rect){x0 - rc.x0, rc.y1 - y1, x1 - rc.x0, rc.y1 - y0};
        c[k] = ix->leaves[k].count;
    }
    *n = ix->num_leaves;
    *rects = r;
    *counts = c;
    qr_index_destroy(ix);
    return QR_OK;
}
