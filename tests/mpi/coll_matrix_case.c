/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * One case of the correctness matrix (coll_matrix.c): its buffers and
 * expected result, the call, the check of result, buffers and counters.
 */
#include "coll_matrix.h"

/* ------------------------------------------------------------------ cases */

const tc_coll_t coll_counter[4] = {
    TC_ALLREDUCE, TC_REDUCE_SCATTER, TC_REDUCE_SCATTER_BLOCK, TC_ALLGATHER
};

const char *const dist_names[D_NDISTS] = { "even", "skewed-with-zeros", "all-on-one" };

void case_name(const ctx_t *cx, const case_t *c, char *s, size_t len)
{
    static const char *const cn[4] = {
        "allreduce", "reduce_scatter", "reduce_scatter_block", "allgather"
    };
    snprintf(s, len, "%s %s %s count=%zu%s%s%s [%s]", cn[c->coll], c->t->name,
             op_names[c->op], c->count, c->inplace ? " in-place" : "",
             C_REDUCE_SCATTER == c->coll ? " recvcounts=" : "",
             C_REDUCE_SCATTER == c->coll ? dist_names[c->dist] : "", cx->comm_name);
}

void report(ctx_t *cx, const case_t *c, const char *fmt, ...)
{
    cx->nerrors++;
    if (cx->nprinted >= MAX_ERRORS_PRINTED) {
        return;
    }
    cx->nprinted++;
    char name[256], msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (NULL != c) {
        case_name(cx, c, name, sizeof(name));
    } else {
        snprintf(name, sizeof(name), "%s", cx->comm_name);
    }
    printf("error: rank %d: %s: %s\n", cx->rank, name, msg);
    fflush(stdout);
}

static uint64_t case_salt(const case_t *c)
{
    uint64_t s = (uint64_t) (c->t - types) * 1000003u + (uint64_t) c->op * 131u
                 + (uint64_t) c->coll * 7u + (uint64_t) c->inplace;
    return mix64(s ^ ((uint64_t) c->count << 20) ^ ((uint64_t) c->dist << 56));
}

static void make_recvcounts(dist_t dist, size_t total, int p, int *rc)
{
    long w[64], wsum = 0;
    int last = 0;
    for (int r = 0; r < p; r++) {
        switch (dist) {
        case D_EVEN: w[r] = 1; break;
        case D_SKEW: w[r] = (1 == r % 3) ? 0 : r + 1; break;
        default: w[r] = (r == p / 2); break;
        }
        wsum += w[r];
        if (w[r]) {
            last = r;
        }
    }
    size_t given = 0;
    for (int r = 0; r < p; r++) {
        rc[r] = (int) (total * (size_t) w[r] / (size_t) wsum);
        given += rc[r];
    }
    /* Remainder: one each to the nonzero ranks from the top (even: spread). */
    for (int r = p - 1; given < total; r = (r + p - 1) % p) {
        if (w[r] && (D_EVEN == dist || r == last)) {
            size_t add = (D_EVEN == dist) ? 1 : total - given;
            rc[r] += (int) add;
            given += add;
        }
    }
}

/* Which path the call must take, from the public view of eligibility:
 * commutative op and message at least min_bytes (non-contiguous types
 * are staged, never a reason to fall back). */
path_t expected_path(const ctx_t *cx, const case_t *c, size_t total_elems)
{
    if (0 == total_elems) {
        return PATH_ANY;          /* may return before any counting */
    }
    if (!cx->comm_is_world_like) {
        return PATH_ANY;          /* shape of a sub-communicator is the component's call */
    }
    int commutative = (O_AFFINE != c->op);
    if (!commutative && C_ALLGATHER != c->coll) {
        return PATH_FALLBACK;
    }
    /* The size the component compares with min_bytes could be the whole
     * vector or one rank's block: decide only when both agree. */
    int size;
    MPI_Type_size(c->t->dt, &size);
    uint64_t total = (uint64_t) total_elems * size;
    uint64_t block = total / (uint64_t) cx->nprocs;
    uint64_t lo = (C_ALLREDUCE == c->coll) ? total : block;
    if (lo >= cx->min_bytes) {
        return PATH_THEMIS;
    }
    if (total < cx->min_bytes) {
        return PATH_FALLBACK;
    }
    return PATH_COUNTED;
}

/* A themis-path call must have run the --algo algorithm and no other of
 * the component's (its counters name them; a call without data, PATH_ANY,
 * is counted without running a program). */
