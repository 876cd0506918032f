/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * rings and torus2d programs (plan_torus.h): every rank's program is built,
 * all run together in vexec under several interleavings (seeds), and the
 * outputs are compared with sums computed directly from the inputs.
 * Counts are uneven (not multiples of 4 x chunks x ranks) or 0; ranks are
 * placed on the torus by a permuted coord_to_rank in some cases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_torus.h"
#include "prog_msgs.h"
#include "unit.h"
#include "vexec.h"
#include "xfer_ring.h"
#include "xfer_run.h"

#define CANARY 3
#define CANARY_VALUE 0x5a5a5a5a5a5aLL

typedef enum { ALGO_RINGS, ALGO_TORUS2D } algo_t;

typedef struct {
    algo_t algo;
    themis_coll_t coll;
    uint32_t rows, cols;
    uint64_t count;       /* AR: elements; AG: per rank; RS: base of the uneven segments */
    uint32_t nchunks, chunks_in_flight;
    int permuted, in_place;
} tcase_t;

static void reduce_sum(void *inout, const void *in, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        ((int64_t *)inout)[i] += ((const int64_t *)in)[i];
    }
}

static int64_t input_value(int r, uint64_t i)
{
    return (int64_t)((r * 2654435761ULL + i * 40503ULL + 7) % 1999) - 999;
}

/* RS segment of rank r: uneven, some empty. */
static uint64_t rs_count(uint64_t base, int r)
{
    return (0 == base || 2 == r % 5) ? 0 : base + (uint64_t)((r * 7) % 5);
}

/* Linear index -> rank: identity, or l -> (m l + 3) mod n with the
 * smallest m >= 5 coprime to n (a permutation that breaks neighbourhoods). */
static void make_placement(int n, int permuted, int *c2r)
{
    int m = 5;
    while (permuted && n > 1) {
        int a = m, b = n;
        while (0 != b) {
            int t = a % b;
            a = b;
            b = t;
        }
        if (1 == a) {
            break;
        }
        m++;
    }
    for (int l = 0; l < n; l++) {
        c2r[l] = permuted ? (int)(((int64_t)l * m + 3) % n) : l;
    }
}

/* A rows x cols request of rank r (c2r, rcounts may be NULL). */
static themis_plan_request_t torus_request(themis_coll_t coll, uint32_t rows, uint32_t cols,
                                           int r, const int *c2r, uint64_t count,
                                           const uint64_t *rcounts, uint32_t in_flight)
{
    themis_plan_request_t req;
    memset(&req, 0, sizeof(req));
    req.coll = coll;
    req.ndims = 2;
    req.dim_size[0] = cols;
    req.dim_size[1] = rows;
    req.rank = r;
    req.coord_to_rank = c2r;
    req.count = count;
    req.recvcounts = rcounts;
    req.chunks_in_flight = in_flight;
    return req;
}

