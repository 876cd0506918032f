/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A lower bound of a row's time on a graph (algorithm.h,
 * themis_algo_graph_bound_cached): the cost table simulates a row at a
 * size class only where this bound does not show another row faster.
 * A transfer schedule's bound in the link simulator's model (link_sim.h:
 * store-and-forward on fewest-hop routes, one transfer per link at a
 * time, ceil(bytes x 8 x 10^12 / bw) ps per hop, then the link's latency):
 *   - hops: the links together serve at most bw_sum bits per second, and
 *     the busiest one has its latency still to go;
 *   - first links: each transfer occupies the first link of its route;
 *   - chains: each transfer along a dependency chain takes at least its
 *     hops x (least latency), and its hops x bytes at the fastest rate.
 * The schedule's summary does not depend on the unit size, so a schedule
 * kept across classes (in the row's state or its lists) is summarised
 * once.  Integer throughout.
 */
#include "algorithm.h"

#include <stdlib.h>
#include <string.h>

typedef struct themis_xfer_bound_summary summary_t;
typedef unsigned __int128 u128;

/* floor(units x unit_bytes x 8 x 10^12 / bw) ps, saturated */
static themis_time_t ps_of(uint64_t units, uint64_t unit_bytes, uint64_t bw)
{
    const u128 ps = (u128) units * unit_bytes * 8000000000000ULL / bw;
    return ps > (u128) INT64_MAX ? (themis_time_t) INT64_MAX : (themis_time_t) ps;
}

static themis_status_t summarise(const themis_route_table_t *rt, const themis_graph_t *g,
                                 const themis_xfer_sched_t *s, summary_t *out)
{
    const uint32_t p = rt->nranks;
    uint64_t *link = calloc(g->nlinks + 1, sizeof(*link));
    uint64_t *hops_to = malloc(((size_t) s->nxfers + 1) * sizeof(*hops_to));
    uint64_t *units_to = malloc(((size_t) s->nxfers + 1) * sizeof(*units_to));
    themis_status_t st = THEMIS_OK;

    memset(out, 0, sizeof(*out));
    if (NULL == link || NULL == hops_to || NULL == units_to) {
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    /* The summary and what the loop reads in locals: its stores to the
     * per-transfer arrays would otherwise make the compiler fetch and
     * store them for every transfer. */
    summary_t m = {0, 0, 0, 0, 0};
    const themis_xfer_t *const xfers = s->xfers;
    const uint32_t *const deps = s->deps, *const rt_hops = rt->hops, *const rt_first = rt->first;
    const themis_link_t *const links = g->links;
    for (uint32_t i = 0; i < s->nxfers; ++i) {
        const themis_xfer_t *x = &xfers[i];
        const uint32_t src = x->src, dst = x->dst, nd = x->ndeps;
        /* deps is NULL in a list without dependencies */
        const uint32_t *dep = 0 != nd ? &deps[x->dep_first] : NULL;
        const uint64_t count = x->count;
        if (src >= p || dst >= p) {
            st = THEMIS_ERR_UNSUPPORTED; /* the simulator says why */
            goto out;
        }
        const uint32_t h = src == dst ? 0 : rt_hops[(size_t) src * p + dst];
        if (THEMIS_ROUTE_NONE == h) {
            st = THEMIS_ERR_UNSUPPORTED;
            goto out;
        }
        uint64_t before_hops = 0, before_units = 0;
        for (uint32_t d = 0; d < nd; ++d) {
            const uint32_t j = dep[d];
            if (j >= i) {
                st = THEMIS_ERR_UNSUPPORTED;
                goto out;
            }
            before_hops = hops_to[j] > before_hops ? hops_to[j] : before_hops;
            before_units = units_to[j] > before_units ? units_to[j] : before_units;
        }
        const uint64_t hops = before_hops + h, units = before_units + (uint64_t) h * count;
        hops_to[i] = hops;
        units_to[i] = units;
        m.path_hops = hops > m.path_hops ? hops : m.path_hops;
        m.path_units = units > m.path_units ? units : m.path_units;
        m.hop_units += (uint64_t) h * count;
        if (0 < h) {
            const uint32_t l = rt_first[(size_t) src * p + dst];
            const uint64_t lu = link[l] += count, bw = links[l].bw_bps;
            /* the link with the most units per rate: a/b > c/d as a*d > c*b
             * (at one rate, as a > c) */
            if (0 == m.link_bw
                || (bw == m.link_bw ? lu > m.link_units
                                    : (u128) lu * m.link_bw > (u128) m.link_units * bw)) {
                m.link_units = lu;
                m.link_bw = bw;
            }
        }
    }
    *out = m;
out:
    free(link);
    free(hops_to);
    free(units_to);
    return st;
}

/* s's bound at unit_bytes from its summary */
static themis_time_t summary_bound(const themis_route_table_t *rt, const summary_t *m,
                                   uint64_t unit_bytes)
{
    themis_time_t lb = (themis_time_t) m->path_hops * rt->lat_min, v;
    if (0 < m->hop_units && 0 < rt->bw_sum) {
        v = ps_of(m->hop_units, unit_bytes, rt->bw_sum) + rt->lat_min;
        lb = v > lb ? v : lb;
    }
    if (0 < m->link_units && 0 < m->link_bw) {
        v = ps_of(m->link_units, unit_bytes, m->link_bw) + rt->lat_min;
        lb = v > lb ? v : lb;
    }
    if (0 < m->path_units && 0 < rt->bw_max) {
        v = ps_of(m->path_units, unit_bytes, rt->bw_max);
        lb = v > lb ? v : lb;
    }
    return lb;
}

int themis_algo_has_bound(int index)
{
    const themis_algorithm_t *a = themis_algorithm_get(index);
    return NULL != a && (NULL != a->xfer || NULL != a->bound);
}

themis_status_t themis_algo_graph_bound_cached(int index, const themis_algo_input_t *in,
                                               themis_algo_rep_cache_t *cache,
                                               themis_time_t *lb)
{
    const themis_algorithm_t *a = themis_algorithm_get(index);
    const themis_route_table_t *rt = in->routes;

    if (NULL == a || NULL == rt || NULL == in->graph || rt->nranks != in->graph->nranks ||
        rt->nranks != themis_topology_npus(in->topo)) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    if (NULL != a->bound) {
        return a->bound(in, lb); /* without building the row's list */
    }
    if (NULL == a->xfer) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    themis_xfer_sched_t tmp;
    themis_algo_input_t rin = *in;
    char why[160];
    summary_t own, *m = &own;
    themis_status_t st = THEMIS_OK;
    memset(&tmp, 0, sizeof(tmp));
    rin.lists = NULL != cache ? &cache->lists : NULL;
    const themis_xfer_sched_t *s = a->xfer(&rin, &tmp, why, sizeof(why));
    if (NULL == s) {
        return THEMIS_ERR_UNSUPPORTED; /* costing says why */
    }
    int kept = -1;
    for (int i = 0; NULL != cache && s != &tmp && i < cache->bn; ++i) {
        kept = cache->bs[i] == s ? i : kept;
    }
    if (0 <= kept) {
        m = &cache->bsum[kept];
    } else {
        st = summarise(rt, in->graph, s, &own);
        if (THEMIS_OK == st && NULL != cache && s != &tmp) {
            /* kept in the row's state or its lists: the same address
             * through the table's build */
            const int slot = cache->bnext;
            cache->bs[slot] = s;
            cache->bsum[slot] = own;
            cache->bnext = (slot + 1) % THEMIS_ALGO_REP_CACHE;
            cache->bn += cache->bn < THEMIS_ALGO_REP_CACHE;
        }
    }
    if (THEMIS_OK == st) {
        const uint64_t unit_bytes = 0 == s->nunits ? 0 : in->bytes / s->nunits;
        *lb = summary_bound(rt, m, 0 == unit_bytes ? 1 : unit_bytes);
    }
    themis_xfer_free(&tmp);
    return st;
}
