/* bench_scaling.c — `quadrender bench --scaling-plot`: frame time against
 * circle count, per family of scenes, as a table, a JSON array and an SVG
 * plot on log axes drawn by hand like bench_report.c's. The rows come from
 * the bench's measuring loop, its points from bench_scaling_points
 * (bench_rows.c); this file only prints and draws them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench/bench.h"
#include "quadrender/file.h"
#include "quadrender/text.h"

static double mib(size_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0);
}

/* "grid32" for a best grid, "quadtree" for the tree. */
static const char *point_index(const bench_point *p, char *buf, size_t len)
{
    return bench_index_name(p->row, buf, len);
}

/* The scaling points of rows (bench_scaling_points) in a new array, or NULL
 * with err set. */
static bench_point *scaling_points(const bench_row *rows, int n, int *np, qr_error *err)
{
    bench_point *pts = malloc(sizeof *pts * (2 * (size_t)n + 1));
    if (pts && (*np = bench_scaling_points(rows, n, pts)) >= 0) return pts;
    free(pts);
    qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    return NULL;
}

qr_status bench_print_scaling(FILE *out, const bench_row *rows, int n, qr_error *err)
{
    int np = 0;
    bench_point *pts = scaling_points(rows, n, &np, err);
    if (!pts) return err->status;
    int fw = 9;
    for (int i = 0; i < np; i++) {
        int l = (int)strlen(pts[i].family);
        if (l > fw) fw = l < 40 ? l : 40;
    }
    fprintf(out, "\n# scaling: frame time against circle count; the grid is the fastest tile tried\n");
    fprintf(out, "%-*s %11s %5s %-5s %-9s %9s %11s %7s %9s %9s %9s %9s\n", fw, "family", "circles",
            "size", "mode", "index", "frame ms", "pairs", "leaves", "index MiB", "image MiB",
            "scene MiB", "total MiB");
    for (int i = 0; i < np; i++) {
        const bench_point *p = &pts[i];
        const bench_row *r = p->row;
        if (i && (strcmp(p->family, pts[i - 1].family) || r->size != pts[i - 1].row->size ||
                  r->exact != pts[i - 1].row->exact))
            fputc('\n', out);
        char esc[4 * sizeof p->family], name[32];
        qr_escape_terminal(esc, sizeof esc, p->family);
        fprintf(out, "%-*s %11lld %5d %-5s %-9s ", fw, esc, bench_point_circles(p), r->size,
                r->exact ? "exact" : "fast", point_index(p, name, sizeof name));
        if (r->oom) {
            fprintf(out, "%s\n", bench_oom_text(r->oom));
            continue;
        }
        fprintf(out, "%9.4f %11lld %7d %9.1f %9.1f %9.1f %9.1f\n", r->frame.median, r->pairs,
                r->leaves, mib(r->index_bytes), mib(r->device_bytes - r->index_bytes),
                mib(r->scene_bytes), mib(r->device_bytes + r->scene_bytes));
    }
    free(pts);
    return QR_OK;
}

void bench_write_scaling_json(FILE *f, const bench_point *pts, int npts)
{
    fputc('[', f);
    for (int i = 0; i < npts; i++) {
        const bench_point *p = &pts[i];
        const bench_row *r = p->row;
        fputs(i ? ",\n    {\"family\": " : "\n    {\"family\": ", f);
        qr_json_write_string(f, p->family);
        fputs(", \"scene\": ", f);
        qr_json_write_string(f, r->scene);
        fprintf(f, ", \"circles\": %lld, \"size\": %d, \"mode\": \"%s\", \"index\": \"%s\", "
                   "\"tile\": %d",
                bench_point_circles(p), r->size, r->exact ? "exact" : "fast",
                p->best_grid ? "best grid" : "quadtree", r->grid_tile);
        if (r->oom)
            fprintf(f, ", \"out_of_memory\": \"%s\"}", r->oom == BENCH_OOM_HOST ? "host" : "gpu");
        else
            fprintf(f, ", \"frame_ms\": %.6f, \"pairs\": %lld, \"leaves\": %d, \"index_bytes\": %zu, "
                       "\"image_bytes\": %zu, \"scene_bytes\": %zu, \"device_bytes\": %zu}",
                    r->frame.median, r->pairs, r->leaves, r->index_bytes,
                    r->device_bytes - r->index_bytes, r->scene_bytes,
                    r->device_bytes + r->scene_bytes);
    }
    fputs(npts ? "\n  ]" : "]", f);
}

