/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The Direct algorithm as a transfer schedule (xfer_direct.h).
 */
#include "xfer_direct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xfer_tracker.h"

typedef struct {
    themis_xfer_tracker_t tr;
    uint32_t p, w;
    uint64_t *fwd;          /* [p] forwarding slots used per rank */
    uint64_t first_fwd;     /* the first forwarding slot in SCRATCH */
} direct_t;

/* The rank a send r -> q is forwarded by, or UINT32_MAX (straight). */
static uint32_t via(const direct_t *d, uint32_t r, uint32_t q)
{
    if (0 == d->w) {
        return UINT32_MAX;
    }
    uint32_t c = q % d->w + d->w * (r / d->w);
    return c == r || c == q ? UINT32_MAX : c;
}

/* One block r -> q, through its forwarding rank when it has one (counting
 * only, when count_only). */
static themis_status_t send(direct_t *d, uint32_t r, uint32_t q, uint8_t kind, uint8_t sbuf,
                            uint64_t soff, uint8_t dbuf, uint64_t doff, int count_only)
{
    uint32_t c = via(d, r, q);
    if (UINT32_MAX == c) {
        return count_only ? THEMIS_OK
                          : themis_xfer_tracker_add(&d->tr, r, q, kind, sbuf, soff, dbuf, doff, 1);
    }
    uint64_t slot = d->first_fwd + d->fwd[c]++;
    if (count_only) {
        return THEMIS_OK;
    }
    themis_status_t st = themis_xfer_tracker_add(&d->tr, r, c, THEMIS_XFER_COPY, sbuf, soff,
                                                 THEMIS_BUF_SCRATCH, slot, 1);
    return THEMIS_OK == st ? themis_xfer_tracker_add(&d->tr, c, q, kind, THEMIS_BUF_SCRATCH, slot,
                                                     dbuf, doff, 1)
                           : st;
}

/* Each rank's block q to rank q's scratch slot, folded into OUTPUT unit
 * (whole ? q : 0) there; the rank's own block copied first. */
static themis_status_t reduce_part(direct_t *d, int whole, int count_only)
{
    themis_status_t st = THEMIS_OK;
    uint32_t p = d->p;
    for (uint32_t r = 0; r < p && THEMIS_OK == st && !count_only; r++) {
        st = themis_xfer_tracker_add(&d->tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, r,
                                     THEMIS_BUF_OUTPUT, whole ? r : 0, 1);
    }
    for (uint32_t s = 1; s < p && THEMIS_OK == st; s++) {
        for (uint32_t r = 0; r < p && THEMIS_OK == st; r++) {
            uint32_t q = (r + s) % p;
            /* slot s - 1 on q: the contribution from q - s = r */
            st = send(d, r, q, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, q, THEMIS_BUF_SCRATCH, s - 1,
                      count_only);
        }
    }
    for (uint32_t s = 1; s < p && THEMIS_OK == st && !count_only; s++) {
        for (uint32_t q = 0; q < p && THEMIS_OK == st; q++) {
            st = themis_xfer_tracker_add(&d->tr, q, q, THEMIS_XFER_REDUCE, THEMIS_BUF_SCRATCH,
                                         s - 1, THEMIS_BUF_OUTPUT, whole ? q : 0, 1);
        }
    }
    return st;
}

/* Rank r's block (INPUT 0, or OUTPUT r after a reduce-scatter) to every
 * OUTPUT unit r. */
static themis_status_t gather_part(direct_t *d, int after_reduce, int count_only)
{
    themis_status_t st = THEMIS_OK;
    uint32_t p = d->p;
    uint8_t sbuf = after_reduce ? THEMIS_BUF_OUTPUT : THEMIS_BUF_INPUT;
    for (uint32_t r = 0; r < p && THEMIS_OK == st && !after_reduce && !count_only; r++) {
        st = themis_xfer_tracker_add(&d->tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, 0,
                                     THEMIS_BUF_OUTPUT, r, 1);
    }
    for (uint32_t s = 1; s < p && THEMIS_OK == st; s++) {
        for (uint32_t r = 0; r < p && THEMIS_OK == st; r++) {
            st = send(d, r, (r + s) % p, THEMIS_XFER_COPY, sbuf, after_reduce ? r : 0,
                      THEMIS_BUF_OUTPUT, r, count_only);
        }
    }
    return st;
}

static themis_status_t build(direct_t *d, themis_coll_t coll, int count_only)
{
    themis_status_t st = THEMIS_OK;
    if (THEMIS_COLL_ALLGATHER != coll) {
        st = reduce_part(d, THEMIS_COLL_ALLREDUCE == coll, count_only);
    }
    if (THEMIS_OK == st && THEMIS_COLL_REDUCE_SCATTER != coll) {
        st = gather_part(d, THEMIS_COLL_ALLREDUCE == coll, count_only);
    }
    return st;
}

themis_status_t themis_xfer_direct(themis_coll_t coll, uint32_t nranks, uint32_t xy_width,
                                   themis_xfer_sched_t *out)
{
    direct_t d = {.p = nranks, .w = xy_width};
    uint32_t p = nranks;

    memset(out, 0, sizeof(*out));
    if (0 == p || p > THEMIS_XFER_DIRECT_MAX_RANKS || (0 != xy_width && 0 != p % xy_width)
        || (THEMIS_COLL_ALLREDUCE != coll && THEMIS_COLL_REDUCE_SCATTER != coll
            && THEMIS_COLL_ALLGATHER != coll)) {
        return THEMIS_ERR_INVALID;
    }
    d.fwd = calloc(p, sizeof(*d.fwd));
    if (NULL == d.fwd) {
        return THEMIS_ERR_NOMEM;
    }
    d.first_fwd = THEMIS_COLL_ALLGATHER == coll ? 0 : p - 1;
    /* a first pass counts the forwarding slots */
    build(&d, coll, 1);
    uint64_t most = 0;
    for (uint32_t r = 0; r < p; r++) {
        most = d.fwd[r] > most ? d.fwd[r] : most;
    }
    memset(d.fwd, 0, p * sizeof(*d.fwd));
    themis_xfer_init(out, coll, p, p);
    snprintf(out->name, sizeof(out->name), "direct %s%s", themis_coll_name(coll),
             xy_width ? " xy" : "");
    out->buf_units[THEMIS_BUF_INPUT] = THEMIS_COLL_ALLGATHER == coll ? 1 : p;
    out->buf_units[THEMIS_BUF_OUTPUT] = THEMIS_COLL_REDUCE_SCATTER == coll ? 1 : p;
    out->buf_units[THEMIS_BUF_SCRATCH] = d.first_fwd + most;
    themis_status_t st = themis_xfer_tracker_init(&d.tr, out);
    if (THEMIS_OK == st) {
        st = build(&d, coll, 0);
        themis_xfer_tracker_free(&d.tr);
    }
    free(d.fwd);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}
