/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Any row's predicted time on a graph (algorithm.h, themis_algo_graph_cost):
 * one link-level simulator (link_sim.h) for every algorithm, so that
 * `auto` ranks them on the network they really run on.  A row that runs
 * a transfer schedule (its xfer hook: a user's file, a synthesized or
 * packed schedule, the rings' and torus2d's lists) is simulated as it is;
 * the planning row (themis) builds every rank's program for a
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
#define GRAPH_COST_MAX_ELEMS THEMIS_GRAPH_COST_UNITS
/* coll_themis_direct_max's default, where the caller gives no dim_algo */
#define GRAPH_COST_DIRECT_MAX 8

uint32_t themis_algo_cost_list_chunks(uint32_t chunks, uint64_t nranks)
{
    uint64_t most = 0 == nranks ? 1 : THEMIS_GRAPH_COST_UNITS / (4 * nranks);
    most = 0 == most ? 1 : most;
    return chunks > most ? (uint32_t) most : (0 == chunks ? 1 : chunks);
}

/* s's time on g for a call of `bytes` bytes in `units` units, replaying
 * *order where it holds (order NULL: simulated alone). */
static themis_status_t sched_time(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                  uint64_t bytes, uint64_t units, themis_link_order_t *order,
                                  themis_time_t *time, char *why, size_t len)
{
    themis_link_order_t own;
    uint64_t unit_bytes = 0 == units ? 0 : bytes / units;
    memset(&own, 0, sizeof(own));
    themis_status_t st = themis_link_sim_total(g, s, 0 == unit_bytes ? 1 : unit_bytes,
                                               NULL != order ? order : &own, time, why, len);
    themis_link_order_free(&own);
    return THEMIS_OK == st || THEMIS_ERR_NOMEM == st ? st : THEMIS_ERR_UNSUPPORTED;
}

themis_status_t themis_xfer_graph_cost(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                       uint64_t bytes, uint64_t units, themis_time_t *time)
{
    char why[160];
    return sched_time(g, s, bytes, units, NULL, time, why, sizeof(why));
}

/* s at in->bytes (units of it), replaying *order where it holds; the
 * simulator's reason said as the row's. */
static themis_status_t simulate(const themis_algo_input_t *in, const themis_xfer_sched_t *s,
                                uint64_t units, themis_link_order_t *order, themis_time_t *time,
                                char *why, size_t len)
{
    themis_status_t st = sched_time(in->graph, s, in->bytes, units, order, time, why, len);
    if (THEMIS_OK != st && THEMIS_ERR_NOMEM != st && 0 < len) {
        char sim_why[160];
        snprintf(sim_why, sizeof(sim_why), "%s", why);
        snprintf(why, len, "the link simulator cannot run it on coll_themis_graph: %s", sim_why);
    }
    return st;
}

/* The order kept for a row's own schedule s (the same pointer through the
 * table's build), NULL without a cache. */
static themis_link_order_t *xfer_order(themis_algo_rep_cache_t *c, const themis_xfer_sched_t *s)
{
    if (NULL == c) {
        return NULL;
    }
    for (int i = 0; i < c->xn; ++i) {
        if (c->xs[i] == s) {
            return &c->xorder[i];
        }
    }
    const int slot = c->xnext;
    themis_link_order_free(&c->xorder[slot]);
    c->xs[slot] = s;
    c->xnext = (slot + 1) % THEMIS_ALGO_REP_CACHE;
    c->xn += c->xn < THEMIS_ALGO_REP_CACHE;
    return &c->xorder[slot];
}

/* The cache's schedule of that key, or NULL; *order: its order. */
static const themis_xfer_sched_t *cache_find(themis_algo_rep_cache_t *c, uint64_t key,
                                             themis_link_order_t **order)
{
    for (int i = 0; i < c->n; ++i) {
        if (c->key[i] == key) {
            *order = &c->order[i];
            return &c->s[i];
        }
    }
    return NULL;
}

