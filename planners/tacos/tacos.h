/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * TACOS (tacos.txt): collective algorithms synthesized for a graph
 * (graph.h) by greedy link-chunk matching on the time-expanded network,
 * produced as transfer schedules (transfer.h) that anything can check,
 * simulate and run.
 *
 * All-Gather.  Node r (rank r) starts with chunks r*k .. r*k + k - 1 of
 * nnodes*k chunks of chunk_bytes bytes; every node must end with all.
 * Time model, the link simulator's (link_sim.h): sending a chunk over a
 * directed link occupies it for ser = ceil(chunk_bytes x 8 x 10^12 / bw)
 * ps and delivers the chunk lat later; a link carries one chunk at a time.
 * The synthesis is event-driven in integer ps:
 *   - each link keeps a ready list: the chunks its source holds, in the
 *     order they arrived there (FIFO);
 *   - at each event time (arrivals first, so a choice sees every chunk
 *     that arrived then), every idle link whose source got a chunk or that
 *     became free chooses, shorter links (ser + lat) first (Sec. VI-B),
 *     ties in a per-seed random order;
 *   - a link sends the oldest ready chunk its destination neither holds
 *     nor has in flight, ties (chunks that arrived at the same time) to a
 *     per-seed random one; chunks that became useless there are dropped
 *     (chunk replacement, Sec. VI-B);
 *   - odd seeds instead match the links into one node that choose at the
 *     same time to chunks (maximum bipartite matching over each link's
 *     oldest useful chunks, ties to the chunk fewest nodes hold), so that
 *     no link idles because another took the only chunk it could give
 *     (tacos.c says why this reaches the bound on 2-D tori);
 *   - a send is fixed when it starts (causal); a link without a useful
 *     chunk idles until its source receives one;
 *   - on a graph whose links differ in cost (ser + lat) a chunk on its way
 *     to a node is still useful to a link that would land it there first
 *     (the public code's per-(chunk, node) choice of the link that brings
 *     it earliest, Sec. VI-B, weighs each link's own time the same way):
 *     the link steals it, and the slower send, when it lands, carries
 *     instead a chunk its source held when it started and its far end
 *     still lacks (the paper's chunk replacement, kept causal), else it is
 *     left out of the schedule.  A slow link then never holds back what a
 *     fast one could bring (mesh2d_hetero 6x6 at 100/30 GiB/s, k=2: 1.73x
 *     faster); uniform graphs are unchanged (a later send over an equal
 *     link never lands first).  There links slower than the fastest into
 *     their far end choose (half the seeds) the chunk they bring most
 *     ahead of any other link into it, and seeds compete by the link
 *     simulator's time;
 *   - some seeds match as the public code does: each far end's lacking
 *     chunks, the fewest holders first, else in a random order, each to
 *     the cheapest link that holds it (tacos.c: seeds and rules).
 * Held-or-in-flight chunks are one bitset per node; nothing scans all
 * (chunk, node) pairs.  Seeds: seed i draws from splitmix64 started at
 * THEMIS_TACOS_SEED_BASE + i; the least time wins (the link simulator's
 * for seeds that steal or match as the public code does), ties to the
 * lower seed (Sec. VI-C), so every rank that runs the same call gets the
 * same schedule; a seed at the lower bound ends the search.
 *
 * Reduce-Scatter is an All-Gather reversed in time (Sec. VII-A): one
 * synthesized on the transposed graph (so that reversed sends use links
 * that exist; on a symmetric graph the All-Gather on the graph itself,
 * each send moved to its link's reverse), chunk c's tree leaves first,
 * with joins; each link keeps its sends in the reversed order, so the
 * exact reversal is a valid timing and the Reduce-Scatter takes no longer
 * than that All-Gather.  A node v's partial sum of
 * c lives in its INPUT unit c; each child's partial sum arrives in its
 * own SCRATCH unit and is folded in by a local REDUCE; v sends its partial
 * sum to its All-Gather parent once every child's contribution is folded
 * in; the owner finally copies unit c to its OUTPUT.  All-Reduce is that
 * Reduce-Scatter followed by the All-Gather (sending from OUTPUT), each
 * chunk's All-Gather starting as soon as its reduction is done.
 *
 * Units: nunits = nnodes * k (one chunk each).  Ranks are the graph's
 * nodes; a graph with failed nodes is first reduced to its working part
 * (themis_tacos_working), whose rank r is the r-th working node.
 */
#ifndef THEMIS_TACOS_H
#define THEMIS_TACOS_H

#include "graph.h"
#include "transfer.h"

#define THEMIS_TACOS_SEED_BASE 0x7ac05u
/* nseeds 0: as many seeds as THEMIS_TACOS_AUTO_WORK ready-list entries
 * allow (links x chunks per seed), at least THEMIS_TACOS_DEFAULT_SEEDS
 * and at most THEMIS_TACOS_AUTO_MAX_SEEDS: small graphs, where a seed
 * takes microseconds, try more of them. */
#define THEMIS_TACOS_SEEDS_AUTO 0u
#define THEMIS_TACOS_DEFAULT_SEEDS 4u
#define THEMIS_TACOS_AUTO_MAX_SEEDS 32u
#define THEMIS_TACOS_AUTO_WORK (1ull << 22)
#define THEMIS_TACOS_MAX_SEEDS 1024u
/* Ready lists hold up to links x chunks entries. */
#define THEMIS_TACOS_MAX_ENTRIES (1ull << 30)

typedef struct {
    uint32_t link;              /* the graph's link index */
    uint32_t chunk;
    themis_time_t start_ps, arrive_ps;
} themis_tacos_send_t;

typedef struct {
    uint32_t nnodes, k, nchunks;     /* nchunks = nnodes * k */
    uint32_t nsends;                 /* nnodes * (nchunks - k) */
    themis_tacos_send_t *sends;      /* in start order */
    themis_time_t time_ps;           /* the last arrival */
    uint32_t seed;                   /* the seed that won */
    /* 1: the schedule keeps each link's sends in this order (each depends
     * on the link's previous one): a plan made in another time model
     * (TACOS-ILP's steps, the greedy's held-link seeds) then never runs
     * later than planned. */
    uint8_t link_order;
    /* As an allreduce's All-Gather part: 1, it starts when the whole
     * reduce-scatter has ended (the allreduce then takes at most both
     * halves' times); 0, each chunk as soon as it is reduced. */
    uint8_t after_all;
} themis_tacos_ag_t;

/* The All-Gather on g (no failed nodes; failed links are not used) with k
 * chunks per node of chunk_bytes (>= 1) bytes, best of nseeds seeds (1 ..
 * THEMIS_TACOS_MAX_SEEDS, or THEMIS_TACOS_SEEDS_AUTO: themis_tacos_seeds).
 * Its sends' times are a valid timing (causal, a link one chunk at a
 * time): the plan's, or the link simulator's for a winner that it runs
 * in free order otherwise than planned; time_ps is their last arrival.
 * THEMIS_ERR_INVALID with why for bad arguments, a failed node, a node
 * that cannot receive some chunk, too many ready list entries;
 * THEMIS_ERR_NOMEM.  out is freed with themis_tacos_ag_free
 * (also after an error). */
themis_status_t themis_tacos_allgather(const themis_graph_t *g, uint32_t k, uint64_t chunk_bytes,
                                       uint32_t nseeds, themis_tacos_ag_t *out, char *why,
                                       size_t len);
void themis_tacos_ag_free(themis_tacos_ag_t *ag);
/* The seeds THEMIS_TACOS_SEEDS_AUTO stands for on g with k chunks per
 * node (a function of the graph's size only, so equal on every rank). */
uint32_t themis_tacos_seeds(const themis_graph_t *g, uint32_t k);
/* The same within another budget of ready-list entries. */
uint32_t themis_tacos_seeds_within(const themis_graph_t *g, uint32_t k, uint64_t budget);

/* The collective (allgather, reduce-scatter, allreduce) as a transfer
 * schedule on g (see above): rev is an All-Gather synthesized on g's
 * transpose (themis_tacos_transpose; reduce-scatter and allreduce), whose
 * sends reversed in time run over g's links, fwd one on g (allgather and
 * allreduce); the other may be NULL.  It passes themis_xfer_check.
 * Transfers: allgather nnodes*(nchunks - k) + nnodes, reduce-scatter
 * 2*nnodes*(nchunks - k) + nchunks, allreduce their sum minus nnodes.
 * THEMIS_ERR_INVALID, THEMIS_ERR_NOMEM. */
themis_status_t themis_tacos_schedule(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                                      const themis_tacos_ag_t *fwd, themis_coll_t coll,
                                      themis_xfer_sched_t *out);
/* g with every link reversed, in the same order, the same failures. */
themis_status_t themis_tacos_transpose(const themis_graph_t *g, themis_graph_t *out);

/* ag, an All-Gather on g, with each send moved to its link's reverse: an
 * All-Gather on g's transpose (themis_tacos_transpose) that takes the
 * same time.  THEMIS_ERR_UNSUPPORTED unless g is symmetric: its links
 * pair up, in link order, with reverses of the same rate, latency and
 * failure; THEMIS_ERR_NOMEM. */
themis_status_t themis_tacos_mirror(const themis_graph_t *g, const themis_tacos_ag_t *ag,
                                    themis_tacos_ag_t *out);

/* An All-Gather synthesizer on a graph (the greedy, the ILP). */
typedef themis_status_t (*themis_tacos_ag_fn)(const themis_graph_t *g, void *ctx,
                                             themis_tacos_ag_t *out, char *why, size_t len);
/* The schedule of coll from ag's All-Gathers: on g's transpose for the
 * reduce-scatter part, on g for the All-Gather part.  On a symmetric g ag
 * runs once, on g: the reduce-scatter part is its mirror reversed in
 * time, which takes no longer than the All-Gather. */
themis_status_t themis_tacos_synthesize_with(const themis_graph_t *g, themis_coll_t coll,
                                             uint64_t chunk_bytes, themis_tacos_ag_fn ag,
                                             void *ctx, themis_xfer_sched_t *out, char *why,
                                             size_t len);
/* s's time in the link simulator with chunks of chunk_bytes; UINT64_MAX
 * when it cannot be simulated. */
themis_time_t themis_tacos_simulated(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                    uint64_t chunk_bytes);
/* Synthesis and schedule in one: what the algorithm row and the CLI run. */
themis_status_t themis_tacos_synthesize(const themis_graph_t *g, themis_coll_t coll, uint32_t k,
                                        uint64_t chunk_bytes, uint32_t nseeds,
                                        themis_xfer_sched_t *out, char *why, size_t len);

/* Serialization time of b bytes at bw bit/s in ps, rounded up (as the
 * link simulator's), capped at 2^62. */
themis_time_t themis_tacos_ser_ps(uint64_t b, uint64_t bw);

/* A lower bound on the collective's time under the model above, a link
 * carrying floor((T - lat) / ser) chunks by T: the latest over nodes of
 * the least T by which the node's in-links carry the nchunks - k chunks it
 * lacks (allgather), its out-links the nchunks - k contributions it must
 * give (reduce-scatter), both for allreduce, which also moves at least
 * 2 N (nchunks - k) chunks over all links together.  On a homogeneous
 * graph the allgather's is ceil((N*k - k) / smallest in-degree) x ser +
 * lat.  0 when nothing moves; UINT64_MAX when a node has no working link. */
themis_time_t themis_tacos_lower_bound(const themis_graph_t *g, themis_coll_t coll, uint32_t k,
                                       uint64_t chunk_bytes);

/* The working part of g: its working nodes, renumbered in increasing id
 * order (rank r is node node_of_rank[r], nnodes entries), and the working
 * links between them, in link order.  THEMIS_ERR_INVALID when no node
 * works, THEMIS_ERR_NOMEM. */
themis_status_t themis_tacos_working(const themis_graph_t *g, themis_graph_t *out,
                                     uint32_t *node_of_rank, uint32_t *nranks);

#endif
