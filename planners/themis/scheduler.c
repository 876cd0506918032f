/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Algorithm 1 of themis.txt.  The Dim Load Tracker holds integer
 * picoseconds, sorting breaks ties by dimension index, and the threshold
 * is compared in 128-bit integers: the schedule is a pure function of the
 * inputs, identical on every rank.
 */
#include "scheduler.h"

#include <stdlib.h>
#include <string.h>

#include "latency_model.h"

/* Sum of all phase times must stay far from 2^64 so that the simulator's
 * clock cannot overflow. */
#define THEMIS_MAX_TOTAL_PS (1ULL << 62)

void themis_sched_params_init(themis_sched_params_t *p, themis_coll_t coll, uint64_t bytes,
                              uint32_t nchunks, themis_sched_kind_t kind)
{
    memset(p, 0, sizeof(*p));
    p->coll = coll;
    p->kind = kind;
    p->bytes = bytes;
    p->nchunks = nchunks;
    p->threshold_permille = 1000;
    p->load = THEMIS_LOAD_BANDWIDTH;
}

const char *themis_load_model_name(themis_load_model_t m)
{
    return (THEMIS_LOAD_PHASE == m) ? "phase" : "bandwidth";
}

themis_status_t themis_load_model_parse(const char *s, themis_load_model_t *m)
{
    if (NULL == s || NULL == m) {
        return THEMIS_ERR_INVALID;
    }
    if (0 == strcmp(s, "bandwidth")) {
        *m = THEMIS_LOAD_BANDWIDTH;
        return THEMIS_OK;
    }
    if (0 == strcmp(s, "phase")) {
        *m = THEMIS_LOAD_PHASE;
        return THEMIS_OK;
    }
    return THEMIS_ERR_PARSE;
}

/* A phase's term in the Dim Load Tracker (scheduler.h). */
static themis_time_t phase_load(themis_load_model_t m, const themis_dim_t *d,
                                themis_phase_t phase, uint64_t bytes)
{
    if (THEMIS_LOAD_PHASE == m) {
        return themis_lm_phase_time(d, phase, bytes);
    }
    return themis_lm_transfer_time(d, themis_lm_bytes_sent(d, phase, bytes));
}

const char *themis_sched_kind_name(themis_sched_kind_t kind)
{
    return (THEMIS_SCHED_THEMIS == kind) ? "themis" : "baseline";
}

themis_status_t themis_sched_kind_parse(const char *s, themis_sched_kind_t *kind)
{
    if (NULL == s || NULL == kind) {
        return THEMIS_ERR_INVALID;
    }
    if (0 == strcmp(s, "baseline")) {
        *kind = THEMIS_SCHED_BASELINE;
        return THEMIS_OK;
    }
    if (0 == strcmp(s, "themis")) {
        *kind = THEMIS_SCHED_THEMIS;
        return THEMIS_OK;
    }
    return THEMIS_ERR_PARSE;
}

/* Resident bytes before the first stage: the chunk itself, except for
 * allgather where each NPU starts with its 1/P share (rounded up, as RS
 * rounds). */
static uint64_t first_stage_bytes(const themis_topology_t *topo, themis_coll_t coll,
                                  uint64_t chunk_bytes)
{
    if (THEMIS_COLL_ALLGATHER != coll) {
        return chunk_bytes;
    }
    uint64_t npus = themis_topology_npus(topo);
    return chunk_bytes / npus + ((0 != chunk_bytes % npus) ? 1 : 0);
}

uint64_t themis_schedule_stage_bytes(const themis_topology_t *topo,
                                     const themis_schedule_t *s, uint32_t chunk,
                                     uint32_t stage)
{
    if (NULL == topo || NULL == s || chunk >= s->nchunks || stage >= s->nstages) {
        return 0;
    }
    const themis_stage_t *st = &s->stages[(size_t) chunk * s->nstages];
    uint64_t b = first_stage_bytes(topo, s->coll, s->chunk_bytes[chunk]);
    for (uint32_t i = 0; i < stage; i++) {
        b = themis_lm_size_after(&topo->dims[st[i].dim], (themis_phase_t) st[i].phase, b);
    }
    return b;
}

