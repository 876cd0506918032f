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
#include "themis_plan_args.h"
#include "scheduler.h"
#include "simulator.h"
#include "topology.h"

#define MAX_LIST THEMIS_PLAN_ARGS_MAX_SIZES /* entries of --bytes / --chunks lists */

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
    uint64_t min_chunk;         /* > 0: --chunks is a maximum (chunking.h) */
    const char *trace_path;     /* timeline --trace */
    uint32_t call;              /* timeline --call: index of the traced call */
    unsigned char given[TPO_N]; /* THEMIS_PLAN_GIVEN: the options on the command line */
    int first_pos;              /* argv index of the first positional argument */
} cli_opts_t;

/* Parses argv (argv[0]: the subcommand) by the option table's rows for
 * spec->name into o: 0 to go on, or 1 with *rc what the subcommand
 * returns (0 after --help, which printed usage; EXIT_USAGE, said, for bad
 * options).  o->first_pos: the first positional argument. */
int themis_plan_parse_options(const themis_plan_cmd_spec_t *spec, int argc, char **argv,
                              cli_opts_t *o, int *rc);
/* The topology of --topo, --topo-file, --dims (with --dim-*) or --graph
 * (its ranks' dimensions) into t and label: 0, with *have 0 when none
 * is given; or an exit status after a message. */
int themis_plan_topology(const themis_plan_args_t *a, themis_topology_t *t, char *label,
                         size_t len, int *have);
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
/* Closes the data file (written to dat) and opens the script gp: the
 * script's FILE, or NULL after a message. */
FILE *themis_plan_gp_script(FILE *data, const char *dat, const char *gp);
/* Closes the script gp and runs gnuplot on it: 0; 1 when the script did
 * not write; 2 when gnuplot failed, its input kept in dir (both said). */
int themis_plan_gp_finish(FILE *script, const char *gp, const char *dir);

/* The subcommands (themis_plan_simulate.c, themis_plan_timeline.c). */
int themis_plan_cmd_simulate(int argc, char **argv);
int themis_plan_cmd_timeline(int argc, char **argv);
int themis_plan_timeline_trace(const cli_opts_t *o);

#endif
