/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Clusters in the one network model (planners/network/cluster.h, graph.h): every
 * generator's graph round trips through the file format (write -> parse
 * -> the same text and hash), the cluster shapes hold the nodes and links
 * docs/cluster.md promises, declarations are checked, dims derived from a
 * placement equal the declared ones, the unwinding of a star is switch:N,
 * and the link simulator's times through a switch and through NICs match
 * hand-computed ones, by the graph's routes and by the Clos planner's
 * spines (cluster_clos.h).
 */
#include <stdlib.h>

#include "cluster.h"
#include "cluster_clos.h"
#include "graph_util.h"
#include "link_sim.h"
#include "unit.h"

#define GB 1000000000ULL
#define US 1000000ULL

static void test_round_trip_every_generator(void)
{
    static const char *specs[] = {
        "ring:5", "biring:4", "fc:4", "switch:6,degree=2", "mesh2d:3x3", "torus2d:4x4",
        "mesh3d:2x2x2", "torus3d:3x3x3", "mesh2d_hetero:4x3",
        "dims:ring:4:100Gb:1us_fc:3:300Gb:700ns", "p3.16xlarge", "p3.8xlarge",
        "cluster:4x4,nics=2", "cluster:2x3,intra=ring,ibw=300GiB/s", "cluster:3x4,intra=biring,nics=4",
        "cluster:2x2,intra=switch,pcie=25GB/s", "cluster:2x4,intra=none,lat=1us",
        "cluster:1x1", "leafspine:8x2,leaves=4,spines=2,ubw=400Gb/s", "rail:2x4,spines=1",
        "rail:4x2,intra=switch",
    };
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        themis_graph_t a = load(specs[i]), b;
        themis_parse_error_t e;
        char *t1 = written(&a);
        UNIT_CHECKF(NULL != t1 && 0 != a.nnodes, "%s", specs[i]);
        if (NULL == t1 || 0 == a.nnodes) {
            free(t1);
            themis_graph_free(&a);
            continue;
        }
        UNIT_CHECKF(THEMIS_OK == themis_graph_parse(t1, &b, &e), "%s: %d:%d: %s", specs[i],
                    e.line, e.column, e.message);
        char *t2 = written(&b);
        UNIT_CHECKF(themis_graph_hash(&a) == themis_graph_hash(&b) && NULL != t2
                    && 0 == strcmp(t1, t2) && a.nranks == b.nranks && a.nhosts == b.nhosts,
                    "%s", specs[i]);
        free(t1);
        free(t2);
        themis_graph_free(&a);
        themis_graph_free(&b);
    }
}

static void test_cluster_shape(void)
{
    themis_graph_t g = load("cluster:4x4,nics=2");
    UNIT_CHECK(25 == g.nnodes && 16 == g.nranks && 4 == g.nhosts);
    UNIT_CHECK(NULL != g.kind && NULL != g.host && THEMIS_NODE_NIC == g.kind[16]
               && 0 == g.host[17] && 3 == g.host[23] && THEMIS_NODE_SWITCH == g.kind[24]
               && THEMIS_GRAPH_NO_HOST == g.host[24] && 2 == g.host[9]);
    /* ranks 0, 1 use NIC 16, ranks 2, 3 NIC 17; every NIC into switch 24 */
    UNIT_CHECK(UINT32_MAX != themis_graph_link(&g, 1, 16) && UINT32_MAX != themis_graph_link(&g, 2, 17)
               && UINT32_MAX == themis_graph_link(&g, 2, 16)
               && UINT32_MAX != themis_graph_link(&g, 23, 24)
               && UINT32_MAX != themis_graph_link(&g, 24, 18));
    /* fc inside a host at 25 GB/s, NICs at 100 Gb/s */
    uint32_t l = themis_graph_link(&g, 5, 7), n = themis_graph_link(&g, 19, 24);
    UNIT_CHECK(UINT32_MAX != l && 200 * GB == g.links[l].bw_bps && UINT32_MAX != n
               && 100 * GB == g.links[n].bw_bps && UINT32_MAX == themis_graph_link(&g, 3, 4));
    /* 24 intra links x 2... : 4 hosts x 12 + 16 x 2 + 8 x 2 */
    UNIT_CHECK(4 * 12 + 16 * 2 + 8 * 2 == g.nlinks);
    themis_graph_free(&g);

    g = load("leafspine:8x2,leaves=4,spines=2");
    /* 16 ranks, 8 NICs, leaves 24..27, spines 28, 29; hosts 2, 3 under leaf 25 */
    UNIT_CHECK(30 == g.nnodes && 16 == g.nranks && 8 == g.nhosts
               && UINT32_MAX != themis_graph_link(&g, 19, 25)
               && UINT32_MAX != themis_graph_link(&g, 27, 29)
               && UINT32_MAX == themis_graph_link(&g, 24, 25));
    themis_graph_free(&g);

    g = load("rail:2x4");
    /* one NIC per rank, NIC n of each host into rail switch n */
    UNIT_CHECK(8 + 8 + 4 == g.nnodes && UINT32_MAX != themis_graph_link(&g, 13, 17)
               && UINT32_MAX != themis_graph_link(&g, 9, 17));
    themis_graph_free(&g);

    themis_parse_error_t e;
    static const char *bad[] = {"cluster:4", "cluster:4x2,nics=3", "leafspine:6x2,leaves=4",
                                "cluster:2x2,intra=mesh", "cluster:2x2,bw=0Gb", "rail:2x2,leaves=2",
                                "cluster:2x2,degree=2"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        UNIT_CHECKF(THEMIS_ERR_PARSE == themis_graph_load(bad[i], NULL, &g, &e)
                    && '\0' != e.message[0] && NULL == g.links, "%s", bad[i]);
    }
}

