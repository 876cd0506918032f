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
 * and torus2d allreduce.  Fixed table of MCA_COLL_THEMIS_PLAN_CACHE_SIZE entries, least
 * recently used replaced; freed with the module.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"

#include "coll_themis.h"

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

/* The algorithm of an allreduce (the parameter names it for allreduce
 * only; the other collectives always run Themis).  auto asks the cost
 * model on 2-D shapes: integer arithmetic on agreed inputs, so every rank
 * picks the same. */
static themis_algo_t choose_algorithm(const mca_coll_themis_module_t *m, themis_coll_t coll,
                                      uint64_t bytes, uint32_t nchunks)
{
    const mca_coll_themis_config_t *cfg = &mca_coll_themis_component.config;
    themis_algo_cost_params_t cp;
    themis_algo_costs_t costs;

    if (THEMIS_COLL_ALLREDUCE != coll) {
        return THEMIS_ALGO_THEMIS;
    }
    switch (cfg->algorithm) {
    case MCA_COLL_THEMIS_ALGO_RINGS:
        return THEMIS_ALGO_RINGS;
    case MCA_COLL_THEMIS_ALGO_TORUS2D:
        return THEMIS_ALGO_TORUS2D;
    case MCA_COLL_THEMIS_ALGO_THEMIS:
        return THEMIS_ALGO_THEMIS;
    case MCA_COLL_THEMIS_ALGO_AUTO:
    default:
        break;
    }
    if (2 != m->topo.ndims) {
        return THEMIS_ALGO_THEMIS;
    }
    themis_algo_cost_params_init(&cp);
    cp.themis_chunks = nchunks;
    cp.torus_chunks = nchunks / 4 > 0 ? nchunks / 4 : 1;
    cp.inflight = cfg->inflight;
    cp.policy = cfg->order;
    if (THEMIS_OK != themis_algo_costs(&m->topo, coll, bytes, &cp, &costs)) {
        return THEMIS_ALGO_THEMIS;
    }
    return costs.best;
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

static themis_status_t build_program(mca_coll_themis_module_t *m, int rank, themis_coll_t coll,
                                     uint64_t count, const uint64_t *recvcounts,
                                     size_t elem_size, themis_program_t *prog,
                                     themis_algo_t *algo)
{
    const mca_coll_themis_config_t *cfg = &mca_coll_themis_component.config;
    const uint64_t nranks = themis_topology_npus(&m->topo);
    themis_plan_request_t req;
    uint64_t elems, nchunks;
    themis_status_t st;

    /* Elements of the full vector the collective moves per rank (the
     * caller passes the sum of recvcounts for reduce-scatter). */
    elems = THEMIS_COLL_ALLGATHER == coll ? count * nranks : count;
    /* No more chunks than elements: every chunk then carries data. */
    nchunks = cfg->chunks;
    if (nchunks > elems) {
        nchunks = elems;
    }
    if (0 == nchunks) {
        nchunks = 1;
    }

    memset(&req, 0, sizeof(req));
    req.coll = coll;
    req.ndims = m->topo.ndims;
    for (int i = 0; i < m->topo.ndims; ++i) {
        req.dim_size[i] = m->topo.dims[i].size;
        req.dim_algo[i] = m->dim_algo[i];
    }
    req.rank = rank;
    req.coord_to_rank = m->coord_to_rank;
    req.count = THEMIS_COLL_REDUCE_SCATTER == coll ? 0 : count;
    req.recvcounts = recvcounts;
    req.inflight = cfg->inflight;

    *algo = choose_algorithm(m, coll, elems * elem_size, (uint32_t) nchunks);
    switch (*algo) {
    case THEMIS_ALGO_RINGS:
        if (2 != m->topo.ndims) {
            return THEMIS_ERR_UNSUPPORTED;
        }
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
        if (2 != m->topo.ndims) {
            return THEMIS_ERR_UNSUPPORTED;
        }
        return themis_program_build_torus2d(&req, nchunks / 4 > 0 ? nchunks / 4 : 1, prog);
    case THEMIS_ALGO_THEMIS:
    default:
        return build_themis(m, &req, elems * elem_size, (uint32_t) nchunks, prog);
    }
}

int mca_coll_themis_plan_get(mca_coll_themis_module_t *m, struct ompi_communicator_t *comm,
                             themis_coll_t coll, uint64_t count, const uint64_t *recvcounts,
                             size_t elem_size, const themis_program_t **prog)
{
    mca_coll_themis_plan_cache_t *cache = &m->cache;
    const mca_coll_themis_algorithm_t algorithm = mca_coll_themis_component.config.algorithm;
    const int nranks = ompi_comm_size(comm);
    mca_coll_themis_plan_entry_t *victim = &cache->entries[0];
    uint64_t *counts_copy = NULL;
    themis_algo_t algo = THEMIS_ALGO_THEMIS;
    themis_status_t st;

    ++cache->clock;
    for (int i = 0; i < MCA_COLL_THEMIS_PLAN_CACHE_SIZE; ++i) {
        mca_coll_themis_plan_entry_t *e = &cache->entries[i];
        if (entry_matches(e, coll, algorithm, count, recvcounts, nranks, elem_size)) {
            e->last_use = cache->clock;
            *prog = &e->prog;
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
    st = build_program(m, ompi_comm_rank(comm), coll, count, recvcounts, elem_size,
                       &victim->prog, &algo);
    if (THEMIS_OK != st) {
        opal_output_verbose(1, mca_coll_themis_component.output,
                            "coll:themis: %s: planning %s (%s) of %llu elements x %zu bytes "
                            "failed: %s",
                            comm->c_name, themis_coll_name(coll), themis_algo_name(algo),
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
    *prog = &victim->prog;
    if (victim->refused) {
        return OMPI_ERR_NOT_SUPPORTED;
    }

    opal_output_verbose(10, mca_coll_themis_component.output,
                        "coll:themis: %s: planned %s (%s) of %llu elements x %zu bytes: %u "
                        "ops, %u steps, work %llu elements",
                        comm->c_name, themis_coll_name(coll), themis_algo_name(algo),
                        (unsigned long long) count, elem_size, victim->prog.nops,
                        victim->prog.nsteps, (unsigned long long) victim->prog.work_count);
    return OMPI_SUCCESS;
}
