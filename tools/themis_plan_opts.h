/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The options of themis-plan schedule, simulate and timeline, and the
 * helpers those subcommands share (tools/themis_plan.c).
 */
#ifndef THEMIS_PLAN_OPTS_H
#define THEMIS_PLAN_OPTS_H

#include <stdint.h>
#include <stdio.h>

#include "bound.h"
#include "scheduler.h"
#include "simulator.h"
#include "topology.h"

#define MAX_LIST 64 /* entries of --bytes / --chunks lists */

enum {
    OPT_TOPO = 1 << 0,
    OPT_TOPO_FILE = 1 << 1,
    OPT_COLL = 1 << 2,
    OPT_BYTES = 1 << 3,
    OPT_CHUNKS = 1 << 4,
    OPT_SCHEDULER = 1 << 5,
    OPT_ORDER = 1 << 6,
    OPT_CHUNKS_IN_FLIGHT = 1 << 7,
    OPT_THRESHOLD = 1 << 8,
    OPT_JSON = 1 << 9,
    OPT_CSV = 1 << 10,
    OPT_PNG = 1 << 11,
    OPT_HELP = 1 << 12,
    OPT_MIN_CHUNK = 1 << 13,
    OPT_TRACE = 1 << 14,
    OPT_CALL = 1 << 15,
    OPT_DIMS = 1 << 16,
    OPT_DIM_BW = 1 << 17,
    OPT_DIM_LAT = 1 << 18,
    OPT_DIM_KINDS = 1 << 19,
    OPT_LATENCY = 1 << 20,
    OPT_LOAD = 1 << 21,
    OPT_COUNT = 1 << 22 /* --bytes in 4-byte elements; allowed with OPT_BYTES */
};

/* The topology options: a preset or spec, a file, or coll/themis' shape
 * syntax (--dims 4x2 with optional per-dimension lists). */
#define OPT_TOPOLOGY \
    (OPT_TOPO | OPT_TOPO_FILE | OPT_DIMS | OPT_DIM_BW | OPT_DIM_LAT | OPT_DIM_KINDS)

typedef struct {
    themis_topology_t topo;
    int have_topo;
    char topo_label[1024]; /* what the user named: preset, spec or file */
    themis_coll_t coll;
    uint64_t bytes[MAX_LIST];
    int nbytes;
    uint32_t chunks[MAX_LIST];
    int nchunks;
    themis_sched_kind_t kind;
    themis_order_policy_t order;
    uint32_t chunks_in_flight;
    uint32_t threshold_permille;
    int have_threshold;
    themis_latency_mode_t latency; /* simulator latency mode */
    themis_load_model_t load;      /* scheduler Dim Load Tracker model */
    const char *json_path;
    int csv;
    const char *png_path;
    int help;
    uint64_t min_chunk;     /* > 0: --chunks is a maximum (chunking.h) */
    const char *trace_path; /* timeline --trace */
    uint32_t call;          /* timeline --call: index of the traced call */
    unsigned given;         /* OPT_* bits that were on the command line */
} cli_opts_t;

/* Parses argv (options in `allowed`, OPT_*) into o; *first_pos: the
 * first positional argument.  0, or the exit status. */
int themis_plan_parse_options(int argc, char **argv, unsigned allowed, cli_opts_t *o,
                              int *first_pos);
/* A subcommand's options without positional arguments: 0 to go on, or
 * 1 with *rc what the subcommand returns (0 after --help, which printed
 * usage; EXIT_USAGE, said, for bad options or a stray argument). */
int themis_plan_command_options(int argc, char **argv, unsigned allowed, const char *cmd,
                                void (*usage)(FILE *), cli_opts_t *o, int *rc);
/* The chunk count a call of `bytes` gets (the component's rule). */
uint32_t themis_plan_chunks_for(const cli_opts_t *o, uint32_t chunks, uint64_t bytes);
void themis_plan_format_size(uint64_t b, char *buf, size_t len);
/* The unit to print times near `ref` in; *div: ps per unit. */
const char *themis_plan_time_unit(themis_time_t ref, double *div);
double themis_plan_pct(uint64_t part, uint64_t whole);
void themis_plan_print_topology_header(FILE *f, const cli_opts_t *o);
/* Exit status of a planner status: EXIT_USAGE for bad input. */
int themis_plan_status_exit(themis_status_t st);
/* 0, or EXIT_USAGE with a message when o has no topology / more than one
 * size or chunk count. */
int themis_plan_need_topology(const cli_opts_t *o, const char *cmd);
int themis_plan_need_single(const cli_opts_t *o, const char *cmd);
/* Builds and simulates one schedule.  On success the caller frees both. */
themis_status_t themis_plan_simulate_one(const cli_opts_t *o, uint64_t bytes, uint32_t nchunks,
                                         themis_sched_kind_t kind, themis_order_policy_t policy,
                                         int record_events, themis_schedule_t *sched,
                                         themis_sim_result_t *res);
double themis_plan_bound_util_pct(const themis_topology_t *topo, const themis_bound_t *b);

/* gnuplot: a quoted string, and running a script (0, or -1 said). */
void themis_plan_gp_quote(FILE *f, const char *s);
int themis_plan_run_gnuplot(const char *script);

/* The subcommands (themis_plan_simulate.c, themis_plan_timeline.c). */
int themis_plan_cmd_simulate(int argc, char **argv);
int themis_plan_cmd_timeline(int argc, char **argv);
int themis_plan_timeline_trace(const cli_opts_t *o);

#endif
