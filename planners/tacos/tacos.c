/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The TACOS greedy synthesizer and its schedules (tacos.h).
 */
#include "tacos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cut_bound.h"
#include "heap.h"
#include "link_sim.h"
#include "util.h"

/* Seeds alternate between rules, the best result wins (odd seeds
 * RULE_MATCHED; seeds 0 and 2 RULE_FIFO, even seeds from 4 RULE_PUBLIC):
 * RULE_FIFO, the paper's greedy: links choose one after another, each the
 * oldest useful chunk, a random one among those that arrived together.
 * RULE_MATCHED: the links into one node that choose at the same time are
 * matched to chunks (a maximum bipartite matching, Kuhn's augmenting
 * paths, over each link's first MATCH_WIDTH useful chunks, oldest first,
 * among those that arrived together the fewest holders first).  One after
 * another, a link can take the only chunk another link could give, which
 * then idles; and chunks that spread slowly must catch up or the last
 * steps find nodes whose neighbours lack what they need.  On 2-D tori with
 * one chunk per NPU each node may waste one in-link step in all: this rule
 * reaches the in-degree bound there, the FIFO rule never does (both in
 * benchmarks/README.md).
 * With one chunk per NPU on a graph with latency, every other pair of
 * seeds (seed / RULES odd) holds each link until its chunk arrives, the
 * alpha-beta occupancy of Sec. II-C, instead of freeing it once the chunk
 * is on the wire.  A node then has nothing to send while its next chunks
 * are in flight, and a link freed early only starts a chunk it already
 * held, which then blocks the fresh ones: on 2-D tori that costs a whole
 * step.  Held links make every step last ser + lat, the same search as
 * without latency, so these seeds take the random orders of seeds 0, 1,
 * 2, ... (which reach the bound there).  Their times compete with the
 * others' as they are; a winner keeps each link's sends in its order (a
 * link freed early would otherwise start a later chunk that is already
 * there and hold up the planned one).
 * RULE_PUBLIC (even seeds from 4): the public code's matching
 * (choose_public); it takes mesh2d_hetero:7x10 (16/73 GiB/s, k=3) to the
 * bound, which the others miss by 6 %, and the 3-D tori 4x4x6, 4x6x6 and
 * 6x6x6 at 0 ns, k=1, in every orientation to the in-degree bound, which
 * the others miss by a step in some.  A seed that reaches the lower bound
 * ends the search (the same result: ties go to the lower seed).
 * On graphs whose links differ in cost, seeds 0-3, 8-11, ... let links
 * slower than the fastest into their far end choose by slow_choice
 * (mesh2d_hetero 100/30 GiB/s k=2: 3x3 1.15x, 4x4 1.12x, 6x6 1.08x
 * faster than without). */
#define MATCH_WIDTH 8u
enum { RULE_FIFO = 0, RULE_MATCHED, RULES, RULE_PUBLIC = RULES };
/* Candidates RULE_PUBLIC looks at per link; links per far end it matches. */
#define PUBLIC_WIDTH 32u
#define PUBLIC_LINKS 64u

/* Heap events at one time: link frees, then arrivals (so that a link's
 * choice sees every chunk that arrived at that time), each for a run of
 * sends (push_round), by its first. */
enum { EV_FREE = 0, EV_ARRIVE = 1 };

typedef struct {
    themis_time_t t;
    uint64_t key;   /* kind << 32 | id: the order at one time, one compare */
} event_t;

/* RULE_PUBLIC's order of a far end's candidate chunks. */
typedef struct {
    uint64_t key;
    uint32_t c;
} pub_t;

static int cmp_pub(const void *a, const void *b)
{
    const pub_t *x = a, *y = b;
    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return (x->c > y->c) - (x->c < y->c);
}

typedef struct {
    const themis_graph_t *g;
    uint32_t n, k, nchunks, words;
    uint32_t nlinks;
    themis_time_t *ser, *lat;       /* [nlinks]; ser 0: link not used */
    uint32_t *prio;                 /* [nlinks] a link's position in the choice order */
    uint32_t *by_prio;              /* [nlinks] the link at a position */
    uint64_t *claimed;              /* [n * words] held or in flight */
    uint32_t *holders;              /* [nchunks] nodes holding a chunk or getting it */
    uint32_t rule;                  /* RULE_* of this seed */
    uint8_t occupy;                 /* this seed holds a link for ser + lat */
    uint8_t any_lat;                /* some working link has latency */
    /* Links of different costs: a link may send a chunk that is already
     * on its way to the far end when it lands there first (see steal). */
    uint8_t hetero, track, steal;   /* track: eta, carrier kept (this seed may steal) */
    uint8_t lookahead;              /* slow links choose by slow_choice */
    themis_time_t *fastest_in;      /* [n] the cheapest working in-link's ser + lat */
    themis_time_t now;              /* the event time */
    themis_time_t *eta;             /* [n * nchunks] when a node has a chunk, UINT64_MAX: never */
    uint32_t *carrier;              /* [n * nchunks] the send that brings it */
    uint32_t cap_sends;             /* sends[] room, dropped ones included */
    uint32_t need, claims;          /* sends an All-Gather needs, (node, chunk)s claimed */
    /* Matching of the links that choose now, grouped by far end. */
    uint32_t *cand, *ncand;         /* [nlinks * MATCH_WIDTH] ready-list positions, [nlinks] */
    uint32_t *match;                /* [nlinks] chosen position in cand, or UINT32_MAX */
    uint32_t *owner, *seen;         /* [nchunks] link holding a chunk in the matching, stamp */
    uint64_t *mask;                 /* [nchunks] RULE_PUBLIC: links of a far end holding it */
    pub_t *pent;                    /* [nchunks] RULE_PUBLIC: a far end's candidates */
    uint32_t stamp;
    themis_time_t *arrived;         /* [n * nchunks] when a node got a chunk */
    uint32_t *ready;                /* [nlinks * nchunks] ready lists */
    uint32_t *head, *tail;          /* [nlinks] */
    uint8_t *busy, *marked;         /* [nlinks] */
    uint32_t *tries;                /* [nlinks] positions of the links to try now */
    uint64_t *group;                /* [nlinks] far end << 32 | position, of the tries */
    uint32_t *end_at;               /* [n + 1] group_by_far_end's counts */
    uint32_t ntries;
    event_t *heap;
    uint32_t nheap, cap_heap;
    uint32_t *batch_end;            /* [cap_sends] an event's sends: its id .. this - 1 */
    uint64_t rng;
} synth_t;

