/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Row `tacos` of the algorithm table (algorithm.h): a schedule synthesized
 * by TACOS (tacos.h) for the communicator's graph, coll_themis_graph when
 * it is set (node r = rank r), else the graph of its dimensions
 * (themis_graph_from_topology; node i = rank i), compiled for this rank
 * (transfer.h).  One chunk per rank (TACOS_K), of any size (units of
 * uneven size, transfer.h), so every count runs.  Every rank synthesizes
 * the same schedule (integer times, fixed seeds) for one chunk size per
 * collective, kept in the row's state until the graph changes.  Cost: the link simulator
 * on the synthesized schedule; `auto` weighs it only on a
 * coll_themis_graph, where every row is costed by that simulator (on
 * dimensions alone, the other rows' models differ).
 */
#include "algorithm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "graph.h"
#include "hash.h"
#include "plan_builder.h"
#include "defaults.h"
#include "tacos.h"

#define TACOS_K THEMIS_DEFAULT_TACOS_CHUNKS_PER_NPU
/* Synthesis and the schedule's size grow with ranks squared. */
#define TACOS_MAX_RANKS THEMIS_GRAPH_COST_MAX_RANKS

/* Per collective: the schedule synthesized for the chunk size of the
 * middle message-size class (TACOS_CLASS), which the cost table costs at
 * every class and every call runs: one synthesis per collective and
 * communicator (the chunk size only weighs latency against bandwidth in
 * the greedy's link times).  A synthesis per group of four classes (the
 * table's 2-3 syntheses) cost 3x the setup for schedules at most 6 %
 * faster where the size's own synthesis differed, without changing a
 * choice of `auto` (benchmarks/README.md, auto_setup.sh). */
typedef struct {
    uint64_t key;               /* graph hash, collective, chunk bytes */
    themis_xfer_sched_t s;      /* nxfers 0: none */
    /* What compiling s for this rank reads of all of it: a new message
     * size compiles from it. */
    themis_xfer_rank_deps_t deps;
} tacos_state_t;
#define TACOS_CLASS (THEMIS_ALGO_TABLE_CLASSES / 2)
/* Seeds: as many as this many ready-list entries allow (tacos.h), 4 to
 * 32: every communicator synthesizes while it builds its cost table. */
#define TACOS_SEED_WORK (1ull << 16)
#define TACOS_SLOTS (THEMIS_COLL_ALLGATHER + 1)

static int tacos_applies(const themis_algo_input_t *in, char *why, size_t len)
{
    uint64_t p = themis_topology_npus(in->topo);
    if (p > TACOS_MAX_RANKS) {
        snprintf(why, len, "tacos synthesizes for up to %u ranks, not %llu", TACOS_MAX_RANKS,
                 (unsigned long long) p);
        return 0;
    }
    if (NULL != in->graph) {
        for (uint32_t v = 0; v < in->graph->nranks; ++v) {
            if (in->graph->node_failed[v]) {
                snprintf(why, len, "coll_themis_graph has failed node %u: give its working "
                         "part (themis-plan synth --write-graph)", v);
                return 0;
            }
        }
    }
    return 1;
}

/* The schedule for in: from the state when it matches, else synthesized
 * (into the state when there is one, else into *tmp); *slot: the state's
 * entry that holds it, or NULL. */
static themis_status_t tacos_get(const themis_algo_input_t *in, themis_xfer_sched_t *tmp,
                                 const themis_xfer_sched_t **out, tacos_state_t **slot)
{
    themis_graph_t own, ranks;
    const themis_graph_t *g = in->graph;
    uint64_t p = themis_topology_npus(in->topo);
    uint64_t chunk = themis_algo_table_class_bytes(TACOS_CLASS) / (p * TACOS_K);
    tacos_state_t *st = NULL;
    themis_status_t rc = THEMIS_OK;
    char why[160];

    memset(&own, 0, sizeof(own));
    *slot = NULL;
    memset(&ranks, 0, sizeof(ranks));
    if (NULL == g) {
        rc = themis_graph_from_topology(in->topo, 0, &own);
        g = &own;
    }
    if (THEMIS_OK == rc && g->nranks != p) {
        rc = THEMIS_ERR_UNSUPPORTED;
    }
    uint64_t key = themis_fnv1a_u64(themis_fnv1a_u64(themis_graph_hash(g), in->coll),
                                    0 == chunk ? 1 : chunk);
    if (THEMIS_OK == rc && NULL != in->state) {
        if (NULL == *in->state) {
            *in->state = calloc(TACOS_SLOTS, sizeof(tacos_state_t));
        }
        st = NULL != *in->state
                 ? (tacos_state_t *) *in->state + (size_t) in->coll
                 : NULL;
    }
    if (THEMIS_OK == rc && NULL != st && 0 != st->s.nxfers && key == st->key) {
        *out = &st->s;
        *slot = st;
    } else if (THEMIS_OK == rc) {
        /* TACOS' nodes are ranks: switches unwound (cluster.h) */
        rc = themis_graph_unwind(g, 0, &ranks, why, sizeof(why));
        if (THEMIS_OK == rc) {
            rc = themis_tacos_synthesize(&ranks, in->coll, TACOS_K, 0 == chunk ? 1 : chunk,
                                         themis_tacos_seeds_within(&ranks, TACOS_K,
                                                                   TACOS_SEED_WORK),
                                         tmp, why, sizeof(why));
        }
        if (THEMIS_OK != rc && NULL != in->why) {
            snprintf(in->why, in->why_len, "tacos: %s", why);
        }
        if (THEMIS_OK == rc && NULL != st) {
            themis_xfer_free(&st->s);
            themis_xfer_rank_deps_free(&st->deps);
            st->s = *tmp;
            st->key = key;
            memset(tmp, 0, sizeof(*tmp));
            *out = &st->s;
            *slot = st;
        } else {
            *out = tmp;
        }
    }
    themis_graph_free(&own);
    themis_graph_free(&ranks);
    return THEMIS_ERR_NOMEM == rc || THEMIS_OK == rc ? rc : THEMIS_ERR_UNSUPPORTED;
}

static themis_status_t tacos_cost(const themis_algo_input_t *in, themis_time_t *time)
{
    themis_xfer_sched_t tmp;
    const themis_xfer_sched_t *s = NULL;
    tacos_state_t *slot;

    if (NULL == in->graph) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    memset(&tmp, 0, sizeof(tmp));
    themis_status_t st = tacos_get(in, &tmp, &s, &slot);
    if (THEMIS_OK == st) {
        st = themis_xfer_graph_cost(in->graph, s, in->bytes, s->nunits, time);
    }
    themis_xfer_free(&tmp);
    return THEMIS_OK == st || THEMIS_ERR_NOMEM == st ? st : THEMIS_ERR_UNSUPPORTED;
}

static themis_status_t tacos_build(const themis_algo_input_t *in, const themis_plan_request_t *req,
                                   themis_program_t *out)
{
    themis_xfer_sched_t tmp;
    const themis_xfer_sched_t *s = NULL;
    tacos_state_t *slot;
    uint64_t total = themis_request_elements(req, (uint32_t) themis_topology_npus(in->topo));
    char why[200];

    memset(&tmp, 0, sizeof(tmp));
    themis_status_t st = tacos_get(in, &tmp, &s, &slot);
    if (THEMIS_OK == st) {
        themis_xfer_rank_deps_t own;
        memset(&own, 0, sizeof(own));
        st = themis_xfer_compile_with(s, req->rank, total,
                                      THEMIS_COLL_REDUCE_SCATTER == in->coll ? req->recvcounts
                                                                             : NULL,
                                      req->chunks_in_flight, NULL != slot ? &slot->deps : &own,
                                      out, why, sizeof(why));
        themis_xfer_rank_deps_free(&own);
        if (THEMIS_OK != st && NULL != in->why) {
            snprintf(in->why, in->why_len, "%s: %s", s->name, why);
        }
    }
    themis_xfer_free(&tmp);
    return st;
}

static const themis_xfer_sched_t *tacos_xfer(const themis_algo_input_t *in,
                                             themis_xfer_sched_t *tmp, char *why, size_t len)
{
    const themis_xfer_sched_t *s = NULL;
    tacos_state_t *slot;
    themis_algo_input_t rin = *in;
    rin.why = why;
    rin.why_len = len;
    return THEMIS_OK == tacos_get(&rin, tmp, &s, &slot) ? s : NULL;
}

static void tacos_state_free(void *state)
{
    tacos_state_t *st = state;
    for (int c = 0; NULL != st && c < TACOS_SLOTS; ++c) {
        themis_xfer_free(&st[c].s);
        themis_xfer_rank_deps_free(&st[c].deps);
    }
    free(state);
}

const themis_algorithm_t themis_algorithm_tacos = {
    .name = "tacos",
    .summary = "a schedule synthesized by TACOS greedy link-chunk matching for the "
               "communicator's graph (coll_themis_graph, else its dimensions)",
    .colls = THEMIS_COLLS_ALL,
    .substitute = "themis",
    .applies = tacos_applies,
    .cost = tacos_cost,
    .build = tacos_build,
    .state_free = tacos_state_free,
    .xfer = tacos_xfer,
};
