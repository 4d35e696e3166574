/* pairs.cu — the build's (leaf, circle) pairs: the count of each work
 * slot's pairs, the emit at the scanned offsets, and for ahead builds the
 * count, scan and emit fused into one kernel.
 */
#include "quadtree/gpu/build_stages.h"
#include "quadtree/gpu/build_device.cuh"
#include "gpu/device_limits.h"
#include "gpu/pdl.h"

#include <cub/block/block_scan.cuh>

/* ---- count, emit: the leaves a circle's box meets --------------------------
 *
 * Rather than walking the tree (a chain of dependent loads, and one thread
 * stuck with every leaf of a big circle), a circle visits the min_leaf cells
 * its box covers and looks each one's leaf up in the tile map: independent,
 * cached loads. Leaf and box are rectangles, so their intersection has one
 * bottom-left cell: a cell counts iff neither its left nor its lower
 * neighbour inside the box belongs to the same leaf.
 *
 * Work unit: a slot t = i * R + j, circle i's cell rows j, j + R, j + 2R, ...
 * (R = qr_cell_rows(n)). Few circles (biglittle's 10 000 big ones) would
 * leave most of the GPU idle with one thread per circle; R > 1 spreads their
 * rows. A circle's pairs may come out in any fixed order (its leaves are
 * distinct keys, and the sort is stable across circles), so the rows need no
 * coordination beyond the scan over slots. (Counting inside the scan, as the
 * input iterator of CUB's scan, measured slower: its tiles of many items per
 * thread leave few blocks for biglittle's few slots.) */
/* Leaves below a tile (g.cell < QR_TILE) go by the box's tiles instead: a
 * tile that one leaf holds (its two map planes agree) counts as above; a
 * tile cut into smaller leaves holds leaves [first, last] that lie in it
 * alone (depth-first numbers of its subtree), each met iff its rectangle
 * meets the box. */
template <class F>
__device__ uint32_t tile_leaves(const qr_tree_geom &g, const ushort4 b,
                                const int32_t *__restrict__ tile_leaf,
                                const qr_leaf *__restrict__ leaves, int j, int R, F leaf_found)
{
    const int X0 = b.x / QR_TILE, X1 = (b.z + QR_TILE - 1) / QR_TILE;
    const int Y0 = b.y / QR_TILE, Y1 = (b.w + QR_TILE - 1) / QR_TILE;
    const int32_t *tile_last = tile_leaf + (size_t)g.tiles_x * g.tiles_y;
    uint32_t c = 0;
    for (int ty = Y0 + j; ty < Y1; ty += R) {
        const int32_t *row = tile_leaf + (size_t)ty * g.tiles_x;
        for (int tx = X0; tx < X1; tx++) {
            const int32_t first = row[tx], last = tile_last[(size_t)ty * g.tiles_x + tx];
            if (first == last) {
                if ((tx == X0 || row[tx - 1] != first) && (ty == Y0 || row[tx - g.tiles_x] != first))
                    leaf_found(c++, first);
                continue;
            }
            for (int32_t l = first; l <= last; l++) {
                const qr_rect r = leaves[l].rect;
                if (r.x0 - g.region.x0 < b.z && r.x1 - g.region.x0 > b.x &&
                    r.y0 - g.region.y0 < b.w && r.y1 - g.region.y0 > b.y)
                    leaf_found(c++, l);
            }
        }
    }
    return c;
}

