/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * TACOS schedules from All-Gathers (tacos.h): the reduce-scatter as an
 * All-Gather reversed in time, the allreduce as both, the synthesis that
 * picks their forms by the link simulator.
 */
#include "tacos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link_sim.h"
#include "route_table.h"
#include "xfer_tracker.h"

/* The REDUCEs that fold the contributions node v received for chunk c
 * (scratch units on the list from pend[v * nchunks + c]) into its INPUT
 * unit c; the last one also after transfer `after`.  Its index in *idx
 * (unchanged without contributions). */
static themis_status_t fold(themis_xfer_tracker_t *tr, uint32_t v, uint32_t c, uint32_t nchunks,
                            uint32_t *pend, const uint32_t *next, const uint64_t *unit,
                            uint32_t after, uint32_t *idx)
{
    themis_status_t st = THEMIS_OK;
    size_t at = (size_t) v * nchunks + c;
    for (uint32_t e = pend[at]; UINT32_MAX != e && THEMIS_OK == st; e = next[e]) {
        st = themis_xfer_tracker_add_after(tr, UINT32_MAX == next[e] ? after : UINT32_MAX, v, v,
                                           THEMIS_XFER_REDUCE, THEMIS_BUF_SCRATCH, unit[e],
                                           THEMIS_BUF_INPUT, c, 1, idx);
    }
    pend[at] = UINT32_MAX;
    return st;
}

/* Reduce-scatter part: rev's sends (an All-Gather on the transpose)
 * reversed, each child's partial sum into a scratch unit of its parent,
 * folded into the parent's INPUT unit just before the parent sends it on;
 * then each owner's copy to its OUTPUT (whole: the allreduce's OUTPUT is
 * the whole vector; else the owner's own chunks).
 * rev->link_order: each link sends in rev's order reversed, without
 * waiting for one send to arrive before the next starts: what makes a
 * send ready (the last REDUCE before it, else what made its link's
 * previous send ready) also waits for what made the previous send ready,
 * so no send is ready before its predecessor and a link (the first to
 * arrive, ties to the lower index) keeps the order.  The exact time
 * reversal of rev is then a valid timing, and the link simulator, which
 * starts each send as early as that allows, takes no longer than rev.
 * chain (or NULL): the owners' copies one after another, the index of the
 * last, which ends the reduce-scatter, in *chain; copies (or NULL): each
 * chunk's owner copy's index. */
static themis_status_t reduce_part(themis_xfer_tracker_t *tr, const themis_graph_t *g,
                                   const themis_tacos_ag_t *ag, int whole, uint64_t *slot,
                                   uint32_t *ready, uint32_t *chain, uint32_t *copies)
{
    themis_status_t st = THEMIS_OK;
    uint32_t none = UINT32_MAX, *end = NULL != chain ? chain : &none;
    uint32_t nc = ag->nchunks;
    uint32_t *pend = malloc((size_t) ag->nnodes * nc * sizeof(*pend));
    uint32_t *next = malloc((ag->nsends ? ag->nsends : 1) * sizeof(*next));
    uint64_t *unit = malloc((ag->nsends ? ag->nsends : 1) * sizeof(*unit));
    if (NULL == pend || NULL == next || NULL == unit) {
        st = THEMIS_ERR_NOMEM;
    } else {
        memset(pend, 0xff, (size_t) ag->nnodes * nc * sizeof(*pend));
    }
    for (uint32_t i = ag->nsends; i-- > 0 && THEMIS_OK == st;) {
        const themis_tacos_send_t *x = &ag->sends[i];
        /* a send parent -> child on the transpose: link child -> parent */
        uint32_t parent = g->links[x->link].dst, child = g->links[x->link].src;
        uint32_t mark = UINT32_MAX, *r = ag->link_order ? &ready[x->link] : &mark;
        uint32_t prev = *r;
        st = fold(tr, child, x->chunk, nc, pend, next, unit, *r, r);
        if (THEMIS_OK == st) {
            unit[i] = slot[parent]++;
            st = themis_xfer_tracker_add_after(tr, prev == *r ? prev : UINT32_MAX, child, parent,
                                               THEMIS_XFER_COPY, THEMIS_BUF_INPUT, x->chunk,
                                               THEMIS_BUF_SCRATCH, unit[i], 1, NULL);
        }
        next[i] = pend[(size_t) parent * nc + x->chunk];
        pend[(size_t) parent * nc + x->chunk] = i;
    }
    for (uint32_t c = 0; c < nc && THEMIS_OK == st; ++c) {
        uint32_t o = c / ag->k;
        st = fold(tr, o, c, nc, pend, next, unit, UINT32_MAX, NULL);
        if (THEMIS_OK == st) {
            uint32_t at = UINT32_MAX;
            st = themis_xfer_tracker_add_after(tr, *end, o, o, THEMIS_XFER_COPY,
                                               THEMIS_BUF_INPUT, c, THEMIS_BUF_OUTPUT,
                                               whole ? c : c - o * ag->k, 1, &at);
            *end = NULL != chain ? at : *end;
            if (NULL != copies) {
                copies[c] = at;
            }
        }
    }
    free(pend);
    free(next);
    free(unit);
    return st;
}

