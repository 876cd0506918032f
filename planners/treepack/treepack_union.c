/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The runtime's integer spanning-tree packing (treepack.h,
 * themis_tp_union): k edge-disjoint spanning trees of the multigraph that
 * has L x cap_e copies of every edge, each tree carrying 1 / L capacity
 * units, so the packing's value is k / L.  Nash-Williams and Tutte: such
 * trees exist exactly when k <= floor(L x strength), and a matroid union
 * of k forests (Edmonds' augmenting paths) finds them or, when they do not
 * exist, a partition whose ratio is below k / L (the components of what
 * the failed searches reached; Dinkelbach's step for the strength).  The
 * solver alternates the two: the best (L, k) under the current upper
 * bound and the budget of trees, then either a packing (a new lower
 * bound) or a partition (a new upper bound), until they meet or the run
 * budget is spent.  Where that stops short of the bound because the
 * budget holds fewer trees than the strength, the same union packs trees
 * of several weights level by level (levels()): the (L, k) trees refined
 * by residual levels, and levels from the top.  Everything is integer;
 * ties go to the lower edge, forest and L.
 */
#include "treepack.h"
#include "union_find.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rounds of (L, k): each either raises the packing or lowers the bound;
 * the graphs tried need 1 to 5. */
#define UNION_MAX_RUNS 24u
/* Trees of the first rounds; the limit doubles from there. */
#define UNION_FIRST_TREES 8u
/* A packing this close to its bound (per mille) ends the search. */
#define UNION_SETTLE_PERMILLE 5u
/* Union runs of the level packing (levels() below): one per level where
 * the bound is met, a few more where partitions lower it. */
#define LEVEL_MAX_RUNS 64u
/* The level packing's finest weight: about 1 / LEVEL_GRAIN of the
 * strength (level_scale()). */
#define LEVEL_GRAIN 256u
/* Odd multiples of level_scale() the level packing tries. */
#define LEVEL_SCALES 7u
/* First-level weights the refinement of the (L, k) packing tries, in
 * eighths of its tree weight d (1: its own trees; 5/4, 9/8, 3/2):
 * heavier trees leave more of the budget to the residual; which is best
 * depends on how the capacities round. */
static const uint64_t refine_eighths[] = {8, 10, 9, 12};
/* Finer residual weights the refinement tries: the (L, k) weight over
 * 1 and 2. */
#define REFINE_FINER 2u
/* Work (un_t.work: 3 to 5 ns a step) the refinement may take: every
 * candidate on sparse 64-node graphs, two on a 64-node clique. */
#define REFINE_MAX_WORK 6000000u

/* k forests over the copies of the edges.  An item is a forest slot,
 * f * (n - 1) + i (forest f's i-th edge), or a spare copy of edge e
 * being inserted: nslots + e. */
typedef struct {
    const themis_tp_graph_t *g;
    uint32_t n, m, k, nslots;
    uint64_t *spare;          /* [m] copies in no forest */
    uint32_t *fe, *fcount;    /* [nslots] slot edges, [k] edges per forest */
    /* Rooted forests, rebuilt when they change: parent, slot of the edge
     * to the parent, depth and root of every node. */
    uint32_t *par, *pslot, *depth, *root;   /* [k * n] */
    uint32_t *first, *adj, *bfs;            /* [n + 1], [2n], [n] */
    /* Per forest, nodes joined along labelled edges (Roskind and Tarjan):
     * a path walk skips what earlier walks labelled.  A component's
     * representative is its top node, whose edge up is unlabelled. */
    uint32_t *jump;                         /* [k * n] */
    uint32_t *lab, *queue, *src;            /* [nslots + m], [m] */
    uint8_t *dirty;                         /* [k] */
    uint32_t *uf, *order;                   /* [n], [m] */
    /* Steps (edges scanned, items searched times forests) so far, and
     * where levels() stops: a deterministic measure of time. */
    uint64_t work, work_max;
    uint64_t *keys;                         /* [m] */
} un_t;

static void un_free(un_t *s)
{
    free(s->spare);
    free(s->fe);
    free(s->fcount);
    free(s->par);
    free(s->pslot);
    free(s->depth);
    free(s->root);
    free(s->first);
    free(s->adj);
    free(s->bfs);
    free(s->jump);
    free(s->lab);
    free(s->queue);
    free(s->src);
    free(s->dirty);
    free(s->uf);
    free(s->order);
    free(s->keys);
    memset(s, 0, sizeof(*s));
}

static themis_status_t un_alloc(un_t *s, const themis_tp_graph_t *g, uint32_t kmax)
{
    uint32_t n = g->n;
    size_t kn = (size_t) kmax * n + 1, items = (size_t) kmax * (n - 1) + g->m + 1;
    memset(s, 0, sizeof(*s));
    s->g = g;
    s->n = n;
    s->m = g->m;
    s->work_max = UINT64_MAX;
    s->spare = calloc((size_t) g->m + 1, sizeof(*s->spare));
    s->fe = calloc(items, sizeof(*s->fe));
    s->fcount = calloc((size_t) kmax + 1, sizeof(*s->fcount));
    s->par = calloc(kn, sizeof(*s->par));
    s->pslot = calloc(kn, sizeof(*s->pslot));
    s->depth = calloc(kn, sizeof(*s->depth));
    s->root = calloc(kn, sizeof(*s->root));
    s->first = calloc((size_t) n + 1, sizeof(*s->first));
    s->adj = calloc(2 * (size_t) n, sizeof(*s->adj));
    s->bfs = calloc(n, sizeof(*s->bfs));
    s->jump = calloc(kn, sizeof(*s->jump));
    s->lab = calloc(items, sizeof(*s->lab));
    s->queue = calloc(items, sizeof(*s->queue));
    s->src = calloc((size_t) g->m + 1, sizeof(*s->src));
    s->dirty = calloc((size_t) kmax + 1, 1);
    s->uf = calloc(n, sizeof(*s->uf));
    s->order = calloc((size_t) g->m + 1, sizeof(*s->order));
    s->keys = calloc((size_t) g->m + 1, sizeof(*s->keys));
    if (NULL == s->spare || NULL == s->fe || NULL == s->fcount || NULL == s->par
        || NULL == s->pslot || NULL == s->depth || NULL == s->root || NULL == s->first
        || NULL == s->adj || NULL == s->bfs || NULL == s->jump || NULL == s->lab || NULL == s->queue
        || NULL == s->src || NULL == s->dirty || NULL == s->uf || NULL == s->order || NULL == s->keys) {
        un_free(s);
        return THEMIS_ERR_NOMEM;
    }
    return THEMIS_OK;
}

/* Forest f rooted at the least node of each component, breadth first. */
static void un_rebuild(un_t *s, uint32_t f)
{
    const themis_tp_graph_t *g = s->g;
    uint32_t n = s->n, *fe = &s->fe[(size_t) f * (n - 1)];
    uint32_t *par = &s->par[(size_t) f * n], *pslot = &s->pslot[(size_t) f * n];
    uint32_t *dep = &s->depth[(size_t) f * n], *root = &s->root[(size_t) f * n];
    memset(s->first, 0, (n + 1) * sizeof(*s->first));
    for (uint32_t i = 0; i < s->fcount[f]; i++) {
        s->first[g->u[fe[i]] + 1]++;
        s->first[g->v[fe[i]] + 1]++;
    }
    for (uint32_t v = 0; v < n; v++) {
        s->first[v + 1] += s->first[v];
        root[v] = UINT32_MAX;
    }
    memcpy(s->bfs, s->first, n * sizeof(*s->bfs));
    for (uint32_t i = 0; i < s->fcount[f]; i++) {
        s->adj[s->bfs[g->u[fe[i]]]++] = i;
        s->adj[s->bfs[g->v[fe[i]]]++] = i;
    }
    for (uint32_t r = 0; r < n; r++) {
        if (UINT32_MAX != root[r]) {
            continue;
        }
        uint32_t head = 0, tail = 0;
        root[r] = r;
        par[r] = UINT32_MAX;
        dep[r] = 0;
        s->bfs[tail++] = r;
        while (head < tail) {
            uint32_t a = s->bfs[head++];
            for (uint32_t j = s->first[a]; j < s->first[a + 1]; j++) {
                uint32_t i = s->adj[j], e = fe[i], b = g->u[e] == a ? g->v[e] : g->u[e];
                if (UINT32_MAX == root[b]) {
                    root[b] = r;
                    par[b] = a;
                    pslot[b] = i;
                    dep[b] = dep[a] + 1;
                    s->bfs[tail++] = b;
                }
            }
        }
    }
    s->dirty[f] = 0;
}

static uint32_t item_edge(const un_t *s, uint32_t it)
{
    return it < s->nslots ? s->fe[it] : it - s->nslots;
}

/* Breadth-first search of the exchange graph from spare copies of the
 * edges src[0..nsrc) (shortest augmenting paths keep every forest a
 * forest).  When a labelled item's edge joins two trees of a forest, the
 * items along the labels shift one forest each and the source's copy
 * goes in: returns 1.  Else 0, with lab[] != UINT32_MAX on every item
 * reached.  keep: the labels of failed searches since the forests last
 * changed stay; nothing they reached leads anywhere, so the search skips
 * it (and a path of its own labels stays shortest). */
static int un_search(un_t *s, const uint32_t *src, uint32_t nsrc, int keep)
{
    const themis_tp_graph_t *g = s->g;
    uint32_t n = s->n, head = 0, tail = 0;
    for (uint32_t i = 0; i < s->nslots + s->m && !keep; i++) {
        s->lab[i] = UINT32_MAX;
    }
    for (uint32_t i = 0; i < s->k * n && !keep; i++) {
        s->jump[i] = i % n;
    }
    s->work += keep ? 0 : (uint64_t) s->nslots + s->m + (uint64_t) s->k * n;
    for (uint32_t j = 0; j < nsrc; j++) {
        s->lab[s->nslots + src[j]] = s->nslots + src[j];
        s->queue[tail++] = s->nslots + src[j];
    }
    /* Locals for what the labelling below cannot change (its stores
     * would otherwise make the compiler fetch them per forest). */
    const uint32_t k = s->k, nslots = s->nslots;
    const uint32_t *const root0 = s->root, *const par0 = s->par, *const pslot0 = s->pslot;
    const uint32_t *const dep0 = s->depth;
    uint32_t *const jump0 = s->jump, *const lab = s->lab, *const queue = s->queue;
    while (head < tail) {
        const uint32_t it = queue[head++], e = item_edge(s, it);
        const uint32_t cf = it < nslots ? it / (n - 1) : UINT32_MAX;
        const uint32_t ea = g->u[e], eb = g->v[e];
        for (uint32_t f = 0; f < k; f++) {
            const size_t fn = (size_t) f * n;
            if (f == cf) {
                continue;
            }
            if (root0[fn + ea] != root0[fn + eb]) {
                /* it's edge joins f; each labelled predecessor takes the
                 * slot its successor left; the source's copy comes last. */
                uint32_t cur = it, ecur = e;
                s->fe[(size_t) f * (n - 1) + s->fcount[f]++] = ecur;
                s->dirty[f] = 1;
                while (cur < s->nslots) {
                    uint32_t prev = s->lab[cur];
                    ecur = item_edge(s, prev);
                    s->fe[cur] = ecur;
                    s->dirty[cur / (n - 1)] = 1;
                    cur = prev;
                }
                s->spare[ecur]--;
                for (uint32_t h = 0; h < s->k; h++) {
                    if (s->dirty[h]) {
                        un_rebuild(s, h);
                        s->work += n;
                    }
                }
                s->work += (uint64_t) head * s->k;
                return 1;
            }
            uint32_t *jump = &jump0[fn];
            uint32_t a = themis_uf_find(jump, ea), b = themis_uf_find(jump, eb);
            const uint32_t *par = &par0[fn], *pslot = &pslot0[fn], *dep = &dep0[fn];
            while (a != b) {
                uint32_t *up = dep[a] >= dep[b] ? &a : &b;
                uint32_t y = (uint32_t) (f * (n - 1) + pslot[*up]);
                lab[y] = it;
                queue[tail++] = y;
                jump[*up] = par[*up];
                *up = themis_uf_find(jump, par[*up]);
            }
        }
    }
    s->work += (uint64_t) head * s->k;
    return 0;
}

/* Sort key of edge e: spare copies (saturated at 32 bits) high, ties to
 * the lower edge; larger first. */
static uint64_t spare_key(const un_t *s, uint32_t e)
{
    uint64_t sp = s->spare[e] > UINT32_MAX ? UINT32_MAX : s->spare[e];
    return sp << 32 | (UINT32_MAX - e);
}

static int cmp_u64_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return (x < y) - (x > y);
}

/* s->order[0..m): the edges by spare_key, largest first. */
static void order_by_spare(un_t *s)
{
    for (uint32_t e = 0; e < s->m; e++) {
        s->keys[e] = spare_key(s, e);
    }
    qsort(s->keys, s->m, sizeof(*s->keys), cmp_u64_desc);
    for (uint32_t i = 0; i < s->m; i++) {
        s->order[i] = UINT32_MAX - (uint32_t) s->keys[i];
    }
}

/* The order again after forest f took one copy of each of its edges:
 * those keep their relative order, and so do the others, so one merge
 * of the two runs restores it. */
static void reorder_after(un_t *s, uint32_t f)
{
    uint32_t n = s->n, m = s->m, nrest = 0, ntook = 0;
    uint32_t *rest = s->queue, *took = s->queue + m;
    const uint32_t *fe = &s->fe[(size_t) f * (n - 1)];
    uint8_t *mark = (uint8_t *) s->keys;
    memset(mark, 0, m);
    for (uint32_t i = 0; i < s->fcount[f]; i++) {
        mark[fe[i]] = 1;
    }
    for (uint32_t i = 0; i < m; i++) {
        uint32_t e = s->order[i];
        if (mark[e]) {
            took[ntook++] = e;
        } else {
            rest[nrest++] = e;
        }
    }
    for (uint32_t i = 0, a = 0, b = 0; i < m; i++) {
        s->order[i] = b == ntook || (a < nrest && spare_key(s, rest[a]) > spare_key(s, took[b]))
                          ? rest[a++]
                          : took[b++];
    }
}

/*
 * k spanning trees with at most mult[e] copies of each edge: 1 and the
 * trees in s, else 0 and the partition of the last search in part[]
 * (*nparts parts).  First greedily (each forest a maximum spanning tree
 * by spare copies, which keeps the rest balanced), then by augmenting
 * paths; a copy that cannot go in never can (the union's span only
 * grows), so each edge fails once.
 */
static int un_run(un_t *s, const uint64_t *mult, uint32_t k, uint32_t *part, uint32_t *nparts)
{
    uint32_t n = s->n, m = s->m;
    s->k = k;
    s->work += (uint64_t) m * k;
    s->nslots = k * (n - 1);
    for (uint32_t e = 0; e < m; e++) {
        /* Uncapped: copies beyond k stay spare, so the closure below
         * joins the ends of an edge that every forest holds. */
        s->spare[e] = mult[e];
    }
    uint64_t placed = 0;
    order_by_spare(s);
    for (uint32_t f = 0; f < k; f++) {
        if (f > 0) {
            reorder_after(s, f - 1);
        }
        themis_uf_init(s->uf, n);
        s->fcount[f] = 0;
        for (uint32_t i = 0; i < m && s->fcount[f] + 1 < n; i++) {
            uint32_t e = s->order[i];
            if (0 != s->spare[e] && themis_uf_union(s->uf, s->g->u[e], s->g->v[e])) {
                s->fe[(size_t) f * (n - 1) + s->fcount[f]++] = e;
                s->spare[e]--;
            }
        }
        placed += s->fcount[f];
        un_rebuild(s, f);
    }
    int keep = 0;
    for (uint32_t e = 0; e < m && placed < s->nslots; e++) {
        while (0 != s->spare[e] && placed < s->nslots) {
            if (!un_search(s, &e, 1, keep)) {
                keep = 1;
                break;
            }
            keep = 0;
            placed++;
        }
    }
    if (placed == s->nslots) {
        return 1;
    }
    /* The closure of every spare copy: each forest spans its components
     * with reached items only, so the crossing copies are all placed and
     * L cap(crossing) + k (n - parts) = placed < k (n - 1). */
    uint32_t nsrc = 0;
    for (uint32_t e = 0; e < m; e++) {
        if (0 != s->spare[e]) {
            s->src[nsrc++] = e;
        }
    }
    un_search(s, s->src, nsrc, 0);
    themis_uf_init(s->uf, n);
    for (uint32_t it = 0; it < s->nslots + m; it++) {
        if (UINT32_MAX != s->lab[it]) {
            uint32_t e = item_edge(s, it);
            themis_uf_union(s->uf, s->g->u[e], s->g->v[e]);
        }
    }
    *nparts = themis_uf_parts(s->uf, n, part, s->bfs);
    return 0;
}

/* a / b < c / d for b, d > 0. */
static int less(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return (unsigned __int128) a * d < (unsigned __int128) c * b;
}

/* The bound: the least ratio among the single nodes against the rest
 * and all singletons, ties to the lower node, then to the singletons. */
static void first_bound(const themis_tp_graph_t *g, uint32_t *part, uint32_t *nparts,
                        themis_tp_frac_t *ub, uint64_t *deg)
{
    uint64_t sum = 0;
    memset(deg, 0, g->n * sizeof(*deg));
    for (uint32_t e = 0; e < g->m; e++) {
        sum += g->cap[e];
        deg[g->u[e]] += g->cap[e];
        deg[g->v[e]] += g->cap[e];
    }
    uint32_t best = 0;
    for (uint32_t v = 1; v < g->n; v++) {
        best = deg[v] < deg[best] ? v : best;
    }
    *ub = themis_tp_frac(sum, g->n - 1);
    for (uint32_t v = 0; v < g->n; v++) {
        part[v] = v;
    }
    *nparts = g->n;
    if (g->n > 2 && less(deg[best], 1, ub->num, ub->den)) {
        *ub = themis_tp_frac(deg[best], 1);
        for (uint32_t v = 0; v < g->n; v++) {
            part[v] = v == best;
        }
        *nparts = 2;
    }
}

/* Insertion sort of a tree's edges (n - 1 of them): identical trees
 * then compare equal. */
static void sort_tree(uint32_t *tree, uint32_t cnt)
{
    for (uint32_t i = 1; i < cnt; i++) {
        uint32_t x = tree[i], j = i;
        while (j > 0 && tree[j - 1] > x) {
            tree[j] = tree[j - 1];
            j--;
        }
        tree[j] = x;
    }
}

/* The trees of s (k forests, all spanning) as a packing: identical
 * trees (as sorted edge sets) merge, their count the weight times d. */
static themis_status_t to_packing(un_t *s, uint64_t d, uint64_t L, themis_tp_packing_t *out)
{
    uint32_t n = s->n, nt = 0, k = s->k;
    themis_status_t st = themis_tp_packing_alloc(out, THEMIS_TP_UNION, n, k, 1);
    if (THEMIS_OK != st) {
        return st;
    }
    for (uint32_t f = 0; f < k; f++) {
        uint32_t *tree = &s->fe[(size_t) f * (n - 1)];
        sort_tree(tree, n - 1);
        uint32_t t = 0;
        while (t < nt && 0 != memcmp(&out->edges[(size_t) t * (n - 1)], tree,
                                     (n - 1) * sizeof(*tree))) {
            t++;
        }
        if (t == nt) {
            memcpy(&out->edges[(size_t) nt * (n - 1)], tree, (n - 1) * sizeof(*tree));
            nt++;
        }
        out->w[t] += d;
    }
    out->ntrees = nt;
    out->q = L;
    for (uint32_t t = 0; t < nt; t++) {
        out->x[t] = (double) out->w[t] / (double) L;
    }
    out->exact = 1;
    out->value = themis_tp_frac((uint64_t) k * d, L);
    out->value_f = (double) out->value.num / (double) out->value.den;
    return THEMIS_OK;
}

/* The least partition ratio met on g, and its partition. */
typedef struct {
    themis_tp_frac_t ub;
    uint32_t *part;           /* [n] */
    uint32_t np;
} cert_t;

/* The partition part (np parts) bounds g better than c: it is c's now. */
static void cert_offer(const themis_tp_graph_t *g, cert_t *c, const uint32_t *part, uint32_t np)
{
    themis_tp_frac_t r;
    if (THEMIS_OK == themis_tp_partition_ratio(g, part, np, &r)
        && less(r.num, r.den, c->ub.num, c->ub.den)) {
        c->ub = r;
        memcpy(c->part, part, g->n * sizeof(*part));
        c->np = np;
    }
}

/* Tree (sorted edges) with weight w into p, whose first p->ntrees trees
 * are taken: an identical one gains the weight, else it is appended. */
static void add_tree(themis_tp_packing_t *p, const uint32_t *tree, uint64_t w)
{
    uint32_t n = p->n, t = 0;
    while (t < p->ntrees
           && 0 != memcmp(&p->edges[(size_t) t * (n - 1)], tree, (n - 1) * sizeof(*tree))) {
        t++;
    }
    if (t == p->ntrees) {
        memcpy(&p->edges[(size_t) t * (n - 1)], tree, (n - 1) * sizeof(*tree));
        p->ntrees++;
    }
    p->w[t] += w;
}

/* L0 of levels(): the finest level's weight 1 / L0 at most about
 * 1 / LEVEL_GRAIN of the bound ub. */
static uint64_t level_scale(themis_tp_frac_t ub)
{
    uint64_t whole = ub.num / ub.den;
    return whole >= LEVEL_GRAIN ? 1 : (LEVEL_GRAIN + whole) / (whole + 1);
}

/*
 * Trees of several weights, for graphs whose strength exceeds the budget
 * of trees (the (L, k) search then rounds every capacity down to a
 * multiple of d, K64 with capacities 1..16 to 1.22x the bound).  The
 * capacities times L0 are a residual r; level d (dtop, else the largest
 * power of two; then halving) packs as many spanning trees as the graph
 * of floor(r_e / d) copies holds, each of weight d, and takes them off r,
 * so what one level rounds away the next packs finer; init (may be NULL)
 * is the first level instead.  Levels end when the budget of distinct
 * trees or s->work_max is spent (the finest carry least).  out: the
 * trees, w in units of 1 / L0 (q = L0).  part, mult, deg: scratch of n,
 * m, n.
 */
static themis_status_t levels(un_t *s, const themis_tp_graph_t *g, uint64_t L0,
                              uint64_t dtop, const themis_tp_packing_t *init,
                              uint32_t max_trees, cert_t *c, uint64_t *r, uint64_t *mult,
                              uint32_t *part, uint64_t *deg, uint32_t *runs,
                              themis_tp_packing_t *out)
{
    uint32_t n = g->n, m = g->m, np = 0;
    themis_status_t st = themis_tp_packing_alloc(out, THEMIS_TP_UNION, n, max_trees, 1);
    if (THEMIS_OK != st) {
        return st;
    }
    out->ntrees = 0;
    uint64_t top = 0;
    for (uint32_t e = 0; e < m; e++) {
        if (g->cap[e] > UINT64_MAX / 2 / L0) {
            /* Beyond 63 bits: no levels (the (L, k) packing stands). */
            return THEMIS_OK;
        }
        r[e] = g->cap[e] * L0;
        top = r[e] > top ? r[e] : top;
    }
    uint64_t d = 1, dmin = 1;
    while (d <= top / 2) {
        d *= 2;
    }
    d = 0 != dtop ? dtop : d;
    /* init (q dividing L0) is the first level: its trees and the rest. */
    for (uint32_t t = 0; NULL != init && t < init->ntrees; t++) {
        const uint32_t *tree = &init->edges[(size_t) t * (n - 1)];
        uint64_t w = init->w[t] * (L0 / init->q);
        add_tree(out, tree, w);
        for (uint32_t i = 0; i + 1 < n; i++) {
            r[tree[i]] -= w;
        }
    }
    d = NULL != init ? d / 2 : d;
    /* The finest level: weights (multiples of dmin) add up to at most
     * THEMIS_TP_SCHED_MAX_UNITS dmin, so the schedule takes them as they
     * are (rounding shares there could overload a thin edge). */
    while ((unsigned __int128) c->ub.num * L0
           > (unsigned __int128) c->ub.den * dmin * THEMIS_TP_SCHED_MAX_UNITS) {
        dmin *= 2;
    }
    themis_tp_graph_t gs = *g;
    gs.cap = mult;
    for (; d >= dmin && out->ntrees < max_trees && *runs < LEVEL_MAX_RUNS
           && s->work < s->work_max;
         d /= 2) {
        for (uint32_t e = 0; e < m; e++) {
            mult[e] = r[e] / d;
        }
        themis_tp_frac_t ubs;
        first_bound(&gs, part, &np, &ubs, deg);
        uint64_t k = ubs.num / ubs.den, left = max_trees - out->ntrees;
        k = k > left ? left : k;
        while (0 != k && *runs < LEVEL_MAX_RUNS && s->work < s->work_max) {
            (*runs)++;
            if (un_run(s, mult, (uint32_t) k, part, &np)) {
                for (uint32_t f = 0; f < k; f++) {
                    uint32_t *tree = &s->fe[(size_t) f * (n - 1)];
                    sort_tree(tree, n - 1);
                    add_tree(out, tree, d);
                    for (uint32_t i = 0; i + 1 < n; i++) {
                        r[tree[i]] -= d;
                    }
                }
                break;
            }
            /* Fewer than k: the partition's ratio says how many at most. */
            themis_tp_frac_t q;
            if (THEMIS_OK != themis_tp_partition_ratio(&gs, part, np, &q)) {
                break;
            }
            cert_offer(g, c, part, np);
            k = q.num / q.den < k ? q.num / q.den : k - 1;
        }
    }
    uint64_t sum = 0;
    for (uint32_t t = 0; t < out->ntrees; t++) {
        sum += out->w[t];
        out->x[t] = (double) out->w[t] / (double) L0;
    }
    out->q = L0;
    out->exact = 1;
    out->value = themis_tp_frac(sum, L0);
    out->value_f = (double) sum / (double) L0;
    return THEMIS_OK;
}

/* out within UNION_SETTLE_PERMILLE of c's bound: more trees would cost
 * more units than they gain. */
static int settled(const cert_t *c, const themis_tp_packing_t *out)
{
    return (unsigned __int128) c->ub.num * out->value.den * (1000 - UNION_SETTLE_PERMILLE)
           <= (unsigned __int128) c->ub.den * out->value.num * 1000;
}

/* The better of out and lv in out (ties: out); lv freed. */
static void keep_better(themis_tp_packing_t *out, themis_tp_packing_t *lv)
{
    if (less(out->value.num, out->value.den, lv->value.num, lv->value.den)) {
        themis_tp_packing_free(out);
        *out = *lv;
        memset(lv, 0, sizeof(*lv));
    }
    themis_tp_packing_free(lv);
}

themis_status_t themis_tp_union(const themis_tp_graph_t *g, uint32_t max_units,
                                themis_tp_packing_t *out, char *why, size_t len)
{
    uint32_t n = g->n, m = g->m;
    memset(out, 0, sizeof(*out));
    if (n < 2 || 0 == m || 0 == max_units) {
        snprintf(why, len, "a packing needs 2 or more nodes and at least one unit");
        return THEMIS_ERR_INVALID;
    }
    un_t s;
    themis_tp_packing_t lv, un_pk;
    memset(&lv, 0, sizeof(lv));
    memset(&un_pk, 0, sizeof(un_pk));
    themis_status_t st = un_alloc(&s, g, max_units);
    uint64_t *scaled = calloc((size_t) m + 1, sizeof(*scaled));
    uint64_t *mult = calloc((size_t) m + (n > m ? n : m) + 1, sizeof(*mult));
    uint32_t *part = calloc(n, sizeof(*part));
    cert_t c = {.part = calloc(n, sizeof(*c.part))};
    if (THEMIS_OK != st || NULL == scaled || NULL == mult || NULL == part || NULL == c.part) {
        st = THEMIS_ERR_NOMEM;
        goto done;
    }
    uint32_t np = 0;
    first_bound(g, c.part, &c.np, &c.ub, mult);
    /* A strength above the budget: capacities in units of d, rounded
     * down, so that k stays within it; d at most the best single tree's
     * bottleneck, so the scaled graph stays connected. */
    uint64_t d = 1;
    if (!less(c.ub.num, c.ub.den, max_units, 1)) {
        themis_tp_bounds_t b;
        themis_tp_packing_t mwst;
        st = themis_tp_bounds(g, &b, &mwst);
        if (THEMIS_OK != st) {
            goto done;
        }
        themis_tp_packing_free(&mwst);
        d = (uint64_t) ((c.ub.num / c.ub.den + max_units - 1) / max_units);
        d = d > b.c_mwst.den ? b.c_mwst.den : d;
        d = 0 == d ? 1 : d;
    }
    themis_tp_graph_t gs = *g;
    gs.cap = scaled;
    for (uint32_t e = 0; e < m; e++) {
        scaled[e] = g->cap[e] / d;
    }
    /* The bound of the scaled graph, which picks (L, k). */
    themis_tp_frac_t ubs;
    first_bound(&gs, part, &np, &ubs, mult);
    uint64_t bk = 0, bL = 1, klim = UNION_FIRST_TREES < max_units ? UNION_FIRST_TREES : max_units;
    uint32_t runs = 0, refined = 0;
    while (runs < UNION_MAX_RUNS) {
        /* The best k / L under the bound with k <= klim, ties to the
         * smaller L; klim doubles up to the budget when nothing is left
         * below it (small runs are cheap, their partitions as good). */
        uint64_t ck = 0, cL = 1;
        for (uint64_t L = 1; L <= klim; L++) {
            unsigned __int128 fk = (unsigned __int128) L * ubs.num / ubs.den;
            uint64_t k = fk > klim ? klim : (uint64_t) fk;
            if (0 != k && less(bk, bL, k, L) && less(ck, cL, k, L)) {
                ck = k;
                cL = L;
            }
        }
        if (0 == ck && klim < max_units) {
            klim = 2 * klim < max_units ? 2 * klim : max_units;
            continue;
        }
        if (0 == ck) {
            break;
        }
        runs++;
        for (uint32_t e = 0; e < m; e++) {
            mult[e] = scaled[e] * cL;
        }
        if (un_run(&s, mult, (uint32_t) ck, part, &np)) {
            bk = ck;
            bL = cL;
            themis_tp_packing_free(out);
            st = to_packing(&s, d, bL, out);
            if (THEMIS_OK != st) {
                goto done;
            }
            /* Within UNION_SETTLE_PERMILLE of the bound: more trees would
             * cost more units than they gain. */
            if ((unsigned __int128) ubs.num * bL * (1000 - UNION_SETTLE_PERMILLE)
                <= (unsigned __int128) ubs.den * bk * 1000) {
                break;
            }
            continue;
        }
        /* Below k / L on the scaled graph; on g it may bound better. */
        themis_tp_frac_t r;
        if (THEMIS_OK == themis_tp_partition_ratio(&gs, part, np, &r)
            && less(r.num, r.den, ubs.num, ubs.den)) {
            ubs = r;
        } else {
            break;
        }
        cert_offer(g, &c, part, np);
    }
    if (0 == bk) {
        snprintf(why, len, "no spanning tree");
        st = THEMIS_ERR_UNSUPPORTED;
        goto done;
    }
    /* Short of the bound by more than the settling margin: trees of
     * several weights (levels()) may come closer within the budget. */
    if (!settled(&c, out)) {
        /* First the (L, k) packing refined: its trees at weight d (or
         * somewhat heavier), then the residual at halving weights.  The
         * levels from the top put heavy trees where the residual of a
         * tight node cannot follow (56-node graphs of capacities 1..64
         * or 1..1000 at 1.03x the bound, 1.0 to 1.013x so). */
        s.work_max = s.work + REFINE_MAX_WORK;
        uint32_t runs0 = runs;
        st = themis_tp_packing_alloc(&un_pk, THEMIS_TP_UNION, n, out->ntrees, 1);
        if (THEMIS_OK != st) {
            goto done;
        }
        memcpy(un_pk.edges, out->edges, (size_t) out->ntrees * (n - 1) * sizeof(*un_pk.edges));
        memcpy(un_pk.w, out->w, out->ntrees * sizeof(*un_pk.w));
        un_pk.q = out->q;
        for (uint64_t f2 = 1; f2 <= REFINE_FINER && !settled(&c, out); f2 *= 2) {
            for (size_t i = 0; i < sizeof(refine_eighths) / sizeof(refine_eighths[0]); i++) {
                uint64_t dtop = d * f2 * refine_eighths[i] / 8;
                if ((i > 0 && dtop == d * f2 * refine_eighths[0] / 8)
                    || UINT64_MAX / 8 / f2 < bL * d || s.work >= s.work_max) {
                    continue;
                }
                st = levels(&s, g, bL * f2, dtop, 0 == i ? &un_pk : NULL, max_units, &c, scaled,
                            mult, part, mult + m, &runs, &lv);
                if (THEMIS_OK != st) {
                    goto done;
                }
                keep_better(out, &lv);
                if (settled(&c, out)) {
                    break;
                }
            }
        }
        /* The scales below get the runs they had without the refinement. */
        s.work_max = UINT64_MAX;
        refined = runs - runs0;
        runs = runs0;
        for (uint64_t f = 1; f <= LEVEL_SCALES && !settled(&c, out); f += 2) {
            /* Levels of powers of two times 1, 3, 5, 7 round capacities
             * differently: the best runs.  The first within the settling
             * margin of the bound ends the search, and so does the budget
             * from 3 on (the scales differ where the levels leave what a
             * tree cannot span, not where trees run out). */
            st = levels(&s, g, f * level_scale(c.ub), 0, NULL, max_units, &c, scaled, mult,
                        part, mult + m, &runs, &lv);
            if (THEMIS_OK != st) {
                goto done;
            }
            int full = f >= 3 && lv.ntrees >= max_units;
            keep_better(out, &lv);
            if (full) {
                break;
            }
        }
    }
    out->iterations = runs + refined;
    out->bound_exact = 1;
    out->bound = c.ub;
    out->bound_f = (double) c.ub.num / (double) c.ub.den;
    out->part = c.part;
    out->nparts = c.np;
    c.part = NULL;
done:
    if (THEMIS_OK != st) {
        themis_tp_packing_free(out);
    }
    themis_tp_packing_free(&lv);
    themis_tp_packing_free(&un_pk);
    un_free(&s);
    free(scaled);
    free(mult);
    free(part);
    free(c.part);
    return st;
}

themis_status_t themis_tp_exact(const themis_tp_graph_t *g, themis_tp_packing_t *out, char *why,
                                size_t len)
{
    uint32_t budget = g->n < 2 ? 1 : THEMIS_TP_EXACT_MAX_ELEMS / (g->n - 1);
    themis_status_t st = themis_tp_union(g, 0 == budget ? 1 : budget, out, why, len);
    if (THEMIS_OK == st && (out->value.num != out->bound.num || out->value.den != out->bound.den)) {
        snprintf(why, len, "the optimum was not reached within %u trees (%u rounds)", budget,
                 out->iterations);
        themis_tp_packing_free(out);
        return THEMIS_ERR_UNSUPPORTED;
    }
    out->method = THEMIS_TP_EXACT;
    return st;
}
