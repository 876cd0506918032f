/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The algorithm table (algorithm.h), built from planners/algorithms.def,
 * and the choices made from it.
 */
#include "algorithm.h"

#include <stdio.h>
#include <string.h>

#define THEMIS_ALGORITHM(n) extern const themis_algorithm_t themis_algorithm_##n;
#include "algorithms.def"
#undef THEMIS_ALGORITHM

static const themis_algorithm_t *const table[] = {
#define THEMIS_ALGORITHM(n) &themis_algorithm_##n,
#include "algorithms.def"
#undef THEMIS_ALGORITHM
};

#define NROWS ((int) (sizeof(table) / sizeof(table[0])))
_Static_assert(NROWS <= THEMIS_MAX_ALGORITHMS, "raise THEMIS_MAX_ALGORITHMS");

int themis_nalgorithms(void)
{
    return NROWS;
}

const themis_algorithm_t *themis_algorithm_get(int index)
{
    return (index >= 0 && index < NROWS) ? table[index] : NULL;
}

int themis_algorithm_index(const char *name)
{
    for (int i = 0; NULL != name && i < NROWS; i++) {
        if (0 == strcmp(name, table[i]->name)) {
            return i;
        }
    }
    return -1;
}

int themis_algorithm_serves(int index, themis_coll_t coll)
{
    const themis_algorithm_t *a = themis_algorithm_get(index);
    return NULL != a && 0 != (a->colls & THEMIS_COLL_BIT(coll));
}

static int runs_here(int index, const themis_algo_input_t *in, char *why, size_t len)
{
    if (!themis_algorithm_serves(index, in->coll)) {
        snprintf(why, len, "it does not implement %s", themis_coll_name(in->coll));
        return 0;
    }
    return table[index]->applies(in, why, len);
}

themis_status_t themis_algo_cost(const themis_topology_t *topo, int index, themis_coll_t coll,
                                 uint64_t bytes, const themis_algo_cost_params_t *params,
                                 themis_time_t *time)
{
    if (NULL == topo || NULL == params || NULL == time || 0 == bytes ||
        0 == params->themis_chunks || 0 == params->torus_chunks || 0 == params->chunks_in_flight ||
        NULL == themis_algorithm_get(index) || THEMIS_OK != themis_topology_check(topo, NULL, 0)) {
        return THEMIS_ERR_INVALID;
    }
    themis_algo_input_t in = {.topo = topo, .coll = coll, .bytes = bytes, .params = params};
    char why[8];
    if (!runs_here(index, &in, why, sizeof(why))) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    return table[index]->cost(&in, time);
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
    for (int a = 0; a < NROWS; a++) {
        out->status[a] = themis_algo_cost(topo, a, coll, bytes, params, &out->time[a]);
        if (THEMIS_OK == out->status[a] && (!found || out->time[a] < out->time[out->best])) {
            out->best = a;
            found = 1;
        }
    }
    return found ? THEMIS_OK : out->status[0];
}

/* One model for all rows: the link simulator on a given graph, else each
 * row's own. */
static themis_status_t row_cost(int a, const themis_algo_input_t *in, themis_time_t *time)
{
    return NULL != in->graph ? themis_algo_graph_cost(a, in, time) : table[a]->cost(in, time);
}

themis_status_t themis_algorithm_choose(int requested, const themis_algo_input_t *in,
                                        themis_algo_choice_t *out)
{
    memset(out, 0, sizeof(*out));
    if (NULL == in || NULL == in->topo || NULL == in->params
        || (THEMIS_ALGO_AUTO != requested && NULL == themis_algorithm_get(requested))) {
        return THEMIS_ERR_INVALID;
    }
    if (THEMIS_ALGO_AUTO != requested) {
        /* Follow the substitution chain; it ends at row 0, and a chain
         * longer than the table would be a cycle in the table. */
        int at = requested;
        for (int hops = 0; hops <= NROWS; hops++) {
            char why[sizeof(out->why)];
            if (runs_here(at, in, why, sizeof(why))) {
                out->index = at;
                return THEMIS_OK;
            }
            if (!out->substituted) {
                snprintf(out->why, sizeof(out->why), "%s", why);
                out->substituted = 1;
            }
            if (NULL == table[at]->substitute) {
                /* Row 0 always runs; another row without a substitute
                 * falls back. */
                return THEMIS_ERR_UNSUPPORTED;
            }
            at = themis_algorithm_index(table[at]->substitute);
            if (at < 0) {
                return THEMIS_ERR_INVALID;
            }
        }
        return THEMIS_ERR_INVALID;
    }

    /* auto: cost the other rows first; row 0 only when one of them has a
     * time to compare with. */
    int best = 0, others = 0;
    for (int a = 0; a < NROWS; a++) {
        out->status[a] = THEMIS_ERR_UNSUPPORTED;
    }
    for (int a = 1; a < NROWS; a++) {
        char why[8];
        if (!runs_here(a, in, why, sizeof(why))) {
            continue;
        }
        out->status[a] = row_cost(a, in, &out->time[a]);
        others += THEMIS_OK == out->status[a];
    }
    out->index = 0;
    if (0 == others) {
        return THEMIS_OK;
    }
    out->costed = 1;
    out->status[0] = row_cost(0, in, &out->time[0]);
    best = -1;
    for (int a = 0; a < NROWS; a++) {
        if (THEMIS_OK == out->status[a] && (best < 0 || out->time[a] < out->time[best])) {
            best = a;
        }
    }
    out->index = best;
    return THEMIS_OK;
}
