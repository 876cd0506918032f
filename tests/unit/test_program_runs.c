/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Periodic programs (program_runs.h): the slice compiler's periodic
 * program of every rank of the rings and torus2d, expanded, against the
 * program it compiles without runs, field by field, with their hashes;
 * enough chunks that runs form and hold far fewer ops than the program.
 * Run tables that break the form fail the check, with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program_runs.h"
#include "prog_msgs.h"
#include "unit.h"
#include "vexec.h"
#include "xfer_ring.h"

typedef enum { ALGO_RINGS, ALGO_TORUS2D } algo_t;

/* What a case's ranks gave: runs, stored and logical ops. */
typedef struct {
    uint64_t nruns, stored, logical;
} tally_t;

/* The expansion x of a periodic program against the program m compiled
 * without runs: every scalar, every array byte for byte. */
static void same_program(const themis_program_t *m, const themis_program_t *x, uint32_t r)
{
    UNIT_CHECKF(0 == x->nruns && NULL == x->runs && m->nqueues == x->nqueues
                    && m->nops == x->nops && m->nop_deps == x->nop_deps
                    && m->nsteps == x->nsteps && m->work_count == x->work_count
                    && m->work_is_output == x->work_is_output && m->ncopy_in == x->ncopy_in
                    && m->ncopy_out == x->ncopy_out && m->max_recv_count == x->max_recv_count
                    && m->chunks_in_flight == x->chunks_in_flight
                    && m->max_op_reduce_recvs == x->max_op_reduce_recvs,
                "rank %u: expanded %u ops %u steps %u deps, compiled %u %u %u", r, x->nops,
                x->nsteps, x->nop_deps, m->nops, m->nsteps, m->nop_deps);
    if (unit_case_failed) {
        return;
    }
    UNIT_CHECKF(0 == memcmp(m->queue_first, x->queue_first,
                            (m->nqueues + 1) * sizeof(*m->queue_first)),
                "rank %u: queue_first differs", r);
    UNIT_CHECKF(0 == memcmp(m->queue_ops, x->queue_ops, m->nops * sizeof(*m->queue_ops)),
                "rank %u: queue_ops differs", r);
    UNIT_CHECKF(0 == memcmp(m->ops, x->ops, m->nops * sizeof(*m->ops)), "rank %u: ops differ",
                r);
    UNIT_CHECKF(0 == memcmp(m->op_deps, x->op_deps, m->nop_deps * sizeof(*m->op_deps)),
                "rank %u: op_deps differ", r);
    UNIT_CHECKF(0 == memcmp(m->steps, x->steps, m->nsteps * sizeof(*m->steps)),
                "rank %u: steps differ", r);
    UNIT_CHECKF(0 == memcmp(m->copy_in, x->copy_in, m->ncopy_in * sizeof(*m->copy_in))
                    && 0 == memcmp(m->copy_out, x->copy_out,
                                   m->ncopy_out * sizeof(*m->copy_out)),
                "rank %u: copies differ", r);
}

/* Rank r's slice compiled both ways (the periodic one's expansion in
 * *x, when x is not NULL). */
static void rank_case(algo_t algo, themis_coll_t coll, uint32_t rows, uint32_t cols,
                      const themis_ham_t *ham, uint64_t count, const uint64_t *rcounts,
                      uint32_t nchunks, uint32_t r, tally_t *t, themis_program_t *x)
{
    themis_xfer_slice_t sl;
    themis_program_t m, p, e;
    char why[256] = "";
    uint32_t n = rows * cols;
    uint64_t total = THEMIS_COLL_ALLREDUCE == coll ? count
                     : THEMIS_COLL_ALLGATHER == coll ? count * n : 0;
    for (uint32_t k = 0; THEMIS_COLL_REDUCE_SCATTER == coll && k < n; k++) {
        total += rcounts[k];
    }
    const uint64_t *counts = THEMIS_COLL_REDUCE_SCATTER == coll ? rcounts : NULL;
    memset(&m, 0, sizeof(m));
    memset(&p, 0, sizeof(p));
    memset(&e, 0, sizeof(e));
    /* the plain slice's program, then the periodic slice's, kept periodic */
    for (int periodic = 0; periodic < 2; periodic++) {
        memset(&sl, 0, sizeof(sl));
        sl.periodic = periodic;
        UNIT_CHECK(THEMIS_OK == (ALGO_RINGS == algo
                                     ? themis_xfer_rings_slice(coll, ham, NULL, nchunks, r, &sl)
                                     : themis_xfer_torus2d_slice(coll, rows, cols, NULL, nchunks,
                                                                 r, &sl)));
        UNIT_CHECKF(THEMIS_OK == themis_xfer_slice_compile(&sl, total, counts, 2, periodic,
                                                           periodic ? &p : &m, why, sizeof(why)),
                    "rank %u periodic %d: %s", r, periodic, why);
        themis_xfer_slice_free(&sl);
    }
    if (!unit_case_failed) {
        UNIT_CHECKF(0 == themis_program_runs_check(&p, why, sizeof(why)), "rank %u: %s", r,
                    why);
    }
    if (!unit_case_failed) {
        UNIT_CHECK(THEMIS_OK == themis_program_expand(&p, &e));
        same_program(&m, &e, r);
        UNIT_CHECKF(themis_program_hash(&m) == themis_program_hash(&p)
                        && themis_program_hash(&m) == themis_program_hash(&e),
                    "rank %u: the hashes differ", r);
        t->nruns += p.nruns;
        t->stored += themis_program_stored_ops(&p);
        t->logical += p.nops;
    }
    themis_program_free(&m);
    themis_program_free(&p);
    if (NULL != x && !unit_case_failed) {
        *x = e;
    } else {
        themis_program_free(&e);
    }
}

