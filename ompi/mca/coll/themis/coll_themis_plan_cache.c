/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Per-communicator cache of this rank's programs.  Key: collective,
 * element count (reduce-scatter: the exact recvcounts, compared
 * in full so that no hash collision can pick a wrong program) and element
 * size (the schedule depends on bytes; so does the decision,
 * coll_themis_decide.c, which the key therefore implies).  A miss runs the planners:
 * scheduler -> simulator (intra-dimension order, no events) -> plan
 * compiler for Themis; the HammingMesh builders (plan_torus.h) for rings
 * and torus2d (allreduce, reduce-scatter and allgather alike).  Fixed table
 * of MCA_COLL_THEMIS_PLAN_CACHE_SIZE entries, least recently used replaced;
 * freed with the module.
 *
 * Algorithm of a collective (coll_themis_<coll>_algorithm): a row of the
 * algorithm table (planners/algorithms/algorithm.h), chosen and built by
 * themis_algorithm_plan: a requested row runs where it can serve the
 * call, else the fastest row that can (reported once per process, counted
 * per call); auto runs the fastest row that can serve the call, ranked by
 * the communicator's cost table (built on the first call that ranks, then
 * a lookup per message size), logged at verbose 10.  Only where no row
 * can serve a call does it fall back.
 * All of it depends only on agreed inputs (topology, parameters, message
 * size) and integer arithmetic, so every rank picks the same.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"

#include "coll_themis.h"

#define VERBOSE_PLAN 10

void mca_coll_themis_plan_cache_init(mca_coll_themis_plan_cache_t *cache)
{
    memset(cache, 0, sizeof(*cache));
}

static void entry_free(mca_coll_themis_plan_entry_t *e)
{
    if (e->used) {
        if (!e->refused
            && !mca_coll_themis_plan_pin_adopt(&e->pin, &e->prog, &e->layout)) {
            mca_coll_themis_engine_layout_free(&e->layout);
            themis_program_free(&e->prog);
        }
        free(e->recvcounts);
    }
    memset(e, 0, sizeof(*e));
}

void mca_coll_themis_plan_cache_clear(mca_coll_themis_plan_cache_t *cache)
{
    for (int i = 0; i < MCA_COLL_THEMIS_PLAN_CACHE_SIZE; ++i) {
        entry_free(&cache->entries[i]);
    }
    cache->clock = 0;
}

static bool entry_matches(const mca_coll_themis_plan_entry_t *e, themis_coll_t coll,
                          uint64_t count, const uint64_t *recvcounts, int nranks,
                          size_t elem_size)
{
    if (!e->used || e->coll != coll || e->count != count
        || e->elem_size != elem_size) {
        return false;
    }
    if (THEMIS_COLL_REDUCE_SCATTER == coll) {
        return 0 == memcmp(e->recvcounts, recvcounts, sizeof(uint64_t) * (size_t) nranks);
    }
    return true;
}

/* Decisions every rank makes alike are logged by the lowest rank of the
 * communicator only; facts of one rank carry the rank. */
static bool lowest_rank(ompi_communicator_t *comm)
{
    return 0 == ompi_comm_rank(comm);
}

/* A substitution is shown once per process and logged at verbose 1, by the
 * lowest rank of the communicator. */
static void report_substitution(ompi_communicator_t *comm, themis_coll_t coll, int requested,
                                int ran, const char *why)
{
    static bool shown = false;

    if (!lowest_rank(comm)) {
        return;
    }
    if (!__atomic_exchange_n(&shown, true, __ATOMIC_RELAXED)) {
        mca_coll_themis_show_help("algorithm-substituted", comm->c_name, ompi_comm_size(comm),
                                  themis_coll_name(coll),
                                  mca_coll_themis_algorithm_name(requested), why,
                                  mca_coll_themis_algorithm_name(ran));
    }
    opal_output_verbose(1, mca_coll_themis_component.output,
                        "coll:themis: %s: %s %s requested, %s runs: %s", comm->c_name,
                        themis_coll_name(coll), mca_coll_themis_algorithm_name(requested),
                        mca_coll_themis_algorithm_name(ran), why);
}

/* No row can serve a call: shown once per process and collective, logged
 * at verbose 1, by the lowest rank; its calls fall back (counted by the
 * caller).  The file is named where one was asked to run. */
