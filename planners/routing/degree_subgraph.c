/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Degree-bounded bipartite subgraph by one maximum flow (degree_subgraph.h).
 * Network: s -> left v [lo, hi], left -> right [0, mult], right v -> t
 * [lo, hi], t -> s unbounded; each lower bound l on a -> b becomes
 * capacity u - l plus l units of demand moved to a super source (into b)
 * and a super sink (out of a).
 */
#include "degree_subgraph.h"

#include <stdlib.h>

typedef struct {
    uint32_t n, narcs;
    uint32_t *head, *next, *to, *level, *cur, *queue;
    int64_t *cap;
} net_t;

static void add_arc(net_t *g, uint32_t a, uint32_t b, int64_t cap)
{
    uint32_t i = g->narcs;
    g->to[i] = b;
    g->cap[i] = cap;
    g->next[i] = g->head[a];
    g->head[a] = i;
    g->to[i + 1] = a;
    g->cap[i + 1] = 0;
    g->next[i + 1] = g->head[b];
    g->head[b] = i + 1;
    g->narcs += 2;
}

static int bfs(net_t *g, uint32_t s, uint32_t t)
{
    uint32_t qh = 0, qt = 0;
    for (uint32_t v = 0; v < g->n; v++) {
        g->level[v] = UINT32_MAX;
    }
    g->level[s] = 0;
    g->queue[qt++] = s;
    while (qh < qt) {
        uint32_t v = g->queue[qh++];
        for (uint32_t i = g->head[v]; UINT32_MAX != i; i = g->next[i]) {
            if (g->cap[i] > 0 && UINT32_MAX == g->level[g->to[i]]) {
                g->level[g->to[i]] = g->level[v] + 1;
                g->queue[qt++] = g->to[i];
            }
        }
    }
    return UINT32_MAX != g->level[t];
}

/* A blocking-flow step: up to `push` units from v to t along level arcs. */
static int64_t dfs(net_t *g, uint32_t v, uint32_t t, int64_t push)
{
    if (v == t) {
        return push;
    }
    for (; UINT32_MAX != g->cur[v]; g->cur[v] = g->next[g->cur[v]]) {
        uint32_t i = g->cur[v], w = g->to[i];
        if (g->cap[i] <= 0 || g->level[w] != g->level[v] + 1) {
            continue;
        }
        int64_t d = dfs(g, w, t, push < g->cap[i] ? push : g->cap[i]);
        if (d > 0) {
            g->cap[i] -= d;
            g->cap[i ^ 1] += d;
            return d;
        }
    }
    return 0;
}

int themis_degree_subgraph(uint32_t nl, uint32_t nr, uint32_t m, const uint32_t *el,
                           const uint32_t *er, const uint32_t *mult, const uint32_t *lo,
                           const uint32_t *hi, uint32_t *x)
{
    for (uint32_t v = 0; v < nl + nr; v++) {
        if (lo[v] > hi[v]) {
            return 0;
        }
    }
    /* nodes: s, t, left, right, super source, super sink */
    const uint32_t s = 0, t = 1, L = 2, R = 2 + nl, ss = 2 + nl + nr, st = ss + 1;
    net_t g = {0};
    g.n = st + 1;
    size_t arcs = 2 * ((size_t) m + 2 * ((size_t) nl + nr) + 1 + (size_t) g.n);
    g.head = malloc((size_t) g.n * sizeof(uint32_t));
    g.level = malloc((size_t) g.n * sizeof(uint32_t));
    g.cur = malloc((size_t) g.n * sizeof(uint32_t));
    g.queue = malloc((size_t) g.n * sizeof(uint32_t));
    g.next = malloc(arcs * sizeof(uint32_t));
    g.to = malloc(arcs * sizeof(uint32_t));
    g.cap = malloc(arcs * sizeof(int64_t));
    int64_t *exc = calloc(g.n, sizeof(int64_t));
    int rc = -1;
    if (NULL == g.head || NULL == g.level || NULL == g.cur || NULL == g.queue ||
        NULL == g.next || NULL == g.to || NULL == g.cap || NULL == exc) {
        goto out;
    }
    for (uint32_t v = 0; v < g.n; v++) {
        g.head[v] = UINT32_MAX;
    }
    /* the class arcs first: their indices are 2k, read back below */
    for (uint32_t k = 0; k < m; k++) {
        add_arc(&g, L + el[k], R + er[k], mult[k]);
    }
    for (uint32_t v = 0; v < nl + nr; v++) {
        uint32_t a = (v < nl) ? s : R + (v - nl), b = (v < nl) ? L + v : t;
        add_arc(&g, a, b, (int64_t) hi[v] - lo[v]);
        exc[b] += lo[v];
        exc[a] -= lo[v];
    }
    add_arc(&g, t, s, INT64_MAX / 4);
    int64_t need = 0, flow = 0;
    for (uint32_t v = 0; v < ss; v++) {
        if (exc[v] > 0) {
            add_arc(&g, ss, v, exc[v]);
            need += exc[v];
        } else if (exc[v] < 0) {
            add_arc(&g, v, st, -exc[v]);
        }
    }
    while (flow < need && bfs(&g, ss, st)) {
        for (uint32_t v = 0; v < g.n; v++) {
            g.cur[v] = g.head[v];
        }
        int64_t d;
        while ((d = dfs(&g, ss, st, need - flow)) > 0) {
            flow += d;
        }
    }
    rc = (flow == need);
    for (uint32_t k = 0; rc && k < m; k++) {
        x[k] = (uint32_t) g.cap[2 * k + 1];
    }
out:
    free(g.head);
    free(g.level);
    free(g.cur);
    free(g.queue);
    free(g.next);
    free(g.to);
    free(g.cap);
    free(exc);
    return rc;
}
