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

#include <stdlib.h>
#include <string.h>

#include "hash.h"

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

/* The schedule and its simulated order of the last call, kept so that
 * building every rank's program for one call (graph costing, export)
 * schedules and simulates once, not once per rank. */
typedef struct {
    uint64_t key;
    themis_schedule_t sched;
    themis_sim_result_t sim;
} themis_state_t;

static void themis_state_free(void *p)
{
    themis_state_t *st = p;
    if (NULL != st) {
        themis_schedule_free(&st->sched);
        themis_sim_result_free(&st->sim);
        free(st);
    }
}

/* Everything the schedule and the order depend on. */
static uint64_t state_key(const themis_algo_input_t *in)
{
    const themis_algo_cost_params_t *p = in->params;
    const uint64_t parts[] = {in->coll, in->bytes, p->themis_chunks, p->scheduler, p->policy,
                              p->chunks_in_flight, p->latency};
    uint64_t h = themis_fnv1a_u64(THEMIS_FNV_OFFSET, (uint64_t) in->topo->ndims);
    for (int i = 0; i < in->topo->ndims; ++i) {
        const themis_dim_t *d = &in->topo->dims[i];
        h = themis_fnv1a_u64(themis_fnv1a_u64(h, d->size), d->kind);
        h = themis_fnv1a_u64(themis_fnv1a_u64(h, d->bw_bps), d->step_latency);
    }
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); ++i) {
        h = themis_fnv1a_u64(h, parts[i]);
    }
    return h;
}

static themis_status_t schedule_and_order(const themis_algo_input_t *in, themis_schedule_t *sched,
                                          themis_sim_result_t *sim)
{
    themis_sim_params_t simp;
    themis_status_t st = themis_schedule_for(in, sched);

    if (THEMIS_OK != st) {
        return st;
    }
    memset(&simp, 0, sizeof(simp));
    simp.policy = in->params->policy;
    simp.chunks_in_flight = in->params->chunks_in_flight;
    simp.record_events = 0;
    simp.latency = in->params->latency;
    st = themis_simulate(in->topo, sched, &simp, sim);
    if (THEMIS_OK != st) {
        themis_schedule_free(sched);
    }
    return st;
}

static themis_status_t themis_build(const themis_algo_input_t *in,
                                    const themis_plan_request_t *req, themis_program_t *out)
{
    themis_schedule_t sched;
    themis_sim_result_t sim;
    themis_state_t *st = NULL != in->state ? *in->state : NULL;
    const uint64_t key = state_key(in);
    themis_status_t rc;

    if (NULL != st && key == st->key) {
        return themis_program_build_hier(req, &st->sched, &st->sim.order, out);
    }
    rc = schedule_and_order(in, &sched, &sim);
    if (THEMIS_OK != rc) {
        return rc;
    }
    rc = themis_program_build_hier(req, &sched, &sim.order, out);
    if (NULL == in->state || (NULL == st && NULL == (st = calloc(1, sizeof(*st))))) {
        themis_sim_result_free(&sim);
        themis_schedule_free(&sched);
        return rc;
    }
    if (NULL != *in->state) {
        themis_schedule_free(&st->sched);
        themis_sim_result_free(&st->sim);
    }
    *in->state = st;
    st->key = key;
    st->sched = sched;
    st->sim = sim;
    return rc;
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
    .state_free = themis_state_free,
    .flags = THEMIS_ALGO_FLAG_DIM_ORDERS,
    .bound = themis_algo_plan_bound,
};
