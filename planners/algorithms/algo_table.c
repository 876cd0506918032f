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
#include <stdlib.h>
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

/* Row a at the classes in mask (bits), with the row's cache: t's status
 * and time there; the first reason in why (may be ""), the classes timed
 * in *timed.  THEMIS_ERR_NOMEM, else THEMIS_OK. */
static themis_status_t cost_classes(int a, const themis_algo_input_t *in,
                                    themis_algo_params_fn fn, void *ctx, themis_algo_table_t *t,
                                    themis_algo_rep_cache_t *cache, uint32_t mask, char *why,
                                    size_t len, int *timed)
{
    themis_algo_input_t rin = *in;
    themis_algo_cost_params_t params;

    rin.state = NULL != in->states ? &in->states[a] : NULL;
    rin.params = &params;
    for (int k = 0; k < THEMIS_ALGO_TABLE_CLASSES; ++k) {
        if (0 == (mask & (1u << k))) {
            continue;
        }
        rin.bytes = themis_algo_table_class_bytes(k);
        fn(ctx, rin.bytes, &params);
        char class_why[160] = "";
        t->status[a][k] = row_cost(a, &rin, cache, &t->time[a][k], class_why,
                                   sizeof(class_why));
        if ('\0' == why[0]) {
            snprintf(why, len, "%s", class_why);
        }
        if (THEMIS_ERR_NOMEM == t->status[a][k]) {
            return THEMIS_ERR_NOMEM;
        }
        *timed += THEMIS_OK == t->status[a][k];
    }
    return THEMIS_OK;
}

/* The line through (0, d0) and (1, d1) at w = num / den, times den:
 * d0 x (den - num) + d1 x num. */
static __int128 line_num(__int128 d0, __int128 d1, __int128 num, __int128 den)
{
    return d0 * (den - num) + d1 * num;
}

/* Where bounds lb[j], lb[j + 1] of one row are above row b's times by at
 * least 2 ps over every size that interval j serves (table_at): the row
 * is slower than b there, interpolation's rounding and ties included
 * (each interpolation rounds by less than 1 ps).  Interval 0 also serves
 * sizes below its first class (w down to -1/7), the last one every size
 * above (w unbounded); beyond 2^63 ps every row saturates alike. */
static int dominated(const themis_algo_table_t *t, int b, int j, const themis_time_t *lb)
{
    const __int128 d0 = (__int128) lb[j] - t->time[b][j];
    const __int128 d1 = (__int128) lb[j + 1] - t->time[b][j + 1];
    if (2 > d0 || 2 > d1) {
        return 0;
    }
    if (0 == j
        && (2 * 7 > line_num(d0, d1, -1, 7) || 3 * 7 > line_num(lb[j], lb[j + 1], -1, 7))) {
        return 0;   /* below 8 bytes; the row's own line kept above the 1 ps floor */
    }
    return THEMIS_ALGO_TABLE_CLASSES - 2 != j || d1 >= d0;
}

/* Row a's bound at every class (t->bound): the classes it has one at. */
static uint32_t bound_classes(int a, const themis_algo_input_t *in, themis_algo_params_fn fn,
                              void *ctx, themis_algo_table_t *t, themis_algo_rep_cache_t *cache)
{
    themis_algo_input_t rin = *in;
    themis_algo_cost_params_t params;
    uint32_t known = 0;

    rin.state = NULL != in->states ? &in->states[a] : NULL;
    rin.params = &params;
    for (int k = 0; k < THEMIS_ALGO_TABLE_CLASSES; ++k) {
        rin.bytes = themis_algo_table_class_bytes(k);
        fn(ctx, rin.bytes, &params);
        if (THEMIS_OK == themis_algo_graph_bound_cached(a, &rin, cache, &t->bound[a][k])) {
            known |= 1u << k;
        }
    }
    return known;
}

