/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * --nonblocking mode of the correctness matrix (coll_matrix.c): batches of
 * calls in flight, completed in a seeded order, their counters checked
 * within bounds, and MPI_Cancel on collective requests.
 */
#include "coll_matrix.h"

/* ------------------------------------------------------------ nonblocking */

/* --nonblocking N: cases start in batches of N calls in flight, with a
 * blocking collective or point-to-point on the same communicator between
 * starts, and complete in an order drawn per batch and rank (seeded, not
 * from time): MPI_Waitall, MPI_Waitany, MPI_Test on random requests, or
 * MPI_Wait in a shuffled order. */
static pending_t batch[MAX_BATCH];
static int nbatch;
static unsigned nbatches;

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fffu;
}

static void interleave(ctx_t *cx, int i)
{
    const int p = cx->nprocs, me = cx->rank;
    if (1 == i % 3) {
        int v[7], sum[7];
        for (int k = 0; k < 7; k++) {
            v[k] = me + k;
        }
        int err = MPI_Allreduce(v, sum, 7, MPI_INT, MPI_SUM, cx->comm);
        for (int k = 0; k < 7 && MPI_SUCCESS == err; k++) {
            if (sum[k] != p * (p - 1) / 2 + p * k) {
                report(cx, NULL, "blocking MPI_Allreduce among nonblocking calls: element %d "
                       "is %d, expected %d", k, sum[k], p * (p - 1) / 2 + p * k);
                break;
            }
        }
        if (MPI_SUCCESS != err) {
            report(cx, NULL, "blocking MPI_Allreduce among nonblocking calls returned %d", err);
        }
    } else if (2 == i % 3) {
        int out = me * 1000 + i, in = -1, from = (me + p - 1) % p;
        int err = MPI_Sendrecv(&out, 1, MPI_INT, (me + 1) % p, 77 + i, &in, 1, MPI_INT, from,
                               77 + i, cx->comm, MPI_STATUS_IGNORE);
        if (MPI_SUCCESS != err || in != from * 1000 + i) {
            report(cx, NULL, "MPI_Sendrecv among nonblocking calls: %d, got %d", err, in);
        }
    }
}

/* A batch's counters: each case's path is known only within bounds, as
 * the calls overlap. */
static void batch_counters(ctx_t *cx, const tc_snapshot_t *before, const tc_snapshot_t *after)
{
    if (EXPECT_NONE == cx->expect) {
        return;
    }
    for (int coll = C_ALLREDUCE; coll <= C_ALLGATHER; coll++) {
        tc_coll_t k = (tc_coll_t) (coll_counter[coll] + TC_NBLOCKING);
        uint64_t n[4] = {0, 0, 0, 0};
        int any = 0;
        for (int i = 0; i < nbatch; i++) {
            const pending_t *pc = &batch[i];
            if ((int) pc->c.coll == coll) {
                size_t total = (C_ALLGATHER == coll) ? pc->out_n : pc->in_n;
                n[expected_path(cx, &pc->c, total)]++;
                any = 1;
            }
        }
        uint64_t dc = after->calls[k] - before->calls[k];
        uint64_t df = after->fallbacks[k] - before->fallbacks[k];
        if (!any) {
            continue;
        }
        if (EXPECT_FALLBACK == cx->expect) {
            if (0 != dc && cx->comm_is_world_like) {
                report(cx, NULL, "coll_themis_%s_calls rose by %" PRIu64 " but themis must "
                       "have stepped aside", tc_coll_name(k), dc);
            }
            continue;
        }
        uint64_t t = n[PATH_THEMIS], f = n[PATH_FALLBACK], e = n[PATH_COUNTED], a = n[PATH_ANY];
        if (dc < t || df < f || dc + df < t + f + e || dc > t + e + a || df > f + e + a) {
            report(cx, NULL, "batch of %d: coll_themis_%s_calls +%" PRIu64 ", _fallbacks +%"
                   PRIu64 "; expected %" PRIu64 " themis, %" PRIu64 " fallbacks, %" PRIu64
                   " either, %" PRIu64 " either or none", nbatch, tc_coll_name(k), dc, df, t, f,
                   e, a);
        }
        if (cx->algo < 0 || !cx->comm_is_world_like) {
            continue;
        }
        /* --algo: calls with data ran that row and no other (empty calls
         * count no row). */
        uint64_t ds = after->substitutions[k] - before->substitutions[k], rows = 0, mine = 0;
        for (int r = 0; r < tc_nalgos(); r++) {
            uint64_t d = after->algo[r][k] - before->algo[r][k];
            rows += d;
            mine += r == cx->algo ? d : 0;
        }
        if (mine != rows || rows + a < dc || ds != (cx->substituted ? mine : 0)) {
            report(cx, NULL, "batch of %d: coll_themis_%s_calls +%" PRIu64 ", of them %s +%"
                   PRIu64 ", any row +%" PRIu64 ", substitutions +%" PRIu64, nbatch,
                   tc_coll_name(k), dc, tc_algo_name(cx->algo), mine, rows, ds);
        }
    }
}

