/* cmd_view.c — `quadrender view`: a local web server that shows a scene
 * as a deep-zoom pyramid rendered on demand (quadrender/tiles.h's tile
 * service), over libmicrohttpd.
 *
 *   /                         the viewer page (the pyramid's, served)
 *   /tiles/Z/X/Y.png          tile (Z, X, Y), Y from the top
 *   /leaves/Z/X/Y.json        the leaves of the index that tile renders from
 *   /top?x=X&y=Y              the front-most circle over (X, Y) of the unit
 *                             square, and what it is
 *   /info.json                the scene, the levels, the tile size
 * Anything else is 404, a method other than GET or HEAD 405, a tile outside
 * the pyramid 404, a bad number 400, and more requests at once than the
 * service takes 503. Interrupted (INT, TERM, HUP), the server stops.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "quadrender/scene.h"
#include "quadrender/text.h"
#include "quadrender/threads.h"
#include "quadrender/tiles.h"

#ifdef QR_HAVE_MHD
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>

/* Requests answered at once; past it, 503. */
#define VIEW_MAX_INFLIGHT 64

typedef struct view {
    qr_tile_service *svc;
    char *page;
    size_t page_len;
    char info[512];
    atomic_int inflight;
} view;

static volatile sig_atomic_t view_stop = 0;

static void on_stop(int sig)
{
    (void)sig;
    view_stop = 1;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, void *data, size_t len,
                             enum MHD_ResponseMemoryMode mode, const char *cache)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, data, mode);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", cache ? cache : "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    const enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    return reply(c, status, "text/plain; charset=utf-8", (void *)text, strlen(text), MHD_RESPMEM_MUST_COPY, NULL);
}

/* Strict decimal within max: digits only, no sign, no leading zero but "0". */
static int parse_index(const char *s, size_t n, int32_t max, int32_t *out)
{
    if (n == 0 || n > 9 || (n > 1 && s[0] == '0'))
        return 0;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    if (v > max)
        return 0;
    *out = (int32_t)v;
    return 1;
}

/* "Z/X/Y<ext>" of a path: 1, or 0 when it is not one. */
static int parse_zxy(const char *p, const char *ext, int32_t *z, int32_t *x, int32_t *y)
{
    const char *a = strchr(p, '/');
    const char *b = a ? strchr(a + 1, '/') : NULL;
    const char *e = b ? strstr(b + 1, ext) : NULL;
    if (!a || !b || !e || strcmp(e, ext) != 0)
        return 0;
    return parse_index(p, (size_t)(a - p), 1 << 30, z) && parse_index(a + 1, (size_t)(b - a - 1), 1 << 30, x) &&
           parse_index(b + 1, (size_t)(e - b - 1), 1 << 30, y);
}

/* A coordinate of the square: a finite number (strtof's whole text). */
static int parse_coord(const char *s, float *out)
{
    if (!s || !*s || strlen(s) > 40)
        return 0;
    char *end;
    errno = 0;
    const float v = strtof(s, &end);
    if (*end || errno || v != v || v > 1e30f || v < -1e30f)
        return 0;
    *out = v;
    return 1;
}

static unsigned status_of(qr_status st)
{
    return st == QR_ERR_INVALID ? MHD_HTTP_NOT_FOUND
           : st == QR_ERR_NOMEM || st == QR_ERR_GPU_NOMEM ? MHD_HTTP_SERVICE_UNAVAILABLE
                                                          : MHD_HTTP_INTERNAL_SERVER_ERROR;
}

static enum MHD_Result serve_tile(view *v, struct MHD_Connection *c, int32_t z, int32_t x, int32_t y)
{
    unsigned char *png;
    size_t len;
    qr_error err;
    const double t0 = cli_now_ms();
    const qr_status st = qr_tile_service_png(v->svc, z, x, y, &png, &len, &err);
    if (st != QR_OK)
        return reply_text(c, status_of(st), err.msg);
    struct MHD_Response *r = MHD_create_response_from_buffer(len, png, MHD_RESPMEM_MUST_FREE);
    if (!r)
        return MHD_NO;
    /* the server's own time for the tile (rendered and encoded, or from the
     * cache), for the browser's developer tools and for benchmarks */
    char timing[64];
    snprintf(timing, sizeof timing, "tile;dur=%.3f", cli_now_ms() - t0);
    MHD_add_response_header(r, "Content-Type", "image/png");
    MHD_add_response_header(r, "Cache-Control", "max-age=3600");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Server-Timing", timing);
    const enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result serve_leaves(view *v, struct MHD_Connection *c, int32_t z, int32_t x, int32_t y)
{
    qr_rect *r;
    int32_t *count, n;
    qr_error err;
    const qr_status st = qr_tile_service_leaves(v->svc, z, x, y, &r, &count, &n, &err);
    if (st != QR_OK)
        return reply_text(c, status_of(st), err.msg);
    char *json = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&json, &len);
    if (fp) {
        fputs("{\"leaves\": [", fp);
        for (int32_t k = 0; k < n; k++)
            fprintf(fp, "%s[%d, %d, %d, %d, %d]", k ? ", " : "", r[k].x0, r[k].y0, r[k].x1, r[k].y1, count[k]);
        fputs("]}\n", fp);
        fclose(fp);
    }
    free(r);
    free(count);
    if (!json)
        return reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
    return reply(c, MHD_HTTP_OK, "application/json", json, len, MHD_RESPMEM_MUST_FREE, "max-age=3600");
}