/* *s kept in the cache under key (emptied), in place of the oldest. */
static const themis_xfer_sched_t *cache_keep(themis_algo_rep_cache_t *c, uint64_t key,
                                             themis_xfer_sched_t *s, themis_link_order_t **order)
{
    const int slot = c->next;
    themis_xfer_free(&c->s[slot]);
    themis_link_order_free(&c->order[slot]);
    c->s[slot] = *s;
    c->key[slot] = key;
    memset(s, 0, sizeof(*s));
    c->next = (slot + 1) % THEMIS_ALGO_REP_CACHE;
    c->n += c->n < THEMIS_ALGO_REP_CACHE;
    *order = &c->order[slot];
    return &c->s[slot];
}

/* Every rank's program of the row for `count` elements per rank (the
 * vector for allreduce), as a transfer schedule: from the cache where
 * the same programs were converted before (the table's classes often
 * share them), else converted (into the cache, or *own). */
static themis_status_t row_schedule(const themis_algorithm_t *a, const themis_algo_input_t *in,
                                    const themis_algo_cost_params_t *params, uint32_t p,
                                    uint64_t count, themis_algo_rep_cache_t *cache,
                                    themis_xfer_sched_t *own, const themis_xfer_sched_t **out,
                                    themis_link_order_t **order, char *why, size_t len)
{
    themis_program_t *progs = calloc(p, sizeof(*progs));
    uint64_t *recvcounts = calloc(p, sizeof(*recvcounts));
    themis_algo_input_t rin = *in;
    themis_plan_request_t req;
    themis_status_t st = THEMIS_OK;

    if (NULL == progs || NULL == recvcounts) {
        free(progs);
        free(recvcounts);
        return THEMIS_ERR_NOMEM;
    }
    rin.params = params;
    rin.why = why;
    rin.why_len = len;
    memset(&req, 0, sizeof(req));
    req.coll = in->coll;
    req.ndims = in->topo->ndims;
    for (int i = 0; i < in->topo->ndims; ++i) {
        req.dim_size[i] = in->topo->dims[i].size;
        req.dim_algo[i] = themis_algo_rep_dim_algo(in, i);
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
        if (THEMIS_OK != st && '\0' == why[0]) {
            snprintf(why, len, "building rank %u's program: %s", r, themis_status_string(st));
        }
    }
    uint64_t key = themis_fnv1a_u64(themis_fnv1a_u64(THEMIS_FNV_OFFSET, in->coll), count);
    for (uint32_t r = 0; r < p && THEMIS_OK == st; ++r) {
        key = themis_fnv1a_u64(key, themis_program_hash(&progs[r]));
    }
    if (THEMIS_OK == st && NULL != cache && NULL != (*out = cache_find(cache, key, order))) {
        goto done;
    }
    if (THEMIS_OK == st) {
        uint64_t whole = THEMIS_COLL_ALLREDUCE == in->coll ? count : count * p;
        st = themis_xfer_from_programs(in->coll, p, progs,
                                       THEMIS_COLL_ALLGATHER == in->coll ? count : whole,
                                       THEMIS_COLL_REDUCE_SCATTER == in->coll ? count : whole,
                                       own, why, len);
        *out = own;
    }
    if (THEMIS_OK == st && NULL != cache) {
        *out = cache_keep(cache, key, own, order);
    }
done:
    for (uint32_t r = 0; r < p; ++r) {
        themis_program_free(&progs[r]);
    }
    free(progs);
    free(recvcounts);
    return st;
}

themis_dim_algo_t themis_algo_rep_dim_algo(const themis_algo_input_t *in, int dim)
{
    return NULL != in->dim_algo ? in->dim_algo[dim]
                                : themis_dim_algo_for(in->topo->dims[dim].kind,
                                                      in->topo->dims[dim].size,
                                                      GRAPH_COST_DIRECT_MAX);
}

