/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Row `themis` of the algorithm table (algorithm.h): the Themis scheduler
 * (or the baseline order, coll_themis_scheduler) gives each chunk its
 * order of dimensions, the simulator fixes the order of chunk operations
 * within each dimension, and plan.c compiles both into this rank's
 * program.  Any topology, every collective: the table's default row.
 */
#include "algorithm.h"

#include <string.h>

static int themis_applies(const themis_algo_input_t *in, char *why, size_t len)
{
    return 1;
}

static themis_status_t themis_schedule_for(const themis_algo_input_t *in,
                                           themis_schedule_t *sched)
{
    themis_sched_params_t sp;
    themis_sched_params_init(&sp, in->coll, in->bytes,
                             themis_cost_clamp_chunks(in->params->themis_chunks, in->bytes),
                             in->params->scheduler);
    sp.load = themis_cost_load_model(in->params);
    return themis_schedule_build(in->topo, &sp, sched);
}

static themis_status_t themis_cost(const themis_algo_input_t *in, themis_time_t *time)
{
    themis_schedule_t s;
    themis_status_t st = themis_schedule_for(in, &s);
    if (THEMIS_OK == st) {
        st = themis_cost_simulate(in->topo, &s, in->params->policy, in->params, time);
    }
    themis_schedule_free(&s);
    return st;
}

static themis_status_t themis_build(const themis_algo_input_t *in,
                                    const themis_plan_request_t *req, themis_program_t *out)
{
    themis_schedule_t sched;
    themis_sim_params_t simp;
    themis_sim_result_t sim;
    themis_status_t st = themis_schedule_for(in, &sched);

    if (THEMIS_OK != st) {
        return st;
    }
    memset(&simp, 0, sizeof(simp));
    simp.policy = in->params->policy;
    simp.chunks_in_flight = in->params->chunks_in_flight;
    simp.record_events = 0;
    simp.latency = in->params->latency;
    st = themis_simulate(in->topo, &sched, &simp, &sim);
    if (THEMIS_OK == st) {
        st = themis_program_build_hier(req, &sched, &sim.order, out);
        themis_sim_result_free(&sim);
    }
    themis_schedule_free(&sched);
    return st;
}

const themis_algorithm_t themis_algorithm_themis = {
    .name = "themis",
    .summary = "Themis: chunks with their own dimension orders from a greedy load balancer, "
               "ordered within each dimension by the simulator (any shape)",
    .colls = THEMIS_COLLS_ALL,
    .substitute = NULL,
    .applies = themis_applies,
    .cost = themis_cost,
    .build = themis_build,
    .state_free = NULL,
    .flags = THEMIS_ALGO_FLAG_DIM_ORDERS,
};
