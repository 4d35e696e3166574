/* test_cli_bench.c — `quadrender bench` on the command line, without a GPU:
 * bad options are usage errors, and without a GPU it says it needs one. Its
 * writers are test_bench.c's. */
#include <math.h>
#include <unistd.h>

#include "cli_run.h"
#include "files.h"
#include "json_find.h"
#include "test_util.h"

Test(bench, bad_options_are_usage_errors)
{
    const char *bad[][2] = {{"--index", "quadtree,octree"}, {"--mode", "slow"}, {"--tile", "24"},
                            {"--tile", "8"},  {"--tile", "512"}, {"--tile", "16,256,512"},
                            {"--frames", "0"}, {"--size", "0"}, {"--plot", "out.png"},
                            {"--scaling-plot", "out.png"}, {"--warmup", "x"}, {"--plan", "65"},
                            {"--plan", "-1"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        RUN("bench", "rgb", bad[i][0], bad[i][1]);
        cr_assert_eq(R.code, 2, "'bench rgb %s %s' should exit 2", bad[i][0], bad[i][1]);
        cr_assert(strstr(R.err, bad[i][0]) != NULL,
                  "'bench rgb %s %s': message does not name %s: %s", bad[i][0], bad[i][1],
                  bad[i][0], R.err);
    }
}

Test(bench, needs_a_gpu)
{
    qr_error e;
    if (qr_gpu_probe(NULL, &e) == QR_OK) cr_skip_test("this machine has a GPU");
    cr_assert_eq(RUN("bench", "rgb", "--frames", "1"), 5);
    cr_assert(strstr(R.err, "needs a GPU") != NULL, "%s", R.err);
}

/* bench --cpu without a GPU times the CPU renderers alone: one row per
 * scene, size and mode, and the fast/exact ratio. */
Test(cli, bench_cpu_without_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    cr_assert_eq(RUN("bench", "--cpu", "rgb", "rand10k", "--size", "48", "--cpu-frames", "2",
                     "--threads", "2"),
                 0, "%s", R.err);
    cr_expect(strstr(R.out, "fast CPU renderer: 2 threads"), "%s", R.out);
    cr_expect(strstr(R.out, "\nrand10k          48 exact ") && strstr(R.out, "\nrand10k          48 fast "),
              "%s", R.out);
    cr_expect(strstr(R.out, "rand10k          48 fast mode "), "%s", R.out);
    /* a missing GPU is exit 5 (the exit-code table), not a usage error */
    cr_expect_eq(RUN("bench", "--cpu", "rgb", "--csv", "x.csv"), 5, "%s", R.err);
    cr_expect(strstr(R.err, "need a GPU"), "%s", R.err);
    /* with --json, each scene's rows on the CPU: the quadtree and every grid,
     * each mode, with its index's shape */
    const char *json = qr_test_tmp("cpu_rows.json");
    cr_assert_eq(RUN("bench", "--cpu", "rgb", "rand10k", "--size", "48", "--tile", "16,32",
                     "--cpu-frames", "1", "--threads", "2", "--json", json),
                 0, "%s", R.err);
    cr_expect(strstr(R.out, "\nrand10k        48 exact grid16 "), "%s", R.out);
    char *text = qr_test_read_file(json, NULL);
    cr_assert_null(json_find(text, "results.12"));
    for (int k = 0; k < 12; k++) {
        char path[64];
        snprintf(path, sizeof path, "results.%d.leaves", k);
        const double leaves = json_number(text, path);
        snprintf(path, sizeof path, "results.%d.pairs", k);
        const double pairs = json_number(text, path);
        snprintf(path, sizeof path, "results.%d.visible", k);
        const double visible = json_number(text, path);
        cr_expect(leaves >= 1 && visible >= 1 && pairs >= visible, "row %d: %g leaves, %g pairs, %g visible",
                  k, leaves, pairs, visible);
    }
    free(text);
}

/* A scene that cannot load is exit 3 before any work, as in render, on the
 * CPU path too (it used to bench the scenes before it, then exit 1). */
Test(cli, bench_bad_scene_before_any_work)
{
    cr_expect_eq(RUN("bench", "rgb", "missing.circles", "--cpu", "--size", "16", "--cpu-frames",
                     "1"),
                 3, "%s", R.err);
    cr_expect(strstr(R.err, "missing.circles"), "%s", R.err);
    cr_expect(!strstr(R.out, "rgb"), "benched before failing: %s", R.out);
    cr_expect_eq(RUN("bench", "rgb", "snwo", "--cpu"), 3, "%s", R.err);
    cr_expect(strstr(R.err, "did you mean 'snow'"), "%s", R.err);
    cr_expect_eq(RUN("bench", "uniform:0", "--cpu"), 3, "%s", R.err);
}

/* bench --cpu --zoo without a GPU: the zoo's rows on the fast CPU renderer,
 * the zoo's table after them, and its JSON, whose lines agree with the
 * per-scene speedups beside them. */
Test(cli, bench_cpu_zoo_without_gpu, .timeout = 120)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    const char *json = qr_test_tmp("zoo_bench.json");
    cr_assert_eq(RUN("bench", "--cpu", "--zoo", "2", "--zoo-first", "22", "--size", "64", "--tile",
                     "16,32", "--cpu-frames", "1", "--threads", "2", "--json", json),
                 0, "%s", R.err);
    cr_expect(strstr(R.out, "\n## zoo scenes\nzoo:22 "), "%s", R.out);
    cr_expect(strstr(R.out, "\nzoo:23         64 exact grid32 "), "%s", R.out);
    cr_expect(strstr(R.out, "\n## zoo: the quadtree against each scene's best grid"), "%s", R.out);
    cr_expect(strstr(R.out, "\n   64 fast       2 ") && strstr(R.out, "\n   64 exact      2 "), "%s",
              R.out);
    char *text = qr_test_read_file(json, NULL);
    cr_assert_eq(json_number(text, "results.11.size"), 64);
    cr_assert_null(json_find(text, "results.12"));
    for (int line = 0; line < 2; line++) {
        char path[64];
        snprintf(path, sizeof path, "zoo.lines.%d.scenes", line);
        cr_assert_eq(json_number(text, path), 2);
        /* speedups 0 and 1 are zoo:22's fast and exact, 2 and 3 zoo:23's */
        double a = json_number(text, line ? "speedups.1.speedup" : "speedups.0.speedup");
        double b = json_number(text, line ? "speedups.3.speedup" : "speedups.2.speedup");
        snprintf(path, sizeof path, "zoo.lines.%d.min", line);
        cr_expect_float_eq(json_number(text, path), a < b ? a : b, 1e-3);
        snprintf(path, sizeof path, "zoo.lines.%d.geomean", line);
        cr_expect_float_eq(json_number(text, path), sqrt(a * b), 2e-3);
        snprintf(path, sizeof path, "zoo.lines.%d.behind", line);
        cr_expect_eq(json_number(text, path), (a < 0.98) + (b < 0.98));
        snprintf(path, sizeof path, "zoo.lines.%d.best_single_tile", line);
        const double tile = json_number(text, path);
        cr_expect(tile == 16 || tile == 32, "%g", tile);
    }
    free(text);
    /* JSON needs a GPU but for the zoo's; so do the other files */
    cr_expect_eq(RUN("bench", "--cpu", "--zoo", "1", "--csv", "x.csv"), 5, "%s", R.err);
    cr_expect_eq(RUN("bench", "--cpu", "--zoo", "0"), 2, "%s", R.err);
    cr_expect_eq(RUN("bench", "--cpu", "--zoo", "1", "--zoo-first", "x"), 2, "%s", R.err);
}

