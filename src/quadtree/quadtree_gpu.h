/* quadtree_gpu.h — the GPU quadtree build's shared types, shared between
 * its orchestration (index_gpu.cu), its stages' kernels and the renderer.
 *
 * Pipeline (docs/architecture.md has the diagram):
 *   boxes   per circle: cull, pixel box, 4 corner histograms over a grid of
 *           min_leaf cells (O(1) atomics per circle, whatever its size)
 *   tree    one block: 2-D prefix sums of the histograms, then level by level
 *           every node's exact circle count by inclusion-exclusion, splits,
 *           depth-first leaf numbering, list offsets, tile -> leaf map
 *   count   per circle (or per few cell rows of one): leaves its box meets
 *           (min_leaf cells via the tile map)
 *   scan    first pair slot of each (CUB exclusive scan, 64-bit)
 *   emit    per circle: (leaf, circle) pairs, in circle order
 *   lists   the pairs to the leaves' lists, each ascending: a one-pass
 *           counting sort into the offsets the tree stage counted
 *           (leaf_lists.cu); CUB's radix sort past 2^QR_LISTS_MAX_BITS leaves
 * Once the list buffers exist, the build runs without waiting for the host
 * (index_gpu.h).
 */
#ifndef QR_QUADTREE_GPU_H
#define QR_QUADTREE_GPU_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "quadrender/gpu.h"
#include "scene/scene_gpu.h"

/* A node of the tree as the tree stage stores it (one 16-byte record). */
struct qr_dnode {
    int32_t xy;          /* x | y << 16, absolute pixels of the bottom-left corner */
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
    uint32_t blocks_done; /* emit's blocks, for its last-block read-back */
    uint32_t tickets;     /* the fused count-and-emit's tiles, handed out in order */
    uint32_t list_tickets; /* the lists stage's tiles, likewise */
    long long num_pairs;
};

/* What the host reads after a build: the scalars and the scan's total.
 * An ahead build's kernel sets `ready` once both are written (the host
 * clears it before queuing the build and waits on it: render/frame.cu). */
struct qr_build_readback {
    qr_build_scalars scalars;
    long long total;
    uint32_t ready;
};

/* Geometry of one build, fixed before any kernel runs. */
struct qr_tree_geom {
    int32_t width, height; /* full image */
    qr_rect region;
    int32_t root;          /* root side, pixels */
    int32_t cell;          /* histogram cell side = min_leaf */
    int32_t gx, gy;        /* cells covering the region */
    int32_t tiles_x, tiles_y;
    int32_t max_nodes;
    qr_index_params params;
};

/* What the renderer needs from a built index (device pointers). */
struct qr_index_view {
    qr_tree_geom geom;
    const qr_leaf *leaves;
    const int32_t *lists;
    const int32_t *tile_leaf; /* tiles_y * tiles_x, row-major from the bottom */
    int32_t num_leaves;
    long long num_pairs;
    /* A kernel queued behind a build that has not been checked yet must not
     * trust the lists when the pairs outgrew the buffers (the build is then
     * redone): it returns at once when scalars->num_pairs > capacity. */
    const qr_build_scalars *scalars;
    long long capacity;
};

/* Launchers (quadtree_kernels.cu); each checks its launch. pdl: launch as a
 * programmatic dependent of the kernel queued just before (common/pdl.h). */
cudaError_t qr_launch_boxes(const qr_gpu_scene *s, const qr_tree_geom *g, ushort4 *boxes,
                            uint32_t *hist, qr_build_scalars *scalars, cudaStream_t st);
cudaError_t qr_launch_tree(const qr_tree_geom *g, uint32_t *hist, qr_dnode *nodes,
                           int32_t *node_count, int32_t *node_nleaves, int32_t *node_first,
                           qr_leaf *leaves, int32_t *tile_leaf, qr_build_scalars *scalars,
                           cudaStream_t st, int pdl);
/* Pairs per work slot (n * qr_cell_rows(n) slots: circle t / R, its cell
 * rows t % R, t % R + R, ...). */
cudaError_t qr_launch_count(int32_t n, const qr_tree_geom *g, const ushort4 *boxes,
                            const int32_t *tile_leaf, const qr_leaf *leaves, uint32_t *counts,
                            cudaStream_t st, int pdl);
/* (leaf, circle) pairs of every work slot at its scanned offset, in circle
 * order, keys of key_bytes (2 or 4) bytes; pairs past `items` only set
 * scalars->bad_emit. Then it zeroes zero_words words at zero (the lists
 * stage's look-back state), pads keys[num_pairs..items) with pad_key (< 0:
 * no padding; for CUB's sort in ahead builds) and, ahead, writes and
 * publishes the read-back into rb (NULL: none) once every block is done. */
cudaError_t qr_launch_emit(int32_t n, const qr_tree_geom *g, const ushort4 *boxes,
                           const int32_t *tile_leaf, const qr_leaf *leaves, const long long *offsets,
                           const uint32_t *counts, long long items, int32_t pad_key, void *keys,
                           int key_bytes, int32_t *vals, uint32_t *zero, long long zero_words,
                           qr_build_scalars *scalars, qr_build_readback *rb, cudaStream_t st, int pdl);
