/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The ring as a transfer schedule (xfer_ring.h).  Dependencies come from a
 * conflict tracker rather than from ring algebra: whatever the steps,
 * each transfer waits for the last writer of every unit it reads or
 * writes and for the readers since of every unit it writes, which is
 * exactly what transfer.h's race rule asks.
 */
#include "xfer_ring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* One unit of one buffer of one rank. */
typedef struct {
    uint32_t last_write;
    uint32_t readers;           /* list in the pool: readers since that write */
} cell_t;

typedef struct {
    uint32_t xfer, next;
} reader_t;

typedef struct {
    themis_xfer_sched_t *s;
    uint64_t base[THEMIS_NBUFS];    /* a buffer's first cell in a rank's */
    uint64_t per_rank;
    cell_t *cells;
    reader_t *pool;
    uint32_t npool, cap_pool;
    uint32_t *deps;
    uint32_t ndeps, cap_deps;
} tracker_t;

static themis_status_t tracker_init(tracker_t *tr, themis_xfer_sched_t *s)
{
    memset(tr, 0, sizeof(*tr));
    tr->s = s;
    for (int b = 0; b < THEMIS_NBUFS; b++) {
        tr->base[b] = tr->per_rank;
        tr->per_rank += s->buf_units[b];
    }
    size_t n = (size_t) (tr->per_rank * s->nranks);
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

static void tracker_free(tracker_t *tr)
{
    free(tr->cells);
    free(tr->pool);
    free(tr->deps);
}

static cell_t *cell(tracker_t *tr, uint32_t rank, uint8_t buf, uint64_t unit)
{
    return &tr->cells[rank * tr->per_rank + tr->base[buf] + unit];
}

static themis_status_t push_dep(tracker_t *tr, uint32_t x)
{
    if (tr->ndeps == tr->cap_deps) {
        uint32_t cap = (0 == tr->cap_deps) ? 16 : 2 * tr->cap_deps;
        uint32_t *n = realloc(tr->deps, (size_t) cap * sizeof(*n));
        if (NULL == n) {
            return THEMIS_ERR_NOMEM;
        }
        tr->deps = n;
        tr->cap_deps = cap;
    }
    tr->deps[tr->ndeps++] = x;
    return THEMIS_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return (x > y) - (x < y);
}

/* Appends x with its conflicts as dependencies (sorted, no duplicates). */
static themis_status_t add(tracker_t *tr, const themis_xfer_t *x)
{
    themis_status_t st = THEMIS_OK;
    uint32_t idx;
    tr->ndeps = 0;
    for (uint64_t u = 0; u < x->count && THEMIS_OK == st; u++) {
        const cell_t *c = cell(tr, x->src, x->src_buf, x->src_off + u);
        if (NONE != c->last_write) {
            st = push_dep(tr, c->last_write);
        }
    }
    for (uint64_t u = 0; u < x->count && THEMIS_OK == st; u++) {
        const cell_t *c = cell(tr, x->dst, x->dst_buf, x->dst_off + u);
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
    qsort(tr->deps, tr->ndeps, sizeof(*tr->deps), cmp_u32);
    uint32_t n = 0;
    for (uint32_t i = 0; i < tr->ndeps; i++) {
        if (0 == n || tr->deps[n - 1] != tr->deps[i]) {
            tr->deps[n++] = tr->deps[i];
        }
    }
    st = themis_xfer_add(tr->s, x, tr->deps, n, &idx);
    /* Reads first: a unit both read and written ends written. */
    for (uint64_t u = 0; u < x->count && THEMIS_OK == st; u++) {
        cell_t *c = cell(tr, x->src, x->src_buf, x->src_off + u);
        if (tr->npool == tr->cap_pool) {
            uint32_t cap = (0 == tr->cap_pool) ? 256 : 2 * tr->cap_pool;
            reader_t *p = realloc(tr->pool, (size_t) cap * sizeof(*p));
            if (NULL == p) {
                return THEMIS_ERR_NOMEM;
            }
            tr->pool = p;
            tr->cap_pool = cap;
        }
        tr->pool[tr->npool].xfer = idx;
        tr->pool[tr->npool].next = c->readers;
        c->readers = tr->npool++;
    }
    for (uint64_t u = 0; u < x->count && THEMIS_OK == st; u++) {
        cell_t *c = cell(tr, x->dst, x->dst_buf, x->dst_off + u);
        c->last_write = idx;
        c->readers = NONE;
    }
    return st;
}

static themis_status_t add_xfer(tracker_t *tr, uint32_t src, uint32_t dst, uint8_t kind,
                                uint8_t src_buf, uint64_t src_off, uint8_t dst_buf,
                                uint64_t dst_off, uint64_t count)
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
    return add(tr, &x);
}

/* P-1 REDUCE steps in buf: position i ends with unit pos[i]. */
static themis_status_t reduce_steps(tracker_t *tr, const uint32_t *pos, uint32_t p, uint8_t buf)
{
    themis_status_t st = THEMIS_OK;
    for (uint32_t k = 0; k + 1 < p && THEMIS_OK == st; k++) {
        for (uint32_t i = 0; i < p && THEMIS_OK == st; i++) {
            /* the unit whose reduction started at position i - k */
            uint32_t u = pos[(i + 2 * p - k - 1) % p];
            st = add_xfer(tr, pos[i], pos[(i + 1) % p], THEMIS_XFER_REDUCE, buf, u, buf, u, 1);
        }
    }
    return st;
}

/* P-1 COPY steps in OUTPUT, position i starting with unit pos[i]. */
static themis_status_t gather_steps(tracker_t *tr, const uint32_t *pos, uint32_t p)
{
    themis_status_t st = THEMIS_OK;
    for (uint32_t k = 0; k + 1 < p && THEMIS_OK == st; k++) {
        for (uint32_t i = 0; i < p && THEMIS_OK == st; i++) {
            uint32_t u = pos[(i + p - k) % p];
            st = add_xfer(tr, pos[i], pos[(i + 1) % p], THEMIS_XFER_COPY, THEMIS_BUF_OUTPUT, u,
                          THEMIS_BUF_OUTPUT, u, 1);
        }
    }
    return st;
}

themis_status_t themis_xfer_ring(themis_coll_t coll, uint32_t nranks, const uint32_t *order,
                                 themis_xfer_sched_t *out)
{
    uint32_t p = nranks;
    memset(out, 0, sizeof(*out));
    if (0 == p || p > THEMIS_XFER_RING_MAX_RANKS ||
        (THEMIS_COLL_ALLREDUCE != coll && THEMIS_COLL_REDUCE_SCATTER != coll &&
         THEMIS_COLL_ALLGATHER != coll)) {
        return THEMIS_ERR_INVALID;
    }
    uint32_t *pos = malloc((size_t) p * sizeof(*pos));
    uint8_t *seen = calloc(p, 1);
    if (NULL == pos || NULL == seen) {
        free(pos);
        free(seen);
        return THEMIS_ERR_NOMEM;
    }
    themis_status_t st = THEMIS_OK;
    for (uint32_t i = 0; i < p; i++) {
        pos[i] = (NULL != order) ? order[i] : i;
        if (pos[i] >= p || seen[pos[i]]) {
            st = THEMIS_ERR_INVALID;
            break;
        }
        seen[pos[i]] = 1;
    }
    free(seen);
    if (THEMIS_OK != st) {
        free(pos);
        return st;
    }

    themis_xfer_init(out, coll, p, p);
    snprintf(out->name, sizeof(out->name), "ring %s", themis_coll_name(coll));
    switch (coll) {
    case THEMIS_COLL_ALLREDUCE:
        out->buf_units[THEMIS_BUF_INPUT] = p;
        out->buf_units[THEMIS_BUF_OUTPUT] = p;
        break;
    case THEMIS_COLL_REDUCE_SCATTER:
        out->buf_units[THEMIS_BUF_INPUT] = p;
        out->buf_units[THEMIS_BUF_SCRATCH] = p;
        out->buf_units[THEMIS_BUF_OUTPUT] = 1;
        break;
    case THEMIS_COLL_ALLGATHER:
        out->buf_units[THEMIS_BUF_INPUT] = 1;
        out->buf_units[THEMIS_BUF_OUTPUT] = p;
        break;
    }
    tracker_t tr;
    st = tracker_init(&tr, out);
    for (uint32_t i = 0; i < p && THEMIS_OK == st; i++) {
        uint32_t r = pos[i];
        if (THEMIS_COLL_ALLGATHER == coll) {
            st = add_xfer(&tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, 0, THEMIS_BUF_OUTPUT, r,
                          1);
        } else {
            st = add_xfer(&tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, 0,
                          THEMIS_COLL_ALLREDUCE == coll ? THEMIS_BUF_OUTPUT : THEMIS_BUF_SCRATCH,
                          0, p);
        }
    }
    if (THEMIS_OK == st && THEMIS_COLL_ALLGATHER != coll) {
        st = reduce_steps(&tr, pos, p,
                          THEMIS_COLL_ALLREDUCE == coll ? THEMIS_BUF_OUTPUT : THEMIS_BUF_SCRATCH);
    }
    if (THEMIS_OK == st && THEMIS_COLL_REDUCE_SCATTER != coll) {
        st = gather_steps(&tr, pos, p);
    }
    for (uint32_t i = 0; i < p && THEMIS_OK == st && THEMIS_COLL_REDUCE_SCATTER == coll; i++) {
        st = add_xfer(&tr, pos[i], pos[i], THEMIS_XFER_COPY, THEMIS_BUF_SCRATCH, pos[i],
                      THEMIS_BUF_OUTPUT, 0, 1);
    }
    tracker_free(&tr);
    free(pos);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}
