/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * `themis-plan compare --graph SPEC|FILE [--dims SHAPE] --coll ar|rs|ag
 * --bytes S[,S,...]`: what coll/themis' `auto` sees on a communicator of
 * the graph's size: every row's predicted time per size (the cost table,
 * algorithm.h, as the component builds it), or why the row cannot serve a
 * call of that size, and the row `auto` runs.  It runs the component's
 * own planner path (themis_algo_call_params, themis_algo_table_build,
 * themis_algorithm_plan for rank 0), so its choice and numbers are the
 * component's with the same parameters (tests/mpi/run_cli.sh compares
 * them with a verbose 10 run).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "cluster.h"
#include "defaults.h"
#include "graph.h"
#include "themis_plan_args.h"
#include "themis_plan_cmds.h"
#include "topology.h"

static void about(FILE *f)
{
    fprintf(f,
            "  Every algorithm's predicted time on the graph (the link-level simulator, as\n"
            "  coll/themis' auto with coll_themis_graph) for a call of S bytes (the whole\n"
            "  vector: allreduce vector, reduce-scatter input, allgather output), or why it\n"
            "  cannot serve that call, and the algorithm auto runs; the 'auto:' line is the\n"
            "  one the component logs at coll_themis_verbose 10.  The communicator has one\n"
            "  rank per rank node of the graph, shaped SHAPE (coll_themis_dims, innermost\n"
            "  first, e.g. 4x4; default: the graph's, ranks per host x hosts, else one\n"
            "  dimension; a SHAPE that disagrees is warned about), switch dimensions at B\n"
            "  and L (defaults: one\n"
            "  node's, 100Gb and 600ns, as coll_themis_dim_bandwidths/latencies).  E:\n"
            "  bytes per element (default 4; allgather plans bytes, as the component);\n"
            "  reduce-scatter blocks are S / E / ranks elements, the first ranks one more\n"
            "  where that does not divide.  K, F, B: coll_themis_chunks (default 1024),\n"
            "  coll_themis_chunks_in_flight (2), coll_themis_min_chunk_bytes (default\n"
            "  2MiB, one node's automatic value).\n");
}

typedef struct {
    const themis_topology_t *topo;
    uint64_t max_chunks, cif, min_chunk;
} opts_t;

/* The component's decision without a rules file: its parameters. */
static void class_params(void *ctx, uint64_t bytes, themis_algo_cost_params_t *params)
{
    const opts_t *o = ctx;
    themis_algo_call_params(o->topo, bytes, bytes, (uint32_t) o->max_chunks, o->min_chunk,
                            (uint32_t) o->cif, THEMIS_ORDER_SCF, THEMIS_SCHED_THEMIS,
                            THEMIS_LATENCY_OVERLAPPED, params, NULL);
}

