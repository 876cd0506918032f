/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Greedy, parallel greedy, exact (König) and ECMP routing on a Clos
 * (clos_route.h).  Loads are tables of ntors x nspines counters, ToR t's
 * link to spine s at t * nspines + s, one table for up links and one for
 * down links.
 */
#include "clos_route.h"
#include "util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "clos_failed_links.h"
#include "degree_subgraph.h"

const char *themis_clos_algo_name(themis_clos_algo_t a)
{
    static const char *const names[] = {"greedy", "parallel", "exact", "ilp", "ecmp"};
    return ((unsigned) a < sizeof(names) / sizeof(names[0])) ? names[a] : "?";
}

themis_status_t themis_clos_algo_parse(const char *s, themis_clos_algo_t *a)
{
    for (int i = THEMIS_CLOS_GREEDY; i <= THEMIS_CLOS_ECMP; i++) {
        if (0 == strcmp(s, themis_clos_algo_name((themis_clos_algo_t) i))) {
            *a = (themis_clos_algo_t) i;
            return THEMIS_OK;
        }
    }
    return THEMIS_ERR_INVALID;
}

void themis_clos_route_free(themis_clos_route_t *r)
{
    free(r->spine);
    free(r->hist);
    memset(r, 0, sizeof(*r));
}

static themis_status_t route_start(const themis_clos_flows_t *f, themis_clos_algo_t algo,
                                   themis_clos_route_t *r)
{
    memset(r, 0, sizeof(*r));
    r->algo = algo;
    r->nflows = f->n;
    r->spine = malloc(((size_t) f->n + 1) * sizeof(*r->spine));
    return (NULL == r->spine) ? THEMIS_ERR_NOMEM : THEMIS_OK;
}

static int link_up(const themis_clos_t *c, uint32_t st, uint32_t dt, uint32_t s)
{
    return themis_clos_usable(c, st, s) && themis_clos_usable(c, dt, s);
}

themis_status_t themis_clos_lower_bound(const themis_clos_t *c, const themis_clos_flows_t *f,
                                        uint32_t *bound, uint32_t *tor_demand, uint32_t *inter)
{
    uint32_t T = c->ntors, S = c->nspines;
    uint32_t *out = calloc(2 * (size_t) T, sizeof(*out));
    if (NULL == out) {
        return THEMIS_ERR_NOMEM;
    }
    uint32_t *in = out + T, n = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        if (f->flows[i].src_tor != f->flows[i].dst_tor) {
            out[f->flows[i].src_tor]++;
            in[f->flows[i].dst_tor]++;
            n++;
        }
    }
    uint32_t b = 0, d = 0;
    themis_status_t st = THEMIS_OK;
    for (uint32_t t = 0; t < T; t++) {
        uint32_t links = 0;
        for (uint32_t s = 0; s < S; s++) {
            links += themis_clos_usable(c, t, s);
        }
        uint32_t m = (out[t] > in[t]) ? out[t] : in[t];
        d = (m > d) ? m : d;
        if (0 == m) {
            continue;
        }
        if (0 == links) {
            st = THEMIS_ERR_INVALID;
            break;
        }
        uint32_t q = (m + links - 1) / links;
        b = (q > b) ? q : b;
    }
    free(out);
    if (NULL != bound) {
        *bound = b;
    }
    if (NULL != tor_demand) {
        *tor_demand = d;
    }
    if (NULL != inter) {
        *inter = n;
    }
    return st;
}

