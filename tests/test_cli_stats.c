/* test_cli_stats.c — `quadrender stats`, run as a user runs it
 * (support/cli_run.h): the human-readable numbers of hand-worked trees,
 * the uniform grid, the JSON (checked against the library's statistics of
 * a host build), leaf pictures, option errors of stats and check, and on a
 * GPU the device's index equal to the host oracle's. */
#include <stdint.h>

#include "quadrender/index.h"
#include "quadrender/scene.h"
#include "quadrender/stats.h"
#include "json_find.h"
#include "cli_expect.h"
#include "cli_run.h"
#include "test_util.h"

Test(cli, stats_device_gpu_without_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    cr_expect_eq(RUN("stats", "rgb", "-s", "16", "--device", "gpu"), 5, "%s", R.err);
    cr_expect_eq(cli_count_lines(R.err), 1, "%s", R.err);
    cr_expect(strstr(R.err, "--device gpu") && strstr(R.err, err.msg), "%s", R.err);
    cr_expect_eq(RUN("stats", "rgb", "-s", "16"), 0, "%s", R.err);
    cr_expect(strstr(R.err, "no usable GPU (") && strstr(R.err, "building the index on the CPU"),
              "%s", R.err);
}

/* The number on the human-readable line "  LABEL   VALUE ..." ("max", not
 * "max depth": the label is followed by spaces and a number). */
static double stats_value(const char *out, const char *label)
{
    char key[64];
    snprintf(key, sizeof key, "\n  %s ", label);
    for (const char *at = strstr(out, key); at; at = strstr(at + 1, key)) {
        const char *v = at + strlen(key);
        while (*v == ' ')
            v++;
        double x;
        if ((*v == '-' || (*v >= '0' && *v <= '9')) && sscanf(v, "%lf", &x) == 1)
            return x;
    }
    cr_assert_fail("no '%s' line with a number in:\n%s", label, out);
    return 0;
}

Test(cli, stats_rgb)
{
    /* at 64 x 64 the default minimum leaf (64) makes the root the only leaf,
     * holding all three circles */
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu"), 0, "%s", R.err);
    cr_expect(strstr(R.out, "rgb (3 circles), 64x64, frame 0"), "%s", R.out);
    cr_expect_eq(stats_value(R.out, "nodes"), 1);
    cr_expect_eq(stats_value(R.out, "leaves"), 1);
    cr_expect_eq(stats_value(R.out, "max depth"), 0);
    cr_expect_eq(stats_value(R.out, "pairs"), 3);
    cr_expect_eq(stats_value(R.out, "visible"), 3);
    cr_expect_eq(stats_value(R.out, "culled"), 0);
    cr_expect_eq(stats_value(R.out, "replication"), 1);
    cr_expect(strstr(R.out, " ms"), "no build time: %s", R.out);

    /* capacity 1 splits down to 16-pixel leaves: 1 + 4 + 16 nodes. The
     * circles (x = 0.4, 0.5, 0.6; y = 0.5; r = 0.3) span pixels 6..44,
     * 12..51 and 19..57 across and 12..51 up, so the four columns of leaves
     * hold 2, 3, 3 and 2 circles in every row: 40 pairs. */
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu", "--capacity", "1",
                     "--min-leaf", "16", "--split-cost", "0"),
                 0, "%s", R.err);
    cr_expect_eq(stats_value(R.out, "nodes"), 21);
    cr_expect_eq(stats_value(R.out, "leaves"), 16);
    cr_expect_eq(stats_value(R.out, "max depth"), 2);
    cr_expect_eq(stats_value(R.out, "pairs"), 40);
    cr_expect_eq(stats_value(R.out, "min"), 2);
    cr_expect_eq(stats_value(R.out, "max"), 3);
    cr_expect_eq(stats_value(R.out, "median"), 2.5);
    /* --max-depth 1 stops at 32-pixel leaves */
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu", "--capacity", "1",
                     "--min-leaf", "16", "--max-depth", "1", "--split-cost", "0"),
                 0, "%s", R.err);
    cr_expect_eq(stats_value(R.out, "leaves"), 4);
    /* with the default split cost (5) the root does not split: each of the
     * three circles meets all four children (C = 3, C' = 12), and
     * 100 * 9 < 5 * (4 * 3 - 1 * 12) is false */
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu", "--capacity", "1",
                     "--min-leaf", "16"),
                 0, "%s", R.err);
    cr_expect(strstr(R.out, "split cost 5"), "%s", R.out);
    cr_expect_eq(stats_value(R.out, "leaves"), 1);
    cr_expect_eq(RUN("stats", "rgb", "--device", "cpu", "--split-cost", "1001"), 2);
    cr_expect(strstr(R.err, "--split-cost"), "%s", R.err);
    cr_expect_eq(RUN("stats", "rgb", "--device", "cpu", "--index", "grid", "--split-cost", "9"),
                 2);
}

