/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Link-level simulation (link_sim.h): one event heap for the whole run
 * (at the full rate one event per hop, run_fifo; with a duplex rate also
 * a waiting heap per link that some route uses, run_duplex).  Routes are
 * computed once per destination (themis_graph_routes_to), so a schedule
 * costs O(destinations x (nodes + links)) for routing and O(events log
 * events) for the run.
 */
#include "link_sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "radix.h"
#include "link_sim_twins.h"
#include "util.h"

#define NONE UINT32_MAX

/* Event classes in the order they are taken at equal times (link_sim.h). */
enum { EV_FREED = 0, EV_ARRIVE = 1, EV_CHOOSE = 2 };

/* Taken in (t, cls, id) order, cls and id one key. */
typedef struct {
    themis_time_t t;
    uint64_t key;       /* cls << 32 | id: link for FREED and CHOOSE, transfer for ARRIVE */
    uint32_t gen;       /* FREED: the link's gen when pushed (stale if it moved on) */
} event_t;
#define EV_CLS(e) ((uint32_t) ((e).key >> 32))
#define EV_ID(e) ((uint32_t) (e).key)

typedef struct {
    event_t *v;
    uint32_t n, cap;
} ev_vec_t;

typedef struct {
    themis_time_t ready;
    uint32_t xfer;
} wait_t;

typedef struct {
    wait_t *w;
    uint32_t n, cap;
    uint32_t serving;   /* NONE when idle */
    uint8_t choosing;   /* a CHOOSE event is pending */
    uint32_t rev;       /* the reverse link, NONE when it carries nothing */
    /* What serving has left, in ps at the full rate, as of `since`, at
     * rate_ppm of the full rate; gen counts finish times set. */
    themis_time_t work, since, begin;
    uint32_t rate_ppm, gen;
} link_state_t;

typedef struct {
    const themis_graph_t *g;
    const themis_xfer_sched_t *s;
    themis_link_sim_t *out;
    uint64_t *bytes;            /* [nxfers] */
    uint32_t *route_first;      /* [nxfers] into route[] */
    uint32_t *nhops;            /* [nxfers] */
    uint32_t *hop;              /* [nxfers] next link to take */
    uint32_t *pending;          /* [nxfers] unfinished dependencies */
    uint32_t *dep_first, *dependents;   /* reverse dependencies */
    uint32_t *first;            /* [nnodes + 1] transfers per destination (build_routes) */
    uint32_t *route;
    uint32_t nroute, cap_route;
    uint32_t *slot;             /* [nlinks] index into links[], or NONE */
    link_state_t *links;
    uint32_t nslots;
    /* The event queue (ev_push, ev_pop).  Events at the time taken last
     * (`now`) wait in a run sorted by key, where most of them come in
     * order (a finish readies its dependents, later in the list, and
     * arrivals at one time were pushed in the order of their previous
     * hops), and in a heap for the rest; later ones in a radix heap over
     * their times: bucket b (1..64) holds those whose highest bit that
     * differs from now is bit b - 1, so when the run and the heap are
     * empty the lowest nonempty bucket holds the next time, and its
     * other events move to lower buckets (each a few times at most).
     * Taken in (t, key) order, as one heap would. */
    ev_vec_t bucket[65];
    uint64_t full;              /* bit b - 1: bucket b holds events */
    event_t *run, *nq;
    uint32_t run_head, nrun, cap_run, nnq, cap_nq;
    themis_time_t now;
    uint32_t duplex_ppm;        /* a direction's rate while its reverse serves */
    themis_link_order_t *rec;   /* where to record the service order, or NULL */
    uint32_t cap_seq;
    const uint32_t *via;        /* [nxfers] waypoints or NULL (themis_link_sim_via) */
    uint8_t *skip;              /* [nxfers] in a twin part not simulated (the total alone), or NULL */
    char *why;
    size_t len;
} sim_t;

static themis_status_t fail(sim_t *sm, themis_status_t st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sm->why, sm->len, fmt, ap);
    va_end(ap);
    return st;
}

/* ceil(bytes x 8 x 10^12 / bw) ps, the last one remembered: a schedule's
 * transfers mostly share one size and its links one rate, and the 128-bit
 * division was a tenth of a replay. */
typedef struct {
    uint64_t bytes, bw;
    unsigned __int128 ps;
} serve_memo_t;

static unsigned __int128 serve_ps(serve_memo_t *m, uint64_t bytes, uint64_t bw)
{
    if (bytes != m->bytes || bw != m->bw) {
        unsigned __int128 bits = (unsigned __int128) bytes * 8000000000000ULL;
        m->ps = (bits + bw - 1) / bw;
        m->bytes = bytes;
        m->bw = bw;
    }
    return m->ps;
}

/* The heap holds events at `now` alone (ev_push_now; it is empty when
 * now moves on), so (t, key) order is key order. */
#define EV_LESS(ctx, a, b) ((a)->key < (b)->key)
/* A 4-ary heap: half the levels of a binary one, siblings adjacent in
 * memory (the event queue is most of a simulation's time). */
THEMIS_HEAP_DEFINE(ev_heap, event_t, const sim_t *, EV_LESS, 4u, 256u)

/* e, at `now`: appended to the run where it keeps it sorted. */
static int ev_push_now(sim_t *sm, event_t e)
{
    if (sm->run_head < sm->nrun && e.key < sm->run[sm->nrun - 1].key) {
        return ev_heap_push(sm, &sm->nq, &sm->nnq, &sm->cap_nq, e);
    }
    if (sm->run_head == sm->nrun) {
        sm->run_head = sm->nrun = 0;
    }
    if (0 != themis_grow((void **) &sm->run, sm->nrun, &sm->cap_run, sizeof(event_t), 256u)) {
        return -1;
    }
    sm->run[sm->nrun++] = e;
    return 0;
}

/* e, later than `now`: into its bucket. */
static inline int ev_push_later(sim_t *sm, event_t e)
{
    const int b = 64 - __builtin_clzll(e.t ^ sm->now);
    ev_vec_t *v = &sm->bucket[b];
    if (0 != themis_grow((void **) &v->v, v->n, &v->cap, sizeof(event_t), 256u)) {
        return -1;
    }
    v->v[v->n++] = e;
    sm->full |= 1ull << (b - 1);
    return 0;
}

