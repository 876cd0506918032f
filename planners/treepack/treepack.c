/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Spanning-tree packing without an LP solver (treepack.h): the graph's
 * integer capacities, partitions and their ratios, Lemma 2.1, the two
 * heuristics of the paper, the torus and cycles packings and the
 * runtime's choice among them and the union packing (treepack_union.c).
 * The All-Reduce transfer schedule of a packing: treepack_schedule.c.
 */
#include "treepack.h"
#include "union_find.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "hamiltonian.h"
#include "util.h"

themis_tp_frac_t themis_tp_frac(uint64_t num, uint64_t den)
{
    uint64_t g = themis_gcd(num, den);
    themis_tp_frac_t f = {num, den};
    if (0 != g) {
        f.num /= g;
        f.den /= g;
    }
    return f;
}

int themis_tp_frac_less(themis_tp_frac_t a, themis_tp_frac_t b)
{
    return (unsigned __int128) a.num * b.den < (unsigned __int128) b.num * a.den;
}

const char *themis_tp_method_name(themis_tp_method_t m)
{
    static const char *const names[] = {"torus", "exact", "mw", "lp", "mwst", "chains",
                                        "cycles", "union"};
    return (unsigned) m < sizeof(names) / sizeof(names[0]) ? names[m] : "?";
}

/* ------------------------------------------------------------ graph */

void themis_tp_graph_free(themis_tp_graph_t *g)
{
    free(g->u);
    free(g->v);
    free(g->cap);
    memset(g, 0, sizeof(*g));
}

void themis_tp_packing_free(themis_tp_packing_t *p)
{
    free(p->edges);
    free(p->w);
    free(p->x);
    free(p->part);
    memset(p, 0, sizeof(*p));
}

themis_status_t themis_tp_packing_alloc(themis_tp_packing_t *p, themis_tp_method_t method,
                                        uint32_t n, uint32_t ntrees, int with_w)
{
    memset(p, 0, sizeof(*p));
    p->method = method;
    p->n = n;
    p->ntrees = ntrees;
    p->edges = calloc((size_t) ntrees * (n - 1) + 1, sizeof(*p->edges));
    p->x = calloc((size_t) ntrees + 1, sizeof(*p->x));
    p->w = with_w ? calloc((size_t) ntrees + 1, sizeof(*p->w)) : NULL;
    if (NULL == p->edges || NULL == p->x || (with_w && NULL == p->w)) {
        themis_tp_packing_free(p);
        return THEMIS_ERR_NOMEM;
    }
    return THEMIS_OK;
}

