/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Graph topologies (graph.h): construction, routes, writing and hashing;
 * the file format is in graph_file.c, generators and specs in graph_spec.c.
 */
#include "graph.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster.h"
#include "graph_text.h"
#include "hash.h"

/* ------------------------------------------------------------ building */

void themis_graph_opts_default(themis_graph_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->lat_ps = UINT64_MAX;
}

themis_status_t themis_graph_init(themis_graph_t *g, uint32_t nnodes)
{
    memset(g, 0, sizeof(*g));
    if (0 == nnodes || nnodes > THEMIS_GRAPH_MAX_NODES) {
        return THEMIS_ERR_INVALID;
    }
    g->node_failed = calloc(nnodes, 1);
    if (NULL == g->node_failed) {
        return THEMIS_ERR_NOMEM;
    }
    g->nnodes = nnodes;
    g->nranks = nnodes;
    return THEMIS_OK;
}

themis_status_t themis_graph_set_node(themis_graph_t *g, uint32_t v, themis_node_kind_t kind,
                                      uint32_t host)
{
    if (v >= g->nnodes || (unsigned) kind > THEMIS_NODE_SWITCH
        || (THEMIS_GRAPH_NO_HOST != host && host >= THEMIS_GRAPH_MAX_NODES)) {
        return THEMIS_ERR_INVALID;
    }
    if (NULL == g->kind && THEMIS_NODE_RANK != kind) {
        g->kind = calloc(g->nnodes, 1);
        if (NULL == g->kind) {
            return THEMIS_ERR_NOMEM;
        }
    }
    if (NULL == g->host && THEMIS_GRAPH_NO_HOST != host) {
        g->host = malloc((size_t) g->nnodes * sizeof(*g->host));
        if (NULL == g->host) {
            return THEMIS_ERR_NOMEM;
        }
        for (uint32_t i = 0; i < g->nnodes; i++) {
            g->host[i] = THEMIS_GRAPH_NO_HOST;
        }
    }
    if (NULL != g->kind) {
        g->kind[v] = (uint8_t) kind;
    }
    if (NULL != g->host) {
        g->host[v] = host;
    }
    return THEMIS_OK;
}

const char *const themis_graph_kind_names[THEMIS_GRAPH_NKINDS] = {"rank", "host", "nic", "switch"};

/* Ranks first, every rank placed or none, hosts 0 .. nhosts-1 each with
 * a rank; sets nranks and nhosts and drops arrays that say nothing (all
 * ranks, no host), so that equal graphs are equal in memory and hash.
 * *bad: the node a message is about. */
static themis_status_t check_nodes(themis_graph_t *g, uint32_t *bad, char *why, size_t len)
{
    uint32_t n = g->nnodes, nranks = 0, maxhost = 0;
    int any_host = 0, any_other = 0;
    for (uint32_t v = 0; v < n; v++) {
        int rank = (NULL == g->kind || THEMIS_NODE_RANK == g->kind[v]);
        if (rank && nranks != v) {
            *bad = nranks;      /* the declared node before it */
            snprintf(why, len, "node %u is a rank after %s node %u: ranks come first", v,
                     themis_graph_kind_names[g->kind[nranks]], nranks);
            return THEMIS_ERR_INVALID;
        }
        nranks += rank ? 1 : 0;
        any_other |= !rank;
        if (NULL != g->host && THEMIS_GRAPH_NO_HOST != g->host[v]) {
            any_host = 1;
            maxhost = g->host[v] > maxhost ? g->host[v] : maxhost;
        }
    }
    if (0 == nranks) {
        *bad = 0;
        snprintf(why, len, "no rank (ranks are the nodes not declared otherwise)");
        return THEMIS_ERR_INVALID;
    }
    for (uint32_t v = 0; v < n && NULL != g->kind; v++) {
        if (THEMIS_NODE_HOST == g->kind[v]
            && (NULL == g->host || THEMIS_GRAPH_NO_HOST == g->host[v])) {
            *bad = v;
            snprintf(why, len, "host node %u names no host", v);
            return THEMIS_ERR_INVALID;
        }
    }
    if (!any_other) {
        free(g->kind);
        g->kind = NULL;
    }
    if (!any_host) {
        free(g->host);
        g->host = NULL;
    }
    g->nranks = nranks;
    g->nhosts = any_host ? maxhost + 1 : 0;
    if (!any_host) {
        return THEMIS_OK;
    }
    uint8_t *seen = calloc((size_t) maxhost + 1, 1);
    if (NULL == seen) {
        snprintf(why, len, "out of memory");
        return THEMIS_ERR_NOMEM;
    }
    themis_status_t st = THEMIS_OK;
    for (uint32_t v = 0; v < nranks && THEMIS_OK == st; v++) {
        if (THEMIS_GRAPH_NO_HOST == g->host[v]) {
            *bad = v;
            snprintf(why, len, "rank %u has no host (other nodes are placed on hosts)", v);
            st = THEMIS_ERR_INVALID;
        } else {
            seen[g->host[v]] = 1;
        }
    }
    for (uint32_t h = 0; h <= maxhost && THEMIS_OK == st; h++) {
        if (!seen[h]) {
            *bad = UINT32_MAX;
            snprintf(why, len, "host %u has no rank (hosts are 0 .. %u)", h, maxhost);
            st = THEMIS_ERR_INVALID;
        }
    }
    free(seen);
    return st;
}

