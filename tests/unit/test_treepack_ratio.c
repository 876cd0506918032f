/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The runtime's spanning-tree packing (themis_tp_solve, planners/
 * treepack.h) against the LP optimum C(G) (themis_tp_lp, GLPK) on 100+
 * graphs: random ones of 5 to 64 nodes (sparse and dense, capacities of
 * 1 to 4 links), with one-way links, clusters joined by thin bridges,
 * meshes, tori and the presets of planners/graph.c.  On every graph: the
 * packing fits, its C is within 2 % of C(G), its certified bound is no
 * less than the optimum, and its All-Reduce schedule passes
 * themis_xfer_check.  Dense graphs of 48-64 nodes, where the LP takes
 * minutes, against the runtime's own certified bound instead.  Seeds
 * are fixed; the generator is an LCG.
 * TREEPACK_RATIO_TRACE=1 prints each graph's C(G) and runtime C.
 */
#include <stdlib.h>

#include "transfer.h"
#include "treepack.h"
#include "unit.h"

/* One link's rate: the capacity unit of every generated graph. */
#define LINK_BPS 25000000000ull

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static uint32_t below(uint64_t *s, uint32_t n)
{
    return (uint32_t) (lcg(s) % n);
}

/* Both directions of a link, unless one_way. */
static void link(themis_graph_t *g, uint32_t a, uint32_t b, uint64_t cap, int one_way)
{
    UNIT_CHECK(THEMIS_OK == themis_graph_add_link(g, a, b, cap * LINK_BPS, 1000000));
    if (!one_way) {
        UNIT_CHECK(THEMIS_OK == themis_graph_add_link(g, b, a, cap * LINK_BPS, 1000000));
    }
}

/* A random connected graph: a random spanning tree, then each other
 * pair with probability permille / 1000; capacities 1 .. maxcap; with
 * one_way, a third of the extra pairs get a link one way only. */
static void random_graph(themis_graph_t *g, uint32_t n, uint32_t permille, uint32_t maxcap,
                         int one_way, uint64_t seed)
{
    uint64_t s = seed;
    uint8_t *has = calloc((size_t) n * n, 1);
    UNIT_CHECK(THEMIS_OK == themis_graph_init(g, n));
    for (uint32_t v = 1; v < n; v++) {
        uint32_t p = below(&s, v);
        link(g, p, v, 1 + below(&s, maxcap), 0);
        has[p * n + v] = has[v * n + p] = 1;
    }
    for (uint32_t a = 0; a < n; a++) {
        for (uint32_t b = a + 1; b < n; b++) {
            if (!has[a * n + b] && below(&s, 1000) < permille) {
                link(g, a, b, 1 + below(&s, maxcap), one_way && 0 == below(&s, 3));
            }
        }
    }
    free(has);
    char why[200];
    UNIT_CHECKF(THEMIS_OK == themis_graph_finish(g, why, sizeof(why)), "%s", why);
}

/* Two or three dense clusters in a chain, joined by one link of one
 * unit each: the bridges bound the strength. */
static void bridged_graph(themis_graph_t *g, uint32_t clusters, uint32_t size, uint64_t seed)
{
    uint64_t s = seed;
    uint32_t n = clusters * size;
    UNIT_CHECK(THEMIS_OK == themis_graph_init(g, n));
    for (uint32_t c = 0; c < clusters; c++) {
        for (uint32_t a = 0; a < size; a++) {
            for (uint32_t b = a + 1; b < size; b++) {
                if (b == a + 1 || below(&s, 1000) < 600) {
                    link(g, c * size + a, c * size + b, 1 + below(&s, 4), 0);
                }
            }
        }
        if (c > 0) {
            link(g, c * size - 1 - below(&s, size), c * size + below(&s, size), 1, 0);
        }
    }
    char why[200];
    UNIT_CHECKF(THEMIS_OK == themis_graph_finish(g, why, sizeof(why)), "%s", why);
}

static uint32_t ngraphs, nexact;
static double worst = 1.0;

/* The runtime packing against the LP on graph.  The LP starts from the
 * runtime's trees (themis_tp_lp proves its optimum over all trees by
 * pricing all the same): unseeded, a 32-node clique takes it minutes. */