/* Every rank of one shape, collective and count. */
static void shape_case(algo_t algo, themis_coll_t coll, uint32_t rows, uint32_t cols,
                       const themis_ham_t *ham, uint64_t count, uint32_t nchunks, tally_t *t)
{
    uint32_t n = rows * cols;
    uint64_t *rcounts = malloc(n * sizeof(*rcounts));
    for (uint32_t r = 0; r < n; r++) {
        /* uneven segments, some empty, around count / n */
        rcounts[r] = 2 == r % 5 ? 0 : count / n + (r * 7) % 5;
    }
    for (uint32_t r = 0; r < n && !unit_case_failed; r++) {
        rank_case(algo, coll, rows, cols, ham, count, rcounts, nchunks, r, t, NULL);
    }
    if (unit_case_failed) {
        printf("  %s %s %ux%u count %llu chunks %u\n", ALGO_RINGS == algo ? "rings" : "torus2d",
               themis_coll_name(coll), rows, cols, (unsigned long long) count, nchunks);
    }
    free(rcounts);
}

/* Counts from one element to 2^24 + 3, uneven, with chunks a quarter as
 * a row would cut them (more for more data). */
static const uint64_t counts[] = {1, 7, 97, 1024, 65521, 1u << 20, (1u << 20) + 1,
                                  (1u << 24) + 3};
static const uint32_t chunks[] = {1, 1, 2, 3, 9, 16, 17, 24};
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

static void algo_matrix(algo_t algo, uint32_t rows, uint32_t cols)
{
    themis_ham_t ham;
    memset(&ham, 0, sizeof(ham));
    UNIT_CHECK(ALGO_TORUS2D == algo || THEMIS_OK == themis_ham_build(rows, cols, &ham, NULL, 0));
    for (int c = 0; c < 3 && !unit_case_failed; c++) {
        for (size_t k = 0; k < NCOUNTS && !unit_case_failed; k++) {
            tally_t t = {0, 0, 0};
            shape_case(algo, (themis_coll_t) c, rows, cols, &ham, counts[k], chunks[k], &t);
            /* from 9 chunks on, slots repeat: runs hold ops */
            UNIT_CHECKF(unit_case_failed || chunks[k] < 9
                            || (0 < t.nruns && t.stored < t.logical),
                        "%ux%u %s count %llu: %llu runs, %llu of %llu ops stored", rows, cols,
                        themis_coll_name((themis_coll_t) c), (unsigned long long) counts[k],
                        (unsigned long long) t.nruns, (unsigned long long) t.stored,
                        (unsigned long long) t.logical);
        }
    }
    themis_ham_free(&ham);
}

static void test_rings_periodic(void)
{
    algo_matrix(ALGO_RINGS, 4, 4);
    algo_matrix(ALGO_RINGS, 4, 8);
    algo_matrix(ALGO_RINGS, 8, 8);
}

static void test_torus2d_periodic(void)
{
    algo_matrix(ALGO_TORUS2D, 4, 4);
    algo_matrix(ALGO_TORUS2D, 4, 8);
    algo_matrix(ALGO_TORUS2D, 8, 8);
}

/* 139 chunks a quarter, as a 256 MiB allreduce on 8x8 (issue 21), on a
 * few ranks: the runs hold nearly all of a rank's slots. */
