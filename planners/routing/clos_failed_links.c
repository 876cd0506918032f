/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Bound, ejection chains and exact search for any failed-link pattern
 * (clos_failed_links.h).  Vertices of the flow multigraph: 0 .. T-1 the
 * source side of each ToR (its up links), T .. 2T-1 the destination side
 * (its down links); load[x * S + s] counts the flows at side x on spine s.
 */
#include "clos_failed_links.h"

#include <stdlib.h>
#include <string.h>

#include "degree_subgraph.h"
#include "hash.h"

#define NONE UINT32_MAX
/* An ejection chain is at most this long (recursion depth). */
#define CHAIN_DEPTH 4096u
/* Chain steps one flow may spend (a step per flow and spine looked at):
 * an alternating path through every (side, spine) state, and then some,
 * up to 2^22 on the largest Clos. */
#define CHAIN_STEPS(g) \
    ((16ull * (g)->nv * (g)->S + 1024 < (1ull << 22)) ? 16ull * (g)->nv * (g)->S + 1024 \
                                                       : (1ull << 22))

typedef struct {
    uint32_t T, S, m, nv, L;
    const uint8_t *ok;          /* [T * S]: cable (t, s) and spine s up */
    uint32_t *end;              /* [2m]: source side, destination side */
    uint32_t *sp;               /* [m]: spine or NONE */
    uint32_t *load;             /* [nv * S] */
    uint32_t *first, *adj;      /* [nv + 1], [2m]: flows at each side */
    uint32_t *seen, stamp;      /* [nv * S]: chain states visited */
    uint64_t budget;            /* chain steps left for this flow */
} lr_t;

static uint32_t tor_of(const lr_t *g, uint32_t x)
{
    return (x < g->T) ? x : x - g->T;
}

static int allowed(const lr_t *g, uint32_t e, uint32_t s)
{
    return g->ok[(size_t) g->end[2 * e] * g->S + s] &&
           g->ok[(size_t) tor_of(g, g->end[2 * e + 1]) * g->S + s];
}

static uint32_t *load_at(const lr_t *g, uint32_t x, uint32_t s)
{
    return &g->load[(size_t) x * g->S + s];
}

static void put(lr_t *g, uint32_t e, uint32_t s)
{
    g->sp[e] = s;
    ++*load_at(g, g->end[2 * e], s);
    ++*load_at(g, g->end[2 * e + 1], s);
}

static void take(lr_t *g, uint32_t e)
{
    --*load_at(g, g->end[2 * e], g->sp[e]);
    --*load_at(g, g->end[2 * e + 1], g->sp[e]);
    g->sp[e] = NONE;
}

static void new_stamp(lr_t *g)
{
    if (0 == ++g->stamp) {
        memset(g->seen, 0, (size_t) g->nv * g->S * sizeof(*g->seen));
        g->stamp = 1;
    }
}

/* Side x carries L + 1 flows on spine c, every other (side, spine) at
 * most L.  Moves one of x's flows on c to a spine d with room at x; done
 * when its other end y has room on d too, else (y, d) is the one state
 * over L and the chain goes on from there.  Undone on failure. */
static int chain(lr_t *g, uint32_t x, uint32_t c, uint32_t depth)
{
    for (int pass = 0; pass < 2; pass++) {
        /* a step per flow looked at, S per flow whose spines are tried */
        uint32_t deg = g->first[x + 1] - g->first[x];
        if (g->budget < deg) {
            return 0;
        }
        g->budget -= deg;
        for (uint32_t k = g->first[x]; k < g->first[x + 1]; k++) {
            uint32_t e = g->adj[k];
            if (g->sp[e] != c) {
                continue;
            }
            if (g->budget < g->S) {
                return 0;
            }
            g->budget -= g->S;
            uint32_t y = (g->end[2 * e] == x) ? g->end[2 * e + 1] : g->end[2 * e];
            for (uint32_t d = 0; d < g->S; d++) {
                if (d == c || *load_at(g, x, d) >= g->L || !allowed(g, e, d)) {
                    continue;
                }
                /* pass 0: a spine with room at both ends ends the chain */
                int room = (*load_at(g, y, d) < g->L);
                size_t st = (size_t) y * g->S + d;
                if ((0 == pass) != room || (1 == pass && g->seen[st] == g->stamp)) {
                    continue;
                }
                take(g, e);
                put(g, e, d);
                if (room) {
                    return 1;
                }
                if (depth < CHAIN_DEPTH) {
                    g->seen[st] = g->stamp;
                    if (chain(g, y, d, depth + 1)) {
                        return 1;
                    }
                }
                take(g, e);
                put(g, e, c);
            }
        }
    }
    return 0;
}

