/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Every rank pair's route on a graph, summarised for lower bounds of the
 * link simulator's time (link_sim.h): the route's hop count and first
 * link (themis_graph_route's, exactly), the sum of the working links'
 * rates and their least latency.  One backwards search per rank
 * (themis_graph_routes_to): built once per cost table, it lets a row bound
 * its time without simulating.
 */
#ifndef THEMIS_ROUTE_TABLE_H
#define THEMIS_ROUTE_TABLE_H

#include "graph.h"
#include "transfer.h"

#define THEMIS_ROUTE_NONE UINT32_MAX

typedef struct {
    uint32_t nranks;
    uint32_t *hops;        /* [src * nranks + dst]; THEMIS_ROUTE_NONE: unreachable */
    uint32_t *first;       /* [src * nranks + dst] first link; NONE when src == dst */
    uint64_t bw_sum;       /* bits/s over every working link */
    uint64_t bw_max;       /* the fastest working link's */
    themis_time_t lat_min; /* the least latency of a working link */
} themis_route_table_t;

/* THEMIS_ERR_NOMEM, THEMIS_ERR_INVALID for a graph without ranks. */
themis_status_t themis_route_table_build(const themis_graph_t *g, themis_route_table_t *rt);
void themis_route_table_free(themis_route_table_t *rt);

/* A lower bound of s's time on the graph (themis_link_sim's total_ps at
 * unit_bytes): along every dependency chain, each transfer crosses its
 * route's hops, each at least floor(bytes x 8 x 10^12 / bw_max) ps of
 * serving and lat_min of latency after the transfers it waits for have
 * arrived.  Ties the hops and the bytes of one chain together, so it is
 * tight where dependencies (a link's send order, a barrier) make the
 * time.  THEMIS_ERR_UNSUPPORTED where the simulator would refuse s (a
 * rank out of range, no route, a dependency not pointing backwards),
 * THEMIS_ERR_NOMEM. */
themis_status_t themis_route_chain_bound(const themis_route_table_t *rt,
                                         const themis_xfer_sched_t *s, uint64_t unit_bytes,
                                         themis_time_t *lb);
/* The same with transfer i ready no earlier than ready0[i] (NULL: 0) and
 * each transfer's bounded finish in fins[nxfers] (NULL: not kept): the
 * bound of a schedule's part whose inputs come from another (TACOS'
 * All-Gather part after its reduce-scatter part). */
themis_status_t themis_route_chain_fins(const themis_route_table_t *rt,
                                        const themis_xfer_sched_t *s, uint64_t unit_bytes,
                                        const themis_time_t *ready0, themis_time_t *fins,
                                        themis_time_t *lb);

#endif