template <class F>
__device__ __forceinline__ uint32_t cell_leaves(const qr_tree_geom &g, const ushort4 b,
                                                const int32_t *__restrict__ tile_leaf,
                                                const qr_leaf *__restrict__ leaves, int j, int R,
                                                F leaf_found)
{
    if (!(b.x < b.z)) return 0;
    if (g.cell < QR_TILE) return tile_leaves(g, b, tile_leaf, leaves, j, R, leaf_found);
    /* shifts, not divisions (see box_cells): these kernels are issue-bound */
    const int cs = __ffs(g.cell) - 1;
    const int tpc = g.cell / QR_TILE; /* tiles per cell side */
    const cell_box cb = box_cells_rel(g, cs, b.x, b.y, b.z, b.w);
    const int X0 = cb.X0, X1 = cb.X1, Y0 = cb.Y0, Y1 = cb.Y1;
    /* a wide box steps from leaf to leaf along a row, not cell by cell */
    const bool wide = X1 - X0 > 2;
    uint32_t c = 0;
    for (int cy = Y0 + j; cy < Y1; cy += R) {
        const int32_t *row = tile_leaf + (size_t)cy * tpc * g.tiles_x;
        const int32_t *below = row - (size_t)tpc * g.tiles_x;
        int32_t left = -1, leaf = row[X0 * tpc];
        for (int cx = X0; cx < X1;) {
            if (leaf != left && (cy == Y0 || below[cx * tpc] != leaf)) leaf_found(c++, leaf);
            /* the next cell's leaf; if it is this one again, the leaf spans
             * several cells: jump past its right edge */
            int nx = cx + 1;
            int32_t next = nx < X1 ? row[nx * tpc] : -1;
            if (wide && next == leaf) {
                nx = (leaves[leaf].rect.x1 - g.region.x0 + g.cell - 1) >> cs;
                next = nx < X1 ? row[nx * tpc] : -1;
            }
            left = leaf;
            leaf = next;
            cx = nx;
        }
    }
    return c;
}

struct ignore_leaf {
    __device__ void operator()(uint32_t, int32_t) const {}
};

/* ---- big boxes: a warp's walk ----------------------------------------------
 *
 * A slot of one huge circle (powerlaw's, at 4096^2 a box of some 58 x 58
 * cells of 64-pixel leaves) would keep one thread walking for as long as
 * the rest of the stage takes. So a slot that walks more than
 * QR_WARP_CELLS cells is walked by its whole warp, 32 cells a step in
 * row-major order, each cell tested as cell_leaves tests it: the same
 * pairs, in the same order, in count and emit alike. The kernels that can
 * (BIG) are separate instances, taken where the last build had a box that
 * wide (qr_build_scalars.max_box_cells, from the boxes stage): the warp's
 * code slows the evenly spread scenes' emit even unused (docs/benchmarks.md,
 * "What we tried"). Either instance makes the same pairs. */

/* Whether any slot of this build may go to its warp (the boxes stage's
 * widest box; cells below a tile take tile_leaves' walk instead). */
__device__ __forceinline__ bool any_big_box(const qr_tree_geom &g, const qr_build_scalars *scalars)
{
    return g.cell >= QR_TILE && scalars->max_box_cells > QR_WARP_CELLS;
}

/* Whether the slot (box b, rows j, j + R, ...) goes to its warp. */
__device__ __forceinline__ bool big_slot(const qr_tree_geom &g, const ushort4 b, int j, int R)
{
    if (!(b.x < b.z) || g.cell < QR_TILE) return false;
    const cell_box cb = box_cells_rel(g, __ffs(g.cell) - 1, b.x, b.y, b.z, b.w);
    const int rows = (cb.Y1 - cb.Y0 - j + R - 1) / R;
    return rows > 0 && (long long)rows * (cb.X1 - cb.X0) > QR_WARP_CELLS;
}

/* The slot's cells walked by the whole warp (every lane calls it with the
 * same slot); leaf_found(k, leaf) runs on the lane that found the slot's
 * k-th pair. Returns the slot's pairs on every lane. */
template <class F>
__device__ uint32_t warp_cell_leaves(const qr_tree_geom &g, const ushort4 b,
                                     const int32_t *__restrict__ tile_leaf, int j, int R,
                                     F leaf_found)
{
    const int lane = threadIdx.x % 32;
    const int tpc = g.cell / QR_TILE;
    const cell_box cb = box_cells_rel(g, __ffs(g.cell) - 1, b.x, b.y, b.z, b.w);
    const int w = cb.X1 - cb.X0, cells = (cb.Y1 - cb.Y0 - j + R - 1) / R * w;
    uint32_t c = 0;
    for (int base = 0; base < cells; base += 32) {
        const int at = base + lane;
        bool hit = false;
        int32_t leaf = 0;
        if (at < cells) {
            const int cy = cb.Y0 + j + at / w * R, cx = cb.X0 + at % w;
            const int32_t *row = tile_leaf + (size_t)cy * tpc * g.tiles_x;
            leaf = row[cx * tpc];
            hit = (cx == cb.X0 || row[(cx - 1) * tpc] != leaf) &&
                  (cy == cb.Y0 || row[cx * tpc - (ptrdiff_t)tpc * g.tiles_x] != leaf);
        }
        const uint32_t hits = __ballot_sync(0xffffffffu, hit);
        if (hit) leaf_found(c + __popc(hits & ((1u << lane) - 1u)), leaf);
        c += __popc(hits);
    }
    return c;
}

