/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The algorithm table: every schedule source the runtime can run, one row
 * each (as coll/han's table of available algorithms).  Everything that
 * lists algorithms derives from it: the accepted values of the
 * coll_themis_<coll>_algorithm parameters and their ompi_info text, the
 * MPI_T counters, the `auto` choice, the CLI's list, the docs table and
 * the tests' lists.
 *
 * Adding an algorithm: a file planners/algorithms/algo_<name>.c that defines
 *     const themis_algorithm_t themis_algorithm_<name> = { ... };
 * and one line THEMIS_ALGORITHM(<name>) at the end of
 * planners/algorithms/algorithms.def (its position is its index), plus the file in
 * Makefile.am's planner sources.  Nothing else names algorithms.
 *
 * Row 0 (themis) is the default: it serves every collective and runs on
 * every topology, so substitution chains and `auto` always end there.
 * A row without a substitute other than row 0 (schedule: a user's file)
 * runs as asked or not at all: where it cannot run, the call goes to the
 * previous component (a fallback, counted), never to another algorithm.
 */
#ifndef THEMIS_ALGORITHM_H
#define THEMIS_ALGORITHM_H

#include "algo_cost.h"
#include "graph.h"
#include "link_sim.h"
#include "plan.h"
#include "route_table.h"
#include "transfer.h"
#include "transfer_slice.h"
#include "xfer_memo.h"

#define THEMIS_MAX_ALGORITHMS 16
#define THEMIS_COLL_BIT(c) (1u << (c))
#define THEMIS_COLLS_ALL                                                                   \
    (THEMIS_COLL_BIT(THEMIS_COLL_ALLREDUCE) | THEMIS_COLL_BIT(THEMIS_COLL_REDUCE_SCATTER) \
     | THEMIS_COLL_BIT(THEMIS_COLL_ALLGATHER))

/* What a row's functions see.  bytes is the full vector (allreduce
 * vector, reduce-scatter input, allgather output). */
typedef struct {
    const themis_topology_t *topo;
    themis_coll_t coll;
    uint64_t bytes;
    const themis_algo_cost_params_t *params;
    /* The row's slot for state it keeps per topology (e.g. the
     * Hamiltonian cycles of rings), owned by the caller and released with
     * the row's state_free; NULL: build everything per call. */
    void **state;
    /* The transfer schedule set for this collective (the component's
     * coll_themis_<coll>_schedule), or NULL. */
    const themis_xfer_sched_t *xsched;
    /* The communicator's network as a graph (the component's
     * coll_themis_graph), or NULL: with it, `auto` ranks every row by the
     * link-level simulator on it (themis_algo_graph_cost). */
    const themis_graph_t *graph;
    /* Each dimension's RS/AG algorithm as the caller plans them, or NULL
     * (themis_dim_algo_for with the default direct_max). */
    const themis_dim_algo_t *dim_algo;
    /* Which rank each coordinate of topo is (plan.h's coord_to_rank: the
     * runtime's placement, the same every call), or NULL: identity.  The
     * rows on dimensions (themis, rings, torus2d) place their lists on
     * graph by it, so a placement neither block nor round-robin is costed
     * on the links its ranks really use. */
    const int *coord_to_rank;
    /* Where build explains a THEMIS_ERR_UNSUPPORTED (may be NULL). */
    char *why;
    size_t why_len;
    /* Every row's state slot (THEMIS_MAX_ALGORITHMS of them, owned by the
     * caller), or NULL: themis_algorithm_plan and the cost table give row
     * a &states[a] as its state, so that `auto` costs and builds from the
     * same state (e.g. one synthesis, not one to cost and one to build). */
    void **states;
    /* Why in->graph is NULL although a graph was given (e.g. one of
     * another size than the communicator), or NULL: rows that need one
     * say so. */
    const char *no_graph;
    /* Why in->xsched is NULL although a schedule was given (one for
     * another number of ranks, told by its start tag), or NULL. */
    const char *no_xsched;
    /* While the cost table is built, where a row's xfer hook may keep the
     * lists it makes, under its own key (xfer_memo.h), so that the next
     * class with the same key neither makes nor simulates it again; NULL
     * otherwise (return the list in *tmp). */
    themis_xfer_memo_t *lists;
    /* While the cost table is built on a graph: its rank-pair routes, for
     * the rows' bound hooks; NULL otherwise. */
    const themis_route_table_t *routes;
    /* The cost table costs every row at every class, bounds unused (tests
     * compare the choices with and without them). */
    int no_bounds;
} themis_algo_input_t;

/* Row flags. */
/* Its input is the user's (a schedule file): without a graph to rank it
 * against the others, `auto` runs it wherever it applies. */
#define THEMIS_ALGO_FLAG_GIVEN 1u
/* Its programs' chunks carry dimension orders (themis_program_t.ops'
 * chunk, the scheduler's orders): the trace records them. */
#define THEMIS_ALGO_FLAG_DIM_ORDERS 2u

typedef struct {
    const char *name;
    const char *summary;      /* one sentence: ompi_info, CLI, docs */
    uint32_t colls;           /* THEMIS_COLL_BIT()s of the collectives it serves */
    /* Runs in its place where it does not apply; NULL: none (row 0, and
     * rows that fall back instead, see above). */
    const char *substitute;
    /* 1 when it can run for in (topology, schedule); else 0 and why (a
     * sentence). */
    int (*applies)(const themis_algo_input_t *in, char *why, size_t len);
    /* Predicted time for `auto`; THEMIS_ERR_UNSUPPORTED where `auto` is
     * not to consider it (e.g. links that go one way only). */
    themis_status_t (*cost)(const themis_algo_input_t *in, themis_time_t *time);
    /* This rank's program; req carries rank, counts and the rank map. */
    themis_status_t (*build)(const themis_algo_input_t *in, const themis_plan_request_t *req,
                             themis_program_t *out);
    void (*state_free)(void *state);   /* NULL when it keeps no state */
    /* The transfer schedule the row runs for in (kept in its state or in
     * in->lists, else in *tmp, which the caller frees), or NULL with why.
     * A row's time on a graph simulates this schedule
     * (themis_algo_graph_cost).  rings lists its messages per chunk with
     * fewer chunks than a large call's, themis a representative call of
     * one element per leaf, to bound that cost. */
    const themis_xfer_sched_t *(*xfer)(const themis_algo_input_t *in, themis_xfer_sched_t *tmp,
                                       char *why, size_t len);
    uint32_t flags;                     /* THEMIS_ALGO_FLAG_* */
    /* Rank `rank`'s slice (transfer_slice.h) of the transfer schedule the
     * row runs for a call planned with in->params (its chunks), ranks
     * placed by linear_to_rank (plan.h's coord_to_rank, NULL: identity);
     * NULL hook: none.  A row with one builds by themis_algo_slice_build:
     * it runs the form its cost simulates, compiled by the one compiler,
     * at the cost of the rank's own transfers. */
    themis_status_t (*xfer_slice)(const themis_algo_input_t *in, uint32_t rank,
                                  const int *linear_to_rank, themis_xfer_slice_t *out);
    /* A lower bound of the row's time on in->graph (themis_algo_graph_cost
     * at in, never more), from in->routes, without simulating: the cost
     * table does not simulate a row at a class where its bound shows that
     * another row is faster (algo_table.c).  THEMIS_ERR_UNSUPPORTED: no
     * bound here; NULL hook: the row is always simulated. */
    themis_status_t (*bound)(const themis_algo_input_t *in, themis_time_t *lb);
} themis_algorithm_t;

/* A slicing row's build: rank req->rank's slice (the row's xfer_slice)
 * compiled for the call's counts; why in in->why where it fails. */
themis_status_t themis_algo_slice_build(const themis_algorithm_t *row,
                                        const themis_algo_input_t *in,
                                        const themis_plan_request_t *req, themis_program_t *out);

/* Row themis' whole transfer list for the call req (xfer_hier.h, one
 * unit per element or cut for the call), every rank's slice of which its
 * build runs: what `themis-plan export` writes. */
themis_status_t themis_algo_themis_xfer(const themis_algo_input_t *in,
                                        const themis_plan_request_t *req, int per_element,
                                        themis_xfer_sched_t *out);

int themis_nalgorithms(void);
/* NULL outside 0 .. themis_nalgorithms() - 1. */
const themis_algorithm_t *themis_algorithm_get(int index);
/* The row's index, -1 when there is none of that name. */
int themis_algorithm_index(const char *name);
int themis_algorithm_serves(int index, themis_coll_t coll);

/* One row's predicted time: THEMIS_ERR_INVALID for bad input (no bytes,
 * zero chunks or chunks_in_flight, a topology that fails its check),
 * THEMIS_ERR_UNSUPPORTED where the row does not serve coll, does not apply
 * or is not costed there, else the row's cost function. */
themis_status_t themis_algo_cost(const themis_topology_t *topo, int index, themis_coll_t coll,
                                 uint64_t bytes, const themis_algo_cost_params_t *params,
                                 themis_time_t *time);

typedef struct {
    themis_status_t status[THEMIS_MAX_ALGORITHMS];
    themis_time_t time[THEMIS_MAX_ALGORITHMS];   /* valid where status is OK */
    int best;                                    /* least time; ties to the lower index */
} themis_algo_costs_t;

/* Every row (CLI, tests); THEMIS_OK when at least one has a time. */
themis_status_t themis_algo_costs(const themis_topology_t *topo, themis_coll_t coll,
                                  uint64_t bytes, const themis_algo_cost_params_t *params,
                                  themis_algo_costs_t *out);

/* Row `index`'s predicted time on in->graph by the link-level simulator:
 * the transfer schedule its xfer hook gives (algo_graph_cost.c).
 * THEMIS_ERR_UNSUPPORTED without a graph of the topology's size, or where
 * the row cannot be simulated there (an unreachable rank). */
themis_status_t themis_algo_graph_cost(int index, const themis_algo_input_t *in,
                                       themis_time_t *time);
/* The one cost path of a transfer schedule: its time on g by the link
 * simulator, a call of `bytes` bytes in `units` units (uneven units run
 * at about the average size).  THEMIS_ERR_UNSUPPORTED where it cannot be
 * simulated there (an unreachable rank), THEMIS_ERR_NOMEM. */
themis_status_t themis_xfer_graph_cost(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                       uint64_t bytes, uint64_t units, themis_time_t *time);
/* The chunks of a quartered row's (rings, torus2d) transfer list on a
 * graph: the call's, at most as many as keep it to the
 * THEMIS_GRAPH_COST_UNITS units of the themis row's representative call
 * (bounds the simulation), at least 1. */
#define THEMIS_GRAPH_COST_UNITS 1024u
uint32_t themis_algo_cost_list_chunks(uint32_t chunks, uint64_t nranks);
/* A row's transfer lists kept across the cost table's classes (lists:
 * the ones it makes, in its state: the ones it keeps), and with each the
 * order its last simulation served it in: another class replays it where
 * it holds (themis_link_sim_total). */
#define THEMIS_ALGO_REP_CACHE 4
typedef struct {
    int xn, xnext;
    const themis_xfer_sched_t *xs[THEMIS_ALGO_REP_CACHE];
    themis_link_order_t xorder[THEMIS_ALGO_REP_CACHE];
    themis_xfer_memo_t lists;   /* the row's lists (themis_algo_input_t.lists) */
    /* What bounds a kept schedule's time at any unit size (its
     * algo_graph_bound.c summary), per schedule as xs. */
    int bn, bnext;
    const themis_xfer_sched_t *bs[THEMIS_ALGO_REP_CACHE];
    struct themis_xfer_bound_summary {
        uint64_t hop_units;      /* units x route hops over all transfers */
        uint64_t link_units;     /* the most units one first link carries, */
        uint64_t link_bw;        /* at that link's rate (the least time ratio) */
        uint64_t path_hops;      /* the most route hops along a dependency chain */
        uint64_t path_units;     /* the most units x hops along one */
    } bsum[THEMIS_ALGO_REP_CACHE];
} themis_algo_rep_cache_t;
/* The same with the cache, and why where the row cannot be simulated. */
themis_status_t themis_algo_graph_cost_cached(int index, const themis_algo_input_t *in,
                                              themis_algo_rep_cache_t *cache,
                                              themis_time_t *time, char *why, size_t len);
void themis_algo_rep_cache_free(themis_algo_rep_cache_t *c);
/* A lower bound of themis_algo_graph_cost_cached's time for row index at
 * in, from in->routes, without simulating: by the row's bound hook where
 * it has one (no transfer list built), else by its transfer schedule's
 * hops, its busiest first link and its longest dependency chain
 * (algo_graph_bound.c).  THEMIS_ERR_UNSUPPORTED where there is none. */
themis_status_t themis_algo_graph_bound_cached(int index, const themis_algo_input_t *in,
                                               themis_algo_rep_cache_t *cache,
                                               themis_time_t *lb);
/* 1 where themis_algo_graph_bound_cached can bound row index. */
int themis_algo_has_bound(int index);
/* The themis row's representative call on a graph (the list its xfer hook
 * gives the link simulator, algo_themis.c): its units (0: none fits) and
 * each dimension's RS/AG algorithm. */
uint64_t themis_algo_rep_units(const themis_algo_input_t *in);
themis_dim_algo_t themis_algo_rep_dim_algo(const themis_algo_input_t *in, int dim);
/* The themis row's bound hook (themis_algorithm_t.bound): the
 * dimension-by-dimension reduce-scatter and all-gather of the
 * representative call moves at least so many bytes over so many hops,
 * every rank sends at least so much over the first links of its routes
 * (algo_plan_bound.c). */
themis_status_t themis_algo_plan_bound(const themis_algo_input_t *in, themis_time_t *lb);
/* A row's whole transfer list is simulated to cost it on a graph: beyond
 * this many ranks that would take longer than the calls it decides. */
#define THEMIS_GRAPH_COST_MAX_RANKS 256u

#define THEMIS_ALGO_AUTO (-1)

typedef struct {
    int index;            /* the row that runs */
    int substituted;      /* the requested row could not run here */
    char why[256];        /* why not, when substituted */
    int costed;           /* auto compared predicted times (below) */
    themis_status_t status[THEMIS_MAX_ALGORITHMS];
    themis_time_t time[THEMIS_MAX_ALGORITHMS];
    /* themis_algorithm_plan: why each row does not run this call ("" where
     * it was not asked: it ran, or a faster row did). */
    char reason[THEMIS_MAX_ALGORITHMS][160];
} themis_algo_choice_t;

/*
 * The row that runs `requested` (an index or THEMIS_ALGO_AUTO) for in:
 *   a row:  itself where it serves in->coll and applies, otherwise its
 *           substitute, and so on (substituted set, why from the first);
 *           THEMIS_ERR_UNSUPPORTED (why set) where a row without a
 *           substitute cannot run;
 *   auto:   the least predicted time among the rows that serve the
 *           collective and apply; row 0 is costed only when another row
 *           has a cost, and alone it runs without costing.  Ties go to the
 *           lower index.  With in->graph every row's time is the link
 *           simulator's on that graph (themis_algo_graph_cost).
 * Integer costs and fixed tie-breaks: every rank chooses alike.
 */
themis_status_t themis_algorithm_choose(int requested, const themis_algo_input_t *in,
                                        themis_algo_choice_t *out);

/*
 * The per-communicator cost table (as NCCL's tuning table): every row's
 * predicted time for one collective at message-size classes (powers of
 * 8 from 8 bytes to 64 GiB), built once (algo_table.c); a size between two
 * classes is a lookup, interpolated linearly in bytes.  The parameters of
 * each class come from the caller's params function (the component: its
 * decision for that size), so the table ranks what would run.
 */
#define THEMIS_ALGO_TABLE_CLASSES 12
#define THEMIS_ALGO_TABLE_MIN_BYTES 8u

typedef void (*themis_algo_params_fn)(void *ctx, uint64_t bytes,
                                      themis_algo_cost_params_t *params);

typedef struct {
    int built;
    int costed;   /* some row other than row 0 has a time: rank them */
    themis_coll_t coll;
    themis_status_t status[THEMIS_MAX_ALGORITHMS][THEMIS_ALGO_TABLE_CLASSES];
    themis_time_t time[THEMIS_MAX_ALGORITHMS][THEMIS_ALGO_TABLE_CLASSES];
    char why[THEMIS_MAX_ALGORITHMS][160];   /* why a row has no time */
    /* Classes (bits) where a row was not simulated because its bound
     * (bound[][]) shows another row faster on both sides of the class;
     * their status is THEMIS_ERR_UNSUPPORTED until themis_algo_table_fill
     * costs them. */
    uint32_t skipped[THEMIS_MAX_ALGORITHMS];
    themis_time_t bound[THEMIS_MAX_ALGORITHMS][THEMIS_ALGO_TABLE_CLASSES];
} themis_algo_table_t;

/* Costs every row that serves in->coll and applies at every class, with
 * in->states as the rows' states; THEMIS_ERR_NOMEM, else THEMIS_OK. */
themis_status_t themis_algo_table_build(const themis_algo_input_t *in, themis_algo_params_fn fn,
                                        void *ctx, themis_algo_table_t *t);
uint64_t themis_algo_table_class_bytes(int k);
/* Costs the rows that were not simulated at the two classes around bytes
 * (see skipped), so that the table ranks every row there: when the
 * fastest row refuses a call, the next one is known.  THEMIS_ERR_NOMEM,
 * else THEMIS_OK. */
themis_status_t themis_algo_table_fill(const themis_algo_input_t *in, themis_algo_params_fn fn,
                                       void *ctx, themis_algo_table_t *t, uint64_t bytes);
/* 1 where the table ranks a row at bytes by its bound alone (not
 * simulated there); *lb: the bound at bytes. */
int themis_algo_table_skipped_at(const themis_algo_table_t *t, int a, uint64_t bytes,
                                 themis_time_t *lb);
/* The class at or below bytes (0 below the first): the pair of classes
 * a size interpolates between. */
int themis_algo_table_class_of(uint64_t bytes);
/* Every row's time at `bytes` (status THEMIS_OK where it has one: not
 * where the row was not simulated at a class around bytes). */
void themis_algo_table_at(const themis_algo_table_t *t, uint64_t bytes,
                          themis_status_t status[THEMIS_MAX_ALGORITHMS],
                          themis_time_t time[THEMIS_MAX_ALGORITHMS]);

/* The parameters a call of `bytes` (`elems` elements) plans with: the
 * chunk count themis_chunk_count gives (max_chunks, min_chunk_bytes on
 * topo), the rest as given; the chunk count in *nchunks (may be NULL).
 * The component and the CLI's compare both size calls with it. */
void themis_algo_call_params(const themis_topology_t *topo, uint64_t bytes, uint64_t elems,
                             uint32_t max_chunks, uint64_t min_chunk_bytes,
                             uint32_t chunks_in_flight, themis_order_policy_t order,
                             themis_sched_kind_t scheduler, themis_latency_mode_t latency,
                             themis_algo_cost_params_t *params, uint32_t *nchunks);

/* "auto: <coll> of <bytes> bytes (<elems> elements) -> <row> (<model>:
 * <row> <time> us; <row>: <why it does not run>; ...)": what `auto` chose
 * for a call and
 * every row's time or reason, as the component logs it at verbose 10 and
 * `themis-plan compare` prints it. */
void themis_algo_choice_line(themis_coll_t coll, uint64_t bytes, uint64_t elems,
                             const themis_algo_table_t *t, const themis_algo_choice_t *ch,
                             int on_graph, char *text, size_t len);
/* The rows part of that line alone ("<row> <time> us; <row>: <why>"). */
void themis_algo_choice_rows(const themis_algo_table_t *t, const themis_algo_choice_t *ch,
                             char *text, size_t len);

/*
 * Chooses the row for one call and builds this rank's program (req):
 *   auto:  the rows with a time in t at in->bytes, fastest first (ties to
 *          the lower index), then row 0; a row whose build refuses the
 *          call (THEMIS_ERR_UNSUPPORTED: it cannot serve these counts)
 *          gives way to the next.  Without times (t NULL or not costed)
 *          row 0 runs.  Without in->graph, a THEMIS_ALGO_FLAG_GIVEN row
 *          whose schedule is set runs as if requested.
 *   a row: itself where it applies and builds; otherwise (substituted,
 *          why from it): where it does not apply to the shape, its
 *          substitute chain (the table's documented substitute, ending at
 *          row 0); where its build refuses the call's counts, the fastest
 *          row in t that can, then the chain.  A row without a substitute
 *          (a user's schedule) runs as asked or not at all.
 * t may be unbuilt: it is built (with fn, ctx) when a ranking is needed.
 * THEMIS_ERR_UNSUPPORTED when no row can serve the call (out->reason says
 * why for each), THEMIS_ERR_NOMEM, THEMIS_ERR_INVALID.
 */
themis_status_t themis_algorithm_plan(int requested, const themis_algo_input_t *in,
                                      themis_algo_table_t *t, themis_algo_params_fn fn,
                                      void *ctx, const themis_plan_request_t *req,
                                      themis_algo_choice_t *out, themis_program_t *prog);

#endif
