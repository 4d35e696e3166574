/* bench_report.c — printing and saving `quadrender bench` results: the
 * table, the quadtree-versus-grid speedups, JSON, CSV and an SVG plot drawn
 * by hand (no plotting library, nothing needed to read it but a browser). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench/bench.h"
#include "quadrender/text.h"
#include "quadrender/file.h"

/* A heading when the family of scenes changes (none before the first row
 * of a run whose scenes belong to no family). */
static void group_heading(FILE *out, const char **group, const bench_row *r)
{
    if (!strcmp(*group, r->group)) return;
    *group = r->group;
    fprintf(out, "## %s scenes\n", r->group[0] ? r->group : "other");
}

void bench_print_table(FILE *out, const bench_row *rows, int n)
{
    fprintf(out, "%-11s %5s %-5s %-9s %9s %9s %9s %8s %8s %8s %7s %9s %6s %8s\n", "scene", "size",
            "mode", "index", "frame ms", "min", "max", "IQR", "build", "render", "leaves", "pairs",
            "repl", "MiB");
    const char *group = "";
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        char name[32], esc[4 * sizeof r->scene];
        qr_escape_terminal(esc, sizeof esc, r->scene);
        group_heading(out, &group, r);
        if (r->oom) {
            fprintf(out, "%-11s %5d %-5s %-9s %s\n", esc, r->size, r->exact ? "exact" : "fast",
                    bench_index_name(r, name, sizeof name), bench_oom_text(r->oom));
            continue;
        }
        fprintf(out, "%-11s %5d %-5s %-9s %9.4f %9.4f %9.4f %8.4f %8.4f %8.4f %7d %9lld %6.2f %8.1f\n",
                esc, r->size, r->exact ? "exact" : "fast", bench_index_name(r, name, sizeof name),
                r->frame.median, r->frame.min, r->frame.max, r->frame.p75 - r->frame.p25,
                r->build.median, r->stage[BENCH_RENDER], r->leaves, r->pairs,
                r->visible ? (double)r->pairs / r->visible : 0.0,
                (double)r->device_bytes / (1024.0 * 1024.0));
    }
}

void bench_print_speedups(FILE *out, const bench_row *rows, int n)
{
    int printed = 0;
    const char *group = "";
    for (int i = 0; i < n; i++) {
        const bench_row *q = &rows[i];
        if (q->grid_tile || q->oom) continue;
        const bench_row *best = bench_best_grid(rows, n, q);
        if (!best || best->oom) continue;
        if (!printed++)
            fprintf(out, "\n%-11s %5s %-5s %12s %12s %-8s %8s\n", "scene", "size", "mode",
                    "quadtree ms", "best grid ms", "tile", "speedup");
        char esc[4 * sizeof q->scene];
        qr_escape_terminal(esc, sizeof esc, q->scene);
        group_heading(out, &group, q);
        fprintf(out, "%-11s %5d %-5s %12.4f %12.4f %-8d %7.2fx\n", esc, q->size,
                q->exact ? "exact" : "fast", q->frame.median, best->frame.median, best->grid_tile,
                best->frame.median / q->frame.median);
    }
    int cpu_lines = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].cpu_ms >= 0 && !rows[i].grid_tile && !rows[i].oom) {
            char esc[4 * sizeof rows[i].scene];
            qr_escape_terminal(esc, sizeof esc, rows[i].scene);
            if (!cpu_lines++) fprintf(out, "\n");
            fprintf(out, "%-11s %5d CPU reference %.1f ms (%.0fx the quadtree, %s mode)\n",
                    esc, rows[i].size, rows[i].cpu_ms, rows[i].cpu_ms / rows[i].frame.median,
                    rows[i].exact ? "exact" : "fast");
        }
}

/* The zoo's lines, at most one per size and mode (of which a run has at most
 * 16 x 2). */
#define MAX_ZOO_LINES 32

