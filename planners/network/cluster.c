/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Clusters (cluster.h): the generators of hosts, NICs and switches, the
 * ranks-only view for TACOS and treepack, dimensions from a placement.
 */
#include "cluster.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Attached ranks of one switch part the unwinding takes: a pair map of
 * 2048^2 entries. */
#define UNWIND_MAX_ATTACHED 2048u

/* ------------------------------------------------------------ generators */

typedef enum { SHAPE_CLUSTER, SHAPE_LEAFSPINE, SHAPE_RAIL } shape_t;
typedef enum { INTRA_FC, INTRA_RING, INTRA_BIRING, INTRA_SWITCH, INTRA_NONE } intra_t;

static const char *const shape_names[] = {"cluster", "leafspine", "rail"};
static const char *const intra_names[] = {"fc", "ring", "biring", "switch", "none"};

typedef struct {
    shape_t shape;
    uint32_t hosts, rpn, nics, leaves, spines;
    intra_t intra;
    uint64_t ibw, pcie, bw, ubw;
    themis_time_t ilat, lat;
} cluster_t;

int themis_cluster_is_spec(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(shape_names) / sizeof(shape_names[0]); i++) {
        if (strlen(shape_names[i]) == len && 0 == strncasecmp(shape_names[i], name, len)) {
            return 1;
        }
    }
    return 0;
}

/* Both directions of a link. */
static themis_status_t add_both(themis_graph_t *g, uint32_t a, uint32_t b, uint64_t bw,
                                themis_time_t lat)
{
    themis_status_t st = themis_graph_add_link(g, a, b, bw, lat);
    return THEMIS_OK == st ? themis_graph_add_link(g, b, a, bw, lat) : st;
}

static themis_status_t intra_links(const cluster_t *c, themis_graph_t *g, uint32_t h,
                                   uint32_t host_node)
{
    uint32_t r = c->rpn, base = h * r;
    themis_status_t st = THEMIS_OK;
    for (uint32_t j = 0; j < r && THEMIS_OK == st; j++) {
        switch (c->intra) {
        case INTRA_FC:
            for (uint32_t k = j + 1; k < r && THEMIS_OK == st; k++) {
                st = add_both(g, base + j, base + k, c->ibw, c->ilat);
            }
            break;
        case INTRA_RING:
            if (r >= 2) {
                st = themis_graph_add_link(g, base + j, base + (j + 1) % r, c->ibw, c->ilat);
            }
            break;
        case INTRA_BIRING:
            /* as PAT_NEIGH of graph.c: a size of 2 has one link each way */
            if (j + 1 < r || r >= 3) {
                st = add_both(g, base + j, base + (j + 1) % r, c->ibw, c->ilat);
            }
            break;
        case INTRA_SWITCH:
            st = add_both(g, base + j, host_node, c->ibw, c->ilat);
            break;
        case INTRA_NONE:
            break;
        }
    }
    return st;
}