themis_status_t themis_graph_add_link(themis_graph_t *g, uint32_t src, uint32_t dst,
                                      uint64_t bw_bps, themis_time_t lat_ps)
{
    if (src >= g->nnodes || dst >= g->nnodes || g->nlinks >= THEMIS_GRAPH_MAX_LINKS) {
        return THEMIS_ERR_INVALID;
    }
    if (g->nlinks == g->cap_links) {
        uint32_t cap = (0 == g->cap_links) ? 64 : 2 * g->cap_links;
        if (cap > THEMIS_GRAPH_MAX_LINKS) {
            cap = THEMIS_GRAPH_MAX_LINKS;
        }
        themis_link_t *n = realloc(g->links, (size_t) cap * sizeof(*n));
        if (NULL == n) {
            return THEMIS_ERR_NOMEM;
        }
        g->links = n;
        g->cap_links = cap;
    }
    themis_link_t *l = &g->links[g->nlinks++];
    l->src = src;
    l->dst = dst;
    l->bw_bps = bw_bps;
    l->lat_ps = lat_ps;
    l->failed = 0;
    return THEMIS_OK;
}

static void free_adjacency(themis_graph_t *g)
{
    free(g->out_first);
    free(g->out_links);
    free(g->in_first);
    free(g->in_links);
    g->out_first = g->out_links = g->in_first = g->in_links = NULL;
}

/* Counting sort by node keeps each node's links in link order. */
static themis_status_t build_side(const themis_graph_t *g, int incoming, uint32_t **first_out,
                                  uint32_t **links_out)
{
    uint32_t n = g->nnodes;
    uint32_t *first = calloc((size_t) n + 1, sizeof(*first));
    uint32_t *links = malloc(((size_t) g->nlinks + 1) * sizeof(*links));
    uint32_t *fill = malloc((size_t) n * sizeof(*fill));
    if (NULL == first || NULL == links || NULL == fill) {
        free(first);
        free(links);
        free(fill);
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < g->nlinks; i++) {
        first[(incoming ? g->links[i].dst : g->links[i].src) + 1]++;
    }
    for (uint32_t v = 0; v < n; v++) {
        first[v + 1] += first[v];
        fill[v] = first[v];
    }
    for (uint32_t i = 0; i < g->nlinks; i++) {
        links[fill[incoming ? g->links[i].dst : g->links[i].src]++] = i;
    }
    free(fill);
    *first_out = first;
    *links_out = links;
    return THEMIS_OK;
}

/* themis_graph_finish, telling which link is wrong (*bad) for messages
 * with a position. */
