/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Choosing one spine per flow on a Clos (clos.h) so that the slowest flow
 * is as fast as possible (routing-for-large-ml-models.txt, Sec. 3-4): with
 * unit demands and max-min fair sharing, the slowest flow gets
 * min over links of rate / flows on the link, so the objective is the
 * largest number of flows on one ToR-spine link, the max load.
 *
 *   greedy    Algorithm 1: flows in order, each to the spine whose busier
 *             link (up at its source ToR, down at its destination ToR) has
 *             the fewest flows so far, ties to the lowest spine id.  A
 *             2-approximation (Theorem 2).
 *   parallel  Sec. 3.4.3: flows linked when they share a source ToR or a
 *             destination ToR; the connected components run the greedy
 *             on threads.  Components touch disjoint links (a flow reads
 *             and writes only its source ToR's up links and its
 *             destination ToR's down links), so the assignment is the
 *             greedy's, flow for flow, with any number of threads.
 *   exact     the optimum, in polynomial time, with failed spines and
 *             failed links that form one block X x F (every ToR of X has
 *             lost its cables to every spine of F, among the working
 *             spines: one cable, one ToR's cables, one spine's cables).
 *             Without failed links: ceil(D / S), D the most inter-ToR flows
 *             leaving or entering one ToR, S the working spines (a ToR's D
 *             flows share its S up links, so no assignment does better); a
 *             proper edge colouring of the bipartite multigraph source ToR
 *             -> destination ToR with D colours exists (König) and is
 *             found by the alternating-path method; colour c goes to the
 *             (c mod S)-th working spine.  A colour class is a matching,
 *             so a link carries at most ceil(D / S) flows.
 *             With the block: max load L is reachable iff the flows split
 *             into H (the flows on F) and the rest with H avoiding the
 *             ToRs of X, at most |F| L flows of H and at most h L of the
 *             rest at every ToR, h = the working spines outside F.  Only
 *             if: the flows on F of an assignment are such an H.  If: H on
 *             the |F| spines of F and the rest on the h others, each by the
 *             colouring above.  Whether such an H exists is a
 *             degree-bounded subgraph (degree_subgraph.h: one maximum
 *             flow); feasibility only grows with L, so a binary search on
 *             L in [1, D] finds the optimum, and lower_bound is that L
 *             (L - 1 was proven infeasible).
 *             Any other pattern of failed links: certified, not guaranteed
 *             (clos_failed_links.h).  The problem is then NP-hard in
 *             general: a partial Latin square completes iff its Clos
 *             instance - rows as source ToRs, columns as destination ToRs,
 *             symbols as spines, a filled cell failing its symbol's cable
 *             at its row and its column, an empty cell a flow - has max
 *             load 1 (Colbourn 1984: completion is NP-complete), so no
 *             polynomial method is optimal on every pattern unless P = NP.
 *             exact computes a bound (ToR bound, Hall's condition per ToR
 *             side), routes in polynomial time (ejection chains, a
 *             min-conflicts repair) and, when that misses the bound,
 *             searches with a step limit; optimal is set only when the
 *             load meets a proven bound, else the result carries the gap
 *             (lower_bound < max_load, gap_ppm, search_limit_hit) and the
 *             ILP is the way to go further.
 *   ilp       clos_ilp.h (GLPK: the CLI and the tests, not the component).
 *   ecmp      each flow on a uniform random usable spine (what hashing
 *             does), over `draws` draws of a fixed-seed PRNG (splitmix64):
 *             mean, worst and histogram of the max load; the assignment
 *             kept is the first draw with the worst max load.
 *
 * Every algorithm's result goes through themis_clos_route_evaluate, so
 * loads and rates are measured the same way.  run_ns is the algorithm's
 * own time (CLOCK_MONOTONIC), not the evaluation's; it is reported,
 * never used for a decision.  Every routing function leaves r freeable
 * with themis_clos_route_free, on errors too.
 */
#ifndef THEMIS_CLOS_ROUTE_H
#define THEMIS_CLOS_ROUTE_H

#include <stdio.h>

#include "clos.h"

typedef enum {
    THEMIS_CLOS_GREEDY = 0,
    THEMIS_CLOS_PARALLEL,
    THEMIS_CLOS_EXACT,
    THEMIS_CLOS_ILP,
    THEMIS_CLOS_ECMP
} themis_clos_algo_t;

typedef struct {
    themis_clos_algo_t algo;
    uint32_t nflows;
    uint32_t *spine;            /* [nflows]; THEMIS_CLOS_NO_SPINE for intra-ToR flows */
    uint32_t max_load;          /* flows on the busiest ToR-spine link */
    uint32_t lower_bound;       /* no assignment has a smaller max load (see evaluate) */
    uint32_t tor_demand;        /* D */
    uint32_t working_spines;    /* S */
    uint32_t inter_tor;         /* flows that cross a spine */
    uint64_t slowest_bps;       /* the slowest flow's max-min fair rate */
    uint32_t slowest_share_ppm; /* slowest_bps / link_bps in millionths, rounded down */
    uint64_t run_ns;
    uint32_t components;        /* parallel: connected components */
    /* ilp, exact */
    int optimal;                /* max_load is proven optimal */
    uint32_t gap_ppm;           /* (max_load - lower_bound) / max_load, millionths */
    /* exact around failed links that are not one block */
    int searched;               /* the failed-link router ran */
    uint32_t heuristic_load;    /* its construction's max load */
    uint64_t search_steps;      /* its exact search's steps */
    int search_limit_hit;       /* the search stopped at its limit: maybe not optimal */
    /* ecmp */
    uint32_t draws;
    uint64_t seed;
    uint64_t mean_milli;        /* mean max load x 1000, rounded half up */
    uint32_t worst;
    uint32_t *hist;             /* [worst + 1]: draws whose max load is i */
} themis_clos_route_t;

/* "greedy", "parallel", "exact", "ilp", "ecmp"; parse returns
 * THEMIS_ERR_INVALID for other names. */
const char *themis_clos_algo_name(themis_clos_algo_t a);
themis_status_t themis_clos_algo_parse(const char *s, themis_clos_algo_t *a);

themis_status_t themis_clos_route_greedy(const themis_clos_t *c, const themis_clos_flows_t *f,
                                         themis_clos_route_t *r);
/* nthreads >= 1 (1: the components one after the other). */
themis_status_t themis_clos_route_parallel(const themis_clos_t *c, const themis_clos_flows_t *f,
                                           uint32_t nthreads, themis_clos_route_t *r);
/* exact with the search limit THEMIS_CLOS_SEARCH_STEPS; r->optimal says
 * whether max_load is proven (always, without failed links or with one
 * block of them). */
themis_status_t themis_clos_route_exact(const themis_clos_t *c, const themis_clos_flows_t *f,
                                        themis_clos_route_t *r);
/* step_limit: the failed-link search's limit (clos_failed_links.h); 0
 * returns the construction, certified only when it meets the bound. */
themis_status_t themis_clos_route_exact_limit(const themis_clos_t *c,
                                              const themis_clos_flows_t *f, uint64_t step_limit,
                                              themis_clos_route_t *r);
/* draws >= 1. */
themis_status_t themis_clos_route_ecmp(const themis_clos_t *c, const themis_clos_flows_t *f,
                                       uint32_t draws, uint64_t seed, themis_clos_route_t *r);

/* From r->spine: max_load, the ToR bound, rates.  The bound is, over
 * ToRs, ceil(inter-ToR flows leaving (entering) the ToR / its usable up
 * (down) links): ceil(D / S) without failed links, which the exact method
 * reaches.  THEMIS_ERR_INVALID (why says which flow) when an inter-ToR
 * flow has no spine or one it cannot use, or an intra-ToR flow has one. */
themis_status_t themis_clos_route_evaluate(const themis_clos_t *c, const themis_clos_flows_t *f,
                                           themis_clos_route_t *r, char *why, size_t len);
/* The ToR bound alone (and D, inter-ToR flows).  THEMIS_ERR_INVALID when
 * some inter-ToR flow has no usable spine. */
themis_status_t themis_clos_lower_bound(const themis_clos_t *c, const themis_clos_flows_t *f,
                                        uint32_t *bound, uint32_t *tor_demand, uint32_t *inter);
void themis_clos_route_free(themis_clos_route_t *r);

/* The chosen spine per flow as JSON (json-c), for a controller: the Clos
 * (ToRs, spines, host_base, failures), the algorithm and its numbers, and
 * "flows": [{"src", "dst", "src_tor", "dst_tor", "spine", "spine_node"}]
 * in flow order ("spine": null for intra-ToR flows).  0, or -1 on a
 * write or memory error. */
int themis_clos_route_write_json(const themis_clos_t *c, const themis_clos_flows_t *f,
                                 const themis_clos_route_t *r, FILE *out);

#endif
