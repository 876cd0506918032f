/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * OSU-style latency benchmark for the collectives coll/themis implements
 * (after osu_allreduce of the OSU micro-benchmarks): for each size, warm
 * up, then time `iters` calls, each after an MPI_Barrier, and report the
 * average, minimum and maximum over ranks of each rank's average latency.
 *
 *   osu_coll_latency [--coll allreduce|reduce_scatter_block|allgather]
 *                    [--min BYTES] [--max BYTES] [--iters N] [--warmup N]
 *                    [--budget BYTES] [--min-iters N]
 *
 * Size is the bytes of the full vector (the allreduce vector, the reduce-
 * scatter input, the allgather output), which is also what
 * coll_themis_min_bytes compares; with the block collectives each rank's
 * block is floor(Size / 4 / np) floats.  Sizes go from --min to --max in
 * powers of 2.  Up to --budget bytes per size all --iters iterations run;
 * above it the count drops to budget / Size (at least --min-iters), so
 * 64 MiB stays short on a small machine.
 *
 * Validation (every size): the data are small integers stored as floats,
 * so any reduction order gives the exact result, and every rank computes
 * the expected values itself from the generator, without MPI.  Checked are
 * the result of the last timed call and of one more, untimed, call with
 * fresh data into a poisoned receive buffer.  The generator's period (61,
 * a prime) is never a divisor of the power-of-2 offsets a misplaced chunk
 * would have.
 *
 * Path: which way coll/themis sent the calls of that size, from its MPI_T
 * counters (tests/mpi/themis_counters.h): "themis", "fallback" (to the
 * previous component), "mixed", or "-" when coll/themis is not loaded.
 *
 * Exit status 1 when any validation failed.
 */
#include <mpi.h>

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis_counters.h"

#define PERIOD 61
#define MAX_RANK_FACTOR 15

typedef enum { COLL_ALLREDUCE, COLL_RSB, COLL_ALLGATHER } coll_t;

typedef struct {
    coll_t coll;
    size_t min_size, max_size, budget;
    long iters, warmup, min_iters;
} options_t;

static const char *coll_name(coll_t c)
{
    switch (c) {
    case COLL_ALLREDUCE:
        return "MPI_Allreduce";
    case COLL_RSB:
        return "MPI_Reduce_scatter_block";
    default:
        return "MPI_Allgather";
    }
}

/* Bytes with an optional binary suffix (K, M, G); 0 on error. */
static size_t parse_bytes(const char *s)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (0 != errno || end == s || '-' == s[0]) {
        return 0;
    }
    switch (*end) {
    case 'k': case 'K':
        v <<= 10; end++;
        break;
    case 'm': case 'M':
        v <<= 20; end++;
        break;
    case 'g': case 'G':
        v <<= 30; end++;
        break;
    default:
        break;
    }
    if ('B' == *end || 'b' == *end) {
        end++;
    }
    return '\0' == *end ? (size_t) v : 0;
}

static long parse_count(const char *s, long min)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (0 != errno || end == s || '\0' != *end || v < min) {
        return -1;
    }
    return v;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: osu_coll_latency [--coll allreduce|reduce_scatter_block|allgather]\n"
            "         [--min BYTES] [--max BYTES] [--iters N] [--warmup N]\n"
            "         [--budget BYTES] [--min-iters N]\n"
            "  BYTES take a K/M/G suffix (binary).  Defaults: allreduce, 4 .. 64M,\n"
            "  1000 iterations, 100 warm-up, budget 64M per size, min-iters 5.\n");
}

