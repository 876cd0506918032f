/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Graph topologies (graph.h): construction, the file format, specs,
 * routes and hashing.
 */
#include "graph.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster.h"
#include "hash.h"

/* Graph files hold up to THEMIS_GRAPH_MAX_LINKS lines of ~30 bytes. */
#define MAX_FILE_BYTES THEMIS_INPUT_MAX_FILE
/* Fields echoed in messages are cut so that the reason still fits. */
#define SHOW_MAX 24

typedef themis_token_t gtok_t;

static const char *show(const char *p, size_t len, char buf[SHOW_MAX + 1])
{
    if (len > SHOW_MAX) {
        snprintf(buf, SHOW_MAX + 1, "%.*s...", SHOW_MAX - 3, p);
    } else {
        memcpy(buf, p, len);
        buf[len] = '\0';
    }
    return buf;
}

static int tok_is(const gtok_t *t, const char *s)
{
    return strlen(s) == t->len && 0 == strncasecmp(t->p, s, t->len);
}

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

static const char *const kind_names[] = {"rank", "host", "nic", "switch"};

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
                     kind_names[g->kind[nranks]], nranks);
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
static themis_status_t finish_at(themis_graph_t *g, uint32_t *bad, uint32_t *bad_node, char *why,
                                 size_t len)
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
    return finish_at(g, &bad, &bad_node, NULL != why ? why : dummy,
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

/* Any link src -> dst, failed or not. */
static uint32_t find_link(const themis_graph_t *g, uint32_t src, uint32_t dst)
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
    uint32_t l = find_link(g, src, dst);
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
    uint32_t *hops = malloc((size_t) n * sizeof(*hops));
    uint32_t *queue = malloc((size_t) n * sizeof(*queue));
    uint64_t *lat = malloc((size_t) n * sizeof(*lat));
    if (NULL == hops || NULL == queue || NULL == lat) {
        free(hops);
        free(queue);
        free(lat);
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t v = 0; v < n; v++) {
        hops[v] = UINT32_MAX;
        next[v] = UINT32_MAX;
    }
    hops[dst] = 0;
    lat[dst] = 0;
    queue[0] = dst;
    uint32_t head = 0, tail = 1;
    while (head < tail) {
        uint32_t w = queue[head++];
        for (uint32_t k = g->in_first[w]; k < g->in_first[w + 1]; k++) {
            uint32_t l = g->in_links[k];
            if (!themis_graph_link_working(g, l)) {
                continue;
            }
            uint32_t v = g->links[l].src;
            uint64_t cand = lat[w] + g->links[l].lat_ps;
            if (UINT32_MAX == hops[v]) {
                hops[v] = hops[w] + 1;
                lat[v] = cand;
                next[v] = l;
                queue[tail++] = v;
            } else if (hops[v] == hops[w] + 1 &&
                       (cand < lat[v] || (cand == lat[v] && w < g->links[next[v]].dst))) {
                lat[v] = cand;
                next[v] = l;
            }
        }
    }
    free(hops);
    free(queue);
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
    /* Declarations: runs of nodes of one kind on one host, undeclared
     * ranks (no host) left out. */
    for (uint32_t v = 0; v < g->nnodes;) {
        uint32_t k = node_kind(g, v), h = node_host(g, v), e = v;
        while (e + 1 < g->nnodes && node_kind(g, e + 1) == k && node_host(g, e + 1) == h) {
            e++;
        }
        if (THEMIS_NODE_RANK != k || THEMIS_GRAPH_NO_HOST != h) {
            fprintf(f, "%s %u", kind_names[k], v);
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
    return h;
}

/* ------------------------------------------------------------ file format */

/* An unsigned decimal of at most `max`, from a whole token. */
static themis_status_t parse_uint(const gtok_t *t, int line, uint64_t max, const char *what,
                                  uint64_t *v, themis_parse_error_t *err)
{
    char shown[SHOW_MAX + 1];
    uint64_t x = 0;
    if (0 == t->len) {
        themis_set_parse_error(err, line, t->col, "missing %s", what);
        return THEMIS_ERR_PARSE;
    }
    for (size_t i = 0; i < t->len; i++) {
        if (!isdigit((unsigned char) t->p[i])) {
            themis_set_parse_error(err, line, t->col + (int) i, "%s '%s' is not a number", what,
                                   show(t->p, t->len, shown));
            return THEMIS_ERR_PARSE;
        }
        x = x * 10 + (uint64_t) (t->p[i] - '0');
        if (x > max) {
            themis_set_parse_error(err, line, t->col, "%s '%s' is too large (at most %llu)", what,
                                   show(t->p, t->len, shown), (unsigned long long) max);
            return THEMIS_ERR_PARSE;
        }
    }
    *v = x;
    return THEMIS_OK;
}

/* A bandwidth or latency token through the project's value parsers. */
static themis_status_t parse_rate(const gtok_t *t, int line, int is_bw, uint64_t *v,
                                  themis_parse_error_t *err)
{
    char buf[128], shown[SHOW_MAX + 1];
    const char *end = buf;
    themis_status_t st = THEMIS_ERR_PARSE;
    if (t->len < sizeof(buf)) {
        memcpy(buf, t->p, t->len);
        buf[t->len] = '\0';
        st = is_bw ? themis_parse_bandwidth(buf, v, &end) : themis_parse_latency(buf, v, &end);
        if (THEMIS_OK == st && '\0' != *end) {
            st = THEMIS_ERR_PARSE;
        }
    }
    if (THEMIS_OK != st && is_bw && t->len < sizeof(buf) && '\0' == *end &&
        isdigit((unsigned char) buf[strspn(buf, ".")])
        && !isdigit((unsigned char) buf[strspn(buf, "0.")])) {
        themis_set_parse_error(err, line, t->col, "bandwidth '%s' must be > 0",
                               show(t->p, t->len, shown));
        return THEMIS_ERR_PARSE;
    }
    if (THEMIS_OK != st) {
        /* A number too large for 64 bits (may be longer than buf) is out
         * of range, not malformed. */
        char *whole = malloc(t->len + 1);
        const char *why = NULL;
        if (NULL != whole) {
            memcpy(whole, t->p, t->len);
            whole[t->len] = '\0';
            why = themis_parse_value_why(whole, is_bw);
            free(whole);
        }
        if (NULL != why && 0 == strcmp(why, "number too large")) {
            themis_set_parse_error(err, line, t->col, "%s '%s': number out of range (too large)",
                                   is_bw ? "bandwidth" : "latency", show(t->p, t->len, shown));
            return THEMIS_ERR_PARSE;
        }
        themis_set_parse_error(err, line, t->col + (int) (end - buf), "%s '%s' is not %s",
                               is_bw ? "bandwidth" : "latency", show(t->p, t->len, shown),
                               is_bw ? "a rate > 0 (e.g. 100Gb, 25GB/s)"
                                     : "a time (e.g. 500ns, 2us)");
        return THEMIS_ERR_PARSE;
    }
    if (!is_bw && *v > THEMIS_GRAPH_MAX_LAT_PS) {
        themis_set_parse_error(err, line, t->col, "latency '%s' is above 1 s", show(t->p, t->len, shown));
        return THEMIS_ERR_PARSE;
    }
    return THEMIS_OK;
}

typedef struct {
    int line, col;
} pos_t;

typedef struct {
    uint32_t src, dst;
    pos_t at;
} fail_link_t;

/* The parser's state: the graph under construction holds every id
 * (THEMIS_GRAPH_MAX_NODES nodes) until the real count is known. */
typedef struct {
    themis_graph_t *g;
    pos_t *link_pos;
    fail_link_t *fails;
    uint32_t nfails, cap_fails;
    uint64_t declared;          /* 0: no "nodes" line */
    int *decl_line;             /* [THEMIS_GRAPH_MAX_NODES] line declaring a node, or NULL */
    int first_decl, first_host; /* lines of the first declaration, the first with a host */
    uint32_t max_id;
    pos_t max_at;               /* where max_id first appeared */
    int any_id;
} parse_state_t;

static themis_status_t use_id(parse_state_t *ps, const gtok_t *t, int line, uint32_t *id,
                              themis_parse_error_t *err)
{
    uint64_t v = 0;
    if (THEMIS_OK != parse_uint(t, line, THEMIS_GRAPH_MAX_NODES - 1, "node", &v, err)) {
        return THEMIS_ERR_PARSE;
    }
    if (0 != ps->declared && v >= ps->declared) {
        themis_set_parse_error(err, line, t->col, "node %llu out of range (nodes %llu)", (unsigned long long) v,
                               (unsigned long long) ps->declared);
        return THEMIS_ERR_PARSE;
    }
    if (!ps->any_id || v > ps->max_id) {
        ps->max_id = (uint32_t) v;
        ps->max_at.line = line;
        ps->max_at.col = t->col;
        ps->any_id = 1;
    }
    *id = (uint32_t) v;
    return THEMIS_OK;
}

static themis_status_t add_parsed_link(parse_state_t *ps, uint32_t a, uint32_t b, uint64_t bw,
                                       themis_time_t lat, pos_t at, themis_parse_error_t *err)
{
    themis_graph_t *g = ps->g;
    uint32_t old_cap = g->cap_links;
    themis_status_t st = themis_graph_add_link(g, a, b, bw, lat);
    if (THEMIS_OK != st) {
        themis_set_parse_error(err, at.line, at.col, THEMIS_ERR_NOMEM == st ? "out of memory"
                               : "more than %u links", THEMIS_GRAPH_MAX_LINKS);
        return THEMIS_ERR_NOMEM == st ? st : THEMIS_ERR_PARSE;
    }
    if (g->cap_links != old_cap) {
        pos_t *n = realloc(ps->link_pos, (size_t) g->cap_links * sizeof(*n));
        if (NULL == n) {
            themis_set_parse_error(err, at.line, at.col, "out of memory");
            return THEMIS_ERR_NOMEM;
        }
        ps->link_pos = n;
    }
    ps->link_pos[g->nlinks - 1] = at;
    return THEMIS_OK;
}

/* "KIND K[-L] [host H]". */
static themis_status_t parse_decl(parse_state_t *ps, uint32_t kind, const gtok_t *t, int n,
                                  int line, themis_parse_error_t *err)
{
    char shown[SHOW_MAX + 1];
    uint32_t a, b;
    uint64_t host = THEMIS_GRAPH_NO_HOST;
    if (n < 2 || 3 == n || n > 4 || (4 == n && !tok_is(&t[2], "host"))) {
        int k = n < 2 ? 0 : 3 == n ? 2 : n > 4 ? 4 : 2;
        themis_set_parse_error(err, line, n < 2 ? t[0].col + (int) t[0].len : t[k].col,
                               "expected '%s K' or '%s K-L', then optionally 'host H'",
                               kind_names[kind], kind_names[kind]);
        return THEMIS_ERR_PARSE;
    }
    const char *dash = memchr(t[1].p, '-', t[1].len);
    gtok_t lo = t[1], hi = t[1];
    if (NULL != dash) {
        lo.len = (size_t) (dash - t[1].p);
        hi.p = dash + 1;
        hi.len = t[1].len - lo.len - 1;
        hi.col = t[1].col + (int) lo.len + 1;
    }
    if (THEMIS_OK != use_id(ps, &lo, line, &a, err) || THEMIS_OK != use_id(ps, &hi, line, &b, err)) {
        return THEMIS_ERR_PARSE;
    }
    if (b < a) {
        themis_set_parse_error(err, line, t[1].col, "node range '%s' runs backwards",
                               show(t[1].p, t[1].len, shown));
        return THEMIS_ERR_PARSE;
    }
    if (4 == n && THEMIS_OK != parse_uint(&t[3], line, THEMIS_GRAPH_MAX_NODES - 1, "host", &host,
                                          err)) {
        return THEMIS_ERR_PARSE;
    }
    if (NULL == ps->decl_line) {
        ps->decl_line = calloc(THEMIS_GRAPH_MAX_NODES, sizeof(int));
        if (NULL == ps->decl_line) {
            themis_set_parse_error(err, line, t[0].col, "out of memory");
            return THEMIS_ERR_NOMEM;
        }
    }
    for (uint32_t v = a; v <= b; v++) {
        if (0 != ps->decl_line[v]) {
            themis_set_parse_error(err, line, t[1].col, "node %u declared twice (first at line %d)", v,
                                   ps->decl_line[v]);
            return THEMIS_ERR_PARSE;
        }
        ps->decl_line[v] = line;
        ps->first_decl = 0 == ps->first_decl ? line : ps->first_decl;
        ps->first_host = (0 == ps->first_host && 4 == n) ? line : ps->first_host;
        if (THEMIS_OK != themis_graph_set_node(ps->g, v, (themis_node_kind_t) kind,
                                               (uint32_t) host)) {
            themis_set_parse_error(err, line, t[0].col, "out of memory");
            return THEMIS_ERR_NOMEM;
        }
    }
    return THEMIS_OK;
}

static themis_status_t parse_line(parse_state_t *ps, const gtok_t *t, int n, int line,
                                  themis_parse_error_t *err)
{
    char shown[SHOW_MAX + 1];
    uint32_t a, b;
    for (uint32_t k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++) {
        if (tok_is(&t[0], kind_names[k])) {
            return parse_decl(ps, k, t, n, line, err);
        }
    }
    if (tok_is(&t[0], "nodes")) {
        uint64_t v = 0;
        if (n != 2) {
            themis_set_parse_error(err, line, n < 2 ? t[0].col + (int) t[0].len : t[2].col,
                                   "expected 'nodes N'");
            return THEMIS_ERR_PARSE;
        }
        if (0 != ps->declared) {
            themis_set_parse_error(err, line, t[0].col, "'nodes' given twice");
            return THEMIS_ERR_PARSE;
        }
        if (THEMIS_OK != parse_uint(&t[1], line, THEMIS_GRAPH_MAX_NODES, "node count", &v, err)) {
            return THEMIS_ERR_PARSE;
        }
        if (0 == v) {
            themis_set_parse_error(err, line, t[1].col, "node count must be >= 1");
            return THEMIS_ERR_PARSE;
        }
        if (ps->any_id && ps->max_id >= v) {
            themis_set_parse_error(err, line, t[1].col, "nodes %llu, but line %d names node %u",
                                   (unsigned long long) v, ps->max_at.line, ps->max_id);
            return THEMIS_ERR_PARSE;
        }
        ps->declared = v;
        return THEMIS_OK;
    }
    if (tok_is(&t[0], "fail")) {
        if (n >= 3 && tok_is(&t[1], "node")) {
            if (n > 3) {
                themis_set_parse_error(err, line, t[3].col, "extra field '%s' (expected 'fail node K')",
                                       show(t[3].p, t[3].len, shown));
                return THEMIS_ERR_PARSE;
            }
            if (THEMIS_OK != use_id(ps, &t[2], line, &a, err)) {
                return THEMIS_ERR_PARSE;
            }
            ps->g->node_failed[a] = 1;
            return THEMIS_OK;
        }
        if (n >= 4 && tok_is(&t[1], "link")) {
            if (n > 4) {
                themis_set_parse_error(err, line, t[4].col,
                                       "extra field '%s' (expected 'fail link SRC DST')",
                                       show(t[4].p, t[4].len, shown));
                return THEMIS_ERR_PARSE;
            }
            if (THEMIS_OK != use_id(ps, &t[2], line, &a, err) ||
                THEMIS_OK != use_id(ps, &t[3], line, &b, err)) {
                return THEMIS_ERR_PARSE;
            }
            if (ps->nfails == ps->cap_fails) {
                uint32_t cap = (0 == ps->cap_fails) ? 16 : 2 * ps->cap_fails;
                fail_link_t *f = realloc(ps->fails, (size_t) cap * sizeof(*f));
                if (NULL == f) {
                    themis_set_parse_error(err, line, t[0].col, "out of memory");
                    return THEMIS_ERR_NOMEM;
                }
                ps->fails = f;
                ps->cap_fails = cap;
            }
            fail_link_t *f = &ps->fails[ps->nfails++];
            f->src = a;
            f->dst = b;
            f->at.line = line;
            f->at.col = t[0].col;
            return THEMIS_OK;
        }
        themis_set_parse_error(err, line, n > 1 ? t[1].col : t[0].col + (int) t[0].len,
                               "expected 'fail node K' or 'fail link SRC DST'");
        return THEMIS_ERR_PARSE;
    }
    if (!isdigit((unsigned char) t[0].p[0])) {
        themis_set_parse_error(
            err, line, t[0].col,
            "unexpected '%s' (expected nodes, rank, host, nic, switch, fail, or a link "
            "SRC DST BW LAT [both])",
            show(t[0].p, t[0].len, shown));
        return THEMIS_ERR_PARSE;
    }
    if (n < 4) {
        static const char *names[] = {"SRC", "DST", "BW", "LAT"};
        themis_set_parse_error(err, line, t[n - 1].col + (int) t[n - 1].len,
                               "missing %s (expected SRC DST BW LAT [both])", names[n]);
        return THEMIS_ERR_PARSE;
    }
    if (n > 5 || (5 == n && !tok_is(&t[4], "both"))) {
        int k = (5 == n) ? 4 : 5;
        themis_set_parse_error(err, line, t[k].col, "unexpected '%s' (expected SRC DST BW LAT [both])",
                               show(t[k].p, t[k].len, shown));
        return THEMIS_ERR_PARSE;
    }
    uint64_t bw = 0;
    themis_time_t lat = 0;
    if (THEMIS_OK != use_id(ps, &t[0], line, &a, err) ||
        THEMIS_OK != use_id(ps, &t[1], line, &b, err) ||
        THEMIS_OK != parse_rate(&t[2], line, 1, &bw, err) ||
        THEMIS_OK != parse_rate(&t[3], line, 0, &lat, err)) {
        return THEMIS_ERR_PARSE;
    }
    pos_t at = {line, t[0].col};
    themis_status_t st = add_parsed_link(ps, a, b, bw, lat, at, err);
    if (THEMIS_OK == st && 5 == n) {
        st = add_parsed_link(ps, b, a, bw, lat, at, err);
    }
    return st;
}

/* After the last line: the node count, the checks that need every link,
 * the failed links. */
static themis_status_t parse_finish(parse_state_t *ps, themis_parse_error_t *err)
{
    themis_graph_t *g = ps->g;
    char why[128];
    uint32_t bad, bad_node;
    if (0 == ps->declared && !ps->any_id) {
        themis_set_parse_error(err, 1, 1, "empty graph (expected 'nodes N' or links SRC DST BW LAT)");
        return THEMIS_ERR_PARSE;
    }
    g->nnodes = (uint32_t) (0 != ps->declared ? ps->declared : (uint64_t) ps->max_id + 1);
    themis_status_t st = finish_at(g, &bad, &bad_node, why, sizeof(why));
    if (THEMIS_OK != st) {
        pos_t at = (UINT32_MAX != bad) ? ps->link_pos[bad] : (pos_t) {0, 0};
        if (UINT32_MAX == bad && 0 != ps->first_decl) {
            /* a node error: its declaration, else where the placement
             * (a rank without a host, a host without a rank) begins */
            at.line = (UINT32_MAX != bad_node && 0 != ps->decl_line[bad_node])
                          ? ps->decl_line[bad_node]
                          : 0 != ps->first_host ? ps->first_host : ps->first_decl;
            at.col = 1;
        }
        themis_set_parse_error(err, at.line, at.col, "%s", why);
        return st;
    }
    for (uint32_t i = 0; i < ps->nfails; i++) {
        const fail_link_t *f = &ps->fails[i];
        uint32_t l = find_link(g, f->src, f->dst);
        if (UINT32_MAX == l) {
            themis_set_parse_error(err, f->at.line, f->at.col, "fail link %u %u: no such link", f->src,
                                   f->dst);
            return THEMIS_ERR_PARSE;
        }
        g->links[l].failed = 1;
    }
    return THEMIS_OK;
}

themis_status_t themis_graph_parse(const char *text, themis_graph_t *g,
                                   themis_parse_error_t *err)
{
    themis_set_parse_error(err, 0, 0, "%s", "");
    if (NULL == text || NULL == g) {
        themis_set_parse_error(err, 0, 0, "no graph given");
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = themis_graph_init(g, THEMIS_GRAPH_MAX_NODES);
    if (THEMIS_OK != st) {
        themis_set_parse_error(err, 0, 0, "out of memory");
        return st;
    }
    parse_state_t ps;
    memset(&ps, 0, sizeof(ps));
    ps.g = g;
    const char *p = text;
    for (int line = 1; THEMIS_OK == st && '\0' != *p; line++) {
        const char *nl = strchr(p, '\n');
        size_t len = (NULL != nl) ? (size_t) (nl - p) : strlen(p);
        const char *hash = memchr(p, '#', len);
        size_t clen = (NULL != hash) ? (size_t) (hash - p) : len;
        gtok_t toks[6];
        int n = themis_split_ws(p, clen, line, toks, 6);
        if (n > 6) {
            themis_set_parse_error(err, line, toks[5].col, "too many fields");
            st = THEMIS_ERR_PARSE;
        } else if (n > 0) {
            st = parse_line(&ps, toks, n, line, err);
        }
        p += len + ((NULL != nl) ? 1 : 0);
    }
    if (THEMIS_OK == st) {
        st = parse_finish(&ps, err);
    }
    free(ps.link_pos);
    free(ps.fails);
    free(ps.decl_line);
    if (THEMIS_OK != st) {
        themis_graph_free(g);
    }
    return st;
}

/* ------------------------------------------------------------ generators */

typedef enum {
    PAT_RING,       /* k -> k+1 mod p */
    PAT_NEIGH,      /* k <-> k+1, and p-1 <-> 0 when wrapping with p >= 3 */
    PAT_SHIFT,      /* k -> k+1 .. k+d mod p */
    PAT_ALL         /* every ordered pair */
} pattern_t;

static uint64_t pattern_links(pattern_t pat, uint64_t p, uint64_t d, int wrap)
{
    if (p < 2) {
        return 0;
    }
    switch (pat) {
    case PAT_RING:
        return p;
    case PAT_NEIGH:
        return 2 * (p - 1) + ((wrap && p >= 3) ? 2 : 0);
    case PAT_SHIFT:
        return p * d;
    case PAT_ALL:
        return p * (p - 1);
    }
    return 0;
}

static uint32_t node_at(uint64_t base, uint32_t k, uint64_t stride)
{
    return (uint32_t) (base + (uint64_t) k * stride);
}

/* One dimension's links in every group of a grid (sizes[0] innermost),
 * group by group in the order of their first node.  Pairs of a link and
 * its reverse come together (the file writes them as one "both" line). */
static themis_status_t gen_dim(themis_graph_t *g, const uint32_t *sizes, int ndims, int dim,
                               pattern_t pat, uint32_t d, int wrap, uint64_t bw,
                               themis_time_t lat)
{
    uint64_t stride = 1, total = 1;
    for (int i = 0; i < ndims; i++) {
        if (i < dim) {
            stride *= sizes[i];
        }
        total *= sizes[i];
    }
    uint32_t p = sizes[dim];
    themis_status_t st = THEMIS_OK;
    if (p < 2) {
        return THEMIS_OK;
    }
    for (uint64_t base = 0; base < total && THEMIS_OK == st; base++) {
        if (0 != (base / stride) % p) {
            continue;
        }
        for (uint32_t k = 0; k < p && THEMIS_OK == st; k++) {
            uint32_t here = node_at(base, k, stride);
            uint32_t next = node_at(base, (k + 1) % p, stride);
            switch (pat) {
            case PAT_RING:
                st = themis_graph_add_link(g, here, next, bw, lat);
                break;
            case PAT_NEIGH:
                if (k + 1 < p || (wrap && p >= 3)) {
                    st = themis_graph_add_link(g, here, next, bw, lat);
                    if (THEMIS_OK == st) {
                        st = themis_graph_add_link(g, next, here, bw, lat);
                    }
                }
                break;
            case PAT_SHIFT:
                for (uint32_t s = 1; s <= d && THEMIS_OK == st; s++) {
                    st = themis_graph_add_link(g, here, node_at(base, (k + s) % p, stride), bw,
                                               lat);
                }
                break;
            case PAT_ALL:
                for (uint32_t j = k + 1; j < p && THEMIS_OK == st; j++) {
                    st = themis_graph_add_link(g, here, node_at(base, j, stride), bw, lat);
                    if (THEMIS_OK == st) {
                        st = themis_graph_add_link(g, node_at(base, j, stride), here, bw, lat);
                    }
                }
                break;
            }
        }
    }
    return st;
}

/* Link pattern and per-link bandwidth of one topology dimension: the
 * NPU's aggregate split evenly over its links there. */
static void dim_links(const themis_dim_t *dm, uint32_t degree, pattern_t *pat, uint32_t *d,
                      uint64_t *bw)
{
    uint32_t p = dm->size;
    *d = 0;
    switch (dm->kind) {
    case THEMIS_DIM_RING:
        *pat = PAT_RING;
        *bw = dm->bw_bps;
        return;
    case THEMIS_DIM_BIRING:
        *pat = PAT_NEIGH;
        *bw = (p > 2) ? dm->bw_bps / 2 : dm->bw_bps;
        return;
    case THEMIS_DIM_FC:
        *pat = PAT_ALL;
        *bw = (p > 1) ? dm->bw_bps / (p - 1) : dm->bw_bps;
        return;
    case THEMIS_DIM_SWITCH:
        *pat = PAT_SHIFT;
        *d = (0 == degree || degree > p - 1) ? p - 1 : degree;
        *bw = (*d > 0) ? dm->bw_bps / *d : dm->bw_bps;
        return;
    }
}

static themis_status_t topology_graph(const themis_topology_t *t, uint32_t degree,
                                      themis_graph_t *g, char *why, size_t len)
{
    uint32_t sizes[THEMIS_MAX_DIMS];
    uint64_t nodes = 1, links = 0;
    memset(g, 0, sizeof(*g));
    if (THEMIS_OK != themis_topology_check(t, why, len)) {
        return THEMIS_ERR_INVALID;
    }
    for (int i = 0; i < t->ndims; i++) {
        sizes[i] = t->dims[i].size;
        nodes *= sizes[i];
    }
    if (nodes > THEMIS_GRAPH_MAX_NODES) {
        snprintf(why, len, "too many nodes: %llu (at most %u)", (unsigned long long) nodes,
                 THEMIS_GRAPH_MAX_NODES);
        return THEMIS_ERR_INVALID;
    }
    for (int i = 0; i < t->ndims; i++) {
        pattern_t pat;
        uint32_t d;
        uint64_t bw;
        dim_links(&t->dims[i], degree, &pat, &d, &bw);
        if (0 == bw) {
            snprintf(why, len, "dimension %d: %llu bit/s split over its links rounds to 0", i,
                     (unsigned long long) t->dims[i].bw_bps);
            return THEMIS_ERR_INVALID;
        }
        links += pattern_links(pat, sizes[i], d, 1) * (nodes / sizes[i]);
    }
    if (links > THEMIS_GRAPH_MAX_LINKS) {
        snprintf(why, len, "too many links: %llu (at most %u)", (unsigned long long) links,
                 THEMIS_GRAPH_MAX_LINKS);
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = themis_graph_init(g, (uint32_t) nodes);
    for (int i = 0; i < t->ndims && THEMIS_OK == st; i++) {
        pattern_t pat;
        uint32_t d;
        uint64_t bw;
        dim_links(&t->dims[i], degree, &pat, &d, &bw);
        st = gen_dim(g, sizes, t->ndims, i, pat, d, 1, bw, t->dims[i].step_latency);
    }
    return themis_graph_build_end(g, st, why, len);
}

themis_status_t themis_graph_from_topology(const themis_topology_t *t, uint32_t degree,
                                           themis_graph_t *g)
{
    char why[8];
    return topology_graph(t, degree, g, why, sizeof(why));
}

/* p3 instances: NVLink pairs, 2 = a dual link. */
typedef struct {
    uint8_t a, b, mult;
} nvlink_t;

static const nvlink_t p3_16xlarge[] = {
    {0, 1, 2}, {0, 4, 2}, {1, 3, 2}, {2, 3, 2}, {2, 6, 2}, {4, 5, 2}, {5, 7, 2}, {6, 7, 2},
    {0, 2, 1}, {0, 3, 1}, {1, 2, 1}, {1, 5, 1}, {3, 7, 1}, {4, 6, 1}, {4, 7, 1}, {5, 6, 1},
};
static const nvlink_t p3_8xlarge[] = {
    {0, 1, 2}, {1, 3, 2}, {2, 3, 2}, {0, 2, 1}, {0, 3, 1}, {1, 2, 1},
};

typedef enum {
    SP_RING, SP_BIRING, SP_FC, SP_SWITCH, SP_MESH2D, SP_TORUS2D, SP_MESH3D, SP_TORUS3D,
    SP_HETERO, SP_DIMS, SP_P3_16, SP_P3_8
} spec_kind_t;

static const struct {
    const char *name;
    spec_kind_t kind;
    int nsizes;     /* sizes after ':'; 0: none (presets), -1: a topology */
} spec_names[] = {
    {"ring", SP_RING, 1},          {"biring", SP_BIRING, 1},    {"fc", SP_FC, 1},
    {"switch", SP_SWITCH, 1},      {"sw", SP_SWITCH, 1},        {"mesh2d", SP_MESH2D, 2},
    {"torus2d", SP_TORUS2D, 2},    {"mesh3d", SP_MESH3D, 3},    {"torus3d", SP_TORUS3D, 3},
    {"mesh2d_hetero", SP_HETERO, 2}, {"dims", SP_DIMS, -1},     {"p3.16xlarge", SP_P3_16, 0},
    {"p3.8xlarge", SP_P3_8, 0},
};
#define NSPECS ((int) (sizeof(spec_names) / sizeof(spec_names[0])))

/* Everything a spec says, with where it said it (columns in the spec). */
typedef struct {
    int which;                  /* index into spec_names */
    uint32_t sizes[3];
    int nsizes;
    int args_col;
    themis_topology_t topo;
    themis_graph_opts_t o;
    int bw_col, bw2_col, lat_col, degree_col;
    uint32_t *fail_nodes;
    int *fail_node_cols;
    uint32_t nfail_nodes;
    uint32_t (*fail_links)[2];
    int *fail_link_cols;
    uint32_t nfail_links;
} spec_t;

static void spec_free(spec_t *sp)
{
    free(sp->fail_nodes);
    free(sp->fail_node_cols);
    free(sp->fail_links);
    free(sp->fail_link_cols);
}

static int spec_lookup(const char *s, size_t len)
{
    for (int i = 0; i < NSPECS; i++) {
        if (strlen(spec_names[i].name) == len && 0 == strncasecmp(spec_names[i].name, s, len)) {
            return i;
        }
    }
    return -1;
}

/* "N", "WxH" or "XxYxZ" from s[0 .. len), column col. */
static themis_status_t parse_sizes(const char *s, size_t len, int col, spec_t *sp,
                                   themis_parse_error_t *err)
{
    const char *name = spec_names[sp->which].name;
    int want = spec_names[sp->which].nsizes;
    static const char *forms[] = {"", "N", "WxH", "XxYxZ"};
    uint64_t nodes = 1;
    size_t i = 0;
    sp->nsizes = 0;
    while (i <= len) {
        size_t e = i;
        while (e < len && 'x' != s[e] && 'X' != s[e]) {
            e++;
        }
        gtok_t t = {s + i, e - i, 1, col + (int) i};
        uint64_t v = 0;
        if (sp->nsizes == want) {
            themis_set_parse_error(err, 1, col + (int) i - 1, "%s takes %s", name, forms[want]);
            return THEMIS_ERR_PARSE;
        }
        if (THEMIS_OK != parse_uint(&t, 1, THEMIS_GRAPH_MAX_NODES, "size", &v, err)) {
            return THEMIS_ERR_PARSE;
        }
        if (0 == v) {
            themis_set_parse_error(err, 1, t.col, "%s: a size must be >= 1", name);
            return THEMIS_ERR_PARSE;
        }
        nodes *= v;
        if (nodes > THEMIS_GRAPH_MAX_NODES) {
            themis_set_parse_error(err, 1, col, "%s: too many nodes (at most %u)", name,
                                   THEMIS_GRAPH_MAX_NODES);
            return THEMIS_ERR_PARSE;
        }
        sp->sizes[sp->nsizes++] = (uint32_t) v;
        i = e + 1;
    }
    if (sp->nsizes != want) {
        themis_set_parse_error(err, 1, col + (int) len, "%s takes %s", name, forms[want]);
        return THEMIS_ERR_PARSE;
    }
    return THEMIS_OK;
}

/* "K+K+..." (pairs: "A-B+A-B...") into a growing array. */
static themis_status_t parse_id_list(const char *s, size_t len, int col, int pairs,
                                     spec_t *sp, themis_parse_error_t *err)
{
    size_t i = 0;
    while (i <= len) {
        size_t e = i;
        while (e < len && '+' != s[e]) {
            e++;
        }
        uint64_t v[2] = {0, 0};
        size_t dash = i;
        while (pairs && dash < e && '-' != s[dash]) {
            dash++;
        }
        if (pairs && dash == e) {
            themis_set_parse_error(err, 1, col + (int) i, "faillink wants SRC-DST pairs joined by '+'");
            return THEMIS_ERR_PARSE;
        }
        gtok_t a = {s + i, (pairs ? dash : e) - i, 1, col + (int) i};
        gtok_t b = {s + dash + 1, pairs ? e - dash - 1 : 0, 1, col + (int) dash + 1};
        if (THEMIS_OK != parse_uint(&a, 1, THEMIS_GRAPH_MAX_NODES - 1, "node", &v[0], err) ||
            (pairs &&
             THEMIS_OK != parse_uint(&b, 1, THEMIS_GRAPH_MAX_NODES - 1, "node", &v[1], err))) {
            return THEMIS_ERR_PARSE;
        }
        uint32_t n = pairs ? sp->nfail_links : sp->nfail_nodes;
        int *cols = realloc(pairs ? sp->fail_link_cols : sp->fail_node_cols,
                            ((size_t) n + 1) * sizeof(int));
        if (NULL == cols) {
            return THEMIS_ERR_NOMEM;
        }
        if (pairs) {
            sp->fail_link_cols = cols;
            uint32_t (*fl)[2] = realloc(sp->fail_links, ((size_t) n + 1) * sizeof(*fl));
            if (NULL == fl) {
                return THEMIS_ERR_NOMEM;
            }
            sp->fail_links = fl;
            fl[n][0] = (uint32_t) v[0];
            fl[n][1] = (uint32_t) v[1];
            sp->nfail_links++;
        } else {
            sp->fail_node_cols = cols;
            uint32_t *fn = realloc(sp->fail_nodes, ((size_t) n + 1) * sizeof(*fn));
            if (NULL == fn) {
                return THEMIS_ERR_NOMEM;
            }
            sp->fail_nodes = fn;
            fn[n] = (uint32_t) v[0];
            sp->nfail_nodes++;
        }
        cols[n] = col + (int) i;
        i = e + 1;
    }
    return THEMIS_OK;
}

/* One "key=value" option. */
static themis_status_t parse_option(const char *s, size_t len, int col, spec_t *sp,
                                    themis_parse_error_t *err)
{
    char shown[SHOW_MAX + 1];
    const char *eq = memchr(s, '=', len);
    size_t klen = (size_t) (eq - s);
    gtok_t v = {eq + 1, len - klen - 1, 1, col + (int) klen + 1};
    uint64_t x = 0;
    if (4 == klen && 0 == strncmp(s, "fail", 4)) {
        return parse_id_list(v.p, v.len, v.col, 0, sp, err);
    }
    if (8 == klen && 0 == strncmp(s, "faillink", 8)) {
        return parse_id_list(v.p, v.len, v.col, 1, sp, err);
    }
    if (2 == klen && 0 == strncmp(s, "bw", 2)) {
        sp->bw_col = col;
        return parse_rate(&v, 1, 1, &sp->o.bw_bps, err);
    }
    if (3 == klen && 0 == strncmp(s, "bw2", 3)) {
        sp->bw2_col = col;
        return parse_rate(&v, 1, 1, &sp->o.bw2_bps, err);
    }
    if (3 == klen && 0 == strncmp(s, "lat", 3)) {
        sp->lat_col = col;
        return parse_rate(&v, 1, 0, &sp->o.lat_ps, err);
    }
    if (6 == klen && 0 == strncmp(s, "degree", 6)) {
        if (THEMIS_OK != parse_uint(&v, 1, THEMIS_GRAPH_MAX_NODES, "degree", &x, err)) {
            return THEMIS_ERR_PARSE;
        }
        sp->degree_col = col;     /* degree=0: all peers, as graph.h says */
        sp->o.degree = (uint32_t) x;
        return THEMIS_OK;
    }
    themis_set_parse_error(err, 1, col, "unknown option '%s' (bw, bw2, lat, degree, fail, faillink)",
                           show(s, klen, shown));
    return THEMIS_ERR_PARSE;
}

/* NAME[:ARGS][,key=value...]: dims' ARGS may hold ',' (a topology's
 * dimension separator), so ARGS run to the first part with a '='. */
static themis_status_t parse_spec(const char *s, spec_t *sp, themis_parse_error_t *err)
{
    char shown[SHOW_MAX + 1];
    size_t len = strlen(s);
    size_t name_len = strcspn(s, ":,");
    size_t args_end = len;
    sp->which = spec_lookup(s, name_len);
    int nsizes = spec_names[sp->which].nsizes;
    for (size_t i = name_len; i < len; i++) {
        if (',' == s[i]) {
            size_t e = i + 1 + strcspn(s + i + 1, ",");
            if (NULL != memchr(s + i + 1, '=', e - i - 1) || nsizes >= 0) {
                args_end = i;
                break;
            }
        }
    }
    if (0 == nsizes && name_len < args_end) {
        themis_set_parse_error(err, 1, (int) name_len + 1, "%s takes no size", spec_names[sp->which].name);
        return THEMIS_ERR_PARSE;
    }
    if (0 != nsizes && (name_len >= args_end || name_len + 1 == args_end)) {
        themis_set_parse_error(err, 1, (int) name_len + 1, "%s needs %s", spec_names[sp->which].name,
                               nsizes < 0 ? ":TOPOLOGY" : 1 == nsizes ? ":N" : 2 == nsizes ? ":WxH" : ":XxYxZ");
        return THEMIS_ERR_PARSE;
    }
    sp->args_col = (int) name_len + 2;
    if (nsizes > 0) {
        if (THEMIS_OK != parse_sizes(s + name_len + 1, args_end - name_len - 1, sp->args_col,
                                     sp, err)) {
            return THEMIS_ERR_PARSE;
        }
    } else if (nsizes < 0) {
        size_t tlen = args_end - name_len - 1;
        char *topo = malloc(tlen + 1);
        if (NULL == topo) {
            return THEMIS_ERR_NOMEM;
        }
        memcpy(topo, s + name_len + 1, tlen);
        topo[tlen] = '\0';
        themis_status_t st = themis_topology_parse(topo, &sp->topo, err);
        free(topo);
        if (THEMIS_OK != st) {
            if (NULL != err) {
                err->line = 1;
                err->column += sp->args_col - 1;
            }
            return THEMIS_ERR_PARSE;
        }
    }
    size_t i = args_end;
    while (i < len) {
        size_t e = i + 1 + strcspn(s + i + 1, ",");
        int col = (int) i + 2;
        if (NULL == memchr(s + i + 1, '=', e - i - 1)) {
            themis_set_parse_error(err, 1, col, "unexpected '%s' (options are key=value)",
                                   show(s + i + 1, e - i - 1, shown));
            return THEMIS_ERR_PARSE;
        }
        themis_status_t st = parse_option(s + i + 1, e - i - 1, col, sp, err);
        if (THEMIS_OK != st) {
            return st;
        }
        i = e;
    }
    return THEMIS_OK;
}

/* Options that do not apply to this spec are errors, whether the spec or
 * the caller's defaults (the CLI's --bw ...) give them; columns 1 for the
 * latter. */
static themis_status_t check_keys(const spec_t *sp, const themis_graph_opts_t *def,
                                  themis_parse_error_t *err)
{
    spec_kind_t k = spec_names[sp->which].kind;
    const char *name = spec_names[sp->which].name;
    if ((0 != sp->bw2_col || 0 != def->bw2_bps) && SP_HETERO != k) {
        themis_set_parse_error(err, 1, sp->bw2_col ? sp->bw2_col : 1, "bw2 applies to mesh2d_hetero only");
        return THEMIS_ERR_PARSE;
    }
    if ((0 != sp->degree_col || 0 != def->degree) && SP_SWITCH != k && SP_DIMS != k) {
        themis_set_parse_error(err, 1, sp->degree_col ? sp->degree_col : 1,
                               "degree applies to switch and dims only, not %s", name);
        return THEMIS_ERR_PARSE;
    }
    if (SP_DIMS == k && (0 != sp->bw_col || 0 != sp->lat_col || 0 != def->bw_bps ||
                         UINT64_MAX != def->lat_ps)) {
        themis_set_parse_error(err, 1, sp->bw_col ? sp->bw_col : sp->lat_col ? sp->lat_col : 1,
                               "dims: the topology string gives bandwidths and latencies");
        return THEMIS_ERR_PARSE;
    }
    return THEMIS_OK;
}

static themis_status_t build_spec(spec_t *sp, const themis_graph_opts_t *def, themis_graph_t *g,
                                  themis_parse_error_t *err)
{
    spec_kind_t k = spec_names[sp->which].kind;
    int preset = (SP_P3_16 == k || SP_P3_8 == k);
    uint64_t bw = sp->o.bw_bps ? sp->o.bw_bps : def->bw_bps;
    themis_time_t lat = (UINT64_MAX != sp->o.lat_ps) ? sp->o.lat_ps : def->lat_ps;
    uint32_t degree = sp->degree_col ? sp->o.degree : def->degree;
    char why[128];
    themis_status_t st = THEMIS_OK;

    if (0 == bw) {
        bw = preset ? THEMIS_GRAPH_NVLINK_BW_BPS : THEMIS_DEFAULT_NETWORK_BW_BPS;
    }
    if (UINT64_MAX == lat) {
        lat = preset ? THEMIS_GRAPH_NVLINK_LAT_PS : THEMIS_DEFAULT_NETWORK_LAT_PS;
    }
    if (lat > THEMIS_GRAPH_MAX_LAT_PS) {
        themis_set_parse_error(err, 1, sp->lat_col, "latency above 1 s");
        return THEMIS_ERR_PARSE;
    }
    uint64_t bw2 = sp->o.bw2_bps ? sp->o.bw2_bps : def->bw2_bps;
    if (0 == bw2) {
        bw2 = bw / 2;
    }
    if (SP_RING == k || SP_BIRING == k || SP_FC == k || SP_SWITCH == k || SP_DIMS == k) {
        if (SP_DIMS != k) {
            static const themis_dim_kind_t kinds[] = {THEMIS_DIM_RING, THEMIS_DIM_BIRING,
                                                      THEMIS_DIM_FC, THEMIS_DIM_SWITCH};
            memset(&sp->topo, 0, sizeof(sp->topo));
            sp->topo.ndims = 1;
            sp->topo.dims[0].kind = kinds[k - SP_RING];
            sp->topo.dims[0].size = sp->sizes[0];
            sp->topo.dims[0].bw_bps = bw;
            sp->topo.dims[0].step_latency = lat;
        }
        st = topology_graph(&sp->topo, degree, g, why, sizeof(why));
        if (THEMIS_OK != st) {
            themis_set_parse_error(err, 1, sp->args_col, "%s", why);
        }
        return st;
    }
    if (preset) {
        const nvlink_t *pairs = (SP_P3_16 == k) ? p3_16xlarge : p3_8xlarge;
        size_t npairs = (SP_P3_16 == k) ? sizeof(p3_16xlarge) / sizeof(p3_16xlarge[0])
                                        : sizeof(p3_8xlarge) / sizeof(p3_8xlarge[0]);
        if (bw > UINT64_MAX / 2) {
            themis_set_parse_error(err, 1, sp->bw_col, "bandwidth too large for a dual link");
            return THEMIS_ERR_PARSE;
        }
        st = themis_graph_init(g, (SP_P3_16 == k) ? 8 : 4);
        for (size_t i = 0; i < npairs && THEMIS_OK == st; i++) {
            st = themis_graph_add_link(g, pairs[i].a, pairs[i].b, pairs[i].mult * bw, lat);
            if (THEMIS_OK == st) {
                st = themis_graph_add_link(g, pairs[i].b, pairs[i].a, pairs[i].mult * bw, lat);
            }
        }
    } else {
        int wrap = (SP_TORUS2D == k || SP_TORUS3D == k);
        uint64_t nodes = 1, links = 0;
        for (int i = 0; i < sp->nsizes; i++) {
            nodes *= sp->sizes[i];
        }
        for (int i = 0; i < sp->nsizes; i++) {
            links += pattern_links(PAT_NEIGH, sp->sizes[i], 0, wrap) * (nodes / sp->sizes[i]);
        }
        if (links > THEMIS_GRAPH_MAX_LINKS) {
            themis_set_parse_error(err, 1, sp->args_col, "too many links: %llu (at most %u)",
                                   (unsigned long long) links, THEMIS_GRAPH_MAX_LINKS);
            return THEMIS_ERR_PARSE;
        }
        st = themis_graph_init(g, (uint32_t) nodes);
        for (int i = 0; i < sp->nsizes && THEMIS_OK == st; i++) {
            uint64_t b = (SP_HETERO == k && 1 == i) ? bw2 : bw;
            if (0 == b) {
                themis_set_parse_error(err, 1, sp->args_col, "bw2 (half of bw by default) is 0");
                themis_graph_free(g);
                return THEMIS_ERR_PARSE;
            }
            st = gen_dim(g, sp->sizes, sp->nsizes, i, PAT_NEIGH, 0, wrap, b, lat);
        }
    }
    if (THEMIS_OK == st) {
        st = themis_graph_finish(g, why, sizeof(why));
    } else {
        snprintf(why, sizeof(why), "out of memory");
    }
    if (THEMIS_OK != st) {
        themis_set_parse_error(err, 1, 1, "%s", why);
        themis_graph_free(g);
    }
    return st;
}

static themis_status_t apply_failures(const spec_t *sp, themis_graph_t *g,
                                      themis_parse_error_t *err)
{
    for (uint32_t i = 0; i < sp->nfail_nodes; i++) {
        if (sp->fail_nodes[i] >= g->nnodes) {
            themis_set_parse_error(err, 1, sp->fail_node_cols[i], "fail: node %u out of range (%u nodes)",
                                   sp->fail_nodes[i], g->nnodes);
            return THEMIS_ERR_PARSE;
        }
        g->node_failed[sp->fail_nodes[i]] = 1;
    }
    for (uint32_t i = 0; i < sp->nfail_links; i++) {
        uint32_t l = find_link(g, sp->fail_links[i][0], sp->fail_links[i][1]);
        if (UINT32_MAX == l) {
            themis_set_parse_error(err, 1, sp->fail_link_cols[i], "faillink: no link %u -> %u",
                                   sp->fail_links[i][0], sp->fail_links[i][1]);
            return THEMIS_ERR_PARSE;
        }
        g->links[l].failed = 1;
    }
    return THEMIS_OK;
}

themis_status_t themis_graph_load(const char *spec_or_path, const themis_graph_opts_t *opts,
                                  themis_graph_t *g, themis_parse_error_t *err)
{
    themis_graph_opts_t def;
    char shown[SHOW_MAX + 1];
    themis_set_parse_error(err, 0, 0, "%s", "");
    memset(g, 0, sizeof(*g));
    if (NULL == spec_or_path) {
        themis_set_parse_error(err, 0, 0, "no graph given");
        return THEMIS_ERR_INVALID;
    }
    themis_graph_opts_default(&def);
    if (NULL != opts) {
        def = *opts;
    }
    const char *s = spec_or_path;
    size_t name_len = strcspn(s, ":,");
    if (themis_cluster_is_spec(s, name_len)) {
        return themis_cluster_load(s, &def, g, err);
    }
    if (spec_lookup(s, name_len) < 0) {
        char *text = NULL;
        if (0 != def.bw_bps || 0 != def.bw2_bps || UINT64_MAX != def.lat_ps || 0 != def.degree) {
            themis_set_parse_error(err, 0, 0, "bandwidth, latency and degree options do not apply to a file");
            return THEMIS_ERR_INVALID;
        }
        themis_status_t st = themis_read_text_file(s, MAX_FILE_BYTES, "graph file", &text, err);
        if (THEMIS_ERR_IO == st && NULL != strchr(s, ':')) {
            themis_set_parse_error(
                err, 1, 1,
                "unknown graph '%s' (ring biring fc switch mesh2d torus2d "
                "mesh3d torus3d mesh2d_hetero dims p3.16xlarge p3.8xlarge cluster leafspine "
                "rail)",
                show(s, name_len, shown));
            return THEMIS_ERR_PARSE;
        }
        if (THEMIS_OK == st) {
            st = themis_graph_parse(text, g, err);
            free(text);
        }
        return st;
    }
    spec_t sp;
    memset(&sp, 0, sizeof(sp));
    themis_graph_opts_default(&sp.o);
    themis_status_t st = parse_spec(s, &sp, err);
    if (THEMIS_OK == st) {
        st = check_keys(&sp, &def, err);
    }
    if (THEMIS_OK == st) {
        st = build_spec(&sp, &def, g, err);
    }
    if (THEMIS_OK == st) {
        st = apply_failures(&sp, g, err);
        if (THEMIS_OK != st) {
            themis_graph_free(g);
        }
    }
    if (THEMIS_ERR_NOMEM == st) {
        themis_set_parse_error(err, 0, 0, "out of memory");
    }
    spec_free(&sp);
    return st;
}