/* Runs body(box, j, lane) with the whole warp for each lane's big slot in
 * turn (big: that lane's, the same on every lane afterwards). */
template <class Body>
__device__ __forceinline__ void for_big_slots(bool big, ushort4 box, int j, Body body)
{
    uint32_t todo = __ballot_sync(0xffffffffu, big);
    const uint32_t lo = (uint32_t)box.x | (uint32_t)box.y << 16, hi = (uint32_t)box.z | (uint32_t)box.w << 16;
    while (todo) {
        const int src = __ffs(todo) - 1;
        todo &= todo - 1;
        const uint32_t l = __shfl_sync(0xffffffffu, lo, src), h = __shfl_sync(0xffffffffu, hi, src);
        const ushort4 b = make_ushort4((unsigned short)(l & 0xffff), (unsigned short)(l >> 16),
                                       (unsigned short)(h & 0xffff), (unsigned short)(h >> 16));
        body(b, __shfl_sync(0xffffffffu, j, src), src);
    }
}

/* The count and emit kernels' slot loops go a warp at a time (base is the
 * warp's first slot), so that a warp can share a big slot. */
template <bool BIG>
__global__ void k_count(int32_t slots, int R, qr_tree_geom g, const ushort4 *__restrict__ boxes,
                        const int32_t *__restrict__ tile_leaf, const qr_leaf *__restrict__ leaves,
                        const qr_build_scalars *scalars, uint32_t *counts)
{
    const int lr = __ffs(R) - 1; /* R is a power of two */
    const int lane = threadIdx.x % 32;
    qr_pdl_wait(); /* the tree */
    if constexpr (BIG) {
        if (any_big_box(g, scalars)) {
            for (int32_t base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < slots;
                 base += gridDim.x * blockDim.x) {
                const int32_t t = base + lane;
                const ushort4 box = t < slots ? boxes[t >> lr] : make_ushort4(0, 0, 0, 0);
                const int j = t & (R - 1);
                const bool big = big_slot(g, box, j, R);
                uint32_t c = big ? 0 : cell_leaves(g, box, tile_leaf, leaves, j, R, ignore_leaf());
                for_big_slots(big, box, j, [&](ushort4 b, int bj, int src) {
                    const uint32_t n = warp_cell_leaves(g, b, tile_leaf, bj, R, ignore_leaf());
                    if (lane == src) c = n;
                });
                if (t < slots) counts[t] = c;
            }
            return;
        }
    }
    for (int32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < slots; t += gridDim.x * blockDim.x)
        counts[t] = cell_leaves(g, boxes[t >> lr], tile_leaf, leaves, t & (R - 1), R, ignore_leaf());
}

/* Blocks of 256 threads for a loop over `slots` work slots: a slot per
 * thread, but at most 16 blocks per SM, each thread then looping (the loads
 * of a slot wait on one another, and a few slots per thread keep more of
 * them in flight than one: measured faster on micro2M's emit,
 * docs/benchmarks.md). `at_least`: blocks wanted anyway (to pad). */
/* SLOT_MAX_BLOCKS: gpu/tuning/tuning_default.h */
/* The slot loops index in int32: slots = n * R is at most the scene limit
 * (R > 1 only while n * R < 2^18), and a slot plus one grid stride must
 * stay below 2^31. */
static_assert((long long)QR_SCENE_MAX_CIRCLES + (long long)SLOT_MAX_BLOCKS * 256 < INT32_MAX,
              "the slot loops' int32 indices could wrap");
