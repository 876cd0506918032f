/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The Themis (and baseline) plan as a transfer schedule (transfer.h): the
 * messages themis_program_build_hier's programs send (plan.h, plan.c),
 * each chunk laid out in leaves by its own dimension order, every
 * dimension's phase a ring, direct exchange or bidirectional ring
 * (biring) over each group of the rank grid.
 *
 * Units.  A chunk's leaves follow its level order, so chunks differ in how
 * they nest, and a biring sends the first half of each block's elements
 * one way and the second half the other: its cut falls inside a leaf
 * wherever the count puts it.  No split rule gives both, so the list is
 * cut for one call: each leaf is 1 + B units (B: the dimensions run as a
 * biring), its start, then the cuts of the B biring blocks it lies in
 * (clamped to the leaf, in element order, ties by level), and an explicit
 * unit layout (transfer.h's unit_off) says where each unit's elements
 * are.  Every message is then a run of whole units covering exactly the
 * elements the program's message covers; a half whose elements are none
 * is an empty transfer (no message), as the programs send none.
 *   allreduce       in place in INPUT; unit (k P + x) (1 + B) + j is piece
 *                   j of leaf x of chunk k, in element order;
 *   reduce_scatter  INPUT (rank r's block: r's leaf of each chunk, units
 *                   (r K + k)(1 + B) + j) copied to SCRATCH in leaf order,
 *                   reduced there, the rank's own leaves to OUTPUT;
 *   allgather       the reverse.
 * per_element instead makes one unit per element and leaves out the
 * transfers of no elements (the link simulator's representative calls,
 * which have equal counts).
 *
 * Order.  The leaf copies, then the (chunk, stage) phases merged from the
 * simulator's per-dimension orders (round robin over the dimensions, each
 * phase after its chunk's previous one), then the copies out.  A phase
 * lists its steps in order; a step every group's members, by group and
 * member.  Dependencies come from the conflict tracker (xfer_sink.h).
 */
#ifndef THEMIS_XFER_HIER_H
#define THEMIS_XFER_HIER_H

#include "plan.h"
#include "transfer.h"
#include "transfer_slice.h"

/* Transfers of a whole list (slices are bounded by their 32-bit tags). */
#define THEMIS_XFER_HIER_MAX_XFERS (1u << 22)

/* req: the call (coll, dims, dim_algo, coord_to_rank, counts; rank is not
 * used); sched and order: the plan themis_program_build_hier takes.
 * THEMIS_ERR_INVALID or THEMIS_ERR_UNSUPPORTED where it refuses them;
 * THEMIS_ERR_UNSUPPORTED beyond THEMIS_XFER_HIER_MAX_XFERS transfers or
 * 2^32 units, or per_element with unequal counts; THEMIS_ERR_NOMEM.  On
 * error out is empty. */
themis_status_t themis_xfer_hier(const themis_plan_request_t *req,
                                 const themis_schedule_t *sched,
                                 const themis_intra_order_t *order, int per_element,
                                 themis_xfer_sched_t *out);
/* Rank `rank`'s slice (transfer_slice.h) of the same list (not per
 * element), emitted directly. */
themis_status_t themis_xfer_hier_slice(const themis_plan_request_t *req,
                                       const themis_schedule_t *sched,
                                       const themis_intra_order_t *order, uint32_t rank,
                                       themis_xfer_slice_t *out);

#endif
