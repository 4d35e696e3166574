/* test_cli_render.c — `quadrender render`, run as a user runs it
 * (support/cli_run.h): output formats, sizes and names, scene files,
 * --device, frame sequences, bad numbers and conflicting options, failed
 * writes that leave nothing behind, and on a GPU the same images as the CPU. */
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cli_expect.h"
#include "cli_run.h"
#include "test_util.h"

Test(cli, render_rgb_ppm)
{
    const char *out = qr_test_tmp("rgb.ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "64", "-o", out), 0, "stderr: %s", R.err);
    cli_ppm ppm = cli_read_ppm(out);
    cr_expect_eq(ppm.w, 64);
    cr_expect_eq(ppm.h, 64);
    cli_ppm_free(&ppm);
    char *data = qr_test_read_file(out, NULL);
    cr_expect_eq(memcmp(data, "P6\n64 64\n255\n", 13), 0, "header: %.13s", data);
    free(data);
    /* "on the GPU" where there is one (auto) */
    cr_expect(strstr(R.err, "rgb (3 circles) 64x64 frame 0 on the "), "%s", R.err);
    cr_expect(strstr(R.err, "render "), "no stage times: %s", R.err);

    cr_assert_eq(RUN("render", "rgb", "--width", "40", "--height", "24", "-o", out), 0, "%s",
                 R.err);
    ppm = cli_read_ppm(out);
    cr_expect(ppm.w == 40 && ppm.h == 24, "%dx%d", ppm.w, ppm.h);
    cli_ppm_free(&ppm);
    cr_assert_eq(RUN("render", "rgb", "--width=16", "-o", out), 0, "%s", R.err);
    ppm = cli_read_ppm(out);
    cr_expect(ppm.w == 16 && ppm.h == 1024, "--width alone keeps the default height: %dx%d",
              ppm.w, ppm.h);
    cli_ppm_free(&ppm);
}

Test(cli, render_default_output_name)
{
    const char *dir = qr_test_tmp_dir("cwd");
    cr_assert_eq(RUN_IN(dir, "render", "rgb", "-s", "16"), 0, "stderr: %s", R.err);
    cr_expect(qr_test_exists(qr_test_join(dir, "rgb.png")), "no rgb.png in the working directory");
}

Test(cli, render_circles_file)
{
    /* one half-transparent red circle in the middle of a white image */
    const char *scene = qr_test_tmp("one.circles");
    qr_test_write_text(scene, "# a test scene\n"
                              "circles 1\n"
                              "0.5 0.5 0 0.25 1 0 0\n");
    const char *out = qr_test_tmp("one.ppm");
    cr_assert_eq(RUN("render", scene, "-s", "32", "-o", out), 0, "stderr: %s", R.err);
    cr_expect(strstr(R.err, "one (1 circles) 32x32"), "%s", R.err);
    cli_ppm ppm = cli_read_ppm(out);
    const unsigned char *centre = ppm.px + (16 * 32 + 16) * 3, *corner = ppm.px;
    cr_expect(centre[0] == 255 && centre[1] == 127 && centre[2] == 127, "centre %d %d %d",
              centre[0], centre[1], centre[2]);
    cr_expect(corner[0] == 255 && corner[1] == 255 && corner[2] == 255, "corner %d %d %d",
              corner[0], corner[1], corner[2]);
    cli_ppm_free(&ppm);
}

Test(cli, render_device)
{
    const char *out = qr_test_tmp("dev.ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--device", "cpu", "-o", out), 0, "%s", R.err);
    cr_expect(strstr(R.err, "on the CPU"), "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "auto", "-o", out), 0, "%s", R.err);
}

Test(cli, device_gpu_without_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    const char *out = qr_test_tmp("gpu.ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "--device", "gpu", "-o", out), 5, "%s", R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);
    cr_expect(strstr(R.err, "--device gpu") && strstr(R.err, err.msg), "%s", R.err);
    cr_expect(!qr_test_exists(out));
}

Test(cli, frames)
{
    const char *dir = qr_test_tmp_dir("frames");
    cr_assert_eq(RUN("render", "hypnosis", "-s", "48", "--frames", "0:2", "-o",
                     qr_test_join(dir, "hyp.ppm")),
                 0, "stderr: %s", R.err);
    const char *names[] = {"hyp_0000.ppm", "hyp_0001.ppm", "hyp_0002.ppm"};
    for (int k = 0; k < 3; k++) {
        cr_assert(qr_test_exists(qr_test_join(dir, names[k])), "%s missing", names[k]);
        char frame[8];
        snprintf(frame, sizeof frame, "%d", k);
        const char *single = qr_test_join(dir, "single.ppm");
        cr_assert_eq(RUN("render", "hypnosis", "-s", "48", "--frame", frame, "-o", single), 0,
                     "%s", R.err);
        cr_expect(qr_test_same_bytes(qr_test_join(dir, names[k]), single),
                  "%s differs from --frame %d", names[k], k);
    }
    cr_expect(!qr_test_exists(qr_test_join(dir, "hyp_0003.ppm")));
    cr_expect(!qr_test_exists(qr_test_join(dir, "hyp.ppm")));
    /* the scene does move from frame to frame */
    cr_expect(!qr_test_same_bytes(qr_test_join(dir, "hyp_0000.ppm"),
                                  qr_test_join(dir, "hyp_0001.ppm")));
}

Test(cli, render_auto_without_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    const char *out = qr_test_tmp("auto.ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--threads", "3", "-o", out), 0, "%s", R.err);
    char why[700];
    snprintf(why, sizeof why,
             "quadrender: no usable GPU (%s): rendering on the CPU (3 threads), fast mode\n",
             err.msg);
    cr_expect_eq(strncmp(R.err, why, strlen(why)), 0, "expected '%s' first, got %s", why, R.err);
    cr_expect(strstr(R.err, "rgb (3 circles) 8x8 frame 0 on the CPU (3 threads) -> "), "%s", R.err);
    /* rgb is too shallow for fast mode to stop early: it takes the exact
     * walk, and a PPM holds no alpha */
    const char *exact = qr_test_tmp("exact.ppm");
    cr_assert_eq(RUN("render", "rgb", "-s", "8", "--exact", "--capacity", "1", "-o", exact), 0,
                 "%s", R.err);
    cr_expect(qr_test_same_bytes(out, exact));
}

Test(cli, usage_bad_numbers)
{
    const cli_usage_case cases[] = {
        {{"render", "rgb", "--width", "abc"}, "--width"},
        {{"render", "rgb", "--width", "-5"}, "--width"},
        {{"render", "rgb", "--height", "0"}, "--height"},
        {{"render", "rgb", "-s", "131073"}, "-s"},
        {{"render", "rgb", "--width", "40000", "--height", "100", "--aspect", "keep"}, "-s"},
        {{"check", "rgb", "-s", "32769"}, "-s"},
        {{"stats", "rgb", "--width", "32769"}, "--width"},
        {{"render", "rgb", "-s", "64x"}, "-s"},
        {{"render", "rgb", "-s", " 64"}, "-s"},
        {{"render", "rgb", "-s", "+64"}, "-s"},
        {{"render", "rgb", "--width", ""}, "--width"},
        {{"render", "rgb", "--width", "99999999999999999999999"}, "--width"},
        {{"render", "rgb", "--seed", "-1"}, "--seed"},
        {{"render", "rgb", "--seed", "4294967296"}, "--seed"},
        {{"render", "rgb", "--seed", "1.5"}, "--seed"},
        {{"render", "rgb", "--frame", "-1"}, "--frame"},
        {{"render", "rgb", "--frame", "abc"}, "--frame"},
        {{"render", "rgb", "--frames", "5:3"}, "--frames"},
        {{"render", "rgb", "--frames", "x:y"}, "--frames"},
        {{"render", "rgb", "--frames", "3"}, "--frames"},
        {{"render", "rgb", "--frames", "1:"}, "--frames"},
        {{"render", "rgb", "--frames", ":2"}, "--frames"},
        {{"render", "rgb", "--frames", "1:2:3"}, "--frames"},
        {{"render", "rgb", "--device", "tpu"}, "--device"},
        {{"dump", "rgb", "--seed", "x", "-o", "x.circles"}, "--seed"},
    };
    cli_expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
    /* the message shows what was expected and what was given */
    RUN("render", "rgb", "--width", "abc");
    cr_expect_str_eq(R.err, "quadrender: --width: expected an integer from 1 to 131072, got 'abc'\n"
                            "Try 'quadrender render --help'.\n");
}

Test(cli, usage_conflicts)
{
    const cli_usage_case cases[] = {
        {{"render", "rgb", "-s", "64", "--width", "64"}, "-s"},
        {{"render", "rgb", "--height", "64", "-s", "64"}, "-s"},
        {{"render", "hypnosis", "--frame", "1", "--frames", "0:2"}, "--frame"},
    };
    cli_expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
}

Test(cli, malformed_scene)
{
    const char *scene = qr_test_tmp("bad.circles");
    qr_test_write_text(scene, "circles 2\n"
                      "0.5 0.5 0 0.25 1 0 0\n"
                      "0.5 oops 0 0.25 1 0 0\n");
    const char *out = qr_test_tmp("bad.ppm");
    cr_expect_eq(RUN("render", scene, "-s", "8", "-o", out), 3, "%s", R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);
    char where[1100];
    snprintf(where, sizeof where, "quadrender: %s:3:", scene);
    cr_expect_eq(strncmp(R.err, where, strlen(where)), 0, "expected '%s...', got %s", where, R.err);
    cr_expect(!qr_test_exists(out));
}

Test(cli, unwritable_output)
{
    const char *dir = qr_test_tmp_dir("unwritable");
    const char *missing = qr_test_join(dir, "no/such/dir/x.ppm");
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "-o", missing), 4, "%s", R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);
    cr_expect(strstr(R.err, missing), "%s", R.err);
    cr_expect(!qr_test_exists(qr_test_join(dir, "no")), "created a directory");
    cr_expect_eq(RUN("dump", "rgb", "-o", qr_test_join(dir, "no/x.circles")), 4, "%s", R.err);

    /* the output names an existing directory */
    const char *taken = qr_test_join(dir, "taken.ppm");
    cr_assert(mkdir(taken, 0755) == 0);
    cr_expect_eq(RUN("render", "rgb", "-s", "8", "-o", taken), 4, "%s", R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);

    /* nothing half-written left behind: only the directory made above */
    DIR *d = opendir(dir);
    cr_assert(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        cr_expect(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
                      strcmp(e->d_name, "taken.ppm") == 0,
                  "left behind: %s", e->d_name);
    closedir(d);
}

