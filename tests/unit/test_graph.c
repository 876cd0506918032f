/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Graph topologies (planners/network/graph.h): every generator's node and link
 * counts and some links by hand, the p3 presets, failures, routes and
 * their tie-breaks, file parse errors with positions, write -> parse.
 */
#include <stdlib.h>
#include <unistd.h>

#include "graph.h"
#include "graph_util.h"
#include "unit.h"

#define GB 1000000000ULL

static uint64_t link_bw(const themis_graph_t *g, uint32_t a, uint32_t b)
{
    uint32_t l = themis_graph_link(g, a, b);
    return (UINT32_MAX == l) ? 0 : g->links[l].bw_bps;
}

static void expect_counts(const char *spec, uint32_t nodes, uint32_t links)
{
    themis_graph_t g = load(spec);
    UNIT_CHECKF(nodes == g.nnodes && links == g.nlinks, "%s: %u nodes %u links", spec, g.nnodes,
                g.nlinks);
    themis_graph_free(&g);
}

static void test_counts(void)
{
    expect_counts("ring:8", 8, 8);
    expect_counts("ring:2", 2, 2);
    expect_counts("ring:1", 1, 0);
    expect_counts("biring:8", 8, 16);
    expect_counts("biring:2", 2, 2);
    expect_counts("fc:5", 5, 20);
    expect_counts("switch:8", 8, 56);
    expect_counts("switch:8,degree=3", 8, 24);
    expect_counts("switch:8,degree=99", 8, 56);
    expect_counts("mesh2d:3x3", 9, 24);
    expect_counts("mesh2d:4x1", 4, 6);
    expect_counts("torus2d:4x4", 16, 64);
    expect_counts("torus2d:2x2", 4, 8);
    expect_counts("torus2d:3x1", 3, 6);
    expect_counts("mesh3d:2x2x2", 8, 24);
    expect_counts("mesh3d:3x3x3", 27, 108);
    expect_counts("torus3d:3x3x3", 27, 162);
    expect_counts("torus3d:4x4x2", 32, 160);
    expect_counts("mesh2d_hetero:3x2", 6, 14);
    expect_counts("p3.16xlarge", 8, 32);
    expect_counts("p3.8xlarge", 4, 12);
    expect_counts("dims:ring:4:100Gb:1us_biring:3:100Gb:1us", 12, 36);
    expect_counts("dims:2D-SW_SW", 1024, 1024 * (15 + 63));
    expect_counts("dims:sw:4:1Gb:1us,sw:2:1Gb:1us,degree=1", 8, 8 + 8);
    expect_counts("TORUS2D:2x3", 6, 3 * 2 + 2 * 6);
}

