/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Where the transfer-list generators (xfer_ring.h, xfer_hier.h) put their
 * transfers: the whole list, or one rank's slice (transfer_slice.h),
 * whose transfers keep the indices they have in the whole list.  The
 * generators number every transfer (next), and skip over runs without
 * the rank where they know their length, so a slice costs the rank's
 * transfers alone.  Dependencies come from the conflict tracker
 * (xfer_tracker.h), of every rank or of the slice's alone.
 */
#ifndef THEMIS_XFER_SINK_H
#define THEMIS_XFER_SINK_H

#include "transfer_slice.h"
#include "xfer_tracker.h"

/* A slice needs only its tags (indices in the whole list) to fit in 32
 * bits: the bound leaves room for the copies the per-chunk counts omit. */
#define THEMIS_XFER_SLICE_MAX_XFERS (UINT32_MAX / 2)

typedef struct {
    themis_xfer_tracker_t tr;
    uint32_t next;           /* the next transfer's index in the whole list */
    themis_xfer_slice_t *sl; /* NULL: the whole list */
    /* A slice's label of the next transfers (transfer_slice.h), kept
     * where labelled. */
    int labelled;
    uint64_t label;
} themis_xfer_sink_t;

/* Transfer `next` (then next + 1): added where it belongs to the sink. */
themis_status_t themis_xfer_sink_add(themis_xfer_sink_t *k, uint32_t src, uint32_t dst,
                                     uint8_t kind, uint8_t src_buf, uint64_t src_off,
                                     uint8_t dst_buf, uint64_t dst_off, uint64_t count);
/* Room for a slice's `n` transfers (and their dependencies, a few each)
 * up front: growing by doubling copies the list over and over.  sl NULL:
 * nothing to do. */
themis_status_t themis_xfer_slice_reserve(themis_xfer_slice_t *sl, uint64_t n);
/* st, with the slice emptied on failure. */
themis_status_t themis_xfer_slice_done(themis_xfer_slice_t *sl, themis_status_t st);

#endif
