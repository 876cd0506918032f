/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Planner speed: Themis schedule plus SCF intra-dimension order (the
 * simulation) for an allreduce on 1024 NPUs in 4 dimensions, as the
 * component computes it on a plan-cache miss.  Prints the median of
 * repeated runs as planner_ms=X.XXX and whether it is under the 5 ms
 * budget.  A benchmark, not a test: timing depends on the machine.
 *
 * usage: bench_planner [TOPOLOGY [NCHUNKS [BYTES [REPS]]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler.h"
#include "simulator.h"
#include "topology.h"
#include "util.h"

#define BUDGET_MS 5.0

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *spec = (argc > 1) ? argv[1] : "4D-Ring_SW_SW_SW";
    uint32_t nchunks = (argc > 2) ? (uint32_t) strtoul(argv[2], NULL, 10) : 512;
    uint64_t bytes = (argc > 3) ? strtoull(argv[3], NULL, 10) : (1ULL << 30);
    int reps = (argc > 4) ? atoi(argv[4]) : 51;
    themis_topology_t topo;
    themis_parse_error_t perr;

    if (reps < 1 || 0 == nchunks) {
        fprintf(stderr, "usage: %s [TOPOLOGY [NCHUNKS [BYTES [REPS]]]]\n", argv[0]);
        return 2;
    }
    if (THEMIS_OK != themis_topology_parse(spec, &topo, &perr)) {
        fprintf(stderr, "%s: topology %d:%d: %s\n", argv[0], perr.line, perr.column,
                perr.message);
        return 2;
    }
    double *ms = malloc(sizeof(double) * (size_t) reps);
    if (NULL == ms) {
        return 2;
    }
    themis_sched_params_t sp;
    themis_sched_params_init(&sp, THEMIS_COLL_ALLREDUCE, bytes, nchunks, THEMIS_SCHED_THEMIS);
    themis_sim_params_t simp = {.policy = THEMIS_ORDER_SCF, .chunks_in_flight = 1, .record_events = 0};
    uint64_t hash = 0;
    for (int r = 0; r < reps; r++) {
        themis_schedule_t s;
        themis_sim_result_t res;
        double t0 = (themis_now_ns() / 1e6);
        if (THEMIS_OK != themis_schedule_build(&topo, &sp, &s)) {
            fprintf(stderr, "%s: schedule failed\n", argv[0]);
            free(ms);
            return 1;
        }
        if (THEMIS_OK != themis_simulate(&topo, &s, &simp, &res)) {
            fprintf(stderr, "%s: simulation failed\n", argv[0]);
            themis_schedule_free(&s);
            free(ms);
            return 1;
        }
        ms[r] = (themis_now_ns() / 1e6) - t0;
        hash = themis_schedule_hash(&s, &res.order);
        themis_sim_result_free(&res);
        themis_schedule_free(&s);
    }
    qsort(ms, (size_t) reps, sizeof(double), cmp_double);
    double median = ms[reps / 2];
    printf("topology=%s npus=%llu dims=%d chunks=%u bytes=%llu reps=%d hash=%016llx\n", spec,
           (unsigned long long) themis_topology_npus(&topo), topo.ndims, nchunks,
           (unsigned long long) bytes, reps, (unsigned long long) hash);
    printf("planner_ms=%.3f min_ms=%.3f max_ms=%.3f budget_ms=%.1f %s\n", median, ms[0],
           ms[reps - 1], BUDGET_MS, (median < BUDGET_MS) ? "PASS" : "FAIL");
    free(ms);
    return 0;
}
