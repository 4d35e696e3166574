/* quadrender/index.h — the adaptive quadtree index over a scene's circles.
 *
 * For one W x H image, or any pixel rectangle (region) of it, the index is a
 * quadtree of pixel-aligned square nodes whose leaves tile the region; each
 * leaf holds the list of circles whose pixel box (qr_circle_pixbox, the
 * reference renderer's conservative box) meets it, in ascending circle index
 * (= drawing order). A node is split while it holds more than `capacity`
 * circles (or is larger than `max_leaf`), is larger than `min_leaf` pixels and
 * is shallower than `max_depth` — and, with a `split_cost`, only where the
 * split pays (qr_index_params below).
 *
 * Geometry: the root is the square of side S = the smallest power of two that
 * is >= max(region width, region height, min_leaf), anchored at the region's
 * bottom-left corner. Children are visited in the order bottom-left,
 * bottom-right, top-left, top-right; children lying wholly outside the region
 * do not exist, and node rectangles are clipped to the region. Leaves are
 * numbered in depth-first order, and lists are stored leaf after leaf.
 *
 * Culling: circles with r <= 0, non-finite values or a radius whose square
 * overflows (qr_radius_draws in common/circle_math.h), with an empty pixel box
 * inside the region, or whose small box (at most 3 x 3 pixels) holds no
 * covered pixel centre are left out of every list.
 *
 * Two builders give identical results: qr_index_build_host (plain C, the
 * oracle) and the GPU builder in quadrender/gpu.h.
 */
#ifndef QUADRENDER_INDEX_H
#define QUADRENDER_INDEX_H

#include <stdint.h>
#include "quadrender/error.h"
#include "quadrender/image.h"
#include "quadrender/render_mode.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Side of the render kernel's pixel tile and of the GPU index's tile map.
 * Leaves may be smaller (down to QR_MIN_LEAF) where circles crowd: such a
 * tile is then a node whose leaves all lie inside it. */
#define QR_TILE 16
/* Smallest leaf side the builders take. */
#define QR_MIN_LEAF 4
/* Side of the render kernel's block region: a leaf's list is read once by
 * every region it covers. */
#define QR_REGION 32
/* Deepest tree the builders support (root = depth 0). */
#define QR_MAX_DEPTH_LIMIT 15

typedef struct qr_index_params {
    int32_t capacity;  /* split nodes holding more circles than this */
    int32_t min_leaf;  /* smallest leaf side in pixels: a power of two >= QR_MIN_LEAF.
                          Nodes of QR_REGION pixels or less split by capacity alone
                          (split_cost weighs only larger ones) */
    int32_t max_depth; /* deepest level (root = 0), <= QR_MAX_DEPTH_LIMIT */
    int32_t uniform;   /* nonzero: ignore capacity and split every node down to
                          min_leaf — the classic uniform grid of min_leaf tiles */
    int32_t max_leaf;  /* largest leaf side in pixels: larger nodes split whatever
                          they hold (a power of two >= min_leaf; 0 = no limit).
                          The render kernel re-reads a leaf's list once per 32 x 32
                          region, so huge leaves cost more than they save. */
    int32_t split_cost; /* 0: split by capacity alone. Else a node over capacity
                          splits only if the pairs its children add cost less
                          than the list reads they save the render kernel:
                            100 * (C' - C) < split_cost * (R(s) * C - R(s/2) * C')
                          C: the node's circles, C': its children's summed,
                          R(s) = max(1, s / QR_REGION)^2 regions reading a leaf
                          of side s. split_cost is the cost of one list read
                          by a region in percent of one pair (0..1000). Small
                          circles (micro2M) split almost for free; big ones
                          (biglittle) keep larger leaves; in fast mode's index
                          the reads are weighed by the share a region reads
                          (the render mode, below). Nodes of QR_REGION
                          pixels or less, and nodes of more than 16384
                          circles (one block's walk of such a list holds up
                          the frame), split by capacity alone. */
    int32_t deep_leaf; /* smallest leaf where circles crowd. A tree with a node of
                          min_leaf holding more than QR_SPLIT_CROWDED circles, more
                          than capacity, and more than 8 times its share of the
                          visible circles by area, is crowded: there every node of
                          min_leaf or less holding more than QR_SPLIT_DEEP circles
                          (and more than capacity) splits, down to qr_leaf_floor
                          (this side, or the root's 1/256 if larger, never above
                          min_leaf). A power of two from QR_MIN_LEAF; 0: none
                          (min_leaf is the floor). */
} qr_index_params;

