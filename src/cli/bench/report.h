/* report.h — the self-contained HTML reports of `stats --report` and
 * `bench --report`.
 *
 * One page, report_page.html (compiled into the program by
 * cmake/QrEmbed.cmake), draws both kinds: its script reads one JSON object
 * embedded in the page (a <script type="application/json"> element) and
 * builds the views from it: the image with the leaves over it, histograms
 * and time bars for `stats`, charts for `bench`. Nothing is fetched: no
 * network, no external script or font, so the file works from file:// and
 * can be mailed or archived alone. The C side sends data, not drawings:
 * leaves rather than circles, and the image downsampled, so that a
 * million-circle scene's page stays a few megabytes.
 */
#ifndef QR_CLI_REPORT_H
#define QR_CLI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "quadrender/error.h"
#include "quadrender/floor.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/stats.h"

/* Writes the page to `path` with the JSON object that data() writes to its
 * stream as the page's data. Whole or nothing: the file appears only
 * complete (quadrender/file.h). Text data() writes must be JSON that can
 * stand inside a <script> element: strings through qr_json_write_string,
 * which escapes '<'. */
typedef qr_status (*report_data_fn)(FILE *f, const void *arg, qr_error *err);
qr_status report_write_page(const char *path, report_data_fn data, const void *arg,
                            qr_error *err);

/* Largest side of the picture a page carries: a larger image is drawn at
 * its size divided by a whole factor (the scene rendered at that size: its
 * coordinates are the image's fractions, so it is the same picture, and no
 * full-size image is ever held for the page). */
#define REPORT_IMAGE_MAX_SIDE 1024

/* The factor for a width x height image: the picture is
 * ceil(width / scale) x ceil(height / scale). */
int report_image_scale(int32_t width, int32_t height);

/* "image": {"width", "height" (the image's), "scale", "png" (the picture,
 * base64; RGBA with alpha: a scene without a background)} */
qr_status report_write_image(FILE *f, const qr_image *picture, int alpha, int32_t width,
                             int32_t height, qr_error *err);

/* The leaves of ix as columns: "x0", "y0", "x1", "y1" (pixels, y = 0 at the
 * bottom), "depth", "count", "first" and "last" (the first and last circle
 * of the list; -1 for an empty leaf), in the index's depth-first order. */
void report_write_leaves(FILE *f, const qr_index *ix);

/* `stats --report`: what the page shows of one scene. rows[] holds the
 * frame times (fast mode) of the quadtree and of each grid tile measured,
 * as bench measures them on the GPU, or the fast CPU renderer's times. */
typedef struct report_stats {
    const qr_index_stats *stats;
    const qr_stats_context *ctx;
    const qr_image *picture;   /* the scene as `render` draws it (fast mode), at the
                                  image's size / report_image_scale */
    int picture_alpha;         /* the scene has no background: the picture's PNG
                                  keeps its alpha channel */
    const qr_index *quadtree;
    const qr_index *grid;      /* the grid shown beside the quadtree */
    const bench_row *rows;     /* rows[0]: the quadtree; then the grid tiles */
    int nrows;
    int grid_chosen;           /* 1: the user's tile; 0: the fastest measured */
    const char *timing;        /* how rows were timed, one line */
    const cli_color_scale *scale; /* --color-by's scale: a colour bar (NULL or off: none) */
} report_stats;

qr_status report_stats_write(const char *path, const report_stats *rs, qr_error *err);

/* `bench --report`: the bench's JSON (bench_write_json's object) and the
 * floors of each scene and size. */
typedef struct report_floor {
    char scene[64];
    int size;
    qr_work_floor floor;
} report_floor;

/* Float operations of one flat exact blend (the reference rounds each, so
 * none fuse): a blend's time at the floor. */
#define REPORT_FLOPS_PER_BLEND 7

typedef struct report_bench {
    const char *header_json;
    const bench_row *rows;
    int nrows;
    const report_floor *floors;
    int nfloors;
    double bytes_per_s;        /* the GPU's memory bandwidth, for the floors' times */
    double flops;              /* its float instructions per second (FP32 lanes x clock) */
} report_bench;

qr_status report_bench_write(const char *path, const report_bench *rb, qr_error *err);

#endif