/* The counters of a case's collective in this run's mode. */
static tc_coll_t case_counter(const ctx_t *cx, const case_t *c)
{
    return (tc_coll_t) (coll_counter[c->coll] + (cx->nb > 0 ? TC_NBLOCKING : 0));
}

static void check_algorithm(ctx_t *cx, const case_t *c, path_t path, const tc_snapshot_t *before,
                            const tc_snapshot_t *after)
{
    tc_coll_t k = case_counter(cx, c);
    uint64_t dc = after->calls[k] - before->calls[k];
    uint64_t ds = after->substitutions[k] - before->substitutions[k];
    if (cx->algo < 0 || 0 == dc || !cx->comm_is_world_like || PATH_ANY == path) {
        return;
    }
    int bad = ds != (cx->substituted ? dc : 0);
    char seen[256] = "";
    size_t off = 0;
    for (int a = 0; a < tc_nalgos() && off < sizeof(seen); a++) {
        uint64_t d = after->algo[a][k] - before->algo[a][k];
        bad |= d != (a == cx->algo ? dc : 0);
        off += (size_t) snprintf(seen + off, sizeof(seen) - off, ", _%s_calls +%" PRIu64,
                                 tc_algo_name(a), d);
    }
    if (bad) {
        report(cx, c, "expected %s%s: coll_themis_%s_calls +%" PRIu64 "%s, _substitutions +%"
               PRIu64, tc_algo_name(cx->algo), cx->substituted ? " (substituted)" : "",
               tc_coll_name(k), dc, seen, ds);
    }
}

static void check_counters(ctx_t *cx, const case_t *c, path_t path, const tc_snapshot_t *before,
                           const tc_snapshot_t *after)
{
    tc_coll_t k = case_counter(cx, c);
    uint64_t dc = after->calls[k] - before->calls[k];
    uint64_t df = after->fallbacks[k] - before->fallbacks[k];
    if (EXPECT_NONE == cx->expect) {
        return;
    }
    if (EXPECT_FALLBACK == cx->expect) {
        /* A split need not contain the rank that disagrees. */
        if (0 != dc && cx->comm_is_world_like) {
            report(cx, c, "coll_themis_%s_calls rose by %" PRIu64 " but themis must have "
                   "stepped aside", tc_coll_name(k), dc);
        }
        return;
    }
    check_algorithm(cx, c, path, before, after);
    switch (path) {
    case PATH_THEMIS:
        if (0 == dc || 0 != df) {
            report(cx, c, "expected the themis path: coll_themis_%s_calls +%" PRIu64
                   ", _fallbacks +%" PRIu64, tc_coll_name(k), dc, df);
        }
        break;
    case PATH_FALLBACK:
        if (0 != dc || 0 == df) {
            report(cx, c, "expected a fallback: coll_themis_%s_calls +%" PRIu64
                   ", _fallbacks +%" PRIu64, tc_coll_name(k), dc, df);
        }
        break;
    case PATH_COUNTED:
        if (0 == dc + df) {
            report(cx, c, "call not counted: coll_themis_%s_calls and _fallbacks unchanged",
                   tc_coll_name(k));
        }
        break;
    default:
        break;
    }
}

void case_free(pending_t *pc)
{
    free(pc->sbuf);
    free(pc->scopy);
    free(pc->rbuf);
    free(pc->expect);
    pc->sbuf = pc->scopy = pc->rbuf = pc->expect = NULL;
}

