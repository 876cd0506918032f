/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Nonblocking collectives on coll/themis under MPI_THREAD_MULTIPLE: each
 * of NTHREADS threads owns a duplicate of MPI_COMM_WORLD and, ROUNDS
 * times, starts INFLIGHT calls (MPI_Iallreduce and MPI_Iallgather in
 * turn) and completes them with MPI_Test loops, so that several threads
 * drive the progress callback at once; the main thread meanwhile runs
 * blocking MPI_Allreduce on MPI_COMM_WORLD.  Every result is checked, and
 * the counters must show every nonblocking call on themis (run with
 * coll_themis_min_bytes 0).  Each communicator is set up (its first call)
 * before the threads start, unless --fresh: then each thread's first call
 * on its new communicator is nonblocking (the setup runs without blocking
 * and the calls made meanwhile wait behind it), and in round 0 a blocking
 * MPI_Allreduce follows the started calls on the same communicator.
 * Output: "error: ..." lines and one "nbc_threads: ..." line from rank 0;
 * exit status 0 only when every rank passed.
 */
#include <mpi.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis_counters.h"

#define NTHREADS 3
#define ROUNDS 12
#define INFLIGHT 4
#define COUNT 4099

typedef struct {
    MPI_Comm comm;
    int id, rank, size, errors;
    int fresh;
} worker_t;

static void *worker(void *arg)
{
    worker_t *w = arg;
    int (*in)[COUNT] = malloc(sizeof(int) * INFLIGHT * COUNT);
    int *out[INFLIGHT];
    MPI_Request r[INFLIGHT + 1];
    int bc[16];

    for (int k = 0; k < INFLIGHT; k++) {
        out[k] = malloc(sizeof(int) * COUNT * (size_t) w->size);
    }

    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < INFLIGHT; k++) {
            for (int i = 0; i < COUNT; i++) {
                in[k][i] = w->rank + i + round + w->id;
            }
            if (0 == k % 2) {
                MPI_Iallreduce(in[k], out[k], COUNT, MPI_INT, MPI_SUM, w->comm, &r[k]);
            } else {
                MPI_Iallgather(in[k], COUNT, MPI_INT, out[k], COUNT, MPI_INT, w->comm, &r[k]);
            }
            if (w->fresh && 0 == round && 0 == k && 0 == w->rank % 2) {
                /* Progress on some ranks only, before the MPI_Ibcast below:
                 * what the setup starts from progress must not take a
                 * place in coll/libnbc's call order. */
                for (int t = 0, flag = 0; t < 200 && !flag; t++) {
                    MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
                }
            }
        }
        /* An MPI_Ibcast (coll/libnbc) among them: coll/libnbc matches by
         * call order, which the setup's own calls must not disturb. */
        for (int i = 0; i < 16; i++) {
            bc[i] = 0 == w->rank ? round * 16 + i : -1;
        }
        MPI_Ibcast(bc, 16, MPI_INT, 0, w->comm, &r[INFLIGHT]);
        if (w->fresh && 0 == round) {
            /* Blocking after the deferred calls: it waits for the setup. */
            int one = 1, sum = 0;
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, w->comm);
            if (sum != w->size && w->errors++ < 4) {
                printf("error: rank %d thread %d: blocking MPI_Allreduce after the first "
                       "nonblocking calls: %d\n", w->rank, w->id, sum);
            }
        }
        for (int flag = 0; !flag;) {
            MPI_Testall(INFLIGHT + 1, r, &flag, MPI_STATUSES_IGNORE);
        }
        for (int i = 0; i < 16; i++) {
            if (bc[i] != round * 16 + i && w->errors++ < 4) {
                printf("error: rank %d thread %d round %d: MPI_Ibcast element %d is %d\n",
                       w->rank, w->id, round, i, bc[i]);
                break;
            }
        }
        for (int k = 0; k < INFLIGHT; k++) {
            int p = w->size, base = round + w->id, bad = -1;
            for (int i = 0; i < COUNT && bad < 0; i++) {
                if (0 == k % 2) {
                    bad = out[k][i] == p * (p - 1) / 2 + p * (i + base) ? -1 : i;
                } else {
                    for (int q = 0; q < p && bad < 0; q++) {
                        bad = out[k][q * COUNT + i] == q + i + base ? -1 : i;
                    }
                }
            }
            if (bad >= 0 && w->errors++ < 4) {
                printf("error: rank %d thread %d round %d call %d: element %d wrong\n", w->rank,
                       w->id, round, k, bad);
            }
        }
    }
    for (int k = 0; k < INFLIGHT; k++) {
        free(out[k]);
    }
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size, errors = 0, all = 0, nfound;
    const int fresh = argc > 1 && 0 == strcmp(argv[1], "--fresh");
    char err[256];
    worker_t w[NTHREADS];
    pthread_t th[NTHREADS];
    tc_snapshot_t before, after;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("error: rank %d: MPI_THREAD_MULTIPLE not provided (%d)\n", rank, provided);
        MPI_Finalize();
        return 1;
    }
    nfound = tc_init(err, sizeof(err));
    if (2 * TC_NCOLLS != nfound) {
        printf("error: rank %d: coll_themis counters: found %d (%s)\n", rank, nfound, err);
        errors++;
    }
    for (int t = 0; t < NTHREADS; t++) {
        int one = 1, sum = 0;
        w[t] = (worker_t){.id = t, .rank = rank, .size = size, .fresh = fresh};
        MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
        if (!fresh) {
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, w[t].comm);   /* setup */
        }
    }
    tc_read(&before);
    for (int t = 0; t < NTHREADS; t++) {
        pthread_create(&th[t], NULL, worker, &w[t]);
    }
    for (int i = 0; i < 50; i++) {
        int v = rank + i, sum = 0;
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != size * (size - 1) / 2 + size * i && errors++ < 4) {
            printf("error: rank %d: blocking MPI_Allreduce beside the threads: %d\n", rank, sum);
        }
    }
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        errors += w[t].errors;
        MPI_Comm_free(&w[t].comm);
    }
    tc_read(&after);
    const uint64_t want = (uint64_t) NTHREADS * ROUNDS * (INFLIGHT / 2);
    const tc_coll_t ks[2] = {TC_IALLREDUCE, TC_IALLGATHER};
    for (int i = 0; i < 2; i++) {
        uint64_t dc = after.calls[ks[i]] - before.calls[ks[i]];
        uint64_t df = after.fallbacks[ks[i]] - before.fallbacks[ks[i]];
        if (dc != want || 0 != df) {
            printf("error: rank %d: coll_themis_%s_calls +%" PRIu64 ", _fallbacks +%" PRIu64
                   ", expected +%" PRIu64 " and +0\n", rank, tc_coll_name(ks[i]), dc, df, want);
            errors++;
        }
    }
    MPI_Reduce(&errors, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("nbc_threads: np=%d, %d threads x %d rounds x %d in flight%s: %d errors\n", size,
               NTHREADS, ROUNDS, INFLIGHT, fresh ? ", nonblocking first calls" : "", all);
    }
    tc_fini();
    MPI_Finalize();
    return 0 != errors || (0 == rank && 0 != all) ? 1 : 0;
}