static void report_refused(ompi_communicator_t *comm, themis_coll_t coll, int requested,
                           const themis_algo_table_t *t, const themis_algo_choice_t *ch,
                           char *why, size_t len)
{
    static bool shown[MCA_COLL_THEMIS_NALGO_COLLS];
    const themis_algorithm_t *row = themis_algorithm_get(ch->index);
    const char *file = mca_coll_themis_component.schedule_param[coll];
    const bool given = NULL != row && 0 != (row->flags & THEMIS_ALGO_FLAG_GIVEN)
                       && (THEMIS_ALGO_AUTO == requested || ch->index == requested)
                       && NULL != file && '\0' != file[0];
    char rows[960];

    if (given) {
        snprintf(why, len, "%s", ch->reason[ch->index]);
    } else {
        themis_algo_choice_rows(t, ch, rows, sizeof(rows));
        snprintf(why, len, "no algorithm can serve it: %s", rows);
    }
    if (!lowest_rank(comm)) {
        return;
    }
    if (!__atomic_exchange_n(&shown[coll], true, __ATOMIC_RELAXED)) {
        if (given) {
            mca_coll_themis_show_help("schedule-refused", comm->c_name, ompi_comm_size(comm),
                                      themis_coll_name(coll), file, why, themis_coll_name(coll));
        } else {
            mca_coll_themis_show_help("no-algorithm", comm->c_name, ompi_comm_size(comm),
                                      themis_coll_name(coll), rows, themis_coll_name(coll));
        }
    }
    opal_output_verbose(1, mca_coll_themis_component.output, "coll:themis: %s: %s: %s",
                        comm->c_name, themis_coll_name(coll), why);
}

/* coll_themis_graph (as placed on the runtime's hosts) where it has a rank
 * node per rank; said once where not,
 * and why in *no_graph for the rows that need it. */
static const themis_graph_t *graph_for(const mca_coll_themis_module_t *m,
                                       ompi_communicator_t *comm, uint64_t nranks,
                                       char *no_graph, size_t len)
{
    static bool said = false;
    const themis_graph_t *g = mca_coll_themis_graph_of(m);

    if (0 == g->nranks) {
        return NULL;
    }
    if (g->nranks == nranks && nranks <= THEMIS_GRAPH_COST_MAX_RANKS) {
        return g;
    }
    char of[48] = "";
    if (g->nranks != g->nnodes) {
        snprintf(of, sizeof(of), " (%u ranks)", g->nranks);
    }
    snprintf(no_graph, len, "coll_themis_graph has %u nodes%s, the communicator %llu ranks%s",
             g->nnodes, of, (unsigned long long) nranks,
             g->nranks == nranks ? " (more than costing on a graph takes)" : "");
    if (lowest_rank(comm) && !__atomic_exchange_n(&said, true, __ATOMIC_RELAXED)) {
        opal_output(0, "coll:themis: %s: %s: auto ranks algorithms by their own models there "
                    "(said once)", comm->c_name, no_graph);
    }
    return NULL;
}

/* The auto choice with every row's predicted time or reason, at verbose
 * 10, by the lowest rank (themis-plan compare prints the same line). */
static void log_auto(ompi_communicator_t *comm, themis_coll_t coll, uint64_t bytes,
                     uint64_t elems, const themis_algo_table_t *t,
                     const themis_algo_choice_t *ch, bool on_graph)
{
    char text[1200];

    if (!lowest_rank(comm)
        || opal_output_get_verbosity(mca_coll_themis_component.output) < VERBOSE_PLAN) {
        return;
    }
    themis_algo_choice_line(coll, bytes, elems, t, ch, on_graph, text, sizeof(text));
    opal_output_verbose(VERBOSE_PLAN, mca_coll_themis_component.output, "coll:themis: %s: %s",
                        comm->c_name, text);
}

/* What the component's decision gives a size class of the cost table:
 * the parameters a call of that many bytes would plan with. */
typedef struct {
    const mca_coll_themis_module_t *m;
    int comm_size;
    themis_coll_t coll;
} class_ctx_t;

static void call_params(const mca_coll_themis_module_t *m, int comm_size, themis_coll_t coll,
                        uint64_t bytes, uint64_t elems, mca_coll_themis_decision_t *d,
                        themis_algo_cost_params_t *params, uint32_t *nchunks)
{
    const mca_coll_themis_config_t *cfg = &mca_coll_themis_component.config;
    mca_coll_themis_decide(m, comm_size, coll, bytes, d);
    themis_algo_call_params(&m->topo, bytes, elems, d->max_chunks, m->min_chunk_bytes,
                            d->chunks_in_flight, cfg->order, cfg->scheduler, cfg->latency, params,
                            nchunks);
}