static int slot_blocks(long long slots, long long at_least = 1)
{
    long long blocks = (slots + 255) / 256;
    if (blocks < at_least) blocks = at_least;
    if (blocks > SLOT_MAX_BLOCKS) blocks = SLOT_MAX_BLOCKS;
    return blocks < 1 ? 1 : (int)blocks;
}

cudaError_t qr_launch_count(const qr_count_args *a, cudaStream_t st, int pdl)
{
    const int32_t n = a->n;
    const qr_tree_geom *g = a->geom;
    const ushort4 *boxes = a->boxes;
    const int32_t *tile_leaf = a->tile_leaf;
    const qr_leaf *leaves = a->leaves;
    uint32_t *counts = a->counts;
    if (n == 0) return cudaSuccess;
    const int R = qr_cell_rows(n);
    return qr_launch(a->big ? k_count<true> : k_count<false>, slot_blocks(n * R), 256, 0, st, pdl,
                     n * R, R, *g, boxes, tile_leaf,
                     leaves, (const qr_build_scalars *)a->scalars, counts);
}

/* A slot's k-th pair (leaf, circle i) at out + k; past `items` only
 * bad_emit is set. A leaf number of `bits` bits or more (an ahead build
 * guessed its key bits from the last build's leaves, and the tree has
 * more) is written as leaf 0, so the sort stays in bounds, and sets
 * bad_emit: the build is redone. */
template <class Key>
__device__ __forceinline__ void put_pair(uint32_t k, int32_t leaf, int32_t i, long long out,
                                         long long items, int bits, Key *keys, int32_t *vals,
                                         qr_build_scalars *scalars)
{
    const bool fits = bits >= 31 || (leaf >> bits) == 0;
    if (out + k < items) {
        keys[out + k] = (Key)(fits ? leaf : 0);
        vals[out + k] = i;
    }
    if (out + k >= items || !fits) scalars->bad_emit = 1;
}

/* Slot t's pairs at out, out + 1, ... (put_pair). */
template <class Key>
__device__ __forceinline__ void emit_slot(const qr_tree_geom &g, ushort4 box, int32_t t, int R,
                                          const int32_t *__restrict__ tile_leaf,
                                          const qr_leaf *__restrict__ leaves, long long out,
                                          long long items, int bits, Key *keys, int32_t *vals,
                                          qr_build_scalars *scalars)
{
    const int32_t i = t >> (__ffs(R) - 1); /* R is a power of two */
    cell_leaves(g, box, tile_leaf, leaves, t & (R - 1), R, [&](uint32_t k, int32_t leaf) {
        put_pair(k, leaf, i, out, items, bits, keys, vals, scalars);
    });
}

/* Slot t's pairs, a big slot (big_slot), by the whole warp (every lane
 * calls it with the same slot, out and t). */
template <class Key>
__device__ __forceinline__ void warp_emit_slot(const qr_tree_geom &g, ushort4 box, int32_t t, int R,
                                               const int32_t *__restrict__ tile_leaf, long long out,
                                               long long items, int bits, Key *keys, int32_t *vals,
                                               qr_build_scalars *scalars)
{
    const int32_t i = t >> (__ffs(R) - 1);
    warp_cell_leaves(g, box, tile_leaf, t & (R - 1), R, [&](uint32_t k, int32_t leaf) {
        put_pair(k, leaf, i, out, items, bits, keys, vals, scalars);
    });
}

/* The emit's last jobs, done by it rather than by kernels of their own in
 * the chain: zero the lists stage's look-back state (zero_words words at
 * zero), pad the unused slots [num_pairs, items) with pad_key (< 0: none;
 * for CUB's sort, which sorts every slot), and, in the last block to finish
 * (rb non-NULL), write and publish the read-back; total() gives that block
 * the emitted pairs. Every block's stores are ordered before its ticket
 * (barrier, then a device-wide fence), so the last one sees them all. */
