/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Per-communicator cache of this rank's programs.  Key: collective,
 * algorithm, element count (reduce-scatter: the exact recvcounts, compared
 * in full so that no hash collision can pick a wrong program) and element
 * size (the schedule depends on bytes).  A miss runs the planners:
 * scheduler -> simulator (intra-dimension order, no events) -> plan
 * compiler for Themis; the HammingMesh builders (plan_torus.h) for rings
 * and torus2d (allreduce, reduce-scatter and allgather alike).  Fixed table
 * of MCA_COLL_THEMIS_PLAN_CACHE_SIZE entries, least recently used replaced;
 * freed with the module.
 *
 * Algorithm of a collective (coll_themis_<coll>_algorithm):
 *   themis            always Themis.
 *   rings, torus2d    as asked on a 2-D shape, whatever its kinds (they are
 *                     correct on any 2-D shape; the kinds only say what is
 *                     fast).  rings with a dimension < 3 has no pair of
 *                     Hamiltonian cycles: torus2d runs.  A shape that is not
 *                     2-D: Themis runs.  Both substitutions are reported
 *                     once per process and counted per call.
 *   auto              on a torus (2-D, both dimensions biring:
 *                     coll_themis_torus, or dims + dim_kinds=biring) the
 *                     least predicted time of the three (algo_cost.h) for
 *                     the message size, logged at verbose 10; Themis on
 *                     every other shape (a unidirectional ring dimension
 *                     has no second direction for the backward rings, a
 *                     switch dimension is no torus).
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
        if (!e->refused) {
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
                          mca_coll_themis_algorithm_t algorithm, uint64_t count,
                          const uint64_t *recvcounts, int nranks, size_t elem_size)
{
    if (!e->used || e->coll != coll || e->algorithm != algorithm || e->count != count
        || e->elem_size != elem_size) {
        return false;
    }
    if (THEMIS_COLL_REDUCE_SCATTER == coll) {
        return 0 == memcmp(e->recvcounts, recvcounts, sizeof(uint64_t) * (size_t) nranks);
    }
    return true;
}

static mca_coll_themis_algorithm_t requested_algorithm(themis_coll_t coll)
{
    const mca_coll_themis_config_t *cfg = &mca_coll_themis_component.config;

    switch (coll) {
    case THEMIS_COLL_REDUCE_SCATTER:
        return cfg->rs_algorithm;
    case THEMIS_COLL_ALLGATHER:
        return cfg->ag_algorithm;
    case THEMIS_COLL_ALLREDUCE:
    default:
        return cfg->algorithm;
    }
}

/* A torus for auto: two dimensions with links both ways. */
static bool is_torus(const mca_coll_themis_module_t *m)
{
    return 2 == m->topo.ndims && THEMIS_DIM_BIRING == m->topo.dims[0].kind
           && THEMIS_DIM_BIRING == m->topo.dims[1].kind;
}

/* A substitution is shown once per process, by rank 0 of the communicator
 * (every rank decides alike); every rank logs it at verbose 1. */
static void report_substitution(ompi_communicator_t *comm, themis_coll_t coll,
                                mca_coll_themis_algorithm_t requested, themis_algo_t ran,
                                const char *why)
{
    static bool shown = false;

    if (0 == ompi_comm_rank(comm) && !__atomic_exchange_n(&shown, true, __ATOMIC_RELAXED)) {
        mca_coll_themis_show_help("algorithm-substituted", comm->c_name, ompi_comm_size(comm),
                                  themis_coll_name(coll),
                                  mca_coll_themis_algorithm_name(requested), why,
                                  themis_algo_name(ran));
    }
    opal_output_verbose(1, mca_coll_themis_component.output,
                        "coll:themis: %s: %s %s requested, %s runs: %s", comm->c_name,
                        themis_coll_name(coll), mca_coll_themis_algorithm_name(requested),
                        themis_algo_name(ran), why);
}

