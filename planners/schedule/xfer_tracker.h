/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Builds a transfer schedule (transfer.h) from transfers listed in an
 * order in which they may run one after another: each transfer added gets
 * as dependencies every earlier transfer it conflicts with on a rank (the
 * last writer of what it reads or writes, and the readers since of what
 * it writes).  Dependencies then point backwards and no two transfers
 * touching one unit, one of them writing, are unordered: the rules of
 * themis_xfer_check.  Used by the transfer-list generators (xfer_sink.h).
 */
#ifndef THEMIS_XFER_TRACKER_H
#define THEMIS_XFER_TRACKER_H

#include "transfer.h"

/* One unit of one buffer of one rank. */
typedef struct {
    uint32_t last_write;
    uint32_t readers;           /* list in the pool: readers since that write */
} themis_xfer_cell_t;

typedef struct {
    uint32_t xfer, next;
} themis_xfer_reader_t;

#define THEMIS_XFER_TRACKER_FILTER 256u

typedef struct {
    themis_xfer_sched_t *s;
    uint64_t base[THEMIS_NBUFS];    /* a buffer's first cell in a rank's */
    uint64_t per_rank;
    themis_xfer_cell_t *cells;
    themis_xfer_reader_t *pool;
    uint32_t npool, cap_pool;
    uint32_t free_readers;          /* pool entries a write let go, a list */
    uint32_t *deps;
    uint32_t ndeps, cap_deps;
    uint32_t only;                  /* UINT32_MAX, or the one rank tracked */
    /* A block's units share their writers and readers: a dependency met
     * again is mostly caught by this filter (slot x % size holds x while
     * its stamp is the transfer's), so few duplicates get to the sort. */
    uint32_t filter_x[THEMIS_XFER_TRACKER_FILTER], filter_stamp[THEMIS_XFER_TRACKER_FILTER];
    uint32_t stamp;
    /* Ids are list positions plus id_shift: a periodic slice's copies
     * left out (transfer_slice.h) still have ids. */
    uint32_t id_shift;
} themis_xfer_tracker_t;

/* s has its ranks and buffer sizes set (and no transfers yet). */
themis_status_t themis_xfer_tracker_init(themis_xfer_tracker_t *tr, themis_xfer_sched_t *s);
/* The same, tracking only rank `rank`'s buffers: for a rank's slice of a
 * schedule (transfer_slice.h), whose transfers all involve the rank and
 * whose program needs only the order of its own accesses (the peers'
 * programs order theirs; messages match by tag). */
themis_status_t themis_xfer_tracker_init_rank(themis_xfer_tracker_t *tr, themis_xfer_sched_t *s,
                                              uint32_t rank);
themis_status_t themis_xfer_tracker_add(themis_xfer_tracker_t *tr, uint32_t src, uint32_t dst,
                                        uint8_t kind, uint8_t src_buf, uint64_t src_off,
                                        uint8_t dst_buf, uint64_t dst_off, uint64_t count);
/* The same, also after transfer `after` (an earlier index, or UINT32_MAX:
 * none), e.g. to keep the order of the sends over one link; its index in
 * *idx (may be NULL). */
themis_status_t themis_xfer_tracker_add_after(themis_xfer_tracker_t *tr, uint32_t after,
                                              uint32_t src, uint32_t dst, uint8_t kind,
                                              uint8_t src_buf, uint64_t src_off, uint8_t dst_buf,
                                              uint64_t dst_off, uint64_t count, uint32_t *idx);
/* The same for transfer x as it stands (its dep_first and ndeps aside):
 * no call with its fields one by one. */
themis_status_t themis_xfer_tracker_add_xfer(themis_xfer_tracker_t *tr, const themis_xfer_t *x,
                                             uint32_t after, uint32_t *idx);
/* Appends x with the dependencies the caller knows (deps, sorted, no
 * duplicates: what themis_xfer_tracker_add would find, e.g. a repeated
 * slot's, xfer_sink.h) and leaves its accesses in the cells as add
 * does, so that later adds find it. */
themis_status_t themis_xfer_tracker_append(themis_xfer_tracker_t *tr, const themis_xfer_t *x,
                                           const uint32_t *deps, uint32_t ndeps);
/* Notes what transfer id (x, not in the list) leaves in the cells, as
 * add does, so that later adds find it. */
themis_status_t themis_xfer_tracker_note(themis_xfer_tracker_t *tr, const themis_xfer_t *x,
                                         uint32_t id);
void themis_xfer_tracker_free(themis_xfer_tracker_t *tr);
/* out: tr as it stands, tracking s (a copy of tr's schedule,
 * themis_xfer_copy), so that two schedules can go on from one prefix;
 * THEMIS_ERR_NOMEM. */
themis_status_t themis_xfer_tracker_copy(const themis_xfer_tracker_t *tr, themis_xfer_sched_t *s,
                                         themis_xfer_tracker_t *out);

#endif