void bench_print_zoo(FILE *out, const bench_row *rows, int n)
{
    bench_zoo_line z[MAX_ZOO_LINES];
    const int lines = bench_zoo_summary(rows, n, z, MAX_ZOO_LINES);
    if (!lines) return;
    fprintf(out, "\n## zoo: the quadtree against each scene's best grid (speedup: best grid ms / "
                 "quadtree ms),\n## and against the one tile best over the whole zoo\n");
    fprintf(out, "%5s %-5s %6s %8s %-16s %8s %16s %-11s %8s\n", "size", "mode", "scenes", "min",
            "on", "geomean", "behind (<0.98x)", "single tile", "vs it");
    for (int k = 0; k < lines; k++) {
        char esc[4 * sizeof z[k].min_scene], behind[32], tile[16];
        qr_escape_terminal(esc, sizeof esc, z[k].min_scene);
        snprintf(behind, sizeof behind, "%d (%.0f%%)", z[k].behind,
                 100.0 * z[k].behind / z[k].scenes);
        snprintf(tile, sizeof tile, "grid%d", z[k].single_tile);
        fprintf(out, "%5d %-5s %6d %7.2fx %-16s %7.2fx %16s %-11s", z[k].size,
                z[k].exact ? "exact" : "fast", z[k].scenes, z[k].min, esc, z[k].geomean, behind,
                z[k].single_tile ? tile : "none");
        if (z[k].single_tile)
            fprintf(out, " %7.2fx\n", z[k].single);
        else
            fputs("        -\n", out);
    }
}

/* The zoo's lines as the JSON key "zoo" (after a comma), when there are
 * any. */
static void json_zoo(FILE *f, const bench_row *rows, int n)
{
    bench_zoo_line z[MAX_ZOO_LINES];
    const int lines = bench_zoo_summary(rows, n, z, MAX_ZOO_LINES);
    if (!lines) return;
    fprintf(f, ",\n  \"zoo\": {\"behind_below\": %.2f, \"lines\": [", BENCH_BEHIND);
    for (int k = 0; k < lines; k++) {
        fprintf(f, "%s\n    {\"size\": %d, \"mode\": \"%s\", \"scenes\": %d, \"min\": %.4f, "
                   "\"min_scene\": ",
                k ? "," : "", z[k].size, z[k].exact ? "exact" : "fast", z[k].scenes, z[k].min);
        qr_json_write_string(f, z[k].min_scene);
        fprintf(f, ", \"geomean\": %.4f, \"behind\": %d, \"behind_share\": %.4f", z[k].geomean,
                z[k].behind, (double)z[k].behind / z[k].scenes);
        if (z[k].single_tile)
            fprintf(f, ", \"best_single_tile\": %d, \"vs_best_single_tile\": %.4f}",
                    z[k].single_tile, z[k].single);
        else
            fputs(", \"best_single_tile\": null, \"vs_best_single_tile\": null}", f);
    }
    fputs("\n  ]}", f);
}

/* Opens path for writing into *fp; "-" is stdout (*out NULL). */
static qr_status open_out(const char *path, qr_file **out, FILE **fp, qr_error *err)
{
    *out = NULL;
    if (!strcmp(path, "-")) {
        *fp = stdout;
        return QR_OK;
    }
    qr_status st = qr_file_open(path, out, err);
    *fp = st == QR_OK ? qr_file_stream(*out) : NULL;
    return st;
}

static qr_status close_out(qr_file *out, qr_error *err)
{
    if (!out) return fflush(stdout) ? qr_fail(err, QR_ERR_IO, "stdout: write failed") : QR_OK;
    return qr_file_commit(out, err);
}

static void json_stats(FILE *f, const char *name, const bench_stats *s)
{
    fprintf(f, "\"%s\": {\"median\": %.6f, \"min\": %.6f, \"max\": %.6f, \"p25\": %.6f, \"p75\": %.6f}",
            name, s->median, s->min, s->max, s->p25, s->p75);
}