/* Uniform in [0, n) for the small n of a tie (n >= 1). */
static uint32_t draw(synth_t *sy, uint32_t n)
{
    return (uint32_t) (themis_splitmix64(&sy->rng) % n);
}

static int ev_less(const event_t *a, const event_t *b)
{
    return a->t != b->t ? a->t < b->t : a->key < b->key;
}

/* four children a level (as link_sim's queue): fewer levels to sift */
#define EV_LESS(ctx, a, b) ev_less(a, b)
THEMIS_HEAP_DEFINE(ev_heap, event_t, const synth_t *, EV_LESS, 4u, 1024u)

static themis_status_t ev_push(synth_t *sy, themis_time_t t, uint32_t kind, uint32_t id)
{
    event_t e = {.t = t, .key = (uint64_t) kind << 32 | id};
    return 0 == ev_heap_push(sy, &sy->heap, &sy->nheap, &sy->cap_heap, e) ? THEMIS_OK
                                                                          : THEMIS_ERR_NOMEM;
}

static event_t ev_pop(synth_t *sy)
{
    return ev_heap_pop(sy, sy->heap, &sy->nheap);
}

static int has(const synth_t *sy, uint32_t node, uint32_t c)
{
    return (int) ((sy->claimed[(size_t) node * sy->words + c / 64] >> (c % 64)) & 1u);
}

static void claim(synth_t *sy, uint32_t node, uint32_t c)
{
    sy->claimed[(size_t) node * sy->words + c / 64] |= 1ull << (c % 64);
    sy->holders[c]++;
}

/* Link l cannot usefully send chunk c now: its far end has it or gets
 * it (stealing: by the time it would land over l).  Once true it stays
 * true: time only grows and an arrival only gets earlier. */
static int useless(const synth_t *sy, uint32_t l, uint32_t c)
{
    uint32_t v = sy->g->links[l].dst;
    if (!sy->steal) {
        return has(sy, v, c);
    }
    return sy->now + sy->ser[l] + sy->lat[l] >= sy->eta[(size_t) v * sy->nchunks + c];
}

static void try_link(synth_t *sy, uint32_t l)
{
    if (!sy->marked[l] && !sy->busy[l] && 0 != sy->ser[l]) {
        sy->marked[l] = 1;
        sy->tries[sy->ntries++] = sy->prio[l];
    }
}

/* Chunk c is at node v since time t: every working out-link whose far end
 * lacks it gets it on its ready list. */
static void got(synth_t *sy, uint32_t v, uint32_t c, themis_time_t t)
{
    const themis_graph_t *g = sy->g;
    sy->arrived[(size_t) v * sy->nchunks + c] = t;
    for (uint32_t i = g->out_first[v]; i < g->out_first[v + 1]; ++i) {
        uint32_t l = g->out_links[i];
        if (0 != sy->ser[l] && !useless(sy, l, c)) {
            sy->ready[(size_t) l * sy->nchunks + sy->tail[l]++] = c;
            try_link(sy, l);
        }
    }
}

/* Drops the entries at the head of link l's ready list that its far end
 * already holds or gets (for good: it never loses them); the new head. */
static uint32_t drop_useless_head(synth_t *sy, uint32_t l)
{
    const uint32_t *q = sy->ready + (size_t) l * sy->nchunks;
    uint32_t h = sy->head[l];
    while (h < sy->tail[l] && useless(sy, l, q[h])) {
        ++h;
    }
    sy->head[l] = h;
    return h;
}

/* Link l's candidates: the first MATCH_WIDTH chunks on its ready list
 * that the far end lacks, oldest first, those that arrived together by
 * fewest holders, then at random.  Useless entries at the head are dropped
 * for good. */
static void collect(synth_t *sy, uint32_t l)
{
    uint32_t *q = sy->ready + (size_t) l * sy->nchunks;
    uint32_t u = sy->g->links[l].src;
    const themis_time_t *at = sy->arrived + (size_t) u * sy->nchunks;
    uint32_t *cand = sy->cand + (size_t) l * MATCH_WIDTH;
    uint64_t key[MATCH_WIDTH];
    uint32_t n = 0;

    for (uint32_t i = drop_useless_head(sy, l); i < sy->tail[l] && n < MATCH_WIDTH; ++i) {
        if (useless(sy, l, q[i])) {
            continue;
        }
        /* insertion by (arrival, holders, random) */
        uint64_t k =
            (uint64_t) sy->holders[q[i]] << 32 | (themis_splitmix64(&sy->rng) >> 32);
        uint32_t j = n++;
        while (j > 0 && at[q[cand[j - 1]]] == at[q[i]] && key[j - 1] > k) {
            cand[j] = cand[j - 1];
            key[j] = key[j - 1];
            --j;
        }
        cand[j] = i;
        key[j] = k;
    }
    sy->ncand[l] = n;
    sy->match[l] = UINT32_MAX;
}

/* Kuhn's augmenting path from link l over the chunks its candidates
 * name; the depth is at most the far end's in-degree. */
static int augment(synth_t *sy, uint32_t l)
{
    const uint32_t *q = sy->ready + (size_t) l * sy->nchunks;
    const uint32_t *cand = sy->cand + (size_t) l * MATCH_WIDTH;
    for (uint32_t i = 0; i < sy->ncand[l]; ++i) {
        uint32_t c = q[cand[i]];
        if (sy->seen[c] == sy->stamp) {
            continue;
        }
        sy->seen[c] = sy->stamp;
        if (UINT32_MAX == sy->owner[c] || augment(sy, sy->owner[c])) {
            sy->owner[c] = l;
            sy->match[l] = i;
            return 1;
        }
    }
    return 0;
}

/* Link l sends the chunk at ready-list position pos: it moves to the
 * head, the entries before it keep their order, the head passes it. */
static uint32_t take(synth_t *sy, uint32_t l, uint32_t pos)
{
    uint32_t *q = sy->ready + (size_t) l * sy->nchunks;
    uint32_t h = sy->head[l], c = q[pos];
    memmove(q + h + 1, q + h, (size_t) (pos - h) * sizeof(*q));
    q[h] = c;
    sy->head[l] = h + 1;
    return c;
}

/* A link slower than the fastest into its far end v (stealing seeds):
 * of its first PUBLIC_WIDTH useful chunks (from ready-list position h)
 * the one it brings earliest before any other link into v could, by when
 * that link's source has it (busy links ignored), the oldest on ties; its
 * position.  The slow link then carries what the fast ones cannot bring
 * soon instead of what they are about to. */