themis_status_t themis_clos_route_evaluate(const themis_clos_t *c, const themis_clos_flows_t *f,
                                           themis_clos_route_t *r, char *why, size_t len)
{
    uint32_t T = c->ntors, S = c->nspines;
    size_t nl = (size_t) T * S;
    uint32_t *up = calloc(2 * nl + 2 * (size_t) c->nhosts, sizeof(*up));
    if (NULL == up) {
        return THEMIS_ERR_NOMEM;
    }
    uint32_t *down = up + nl, *hup = down + nl, *hdown = hup + c->nhosts;
    themis_status_t st = THEMIS_OK;
    for (uint32_t i = 0; i < f->n && THEMIS_OK == st; i++) {
        const themis_clos_flow_t *fl = &f->flows[i];
        uint32_t s = r->spine[i];
        hup[fl->src - c->host_base]++;
        hdown[fl->dst - c->host_base]++;
        if (fl->src_tor == fl->dst_tor) {
            if (THEMIS_CLOS_NO_SPINE != s) {
                snprintf(why, len, "flow %u (%u -> %u) is intra-ToR but has spine %u", i,
                         fl->src, fl->dst, s);
                st = THEMIS_ERR_INVALID;
            }
        } else if (THEMIS_CLOS_NO_SPINE == s || s >= S || !link_up(c, fl->src_tor, fl->dst_tor, s)) {
            snprintf(why, len, "flow %u (%u -> %u, ToR %u -> %u) has no usable spine", i, fl->src,
                     fl->dst, fl->src_tor, fl->dst_tor);
            st = THEMIS_ERR_INVALID;
        } else {
            up[(size_t) fl->src_tor * S + s]++;
            down[(size_t) fl->dst_tor * S + s]++;
        }
    }
    if (THEMIS_OK == st) {
        uint32_t m = 0;
        for (size_t l = 0; l < 2 * nl; l++) {
            m = (up[l] > m) ? up[l] : m;
        }
        r->max_load = m;
        /* max-min fairness: every flow gets at least min over links of
         * rate / flows, and the flows of the link that attains it get
         * exactly that */
        uint64_t slow = UINT64_MAX;
        for (uint32_t i = 0; i < f->n; i++) {
            const themis_clos_flow_t *fl = &f->flows[i];
            uint32_t s = r->spine[i];
            uint64_t v = c->host_bps / hup[fl->src - c->host_base];
            uint64_t w = c->host_bps / hdown[fl->dst - c->host_base];
            v = (w < v) ? w : v;
            if (THEMIS_CLOS_NO_SPINE != s) {
                w = c->link_bps / up[(size_t) fl->src_tor * S + s];
                v = (w < v) ? w : v;
                w = c->link_bps / down[(size_t) fl->dst_tor * S + s];
                v = (w < v) ? w : v;
            }
            slow = (v < slow) ? v : slow;
        }
        r->slowest_bps = (UINT64_MAX == slow) ? 0 : slow;
        r->slowest_share_ppm = (uint32_t) (r->slowest_bps * 1000000u / c->link_bps);
        r->working_spines = themis_clos_working_spines(c);
        st = themis_clos_lower_bound(c, f, &r->lower_bound, &r->tor_demand, &r->inter_tor);
        if (THEMIS_OK != st) {
            snprintf(why, len, "a ToR with inter-ToR flows has no usable link");
        }
    }
    free(up);
    return st;
}

/* Algorithm 1 on flows idx[0 .. n) (all of them, in order, when idx is
 * NULL).  A flow with no usable spine keeps THEMIS_CLOS_NO_SPINE, which
 * the evaluation reports. */
static void greedy_run(const themis_clos_t *c, const themis_clos_flows_t *f, const uint32_t *idx,
                       uint32_t n, uint32_t *up, uint32_t *down, uint32_t *spine)
{
    uint32_t S = c->nspines;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = (NULL != idx) ? idx[k] : k;
        const themis_clos_flow_t *fl = &f->flows[i];
        uint32_t best = THEMIS_CLOS_NO_SPINE, bl = UINT32_MAX;
        if (fl->src_tor != fl->dst_tor) {
            uint32_t *u = &up[(size_t) fl->src_tor * S], *d = &down[(size_t) fl->dst_tor * S];
            for (uint32_t s = 0; s < S; s++) {
                if (!link_up(c, fl->src_tor, fl->dst_tor, s)) {
                    continue;
                }
                uint32_t l = (u[s] > d[s]) ? u[s] : d[s];
                /* strictly less: ties stay with the lowest spine id */
                if (l < bl) {
                    bl = l;
                    best = s;
                }
            }
            if (THEMIS_CLOS_NO_SPINE != best) {
                u[best]++;
                d[best]++;
            }
        }
        spine[i] = best;
    }
}

static themis_status_t finish(const themis_clos_t *c, const themis_clos_flows_t *f,
                              themis_clos_route_t *r)
{
    char why[160];
    themis_status_t st = themis_clos_route_evaluate(c, f, r, why, sizeof(why));
    r->optimal = (THEMIS_OK == st && r->max_load == r->lower_bound);
    return st;
}

themis_status_t themis_clos_route_greedy(const themis_clos_t *c, const themis_clos_flows_t *f,
                                         themis_clos_route_t *r)
{
    themis_status_t st = route_start(f, THEMIS_CLOS_GREEDY, r);
    if (THEMIS_OK != st) {
        return st;
    }
    uint64_t t0 = themis_now_ns();
    uint32_t *up = calloc(2 * (size_t) c->ntors * c->nspines, sizeof(*up));
    if (NULL == up) {
        return THEMIS_ERR_NOMEM;
    }
    greedy_run(c, f, NULL, f->n, up, up + (size_t) c->ntors * c->nspines, r->spine);
    free(up);
    r->run_ns = themis_now_ns() - t0;
    return finish(c, f, r);
}