void batch_flush(ctx_t *cx)
{
    const int n = nbatch;
    unsigned seed = 2654435761u * ++nbatches + 40503u * (unsigned) cx->rank;
    MPI_Request reqs[MAX_BATCH];
    MPI_Status st[MAX_BATCH];
    int done[MAX_BATCH], left = n, order[MAX_BATCH];
    tc_snapshot_t before, after;

    if (0 == n) {
        return;
    }
    tc_read(&before);
    for (int i = 0; i < n; i++) {
        batch[i].err = case_issue(cx, &batch[i]);
        reqs[i] = MPI_SUCCESS == batch[i].err ? batch[i].req : MPI_REQUEST_NULL;
        done[i] = 0;
        order[i] = i;
        interleave(cx, i);
    }
    switch (next_rand(&seed) % 4) {
    case 0: {
        int rc = MPI_Waitall(n, reqs, st);
        for (int i = 0; i < n && MPI_SUCCESS != rc; i++) {
            if (MPI_SUCCESS == batch[i].err) {
                batch[i].err = MPI_ERR_IN_STATUS == rc ? st[i].MPI_ERROR : rc;
            }
        }
        break;
    }
    case 1:
        for (;;) {
            int idx = MPI_UNDEFINED;
            int rc = MPI_Waitany(n, reqs, &idx, MPI_STATUS_IGNORE);
            if (MPI_UNDEFINED == idx) {
                break;
            }
            if (MPI_SUCCESS != rc && MPI_SUCCESS == batch[idx].err) {
                batch[idx].err = rc;
            }
        }
        break;
    case 2:
        while (left > 0) {
            int i = (int) (next_rand(&seed) % (unsigned) n), flag = 0;
            if (done[i]) {
                continue;
            }
            int rc = MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
            if (MPI_SUCCESS != rc) {
                batch[i].err = MPI_SUCCESS == batch[i].err ? rc : batch[i].err;
                flag = 1;
            }
            if (flag) {
                done[i] = 1;
                left--;
            }
        }
        break;
    default:
        for (int i = n - 1; i > 0; i--) {
            int j = (int) (next_rand(&seed) % (unsigned) (i + 1)), x = order[i];
            order[i] = order[j];
            order[j] = x;
        }
        for (int i = 0; i < n; i++) {
            int rc = MPI_Wait(&reqs[order[i]], MPI_STATUS_IGNORE);
            if (MPI_SUCCESS != rc && MPI_SUCCESS == batch[order[i]].err) {
                batch[order[i]].err = rc;
            }
        }
        break;
    }
    tc_read(&after);
    batch_counters(cx, &before, &after);
    for (int i = 0; i < n; i++) {
        case_check(cx, &batch[i], NULL, NULL);
    }
    nbatch = 0;
}

