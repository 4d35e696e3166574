/* test_stats.c — qr_index_stats_compute on hand-made indexes whose numbers
 * are worked out by hand, its consistency checks, a real host build, and
 * the JSON writer. */
#include <math.h>

#include "quadrender/index.h"
#include "quadrender/scene.h"
#include "quadrender/stats.h"
#include "test_util.h"

/* A 64 x 48 image, root 64: the bottom half split once more on the right,
 * the top row of leaves cut to 16 pixels by the image's top edge.
 *
 *   y 32..48  | TL {4}           | TR {1,2,4,5}              |  depth 1, cut to 16 rows
 *   y 16..32  | BL {0,2}         | {0,1,2}     | {}          |  BR's children,
 *   y  0..16  | (32 x 32, depth 1)| {1}         | {}          |  depth 2
 *
 * 7 circles, 3 and 6 in no list (culled). */
static qr_leaf hand_leaves[] = {
    {{0, 0, 32, 32}, 1, 2, 0},    /* BL */
    {{32, 0, 48, 16}, 2, 1, 2},   /* BR's children: bottom-left, */
    {{48, 0, 64, 16}, 2, 0, 3},   /*   bottom-right, */
    {{32, 16, 48, 32}, 2, 3, 3},  /*   top-left, */
    {{48, 16, 64, 32}, 2, 0, 6},  /*   top-right */
    {{0, 32, 32, 48}, 1, 1, 6},   /* TL */
    {{32, 32, 64, 48}, 1, 4, 7},  /* TR */
};
static int32_t hand_lists[] = {0, 2, 1, 0, 1, 2, 4, 1, 2, 4, 5};

static qr_index hand_index(void)
{
    qr_index ix;
    memset(&ix, 0, sizeof ix);
    ix.width = 64;
    ix.height = 48;
    ix.region = qr_rect_full(64, 48);
    qr_index_params_default(&ix.params);
    ix.root_size = 64;
    ix.num_nodes = 9; /* root, 4 children, BR's 4 */
    ix.num_leaves = 7;
    ix.max_depth_reached = 2;
    ix.visible = 5;
    ix.culled = 2;
    ix.num_pairs = 11;
    ix.leaves = hand_leaves;
    ix.lists = hand_lists;
    return ix;
}

Test(stats, hand_made_index)
{
    qr_index ix = hand_index();
    qr_index_stats s;
    qr_error err;
    cr_assert_eq(qr_index_stats_compute(&ix, 7, &s, &err), QR_OK, "%s", err.msg);
    cr_expect_eq(s.root_size, 64);
    cr_expect_eq(s.nodes, 9);
    cr_expect_eq(s.leaves, 7);
    cr_expect_eq(s.max_depth, 2);
    cr_expect_eq(s.leaves_per_depth[0], 0);
    cr_expect_eq(s.leaves_per_depth[1], 3);
    cr_expect_eq(s.leaves_per_depth[2], 4);
    cr_expect_eq(s.leaves_per_side[5], 3, "32-pixel leaves");
    cr_expect_eq(s.leaves_per_side[4], 4, "16-pixel leaves");
    cr_expect_eq(s.leaves_per_side[6], 0);
    cr_expect_eq(s.clipped_leaves, 2);
    /* counts 2 1 0 3 0 1 4, sorted 0 0 1 1 2 3 4 */
    cr_expect_eq(s.min_per_leaf, 0);
    cr_expect_eq(s.max_per_leaf, 4);
    cr_expect_float_eq(s.mean_per_leaf, 11.0 / 7.0, 1e-12);
    cr_expect_float_eq(s.median_per_leaf, 1.0, 0);
    cr_expect_eq(s.p90_per_leaf, 4, "rank ceil(6.3) = 7");
    cr_expect_eq(s.p99_per_leaf, 4);
    cr_expect_eq(s.empty_leaves, 2);
    cr_expect_eq(s.pairs, 11);
    cr_expect_eq(s.visible, 5);
    cr_expect_eq(s.culled, 2);
    cr_expect_float_eq(s.replication, 11.0 / 5.0, 1e-12);
}

/* Ten 16-pixel leaves holding 1..10 circles (shuffled): an even count for
 * the median, percentiles that are not the maximum. */
