/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The execution engine: runs one rank's themis_program_t (planners/themis/plan.h)
 * over non-blocking PML point-to-point on a private communicator, reducing
 * with ompi_op_reduce.  It executes step lists it did not design.
 */
#ifndef MCA_COLL_THEMIS_ENGINE_H
#define MCA_COLL_THEMIS_ENGINE_H

#include "ompi_config.h"

#include <stdbool.h>
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"
#include "plan.h"

/*
 * Scratch owned by a module and reused across calls; grows on demand and
 * is freed by mca_coll_themis_engine_scratch_release.  Its size is bounded
 * by the plan, in elements of the call's datatype:
 *   work_count (only when the work buffer is not the output)
 * + sum over queues q of min(W, ops on q) x peak_q, W the call's ops in
 *   flight per queue (args chunks_in_flight, else the program's)
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

/*
 * What the engine derives from a program alone, once, when the program is
 * cached (mca_coll_themis_engine_prepare): the program checked against
 * itself and the communicator size (offsets inside work, peers inside the
 * communicator, each op once on a queue, no local dependency cycle, ...),
 * and its static layout (each step's chain predecessor and receive
 * temporary, the size of each queue's op slots; a call makes as many
 * slots as it runs ops at once).  It stays valid for copies of the
 * program whose copy lists differ on the user's side only (segments).
 * A periodic program (program_runs.h) is checked and laid out per stored
 * op and step: a run's copies share their stored one's layout.
 */
typedef struct mca_coll_themis_engine_layout_t {
    int comm_size;
    uint32_t nops, nsteps, nqueues;     /* of the program it was made for */
    int has_reduce;                     /* some step reduces: the call needs an op */
    uint64_t max_transfer;              /* largest send or receive count */
    uint32_t max_tag;                   /* largest step tag */
    uint32_t nstored_ops, nstored_steps;
    uint64_t *temp_off;                 /* [stored steps]: in its op's slot */
    uint32_t *chain_back;               /* [stored steps]: steps back to the
                                         * previous one of its chain, 0: none */
    uint32_t *op_queue;                 /* [stored ops] */
    uint8_t *op_nchains;                /* [stored ops]: 1 + its highest chain */
    uint64_t *q_peak;                   /* [nqueues]: elements of one op slot */
    void *block;                        /* one allocation behind the arrays */
} mca_coll_themis_engine_layout_t;

/* OMPI_SUCCESS, OMPI_ERR_BAD_PARAM for a program that is inconsistent with
 * itself or a communicator of comm_size ranks (logged at verbose 1), or
 * OMPI_ERR_OUT_OF_RESOURCE.  Free with mca_coll_themis_engine_layout_free. */
int mca_coll_themis_engine_prepare(const themis_program_t *prog, int comm_size,
                                   mca_coll_themis_engine_layout_t *layout);
void mca_coll_themis_engine_layout_free(mca_coll_themis_engine_layout_t *layout);