static void test_links(void)
{
    themis_graph_t g = load("torus2d:4x4,bw=10Gb,lat=300ns");
    /* node x + 4y: wrap links in both dimensions, both directions */
    UNIT_CHECK(10 * GB == link_bw(&g, 3, 0) && 10 * GB == link_bw(&g, 0, 3));
    UNIT_CHECK(10 * GB == link_bw(&g, 0, 12) && 10 * GB == link_bw(&g, 12, 0));
    UNIT_CHECK(10 * GB == link_bw(&g, 5, 6) && 10 * GB == link_bw(&g, 5, 9));
    UNIT_CHECK(0 == link_bw(&g, 0, 5) && 0 == link_bw(&g, 3, 4));
    UNIT_CHECK(300000 == g.links[0].lat_ps);
    themis_graph_free(&g);

    g = load("mesh2d:3x3");
    UNIT_CHECK(0 == link_bw(&g, 2, 0) && 0 == link_bw(&g, 6, 0) && 0 != link_bw(&g, 4, 7));
    UNIT_CHECK(THEMIS_DEFAULT_NETWORK_BW_BPS == g.links[0].bw_bps &&
               THEMIS_DEFAULT_NETWORK_LAT_PS == g.links[0].lat_ps);
    themis_graph_free(&g);

    g = load("mesh2d_hetero:3x2,bw=40Gb");
    UNIT_CHECK(40 * GB == link_bw(&g, 0, 1) && 20 * GB == link_bw(&g, 0, 3) &&
               20 * GB == link_bw(&g, 5, 2));
    themis_graph_free(&g);
    g = load("mesh2d_hetero:3x2,bw=40Gb,bw2=5GB/s");
    UNIT_CHECK(40 * GB == link_bw(&g, 2, 1) && 40 * GB == link_bw(&g, 1, 4));
    themis_graph_free(&g);

    /* Per-NPU aggregates split over the links: ring B, biring B/2, fc
     * B/(p-1), switch B/d. */
    g = load("ring:4,bw=100Gb");
    UNIT_CHECK(100 * GB == link_bw(&g, 3, 0) && 0 == link_bw(&g, 0, 3));
    themis_graph_free(&g);
    g = load("biring:4,bw=100Gb");
    UNIT_CHECK(50 * GB == link_bw(&g, 3, 0) && 50 * GB == link_bw(&g, 0, 3));
    themis_graph_free(&g);
    g = load("biring:2,bw=100Gb");
    UNIT_CHECK(100 * GB == link_bw(&g, 1, 0) && 100 * GB == link_bw(&g, 0, 1));
    themis_graph_free(&g);
    g = load("fc:5,bw=100Gb");
    UNIT_CHECK(25 * GB == link_bw(&g, 4, 1) && 25 * GB == link_bw(&g, 1, 4));
    themis_graph_free(&g);
    /* switch degree d: i -> i+1 .. i+d mod N at B/d (tacos Sec. IV-D) */
    g = load("switch:8,degree=3,bw=300Gb");
    UNIT_CHECK(100 * GB == link_bw(&g, 0, 1) && 100 * GB == link_bw(&g, 0, 3) &&
               100 * GB == link_bw(&g, 6, 1) && 0 == link_bw(&g, 0, 4) && 0 == link_bw(&g, 1, 0));
    themis_graph_free(&g);
    g = load("switch:8,degree=1,bw=300Gb");
    UNIT_CHECK(300 * GB == link_bw(&g, 7, 0) && 0 == link_bw(&g, 0, 7));
    themis_graph_free(&g);
    g = load("switch:8,bw=700Gb");
    UNIT_CHECK(100 * GB == link_bw(&g, 7, 0) && 100 * GB == link_bw(&g, 0, 7));
    themis_graph_free(&g);

    /* dims: dimension 0 innermost (stride 1), dimension 1 stride 4 */
    g = load("dims:ring:4:100Gb:1us_biring:3:100Gb:2us");
    UNIT_CHECK(100 * GB == link_bw(&g, 0, 1) && 100 * GB == link_bw(&g, 7, 4) &&
               0 == link_bw(&g, 1, 0));
    UNIT_CHECK(50 * GB == link_bw(&g, 0, 4) && 50 * GB == link_bw(&g, 4, 0) &&
               50 * GB == link_bw(&g, 9, 1) && 50 * GB == link_bw(&g, 1, 9));
    UNIT_CHECK(2000000 == g.links[themis_graph_link(&g, 0, 4)].lat_ps &&
               1000000 == g.links[themis_graph_link(&g, 0, 1)].lat_ps);
    themis_graph_free(&g);
    g = load("dims:fc:4:300Gb:1us,sw:2:8Gb:1us");
    UNIT_CHECK(100 * GB == link_bw(&g, 3, 0) && 8 * GB == link_bw(&g, 0, 4) &&
               8 * GB == link_bw(&g, 7, 3) && 0 == link_bw(&g, 0, 5));
    themis_graph_free(&g);
}

