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
    /* Whole lists: the next stamp_left transfers wait for what transfer
     * stamp_from, then on, waits for, each stamp_shift on (a generator's
     * twin parts: a ring like an earlier one on units of its own), taken
     * without the tracker's search (which still notes them, but where
     * stamp_unnoted: nothing tracked later looks at their units).  0: off. */
    uint32_t stamp_left, stamp_from, stamp_shift;
    int stamp_unnoted;
    /* A periodic slice's repeat that need not note its copy (noted 0)
     * still notes the copy's transfers that touch units [watch_lo,
     * watch_hi) of buffer watch_buf: the ones read after the slots.
     * Empty: none. */
    uint8_t watch_buf;
    uint64_t watch_lo, watch_hi;
} themis_xfer_sink_t;

/* Transfer `next` (then next + 1): added where it belongs to the sink. */
themis_status_t themis_xfer_sink_add(themis_xfer_sink_t *k, uint32_t src, uint32_t dst,
                                     uint8_t kind, uint8_t src_buf, uint64_t src_off,
                                     uint8_t dst_buf, uint64_t dst_off, uint64_t count);
/* A software-pipelined generator's next slot as a copy of the last one
 * (a slice's transfers first .. end, one chunk on): each transfer's
 * units shifted by unit_shift in the home buffers and by scratch_shift
 * in SCRATCH (transfer_slice.h), its tag by tag_span (the slot's length in
 * the whole list, added to next), its dependencies on transfers from
 * `reach` on by the slot's length, those before `keep` (copies ahead of
 * the slots) by keep_shift (0 where one copy serves every chunk, 1 where
 * each chunk has its own, chunk innermost).  The tracker notes the copy,
 * so that later adds find it, where `noted`; a periodic slice (which keeps
 * the copy out of its list) leaves an unnoted one out of the tracker too
 * but for the watched units: the caller knows nothing later looks at the
 * others.  THEMIS_ERR_UNSUPPORTED, nothing added, where that is not
 * the slot the generator would emit: a whole list, a labelled slice, or
 * a dependency in [keep, reach), on a slot that may be of another
 * length; the caller emits the slot itself.  The callers' tests compare
 * the slices with the whole lists. */
themis_status_t themis_xfer_sink_repeat(themis_xfer_sink_t *k, uint32_t first, uint32_t keep,
                                        uint32_t keep_shift, uint32_t reach, uint32_t tag_span,
                                        uint64_t unit_shift, uint64_t scratch_shift, int noted);
/* Room for a slice's `n` transfers (and their dependencies, a few each)
 * up front: growing by doubling copies the list over and over.  sl NULL:
 * nothing to do. */
themis_status_t themis_xfer_slice_reserve(themis_xfer_slice_t *sl, uint64_t n);
/* st, with the slice emptied on failure. */
themis_status_t themis_xfer_slice_done(themis_xfer_slice_t *sl, themis_status_t st);

#endif