themis_status_t themis_tp_from_graph(const themis_graph_t *g, themis_tp_graph_t *out,
                                     char *why, size_t len)
{
    memset(out, 0, sizeof(*out));
    if (NULL != g && g->nranks != g->nnodes) {
        /* Trees span ranks: the switches unwound as TACOS does (cluster.h). */
        themis_graph_t ranks;
        themis_status_t st = themis_graph_unwind(g, 0, &ranks, why, len);
        if (THEMIS_OK == st) {
            st = themis_tp_from_graph(&ranks, out, why, len);
        }
        themis_graph_free(&ranks);
        return st;
    }
    if (NULL == g || 0 == g->nnodes || g->nnodes > THEMIS_TP_MAX_NODES) {
        snprintf(why, len, "a graph of 1 to %u nodes is needed", THEMIS_TP_MAX_NODES);
        return THEMIS_ERR_INVALID;
    }
    for (uint32_t v = 0; v < g->nnodes; v++) {
        if (g->node_failed[v]) {
            snprintf(why, len, "node %u failed: a spanning tree needs every rank", v);
            return THEMIS_ERR_UNSUPPORTED;
        }
    }
    out->n = g->nnodes;
    out->u = calloc((size_t) g->nlinks + 1, sizeof(*out->u));
    out->v = calloc((size_t) g->nlinks + 1, sizeof(*out->v));
    out->cap = calloc((size_t) g->nlinks + 1, sizeof(*out->cap));
    uint32_t *uf = calloc(g->nnodes, sizeof(*uf));
    if (NULL == out->u || NULL == out->v || NULL == out->cap || NULL == uf) {
        free(uf);
        themis_tp_graph_free(out);
        return THEMIS_ERR_NOMEM;
    }
    themis_uf_init(uf, g->nnodes);
    uint64_t unit = 0;
    uint32_t comps = g->nnodes;
    for (uint32_t i = 0; i < g->nlinks; i++) {
        const themis_link_t *l = &g->links[i];
        if (!themis_graph_link_working(g, i)) {
            continue;
        }
        /* Reduce goes up, broadcast down: an edge needs both directions,
         * and is added once, at the first of its two links. */
        uint32_t j = themis_graph_link(g, l->dst, l->src);
        if (UINT32_MAX == j || j < i) {
            continue;
        }
        uint64_t bw = l->bw_bps < g->links[j].bw_bps ? l->bw_bps : g->links[j].bw_bps;
        out->u[out->m] = l->src < l->dst ? l->src : l->dst;
        out->v[out->m] = l->src < l->dst ? l->dst : l->src;
        out->cap[out->m] = bw;
        out->m++;
        unit = themis_gcd(unit, bw);
        comps -= (uint32_t) themis_uf_union(uf, l->src, l->dst);
    }
    free(uf);
    if (1 != comps) {
        snprintf(why, len, "the graph's two-way links leave %u components: no spanning tree",
                 comps);
        themis_tp_graph_free(out);
        return THEMIS_ERR_UNSUPPORTED;
    }
    out->unit_bps = 0 == unit ? 1 : unit;
    for (uint32_t e = 0; e < out->m; e++) {
        out->cap[e] /= out->unit_bps;
    }
    return THEMIS_OK;
}

/* ------------------------------------------------------------ partitions */

themis_status_t themis_tp_partition_ratio(const themis_tp_graph_t *g, const uint32_t *part,
                                          uint32_t nparts, themis_tp_frac_t *ratio)
{
    if (nparts < 2) {
        return THEMIS_ERR_INVALID;
    }
    uint64_t cross = 0;
    for (uint32_t e = 0; e < g->m; e++) {
        if (part[g->u[e]] != part[g->v[e]]) {
            cross += g->cap[e];
        }
    }
    *ratio = themis_tp_frac(cross, nparts - 1);
    return THEMIS_OK;
}

static int cmp_double_desc(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x < y) - (x > y);
}

themis_status_t themis_tp_partition_from_prices(const themis_tp_graph_t *g, const double *y,
                                                uint32_t *part, uint32_t *nparts,
                                                themis_tp_frac_t *ratio)
{
    double *t = malloc(((size_t) g->m + 1) * sizeof(*t));
    uint32_t *uf = malloc((size_t) g->n * sizeof(*uf)), *cand = malloc((size_t) g->n * sizeof(*cand));
    uint32_t *map = malloc((size_t) g->n * sizeof(*map));
    if (NULL == t || NULL == uf || NULL == cand || NULL == map) {
        free(t);
        free(uf);
        free(cand);
        free(map);
        return THEMIS_ERR_NOMEM;
    }
    memcpy(t, y, (size_t) g->m * sizeof(*t));
    qsort(t, g->m, sizeof(*t), cmp_double_desc);
    int found = 0;
    /* Thresholds from the highest price down (ties keep the coarser
     * partition); the lowest threshold unites nothing: all singletons. */
    for (uint32_t i = 0; i < g->m; i++) {
        if (i > 0 && t[i] == t[i - 1]) {
            continue;
        }
        themis_uf_init(uf, g->n);
        for (uint32_t e = 0; e < g->m; e++) {
            if (y[e] < t[i]) {
                themis_uf_union(uf, g->u[e], g->v[e]);
            }
        }
        uint32_t np = themis_uf_parts(uf, g->n, cand, map);
        themis_tp_frac_t r;
        if (THEMIS_OK != themis_tp_partition_ratio(g, cand, np, &r)) {
            continue;
        }
        if (!found || themis_tp_frac_less(r, *ratio)) {
            found = 1;
            *ratio = r;
            *nparts = np;
            memcpy(part, cand, (size_t) g->n * sizeof(*part));
        }
    }
    free(t);
    free(uf);
    free(cand);
    free(map);
    return found ? THEMIS_OK : THEMIS_ERR_INVALID;
}