static void test_presets(void)
{
    static const uint32_t dual[][2] = {{0, 1}, {0, 4}, {1, 3}, {2, 3},
                                       {2, 6}, {4, 5}, {5, 7}, {6, 7}};
    static const uint32_t single[][2] = {{0, 2}, {0, 3}, {1, 2}, {1, 5},
                                         {3, 7}, {4, 6}, {4, 7}, {5, 6}};
    themis_graph_t g = load("p3.16xlarge");
    uint64_t nv = THEMIS_GRAPH_NVLINK_BW_BPS;
    UNIT_CHECK(200 * GB == nv);
    for (int i = 0; i < 8; i++) {
        UNIT_CHECK(2 * nv == link_bw(&g, dual[i][0], dual[i][1]) &&
                   2 * nv == link_bw(&g, dual[i][1], dual[i][0]));
        UNIT_CHECK(nv == link_bw(&g, single[i][0], single[i][1]) &&
                   nv == link_bw(&g, single[i][1], single[i][0]));
    }
    UNIT_CHECK(0 == link_bw(&g, 0, 5) && 0 == link_bw(&g, 3, 6) && 0 == link_bw(&g, 1, 7));
    UNIT_CHECK(THEMIS_GRAPH_NVLINK_LAT_PS == g.links[0].lat_ps);
    themis_graph_free(&g);

    g = load("p3.16xlarge,bw=10Gb,lat=1us");
    UNIT_CHECK(20 * GB == link_bw(&g, 6, 7) && 10 * GB == link_bw(&g, 6, 5) &&
               1000000 == g.links[5].lat_ps);
    themis_graph_free(&g);

    g = load("p3.8xlarge");
    UNIT_CHECK(2 * nv == link_bw(&g, 0, 1) && 2 * nv == link_bw(&g, 3, 1) &&
               2 * nv == link_bw(&g, 2, 3) && nv == link_bw(&g, 0, 2) &&
               nv == link_bw(&g, 3, 0) && nv == link_bw(&g, 1, 2));
    themis_graph_free(&g);
}

static void test_failures(void)
{
    themis_graph_t g = load("torus2d:4x4,fail=5+6,faillink=0-1+2-3");
    uint32_t route[16], n = 0;
    UNIT_CHECK(16 == g.nnodes && g.node_failed[5] && g.node_failed[6] && !g.node_failed[4]);
    UNIT_CHECK(UINT32_MAX == themis_graph_link(&g, 0, 1) &&
               UINT32_MAX != themis_graph_link(&g, 1, 0));
    UNIT_CHECK(UINT32_MAX == themis_graph_link(&g, 4, 5) &&
               UINT32_MAX == themis_graph_link(&g, 5, 4));
    /* 0 -> 1 without its link: 3 hops, 0 3 2 1 (next hops 3 < 12) */
    UNIT_CHECK(THEMIS_OK == themis_graph_route(&g, 0, 1, route, &n) && 3 == n);
    UNIT_CHECK(3 == n && 3 == g.links[route[0]].dst && 2 == g.links[route[1]].dst &&
               1 == g.links[route[2]].dst);
    /* 2 -> 3 failed: 2 1 0 3? 3 hops; 2 14 15 3 also; 1 is lower. */
    UNIT_CHECK(THEMIS_OK == themis_graph_route(&g, 2, 3, route, &n) && 3 == n &&
               1 == g.links[route[0]].dst);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_route(&g, 5, 0, route, &n));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_route(&g, 0, 6, route, &n));
    themis_graph_free(&g);

    /* A cut: node 1 of a ring of 3 cannot be left. */
    g = load("ring:3,faillink=1-2");
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_route(&g, 1, 0, route, &n));
    UNIT_CHECK(THEMIS_OK == themis_graph_route(&g, 0, 1, route, &n) && 1 == n);
    themis_graph_free(&g);
}

static themis_graph_t manual(void)
{
    /*   0 -> 1 -> 3 (5 ns + 1 ns), 0 -> 2 -> 3 (1 ns + 1 ns),
     *   0 -> 3 direct (100 ns), 3 -> 4 -> 5, 3 -> 5 -> 4 ... */
    themis_graph_t g;
    themis_graph_init(&g, 6);
    themis_graph_add_link(&g, 0, 1, GB, 5000);
    themis_graph_add_link(&g, 1, 3, GB, 1000);
    themis_graph_add_link(&g, 0, 2, GB, 1000);
    themis_graph_add_link(&g, 2, 3, GB, 1000);
    themis_graph_add_link(&g, 0, 3, GB, 100000);
    themis_graph_add_link(&g, 1, 4, GB, 1000);
    themis_graph_add_link(&g, 2, 4, GB, 1000);
    themis_graph_add_link(&g, 4, 5, GB, 1000);
    themis_graph_add_link(&g, 3, 5, GB, 1000);
    return g;
}