/* The algorithm that runs `coll` of `bytes` (full vector) on this module. */
static mca_coll_themis_plan_choice_t choose_algorithm(const mca_coll_themis_module_t *m,
                                                      ompi_communicator_t *comm,
                                                      themis_coll_t coll, uint64_t bytes,
                                                      uint32_t nchunks)
{
    const mca_coll_themis_config_t *cfg = &mca_coll_themis_component.config;
    const mca_coll_themis_algorithm_t requested = requested_algorithm(coll);
    mca_coll_themis_plan_choice_t choice = {.algo = THEMIS_ALGO_THEMIS, .substituted = false};
    themis_algo_cost_params_t cp;
    themis_algo_costs_t costs;
    themis_status_t st;
    char why[200];

    switch (requested) {
    case MCA_COLL_THEMIS_ALGO_THEMIS:
        return choice;
    case MCA_COLL_THEMIS_ALGO_RINGS:
    case MCA_COLL_THEMIS_ALGO_TORUS2D:
        if (2 != m->topo.ndims) {
            snprintf(why, sizeof(why),
                     "it needs a 2-D shape (coll_themis_torus or a 2-D coll_themis_dims), "
                     "this communicator has %d dimension(s)", m->topo.ndims);
            choice.substituted = true;
        } else if (MCA_COLL_THEMIS_ALGO_RINGS == requested
                   && (m->topo.dims[0].size < 3 || m->topo.dims[1].size < 3)) {
            snprintf(why, sizeof(why),
                     "two edge-disjoint Hamiltonian cycles need both torus dimensions >= 3, "
                     "this communicator is %ux%u (rows x cols)", m->topo.dims[1].size,
                     m->topo.dims[0].size);
            choice.algo = THEMIS_ALGO_TORUS2D;
            choice.substituted = true;
        } else {
            choice.algo = MCA_COLL_THEMIS_ALGO_RINGS == requested ? THEMIS_ALGO_RINGS
                                                                  : THEMIS_ALGO_TORUS2D;
        }
        if (choice.substituted) {
            report_substitution(comm, coll, requested, choice.algo, why);
        }
        return choice;
    case MCA_COLL_THEMIS_ALGO_AUTO:
    default:
        break;
    }
    if (!is_torus(m)) {
        opal_output_verbose(VERBOSE_PLAN, mca_coll_themis_component.output,
                            "coll:themis: %s: auto: %s of %llu bytes -> themis (not a torus: "
                            "rings/torus2d are considered on 2 biring dimensions only)",
                            comm->c_name, themis_coll_name(coll), (unsigned long long) bytes);
        return choice;
    }
    themis_algo_cost_params_init(&cp);
    cp.themis_chunks = nchunks;
    cp.torus_chunks = nchunks / 4 > 0 ? nchunks / 4 : 1;
    cp.inflight = cfg->inflight;
    cp.policy = cfg->order;
    st = themis_algo_costs(&m->topo, coll, bytes, &cp, &costs);
    if (THEMIS_OK != st) {
        opal_output_verbose(VERBOSE_PLAN, mca_coll_themis_component.output,
                            "coll:themis: %s: auto: %s of %llu bytes -> themis (cost model: "
                            "%s)", comm->c_name, themis_coll_name(coll),
                            (unsigned long long) bytes, themis_status_string(st));
        return choice;
    }
    choice.algo = costs.best;
    if (opal_output_get_verbosity(mca_coll_themis_component.output) >= VERBOSE_PLAN) {
        char t[THEMIS_NALGOS][32];
        for (int a = 0; a < THEMIS_NALGOS; ++a) {
            if (THEMIS_OK == costs.status[a]) {
                snprintf(t[a], sizeof(t[a]), "%.3f us", (double) costs.time[a] / 1e6);
            } else {
                snprintf(t[a], sizeof(t[a]), "%s", themis_status_string(costs.status[a]));
            }
        }
        opal_output_verbose(VERBOSE_PLAN, mca_coll_themis_component.output,
                            "coll:themis: %s: auto: %s of %llu bytes on the %ux%u torus -> %s "
                            "(predicted themis %s, rings %s, torus2d %s)",
                            comm->c_name, themis_coll_name(coll), (unsigned long long) bytes,
                            m->topo.dims[1].size, m->topo.dims[0].size,
                            themis_algo_name(choice.algo), t[THEMIS_ALGO_THEMIS],
                            t[THEMIS_ALGO_RINGS], t[THEMIS_ALGO_TORUS2D]);
    }
    return choice;
}

static themis_status_t build_themis(const mca_coll_themis_module_t *m,
                                    const themis_plan_request_t *req, uint64_t bytes,
                                    uint32_t nchunks, themis_program_t *prog)
{
    const mca_coll_themis_config_t *cfg = &mca_coll_themis_component.config;
    themis_sched_params_t sp;
    themis_schedule_t sched;
    themis_sim_params_t simp;
    themis_sim_result_t sim;
    themis_status_t st;

    themis_sched_params_init(&sp, req->coll, bytes, nchunks, cfg->scheduler);
    st = themis_schedule_build(&m->topo, &sp, &sched);
    if (THEMIS_OK != st) {
        return st;
    }
    memset(&simp, 0, sizeof(simp));
    simp.policy = cfg->order;
    simp.inflight = cfg->inflight;
    simp.record_events = 0;
    st = themis_simulate(&m->topo, &sched, &simp, &sim);
    if (THEMIS_OK == st) {
        st = themis_program_build_hier(req, &sched, &sim.order, prog);
        themis_sim_result_free(&sim);
    }
    themis_schedule_free(&sched);
    return st;
}