qr_status bench_write_json_to(FILE *f, const char *header_json, const bench_row *rows, int n,
                              int scaling, qr_error *err)
{
    bench_point *pts = NULL;
    int npts = 0;
    if (scaling) {
        pts = malloc(sizeof *pts * (2 * (size_t)n + 1));
        if (!pts) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
        npts = bench_scaling_points(rows, n, pts);
        if (npts < 0) {
            free(pts);
            return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
        }
    }
    fprintf(f, "{\n  \"schema_version\": 1,\n  \"header\": %s,\n  \"results\": [\n", header_json);
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        char name[32];
        fputs("    {\"scene\": ", f);
        qr_json_write_string(f, r->scene);
        fputs(", \"group\": ", f);
        qr_json_write_string(f, r->group);
        fprintf(f, ", \"circles\": %lld, \"size\": %d, \"mode\": \"%s\", \"index\": \"%s\"",
                r->circles, r->size, r->exact ? "exact" : "fast",
                bench_index_name(r, name, sizeof name));
        if (r->oom) {
            fprintf(f, ", \"out_of_memory\": \"%s\"}%s\n", r->oom == BENCH_OOM_HOST ? "host" : "gpu",
                    i + 1 < n ? "," : "");
            continue;
        }
        fprintf(f, ", \"frames\": %d, ", r->frames);
        json_stats(f, "frame_ms", &r->frame);
        fputs(", ", f);
        json_stats(f, "build_ms", &r->build);
        fputs(", \"stage_ms\": {", f);
        for (int k = 0; k < BENCH_NSTAGES; k++)
            fprintf(f, "%s\"%s\": %.6f", k ? ", " : "", bench_stage_names[k], r->stage[k]);
        fprintf(f, "}, \"leaves\": %d, \"pairs\": %lld, \"visible\": %d, \"replication\": %.4f, "
                   "\"device_bytes\": %zu, \"index_bytes\": %zu, \"scene_bytes\": %zu",
                r->leaves, r->pairs, r->visible, r->visible ? (double)r->pairs / r->visible : 0.0,
                r->device_bytes, r->index_bytes, r->scene_bytes);
        if (r->cpu_ms >= 0) fprintf(f, ", \"cpu_ms\": %.3f", r->cpu_ms);
        if (r->planned)
            fprintf(f, ", \"plan\": {\"candidates\": %d, \"planning_ms\": %.3f, "
                       "\"first_frame_ms\": %.3f, \"base_ms\": %.6f, \"chosen\": {\"capacity\": %d, "
                       "\"min_leaf\": %d, \"split_cost\": %d, \"deep_leaf\": %d, \"max_leaf\": %d}}",
                    r->plan_candidates, r->plan_ms, r->plan_ms + r->frame.median, r->default_ms,
                    r->chosen.capacity, r->chosen.min_leaf, r->chosen.split_cost, r->chosen.deep_leaf,
                    r->chosen.max_leaf);
        fprintf(f, "}%s\n", i + 1 < n ? "," : "");
    }
    fputs("  ],\n  \"speedups\": [", f);
    int k = 0;
    for (int i = 0; i < n; i++) {
        const bench_row *q = &rows[i];
        if (q->grid_tile || q->oom) continue;
        const bench_row *best = bench_best_grid(rows, n, q);
        if (!best || best->oom) continue;
        fputs(k++ ? ",\n    {\"scene\": " : "\n    {\"scene\": ", f);
        qr_json_write_string(f, q->scene);
        fprintf(f, ", \"size\": %d, \"mode\": \"%s\", \"quadtree_ms\": %.6f, \"best_grid_tile\": %d, "
                   "\"best_grid_ms\": %.6f, \"speedup\": %.4f}",
                q->size, q->exact ? "exact" : "fast", q->frame.median, best->grid_tile,
                best->frame.median, best->frame.median / q->frame.median);
    }
    fputs(k ? "\n  ]" : "]", f);
    json_zoo(f, rows, n);
    if (scaling) {
        fputs(",\n  \"scaling\": ", f);
        bench_write_scaling_json(f, pts, npts);
    }
    fputs("\n}\n", f);
    free(pts);
    return QR_OK;
}

qr_status bench_write_json(const char *path, const char *header_json, const bench_row *rows, int n,
                           int scaling, qr_error *err)
{
    qr_file *out;
    FILE *f;
    qr_status st = open_out(path, &out, &f, err);
    if (!st) st = bench_write_json_to(f, header_json, rows, n, scaling, err);
    if (st) {
        qr_file_abort(out);
        return st;
    }
    return close_out(out, err);
}

qr_status bench_write_csv(const char *path, const bench_row *rows, int n, qr_error *err)
{
    qr_file *out;
    FILE *f;
    qr_status st = open_out(path, &out, &f, err);
    if (st) return st;
    fputs("scene,size,mode,index,frames,frame_median_ms,frame_min_ms,frame_max_ms,frame_p25_ms,"
          "frame_p75_ms,build_median_ms",
          f);
    for (int k = 0; k < BENCH_NSTAGES; k++) fprintf(f, ",%s_ms", bench_stage_names[k]);
    fputs(",leaves,pairs,visible,device_bytes,cpu_ms,group,circles,index_bytes,scene_bytes,"
          "out_of_memory\n",
          f);
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        char name[32];
        qr_csv_write_field(f, r->scene);
        /* a row out of memory has its names and counts, and empty times */
        fprintf(f, ",%d,%s,%s,", r->size, r->exact ? "exact" : "fast",
                bench_index_name(r, name, sizeof name));
        if (r->oom)
            fprintf(f, ",,,,,,");
        else
            fprintf(f, "%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f", r->frames, r->frame.median, r->frame.min,
                    r->frame.max, r->frame.p25, r->frame.p75, r->build.median);
        for (int k = 0; k < BENCH_NSTAGES; k++)
            if (r->oom)
                fputc(',', f);
            else
                fprintf(f, ",%.6f", r->stage[k]);
        if (r->oom)
            fprintf(f, ",,,,,");
        else
            fprintf(f, ",%d,%lld,%d,%zu,", r->leaves, r->pairs, r->visible, r->device_bytes);
        if (r->cpu_ms >= 0 && !r->oom) fprintf(f, "%.3f", r->cpu_ms);
        fputc(',', f);
        qr_csv_write_field(f, r->group);
        fprintf(f, ",%lld,", r->circles);
        if (r->oom)
            fputc(',', f);
        else
            fprintf(f, "%zu,%zu", r->index_bytes, r->scene_bytes);
        fprintf(f, ",%s\n", r->oom == BENCH_OOM_HOST ? "host" : r->oom ? "gpu" : "");
    }
    return close_out(out, err);
}