/* ------------------------------------------------------------ single trees */

/* (capacity, edge) pairs: sorting them needs no global (planning may run
 * on several threads). */
typedef struct {
    uint64_t cap;
    uint32_t e;
} cap_edge_t;

/* Capacity descending, then edge index. */
static int cmp_cap_desc(const void *a, const void *b)
{
    const cap_edge_t *x = a, *y = b;
    if (x->cap != y->cap) {
        return x->cap > y->cap ? -1 : 1;
    }
    return (x->e > y->e) - (x->e < y->e);
}

/* Kruskal over edges in order[]: the tree's edges into tree[0..n-1). */
static void kruskal(const themis_tp_graph_t *g, const uint32_t *order, uint32_t *uf,
                    uint32_t *tree)
{
    uint32_t k = 0;
    themis_uf_init(uf, g->n);
    for (uint32_t i = 0; i < g->m && k + 1 < g->n; i++) {
        uint32_t e = order[i];
        if (themis_uf_union(uf, g->u[e], g->v[e])) {
            tree[k++] = e;
        }
    }
}

themis_status_t themis_tp_bounds(const themis_tp_graph_t *g, themis_tp_bounds_t *b,
                                 themis_tp_packing_t *mwst)
{
    uint32_t *order = malloc(((size_t) g->m + 1) * sizeof(*order));
    uint32_t *uf = malloc((size_t) g->n * sizeof(*uf));
    cap_edge_t *pairs = malloc(((size_t) g->m + 1) * sizeof(*pairs));
    themis_status_t st = THEMIS_ERR_NOMEM;
    if (NULL == order || NULL == uf || NULL == pairs || 0 == g->m) {
        st = NULL == order || NULL == uf || NULL == pairs ? THEMIS_ERR_NOMEM : THEMIS_ERR_INVALID;
        goto out;
    }
    uint64_t mincap = UINT64_MAX, sum = 0;
    for (uint32_t e = 0; e < g->m; e++) {
        order[e] = e;
        mincap = g->cap[e] < mincap ? g->cap[e] : mincap;
        sum += g->cap[e];
    }
    st = themis_tp_packing_alloc(mwst, THEMIS_TP_SINGLE, g->n, 1, 1);
    if (THEMIS_OK != st) {
        goto out;
    }
    for (uint32_t e = 0; e < g->m; e++) {
        pairs[e].cap = g->cap[e];
        pairs[e].e = e;
    }
    qsort(pairs, g->m, sizeof(*pairs), cmp_cap_desc);
    for (uint32_t e = 0; e < g->m; e++) {
        order[e] = pairs[e].e;
    }
    kruskal(g, order, uf, mwst->edges);
    uint64_t bott = UINT64_MAX;
    for (uint32_t k = 0; k + 1 < g->n; k++) {
        uint64_t c = g->cap[mwst->edges[k]];
        bott = c < bott ? c : bott;
    }
    if (1 == g->n) {
        bott = 1;
    }
    mwst->w[0] = 1;
    mwst->q = 1;
    mwst->x[0] = (double) bott;
    mwst->exact = 1;
    mwst->value = themis_tp_frac(bott, 1);
    mwst->value_f = (double) bott;
    b->max_c = themis_tp_frac(1, mincap);
    b->c_mwst = themis_tp_frac(1, bott);
    b->c_lower = themis_tp_frac(g->n - 1, sum);
out:
    free(order);
    free(uf);
    free(pairs);
    return st;
}