/* The render mode an index is built for (the builders' `mode` argument;
 * the renderers pass their own). Fast mode (QR_RENDER_FAST) stops each
 * pixel's walk once what lies behind cannot show, so a region reads only
 * the front of a list, the shorter the more circles cover each pixel:
 * split_cost's list reads are then weighed by the share of a list a region
 * reads, QR_STOP_COVERAGE over the scene's coverage (the visible circles'
 * box area per pixel of the region), at most 1 and at least
 * QR_READ_SHARE_MIN / QR_READ_SHARE_ONE. Exact mode (QR_RENDER_EXACT)
 * reads every list whole. Without split_cost the mode changes nothing.
 *
 * The share of a list a region reads in an early-stopping render, in
 * thousandths: QR_STOP_COVERAGE box pixels per pixel are about where fast
 * mode's walks stop (its tolerance is reached after some 20 blends of the
 * built-in scenes' alpha, one blend per one to two box pixels). Below a
 * fifth, reading less was measured to gain nothing (rand100k, rand1M,
 * biglittle: docs/benchmarks.md). */
#define QR_STOP_COVERAGE 128
#define QR_READ_SHARE_ONE 1000
#define QR_READ_SHARE_MIN 200

/* Circles past which a node splits whatever split_cost says, and below
 * min_leaf down to the deep_leaf floor: one render block walking so long a
 * list holds up the whole frame. Below min_leaf only in a crowded tree
 * (past QR_SPLIT_CROWDED circles in a node of min_leaf): the GPU build of
 * leaves below min_leaf costs more than lists of fewer circles do
 * (measured on the ring and spiral scenes). */
#define QR_SPLIT_DEEP 16384
#define QR_SPLIT_CROWDED 65536

/* Defaults chosen by measurement (docs/benchmarks.md). */
void qr_index_params_default(qr_index_params *p);
qr_status qr_index_params_check(const qr_index_params *p, qr_error *err);

/* ---- plans: settings a renderer times on the scene itself ------------------
 * A renderer that draws many frames of one scene (a sequence, a Python
 * Renderer, bench) may time a few settings of the quadtree on the scene
 * and keep the fastest (qr_gpu_renderer_plan, quadrender/gpu_render.h):
 * where the split rule's cost model misjudges a scene, one of them finds
 * what a sweep of the options finds. The candidates are the base settings
 * first, then variants of them (smaller or larger minimum leaves, no
 * weighing by split_cost, no or shallower splits where circles crowd, no
 * leaf above 256 pixels), a
 * table of data (src/quadtree/index_plan.c) chosen on the zoo's tuning
 * seeds (docs/benchmarks.md, "Plans"). */
#define QR_PLAN_MAX 8
/* The most frames a plan times each candidate. */
#define QR_PLAN_TRIALS_MAX 64

/* A plan's frames a candidate given as text (the CLI's --plan, Python's
 * trials=): 0 (no plan) to QR_PLAN_TRIALS_MAX; else QR_ERR_INVALID,
 * "<name>: expected 0 (no plan) to 64 frames a candidate, got '<text>'". */
qr_status qr_index_check_plan(const char *name, const char *text, int32_t *out, qr_error *err);

/* The candidate settings for base, base itself first, each a valid
 * qr_index_params (variants that base's own values make invalid or equal
 * to an earlier one are left out; a uniform grid has none but itself).
 * Writes at most max into out; returns how many. */
int qr_index_plan_candidates(const qr_index_params *base, qr_index_params *out, int max);

/* The index options as a user gives them (the CLI's --index, --tile, ...;
 * Python's index=, tile=, ...), checked here so that every front end
 * refuses the same (messages: quadrender/text.h). */

/* The index kind named by text: "quadtree" (*uniform = 0) or "grid" (1);
 * else QR_ERR_INVALID, "<name>: expected 'quadtree' or 'grid', got '<text>'". */
qr_status qr_index_check_kind(const char *name, const char *text, int32_t *uniform, qr_error *err);

/* A grid's tile side given as text: a power of two from QR_TILE to 32768
 * (a grid's tiles are render tiles); else QR_ERR_INVALID, "<name>: expected
 * a power of two from 16 to 32768, got '<text>'". The same as
 * qr_index_check_value(QR_IXO_TILE, ...). */
qr_status qr_index_check_tile(const char *name, const char *text, int32_t *out, qr_error *err);

/* The index options, in the order of the CLI's table (cli.h). */
enum {
    QR_IXO_CAPACITY,
    QR_IXO_MIN_LEAF,
    QR_IXO_MAX_DEPTH,
    QR_IXO_INDEX,
    QR_IXO_TILE,
    QR_IXO_MAX_LEAF,
    QR_IXO_SPLIT_COST,
    QR_IXO_DEEP_LEAF,
    QR_IXO_COUNT
};