/* Buffers, input and expected output; 0 when the case can run. */
int case_setup(ctx_t *cx, pending_t *pc)
{
    const case_t *c = &pc->c;
    const tdesc_t *t = c->t, *bt = t->base;
    const int p = cx->nprocs, me = cx->rank, nb = t->nblk;
    const uint64_t salt = case_salt(c);
    int *rc = pc->rc;
    size_t in_n, out_n, out_start = 0, region_n;

    cx->ncases++;
    for (int r = 0; r < p; r++) {
        rc[r] = (int) c->count;
    }
    switch (c->coll) {
    case C_ALLREDUCE:
        in_n = out_n = c->count;
        break;
    case C_REDUCE_SCATTER:
        make_recvcounts(c->dist, c->count, p, rc);
        in_n = c->count;
        out_n = rc[me];
        break;
    case C_REDUCE_SCATTER_BLOCK:
        in_n = c->count * p;
        out_n = c->count;
        break;
    default:
        in_n = c->count;
        out_n = c->count * p;
        break;
    }
    for (int r = 0; r < me && C_ALLGATHER != c->coll && C_ALLREDUCE != c->coll; r++) {
        out_start += rc[r];
    }
    /* The receive buffer: in place it holds the input first. */
    region_n = (c->inplace && C_ALLGATHER != c->coll) ? in_n : out_n;
    size_t ext = t->extent;
    size_t sbytes = in_n * ext, rbytes = region_n * ext;
    char *sbuf = malloc(sbytes + 1), *scopy = malloc(sbytes + 1);
    char *rbuf = malloc(rbytes + GUARD_BYTES), *expect = malloc(out_n * ext + 1);
    pc->sbuf = sbuf;
    pc->scopy = scopy;
    pc->rbuf = rbuf;
    pc->expect = expect;
    pc->in_n = in_n;
    pc->out_n = out_n;
    pc->sbytes = sbytes;
    pc->rbytes = rbytes;
    pc->req = MPI_REQUEST_NULL;
    if (NULL == sbuf || NULL == scopy || NULL == rbuf || NULL == expect) {
        report(cx, c, "out of memory");
        case_free(pc);
        return -1;
    }
    memset(sbuf, SENTINEL, sbytes);
    memset(rbuf, SENTINEL, rbytes + GUARD_BYTES);

    /* Input: element j of this rank = gen(me, j); allgather in place puts
     * it at this rank's block of the receive buffer. */
    char *in = (c->inplace && C_ALLGATHER != c->coll) ? rbuf
               : (c->inplace ? rbuf + (size_t) me * c->count * ext : sbuf);
    for (size_t j = 0; j < in_n; j++) {
        for (int b = 0; b < nb; b++) {
            store(bt, in, j * t->span + t->pos[b], gen(bt, c->op, salt, me, j * nb + b, p));
        }
    }
    memcpy(scopy, sbuf, sbytes);

    /* Expected output, from every rank's generator.  --ring-check (blocking
     * allreduce): each rank computes only its 1/p of the elements, which
     * costs p times less at 2^20 elements, and case_check proves the rest
     * by comparing every rank's result with its neighbour's. */
    pc->want_lo = 0;
    pc->want_hi = out_n;
    pc->ring = cx->ring_check && 0 == cx->nb && C_ALLREDUCE == c->coll;
    if (pc->ring) {
        pc->want_lo = out_n * (size_t) me / (size_t) p;
        pc->want_hi = out_n * (size_t) (me + 1) / (size_t) p;
    }
    for (size_t j = pc->want_lo; j < pc->want_hi; j++) {
        for (int b = 0; b < nb; b++) {
            val_t acc;
            if (C_ALLGATHER == c->coll) {
                size_t src = j / c->count, jj = j % c->count;
                acc = gen(bt, c->op, salt, (int) src, jj * nb + b, p);
            } else {
                uint64_t gi = (out_start + j) * nb + b;
                acc = gen(bt, c->op, salt, 0, gi, p);
                for (int r = 1; r < p; r++) {
                    acc = fold(bt, c->op, acc, gen(bt, c->op, salt, r, gi, p));
                }
            }
            store(bt, expect, j * t->span + t->pos[b], acc);
        }
    }
    return 0;
}

/* The call, blocking or (with cx->nb) started into pc->req. */
int case_issue(const ctx_t *cx, pending_t *pc)
{
    const case_t *c = &pc->c;
    const tdesc_t *t = c->t;
    const void *sarg = c->inplace ? MPI_IN_PLACE : pc->sbuf;
    MPI_Op op = op_handles[c->op];
    MPI_Request *r = &pc->req;
    void *rbuf = pc->rbuf;
    int n = (int) c->count;

    pc->uerr = user_op_errors;
    switch (c->coll) {
    case C_ALLREDUCE:
        return cx->nb ? MPI_Iallreduce(sarg, rbuf, n, t->dt, op, cx->comm, r)
                      : MPI_Allreduce(sarg, rbuf, n, t->dt, op, cx->comm);
    case C_REDUCE_SCATTER:
        return cx->nb ? MPI_Ireduce_scatter(sarg, rbuf, pc->rc, t->dt, op, cx->comm, r)
                      : MPI_Reduce_scatter(sarg, rbuf, pc->rc, t->dt, op, cx->comm);
    case C_REDUCE_SCATTER_BLOCK:
        return cx->nb ? MPI_Ireduce_scatter_block(sarg, rbuf, n, t->dt, op, cx->comm, r)
                      : MPI_Reduce_scatter_block(sarg, rbuf, n, t->dt, op, cx->comm);
    default:
        return cx->nb ? MPI_Iallgather(sarg, n, t->dt, rbuf, n, t->dt, cx->comm, r)
                      : MPI_Allgather(sarg, n, t->dt, rbuf, n, t->dt, cx->comm);
    }
}