typedef struct {
    const themis_clos_t *c;
    const themis_clos_flows_t *f;
    const uint32_t *comp_first;     /* [ncomp + 1] into members */
    const uint32_t *members;        /* flow indices, by component, in flow order */
    uint32_t ncomp, worker, nworkers;
    uint32_t *up, *down, *spine;
} par_job_t;

static void *par_worker(void *arg)
{
    par_job_t *j = arg;
    /* static round-robin: which thread runs a component does not change
     * the result (components touch disjoint links) */
    for (uint32_t k = j->worker; k < j->ncomp; k += j->nworkers) {
        greedy_run(j->c, j->f, &j->members[j->comp_first[k]],
                   j->comp_first[k + 1] - j->comp_first[k], j->up, j->down, j->spine);
    }
    return NULL;
}

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

themis_status_t themis_clos_route_parallel(const themis_clos_t *c, const themis_clos_flows_t *f,
                                           uint32_t nthreads, themis_clos_route_t *r)
{
    /* freeable on every return */
    memset(r, 0, sizeof(*r));
    if (0 == nthreads || nthreads > 256) {
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = route_start(f, THEMIS_CLOS_PARALLEL, r);
    if (THEMIS_OK != st) {
        return st;
    }
    uint32_t T = c->ntors, n = f->n;
    uint64_t t0 = themis_now_ns();
    /* union-find over source-side ToRs 0..T-1 and destination-side ToRs
     * T..2T-1: a flow joins its two; flows sharing a source or a
     * destination ToR end in one set */
    size_t nl = (size_t) T * c->nspines;
    uint32_t *parent = malloc((2 * (size_t) T + 2 * (size_t) T + 1) * sizeof(*parent));
    uint32_t *members = malloc(((size_t) n + 1) * sizeof(*members));
    uint32_t *comp_of = malloc(((size_t) n + 1) * sizeof(*comp_of));
    uint32_t *up = calloc(2 * nl, sizeof(*up));
    if (NULL == parent || NULL == members || NULL == comp_of || NULL == up) {
        free(parent);
        free(members);
        free(comp_of);
        free(up);
        return THEMIS_ERR_NOMEM;
    }
    uint32_t *comp_id = parent + 2 * T;   /* per root: component number, UINT32_MAX none */
    for (uint32_t v = 0; v < 2 * T; v++) {
        parent[v] = v;
        comp_id[v] = UINT32_MAX;
    }
    for (uint32_t i = 0; i < n; i++) {
        const themis_clos_flow_t *fl = &f->flows[i];
        if (fl->src_tor != fl->dst_tor) {
            uint32_t a = uf_find(parent, fl->src_tor), b = uf_find(parent, T + fl->dst_tor);
            /* the smaller root wins, so the forest does not depend on
             * anything but the flows */
            if (a != b) {
                parent[(a > b) ? a : b] = (a < b) ? a : b;
            }
        }
    }
    /* components numbered by their first flow; counting sort of flows */
    uint32_t ncomp = 0;
    for (uint32_t i = 0; i < n; i++) {
        const themis_clos_flow_t *fl = &f->flows[i];
        if (fl->src_tor == fl->dst_tor) {
            comp_of[i] = UINT32_MAX;
            r->spine[i] = THEMIS_CLOS_NO_SPINE;
            continue;
        }
        uint32_t root = uf_find(parent, fl->src_tor);
        if (UINT32_MAX == comp_id[root]) {
            comp_id[root] = ncomp++;
        }
        comp_of[i] = comp_id[root];
    }
    uint32_t *first = calloc((size_t) ncomp + 2, sizeof(*first));
    if (NULL == first) {
        free(parent);
        free(members);
        free(comp_of);
        free(up);
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (UINT32_MAX != comp_of[i]) {
            first[comp_of[i] + 1]++;
        }
    }
    for (uint32_t k = 0; k < ncomp; k++) {
        first[k + 1] += first[k];
    }
    for (uint32_t i = 0; i < n; i++) {
        if (UINT32_MAX != comp_of[i]) {
            members[first[comp_of[i]]++] = i;
        }
    }
    for (uint32_t k = ncomp; k > 0; k--) {
        first[k] = first[k - 1];
    }
    first[0] = 0;
    uint32_t nw = (nthreads < ncomp) ? nthreads : (0 == ncomp ? 1 : ncomp);
    par_job_t jobs[256];
    pthread_t tid[256];
    int started[256];
    for (uint32_t w = 0; w < nw; w++) {
        jobs[w] = (par_job_t) {c, f, first, members, ncomp, w, nw, up, up + nl, r->spine};
        /* worker 0 runs on this thread; a thread that cannot start runs
         * its share here too */
        started[w] = (w > 0 && 0 == pthread_create(&tid[w], NULL, par_worker, &jobs[w]));
    }
    par_worker(&jobs[0]);
    for (uint32_t w = 1; w < nw; w++) {
        if (started[w]) {
            pthread_join(tid[w], NULL);
        } else {
            par_worker(&jobs[w]);
        }
    }
    r->run_ns = themis_now_ns() - t0;
    r->components = ncomp;
    free(first);
    free(parent);
    free(members);
    free(comp_of);
    free(up);
    return finish(c, f, r);
}

/* König's colouring of the inter-ToR flows idx[0 .. n): Delta colours,
 * Delta their largest degree in the multigraph source ToR -> destination
 * ToR, by the alternating-path method (flows in order, the lowest free
 * colour at each end; when they differ, the two-coloured path from the
 * destination is swapped).  Colour c goes to spines[c mod ns]: a colour
 * class is a matching, so each of those spines carries at most
 * ceil(Delta / ns) of these flows at any ToR. */
static themis_status_t colour_onto(const themis_clos_t *c, const themis_clos_flows_t *f,
                                   const uint32_t *idx, uint32_t n, const uint32_t *spines,
                                   uint32_t ns, uint32_t *spine)
{
    uint32_t T = c->ntors, D = 0;
    if (0 == n) {
        return THEMIS_OK;
    }
    /* left vertices (source ToRs) 0..T-1, right ones (destinations) T..2T-1 */
    uint32_t *deg = calloc(2 * (size_t) T, sizeof(*deg));
    if (NULL == deg) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t k = 0; k < n; k++) {
        const themis_clos_flow_t *fl = &f->flows[idx[k]];
        uint32_t a = ++deg[fl->src_tor], b = ++deg[T + fl->dst_tor];
        D = (a > D) ? a : D;
        D = (b > D) ? b : D;
    }
    free(deg);
    /* at[v * D + colour]: the flow (position in idx) of that colour at
     * vertex v, or NONE; colour[k]: idx[k]'s colour */
    const uint32_t NONE = UINT32_MAX;
    uint32_t *at = malloc((size_t) 2 * T * D * sizeof(*at));
    uint32_t *colour = malloc((size_t) n * sizeof(*colour));
    uint32_t *path = malloc((2 * (size_t) T + 1) * sizeof(*path));
    if (NULL == at || NULL == colour || NULL == path) {
        free(at);
        free(colour);
        free(path);
        return THEMIS_ERR_NOMEM;
    }
    memset(at, 0xff, (size_t) 2 * T * D * sizeof(*at));
    for (uint32_t i = 0; i < n; i++) {
        const themis_clos_flow_t *fl = &f->flows[idx[i]];
        uint32_t u = fl->src_tor, v = T + fl->dst_tor;
        uint32_t *au = &at[(size_t) u * D], *av = &at[(size_t) v * D];
        uint32_t a = 0, b = 0;
        /* both exist: u and v have fewer than D coloured flows so far */
        while (NONE != au[a]) {
            a++;
        }
        while (NONE != av[b]) {
            b++;
        }
        if (NONE != av[a]) {
            /* swap a and b on the path from v that starts with colour a:
             * it alternates a, b, reaches left vertices only by a-flows,
             * so it never reaches u, where a is free (König) */
            uint32_t np = 0, x = v, col = a;
            while (NONE != at[(size_t) x * D + col]) {
                uint32_t e = at[(size_t) x * D + col];
                const themis_clos_flow_t *fe = &f->flows[idx[e]];
                path[np++] = e;
                x = (x == fe->src_tor) ? T + fe->dst_tor : fe->src_tor;
                col = (col == a) ? b : a;
            }
            for (uint32_t k = 0; k < np; k++) {
                const themis_clos_flow_t *fe = &f->flows[idx[path[k]]];
                at[(size_t) fe->src_tor * D + colour[path[k]]] = NONE;
                at[(size_t) (T + fe->dst_tor) * D + colour[path[k]]] = NONE;
            }
            for (uint32_t k = 0; k < np; k++) {
                const themis_clos_flow_t *fe = &f->flows[idx[path[k]]];
                uint32_t nc = (colour[path[k]] == a) ? b : a;
                colour[path[k]] = nc;
                at[(size_t) fe->src_tor * D + nc] = path[k];
                at[(size_t) (T + fe->dst_tor) * D + nc] = path[k];
            }
        }
        colour[i] = a;
        au[a] = i;
        av[a] = i;
    }
    for (uint32_t k = 0; k < n; k++) {
        spine[idx[k]] = spines[colour[k] % ns];
    }
    free(at);
    free(colour);
    free(path);
    return THEMIS_OK;
}