/* --index grid is the uniform grid: every leaf a --tile square, whatever
 * the circles; nonsense combinations are usage errors. */
Test(cli, stats_grid)
{
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu", "--index", "grid"), 0, "%s", R.err);
    cr_expect(strstr(R.out, "uniform grid of 16 px tiles"), "%s", R.out);
    cr_expect_eq(stats_value(R.out, "leaves"), 16);
    cr_expect_eq(stats_value(R.out, "pairs"), 40); /* as capacity 1 above: every 16 px tile */
    cr_assert_eq(RUN("stats", "rgb", "-s", "100", "--device", "cpu", "--index", "grid", "--tile", "32"),
                 0, "%s", R.err);
    cr_expect_eq(stats_value(R.out, "leaves"), 16); /* 4 x 4 tiles, the last row and column clipped */
    const cli_usage_case cases[] = {
        {{"stats", "rgb", "--tile", "32", NULL}, "--tile"},
        {{"stats", "rgb", "--index", "grid", "--capacity", "8", NULL}, "--capacity"},
        {{"stats", "rgb", "--index", "grid", "--min-leaf", "32", NULL}, "--min-leaf"},
        {{"stats", "rgb", "--index", "octree", NULL}, "--index"},
        {{"render", "rgb", "--index", "grid", "--tile", "24", NULL}, "--tile"},
    };
    cli_expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
}

