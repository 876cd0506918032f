/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * One rank's slice of a transfer schedule (transfer.h): the transfers the
 * rank takes part in, each with its index in the whole list (its message
 * tag), and dependencies between them alone.  A generator that knows
 * where a rank's transfers fall in its list (rings, torus2d: xfer_ring.h)
 * emits the slice directly, so a rank's program costs its own transfers,
 * not the whole list (8 K P^2 transfers for the rings): the run compiles
 * the same schedule the cost simulates, by the one compiler.
 *
 * Dependencies.  A slice's dependencies order the rank's own accesses to
 * its own buffers (xfer_tracker.h's conflicts on that rank); the orders
 * the whole list adds through other ranks are their programs' business
 * (a message matches by tag whenever it was sent).  They point backwards
 * and are a subset of what compiling the whole list gives, so the
 * deadlock argument of transfer.h holds and the results are the same
 * bits.
 *
 * Units.  A slice's schedule is stationary: every unit of every rank
 * holds one global unit throughout, the collective's (its input, its
 * result) in INPUT and OUTPUT and scratch_unit[u] in scratch unit u,
 * alike on every rank, so unit sizes follow without running the list.
 * The compiler refuses a transfer that breaks this.
 */
#ifndef THEMIS_TRANSFER_SLICE_H
#define THEMIS_TRANSFER_SLICE_H

#include "transfer.h"

typedef struct {
    /* The schedule's header (coll, nranks, nunits, buffers, layout, name)
     * with only the rank's transfers; their deps index this list. */
    themis_xfer_sched_t s;
    uint32_t rank;
    uint32_t *tag;            /* [s.nxfers] each one's index in the whole list */
    uint32_t cap_tag;
    /* [s.buf_units[SCRATCH]] the global unit scratch unit u holds,
     * UINT32_MAX where no transfer writes it. */
    uint32_t *scratch_unit;
    /* [s.nxfers] or NULL: what each transfer is part of in a plan of
     * chunks and dimensions (themis), chunk << 16 | phase << 8 | dim; the
     * compiled ops carry it (plan.h) for traces. */
    uint64_t *label;
    /* Periodic slices (set `periodic` before the generator runs; only a
     * caller that compiles to a periodic program, program_runs.h, asks):
     * a software-pipelined generator's repeated slots are kept once.
     * Run j: the logical transfers [at, at + len * count) are the stored
     * ones [store, store + len) (copy 0) repeated; copy r adds r *
     * unit_shift to an offset in a home buffer (INPUT, OUTPUT: their
     * units are global units less a constant), r * scratch_shift to one
     * in SCRATCH (a generator may keep a chunk's scratch units apart
     * from the next chunk's by other than their global units are), r *
     * tag_span to the tag, and to a
     * dependency on d: r * len where d >= keep (the slots), else r *
     * keep_shift (copies ahead of the slots).  Dependencies (s.deps) hold
     * logical indices; a stored transfer p outside runs is logical p plus
     * the copies left out before it.
     * Without runs (nruns 0) logical and stored indices are one. */
    int periodic;
    uint32_t nruns, cap_runs;
    struct themis_xfer_slice_run *runs;
} themis_xfer_slice_t;

typedef struct themis_xfer_slice_run {
    uint32_t at, store, len, count;
    uint32_t keep, keep_shift, tag_span;
    uint64_t unit_shift, scratch_shift;
} themis_xfer_slice_run_t;

/* What copy 1 of run sr adds to an offset in buffer buf. */
static inline uint64_t themis_xfer_slice_run_shift(const themis_xfer_slice_run_t *sr, uint8_t buf)
{
    return THEMIS_BUF_SCRATCH == buf ? sr->scratch_shift : sr->unit_shift;
}

void themis_xfer_slice_free(themis_xfer_slice_t *sl);

/* Rank sl->rank's program, as themis_xfer_compile gives for the whole
 * schedule (the same steps, tags, work buffer and copies; dependencies
 * as above).  THEMIS_ERR_INVALID (why says so) for a transfer that does
 * not involve the rank, a dependency that does not point backwards, or a
 * schedule that is not stationary; otherwise as themis_xfer_compile.
 * A periodic slice's runs give their copies; periodic: the program
 * keeps a copy once (program_runs.h) where it is the open run's next one
 * (its steps' offsets and counts checked, the rest follows from the
 * slice's rule, else compiled and compared op by op); its expansion is
 * the program without periodic. */
struct themis_program;
themis_status_t themis_xfer_slice_compile(const themis_xfer_slice_t *sl, uint64_t total,
                                          const uint64_t *counts, uint32_t chunks_in_flight,
                                          int periodic, struct themis_program *out, char *why,
                                          size_t len);

#endif