static uint32_t slow_choice(synth_t *sy, uint32_t l, uint32_t h)
{
    const themis_graph_t *g = sy->g;
    const uint32_t *q = sy->ready + (size_t) l * sy->nchunks;
    uint32_t v = g->links[l].dst, best = h, seen = 0;
    themis_time_t mine = sy->now + sy->ser[l] + sy->lat[l], gain = 0;
    for (uint32_t i = h; i < sy->tail[l] && seen < PUBLIC_WIDTH; ++i) {
        uint32_t c = q[i];
        if (useless(sy, l, c)) {
            continue;
        }
        ++seen;
        themis_time_t other = UINT64_MAX;
        for (uint32_t j = g->in_first[v]; j < g->in_first[v + 1]; ++j) {
            uint32_t m = g->in_links[j];
            themis_time_t at = sy->eta[(size_t) g->links[m].src * sy->nchunks + c];
            if (m != l && 0 != sy->ser[m] && UINT64_MAX != at) {
                themis_time_t t = (at > sy->now ? at : sy->now) + sy->ser[m] + sy->lat[m];
                other = t < other ? t : other;
            }
        }
        themis_time_t d = other > mine ? (UINT64_MAX == other ? UINT64_MAX : other - mine) : 0;
        if (d > gain) {
            gain = d;
            best = i;
        }
    }
    return best;
}

/* The chunk link l sends now, or UINT32_MAX: the oldest on its ready list
 * that the far end lacks, a random one among those that arrived together.
 * Useless entries at the head are dropped for good. */
static uint32_t pick(synth_t *sy, uint32_t l)
{
    uint32_t *q = sy->ready + (size_t) l * sy->nchunks;
    uint32_t u = sy->g->links[l].src;
    const themis_time_t *at = sy->arrived + (size_t) u * sy->nchunks;
    uint32_t h = drop_useless_head(sy, l), e;

    if (h == sy->tail[l]) {
        return UINT32_MAX;
    }
    if (sy->lookahead && sy->ser[l] + sy->lat[l] > sy->fastest_in[sy->g->links[l].dst]) {
        return take(sy, l, slow_choice(sy, l, h));
    }
    /* The group that arrived with the head: useless ones move to the
     * front and are dropped, the useful ones stay [h, e). */
    themis_time_t t0 = at[q[h]];
    for (e = h; e < sy->tail[l] && t0 == at[q[e]]; ++e) {
        if (useless(sy, l, q[e])) {
            uint32_t x = q[e];
            q[e] = q[h];
            q[h++] = x;
        }
    }
    uint32_t j = h + draw(sy, e - h);
    uint32_t c = q[j];
    q[j] = q[h];
    q[h] = c;
    sy->head[l] = h + 1;
    return c;
}

typedef struct {
    themis_time_t dur;
    uint64_t key;
    uint32_t link;
} link_key_t;

static int cmp_link_key(const void *a, const void *b)
{
    const link_key_t *x = a, *y = b;
    if (x->dur != y->dur) {
        return x->dur < y->dur ? -1 : 1;
    }
    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return (x->link > y->link) - (x->link < y->link);
}

/* A node that lacks a chunk at the end, for the message. */
static void say_unreached(const synth_t *sy, char *why, size_t len)
{
    for (uint32_t v = 0; v < sy->n; ++v) {
        for (uint32_t c = 0; c < sy->nchunks; ++c) {
            if (!has(sy, v, c)) {
                snprintf(why, len, "node %u cannot receive chunk %u (of node %u): no path", v, c,
                         c / sy->k);
                return;
            }
        }
    }
}

/* Link l starts sending chunk c now. */
static themis_status_t start(synth_t *sy, uint32_t l, uint32_t c, themis_time_t now,
                             themis_tacos_send_t *sends, uint32_t *nsends)
{
    uint32_t v = sy->g->links[l].dst;
    size_t at = (size_t) v * sy->nchunks + c;
    if (!sy->track || UINT64_MAX == sy->eta[at]) {
        claim(sy, v, c);
        sy->claims++;
    }
    if (sy->track) {
        /* else a steal: the send that was bringing c lands later and
         * carries another chunk or nothing (arrive) */
        sy->eta[at] = now + sy->ser[l] + sy->lat[l];
        sy->carrier[at] = *nsends;
        /* one more steal must leave room for the sends still needed */
        sy->steal = *nsends + 2 + sy->need - sy->claims <= sy->cap_sends;
    }
    sy->busy[l] = 1;
    sends[*nsends] = (themis_tacos_send_t) {.link = l, .chunk = c, .start_ps = now,
                                            .arrive_ps = now + sy->ser[l] + sy->lat[l]};
    ++*nsends;
    return THEMIS_OK;
}

/* When send x frees its link. */
static themis_time_t frees_at(const synth_t *sy, const themis_tacos_send_t *x)
{
    return x->start_ps + sy->ser[x->link] + (sy->occupy ? sy->lat[x->link] : 0);
}

/* The events of the sends started now (first .. nsends - 1): one link
 * free and one arrival event per run of consecutive sends that free their
 * links and land at the same times (a homogeneous graph's whole round),
 * keyed by the run's first send.  Taken in (t, key) order, they handle
 * the arrivals of a time in send order, as an event per send would; the
 * link frees of a time before them, in another order than by link, which
 * only lists the links to choose (each choice sorts them). */
static themis_status_t push_round(synth_t *sy, const themis_tacos_send_t *sends, uint32_t first,
                                  uint32_t nsends)
{
    themis_status_t st = THEMIS_OK;
    for (uint32_t a = first, b; a < nsends && THEMIS_OK == st; a = b) {
        const themis_time_t fr = frees_at(sy, &sends[a]), at = sends[a].arrive_ps;
        for (b = a + 1; b < nsends && at == sends[b].arrive_ps && fr == frees_at(sy, &sends[b]);
             ++b) {
        }
        sy->batch_end[a] = b;
        st = ev_push(sy, fr, EV_FREE, a);
        if (THEMIS_OK == st) {
            st = ev_push(sy, at, EV_ARRIVE, a);
        }
    }
    return st;
}

/* Send x (index i) lands now; 0 when it brings nothing.  A send whose
 * chunk another one, started later over a faster link, brought first
 * (stolen) carries instead a chunk its near end held when it started and
 * its far end lacks (the public code's chunk replacement, Sec. VI-B, kept
 * causal), the oldest there, one nobody brings first; else nothing: it
 * is dropped from the schedule (chunk UINT32_MAX). */
