/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Inter-dimension scheduling: which order of dimensions each chunk takes.
 *   baseline: RS over dim 0..N-1, then AG over N-1..0.
 *   themis:   Algorithm 1 of themis.txt (greedy dim load tracker).
 *
 * The collective moves a vector of `bytes` bytes per NPU (the allreduce
 * buffer, the reduce-scatter input, the allgather output), split into
 * `nchunks` chunks as evenly as integers allow.  A chunk's stages are
 *   allreduce:      N RS stages then N AG stages (AG order = reverse RS)
 *   reduce-scatter: N RS stages
 *   allgather:      N AG stages
 * The first stage sees the whole chunk, except for allgather where each
 * NPU starts with ceil(chunk/P) bytes; each stage then applies
 * themis_lm_size_after.
 *
 * Algorithm 1 as implemented: the tracker starts at each dim's fixed delay
 * times the phases the collective runs there (2 for allreduce); per chunk,
 * if max - min load < threshold the chunk takes the baseline order
 * (counted in nfallbacks), else dims sorted by ascending load (allgather:
 * descending), ties by dim index; then every phase's load at the chunk's
 * size at that stage is added.  What a phase adds is the load model:
 *   bandwidth (default, Sec. 4.4): its transfer time (themis_lm_transfer_time
 *     of the bytes sent), the only term the schedule controls; the fixed
 *     delays stay as the tracker's initial value, once per collective;
 *   phase: themis_lm_phase_time, fixed delay included, as if every chunk's
 *     delays occupied the dimension (the serialized latency mode).
 * The threshold uses the same per-phase term.
 * Requires 1 <= nchunks <= min(bytes, THEMIS_MAX_CHUNKS) and a collective
 * whose phase times sum below 2^62 ps, else THEMIS_ERR_INVALID.
 */
#ifndef THEMIS_SCHEDULER_H
#define THEMIS_SCHEDULER_H

#include "topology.h"

#define THEMIS_MAX_CHUNKS (1U << 22)

typedef enum {
    THEMIS_SCHED_BASELINE = 0,
    THEMIS_SCHED_THEMIS = 1
} themis_sched_kind_t;

typedef enum {
    THEMIS_LOAD_BANDWIDTH = 0,
    THEMIS_LOAD_PHASE = 1
} themis_load_model_t;

typedef struct {
    uint8_t dim;   /* dimension index */
    uint8_t phase; /* themis_phase_t */
} themis_stage_t;

typedef struct {
    themis_coll_t coll;
    themis_sched_kind_t kind;
    uint64_t bytes;
    uint32_t nchunks;
    /* Threshold of Algorithm 1 in per mille of the paper's default (the
     * latency-model time of the chunk's RS/AG on the least-loaded
     * dimension; for allgather the AG whose result is the chunk, i.e. of
     * ceil(chunk/p) bytes). 1000 = paper default, 0 = never fall back,
     * UINT32_MAX = always (baseline). */
    uint32_t threshold_permille;
    themis_load_model_t load;   /* what a phase adds to the tracker */
} themis_sched_params_t;

typedef struct {
    themis_coll_t coll;
    int ndims;
    uint32_t nchunks;
    uint32_t nstages;           /* per chunk: 2N (AR) or N */
    uint64_t *chunk_bytes;      /* [nchunks] full-vector bytes of each chunk */
    themis_stage_t *stages;     /* [nchunks * nstages] */
    uint32_t nfallbacks;        /* chunks for which the threshold chose baseline */
} themis_schedule_t;

void themis_sched_params_init(themis_sched_params_t *p, themis_coll_t coll, uint64_t bytes,
                              uint32_t nchunks, themis_sched_kind_t kind);
themis_status_t themis_schedule_build(const themis_topology_t *topo,
                                      const themis_sched_params_t *params,
                                      themis_schedule_t *out);
void themis_schedule_free(themis_schedule_t *s);
const char *themis_sched_kind_name(themis_sched_kind_t kind);
const char *themis_load_model_name(themis_load_model_t m);
themis_status_t themis_load_model_parse(const char *s, themis_load_model_t *m);
themis_status_t themis_sched_kind_parse(const char *s, themis_sched_kind_t *kind);

/* Resident bytes of chunk c before stage s (the B of the latency model). */
uint64_t themis_schedule_stage_bytes(const themis_topology_t *topo,
                                     const themis_schedule_t *s, uint32_t chunk,
                                     uint32_t stage);

#endif
