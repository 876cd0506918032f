/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * One-way stream between two ranks of a netgraph bed, to see which links
 * carry a pair's traffic (netgraph link-bytes) and what rate one route
 * reaches.  Rank FROM sends COUNT messages of BYTES bytes to rank TO (4 in
 * flight); TO checks every byte and answers with one int when all have
 * arrived.  The other ranks only take part in MPI_Init/Finalize.
 *
 * Usage: netgraph_stream --from A --to B [--bytes N] [--count K]
 * Prints "PASS: ..." with the achieved rate (payload bits / time from the
 * first send to the answer) or "FAIL: ...".
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 4

static unsigned char pattern(long msg, long i)
{
    return (unsigned char) ((msg * 131 + i * 7) & 0xff);
}

int main(int argc, char **argv)
{
    int rank, size, from = 0, to = 1, bad = 0;
    long bytes = 1 << 20, count = 8;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (0 == strcmp(argv[i], "--from")) {
            from = atoi(argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--to")) {
            to = atoi(argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--bytes")) {
            bytes = atol(argv[i + 1]);
        } else if (0 == strcmp(argv[i], "--count")) {
            count = atol(argv[i + 1]);
        }
    }
    if (from == to || from < 0 || to < 0 || from >= size || to >= size || bytes < 1 || count < 1) {
        if (0 == rank) {
            printf("FAIL: netgraph_stream: bad arguments (from %d to %d of %d ranks)\n", from, to,
                   size);
        }
        MPI_Finalize();
        return 1;
    }
    if (rank == from) {
        unsigned char *buf = malloc((size_t) (bytes * WINDOW));
        MPI_Request req[WINDOW];
        int ack = 0;
        double t0 = MPI_Wtime();
        for (long m = 0; m < count; m++) {
            int slot = (int) (m % WINDOW);
            if (m >= WINDOW) {
                MPI_Wait(&req[slot], MPI_STATUS_IGNORE);
            }
            unsigned char *b = buf + slot * bytes;
            for (long i = 0; i < bytes; i++) {
                b[i] = pattern(m, i);
            }
            MPI_Isend(b, (int) bytes, MPI_BYTE, to, 1, MPI_COMM_WORLD, &req[slot]);
        }
        MPI_Waitall(count < WINDOW ? (int) count : WINDOW, req, MPI_STATUSES_IGNORE);
        MPI_Recv(&ack, 1, MPI_INT, to, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t = MPI_Wtime() - t0;
        if (ack != 0) {
            printf("FAIL: netgraph_stream %d -> %d: %d bytes arrived wrong\n", from, to, ack);
            bad = 1;
        } else {
            printf("PASS: netgraph_stream %d -> %d: %ld x %ld bytes in %.3f s = %.1f Mbit/s\n",
                   from, to, count, bytes, t, 8.0 * (double) bytes * (double) count / t / 1e6);
        }
        free(buf);
    } else if (rank == to) {
        unsigned char *buf = malloc((size_t) bytes);
        int wrong = 0;
        for (long m = 0; m < count; m++) {
            MPI_Recv(buf, (int) bytes, MPI_BYTE, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (long i = 0; i < bytes; i++) {
                wrong += buf[i] != pattern(m, i);
            }
        }
        MPI_Send(&wrong, 1, MPI_INT, from, 2, MPI_COMM_WORLD);
        free(buf);
    }
    MPI_Finalize();
    return bad;
}