static int arrive(synth_t *sy, themis_tacos_send_t *x, uint32_t i, themis_time_t now)
{
    uint32_t u = sy->g->links[x->link].src, v = sy->g->links[x->link].dst, nc = sy->nchunks;
    if (sy->track && sy->carrier[(size_t) v * nc + x->chunk] != i) {
        const themis_time_t *eu = sy->eta + (size_t) u * nc, *ev = sy->eta + (size_t) v * nc;
        uint32_t best = UINT32_MAX;
        for (uint32_t c = 0; c < nc; ++c) {
            if (eu[c] <= x->start_ps && ev[c] > now
                && (UINT32_MAX == best || (UINT64_MAX == ev[c]) > (UINT64_MAX == ev[best])
                    || ((UINT64_MAX == ev[c]) == (UINT64_MAX == ev[best])
                        && eu[c] < eu[best]))) {
                best = c;
            }
        }
        x->chunk = best;
        if (UINT32_MAX == best) {
            return 0;
        }
        if (UINT64_MAX == ev[best]) {
            claim(sy, v, best);
            sy->claims++;
        }
        sy->eta[(size_t) v * nc + best] = now;
        sy->carrier[(size_t) v * nc + best] = i;
    }
    got(sy, v, x->chunk, now);
    return 1;
}

/* sy->tries in increasing order.  They are the positions of the marked
 * links (try_link), each once, so a long list is sorted by scanning the
 * marks in position order. */
static void sort_tries(synth_t *sy)
{
    if (8u * sy->ntries < sy->nlinks) {
        qsort(sy->tries, sy->ntries, sizeof(*sy->tries), themis_cmp_u32);
        return;
    }
    uint32_t n = 0;
    for (uint32_t p = 0; p < sy->nlinks; ++p) {
        if (sy->marked[sy->by_prio[p]]) {
            sy->tries[n++] = p;
        }
    }
}

/* RULE_FIFO: the links that choose now, one after another in priority
 * order. */
static themis_status_t choose_fifo(synth_t *sy, themis_time_t now, themis_tacos_send_t *sends,
                                   uint32_t *nsends)
{
    themis_status_t st = THEMIS_OK;
    sort_tries(sy);
    for (uint32_t i = 0; i < sy->ntries && THEMIS_OK == st; ++i) {
        uint32_t l = sy->by_prio[sy->tries[i]];
        sy->marked[l] = 0;
        uint32_t c = pick(sy, l);
        if (UINT32_MAX != c) {
            st = start(sy, l, c, now, sends, nsends);
        }   /* else it idles until its source receives a chunk */
    }
    return st;
}

/* The links that choose now into sy->group, by far end, each far end's
 * in priority order. */
static void group_by_far_end(synth_t *sy)
{
    /* by position, then stably by far end (counting) */
    uint32_t *at = sy->end_at;
    sort_tries(sy);
    memset(at, 0, ((size_t) sy->n + 1) * sizeof(*at));
    for (uint32_t i = 0; i < sy->ntries; ++i) {
        at[sy->g->links[sy->by_prio[sy->tries[i]]].dst + 1]++;
    }
    for (uint32_t v = 0; v < sy->n; ++v) {
        at[v + 1] += at[v];
    }
    for (uint32_t i = 0; i < sy->ntries; ++i) {
        uint32_t v = sy->g->links[sy->by_prio[sy->tries[i]]].dst;
        sy->group[at[v]++] = (uint64_t) v << 32 | sy->tries[i];
    }
}

/* RULE_MATCHED: the links that choose now, by far end, each far end's in
 * priority order; links left unmatched look past their candidates. */
static themis_status_t choose_matched(synth_t *sy, themis_time_t now,
                                      themis_tacos_send_t *sends, uint32_t *nsends)
{
    themis_status_t st = THEMIS_OK;
    group_by_far_end(sy);
    for (uint32_t a = 0, b; a < sy->ntries && THEMIS_OK == st; a = b) {
        for (b = a; b < sy->ntries && sy->group[b] >> 32 == sy->group[a] >> 32; ++b) {
            uint32_t l = sy->by_prio[(uint32_t) sy->group[b]];
            sy->marked[l] = 0;
            collect(sy, l);
        }
        for (uint32_t i = a; i < b; ++i) {
            if (0 == ++sy->stamp) {   /* wrapped: forget old stamps */
                memset(sy->seen, 0, (size_t) sy->nchunks * sizeof(*sy->seen));
                sy->stamp = 1;
            }
            (void) augment(sy, sy->by_prio[(uint32_t) sy->group[i]]);
        }
        for (uint32_t i = a; i < b && THEMIS_OK == st; ++i) {
            uint32_t l = sy->by_prio[(uint32_t) sy->group[i]];
            if (UINT32_MAX != sy->match[l]) {
                uint32_t c = take(sy, l, sy->cand[(size_t) l * MATCH_WIDTH + sy->match[l]]);
                sy->owner[c] = UINT32_MAX;
                st = start(sy, l, c, now, sends, nsends);
            }
        }
        for (uint32_t i = a; i < b && THEMIS_OK == st; ++i) {
            uint32_t l = sy->by_prio[(uint32_t) sy->group[i]];
            uint32_t c = UINT32_MAX == sy->match[l] ? pick(sy, l) : UINT32_MAX;
            if (UINT32_MAX != c) {
                st = start(sy, l, c, now, sends, nsends);
            }
        }
    }
    return st;
}

/* RULE_PUBLIC, the public code's matching: for each far end, the chunks
 * it lacks that the links into it that choose now could send (each
 * link's first PUBLIC_WIDTH useful ones), the fewest holders first, else
 * in a random order (the public code's; the holders take torus3d:4x4x6 at
 * k=1 to the in-degree bound), each to the cheapest of those links
 * (ser + lat; ties at random) that holds it and has none yet; links left
 * without one pick as RULE_FIFO. */