static void test_many_chunks(void)
{
    static const uint32_t ranks[] = {0, 27, 63};
    themis_ham_t ham;
    UNIT_CHECK(THEMIS_OK == themis_ham_build(8, 8, &ham, NULL, 0));
    for (int a = 0; a < 2 && !unit_case_failed; a++) {
        for (int c = 0; c < 3 && !unit_case_failed; c++) {
            tally_t t = {0, 0, 0};
            uint64_t rcounts[64];
            for (uint32_t r = 0; r < 64; r++) {
                rcounts[r] = (1u << 20) + r;
            }
            for (int k = 0; k < 3 && !unit_case_failed; k++) {
                rank_case((algo_t) a, (themis_coll_t) c, 8, 8, &ham, (1u << 24) + 3, rcounts,
                          139, ranks[k], &t, NULL);
            }
            /* torus2d's leaf copies of a reduce-scatter or an allgather
             * are in the chunk's slots: repeated with them (a
             * reduce-scatter's copy every rank's uneven piece, whose
             * remainders end runs) */
            const int torus_rs = ALGO_TORUS2D == a && THEMIS_COLL_REDUCE_SCATTER == c;
            UNIT_CHECKF(unit_case_failed
                            || (0 < t.nruns && (torus_rs ? 4 : 8) * t.stored < t.logical),
                        "%s %s: %llu runs, %llu of %llu ops stored",
                        0 == a ? "rings" : "torus2d", themis_coll_name((themis_coll_t) c),
                        (unsigned long long) t.nruns, (unsigned long long) t.stored,
                        (unsigned long long) t.logical);
        }
    }
    themis_ham_free(&ham);
}

/* The expansions of a periodic torus2d allreduce run together give the
 * bits the compiled programs give. */
static void test_expansion_runs(void)
{
    enum { N = 16 };
    const uint64_t count = 65521;
    themis_program_t x[N], m[N];
    double *o1[N], *o2[N];
    uint64_t out_n[N];
    char why[256] = "";
    tally_t t = {0, 0, 0};
    memset(x, 0, sizeof(x));
    memset(m, 0, sizeof(m));
    for (uint32_t r = 0; r < N && !unit_case_failed; r++) {
        themis_xfer_slice_t sl;
        rank_case(ALGO_TORUS2D, THEMIS_COLL_ALLREDUCE, 4, 4, NULL, count, NULL, 9, r, &t, &x[r]);
        UNIT_CHECK(THEMIS_OK
                   == themis_xfer_torus2d_slice(THEMIS_COLL_ALLREDUCE, 4, 4, NULL, 9, r, &sl));
        UNIT_CHECK(THEMIS_OK == themis_xfer_slice_compile(&sl, count, NULL, 2, 0, &m[r], why,
                                                          sizeof(why)));
        themis_xfer_slice_free(&sl);
    }
    UNIT_CHECKF(0 < t.nruns, "%llu runs", (unsigned long long) t.nruns);
    for (uint32_t r = 0; r < N; r++) {
        out_n[r] = count;
        o1[r] = malloc((count + 1) * sizeof(double));
        o2[r] = malloc((count + 1) * sizeof(double));
    }
    if (!unit_case_failed) {
        UNIT_CHECKF(0 == run_f64(N, m, THEMIS_COLL_ALLREDUCE, count, out_n, o1, why,
                                 sizeof(why)), "compiled: %s", why);
        UNIT_CHECKF(0 == run_f64(N, x, THEMIS_COLL_ALLREDUCE, count, out_n, o2, why,
                                 sizeof(why)), "expanded: %s", why);
    }
    for (uint32_t r = 0; r < N; r++) {
        UNIT_CHECKF(unit_case_failed || 0 == memcmp(o1[r], o2[r], count * sizeof(double)),
                    "rank %u: results differ in their bits", r);
        themis_program_free(&x[r]);
        themis_program_free(&m[r]);
        free(o1[r]);
        free(o2[r]);
    }
}

/* Rank 5's periodic torus2d:4x4 slice of coll, 12 chunks a quarter. */
static void periodic_slice(themis_coll_t coll, themis_xfer_slice_t *sl)
{
    memset(sl, 0, sizeof(*sl));
    sl->periodic = 1;
    UNIT_CHECK(THEMIS_OK == themis_xfer_torus2d_slice(coll, 4, 4, NULL, 12, 5, sl));
}

/* Check a broken run table: it fails with a message saying `what`. */
static void refused(const themis_program_t *p, const char *what)
{
    char why[256] = "";
    themis_program_t e;
    UNIT_CHECKF(0 != themis_program_runs_check(p, why, sizeof(why)) && NULL != strstr(why, what),
                "'%s' for '%s'", why, what);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_program_expand(p, &e) && NULL == e.ops);
}

