/* test_cli_view.c — `quadrender view` as a browser and a hostile client use
 * it (support/cli_run.h starts the server; plain sockets ask it): its tiles
 * are the bytes of that region of the whole level (decoded by libpng,
 * against the fast CPU renderer's region, the oracle of test_render_band)
 * and of `quadrender tiles`' files; the circle under the cursor is the
 * brute-force query's; the leaves tile the tile; bad paths, numbers,
 * methods and headers get 4xx; a burst of 500 connections is answered or
 * refused with 503 and the server lives on; a port in use is an error
 * naming it; INT stops it cleanly; in a headless Chromium the page, zoomed
 * and dragged, shows the level's very pixels and names the circle under a
 * point as the oracle does. Built without libmicrohttpd, the command says
 * so.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <png.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli_run.h"
#include "test_util.h"
#include "quadrender/query.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/tiles.h"

#ifdef QR_TEST_HAVE_MHD
#define QR_REQUIRE_MHD() do { } while (0)
#else
/* Built without libmicrohttpd: the command says so (exit 1), and the
 * server's tests are skipped. */
#define QR_REQUIRE_MHD()                                                                     \
    do {                                                                                    \
        cr_assert_eq(RUN("view", "rgb", "--device", "cpu"), 1, "%s", R.err);                \
        cr_assert(strstr(R.err, "libmicrohttpd"), "%s", R.err);                              \
        cr_skip_test("built without libmicrohttpd");                                         \
    } while (0)
#endif

typedef struct server {
    qr_cli_proc proc;
    int port;
} server;

/* A TCP connection to 127.0.0.1:port, or -1. */
static int dial(int port)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

typedef struct reply {
    int status;      /* 0: the connection closed without a status line */
    char *body;      /* NUL-terminated */
    size_t len;
} reply;

/* Sends `request` whole and reads the reply to the end (Connection: close). */
static reply exchange(int port, const char *request, size_t n)
{
    reply r = {0, NULL, 0};
    const int fd = dial(port);
    cr_assert(fd >= 0, "cannot connect to the server");
    for (size_t off = 0; off < n;) {
        const ssize_t k = write(fd, request + off, n - off);
        if (k <= 0) break; /* the server may hang up on a hostile request */
        off += (size_t)k;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (len == cap) buf = realloc(buf, (cap *= 2) + 1);
        const ssize_t k = read(fd, buf + len, cap - len);
        if (k <= 0) break;
        len += (size_t)k;
    }
    close(fd);
    buf[len] = '\0';
    if (len > 12 && !strncmp(buf, "HTTP/1.", 7)) r.status = atoi(buf + 9);
    const char *body = strstr(buf, "\r\n\r\n");
    if (body) {
        r.len = len - (size_t)(body + 4 - buf);
        r.body = malloc(r.len + 1);
        memcpy(r.body, body + 4, r.len);
        r.body[r.len] = '\0';
    }
    free(buf);
    return r;
}

static reply get(int port, const char *path)
{
    char req[2048];
    const int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
    return exchange(port, req, (size_t)n);
}

/* Starts `view SCENE args...` and waits for the URL it prints on stdout. */
static server start(const char *const *args)
{
    server s;
    const char *out = qr_test_tmp("view_stdout");
    qr_test_write_text(out, "");
    qr_cli_opts o = {0};
    o.stdout_to = out;
    o.timeout_s = 120;
    s.proc = qr_cli_start(&o, args);
    s.port = 0;
    for (int i = 0; i < 600 && !s.port; i++) {
        char *text = qr_test_read_file(out, NULL);
        const char *at = strstr(text, "http://127.0.0.1:");
        if (at && strchr(at, '\n')) s.port = atoi(at + 17);
        free(text);
        if (!s.port) {
            qr_cli_result r = {0};
            cr_assert(!qr_cli_poll(&s.proc, &r), "view ended (%d) before serving: %s", r.code, r.err);
            const struct timespec ts = {0, 50 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    cr_assert_gt(s.port, 0, "view printed no URL");
    return s;
}

/* INT: the server stops cleanly, saying so. */
static void stop(server *s)
{
    kill(s->proc.pid, SIGINT);
    qr_cli_result r = {0};
    cr_assert_eq(qr_cli_wait(&s->proc, &r), 0, "after INT: exit %d, %s", r.code, r.err);
    cr_assert(strstr(r.err, "stopped"), "%s", r.err);
    qr_cli_result_free(&r);
}

/* A PNG's 8-bit RGB pixels (side x side). */
static unsigned char *decode(const reply *r, int side)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_memory(&pi, r->body, r->len), "not a PNG: %s", pi.message);
    cr_assert(pi.width == (png_uint_32)side && pi.height == (png_uint_32)side);
    pi.format = PNG_FORMAT_RGB;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(pi));
    cr_assert(png_image_finish_read(&pi, NULL, px, 0, NULL), "%s", pi.message);
    return px;
}

