/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Persistent collectives on the themis path: MPI_Allreduce_init,
 * MPI_Reduce_scatter_init, MPI_Reduce_scatter_block_init and
 * MPI_Allgather_init (Open MPI 4.1: their MPIX_ forms from mpi-ext.h).
 *
 * On a fresh duplicate of MPI_COMM_WORLD, whose first collective is a
 * persistent init (the setup runs inside it), NREQ requests stay alive at
 * once: every collective, in place and not, a count A (a prime: schedules
 * do not divide it) and a count B (a power of two), uneven reduce_scatter
 * counts, and an allreduce of a strided type with a user op (staged per
 * start; the gaps must stay untouched).  Each of REPS rounds writes new inputs and
 * poisons the outputs, starts all requests - even ranks with MPI_Startall,
 * odd ranks one by one in reverse order (MPI orders the init calls, not
 * the starts) - runs a blocking MPI_Allreduce and an MPI_Iallreduce on the
 * same communicator while they are in flight, completes them by Waitall,
 * a reverse Test loop or Waitany (by round), and checks every element.
 * Halfway one request is freed while inactive and made again.  One more
 * request, with a non-commutative user op, must fall back (counted) and
 * still be right; one is made and freed without a start.  Last, on a
 * second fresh communicator, a first MPI_Iallreduce (nonblocking setup)
 * is followed at once by an init, which must wait for that setup and take
 * the themis path.
 *
 * The MPI_T counters must show exactly: every start of the themis requests
 * in coll_themis_p<coll>_calls, the one fallback in
 * coll_themis_pallreduce_fallbacks, the blocking and nonblocking calls in
 * theirs.  Rank 0 prints
 *
 *   persistent: REPS rounds x NREQ requests ok, themis starts S, fallbacks 1
 *
 * and every rank prints "error: ..." lines; exit 0 only when all checks
 * passed.  Without persistent collectives it prints a SKIP line.
 *
 *   persistent A B REPS
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis_counters.h"

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
#define HAVE_PCOLL 1
#define ALLREDUCE_INIT MPI_Allreduce_init
#define REDUCE_SCATTER_INIT MPI_Reduce_scatter_init
#define REDUCE_SCATTER_BLOCK_INIT MPI_Reduce_scatter_block_init
#define ALLGATHER_INIT MPI_Allgather_init
#elif defined(OPEN_MPI)
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define HAVE_PCOLL 1
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define REDUCE_SCATTER_INIT MPIX_Reduce_scatter_init
#define REDUCE_SCATTER_BLOCK_INIT MPIX_Reduce_scatter_block_init
#define ALLGATHER_INIT MPIX_Allgather_init
#endif
#endif

#ifdef HAVE_PCOLL

enum { AR_A, AR_B_IP, RS_A, RS_B_IP, RSB_A_IP, RSB_B, AG_A, AG_B_IP, AR_VEC, NREQ };

#define POISON (-77)

/* Input element i of rank r in round k; sums over 64 ranks stay in int. */
static int val(int r, long i, int k)
{
    return (int) (((r + 1) * 7 + (i % 1009) * 3 + k * 11) % 100003);
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
        fprintf(stderr, "error: %s round %d element %ld: %d, expected %ld\n", what, k, i, got,
                want);
    }
    errors += (long) got != want;
}

/* A sum over pairs of ints three ints apart (the strided type below),
 * commutative: coll/themis keeps the type and stages its layout. */
static void pair_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void) type;
    for (int e = 0; e < *len; ++e) {
        ((int *) inout)[3 * e] += ((int *) in)[3 * e];
        ((int *) inout)[3 * e + 2] += ((int *) in)[3 * e + 2];
    }
}

/* A sum declared non-commutative: coll/themis must leave it to the
 * previous component. */
static void noncommutative_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void) type;
    for (int i = 0; i < *len; ++i) {
        ((int *) inout)[i] += ((int *) in)[i];
    }
}

