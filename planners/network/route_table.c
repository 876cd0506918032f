/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Rank-pair routes for lower bounds (route_table.h).  Routes to one
 * destination form a tree (themis_graph_routes_to), so every node's hop
 * count follows from its next node's: nodes are settled in the order a
 * walk towards dst first meets a settled one.
 */
#include "route_table.h"

#include <stdlib.h>
#include <string.h>

void themis_route_table_free(themis_route_table_t *rt)
{
    free(rt->hops);
    free(rt->first);
    memset(rt, 0, sizeof(*rt));
}

themis_status_t themis_route_table_build(const themis_graph_t *g, themis_route_table_t *rt)
{
    const uint32_t p = g->nranks, n = g->nnodes;
    uint32_t *next = NULL, *dist = NULL, *walk = NULL;
    themis_status_t st = THEMIS_OK;

    memset(rt, 0, sizeof(*rt));
    if (0 == p) {
        return THEMIS_ERR_INVALID;
    }
    rt->nranks = p;
    rt->hops = malloc((size_t) p * p * sizeof(*rt->hops));
    rt->first = malloc((size_t) p * p * sizeof(*rt->first));
    next = malloc((size_t) n * sizeof(*next));
    dist = malloc((size_t) n * sizeof(*dist));
    walk = malloc((size_t) n * sizeof(*walk));
    if (NULL == rt->hops || NULL == rt->first || NULL == next || NULL == dist || NULL == walk) {
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    rt->lat_min = UINT64_MAX;
    for (uint32_t l = 0; l < g->nlinks; ++l) {
        if (themis_graph_link_working(g, l)) {
            rt->bw_sum += g->links[l].bw_bps;
            rt->bw_max = g->links[l].bw_bps > rt->bw_max ? g->links[l].bw_bps : rt->bw_max;
            rt->lat_min = g->links[l].lat_ps < rt->lat_min ? g->links[l].lat_ps : rt->lat_min;
        }
    }
    rt->lat_min = UINT64_MAX == rt->lat_min ? 0 : rt->lat_min;
    for (uint32_t d = 0; d < p; ++d) {
        themis_status_t rs = themis_graph_routes_to(g, d, next);
        if (THEMIS_ERR_NOMEM == rs) {
            st = rs;
            goto out;
        }
        for (uint32_t v = 0; v < n; ++v) {
            dist[v] = THEMIS_OK == rs && v == d ? 0 : THEMIS_ROUTE_NONE;
        }
        /* a node without a next link (other than d) cannot reach d */
        for (uint32_t v = 0; THEMIS_OK == rs && v < n; ++v) {
            uint32_t k = 0, w = v;
            while (THEMIS_ROUTE_NONE == dist[w] && UINT32_MAX != next[w] && k < n) {
                walk[k++] = w;
                w = g->links[next[w]].dst;
            }
            for (uint32_t h = dist[w]; 0 < k; --k) {
                h = THEMIS_ROUTE_NONE == h ? h : h + 1;
                dist[walk[k - 1]] = h;
            }
        }
        for (uint32_t s = 0; s < p; ++s) {
            rt->hops[(size_t) s * p + d] = dist[s];
            rt->first[(size_t) s * p + d] = THEMIS_OK == rs ? next[s] : THEMIS_ROUTE_NONE;
        }
    }
out:
    free(next);
    free(dist);
    free(walk);
    if (THEMIS_OK != st) {
        themis_route_table_free(rt);
    }
    return st;
}

themis_status_t themis_route_chain_bound(const themis_route_table_t *rt,
                                         const themis_xfer_sched_t *s, uint64_t unit_bytes,
                                         themis_time_t *lb)
{
    return themis_route_chain_fins(rt, s, unit_bytes, NULL, NULL, lb);
}

themis_status_t themis_route_chain_fins(const themis_route_table_t *rt,
                                        const themis_xfer_sched_t *s, uint64_t unit_bytes,
                                        const themis_time_t *ready0, themis_time_t *fins,
                                        themis_time_t *lb)
{
    const uint32_t p = rt->nranks;
    themis_time_t *fin = NULL != fins ? fins : malloc(((size_t) s->nxfers + 1) * sizeof(*fin));
    themis_time_t most = 0;
    themis_status_t st = THEMIS_OK;

    if (NULL == fin) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t i = 0; THEMIS_OK == st && i < s->nxfers; ++i) {
        const themis_xfer_t *x = &s->xfers[i];
        if (x->src >= p || x->dst >= p) {
            st = THEMIS_ERR_UNSUPPORTED;
            break;
        }
        const uint32_t h = x->src == x->dst ? 0 : rt->hops[(size_t) x->src * p + x->dst];
        themis_time_t ready = NULL != ready0 ? ready0[i] : 0;
        for (uint32_t d = 0; d < x->ndeps; ++d) {
            const uint32_t j = s->deps[x->dep_first + d];
            if (j >= i) {
                st = THEMIS_ERR_UNSUPPORTED;
                break;
            }
            ready = fin[j] > ready ? fin[j] : ready;
        }
        if (THEMIS_ROUTE_NONE == h || 0 == rt->bw_max) {
            st = THEMIS_ERR_UNSUPPORTED;
            break;
        }
        /* saturated: a bound at INT64_MAX bounds nothing away */
        unsigned __int128 hop = (unsigned __int128) x->count * unit_bytes * 8000000000000ULL
                                    / rt->bw_max
                                + rt->lat_min;
        hop = hop > (unsigned __int128) INT64_MAX ? (unsigned __int128) INT64_MAX : hop;
        const unsigned __int128 f = ready + hop * h;
        fin[i] = f > (unsigned __int128) INT64_MAX ? (themis_time_t) INT64_MAX : (themis_time_t) f;
        most = fin[i] > most ? fin[i] : most;
    }
    if (NULL == fins) {
        free(fin);
    }
    if (THEMIS_OK == st) {
        *lb = most;
    }
    return st;
}
