/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The algorithm table (planners/algorithms/algorithm.h): the rows are well formed,
 * substitution chains end at row 0, choices follow the documented rules,
 * and a program built through the table is the one the row's builder
 * makes.
 */
#include <stdio.h>
#include <string.h>

#include "algorithm.h"
#include "graph.h"
#include "topology.h"
#include "unit.h"
#include "xfer_ring.h"

static void test_rows_well_formed(void)
{
    UNIT_CHECK(themis_nalgorithms() >= 1 && themis_nalgorithms() <= THEMIS_MAX_ALGORITHMS);
    const themis_algorithm_t *r0 = themis_algorithm_get(0);
    UNIT_CHECK(NULL != r0 && NULL == r0->substitute && THEMIS_COLLS_ALL == r0->colls);
    UNIT_CHECK(NULL == themis_algorithm_get(-1) &&
               NULL == themis_algorithm_get(themis_nalgorithms()));
    for (int i = 0; i < themis_nalgorithms(); i++) {
        const themis_algorithm_t *a = themis_algorithm_get(i);
        UNIT_CHECKF(NULL != a->name && NULL != a->summary && NULL != a->applies &&
                        NULL != a->cost && NULL != a->build && 0 != a->colls,
                    "row %d", i);
        UNIT_CHECKF(i == themis_algorithm_index(a->name), "%s: names are unique", a->name);
        UNIT_CHECKF(0 != strcmp("auto", a->name), "row %d is named auto", i);
        /* The chain of substitutes reaches row 0, or a row without one
         * (it falls back), without a cycle. */
        int at = i, hops = 0;
        while (0 != at && NULL != themis_algorithm_get(at)->substitute
               && hops <= themis_nalgorithms()) {
            const char *sub = themis_algorithm_get(at)->substitute;
            at = themis_algorithm_index(sub);
            UNIT_CHECKF(at >= 0, "%s: unknown substitute %s", a->name, sub ? sub : "(none)");
            if (at < 0) {
                break;
            }
            hops++;
        }
        UNIT_CHECKF(0 == at || NULL == themis_algorithm_get(at)->substitute,
                    "%s: substitution chain does not end", a->name);
    }
    UNIT_CHECK(-1 == themis_algorithm_index("ring") && -1 == themis_algorithm_index(NULL));
}

static themis_algo_choice_t choose(const char *spec, const char *requested, themis_coll_t coll,
                                   uint64_t bytes)
{
    themis_topology_t t = unit_topology(spec);
    themis_algo_cost_params_t p;
    themis_algo_choice_t ch;
    themis_algo_cost_params_from_chunks(&p, 16, 2, THEMIS_ORDER_SCF, THEMIS_SCHED_THEMIS);
    themis_algo_input_t in = {.topo = &t, .coll = coll, .bytes = bytes, .params = &p};
    int req = NULL == requested ? THEMIS_ALGO_AUTO : themis_algorithm_index(requested);
    UNIT_CHECK(THEMIS_OK == themis_algorithm_choose(req, &in, &ch));
    return ch;
}

static void test_substitution(void)
{
    int rings = themis_algorithm_index("rings"), t2d = themis_algorithm_index("torus2d");
    themis_algo_choice_t ch = choose("biring:3:100Gb:1us_biring:3:100Gb:1us", "rings",
                                     THEMIS_COLL_ALLREDUCE, 1 << 20);
    UNIT_CHECK(rings == ch.index && !ch.substituted);
    ch = choose("biring:2:100Gb:1us_biring:4:100Gb:1us", "rings", THEMIS_COLL_ALLREDUCE, 1 << 20);
    UNIT_CHECKF(t2d == ch.index && ch.substituted && NULL != strstr(ch.why, ">= 3"), "%s",
                ch.why);
    ch = choose("sw:2:100Gb:1us_sw:2:100Gb:1us_sw:2:100Gb:1us", "rings",
                THEMIS_COLL_REDUCE_SCATTER, 1 << 20);
    UNIT_CHECKF(0 == ch.index && ch.substituted && NULL != strstr(ch.why, "2-D"), "%s", ch.why);
    ch = choose("sw:4:100Gb:1us", "themis", THEMIS_COLL_ALLGATHER, 1 << 20);
    UNIT_CHECK(0 == ch.index && !ch.substituted && !ch.costed);
}