/* bench --e2e: the whole path, a table row per scene and size; a usage
 * error beside the files of the frame bench; exit 5 without a GPU. */
Test(bench, e2e_table_or_why_not, .timeout = 300)
{
    cr_expect_eq(RUN("bench", "--e2e", "rgb", "--json", "x.json"), 2, "%s", R.err);
    qr_error err;
    if (qr_gpu_probe(NULL, &err) != QR_OK) {
        cr_expect_eq(RUN("bench", "--e2e", "rgb"), 5, "%s", R.err);
        cr_expect(strstr(R.err, "bench --e2e needs a GPU"), "%s", R.err);
        return;
    }
    cr_assert_eq(RUN("bench", "--e2e", "rand10k", "rgb", "--size", "256,300"), 0, "%s", R.err);
    cr_expect(strstr(R.out, "# quadrender bench --e2e"), "%s", R.out);
    int rows = 0;
    for (const char *line = R.out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char scene[64];
        int size;
        long long circles;
        double v[10];
        if (sscanf(line, "%63s %d %lld %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", scene, &size,
                   &circles, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
                   &v[9]) == 13) {
            rows++;
            cr_expect(size == 256 || size == 300, "%s", line);
            cr_expect(v[4] > 0 && v[5] > 0 && v[7] >= v[5], "GPU, out and total times: %s", line);
        }
    }
    cr_expect_eq(rows, 4, "%s", R.out);

    /* a .npy the --memory budget cannot hold whole: drawn in chunks, its
     * stages summed over them */
    const char *npy = qr_test_tmp("e2e_u1M.npy");
    cr_assert_eq(RUN("dump", "uniform:1M", "-o", npy), 0, "%s", R.err);
    cr_assert_eq(RUN("bench", "--e2e", npy, "--size", "256", "--memory", "100M"), 0, "%s", R.err);
    cr_expect(strstr(R.out, "in chunks of"), "%s", R.out);
    const char *row = strstr(R.out, "e2e_u1M ");
    cr_assert(row, "%s", R.out);
    while (row > R.out && row[-1] != '\n') row--; /* the name is the file's, its folder's prefix too */
    row--;
    char scene[64];
    int size;
    long long circles;
    double v[10];
    cr_assert_eq(sscanf(row + 1, "%63s %d %lld %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", scene,
                        &size, &circles, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
                        &v[8], &v[9]),
                 13, "%s", row);
    cr_expect_eq(circles, 1000000);
    cr_expect(v[0] > 0 && v[2] > 0 && v[4] > 0 && v[5] > 0 && v[7] >= v[0] + v[2] + v[5],
              "load, upload, GPU, out and total: %s", row);
    unlink(npy);
}