Test(cli, failed_render_keeps_existing_output)
{
    const char *out = qr_test_tmp("keep.ppm");
    qr_test_write_text(out, "precious");
    cr_expect_eq(RUN("render", "nosuchscene", "-o", out), 3);
    char *text = qr_test_read_file(out, NULL);
    cr_expect_str_eq(text, "precious");
    free(text);
}

/* Two PPMs of the same size whose bytes differ by at most `tol`. */
static void expect_ppm_close(const char *a, const char *b, int tol)
{
    cli_ppm pa = cli_read_ppm(a), pb = cli_read_ppm(b);
    cr_assert(pa.w == pb.w && pa.h == pb.h, "%s %dx%d, %s %dx%d", a, pa.w, pa.h, b, pb.w, pb.h);
    for (size_t i = 0; i < (size_t)pa.w * pa.h * 3; i++)
        cr_assert(abs((int)pa.px[i] - (int)pb.px[i]) <= tol, "%s and %s differ at byte %zu: %d %d",
                  a, b, i, pa.px[i], pb.px[i]);
    cli_ppm_free(&pa);
    cli_ppm_free(&pb);
}

Test(cli, gpu_render_matches_cpu, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const char *dir = qr_test_tmp_dir("gpu-render");
    cr_assert_eq(RUN("render", "rand10k", "--width", "300", "--height", "200", "--exact", "-o",
                     qr_test_join(dir, "g.ppm")),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "quadrender: rendering on the GPU (") && strstr(R.err, "exact mode"),
              "%s", R.err);
    cr_expect(strstr(R.err, " frame 0 on the GPU -> ") && strstr(R.err, "upload ") &&
                  strstr(R.err, "index ") && strstr(R.err, " on the GPU, download "),
              "%s", R.err);
    cr_assert_eq(RUN("render", "rand10k", "--width", "300", "--height", "200", "--reference",
                     "-o", qr_test_join(dir, "c.ppm")),
                 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(qr_test_join(dir, "g.ppm"), qr_test_join(dir, "c.ppm")), "exact GPU render differs");
    /* fast mode is within 1e-5: a byte may land one lower or higher */
    cr_assert_eq(RUN("render", "rand10k", "--width", "300", "--height", "200", "--device", "gpu",
                     "-o", qr_test_join(dir, "f.ppm")),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "fast mode"), "%s", R.err);
    expect_ppm_close(qr_test_join(dir, "f.ppm"), qr_test_join(dir, "c.ppm"), 1);

    /* a sequence stepped on the device, starting past frame 0 */
    const char *scenes[] = {"hypnosis", "fireworks", "bouncingballs"};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(RUN("render", scenes[k], "-s", "160", "--frames", "2:4", "--exact", "--device",
                         "gpu", "-o", qr_test_join(dir, "g.ppm")),
                     0, "%s", R.err);
        cr_expect(strstr(R.err, "3 frames in ") && strstr(R.err, "per frame on the GPU"), "%s",
                  R.err);
        cr_assert_eq(RUN("render", scenes[k], "-s", "160", "--frames", "2:4", "--device", "cpu",
                         "--exact", "-o", qr_test_join(dir, "c.ppm")),
                     0, "%s", R.err);
        for (int f = 2; f <= 4; f++) {
            char g[32], c[32];
            snprintf(g, sizeof g, "g_%04d.ppm", f);
            snprintf(c, sizeof c, "c_%04d.ppm", f);
            cr_expect(qr_test_same_bytes(qr_test_join(dir, g), qr_test_join(dir, c)), "%s frame %d differs", scenes[k], f);
        }
    }
}