/* The failed links (between working spines and ToRs) as a block X x F:
 * in_x[t] for t in X, fsp[0 .. *nf) = F, hsp[0 .. *nh) the other working
 * spines.  0, or -1 when some t in X and s in F still have their cable. */
static int failed_block(const themis_clos_t *c, uint8_t *in_x, uint32_t *fsp, uint32_t *nf,
                        uint32_t *hsp, uint32_t *nh)
{
    uint32_t T = c->ntors, S = c->nspines;
    *nf = 0;
    *nh = 0;
    for (uint32_t s = 0; s < S; s++) {
        int bad = 0;
        for (uint32_t t = 0; t < T && !c->spine_failed[s]; t++) {
            if (c->link_failed[(size_t) t * S + s]) {
                in_x[t] = 1;
                bad = 1;
            }
        }
        if (bad) {
            fsp[(*nf)++] = s;
        } else if (!c->spine_failed[s]) {
            hsp[(*nh)++] = s;
        }
    }
    for (uint32_t t = 0; t < T; t++) {
        for (uint32_t k = 0; in_x[t] && k < *nf; k++) {
            if (!c->link_failed[(size_t) t * S + fsp[k]]) {
                return -1;
            }
        }
    }
    return 0;
}

typedef struct {
    uint32_t T, m, nf, nh;
    const uint8_t *in_x;
    uint32_t *el, *er, *mult;       /* [m]: ToR pairs with neither end in X */
    uint32_t *deg;                  /* [2T]: inter-ToR flows out of / into each ToR */
    uint32_t *lo, *hi, *x;
} split_t;

