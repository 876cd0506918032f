/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Ring phases as transfer schedules (transfer.h); first the classic
 * unidirectional ring:
 * P ranks in the given order, position i sends to position i + 1 mod P,
 * P units (one block each).
 *
 *   allreduce       INPUT P, OUTPUT P units: a local copy INPUT -> OUTPUT
 *                   on every rank, P-1 REDUCE steps (reduce-scatter) and
 *                   P-1 COPY steps (allgather), all in OUTPUT.
 *   reduce_scatter  INPUT P, SCRATCH P, OUTPUT 1: a local copy INPUT ->
 *                   SCRATCH, P-1 REDUCE steps in SCRATCH, a local copy of
 *                   the rank's own unit SCRATCH -> OUTPUT.
 *   allgather       INPUT 1, OUTPUT P: a local copy of the rank's block
 *                   INPUT -> OUTPUT (unit r), P-1 COPY steps in OUTPUT.
 * In the reduce-scatter, position i ends with unit order[i] (its rank's
 * block); at step k it sends the unit whose reduction started at
 * position i - k.  Transfers are listed step by step, positions in ring
 * order; each depends on every earlier transfer it conflicts with on a
 * rank (the last writer of what it reads or writes, and the readers since
 * of what it writes), so dependencies point backwards and no two
 * transfers touching one unit, one of them writing, are unordered.
 */
#ifndef THEMIS_XFER_RING_H
#define THEMIS_XFER_RING_H

#include "hamiltonian.h"
#include "transfer.h"
#include "transfer_slice.h"

/* 2 P (P - 1) + P transfers at most: bounds time and memory. */
#define THEMIS_XFER_RING_MAX_RANKS 1024u

/* order: a permutation of 0 .. nranks-1, or NULL for 0 .. nranks-1.
 * THEMIS_ERR_INVALID for 0 or more than THEMIS_XFER_RING_MAX_RANKS ranks,
 * an order that is not a permutation, an unknown collective;
 * THEMIS_ERR_NOMEM.  On error out is empty. */
themis_status_t themis_xfer_ring(themis_coll_t coll, uint32_t nranks, const uint32_t *order,
                                 themis_xfer_sched_t *out);

/*
 * HammingMesh's rings (plan_torus.h) on an r x c torus, r, c >= 3: the four
 * directed rings on the two edge-disjoint Hamiltonian cycles (ring q:
 * cycle q / 2, backwards for odd q), quarter q of the data on ring q, each
 * quarter in nchunks chunks, each chunk a ring reduce-scatter and/or
 * allgather of one block per rank.  The unit layout is nested (transfer.h:
 * quarters, chunks, then allreduce's ring blocks), so every message covers
 * the elements it did when the row planned programs.
 *   allreduce       in place: INPUT 4 K P units, the result left there;
 *                   unit (q K + k) P + j is ring position j's block;
 *   reduce_scatter  INPUT 4 K P, OUTPUT 4 K: reduced in INPUT, the rank's
 *                   own pieces copied to OUTPUT at the end;
 *   allgather       INPUT 4 K, OUTPUT 4 K P: the rank's pieces copied to
 *                   OUTPUT, gathered there.
 * Rank x's piece k of quarter q is unit x 4K + q K + k (reduce-scatter,
 * allgather).  Stages are listed software-pipelined (stage s of chunk
 * t - s in slot t, later stages first, quarters in order), each ring step
 * by ring position, dependencies from the conflict tracker.
 * linear_to_rank maps a node (col + cols * row) to its rank (NULL:
 * identity).  THEMIS_ERR_UNSUPPORTED beyond THEMIS_XFER_RINGS_MAX_XFERS
 * transfers (the list grows as 8 K P^2), THEMIS_ERR_INVALID for bad
 * arguments, THEMIS_ERR_NOMEM; on error out is empty.
 */
#define THEMIS_XFER_RINGS_MAX_XFERS (1u << 22)
themis_status_t themis_xfer_rings(themis_coll_t coll, const themis_ham_t *cycles,
                                  const int *linear_to_rank, uint32_t nchunks,
                                  themis_xfer_sched_t *out);

/*
 * HammingMesh's torus2d (plan_torus.h) on a rows x cols torus: quarter q
 * reduces along dimension A (0 for q = 0, 1; 1 for q = 2, 3), then B,
 * even quarters towards the next coordinate, odd ones the previous, each
 * quarter in nchunks chunks; every stage is one ring per line of the
 * torus along its dimension.  A piece (quarter, chunk) is laid out as
 * leaves, leaf x = digit on A * size(B) + digit on B (the rank that ends
 * up owning it): a stage on A moves blocks of size(B) leaves, one on B
 * single leaves, the same messages as the programs the row planned.
 *   allreduce       in place: INPUT 4 K P units, nested split quarter,
 *                   chunk, A digit, B digit (split_alt for the transposed
 *                   quarters); unit (q K + k) P + x is leaf x;
 *   reduce_scatter  INPUT 4 K P (rank x's piece: x 4K + q K + k) copied to
 *                   SCRATCH in leaf order ((q K + k) P + x), reduced there,
 *                   the rank's own leaves copied to OUTPUT (4 K);
 *   allgather       the reverse: INPUT 4 K to the rank's leaves in SCRATCH,
 *                   gathered there, every leaf copied to OUTPUT.
 * Stages are listed as the rings'; a chunk's leaf copies are part of its
 * first stage (to SCRATCH) and its last (from SCRATCH).  linear_to_rank: as the rings'.
 * THEMIS_ERR_UNSUPPORTED beyond THEMIS_XFER_RINGS_MAX_XFERS transfers,
 * THEMIS_ERR_INVALID for bad arguments, THEMIS_ERR_NOMEM; on error out is
 * empty.
 */
themis_status_t themis_xfer_torus2d(themis_coll_t coll, uint32_t rows, uint32_t cols,
                                    const int *linear_to_rank, uint32_t nchunks,
                                    themis_xfer_sched_t *out);

/* Rank `rank`'s slice (transfer_slice.h) of themis_xfer_rings' and
 * themis_xfer_torus2d's lists, emitted directly: each stage's ring steps
 * give the rank's two transfers a step at their places in the list, so a
 * slice costs the rank's transfers, and needs no bound but that its tags
 * fit 32 bits (THEMIS_ERR_UNSUPPORTED).  Errors as theirs (rank out of
 * range: THEMIS_ERR_INVALID); on error out is empty. */
themis_status_t themis_xfer_rings_slice(themis_coll_t coll, const themis_ham_t *cycles,
                                        const int *linear_to_rank, uint32_t nchunks,
                                        uint32_t rank, themis_xfer_slice_t *out);
themis_status_t themis_xfer_torus2d_slice(themis_coll_t coll, uint32_t rows, uint32_t cols,
                                          const int *linear_to_rank, uint32_t nchunks,
                                          uint32_t rank, themis_xfer_slice_t *out);

#endif
