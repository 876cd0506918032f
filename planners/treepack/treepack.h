/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Spanning-tree packing (optimal-message-scheduling-for-aggregation.txt,
 * eq. 2): All-Reduce streams a share alpha_T of the vector up and down
 * each spanning tree T.  With x_T the data (in link-capacity units) tree T
 * carries, the best packing maximizes sum_T x_T subject to
 * sum_{T owns e} x_T <= cap_e on every edge; C(G) = 1 / optimum is the
 * time factor (S / B_unit per unit of data), alpha_T = x_T / optimum.
 *
 * The optimum is the graph's strength (Tutte, Nash-Williams; Cunningham):
 * min over partitions P of the nodes of cap(edges crossing P) / (|P| - 1).
 * A partition is the certificate: its ratio bounds every packing, and a
 * packing of the same value proves both optimal.
 *
 * Capacities are integers: an undirected edge {u, v} exists where both
 * directed links work, its capacity is the smaller of the two rates
 * divided by the graph's capacity unit, the gcd of all those rates (a p3
 * single NVLink = 1, a dual = 2).  Both directions matter: reduce goes up
 * a tree, broadcast comes down it.  Failed nodes are not supported (every
 * rank must get the result); a disconnected graph has no spanning tree.
 *
 * Methods (treepack.c and treepack_union.c: integer and deterministic,
 * no GLPK, so the component runs them; treepack_lp.c in libthemis_bound:
 * the LP):
 *   torus     a 2-D torus (rows, cols >= 3, equal capacities) splits into
 *             two edge-disjoint Hamiltonian cycles (hamiltonian.h); each
 *             cycle minus one edge is a chain, 2n chains of x = cap/(n-1)
 *             reach |E| cap / (n-1), the all-singletons partition's ratio:
 *             optimal and certified, O(n).
 *   cycles    (3 to THEMIS_TP_CHAINS_MAX_NODES nodes) the capacities split
 *             into Hamiltonian cycles: repeatedly the cycle of the widest
 *             bottleneck in what is left (depth-first search), minus its
 *             bottleneck, until nothing is left; each cycle of weight c
 *             gives its n chains x = c / (n - 1), so the packing reaches
 *             sum cap / (n - 1), the all-singletons ratio: optimal and
 *             certified.  p3.16xlarge: the dual-NVLink cycle (c = 2) and
 *             the single one (c = 1).  Unsupported when the greedy search
 *             finds no full decomposition (a bounded number of steps).
 *   union     (treepack_union.c) k edge-disjoint spanning trees of the
 *             graph with every capacity times L, by matroid union
 *             (Edmonds' augmenting paths): value k / L.  Nash-Williams:
 *             they exist exactly when k <= floor(L x strength), and where
 *             they do not the search ends on a partition of ratio below
 *             k / L.  The solver alternates (L, k) - the best under the
 *             bound and within a budget of k trees (the schedule's
 *             chunks) - with the partitions that lower the bound, until
 *             the packing is within 0.5 % of the bound or nothing in the
 *             budget is better; the bound is always a partition's
 *             (certified).  Short of it (a strength above the budget),
 *             trees of several weights: level by level, as many trees of
 *             weight d as the graph of floor(residual / d) copies holds,
 *             d halving, within the same budget of distinct trees - from
 *             the (L, k) trees (or heavier first trees) and from the top
 *             power of two; the best runs.
 *   exact     union with a budget large enough to reach the bound (the
 *             optimum's numerator is at most THEMIS_TP_EXACT_MAX_ELEMS /
 *             (n - 1)); unsupported where it is not reached.
 *   mw        Garg-Koenemann multiplicative weights (doubles, in
 *             treepack_lp.c): an approximate packing with its gap to the
 *             dual bound; for reports only, never feeds a schedule.
 */
#ifndef THEMIS_TREEPACK_H
#define THEMIS_TREEPACK_H

#include "graph.h"
#include "transfer.h"

#define THEMIS_TP_MAX_NODES 4096u
/* Tree edges (trees x (n - 1)) the exact method may use: p3.16xlarge
 * needs 24 x 7, a 4x4 mesh 8 x 15. */
#define THEMIS_TP_EXACT_MAX_ELEMS 8192u
/* Distinct trees (each at least one chunk of the schedule) the
 * runtime's union packing uses at most: more cost transfers, fewer cost
 * accuracy.  A checked schedule affords fewer from 22 ranks on (86 at
 * 64: themis_tp_units_budget). */
#define THEMIS_TP_UNITS_MAX 256u

/* An undirected graph with integer capacities. */
typedef struct {
    uint32_t n, m;
    uint32_t *u, *v;          /* [m], u < v, edges in order of first link */
    uint64_t *cap;            /* [m], in capacity units */
    uint64_t unit_bps;        /* one capacity unit */
} themis_tp_graph_t;

/* A reduced fraction num / den (den > 0). */
typedef struct {
    uint64_t num, den;
} themis_tp_frac_t;

typedef enum {
    THEMIS_TP_TORUS = 0,
    THEMIS_TP_EXACT = 1,
    THEMIS_TP_MW = 2,
    THEMIS_TP_LP = 3,
    THEMIS_TP_SINGLE = 4,     /* the best single tree (MWST) */
    THEMIS_TP_CHAINS = 5,     /* the paper's rotated chains */
    THEMIS_TP_CYCLES = 6,     /* edge-disjoint Hamiltonian cycles */
    THEMIS_TP_UNION = 7       /* k disjoint trees of the L-fold graph */
} themis_tp_method_t;

/* A packing: tree t has edges edges[t * (n - 1) ..] and carries
 * x_t = w[t] / q capacity units (integer methods) or x[t] (all methods).
 * value = sum_t x_t; C(G) of the packing = 1 / value. */
typedef struct {
    themis_tp_method_t method;
    uint32_t n, ntrees;
    uint32_t *edges;          /* [ntrees * (n - 1)] edge indices */
    uint64_t *w;              /* [ntrees]; NULL for LP and MW packings */
    uint64_t q;
    double *x;                /* [ntrees] */
    int exact;                /* value is an exact fraction */
    themis_tp_frac_t value;   /* when exact */
    double value_f;
    /* Upper bound on the optimum: exact when bound_exact (a partition's
     * ratio), else the MW dual bound. */
    int bound_exact;
    themis_tp_frac_t bound;
    double bound_f;
    uint32_t *part;           /* [n] the certificate partition, or NULL */
    uint32_t nparts;
    uint32_t iterations;      /* LP: pricing rounds; MW: trees added; union: rounds */
} themis_tp_packing_t;

themis_status_t themis_tp_from_graph(const themis_graph_t *g, themis_tp_graph_t *out,
                                     char *why, size_t len);
void themis_tp_graph_free(themis_tp_graph_t *g);
void themis_tp_packing_free(themis_tp_packing_t *p);
/* An empty packing of ntrees trees (w when with_w), zeroed. */
themis_status_t themis_tp_packing_alloc(themis_tp_packing_t *p, themis_tp_method_t method,
                                        uint32_t n, uint32_t ntrees, int with_w);

/* cap(crossing edges) / (nparts - 1) for part[0..n) in 0..nparts-1;
 * THEMIS_ERR_INVALID for fewer than 2 parts. */
themis_status_t themis_tp_partition_ratio(const themis_tp_graph_t *g, const uint32_t *part,
                                          uint32_t nparts, themis_tp_frac_t *ratio);
/* The candidate partitions of edge prices y (LP duals or MW weights):
 * for every threshold t among the distinct prices, the components of the
 * edges priced below t; the least ratio (ties: the higher threshold) in
 * *ratio and part (caller's [n]), the all-singletons partition included.
 * An optimal dual always yields an optimal partition this way. */
themis_status_t themis_tp_partition_from_prices(const themis_tp_graph_t *g, const double *y,
                                                uint32_t *part, uint32_t *nparts,
                                                themis_tp_frac_t *ratio);

/* Lemma 2.1 in capacity units: 1/min cap >= C(T_MWST) >= C(G) >=
 * (n - 1) / sum cap; mwst is the best single tree (maximum spanning tree
 * by capacity, Kruskal, ties to the lower edge index): C = 1 / bottleneck. */
typedef struct {
    themis_tp_frac_t max_c;        /* 1 / min cap */
    themis_tp_frac_t c_mwst;       /* 1 / bottleneck of the MWST */
    themis_tp_frac_t c_lower;      /* (n - 1) / sum cap */
} themis_tp_bounds_t;
themis_status_t themis_tp_bounds(const themis_tp_graph_t *g, themis_tp_bounds_t *b,
                                 themis_tp_packing_t *mwst);

/* The paper's heuristic: a Hamiltonian cycle of the largest bottleneck
 * capacity (depth-first search, neighbours by edge index, at most
 * THEMIS_TP_CHAINS_MAX_NODES nodes), cut at each of its n edges: n chains
 * of share 1/n, C = (n - 1) / (n * bottleneck).  THEMIS_ERR_UNSUPPORTED
 * without a Hamiltonian cycle. */
#define THEMIS_TP_CHAINS_MAX_NODES 16u
themis_status_t themis_tp_rotated_chains(const themis_tp_graph_t *g, themis_tp_packing_t *out);

/* The methods above; THEMIS_ERR_UNSUPPORTED (why) where one does not
 * apply. */
themis_status_t themis_tp_torus(const themis_tp_graph_t *g, themis_tp_packing_t *out, char *why,
                                size_t len);
themis_status_t themis_tp_exact(const themis_tp_graph_t *g, themis_tp_packing_t *out, char *why,
                                size_t len);
themis_status_t themis_tp_cycles(const themis_tp_graph_t *g, themis_tp_packing_t *out,
                                 char *why, size_t len);

/* Units of a schedule at most (themis_tp_allreduce_schedule): the union
 * packing keeps its weights' sum (over their gcd) within it. */
#define THEMIS_TP_SCHED_MAX_UNITS 2048u

/* The union packing (treepack_union.c, above) with at most max_units
 * trees counted with their weights: value = k / L exactly (q = L, each
 * tree's w its copies), bound the least partition ratio met (the best
 * node cut and all singletons first), part that partition, iterations
 * the (L, k) rounds.  Capacities whose strength exceeds max_units count
 * in units of d (rounded down; w then counts d per copy). */
themis_status_t themis_tp_union(const themis_tp_graph_t *g, uint32_t max_units,
                                themis_tp_packing_t *out, char *why, size_t len);
/* Chunks (so trees) a schedule of n ranks affords: THEMIS_TP_UNITS_MAX,
 * fewer where 3 (n - 1) transfers per chunk would exceed
 * THEMIS_XFER_CHECK_MAX. */
uint32_t themis_tp_units_budget(uint32_t n);

/* What the runtime runs: torus, else cycles (each where its chains fit
 * themis_tp_units_budget(n)), else union within that budget of trees.  Cycles
 * before union: both are optimal where cycles apply, but chains of
 * Hamiltonian cycles schedule better (themis_tp_allreduce_schedule). */
themis_status_t themis_tp_solve(const themis_tp_graph_t *g, themis_tp_packing_t *out, char *why,
                                size_t len);

/*
 * The All-Reduce transfer schedule of an integer packing (w, q)
 * (treepack_schedule.c): the vector is nunits = (sum_t w_t / gcd) x
 * chunks_per_weight units, tree t gets (w_t / gcd) x chunks_per_weight of
 * them, each a chunk - where that many chunks fit a checked schedule.
 * Else (trees of large weights) the shares in at most 2048 units (largest
 * remainders) and each tree's units in chunks of several units: one per
 * tree, the rest of themis_tp_units_budget to the trees of the largest
 * chunks, so that the transfers grow with the trees, not the units.
 * THEMIS_ERR_UNSUPPORTED when the trees alone exceed it.  Chunks go
 * in the order of their position within their tree, (2j + 1) / (2 c_t)
 * (ties to the lower tree), so every tree streams at its share.  Chunk j
 * of a tree is rooted at the tree's leaf j mod (its leaves), leaves in
 * node order (edge loads do not depend on roots): a chain's chunks go up
 * it one way and come back down, half of them each way, so both
 * directions of every link carry data from the first step to the last,
 * like a bidirectional ring.  Roots rotating over all nodes (interior
 * ones included) left links idle while chunks climbed to the middle and
 * came back (1.70x the bound on p3.16xlarge at 16 MiB; now 1.004x with
 * the cycles packing).  With the chains of Hamiltonian cycles (torus,
 * cycles) every node is an end of two chains per cycle, so a root
 * equally often.  Per chunk, children
 * before parents: every child's partial sum lands in the node's scratch
 * slot for that child (distinct units, so they arrive concurrently), a
 * local REDUCE folds each into the output, and the send to the parent
 * waits for all of them (a join); the root's sum then goes down the tree,
 * each send after the receiver's own send up read the unit.  Scratch:
 * (largest number of children) x nunits units.  Every rank first copies
 * its input to its output.
 */
themis_status_t themis_tp_allreduce_schedule(const themis_tp_graph_t *g,
                                             const themis_tp_packing_t *p,
                                             uint32_t chunks_per_weight, themis_xfer_sched_t *s,
                                             char *why, size_t len);
/* chunks_per_weight for about `target` units, at most what a checked
 * schedule affords: even (a chain's chunks alternate between its two
 * ends), at least 2; 1 when 2 would not fit. */
uint32_t themis_tp_chunks_for(const themis_tp_packing_t *p, uint32_t target);

/* The schedule row treepack runs on graph (algo_treepack.c caches it per
 * graph): themis_tp_solve's packing, themis_tp_chunks_for about 96 units.
 * s is empty (freeable) on failure too. */
themis_status_t themis_tp_runtime_schedule(const themis_graph_t *graph, themis_xfer_sched_t *s,
                                           char *why, size_t len);

/* The rate an All-Reduce schedule s on graph implies, as C in units of
 * S / unit_bps: per byte of the vector, link a -> b carries load_ab /
 * nunits bytes (the units of its transfers) at its rate bw_ab, so C =
 * max load_ab unit_bps / (nunits bw_ab), exactly.  Schedules of packings
 * send each tree's share both ways over each tree edge, so C x C(G)'s
 * strength is the schedule's ratio to the optimum after rounding to
 * units and chunks.  THEMIS_ERR_INVALID (why) when a transfer takes a
 * link that is not there both ways. */
themis_status_t themis_tp_schedule_rate(const themis_graph_t *graph, const themis_xfer_sched_t *s,
                                        uint64_t unit_bps, themis_tp_frac_t *c, char *why,
                                        size_t len);

/* GLPK column generation (treepack_lp.c, libthemis_bound): the LP of the
 * header, pricing by a minimum spanning tree under the duals, started
 * from the MWST and the trees of seed (may be NULL; a good seed saves
 * rounds, the optimum does not depend on it); the certificate from the
 * final duals
 * (themis_tp_partition_from_prices).  exact when the partition's ratio
 * matches the LP value to 1e-9 relative: value = bound = that ratio.
 * THEMIS_ERR_UNSUPPORTED after max_rounds pricing rounds. */
themis_status_t themis_tp_lp(const themis_tp_graph_t *g, uint32_t max_rounds,
                             const themis_tp_packing_t *seed, themis_tp_packing_t *out, char *why,
                             size_t len);

/* Multiplicative weights (treepack_lp.c, libthemis_bound): at most
 * max_iters trees; value_f the packing scaled to fit, bound_f the least
 * dual bound D / alpha met (so the gap is 1 - value_f / bound_f). */
themis_status_t themis_tp_mw(const themis_tp_graph_t *g, double eps, uint32_t max_iters,
                             themis_tp_packing_t *out);

themis_tp_frac_t themis_tp_frac(uint64_t num, uint64_t den);
/* a < b, exactly. */
int themis_tp_frac_less(themis_tp_frac_t a, themis_tp_frac_t b);
const char *themis_tp_method_name(themis_tp_method_t m);

#endif
