/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The algorithm table (algorithm.h), built from planners/algorithms/algorithms.def,
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
 * row's own; each row with its own state where the caller keeps them. */
static themis_status_t row_cost(int a, const themis_algo_input_t *in, themis_time_t *time)
{
    themis_algo_input_t rin = *in;
    if (NULL != in->states) {
        rin.state = &in->states[a];
    }
    return NULL != in->graph ? themis_algo_graph_cost(a, &rin, time) : table[a]->cost(&rin, time);
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

/* Row a for the call: it applies and its build serves the counts (the
 * row's own rules: nothing here repeats them).  THEMIS_ERR_UNSUPPORTED
 * with out->reason[a] where it cannot. */
static themis_status_t try_row(int a, const themis_algo_input_t *in,
                               const themis_plan_request_t *req, themis_algo_choice_t *out,
                               themis_program_t *prog)
{
    char *why = out->reason[a];
    const size_t len = sizeof(out->reason[a]);
    char bwhy[256] = "";
    themis_algo_input_t rin = *in;

    if (!runs_here(a, in, why, len)) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    rin.state = NULL != in->states ? &in->states[a] : NULL;
    rin.why = bwhy;
    rin.why_len = sizeof(bwhy);
    memset(prog, 0, sizeof(*prog));
    themis_status_t st = table[a]->build(&rin, req, prog);
    if (THEMIS_OK == st) {
        return st;
    }
    memset(prog, 0, sizeof(*prog));
    if (THEMIS_ERR_NOMEM == st) {
        snprintf(why, len, "out of memory");
        return st;
    }
    /* the reason is listed under the row's name: without its own prefix */
    size_t name_len = strlen(table[a]->name);
    const char *text = bwhy;
    if (0 == strncmp(text, table[a]->name, name_len) && ':' == text[name_len]
        && ' ' == text[name_len + 1]) {
        text += name_len + 2;
    }
    snprintf(why, len, "%s", '\0' != text[0] ? text : themis_status_string(st));
    return THEMIS_ERR_UNSUPPORTED;
}

static int listed(const int *order, int n, int a)
{
    for (int i = 0; i < n; ++i) {
        if (order[i] == a) {
            return 1;
        }
    }
    return 0;
}

/* order[0 .. n) tried: then the rows t times at in->bytes, fastest first
 * (ties to the lower index), the requested row's substitute chain and
 * row 0; rows the bounds left out say so.  The new length. */
static int extend_order(int requested, const themis_algo_input_t *in,
                        const themis_algo_table_t *t, themis_algo_choice_t *out, int *order,
                        int n)
{
    if (NULL != t && t->built && t->costed) {
        themis_time_t fastest = 0;
        int any = 0;
        out->costed = 1;
        themis_algo_table_at(t, in->bytes, out->status, out->time);
        for (int a = 0; a < NROWS; ++a) {
            if (THEMIS_OK == out->status[a] && (!any || out->time[a] < fastest)) {
                fastest = out->time[a];
                any = 1;
            }
        }
        for (int a = 0; a < NROWS; ++a) {
            themis_time_t lb;
            if (!listed(order, n, a) && themis_algo_table_skipped_at(t, a, in->bytes, &lb)) {
                snprintf(out->reason[a], sizeof(out->reason[a]),
                         "not evaluated: bound %.3f us >= best %.3f us", (double) lb / 1e6,
                         (double) fastest / 1e6);
            } else if (!listed(order, n, a)) {
                out->reason[a][0] = '\0';
            }
        }
        for (;;) {
            int best = -1;
            for (int a = 0; a < NROWS; ++a) {
                if (THEMIS_OK == out->status[a] && !listed(order, n, a)
                    && (best < 0 || out->time[a] < out->time[best])) {
                    best = a;
                }
            }
            if (best < 0) {
                break;
            }
            order[n++] = best;
        }
    }
    for (int at = requested; THEMIS_ALGO_AUTO != at && NULL != table[at]->substitute;) {
        at = themis_algorithm_index(table[at]->substitute);
        if (at < 0 || listed(order, n, at)) {
            break;
        }
        order[n++] = at;
    }
    if (!listed(order, n, 0)) {
        order[n++] = 0;
    }
    return n;
}

themis_status_t themis_algorithm_plan(int requested, const themis_algo_input_t *in,
                                      themis_algo_table_t *t, themis_algo_params_fn fn,
                                      void *ctx, const themis_plan_request_t *req,
                                      themis_algo_choice_t *out, themis_program_t *prog)
{
    int order[THEMIS_MAX_ALGORITHMS + 1], n = 0;
    themis_status_t st;

    memset(out, 0, sizeof(*out));
    memset(prog, 0, sizeof(*prog));
    if (NULL == in || NULL == in->topo || NULL == in->params || NULL == req
        || (THEMIS_ALGO_AUTO != requested && NULL == themis_algorithm_get(requested))) {
        return THEMIS_ERR_INVALID;
    }
    for (int a = 0; a < THEMIS_MAX_ALGORITHMS; ++a) {
        out->status[a] = THEMIS_ERR_UNSUPPORTED;
    }
    /* Without a graph to rank it against the others, a user's schedule
     * stands in for auto, as asked (it runs as given or not at all), also
     * one known not to fit without being read (in->no_xsched). */
    for (int a = 0; THEMIS_ALGO_AUTO == requested && NULL == in->graph && a < NROWS; ++a) {
        themis_xfer_sched_t tmp;
        char why[8];
        memset(&tmp, 0, sizeof(tmp));
        if (0 != (table[a]->flags & THEMIS_ALGO_FLAG_GIVEN) && themis_algorithm_serves(a, in->coll)
            && NULL != table[a]->xfer
            && (NULL != in->no_xsched || NULL != table[a]->xfer(in, &tmp, why, sizeof(why)))) {
            requested = a;
        }
        themis_xfer_free(&tmp);
    }
    int shape_refusal = 0;
    if (THEMIS_ALGO_AUTO != requested) {
        char why[8];
        out->index = requested;
        shape_refusal = !runs_here(requested, in, why, sizeof(why));
        st = try_row(requested, in, req, out, prog);
        if (THEMIS_ERR_UNSUPPORTED != st) {
            return st;
        }
        out->substituted = 1;
        snprintf(out->why, sizeof(out->why), "%s", out->reason[requested]);
        if (NULL == table[requested]->substitute) {
            return THEMIS_ERR_UNSUPPORTED;
        }
        order[n++] = requested;   /* tried */
    }
    /* Where the requested row does not apply to the shape, its substitute
     * chain comes first (the table's documented substitute). */
    for (int at = requested; shape_refusal && NULL != table[at]->substitute;) {
        at = themis_algorithm_index(table[at]->substitute);
        if (at < 0 || listed(order, n, at)) {
            break;
        }
        order[n++] = at;
    }
    for (int i = THEMIS_ALGO_AUTO != requested; shape_refusal && i < n; ++i) {
        st = try_row(order[i], in, req, out, prog);
        if (THEMIS_ERR_UNSUPPORTED != st) {
            out->index = order[i];
            return st;
        }
    }
    const int first = shape_refusal ? n : THEMIS_ALGO_AUTO != requested;
    if (NULL != t && !t->built && NULL != fn) {
        st = themis_algo_table_build(in, fn, ctx, t);
        if (THEMIS_OK != st) {
            return st;
        }
    }
    /* A row refused the call already: the next is the fastest of all
     * the others, also those the bounds left unsimulated. */
    int filled = 0;
    if (0 < n && NULL != t && t->built && t->costed && NULL != fn) {
        st = themis_algo_table_fill(in, fn, ctx, t, in->bytes);
        if (THEMIS_OK != st) {
            return st;
        }
        filled = 1;
    }
    n = extend_order(requested, in, t, out, order, n);
    for (int i = first; i < n; ++i) {
        st = try_row(order[i], in, req, out, prog);
        if (THEMIS_ERR_UNSUPPORTED != st) {
            out->index = order[i];
            return st;
        }
        if (!filled && NULL != t && t->built && t->costed && NULL != fn) {
            /* ranked again with every row timed, after those tried */
            st = themis_algo_table_fill(in, fn, ctx, t, in->bytes);
            if (THEMIS_OK != st) {
                return st;
            }
            filled = 1;
            n = extend_order(requested, in, t, out, order, i + 1);
        }
    }
    return THEMIS_ERR_UNSUPPORTED;
}
