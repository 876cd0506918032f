/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * TACOS-ILP (tacos_ilp.h).  GLPK solves in floating point; column values
 * are read back rounded to the nearest integer, and the result is checked
 * (every node receives every chunk it lacks exactly once, causally, one
 * chunk per link at a time) before it is returned.
 */
#include "tacos_ilp.h"
#include "util.h"

#include "link_sim.h"

#include <glpk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lp.h"

#define NONE UINT32_MAX

typedef struct {
    uint32_t c, l, t;           /* chunk, link, start step (absolute) */
} isend_t;

typedef struct {
    isend_t *v;
    uint32_t n, cap;
} isends_t;

/* The state of one All-Gather synthesis. */
typedef struct {
    const themis_graph_t *g;
    uint32_t n, k, C, L;
    uint32_t *d;                /* [L] steps a link takes; 0: not working */
    uint8_t *held;              /* [C * n] at the current window's start */
    uint32_t *avail;            /* [C * n] step a node got a chunk (absolute) */
    uint32_t *lfree;            /* [L] step a link is free again (absolute) */
    uint32_t need;              /* (chunk, node) pairs still missing */
    uint64_t deadline_ns;
    uint32_t solves, max_cols;
} ilp_t;

/* One ILP's outcome. */
typedef struct {
    isends_t sends;             /* start steps relative to the window */
    uint32_t arrivals;
    int proven;                 /* the search finished or proved its answer */
} window_t;

static int left_ms(const ilp_t *s)
{
    uint64_t t = themis_now_ns();
    if (t >= s->deadline_ns) {
        return 0;
    }
    uint64_t ms = (s->deadline_ns - t + 999999u) / 1000000u;
    return ms > (uint64_t) INT32_MAX ? INT32_MAX : (int) ms;
}

static themis_status_t push(isends_t *a, uint32_t c, uint32_t l, uint32_t t)
{
    if (0 != themis_grow((void **) &a->v, a->n, &a->cap, sizeof(*a->v), 256)) {
        return THEMIS_ERR_NOMEM;
    }
    a->v[a->n++] = (isend_t) {.c = c, .l = l, .t = t};
    return THEMIS_OK;
}

/* e[c * n + v]: fewest steps from a holder of c (at the window's start)
 * to v, ignoring congestion; NONE when unreachable.  Bellman-Ford: the
 * graphs are small. */
static void earliest(const ilp_t *s, uint32_t *e)
{
    const themis_graph_t *g = s->g;
    for (uint32_t c = 0; c < s->C; ++c) {
        uint32_t *ec = e + (size_t) c * s->n;
        for (uint32_t v = 0; v < s->n; ++v) {
            ec[v] = s->held[(size_t) c * s->n + v] ? 0 : NONE;
        }
        for (int changed = 1; changed;) {
            changed = 0;
            for (uint32_t l = 0; l < s->L; ++l) {
                uint32_t u = g->links[l].src, v = g->links[l].dst;
                if (0 != s->d[l] && NONE != ec[u] && ec[u] + s->d[l] < ec[v]) {
                    ec[v] = ec[u] + s->d[l];
                    changed = 1;
                }
            }
        }
    }
}

typedef struct {
    glp_prob *P;
    const double *start;        /* columns 1..ncols, or NULL */
    int offered;
    double complete;            /* objective of the least complete solution */
    int bound_below;            /* the bound proved nothing is complete */
    int stop_early;             /* stop on completeness alone (the T search) */
} cb_t;

static void ilp_callback(glp_tree *tree, void *info)
{
    cb_t *cb = info;
    themis_lp_offer_start(tree, cb->start, &cb->offered);
    /* Only completeness decides T: stop once the incumbent is complete,
     * or once no node left in the tree can be. */
    glp_prob *P = glp_ios_get_prob(tree);
    if (!cb->stop_early) {
        return;
    }
    if (GLP_FEAS == glp_mip_status(P) && glp_mip_obj_val(P) >= cb->complete - 0.5) {
        glp_ios_terminate(tree);
        return;
    }
    int best = glp_ios_best_node(tree);
    if (0 != best && glp_ios_node_bound(tree, best) < cb->complete - 0.5) {
        cb->bound_below = 1;
        glp_ios_terminate(tree);
    }
}

/* The ILP of a TEN of T steps from s's state (tacos_ilp.h), with heur (start
 * steps relative to the window; those that fit) as its first incumbent.
 * stop_early: the search stops once it knows whether everything can be
 * delivered (the T search); else it maximizes (a window of the clustered
 * search).  *w gets the incumbent's sends (none without one). */
