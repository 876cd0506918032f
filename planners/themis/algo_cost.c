/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The cost model's shared pieces (algo_cost.h); each algorithm's own cost
 * function is in its planners/algorithms/algo_<name>.c.  Chunk counts are clamped to
 * the bytes available (the scheduler needs a byte per chunk).
 */
#include "algo_cost.h"

#include <string.h>

void themis_algo_cost_params_init(themis_algo_cost_params_t *p)
{
    memset(p, 0, sizeof(*p));
    p->themis_chunks = 64;
    p->torus_chunks = 1;
    p->chunks_in_flight = 1;
    p->policy = THEMIS_ORDER_SCF;
    p->scheduler = THEMIS_SCHED_THEMIS;
    p->latency = THEMIS_LATENCY_OVERLAPPED;
}

void themis_algo_cost_params_from_chunks(themis_algo_cost_params_t *p, uint32_t nchunks,
                                         uint32_t chunks_in_flight, themis_order_policy_t policy,
                                         themis_sched_kind_t scheduler)
{
    themis_algo_cost_params_init(p);
    p->themis_chunks = nchunks > 0 ? nchunks : 1;
    p->torus_chunks = nchunks / 4 > 0 ? nchunks / 4 : 1;
    p->chunks_in_flight = chunks_in_flight;
    p->policy = policy;
    p->scheduler = scheduler;
}

uint32_t themis_cost_clamp_chunks(uint32_t want, uint64_t bytes)
{
    return (want > bytes) ? (uint32_t)bytes : want;
}

uint64_t themis_cost_quarter_bytes(uint64_t bytes)
{
    return bytes / 4 + ((0 != bytes % 4) ? 1 : 0);
}

themis_dim_t themis_cost_one_direction(const themis_dim_t *d)
{
    themis_dim_t l = *d;
    l.kind = THEMIS_DIM_RING;
    l.bw_bps = (d->bw_bps > 1) ? d->bw_bps / 2 : 1;
    return l;
}

int themis_cost_is_torus(const themis_topology_t *topo)
{
    return 2 == topo->ndims && THEMIS_DIM_BIRING == topo->dims[0].kind &&
           THEMIS_DIM_BIRING == topo->dims[1].kind;
}

themis_load_model_t themis_cost_load_model(const themis_algo_cost_params_t *params)
{
    return (THEMIS_LATENCY_SERIALIZED == params->latency) ? THEMIS_LOAD_PHASE
                                                          : THEMIS_LOAD_BANDWIDTH;
}

themis_status_t themis_cost_simulate(const themis_topology_t *topo, const themis_schedule_t *s,
                                     themis_order_policy_t policy,
                                     const themis_algo_cost_params_t *params, themis_time_t *time)
{
    themis_sim_params_t sp;
    themis_sim_result_t r;
    memset(&sp, 0, sizeof(sp));
    memset(&r, 0, sizeof(r));
    sp.policy = policy;
    sp.chunks_in_flight = params->chunks_in_flight;
    sp.latency = params->latency;
    themis_status_t st = themis_simulate(topo, s, &sp, &r);
    if (THEMIS_OK == st) {
        *time = r.stats.total_time;
    }
    themis_sim_result_free(&r);
    return st;
}