/* The tile's pixels as the oracle renders them: the region of the level. */
static unsigned char *expected_tile(const qr_scene *s, int z, int x, int y, qr_render_mode mode)
{
    qr_error err;
    const int T = 256, side = T << z;
    const qr_rect rc = {x * T, side - (y + 1) * T, x * T + T, side - y * T};
    qr_image img = {T, T, malloc((size_t)T * T * 16)};
    QR_CHECK(err, qr_render_cpu_fast_region(s, NULL, mode, 0, side, side, &rc, &img, NULL, &err));
    unsigned char *rows = malloc((size_t)T * T * 3);
    QR_CHECK(err, qr_image_file_rows(&img, QR_FORMAT_PNG, 0, 0, T, rows, &err));
    free(img.rgba);
    return rows;
}

static void check_tiles(int port, const qr_scene *s, qr_render_mode mode)
{
    static const int tiles[][3] = {{0, 0, 0}, {2, 1, 3}, {5, 17, 9}, {9, 300, 411}, {9, 511, 0}};
    for (size_t k = 0; k < sizeof tiles / sizeof tiles[0]; k++) {
        char path[64];
        snprintf(path, sizeof path, "/tiles/%d/%d/%d.png", tiles[k][0], tiles[k][1], tiles[k][2]);
        reply r = get(port, path);
        cr_assert_eq(r.status, 200, "%s: %d %s", path, r.status, r.body ? r.body : "");
        unsigned char *got = decode(&r, 256), *want = expected_tile(s, tiles[k][0], tiles[k][1], tiles[k][2], mode);
        cr_assert(!memcmp(got, want, (size_t)256 * 256 * 3), "%s differs from the level's region", path);
        free(got);
        free(want);
        /* asked again: the cache's copy, the same bytes */
        reply again = get(port, path);
        cr_assert(again.status == 200 && again.len == r.len && !memcmp(again.body, r.body, r.len), "%s", path);
        free(again.body);
        free(r.body);
    }
}

