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
 *                    [--budget BYTES] [--min-iters N] [--rounds R]
 *
 * Size is the bytes of the full vector (the allreduce vector, the reduce-
 * scatter input, the allgather output), which is also what
 * coll_themis_min_bytes compares; with the block collectives each rank's
 * block is floor(Size / 4 / np) floats.  Sizes go from --min to --max in
 * powers of 2.  Up to --budget bytes per size all --iters iterations run;
 * above it the count drops to budget / Size (at least --min-iters), so
 * 64 MiB stays short on a small machine.
 *
 * For noisy machines (oversubscribed, shared): with --rounds R the
 * iterations of every size are split into R rounds, and each round times
 * every size once, so that the samples of one size are spread over the
 * whole run rather than caught together in one burst of interference from
 * other jobs.  Round 0 runs the full warm-up, later rounds warm-up/R
 * (>= 1) calls to bring the buffers back into cache.  Avg/Min/Max are over
 * all iterations, as in OSU.  "Median(us)" is each rank's median call
 * latency, averaged over ranks: on an oversubscribed node a few calls that
 * catch a descheduled rank take 10-100x the typical time and dominate the
 * average, while the median stays put.
 *
 * Validation (every size): the data are small integers stored as floats,
 * so any reduction order gives the exact result, and every rank computes
 * the expected values itself from the generator, without MPI.  Checked are
 * the result of the last timed call of every round and of one more,
 * untimed, call per size with fresh data into a poisoned receive buffer.
 * The generator's period (61, a prime) is never a divisor of the
 * power-of-2 offsets a misplaced chunk would have.
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
#include "topology.h"

#define PERIOD 61
#define MAX_RANK_FACTOR 15
#define MAX_ROUNDS 100

typedef enum { COLL_ALLREDUCE, COLL_RSB, COLL_ALLGATHER } coll_t;

typedef struct {
    coll_t coll;
    size_t min_size, max_size, budget;
    long iters, warmup, min_iters, rounds;
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

/* Bytes in themis-plan's size syntax (themis_parse_size: 64M, 64MiB,
 * 1.5KB); 0 on error. */
static size_t parse_bytes(const char *s)
{
    uint64_t v = 0;
    return THEMIS_OK == themis_parse_size(s, &v) && v <= SIZE_MAX ? (size_t) v : 0;
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
            "         [--budget BYTES] [--min-iters N] [--rounds R]\n"
            "  BYTES as themis-plan takes them: 64M = 64MiB (binary), 64MB (decimal).\n"
            "  Defaults: allreduce, 4 .. 64M,\n"
            "  1000 iterations, 100 warm-up, budget 64M per size, min-iters 5, 1 round.\n");
}

