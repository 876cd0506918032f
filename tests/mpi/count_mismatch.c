/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * An erroneous program (tests/mpi/run_input_tests.sh): every rank calls
 * MPI_Allreduce (or MPI_Allgather, MPI_Reduce_scatter_block, or
 * MPI_Reduce_scatter with every recvcounts entry COUNT) of COUNT ints, but
 * the last rank passes COUNT + EXTRA.  Stock Open MPI aborts with
 * MPI_ERR_TRUNCATE; coll/themis must end in an error too, never hang or
 * return MPI_SUCCESS with wrong data.  With MPI_ERRORS_RETURN ("return")
 * each rank prints what its call returned instead of aborting.
 *
 * usage: count_mismatch COUNT EXTRA
 *            [allreduce|allgather|reduce_scatter_block|reduce_scatter] [fatal|return]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long count = argc > 1 ? atol(argv[1]) : 65536;
    long extra = argc > 2 ? atol(argv[2]) : 4096;
    const char *coll = argc > 3 ? argv[3] : "allreduce";
    if (argc > 4 && 0 == strcmp(argv[4], "return")) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
    long mine = count + (rank == size - 1 ? extra : 0);
    /* The scattering collectives take size x mine elements in. */
    int scatter = 0 == strncmp(coll, "reduce_scatter", 14);
    size_t nin = (size_t) (scatter ? mine * size : mine);
    size_t nout = (size_t) (0 == strcmp(coll, "allgather") ? mine * size : mine);
    int *in = calloc(nin + 1, sizeof(int));
    int *out = calloc(nout + 1, sizeof(int));
    int *counts = calloc((size_t) size, sizeof(int));
    for (size_t i = 0; i < nin; i++) {
        in[i] = 1;
    }
    for (int r = 0; r < size; r++) {
        counts[r] = (int) mine;
    }
    int rc;
    const char *name;
    if (0 == strcmp(coll, "allgather")) {
        name = "MPI_Allgather";
        rc = MPI_Allgather(in, (int) mine, MPI_INT, out, (int) mine, MPI_INT, MPI_COMM_WORLD);
    } else if (0 == strcmp(coll, "reduce_scatter_block")) {
        name = "MPI_Reduce_scatter_block";
        rc = MPI_Reduce_scatter_block(in, out, (int) mine, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (0 == strcmp(coll, "reduce_scatter")) {
        name = "MPI_Reduce_scatter";
        rc = MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        name = "MPI_Allreduce";
        rc = MPI_Allreduce(in, out, (int) mine, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    printf("count_mismatch: rank %d: %s returned %d (%s)\n", rank, name, rc, msg);
    fflush(stdout);
    free(in);
    free(out);
    free(counts);
    MPI_Finalize();
    return 0;
}
