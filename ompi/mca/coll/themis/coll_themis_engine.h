/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The execution engine: runs one rank's themis_program_t (planners/plan.h)
 * over non-blocking PML point-to-point on a private communicator, reducing
 * with ompi_op_reduce.  It executes step lists it did not design.
 */
#ifndef MCA_COLL_THEMIS_ENGINE_H
#define MCA_COLL_THEMIS_ENGINE_H

#include "ompi_config.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"
#include "plan.h"

/*
 * Scratch owned by a module and reused across calls; grows on demand and
 * is freed by mca_coll_themis_engine_scratch_release.  Its size is bounded
 * by the plan, in elements of the call's datatype:
 *   work_count (only when the work buffer is not the output)
 * + sum over queues q of min(inflight, ops on q) x peak_q
 * (each region 64-byte aligned), where peak_q is the largest number of
 * REDUCE receive elements one op of q can have posted at once: a step's
 * temporary is reused once the next step of its chain (plan.h) starts with
 * after_prev, so a chained op (ring) needs its largest receive per chain
 * and an op of concurrent steps (direct exchange) the sum of its receives.  peak_q is
 * at most (REDUCE steps of the op) x max_recv_count; the engine computes it
 * from the steps and does not rely on max_recv_count.
 */
typedef struct mca_coll_themis_scratch_t {
    char *base;
    size_t size;
} mca_coll_themis_scratch_t;

typedef struct mca_coll_themis_engine_args_t {
    const themis_program_t *prog;
    const void *input;             /* element 0 of the program's input */
    void *output;                  /* element 0 of the output buffer */
    ompi_datatype_t *dtype;        /* contiguous; extent may exceed 2 GiB x count */
    ompi_op_t *op;                 /* NULL for pure data movement (allgather) */
    ompi_communicator_t *p2p_comm; /* private communicator: tags are ours */
    int tag_ub;                    /* MPI_TAG_UB of p2p_comm */
    mca_coll_themis_scratch_t *scratch;
    /* NULL, or [2 * prog->nops]: CLOCK_MONOTONIC ns at which op i started
     * (element 2i: queue head taken, dep complete) and completed (2i + 1:
     * its last step done).  Filled on success; for the trace
     * (coll_themis_trace), a branch per op when NULL. */
    uint64_t *op_ns;
} mca_coll_themis_engine_args_t;

/*
 * Largest PML message in bytes (default 1 GiB).  A transfer above it (or
 * above INT_MAX elements) is split into consecutive messages with the same
 * tag on both sides, matched in order; this keeps messages over 2 GiB away
 * from transport limits.  Must be equal on all ranks of a communicator.
 */
extern size_t mca_coll_themis_engine_max_message_bytes;

/*
 * Returns OMPI_SUCCESS, an OMPI error, or the MPI error class of a failed
 * request (e.g. MPI_ERR_TRUNCATE).  On success every request is complete.
 * OMPI_ERR_BAD_PARAM (before any communication) for a program that is
 * inconsistent with itself or the communicator: offsets outside work,
 * peers outside the communicator, an op missing from or repeated in the
 * queues, local dependency cycles, REDUCE without op, tag_ub < 0.
 * Transfers of 0 elements are skipped on both sides.  If a transfer fails,
 * the outstanding receives are cancelled (sends cannot be) and all are
 * drained; requests still active after a second (a send whose peer never
 * receives) are detached and logged, and if one of them uses the scratch,
 * the scratch is given up (left allocated, never reused) so that it cannot
 * touch reused memory.
 */
int mca_coll_themis_engine_run(const mca_coll_themis_engine_args_t *args);

void mca_coll_themis_engine_scratch_release(mca_coll_themis_scratch_t *scratch);

#endif