static themis_status_t ev_push_gen(sim_t *sm, themis_time_t t, uint32_t cls, uint32_t id,
                                   uint32_t gen)
{
    event_t e = {t, (uint64_t) cls << 32 | id, gen};
    int bad = t == sm->now ? ev_push_now(sm, e) : ev_push_later(sm, e);
    return 0 == bad ? THEMIS_OK : fail(sm, THEMIS_ERR_NOMEM, "out of memory");
}

/* Room in *v (n used of *cap) for one more. */
static themis_status_t room(sim_t *sm, uint32_t **v, uint32_t n, uint32_t *cap)
{
    return 0 == themis_grow((void **) v, n, cap, sizeof(**v), 256u)
               ? THEMIS_OK
               : fail(sm, THEMIS_ERR_NOMEM, "out of memory (routes or services)");
}

/* Service starts, in the order they happen (themis_link_sim_total). */
#define LOCAL 0x80000000u
static inline themis_status_t record(sim_t *sm, uint32_t entry)
{
    themis_link_order_t *o = sm->rec;
    if (NULL == o) {
        return THEMIS_OK;
    }
    themis_status_t st = room(sm, &o->seq, o->nseq, &sm->cap_seq);
    if (THEMIS_OK == st) {
        o->seq[o->nseq++] = entry;
    }
    return st;
}

static themis_status_t ev_push(sim_t *sm, themis_time_t t, uint32_t cls, uint32_t id)
{
    return ev_push_gen(sm, t, cls, id, 0);
}

static int ev_any(const sim_t *sm)
{
    return 0 != sm->full || sm->run_head < sm->nrun || 0 < sm->nnq;
}

/* The run's events (all at `now`) in key order (radix.h), through the
 * heap's array (empty here) as scratch. */
#define EV_KEY(e) ((e)->key)
THEMIS_RADIX_DEFINE(ev_sort, event_t, EV_KEY, 32u)
static themis_status_t ev_sort_run(sim_t *sm)
{
    while (sm->cap_nq < sm->nrun) {
        if (0 != themis_grow_full((void **) &sm->nq, &sm->cap_nq, sizeof(event_t), 256u)) {
            return fail(sm, THEMIS_ERR_NOMEM, "out of memory");
        }
    }
    event_t *sorted = ev_sort(sm->run, sm->nq, sm->nrun);
    if (sorted != sm->run) {   /* sorted into the heap's array: the two swap */
        const uint32_t cap = sm->cap_run;
        sm->nq = sm->run;
        sm->run = sorted;
        sm->cap_run = sm->cap_nq;
        sm->cap_nq = cap;
    }
    return THEMIS_OK;
}

/* Events are never pushed before `now` (nothing happens in the past).
 * With none left at `now` (the run taken, the heap empty), now moves to
 * the least time of the lowest nonempty bucket: its events at that time
 * become the run, sorted by key where they came out of order (cheaper
 * than a heap for the many events of one time), the others go to lower
 * buckets (they agree with it above bit b - 1). */
static themis_status_t ev_advance(sim_t *sm)
{
    const int b = __builtin_ctzll(sm->full) + 1;
    ev_vec_t *v = &sm->bucket[b];
    themis_time_t least = v->v[0].t;
    for (uint32_t k = 1; k < v->n; ++k) {
        least = v->v[k].t < least ? v->v[k].t : least;
    }
    sm->now = least;
    sm->full &= ~(1ull << (b - 1));
    sm->run_head = sm->nrun = 0;
    int sorted = 1;
    for (uint32_t k = 0; k < v->n; ++k) {
        const event_t e = v->v[k];
        if (e.t != least) {
            if (0 != ev_push_later(sm, e)) {
                return fail(sm, THEMIS_ERR_NOMEM, "out of memory");
            }
            continue;
        }
        if (0 != themis_grow((void **) &sm->run, sm->nrun, &sm->cap_run, sizeof(event_t), 256u)) {
            return fail(sm, THEMIS_ERR_NOMEM, "out of memory");
        }
        sorted &= 0 == sm->nrun || sm->run[sm->nrun - 1].key <= e.key;
        sm->run[sm->nrun++] = e;
    }
    v->n = 0;
    return sorted ? THEMIS_OK : ev_sort_run(sm);
}

/* The least event by (t, key); ev_any first. */
static themis_status_t ev_pop(sim_t *sm, event_t *e)
{
    if (sm->run_head == sm->nrun && 0 == sm->nnq) {
        themis_status_t st = ev_advance(sm);
        if (THEMIS_OK != st) {
            return st;
        }
    }
    if (sm->run_head < sm->nrun && (0 == sm->nnq || sm->run[sm->run_head].key < sm->nq[0].key)) {
        *e = sm->run[sm->run_head++];
    } else {
        *e = ev_heap_pop(sm, sm->nq, &sm->nnq);
    }
    return THEMIS_OK;
}

static int wait_less(const wait_t *a, const wait_t *b)
{
    return a->ready < b->ready || (a->ready == b->ready && a->xfer < b->xfer);
}

#define WAIT_LESS(ctx, a, b) wait_less(a, b)
THEMIS_HEAP_DEFINE(wait_heap, wait_t, const sim_t *, WAIT_LESS, 2u, 4u)

static themis_status_t add_t(sim_t *sm, themis_time_t a, themis_time_t b, themis_time_t *sum)
{
    if (a > UINT64_MAX - b) {
        return fail(sm, THEMIS_ERR_INVALID, "simulated time beyond 2^64 ps");
    }
    *sum = a + b;
    return THEMIS_OK;
}

/* Sizes, ranks and dependencies, before anything runs; in the same pass
 * over the list (long lists do not fit a cache) each transfer's bytes
 * and unfinished dependencies, and the counts build_routes and
 * build_dependents sum up: transfers per destination (first), dependents
 * per transfer (dep_first). */