static void compare(const char *name, themis_graph_t *graph)
{
    themis_tp_graph_t g;
    themis_tp_packing_t lp, rt;
    themis_xfer_sched_t s;
    char why[256] = "";
    if (THEMIS_OK != themis_tp_from_graph(graph, &g, why, sizeof(why))) {
        UNIT_CHECKF(0, "%s: %s", name, why);
        return;
    }
    if (THEMIS_OK != themis_tp_solve(&g, &rt, why, sizeof(why))) {
        UNIT_CHECKF(0, "%s: %s", name, why);
        themis_tp_graph_free(&g);
        return;
    }
    if (THEMIS_OK != themis_tp_lp(&g, 100000, &rt, &lp, why, sizeof(why)) || !lp.exact) {
        UNIT_CHECKF(0, "%s: lp: %s", name, why);
        themis_tp_packing_free(&rt);
        themis_tp_graph_free(&g);
        return;
    }
    if (NULL != getenv("TREEPACK_RATIO_TRACE")) {
        printf("# %s: n=%u m=%u C(G)=%llu/%llu runtime C=%llu/%llu (%s, %u trees, %u rounds)\n",
               name, g.n, g.m, (unsigned long long) lp.value.den,
               (unsigned long long) lp.value.num, (unsigned long long) rt.value.den,
               (unsigned long long) rt.value.num, themis_tp_method_name(rt.method), rt.ntrees,
               rt.iterations);
    }
    /* Fits: sum_t w_t [e in t] <= q cap_e. */
    uint64_t *load = calloc(g.m, sizeof(*load));
    for (uint32_t t = 0; t < rt.ntrees; t++) {
        for (uint32_t i = 0; i + 1 < g.n; i++) {
            load[rt.edges[(size_t) t * (g.n - 1) + i]] += rt.w[t];
        }
    }
    for (uint32_t e = 0; e < g.m; e++) {
        UNIT_CHECKF(load[e] <= rt.q * g.cap[e], "%s: edge %u over capacity", name, e);
    }
    free(load);
    /* C(runtime) / C(G) = strength(LP) / value(runtime), exactly. */
    unsigned __int128 lhs = (unsigned __int128) lp.value.num * rt.value.den * 100;
    unsigned __int128 rhs = (unsigned __int128) rt.value.num * lp.value.den * 102;
    double ratio = (double) lp.value.num * rt.value.den / ((double) rt.value.num * lp.value.den);
    worst = ratio > worst ? ratio : worst;
    ngraphs++;
    nexact += lp.value.num == rt.value.num && lp.value.den == rt.value.den;
    UNIT_CHECKF(lhs <= rhs, "%s (%u nodes, %u edges): C %.4f x C(G) (%s, %u trees)", name, g.n,
                g.m, ratio, themis_tp_method_name(rt.method), rt.ntrees);
    /* The certified bound is an upper bound on the strength. */
    UNIT_CHECKF(rt.bound_exact
                    && (unsigned __int128) rt.bound.num * lp.value.den
                           >= (unsigned __int128) lp.value.num * rt.bound.den,
                "%s: bound %llu/%llu below the optimum", name, (unsigned long long) rt.bound.num,
                (unsigned long long) rt.bound.den);
    if (THEMIS_OK == themis_tp_allreduce_schedule(&g, &rt, themis_tp_chunks_for(&rt, 96), &s, why,
                                                  sizeof(why))) {
        UNIT_CHECKF(THEMIS_OK == themis_xfer_check(&s, why, sizeof(why)), "%s: check: %s", name,
                    why);
        themis_xfer_free(&s);
    } else {
        UNIT_CHECKF(0, "%s: schedule: %s", name, why);
    }
    themis_tp_packing_free(&lp);
    themis_tp_packing_free(&rt);
    themis_tp_graph_free(&g);
}

static void test_random(void)
{
    for (uint32_t i = 0; i < 60; i++) {
        /* 5 to 64 nodes; sparse (about 3 extra links a node) or dense. */
        uint32_t n = 5 + (uint32_t) ((i * 37u) % 60u);
        uint32_t permille = 0 == i % 3 && n <= 24 ? 700 : (uint32_t) (3000 / n + 20);
        themis_graph_t graph;
        char name[64];
        snprintf(name, sizeof(name), "random n=%u p=%u seed=%u", n, permille, i);
        random_graph(&graph, n, permille, 0 == i % 4 ? 1 : 4, 0, 1000 + i);
        compare(name, &graph);
        themis_graph_free(&graph);
    }
}

static void test_one_way(void)
{
    for (uint32_t i = 0; i < 20; i++) {
        uint32_t n = 6 + (uint32_t) ((i * 13u) % 40u);
        themis_graph_t graph;
        char name[64];
        snprintf(name, sizeof(name), "one-way n=%u seed=%u", n, i);
        random_graph(&graph, n, (uint32_t) (4000 / n + 50), 3, 1, 2000 + i);
        compare(name, &graph);
        themis_graph_free(&graph);
    }
}