/* Build, run under `seeds` interleavings and check one case; returns 0 when all good. */
static int run_case(const tcase_t *tc, uint32_t seeds, char *why, size_t whylen)
{
    int n = (int)(tc->rows * tc->cols), rc = 0;
    int *c2r = malloc(n * sizeof(int));
    uint64_t *rcounts = malloc(n * sizeof(uint64_t)), total = 0;
    themis_program_t *progs = calloc(n, sizeof(themis_program_t));
    themis_program_t **pp = calloc(n, sizeof(themis_program_t *));
    int64_t **in = calloc(n, sizeof(int64_t *)), **out = calloc(n, sizeof(int64_t *));
    const void **inputs = calloc(n, sizeof(void *));
    void **outputs = calloc(n, sizeof(void *));
    themis_ham_t ham;
    memset(&ham, 0, sizeof(ham));
    if (NULL == c2r || NULL == rcounts || NULL == progs || NULL == pp || NULL == in ||
        NULL == out || NULL == inputs || NULL == outputs) {
        snprintf(why, whylen, "out of memory");
        rc = -1;
        goto done;
    }
    make_placement(n, tc->permuted, c2r);
    for (int r = 0; r < n; r++) {
        rcounts[r] = rs_count(tc->count, r);
        total += rcounts[r];
    }
    if (ALGO_RINGS == tc->algo &&
        THEMIS_OK != themis_ham_build(tc->rows, tc->cols, &ham, why, whylen)) {
        rc = -1;
        goto done;
    }
    uint64_t in_n = (THEMIS_COLL_REDUCE_SCATTER == tc->coll) ? total : tc->count;
    uint64_t out_n = (THEMIS_COLL_ALLREDUCE == tc->coll)        ? tc->count
                     : (THEMIS_COLL_ALLGATHER == tc->coll)      ? tc->count * (uint64_t)n
                                                                : 0;
    for (int r = 0; r < n && 0 == rc; r++) {
        themis_plan_request_t req = torus_request(tc->coll, tc->rows, tc->cols, r, c2r, tc->count,
                                                  rcounts, tc->chunks_in_flight);
        themis_status_t st = (ALGO_RINGS == tc->algo)
                                 ? themis_program_build_rings(&req, &ham, tc->nchunks, &progs[r])
                                 : themis_program_build_torus2d(&req, tc->nchunks, &progs[r]);
        if (THEMIS_OK != st) {
            snprintf(why, whylen, "rank %d: build: %s", r, themis_status_string(st));
            rc = -1;
        }
        pp[r] = &progs[r];
        uint64_t on = (THEMIS_COLL_REDUCE_SCATTER == tc->coll) ? rcounts[r] : out_n;
        in[r] = malloc((in_n + 1) * sizeof(int64_t));
        out[r] = malloc((on + CANARY) * sizeof(int64_t));
        if (NULL == in[r] || NULL == out[r]) {
            snprintf(why, whylen, "out of memory");
            rc = -1;
            break;
        }
        for (uint64_t i = 0; i < in_n; i++) {
            in[r][i] = input_value(r, i);
        }
        for (uint64_t i = 0; i < on + CANARY; i++) {
            out[r][i] = CANARY_VALUE;
        }
    }
    for (uint32_t seed = 1; seed <= seeds && 0 == rc; seed++) {
        for (int r = 0; r < n; r++) {
            uint64_t on = (THEMIS_COLL_REDUCE_SCATTER == tc->coll) ? rcounts[r] : out_n;
            for (uint64_t i = 0; i < on + CANARY; i++) {
                out[r][i] = CANARY_VALUE;
            }
            inputs[r] = in[r];
            if (tc->in_place && THEMIS_COLL_ALLREDUCE == tc->coll) {
                memcpy(out[r], in[r], tc->count * sizeof(int64_t));
                inputs[r] = out[r];
            } else if (tc->in_place && THEMIS_COLL_ALLGATHER == tc->coll) {
                memcpy(out[r] + (uint64_t)r * tc->count, in[r], tc->count * sizeof(int64_t));
                inputs[r] = out[r] + (uint64_t)r * tc->count;
            }
            outputs[r] = out[r];
        }
        char err[256] = "";
        if (0 != vexec_run(n, pp, inputs, outputs, sizeof(int64_t), reduce_sum, seed * 7919u,
                           err, sizeof(err))) {
            snprintf(why, whylen, "seed %u: vexec: %s", seed, err);
            rc = -1;
            break;
        }
        for (int r = 0; r < n && 0 == rc; r++) {
            uint64_t on = (THEMIS_COLL_REDUCE_SCATTER == tc->coll) ? rcounts[r] : out_n;
            uint64_t displ = 0;
            for (int x = 0; x < r; x++) {
                displ += rcounts[x];
            }
            for (uint64_t i = 0; i < on + CANARY && 0 == rc; i++) {
                int64_t want = 0;
                if (i >= on) {
                    want = CANARY_VALUE;
                } else if (THEMIS_COLL_ALLGATHER == tc->coll) {
                    want = input_value((int)(i / tc->count), i % tc->count);
                } else {
                    uint64_t e = (THEMIS_COLL_REDUCE_SCATTER == tc->coll) ? displ + i : i;
                    for (int x = 0; x < n; x++) {
                        want += input_value(x, e);
                    }
                }
                if (out[r][i] != want) {
                    snprintf(why, whylen, "seed %u: rank %d element %llu: got %lld want %lld",
                             seed, r, (unsigned long long)i, (long long)out[r][i],
                             (long long)want);
                    rc = -1;
                }
            }
        }
    }
done:
    for (int r = 0; NULL != progs && r < n; r++) {
        themis_program_free(&progs[r]);
        free(in[r]);
        free(out[r]);
    }
    themis_ham_free(&ham);
    free(c2r);
    free(rcounts);
    free(progs);
    free(pp);
    free(in);
    free(out);
    free(inputs);
    free(outputs);
    return rc;
}

