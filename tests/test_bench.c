/* test_bench.c — `quadrender bench`'s writers (table, JSON, CSV, SVG) on
 * made-up rows, without a GPU; its command line is test_cli_bench.c's. */
#include "test_util.h"

#include <math.h>

#include "cli/bench/bench.h"
#include "json_find.h"

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

/* The speedups and the JSON name the fastest grid tile, 256 included; a
 * tile out of memory is never the best while another fits. */
Test(bench, best_grid_is_the_fastest_tile_that_fits)
{
    bench_row rows[] = {make_row("clusters", 0, 1, 0.5),   make_row("clusters", 16, 1, 0.9),
                        make_row("clusters", 128, 1, 0.6), make_row("clusters", 256, 1, 0.4),
                        make_row("clusters", 64, 1, 0.1)};
    rows[4].oom = BENCH_OOM_GPU;
    cr_assert_eq(bench_best_grid(rows, 5, &rows[0]), &rows[3]);
    rows[3].oom = BENCH_OOM_GPU;
    cr_assert_eq(bench_best_grid(rows, 5, &rows[0]), &rows[2]);
    rows[1].oom = rows[2].oom = BENCH_OOM_GPU;
    const bench_row *b = bench_best_grid(rows, 5, &rows[0]);
    cr_assert(b && b->oom, "all tiles out of memory: the best grid says so");
    rows[1].oom = rows[2].oom = rows[3].oom = rows[4].oom = 0;

    const char *path = qr_test_tmp("best.json");
    qr_error err;
    cr_assert_eq(bench_write_json(path, "{}", rows, 5, 0, &err), QR_OK, "%s", err.msg);
    char *text = qr_test_read_file(path, NULL);
    cr_assert(strstr(text, "\"speedups\": [\n    {\"scene\": \"clusters\", \"size\": 1024, \"mode\": "
                           "\"exact\", \"quadtree_ms\": 0.500000, \"best_grid_tile\": 64, "
                           "\"best_grid_ms\": 0.100000, \"speedup\": 0.2000}\n  ]"),
              "%s", text);
    free(text);
}

/* A heading opens each family of scenes in the tables; a run of scenes of
 * no family has none. */
Test(bench, tables_head_each_family)
{
    bench_row rows[] = {make_row("rgb", 0, 0, 0.1), make_row("rgb", 32, 0, 0.2),
                        make_row("spiral", 0, 0, 0.3), make_row("spiral", 32, 0, 0.2)};
    snprintf(rows[0].group, sizeof rows[0].group, "CS149");
    snprintf(rows[1].group, sizeof rows[1].group, "CS149");
    snprintf(rows[2].group, sizeof rows[2].group, "non-uniform");
    snprintf(rows[3].group, sizeof rows[3].group, "non-uniform");
    const char *path = qr_test_tmp("groups.txt");
    FILE *f = fopen(path, "w");
    bench_print_table(f, rows, 4);
    bench_print_speedups(f, rows, 4);
    fclose(f);
    char *text = qr_test_read_file(path, NULL);
    /* table and speedups: each family once, CS149's before its first row */
    const char *cs = strstr(text, "## CS149 scenes\nrgb ");
    const char *nu = cs ? strstr(cs, "## non-uniform scenes\nspiral ") : NULL;
    cr_assert(cs && nu, "table without headings:\n%s", text);
    const char *cs2 = strstr(nu, "## CS149 scenes\nrgb ");
    const char *nu2 = cs2 ? strstr(cs2, "## non-uniform scenes\nspiral ") : NULL;
    cr_assert(cs2 && nu2, "speedups without headings:\n%s", text);
    free(text);

    for (int i = 0; i < 4; i++) rows[i].group[0] = '\0';
    f = fopen(path, "w");
    bench_print_table(f, rows, 4);
    fclose(f);
    text = qr_test_read_file(path, NULL);
    cr_assert(!strstr(text, "##"), "%s", text);
    free(text);
}

/* A row out of memory has as many CSV fields as the header, its counts and
 * names, and no times. */
