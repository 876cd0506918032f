/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * What `auto` costs on a graph, through the planner path coll/themis runs
 * on a plan-cache miss (coll_themis_plan_cache.c): the communicator's cost
 * table built once (setup: every row at every size class, with fresh row
 * states, as a new communicator), then the first call (BYTES' first: the
 * lookup and this rank's first program of the chosen row, which may
 * prepare what later programs share) and each new message size (the
 * others: the lookup and this rank's program).  Built with -DBENCH_BASELINE
 * against the planners of an older tree (benchmarks/auto_setup.sh), it
 * times that tree's miss instead: themis_algorithm_choose costing every
 * row at the call's size without row states, then the chosen row's
 * build; with -DBENCH_PLAIN, against planners without periodic programs
 * (program_runs.h).  Process CPU time (the machine is shared: wall time would
 * count other jobs), medians of REPS runs; a benchmark, not a test.
 *
 * usage: bench_auto GRAPH ROWSxCOLS COLL BYTES[,BYTES...] [REPS]
 *   (allreduce|reduce_scatter|allgather; 4-byte elements; one node's
 *   rates, switch dimensions, 1024 chunks, 2 in flight, 16 KiB chunks at
 *   least: the component's defaults across nodes)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithm.h"
#include "chunking.h"
#include "graph.h"

#define MAX_SIZES 32
#define MAX_CHUNKS 1024u
#define CIF 2u
#define MIN_CHUNK (16u * 1024u)

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof(double), cmp_double);
    return v[n / 2];
}

static const themis_topology_t *g_topo;

static void params_for(uint64_t bytes, uint64_t elems, themis_algo_cost_params_t *p)
{
    uint32_t n = themis_chunk_count(g_topo, bytes, elems, MAX_CHUNKS, MIN_CHUNK);
    themis_algo_cost_params_from_chunks(p, n, CIF, THEMIS_ORDER_SCF, THEMIS_SCHED_THEMIS);
}

#ifndef BENCH_BASELINE
static void class_params(void *ctx, uint64_t bytes, themis_algo_cost_params_t *p)
{
    params_for(bytes, bytes, p);
}
#endif

static void free_states(void **states)
{
    for (int a = 0; a < themis_nalgorithms(); ++a) {
        if (NULL != states[a] && NULL != themis_algorithm_get(a)->state_free) {
            themis_algorithm_get(a)->state_free(states[a]);
        }
        states[a] = NULL;
    }
}

