/* build_stages.h — the launchers of the GPU quadtree build's stages, one
 * source file each (quadtree_gpu.h lists the pipeline), and the shapes that
 * the build's orchestration (index_gpu.cu) sizes its buffers by.
 *
 *   boxes.cu        qr_launch_boxes
 *   tree.cu         qr_launch_tree
 *   pairs.cu        qr_launch_count, qr_launch_emit, qr_launch_count_emit
 *   lists.cu        qr_launch_lists
 *   single_leaf.cu  qr_launch_single_leaf
 *   readback.cu     qr_launch_readback
 *
 * Each launcher takes its arguments in a struct (device pointers unless
 * said otherwise, read only during the call), checks its launch and
 * returns the launch's error. pdl: launch as a programmatic dependent of
 * the kernel queued just before (gpu/pdl.h); launchers without it
 * launch plainly.
 */
#ifndef QR_QUADTREE_BUILD_STAGES_H
#define QR_QUADTREE_BUILD_STAGES_H

#include "quadtree/gpu/quadtree_gpu.h"
#include "gpu/tuning/tuning_default.h"

/* ---- boxes: cull, pixel box, corner histograms ---- */

typedef struct qr_boxes_args {
    const qr_gpu_scene *scene; /* the circles (host struct of device arrays) */
    const qr_tree_geom *geom;  /* host */
    ushort4 *boxes;            /* out: per circle, its pixel box in the region, from the region's
                                  corner (zero: culled) */
    uint32_t *hist;            /* the corner histograms (qr_hist_words), zero; counted into */
    qr_build_scalars *scalars; /* zero; the visible circles are added to ->visible */
} qr_boxes_args;
cudaError_t qr_launch_boxes(const qr_boxes_args *a, cudaStream_t st);

/* ---- tree: one block decides the whole tree ---- */

typedef struct qr_tree_args {
    const qr_tree_geom *geom;  /* host */
    uint32_t *hist;            /* the boxes stage's histograms */
    qr_dnode *nodes;           /* out: the nodes (geom->max_nodes slots each, these four) */
    int32_t *node_count;       /* out: each node's circle count */
    int32_t *node_nleaves;     /* out: each node's leaves */
    int32_t *node_first;       /* out: each node's first leaf number */
    qr_leaf *leaves;           /* out: by leaf number, list offsets included */
    int32_t *tile_leaf;        /* out: the tile -> leaf map (qr_index_view) */
    int32_t *extra;            /* out: the render's extra leaves (qr_index_view) */
    int32_t *small;            /* out: the leaves below a tile (qr_index_view) */
    qr_build_scalars *scalars; /* ->visible in; node, leaf, depth and pair totals out */
} qr_tree_args;
cudaError_t qr_launch_tree(const qr_tree_args *a, cudaStream_t st, int pdl);

/* ---- pairs: the leaves each circle's box meets ---- */

/* Cell rows per work slot of the count and emit stages: 1 for many
 * circles, up to 8 when few would leave the GPU idle (n * R stays below
 * 2^18 whenever R > 1). Work slot t is circle t / R, its cell rows t % R,
 * t % R + R, ... */
static inline int qr_cell_rows(int32_t n)
{
    int R = 1;
    while (R < 8 && (long long)n * R < 131072) R *= 2;
    return R;
}

/* A work slot whose box spans more cells than this is walked by its whole
 * warp (pairs.cu), in the kernel instances launched with `big`. */
/* QR_WARP_CELLS: gpu/tuning/tuning_default.h */

/* Pairs per work slot (n * qr_cell_rows(n) slots). */
typedef struct qr_count_args {
    int32_t n;                /* circles */
    const qr_tree_geom *geom; /* host */
    const ushort4 *boxes;     /* the boxes stage's */
    const int32_t *tile_leaf; /* the tree stage's tile map */
    const qr_leaf *leaves;    /* the tree stage's leaves */
    const qr_build_scalars *scalars; /* the boxes stage's max_box_cells */
    int big;                  /* the instance that walks big boxes by warps */
    uint32_t *counts;         /* out: pairs per work slot */
} qr_count_args;
cudaError_t qr_launch_count(const qr_count_args *a, cudaStream_t st, int pdl);

/* The emit, either way: qr_launch_emit writes the (leaf, circle) pairs of
 * every work slot at its scanned offset (the count and CUB's scan ran
 * before); qr_launch_count_emit, for ahead builds of up to QR_CE_MAX_TILES
 * tiles, counts and scans in the same kernel (decoupled look-back over the
 * tiles). Pairs come in circle order; pairs past `items` only set
 * scalars->bad_emit. Then the kernel zeroes zero_words words at zero, pads
 * keys[num_pairs..items) with pad_key and, where rb is given, writes and
 * publishes the read-back into it once every block is done. */