static const char *algo_name(algo_t a)
{
    return (ALGO_RINGS == a) ? "rings" : "torus2d";
}

/* The cross product of sizes, collectives, counts, chunking and
 * placement for one algorithm. */
static void run_matrix(algo_t algo, const uint32_t (*sizes)[2], int nsizes)
{
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    static const uint64_t counts[] = {0, 1, 37, 203};
    static const uint32_t chunks[][2] = {{1, 1}, {3, 2}}; /* nchunks, chunks_in_flight */
    for (int z = 0; z < nsizes; z++) {
        for (int ci = 0; ci < 3; ci++) {
            for (int k = 0; k < 4; k++) {
                for (int h = 0; h < 2; h++) {
                    tcase_t tc = {.algo = algo, .coll = colls[ci], .rows = sizes[z][0],
                                  .cols = sizes[z][1], .count = counts[k],
                                  .nchunks = chunks[h][0], .chunks_in_flight = chunks[h][1],
                                  .permuted = h, .in_place = (k & 1) && !h};
                    char why[256] = "";
                    if (0 != run_case(&tc, 3, why, sizeof(why))) {
                        printf("  %s %s %ux%u count %llu chunks %u chunks_in_flight %u%s%s: %s\n",
                               algo_name(algo), themis_coll_name(tc.coll), tc.rows, tc.cols,
                               (unsigned long long)tc.count, tc.nchunks, tc.chunks_in_flight,
                               tc.permuted ? " permuted" : "", tc.in_place ? " in-place" : "",
                               why);
                        UNIT_CHECK(0);
                        return;
                    }
                }
            }
        }
    }
}

static const uint32_t brief_sizes[][2] = {{3, 3}, {4, 3}, {4, 4}, {3, 5}};

static void test_rings_matrix(void)
{
    run_matrix(ALGO_RINGS, brief_sizes, 4);
}

static void test_torus2d_matrix(void)
{
    run_matrix(ALGO_TORUS2D, brief_sizes, 4);
}

/* torus2d has no Hamiltonian-cycle requirement: degenerate dimensions. */
static void test_torus2d_small_dims(void)
{
    static const uint32_t sizes[][2] = {{1, 1}, {1, 4}, {3, 1}, {2, 2}, {2, 3}};
    run_matrix(ALGO_TORUS2D, sizes, 5);
}

/* A grown (non-BAE) decomposition with many chunks in flight. */
static void test_rings_grown_deep_pipeline(void)
{
    tcase_t tc = {.algo = ALGO_RINGS, .coll = THEMIS_COLL_ALLREDUCE, .rows = 5, .cols = 4,
                  .count = 1001, .nchunks = 5, .chunks_in_flight = 4, .permuted = 1};
    char why[256] = "";
    int rc = run_case(&tc, 4, why, sizeof(why));
    UNIT_CHECKF(0 == rc, "%s", why);
}

static void test_rings_unsupported(void)
{
    themis_plan_request_t req;
    themis_program_t prog;
    memset(&req, 0, sizeof(req));
    req.coll = THEMIS_COLL_ALLREDUCE;
    req.ndims = 2;
    req.dim_size[0] = 4;
    req.dim_size[1] = 2;
    req.count = 100;
    req.chunks_in_flight = 1;
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED == themis_program_build_rings(&req, NULL, 1, &prog));
    UNIT_CHECK(0 == prog.nops && NULL == prog.ops);
    /* cycles of another size are refused */
    themis_ham_t ham;
    req.dim_size[1] = 3;
    UNIT_CHECK(THEMIS_OK == themis_ham_build(4, 4, &ham, NULL, 0));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_program_build_rings(&req, &ham, 1, &prog));
    themis_ham_free(&ham);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_program_build_torus2d(&req, 0, &prog));
    req.rank = 12;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_program_build_torus2d(&req, 1, &prog));
}