static void test_auto(void)
{
    /* Not a torus: only row 0 has a cost, and it runs without costing. */
    themis_algo_choice_t ch = choose("sw:4:100Gb:1us_sw:2:100Gb:1us", NULL,
                                     THEMIS_COLL_ALLREDUCE, 1 << 20);
    UNIT_CHECK(0 == ch.index && !ch.costed);
    /* A torus: every row costed, the least time wins (ties: lower index). */
    ch = choose("biring:4:100Gb:1us_biring:4:100Gb:1us", NULL, THEMIS_COLL_ALLREDUCE, 1 << 20);
    UNIT_CHECK(ch.costed);
    for (int a = 0; a < themis_nalgorithms(); a++) {
        UNIT_CHECKF(THEMIS_OK != ch.status[a] || ch.time[ch.index] < ch.time[a] ||
                        (ch.time[ch.index] == ch.time[a] && ch.index <= a),
                    "%s beats the choice", themis_algorithm_get(a)->name);
    }
}

/* The table's build is the row's: rings with its cached cycles, its
 * transfer list (the call's chunks) as the whole list compiles it. */
static void test_build_through_table(void)
{
    themis_topology_t t = unit_topology("biring:3:100Gb:1us_biring:4:100Gb:1us");
    themis_algo_cost_params_t p;
    themis_algo_cost_params_from_chunks(&p, 8, 1, THEMIS_ORDER_SCF, THEMIS_SCHED_THEMIS);
    themis_plan_request_t req;
    memset(&req, 0, sizeof(req));
    req.coll = THEMIS_COLL_ALLREDUCE;
    req.ndims = 2;
    req.dim_size[0] = 3;
    req.dim_size[1] = 4;
    req.rank = 5;
    req.count = 1000;
    req.chunks_in_flight = 1;
    void *state = NULL;
    int rings = themis_algorithm_index("rings");
    const themis_algorithm_t *a = themis_algorithm_get(rings);
    themis_algo_input_t in = {.topo = &t, .coll = req.coll, .bytes = 4000, .params = &p,
                              .state = &state};
    themis_program_t via, direct;
    UNIT_CHECK(THEMIS_OK == a->build(&in, &req, &via));
    UNIT_CHECK(NULL != state);   /* the cycles are kept for the next call */
    themis_xfer_sched_t s;
    char why[200];
    UNIT_CHECK(THEMIS_OK == themis_xfer_rings(req.coll, state, NULL, p.torus_chunks, &s));
    UNIT_CHECKF(THEMIS_OK == themis_xfer_compile(&s, req.rank, req.count, NULL, 1, &direct, why,
                                                 sizeof(why)), "%s", why);
    UNIT_CHECK(via.nops == direct.nops && via.nsteps == direct.nsteps &&
               0 == memcmp(via.steps, direct.steps, via.nsteps * sizeof(*via.steps)));
    themis_program_free(&via);
    themis_program_free(&direct);
    themis_xfer_free(&s);
    a->state_free(state);
}

/* With a graph, auto ranks every row (a given schedule too) by the link
 * simulator: each time is themis_algo_graph_cost's, the choice the least;
 * a graph whose second dimension is 50x slower than declared changes the
 * times, and a graph of another size is not used. */
