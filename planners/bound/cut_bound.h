/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A cut lower bound on a collective's time on a graph (graph.h), in the
 * link simulator's model (link_sim.h, as tacos.h: a chunk of b bytes
 * holds a link for ser = ceil(b x 8 x 10^12 / bw) ps and lands lat
 * later; a link delivers floor((T - lat) / ser) chunks by T).  Chunks are
 * not split or coded, so for a set S of nodes (a cut):
 *   allgather       each chunk owned outside S enters S at least once:
 *                   the links into S carry (N - |S|) k chunks;
 *   reduce-scatter  each chunk owned outside S needs a contribution from
 *                   S: the links out of S carry (N - |S|) k chunks;
 *   allreduce       every chunk's result in S needs data from outside and
 *                   the reverse: N k chunks each way.
 * The bound is the largest over the cuts tried of the least T by which the
 * crossing links can carry that many (themis_cut_least_time).  Every cut
 * (2^N - 2) is tried on graphs of up to THEMIS_CUT_EXACT_NODES nodes
 * (exact: the best cut bound of the model); on larger ones a family: every
 * single node and its complement, and the sweeps between pairs of nodes
 * (u, v): the nodes ordered by hop distance to u minus hop distance to v,
 * each prefix a cut (on meshes and tori these include the half-planes
 * across each dimension, where heterogeneous and hierarchical graphs are
 * narrowest); all pairs up to THEMIS_CUT_ALL_PAIRS nodes, else each node
 * with its farthest ones.  Sweeps are screened by bandwidth alone (bytes
 * over capacity) and the THEMIS_CUT_TOP best are timed exactly.
 */
#ifndef THEMIS_CUT_BOUND_H
#define THEMIS_CUT_BOUND_H

#include "graph.h"

#define THEMIS_CUT_EXACT_NODES 16u
#define THEMIS_CUT_ALL_PAIRS 128u
#define THEMIS_CUT_TOP 32u

typedef struct {
    themis_time_t time_ps;      /* the bound; 0 when nothing moves, UINT64_MAX: no path */
    int exact;                  /* every cut was tried */
    uint32_t side;              /* nodes on the binding cut's side S */
    uint64_t cuts;              /* cuts timed or screened */
} themis_cut_bound_t;

/* The bound for coll with k chunks per node of chunk_bytes bytes on g's
 * working links (no failed node: THEMIS_ERR_INVALID, as for bad
 * arguments); THEMIS_ERR_NOMEM. */
themis_status_t themis_cut_bound(const themis_graph_t *g, themis_coll_t coll, uint32_t k,
                                 uint64_t chunk_bytes, themis_cut_bound_t *out);

/* The least T by which links l[0 .. nl) (ser[link] > 0 for a working one,
 * 0 for one that carries nothing) deliver `need` chunks: UINT64_MAX when
 * none works, 0 when need is 0. */
themis_time_t themis_cut_least_time(const themis_graph_t *g, const uint32_t *l, uint32_t nl,
                                    const themis_time_t *ser, uint64_t need);

#endif