static themis_status_t check_input(sim_t *sm, uint64_t unit_bytes)
{
    const themis_xfer_sched_t *s = sm->s;
    if (0 == unit_bytes) {
        return fail(sm, THEMIS_ERR_INVALID, "unit size 0");
    }
    if (s->nranks > sm->g->nranks) {
        return fail(sm, THEMIS_ERR_INVALID, "the schedule has %u ranks, the graph %u",
                    s->nranks, sm->g->nranks);
    }
    uint64_t wire_count = 0, wire = 0;   /* the last count's wire bytes (counts are never 0) */
    const uint64_t max_count = UINT64_MAX / unit_bytes;   /* one division, not one a transfer */
    /* locals: the stores below would otherwise make the compiler fetch
     * s's and sm's fields again for every transfer */
    const themis_xfer_t *const xfers = s->xfers;
    const uint32_t *const deps = s->deps, nranks = s->nranks, n = s->nxfers;
    uint64_t *const bytes = sm->bytes;
    uint32_t *const dep_first = sm->dep_first, *const pending = sm->pending;
    uint32_t *const first = sm->first;
    for (uint32_t i = 0; i < n; i++) {
        const themis_xfer_t *x = &xfers[i];
        const uint32_t src = x->src, dst = x->dst, nd = x->ndeps;
        const uint64_t count = x->count;
        /* deps is NULL in a list without dependencies */
        const uint32_t *dep = 0 != nd ? &deps[x->dep_first] : NULL;
        if (src >= nranks || dst >= nranks) {
            return fail(sm, THEMIS_ERR_INVALID, "transfer %u (rank %u -> %u): rank out of range "
                        "(%u ranks)", i, src, dst, nranks);
        }
        if (0 == count || count > max_count) {
            return fail(sm, THEMIS_ERR_INVALID, "transfer %u (rank %u -> %u): %llu units of %llu "
                        "bytes", i, src, dst, (unsigned long long) count,
                        (unsigned long long) unit_bytes);
        }
        /* what each link carries: the graph's packet headers included
         * (transfers mostly share a count) */
        if (count != wire_count) {
            wire_count = count;
            wire = themis_graph_wire_bytes(sm->g, count * unit_bytes);
        }
        bytes[i] = wire;
        if (UINT64_MAX == wire) {
            return fail(sm, THEMIS_ERR_INVALID, "transfer %u (rank %u -> %u): %llu units of %llu "
                        "bytes with packet headers", i, src, dst, (unsigned long long) count,
                        (unsigned long long) unit_bytes);
        }
        for (uint32_t k = 0; k < nd; k++) {
            if (dep[k] >= i) {
                return fail(sm, THEMIS_ERR_INVALID, "transfer %u depends on transfer %u, "
                            "which is not earlier", i, dep[k]);
            }
            dep_first[dep[k] + 1]++;
        }
        pending[i] = nd;
        first[dst + 1]++;
    }
    return THEMIS_OK;
}

/* Link l as the next hop of transfer i's route. */
static themis_status_t push_hop(sim_t *sm, uint32_t i, uint32_t l)
{
    themis_status_t st = room(sm, &sm->route, sm->nroute, &sm->cap_route);
    if (THEMIS_OK != st) {
        return st;
    }
    sm->route[sm->nroute++] = l;
    sm->nhops[i]++;
    if (NONE == sm->slot[l]) {
        sm->slot[l] = sm->nslots++;
    }
    return THEMIS_OK;
}

/* Transfer i's route by its waypoint: the graph's route to it, then on
 * (leg: nnodes entries of scratch). */
static themis_status_t via_route(sim_t *sm, uint32_t i, uint32_t *leg)
{
    const themis_xfer_t *x = &sm->s->xfers[i];
    uint32_t w = sm->via[i], ends[3] = {x->src, w, x->dst};
    for (int k = 0; k < 2; k++) {
        uint32_t nh = 0;
        if (w >= sm->g->nnodes
            || THEMIS_OK != themis_graph_route(sm->g, ends[k], ends[k + 1], leg, &nh)) {
            return fail(sm, THEMIS_ERR_INVALID, "transfer %u (rank %u -> %u): no route by "
                        "node %u over working links", i, x->src, x->dst, w);
        }
        for (uint32_t h = 0; h < nh; h++) {
            themis_status_t st = push_hop(sm, i, leg[h]);
            if (THEMIS_OK != st) {
                return st;
            }
        }
    }
    return THEMIS_OK;
}

/* Every transfer's route, destination by destination.  The transfers'
 * sources go with their indices into the destination order (read once, in
 * list order), so that the walk by destination does not fetch each
 * transfer again from all over a long list.  Transfers of one source and
 * destination share one stored route (routes are only read): a long list
 * repeats few pairs. */
static themis_status_t build_routes(sim_t *sm)
{
    const themis_graph_t *g = sm->g;
    const themis_xfer_sched_t *s = sm->s;
    uint32_t n = g->nnodes;
    uint32_t *first = sm->first;   /* counted by check_input */
    uint64_t *by_dst = malloc(((size_t) s->nxfers + 1) * sizeof(*by_dst));   /* src << 32 | i */
    uint32_t *next = malloc((size_t) n * sizeof(*next));
    uint32_t *leg = (NULL != sm->via) ? malloc((size_t) n * sizeof(*leg)) : NULL;
    /* [n] the transfer whose route from a source to this destination is
     * stored, valid where seen[src] is the destination + 1 */
    uint32_t *stored = malloc((size_t) n * sizeof(*stored));
    uint32_t *seen = calloc((size_t) n, sizeof(*seen));
    themis_status_t st = THEMIS_OK;
    if (NULL == by_dst || NULL == next || (NULL != sm->via && NULL == leg) || NULL == stored
        || NULL == seen) {
        free(by_dst);
        free(next);
        free(leg);
        free(stored);
        free(seen);
        return fail(sm, THEMIS_ERR_NOMEM, "out of memory");
    }
    for (uint32_t v = 0; v < n; v++) {
        first[v + 1] += first[v];
    }
    for (uint32_t i = 0; i < s->nxfers; i++) {
        const themis_xfer_t *x = &s->xfers[i];
        by_dst[first[x->dst]++] = (uint64_t) x->src << 32 | i;
    }
    /* first[v] is now the end of v's transfers, the start of v + 1's */
    for (uint32_t v = 0, k = 0; v < n && THEMIS_OK == st; v++) {
        int routed = 0;
        for (; k < first[v] && THEMIS_OK == st; k++) {
            const uint32_t i = (uint32_t) by_dst[k], src = (uint32_t) (by_dst[k] >> 32);
            if (v + 1 == seen[src] && (NULL == sm->via || NONE == sm->via[i])) {
                /* the pair's route is stored: its checks passed */
                sm->route_first[i] = sm->route_first[stored[src]];
                sm->nhops[i] = sm->nhops[stored[src]];
                continue;
            }
            sm->route_first[i] = sm->nroute;
            sm->nhops[i] = 0;
            if (g->node_failed[src] || g->node_failed[v]) {
                st = fail(sm, THEMIS_ERR_INVALID, "transfer %u (rank %u -> %u): node %u failed",
                          i, src, v, g->node_failed[src] ? src : v);
                break;
            }
            if (src == v) {
                continue;
            }
            if (NULL != sm->via && NONE != sm->via[i]) {
                st = via_route(sm, i, leg);
                continue;
            }
            if (!routed) {
                st = themis_graph_routes_to(g, v, next);
                if (THEMIS_OK != st) {
                    st = fail(sm, st, "out of memory");
                    break;
                }
                routed = 1;
            }
            if (NONE == next[src]) {
                st = fail(sm, THEMIS_ERR_INVALID, "transfer %u (rank %u -> %u): no route over "
                          "working links", i, src, v);
                break;
            }
            for (uint32_t u = src; u != v && THEMIS_OK == st; u = g->links[next[u]].dst) {
                st = push_hop(sm, i, next[u]);
            }
            seen[src] = v + 1;
            stored[src] = i;
        }
    }
    free(by_dst);
    free(next);
    free(leg);
    free(stored);
    free(seen);
    return st;
}