static void class_params(void *ctx, uint64_t bytes, themis_algo_cost_params_t *params)
{
    const class_ctx_t *c = ctx;
    mca_coll_themis_decision_t d;
    call_params(c->m, c->comm_size, c->coll, bytes, bytes, &d, params, NULL);
}

static themis_status_t build_program(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                                     themis_coll_t coll, uint64_t count,
                                     const uint64_t *recvcounts, size_t elem_size,
                                     themis_program_t *prog,
                                     mca_coll_themis_plan_choice_t *choice, char *refused,
                                     size_t refused_len)
{
    const mca_coll_themis_config_t *cfg = &mca_coll_themis_component.config;
    const uint64_t nranks = themis_topology_npus(&m->topo);
    mca_coll_themis_decision_t d;
    themis_algo_cost_params_t params;
    themis_plan_request_t req;
    themis_algo_choice_t ch;
    uint64_t elems;
    uint32_t nchunks;
    themis_status_t st;

    /* Elements of the full vector the collective moves per rank (the
     * caller passes the sum of recvcounts for reduce-scatter). */
    elems = THEMIS_COLL_ALLGATHER == coll ? count * nranks : count;
    call_params(m, (int) nranks, coll, elems * elem_size, elems, &d, &params, &nchunks);
    const int requested = d.algorithm;

    memset(&req, 0, sizeof(req));
    req.coll = coll;
    req.ndims = m->topo.ndims;
    for (int i = 0; i < m->topo.ndims; ++i) {
        req.dim_size[i] = m->topo.dims[i].size;
        req.dim_algo[i] = m->dim_algo[i];
    }
    req.rank = ompi_comm_rank(comm);
    req.coord_to_rank = m->coord_to_rank;
    req.count = THEMIS_COLL_REDUCE_SCATTER == coll ? 0 : count;
    req.recvcounts = recvcounts;
    req.chunks_in_flight = d.chunks_in_flight;
    /* a pipeline's repeated slots kept once: the engine reads them so */
    req.periodic = 1;

    char no_xsched[160] = "";
    const themis_xfer_sched_t *xs = cfg->schedule_set[coll]
        ? mca_coll_themis_schedule_get(coll, (int) nranks, no_xsched, sizeof(no_xsched))
        : NULL;
    char no_graph[160] = "";
    themis_algo_input_t in = {.topo = &m->topo, .coll = coll, .bytes = elems * elem_size,
                              .params = &params, .states = m->algo_state,
                              .xsched = xs,
                              .graph = graph_for(m, comm, nranks, no_graph, sizeof(no_graph)),
                              .no_graph = '\0' != no_graph[0] ? no_graph : NULL,
                              .no_xsched = '\0' != no_xsched[0] ? no_xsched : NULL,
                              .dim_algo = m->dim_algo, .coord_to_rank = m->coord_to_rank};
    const themis_algorithm_t *asked = themis_algorithm_get(requested);
    if (cfg->schedule_set[coll] && NULL == in.xsched && NULL == in.no_xsched
        && (NULL != asked ? 0 != (asked->flags & THEMIS_ALGO_FLAG_GIVEN) : NULL == in.graph)) {
        /* The file did not load; said once when it was first needed. */
        snprintf(refused, refused_len, "coll_themis_%s_schedule did not load",
                 themis_coll_name(coll));
        return THEMIS_ERR_UNSUPPORTED;
    }
    class_ctx_t ctx = {.m = m, .comm_size = (int) nranks, .coll = coll};
    themis_algo_table_t *table = &m->algo_table[coll];
    st = themis_algorithm_plan(requested, &in, table, class_params, &ctx, &req, &ch, prog);
    choice->algo = ch.index;
    choice->substituted = 0 != ch.substituted;
    choice->nchunks = (uint32_t) nchunks;
    if (THEMIS_ERR_UNSUPPORTED == st) {
        report_refused(comm, coll, requested, table, &ch, refused, refused_len);
    } else if (THEMIS_OK == st && ch.substituted) {
        report_substitution(comm, coll, requested, ch.index, ch.why);
    } else if (THEMIS_OK == st && THEMIS_ALGO_AUTO == requested) {
        log_auto(comm, coll, in.bytes, elems, table, &ch, NULL != in.graph);
    }
    return st;
}

