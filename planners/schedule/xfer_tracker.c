/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Conflict tracking for transfer-schedule generators (xfer_tracker.h).
 */
#include "xfer_tracker.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX


themis_status_t themis_xfer_tracker_init_rank(themis_xfer_tracker_t *tr, themis_xfer_sched_t *s,
                                              uint32_t rank)
{
    memset(tr, 0, sizeof(*tr));
    tr->s = s;
    tr->only = rank;
    tr->free_readers = NONE;
    for (int b = 0; b < THEMIS_NBUFS; b++) {
        tr->base[b] = tr->per_rank;
        tr->per_rank += s->buf_units[b];
    }
    size_t n = (size_t) (tr->per_rank * (NONE != rank ? 1 : s->nranks));
    tr->cells = malloc(n * sizeof(*tr->cells));
    if (NULL == tr->cells) {
        return THEMIS_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        tr->cells[i].last_write = NONE;
        tr->cells[i].readers = NONE;
    }
    return THEMIS_OK;
}

themis_status_t themis_xfer_tracker_init(themis_xfer_tracker_t *tr, themis_xfer_sched_t *s)
{
    return themis_xfer_tracker_init_rank(tr, s, NONE);
}

themis_status_t themis_xfer_tracker_copy(const themis_xfer_tracker_t *tr, themis_xfer_sched_t *s,
                                         themis_xfer_tracker_t *out)
{
    const size_t ncells = (size_t) (tr->per_rank * (NONE != tr->only ? 1 : tr->s->nranks));
    *out = *tr;
    out->s = s;
    out->cap_pool = tr->npool;
    out->ndeps = out->cap_deps = 0;
    out->deps = NULL;
    out->cells = malloc((ncells ? ncells : 1) * sizeof(*out->cells));
    out->pool = 0 < tr->npool ? malloc((size_t) tr->npool * sizeof(*out->pool)) : NULL;
    if (NULL == out->cells || (0 < tr->npool && NULL == out->pool)) {
        themis_xfer_tracker_free(out);
        memset(out, 0, sizeof(*out));
        return THEMIS_ERR_NOMEM;
    }
    memcpy(out->cells, tr->cells, ncells * sizeof(*out->cells));
    if (0 < tr->npool) {
        memcpy(out->pool, tr->pool, (size_t) tr->npool * sizeof(*out->pool));
    }
    return THEMIS_OK;
}

void themis_xfer_tracker_free(themis_xfer_tracker_t *tr)
{
    free(tr->cells);
    free(tr->pool);
    free(tr->deps);
}

/* NULL for a rank not tracked. */
static themis_xfer_cell_t *cell(themis_xfer_tracker_t *tr, uint32_t rank, uint8_t buf,
                                uint64_t unit)
{
    if (NONE != tr->only) {
        return rank == tr->only ? &tr->cells[tr->base[buf] + unit] : NULL;
    }
    return &tr->cells[rank * tr->per_rank + tr->base[buf] + unit];
}

static inline themis_status_t push_dep(themis_xfer_tracker_t *tr, uint32_t x)
{
    const uint32_t f = x % THEMIS_XFER_TRACKER_FILTER;
    if (tr->stamp == tr->filter_stamp[f] && x == tr->filter_x[f]) {
        return THEMIS_OK;
    }
    tr->filter_stamp[f] = tr->stamp;
    tr->filter_x[f] = x;
    if (0 != themis_grow((void **) &tr->deps, tr->ndeps, &tr->cap_deps, sizeof(*tr->deps), 16u)) {
        return THEMIS_ERR_NOMEM;
    }
    tr->deps[tr->ndeps++] = x;
    return THEMIS_OK;
}

/* What transfer idx (x) leaves in the cells it touches: a reader of
 * its source units, the last writer of its destination units. */
static themis_status_t note(themis_xfer_tracker_t *tr, const themis_xfer_t *x, uint32_t idx)
{
    /* a buffer's units are consecutive cells: the first unit's, then on */
    themis_xfer_cell_t *const sc = cell(tr, x->src, x->src_buf, x->src_off);
    themis_xfer_cell_t *const dc = cell(tr, x->dst, x->dst_buf, x->dst_off);
    /* Reads first: a unit both read and written ends written. */
    for (uint64_t u = 0; NULL != sc && u < x->count; u++) {
        themis_xfer_cell_t *c = &sc[u];
        uint32_t r = tr->free_readers;
        if (NONE != r) {
            tr->free_readers = tr->pool[r].next;
        } else {
            if (0 != themis_grow((void **) &tr->pool, tr->npool, &tr->cap_pool,
                                 sizeof(*tr->pool), 256u)) {
                return THEMIS_ERR_NOMEM;
            }
            r = tr->npool++;
        }
        tr->pool[r].xfer = idx;
        tr->pool[r].next = c->readers;
        c->readers = r;
    }
    /* A write ends its units' reader lists: their entries serve again
     * (the pool stays as large as the readers pending, not all reads). */
    for (uint64_t u = 0; NULL != dc && u < x->count; u++) {
        themis_xfer_cell_t *c = &dc[u];
        if (NONE != c->readers) {
            uint32_t tail = c->readers;
            while (NONE != tr->pool[tail].next) {
                tail = tr->pool[tail].next;
            }
            tr->pool[tail].next = tr->free_readers;
            tr->free_readers = c->readers;
        }
        c->last_write = idx;
        c->readers = NONE;
    }
    return THEMIS_OK;
}