int main(int argc, char **argv)
{
    themis_graph_t g;
    themis_graph_opts_t go;
    themis_parse_error_t e;
    themis_topology_t t;
    themis_coll_t coll;
    uint64_t sizes[MAX_SIZES];
    int nsizes = 0, reps = argc > 5 ? atoi(argv[5]) : 5;
    unsigned rows = 0, cols = 0;

    if (argc < 5 || 2 != sscanf(argv[2], "%ux%u", &cols, &rows) || reps < 1
        || THEMIS_OK != themis_coll_parse(argv[3], &coll)) {
        fprintf(stderr, "usage: %s GRAPH COLSxROWS COLL BYTES[,BYTES...] [REPS]\n", argv[0]);
        return 2;
    }
    /* themis-plan's size syntax (64K, 16M, 4MiB, 1.5MB), one parser */
    for (char *save = NULL, *tok = strtok_r(argv[4], ",", &save); NULL != tok && nsizes < MAX_SIZES;
         tok = strtok_r(NULL, ",", &save)) {
        if (THEMIS_OK != themis_parse_size(tok, &sizes[nsizes++])) {
            fprintf(stderr, "%s: '%s' is not a size (e.g. 65536, 64K, 4MiB)\n", argv[0], tok);
            return 2;
        }
    }
    themis_graph_opts_default(&go);
    if (THEMIS_OK != themis_graph_load(argv[1], &go, &g, &e)) {
        fprintf(stderr, "%s: graph %s: %s\n", argv[0], argv[1], e.message);
        return 2;
    }
    memset(&t, 0, sizeof(t));
    t.ndims = 2;
    themis_dim_algo_t da[2];
    for (int i = 0; i < 2; ++i) {
        t.dims[i].size = 0 == i ? cols : rows;
        t.dims[i].kind = THEMIS_DIM_SWITCH;
        t.dims[i].bw_bps = THEMIS_DEFAULT_NODE_BW_BPS;
        t.dims[i].step_latency = THEMIS_DEFAULT_NODE_LAT_PS;
        da[i] = themis_dim_algo_for(THEMIS_DIM_SWITCH, t.dims[i].size, 8);
    }
    g_topo = &t;
    const uint64_t p = themis_topology_npus(&t);
    if (p != g.nnodes) {
        fprintf(stderr, "%s: %llu ranks, the graph %u nodes\n", argv[0], (unsigned long long) p,
                g.nnodes);
        return 2;
    }
    uint64_t *counts = calloc(p, sizeof(uint64_t));
    double *setup = calloc((size_t) reps, sizeof(double));
    double *per_size = calloc((size_t) reps * (size_t) nsizes, sizeof(double));
    if (NULL == counts || NULL == setup || NULL == per_size) {
        return 1;
    }
    for (int r = 0; r < reps; ++r) {
        void *states[THEMIS_MAX_ALGORITHMS] = {NULL};
        themis_algo_cost_params_t params;
        themis_algo_input_t in = {.topo = &t, .coll = coll, .params = &params, .graph = &g,
                                  .dim_algo = da};
#ifndef BENCH_BASELINE
        themis_algo_table_t table;
        in.states = states;
        double t0 = now_ms();
        if (THEMIS_OK != themis_algo_table_build(&in, class_params, NULL, &table)) {
            fprintf(stderr, "%s: the cost table failed\n", argv[0]);
            return 1;
        }
        setup[r] = now_ms() - t0;
#endif
        for (int i = 0; i < nsizes; ++i) {
            uint64_t elems = sizes[i] / 4;
            themis_plan_request_t req;
            themis_algo_choice_t ch;
            themis_program_t prog;
            memset(&req, 0, sizeof(req));
            req.coll = coll;
            req.ndims = 2;
            for (int d = 0; d < 2; ++d) {
                req.dim_size[d] = t.dims[d].size;
                req.dim_algo[d] = da[d];
            }
            for (uint64_t k = 0; k < p; ++k) {
                counts[k] = elems / p;
            }
            req.recvcounts = counts;
            req.count = THEMIS_COLL_REDUCE_SCATTER == coll ? 0
                        : THEMIS_COLL_ALLGATHER == coll    ? elems / p
                                                           : elems;
            req.chunks_in_flight = CIF;
#if !defined(BENCH_BASELINE) && !defined(BENCH_PLAIN)
            /* as the component asks: runs of repeated slots kept once */
            req.periodic = 1;
#endif
            params_for(sizes[i], elems, &params);
            in.bytes = sizes[i];
#ifdef BENCH_BASELINE
            in.elems = elems;   /* c7233bc's tacos applied only where units divided it */
#endif
            double t0 = now_ms();
#ifdef BENCH_BASELINE
            /* c7233bc's miss: every row costed at this size without row
             * states, then the chosen row built with its state */
            themis_status_t st = themis_algorithm_choose(THEMIS_ALGO_AUTO, &in, &ch);
            if (THEMIS_OK == st) {
                in.state = &states[ch.index];
                st = themis_algorithm_get(ch.index)->build(&in, &req, &prog);
                in.state = NULL;
            }
#else
            themis_status_t st = themis_algorithm_plan(THEMIS_ALGO_AUTO, &in, &table, class_params,
                                                       NULL, &req, &ch, &prog);
#endif
            per_size[(size_t) i * (size_t) reps + (size_t) r] = now_ms() - t0;
            if (THEMIS_OK == st) {
                themis_program_free(&prog);
            }
            if (0 == r) {
                printf("%s of %llu bytes -> %s%s\n", themis_coll_name(coll),
                       (unsigned long long) sizes[i], themis_algorithm_get(ch.index)->name,
                       THEMIS_OK == st ? "" : " (refused: the call falls back)");
            }
        }
        free_states(states);
    }
#ifndef BENCH_BASELINE
    printf("setup_ms=%.3f\n", median(setup, reps));
#endif
    for (int i = 0; i < nsizes; ++i) {
        printf("%s_ms[%llu]=%.3f\n",
#ifdef BENCH_BASELINE
               "miss",
#else
               0 == i ? "first_call" : "new_size",
#endif
               (unsigned long long) sizes[i], median(&per_size[(size_t) i * (size_t) reps], reps));
    }
    free(counts);
    free(setup);
    free(per_size);
    themis_graph_free(&g);
    return 0;
}