static enum MHD_Result serve_top(view *v, struct MHD_Connection *c)
{
    float x, y;
    if (!parse_coord(MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "x"), &x) ||
        !parse_coord(MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "y"), &y))
        return reply_text(c, MHD_HTTP_BAD_REQUEST, "top: expected ?x=X&y=Y, two numbers");
    int32_t id;
    qr_error err;
    const qr_status st = qr_tile_service_top(v->svc, x, y, &id, &err);
    if (st != QR_OK)
        return reply_text(c, status_of(st), err.msg);
    const qr_scene *s = qr_tile_service_scene(v->svc);
    char json[512];
    if (id < 0)
        snprintf(json, sizeof json, "{\"id\": -1}\n");
    else
        snprintf(json, sizeof json,
                 "{\"id\": %d, \"x\": %.9g, \"y\": %.9g, \"r\": %.9g, \"color\": [%.6g, %.6g, %.6g], "
                 "\"alpha\": %.6g, \"depth\": %d}\n",
                 id, s->x[id], s->y[id], s->r[id], s->red[id], s->green[id], s->blue[id],
                 s->alpha ? s->alpha[id] : 0.5, id);
    return reply(c, MHD_HTTP_OK, "application/json", json, strlen(json), MHD_RESPMEM_MUST_COPY, NULL);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **state)
{
    (void)version;
    (void)upload;
    view *v = cls;
    if (!*state) { /* the headers are in; the (empty) body comes next */
        *state = v;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;
        return MHD_YES;
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD");
    if (atomic_fetch_add(&v->inflight, 1) >= VIEW_MAX_INFLIGHT) {
        atomic_fetch_sub(&v->inflight, 1);
        return reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "busy: try again");
    }
    int32_t z, x, y;
    enum MHD_Result r;
    if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
        r = reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", v->page, v->page_len, MHD_RESPMEM_PERSISTENT, NULL);
    else if (!strcmp(url, "/info.json"))
        r = reply(c, MHD_HTTP_OK, "application/json", v->info, strlen(v->info), MHD_RESPMEM_PERSISTENT, NULL);
    else if (!strncmp(url, "/tiles/", 7) && parse_zxy(url + 7, ".png", &z, &x, &y))
        r = serve_tile(v, c, z, x, y);
    else if (!strncmp(url, "/leaves/", 8) && parse_zxy(url + 8, ".json", &z, &x, &y))
        r = serve_leaves(v, c, z, x, y);
    else if (!strcmp(url, "/top"))
        r = serve_top(v, c);
    else
        r = reply_text(c, MHD_HTTP_NOT_FOUND, "not found");
    atomic_fetch_sub(&v->inflight, 1);
    return r;
}