/* The ring steps only ever go to torus neighbours, and each of the four
 * queues of a rank sends to a different neighbour (all four links). */
static void test_neighbour_traffic(void)
{
    static const uint32_t sizes[][2] = {{4, 4}, {5, 4}, {3, 5}};
    for (int z = 0; z < 3; z++) {
        uint32_t rows = sizes[z][0], cols = sizes[z][1];
        for (int algo = 0; algo < 2; algo++) {
            for (uint32_t r = 0; r < rows * cols; r++) {
                themis_plan_request_t req = torus_request(THEMIS_COLL_ALLREDUCE, rows, cols,
                                                          (int)r, NULL, 4096, NULL, 1);
                themis_program_t prog;
                themis_status_t st = (0 == algo) ? themis_program_build_rings(&req, NULL, 2, &prog)
                                                 : themis_program_build_torus2d(&req, 2, &prog);
                UNIT_CHECK(THEMIS_OK == st);
                if (THEMIS_OK != st) {
                    return;
                }
                int32_t qpeer[4] = {-1, -1, -1, -1};
                for (uint32_t o = 0; o < prog.nops; o++) {
                    const themis_op_t *op = &prog.ops[o];
                    for (uint32_t s = 0; s < op->nsteps; s++) {
                        int32_t peer = prog.steps[op->first_step + s].send_peer;
                        if (peer < 0) {
                            continue;
                        }
                        uint32_t a = r / cols, j = r % cols, b = (uint32_t)peer / cols,
                                 k = (uint32_t)peer % cols;
                        int nb = (a == b && ((j + 1) % cols == k || (k + 1) % cols == j)) ||
                                 (j == k && ((a + 1) % rows == b || (b + 1) % rows == a));
                        UNIT_CHECKF(nb, "%ux%u %s rank %u sends to %d", rows, cols,
                                    algo ? "torus2d" : "rings", r, peer);
                        UNIT_CHECKF(qpeer[op->queue] < 0 || qpeer[op->queue] == peer,
                                    "queue %u uses two links", op->queue);
                        qpeer[op->queue] = peer;
                    }
                }
                for (int q = 0; q < 4; q++) {
                    for (int q2 = q + 1; q2 < 4; q2++) {
                        UNIT_CHECKF(qpeer[q] != qpeer[q2], "%ux%u %s rank %u: queues %d, %d "
                                    "share peer %d", rows, cols, algo ? "torus2d" : "rings", r,
                                    q, q2, qpeer[q]);
                    }
                }
                themis_program_free(&prog);
            }
        }
    }
}

/* ------------------------------------------------------------ rings as a transfer list */


/* Rank r's slice compiled (transfer_slice.h) against the whole list
 * compiled for it: the same ops in the same queues, steps, work buffer
 * and copies; dependencies a subset of the whole list's (checked by the
 * run below: the same bits). */
