/* test_bench.c — `quadrender bench` without a GPU: its writers (table, JSON,
 * CSV, SVG) on made-up rows, and its command line through the binary. */
#include "test_util.h"

#include <sys/wait.h>

#include "cli/bench.h"

static bench_row make_row(const char *scene, int tile, int exact, double ms)
{
    bench_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.scene, sizeof r.scene, "%s", scene);
    r.size = 1024;
    r.exact = exact;
    r.grid_tile = tile;
    r.frames = 20;
    r.frame.median = ms;
    r.frame.min = ms * 0.9;
    r.frame.max = ms * 1.2;
    r.frame.p25 = ms * 0.95;
    r.frame.p75 = ms * 1.05;
    r.build = r.frame;
    for (int k = 0; k < BENCH_NSTAGES; k++) r.stage[k] = ms / BENCH_NSTAGES;
    r.leaves = tile ? 4096 : 256;
    r.pairs = tile ? 6000000 : 1800000;
    r.visible = 1000000;
    r.device_bytes = 70u << 20;
    r.cpu_ms = -1;
    return r;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

Test(bench, speedup_is_against_the_best_grid_tile)
{
    bench_row rows[] = {make_row("rand1M", 0, 0, 0.2), make_row("rand1M", 16, 0, 0.6),
                        make_row("rand1M", 32, 0, 0.3), make_row("rand1M", 64, 0, 0.5)};
    const char *path = qr_test_tmp("speedup.txt");
    FILE *f = fopen(path, "w");
    bench_print_speedups(f, rows, 4);
    fclose(f);
    char *text = slurp(path);
    cr_assert(strstr(text, "1.50x") != NULL, "speedup 0.3/0.2 missing:\n%s", text);
    cr_assert(strstr(text, " 32 ") != NULL, "best tile 32 missing:\n%s", text);
}

Test(bench, csv_has_a_header_and_a_line_per_row)
{
    bench_row rows[] = {make_row("micro2M", 0, 1, 0.8), make_row("micro2M", 32, 1, 0.6)};
    qr_error err;
    const char *path = qr_test_tmp("bench.csv");
    cr_assert_eq(bench_write_csv(path, rows, 2, &err), QR_OK, "%s", err.msg);
    char *text = slurp(path);
    cr_assert(!strncmp(text, "scene,size,mode,index,frames,frame_median_ms", 44), "%s", text);
    cr_assert(strstr(text, "\nmicro2M,1024,exact,quadtree,20,0.800000,") != NULL, "%s", text);
    cr_assert(strstr(text, "\nmicro2M,1024,exact,grid32,20,0.600000,") != NULL, "%s", text);
    int lines = 0;
    for (char *p = text; *p; p++) lines += *p == '\n';
    cr_assert_eq(lines, 3);
}

Test(bench, json_is_balanced_and_versioned)
{
    bench_row rows[] = {make_row("rgb", 0, 0, 0.1), make_row("rgb", 16, 0, 0.2)};
    rows[0].cpu_ms = 12.5;
    qr_error err;
    const char *path = qr_test_tmp("bench.json");
    cr_assert_eq(bench_write_json(path, "{\"gpu\": \"test\"}", rows, 2, &err), QR_OK, "%s", err.msg);
    char *text = slurp(path);
    int depth = 0, square = 0;
    for (char *p = text; *p; p++) {
        depth += (*p == '{') - (*p == '}');
        square += (*p == '[') - (*p == ']');
        cr_assert(depth >= 0 && square >= 0);
    }
    cr_assert(depth == 0 && square == 0, "unbalanced JSON:\n%s", text);
    cr_assert(strstr(text, "\"schema_version\": 1") != NULL);
    cr_assert(strstr(text, "\"index\": \"grid16\"") != NULL);
    cr_assert(strstr(text, "\"cpu_ms\": 12.500") != NULL);
    cr_assert(strstr(text, "\"replication\": 1.8000") != NULL, "%s", text);
}

Test(bench, svg_draws_a_bar_segment_per_stage)
{
    bench_row rows[] = {make_row("rand10k", 0, 0, 0.2), make_row("rand10k", 64, 0, 0.3),
                        make_row("biglittle", 0, 0, 0.25), make_row("biglittle", 64, 0, 0.5)};
    qr_error err;
    const char *path = qr_test_tmp("bench.svg");
    cr_assert_eq(bench_write_svg(path, "test", rows, 4, &err), QR_OK, "%s", err.msg);
    char *text = slurp(path);
    cr_assert(!strncmp(text, "<svg ", 5));
    cr_assert(strstr(text, "</svg>\n") != NULL);
    int bars = 0;
    for (char *p = text; (p = strstr(p, "<title>")); p++) bars++;
    cr_assert_eq(bars, 4 * BENCH_NSTAGES, "one segment per stage and row, got %d", bars);
    cr_assert(strstr(text, ">biglittle<") && strstr(text, ">rand10k<"));
}

/* Runs the CLI; returns its exit code, stderr in *errtext. */
static int run_cli(const char *args, char **errtext)
{
    char cmd[2048];
    const char *err_path = qr_test_tmp("bench.err");
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>'%s'", getenv("QR_CLI"), args, err_path);
    int st = system(cmd);
    *errtext = slurp(err_path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(bench, bad_options_are_usage_errors)
{
    const char *bad[] = {"--index quadtree,octree", "--mode slow", "--tile 24", "--tile 8",
                         "--frames 0", "--size 0", "--plot out.png", "--warmup x"};
    for (int i = 0; i < 8; i++) {
        char args[256], *err;
        snprintf(args, sizeof args, "bench rgb %s", bad[i]);
        cr_assert_eq(run_cli(args, &err), 2, "'%s' should exit 2", args);
        char opt[64];
        sscanf(bad[i], "%63s", opt);
        cr_assert(strstr(err, opt) != NULL, "'%s': message does not name %s: %s", args, opt, err);
    }
}

Test(bench, needs_a_gpu)
{
    qr_error e;
    if (qr_gpu_probe(NULL, &e) == QR_OK) cr_skip_test("this machine has a GPU");
    char *err;
    cr_assert_eq(run_cli("bench rgb --frames 1", &err), 5);
    cr_assert(strstr(err, "needs a GPU") != NULL, "%s", err);
}