static void test_auto_on_graph(void)
{
    themis_topology_t t = unit_topology("biring:3:100Gb:1us_biring:3:100Gb:1us");
    themis_algo_cost_params_t p;
    themis_graph_t g, slow, small;
    themis_graph_opts_t o;
    themis_parse_error_t e;
    themis_xfer_sched_t ring;
    themis_algo_choice_t ch, ch_slow;
    themis_graph_opts_default(&o);
    themis_algo_cost_params_from_chunks(&p, 8, 2, THEMIS_ORDER_SCF, THEMIS_SCHED_THEMIS);
    UNIT_CHECK(THEMIS_OK == themis_graph_load("torus2d:3x3,bw=50Gb,lat=1us", &o, &g, &e));
    UNIT_CHECK(THEMIS_OK == themis_graph_parse("nodes 9\n"
        "0 1 50Gb 1us both\n1 2 50Gb 1us both\n2 0 50Gb 1us both\n"
        "3 4 50Gb 1us both\n4 5 50Gb 1us both\n5 3 50Gb 1us both\n"
        "6 7 50Gb 1us both\n7 8 50Gb 1us both\n8 6 50Gb 1us both\n"
        "0 3 1Gb 1us both\n3 6 1Gb 1us both\n6 0 1Gb 1us both\n"
        "1 4 1Gb 1us both\n4 7 1Gb 1us both\n7 1 1Gb 1us both\n"
        "2 5 1Gb 1us both\n5 8 1Gb 1us both\n8 2 1Gb 1us both\n", &slow, &e));
    UNIT_CHECK(THEMIS_OK == themis_graph_load("ring:4", &o, &small, &e));
    UNIT_CHECK(THEMIS_OK == themis_xfer_ring(THEMIS_COLL_ALLREDUCE, 9, NULL, &ring));
    themis_algo_input_t in = {.topo = &t, .coll = THEMIS_COLL_ALLREDUCE, .bytes = 9 << 20,
                              .params = &p, .graph = &g, .xsched = &ring};
    UNIT_CHECK(THEMIS_OK == themis_algorithm_choose(THEMIS_ALGO_AUTO, &in, &ch));
    UNIT_CHECK(ch.costed);
    for (int a = 0; a < themis_nalgorithms(); a++) {
        themis_time_t tm = 0;
        UNIT_CHECKF(THEMIS_OK == ch.status[a], "%s not costed", themis_algorithm_get(a)->name);
        UNIT_CHECK(THEMIS_OK == themis_algo_graph_cost(a, &in, &tm) && tm == ch.time[a]);
        UNIT_CHECK(ch.time[ch.index] <= ch.time[a]);
    }
    in.graph = &slow;
    UNIT_CHECK(THEMIS_OK == themis_algorithm_choose(THEMIS_ALGO_AUTO, &in, &ch_slow));
    for (int a = 0; a < themis_nalgorithms(); a++) {
        UNIT_CHECKF(ch_slow.time[a] > ch.time[a], "%s: %llu on the slow graph, %llu",
                    themis_algorithm_get(a)->name, (unsigned long long)ch_slow.time[a],
                    (unsigned long long)ch.time[a]);
    }
    in.graph = &small;
    themis_time_t tm;
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED == themis_algo_graph_cost(0, &in, &tm));
    themis_xfer_free(&ring);
    themis_graph_free(&g);
    themis_graph_free(&slow);
    themis_graph_free(&small);
}

static void fixed_params(void *ctx, uint64_t bytes, themis_algo_cost_params_t *p)
{
    themis_algo_cost_params_from_chunks(p, *(const uint32_t *) ctx, 2, THEMIS_ORDER_SCF,
                                        THEMIS_SCHED_THEMIS);
}

/* The request of rank `rank` for `elems` elements of the full vector;
 * reduce-scatter blocks uneven (rank r: base + r % 3). */
static void call_request(themis_coll_t coll, uint64_t elems, int rank, uint64_t *counts,
                         themis_plan_request_t *req, uint64_t *total)
{
    memset(req, 0, sizeof(*req));
    req->coll = coll;
    req->ndims = 2;
    req->dim_size[0] = req->dim_size[1] = 4;
    req->dim_algo[0] = req->dim_algo[1] = themis_dim_algo_for(THEMIS_DIM_BIRING, 4, 8);
    req->rank = rank;
    req->chunks_in_flight = 2;
    *total = 0;
    for (int r = 0; r < 16; ++r) {
        counts[r] = elems / 16 + (uint64_t) (r % 3);
        *total += counts[r];
    }
    req->recvcounts = counts;
    req->count = THEMIS_COLL_REDUCE_SCATTER == coll ? 0
                 : THEMIS_COLL_ALLGATHER == coll    ? elems / 16
                                                    : elems;
    if (THEMIS_COLL_ALLGATHER == coll) {
        *total = elems / 16 * 16;
    } else if (THEMIS_COLL_ALLREDUCE == coll) {
        *total = elems;
    }
}

/* themis_algorithm_plan on a graph: auto runs the fastest row that can
 * serve each call (every faster row says why it cannot), for counts the
 * synthesized and packed schedules do not divide; a forced row that
 * cannot serve gives way to the fastest that can, not to a fallback; the
 * cost table's lookups at its classes are the rows' graph costs. */
