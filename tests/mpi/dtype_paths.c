/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Datatype cases that must run on coll/themis on every rank alike:
 *   bottom_*     MPI_BOTTOM with an absolute-address datatype and a user
 *                op (in place) in Allreduce, Reduce_scatter and
 *                Reduce_scatter_block;
 *   ag_mixed_*   MPI_Allgather where rank 0 describes its data with a
 *                non-contiguous type and the others with contiguous
 *                doubles (same type signature): send side, receive side,
 *                in place;
 *   ar_vector    Allreduce of a non-contiguous type with a user op.
 * Each case checks the values, that nothing outside the type map was
 * written, and (MPI_T counters) that every rank ran the themis path.  Rank
 * 0 prints PASS:/FAIL: per case.  Run with coll_themis_min_bytes 0.
 *
 *   dtype_paths [N]     N elements per rank (default 1000)
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis_counters.h"

static int rank, size, n = 1000;

static double val(int r, int i)
{
    return (double) ((r * 7919 + i * 31) % 1009);
}

/* Sum of floats over a datatype whose displacements are absolute or have
 * holes: walks the buffers through the type's true lower bound and
 * extent, as a user op on such a type must. */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_get_extent(*dt, &lb, &extent);
    MPI_Type_get_true_extent(*dt, &tlb, &textent);
    for (int k = 0; k < *len; ++k) {
        char *a = (char *) in + tlb + (MPI_Aint) k * extent;
        char *b = (char *) inout + tlb + (MPI_Aint) k * extent;
        /* The types used here: one double (absolute address), or
         * vector(2,1,2): doubles at 0 and 2 of a 3-double span. */
        int ndbl = (MPI_Aint) (3 * sizeof(double)) == textent ? 2 : 1;
        for (int j = 0; j < ndbl; ++j) {
            ((double *) b)[2 * j] += ((double *) a)[2 * j];
        }
    }
}

static int report(const char *name, int ok, tc_coll_t coll, const tc_snapshot_t *before)
{
    tc_snapshot_t after;
    int all_ok = 0, themis = 0, all_themis = 0;
    tc_read(&after);
    themis = after.calls[coll] > before->calls[coll];
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&themis, &all_themis, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (0 == rank) {
        if (all_ok && all_themis) {
            printf("PASS: %s np=%d\n", name, size);
        } else {
            printf("FAIL: %s np=%d (%s)\n", name, size,
                   !all_ok ? "wrong values or written outside the type map"
                           : "some rank did not run the themis path");
        }
    }
    return all_ok && all_themis;
}

/* An absolute-address type for n doubles at `base`. */
static MPI_Datatype abs_type(double *base)
{
    MPI_Aint addr;
    MPI_Datatype t;
    int one = 1;
    MPI_Datatype dbl = MPI_DOUBLE;
    MPI_Get_address(base, &addr);
    MPI_Type_create_struct(1, &one, &addr, &dbl, &t);
    MPI_Type_commit(&t);
    return t;
}

static int bottom_cases(MPI_Op op)
{
    int ok_all = 1;
    int total = n * size;
    double *a = malloc((size_t) total * sizeof(double));
    int *rcounts = malloc((size_t) size * sizeof(int));
    tc_snapshot_t before;
    MPI_Datatype t = abs_type(a);

    for (int r = 0; r < size; ++r) {
        rcounts[r] = n;
    }
    /* Allreduce in place on MPI_BOTTOM. */
    for (int i = 0; i < total; ++i) {
        a[i] = val(rank, i);
    }
    tc_read(&before);
    int ok = MPI_SUCCESS == MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, total, t, op, MPI_COMM_WORLD);
    for (int i = 0; ok && i < total; ++i) {
        double want = 0;
        for (int r = 0; r < size; ++r) {
            want += val(r, i);
        }
        ok = a[i] == want;
    }
    ok_all &= report("bottom_allreduce", ok, TC_ALLREDUCE, &before);

    /* Reduce_scatter(_block) in place: the rank's block lands at the
     * start of the buffer. */
    for (int variant = 0; variant < 2; ++variant) {
        for (int i = 0; i < total; ++i) {
            a[i] = val(rank, i);
        }
        tc_read(&before);
        int rc = variant ? MPI_Reduce_scatter_block(MPI_IN_PLACE, MPI_BOTTOM, n, t, op,
                                                    MPI_COMM_WORLD)
                         : MPI_Reduce_scatter(MPI_IN_PLACE, MPI_BOTTOM, rcounts, t, op,
                                              MPI_COMM_WORLD);
        ok = MPI_SUCCESS == rc;
        for (int i = 0; ok && i < n; ++i) {
            double want = 0;
            for (int r = 0; r < size; ++r) {
                want += val(r, rank * n + i);
            }
            ok = a[i] == want;
        }
        ok_all &= report(variant ? "bottom_reduce_scatter_block" : "bottom_reduce_scatter", ok,
                         variant ? TC_REDUCE_SCATTER_BLOCK : TC_REDUCE_SCATTER, &before);
    }
    MPI_Type_free(&t);
    free(a);
    free(rcounts);
    return ok_all;
}

