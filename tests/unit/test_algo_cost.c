/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Cost model of Themis / rings / torus2d (algo_cost.h): latency terms
 * match the step counts, bandwidth terms the per-link bytes, torus2d wins
 * small sizes, rings win large ones on a non-square torus, and the
 * choice follows the times.
 */
#include <stdio.h>
#include <string.h>

#include "algorithm.h"
#include "topology.h"
#include "unit.h"

#define ALGO(name) themis_algorithm_index(name)
/* Rows that need what these tests do not give: a user's schedule, a graph
 * (tacos weighs in only under the link simulator). */
#define NEEDS_INPUT(a) (ALGO("schedule") == (a) || ALGO("treepack") == (a) || ALGO("tacos") == (a))

static themis_time_t cost_mode(const themis_topology_t *t, int a, uint64_t bytes,
                               uint32_t chunks_in_flight, themis_latency_mode_t latency)
{
    themis_algo_cost_params_t p;
    themis_algo_cost_params_init(&p);
    p.chunks_in_flight = chunks_in_flight;
    p.latency = latency;
    themis_time_t time = 0;
    themis_status_t st = themis_algo_cost(t, a, THEMIS_COLL_ALLREDUCE, bytes, &p, &time);
    UNIT_CHECKF(THEMIS_OK == st, "%s: %s", themis_algorithm_get(a)->name, themis_status_string(st));
    return time;
}

static themis_time_t cost_inflight(const themis_topology_t *t, int a, uint64_t bytes,
                                   uint32_t chunks_in_flight)
{
    return cost_mode(t, a, bytes, chunks_in_flight, THEMIS_LATENCY_OVERLAPPED);
}

static themis_time_t cost(const themis_topology_t *t, int a, uint64_t bytes)
{
    return cost_inflight(t, a, bytes, 1);
}

static int near(double a, double b, double rel)
{
    double d = a - b;
    return (d < 0 ? -d : d) <= rel * (b < 0 ? -b : b);
}

/* 1 byte: only step latencies count.  torus2d's two + direction quarters
 * share the + link queue of each dimension; with one phase in flight and
 * serialized latency the quarter that reaches the longer dimension second
 * waits (non-square tori); with two, or with overlapped latency (a delay
 * holds no slot), they overlap. */
static void test_latency_terms(void)
{
    themis_topology_t t = unit_topology("biring:16:800Gb:500ns_biring:8:800Gb:500ns");
    themis_topology_t sq = unit_topology("biring:8:800Gb:500ns_biring:8:800Gb:500ns");
    uint32_t r = 8, c = 16;
    double step = 500e3; /* ps */
    UNIT_CHECK(near((double)cost(&t, ALGO("rings"), 1), 2.0 * (r * c - 1) * step, 0.01));
    UNIT_CHECK(near((double)cost(&sq, ALGO("rings"), 1), 2.0 * (8 * 8 - 1) * step, 0.01));
    UNIT_CHECK(near((double)cost(&sq, ALGO("torus2d"), 1), 4.0 * (8 - 1) * step, 0.01));
    UNIT_CHECK(near((double)cost_inflight(&t, ALGO("torus2d"), 1, 2),
                    2.0 * (r - 1 + c - 1) * step, 0.01));
    UNIT_CHECK(near((double)cost(&t, ALGO("torus2d"), 1), 2.0 * (r - 1 + c - 1) * step, 0.01));
    UNIT_CHECK(cost_mode(&t, ALGO("torus2d"), 1, 1, THEMIS_LATENCY_SERIALIZED) >
               cost_mode(&t, ALGO("torus2d"), 1, 2, THEMIS_LATENCY_SERIALIZED));
    UNIT_CHECK(near((double)cost_mode(&t, ALGO("torus2d"), 1, 2, THEMIS_LATENCY_SERIALIZED),
                    2.0 * (r - 1 + c - 1) * step, 0.01));
}

