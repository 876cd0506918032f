/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The emulated test bed's build plan, from the one network model
 * (graph.h): the graph's rates scaled down to what a bed of network
 * namespaces can shape on a few cores, and every route the bed installs,
 * the graph's own or a Clos routing's spines (cluster_clos.h), so that the
 * bed (benchmarks/netbed/netgraph) parses and routes nothing itself.  The
 * plan's text format is in docs/cluster.md ("The test bed's plan").
 */
#ifndef THEMIS_BED_PLAN_H
#define THEMIS_BED_PLAN_H

#include <stdio.h>

#include "graph.h"
#include "transfer.h"

/* Sum of the working links' bandwidths (bit/s), saturating. */
uint64_t themis_bed_total_bps(const themis_graph_t *g);

/* out = g with every link's bandwidth times num/den, rounded down (to
 * at least 1 bit/s); nodes, kinds, hosts, latencies and failures
 * as in g.  THEMIS_ERR_INVALID (why) for den 0 or num 0, a rate above
 * UINT64_MAX; THEMIS_ERR_NOMEM. */
themis_status_t themis_bed_scale(const themis_graph_t *g, uint64_t num, uint64_t den,
                                 themis_graph_t *out, char *why, size_t len);

/* The waypoint of each ordered rank pair from a schedule's (via: one per
 * transfer, THEMIS_LINK_SIM_NO_VIA for the graph's route, as
 * themis_clos_graph_via gives them): pair_via[src * nranks + dst]
 * (g->nranks^2 entries), THEMIS_LINK_SIM_NO_VIA where no transfer of the
 * pair has one.  THEMIS_ERR_INVALID (why) when two transfers of one pair
 * go by different waypoints: the bed routes by addresses, so a pair has
 * one route. */
themis_status_t themis_bed_pair_via(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                    const uint32_t *via, uint32_t *pair_via, char *why,
                                    size_t len);

/* Writes the plan of g (already scaled) to f: the "bed", "node", "link",
 * "route" and "rule" lines of docs/cluster.md.  pair_via (NULL: none)
 * sends a rank pair by its waypoint: the graph's route to it, then on to
 * the destination; where that leaves a node's own route to the
 * destination, a "rule" line.  THEMIS_ERR_INVALID (why) when a waypoint
 * cannot be reached or its route visits a node twice; THEMIS_ERR_NOMEM;
 * THEMIS_ERR_IO on a write error. */
themis_status_t themis_bed_plan_write(const themis_graph_t *g, const uint32_t *pair_via,
                                      FILE *f, char *why, size_t len);

/* The plan of g with dimension-ordered routes (route_dims.h) for ranks
 * on the grid sizes[0 .. ndims) (innermost first): a "dims" line, an
 * "iface V W NAME" line naming each rank's end of its links by dimension
 * (dK toward a switch of dimension K's line, dKp / dKm toward the
 * next / previous rank on it), the "route" lines by dimension order, and
 * an "ifroute S D W ..." line from every node to every named address of a
 * rank (D's end of its link to W), correcting that dimension last.
 * THEMIS_ERR_INVALID (why) when the grid does not fit g
 * (themis_route_dims_init) or a rank has two links of one name. */
themis_status_t themis_bed_plan_write_dims(const themis_graph_t *g, const uint32_t *sizes,
                                           int ndims, FILE *f, char *why, size_t len);

#endif
