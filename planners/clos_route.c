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

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

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
    uint64_t t0 = now_ns();
    uint32_t *up = calloc(2 * (size_t) c->ntors * c->nspines, sizeof(*up));
    if (NULL == up) {
        return THEMIS_ERR_NOMEM;
    }
    greedy_run(c, f, NULL, f->n, up, up + (size_t) c->ntors * c->nspines, r->spine);
    free(up);
    r->run_ns = now_ns() - t0;
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
    uint64_t t0 = now_ns();
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
    r->run_ns = now_ns() - t0;
    r->components = ncomp;
    free(first);
    free(parent);
    free(members);
    free(comp_of);
    free(up);
    return finish(c, f, r);
}

themis_status_t themis_clos_route_exact(const themis_clos_t *c, const themis_clos_flows_t *f,
                                        themis_clos_route_t *r)
{
    /* freeable on every return */
    memset(r, 0, sizeof(*r));
    uint32_t T = c->ntors, S = c->nspines;
    for (size_t l = 0; l < (size_t) T * S; l++) {
        if (c->link_failed[l]) {
            return THEMIS_ERR_UNSUPPORTED;
        }
    }
    themis_status_t st = route_start(f, THEMIS_CLOS_EXACT, r);
    if (THEMIS_OK != st) {
        return st;
    }
    uint64_t t0 = now_ns();
    uint32_t ws[THEMIS_CLOS_MAX_SPINES], nws = 0;
    for (uint32_t s = 0; s < S; s++) {
        if (!c->spine_failed[s]) {
            ws[nws++] = s;
        }
    }
    /* D: the largest degree of the multigraph, left vertices (source
     * ToRs) 0..T-1, right vertices (destination ToRs) T..2T-1 */
    uint32_t *deg = calloc(2 * (size_t) T, sizeof(*deg));
    if (NULL == deg) {
        return THEMIS_ERR_NOMEM;
    }
    uint32_t D = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        const themis_clos_flow_t *fl = &f->flows[i];
        r->spine[i] = THEMIS_CLOS_NO_SPINE;
        if (fl->src_tor != fl->dst_tor) {
            uint32_t a = ++deg[fl->src_tor], b = ++deg[T + fl->dst_tor];
            D = (a > D) ? a : D;
            D = (b > D) ? b : D;
        }
    }
    free(deg);
    if (0 == D || 0 == nws) {
        /* nothing crosses a spine, or nothing can: the evaluation says so */
        r->run_ns = now_ns() - t0;
        return finish(c, f, r);
    }
    /* at[v * D + colour]: the flow of that colour at vertex v, or NONE;
     * colour[i]: flow i's colour */
    const uint32_t NONE = UINT32_MAX;
    uint32_t *at = malloc((size_t) 2 * T * D * sizeof(*at));
    uint32_t *colour = r->spine;    /* colours first, spines at the end */
    uint32_t *path = malloc((2 * (size_t) T + 1) * sizeof(*path));
    if (NULL == at || NULL == path) {
        free(at);
        free(path);
        return THEMIS_ERR_NOMEM;
    }
    memset(at, 0xff, (size_t) 2 * T * D * sizeof(*at));
    for (uint32_t i = 0; i < f->n; i++) {
        const themis_clos_flow_t *fl = &f->flows[i];
        if (fl->src_tor == fl->dst_tor) {
            continue;
        }
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
                const themis_clos_flow_t *fe = &f->flows[e];
                path[np++] = e;
                x = (x == fe->src_tor) ? T + fe->dst_tor : fe->src_tor;
                col = (col == a) ? b : a;
            }
            for (uint32_t k = 0; k < np; k++) {
                const themis_clos_flow_t *fe = &f->flows[path[k]];
                at[(size_t) fe->src_tor * D + colour[path[k]]] = NONE;
                at[(size_t) (T + fe->dst_tor) * D + colour[path[k]]] = NONE;
            }
            for (uint32_t k = 0; k < np; k++) {
                const themis_clos_flow_t *fe = &f->flows[path[k]];
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
    for (uint32_t i = 0; i < f->n; i++) {
        if (NONE != colour[i]) {
            r->spine[i] = ws[colour[i] % nws];
        }
    }
    r->run_ns = now_ns() - t0;
    free(at);
    free(path);
    return finish(c, f, r);
}

/* splitmix64 (Steele, Lea, Flood 2014): a fixed seed gives the same
 * stream on every machine. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) without modulo bias: draws above the largest
 * multiple of n are redrawn. */
static uint32_t below(uint64_t *x, uint32_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n, v;
    do {
        v = splitmix64(x);
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
    uint64_t t0 = now_ns();
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
    r->run_ns = now_ns() - t0;
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
