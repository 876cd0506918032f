/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Cost model of Themis, rings and torus2d on a 2D torus (algo_cost.h).
 * Chunk counts are clamped to the bytes available (the scheduler needs a
 * byte per chunk); 0 bytes is refused as there is nothing to predict.
 */
#include "algo_cost.h"

#include <stdlib.h>
#include <string.h>

void themis_algo_cost_params_init(themis_algo_cost_params_t *p)
{
    memset(p, 0, sizeof(*p));
    p->themis_chunks = 64;
    p->torus_chunks = 1;
    p->inflight = 1;
    p->policy = THEMIS_ORDER_SCF;
}

const char *themis_algo_name(themis_algo_t a)
{
    switch (a) {
    case THEMIS_ALGO_THEMIS:
        return "themis";
    case THEMIS_ALGO_RINGS:
        return "rings";
    case THEMIS_ALGO_TORUS2D:
        return "torus2d";
    }
    return "unknown";
}

themis_status_t themis_algo_parse(const char *s, themis_algo_t *a)
{
    if (NULL == s || NULL == a) {
        return THEMIS_ERR_INVALID;
    }
    for (int i = 0; i < THEMIS_NALGOS; i++) {
        if (0 == strcmp(s, themis_algo_name((themis_algo_t)i))) {
            *a = (themis_algo_t)i;
            return THEMIS_OK;
        }
    }
    return THEMIS_ERR_PARSE;
}

static uint32_t clamp_chunks(uint32_t want, uint64_t bytes)
{
    return (want > bytes) ? (uint32_t)bytes : want;
}

static uint64_t quarter_bytes(uint64_t bytes)
{
    return bytes / 4 + ((0 != bytes % 4) ? 1 : 0);
}

/* One direction's links of a biring dimension, as a unidirectional ring. */
static themis_dim_t one_direction(const themis_dim_t *d)
{
    themis_dim_t l = *d;
    l.kind = THEMIS_DIM_RING;
    l.bw_bps = (d->bw_bps > 1) ? d->bw_bps / 2 : 1;
    return l;
}

static themis_status_t run_sim(const themis_topology_t *topo, const themis_schedule_t *s,
                               themis_order_policy_t policy, uint32_t inflight,
                               themis_time_t *time)
{
    themis_sim_params_t sp;
    themis_sim_result_t r;
    memset(&sp, 0, sizeof(sp));
    memset(&r, 0, sizeof(r));
    sp.policy = policy;
    sp.inflight = inflight;
    themis_status_t st = themis_simulate(topo, s, &sp, &r);
    if (THEMIS_OK == st) {
        *time = r.stats.total_time;
    }
    themis_sim_result_free(&r);
    return st;
}

static themis_status_t cost_themis(const themis_topology_t *topo, themis_coll_t coll,
                                   uint64_t bytes, const themis_algo_cost_params_t *p,
                                   themis_time_t *time)
{
    themis_sched_params_t sp;
    themis_schedule_t s;
    themis_sched_params_init(&sp, coll, bytes, clamp_chunks(p->themis_chunks, bytes),
                             THEMIS_SCHED_THEMIS);
    themis_status_t st = themis_schedule_build(topo, &sp, &s);
    if (THEMIS_OK == st) {
        st = run_sim(topo, &s, p->policy, p->inflight, time);
    }
    themis_schedule_free(&s);
    return st;
}

static themis_status_t cost_rings(const themis_topology_t *topo, themis_coll_t coll,
                                  uint64_t bytes, const themis_algo_cost_params_t *p,
                                  themis_time_t *time)
{
    const themis_dim_t *d0 = &topo->dims[0], *d1 = &topo->dims[1];
    if (d0->size < 3 || d1->size < 3) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    themis_topology_t ring;
    memset(&ring, 0, sizeof(ring));
    ring.ndims = 1;
    ring.dims[0] = one_direction((d0->bw_bps <= d1->bw_bps) ? d0 : d1);
    ring.dims[0].size = d0->size * d1->size;
    ring.dims[0].step_latency = (d0->step_latency >= d1->step_latency) ? d0->step_latency
                                                                       : d1->step_latency;
    uint64_t q = quarter_bytes(bytes);
    themis_sched_params_t sp;
    themis_schedule_t s;
    themis_sched_params_init(&sp, coll, q, clamp_chunks(p->torus_chunks, q), THEMIS_SCHED_BASELINE);
    themis_status_t st = themis_schedule_build(&ring, &sp, &s);
    if (THEMIS_OK == st) {
        st = run_sim(&ring, &s, THEMIS_ORDER_FIFO, p->inflight, time);
    }
    themis_schedule_free(&s);
    return st;
}