Test(bench, csv_row_out_of_memory_keeps_the_columns)
{
    bench_row rows[] = {make_row("uniform:100M", 0, 0, 0.8), make_row("uniform:100M", 16, 0, 0)};
    rows[0].circles = rows[1].circles = 100000000;
    rows[1].oom = BENCH_OOM_GPU;
    qr_error err;
    const char *path = qr_test_tmp("oom.csv");
    cr_assert_eq(bench_write_csv(path, rows, 2, &err), QR_OK, "%s", err.msg);
    char *text = qr_test_read_file(path, NULL);
    int fields[3] = {1, 1, 1}, line = 0;
    for (char *p = text; *p && line < 3; p++) {
        if (*p == ',') fields[line]++;
        if (*p == '\n') line++;
    }
    cr_assert_eq(line, 3, "%s", text);
    cr_assert(fields[0] == fields[1] && fields[1] == fields[2], "fields %d %d %d:\n%s", fields[0],
              fields[1], fields[2], text);
    cr_assert(strstr(text, "\nuniform:100M,1024,fast,grid16,,,,,,,,"), "%s", text);
    cr_assert(strstr(text, ",100000000,,,gpu\n"), "%s", text);
    cr_assert(strstr(text, ",73400320,,,100000000,0,0,\n"), "the quadtree row fits:\n%s", text);
    free(text);
}

Test(bench, scene_names_give_family_and_count)
{
    const struct {
        const char *name, *family;
        long long count;
        int ok;
    } cases[] = {
        {"uniform:10k", "uniform", 10000, 1},    {"clustered:100M", "clustered", 100000000, 1},
        {"a:b:3G", "a:b", 3000000000LL, 1},        {"uniform:250", "uniform", 250, 1},
        {"rand10k", "rand10k", 0, 0},            {":10k", ":10k", 0, 0},
        {"uniform:", "uniform:", 0, 0},          {"uniform:10x", "uniform:10x", 0, 0},
        {"uniform:k", "uniform:k", 0, 0},        {"u:1234567890123", "u:1234567890123", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char family[64];
        long long count = -1;
        cr_expect_eq(bench_scene_family(cases[i].name, family, sizeof family, &count), cases[i].ok,
                     "%s", cases[i].name);
        cr_expect_str_eq(family, cases[i].family, "%s", cases[i].name);
        cr_expect_eq(count, cases[i].count, "%s: %lld", cases[i].name, count);
    }
}

/* Rows of a scaling run: two families at two counts, a quadtree and two
 * grid tiles each; the clustered family's largest scene ran out of memory
 * with the 16-pixel grid and the quadtree, not with the 64-pixel one. */
static int scaling_rows(bench_row *rows)
{
    const char *scenes[] = {"uniform:10k", "uniform:1M", "clustered:10k", "clustered:1M"};
    const long long counts[] = {10000, 1000000, 10000, 1000000};
    const int tiles[] = {0, 16, 64};
    int n = 0;
    /* in the order the bench measures: the large uniform scene first, to
     * show the points come out sorted by count */
    const int order[] = {1, 0, 2, 3};
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < 3; t++) {
            const int k = order[s];
            bench_row *r = &rows[n++];
            *r = make_row(scenes[k], tiles[t], 0, (k % 2 ? 1.0 : 0.01) * (t == 2 ? 0.5 : 1 + t));
            r->circles = counts[k];
            r->index_bytes = 2u << 20;
            r->device_bytes = 18u << 20;
            r->scene_bytes = 1u << 20;
            if (k == 3 && t != 2) r->oom = BENCH_OOM_GPU;
        }
    return n;
}

Test(bench, scaling_points_pick_quadtree_and_best_grid_in_order)
{
    bench_row rows[12];
    const int n = scaling_rows(rows);
    bench_point pts[24];
    const int np = bench_scaling_points(rows, n, pts);
    cr_assert_eq(np, 8, "a quadtree and a best grid per scene");
    /* uniform first (first seen), quadtree before grid, counts ascending */
    const char *family[] = {"uniform", "uniform", "uniform", "uniform",
                            "clustered", "clustered", "clustered", "clustered"};
    const long long circles[] = {10000, 1000000, 10000, 1000000, 10000, 1000000, 10000, 1000000};
    const int best_grid[] = {0, 0, 1, 1, 0, 0, 1, 1};
    for (int i = 0; i < np; i++) {
        cr_expect_str_eq(pts[i].family, family[i], "point %d", i);
        cr_expect_eq(pts[i].row->circles, circles[i], "point %d", i);
        cr_expect_eq(pts[i].best_grid, best_grid[i], "point %d", i);
        if (best_grid[i]) cr_expect_eq(pts[i].row->grid_tile, 64, "point %d: 64 is fastest", i);
    }
    cr_expect(pts[5].row->oom && !pts[7].row->oom, "the clustered 1M quadtree ran out, its grid64 not");
}