themis_status_t themis_graph_finish_at(themis_graph_t *g, uint32_t *bad, uint32_t *bad_node,
                                       char *why, size_t len)
{
    char dummy[8];
    if (NULL == why) {
        why = dummy;
        len = sizeof(dummy);
    }
    *bad = UINT32_MAX;
    free_adjacency(g);
    if (NULL != bad_node) {
        *bad_node = UINT32_MAX;
        themis_status_t st = check_nodes(g, bad_node, why, len);
        if (THEMIS_OK != st) {
            return st;
        }
    }
    for (uint32_t i = 0; i < g->nlinks; i++) {
        const themis_link_t *l = &g->links[i];
        if (l->src >= g->nnodes || l->dst >= g->nnodes) {
            snprintf(why, len, "link %u -> %u: node out of range (%u nodes)", l->src, l->dst,
                     g->nnodes);
        } else if (l->src == l->dst) {
            snprintf(why, len, "link %u -> %u links a node to itself", l->src, l->dst);
        } else if (0 == l->bw_bps) {
            snprintf(why, len, "link %u -> %u: bandwidth 0", l->src, l->dst);
        } else if (l->lat_ps > THEMIS_GRAPH_MAX_LAT_PS) {
            snprintf(why, len, "link %u -> %u: latency above 1 s", l->src, l->dst);
        } else {
            continue;
        }
        *bad = i;
        return THEMIS_ERR_INVALID;
    }
    if (THEMIS_OK != build_side(g, 0, &g->out_first, &g->out_links) ||
        THEMIS_OK != build_side(g, 1, &g->in_first, &g->in_links)) {
        free_adjacency(g);
        snprintf(why, len, "out of memory");
        return THEMIS_ERR_NOMEM;
    }
    /* Duplicates: last[d] is the latest link into d seen from this node. */
    uint32_t *last = malloc((size_t) g->nnodes * sizeof(*last));
    if (NULL == last) {
        free_adjacency(g);
        snprintf(why, len, "out of memory");
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t v = 0; v < g->nnodes; v++) {
        last[v] = UINT32_MAX;
    }
    for (uint32_t v = 0; v < g->nnodes; v++) {
        for (uint32_t k = g->out_first[v]; k < g->out_first[v + 1]; k++) {
            uint32_t i = g->out_links[k];
            uint32_t d = g->links[i].dst;
            if (UINT32_MAX != last[d] && v == g->links[last[d]].src) {
                snprintf(why, len, "link %u -> %u given twice", v, d);
                *bad = i;
                free(last);
                free_adjacency(g);
                return THEMIS_ERR_INVALID;
            }
            last[d] = i;
        }
    }
    free(last);
    why[0] = '\0';
    return THEMIS_OK;
}

themis_status_t themis_graph_finish(themis_graph_t *g, char *why, size_t len)
{
    uint32_t bad, bad_node;
    char dummy[8];
    return themis_graph_finish_at(g, &bad, &bad_node, NULL != why ? why : dummy,
                     NULL != why ? len : sizeof(dummy));
}

themis_status_t themis_graph_build_end(themis_graph_t *g, themis_status_t st, char *why,
                                       size_t len)
{
    if (THEMIS_OK == st) {
        st = themis_graph_finish(g, why, len);
    } else {
        snprintf(why, len, "out of memory");
    }
    if (THEMIS_OK != st) {
        themis_graph_free(g);
    }
    return st;
}

void themis_graph_free(themis_graph_t *g)
{
    if (NULL != g) {
        free(g->links);
        free(g->node_failed);
        free(g->kind);
        free(g->host);
        free_adjacency(g);
        memset(g, 0, sizeof(*g));
    }
}

int themis_graph_link_working(const themis_graph_t *g, uint32_t link)
{
    const themis_link_t *l = &g->links[link];
    return !l->failed && !g->node_failed[l->src] && !g->node_failed[l->dst];
}

uint32_t themis_graph_find_link(const themis_graph_t *g, uint32_t src, uint32_t dst)
{
    if (src >= g->nnodes || dst >= g->nnodes || NULL == g->out_first) {
        return UINT32_MAX;
    }
    for (uint32_t k = g->out_first[src]; k < g->out_first[src + 1]; k++) {
        if (dst == g->links[g->out_links[k]].dst) {
            return g->out_links[k];
        }
    }
    return UINT32_MAX;
}

uint32_t themis_graph_link(const themis_graph_t *g, uint32_t src, uint32_t dst)
{
    uint32_t l = themis_graph_find_link(g, src, dst);
    return (UINT32_MAX != l && themis_graph_link_working(g, l)) ? l : UINT32_MAX;
}

/* ------------------------------------------------------------ routes */

/* Breadth-first backwards from dst: nodes leave the queue by hop count,
 * and a node's latency sum is final once every node one hop nearer has
 * left it, which happens before the node itself leaves.  Among fewest-hop
 * routes the least latency sum wins, then the lowest next node: applied
 * at every node, this makes each route the lexicographically least node
 * sequence among the best ones. */