/* One size: the request of rank 0 and the choice. */
static int compare_size(const opts_t *o, const themis_graph_t *g, themis_coll_t coll,
                        uint64_t bytes, uint64_t elem_size, const themis_dim_algo_t *dim_algo,
                        themis_algo_table_t *table, void **states)
{
    const themis_topology_t *t = o->topo;
    const uint64_t p = themis_topology_npus(t);
    uint64_t *counts = calloc(p, sizeof(uint64_t));
    uint64_t elems = bytes / elem_size, total = elems;
    themis_plan_request_t req;
    themis_algo_cost_params_t params;
    themis_algo_choice_t ch, forced;
    themis_program_t prog;
    char line[1400];

    if (NULL == counts) {
        return EXIT_RUNTIME;
    }
    if (THEMIS_COLL_ALLGATHER == coll) {
        elems = total = bytes / p * p;   /* bytes, whole blocks */
    }
    memset(&req, 0, sizeof(req));
    req.coll = coll;
    req.ndims = t->ndims;
    for (int i = 0; i < t->ndims; ++i) {
        req.dim_size[i] = t->dims[i].size;
        req.dim_algo[i] = dim_algo[i];
    }
    for (uint64_t r = 0; r < p; ++r) {
        counts[r] = elems / p + (r < elems % p ? 1 : 0);
    }
    req.rank = 0;
    req.recvcounts = counts;
    req.count = THEMIS_COLL_REDUCE_SCATTER == coll ? 0
                : THEMIS_COLL_ALLGATHER == coll    ? elems / p
                                                   : elems;
    req.chunks_in_flight = (uint32_t) o->cif;
    if (0 == total) {
        printf("%s of %" PRIu64 " bytes: no elements\n", themis_coll_name(coll), bytes);
        free(counts);
        return 0;
    }
    const uint64_t call_bytes = THEMIS_COLL_ALLGATHER == coll ? total : total * elem_size;
    themis_algo_call_params(t, call_bytes, total, (uint32_t) o->max_chunks, o->min_chunk,
                            (uint32_t) o->cif, THEMIS_ORDER_SCF, THEMIS_SCHED_THEMIS,
                            THEMIS_LATENCY_OVERLAPPED, &params, NULL);
    themis_algo_input_t in = {.topo = t, .coll = coll, .bytes = call_bytes, .params = &params,
                              .graph = g, .dim_algo = dim_algo,
                              .states = states};
    themis_status_t st = themis_algorithm_plan(THEMIS_ALGO_AUTO, &in, table, class_params,
                                               (void *) o, &req, &ch, &prog);
    themis_program_free(&prog);
    if (THEMIS_ERR_NOMEM == st || THEMIS_ERR_INVALID == st) {
        fprintf(stderr, "themis-plan compare: %s\n", themis_status_string(st));
        free(counts);
        return EXIT_RUNTIME;
    }
    printf("%s of %" PRIu64 " bytes (%" PRIu64 " elements of %" PRIu64 " bytes) on %" PRIu64
           " ranks:\n", themis_coll_name(coll), call_bytes, total,
           THEMIS_COLL_ALLGATHER == coll ? (uint64_t) 1 : elem_size, p);
    for (int a = 0; a < themis_nalgorithms(); ++a) {
        const char *name = themis_algorithm_get(a)->name;
        /* Whether the row serves this call: forced, as coll_themis_<coll>_algorithm. */
        themis_status_t fs = themis_algorithm_plan(a, &in, NULL, NULL, NULL, &req, &forced,
                                                   &prog);
        themis_program_free(&prog);
        const int serves = THEMIS_OK == fs && !forced.substituted;
        if (THEMIS_OK == ch.status[a]) {
            printf("  %-10s %14.3f us%s%s\n", name, (double) ch.time[a] / 1e6,
                   serves ? "" : "  cannot serve: ", serves ? "" : forced.reason[a]);
        } else {
            printf("  %-10s %17s  %s\n", name, "-",
                   '\0' != forced.reason[a][0] ? forced.reason[a]
                   : '\0' != ch.reason[a][0]   ? ch.reason[a]
                   : table->built && '\0' != table->why[a][0] ? table->why[a]
                                                              : "not costed");
        }
    }
    if (THEMIS_OK == st) {
        themis_algo_choice_line(coll, call_bytes, total, table, &ch, 1, line, sizeof(line));
        printf("%s\n", line);
    } else {
        char rows[1024];
        themis_algo_choice_rows(table, &ch, rows, sizeof(rows));
        printf("auto: %s of %" PRIu64 " bytes (%" PRIu64 " elements) -> previous component (no "
               "algorithm can serve it: %s)\n", themis_coll_name(coll), call_bytes, total, rows);
    }
    free(counts);
    return 0;
}

static const themis_plan_cmd_spec_t compare_cmd = {
    .name = "compare", .synopsis = "", .about_fn = about, .lists = "bytes count"};

