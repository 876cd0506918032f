/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * What a test bed's links give one message both ways at once, for the
 * duplex rate of the link simulator (link_sim.h, themis_link_sim_duplex):
 * disjoint pairs of neighbouring ranks move one message of S bytes, either
 * one way (alternating the direction) or both ways at once, after a
 * barrier; a receive's time runs from the barrier to its completion.
 *
 * Usage: duplex_calib --pairs A-B[,C-D...] --bytes S [--reps R]
 * Prints per-pair figures, then one line
 *   DUPLEX bytes=S oneway_ms=X twoway_ms=Y oneway_bps=B1 twoway_bps=B2 reps=R pairs=N
 * with X and Y the means over every receive of that kind and B = S x 8 /
 * time (tbf's burst included: a message on an idle link beats the shaped
 * rate).  A caller that simulates at a nominal rate R takes
 * `--duplex min(1, B2 / R)`.  Means, not medians: over TCP a two-way
 * exchange is mostly as fast as one way, sometimes one direction starves
 * (its ACKs wait behind the other's data), and a collective pays the
 * average.  The two kinds alternate rep by rep so that drift hits both
 * alike.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

#define MAX_PAIRS 64

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof(*v), cmp_double);
    return 0 == n ? 0.0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

static double mean(const double *v, int n)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += v[i];
    }
    return 0 == n ? 0.0 : sum / n;
}

static int parse_pairs(const char *s, int (*p)[2], int *n, int size)
{
    *n = 0;
    while ('\0' != *s) {
        char *end;
        long a = strtol(s, &end, 10);
        if (end == s || '-' != *end) {
            return -1;
        }
        s = end + 1;
        long b = strtol(s, &end, 10);
        if (end == s || a < 0 || b < 0 || a >= size || b >= size || a == b
            || *n >= MAX_PAIRS) {
            return -1;
        }
        for (int i = 0; i < *n; i++) {
            if (p[i][0] == a || p[i][1] == a || p[i][0] == b || p[i][1] == b) {
                return -1;  /* pairs must be disjoint */
            }
        }
        p[*n][0] = (int) a;
        p[*n][1] = (int) b;
        ++*n;
        s = end;
        if (',' == *s) {
            s++;
        } else if ('\0' != *s) {
            return -1;
        }
    }
    return 0 == *n ? -1 : 0;
}

int main(int argc, char **argv)
{
    int rank, size, pairs[MAX_PAIRS][2], npairs = 0, reps = 5;
    long long bytes = 0;
    const char *pair_text = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (0 == strcmp(argv[i], "--pairs")) {
            pair_text = argv[i + 1];
        } else if (0 == strcmp(argv[i], "--bytes")) {
            /* themis-plan's size syntax (64K, 1M, 4MiB), one parser */
            uint64_t b = 0;
            bytes = THEMIS_OK == themis_parse_size(argv[i + 1], &b) && b <= (1ull << 30)
                        ? (long long) b : -1;
        } else if (0 == strcmp(argv[i], "--reps")) {
            reps = atoi(argv[i + 1]);
        }
    }
    if (NULL == pair_text || 0 != parse_pairs(pair_text, pairs, &npairs, size) || bytes <= 0
        || bytes > (1ll << 30) || reps < 1 || reps > 1000) {
        if (0 == rank) {
            fprintf(stderr, "usage: duplex_calib --pairs A-B[,C-D...] (disjoint ranks < %d) "
                    "--bytes S (1 .. 2^30) [--reps R (1 .. 1000)]\n", size);
        }
        MPI_Finalize();
        return 2;
    }
    int peer = -1, low = 0;
    for (int i = 0; i < npairs; i++) {
        if (pairs[i][0] == rank || pairs[i][1] == rank) {
            peer = pairs[i][0] == rank ? pairs[i][1] : pairs[i][0];
            low = pairs[i][0] == rank;
        }
    }
    char *sbuf = malloc((size_t) bytes), *rbuf = malloc((size_t) bytes);
    double *mine = malloc(2 * (size_t) (reps + 1) * sizeof(*mine));
    if (NULL == sbuf || NULL == rbuf || NULL == mine) {
        fprintf(stderr, "duplex_calib: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sbuf, rank & 0xff, (size_t) bytes);
    /* rep 0 of each kind warms the connections up and is not counted */
    for (int r = 0; r <= reps; r++) {
        for (int two = 0; two < 2; two++) {
            int sends = -1 != peer && (two || (low == (r % 2)));
            int recvs = -1 != peer && (two || (low != (r % 2)));
            MPI_Request req[2];
            int nreq = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime(), t = -1.0;
            if (recvs) {
                MPI_Irecv(rbuf, (int) bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &req[nreq++]);
            }
            if (sends) {
                MPI_Isend(sbuf, (int) bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &req[nreq++]);
            }
            if (recvs) {
                MPI_Wait(&req[0], MPI_STATUS_IGNORE);
                t = MPI_Wtime() - t0;
            }
            if (nreq > (recvs ? 1 : 0)) {
                MPI_Wait(&req[nreq - 1], MPI_STATUS_IGNORE);
            }
            mine[2 * r + two] = t;
        }
    }
    double *all = 0 == rank ? malloc((size_t) size * 2 * (reps + 1) * sizeof(*all)) : NULL;
    MPI_Gather(mine, 2 * (reps + 1), MPI_DOUBLE, all, 2 * (reps + 1), MPI_DOUBLE, 0,
               MPI_COMM_WORLD);
    if (0 == rank) {
        double *one = malloc((size_t) size * (reps + 1) * sizeof(*one));
        double *two = malloc((size_t) size * (reps + 1) * sizeof(*two));
        int n1 = 0, n2 = 0;
        printf("# duplex_calib: %d pairs, %lld bytes, %d reps of each kind (+1 warm-up)\n",
               npairs, bytes, reps);
        for (int i = 0; i < npairs; i++) {
            int p1 = 0, p2 = 0;
            double *o = malloc(2 * (size_t) (reps + 1) * sizeof(*o));
            double *w = malloc(4 * (size_t) (reps + 1) * sizeof(*w));
            for (int k = 0; k < 2; k++) {
                const double *v = all + (size_t) pairs[i][k] * 2 * (reps + 1);
                for (int r = 1; r <= reps; r++) {
                    if (v[2 * r] >= 0) {
                        o[p1++] = one[n1++] = v[2 * r] * 1e3;
                    }
                    w[p2++] = two[n2++] = v[2 * r + 1] * 1e3;
                }
            }
            double om = mean(o, p1), wm = mean(w, p2), omed = median(o, p1);
            double wmed = median(w, p2);    /* sorts w */
            printf("pair %d-%d: one-way mean %.1f ms (median %.1f), two-way mean %.1f ms "
                   "(median %.1f, max %.1f), %d and %d receives\n", pairs[i][0], pairs[i][1],
                   om, omed, wm, wmed, w[p2 - 1], p1, p2);
            free(o);
            free(w);
        }
        double x = mean(one, n1), y = mean(two, n2);
        printf("DUPLEX bytes=%lld oneway_ms=%.3f twoway_ms=%.3f oneway_bps=%.0f twoway_bps=%.0f "
               "reps=%d pairs=%d\n", bytes, x, y, x > 0 ? bytes * 8e3 / x : 0.0,
               y > 0 ? bytes * 8e3 / y : 0.0, reps, npairs);
        free(one);
        free(two);
        free(all);
    }
    free(sbuf);
    free(rbuf);
    free(mine);
    MPI_Finalize();
    return 0;
}