/* The fast CPU renderer's exact mode and the reference write the same
 * file, on any thread count; --threads is checked like any option. */
Test(cli, cpu_exact_equals_reference)
{
    const char *dir = qr_test_tmp_dir("cpu-ref");
    cr_assert_eq(RUN("render", "rand10k", "--width", "120", "--height", "77", "--reference", "-o",
                     qr_test_join(dir, "r.pfm")),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "the serial reference renderer"), "%s", R.err);
    cr_assert_eq(RUN("render", "rand10k", "--width", "120", "--height", "77", "--device",
                     "cpu-reference", "-o", qr_test_join(dir, "r2.pfm")),
                 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(qr_test_join(dir, "r.pfm"), qr_test_join(dir, "r2.pfm")));
    const char *threads[] = {"1", "2", "5"};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(RUN("render", "rand10k", "--width", "120", "--height", "77", "--device", "cpu",
                         "--exact", "--threads", threads[k], "-o", qr_test_join(dir, "c.pfm")),
                     0, "%s", R.err);
        cr_expect(qr_test_same_bytes(qr_test_join(dir, "r.pfm"), qr_test_join(dir, "c.pfm")), "%s threads", threads[k]);
    }
    cr_expect_eq(RUN("render", "rgb", "--threads", "x"), 2, "%s", R.err);
    cr_expect(strstr(R.err, "--threads: expected"), "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "--threads", "1025"), 2, "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "--reference", "--fast"), 2, "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "--reference", "--device", "gpu"), 2, "%s", R.err);
    cr_expect_eq(RUN("stats", "rgb", "--help"), 0, "%s", R.err);
    cr_expect(strstr(R.out, "--threads N"), "%s", R.out);
}

