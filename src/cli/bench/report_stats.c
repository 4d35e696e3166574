/* report_stats.c — the data of `stats --report`'s page: the statistics as
 * `stats --json` writes them, the picture, and per index (the quadtree, the
 * grid beside it) its leaves, bytes and times. Histograms, colours and the
 * render cost each leaf predicts are computed by the page from the leaves. */
#include <string.h>

#include "cli/bench/report.h"
#include "quadrender/scene_map.h"
#include "quadrender/text.h"

static void write_row_times(FILE *f, const bench_row *r)
{
    fprintf(f, "{\"frame_ms\": %.6f, \"build_ms\": %.6f, \"stage_ms\": {", r->frame.median,
            r->build.median);
    for (int k = 0; k < BENCH_NSTAGES; k++)
        fprintf(f, "%s\"%s\": %.6f", k ? ", " : "", bench_stage_names[k], r->stage[k]);
    fprintf(f, "}, \"device_bytes\": %zu, \"index_bytes\": %zu}", r->device_bytes,
            r->index_bytes);
}

/* The row timing the index of this grid tile (0: the quadtree), or NULL. */
static const bench_row *row_of(const report_stats *rs, int tile)
{
    for (int i = 0; i < rs->nrows; i++)
        if (rs->rows[i].grid_tile == tile)
            return &rs->rows[i];
    return NULL;
}

static void write_index(FILE *f, const report_stats *rs, const qr_index *ix, int tile)
{
    char name[32];
    bench_row named = {.grid_tile = tile};
    fprintf(f, "{\"name\": \"%s\", \"tile\": %d, \"leaves\": ",
            bench_index_name(&named, name, sizeof name), tile);
    report_write_leaves(f, ix);
    fprintf(f, ", \"num_leaves\": %d, \"pairs\": %lld, \"visible\": %d, \"host_bytes\": %zu",
            ix->num_leaves, (long long)ix->num_pairs, ix->visible,
            (size_t)ix->num_leaves * sizeof(qr_leaf) + (size_t)ix->num_pairs * sizeof(int32_t));
    const bench_row *r = row_of(rs, tile);
    if (r) {
        fputs(", \"times\": ", f);
        write_row_times(f, r);
    }
    fputc('}', f);
}

/* "colorbar": the colormap (its name and its entries as #rrggbb, first to
 * last), the norm, the range and the labels [[t, value], ...], then ", ". */
static void write_colorbar(FILE *f, const cli_color_scale *sc)
{
    fputs("\"colorbar\": {\"cmap\": ", f);
    qr_json_write_string(f, sc->cmap);
    fputs(", \"norm\": ", f);
    qr_json_write_string(f, sc->norm);
    fprintf(f, ", \"vmin\": %.9g, \"vmax\": %.9g, \"colors\": [", sc->vmin, sc->vmax);
    for (int i = 0; i < QR_COLORMAP_ENTRIES; i++) {
        int c[3];
        for (int k = 0; k < 3; k++) {
            const float v = sc->rgb[3 * i + k];
            c[k] = v <= 0.0f ? 0 : v >= 1.0f ? 255 : (int)(v * 255.0f + 0.5f);
        }
        fprintf(f, "%s\"#%02x%02x%02x\"", i ? ", " : "", c[0], c[1], c[2]);
    }
    fputs("], \"ticks\": [", f);
    for (int k = 0; k < CLI_SCALE_TICKS; k++)
        fprintf(f, "%s[%.9g, %.9g]", k ? ", " : "", sc->t[k], sc->value[k]);
    fputs("]},\n", f);
}

static qr_status write_data(FILE *f, const void *arg, qr_error *err)
{
    const report_stats *rs = arg;
    fputs("{\"kind\": \"stats\", \"stats\": ", f);
    qr_status st = qr_index_stats_write_json(f, rs->stats, rs->ctx, err);
    if (st != QR_OK)
        return st;
    fputs(", ", f);
    st = report_write_image(f, rs->picture, rs->picture_alpha, rs->quadtree->width, rs->quadtree->height, err);
    if (st != QR_OK)
        return st;
    fputs(",\n\"timing\": ", f);
    qr_json_write_string(f, rs->timing);
    fputs(",\n\"indexes\": [", f);
    write_index(f, rs, rs->quadtree, 0);
    fputs(",\n", f);
    write_index(f, rs, rs->grid, rs->grid->params.min_leaf);
    fprintf(f, "],\n\"grid_chosen\": %s, ", rs->grid_chosen ? "true" : "false");
    if (rs->scale && rs->scale->on)
        write_colorbar(f, rs->scale);
    fputs("\"frames\": [", f);
    for (int i = 0; i < rs->nrows; i++) {
        char name[32];
        fprintf(f, "%s{\"index\": \"%s\", \"tile\": %d, \"times\": ", i ? ",\n" : "",
                bench_index_name(&rs->rows[i], name, sizeof name), rs->rows[i].grid_tile);
        write_row_times(f, &rs->rows[i]);
        fputc('}', f);
    }
    fputs("]}", f);
    return QR_OK;
}

qr_status report_stats_write(const char *path, const report_stats *rs, qr_error *err)
{
    return report_write_page(path, write_data, rs, err);
}