/* Flow e onto a spine at max load L: directly (the least loaded spine with
 * room at both ends, lowest id on ties), else by an ejection chain from
 * either end.  0 when neither works within g->budget chain steps (set by
 * the caller, spent here). */
static int insert(lr_t *g, uint32_t e)
{
    uint32_t u = g->end[2 * e], v = g->end[2 * e + 1], best = NONE, bl = UINT32_MAX;
    for (uint32_t s = 0; s < g->S; s++) {
        uint32_t a = *load_at(g, u, s), b = *load_at(g, v, s);
        if (a < g->L && b < g->L && allowed(g, e, s) && a + b < bl) {
            bl = a + b;
            best = s;
        }
    }
    if (NONE != best) {
        put(g, e, best);
        return 1;
    }
    for (int side = 0; side < 2; side++) {
        uint32_t has = side ? v : u, over = side ? u : v;
        for (uint32_t s = 0; s < g->S; s++) {
            if (*load_at(g, has, s) >= g->L || !allowed(g, e, s)) {
                continue;
            }
            new_stamp(g);
            put(g, e, s);
            g->seen[(size_t) over * g->S + s] = g->stamp;
            if (chain(g, over, s, 0)) {
                return 1;
            }
            take(g, e);
            if (0 == g->budget) {
                return 0;
            }
        }
    }
    return 0;
}

/* A fixed-seed linear congruential step (Knuth's MMIX constants): the
 * repair's tie-breaks, the same on every machine. */
static uint32_t draw(uint64_t *x, uint32_t n)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t) ((*x >> 33) % n);
}

/* Min-conflicts repair at load L for the flows q[0 .. *left): a flow that
 * no chain places goes onto the allowed spine that evicts the fewest
 * flows (ties drawn), never straight back to the spine it was last
 * evicted from (tabu[]); one flow over L at either end is evicted
 * (drawn) and queued.  Stops when the queue is empty, after `kicks`
 * evictions or after `work` steps (chain steps and spine scans); *left:
 * flows still unplaced, moved to q[0 .. *left).  q holds m + 1 entries
 * (a ring). */
static void repair(lr_t *g, uint32_t *q, uint32_t *left, uint32_t *tabu, uint64_t kicks,
                   uint64_t work, uint64_t *rng)
{
    uint32_t cap = g->m + 1, head = 0, n = *left, L = g->L;
    while (0 != n && 0 != kicks && 0 != work) {
        uint32_t e = q[head];
        head = (head + 1) % cap;
        n--;
        uint64_t give = (CHAIN_STEPS(g) < work) ? CHAIN_STEPS(g) : work;
        g->budget = give;
        int placed = insert(g, e);
        /* every attempt costs at least a scan of the spines */
        work -= give - g->budget;
        work -= (work >= g->S) ? g->S : work;
        if (placed) {
            continue;
        }
        kicks--;
        uint32_t u = g->end[2 * e], v = g->end[2 * e + 1], best = NONE, bc = 3, ties = 0;
        for (uint32_t s = 0; s < g->S; s++) {
            if (!allowed(g, e, s) || s == tabu[e]) {
                continue;
            }
            uint32_t k = (*load_at(g, u, s) >= L) + (*load_at(g, v, s) >= L);
            ties = (k < bc) ? 0 : ties;
            bc = (k < bc) ? k : bc;
            if (k == bc && 0 == draw(rng, ++ties)) {
                best = s;
            }
        }
        best = (NONE == best) ? tabu[e] : best;
        put(g, e, best);
        for (int side = 0; side < 2; side++) {
            uint32_t x = side ? v : u, victim = NONE;
            if (*load_at(g, x, best) <= L) {
                continue;
            }
            ties = 0;
            for (uint32_t k = g->first[x]; k < g->first[x + 1]; k++) {
                uint32_t f = g->adj[k];
                if (f != e && g->sp[f] == best && 0 == draw(rng, ++ties)) {
                    victim = f;
                }
            }
            take(g, victim);
            tabu[victim] = best;
            q[(head + n++) % cap] = victim;
        }
    }
    for (uint32_t k = 0; k < n; k++) {
        tabu[k] = q[(head + k) % cap];
    }
    memcpy(q, tabu, (size_t) n * sizeof(*q));
    *left = n;
}

