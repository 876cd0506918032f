/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Row `themis` of the algorithm table (algorithm.h): the Themis scheduler
 * (or the baseline order, coll_themis_scheduler) gives each chunk its
 * order of dimensions, the simulator fixes the order of chunk operations
 * within each dimension, and xfer_hier.h turns both into the call's
 * transfer list: a rank runs its slice of it, a graph simulates it.  Any
 * topology, every collective: the table's default row.
 */
#include "algorithm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "plan_builder.h"
#include "xfer_hier.h"

/* coll_themis_direct_max's default, where the caller gives no dim_algo */
#define THEMIS_ROW_DIRECT_MAX 8

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

/* The schedule and order of in: the state's where it was made for the
 * same key, else made (into the state where there is one, else *own,
 * which the caller frees). */
static themis_status_t plan_of(const themis_algo_input_t *in, themis_state_t *own,
                               const themis_state_t **plan)
{
    themis_state_t *st = NULL != in->state ? *in->state : NULL;
    const uint64_t key = state_key(in);
    memset(own, 0, sizeof(*own));
    if (NULL != st && key == st->key) {
        *plan = st;
        return THEMIS_OK;
    }
    themis_status_t rc = schedule_and_order(in, &own->sched, &own->sim);
    if (THEMIS_OK != rc) {
        return rc;
    }
    own->key = key;
    *plan = own;
    if (NULL == in->state || (NULL == st && NULL == (st = calloc(1, sizeof(*st))))) {
        return THEMIS_OK;
    }
    if (NULL != *in->state) {
        themis_schedule_free(&st->sched);
        themis_sim_result_free(&st->sim);
    }
    *in->state = st;
    *st = *own;
    memset(own, 0, sizeof(*own));
    *plan = st;
    return THEMIS_OK;
}

static void own_free(themis_state_t *own)
{
    themis_schedule_free(&own->sched);
    themis_sim_result_free(&own->sim);
}

/* This rank's slice of the call's list, compiled. */
static themis_status_t themis_build(const themis_algo_input_t *in,
                                    const themis_plan_request_t *req, themis_program_t *out)
{
    themis_state_t own;
    const themis_state_t *plan = NULL;
    themis_xfer_slice_t sl;
    char why[200] = "";
    memset(out, 0, sizeof(*out));
    memset(&sl, 0, sizeof(sl));
    themis_status_t rc = plan_of(in, &own, &plan);
    if (THEMIS_OK == rc && req->rank < 0) {
        rc = THEMIS_ERR_INVALID;
    }
    if (THEMIS_OK == rc) {
        rc = themis_xfer_hier_slice(req, &plan->sched, &plan->sim.order, (uint32_t) req->rank,
                                    &sl);
        if (THEMIS_OK != rc && NULL != in->why) {
            snprintf(in->why, in->why_len, "themis: no transfer list for rank %d: %s",
                     req->rank, themis_status_string(rc));
        }
    }
    if (THEMIS_OK == rc) {
        uint64_t total = themis_request_elements(req, sl.s.nranks);
        rc = themis_xfer_slice_compile(
            &sl, total, THEMIS_COLL_REDUCE_SCATTER == in->coll ? req->recvcounts : NULL,
            req->chunks_in_flight, 0, out, why, sizeof(why));
        if (THEMIS_OK != rc && NULL != in->why) {
            snprintf(in->why, in->why_len, "themis: %s", why);
        }
    }
    themis_xfer_slice_free(&sl);
    own_free(&own);
    return rc;
}

themis_status_t themis_algo_themis_xfer(const themis_algo_input_t *in,
                                        const themis_plan_request_t *req, int per_element,
                                        themis_xfer_sched_t *out)
{
    themis_state_t own;
    const themis_state_t *plan = NULL;
    memset(out, 0, sizeof(*out));
    themis_status_t st = plan_of(in, &own, &plan);
    if (THEMIS_OK == st) {
        st = themis_xfer_hier(req, &plan->sched, &plan->sim.order, per_element, out);
    }
    own_free(&own);
    return st;
}