static themis_status_t choose_public(synth_t *sy, themis_time_t now, themis_tacos_send_t *sends,
                                     uint32_t *nsends)
{
    themis_status_t st = THEMIS_OK;
    group_by_far_end(sy);
    for (uint32_t a = 0, b; a < sy->ntries && THEMIS_OK == st; a = b) {
        for (b = a; b < sy->ntries && sy->group[b] >> 32 == sy->group[a] >> 32; ++b) {
            sy->marked[sy->by_prio[(uint32_t) sy->group[b]]] = 0;
        }
        uint32_t nl = b - a < PUBLIC_LINKS ? b - a : PUBLIC_LINKS, nc = 0;
        pub_t *list = sy->pent;
        uint64_t assigned = 0;
        if (0 == ++sy->stamp) {
            memset(sy->seen, 0, (size_t) sy->nchunks * sizeof(*sy->seen));
            sy->stamp = 1;
        }
        for (uint32_t j = 0; j < nl; ++j) {
            uint32_t l = sy->by_prio[(uint32_t) sy->group[a + j]];
            const uint32_t *q = sy->ready + (size_t) l * sy->nchunks;
            uint32_t seen = 0;
            for (uint32_t i = drop_useless_head(sy, l); i < sy->tail[l] && seen < PUBLIC_WIDTH;
                 ++i) {
                uint32_t c = q[i];
                if (useless(sy, l, c)) {
                    continue;
                }
                ++seen;
                if (sy->seen[c] != sy->stamp) {
                    sy->seen[c] = sy->stamp;
                    sy->mask[c] = 0;
                    list[nc++].c = c;
                }
                sy->mask[c] |= 1ull << j;
            }
        }
        /* a random order (Fisher-Yates), then the fewest holders first:
         * keys holders << 32 | position, all distinct */
        for (uint32_t i = nc; i > 1; --i) {
            uint32_t j = draw(sy, i), x = list[i - 1].c;
            list[i - 1].c = list[j].c;
            list[j].c = x;
        }
        for (uint32_t i = 0; i < nc; ++i) {
            list[i].key = (uint64_t) sy->holders[list[i].c] << 32 | i;
        }
        qsort(list, nc, sizeof(*list), cmp_pub);
        uint32_t chosen[PUBLIC_LINKS];
        for (uint32_t i = 0; i < nc && assigned != (nl < 64 ? (1ull << nl) - 1 : ~0ull); ++i) {
            uint64_t m = sy->mask[list[i].c] & ~assigned;
            uint32_t best = UINT32_MAX, ties = 0;
            for (uint32_t j = 0; 0 != m && j < nl; ++j) {
                if (!((m >> j) & 1u)) {
                    continue;
                }
                uint32_t l = sy->by_prio[(uint32_t) sy->group[a + j]];
                themis_time_t d = sy->ser[l] + sy->lat[l];
                uint32_t lb = UINT32_MAX == best ? 0 : sy->by_prio[(uint32_t) sy->group[a + best]];
                themis_time_t db = UINT32_MAX == best ? 0 : sy->ser[lb] + sy->lat[lb];
                if (UINT32_MAX == best || d < db) {
                    best = j;
                    ties = 1;
                } else if (d == db && 0 == draw(sy, ++ties)) {
                    best = j;
                }
            }
            if (UINT32_MAX != best) {
                assigned |= 1ull << best;
                chosen[best] = list[i].c;
            }
        }
        /* the matched links first, so that the others pick around them */
        for (uint32_t j = 0; j < nl && THEMIS_OK == st; ++j) {
            uint32_t l = sy->by_prio[(uint32_t) sy->group[a + j]];
            if ((assigned >> j) & 1u) {
                const uint32_t *q = sy->ready + (size_t) l * sy->nchunks;
                uint32_t pos = sy->head[l];
                while (q[pos] != chosen[j]) {
                    ++pos;
                }
                st = start(sy, l, take(sy, l, pos), now, sends, nsends);
            }
        }
        for (uint32_t j = 0; j < b - a && THEMIS_OK == st; ++j) {
            uint32_t l = sy->by_prio[(uint32_t) sy->group[a + j]];
            uint32_t c = j < nl && ((assigned >> j) & 1u) ? UINT32_MAX : pick(sy, l);
            if (UINT32_MAX != c) {
                st = start(sy, l, c, now, sends, nsends);
            }
        }
    }
    return st;
}

/* One greedy synthesis with seed `seed` into sends[0 .. need) (room for
 * sy->cap_sends, stolen ones included until they are left out). */
static themis_status_t run_seed(synth_t *sy, uint32_t seed, link_key_t *keys,
                                themis_tacos_send_t *sends, uint32_t need, themis_time_t *time,
                                char *why, size_t len)
{
    uint32_t nsends = 0;
    themis_time_t now = 0, last = 0;
    themis_status_t st = THEMIS_OK;

    memset(sy->claimed, 0, (size_t) sy->n * sy->words * sizeof(*sy->claimed));
    memset(sy->holders, 0, (size_t) sy->nchunks * sizeof(*sy->holders));
    memset(sy->owner, 0xff, (size_t) sy->nchunks * sizeof(*sy->owner));
    memset(sy->seen, 0, (size_t) sy->nchunks * sizeof(*sy->seen));
    sy->stamp = 0;
    /* even seeds from 4: the public code's matching */
    sy->rule = 1 == seed % RULES ? RULE_MATCHED : seed >= 4 ? RULE_PUBLIC : RULE_FIFO;
    sy->occupy = 1 == sy->k && sy->any_lat && 1 == (seed / RULES) % 2;
    sy->track = sy->hetero && !sy->occupy;
    sy->steal = sy->track;
    /* seeds 0-3, 8-11, ...: slow links choose by slow_choice */
    sy->lookahead = sy->track && 0 == (seed / 4) % 2;
    sy->need = need;
    sy->claims = 0;
    sy->now = 0;
    if (sy->track) {
        for (size_t i = 0; i < (size_t) sy->n * sy->nchunks; ++i) {
            sy->eta[i] = UINT64_MAX;
        }
        for (uint32_t c = 0; c < sy->nchunks; ++c) {
            sy->eta[(size_t) (c / sy->k) * sy->nchunks + c] = 0;
        }
    }
    memset(sy->head, 0, sy->nlinks * sizeof(*sy->head));
    memset(sy->tail, 0, sy->nlinks * sizeof(*sy->tail));
    memset(sy->busy, 0, sy->nlinks);
    memset(sy->marked, 0, sy->nlinks);
    sy->nheap = 0;
    sy->ntries = 0;
    sy->rng = THEMIS_TACOS_SEED_BASE
              + (uint64_t) (sy->occupy ? seed / (2 * RULES) * RULES + seed % RULES : seed);
    /* Shorter links choose first (Sec. VI-B); equal ones in a random
     * order of this seed, then by index. */
    for (uint32_t l = 0; l < sy->nlinks; ++l) {
        keys[l] = (link_key_t) {.dur = sy->ser[l] + sy->lat[l],
                                .key = themis_splitmix64(&sy->rng), .link = l};
    }
    qsort(keys, sy->nlinks, sizeof(*keys), cmp_link_key);
    for (uint32_t i = 0; i < sy->nlinks; ++i) {
        sy->prio[keys[i].link] = i;
        sy->by_prio[i] = keys[i].link;
    }
    for (uint32_t c = 0; c < sy->nchunks; ++c) {
        claim(sy, c / sy->k, c);
    }
    for (uint32_t c = 0; c < sy->nchunks; ++c) {
        got(sy, c / sy->k, c, 0);
    }
    for (;;) {
        const uint32_t round = nsends;
        st = RULE_FIFO == sy->rule      ? choose_fifo(sy, now, sends, &nsends)
             : RULE_MATCHED == sy->rule ? choose_matched(sy, now, sends, &nsends)
                                        : choose_public(sy, now, sends, &nsends);
        st = THEMIS_OK == st ? push_round(sy, sends, round, nsends) : st;
        sy->ntries = 0;
        if (THEMIS_OK != st || 0 == sy->nheap) {
            break;
        }
        now = sy->heap[0].t;
        sy->now = now;
        while (0 < sy->nheap && now == sy->heap[0].t) {
            const event_t e = ev_pop(sy);
            const uint32_t id = (uint32_t) e.key;
            for (uint32_t i = id; EV_FREE == e.key >> 32 && i < sy->batch_end[id]; ++i) {
                sy->busy[sends[i].link] = 0;
                try_link(sy, sends[i].link);
            }
            for (uint32_t i = id; EV_ARRIVE == e.key >> 32 && i < sy->batch_end[id]; ++i) {
                last = arrive(sy, &sends[i], i, now) ? now : last;
            }
        }
    }
    /* what stolen sends that carried nothing leave out */
    uint32_t kept = 0;
    for (uint32_t i = 0; THEMIS_OK == st && sy->track && i < nsends; ++i) {
        if (UINT32_MAX != sends[i].chunk) {
            sends[kept++] = sends[i];
        }
    }
    nsends = sy->track ? kept : nsends;
    if (THEMIS_OK == st && nsends != need) {
        say_unreached(sy, why, len);
        st = THEMIS_ERR_INVALID;
    }
    *time = last;
    return st;
}

