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
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "cluster.h"
#include "defaults.h"
#include "graph.h"
#include "themis_plan_cmds.h"
#include "topology.h"

#define MAX_SIZES 64

static void usage(FILE *f)
{
    fprintf(f,
            "usage: themis-plan compare --graph SPEC|FILE [--dims SHAPE] --coll ar|rs|ag\n"
            "                           --bytes S[,S,...] [--elem-size E] [--chunks K]\n"
            "                           [--chunks-in-flight F] [--min-chunk-bytes B]\n"
            "                           [--bw B] [--lat L]\n"
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

static int parse_u64(const char *opt, const char *arg, uint64_t max, uint64_t *v)
{
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(arg, &end, 10);
    if (0 != errno || end == arg || '\0' != *end || '-' == arg[0] || 0 == x || x > max) {
        fprintf(stderr, "themis-plan compare: %s: '%s' is not an integer in 1..%llu\n", opt, arg,
                (unsigned long long) max);
        return EXIT_USAGE;
    }
    *v = x;
    return 0;
}

static int parse_sizes(const char *arg, uint64_t *sizes, int *n)
{
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", arg);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); NULL != tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (*n == MAX_SIZES || THEMIS_OK != themis_parse_size(tok, &sizes[*n]) || 0 == sizes[*n]) {
            fprintf(stderr, "themis-plan compare: --bytes: '%s' is not a size > 0 (at most %d "
                    "sizes)\n", tok, MAX_SIZES);
            return EXIT_USAGE;
        }
        ++*n;
    }
    if (0 == *n) {
        fprintf(stderr, "themis-plan compare: --bytes: no size\n");
        return EXIT_USAGE;
    }
    return 0;
}

/* "AxBxC" (innermost first) into topo's sizes. */
static int parse_dims(const char *arg, themis_topology_t *t)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", arg);
    t->ndims = 0;
    for (char *save = NULL, *tok = strtok_r(buf, "x", &save); NULL != tok;
         tok = strtok_r(NULL, "x", &save)) {
        uint64_t v;
        if (t->ndims == THEMIS_MAX_DIMS || 0 != parse_u64("--dims", tok, UINT32_MAX, &v)) {
            fprintf(stderr, "themis-plan compare: --dims: '%s' is not a shape like 4x4\n", arg);
            return EXIT_USAGE;
        }
        t->dims[t->ndims++].size = (uint32_t) v;
    }
    return 0 == t->ndims ? EXIT_USAGE : 0;
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