static themis_status_t build_dependents(sim_t *sm)
{
    const themis_xfer_sched_t *s = sm->s;
    sm->dependents = malloc(((size_t) s->ndeps + 1) * sizeof(*sm->dependents));
    uint32_t *fill = malloc(((size_t) s->nxfers + 1) * sizeof(*fill));
    if (NULL == sm->dependents || NULL == fill) {
        free(fill);
        return fail(sm, THEMIS_ERR_NOMEM, "out of memory");
    }
    /* dep_first: counted by check_input (locals: see there) */
    const uint32_t n = s->nxfers, *const deps = s->deps;
    const themis_xfer_t *const xfers = s->xfers;
    uint32_t *const dep_first = sm->dep_first, *const dependents = sm->dependents;
    for (uint32_t i = 0; i < n; i++) {
        dep_first[i + 1] += dep_first[i];
        fill[i] = dep_first[i];
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t nd = xfers[i].ndeps;
        const uint32_t *dep = 0 != nd ? &deps[xfers[i].dep_first] : NULL;
        for (uint32_t k = 0; k < nd; k++) {
            dependents[fill[dep[k]]++] = i;
        }
    }
    free(fill);
    return THEMIS_OK;
}

/* A transfer reached the node before its next link, or its destination. */
static themis_status_t arrive(sim_t *sm, uint32_t i, themis_time_t t)
{
    themis_link_sim_t *out = sm->out;
    if (sm->hop[i] == sm->nhops[i]) {
        if (0 == sm->nhops[i]) {
            out->start_ps[i] = t;
        }
        out->finish_ps[i] = t;
        if (t > out->total_ps) {
            out->total_ps = t;
        }
        for (uint32_t k = sm->dep_first[i]; k < sm->dep_first[i + 1]; k++) {
            uint32_t d = sm->dependents[k];
            if (0 == --sm->pending[d]) {
                themis_status_t st = ev_push(sm, t, EV_ARRIVE, d);
                if (THEMIS_OK != st) {
                    return st;
                }
            }
        }
        return THEMIS_OK;
    }
    uint32_t l = sm->route[sm->route_first[i] + sm->hop[i]];
    link_state_t *ls = &sm->links[sm->slot[l]];
    const wait_t w = {t, i};
    themis_status_t st = 0 == wait_heap_push(sm, &ls->w, &ls->n, &ls->cap, w)
                             ? THEMIS_OK
                             : fail(sm, THEMIS_ERR_NOMEM, "out of memory");
    if (THEMIS_OK == st && NONE == ls->serving && !ls->choosing) {
        ls->choosing = 1;
        st = ev_push(sm, t, EV_CHOOSE, l);
    }
    return st;
}

/* Duplex model: link l serves a transfer a -> b at duplex_ppm of its rate
 * while its reverse serves one b -> a, else at the full rate.  At t, l's
 * rate may have changed: take off what it sent since the last change, at
 * the old rate, and set its finish at the new one (earlier FREED events
 * go stale). */
static themis_status_t retime(sim_t *sm, uint32_t l, themis_time_t t)
{
    link_state_t *ls = &sm->links[sm->slot[l]];
    if (NONE == ls->serving) {
        return THEMIS_OK;
    }
    uint32_t other = NONE != ls->rev ? sm->links[sm->slot[ls->rev]].serving : NONE;
    const themis_xfer_t *x = &sm->s->xfers[ls->serving];
    uint32_t rate = NONE != other && sm->s->xfers[other].src == x->dst
                            && sm->s->xfers[other].dst == x->src
                        ? sm->duplex_ppm : THEMIS_LINK_SIM_FULL_PPM;
    unsigned __int128 sent = (unsigned __int128) (t - ls->since) * ls->rate_ppm
                             / THEMIS_LINK_SIM_FULL_PPM;
    ls->work -= sent < ls->work ? (themis_time_t) sent : ls->work;
    ls->since = t;
    if (rate == ls->rate_ppm) {
        return THEMIS_OK;
    }
    ls->rate_ppm = rate;
    unsigned __int128 left = ((unsigned __int128) ls->work * THEMIS_LINK_SIM_FULL_PPM + rate - 1)
                             / rate;
    themis_time_t end = 0;
    if (left > UINT64_MAX) {
        return fail(sm, THEMIS_ERR_INVALID, "simulated time beyond 2^64 ps");
    }
    themis_status_t st = add_t(sm, t, (themis_time_t) left, &end);
    if (THEMIS_OK == st) {
        st = ev_push_gen(sm, end, EV_FREED, l, ++ls->gen);
    }
    return st;
}

