/* quadrender/stats.h — statistics of a quadtree index, and their JSON form.
 *
 * What `quadrender stats` reports: the shape of the tree, how many circles
 * the leaves hold, and how often a circle is listed more than once (the
 * replication factor: the index's pairs per visible circle, which is what
 * the build's count, emit and sort stages scale with). Computed on the host
 * from a qr_index, whichever builder made it (qr_index_build_host, or
 * qr_gpu_index_download after a GPU build).
 */
#ifndef QUADRENDER_STATS_H
#define QUADRENDER_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "quadrender/error.h"
#include "quadrender/gpu.h"
#include "quadrender/index.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Leaf sides are powers of two up to the largest root, 2^17 = 131072
 * (QR_IMAGE_BANDS_MAX_DIM). */
#define QR_STATS_MAX_SIDE_LOG2 17

typedef struct qr_index_stats {
    int32_t root_size;     /* pixels */
    int32_t nodes, leaves; /* the tree, and its leaves */
    int32_t max_depth;     /* deepest leaf (root = 0) */
    int32_t leaves_per_depth[QR_MAX_DEPTH_LIMIT + 1];
    /* leaves_per_side[k]: leaves whose side before clipping to the image,
     * root_size >> depth, is 2^k pixels */
    int32_t leaves_per_side[QR_STATS_MAX_SIDE_LOG2 + 1];
    int32_t clipped_leaves; /* leaves cut by the image's right or top edge */
    /* circles per leaf over all leaves, empty ones included; the median is
     * the mean of the two middle values for an even count, p90 and p99 are
     * nearest-rank percentiles (the smallest count >= that share of leaves) */
    int32_t min_per_leaf, max_per_leaf, p90_per_leaf, p99_per_leaf;
    double mean_per_leaf, median_per_leaf;
    int32_t empty_leaves;
    int64_t pairs;      /* sum of the list lengths */
    int32_t visible;    /* circles in at least one list */
    int32_t culled;     /* n_circles - visible */
    double replication; /* pairs / visible; 0 when nothing is visible */
} qr_index_stats;

/* Computes the statistics of `ix`, an index of a scene of n_circles circles.
 * Checks the index is consistent first (leaf depths and sides, list offsets
 * and lengths, circle numbers below n_circles, and the visible count equal
 * to the distinct circles listed) and answers QR_ERR_INVALID if not. */
qr_status qr_index_stats_compute(const qr_index *ix, int32_t n_circles, qr_index_stats *out,
                                 qr_error *err);

/* The statistics of a scene drawn in depth-ordered chunks (quadrender/job.h's
 * chunk_circles), each chunk indexed alone: the chunks' indexes summed, added
 * one at a time so that none is held after its turn. Nodes, leaves (by depth
 * and side, clipped and empty), pairs, visible and culled circles add up; the
 * deepest leaf and the root are the largest; circles per leaf are over every
 * chunk's leaves, and replication is pairs / visible over them all. */
typedef struct qr_index_stats_sum qr_index_stats_sum;
qr_status qr_index_stats_sum_create(qr_index_stats_sum **out, qr_error *err);
/* Adds the index of a chunk of n_circles circles (checked as
 * qr_index_stats_compute checks an index). */
qr_status qr_index_stats_sum_add(qr_index_stats_sum *sum, const qr_index *ix, int32_t n_circles,
                                 qr_error *err);
/* The sum so far, and the chunks added (may be NULL). */
qr_status qr_index_stats_sum_get(const qr_index_stats_sum *sum, qr_index_stats *out,
                                 int64_t *chunks, qr_error *err);
void qr_index_stats_sum_destroy(qr_index_stats_sum *sum);

/* What a report says besides the statistics: which scene, image and
 * parameters, where the index was built and how long that took. Fields that
 * are NULL, zero or negative as marked are left out of the JSON. */
typedef struct qr_stats_context {
    const char *scene;        /* scene name; NULL: omitted */
    int32_t circles;
    uint32_t seed;
    int64_t frame;
    int32_t width, height;
    qr_index_params params;
    qr_render_mode mode;      /* the render the index was built for (qr_index.mode) */
    const char *device;       /* "gpu" or "cpu"; NULL: omitted */
    const char *device_name;  /* e.g. the GPU's name; NULL: omitted */
    size_t device_bytes;      /* device memory of the index; 0: omitted */
    int timed_builds;         /* builds timed; 0: no timing at all */
    int warmup_builds;        /* untimed builds before those */
    int has_stages;           /* build holds the median per GPU stage */
    qr_build_timing build;    /* medians, ms (total_ms also used on the CPU) */
    int64_t chunks;           /* the statistics sum the indexes of this many chunks
                                 (qr_index_stats_sum), build the sum of their builds;
                                 0: one index */
    int32_t chunk_circles;    /* circles a chunk (the last one fewer) */
} qr_stats_context;

/* Writes {"schema_version": 1, ...} (one object, keys documented in
 * docs/cli.md) and a newline to fp. ctx may be NULL. QR_ERR_IO when the
 * stream reports a write error. */
qr_status qr_index_stats_write_json(FILE *fp, const qr_index_stats *s,
                                    const qr_stats_context *ctx, qr_error *err);

/* The same object in memory: a NUL-terminated string in *json (free it
 * with free()), *len bytes before the NUL (len may be NULL). For bindings
 * that have no FILE. QR_ERR_NOMEM: *json NULL. */
qr_status qr_index_stats_json(const qr_index_stats *s, const qr_stats_context *ctx, char **json,
                              size_t *len, qr_error *err);

#define QR_STATS_SCHEMA_VERSION 1

#ifdef __cplusplus
}
#endif
#endif
