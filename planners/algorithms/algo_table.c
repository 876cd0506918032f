/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The per-communicator cost table (algorithm.h): every row's predicted
 * time at message-size classes, built once, so that choosing for a new
 * message size is a lookup instead of costing every row again (on a graph
 * that costing simulates every row's transfers).  Classes are powers of 8:
 * the rows' times grow about linearly in bytes between them, so they
 * interpolate well; few, because on a graph each class simulates every
 * row.
 * Integer interpolation: every rank ranks alike.
 */
#include "algorithm.h"

#include "chunking.h"

#include <stdio.h>
#include <string.h>

uint64_t themis_algo_table_class_bytes(int k)
{
    return (uint64_t) THEMIS_ALGO_TABLE_MIN_BYTES << (3 * k);
}

int themis_algo_table_class_of(uint64_t bytes)
{
    int k = 0;
    while (k + 1 < THEMIS_ALGO_TABLE_CLASSES && themis_algo_table_class_bytes(k + 1) <= bytes) {
        ++k;
    }
    return k;
}

/* The time model every row is ranked by: the link simulator on a graph,
 * else the row's own. */
static themis_status_t row_cost(int a, const themis_algo_input_t *in,
                                themis_algo_rep_cache_t *cache, themis_time_t *time, char *why,
                                size_t len)
{
    return NULL != in->graph ? themis_algo_graph_cost_cached(a, in, cache, time, why, len)
                             : themis_algorithm_get(a)->cost(in, time);
}

themis_status_t themis_algo_table_build(const themis_algo_input_t *in, themis_algo_params_fn fn,
                                        void *ctx, themis_algo_table_t *t)
{
    const int n = themis_nalgorithms();
    int applies[THEMIS_MAX_ALGORITHMS] = {0}, others = 0;

    memset(t, 0, sizeof(*t));
    t->coll = in->coll;
    for (int a = 0; a < n; ++a) {
        const themis_algorithm_t *row = themis_algorithm_get(a);
        themis_algo_input_t rin = *in;
        rin.state = NULL != in->states ? &in->states[a] : NULL;
        for (int k = 0; k < THEMIS_ALGO_TABLE_CLASSES; ++k) {
            t->status[a][k] = THEMIS_ERR_UNSUPPORTED;
        }
        if (!themis_algorithm_serves(a, in->coll)) {
            snprintf(t->why[a], sizeof(t->why[a]), "it does not implement %s",
                     themis_coll_name(in->coll));
        } else {
            applies[a] = row->applies(&rin, t->why[a], sizeof(t->why[a]));
            others += 0 != a && applies[a];
        }
    }
    t->built = 1;
    /* Row 0 alone runs without costing (nothing to rank it against). */
    for (int a = 0; 0 < others && a < n; ++a) {
        const themis_algorithm_t *row = themis_algorithm_get(a);
        themis_algo_input_t rin = *in;
        themis_algo_cost_params_t params;
        themis_algo_rep_cache_t cache;
        char why[sizeof(t->why[a])] = "";
        int timed = 0;
        memset(&cache, 0, sizeof(cache));
        rin.state = NULL != in->states ? &in->states[a] : NULL;
        rin.params = &params;
        for (int k = 0; applies[a] && k < THEMIS_ALGO_TABLE_CLASSES; ++k) {
            rin.bytes = themis_algo_table_class_bytes(k);
            fn(ctx, rin.bytes, &params);
            char class_why[sizeof(why)] = "";
            t->status[a][k] = row_cost(a, &rin, &cache, &t->time[a][k], class_why,
                                       sizeof(class_why));
            if ('\0' == why[0]) {
                snprintf(why, sizeof(why), "%s", class_why);
            }
            if (THEMIS_ERR_NOMEM == t->status[a][k]) {
                themis_algo_rep_cache_free(&cache);
                return THEMIS_ERR_NOMEM;
            }
            timed += THEMIS_OK == t->status[a][k];
        }
        themis_algo_rep_cache_free(&cache);
        if (applies[a] && 0 == timed) {
            /* the row's or the simulator's own reason (the first class's),
             * listed under the row's name: without its own prefix */
            const size_t name_len = strlen(row->name);
            const char *text = why;
            if (0 == strncmp(text, row->name, name_len) && ':' == text[name_len]
                && ' ' == text[name_len + 1]) {
                text += name_len + 2;
            }
            snprintf(t->why[a], sizeof(t->why[a]), "%s",
                     '\0' != text[0]    ? text
                     : NULL != in->graph ? "the link simulator cannot run it on coll_themis_graph"
                                         : "its model does not cost it on this shape");
        }
        t->costed |= 0 != a && 0 < timed;
    }
    return THEMIS_OK;
}

void themis_algo_table_at(const themis_algo_table_t *t, uint64_t bytes,
                          themis_status_t status[THEMIS_MAX_ALGORITHMS],
                          themis_time_t time[THEMIS_MAX_ALGORITHMS])
{
    /* The two classes around bytes (the first or last pair outside them):
     * the straight line through their times, at least 1 ps. */
    const int lo = themis_algo_table_class_of(bytes) < THEMIS_ALGO_TABLE_CLASSES - 1
                       ? themis_algo_table_class_of(bytes)
                       : THEMIS_ALGO_TABLE_CLASSES - 2;
    const int hi = lo + 1;
    const __int128 b0 = themis_algo_table_class_bytes(lo), b1 = themis_algo_table_class_bytes(hi);
    for (int a = 0; a < THEMIS_MAX_ALGORITHMS; ++a) {
        status[a] = THEMIS_ERR_UNSUPPORTED;
        time[a] = 0;
        if (a >= themis_nalgorithms() || !t->built) {
            continue;
        }
        const int ok0 = THEMIS_OK == t->status[a][lo], ok1 = THEMIS_OK == t->status[a][hi];
        if (!ok0 && !ok1) {
            continue;
        }
        __int128 v;
        if (ok0 && ok1) {
            const __int128 t0 = t->time[a][lo], t1 = t->time[a][hi];
            v = t0 + (t1 - t0) * ((__int128) bytes - b0) / (b1 - b0);
        } else {
            v = ok0 ? t->time[a][lo] : t->time[a][hi];
        }
        status[a] = THEMIS_OK;
        time[a] = v < 1 ? 1 : v > (__int128) INT64_MAX ? (themis_time_t) INT64_MAX
                                                       : (themis_time_t) v;
    }
}

void themis_algo_call_params(const themis_topology_t *topo, uint64_t bytes, uint64_t elems,
                             uint32_t max_chunks, uint64_t min_chunk_bytes,
                             uint32_t chunks_in_flight, themis_order_policy_t order,
                             themis_sched_kind_t scheduler, themis_latency_mode_t latency,
                             themis_algo_cost_params_t *params, uint32_t *nchunks)
{
    uint32_t n = themis_chunk_count(topo, bytes, elems, max_chunks, min_chunk_bytes);
    themis_algo_cost_params_from_chunks(params, n, chunks_in_flight, order, scheduler);
    params->latency = latency;
    if (NULL != nchunks) {
        *nchunks = n;
    }
}

void themis_algo_choice_rows(const themis_algo_table_t *t, const themis_algo_choice_t *ch,
                             char *text, size_t len)
{
    size_t used = 0;

    text[0] = '\0';
    for (int a = 0; a < themis_nalgorithms() && used < len; ++a) {
        const char *name = themis_algorithm_get(a)->name;
        const char *why = '\0' != ch->reason[a][0] ? ch->reason[a]
                          : THEMIS_OK == ch->status[a] ? NULL
                          : NULL != t && t->built && '\0' != t->why[a][0] ? t->why[a]
                                                                         : "not costed";
        if (NULL == why) {
            used += (size_t) snprintf(text + used, len - used, "%s%s %.3f us", used ? "; " : "",
                                      name, (double) ch->time[a] / 1e6);
        } else {
            used += (size_t) snprintf(text + used, len - used, "%s%s: %s", used ? "; " : "",
                                      name, why);
        }
    }
}

void themis_algo_choice_line(themis_coll_t coll, uint64_t bytes, uint64_t elems,
                             const themis_algo_table_t *t, const themis_algo_choice_t *ch,
                             int on_graph, char *text, size_t len)
{
    char rows[1024];
    themis_algo_choice_rows(t, ch, rows, sizeof(rows));
    snprintf(text, len, "auto: %s of %llu bytes (%llu elements) -> %s (%s%s)",
             themis_coll_name(coll), (unsigned long long) bytes, (unsigned long long) elems,
             themis_algorithm_get(ch->index)->name,
             !ch->costed ? "nothing to rank: "
             : on_graph  ? "link simulator on coll_themis_graph: "
                         : "predicted: ",
             rows);
}