themis_status_t themis_algo_table_build(const themis_algo_input_t *in, themis_algo_params_fn fn,
                                        void *ctx, themis_algo_table_t *t)
{
    const int n = themis_nalgorithms();
    const uint32_t all = (1u << THEMIS_ALGO_TABLE_CLASSES) - 1;
    int applies[THEMIS_MAX_ALGORITHMS] = {0}, others = 0, bounded = 0;
    themis_route_table_t routes;

    memset(t, 0, sizeof(*t));
    memset(&routes, 0, sizeof(routes));
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
            bounded += applies[a] && themis_algo_has_bound(a);
        }
    }
    t->built = 1;
    /* Row 0 alone runs without costing (nothing to rank it against). */
    if (0 == others) {
        return THEMIS_OK;
    }
    themis_algo_rep_cache_t *caches = calloc((size_t) n, sizeof(*caches));
    if (NULL == caches) {
        return THEMIS_ERR_NOMEM;
    }
    themis_algo_input_t bin = *in;
    if (NULL != in->graph && !in->no_bounds && 0 < bounded) {
        themis_status_t st = themis_route_table_build(in->graph, &routes);
        if (THEMIS_ERR_NOMEM == st) {
            free(caches);
            return st;
        }
        bin.routes = THEMIS_OK == st ? &routes : NULL;
    }
    /* Every bound first.  Then interval by interval (the classes a size
     * interpolates between), the rows by their bounds there, least first
     * (none: first; ties to the lower index): a row is simulated at the
     * interval's classes unless a row simulated at both is faster than
     * its bound. */
    uint32_t known[THEMIS_MAX_ALGORITHMS] = {0}, evald[THEMIS_MAX_ALGORITHMS] = {0};
    int timed[THEMIS_MAX_ALGORITHMS] = {0};
    char (*whys)[sizeof(t->why[0])] = calloc((size_t) n, sizeof(*whys));
    themis_status_t st = NULL == whys ? THEMIS_ERR_NOMEM : THEMIS_OK;
    for (int a = 0; NULL != bin.routes && a < n; ++a) {
        known[a] = applies[a] ? bound_classes(a, &bin, fn, ctx, t, &caches[a]) : 0;
    }
    for (int j = 0; THEMIS_OK == st && j + 1 < THEMIS_ALGO_TABLE_CLASSES; ++j) {
        int order[THEMIS_MAX_ALGORITHMS], norder = 0;
        for (int a = 0; a < n; ++a) {
            if (!applies[a]) {
                continue;
            }
            /* insertion by (bounded, bound sum, index) */
            const int bounded_a = 3u == ((known[a] >> j) & 3u);
            const __int128 key_a = bounded_a ? (__int128) t->bound[a][j] + t->bound[a][j + 1]
                                             : -1;
            int at = norder;
            while (0 < at) {
                const int b = order[at - 1];
                const __int128 key_b = 3u == ((known[b] >> j) & 3u)
                                           ? (__int128) t->bound[b][j] + t->bound[b][j + 1]
                                           : -1;
                if (key_b <= key_a) {
                    break;
                }
                order[at] = b;
                --at;
            }
            order[at] = a;
            ++norder;
        }
        for (int i = 0; THEMIS_OK == st && i < norder; ++i) {
            const int a = order[i];
            int dead = 0;
            for (int b = 0; !dead && 3u == ((known[a] >> j) & 3u) && b < n; ++b) {
                dead = b != a && 3u == ((evald[b] >> j) & 3u) && THEMIS_OK == t->status[b][j]
                       && THEMIS_OK == t->status[b][j + 1] && dominated(t, b, j, t->bound[a]);
            }
            const uint32_t mask = dead ? 0 : (3u << j) & ~evald[a];
            if (0 != mask) {
                st = cost_classes(a, in, fn, ctx, t, &caches[a], mask, whys[a],
                                  sizeof(whys[a]), &timed[a]);
                evald[a] |= mask;
            }
        }
    }
    for (int a = 0; THEMIS_OK == st && a < n; ++a) {
        const themis_algorithm_t *row = themis_algorithm_get(a);
        if (!applies[a]) {
            continue;
        }
        t->skipped[a] = all & ~evald[a];
        if (0 == timed[a] && 0 == t->skipped[a]) {
            /* the row's or the simulator's own reason (the first class's),
             * listed under the row's name: without its own prefix */
            const size_t name_len = strlen(row->name);
            const char *text = whys[a];
            if (0 == strncmp(text, row->name, name_len) && ':' == text[name_len]
                && ' ' == text[name_len + 1]) {
                text += name_len + 2;
            }
            snprintf(t->why[a], sizeof(t->why[a]), "%s",
                     '\0' != text[0]    ? text
                     : NULL != in->graph ? "the link simulator cannot run it on "
                                           "coll_themis_graph"
                                         : "its model does not cost it on this shape");
        }
        t->costed |= 0 != a && 0 < timed[a];
    }
    free(whys);
    for (int a = 0; a < n; ++a) {
        themis_algo_rep_cache_free(&caches[a]);
    }
    free(caches);
    themis_route_table_free(&routes);
    return st;
}