template <class Key, class Total>
__device__ __forceinline__ void finish_emit(long long items, int32_t pad_key, Key *keys,
                                            uint32_t *zero, long long zero_words,
                                            qr_build_scalars *scalars, qr_build_readback *rb,
                                            Total total)
{
    __shared__ bool last;
    const long long t0 = blockIdx.x * (long long)blockDim.x + threadIdx.x,
                    step = (long long)gridDim.x * blockDim.x;
    for (long long k = t0; k < zero_words; k += step) zero[k] = 0;
    if (pad_key >= 0)
        for (long long k = scalars->num_pairs + t0; k < items; k += step) keys[k] = (Key)pad_key;
    if (!rb) return;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(&scalars->blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last) { /* (the same on every thread) */
        __threadfence();
        write_readback(scalars, total(), rb);
        __threadfence_system(); /* each thread's words before the flag */
        __syncthreads();
        if (threadIdx.x == 0) publish_readback(rb);
    }
}

/* Blocks wanted for finish_emit's grid-stride work: padding keys up to
 * `items` and zeroing zero_words words (0: none). */
static long long spare_blocks(long long items, int32_t pad_key, long long zero_words)
{
    const long long pad = pad_key >= 0 ? items / 256 : 0, z = zero_words / 1024;
    return pad > z ? pad : z;
}

/* Emit at the scanned offsets (the count and CUB's scan ran before). */
template <class Key, bool BIG>
__global__ void k_emit(int32_t slots, int R, qr_tree_geom g, const ushort4 *__restrict__ boxes,
                       const int32_t *__restrict__ tile_leaf, const qr_leaf *__restrict__ leaves,
                       const long long *__restrict__ offsets, const uint32_t *__restrict__ counts,
                       long long items, int bits, int32_t pad_key, Key *keys, int32_t *vals,
                       uint32_t *zero, long long zero_words, qr_build_scalars *scalars,
                       qr_build_readback *rb)
{
    const int lr = __ffs(R) - 1;
    const int lane = threadIdx.x % 32;
    qr_pdl_wait(); /* the offsets */
    bool shared = false;
    if constexpr (BIG) shared = any_big_box(g, scalars);
    if (!shared) {
        for (int32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < slots; t += gridDim.x * blockDim.x)
            emit_slot(g, boxes[t >> lr], t, R, tile_leaf, leaves, offsets[t], items, bits, keys, vals, scalars);
    } else {
        for (int32_t base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < slots;
             base += gridDim.x * blockDim.x) {
            const int32_t t = base + lane;
            const ushort4 box = t < slots ? boxes[t >> lr] : make_ushort4(0, 0, 0, 0);
            const long long out = t < slots ? offsets[t] : 0;
            const bool big = big_slot(g, box, t & (R - 1), R);
            if (t < slots && !big) emit_slot(g, box, t, R, tile_leaf, leaves, out, items, bits, keys, vals, scalars);
            for_big_slots(big, box, t & (R - 1), [&](ushort4 b, int, int src) {
                warp_emit_slot(g, b, __shfl_sync(0xffffffffu, t, src), R, tile_leaf,
                               __shfl_sync(0xffffffffu, out, src), items, bits, keys, vals, scalars);
            });
        }
    }
    finish_emit(items, pad_key, keys, zero, zero_words, scalars, rb, [&] {
        return slots ? offsets[slots - 1] + counts[slots - 1] : 0ll;
    });
}

cudaError_t qr_launch_emit(const qr_emit_args *a, cudaStream_t st, int pdl)
{
    if (a->n == 0 && a->pad_key < 0 && !a->zero_words && !a->rb) return cudaSuccess;
    const int R = qr_cell_rows(a->n);
    const int32_t slots = a->n * R;
    const int blocks = slot_blocks(slots, spare_blocks(a->items, a->pad_key, a->zero_words));
#define QR_EMIT_LAUNCH(K)                                                                          \
    qr_launch(a->big ? k_emit<K, true> : k_emit<K, false>, blocks, 256, 0, st, pdl, slots, R,       \
              *a->geom, a->boxes, a->tile_leaf,                                                    \
              a->leaves, a->offsets, a->counts, a->items, a->bits, a->pad_key, (K *)a->keys, a->vals,  \
              a->zero,                                                                             \
              a->zero_words, a->scalars, a->rb)
    if (a->key_bytes == 2) return QR_EMIT_LAUNCH(uint16_t);
    return QR_EMIT_LAUNCH(int32_t);
#undef QR_EMIT_LAUNCH
}

