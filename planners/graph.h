/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A network as a directed graph: nodes are ranks, each link has its own
 * bandwidth (bit/s, as everywhere in planners/) and latency (ps).  Failed
 * nodes and links stay in the graph, masked, so that indices never move.
 *
 * File format, one item per line, '#' starts a comment:
 *     nodes N                 optional; otherwise 1 + the largest node id
 *     SRC DST BW LAT          a directed link, e.g. "0 1 100Gb 500ns"
 *     SRC DST BW LAT both     the same link in both directions
 *     fail node K
 *     fail link SRC DST
 * BW and LAT take the units of themis_parse_bandwidth / _latency.  Errors
 * give line and column (themis_parse_error_t).
 *
 * Specs: NAME:ARGS[,key=value...], keys bw=, bw2=, lat=, degree=,
 * fail=K+K..., faillink=A-B+A-B...:
 *   ring:N biring:N fc:N switch:N    one dimension of today's kinds; a
 *                                    switch is unwound as in tacos.txt
 *                                    Sec. IV-D with `degree` peers per node
 *                                    (1 = a ring, N-1 = all peers at B/d)
 *   mesh2d:WxH torus2d:WxH mesh3d:XxYxZ torus3d:XxYxZ
 *   mesh2d_hetero:WxH                x links at bw, y links at bw2
 *   dims:TOPOLOGY                    a topology string (topology.h), each
 *                                    dimension as its kind's links
 *   p3.16xlarge p3.8xlarge           optimal-message-scheduling-for-
 *                                    aggregation.txt; bw = one NVLink
 * Node i of a mesh or torus sits at x + W*y (+ W*H*z); a dimension of size
 * 2 has one link each way.  Anything that is not a spec is read as a file.
 */
#ifndef THEMIS_GRAPH_H
#define THEMIS_GRAPH_H

#include <stdio.h>

#include "topology.h"

typedef struct {
    uint32_t src, dst;
    uint64_t bw_bps;
    themis_time_t lat_ps;
    uint8_t failed;
} themis_link_t;

typedef struct {
    uint32_t nnodes;
    uint32_t nlinks, cap_links;
    themis_link_t *links;       /* in file / generator order */
    uint8_t *node_failed;       /* [nnodes] */
    /* Adjacency, built by themis_graph_finish: outgoing and incoming link
     * indices of each node, in link order (failed ones included). */
    uint32_t *out_first, *out_links;
    uint32_t *in_first, *in_links;
} themis_graph_t;

/* Defaults a spec's keys override. */
typedef struct {
    uint64_t bw_bps;            /* 0: the generator's default */
    uint64_t bw2_bps;
    themis_time_t lat_ps;       /* UINT64_MAX: the generator's default */
    uint32_t degree;            /* 0: all peers */
} themis_graph_opts_t;

void themis_graph_opts_default(themis_graph_opts_t *o);

themis_status_t themis_graph_init(themis_graph_t *g, uint32_t nnodes);
themis_status_t themis_graph_add_link(themis_graph_t *g, uint32_t src, uint32_t dst,
                                      uint64_t bw_bps, themis_time_t lat_ps);
/* Builds the adjacency; THEMIS_ERR_INVALID for a link to itself, a
 * duplicate (src, dst), a zero bandwidth. */
themis_status_t themis_graph_finish(themis_graph_t *g, char *why, size_t len);
void themis_graph_free(themis_graph_t *g);

themis_status_t themis_graph_parse(const char *text, themis_graph_t *g,
                                   themis_parse_error_t *err);
/* A spec, or else a file path. */
themis_status_t themis_graph_load(const char *spec_or_path, const themis_graph_opts_t *opts,
                                  themis_graph_t *g, themis_parse_error_t *err);
themis_status_t themis_graph_from_topology(const themis_topology_t *t, uint32_t degree,
                                           themis_graph_t *g);
/* The file format; parses back to the same graph. */
int themis_graph_write(const themis_graph_t *g, FILE *f);
uint64_t themis_graph_hash(const themis_graph_t *g);

/* Index of the working link src -> dst, or UINT32_MAX. */
uint32_t themis_graph_link(const themis_graph_t *g, uint32_t src, uint32_t dst);
/* Route of fewest hops over working links and nodes, ties to the lowest
 * latency sum, then to the lowest next-hop node id: link indices into
 * route[0..*nhops).  route holds nnodes entries.  THEMIS_ERR_INVALID when
 * dst cannot be reached. */
themis_status_t themis_graph_route(const themis_graph_t *g, uint32_t src, uint32_t dst,
                                   uint32_t *route, uint32_t *nhops);

#endif