/* Hall's condition at side x for load L: its flows fit on the spines each
 * may use, at most L per spine (a b-matching, one maximum flow).  Groups
 * flows by the ToR at their other end (same allowed spines).  1 / 0, -1
 * out of memory.  cnt: [T] zeroed scratch, left zeroed. */
static int side_fits(const lr_t *g, uint32_t x, uint32_t L, uint32_t *cnt, uint32_t *grp,
                     uint32_t *el, uint32_t *er, uint32_t *mult, uint32_t *lo, uint32_t *hi,
                     uint32_t *xs)
{
    uint32_t ng = 0, m = 0, tx = tor_of(g, x), S = g->S;
    int narrower = 0;
    for (uint32_t k = g->first[x]; k < g->first[x + 1]; k++) {
        uint32_t e = g->adj[k];
        uint32_t w = tor_of(g, (g->end[2 * e] == x) ? g->end[2 * e + 1] : g->end[2 * e]);
        if (0 == cnt[w]++) {
            grp[ng++] = w;
        }
    }
    for (uint32_t i = 0; i < ng && !narrower; i++) {
        for (uint32_t s = 0; s < S; s++) {
            if (g->ok[(size_t) tx * S + s] && !g->ok[(size_t) grp[i] * S + s]) {
                narrower = 1;
                break;
            }
        }
    }
    int rc = 1;
    if (narrower) {
        /* left: the groups, exactly their flows; right: the spines, <= L */
        for (uint32_t i = 0; i < ng; i++) {
            lo[i] = hi[i] = cnt[grp[i]];
            for (uint32_t s = 0; s < S; s++) {
                if (g->ok[(size_t) tx * S + s] && g->ok[(size_t) grp[i] * S + s]) {
                    el[m] = i;
                    er[m] = s;
                    mult[m++] = cnt[grp[i]];
                }
            }
        }
        for (uint32_t s = 0; s < S; s++) {
            lo[ng + s] = 0;
            hi[ng + s] = L;
        }
        rc = themis_degree_subgraph(ng, S, m, el, er, mult, lo, hi, xs);
    }
    for (uint32_t i = 0; i < ng; i++) {
        cnt[grp[i]] = 0;
    }
    return rc;
}

/* Raises *bound (a proven bound below *load) by Hall's condition, side by
 * side.  THEMIS_ERR_NOMEM. */
static themis_status_t hall_bound(const lr_t *g, uint32_t load, uint32_t *bound)
{
    uint32_t T = g->T, S = g->S, maxdeg = 0;
    for (uint32_t x = 0; x < g->nv; x++) {
        uint32_t d = g->first[x + 1] - g->first[x];
        maxdeg = (d > maxdeg) ? d : maxdeg;
    }
    size_t ng = (maxdeg < T) ? maxdeg : T, arcs = ng * S + 1;
    uint32_t *cnt = calloc((size_t) T, sizeof(*cnt));
    uint32_t *grp = malloc((ng + 1) * sizeof(*grp));
    uint32_t *el = malloc(arcs * sizeof(*el)), *er = malloc(arcs * sizeof(*er));
    uint32_t *mult = malloc(arcs * sizeof(*mult)), *xs = malloc(arcs * sizeof(*xs));
    uint32_t *lo = malloc((ng + S) * sizeof(*lo)), *hi = malloc((ng + S) * sizeof(*hi));
    themis_status_t st = THEMIS_ERR_NOMEM;
    if (NULL == cnt || NULL == grp || NULL == el || NULL == er || NULL == mult || NULL == xs ||
        NULL == lo || NULL == hi) {
        goto out;
    }
    st = THEMIS_OK;
    /* feasibility at a side only grows with L: walk the bound up */
    for (uint32_t x = 0; x < g->nv && *bound < load; x++) {
        int rc;
        while (*bound < load &&
               1 != (rc = side_fits(g, x, *bound, cnt, grp, el, er, mult, lo, hi, xs))) {
            if (rc < 0) {
                st = THEMIS_ERR_NOMEM;
                goto out;
            }
            ++*bound;
        }
    }
out:
    free(cnt);
    free(grp);
    free(el);
    free(er);
    free(mult);
    free(xs);
    free(lo);
    free(hi);
    return st;
}