Test(stats, percentiles)
{
    static const int32_t counts[10] = {7, 3, 10, 1, 5, 9, 2, 8, 6, 4};
    qr_leaf leaves[10];
    int32_t lists[55];
    int64_t off = 0;
    for (int i = 0; i < 10; i++) {
        qr_leaf l = {{16 * (i % 4), 16 * (i / 4), 16 * (i % 4) + 16, 16 * (i / 4) + 16}, 2,
                     counts[i], off};
        leaves[i] = l;
        for (int k = 0; k < counts[i]; k++)
            lists[off++] = k;
    }
    qr_index ix;
    memset(&ix, 0, sizeof ix);
    ix.root_size = 64;
    ix.num_nodes = 15;
    ix.num_leaves = 10;
    ix.visible = 10; /* circles 0..9 */
    ix.culled = 2;
    ix.num_pairs = off;
    ix.leaves = leaves;
    ix.lists = lists;
    qr_index_stats s;
    qr_error err;
    cr_assert_eq(qr_index_stats_compute(&ix, 12, &s, &err), QR_OK, "%s", err.msg);
    cr_expect_float_eq(s.median_per_leaf, 5.5, 0);
    cr_expect_float_eq(s.mean_per_leaf, 5.5, 0);
    cr_expect_eq(s.p90_per_leaf, 9);
    cr_expect_eq(s.p99_per_leaf, 10);
    cr_expect_eq(s.min_per_leaf, 1);
    cr_expect_eq(s.max_per_leaf, 10);
    cr_expect_eq(s.empty_leaves, 0);
    cr_expect_eq(s.leaves_per_side[4], 10);
    cr_expect_eq(s.pairs, 55);
    cr_expect_float_eq(s.replication, 5.5, 0);
}

Test(stats, nothing_visible)
{
    qr_leaf leaf = {{0, 0, 20, 10}, 0, 0, 0};
    qr_index ix;
    memset(&ix, 0, sizeof ix);
    ix.root_size = 64; /* min leaf 64 over a 20 x 10 image */
    ix.num_nodes = 1;
    ix.num_leaves = 1;
    ix.culled = 3;
    ix.leaves = &leaf;
    qr_index_stats s;
    qr_error err;
    cr_assert_eq(qr_index_stats_compute(&ix, 3, &s, &err), QR_OK, "%s", err.msg);
    cr_expect_eq(s.visible, 0);
    cr_expect_eq(s.culled, 3);
    cr_expect_float_eq(s.replication, 0.0, 0, "no visible circle: replication 0, not NaN");
    cr_expect_eq(s.empty_leaves, 1);
    cr_expect_eq(s.clipped_leaves, 1);
    cr_expect_eq(s.leaves_per_side[6], 1);
}

/* Each inconsistency is refused, with a message, before anything is read
 * out of bounds. */
Test(stats, inconsistent_indexes)
{
    qr_index_stats s;
    qr_error err;
    qr_index ix;
    int32_t bad_lists[11];

    ix = hand_index();
    cr_expect_eq(qr_index_stats_compute(&ix, 8, &s, &err), QR_ERR_INVALID, "circle count");
    cr_expect(strstr(err.msg, "8"), "%s", err.msg);

    ix = hand_index();
    memcpy(bad_lists, hand_lists, sizeof bad_lists);
    bad_lists[10] = 7; /* circle 7 of 7 */
    ix.lists = bad_lists;
    cr_expect_eq(qr_index_stats_compute(&ix, 7, &s, &err), QR_ERR_INVALID, "entry out of range");

    ix = hand_index();
    memcpy(bad_lists, hand_lists, sizeof bad_lists);
    bad_lists[10] = 0; /* circle 5 no longer listed: 4 visible, not 5 */
    ix.lists = bad_lists;
    cr_expect_eq(qr_index_stats_compute(&ix, 7, &s, &err), QR_ERR_INVALID, "visible count");
    cr_expect(strstr(err.msg, "visible"), "%s", err.msg);

    ix = hand_index();
    ix.num_pairs = 10; /* the last leaf runs past the end */
    cr_expect_eq(qr_index_stats_compute(&ix, 7, &s, &err), QR_ERR_INVALID, "pairs");

    qr_leaf leaves[7];
    memcpy(leaves, hand_leaves, sizeof leaves);
    leaves[0].depth = 7; /* 64 >> 7 = 0 pixels */
    ix = hand_index();
    ix.leaves = leaves;
    cr_expect_eq(qr_index_stats_compute(&ix, 7, &s, &err), QR_ERR_INVALID, "depth");

    ix = hand_index();
    ix.root_size = 48;
    cr_expect_eq(qr_index_stats_compute(&ix, 7, &s, &err), QR_ERR_INVALID, "root side");

    cr_expect_eq(qr_index_stats_compute(NULL, 7, &s, &err), QR_ERR_INVALID);
}

