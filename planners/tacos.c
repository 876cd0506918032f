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

#include "link_sim.h"
#include "xfer_tracker.h"

/* Seeds alternate between two rules (seed % RULES), the best result
 * wins:
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
 * there and hold up the planned one). */
#define MATCH_WIDTH 8u
enum { RULE_FIFO = 0, RULE_MATCHED, RULES };

/* Heap events at one time: link frees, then arrivals (so that a link's
 * choice sees every chunk that arrived at that time), each by index. */
enum { EV_FREE = 0, EV_ARRIVE = 1 };

typedef struct {
    themis_time_t t;
    uint32_t kind, id;
} event_t;

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
    /* Matching of the links that choose now, grouped by far end. */
    uint32_t *cand, *ncand;         /* [nlinks * MATCH_WIDTH] ready-list positions, [nlinks] */
    uint32_t *match;                /* [nlinks] chosen position in cand, or UINT32_MAX */
    uint32_t *owner, *seen;         /* [nchunks] link holding a chunk in the matching, stamp */
    uint32_t stamp;
    themis_time_t *arrived;         /* [n * nchunks] when a node got a chunk */
    uint32_t *ready;                /* [nlinks * nchunks] ready lists */
    uint32_t *head, *tail;          /* [nlinks] */
    uint8_t *busy, *marked;         /* [nlinks] */
    uint32_t *tries;                /* [nlinks] positions of the links to try now */
    uint64_t *group;                /* [nlinks] far end << 32 | position, of the tries */
    uint32_t ntries;
    event_t *heap;
    uint32_t nheap, cap_heap;
    uint64_t rng;
} synth_t;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) for the small n of a tie (n >= 1). */
static uint32_t draw(synth_t *sy, uint32_t n)
{
    return (uint32_t) (splitmix64(&sy->rng) % n);
}

static int ev_less(const event_t *a, const event_t *b)
{
    if (a->t != b->t) {
        return a->t < b->t;
    }
    if (a->kind != b->kind) {
        return a->kind < b->kind;
    }
    return a->id < b->id;
}