typedef struct qr_emit_args {
    int32_t n;                 /* circles */
    const qr_tree_geom *geom;  /* host */
    const ushort4 *boxes;      /* the boxes stage's */
    const int32_t *tile_leaf;  /* the tree stage's tile map */
    const qr_leaf *leaves;     /* the tree stage's leaves */
    const long long *offsets;  /* qr_launch_emit: each work slot's first pair (the scan) */
    const uint32_t *counts;    /* qr_launch_emit: each work slot's pairs (the count) */
    unsigned long long *tiles; /* qr_launch_count_emit: look-back state,
                                  qr_count_emit_tiles(n) words, zero */
    long long items;           /* pair slots in keys and vals */
    int32_t pad_key;           /* key for the unused slots (< 0: none; CUB's sort, ahead) */
    void *keys;                /* out: leaf numbers, key_bytes (2 or 4) bytes each */
    int key_bytes;
    int bits;                  /* the sort's key bits: a leaf number past them sets bad_emit */
    int big;                   /* the instances that walk big boxes by warps */
    int32_t *vals;             /* out: circle numbers */
    uint32_t *zero;            /* words to zero (the lists stage's look-back state) */
    long long zero_words;
    qr_build_scalars *scalars; /* ->bad_emit set, ->tickets, ->blocks_done counted (zero) */
    qr_build_readback *rb;     /* host-mapped read-back (NULL: none; ahead builds) */
} qr_emit_args;
cudaError_t qr_launch_emit(const qr_emit_args *a, cudaStream_t st, int pdl);

/* The fused count-and-emit's tiles: QR_CE_TILE threads of
 * qr_count_emit_per(n) slots each, one slot per thread up to
 * QR_CE_BIG_SLOTS slots (a million), four past that: many tiles of one slot
 * a thread measure slower than the separate count and scan kernels
 * (micro2M, docs/benchmarks.md). */
/* QR_CE_TILE, QR_CE_MAX_TILES, QR_CE_BIG_SLOTS: gpu/tuning/tuning_default.h */
cudaError_t qr_launch_count_emit(const qr_emit_args *a, cudaStream_t st, int pdl);

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

/* ---- lists: the pairs to the leaves' lists ---- */

/* Pairs [0, num_pairs) of `items` slots (keys: 16-bit leaf numbers below
 * 2^bits, in circle order) to the leaves' lists at qr_leaf.offset, each in
 * circle order. For 1 <= bits <= QR_LISTS_MAX_BITS and items <
 * QR_LISTS_MAX_ITEMS. Returns at once when the pairs outgrew `items`; sets
 * scalars->bad_emit if a pair does not fit the tree's counts. */
/* QR_LISTS_THREADS: gpu/tuning/tuning_default.h */
#define QR_LISTS_MAX_BITS 10
#define QR_LISTS_MAX_ITEMS (1LL << 30)
typedef struct qr_lists_args {
    long long items;           /* pair slots */
    int bits;                  /* key bits */
    const uint16_t *keys;      /* the emit's pairs: leaf numbers */
    const int32_t *vals;       /* the emit's pairs: circle numbers */
    const qr_leaf *leaves;     /* the tree stage's leaves */
    uint32_t *state;           /* look-back state, qr_lists_state_words(items, bits) words,
                                  zero (the emit zeroes them) */
    int32_t *lists;            /* out: the leaves' lists */
    qr_build_scalars *scalars; /* ->list_tickets zero; ->bad_emit set */
} qr_lists_args;
cudaError_t qr_launch_lists(const qr_lists_args *a, cudaStream_t st, int pdl);
/* Whether the lists kernel's shared memory for `items` slots fits this
 * device (not on Turing for the largest tiles); if not, the build sorts the
 * pairs with CUB instead, to the same lists. */
int qr_lists_fit(long long items);

/* Pairs per thread: big tiles spread the per-leaf work (look-back, counts)
 * over more pairs, small ones keep the GPU busy when pairs are few
 * (measured on micro2M and rand10k, docs/benchmarks.md). */
/* QR_LISTS_MIN_PER: gpu/tuning/tuning_default.h */
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

/* ---- single leaf: the whole build of a one-leaf tree in one kernel ---- */

/* One block, for scenes of at most QR_SINGLE_MAX_CIRCLES. Where the root
 * would split, or more than `items` circles are visible, it reports
 * items + 1 pairs, so that the build is redone the general way. */
/* QR_SINGLE_MAX_CIRCLES: gpu/tuning/tuning_default.h */
typedef struct qr_single_leaf_args {
    const qr_gpu_scene *scene; /* the circles (host struct of device arrays) */
    const qr_tree_geom *geom;  /* host */
    long long items;           /* list slots in vals */
    int32_t *vals;             /* out: the one list */
    qr_leaf *leaves;           /* out: the one leaf */
    int32_t *tile_leaf;        /* out: the tile map (all leaf 0) */
    qr_build_scalars *scalars; /* out: every scalar */
    qr_build_readback *rb;     /* out: host-mapped read-back, published */
} qr_single_leaf_args;
cudaError_t qr_launch_single_leaf(const qr_single_leaf_args *a, cudaStream_t st);

/* ---- readback ---- */

/* Copies the scalars and the scan's total, *last_offset + *last_count (0
 * when last_offset is NULL), into out. */
typedef struct qr_readback_args {
    const qr_build_scalars *scalars;
    const long long *last_offset; /* the last work slot's scanned offset, or NULL */
    const uint32_t *last_count;   /* the last work slot's count */
    qr_build_readback *out;       /* host-mapped */
} qr_readback_args;
cudaError_t qr_launch_readback(const qr_readback_args *a, cudaStream_t st);

#endif
