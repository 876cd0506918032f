/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The test bed's plan (planners/network/bed_plan.h): scaling keeps the graph and
 * stays within a budget, the plan's lines are the graph's nodes, links and
 * routes, a Clos spine that leaves a leaf's own route becomes a source rule
 * there, dimension-ordered routes on a grid of line switches and on a
 * torus (each coordinate in turn, a ring's + direction on ties, the
 * per-dimension addresses' routes with their dimension last), and what
 * the bed cannot build is refused.  No bed needed: the
 * bed (benchmarks/netbed/netgraph) only installs these lines.
 */
#include <stdlib.h>

#include "bed_plan.h"
#include "graph_util.h"
#include "link_sim.h"
#include "route_dims.h"
#include "unit.h"

/* The plan of g as text (malloc'ed), NULL on an error (why printed). */
static char *plan_text(const themis_graph_t *g, const uint32_t *pair_via)
{
    char *buf = NULL, why[200] = "";
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    themis_status_t st = themis_bed_plan_write(g, pair_via, f, why, sizeof(why));
    fclose(f);
    if (THEMIS_OK != st) {
        printf("  plan: %s\n", why);
        free(buf);
        return NULL;
    }
    return buf;
}

static int lines_starting(const char *text, const char *prefix)
{
    int n = 0;
    size_t k = strlen(prefix);
    for (const char *p = text; NULL != p && '\0' != *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        n += 0 == strncmp(p, prefix, k);
    }
    return n;
}

static void test_scale(void)
{
    themis_graph_t g = load("cluster:4x4,nics=2"), s;
    char why[200];
    uint64_t total = themis_bed_total_bps(&g);
    UNIT_CHECK(19392000000000ULL == total);
    UNIT_CHECKF(THEMIS_OK == themis_bed_scale(&g, 1200000000ULL, total, &s, why, sizeof(why)),
                "%s", why);
    UNIT_CHECK(themis_bed_total_bps(&s) <= 1200000000ULL
               && themis_bed_total_bps(&s) > 1200000000ULL - s.nlinks);
    UNIT_CHECK(s.nnodes == g.nnodes && s.nlinks == g.nlinks && s.nranks == 16 && s.nhosts == 4);
    for (uint32_t l = 0; l < g.nlinks; l++) {
        unsigned __int128 want = (unsigned __int128) g.links[l].bw_bps * 1200000000ULL / total;
        UNIT_CHECK(s.links[l].bw_bps == (uint64_t) want && s.links[l].lat_ps == g.links[l].lat_ps
                   && s.links[l].src == g.links[l].src);
    }
    for (uint32_t v = 0; v < g.nnodes; v++) {
        UNIT_CHECK(s.kind[v] == g.kind[v] && s.host[v] == g.host[v]);
    }
    themis_graph_free(&s);
    /* 1/1 is the same graph, hash and all */
    UNIT_CHECK(THEMIS_OK == themis_bed_scale(&g, 7, 7, &s, why, sizeof(why))
               && themis_graph_hash(&s) == themis_graph_hash(&g));
    themis_graph_free(&s);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_bed_scale(&g, 0, 7, &s, why, sizeof(why))
               && NULL != strstr(why, "not a positive factor"));
    /* the packets go with the graph */
    g.pkt_payload = 1448;
    g.pkt_header = 66;
    UNIT_CHECK(THEMIS_OK == themis_bed_scale(&g, 1, 2, &s, why, sizeof(why))
               && 1448 == s.pkt_payload && 66 == s.pkt_header);
    themis_graph_free(&s);
    themis_graph_free(&g);
}

static void test_plan_lines(void)
{
    themis_graph_t g = load("cluster:2x2,nics=1,bw=8Gb/s,lat=1us");
    char *t = plan_text(&g, NULL);
    UNIT_CHECK(NULL != t);
    if (NULL != t) {
        /* ranks 0-3, NICs 4-5, the switch 6; 2 + 4 + 2 links both ways */
        UNIT_CHECKF(0 == strncmp(t, "bed nodes 7 ranks 4 hosts 2 links 16 total_bps ", 47), "%.60s",
                    t);
        UNIT_CHECK(NULL != strstr(t, "\nnode 0 rank host 0\n")
                   && NULL != strstr(t, "\nnode 5 nic host 1\n")
                   && NULL != strstr(t, "\nnode 6 switch\n"));
        UNIT_CHECK(NULL != strstr(t, "\nlink 4 6 8000000000 1000000\n"));
        UNIT_CHECK(7 == lines_starting(t, "node ") && 16 == lines_starting(t, "link ")
                   && 42 == lines_starting(t, "route ") && 0 == lines_starting(t, "rule "));
        UNIT_CHECK(NULL != strstr(t, "\nroute 0 3 4 6 5 3\n")
                   && NULL != strstr(t, "\nroute 0 1 1\n"));
    }
    free(t);
    /* a failed node is left out; a node cut off is "route S D -" */
    themis_graph_free(&g);
    g = load("biring:4,fail=2");
    t = plan_text(&g, NULL);
    UNIT_CHECK(NULL != t && 3 == lines_starting(t, "node ") && NULL == strstr(t, "node 2 ")
               && NULL != strstr(t, "\nroute 1 3 0 3\n"));
    free(t);
    themis_graph_free(&g);
    g = load("ring:3,faillink=0-1");
    t = plan_text(&g, NULL);
    UNIT_CHECK(NULL != t && NULL != strstr(t, "\nroute 0 1 -\n")
               && 2 == lines_starting(t, "link "));
    free(t);
    themis_graph_free(&g);
}