/* -q leaves stderr to errors; a sequence written to a pipe (not a terminal)
 * gets its line per frame and never a progress bar's carriage returns. */
Test(cli, quiet_and_no_bar_on_pipes)
{
    const char *dir = qr_test_tmp_dir("quiet");
    cr_assert_eq(RUN("render", "rgb", "-s", "16", "-q", "-o", qr_test_join(dir, "q.ppm")), 0, "%s",
                 R.err);
    cr_expect_str_eq(R.err, "", "-q printed: %s", R.err);
    cr_expect_eq(RUN("render", "rgb", "-q", "--width", "abc"), 2);
    cr_expect(strstr(R.err, "--width"), "an error is still said under -q: '%s'", R.err);
    cr_assert_eq(RUN("render", "hypnosis", "-s", "16", "--frames", "0:5", "-o",
                     qr_test_join(dir, "h.ppm")),
                 0, "%s", R.err);
    cr_expect(!strchr(R.err, '\r'), "a progress bar on a pipe: %s", R.err);
    cr_expect(strstr(R.err, "frame 5 ") && strstr(R.err, "6 frames in "), "%s", R.err);
}

/* Images wider than a whole image may be (QR_IMAGE_MAX_DIM) render on the
 * CPU in bands: exact mode's file equals the reference's, also in bands. */
