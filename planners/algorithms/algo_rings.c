/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Row `rings` of the algorithm table (algorithm.h): HammingMesh's four
 * directed rings on the two edge-disjoint Hamiltonian cycles of an r x c
 * torus (plan_torus.h, hamiltonian.h), a quarter of the data each.
 * Correct on any 2-D shape with both sizes >= 3; fast where both
 * dimensions have links both ways, so `auto` considers it only there.
 * Cost: one of the four rings, simulated on a unidirectional ring of
 * r c nodes with the slower dimension's links (a pipelined ring goes at
 * its slowest link) and the larger step latency.  On a graph: its
 * transfer list (xfer_ring.h), the same messages per chunk as the
 * programs it runs, with at most themis_algo_cost_list_chunks' units.
 */
#include "algorithm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xfer_memo.h"
#include "xfer_ring.h"

static int rings_applies(const themis_algo_input_t *in, char *why, size_t len)
{
    const themis_topology_t *topo = in->topo;
    if (2 != topo->ndims) {
        snprintf(why, len, "it needs a 2-D shape, this one has %d dimension(s)", topo->ndims);
        return 0;
    }
    if (topo->dims[0].size < 3 || topo->dims[1].size < 3) {
        snprintf(why, len,
                 "two edge-disjoint Hamiltonian cycles need both torus dimensions >= 3, "
                 "this one is %ux%u (rows x cols)", topo->dims[1].size, topo->dims[0].size);
        return 0;
    }
    return 1;
}

static themis_status_t rings_cost(const themis_algo_input_t *in, themis_time_t *time)
{
    const themis_topology_t *topo = in->topo;
    if (!themis_cost_is_torus(topo) || !rings_applies(in, NULL, 0)) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    const themis_dim_t *d0 = &topo->dims[0], *d1 = &topo->dims[1];
    themis_topology_t ring;
    memset(&ring, 0, sizeof(ring));
    ring.ndims = 1;
    ring.dims[0] = themis_cost_one_direction((d0->bw_bps <= d1->bw_bps) ? d0 : d1);
    ring.dims[0].size = d0->size * d1->size;
    ring.dims[0].step_latency = (d0->step_latency >= d1->step_latency) ? d0->step_latency
                                                                       : d1->step_latency;
    uint64_t q = themis_cost_quarter_bytes(in->bytes);
    themis_sched_params_t sp;
    themis_schedule_t s;
    themis_sched_params_init(&sp, in->coll, q, themis_cost_clamp_chunks(in->params->torus_chunks, q),
                             THEMIS_SCHED_BASELINE);
    themis_status_t st = themis_schedule_build(&ring, &sp, &s);
    if (THEMIS_OK == st) {
        st = themis_cost_simulate(&ring, &s, THEMIS_ORDER_FIFO, in->params, time);
    }
    themis_schedule_free(&s);
    return st;
}

static void rings_state_free(void *state)
{
    if (NULL != state) {
        themis_ham_free(state);
        free(state);
    }
}

/* The cycles depend only on the shape: built once per state slot (NULL
 * without one, or when they cannot be built: st says why). */
static themis_ham_t *rings_cycles(const themis_algo_input_t *in, themis_status_t *st)
{
    themis_ham_t *ham = NULL != in->state ? *in->state : NULL;
    *st = THEMIS_OK;
    if (NULL == ham && NULL != in->state) {
        ham = calloc(1, sizeof(*ham));
        if (NULL == ham) {
            *st = THEMIS_ERR_NOMEM;
            return NULL;
        }
        *st = themis_ham_build(in->topo->dims[1].size, in->topo->dims[0].size, ham, NULL, 0);
        if (THEMIS_OK != *st) {
            free(ham);
            return NULL;
        }
        *in->state = ham;
    }
    return ham;
}

/* The cycles: the state's, else built into *own (zeroed first; the
 * caller frees it). */
static themis_ham_t *rings_cycles_or(const themis_algo_input_t *in, themis_ham_t *own,
                                     themis_status_t *st)
{
    memset(own, 0, sizeof(*own));
    themis_ham_t *ham = rings_cycles(in, st);
    if (THEMIS_OK == *st && NULL == ham) {
        *st = themis_ham_build(in->topo->dims[1].size, in->topo->dims[0].size, own, NULL, 0);
        ham = own;
    }
    return ham;
}

/* The call's list, the rank's transfers alone (the call's chunks). */
static themis_status_t rings_slice(const themis_algo_input_t *in, uint32_t rank,
                                   const int *linear_to_rank, themis_xfer_slice_t *out)
{
    themis_status_t st;
    themis_ham_t own;
    const int periodic = out->periodic;   /* the caller's ask */
    memset(out, 0, sizeof(*out));
    out->periodic = periodic;
    if (!rings_applies(in, NULL, 0)) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    themis_ham_t *ham = rings_cycles_or(in, &own, &st);
    if (THEMIS_OK == st) {
        st = themis_xfer_rings_slice(in->coll, ham, linear_to_rank, in->params->torus_chunks,
                                     rank, out);
    }
    themis_ham_free(&own);
    return st;
}

extern const themis_algorithm_t themis_algorithm_rings;

static themis_status_t rings_build(const themis_algo_input_t *in,
                                   const themis_plan_request_t *req, themis_program_t *out)
{
    return themis_algo_slice_build(&themis_algorithm_rings, in, req, out);
}

static const themis_xfer_sched_t *rings_xfer(const themis_algo_input_t *in,
                                             themis_xfer_sched_t *tmp, char *why, size_t len)
{
    themis_status_t st;
    themis_ham_t own;
    if (!rings_applies(in, why, len)) {
        return NULL;
    }
    themis_ham_t *ham = rings_cycles_or(in, &own, &st);
    uint32_t k = themis_algo_cost_list_chunks(in->params->torus_chunks,
                                              themis_topology_npus(in->topo));
    /* the list depends on the shape, the collective, k and the placement
     * (one per communicator, as the memo) alone */
    const themis_xfer_sched_t *kept = themis_xfer_memo_find(in->lists, in->coll, k);
    if (THEMIS_OK == st && NULL == kept) {
        st = themis_xfer_rings(in->coll, ham, in->coord_to_rank, k, tmp);
        kept = THEMIS_OK == st ? themis_xfer_memo_keep(in->lists, in->coll, k, tmp) : NULL;
    }
    themis_ham_free(&own);
    if (THEMIS_OK != st) {
        snprintf(why, len, "no transfer list of the rings: %s", themis_status_string(st));
        return NULL;
    }
    return kept;
}

const themis_algorithm_t themis_algorithm_rings = {
    .name = "rings",
    .summary = "HammingMesh rings: the four directed rings on two edge-disjoint Hamiltonian "
               "cycles of a 2-D torus, a quarter of the data each (both sizes >= 3)",
    .colls = THEMIS_COLLS_ALL,
    .substitute = "torus2d",
    .applies = rings_applies,
    .cost = rings_cost,
    .build = rings_build,
    .state_free = rings_state_free,
    .xfer = rings_xfer,
    .xfer_slice = rings_slice,
};