int themis_plan_cmd_compare(int argc, char **argv)
{
    themis_plan_args_t a;
    int rc = 0;
    uint64_t elem_size = 4, bw = THEMIS_DEFAULT_NODE_BW_BPS;
    themis_time_t lat = THEMIS_DEFAULT_NODE_LAT_PS;
    themis_topology_t topo;
    opts_t o = {.topo = &topo,
                .max_chunks = THEMIS_DEFAULT_CHUNKS,
                .cif = THEMIS_DEFAULT_CHUNKS_IN_FLIGHT,
                .min_chunk = THEMIS_DEFAULT_MIN_CHUNK_NODE};

    memset(&topo, 0, sizeof(topo));
    if (0 != themis_plan_args_parse(&compare_cmd, argc, argv, &a, &rc)) {
        return rc;
    }
    if (!THEMIS_PLAN_GIVEN(&a, TPO_GRAPH) || !THEMIS_PLAN_GIVEN(&a, TPO_COLL)
        || 0 == a.nbytes) {
        fprintf(stderr, "themis-plan compare: --graph, --coll and --bytes (or --count) are "
                "required (try --help)\n");
        return EXIT_USAGE;
    }
    /* --bw and --lat are the dimensions' rates here (the times are the
     * graph's own links): the graph loads with its defaults. */
    bw = THEMIS_PLAN_GIVEN(&a, TPO_BW) ? a.num[TPO_BW] : bw;
    lat = THEMIS_PLAN_GIVEN(&a, TPO_LAT) ? a.num[TPO_LAT] : lat;
    themis_graph_opts_default(&a.graph_opts);
    elem_size = THEMIS_PLAN_GIVEN(&a, TPO_ELEM_SIZE) ? a.num[TPO_ELEM_SIZE] : elem_size;
    o.max_chunks = THEMIS_PLAN_GIVEN(&a, TPO_CHUNKS) ? a.num[TPO_CHUNKS] : o.max_chunks;
    o.cif = THEMIS_PLAN_GIVEN(&a, TPO_CHUNKS_IN_FLIGHT) ? a.num[TPO_CHUNKS_IN_FLIGHT] : o.cif;
    o.min_chunk = THEMIS_PLAN_GIVEN(&a, TPO_MIN_CHUNK_BYTES) ? a.num[TPO_MIN_CHUNK_BYTES]
                                                             : o.min_chunk;
    themis_graph_t g;
    uint32_t sizes[THEMIS_MAX_DIMS];
    if (0 != (rc = themis_plan_args_network(&a, a.text[TPO_GRAPH], &g, sizes, &topo.ndims))) {
        return rc;
    }
    themis_dim_algo_t dim_algo[THEMIS_MAX_DIMS];
    for (int i = 0; i < topo.ndims; ++i) {
        topo.dims[i].size = sizes[i];
        topo.dims[i].kind = THEMIS_DIM_SWITCH;
        topo.dims[i].bw_bps = bw;
        topo.dims[i].step_latency = lat;
        dim_algo[i] = themis_dim_algo_for(THEMIS_DIM_SWITCH, topo.dims[i].size, 8);
    }
    if (0 == rc && g.nranks > THEMIS_GRAPH_COST_MAX_RANKS) {
        fprintf(stderr, "themis-plan compare: the graph has %u ranks: the component ranks on "
                "graphs of up to %u\n", g.nranks, THEMIS_GRAPH_COST_MAX_RANKS);
        rc = EXIT_USAGE;
    }
    void *states[THEMIS_MAX_ALGORITHMS] = {NULL};
    themis_algo_table_t table;
    memset(&table, 0, sizeof(table));
    for (int i = 0; 0 == rc && i < a.nbytes; ++i) {
        rc = compare_size(&o, &g, a.coll, a.bytes[i], elem_size, dim_algo, &table, states);
    }
    for (int a = 0; a < themis_nalgorithms(); ++a) {
        if (NULL != states[a]) {
            themis_algorithm_get(a)->state_free(states[a]);
        }
    }
    themis_graph_free(&g);
    return rc;
}