/* The result, buffers and (before/after not NULL) counters of a
 * completed case. */
void case_check(ctx_t *cx, pending_t *pc, const tc_snapshot_t *before,
                const tc_snapshot_t *after)
{
    const case_t *c = &pc->c;
    const tdesc_t *t = c->t, *bt = t->base;
    const int nb = t->nblk;
    const size_t out_n = pc->out_n, rbytes = pc->rbytes;
    char *rbuf = pc->rbuf, *expect = pc->expect;
    int err = pc->err, uerr = pc->uerr;
    char *prev_rbuf = NULL;
    int prev = -1;

    if (pc->ring) {
        /* Every rank sends, whatever its call returned (none may hang). */
        const int p = cx->nprocs;
        prev = (cx->rank + p - 1) % p;
        prev_rbuf = malloc(rbytes + 1);
        if (NULL == prev_rbuf
            || MPI_SUCCESS != MPI_Sendrecv(rbuf, (int) rbytes, MPI_BYTE, (cx->rank + 1) % p, 4242,
                                           prev_rbuf, (int) rbytes, MPI_BYTE, prev, 4242,
                                           cx->comm, MPI_STATUS_IGNORE)) {
            report(cx, c, "--ring-check: no result from rank %d", prev);
            free(prev_rbuf);
            prev_rbuf = NULL;
        }
    }

    if (MPI_SUCCESS != err) {
        char es[MPI_MAX_ERROR_STRING];
        int elen;
        MPI_Error_string(err, es, &elen);
        report(cx, c, "returned %d (%s)", err, es);
    } else {
        size_t bad = 0;
        for (size_t j = 0; j < out_n; j++) {
            for (int b = 0; b < nb; b++) {
                size_t ei = j * t->span + t->pos[b];
                val_t got = load(bt, rbuf, ei), want;
                int mine = j >= pc->want_lo && j < pc->want_hi;
                if (!mine && NULL == prev_rbuf) {
                    continue;
                }
                want = mine ? load(bt, expect, ei) : load(bt, prev_rbuf, ei);
                if (!val_eq(bt, got, want) && 0 == bad++) {
                    char gs[96], ws[96];
                    val_str(bt, got, gs, sizeof(gs));
                    val_str(bt, want, ws, sizeof(ws));
                    report(cx, c, "element %zu (block %d): got %s, %s %s", j, b, gs,
                           mine ? "expected" : "rank's neighbour got", ws);
                }
            }
            /* Gaps of a vector type are outside the type map. */
            for (int g = 0; g < t->span && t->derived && t->gapped; g++) {
                int in_map = 0;
                for (int b = 0; b < nb; b++) {
                    in_map |= (t->pos[b] == g);
                }
                const unsigned char *gp = (unsigned char *) rbuf + (j * t->span + g) * bt->extent;
                for (size_t q = 0; !in_map && q < bt->extent; q++) {
                    if (SENTINEL != gp[q] && 0 == bad++) {
                        report(cx, c, "gap of element %zu was written", j);
                    }
                }
            }
        }
        if (bad > 1) {
            report(cx, c, "%zu wrong elements in all", bad);
        }
        for (size_t q = 0; q < GUARD_BYTES; q++) {
            if (SENTINEL != (unsigned char) rbuf[rbytes + q]) {
                report(cx, c, "wrote past the end of the receive buffer (byte %zu)", q);
                break;
            }
        }
        if (!c->inplace && 0 != memcmp(pc->sbuf, pc->scopy, pc->sbytes)) {
            report(cx, c, "modified the send buffer");
        }
        if (user_op_errors != uerr) {
            report(cx, c, "user op called with an unknown datatype");
        }
        size_t total = (C_ALLGATHER == c->coll) ? out_n : pc->in_n;
        if (NULL != before) {
            check_counters(cx, c, expected_path(cx, c, total), before, after);
        }
    }
    free(prev_rbuf);
    case_free(pc);
}

void run_case(ctx_t *cx, const case_t *c)
{
    pending_t pc = {.c = *c};
    tc_snapshot_t before, after;

    if (0 != case_setup(cx, &pc)) {
        return;
    }
    tc_read(&before);
    pc.err = case_issue(cx, &pc);
    tc_read(&after);
    case_check(cx, &pc, &before, &after);
}