/* Stages of a torus2d chunk that starts on dimension a (plan_torus.h). */
static void t2d_stages(themis_coll_t coll, int a, themis_stage_t *st)
{
    int b = 1 - a;
    switch (coll) {
    case THEMIS_COLL_ALLREDUCE:
        st[0] = (themis_stage_t){.dim = (uint8_t)a, .phase = THEMIS_PHASE_RS};
        st[1] = (themis_stage_t){.dim = (uint8_t)b, .phase = THEMIS_PHASE_RS};
        st[2] = (themis_stage_t){.dim = (uint8_t)b, .phase = THEMIS_PHASE_AG};
        st[3] = (themis_stage_t){.dim = (uint8_t)a, .phase = THEMIS_PHASE_AG};
        return;
    case THEMIS_COLL_REDUCE_SCATTER:
        st[0] = (themis_stage_t){.dim = (uint8_t)a, .phase = THEMIS_PHASE_RS};
        st[1] = (themis_stage_t){.dim = (uint8_t)b, .phase = THEMIS_PHASE_RS};
        return;
    case THEMIS_COLL_ALLGATHER:
        st[0] = (themis_stage_t){.dim = (uint8_t)b, .phase = THEMIS_PHASE_AG};
        st[1] = (themis_stage_t){.dim = (uint8_t)a, .phase = THEMIS_PHASE_AG};
        return;
    }
}

static themis_status_t cost_torus2d(const themis_topology_t *topo, themis_coll_t coll,
                                    uint64_t bytes, const themis_algo_cost_params_t *p,
                                    themis_time_t *time)
{
    themis_topology_t links;
    memset(&links, 0, sizeof(links));
    links.ndims = 2;
    links.dims[0] = one_direction(&topo->dims[0]);
    links.dims[1] = one_direction(&topo->dims[1]);
    uint64_t q = quarter_bytes(bytes);
    uint32_t k = clamp_chunks(p->torus_chunks, q);
    themis_schedule_t s;
    memset(&s, 0, sizeof(s));
    s.coll = coll;
    s.ndims = 2;
    s.nchunks = 2 * k;
    s.nstages = (THEMIS_COLL_ALLREDUCE == coll) ? 4 : 2;
    s.chunk_bytes = malloc(s.nchunks * sizeof(uint64_t));
    s.stages = malloc((size_t)s.nchunks * s.nstages * sizeof(themis_stage_t));
    themis_status_t st = THEMIS_ERR_NOMEM;
    if (NULL != s.chunk_bytes && NULL != s.stages) {
        /* chunk 2i: quarter 0 (rows first), chunk 2i+1: quarter 2 (columns first) */
        for (uint32_t c = 0; c < s.nchunks; c++) {
            uint64_t cb = q / k + ((c / 2 < q % k) ? 1 : 0);
            s.chunk_bytes[c] = cb;
            t2d_stages(coll, (int)(c & 1), &s.stages[(size_t)c * s.nstages]);
        }
        st = run_sim(&links, &s, THEMIS_ORDER_FIFO, p->inflight, time);
    }
    themis_schedule_free(&s);
    return st;
}

themis_status_t themis_algo_cost(const themis_topology_t *topo, themis_algo_t algo,
                                 themis_coll_t coll, uint64_t bytes,
                                 const themis_algo_cost_params_t *params, themis_time_t *time)
{
    if (NULL == topo || NULL == params || NULL == time || 0 == bytes ||
        0 == params->themis_chunks || 0 == params->torus_chunks || 0 == params->inflight ||
        2 != topo->ndims || THEMIS_OK != themis_topology_check(topo, NULL, 0)) {
        return THEMIS_ERR_INVALID;
    }
    if (THEMIS_ALGO_THEMIS != algo && (THEMIS_DIM_BIRING != topo->dims[0].kind ||
                                       THEMIS_DIM_BIRING != topo->dims[1].kind)) {
        return THEMIS_ERR_UNSUPPORTED; /* rings and torus2d use both link directions */
    }
    switch (algo) {
    case THEMIS_ALGO_THEMIS:
        return cost_themis(topo, coll, bytes, params, time);
    case THEMIS_ALGO_RINGS:
        return cost_rings(topo, coll, bytes, params, time);
    case THEMIS_ALGO_TORUS2D:
        return cost_torus2d(topo, coll, bytes, params, time);
    }
    return THEMIS_ERR_INVALID;
}

themis_status_t themis_algo_costs(const themis_topology_t *topo, themis_coll_t coll,
                                  uint64_t bytes, const themis_algo_cost_params_t *params,
                                  themis_algo_costs_t *out)
{
    if (NULL == out) {
        return THEMIS_ERR_INVALID;
    }
    memset(out, 0, sizeof(*out));
    int found = 0;
    for (int a = 0; a < THEMIS_NALGOS; a++) {
        out->status[a] = themis_algo_cost(topo, (themis_algo_t)a, coll, bytes, params,
                                          &out->time[a]);
        if (THEMIS_OK == out->status[a] && (!found || out->time[a] < out->time[out->best])) {
            out->best = (themis_algo_t)a;
            found = 1;
        }
    }
    return found ? THEMIS_OK : out->status[THEMIS_ALGO_THEMIS];
}