/* Depth-first search for a Hamiltonian cycle over edges of cap >= thr. */
typedef struct {
    const themis_tp_graph_t *g;
    uint64_t thr;
    uint32_t *first, *adj;     /* CSR of usable edges, by edge index */
    uint32_t *path, *pedge;
    uint8_t *seen;
    uint64_t budget;
} ham_dfs_t;

static int ham_dfs(ham_dfs_t *d, uint32_t depth)
{
    uint32_t at = d->path[depth - 1];
    if (0 == d->budget--) {
        return 0;
    }
    for (uint32_t i = d->first[at]; i < d->first[at + 1]; i++) {
        uint32_t e = d->adj[i], to = d->g->u[e] == at ? d->g->v[e] : d->g->u[e];
        if (depth == d->g->n) {
            if (0 == to && (depth > 2 || e != d->pedge[0])) {
                d->pedge[depth - 1] = e;
                return 1;
            }
            continue;
        }
        if (d->seen[to]) {
            continue;
        }
        d->seen[to] = 1;
        d->path[depth] = to;
        d->pedge[depth - 1] = e;
        if (ham_dfs(d, depth + 1)) {
            return 1;
        }
        d->seen[to] = 0;
    }
    return 0;
}

/* Search steps per threshold: keeps a graph without a cycle cheap. */
#define HAM_DFS_BUDGET 2000000u
/* Search steps of a whole decomposition (themis_tp_cycles runs in the
 * component: a graph that does not decompose must fail fast). */
#define HAM_CYCLES_BUDGET 200000u

static void ham_dfs_free(ham_dfs_t *d)
{
    free(d->first);
    free(d->adj);
    free(d->path);
    free(d->pedge);
    free(d->seen);
}

static themis_status_t ham_dfs_alloc(ham_dfs_t *d, const themis_tp_graph_t *g)
{
    uint32_t n = g->n;
    memset(d, 0, sizeof(*d));
    d->g = g;
    d->first = calloc(n + 1, sizeof(*d->first));
    d->adj = calloc(2 * (size_t) g->m + 1, sizeof(*d->adj));
    d->path = calloc(n, sizeof(*d->path));
    d->pedge = calloc(n, sizeof(*d->pedge));
    d->seen = calloc(n, 1);
    if (NULL == d->first || NULL == d->adj || NULL == d->path || NULL == d->pedge
        || NULL == d->seen) {
        ham_dfs_free(d);
        return THEMIS_ERR_NOMEM;
    }
    return THEMIS_OK;
}

/* A Hamiltonian cycle over the edges with cap[e] >= thr, from node 0,
 * neighbours by edge index, within d->budget steps: its edges in
 * d->pedge[0..n). */
static int ham_cycle(ham_dfs_t *d, const uint64_t *cap, uint64_t thr)
{
    const themis_tp_graph_t *g = d->g;
    uint32_t n = g->n;
    d->thr = thr;
    memset(d->first, 0, (n + 1) * sizeof(*d->first));
    for (uint32_t e = 0; e < g->m; e++) {
        if (cap[e] >= thr) {
            d->first[g->u[e] + 1]++;
            d->first[g->v[e] + 1]++;
        }
    }
    for (uint32_t v = 0; v < n; v++) {
        d->first[v + 1] += d->first[v];
    }
    uint32_t *fill = d->path;   /* scratch until the search starts */
    memcpy(fill, d->first, n * sizeof(*fill));
    for (uint32_t e = 0; e < g->m; e++) {
        if (cap[e] >= thr) {
            d->adj[fill[g->u[e]]++] = e;
            d->adj[fill[g->v[e]]++] = e;
        }
    }
    memset(d->seen, 0, n);
    d->seen[0] = 1;
    d->path[0] = 0;
    return ham_dfs(d, 1);
}

