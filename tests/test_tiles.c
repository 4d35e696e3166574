/* test_tiles.c — the tile pyramid (quadrender/tiles.h) against the oracle:
 * every tile of every level, read back by libpng, holds the bytes of that
 * region of the whole level rendered on its own (the reference, the fast
 * CPU renderer, the GPU whole), in both modes, with and without a
 * background, tiles of several sizes, bands of several heights; the Deep
 * Zoom levels below the tile size are the whole small images, those above
 * the XYZ tiles' very bytes; the descriptor and the page say the sizes. A
 * cancelled or failed run leaves no partial tile; bad params are refused
 * as the CLI refuses them, and the CLI's exit codes follow the contract.
 */
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alpha_image.h"
#include "cli_expect.h"
#include "cli_run.h"
#include "random_scene.h"
#include "test_util.h"
#include "quadrender/gpu_render.h"
#include "quadrender/gpu_scene.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/tiles.h"

/* The PNG's pixels, side x side of px bytes (3: RGB, 4: RGBA), top row
 * first (malloc'd). */
static unsigned char *read_png(const char *path, int32_t side, int px)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_file(&pi, path), "%s: %s", path, pi.message);
    cr_assert(pi.width == (png_uint_32)side && pi.height == (png_uint_32)side, "%s: %ux%u, not %d",
              path, pi.width, pi.height, side);
    cr_assert_eq(!!(pi.format & PNG_FORMAT_FLAG_ALPHA), px == 4, "%s: alpha channel", path);
    pi.format = px == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    unsigned char *p = malloc(PNG_IMAGE_SIZE(pi));
    cr_assert(p != NULL);
    cr_assert(png_image_finish_read(&pi, NULL, p, 0, NULL), "%s: %s", path, pi.message);
    return p;
}

enum { BY_REFERENCE, BY_CPU_FAST, BY_GPU };

/* The whole side x side image as the file's rows (top row first), rendered
 * on its own `by` the reference, the fast CPU renderer or the GPU. */
static unsigned char *whole(const qr_scene *s, int32_t side, qr_render_mode mode, int by, int px)
{
    qr_error err;
    qr_index_params ip;
    qr_index_params_default(&ip);
    unsigned char *rows = malloc((size_t)side * side * px);
    cr_assert(rows != NULL);
    if (by == BY_GPU) {
        qr_gpu_scene *gs;
        qr_gpu_renderer *r;
        QR_CHECK(err, qr_gpu_scene_create(s, &gs, &err));
        QR_CHECK(err, qr_gpu_renderer_create(side, side, &r, &err));
        QR_CHECK(err, qr_gpu_render(r, gs, &ip, mode, &err));
        QR_CHECK(err, qr_gpu_renderer_read_rows(r, QR_FORMAT_PNG, px == 4, rows, &err));
        qr_gpu_renderer_destroy(r);
        qr_gpu_scene_destroy(gs);
        return rows;
    }
    qr_image *img;
    QR_CHECK(err, qr_image_create(side, side, &img, &err));
    if (by == BY_REFERENCE)
        QR_CHECK(err, qr_render_cpu(s, img, &err));
    else
        QR_CHECK(err, qr_render_cpu_fast(s, &ip, mode, 0, img, NULL, &err));
    QR_CHECK(err, qr_image_file_rows(img, QR_FORMAT_PNG, px == 4, 0, side, rows, &err));
    qr_image_destroy(img);
    return rows;
}