/* Serialization time of b bytes at bw bit/s, rounded up, as link_sim.c. */
themis_time_t themis_tacos_ser_ps(uint64_t b, uint64_t bw)
{
    unsigned __int128 bits = (unsigned __int128) b * 8000000000000ull;
    unsigned __int128 t = (bits + bw - 1) / bw;
    return t > (unsigned __int128) (1ull << 62) ? (1ull << 62) : (themis_time_t) t;
}

uint32_t themis_tacos_seeds(const themis_graph_t *g, uint32_t k)
{
    return themis_tacos_seeds_within(g, k, THEMIS_TACOS_AUTO_WORK);
}

uint32_t themis_tacos_seeds_within(const themis_graph_t *g, uint32_t k, uint64_t budget)
{
    uint64_t work = (uint64_t) g->nlinks * g->nnodes * k;
    uint64_t s = 0 == work ? THEMIS_TACOS_AUTO_MAX_SEEDS : budget / work;
    if (s < THEMIS_TACOS_DEFAULT_SEEDS) {
        return THEMIS_TACOS_DEFAULT_SEEDS;
    }
    return s > THEMIS_TACOS_AUTO_MAX_SEEDS ? THEMIS_TACOS_AUTO_MAX_SEEDS : (uint32_t) s;
}

void themis_tacos_ag_free(themis_tacos_ag_t *ag)
{
    free(ag->sends);
    memset(ag, 0, sizeof(*ag));
}

static void synth_free(synth_t *sy)
{
    free(sy->ser);
    free(sy->lat);
    free(sy->prio);
    free(sy->by_prio);
    free(sy->claimed);
    free(sy->arrived);
    free(sy->ready);
    free(sy->head);
    free(sy->tail);
    free(sy->busy);
    free(sy->marked);
    free(sy->tries);
    free(sy->group);
    free(sy->end_at);
    free(sy->holders);
    free(sy->cand);
    free(sy->ncand);
    free(sy->match);
    free(sy->owner);
    free(sy->seen);
    free(sy->mask);
    free(sy->pent);
    free(sy->heap);
    free(sy->batch_end);
    free(sy->eta);
    free(sy->fastest_in);
    free(sy->carrier);
}

static int cmp_send_start(const void *a, const void *b)
{
    const themis_tacos_send_t *x = a, *y = b;
    if (x->start_ps != y->start_ps) {
        return x->start_ps < y->start_ps ? -1 : 1;
    }
    return (x->arrive_ps > y->arrive_ps) - (x->arrive_ps < y->arrive_ps);
}

/* ag's sends (need of them, in free order) take the times the link
 * simulator gives them: a valid timing (causal, a link one chunk at a
 * time), which a Reduce-Scatter reverses exactly. */
static themis_status_t take_simulated(const themis_graph_t *g, themis_tacos_ag_t *ag, uint32_t n,
                                      uint32_t k, uint32_t nchunks, uint32_t need,
                                      uint64_t chunk_bytes)
{
    themis_tacos_ag_t view = {.nnodes = n, .k = k, .nchunks = nchunks, .nsends = need,
                              .sends = ag->sends};
    themis_xfer_sched_t s;
    themis_link_sim_t sim;
    char why[128];
    themis_status_t st = themis_tacos_schedule(g, NULL, &view, THEMIS_COLL_ALLGATHER, &s);
    if (THEMIS_OK == st) {
        /* transfers: the n owners' local copies, then the sends in order */
        st = themis_link_sim(g, &s, chunk_bytes, &sim, why, sizeof(why));
        for (uint32_t i = 0; THEMIS_OK == st && i < need; ++i) {
            ag->sends[i].start_ps = sim.start_ps[n + i];
            ag->sends[i].arrive_ps = sim.finish_ps[n + i];
        }
        if (THEMIS_OK == st) {
            ag->time_ps = sim.total_ps;
            qsort(ag->sends, need, sizeof(*ag->sends), cmp_send_start);
        }
        themis_link_sim_free(&sim);
        themis_xfer_free(&s);
    }
    return st;
}