/* A schedule up to the end of its reduce-scatter part: the list so far,
 * its tracker and the transfer that ends the reduce-scatter (UINT32_MAX:
 * none).  The same for every All-Gather part with the same after_all, so
 * an allreduce's forms make it once (synthesize). */
typedef struct {
    int made;
    const themis_tacos_ag_t *rev;
    uint8_t link_order, after_all;   /* rev's and fwd's when made */
    themis_xfer_sched_t s;
    themis_xfer_tracker_t tr;
    uint32_t end;
    uint32_t *copies;   /* [nchunks] each chunk's owner copy */
    /* after_all: the simulated time of end, once known (after_all_bound) */
    uint8_t has_time;
    themis_time_t time;
    /* the part's chain bound and its owner copies' bounded finishes
     * (reduced_bound), once known */
    uint8_t has_fin;
    themis_time_t lb, *copy_fin;
} rs_prefix_t;

static void rs_prefix_free(rs_prefix_t *p)
{
    if (p->made) {
        themis_xfer_tracker_free(&p->tr);
        themis_xfer_free(&p->s);
    }
    free(p->copies);
    free(p->copy_fin);
    memset(p, 0, sizeof(*p));
}

static int schedule_args_ok(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                            const themis_tacos_ag_t *fwd, themis_coll_t coll)
{
    const themis_tacos_ag_t *any = NULL != rev ? rev : fwd;
    return !((THEMIS_COLL_ALLREDUCE != coll && THEMIS_COLL_REDUCE_SCATTER != coll
              && THEMIS_COLL_ALLGATHER != coll)
             || (THEMIS_COLL_ALLGATHER != coll && NULL == rev)
             || (THEMIS_COLL_REDUCE_SCATTER != coll && NULL == fwd) || g->nnodes != any->nnodes
             || (NULL != rev && NULL != fwd && (rev->nnodes != fwd->nnodes || rev->k != fwd->k)));
}

/* p: the list and tracker set up for coll, with the reduce-scatter part
 * of rev (allreduce, reduce-scatter) made; p->end as fwd->after_all asks.
 * Arguments checked (schedule_args_ok).  THEMIS_ERR_NOMEM. */
static themis_status_t schedule_begin(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                                      const themis_tacos_ag_t *fwd, themis_coll_t coll,
                                      rs_prefix_t *p)
{
    const themis_tacos_ag_t *any = NULL != rev ? rev : fwd;
    themis_status_t st;
    uint32_t n = any->nnodes, k = any->k, nchunks = any->nchunks;
    uint64_t *slot = calloc(n, sizeof(*slot));
    uint32_t *last = malloc((g->nlinks ? g->nlinks : 1) * sizeof(*last));

    memset(p, 0, sizeof(*p));
    p->copies = THEMIS_COLL_ALLREDUCE == coll ? malloc((size_t) nchunks * sizeof(*p->copies))
                                              : NULL;
    p->rev = rev;
    p->link_order = NULL != rev && rev->link_order;
    p->after_all = NULL != fwd && fwd->after_all;
    p->end = UINT32_MAX;
    for (uint32_t l = 0; NULL != last && l < g->nlinks; ++l) {
        last[l] = UINT32_MAX;
    }
    if (NULL == slot || NULL == last || (THEMIS_COLL_ALLREDUCE == coll && NULL == p->copies)) {
        free(slot);
        free(last);
        free(p->copies);
        p->copies = NULL;
        return THEMIS_ERR_NOMEM;
    }
    /* Scratch: one unit per reduce-scatter message a node receives, the
     * number of sends it makes in the All-Gather on the transpose. */
    uint64_t most = 0;
    for (uint32_t i = 0; THEMIS_COLL_ALLGATHER != coll && i < rev->nsends; ++i) {
        uint64_t c = ++slot[g->links[rev->sends[i].link].dst];
        most = c > most ? c : most;
    }
    memset(slot, 0, n * sizeof(*slot));
    themis_xfer_init(&p->s, coll, n, nchunks);
    p->s.buf_units[THEMIS_BUF_INPUT] = THEMIS_COLL_ALLGATHER == coll ? k : nchunks;
    p->s.buf_units[THEMIS_BUF_OUTPUT] = THEMIS_COLL_REDUCE_SCATTER == coll ? k : nchunks;
    p->s.buf_units[THEMIS_BUF_SCRATCH] = most;
    st = themis_xfer_tracker_init(&p->tr, &p->s);
    p->made = 1;
    if (THEMIS_OK == st && THEMIS_COLL_ALLGATHER != coll) {
        st = reduce_part(&p->tr, g, rev, THEMIS_COLL_ALLREDUCE == coll, slot, last,
                         THEMIS_COLL_ALLREDUCE == coll && fwd->after_all ? &p->end : NULL,
                         p->copies);
    }
    free(slot);
    free(last);
    if (THEMIS_OK != st) {
        rs_prefix_free(p);
    }
    return st;
}