/* ---- count, scan and emit in one pass (ahead builds) -----------------------
 *
 * An ahead build need not know its pair count before it emits (it emits into
 * `items` slots and is checked afterwards), so counting, the scan over the
 * slots and the emit are one kernel. Each block takes the next tile of
 * QR_CE_TILE * PER slots (by ticket, so that tiles start in order and a tile only
 * ever waits on tiles already running), counts its slots' pairs, scans them,
 * and learns the pairs of all earlier tiles by decoupled look-back (Merrill
 * and Garland's single-pass scan): a tile publishes its own total at once
 * and its inclusive prefix as soon as it knows it, and a tile sums the
 * totals before it, 32 at a time, back to the nearest published prefix.
 * Then it emits, walking the same cells again (now cached). No per-slot
 * counts or offsets go through memory, and the build's chain has two nodes
 * fewer (the count and CUB's scan). Prefix sums of integers: deterministic. */
#define CE_AGG (1ull << 62)  /* state word: the tile's own total is known */
#define CE_INCL (2ull << 62) /* its inclusive prefix is known (value: low 62 bits) */
#define CE_VALUE ((1ull << 62) - 1)

/* Warp 0 of tile `tile`: publishes the tile's total, returns the pairs of
 * all tiles before it (on every lane), publishes the inclusive prefix. Tile
 * 0 finds the sentinel before it at once. */
__device__ long long look_back(unsigned long long *tiles, int tile, unsigned long long total)
{
    volatile unsigned long long *state = tiles;
    const int lane = threadIdx.x % 32;
    if (lane == 0) state[tile] = CE_AGG | total;
    long long prefix = 0;
    for (int end = tile;; end -= 32) {
        const int at = end - 1 - lane; /* lane 0: the nearest */
        unsigned long long w;
        do { /* before tile 0 lies an inclusive prefix of 0 */
            w = at >= 0 ? state[at] : CE_INCL;
        } while (__any_sync(0xffffffffu, (w >> 62) == 0));
        const uint32_t incl = __ballot_sync(0xffffffffu, (w >> 62) == 2);
        const int last = incl ? __ffs(incl) - 1 : 31;
        long long v = lane <= last ? (long long)(w & CE_VALUE) : 0;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        prefix += v;
        if (incl) break;
    }
    if (lane == 0) state[tile] = CE_INCL | (unsigned long long)(prefix + (long long)total);
    return prefix;
}

/* The fused count, scan (look_back) and emit, the chain's last build kernel
 * before the lists; then finish_emit. A thread takes PER consecutive slots.
 * Registers: ptxas's own choice with one slot a thread (32); with four,
 * its choice (40) spills, so at most 48 (47). */