Test(bench, scaling_table_has_bytes_and_out_of_memory)
{
    bench_row rows[12];
    const int n = scaling_rows(rows);
    const char *path = qr_test_tmp("scaling.txt");
    FILE *f = fopen(path, "w");
    qr_error err;
    cr_assert_eq(bench_print_scaling(f, rows, n, &err), QR_OK, "%s", err.msg);
    fclose(f);
    char *text = qr_test_read_file(path, NULL);
    int rows_seen = 0, oom = 0;
    for (char *p = text, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        cr_assert_not_null(nl, "the table ends in a newline");
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(nl - p), p);
        char family[64], mode[8], index[16];
        long long circles, pairs;
        int size, leaves;
        double ms, ib, img, sb, total;
        if (sscanf(line, "%63s %lld %d %7s %15s %lf %lld %d %lf %lf %lf %lf", family, &circles, &size,
                   mode, index, &ms, &pairs, &leaves, &ib, &img, &sb, &total) == 12) {
            rows_seen++;
            cr_expect(ib == 2.0 && img == 16.0 && sb == 1.0 && total == 19.0, "bytes: %s", line);
            cr_expect_eq(pairs, strcmp(index, "quadtree") ? 6000000 : 1800000, "%s", line);
        } else if (strstr(line, "out of memory")) {
            oom++;
            cr_expect(!strncmp(line, "clustered ", 10) && strstr(line, " 1000000 ") &&
                          strstr(line, "quadtree"),
                      "%s", line);
        }
    }
    cr_expect_eq(rows_seen, 7, "%s", text);
    cr_expect_eq(oom, 1, "%s", text);
    free(text);
}

Test(bench, scaling_json_and_svg)
{
    bench_row rows[12];
    const int n = scaling_rows(rows);
    qr_error err;
    const char *json = qr_test_tmp("scaling.json"), *svg = qr_test_tmp("scaling.svg");
    cr_assert_eq(bench_write_json(json, "{}", rows, n, 1, &err), QR_OK, "%s", err.msg);
    char *text = qr_test_read_file(json, NULL);
    cr_expect(json_find(text, "scaling.0.family"), "%s", text);
    cr_expect_eq(json_number(text, "scaling.1.circles"), 1000000);
    cr_expect(!strncmp(json_find(text, "scaling.2.index"), "\"best grid\"", 11));
    cr_expect_eq(json_number(text, "scaling.2.tile"), 64);
    cr_expect_eq(json_number(text, "scaling.2.device_bytes"), 19 << 20);
    cr_expect_eq(json_number(text, "scaling.2.image_bytes"), 16 << 20);
    cr_expect(!strncmp(json_find(text, "scaling.5.out_of_memory"), "\"gpu\"", 5), "%s", text);
    cr_expect(!json_find(text, "scaling.8"));
    free(text);

    cr_assert_eq(bench_write_scaling_svg(svg, "scaling <test>", rows, n, 80ull << 30, &err), QR_OK,
                 "%s", err.msg);
    text = qr_test_read_file(svg, NULL);
    cr_assert(!strncmp(text, "<svg ", 5) && strstr(text, "</svg>\n"));
    int lines = 0, dashed = 0, markers = 0, crosses = 0;
    for (char *p = text; (p = strstr(p, "<polyline")); p++) {
        lines++;
        const char *dash = strstr(p, "stroke-dasharray");
        dashed += dash && dash < strchr(p, '>');
    }
    for (char *p = text; (p = strstr(p, "<circle")); p++) markers++;
    for (char *p = text; (p = strstr(p, "<g><rect")); p++) markers++;
    for (char *p = text; (p = strstr(p, "out of memory</title>")); p++) crosses++;
    /* three plots (ms, pairs, bytes) of one mode and one size */
    cr_expect_eq(lines, 3 * 4, "a curve per family and kind in each plot");
    cr_expect_eq(dashed, 3 * 2, "the best grid's curves are dashed");
    cr_expect_eq(markers, 3 * 7, "a marker per point that fits, got %d", markers);
    cr_expect_eq(crosses, 3);
    cr_expect(strstr(text, ">the GPU's memory, 80.0 GiB<"), "the memory line");
    cr_expect(strstr(text, ">uniform 1024, quadtree<") && strstr(text, ">clustered 1024, best grid<"),
              "legend");
    cr_expect(strstr(text, "scaling &lt;test&gt;"), "the title is escaped");
    cr_expect(strstr(text, ">10k<") && strstr(text, ">1M<"), "the count axis");
    free(text);
}