/* Every file of the pyramid in dir against the whole images. */
static void check_pyramid(const qr_scene *s, const qr_tiles_params *p, int by, const char *what)
{
    const int px = s->transparent ? 4 : 3;
    const int32_t t = p->tile_size;
    char path[1024], dzi[1024];
    int log_tile = 0;
    while ((1 << log_tile) < t) log_tile++;
    for (int dz = 0; dz < log_tile; dz++) {
        const int32_t side = 1 << dz;
        unsigned char *w = whole(s, side, p->mode, by, px);
        snprintf(dzi, sizeof dzi, "%s/tiles_files/%d/0_0.png", p->dir, dz);
        unsigned char *got = read_png(dzi, side, px);
        cr_assert(!memcmp(got, w, (size_t)side * side * px), "%s: %s differs from the whole %d^2",
                  what, dzi, side);
        free(got);
        free(w);
    }
    for (int z = 0; z < p->levels; z++) {
        const int32_t side = t << z, n = 1 << z;
        unsigned char *w = whole(s, side, p->mode, by, px);
        for (int x = 0; x < n; x++)
            for (int y = 0; y < n; y++) {
                snprintf(path, sizeof path, "%s/%d/%d/%d.png", p->dir, z, x, y);
                snprintf(dzi, sizeof dzi, "%s/tiles_files/%d/%d_%d.png", p->dir, log_tile + z, x, y);
                unsigned char *got = read_png(path, t, px);
                for (int r = 0; r < t; r++) {
                    const unsigned char *a = got + (size_t)r * t * px;
                    const unsigned char *b = w + ((size_t)(y * t + r) * side + (size_t)x * t) * px;
                    cr_assert(!memcmp(a, b, (size_t)t * px),
                              "%s: %s row %d differs from the whole %d^2's", what, path, r, side);
                }
                cr_assert(qr_test_same_bytes(path, dzi), "%s: %s is not %s", what, dzi, path);
                free(got);
            }
        free(w);
    }
    snprintf(path, sizeof path, "%s/tiles.dzi", p->dir);
    char *text = qr_test_read_file(path, NULL);
    char want[128];
    snprintf(want, sizeof want, "TileSize=\"%d\"", t);
    cr_assert(strstr(text, want), "%s: %s", what, text);
    snprintf(want, sizeof want, "<Size Width=\"%d\" Height=\"%d\"/>", t << (p->levels - 1),
             t << (p->levels - 1));
    cr_assert(strstr(text, want), "%s: %s", what, text);
    free(text);
    snprintf(path, sizeof path, "%s/index.html", p->dir);
    text = qr_test_read_file(path, NULL);
    snprintf(want, sizeof want, "\"levels\": %d, \"tile\": %d, \"served\": false}", p->levels, t);
    cr_assert(strstr(text, want), "%s: the page does not say %s", what, want);
    cr_assert(!strstr(text, "/*QR_TILES*/"), "%s: the page kept its mark", what);
    free(text);
    cr_assert_eq(qr_test_count_temp_files(p->dir), 0);
}

static qr_tiles_params params_for(const qr_scene *s, const char *dir, int levels, int tile,
                                  qr_render_mode mode, qr_job_device dev)
{
    qr_tiles_params p;
    qr_tiles_params_init(&p);
    p.scene = s;
    p.dir = dir;
    p.levels = levels;
    p.tile_size = tile;
    p.mode = mode;
    p.device = dev;
    return p;
}

/* lanes: 0 or 1, one device; more, that many lanes on CUDA device 0 (the
 * code of several GPUs, on one) */
static void run_lanes(const qr_scene *s, const char *name, int levels, int tile, qr_render_mode mode,
                      qr_job_device dev, int by, size_t gpu_memory, int lanes)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", qr_test_tmp_dir(name));
    qr_tiles_params p = params_for(s, dir, levels, tile, mode, dev);
    p.gpu_memory = gpu_memory;
    p.ngpus = lanes;
    for (int k = 0; k < lanes; k++) p.gpus[k] = 0;
    qr_tiles_result res;
    qr_error err;
    QR_CHECK(err, qr_tiles_run(&p, &res, &err));
    int64_t want = 0;
    for (int z = 0; z < levels; z++) want += (int64_t)1 << (2 * z);
    for (int k = tile; k > 1; k /= 2) want++;
    cr_assert_eq(res.tiles, want, "%s: %lld tiles, expected %lld", name, (long long)res.tiles,
                 (long long)want);
    if (lanes > 1) cr_assert(strstr(res.where, "GPUs"), "%s: %s", name, res.where);
    check_pyramid(s, &p, by, name);
}

static void run_and_check(const qr_scene *s, const char *name, int levels, int tile,
                          qr_render_mode mode, qr_job_device dev, int by, size_t gpu_memory)
{
    run_lanes(s, name, levels, tile, mode, dev, by, gpu_memory, 0);
}

Test(tiles, cpu_fast_and_exact, .timeout = 300)
{
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_builtin("rand10k", 0, &s, &err));
    run_and_check(s, "tiles_fast", 3, 256, QR_RENDER_FAST, QR_JOB_CPU, BY_CPU_FAST, 0);
    run_and_check(s, "tiles_exact", 4, 64, QR_RENDER_EXACT, QR_JOB_CPU, BY_REFERENCE, 0);
    qr_scene_destroy(s);
}