Test(cli_view, tiles_hover_leaves_and_bad_requests, .timeout = 300)
{
    QR_REQUIRE_MHD();
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_builtin("rand10k", 0, &s, &err));
    /* (one run at a time: the pyramid first, the server after) */
    char dir[512];
    snprintf(dir, sizeof dir, "%s", qr_test_tmp_dir("view_pyramid"));
    cr_assert_eq(RUN("tiles", "rand10k", "-o", dir, "--levels", "3", "--device", "cpu", "-q"), 0, "%s", R.err);
    server sv = start(QR_ARGS("view", "rand10k", "--device", "cpu", "--port", "0"));
    check_tiles(sv.port, s, QR_RENDER_FAST);
    /* the same bytes as `quadrender tiles` writes */
    reply r = get(sv.port, "/tiles/2/1/3.png");
    cr_assert(qr_test_holds(qr_test_join(dir, "2/1/3.png"), r.body, r.len), "a served tile is not the pyramid's");
    free(r.body);
    /* the circle under the cursor: the brute-force oracle's */
    const float pts[][2] = {{0.5f, 0.5f}, {0.01f, 0.99f}, {0.3333f, 0.123f}, {1.5f, 0.5f}};
    qr_query_result want;
    QR_CHECK(err, qr_query_points_brute(s, &pts[0][0], 4, QR_QUERY_TOP, &want, &err));
    for (int k = 0; k < 4; k++) {
        char path[128];
        snprintf(path, sizeof path, "/top?x=%.9g&y=%.9g", pts[k][0], pts[k][1]);
        r = get(sv.port, path);
        cr_assert_eq(r.status, 200, "%s: %d", path, r.status);
        char id[32];
        snprintf(id, sizeof id, "{\"id\": %d", want.values[k]);
        cr_assert(!strncmp(r.body, id, strlen(id)), "%s: %s, the oracle says %d", path, r.body, want.values[k]);
        free(r.body);
    }
    qr_query_result_free(&want);
    /* the leaves: rectangles that tile the tile */
    r = get(sv.port, "/leaves/3/2/5.json");
    cr_assert_eq(r.status, 200);
    long area = 0;
    for (const char *p = strstr(r.body, "[["); p && (p = strchr(p + 1, '[')); ) {
        int a, b, c, d, n;
        if (sscanf(p, "[%d, %d, %d, %d, %d]", &a, &b, &c, &d, &n) == 5) area += (long)(c - a) * (d - b);
    }
    cr_assert_eq(area, 256L * 256, "the leaves cover %ld of the tile's pixels: %s", area, r.body);
    free(r.body);
    /* the page and the facts */
    r = get(sv.port, "/");
    cr_assert(r.status == 200 && strstr(r.body, "\"served\": true") && strstr(r.body, "\"levels\": 10"));
    free(r.body);
    r = get(sv.port, "/info.json");
    cr_assert(r.status == 200 && strstr(r.body, "\"circles\": 10000"), "%s", r.body);
    free(r.body);
    /* what a hostile client sends */
    static const struct { const char *path; int status; } bad[] = {
        {"/tiles/10/0/0.png", 404},      {"/tiles/2/4/0.png", 404},   {"/tiles/2/0/4.png", 404},
        {"/tiles/-1/0/0.png", 404},      {"/tiles/02/1/1.png", 404},  {"/tiles/2/1/1.jpg", 404},
        {"/tiles/99999999999/0/0.png", 404}, {"/tiles/2/1/1.png/x", 404}, {"/tiles/../../etc/passwd", 404},
        {"/../../etc/passwd", 404},      {"/etc/passwd", 404},        {"/leaves/12/0/0.json", 404},
        {"/top?x=nan&y=0.5", 400},       {"/top?x=0.5", 400},         {"/top?x=1e999&y=1", 400},
        {"/top?x=0.5&y=0.5x", 400},      {"/nothing", 404},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        r = get(sv.port, bad[k].path);
        cr_assert_eq(r.status, bad[k].status, "%s: %d, expected %d", bad[k].path, r.status, bad[k].status);
        free(r.body);
    }
    const char post[] = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nConnection: close\r\n\r\nabcd";
    r = exchange(sv.port, post, sizeof post - 1);
    cr_assert_eq(r.status, 405);
    free(r.body);
    /* a header of 100 KB: refused, and the server lives on */
    size_t n = 200000;
    char *huge = malloc(n);
    int at = snprintf(huge, n, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(huge + at, 'a', 100000);
    at += 100000;
    at += snprintf(huge + at, n - (size_t)at, "\r\nConnection: close\r\n\r\n");
    r = exchange(sv.port, huge, (size_t)at);
    cr_assert(r.status == 0 || (r.status >= 400 && r.status < 500), "a 100 KB header: %d", r.status);
    free(r.body);
    free(huge);
    r = exchange(sv.port, "garbage\r\n\r\n", 11);
    cr_assert(r.status == 0 || (r.status >= 400 && r.status < 500), "garbage: %d", r.status);
    free(r.body);
    r = get(sv.port, "/tiles/1/1/1.png");
    cr_assert_eq(r.status, 200, "the server did not survive");
    free(r.body);
    stop(&sv);
    qr_scene_destroy(s);
}