static void test_route_ties(void)
{
    themis_graph_t g = manual();
    uint32_t route[6], n = 0;
    char why[128];
    UNIT_CHECKF(THEMIS_OK == themis_graph_finish(&g, why, sizeof(why)), "%s", why);
    /* fewest hops first, whatever the latency */
    UNIT_CHECK(THEMIS_OK == themis_graph_route(&g, 0, 3, route, &n) && 1 == n &&
               4 == route[0]);
    /* 0 -> 4: via 1 (6 ns) or via 2 (2 ns): latency decides */
    UNIT_CHECK(THEMIS_OK == themis_graph_route(&g, 0, 4, route, &n) && 2 == n &&
               2 == route[0] && 6 == route[1]);
    /* 0 -> 5: 0 3 5 (2 hops); 1 -> 5: 1 3 5 or 1 4 5, same latency: 3 */
    UNIT_CHECK(THEMIS_OK == themis_graph_route(&g, 0, 5, route, &n) && 2 == n &&
               4 == route[0] && 8 == route[1]);
    UNIT_CHECK(THEMIS_OK == themis_graph_route(&g, 1, 5, route, &n) && 2 == n &&
               1 == route[0] && 8 == route[1]);
    UNIT_CHECK(THEMIS_OK == themis_graph_route(&g, 2, 2, route, &n) && 0 == n);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_route(&g, 5, 0, route, &n));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_route(&g, 0, 6, route, &n));
    /* equal latency everywhere: the lowest next node */
    g.links[0].lat_ps = 1000;
    UNIT_CHECK(THEMIS_OK == themis_graph_route(&g, 0, 4, route, &n) && 2 == n &&
               0 == route[0] && 5 == route[1]);
    themis_graph_free(&g);

    /* finish rejects a self link, a duplicate, a zero bandwidth */
    themis_graph_init(&g, 3);
    themis_graph_add_link(&g, 0, 1, GB, 0);
    themis_graph_add_link(&g, 0, 1, GB, 0);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_finish(&g, why, sizeof(why)) &&
               NULL != strstr(why, "twice"));
    g.links[1].dst = 0;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_finish(&g, why, sizeof(why)) &&
               NULL != strstr(why, "itself"));
    g.links[1].dst = 2;
    g.links[1].bw_bps = 0;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_finish(&g, why, sizeof(why)));
    g.links[1].bw_bps = 1;
    UNIT_CHECK(THEMIS_OK == themis_graph_finish(&g, why, sizeof(why)));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_add_link(&g, 0, 3, GB, 0));
    themis_graph_free(&g);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_init(&g, 0));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_init(&g, THEMIS_GRAPH_MAX_NODES + 1));
}

static uint32_t ring_dist(uint32_t a, uint32_t b, uint32_t p)
{
    uint32_t d = (a > b) ? a - b : b - a;
    return (d < p - d) ? d : p - d;
}

/* Every pair of a torus: the route has the torus distance, is made of
 * consecutive working links, and routes_to gives the same first hop. */
static void test_routes_all_pairs(void)
{
    themis_graph_t g = load("torus3d:4x3x5");
    uint32_t route[64], n = 0;
    uint32_t next[60];
    int bad = 0;
    for (uint32_t d = 0; d < g.nnodes; d++) {
        UNIT_CHECK(THEMIS_OK == themis_graph_routes_to(&g, d, next));
        for (uint32_t s = 0; s < g.nnodes; s++) {
            uint32_t want = ring_dist(s % 4, d % 4, 4) + ring_dist(s / 4 % 3, d / 4 % 3, 3) +
                            ring_dist(s / 12, d / 12, 5);
            if (THEMIS_OK != themis_graph_route(&g, s, d, route, &n) || n != want) {
                bad++;
                continue;
            }
            uint32_t at = s;
            for (uint32_t k = 0; k < n; k++) {
                bad += (g.links[route[k]].src != at);
                at = g.links[route[k]].dst;
            }
            bad += (at != d) + (s == d ? UINT32_MAX != next[s] : next[s] != route[0]);
        }
    }
    UNIT_CHECKF(0 == bad, "%d bad routes", bad);
    themis_graph_free(&g);
}