static void expect_error(const char *text, const char *needle)
{
    themis_graph_t g;
    themis_parse_error_t e;
    themis_status_t st = themis_graph_parse(text, &g, &e);
    UNIT_CHECKF(THEMIS_OK != st && NULL != strstr(e.message, needle) && e.line >= 1
                && e.column >= 1, "'%s': %d:%d: %s", text, e.line, e.column, e.message);
}

static void test_declarations(void)
{
    themis_graph_t g;
    themis_parse_error_t e;
    /* placement only: no other kinds, hosts hashed */
    UNIT_CHECK(THEMIS_OK == themis_graph_parse("rank 0-1 host 0\nrank 2-3 host 1\n"
                                               "0 1 1Gb/s 1us both\n2 3 1Gb 1us both\n", &g, &e));
    UNIT_CHECK(4 == g.nranks && 2 == g.nhosts && NULL == g.kind && NULL != g.host);
    uint64_t placed = themis_graph_hash(&g);
    themis_graph_free(&g);
    UNIT_CHECK(THEMIS_OK == themis_graph_parse("nodes 4\n0 1 1Gb/s 1us both\n2 3 1Gb 1us both\n",
                                               &g, &e));
    UNIT_CHECK(4 == g.nranks && 0 == g.nhosts && NULL == g.host && placed != themis_graph_hash(&g));
    themis_graph_free(&g);
    /* declaring ranks without hosts changes nothing */
    UNIT_CHECK(THEMIS_OK == themis_graph_parse("rank 0-3\n0 1 1Gb/s 1us both\n2 3 1Gb 1us both\n",
                                               &g, &e));
    UNIT_CHECK(NULL == g.kind && NULL == g.host);
    themis_graph_free(&g);

    expect_error("nodes 3\nswitch 1\n0 1 1Gb 1us both\n1 2 1Gb 1us both\n", "ranks come first");
    expect_error("rank 0-1 host 1\n0 1 1Gb 1us\n", "host 0 has no rank");
    expect_error("rank 0 host 0\n0 1 1Gb 1us\n", "rank 1 has no host");
    expect_error("nodes 3\nrank 1-2 host 0\n", "rank 0 has no host");
    expect_error("host 2\n0 1 1Gb 1us\n1 2 1Gb 1us\n", "names no host");
    expect_error("switch 1\nnic 1\n0 1 1Gb 1us\n", "declared twice");
    expect_error("switch 3-1\n", "backwards");
    expect_error("switch 1 host\n", "expected 'switch K'");
    expect_error("switch 1 2 3\n", "expected 'switch K'");
    expect_error("nic 1 host x\n", "not a number");
    expect_error("switch 0\n", "no rank");
}

