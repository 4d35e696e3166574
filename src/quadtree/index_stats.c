/* index_stats.c — statistics of a quadtree index and their JSON form (see
 * quadrender/stats.h). Plain C: the index is read on the host, whichever
 * builder made it. */
#include "quadrender/stats.h"
#include "common/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p percent of the sorted
 * values at or below it. */
static int32_t percentile(const int32_t *sorted, int32_t n, int p)
{
    int64_t rank = ((int64_t)p * n + 99) / 100; /* ceil(p * n / 100), >= 1 for n >= 1 */
    return sorted[rank - 1];
}

/* Circles per leaf from the leaves' list lengths (sorted here) and their
 * sum. */
static void per_leaf(int32_t *counts, int32_t n, int64_t pairs, qr_index_stats *out)
{
    if (n <= 0)
        return;
    qsort(counts, (size_t)n, sizeof *counts, cmp_i32);
    out->min_per_leaf = counts[0];
    out->max_per_leaf = counts[n - 1];
    out->mean_per_leaf = (double)pairs / n;
    out->median_per_leaf = 0.5 * ((double)counts[(n - 1) / 2] + (double)counts[n / 2]);
    out->p90_per_leaf = percentile(counts, n, 90);
    out->p99_per_leaf = percentile(counts, n, 99);
}

/* Checks what the statistics rely on, so that an index from anywhere (a
 * download, a test's hand-made one) cannot make us read out of bounds. */
static qr_status check_index(const qr_index *ix, int32_t n_circles, qr_error *err)
{
    if (n_circles < 0)
        return qr_fail(err, QR_ERR_INVALID, "negative circle count %d", n_circles);
    if (ix->root_size < 1 || ix->root_size > (1 << QR_STATS_MAX_SIDE_LOG2) ||
        (ix->root_size & (ix->root_size - 1)))
        return qr_fail(err, QR_ERR_INVALID, "index root side %d is not a power of two up to %d",
                       ix->root_size, 1 << QR_STATS_MAX_SIDE_LOG2);
    if (ix->num_leaves < 0 || ix->num_pairs < 0 || ix->num_nodes < ix->num_leaves ||
        (ix->num_leaves > 0 && !ix->leaves) || (ix->num_pairs > 0 && !ix->lists))
        return qr_fail(err, QR_ERR_INVALID, "index has %d nodes, %d leaves and %lld pairs",
                       ix->num_nodes, ix->num_leaves, (long long)ix->num_pairs);
    if ((int64_t)ix->visible + ix->culled != n_circles)
        return qr_fail(err, QR_ERR_INVALID,
                       "index of %d visible and %d culled circles, but the scene has %d",
                       ix->visible, ix->culled, n_circles);
    int64_t sum = 0;
    for (int32_t i = 0; i < ix->num_leaves; i++) {
        const qr_leaf *l = &ix->leaves[i];
        if (l->depth < 0 || l->depth > QR_MAX_DEPTH_LIMIT || (ix->root_size >> l->depth) < 1)
            return qr_fail(err, QR_ERR_INVALID, "leaf %d: depth %d out of range", i, l->depth);
        if (l->count < 0 || l->offset < 0 || l->offset > ix->num_pairs - l->count)
            return qr_fail(err, QR_ERR_INVALID,
                           "leaf %d: list of %d at offset %lld outside the %lld pairs", i,
                           l->count, (long long)l->offset, (long long)ix->num_pairs);
        sum += l->count;
    }
    if (sum != ix->num_pairs)
        return qr_fail(err, QR_ERR_INVALID, "leaf lists hold %lld pairs, the index says %lld",
                       (long long)sum, (long long)ix->num_pairs);
    for (int64_t k = 0; k < ix->num_pairs; k++)
        if (ix->lists[k] < 0 || ix->lists[k] >= n_circles)
            return qr_fail(err, QR_ERR_INVALID, "list entry %lld is circle %d of %d",
                           (long long)k, ix->lists[k], n_circles);
    return QR_OK;
}

/* Circles listed at least once: a bitmap, n/8 bytes, rather than trusting
 * ix->visible, so that the check above can compare the two. */
