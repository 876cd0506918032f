/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Reproducibility of floating-point reductions: repeats one float
 * MPI_Allreduce (and MPI_Reduce_scatter_block) on inputs whose sum depends
 * on the order of additions (mixed signs and magnitudes), and hashes the
 * bit pattern of every result.  Rank 0 prints one line per collective:
 *
 *   repro: allreduce hash=<16 hex> calls=R distinct=D themis_calls=T
 *
 * distinct counts the different hashes among the R calls of this run on
 * this rank (must be 1); run_repro_tests.sh compares the hash across runs.
 * Each rank also checks that all ranks got the same Allreduce result and
 * that the result is within a rounding bound of the exact sum, so a wrong
 * but stable answer fails too.  Exit status 0 only when every check passed.
 *
 *   repro COUNT REPS
 */
#include <mpi.h>

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis_counters.h"

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Sign, a 24-bit mantissa and an exponent in [-20, 20]: sums of these
 * round differently in every order. */
static float gen(int rank, uint64_t i)
{
    uint64_t h = mix64(((uint64_t) rank << 40) ^ i ^ 0x5eedULL);
    float m = (float) (h & 0xffffff) / (float) 0x1000000;
    int e = (int) ((h >> 24) % 41) - 20;
    return ((h >> 40) & 1 ? -1.0f : 1.0f) * ldexpf(0.5f + m, e);
}

static uint64_t fnv(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ b[i]) * 1099511628211ULL;
    }
    return h;
}

/* Every element within size x eps x sum|x_r| of the exact sum. */
static int check_sum(const float *r, uint64_t first, uint64_t n, int size)
{
    for (uint64_t i = 0; i < n; ++i) {
        double exact = 0.0, mag = 0.0;
        for (int k = 0; k < size; ++k) {
            double v = gen(k, first + i);
            exact += v;
            mag += fabs(v);
        }
        if (fabs((double) r[i] - exact) > (double) size * FLT_EPSILON * mag) {
            fprintf(stderr, "error: element %" PRIu64 ": %.9g, exact %.9g\n", first + i,
                    (double) r[i], exact);
            return 1;
        }
    }
    return 0;
}

static int run(const char *name, int is_rs, uint64_t count, int reps, int rank, int size)
{
    uint64_t per = is_rs ? count / (uint64_t) size : count;
    uint64_t n_out = per, total = is_rs ? per * (uint64_t) size : count;
    float *s = malloc(total * sizeof(float)), *r = malloc(n_out * sizeof(float));
    uint64_t first_hash = 0, *all = malloc((size_t) size * sizeof(uint64_t));
    int distinct = 0, bad = 0;
    tc_snapshot_t before, after;

    if (NULL == s || NULL == r || NULL == all) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    for (uint64_t i = 0; i < total; ++i) {
        s[i] = gen(rank, i);
    }
    tc_read(&before);
    for (int k = 0; k < reps; ++k) {
        memset(r, 0, n_out * sizeof(float));
        if (is_rs) {
            MPI_Reduce_scatter_block(s, r, (int) per, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        } else {
            MPI_Allreduce(s, r, (int) count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        }
        uint64_t h = fnv(r, n_out * sizeof(float));
        if (0 == k) {
            first_hash = h;
            distinct = 1;
        } else if (h != first_hash) {
            distinct++;
        }
    }
    tc_read(&after);
    bad |= check_sum(r, is_rs ? per * (uint64_t) rank : 0, n_out < 4096 ? n_out : 4096, size);
    if (!is_rs) {
        MPI_Allgather(&first_hash, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
        for (int k = 0; k < size; ++k) {
            if (all[k] != first_hash) {
                fprintf(stderr, "error: %s: rank %d has another result than rank %d\n", name,
                        k, rank);
                bad = 1;
            }
        }
    }
    if (1 != distinct) {
        fprintf(stderr, "error: %s: rank %d: %d different results in %d calls\n", name, rank,
                distinct, reps);
        bad = 1;
    }
    /* The run's hash: rank 0's for allreduce; for reduce-scatter every
     * rank holds another block, so combine them. */
    uint64_t run_hash = first_hash;
    if (is_rs) {
        MPI_Allgather(&first_hash, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
        run_hash = fnv(all, (size_t) size * sizeof(uint64_t));
    }
    tc_coll_t c = is_rs ? TC_REDUCE_SCATTER_BLOCK : TC_ALLREDUCE;
    if (0 == rank) {
        printf("repro: %s hash=%016" PRIx64 " calls=%d distinct=%d themis_calls=%" PRIu64 "\n",
               name, run_hash, reps, distinct, after.calls[c] - before.calls[c]);
    }
    free(s);
    free(r);
    free(all);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0, gbad = 0;
    char err[256];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (3 != argc) {
        if (0 == rank) {
            fprintf(stderr, "usage: repro COUNT REPS\n");
        }
        MPI_Finalize();
        return 2;
    }
    uint64_t count = strtoull(argv[1], NULL, 10);
    int reps = atoi(argv[2]);
    if (tc_init(err, sizeof(err)) < 0) {
        fprintf(stderr, "error: MPI_T: %s\n", err);
        bad = 1;
    }
    bad |= run("allreduce", 0, count, reps, rank, size);
    bad |= run("reduce_scatter_block", 1, count, reps, rank, size);
    tc_fini();
    MPI_Allreduce(&bad, &gbad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return gbad;
}
