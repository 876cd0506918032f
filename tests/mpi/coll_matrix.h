/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * What the parts of the correctness matrix (coll_matrix.c) share: the
 * ops and datatypes under test, one element's value, a case and the run's
 * context, and the functions one part calls in another.
 */
#ifndef THEMIS_TEST_COLL_MATRIX_H
#define THEMIS_TEST_COLL_MATRIX_H

#include <mpi.h>

#include <complex.h>
#include <float.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <wchar.h>

#include "themis_counters.h"

#define BIG_COUNT 1000003
#define SENTINEL 0xA5
#define GUARD_BYTES 64
#ifndef MAX_ERRORS_PRINTED
#define MAX_ERRORS_PRINTED 8
#endif
#define USER_MOD 65521u

typedef enum {
    O_SUM, O_PROD, O_MIN, O_MAX, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR,
    O_MINLOC, O_MAXLOC,
    O_USERADD,   /* commutative user op: integer add mod USER_MOD, float add */
    O_AFFINE,    /* non-commutative user op: composition of affine maps */
    O_NONE,      /* allgather: data movement only */
    O_COUNT
} op_id_t;

#define OPBIT(o) (1u << (o))
#define OPS_CINT (OPBIT(O_SUM) | OPBIT(O_PROD) | OPBIT(O_MIN) | OPBIT(O_MAX) | OPBIT(O_LAND) \
                  | OPBIT(O_LOR) | OPBIT(O_LXOR) | OPBIT(O_BAND) | OPBIT(O_BOR) | OPBIT(O_BXOR))
#define OPS_MULTILANG (OPS_CINT & ~(OPBIT(O_LAND) | OPBIT(O_LOR) | OPBIT(O_LXOR)))
#define OPS_FLOAT (OPBIT(O_SUM) | OPBIT(O_PROD) | OPBIT(O_MIN) | OPBIT(O_MAX))
#define OPS_COMPLEX (OPBIT(O_SUM) | OPBIT(O_PROD))
#define OPS_BOOL (OPBIT(O_LAND) | OPBIT(O_LOR) | OPBIT(O_LXOR))
#define OPS_BYTE (OPBIT(O_BAND) | OPBIT(O_BOR) | OPBIT(O_BXOR))
#define OPS_PAIR (OPBIT(O_MINLOC) | OPBIT(O_MAXLOC))

extern const char *const op_names[O_COUNT];
extern MPI_Op op_handles[O_COUNT];

typedef enum { K_SINT, K_UINT, K_FLOAT, K_COMPLEX, K_BOOL, K_BYTE, K_CHAR, K_PAIR } kind_t;
typedef enum { F_NONE, F_FLOAT, F_DOUBLE, F_LDOUBLE } fsub_t;

/* Level flags of a type: which matrices include it. */
#define IN_REDUCED 1
#define IN_TINY 2

typedef struct tdesc {
    const char *name;
    MPI_Datatype dt;
    kind_t kind;
    int size;            /* bytes of the (value part of the) element */
    fsub_t fsub;         /* floating sub-type of K_FLOAT, K_COMPLEX, float pairs */
    size_t extent;       /* C sizeof of one element */
    size_t idx_off;      /* K_PAIR: offset of the int index */
    unsigned ops;        /* valid ops */
    int levels;
    /* Derived types: element k holds nblk base elements at base index
     * k * span + pos[b]; predefined types are their own base. */
    const struct tdesc *base;
    int nblk, span, pos[4];
    int gapped;          /* MPI size != extent (padding or gaps) */
    int minmax_nonneg;   /* MIN/MAX inputs kept >= 0: Open MPI op bug, see build_types */
    int derived;
} tdesc_t;

#define MAX_TYPES 48
extern tdesc_t types[MAX_TYPES];
extern int ntypes;

/* One element, kind-independent: integers as 64-bit two's complement
 * (sign-extended for signed kinds), floats and complex as long double. */
typedef struct {
    uint64_t u;
    long double f, im;
    int idx;
} val_t;

typedef enum { C_ALLREDUCE, C_REDUCE_SCATTER, C_REDUCE_SCATTER_BLOCK, C_ALLGATHER } coll_t;
extern const tc_coll_t coll_counter[4];

