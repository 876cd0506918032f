/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The All-Reduce transfer schedule of an integer spanning-tree packing
 * (treepack.h): each tree's units in chunks, reduced up and broadcast
 * down, within what themis_xfer_check takes; and the rate a schedule
 * implies on its graph (themis_tp_schedule_rate).
 */
#include "treepack.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link_sim.h"

static uint64_t weight_gcd(const themis_tp_packing_t *p)
{
    uint64_t g = 0;
    for (uint32_t t = 0; t < p->ntrees; t++) {
        g = themis_gcd(g, p->w[t]);
    }
    return 0 == g ? 1 : g;
}

/* Units (of 3 (n - 1) transfers each) a checked schedule affords. */
static uint32_t schedule_fit(uint32_t n)
{
    if (n < 2 || 3 * (uint64_t) (n - 1) + n > THEMIS_XFER_CHECK_MAX) {
        return 1;
    }
    return (THEMIS_XFER_CHECK_MAX - n) / (3 * (n - 1));
}

uint32_t themis_tp_units_budget(uint32_t n)
{
    uint32_t fit = schedule_fit(n);
    return fit < THEMIS_TP_UNITS_MAX ? fit : THEMIS_TP_UNITS_MAX;
}

/* The schedule's units at one chunk per weight: sum_t w_t / gcd. */
static uint64_t weight_sum(const themis_tp_packing_t *p)
{
    uint64_t gw = weight_gcd(p), sum = 0;
    for (uint32_t t = 0; t < p->ntrees; t++) {
        sum += p->w[t] / gw;
    }
    return sum;
}

uint32_t themis_tp_chunks_for(const themis_tp_packing_t *p, uint32_t target)
{
    uint64_t sum = weight_sum(p);
    /* No more units than a checked schedule affords. */
    uint32_t fit = schedule_fit(p->n);
    if (2 * sum > fit) {
        return 1;
    }
    target = target > fit ? fit : target;
    /* Even: a chain's chunks then go up it from both ends equally. */
    return 0 == sum || 2 * sum >= target ? 2 : (uint32_t) (target / sum) & ~1u;
}

/* Ordering simulates units of 64 KiB with the fastest link at 1 TB/s
 * (the order depends on the rates' ratios only): ps rounding does not
 * reorder transfers, and times stay far from 64 bits. */
#define ORDER_UNIT_BYTES (1u << 16)
#define ORDER_MAX_BPS 8000000000000ull

/* The list in the order the link simulator starts the transfers on g
 * (both directions at the capacities, no latency).  Each directed link
 * serves in arrival order there, while programs run each peer's queue in
 * list order: in build order a link's queue would hold chunk 0's
 * broadcast, which waits for the whole reduction, ahead of later chunks'
 * reduce steps that could go at once. */
static themis_status_t sort_by_simulated_start(const themis_tp_graph_t *g,
                                               themis_xfer_sched_t *s, char *why, size_t len)
{
    themis_graph_t net;
    uint64_t maxcap = 1;
    for (uint32_t e = 0; e < g->m; e++) {
        maxcap = g->cap[e] > maxcap ? g->cap[e] : maxcap;
    }
    uint64_t scale = maxcap < ORDER_MAX_BPS ? ORDER_MAX_BPS / maxcap : 1;
    themis_status_t st = themis_graph_init(&net, g->n);
    for (uint32_t e = 0; e < g->m && THEMIS_OK == st; e++) {
        uint64_t bw = g->cap[e] * scale;
        st = themis_graph_add_link(&net, g->u[e], g->v[e], bw, 0);
        if (THEMIS_OK == st) {
            st = themis_graph_add_link(&net, g->v[e], g->u[e], bw, 0);
        }
    }
    if (THEMIS_OK == st) {
        st = themis_graph_finish(&net, why, len);
    }
    if (THEMIS_OK == st) {
        st = themis_link_sim_order(&net, s, ORDER_UNIT_BYTES, why, len);
    }
    themis_graph_free(&net);
    return st;
}

/* Tree t's units tu[t] and chunks cnt[t] (0 for a tree rounded away):
 * at chunks_per_weight chunks of one unit per w_t / gcd where that many
 * chunks fit a checked schedule; else the shares in at most
 * THEMIS_TP_SCHED_MAX_UNITS units, each tree in chunks of several units,
 * one each and the rest of themis_tp_units_budget to the trees of the
 * largest chunks, so that the transfers do not grow with the units.
 * Shares round down (the packings keep their weights within the units,
 * so only a cycles packing of odd rates gets here): a tree that rounded
 * up could overload a thin edge many times over, rounding down adds at
 * most ntrees / units to every edge's share. */
