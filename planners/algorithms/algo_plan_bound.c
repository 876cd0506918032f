/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A lower bound of a planning row's time on a graph (algorithm.h,
 * themis_algo_plan_bound), so that the cost table need not build and
 * simulate every rank's program where the row cannot be the fastest.
 * The representative call (themis_algo_rep_units) reduce-scatters
 * dimension by dimension in some order per chunk (all-gather: the reverse;
 * allreduce: both): a rank entering dimension i with E elements sends
 * E / s_i of them to each peer of its group (direct), or (s_i - 1) x E / s_i
 * to one of them (ring, biring), whatever the order within the dimension.
 * Three bounds of the link simulator's model (link_sim.h), the largest
 * wins:
 *   - a chunk's chain: each pass through a dimension waits for the
 *     farthest peer (direct) or for s_i - 1 chained steps (ring), at
 *     least the least link latency per hop;
 *   - work: every element crosses at least its route's hops; the links
 *     together serve at most bw_sum bits per second, and the busiest one
 *     still has its latency to go;
 *   - a rank's sends: (1 - 1/p) of the vector per reduce-scatter or
 *     all-gather, all of it through the first links of its routes to the
 *     peers of its groups: every peer's (direct), one peer's (a ring's
 *     successor, plan_builder.c), two (biring); which peer is not
 *     assumed: the fastest links count.
 * The order of dimensions that moves the fewest element-hops is found over
 * subsets (at most 2^THEMIS_MAX_DIMS); integer throughout.  Groups are of
 * coordinates; routes are between the ranks in->coord_to_rank places
 * there, as in the row's list.
 */
#include "algorithm.h"

#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

/* ceil-free: floor(bytes x 8 x 10^12 / bw) ps, saturated */
static themis_time_t serve_floor(u128 bytes, uint64_t bw)
{
    u128 ps = bytes * 8000000000000ULL / bw;
    return ps > (u128) INT64_MAX ? (themis_time_t) INT64_MAX : (themis_time_t) ps;
}

/* The rank at coordinate c (in->coord_to_rank, NULL: identity). */
static uint64_t rank_at(const themis_algo_input_t *in, uint64_t c)
{
    return NULL != in->coord_to_rank ? (uint64_t) in->coord_to_rank[c] : c;
}