/* The rest of the schedule after p (its list and tracker, taken over):
 * the All-Gather part of fwd into out. */
static themis_status_t schedule_finish(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                                       const themis_tacos_ag_t *fwd, themis_coll_t coll,
                                       rs_prefix_t *p, themis_xfer_sched_t *out)
{
    const themis_tacos_ag_t *any = NULL != rev ? rev : fwd;
    themis_status_t st = THEMIS_OK;
    uint32_t n = any->nnodes, k = any->k, end = p->end;
    uint32_t *last = malloc((g->nlinks ? g->nlinks : 1) * sizeof(*last));

    for (uint32_t l = 0; NULL != last && l < g->nlinks; ++l) {
        last[l] = UINT32_MAX;
    }
    if (NULL == last) {
        st = THEMIS_ERR_NOMEM;
    }
    snprintf(p->s.name, sizeof(p->s.name), "tacos %s k=%u seeds %d/%d", themis_coll_name(coll),
             k, NULL != rev ? (int) rev->seed : -1, NULL != fwd ? (int) fwd->seed : -1);
    for (uint32_t r = 0; THEMIS_OK == st && THEMIS_COLL_ALLGATHER == coll && r < n; ++r) {
        st = themis_xfer_tracker_add(&p->tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, 0,
                                     THEMIS_BUF_OUTPUT, (uint64_t) r * k, k);
    }
    for (uint32_t i = 0; THEMIS_OK == st && THEMIS_COLL_REDUCE_SCATTER != coll && i < fwd->nsends;
         ++i) {
        const themis_tacos_send_t *x = &fwd->sends[i];
        uint32_t u = g->links[x->link].src, v = g->links[x->link].dst;
        /* An All-Gather's owner sends from its input, so its first sends
         * need not wait for its local copy. */
        int from_input = THEMIS_COLL_ALLGATHER == coll && u == x->chunk / k;
        uint32_t after = fwd->link_order ? last[x->link] : UINT32_MAX;
        if (UINT32_MAX == after && u == x->chunk / k) {
            after = end;
        }
        st = themis_xfer_tracker_add_after(&p->tr, after, u,
                                           v, THEMIS_XFER_COPY,
                                           from_input ? THEMIS_BUF_INPUT : THEMIS_BUF_OUTPUT,
                                           from_input ? x->chunk - u * k : x->chunk,
                                           THEMIS_BUF_OUTPUT, x->chunk, 1,
                                           fwd->link_order ? &last[x->link] : NULL);
    }
    /* the list is out's; the rest goes */
    *out = p->s;
    memset(&p->s, 0, sizeof(p->s));
    rs_prefix_free(p);
    free(last);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}

