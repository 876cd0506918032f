/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Transfer schedules (transfer.h): construction and hashing.
 */
#include "transfer.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

void themis_xfer_init(themis_xfer_sched_t *s, themis_coll_t coll, uint32_t nranks,
                      uint32_t nunits)
{
    memset(s, 0, sizeof(*s));
    s->coll = coll;
    s->nranks = nranks;
    s->nunits = nunits;
    s->result_buf = THEMIS_BUF_OUTPUT;
}

themis_status_t themis_xfer_add(themis_xfer_sched_t *s, const themis_xfer_t *x,
                                const uint32_t *deps, uint32_t ndeps, uint32_t *idx)
{
    if (s->nxfers == s->cap_xfers) {
        uint32_t cap = s->cap_xfers ? 2 * s->cap_xfers : 64;
        themis_xfer_t *n = realloc(s->xfers, (size_t) cap * sizeof(*n));
        if (NULL == n || cap <= s->cap_xfers) {
            return THEMIS_ERR_NOMEM;
        }
        s->xfers = n;
        s->cap_xfers = cap;
    }
    if (ndeps > UINT32_MAX - s->ndeps) {
        return THEMIS_ERR_NOMEM;
    }
    if (s->ndeps + ndeps > s->cap_deps) {
        uint32_t cap = s->cap_deps ? s->cap_deps : 64;
        while (cap < s->ndeps + ndeps) {
            if (cap > UINT32_MAX / 2) {
                return THEMIS_ERR_NOMEM;
            }
            cap *= 2;
        }
        uint32_t *n = realloc(s->deps, (size_t) cap * sizeof(*n));
        if (NULL == n) {
            return THEMIS_ERR_NOMEM;
        }
        s->deps = n;
        s->cap_deps = cap;
    }
    themis_xfer_t *t = &s->xfers[s->nxfers];
    *t = *x;
    t->dep_first = s->ndeps;
    t->ndeps = ndeps;
    if (ndeps > 0) {
        memcpy(&s->deps[s->ndeps], deps, (size_t) ndeps * sizeof(*deps));
    }
    s->ndeps += ndeps;
    if (NULL != idx) {
        *idx = s->nxfers;
    }
    s->nxfers++;
    return THEMIS_OK;
}

void themis_xfer_free(themis_xfer_sched_t *s)
{
    if (NULL != s) {
        free(s->xfers);
        free(s->deps);
        memset(s, 0, sizeof(*s));
    }
}

uint64_t themis_xfer_hash(const themis_xfer_sched_t *s)
{
    uint64_t h = THEMIS_FNV_OFFSET;
    h = themis_fnv1a_u64(h, (uint64_t) s->coll);
    h = themis_fnv1a_u64(h, s->nranks);
    h = themis_fnv1a_u64(h, s->nunits);
    for (int b = 0; b < THEMIS_NBUFS; ++b) {
        h = themis_fnv1a_u64(h, s->buf_units[b]);
    }
    h = themis_fnv1a_u64(h, (uint64_t) s->result_buf);
    for (uint32_t i = 0; i < s->nxfers; ++i) {
        const themis_xfer_t *x = &s->xfers[i];
        h = themis_fnv1a_u64(h, ((uint64_t) x->src << 32) | x->dst);
        h = themis_fnv1a_u64(h, ((uint64_t) x->kind << 16) | ((uint64_t) x->src_buf << 8)
                                    | x->dst_buf);
        h = themis_fnv1a_u64(h, x->src_off);
        h = themis_fnv1a_u64(h, x->dst_off);
        h = themis_fnv1a_u64(h, x->count);
        h = themis_fnv1a_u64(h, x->ndeps);
        for (uint32_t k = 0; k < x->ndeps; ++k) {
            h = themis_fnv1a_u64(h, s->deps[x->dep_first + k]);
        }
    }
    return h;
}