static void test_plan_serves_call(void)
{
    themis_topology_t t = unit_topology("biring:4:100Gb:1us_biring:4:100Gb:1us");
    themis_graph_t g;
    themis_graph_opts_t o;
    themis_parse_error_t e;
    void *states[THEMIS_MAX_ALGORITHMS] = {NULL};
    const uint32_t chunks = 8;
    const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                   THEMIS_COLL_ALLGATHER};
    const uint64_t elems[] = {17 * 16, 1000003, 1u << 16};
    uint64_t counts[16];
    themis_graph_opts_default(&o);
    UNIT_CHECK(THEMIS_OK == themis_graph_load("mesh2d:4x4", &o, &g, &e));
    for (int c = 0; c < 3; ++c) {
        themis_algo_table_t table;
        memset(&table, 0, sizeof(table));
        for (int i = 0; i < 3; ++i) {
            themis_plan_request_t req;
            themis_algo_cost_params_t p;
            themis_algo_choice_t ch;
            themis_program_t prog;
            uint64_t total;
            call_request(colls[c], elems[i], 5, counts, &req, &total);
            fixed_params((void *) &chunks, total * 4, &p);
            themis_algo_input_t in = {.topo = &t, .coll = colls[c], .bytes = total * 4,
                                      .params = &p, .graph = &g, .states = states};
            UNIT_CHECKF(THEMIS_OK == themis_algorithm_plan(THEMIS_ALGO_AUTO, &in, &table,
                                                           fixed_params, (void *) &chunks, &req,
                                                           &ch, &prog),
                        "%s of %llu elements", themis_coll_name(colls[c]),
                        (unsigned long long) total);
            UNIT_CHECK(ch.costed && !ch.substituted && THEMIS_OK == ch.status[ch.index]
                       && '\0' == ch.reason[ch.index][0]);
            for (int a = 0; a < themis_nalgorithms(); ++a) {
                int faster = THEMIS_OK == ch.status[a]
                             && (ch.time[a] < ch.time[ch.index]
                                 || (ch.time[a] == ch.time[ch.index] && a < ch.index));
                UNIT_CHECKF(!faster || '\0' != ch.reason[a][0],
                            "%s of %llu: %s is faster than %s and says nothing",
                            themis_coll_name(colls[c]), (unsigned long long) total,
                            themis_algorithm_get(a)->name,
                            themis_algorithm_get(ch.index)->name);
            }
            themis_program_free(&prog);

            /* forced treepack on 17 x 16 elements and forced tacos on 17
             * (5 ranks): neither divides into the schedule's units, which
             * then differ in size by one element (any count runs) */
            if (0 == i && THEMIS_COLL_ALLREDUCE == colls[c]) {
                int treepack = themis_algorithm_index("treepack");
                UNIT_CHECK(THEMIS_OK == themis_algorithm_plan(treepack, &in, &table, fixed_params,
                                                              (void *) &chunks, &req, &ch,
                                                              &prog));
                UNIT_CHECK(!ch.substituted && treepack == ch.index);
                themis_program_free(&prog);
                int tacos = themis_algorithm_index("tacos");
                total = 17;
                in.bytes = 17 * 4;
                req.count = 17;
                UNIT_CHECK(THEMIS_OK == themis_algorithm_plan(tacos, &in, &table, fixed_params,
                                                              (void *) &chunks, &req, &ch,
                                                              &prog));
                UNIT_CHECK(!ch.substituted && tacos == ch.index);
                themis_program_free(&prog);
            }
        }
        /* the table at a class is the row's graph cost there */
        for (int a = 0; a < themis_nalgorithms(); ++a) {
            for (int k = 2; k < 6; ++k) {
                themis_status_t st[THEMIS_MAX_ALGORITHMS];
                themis_time_t tm[THEMIS_MAX_ALGORITHMS], direct = 0;
                themis_algo_cost_params_t p;
                uint64_t bytes = themis_algo_table_class_bytes(k);
                fixed_params((void *) &chunks, bytes, &p);
                themis_algo_input_t in = {.topo = &t, .coll = colls[c], .bytes = bytes,
                                          .params = &p, .graph = &g, .state = &states[a]};
                themis_algo_table_at(&table, bytes, st, tm);
                UNIT_CHECK(st[a] == table.status[a][k]);
                if (THEMIS_OK == st[a] && THEMIS_OK == table.status[a][k + 1]) {
                    UNIT_CHECKF(THEMIS_OK == themis_algo_graph_cost(a, &in, &direct)
                                    && direct == tm[a] && tm[a] == table.time[a][k],
                                "%s at %llu bytes", themis_algorithm_get(a)->name,
                                (unsigned long long) bytes);
                    /* between two classes: on the line between their times */
                    themis_time_t lo = table.time[a][k], hi = table.time[a][k + 1];
                    themis_algo_table_at(&table, bytes + (themis_algo_table_class_bytes(k + 1)
                                                          - bytes) / 2, st, tm);
                    UNIT_CHECK(THEMIS_OK == st[a] && tm[a] >= (lo < hi ? lo : hi)
                               && tm[a] <= (lo < hi ? hi : lo));
                }
            }
        }
    }
    for (int a = 0; a < themis_nalgorithms(); ++a) {
        if (NULL != states[a]) {
            themis_algorithm_get(a)->state_free(states[a]);
        }
    }
    themis_graph_free(&g);
}