/* Can the flows be routed with max load L?  Iff some subgraph H of the
 * ToR multigraph avoids X and has at most nf * L flows at every ToR
 * (H: the flows on F) while the rest has at most nh * L (see exact). */
static int split_feasible(split_t *p, uint32_t L)
{
    for (uint32_t v = 0; v < 2 * p->T; v++) {
        uint64_t d = p->deg[v], rest = (uint64_t) p->nh * L, onf = (uint64_t) p->nf * L;
        p->lo[v] = (uint32_t) ((d > rest) ? d - rest : 0);
        p->hi[v] = p->in_x[v % p->T] ? 0 : (uint32_t) ((onf < d) ? onf : d);
    }
    return themis_degree_subgraph(p->T, p->T, p->m, p->el, p->er, p->mult, p->lo, p->hi, p->x);
}

/* Exact routing with the failed-link block X x F (failed_block): the
 * least L for which split_feasible holds, by binary search (feasibility
 * only grows with L), then H on F and the rest on the other spines by
 * König.  *opt: that L. */
static themis_status_t exact_split(const themis_clos_t *c, const themis_clos_flows_t *f,
                                   const uint32_t *idx, uint32_t n, const uint8_t *in_x,
                                   const uint32_t *fsp, uint32_t nf, const uint32_t *hsp,
                                   uint32_t nh, uint32_t *spine, uint32_t *opt)
{
    uint32_t T = c->ntors;
    split_t p = {.T = T, .nf = nf, .nh = nh, .in_x = in_x};
    themis_status_t st = THEMIS_ERR_NOMEM;
    /* flows by (source ToR, destination ToR), flow order within: a stable
     * counting sort by destination, then by source */
    uint32_t *cnt = calloc((size_t) T + 1, sizeof(*cnt));
    uint32_t *tmp = malloc(((size_t) n + 1) * sizeof(*tmp));
    uint32_t *ord = malloc(((size_t) n + 1) * sizeof(*ord));
    uint32_t *rest = malloc(((size_t) n + 1) * sizeof(*rest));
    p.el = malloc(((size_t) n + 1) * sizeof(uint32_t));
    p.er = malloc(((size_t) n + 1) * sizeof(uint32_t));
    p.mult = malloc(((size_t) n + 1) * sizeof(uint32_t));
    p.x = malloc(((size_t) n + 1) * sizeof(uint32_t));
    p.deg = calloc(2 * (size_t) T, sizeof(uint32_t));
    p.lo = malloc(2 * (size_t) T * sizeof(uint32_t));
    p.hi = malloc(2 * (size_t) T * sizeof(uint32_t));
    if (NULL == cnt || NULL == tmp || NULL == ord || NULL == rest || NULL == p.el ||
        NULL == p.er || NULL == p.mult || NULL == p.x || NULL == p.deg || NULL == p.lo ||
        NULL == p.hi) {
        goto out;
    }
    for (int pass = 0; pass < 2; pass++) {
        const uint32_t *from = (0 == pass) ? idx : tmp;
        uint32_t *to = (0 == pass) ? tmp : ord;
        memset(cnt, 0, ((size_t) T + 1) * sizeof(*cnt));
        for (uint32_t k = 0; k < n; k++) {
            const themis_clos_flow_t *fl = &f->flows[from[k]];
            cnt[((0 == pass) ? fl->dst_tor : fl->src_tor) + 1]++;
        }
        for (uint32_t t = 0; t < T; t++) {
            cnt[t + 1] += cnt[t];
        }
        for (uint32_t k = 0; k < n; k++) {
            const themis_clos_flow_t *fl = &f->flows[from[k]];
            to[cnt[(0 == pass) ? fl->dst_tor : fl->src_tor]++] = from[k];
        }
    }
    uint32_t D = 0;
    for (uint32_t k = 0; k < n; k++) {
        const themis_clos_flow_t *fl = &f->flows[ord[k]];
        uint32_t a = ++p.deg[fl->src_tor], b = ++p.deg[T + fl->dst_tor];
        D = (a > D) ? a : D;
        D = (b > D) ? b : D;
        if (in_x[fl->src_tor] || in_x[fl->dst_tor]) {
            continue;
        }
        const themis_clos_flow_t *pv = (k > 0) ? &f->flows[ord[k - 1]] : NULL;
        if (p.m > 0 && pv->src_tor == fl->src_tor && pv->dst_tor == fl->dst_tor) {
            p.mult[p.m - 1]++;
        } else {
            p.el[p.m] = fl->src_tor;
            p.er[p.m] = fl->dst_tor;
            p.mult[p.m++] = 1;
        }
    }
    if (0 == D) {
        /* nothing crosses a spine */
        st = THEMIS_OK;
        goto out;
    }
    /* L = D is feasible (H empty, or with no other spine H everything:
     * X then has no flows, else they have no usable spine at all) */
    uint32_t lo = 1, hi = D;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int ok = split_feasible(&p, mid);
        if (ok < 0) {
            goto out;
        }
        if (ok) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    int ok = split_feasible(&p, lo);
    if (ok < 0) {
        goto out;
    }
    st = THEMIS_OK;
    if (0 == ok) {
        /* a flow at X has no usable spine: the evaluation says which */
        goto out;
    }
    *opt = lo;
    /* H: the first x[k] flows (in flow order) of each pair k; tmp = H,
     * rest = the rest, both in flow order */
    for (uint32_t k = 0, cls = UINT32_MAX, used = 0; k < n; k++) {
        const themis_clos_flow_t *fl = &f->flows[ord[k]];
        spine[ord[k]] = 0;
        if (in_x[fl->src_tor] || in_x[fl->dst_tor]) {
            continue;
        }
        if (UINT32_MAX == cls || p.el[cls] != fl->src_tor || p.er[cls] != fl->dst_tor) {
            cls = (UINT32_MAX == cls) ? 0 : cls + 1;
            used = 0;
        }
        spine[ord[k]] = (used++ < p.x[cls]);
    }
    uint32_t nhf = 0, nrest = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (spine[idx[k]]) {
            tmp[nhf++] = idx[k];
        } else {
            rest[nrest++] = idx[k];
        }
    }
    st = colour_onto(c, f, tmp, nhf, fsp, nf, spine);
    if (THEMIS_OK == st) {
        st = colour_onto(c, f, rest, nrest, hsp, nh, spine);
    }