static qr_status count_visible(const qr_index *ix, int32_t n_circles, int32_t *visible,
                               qr_error *err)
{
    unsigned char *seen = calloc((size_t)n_circles / 8 + 1, 1);
    if (!seen)
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory for the statistics of %d circles",
                       n_circles);
    int32_t v = 0;
    for (int64_t k = 0; k < ix->num_pairs; k++) {
        int32_t c = ix->lists[k];
        unsigned char bit = (unsigned char)(1u << (c & 7));
        if (!(seen[c >> 3] & bit)) {
            seen[c >> 3] |= bit;
            v++;
        }
    }
    free(seen);
    *visible = v;
    return QR_OK;
}

qr_status qr_index_stats_compute(const qr_index *ix, int32_t n_circles, qr_index_stats *out,
                                 qr_error *err)
{
    memset(out, 0, sizeof *out);
    if (!ix)
        return qr_fail(err, QR_ERR_INVALID, "no index");
    qr_status st = check_index(ix, n_circles, err);
    if (st)
        return st;
    int32_t visible = 0;
    if ((st = count_visible(ix, n_circles, &visible, err)))
        return st;
    if (visible != ix->visible)
        return qr_fail(err, QR_ERR_INVALID, "index says %d visible circles, its lists hold %d",
                       ix->visible, visible);

    int32_t n = ix->num_leaves;
    int32_t *counts = malloc((size_t)(n ? n : 1) * sizeof *counts);
    if (!counts)
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory for the statistics of %d leaves", n);
    int root_log2 = 0;
    while ((1 << root_log2) < ix->root_size)
        root_log2++;
    for (int32_t i = 0; i < n; i++) {
        const qr_leaf *l = &ix->leaves[i];
        int32_t side = ix->root_size >> l->depth;
        counts[i] = l->count;
        out->leaves_per_depth[l->depth]++;
        out->leaves_per_side[root_log2 - l->depth]++;
        if (l->rect.x1 - l->rect.x0 < side || l->rect.y1 - l->rect.y0 < side)
            out->clipped_leaves++;
        if (l->depth > out->max_depth)
            out->max_depth = l->depth;
        if (l->count == 0)
            out->empty_leaves++;
    }
    out->root_size = ix->root_size;
    out->nodes = ix->num_nodes;
    out->leaves = n;
    out->pairs = ix->num_pairs;
    out->visible = visible;
    out->culled = n_circles - visible;
    out->replication = visible ? (double)ix->num_pairs / visible : 0.0;
    per_leaf(counts, n, ix->num_pairs, out);
    free(counts);
    return QR_OK;
}

/* ---- JSON --------------------------------------------------------------------- */

/* JSON has no inf or NaN. */
/* ---- chunks summed ----------------------------------------------------------------------- */

struct qr_index_stats_sum {
    qr_index_stats s;   /* the additive fields, the largest root and depth */
    int64_t visible, culled, chunks;
    int32_t *counts;    /* every chunk's leaves' list lengths */
    int64_t ncounts, cap;
};

qr_status qr_index_stats_sum_create(qr_index_stats_sum **out, qr_error *err)
{
    *out = calloc(1, sizeof **out);
    return *out ? QR_OK : qr_fail(err, QR_ERR_NOMEM, "out of host memory for statistics");
}

void qr_index_stats_sum_destroy(qr_index_stats_sum *sum)
{
    if (!sum)
        return;
    free(sum->counts);
    free(sum);
}

