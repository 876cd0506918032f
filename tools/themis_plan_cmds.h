/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Subcommands of themis-plan that live in their own source files.  Each
 * takes the arguments after the subcommand name (argv[0] is the
 * subcommand) and returns the process exit status: 0 success, 1 runtime
 * failure, 2 bad usage or input.
 */
#ifndef THEMIS_PLAN_CMDS_H
#define THEMIS_PLAN_CMDS_H

#include <stdio.h>

#include "clos_route.h"
#include "graph.h"
#include "transfer.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

/* Largest chunk count any subcommand takes: bounds planning time and
 * memory. */
#define THEMIS_PLAN_MAX_CHUNKS (1u << 20)

/* `themis-plan cycles ...`: HammingMesh (tools/themis_plan_cycles.c). */
int themis_plan_cmd_cycles(int argc, char **argv);

/* `themis-plan algorithms ...`: the algorithm table
 * (tools/themis_plan_algorithms.c). */
int themis_plan_cmd_algorithms(int argc, char **argv);

/* `themis-plan rules FILE ...`: a rules file and the rule for a call
 * (tools/themis_plan_rules.c). */
int themis_plan_cmd_rules(int argc, char **argv);

/* `themis-plan graph SPEC|FILE ...`: a graph topology and its routes;
 * `themis-plan xfer ring ...`: the ring schedule through the link
 * simulator (tools/themis_plan_graph.c). */
int themis_plan_cmd_graph(int argc, char **argv);
int themis_plan_cmd_xfer(int argc, char **argv);
/* Simulates s on g for a whole vector of `bytes` with the duplex rate
 * (link_sim.h; THEMIS_LINK_SIM_FULL_PPM: none), by waypoints via (NULL:
 * the graph's routes, themis_link_sim_via) and prints the xfer
 * summary (last line collective_us=...); an exit status. */
int themis_plan_link_sim_report(const char *cmd, const themis_graph_t *g,
                                const themis_xfer_sched_t *s, uint64_t bytes,
                                uint32_t duplex_ppm, const uint32_t *via);
/* The options a transfer schedule takes (xfer, bed): --coll, --bytes or
 * --count (one size), --spines, --seed. */
typedef struct {
    themis_coll_t coll;
    int have_coll;
    uint64_t bytes; /* 0: not given */
    themis_clos_algo_t spines;
    int have_spines;
    uint64_t seed;
} themis_plan_xfer_opts_t;
struct themis_plan_args;
/* Them from a's options into o; 0, or EXIT_USAGE after a message. */
int themis_plan_xfer_opts(const struct themis_plan_args *a, themis_plan_xfer_opts_t *o);
/* s as MSCCL-XML into path; 0, or EXIT_RUNTIME after a message. */
int themis_plan_write_msccl(const char *cmd, const themis_xfer_sched_t *s, const char *path);
/* One waypoint per transfer of s (*via: malloc'ed, freed by the caller
 * even on an error): the spine of its Clos flow routed by algo on the
 * leaf-spine g (themis_clos_graph_via); with summary, a line 'spines: ALGO
 * max_load=M lower_bound=B' to it.  0, or an exit status after a message. */
int themis_plan_spines_via(const char *cmd, const themis_graph_t *g,
                           const themis_xfer_sched_t *s, themis_clos_algo_t algo, uint64_t seed,
                           uint32_t **via, FILE *summary);
/* `themis-plan msccl check|export|draw FILE`: MSCCL-XML schedules
 * (tools/themis_plan_msccl.c). */
int themis_plan_cmd_msccl(int argc, char **argv);
/* `themis-plan export --msccl OUT.xml ...`: an algorithm's programs as
 * MSCCL-XML (tools/themis_plan_export.c). */
int themis_plan_cmd_export(int argc, char **argv);
/* `themis-plan route --clos TxS ...`: one spine per flow on a Clos
 * (tools/themis_plan_route.c). */
int themis_plan_cmd_route(int argc, char **argv);
/* `themis-plan treepack --graph SPEC|FILE ...`: the optimal spanning-tree
 * packing (tools/themis_plan_treepack.c). */
int themis_plan_cmd_treepack(int argc, char **argv);
/* `themis-plan synth ...`: TACOS (tools/themis_plan_synth.c). */
int themis_plan_cmd_synth(int argc, char **argv);
/* `themis-plan compare --graph SPEC|FILE ...`: every algorithm's time or
 * reason and auto's choice, as the component (tools/themis_plan_compare.c). */
int themis_plan_cmd_compare(int argc, char **argv);
/* `themis-plan bed --graph SPEC|FILE ...`: the test bed's build plan
 * (tools/themis_plan_bed.c). */
int themis_plan_cmd_bed(int argc, char **argv);

/* `themis-plan size S[,S...] ...`: each size in bytes, one a line, in the
 * syntax every --bytes takes (tools/themis_plan_args.c), for scripts. */
int themis_plan_cmd_size(int argc, char **argv);

#endif
