/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "bed_plan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "link_sim.h"
#include "route_dims.h"

static const char *const kind_names[] = {"rank", "host", "nic", "switch"};

uint64_t themis_bed_total_bps(const themis_graph_t *g)
{
    uint64_t total = 0;
    for (uint32_t l = 0; l < g->nlinks; l++) {
        if (themis_graph_link_working(g, l)) {
            uint64_t bw = g->links[l].bw_bps;
            total = (total > UINT64_MAX - bw) ? UINT64_MAX : total + bw;
        }
    }
    return total;
}

themis_status_t themis_bed_scale(const themis_graph_t *g, uint64_t num, uint64_t den,
                                 themis_graph_t *out, char *why, size_t len)
{
    memset(out, 0, sizeof(*out));
    if (0 == num || 0 == den) {
        snprintf(why, len, "scale %" PRIu64 "/%" PRIu64 " is not a positive factor", num, den);
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = themis_graph_init(out, g->nnodes);
    for (uint32_t v = 0; THEMIS_OK == st && v < g->nnodes && NULL != g->kind; v++) {
        st = themis_graph_set_node(out, v, (themis_node_kind_t) g->kind[v],
                                   NULL != g->host ? g->host[v] : THEMIS_GRAPH_NO_HOST);
    }
    for (uint32_t l = 0; THEMIS_OK == st && l < g->nlinks; l++) {
        const themis_link_t *a = &g->links[l];
        /* rounded down, so that a budget is never passed; integer only,
         * so that the bed and the simulator read the very same rates */
        unsigned __int128 r = (unsigned __int128) a->bw_bps * num / den;
        if (r > UINT64_MAX) {
            themis_graph_free(out);
            snprintf(why, len, "link %u -> %u: %" PRIu64 " bit/s scaled overflows", a->src,
                     a->dst, a->bw_bps);
            return THEMIS_ERR_INVALID;
        }
        st = themis_graph_add_link(out, a->src, a->dst, 0 == r ? 1 : (uint64_t) r, a->lat_ps);
        if (THEMIS_OK == st) {
            out->links[out->nlinks - 1].failed = a->failed;
        }
    }
    if (THEMIS_OK == st) {
        memcpy(out->node_failed, g->node_failed, g->nnodes);
        out->pkt_payload = g->pkt_payload;
        out->pkt_header = g->pkt_header;
    }
    if (THEMIS_OK != st) {
        themis_graph_free(out);
        snprintf(why, len, "out of memory");
        return st;
    }
    return themis_graph_finish(out, why, len);
}

themis_status_t themis_bed_pair_via(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                    const uint32_t *via, uint32_t *pair_via, char *why,
                                    size_t len)
{
    const uint32_t p = g->nranks;
    for (size_t i = 0; i < (size_t) p * p; i++) {
        pair_via[i] = THEMIS_LINK_SIM_NO_VIA;
    }
    for (uint32_t x = 0; x < s->nxfers; x++) {
        const themis_xfer_t *t = &s->xfers[x];
        if (t->src >= p || t->dst >= p) {
            snprintf(why, len, "transfer %u: rank %u -> %u, the graph has %u ranks", x, t->src,
                     t->dst, p);
            return THEMIS_ERR_INVALID;
        }
        uint32_t *pv = &pair_via[(size_t) t->src * p + t->dst];
        if (THEMIS_LINK_SIM_NO_VIA == via[x]) {
            continue;
        }
        if (THEMIS_LINK_SIM_NO_VIA != *pv && *pv != via[x]) {
            snprintf(why, len, "rank %u -> %u goes by node %u and by node %u; the bed routes a "
                     "pair one way", t->src, t->dst, *pv, via[x]);
            return THEMIS_ERR_INVALID;
        }
        *pv = via[x];
    }
    return THEMIS_OK;
}

/* path[0 .. *n) = s, ..., d by the tables (next[d * nn + v]: v's first
 * link toward d) through w (UINT32_MAX: none); 0, or -1 when a leg has no
 * route or a node repeats (seen: nn stamps, stamp: this path's). */
static int walk(const themis_graph_t *g, const uint32_t *next, uint32_t s, uint32_t w,
                uint32_t d, uint32_t *path, uint32_t *n, uint32_t *seen, uint32_t stamp)
{
    const size_t nn = g->nnodes;
    uint32_t k = 0, v = s;
    path[k++] = s;
    seen[s] = stamp;
    for (int leg = (UINT32_MAX == w) ? 1 : 0; leg < 2; leg++) {
        uint32_t to = (0 == leg) ? w : d;
        while (v != to) {
            uint32_t l = next[to * nn + v];
            if (UINT32_MAX == l) {
                return -1;
            }
            v = g->links[l].dst;
            if (stamp == seen[v]) {
                return -1;
            }
            seen[v] = stamp;
            path[k++] = v;
        }
    }
    *n = k;
    return 0;
}

/* The bed's name for node v's end of its link to w under dims routes:
 * "dK" toward a switch of dimension K (1-based), "dKp"/"dKm" toward the
 * next/previous rank of dimension K; "" for none. */
static void iface_name(const themis_route_dims_t *rd, uint32_t v, uint32_t w, char *name,
                       size_t len)
{
    int dir = 0;
    int k = (v < rd->g->nranks) ? themis_route_dims_link_dim(rd, v, w, &dir) : -1;
    name[0] = '\0';
    if (k >= 0 && (w >= rd->g->nranks || 0 != dir)) {
        snprintf(name, len, "d%d%s", k + 1, dir > 0 ? "p" : dir < 0 ? "m" : "");
    }
}

/* 1 when rank v and node w (working, linked either way) have a name for
 * v's end of their link (in name). */
static int named_link(const themis_route_dims_t *rd, uint32_t v, uint32_t w, char *name,
                      size_t len)
{
    const themis_graph_t *g = rd->g;
    if (w == v || g->node_failed[v] || g->node_failed[w] ||
        (UINT32_MAX == themis_graph_link(g, v, w) &&
         UINT32_MAX == themis_graph_link(g, w, v))) {
        return 0;
    }
    iface_name(rd, v, w, name, len);
    return '\0' != name[0];
}

/* "iface V W NAME" for every rank's linked neighbour with a name; two
 * links of one rank with one name cannot be told apart. */
static themis_status_t write_ifaces(const themis_route_dims_t *rd, FILE *f, char *why,
                                    size_t len)
{
    const themis_graph_t *g = rd->g;
    for (uint32_t v = 0; v < g->nranks; v++) {
        for (uint32_t w = 0; w < g->nnodes; w++) {
            char name[16], other[16];
            if (!named_link(rd, v, w, name, sizeof(name))) {
                continue;
            }
            for (uint32_t x = 0; x < w; x++) {
                if (named_link(rd, v, x, other, sizeof(other)) && 0 == strcmp(name, other)) {
                    snprintf(why, len, "rank %u has two links on %s (to %u and %u): the bed "
                             "cannot name them", v, name, x, w);
                    return THEMIS_ERR_INVALID;
                }
            }
            fprintf(f, "iface %u %u %s\n", v, w, name);
        }
    }
    return THEMIS_OK;
}

/* "ifroute S D W ..." for every address of every rank D that has a
 * dimension (its end of the link to W): the route that corrects that
 * dimension last, from every other working node. */
static themis_status_t write_ifroutes(const themis_route_dims_t *rd, uint32_t *next,
                                      uint32_t *path, uint32_t *seen, uint32_t *stamp, FILE *f)
{
    const themis_graph_t *g = rd->g;
    const size_t nn = g->nnodes;
    for (uint32_t d = 0; d < g->nranks; d++) {
        for (uint32_t w = 0; w < nn; w++) {
            int dir;
            char name[16];
            if (!named_link(rd, d, w, name, sizeof(name))) {
                continue;
            }
            themis_status_t st = themis_route_dims_to(
                rd, d, themis_route_dims_link_dim(rd, d, w, &dir), &next[(size_t) d * nn]);
            for (uint32_t s = 0; THEMIS_OK == st && s < nn; s++) {
                uint32_t n = 0;
                if (s == d || g->node_failed[s]) {
                    continue;
                }
                if (0 != walk(g, next, s, UINT32_MAX, d, path, &n, seen, ++*stamp)) {
                    fprintf(f, "ifroute %u %u %u -\n", s, d, w);
                    continue;
                }
                fprintf(f, "ifroute %u %u %u", s, d, w);
                for (uint32_t i = 1; i < n; i++) {
                    fprintf(f, " %u", path[i]);
                }
                fprintf(f, "\n");
            }
            if (THEMIS_OK != st) {
                return st;
            }
        }
    }
    return THEMIS_OK;
}

static themis_status_t plan_write(const themis_graph_t *g, const uint32_t *pair_via,
                                  const themis_route_dims_t *rd, FILE *f, char *why, size_t len)
{
    const uint32_t nn = g->nnodes, p = g->nranks;
    uint32_t nworking = 0;
    uint32_t *next = malloc((size_t) nn * nn * sizeof(*next));
    uint32_t *path = malloc(((size_t) nn + 1) * sizeof(*path));
    uint32_t *seen = calloc(nn, sizeof(*seen));
    themis_status_t st = THEMIS_OK;

    if (NULL == next || NULL == path || NULL == seen) {
        st = THEMIS_ERR_NOMEM;
    }
    for (uint32_t d = 0; THEMIS_OK == st && d < nn; d++) {
        if (g->node_failed[d]) {
            for (uint32_t v = 0; v < nn; v++) {
                next[(size_t) d * nn + v] = UINT32_MAX;
            }
        } else if (NULL != rd) {
            st = themis_route_dims_to(rd, d, THEMIS_ROUTE_DIMS_NONE, &next[(size_t) d * nn]);
        } else {
            st = themis_graph_routes_to(g, d, &next[(size_t) d * nn]);
        }
    }
    if (THEMIS_OK != st) {
        snprintf(why, len, "out of memory");
        goto out;
    }
    for (uint32_t v = 0; v < nn; v++) {
        nworking += !g->node_failed[v];
    }
    uint32_t nlinks = 0;
    for (uint32_t l = 0; l < g->nlinks; l++) {
        nlinks += themis_graph_link_working(g, l);
    }
    fprintf(f, "bed nodes %u ranks %u hosts %u links %u total_bps %" PRIu64 "\n", nworking, p,
            g->nhosts, nlinks, themis_bed_total_bps(g));
    for (int k = 0; NULL != rd && k < rd->ndims; k++) {
        fprintf(f, "%s%u%s", 0 == k ? "dims " : "x", rd->sizes[k],
                k + 1 == rd->ndims ? "\n" : "");
    }
    for (uint32_t v = 0; v < nn; v++) {
        if (g->node_failed[v]) {
            continue;
        }
        uint32_t h = NULL != g->host ? g->host[v] : THEMIS_GRAPH_NO_HOST;
        fprintf(f, "node %u %s", v, kind_names[NULL != g->kind ? g->kind[v] : THEMIS_NODE_RANK]);
        if (THEMIS_GRAPH_NO_HOST != h) {
            fprintf(f, " host %u", h);
        }
        fprintf(f, "\n");
    }
    for (uint32_t l = 0; l < g->nlinks; l++) {
        if (themis_graph_link_working(g, l)) {
            const themis_link_t *a = &g->links[l];
            fprintf(f, "link %u %u %" PRIu64 " %" PRIu64 "\n", a->src, a->dst, a->bw_bps,
                    (uint64_t) a->lat_ps);
        }
    }
    if (NULL != rd && THEMIS_OK != (st = write_ifaces(rd, f, why, len))) {
        goto out;
    }
    uint32_t stamp = 0;
    for (uint32_t s = 0; s < nn && THEMIS_OK == st; s++) {
        for (uint32_t d = 0; d < nn && THEMIS_OK == st; d++) {
            if (s == d || g->node_failed[s] || g->node_failed[d]) {
                continue;
            }
            uint32_t w = (NULL != pair_via && s < p && d < p) ? pair_via[(size_t) s * p + d]
                                                              : UINT32_MAX;
            uint32_t n = 0;
            if (0 != walk(g, next, s, w, d, path, &n, seen, ++stamp)) {
                if (UINT32_MAX != w) {
                    snprintf(why, len, "rank %u -> %u by node %u: no route, or one that visits "
                             "a node twice", s, d, w);
                    st = THEMIS_ERR_INVALID;
                } else {
                    fprintf(f, "route %u %u -\n", s, d);
                }
                continue;
            }
            fprintf(f, "route %u %u", s, d);
            for (uint32_t i = 1; i < n; i++) {
                fprintf(f, " %u", path[i]);
            }
            fprintf(f, "\n");
            /* Where the waypoint's route leaves a node's own route to d,
             * that node forwards this pair by its source. */
            for (uint32_t i = 0; UINT32_MAX != w && i + 1 < n; i++) {
                uint32_t own = g->links[next[(size_t) d * nn + path[i]]].dst;
                if (own != path[i + 1]) {
                    fprintf(f, "rule %u %u %u %u\n", path[i], s, d, path[i + 1]);
                }
            }
        }
    }
    if (THEMIS_OK == st && NULL != rd) {
        st = write_ifroutes(rd, next, path, seen, &stamp, f);
        if (THEMIS_OK != st) {
            snprintf(why, len, "out of memory");
        }
    }
    if (THEMIS_OK == st && (0 != fflush(f) || ferror(f))) {
        snprintf(why, len, "write error");
        st = THEMIS_ERR_IO;
    }
out:
    free(next);
    free(path);
    free(seen);
    return st;
}

themis_status_t themis_bed_plan_write(const themis_graph_t *g, const uint32_t *pair_via,
                                      FILE *f, char *why, size_t len)
{
    return plan_write(g, pair_via, NULL, f, why, len);
}

themis_status_t themis_bed_plan_write_dims(const themis_graph_t *g, const uint32_t *sizes,
                                           int ndims, FILE *f, char *why, size_t len)
{
    themis_route_dims_t rd;
    themis_status_t st = themis_route_dims_init(&rd, g, sizes, ndims, why, len);
    if (THEMIS_OK == st) {
        st = plan_write(g, NULL, &rd, f, why, len);
        themis_route_dims_free(&rd);
    }
    return st;
}