static void test_plan_spines(void)
{
    /* ranks 0-3 (one per host), NICs 4-7, leaves 8-9, spines 10-11 */
    themis_graph_t g = load("leafspine:4x1,leaves=2,spines=2,bw=8Gb/s,pcie=8Gb/s,lat=500ns");
    themis_xfer_sched_t s;
    char why[200];
    uint32_t via[3] = {11, 10, 11}, pair_via[16];
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 4, 1);
    add(&s, 0, 2, NULL, 0);
    add(&s, 1, 3, NULL, 0);
    add(&s, 0, 2, NULL, 0);
    UNIT_CHECKF(THEMIS_OK == themis_bed_pair_via(&g, &s, via, pair_via, why, sizeof(why)), "%s",
                why);
    UNIT_CHECK(11 == pair_via[0 * 4 + 2] && 10 == pair_via[1 * 4 + 3]
               && THEMIS_LINK_SIM_NO_VIA == pair_via[2 * 4 + 0]);
    char *t = plan_text(&g, pair_via);
    UNIT_CHECK(NULL != t);
    if (NULL != t) {
        /* 0 -> 2 by spine 11 leaves leaf 8's own route (spine 10): a rule
         * there; 1 -> 3 by spine 10 is the graph's own route: none */
        UNIT_CHECK(NULL != strstr(t, "\nroute 0 2 4 8 11 9 6 2\n")
                   && NULL != strstr(t, "\nrule 8 0 2 11\n")
                   && NULL != strstr(t, "\nroute 1 3 5 8 10 9 7 3\n")
                   && NULL != strstr(t, "\nroute 2 0 6 9 10 8 4 0\n")
                   && 1 == lines_starting(t, "rule "));
    }
    free(t);
    /* one pair, two spines: the bed routes a pair one way */
    via[2] = 10;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_bed_pair_via(&g, &s, via, pair_via, why, sizeof(why))
               && NULL != strstr(why, "rank 0 -> 2 goes by node 11 and by node 10"));
    /* a waypoint the route would pass twice (a NIC: back the same way) */
    UNIT_CHECK(THEMIS_OK == themis_bed_pair_via(&g, &s, (uint32_t[]){5, 10, 5}, pair_via, why,
                                                sizeof(why)));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_bed_plan_write(&g, pair_via, f, why, sizeof(why))
               && NULL != strstr(why, "rank 0 -> 2 by node 5"));
    fclose(f);
    free(buf);
    themis_xfer_free(&s);
    themis_graph_free(&g);
}