Test(cli, cpu_renders_past_32768_in_bands, .timeout = 120)
{
    const char *dir = qr_test_tmp_dir("cpu-bands");
    cr_assert_eq(RUN("render", "rgb", "--width", "40000", "--height", "6", "--exact", "--device",
                     "cpu", "-o", qr_test_join(dir, "f.ppm")),
                 0, "%s", R.err);
    cr_assert_eq(RUN("render", "rgb", "--width", "40000", "--height", "6", "--reference", "-o",
                     qr_test_join(dir, "r.ppm")),
                 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(qr_test_join(dir, "f.ppm"), qr_test_join(dir, "r.ppm")));
}

/* A --gpu-memory budget that holds no whole image renders in bands, the
 * same file; one that holds no band fails with exit 6 naming the bytes. */
Test(cli, gpu_bands_equal_the_whole_render, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const char *dir = qr_test_tmp_dir("gpu-bands");
    cr_assert_eq(RUN("render", "rand100k", "-s", "1500", "--exact", "-o", qr_test_join(dir, "w.ppm")),
                 0, "%s", R.err);
    cr_assert_eq(RUN("render", "rand100k", "-s", "1500", "--exact", "--gpu-memory", "40M", "-o",
                     qr_test_join(dir, "b.ppm")),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "in bands of "), "%s", R.err);
    cr_expect(qr_test_same_bytes(qr_test_join(dir, "w.ppm"), qr_test_join(dir, "b.ppm")));
    cr_assert_eq(RUN("render", "rand100k", "-s", "1500", "--gpu-memory", "1M", "-o",
                     qr_test_join(dir, "n.ppm")),
                 6, "%s", R.err);
    cr_expect(strstr(R.err, "needs at least"), "%s", R.err);
    cr_expect(!qr_test_exists(qr_test_join(dir, "n.ppm")));
}

/* A GPU sequence's files, written by the frame pool while later frames
 * render, equal the files of the frames rendered one at a time. */
Test(cli, gpu_sequence_files_equal_single_frames, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const char *dir = qr_test_tmp_dir("gpu-seq");
    cr_assert_eq(RUN("render", "hypnosis", "--frames", "0:11", "-s", "96", "-o",
                     qr_test_join(dir, "h.png")),
                 0, "%s", R.err);
    for (int k = 0; k < 12; k++) {
        char frame[16], name[32], seq[4096];
        snprintf(frame, sizeof frame, "%d", k);
        snprintf(name, sizeof name, "h_%04d.png", k);
        snprintf(seq, sizeof seq, "%s", qr_test_join(dir, name));
        cr_assert_eq(RUN("render", "hypnosis", "--frame", frame, "-s", "96", "-o",
                         qr_test_join(dir, "one.png")),
                     0, "%s", R.err);
        cr_expect(qr_test_same_bytes(seq, qr_test_join(dir, "one.png")), "frame %d differs", k);
    }
    cr_expect_eq(qr_test_count_temp_files(dir), 0);
}

/* --plan N: out of range is a usage error; a GPU sequence plans before its
 * first frame, says what it chose, and writes the bytes the same run writes
 * without it (exact mode); elsewhere it is ignored. */
Test(cli, render_plan, .timeout = 300)
{
    cr_assert_eq(RUN("render", "rgb", "--plan", "65"), 2, "%s", R.err);
    cr_assert(strstr(R.err, "--plan") != NULL, "%s", R.err);
    const char *dir = qr_test_tmp_dir("plan");
    qr_error err;
    const bool gpu = qr_gpu_probe(NULL, &err) == QR_OK;
    cr_assert_eq(RUN("render", "hypnosis", "-s", "96", "--exact", "--frames", "0:2", "-o",
                     qr_test_join(dir, "a.ppm")), 0, "%s", R.err);
    cr_assert_eq(RUN("render", "hypnosis", "-s", "96", "--exact", "--frames", "0:2", "--plan", "2",
                     "-o", qr_test_join(dir, "b.ppm")), 0, "%s", R.err);
    cr_expect_eq(strstr(R.err, "plan:") != NULL, gpu, "plan line %s on the %s: %s",
                 gpu ? "missing" : "printed", gpu ? "GPU" : "CPU", R.err);
    for (int k = 0; k < 3; k++) {
        char a[32], b[32];
        snprintf(a, sizeof a, "a_%04d.ppm", k);
        snprintf(b, sizeof b, "b_%04d.ppm", k);
        char *pa = strdup(qr_test_join(dir, a));
        cr_expect(qr_test_same_bytes(pa, qr_test_join(dir, b)), "frame %d differs with --plan", k);
        free(pa);
    }
}

