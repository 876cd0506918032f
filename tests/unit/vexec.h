/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * vexec: runs one themis_program_t per rank in a single process, following
 * the engine's rules (plan.h), to test program builders without MPI.
 *
 *   - copy_in on every rank first (skipped when source and destination
 *     are the same memory), copy_out once the rank's ops are all done;
 *   - a queue starts its ops strictly in order, at most prog->chunks_in_flight
 *     active at once, each only after its dep completed;
 *   - the first step of each chain (plan.h) starts with its op, the first
 *     step of the op at once; a later step starts once the previous step
 *     of its chain started and, with after_prev, completed;
 *   - a message is delivered only when both the send and the receive with
 *     the same (src, dst, tag) are posted (rendezvous: the strictest MPI
 *     behaviour, so any ordering bug shows up as a deadlock);
 *   - REDUCE receives land in a temporary and are reduced into work on
 *     delivery; COPY receives land directly.
 * Among all actions that may happen next (start an op, start a step,
 * deliver a message) one is picked by a PRNG seeded with `seed`, so
 * different seeds explore different interleavings deterministically.
 *
 * Errors (return -1, message in err): malformed program, offsets out of
 * the work buffer, deadlock (some op unfinished, nothing can progress),
 * messages whose sizes differ, duplicate message ids, too many concurrent
 * REDUCE receives for the program's temp sizing, and races: posting a
 * transfer whose range overlaps a pending receive (or a receive over a
 * pending send) on the same rank, or a send range modified in flight.
 * Unmatched messages show up as a deadlock naming the pending transfers.
 */
#ifndef THEMIS_VEXEC_H
#define THEMIS_VEXEC_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* inout[i] = inout[i] op in[i] for n elements. */
typedef void (*vexec_reduce_fn)(void *inout, const void *in, uint64_t n);

/* progs, inputs, outputs: [nranks], indexed by communicator rank.  reduce
 * may be NULL when no program has a REDUCE receive. */
int vexec_run(int nranks, themis_program_t *const *progs, const void *const *inputs,
              void *const *outputs, size_t elem_size, vexec_reduce_fn reduce, uint32_t seed,
              char *err, size_t errlen);

#endif