/* The pair of classes a size interpolates between (the first or last
 * pair outside them): lo and lo + 1. */
static int interval_of(uint64_t bytes)
{
    const int k = themis_algo_table_class_of(bytes);
    return k < THEMIS_ALGO_TABLE_CLASSES - 1 ? k : THEMIS_ALGO_TABLE_CLASSES - 2;
}

/* The straight line through (class lo, v0) and (class lo + 1, v1) at
 * bytes, at least 1 ps. */
static themis_time_t interpolate(int lo, themis_time_t v0, themis_time_t v1, uint64_t bytes)
{
    const __int128 b0 = themis_algo_table_class_bytes(lo);
    const __int128 b1 = themis_algo_table_class_bytes(lo + 1);
    const __int128 v = v0 + ((__int128) v1 - v0) * ((__int128) bytes - b0) / (b1 - b0);
    return v < 1 ? 1 : v > (__int128) INT64_MAX ? (themis_time_t) INT64_MAX : (themis_time_t) v;
}

int themis_algo_table_skipped_at(const themis_algo_table_t *t, int a, uint64_t bytes,
                                 themis_time_t *lb)
{
    const int lo = interval_of(bytes);
    if (!t->built || 0 > a || a >= themis_nalgorithms() || 0 == (t->skipped[a] & (3u << lo))) {
        return 0;
    }
    *lb = interpolate(lo, t->bound[a][lo], t->bound[a][lo + 1], bytes);
    return 1;
}

themis_status_t themis_algo_table_fill(const themis_algo_input_t *in, themis_algo_params_fn fn,
                                       void *ctx, themis_algo_table_t *t, uint64_t bytes)
{
    const int lo = interval_of(bytes);
    for (int a = 0; t->built && a < themis_nalgorithms(); ++a) {
        const uint32_t mask = t->skipped[a] & (3u << lo);
        char why[160] = "";
        int timed = 0;
        if (0 == mask) {
            continue;
        }
        themis_algo_rep_cache_t cache;
        memset(&cache, 0, sizeof(cache));
        t->skipped[a] &= ~mask;
        const themis_status_t st = cost_classes(a, in, fn, ctx, t, &cache, mask, why,
                                                sizeof(why), &timed);
        themis_algo_rep_cache_free(&cache);
        if (THEMIS_ERR_NOMEM == st) {
            return st;
        }
    }
    return THEMIS_OK;
}

void themis_algo_table_at(const themis_algo_table_t *t, uint64_t bytes,
                          themis_status_t status[THEMIS_MAX_ALGORITHMS],
                          themis_time_t time[THEMIS_MAX_ALGORITHMS])
{
    /* The two classes around bytes: the straight line through their
     * times; none where the row was not simulated at either. */
    const int lo = interval_of(bytes);
    const int hi = lo + 1;
    for (int a = 0; a < THEMIS_MAX_ALGORITHMS; ++a) {
        status[a] = THEMIS_ERR_UNSUPPORTED;
        time[a] = 0;
        if (a >= themis_nalgorithms() || !t->built || 0 != (t->skipped[a] & (3u << lo))) {
            continue;
        }
        const int ok0 = THEMIS_OK == t->status[a][lo], ok1 = THEMIS_OK == t->status[a][hi];
        if (!ok0 && !ok1) {
            continue;
        }
        const themis_time_t v0 = ok0 ? t->time[a][lo] : t->time[a][hi];
        status[a] = THEMIS_OK;
        time[a] = interpolate(lo, v0, ok1 ? t->time[a][hi] : v0, bytes);
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