#define POISON -12345.0

/* Rank 0 uses `strided` (doubles 16 bytes apart) on one side, everyone
 * else contiguous doubles. */
static int ag_mixed(const char *name, int send_strided, int recv_strided, int in_place)
{
    MPI_Datatype strided;
    tc_snapshot_t before;
    int total = n * size, ok = 1;
    double *s = malloc(2 * (size_t) n * sizeof(double));
    double *r = malloc(2 * (size_t) total * sizeof(double));
    int s_str = (0 == rank && send_strided) ? 2 : 1;
    int r_str = (0 == rank && recv_strided) ? 2 : 1;

    MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &strided);
    MPI_Type_commit(&strided);
    for (int i = 0; i < 2 * n; ++i) {
        s[i] = POISON;
    }
    for (int i = 0; i < 2 * total; ++i) {
        r[i] = POISON;
    }
    for (int i = 0; i < n; ++i) {
        s[i * s_str] = val(rank, i);
        if (in_place) {
            r[(rank * n + i) * r_str] = val(rank, i);
        }
    }
    tc_read(&before);
    int rc = MPI_Allgather(in_place ? MPI_IN_PLACE : s, n, 2 == s_str ? strided : MPI_DOUBLE,
                           r, n, 2 == r_str ? strided : MPI_DOUBLE, MPI_COMM_WORLD);
    ok = MPI_SUCCESS == rc;
    for (int i = 0; ok && i < total; ++i) {
        ok = r[i * r_str] == val(i / n, i % n);
        if (ok && 2 == r_str) {
            ok = POISON == r[i * 2 + 1];   /* the holes stay untouched */
        }
    }
    for (int i = total * r_str; ok && i < 2 * total; ++i) {
        ok = POISON == r[i];
    }
    MPI_Type_free(&strided);
    free(s);
    free(r);
    return report(name, ok, TC_ALLGATHER, &before);
}

/* Allreduce of pairs of doubles 16 bytes apart (vector(2,1,2)) with a
 * user op: staged in the user's layout. */
static int ar_vector(MPI_Op op)
{
    MPI_Datatype v;
    tc_snapshot_t before;
    int ok = 1;
    /* element k: doubles at 3k and 3k+2 (extent 3 doubles) */
    double *s = malloc(3 * (size_t) n * sizeof(double));
    double *r = malloc(3 * (size_t) n * sizeof(double));
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    for (int i = 0; i < 3 * n; ++i) {
        s[i] = (i % 3 == 1) ? POISON : val(rank, i);
        r[i] = POISON;
    }
    tc_read(&before);
    ok = MPI_SUCCESS == MPI_Allreduce(s, r, n, v, op, MPI_COMM_WORLD);
    for (int i = 0; ok && i < 3 * n; ++i) {
        double want = POISON;
        if (i % 3 != 1) {
            want = 0;
            for (int q = 0; q < size; ++q) {
                want += val(q, i);
            }
        }
        ok = r[i] == want;
    }
    MPI_Type_free(&v);
    free(s);
    free(r);
    return report("ar_vector", ok, TC_ALLREDUCE, &before);
}

int main(int argc, char **argv)
{
    char err[256];
    MPI_Op op;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) {
        n = atoi(argv[1]);
    }
    if (tc_init(err, sizeof(err)) <= 0) {
        if (0 == rank) {
            printf("FAIL: dtype_paths np=%d (coll/themis counters not found: %s)\n", size, err);
        }
        MPI_Finalize();
        return 1;
    }
    MPI_Op_create(user_sum, 1, &op);
    int ok = bottom_cases(op);
    ok &= ag_mixed("ag_mixed_send", 1, 0, 0);
    ok &= ag_mixed("ag_mixed_recv", 0, 1, 0);
    ok &= ag_mixed("ag_mixed_both", 1, 1, 0);
    ok &= ag_mixed("ag_mixed_in_place", 0, 1, 1);
    ok &= ar_vector(op);
    MPI_Op_free(&op);
    tc_fini();
    MPI_Finalize();
    return ok ? 0 : 1;
}