template <class Key, int PER, bool BIG>
__global__ void __launch_bounds__(QR_CE_TILE, PER == 1 ? 0 : QR_MIN_BLOCKS(QR_CE_TILE, 5))
k_count_emit(int32_t slots, int R, qr_tree_geom g, const ushort4 *__restrict__ boxes,
             const int32_t *__restrict__ tile_leaf, const qr_leaf *__restrict__ leaves,
             unsigned long long *tiles, long long items, int bits, int32_t pad_key, Key *keys,
             int32_t *vals,
             uint32_t *zero, long long zero_words, qr_build_scalars *scalars, qr_build_readback *rb)
{
    typedef cub::BlockScan<uint32_t, QR_CE_TILE> tile_scan;
    __shared__ typename tile_scan::TempStorage scan;
    __shared__ int s_tile;
    __shared__ long long s_before;
    const int ntiles = (slots + QR_CE_TILE * PER - 1) / (QR_CE_TILE * PER);
    const int lr = __ffs(R) - 1;
    qr_pdl_wait(); /* the tree */
    if (threadIdx.x == 0) s_tile = (int)atomicAdd(&scalars->tickets, 1u);
    __syncthreads();
    const int tile = s_tile;
    if (tile < ntiles) { /* blocks past the tiles only zero and pad */
        const int32_t t0 = (tile * QR_CE_TILE + threadIdx.x) * PER;
        ushort4 box[PER];
        uint32_t count[PER], sum = 0;
#pragma unroll
        for (int k = 0; k < PER; k++) {
            box[k] = make_ushort4(0, 0, 0, 0); /* empty */
            if (t0 + k < slots) box[k] = boxes[(t0 + k) >> lr];
        }
        const int lane = threadIdx.x % 32;
        const bool any_big = BIG && any_big_box(g, scalars); /* (the same on every thread) */
        bool big[PER];
#pragma unroll
        for (int k = 0; k < PER; k++) {
            const int j = (t0 + k) & (R - 1);
            big[k] = any_big && big_slot(g, box[k], j, R);
            count[k] = big[k] ? 0 : cell_leaves(g, box[k], tile_leaf, leaves, j, R, ignore_leaf());
            if (any_big)
                for_big_slots(big[k], box[k], j, [&](ushort4 b, int bj, int src) {
                    const uint32_t n = warp_cell_leaves(g, b, tile_leaf, bj, R, ignore_leaf());
                    if (lane == src) count[k] = n;
                });
            sum += count[k];
        }
        uint32_t at, total;
        tile_scan(scan).ExclusiveSum(sum, at, total);
        if (threadIdx.x < 32) {
            const long long before = look_back(tiles, tile, total);
            if (threadIdx.x == 0) s_before = before;
        }
        __syncthreads();
        long long offset = s_before + at;
#pragma unroll
        for (int k = 0; k < PER; k++) {
            if (t0 + k < slots && !big[k])
                emit_slot(g, box[k], t0 + k, R, tile_leaf, leaves, offset, items, bits, keys, vals, scalars);
            if (any_big)
                for_big_slots(big[k], box[k], 0, [&](ushort4 b, int, int src) {
                    warp_emit_slot(g, b, __shfl_sync(0xffffffffu, t0 + k, src), R, tile_leaf,
                                   __shfl_sync(0xffffffffu, offset, src), items, bits, keys, vals,
                                   scalars);
                });
            offset += count[k];
        }
    }
    /* the total: the last tile's inclusive prefix */
    finish_emit(items, pad_key, keys, zero, zero_words, scalars, rb, [&] {
        const volatile unsigned long long *state = tiles;
        return ntiles ? (long long)(state[ntiles - 1] & CE_VALUE) : 0ll;
    });
}

cudaError_t qr_launch_count_emit(const qr_emit_args *a, cudaStream_t st, int pdl)
{
    const int R = qr_cell_rows(a->n);
    const int32_t slots = a->n * R;
    /* a block per tile (at most QR_CE_MAX_TILES <= SLOT_MAX_BLOCKS), more to
     * zero and pad quickly, at least one for the read-back */
    long long blocks = (long long)qr_count_emit_tiles(a->n);
    long long spare = spare_blocks(a->items, a->pad_key, a->zero_words);
    if (spare > SLOT_MAX_BLOCKS) spare = SLOT_MAX_BLOCKS;
    if (spare > blocks) blocks = spare; /* never fewer blocks than tiles */
    if (blocks < 1) blocks = 1;
    const bool four = qr_count_emit_per(a->n) == 4;
#define QR_CE_LAUNCH(K)                                                                           \
    qr_launch(four ? (a->big ? k_count_emit<K, 4, true> : k_count_emit<K, 4, false>)                 \
                   : (a->big ? k_count_emit<K, 1, true> : k_count_emit<K, 1, false>),                 \
              (unsigned)blocks, QR_CE_TILE, 0, st,                                                 \
              pdl, slots, R, *a->geom, a->boxes, a->tile_leaf, a->leaves, a->tiles, a->items,      \
              a->bits, a->pad_key, (K *)a->keys, a->vals, a->zero, a->zero_words, a->scalars, a->rb)
    if (a->key_bytes == 2) return QR_CE_LAUNCH(uint16_t);
    return QR_CE_LAUNCH(int32_t);
#undef QR_CE_LAUNCH
}

