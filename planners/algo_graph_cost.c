/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Any row's predicted time on a graph (algorithm.h, themis_algo_graph_cost):
 * one link-level simulator (link_sim.h) for every algorithm, so that
 * `auto` ranks them on the network they really run on.  A row that runs
 * a transfer schedule (its xfer hook: a user's file, a synthesized or
 * packed schedule) is simulated as it is; a planning row builds every rank's program for a
 * representative call (each chunk's blocks one element, at most
 * GRAPH_COST_MAX_ELEMS elements, so costing stays cheap) and simulates the
 * transfers those programs make (xfer_programs.h), each element standing
 * for bytes / elements bytes.  Fewer chunks than the call's may be used
 * for the estimate (then it overstates pipeline fill); all integer.
 */
#include "algorithm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "hash.h"
#include "link_sim.h"
#include "xfer_programs.h"

/* Elements of the representative call: bounds programs, transfers and
 * the simulation, which the cost table runs per row and size class (a
 * 64-rank graph: 16 chunks of 64 blocks, enough to show pipelining). */
#define GRAPH_COST_MAX_ELEMS 1024u
/* coll_themis_direct_max's default, where the caller gives no dim_algo */
#define GRAPH_COST_DIRECT_MAX 8

static themis_status_t simulate(const themis_algo_input_t *in, const themis_xfer_sched_t *s,
                                uint64_t units, themis_time_t *time)
{
    themis_link_sim_t sim;
    char why[160];
    uint64_t unit_bytes = in->bytes / units;
    themis_status_t st = themis_link_sim(in->graph, s, 0 == unit_bytes ? 1 : unit_bytes, &sim,
                                         why, sizeof(why));
    if (THEMIS_OK == st) {
        *time = sim.total_ps;
    }
    themis_link_sim_free(&sim);
    return THEMIS_OK == st ? THEMIS_OK : THEMIS_ERR_UNSUPPORTED;
}

/* Every rank's program of the row for `count` elements per rank (the
 * vector for allreduce), as a transfer schedule: from the cache where
 * the same programs were converted before (the table's classes often
 * share them), else converted (into the cache, or *own). */
static themis_status_t row_schedule(const themis_algorithm_t *a, const themis_algo_input_t *in,
                                    const themis_algo_cost_params_t *params, uint32_t p,
                                    uint64_t count, themis_algo_rep_cache_t *cache,
                                    themis_xfer_sched_t *own, const themis_xfer_sched_t **out)
{
    themis_program_t *progs = calloc(p, sizeof(*progs));
    uint64_t *recvcounts = calloc(p, sizeof(*recvcounts));
    themis_algo_input_t rin = *in;
    themis_plan_request_t req;
    themis_status_t st = THEMIS_OK;
    char why[160];

    if (NULL == progs || NULL == recvcounts) {
        free(progs);
        free(recvcounts);
        return THEMIS_ERR_NOMEM;
    }
    rin.params = params;
    memset(&req, 0, sizeof(req));
    req.coll = in->coll;
    req.ndims = in->topo->ndims;
    for (int i = 0; i < in->topo->ndims; ++i) {
        req.dim_size[i] = in->topo->dims[i].size;
        req.dim_algo[i] = NULL != in->dim_algo
                              ? in->dim_algo[i]
                              : themis_dim_algo_for(in->topo->dims[i].kind,
                                                    in->topo->dims[i].size, GRAPH_COST_DIRECT_MAX);
    }
    for (uint32_t r = 0; r < p; ++r) {
        recvcounts[r] = count;
    }
    req.count = THEMIS_COLL_REDUCE_SCATTER == in->coll ? 0 : count;
    req.recvcounts = recvcounts;
    req.chunks_in_flight = params->chunks_in_flight;
    for (uint32_t r = 0; r < p && THEMIS_OK == st; ++r) {
        req.rank = (int) r;
        st = a->build(&rin, &req, &progs[r]);
    }
    uint64_t key = themis_fnv1a_u64(themis_fnv1a_u64(THEMIS_FNV_OFFSET, in->coll), count);
    for (uint32_t r = 0; r < p && THEMIS_OK == st; ++r) {
        key = themis_fnv1a_u64(key, themis_program_hash(&progs[r]));
    }
    for (int i = 0; THEMIS_OK == st && NULL != cache && i < cache->n; ++i) {
        if (cache->key[i] == key) {
            *out = &cache->s[i];
            goto done;
        }
    }
    if (THEMIS_OK == st) {
        uint64_t whole = THEMIS_COLL_ALLREDUCE == in->coll ? count : count * p;
        st = themis_xfer_from_programs(in->coll, p, progs,
                                       THEMIS_COLL_ALLGATHER == in->coll ? count : whole,
                                       THEMIS_COLL_REDUCE_SCATTER == in->coll ? count : whole,
                                       own, why, sizeof(why));
        *out = own;
    }
    if (THEMIS_OK == st && NULL != cache) {
        const int slot = cache->next;
        themis_xfer_free(&cache->s[slot]);
        cache->s[slot] = *own;
        cache->key[slot] = key;
        memset(own, 0, sizeof(*own));
        cache->next = (slot + 1) % THEMIS_ALGO_REP_CACHE;
        cache->n += cache->n < THEMIS_ALGO_REP_CACHE;
        *out = &cache->s[slot];
    }
done:
    for (uint32_t r = 0; r < p; ++r) {
        themis_program_free(&progs[r]);
    }
    free(progs);
    free(recvcounts);
    return st;
}