themis_status_t themis_tacos_schedule(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                                      const themis_tacos_ag_t *fwd, themis_coll_t coll,
                                      themis_xfer_sched_t *out)
{
    rs_prefix_t p;
    memset(out, 0, sizeof(*out));
    if (!schedule_args_ok(g, rev, fwd, coll)) {
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = schedule_begin(g, rev, fwd, coll, &p);
    return THEMIS_OK == st ? schedule_finish(g, rev, fwd, coll, &p, out) : st;
}

themis_status_t themis_tacos_transpose(const themis_graph_t *g, themis_graph_t *out)
{
    char why[128];
    themis_status_t st = themis_graph_init(out, g->nnodes);
    for (uint32_t l = 0; THEMIS_OK == st && l < g->nlinks; ++l) {
        st = themis_graph_add_link(out, g->links[l].dst, g->links[l].src, g->links[l].bw_bps,
                                   g->links[l].lat_ps);
    }
    if (THEMIS_OK == st) {
        st = themis_graph_finish(out, why, sizeof(why));
    }
    for (uint32_t l = 0; THEMIS_OK == st && l < g->nlinks; ++l) {
        out->links[l].failed = g->links[l].failed;
    }
    for (uint32_t v = 0; THEMIS_OK == st && v < g->nnodes; ++v) {
        out->node_failed[v] = g->node_failed[v];
    }
    if (THEMIS_OK != st) {
        themis_graph_free(out);
    }
    return st;
}

/* mate[l]: the reverse link paired with l (tacos.h, themis_tacos_mirror);
 * 0 when some link has none. */
static int pair_reverses(const themis_graph_t *g, uint32_t *mate)
{
    for (uint32_t l = 0; l < g->nlinks; ++l) {
        mate[l] = UINT32_MAX;
    }
    for (uint32_t l = 0; l < g->nlinks; ++l) {
        const themis_link_t *a = &g->links[l];
        uint32_t v = a->dst;
        for (uint32_t i = g->out_first[v]; UINT32_MAX == mate[l] && i < g->out_first[v + 1];
             ++i) {
            uint32_t r = g->out_links[i];
            const themis_link_t *b = &g->links[r];
            if (r != l && UINT32_MAX == mate[r] && b->dst == a->src && b->bw_bps == a->bw_bps
                && b->lat_ps == a->lat_ps && b->failed == a->failed) {
                mate[l] = r;
                mate[r] = l;
            }
        }
        if (UINT32_MAX == mate[l]) {
            return 0;
        }
    }
    return 1;
}

static int symmetric(const themis_graph_t *g)
{
    uint32_t *mate = malloc((g->nlinks ? g->nlinks : 1) * sizeof(*mate));
    int yes = NULL != mate && pair_reverses(g, mate);
    free(mate);
    return yes;
}

themis_status_t themis_tacos_mirror(const themis_graph_t *g, const themis_tacos_ag_t *ag,
                                    themis_tacos_ag_t *out)
{
    uint32_t *mate = malloc((g->nlinks ? g->nlinks : 1) * sizeof(*mate));
    themis_status_t st = THEMIS_OK;

    memset(out, 0, sizeof(*out));
    if (NULL == mate) {
        return THEMIS_ERR_NOMEM;
    }
    if (!pair_reverses(g, mate)) {
        st = THEMIS_ERR_UNSUPPORTED;
    } else {
        *out = *ag;
        out->sends = malloc((ag->nsends ? ag->nsends : 1) * sizeof(*out->sends));
        if (NULL == out->sends) {
            memset(out, 0, sizeof(*out));
            st = THEMIS_ERR_NOMEM;
        }
        for (uint32_t i = 0; THEMIS_OK == st && i < ag->nsends; ++i) {
            out->sends[i] = ag->sends[i];
            out->sends[i].link = mate[ag->sends[i].link];
        }
    }
    free(mate);
    return st;
}

themis_time_t themis_tacos_simulated(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                    uint64_t chunk_bytes)
{
    themis_link_sim_t sim;
    char why[128];
    themis_time_t t = THEMIS_OK == themis_link_sim(g, s, chunk_bytes, &sim, why, sizeof(why))
                          ? sim.total_ps
                          : UINT64_MAX;
    themis_link_sim_free(&sim);
    return t;
}

/* Reduce-scatter parts an allreduce's forms share: two All-Gathers on the
 * transpose (rev and, on small graphs, alt[0]), each with and without
 * after_all. */
#define KEPT_PREFIXES 4

/* An All-Gather part alone (fwd in one link order) as an after-all form's
 * second half (after_all_bound): a lower bound of its time and, once
 * simulated, the time. */
typedef struct {
    const themis_tacos_ag_t *fwd;
    uint8_t link_order;
    uint8_t has_lb, has_time, has_s;
    themis_time_t lb, time;
    themis_xfer_sched_t s;   /* the allgather of fwd (ag_alone), once made */
} ag_half_t;

/* fwd and, on small graphs, alt[1], each in both link orders. */
#define KEPT_HALVES 4

/* The schedule kept so far, its simulated time and, where the caller
 * wants them (starts non-NULL), its transfers' simulated starts; the
 * graph's routes for bounds (NULL: none). */
typedef struct {
    themis_xfer_sched_t *out;
    int have;
    themis_time_t best;
    themis_time_t **starts;
    const themis_route_table_t *routes;
    /* an allreduce's reduce-scatter parts made so far (schedule_shared) */
    rs_prefix_t prefix[KEPT_PREFIXES];
    int nprefix;
    ag_half_t half[KEPT_HALVES];
    int nhalf;
} kept_t;

/* The reduce-scatter part made for rev and fwd's after_all, or NULL. */
static rs_prefix_t *prefix_made(const themis_tacos_ag_t *rev, const themis_tacos_ag_t *fwd,
                                kept_t *k)
{
    for (int i = 0; i < k->nprefix; ++i) {
        const rs_prefix_t *q = &k->prefix[i];
        if (q->rev == rev && q->link_order == rev->link_order && q->after_all == fwd->after_all) {
            return &k->prefix[i];
        }
    }
    return NULL;
}

/* The same, made now where none is and there is room. */
static themis_status_t prefix_for(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                                  const themis_tacos_ag_t *fwd, kept_t *k, rs_prefix_t **out)
{
    themis_status_t st = THEMIS_OK;
    *out = prefix_made(rev, fwd, k);
    if (NULL == *out && KEPT_PREFIXES > k->nprefix) {
        st = schedule_begin(g, rev, fwd, THEMIS_COLL_ALLREDUCE, &k->prefix[k->nprefix]);
        if (THEMIS_OK == st) {
            *out = &k->prefix[k->nprefix++];
        }
    }
    return st;
}

/* fwd's All-Gather part in its link order (a new entry where there is
 * room), or NULL. */
static ag_half_t *half_for(const themis_tacos_ag_t *fwd, kept_t *k)
{
    for (int i = 0; i < k->nhalf; ++i) {
        if (k->half[i].fwd == fwd && k->half[i].link_order == fwd->link_order) {
            return &k->half[i];
        }
    }
    if (KEPT_HALVES == k->nhalf) {
        return NULL;
    }
    ag_half_t *h = &k->half[k->nhalf++];
    memset(h, 0, sizeof(*h));
    h->fwd = fwd;
    h->link_order = fwd->link_order;
    return h;
}

static themis_time_t sum_sat(themis_time_t a, themis_time_t b)
{
    return a < UINT64_MAX - b ? a + b : UINT64_MAX;
}

/* An after-all allreduce form's time is its two halves' sum.  Its
 * reduce-scatter part ends with the last owner copy (end), after every
 * other transfer of the part, and every All-Gather send waits for end by
 * a chain of dependencies (an owner's sends for end or, in link order,
 * for the link's previous send; another node's for the chunk's arrival;
 * the part writes only OUTPUT units the reduce-scatter leaves alone).
 * When end finishes every link is idle, so the All-Gather part runs as
 * the allgather of fwd alone does from 0 (its owners' sends ready at
 * once), shifted: the same transfers in the same relative order (the
 * simulator's ties) with the same dependencies among them.  So both
 * halves are simulated once for all the forms that share them (an 8x8
 * torus: two of each for four forms), or taken from a form simulated
 * whole (record_halves). */
static themis_status_t ag_alone(const themis_graph_t *g, ag_half_t *h)
{
    themis_status_t st = THEMIS_OK;
    if (!h->has_s) {
        st = themis_tacos_schedule(g, NULL, h->fwd, THEMIS_COLL_ALLGATHER, &h->s);
        h->has_s = THEMIS_OK == st;
    }
    return st;
}

/* *lb: a lower bound of the after-all form (rev, fwd)'s time, exact where
 * both halves' times are known; 0 while neither half is (the form is then
 * simulated whole and records both). */
static themis_status_t after_all_bound(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                                       const themis_tacos_ag_t *fwd, uint64_t chunk_bytes,
                                       kept_t *k, themis_time_t *lb)
{
    rs_prefix_t *c = NULL;
    ag_half_t *h = half_for(fwd, k);
    themis_status_t st = THEMIS_OK;

    *lb = 0;
    /* rev's reduce-scatter part for either form: the same transfers, and
     * the chain of local copies (after_all) adds no time to its end, so
     * both take as long; one timed already, else one made already */
    for (int i = 0; i < k->nprefix; ++i) {
        rs_prefix_t *q = &k->prefix[i];
        if (q->rev == rev && q->link_order == rev->link_order
            && (NULL == c || (q->has_time && !c->has_time))) {
            c = q;
        }
    }
    if (NULL == c) {
        st = prefix_for(g, rev, fwd, k, &c);
    }
    if (THEMIS_OK != st || NULL == c || NULL == h || (!c->has_time && !h->has_time)) {
        return st;
    }
    if (!c->has_time) {
        c->time = themis_tacos_simulated(g, &c->s, chunk_bytes);
        c->has_time = UINT64_MAX != c->time;
    }
    if (!c->has_time) {
        return THEMIS_OK;
    }
    /* the second half's chain bound first: it often settles the form */
    if (!h->has_time && !h->has_lb && NULL != k->routes) {
        st = ag_alone(g, h);
        h->has_lb = THEMIS_OK == st
                    && THEMIS_OK == themis_route_chain_bound(k->routes, &h->s, chunk_bytes,
                                                             &h->lb);
    }
    if (!h->has_time && THEMIS_ERR_NOMEM != st
        && (!h->has_lb || sum_sat(c->time, h->lb) < k->best)) {
        st = ag_alone(g, h);
        h->time = THEMIS_OK == st ? themis_tacos_simulated(g, &h->s, chunk_bytes) : UINT64_MAX;
        h->has_time = UINT64_MAX != h->time;
    }
    if (THEMIS_ERR_NOMEM == st) {
        return st;
    }
    *lb = sum_sat(c->time, h->has_time ? h->time : h->has_lb ? h->lb : 0);
    return THEMIS_OK;
}

/* Both halves' times from the after-all form (rev, fwd) simulated whole
 * (sim): its reduce-scatter part's end and the rest. */
static void record_halves(const themis_tacos_ag_t *rev, const themis_tacos_ag_t *fwd,
                          const themis_link_sim_t *sim, kept_t *k)
{
    rs_prefix_t *c = prefix_made(rev, fwd, k);
    ag_half_t *h = half_for(fwd, k);
    if (NULL == c || NULL == h || UINT32_MAX == c->end || c->end >= sim->nxfers) {
        return;
    }
    c->time = sim->finish_ps[c->end];
    c->has_time = 1;
    h->time = sim->total_ps - c->time;
    h->has_time = 1;
}

/* *lb: the chain bound (themis_route_chain_bound) of the form (rev, fwd)
 * whose All-Gather part starts each chunk once reduced, without making
 * it: its reduce-scatter part's (once per rev), then the allgather of
 * fwd (once per fwd and link order) with each owner's sends ready when
 * the part's bound has its owner copy done (they read what it wrote).
 * The same dependencies, so the same bound; 0 where it cannot tell. */
static themis_status_t reduced_bound(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                                     const themis_tacos_ag_t *fwd, uint64_t chunk_bytes,
                                     kept_t *k, themis_time_t *lb)
{
    rs_prefix_t *c = NULL;
    ag_half_t *h = half_for(fwd, k);
    themis_status_t st = NULL != k->routes && NULL != h ? prefix_for(g, rev, fwd, k, &c)
                                                        : THEMIS_OK;
    themis_time_t *fins = NULL, *ready = NULL, ag = 0;

    *lb = 0;
    if (THEMIS_OK != st || NULL == c || NULL == c->copies) {
        return st;
    }
    if (!c->has_fin) {
        fins = malloc(((size_t) c->s.nxfers + 1) * sizeof(*fins));
        c->copy_fin = NULL != c->copy_fin ? c->copy_fin
                                          : malloc((size_t) fwd->nchunks * sizeof(*c->copy_fin));
        if (NULL == fins || NULL == c->copy_fin) {
            free(fins);
            return THEMIS_ERR_NOMEM;
        }
        st = themis_route_chain_fins(k->routes, &c->s, chunk_bytes, NULL, fins, &c->lb);
        for (uint32_t ch = 0; THEMIS_OK == st && ch < fwd->nchunks; ++ch) {
            c->copy_fin[ch] = fins[c->copies[ch]];
        }
        c->has_fin = THEMIS_OK == st;
        free(fins);
    }
    st = c->has_fin ? ag_alone(g, h) : st;
    if (THEMIS_OK != st || !c->has_fin) {
        return THEMIS_ERR_NOMEM == st ? st : THEMIS_OK;
    }
    /* the allgather's sends come last, in fwd's order */
    const uint32_t first = h->s.nxfers - fwd->nsends;
    ready = calloc((size_t) h->s.nxfers + 1, sizeof(*ready));
    if (NULL == ready) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < fwd->nsends; ++i) {
        const themis_tacos_send_t *x = &fwd->sends[i];
        if (g->links[x->link].src == x->chunk / fwd->k) {
            ready[first + i] = c->copy_fin[x->chunk];
        }
    }
    st = themis_route_chain_fins(k->routes, &h->s, chunk_bytes, ready, NULL, &ag);
    free(ready);
    if (THEMIS_OK == st) {
        *lb = ag > c->lb ? ag : c->lb;
    }
    return THEMIS_ERR_NOMEM == st ? st : THEMIS_OK;
}

