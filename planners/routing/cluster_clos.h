/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The Clos routing planner (clos_route.h) on a leaf-spine graph of the one
 * network model (cluster.h's leafspine:, or a file of that shape), its
 * routes fed to the link simulator as waypoints (themis_link_sim_via), so
 * that planned routes and ECMP are predicted side by side.
 *
 * The Clos read from the graph: leaves are the switches linked to NICs,
 * spines the switches linked to leaves only, both in node order (ToR t =
 * the t-th leaf, spine s = the s-th spine); Clos host h (node host_base +
 * h) is the graph's host h, under the leaf of its NICs.  A failed spine
 * node is a failed spine, a failed leaf <-> spine link (either way) a
 * failed cable.  Rates: the first leaf -> spine and NIC -> leaf links'.
 */
#ifndef THEMIS_CLUSTER_CLOS_H
#define THEMIS_CLUSTER_CLOS_H

#include "clos.h"
#include "clos_route.h"
#include "graph.h"

/* Ranks a waypoint table takes: a pair map of 1024^2 entries. */
#define THEMIS_CLOS_GRAPH_MAX_RANKS 1024u

/* c from g, and the graph node of each spine (spine_node: at least
 * g->nnodes entries).  THEMIS_ERR_INVALID with why when g is not a
 * leaf-spine of placed ranks: a host whose NICs are under two leaves or
 * none, a leaf not linked to every spine, no spine. */
themis_status_t themis_clos_from_graph(const themis_graph_t *g, themis_clos_t *c,
                                       uint32_t *spine_node, char *why, size_t len);

/* Waypoints of s's transfers on g (via: s->nxfers entries): one Clos flow
 * per ordered rank pair on hosts under different leaves, in the order of
 * its first transfer (themis_clos_flows_from_xfer's rule), routed by algo
 * (ECMP: one draw of seed); each of the pair's transfers then goes by its
 * flow's spine node, every other transfer by the graph's route
 * (THEMIS_LINK_SIM_NO_VIA).  r holds the routing's loads (free it with
 * themis_clos_route_free).  THEMIS_ERR_INVALID with why as above, for
 * more than THEMIS_CLOS_GRAPH_MAX_RANKS ranks, or the routing's error;
 * THEMIS_ERR_UNSUPPORTED for algo ilp (the CLI's route command has it). */
themis_status_t themis_clos_graph_via(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                      themis_clos_algo_t algo, uint64_t seed, uint32_t *via,
                                      themis_clos_route_t *r, char *why, size_t len);

#endif