typedef struct burst_arg {
    int port, k, status;
} burst_arg;

static void *burst_one(void *p)
{
    burst_arg *a = p;
    char path[64];
    snprintf(path, sizeof path, "/tiles/7/%d/%d.png", a->k % 128, a->k / 128 % 128);
    reply r = get(a->port, path);
    a->status = r.status;
    free(r.body);
    return NULL;
}

Test(cli_view, a_burst_is_answered_or_refused, .timeout = 300)
{
    QR_REQUIRE_MHD();
    server sv = start(QR_ARGS("view", "rand10k", "--device", "cpu", "--port", "0", "--cache", "1M"));
    enum { N = 500 };
    pthread_t t[N];
    burst_arg a[N];
    for (int k = 0; k < N; k++) {
        a[k] = (burst_arg){sv.port, k * 37, 0};
        cr_assert_eq(pthread_create(&t[k], NULL, burst_one, &a[k]), 0);
    }
    int ok = 0;
    for (int k = 0; k < N; k++) {
        pthread_join(t[k], NULL);
        cr_assert(a[k].status == 200 || a[k].status == 503, "request %d: %d", k, a[k].status);
        ok += a[k].status == 200;
    }
    cr_assert_gt(ok, 0);
    reply r = get(sv.port, "/tiles/0/0/0.png");
    cr_assert_eq(r.status, 200, "the server did not survive the burst");
    free(r.body);
    stop(&sv);
}

Test(cli_view, a_port_in_use_is_named, .timeout = 120)
{
    QR_REQUIRE_MHD();
    /* a port this test holds */
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 1) == 0 &&
              getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    char port[16];
    snprintf(port, sizeof port, "%d", ntohs(a.sin_port));
    cr_assert_eq(RUN("view", "rgb", "--device", "cpu", "--port", port), 1, "%s", R.err);
    cr_assert(strstr(R.err, port) && strstr(R.err, "in use"), "%s", R.err);
    close(fd);
    cr_assert_eq(RUN("view", "rgb", "--listen", "localhost"), 2, "%s", R.err);
    cr_assert_eq(RUN("view", "rgb", "--port", "70000"), 2, "%s", R.err);
    cr_assert_eq(RUN("view", "rgb", "--device", "cpu-reference"), 2, "%s", R.err);
    cr_assert_eq(RUN("view", "no_such_scene.circles", "--device", "cpu"), 3, "%s", R.err);
}

Test(cli_view, gpu_tiles_are_the_references, .timeout = 300)
{
    QR_REQUIRE_MHD();
    QR_REQUIRE_GPU();
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_builtin("rand10k", 0, &s, &err));
    server sv = start(QR_ARGS("view", "rand10k", "--device", "gpu", "--exact", "--port", "0"));
    check_tiles(sv.port, s, QR_RENDER_EXACT);
    stop(&sv);
    qr_scene_destroy(s);
}

/* A headless Chromium, or NULL. */
static const char *chromium(void)
{
    static const char *const names[] = {"/usr/bin/chromium-headless-shell", "/usr/bin/chromium",
                                        "/usr/bin/chromium-browser"};
    const char *env = getenv("QR_CHROMIUM");
    if (env && access(env, X_OK) == 0) return env;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (access(names[k], X_OK) == 0) return names[k];
    return NULL;
}

/* Chromium loads url in a 512 x 512 window, waits for its work, and either
 * saves a screenshot to shot or prints the page's DOM into dom. */