/* Flows grouped by ToR pair: pair k from side pu[k] to side pv[k], pm[k]
 * flows, po[k] spines allowed (equal for all of them).  In the search the
 * pairs are single flows and asg (their spines, NONE when unrouted) fixes
 * the routed ones. */
typedef struct {
    uint32_t n, *pu, *pv, *pm, *po;
    const uint32_t *asg;
    uint32_t *links, *fin, *fout, *fr;      /* [nv] */
    uint32_t *el, *er, *mult, *xs, *lo, *hi;
} pairs_t;

static void pairs_free(pairs_t *p)
{
    free(p->pu);
    free(p->pv);
    free(p->pm);
    free(p->po);
    free(p->el);
    free(p->er);
    free(p->mult);
    free(p->xs);
    free(p->links);
}

/* Room for m pairs; links[x]: side x's usable links.  -1 out of memory. */
static int pairs_alloc(const lr_t *g, pairs_t *p)
{
    size_t m1 = (size_t) g->m + 1, nv = g->nv;
    memset(p, 0, sizeof(*p));
    p->pu = malloc(m1 * sizeof(uint32_t));
    p->pv = malloc(m1 * sizeof(uint32_t));
    p->pm = malloc(m1 * sizeof(uint32_t));
    p->po = malloc(m1 * sizeof(uint32_t));
    p->el = malloc(m1 * sizeof(uint32_t));
    p->er = malloc(m1 * sizeof(uint32_t));
    p->mult = malloc(m1 * sizeof(uint32_t));
    p->xs = malloc(m1 * sizeof(uint32_t));
    p->links = calloc(nv * 6, sizeof(uint32_t));
    if (NULL == p->pu || NULL == p->pv || NULL == p->pm || NULL == p->po || NULL == p->el ||
        NULL == p->er || NULL == p->mult || NULL == p->xs || NULL == p->links) {
        pairs_free(p);
        return -1;
    }
    p->fin = p->links + nv;
    p->fout = p->fin + nv;
    p->fr = p->fout + nv;
    p->lo = p->fr + nv;
    p->hi = p->lo + nv;
    for (uint32_t x = 0; x < g->nv; x++) {
        for (uint32_t s = 0; s < g->S; s++) {
            p->links[x] += g->ok[(size_t) tor_of(g, x) * g->S + s];
        }
    }
    return 0;
}

/* The spine-split condition for load L and spine s: the flows on s form a
 * subgraph H - with every flow that may take only s, without those that
 * may not take s - with at most L flows at each side, the rest at most
 * L times the side's other links.  A side with exactly L flows per link
 * needs L flows on every spine, so H must cover such sides perfectly: a
 * matching condition across sides that Hall's condition at one side does
 * not see.  One degree-bounded subgraph (max flow).  1 / 0, -1. */
static int split_fits(const lr_t *g, pairs_t *p, uint32_t s, uint32_t L)
{
    uint32_t T = g->T, S = g->S, m = 0;
    memset(p->fin, 0, (size_t) g->nv * sizeof(*p->fin));
    memset(p->fout, 0, (size_t) g->nv * sizeof(*p->fout));
    memset(p->fr, 0, (size_t) g->nv * sizeof(*p->fr));
    for (uint32_t k = 0; k < p->n; k++) {
        uint32_t u = p->pu[k], v = p->pv[k], a = (NULL != p->asg) ? p->asg[k] : NONE;
        int in = g->ok[(size_t) u * S + s] && g->ok[(size_t) tor_of(g, v) * S + s];
        int both = (NONE == a && in && p->po[k] > 1);
        in = (NONE == a) ? in : (a == s);
        uint32_t *cnt = both ? p->fr : in ? p->fin : p->fout;
        cnt[u] += p->pm[k];
        cnt[v] += p->pm[k];
        if (both) {
            p->el[m] = u;
            p->er[m] = v - T;
            p->mult[m++] = p->pm[k];
        }
    }
    for (uint32_t x = 0; x < g->nv; x++) {
        uint64_t on = g->ok[(size_t) tor_of(g, x) * S + s];
        uint64_t capf = (uint64_t) L * on, capr = (uint64_t) L * (p->links[x] - on);
        if (p->fin[x] > capf || p->fout[x] > capr) {
            return 0;
        }
        uint64_t need = (uint64_t) p->fr[x] + p->fout[x];
        p->hi[x] = (uint32_t) ((p->fr[x] < capf - p->fin[x]) ? p->fr[x] : capf - p->fin[x]);
        p->lo[x] = (uint32_t) ((need > capr) ? need - capr : 0);
    }
    return themis_degree_subgraph(T, T, m, p->el, p->er, p->mult, p->lo, p->hi, p->xs);
}