static int view_serve(const cli_cmd *cmd, const qr_tiles_params *p, const char *listen, int port,
                      size_t cache)
{
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, listen, &addr.sin_addr) != 1)
        return cli_usage_error(cmd, "--listen: expected an IPv4 address (127.0.0.1, 0.0.0.0), got '%s'",
                               listen);
    view v;
    memset(&v, 0, sizeof v);
    qr_error err;
    if (qr_tile_service_create(p, cache, &v.svc, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_RUN);
    const qr_scene *s = qr_tile_service_scene(v.svc);
    if (qr_tiles_page(s, p->levels, p->tile_size, 1, &v.page, &err) != QR_OK) {
        qr_tile_service_destroy(v.svc);
        return cli_fail(&err, CLI_PHASE_RUN);
    }
    v.page_len = strlen(v.page);
    FILE *info = fmemopen(v.info, sizeof v.info, "w");
    if (info) {
        fputs("{\"scene\": ", info);
        qr_json_write_string(info, s->name);
        fprintf(info, ", \"circles\": %d, \"levels\": %d, \"tile\": %d}\n", s->n, p->levels, p->tile_size);
        fclose(info);
    }
    const unsigned threads = (unsigned)(qr_threads() < 4 ? 4 : qr_threads());
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, (uint16_t)port, NULL, NULL,
        handle, &v, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)1000, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768, MHD_OPTION_END);
    if (!d) {
        const int e = errno;
        cli_message("cannot listen on %s port %d: %s", listen, port,
                    e == EADDRINUSE || e == 0 ? "the port is in use" : strerror(e));
        free(v.page);
        qr_tile_service_destroy(v.svc);
        return CLI_EXIT_FAILURE;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    const int bound = di ? di->port : port;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (qr_tile_service_note(v.svc)[0])
        cli_info("%s", qr_tile_service_note(v.svc));
    cli_info("serving %s (%d circles, levels 0 to %d, %d-pixel tiles) on %s at http://%s:%d/ (Ctrl-C stops)",
             s->name, s->n, p->levels - 1, p->tile_size, qr_tile_service_where(v.svc), listen, bound);
    /* the URL on stdout too, alone on its line, for a script to read */
    printf("http://%s:%d/\n", listen, bound);
    fflush(stdout);
    while (!view_stop) {
        const struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(d);
    free(v.page);
    qr_tile_service_destroy(v.svc);
    cli_info("stopped");
    return CLI_EXIT_OK;
}
#endif

static const char *set_port(const char *text, void *dest)
{
    uint64_t v;
    if (!cli_parse_u64(text, 65535, &v))
        return "a port from 0 (any free one) to 65535";
    *(int *)dest = (int)v;
    return NULL;
}

static const char *set_levels(const char *text, void *dest)
{
    qr_error err;
    return cli_checked(qr_tiles_check_levels(cli_setting(), text, dest, &err), &err);
}

static int view_run(const cli_cmd *cmd, int argc, char **argv)
{
    qr_tiles_params p;
    qr_tiles_params_init(&p);
    p.levels = qr_tiles_max_levels(p.tile_size);
    int exact = 0, fast = 0, port = 0;
    const char *listen = "127.0.0.1";
    size_t cache = (size_t)256 << 20;
    enum { O_PORT, O_LISTEN, O_LEVELS, O_CACHE, O_SEED, O_DEVICE, O_EXACT, O_FAST, O_INDEX,
           O_COUNT = O_INDEX + CLI_INDEX_NOPTS };
    cli_opt opts[O_COUNT] = {
        [O_PORT] = {"--port", NULL, "N", set_port, &port, "the port to serve on (default 0: a free one)"},
        [O_LISTEN] = {"--listen", NULL, "ADDR", cli_set_string, &listen,
                      "the IPv4 address to serve on (default 127.0.0.1: this machine only)"},
        [O_LEVELS] = {"--levels", NULL, "N", set_levels, &p.levels,
                      "zoom levels, level z 256 * 2^z pixels a side (default 10: the deepest, 131072)"},
        [O_CACHE] = {"--cache", NULL, "SIZE", cli_set_bytes, &cache,
                     "memory for the tiles already rendered, e.g. 1G (default 256M)"},
        [O_SEED] = {"--seed", NULL, "N", cli_set_seed, &p.seed, "random seed of a built-in scene (default 0)"},
        [O_DEVICE] = {"--device", NULL, "DEV", cli_set_device, &p.device,
                      "auto, gpu or cpu (default auto: the GPU when usable)"},
        [O_EXACT] = {"--exact", NULL, NULL, NULL, &exact, "bit-identical to the CPU reference (back to front)"},
        [O_FAST] = {"--fast", NULL, NULL, NULL, &fast, "front to back with early stop, within 1e-5 (the default)"},
    };
    cli_index_opts_init(&opts[O_INDEX], &p.index);
    int rc = cli_parse_index_command(cmd, opts, O_COUNT, O_INDEX, argc, argv, &p.index, &exact, &fast,
                                     &p.scene_name, &p.mode);
    if (rc != CLI_PARSE_OK)
        return rc == CLI_PARSE_HELP ? CLI_EXIT_OK : rc;
    qr_error err;
    if (qr_tile_service_check(&p, &err) != QR_OK)
        return cli_usage_error(cmd, "%s", err.msg);
    qr_scene *scene;
    if (qr_scene_load(p.scene_name, p.seed, &scene, &err) != QR_OK)
        return cli_fail(&err, CLI_PHASE_INPUT);
    p.scene = scene;
#ifdef QR_HAVE_MHD
    rc = view_serve(cmd, &p, listen, port, cache);
#else
    (void)port;
    (void)listen;
    (void)cache;
    cli_message("view: this quadrender was built without libmicrohttpd (install libmicrohttpd-dev and build "
                "again)");
    rc = CLI_EXIT_FAILURE;
#endif
    qr_scene_destroy(scene);
    return rc;
}

const cli_cmd cli_cmd_view = {
    .name = "view",
    .summary = "serve a scene to a web browser as a deep-zoom view, tiles rendered on demand",
    .args = "SCENE [options]",
    .run = view_run,
    .about = "Serves SCENE on this machine's web port: open the URL it prints in a browser to pan\n"
             "and zoom it from the whole scene down to its finest level, each tile rendered as\n"
             "it is asked for (on the GPU, or the fast CPU renderer) and kept in a cache.\n",
    .notes = "The page shows the circle under the cursor (its index, centre, radius, colour and\n"
             "depth), draws the index's leaves over the view, and saves the view as a PNG.\n"
             "Tiles are those of `quadrender tiles` (the same bytes), at /tiles/Z/X/Y.png.\n"
             "The URL also goes to stdout, alone on its line. INT, TERM or HUP stops the\n"
             "server; a port in use is an error naming it (exit 1).\n",
};
