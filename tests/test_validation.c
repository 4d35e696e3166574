/* test_validation.c — the checks of a user's values that every front end
 * shares (the CLI's options, Python's arguments): image sides, seeds,
 * frames and frame ranges, PNG levels, devices, threads, index kinds,
 * tiles and the other index values, which index options go together, and
 * the circles of a scene a program filled. Each refusal is QR_ERR_INVALID
 * with the one-line message the CLI prints after "quadrender: ".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/job.h"
#include "quadrender/scene.h"
#include "quadrender/text.h"
#include "quadrender/threads.h"
#include "test_util.h"

static void expect_refused(qr_status st, const qr_error *err, const char *msg)
{
    cr_assert_eq(st, QR_ERR_INVALID, "status %d for \"%s\"", st, msg);
    cr_assert_eq(err->status, QR_ERR_INVALID);
    cr_assert_str_eq(err->msg, msg);
}

Test(validation, text_parse_u64_takes_digits_only)
{
    uint64_t v = 7;
    cr_assert(qr_text_parse_u64("0", 10, &v) && v == 0);
    cr_assert(qr_text_parse_u64("0010", 10, &v) && v == 10);
    cr_assert(qr_text_parse_u64("18446744073709551615", UINT64_MAX, &v) && v == UINT64_MAX);
    const char *bad[] = {"", " 1", "+1", "-1", "1 ", "1x", "0x10", "11", "18446744073709551616",
                         "99999999999999999999999"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        cr_assert(!qr_text_parse_u64(bad[k], 10, &v), "'%s' taken", bad[k]);
    cr_assert(!qr_text_parse_u64(NULL, 10, &v));
}

Test(validation, uint_ranges_powers_of_two_and_zero)
{
    qr_error err;
    uint64_t v = 0;
    cr_assert_eq(qr_text_check_uint("n", "64", 16, 32768, QR_UINT_POW2, "p", &v, &err), QR_OK);
    cr_assert_eq(v, 64);
    expect_refused(qr_text_check_uint("n", "48", 16, 32768, QR_UINT_POW2, "p", &v, &err), &err,
                   "n: expected p, got '48'");
    expect_refused(qr_text_check_uint("n", "0", 16, 32768, QR_UINT_POW2, "p", &v, &err), &err,
                   "n: expected p, got '0'");
    cr_assert_eq(qr_text_check_uint("n", "0", 16, 32768, QR_UINT_POW2 | QR_UINT_OR_0, "p", &v,
                                    &err),
                 QR_OK);
    cr_assert_eq(v, 0);
    expect_refused(qr_text_check_uint("n", "8", 16, 32768, QR_UINT_POW2 | QR_UINT_OR_0, "p", &v,
                                      &err),
                   &err, "n: expected p, got '8'");
    cr_assert_eq(qr_text_check_uint("n", "48", 1, 100, QR_UINT_RANGE, "r", &v, &err), QR_OK);
    cr_assert_eq(v, 48);
}

Test(validation, image_sides)
{
    qr_error err;
    int32_t v = -1;
    cr_assert_eq(qr_image_check_side("--width", "1", &v, &err), QR_OK);
    cr_assert_eq(v, 1);
    cr_assert_eq(qr_image_check_side("--width", "131072", &v, &err), QR_OK);
    cr_assert_eq(v, 131072);
    v = 5;
    expect_refused(qr_image_check_side("--width", "0", &v, &err), &err,
                   "--width: expected an integer from 1 to 131072, got '0'");
    expect_refused(qr_image_check_side("width", "131073", &v, &err), &err,
                   "width: expected an integer from 1 to 131072, got '131073'");
    expect_refused(qr_image_check_side("width", "True", &v, &err), &err,
                   "width: expected an integer from 1 to 131072, got 'True'");
    cr_assert_eq(v, 5, "a refused side is not stored");

    cr_assert_eq(qr_image_check_whole("w", "stats", "'render'", 32768, 1, QR_IMAGE_MAX_DIM, &err),
                 QR_OK);
    expect_refused(qr_image_check_whole("-s/--width/--height", "stats", "'render'", 40000, 16,
                                        QR_IMAGE_MAX_DIM, &err),
                   &err,
                   "-s/--width/--height: stats takes images up to 32768 pixels a side "
                   "(40000x16 asked); 'render' streams larger ones in bands");
}

Test(validation, seeds)
{
    qr_error err;
    uint32_t v = 1;
    cr_assert_eq(qr_scene_check_seed("--seed", "0", &v, &err), QR_OK);
    cr_assert_eq(v, 0);
    cr_assert_eq(qr_scene_check_seed("--seed", "4294967295", &v, &err), QR_OK);
    cr_assert_eq(v, UINT32_MAX);
    expect_refused(qr_scene_check_seed("seed", "4294967296", &v, &err), &err,
                   "seed: expected an integer from 0 to 4294967295, got '4294967296'");
    expect_refused(qr_scene_check_seed("--seed", "-1", &v, &err), &err,
                   "--seed: expected an integer from 0 to 4294967295, got '-1'");
}

Test(validation, frames)
{
    qr_error err;
    int64_t v = -1;
    cr_assert_eq(qr_scene_check_frame("--frame", "0", &v, &err), QR_OK);
    cr_assert_eq(v, 0);
    cr_assert_eq(qr_scene_check_frame("--frame", "2147483647", &v, &err), QR_OK);
    cr_assert_eq(v, QR_SCENE_MAX_FRAME);
    expect_refused(qr_scene_check_frame("frame", "-1", &v, &err), &err,
                   "frame: expected a frame number from 0 to 2147483647, got '-1'");
    expect_refused(qr_scene_check_frame("--frame", "2147483648", &v, &err), &err,
                   "--frame: expected a frame number from 0 to 2147483647, got '2147483648'");

    int64_t a = -1, b = -1;
    cr_assert_eq(qr_job_check_frames("--frames", "3:7", &a, &b, &err), QR_OK);
    cr_assert(a == 3 && b == 7);
    cr_assert_eq(qr_job_check_frames("--frames", "5:5", &a, &b, &err), QR_OK);
    cr_assert(a == 5 && b == 5);
    cr_assert_eq(qr_job_check_frames("--frames", "0:2147483647", &a, &b, &err), QR_OK);
    cr_assert(a == 0 && b == QR_SCENE_MAX_FRAME);
    a = b = 9;
    const char *bad[] = {"5:4", "x", "3", ":3", "3:", "-1:2", "1:2147483648", "1:2:3", " 1:2",
                         "00000000000000000000000000000001:2", ""};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "frames: expected A:B with frame numbers 0 <= A <= B <= 2147483647, got '%s'",
                 bad[k]);
        expect_refused(qr_job_check_frames("frames", bad[k], &a, &b, &err), &err, msg);
    }
    cr_assert(a == 9 && b == 9, "a refused range is not stored");
}

Test(validation, png_levels_and_devices)
{
    qr_error err;
    int level = -1;
    for (int k = 0; k <= 9; k++) {
        char text[4];
        snprintf(text, sizeof text, "%d", k);
        cr_assert_eq(qr_image_check_png_level("--png-level", text, &level, &err), QR_OK);
        cr_assert_eq(level, k);
    }
    expect_refused(qr_image_check_png_level("png_level", "10", &level, &err), &err,
                   "png_level: expected a PNG level from 0 to 9, got '10'");
    expect_refused(qr_image_check_png_level("--png-level", "-1", &level, &err), &err,
                   "--png-level: expected a PNG level from 0 to 9, got '-1'");

    static const struct {
        const char *text;
        qr_job_device device;
    } names[] = {{"auto", QR_JOB_AUTO},
                 {"gpu", QR_JOB_GPU},
                 {"cpu", QR_JOB_CPU},
                 {"cpu-reference", QR_JOB_CPU_REFERENCE}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        qr_job_device d = (qr_job_device)-1;
        cr_assert_eq(qr_job_check_device("--device", names[k].text, &d, &err), QR_OK);
        cr_assert_eq(d, names[k].device);
    }
    qr_job_device d = QR_JOB_GPU;
    expect_refused(qr_job_check_device("device", "tpu", &d, &err), &err,
                   "device: expected auto, gpu, cpu or cpu-reference, got 'tpu'");
    expect_refused(qr_job_check_device("--device", "CPU", &d, &err), &err,
                   "--device: expected auto, gpu, cpu or cpu-reference, got 'CPU'");
    cr_assert_eq(d, QR_JOB_GPU, "a refused device is not stored");
}

Test(validation, threads)
{
    qr_error err;
    int v = -1;
    cr_assert_eq(qr_threads_check("--threads", "0", &v, &err), QR_OK);
    cr_assert_eq(v, 0);
    cr_assert_eq(qr_threads_check("--threads", "1024", &v, &err), QR_OK);
    cr_assert_eq(v, QR_MAX_THREADS);
    expect_refused(qr_threads_check("threads", "100000", &v, &err), &err,
                   "threads: expected a thread count from 1 to 1024, or 0 for all cores, got "
                   "'100000'");
    expect_refused(qr_threads_check("threads", "1025", &v, &err), &err,
                   "threads: expected a thread count from 1 to 1024, or 0 for all cores, got "
                   "'1025'");
}

Test(validation, index_kind_and_tile)
{
    qr_error err;
    int32_t u = -1;
    cr_assert_eq(qr_index_check_kind("--index", "grid", &u, &err), QR_OK);
    cr_assert_eq(u, 1);
    cr_assert_eq(qr_index_check_kind("--index", "quadtree", &u, &err), QR_OK);
    cr_assert_eq(u, 0);
    expect_refused(qr_index_check_kind("index", "Grid", &u, &err), &err,
                   "index: expected 'quadtree' or 'grid', got 'Grid'");

    int32_t t = 0;
    for (int32_t side = QR_TILE; side <= 32768; side *= 2) {
        char text[16];
        snprintf(text, sizeof text, "%d", (int)side);
        cr_assert_eq(qr_index_check_tile("--tile", text, &t, &err), QR_OK, "%d", (int)side);
        cr_assert_eq(t, side);
    }
    const char *bad[] = {"8", "4", "0", "24", "65536", "16.0"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char msg[128];
        snprintf(msg, sizeof msg, "tile: expected a power of two from 16 to 32768, got '%s'",
                 bad[k]);
        expect_refused(qr_index_check_tile("tile", bad[k], &t, &err), &err, msg);
    }
}

Test(validation, index_values)
{
    static const struct {
        int option;
        const char *good[4];
        const char *bad[4];
        const char *expected;
    } cases[] = {
        {QR_IXO_CAPACITY, {"1", "1024", "1073741824"}, {"0", "1073741825", "-1"},
         "an integer from 1 to 1073741824"},
        {QR_IXO_MIN_LEAF, {"4", "64", "32768"}, {"2", "48", "65536", "0"},
         "a power of two from 4 to 32768"},
        {QR_IXO_MAX_DEPTH, {"0", "15"}, {"16", "-1"}, "an integer from 0 to 15"},
        {QR_IXO_TILE, {"16", "32768"}, {"8", "0"}, "a power of two from 16 to 32768"},
        {QR_IXO_MAX_LEAF, {"0", "16", "32768"}, {"8", "24", "65536"},
         "0, or a power of two from 16 to 32768"},
        {QR_IXO_SPLIT_COST, {"0", "5", "1000"}, {"1001", "-5", "5.0"},
         "an integer from 0 to 1000"},
        {QR_IXO_DEEP_LEAF, {"0", "4", "32768"}, {"2", "12", "65536"},
         "0, or a power of two from 4 to 32768"},
    };
    qr_error err;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int k = 0; k < 4 && cases[c].good[k]; k++) {
            int32_t v = -1;
            cr_assert_eq(qr_index_check_value(cases[c].option, "x", cases[c].good[k], &v, &err),
                         QR_OK, "option %d: '%s'", cases[c].option, cases[c].good[k]);
            cr_assert_eq(v, atoi(cases[c].good[k]));
        }
        for (int k = 0; k < 4 && cases[c].bad[k]; k++) {
            int32_t v = 7;
            char msg[160];
            snprintf(msg, sizeof msg, "opt: expected %s, got '%s'", cases[c].expected,
                     cases[c].bad[k]);
            expect_refused(qr_index_check_value(cases[c].option, "opt", cases[c].bad[k], &v, &err),
                           &err, msg);
            cr_assert_eq(v, 7, "a refused value is not stored");
        }
    }
    int32_t v;
    expect_refused(qr_index_check_value(QR_IXO_INDEX, "index", "grid", &v, &err), &err,
                   "index option 3: not a number");
    expect_refused(qr_index_check_value(QR_IXO_COUNT, "x", "1", &v, &err), &err,
                   "index option 8: not a number");

    /* every value these take, qr_index_params_check takes */
    qr_index_params p;
    qr_index_params_default(&p);
    cr_assert_eq(qr_index_check_value(QR_IXO_CAPACITY, "c", "1", &p.capacity, &err), QR_OK);
    cr_assert_eq(qr_index_check_value(QR_IXO_MIN_LEAF, "m", "4", &p.min_leaf, &err), QR_OK);
    cr_assert_eq(qr_index_check_value(QR_IXO_MAX_DEPTH, "d", "15", &p.max_depth, &err), QR_OK);
    cr_assert_eq(qr_index_check_value(QR_IXO_MAX_LEAF, "l", "32768", &p.max_leaf, &err), QR_OK);
    cr_assert_eq(qr_index_check_value(QR_IXO_SPLIT_COST, "s", "1000", &p.split_cost, &err), QR_OK);
    cr_assert_eq(qr_index_check_value(QR_IXO_DEEP_LEAF, "e", "0", &p.deep_leaf, &err), QR_OK);
    cr_assert_eq(qr_index_params_check(&p, &err), QR_OK, "%s", err.msg);
}