/* ---- SVG ------------------------------------------------------------------ */

static const char *const line_colors[] = {"#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1",
                                          "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#bab0ac"};

/* What a column of panels plots against the circle count. */
enum { COL_MS, COL_PAIRS, COL_MIB, NCOLS };
static const char *const col_titles[NCOLS] = {"ms per frame", "pairs (leaf, circle)",
                                              "MiB on the GPU (index + image + scene)"};

static double metric(const bench_row *r, int col)
{
    return col == COL_MS ? r->frame.median
         : col == COL_PAIRS ? (double)r->pairs
                            : mib(r->device_bytes + r->scene_bytes);
}

/* 10000 -> "10k"; what FAMILY:COUNT names say. */
static void fmt_count(char *buf, size_t len, double v)
{
    const double units[] = {1e9, 1e6, 1e3};
    const char *suffix[] = {"G", "M", "k"};
    for (int k = 0; k < 3; k++)
        if (v >= units[k]) {
            snprintf(buf, len, "%g%s", v / units[k], suffix[k]);
            return;
        }
    snprintf(buf, len, "%g", v);
}

/* Same family and size as the point before (one colour each). */
static int same_curve_colour(const bench_point *a, const bench_point *b)
{
    return !strcmp(a->family, b->family) && a->row->size == b->row->size;
}

typedef struct axes {
    int left, plot_w, top, plot_h;
    double xlo, xhi, ylo, yhi; /* decades */
} axes;

static int xpos(const axes *a, double circles)
{
    return a->left + (int)lround((log10(circles) - a->xlo) / (a->xhi - a->xlo) * a->plot_w);
}

static int ypos(const axes *a, double v)
{
    return a->top + a->plot_h - (int)lround((log10(v) - a->ylo) / (a->yhi - a->ylo) * a->plot_h);
}

static void draw_grid(FILE *f, const axes *a, int col)
{
    char buf[32];
    for (double d = a->xlo; d <= a->xhi + 1e-9; d += 1) {
        const int x = xpos(a, pow(10, d));
        fmt_count(buf, sizeof buf, pow(10, d));
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
                   "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                x, a->top, x, a->top + a->plot_h, x, a->top + a->plot_h + 14, buf);
    }
    for (double d = a->ylo; d <= a->yhi + 1e-9; d += 1) {
        const int y = ypos(a, pow(10, d));
        if (col == COL_PAIRS)
            fmt_count(buf, sizeof buf, pow(10, d));
        else
            snprintf(buf, sizeof buf, "%g", pow(10, d));
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
                   "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
                a->left, y, a->left + a->plot_w, y, a->left - 4, y + 4, buf);
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
            a->left, a->top, a->plot_w, a->plot_h);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">circles (log scale)</text>\n",
            a->left + a->plot_w / 2, a->top + a->plot_h + 30);
}

/* A point's tooltip: what the table says of it. */
static void point_title(FILE *f, const bench_point *p, long long circles)
{
    const bench_row *r = p->row;
    char name[32];
    fputs("<title>", f);
    qr_xml_write_text(f, r->scene);
    fprintf(f, " (%lld circles), %dx%d, %s, %s: ", circles, r->size, r->size,
            r->exact ? "exact" : "fast", point_index(p, name, sizeof name));
    if (r->oom)
        fputs(bench_oom_text(r->oom), f);
    else
        fprintf(f, "%.4f ms, %lld pairs, %d leaves, %.1f MiB on the GPU", r->frame.median, r->pairs,
                r->leaves, mib(r->device_bytes + r->scene_bytes));
    fputs("</title>", f);
}

/* The curves of one mode in one column: a polyline through the points that
 * fit, a marker at each, a cross along the top where memory ran out; and
 * with legend_x > 0, a legend entry per curve there. */
