/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Routing around any pattern of failed ToR-spine links (clos_route.h,
 * exact, when the failed links are not one block).  The flows form a
 * bipartite multigraph, source ToRs -> destination ToRs; flow e may take
 * spine s iff both its ToRs still have their cable to s.  Max load L is
 * reachable iff every flow gets an allowed spine with at most L flows per
 * ToR and spine on either side: a list edge colouring with L copies of each
 * spine.  Deciding L = 1 is NP-complete (partial Latin square completion,
 * clos_route.h), so no polynomial method can be optimal on every pattern;
 * what this offers instead is certification:
 *
 *   1. bound: the ToR bound (a ToR's flows over its usable links); per
 *      ToR side, Hall's condition for its flows alone: a b-matching of its
 *      flows onto the spines each may use, L per spine (one maximum flow,
 *      degree_subgraph.h), which catches flows that share few spines, e.g.
 *      senders that lost different cables all sending to one ToR; per
 *      spine s, the split condition: the flows on s form a subgraph with
 *      at most L at each side while the rest fit L times the other links
 *      (one degree-bounded subgraph), which sees across sides: a side with
 *      exactly L flows per link needs L on every spine.
 *   2. construction, polynomial: flows most constrained first, each onto
 *      an allowed spine with room at both ends, else by an ejection chain
 *      (König's alternating path, generalised: the flow goes where its
 *      source has room, and the flow it pushes over L at the destination
 *      moves to any spine that has room there and that it may use, and so
 *      on; visited (ToR side, spine) states are not entered twice; a fixed
 *      step budget per flow).  A flow that cannot be placed at L waits for
 *      L + 1.  Meeting the bound proves the result optimal.
 *   3. otherwise an exact search decides L - 1: depth first, the flow with
 *      the fewest choices next (a spine a tight side forces first), spines
 *      in id order, spines with the same usable ToRs and no flows yet
 *      tried once; every node checks the sides' capacity and each spine's
 *      split condition with the routed flows fixed; steps count spine
 *      checks and max-flow arcs.  Success lowers the load and repeats;
 *      exhaustion proves L optimal; the step limit stops it with the gap
 *      stated (load above bound, not proven).
 * Everything is integer and ordered by ids: the same input gives the same
 * routing on every machine.
 */
#ifndef THEMIS_CLOS_FAILED_LINKS_H
#define THEMIS_CLOS_FAILED_LINKS_H

#include "clos.h"

/* The exact search's default limit in steps: a count, the same on every
 * machine (where tests reached it, it took 0.2-0.6 s). */
#define THEMIS_CLOS_SEARCH_STEPS 100000000ull

typedef struct {
    uint32_t load;          /* max load of the routing returned */
    uint32_t bound;         /* proven: no routing has a smaller max load */
    uint32_t heuristic;     /* max load the construction reached */
    uint64_t steps;         /* exact search steps spent */
    int limit_hit;          /* the search stopped at step_limit */
} themis_clos_links_result_t;

/* Spines for the inter-ToR flows idx[0 .. n) of f into spine[] (indexed
 * by flow), using usable links only; a flow with no usable spine keeps
 * THEMIS_CLOS_NO_SPINE (the evaluation reports it).  THEMIS_ERR_NOMEM. */
themis_status_t themis_clos_route_failed_links(const themis_clos_t *c,
                                               const themis_clos_flows_t *f,
                                               const uint32_t *idx, uint32_t n,
                                               uint64_t step_limit, uint32_t *spine,
                                               themis_clos_links_result_t *res);

#endif