int themis_plan_cmd_compare(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"graph", required_argument, NULL, 'g'},
        {"dims", required_argument, NULL, 'd'},
        {"coll", required_argument, NULL, 'c'},
        {"bytes", required_argument, NULL, 'b'},
        {"elem-size", required_argument, NULL, 'e'},
        {"chunks", required_argument, NULL, 'k'},
        {"chunks-in-flight", required_argument, NULL, 'f'},
        {"min-chunk-bytes", required_argument, NULL, 'm'},
        {"bw", required_argument, NULL, 'B'},
        {"lat", required_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *graph_arg = NULL, *dims_arg = NULL;
    themis_coll_t coll = THEMIS_COLL_ALLREDUCE;
    int have_coll = 0, nsizes = 0, rc = 0, ch;
    uint64_t sizes[MAX_SIZES], elem_size = 4, bw = THEMIS_DEFAULT_NODE_BW_BPS;
    themis_time_t lat = THEMIS_DEFAULT_NODE_LAT_PS;
    themis_topology_t topo;
    opts_t o = {.topo = &topo,
                .max_chunks = THEMIS_DEFAULT_CHUNKS,
                .cif = THEMIS_DEFAULT_CHUNKS_IN_FLIGHT,
                .min_chunk = THEMIS_DEFAULT_MIN_CHUNK_NODE};

    memset(&topo, 0, sizeof(topo));
    optind = 1;
    while (0 == rc && -1 != (ch = getopt_long(argc, argv, "h", longopts, NULL))) {
        switch (ch) {
        case 'g':
            graph_arg = optarg;
            break;
        case 'd':
            dims_arg = optarg;
            break;
        case 'c':
            if (THEMIS_OK != themis_coll_parse(optarg, &coll)) {
                fprintf(stderr, "themis-plan compare: --coll: '%s' is not ar, rs or ag\n", optarg);
                rc = EXIT_USAGE;
            }
            have_coll = 1;
            break;
        case 'b':
            rc = parse_sizes(optarg, sizes, &nsizes);
            break;
        case 'e':
            rc = parse_u64("--elem-size", optarg, 64, &elem_size);
            break;
        case 'k':
            rc = parse_u64("--chunks", optarg, THEMIS_PLAN_MAX_CHUNKS, &o.max_chunks);
            break;
        case 'f':
            rc = parse_u64("--chunks-in-flight", optarg, 32, &o.cif);
            break;
        case 'm':
            if (THEMIS_OK != themis_parse_size(optarg, &o.min_chunk) || 0 == o.min_chunk) {
                fprintf(stderr, "themis-plan compare: --min-chunk-bytes: '%s' is not a size > 0\n",
                        optarg);
                rc = EXIT_USAGE;
            }
            break;
        case 'B':
            if (THEMIS_OK != themis_parse_bandwidth(optarg, &bw, NULL) || 0 == bw) {
                fprintf(stderr, "themis-plan compare: --bw: '%s' is not a bandwidth\n", optarg);
                rc = EXIT_USAGE;
            }
            break;
        case 'L':
            if (THEMIS_OK != themis_parse_latency(optarg, &lat, NULL)) {
                fprintf(stderr, "themis-plan compare: --lat: '%s' is not a latency\n", optarg);
                rc = EXIT_USAGE;
            }
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            rc = EXIT_USAGE;
        }
    }
    if (0 != rc) {
        return rc;
    }
    if (NULL == graph_arg || !have_coll || 0 == nsizes || optind < argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    themis_graph_t g;
    themis_graph_opts_t go;
    themis_parse_error_t e;
    themis_graph_opts_default(&go);
    if (THEMIS_OK != themis_graph_load(graph_arg, &go, &g, &e)) {
        fprintf(stderr, "themis-plan compare: --graph %s: %s\n", graph_arg, e.message);
        return EXIT_USAGE;
    }
    if (NULL != dims_arg) {
        rc = parse_dims(dims_arg, &topo);
    } else {
        /* The graph's own: hosts x ranks per host (cluster.h). */
        uint32_t sizes[THEMIS_MAX_DIMS];
        topo.ndims = themis_graph_dims(&g, sizes, NULL, 0);
        for (int i = 0; i < topo.ndims; ++i) {
            topo.dims[i].size = sizes[i];
        }
    }
    themis_dim_algo_t dim_algo[THEMIS_MAX_DIMS];
    for (int i = 0; 0 == rc && i < topo.ndims; ++i) {
        topo.dims[i].kind = THEMIS_DIM_SWITCH;
        topo.dims[i].bw_bps = bw;
        topo.dims[i].step_latency = lat;
        dim_algo[i] = themis_dim_algo_for(THEMIS_DIM_SWITCH, topo.dims[i].size, 8);
    }
    if (0 == rc && themis_topology_npus(&topo) != g.nranks) {
        fprintf(stderr, "themis-plan compare: --dims %s has %" PRIu64 " ranks, the graph %u\n",
                dims_arg, themis_topology_npus(&topo), g.nranks);
        rc = EXIT_USAGE;
    }
    if (0 == rc && NULL != dims_arg) {
        uint32_t sizes[THEMIS_MAX_DIMS];
        char why[256];
        for (int i = 0; i < topo.ndims; ++i) {
            sizes[i] = topo.dims[i].size;
        }
        if (!themis_graph_dims_agree(&g, sizes, topo.ndims, why, sizeof(why))) {
            fprintf(stderr, "themis-plan compare: warning: --%s: the programs are planned for "
                    "these dims, the times simulated on the graph\n", why);
        }
    }
    if (0 == rc && g.nranks > THEMIS_GRAPH_COST_MAX_RANKS) {
        fprintf(stderr, "themis-plan compare: the graph has %u ranks: the component ranks on "
                "graphs of up to %u\n", g.nranks, THEMIS_GRAPH_COST_MAX_RANKS);
        rc = EXIT_USAGE;
    }
    void *states[THEMIS_MAX_ALGORITHMS] = {NULL};
    themis_algo_table_t table;
    memset(&table, 0, sizeof(table));
    for (int i = 0; 0 == rc && i < nsizes; ++i) {
        rc = compare_size(&o, &g, coll, sizes[i], elem_size, dim_algo, &table, states);
    }
    for (int a = 0; a < themis_nalgorithms(); ++a) {
        if (NULL != states[a]) {
            themis_algorithm_get(a)->state_free(states[a]);
        }
    }
    themis_graph_free(&g);
    return rc;
}