static void expect_parse_error(const char *text, int line, int col, const char *needle)
{
    themis_graph_t g;
    themis_parse_error_t e;
    themis_status_t st = themis_graph_parse(text, &g, &e);
    UNIT_CHECKF(THEMIS_OK != st && line == e.line && col == e.column &&
                NULL != strstr(e.message, needle),
                "'%s': st %d at %d:%d: %s", text, st, e.line, e.column, e.message);
    UNIT_CHECK(NULL == g.links && 0 == g.nnodes);
}

static void expect_spec_error(const char *spec, int col, const char *needle)
{
    themis_graph_t g;
    themis_parse_error_t e;
    themis_status_t st = themis_graph_load(spec, NULL, &g, &e);
    UNIT_CHECKF(THEMIS_OK != st && 1 == e.line && col == e.column &&
                NULL != strstr(e.message, needle),
                "'%s': st %d at %d:%d: %s", spec, st, e.line, e.column, e.message);
    UNIT_CHECK(NULL == g.links && 0 == g.nnodes);
}

static void test_parse(void)
{
    themis_graph_t g;
    themis_parse_error_t e;
    const char *text = "# a square\n"
                       "nodes 5   # one spare\n"
                       "0 1 100Gb 500ns both\n"
                       "1 2 25GB/s 1us\n"
                       "  2 3 1Tb 2us BOTH\n"
                       "3 0 100Gb 500ns\n"
                       "\n"
                       "fail node 4\n"
                       "fail link 2 3\n";
    UNIT_CHECKF(THEMIS_OK == themis_graph_parse(text, &g, &e), "%d:%d: %s", e.line, e.column,
                e.message);
    UNIT_CHECK(5 == g.nnodes && 6 == g.nlinks && g.node_failed[4] && g.links[3].failed &&
               2 == g.links[3].src && 3 == g.links[3].dst);
    UNIT_CHECK(1 == g.links[1].src && 0 == g.links[1].dst && 500000 == g.links[1].lat_ps);
    UNIT_CHECK(200 * GB == g.links[2].bw_bps && 1000 * GB == g.links[4].bw_bps);
    themis_graph_free(&g);
    /* without "nodes": 1 + the largest id */
    UNIT_CHECK(THEMIS_OK == themis_graph_parse("0 6 1Gb 1ns\n", &g, &e) && 7 == g.nnodes);
    themis_graph_free(&g);

    expect_parse_error("nodes 4\n0 1 100Gb\n", 2, 10, "missing LAT");
    expect_parse_error("0 1 100Qb 1us\n", 1, 8, "bandwidth '100Qb'");
    expect_parse_error("0 1 100Gb 1xs\n", 1, 12, "latency '1xs'");
    expect_parse_error("0 1 0Gb 1us\n", 1, 5, "must be > 0");
    expect_parse_error("0 1 0.00Gb 1us\n", 1, 5, "must be > 0");
    expect_parse_error("0 1 1Gb 2s\n", 1, 9, "above 1 s");
    expect_parse_error("0 1 1Gb 1us\n\n 1 1 1Gb 1us\n", 3, 2, "itself");
    expect_parse_error("0 1 1Gb 1us\n1 0 1Gb 1us\n0 1 2Gb 1us\n", 3, 1, "twice");
    expect_parse_error("0 1 1Gb 1us both\n1 0 1Gb 1us\n", 2, 1, "twice");
    expect_parse_error("nodes 2\n0 5 1Gb 1us\n", 2, 3, "out of range");
    expect_parse_error("0 5 1Gb 1us\nnodes 3\n", 2, 7, "line 1 names node 5");
    expect_parse_error("nodes 3\nnodes 3\n", 2, 1, "twice");
    expect_parse_error("nodes 0\n", 1, 7, ">= 1");
    expect_parse_error("nodes 65537\n", 1, 7, "too large");
    expect_parse_error("0 70000 1Gb 1us\n", 1, 3, "too large");
    expect_parse_error("nodes 3\nfail link 0 1\n", 2, 1, "no such link");
    expect_parse_error("nodes 3\nfail node x\n", 2, 11, "not a number");
    expect_parse_error("nodes 3\nfail edge 1 2\n", 2, 6, "fail node K");
    expect_parse_error("frob 1 2\n", 1, 1, "unexpected 'frob'");
    expect_parse_error("0 1 1Gb 1us bath\n", 1, 13, "unexpected 'bath'");
    expect_parse_error("0 1 1Gb 1us both x\n", 1, 18, "unexpected 'x'");
    expect_parse_error("# nothing\n", 1, 1, "empty graph");
    expect_parse_error("", 1, 1, "empty graph");
}

