/* test_bench.c — `quadrender bench`'s writers (table, JSON, CSV, SVG) on
 * made-up rows, without a GPU; its command line is test_cli_bench.c's. */
#include "test_util.h"

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

Test(bench, speedup_is_against_the_best_grid_tile)
{
    bench_row rows[] = {make_row("rand1M", 0, 0, 0.2), make_row("rand1M", 16, 0, 0.6),
                        make_row("rand1M", 32, 0, 0.3), make_row("rand1M", 64, 0, 0.5)};
    const char *path = qr_test_tmp("speedup.txt");
    FILE *f = fopen(path, "w");
    bench_print_speedups(f, rows, 4);
    fclose(f);
    char *text = qr_test_read_file(path, NULL);
    cr_assert(strstr(text, "1.50x") != NULL, "speedup 0.3/0.2 missing:\n%s", text);
    cr_assert(strstr(text, " 32 ") != NULL, "best tile 32 missing:\n%s", text);
    free(text);
}

Test(bench, csv_has_a_header_and_a_line_per_row)
{
    bench_row rows[] = {make_row("micro2M", 0, 1, 0.8), make_row("micro2M", 32, 1, 0.6)};
    qr_error err;
    const char *path = qr_test_tmp("bench.csv");
    cr_assert_eq(bench_write_csv(path, rows, 2, &err), QR_OK, "%s", err.msg);
    char *text = qr_test_read_file(path, NULL);
    cr_assert(!strncmp(text, "scene,size,mode,index,frames,frame_median_ms", 44), "%s", text);
    cr_assert(strstr(text, "\nmicro2M,1024,exact,quadtree,20,0.800000,") != NULL, "%s", text);
    cr_assert(strstr(text, "\nmicro2M,1024,exact,grid32,20,0.600000,") != NULL, "%s", text);
    int lines = 0;
    for (char *p = text; *p; p++) lines += *p == '\n';
    cr_assert_eq(lines, 3);
    free(text);
}

Test(bench, json_is_balanced_and_versioned)
{
    bench_row rows[] = {make_row("rgb", 0, 0, 0.1), make_row("rgb", 16, 0, 0.2)};
    rows[0].cpu_ms = 12.5;
    qr_error err;
    const char *path = qr_test_tmp("bench.json");
    cr_assert_eq(bench_write_json(path, "{\"gpu\": \"test\"}", rows, 2, 0, &err), QR_OK, "%s", err.msg);
    char *text = qr_test_read_file(path, NULL);
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
    free(text);
}

Test(bench, svg_draws_a_bar_segment_per_stage)
{
    bench_row rows[] = {make_row("rand10k", 0, 0, 0.2), make_row("rand10k", 64, 0, 0.3),
                        make_row("biglittle", 0, 0, 0.25), make_row("biglittle", 64, 0, 0.5)};
    qr_error err;
    const char *path = qr_test_tmp("bench.svg");
    cr_assert_eq(bench_write_svg(path, "test", rows, 4, &err), QR_OK, "%s", err.msg);
    char *text = qr_test_read_file(path, NULL);
    cr_assert(!strncmp(text, "<svg ", 5));
    cr_assert(strstr(text, "</svg>\n") != NULL);
    int bars = 0;
    for (char *p = text; (p = strstr(p, "<title>")); p++) bars++;
    cr_assert_eq(bars, 4 * BENCH_NSTAGES, "one segment per stage and row, got %d", bars);
    cr_assert(strstr(text, ">biglittle<") && strstr(text, ">rand10k<"));
    free(text);
}