/* The same for ahead builds of up to QR_CE_MAX_TILES tiles, with the count
 * and the scan folded in (decoupled look-back over the tiles; `tiles`:
 * qr_count_emit_tiles(n) words, zero, like scalars->tickets and
 * blocks_done). A tile is QR_CE_TILE threads of qr_count_emit_per(n) slots each: one slot per thread up to QR_CE_BIG_SLOTS slots (a million), four
 * past that, since micro2M's 7813 tiles of one slot per thread took 72 us
 * against 64 for the count and scan kernels (docs/benchmarks.md). */
#define QR_CE_TILE 256
#define QR_CE_MAX_TILES 4096
#ifndef QR_CE_BIG_SLOTS
#define QR_CE_BIG_SLOTS (QR_CE_TILE * QR_CE_MAX_TILES)
#endif
cudaError_t qr_launch_count_emit(int32_t n, const qr_tree_geom *g, const ushort4 *boxes,
                                 const int32_t *tile_leaf, const qr_leaf *leaves,
                                 unsigned long long *tiles, long long items, int32_t pad_key,
                                 void *keys, int key_bytes, int32_t *vals, uint32_t *zero,
                                 long long zero_words, qr_build_scalars *scalars,
                                 qr_build_readback *rb, cudaStream_t st, int pdl);

/* The lists stage (leaf_lists.cu): pairs [0, num_pairs) of `items` slots
 * (keys: 16-bit leaf numbers below 2^bits, in circle order) to the leaves'
 * lists at qr_leaf.offset, each in circle order. For 1 <= bits <=
 * QR_LISTS_MAX_BITS and items < QR_LISTS_MAX_ITEMS; `state`:
 * qr_lists_state_words(items, bits) words, zero (the emit zeroes them), and
 * scalars->list_tickets zero. Returns at once when the pairs outgrew `items`;
 * sets scalars->bad_emit if a pair does not fit the tree's counts. */
#define QR_LISTS_THREADS 256
#define QR_LISTS_MAX_BITS 10
#define QR_LISTS_MAX_ITEMS (1LL << 30)
/* Pairs per thread: big tiles spread the per-leaf work (look-back, counts)
 * over more pairs, small ones keep the GPU busy when pairs are few
 * (measured, H100: micro2M 38 -> 32 us with 32 rather than 8 a thread,
 * rand10k 8 -> 18 at 2048 x 2048). */
#define QR_LISTS_MIN_PER 8
static inline int qr_lists_per(long long items)
{
    return items < (1LL << 18) ? QR_LISTS_MIN_PER : items < (1LL << 20) ? 16 : 32;
}
static inline long long qr_lists_tiles(long long items)
{
    const long long span = (long long)QR_LISTS_THREADS * qr_lists_per(items);
    return (items + span - 1) / span;
}
static inline long long qr_lists_state_words(long long items, int bits)
{
    return qr_lists_tiles(items) << bits;
}
/* Enough state for any `items` up to cap (tiles of the fewest pairs). */
static inline long long qr_lists_state_cap(long long cap)
{
    const long long span = (long long)QR_LISTS_THREADS * QR_LISTS_MIN_PER;
    return ((cap + span - 1) / span) << QR_LISTS_MAX_BITS;
}
cudaError_t qr_launch_leaf_lists(long long items, int bits, const uint16_t *keys, const int32_t *vals,
                                 const qr_leaf *leaves, uint32_t *state, int32_t *lists,
                                 qr_build_scalars *scalars, cudaStream_t st, int pdl);

/* The whole build of a tree that is one leaf, in one kernel (one block;
 * for scenes of at most QR_SINGLE_MAX_CIRCLES). Where the root would split,
 * or more than `items` circles are visible, it reports items + 1 pairs, so
 * that the build is redone the general way. Writes the read-back into rb. */
#define QR_SINGLE_MAX_CIRCLES 8192
cudaError_t qr_launch_single_leaf(const qr_gpu_scene *s, const qr_tree_geom *g, long long items,
                                  int32_t *vals, qr_leaf *leaves, int32_t *tile_leaf,
                                  qr_build_scalars *scalars, qr_build_readback *rb, cudaStream_t st);

/* Copies the scalars and the scan's total, *last_offset + *last_count (0
 * when NULL), into out (host-mapped). */
cudaError_t qr_launch_readback(const qr_build_scalars *scalars, const long long *last_offset,
                               const uint32_t *last_count, qr_build_readback *out, cudaStream_t st);

/* Cell rows per work slot of the count and emit stages: 1 for many
 * circles, up to 8 when few would leave the GPU idle (n * R stays below
 * 2^18 whenever R > 1). */
static inline int qr_cell_rows(int32_t n)
{
    int R = 1;
    while (R < 8 && (long long)n * R < 131072) R *= 2;
    return R;
}

/* Slots per thread, and tiles, of the fused count-and-emit over n circles. */
static inline int qr_count_emit_per(int32_t n)
{
    return (long long)n * qr_cell_rows(n) > QR_CE_BIG_SLOTS ? 4 : 1;
}
static inline size_t qr_count_emit_tiles(int32_t n)
{
    const size_t span = (size_t)QR_CE_TILE * qr_count_emit_per(n);
    return ((size_t)n * qr_cell_rows(n) + span - 1) / span;
}

/* Words of the histogram buffer: the four (gx+1) x (gy+1) corner planes. */
__host__ __device__ inline size_t qr_hist_words(const qr_tree_geom *g)
{
    return 4 * (size_t)(g->gx + 1) * (g->gy + 1);
}

/* Upper bound on the nodes of any tree over this geometry. */
int32_t qr_tree_max_nodes(const qr_tree_geom *g);

#endif