/* Growth of the time between two large sizes = bytes per link / link rate. */
static void test_bandwidth_terms(void)
{
    static const uint32_t dims[][2] = {{16, 16}, {4, 64}};
    for (int i = 0; i < 2; i++) {
        char spec[128];
        uint32_t c = dims[i][0], r = dims[i][1];
        snprintf(spec, sizeof(spec), "biring:%u:800Gb:1us_biring:%u:800Gb:1us", c, r);
        themis_topology_t t = unit_topology(spec);
        uint64_t s1 = 1ULL << 30, s2 = 1ULL << 32;
        double link = 400e9 / 8 / 1e12; /* bytes per ps */
        double ds = (double)(s2 - s1), p = (double)r * c;
        double rings = (double)(cost(&t, ALGO("rings"), s2) - cost(&t, ALGO("rings"), s1));
        UNIT_CHECKF(near(rings, ds / 2 * (1 - 1 / p) / link, 0.01), "%ux%u rings %.0f", c, r,
                    rings);
        double t2d = (double)(cost(&t, ALGO("torus2d"), s2) -
                              cost(&t, ALGO("torus2d"), s1));
        if (r == c) { /* square: exactly the rings' bytes per link */
            UNIT_CHECKF(near(t2d, rings, 0.01), "%ux%u torus2d %.0f rings %.0f", c, r, t2d,
                        rings);
        } else { /* the long dimension's links carry more */
            double busiest = ds / 2 * (1 - 1.0 / r) * (1 + 1.0 / c) / link;
            UNIT_CHECKF(t2d >= busiest * 0.99, "%ux%u torus2d %.0f < %.0f", c, r, t2d, busiest);
        }
    }
}

/* Serialized latency: torus2d best at small sizes, rings at large ones on
 * a skewed torus; the choice follows the times.  (Overlapped, Themis's 64
 * chunks hide their delays behind each other's bytes, which puts it level
 * with torus2d at 1 MiB: the choice still follows the times, and rings
 * still win 2 GiB.) */
static void test_crossover(void)
{
    themis_topology_t t = unit_topology("biring:4:800Gb:500ns_biring:64:800Gb:500ns");
    themis_algo_cost_params_t p;
    themis_algo_cost_params_init(&p);
    themis_algo_costs_t small, large;
    UNIT_CHECK(THEMIS_OK == themis_algo_costs(&t, THEMIS_COLL_ALLREDUCE, 1ULL << 31, &p, &large));
    UNIT_CHECKF(ALGO("rings") == large.best, "overlapped 2 GiB: %s",
                themis_algorithm_get(large.best)->name);
    UNIT_CHECK(THEMIS_OK == themis_algo_costs(&t, THEMIS_COLL_ALLREDUCE, 1 << 20, &p, &small));
    for (int a = 0; a < themis_nalgorithms(); a++) {
        UNIT_CHECK(NEEDS_INPUT(a) ||
                   (THEMIS_OK == small.status[a] && small.time[small.best] <= small.time[a]));
    }
    p.latency = THEMIS_LATENCY_SERIALIZED;
    UNIT_CHECK(THEMIS_OK == themis_algo_costs(&t, THEMIS_COLL_ALLREDUCE, 1 << 20, &p, &small));
    UNIT_CHECK(THEMIS_OK == themis_algo_costs(&t, THEMIS_COLL_ALLREDUCE, 1ULL << 31, &p, &large));
    UNIT_CHECKF(ALGO("torus2d") == small.best, "1 MiB: %s", themis_algorithm_get(small.best)->name);
    UNIT_CHECKF(ALGO("rings") == large.best, "2 GiB: %s", themis_algorithm_get(large.best)->name);
    /* schedule needs a user's schedule: not costed without one. */
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED == small.status[ALGO("schedule")]);
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED == small.status[ALGO("tacos")]);
    for (int a = 0; a < themis_nalgorithms(); a++) {
        if (NEEDS_INPUT(a)) {
            continue;
        }
        UNIT_CHECK(THEMIS_OK == small.status[a] && small.time[small.best] <= small.time[a]);
        UNIT_CHECK(THEMIS_OK == large.status[a] && large.time[large.best] <= large.time[a]);
    }
}