/* Raises *bound (below load) while some spine's split condition fails at
 * *bound.  THEMIS_ERR_NOMEM. */
static themis_status_t split_bound(const lr_t *g, uint32_t load, uint32_t *bound)
{
    uint32_t T = g->T, S = g->S;
    pairs_t p;
    uint32_t *last = malloc((size_t) g->nv * sizeof(*last));
    if (NULL == last || 0 != pairs_alloc(g, &p)) {
        free(last);
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t x = 0; x < g->nv; x++) {
        last[x] = NONE;
    }
    /* pairs by source side, destinations in first-seen order */
    for (uint32_t u = 0; u < T; u++) {
        uint32_t from = p.n;
        for (uint32_t k = g->first[u]; k < g->first[u + 1]; k++) {
            uint32_t e = g->adj[k], v = g->end[2 * e + 1];
            if (NONE != last[v] && last[v] >= from) {
                p.pm[last[v]]++;
                continue;
            }
            last[v] = p.n;
            p.pu[p.n] = u;
            p.pv[p.n] = v;
            p.pm[p.n] = 1;
            p.po[p.n] = 0;
            for (uint32_t s = 0; s < S; s++) {
                p.po[p.n] += allowed(g, e, s);
            }
            p.n++;
        }
    }
    themis_status_t st = THEMIS_OK;
    for (uint32_t s = 0; s < S && *bound < load;) {
        int rc = split_fits(g, &p, s, *bound);
        if (rc < 0) {
            st = THEMIS_ERR_NOMEM;
            break;
        }
        /* *bound infeasible: every spine again at the next load */
        *bound += (0 == rc);
        s = (0 == rc) ? 0 : s + 1;
    }
    free(last);
    pairs_free(&p);
    return st;
}

/* Every side can still take its unrouted flows: the spines with room at
 * side x, each counted up to its room and to the unrouted flows at x that
 * may still take it, add up to at least those flows.  When they add up to
 * exactly that, every spine must get that many, so a spine whose
 * candidates do not exceed its room needs all of them: *fe, *fs is such a
 * forced (flow, spine), the first found, or NONE.  Costs 2 m S steps
 * (from *left). */
static int sides_fit(const lr_t *g, uint32_t L, uint64_t *left, uint32_t *fe, uint32_t *fs)
{
    uint64_t cost = 2ull * g->m * g->S;
    *left -= (*left >= cost) ? cost : *left;
    *fe = NONE;
    for (uint32_t x = 0; x < g->nv; x++) {
        uint32_t rem = 0, cap = 0, xe = NONE, xs = NONE;
        for (uint32_t k = g->first[x]; k < g->first[x + 1]; k++) {
            rem += (NONE == g->sp[g->adj[k]]);
        }
        for (uint32_t s = 0; 0 != rem && s < g->S && cap <= rem; s++) {
            uint32_t room = L - ((*load_at(g, x, s) < L) ? *load_at(g, x, s) : L), can = 0;
            uint32_t one = NONE;
            for (uint32_t k = g->first[x]; 0 != room && k < g->first[x + 1] && can <= room; k++) {
                uint32_t e = g->adj[k];
                uint32_t y = (g->end[2 * e] == x) ? g->end[2 * e + 1] : g->end[2 * e];
                if (NONE == g->sp[e] && *load_at(g, y, s) < L && allowed(g, e, s)) {
                    one = (0 == can++) ? e : one;
                }
            }
            cap += (can < room) ? can : room;
            if (0 != can && can <= room && NONE == xe) {
                xe = one;
                xs = s;
            }
        }
        if (cap < rem) {
            return 0;
        }
        if (cap == rem && NONE == *fe && NONE != xe) {
            *fe = xe;
            *fs = xs;
        }
    }
    return 1;
}