themis_status_t themis_tacos_allgather(const themis_graph_t *g, uint32_t k, uint64_t chunk_bytes,
                                       uint32_t nseeds, themis_tacos_ag_t *out, char *why,
                                       size_t len)
{
    synth_t sy;
    themis_status_t st = THEMIS_OK;
    uint32_t n = g->nnodes;

    memset(out, 0, sizeof(*out));
    memset(&sy, 0, sizeof(sy));
    if (THEMIS_TACOS_SEEDS_AUTO == nseeds && 0 != k) {
        nseeds = themis_tacos_seeds(g, k);
    }
    if (0 == n || 0 == k || 0 == chunk_bytes || 0 == nseeds || nseeds > THEMIS_TACOS_MAX_SEEDS
        || (uint64_t) n * k > UINT32_MAX / 2) {
        snprintf(why, len, "bad arguments: %u nodes, %u chunks per node of %llu bytes, %u seeds",
                 n, k, (unsigned long long) chunk_bytes, nseeds);
        return THEMIS_ERR_INVALID;
    }
    for (uint32_t v = 0; v < n; ++v) {
        if (g->node_failed[v]) {
            snprintf(why, len, "node %u failed: synthesize on the working part", v);
            return THEMIS_ERR_INVALID;
        }
    }
    uint32_t nchunks = n * k;
    uint64_t need64 = (uint64_t) n * (nchunks - k);
    if ((uint64_t) g->nlinks * nchunks > THEMIS_TACOS_MAX_ENTRIES || need64 > UINT32_MAX / 2) {
        snprintf(why, len, "too large: %u links x %u chunks", g->nlinks, nchunks);
        return THEMIS_ERR_INVALID;
    }
    uint32_t need = (uint32_t) need64;
    sy.g = g;
    sy.n = n;
    sy.k = k;
    sy.nchunks = nchunks;
    sy.words = (nchunks + 63) / 64;
    sy.nlinks = g->nlinks;
    size_t nl = g->nlinks ? g->nlinks : 1;
    sy.ser = calloc(nl, sizeof(*sy.ser));
    sy.lat = calloc(nl, sizeof(*sy.lat));
    sy.prio = calloc(nl, sizeof(*sy.prio));
    sy.by_prio = calloc(nl, sizeof(*sy.by_prio));
    sy.claimed = calloc((size_t) n * sy.words, sizeof(*sy.claimed));
    sy.arrived = calloc((size_t) n * nchunks, sizeof(*sy.arrived));
    sy.ready = malloc((size_t) nl * nchunks * sizeof(*sy.ready));
    sy.head = calloc(nl, sizeof(*sy.head));
    sy.tail = calloc(nl, sizeof(*sy.tail));
    sy.busy = calloc(nl, 1);
    sy.marked = calloc(nl, 1);
    sy.tries = calloc(nl, sizeof(*sy.tries));
    sy.group = calloc(nl, sizeof(*sy.group));
    sy.end_at = calloc((size_t) n + 1, sizeof(*sy.end_at));
    sy.holders = calloc(nchunks, sizeof(*sy.holders));
    sy.cand = calloc(nl * MATCH_WIDTH, sizeof(*sy.cand));
    sy.ncand = calloc(nl, sizeof(*sy.ncand));
    sy.match = calloc(nl, sizeof(*sy.match));
    sy.owner = calloc(nchunks, sizeof(*sy.owner));
    sy.seen = calloc(nchunks, sizeof(*sy.seen));
    sy.mask = calloc(nchunks, sizeof(*sy.mask));
    sy.pent = calloc(nchunks, sizeof(*sy.pent));
    link_key_t *keys = calloc(nl, sizeof(*keys));
    /* Links of different costs: room for stolen sends, one per needed */
    themis_time_t first = 0;
    for (uint32_t l = 0; l < g->nlinks; ++l) {
        if (themis_graph_link_working(g, l)) {
            themis_time_t d = themis_tacos_ser_ps(chunk_bytes, g->links[l].bw_bps)
                              + g->links[l].lat_ps;
            sy.hetero |= 0 != first && d != first;
            first = d;
        }
    }
    sy.cap_sends = sy.hetero && need <= UINT32_MAX / 2 ? 2 * need : need;
    if (sy.hetero) {
        sy.fastest_in = malloc(n * sizeof(*sy.fastest_in));
        for (uint32_t v = 0; NULL != sy.fastest_in && v < n; ++v) {
            sy.fastest_in[v] = UINT64_MAX;
            for (uint32_t j = g->in_first[v]; j < g->in_first[v + 1]; ++j) {
                uint32_t l = g->in_links[j];
                themis_time_t d = themis_tacos_ser_ps(chunk_bytes, g->links[l].bw_bps)
                                  + g->links[l].lat_ps;
                if (themis_graph_link_working(g, l) && d < sy.fastest_in[v]) {
                    sy.fastest_in[v] = d;
                }
            }
        }
        sy.eta = malloc((size_t) n * nchunks * sizeof(*sy.eta));
        sy.carrier = malloc((size_t) n * nchunks * sizeof(*sy.carrier));
    }
    themis_tacos_send_t *cur = malloc((sy.cap_sends ? sy.cap_sends : 1) * sizeof(*cur));
    sy.batch_end = malloc((sy.cap_sends ? sy.cap_sends : 1) * sizeof(*sy.batch_end));
    out->sends = malloc((sy.cap_sends ? sy.cap_sends : 1) * sizeof(*out->sends));
    if (NULL == sy.ser || NULL == sy.lat || NULL == sy.prio || NULL == sy.by_prio
        || NULL == sy.claimed || NULL == sy.arrived || NULL == sy.ready || NULL == sy.head
        || NULL == sy.tail || NULL == sy.busy || NULL == sy.marked || NULL == sy.tries
        || NULL == sy.group || NULL == sy.holders || NULL == sy.cand || NULL == sy.ncand
        || NULL == sy.match || NULL == sy.owner || NULL == sy.seen || NULL == sy.mask
        || NULL == sy.pent || NULL == sy.batch_end || NULL == sy.end_at
        || (sy.hetero && (NULL == sy.eta || NULL == sy.carrier || NULL == sy.fastest_in))
        || NULL == keys || NULL == cur || NULL == out->sends) {
        st = THEMIS_ERR_NOMEM;
    }
    /* Every time stays below 2^63: at most `need` sends one after another. */
    themis_time_t longest = 0;
    for (uint32_t l = 0; THEMIS_OK == st && l < g->nlinks; ++l) {
        if (themis_graph_link_working(g, l)) {
            sy.ser[l] = themis_tacos_ser_ps(chunk_bytes, g->links[l].bw_bps);
            sy.lat[l] = g->links[l].lat_ps;
            sy.any_lat |= 0 != sy.lat[l];
            if (sy.ser[l] + sy.lat[l] > longest) {
                longest = sy.ser[l] + sy.lat[l];
            }
        }
    }
    if (THEMIS_OK == st && 0 != longest && (uint64_t) need + 1 > (1ull << 63) / longest) {
        snprintf(why, len, "times beyond 64 bits");
        st = THEMIS_ERR_INVALID;
    }
    out->time_ps = UINT64_MAX;
    themis_time_t best = UINT64_MAX;
    int retime = 0;     /* the winner runs in free order, not as planned */
    /* No seed beats the lower bound (ties go to the lower seed): stop
     * there, the same result sooner. */
    themis_time_t floor = THEMIS_OK == st
                              ? themis_tacos_lower_bound(g, THEMIS_COLL_ALLGATHER, k, chunk_bytes)
                              : 0;
    floor = UINT64_MAX == floor ? 0 : floor;    /* no path: the seed says why */
    for (uint32_t s = 0; s < nseeds && THEMIS_OK == st && best > floor; ++s) {
        themis_time_t t = 0, rank;
        st = run_seed(&sy, s, keys, cur, need, &t, why, len);
        int order = sy.occupy;
        rank = t;
        if (THEMIS_OK == st && (sy.track || RULE_PUBLIC == sy.rule)) {
            /* Steals leave links idle where dropped sends were, and
             * RULE_PUBLIC sends chunks out of their arrival order: the
             * link simulator, serving what comes first, may run such a
             * plan sooner or later than planned (each link's order kept:
             * a latency more per send back to back): seeds compete by the
             * simulated time, in free order, or in link order when that
             * is later than planned, whichever is less
             * (mesh2d_hetero:7x10 16/73 GiB/s, k=3: the least planned
             * time simulates 0.8 % slower than another seed's). */
            themis_tacos_ag_t view = {.nnodes = n, .k = k, .nchunks = nchunks, .nsends = need,
                                      .sends = cur, .time_ps = t};
            themis_xfer_sched_t sched;
            st = themis_tacos_schedule(g, NULL, &view, THEMIS_COLL_ALLGATHER, &sched);
            rank = THEMIS_OK == st ? themis_tacos_simulated(g, &sched, chunk_bytes) : 0;
            themis_xfer_free(&sched);
            view.link_order = 1;
            if (THEMIS_OK == st && rank > t) {
                st = themis_tacos_schedule(g, NULL, &view, THEMIS_COLL_ALLGATHER, &sched);
                themis_time_t ro = THEMIS_OK == st ? themis_tacos_simulated(g, &sched, chunk_bytes)
                                                   : 0;
                themis_xfer_free(&sched);
                order = ro < rank;
                rank = order ? ro : rank;
            }
        }
        if (THEMIS_OK == st && rank < best) {
            themis_tacos_send_t *x = out->sends;
            out->sends = cur;
            cur = x;
            retime = rank != t && !order;
            best = rank;
            out->time_ps = t;
            out->seed = s;
            out->link_order = (uint8_t) order;
        }
    }
    if (THEMIS_OK == st && retime) {
        st = take_simulated(g, out, n, k, nchunks, need, chunk_bytes);
    }
    free(cur);
    free(keys);
    synth_free(&sy);
    if (THEMIS_OK != st) {
        themis_tacos_ag_free(out);
        return st;
    }
    out->nnodes = n;
    out->k = k;
    out->nchunks = nchunks;
    out->nsends = need;
    return THEMIS_OK;
}