/* The rest of the table row of (scene, size, mode, index) in out, after
 * those four columns, copied into rest; NULL if there is none. */
static const char *table_row(const char *out, const char *scene, int size, const char *mode,
                             const char *index, char *rest, size_t len)
{
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        char sc[64], md[16], ix[16];
        int sz, used = 0;
        if (sscanf(p, "%63s %d %15s %15s %n", sc, &sz, md, ix, &used) == 4 && used &&
            !strcmp(sc, scene) && sz == size && !strcmp(md, mode) && !strcmp(ix, index)) {
            const char *end = strchr(p + used, '\n');
            snprintf(rest, len, "%.*s", (int)(end ? end - (p + used) : (long)strlen(p + used)), p + used);
            return rest;
        }
    }
    return NULL;
}

/* Every power of two from 16 to 256 is a grid tile: the command line takes
 * them, and the run goes as far as this machine lets it (a GPU: a row per
 * tile; none: exit 5, not a usage error). */
Test(bench, tiles_up_to_256, .timeout = 300)
{
    const int code = RUN("bench", "rand10k", "--tile", "16,32,64,128,256", "-s", "256", "--mode",
                         "fast", "--frames", "2", "--warmup", "1");
    qr_error err;
    if (qr_gpu_probe(NULL, &err) != QR_OK) {
        cr_expect_eq(code, 5, "%s", R.err);
        return;
    }
    cr_assert_eq(code, 0, "%s", R.err);
    const char *tiles[] = {"grid16", "grid32", "grid64", "grid128", "grid256"};
    for (int i = 0; i < 5; i++) {
        char rest[256];
        double ms = 0;
        cr_expect(table_row(R.out, "rand10k", 256, "fast", tiles[i], rest, sizeof rest) &&
                      sscanf(rest, "%lf", &ms) == 1 && ms > 0,
                  "no row of %s:\n%s", tiles[i], R.out);
    }
    cr_expect(strstr(R.out, "best grid ms"), "%s", R.out);
}

/* The scaling report without a GPU: exit 5, beside --cpu too (like the
 * other files the GPU bench writes). */
Test(bench, scaling_plot_needs_a_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK) cr_skip_test("this machine has a GPU");
    cr_expect_eq(RUN("bench", "--scaling-plot", qr_test_tmp("s.svg"), "rand10k"), 5, "%s", R.err);
    cr_expect_eq(RUN("bench", "--cpu", "--scaling-plot", qr_test_tmp("s.svg"), "rand10k"), 5, "%s",
                 R.err);
    cr_expect(strstr(R.err, "--scaling-plot"), "%s", R.err);
    cr_expect_eq(RUN("bench", "--e2e", "--scaling-plot", qr_test_tmp("s.svg"), "rand10k"), 2, "%s",
                 R.err);
}

/* Scenes without FAMILY:COUNT names are each a family of their own: the
 * table lists a quadtree and a best grid row per scene and mode, the JSON
 * the same points, and the plot draws them. */
Test(bench, scaling_run_of_plain_scenes, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const char *svg = qr_test_tmp("scaling.svg"), *json = qr_test_tmp("scaling.json");
    cr_assert_eq(RUN("bench", "rand10k", "rand100k", "-s", "128", "--tile", "16,256", "--frames",
                     "2", "--warmup", "1", "--scaling-plot", svg, "--json", json),
                 0, "%s", R.err);
    const char *table = strstr(R.out, "# scaling:");
    cr_assert(table, "%s", R.out);
    int points = 0;
    for (const char *p = table; (p = strstr(p, "\nrand10")); p++) points++;
    cr_expect_eq(points, 2 * 2 * 2, "two scenes, two modes, quadtree and best grid:\n%s", table);
    char *text = qr_test_read_file(json, NULL);
    cr_expect(json_find(text, "scaling.7.frame_ms") && !json_find(text, "scaling.8"), "%s", text);
    cr_expect_eq(json_number(text, "scaling.0.circles"), 10000);
    cr_expect(json_number(text, "scaling.0.scene_bytes") > 0 && json_number(text, "scaling.0.index_bytes") > 0);
    free(text);
    text = qr_test_read_file(svg, NULL);
    cr_expect(!strncmp(text, "<svg ", 5) && strstr(text, "<polyline"), "%.200s", text);
    free(text);
}