Test(tiles, reference_without_a_background, .timeout = 300)
{
    qr_error err;
    qr_scene *s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 7, 3000);
    QR_CHECK(err, qr_scene_set_transparent(s, 1, "background", &err));
    run_and_check(s, "tiles_clear", 3, 32, QR_RENDER_EXACT, QR_JOB_CPU_REFERENCE, BY_REFERENCE, 0);
    run_and_check(s, "tiles_clear_fast", 3, 32, QR_RENDER_FAST, QR_JOB_CPU, BY_CPU_FAST, 0);
    qr_scene_destroy(s);
}

Test(tiles, gpu_whole_and_bands, .timeout = 300)
{
    QR_REQUIRE_GPU();
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_builtin("rand10k", 0, &s, &err));
    /* exact: the reference's bytes; fast: the GPU's whole image's */
    run_and_check(s, "tiles_gpu_exact", 3, 128, QR_RENDER_EXACT, QR_JOB_GPU, BY_REFERENCE, 0);
    run_and_check(s, "tiles_gpu_fast", 3, 256, QR_RENDER_FAST, QR_JOB_GPU, BY_GPU, 0);
    /* a budget the 2048^2 level does not fit whole: it renders in bands */
    run_and_check(s, "tiles_gpu_bands", 4, 256, QR_RENDER_FAST, QR_JOB_GPU, BY_GPU, (size_t)48 << 20);
    /* three lanes dealt the bands in turn (several GPUs' code, on one) */
    run_lanes(s, "tiles_gpu_lanes", 4, 128, QR_RENDER_FAST, QR_JOB_GPU, BY_GPU, (size_t)48 << 20, 3);
    qr_scene_destroy(s);
    s = qr_test_random_scene(QR_TEST_MIX_RENDERABLE, 8, 3000);
    QR_CHECK(err, qr_scene_set_transparent(s, 1, "background", &err));
    run_and_check(s, "tiles_gpu_clear", 3, 64, QR_RENDER_EXACT, QR_JOB_GPU, BY_REFERENCE, 0);
    qr_scene_destroy(s);
}

static int cancel_after_first(void *user, int64_t done, int64_t total)
{
    (void)total;
    int *calls = user;
    ++*calls;
    return done > 0;
}

/* Every folder under dir (two levels down) free of temporary files. */
static void expect_no_temps(const char *dir, int levels)
{
    char path[1024];
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
    for (int z = 0; z < levels; z++)
        for (int x = 0; x < (1 << z); x++) {
            snprintf(path, sizeof path, "%s/%d/%d", dir, z, x);
            if (qr_test_exists(path))
                cr_assert_eq(qr_test_count_temp_files(path), 0, "%s", path);
        }
}

Test(tiles, cancelled_and_failed_runs_leave_no_partial_tile)
{
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_builtin("rand10k", 0, &s, &err));
    char dir[512];
    snprintf(dir, sizeof dir, "%s", qr_test_tmp_dir("tiles_cancel"));
    qr_tiles_params p = params_for(s, dir, 4, 64, QR_RENDER_FAST, QR_JOB_CPU);
    int calls = 0;
    p.on_progress = cancel_after_first;
    p.user = &calls;
    cr_assert_eq(qr_tiles_run(&p, NULL, &err), QR_ERR_CANCELLED, "%s", err.msg);
    cr_assert_gt(calls, 1);
    expect_no_temps(dir, 4);
    cr_assert(!qr_test_exists(qr_test_join(dir, "index.html")), "a cancelled run wrote its page");
    /* a file where the pyramid's folder should be */
    const char *file = qr_test_tmp("tiles_not_a_dir");
    qr_test_write_text(file, "x");
    p = params_for(s, qr_test_join(file, "sub"), 2, 64, QR_RENDER_FAST, QR_JOB_CPU);
    cr_assert_eq(qr_tiles_run(&p, NULL, &err), QR_ERR_IO);
    cr_assert(strstr(err.msg, "tiles_not_a_dir"), "%s", err.msg);
    qr_scene_destroy(s);
}