static themis_status_t plan_chunks(const themis_tp_packing_t *p, uint32_t chunks_per_weight,
                                   uint32_t *tu, uint32_t *cnt, uint64_t *units,
                                   uint64_t *nchunks, char *why, size_t len)
{
    uint32_t n = p->n, nt = p->ntrees;
    uint64_t gw = weight_gcd(p), sum = weight_sum(p);
    if ((unsigned __int128) sum * chunks_per_weight <= schedule_fit(n)) {
        for (uint32_t t = 0; t < nt; t++) {
            tu[t] = cnt[t] = (uint32_t) (p->w[t] / gw * chunks_per_weight);
        }
        *units = *nchunks = sum * chunks_per_weight;
        return THEMIS_OK;
    }
    uint64_t total = sum < THEMIS_TP_SCHED_MAX_UNITS ? sum : THEMIS_TP_SCHED_MAX_UNITS, given = 0;
    for (uint32_t t = 0; t < nt; t++) {
        tu[t] = (uint32_t) ((unsigned __int128) (p->w[t] / gw) * total / sum);
        given += tu[t];
    }
    uint64_t budget = themis_tp_units_budget(n), used = 0;
    for (uint32_t t = 0; t < nt; t++) {
        cnt[t] = 0 != tu[t];
        used += cnt[t];
    }
    if (used > budget) {
        snprintf(why, len, "%llu trees of %u ranks exceed the %llu chunks of a checked schedule",
                 (unsigned long long) used, n, (unsigned long long) budget);
        return THEMIS_ERR_UNSUPPORTED;
    }
    for (; used < budget; used++) {
        /* The tree of the largest chunks, tu / cnt; ties to the lower tree. */
        uint32_t best = UINT32_MAX;
        for (uint32_t t = 0; t < nt; t++) {
            if (cnt[t] < tu[t]
                && (UINT32_MAX == best
                    || (uint64_t) tu[t] * cnt[best] > (uint64_t) tu[best] * cnt[t])) {
                best = t;
            }
        }
        if (UINT32_MAX == best) {
            break;
        }
        cnt[best]++;
    }
    *units = given;
    *nchunks = used;
    return THEMIS_OK;
}