static themis_status_t generate(const cluster_t *c, themis_graph_t *g, char *why, size_t len)
{
    uint64_t ranks = (uint64_t) c->hosts * c->rpn;
    uint64_t host_nodes = (INTRA_SWITCH == c->intra) ? c->hosts : 0;
    uint64_t nics = (uint64_t) c->hosts * c->nics;
    uint64_t switches = (SHAPE_CLUSTER == c->shape)     ? 1
                        : (SHAPE_LEAFSPINE == c->shape) ? (uint64_t) c->leaves + c->spines
                                                        : (uint64_t) c->nics + c->spines;
    uint64_t nodes = ranks + host_nodes + nics + switches;
    /* intra fc is the most: R(R-1) per host; two per rank and NIC link */
    uint64_t links = (uint64_t) c->hosts * c->rpn * (c->rpn + 2) + 2 * nics
                     + 2 * (uint64_t) c->spines * (c->leaves + c->nics);
    memset(g, 0, sizeof(*g));
    if (nodes > THEMIS_GRAPH_MAX_NODES || links > THEMIS_GRAPH_MAX_LINKS) {
        snprintf(why, len, "too large: %llu nodes, up to %llu links (at most %u and %u)",
                 (unsigned long long) nodes, (unsigned long long) links,
                 THEMIS_GRAPH_MAX_NODES, THEMIS_GRAPH_MAX_LINKS);
        return THEMIS_ERR_INVALID;
    }
    uint32_t host0 = (uint32_t) ranks, nic0 = (uint32_t) (ranks + host_nodes);
    uint32_t sw0 = (uint32_t) (nic0 + nics);
    uint32_t spine0 = sw0 + (SHAPE_LEAFSPINE == c->shape ? c->leaves
                             : SHAPE_RAIL == c->shape    ? c->nics
                                                         : 1);
    themis_status_t st = themis_graph_init(g, (uint32_t) nodes);
    for (uint32_t v = 0; v < nodes && THEMIS_OK == st; v++) {
        if (v < host0) {
            st = themis_graph_set_node(g, v, THEMIS_NODE_RANK, v / c->rpn);
        } else if (v < nic0) {
            st = themis_graph_set_node(g, v, THEMIS_NODE_HOST, v - host0);
        } else if (v < sw0) {
            st = themis_graph_set_node(g, v, THEMIS_NODE_NIC, (v - nic0) / c->nics);
        } else {
            st = themis_graph_set_node(g, v, THEMIS_NODE_SWITCH, THEMIS_GRAPH_NO_HOST);
        }
    }
    for (uint32_t h = 0; h < c->hosts && THEMIS_OK == st; h++) {
        st = intra_links(c, g, h, host0 + h);
    }
    for (uint32_t v = 0; v < ranks && THEMIS_OK == st; v++) {
        uint32_t h = v / c->rpn, j = v % c->rpn;
        st = add_both(g, v, nic0 + h * c->nics + (uint32_t) ((uint64_t) j * c->nics / c->rpn),
                      c->pcie, c->lat);
    }
    for (uint32_t k = 0; k < nics && THEMIS_OK == st; k++) {
        uint32_t h = k / c->nics, n = k % c->nics;
        uint32_t sw = (SHAPE_CLUSTER == c->shape)     ? sw0
                      : (SHAPE_LEAFSPINE == c->shape) ? sw0 + h / (c->hosts / c->leaves)
                                                      : sw0 + n;
        st = add_both(g, nic0 + k, sw, c->bw, c->lat);
    }
    for (uint32_t s = sw0; s < spine0 && THEMIS_OK == st; s++) {
        for (uint32_t t = 0; t < c->spines && THEMIS_OK == st; t++) {
            st = add_both(g, s, spine0 + t, c->ubw, c->lat);
        }
    }
    return themis_graph_build_end(g, st, why, len);
}

/* An unsigned decimal in 1 .. max from s[0 .. len). */
static int parse_count(const char *s, size_t len, uint64_t max, uint64_t *v)
{
    uint64_t x = 0;
    if (0 == len) {
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }
        x = x * 10 + (uint64_t) (s[i] - '0');
        if (x > max) {
            return -1;
        }
    }
    *v = x;
    return 0;
}