/* themis_tacos_schedule of an allreduce into out, its reduce-scatter part
 * made once per (rev, after_all) and copied for every form that shares
 * it: the same list as made afresh. */
static themis_status_t schedule_shared(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                                       const themis_tacos_ag_t *fwd, kept_t *k,
                                       themis_xfer_sched_t *out)
{
    const themis_coll_t coll = THEMIS_COLL_ALLREDUCE;
    rs_prefix_t *c = NULL, p;
    themis_status_t st = THEMIS_OK;

    memset(out, 0, sizeof(*out));
    if (!schedule_args_ok(g, rev, fwd, coll)) {
        return THEMIS_ERR_INVALID;
    }
    st = prefix_for(g, rev, fwd, k, &c);
    if (THEMIS_OK == st && NULL == c) {
        return themis_tacos_schedule(g, rev, fwd, coll, out);
    }
    memset(&p, 0, sizeof(p));
    if (THEMIS_OK == st) {
        st = themis_xfer_copy(&c->s, &p.s);
    }
    if (THEMIS_OK == st) {
        st = themis_xfer_tracker_copy(&c->tr, &p.s, &p.tr);
        if (THEMIS_OK != st) {
            themis_xfer_free(&p.s);
        }
    }
    if (THEMIS_OK != st) {
        return st;
    }
    p.made = 1;
    p.end = c->end;
    return schedule_finish(g, rev, fwd, coll, &p, out);
}