static void slice_same_program(const themis_program_t *a, const themis_program_t *b, uint32_t r)
{
    UNIT_CHECKF(a->nops == b->nops && a->nsteps == b->nsteps && a->nqueues == b->nqueues
                    && a->work_count == b->work_count && a->ncopy_in == b->ncopy_in
                    && a->ncopy_out == b->ncopy_out && a->max_recv_count == b->max_recv_count
                    && a->work_is_output == b->work_is_output,
                "rank %u: slice program of %u ops %u steps work %llu, whole list's %u %u %llu",
                r, b->nops, b->nsteps, (unsigned long long)b->work_count, a->nops, a->nsteps,
                (unsigned long long)a->work_count);
    if (unit_case_failed) {
        return;
    }
    UNIT_CHECK(0 == memcmp(a->steps, b->steps, a->nsteps * sizeof(*a->steps)));
    UNIT_CHECK(0 == memcmp(a->copy_in, b->copy_in, a->ncopy_in * sizeof(*a->copy_in)));
    UNIT_CHECK(0 == memcmp(a->copy_out, b->copy_out, a->ncopy_out * sizeof(*a->copy_out)));
    UNIT_CHECK(0 == memcmp(a->queue_first, b->queue_first,
                           (a->nqueues + 1) * sizeof(*a->queue_first)));
    UNIT_CHECK(0 == memcmp(a->queue_ops, b->queue_ops, a->nops * sizeof(*a->queue_ops)));
    for (uint32_t o = 0; o < a->nops && !unit_case_failed; o++) {
        const themis_op_t *x = &a->ops[o], *y = &b->ops[o];
        UNIT_CHECKF(x->queue == y->queue && x->first_step == y->first_step
                        && x->nsteps == y->nsteps && x->chunk == y->chunk
                        && y->ndeps <= x->ndeps,
                    "rank %u op %u differs", r, o);
        for (uint32_t d = 0; d < y->ndeps && !unit_case_failed; d++) {
            uint32_t dep = b->op_deps[y->dep_first + d], found = 0;
            for (uint32_t e = 0; e < x->ndeps; e++) {
                found |= a->op_deps[x->dep_first + e] == dep;
            }
            UNIT_CHECKF(found, "rank %u op %u: slice dependency on op %u not in the list's", r,
                        o, dep);
        }
    }
}

/* A row's transfer list (rings or torus2d), compiled for every rank,
 * against the programs the row built before (plan_torus.h): the same
 * messages (peer, elements, reduce or copy, and where the pieces keep
 * their order the offset) on every rank, and bit-identical results on
 * doubles whose sums depend on their order. */