static themis_status_t ev_push(synth_t *sy, themis_time_t t, uint32_t kind, uint32_t id)
{
    if (sy->nheap == sy->cap_heap) {
        uint32_t cap = 0 == sy->cap_heap ? 1024 : 2 * sy->cap_heap;
        event_t *h = realloc(sy->heap, (size_t) cap * sizeof(*h));
        if (NULL == h) {
            return THEMIS_ERR_NOMEM;
        }
        sy->heap = h;
        sy->cap_heap = cap;
    }
    uint32_t i = sy->nheap++;
    event_t e = {.t = t, .kind = kind, .id = id};
    while (i > 0 && ev_less(&e, &sy->heap[(i - 1) / 2])) {
        sy->heap[i] = sy->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    sy->heap[i] = e;
    return THEMIS_OK;
}

static event_t ev_pop(synth_t *sy)
{
    event_t top = sy->heap[0];
    event_t last = sy->heap[--sy->nheap];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= sy->nheap) {
            break;
        }
        if (c + 1 < sy->nheap && ev_less(&sy->heap[c + 1], &sy->heap[c])) {
            c++;
        }
        if (!ev_less(&sy->heap[c], &last)) {
            break;
        }
        sy->heap[i] = sy->heap[c];
        i = c;
    }
    if (sy->nheap > 0) {
        sy->heap[i] = last;
    }
    return top;
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
        if (0 != sy->ser[l] && !has(sy, g->links[l].dst, c)) {
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
    uint32_t v = sy->g->links[l].dst, h = sy->head[l];
    while (h < sy->tail[l] && has(sy, v, q[h])) {
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
    uint32_t v = sy->g->links[l].dst, u = sy->g->links[l].src;
    const themis_time_t *at = sy->arrived + (size_t) u * sy->nchunks;
    uint32_t *cand = sy->cand + (size_t) l * MATCH_WIDTH;
    uint64_t key[MATCH_WIDTH];
    uint32_t n = 0;

    for (uint32_t i = drop_useless_head(sy, l); i < sy->tail[l] && n < MATCH_WIDTH; ++i) {
        if (has(sy, v, q[i])) {
            continue;
        }
        /* insertion by (arrival, holders, random) */
        uint64_t k = (uint64_t) sy->holders[q[i]] << 32 | (splitmix64(&sy->rng) >> 32);
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

/* The chunk link l sends now, or UINT32_MAX: the oldest on its ready list
 * that the far end lacks, a random one among those that arrived together.
 * Useless entries at the head are dropped for good. */
static uint32_t pick(synth_t *sy, uint32_t l)
{
    uint32_t *q = sy->ready + (size_t) l * sy->nchunks;
    uint32_t v = sy->g->links[l].dst, u = sy->g->links[l].src;
    const themis_time_t *at = sy->arrived + (size_t) u * sy->nchunks;
    uint32_t h = drop_useless_head(sy, l), e;

    if (h == sy->tail[l]) {
        return UINT32_MAX;
    }
    /* The group that arrived with the head: useless ones move to the
     * front and are dropped, the useful ones stay [h, e). */
    themis_time_t t0 = at[q[h]];
    for (e = h; e < sy->tail[l] && t0 == at[q[e]]; ++e) {
        if (has(sy, v, q[e])) {
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

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return (x > y) - (x < y);
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
    themis_status_t st;
    claim(sy, sy->g->links[l].dst, c);
    sy->busy[l] = 1;
    sends[*nsends] = (themis_tacos_send_t) {.link = l, .chunk = c, .start_ps = now,
                                            .arrive_ps = now + sy->ser[l] + sy->lat[l]};
    st = ev_push(sy, now + sy->ser[l] + (sy->occupy ? sy->lat[l] : 0), EV_FREE, l);
    if (THEMIS_OK == st) {
        st = ev_push(sy, sends[*nsends].arrive_ps, EV_ARRIVE, *nsends);
    }
    ++*nsends;
    return st;
}

/* RULE_FIFO: the links that choose now, one after another in priority
 * order. */
static themis_status_t choose_fifo(synth_t *sy, themis_time_t now, themis_tacos_send_t *sends,
                                   uint32_t *nsends)
{
    themis_status_t st = THEMIS_OK;
    qsort(sy->tries, sy->ntries, sizeof(*sy->tries), cmp_u32);
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

/* RULE_MATCHED: the links that choose now, by far end, each far end's in
 * priority order; links left unmatched look past their candidates. */
static themis_status_t choose_matched(synth_t *sy, themis_time_t now,
                                      themis_tacos_send_t *sends, uint32_t *nsends)
{
    themis_status_t st = THEMIS_OK;
    for (uint32_t i = 0; i < sy->ntries; ++i) {
        uint32_t l = sy->by_prio[sy->tries[i]];
        sy->group[i] = (uint64_t) sy->g->links[l].dst << 32 | sy->tries[i];
    }
    qsort(sy->group, sy->ntries, sizeof(*sy->group), cmp_u64);
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

/* One greedy synthesis with seed `seed` into sends[0 .. need). */
static themis_status_t run_seed(synth_t *sy, uint32_t seed, link_key_t *keys,
                                themis_tacos_send_t *sends, uint32_t need, themis_time_t *time,
                                char *why, size_t len)
{
    const themis_graph_t *g = sy->g;
    uint32_t nsends = 0;
    themis_time_t now = 0, last = 0;
    themis_status_t st = THEMIS_OK;

    memset(sy->claimed, 0, (size_t) sy->n * sy->words * sizeof(*sy->claimed));
    memset(sy->holders, 0, (size_t) sy->nchunks * sizeof(*sy->holders));
    memset(sy->owner, 0xff, (size_t) sy->nchunks * sizeof(*sy->owner));
    memset(sy->seen, 0, (size_t) sy->nchunks * sizeof(*sy->seen));
    sy->stamp = 0;
    sy->rule = seed % RULES;
    sy->occupy = 1 == sy->k && sy->any_lat && 1 == (seed / RULES) % 2;
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
        keys[l] = (link_key_t) {.dur = sy->ser[l] + sy->lat[l], .key = splitmix64(&sy->rng),
                                .link = l};
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
        st = RULE_FIFO == sy->rule ? choose_fifo(sy, now, sends, &nsends)
                                   : choose_matched(sy, now, sends, &nsends);
        sy->ntries = 0;
        if (THEMIS_OK != st || 0 == sy->nheap) {
            break;
        }
        now = sy->heap[0].t;
        while (0 < sy->nheap && now == sy->heap[0].t) {
            event_t e = ev_pop(sy);
            if (EV_FREE == e.kind) {
                sy->busy[e.id] = 0;
                try_link(sy, e.id);
            } else {
                got(sy, g->links[sends[e.id].link].dst, sends[e.id].chunk, now);
                last = now;
            }
        }
    }
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
    uint64_t work = (uint64_t) g->nlinks * g->nnodes * k;
    uint64_t s = 0 == work ? THEMIS_TACOS_AUTO_MAX_SEEDS : THEMIS_TACOS_AUTO_WORK / work;
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
    free(sy->holders);
    free(sy->cand);
    free(sy->ncand);
    free(sy->match);
    free(sy->owner);
    free(sy->seen);
    free(sy->heap);
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
    sy.holders = calloc(nchunks, sizeof(*sy.holders));
    sy.cand = calloc(nl * MATCH_WIDTH, sizeof(*sy.cand));
    sy.ncand = calloc(nl, sizeof(*sy.ncand));
    sy.match = calloc(nl, sizeof(*sy.match));
    sy.owner = calloc(nchunks, sizeof(*sy.owner));
    sy.seen = calloc(nchunks, sizeof(*sy.seen));
    link_key_t *keys = calloc(nl, sizeof(*keys));
    themis_tacos_send_t *cur = malloc((need ? need : 1) * sizeof(*cur));
    out->sends = malloc((need ? need : 1) * sizeof(*out->sends));
    if (NULL == sy.ser || NULL == sy.lat || NULL == sy.prio || NULL == sy.by_prio
        || NULL == sy.claimed || NULL == sy.arrived || NULL == sy.ready || NULL == sy.head
        || NULL == sy.tail || NULL == sy.busy || NULL == sy.marked || NULL == sy.tries
        || NULL == sy.group || NULL == sy.holders || NULL == sy.cand || NULL == sy.ncand
        || NULL == sy.match || NULL == sy.owner || NULL == sy.seen
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
    for (uint32_t s = 0; s < nseeds && THEMIS_OK == st; ++s) {
        themis_time_t t = 0;
        st = run_seed(&sy, s, keys, cur, need, &t, why, len);
        if (THEMIS_OK == st && t < out->time_ps) {
            themis_tacos_send_t *x = out->sends;
            out->sends = cur;
            cur = x;
            out->time_ps = t;
            out->seed = s;
            out->link_order = sy.occupy;
        }
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
 * last, which ends the reduce-scatter, in *chain. */
static themis_status_t reduce_part(themis_xfer_tracker_t *tr, const themis_graph_t *g,
                                   const themis_tacos_ag_t *ag, int whole, uint64_t *slot,
                                   uint32_t *ready, uint32_t *chain)
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
            st = themis_xfer_tracker_add_after(tr, *end, o, o, THEMIS_XFER_COPY,
                                               THEMIS_BUF_INPUT, c, THEMIS_BUF_OUTPUT,
                                               whole ? c : c - o * ag->k, 1,
                                               NULL != chain ? end : NULL);
        }
    }
    free(pend);
    free(next);
    free(unit);
    return st;
}

themis_status_t themis_tacos_schedule(const themis_graph_t *g, const themis_tacos_ag_t *rev,
                                      const themis_tacos_ag_t *fwd, themis_coll_t coll,
                                      themis_xfer_sched_t *out)
{
    themis_xfer_tracker_t tr;
    themis_status_t st;
    const themis_tacos_ag_t *any = NULL != rev ? rev : fwd;
    uint64_t *slot;
    uint32_t *last = NULL, end = UINT32_MAX;

    memset(out, 0, sizeof(*out));
    if ((THEMIS_COLL_ALLREDUCE != coll && THEMIS_COLL_REDUCE_SCATTER != coll
         && THEMIS_COLL_ALLGATHER != coll)
        || (THEMIS_COLL_ALLGATHER != coll && NULL == rev)
        || (THEMIS_COLL_REDUCE_SCATTER != coll && NULL == fwd) || g->nnodes != any->nnodes
        || (NULL != rev && NULL != fwd && (rev->nnodes != fwd->nnodes || rev->k != fwd->k))) {
        return THEMIS_ERR_INVALID;
    }
    uint32_t n = any->nnodes, k = any->k, nchunks = any->nchunks;
    slot = calloc(n, sizeof(*slot));
    last = malloc((g->nlinks ? g->nlinks : 1) * sizeof(*last));
    for (uint32_t l = 0; NULL != last && l < g->nlinks; ++l) {
        last[l] = UINT32_MAX;
    }
    if (NULL == slot || NULL == last) {
        free(slot);
        free(last);
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
    themis_xfer_init(out, coll, n, nchunks);
    snprintf(out->name, sizeof(out->name), "tacos %s k=%u seeds %d/%d", themis_coll_name(coll),
             k, NULL != rev ? (int) rev->seed : -1, NULL != fwd ? (int) fwd->seed : -1);
    out->buf_units[THEMIS_BUF_INPUT] = THEMIS_COLL_ALLGATHER == coll ? k : nchunks;
    out->buf_units[THEMIS_BUF_OUTPUT] = THEMIS_COLL_REDUCE_SCATTER == coll ? k : nchunks;
    out->buf_units[THEMIS_BUF_SCRATCH] = most;
    st = themis_xfer_tracker_init(&tr, out);
    if (THEMIS_OK == st && THEMIS_COLL_ALLGATHER != coll) {
        st = reduce_part(&tr, g, rev, THEMIS_COLL_ALLREDUCE == coll, slot, last,
                         THEMIS_COLL_ALLREDUCE == coll && fwd->after_all ? &end : NULL);
        for (uint32_t l = 0; l < g->nlinks; ++l) {
            last[l] = UINT32_MAX;
        }
    }
    for (uint32_t r = 0; THEMIS_OK == st && THEMIS_COLL_ALLGATHER == coll && r < n; ++r) {
        st = themis_xfer_tracker_add(&tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, 0,
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
        st = themis_xfer_tracker_add_after(&tr, after, u,
                                           v, THEMIS_XFER_COPY,
                                           from_input ? THEMIS_BUF_INPUT : THEMIS_BUF_OUTPUT,
                                           from_input ? x->chunk - u * k : x->chunk,
                                           THEMIS_BUF_OUTPUT, x->chunk, 1,
                                           fwd->link_order ? &last[x->link] : NULL);
    }
    themis_xfer_tracker_free(&tr);
    free(slot);
    free(last);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
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

themis_status_t themis_tacos_synthesize_with(const themis_graph_t *g, themis_coll_t coll,
                                             uint64_t chunk_bytes, themis_tacos_ag_fn ag,
                                             void *ctx, themis_xfer_sched_t *out, char *why,
                                             size_t len)
{
    themis_tacos_ag_t rev, fwd;
    themis_graph_t t;
    themis_status_t st = THEMIS_OK;

    memset(out, 0, sizeof(*out));
    memset(&rev, 0, sizeof(rev));
    memset(&fwd, 0, sizeof(fwd));
    memset(&t, 0, sizeof(t));
    /* Symmetric: one All-Gather on g serves both halves, mirrored for the
     * reduce-scatter. */
    int mirror = THEMIS_COLL_ALLGATHER != coll && symmetric(g);
    if (mirror || THEMIS_COLL_REDUCE_SCATTER != coll) {
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
    if (THEMIS_OK == st) {
        st = themis_tacos_schedule(g, THEMIS_COLL_ALLGATHER != coll ? &rev : NULL,
                                   THEMIS_COLL_REDUCE_SCATTER != coll ? &fwd : NULL, coll, out);
        if (THEMIS_OK != st) {
            snprintf(why, len, "no schedule from the synthesis");
        }
    }
    /* The All-Reduce's All-Gather part starts each chunk when its
     * reduction is done, not all at once as synthesized: in free order, in
     * fwd's link order, or after the whole reduce-scatter, whichever the
     * link simulator finds fastest (the order: torus3d:4x4x6 2.8 % faster
     * than free, torus2d:5x5 7 %; free: mesh2d:4x9 0.04 %); the last takes
     * at most both halves, which the others can exceed. */
    themis_time_t best = 0;
    uint8_t own_order = fwd.link_order;
    for (int v = 0; THEMIS_OK == st && THEMIS_COLL_ALLREDUCE == coll && v < 2; ++v) {
        themis_xfer_sched_t other;
        if (0 == v && own_order) {
            continue;
        }
        fwd.link_order = 0 == v ? 1 : own_order;
        fwd.after_all = 1 == v;
        st = themis_tacos_schedule(g, &rev, &fwd, coll, &other);
        if (0 == best) {
            best = themis_tacos_simulated(g, out, chunk_bytes);
        }
        themis_time_t t = THEMIS_OK == st ? themis_tacos_simulated(g, &other, chunk_bytes) : 0;
        if (THEMIS_OK == st && t < best) {
            themis_xfer_free(out);
            *out = other;
            best = t;
        } else {
            themis_xfer_free(&other);
        }
    }
    themis_tacos_ag_free(&rev);
    themis_tacos_ag_free(&fwd);
    themis_graph_free(&t);
    return st;
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
    themis_status_t st = themis_tacos_synthesize_with(g, coll, chunk_bytes, greedy_ag, &c, out, why, len);
    if (THEMIS_OK == st) {
        st = themis_link_sim_order(g, out, chunk_bytes, why, len);
    }
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}

/* Chunks the links l[0 .. nl) deliver by T. */
static uint64_t carried(const themis_graph_t *g, const uint32_t *l, uint32_t n,
                        const themis_time_t *ser, themis_time_t T)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; ++i) {
        themis_time_t lat = g->links[l[i]].lat_ps, s = ser[l[i]];
        if (0 != s && T >= lat + s) {
            sum += (T - lat) / s;
        }
    }
    return sum;
}

/* The least T by which links l[0 .. nl) can deliver `need` chunks;
 * UINT64_MAX when they cannot (no working link). */
static themis_time_t least_time(const themis_graph_t *g, const uint32_t *l, uint32_t nl,
                                const themis_time_t *ser, uint64_t need)
{
    /* hi: what the best single link alone takes; lo: too little. */
    themis_time_t hi = UINT64_MAX, lo = 0;
    for (uint32_t i = 0; i < nl; ++i) {
        themis_time_t s = ser[l[i]];
        if (0 != s && need <= (UINT64_MAX / 4) / s) {
            themis_time_t t = need * s + g->links[l[i]].lat_ps;
            hi = t < hi ? t : hi;
        }
    }
    if (UINT64_MAX == hi) {
        return hi;
    }
    while (lo + 1 < hi) {
        themis_time_t mid = lo + (hi - lo) / 2;
        if (carried(g, l, nl, ser, mid) >= need) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return hi;
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
        themis_time_t t_in = least_time(g, g->in_links + g->in_first[v],
                                        g->in_first[v + 1] - g->in_first[v], ser, need);
        themis_time_t t_out = least_time(g, g->out_links + g->out_first[v],
                                         g->out_first[v + 1] - g->out_first[v], ser, need);
        themis_time_t t = THEMIS_COLL_ALLGATHER == coll         ? t_in
                          : THEMIS_COLL_REDUCE_SCATTER == coll ? t_out
                          : (t_in > t_out ? t_in : t_out);
        bound = t > bound ? t : bound;
    }
    if (THEMIS_COLL_ALLREDUCE == coll && 0 != need && 0 != chunk_bytes && UINT64_MAX != bound) {
        /* An allreduce moves at least 2 n (n k - k) chunks in all: each
         * node's contributions leave it, every result reaches it. */
        themis_time_t t = least_time(g, all, g->nlinks, ser, 2 * (uint64_t) n * need);
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
