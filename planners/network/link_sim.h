/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Link-level simulation of a transfer schedule (transfer.h) on a graph
 * (graph.h).  Rank r is the graph's node r (r < nranks); a transfer
 * between ranks on different hosts crosses their NICs and switches as the
 * route goes (rank -> NIC -> switch -> NIC -> rank), so transfers that
 * share a NIC or a switch port queue for that link.
 *
 * Model, integer ps throughout:
 *   - a transfer of b = count x unit_bytes bytes is ready when every
 *     transfer it depends on has finished (at 0 without dependencies);
 *     a link carries b bytes of it, plus the graph's packet headers where
 *     it has packets (themis_graph_wire_bytes: b + ceil(b / payload) x
 *     header), and link_bytes counts those;
 *   - it follows themis_graph_route(src, dst) store-and-forward: on each
 *     link it occupies the link for ceil(w x 8 x 10^12 / bw) ps (w the
 *     bytes the link carries of it), then
 *     arrives at the link's far end the link's latency later, where it
 *     queues for the next link;
 *   - every directed link serves one transfer at a time, without
 *     preemption; a free link takes the waiting transfer that reached it
 *     first, ties to the lowest transfer index;
 *   - a local transfer (src == dst) finishes when it is ready.
 * Events at the same time are taken links freed first, then arrivals,
 * then the links' choices, so a choice sees every transfer that arrived
 * at that time.  A transfer's start is when its first link begins to
 * serve it (its ready time when local), its finish its arrival at dst.
 */
#ifndef THEMIS_LINK_SIM_H
#define THEMIS_LINK_SIM_H

#include "graph.h"
#include "transfer.h"

typedef struct {
    themis_time_t total_ps;         /* the last finish; 0 without transfers */
    uint32_t nxfers;
    themis_time_t *start_ps;        /* [nxfers] */
    themis_time_t *finish_ps;       /* [nxfers] */
    uint32_t nlinks;                /* the graph's */
    uint64_t *link_bytes;           /* [nlinks] bytes each link carried */
    themis_time_t *link_busy_ps;    /* [nlinks] time each link served */
    /* The link with the most busy time (lowest index on ties), UINT32_MAX
     * when no link carried anything, and its busy time / total_ps in
     * parts per million. */
    uint32_t busiest_link;
    uint32_t busiest_util_ppm;
} themis_link_sim_t;

/* Simulates s on g with units of unit_bytes (>= 1) bytes.  On error,
 * THEMIS_ERR_INVALID with why ("transfer 7 (rank 2 -> 5): no route, node
 * 3 failed ..."): a rank that is not a working node, no route, a
 * dependency that does not point backwards, sizes or times beyond 64
 * bits; THEMIS_ERR_NOMEM.  out is freed with themis_link_sim_free (also
 * after an error). */
themis_status_t themis_link_sim(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                uint64_t unit_bytes, themis_link_sim_t *out, char *why,
                                size_t len);
void themis_link_sim_free(themis_link_sim_t *r);

/* The same with a duplex rate: while a link serves a transfer from rank a
 * to rank b and its reverse one from b to a, each sends at duplex_ppm
 * millionths of its bandwidth (1 .. 10^6; 10^6 is themis_link_sim).  It
 * models TCP, which carries both directions between two ranks over one
 * connection: one direction's ACKs ride on the other's data, behind it
 * in the link's queue (benchmarks/README.md, "TACOS"); other flows' ACKs
 * are small packets a test bed can send first.  A serving link's rate
 * changes when its reverse starts or stops; what it has left is kept in
 * integer ps at the full rate (rounded down as it is sent, up into a
 * finish time).
 * THEMIS_ERR_INVALID for a duplex rate out of range. */
#define THEMIS_LINK_SIM_FULL_PPM 1000000u
themis_status_t themis_link_sim_duplex(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                       uint64_t unit_bytes, uint32_t duplex_ppm,
                                       themis_link_sim_t *out, char *why, size_t len);

/* How one simulation of a schedule served it: each link's transfers in
 * the order it took them (as one list of service starts in time order)
 * and the routes.  A link serves its transfers in the order they reach
 * it (ties to the lower index), so where the transfers reach every link
 * in the same order at another unit size, the simulation there is this
 * order replayed: each service starts when its transfer is there and the
 * link has finished the one before, with no event queue.  The cost table
 * times each schedule at every message-size class this way. */
typedef struct {
    uint32_t flags;   /* the transfer's index and whether first, last, local */
    uint32_t link;    /* the link it takes (UINT32_MAX: local) */
    uint32_t ndeps;   /* on its first hop: its dependencies, next in step_deps */
    uint32_t count;   /* units */
} themis_link_step_t;

typedef struct {
    uint32_t nxfers, nlinks;
    uint32_t nseq;
    uint32_t *seq;          /* [nseq] a service start's transfer; LOCAL bit: a local one */
    uint32_t *route_first;  /* [nxfers] into route */
    uint32_t *nhops;        /* [nxfers] */
    uint32_t *route;        /* links */
    uint32_t *slot;         /* [nlinks] a link's index among those used, or UINT32_MAX */
    uint32_t nslots;
    /* seq as one stream for replays (made on the first), or NULL */
    themis_link_step_t *steps;
    uint32_t *step_deps;
    uint64_t replays, sims; /* how often each path ran (tests, benchmarks) */
} themis_link_order_t;

/* s's simulated time on g at unit_bytes, themis_link_sim's total_ps
 * (exactly): order replayed where it holds at unit_bytes (checked link by
 * link), else simulated, recording the order for the next call (one
 * part of each set of twins simulated and recorded, link_sim_twins.h:
 * the others take as long at every unit size).  order
 * starts zeroed and serves one (g, s) pair only; free it with
 * themis_link_order_free.  Errors as themis_link_sim. */
themis_status_t themis_link_sim_total(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                      uint64_t unit_bytes, themis_link_order_t *order,
                                      themis_time_t *total, char *why, size_t len);
void themis_link_order_free(themis_link_order_t *o);

/* The same with waypoints: transfer i goes by node via[i] (the graph's
 * route to it, then the route on to its destination), or by the graph's
 * route where via[i] is THEMIS_LINK_SIM_NO_VIA; via NULL: none.  A spine
 * per flow on a leaf-spine Clos, planned or ECMP (cluster_clos.h), is
 * simulated this way.  THEMIS_ERR_INVALID when a waypoint is out of range
 * or cannot be reached or left. */
#define THEMIS_LINK_SIM_NO_VIA UINT32_MAX
themis_status_t themis_link_sim_via(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                    uint64_t unit_bytes, uint32_t duplex_ppm,
                                    const uint32_t *via, themis_link_sim_t *out, char *why,
                                    size_t len);

/* Sorts s's transfers by their simulated start times on g (ties keep the
 * list order).  Programs serve each peer's queue in list order
 * (themis_xfer_compile), so a list in another order makes a rank hold a
 * transfer the simulation sent early behind ones that wait for data: the
 * simulated time is then not what runs.  Errors as themis_link_sim (s
 * unchanged). */
themis_status_t themis_link_sim_order(const themis_graph_t *g, themis_xfer_sched_t *s,
                                      uint64_t unit_bytes, char *why, size_t len);

#endif