themis_time_t themis_tacos_lower_bound(const themis_graph_t *g, themis_coll_t coll, uint32_t k,
                                       uint64_t chunk_bytes)
{
    uint32_t n = 0;
    for (uint32_t v = 0; v < g->nnodes; ++v) {
        n += !g->node_failed[v];
    }
    uint64_t need = (uint64_t) (n - (0 < n)) * k;
    themis_time_t *ser = calloc(g->nlinks ? g->nlinks : 1, sizeof(*ser));
    uint32_t *all = calloc(g->nlinks ? g->nlinks : 1, sizeof(*all));
    themis_time_t bound = 0;

    if (NULL == ser || NULL == all) {
        free(ser);
        free(all);
        return UINT64_MAX;
    }
    for (uint32_t l = 0; l < g->nlinks; ++l) {
        ser[l] = themis_graph_link_working(g, l)
                     ? themis_tacos_ser_ps(chunk_bytes, g->links[l].bw_bps)
                     : 0;
        all[l] = l;
    }
    for (uint32_t v = 0; 0 != need && 0 != chunk_bytes && v < g->nnodes; ++v) {
        if (g->node_failed[v]) {
            continue;
        }
        /* every chunk but its own arrives (AG), every contribution of its
         * own but to its own leaves (RS); allreduce does both */
        themis_time_t t_in = themis_cut_least_time(g, g->in_links + g->in_first[v],
                                        g->in_first[v + 1] - g->in_first[v], ser, need);
        themis_time_t t_out = themis_cut_least_time(g, g->out_links + g->out_first[v],
                                         g->out_first[v + 1] - g->out_first[v], ser, need);
        themis_time_t t = THEMIS_COLL_ALLGATHER == coll         ? t_in
                          : THEMIS_COLL_REDUCE_SCATTER == coll ? t_out
                          : (t_in > t_out ? t_in : t_out);
        bound = t > bound ? t : bound;
    }
    if (THEMIS_COLL_ALLREDUCE == coll && 0 != need && 0 != chunk_bytes && UINT64_MAX != bound) {
        /* An allreduce moves at least 2 n (n k - k) chunks in all: each
         * node's contributions leave it, every result reaches it. */
        themis_time_t t = themis_cut_least_time(g, all, g->nlinks, ser, 2 * (uint64_t) n * need);
        bound = t > bound ? t : bound;
    }
    free(ser);
    free(all);
    return bound;
}

themis_status_t themis_tacos_working(const themis_graph_t *g, themis_graph_t *out,
                                     uint32_t *node_of_rank, uint32_t *nranks)
{
    uint32_t *rank = malloc((g->nnodes ? g->nnodes : 1) * sizeof(*rank));
    uint32_t n = 0;
    char why[128];
    themis_status_t st;

    memset(out, 0, sizeof(*out));
    if (NULL == rank) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t v = 0; v < g->nnodes; ++v) {
        rank[v] = g->node_failed[v] ? UINT32_MAX : n;
        if (!g->node_failed[v]) {
            node_of_rank[n++] = v;
        }
    }
    *nranks = n;
    st = 0 == n ? THEMIS_ERR_INVALID : themis_graph_init(out, n);
    for (uint32_t l = 0; THEMIS_OK == st && l < g->nlinks; ++l) {
        const themis_link_t *x = &g->links[l];
        if (themis_graph_link_working(g, l)) {
            st = themis_graph_add_link(out, rank[x->src], rank[x->dst], x->bw_bps, x->lat_ps);
        }
    }
    if (THEMIS_OK == st) {
        st = themis_graph_finish(out, why, sizeof(why));
    }
    free(rank);
    if (THEMIS_OK != st) {
        themis_graph_free(out);
    }
    return st;
}