themis_status_t themis_graph_routes_to(const themis_graph_t *g, uint32_t dst, uint32_t *next)
{
    uint32_t n = g->nnodes;
    if (dst >= n || g->node_failed[dst] || NULL == g->in_first) {
        return THEMIS_ERR_INVALID;
    }
    /* one block: lat[n], hops[n], queue[n] (the link simulator asks once
     * per destination and schedule) */
    uint64_t *lat = malloc((size_t) n * (sizeof(*lat) + 2 * sizeof(uint32_t)));
    if (NULL == lat) {
        return THEMIS_ERR_NOMEM;
    }
    uint32_t *hops = (uint32_t *) (lat + n), *queue = hops + n;
    /* locals: the stores below would otherwise make the compiler fetch
     * g's arrays again for every link */
    const themis_link_t *const links = g->links;
    const uint32_t *const in_first = g->in_first, *const in_links = g->in_links;
    const uint8_t *const failed = g->node_failed;
    for (uint32_t v = 0; v < n; v++) {
        hops[v] = UINT32_MAX;
        next[v] = UINT32_MAX;
    }
    hops[dst] = 0;
    lat[dst] = 0;
    queue[0] = dst;
    uint32_t head = 0, tail = 1;
    while (head < tail) {
        const uint32_t w = queue[head++], hv = hops[w] + 1;
        const uint64_t lw = lat[w];
        for (uint32_t k = in_first[w]; k < in_first[w + 1]; k++) {
            const uint32_t l = in_links[k];
            const themis_link_t *lk = &links[l];
            if (lk->failed || failed[lk->src] || failed[lk->dst]) {   /* not working */
                continue;
            }
            const uint32_t v = lk->src;
            const uint64_t cand = lw + lk->lat_ps;
            if (UINT32_MAX == hops[v]) {
                hops[v] = hv;
                lat[v] = cand;
                next[v] = l;
                queue[tail++] = v;
            } else if (hops[v] == hv
                       && (cand < lat[v] || (cand == lat[v] && w < links[next[v]].dst))) {
                lat[v] = cand;
                next[v] = l;
            }
        }
    }
    free(lat);
    return THEMIS_OK;
}

themis_status_t themis_graph_route(const themis_graph_t *g, uint32_t src, uint32_t dst,
                                   uint32_t *route, uint32_t *nhops)
{
    *nhops = 0;
    if (src >= g->nnodes || dst >= g->nnodes || g->node_failed[src] || g->node_failed[dst]) {
        return THEMIS_ERR_INVALID;
    }
    if (src == dst) {
        return THEMIS_OK;
    }
    uint32_t *next = malloc((size_t) g->nnodes * sizeof(*next));
    if (NULL == next) {
        return THEMIS_ERR_NOMEM;
    }
    themis_status_t st = themis_graph_routes_to(g, dst, next);
    if (THEMIS_OK == st && UINT32_MAX == next[src]) {
        st = THEMIS_ERR_INVALID;
    }
    for (uint32_t v = src; THEMIS_OK == st && v != dst; v = g->links[next[v]].dst) {
        route[(*nhops)++] = next[v];
    }
    free(next);
    return st;
}

/* ------------------------------------------------------------ writing */

/* Largest power-of-1000 unit that shows v exactly: the file parses back
 * to the same integer. */
static void fmt_unit(char *buf, size_t len, uint64_t v, const char *const *units, int nunits)
{
    int u = 0;
    while (u + 1 < nunits && 0 != v && 0 == v % 1000) {
        v /= 1000;
        u++;
    }
    snprintf(buf, len, "%llu%s", (unsigned long long) v, units[u]);
}

/* Bits per second in the largest exact decimal unit, or binary bytes
 * per second (300GiB/s) where that is shorter: as a person writes it. */
static void fmt_bw(char *buf, size_t len, uint64_t bps)
{
    static const char *const units[] = {"b/s", "Kb/s", "Mb/s", "Gb/s", "Tb/s"};
    static const char *const bin[] = {"TiB/s", "GiB/s", "MiB/s", "KiB/s"};
    char dec[32];
    fmt_unit(dec, sizeof(dec), bps, units, 5);
    for (int i = 0; i < 4; i++) {
        uint64_t m = 8ULL << (10 * (4 - i));
        char b[32];
        if (0 != bps && 0 == bps % m) {
            snprintf(b, sizeof(b), "%llu%s", (unsigned long long) (bps / m), bin[i]);
            if (strlen(b) < strlen(dec)) {
                snprintf(buf, len, "%s", b);
                return;
            }
            break;
        }
    }
    snprintf(buf, len, "%s", dec);
}

static void fmt_lat(char *buf, size_t len, themis_time_t ps)
{
    static const char *const units[] = {"ps", "ns", "us", "ms", "s"};
    fmt_unit(buf, len, ps, units, 5);
}