typedef enum { D_EVEN, D_SKEW, D_ONE, D_NDISTS } dist_t;
extern const char *const dist_names[D_NDISTS];

typedef enum { EXPECT_NONE, EXPECT_THEMIS, EXPECT_FALLBACK } expect_mode_t;
/* What a single call must do to the counters. */
typedef enum { PATH_THEMIS, PATH_FALLBACK, PATH_COUNTED, PATH_ANY } path_t;

typedef struct {
    MPI_Comm comm;
    const char *comm_name;
    int comm_is_world_like;     /* same eligibility as MPI_COMM_WORLD */
    int algo;                   /* --algo: -1 unchecked, else tc_algo_name() index */
    unsigned colls;             /* --coll: bit c set when coll_t c runs */
    size_t count_unit;          /* --count-unit, 1 by default */
    int explicit_counts;        /* --counts given */
    int substituted;            /* --substituted */
    int nb;                     /* --nonblocking N: calls in flight per batch, 0 blocking */
    unsigned shard_i, shard_n;  /* --shard I/N: run case k only when k % N == I */
    unsigned long seq;          /* cases enumerated so far (the k of --shard) */
    int list;                   /* --list: print the cases of the shard, run none */
    int ring_check;             /* --ring-check: see case_setup */
    int rank, nprocs;
    expect_mode_t expect;
    uint64_t min_bytes;
    int ncases, nerrors, nprinted;
    tc_snapshot_t first;
} ctx_t;

typedef struct {
    coll_t coll;
    const tdesc_t *t;
    op_id_t op;
    size_t count;     /* AR/RS: total elements; RSB/AG: elements per rank */
    int inplace;
    dist_t dist;
} case_t;

/* One case from its buffers to its check (several are in flight with
 * --nonblocking). */
typedef struct {
    case_t c;
    int rc[64];
    size_t in_n, out_n, sbytes, rbytes;
    size_t want_lo, want_hi;     /* the output elements checked against expect */
    int ring;                    /* --ring-check applies: the rest against a neighbour's */
    char *sbuf, *scopy, *rbuf, *expect;
    int err, uerr;
    MPI_Request req;
} pending_t;

/* Datatypes and ops (coll_matrix_types.c). */
tdesc_t *find_type(const char *name);
const tdesc_t *find_type_by_dt(MPI_Datatype dt);
int build_types(char *err, size_t errlen);

/* Values, their reduction and their layout in buffers (coll_matrix_values.c). */
uint64_t mix64(uint64_t x);
val_t gen(const tdesc_t *t, op_id_t op, uint64_t salt, int rank, uint64_t i, int nprocs);
val_t fold(const tdesc_t *t, op_id_t op, val_t a, val_t b);
void store(const tdesc_t *t, void *buf, size_t ei, val_t v);
val_t load(const tdesc_t *t, const void *buf, size_t ei);
int val_eq(const tdesc_t *t, val_t a, val_t b);
void val_str(const tdesc_t *t, val_t v, char *s, size_t len);
extern int user_op_errors;
void user_add_fn(void *in, void *inout, int *len, MPI_Datatype *dt);
void user_affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt);

/* One case: buffers, call, check (coll_matrix_case.c). */
void case_name(const ctx_t *cx, const case_t *c, char *s, size_t len);
void report(ctx_t *cx, const case_t *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
path_t expected_path(const ctx_t *cx, const case_t *c, size_t total_elems);
int case_setup(ctx_t *cx, pending_t *pc);
int case_issue(const ctx_t *cx, pending_t *pc);
void case_check(ctx_t *cx, pending_t *pc, const tc_snapshot_t *before,
                const tc_snapshot_t *after);
void run_case(ctx_t *cx, const case_t *c);
void case_free(pending_t *pc);

/* --nonblocking batches of at most MAX_BATCH calls (coll_matrix_nb.c). */
#define MAX_BATCH 64
void batch_flush(ctx_t *cx);
void submit(ctx_t *cx, const case_t *c);
void nb_cancel_and_free(ctx_t *cx);

#endif
