/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Compiled programs (plan.h) of every rank of one call -> a transfer
 * schedule (transfer.h), one unit per element: what `themis-plan export
 * --msccl` writes, so that any themis algorithm can be read by the tools
 * that read MSCCL-XML, and run again through coll_themis_<coll>_schedule.
 *
 * The programs run one step at a time in a fixed order, with the
 * engine's rules (queue order, chunks in flight, dependencies, chains,
 * after_prev); a message becomes a transfer when both of its sides are
 * posted, receives of a rank taken in step order.  copy_in and copy_out
 * become local copies (INPUT -> SCRATCH, SCRATCH -> OUTPUT), the work
 * buffer is SCRATCH, and a program that works in its output ends with a
 * local copy of the result.  Dependencies come from xfer_tracker.h.
 */
#ifndef THEMIS_XFER_PROGRAMS_H
#define THEMIS_XFER_PROGRAMS_H

#include "plan.h"
#include "transfer.h"

/* progs[r]: rank r's program for a call whose input has in_count
 * elements per rank and whose result out_count (allreduce: count and
 * count; allgather: the block and P x the block; reduce-scatter: P x the
 * block and the block).  THEMIS_ERR_INVALID with why for programs that
 * do not fit each other (a message without its other side, a deadlock),
 * THEMIS_ERR_UNSUPPORTED beyond THEMIS_XFER_PROGRAMS_MAX_UNITS elements
 * per rank, THEMIS_ERR_NOMEM. */
#define THEMIS_XFER_PROGRAMS_MAX_UNITS (1u << 20)
themis_status_t themis_xfer_from_programs(themis_coll_t coll, uint32_t nranks,
                                          const themis_program_t *progs, uint64_t in_count,
                                          uint64_t out_count, themis_xfer_sched_t *out,
                                          char *why, size_t len);

#endif