uint64_t themis_algo_rep_units(const themis_algo_input_t *in)
{
    /* each chunk's leaves one element: the call's chunks while they fit */
    const uint64_t p = themis_topology_npus(in->topo);
    uint64_t chunks = in->params->themis_chunks;
    if (0 == p) {
        return 0;
    }
    if (chunks > THEMIS_GRAPH_COST_UNITS / p) {
        chunks = THEMIS_GRAPH_COST_UNITS / p;
    }
    return chunks * p;
}

themis_dim_algo_t themis_algo_rep_dim_algo(const themis_algo_input_t *in, int dim)
{
    return NULL != in->dim_algo ? in->dim_algo[dim]
                                : themis_dim_algo_for(in->topo->dims[dim].kind,
                                                      in->topo->dims[dim].size,
                                                      THEMIS_ROW_DIRECT_MAX);
}

/* The list of a representative call for the link simulator: each chunk's
 * leaves one element (at most THEMIS_GRAPH_COST_UNITS elements, fewer
 * chunks than the call's where they do not fit: then it overstates the
 * pipeline's fill), one unit per element. */
static const themis_xfer_sched_t *themis_xfer(const themis_algo_input_t *in,
                                              themis_xfer_sched_t *tmp, char *why, size_t len)
{
    const uint64_t p = themis_topology_npus(in->topo);
    const uint32_t chunks = 0 == p ? 0 : (uint32_t) (themis_algo_rep_units(in) / p);
    if (0 == chunks) {
        snprintf(why, len,
                 "a representative call of %u elements has no chunk of one element "
                 "per rank",
                 THEMIS_GRAPH_COST_UNITS);
        return NULL;
    }
    themis_algo_cost_params_t params = *in->params;
    themis_algo_input_t rin = *in;
    themis_plan_request_t req;
    themis_state_t own;
    const themis_state_t *plan = NULL;
    params.themis_chunks = chunks;
    rin.params = &params;
    memset(&req, 0, sizeof(req));
    req.coll = in->coll;
    req.ndims = in->topo->ndims;
    for (int i = 0; i < in->topo->ndims; ++i) {
        req.dim_size[i] = in->topo->dims[i].size;
        req.dim_algo[i] = themis_algo_rep_dim_algo(in, i);
    }
    /* allreduce: the vector; the others: each rank's block */
    req.count = THEMIS_COLL_ALLREDUCE == in->coll ? chunks * p : chunks;
    req.chunks_in_flight = params.chunks_in_flight;
    req.coord_to_rank = in->coord_to_rank;
    uint64_t *counts = malloc(p * sizeof(*counts));
    themis_status_t st = NULL != counts ? plan_of(&rin, &own, &plan) : THEMIS_ERR_NOMEM;
    for (uint64_t r = 0; NULL != counts && r < p; ++r) {
        counts[r] = chunks;
    }
    req.recvcounts = counts;
    const themis_xfer_sched_t *kept = NULL;
    if (THEMIS_OK == st) {
        /* the table's classes often plan alike: one list per plan */
        uint64_t key =
            themis_fnv1a_u64(themis_schedule_hash(&plan->sched, &plan->sim.order), req.count);
        for (int i = 0; i < req.ndims; ++i) {
            key = themis_fnv1a_u64(key, req.dim_algo[i]);
        }
        kept = themis_xfer_memo_find(in->lists, in->coll, key);
        st = NULL != kept ? THEMIS_OK
                          : themis_xfer_hier(&req, &plan->sched, &plan->sim.order, 1, tmp);
        kept = THEMIS_OK == st && NULL == kept
                   ? themis_xfer_memo_keep(in->lists, in->coll, key, tmp)
                   : kept;
        own_free(&own);
    }
    free(counts);
    if (THEMIS_OK != st) {
        snprintf(why, len, "no transfer list of the plan: %s", themis_status_string(st));
        return NULL;
    }
    return kept;
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
    .xfer = themis_xfer,
    .flags = THEMIS_ALGO_FLAG_DIM_ORDERS,
    .bound = themis_algo_plan_bound,
};
