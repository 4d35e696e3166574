/* test_cli_bench.c — `quadrender bench` on the command line, without a GPU:
 * bad options are usage errors, and without a GPU it says it needs one. Its
 * writers are test_bench.c's. */
#include "cli_run.h"
#include "test_util.h"

Test(bench, bad_options_are_usage_errors)
{
    const char *bad[][2] = {{"--index", "quadtree,octree"}, {"--mode", "slow"}, {"--tile", "24"},
                            {"--tile", "8"},  {"--frames", "0"}, {"--size", "0"},
                            {"--plot", "out.png"}, {"--warmup", "x"}};
    for (int i = 0; i < 8; i++) {
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
    cr_expect_eq(RUN("bench", "--cpu", "rgb", "--json", "x.json"), 2, "%s", R.err);
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
}
