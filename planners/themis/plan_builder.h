/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Pieces every program builder shares (plan.h describes the program):
 *   - even splitting of element ranges,
 *   - the rank grid (coordinates, dimension groups, coord_to_rank),
 *   - a growable program under construction: ops, steps with their tags,
 *     per-queue start orders, merged copy lists,
 *   - group phases: ring or direct reduce-scatter / allgather of one op
 *     over an ordered group of ranks and their blocks of the work buffer.
 *
 * Tags: a step's tag is op_index * tag_stride + step_index_in_op, where
 * tag_stride is fixed per program from group sizes only, so sender and
 * receiver of a transfer always compute the same tag.
 *
 * Zero-length transfers are dropped (peer set to -1) when a step is added.
 * This stays consistent between the two sides because a transfer's sender
 * and receiver always agree on its length.
 */
#ifndef THEMIS_PLAN_BUILDER_H
#define THEMIS_PLAN_BUILDER_H

#include "plan.h"

/* ------------------------------------------------------------ splitting */

/* Part i of n split into `parts` as evenly as possible: the first
 * n % parts parts get one element more (the scheduler's chunking rule). */
uint64_t themis_split_part(uint64_t n, uint32_t parts, uint32_t i);
/* Offset of part i within the split range. */
uint64_t themis_split_offset(uint64_t n, uint32_t parts, uint32_t i);

/* Elements of a request's whole vector: the allreduce count, nranks x
 * the allgather count, the sum of the reduce-scatter recvcounts;
 * UINT64_MAX where that overflows. */
uint64_t themis_request_elements(const themis_plan_request_t *req, uint32_t nranks);

typedef struct {
    uint64_t off, count;   /* elements of the work buffer */
} themis_block_t;

/* Split [off, off + n) into p contiguous blocks by themis_split_part. */
void themis_block_split_even(uint64_t off, uint64_t n, uint32_t p, themis_block_t *blocks);

/* ------------------------------------------------------------ rank grid */

/* Ranks on a multi-dimensional grid: linear index = sum c_k * stride_k,
 * stride_0 = 1; coord_to_rank maps a linear index to a communicator rank
 * (NULL = identity). */
typedef struct {
    int ndims;
    uint32_t size[THEMIS_MAX_DIMS];
    uint32_t stride[THEMIS_MAX_DIMS];
    uint32_t nranks;
    int *linear_to_rank;   /* [nranks] */
    uint32_t *rank_to_linear; /* [nranks] */
} themis_grid_t;

/* THEMIS_ERR_INVALID when a size is 0, the product overflows, or
 * coord_to_rank is not a permutation of 0..nranks-1. */
themis_status_t themis_grid_init(themis_grid_t *g, int ndims, const uint32_t *size,
                                 const int *coord_to_rank);
void themis_grid_free(themis_grid_t *g);
uint32_t themis_grid_coord(const themis_grid_t *g, uint32_t linear, int dim);
/* Communicator ranks of the group of `linear` along `dim`, by coordinate:
 * members[j] has coordinate j on dim (members holds size[dim] entries). */
void themis_grid_group(const themis_grid_t *g, uint32_t linear, int dim, int *members);

/* ------------------------------------------------------------ builder */

typedef struct {
    themis_program_t prog;      /* arrays grow while building */
    uint32_t cap_ops, cap_op_deps, cap_steps, cap_copy_in, cap_copy_out;
    uint32_t *queue_len, *queue_cap;
    uint32_t **queue_list;      /* per queue: op indices in start order */
    uint32_t tag_stride;
    uint32_t cur_op;            /* op receiving steps; UINT32_MAX before any */
} themis_plan_builder_t;

/* tag_stride >= most steps any op of the program will get (>= 1). */
themis_status_t themis_pb_init(themis_plan_builder_t *b, uint32_t nqueues, uint32_t tag_stride,
                               uint32_t chunks_in_flight);