out:
    free(cnt);
    free(tmp);
    free(ord);
    free(rest);
    free(p.el);
    free(p.er);
    free(p.mult);
    free(p.x);
    free(p.deg);
    free(p.lo);
    free(p.hi);
    return st;
}
themis_status_t themis_clos_route_exact(const themis_clos_t *c, const themis_clos_flows_t *f,
                                        themis_clos_route_t *r)
{
    return themis_clos_route_exact_limit(c, f, THEMIS_CLOS_SEARCH_STEPS, r);
}

themis_status_t themis_clos_route_exact_limit(const themis_clos_t *c,
                                              const themis_clos_flows_t *f, uint64_t step_limit,
                                              themis_clos_route_t *r)
{
    /* freeable on every return */
    memset(r, 0, sizeof(*r));
    uint32_t T = c->ntors, fsp[THEMIS_CLOS_MAX_SPINES], hsp[THEMIS_CLOS_MAX_SPINES], nf, nh;
    uint8_t *in_x = calloc((size_t) T, 1);
    if (NULL == in_x) {
        return THEMIS_ERR_NOMEM;
    }
    int block = (0 == failed_block(c, in_x, fsp, &nf, hsp, &nh));
    themis_clos_links_result_t lr = {0};
    themis_status_t st = route_start(f, THEMIS_CLOS_EXACT, r);
    uint32_t *idx = malloc(((size_t) f->n + 1) * sizeof(*idx)), n = 0, opt = 0;
    if (THEMIS_OK != st || NULL == idx) {
        free(in_x);
        free(idx);
        return THEMIS_ERR_NOMEM;
    }
    uint64_t t0 = themis_now_ns();
    for (uint32_t i = 0; i < f->n; i++) {
        r->spine[i] = THEMIS_CLOS_NO_SPINE;
        if (f->flows[i].src_tor != f->flows[i].dst_tor) {
            idx[n++] = i;
        }
    }
    if (!block) {
        /* not one block: bound, ejection chains, bounded search */
        st = themis_clos_route_failed_links(c, f, idx, n, step_limit, r->spine, &lr);
        opt = lr.bound;
        r->searched = 1;
        r->heuristic_load = lr.heuristic;
        r->search_steps = lr.steps;
        r->search_limit_hit = lr.limit_hit;
    } else if (0 == nf) {
        /* ceil(D / S) on the S working spines; nothing crosses when
         * none works, which the evaluation reports */
        st = (0 == nh) ? THEMIS_OK : colour_onto(c, f, idx, n, hsp, nh, r->spine);
    } else {
        st = exact_split(c, f, idx, n, in_x, fsp, nf, hsp, nh, r->spine, &opt);
    }
    r->run_ns = themis_now_ns() - t0;
    free(in_x);
    free(idx);
    if (THEMIS_OK != st) {
        return st;
    }
    st = finish(c, f, r);
    if (THEMIS_OK == st && opt > r->lower_bound) {
        /* exact_split proved that opt - 1 is infeasible, or the failed-link
         * router's bound or search did */
        r->lower_bound = opt;
        r->optimal = (r->max_load == opt);
    }
    if (THEMIS_OK == st && r->max_load > r->lower_bound) {
        r->gap_ppm = (uint32_t) ((uint64_t) (r->max_load - r->lower_bound) * 1000000u /
                                 r->max_load);
    }
    return st;
}

