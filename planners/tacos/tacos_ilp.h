/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * TACOS-ILP (tacos.txt Sec. V): the All-Gather as an integer program on
 * the time-expanded network (TEN), solved by GLPK, for small graphs.  Its
 * result is a themis_tacos_ag_t like the greedy's, so the same schedules
 * (themis_tacos_schedule: reduce-scatter reversed on the transpose,
 * allreduce = both) come out, checked and simulated like the greedy's.
 *
 * Discretization (Sec. IV-C): one TEN step is the cost (ser + lat, as in
 * tacos.h) of the cheapest working link; a link whose cost is c takes
 * d = ceil(c / step) steps and carries one chunk during them (the paper's
 * model: the link is busy for the whole cost).  The link simulator later
 * times the schedule with the exact model (a link busy for ser only), so
 * the simulated time is at most steps x step.
 *
 * The ILP for a TEN of T steps, from what every node holds at its start:
 *   x[c,l,t]  binary: chunk c starts over link l at step t (arrives at
 *             t + d_l <= T); only where l's source can hold c by t (its
 *             fewest-steps distance from a holder) and l's far end lacks c;
 *   h[c,v,t]  in [0, 1]: v holds c at step t; h[c,v,t] = h[c,v,t-1] + the
 *             arrivals of c at v at t, and h[c,v,T] <= 1: a node receives
 *             a chunk at most once;
 *   x[c,l,t] <= h[c,src(l),t]                 (consistency, Fig. 12(c))
 *   sum of x over c and a link's d_l steps <= 1 (congestion, Fig. 12(d))
 *   maximize sum of x[c,l,t] (W + T - t - d_l), W = 1 + chunks x nodes x T:
 *             the most arrivals first, then the earliest (the paper's
 *             objective, sum of holds, is that second term).
 * The search over T (Sec. V-A) starts at a proven lower bound (the most
 * steps any (chunk, node) is from the chunk's owner, and the steps a
 * node's in-links need to deliver what it lacks) and stops at the first T
 * whose ILP delivers everything; each smaller T was proven unable to (the
 * search finished, or its best bound fell below W x what is needed), so
 * the result is optimal in TEN steps.  GLPK gets, as a starting
 * incumbent, the greedy's All-Gather (themis_tacos_allgather) retimed in
 * TEN steps, cut at T when it does not fit; so the ILP never takes more
 * steps than that retimed greedy.  A search stops as soon as its
 * incumbent delivers everything or its bound shows nothing can.
 *
 * Time limit (Sec. V-B): one budget for the whole call (both halves of an
 * allreduce share it).  When it runs out, the best partial result (the
 * interrupted ILP's incumbent, else the last proven-incomplete T's) is
 * completed by shortest paths: each missing (chunk, node), chunks in
 * order then nodes, gets the fewest-steps path from the chunk's holders,
 * each hop starting once its link is free.
 *
 * Time clustering (Sec. V-C), cluster_steps > 0: TENs of that many steps
 * one after another, each from what the previous ones delivered, each
 * maximizing the above, appended; a window that delivers nothing (or the
 * time limit) hands over to the shortest-path completion.
 *
 * Result: the faster, in the link simulator, of the ILP's schedule and the
 * greedy's (themis_tacos_synthesize with the same seeds), which a finer
 * time model can favour; info says which.
 *
 * Run time: the ILP's sends as a schedule (themis_tacos_schedule), each
 * link's sends kept in the ILP's order (link_order: each depends on the
 * link's previous one), so the link simulator's time is at most steps x
 * step; unless the same sends without that order simulate faster (a link
 * kept in order idles during each latency; the plan's model has it busy
 * then anyway, but the greedy's model pipelines it).
 *
 * With a time limit the result depends on the machine's speed: a planning
 * tool (themis-plan synth --ilp), not what the runtime row runs.
 */
#ifndef THEMIS_TACOS_ILP_H
#define THEMIS_TACOS_ILP_H

#include "tacos.h"

#define THEMIS_TACOS_ILP_MAX_NODES 16u
/* Binary columns of one ILP. */
#define THEMIS_TACOS_ILP_MAX_COLS 200000u

typedef struct {
    uint32_t time_limit_ms;     /* >= 1, for the whole call */
    uint32_t cluster_steps;     /* 0: one TEN; else TENs of this many steps */
    uint32_t greedy_seeds;      /* the starting incumbent's seeds (THEMIS_TACOS_SEEDS_AUTO) */
} themis_tacos_ilp_opts_t;

typedef struct {
    themis_time_t step_ps;      /* one TEN step */
    uint32_t steps;             /* the result's length in steps (both halves summed) */
    uint32_t lower_steps;       /* a proven lower bound on steps (summed) */
    uint32_t greedy_steps;      /* the retimed greedy's steps (summed) */
    int optimal;                /* steps == the least possible (every half) */
    uint32_t solves;            /* ILPs solved */
    uint32_t recovered;         /* sends added by the shortest-path completion */
    uint32_t max_cols;          /* columns of the largest ILP */
    int link_order;             /* the ILP's schedule keeps each link's send order */
    /* Both schedules simulated (link_sim.h); the greedy's is returned when
     * it is faster, so the result is never slower than the greedy. */
    themis_time_t ilp_ps, greedy_ps;
    int greedy_won;
} themis_tacos_ilp_info_t;

void themis_tacos_ilp_opts_default(themis_tacos_ilp_opts_t *o);

/* The All-Gather on g (as themis_tacos_allgather: no failed node) with k
 * chunks per node of chunk_bytes bytes.  THEMIS_ERR_INVALID with why: more
 * than THEMIS_TACOS_ILP_MAX_NODES nodes, a time limit of 0, an ILP of more
 * than THEMIS_TACOS_ILP_MAX_COLS columns, what themis_tacos_allgather
 * rejects; THEMIS_ERR_NOMEM.  info is this All-Gather's. */
themis_status_t themis_tacos_ilp_allgather(const themis_graph_t *g, uint32_t k,
                                           uint64_t chunk_bytes,
                                           const themis_tacos_ilp_opts_t *o,
                                           themis_tacos_ag_t *out, themis_tacos_ilp_info_t *info,
                                           char *why, size_t len);

/* themis_tacos_synthesize with the ILP's All-Gathers, or the greedy's
 * schedule when that simulates faster (info->greedy_won); info sums both
 * halves of an allreduce (optimal: both are). */
themis_status_t themis_tacos_ilp_synthesize(const themis_graph_t *g, themis_coll_t coll,
                                            uint32_t k, uint64_t chunk_bytes,
                                            const themis_tacos_ilp_opts_t *o,
                                            themis_xfer_sched_t *out,
                                            themis_tacos_ilp_info_t *info, char *why, size_t len);

#endif