/* A rate or a time from s[0 .. len) through the project's parsers. */
static int parse_value(const char *s, size_t len, int is_bw, uint64_t *v)
{
    char buf[64];
    if (len >= sizeof(buf)) {
        return -1;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    themis_status_t st = is_bw ? themis_parse_bandwidth(buf, v, NULL)
                               : themis_parse_latency(buf, v, NULL);
    return (THEMIS_OK == st && (!is_bw || 0 != *v)
            && (is_bw || *v <= THEMIS_GRAPH_MAX_LAT_PS)) ? 0 : -1;
}

static themis_status_t parse_key(cluster_t *c, const char *s, size_t len, int col, int *seen,
                                 themis_parse_error_t *err)
{
    static const char *const keys[] = {"nics", "intra", "ibw", "ilat", "pcie", "bw",
                                       "ubw",  "lat",   "leaves", "spines"};
    const char *eq = memchr(s, '=', len);
    size_t klen = (size_t) (eq - s);
    const char *v = eq + 1;
    size_t vlen = len - klen - 1;
    int k = -1;
    uint64_t x = 0;
    for (int i = 0; i < (int) (sizeof(keys) / sizeof(keys[0])); i++) {
        if (strlen(keys[i]) == klen && 0 == strncmp(keys[i], s, klen)) {
            k = i;
        }
    }
    if (k < 0) {
        themis_set_parse_error(
            err, 1, col,
            "unknown option '%.*s' (nics, intra, ibw, ilat, pcie, bw, ubw, lat, "
            "leaves, spines)",
            (int) (klen > 24 ? 24 : klen), s);
        return THEMIS_ERR_PARSE;
    }
    if ((8 == k && SHAPE_LEAFSPINE != c->shape)
        || (9 == k && SHAPE_CLUSTER == c->shape)) {
        themis_set_parse_error(err, 1, col, "%s applies to %s only", keys[k],
                               8 == k ? "leafspine" : "leafspine and rail");
        return THEMIS_ERR_PARSE;
    }
    seen[k] = 1;
    col += (int) klen + 1;
    int bad = 0;
    switch (k) {
    case 0:
        bad = parse_count(v, vlen, THEMIS_GRAPH_MAX_NODES, &x);
        c->nics = (uint32_t) x;
        break;
    case 1:
        bad = -1;
        for (int i = 0; i < (int) (sizeof(intra_names) / sizeof(intra_names[0])); i++) {
            if (strlen(intra_names[i]) == vlen && 0 == strncasecmp(intra_names[i], v, vlen)) {
                c->intra = (intra_t) i;
                bad = 0;
            }
        }
        if (bad) {
            themis_set_parse_error(err, 1, col, "intra: '%.*s' is not fc, ring, biring, switch or none",
                                   (int) (vlen > 24 ? 24 : vlen), v);
            return THEMIS_ERR_PARSE;
        }
        break;
    case 2:
        bad = parse_value(v, vlen, 1, &c->ibw);
        break;
    case 3:
        bad = parse_value(v, vlen, 0, &c->ilat);
        break;
    case 4:
        bad = parse_value(v, vlen, 1, &c->pcie);
        break;
    case 5:
        bad = parse_value(v, vlen, 1, &c->bw);
        break;
    case 6:
        bad = parse_value(v, vlen, 1, &c->ubw);
        break;
    case 7:
        bad = parse_value(v, vlen, 0, &c->lat);
        break;
    case 8:
        bad = parse_count(v, vlen, THEMIS_GRAPH_MAX_NODES, &x);
        c->leaves = (uint32_t) x;
        break;
    case 9:
        bad = parse_count(v, vlen, THEMIS_GRAPH_MAX_NODES, &x);
        c->spines = (uint32_t) x;
        break;
    }
    if (bad) {
        themis_set_parse_error(
            err, 1, col, "%s: '%.*s' is not %s", keys[k], (int) (vlen > 24 ? 24 : vlen), v,
            (2 == k || 4 == k || 5 == k || 6 == k) ? "a rate > 0 (e.g. 100Gb/s, 25GB/s)"
            : (3 == k || 7 == k)                   ? "a time up to 1 s (e.g. 500ns, 2us)"
                                                   : "a count");
        return THEMIS_ERR_PARSE;
    }
    return THEMIS_OK;
}

themis_status_t themis_cluster_load(const char *spec, const themis_graph_opts_t *def,
                                    themis_graph_t *g, themis_parse_error_t *err)
{
    cluster_t c;
    int seen[10] = {0};
    size_t name_len = strcspn(spec, ":,"), len = strlen(spec);
    memset(g, 0, sizeof(*g));
    memset(&c, 0, sizeof(c));
    for (int i = 0; i < 3; i++) {
        if (strlen(shape_names[i]) == name_len && 0 == strncasecmp(shape_names[i], spec, name_len)) {
            c.shape = (shape_t) i;
        }
    }
    if (0 != def->bw2_bps || 0 != def->degree) {
        themis_set_parse_error(err, 1, 1, "bw2 and degree do not apply to %s", shape_names[c.shape]);
        return THEMIS_ERR_PARSE;
    }
    /* HxR */
    size_t args = name_len + 1, args_end = args + strcspn(spec + args, ",");
    const char *x = (':' == spec[name_len]) ? memchr(spec + args, 'x', args_end - args) : NULL;
    uint64_t hosts = 0, rpn = 0;
    if (NULL == x ||
        0 != parse_count(spec + args, (size_t) (x - spec - args), THEMIS_GRAPH_MAX_NODES,
                         &hosts) ||
        0 != parse_count(x + 1, (size_t) (spec + args_end - x - 1), THEMIS_GRAPH_MAX_NODES,
                         &rpn) ||
        0 == hosts || 0 == rpn) {
        themis_set_parse_error(err, 1, (int) args + 1, "%s needs :HxR (hosts x ranks per host, each >= 1)",
                               shape_names[c.shape]);
        return THEMIS_ERR_PARSE;
    }
    c.hosts = (uint32_t) hosts;
    c.rpn = (uint32_t) rpn;
    c.intra = INTRA_FC;
    c.ibw = THEMIS_GRAPH_NVLINK_BW_BPS;
    c.ilat = THEMIS_GRAPH_NVLINK_LAT_PS;
    c.pcie = THEMIS_CLUSTER_PCIE_BW_BPS;
    c.bw = 0 != def->bw_bps ? def->bw_bps : THEMIS_DEFAULT_NETWORK_BW_BPS;
    c.lat = UINT64_MAX != def->lat_ps ? def->lat_ps : THEMIS_CLUSTER_NET_LAT_PS;
    c.leaves = 2;
    c.spines = SHAPE_LEAFSPINE == c.shape ? 2 : 0;
    for (size_t i = args_end; i < len;) {
        size_t e = i + 1 + strcspn(spec + i + 1, ",");
        if (NULL == memchr(spec + i + 1, '=', e - i - 1)) {
            themis_set_parse_error(err, 1, (int) i + 2, "unexpected '%.*s' (options are key=value)",
                                   (int) (e - i - 1 > 24 ? 24 : e - i - 1), spec + i + 1);
            return THEMIS_ERR_PARSE;
        }
        themis_status_t st = parse_key(&c, spec + i + 1, e - i - 1, (int) i + 2, seen, err);
        if (THEMIS_OK != st) {
            return st;
        }
        i = e;
    }
    if (!seen[0]) {
        c.nics = SHAPE_RAIL == c.shape ? c.rpn : 1;
    }
    if (!seen[6]) {
        c.ubw = c.bw;
    }
    if (0 == c.nics || c.nics > c.rpn) {
        themis_set_parse_error(err, 1, 1,
                               "nics=%u: a host has 1 .. %u NICs (one per rank at most)",
                               c.nics, c.rpn);
        return THEMIS_ERR_PARSE;
    }
    if (SHAPE_LEAFSPINE == c.shape
        && (0 == c.leaves || 0 == c.spines || 0 != c.hosts % c.leaves)) {
        themis_set_parse_error(err, 1, 1, "leafspine: %u hosts do not split evenly over leaves=%u, or spines=%u is "
                               "0", c.hosts, c.leaves, c.spines);
        return THEMIS_ERR_PARSE;
    }
    char why[160];
    themis_status_t st = generate(&c, g, why, sizeof(why));
    if (THEMIS_OK != st) {
        themis_set_parse_error(err, 1, 1, "%s", why);
        return THEMIS_ERR_NOMEM == st ? st : THEMIS_ERR_PARSE;
    }
    return THEMIS_OK;
}

/* ------------------------------------------------------------ unwinding */

static int is_rank(const themis_graph_t *g, uint32_t v)
{
    return v < g->nranks;
}

/* A copy of a ranks-only graph: the same links, failures and hosts. */
static themis_status_t copy_graph(const themis_graph_t *g, themis_graph_t *out, char *why,
                                  size_t len)
{
    themis_status_t st = themis_graph_init(out, g->nnodes);
    for (uint32_t v = 0; v < g->nnodes && THEMIS_OK == st; v++) {
        out->node_failed[v] = g->node_failed[v];
        if (NULL != g->host) {
            st = themis_graph_set_node(out, v, THEMIS_NODE_RANK, g->host[v]);
        }
    }
    for (uint32_t i = 0; i < g->nlinks && THEMIS_OK == st; i++) {
        st = themis_graph_add_link(out, g->links[i].src, g->links[i].dst, g->links[i].bw_bps,
                                   g->links[i].lat_ps);
        if (THEMIS_OK == st) {
            out->links[i].failed = g->links[i].failed;
        }
    }
    out->pkt_payload = g->pkt_payload;
    out->pkt_header = g->pkt_header;
    return themis_graph_build_end(out, st, why, len);
}

/* Connected parts of the working non-rank nodes: part[v] numbered by
 * their lowest node, UINT32_MAX for ranks and failed nodes. */
static uint32_t find_parts(const themis_graph_t *g, uint32_t *part, uint32_t *queue)
{
    uint32_t nparts = 0;
    for (uint32_t v = 0; v < g->nnodes; v++) {
        part[v] = UINT32_MAX;
    }
    for (uint32_t v = g->nranks; v < g->nnodes; v++) {
        if (UINT32_MAX != part[v] || g->node_failed[v]) {
            continue;
        }
        uint32_t head = 0, tail = 0;
        part[v] = nparts;
        queue[tail++] = v;
        while (head < tail) {
            uint32_t w = queue[head++];
            for (int side = 0; side < 2; side++) {
                const uint32_t *first = side ? g->in_first : g->out_first;
                const uint32_t *links = side ? g->in_links : g->out_links;
                for (uint32_t k = first[w]; k < first[w + 1]; k++) {
                    const themis_link_t *l = &g->links[links[k]];
                    uint32_t u = side ? l->src : l->dst;
                    if (themis_graph_link_working(g, links[k]) && !is_rank(g, u)
                        && UINT32_MAX == part[u]) {
                        part[u] = nparts;
                        queue[tail++] = u;
                    }
                }
            }
        }
        nparts++;
    }
    return nparts;
}

/* 1 when the route a -> b (next: routes to b) enters part p at its first
 * hop and stays in it until its last. */
static int crosses(const themis_graph_t *g, const uint32_t *next, const uint32_t *part,
                   uint32_t p, uint32_t a, uint32_t b)
{
    uint32_t v = a;
    int hops = 0;
    while (v != b) {
        if (UINT32_MAX == next[v]) {
            return 0;
        }
        v = g->links[next[v]].dst;
        if (v != b && part[v] != p) {
            return 0;
        }
        hops++;
    }
    return hops >= 2;
}

typedef struct {
    uint32_t src, dst;
    uint64_t bw;
    themis_time_t lat;
} flow_t;

/* One part's links: peers in shift order, each flow's share of its
 * route's links. */
static themis_status_t unwind_part(const themis_graph_t *g, const uint32_t *part, uint32_t p,
                                   uint32_t degree, themis_graph_t *out, uint32_t *next,
                                   uint32_t *users, char *why, size_t len)
{
    uint32_t na = 0;
    uint32_t *att = malloc((size_t) g->nranks * sizeof(*att));
    uint32_t *pos = malloc((size_t) g->nranks * sizeof(*pos));
    themis_status_t st = (NULL == att || NULL == pos) ? THEMIS_ERR_NOMEM : THEMIS_OK;
    uint8_t *via = NULL;
    uint32_t *flow_of = NULL;
    flow_t *flows = NULL;
    uint32_t nflows = 0;
    for (uint32_t r = 0; THEMIS_OK == st && r < g->nranks; r++) {
        pos[r] = UINT32_MAX;
        if (g->node_failed[r]) {
            continue;
        }
        for (int side = 0; side < 2 && UINT32_MAX == pos[r]; side++) {
            const uint32_t *first = side ? g->in_first : g->out_first;
            const uint32_t *links = side ? g->in_links : g->out_links;
            for (uint32_t k = first[r]; k < first[r + 1]; k++) {
                const themis_link_t *l = &g->links[links[k]];
                if (themis_graph_link_working(g, links[k]) && p == part[side ? l->src : l->dst]) {
                    pos[r] = na;
                    att[na++] = r;
                    break;
                }
            }
        }
    }
    if (THEMIS_OK == st && na > UNWIND_MAX_ATTACHED) {
        snprintf(why, len, "%u ranks on one switch part: the unwinding takes at most %u", na,
                 UNWIND_MAX_ATTACHED);
        st = THEMIS_ERR_INVALID;
    }
    if (THEMIS_OK == st && na >= 2) {
        via = calloc((size_t) na * na, 1);
        flow_of = malloc((size_t) na * na * sizeof(*flow_of));
        flows = malloc((size_t) na * (na - 1) * sizeof(*flows));
        st = (NULL == via || NULL == flow_of || NULL == flows) ? THEMIS_ERR_NOMEM : THEMIS_OK;
        if (THEMIS_OK == st) {
            memset(flow_of, 0xff, (size_t) na * na * sizeof(*flow_of));
        }
    }
    /* Which pairs the part connects, then each rank's peers. */
    for (uint32_t j = 0; THEMIS_OK == st && na >= 2 && j < na; j++) {
        st = themis_graph_routes_to(g, att[j], next);
        for (uint32_t i = 0; THEMIS_OK == st && i < na; i++) {
            via[(size_t) i * na + j] = (i != j && crosses(g, next, part, p, att[i], att[j]));
        }
    }
    for (uint32_t i = 0; THEMIS_OK == st && na >= 2 && i < na; i++) {
        uint32_t taken = 0;
        for (uint32_t s = 1; s < na && (0 == degree || taken < degree); s++) {
            uint32_t j = (i + s) % na;
            if (via[(size_t) i * na + j]) {
                flow_of[(size_t) i * na + j] = nflows;
                flows[nflows++] = (flow_t) {att[i], att[j], UINT64_MAX, 0};
                taken++;
            }
        }
    }
    /* Each link's flows, then each flow's least share and its latency. */
    for (int pass = 0; THEMIS_OK == st && 0 != nflows && pass < 2; pass++) {
        if (0 == pass) {
            memset(users, 0, (size_t) g->nlinks * sizeof(*users));
        }
        for (uint32_t j = 0; THEMIS_OK == st && j < na; j++) {
            st = themis_graph_routes_to(g, att[j], next);
            for (uint32_t i = 0; THEMIS_OK == st && i < na; i++) {
                if (!via[(size_t) i * na + j]) {
                    continue;
                }
                uint32_t f = flow_of[(size_t) i * na + j];
                if (UINT32_MAX == f) {
                    continue;       /* a peer past the degree */
                }
                for (uint32_t v = att[i]; v != att[j]; v = g->links[next[v]].dst) {
                    const themis_link_t *l = &g->links[next[v]];
                    if (0 == pass) {
                        users[next[v]]++;
                    } else {
                        uint64_t share = l->bw_bps / users[next[v]];
                        flows[f].bw = share < flows[f].bw ? share : flows[f].bw;
                        flows[f].lat += l->lat_ps;
                    }
                }
            }
        }
    }
    for (uint32_t f = 0; THEMIS_OK == st && f < nflows; f++) {
        if (0 == flows[f].bw) {
            snprintf(why, len, "rank %u -> %u through the switches: its share rounds to 0 bit/s",
                     flows[f].src, flows[f].dst);
            st = THEMIS_ERR_INVALID;
        } else {
            st = themis_graph_add_link(out, flows[f].src, flows[f].dst, flows[f].bw,
                                       flows[f].lat);
        }
    }
    if (THEMIS_ERR_NOMEM == st) {
        snprintf(why, len, "out of memory");
    }
    free(att);
    free(pos);
    free(via);
    free(flow_of);
    free(flows);
    return st;
}

themis_status_t themis_graph_unwind(const themis_graph_t *g, uint32_t degree,
                                    themis_graph_t *out, char *why, size_t len)
{
    char dummy[8];
    if (NULL == why) {
        why = dummy;
        len = sizeof(dummy);
    }
    memset(out, 0, sizeof(*out));
    if (g->nranks == g->nnodes) {
        return copy_graph(g, out, why, len);
    }
    uint32_t *part = malloc((size_t) g->nnodes * sizeof(*part));
    uint32_t *next = malloc((size_t) g->nnodes * sizeof(*next));
    uint32_t *users = malloc(((size_t) g->nlinks + 1) * sizeof(*users));
    themis_status_t st = (NULL == part || NULL == next || NULL == users) ? THEMIS_ERR_NOMEM
                                                                        : THEMIS_OK;
    if (THEMIS_OK == st) {
        st = themis_graph_init(out, g->nranks);
    }
    for (uint32_t v = 0; THEMIS_OK == st && v < g->nranks; v++) {
        out->node_failed[v] = g->node_failed[v];
        if (NULL != g->host) {
            st = themis_graph_set_node(out, v, THEMIS_NODE_RANK, g->host[v]);
        }
    }
    for (uint32_t i = 0; THEMIS_OK == st && i < g->nlinks; i++) {
        const themis_link_t *l = &g->links[i];
        if (is_rank(g, l->src) && is_rank(g, l->dst)) {
            st = themis_graph_add_link(out, l->src, l->dst, l->bw_bps, l->lat_ps);
            if (THEMIS_OK == st) {
                out->links[out->nlinks - 1].failed = l->failed;
            }
        }
    }
    uint32_t nparts = (THEMIS_OK == st) ? find_parts(g, part, next) : 0;
    for (uint32_t p = 0; THEMIS_OK == st && p < nparts; p++) {
        st = unwind_part(g, part, p, degree, out, next, users, why, len);
    }
    free(part);
    free(next);
    free(users);
    if (THEMIS_ERR_NOMEM == st || THEMIS_OK == st) {
        out->pkt_payload = g->pkt_payload;
        out->pkt_header = g->pkt_header;
        return themis_graph_build_end(out, st, why, len);
    }
    themis_graph_free(out);
    return st;
}

/* ------------------------------------------------------------ dimensions */

/* Ranks per host when host h holds ranks h*R .. h*R+R-1, else 0. */
static uint32_t regular_hosts(const themis_graph_t *g)
{
    if (NULL == g->host || 0 == g->nhosts || 0 != g->nranks % g->nhosts) {
        return 0;
    }
    uint32_t r = g->nranks / g->nhosts;
    for (uint32_t v = 0; v < g->nranks; v++) {
        if (g->host[v] != v / r) {
            return 0;
        }
    }
    return r;
}

int themis_graph_dims(const themis_graph_t *g, uint32_t sizes[THEMIS_MAX_DIMS], char *why,
                      size_t len)
{
    uint32_t r = regular_hosts(g);
    int n = 0;
    if (NULL != why && len > 0) {
        why[0] = '\0';
    }
    if (0 == r) {
        if (NULL != why && NULL != g->host) {
            snprintf(why, len, "the graph's %u hosts do not hold the same number of consecutive "
                     "ranks: one dimension", g->nhosts);
        }
        sizes[n++] = g->nranks;
        return n;
    }
    if (r > 1) {
        sizes[n++] = r;
    }
    if (g->nhosts > 1) {
        sizes[n++] = g->nhosts;
    }
    if (0 == n) {
        sizes[n++] = 1;
    }
    return n;
}

static void fmt_dims(char *buf, size_t len, const uint32_t *sizes, int n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && o < len; i++) {
        o += (size_t) snprintf(buf + o, len - o, "%s%u", i ? "x" : "", sizes[i]);
    }
}

int themis_graph_dims_agree(const themis_graph_t *g, const uint32_t *sizes, int ndims, char *why,
                            size_t len)
{
    uint32_t own[THEMIS_MAX_DIMS];
    char decl[96], mine[96];
    uint64_t prod = 1;
    int nown = themis_graph_dims(g, own, NULL, 0);
    uint32_t r = regular_hosts(g);
    int ok = 0;
    for (int i = 0; i < ndims; i++) {
        prod *= sizes[i];
        if (prod == r) {
            ok = 1;
        }
    }
    ok = (prod == g->nranks) && (0 == r || 1 == r || ok);
    if (!ok && NULL != why && len > 0) {
        fmt_dims(decl, sizeof(decl), sizes, ndims);
        fmt_dims(mine, sizeof(mine), own, nown);
        if (prod != g->nranks) {
            snprintf(why, len, "dims %s (%llu ranks) disagree with the graph: %u ranks (dims %s)",
                     decl, (unsigned long long) prod, g->nranks, mine);
        } else {
            snprintf(why, len, "dims %s disagree with the graph: %u hosts of %u ranks (dims %s); "
                     "the inner dimensions must make up one host", decl, g->nhosts, r, mine);
        }
    }
    return ok;
}
