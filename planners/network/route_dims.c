/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "route_dims.h"

#include <stdlib.h>
#include <string.h>

static uint32_t coord(const themis_route_dims_t *rd, uint32_t r, int k)
{
    return (r / rd->strides[k]) % rd->sizes[k];
}

static uint32_t base_of(const themis_route_dims_t *rd, uint32_t r, int k)
{
    return r - coord(rd, r, k) * rd->strides[k];
}

static int is_rank(const themis_route_dims_t *rd, uint32_t v)
{
    return v < rd->g->nranks;
}

/* The one dimension two ranks differ in, -1 when none or several. */
static int diff_dim(const themis_route_dims_t *rd, uint32_t a, uint32_t b)
{
    int k = -1;
    for (int i = 0; i < rd->ndims; i++) {
        if (coord(rd, a, i) != coord(rd, b, i)) {
            if (k >= 0) {
                return -1;
            }
            k = i;
        }
    }
    return k;
}

static int in_line(const themis_route_dims_t *rd, uint32_t v, int k, uint32_t base)
{
    return is_rank(rd, v) ? base_of(rd, v, k) == base
                          : rd->line_dim[v] == k && rd->line_base[v] == base;
}

void themis_route_dims_free(themis_route_dims_t *rd)
{
    free(rd->line_dim);
    free(rd->line_base);
    memset(rd, 0, sizeof(*rd));
}

themis_status_t themis_route_dims_init(themis_route_dims_t *rd, const themis_graph_t *g,
                                       const uint32_t *sizes, int ndims, char *why, size_t len)
{
    uint64_t n = 1;
    memset(rd, 0, sizeof(*rd));
    rd->g = g;
    rd->ndims = ndims;
    for (int k = 0; k < ndims && k < THEMIS_MAX_DIMS; k++) {
        rd->sizes[k] = sizes[k];
        rd->strides[k] = (uint32_t) n;
        n *= sizes[k];
        if (0 == sizes[k] || n > UINT32_MAX) {
            break;
        }
    }
    if (ndims < 1 || ndims > THEMIS_MAX_DIMS || n != g->nranks) {
        snprintf(why, len,
                 "dimension-ordered routes: the dims do not hold the graph's %u ranks",
                 g->nranks);
        return THEMIS_ERR_INVALID;
    }
    rd->line_dim = malloc(g->nnodes * sizeof(*rd->line_dim));
    rd->line_base = malloc(g->nnodes * sizeof(*rd->line_base));
    if (NULL == rd->line_dim || NULL == rd->line_base) {
        themis_route_dims_free(rd);
        snprintf(why, len, "out of memory");
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t x = 0; x < g->nnodes; x++) {
        rd->line_dim[x] = -1;
        rd->line_base[x] = 0;
        if (x < g->nranks) {
            continue;
        }
        /* a switch of one line: every neighbour a rank, two of them
         * giving the dimension, the rest on the same line */
        uint32_t first = UINT32_MAX;
        int k = -1, ok = 1;
        for (int pass = 0; pass < 2 && ok; pass++) {
            const uint32_t *fi = pass ? g->in_first : g->out_first;
            const uint32_t *li = pass ? g->in_links : g->out_links;
            for (uint32_t i = fi[x]; i < fi[x + 1] && ok; i++) {
                const themis_link_t *l = &g->links[li[i]];
                uint32_t y = pass ? l->src : l->dst;
                if (!is_rank(rd, y)) {
                    ok = 0;
                } else if (UINT32_MAX == first) {
                    first = y;
                } else if (k < 0 && y != first) {
                    k = diff_dim(rd, first, y);
                    ok = k >= 0;
                } else if (k >= 0) {
                    ok = base_of(rd, y, k) == base_of(rd, first, k);
                }
            }
        }
        if (!ok || k < 0) {
            snprintf(why, len,
                     "dimension-ordered routes: node %u is not a switch of one "
                     "dimension line (its neighbours must be ranks of one line)",
                     x);
            themis_route_dims_free(rd);
            return THEMIS_ERR_INVALID;
        }
        rd->line_dim[x] = (int8_t) k;
        rd->line_base[x] = base_of(rd, first, k);
    }
    return THEMIS_OK;
}