/* Depth-first search for a routing at max load L from scratch: the
 * unrouted flow with the fewest spines left next (lowest index on ties),
 * its spines in id order; an unused spine is skipped when the previous
 * spine with the same usable ToRs (twin[s]) is unused too, since the two
 * are interchangeable.  1: found (g->sp), 0: none exists, 2: *left steps
 * ran out, -1: out of memory. */
static int search(lr_t *g, uint32_t L, const uint32_t *twin, uint32_t *used, uint32_t *un,
                  uint32_t *st_e, uint32_t *st_next, uint32_t *st_only, pairs_t *sp,
                  uint64_t *left)
{
    uint32_t m = g->m, S = g->S, nun = 0, d = 0;
    g->L = L;
    memset(g->load, 0, (size_t) g->nv * S * sizeof(*g->load));
    memset(used, 0, (size_t) S * sizeof(*used));
    for (uint32_t e = 0; e < m; e++) {
        g->sp[e] = NONE;
        un[nun++] = e;
    }
    for (;;) {
        int descend = 0;
        if (0 == nun) {
            return 1;
        }
        /* choose */
        uint32_t best = NONE, bc = UINT32_MAX, bk = 0;
        if ((uint64_t) nun * S > *left) {
            return 2;
        }
        *left -= (uint64_t) nun * S;
        for (uint32_t k = 0; k < nun && 0 != bc; k++) {
            uint32_t e = un[k], cnt = 0, u = g->end[2 * e], v = g->end[2 * e + 1];
            for (uint32_t s = 0; s < S && cnt <= bc; s++) {
                cnt += (*load_at(g, u, s) < L && *load_at(g, v, s) < L && allowed(g, e, s));
            }
            if (cnt < bc || (cnt == bc && e < best)) {
                bc = cnt;
                best = e;
                bk = k;
            }
        }
        uint32_t fe = NONE, fs = NONE;
        if (0 != bc && !sides_fit(g, L, left, &fe, &fs)) {
            bc = 0;
        }
        /* each spine's split condition with the routed flows fixed; a max
         * flow of m arcs per spine, charged 4 m steps each */
        for (uint32_t s = 0; 0 != bc && s < S; s++) {
            *left -= (*left >= 4ull * m) ? 4ull * m : *left;
            int rc = split_fits(g, sp, s, L);
            if (rc < 0) {
                return -1;
            }
            bc = (0 == rc) ? 0 : bc;
        }
        if (1 < bc && NONE != fe) {
            /* a forced spine beats any branching */
            best = fe;
            for (bk = 0; un[bk] != fe; bk++) {
            }
        } else {
            fs = NONE;
        }
        if (0 != bc) {
            un[bk] = un[--nun];
            st_e[d] = best;
            st_next[d] = 0;
            st_only[d] = fs;
            descend = 1;
        }
        /* try the next spine of the top flow; pop while none is left */
        for (;;) {
            if (!descend) {
                if (0 == d) {
                    return 0;
                }
                d--;
                used[g->sp[st_e[d]]]--;
                take(g, st_e[d]);
            }
            uint32_t e = st_e[d], u = g->end[2 * e], v = g->end[2 * e + 1], s = st_next[d];
            *left -= (*left >= S) ? S : *left;
            if (NONE != st_only[d]) {
                /* forced: that spine or nothing (no twin skip needed) */
                s = (s <= st_only[d] && *load_at(g, u, st_only[d]) < L &&
                     *load_at(g, v, st_only[d]) < L) ? st_only[d] : S;
            }
            for (; NONE == st_only[d] && s < S; s++) {
                if (*load_at(g, u, s) < L && *load_at(g, v, s) < L && allowed(g, e, s) &&
                    !(0 == used[s] && NONE != twin[s] && 0 == used[twin[s]])) {
                    break;
                }
            }
            if (s < S) {
                put(g, e, s);
                used[s]++;
                st_next[d] = s + 1;
                d++;
                break;
            }
            un[nun++] = e;
            descend = 0;
            if (0 == *left) {
                return 2;
            }
        }
    }
}

/* twin[s]: the previous working spine usable at exactly the same ToRs, or
 * NONE (columns compared through a hash first). */
