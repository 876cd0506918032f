/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MPI-4 persistent collectives with coll/themis loaded (Open MPI 5.0):
 * MPI_Allreduce_init, MPI_Reduce_scatter_init, MPI_Reduce_scatter_block_init
 * and MPI_Allgather_init, in place and not, six requests alive at once,
 * all started REPS times with new inputs each time, and a blocking
 * MPI_Allreduce (on the themis path) while they are in flight.  Every
 * result is checked element by element against the exact integer value.
 *
 * coll/themis leaves the persistent entry points to the next component
 * (coll/libnbc; a start run to completion inside MPI_Start would be wrong,
 * docs/coll_themis.md): its counters must grow by the blocking calls
 * exactly.  Rank 0 prints
 *
 *   persistent: REPS starts x 6 requests ok, themis allreduce calls B (blocking only)
 *
 * and every rank prints "error: ..." lines for mismatches; exit 0 only when
 * all checks passed.  Built against Open MPI 4.1 it prints a SKIP line.
 *
 *   persistent COUNT REPS
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis_counters.h"

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5

/* Input element i of rank r at start k; sums over 64 ranks stay in int. */
static int val(int r, long i, int k)
{
    return (int) ((r + 1) * 7 + (i % 1009) * 3 + k * 11) % 100003;
}

static long sum_val(int p, long i, int k)
{
    long s = 0;
    for (int r = 0; r < p; ++r) {
        s += val(r, i, k);
    }
    return s;
}

static int errors;

static void expect(const char *what, int k, long i, int got, long want)
{
    if ((long) got != want && errors < 10) {
        fprintf(stderr, "error: %s start %d element %ld: %d, expected %ld\n", what, k, i, got,
                want);
    }
    errors += (long) got != want;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const long n = argc > 1 ? atol(argv[1]) : 1000;
    const int reps = argc > 2 ? atoi(argv[2]) : 20;
    const long total = n * p;

    char err[256];
    tc_snapshot_t before, after;
    if (tc_init(err, sizeof(err)) < 0 || 0 != tc_read(&before)) {
        fprintf(stderr, "error: MPI_T counters: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* Reduce_scatter gets uneven counts: n + (rank % 3). */
    int *rcounts = malloc(sizeof(int) * (size_t) p);
    long rs_total = 0, rs_first = 0;
    for (int r = 0; r < p; ++r) {
        rcounts[r] = (int) n + r % 3;
        rs_first += r < rank ? rcounts[r] : 0;
        rs_total += rcounts[r];
    }
    int *ar_s = malloc(sizeof(int) * (size_t) total), *ar_r = malloc(sizeof(int) * (size_t) total);
    int *ar_i = malloc(sizeof(int) * (size_t) total), *bl = malloc(sizeof(int) * (size_t) total);
    int *rs_s = malloc(sizeof(int) * (size_t) rs_total);
    int *rs_r = malloc(sizeof(int) * (size_t) (n + 2));
    int *rsb_i = malloc(sizeof(int) * (size_t) total);
    int *ag_s = malloc(sizeof(int) * (size_t) n), *ag_r = malloc(sizeof(int) * (size_t) total);
    int *ag_i = malloc(sizeof(int) * (size_t) total);

    MPI_Request req[6];
    MPI_Allreduce_init(ar_s, ar_r, (int) total, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &req[0]);
    MPI_Allreduce_init(MPI_IN_PLACE, ar_i, (int) total, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &req[1]);
    MPI_Reduce_scatter_init(rs_s, rs_r, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &req[2]);
    MPI_Reduce_scatter_block_init(MPI_IN_PLACE, rsb_i, (int) n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &req[3]);
    MPI_Allgather_init(ag_s, (int) n, MPI_INT, ag_r, (int) n, MPI_INT, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &req[4]);
    MPI_Allgather_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag_i, (int) n, MPI_INT, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &req[5]);

    for (int k = 0; k < reps; ++k) {
        for (long i = 0; i < total; ++i) {
            ar_s[i] = ar_i[i] = rsb_i[i] = bl[i] = val(rank, i, k);
        }
        for (long i = 0; i < rs_total; ++i) {
            rs_s[i] = val(rank, i, k);
        }
        for (long i = 0; i < n; ++i) {
            ag_s[i] = ag_i[rank * n + i] = val(rank, rank * n + i, k);
        }
        MPI_Startall(6, req);
        /* A blocking call of the same kind while the six are in flight. */
        MPI_Allreduce(MPI_IN_PLACE, bl, (int) total, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Waitall(6, req, MPI_STATUSES_IGNORE);

        for (long i = 0; i < total; ++i) {
            expect("blocking allreduce", k, i, bl[i], sum_val(p, i, k));
            expect("allreduce_init", k, i, ar_r[i], sum_val(p, i, k));
            expect("allreduce_init in place", k, i, ar_i[i], sum_val(p, i, k));
            expect("allgather_init", k, i, ag_r[i], val((int) (i / n), i, k));
            expect("allgather_init in place", k, i, ag_i[i], val((int) (i / n), i, k));
        }
        for (long i = 0; i < rcounts[rank]; ++i) {
            expect("reduce_scatter_init", k, i, rs_r[i], sum_val(p, rs_first + i, k));
        }
        for (long i = 0; i < n; ++i) {
            expect("reduce_scatter_block_init in place", k, i, rsb_i[i],
                   sum_val(p, rank * n + i, k));
        }
    }
    for (int q = 0; q < 6; ++q) {
        MPI_Request_free(&req[q]);
    }

    if (0 != tc_read(&after)) {
        fprintf(stderr, "error: MPI_T counters could not be read\n");
        ++errors;
    }
    const uint64_t ar_calls = after.calls[TC_ALLREDUCE] - before.calls[TC_ALLREDUCE];
    if ((uint64_t) reps != ar_calls) {
        fprintf(stderr, "error: coll_themis_allreduce_calls grew by %llu, expected %d (the "
                "blocking calls only)\n", (unsigned long long) ar_calls, reps);
        ++errors;
    }
    for (int c = TC_REDUCE_SCATTER; c < TC_NCOLLS; ++c) {
        if (after.calls[c] != before.calls[c]) {
            fprintf(stderr, "error: coll_themis_%s_calls grew by %llu, expected 0\n",
                    tc_coll_name((tc_coll_t) c),
                    (unsigned long long) (after.calls[c] - before.calls[c]));
            ++errors;
        }
    }
    tc_fini();

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank && 0 == all) {
        printf("persistent: %d starts x 6 requests ok, themis allreduce calls %llu (blocking "
               "only)\n", reps, (unsigned long long) ar_calls);
    }
    free(rcounts);
    free(ar_s), free(ar_r), free(ar_i), free(bl), free(rs_s), free(rs_r), free(rsb_i);
    free(ag_s), free(ag_r), free(ag_i);
    MPI_Finalize();
    return 0 == all ? 0 : 1;
}

#else

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (0 == rank) {
        printf("persistent: SKIP (no MPI-4 persistent collectives in this Open MPI)\n");
    }
    MPI_Finalize();
    return 0;
}

#endif