static void test_spec_errors(void)
{
    expect_spec_error("torus2d:4", 10, "takes WxH");
    expect_spec_error("torus2d:4x4x4", 12, "takes WxH");
    expect_spec_error("torus2d:4x0", 11, ">= 1");
    expect_spec_error("torus2d:4xa", 11, "not a number");
    expect_spec_error("torus2d", 8, "needs :WxH");
    expect_spec_error("ring:", 5, "needs :N");
    expect_spec_error("ring:70000", 6, "too large");
    expect_spec_error("torus2d:300x300", 9, "too many nodes");
    expect_spec_error("fc:4096", 4, "too many links");
    expect_spec_error("frob:3", 1, "unknown graph 'frob'");
    expect_spec_error("ring:4,foo=1", 8, "unknown option 'foo'");
    expect_spec_error("ring:4,8", 8, "unexpected '8'");
    expect_spec_error("ring:4,degree=2", 8, "degree applies");
    expect_spec_error("ring:4,bw2=1Gb", 8, "bw2 applies");
    expect_spec_error("ring:4,bw=0Gb", 11, "must be > 0");
    expect_spec_error("ring:4,lat=5", 13, "latency '5'");
    expect_spec_error("fc:4,bw=2b", 4, "rounds to 0");
    expect_spec_error("torus2d:4x4,fail=16", 18, "out of range");
    expect_spec_error("torus2d:4x4,fail=1+x", 20, "not a number");
    expect_spec_error("torus2d:4x4,faillink=0-5", 22, "no link 0 -> 5");
    expect_spec_error("torus2d:4x4,faillink=05", 22, "SRC-DST");
    expect_spec_error("p3.16xlarge:2", 12, "takes no size");
    expect_spec_error("dims:sw:4:1Qb:1us", 12, "bad unit");
    expect_spec_error("dims:sw:4:1Gb:1us,bw=1Gb", 19, "topology string");
    expect_spec_error("dims:sw:300:1Gb:1us_sw:300:1Gb:1us", 6, "too many nodes");

    /* The caller's defaults obey the same rules. */
    themis_graph_t g;
    themis_parse_error_t e;
    themis_graph_opts_t o;
    themis_graph_opts_default(&o);
    o.degree = 2;
    UNIT_CHECK(THEMIS_ERR_PARSE == themis_graph_load("ring:4", &o, &g, &e) &&
               NULL != strstr(e.message, "degree"));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_load("/nonexistent/graph", &o, &g, &e));
    themis_graph_opts_default(&o);
    UNIT_CHECK(THEMIS_ERR_IO == themis_graph_load("/nonexistent/graph", &o, &g, &e) &&
               NULL != strstr(e.message, "cannot open"));
    o.bw_bps = 8 * GB;
    o.degree = 2;
    UNIT_CHECK(THEMIS_OK == themis_graph_load("switch:8", &o, &g, &e) && 16 == g.nlinks &&
               4 * GB == link_bw(&g, 0, 2));
    themis_graph_free(&g);
    /* degree=0 is all peers (graph.h), also over a caller's default. */
    UNIT_CHECKF(THEMIS_OK == themis_graph_load("switch:8,degree=0", &o, &g, &e), "%s",
                e.message);
    UNIT_CHECK(56 == g.nlinks && 8 * GB / 7 == link_bw(&g, 0, 2));
    themis_graph_free(&g);
    /* the spec's keys override the defaults */
    UNIT_CHECK(THEMIS_OK == themis_graph_load("switch:8,bw=4Gb", &o, &g, &e) &&
               2 * GB == link_bw(&g, 0, 2));
    themis_graph_free(&g);
}

