/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Lower bound of any dimension-by-dimension schedule ("Ideal"): an LP,
 * solved with GLPK, over the fraction x_o of the data that takes each RS
 * dimension order o (AG is its reverse).  Data reaching dimension k after
 * dimensions J sends 2(p_k-1)/p_k * S/prod_{j in J} p_j bytes on k (AR;
 * half of that for RS or AG alone).  Minimise T subject to, for every k,
 *   fixed_k + sum_o x_o * bytes_k(o) / bw_k <= T,   sum_o x_o = 1.
 * The fixed delays are those of one chunk's pass (paper's Ideal ignores
 * idle time, not latency): fixed_k is one phase's steps x step latency,
 * because no byte moves on k before the first phase's delay has passed,
 * while later delays may overlap transfers (overlapped latency, or
 * chunks_in_flight > 1).  So the bound holds for every schedule the
 * simulator can run, in either latency mode.  baseline_time is the same
 * bound for the baseline order alone (x = 1 on it): the limit of the
 * baseline, against which "Ideal x" is measured
 * (benchmarks/paper_themis.sh).  Refused (THEMIS_ERR_UNSUPPORTED) above 5
 * dimensions (N! columns).
 */
#ifndef THEMIS_BOUND_H
#define THEMIS_BOUND_H

#include "topology.h"

typedef struct {
    themis_time_t time;                 /* the bound */
    themis_time_t baseline_time;        /* the bound of the baseline order */
    uint64_t bytes[THEMIS_MAX_DIMS];    /* per-NPU bytes on each dim at optimum */
} themis_bound_t;

themis_status_t themis_bound_compute(const themis_topology_t *topo, themis_coll_t coll,
                                     uint64_t bytes, themis_bound_t *out);

#endif