/* The largest threshold among the positive cap[] with a Hamiltonian cycle
 * (d->pedge), or 0; budget_each: the steps per threshold, 0 to share
 * d->budget across all of them. */
static uint64_t widest_ham_cycle(ham_dfs_t *d, const uint64_t *cap, uint64_t *scratch,
                                 uint64_t budget_each)
{
    const themis_tp_graph_t *g = d->g;
    memcpy(scratch, cap, g->m * sizeof(*scratch));
    for (uint32_t pass = 0; pass < g->m; pass++) {
        uint64_t thr = 0;
        for (uint32_t e = 0; e < g->m; e++) {
            thr = scratch[e] > thr ? scratch[e] : thr;
        }
        if (0 == thr) {
            break;
        }
        for (uint32_t e = 0; e < g->m; e++) {
            scratch[e] = scratch[e] == thr ? 0 : scratch[e];
        }
        if (0 != budget_each) {
            d->budget = budget_each;
        }
        if (ham_cycle(d, cap, thr)) {
            return thr;
        }
    }
    return 0;
}

/* Chains t0 .. t0 + n - 1 of out: chain i leaves out cycle edge i, so
 * every cycle edge is in n - 1 of the n chains and weight w each fills w
 * capacity units at q = n - 1. */
static void cycle_chains(themis_tp_packing_t *out, uint32_t t0, const uint32_t *pedge,
                         uint64_t w)
{
    uint32_t n = out->n;
    for (uint32_t t = 0; t < n; t++) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (i != t) {
                out->edges[(size_t) (t0 + t) * (n - 1) + k++] = pedge[i];
            }
        }
        out->w[t0 + t] = w;
        out->x[t0 + t] = (double) w / (n - 1);
    }
}

themis_status_t themis_tp_rotated_chains(const themis_tp_graph_t *g, themis_tp_packing_t *out)
{
    uint32_t n = g->n;
    if (n < 3 || n > THEMIS_TP_CHAINS_MAX_NODES) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    ham_dfs_t d;
    uint64_t *scratch = calloc((size_t) g->m + 1, sizeof(*scratch));
    themis_status_t st = ham_dfs_alloc(&d, g);
    if (THEMIS_OK != st || NULL == scratch) {
        free(scratch);
        return THEMIS_ERR_NOMEM;
    }
    uint64_t thr = widest_ham_cycle(&d, g->cap, scratch, HAM_DFS_BUDGET);
    st = THEMIS_ERR_UNSUPPORTED;
    if (0 != thr) {
        st = themis_tp_packing_alloc(out, THEMIS_TP_CHAINS, n, n, 1);
    }
    if (0 != thr && THEMIS_OK == st) {
        uint64_t bott = UINT64_MAX;
        for (uint32_t i = 0; i < n; i++) {
            bott = g->cap[d.pedge[i]] < bott ? g->cap[d.pedge[i]] : bott;
        }
        cycle_chains(out, 0, d.pedge, bott);
        out->q = n - 1;
        out->exact = 1;
        out->value = themis_tp_frac((uint64_t) n * bott, n - 1);
        out->value_f = (double) n * (double) bott / (n - 1);
    }
    ham_dfs_free(&d);
    free(scratch);
    return st;
}

static themis_status_t certify(const themis_tp_graph_t *g, themis_tp_packing_t *p,
                               const uint8_t *saturated);