static themis_status_t solve_window(ilp_t *s, uint32_t T, const isends_t *heur, int stop_early,
                                    window_t *w, char *why, size_t len)
{
    const themis_graph_t *g = s->g;
    uint32_t n = s->n, C = s->C, L = s->L;
    size_t nx = (size_t) C * L * (T + 1), nh = (size_t) C * n * (T + 1);
    uint32_t *e = malloc((size_t) C * n * sizeof(*e));
    int *xcol = calloc(nx, sizeof(*xcol)), *hcol = calloc(nh, sizeof(*hcol));
    uint32_t *col_c = NULL, *col_l = NULL, *col_t = NULL;
    double *start = NULL;
    themis_lp_nz_t z = {0};
    themis_status_t st = THEMIS_OK;
    glp_prob *P = NULL;

    memset(w, 0, sizeof(*w));
    if (NULL == e || NULL == xcol || NULL == hcol) {
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    earliest(s, e);
#define XI(c, l, t) (((size_t) (c) * L + (l)) * (T + 1) + (t))
#define HI(c, v, t) (((size_t) (c) * n + (v)) * (T + 1) + (t))
    /* Columns: x first (binary), then h (continuous). */
    uint32_t ncols = 0, nbin = 0;
    for (uint32_t c = 0; c < C; ++c) {
        for (uint32_t l = 0; l < L; ++l) {
            uint32_t u = g->links[l].src, v = g->links[l].dst;
            if (0 == s->d[l] || s->held[(size_t) c * n + v] || NONE == e[(size_t) c * n + u]) {
                continue;
            }
            for (uint32_t t = e[(size_t) c * n + u]; t + s->d[l] <= T; ++t) {
                xcol[XI(c, l, t)] = (int) ++ncols;
            }
        }
    }
    nbin = ncols;
    if (nbin > THEMIS_TACOS_ILP_MAX_COLS) {
        snprintf(why, len, "the ILP of %u steps has %u binary columns, more than %u: use the "
                 "greedy or time clustering", T, nbin, THEMIS_TACOS_ILP_MAX_COLS);
        st = THEMIS_ERR_INVALID;
        goto out;
    }
    for (uint32_t c = 0; c < C; ++c) {
        for (uint32_t v = 0; v < n; ++v) {
            uint32_t ev = e[(size_t) c * n + v];
            if (s->held[(size_t) c * n + v] || NONE == ev) {
                continue;
            }
            for (uint32_t t = ev; t <= T; ++t) {
                hcol[HI(c, v, t)] = (int) ++ncols;
            }
        }
    }
    s->max_cols = nbin > s->max_cols ? nbin : s->max_cols;
    col_c = malloc((nbin + 1) * sizeof(*col_c));
    col_l = malloc((nbin + 1) * sizeof(*col_l));
    col_t = malloc((nbin + 1) * sizeof(*col_t));
    if (NULL == col_c || NULL == col_l || NULL == col_t) {
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    P = glp_create_prob();
    glp_set_obj_dir(P, GLP_MAX);
    if (ncols > 0) {
        glp_add_cols(P, (int) ncols);
    }
    double W = 1.0 + (double) C * n * T;
    uint32_t missing = 0;
    for (uint32_t c = 0; c < C; ++c) {
        for (uint32_t v = 0; v < n; ++v) {
            missing += !s->held[(size_t) c * n + v];
        }
    }
    for (uint32_t c = 0; c < C; ++c) {
        for (uint32_t l = 0; l < L; ++l) {
            for (uint32_t t = 0; t <= T; ++t) {
                int j = xcol[XI(c, l, t)];
                if (0 != j) {
                    glp_set_col_kind(P, j, GLP_BV);
                    glp_set_obj_coef(P, j, W + (double) (T - t - s->d[l]));
                    col_c[j] = c;
                    col_l[j] = l;
                    col_t[j] = t;
                }
            }
        }
    }
    /* h: cumulative arrivals, received at most once. */
    for (uint32_t c = 0; c < C && THEMIS_OK == st; ++c) {
        for (uint32_t v = 0; v < n && THEMIS_OK == st; ++v) {
            for (uint32_t t = 0; t <= T && THEMIS_OK == st; ++t) {
                int j = hcol[HI(c, v, t)];
                if (0 == j) {
                    continue;
                }
                glp_set_col_bnds(P, j, GLP_DB, 0.0, 1.0);
                int row = glp_add_rows(P, 1);
                glp_set_row_bnds(P, row, GLP_FX, 0.0, 0.0);
                st = themis_lp_nz_add(&z, row, j, 1.0);
                if (THEMIS_OK == st && t > 0 && 0 != hcol[HI(c, v, t - 1)]) {
                    st = themis_lp_nz_add(&z, row, hcol[HI(c, v, t - 1)], -1.0);
                }
                for (uint32_t i = g->in_first[v]; THEMIS_OK == st && i < g->in_first[v + 1];
                     ++i) {
                    uint32_t l = g->in_links[i];
                    if (0 != s->d[l] && s->d[l] <= t && 0 != xcol[XI(c, l, t - s->d[l])]) {
                        st = themis_lp_nz_add(&z, row, xcol[XI(c, l, t - s->d[l])], -1.0);
                    }
                }
            }
        }
    }
    /* Consistency: a send needs its source to hold the chunk. */
    for (uint32_t j = 1; j <= nbin && THEMIS_OK == st; ++j) {
        uint32_t u = g->links[col_l[j]].src;
        if (s->held[(size_t) col_c[j] * n + u]) {
            continue;
        }
        int row = glp_add_rows(P, 1);
        glp_set_row_bnds(P, row, GLP_UP, 0.0, 0.0);
        st = themis_lp_nz_add(&z, row, (int) j, 1.0);
        if (THEMIS_OK == st) {
            st = themis_lp_nz_add(&z, row, hcol[HI(col_c[j], u, col_t[j])], -1.0);
        }
    }
    /* Congestion: a link carries one chunk during its d steps. */
    for (uint32_t l = 0; l < L && THEMIS_OK == st; ++l) {
        for (uint32_t t = 0; 0 != s->d[l] && t < T && THEMIS_OK == st; ++t) {
            uint32_t cnt = 0;
            uint32_t t0 = t + 1 >= s->d[l] ? t + 1 - s->d[l] : 0;
            for (uint32_t c = 0; c < C; ++c) {
                for (uint32_t tt = t0; tt <= t; ++tt) {
                    cnt += 0 != xcol[XI(c, l, tt)];
                }
            }
            if (cnt < 2) {
                continue;
            }
            int row = glp_add_rows(P, 1);
            glp_set_row_bnds(P, row, GLP_UP, 0.0, 1.0);
            for (uint32_t c = 0; c < C && THEMIS_OK == st; ++c) {
                for (uint32_t tt = t0; tt <= t && THEMIS_OK == st; ++tt) {
                    if (0 != xcol[XI(c, l, tt)]) {
                        st = themis_lp_nz_add(&z, row, xcol[XI(c, l, tt)], 1.0);
                    }
                }
            }
        }
    }
    if (THEMIS_OK != st) {
        goto out;
    }
    themis_lp_nz_load(&z, P);
    /* The starting incumbent: heur's sends that fit, their holds. */
    start = calloc((size_t) ncols + 1, sizeof(*start));
    if (NULL == start) {
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    int have_start = 0;
    for (uint32_t i = 0; NULL != heur && i < heur->n; ++i) {
        const isend_t *x = &heur->v[i];
        if (x->t + s->d[x->l] > T || 0 == xcol[XI(x->c, x->l, x->t)]) {
            continue;
        }
        start[xcol[XI(x->c, x->l, x->t)]] = 1.0;
        uint32_t v = g->links[x->l].dst;
        for (uint32_t t = x->t + s->d[x->l]; t <= T; ++t) {
            start[hcol[HI(x->c, v, t)]] = 1.0;
        }
        have_start = 1;
    }
    cb_t cb = {.P = P, .start = have_start ? start : NULL, .complete = W * (double) missing,
               .stop_early = stop_early};
    int ms = left_ms(s);
    if (0 == ms) {
        goto out;       /* no time: no incumbent */
    }
    ++s->solves;
    int ret = 0 == ncols ? 0 : themis_lp_simplex(P, ms);
    int relaxed = 0 == ret && GLP_OPT == glp_get_status(P);
    int use_start = have_start;
    if (0 == ncols || (stop_early && relaxed && glp_get_obj_val(P) < cb.complete - 0.5)) {
        /* even the relaxation cannot deliver everything */
        w->proven = 1;
    } else if (relaxed && 0 != (ms = left_ms(s))) {
        ret = themis_lp_intopt(P, ms, ilp_callback, &cb);
        int mst = glp_mip_status(P);
        int found = GLP_OPT == mst || GLP_FEAS == mst;
        w->proven = (0 == ret && (GLP_OPT == mst || GLP_NOFEAS == mst)) || cb.bound_below
                    || (found && glp_mip_obj_val(P) >= cb.complete - 0.5);
        for (uint32_t j = 1; found && j <= nbin; ++j) {
            start[j] = glp_mip_col_val(P, (int) j) > 0.5 ? 1.0 : 0.0;
        }
        use_start = use_start || found;
    }
    /* the incumbent; without one (no time) the starting one */
    for (uint32_t j = 1; use_start && j <= nbin && THEMIS_OK == st; ++j) {
        if (start[j] > 0.5) {
            st = push(&w->sends, col_c[j], col_l[j], col_t[j]);
            ++w->arrivals;
        }
    }
#undef XI
#undef HI
out:
    if (NULL != P) {
        glp_delete_prob(P);
    }
    free(start);
    themis_lp_nz_free(&z);
    free(col_c);
    free(col_l);
    free(col_t);
    free(xcol);
    free(hcol);
    free(e);
    return st;
}

static int cmp_isend(const void *a, const void *b)
{
    const isend_t *x = a, *y = b;
    if (x->t != y->t) {
        return x->t < y->t ? -1 : 1;
    }
    if (x->l != y->l) {
        return x->l < y->l ? -1 : 1;
    }
    return (x->c > y->c) - (x->c < y->c);
}

/* Appends w's sends (relative to step base) to all, validating them against
 * s's state and updating it: each source holds the chunk by the start, each
 * link is free, nobody receives twice.  THEMIS_ERR_INVALID when GLPK's
 * answer breaks a rule. */
static themis_status_t commit(ilp_t *s, const isends_t *w, uint32_t base, isends_t *all,
                              char *why, size_t len)
{
    themis_status_t st = THEMIS_OK;
    if (w->n > 1) {     /* w->v may be NULL: qsort(NULL, 0) is undefined */
        qsort(w->v, w->n, sizeof(*w->v), cmp_isend);
    }
    for (uint32_t i = 0; i < w->n && THEMIS_OK == st; ++i) {
        const isend_t *x = &w->v[i];
        uint32_t u = s->g->links[x->l].src, v = s->g->links[x->l].dst, t = base + x->t;
        size_t cu = (size_t) x->c * s->n + u, cv = (size_t) x->c * s->n + v;
        if (NONE == s->avail[cu] || s->avail[cu] > t || NONE != s->avail[cv]
            || s->lfree[x->l] > t) {
            snprintf(why, len, "the ILP's answer breaks a rule: chunk %u over link %u (%u -> %u) "
                     "at step %u", x->c, x->l, u, v, t);
            return THEMIS_ERR_INVALID;
        }
        s->avail[cv] = t + s->d[x->l];
        s->lfree[x->l] = t + s->d[x->l];
        --s->need;
        st = push(all, x->c, x->l, t);
    }
    /* The next window starts from everything delivered. */
    for (size_t i = 0; i < (size_t) s->C * s->n; ++i) {
        s->held[i] = NONE != s->avail[i];
    }
    return st;
}

/* Sec. V-B: every missing (chunk, node) over the fewest-steps path from
 * the chunk's holders (by when they hold it), each hop once its link is
 * free.  Adds to all. */
static themis_status_t recover(ilp_t *s, isends_t *all, uint32_t *added)
{
    const themis_graph_t *g = s->g;
    uint32_t n = s->n;
    uint32_t *dist = malloc(n * sizeof(*dist)), *via = malloc(n * sizeof(*via));
    uint32_t *path = malloc(n * sizeof(*path));
    themis_status_t st = THEMIS_OK;

    if (NULL == dist || NULL == via || NULL == path) {
        st = THEMIS_ERR_NOMEM;
    }
    for (uint32_t c = 0; c < s->C && THEMIS_OK == st; ++c) {
        for (uint32_t v = 0; v < n && THEMIS_OK == st; ++v) {
            if (NONE != s->avail[(size_t) c * n + v]) {
                continue;
            }
            for (uint32_t u = 0; u < n; ++u) {
                dist[u] = s->avail[(size_t) c * n + u];
                via[u] = NONE;
            }
            for (int changed = 1; changed;) {
                changed = 0;
                for (uint32_t l = 0; l < s->L; ++l) {
                    uint32_t a = g->links[l].src, b = g->links[l].dst;
                    /* only into nodes that lack c: nobody receives twice */
                    if (0 != s->d[l] && NONE != dist[a] && NONE == s->avail[(size_t) c * n + b]
                        && dist[a] + s->d[l] < dist[b]) {
                        dist[b] = dist[a] + s->d[l];
                        via[b] = l;
                        changed = 1;
                    }
                }
            }
            uint32_t np = 0;
            for (uint32_t x = v; NONE != via[x]; x = g->links[via[x]].src) {
                path[np++] = via[x];
            }
            while (np-- > 0 && THEMIS_OK == st) {
                uint32_t l = path[np], a = g->links[l].src, b = g->links[l].dst;
                uint32_t t = s->avail[(size_t) c * n + a];
                t = s->lfree[l] > t ? s->lfree[l] : t;
                s->avail[(size_t) c * n + b] = t + s->d[l];
                s->lfree[l] = t + s->d[l];
                --s->need;
                ++*added;
                st = push(all, c, l, t);
            }
        }
    }
    free(dist);
    free(via);
    free(path);
    return st;
}

/* The greedy's All-Gather retimed in TEN steps: in its start order, each
 * send as soon as its source holds the chunk and its link is free. */
static themis_status_t greedy_steps(const ilp_t *s, const themis_tacos_ag_t *ag, isends_t *out,
                                    uint32_t *steps)
{
    uint32_t *avail = malloc((size_t) s->C * s->n * sizeof(*avail));
    uint32_t *lfree = calloc(s->L, sizeof(*lfree));
    themis_status_t st = THEMIS_OK;

    *steps = 0;
    if (NULL == avail || NULL == lfree) {
        st = THEMIS_ERR_NOMEM;
    }
    for (size_t i = 0; THEMIS_OK == st && i < (size_t) s->C * s->n; ++i) {
        avail[i] = s->avail[i];
    }
    for (uint32_t i = 0; THEMIS_OK == st && i < ag->nsends; ++i) {
        uint32_t l = ag->sends[i].link, c = ag->sends[i].chunk;
        uint32_t u = s->g->links[l].src, v = s->g->links[l].dst;
        uint32_t t = avail[(size_t) c * s->n + u];
        t = lfree[l] > t ? lfree[l] : t;
        avail[(size_t) c * s->n + v] = t + s->d[l];
        lfree[l] = t + s->d[l];
        *steps = t + s->d[l] > *steps ? t + s->d[l] : *steps;
        st = push(out, c, l, t);
    }
    free(avail);
    free(lfree);
    return st;
}

/* The least T by which every node's in-links (d steps each) can deliver
 * what it lacks, and every (chunk, node) is reachable. */
static uint32_t lower_steps(const ilp_t *s)
{
    const themis_graph_t *g = s->g;
    uint32_t *e = malloc((size_t) s->C * s->n * sizeof(*e));
    uint32_t lo = 0;
    if (NULL == e) {
        return 0;
    }
    earliest(s, e);
    for (size_t i = 0; i < (size_t) s->C * s->n; ++i) {
        lo = NONE != e[i] && e[i] > lo ? e[i] : lo;
    }
    uint32_t need = s->C - s->k;
    for (uint32_t v = 0; v < s->n; ++v) {
        uint32_t T = lo;
        for (;; ++T) {
            uint64_t got = 0;
            for (uint32_t i = g->in_first[v]; i < g->in_first[v + 1]; ++i) {
                uint32_t l = g->in_links[i];
                got += 0 != s->d[l] ? T / s->d[l] : 0;
            }
            if (got >= need) {
                break;
            }
        }
        lo = T;
    }
    free(e);
    return lo;
}

void themis_tacos_ilp_opts_default(themis_tacos_ilp_opts_t *o)
{
    o->time_limit_ms = 60000;
    o->cluster_steps = 0;
    o->greedy_seeds = THEMIS_TACOS_SEEDS_AUTO;
}

static void ilp_free(ilp_t *s)
{
    free(s->d);
    free(s->held);
    free(s->avail);
    free(s->lfree);
}

/* Sec. V-A: T upwards from the lower bound until an ILP delivers all;
 * optimal when it does (every smaller T was proven too short). */
static themis_status_t search_full(ilp_t *s, const isends_t *heur, uint32_t lo, uint32_t hi,
                                   isends_t *all, themis_tacos_ilp_info_t *info, char *why,
                                   size_t len)
{
    window_t best = {0}, w;
    themis_status_t st = THEMIS_OK;

    for (uint32_t T = lo; T <= hi; ++T) {
        st = solve_window(s, T, heur, 1, &w, why, len);
        if (THEMIS_OK != st) {
            free(w.sends.v);
            break;
        }
        int complete = w.arrivals == s->need, proven = w.proven;
        if (complete || w.arrivals >= best.arrivals) {
            free(best.sends.v);
            best = w;
        } else {
            free(w.sends.v);
        }
        if (complete) {
            info->optimal = 1;
            break;
        }
        if (!proven) {
            break;      /* the time limit: complete the best partial result */
        }
    }
    if (THEMIS_OK == st) {
        st = commit(s, &best.sends, 0, all, why, len);
    }
    free(best.sends.v);
    return st;
}

/* Sec. V-C: windows of `steps` steps one after another. */
static themis_status_t search_clustered(ilp_t *s, uint32_t steps, isends_t *all, char *why,
                                        size_t len)
{
    themis_status_t st = THEMIS_OK;
    uint32_t base = 0;
    while (0 != s->need && THEMIS_OK == st) {
        window_t w;
        st = solve_window(s, steps, NULL, 0, &w, why, len);
        if (THEMIS_OK == st) {
            st = commit(s, &w.sends, base, all, why, len);
        }
        uint32_t got = w.arrivals;
        free(w.sends.v);
        if (0 == got) {
            break;      /* nothing fits in a window, or no time left */
        }
        base += steps;
    }
    return st;
}

themis_status_t themis_tacos_ilp_allgather(const themis_graph_t *g, uint32_t k,
                                           uint64_t chunk_bytes,
                                           const themis_tacos_ilp_opts_t *o,
                                           themis_tacos_ag_t *out, themis_tacos_ilp_info_t *info,
                                           char *why, size_t len)
{
    ilp_t s;
    themis_tacos_ag_t greedy;
    isends_t heur = {0}, all = {0};
    themis_status_t st;
    uint64_t t0 = themis_now_ns();

    memset(out, 0, sizeof(*out));
    memset(info, 0, sizeof(*info));
    memset(&s, 0, sizeof(s));
    if (g->nnodes > THEMIS_TACOS_ILP_MAX_NODES) {
        snprintf(why, len, "TACOS-ILP takes graphs of up to %u NPUs, this one has %u: use the "
                 "greedy", THEMIS_TACOS_ILP_MAX_NODES, g->nnodes);
        return THEMIS_ERR_INVALID;
    }
    if (0 == o->time_limit_ms) {
        snprintf(why, len, "TACOS-ILP needs a time limit of at least 1 ms");
        return THEMIS_ERR_INVALID;
    }
    /* The greedy checks the rest of the arguments and is the incumbent. */
    st = themis_tacos_allgather(g, k, chunk_bytes, o->greedy_seeds, &greedy, why, len);
    if (THEMIS_OK != st) {
        return st;
    }
    s.g = g;
    s.n = g->nnodes;
    s.k = k;
    s.C = g->nnodes * k;
    s.L = g->nlinks;
    s.need = greedy.nsends;
    s.deadline_ns = t0 + (uint64_t) o->time_limit_ms * 1000000ull;
    size_t nl = s.L ? s.L : 1;
    s.d = calloc(nl, sizeof(*s.d));
    s.held = calloc((size_t) s.C * s.n, 1);
    s.avail = malloc((size_t) s.C * s.n * sizeof(*s.avail));
    s.lfree = calloc(nl, sizeof(*s.lfree));
    if (NULL == s.d || NULL == s.held || NULL == s.avail || NULL == s.lfree) {
        st = THEMIS_ERR_NOMEM;
    }
    /* One step: the cheapest working link's cost. */
    themis_time_t step = UINT64_MAX;
    for (uint32_t l = 0; THEMIS_OK == st && l < s.L; ++l) {
        if (themis_graph_link_working(g, l)) {
            themis_time_t cost = themis_tacos_ser_ps(chunk_bytes, g->links[l].bw_bps)
                                 + g->links[l].lat_ps;
            step = cost < step ? cost : step;
        }
    }
    for (uint32_t l = 0; THEMIS_OK == st && l < s.L; ++l) {
        if (themis_graph_link_working(g, l)) {
            themis_time_t cost = themis_tacos_ser_ps(chunk_bytes, g->links[l].bw_bps)
                                 + g->links[l].lat_ps;
            themis_time_t d = (cost + step - 1) / step;
            if (d > 1024) {
                snprintf(why, len, "link %u takes %llu TEN steps: too heterogeneous for the ILP",
                         l, (unsigned long long) d);
                st = THEMIS_ERR_INVALID;
            }
            s.d[l] = (uint32_t) d;
        }
    }
    for (uint32_t c = 0; THEMIS_OK == st && c < s.C; ++c) {
        for (uint32_t v = 0; v < s.n; ++v) {
            s.held[(size_t) c * s.n + v] = v == c / k;
            s.avail[(size_t) c * s.n + v] = v == c / k ? 0 : NONE;
        }
    }
    if (THEMIS_OK == st) {
        info->step_ps = step;
        st = greedy_steps(&s, &greedy, &heur, &info->greedy_steps);
    }
    if (THEMIS_OK == st) {
        info->lower_steps = lower_steps(&s);
        if (0 == o->cluster_steps) {
            st = search_full(&s, &heur, info->lower_steps, info->greedy_steps, &all, info, why,
                             len);
        } else {
            st = search_clustered(&s, o->cluster_steps, &all, why, len);
        }
    }
    if (THEMIS_OK == st && 0 != s.need) {
        info->optimal = 0;
        st = recover(&s, &all, &info->recovered);
    }
    info->solves = s.solves;
    info->max_cols = s.max_cols;
    if (THEMIS_OK == st && all.n > 1) {
        qsort(all.v, all.n, sizeof(*all.v), cmp_isend);
    }
    if (THEMIS_OK == st) {
        out->sends = malloc((all.n ? all.n : 1) * sizeof(*out->sends));
        if (NULL == out->sends) {
            st = THEMIS_ERR_NOMEM;
        }
    }
    if (THEMIS_OK == st) {
        out->nnodes = s.n;
        out->k = k;
        out->nchunks = s.C;
        out->nsends = all.n;
        out->seed = greedy.seed;
        out->link_order = 1;
        for (uint32_t i = 0; i < all.n; ++i) {
            const isend_t *x = &all.v[i];
            out->sends[i] = (themis_tacos_send_t) {
                .link = x->l, .chunk = x->c, .start_ps = (themis_time_t) x->t * step,
                .arrive_ps = (themis_time_t) (x->t + s.d[x->l]) * step};
            out->time_ps = out->sends[i].arrive_ps > out->time_ps ? out->sends[i].arrive_ps
                                                                  : out->time_ps;
            info->steps = x->t + s.d[x->l] > info->steps ? x->t + s.d[x->l] : info->steps;
        }
        /* reaching the proven bound is optimal whichever way it was found */
        info->optimal = info->optimal || info->steps == info->lower_steps;
        if (all.n != greedy.nsends) {
            snprintf(why, len, "the ILP delivered %u chunks of %u", all.n, greedy.nsends);
            st = THEMIS_ERR_INVALID;
        }
    }
    if (THEMIS_OK != st) {
        themis_tacos_ag_free(out);
    }
    themis_tacos_ag_free(&greedy);
    free(heur.v);
    free(all.v);
    ilp_free(&s);
    return st;
}

typedef struct {
    uint32_t k;
    uint64_t chunk_bytes;
    const themis_tacos_ilp_opts_t *o;
    themis_tacos_ilp_info_t *info;
    uint64_t deadline_ns;
    uint32_t halves;
    themis_tacos_ag_t kept[2];      /* copies of the halves, in call order */
} ilp_ctx_t;

static themis_status_t ilp_ag(const themis_graph_t *g, void *ctx, themis_tacos_ag_t *out,
                              char *why, size_t len)
{
    ilp_ctx_t *c = ctx;
    themis_tacos_ilp_opts_t o = *c->o;
    themis_tacos_ilp_info_t one;
    uint64_t t = themis_now_ns();
    /* both halves share the budget; a spent budget leaves 1 ms */
    uint64_t left = t < c->deadline_ns ? (c->deadline_ns - t) / 1000000u : 0;
    o.time_limit_ms = 0 == left ? 1 : (uint32_t) left;
    themis_status_t st = themis_tacos_ilp_allgather(g, c->k, c->chunk_bytes, &o, out, &one, why,
                                                    len);
    if (THEMIS_OK == st) {
        themis_tacos_ilp_info_t *i = c->info;
        themis_tacos_ag_t *k = &c->kept[c->halves];
        i->step_ps = one.step_ps;
        i->steps += one.steps;
        i->lower_steps += one.lower_steps;
        i->greedy_steps += one.greedy_steps;
        i->optimal = (0 == c->halves++ ? 1 : i->optimal) && one.optimal;
        i->solves += one.solves;
        i->recovered += one.recovered;
        i->max_cols = one.max_cols > i->max_cols ? one.max_cols : i->max_cols;
        *k = *out;
        k->sends = malloc((out->nsends ? out->nsends : 1) * sizeof(*k->sends));
        if (NULL == k->sends) {
            return THEMIS_ERR_NOMEM;
        }
        memcpy(k->sends, out->sends, out->nsends * sizeof(*k->sends));
        k->link_order = 0;
    }
    return st;
}

themis_status_t themis_tacos_ilp_synthesize(const themis_graph_t *g, themis_coll_t coll,
                                            uint32_t k, uint64_t chunk_bytes,
                                            const themis_tacos_ilp_opts_t *o,
                                            themis_xfer_sched_t *out,
                                            themis_tacos_ilp_info_t *info, char *why, size_t len)
{
    memset(info, 0, sizeof(*info));
    if (0 == o->time_limit_ms) {
        memset(out, 0, sizeof(*out));
        snprintf(why, len, "TACOS-ILP needs a time limit of at least 1 ms");
        return THEMIS_ERR_INVALID;
    }
    ilp_ctx_t c = {.k = k, .chunk_bytes = chunk_bytes, .o = o, .info = info,
                   .deadline_ns = themis_now_ns() + (uint64_t) o->time_limit_ms * 1000000ull};
    themis_status_t st = themis_tacos_synthesize_with(g, coll, chunk_bytes, ilp_ag, &c, out, why,
                                                      len);
    themis_xfer_sched_t free_order;
    themis_tacos_ag_t mirror;
    /* called for the All-Gather on g first, then on the transpose */
    const themis_tacos_ag_t *fwd = &c.kept[0], *rev = &c.kept[2 == c.halves ? 1 : 0];
    memset(&free_order, 0, sizeof(free_order));
    memset(&mirror, 0, sizeof(mirror));
    if (THEMIS_OK == st && THEMIS_COLL_ALLGATHER != coll && 1 == c.halves) {
        /* symmetric g: one All-Gather on g, mirrored for the
         * reduce-scatter, which takes as many steps; else (reduce-scatter)
         * the All-Gather on g's transpose */
        st = themis_tacos_mirror(g, &c.kept[0], &mirror);
        rev = THEMIS_OK == st ? &mirror : rev;
        st = THEMIS_ERR_UNSUPPORTED == st ? THEMIS_OK : st;
        if (THEMIS_COLL_ALLREDUCE == coll) {
            info->steps *= 2;
            info->lower_steps *= 2;
            info->greedy_steps *= 2;
        }
    }
    if (THEMIS_OK == st) {
        /* The same sends without the link order: the link simulator may
         * find them faster (a link kept in order idles during a latency). */
        st = themis_tacos_schedule(g, THEMIS_COLL_ALLGATHER != coll ? rev : NULL,
                                   THEMIS_COLL_REDUCE_SCATTER != coll ? fwd : NULL, coll,
                                   &free_order);
    }
    themis_tacos_ag_free(&mirror);
    info->link_order = 1;
    if (THEMIS_OK == st
        && themis_tacos_simulated(g, &free_order, chunk_bytes)
               < themis_tacos_simulated(g, out, chunk_bytes)) {
        themis_xfer_free(out);
        *out = free_order;
        memset(&free_order, 0, sizeof(free_order));
        info->link_order = 0;
    }
    themis_xfer_free(&free_order);
    if (THEMIS_OK == st) {
        st = themis_link_sim_order(g, out, chunk_bytes, why, len);
    }
    /* Optimal in TEN steps is not fastest in the simulator's finer model
     * (rounded-up links, a latency held): the greedy's own schedule, the
     * ILP's incumbent, competes as it is, and the faster one is returned
     * (the ILP's on a tie). */
    themis_xfer_sched_t greedy;
    memset(&greedy, 0, sizeof(greedy));
    if (THEMIS_OK == st) {
        st = themis_tacos_synthesize(g, coll, k, chunk_bytes, o->greedy_seeds, &greedy, why, len);
    }
    if (THEMIS_OK == st) {
        info->ilp_ps = themis_tacos_simulated(g, out, chunk_bytes);
        info->greedy_ps = themis_tacos_simulated(g, &greedy, chunk_bytes);
        if (info->greedy_ps < info->ilp_ps) {
            themis_xfer_free(out);
            *out = greedy;
            memset(&greedy, 0, sizeof(greedy));
            info->greedy_won = 1;
        }
    }
    themis_xfer_free(&greedy);
    themis_tacos_ag_free(&c.kept[0]);
    themis_tacos_ag_free(&c.kept[1]);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}
