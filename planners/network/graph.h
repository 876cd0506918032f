/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A network as a directed graph: nodes are ranks, hosts (a host's own
 * fabric as one node, e.g. an NVSwitch), NICs and switches; each link has
 * its own bandwidth (bit/s, as everywhere in planners/) and latency (ps);
 * ranks and NICs may be placed on hosts.  Ranks are nodes 0 .. nranks-1
 * (rank r = node r), every other node comes after them.  Failed nodes and
 * links stay in the graph, masked, so that indices never move.  The file
 * format and the cluster generators are in docs/cluster.md.
 *
 * File format, one item per line, '#' starts a comment:
 *     nodes N                 optional; otherwise 1 + the largest node id
 *     SRC DST BW LAT          a directed link, e.g. "0 1 100Gb/s 500ns"
 *     SRC DST BW LAT both     the same link in both directions
 *     KIND K[-L] [host H]     nodes K..L are rank, host, nic or switch
 *                             nodes (undeclared ones are ranks), on host
 *                             H (a host node must name its host)
 *     fail node K
 *     fail link SRC DST
 *     packet PAYLOAD HEADER   optional, once: every link carries a transfer
 *                             as packets of at most PAYLOAD bytes of it,
 *                             each with HEADER bytes of headers (the link
 *                             simulator counts them: themis_graph_wire_bytes)
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
 *   lines:TOPOLOGY                   every dimension sw; each dimension line
 *                                    one switch node (after the ranks, line
 *                                    by line, dimension by dimension), each
 *                                    rank linked both ways to its lines'
 *                                    switches at the dimension's bw
 *   p3.16xlarge p3.8xlarge           optimal-message-scheduling-for-
 *                                    aggregation.txt; bw = one NVLink
 *   cluster:HxR leafspine:HxR rail:HxR   hosts of ranks, NICs, switches
 *                                    (cluster.h, docs/cluster.md)
 * Node i of a mesh or torus sits at x + W*y (+ W*H*z); a dimension of size
 * 2 has one link each way, a dimension of size 1 none.  Anything whose
 * name (before the first ':' or ',') is not a spec name is read as a file.
 *
 * Bandwidths.  Meshes, tori and the p3 presets: bw is each link's (a p3
 * "dual" link is 2 x bw).  ring, biring, fc, switch and dims: bw is the
 * NPU's aggregate over the dimension, as in topology.h, split evenly
 * (rounded down) over its links there: ring bw, biring bw/2 to each
 * neighbour (bw when the size is 2: one neighbour), fc bw/(p-1), switch
 * bw/d.  Defaults: bw and lat THEMIS_DEFAULT_NETWORK_* (100 Gb/s, 2 us),
 * p3 presets THEMIS_GRAPH_NVLINK_* (25 GB/s = one NVLink, 700 ns); bw2
 * (mesh2d_hetero) half of bw.  degree (switch and sw dimensions of dims:)
 * is clamped to p-1; 0 means all peers.  fail=K+K fails nodes,
 * faillink=A-B+C-D the directed links A -> B, C -> D (as "fail link" in a
 * file).  Keys apply only where they mean something: bw2= to
 * mesh2d_hetero, degree= to switch and dims, bw= and lat= not to dims
 * and lines: (their string has them); anything else is an error.
 *
 * Limits: THEMIS_GRAPH_MAX_NODES nodes, THEMIS_GRAPH_MAX_LINKS links,
 * link latency at most THEMIS_GRAPH_MAX_LAT_PS (so that route latency
 * sums fit in 64 bits).
 */
#ifndef THEMIS_GRAPH_H
#define THEMIS_GRAPH_H

#include <stdio.h>

#include "topology.h"

#define THEMIS_GRAPH_MAX_NODES 65536u
#define THEMIS_GRAPH_MAX_LINKS (1u << 22)
#define THEMIS_GRAPH_MAX_LAT_PS 1000000000000ULL
/* One NVLink of a p3 instance: 25 GB/s each way. */
#define THEMIS_GRAPH_NVLINK_BW_BPS 200000000000ULL
#define THEMIS_GRAPH_NVLINK_LAT_PS 700000ULL

typedef struct {
    uint32_t src, dst;
    uint64_t bw_bps;
    themis_time_t lat_ps;
    uint8_t failed;
} themis_link_t;

typedef enum {
    THEMIS_NODE_RANK = 0,
    THEMIS_NODE_HOST,       /* a host's internal fabric (PCIe root, NVSwitch) */
    THEMIS_NODE_NIC,
    THEMIS_NODE_SWITCH
} themis_node_kind_t;

/* A node on no host (switches, and every node of a graph without a
 * placement). */
#define THEMIS_GRAPH_NO_HOST UINT32_MAX