static void xfer_row_case(algo_t algo, themis_coll_t coll, uint32_t rows, uint32_t cols,
                          uint64_t count, uint32_t nchunks, uint32_t in_flight, int permuted)
{
    uint32_t n = rows * cols;
    int *c2r = malloc(n * sizeof(int));
    uint64_t *rcounts = malloc(n * sizeof(uint64_t)), total = 0, *out_n = malloc(n * 8);
    themis_program_t *oldp = calloc(n, sizeof(*oldp)), *newp = calloc(n, sizeof(*newp));
    themis_program_t *slp = calloc(n, sizeof(*slp));
    double **o1 = calloc(n, sizeof(double *)), **o2 = calloc(n, sizeof(double *));
    double **o3 = calloc(n, sizeof(double *));
    themis_ham_t ham;
    themis_xfer_sched_t s;
    char why[256] = "";
    memset(&s, 0, sizeof(s));
    memset(&ham, 0, sizeof(ham));
    UNIT_CHECK(ALGO_TORUS2D == algo || THEMIS_OK == themis_ham_build(rows, cols, &ham, NULL, 0));
    make_placement((int)n, permuted, c2r);
    for (uint32_t r = 0; r < n; r++) {
        /* reduce-scatter: uneven segments, some empty, around count / n */
        rcounts[r] = (2 == r % 5) ? 0 : count / n + (r * 7) % 5;
        total += rcounts[r];
    }
    uint64_t whole = THEMIS_COLL_ALLREDUCE == coll ? count
                     : THEMIS_COLL_ALLGATHER == coll ? count * n : total;
    uint64_t in_n = THEMIS_COLL_REDUCE_SCATTER == coll ? total : count;
    UNIT_CHECK(THEMIS_OK == (ALGO_RINGS == algo
                                 ? themis_xfer_rings(coll, &ham, c2r, nchunks, &s)
                                 : themis_xfer_torus2d(coll, rows, cols, c2r, nchunks, &s)));
    UNIT_CHECKF(THEMIS_OK == themis_xfer_check(&s, why, sizeof(why)), "%s", why);
    for (uint32_t r = 0; r < n && !unit_case_failed; r++) {
        themis_plan_request_t req = torus_request(coll, rows, cols, (int)r, c2r, count, rcounts,
                                                  in_flight);
        out_n[r] = THEMIS_COLL_REDUCE_SCATTER == coll ? rcounts[r] : whole;
        o1[r] = malloc((out_n[r] + 1) * sizeof(double));
        o2[r] = malloc((out_n[r] + 1) * sizeof(double));
        o3[r] = malloc((out_n[r] + 1) * sizeof(double));
        UNIT_CHECK(THEMIS_OK == (ALGO_RINGS == algo
                                     ? themis_program_build_rings(&req, &ham, nchunks, &oldp[r])
                                     : themis_program_build_torus2d(&req, nchunks, &oldp[r])));
        UNIT_CHECKF(THEMIS_OK == themis_xfer_compile(&s, (int)r, whole,
                                                     THEMIS_COLL_REDUCE_SCATTER == coll ? rcounts
                                                                                        : NULL,
                                                     in_flight, &newp[r], why, sizeof(why)),
                    "%s", why);
        themis_xfer_slice_t sl;
        UNIT_CHECK(THEMIS_OK == (ALGO_RINGS == algo
                                     ? themis_xfer_rings_slice(coll, &ham, c2r, nchunks, r, &sl)
                                     : themis_xfer_torus2d_slice(coll, rows, cols, c2r, nchunks,
                                                                 r, &sl)));
        UNIT_CHECKF(THEMIS_OK == themis_xfer_slice_compile(
                                     &sl, whole,
                                     THEMIS_COLL_REDUCE_SCATTER == coll ? rcounts : NULL,
                                     in_flight, 0, &slp[r], why, sizeof(why)),
                    "slice: %s", why);
        themis_xfer_slice_free(&sl);
        slice_same_program(&newp[r], &slp[r], r);
        /* in place as before: an allreduce runs in the output buffer (an
         * allgather's list keeps its input apart: scratch now) */
        UNIT_CHECKF(THEMIS_COLL_ALLREDUCE != coll
                        || oldp[r].work_is_output == newp[r].work_is_output,
                    "rank %u: work in the output %d before, %d now", r, oldp[r].work_is_output,
                    newp[r].work_is_output);
        uint32_t na, nb;
        msg_t *a = messages(&oldp[r],
                            ALGO_TORUS2D == algo && THEMIS_COLL_ALLREDUCE != coll ? UINT64_MAX
                                                                                 : 0, &na);
        uint64_t shift = THEMIS_COLL_ALLGATHER == coll ? count : 0;
        msg_t *b = messages(&newp[r],
                            ALGO_TORUS2D == algo && THEMIS_COLL_ALLREDUCE != coll ? UINT64_MAX
                                                                                 : shift, &nb);
        UNIT_CHECKF(na == nb && 0 == memcmp(a, b, na * sizeof(*a)),
                    "rank %u: %u messages before, %u now, or they differ", r, na, nb);
        free(a);
        free(b);
    }
    if (!unit_case_failed) {
        UNIT_CHECKF(0 == run_f64(n, oldp, coll, in_n, out_n, o1, why, sizeof(why)), "old: %s",
                    why);
        UNIT_CHECKF(0 == run_f64(n, newp, coll, in_n, out_n, o2, why, sizeof(why)), "new: %s",
                    why);
        UNIT_CHECKF(0 == run_f64(n, slp, coll, in_n, out_n, o3, why, sizeof(why)),
                    "slices: %s", why);
    }
    for (uint32_t r = 0; r < n && !unit_case_failed; r++) {
        UNIT_CHECKF(0 == memcmp(o1[r], o2[r], out_n[r] * sizeof(double))
                        && 0 == memcmp(o1[r], o3[r], out_n[r] * sizeof(double)),
                    "rank %u: results differ in their bits", r);
    }
    if (!unit_case_failed) {
        xfer_run_counts(&s, whole, THEMIS_COLL_REDUCE_SCATTER == coll ? rcounts : NULL,
                        in_flight, 2);
    }
    if (unit_case_failed) {
        printf("  %s %s %ux%u count %llu chunks %u in flight %u%s\n", algo_name(algo),
               themis_coll_name(coll), rows, cols, (unsigned long long)count, nchunks, in_flight,
               permuted ? " permuted" : "");
    }
    for (uint32_t r = 0; r < n; r++) {
        themis_program_free(&oldp[r]);
        themis_program_free(&newp[r]);
        themis_program_free(&slp[r]);
        free(o1[r]);
        free(o2[r]);
        free(o3[r]);
    }
    themis_xfer_free(&s);
    themis_ham_free(&ham);
    free(oldp);
    free(newp);
    free(slp);
    free(o1);
    free(o2);
    free(o3);
    free(c2r);
    free(rcounts);
    free(out_n);
}

