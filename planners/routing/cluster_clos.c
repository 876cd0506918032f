/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The Clos routing planner on a leaf-spine graph, its spines as the link
 * simulator's waypoints (cluster_clos.h).
 */
#include "cluster_clos.h"

#include <stdlib.h>
#include <string.h>

#include "link_sim.h"

static uint32_t kind_of(const themis_graph_t *g, uint32_t v)
{
    return NULL != g->kind ? g->kind[v] : THEMIS_NODE_RANK;
}

/* 1 when switch v has a link to or from a node of kind k. */
static int touches(const themis_graph_t *g, uint32_t v, uint32_t k)
{
    for (uint32_t j = g->out_first[v]; j < g->out_first[v + 1]; j++) {
        if (k == kind_of(g, g->links[g->out_links[j]].dst)) {
            return 1;
        }
    }
    for (uint32_t j = g->in_first[v]; j < g->in_first[v + 1]; j++) {
        if (k == kind_of(g, g->links[g->in_links[j]].src)) {
            return 1;
        }
    }
    return 0;
}

themis_status_t themis_clos_from_graph(const themis_graph_t *g, themis_clos_t *c,
                                       uint32_t *spine_node, char *why, size_t len)
{
    uint32_t nleaves = 0, nspines = 0;
    memset(c, 0, sizeof(*c));
    if (NULL == g->kind || 0 == g->nhosts) {
        snprintf(why, len, "not a leaf-spine: the graph has no switches or no hosts");
        return THEMIS_ERR_INVALID;
    }
    uint32_t *tor = malloc((size_t) g->nnodes * sizeof(*tor));
    uint32_t *tor_of = malloc((size_t) g->nhosts * sizeof(*tor_of));
    if (NULL == tor || NULL == tor_of) {
        free(tor);
        free(tor_of);
        snprintf(why, len, "out of memory");
        return THEMIS_ERR_NOMEM;
    }
    uint64_t up_bps = 0, host_bps = 0;
    for (uint32_t v = 0; v < g->nnodes; v++) {
        tor[v] = UINT32_MAX;
        if (THEMIS_NODE_SWITCH != kind_of(g, v)) {
            continue;
        }
        if (touches(g, v, THEMIS_NODE_NIC)) {
            tor[v] = nleaves++;
        } else if (touches(g, v, THEMIS_NODE_SWITCH)) {
            spine_node[nspines++] = v;
        }
    }
    for (uint32_t h = 0; h < g->nhosts; h++) {
        tor_of[h] = UINT32_MAX;
    }
    themis_status_t st = (0 == nleaves || 0 == nspines) ? THEMIS_ERR_INVALID : THEMIS_OK;
    if (THEMIS_OK != st) {
        snprintf(why, len, "not a leaf-spine: %u leaves (switches linked to NICs), %u spines "
                 "(switches linked to switches only)", nleaves, nspines);
    }
    /* Each host under the one leaf its NICs link to. */
    for (uint32_t i = 0; THEMIS_OK == st && i < g->nlinks; i++) {
        const themis_link_t *l = &g->links[i];
        if (THEMIS_NODE_NIC == kind_of(g, l->src) && UINT32_MAX != tor[l->dst]) {
            uint32_t h = g->host[l->src];
            host_bps = 0 == host_bps ? l->bw_bps : host_bps;
            if (THEMIS_GRAPH_NO_HOST == h || (UINT32_MAX != tor_of[h] && tor_of[h] != tor[l->dst])) {
                snprintf(why, len, "not a leaf-spine: NIC %u %s", l->src,
                         THEMIS_GRAPH_NO_HOST == h ? "is on no host" : "puts its host under a "
                         "second leaf");
                st = THEMIS_ERR_INVALID;
            } else {
                tor_of[h] = tor[l->dst];
            }
        }
    }
    for (uint32_t h = 0; THEMIS_OK == st && h < g->nhosts; h++) {
        if (UINT32_MAX == tor_of[h]) {
            snprintf(why, len, "not a leaf-spine: host %u has no NIC into a leaf", h);
            st = THEMIS_ERR_INVALID;
        }
    }
    if (THEMIS_OK == st) {
        st = themis_clos_init(c, nleaves, nspines, 1);
        if (THEMIS_OK == st) {
            st = themis_clos_set_host_map(c, g->nhosts, tor_of);
        }
        if (THEMIS_OK != st) {
            snprintf(why, len, THEMIS_ERR_NOMEM == st ? "out of memory"
                     : "a Clos of %u leaves, %u spines, %u hosts is beyond clos.h's bounds",
                     nleaves, nspines, g->nhosts);
        }
    }
    /* Every leaf linked to every spine, both ways; failures as the Clos'. */
    for (uint32_t v = 0; THEMIS_OK == st && v < g->nnodes; v++) {
        if (UINT32_MAX == tor[v]) {
            continue;
        }
        for (uint32_t s = 0; THEMIS_OK == st && s < nspines; s++) {
            uint32_t upl = UINT32_MAX, down = UINT32_MAX;
            for (uint32_t j = g->out_first[v]; j < g->out_first[v + 1]; j++) {
                upl = spine_node[s] == g->links[g->out_links[j]].dst ? g->out_links[j] : upl;
            }
            for (uint32_t j = g->in_first[v]; j < g->in_first[v + 1]; j++) {
                down = spine_node[s] == g->links[g->in_links[j]].src ? g->in_links[j] : down;
            }
            if (UINT32_MAX == upl || UINT32_MAX == down) {
                snprintf(why, len, "not a leaf-spine: leaf %u and spine %u are not linked both "
                         "ways", v, spine_node[s]);
                st = THEMIS_ERR_INVALID;
                break;
            }
            up_bps = 0 == up_bps ? g->links[upl].bw_bps : up_bps;
            c->link_failed[(size_t) tor[v] * nspines + s] =
                !themis_graph_link_working(g, upl) || !themis_graph_link_working(g, down);
            c->spine_failed[s] = g->node_failed[spine_node[s]];
        }
    }
    if (THEMIS_OK == st) {
        c->link_bps = up_bps;
        c->host_bps = host_bps;
    } else {
        themis_clos_free(c);
    }
    free(tor);
    free(tor_of);
    return st;
}

