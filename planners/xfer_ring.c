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

#include "xfer_tracker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* P-1 REDUCE steps in buf: position i ends with unit pos[i]. */
static themis_status_t reduce_steps(themis_xfer_tracker_t *tr, const uint32_t *pos, uint32_t p,
                                   uint8_t buf)
{
    themis_status_t st = THEMIS_OK;
    for (uint32_t k = 0; k + 1 < p && THEMIS_OK == st; k++) {
        for (uint32_t i = 0; i < p && THEMIS_OK == st; i++) {
            /* the unit whose reduction started at position i - k */
            uint32_t u = pos[(i + 2 * p - k - 1) % p];
            st = themis_xfer_tracker_add(tr, pos[i], pos[(i + 1) % p], THEMIS_XFER_REDUCE, buf,
                                         u, buf, u, 1);
        }
    }
    return st;
}

/* P-1 COPY steps in OUTPUT, position i starting with unit pos[i]. */
static themis_status_t gather_steps(themis_xfer_tracker_t *tr, const uint32_t *pos, uint32_t p)
{
    themis_status_t st = THEMIS_OK;
    for (uint32_t k = 0; k + 1 < p && THEMIS_OK == st; k++) {
        for (uint32_t i = 0; i < p && THEMIS_OK == st; i++) {
            uint32_t u = pos[(i + p - k) % p];
            st = themis_xfer_tracker_add(tr, pos[i], pos[(i + 1) % p], THEMIS_XFER_COPY,
                                         THEMIS_BUF_OUTPUT, u, THEMIS_BUF_OUTPUT, u, 1);
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
    themis_xfer_tracker_t tr;
    st = themis_xfer_tracker_init(&tr, out);
    for (uint32_t i = 0; i < p && THEMIS_OK == st; i++) {
        uint32_t r = pos[i];
        if (THEMIS_COLL_ALLGATHER == coll) {
            st = themis_xfer_tracker_add(&tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, 0,
                                         THEMIS_BUF_OUTPUT, r, 1);
        } else {
            st = themis_xfer_tracker_add(&tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, 0,
                                         THEMIS_COLL_ALLREDUCE == coll ? THEMIS_BUF_OUTPUT
                                                                       : THEMIS_BUF_SCRATCH,
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
        st = themis_xfer_tracker_add(&tr, pos[i], pos[i], THEMIS_XFER_COPY, THEMIS_BUF_SCRATCH,
                                     pos[i], THEMIS_BUF_OUTPUT, 0, 1);
    }
    themis_xfer_tracker_free(&tr);
    free(pos);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}
