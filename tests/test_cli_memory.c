/* test_cli_memory.c — memory checked before it is spent (#37 item 1), run
 * as a user runs the binary ($QR_CLI): under address-space limits, every
 * command (bench and query on the CPU) on the large-circle scenes ends in success or in exit 6 with a
 * message saying memory ran out, never in a signal, and leaves no temporary
 * file; work done in bands of rows (the CPU's streamed render, the stats
 * picture) makes its bands smaller under a small limit instead of failing,
 * and writes the same bytes as without one.
 */
#include <stdio.h>
#include <string.h>

#include "cli_run.h"
#include "quadrender/scene.h"
#include "random_scene.h"
#include "test_util.h"

/* Runs args under a limit of mb MiB of address space into R: 0, or 6
 * with a message about memory, and no temporary file left in dir. Returns R.code, or -1
 * when the limit is too small for the program to start at all (exec, the
 * loader or the C runtime fail before main, which never speaks as
 * quadrender). */
static int run_limited(unsigned mb, const char *dir, const char *const *args)
{
    qr_cli_run(&(qr_cli_opts){.address_space = (size_t)mb << 20}, args, &R);
    /* the loader's own failure names the program's path: it says so, and
     * exits 127 (a build linked with MPI maps more libraries) */
    if (R.code != 0 && R.code != 6 &&
        (!strstr(R.err, "quadrender:") || strstr(R.err, "error while loading shared libraries")))
        return -1;
    cr_assert(R.code == 0 || R.code == 6, "%s under %u MiB: exit %d (a signal when > 128): %s",
              args[0], mb, R.code, R.err);
    if (R.code == 6)
        cr_assert(strstr(R.err, "memory"), "%s under %u MiB: exit 6 without saying why: %s",
                  args[0], mb, R.err);
    cr_assert_eq(qr_test_count_temp_files(dir), 0, "%s under %u MiB left a temporary file",
                 args[0], mb);
    return R.code;
}

/* n points over the square as a float32 (n, 2) .npy, for query. */
static void write_points(const char *path, int n)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f, "%s", path);
    char head[128];
    int len = snprintf(head, sizeof head, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 2), }", n);
    while ((10 + len + 1) % 64) head[len++] = ' ';
    head[len++] = '\n';
    const unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 255),
                                   (unsigned char)(len >> 8)};
    fwrite(pre, 1, 10, f);
    fwrite(head, 1, (size_t)len, f);
    for (int i = 0; i < 2 * n; i++) {
        const float v = (float)((i * 7919) % 10007) / 10007.0f;
        fwrite(&v, 4, 1, f);
    }
    cr_assert_eq(fclose(f), 0);
}

/* Every command on one large-circle scene, as .npy, under limits from
 * small to ample: render and stats (with its picture) at 4096², check
 * (which runs the serial reference, every circle on every pixel) at 64²,
 * dump. The last limit lets each succeed. */
static void every_command(const char *name, int32_t big, float rmin, float rmax, int32_t small)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer's shadow memory does not fit under an address-space limit");
#endif
    const char *dir = qr_test_tmp_dir(name);
    char scene[1024], png[1024], pic[1024], npy[1024], pts[1024], npy_q[1024];
    snprintf(scene, sizeof scene, "%s/scene.npy", qr_test_tmp(name));
    snprintf(png, sizeof png, "%s/render.png", dir);
    snprintf(pic, sizeof pic, "%s/picture.png", dir);
    snprintf(npy, sizeof npy, "%s/dump.npy", dir);
    snprintf(pts, sizeof pts, "%s/points.npy", qr_test_tmp(name));
    snprintf(npy_q, sizeof npy_q, "%s/counts.npy", dir);
    qr_scene *s = qr_test_large_circles(big, rmin, rmax, small, 7);
    qr_error err;
    cr_assert_eq(qr_scene_write_npy(s, scene, &err), QR_OK, "%s", err.msg);
    qr_scene_destroy(s);
    write_points(pts, 2000);

    static const unsigned limits_mb[] = {24, 48, 128, 256, 2048};
    const char *const *cmds[] = {
        QR_ARGS("render", scene, "-s", "4096", "--device", "cpu", "-q", "-o", png),
        QR_ARGS("stats", scene, "-s", "4096", "--device", "cpu", "-q", "--picture", pic),
        QR_ARGS("check", scene, "-s", "64", "-q"),
        QR_ARGS("dump", scene, "-q", "-o", npy),
        /* bench on the CPU (GPUs hidden below: CUDA's own start needs more
         * address space than the smaller limits give) */
        QR_ARGS("bench", scene, "--cpu", "-s", "256", "--cpu-frames", "1", "-q"),
        QR_ARGS("query", scene, "--points", pts, "--mode", "count", "--device", "cpu", "-q", "-o", npy_q),
    };
    /* what the GPU would render is hidden from every command here: the
     * CPU paths are the ones the limits test */
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        int rc = -1;
        for (size_t k = 0; k < sizeof limits_mb / sizeof limits_mb[0]; k++)
            rc = run_limited(limits_mb[k], dir, cmds[c]);
        cr_assert_eq(rc, 0, "%s %s: exit %d under the largest limit: %s", cmds[c][0], name, rc,
                     R.err);
    }
    unsetenv("CUDA_VISIBLE_DEVICES");
}