/* Run tables that break the form: one copy, a range past the program, a
 * dependency on a later op, a shift of the ops ahead past the slot, a
 * queue entry of another run. */
static void test_runs_check_refuses(void)
{
    themis_xfer_slice_t sl;
    themis_program_t p;
    char why[256] = "";
    periodic_slice(THEMIS_COLL_ALLREDUCE, &sl);
    UNIT_CHECK(THEMIS_OK == themis_xfer_slice_compile(&sl, 100003, NULL, 2, 1, &p, why,
                                                      sizeof(why)));
    themis_xfer_slice_free(&sl);
    UNIT_CHECKF(0 < p.nruns && 0 == themis_program_runs_check(&p, why, sizeof(why)), "%u: %s",
                p.nruns, why);
    if (unit_case_failed) {
        themis_program_free(&p);
        return;
    }
    themis_program_run_t *r = &p.runs[p.nruns - 1], keep = *r;
    r->count = 1;
    refused(&p, "1 copies");
    *r = keep;
    /* on the first run: a later one's copies move every queue position
     * of the runs before it, which fails first */
    const themis_program_run_t keep0 = p.runs[0];
    p.runs[0].count = p.nops;
    refused(&p, "pass the program's");
    p.runs[0] = keep0;
    r->op_store++;
    refused(&p, "stored at");
    *r = keep;
    uint32_t k = 0;
    while (k < r->nops && 0 == p.ops[r->op_store + k].ndeps) {
        k++;
    }
    UNIT_CHECK(k < r->nops);
    uint32_t *dep = &p.op_deps[r->dep_store + (p.ops[r->op_store + k].dep_first - r->dep_at)];
    uint32_t d = *dep;
    *dep = r->op_at + k;   /* on itself */
    refused(&p, "not an earlier one");
    *dep = d;
    r->keep_shift = r->nops + 1;
    refused(&p, "more than its");
    *r = keep;
    uint32_t q = p.ops[r->op_store].queue;
    r->queue_n[q]--;
    refused(&p, "queue");
    r->queue_n[q]++;
    UNIT_CHECK(0 == themis_program_runs_check(&p, why, sizeof(why)));
    themis_program_free(&p);
}

/* A slice whose scratch map breaks in the middle of a run (an
 * allgather's copy's scratch unit holds nothing, or the unit of the leaf
 * beside it) is refused as not stationary, however the copies are
 * joined. */
static void test_copy_scratch_moved(void)
{
    for (int how = 0; how < 2 && !unit_case_failed; how++) {
        themis_xfer_slice_t sl;
        themis_program_t p;
        char why[256] = "";
        memset(&p, 0, sizeof(p));
        periodic_slice(THEMIS_COLL_ALLGATHER, &sl);
        uint64_t u = UINT64_MAX;
        for (uint32_t ri = 0; ri < sl.nruns && UINT64_MAX == u; ri++) {
            const themis_xfer_slice_run_t *r = &sl.runs[ri];
            for (uint32_t k = 0; 4 <= r->count && k < r->len && UINT64_MAX == u; k++) {
                const themis_xfer_t *x = &sl.s.xfers[r->store + k];
                const uint64_t mid = (uint64_t) (r->count / 2) * r->scratch_shift;
                u = THEMIS_BUF_SCRATCH == x->src_buf   ? x->src_off + mid
                    : THEMIS_BUF_SCRATCH == x->dst_buf ? x->dst_off + mid
                                                       : UINT64_MAX;
            }
        }
        UNIT_CHECK(UINT64_MAX != u && (u | 1) < sl.s.buf_units[THEMIS_BUF_SCRATCH]);
        if (!unit_case_failed) {
            sl.scratch_unit[u] = 0 == how ? UINT32_MAX : sl.scratch_unit[u ^ 1];
            UNIT_CHECKF(THEMIS_ERR_INVALID
                                == themis_xfer_slice_compile(&sl, 16 * 6007, NULL, 2, 1, &p,
                                                             why, sizeof(why))
                            && NULL != strstr(why, "stationary"),
                        "%s: '%s'", 0 == how ? "nothing" : "the leaf beside's", why);
        }
        themis_program_free(&p);   /* empty unless wrongly compiled */
        themis_xfer_slice_free(&sl);
    }
}

int main(void)
{
    UNIT_RUN(test_copy_scratch_moved);
    UNIT_RUN(test_runs_check_refuses);
    UNIT_RUN(test_expansion_runs);
    UNIT_RUN(test_many_chunks);
    UNIT_RUN(test_rings_periodic);
    UNIT_RUN(test_torus2d_periodic);
    UNIT_EXIT();
}