themis_status_t themis_tp_allreduce_schedule(const themis_tp_graph_t *g,
                                             const themis_tp_packing_t *p,
                                             uint32_t chunks_per_weight, themis_xfer_sched_t *s,
                                             char *why, size_t len)
{
    uint32_t n = g->n, nt = p->ntrees;
    memset(s, 0, sizeof(*s));
    if (NULL == p->w || 0 == nt || 0 == chunks_per_weight || n < 2 || p->n != n) {
        snprintf(why, len, "an integer packing of this graph's trees is needed");
        return THEMIS_ERR_INVALID;
    }
    uint32_t *cnt = calloc(nt, sizeof(*cnt)), *next = calloc(nt, sizeof(*next));
    uint32_t *off = calloc(nt, sizeof(*off)), *tu = calloc(nt, sizeof(*tu));
    uint32_t *first = calloc((size_t) n + 1, sizeof(*first)), *adj = calloc(2 * (size_t) n, sizeof(*adj));
    uint32_t *order = calloc(n, sizeof(*order)), *parent = calloc(n, sizeof(*parent));
    uint32_t *kids = calloc(n, sizeof(*kids)), *slot = calloc(n, sizeof(*slot));
    uint32_t *up = calloc(n, sizeof(*up)), *have = calloc(n, sizeof(*have));
    uint32_t *init = calloc(n, sizeof(*init)), *tdeg = calloc(n, sizeof(*tdeg));
    themis_status_t st = THEMIS_OK;
    uint64_t units = 0, nchunks = 0;
    if (NULL == cnt || NULL == next || NULL == off || NULL == tu || NULL == first || NULL == adj
        || NULL == order || NULL == parent || NULL == kids || NULL == slot || NULL == up
        || NULL == have || NULL == init || NULL == tdeg) {
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    st = plan_chunks(p, chunks_per_weight, tu, cnt, &units, &nchunks, why, len);
    if (THEMIS_OK != st) {
        goto out;
    }
    /* Children of a node are at most its tree degree. */
    uint32_t maxdeg = 1;
    for (uint32_t t = 0; t < nt; t++) {
        memset(tdeg, 0, n * sizeof(*tdeg));
        for (uint32_t i = 0; i + 1 < n; i++) {
            uint32_t e = p->edges[(size_t) t * (n - 1) + i];
            tdeg[g->u[e]]++;
            tdeg[g->v[e]]++;
        }
        for (uint32_t v = 0; v < n; v++) {
            maxdeg = tdeg[v] > maxdeg ? tdeg[v] : maxdeg;
        }
    }
    uint32_t o = 0;
    for (uint32_t t = 0; t < nt; t++) {
        off[t] = o;
        o += tu[t];
    }
    themis_xfer_init(s, THEMIS_COLL_ALLREDUCE, n, (uint32_t) units);
    snprintf(s->name, sizeof(s->name), "treepack-%s-%u", themis_tp_method_name(p->method), n);
    s->buf_units[THEMIS_BUF_INPUT] = units;
    s->buf_units[THEMIS_BUF_OUTPUT] = units;
    s->buf_units[THEMIS_BUF_SCRATCH] = units * maxdeg;
    s->result_buf = THEMIS_BUF_OUTPUT;
    for (uint32_t r = 0; r < n && THEMIS_OK == st; r++) {
        themis_xfer_t x = {.src = r, .dst = r, .kind = THEMIS_XFER_COPY,
                           .src_buf = THEMIS_BUF_INPUT, .dst_buf = THEMIS_BUF_OUTPUT,
                           .count = units};
        st = themis_xfer_add(s, &x, NULL, 0, &init[r]);
    }
    for (uint64_t chunk = 0; chunk < nchunks && THEMIS_OK == st; chunk++) {
        /* The tree whose next chunk sits earliest in its own stream:
         * (2 next + 1) / (2 cnt) least, ties to the lower tree. */
        uint32_t t = UINT32_MAX;
        for (uint32_t c = 0; c < nt; c++) {
            if (next[c] >= cnt[c]) {
                continue;
            }
            if (UINT32_MAX == t
                || (uint64_t) (2 * next[c] + 1) * cnt[t] < (uint64_t) (2 * next[t] + 1) * cnt[c]) {
                t = c;
            }
        }
        /* Chunk j: units [j tu / cnt, (j + 1) tu / cnt) of the tree's. */
        uint32_t j = next[t]++;
        uint64_t u = off[t] + (uint64_t) j * tu[t] / cnt[t];
        uint64_t ucount = off[t] + (uint64_t) (j + 1) * tu[t] / cnt[t] - u;
        const uint32_t *tree = &p->edges[(size_t) t * (n - 1)];
        /* Tree adjacency, edges in the tree's order. */
        memset(first, 0, (n + 1) * sizeof(*first));
        for (uint32_t i = 0; i + 1 < n; i++) {
            first[g->u[tree[i]] + 1]++;
            first[g->v[tree[i]] + 1]++;
        }
        for (uint32_t v = 0; v < n; v++) {
            first[v + 1] += first[v];
        }
        memcpy(slot, first, n * sizeof(*slot));
        for (uint32_t i = 0; i + 1 < n; i++) {
            uint32_t e = tree[i];
            adj[slot[g->u[e]]++] = g->v[e];
            adj[slot[g->v[e]]++] = g->u[e];
        }
        /* The root: the tree's j-th leaf in turn (node order). */
        uint32_t nleaves = 0, root = 0;
        for (uint32_t v = 0; v < n; v++) {
            nleaves += 1 == first[v + 1] - first[v];
        }
        for (uint32_t v = 0, want = j % nleaves; v < n; v++) {
            if (1 == first[v + 1] - first[v] && 0 == want--) {
                root = v;
                break;
            }
        }
        /* Breadth-first from the root: order[] parents before children;
         * slot[v] is v's index among its parent's children. */
        for (uint32_t v = 0; v < n; v++) {
            parent[v] = UINT32_MAX;
            kids[v] = 0;
        }
        uint32_t head = 0, tail = 0;
        order[tail++] = root;
        parent[root] = root;
        while (head < tail) {
            uint32_t a = order[head++];
            for (uint32_t i = first[a]; i < first[a + 1]; i++) {
                uint32_t b = adj[i];
                if (UINT32_MAX == parent[b]) {
                    parent[b] = a;
                    slot[b] = kids[a]++;
                    order[tail++] = b;
                }
            }
        }
        if (tail != n) {
            snprintf(why, len, "tree %u does not span the graph", t);
            st = THEMIS_ERR_INVALID;
            break;
        }
        for (uint32_t v = 0; v < n; v++) {
            up[v] = init[v];
        }
        /* Up: children (later in order[]) first. */
        for (uint32_t i = n; i-- > 1 && THEMIS_OK == st;) {
            uint32_t c = order[i], a = parent[c], got, deps[2];
            themis_xfer_t x = {.src = c, .dst = a, .kind = THEMIS_XFER_COPY,
                               .src_buf = THEMIS_BUF_OUTPUT, .dst_buf = THEMIS_BUF_SCRATCH,
                               .src_off = u, .dst_off = (uint64_t) slot[c] * units + u,
                               .count = ucount};
            st = themis_xfer_add(s, &x, &up[c], 1, &got);
            if (THEMIS_OK != st) {
                break;
            }
            themis_xfer_t r = {.src = a, .dst = a, .kind = THEMIS_XFER_REDUCE,
                               .src_buf = THEMIS_BUF_SCRATCH, .dst_buf = THEMIS_BUF_OUTPUT,
                               .src_off = (uint64_t) slot[c] * units + u, .dst_off = u,
                               .count = ucount};
            deps[0] = got;
            deps[1] = up[a];
            st = themis_xfer_add(s, &r, deps, up[a] == got ? 1 : 2, &up[a]);
        }
        /* Down: parents first; a child's unit is overwritten only after
         * its own send up read it. */
        have[root] = up[root];
        for (uint32_t i = 1; i < n && THEMIS_OK == st; i++) {
            uint32_t c = order[i], a = parent[c], deps[2] = {have[a], up[c]};
            themis_xfer_t x = {.src = a, .dst = c, .kind = THEMIS_XFER_COPY,
                               .src_buf = THEMIS_BUF_OUTPUT, .dst_buf = THEMIS_BUF_OUTPUT,
                               .src_off = u, .dst_off = u, .count = ucount};
            st = themis_xfer_add(s, &x, deps, 2, &have[c]);
        }
    }
    if (THEMIS_OK == st) {
        st = sort_by_simulated_start(g, s, why, len);
    }
    if (THEMIS_OK != st) {
        if (THEMIS_ERR_NOMEM == st) {
            snprintf(why, len, "out of memory");
        }
        themis_xfer_free(s);
    }
out:
    free(cnt);
    free(next);
    free(off);
    free(tu);
    free(first);
    free(adj);
    free(order);
    free(parent);
    free(kids);
    free(slot);
    free(up);
    free(have);
    free(init);
    free(tdeg);
    return st;
}

/* Units of the runtime's schedule: enough chunks per tree to pipeline
 * (the p3 presets: 96); any count runs (units of uneven size,
 * transfer.h). */
#define RUNTIME_TARGET_UNITS 96u

themis_status_t themis_tp_runtime_schedule(const themis_graph_t *graph, themis_xfer_sched_t *s,
                                           char *why, size_t len)
{
    themis_tp_graph_t g;
    themis_tp_packing_t p;
    memset(s, 0, sizeof(*s));
    themis_status_t st = themis_tp_from_graph(graph, &g, why, len);
    if (THEMIS_OK != st) {
        return st;
    }
    st = themis_tp_solve(&g, &p, why, len);
    if (THEMIS_OK == st) {
        st = themis_tp_allreduce_schedule(&g, &p, themis_tp_chunks_for(&p, RUNTIME_TARGET_UNITS),
                                          s, why, len);
        themis_tp_packing_free(&p);
    }
    themis_tp_graph_free(&g);
    return st;
}

themis_status_t themis_tp_schedule_rate(const themis_graph_t *graph, const themis_xfer_sched_t *s,
                                        uint64_t unit_bps, themis_tp_frac_t *c, char *why,
                                        size_t len)
{
    uint32_t n = graph->nnodes;
    *c = themis_tp_frac(0, 1);
    if (s->nranks != n || 0 == s->nunits) {
        snprintf(why, len, "a schedule of %u ranks with units is needed", n);
        return THEMIS_ERR_INVALID;
    }
    uint64_t *load = calloc((size_t) n * n, sizeof(*load));
    if (NULL == load) {
        return THEMIS_ERR_NOMEM;
    }
    themis_status_t st = THEMIS_OK;
    for (uint32_t x = 0; x < s->nxfers; x++) {
        if (s->xfers[x].src != s->xfers[x].dst) {
            load[(size_t) s->xfers[x].src * n + s->xfers[x].dst] += s->xfers[x].count;
        }
    }
    for (uint32_t a = 0; a < n && THEMIS_OK == st; a++) {
        for (uint32_t b = 0; b < n; b++) {
            uint64_t l = load[(size_t) a * n + b];
            uint32_t ab = themis_graph_link(graph, a, b), ba = themis_graph_link(graph, b, a);
            if (0 == l) {
                continue;
            }
            if (UINT32_MAX == ab || UINT32_MAX == ba || !themis_graph_link_working(graph, ab)
                || !themis_graph_link_working(graph, ba)) {
                snprintf(why, len, "transfers from %u to %u, which are not linked both ways", a,
                         b);
                st = THEMIS_ERR_INVALID;
                break;
            }
            /* l unit_bps / (nunits bw): reduced, so that the products
             * below stay within 128 bits. */
            themis_tp_frac_t r = themis_tp_frac(l, s->nunits);
            themis_tp_frac_t q = themis_tp_frac(unit_bps, graph->links[ab].bw_bps);
            themis_tp_frac_t here = themis_tp_frac(r.num * q.num, r.den * q.den);
            *c = themis_tp_frac_less(*c, here) ? here : *c;
        }
    }
    free(load);
    return st;
}