/* The Clos host node of rank r. */
static uint32_t host_node(const themis_clos_t *c, const themis_graph_t *g, uint32_t r)
{
    return c->host_base + g->host[r];
}

themis_status_t themis_clos_graph_via(const themis_graph_t *g, const themis_xfer_sched_t *s,
                                      themis_clos_algo_t algo, uint64_t seed, uint32_t *via,
                                      themis_clos_route_t *r, char *why, size_t len)
{
    themis_clos_t c;
    themis_clos_flows_t f;
    memset(r, 0, sizeof(*r));
    if (THEMIS_CLOS_ILP == algo) {
        snprintf(why, len, "the ILP routes in `themis-plan route` only");
        return THEMIS_ERR_UNSUPPORTED;
    }
    if (s->nranks > THEMIS_CLOS_GRAPH_MAX_RANKS || s->nranks > g->nranks) {
        snprintf(why, len, "%u ranks: waypoints are for up to %u ranks of the graph's %u",
                 s->nranks, THEMIS_CLOS_GRAPH_MAX_RANKS, g->nranks);
        return THEMIS_ERR_INVALID;
    }
    uint32_t *spine_node = malloc((size_t) g->nnodes * sizeof(*spine_node));
    uint32_t *flow_of = malloc((size_t) s->nranks * s->nranks * sizeof(*flow_of) + 1);
    themis_status_t st = (NULL == spine_node || NULL == flow_of) ? THEMIS_ERR_NOMEM : THEMIS_OK;
    if (THEMIS_OK == st) {
        st = themis_clos_from_graph(g, &c, spine_node, why, len);
    } else {
        snprintf(why, len, "out of memory");
    }
    if (THEMIS_OK != st) {
        free(spine_node);
        free(flow_of);
        return st;
    }
    themis_clos_flows_init(&f);
    memset(flow_of, 0xff, (size_t) s->nranks * s->nranks * sizeof(*flow_of));
    /* One flow per rank pair across leaves, at its first transfer. */
    for (uint32_t i = 0; THEMIS_OK == st && i < s->nxfers; i++) {
        const themis_xfer_t *x = &s->xfers[i];
        uint32_t a = host_node(&c, g, x->src), b = host_node(&c, g, x->dst);
        uint32_t *fo = &flow_of[(size_t) x->src * s->nranks + x->dst];
        via[i] = THEMIS_LINK_SIM_NO_VIA;
        if (x->src != x->dst && UINT32_MAX == *fo
            && themis_clos_host_tor(&c, a) != themis_clos_host_tor(&c, b)) {
            *fo = f.n;
            st = themis_clos_flows_add(&f, &c, a, b);
        }
    }
    if (THEMIS_OK == st) {
        switch (algo) {
        case THEMIS_CLOS_GREEDY:
            st = themis_clos_route_greedy(&c, &f, r);
            break;
        case THEMIS_CLOS_PARALLEL:
            st = themis_clos_route_parallel(&c, &f, 1, r);
            break;
        case THEMIS_CLOS_EXACT:
            st = themis_clos_route_exact(&c, &f, r);
            break;
        default:
            st = themis_clos_route_ecmp(&c, &f, 1, seed, r);
            break;
        }
        if (THEMIS_OK != st) {
            snprintf(why, len, "%s routing: %s", themis_clos_algo_name(algo),
                     themis_status_string(st));
        }
    } else {
        snprintf(why, len, "out of memory");
    }
    for (uint32_t i = 0; THEMIS_OK == st && i < s->nxfers; i++) {
        const themis_xfer_t *x = &s->xfers[i];
        uint32_t fo = flow_of[(size_t) x->src * s->nranks + x->dst];
        if (UINT32_MAX != fo && THEMIS_CLOS_NO_SPINE != r->spine[fo]) {
            via[i] = spine_node[r->spine[fo]];
        }
    }
    themis_clos_flows_free(&f);
    themis_clos_free(&c);
    free(spine_node);
    free(flow_of);
    return st;
}