/* Where the link simulator cannot cost a row at all, the table (and so
 * the component's `auto` line) says why: the simulator's own reason or
 * the row's, not a generic sentence. */
static void test_table_says_why(void)
{
    themis_topology_t t = unit_topology("biring:2:100Gb:1us_biring:2:100Gb:1us");
    themis_graph_t g;
    themis_parse_error_t e;
    themis_algo_table_t table;
    void *states[THEMIS_MAX_ALGORITHMS] = {NULL};
    uint32_t chunks = 4;
    /* rank 0 is a source only: nothing reaches it */
    UNIT_CHECK(THEMIS_OK == themis_graph_parse("nodes 4\n0 1 100Gb 1us\n1 2 100Gb 1us both\n"
                                               "2 3 100Gb 1us both\n", &g, &e));
    themis_algo_input_t in = {.topo = &t, .coll = THEMIS_COLL_ALLREDUCE, .graph = &g,
                              .states = states};
    UNIT_CHECK(THEMIS_OK == themis_algo_table_build(&in, fixed_params, &chunks, &table));
    const int themis = themis_algorithm_index("themis"), tacos = themis_algorithm_index("tacos");
    UNIT_CHECKF(NULL != strstr(table.why[themis], "no route"), "themis: %s", table.why[themis]);
    UNIT_CHECKF(NULL != strstr(table.why[tacos], "no path")
                    && 0 != strncmp(table.why[tacos], "tacos: ", 7),
                "tacos: %s", table.why[tacos]);
    for (int a = 0; a < themis_nalgorithms(); ++a) {
        if (NULL != states[a]) {
            themis_algorithm_get(a)->state_free(states[a]);
        }
    }
    themis_graph_free(&g);
}

/* The cost table's classes through one row cache: rings and torus2d make
 * their list once per chunk count (the cache's lists) and the link
 * simulator runs it once, the other classes replay it, with the times a
 * fresh costing gives. */
static void test_table_keeps_lists(void)
{
    themis_topology_t t = unit_topology("biring:4:100Gb:1us_biring:4:100Gb:1us");
    themis_graph_t g;
    themis_graph_opts_t o;
    themis_parse_error_t e;
    themis_algo_cost_params_t p;
    themis_graph_opts_default(&o);
    UNIT_CHECK(THEMIS_OK == themis_graph_load("torus2d:4x4", &o, &g, &e));
    /* one chunk: the lists of every class are the same */
    themis_algo_cost_params_from_chunks(&p, 1, 2, THEMIS_ORDER_SCF, THEMIS_SCHED_THEMIS);
    const int rows[] = {themis_algorithm_index("rings"), themis_algorithm_index("torus2d")};
    for (int r = 0; r < 2; ++r) {
        themis_algo_rep_cache_t cache;
        memset(&cache, 0, sizeof(cache));
        themis_algo_input_t in = {.topo = &t, .coll = THEMIS_COLL_ALLREDUCE, .params = &p,
                                  .graph = &g};
        for (int k = 3; k < 8; ++k) {
            themis_time_t cached = 0, fresh = 0;
            char why[160];
            in.bytes = themis_algo_table_class_bytes(k);
            UNIT_CHECK(THEMIS_OK == themis_algo_graph_cost_cached(rows[r], &in, &cache, &cached,
                                                                  why, sizeof(why)));
            UNIT_CHECK(THEMIS_OK == themis_algo_graph_cost(rows[r], &in, &fresh));
            UNIT_CHECKF(cached == fresh, "%s at class %d: %llu, fresh %llu",
                        themis_algorithm_get(rows[r])->name, k, (unsigned long long) cached,
                        (unsigned long long) fresh);
        }
        UNIT_CHECKF(1 == cache.xn && 1 == cache.xorder[0].sims && 4 == cache.xorder[0].replays,
                    "%s: %d lists, %llu simulations, %llu replays",
                    themis_algorithm_get(rows[r])->name, cache.xn,
                    (unsigned long long) cache.xorder[0].sims,
                    (unsigned long long) cache.xorder[0].replays);
        themis_algo_rep_cache_free(&cache);
    }
    themis_graph_free(&g);
}

int main(void)
{
    UNIT_RUN(test_rows_well_formed);
    UNIT_RUN(test_substitution);
    UNIT_RUN(test_auto);
    UNIT_RUN(test_build_through_table);
    UNIT_RUN(test_auto_on_graph);
    UNIT_RUN(test_plan_serves_call);
    UNIT_RUN(test_table_says_why);
    UNIT_RUN(test_table_keeps_lists);
    UNIT_EXIT();
}