Test(cli_memory, radius_two, .timeout = 600)
{
    every_command("mem-r2", 100000, 2.0f, 2.0f, 0);
}

Test(cli_memory, radius_tenths, .timeout = 600)
{
    every_command("mem-r36", 100000, 0.3f, 0.6f, 0);
}

Test(cli_memory, large_and_small, .timeout = 600)
{
    every_command("mem-mix", 12000, 0.3f, 0.6f, 30000);
}

/* ---- bands that shrink with the budget ------------------------------------------------ */

/* args, with "OUT" standing for the output path, run without a limit into
 * dir/free.EXT and under mb MiB into dir/limited.EXT: both succeed, with
 * the same bytes. A 256 MiB band (what a band of float rows held before)
 * does not fit under the limit. The commands name their threads (2): each
 * thread's stack and each PNG encoder's buffers take address space too, so
 * a machine of many cores needs more than the limit here (there the run
 * ends in exit 6, which every_command's limits allow). */
static void same_under_limit(const char *name, const char *ext, unsigned mb,
                             const char *const *args)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer's shadow memory does not fit under an address-space limit");
#endif
    const char *dir = qr_test_tmp_dir(name);
    char out[2][1024];
    snprintf(out[0], sizeof out[0], "%s/free.%s", dir, ext);
    snprintf(out[1], sizeof out[1], "%s/limited.%s", dir, ext);
    for (int k = 0; k < 2; k++) {
        const char *a[32];
        size_t n = 0;
        for (; args[n]; n++)
            a[n] = strcmp(args[n], "OUT") == 0 ? out[k] : args[n];
        a[n] = NULL;
        qr_cli_run(&(qr_cli_opts){.address_space = k ? (size_t)mb << 20 : 0}, a, &R);
        cr_assert_eq(R.code, 0, "%s %s: exit %d: %s", k ? "limited" : "unlimited", args[0], R.code,
                     R.err);
    }
    cr_assert(qr_test_same_bytes(out[0], out[1]), "%s: the files differ", name);
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
}

/* The CPU's streamed render of rows 65536 pixels wide (1 MiB of floats a
 * row): its bands used to be 256 MiB whatever the budget, exit 6 under a
 * limit the image's bands fit in. */
Test(cli_memory, cpu_render_bands_fit_the_budget, .timeout = 300)
{
    same_under_limit("mem-render", "png", 200,
                     QR_ARGS("render", "rand10k", "--width", "65536", "--height", "512",
                             "--device", "cpu", "--threads", "2", "-q", "-o", "OUT"));
    same_under_limit("mem-render-pfm", "pfm", 200,
                     QR_ARGS("render", "rgb", "--width", "65536", "--height", "300",
                             "--device", "cpu-reference", "--threads", "2", "-q", "-o", "OUT"));
}

/* stats --picture of a 32768 x 512 image (256 MiB of float pixels whole):
 * drawn in bands when the whole does not fit, in both picture modes. */
Test(cli_memory, stats_picture_in_bands, .timeout = 300)
{
    same_under_limit("mem-picture", "png", 200,
                     QR_ARGS("stats", "rand10k", "--width", "32768", "--height", "512",
                             "--device", "cpu", "--threads", "2", "-q", "--picture", "OUT"));
    same_under_limit("mem-heat", "ppm", 200,
                     QR_ARGS("stats", "rand10k", "--width", "32768", "--height", "512",
                             "--device", "cpu", "--threads", "2", "-q", "--picture-mode", "heat",
                             "--picture", "OUT"));
}

/* --memory SIZE: a budget the command keeps to as under a smaller machine:
 * the CPU's streamed render takes smaller bands (same bytes), and an index
 * that cannot fit is refused with exit 6 naming the bytes; a bad size is
 * a usage error. */
Test(cli_memory, memory_option_budget, .timeout = 300)
{
    const char *dir = qr_test_tmp_dir("mem-budget");
    char free_png[1024], kept_png[1024];
    snprintf(free_png, sizeof free_png, "%s/free.png", dir);
    snprintf(kept_png, sizeof kept_png, "%s/kept.png", dir);
    cr_assert_eq(RUN("render", "rand10k", "--width", "65536", "--height", "256", "--device", "cpu",
                     "--threads", "2", "-q", "-o", free_png), 0, "%s", R.err);
    cr_assert_eq(RUN("render", "rand10k", "--width", "65536", "--height", "256", "--device", "cpu",
                     "--threads", "2", "--memory", "120M", "-q", "-o", kept_png), 0, "%s", R.err);
    cr_assert(qr_test_same_bytes(free_png, kept_png), "the budget changed the bytes");
    cr_assert_eq(RUN("stats", "rand1M", "--device", "cpu", "--memory", "20M", "-q"), 6, "%s", R.err);
    cr_assert(strstr(R.err, "needs") && strstr(R.err, "bytes"), "%s", R.err);
    cr_assert_eq(RUN("stats", "rgb", "--memory", "lots"), 2, "%s", R.err);
    cr_assert(strstr(R.err, "--memory"), "%s", R.err);
}