static void test_other_collectives(void)
{
    themis_topology_t t = unit_topology("biring:8:800Gb:1us_biring:8:800Gb:1us");
    themis_algo_cost_params_t p;
    themis_algo_cost_params_init(&p);
    themis_coll_t colls[2] = {THEMIS_COLL_REDUCE_SCATTER, THEMIS_COLL_ALLGATHER};
    for (int i = 0; i < 2; i++) {
        themis_algo_costs_t rs, ar;
        UNIT_CHECK(THEMIS_OK == themis_algo_costs(&t, colls[i], 1 << 24, &p, &rs));
        UNIT_CHECK(THEMIS_OK == themis_algo_costs(&t, THEMIS_COLL_ALLREDUCE, 1 << 24, &p, &ar));
        for (int a = 0; a < themis_nalgorithms(); a++) { /* half an allreduce, give or take */
            UNIT_CHECK(NEEDS_INPUT(a) || (rs.time[a] < ar.time[a] && 2 * rs.time[a] > ar.time[a] * 9 / 10));
        }
    }
}

static void test_unsupported_and_invalid(void)
{
    themis_algo_cost_params_t p;
    themis_algo_cost_params_init(&p);
    themis_time_t time;
    themis_topology_t t2 = unit_topology("biring:2:800Gb:1us_biring:8:800Gb:1us");
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED ==
               themis_algo_cost(&t2, ALGO("rings"), THEMIS_COLL_ALLREDUCE, 4096, &p, &time));
    UNIT_CHECK(THEMIS_OK ==
               themis_algo_cost(&t2, ALGO("torus2d"), THEMIS_COLL_ALLREDUCE, 4096, &p, &time));
    themis_topology_t uni = unit_topology("ring:4:800Gb:1us_ring:4:800Gb:1us");
    themis_algo_costs_t all;
    UNIT_CHECK(THEMIS_OK == themis_algo_costs(&uni, THEMIS_COLL_ALLREDUCE, 4096, &p, &all));
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED == all.status[ALGO("rings")] &&
               THEMIS_ERR_UNSUPPORTED == all.status[ALGO("torus2d")] &&
               ALGO("themis") == all.best);
    /* Themis runs on any shape; the torus rows need two dimensions. */
    themis_topology_t t3 = unit_topology("biring:4:800Gb:1us_biring:4:800Gb:1us_biring:4:800Gb:1us");
    UNIT_CHECK(THEMIS_OK ==
               themis_algo_cost(&t3, ALGO("themis"), THEMIS_COLL_ALLREDUCE, 4096, &p, &time));
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED ==
               themis_algo_cost(&t3, ALGO("torus2d"), THEMIS_COLL_ALLREDUCE, 4096, &p, &time));
    UNIT_CHECK(THEMIS_ERR_INVALID ==
               themis_algo_cost(&t2, ALGO("themis"), THEMIS_COLL_ALLREDUCE, 0, &p, &time));
    UNIT_CHECK(THEMIS_ERR_INVALID ==
               themis_algo_cost(&t2, themis_nalgorithms(), THEMIS_COLL_ALLREDUCE, 4096, &p, &time));
    UNIT_CHECK(ALGO("torus2d") >= 0 && -1 == themis_algorithm_index("ring"));
}

int main(void)
{
    UNIT_RUN(test_latency_terms);
    UNIT_RUN(test_bandwidth_terms);
    UNIT_RUN(test_crossover);
    UNIT_RUN(test_other_collectives);
    UNIT_RUN(test_unsupported_and_invalid);
    UNIT_EXIT();
}