/* A real build: the histograms add up and agree with the index. */
Test(stats, host_build_rand10k)
{
    qr_error err;
    qr_scene *scene = NULL;
    qr_index *ix = NULL;
    cr_assert_eq(qr_scene_builtin("rand10k", 0, &scene, &err), QR_OK, "%s", err.msg);
    qr_index_params p;
    qr_index_params_default(&p);
    p.capacity = 100;
    p.min_leaf = 16;
    cr_assert_eq(qr_index_build_host(scene, 1000, 600, NULL, &p, QR_RENDER_FAST, &ix, &err), QR_OK,
                 "%s", err.msg);
    qr_index_stats s;
    cr_assert_eq(qr_index_stats_compute(ix, scene->n, &s, &err), QR_OK, "%s", err.msg);
    int64_t by_depth = 0, by_side = 0, pairs = 0;
    for (int d = 0; d <= QR_MAX_DEPTH_LIMIT; d++)
        by_depth += s.leaves_per_depth[d];
    for (int k = 0; k <= QR_STATS_MAX_SIDE_LOG2; k++)
        by_side += s.leaves_per_side[k];
    for (int32_t i = 0; i < ix->num_leaves; i++)
        pairs += ix->leaves[i].count;
    cr_expect_eq(by_depth, ix->num_leaves);
    cr_expect_eq(by_side, ix->num_leaves);
    cr_expect_eq(s.leaves, ix->num_leaves);
    cr_expect_eq(s.nodes, ix->num_nodes);
    cr_expect_eq(s.max_depth, ix->max_depth_reached);
    cr_expect_eq(s.pairs, pairs);
    cr_expect_eq(s.visible, ix->visible);
    cr_expect_eq(s.culled, ix->culled);
    cr_expect(s.min_per_leaf <= s.median_per_leaf && s.median_per_leaf <= s.p90_per_leaf &&
              s.p90_per_leaf <= s.p99_per_leaf && s.p99_per_leaf <= s.max_per_leaf);
    cr_expect(s.clipped_leaves > 0, "1000 x 600 under a 1024 root cuts leaves");
    qr_index_destroy(ix);
    qr_scene_destroy(scene);
}

