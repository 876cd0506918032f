/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Units and limits shared by every planner.  Everything that feeds a
 * schedule is integer: time in picoseconds, bandwidth in bit/s, sizes in
 * bytes.  This is what makes a schedule byte-identical on every rank.
 */
#ifndef THEMIS_TYPES_H
#define THEMIS_TYPES_H

#include <stddef.h>
#include <stdint.h>

#define THEMIS_MAX_DIMS 8
/* Chunks in flight per dimension / queue: one limit for the simulator,
 * the rules files, coll_themis_chunks_in_flight and themis-plan. */
#define THEMIS_MAX_CHUNKS_IN_FLIGHT 32u

/* Picoseconds: 2^64 ps is ~213 days, far beyond any collective. */
typedef uint64_t themis_time_t;

typedef enum {
    THEMIS_OK = 0,
    THEMIS_ERR_PARSE = -1,
    THEMIS_ERR_INVALID = -2,
    THEMIS_ERR_NOMEM = -3,
    THEMIS_ERR_UNSUPPORTED = -4,
    THEMIS_ERR_IO = -5
} themis_status_t;

typedef enum {
    THEMIS_COLL_ALLREDUCE = 0,
    THEMIS_COLL_REDUCE_SCATTER = 1,
    THEMIS_COLL_ALLGATHER = 2
} themis_coll_t;
#define THEMIS_NCOLLS 3

/* One phase of a chunk on one dimension. */
typedef enum {
    THEMIS_PHASE_RS = 0,
    THEMIS_PHASE_AG = 1
} themis_phase_t;

const char *themis_status_string(themis_status_t st);
/* "allreduce", "reduce_scatter", "allgather". */
const char *themis_coll_name(themis_coll_t coll);
/* Accepts the names above, "reduce-scatter", and "ar", "rs", "ag". */
themis_status_t themis_coll_parse(const char *s, themis_coll_t *coll);
/* "RS" or "AG". */
const char *themis_phase_name(themis_phase_t phase);

#endif