/* Text of themis_graph_write (caller frees). */
static void test_round_trip(void)
{
    static const char *specs[] = {
        "torus2d:4x4,fail=5,faillink=0-1+1-0", "mesh3d:3x2x2,bw=12.5GB/s,lat=1.5us",
        "p3.16xlarge,fail=7", "switch:16,degree=3,bw=3Gb",
        "dims:ring:4:100Gb:1us_fc:3:300Gb:700ns", "mesh2d_hetero:5x3,bw=7b,lat=3ps",
        "ring:1", "lines:sw:4:100mbit:1us_sw:1:1Gb:1us_sw:3:40mbit:2us",
    };
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        themis_graph_t a = load(specs[i]), b;
        themis_parse_error_t e;
        char *t1 = written(&a);
        UNIT_CHECK(NULL != t1);
        if (NULL == t1) {
            themis_graph_free(&a);
            continue;
        }
        UNIT_CHECKF(THEMIS_OK == themis_graph_parse(t1, &b, &e), "%s: %d:%d: %s", specs[i],
                    e.line, e.column, e.message);
        char *t2 = written(&b);
        UNIT_CHECKF(themis_graph_hash(&a) == themis_graph_hash(&b) && NULL != t2 &&
                    0 == strcmp(t1, t2), "%s", specs[i]);
        free(t1);
        free(t2);
        themis_graph_free(&a);
        themis_graph_free(&b);
    }

    /* load() of a file is themis_graph_parse of its text */
    char path[] = "/tmp/test_graph_XXXXXX";
    int fd = mkstemp(path);
    UNIT_CHECK(fd >= 0);
    if (fd >= 0) {
        themis_graph_t a = load("torus2d:3x3,fail=2"), b;
        FILE *f = fdopen(fd, "w");
        themis_graph_write(&a, f);
        fclose(f);
        b = load(path);
        UNIT_CHECK(9 == b.nnodes && themis_graph_hash(&a) == themis_graph_hash(&b));
        unlink(path);
        themis_graph_free(&a);
        themis_graph_free(&b);
    }
}

static void test_hash(void)
{
    themis_graph_t a = load("torus2d:4x4"), b = load("torus2d:4x4"), c = load("mesh2d:4x4");
    UNIT_CHECK(themis_graph_hash(&a) == themis_graph_hash(&b));
    UNIT_CHECK(themis_graph_hash(&a) != themis_graph_hash(&c));
    b.links[3].failed = 1;
    UNIT_CHECK(themis_graph_hash(&a) != themis_graph_hash(&b));
    b.links[3].failed = 0;
    b.node_failed[15] = 1;
    UNIT_CHECK(themis_graph_hash(&a) != themis_graph_hash(&b));
    b.node_failed[15] = 0;
    b.links[0].lat_ps++;
    UNIT_CHECK(themis_graph_hash(&a) != themis_graph_hash(&b));
    themis_graph_free(&a);
    themis_graph_free(&b);
    themis_graph_free(&c);
}

/* The `packet` line: parsed, written back, hashed, its errors; the wire
 * bytes it gives. */