void themis_algo_rep_cache_free(themis_algo_rep_cache_t *c)
{
    for (int i = 0; i < THEMIS_ALGO_REP_CACHE; ++i) {
        themis_xfer_free(&c->s[i]);
    }
    memset(c, 0, sizeof(*c));
}

themis_status_t themis_algo_graph_cost(int index, const themis_algo_input_t *in,
                                       themis_time_t *time)
{
    return themis_algo_graph_cost_cached(index, in, NULL, time);
}

themis_status_t themis_algo_graph_cost_cached(int index, const themis_algo_input_t *in,
                                              themis_algo_rep_cache_t *cache,
                                              themis_time_t *time)
{
    const themis_algorithm_t *a = themis_algorithm_get(index);
    uint64_t p = themis_topology_npus(in->topo);

    if (NULL == a || NULL == in->graph || in->graph->nranks != p || 0 == p
        || p > THEMIS_GRAPH_COST_MAX_RANKS) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    if (NULL != a->xfer) {
        /* A row that runs a transfer schedule: that schedule, as it is. */
        themis_xfer_sched_t tmp;
        char why[160];
        memset(&tmp, 0, sizeof(tmp));
        const themis_xfer_sched_t *s = a->xfer(in, &tmp, why, sizeof(why));
        themis_status_t st = NULL != s ? simulate(in, s, s->nunits, time) : THEMIS_ERR_UNSUPPORTED;
        themis_xfer_free(&tmp);
        return st;
    }
    /* Each chunk's blocks one element: the call's chunks while they fit. */
    uint64_t per_chunk = p;
    uint32_t chunks = in->params->themis_chunks;
    if (chunks > GRAPH_COST_MAX_ELEMS / per_chunk) {
        chunks = (uint32_t) (GRAPH_COST_MAX_ELEMS / per_chunk);
    }
    if (0 == chunks) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    themis_algo_cost_params_t params = *in->params;
    params.themis_chunks = chunks;
    if (params.torus_chunks > chunks) {
        params.torus_chunks = chunks;
    }
    /* allreduce: the vector; the others: each rank's block. */
    uint64_t count = THEMIS_COLL_ALLREDUCE == in->coll ? (uint64_t) chunks * per_chunk : chunks;
    uint64_t units = THEMIS_COLL_ALLREDUCE == in->coll ? count : count * p;
    themis_xfer_sched_t own;
    const themis_xfer_sched_t *s = NULL;
    memset(&own, 0, sizeof(own));
    themis_status_t st = row_schedule(a, in, &params, (uint32_t) p, count, cache, &own, &s);
    if (THEMIS_OK == st) {
        st = simulate(in, s, units, time);
    }
    themis_xfer_free(&own);
    return THEMIS_ERR_NOMEM == st ? st : (THEMIS_OK == st ? THEMIS_OK : THEMIS_ERR_UNSUPPORTED);
}