Test(tiles, params_refused_as_the_cli_refuses_them)
{
    qr_error err;
    int32_t v;
    cr_assert_eq(qr_tiles_check_levels("--levels", "0", &v, &err), QR_ERR_INVALID);
    cr_assert_str_eq(err.msg, "--levels: expected an integer from 1 to 17, got '0'");
    cr_assert_eq(qr_tiles_check_tile_size("--tile-size", "100", &v, &err), QR_ERR_INVALID);
    cr_assert(strstr(err.msg, "a power of two from 16 to 4096"), "%s", err.msg);
    QR_CHECK(err, qr_tiles_check_tile_size("--tile-size", "512", &v, &err));
    cr_assert_eq(v, 512);
    qr_tiles_params p;
    qr_tiles_params_init(&p);
    p.scene_name = "rand10k";
    cr_assert_eq(qr_tiles_check(&p, &err), QR_ERR_INVALID); /* no directory */
    p.dir = "out";
    QR_CHECK(err, qr_tiles_check(&p, &err));
    p.tile_size = 4096, p.levels = 7; /* 262144 pixels a side */
    cr_assert_eq(qr_tiles_check(&p, &err), QR_ERR_INVALID);
    cr_assert(strstr(err.msg, "262144"), "%s", err.msg);
    p.tile_size = 48;
    p.levels = 2;
    cr_assert_eq(qr_tiles_check(&p, &err), QR_ERR_INVALID);
    p.tile_size = 256;
    p.ngpus = 2;
    p.device = QR_JOB_CPU;
    cr_assert_eq(qr_tiles_check(&p, &err), QR_ERR_INVALID);
    cr_assert(strstr(err.msg, "several GPUs"), "%s", err.msg);
}

Test(tiles, cli_writes_the_pyramid_and_keeps_the_exit_codes, .timeout = 300)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", qr_test_tmp_dir("tiles_cli"));
    cr_assert_eq(RUN("tiles", "rand10k", "-o", dir, "--levels", "2", "--tile-size", "128",
                     "--device", "cpu", "--exact"), 0, "%s", R.err);
    cr_assert(strstr(R.err, "12 tiles"), "%s", R.err); /* 1 + 4, and 7 below 128 */
    qr_error err;
    qr_scene *s;
    QR_CHECK(err, qr_scene_builtin("rand10k", 0, &s, &err));
    qr_tiles_params p = params_for(s, dir, 2, 128, QR_RENDER_EXACT, QR_JOB_CPU);
    check_pyramid(s, &p, BY_REFERENCE, "the CLI's");
    qr_scene_destroy(s);
    static const cli_usage_case cases[] = {
        {{"tiles", "rand10k", NULL}, "-o/--output"},
        {{"tiles", "-o", "x", NULL}, "SCENE"},
        {{"tiles", "rand10k", "-o", "x", "--levels", "0", NULL}, "--levels"},
        {{"tiles", "rand10k", "-o", "x", "--tile-size", "100", NULL}, "--tile-size"},
        {{"tiles", "rand10k", "-o", "x", "--tile-size=4096", "--levels=7", NULL}, "262144"},
        {{"tiles", "rand10k", "-o", "x", "--exact", "--fast", NULL}, "--exact"},
    };
    cli_expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
    cr_assert_eq(RUN("tiles", "no_such_scene.circles", "-o", dir), 3, "%s", R.err);
    /* no GPU for --device gpu (a machine without one): exit 5, no folder made */
    qr_error gerr;
    if (qr_gpu_probe(NULL, &gerr) != QR_OK) {
        const char *none = qr_test_tmp("tiles_no_gpu");
        cr_assert_eq(RUN("tiles", "rgb", "-o", none, "--device", "gpu"), 5, "%s", R.err);
        cr_assert(!qr_test_exists(none), "a run refused for want of a GPU made its folder");
    }
    const char *file = qr_test_tmp("tiles_cli_file");
    qr_test_write_text(file, "x");
    cr_assert_eq(RUN("tiles", "rand10k", "-o", qr_test_join(file, "sub"), "--levels", "1",
                     "--device", "cpu"), 4, "%s", R.err);
}

/* Files that cannot grow past 8 KB stand for a full disk: the first tile
 * larger than that fails, `tiles` exits 4 naming it, and no folder holds a
 * partial tile or a temporary file. */
Test(tiles, cli_full_disk_is_exit_4_and_leaves_no_partial_tile, .timeout = 120)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", qr_test_tmp_dir("tiles_full"));
    qr_cli_opts o = {0};
    o.file_size = 8192;
    cr_assert_eq(qr_cli_run(&o, QR_ARGS("tiles", "rand10k", "-o", dir, "--levels", "3", "--device", "cpu"), &R), 4,
                 "%s", R.err);
    cr_assert(strstr(R.err, ".png"), "the message names no tile: %s", R.err);
    expect_no_temps(dir, 3);
    char path[1024];
    for (int z = 0; z < 3; z++)
        for (int x = 0; x < (1 << z); x++)
            for (int y = 0; y < (1 << z); y++) {
                snprintf(path, sizeof path, "%s/%d/%d/%d.png", dir, z, x, y);
                if (!qr_test_exists(path)) continue;
                /* a tile that is there is whole: libpng reads all of it */
                free(read_png(path, 256, 3));
            }
}