/* Frees everything; safe after themis_pb_finish (which empties the builder). */
void themis_pb_free(themis_plan_builder_t *b);

/* Append an op; later steps go to it.  Op indices are 0, 1, 2, ... */
themis_status_t themis_pb_begin_op(themis_plan_builder_t *b, uint32_t queue, int32_t dep,
                                   uint32_t chunk, themis_phase_t phase, uint32_t *op_index);
/* Append a step to the current op; fills step.tag. */
themis_status_t themis_pb_add_step(themis_plan_builder_t *b, themis_step_t step);
/* Queue `op` next on `queue` (the engine starts a queue's ops in this order). */
themis_status_t themis_pb_queue_push(themis_plan_builder_t *b, uint32_t queue, uint32_t op);
/* Copies, merged with the previous one when both ranges continue it. */
themis_status_t themis_pb_copy_in(themis_plan_builder_t *b, uint64_t src_off, uint64_t dst_off,
                                  uint64_t count);
themis_status_t themis_pb_copy_out(themis_plan_builder_t *b, uint64_t src_off, uint64_t dst_off,
                                   uint64_t count);
/* Check that every op is queued exactly once on its own queue, derive the
 * CSR queue arrays, max_recv_count and max_op_reduce_recvs, and move the
 * program to *out (the builder is left empty). */
themis_status_t themis_pb_finish(themis_plan_builder_t *b, uint64_t work_count,
                                 int work_is_output, themis_program_t *out);

/* ------------------------------------------------------------ group phases */

/* One RS or AG phase of the current op over an ordered group.  members[j]
 * owns blocks[j] (after RS, before AG); ring algorithms send to
 * members[me + 1] and receive from members[me - 1] (indices mod p).
 * reverse: the ring helpers see members and blocks in reverse order (so
 * they send to members[me - 1]); chain: the steps' chain (plan.h). */
typedef struct {
    uint32_t p;
    uint32_t me;
    const int *members;           /* [p] communicator ranks */
    const themis_block_t *blocks; /* [p] work ranges */
    int reverse;
    uint8_t chain;
} themis_group_phase_t;

/* p-1 chained steps; at step s member j sends block j-s-1 and reduces
 * block j-s-2 from its predecessor, so it ends owning block j. */
themis_status_t themis_pb_ring_reduce_scatter(themis_plan_builder_t *b,
                                              const themis_group_phase_t *g);
/* p-1 chained steps; at step s member j forwards block j-s and copies in
 * block j-s-1 from its predecessor. */
themis_status_t themis_pb_ring_allgather(themis_plan_builder_t *b, const themis_group_phase_t *g);
/* p-1 concurrent steps; at step s member j sends block j+s to member j+s
 * and reduces into block j what member j-s sends. */
themis_status_t themis_pb_direct_reduce_scatter(themis_plan_builder_t *b,
                                                const themis_group_phase_t *g);
/* p-1 concurrent steps; at step s member j sends block j to member j+s
 * and copies block j-s from member j-s. */
themis_status_t themis_pb_direct_allgather(themis_plan_builder_t *b,
                                           const themis_group_phase_t *g);
/* 2(p-1) steps: ring RS (AG) on the first halves of the blocks forward
 * (chain 0) and on the second halves in reverse member order (chain 1),
 * interleaved so both directions run at once.  Ignores g->reverse/chain. */
themis_status_t themis_pb_biring_reduce_scatter(themis_plan_builder_t *b,
                                                const themis_group_phase_t *g);
themis_status_t themis_pb_biring_allgather(themis_plan_builder_t *b,
                                           const themis_group_phase_t *g);
/* Dispatch by algorithm and phase; p = 1 adds no step. */
themis_status_t themis_pb_group_phase(themis_plan_builder_t *b, themis_dim_algo_t algo,
                                      themis_phase_t phase, const themis_group_phase_t *g);

#endif