/* Uniform in [0, n) without modulo bias: draws above the largest
 * multiple of n are redrawn. */
static uint32_t below(uint64_t *x, uint32_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n, v;
    do {
        v = themis_splitmix64(x);
    } while (v >= lim);
    return (uint32_t) (v % n);
}

themis_status_t themis_clos_route_ecmp(const themis_clos_t *c, const themis_clos_flows_t *f,
                                       uint32_t draws, uint64_t seed, themis_clos_route_t *r)
{
    /* freeable on every return */
    memset(r, 0, sizeof(*r));
    if (0 == draws) {
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = route_start(f, THEMIS_CLOS_ECMP, r);
    if (THEMIS_OK != st) {
        return st;
    }
    uint32_t S = c->nspines, n = f->n;
    size_t nl = (size_t) c->ntors * S;
    uint64_t t0 = themis_now_ns();
    /* each flow's usable spines, once: cand[first[i] .. first[i + 1]) */
    uint32_t *first = malloc(((size_t) n + 1) * sizeof(*first));
    uint32_t *maxes = malloc((size_t) draws * sizeof(*maxes));
    uint32_t *cur = malloc(((size_t) n + 1) * sizeof(*cur));
    uint32_t *up = malloc(2 * nl * sizeof(*up));
    uint32_t *cand = NULL;
    size_t ncand = 0;
    if (NULL != first) {
        for (uint32_t i = 0; i < n; i++) {
            first[i] = (uint32_t) ncand;
            const themis_clos_flow_t *fl = &f->flows[i];
            for (uint32_t s = 0; fl->src_tor != fl->dst_tor && s < S; s++) {
                ncand += link_up(c, fl->src_tor, fl->dst_tor, s);
            }
        }
        first[n] = (uint32_t) ncand;
        cand = malloc((ncand + 1) * sizeof(*cand));
    }
    if (NULL == first || NULL == maxes || NULL == cur || NULL == up || NULL == cand ||
        ncand > UINT32_MAX) {
        free(first);
        free(maxes);
        free(cur);
        free(up);
        free(cand);
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        const themis_clos_flow_t *fl = &f->flows[i];
        uint32_t k = first[i];
        for (uint32_t s = 0; fl->src_tor != fl->dst_tor && s < S; s++) {
            if (link_up(c, fl->src_tor, fl->dst_tor, s)) {
                cand[k++] = s;
            }
        }
    }
    uint64_t x = seed, sum = 0;
    uint32_t worst = 0;
    for (uint32_t d = 0; d < draws; d++) {
        memset(up, 0, 2 * nl * sizeof(*up));
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; i++) {
            const themis_clos_flow_t *fl = &f->flows[i];
            uint32_t k = first[i + 1] - first[i];
            if (0 == k) {
                cur[i] = THEMIS_CLOS_NO_SPINE;
                continue;
            }
            uint32_t s = cand[first[i] + below(&x, k)];
            uint32_t a = ++up[(size_t) fl->src_tor * S + s];
            uint32_t b = ++up[nl + (size_t) fl->dst_tor * S + s];
            cur[i] = s;
            m = (a > m) ? a : m;
            m = (b > m) ? b : m;
        }
        maxes[d] = m;
        sum += m;
        /* keep the first draw that reaches the worst */
        if (0 == d || m > worst) {
            worst = m;
            memcpy(r->spine, cur, (size_t) n * sizeof(*cur));
        }
    }
    r->run_ns = themis_now_ns() - t0;
    r->draws = draws;
    r->seed = seed;
    r->worst = worst;
    r->mean_milli = (sum * 1000u * 2 + draws) / (2 * (uint64_t) draws);
    r->hist = calloc((size_t) worst + 1, sizeof(*r->hist));
    if (NULL != r->hist) {
        for (uint32_t d = 0; d < draws; d++) {
            r->hist[maxes[d]]++;
        }
    }
    free(first);
    free(maxes);
    free(cur);
    free(up);
    free(cand);
    if (NULL == r->hist) {
        return THEMIS_ERR_NOMEM;
    }
    return finish(c, f, r);
}

