/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The cost table's row bounds (algorithm.h, themis_algorithm_t.bound):
 * each bound is at most the row's simulated time, and the table built
 * with them chooses what the table built without them (every row at
 * every class) chooses, with the same time, at every size: each class,
 * between classes, below the first and above the last.  Once filled
 * around a size (themis_algo_table_fill, where a chosen row refuses a
 * call), it ranks every row there as the full table does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "chunking.h"
#include "graph.h"
#include "unit.h"

static const themis_topology_t *g_topo;

/* The component's chunking (1024 chunks, 16 KiB at least, 2 in flight). */
static void class_params(void *ctx, uint64_t bytes, themis_algo_cost_params_t *p)
{
    uint32_t n = themis_chunk_count(g_topo, bytes, bytes, 1024, 16384);
    themis_algo_cost_params_from_chunks(p, n, 2, THEMIS_ORDER_SCF, THEMIS_SCHED_THEMIS);
}

static void free_states(void **states)
{
    for (int a = 0; a < themis_nalgorithms(); ++a) {
        if (NULL != states[a]) {
            themis_algorithm_get(a)->state_free(states[a]);
        }
        states[a] = NULL;
    }
}

/* The fastest row at bytes (ties to the lower index), -1 for none. */
static int fastest(const themis_algo_table_t *t, uint64_t bytes, themis_time_t *time)
{
    themis_status_t st[THEMIS_MAX_ALGORITHMS];
    themis_time_t tm[THEMIS_MAX_ALGORITHMS];
    int best = -1;
    themis_algo_table_at(t, bytes, st, tm);
    for (int a = 0; a < themis_nalgorithms(); ++a) {
        if (THEMIS_OK == st[a] && (best < 0 || tm[a] < tm[best])) {
            best = a;
        }
    }
    *time = best < 0 ? 0 : tm[best];
    return best;
}