typedef struct {
    uint32_t nnodes;
    /* Set by themis_graph_finish: nodes 0 .. nranks-1 are the ranks;
     * nhosts hosts 0 .. nhosts-1, each with at least one rank (0: no
     * placement). */
    uint32_t nranks, nhosts;
    uint8_t *kind;              /* [nnodes] themis_node_kind_t; NULL: all ranks */
    uint32_t *host;             /* [nnodes] host or THEMIS_GRAPH_NO_HOST; NULL: none */
    uint32_t nlinks, cap_links;
    themis_link_t *links;       /* in file / generator order */
    uint8_t *node_failed;       /* [nnodes] */
    /* Adjacency, built by themis_graph_finish: outgoing and incoming link
     * indices of each node, in link order (failed ones included); node v's
     * are out_links[out_first[v] .. out_first[v + 1]) (first: nnodes + 1
     * entries). */
    uint32_t *out_first, *out_links;
    uint32_t *in_first, *in_links;
    /* Packets (the file's `packet` line): a transfer of b bytes crosses a
     * link as ceil(b / pkt_payload) packets of pkt_header more bytes
     * each; pkt_payload 0: no packets, a link carries b bytes (the
     * default). */
    uint32_t pkt_payload, pkt_header;
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
/* THEMIS_ERR_INVALID for 0 or more than THEMIS_GRAPH_MAX_NODES nodes, a
 * node out of range, THEMIS_GRAPH_MAX_LINKS reached; THEMIS_ERR_NOMEM. */
themis_status_t themis_graph_add_link(themis_graph_t *g, uint32_t src, uint32_t dst,
                                      uint64_t bw_bps, themis_time_t lat_ps);
/* Node v's kind and host (THEMIS_GRAPH_NO_HOST for none); before
 * themis_graph_finish.  THEMIS_ERR_INVALID for a node or kind out of
 * range; THEMIS_ERR_NOMEM. */
themis_status_t themis_graph_set_node(themis_graph_t *g, uint32_t v, themis_node_kind_t kind,
                                      uint32_t host);
/* Builds the adjacency and counts ranks and hosts; THEMIS_ERR_INVALID for
 * a link to itself, a duplicate (src, dst), a zero bandwidth, a latency
 * above THEMIS_GRAPH_MAX_LAT_PS, a rank after another kind of node, no
 * rank, a placement that leaves a rank without a host, a host node
 * without one, a host without ranks.  Call again after adding links. */
themis_status_t themis_graph_finish(themis_graph_t *g, char *why, size_t len);
/* A generator's last step: finishes g when st is THEMIS_OK (else why says
 * out of memory, the one error adding nodes and links can have left),
 * frees g on any error. */
themis_status_t themis_graph_build_end(themis_graph_t *g, themis_status_t st, char *why,
                                       size_t len);
void themis_graph_free(themis_graph_t *g);

/* The file format; on success g is finished.  On error g is empty. */
themis_status_t themis_graph_parse(const char *text, themis_graph_t *g,
                                   themis_parse_error_t *err);
/* A spec, or else a file path (opts may be NULL: the defaults).  Spec
 * errors are at line 1, column in the spec. */
themis_status_t themis_graph_load(const char *spec_or_path, const themis_graph_opts_t *opts,
                                  themis_graph_t *g, themis_parse_error_t *err);
/* Each dimension's groups as their kind's links (see Bandwidths above),
 * dimension by dimension, groups by their first node.  THEMIS_ERR_INVALID
 * when too large or a per-link bandwidth rounds to 0. */
themis_status_t themis_graph_from_topology(const themis_topology_t *t, uint32_t degree,
                                           themis_graph_t *g);
/* The file format; parses back to the same graph (same links in the same
 * order, same failures, same hash).  Returns 0, or -1 on a write error. */
int themis_graph_write(const themis_graph_t *g, FILE *f);
/* FNV-1a (hash.h) of the nodes, the links in order and the failures;
 * kinds and hosts where some node is not a rank or has a host (a graph of
 * ranks only hashes as before they existed); the packets where there are
 * some (likewise). */
uint64_t themis_graph_hash(const themis_graph_t *g);
/* The bytes a link carries for a transfer of `bytes` bytes: bytes plus
 * pkt_header per packet of at most pkt_payload bytes (bytes itself
 * without packets); UINT64_MAX when that exceeds 64 bits. */
uint64_t themis_graph_wire_bytes(const themis_graph_t *g, uint64_t bytes);
/* The most a packet may hold, and its most header bytes. */
#define THEMIS_GRAPH_MAX_PKT_PAYLOAD (1u << 30)
#define THEMIS_GRAPH_MAX_PKT_HEADER (1u << 20)
/* A link or node is working when neither it nor (for a link) its ends
 * failed. */
int themis_graph_link_working(const themis_graph_t *g, uint32_t link);

/* Index of the working link src -> dst, or UINT32_MAX. */
uint32_t themis_graph_link(const themis_graph_t *g, uint32_t src, uint32_t dst);
/* Route of fewest hops over working links and nodes, ties to the lowest
 * latency sum, then to the lowest next-hop node id: link indices into
 * route[0..*nhops).  route holds nnodes entries.  THEMIS_ERR_INVALID when
 * dst cannot be reached. */
themis_status_t themis_graph_route(const themis_graph_t *g, uint32_t src, uint32_t dst,
                                   uint32_t *route, uint32_t *nhops);
/* Every node's route to dst at once, in O(nodes + links) (one search
 * backwards from dst): next[v] is the first link of v's route, the one
 * themis_graph_route gives, or UINT32_MAX when v == dst, v failed or v
 * cannot reach dst.  Routes to one dst form a tree: the rest of v's route
 * is the next node's route.  next holds nnodes entries.  All pairs: one
 * call per dst.  THEMIS_ERR_INVALID when dst is out of range or failed,
 * THEMIS_ERR_NOMEM. */
themis_status_t themis_graph_routes_to(const themis_graph_t *g, uint32_t dst, uint32_t *next);

#endif