static bench_row zoo_row(const char *scene, int tile, int exact, double ms)
{
    bench_row r = make_row(scene, tile, exact, ms);
    snprintf(r.group, sizeof r.group, "zoo");
    return r;
}

/* The zoo's lines from known rows: per scene the best grid after the fact
 * (speedups 0.5, 1 and 2 in fast mode: minimum 0.5 on zoo:1, geometric
 * mean 1, one scene behind), the best single tile by the geometric mean of
 * its frames (grid32: 0.5 x 4 x 4 against grid16's 2 x 1 x 8) and the
 * quadtree against it ((8 / 2)^(1/3)); a scene of another group, a zoo
 * scene whose quadtree ran out of memory, and in exact mode a tile out of
 * memory (no candidate for the single tile) left out. */
Test(bench, zoo_summary_of_known_rows)
{
    bench_row rows[] = {
        zoo_row("zoo:1", 0, 0, 1.0),  zoo_row("zoo:1", 16, 0, 2.0), zoo_row("zoo:1", 32, 0, 0.5),
        zoo_row("zoo:2", 0, 0, 1.0),  zoo_row("zoo:2", 16, 0, 1.0), zoo_row("zoo:2", 32, 0, 4.0),
        zoo_row("zoo:3", 0, 0, 2.0),  zoo_row("zoo:3", 16, 0, 8.0), zoo_row("zoo:3", 32, 0, 4.0),
        zoo_row("zoo:4", 0, 0, 1.0),  zoo_row("zoo:4", 16, 0, 0.1), zoo_row("zoo:4", 32, 0, 0.1),
        make_row("rand1M", 0, 0, 9.0), make_row("rand1M", 16, 0, 0.1),
        zoo_row("zoo:1", 0, 1, 1.0),  zoo_row("zoo:1", 16, 1, 0.1), zoo_row("zoo:1", 32, 1, 2.0),
    };
    rows[9].oom = BENCH_OOM_GPU;
    rows[15].oom = BENCH_OOM_GPU;
    const int n = (int)(sizeof rows / sizeof rows[0]);
    bench_zoo_line z[4];
    cr_assert_eq(bench_zoo_summary(rows, n, z, 4), 2);
    cr_assert(z[0].size == 1024 && !z[0].exact && z[0].scenes == 3);
    cr_assert_float_eq(z[0].min, 0.5, 1e-12);
    cr_assert_str_eq(z[0].min_scene, "zoo:1");
    cr_assert_float_eq(z[0].geomean, 1.0, 1e-12);
    cr_assert_eq(z[0].behind, 1);
    cr_assert_eq(z[0].single_tile, 32);
    cr_assert_float_eq(z[0].single, cbrt(4.0), 1e-12);
    cr_assert(z[1].exact && z[1].scenes == 1 && z[1].behind == 0);
    cr_assert_float_eq(z[1].min, 2.0, 1e-12);
    cr_assert_eq(z[1].single_tile, 32);
    cr_assert_float_eq(z[1].single, 2.0, 1e-12);
    /* the table and the JSON say the same */
    const char *path = qr_test_tmp("zoo.txt");
    FILE *f = fopen(path, "w");
    bench_print_zoo(f, rows, n);
    fclose(f);
    char *text = qr_test_read_file(path, NULL);
    cr_assert(strstr(text, " 1024 fast       3    0.50x zoo:1 ") != NULL, "%s", text);
    cr_assert(strstr(text, " 1.00x          1 (33%) grid32         1.59x\n") != NULL, "%s", text);
    free(text);
    qr_error err;
    path = qr_test_tmp("zoo.json");
    cr_assert_eq(bench_write_json(path, "{}", rows, n, 0, &err), QR_OK, "%s", err.msg);
    text = qr_test_read_file(path, NULL);
    cr_assert_float_eq(json_number(text, "zoo.lines.0.geomean"), 1.0, 1e-9);
    cr_assert_float_eq(json_number(text, "zoo.lines.0.behind_share"), 1.0 / 3, 1e-4);
    cr_assert_float_eq(json_number(text, "zoo.lines.0.best_single_tile"), 32, 0);
    cr_assert_float_eq(json_number(text, "zoo.lines.1.min"), 2.0, 1e-9);
    cr_assert_null(json_find(text, "zoo.lines.2"));
    free(text);
    /* no zoo rows, no zoo */
    cr_assert_eq(bench_zoo_summary(rows + 12, 2, z, 4), 0);
}