/* A free link takes its first waiting transfer. */
static themis_status_t choose(sim_t *sm, uint32_t l, themis_time_t t)
{
    link_state_t *ls = &sm->links[sm->slot[l]];
    const themis_link_t *lk = &sm->g->links[l];
    ls->choosing = 0;
    if (NONE != ls->serving || 0 == ls->n) {
        return THEMIS_OK;
    }
    wait_t w = wait_heap_pop(sm, ls->w, &ls->n);
    uint32_t i = w.xfer;
    unsigned __int128 bits = (unsigned __int128) sm->bytes[i] * 8000000000000ULL;
    unsigned __int128 serve = (bits + lk->bw_bps - 1) / lk->bw_bps;
    themis_time_t end = 0;
    if (serve > UINT64_MAX) {
        return fail(sm, THEMIS_ERR_INVALID, "simulated time beyond 2^64 ps");
    }
    themis_status_t st = add_t(sm, t, (themis_time_t) serve, &end);
    if (THEMIS_OK != st) {
        return st;
    }
    if (0 == sm->hop[i]) {
        sm->out->start_ps[i] = t;
    }
    ls->serving = i;
    ls->begin = t;
    sm->out->link_bytes[l] += sm->bytes[i];
    ls->work = (themis_time_t) serve;
    ls->since = t;
    ls->rate_ppm = 0;           /* no finish time yet: retime sets one */
    st = retime(sm, l, t);
    if (THEMIS_OK == st && NONE != ls->rev) {
        st = retime(sm, ls->rev, t);
    }
    return st;
}

/* The link finished sending: the transfer lands `lat` later. */
static themis_status_t freed(sim_t *sm, uint32_t l, themis_time_t t)
{
    link_state_t *ls = &sm->links[sm->slot[l]];
    uint32_t i = ls->serving;
    themis_time_t at = 0;
    ls->serving = NONE;
    sm->hop[i]++;
    sm->out->link_busy_ps[l] += t - ls->begin;
    themis_status_t st = add_t(sm, t, sm->g->links[l].lat_ps, &at);
    if (THEMIS_OK == st && NONE != ls->rev) {
        st = retime(sm, ls->rev, t);
    }
    if (THEMIS_OK == st) {
        st = ev_push(sm, at, EV_ARRIVE, i);
    }
    if (THEMIS_OK == st && ls->n > 0) {
        ls->choosing = 1;
        st = ev_push(sm, t, EV_CHOOSE, l);
    }
    return st;
}