static void test_dims(void)
{
    uint32_t sizes[THEMIS_MAX_DIMS];
    char why[256];
    themis_graph_t g = load("cluster:4x4,nics=2");
    UNIT_CHECK(2 == themis_graph_dims(&g, sizes, why, sizeof(why)) && 4 == sizes[0]
               && 4 == sizes[1]);
    static const uint32_t d44[] = {4, 4}, d224[] = {2, 2, 4}, d16[] = {16}, d28[] = {2, 8},
                          d42[] = {4, 2}, d82[] = {8, 2};
    UNIT_CHECK(themis_graph_dims_agree(&g, d44, 2, why, sizeof(why)));
    UNIT_CHECK(themis_graph_dims_agree(&g, d224, 3, why, sizeof(why)));
    UNIT_CHECK(!themis_graph_dims_agree(&g, d16, 1, why, sizeof(why))
               && NULL != strstr(why, "4 hosts of 4 ranks (dims 4x4)"));
    UNIT_CHECK(!themis_graph_dims_agree(&g, d28, 2, why, sizeof(why))
               && NULL != strstr(why, "dims 2x8 disagree"));
    UNIT_CHECK(!themis_graph_dims_agree(&g, d82, 2, why, sizeof(why)));
    UNIT_CHECK(!themis_graph_dims_agree(&g, d42, 2, why, sizeof(why))
               && NULL != strstr(why, "(8 ranks)"));
    themis_graph_free(&g);

    g = load("leafspine:8x2,leaves=4");
    UNIT_CHECK(2 == themis_graph_dims(&g, sizes, NULL, 0) && 2 == sizes[0] && 8 == sizes[1]);
    themis_graph_free(&g);
    g = load("cluster:1x4");
    UNIT_CHECK(1 == themis_graph_dims(&g, sizes, NULL, 0) && 4 == sizes[0]);
    themis_graph_free(&g);
    g = load("cluster:5x1");
    UNIT_CHECK(1 == themis_graph_dims(&g, sizes, NULL, 0) && 5 == sizes[0]);
    themis_graph_free(&g);
    /* without a placement: one dimension, and any shape of its size agrees */
    g = load("torus2d:4x4");
    UNIT_CHECK(1 == themis_graph_dims(&g, sizes, NULL, 0) && 16 == sizes[0]
               && themis_graph_dims_agree(&g, d28, 2, NULL, 0));
    themis_graph_free(&g);
    /* hosts of unequal size: one dimension, said why */
    themis_parse_error_t e;
    UNIT_CHECK(THEMIS_OK == themis_graph_parse("rank 0-2 host 0\nrank 3 host 1\n0 3 1Gb 1us\n",
                                               &g, &e));
    UNIT_CHECK(1 == themis_graph_dims(&g, sizes, why, sizeof(why)) && 4 == sizes[0]
               && NULL != strstr(why, "do not hold the same number"));
    themis_graph_free(&g);
}

static void test_unwind(void)
{
    themis_graph_t g, u, s;
    themis_parse_error_t e;
    char why[160];
    /* a star of 4 ranks at 8 Gb/s, 1 us a link: switch:4 at 2 us a route */
    UNIT_CHECK(THEMIS_OK == themis_graph_parse("switch 4\n0 4 8Gb 1us both\n1 4 8Gb 1us both\n"
                                               "2 4 8Gb 1us both\n3 4 8Gb 1us both\n", &g, &e));
    UNIT_CHECKF(THEMIS_OK == themis_graph_unwind(&g, 0, &u, why, sizeof(why)), "%s", why);
    s = load("switch:4,bw=8Gb,lat=2us");
    UNIT_CHECK(4 == u.nnodes && themis_graph_hash(&s) == themis_graph_hash(&u));
    themis_graph_free(&u);
    themis_graph_free(&s);
    UNIT_CHECK(THEMIS_OK == themis_graph_unwind(&g, 2, &u, why, sizeof(why)));
    s = load("switch:4,degree=2,bw=8Gb,lat=2us");
    UNIT_CHECK(themis_graph_hash(&s) == themis_graph_hash(&u));
    themis_graph_free(&u);
    themis_graph_free(&s);
    themis_graph_free(&g);

    /* 2 hosts of 2 ranks, one NIC each at 8 Gb/s: each rank has 2 peers
     * on the other host, the NIC's 4 flows get 2 Gb/s; the rank -> NIC
     * link's 2 flows 16 Gb/s of 32; the route 4 links of 500 ns */
    g = load("cluster:2x2,bw=8Gb/s,pcie=32Gb/s,lat=500ns,ibw=50Gb/s");
    UNIT_CHECKF(THEMIS_OK == themis_graph_unwind(&g, 0, &u, why, sizeof(why)), "%s", why);
    uint32_t l = themis_graph_link(&u, 0, 2), m = themis_graph_link(&u, 1, 0);
    UNIT_CHECK(4 == u.nnodes && 4 + 8 == u.nlinks && UINT32_MAX != l && UINT32_MAX != m
               && 2 * GB == u.links[l].bw_bps && 2 * US == u.links[l].lat_ps
               && 50 * GB == u.links[m].bw_bps && 2 == u.nhosts);
    themis_graph_free(&u);
    themis_graph_free(&g);

    /* a graph of ranks only comes back the same */
    g = load("torus2d:3x3,fail=4");
    UNIT_CHECK(THEMIS_OK == themis_graph_unwind(&g, 0, &u, why, sizeof(why))
               && themis_graph_hash(&g) == themis_graph_hash(&u));
    themis_graph_free(&u);
    /* packets stay with both views */
    g.pkt_payload = 1448;
    g.pkt_header = 66;
    UNIT_CHECK(THEMIS_OK == themis_graph_unwind(&g, 0, &u, why, sizeof(why))
               && themis_graph_hash(&g) == themis_graph_hash(&u));
    themis_graph_free(&u);
    themis_graph_free(&g);
    g = load("cluster:2x2");
    g.pkt_payload = 1448;
    g.pkt_header = 66;
    UNIT_CHECK(THEMIS_OK == themis_graph_unwind(&g, 0, &u, why, sizeof(why))
               && 1448 == u.pkt_payload && 66 == u.pkt_header);
    themis_graph_free(&u);
    themis_graph_free(&g);
}