static void test_bridges(void)
{
    for (uint32_t i = 0; i < 12; i++) {
        themis_graph_t graph;
        char name[64];
        uint32_t clusters = 2 + i % 2, size = 3 + (uint32_t) ((i * 5u) % 14u);
        snprintf(name, sizeof(name), "bridged %ux%u seed=%u", clusters, size, i);
        bridged_graph(&graph, clusters, size, 3000 + i);
        compare(name, &graph);
        themis_graph_free(&graph);
    }
}

static void test_specs(void)
{
    static const char *const specs[] = {
        "p3.16xlarge", "p3.8xlarge", "fc:5", "fc:6", "fc:12", "fc:16", "fc:20", "biring:7",
        "mesh2d:3x3", "mesh2d:4x4", "mesh2d:8x8", "mesh2d:4x16", "mesh2d_hetero:5x4",
        "mesh2d_hetero:8x8", "mesh3d:2x3x4", "mesh3d:4x4x4", "torus2d:3x3", "torus2d:4x8",
        "torus2d:8x8", "torus2d:2x8", "torus3d:3x3x3", "torus3d:4x4x4", "torus3d:2x4x8",
        "switch:8", "dims:sw:4:100Gb:1us_biring:3:100Gb:1us", "dims:sw:4:1Gb:1us,sw:2:1Gb:1us",
    };
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        themis_graph_t graph;
        themis_parse_error_t e;
        UNIT_CHECKF(THEMIS_OK == themis_graph_load(specs[i], NULL, &graph, &e), "%s: %s",
                    specs[i], e.message);
        compare(specs[i], &graph);
        themis_graph_free(&graph);
    }
}

/* Dense graphs of 48 to 64 nodes, where the LP takes minutes: the
 * runtime's value against its own certified bound (a partition's ratio,
 * no less than the optimum) instead, also within 2 %. */
static void test_dense_certified(void)
{
    for (uint32_t i = 0; i < 6; i++) {
        uint32_t n = 0 == i % 2 ? 64 : 48 + 2 * i;
        themis_graph_t graph;
        themis_tp_graph_t g;
        themis_tp_packing_t rt;
        themis_xfer_sched_t s;
        char name[64], why[256] = "";
        snprintf(name, sizeof(name), "dense n=%u seed=%u", n, i);
        random_graph(&graph, n, 1000 - 100 * (i % 3), 1 + i % 3, 0, 4000 + i);
        UNIT_CHECKF(THEMIS_OK == themis_tp_from_graph(&graph, &g, why, sizeof(why)), "%s", why);
        UNIT_CHECKF(THEMIS_OK == themis_tp_solve(&g, &rt, why, sizeof(why)), "%s: %s", name, why);
        if (NULL != getenv("TREEPACK_RATIO_TRACE")) {
            printf("# %s: m=%u bound C=%llu/%llu runtime C=%llu/%llu (%u trees)\n", name, g.m,
                   (unsigned long long) rt.bound.den, (unsigned long long) rt.bound.num,
                   (unsigned long long) rt.value.den, (unsigned long long) rt.value.num,
                   rt.ntrees);
        }
        UNIT_CHECKF(rt.bound_exact
                        && (unsigned __int128) rt.bound.num * rt.value.den * 100
                               <= (unsigned __int128) rt.value.num * rt.bound.den * 102,
                    "%s: C %llu/%llu, bound %llu/%llu", name, (unsigned long long) rt.value.den,
                    (unsigned long long) rt.value.num, (unsigned long long) rt.bound.den,
                    (unsigned long long) rt.bound.num);
        UNIT_CHECKF(THEMIS_OK == themis_tp_allreduce_schedule(&g, &rt, themis_tp_chunks_for(&rt, 96),
                                                              &s, why, sizeof(why))
                        && THEMIS_OK == themis_xfer_check(&s, why, sizeof(why)),
                    "%s: %s", name, why);
        themis_xfer_free(&s);
        themis_tp_packing_free(&rt);
        themis_tp_graph_free(&g);
        themis_graph_free(&graph);
    }
}

int main(void)
{
    UNIT_RUN(test_random);
    UNIT_RUN(test_one_way);
    UNIT_RUN(test_bridges);
    UNIT_RUN(test_specs);
    UNIT_RUN(test_dense_certified);
    printf("# %u graphs, %u at the optimum, worst C %.4f x C(G)\n", ngraphs, nexact, worst);
    UNIT_CHECK(ngraphs >= 100);
    UNIT_EXIT();
}