qr_status qr_index_stats_sum_add(qr_index_stats_sum *sum, const qr_index *ix, int32_t n_circles,
                                 qr_error *err)
{
    qr_index_stats one;
    qr_status st = qr_index_stats_compute(ix, n_circles, &one, err);
    if (st != QR_OK)
        return st;
    if (sum->ncounts + ix->num_leaves > sum->cap) {
        const int64_t cap = 2 * (sum->ncounts + ix->num_leaves) + 64;
        int32_t *c = realloc(sum->counts, (size_t)cap * sizeof *c);
        if (!c)
            return qr_fail(err, QR_ERR_NOMEM, "out of host memory for the statistics of %lld leaves",
                           (long long)cap);
        sum->counts = c;
        sum->cap = cap;
    }
    for (int32_t i = 0; i < ix->num_leaves; i++) sum->counts[sum->ncounts++] = ix->leaves[i].count;
    qr_index_stats *s = &sum->s;
    s->root_size = one.root_size > s->root_size ? one.root_size : s->root_size;
    s->max_depth = one.max_depth > s->max_depth ? one.max_depth : s->max_depth;
    s->nodes += one.nodes;
    s->leaves += one.leaves;
    for (int d = 0; d <= QR_MAX_DEPTH_LIMIT; d++) s->leaves_per_depth[d] += one.leaves_per_depth[d];
    for (int k = 0; k <= QR_STATS_MAX_SIDE_LOG2; k++)
        s->leaves_per_side[k] += one.leaves_per_side[k];
    s->clipped_leaves += one.clipped_leaves;
    s->empty_leaves += one.empty_leaves;
    s->pairs += one.pairs;
    sum->visible += one.visible;
    sum->culled += one.culled;
    sum->chunks++;
    return QR_OK;
}

qr_status qr_index_stats_sum_get(const qr_index_stats_sum *sum, qr_index_stats *out,
                                 int64_t *chunks, qr_error *err)
{
    *out = sum->s;
    if (sum->visible > INT32_MAX || sum->culled > INT32_MAX || sum->ncounts > INT32_MAX)
        return qr_fail(err, QR_ERR_INVALID,
                       "statistics of %lld visible circles in %lld leaves: more than they count",
                       (long long)sum->visible, (long long)sum->ncounts);
    out->visible = (int32_t)sum->visible;
    out->culled = (int32_t)sum->culled;
    out->replication = sum->visible ? (double)out->pairs / (double)sum->visible : 0.0;
    const int32_t n = (int32_t)sum->ncounts;
    if (n > 0) {
        int32_t *sorted = malloc((size_t)n * sizeof *sorted);
        if (!sorted)
            return qr_fail(err, QR_ERR_NOMEM, "out of host memory for the statistics of %d leaves",
                           n);
        memcpy(sorted, sum->counts, (size_t)n * sizeof *sorted);
        per_leaf(sorted, n, out->pairs, out);
        free(sorted);
    }
    if (chunks)
        *chunks = sum->chunks;
    return QR_OK;
}

static void json_number(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.6g", v);
    else
        fputs("null", fp);
}

