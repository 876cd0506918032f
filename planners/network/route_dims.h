/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Dimension-ordered routes on a graph whose ranks form a grid (rank r at
 * coordinate (r / stride_k) % size_k, innermost first, as
 * coll_themis_dims): a route to a rank corrects the first coordinate that
 * differs, innermost first, inside that coordinate's dimension line (the
 * ranks that differ only there, and the switches of that line alone), then
 * the next.  Inside a line it takes the fewest hops, ties to the next rank
 * that advances the coordinate least (mod size: a ring's + direction), then
 * to the lowest node id.  One dimension can be put last: the route to a
 * rank's address on that dimension (the test bed's per-dimension
 * addresses, so that traffic between dimension peers stays on their line
 * whichever of the peer's addresses it goes to).  Every node's first hop
 * toward one destination only depends on that destination (and the last
 * dimension), so the routes install as per-destination forwarding tables.
 * Routes to nodes that are not ranks are the graph's own
 * (themis_graph_routes_to).
 */
#ifndef THEMIS_ROUTE_DIMS_H
#define THEMIS_ROUTE_DIMS_H

#include "graph.h"

#define THEMIS_ROUTE_DIMS_NONE (-1)

typedef struct {
    const themis_graph_t *g;
    int ndims;
    uint32_t sizes[THEMIS_MAX_DIMS], strides[THEMIS_MAX_DIMS];
    int8_t *line_dim;    /* [nnodes] a non-rank node's dimension; -1 for ranks */
    uint32_t *line_base; /* [nnodes] its line's rank with coordinate 0 there */
} themis_route_dims_t;

/* THEMIS_ERR_INVALID (why) when the sizes do not hold g's ranks, or a node
 * that is not a rank is not on one dimension line (all its neighbours
 * ranks of one line, at least two of them); THEMIS_ERR_NOMEM. */
themis_status_t themis_route_dims_init(themis_route_dims_t *rd, const themis_graph_t *g,
                                       const uint32_t *sizes, int ndims, char *why, size_t len);
void themis_route_dims_free(themis_route_dims_t *rd);

/* next[v] (nnodes entries): the first link of v's route to node dst,
 * UINT32_MAX when v == dst, v failed, or the route is cut by failures;
 * last (THEMIS_ROUTE_DIMS_NONE or a dimension) is corrected after all
 * others when dst is a rank.  THEMIS_ERR_INVALID for dst out of range or
 * failed; THEMIS_ERR_NOMEM. */
themis_status_t themis_route_dims_to(const themis_route_dims_t *rd, uint32_t dst, int last,
                                     uint32_t *next);

/* The dimension of link src -> dst seen from the rank end (src or dst):
 * the dimension of the other end's line, or for two ranks the one
 * coordinate they differ in; *dir = +1 when that end is the rank's
 * neighbour one up (mod size), -1 one down, 0 for a switch or another
 * distance.  -1 when neither end is a rank or the ends are on no one
 * line. */
int themis_route_dims_link_dim(const themis_route_dims_t *rd, uint32_t src, uint32_t dst,
                               int *dir);

#endif
