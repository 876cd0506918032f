/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The cut lower bound (cut_bound.h).
 */
#include "cut_bound.h"

#include <stdlib.h>
#include <string.h>

#include "tacos.h"

/* Chunks the links l[0 .. nl) deliver by T. */
static uint64_t carried(const themis_graph_t *g, const uint32_t *l, uint32_t nl,
                        const themis_time_t *ser, themis_time_t T)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < nl; ++i) {
        themis_time_t lat = g->links[l[i]].lat_ps, s = ser[l[i]];
        if (0 != s && T >= lat + s) {
            sum += (T - lat) / s;
        }
    }
    return sum;
}

themis_time_t themis_cut_least_time(const themis_graph_t *g, const uint32_t *l, uint32_t nl,
                                    const themis_time_t *ser, uint64_t need)
{
    /* hi: what the best single link alone takes; lo: too little. */
    themis_time_t hi = UINT64_MAX, lo = 0;
    if (0 == need) {
        return 0;
    }
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

typedef struct {
    const themis_graph_t *g;
    themis_coll_t coll;
    uint32_t n, k;
    const themis_time_t *ser;
    uint32_t *in, *out;         /* [nlinks] crossing links of the cut being timed */
    themis_cut_bound_t *res;
} cut_t;

/* The chunks the links into and out of a side S of s nodes must carry:
 * allgather, S lacks what is owned outside and the complement what S
 * owns; reduce-scatter the reverse; allreduce every chunk both ways. */
static void needs(const cut_t *c, uint32_t s, uint64_t *in, uint64_t *out)
{
    uint64_t nk = (uint64_t) c->n * c->k, ins = (uint64_t) (c->n - s) * c->k,
             outs = (uint64_t) s * c->k;
    *in = THEMIS_COLL_ALLGATHER == c->coll ? ins : THEMIS_COLL_REDUCE_SCATTER == c->coll ? outs
                                                                                         : nk;
    *out = THEMIS_COLL_ALLGATHER == c->coll ? outs : THEMIS_COLL_REDUCE_SCATTER == c->coll ? ins
                                                                                           : nk;
}

/* Times the cut side[] (1: in S, of size s) and its complement. */
static void time_cut(cut_t *c, const uint8_t *side, uint32_t s)
{
    const themis_graph_t *g = c->g;
    uint32_t nin = 0, nout = 0;
    for (uint32_t l = 0; l < g->nlinks; ++l) {
        uint8_t a = side[g->links[l].src], b = side[g->links[l].dst];
        if (a != b) {
            if (b) {
                c->in[nin++] = l;
            } else {
                c->out[nout++] = l;
            }
        }
    }
    uint64_t need_in, need_out;
    needs(c, s, &need_in, &need_out);
    themis_time_t a = themis_cut_least_time(g, c->in, nin, c->ser, need_in);
    themis_time_t b = themis_cut_least_time(g, c->out, nout, c->ser, need_out);
    themis_time_t t = a > b ? a : b;
    c->res->cuts++;
    if (t > c->res->time_ps) {
        c->res->time_ps = t;
        c->res->side = s;
    }
}

typedef struct {
    double score;
    uint32_t u, v, len;
} cand_t;

/* Hop distances from every node: dist[u * n + x], UINT16_MAX unreached. */
static void all_hops(const themis_graph_t *g, const themis_time_t *ser, uint16_t *dist,
                     uint32_t *queue)
{
    uint32_t n = g->nnodes;
    for (uint32_t u = 0; u < n; ++u) {
        uint16_t *d = dist + (size_t) u * n;
        uint32_t h = 0, t = 0;
        for (uint32_t x = 0; x < n; ++x) {
            d[x] = UINT16_MAX;
        }
        d[u] = 0;
        queue[t++] = u;
        while (h < t) {
            uint32_t x = queue[h++];
            for (uint32_t i = g->out_first[x]; i < g->out_first[x + 1]; ++i) {
                uint32_t l = g->out_links[i], y = g->links[l].dst;
                if (0 != ser[l] && UINT16_MAX == d[y]) {
                    d[y] = (uint16_t) (d[x] + 1);
                    queue[t++] = y;
                }
            }
        }
    }
}

/* The nodes in sweep order of the pair (u, v): by d(u, x) - d(v, x), ties
 * by id (a stable counting sort over keys -n .. n). */
static void sweep_order(const uint16_t *dist, uint32_t n, uint32_t u, uint32_t v,
                        uint32_t *order, int32_t *key, uint32_t *count)
{
    const uint16_t *du = dist + (size_t) u * n, *dv = dist + (size_t) v * n;
    memset(count, 0, (2 * (size_t) n + 2) * sizeof(*count));
    for (uint32_t x = 0; x < n; ++x) {
        int32_t a = UINT16_MAX == du[x] ? (int32_t) n : du[x];
        int32_t b = UINT16_MAX == dv[x] ? (int32_t) n : dv[x];
        int32_t d = a - b;
        d = d < -(int32_t) n ? -(int32_t) n : d > (int32_t) n ? (int32_t) n : d;
        key[x] = d + (int32_t) n;
        count[key[x] + 1]++;
    }
    for (uint32_t i = 1; i < 2 * n + 2; ++i) {
        count[i] += count[i - 1];
    }
    for (uint32_t x = 0; x < n; ++x) {
        order[count[key[x]]++] = x;
    }
}

/* Screens the prefixes of the pair (u, v)'s sweep that end between two
 * keys by bandwidth alone: need over the crossing links' rate (chunks per
 * ps), the worse direction; the best go into top[0 .. THEMIS_CUT_TOP). */
static void screen(cut_t *c, const uint16_t *dist, uint32_t u, uint32_t v, uint32_t *order,
                   int32_t *key, uint32_t *count, uint8_t *side, cand_t *top, uint32_t *ntop)
{
    const themis_graph_t *g = c->g;
    uint32_t n = c->n;
    double rin = 0, rout = 0;
    sweep_order(dist, n, u, v, order, key, count);
    memset(side, 0, n);
    for (uint32_t i = 0; i + 1 < n; ++i) {
        uint32_t x = order[i];
        side[x] = 1;
        for (uint32_t j = g->out_first[x]; j < g->out_first[x + 1]; ++j) {
            uint32_t l = g->out_links[j];
            double r = 0 != c->ser[l] ? 1.0 / (double) c->ser[l] : 0.0;
            if (side[g->links[l].dst]) {
                rin -= r;
            } else {
                rout += r;
            }
        }
        for (uint32_t j = g->in_first[x]; j < g->in_first[x + 1]; ++j) {
            uint32_t l = g->in_links[j];
            double r = 0 != c->ser[l] ? 1.0 / (double) c->ser[l] : 0.0;
            if (side[g->links[l].src]) {
                rout -= r;
            } else {
                rin += r;
            }
        }
        if (key[x] == key[order[i + 1]]) {
            continue;
        }
        uint64_t need_in, need_out;
        needs(c, i + 1, &need_in, &need_out);
        double a = rin > 1e-300 ? (double) need_in / rin : 1e300;
        double b = rout > 1e-300 ? (double) need_out / rout : 1e300;
        double score = a > b ? a : b;
        c->res->cuts++;
        if (*ntop < THEMIS_CUT_TOP || score > top[*ntop - 1].score) {
            uint32_t j = *ntop < THEMIS_CUT_TOP ? (*ntop)++ : *ntop - 1;
            while (j > 0 && top[j - 1].score < score) {
                top[j] = top[j - 1];
                --j;
            }
            top[j] = (cand_t) {.score = score, .u = u, .v = v, .len = i + 1};
        }
    }
}

themis_status_t themis_cut_bound(const themis_graph_t *g, themis_coll_t coll, uint32_t k,
                                 uint64_t chunk_bytes, themis_cut_bound_t *out)
{
    uint32_t n = g->nnodes;
    themis_status_t st = THEMIS_OK;

    memset(out, 0, sizeof(*out));
    if ((THEMIS_COLL_ALLGATHER != coll && THEMIS_COLL_REDUCE_SCATTER != coll
         && THEMIS_COLL_ALLREDUCE != coll)
        || 0 == k || 0 == chunk_bytes || 0 == n || n >= UINT16_MAX) {
        return THEMIS_ERR_INVALID;
    }
    for (uint32_t v = 0; v < n; ++v) {
        if (g->node_failed[v]) {
            return THEMIS_ERR_INVALID;
        }
    }
    if (1 == n) {
        out->exact = 1;
        return THEMIS_OK;
    }
    size_t nl = g->nlinks ? g->nlinks : 1;
    themis_time_t *ser = calloc(nl, sizeof(*ser));
    uint8_t *side = calloc(n, 1);
    cut_t c = {.g = g, .coll = coll, .n = n, .k = k, .ser = ser, .res = out};
    c.in = malloc(nl * sizeof(*c.in));
    c.out = malloc(nl * sizeof(*c.out));
    if (NULL == ser || NULL == side || NULL == c.in || NULL == c.out) {
        st = THEMIS_ERR_NOMEM;
    }
    for (uint32_t l = 0; THEMIS_OK == st && l < g->nlinks; ++l) {
        ser[l] = themis_graph_link_working(g, l)
                     ? themis_tacos_ser_ps(chunk_bytes, g->links[l].bw_bps)
                     : 0;
    }
    if (THEMIS_OK == st && n <= THEMIS_CUT_EXACT_NODES) {
        /* every S holding node 0 (the complement is timed with it) */
        out->exact = 1;
        for (uint32_t m = 1; m < (1u << n) - 1; m += 2) {
            uint32_t s = 0;
            for (uint32_t v = 0; v < n; ++v) {
                side[v] = (uint8_t) ((m >> v) & 1u);
                s += side[v];
            }
            time_cut(&c, side, s);
        }
    } else if (THEMIS_OK == st) {
        for (uint32_t v = 0; v < n; ++v) {
            memset(side, 0, n);
            side[v] = 1;
            time_cut(&c, side, 1);
        }
        uint16_t *dist = malloc((size_t) n * n * sizeof(*dist));
        uint32_t *order = malloc(n * sizeof(*order));
        int32_t *key = malloc(n * sizeof(*key));
        uint32_t *count = malloc((2 * (size_t) n + 2) * sizeof(*count));
        cand_t top[THEMIS_CUT_TOP];
        uint32_t ntop = 0;
        if (NULL == dist || NULL == order || NULL == key || NULL == count) {
            st = THEMIS_ERR_NOMEM;
        } else {
            all_hops(g, ser, dist, order);
        }
        for (uint32_t u = 0; THEMIS_OK == st && u < n; ++u) {
            const uint16_t *du = dist + (size_t) u * n;
            uint16_t far = 0;
            for (uint32_t x = 0; x < n; ++x) {
                far = UINT16_MAX != du[x] && du[x] > far ? du[x] : far;
            }
            for (uint32_t v = 0; v < n; ++v) {
                int pair = n <= THEMIS_CUT_ALL_PAIRS ? u < v : du[v] == far;
                if (pair && v != u) {
                    screen(&c, dist, u, v, order, key, count, side, top, &ntop);
                }
            }
        }
        for (uint32_t i = 0; THEMIS_OK == st && i < ntop; ++i) {
            sweep_order(dist, n, top[i].u, top[i].v, order, key, count);
            memset(side, 0, n);
            for (uint32_t j = 0; j < top[i].len; ++j) {
                side[order[j]] = 1;
            }
            time_cut(&c, side, top[i].len);
        }
        free(dist);
        free(order);
        free(key);
        free(count);
    }
    free(ser);
    free(side);
    free(c.in);
    free(c.out);
    return st;
}