/* With a duplex rate (run_fifo at the full rate). */
static themis_status_t run_duplex(sim_t *sm)
{
    const themis_xfer_sched_t *s = sm->s;
    themis_status_t st = THEMIS_OK;
    sm->links = calloc((size_t) sm->nslots + 1, sizeof(*sm->links));
    if (NULL == sm->links) {
        return fail(sm, THEMIS_ERR_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < sm->nslots; k++) {
        sm->links[k].serving = NONE;
        sm->links[k].rev = NONE;
    }
    for (uint32_t l = 0; l < sm->g->nlinks; l++) {
        const themis_link_t *lk = &sm->g->links[l];
        uint32_t r = NONE != sm->slot[l] ? themis_graph_link(sm->g, lk->dst, lk->src) : NONE;
        if (NONE != r && NONE != sm->slot[r]) {
            sm->links[sm->slot[l]].rev = r;
        }
    }
    for (uint32_t i = 0; i < s->nxfers && THEMIS_OK == st; i++) {
        if (0 == sm->pending[i]) {   /* no dependencies */
            st = ev_push(sm, 0, EV_ARRIVE, i);
        }
    }
    while (THEMIS_OK == st && ev_any(sm)) {
        event_t e;
        st = ev_pop(sm, &e);
        if (THEMIS_OK != st) {
            break;
        }
        switch (EV_CLS(e)) {
        case EV_FREED:
            if (e.gen == sm->links[sm->slot[EV_ID(e)]].gen) {
                st = freed(sm, EV_ID(e), e.t);
            }
            break;
        case EV_ARRIVE:
            st = arrive(sm, EV_ID(e), e.t);
            break;
        default:
            st = choose(sm, EV_ID(e), e.t);
            break;
        }
    }
    for (uint32_t k = 0; k < sm->nslots; k++) {
        free(sm->links[k].w);
    }
    return st;
}

/* At the full rate a link serves its transfers in the order they reach it
 * (ties to the lower index: a free link takes the first that waits, and a
 * choice sees every arrival of its time), so each service can be timed
 * when its transfer reaches the link, once every transfer that reaches it
 * at that time is known: events at one time take completions (which
 * release dependents at that time) before arrivals at a link, those in
 * index order.  One event per hop instead of an arrival, a choice and a
 * release; the same times as run().  A transfer's last hop times its
 * arrival, so it releases its dependents there and then, each ready at
 * the latest arrival of its dependencies (never before `now`): a done
 * event is left only for transfers without hops, and the events of a
 * time are still taken in (t, key) order, so the services and their
 * record come in the same order as with a done event per transfer. */
enum { EV_DONE = 0, EV_HOP = 1 };

static themis_status_t push_ready(sim_t *sm, themis_time_t t, uint32_t i)
{
    return ev_push(sm, t, sm->hop[i] == sm->nhops[i] ? EV_DONE : EV_HOP, i);
}

/* Transfer i arrives at t (its last hop, or its ready time without hops):
 * its finish, and its dependents' ready times (ready[]: the latest
 * arrival of their dependencies so far). */
static inline themis_status_t finish(sim_t *sm, uint32_t i, themis_time_t t, themis_time_t *ready)
{
    themis_link_sim_t *out = sm->out;
    themis_status_t st = THEMIS_OK;
    if (NULL != out->finish_ps) {
        out->start_ps[i] = 0 == sm->nhops[i] ? t : out->start_ps[i];
        out->finish_ps[i] = t;
    }
    out->total_ps = t > out->total_ps ? t : out->total_ps;
    for (uint32_t k = sm->dep_first[i]; THEMIS_OK == st && k < sm->dep_first[i + 1]; k++) {
        const uint32_t d = sm->dependents[k];
        ready[d] = t > ready[d] ? t : ready[d];
        if (0 == --sm->pending[d] && (NULL == sm->skip || 0 == sm->skip[d])) {
            st = push_ready(sm, ready[d], d);
        }
    }
    return st;
}

static themis_status_t run_fifo(sim_t *sm)
{
    const themis_xfer_sched_t *s = sm->s;
    themis_link_sim_t *out = sm->out;
    themis_time_t *free_at = calloc((size_t) sm->nslots + 1, sizeof(*free_at));
    themis_time_t *ready = calloc((size_t) s->nxfers + 1, sizeof(*ready));
    themis_status_t st = NULL != free_at && NULL != ready
                             ? THEMIS_OK : fail(sm, THEMIS_ERR_NOMEM, "out of memory");
    serve_memo_t memo = {0, 0, 0};

    /* locals: ev_pop and the pushes change sm, so its fields would be
     * fetched again for every event */
    const uint32_t n = s->nxfers, *const pending = sm->pending;
    const uint8_t *const skip = sm->skip;
    const uint32_t *const route = sm->route, *const route_first = sm->route_first;
    const uint32_t *const nhops = sm->nhops, *const slot = sm->slot;
    const uint64_t *const bytes = sm->bytes;
    const themis_link_t *const links = sm->g->links;
    uint32_t *const hop = sm->hop;
    for (uint32_t i = 0; i < n && THEMIS_OK == st; i++) {
        /* no dependencies (and not in a twin part skipped) */
        if (0 == pending[i] && (NULL == skip || 0 == skip[i])) {
            st = push_ready(sm, 0, i);
        }
    }
    while (THEMIS_OK == st && ev_any(sm)) {
        event_t e;
        st = ev_pop(sm, &e);
        if (THEMIS_OK != st) {
            break;
        }
        const uint32_t i = EV_ID(e);
        if (EV_DONE == EV_CLS(e)) {   /* without hops */
            st = record(sm, i | LOCAL);
            if (THEMIS_OK == st) {
                st = finish(sm, i, e.t, ready);
            }
            continue;
        }
        const uint32_t l = route[route_first[i] + hop[i]];
        const themis_link_t *lk = &links[l];
        themis_time_t *fa = &free_at[slot[l]];
        const themis_time_t begin = e.t > *fa ? e.t : *fa;
        unsigned __int128 serve = serve_ps(&memo, bytes[i], lk->bw_bps);
        themis_time_t at = 0;
        if (serve > UINT64_MAX) {
            st = fail(sm, THEMIS_ERR_INVALID, "simulated time beyond 2^64 ps");
            break;
        }
        st = add_t(sm, begin, (themis_time_t) serve, fa);
        if (THEMIS_OK == st) {
            st = add_t(sm, *fa, lk->lat_ps, &at);
        }
        if (THEMIS_OK == st) {
            st = record(sm, i);
        }
        if (THEMIS_OK != st) {
            break;
        }
        if (0 == hop[i] && NULL != out->start_ps) {
            out->start_ps[i] = begin;
        }
        out->link_bytes[l] += bytes[i];
        out->link_busy_ps[l] += (themis_time_t) serve;
        hop[i]++;
        st = hop[i] == nhops[i] ? finish(sm, i, at, ready) : ev_push(sm, at, EV_HOP, i);
    }
    free(free_at);
    free(ready);
    return st;
}

static void busiest(themis_link_sim_t *out)
{
    out->busiest_link = NONE;
    out->busiest_util_ppm = 0;
    for (uint32_t l = 0; l < out->nlinks; l++) {
        if (0 != out->link_busy_ps[l] &&
            (NONE == out->busiest_link || out->link_busy_ps[l] > out->link_busy_ps[out->busiest_link])) {
            out->busiest_link = l;
        }
    }
    if (NONE != out->busiest_link && 0 != out->total_ps) {
        unsigned __int128 u = (unsigned __int128) out->link_busy_ps[out->busiest_link] * 1000000u;
        out->busiest_util_ppm = (uint32_t) (u / out->total_ps);
    }
}

themis_status_t themis_link_sim(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                uint64_t unit_bytes, themis_link_sim_t *out, char *why,
                                size_t len)
{
    return themis_link_sim_duplex(g, s, unit_bytes, THEMIS_LINK_SIM_FULL_PPM, out, why, len);
}

static themis_status_t sim_run(const themis_graph_t *g, const themis_xfer_sched_t *s,
                               uint64_t unit_bytes, uint32_t duplex_ppm, themis_link_order_t *rec,
                               const uint32_t *via, themis_link_sim_t *out, char *why, size_t len)
{
    char dummy[8];
    sim_t sm;
    memset(out, 0, sizeof(*out));
    memset(&sm, 0, sizeof(sm));
    sm.rec = rec;
    sm.g = g;
    sm.s = s;
    sm.out = out;
    sm.why = (NULL != why) ? why : dummy;
    sm.len = (NULL != why) ? len : sizeof(dummy);
    sm.duplex_ppm = duplex_ppm;
    sm.via = via;
    if (0 < sm.len) {
        sm.why[0] = '\0';
    }
    if (0 == duplex_ppm || duplex_ppm > THEMIS_LINK_SIM_FULL_PPM) {
        return fail(&sm, THEMIS_ERR_INVALID, "duplex rate %u ppm (1 .. %u)", duplex_ppm,
                    THEMIS_LINK_SIM_FULL_PPM);
    }
    size_t nx = (size_t) s->nxfers + 1;
    out->nxfers = s->nxfers;
    out->nlinks = g->nlinks;
    /* recording an order (themis_link_sim_total): the total alone */
    out->start_ps = NULL == rec ? calloc(nx, sizeof(*out->start_ps)) : NULL;
    out->finish_ps = NULL == rec ? calloc(nx, sizeof(*out->finish_ps)) : NULL;
    out->link_bytes = calloc((size_t) g->nlinks + 1, sizeof(*out->link_bytes));
    out->link_busy_ps = calloc((size_t) g->nlinks + 1, sizeof(*out->link_busy_ps));
    sm.bytes = malloc(nx * sizeof(*sm.bytes));
    sm.route_first = malloc(nx * sizeof(*sm.route_first));
    sm.nhops = malloc(nx * sizeof(*sm.nhops));
    sm.hop = calloc(nx, sizeof(*sm.hop));
    sm.pending = malloc(nx * sizeof(*sm.pending));
    sm.slot = malloc(((size_t) g->nlinks + 1) * sizeof(*sm.slot));
    sm.first = calloc((size_t) g->nnodes + 1, sizeof(*sm.first));
    sm.dep_first = calloc(nx, sizeof(*sm.dep_first));
    themis_status_t st = THEMIS_OK;
    if ((NULL == rec && (NULL == out->start_ps || NULL == out->finish_ps)) || NULL == out->link_bytes ||
        NULL == out->link_busy_ps || NULL == sm.bytes || NULL == sm.route_first ||
        NULL == sm.nhops || NULL == sm.hop || NULL == sm.pending || NULL == sm.slot
        || NULL == sm.first || NULL == sm.dep_first) {
        st = fail(&sm, THEMIS_ERR_NOMEM, "out of memory");
    }
    for (uint32_t l = 0; THEMIS_OK == st && l < g->nlinks; l++) {
        sm.slot[l] = NONE;
    }
    if (THEMIS_OK == st) {
        st = check_input(&sm, unit_bytes);
    }
    if (THEMIS_OK == st) {
        st = build_routes(&sm);
    }
    if (THEMIS_OK == st) {
        st = build_dependents(&sm);
    }
    if (THEMIS_OK == st && NULL != rec && THEMIS_LINK_SIM_FULL_PPM == duplex_ppm) {
        /* the total alone: one part of each set of twins (link_sim_twins.h) */
        sm.skip = malloc(nx);
        st = NULL != sm.skip ? themis_link_sim_twins(g, s, sm.route_first, sm.nhops, sm.route,
                                                     sm.dep_first, sm.skip, NULL, NULL)
                             : THEMIS_ERR_NOMEM;
        if (THEMIS_OK != st) {
            st = fail(&sm, st, "out of memory");
        }
    }
    if (THEMIS_OK == st) {
        st = THEMIS_LINK_SIM_FULL_PPM == duplex_ppm ? run_fifo(&sm) : run_duplex(&sm);
    }
    if (THEMIS_OK == st) {
        busiest(out);
    }
    if (THEMIS_OK == st && NULL != rec) {
        /* the routes stay with the order */
        rec->nxfers = s->nxfers;
        rec->nlinks = g->nlinks;
        rec->route_first = sm.route_first;
        rec->nhops = sm.nhops;
        rec->route = sm.route;
        rec->slot = sm.slot;
        rec->nslots = sm.nslots;
        sm.route_first = sm.nhops = sm.route = sm.slot = NULL;
    }
    free(sm.bytes);
    free(sm.route_first);
    free(sm.nhops);
    free(sm.hop);
    free(sm.pending);
    free(sm.first);
    free(sm.dep_first);
    free(sm.dependents);
    free(sm.route);
    free(sm.slot);
    free(sm.links);
    free(sm.skip);
    for (int b = 0; b < 65; ++b) {
        free(sm.bucket[b].v);
    }
    free(sm.run);
    free(sm.nq);
    return st;
}

themis_status_t themis_link_sim_duplex(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                       uint64_t unit_bytes, uint32_t duplex_ppm,
                                       themis_link_sim_t *out, char *why, size_t len)
{
    return sim_run(g, s, unit_bytes, duplex_ppm, NULL, NULL, out, why, len);
}

themis_status_t themis_link_sim_via(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                    uint64_t unit_bytes, uint32_t duplex_ppm,
                                    const uint32_t *via, themis_link_sim_t *out, char *why,
                                    size_t len)
{
    return sim_run(g, s, unit_bytes, duplex_ppm, NULL, via, out, why, len);
}

void themis_link_order_free(themis_link_order_t *o)
{
    if (NULL != o) {
        free(o->seq);
        free(o->route_first);
        free(o->nhops);
        free(o->route);
        free(o->slot);
        free(o->steps);
        free(o->step_deps);
        memset(o, 0, sizeof(*o));
    }
}

/* Replays read o's services as one stream in their order (o->steps, made
 * by the first replay of a recorded order): per service its transfer,
 * link and what it waits for (the dependencies' finishes on its first
 * hop, in o->step_deps, else its own previous hop), front to back instead
 * of every transfer, its dependencies and its route from all over the
 * schedule. */
#define STEP_FIRST 0x40000000u
#define STEP_LAST 0x20000000u
#define STEP_INDEX 0x1fffffffu

/* Service q of o as a step (hop: each transfer's hops so far), its
 * dependencies appended at o->step_deps + *ndeps; 0 where a count does
 * not fit a step (then o is simulated). */
static int make_step(const themis_xfer_sched_t *s, themis_link_order_t *o, uint32_t q,
                     uint32_t *hop, uint32_t *ndeps)
{
    const uint32_t i = o->seq[q] & ~LOCAL;
    const themis_xfer_t *x = &s->xfers[i];
    themis_link_step_t *st = &o->steps[q];
    if (x->count > UINT32_MAX) {
        return 0;
    }
    st->flags = i | (o->seq[q] & LOCAL);
    st->ndeps = 0;
    st->link = NONE;
    st->count = (uint32_t) x->count;
    if (0 == hop[i]) {
        st->flags |= STEP_FIRST;
        st->ndeps = x->ndeps;
        for (uint32_t k = 0; k < x->ndeps; ++k) {
            o->step_deps[(*ndeps)++] = s->deps[x->dep_first + k];
        }
    }
    if (0 == (o->seq[q] & LOCAL)) {
        st->link = o->route[o->route_first[i] + hop[i]];
        st->flags |= ++hop[i] == o->nhops[i] ? STEP_LAST : 0;
    }
    return 1;
}

/* o replayed at unit_bytes: 1 with *total where every link's transfers
 * reach it in o's order (then the simulation serves them so, and this is
 * its timing), 0 where one does not (or a size or time would overflow:
 * the simulation says so), -1 out of memory. */
static int replay(const themis_graph_t *g, const themis_xfer_sched_t *s, uint64_t unit_bytes,
                  themis_link_order_t *o, themis_time_t *total)
{
    const size_t nx = (size_t) s->nxfers + 1, ns = (size_t) o->nslots + 1;
    const int make = NULL == o->steps;
    if (s->nxfers > STEP_INDEX) {
        return 0;   /* beyond the steps' index bits: simulated */
    }
    if (make) {
        o->steps = malloc(((size_t) o->nseq + 1) * sizeof(*o->steps));
        o->step_deps = malloc(((size_t) s->ndeps + 1) * sizeof(*o->step_deps));
    }
    uint32_t *hop = make ? calloc(nx, sizeof(*hop)) : NULL;
    themis_time_t *arr = malloc(nx * sizeof(*arr));      /* where the transfer is, when */
    themis_time_t *link_free = calloc(ns, sizeof(*link_free));
    themis_time_t *last_ready = calloc(ns, sizeof(*last_ready));
    uint32_t *last = calloc(ns, sizeof(*last));
    uint32_t ndeps = 0;
    themis_time_t end = 0;
    serve_memo_t memo = {0, 0, 0};
    uint64_t wire_count = 0, wire = 0;   /* the last count's wire bytes */
    int ok = NULL != o->steps && NULL != o->step_deps && (!make || NULL != hop) && NULL != arr
                     && NULL != link_free && NULL != last_ready && NULL != last
                 ? 1
                 : -1;

    const uint32_t *dep = o->step_deps;
    /* locals: the stores to last[] would otherwise make the compiler
     * fetch o's fields (and g's links) again for every step */
    const themis_link_step_t *const steps = o->steps;
    const uint32_t *const slot = o->slot, nseq = o->nseq;
    const themis_link_t *const links = g->links;
    for (uint32_t q = 0; 1 == ok && q < nseq; ++q) {
        if (make && !make_step(s, o, q, hop, &ndeps)) {
            ok = 0;
            break;
        }
        const themis_link_step_t st = steps[q];
        const uint32_t i = st.flags & STEP_INDEX;
        themis_time_t ready = 0;
        if (0 != (st.flags & STEP_FIRST)) {
            for (uint32_t k = 0; k < st.ndeps; ++k) {
                const themis_time_t f = arr[dep[k]];
                ready = f > ready ? f : ready;
            }
            dep += st.ndeps;
        } else {
            ready = arr[i];
        }
        if (0 != (st.flags & LOCAL)) {
            arr[i] = ready;
            end = ready > end ? ready : end;
            continue;
        }
        const uint32_t l = st.link, k = slot[l];
        /* last[k] and last_ready[k] start at 0: nothing comes before */
        if (ready < last_ready[k] || (ready == last_ready[k] && i < last[k])) {
            ok = 0;     /* reaches the link before the one served before it */
            break;
        }
        last[k] = i;
        last_ready[k] = ready;
        if (st.count != wire_count) {   /* counts are never 0 (check_input) */
            wire_count = st.count;
            wire = wire_count > UINT64_MAX / unit_bytes
                       ? UINT64_MAX
                       : themis_graph_wire_bytes(g, wire_count * unit_bytes);
        }
        if (UINT64_MAX == wire) {
            ok = 0;
            break;
        }
        /* serve + start + latency within 64 bits, else the simulation
         * says why */
        const unsigned __int128 serve = serve_ps(&memo, wire, links[l].bw_bps);
        const themis_time_t start = ready > link_free[k] ? ready : link_free[k];
        themis_time_t fin, at;
        if (serve > UINT64_MAX || __builtin_add_overflow((themis_time_t) serve, start, &fin)
            || __builtin_add_overflow(fin, links[l].lat_ps, &at)) {
            ok = 0;
            break;
        }
        link_free[k] = fin;
        arr[i] = at;
        if (0 != (st.flags & STEP_LAST)) {
            end = at > end ? at : end;
        }
    }
    if (1 == ok) {
        *total = end;
    } else if (make) {
        /* partly made: the simulation records the order afresh */
        free(o->steps);
        free(o->step_deps);
        o->steps = NULL;
        o->step_deps = NULL;
    }
    free(hop);
    free(arr);
    free(link_free);
    free(last_ready);
    free(last);
    return ok;
}

themis_status_t themis_link_sim_total(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                      uint64_t unit_bytes, themis_link_order_t *order,
                                      themis_time_t *total, char *why, size_t len)
{
    if (NULL != order->seq && order->nxfers == s->nxfers && order->nlinks == g->nlinks
        && 0 != unit_bytes) {
        int r = replay(g, s, unit_bytes, order, total);
        if (r < 0) {
            return THEMIS_ERR_NOMEM;
        }
        if (1 == r) {
            order->replays++;
            return THEMIS_OK;
        }
    }
    const uint64_t replays = order->replays, sims = order->sims;
    themis_link_sim_t sim;
    themis_link_order_free(order);
    themis_status_t st = sim_run(g, s, unit_bytes, THEMIS_LINK_SIM_FULL_PPM, order, NULL, &sim, why,
                                 len);
    if (THEMIS_OK == st) {
        *total = sim.total_ps;
    } else {
        themis_link_order_free(order);
    }
    order->replays = replays;
    order->sims = sims + 1;
    themis_link_sim_free(&sim);
    return st;
}

void themis_link_sim_free(themis_link_sim_t *r)
{
    if (NULL != r) {
        free(r->start_ps);
        free(r->finish_ps);
        free(r->link_bytes);
        free(r->link_busy_ps);
        memset(r, 0, sizeof(*r));
    }
}

themis_status_t themis_link_sim_order(const themis_graph_t *g, themis_xfer_sched_t *s,
                                      uint64_t unit_bytes, char *why, size_t len)
{
    themis_link_sim_t sim;
    themis_status_t st = themis_link_sim(g, s, unit_bytes, &sim, why, len);
    if (THEMIS_OK == st) {
        /* A dependency starts before it finishes, and so before its
         * dependents start: start times never put one after its
         * dependent, and equal starts keep the list order. */
        st = themis_xfer_sort(s, sim.start_ps);
        if (THEMIS_OK != st) {
            snprintf(why, len, "cannot order the transfers by their simulated starts");
        }
    }
    themis_link_sim_free(&sim);
    return st;
}
