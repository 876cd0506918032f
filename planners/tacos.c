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

#include "xfer_tracker.h"

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
    themis_time_t *arrived;         /* [n * nchunks] when a node got a chunk */
    uint32_t *ready;                /* [nlinks * nchunks] ready lists */
    uint32_t *head, *tail;          /* [nlinks] */
    uint8_t *busy, *marked;         /* [nlinks] */
    uint32_t *tries;                /* [nlinks] positions of the links to try now */
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

/* The chunk link l sends now, or UINT32_MAX: the oldest on its ready list
 * that the far end lacks, a random one among those that arrived together.
 * Useless entries at the head are dropped for good. */
static uint32_t pick(synth_t *sy, uint32_t l)
{
    uint32_t *q = sy->ready + (size_t) l * sy->nchunks;
    uint32_t v = sy->g->links[l].dst, u = sy->g->links[l].src;
    const themis_time_t *at = sy->arrived + (size_t) u * sy->nchunks;
    uint32_t h = sy->head[l], e;

    while (h < sy->tail[l] && has(sy, v, q[h])) {
        ++h;
    }
    if (h == sy->tail[l]) {
        sy->head[l] = h;
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
    memset(sy->head, 0, sy->nlinks * sizeof(*sy->head));
    memset(sy->tail, 0, sy->nlinks * sizeof(*sy->tail));
    memset(sy->busy, 0, sy->nlinks);
    memset(sy->marked, 0, sy->nlinks);
    sy->nheap = 0;
    sy->ntries = 0;
    sy->rng = THEMIS_TACOS_SEED_BASE + (uint64_t) seed;
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
        qsort(sy->tries, sy->ntries, sizeof(*sy->tries), cmp_u32);
        for (uint32_t i = 0; i < sy->ntries && THEMIS_OK == st; ++i) {
            uint32_t l = sy->by_prio[sy->tries[i]];
            sy->marked[l] = 0;
            uint32_t c = pick(sy, l);
            if (UINT32_MAX == c) {
                continue;   /* idles until its source receives a chunk */
            }
            claim(sy, g->links[l].dst, c);
            sy->busy[l] = 1;
            sends[nsends] = (themis_tacos_send_t) {.link = l, .chunk = c, .start_ps = now,
                                                   .arrive_ps = now + sy->ser[l] + sy->lat[l]};
            st = ev_push(sy, now + sy->ser[l], EV_FREE, l);
            if (THEMIS_OK == st) {
                st = ev_push(sy, sends[nsends].arrive_ps, EV_ARRIVE, nsends);
            }
            ++nsends;
        }
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
    link_key_t *keys = calloc(nl, sizeof(*keys));
    themis_tacos_send_t *cur = malloc((need ? need : 1) * sizeof(*cur));
    out->sends = malloc((need ? need : 1) * sizeof(*out->sends));
    if (NULL == sy.ser || NULL == sy.lat || NULL == sy.prio || NULL == sy.by_prio
        || NULL == sy.claimed || NULL == sy.arrived || NULL == sy.ready || NULL == sy.head
        || NULL == sy.tail || NULL == sy.busy || NULL == sy.marked || NULL == sy.tries
        || NULL == keys || NULL == cur || NULL == out->sends) {
        st = THEMIS_ERR_NOMEM;
    }
    /* Every time stays below 2^63: at most `need` sends one after another. */
    themis_time_t longest = 0;
    for (uint32_t l = 0; THEMIS_OK == st && l < g->nlinks; ++l) {
        if (themis_graph_link_working(g, l)) {
            sy.ser[l] = themis_tacos_ser_ps(chunk_bytes, g->links[l].bw_bps);
            sy.lat[l] = g->links[l].lat_ps;
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

/* Reduce-scatter part: rev's sends (an All-Gather on the transpose)
 * reversed, each child's partial sum into
 * a scratch unit of its parent and folded into the parent's INPUT unit;
 * then each owner's copy to its OUTPUT (out_base: 0 for allreduce, whose
 * OUTPUT is the whole vector, the owner's first chunk for reduce-scatter).
 * last[link]: the link's latest send when the link order is kept, else
 * NULL. */
static themis_status_t reduce_part(themis_xfer_tracker_t *tr, const themis_graph_t *g,
                                   const themis_tacos_ag_t *ag, int whole, uint64_t *slot,
                                   uint32_t *last)
{
    themis_status_t st = THEMIS_OK;
    for (uint32_t i = ag->nsends; i-- > 0 && THEMIS_OK == st;) {
        const themis_tacos_send_t *x = &ag->sends[i];
        /* a send parent -> child on the transpose: link child -> parent */
        uint32_t parent = g->links[x->link].dst, child = g->links[x->link].src;
        uint64_t s = slot[parent]++;
        st = themis_xfer_tracker_add_after(tr, NULL != last ? last[x->link] : UINT32_MAX, child,
                                           parent, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, x->chunk,
                                           THEMIS_BUF_SCRATCH, s, 1,
                                           NULL != last ? &last[x->link] : NULL);
        if (THEMIS_OK == st) {
            st = themis_xfer_tracker_add(tr, parent, parent, THEMIS_XFER_REDUCE,
                                         THEMIS_BUF_SCRATCH, s, THEMIS_BUF_INPUT, x->chunk, 1);
        }
    }
    for (uint32_t c = 0; c < ag->nchunks && THEMIS_OK == st; ++c) {
        uint32_t o = c / ag->k;
        st = themis_xfer_tracker_add(tr, o, o, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, c,
                                     THEMIS_BUF_OUTPUT, whole ? c : c - o * ag->k, 1);
    }
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
    uint32_t *last = NULL;

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
    if ((NULL != rev && rev->link_order) || (NULL != fwd && fwd->link_order)) {
        last = malloc((g->nlinks ? g->nlinks : 1) * sizeof(*last));
        for (uint32_t l = 0; NULL != last && l < g->nlinks; ++l) {
            last[l] = UINT32_MAX;
        }
    }
    if (NULL == slot || (NULL == last && ((NULL != rev && rev->link_order)
                                          || (NULL != fwd && fwd->link_order)))) {
        free(slot);
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
        st = reduce_part(&tr, g, rev, THEMIS_COLL_ALLREDUCE == coll, slot, last);
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
        st = themis_xfer_tracker_add_after(&tr, NULL != last ? last[x->link] : UINT32_MAX, u, v,
                                           THEMIS_XFER_COPY,
                                           from_input ? THEMIS_BUF_INPUT : THEMIS_BUF_OUTPUT,
                                           from_input ? x->chunk - u * k : x->chunk,
                                           THEMIS_BUF_OUTPUT, x->chunk, 1,
                                           NULL != last ? &last[x->link] : NULL);
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

themis_status_t themis_tacos_synthesize_with(const themis_graph_t *g, themis_coll_t coll,
                                             themis_tacos_ag_fn ag, void *ctx,
                                             themis_xfer_sched_t *out, char *why, size_t len)
{
    themis_tacos_ag_t rev, fwd;
    themis_graph_t t;
    themis_status_t st = THEMIS_OK;

    memset(out, 0, sizeof(*out));
    memset(&rev, 0, sizeof(rev));
    memset(&fwd, 0, sizeof(fwd));
    memset(&t, 0, sizeof(t));
    if (THEMIS_COLL_ALLGATHER != coll) {
        st = themis_tacos_transpose(g, &t);
        if (THEMIS_OK == st) {
            st = ag(&t, ctx, &rev, why, len);
        }
    }
    if (THEMIS_OK == st && THEMIS_COLL_REDUCE_SCATTER != coll) {
        st = ag(g, ctx, &fwd, why, len);
    }
    if (THEMIS_OK == st) {
        st = themis_tacos_schedule(g, THEMIS_COLL_ALLGATHER != coll ? &rev : NULL,
                                   THEMIS_COLL_REDUCE_SCATTER != coll ? &fwd : NULL, coll, out);
        if (THEMIS_OK != st) {
            snprintf(why, len, "no schedule from the synthesis");
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
    return themis_tacos_synthesize_with(g, coll, greedy_ag, &c, out, why, len);
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