/* The schedule of coll from rev and fwd into k->out when it is the first
 * or, for an allreduce, simulates faster than k->best. */
static themis_status_t keep_faster(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                                   const themis_tacos_ag_t *fwd, themis_coll_t coll,
                                   uint64_t chunk_bytes, kept_t *k)
{
    themis_xfer_sched_t s;
    themis_link_sim_t sim;
    char why[128];
    themis_status_t st = THEMIS_OK;
    themis_time_t t = 0, lb = 0;
    /* An All-Reduce form bounded to take as long as the kept one would
     * not be kept: not made (after_all_bound, reduced_bound). */
    if (THEMIS_COLL_ALLREDUCE == coll && k->have) {
        st = fwd->after_all ? after_all_bound(g, rev, fwd, chunk_bytes, k, &lb)
                            : reduced_bound(g, rev, fwd, chunk_bytes, k, &lb);
        if (THEMIS_OK == st && lb >= k->best) {
            return THEMIS_OK;
        }
    }
    if (THEMIS_OK == st) {
        st = THEMIS_COLL_ALLREDUCE == coll ? schedule_shared(g, rev, fwd, k, &s)
                                           : themis_tacos_schedule(g, rev, fwd, coll, &s);
    }
    if (THEMIS_OK != st) {
        return st;
    }
    memset(&sim, 0, sizeof(sim));
    /* An All-Reduce form whose dependency chains alone take as long as
     * the kept one would not be kept: not simulated (its link order or
     * the wait for the whole reduce-scatter often makes it so). */
    if (THEMIS_COLL_ALLREDUCE == coll && k->have && NULL != k->routes
        && (fwd->after_all || 0 == lb)
        && THEMIS_OK == themis_route_chain_bound(k->routes, &s, chunk_bytes, &lb)
        && lb >= k->best) {
        themis_xfer_free(&s);
        return THEMIS_OK;
    }
    if (THEMIS_COLL_ALLREDUCE == coll) {
        t = THEMIS_OK == themis_link_sim(g, &s, chunk_bytes, &sim, why, sizeof(why))
                ? sim.total_ps
                : UINT64_MAX;
    }
    if (THEMIS_COLL_ALLREDUCE == coll && fwd->after_all && UINT64_MAX != t) {
        record_halves(rev, fwd, &sim, k);
    }
    if (!k->have || t < k->best) {
        themis_xfer_free(k->out);
        *k->out = s;
        k->best = t;
        k->have = 1;
        if (NULL != k->starts) {
            /* the winner's starts: themis_tacos_synthesize orders by them
             * without simulating it again */
            free(*k->starts);
            *k->starts = UINT64_MAX != t ? sim.start_ps : NULL;
            sim.start_ps = UINT64_MAX != t ? NULL : sim.start_ps;
        }
    } else {
        themis_xfer_free(&s);
    }
    themis_link_sim_free(&sim);
    return THEMIS_OK;
}