static void test_packets(void)
{
    themis_graph_t a, b, c;
    themis_parse_error_t e;
    const char *text = "nodes 3\npacket 1448 66\n0 1 1Gb 1us both\n1 2 1Gb 1us\n";
    UNIT_CHECKF(THEMIS_OK == themis_graph_parse(text, &a, &e), "%d:%d: %s", e.line, e.column,
                e.message);
    UNIT_CHECK(1448 == a.pkt_payload && 66 == a.pkt_header);
    char *t1 = written(&a);
    UNIT_CHECK(NULL != t1 && NULL != strstr(t1, "packet 1448 66\n"));
    UNIT_CHECK(NULL != t1 && THEMIS_OK == themis_graph_parse(t1, &b, &e));
    UNIT_CHECK(1448 == b.pkt_payload && 66 == b.pkt_header
               && themis_graph_hash(&a) == themis_graph_hash(&b));
    free(t1);
    /* without the line: as before it existed (no packets, another hash) */
    UNIT_CHECK(THEMIS_OK == themis_graph_parse("nodes 3\n0 1 1Gb 1us both\n1 2 1Gb 1us\n", &c,
                                               &e));
    UNIT_CHECK(0 == c.pkt_payload && themis_graph_hash(&a) != themis_graph_hash(&c));
    t1 = written(&c);
    UNIT_CHECK(NULL != t1 && NULL == strstr(t1, "packet"));
    free(t1);
    b.pkt_header = 67;
    UNIT_CHECK(themis_graph_hash(&a) != themis_graph_hash(&b));
    /* b + ceil(b / payload) x header */
    UNIT_CHECK(0 == themis_graph_wire_bytes(&a, 0) && 1514 == themis_graph_wire_bytes(&a, 1448)
               && 1449 + 132 == themis_graph_wire_bytes(&a, 1449)
               && 4096 + 198 == themis_graph_wire_bytes(&a, 4096));
    UNIT_CHECK(4096 == themis_graph_wire_bytes(&c, 4096)
               && UINT64_MAX == themis_graph_wire_bytes(&c, UINT64_MAX));
    UNIT_CHECK(UINT64_MAX == themis_graph_wire_bytes(&a, UINT64_MAX - 10));
    themis_graph_free(&a);
    themis_graph_free(&b);
    themis_graph_free(&c);
    static const struct {
        const char *line;
        int at_line, col;
        const char *says;
    } bad[] = {
        {"packet 0 66\n", 1, 8, "payload must be >= 1"},
        {"packet 1448\n", 1, 12, "expected 'packet PAYLOAD HEADER'"},
        {"packet 1448 66 2\n", 1, 16, "expected 'packet PAYLOAD"},
        {"packet 1448 x\n", 1, 13, "not a number"},
        {"packet 1448 66\npacket 1448 66\n", 2, 1, "given twice"},
        {"packet 1448 9999999\n", 1, 13, "too large"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[80];
        snprintf(text, sizeof(text), "%s0 1 1Gb 1us\n", bad[i].line);
        expect_parse_error(text, bad[i].at_line, bad[i].col, bad[i].says);
    }
}

static void test_from_topology(void)
{
    themis_topology_t t = unit_topology("sw:4:300Gb:1us_ring:2:50Gb:2us");
    themis_graph_t g;
    UNIT_CHECK(THEMIS_OK == themis_graph_from_topology(&t, 0, &g));
    UNIT_CHECK(8 == g.nnodes && 2 * 12 + 4 * 2 == g.nlinks && 100 * GB == link_bw(&g, 1, 0) &&
               50 * GB == link_bw(&g, 6, 2));
    themis_graph_free(&g);
    UNIT_CHECK(THEMIS_OK == themis_graph_from_topology(&t, 1, &g));
    UNIT_CHECK(8 + 8 == g.nlinks && 300 * GB == link_bw(&g, 3, 0) && 0 == link_bw(&g, 0, 3));
    themis_graph_free(&g);
    t = unit_topology("2D-SW_SW");
    t.dims[1].size = 5000;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_graph_from_topology(&t, 0, &g));
}

int main(void)
{
    UNIT_RUN(test_counts);
    UNIT_RUN(test_links);
    UNIT_RUN(test_presets);
    UNIT_RUN(test_failures);
    UNIT_RUN(test_route_ties);
    UNIT_RUN(test_routes_all_pairs);
    UNIT_RUN(test_parse);
    UNIT_RUN(test_spec_errors);
    UNIT_RUN(test_round_trip);
    UNIT_RUN(test_hash);
    UNIT_RUN(test_packets);
    UNIT_RUN(test_from_topology);
    UNIT_EXIT();
}
