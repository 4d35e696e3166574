/* quadtree_gpu.h — the GPU quadtree build's shared types, used by its
 * orchestration (index_gpu.cu), its stages (build_stages.h has their
 * launchers) and the renderer.
 *
 * Pipeline (docs/architecture.md has the diagram), a source file a stage:
 *   boxes   per circle: cull, pixel box, 4 corner histograms over a grid of
 *           min_leaf cells (O(1) atomics per circle, whatever its size)
 *           (boxes.cu)
 *   tree    one block: 2-D prefix sums of the histograms, then level by level
 *           every node's exact circle count by inclusion-exclusion, splits,
 *           depth-first leaf numbering, list offsets, tile -> leaf map
 *           (large histograms are summed first by a kernel of many blocks)
 *           (tree.cu)
 *   count   per circle (or per few cell rows of one): leaves its box meets
 *           (min_leaf cells via the tile map) (pairs.cu)
 *   scan    first pair slot of each (CUB exclusive scan, 64-bit)
 *   emit    per circle: (leaf, circle) pairs, in circle order (pairs.cu;
 *           ahead builds count, scan and emit in one kernel)
 *   lists   the pairs to the leaves' lists, each ascending: a one-pass
 *           counting sort into the offsets the tree stage counted
 *           (lists.cu); CUB's radix sort past 2^QR_LISTS_MAX_BITS leaves
 * A tree that is one leaf is built by one kernel instead (single_leaf.cu);
 * readback.cu copies what the host checks after a build.
 * Once the list buffers exist, the build runs without waiting for the host
 * (index_gpu.h).
 */
#ifndef QR_QUADTREE_GPU_H
#define QR_QUADTREE_GPU_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "quadrender/gpu_index.h"
#include "scene/gpu/scene_gpu.h"

/* A node of the tree as the tree stage stores it (one 16-byte record). */
struct qr_dnode {
    int32_t xy;          /* x | y << 16: the bottom-left corner in pixels from the
                            region's (regions are at most QR_GPU_REGION_MAX a side) */
    int32_t first_child; /* index of the first existing child, -1 for a leaf */
    int32_t leaf;        /* depth-first leaf number, -1 for an inner node */
    int32_t depth_mask;  /* depth | (existing-children mask << 8) */
};

/* Sort bits for leaf numbers below `leaves` (0: nothing to sort). */
__host__ __device__ inline int qr_key_bits(long long leaves)
{
    int bits = 0;
    while (bits < 31 && (1LL << bits) < leaves) bits++;
    return bits;
}

/* The few scalars one build reads back. */
struct qr_build_scalars {
    int32_t visible;
    int32_t num_nodes;
    int32_t num_leaves;
    int32_t max_depth;
    int32_t overflow;
    int32_t bad_emit;
    int32_t deep_cut;     /* a node the cells could not split should have split (geom.floor) */
    int32_t max_box_cells; /* the most cells a visible circle's box spans (boxes stage) */
    uint32_t blocks_done; /* emit's blocks, for its last-block read-back */
    uint32_t tickets;     /* the fused count-and-emit's tiles, handed out in order */
    uint32_t list_tickets; /* the lists stage's tiles, likewise */
    int32_t extra_items;   /* leaves in qr_index_view.extra */
    int32_t small_leaves;  /* leaves in qr_index_view.small */
    uint32_t cover_tickets; /* the coverage count's work items, likewise */
    uint32_t render_tickets; /* the render's work items, handed out in turn (render_stage.cuh;
                                back to 0 after each render) */
    long long num_pairs;
    unsigned long long box_area; /* the visible circles' box pixels (boxes stage; qr_read_share) */
};

/* What the host reads after a build: the scalars and the scan's total.
 * An ahead build's kernel sets `ready` once both are written (the host
 * clears it before queuing the build and waits on it: quadtree/gpu/frame.cu). */
struct qr_build_readback {
    qr_build_scalars scalars;
    long long total;
    uint32_t ready;
};

