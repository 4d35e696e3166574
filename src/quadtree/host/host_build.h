/* host_build.h — the pieces of the host quadtree build (qr_index_build_host,
 * host_grid.c).
 *
 * The build is flat at the top and recursive below: host_grid.c counts the
 * circles of every node of the top levels at once (one pass over the
 * circles), decides those nodes' splits from the counts and sorts the
 * circles into the top's leaves by counting; a node at the deepest counted
 * level that must split further becomes a subtree, built here by
 * recursive list splitting (host_subtree.c). Both make the decisions of
 * quadtree_geom.h, so the index is the one quadrender/index.h specifies.
 */
#ifndef QR_HOST_BUILD_H
#define QR_HOST_BUILD_H

#include <stdint.h>

#include "quadrender/index.h"

/* A circle and its box (absolute pixels, clipped to the region). */
typedef struct qr_host_entry {
    int32_t id;
    int32_t x0, x1, y0, y1;
} qr_host_entry;

/* The output of one subtree: its leaves in depth-first order, their lists
 * one after the other (leaf offsets from 0), and its node count and depth. */
typedef struct qr_host_subtree {
    const qr_index_params *p;
    int32_t floor; /* the smallest leaf (qr_leaf_floor) */
    int crowded;   /* the tree is crowded (qr_node_crowds) */
    int share;     /* the share of a list a region reads (qr_read_share) */
    qr_rect region;
    qr_leaf *leaves;
    int32_t num_leaves, cap_leaves;
    int32_t *lists;
    int64_t num_pairs, cap_pairs;
    int32_t num_nodes, max_depth;
    int oom;
} qr_host_subtree;

/* Builds the subtree of the node at absolute pixel (x0, y0) of this side
 * and depth into st (p and region set, the rest zero); e = the ascending
 * entries meeting the node. Sets st->oom when out of memory. */
void qr_host_build_subtree(qr_host_subtree *st, int x0, int y0, int side, int depth,
                           const qr_host_entry *e, int32_t n);

/* Frees a subtree's arrays. */
void qr_host_subtree_free(qr_host_subtree *st);

#endif
