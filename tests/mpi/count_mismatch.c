/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * An erroneous program (tests/mpi/run_input_tests.sh): every rank calls
 * MPI_Allreduce (or, with "allgather", MPI_Allgather) of COUNT ints, but
 * the last rank passes COUNT + EXTRA.  Stock Open MPI aborts with
 * MPI_ERR_TRUNCATE; coll/themis must end in an error too, never hang or
 * return MPI_SUCCESS with wrong data.  With MPI_ERRORS_RETURN ("return")
 * each rank prints what its call returned instead of aborting.
 *
 * usage: count_mismatch COUNT EXTRA [allreduce|allgather] [fatal|return]
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
    int gather = argc > 3 && 0 == strcmp(argv[3], "allgather");
    if (argc > 4 && 0 == strcmp(argv[4], "return")) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
    long mine = count + (rank == size - 1 ? extra : 0);
    int *in = calloc((size_t) mine + 1, sizeof(int));
    int *out = calloc((size_t) (gather ? mine * size : mine) + 1, sizeof(int));
    for (long i = 0; i < mine; i++) {
        in[i] = 1;
    }
    int rc = gather ? MPI_Allgather(in, (int) mine, MPI_INT, out, (int) mine, MPI_INT,
                                    MPI_COMM_WORLD)
                    : MPI_Allreduce(in, out, (int) mine, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    printf("count_mismatch: rank %d: %s returned %d (%s)\n", rank,
           gather ? "MPI_Allgather" : "MPI_Allreduce", rc, msg);
    fflush(stdout);
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