/* Up to this many sends an All-Gather (64 ranks, one chunk each), a
 * symmetric graph's All-Reduce is chosen among the pairs of two
 * All-Gathers (below): a second synthesis and four times the forms, and one
 * more form. */
#define PAIRS_MAX_SENDS (1u << 12)

/* The All-Reduce's All-Gather part starts each chunk when its reduction
 * is done, not all at once as synthesized: in free order or in fwd's link
 * order, each chunk once reduced or after the whole reduce-scatter,
 * whichever the link simulator finds fastest (the order: torus3d:4x4x6 2.8 % faster than free,
 * torus2d:5x5 7 %; free: mesh2d:4x9 0.04 %); the last takes at most both
 * halves, which the others can exceed. */
static themis_status_t allreduce_forms(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                                       themis_tacos_ag_t *fwd, uint64_t chunk_bytes, kept_t *k)
{
    themis_status_t st = THEMIS_OK;
    uint8_t own = fwd->link_order;
    /* fwd's own order and the other one, each chunk once reduced; after
     * the reduce-scatter in its own order, on small graphs also in the
     * other */
    for (int v = 0; THEMIS_OK == st && v < 4; ++v) {
        if (3 == v && fwd->nsends > PAIRS_MAX_SENDS) {
            continue;
        }
        fwd->link_order = 0 == v % 2 ? own : !own;
        fwd->after_all = v >= 2;
        st = keep_faster(g, rev, fwd, THEMIS_COLL_ALLREDUCE, chunk_bytes, k);
    }
    fwd->link_order = own;
    fwd->after_all = 0;
    return st;
}

static themis_status_t greedy_ag(const themis_graph_t *g, void *ctx, themis_tacos_ag_t *out,
                                 char *why, size_t len);


/* themis_tacos_synthesize_with; *starts (starts non-NULL): an
 * allreduce's simulated starts of its transfers, else NULL. */