themis_status_t themis_tp_cycles(const themis_tp_graph_t *g, themis_tp_packing_t *out, char *why,
                                 size_t len)
{
    uint32_t n = g->n, nc = 0;
    uint64_t sum = 0;
    memset(out, 0, sizeof(*out));
    if (n < 3 || n > THEMIS_TP_CHAINS_MAX_NODES) {
        snprintf(why, len, "the cycle decomposition takes 3 to %u nodes",
                 THEMIS_TP_CHAINS_MAX_NODES);
        return THEMIS_ERR_UNSUPPORTED;
    }
    ham_dfs_t d;
    uint64_t *res = calloc((size_t) g->m + 1, sizeof(*res));
    uint64_t *scratch = calloc((size_t) (g->m > n ? g->m : n) + 1, sizeof(*scratch));
    uint64_t *cw = calloc((size_t) g->m + 1, sizeof(*cw));
    uint32_t *cedges = calloc((size_t) g->m * n + 1, sizeof(*cedges));
    themis_status_t st = ham_dfs_alloc(&d, g);
    if (THEMIS_OK != st || NULL == res || NULL == scratch || NULL == cw || NULL == cedges) {
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    /* Cycles of weights w_c give every node the capacity 2 sum_c w_c: a
     * graph whose nodes differ has no decomposition (p3.8xlarge). */
    uint64_t *deg = scratch;
    for (uint32_t e = 0; e < g->m; e++) {
        res[e] = g->cap[e];
        sum += g->cap[e];
        deg[g->u[e]] += g->cap[e];
        deg[g->v[e]] += g->cap[e];
    }
    for (uint32_t v = 1; v < n; v++) {
        if (deg[v] != deg[0]) {
            snprintf(why, len, "nodes 0 and %u have different capacities: no decomposition "
                     "into Hamiltonian cycles", v);
            st = THEMIS_ERR_UNSUPPORTED;
            goto out;
        }
    }
    /* Widest cycle of what is left, minus its bottleneck, until nothing
     * is left: each round empties an edge, so at most m cycles. */
    d.budget = HAM_CYCLES_BUDGET;
    st = THEMIS_ERR_UNSUPPORTED;
    while (0 != sum) {
        uint64_t thr = widest_ham_cycle(&d, res, scratch, 0);
        if (0 == thr) {
            snprintf(why, len, "no decomposition into Hamiltonian cycles found");
            goto out;
        }
        uint64_t bott = UINT64_MAX;
        for (uint32_t i = 0; i < n; i++) {
            bott = res[d.pedge[i]] < bott ? res[d.pedge[i]] : bott;
        }
        for (uint32_t i = 0; i < n; i++) {
            res[d.pedge[i]] -= bott;
        }
        sum -= (uint64_t) n * bott;
        memcpy(&cedges[(size_t) nc * n], d.pedge, n * sizeof(*cedges));
        cw[nc++] = bott;
    }
    st = themis_tp_packing_alloc(out, THEMIS_TP_CYCLES, n, nc * n, 1);
    if (THEMIS_OK != st) {
        goto out;
    }
    uint64_t total = 0;
    for (uint32_t c = 0; c < nc; c++) {
        cycle_chains(out, c * n, &cedges[(size_t) c * n], cw[c]);
        total += cw[c];
    }
    /* sum cap / (n - 1): the all-singletons partition's ratio, so optimal
     * with every edge saturated. */
    out->q = n - 1;
    out->exact = 1;
    out->value = themis_tp_frac(n * total, n - 1);
    out->value_f = (double) (n * total) / (n - 1);
    st = certify(g, out, NULL);
out:
    ham_dfs_free(&d);
    free(res);
    free(scratch);
    free(cw);
    free(cedges);
    return st;
}

/* ------------------------------------------------------------ certificates */

/* The all-singletons partition (ratio sum cap / (n - 1)) as the packing's
 * bound, certified when it equals the value. */
static themis_status_t certify(const themis_tp_graph_t *g, themis_tp_packing_t *p,
                               const uint8_t *saturated)
{
    uint32_t *uf = malloc((size_t) g->n * sizeof(*uf)), *map = malloc((size_t) g->n * sizeof(*map));
    p->part = malloc((size_t) g->n * sizeof(*p->part));
    if (NULL == uf || NULL == map || NULL == p->part) {
        free(uf);
        free(map);
        return THEMIS_ERR_NOMEM;
    }
    /* Edges a packing leaves unsaturated cannot cross an optimal
     * partition: their components are the candidate. */
    themis_uf_init(uf, g->n);
    for (uint32_t e = 0; e < g->m && NULL != saturated; e++) {
        if (!saturated[e]) {
            themis_uf_union(uf, g->u[e], g->v[e]);
        }
    }
    p->nparts = themis_uf_parts(uf, g->n, p->part, map);
    free(uf);
    free(map);
    themis_tp_frac_t r;
    if (p->nparts >= 2 && THEMIS_OK == themis_tp_partition_ratio(g, p->part, p->nparts, &r)
        && r.num == p->value.num && r.den == p->value.den) {
        p->bound_exact = 1;
        p->bound = r;
        p->bound_f = (double) r.num / (double) r.den;
        return THEMIS_OK;
    }
    /* Optimal all the same (exact method); no partition to show. */
    free(p->part);
    p->part = NULL;
    p->nparts = 0;
    p->bound = p->value;
    p->bound_f = p->value_f;
    return THEMIS_OK;
}

/* ------------------------------------------------------------ torus */

/* rows x cols with node row * cols + col and the four torus neighbours,
 * all of one capacity; 0 when g is no such torus. */
static int torus_shape(const themis_tp_graph_t *g, uint32_t *rows, uint32_t *cols)
{
    uint32_t n = g->n;
    if (g->m != 2 * n || n < 9) {
        return 0;
    }
    for (uint32_t e = 1; e < g->m; e++) {
        if (g->cap[e] != g->cap[0]) {
            return 0;
        }
    }
    uint8_t *seen = malloc(2 * (size_t) n);
    if (NULL == seen) {
        return 0;
    }
    int found = 0;
    for (uint32_t c = 3; c <= n / 3 && !found; c++) {
        if (0 != n % c) {
            continue;
        }
        uint32_t r = n / c;
        /* Each node's right and down edges, each seen once. */
        memset(seen, 0, 2 * (size_t) n);
        int ok = 1;
        for (uint32_t e = 0; e < g->m && ok; e++) {
            uint32_t a = g->u[e], b = g->v[e];
            uint32_t ar = a / c, ac = a % c, br = b / c, bc = b % c;
            uint32_t slot;
            if (ar == br && bc == (ac + 1) % c) {
                slot = 2 * a;
            } else if (ar == br && ac == (bc + 1) % c) {
                slot = 2 * b;
            } else if (ac == bc && br == (ar + 1) % r) {
                slot = 2 * a + 1;
            } else if (ac == bc && ar == (br + 1) % r) {
                slot = 2 * b + 1;
            } else {
                ok = 0;
                break;
            }
            ok = !seen[slot];
            seen[slot] = 1;
        }
        if (ok) {
            *rows = r;
            *cols = c;
            found = 1;
        }
    }
    free(seen);
    return found;
}

static uint32_t edge_index(const themis_tp_graph_t *g, const uint32_t *first,
                           const uint32_t *adj, uint32_t a, uint32_t b)
{
    for (uint32_t i = first[a]; i < first[a + 1]; i++) {
        uint32_t e = adj[i];
        if ((g->u[e] == a && g->v[e] == b) || (g->v[e] == a && g->u[e] == b)) {
            return e;
        }
    }
    return UINT32_MAX;
}

/* CSR adjacency: node v's edges adj[first[v] .. first[v + 1]), by index. */
static themis_status_t csr(const themis_tp_graph_t *g, uint32_t **first, uint32_t **adj)
{
    *first = calloc((size_t) g->n + 1, sizeof(**first));
    *adj = calloc(2 * (size_t) g->m + 1, sizeof(**adj));
    uint32_t *fill = calloc((size_t) g->n + 1, sizeof(*fill));
    if (NULL == *first || NULL == *adj || NULL == fill) {
        free(*first);
        free(*adj);
        free(fill);
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t e = 0; e < g->m; e++) {
        (*first)[g->u[e] + 1]++;
        (*first)[g->v[e] + 1]++;
    }
    for (uint32_t v = 0; v < g->n; v++) {
        (*first)[v + 1] += (*first)[v];
    }
    memcpy(fill, *first, (size_t) g->n * sizeof(*fill));
    for (uint32_t e = 0; e < g->m; e++) {
        (*adj)[fill[g->u[e]]++] = e;
        (*adj)[fill[g->v[e]]++] = e;
    }
    free(fill);
    return THEMIS_OK;
}

themis_status_t themis_tp_torus(const themis_tp_graph_t *g, themis_tp_packing_t *out, char *why,
                                size_t len)
{
    uint32_t rows = 0, cols = 0, n = g->n;
    memset(out, 0, sizeof(*out));
    if (!torus_shape(g, &rows, &cols)) {
        snprintf(why, len, "not a 2-D torus (rows, cols >= 3) of equal capacities");
        return THEMIS_ERR_UNSUPPORTED;
    }
    themis_ham_t h;
    themis_status_t st = themis_ham_build(rows, cols, &h, why, len);
    if (THEMIS_OK != st) {
        return st;
    }
    uint32_t *first = NULL, *adj = NULL;
    st = csr(g, &first, &adj);
    if (THEMIS_OK == st) {
        st = themis_tp_packing_alloc(out, THEMIS_TP_TORUS, n, 2 * n, 1);
    }
    uint8_t *sat = calloc((size_t) g->m + 1, 1);
    if (THEMIS_OK == st && NULL == sat) {
        st = THEMIS_ERR_NOMEM;
    }
    for (uint32_t c = 0; c < 2 && THEMIS_OK == st; c++) {
        const uint32_t *cyc = h.cycle[c];
        for (uint32_t t = 0; t < n; t++) {
            /* Chain (c, t) is cycle c without its edge t. */
            uint32_t *tree = &out->edges[((size_t) c * n + t) * (n - 1)], k = 0;
            for (uint32_t i = 0; i < n; i++) {
                if (i != t) {
                    tree[k++] = edge_index(g, first, adj, cyc[i], cyc[(i + 1) % n]);
                }
            }
            out->w[c * n + t] = g->cap[0];
            out->x[c * n + t] = (double) g->cap[0] / (n - 1);
        }
    }
    if (THEMIS_OK == st) {
        memset(sat, 1, g->m);
        out->q = n - 1;
        out->exact = 1;
        out->value = themis_tp_frac(2 * (uint64_t) n * g->cap[0], n - 1);
        out->value_f = (double) out->value.num / (double) out->value.den;
        st = certify(g, out, sat);
    }
    if (THEMIS_OK != st) {
        themis_tp_packing_free(out);
    }
    free(sat);
    free(first);
    free(adj);
    themis_ham_free(&h);
    return st;
}

themis_status_t themis_tp_solve(const themis_tp_graph_t *g, themis_tp_packing_t *out, char *why,
                                size_t len)
{
    uint32_t rows, cols;
    if (g->n < 2) {
        snprintf(why, len, "one node: nothing to aggregate");
        return THEMIS_ERR_UNSUPPORTED;
    }
    /* Chains only where the schedule affords a unit per chain and
     * weight (a 64-node torus' 128 chains do not fit). */
    uint32_t budget = themis_tp_units_budget(g->n);
    if (torus_shape(g, &rows, &cols)) {
        themis_status_t st = themis_tp_torus(g, out, why, len);
        if (THEMIS_OK == st && out->ntrees > budget) {
            themis_tp_packing_free(out);
        } else if (THEMIS_ERR_UNSUPPORTED != st) {
            return st;
        }
    }
    themis_status_t cst = themis_tp_cycles(g, out, why, len);
    if (THEMIS_OK == cst && out->ntrees > budget) {
        themis_tp_packing_free(out);
    } else if (THEMIS_ERR_UNSUPPORTED != cst) {
        return cst;
    }
    return themis_tp_union(g, budget, out, why, len);
}
