/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Row `torus2d` of the algorithm table (algorithm.h): HammingMesh's 2-D
 * torus algorithm (plan_torus.h): each quarter reduces along one
 * dimension, then the other, the four quarters on the four links of a
 * node.  Correct on any 2-D shape; `auto` considers it where both
 * dimensions have links both ways.  Cost: the + direction quarters (the -
 * ones mirror them on their own links) as a schedule whose chunks
 * alternate dimension orders (0,1) and (1,0), simulated on two
 * unidirectional rings.  On a graph: its transfer list (xfer_ring.h),
 * the same messages per chunk as the programs it runs, with at most
 * themis_algo_cost_list_chunks' units.
 */
#include "algorithm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xfer_memo.h"
#include "xfer_ring.h"

static int torus2d_applies(const themis_algo_input_t *in, char *why, size_t len)
{
    if (2 != in->topo->ndims) {
        snprintf(why, len, "it needs a 2-D shape, this one has %d dimension(s)",
                 in->topo->ndims);
        return 0;
    }
    return 1;
}

/* The stages of a chunk that goes along dimension a first. */
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

static themis_status_t torus2d_cost(const themis_algo_input_t *in, themis_time_t *time)
{
    const themis_topology_t *topo = in->topo;
    if (!themis_cost_is_torus(topo)) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    themis_topology_t links;
    memset(&links, 0, sizeof(links));
    links.ndims = 2;
    links.dims[0] = themis_cost_one_direction(&topo->dims[0]);
    links.dims[1] = themis_cost_one_direction(&topo->dims[1]);
    uint64_t q = themis_cost_quarter_bytes(in->bytes);
    uint32_t k = themis_cost_clamp_chunks(in->params->torus_chunks, q);
    themis_schedule_t s;
    memset(&s, 0, sizeof(s));
    s.coll = in->coll;
    s.ndims = 2;
    s.nchunks = 2 * k;
    s.nstages = (THEMIS_COLL_ALLREDUCE == in->coll) ? 4 : 2;
    s.chunk_bytes = malloc(s.nchunks * sizeof(uint64_t));
    s.stages = malloc((size_t)s.nchunks * s.nstages * sizeof(themis_stage_t));
    themis_status_t st = THEMIS_ERR_NOMEM;
    if (NULL != s.chunk_bytes && NULL != s.stages) {
        /* chunk 2i: quarter 0 (rows first), chunk 2i+1: quarter 2 (columns first) */
        for (uint32_t c = 0; c < s.nchunks; c++) {
            uint64_t cb = q / k + ((c / 2 < q % k) ? 1 : 0);
            s.chunk_bytes[c] = cb;
            t2d_stages(in->coll, (int)(c & 1), &s.stages[(size_t)c * s.nstages]);
        }
        st = themis_cost_simulate(&links, &s, THEMIS_ORDER_FIFO, in->params, time);
    }
    themis_schedule_free(&s);
    return st;
}

/* The call's list, the rank's transfers alone (the call's chunks). */
static themis_status_t torus2d_slice(const themis_algo_input_t *in, uint32_t rank,
                                     const int *linear_to_rank, themis_xfer_slice_t *out)
{
    const int periodic = out->periodic;   /* the caller's ask */
    memset(out, 0, sizeof(*out));
    out->periodic = periodic;
    if (!torus2d_applies(in, NULL, 0)) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    return themis_xfer_torus2d_slice(in->coll, in->topo->dims[1].size, in->topo->dims[0].size,
                                     linear_to_rank, in->params->torus_chunks, rank, out);
}

extern const themis_algorithm_t themis_algorithm_torus2d;

static themis_status_t torus2d_build(const themis_algo_input_t *in,
                                     const themis_plan_request_t *req, themis_program_t *out)
{
    return themis_algo_slice_build(&themis_algorithm_torus2d, in, req, out);
}

static const themis_xfer_sched_t *torus2d_xfer(const themis_algo_input_t *in,
                                               themis_xfer_sched_t *tmp, char *why, size_t len)
{
    if (!torus2d_applies(in, why, len)) {
        return NULL;
    }
    uint32_t k = themis_algo_cost_list_chunks(in->params->torus_chunks,
                                              themis_topology_npus(in->topo));
    /* the list depends on the shape, the collective, k and the placement
     * (one per communicator, as the memo) alone */
    const themis_xfer_sched_t *kept = themis_xfer_memo_find(in->lists, in->coll, k);
    if (NULL != kept) {
        return kept;
    }
    themis_status_t st = themis_xfer_torus2d(in->coll, in->topo->dims[1].size,
                                             in->topo->dims[0].size, in->coord_to_rank, k,
                                             tmp);
    if (THEMIS_OK != st) {
        snprintf(why, len, "no transfer list of torus2d: %s", themis_status_string(st));
        return NULL;
    }
    return themis_xfer_memo_keep(in->lists, in->coll, k, tmp);
}

const themis_algorithm_t themis_algorithm_torus2d = {
    .name = "torus2d",
    .summary = "HammingMesh 2-D torus algorithm: each quarter of the data reduces along one "
               "dimension, then the other, on the four links of a node (any 2-D shape)",
    .colls = THEMIS_COLLS_ALL,
    .substitute = "themis",
    .applies = torus2d_applies,
    .cost = torus2d_cost,
    .build = torus2d_build,
    .state_free = NULL,
    .xfer = torus2d_xfer,
    .xfer_slice = torus2d_slice,
};