/* --deflate portable writes the same bytes wherever the PNG is encoded:
 * on the GPU, whole or in bands (--gpu-memory), and on the host from the
 * CPU's render (exact mode: the same pixels); zlib's file decodes to them
 * too. Without a GPU, the CPU and the host encoder alone. */
Test(cli_render, deflate_portable_bytes_do_not_depend_on_where, .timeout = 300)
{
    const char *dir = qr_test_tmp_dir("deflate");
    char cpu[1024], gpu[1024], bands[1024];
    snprintf(cpu, sizeof cpu, "%s", qr_test_join(dir, "cpu.png"));
    snprintf(gpu, sizeof gpu, "%s", qr_test_join(dir, "gpu.png"));
    snprintf(bands, sizeof bands, "%s", qr_test_join(dir, "bands.png"));
    cr_assert_eq(RUN("render", "rand10k", "-s", "1500", "--exact", "--device", "cpu", "--deflate",
                     "portable", "-o", cpu),
                 0, "%s", R.err);
    cr_assert_eq(RUN("render", "rand10k", "-s", "1500", "--exact", "--device", "cpu", "--deflate",
                     "portable", "--threads", "1", "-o", gpu),
                 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(cpu, gpu), "the portable encoder's bytes depend on the threads");
    cr_expect_eq(RUN("render", "rgb", "-s", "64", "--deflate", "portable", "--png-level", "5", "-o",
                     gpu),
                 2, "a level with the portable encoder: %s", R.err);
    cr_expect_eq(RUN("render", "rgb", "-s", "64", "--deflate", "gzip", "-o", gpu), 2, "%s", R.err);
    QR_REQUIRE_GPU();
    cr_assert_eq(RUN("render", "rand10k", "-s", "1500", "--exact", "--device", "gpu", "--deflate",
                     "portable", "-o", gpu),
                 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(cpu, gpu), "the GPU's PNG differs from the host's");
    cr_assert_eq(RUN("render", "rand10k", "-s", "1500", "--exact", "--device", "gpu", "--deflate",
                     "portable", "--gpu-memory", "30M", "-o", bands),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "in bands of "), "%s", R.err);
    cr_expect(qr_test_same_bytes(cpu, bands), "the GPU's PNG in bands differs from the host's");
}

/* ---- --chunk: a scene drawn in depth-ordered chunks ------------------------------------ */

/* Writes radius -1 into row `row` of a float32 .npy (its header 128 bytes). */
static void negative_radius_at(const char *npy, long row)
{
    FILE *f = fopen(npy, "r+b");
    cr_assert_not_null(f);
    const float neg = -1.0f;
    cr_assert_eq(fseek(f, 128 + row * 28 + 12, SEEK_SET), 0);
    cr_assert_eq(fwrite(&neg, 4, 1, f), 1);
    cr_assert_eq(fclose(f), 0);
}

/* A .npy read chunk by chunk, and a built-in cut into chunks, give the
 * files of the whole scene (exact mode: the same bytes; a PPM to compare
 * pixels alone); a bad row far into the file is found mid-stream: exit 3,
 * nothing written; the options it cannot take are usage errors. */
