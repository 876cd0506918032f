/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A rank's program: the plain-data step lists the runtime engine executes.
 * Every algorithm (Themis phases, rings, torus phases, synthesized
 * schedules) compiles to this form; the engine knows nothing else.
 *
 * Buffers, all indexed in elements of the call's datatype:
 *   input   the user's send data (the engine passes recvbuf when in place,
 *           offset to the rank's block for allgather)
 *   work    where the steps run: the output buffer when work_is_output,
 *           otherwise engine scratch of work_count elements
 *   output  the user's receive buffer
 * Execution: copy_in (input -> work), then the ops, then copy_out
 * (work -> output).
 *
 * Ops live on queues (one per dimension, ring, ...).  Each queue starts its
 * ops strictly in the listed order, at most `chunks_in_flight` at a time, and an op
 * starts only once all its dependencies completed (op_deps[dep_first ..
 * dep_first + ndeps): a join when there are several, e.g. a tree node that
 * reduces every child's data before it sends to its parent).  Every rank of a queue's group
 * lists the group's ops in the same order, so messages never cross-match.
 * Steps of one op form independent chains by `chain` (single-chain
 * algorithms leave 0 everywhere; a bidirectional ring runs one chain per
 * direction).  A chain's steps start in order: a step with after_prev set
 * waits until the previous step of its chain (the nearest earlier step of
 * the op with the same chain) completed, otherwise it starts with it; the
 * first step of each chain starts with the op.  A
 * message is identified by (op index, step index) on both sides: the
 * sender's op/step numbering equals the receiver's for the same transfer.
 *
 * Reduction order: the engine applies the REDUCE receives of one chain of
 * an op in step order, whatever order they arrive in, so a program gives
 * the same bits on every run.  Builders keep concurrent reductions into
 * the same elements within one chain (other chains of the op, and ops that
 * can be active together, reduce into other elements).
 */
#ifndef THEMIS_PLAN_H
#define THEMIS_PLAN_H

#include "simulator.h"

typedef enum {
    THEMIS_RECV_NONE = 0,
    THEMIS_RECV_COPY = 1,   /* receive straight into work[recv_off] */
    THEMIS_RECV_REDUCE = 2, /* receive to temp, then work[recv_off] = temp op work */
    /* Local steps, no message (both peers -1), done when the step starts;
     * send_count == recv_count and the two ranges do not overlap: */
    THEMIS_LOCAL_COPY = 3,  /* work[recv_off..] = work[send_off..] */
    THEMIS_LOCAL_REDUCE = 4 /* work[recv_off..] = work[send_off..] op work[recv_off..] */
} themis_recv_mode_t;

typedef struct {
    int32_t send_peer;      /* communicator rank, -1 = no send */
    int32_t recv_peer;      /* communicator rank, -1 = no receive */
    uint64_t send_off, send_count;
    uint64_t recv_off, recv_count;
    uint32_t tag;           /* message id, equal on sender and receiver */
    uint8_t recv_mode;      /* themis_recv_mode_t */
    uint8_t after_prev;
    uint8_t chain;          /* < THEMIS_STEP_CHAINS, see above */
} themis_step_t;

/* Independent step chains one op may have (a bidirectional ring uses 2). */
#define THEMIS_STEP_CHAINS 8

typedef struct {
    uint32_t queue;
    uint32_t dep_first;     /* into op_deps[] */
    uint32_t ndeps;         /* ops that must complete first (earlier or later
                             * in index, never itself) */
    uint32_t first_step;
    uint32_t nsteps;
    uint32_t chunk;         /* for traces */
    uint8_t phase;          /* themis_phase_t, for traces */
    /* For traces of a compiled plan (themis, transfer_slice.h's label):
     * the dimension the op's phase runs on; else 0. */
    uint8_t dim;
} themis_op_t;

typedef struct {
    uint64_t src_off, dst_off, count;
} themis_copy_t;

typedef struct themis_program {
    uint32_t nqueues;
    uint32_t *queue_first;  /* [nqueues + 1], CSR into queue_ops */
    uint32_t *queue_ops;    /* op indices in enforced start order */
    uint32_t nops;
    themis_op_t *ops;
    uint32_t nop_deps;
    uint32_t *op_deps;      /* op indices, see themis_op_t */
    uint32_t nsteps;
    themis_step_t *steps;
    uint64_t work_count;
    int work_is_output;
    uint32_t ncopy_in;
    themis_copy_t *copy_in;
    uint32_t ncopy_out;
    themis_copy_t *copy_out;
    uint64_t max_recv_count; /* largest REDUCE receive: temp buffer sizing */
    uint32_t chunks_in_flight;       /* per queue */
    /* Most REDUCE receives one op can have outstanding at once (1 for
     * chained steps, p-1 for direct exchanges): receive temporaries per
     * active op, each of max_recv_count elements. */
    uint32_t max_op_reduce_recvs;
    /* Runs of repeated slots stored once (program_runs.h); 0: none, the
     * arrays are the program.  With runs, read it through program_runs.h. */
    uint32_t nruns;
    struct themis_program_run *runs;
} themis_program_t;

/* Algorithm of one dimension's RS/AG phase. */
typedef enum {
    THEMIS_DIM_ALGO_RING = 0,   /* p-1 chained neighbour steps */
    THEMIS_DIM_ALGO_DIRECT = 1, /* p-1 concurrent pairwise exchanges */
    /* Two counter-rotating rings: the first half of every block goes
     * forward, the second half backward, as two chains of p-1 steps each
     * (interleaved, 2(p-1) steps per op). */
    THEMIS_DIM_ALGO_BIRING = 2
} themis_dim_algo_t;

typedef struct {
    themis_coll_t coll;
    int ndims;
    uint32_t dim_size[THEMIS_MAX_DIMS];   /* dim 0 innermost */
    themis_dim_algo_t dim_algo[THEMIS_MAX_DIMS];
    int rank;                             /* caller's communicator rank */
    /* Linear coordinate index (sum c_i * stride_i, stride_0 = 1) to
     * communicator rank; NULL means identity. */
    const int *coord_to_rank;
    uint64_t count;                       /* AR: elements; AG: elements per rank */
    const uint64_t *recvcounts;           /* RS: [P] elements per rank */
    uint32_t chunks_in_flight;
    /* The caller reads programs through program_runs.h: a row may store
     * runs of repeated slots once. */
    int periodic;
} themis_plan_request_t;

/* Themis or baseline schedule + intra-dimension order -> this rank's program.
 * One queue per dimension (order->entries[k] gives its start order), op
 * index = chunk * nstages + stage, dep = the chunk's previous stage, tag =
 * op * T + step with T = max(1, most steps of a dimension's algorithm:
 * size - 1, or 2(size - 1) for BIRING).  Allreduce
 * works in the output; reduce-scatter and allgather in scratch laid out so
 * every stage's blocks are contiguous (see plan.c).  Any RS (or AG) order
 * per chunk works; for allreduce the AG order must be the reverse of the
 * chunk's RS order (THEMIS_ERR_UNSUPPORTED otherwise).  Inconsistent
 * inputs give THEMIS_ERR_INVALID and leave *out empty. */
themis_status_t themis_program_build_hier(const themis_plan_request_t *req,
                                          const themis_schedule_t *sched,
                                          const themis_intra_order_t *order,
                                          themis_program_t *out);
/* What themis_program_build_hier requires of (req, sched, order), every
 * chunk's stages included (the transfer list of the same plan,
 * xfer_hier.h, requires the same): its THEMIS_ERR_INVALID or
 * THEMIS_ERR_UNSUPPORTED, else THEMIS_OK. */
themis_status_t themis_hier_check(const themis_plan_request_t *req,
                                  const themis_schedule_t *sched,
                                  const themis_intra_order_t *order);
void themis_program_free(themis_program_t *p);
/* Identifies a program (its steps, queues, dependencies and copies), for
 * traces and round-trip checks. */
uint64_t themis_program_hash(const themis_program_t *p);
/* The RS/AG algorithm of a dimension of this kind and size: fc direct,
 * sw direct up to direct_max ranks and a ring above, biring both
 * directions, ring one. */
themis_dim_algo_t themis_dim_algo_for(themis_dim_kind_t kind, uint32_t size, uint32_t direct_max);

#endif