/* Largest side of the region one GPU build covers: node corners and the
 * boxes stage's pixel boxes are stored in 16 bits, relative to the region's
 * corner. A larger image is built and rendered a region at a time (bands:
 * render/gpu/render_bands.cu). */
#define QR_GPU_REGION_MAX 32768

/* Most (leaf, circle) pairs one build holds (its lists are indexed by
 * int32); a build that needs more fails with QR_ERR_GPU_NOMEM. */
#define QR_GPU_MAX_PAIRS INT32_MAX

/* Geometry of one build, fixed before any kernel runs. */
struct qr_tree_geom {
    int32_t width, height; /* full image */
    qr_rect region;
    int32_t root;          /* root side, pixels */
    int32_t cell;          /* histogram cell side: the smallest leaf this build can make */
    int32_t floor;         /* the smallest leaf of the index (qr_leaf_floor): a build of
                              coarser cells that finds a node crowded past them sets
                              qr_build_scalars.deep_cut, and is built again finer */
    int32_t gx, gy;        /* cells covering the region */
    int32_t tiles_x, tiles_y;
    int32_t max_nodes;
    qr_index_params params;
    int32_t early_stop;    /* the lists feed fast mode's render (qr_mode_stops_early):
                              split_cost weighs reads by qr_read_share */
};

/* What the renderer needs from a built index (device pointers). */
struct qr_index_view {
    qr_tree_geom geom;
    const qr_leaf *leaves;
    const int32_t *lists;
    /* The tile map: two planes of tiles_y * tiles_x, row-major from the
     * bottom: the leaf holding each QR_TILE tile's bottom-left pixel, then
     * the leaf holding its top-right one (inside the region). They differ
     * only where leaves are smaller than a tile: the tile's leaves are then
     * the depth-first run between the two. Likewise a QR_REGION block's
     * leaves run from its first tile's first leaf to its last tile's last. */
    const int32_t *tile_leaf;
    /* Leaves smaller than a QR_REGION block that do not hold their block's
     * bottom-left pixel, scalars->extra_items of them, in no fixed order:
     * with leaves that small the render takes each leaf of a block as a
     * work item of its own (render_stage.cuh). */
    const int32_t *extra;
    /* Leaves smaller than a tile, scalars->small_leaves of them, in no fixed
     * order: the coverage count's work items beside its strips of tiles
     * (cover_count.cu). */
    const int32_t *small;
    /* A kernel queued behind a build that has not been checked yet must not
     * trust the lists when the build is to be redone (qr_gpu_index_fits: the
     * pairs outgrew the buffers, a one-kernel build found the root
     * splitting, cells too coarse): it returns at once (qr_build_redone),
     * leaving its output as it was, for the redone frame to render. */
    const qr_build_scalars *scalars;
    long long capacity;
};

#ifdef __CUDACC__
/* Whether the frame of view v is to be built and rendered again
 * (qr_gpu_index_fits says no): its render must not touch the image, which
 * a scene's later chunk draws on. */
__device__ __forceinline__ bool qr_build_redone(const qr_index_view &v)
{
    const qr_build_scalars *sc = v.scalars;
    return sc->num_pairs > v.capacity || sc->bad_emit || sc->deep_cut;
}
#endif

/* Where pixel (x, y) of the region lies in a buffer that holds the region's
 * pixels row by row from its bottom row (the renderer's image and counts):
 * for a whole-image region, y * width + x. */
__host__ __device__ inline size_t qr_region_pixel(const qr_tree_geom &g, int x, int y)
{
    return (size_t)(y - g.region.y0) * (size_t)(g.region.x1 - g.region.x0) + (size_t)(x - g.region.x0);
}

/* Words of the histogram buffer: the four (gx+1) x (gy+1) corner planes. */
__host__ __device__ inline size_t qr_hist_words(const qr_tree_geom *g)
{
    return 4 * (size_t)(g->gx + 1) * (g->gy + 1);
}

/* Upper bound on the nodes of any tree over this geometry (tree.cu). */
int32_t qr_tree_max_nodes(const qr_tree_geom *g);

#endif