static char *json_of(const qr_index_stats *s, const qr_stats_context *ctx)
{
    FILE *fp = tmpfile();
    cr_assert(fp);
    qr_error err;
    cr_assert_eq(qr_index_stats_write_json(fp, s, ctx, &err), QR_OK, "%s", err.msg);
    long len = ftell(fp);
    rewind(fp);
    char *text = calloc(1, (size_t)len + 1);
    cr_assert_eq(fread(text, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    /* the same bytes in memory (qr_index_stats_json, for bindings) */
    char *mem = NULL;
    size_t n = 0;
    cr_assert_eq(qr_index_stats_json(s, ctx, &mem, &n, &err), QR_OK, "%s", err.msg);
    cr_assert_eq(n, (size_t)len, "%zu bytes in memory, %ld in a file", n, len);
    cr_assert(memcmp(mem, text, n) == 0 && mem[n] == '\0', "%s", mem);
    free(mem);
    return text;
}

Test(stats, json)
{
    qr_index ix = hand_index();
    qr_index_stats s;
    qr_error err;
    cr_assert_eq(qr_index_stats_compute(&ix, 7, &s, &err), QR_OK, "%s", err.msg);
    char *text = json_of(&s, NULL);
    cr_expect_eq(strncmp(text, "{\n  \"schema_version\": 1,", 24), 0, "%s", text);
    cr_expect(strstr(text, "\"pairs\": 11,"), "%s", text);
    cr_expect(strstr(text, "\"leaves_per_depth\": [0, 3, 4]"), "%s", text);
    cr_expect(strstr(text, "{\"side\": 16, \"leaves\": 4}, {\"side\": 32, \"leaves\": 3}"), "%s",
              text);
    cr_expect(strstr(text, "\"replication\": 2.2}"), "%s", text);
    cr_expect(!strstr(text, "\"scene\""), "no context, no scene: %s", text);
    cr_expect(!strstr(text, "\"build_ms\""), "%s", text);
    free(text);

    /* names are escaped; timing only when given */
    qr_stats_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.scene = "a\"b\\c\n";
    ctx.circles = 7;
    ctx.width = 64;
    ctx.height = 48;
    qr_index_params_default(&ctx.params);
    ctx.device = "gpu";
    ctx.device_name = "Test GPU";
    ctx.device_bytes = 4096;
    ctx.timed_builds = 10;
    ctx.warmup_builds = 3;
    ctx.has_stages = 1;
    ctx.build.sort_ms = 0.25f;
    ctx.build.total_ms = 1.5f;
    text = json_of(&s, &ctx);
    cr_expect(strstr(text, "\"name\": \"a\\\"b\\\\c\\u000a\""), "%s", text);
    cr_expect(strstr(text, "\"device\": {\"kind\": \"gpu\", \"name\": \"Test GPU\", "
                           "\"index_bytes\": 4096}"),
              "%s", text);
    cr_expect(strstr(text, "\"sort\": 0.25, \"total\": 1.5}"), "%s", text);
    cr_expect(strstr(text, "\"timed_builds\": 10"), "%s", text);
    free(text);

    /* JSON is UTF-8: well-formed sequences pass as they are, every byte of
     * a malformed one (a cut sequence, a stray continuation byte, an
     * overlong form, a surrogate) becomes U+FFFD */
    ctx.scene = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\x86|\xe2\x82|\x80|\xc0\xaf|\xed\xa0\x80|\xff";
    text = json_of(&s, &ctx);
    cr_expect(strstr(text, "\"name\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\x86|\\ufffd\\ufffd|"
                           "\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\""),
              "%s", text);
    free(text);

    /* a stream that cannot be written */
    FILE *ro = fopen("/dev/null", "r");
    cr_assert(ro);
    cr_expect_eq(qr_index_stats_write_json(ro, &s, &ctx, &err), QR_ERR_IO);
    fclose(ro);
}

/* Chunks summed: a scene cut into views, each view's index built alone and
 * added, gives the sums of the views' own statistics (additive fields), the
 * largest root and depth, and circles per leaf over every view's leaves;
 * one chunk is qr_index_stats_compute's statistics. */
Test(stats, chunks_summed)
{
    qr_error err;
    qr_scene *s = NULL;
    cr_assert_eq(qr_scene_builtin("rand10k", 0, &s, &err), QR_OK, "%s", err.msg);
    qr_index_params p;
    qr_index_params_default(&p);
    p.capacity = 64;
    const int32_t cuts[][4] = {{10000, 0, 0, 0}, {2500, 2500, 2500, 2500}, {1, 3999, 6000, 0}};
    for (int c = 0; c < 3; c++) {
        qr_index_stats_sum *sum = NULL;
        cr_assert_eq(qr_index_stats_sum_create(&sum, &err), QR_OK);
        qr_index_stats want = {0};
        int32_t first = 0, all_counts[20000], nall = 0, parts = 0;
        for (int k = 0; k < 4 && cuts[c][k]; k++, parts++) {
            qr_scene view;
            cr_assert_eq(qr_scene_view(s, first, cuts[c][k], &view, &err), QR_OK, "%s", err.msg);
            qr_index *ix = NULL;
            cr_assert_eq(qr_index_build_host(&view, 512, 384, NULL, &p, QR_RENDER_FAST, &ix, &err),
                         QR_OK, "%s", err.msg);
            qr_index_stats one;
            cr_assert_eq(qr_index_stats_compute(ix, view.n, &one, &err), QR_OK, "%s", err.msg);
            cr_assert_eq(qr_index_stats_sum_add(sum, ix, view.n, &err), QR_OK, "%s", err.msg);
            if (c == 0) want = one;
            want.nodes += c ? one.nodes : 0;
            want.leaves += c ? one.leaves : 0;
            want.pairs += c ? one.pairs : 0;
            want.visible += c ? one.visible : 0;
            want.empty_leaves += c ? one.empty_leaves : 0;
            want.max_depth = one.max_depth > want.max_depth ? one.max_depth : want.max_depth;
            for (int32_t l = 0; l < ix->num_leaves; l++) all_counts[nall++] = ix->leaves[l].count;
            qr_index_destroy(ix);
            first += cuts[c][k];
        }
        qr_index_stats got;
        int64_t chunks = 0;
        cr_assert_eq(qr_index_stats_sum_get(sum, &got, &chunks, &err), QR_OK, "%s", err.msg);
        cr_expect_eq(chunks, parts);
        cr_expect_eq(got.nodes, want.nodes, "cut %d", c);
        cr_expect_eq(got.leaves, want.leaves, "cut %d", c);
        cr_expect_eq(got.pairs, want.pairs, "cut %d", c);
        cr_expect_eq(got.visible, want.visible, "cut %d", c);
        cr_expect_eq(got.culled, 10000 - want.visible, "cut %d", c);
        cr_expect_eq(got.empty_leaves, want.empty_leaves, "cut %d", c);
        cr_expect_eq(got.max_depth, want.max_depth, "cut %d", c);
        int32_t lo = all_counts[0], hi = all_counts[0];
        for (int32_t i = 0; i < nall; i++) {
            lo = all_counts[i] < lo ? all_counts[i] : lo;
            hi = all_counts[i] > hi ? all_counts[i] : hi;
        }
        cr_expect(got.min_per_leaf == lo && got.max_per_leaf == hi, "cut %d", c);
        cr_expect(fabs(got.replication - (double)want.pairs / want.visible) < 1e-12, "cut %d", c);
        if (c == 0) /* one chunk: the index's own statistics */
            cr_expect(got.median_per_leaf == want.median_per_leaf &&
                          got.p90_per_leaf == want.p90_per_leaf &&
                          got.p99_per_leaf == want.p99_per_leaf,
                      "one chunk's percentiles");
        qr_index_stats_sum_destroy(sum);
    }
    qr_scene_destroy(s);
}