Test(validation, index_options_that_go_together)
{
    static const char *const cli[QR_IXO_COUNT] = {
        "--capacity", "--min-leaf", "--max-depth", "--index grid",
        "--tile",     "--max-leaf", "--split-cost", "--deep-leaf"};
    qr_error err;
    const unsigned tile = 1u << QR_IXO_TILE;
    cr_assert_eq(qr_index_check_options(1, tile | 1u << QR_IXO_MAX_DEPTH, cli, &err), QR_OK);
    cr_assert_eq(qr_index_check_options(0, 0xffu & ~tile, cli, &err), QR_OK);
    expect_refused(qr_index_check_options(0, tile, cli, &err), &err,
                   "--tile: only with --index grid");
    expect_refused(qr_index_check_options(1, 1u << QR_IXO_CAPACITY, cli, &err), &err,
                   "--capacity: not with --index grid (its tiles are set by --tile)");
    expect_refused(qr_index_check_options(1, 1u << QR_IXO_DEEP_LEAF | 1u << QR_IXO_SPLIT_COST,
                                          cli, &err),
                   &err, "--split-cost: not with --index grid (its tiles are set by --tile)");
}

Test(validation, circles_a_program_filled)
{
    qr_scene *s;
    qr_error err;
    cr_assert_eq(qr_scene_create(3, QR_ANIM_NONE, &s, &err), QR_OK);
    for (int i = 0; i < 3; i++) s->r[i] = 0.1f;
    cr_assert_eq(qr_scene_check_circles(s, "circles", &err), QR_OK);
    s->r[1] = 0.0f;
    cr_assert_eq(qr_scene_check_circles(s, "circles", &err), QR_OK, "a radius of 0 is taken");
    s->r[1] = -0.5f;
    s->r[2] = -0.25f;
    expect_refused(qr_scene_check_circles(s, "circles", &err), &err,
                   "circles: row 1: negative radius -0.5");
    s->green[0] = NAN;
    expect_refused(qr_scene_check_circles(s, "a.npy", &err), &err,
                   "a.npy: row 0: G: nan is not a finite number");
    qr_scene_destroy(s);
}
