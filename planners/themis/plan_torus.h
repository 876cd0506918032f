/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * HammingMesh programs on an r x c torus (Sec. V-A2 of hammingmesh.txt),
 * compiled to the same themis_program_t as Themis (plan.h).
 *
 * Request: a themis_plan_request_t with ndims = 2, dim_size[0] = c (cols,
 * innermost: ranks in one row are consecutive linear indices) and
 * dim_size[1] = r (rows); linear index = col + c * row, mapped to ranks by
 * coord_to_rank.  dim_algo is ignored (both use rings).  The data (the
 * allreduce vector, each rank's reduce-scatter segment, each rank's
 * allgather contribution) is split into 4 quarters, each into `nchunks`
 * chunks, by themis_split_part.  There are four queues, one per set of
 * directed links (below); ops are listed on them in a software-pipelined
 * order (chunk k's stage s before chunk k+1's stage s-1), the same on every
 * rank.
 *
 * rings: the two edge-disjoint Hamiltonian cycles (hamiltonian.h), each
 *   used in both directions = four directed rings; quarter q runs on
 *   cycle q/2, forward for even q, backward for odd q.
 *     allreduce       ring reduce-scatter + ring allgather over all p
 *                     ranks: ~ 2p alpha + S/2 beta (S/4 per ring);
 *     reduce-scatter  ring reduce-scatter, block j = the quarter/chunk
 *                     piece of ring member j's segment;
 *     allgather       ring allgather of the contributions' pieces.
 *   Needs r, c >= 3 (THEMIS_ERR_UNSUPPORTED otherwise).
 * torus2d: quarter q reduces first along dimension A = 0 (rows: the ranks
 *   of a row) for q = 0, 1 or A = 1 (columns) for q = 2, 3 (the transposed
 *   torus), then along the other dimension B; even q send to the next
 *   coordinate, odd q to the previous one.  At any moment the four
 *   quarters use the four links of a node once each.
 *     allreduce       RS on A, RS on B, AG on B, AG on A: RS along rows,
 *                     allreduce along columns on the reduced piece, AG
 *                     along rows (~ 4 sqrt(p) alpha + ~S/2 beta);
 *     reduce-scatter  the first half: RS on A, then RS on B, so each rank
 *                     ends with its own fully reduced segment (RS on A
 *                     alone leaves row-reduced data spread over the row,
 *                     which is not MPI_Reduce_scatter's result);
 *     allgather       the last half: AG on B, then AG on A.
 *   Queue 2 d + (q odd) holds the phases on dimension d's links in one
 *   direction: quarters 0 and 2 share the + queues, 1 and 3 the - ones.
 *   Any r, c >= 1.
 * Work buffer: allreduce runs in the output; reduce-scatter on a copy of
 * the input (rings) or on the pieces in leaf order (torus2d: contiguous
 * blocks for both levels, as plan.c lays out Themis chunks); allgather in
 * the output (rings) or in leaf order (torus2d).
 */
#ifndef THEMIS_PLAN_TORUS_H
#define THEMIS_PLAN_TORUS_H

#include "hamiltonian.h"
#include "plan.h"

/* cycles: a decomposition of the request's rows x cols torus, or NULL to
 * build one (the runtime caches it per communicator). */
themis_status_t themis_program_build_rings(const themis_plan_request_t *req,
                                           const themis_ham_t *cycles, uint32_t nchunks,
                                           themis_program_t *out);
themis_status_t themis_program_build_torus2d(const themis_plan_request_t *req, uint32_t nchunks,
                                             themis_program_t *out);

#endif