static int add(json_object *o, const char *k, json_object *v)
{
    return (NULL == v) ? -1 : json_object_object_add(o, k, v);
}

int themis_clos_route_write_json(const themis_clos_t *c, const themis_clos_flows_t *f,
                                 const themis_clos_route_t *r, FILE *out)
{
    json_object *root = json_object_new_object(), *clos = json_object_new_object();
    json_object *fs = json_object_new_array(), *fl = json_object_new_array();
    json_object *flows = json_object_new_array();
    int rc = (NULL == root || NULL == clos || NULL == fs || NULL == fl || NULL == flows) ? -1 : 0;
    if (0 != rc) {
        json_object_put(root);
        json_object_put(clos);
        json_object_put(fs);
        json_object_put(fl);
        json_object_put(flows);
        return -1;
    }
    for (uint32_t s = 0; s < c->nspines; s++) {
        if (c->spine_failed[s]) {
            rc |= json_object_array_add(fs, json_object_new_int64(s));
        }
        for (uint32_t t = 0; t < c->ntors; t++) {
            if (c->link_failed[(size_t) t * c->nspines + s]) {
                json_object *p = json_object_new_array();
                rc |= (NULL == p) ? -1 : 0;
                if (NULL != p) {
                    json_object_array_add(p, json_object_new_int64(t));
                    json_object_array_add(p, json_object_new_int64(s));
                    rc |= json_object_array_add(fl, p);
                }
            }
        }
    }
    rc |= add(clos, "tors", json_object_new_int64(c->ntors));
    rc |= add(clos, "spines", json_object_new_int64(c->nspines));
    rc |= add(clos, "host_base", json_object_new_int64(c->host_base));
    rc |= add(clos, "link_bps", json_object_new_int64((int64_t) c->link_bps));
    rc |= add(clos, "failed_spines", fs);
    rc |= add(clos, "failed_links", fl);
    rc |= add(root, "clos", clos);
    rc |= add(root, "algorithm", json_object_new_string(themis_clos_algo_name(r->algo)));
    rc |= add(root, "max_load", json_object_new_int64(r->max_load));
    rc |= add(root, "lower_bound", json_object_new_int64(r->lower_bound));
    rc |= add(root, "slowest_flow_bps", json_object_new_int64((int64_t) r->slowest_bps));
    rc |= add(root, "run_ns", json_object_new_int64((int64_t) r->run_ns));
    for (uint32_t i = 0; i < f->n && 0 == rc; i++) {
        const themis_clos_flow_t *x = &f->flows[i];
        json_object *o = json_object_new_object();
        if (NULL == o) {
            rc = -1;
            break;
        }
        rc |= add(o, "src", json_object_new_int64(x->src));
        rc |= add(o, "dst", json_object_new_int64(x->dst));
        rc |= add(o, "src_tor", json_object_new_int64(x->src_tor));
        rc |= add(o, "dst_tor", json_object_new_int64(x->dst_tor));
        if (THEMIS_CLOS_NO_SPINE == r->spine[i]) {
            rc |= json_object_object_add(o, "spine", NULL);
            rc |= json_object_object_add(o, "spine_node", NULL);
        } else {
            rc |= add(o, "spine", json_object_new_int64(r->spine[i]));
            rc |= add(o, "spine_node", json_object_new_int64((int64_t) c->ntors + r->spine[i]));
        }
        rc |= json_object_array_add(flows, o);
    }
    rc |= add(root, "flows", flows);
    if (0 == rc) {
        const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
        rc = (NULL == s || fprintf(out, "%s\n", s) < 0) ? -1 : 0;
    }
    json_object_put(root);
    return (0 == rc) ? 0 : -1;
}
