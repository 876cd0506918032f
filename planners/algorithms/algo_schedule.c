/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Row `schedule` of the algorithm table (algorithm.h): the transfer
 * schedule the user gave for the collective (coll_themis_<coll>_schedule,
 * an MSCCL-XML file), compiled for this rank (transfer.h).  A user's
 * schedule runs as given or not at all: it has no substitute, so a call it
 * cannot serve goes to the previous component.  Cost: the link-level
 * simulator on the graph of the communicator's dimensions.
 */
#include "algorithm.h"

#include <stdio.h>
#include <stdlib.h>

#include "graph.h"
#include "plan_builder.h"

static int schedule_applies(const themis_algo_input_t *in, char *why, size_t len)
{
    const themis_xfer_sched_t *s = in->xsched;
    uint64_t npus = themis_topology_npus(in->topo);
    if (NULL == s) {
        if (NULL != in->no_xsched) {
            snprintf(why, len, "%s", in->no_xsched);
        } else {
            snprintf(why, len, "no coll_themis_%s_schedule is set", themis_coll_name(in->coll));
        }
        return 0;
    }
    if (s->coll != in->coll) {
        snprintf(why, len, "schedule %s is an %s, not an %s", s->name, themis_coll_name(s->coll),
                 themis_coll_name(in->coll));
        return 0;
    }
    if ((uint64_t) s->nranks != npus) {
        snprintf(why, len, "schedule %s is for %u ranks, the communicator has %llu", s->name,
                 s->nranks, (unsigned long long) npus);
        return 0;
    }
    return 1;
}

static themis_status_t schedule_cost(const themis_algo_input_t *in, themis_time_t *time)
{
    themis_graph_t g;
    themis_status_t st = themis_graph_from_topology(in->topo, 0, &g);
    if (THEMIS_OK != st) {
        return st;
    }
    st = themis_xfer_graph_cost(&g, in->xsched, in->bytes, in->xsched->nunits, time);
    themis_graph_free(&g);
    return st;
}

static const themis_xfer_sched_t *schedule_xfer(const themis_algo_input_t *in,
                                               themis_xfer_sched_t *tmp, char *why, size_t len)
{
    if (NULL == in->xsched) {
        schedule_applies(in, why, len);
    }
    return in->xsched;
}

static themis_status_t schedule_build(const themis_algo_input_t *in,
                                      const themis_plan_request_t *req, themis_program_t *out)
{
    char why[200];
    uint64_t total = themis_request_elements(req, in->xsched->nranks);
    themis_status_t st = themis_xfer_compile(
        in->xsched, req->rank, total,
        THEMIS_COLL_REDUCE_SCATTER == in->coll ? req->recvcounts : NULL,
        req->chunks_in_flight, out, why, sizeof(why));
    if (THEMIS_OK != st) {
        snprintf(in->why, in->why_len, "schedule %s: %s", in->xsched->name, why);
    }
    return st;
}

const themis_algorithm_t themis_algorithm_schedule = {
    .name = "schedule",
    .summary = "the transfer schedule of coll_themis_<coll>_schedule (an MSCCL-XML file), "
               "as given",
    .colls = THEMIS_COLLS_ALL,
    .substitute = NULL,
    .applies = schedule_applies,
    .cost = schedule_cost,
    .build = schedule_build,
    .state_free = NULL,
    .xfer = schedule_xfer,
    .flags = THEMIS_ALGO_FLAG_GIVEN,
};