/* Dimensions sorted by load, ascending or descending, ties by index. */
static void sort_dims(const themis_time_t *load, int n, int descending, uint8_t *order)
{
    for (int i = 0; i < n; i++) {
        order[i] = (uint8_t) i;
    }
    for (int i = 1; i < n; i++) {
        uint8_t d = order[i];
        int j = i - 1;
        while (j >= 0) {
            themis_time_t a = load[order[j]], b = load[d];
            int after = descending ? (a < b) : (a > b); /* equal loads keep index order */
            if (!after) {
                break;
            }
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = d;
    }
}

void themis_schedule_free(themis_schedule_t *s)
{
    if (NULL == s) {
        return;
    }
    free(s->chunk_bytes);
    free(s->stages);
    memset(s, 0, sizeof(*s));
}

themis_status_t themis_schedule_build(const themis_topology_t *topo,
                                      const themis_sched_params_t *params,
                                      themis_schedule_t *out)
{
    if (NULL == out) {
        return THEMIS_ERR_INVALID;
    }
    memset(out, 0, sizeof(*out));
    if (NULL == params || THEMIS_OK != themis_topology_check(topo, NULL, 0)) {
        return THEMIS_ERR_INVALID;
    }
    themis_coll_t coll = params->coll;
    if ((THEMIS_COLL_ALLREDUCE != coll && THEMIS_COLL_REDUCE_SCATTER != coll &&
         THEMIS_COLL_ALLGATHER != coll) ||
        (THEMIS_SCHED_BASELINE != params->kind && THEMIS_SCHED_THEMIS != params->kind) ||
        (THEMIS_LOAD_BANDWIDTH != params->load && THEMIS_LOAD_PHASE != params->load)) {
        return THEMIS_ERR_INVALID;
    }
    /* Every chunk needs at least one byte; sizes stay below 2^62 so that
     * AG growth and rounding cannot overflow. */
    if (0 == params->nchunks || params->nchunks > THEMIS_MAX_CHUNKS ||
        params->bytes < params->nchunks || params->bytes > (1ULL << 62)) {
        return THEMIS_ERR_INVALID;
    }

    const int n = topo->ndims;
    const uint32_t nchunks = params->nchunks;
    const uint32_t nstages = (THEMIS_COLL_ALLREDUCE == coll) ? 2 * (uint32_t) n : (uint32_t) n;
    const int ag_only = (THEMIS_COLL_ALLGATHER == coll);
    const themis_phase_t first_phase = ag_only ? THEMIS_PHASE_AG : THEMIS_PHASE_RS;

    out->coll = coll;
    out->ndims = n;
    out->nchunks = nchunks;
    out->nstages = nstages;
    out->chunk_bytes = malloc(sizeof(uint64_t) * nchunks);
    out->stages = malloc(sizeof(themis_stage_t) * (size_t) nchunks * nstages);
    if (NULL == out->chunk_bytes || NULL == out->stages) {
        themis_schedule_free(out);
        return THEMIS_ERR_NOMEM;
    }

    /* Dim Load Tracker, line 2: each dimension's fixed delay, once per
     * phase the collective runs there. */
    themis_time_t load[THEMIS_MAX_DIMS];
    unsigned __int128 total = 0;
    for (int k = 0; k < n; k++) {
        load[k] = themis_lm_fixed_delay(&topo->dims[k]) * (nstages / (uint32_t) n);
    }

    const uint64_t base = params->bytes / nchunks;
    const uint64_t extra = params->bytes % nchunks;
    for (uint32_t c = 0; c < nchunks; c++) {
        uint64_t cb = base + ((c < extra) ? 1 : 0);
        out->chunk_bytes[c] = cb;

        /* order[] is the chunk's first-half order: RS order (AR, RS) or AG
         * order (AG). */
        uint8_t order[THEMIS_MAX_DIMS];
        int use_baseline = (THEMIS_SCHED_BASELINE == params->kind);
        if (!use_baseline) {
            int kmin = 0, kmax = 0;
            for (int k = 1; k < n; k++) {
                if (load[k] < load[kmin]) {
                    kmin = k;
                }
                if (load[k] > load[kmax]) {
                    kmax = k;
                }
            }
            /* Sec. 5.3 threshold: the chunk's RS (for AG: the AG that
             * produces the chunk) on the least-loaded dimension. */
            const themis_dim_t *dmin = &topo->dims[kmin];
            uint64_t tb = ag_only ? themis_lm_size_after(dmin, THEMIS_PHASE_RS, cb) : cb;
            unsigned __int128 thr = (unsigned __int128) phase_load(params->load, dmin, first_phase, tb) *
                                    params->threshold_permille / 1000;
            if ((unsigned __int128) (load[kmax] - load[kmin]) < thr) {
                use_baseline = 1;
                out->nfallbacks++;
            }
        }
        if (use_baseline) {
            for (int k = 0; k < n; k++) {
                order[k] = (uint8_t) (ag_only ? n - 1 - k : k);
            }
        } else {
            sort_dims(load, n, ag_only, order);
        }

        themis_stage_t *st = &out->stages[(size_t) c * nstages];
        for (int k = 0; k < n; k++) {
            st[k].dim = order[k];
            st[k].phase = (uint8_t) first_phase;
            if (THEMIS_COLL_ALLREDUCE == coll) {
                st[2 * n - 1 - k].dim = order[k];
                st[2 * n - 1 - k].phase = THEMIS_PHASE_AG;
            }
        }

        /* Lines 28-30: add each phase's load at the size the chunk has when
         * it reaches that stage.  The bound on the collective's total is on
         * full phase times whatever the load model: the simulator's clock
         * runs on those. */
        uint64_t b = first_stage_bytes(topo, coll, cb);
        for (uint32_t s = 0; s < nstages; s++) {
            const themis_dim_t *d = &topo->dims[st[s].dim];
            total += themis_lm_phase_time(d, (themis_phase_t) st[s].phase, b);
            if (total > THEMIS_MAX_TOTAL_PS) {
                themis_schedule_free(out);
                return THEMIS_ERR_INVALID;
            }
            load[st[s].dim] += phase_load(params->load, d, (themis_phase_t) st[s].phase, b);
            b = themis_lm_size_after(d, (themis_phase_t) st[s].phase, b);
        }
    }
    return THEMIS_OK;
}