/* 0 on success, 1 on --help, -1 on a bad option (message printed by rank 0). */
static int parse_options(int argc, char **argv, options_t *o, int rank)
{
    static const struct option longopts[] = {
        {"coll", required_argument, NULL, 'c'},   {"min", required_argument, NULL, 'n'},
        {"max", required_argument, NULL, 'm'},    {"iters", required_argument, NULL, 'i'},
        {"warmup", required_argument, NULL, 'x'}, {"budget", required_argument, NULL, 'b'},
        {"min-iters", required_argument, NULL, 'j'}, {"rounds", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;

    *o = (options_t){.coll = COLL_ALLREDUCE, .min_size = 4, .max_size = (size_t) 64 << 20,
                     .budget = (size_t) 64 << 20, .iters = 1000, .warmup = 100,
                     .min_iters = 5, .rounds = 1};
    opterr = 0;
    while (-1 != (c = getopt_long(argc, argv, "c:n:m:i:x:b:j:r:h", longopts, NULL))) {
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
        case 'r':
            o->rounds = parse_count(optarg, 1);
            bad = o->rounds < 1 || o->rounds > MAX_ROUNDS ? "--rounds needs an integer 1..100"
                                                          : NULL;
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
    if (optind < argc || o->min_size > o->max_size || 0 != o->min_size % sizeof(float)) {
        if (0 == rank) {
            fprintf(stderr, "osu_coll_latency: %s\n",
                    optind < argc ? "unexpected argument"
                    : o->min_size > o->max_size ? "--min is larger than --max"
                    : "--min must be a multiple of 4 (sizes are whole floats)");
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

/* Fills `n` floats of the send buffer with data for `salt` (enough for
 * every size up to n) and poisons the receive buffer.  Allreduce and
 * reduce-scatter inputs are indexed by the element of the full vector,
 * allgather inputs by the element of the rank's own block. */
static void fill(bufs_t *b, size_t n, int rank, unsigned salt)
{
    for (size_t i = 0; i < n; i++) {
        b->sbuf[i] = gen(rank, i, salt);
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
            bad += b->rbuf[i] != gen((int) (i / b->block), i % b->block, salt);
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* One size: its schedule and what this rank measured. */
typedef struct {
    size_t size, count, block;
    long iters, warmup;        /* per round; warm-up of round 0 */
    double *us;                /* latency of every timed call */
    long nus;
    size_t bad;
    int rc;
    unsigned long long calls, fallbacks;
    bool counted;              /* every counter read worked */
} point_t;

/* Runs `warmup` untimed calls of point p, then `iters` timed ones whose
 * latencies (us) go to `us` (may be NULL when iters is 0), and updates the
 * point's counters. */
static void counted_batch(const options_t *o, bufs_t *b, point_t *p, bool counters,
                          long warmup, long iters, double *us)
{
    tc_snapshot_t before, after;
    tc_coll_t tc = counter_of(o->coll);
    bool ok = counters && 0 == tc_read(&before);

    b->count = p->count;
    b->block = p->block;
    for (long it = 0; it < warmup + iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int r = run_coll(o, b);
        double t1 = MPI_Wtime();
        p->rc = MPI_SUCCESS == p->rc ? r : p->rc;
        if (it >= warmup) {
            us[it - warmup] = (t1 - t0) * 1e6;
        }
    }
    ok = ok && 0 == tc_read(&after);
    if (ok) {
        p->calls += after.calls[tc] - before.calls[tc];
        p->fallbacks += after.fallbacks[tc] - before.fallbacks[tc];
    }
    p->counted = p->counted && ok;
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
    bool counters = ncounters > 0;
    expected_sums(np, sums);

    /* The schedule of every size. */
    point_t *pts = calloc(64, sizeof(point_t));
    int npts = 0;
    if (NULL == pts) {
        fprintf(stderr, "osu_coll_latency: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (0 == rank) {
        printf("# OSU-style %s latency test (themis benchmarks/osu_coll_latency)\n",
               coll_name(o.coll));
        printf("# np %d, MPI_FLOAT%s, Size = bytes of the full vector, MPI_Barrier before "
               "every timed call\n", np, COLL_ALLGATHER == o.coll ? "" : ", MPI_SUM");
        printf("# iterations: %ld while Size <= %zu / %ld, then %zu / Size (>= %ld), in %ld "
               "round(s); warm-up min(%ld, iterations / 5), >= 2\n",
               o.iters, o.budget, o.iters, o.budget, o.min_iters, o.rounds, o.warmup);
    }
    for (size_t size = o.min_size; size <= o.max_size && npts < 64; size *= 2) {
        point_t *p = &pts[npts];
        p->size = size;
        p->count = size / sizeof(float) > 0 ? size / sizeof(float) : 1;
        p->block = p->count / (size_t) np;
        if (COLL_ALLREDUCE != o.coll) {
            if (0 == p->block) {
                if (0 == rank) {
                    printf("# %zu: skipped, each of the %d ranks needs a whole float\n", size,
                           np);
                }
                if (size > o.max_size / 2) {
                    break;
                }
                continue;
            }
            p->count = p->block * (size_t) np;
        }
        long iters = o.iters;
        if (size > o.budget / (size_t) o.iters) {
            iters = (long) (o.budget / size);
            iters = iters < o.min_iters ? o.min_iters : iters;
            iters = iters > o.iters ? o.iters : iters;
        }
        long warmup = iters / 5 < o.warmup ? iters / 5 : o.warmup;
        p->warmup = warmup < 2 ? 2 : warmup;   /* the first call builds themis' plan */
        p->iters = (iters + o.rounds - 1) / o.rounds;
        p->us = malloc((size_t) (p->iters * o.rounds) * sizeof(double));
        if (NULL == p->us) {
            fprintf(stderr, "osu_coll_latency: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        p->rc = MPI_SUCCESS;
        p->counted = counters;
        npts++;
        if (size > o.max_size / 2) {
            break;   /* no overflow of size *= 2 */
        }
    }
    if (0 == rank) {
        printf("%-12s%18s%18s%18s%12s%12s%10s%14s\n", "# Size", "Avg Latency(us)",
               "Min Latency(us)", "Max Latency(us)", "Iterations", "Validation", "Path",
               "Median(us)");
        fflush(stdout);
    }

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

    /* Timed rounds: the same data (salt 0) for every size; this also
     * touches every page before the first timing. */
    fill(&b, max_count, rank, 0);
    for (long r = 0; r < o.rounds; r++) {
        for (int k = 0; k < npts; k++) {
            point_t *p = &pts[k];
            long warmup = 0 == r ? p->warmup : p->warmup / o.rounds;
            counted_batch(&o, &b, p, counters, warmup < 1 ? 1 : warmup, p->iters,
                          p->us + p->nus);
            p->nus += p->iters;
            p->bad += check(&o, &b, rank, 0, sums);
        }
    }

    for (int k = 0; k < npts; k++) {
        point_t *p = &pts[k];
        unsigned salt = (unsigned) k + 1;
        double lat = 0.0, med, lmin, lmax, lsum, msum;
        int ok, all_ok;

        /* One more call with fresh data into a poisoned receive buffer. */
        fill(&b, p->count, rank, salt);
        counted_batch(&o, &b, p, counters, 1, 0, NULL);
        p->bad += check(&o, &b, rank, salt, sums);

        for (long i = 0; i < p->nus; i++) {
            lat += p->us[i];
        }
        lat /= (double) p->nus;
        qsort(p->us, (size_t) p->nus, sizeof(double), cmp_double);
        med = 0 == p->nus % 2 ? (p->us[p->nus / 2 - 1] + p->us[p->nus / 2]) / 2.0
                              : p->us[p->nus / 2];
        ok = 0 == p->bad && MPI_SUCCESS == p->rc;
        /* calls, fallbacks, ranks that could read the counters */
        unsigned long long path[3] = {p->calls, p->fallbacks, p->counted ? 1 : 0};
        unsigned long long path_sum[3];
        MPI_Reduce(&lat, &lmin, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &lmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &lsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&med, &msum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(path, path_sum, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (0 != p->bad || MPI_SUCCESS != p->rc) {
            fprintf(stderr, "osu_coll_latency: rank %d: %zu wrong elements, error code %d, "
                    "at %zu bytes\n", rank, p->bad, p->rc, p->size);
        }
        if (0 == rank) {
            const char *path_name = "-";
            if ((unsigned long long) np == path_sum[2]) {
                path_name = 0 == path_sum[1] && 0 != path_sum[0] ? "themis"
                          : 0 == path_sum[0] && 0 != path_sum[1] ? "fallback"
                          : 0 == path_sum[0] ? "-" : "mixed";
            }
            printf("%-12zu%18.2f%18.2f%18.2f%12ld%12s%10s%14.2f\n", p->size, lsum / np, lmin,
                   lmax, p->nus, all_ok ? "Pass" : "Fail", path_name, msum / np);
            fflush(stdout);
            any_failed = any_failed || !all_ok;
        }
        free(p->us);
    }

    free(b.sbuf);
    free(b.rbuf);
    free(pts);
    tc_fini();
    MPI_Finalize();
    return any_failed ? 1 : 0;
}