/* The statistics the library computes for a host build of the scene. */
static void host_stats(const char *name, int64_t frame, int size, qr_index_stats *s)
{
    qr_error err;
    qr_scene *scene = NULL;
    qr_index *ix = NULL;
    cr_assert_eq(qr_scene_builtin(name, 0, &scene, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(qr_scene_seek_frame(scene, frame, &err), QR_OK, "%s", err.msg);
    qr_index_params p;
    qr_index_params_default(&p);
    cr_assert_eq(qr_index_build_host(scene, size, size, NULL, &p, QR_RENDER_FAST, &ix, &err), QR_OK, "%s",
                 err.msg);
    cr_assert_eq(qr_index_stats_compute(ix, scene->n, s, &err), QR_OK, "%s", err.msg);
    qr_index_destroy(ix);
    qr_scene_destroy(scene);
}

Test(cli, stats_json_stdout)
{
    cr_assert_eq(RUN("stats", "rand10k", "--device", "cpu", "--json", "-"), 0, "%s", R.err);
    /* stdout is the JSON alone */
    cr_expect_eq(json_number(R.out, "schema_version"), 1);
    const char *keys[] = {"scene.name", "scene.circles", "scene.seed", "scene.frame",
                          "image.width", "image.height", "params.capacity", "params.min_leaf",
                          "params.max_depth", "device.kind", "tree.root_size", "tree.nodes",
                          "tree.leaves", "tree.max_depth", "tree.leaves_per_depth.0",
                          "tree.leaves_per_side.0.side", "circles_per_leaf.min",
                          "circles_per_leaf.mean", "circles_per_leaf.median",
                          "circles_per_leaf.p90", "circles_per_leaf.p99", "circles_per_leaf.max",
                          "circles_per_leaf.empty_leaves", "circles.visible", "circles.culled",
                          "circles.pairs", "circles.replication", "build_ms.total",
                          "build_ms.timed_builds"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        cr_expect(json_find(R.out, keys[k]), "no %s in:\n%s", keys[k], R.out);
    cr_expect_eq(strncmp(json_find(R.out, "scene.name"), "\"rand10k\"", 9), 0);
    cr_expect_eq(strncmp(json_find(R.out, "device.kind"), "\"cpu\"", 5), 0);
    cr_expect(!json_find(R.out, "device.index_bytes"), "no device memory on the CPU");
    cr_expect_eq(json_number(R.out, "scene.circles"), 10000);
    cr_expect_eq(json_number(R.out, "image.width"), 1024);

    qr_index_stats s;
    host_stats("rand10k", 0, 1024, &s);
    cr_expect_eq(json_number(R.out, "tree.leaves"), s.leaves);
    cr_expect_eq(json_number(R.out, "tree.nodes"), s.nodes);
    cr_expect_eq(json_number(R.out, "circles.pairs"), (double)s.pairs);
    cr_expect_eq(json_number(R.out, "circles.visible"), s.visible);
    cr_expect_eq(json_number(R.out, "circles_per_leaf.max"), s.max_per_leaf);
    cr_expect_eq(json_number(R.out, "circles_per_leaf.median"), s.median_per_leaf);
}

Test(cli, stats_json_file)
{
    /* an animated scene: the index is of frame 2's state (3 steps) */
    const char *json = qr_test_tmp("stats.json");
    cr_assert_eq(RUN("stats", "hypnosis", "-s", "256", "--frame", "2", "--device", "cpu",
                     "--json", json),
                 0, "%s", R.err);
    cr_expect(strstr(R.out, "hypnosis (25 circles), 256x256, frame 2"), "human output: %s",
              R.out);
    char *text = qr_test_read_file(json, NULL);
    cr_assert(text, "no %s", json);
    qr_index_stats s;
    host_stats("hypnosis", 2, 256, &s);
    cr_expect_eq(json_number(text, "circles.pairs"), (double)s.pairs);
    cr_expect_eq(json_number(text, "tree.leaves"), s.leaves);
    cr_expect_eq(json_number(text, "scene.frame"), 2);
    free(text);

    /* an unwritable JSON path fails before any work, and writes nothing */
    const char *dir = qr_test_tmp_dir("stats-out");
    cr_expect_eq(RUN("stats", "rgb", "--device", "cpu", "--json", qr_test_join(dir, "no/s.json")),
                 4, "%s", R.err);
    cr_expect(strstr(R.err, "no/s.json"), "%s", R.err);
    cr_expect_str_eq(R.out, "");
}

Test(cli, stats_picture)
{
    const char *png = qr_test_tmp("leaves.png");
    cr_assert_eq(RUN("stats", "rand10k", "-s", "64", "--device", "cpu", "--min-leaf", "16",
                     "--capacity", "100", "--picture", png),
                 0, "%s", R.err);
    int w, h;
    cli_png_size(png, &w, &h);
    cr_expect(w == 64 && h == 64, "%dx%d", w, h);

    const char *heat = qr_test_tmp("heat.png");
    cr_assert_eq(RUN("stats", "rand10k", "--width", "40", "--height", "24", "--device", "cpu",
                     "--picture", heat, "--picture-mode", "heat"),
                 0, "%s", R.err);
    cli_png_size(heat, &w, &h);
    cr_expect(w == 40 && h == 24, "%dx%d", w, h);

    /* the boundaries are drawn over the render: the picture differs from it */
    const char *ppm = qr_test_tmp("leaves.ppm"), *plain = qr_test_tmp("plain.ppm");
    cr_assert_eq(RUN("stats", "rgb", "-s", "64", "--device", "cpu", "--min-leaf", "16",
                     "--capacity", "1", "--picture", ppm),
                 0, "%s", R.err);
    cr_assert_eq(RUN("render", "rgb", "-s", "64", "--device", "cpu", "-o", plain), 0, "%s", R.err);
    cr_expect(!qr_test_same_bytes(ppm, plain));
    cli_ppm pic = cli_read_ppm(ppm);
    /* the PPM's top row first: the bottom-left pixel (0, 0) lies on the
     * boundary of the first leaf, white blended 70% towards dark red */
    const unsigned char *bl = pic.px + (size_t)(pic.h - 1) * pic.w * 3;
    cr_expect(bl[0] > bl[1] && bl[1] < 100 && bl[1] == bl[2], "bottom-left %d %d %d", bl[0], bl[1],
              bl[2]);
    cli_ppm_free(&pic);
}

Test(cli, usage_stats_and_check)
{
    const cli_usage_case cases[] = {
        {{"stats", "rgb", "--capacity", "0"}, "--capacity"},
        {{"stats", "rgb", "--capacity", "1073741825"}, "--capacity"},
        {{"stats", "rgb", "--capacity", "-1"}, "--capacity"},
        {{"stats", "rgb", "--min-leaf", "48"}, "--min-leaf"},
        {{"stats", "rgb", "--min-leaf", "2"}, "--min-leaf"},
        {{"stats", "rgb", "--deep-leaf", "3"}, "--deep-leaf"},
        {{"stats", "rgb", "--index", "grid", "--deep-leaf", "8"}, "--deep-leaf"},
        {{"stats", "rgb", "--min-leaf", "65536"}, "--min-leaf"},
        {{"stats", "rgb", "--max-depth", "16"}, "--max-depth"},
        {{"stats", "rgb", "--max-depth", "x"}, "--max-depth"},
        {{"stats", "rgb", "--device", "tpu"}, "--device"},
        {{"stats", "rgb", "--picture", "x.jpg"}, "--picture"},
        {{"stats", "rgb", "--picture-mode", "heat"}, "--picture"},
        {{"stats", "rgb", "--picture", "x.png", "--picture-mode", "hot"}, "--picture-mode"},
        {{"stats", "rgb", "-s", "64", "--width", "64"}, "-s"},
        {{"stats", "rgb", "--json"}, "--json"},
        {{"stats"}, "SCENE"},
        {{"render", "rgb", "--capacity", "0"}, "--capacity"},
        {{"render", "rgb", "--min-leaf", "100"}, "--min-leaf"},
        {{"render", "rgb", "--max-depth", "99"}, "--max-depth"},
        {{"render", "rgb", "--exact", "--fast"}, "--exact"},
        {{"render", "rgb", "--exact=1"}, "--exact"},
        {{"check", "rgb", "--capacity", "abc"}, "--capacity"},
        {{"check", "rgb", "--min-leaf", "32768x"}, "--min-leaf"},
        {{"check", "rgb", "--device", "cpu"}, "'--device'"},
        {{"check", "rgb", "extra"}, "'extra'"},
        {{"check"}, "SCENE"},
    };
    cli_expect_usage_cases(cases, sizeof cases / sizeof cases[0]);
    RUN("stats", "rgb", "--min-leaf", "48");
    cr_expect_str_eq(R.err, "quadrender: --min-leaf: expected a power of two from 4 to 32768, "
                            "got '48'\nTry 'quadrender stats --help'.\n");
}

Test(cli, gpu_stats, .timeout = 300)
{
    QR_REQUIRE_GPU();
    cr_assert_eq(RUN("stats", "rand100k", "--device", "gpu", "--json", "-"), 0, "%s", R.err);
    cr_expect_eq(strncmp(json_find(R.out, "device.kind"), "\"gpu\"", 5), 0, "%s", R.out);
    cr_expect_gt(json_number(R.out, "device.index_bytes"), 0);
    cr_expect_eq(json_number(R.out, "build_ms.timed_builds"), 10);
    cr_expect_eq(json_number(R.out, "build_ms.warmup_builds"), 3);
    const char *stages[] = {"boxes", "tree", "count", "scan", "emit", "sort", "total"};
    for (int k = 0; k < 7; k++) {
        char key[32];
        snprintf(key, sizeof key, "build_ms.%s", stages[k]);
        cr_expect_geq(json_number(R.out, key), 0, "%s", key);
    }
    /* the GPU's index is the host oracle's */
    qr_index_stats s;
    host_stats("rand100k", 0, 1024, &s);
    cr_expect_eq(json_number(R.out, "tree.leaves"), s.leaves);
    cr_expect_eq(json_number(R.out, "tree.nodes"), s.nodes);
    cr_expect_eq(json_number(R.out, "circles.pairs"), (double)s.pairs);
    cr_expect_eq(json_number(R.out, "circles.visible"), s.visible);
    cr_expect_eq(json_number(R.out, "circles_per_leaf.median"), s.median_per_leaf);

    const char *png = qr_test_tmp("gpu-leaves.png");
    cr_assert_eq(RUN("stats", "hypnosis", "-s", "128", "--frame", "5", "--picture", png), 0, "%s",
                 R.err);
    cr_expect(strstr(R.err, "building the index on the GPU ("), "%s", R.err);
    cr_expect(strstr(R.out, "median of 10 builds after 3 warm-up"), "%s", R.out);
    cr_expect(strstr(R.out, "\ndevice memory\n"), "%s", R.out);
    int w, h;
    cli_png_size(png, &w, &h);
    cr_expect(w == 128 && h == 128, "%dx%d", w, h);
}

/* --chunk: one chunk holding the whole scene has the scene's statistics;
 * more are summed (the JSON says how many); what draws one index is
 * refused. */
Test(cli, stats_in_chunks)
{
    cr_assert_eq(RUN("stats", "rand10k", "--chunk", "10000", "--json", "-"), 0, "%s", R.err);
    qr_index_stats s;
    host_stats("rand10k", 0, 1024, &s);
    cr_expect_eq(json_number(R.out, "tree.leaves"), s.leaves);
    cr_expect_eq(json_number(R.out, "tree.nodes"), s.nodes);
    cr_expect_eq(json_number(R.out, "circles.pairs"), (double)s.pairs);
    cr_expect_eq(json_number(R.out, "circles_per_leaf.p90"), s.p90_per_leaf);
    cr_expect_eq(json_number(R.out, "chunks.count"), 1);
    cr_assert_eq(RUN("stats", "rand10k", "--chunk", "3000", "--json", "-"), 0, "%s", R.err);
    cr_expect_eq(json_number(R.out, "chunks.count"), 4);
    cr_expect_eq(json_number(R.out, "chunks.circles"), 3000);
    cr_expect_eq(json_number(R.out, "circles.visible"), s.visible);
    cr_expect_eq(json_number(R.out, "build_ms.timed_builds"), 4);
    cr_expect(strstr(R.err, "(10000 circles in 4 chunks of 3000)"), "%s", R.err);
    /* a .npy read chunk by chunk: the same numbers */
    const char *npy = qr_test_tmp("stats_chunks.npy");
    cr_assert_eq(RUN("dump", "rand10k", "-o", npy), 0, "%s", R.err);
    cr_assert_eq(RUN("stats", "rand10k", "--chunk", "3000", "--json", "-"), 0, "%s", R.err);
    const double pairs = json_number(R.out, "circles.pairs");
    cr_assert_eq(RUN("stats", npy, "--chunk", "3000", "--json", "-"), 0, "%s", R.err);
    cr_expect_eq(json_number(R.out, "circles.pairs"), pairs);
    cr_expect_eq(RUN("stats", "rand10k", "--chunk", "10", "--report", qr_test_tmp("r.html")), 2,
                 "%s", R.err);
    cr_expect_eq(RUN("stats", "rand10k", "--chunk", "10", "--device", "gpu"), 2, "%s", R.err);
    cr_expect_eq(RUN("stats", npy, "--chunk", "10", "--alpha", "0.2"), 2, "%s", R.err);
    cr_expect_eq(RUN("stats", "rand10k", "--chunk", "0"), 2, "%s", R.err);
}