static void draw_curves(FILE *f, const axes *a, const bench_point *pts, int np, int exact, int col,
                        int legend_x)
{
    int colour = -1, entry = 0;
    const bench_point *prev = NULL;
    for (int i = 0; i < np;) {
        if (pts[i].row->exact != exact) {
            i++;
            continue;
        }
        /* one curve: the run of points with this family, size and kind */
        int j = i;
        while (j < np && pts[j].row->exact == exact && same_curve_colour(&pts[j], &pts[i]) &&
               pts[j].best_grid == pts[i].best_grid)
            j++;
        if (!prev || !same_curve_colour(prev, &pts[i])) colour++;
        prev = &pts[i];
        const char *c = line_colors[colour % (int)(sizeof line_colors / sizeof line_colors[0])];
        const char *dash = pts[i].best_grid ? " stroke-dasharray=\"6 4\"" : "";
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", c, dash);
        int drawn = 0;
        for (int k = i; k < j; k++) {
            const long long n = bench_point_circles(&pts[k]);
            if (pts[k].row->oom || n <= 0 || metric(pts[k].row, col) <= 0) continue;
            fprintf(f, "%s%d,%d", drawn++ ? " " : "", xpos(a, (double)n),
                    ypos(a, metric(pts[k].row, col)));
        }
        fputs("\"/>\n", f);
        for (int k = i; k < j; k++) {
            const long long n = bench_point_circles(&pts[k]);
            if (n <= 0 || (!pts[k].row->oom && metric(pts[k].row, col) <= 0)) continue;
            const int x = xpos(a, (double)n);
            if (pts[k].row->oom) {
                const int y = a->top + 8;
                fprintf(f, "<g stroke=\"%s\" stroke-width=\"2\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
                           "y2=\"%d\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>",
                        c, x - 5, y - 5, x + 5, y + 5, x - 5, y + 5, x + 5, y - 5);
            } else {
                const int y = ypos(a, metric(pts[k].row, col));
                if (pts[k].best_grid)
                    fprintf(f, "<g><rect x=\"%d\" y=\"%d\" width=\"7\" height=\"7\" fill=\"%s\"/>",
                            x - 3, y - 3, c);
                else
                    fprintf(f, "<g><circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/>", x, y, c);
            }
            point_title(f, &pts[k], n);
            fputs("</g>\n", f);
        }
        if (legend_x > 0) {
            const int ly = a->top + 10 + 16 * entry++;
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                       "stroke-width=\"2\"%s/><text x=\"%d\" y=\"%d\">",
                    legend_x, ly, legend_x + 24, ly, c, dash, legend_x + 30, ly + 4);
            qr_xml_write_text(f, pts[i].family);
            fprintf(f, " %d, %s</text>\n", pts[i].row->size,
                    pts[i].best_grid ? "best grid" : "quadtree");
        }
        i = j;
    }
}

/* Decades around [lo, hi], at least one. */
static void decades(double lo, double hi, double dflt_lo, double dflt_hi, double *dlo, double *dhi)
{
    if (hi <= 0) lo = dflt_lo, hi = dflt_hi;
    *dlo = floor(log10(lo));
    *dhi = ceil(log10(hi));
    if (*dhi <= *dlo) *dhi = *dlo + 1;
}

/* The plot's layout: rows of panels for the modes present (fast first),
 * columns for what is plotted, each column's axes shared by its panels. */
typedef struct scaling_plot {
    axes a[NCOLS];
    int has[2]; /* has[exact]: a row of panels for that mode */
    int npanels, width, height;
} scaling_plot;

enum { SCALING_TOP = 50, PANEL_GAP = 80 };