static themis_status_t build_program(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                                     themis_coll_t coll, uint64_t count,
                                     const uint64_t *recvcounts, size_t elem_size,
                                     themis_program_t *prog,
                                     mca_coll_themis_plan_choice_t *choice)
{
    const mca_coll_themis_config_t *cfg = &mca_coll_themis_component.config;
    const uint64_t nranks = themis_topology_npus(&m->topo);
    themis_plan_request_t req;
    uint64_t elems, nchunks;
    themis_status_t st;

    /* Elements of the full vector the collective moves per rank (the
     * caller passes the sum of recvcounts for reduce-scatter). */
    elems = THEMIS_COLL_ALLGATHER == coll ? count * nranks : count;
    nchunks = themis_chunk_count(&m->topo, elems * elem_size, elems, cfg->chunks,
                                 m->min_chunk_bytes);

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
    req.inflight = cfg->inflight;

    *choice = choose_algorithm(m, comm, coll, elems * elem_size, (uint32_t) nchunks);
    choice->nchunks = (uint32_t) nchunks;
    switch (choice->algo) {
    case THEMIS_ALGO_RINGS:
        if (NULL == m->ham) {
            themis_ham_t *ham = calloc(1, sizeof(*ham));
            if (NULL == ham) {
                return THEMIS_ERR_NOMEM;
            }
            st = themis_ham_build(m->topo.dims[1].size, m->topo.dims[0].size, ham, NULL, 0);
            if (THEMIS_OK != st) {
                free(ham);
                return st;
            }
            m->ham = ham;
        }
        return themis_program_build_rings(&req, m->ham, nchunks / 4 > 0 ? nchunks / 4 : 1,
                                          prog);
    case THEMIS_ALGO_TORUS2D:
        return themis_program_build_torus2d(&req, nchunks / 4 > 0 ? nchunks / 4 : 1, prog);
    case THEMIS_ALGO_THEMIS:
    default:
        return build_themis(m, &req, elems * elem_size, (uint32_t) nchunks, prog);
    }
}

int mca_coll_themis_plan_get(mca_coll_themis_module_t *m, struct ompi_communicator_t *comm,
                             themis_coll_t coll, uint64_t count, const uint64_t *recvcounts,
                             size_t elem_size, const themis_program_t **prog,
                             mca_coll_themis_plan_choice_t *choice)
{
    mca_coll_themis_plan_cache_t *cache = &m->cache;
    const mca_coll_themis_algorithm_t algorithm = requested_algorithm(coll);
    const int nranks = ompi_comm_size(comm);
    mca_coll_themis_plan_entry_t *victim = &cache->entries[0];
    uint64_t *counts_copy = NULL;
    mca_coll_themis_plan_choice_t ch = {.algo = THEMIS_ALGO_THEMIS, .substituted = false};
    themis_status_t st;

    ++cache->clock;
    for (int i = 0; i < MCA_COLL_THEMIS_PLAN_CACHE_SIZE; ++i) {
        mca_coll_themis_plan_entry_t *e = &cache->entries[i];
        if (entry_matches(e, coll, algorithm, count, recvcounts, nranks, elem_size)) {
            e->last_use = cache->clock;
            *prog = &e->prog;
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
    st = build_program(m, comm, coll, count, recvcounts, elem_size, &victim->prog, &ch);
    if (THEMIS_OK != st) {
        opal_output_verbose(1, mca_coll_themis_component.output,
                            "coll:themis: %s: planning %s (%s) of %llu elements x %zu bytes "
                            "failed: %s",
                            comm->c_name, themis_coll_name(coll), themis_algo_name(ch.algo),
                            (unsigned long long) count, elem_size, themis_status_string(st));
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
    victim->algorithm = algorithm;
    victim->count = count;
    victim->recvcounts = counts_copy;
    victim->elem_size = elem_size;
    victim->last_use = cache->clock;
    if (!victim->refused) {
        mca_coll_themis_plan_messages(&victim->prog, elem_size, &ch);
    }
    victim->choice = ch;
    *prog = &victim->prog;
    if (NULL != choice) {
        *choice = ch;
    }
    if (victim->refused) {
        return OMPI_ERR_NOT_SUPPORTED;
    }

    opal_output_verbose(VERBOSE_PLAN, mca_coll_themis_component.output,
                        "coll:themis: %s: planned %s (%s) of %llu elements x %zu bytes: %u "
                        "ops, %u steps, work %llu elements",
                        comm->c_name, themis_coll_name(coll), themis_algo_name(ch.algo),
                        (unsigned long long) count, elem_size, victim->prog.nops,
                        victim->prog.nsteps, (unsigned long long) victim->prog.work_count);
    return OMPI_SUCCESS;
}
