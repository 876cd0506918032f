/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Any row's predicted time on a graph (algorithm.h, themis_algo_graph_cost):
 * one link-level simulator (link_sim.h) for every algorithm, so that
 * `auto` ranks them on the network they really run on.  Every row gives
 * its transfer schedule (its xfer hook: a user's file, a synthesized or
 * packed schedule, the rings' and torus2d's lists, the themis plan's list
 * of a representative call), simulated as it is; all integer.
 */
#include "algorithm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "hash.h"
#include "link_sim.h"

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

void themis_algo_rep_cache_free(themis_algo_rep_cache_t *c)
{
    for (int i = 0; i < THEMIS_ALGO_REP_CACHE; ++i) {
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
    if (NULL == a->xfer) {
        snprintf(why, len, "%s has no transfer schedule to simulate", a->name);
        return THEMIS_ERR_UNSUPPORTED;
    }
    themis_xfer_sched_t tmp;
    themis_link_order_t *order = NULL;
    themis_algo_input_t rin = *in;
    rin.lists = NULL != cache ? &cache->lists : NULL;
    memset(&tmp, 0, sizeof(tmp));
    const themis_xfer_sched_t *s = a->xfer(&rin, &tmp, why, len);
    if (NULL != s && s != &tmp) {
        /* kept in the row's state or in rin.lists: at the same address
         * through the table's build */
        order = xfer_order(cache, s);
    }
    themis_status_t st = NULL == s ? THEMIS_ERR_UNSUPPORTED
                                   : simulate(in, s, s->nunits, order, time, why, len);
    themis_xfer_free(&tmp);
    return st;
}