/* With the GPU nearly full, a scaling run records the size whose image does
 * not fit as out of memory and goes on: the smaller size is measured, the
 * run exits 0. This process holds the memory; the bench runs beside it.
 * CTest runs it alone (RUN_SERIAL). */
Test(bench, scaling_run_goes_on_out_of_memory, .timeout = 300)
{
    QR_REQUIRE_GPU();
    enum { MAX_HOGS = 512 };
    qr_gpu_renderer *hog[MAX_HOGS];
    int nhog = 0;
    qr_error err;
    while (nhog < MAX_HOGS && qr_gpu_renderer_create(8192, 8192, &hog[nhog], &err) == QR_OK) nhog++;
    /* one 1 GiB image back: room for the bench's context and a small
     * image, never for a 16384 x 16384 one (4 GiB) */
    if (nhog) qr_gpu_renderer_destroy(hog[--nhog]);
    const char *svg = qr_test_tmp("oom.svg");
    const int code = RUN("bench", "rand10k", "-s", "64,16384", "--mode", "fast", "--tile", "256",
                         "--frames", "2", "--warmup", "1", "--scaling-plot", svg);
    while (nhog > 0) qr_gpu_renderer_destroy(hog[--nhog]);
    cr_assert_eq(code, 0, "%s", R.err);
    cr_expect(strstr(R.err, "recorded as out of memory"), "%s", R.err);
    char rest[256];
    double ms = 0;
    cr_expect(table_row(R.out, "rand10k", 64, "fast", "quadtree", rest, sizeof rest) &&
                  sscanf(rest, "%lf", &ms) == 1 && ms > 0,
              "%s", R.out);
    const char *idx[] = {"quadtree", "grid256"};
    for (int i = 0; i < 2; i++)
        cr_expect(table_row(R.out, "rand10k", 16384, "fast", idx[i], rest, sizeof rest) &&
                      !strcmp(rest, "out of memory"),
                  "%s", R.out);
    char *text = qr_test_read_file(svg, NULL);
    cr_expect(strstr(text, "out of memory</title>"), "no cross in the plot");
    free(text);
}

/* bench --plan: not with --e2e or --direct (usage errors, GPU or not); on a
 * GPU the quadtree rows' JSON carries their plan, whose first frame is the
 * planning plus the steady frame, and whose chosen settings are valid. */
Test(bench, plan, .timeout = 300)
{
    cr_assert_eq(RUN("bench", "rgb", "--plan", "2", "--e2e"), 2, "%s", R.err);
    cr_assert(strstr(R.err, "--plan") != NULL, "%s", R.err);
    cr_assert_eq(RUN("bench", "rgb", "--plan", "2", "--direct"), 2, "%s", R.err);
    qr_error err;
    if (qr_gpu_probe(NULL, &err) != QR_OK) cr_skip_test("needs a GPU: %s", err.msg);
    char json[64];
    snprintf(json, sizeof json, "plan_%d.json", (int)getpid());
    cr_assert_eq(RUN("bench", "zoo:3", "-s", "256", "--tile", "32", "--plan", "2", "--frames", "2",
                     "--warmup", "1", "--json", json), 0, "%s", R.err);
    cr_assert(strstr(R.out, "planned") != NULL, "%s", R.out);
    char *text = qr_test_read_file(json, NULL);
    cr_assert(text, "no %s", json);
    /* rows: the quadtree fast and exact, then grid32's */
    for (int row = 0; row < 4; row++) {
        char path[64];
        snprintf(path, sizeof path, "results.%d.plan", row);
        if (row >= 2) {
            cr_assert_null(json_find(text, path), "a grid row has a plan:\n%s", text);
            continue;
        }
        cr_assert(json_find(text, path), "row %d has no plan:\n%s", row, text);
        double v[7];
        const char *keys[] = {"planning_ms", "first_frame_ms", "base_ms", "candidates",
                              "chosen.capacity", "chosen.min_leaf", "frame_ms.median"};
        for (int k = 0; k < 7; k++) {
            snprintf(path, sizeof path, k < 6 ? "results.%d.plan.%s" : "results.%d.%s", row, keys[k]);
            v[k] = json_number(text, path);
        }
        cr_assert(v[0] > 0 && v[2] > 0 && v[3] >= 2 && v[4] >= 1 && v[5] >= 4, "row %d", row);
        cr_assert(fabs(v[1] - (v[0] + v[6])) < 0.01, "first frame %g != planning %g + frame %g", v[1],
                  v[0], v[6]);
    }
    free(text);
    remove(json);
}