Test(cli, render_in_chunks, .timeout = 120)
{
    const char *dir = qr_test_tmp_dir("chunks");
    char npy[1024], a[1024], b[1024];
    snprintf(npy, sizeof npy, "%s/r.npy", dir);
    snprintf(a, sizeof a, "%s/a.ppm", dir);
    snprintf(b, sizeof b, "%s/b.ppm", dir);
    cr_assert_eq(RUN("dump", "rand100k", "-o", npy), 0, "%s", R.err);
    cr_assert_eq(RUN("render", npy, "-s", "160", "--exact", "--device", "cpu", "-o", a), 0, "%s",
                 R.err);
    cr_assert_eq(RUN("render", npy, "-s", "160", "--exact", "--chunk", "30000", "--device", "cpu",
                     "-o", b), 0, "%s", R.err);
    cr_expect(strstr(R.err, "(100000 circles in chunks of 30000)"), "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b), "a .npy in chunks differs from the whole scene");
    cr_assert_eq(RUN("render", npy, "-s", "160", "--device", "cpu", "-o", a), 0, "%s", R.err);
    cr_assert_eq(RUN("render", npy, "-s", "160", "--chunk", "30000", "--device", "cpu", "-o", b), 0,
                 "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b), "fast mode in chunks differs from the whole scene");
    /* the picture's options go with every chunk: three circles, one a chunk */
    char rgb[1024];
    snprintf(rgb, sizeof rgb, "%s/rgb.npy", dir);
    cr_assert_eq(RUN("dump", "rgb", "-o", rgb), 0, "%s", R.err);
    cr_assert_eq(RUN("render", rgb, "-s", "64", "--chunk", "1", "--background", "#336699",
                     "--antialias", "--device", "cpu", "-o", b), 0, "%s", R.err);
    cr_assert_eq(RUN("render", rgb, "-s", "64", "--device", "cpu", "--background", "#336699",
                     "--antialias", "-o", a), 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b), "the picture's options in chunks differ");
    cr_assert_eq(RUN("render", rgb, "-s", "64", "--chunk", "1", "--device", "cpu", "-o", b), 0,
                 "%s", R.err);
    cr_expect(!qr_test_same_bytes(a, b), "the background made no difference");
    cr_assert_eq(RUN("render", "snow", "--frame", "2", "-s", "160", "--exact", "--chunk", "999",
                     "--device", "cpu", "-o", b), 0, "%s", R.err);
    cr_assert_eq(RUN("render", "snow", "--frame", "2", "-s", "160", "--exact", "--device", "cpu",
                     "-o", a), 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b), "snow in chunks differs from the whole scene");

    /* a file the --memory budget cannot hold whole is drawn in chunks unasked */
    char big[1024];
    snprintf(big, sizeof big, "%s/u.npy", dir);
    cr_assert_eq(RUN("dump", "uniform:1M", "-o", big), 0, "%s", R.err);
    cr_assert_eq(RUN("render", big, "-s", "128", "--exact", "--device", "cpu", "-o", a), 0, "%s",
                 R.err);
    cr_expect(!strstr(R.err, "in chunks of"), "%s", R.err);
    cr_assert_eq(RUN("render", big, "-s", "128", "--exact", "--memory", "100M", "-o", b), 0, "%s",
                 R.err);
    cr_expect(strstr(R.err, "cannot be held whole in this process's memory: drawn in chunks of"),
              "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b), "the budget's chunks differ from the whole scene");

    /* a negative radius at row 90001: after three chunks were drawn */
    negative_radius_at(npy, 90001);
    char out[1024];
    snprintf(out, sizeof out, "%s/bad.png", dir);
    cr_expect_eq(RUN("render", npy, "-s", "160", "--chunk", "30000", "-o", out), 3, "%s", R.err);
    cr_expect(strstr(R.err, "row 90001: negative radius -1"), "%s", R.err);
    cr_expect_eq(qr_test_count_temp_files(dir), 0);
    struct stat sb;
    cr_expect_neq(stat(out, &sb), 0, "a partial file was left");

    cr_expect_eq(RUN("render", npy, "--chunk", "0", "-o", out), 2, "%s", R.err);
    cr_expect_eq(RUN("render", npy, "--chunk", "x", "-o", out), 2, "%s", R.err);
    cr_expect_eq(RUN("render", npy, "--chunk", "10", "--gpus", "0,1", "-o", out), 2, "%s", R.err);
    cr_expect_eq(RUN("render", npy, "--chunk", "10", "--alpha", "0.3", "-o", out), 2, "%s", R.err);
    cr_expect(strstr(R.err, "need its circles whole"), "%s", R.err);
    cr_expect_eq(RUN("render", npy, "--chunk", "10", "-s", "40000", "-o", out), 2, "%s", R.err);
}

/* Chunks on the GPU: a .npy read chunk by chunk and a built-in cut into
 * chunks give the whole scene's files there (exact mode; fast mode on a
 * scene held whole; a file's fast chunks take exact mode's walk, so exact
 * mode's pixels), with the picture's options; -v says where the time went;
 * a --gpu-memory budget that cannot hold the scene draws it in chunks
 * unasked, the same bytes; one circle that cannot fit is exit 6, nothing
 * written. */
Test(cli, render_in_chunks_on_the_gpu, .timeout = 300)
{
    qr_error why;
    if (qr_gpu_probe(NULL, &why) != QR_OK)
        cr_skip_test("needs a GPU: %s", why.msg);
    const char *dir = qr_test_tmp_dir("gpu_chunks");
    char npy[1024], a[1024], b[1024];
    snprintf(npy, sizeof npy, "%s/r.npy", dir);
    snprintf(a, sizeof a, "%s/a.ppm", dir);
    snprintf(b, sizeof b, "%s/b.ppm", dir);
    cr_assert_eq(RUN("dump", "rand100k", "-o", npy), 0, "%s", R.err);
    cr_assert_eq(RUN("render", npy, "-s", "300", "--exact", "--device", "gpu", "-o", a), 0, "%s",
                 R.err);
    for (int m = 0; m < 2; m++) {
        cr_assert_eq(RUN("render", npy, "-s", "300", m ? "--fast" : "--exact", "--chunk", "30000",
                         "--device", "gpu", "-v", "-o", b),
                     0, "%s", R.err);
        cr_expect(strstr(R.err, "in chunks of 30000) 300x300 frame 0 on the GPU"), "%s", R.err);
        cr_expect(strstr(R.err, "read ") && strstr(R.err, "upload ") && strstr(R.err, "waited"),
                  "%s", R.err);
        cr_expect(qr_test_same_bytes(a, b), "a .npy in chunks on the GPU, %s mode",
                  m ? "fast" : "exact");
    }
    const char *scenes[] = {"snow", "rand100k"};
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(RUN("render", scenes[k], "--frame", "2", "-s", "300", "--device", "gpu", "-o",
                         a), 0, "%s", R.err);
        cr_assert_eq(RUN("render", scenes[k], "--frame", "2", "-s", "300", "--device", "gpu",
                         "--chunk", "7000", "-o", b), 0, "%s", R.err);
        cr_expect(qr_test_same_bytes(a, b), "%s in chunks on the GPU, fast mode", scenes[k]);
    }
    char rgb[1024];
    snprintf(rgb, sizeof rgb, "%s/rgb.npy", dir);
    cr_assert_eq(RUN("dump", "rgb", "-o", rgb), 0, "%s", R.err);
    cr_assert_eq(RUN("render", rgb, "-s", "64", "--exact", "--chunk", "1", "--background",
                     "#336699", "--antialias", "--device", "gpu", "-o", b), 0, "%s", R.err);
    cr_assert_eq(RUN("render", rgb, "-s", "64", "--exact", "--background", "#336699",
                     "--antialias", "--device", "gpu", "-o", a), 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b), "the picture's options in chunks on the GPU differ");

    /* a file's parts within a budget that halves them */
    cr_assert_eq(RUN("render", npy, "-s", "300", "--exact", "--device", "gpu", "-o", a), 0, "%s",
                 R.err);
    cr_assert_eq(RUN("render", npy, "-s", "300", "--exact", "--chunk", "60000", "--device", "gpu",
                     "--gpu-memory", "6M", "-o", b), 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b), "a file's chunks within a budget on the GPU differ");

    /* a budget the scene does not fit: chunks unasked, the same bytes */
    cr_assert_eq(RUN("render", "rand1M", "-s", "512", "--device", "gpu", "-o", a), 0, "%s", R.err);
    cr_assert_eq(RUN("render", "rand1M", "-s", "512", "--device", "gpu", "--gpu-memory", "40M",
                     "-o", b), 0, "%s", R.err);
    cr_expect(strstr(R.err, "(1000000 circles in chunks of"), "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b), "the budget's chunks differ from the whole scene");
    char out[1024];
    snprintf(out, sizeof out, "%s/none.png", dir);
    cr_expect_eq(RUN("render", "rand1M", "-s", "512", "--device", "gpu", "--chunk", "100",
                     "--gpu-memory", "4097K", "-o", out), 6, "%s", R.err);
    cr_expect(strstr(R.err, "alone does not fit"), "%s", R.err);
    struct stat sb;
    cr_expect_neq(stat(out, &sb), 0, "a partial file was left");

    /* a negative radius at row 90001, found on the GPU's side of the read:
     * the file's row named, exit 3, nothing written */
    negative_radius_at(npy, 90001);
    cr_expect_eq(RUN("render", npy, "-s", "160", "--chunk", "30000", "--device", "gpu", "-o", out),
                 3, "%s", R.err);
    cr_expect(strstr(R.err, "row 90001: negative radius -1"), "%s", R.err);
    cr_expect_neq(stat(out, &sb), 0, "a partial file was left");
    cr_expect_eq(qr_test_count_temp_files(dir), 0);
}