static void browse(const char *chrome, const char *url, const char *shot, const char *dom)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "timeout 120 '%s' --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 "
             "--window-size=512,512 --virtual-time-budget=5000 %s%s '%s' > '%s' 2>/dev/null",
             chrome, shot ? "--screenshot=" : "--dump-dom", shot ? shot : "", url, dom ? dom : "/dev/null");
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The page in a real browser, as a person uses it: zoomed in twice about the
 * centre and dragged (the page's own zoom and pan, asked in its address),
 * the screen holds the bytes of that part of the level, tile seams
 * included; the panel under a point names the brute-force query's circle,
 * and no panel shows off the scene. */
Test(cli_view, a_browser_zooms_pans_and_hovers, .timeout = 300)
{
    QR_REQUIRE_MHD();
    const char *chrome = chromium();
    if (!chrome) cr_skip_test("no headless Chromium");
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_builtin("rand10k", 0, &s, &err));
    server sv = start(QR_ARGS("view", "rand10k", "--device", "cpu", "--port", "0"));
    char url[256], shot[512], dom[512];
    snprintf(shot, sizeof shot, "%s", qr_test_tmp("view_shot.png"));
    snprintf(dom, sizeof dom, "%s", qr_test_tmp("view_dom.html"));
    /* the whole scene fits 512 pixels: level 1 at one pixel a pixel; zoomed in
     * twice, level 3 (2048 pixels), its centre at the screen's, then dragged
     * 96 pixels left and 64 down: the screen's corner is level 3's pixel
     * (1024 - 256 + 96, 1024 - 256 - 64) from the top-left */
    snprintf(url, sizeof url, "http://127.0.0.1:%d/#steps=in,in,pan:-96:64&ui=0", sv.port);
    browse(chrome, url, shot, NULL);
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_file(&pi, shot), "%s: %s", shot, pi.message);
    cr_assert(pi.width == 512 && pi.height == 512, "screenshot %ux%u", pi.width, pi.height);
    pi.format = PNG_FORMAT_RGB;
    unsigned char *got = malloc(PNG_IMAGE_SIZE(pi));
    cr_assert(png_image_finish_read(&pi, NULL, got, 0, NULL), "%s", pi.message);
    const int side = 2048, x0 = 1024 - 256 + 96, top = 1024 - 256 - 64;
    const qr_rect rc = {x0, side - (top + 512), x0 + 512, side - top};
    qr_image img = {512, 512, malloc((size_t)512 * 512 * 16)};
    QR_CHECK(err, qr_render_cpu_fast_region(s, NULL, QR_RENDER_FAST, 0, side, side, &rc, &img, NULL, &err));
    unsigned char *want = malloc((size_t)512 * 512 * 3);
    QR_CHECK(err, qr_image_file_rows(&img, QR_FORMAT_PNG, 0, 0, 512, want, &err));
    for (int y = 0; y < 512; y++)
        for (int x = 0; x < 512 * 3; x++)
            cr_assert_eq(got[y * 512 * 3 + x], want[y * 512 * 3 + x],
                         "screen pixel (%d, %d) channel %d: %d, the level's %d", x / 3, y, x % 3,
                         got[y * 512 * 3 + x], want[y * 512 * 3 + x]);
    free(got);
    free(want);
    free(img.rgba);
    /* the panel under a point */
    const float pts[][2] = {{0.5f, 0.5f}, {0.25f, 0.75f}};
    qr_query_result top_of;
    QR_CHECK(err, qr_query_points_brute(s, &pts[0][0], 2, QR_QUERY_TOP, &top_of, &err));
    for (int k = 0; k < 2; k++) {
        snprintf(url, sizeof url, "http://127.0.0.1:%d/#hover=%g,%g", sv.port, pts[k][0], pts[k][1]);
        browse(chrome, url, NULL, dom);
        char *html = qr_test_read_file(dom, NULL);
        char want_text[64];
        snprintf(want_text, sizeof want_text, ">circle %d (depth %d)", top_of.values[k], top_of.values[k]);
        cr_assert(strstr(html, want_text), "the panel at (%g, %g) does not say %s", pts[k][0], pts[k][1],
                  want_text + 1);
        free(html);
    }
    qr_query_result_free(&top_of);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/#hover=1.5,0.5", sv.port);
    browse(chrome, url, NULL, dom);
    char *html = qr_test_read_file(dom, NULL);
    cr_assert(strstr(html, "<div id=\"hover\"></div>") || strstr(html, "id=\"hover\" style=\"display: none;\""),
              "a panel off the scene");
    free(html);
    stop(&sv);
    qr_scene_destroy(s);
}
