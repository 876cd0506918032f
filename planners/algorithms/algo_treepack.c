/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Row `treepack` of the algorithm table (algorithm.h): All-Reduce over a
 * packing of spanning trees of the communicator's graph
 * (coll_themis_graph), each tree's share reduced up and broadcast down in
 * pipelined chunks (treepack.h).  The packing is the integer one of
 * themis_tp_solve (torus or cycle chains, else trees by matroid union
 * within the schedule's budget of chunks, a tree's chunk of several units
 * where its weight is large; within a certified factor of the optimum):
 * no LP solver in the component, and
 * every rank computes the same packing and the same schedule from the
 * same graph.  Where it cannot run (no graph
 * of the communicator's size, another collective, links that go one way,
 * failed nodes) Themis runs instead.
 */
#include "algorithm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "treepack.h"

/* Per graph (by hash): the packing's schedule, or why there is none. */
typedef struct {
    uint64_t graph_hash;
    themis_status_t status;
    char why[200];
    themis_xfer_sched_t sched;
} treepack_state_t;

static void treepack_state_free(void *p)
{
    treepack_state_t *s = p;
    if (NULL != s) {
        themis_xfer_free(&s->sched);
        free(s);
    }
}

/* The schedule for in->graph, cached in *in->state when there is one. */
static const themis_xfer_sched_t *schedule_for(const themis_algo_input_t *in,
                                               themis_xfer_sched_t *own, char *why, size_t len)
{
    uint64_t h = themis_graph_hash(in->graph);
    if (NULL == in->state) {
        return THEMIS_OK == themis_tp_runtime_schedule(in->graph, own, why, len) ? own : NULL;
    }
    treepack_state_t *s = *in->state;
    if (NULL == s || s->graph_hash != h) {
        treepack_state_free(s);
        s = calloc(1, sizeof(*s));
        *in->state = s;
        if (NULL == s) {
            snprintf(why, len, "out of memory");
            return NULL;
        }
        s->graph_hash = h;
        s->status = themis_tp_runtime_schedule(in->graph, &s->sched, s->why, sizeof(s->why));
    }
    if (THEMIS_OK != s->status) {
        snprintf(why, len, "%s", s->why);
        return NULL;
    }
    return &s->sched;
}

static int treepack_applies(const themis_algo_input_t *in, char *why, size_t len)
{
    uint64_t npus = themis_topology_npus(in->topo);
    themis_tp_graph_t g;
    if (NULL == in->graph) {
        snprintf(why, len, "treepack needs the network as a graph: %s",
                 NULL != in->no_graph ? in->no_graph : "set coll_themis_graph");
        return 0;
    }
    if ((uint64_t) in->graph->nranks != npus) {
        snprintf(why, len, "the graph has %u ranks, the communicator %llu",
                 in->graph->nranks, (unsigned long long) npus);
        return 0;
    }
    if (THEMIS_OK != themis_tp_from_graph(in->graph, &g, why, len)) {
        return 0;
    }
    int ok = g.n >= 2;
    if (!ok) {
        snprintf(why, len, "one rank: nothing to aggregate");
    }
    themis_tp_graph_free(&g);
    return ok;
}

static themis_status_t treepack_cost(const themis_algo_input_t *in, themis_time_t *time)
{
    themis_xfer_sched_t own;
    char why[200];
    memset(&own, 0, sizeof(own));
    const themis_xfer_sched_t *s = schedule_for(in, &own, why, sizeof(why));
    if (NULL == s) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    themis_status_t st = themis_xfer_graph_cost(in->graph, s, in->bytes, s->nunits, time);
    themis_xfer_free(&own);
    return THEMIS_OK == st ? THEMIS_OK : THEMIS_ERR_UNSUPPORTED;
}

static themis_status_t treepack_build(const themis_algo_input_t *in,
                                      const themis_plan_request_t *req, themis_program_t *out)
{
    themis_xfer_sched_t own;
    char why[200];
    memset(&own, 0, sizeof(own));
    const themis_xfer_sched_t *s = schedule_for(in, &own, why, sizeof(why));
    themis_status_t st = THEMIS_ERR_UNSUPPORTED;
    if (NULL != s) {
        st = themis_xfer_compile(s, req->rank, req->count, NULL, req->chunks_in_flight, out,
                                 why, sizeof(why));
    }
    if (THEMIS_OK != st && NULL != in->why) {
        snprintf(in->why, in->why_len, "treepack: %s", why);
    }
    themis_xfer_free(&own);
    return st;
}

const themis_algorithm_t themis_algorithm_treepack = {
    .name = "treepack",
    .summary = "all-reduce over a packing of spanning trees of coll_themis_graph, within a "
               "certified factor of the optimum (coll_themis_verbose 1 prints it), reduced up "
               "and broadcast down in chunks",
    .colls = THEMIS_COLL_BIT(THEMIS_COLL_ALLREDUCE),
    .substitute = "themis",
    .applies = treepack_applies,
    .cost = treepack_cost,
    .build = treepack_build,
    .state_free = treepack_state_free,
    .xfer = schedule_for,
};