static themis_status_t twins(const lr_t *g, uint32_t *twin)
{
    uint32_t T = g->T, S = g->S;
    uint64_t *h = malloc((size_t) S * sizeof(*h));
    if (NULL == h) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t s = 0; s < S; s++) {
        uint64_t x = THEMIS_FNV_OFFSET;
        for (uint32_t t = 0; t < T; t++) {
            x = themis_fnv1a(x, &g->ok[(size_t) t * S + s], 1);
        }
        h[s] = x;
        twin[s] = NONE;
        for (uint32_t p = s; p-- > 0 && NONE == twin[s];) {
            int same = (h[p] == h[s]);
            for (uint32_t t = 0; same && t < T; t++) {
                same = (g->ok[(size_t) t * S + p] == g->ok[(size_t) t * S + s]);
            }
            twin[s] = same ? p : NONE;
        }
    }
    free(h);
    return THEMIS_OK;
}

themis_status_t themis_clos_route_failed_links(const themis_clos_t *c,
                                               const themis_clos_flows_t *f,
                                               const uint32_t *idx, uint32_t n,
                                               uint64_t step_limit, uint32_t *spine,
                                               themis_clos_links_result_t *res)
{
    uint32_t T = c->ntors, S = c->nspines;
    lr_t g = {.T = T, .S = S, .nv = 2 * T};
    memset(res, 0, sizeof(*res));
    size_t states = (size_t) g.nv * S;
    uint8_t *ok = malloc((size_t) T * S);
    uint32_t *ord = malloc(((size_t) n + 1) * sizeof(*ord));
    uint32_t *fl = malloc(((size_t) n + 1) * sizeof(*fl));
    uint32_t *nopt = malloc(((size_t) n + 1) * sizeof(*nopt));
    uint32_t *best = malloc(((size_t) n + 1) * sizeof(*best));
    uint32_t *tabu = malloc(((size_t) n + 1) * sizeof(*tabu));
    uint32_t *cnt = calloc((size_t) S + 2, sizeof(*cnt));
    g.end = malloc((2 * (size_t) n + 1) * sizeof(*g.end));
    g.sp = malloc(((size_t) n + 1) * sizeof(*g.sp));
    g.adj = malloc((2 * (size_t) n + 1) * sizeof(*g.adj));
    g.first = calloc((size_t) g.nv + 2, sizeof(*g.first));
    g.load = calloc(states, sizeof(*g.load));
    g.seen = calloc(states, sizeof(*g.seen));
    uint32_t *twin = NULL, *used = NULL, *un = NULL, *st_e = NULL, *st_next = NULL;
    uint32_t *st_only = NULL;
    pairs_t sp = {0};
    themis_status_t st = THEMIS_ERR_NOMEM;
    if (NULL == ok || NULL == ord || NULL == fl || NULL == nopt || NULL == best || NULL == tabu ||
        NULL == cnt ||
        NULL == g.end || NULL == g.sp || NULL == g.adj || NULL == g.first || NULL == g.load ||
        NULL == g.seen) {
        goto out;
    }
    g.ok = ok;
    for (uint32_t t = 0; t < T; t++) {
        for (uint32_t s = 0; s < S; s++) {
            ok[(size_t) t * S + s] = (uint8_t) themis_clos_usable(c, t, s);
        }
    }
    /* the routable flows; one with no usable spine keeps NONE */
    for (uint32_t k = 0; k < n; k++) {
        const themis_clos_flow_t *x = &f->flows[idx[k]];
        spine[idx[k]] = THEMIS_CLOS_NO_SPINE;
        uint32_t e = g.m, o = 0;
        g.end[2 * e] = x->src_tor;
        g.end[2 * e + 1] = T + x->dst_tor;
        for (uint32_t s = 0; s < S; s++) {
            o += allowed(&g, e, s);
        }
        if (0 != o) {
            fl[e] = idx[k];
            nopt[e] = o;
            g.first[x->src_tor + 2]++;
            g.first[T + x->dst_tor + 2]++;
            cnt[o]++;
            g.m++;
        }
    }
    uint32_t m = g.m;
    for (uint32_t x = 0; x < g.nv; x++) {
        g.first[x + 2] += g.first[x + 1];
    }
    for (uint32_t e = 0; e < m; e++) {
        g.adj[g.first[g.end[2 * e] + 1]++] = e;
        g.adj[g.first[g.end[2 * e + 1] + 1]++] = e;
        g.sp[e] = NONE;
    }
    /* insertion order: fewest allowed spines first, flow order within */
    for (uint32_t s = 1; s <= S; s++) {
        cnt[s] += cnt[s - 1];
    }
    for (uint32_t e = m; e-- > 0;) {
        ord[--cnt[nopt[e]]] = e;
    }
    /* the ToR bound: a side's flows over its usable links */
    uint32_t bound = 0;
    for (uint32_t x = 0; x < g.nv; x++) {
        uint32_t d = g.first[x + 1] - g.first[x], links = 0;
        for (uint32_t s = 0; s < S; s++) {
            links += ok[(size_t) tor_of(&g, x) * S + s];
        }
        if (0 != d) {
            uint32_t q = (d + links - 1) / links;
            bound = (q > bound) ? q : bound;
        }
    }
    /* construction: every flow at L, the ones left over at L + 1, ... (at
     * L = the largest degree every flow fits directly) */
    uint32_t left = m;
    uint64_t rng = 0x7e5a11ull;
    for (g.L = (0 == bound && 0 != m) ? 1 : bound; 0 != left; g.L++) {
        uint32_t before;
        do {
            before = left;
            uint32_t keep = 0;
            for (uint32_t k = 0; k < left; k++) {
                g.budget = CHAIN_STEPS(&g);
                if (!insert(&g, ord[k])) {
                    ord[keep++] = ord[k];
                }
            }
            left = keep;
        } while (0 != left && left < before);
        if (0 != left) {
            for (uint32_t e = 0; e < m; e++) {
                tabu[e] = NONE;
            }
            repair(&g, ord, &left, tabu, 50ull * m + 1000, 64ull * (m + g.nv) * S, &rng);
        }
        if (0 == left) {
            break;
        }
    }
    uint32_t load = (0 == m) ? 0 : g.L;
    res->heuristic = load;
    memcpy(best, g.sp, (size_t) m * sizeof(*best));
    st = THEMIS_OK;
    if (bound < load) {
        st = hall_bound(&g, load, &bound);
    }
    if (THEMIS_OK == st && bound < load) {
        st = split_bound(&g, load, &bound);
    }
    if (THEMIS_OK == st && bound < load) {
        twin = malloc((size_t) S * sizeof(*twin));
        used = malloc((size_t) S * sizeof(*used));
        un = malloc(((size_t) m + 1) * sizeof(*un));
        st_e = malloc(((size_t) m + 1) * sizeof(*st_e));
        st_next = malloc(((size_t) m + 1) * sizeof(*st_next));
        st_only = malloc(((size_t) m + 1) * sizeof(*st_only));
        st = (NULL == twin || NULL == used || NULL == un || NULL == st_e || NULL == st_next ||
              NULL == st_only || 0 != pairs_alloc(&g, &sp))
                 ? THEMIS_ERR_NOMEM
                 : twins(&g, twin);
        /* the search's split pairs: single flows, routed ones fixed */
        for (uint32_t e = 0; THEMIS_OK == st && e < m; e++) {
            sp.pu[e] = g.end[2 * e];
            sp.pv[e] = g.end[2 * e + 1];
            sp.pm[e] = 1;
            sp.po[e] = nopt[e];
        }
        sp.n = m;
        sp.asg = g.sp;
        uint64_t steps = step_limit;
        while (THEMIS_OK == st && bound < load) {
            int rc = search(&g, load - 1, twin, used, un, st_e, st_next, st_only, &sp, &steps);
            if (1 == rc) {
                load--;
                memcpy(best, g.sp, (size_t) m * sizeof(*best));
            } else if (rc < 0) {
                st = THEMIS_ERR_NOMEM;
            } else if (0 == rc) {
                bound = load;
            } else {
                res->limit_hit = 1;
                break;
            }
        }
        res->steps = step_limit - steps;
    }
    for (uint32_t e = 0; THEMIS_OK == st && e < m; e++) {
        spine[fl[e]] = best[e];
    }
    res->load = load;
    res->bound = bound;
out:
    free(ok);
    free(ord);
    free(fl);
    free(nopt);
    free(best);
    free(tabu);
    free(cnt);
    free(g.end);
    free(g.sp);
    free(g.adj);
    free(g.first);
    free(g.load);
    free(g.seen);
    free(twin);
    free(used);
    free(un);
    free(st_e);
    free(st_next);
    free(st_only);
    pairs_free(&sp);
    return st;
}