/* ---- SVG ------------------------------------------------------------------ */

static const char *const stage_colors[BENCH_NSTAGES] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                                        "#59a14f", "#edc948", "#b07aa1", "#bab0ac"};

/* The bar plot's layout: panels (distinct size and mode), groups (scenes
 * in first-seen order), bars (index configurations in first-seen order;
 * tile 0 = the quadtree) and the decades of its log axis. */
typedef struct bar_plot {
    const bench_row *rows;
    int n;
    int panel_size[16], panel_exact[16], npanels;
    const char *scenes[64], *groups[64];
    int nscenes;
    int tiles[16], ntiles;
    double dlo, dhi;
    int group_w, width, height;
} bar_plot;

enum { BAR_W = 14, BAR_GAP = 18, BAR_LEFT = 70, PANEL_H = 260, BAR_TOP = 50, LEGEND_H = 40 };

static void bar_plot_layout(bar_plot *b, const bench_row *rows, int n)
{
    memset(b, 0, sizeof *b);
    b->rows = rows;
    b->n = n;
    for (int i = 0; i < n; i++) {
        int k;
        for (k = 0; k < b->npanels && !(b->panel_size[k] == rows[i].size && b->panel_exact[k] == rows[i].exact); k++) {}
        if (k == b->npanels && b->npanels < 16) {
            b->panel_size[b->npanels] = rows[i].size;
            b->panel_exact[b->npanels++] = rows[i].exact;
        }
        for (k = 0; k < b->nscenes && strcmp(b->scenes[k], rows[i].scene); k++) {}
        if (k == b->nscenes && b->nscenes < 64) {
            b->groups[b->nscenes] = rows[i].group;
            b->scenes[b->nscenes++] = rows[i].scene;
        }
        for (k = 0; k < b->ntiles && b->tiles[k] != rows[i].grid_tile; k++) {}
        if (k == b->ntiles && b->ntiles < 16) b->tiles[b->ntiles++] = rows[i].grid_tile;
    }
    double lo = 1e30, hi = 0;
    for (int i = 0; i < n; i++) {
        if (rows[i].oom) continue;
        double first = rows[i].stage[0] > 0 ? rows[i].stage[0] : rows[i].frame.median;
        if (first < lo) lo = first;
        if (rows[i].frame.median > hi) hi = rows[i].frame.median;
    }
    if (hi <= 0) lo = 0.001, hi = 1;
    b->dlo = floor(log10(lo > 0 ? lo : 1e-4));
    b->dhi = ceil(log10(hi));
    if (b->dhi <= b->dlo) b->dhi = b->dlo + 1;
    b->group_w = b->ntiles * BAR_W + BAR_GAP;
    /* wide enough for the stages' legend with few scenes too */
    b->width = BAR_LEFT + (b->nscenes * b->group_w + 160 > BENCH_NSTAGES * 80 + 60
                               ? b->nscenes * b->group_w + 160
                               : BENCH_NSTAGES * 80 + 60);
    b->height = BAR_TOP + b->npanels * (PANEL_H + 70) + LEGEND_H;
}

/* The height of `ms` on the axis of a panel whose bottom is yb. */
static int bar_y(const bar_plot *b, int yb, double ms)
{
    return yb - (int)((log10(ms > 0 ? ms : pow(10, b->dlo)) - b->dlo) / (b->dhi - b->dlo) * PANEL_H);
}

/* Bar t of scene s in panel p at x: its stages stacked, a star on the best
 * grid (*best: found at the scene's first grid bar), or why it is missing. */