themis_status_t themis_algo_plan_bound(const themis_algo_input_t *in, themis_time_t *lb)
{
    const themis_route_table_t *rt = in->routes;
    const themis_topology_t *t = in->topo;
    const uint64_t p = themis_topology_npus(t), units = themis_algo_rep_units(in);
    uint64_t stride[THEMIS_MAX_DIMS], hops_per[THEMIS_MAX_DIMS];
    int dims[THEMIS_MAX_DIMS], nd = 0;

    if (NULL == rt || rt->nranks != p || 2 > p || 0 == rt->bw_sum || 0 == units ||
        t->ndims > THEMIS_MAX_DIMS) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    const uint64_t unit_bytes = 0 == in->bytes / units ? 1 : in->bytes / units;
    const uint64_t passes = THEMIS_COLL_ALLREDUCE == in->coll ? 2 : 1;
    /* hops_per[i]: element-hops of dimension i per element a rank sends
     * to each peer (direct), or to its one peer (ring), summed over ranks */
    uint64_t s = 1, npeers = 1, chain_hops = 0;
    for (int i = 0; i < t->ndims; s *= t->dims[i].size, ++i) {
        const uint32_t size = t->dims[i].size;
        const int direct = THEMIS_DIM_ALGO_DIRECT == themis_algo_rep_dim_algo(in, i);
        stride[i] = s;
        hops_per[i] = 0;
        uint64_t chain = UINT64_MAX; /* the least over ranks r of r's chain in this dimension */
        for (uint64_t r = 0; 1 < size && r < p; ++r) {
            const uint64_t c = r / stride[i] % size, base = r - c * stride[i];
            uint32_t least = THEMIS_ROUTE_NONE, least_in = THEMIS_ROUTE_NONE, most_in = 0;
            for (uint64_t k = 0; k < size; ++k) {
                const uint64_t q = base + k * stride[i];
                const uint64_t rr = rank_at(in, r), rq = rank_at(in, q);
                const uint32_t h = rt->hops[rr * p + rq], h_in = rt->hops[rq * p + rr];
                if (q == r) {
                    continue;
                }
                if (THEMIS_ROUTE_NONE == h || THEMIS_ROUTE_NONE == h_in) {
                    return THEMIS_ERR_UNSUPPORTED; /* the simulator says why */
                }
                hops_per[i] += direct ? h : 0;
                least = h < least ? h : least;
                least_in = h_in < least_in ? h_in : least_in;
                most_in = h_in > most_in ? h_in : most_in;
            }
            hops_per[i] += direct ? 0 : (uint64_t) (size - 1) * least;
            /* direct: r's block needs every peer's, the farthest's too; a
             * ring's s - 1 steps each forward what the one before brought */
            const uint64_t mine = direct ? most_in : (uint64_t) (size - 1) * least_in;
            chain = mine < chain ? mine : chain;
        }
        chain_hops += 1 < size ? chain : 0;
        if (1 < size) {
            dims[nd++] = i;
            npeers += size;
        }
    }
    /* fewest element-hops over the orders of dimensions: best[S] for the
     * dimensions in S done first (elements left: units / prod S) */
    u128 best[1u << THEMIS_MAX_DIMS];
    const uint32_t all = (1u << nd) - 1;
    for (uint32_t m = 0; m <= all; ++m) {
        best[m] = 0 == m ? 0 : ~(u128) 0;
    }
    for (uint32_t m = 0; m < all; ++m) {
        uint64_t left = units;
        for (int j = 0; j < nd; ++j) {
            left /= 0 != (m & (1u << j)) ? t->dims[dims[j]].size : 1;
        }
        for (int j = 0; j < nd && ~(u128) 0 != best[m]; ++j) {
            const uint32_t n = m | (1u << j);
            if (n != m) {
                const u128 v =
                    best[m] + (u128) (left / t->dims[dims[j]].size) * hops_per[dims[j]];
                best[n] = v < best[n] ? v : best[n];
            }
        }
    }
    /* a chunk's dependency chain: each pass through each dimension, at
     * least the least latency per hop */
    themis_time_t bound = (themis_time_t) (passes * chain_hops) * rt->lat_min;
    if (0 < best[all]) {
        const themis_time_t work =
            serve_floor(best[all] * passes * unit_bytes, rt->bw_sum) + rt->lat_min;
        bound = work > bound ? work : bound;
    }
    /* a rank's sends through the first links of its routes to its peers */
    const u128 sent = (u128) passes * (units - units / p) * unit_bytes;
    uint32_t *seen = calloc(npeers, sizeof(*seen));
    if (NULL == seen) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint64_t r = 0; r < p; ++r) {
        uint64_t bw = 0;
        uint32_t nseen = 0;
        for (int j = 0; j < nd; ++j) {
            const int i = dims[j];
            const themis_dim_algo_t algo = themis_algo_rep_dim_algo(in, i);
            const uint64_t c = r / stride[i] % t->dims[i].size, base = r - c * stride[i];
            uint64_t top[2] = {0, 0};
            for (uint64_t k = 0; k < t->dims[i].size; ++k) {
                const uint32_t l =
                    rt->first[rank_at(in, r) * p + rank_at(in, base + k * stride[i])];
                uint32_t x = 0;
                if (THEMIS_ROUTE_NONE == l) {
                    continue;
                }
                const uint64_t lbw = in->graph->links[l].bw_bps;
                if (lbw > top[0]) {
                    top[1] = top[0];
                    top[0] = lbw;
                } else if (lbw > top[1]) {
                    top[1] = lbw;
                }
                while (THEMIS_DIM_ALGO_DIRECT == algo && x < nseen && seen[x] != l) {
                    ++x;
                }
                if (THEMIS_DIM_ALGO_DIRECT == algo && x == nseen) {
                    seen[nseen++] = l;
                    bw += lbw;
                }
            }
            /* a ring sends to one member of the group, a biring to two */
            bw += THEMIS_DIM_ALGO_RING == algo     ? top[0]
                  : THEMIS_DIM_ALGO_BIRING == algo ? top[0] + top[1]
                                                   : 0;
        }
        if (0 < bw) {
            const themis_time_t own = serve_floor(sent, bw) + rt->lat_min;
            bound = own > bound ? own : bound;
        }
    }
    free(seen);
    *lb = bound;
    return THEMIS_OK;
}
