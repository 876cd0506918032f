/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Clusters in the one network model (graph.h): hosts of ranks with an
 * intra-host fabric and NICs into switches, generated from specs; the
 * rank-only view of such a graph for planners whose nodes are ranks
 * (TACOS, treepack); and the dimensions a graph's placement gives.
 * docs/cluster.md is the user's reference.
 *
 * Specs (themis_graph_load hands them here), H hosts of R ranks:
 *   cluster:HxR     every host's NICs into one switch
 *   leafspine:HxR   hosts split evenly over `leaves` leaf switches, every
 *                   leaf linked to each of `spines` spine switches
 *   rail:HxR        NIC n of every host into rail switch n (nics rails),
 *                   the rails linked to `spines` spine switches (0: none)
 * Keys: nics=K (NICs per host, 1 .. R; rail: R by default, else 1),
 * intra=fc|ring|biring|switch|none (the intra-host fabric: links between
 * the host's ranks as that dimension kind, or one host node every rank
 * links to; default fc), ibw= and ilat= (each intra-host link; defaults
 * THEMIS_GRAPH_NVLINK_*), pcie= (each rank <-> NIC link, default
 * THEMIS_CLUSTER_PCIE_BW_BPS), bw= (each NIC <-> switch link, default
 * THEMIS_DEFAULT_NETWORK_BW_BPS), ubw= (each switch <-> switch link,
 * default bw), lat= (every link outside a host, default
 * THEMIS_CLUSTER_NET_LAT_PS), leaves=, spines=.  Rank j of a host uses
 * NIC j*K/R (the host's ranks split evenly over its NICs).
 *
 * Node order: ranks (host by host), host nodes, NICs (host by host), then
 * switches (leaves before spines).  Links: intra-host ones host by host,
 * rank <-> NIC, NIC <-> switch, switch <-> switch, each with its reverse.
 */
#ifndef THEMIS_CLUSTER_H
#define THEMIS_CLUSTER_H

#include "graph.h"

/* PCIe 4.0 x16, one direction. */
#define THEMIS_CLUSTER_PCIE_BW_BPS 256000000000ULL
#define THEMIS_CLUSTER_NET_LAT_PS 500000ULL

/* 1 when name[0 .. len) is a cluster spec name. */
int themis_cluster_is_spec(const char *name, size_t len);
/* A cluster spec into g (finished); errors at line 1 with the column in
 * the spec.  def: the caller's defaults (bw_bps, lat_ps apply; bw2 and
 * degree are errors). */
themis_status_t themis_cluster_load(const char *spec, const themis_graph_opts_t *def,
                                    themis_graph_t *g, themis_parse_error_t *err);

/* The ranks-only view of g (out: g->nranks nodes, finished) for planners
 * whose nodes are ranks, switches unwound as TACOS does (tacos.txt Sec.
 * IV-D, the switch:N of graph.h): rank <-> rank links are kept; the ranks
 * attached to a connected part of the other nodes (NICs, hosts, switches)
 * each get links to the next `degree` of them (0: all) whose routes
 * through g cross that part, in rank order as switch:N's shift pattern.
 * A link a -> b carries min(e(a) / a's such links, i(b) / b's such
 * links), where e(a) (i(b)) is the least bandwidth per source (per
 * destination) on a's (b's) routes through the part: two ranks sharing a
 * NIC each get half of it.  Its latency is the route's.  Failed ranks and
 * rank links stay failed; failed other nodes and links carry no route.
 * A graph of ranks only comes back the same (same hash).
 * THEMIS_ERR_INVALID with why when a share rounds to 0. */
themis_status_t themis_graph_unwind(const themis_graph_t *g, uint32_t degree,
                                    themis_graph_t *out, char *why, size_t len);

/* The dimensions g gives its ranks, innermost first: R x H when its H
 * hosts hold R ranks each on consecutive ranks (host h: ranks h*R ..),
 * size-1 dimensions dropped; else one dimension of every rank, with why
 * in why (may be NULL).  Returns the number of dimensions. */
int themis_graph_dims(const themis_graph_t *g, uint32_t sizes[THEMIS_MAX_DIMS], char *why,
                      size_t len);
/* 1 when declared dimensions (innermost first) agree with g: the same
 * number of ranks and, where g places them on hosts as
 * themis_graph_dims reads them, inner dimensions that make up exactly one
 * host.  Else 0 and a sentence in why ("dims 2x8 disagree with the
 * graph: 4 hosts of 4 ranks (dims 4x4)"). */
int themis_graph_dims_agree(const themis_graph_t *g, const uint32_t *sizes, int ndims, char *why,
                            size_t len);

#endif