static const uint64_t xfer_counts[] = {1, 7, 64, 97, 1031};
static const uint32_t xfer_chunks[][2] = {{1, 1}, {2, 1}, {3, 2}}; /* nchunks, in flight */

static void xfer_row_matrix(algo_t algo, const uint32_t (*sizes)[2], int nsizes)
{
    for (int z = 0; z < nsizes && !unit_case_failed; z++) {
        for (int c = 0; c < 3 && !unit_case_failed; c++) {
            for (int k = 0; k < 5 && !unit_case_failed; k++) {
                int h = (z + k) % 3;
                xfer_row_case(algo, (themis_coll_t)c, sizes[z][0], sizes[z][1], xfer_counts[k],
                              xfer_chunks[h][0], xfer_chunks[h][1], (z + k) & 1);
            }
        }
    }
}

static void test_xfer_rings_same_messages(void)
{
    static const uint32_t sizes[][2] = {{3, 3}, {4, 3}, {3, 5}, {4, 4}};
    xfer_row_matrix(ALGO_RINGS, sizes, 4);
}

/* torus2d also on degenerate and non-square shapes (its transposed
 * quarters split their chunks the other way round). */
static void test_xfer_torus2d_same_messages(void)
{
    static const uint32_t sizes[][2] = {{1, 4}, {3, 1}, {2, 2}, {2, 3}, {3, 3}, {4, 3}, {3, 5}};
    xfer_row_matrix(ALGO_TORUS2D, sizes, 7);
}

/* Many chunks of uneven sizes, as a new large message size compiles
 * (issue 21: 139 chunks a quarter at 256 MiB on 8x8): a prime count and
 * one just above a power of two, 7 (rings) and 9 (torus2d) chunks a
 * quarter, the last ones a unit shorter, two in flight.  Enough chunks
 * that a slice repeats full slots (themis_xfer_sink_repeat: from the 3rd
 * slot on for the rings' allreduce, the 7th for torus2d's): the slices'
 * programs against the whole list's and the old builders', and the
 * results' bits. */
static void test_xfer_rows_many_chunks(void)
{
    static const uint64_t counts[] = {4099, 4097};
    for (int a = 0; a < 2 && !unit_case_failed; a++) {
        for (int c = 0; c < 3 && !unit_case_failed; c++) {
            xfer_row_case(0 == a ? ALGO_RINGS : ALGO_TORUS2D, (themis_coll_t)c, 0 == a ? 4 : 3,
                          0 == a ? 4 : 5, counts[(a + c) % 2], 0 == a ? 7 : 9, 2, c & 1);
        }
    }
}

static void test_xfer_rings_refuses(void)
{
    themis_ham_t ham;
    themis_xfer_sched_t s;
    int dup[9] = {0, 1, 2, 3, 4, 5, 6, 7, 7};
    UNIT_CHECK(THEMIS_OK == themis_ham_build(3, 3, &ham, NULL, 0));
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_rings(THEMIS_COLL_ALLREDUCE, &ham, dup, 1, &s));
    UNIT_CHECK(0 == s.nxfers && NULL == s.xfers);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_rings(THEMIS_COLL_ALLREDUCE, &ham, NULL, 0, &s));
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED
               == themis_xfer_rings(THEMIS_COLL_ALLREDUCE, &ham, NULL,
                                    THEMIS_XFER_RINGS_MAX_XFERS / 100, &s));
    /* split levels that do not make a block's units are refused by the
     * check and the compiler, with a message */
    char why[160] = "";
    themis_program_t p;
    UNIT_CHECK(THEMIS_OK == themis_xfer_torus2d(THEMIS_COLL_ALLREDUCE, 2, 3, NULL, 2, &s));
    UNIT_CHECK(THEMIS_OK == themis_xfer_check(&s, why, sizeof(why)));
    s.split_alt[2] = 5;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_check(&s, why, sizeof(why)));
    UNIT_CHECKF(NULL != strstr(why, "split levels"), "%s", why);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_compile(&s, 0, 100, NULL, 1, &p, why, sizeof(why)));
    s.split_alt[2] = 2;
    s.split[1] = 3;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_check(&s, why, sizeof(why)));
    themis_xfer_free(&s);
    themis_ham_free(&ham);
}