typedef struct {
    int rank, p, k;
    long a, b;
    int *rcounts_a, *rcounts_b;             /* reduce_scatter, uneven */
    long rs_first_a, rs_first_b, rs_total_a, rs_total_b;
    int *ar_s, *ar_r, *ar_ip;               /* allreduce A, B in place */
    int *rs_s, *rs_r, *rs_ip;               /* reduce_scatter A, B in place */
    int *rsb_ip, *rsb_s, *rsb_r;            /* block A in place, B */
    int *ag_s, *ag_r, *ag_ip;               /* allgather A, B in place */
    int *vec;                               /* AR_VEC: a pairs in 3 a ints, gaps kept */
    int *nc;                                /* the fallback request's buffer (a ints) */
} bufs_t;

static int *ints(long n)
{
    int *x = malloc(sizeof(int) * (size_t) (n > 0 ? n : 1));
    if (NULL == x) {
        fprintf(stderr, "error: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return x;
}

static void fill(bufs_t *b)
{
    const int r = b->rank, k = b->k;
    for (long i = 0; i < b->a; ++i) {
        b->ar_s[i] = val(r, i, k);
        b->ar_r[i] = POISON;
        b->nc[i] = val(r, i, k);
    }
    for (long i = 0; i < b->b; ++i) {
        b->ar_ip[i] = val(r, i, k);
    }
    for (long i = 0; i < b->rs_total_a; ++i) {
        b->rs_s[i] = val(r, i, k);
    }
    for (long i = 0; i < b->rcounts_a[r]; ++i) {
        b->rs_r[i] = POISON;
    }
    for (long i = 0; i < b->rs_total_b; ++i) {
        b->rs_ip[i] = val(r, i, k);
    }
    for (long i = 0; i < b->a * b->p; ++i) {
        b->rsb_ip[i] = val(r, i, k);
        b->ag_r[i] = POISON;
    }
    for (long i = 0; i < b->b * b->p; ++i) {
        b->rsb_s[i] = val(r, i, k);
        b->ag_ip[i] = POISON;
    }
    for (long i = 0; i < b->b; ++i) {
        b->rsb_r[i] = POISON;
        b->ag_ip[r * b->b + i] = val(r, r * b->b + i, k);
    }
    for (long i = 0; i < b->a; ++i) {
        b->ag_s[i] = val(r, r * b->a + i, k);
    }
    for (long e = 0; e < b->a; ++e) {
        b->vec[3 * e] = val(r, 2 * e, k);
        b->vec[3 * e + 1] = POISON - r;
        b->vec[3 * e + 2] = val(r, 2 * e + 1, k);
    }
}

static void check(const bufs_t *b)
{
    const int p = b->p, r = b->rank, k = b->k;
    for (long i = 0; i < b->a; ++i) {
        expect("allreduce_init A", k, i, b->ar_r[i], sum_val(p, i, k));
        expect("allreduce_init non-commutative op (fallback)", k, i, b->nc[i],
               sum_val(p, i, k));
        expect("allreduce_init strided pairs", k, 3 * i, b->vec[3 * i], sum_val(p, 2 * i, k));
        expect("allreduce_init strided pairs", k, 3 * i + 2, b->vec[3 * i + 2],
               sum_val(p, 2 * i + 1, k));
        expect("allreduce_init strided pairs gap", k, 3 * i + 1, b->vec[3 * i + 1], POISON - r);
    }
    for (long i = 0; i < b->b; ++i) {
        expect("allreduce_init B in place", k, i, b->ar_ip[i], sum_val(p, i, k));
    }
    for (long i = 0; i < b->rcounts_a[r]; ++i) {
        expect("reduce_scatter_init A", k, i, b->rs_r[i], sum_val(p, b->rs_first_a + i, k));
    }
    for (long i = 0; i < b->rcounts_b[r]; ++i) {
        expect("reduce_scatter_init B in place", k, i, b->rs_ip[i],
               sum_val(p, b->rs_first_b + i, k));
    }
    for (long i = 0; i < b->a; ++i) {
        expect("reduce_scatter_block_init A in place", k, i, b->rsb_ip[i],
               sum_val(p, r * b->a + i, k));
    }
    for (long i = 0; i < b->b; ++i) {
        expect("reduce_scatter_block_init B", k, i, b->rsb_r[i], sum_val(p, r * b->b + i, k));
    }
    for (long i = 0; i < b->a * p; ++i) {
        expect("allgather_init A", k, i, b->ag_r[i], val((int) (i / b->a), i, k));
    }
    for (long i = 0; i < b->b * p; ++i) {
        expect("allgather_init B in place", k, i, b->ag_ip[i], val((int) (i / b->b), i, k));
    }
}

static void make_request(bufs_t *b, int q, MPI_Datatype vec_type, MPI_Op pair_op,
                         MPI_Comm comm, MPI_Request *req)
{
    switch (q) {
    case AR_A:
        ALLREDUCE_INIT(b->ar_s, b->ar_r, (int) b->a, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, req);
        break;
    case AR_B_IP:
        ALLREDUCE_INIT(MPI_IN_PLACE, b->ar_ip, (int) b->b, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                       req);
        break;
    case RS_A:
        REDUCE_SCATTER_INIT(b->rs_s, b->rs_r, b->rcounts_a, MPI_INT, MPI_SUM, comm,
                            MPI_INFO_NULL, req);
        break;
    case RS_B_IP:
        REDUCE_SCATTER_INIT(MPI_IN_PLACE, b->rs_ip, b->rcounts_b, MPI_INT, MPI_SUM, comm,
                            MPI_INFO_NULL, req);
        break;
    case RSB_A_IP:
        REDUCE_SCATTER_BLOCK_INIT(MPI_IN_PLACE, b->rsb_ip, (int) b->a, MPI_INT, MPI_SUM, comm,
                                  MPI_INFO_NULL, req);
        break;
    case RSB_B:
        REDUCE_SCATTER_BLOCK_INIT(b->rsb_s, b->rsb_r, (int) b->b, MPI_INT, MPI_SUM, comm,
                                  MPI_INFO_NULL, req);
        break;
    case AG_A:
        ALLGATHER_INIT(b->ag_s, (int) b->a, MPI_INT, b->ag_r, (int) b->a, MPI_INT, comm,
                       MPI_INFO_NULL, req);
        break;
    case AG_B_IP:
        ALLGATHER_INIT(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b->ag_ip, (int) b->b, MPI_INT, comm,
                       MPI_INFO_NULL, req);
        break;
    case AR_VEC:
    default:
        ALLREDUCE_INIT(MPI_IN_PLACE, b->vec, (int) b->a, vec_type, pair_op, comm, MPI_INFO_NULL,
                       req);
        break;
    }
}

/* Starts of each persistent counter per round (the themis requests). */
static const tc_coll_t req_coll[NREQ] = {
    TC_PALLREDUCE, TC_PALLREDUCE, TC_PREDUCE_SCATTER, TC_PREDUCE_SCATTER,
    TC_PREDUCE_SCATTER_BLOCK, TC_PREDUCE_SCATTER_BLOCK, TC_PALLGATHER, TC_PALLGATHER,
    TC_PALLREDUCE};

static void complete(MPI_Request *req, int n, int how)
{
    if (0 == how) {
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    } else if (1 == how) {
        /* Test in reverse order until every one is done. */
        int left = n;
        int *done = calloc((size_t) n, sizeof(int));
        while (left > 0) {
            for (int q = n - 1; q >= 0; --q) {
                int flag = 0;
                if (!done[q]) {
                    MPI_Test(&req[q], &flag, MPI_STATUS_IGNORE);
                    if (flag) {
                        done[q] = 1;
                        --left;
                    }
                }
            }
        }
        free(done);
    } else {
        for (int left = n; left > 0; --left) {
            int idx = MPI_UNDEFINED;
            MPI_Waitany(n, req, &idx, MPI_STATUS_IGNORE);
            if (MPI_UNDEFINED == idx) {
                fprintf(stderr, "error: MPI_Waitany found no active request\n");
                ++errors;
                break;
            }
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bufs_t b;
    memset(&b, 0, sizeof(b));
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.p);
    b.a = argc > 1 ? atol(argv[1]) : 1009;
    b.b = argc > 2 ? atol(argv[2]) : 1024;
    const int reps = argc > 3 ? atoi(argv[3]) : 50;
    const int p = b.p;


    b.rcounts_a = ints(p);
    b.rcounts_b = ints(p);
    for (int r = 0; r < p; ++r) {
        b.rcounts_a[r] = (int) b.a + r % 3;
        b.rcounts_b[r] = (int) b.b - (r % 2);
        b.rs_first_a += r < b.rank ? b.rcounts_a[r] : 0;
        b.rs_first_b += r < b.rank ? b.rcounts_b[r] : 0;
        b.rs_total_a += b.rcounts_a[r];
        b.rs_total_b += b.rcounts_b[r];
    }
    b.ar_s = ints(b.a), b.ar_r = ints(b.a), b.ar_ip = ints(b.b), b.nc = ints(b.a);
    b.rs_s = ints(b.rs_total_a), b.rs_r = ints(b.a + 2), b.rs_ip = ints(b.rs_total_b);
    b.rsb_ip = ints(b.a * p), b.rsb_s = ints(b.b * p), b.rsb_r = ints(b.b);
    b.ag_s = ints(b.a), b.ag_r = ints(b.a * p), b.ag_ip = ints(b.b * p);
    b.vec = ints(3 * b.a);
    int *bl = ints(b.b), *nb = ints(b.a);

    MPI_Datatype vec_type;
    MPI_Datatype pair;
    MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
    MPI_Type_create_resized(pair, 0, 3 * (MPI_Aint) sizeof(int), &vec_type);
    MPI_Type_commit(&vec_type);
    MPI_Type_free(&pair);
    MPI_Op nc_op, pair_op;
    MPI_Op_create(noncommutative_sum, 0, &nc_op);
    MPI_Op_create(pair_sum, 1, &pair_op);

    /* A fresh communicator: the first init sets it up. */
    MPI_Comm comm, comm2;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm2);
    /* After the dup: Open MPI's own nonblocking calls for it are not ours. */
    char err[256];
    tc_snapshot_t before, after;
    if (tc_init(err, sizeof(err)) < 0 || 0 != tc_read(&before)) {
        fprintf(stderr, "error: MPI_T counters: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Request req[NREQ], nc_req, unused;
    for (int q = 0; q < NREQ; ++q) {
        make_request(&b, q, vec_type, pair_op, comm, &req[q]);
    }
    ALLREDUCE_INIT(MPI_IN_PLACE, b.nc, (int) b.a, MPI_INT, nc_op, comm, MPI_INFO_NULL, &nc_req);
    ALLREDUCE_INIT(b.ar_s, b.ar_r, (int) b.a, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &unused);
    MPI_Request_free(&unused);

    uint64_t starts[TC_NCOLLS] = {0};
    for (b.k = 0; b.k < reps; ++b.k) {
        if (b.k == reps / 2) {
            /* Free an inactive request and make it again. */
            MPI_Request_free(&req[AR_B_IP]);
            make_request(&b, AR_B_IP, vec_type, pair_op, comm, &req[AR_B_IP]);
        }
        fill(&b);
        for (long i = 0; i < b.b; ++i) {
            bl[i] = val(b.rank, i, b.k);
        }
        for (long i = 0; i < b.a; ++i) {
            nb[i] = val(b.rank, i, b.k);
        }
        if (0 == b.rank % 2) {
            MPI_Startall(NREQ, req);
        } else {
            for (int q = NREQ - 1; q >= 0; --q) {
                MPI_Start(&req[q]);
            }
        }
        MPI_Start(&nc_req);
        for (int q = 0; q < NREQ; ++q) {
            ++starts[req_coll[q]];
        }
        MPI_Request ib;
        MPI_Iallreduce(MPI_IN_PLACE, nb, (int) b.a, MPI_INT, MPI_SUM, comm, &ib);
        MPI_Allreduce(MPI_IN_PLACE, bl, (int) b.b, MPI_INT, MPI_SUM, comm);
        MPI_Wait(&ib, MPI_STATUS_IGNORE);
        complete(req, NREQ, b.k % 3);
        MPI_Wait(&nc_req, MPI_STATUS_IGNORE);
        check(&b);
        for (long i = 0; i < b.b; ++i) {
            expect("blocking allreduce in flight", b.k, i, bl[i], sum_val(p, i, b.k));
        }
        for (long i = 0; i < b.a; ++i) {
            expect("iallreduce in flight", b.k, i, nb[i], sum_val(p, i, b.k));
        }
    }
    for (int q = 0; q < NREQ; ++q) {
        MPI_Request_free(&req[q]);
    }

    /* A fresh communicator whose first call is nonblocking (its setup
     * runs without blocking, the call waits behind it) and whose next one
     * is a persistent init: the init waits for that setup and takes the
     * themis path (counted below). */
    MPI_Request ib2, p2;
    for (long i = 0; i < b.a; ++i) {
        nb[i] = val(b.rank, i, reps);
        b.ar_s[i] = val(b.rank, i, reps + 1);
    }
    MPI_Iallreduce(MPI_IN_PLACE, nb, (int) b.a, MPI_INT, MPI_SUM, comm2, &ib2);
    ALLREDUCE_INIT(b.ar_s, b.ar_r, (int) b.a, MPI_INT, MPI_SUM, comm2, MPI_INFO_NULL, &p2);
    MPI_Start(&p2);
    MPI_Wait(&p2, MPI_STATUS_IGNORE);
    MPI_Wait(&ib2, MPI_STATUS_IGNORE);
    MPI_Request_free(&p2);
    for (long i = 0; i < b.a; ++i) {
        expect("iallreduce first on a new communicator", reps, i, nb[i], sum_val(p, i, reps));
        expect("allreduce_init behind it", reps + 1, i, b.ar_r[i], sum_val(p, i, reps + 1));
    }

    if (0 != tc_read(&after)) {
        fprintf(stderr, "error: MPI_T counters could not be read\n");
        ++errors;
    }
    uint64_t total_starts = 0;
    for (int c = 0; c < TC_NCOLLS; ++c) {
        uint64_t want_calls = starts[c], want_fb = 0;
        if (TC_ALLREDUCE == c) {
            want_calls = (uint64_t) reps;
        } else if (TC_IALLREDUCE == c) {
            want_calls = (uint64_t) reps + 1;   /* + the first one on comm2 */
        } else if (TC_PALLREDUCE == c) {
            want_calls = starts[c] + 1;         /* + the one start on comm2 */
            want_fb = 1;   /* the non-commutative op */
        }
        total_starts += c >= 2 * TC_NBLOCKING ? starts[c] : 0;
        const uint64_t calls = after.calls[c] - before.calls[c];
        const uint64_t fb = after.fallbacks[c] - before.fallbacks[c];
        if (calls != want_calls || fb != want_fb) {
            fprintf(stderr, "error: coll_themis_%s_calls grew by %llu (expected %llu), "
                    "_fallbacks by %llu (expected %llu)\n", tc_coll_name((tc_coll_t) c),
                    (unsigned long long) calls, (unsigned long long) want_calls,
                    (unsigned long long) fb, (unsigned long long) want_fb);
            ++errors;
        }
    }
    tc_fini();

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == b.rank && 0 == all) {
        printf("persistent: %d rounds x %d requests ok, themis starts %llu, fallbacks 1\n", reps,
               NREQ, (unsigned long long) total_starts);
    }
    MPI_Request_free(&nc_req);
    MPI_Op_free(&nc_op);
    MPI_Op_free(&pair_op);
    MPI_Type_free(&vec_type);
    MPI_Comm_free(&comm);
    MPI_Comm_free(&comm2);
    free(b.rcounts_a), free(b.rcounts_b), free(b.ar_s), free(b.ar_r), free(b.ar_ip);
    free(b.nc), free(b.rs_s), free(b.rs_r), free(b.rs_ip), free(b.rsb_ip), free(b.rsb_s);
    free(b.rsb_r), free(b.ag_s), free(b.ag_r), free(b.ag_ip), free(b.vec), free(bl), free(nb);
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
        printf("persistent: SKIP (no persistent collectives in this MPI)\n");
    }
    MPI_Finalize();
    return 0;
}

#endif