int mca_coll_themis_plan_get(mca_coll_themis_module_t *m, struct ompi_communicator_t *comm,
                             themis_coll_t coll, uint64_t count, const uint64_t *recvcounts,
                             size_t elem_size, const themis_program_t **prog,
                             const mca_coll_themis_engine_layout_t **layout,
                             mca_coll_themis_plan_choice_t *choice)
{
    mca_coll_themis_plan_cache_t *cache = &m->cache;
    const int nranks = ompi_comm_size(comm);
    mca_coll_themis_plan_entry_t *victim = &cache->entries[0];
    uint64_t *counts_copy = NULL;
    mca_coll_themis_plan_choice_t ch = {.algo = 0, .substituted = false};
    themis_status_t st;

    ++cache->clock;
    for (int i = 0; i < MCA_COLL_THEMIS_PLAN_CACHE_SIZE; ++i) {
        mca_coll_themis_plan_entry_t *e = &cache->entries[i];
        if (entry_matches(e, coll, count, recvcounts, nranks, elem_size)) {
            e->last_use = cache->clock;
            *prog = &e->prog;
            *layout = &e->layout;
            if (NULL != choice) {
                *choice = e->choice;
            }
            return e->refused ? OMPI_ERR_NOT_SUPPORTED : OMPI_SUCCESS;
        }
        if (!e->used) {
            if (victim->used) {
                victim = e;
            }
        } else if (victim->used && e->last_use < victim->last_use) {
            victim = e;
        }
    }

    if (THEMIS_COLL_REDUCE_SCATTER == coll) {
        counts_copy = malloc(sizeof(uint64_t) * (size_t) nranks);
        if (NULL == counts_copy) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        memcpy(counts_copy, recvcounts, sizeof(uint64_t) * (size_t) nranks);
    }

    entry_free(victim);
    st = build_program(m, comm, coll, count, recvcounts, elem_size, &victim->prog, &ch,
                       victim->why, sizeof(victim->why));
    if (THEMIS_OK == st) {
        /* Checked and laid out once here, not on every call.  A program
         * the engine rejects is a planner bug: an error, not a fallback
         * that other ranks might not take. */
        int rc = mca_coll_themis_engine_prepare(&victim->prog, nranks, &victim->layout);
        if (OMPI_SUCCESS != rc) {
            themis_program_free(&victim->prog);
            free(counts_copy);
            memset(victim, 0, sizeof(*victim));
            return rc;
        }
    }
    if (THEMIS_OK != st && THEMIS_ERR_UNSUPPORTED != st) {
        /* A refusal was reported by the lowest rank; anything else is
         * this rank's own. */
        opal_output_verbose(1, mca_coll_themis_component.output,
                            "coll:themis: %s: rank %d: planning %s of %llu elements x %zu bytes "
                            "failed: %s", comm->c_name, ompi_comm_rank(comm),
                            themis_coll_name(coll), (unsigned long long) count, elem_size,
                            themis_status_string(st));
        snprintf(victim->why, sizeof(victim->why), "planning failed on rank %d: %s",
                 ompi_comm_rank(comm), themis_status_string(st));
    }
    if (THEMIS_OK != st) {
        memset(&victim->prog, 0, sizeof(victim->prog));
        if (THEMIS_ERR_NOMEM == st) {
            /* Memory is local to this rank: an error, not a fallback that
             * the other ranks would not take. */
            free(counts_copy);
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        /* Every other refusal follows from inputs that all ranks share:
         * remember it so that the next call falls back at once. */
        victim->refused = true;
    }
    victim->used = true;
    victim->coll = coll;
    victim->count = count;
    victim->recvcounts = counts_copy;
    victim->elem_size = elem_size;
    victim->last_use = cache->clock;
    ch.why_refused = victim->refused ? victim->why : NULL;
    if (!victim->refused) {
        mca_coll_themis_plan_messages(&victim->prog, elem_size, &ch);
    }
    victim->choice = ch;
    *prog = &victim->prog;
    *layout = &victim->layout;
    if (NULL != choice) {
        *choice = ch;
    }
    if (victim->refused) {
        return OMPI_ERR_NOT_SUPPORTED;
    }

    opal_output_verbose(VERBOSE_PLAN, mca_coll_themis_component.output,
                        "coll:themis: %s: rank %d: planned %s (%s) of %llu elements x %zu "
                        "bytes: %u ops (%u stored, %u runs), %u steps, work %llu elements",
                        comm->c_name, ompi_comm_rank(comm), themis_coll_name(coll),
                        mca_coll_themis_algorithm_name(ch.algo),
                        (unsigned long long) count, elem_size, victim->prog.nops,
                        themis_program_stored_ops(&victim->prog), victim->prog.nruns,
                        victim->prog.nsteps,
                        (unsigned long long) victim->prog.work_count);
    return OMPI_SUCCESS;
}