static void check_loaded(const char *spec, themis_graph_t *gp, const char *dims)
{
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    themis_topology_t t = unit_topology(dims);
    const themis_graph_t g = *gp;
    int skipped = 0;

    g_topo = &t;
    UNIT_CHECKF(0 < t.ndims && themis_topology_npus(&t) == g.nranks, "%s: dims %s", spec, dims);
    for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); ++c) {
        void *full_states[THEMIS_MAX_ALGORITHMS] = {NULL},
             *states[THEMIS_MAX_ALGORITHMS] = {NULL};
        themis_algo_table_t full, bounded;
        themis_algo_input_t in = {
            .topo = &t, .coll = colls[c], .graph = &g, .states = full_states, .no_bounds = 1};
        UNIT_CHECK(THEMIS_OK == themis_algo_table_build(&in, class_params, NULL, &full));
        in.states = states;
        in.no_bounds = 0;
        UNIT_CHECK(THEMIS_OK == themis_algo_table_build(&in, class_params, NULL, &bounded));
        /* every bound below the simulated time, where both exist */
        for (int a = 0; a < themis_nalgorithms(); ++a) {
            for (int k = 0; k < THEMIS_ALGO_TABLE_CLASSES; ++k) {
                skipped += 0 != (bounded.skipped[a] & (1u << k));
                UNIT_CHECKF(!themis_algo_has_bound(a) || THEMIS_OK != full.status[a][k] ||
                                bounded.bound[a][k] <= full.time[a][k],
                            "%s %s: %s's bound %llu ps over its time %llu ps at %llu bytes",
                            spec, themis_coll_name(colls[c]), themis_algorithm_get(a)->name,
                            (unsigned long long) bounded.bound[a][k],
                            (unsigned long long) full.time[a][k],
                            (unsigned long long) themis_algo_table_class_bytes(k));
                UNIT_CHECK(0 != (bounded.skipped[a] & (1u << k)) ||
                           (bounded.status[a][k] == full.status[a][k] &&
                            (THEMIS_OK != full.status[a][k] ||
                             bounded.time[a][k] == full.time[a][k])));
            }
        }
        /* the same choice and time at every size */
        uint64_t sizes[3 * THEMIS_ALGO_TABLE_CLASSES + 8];
        int ns = 0;
        for (int k = 0; k < THEMIS_ALGO_TABLE_CLASSES; ++k) {
            const uint64_t b = themis_algo_table_class_bytes(k);
            sizes[ns++] = b;
            sizes[ns++] = b + 7 * b / 2 + 3; /* between classes, odd */
            sizes[ns++] = b + b / 17;
        }
        const uint64_t odd[] = {
            1, 3, 5, 1000003, (1u << 20) + 1, 2147483647ull, (1ull << 40) + 9, 1ull << 50};
        for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); ++i) {
            sizes[ns++] = odd[i];
        }
        for (int i = 0; i < ns; ++i) {
            themis_time_t tf, tb;
            const int af = fastest(&full, sizes[i], &tf), ab = fastest(&bounded, sizes[i], &tb);
            UNIT_CHECKF(
                af == ab && tf == tb,
                "%s %s at %llu bytes: %s %llu ps with bounds, %s "
                "%llu ps without",
                spec, themis_coll_name(colls[c]), (unsigned long long) sizes[i],
                ab < 0 ? "none" : themis_algorithm_get(ab)->name, (unsigned long long) tb,
                af < 0 ? "none" : themis_algorithm_get(af)->name, (unsigned long long) tf);
        }
        /* calls: every row, forced or auto, ends where it ends with the
         * full table, also where the fastest refuses (the table filled) */
        const uint64_t p = themis_topology_npus(&t);
        const uint64_t elems[] = {1, 7, p - 1, p + 1, 1000, 65537, (1u << 20) + 3};
        for (size_t i = 0; i < sizeof(elems) / sizeof(elems[0]); ++i) {
            uint64_t counts[THEMIS_GRAPH_COST_MAX_RANKS], total = 0;
            themis_plan_request_t req;
            themis_algo_cost_params_t params;
            memset(&req, 0, sizeof(req));
            req.coll = colls[c];
            req.ndims = t.ndims;
            for (int d = 0; d < t.ndims; ++d) {
                req.dim_size[d] = t.dims[d].size;
                req.dim_algo[d] = themis_dim_algo_for(t.dims[d].kind, t.dims[d].size, 8);
            }
            for (uint64_t r = 0; r < p; ++r) {
                counts[r] = elems[i] / p + r % 3;
                total += THEMIS_COLL_REDUCE_SCATTER == colls[c] ? counts[r] : 0;
            }
            total = THEMIS_COLL_REDUCE_SCATTER == colls[c] ? total
                    : THEMIS_COLL_ALLGATHER == colls[c]    ? elems[i] / p * p
                                                           : elems[i];
            req.recvcounts = counts;
            req.count = THEMIS_COLL_ALLGATHER == colls[c] ? elems[i] / p : elems[i];
            req.chunks_in_flight = 2;
            class_params(NULL, total * 4, &params);
            in.params = &params;
            in.bytes = total * 4;
            for (int r = THEMIS_ALGO_AUTO; 0 < total && r < themis_nalgorithms(); ++r) {
                themis_algo_choice_t cf, cb;
                themis_program_t prog;
                themis_algo_input_t fin = in;
                fin.states = full_states;
                const themis_status_t sf =
                    themis_algorithm_plan(r, &fin, &full, class_params, NULL, &req, &cf, &prog);
                themis_program_free(&prog);
                const themis_status_t sb = themis_algorithm_plan(r, &in, &bounded, class_params,
                                                                 NULL, &req, &cb, &prog);
                themis_program_free(&prog);
                UNIT_CHECKF(sf == sb && (THEMIS_OK != sf || cf.index == cb.index),
                            "%s %s of %llu elements, %s: %s with bounds, %s without", spec,
                            themis_coll_name(colls[c]), (unsigned long long) total,
                            r < 0 ? "auto" : themis_algorithm_get(r)->name,
                            themis_algorithm_get(cb.index)->name,
                            themis_algorithm_get(cf.index)->name);
            }
        }
        /* filled around a size: every row ranked as in the full table */
        for (int i = 0; i < ns; ++i) {
            themis_status_t sf[THEMIS_MAX_ALGORITHMS], sb[THEMIS_MAX_ALGORITHMS];
            themis_time_t tf[THEMIS_MAX_ALGORITHMS], tb[THEMIS_MAX_ALGORITHMS];
            in.bytes = sizes[i];
            UNIT_CHECK(THEMIS_OK ==
                       themis_algo_table_fill(&in, class_params, NULL, &bounded, sizes[i]));
            themis_algo_table_at(&full, sizes[i], sf, tf);
            themis_algo_table_at(&bounded, sizes[i], sb, tb);
            for (int a = 0; a < themis_nalgorithms(); ++a) {
                UNIT_CHECKF(sf[a] == sb[a] && (THEMIS_OK != sf[a] || tf[a] == tb[a]),
                            "%s %s filled at %llu bytes: %s differs", spec,
                            themis_coll_name(colls[c]), (unsigned long long) sizes[i],
                            themis_algorithm_get(a)->name);
            }
        }
        free_states(full_states);
        free_states(states);
    }
    printf("  %s (%s): %d row classes not simulated\n", spec, dims, skipped);
}