/* Appends x with its conflicts and `after` (NONE: nothing more) as
 * dependencies (sorted, no duplicates); its index in *idx. */
static themis_status_t add(themis_xfer_tracker_t *tr, const themis_xfer_t *x, uint32_t after,
                           uint32_t *idx_out)
{
    themis_status_t st = THEMIS_OK;
    uint32_t idx;
    tr->ndeps = 0;
    if (0 == ++tr->stamp) {   /* a new stamp per transfer; wrapped: no stale slots */
        memset(tr->filter_stamp, 0, sizeof(tr->filter_stamp));
        tr->stamp = 1;
    }
    if (NONE != after) {
        st = push_dep(tr, after);
    }
    const themis_xfer_cell_t *const sc = cell(tr, x->src, x->src_buf, x->src_off);
    const themis_xfer_cell_t *const dc = cell(tr, x->dst, x->dst_buf, x->dst_off);
    for (uint64_t u = 0; NULL != sc && u < x->count && THEMIS_OK == st; u++) {
        if (NONE != sc[u].last_write) {
            st = push_dep(tr, sc[u].last_write);
        }
    }
    for (uint64_t u = 0; NULL != dc && u < x->count && THEMIS_OK == st; u++) {
        const themis_xfer_cell_t *c = &dc[u];
        if (NONE != c->last_write) {
            st = push_dep(tr, c->last_write);
        }
        for (uint32_t r = c->readers; NONE != r && THEMIS_OK == st; r = tr->pool[r].next) {
            st = push_dep(tr, tr->pool[r].xfer);
        }
    }
    if (THEMIS_OK != st) {
        return st;
    }
    uint32_t n = 0;   /* sorted, without the repeats the filter missed */
    if (tr->ndeps <= 2) {
        /* most transfers: a writer and a reader, or one */
        n = tr->ndeps;
        if (2 == n && tr->deps[0] >= tr->deps[1]) {
            const uint32_t a = tr->deps[0];
            tr->deps[0] = tr->deps[1];
            tr->deps[1] = a;
            n = a == tr->deps[0] ? 1 : 2;
        }
    } else if (tr->ndeps > 16) {   /* deps may still be NULL: qsort(NULL, 0) is undefined */
        qsort(tr->deps, tr->ndeps, sizeof(*tr->deps), themis_cmp_u32);
        for (uint32_t i = 0; i < tr->ndeps; i++) {
            if (0 == n || tr->deps[n - 1] != tr->deps[i]) {
                tr->deps[n++] = tr->deps[i];
            }
        }
    } else {
        /* a few (most transfers): inserted in place, a repeat dropped
         * where it is found (n <= i: deps[i] is read before it is
         * written over) */
        for (uint32_t i = 0; i < tr->ndeps; i++) {
            const uint32_t v = tr->deps[i];
            uint32_t j = n;
            for (; j > 0 && tr->deps[j - 1] > v; j--) {
            }
            if (j > 0 && tr->deps[j - 1] == v) {
                continue;
            }
            for (uint32_t m = n; m > j; m--) {
                tr->deps[m] = tr->deps[m - 1];
            }
            tr->deps[j] = v;
            n++;
        }
    }
    st = themis_xfer_add(tr->s, x, tr->deps, n, &idx);
    idx += tr->id_shift;
    if (THEMIS_OK == st) {
        st = note(tr, x, idx);
    }
    if (NULL != idx_out) {
        *idx_out = idx;
    }
    return st;
}

themis_status_t themis_xfer_tracker_add_xfer(themis_xfer_tracker_t *tr, const themis_xfer_t *x,
                                             uint32_t after, uint32_t *idx)
{
    return add(tr, x, after, idx);
}

themis_status_t themis_xfer_tracker_add(themis_xfer_tracker_t *tr, uint32_t src, uint32_t dst,
                                        uint8_t kind, uint8_t src_buf, uint64_t src_off,
                                        uint8_t dst_buf, uint64_t dst_off, uint64_t count)
{
    return themis_xfer_tracker_add_after(tr, NONE, src, dst, kind, src_buf, src_off, dst_buf,
                                         dst_off, count, NULL);
}

themis_status_t themis_xfer_tracker_add_after(themis_xfer_tracker_t *tr, uint32_t after,
                                              uint32_t src, uint32_t dst, uint8_t kind,
                                              uint8_t src_buf, uint64_t src_off, uint8_t dst_buf,
                                              uint64_t dst_off, uint64_t count, uint32_t *idx)
{
    themis_xfer_t x;
    memset(&x, 0, sizeof(x));
    x.src = src;
    x.dst = dst;
    x.kind = kind;
    x.src_buf = src_buf;
    x.dst_buf = dst_buf;
    x.src_off = src_off;
    x.dst_off = dst_off;
    x.count = count;
    return add(tr, &x, after, idx);
}

themis_status_t themis_xfer_tracker_append(themis_xfer_tracker_t *tr, const themis_xfer_t *x,
                                           const uint32_t *deps, uint32_t ndeps)
{
    uint32_t idx;
    themis_status_t st = themis_xfer_add(tr->s, x, deps, ndeps, &idx);
    return THEMIS_OK == st ? note(tr, x, idx + tr->id_shift) : st;
}

themis_status_t themis_xfer_tracker_note(themis_xfer_tracker_t *tr, const themis_xfer_t *x,
                                         uint32_t id)
{
    return note(tr, x, id);
}