qr_status qr_index_stats_write_json(FILE *fp, const qr_index_stats *s,
                                    const qr_stats_context *ctx, qr_error *err)
{
    fprintf(fp, "{\n  \"schema_version\": %d,\n", QR_STATS_SCHEMA_VERSION);
    if (ctx) {
        fputs("  \"scene\": {", fp);
        if (ctx->scene) {
            fputs("\"name\": ", fp);
            qr_json_write_string(fp, ctx->scene);
            fputs(", ", fp);
        }
        fprintf(fp, "\"circles\": %d, \"seed\": %u, \"frame\": %lld},\n", ctx->circles,
                ctx->seed, (long long)ctx->frame);
        if (ctx->chunks > 0)
            fprintf(fp, "  \"chunks\": {\"count\": %lld, \"circles\": %d},\n",
                    (long long)ctx->chunks, ctx->chunk_circles);
        fprintf(fp, "  \"image\": {\"width\": %d, \"height\": %d},\n", ctx->width, ctx->height);
        fprintf(fp,
                "  \"params\": {\"capacity\": %d, \"min_leaf\": %d, \"max_leaf\": %d, "
                "\"split_cost\": %d, "
                "\"max_depth\": %d, \"deep_leaf\": %d, \"uniform\": %s, \"early_stop\": %s},\n",
                ctx->params.capacity, ctx->params.min_leaf, ctx->params.max_leaf,
                ctx->params.split_cost, ctx->params.max_depth, ctx->params.deep_leaf,
                ctx->params.uniform ? "true" : "false",
                ctx->mode == QR_RENDER_FAST ? "true" : "false");
        if (ctx->device) {
            fputs("  \"device\": {\"kind\": ", fp);
            qr_json_write_string(fp, ctx->device);
            if (ctx->device_name) {
                fputs(", \"name\": ", fp);
                qr_json_write_string(fp, ctx->device_name);
            }
            if (ctx->device_bytes)
                fprintf(fp, ", \"index_bytes\": %zu", ctx->device_bytes);
            fputs("},\n", fp);
        }
    }
    fprintf(fp,
            "  \"tree\": {\"root_size\": %d, \"nodes\": %d, \"leaves\": %d, \"max_depth\": %d, "
            "\"clipped_leaves\": %d,\n    \"leaves_per_depth\": [",
            s->root_size, s->nodes, s->leaves, s->max_depth, s->clipped_leaves);
    for (int d = 0; d <= s->max_depth; d++)
        fprintf(fp, "%s%d", d ? ", " : "", s->leaves_per_depth[d]);
    fputs("],\n    \"leaves_per_side\": [", fp);
    int first = 1;
    for (int k = 0; k <= QR_STATS_MAX_SIDE_LOG2; k++) {
        if (!s->leaves_per_side[k])
            continue;
        fprintf(fp, "%s{\"side\": %d, \"leaves\": %d}", first ? "" : ", ", 1 << k,
                s->leaves_per_side[k]);
        first = 0;
    }
    fprintf(fp, "]},\n  \"circles_per_leaf\": {\"min\": %d, \"mean\": ", s->min_per_leaf);
    json_number(fp, s->mean_per_leaf);
    fputs(", \"median\": ", fp);
    json_number(fp, s->median_per_leaf);
    fprintf(fp, ", \"p90\": %d, \"p99\": %d, \"max\": %d, \"empty_leaves\": %d},\n",
            s->p90_per_leaf, s->p99_per_leaf, s->max_per_leaf, s->empty_leaves);
    fprintf(fp, "  \"circles\": {\"visible\": %d, \"culled\": %d, \"pairs\": %lld, "
                "\"replication\": ",
            s->visible, s->culled, (long long)s->pairs);
    json_number(fp, s->replication);
    fputs("}", fp);
    if (ctx && ctx->timed_builds > 0) {
        fprintf(fp, ",\n  \"build_ms\": {\"statistic\": \"%s\", \"timed_builds\": %d, "
                    "\"warmup_builds\": %d",
                ctx->chunks > 0 ? "sum" : "median", ctx->timed_builds, ctx->warmup_builds);
        if (ctx->has_stages) {
            const char *names[] = {"boxes", "tree", "count", "scan", "emit", "sort"};
            const float v[] = {ctx->build.boxes_ms, ctx->build.tree_ms, ctx->build.count_ms,
                               ctx->build.scan_ms,  ctx->build.emit_ms, ctx->build.sort_ms};
            for (int k = 0; k < 6; k++) {
                fprintf(fp, ", \"%s\": ", names[k]);
                json_number(fp, v[k]);
            }
        }
        fputs(", \"total\": ", fp);
        json_number(fp, ctx->build.total_ms);
        fputs("}", fp);
    }
    fputs("\n}\n", fp);
    if (ferror(fp))
        return qr_fail(err, QR_ERR_IO, "cannot write the statistics");
    return QR_OK;
}

qr_status qr_index_stats_json(const qr_index_stats *s, const qr_stats_context *ctx, char **json,
                              size_t *len, qr_error *err)
{
    *json = NULL;
    if (len)
        *len = 0;
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    if (!fp)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory writing the statistics");
    qr_status st = qr_index_stats_write_json(fp, s, ctx, err);
    /* the buffer and its size are final once the stream is closed */
    if (fclose(fp) != 0 && st == QR_OK)
        st = qr_fail(err, QR_ERR_NOMEM, "out of memory writing the statistics");
    if (st != QR_OK) {
        free(buf);
        if (st == QR_ERR_IO) /* a memory stream fails only for want of memory */
            st = qr_fail(err, QR_ERR_NOMEM, "out of memory writing the statistics");
        return st;
    }
    *json = buf;
    if (len)
        *len = n;
    return QR_OK;
}