/* 0 on success, 1 on --help, -1 on a bad option (message printed by rank 0). */
static int parse_options(int argc, char **argv, options_t *o, int rank)
{
    static const struct option longopts[] = {
        {"coll", required_argument, NULL, 'c'},   {"min", required_argument, NULL, 'n'},
        {"max", required_argument, NULL, 'm'},    {"iters", required_argument, NULL, 'i'},
        {"warmup", required_argument, NULL, 'x'}, {"budget", required_argument, NULL, 'b'},
        {"min-iters", required_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;

    *o = (options_t){.coll = COLL_ALLREDUCE, .min_size = 4, .max_size = (size_t) 64 << 20,
                     .budget = (size_t) 64 << 20, .iters = 1000, .warmup = 100,
                     .min_iters = 5};
    opterr = 0;
    while (-1 != (c = getopt_long(argc, argv, "c:n:m:i:x:b:j:h", longopts, NULL))) {
        const char *bad = NULL;
        switch (c) {
        case 'c':
            if (0 == strcmp(optarg, "allreduce")) {
                o->coll = COLL_ALLREDUCE;
            } else if (0 == strcmp(optarg, "reduce_scatter_block")) {
                o->coll = COLL_RSB;
            } else if (0 == strcmp(optarg, "allgather")) {
                o->coll = COLL_ALLGATHER;
            } else {
                bad = "--coll must be allreduce, reduce_scatter_block or allgather";
            }
            break;
        case 'n':
            o->min_size = parse_bytes(optarg);
            bad = 0 == o->min_size ? "--min needs a byte count > 0" : NULL;
            break;
        case 'm':
            o->max_size = parse_bytes(optarg);
            bad = 0 == o->max_size ? "--max needs a byte count > 0" : NULL;
            break;
        case 'b':
            o->budget = parse_bytes(optarg);
            bad = 0 == o->budget ? "--budget needs a byte count > 0" : NULL;
            break;
        case 'i':
            o->iters = parse_count(optarg, 1);
            bad = o->iters < 0 ? "--iters needs an integer >= 1" : NULL;
            break;
        case 'x':
            o->warmup = parse_count(optarg, 0);
            bad = o->warmup < 0 ? "--warmup needs an integer >= 0" : NULL;
            break;
        case 'j':
            o->min_iters = parse_count(optarg, 1);
            bad = o->min_iters < 0 ? "--min-iters needs an integer >= 1" : NULL;
            break;
        case 'h':
            if (0 == rank) {
                usage();
            }
            return 1;
        default:
            bad = "unknown option or missing argument";
            break;
        }
        if (NULL != bad) {
            if (0 == rank) {
                fprintf(stderr, "osu_coll_latency: %s\n", bad);
                usage();
            }
            return -1;
        }
    }
    if (optind < argc || o->min_size > o->max_size) {
        if (0 == rank) {
            fprintf(stderr, "osu_coll_latency: %s\n",
                    optind < argc ? "unexpected argument" : "--min is larger than --max");
            usage();
        }
        return -1;
    }
    return 0;
}

/* The input of rank r at global element i: not separable in (r, i), so a
 * wrong rank's or a shifted element's contribution changes the result. */
static float gen(int r, size_t i, unsigned salt)
{
    unsigned k = (unsigned) ((i + salt) % PERIOD);
    return (float) (k * (unsigned) (r % MAX_RANK_FACTOR + 1) + (unsigned) (r * r) % 17);
}

/* Sum over all ranks of gen(r, i, salt), by (i + salt) mod PERIOD. */
static void expected_sums(int np, float sums[PERIOD])
{
    for (int k = 0; k < PERIOD; k++) {
        double s = 0.0;
        for (int r = 0; r < np; r++) {
            s += gen(r, (size_t) k, 0);
        }
        sums[k] = (float) s;
    }
}

typedef struct {
    float *sbuf, *rbuf;
    size_t count, block;   /* full vector and per-rank block, in floats */
} bufs_t;

/* Fills the send buffer with fresh data and poisons the receive buffer. */
static void fill(const options_t *o, bufs_t *b, int rank, unsigned salt)
{
    size_t rcount = COLL_ALLREDUCE == o->coll ? b->count
                  : COLL_RSB == o->coll ? b->block : b->count;
    if (COLL_ALLGATHER == o->coll) {
        for (size_t j = 0; j < b->block; j++) {
            b->sbuf[j] = gen(rank, (size_t) rank * b->block + j, salt);
        }
    } else {
        for (size_t i = 0; i < b->count; i++) {
            b->sbuf[i] = gen(rank, i, salt);
        }
    }
    for (size_t i = 0; i < rcount; i++) {
        b->rbuf[i] = -1.0f;
    }
}

/* Number of wrong elements in this rank's result. */
static size_t check(const options_t *o, const bufs_t *b, int rank, unsigned salt,
                    const float sums[PERIOD])
{
    size_t bad = 0;
    switch (o->coll) {
    case COLL_ALLREDUCE:
        for (size_t i = 0; i < b->count; i++) {
            bad += b->rbuf[i] != sums[(i + salt) % PERIOD];
        }
        break;
    case COLL_RSB:
        for (size_t j = 0; j < b->block; j++) {
            size_t i = (size_t) rank * b->block + j;
            bad += b->rbuf[j] != sums[(i + salt) % PERIOD];
        }
        break;
    case COLL_ALLGATHER:
        for (size_t i = 0; i < b->count; i++) {
            bad += b->rbuf[i] != gen((int) (i / b->block), i, salt);
        }
        break;
    }
    return bad;
}

static int run_coll(const options_t *o, bufs_t *b)
{
    switch (o->coll) {
    case COLL_ALLREDUCE:
        return MPI_Allreduce(b->sbuf, b->rbuf, (int) b->count, MPI_FLOAT, MPI_SUM,
                             MPI_COMM_WORLD);
    case COLL_RSB:
        return MPI_Reduce_scatter_block(b->sbuf, b->rbuf, (int) b->block, MPI_FLOAT, MPI_SUM,
                                        MPI_COMM_WORLD);
    default:
        return MPI_Allgather(b->sbuf, (int) b->block, MPI_FLOAT, b->rbuf, (int) b->block,
                             MPI_FLOAT, MPI_COMM_WORLD);
    }
}

static tc_coll_t counter_of(coll_t c)
{
    return COLL_ALLREDUCE == c ? TC_ALLREDUCE
         : COLL_RSB == c ? TC_REDUCE_SCATTER_BLOCK : TC_ALLGATHER;
}

int main(int argc, char **argv)
{
    int rank, np, rc;
    options_t o;
    float sums[PERIOD];
    char err[256];
    bool any_failed = false;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    rc = parse_options(argc, argv, &o, rank);
    if (0 != rc) {
        MPI_Finalize();
        return rc < 0 ? 2 : 0;
    }
    /* Values must stay exact in float: below 2^24 after summing np ranks. */
    if ((double) np * ((PERIOD - 1) * MAX_RANK_FACTOR + 16) >= 16777216.0) {
        if (0 == rank) {
            fprintf(stderr, "osu_coll_latency: %d ranks are too many for exact float sums\n",
                    np);
        }
        MPI_Finalize();
        return 2;
    }
    if (o.max_size / sizeof(float) > (size_t) INT32_MAX) {
        if (0 == rank) {
            fprintf(stderr, "osu_coll_latency: --max exceeds an int count of floats\n");
        }
        MPI_Finalize();
        return 2;
    }
    int ncounters = tc_init(err, sizeof(err));
    if (ncounters < 0 && 0 == rank) {
        fprintf(stderr, "osu_coll_latency: coll/themis counters unusable (%s); Path shows -\n",
                err);
    }
    expected_sums(np, sums);

    size_t max_count = o.max_size / sizeof(float);
    if (0 == max_count) {
        max_count = 1;
    }
    bufs_t b = {.sbuf = malloc(max_count * sizeof(float)),
                .rbuf = malloc(max_count * sizeof(float))};
    if (NULL == b.sbuf || NULL == b.rbuf) {
        fprintf(stderr, "osu_coll_latency: rank %d: cannot allocate 2 x %zu bytes\n", rank,
                max_count * sizeof(float));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Touch every page now so that page faults do not land in a timing. */
    memset(b.sbuf, 0, max_count * sizeof(float));
    memset(b.rbuf, 0, max_count * sizeof(float));

    if (0 == rank) {
        printf("# OSU-style %s latency test (themis benchmarks/osu_coll_latency)\n",
               coll_name(o.coll));
        printf("# np %d, MPI_FLOAT%s, Size = bytes of the full vector, MPI_Barrier before "
               "every timed call\n", np, COLL_ALLGATHER == o.coll ? "" : ", MPI_SUM");
        printf("# iterations: %ld up to %zu bytes of budget per size, then budget/Size "
               "(>= %ld); warm-up %ld (fewer for large sizes, >= 2)\n",
               o.iters, o.budget, o.min_iters, o.warmup);
        printf("%-12s%18s%18s%18s%12s%12s%10s\n", "# Size", "Avg Latency(us)",
               "Min Latency(us)", "Max Latency(us)", "Iterations", "Validation", "Path");
        fflush(stdout);
    }

    unsigned salt = 0;
    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        b.count = size / sizeof(float);
        if (0 == b.count) {
            b.count = 1;
        }
        b.block = b.count / (size_t) np;
        if (COLL_ALLREDUCE != o.coll) {
            if (0 == b.block) {
                if (0 == rank) {
                    printf("# %zu: skipped, each of the %d ranks needs a whole float\n", size,
                           np);
                }
                continue;
            }
            b.count = b.block * (size_t) np;
        }
        long iters = o.iters;
        if (size > o.budget / (size_t) o.iters) {
            iters = (long) (o.budget / size);
            iters = iters < o.min_iters ? o.min_iters : iters;
            iters = iters > o.iters ? o.iters : iters;
        }
        long warmup = iters / 5 < o.warmup ? iters / 5 : o.warmup;
        warmup = warmup < 2 ? 2 : warmup;   /* the first call builds themis' plan */

        tc_snapshot_t before, after;
        bool counters = ncounters > 0 && 0 == tc_read(&before);
        double timer = 0.0;
        int rcs = MPI_SUCCESS;

        fill(&o, &b, rank, ++salt);
        for (long it = 0; it < warmup + iters; it++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            int r = run_coll(&o, &b);
            double t1 = MPI_Wtime();
            rcs = MPI_SUCCESS == rcs ? r : rcs;
            if (it >= warmup) {
                timer += t1 - t0;
            }
        }
        size_t bad = check(&o, &b, rank, salt, sums);
        fill(&o, &b, rank, ++salt);
        int r = run_coll(&o, &b);
        rcs = MPI_SUCCESS == rcs ? r : rcs;
        bad += check(&o, &b, rank, salt, sums);
        counters = counters && 0 == tc_read(&after);

        double lat = timer * 1e6 / (double) iters, lmin, lmax, lsum;
        int ok = 0 == bad && MPI_SUCCESS == rcs, all_ok;
        tc_coll_t tc = counter_of(o.coll);
        /* calls, fallbacks, ranks that could read the counters */
        unsigned long long path[3] = {
            counters ? after.calls[tc] - before.calls[tc] : 0,
            counters ? after.fallbacks[tc] - before.fallbacks[tc] : 0, counters ? 1 : 0};
        unsigned long long path_sum[3];
        MPI_Reduce(&lat, &lmin, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &lmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &lsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(path, path_sum, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (0 != bad) {
            fprintf(stderr, "osu_coll_latency: rank %d: %zu wrong elements at %zu bytes\n",
                    rank, bad, size);
        }
        if (0 == rank) {
            const char *p = "-";
            if ((unsigned long long) np == path_sum[2]) {
                p = 0 == path_sum[1] && 0 != path_sum[0] ? "themis"
                  : 0 == path_sum[0] && 0 != path_sum[1] ? "fallback"
                  : 0 == path_sum[0] ? "-" : "mixed";
            }
            printf("%-12zu%18.2f%18.2f%18.2f%12ld%12s%10s\n", size, lsum / np, lmin, lmax,
                   iters, all_ok ? "Pass" : "Fail", p);
            fflush(stdout);
            any_failed = any_failed || !all_ok;
        }
        if (size > o.max_size / 2) {
            break;   /* no overflow of size *= 2 */
        }
    }

    free(b.sbuf);
    free(b.rbuf);
    tc_fini();
    MPI_Finalize();
    return any_failed ? 1 : 0;
}