/* The value of index option `option` (a QR_IXO_* other than QR_IXO_INDEX,
 * whose text qr_index_check_kind reads) given as text; else QR_ERR_INVALID,
 * "<name>: expected <what>, got '<text>'", where <what> is
 *   capacity    "an integer from 1 to 1073741824"
 *   min_leaf    "a power of two from 4 to 32768"
 *   max_depth   "an integer from 0 to 15"
 *   tile        "a power of two from 16 to 32768" (the grid's min_leaf)
 *   max_leaf    "0, or a power of two from 16 to 32768"
 *   split_cost  "an integer from 0 to 1000"
 *   deep_leaf   "0, or a power of two from 4 to 32768"
 * (the ranges qr_index_params_check takes). An option out of range (or
 * QR_IXO_INDEX) is QR_ERR_INVALID, "index option <option>: not a number". */
qr_status qr_index_check_value(int option, const char *name, const char *text, int32_t *out,
                               qr_error *err);

/* Whether the options a user gave (bit 1 << QR_IXO_k for each option k
 * given) go together for the index kind chosen (uniform: the grid): a tile
 * only with the grid, and with the grid none of the quadtree's capacity,
 * min_leaf, max_leaf, split_cost and deep_leaf. names[k] is how the front
 * end spells option k ("--tile", "tile"), names[QR_IXO_INDEX] how it
 * spells choosing the grid ("--index grid", "index='grid'"). Else
 * QR_ERR_INVALID, "<tile>: only with <grid>" or "<option>: not with <grid>
 * (its tiles are set by <tile>)". */
qr_status qr_index_check_options(int32_t uniform, unsigned given, const char *const *names,
                                 qr_error *err);

/* Half-open pixel rectangle [x0,x1) x [y0,y1); y = 0 is the bottom row. */
typedef struct qr_rect {
    int32_t x0, y0, x1, y1;
} qr_rect;

typedef struct qr_leaf {
    qr_rect rect;   /* absolute image pixels, clipped to the region */
    int32_t depth;  /* root = 0 */
    int32_t count;  /* circles in this leaf's list */
    int64_t offset; /* first entry in qr_index.lists */
} qr_leaf;

typedef struct qr_index {
    int32_t width, height; /* the full image */
    qr_rect region;        /* the part indexed */
    qr_index_params params;
    qr_render_mode mode;   /* the render it was built for (its lists' reads) */
    int32_t root_size;     /* S, pixels */
    int32_t num_nodes;     /* nodes of the tree, leaves included */
    int32_t num_leaves;
    int32_t max_depth_reached;
    int32_t visible;       /* circles in at least one list */
    int32_t culled;        /* n - visible */
    int64_t num_pairs;     /* sum of list lengths */
    qr_leaf *leaves;       /* num_leaves, depth-first order */
    int32_t *lists;        /* num_pairs circle indices */
} qr_index;

/* The rectangle for the whole image. */
qr_rect qr_rect_full(int32_t width, int32_t height);

/* Checks the parameters, the image size (1..QR_IMAGE_BANDS_MAX_DIM a side)
 * and the region (NULL = the whole image) of a build; *region_out gets the
 * region. Both builders take sides up to QR_IMAGE_BANDS_MAX_DIM: the host
 * keeps boxes and coordinates in 32-bit ints and pair counts in 64 (what
 * bounds it is the leaf count, an int32, (side / QR_TILE)^2 leaves at most,
 * and qr_split_pays's integer range, exact for roots up to 2^18); the GPU
 * stores them from the region's corner in 16 bits, so its regions are at
 * most 32768 a side (larger images are built a band at a time). */
qr_status qr_index_check_build(int32_t width, int32_t height, const qr_rect *region,
                               const qr_index_params *params, qr_rect *region_out, qr_error *err);

/* Builds the index on the host (the oracle), for images up to
 * QR_IMAGE_BANDS_MAX_DIM a side: the index a renderer in `mode` uses
 * (qr_render_cpu_fast and the GPU renderer build theirs so). region NULL =
 * whole image. */
qr_status qr_index_build_host(const qr_scene *scene, int32_t width, int32_t height,
                              const qr_rect *region, const qr_index_params *params,
                              qr_render_mode mode, qr_index **out, qr_error *err);
/* The same on `threads` threads (0: qr_threads(), quadrender/threads.h);
 * qr_index_build_host uses qr_threads(). Same index whatever the count. */
qr_status qr_index_build_host_threads(const qr_scene *scene, int32_t width, int32_t height,
                                      const qr_rect *region, const qr_index_params *params,
                                      qr_render_mode mode, int threads, qr_index **out,
                                      qr_error *err);
void qr_index_destroy(qr_index *index);

/* Whether circle i is culled for this image (see above); the box is returned
 * clipped to the region when it is not. Shared by both builders' tests. */
int qr_index_circle_box(const qr_scene *scene, int32_t i, int32_t width, int32_t height,
                        const qr_rect *region, qr_rect *box);

#ifdef __cplusplus
}
#endif
#endif