typedef struct mca_coll_themis_engine_args_t {
    const themis_program_t *prog;
    const mca_coll_themis_engine_layout_t *layout;   /* prepared for prog */
    const void *input;             /* element 0 of the program's input */
    void *output;                  /* element 0 of the output buffer */
    ompi_datatype_t *dtype;        /* contiguous; extent may exceed 2 GiB x count */
    ompi_op_t *op;                 /* NULL for pure data movement (allgather) */
    ompi_communicator_t *p2p_comm; /* private communicator: tags are ours */
    int tag_ub;                    /* MPI_TAG_UB of p2p_comm */
    /* The call's lane of nlanes (0: one lane): step tags are folded to
     * (tag mod ((tag_ub + 1) / nlanes)) x nlanes + lane, so that calls in
     * different lanes never match each other's messages. */
    uint32_t lane, nlanes;
    /* Ops each queue runs at once; 0: the program's chunks_in_flight.
     * Local to the rank: queues start ops in their order on every rank,
     * so ranks with other values still meet. */
    uint32_t chunks_in_flight;
    mca_coll_themis_scratch_t *scratch;
    /* NULL, or [2 * prog->nops]: CLOCK_MONOTONIC ns at which op i started
     * (element 2i: queue head taken, dep complete) and completed (2i + 1:
     * its last step done).  Filled on success; for the trace
     * (coll_themis_trace), a branch per op when NULL. */
    uint64_t *op_ns;
    /* Advanced from the nonblocking progress callback, under its lock: it
     * never probes (ob1's improbe and iprobe run opal_progress on a miss,
     * which can re-enter coll/themis, e.g. a communicator-id agreement, and
     * wait for that lock), so a count mismatch is caught only as the
     * PML's truncation. */
    bool in_progress;
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
 * OMPI_ERR_BAD_PARAM (before any communication) for a layout that is not
 * the program's or another communicator size's, REDUCE without op, a
 * datatype without extent, tag_ub < 0 (the program itself was checked by
 * mca_coll_themis_engine_prepare).
 * Transfers of 0 elements are skipped on both sides.  A message of another
 * size than the program expects (ranks that passed different counts) fails
 * the call with MPI_ERR_TRUNCATE: under ob1, receives that may go
 * rendezvous are matched (improbe) before they are posted, so that a
 * larger message never reaches the buffer; and a call that waits without
 * progress looks for a message its program never receives (its peer's
 * program differs) every 200 ms.  If a transfer fails,
 * the outstanding receives are cancelled (sends cannot be) and all are
 * drained; requests still active after a second (a send whose peer never
 * receives) are detached and logged, and if one of them uses the scratch,
 * the scratch is given up (left allocated, never reused) so that it cannot
 * touch reused memory.
 */
int mca_coll_themis_engine_run(const mca_coll_themis_engine_args_t *args);

/*
 * The same call as a state machine, for nonblocking collectives: start
 * (checks as above, copy_in, first messages), advance until *done, free.
 * The engine keeps no pointer into args, only copies of *prog and *layout
 * (their arrays must live until free) and the buffers and scratch, which
 * it owns until done.  start returns an error only before communication;
 * advance returns the call's result once *done (OMPI_SUCCESS before).
 * advance does not call opal_progress itself, as it may run inside it;
 * only ob1's improbe and iprobe (receives matched first, the stall look)
 * do on a miss, and only for engines that are not in_progress.
 * *events (may be NULL) grows by the messages this advance found complete:
 * the progress callback returns them, so that opal_progress does not yield
 * the core (mpi_yield_when_idle) after a round that did work.
 */
typedef struct mca_coll_themis_engine_t mca_coll_themis_engine_t;
int mca_coll_themis_engine_start(const mca_coll_themis_engine_args_t *args,
                                 mca_coll_themis_engine_t **engine);
int mca_coll_themis_engine_advance(mca_coll_themis_engine_t *engine, bool *done, int *events);
void mca_coll_themis_engine_free(mca_coll_themis_engine_t *engine);

void mca_coll_themis_engine_scratch_release(mca_coll_themis_scratch_t *scratch);

/*
 * Scratch of finished nonblocking calls kept for the next ones.  A call
 * owns its scratch while it runs (several may be outstanding), and a fresh
 * allocation per call paid the page faults and zeroing of its whole size
 * on every call: a third of a rank's cycles in osu_ireduce_scatter at
 * 16 MiB, most of them in the copy of the input inside the call
 * (benchmarks/README.md).
 * Not thread-safe: the caller locks.
 */
#define MCA_COLL_THEMIS_SCRATCH_KEEP 4
typedef struct mca_coll_themis_scratch_pool_t {
    mca_coll_themis_scratch_t kept[MCA_COLL_THEMIS_SCRATCH_KEEP];
} mca_coll_themis_scratch_pool_t;

/* Moves the largest kept buffer into *scratch (empty before); the engine
 * grows it when the call needs more. */
void mca_coll_themis_scratch_pool_take(mca_coll_themis_scratch_pool_t *pool,
                                       mca_coll_themis_scratch_t *scratch);
/* Keeps *scratch (left empty) if the pool then holds at most max_bytes
 * (0: unbounded), making room by freeing smaller kept buffers; frees it
 * otherwise. */
void mca_coll_themis_scratch_pool_give(mca_coll_themis_scratch_pool_t *pool,
                                       mca_coll_themis_scratch_t *scratch, uint64_t max_bytes);
void mca_coll_themis_scratch_pool_clear(mca_coll_themis_scratch_pool_t *pool);

#endif