int themis_route_dims_link_dim(const themis_route_dims_t *rd, uint32_t src, uint32_t dst,
                               int *dir)
{
    *dir = 0;
    if (is_rank(rd, src) && is_rank(rd, dst)) {
        int k = diff_dim(rd, src, dst);
        if (k >= 0) {
            uint32_t p = rd->sizes[k];
            uint32_t delta = (coord(rd, dst, k) + p - coord(rd, src, k)) % p;
            *dir = (1 == delta) ? 1 : (p - 1 == delta) ? -1 : 0;
        }
        return k;
    }
    uint32_t r = is_rank(rd, src) ? src : dst, x = is_rank(rd, src) ? dst : src;
    if (!is_rank(rd, r) || is_rank(rd, x)) {
        return -1;
    }
    int k = rd->line_dim[x];
    return (k >= 0 && base_of(rd, r, k) == rd->line_base[x]) ? k : -1;
}

/* The dimension rank v corrects first toward rank dst (last after all
 * others), -1 when v == dst. */
static int first_dim(const themis_route_dims_t *rd, uint32_t v, uint32_t dst, int last)
{
    for (int i = 0; i <= rd->ndims; i++) {
        int k = (i < rd->ndims) ? i : last;
        if (k < 0 || (i < rd->ndims && k == last)) {
            continue;
        }
        if (coord(rd, v, k) != coord(rd, dst, k)) {
            return k;
        }
    }
    return -1;
}

/* Inside the dim-k line of base, toward its rank u: a backwards search
 * (dist, stamped by stamp in seen), then each node's first hop. */
static themis_status_t line_routes(const themis_route_dims_t *rd, int k, uint32_t base,
                                   uint32_t u, uint32_t dst, int last, uint32_t *dist,
                                   uint32_t *seen, uint32_t stamp, uint32_t *queue,
                                   uint32_t *next)
{
    const themis_graph_t *g = rd->g;
    uint32_t head = 0, tail = 0;
    if (g->node_failed[u]) {
        return THEMIS_OK;
    }
    queue[tail++] = u;
    seen[u] = stamp;
    dist[u] = 0;
    while (head < tail) {
        uint32_t w = queue[head++];
        for (uint32_t i = g->in_first[w]; i < g->in_first[w + 1]; i++) {
            uint32_t l = g->in_links[i], x = g->links[l].src;
            if (stamp != seen[x] && themis_graph_link_working(g, l) &&
                in_line(rd, x, k, base)) {
                seen[x] = stamp;
                dist[x] = dist[w] + 1;
                queue[tail++] = x;
            }
        }
    }
    for (uint32_t q = 1; q < tail; q++) {
        uint32_t v = queue[q];
        if (is_rank(rd, v) && k != first_dim(rd, v, dst, last)) {
            continue;
        }
        uint64_t best_key = UINT64_MAX;
        for (uint32_t i = g->out_first[v]; i < g->out_first[v + 1]; i++) {
            uint32_t l = g->out_links[i], w = g->links[l].dst;
            if (stamp != seen[w] || dist[w] + 1 != dist[v] ||
                !themis_graph_link_working(g, l)) {
                continue;
            }
            /* a ring's + direction first, then the lowest id */
            uint64_t key =
                (is_rank(rd, v) && is_rank(rd, w))
                    ? (coord(rd, w, k) + rd->sizes[k] - coord(rd, v, k)) % rd->sizes[k]
                    : (uint64_t) rd->sizes[k] + w;
            if (key < best_key) {
                best_key = key;
                next[v] = l;
            }
        }
    }
    return THEMIS_OK;
}

themis_status_t themis_route_dims_to(const themis_route_dims_t *rd, uint32_t dst, int last,
                                     uint32_t *next)
{
    const themis_graph_t *g = rd->g;
    if (dst >= g->nnodes || g->node_failed[dst]) {
        return THEMIS_ERR_INVALID;
    }
    if (!is_rank(rd, dst)) {
        return themis_graph_routes_to(g, dst, next);
    }
    uint32_t *dist = malloc(g->nnodes * sizeof(*dist));
    uint32_t *seen = calloc(g->nnodes, sizeof(*seen));
    uint32_t *queue = malloc(g->nnodes * sizeof(*queue));
    themis_status_t st =
        (NULL == dist || NULL == seen || NULL == queue) ? THEMIS_ERR_NOMEM : THEMIS_OK;
    for (uint32_t v = 0; v < g->nnodes; v++) {
        next[v] = UINT32_MAX;
    }
    uint32_t stamp = 0;
    for (int k = 0; THEMIS_OK == st && k < rd->ndims; k++) {
        uint32_t p = rd->sizes[k], stride = rd->strides[k];
        for (uint32_t b = 0; THEMIS_OK == st && p > 1 && b < g->nranks; b++) {
            if (0 != coord(rd, b, k)) {
                continue;
            }
            st = line_routes(rd, k, b, b + coord(rd, dst, k) * stride, dst, last, dist, seen,
                             ++stamp, queue, next);
        }
    }
    free(dist);
    free(seen);
    free(queue);
    return st;
}