/* Node v's kind and host, with the defaults of an undeclared node. */
static uint32_t node_kind(const themis_graph_t *g, uint32_t v)
{
    return NULL != g->kind ? g->kind[v] : THEMIS_NODE_RANK;
}

static uint32_t node_host(const themis_graph_t *g, uint32_t v)
{
    return NULL != g->host ? g->host[v] : THEMIS_GRAPH_NO_HOST;
}

int themis_graph_write(const themis_graph_t *g, FILE *f)
{
    fprintf(f, "nodes %u\n", g->nnodes);
    if (0 != g->pkt_payload) {
        fprintf(f, "packet %u %u\n", g->pkt_payload, g->pkt_header);
    }
    /* Declarations: runs of nodes of one kind on one host, undeclared
     * ranks (no host) left out. */
    for (uint32_t v = 0; v < g->nnodes;) {
        uint32_t k = node_kind(g, v), h = node_host(g, v), e = v;
        while (e + 1 < g->nnodes && node_kind(g, e + 1) == k && node_host(g, e + 1) == h) {
            e++;
        }
        if (THEMIS_NODE_RANK != k || THEMIS_GRAPH_NO_HOST != h) {
            fprintf(f, "%s %u", themis_graph_kind_names[k], v);
            if (e != v) {
                fprintf(f, "-%u", e);
            }
            if (THEMIS_GRAPH_NO_HOST != h) {
                fprintf(f, " host %u", h);
            }
            fprintf(f, "\n");
        }
        v = e + 1;
    }
    for (uint32_t i = 0; i < g->nlinks; i++) {
        const themis_link_t *a = &g->links[i];
        char bw[32], lat[32];
        fmt_bw(bw, sizeof(bw), a->bw_bps);
        fmt_lat(lat, sizeof(lat), a->lat_ps);
        /* A link followed by its reverse with the same rates is one
         * "both" line: the same two links in the same order. */
        if (i + 1 < g->nlinks) {
            const themis_link_t *b = &g->links[i + 1];
            if (a->src == b->dst && a->dst == b->src && a->bw_bps == b->bw_bps &&
                a->lat_ps == b->lat_ps) {
                fprintf(f, "%u %u %s %s both\n", a->src, a->dst, bw, lat);
                i++;
                continue;
            }
        }
        fprintf(f, "%u %u %s %s\n", a->src, a->dst, bw, lat);
    }
    for (uint32_t v = 0; v < g->nnodes; v++) {
        if (g->node_failed[v]) {
            fprintf(f, "fail node %u\n", v);
        }
    }
    for (uint32_t i = 0; i < g->nlinks; i++) {
        if (g->links[i].failed) {
            fprintf(f, "fail link %u %u\n", g->links[i].src, g->links[i].dst);
        }
    }
    return ferror(f) ? -1 : 0;
}

uint64_t themis_graph_hash(const themis_graph_t *g)
{
    uint64_t h = THEMIS_FNV_OFFSET;
    h = themis_fnv1a_u64(h, g->nnodes);
    h = themis_fnv1a_u64(h, g->nlinks);
    for (uint32_t i = 0; i < g->nlinks; i++) {
        const themis_link_t *l = &g->links[i];
        h = themis_fnv1a_u64(h, ((uint64_t) l->src << 32) | l->dst);
        h = themis_fnv1a_u64(h, l->bw_bps);
        h = themis_fnv1a_u64(h, l->lat_ps);
        h = themis_fnv1a_u64(h, l->failed);
    }
    h = themis_fnv1a(h, g->node_failed, g->nnodes);
    if (NULL != g->kind || NULL != g->host) {
        for (uint32_t v = 0; v < g->nnodes; v++) {
            h = themis_fnv1a_u64(h, ((uint64_t) node_kind(g, v) << 32) | node_host(g, v));
        }
    }
    if (0 != g->pkt_payload) {
        h = themis_fnv1a_u64(h, ((uint64_t) g->pkt_payload << 32) | g->pkt_header);
    }
    return h;
}

uint64_t themis_graph_wire_bytes(const themis_graph_t *g, uint64_t bytes)
{
    if (0 == g->pkt_payload) {
        return bytes;
    }
    const unsigned __int128 w = (unsigned __int128) (bytes / g->pkt_payload
                                                     + (0 != bytes % g->pkt_payload))
                                    * g->pkt_header
                                + bytes;
    return w > UINT64_MAX ? UINT64_MAX : (uint64_t) w;
}