static char *plan_dims_text(const themis_graph_t *g, const uint32_t *sizes, int ndims,
                            char *why, size_t whylen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    themis_status_t st = themis_bed_plan_write_dims(g, sizes, ndims, f, why, whylen);
    fclose(f);
    if (THEMIS_OK != st) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Ring distance of two coordinates. */
static uint32_t ringd(uint32_t a, uint32_t b, uint32_t n)
{
    uint32_t d = (b + n - a) % n;
    return d < n - d ? d : n - d;
}

/* Every route of a WxH torus by dimension order: d1 hops (along a row)
 * before d2 hops, each to a ring neighbour, as long as the torus
 * distance; with last = 0, d2 hops first. */
static void check_torus_routes(const themis_graph_t *g, uint32_t w, uint32_t h, int last)
{
    themis_route_dims_t rd;
    char why[200];
    uint32_t sizes[2] = {w, h}, *next = malloc(g->nnodes * sizeof(*next)), bad = 0;
    UNIT_CHECKF(THEMIS_OK == themis_route_dims_init(&rd, g, sizes, 2, why, sizeof(why)), "%s",
                why);
    for (uint32_t d = 0; d < w * h && NULL != next; d++) {
        UNIT_CHECK(THEMIS_OK == themis_route_dims_to(&rd, d, last, next));
        for (uint32_t s = 0; s < w * h; s++) {
            uint32_t v = s, hops = 0, dim = (0 == last) ? 1 : 0;
            while (v != d && hops <= w * h && UINT32_MAX != next[v]) {
                uint32_t x = g->links[next[v]].dst;
                uint32_t hd = (v / w == x / w) ? 0 : 1;
                bad += (0 == last) ? (hd > dim) : (hd < dim);
                bad +=
                    (0 == hd) ? (1 != ringd(v % w, x % w, w)) : (1 != ringd(v / w, x / w, h));
                dim = hd;
                v = x;
                hops++;
            }
            bad += (v != d) || hops != ringd(s % w, d % w, w) + ringd(s / w, d / w, h);
        }
    }
    UNIT_CHECKF(0 == bad, "%ux%u torus, last %d: %u bad hops or routes", w, h, last, bad);
    free(next);
    themis_route_dims_free(&rd);
}

static void test_plan_dims(void)
{
    char why[200] = "";
    /* 4x2 of line switches: ranks 0-7, d1 lines 8-9, d2 lines 10-13 */
    themis_graph_t g = load("lines:sw:4:100Mb/s:1us_sw:2:40Mb/s:1us");
    UNIT_CHECK(14 == g.nnodes && 8 == g.nranks && 32 == g.nlinks &&
               THEMIS_NODE_SWITCH == g.kind[13]);
    char *t = plan_dims_text(&g, (uint32_t[]){4, 2}, 2, why, sizeof(why));
    UNIT_CHECKF(NULL != t, "%s", why);
    if (NULL != t) {
        UNIT_CHECK(NULL != strstr(t, "\ndims 4x2\n") &&
                   NULL != strstr(t, "\nlink 0 10 40000000 1000000\n") &&
                   NULL != strstr(t, "\niface 0 8 d1\n") &&
                   NULL != strstr(t, "\niface 7 13 d2\n") && 16 == lines_starting(t, "iface "));
        /* d1 first, each coordinate through its line's switch */
        UNIT_CHECK(NULL != strstr(t, "\nroute 0 7 8 3 13 7\n") &&
                   NULL != strstr(t, "\nroute 13 0 3 8 0\n") &&
                   NULL != strstr(t, "\nroute 8 5 1 11 5\n"));
        /* rank 7's d1 address: d2 first; a d2 peer's d1 address stays on d2 */
        UNIT_CHECK(NULL != strstr(t, "\nifroute 0 7 9 10 4 9 7\n") &&
                   NULL != strstr(t, "\nifroute 0 7 13 8 3 13 7\n") &&
                   NULL != strstr(t, "\nifroute 0 4 9 10 4\n") &&
                   13 * 16 == lines_starting(t, "ifroute "));
    }
    free(t);
    themis_graph_free(&g);
    /* a torus (4 columns x 3 rows): + direction on the 4-ring's ties */
    g = load("torus2d:4x3");
    t = plan_dims_text(&g, (uint32_t[]){4, 3}, 2, why, sizeof(why));
    UNIT_CHECKF(NULL != t, "%s", why);
    if (NULL != t) {
        UNIT_CHECK(
            NULL != strstr(t, "\nroute 1 3 2 3\n") && NULL != strstr(t, "\nroute 3 1 0 1\n") &&
            NULL != strstr(t, "\nroute 1 7 2 3 7\n") &&
            NULL != strstr(t, "\niface 1 0 d1m\n") && NULL != strstr(t, "\niface 1 2 d1p\n") &&
            NULL != strstr(t, "\niface 1 9 d2m\n") && 48 == lines_starting(t, "iface "));
    }
    free(t);
    check_torus_routes(&g, 4, 3, THEMIS_ROUTE_DIMS_NONE);
    check_torus_routes(&g, 4, 3, 0);
    themis_graph_free(&g);
    g = load("torus2d:5x4");
    check_torus_routes(&g, 5, 4, THEMIS_ROUTE_DIMS_NONE);
    themis_graph_free(&g);
    /* refused: dims that do not hold the ranks, a NIC on no line */
    g = load("torus2d:4x3");
    UNIT_CHECK(NULL == plan_dims_text(&g, (uint32_t[]){4, 4}, 2, why, sizeof(why)) &&
               NULL != strstr(why, "do not hold the graph's 12 ranks"));
    themis_graph_free(&g);
    g = load("cluster:2x2,nics=1");
    UNIT_CHECK(NULL == plan_dims_text(&g, (uint32_t[]){2, 2}, 2, why, sizeof(why)) &&
               NULL != strstr(why, "node 4 is not a switch of one dimension line"));
    themis_graph_free(&g);
}

int main(void)
{
    UNIT_RUN(test_scale);
    UNIT_RUN(test_plan_lines);
    UNIT_RUN(test_plan_spines);
    UNIT_RUN(test_plan_dims);
    UNIT_EXIT();
}