static themis_status_t synthesize(const themis_graph_t *g, themis_coll_t coll,
                                  uint64_t chunk_bytes, themis_tacos_ag_fn ag, void *ctx,
                                  themis_xfer_sched_t *out, themis_time_t **starts, char *why,
                                  size_t len)
{
    themis_tacos_ag_t rev, fwd, alt[2];
    themis_graph_t t;
    themis_status_t st = THEMIS_OK;
    themis_route_table_t routes;
    kept_t kept = {.out = out, .have = 0, .best = UINT64_MAX, .starts = starts};

    memset(out, 0, sizeof(*out));
    memset(&rev, 0, sizeof(rev));
    memset(&fwd, 0, sizeof(fwd));
    memset(alt, 0, sizeof(alt));
    memset(&t, 0, sizeof(t));
    memset(&routes, 0, sizeof(routes));
    if (THEMIS_COLL_ALLREDUCE == coll) {
        st = themis_route_table_build(g, &routes);
        kept.routes = THEMIS_OK == st ? &routes : NULL;
        st = THEMIS_ERR_NOMEM == st ? st : THEMIS_OK;
    }
    /* Symmetric: one All-Gather on g serves both halves, mirrored for the
     * reduce-scatter. */
    int mirror = THEMIS_COLL_ALLGATHER != coll && symmetric(g);
    if (THEMIS_OK == st && (mirror || THEMIS_COLL_REDUCE_SCATTER != coll)) {
        st = ag(g, ctx, &fwd, why, len);
    }
    if (THEMIS_OK == st && mirror) {
        st = themis_tacos_mirror(g, &fwd, &rev);
    } else if (THEMIS_OK == st && THEMIS_COLL_ALLGATHER != coll) {
        st = themis_tacos_transpose(g, &t);
        if (THEMIS_OK == st) {
            st = ag(&t, ctx, &rev, why, len);
        }
    }
    /* The reduce-scatter part keeps rev's link order reversed, so it takes
     * no longer than rev (reduce_part). */
    rev.link_order = 1;
    if (THEMIS_OK == st && THEMIS_COLL_ALLREDUCE == coll) {
        st = allreduce_forms(g, &rev, &fwd, chunk_bytes, &kept);
    } else if (THEMIS_OK == st) {
        st = keep_faster(g, THEMIS_COLL_ALLGATHER != coll ? &rev : NULL,
                         THEMIS_COLL_REDUCE_SCATTER != coll ? &fwd : NULL, coll, chunk_bytes,
                         &kept);
    }
    /* A small symmetric graph's All-Reduce is chosen by its own time among
     * the pairs of the greedy's All-Gathers on g and on its transpose
     * (each also mirrored): the best All-Gather alone need not make the
     * best pair (torus2d:5x5, 64 MiB, k=1: 2 us faster of 2,599).  Not
     * for the ILP, whose time limit both halves share. */
    if (THEMIS_OK == st && THEMIS_COLL_ALLREDUCE == coll && mirror && greedy_ag == ag
        && fwd.nsends <= PAIRS_MAX_SENDS) {
        st = themis_tacos_transpose(g, &t);
        if (THEMIS_OK == st) {
            st = ag(&t, ctx, &alt[0], why, len);    /* on the transpose: a reduce-scatter */
        }
        if (THEMIS_OK == st) {
            st = themis_tacos_mirror(g, &alt[0], &alt[1]);  /* its mirror: an All-Gather on g */
        }
        alt[0].link_order = 1;
        for (int p = 0; THEMIS_OK == st && p < 3; ++p) {
            st = allreduce_forms(g, 1 == p ? &rev : &alt[0], 0 == p ? &fwd : &alt[1],
                                 chunk_bytes, &kept);
        }
    }
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
        if (NULL != starts) {
            free(*starts);
            *starts = NULL;
        }
        if (THEMIS_ERR_NOMEM != st && 0 != fwd.nnodes + rev.nnodes && NULL != why && 0 != len
            && '\0' == why[0]) {
            snprintf(why, len, "no schedule from the synthesis");
        }
    }
    for (int i = 0; i < kept.nprefix; ++i) {
        rs_prefix_free(&kept.prefix[i]);
    }
    for (int i = 0; i < kept.nhalf; ++i) {
        themis_xfer_free(&kept.half[i].s);
    }
    themis_route_table_free(&routes);
    themis_tacos_ag_free(&rev);
    themis_tacos_ag_free(&fwd);
    themis_tacos_ag_free(&alt[0]);
    themis_tacos_ag_free(&alt[1]);
    themis_graph_free(&t);
    return st;
}

themis_status_t themis_tacos_synthesize_with(const themis_graph_t *g, themis_coll_t coll,
                                             uint64_t chunk_bytes, themis_tacos_ag_fn ag,
                                             void *ctx, themis_xfer_sched_t *out, char *why,
                                             size_t len)
{
    return synthesize(g, coll, chunk_bytes, ag, ctx, out, NULL, why, len);
}

typedef struct {
    uint32_t k, nseeds;
    uint64_t chunk_bytes;
} greedy_ctx_t;

static themis_status_t greedy_ag(const themis_graph_t *g, void *ctx, themis_tacos_ag_t *out,
                                 char *why, size_t len)
{
    const greedy_ctx_t *c = ctx;
    return themis_tacos_allgather(g, c->k, c->chunk_bytes, c->nseeds, out, why, len);
}

themis_status_t themis_tacos_synthesize(const themis_graph_t *g, themis_coll_t coll, uint32_t k,
                                        uint64_t chunk_bytes, uint32_t nseeds,
                                        themis_xfer_sched_t *out, char *why, size_t len)
{
    greedy_ctx_t c = {.k = k, .nseeds = nseeds, .chunk_bytes = chunk_bytes};
    themis_time_t *starts = NULL;
    themis_status_t st = synthesize(g, coll, chunk_bytes, greedy_ag, &c, out, &starts, why, len);
    if (THEMIS_OK == st && NULL != starts) {
        /* as themis_link_sim_order, from the simulation that chose it */
        st = themis_xfer_sort(out, starts);
        if (THEMIS_OK != st) {
            snprintf(why, len, "cannot order the transfers by their simulated starts");
        }
    } else if (THEMIS_OK == st) {
        st = themis_link_sim_order(g, out, chunk_bytes, why, len);
    }
    free(starts);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}
