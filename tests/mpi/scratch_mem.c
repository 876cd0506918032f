/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Memory a rank holds after one large call: runs MPI_Reduce_scatter_block,
 * MPI_Allreduce and MPI_Allgather of BYTES (full vector) on the themis
 * path, frees the user's buffers, and compares the resident set (VmRSS)
 * with the one before.  Rank 0 prints per collective
 *
 *   scratch_mem: <coll> bytes=B growth_mib=G themis=1
 *
 * (growth: the largest over ranks).  The suite script sets the bounds.
 *
 *   scratch_mem BYTES
 */
#include <mpi.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis_counters.h"

static long rss_kib(void)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (NULL == f) {
        return -1;
    }
    while (NULL != fgets(line, sizeof(line), f)) {
        if (1 == sscanf(line, "VmRSS: %ld kB", &kib)) {
            break;
        }
    }
    fclose(f);
    return kib;
}

static int one(const char *name, int which, size_t bytes, int size)
{
    size_t n = bytes / sizeof(float), per = n / (size_t) size;
    tc_snapshot_t before, after;
    tc_coll_t c = 0 == which ? TC_REDUCE_SCATTER_BLOCK : 1 == which ? TC_ALLREDUCE : TC_ALLGATHER;
    long rss0, rss1, growth, worst;
    int ok = 1;

    rss0 = rss_kib();
    float *s = malloc((1 == which ? n : 0 == which ? n : per) * sizeof(float));
    float *r = malloc((0 == which ? per : n) * sizeof(float));
    if (NULL == s || NULL == r) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < (2 == which ? per : n); ++i) {
        s[i] = 1.0f;
    }
    tc_read(&before);
    if (0 == which) {
        MPI_Reduce_scatter_block(s, r, (int) per, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        ok = (float) size == r[0] && (float) size == r[per - 1];
    } else if (1 == which) {
        MPI_Allreduce(s, r, (int) n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        ok = (float) size == r[0] && (float) size == r[n - 1];
    } else {
        MPI_Allgather(s, (int) per, MPI_FLOAT, r, (int) per, MPI_FLOAT, MPI_COMM_WORLD);
        ok = 1.0f == r[0] && 1.0f == r[per * (size_t) size - 1];
    }
    tc_read(&after);
    free(s);
    free(r);
    rss1 = rss_kib();
    growth = rss1 - rss0;
    MPI_Allreduce(&growth, &worst, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    int themis = after.calls[c] > before.calls[c], all_themis = 0, all_ok = 0;
    MPI_Allreduce(&themis, &all_themis, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (0 == rank) {
        printf("scratch_mem: %s bytes=%zu growth_mib=%ld themis=%d\n", name, bytes,
               worst / 1024, all_themis);
    }
    if (!all_ok) {
        fprintf(stderr, "error: %s: wrong result\n", name);
    }
    return !all_ok;
}

int main(int argc, char **argv)
{
    int size, bad = 0;
    char err[256];

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (2 != argc || tc_init(err, sizeof(err)) <= 0) {
        fprintf(stderr, "error: usage: scratch_mem BYTES (with coll/themis loaded)\n");
        MPI_Finalize();
        return 2;
    }
    size_t bytes = (size_t) strtoull(argv[1], NULL, 10);
    bytes -= bytes % ((size_t) size * sizeof(float));
    /* Warm up each collective small, so setup and transport buffers are
     * in place before the first measurement. */
    one("warmup_reduce_scatter_block", 0, (size_t) size * 1024 * 1024, size);
    one("warmup_allreduce", 1, (size_t) size * 1024 * 1024, size);
    one("warmup_allgather", 2, (size_t) size * 1024 * 1024, size);
    bad |= one("reduce_scatter_block", 0, bytes, size);
    bad |= one("allreduce", 1, bytes, size);
    bad |= one("allgather", 2, bytes, size);
    tc_fini();
    MPI_Finalize();
    return bad;
}