uint64_t themis_algo_rep_units(const themis_algo_input_t *in)
{
    /* Each chunk's blocks one element: the call's chunks while they fit. */
    const uint64_t p = themis_topology_npus(in->topo);
    uint64_t chunks = in->params->themis_chunks;
    if (0 == p) {
        return 0;
    }
    if (chunks > GRAPH_COST_MAX_ELEMS / p) {
        chunks = GRAPH_COST_MAX_ELEMS / p;
    }
    return chunks * p;
}

void themis_algo_rep_cache_free(themis_algo_rep_cache_t *c)
{
    for (int i = 0; i < THEMIS_ALGO_REP_CACHE; ++i) {
        themis_xfer_free(&c->s[i]);
        themis_link_order_free(&c->order[i]);
        themis_link_order_free(&c->xorder[i]);
    }
    themis_xfer_memo_free(&c->lists);
    memset(c, 0, sizeof(*c));
}

themis_status_t themis_algo_graph_cost(int index, const themis_algo_input_t *in,
                                       themis_time_t *time)
{
    char why[8];
    return themis_algo_graph_cost_cached(index, in, NULL, time, why, sizeof(why));
}

themis_status_t themis_algo_graph_cost_cached(int index, const themis_algo_input_t *in,
                                              themis_algo_rep_cache_t *cache,
                                              themis_time_t *time, char *why, size_t len)
{
    const themis_algorithm_t *a = themis_algorithm_get(index);
    uint64_t p = themis_topology_npus(in->topo);

    why[0] = '\0';
    if (NULL == a || NULL == in->graph) {
        snprintf(why, len, "no coll_themis_graph to simulate it on");
        return THEMIS_ERR_UNSUPPORTED;
    }
    if (in->graph->nranks != p || 0 == p || p > THEMIS_GRAPH_COST_MAX_RANKS) {
        snprintf(why, len, "the link simulator costs %llu ranks on a graph of %u ranks (1 to %u "
                 "ranks, one per rank node)", (unsigned long long) p, in->graph->nranks,
                 THEMIS_GRAPH_COST_MAX_RANKS);
        return THEMIS_ERR_UNSUPPORTED;
    }
    if (NULL != a->xfer) {
        /* A row that runs a transfer schedule: that schedule, as it is. */
        themis_xfer_sched_t tmp;
        themis_link_order_t *order = NULL;
        themis_algo_input_t rin = *in;
        rin.lists = NULL != cache ? &cache->lists : NULL;
        memset(&tmp, 0, sizeof(tmp));
        const themis_xfer_sched_t *s = a->xfer(&rin, &tmp, why, len);
        if (NULL != s && s != &tmp) {
            /* kept in the row's state or in rin.lists: at the same
             * address through the table's build */
            order = xfer_order(cache, s);
        }
        themis_status_t st = NULL == s ? THEMIS_ERR_UNSUPPORTED
                                       : simulate(in, s, s->nunits, order, time, why, len);
        themis_xfer_free(&tmp);
        return st;
    }
    uint64_t per_chunk = p;
    uint32_t chunks = (uint32_t) (themis_algo_rep_units(in) / per_chunk);
    if (0 == chunks) {
        snprintf(why, len, "a representative call of %u elements has no chunk of one element "
                 "per rank", GRAPH_COST_MAX_ELEMS);
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
    themis_link_order_t *order = NULL;
    memset(&own, 0, sizeof(own));
    themis_status_t st = row_schedule(a, in, &params, (uint32_t) p, count, cache, &own, &s,
                                      &order, why, len);
    if (THEMIS_OK == st) {
        st = simulate(in, s, units, order, time, why, len);
    }
    themis_xfer_free(&own);
    return THEMIS_ERR_NOMEM == st ? st : (THEMIS_OK == st ? THEMIS_OK : THEMIS_ERR_UNSUPPORTED);
}