void submit(ctx_t *cx, const case_t *c)
{
    /* --shard: cases are numbered in the order the levels enumerate them
     * (the same on every rank), so the N shards partition the matrix; by a
     * hash of the number, as k % N would give shard 0 of N = 6 only the
     * first count, not in place, of every type and op. */
    if (cx->shard_n > 1 && cx->shard_i != mix64(cx->seq++) % cx->shard_n) {
        return;
    }
    if (cx->list) {
        /* From one process only: mpirun may interleave two ranks' output
         * mid-line (world rank 0 enumerates what every rank does). */
        char name[256];
        int wrank;
        case_name(cx, c, name, sizeof(name));
        cx->ncases++;
        MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
        if (0 == wrank) {
            printf("case: %s\n", name);
        }
        return;
    }
    if (0 == cx->nb) {
        run_case(cx, c);
        return;
    }
    pending_t *pc = &batch[nbatch];
    memset(pc, 0, sizeof(*pc));
    pc->c = *c;
    if (0 == case_setup(cx, pc) && ++nbatch == cx->nb) {
        batch_flush(cx);
    }
}

/* MPI_Cancel of a collective request does nothing (the call completes
 * and is not cancelled); MPI_Request_free of an active one lets it
 * complete: its result appears while progress runs. */
void nb_cancel_and_free(ctx_t *cx)
{
    const int n = 4099, p = cx->nprocs;
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int)), *c = malloc(n * sizeof(int));
    MPI_Request r;
    MPI_Status st;
    int flag = 1, rc, ok = 0;

    if (NULL == a || NULL == b || NULL == c) {
        report(cx, NULL, "out of memory");
        free(a); free(b); free(c);
        return;
    }
    for (int k = 0; k < n; k++) {
        a[k] = cx->rank + k;
        b[k] = c[k] = -1;
    }
    cx->ncases += 2;
    rc = MPI_Iallreduce(a, b, n, MPI_INT, MPI_SUM, cx->comm, &r);
    if (MPI_SUCCESS == rc && MPI_SUCCESS != MPI_Cancel(&r)) {
        report(cx, NULL, "MPI_Cancel of an MPI_Iallreduce request failed");
    }
    if (MPI_SUCCESS == rc) {
        rc = MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &flag);
    }
    if (MPI_SUCCESS != rc || flag) {
        report(cx, NULL, "MPI_Iallreduce after MPI_Cancel: %d, cancelled %d", rc, flag);
    }
    for (int k = 0; k < n; k++) {
        if (b[k] != p * (p - 1) / 2 + p * k) {
            report(cx, NULL, "MPI_Iallreduce after MPI_Cancel: element %d is %d", k, b[k]);
            break;
        }
    }

    rc = MPI_Iallreduce(a, c, n, MPI_INT, MPI_SUM, cx->comm, &r);
    if (MPI_SUCCESS == rc) {
        rc = MPI_Request_free(&r);
    }
    if (MPI_SUCCESS != rc || MPI_REQUEST_NULL != r) {
        report(cx, NULL, "MPI_Request_free of an active MPI_Iallreduce request: %d", rc);
    }
    /* No timing assertion: a generous bound only turns a hang into an error. */
    for (double t0 = MPI_Wtime(); !ok && MPI_Wtime() - t0 < 600;) {
        int f;
        MPI_Iprobe(MPI_ANY_SOURCE, 999, cx->comm, &f, MPI_STATUS_IGNORE);
        ok = 1;
        for (int k = 0; k < n && ok; k++) {
            ok = c[k] == p * (p - 1) / 2 + p * k;
        }
    }
    if (!ok) {
        report(cx, NULL, "a freed active MPI_Iallreduce never completed");
    }
    MPI_Barrier(cx->comm);
    free(a);
    free(b);
    free(c);
}
