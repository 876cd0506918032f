/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * One option table for the subcommands that take a graph, a transfer
 * schedule or an algorithm's programs (graph, xfer, compare, synth, bed,
 * msccl, treepack, export), and the one parser they share
 * (tools/themis_plan_args.c).  An option is a row: its name, the kind of
 * its argument (checked and converted here, one rule per kind), its help
 * line and the subcommands that take it; --help is generated from the rows.
 * Every subcommand that takes a network takes --graph SPEC|FILE and
 * --dims SHAPE; every one that takes a size takes --bytes S[,S...] and
 * --count N[,N...] (elements of --elem-size bytes, default 4).
 */
#ifndef THEMIS_PLAN_ARGS_H
#define THEMIS_PLAN_ARGS_H

#include <stdint.h>
#include <stdio.h>

#include "graph.h"
#include "themis_types.h"

#define THEMIS_PLAN_ARGS_MAX_SIZES 64

/* The rows of the table (tools/themis_plan_args.c), in --help order. */
typedef enum {
    TPO_GRAPH,
    TPO_TOPO,
    TPO_TOPO_FILE,
    TPO_DIMS,
    TPO_DIM_BW,
    TPO_DIM_LAT,
    TPO_DIM_KINDS,
    TPO_BW,
    TPO_LAT,
    TPO_DEGREE,
    TPO_COLL,
    TPO_BYTES,
    TPO_COUNT,
    TPO_ELEM_SIZE,
    TPO_COMM_SIZE,
    TPO_ALGORITHM,
    TPO_CHUNKS,
    TPO_CHUNKS_PER_NPU,
    TPO_TORUS_CHUNKS,
    TPO_CHUNKS_IN_FLIGHT,
    TPO_MIN_CHUNK,
    TPO_MIN_CHUNK_BYTES,
    TPO_SCHEDULER,
    TPO_ORDER,
    TPO_THRESHOLD,
    TPO_LATENCY,
    TPO_LOAD,
    TPO_XFER,
    TPO_XY,
    TPO_DUPLEX,
    TPO_SPINES,
    TPO_SEED,
    TPO_SEEDS,
    TPO_ILP,
    TPO_TIME_LIMIT,
    TPO_ILP_CLUSTER,
    TPO_METHOD,
    TPO_TREES,
    TPO_SCALE,
    TPO_BUDGET,
    TPO_DIM_ROUTES,
    TPO_PACKET,
    TPO_LIST,
    TPO_SWEEP,
    TPO_COSTS,
    TPO_NAMES,
    TPO_MARKDOWN,
    TPO_CLOS,
    TPO_HOSTS_PER_TOR,
    TPO_PAIRS,
    TPO_RING,
    TPO_SCHEDULE,
    TPO_HOSTS,
    TPO_TOR_AWARE,
    TPO_FAILED_SPINES,
    TPO_FAILED_LINKS,
    TPO_ALGO,
    TPO_DRAWS,
    TPO_THREADS,
    TPO_SEARCH_STEPS,
    TPO_TRACE,
    TPO_CALL,
    TPO_GRAPH_OUT,
    TPO_WRITE_GRAPH,
    TPO_MSCCL,
    TPO_OUT,
    TPO_EXPORT,
    TPO_JSON,
    TPO_CSV,
    TPO_PNG,
    TPO_ROUTES,
    TPO_HELP,
    TPO_N
} themis_plan_opt_id_t;

/* A subcommand: its name as the table's rows list it, what follows
 * "usage: themis-plan NAME" (positional arguments), and what --help says
 * before the options. */
typedef struct themis_plan_cmd_spec {
    const char *name;
    const char *synopsis;
    const char *about;
    void (*about_fn)(FILE *f); /* instead of about, where it prints numbers */
    const char *lists;         /* options taking several values here, e.g. "bytes count" */
    int zero_bytes;            /* --bytes 0 is a size here (a rule's range) */
    int min_pos, max_pos;      /* positional arguments it takes */
} themis_plan_cmd_spec_t;

/* What a subcommand's command line said. */
typedef struct themis_plan_args {
    const char *cmd; /* the subcommand, for messages */
    const struct themis_plan_cmd_spec *spec;
    unsigned char given[TPO_N];                 /* 1 for each option given */
    const char *text[TPO_N];                    /* each option's argument as given (the last) */
    uint64_t num[TPO_N];                        /* integers, sizes, rates, ppm: converted */
    uint64_t bytes[THEMIS_PLAN_ARGS_MAX_SIZES]; /* --bytes, or --count x elem size */
    int nbytes;
    uint32_t chunks[THEMIS_PLAN_ARGS_MAX_SIZES]; /* --chunks K[,K...] */
    int nchunks;
    themis_coll_t coll;             /* --coll (default allreduce) */
    themis_graph_opts_t graph_opts; /* --bw, --lat, --degree */
    int first_pos;                  /* argv index of the first positional argument */
} themis_plan_args_t;

#define THEMIS_PLAN_GIVEN(a, id) (0 != (a)->given[id])

/* Parses argv (argv[0]: the subcommand) by the table's rows for cmd->name.
 * 0: go on; else 1 with *rc the exit status: 0 after --help (printed),
 * EXIT_USAGE after a message naming the option and the subcommand. */
int themis_plan_args_parse(const themis_plan_cmd_spec_t *cmd, int argc, char **argv,
                           themis_plan_args_t *a, int *rc);

/* EXIT_USAGE after "themis-plan CMD: --OPT: WHY" when cond. */
int themis_plan_args_fail(const themis_plan_args_t *a, themis_plan_opt_id_t id,
                          const char *why);

/* Whether the table gives option id to subcommand cmd (for tests). */
int themis_plan_args_takes(const char *cmd, themis_plan_opt_id_t id);

/* The network of a subcommand: `spec` (--graph or a positional SPEC|FILE)
 * loaded with --bw/--lat/--degree, then its dimensions: --dims, which must
 * hold the graph's ranks (a warning where the graph's hosts cut them
 * otherwise, as coll/themis warns), or the graph's own (themis_graph_dims:
 * ranks per host x hosts).  0, or an exit status after a message. */
int themis_plan_args_network(const themis_plan_args_t *a, const char *spec, themis_graph_t *g,
                             uint32_t dims[THEMIS_MAX_DIMS], int *ndims);

/* For the subcommands of dimensions: the shape "AxB" of --graph's ranks
 * (themis_plan_args_network: --dims checked, else the graph's own) into
 * shape.  0, or an exit status after a message. */
int themis_plan_args_graph_shape(const themis_plan_args_t *a, char *shape, size_t len);

/* "0,1,3,2": up to max_n integers 0 .. max into *out (malloc'ed; the
 * caller frees it, also on an error).  0, EXIT_RUNTIME (no memory) or
 * EXIT_USAGE (not such a list; the caller says so). */
int themis_plan_parse_u32_list(const char *s, uint32_t max, uint32_t max_n, uint32_t **out,
                               uint32_t *n);

#endif
