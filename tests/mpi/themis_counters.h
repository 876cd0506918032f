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
    TC_IALLREDUCE = 4,          /* the nonblocking forms: TC_<coll> + TC_NBLOCKING */
    TC_IREDUCE_SCATTER = 5,
    TC_IREDUCE_SCATTER_BLOCK = 6,
    TC_IALLGATHER = 7,
    TC_PALLREDUCE = 8,          /* the persistent forms: TC_<coll> + 2 x TC_NBLOCKING */
    TC_PREDUCE_SCATTER = 9,
    TC_PREDUCE_SCATTER_BLOCK = 10,
    TC_PALLGATHER = 11,
    TC_NCOLLS = 12
} tc_coll_t;
#define TC_NBLOCKING 4

/* Most algorithms tracked: the rows of the component's algorithm table,
 * discovered from its counters coll_themis_<coll>_<algorithm>_calls. */
#define TC_MAX_ALGOS 16

typedef struct {
    uint64_t calls[TC_NCOLLS];
    uint64_t fallbacks[TC_NCOLLS];
    uint64_t substitutions[TC_NCOLLS];
    uint64_t algo[TC_MAX_ALGOS][TC_NCOLLS];   /* by tc_algo_name() index; 0 when absent */
} tc_snapshot_t;

/* After MPI_Init.  Returns the number of the 2 x TC_NCOLLS counters found
 * (0 when the component is not loaded); on a usage problem (a counter that
 * is bound to an object, cannot be read, ...) returns -1 with `err` set. */
int tc_init(char *err, size_t errlen);
/* After tc_init: the algorithms whose counters exist (for allreduce), in
 * the component's table order, and the index of one by name (-1). */
int tc_nalgos(void);
const char *tc_algo_name(int index);
int tc_algo_index(const char *name);
/* 0 on success; counters that were not found read as 0. */
int tc_read(tc_snapshot_t *snap);
void tc_fini(void);

const char *tc_coll_name(tc_coll_t coll);

/* Integer control variable by full name (e.g. "coll_themis_chunks").
 * Returns 0 and sets *value when found and integer-valued, -1 otherwise. */
int tc_cvar_read_u64(const char *name, uint64_t *value);

#endif