/* Slices refuse a rank out of range, and the compiler a slice that is
 * not its rank's or whose units move (transfer_slice.h), with a message;
 * a slice needs no bound on the whole list's length. */
static void test_xfer_slice_refuses(void)
{
    themis_ham_t ham;
    themis_xfer_slice_t sl;
    themis_program_t p;
    char why[200] = "";
    UNIT_CHECK(THEMIS_OK == themis_ham_build(3, 3, &ham, NULL, 0));
    UNIT_CHECK(THEMIS_ERR_INVALID
               == themis_xfer_rings_slice(THEMIS_COLL_ALLREDUCE, &ham, NULL, 1, 9, &sl));
    UNIT_CHECK(0 == sl.s.nxfers && NULL == sl.tag);
    UNIT_CHECK(THEMIS_ERR_INVALID
               == themis_xfer_torus2d_slice(THEMIS_COLL_ALLGATHER, 2, 3, NULL, 1, 6, &sl));
    /* 576 transfers a chunk: one chunk more than the whole list may have */
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED
               == themis_xfer_rings(THEMIS_COLL_ALLREDUCE, &ham, NULL,
                                    THEMIS_XFER_RINGS_MAX_XFERS / 576 + 1, &sl.s));
    UNIT_CHECK(THEMIS_OK
               == themis_xfer_rings_slice(THEMIS_COLL_ALLREDUCE, &ham, NULL,
                                          THEMIS_XFER_RINGS_MAX_XFERS / 576 + 1, 4, &sl));
    themis_xfer_slice_free(&sl);
    UNIT_CHECK(THEMIS_OK
               == themis_xfer_torus2d_slice(THEMIS_COLL_REDUCE_SCATTER, 3, 3, NULL, 2, 4, &sl));
    UNIT_CHECK(THEMIS_OK == themis_xfer_slice_compile(&sl, 900, NULL, 1, 0, &p, why, sizeof(why)));
    themis_program_free(&p);
    sl.rank = 5;   /* not the rank whose transfers these are */
    UNIT_CHECK(THEMIS_ERR_INVALID
               == themis_xfer_slice_compile(&sl, 900, NULL, 1, 0, &p, why, sizeof(why)));
    UNIT_CHECKF(NULL != strstr(why, "is not rank 5's"), "%s", why);
    sl.rank = 4;
    sl.scratch_unit[0] ^= 1;   /* leaf 0 holds another unit than is moved there */
    UNIT_CHECK(THEMIS_ERR_INVALID
               == themis_xfer_slice_compile(&sl, 900, NULL, 1, 0, &p, why, sizeof(why)));
    UNIT_CHECKF(NULL != strstr(why, "not a stationary schedule"), "%s", why);
    themis_xfer_slice_free(&sl);
    themis_ham_free(&ham);
}

int main(void)
{
    UNIT_RUN(test_rings_matrix);
    UNIT_RUN(test_torus2d_matrix);
    UNIT_RUN(test_torus2d_small_dims);
    UNIT_RUN(test_rings_grown_deep_pipeline);
    UNIT_RUN(test_rings_unsupported);
    UNIT_RUN(test_neighbour_traffic);
    UNIT_RUN(test_xfer_rings_same_messages);
    UNIT_RUN(test_xfer_rings_refuses);
    UNIT_RUN(test_xfer_slice_refuses);
    UNIT_RUN(test_xfer_torus2d_same_messages);
    UNIT_RUN(test_xfer_rows_many_chunks);
    UNIT_EXIT();
}