static void draw_bar(FILE *f, const bar_plot *b, int p, int s, int t, int x, int yb,
                     const bench_row **best)
{
    const bench_row *r = NULL;
    for (int i = 0; i < b->n; i++)
        if (b->rows[i].size == b->panel_size[p] && b->rows[i].exact == b->panel_exact[p] &&
            b->rows[i].grid_tile == b->tiles[t] && !strcmp(b->rows[i].scene, b->scenes[s]))
            r = &b->rows[i];
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"8\" transform=\"rotate(90 %d %d)\">%s%d</text>\n",
            x + 3, yb + 4, x + 3, yb + 4, b->tiles[t] ? "g" : "q", b->tiles[t]);
    if (!r) return;
    if (r->oom) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"8\" fill=\"#c00\" "
                   "transform=\"rotate(-90 %d %d)\">%s</text>\n",
                x + 9, yb - 4, x + 9, yb - 4, bench_oom_text(r->oom));
        return;
    }
    if (r->grid_tile && !*best) *best = bench_best_grid(b->rows, b->n, r);
    double cum = 0;
    for (int k = 0; k < BENCH_NSTAGES; k++) {
        if (r->stage[k] <= 0) continue;
        int ya = k == 0 || cum <= 0 ? yb : bar_y(b, yb, cum);
        cum += r->stage[k];
        int yt = bar_y(b, yb, cum);
        if (ya - yt < 1) continue;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
                   "<title>",
                x, yt, BAR_W - 2, ya - yt, stage_colors[k]);
        qr_xml_write_text(f, b->scenes[s]);
        fprintf(f, " %s: %.4f ms</title></rect>\n", bench_stage_names[k], r->stage[k]);
    }
    if (r == *best)
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">*</text>\n",
                x + BAR_W / 2 - 1, bar_y(b, yb, cum > 0 ? cum : r->frame.median) - 2);
}

/* Panel p: its title, the decades, and per scene its name, its family's
 * name under the family's first scene, and its bars. */
static void draw_panel(FILE *f, const bar_plot *b, int p)
{
    const int y0 = BAR_TOP + p * (PANEL_H + 70); /* panel top */
    const int yb = y0 + PANEL_H;                 /* axis bottom */
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%dx%d, %s mode (ms per frame, log scale)</text>\n",
            BAR_LEFT, y0 - 8, b->panel_size[p], b->panel_size[p], b->panel_exact[p] ? "exact" : "fast");
    for (double d = b->dlo; d <= b->dhi + 1e-9; d += 1) {
        int y = bar_y(b, yb, pow(10, d));
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", BAR_LEFT, y,
                BAR_LEFT + b->nscenes * b->group_w, y);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%g</text>\n", BAR_LEFT - 4, y + 4,
                pow(10, d));
    }
    for (int s = 0; s < b->nscenes; s++) {
        const int gx = BAR_LEFT + s * b->group_w + BAR_GAP / 2;
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
                gx + b->ntiles * BAR_W / 2, yb + 30);
        qr_xml_write_text(f, b->scenes[s]);
        fputs("</text>\n", f);
        /* the family's name under its first scene, a rule before it */
        if (b->groups[s][0] && (s == 0 || strcmp(b->groups[s], b->groups[s - 1]))) {
            if (s) fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n",
                           gx - BAR_GAP / 2, y0, gx - BAR_GAP / 2, yb + 48);
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">", gx, yb + 46);
            qr_xml_write_text(f, b->groups[s]);
            fputs(" scenes</text>\n", f);
        }
        const bench_row *best = NULL;
        for (int t = 0; t < b->ntiles; t++) draw_bar(f, b, p, s, t, gx + t * BAR_W, yb, &best);
    }
}

qr_status bench_write_svg(const char *path, const char *title, const bench_row *rows, int n,
                          qr_error *err)
{
    bar_plot b;
    bar_plot_layout(&b, rows, n);
    qr_file *out;
    FILE *f;
    qr_status st = open_out(path, &out, &f, err);
    if (st) return st;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\" font-size=\"11\">\n",
            b.width, b.height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"14\">", BAR_LEFT);
    qr_xml_write_text(f, title);
    fputs("</text>\n", f);
    for (int p = 0; p < b.npanels; p++) draw_panel(f, &b, p);
    const int ly = b.height - LEGEND_H + 10;
    for (int k = 0; k < BENCH_NSTAGES; k++) {
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"%d\">%s</text>\n",
                BAR_LEFT + k * 80, ly, stage_colors[k], BAR_LEFT + k * 80 + 14, ly + 9,
                bench_stage_names[k]);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">bars: q = quadtree, gN = uniform grid of N-pixel tiles, "
               "* = the best grid</text>\n",
            BAR_LEFT, ly + 26);
    fputs("</svg>\n", f);
    return close_out(out, err);
}