/* 1000-byte units: 1 us on an 8 Gb/s link, each link 500 ns. */
static void test_link_sim_switch(void)
{
    themis_graph_t g;
    themis_parse_error_t e;
    themis_xfer_sched_t s;
    themis_link_sim_t r;
    char why[160];
    UNIT_CHECK(THEMIS_OK == themis_graph_parse("switch 4\n0 4 8Gb 500ns both\n1 4 8Gb 500ns both\n"
                                               "2 4 8Gb 500ns both\n3 4 8Gb 500ns both\n", &g, &e));
    /* 0 -> 1 and 2 -> 1 meet at the switch's port to 1: 3 us, then 4 us;
     * 0 -> 3 shares 0's port with 0 -> 1: 1 us behind it */
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 4, 1);
    add(&s, 0, 1, NULL, 0);
    add(&s, 2, 1, NULL, 0);
    add(&s, 0, 3, NULL, 0);
    UNIT_CHECKF(THEMIS_OK == themis_link_sim(&g, &s, 1000, &r, why, sizeof(why)), "%s", why);
    UNIT_CHECK(3 * US == r.finish_ps[0] && 4 * US == r.finish_ps[1] && 4 * US == r.finish_ps[2]
               && 4 * US == r.total_ps && 2000 == r.link_bytes[themis_graph_link(&g, 0, 4)]);
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    themis_graph_free(&g);

    /* 2 hosts of 2 ranks, one NIC each, all links 8 Gb/s: 0 -> 2 and
     * 1 -> 3 go rank -> NIC 4 -> switch 6 -> NIC 5 -> rank and share the
     * NIC links: 6 us, then 1 us later; 0 -> 1 stays in the host */
    g = load("cluster:2x2,bw=8Gb/s,pcie=8Gb/s,ibw=8Gb/s,lat=500ns,ilat=500ns");
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 4, 1);
    add(&s, 0, 2, NULL, 0);
    add(&s, 1, 3, NULL, 0);
    add(&s, 0, 1, NULL, 0);
    UNIT_CHECKF(THEMIS_OK == themis_link_sim(&g, &s, 1000, &r, why, sizeof(why)), "%s", why);
    UNIT_CHECKF(6 * US == r.finish_ps[0] && 7 * US == r.finish_ps[1]
                && 1500000 == r.finish_ps[2] && 7 * US == r.total_ps
                && 2000 == r.link_bytes[themis_graph_link(&g, 4, 6)]
                && 2000 == r.link_bytes[themis_graph_link(&g, 6, 5)],
                "%llu %llu %llu", (unsigned long long) r.finish_ps[0],
                (unsigned long long) r.finish_ps[1], (unsigned long long) r.finish_ps[2]);
    themis_link_sim_free(&r);
    /* a schedule of more ranks than the graph's (switches are not ranks) */
    themis_xfer_free(&s);
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 5, 1);
    add(&s, 0, 4, NULL, 0);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_link_sim(&g, &s, 1000, &r, why, sizeof(why))
               && NULL != strstr(why, "5 ranks, the graph 4"));
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    themis_graph_free(&g);
}

/* A leaf-spine of 4 hosts of one rank under 2 leaves (ranks 0-3, NICs
 * 4-7, leaves 8, 9, spines 10, 11), every link 8 Gb/s and 500 ns: 0 -> 2
 * and 1 -> 3 both cross leaf 8 -> 9; by the graph's routes both take
 * spine 10 and queue on 8 -> 10 (9 us, then 10 us: six links of 1.5 us,
 * one more us behind); by the Clos planner's spines, one each (9 us). */