static void scaling_layout(scaling_plot *sp, const bench_point *pts, int np, size_t gpu_bytes)
{
    int curves = 0;
    double cmin = 1e300, cmax = 0, vmin[NCOLS], vmax[NCOLS];
    sp->has[0] = sp->has[1] = 0;
    for (int c = 0; c < NCOLS; c++) vmin[c] = 1e300, vmax[c] = 0;
    for (int i = 0; i < np; i++) {
        const bench_row *r = pts[i].row;
        sp->has[r->exact != 0] = 1;
        curves += !i || r->exact != pts[i - 1].row->exact ||
                  !same_curve_colour(&pts[i], &pts[i - 1]) || pts[i].best_grid != pts[i - 1].best_grid;
        const double c = (double)bench_point_circles(&pts[i]);
        if (c > 0) cmin = fmin(cmin, c), cmax = fmax(cmax, c);
        for (int k = 0; k < NCOLS && !r->oom; k++)
            if (metric(r, k) > 0) {
                vmin[k] = fmin(vmin[k], metric(r, k));
                vmax[k] = fmax(vmax[k], metric(r, k));
            }
    }
    /* the GPU's memory is drawn as a line: the MiB axis reaches it */
    if (gpu_bytes) {
        vmin[COL_MIB] = fmin(vmin[COL_MIB], mib(gpu_bytes));
        vmax[COL_MIB] = fmax(vmax[COL_MIB], mib(gpu_bytes));
    }
    axes *a = sp->a;
    const int plot_w = 360, left = 80, col_w = left + plot_w + 30, legend_w = 230;
    for (int k = 0; k < NCOLS; k++) {
        a[k].left = 10 + left + k * col_w;
        a[k].plot_w = plot_w;
        a[k].plot_h = curves * 16 + 20 > 300 ? curves * 16 + 20 : 300;
        decades(cmin, cmax, 1e4, 1e6, &a[k].xlo, &a[k].xhi);
    }
    decades(vmin[COL_MS], vmax[COL_MS], 0.01, 1, &a[COL_MS].ylo, &a[COL_MS].yhi);
    decades(vmin[COL_PAIRS], vmax[COL_PAIRS], 1e4, 1e6, &a[COL_PAIRS].ylo, &a[COL_PAIRS].yhi);
    decades(vmin[COL_MIB], vmax[COL_MIB], 1, 100, &a[COL_MIB].ylo, &a[COL_MIB].yhi);
    sp->npanels = sp->has[0] + sp->has[1];
    sp->width = 10 + NCOLS * col_w + legend_w;
    sp->height = SCALING_TOP + (sp->npanels ? sp->npanels : 1) * (a[0].plot_h + PANEL_GAP);
}

/* The panels of one mode, their top at y0: per column its title, grid and
 * curves (the GPU's memory as a line among the bytes); the legend right of
 * the last. */
static void draw_mode(FILE *f, scaling_plot *sp, const bench_point *pts, int np, int exact,
                      int y0, size_t gpu_bytes)
{
    for (int k = 0; k < NCOLS; k++) {
        axes *a = &sp->a[k];
        a->top = y0;
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s mode: %s (log scale)</text>\n",
                a->left, y0 - 8, exact ? "exact" : "fast", col_titles[k]);
        draw_grid(f, a, k);
        if (k == COL_MIB && gpu_bytes) {
            const int y = ypos(a, mib(gpu_bytes));
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#c00\" "
                       "stroke-dasharray=\"2 2\"/><text x=\"%d\" y=\"%d\" fill=\"#c00\">"
                       "the GPU's memory, %.1f GiB</text>\n",
                    a->left, y, a->left + a->plot_w, y, a->left + 4, y - 4,
                    (double)gpu_bytes / 1073741824.0);
        }
        draw_curves(f, a, pts, np, exact, k, k == NCOLS - 1 ? a->left + a->plot_w + 16 : 0);
    }
}

qr_status bench_write_scaling_svg(const char *path, const char *title, const bench_row *rows, int n,
                                  size_t gpu_bytes, qr_error *err)
{
    int np = 0;
    bench_point *pts = scaling_points(rows, n, &np, err);
    if (!pts) return err->status;
    scaling_plot sp;
    scaling_layout(&sp, pts, np, gpu_bytes);
    qr_file *out;
    qr_status st = qr_file_open(path, &out, err);
    if (st) {
        free(pts);
        return st;
    }
    FILE *f = qr_file_stream(out);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\" font-size=\"11\">\n",
            sp.width, sp.height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"14\">", sp.a[0].left);
    qr_xml_write_text(f, title);
    fputs(": solid = quadtree, dashed = the best grid tile, x = out of memory</text>\n", f);
    int panel = 0;
    for (int exact = 0; exact < 2; exact++)
        if (sp.has[exact])
            draw_mode(f, &sp, pts, np, exact,
                      SCALING_TOP + panel++ * (sp.a[0].plot_h + PANEL_GAP), gpu_bytes);
    fputs("</svg>\n", f);
    free(pts);
    return qr_file_commit(out, err);
}
