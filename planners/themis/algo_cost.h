/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The cost model behind `auto` (algorithm.h): each row's cost function
 * predicts its time through the same latency model (latency_model.h) and
 * simulator (simulator.h), in integer ps, with the helpers below.  The
 * rows of today on one 2D torus (plan_torus.h):
 *
 * The network is the topology Themis plans on: exactly two dimensions,
 * dim 0 of size c (along a row), dim 1 of size r.  rings and torus2d need
 * both to be of kind biring (bidirectional links; THEMIS_ERR_UNSUPPORTED
 * otherwise); a biring's bw_bps is the per-NPU aggregate over its two
 * directions, so one directed link carries bw_bps / 2.
 *   themis   the scheduler (THEMIS kind) + simulator on that topology.
 *   rings    four directed rings over all p = r c ranks on disjoint links,
 *            each moving a quarter: the simulation of one of them on a
 *            one-dimensional unidirectional ring of p nodes whose links are
 *            the slower of the two dimensions' (a pipelined ring goes at
 *            its slowest link) and whose step latency is the larger.
 *   torus2d  the + direction quarters (the - ones mirror them on their own
 *            links): a schedule with chunks alternating dimension orders
 *            (0,1) and (1,0), simulated on two unidirectional rings.
 * What the model says (see tests/unit/test_algo_cost.c and
 * `themis-plan cycles --costs`):
 *   latency   rings 2 (p - 1) steps, torus2d 2 (r - 1) + 2 (c - 1): torus2d
 *             wins small and medium sizes by far (on a non-square torus
 *             with chunks_in_flight 1 a bit more: its two + quarters share each
 *             dimension's + link queue, as in the program);
 *   bandwidth rings move (S/2)(1 - 1/p) per link.  torus2d moves
 *             (S/2)(1 - 1/c)(1 + 1/r) on a dim-0 link and
 *             (S/2)(1 - 1/r)(1 + 1/c) on a dim-1 link: the same as rings
 *             when r = c, more on the longer dimension's links otherwise.
 * So the crossover of Fig. 13 (rings win large sizes) appears here on
 * non-square tori (64 rows x 4 cols, 400 Gb/s links, 500 ns steps: rings
 * from ~20 MiB); on square ones torus2d is never slower in this model.  The paper's formula for torus2d has an extra
 * S beta / (4 sqrt p) because it drops the (1 - 1/sqrt p) factors of the
 * row phases; its measured 2x comes from the packet-level network, which
 * this model does not have.
 */
#ifndef THEMIS_ALGO_COST_H
#define THEMIS_ALGO_COST_H

#include "scheduler.h"
#include "simulator.h"

/* How the decision sizes a call; every row reads what it needs. */
typedef struct {
    uint32_t themis_chunks;          /* Themis: scheduler chunks */
    uint32_t torus_chunks;           /* rings / torus2d: chunks per quarter */
    uint32_t chunks_in_flight;               /* phases at once per dimension / queue */
    themis_order_policy_t policy;    /* Themis intra-dimension order */
    themis_sched_kind_t scheduler;   /* Themis: scheduler kind */
    /* Simulator latency mode of every row; the themis row pairs it with
     * its load model (overlapped: bandwidth, serialized: phase), so that
     * serialized is the previous model as a whole. */
    themis_latency_mode_t latency;
} themis_algo_cost_params_t;

/* 64 Themis chunks, 1 chunk per quarter, chunks_in_flight 1, SCF, Themis
 * scheduler, overlapped latency. */
void themis_algo_cost_params_init(themis_algo_cost_params_t *p);
/* The runtime's sizing from one chunk count: Themis gets nchunks, each
 * torus quarter nchunks / 4 (at least 1). */
void themis_algo_cost_params_from_chunks(themis_algo_cost_params_t *p, uint32_t nchunks,
                                         uint32_t chunks_in_flight, themis_order_policy_t policy,
                                         themis_sched_kind_t scheduler);

/* Helpers for the rows' cost functions. */
uint32_t themis_cost_clamp_chunks(uint32_t want, uint64_t bytes);
uint64_t themis_cost_quarter_bytes(uint64_t bytes);
/* One direction of a biring: kind ring, half the bandwidth. */
themis_dim_t themis_cost_one_direction(const themis_dim_t *d);
/* Both dims of a 2D topology are birings (links both ways). */
int themis_cost_is_torus(const themis_topology_t *topo);
/* Simulated time of s with the params' chunks in flight and latency mode. */
themis_status_t themis_cost_simulate(const themis_topology_t *topo, const themis_schedule_t *s,
                                     themis_order_policy_t policy,
                                     const themis_algo_cost_params_t *params, themis_time_t *time);
/* The Dim Load Tracker model that goes with the params' latency mode. */
themis_load_model_t themis_cost_load_model(const themis_algo_cost_params_t *params);

#endif