static void test_clos_routes(void)
{
    themis_graph_t g = load("leafspine:4x1,leaves=2,spines=2,bw=8Gb/s,pcie=8Gb/s,lat=500ns");
    themis_xfer_sched_t s;
    themis_link_sim_t r;
    themis_clos_route_t cr;
    char why[200];
    uint32_t via[2] = {THEMIS_LINK_SIM_NO_VIA, 11};
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 4, 1);
    add(&s, 0, 2, NULL, 0);
    add(&s, 1, 3, NULL, 0);
    UNIT_CHECKF(THEMIS_OK == themis_link_sim(&g, &s, 1000, &r, why, sizeof(why)), "%s", why);
    UNIT_CHECK(9 * US == r.finish_ps[0] && 10 * US == r.finish_ps[1]
               && 2000 == r.link_bytes[themis_graph_link(&g, 8, 10)]);
    themis_link_sim_free(&r);
    UNIT_CHECKF(THEMIS_OK == themis_link_sim_via(&g, &s, 1000, THEMIS_LINK_SIM_FULL_PPM, via, &r,
                                                 why, sizeof(why)), "%s", why);
    UNIT_CHECK(9 * US == r.finish_ps[0] && 9 * US == r.finish_ps[1]
               && 1000 == r.link_bytes[themis_graph_link(&g, 11, 9)]);
    themis_link_sim_free(&r);
    /* the planner's spines: one flow each, 10 and 11 */
    via[0] = via[1] = 0;
    UNIT_CHECKF(THEMIS_OK == themis_clos_graph_via(&g, &s, THEMIS_CLOS_EXACT, 1, via, &cr, why,
                                                   sizeof(why)), "%s", why);
    UNIT_CHECK(2 == cr.nflows && 1 == cr.max_load && via[0] != via[1]
               && (10 == via[0] || 11 == via[0]) && (10 == via[1] || 11 == via[1]));
    themis_clos_route_free(&cr);
    UNIT_CHECK(THEMIS_OK == themis_link_sim_via(&g, &s, 1000, THEMIS_LINK_SIM_FULL_PPM, via, &r,
                                                why, sizeof(why)) && 9 * US == r.total_ps);
    themis_link_sim_free(&r);
    /* a waypoint that is not a node */
    via[1] = 99;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_link_sim_via(&g, &s, 1000, THEMIS_LINK_SIM_FULL_PPM,
                                                         via, &r, why, sizeof(why))
               && NULL != strstr(why, "no route by node 99"));
    themis_link_sim_free(&r);
    themis_xfer_free(&s);
    themis_graph_free(&g);
    /* not a leaf-spine: one switch */
    g = load("cluster:2x2");
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 4, 1);
    add(&s, 0, 2, NULL, 0);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_clos_graph_via(&g, &s, THEMIS_CLOS_GREEDY, 1, via, &cr,
                                                           why, sizeof(why))
               && NULL != strstr(why, "not a leaf-spine"));
    themis_clos_route_free(&cr);
    themis_xfer_free(&s);
    themis_graph_free(&g);
}

/* docs/examples' cluster files are the specs their comments name. */
static void test_examples(void)
{
    static const char *const files[][2] = {
        {"cluster_4x4_2nic.graph", "cluster:4x4,nics=2"},
        {"cluster_leafspine_8x2.graph", "leafspine:8x2,leaves=4,spines=2"},
        {"cluster_rail_4x4.graph", "rail:4x4,spines=1"},
        {"cluster_2x4_nvswitch.graph", "cluster:2x4,intra=switch,ibw=300GiB/s"},
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", THEMIS_EXAMPLES, files[i][0]);
        themis_graph_t f = load(path), s = load(files[i][1]);
        UNIT_CHECKF(0 != f.nnodes && themis_graph_hash(&f) == themis_graph_hash(&s), "%s",
                    files[i][0]);
        themis_graph_free(&f);
        themis_graph_free(&s);
    }
}

int main(void)
{
    UNIT_RUN(test_round_trip_every_generator);
    UNIT_RUN(test_cluster_shape);
    UNIT_RUN(test_declarations);
    UNIT_RUN(test_dims);
    UNIT_RUN(test_unwind);
    UNIT_RUN(test_link_sim_switch);
    UNIT_RUN(test_clos_routes);
    UNIT_RUN(test_examples);
    UNIT_EXIT();
}
