/* tuning_default.h — the GPU kernels' tuning, one table: block sizes,
 * items per thread, window and tile sizes, and the thresholds that pick one
 * kernel or path over another. Every value changes how fast a frame runs,
 * never what it draws; each was measured (docs/benchmarks.md) and the stage
 * file that uses it says why it is what it is. The index's split rules,
 * which decide what is built, are not here: they are quadrender/index.h's
 * QR_SPLIT_* and QR_STOP_COVERAGE and quadtree/quadtree_geom.h, shared by
 * the host oracle and the GPU.
 *
 * Like CUB's dispatch/tuning/tuning_*.cuh, one table per GPU architecture;
 * today every architecture takes this default one (the values were measured
 * on sm_90; nothing measured on another has called for a different one).
 * An architecture that needs its own values would get a tuning_smXX.h
 * that redefines them, included at the end of this table by __CUDA_ARCH__,
 * for values only device code reads; a value that the host's launchers read too (block sizes, tile
 * sizes) must then be chosen at run time from the device's compute
 * capability, since the host pass has no __CUDA_ARCH__. What a device
 * cannot take at all (resident threads, shared memory) is gpu/device_limits.h.
 *
 * Plain C preprocessor constants: compile-time in kernels (__launch_bounds__,
 * shared arrays, templates) and readable by the C tests and tools.
 */
#ifndef QR_GPU_TUNING_DEFAULT_H
#define QR_GPU_TUNING_DEFAULT_H

/* ---- the index build (src/quadtree/gpu) -------------------------------------- */

/* boxes.cu: cull, pixel boxes, corner histograms */
#define QR_BOXES_ILP 4                 /* circles a thread loads before working on the first */
#define QR_BOXES_SHARED_THREADS 512    /* block of the shared-memory-histogram kernel */
#define QR_BOXES_SMEM_MAX (96 * 1024)  /* largest histograms counted in shared memory (bytes) */
#define QR_HASH_SLOTS 4096             /* slots of the shared hash table of finer histograms */
#define QR_HASH_PROBES 8               /* probes before a word goes to global memory directly */

/* tree.cu: splits, leaf numbering, tile map (one block) */
#define QR_TREE_THREADS 256            /* the tree block: fewer warps wait less at each barrier */
#define QR_BIG_LEAVES 256              /* leaves whose tiles the block writes together */

/* pairs.cu: count, scan and emit of (leaf, circle) pairs */
#define SLOT_MAX_BLOCKS (132 * 16)     /* most blocks of a slot loop: then threads loop */
#define QR_WARP_CELLS 256              /* boxes of more cells are walked by a whole warp */
#define QR_CE_TILE 256                 /* threads of a fused count-and-emit tile */
#define QR_CE_MAX_TILES 4096           /* its tiles at one slot a thread */
#ifndef QR_CE_BIG_SLOTS                /* (a test may set it lower) */
#define QR_CE_BIG_SLOTS (QR_CE_TILE * QR_CE_MAX_TILES) /* past this, four slots a thread */
#endif

/* lists.cu: the stable counting sort of the pairs into lists */
#define QR_LISTS_THREADS 256           /* block of the lists kernel */
#define QR_LISTS_MIN_PER 8             /* pairs per thread of small builds (16, 32 for larger) */

/* single_leaf.cu: a one-leaf tree built by one kernel */
#define QR_SINGLE_MAX_CIRCLES 8192     /* scenes of at most this many circles may take it */
#define QR_SINGLE_THREADS 1024         /* its block */
#define QR_SINGLE_PER_THREAD 4         /* circles a thread reads per run */

/* ---- the render (src/render/gpu) -------------------------------------------------- */

/* render_walk.cu, render_windows.cu: a block shades a QR_REGION square */
#define RT_ROWS 4                      /* pixels a thread shades, one column (a dx serves four) */
#define RW_W 16                        /* a warp's pixels: RW_W x RW_H */
#define RW_H 8
#define RT_PER 2                       /* list entries a thread stages per batch */

/* exact mode by windows (render_windows.cu, cover_count.cu, region_order.cu) */
#define QR_EXACT_WINDOW 48             /* covering circles the first tail holds (gpu/tuning.h) */
#define RW_DEEP 3                      /* windows pay on scenes deeper than this many windows */
#define CC_THREADS 512                 /* block of the coverage count */
#define CC_DIRECT_RADIUS 512.0f        /* circles up to this radius take the direct span path */
#define RO_MAX 4096                    /* regions ordered by cost at most; more: row-major */
#define RO_THREADS 256                 /* k_region_order's block */
#define RO_BUCKETS 64                  /* its cost buckets: half octaves of a block's cycles */

#endif
