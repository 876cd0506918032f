/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MPI_T access to coll/themis' counters and parameters, for tests: the
 * counters (performance variables coll_themis_<coll>_calls and
 * coll_themis_<coll>_fallbacks) are what proves which path a call took.
 * Only the public MPI_T API is used.
 */
#ifndef THEMIS_TEST_COUNTERS_H
#define THEMIS_TEST_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    TC_ALLREDUCE = 0,
    TC_REDUCE_SCATTER = 1,
    TC_REDUCE_SCATTER_BLOCK = 2,
    TC_ALLGATHER = 3,
    TC_NCOLLS = 4
} tc_coll_t;

/* Which algorithm the themis-path calls ran (HammingMesh issue):
 * coll_themis_<coll>_rings_calls, _torus2d_calls and _substitutions. */
typedef enum {
    TC_ALGO_RINGS = 0,
    TC_ALGO_TORUS2D = 1,
    TC_ALGO_SUBSTITUTED = 2,
    TC_NALGO = 3
} tc_algo_t;

typedef struct {
    uint64_t calls[TC_NCOLLS];
    uint64_t fallbacks[TC_NCOLLS];
    uint64_t algo[TC_NALGO][TC_NCOLLS];   /* 0 when the counters are absent */
} tc_snapshot_t;

/* After MPI_Init.  Returns the number of the 2 x TC_NCOLLS counters found
 * (0 when the component is not loaded); on a usage problem (a counter that
 * is bound to an object, cannot be read, ...) returns -1 with `err` set. */
int tc_init(char *err, size_t errlen);
/* After tc_init: how many of the TC_NALGO x TC_NCOLLS algorithm counters
 * were found (they are not part of tc_init's count). */
int tc_algo_found(void);
/* 0 on success; counters that were not found read as 0. */
int tc_read(tc_snapshot_t *snap);
void tc_fini(void);

const char *tc_coll_name(tc_coll_t coll);

/* Integer control variable by full name (e.g. "coll_themis_chunks").
 * Returns 0 and sets *value when found and integer-valued, -1 otherwise. */
int tc_cvar_read_u64(const char *name, uint64_t *value);

#endif