static void check_graph(const char *spec, const char *dims)
{
    themis_graph_t g;
    themis_graph_opts_t go;
    themis_parse_error_t e;
    themis_graph_opts_default(&go);
    UNIT_CHECKF(THEMIS_OK == themis_graph_load(spec, &go, &g, &e), "%s: %s", spec, e.message);
    check_loaded(spec, &g, dims);
    themis_graph_free(&g);
}

static void test_bounds_keep_choices(void)
{
    check_graph("torus2d:4x4", "sw:4:100Gb:600ns_sw:4:100Gb:600ns");
    check_graph("mesh2d:4x4", "sw:4:100Gb:600ns_sw:4:100Gb:600ns");
    check_graph("torus2d:4x8", "sw:8:100Gb:600ns_sw:4:100Gb:600ns");
    check_graph("mesh3d:2x2x4", "sw:2:100Gb:600ns_sw:2:100Gb:600ns_sw:4:100Gb:600ns");
    check_graph("ring:8", "sw:8:100Gb:600ns");
    check_graph("p3.16xlarge", "sw:4:100Gb:600ns_sw:2:100Gb:600ns");
    check_graph("p3.8xlarge", "sw:4:100Gb:600ns");
    /* dimensions over coll_themis_direct_max: rings and birings */
    check_graph("ring:12", "sw:12:100Gb:600ns");
    check_graph("torus2d:3x12", "sw:12:100Gb:600ns_sw:3:100Gb:600ns");
    check_graph("torus2d:3x12", "biring:12:100Gb:600ns_sw:3:100Gb:600ns");
    /* THEMIS_TEST_LEVEL=full: the 64 ranks benchmarks/auto_setup.sh times */
    const char *level = getenv("THEMIS_TEST_LEVEL");
    if (NULL != level && 0 == strcmp(level, "full")) {
        check_graph("torus2d:8x8", "sw:8:100Gb:600ns_sw:8:100Gb:600ns");
        check_graph("torus2d:8x8", "sw:64:100Gb:600ns");
    }
}

/* A bound the table uses is one the rows' simulated times respect: the
 * planning row's on a graph where its dimensions' groups are not
 * neighbours (a ring numbered by stride 3). */
static void test_bound_on_scattered_ranks(void)
{
    themis_graph_t g;
    themis_parse_error_t e;
    char text[512];
    size_t used = (size_t) snprintf(text, sizeof(text), "nodes 8\n");
    for (int i = 0; i < 8; ++i) {
        used += (size_t) snprintf(text + used, sizeof(text) - used, "%d %d 100Gb 1us both\n",
                                  (3 * i) % 8, (3 * i + 3) % 8);
    }
    UNIT_CHECK(THEMIS_OK == themis_graph_parse(text, &g, &e));
    check_loaded("a ring by stride 3", &g, "sw:8:100Gb:600ns");
    check_loaded("a ring by stride 3", &g, "sw:2:100Gb:600ns_sw:4:100Gb:600ns");
    themis_graph_free(&g);
}

int main(void)
{
    UNIT_RUN(test_bounds_keep_choices);
    UNIT_RUN(test_bound_on_scattered_ranks);
    UNIT_EXIT();
}
