/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The Themis plan as a transfer list (planners/schedule/xfer_hier.h):
 * compiled for each rank, whole or as the rank's slice, it sends the
 * messages themis_program_build_hier's programs send (peers, element
 * ranges, reduce or copy), passes themis_xfer_check, and gives results of
 * the same bits on doubles whose sums depend on their order.  Chunks with
 * their own dimension orders, biring halves, direct and ring phases,
 * uneven and empty reduce-scatter blocks, permuted placements.
 */
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "prog_msgs.h"
#include "scheduler.h"
#include "simulator.h"
#include "transfer.h"
#include "transfer_slice.h"
#include "unit.h"
#include "vexec.h"
#include "xfer_hier.h"

typedef struct {
    const char *topo;
    themis_coll_t coll;
    uint64_t count; /* AR: elements; AG: per rank; RS: base of uneven blocks */
    uint32_t nchunks, in_flight;
    themis_sched_kind_t kind;
    int permuted;
} hcase_t;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return (x > y) - (x < y);
}

/* The (chunk, phase, dimension) of every op that sends or receives, once
 * each, sorted: an old program's dimension is its op's queue, a compiled
 * slice's its op's label. */
static uint64_t *stage_labels(const themis_program_t *p, int old, uint32_t *n)
{
    uint64_t *l = malloc(((size_t) p->nops + 1) * sizeof(*l));
    uint32_t k = 0;
    for (uint32_t o = 0; NULL != l && o < p->nops; o++) {
        const themis_op_t *op = &p->ops[o];
        int msg = 0;
        for (uint32_t i = 0; i < op->nsteps; i++) {
            const themis_step_t *st = &p->steps[op->first_step + i];
            msg |= (st->send_peer >= 0 && st->send_count > 0) ||
                   (st->recv_peer >= 0 && st->recv_count > 0);
        }
        if (msg) {
            l[k++] = (uint64_t) op->chunk << 16 | (uint64_t) op->phase << 8 |
                     (old ? op->queue : op->dim);
        }
    }
    if (NULL != l) {
        qsort(l, k, sizeof(*l), cmp_u64);
    }
    *n = 0;
    for (uint32_t i = 0; NULL != l && i < k; i++) {
        if (0 == i || l[i] != l[i - 1]) {
            l[(*n)++] = l[i];
        }
    }
    return l;
}

static int same_steps(const themis_program_t *a, const themis_program_t *b)
{
    return a->nops == b->nops && a->nsteps == b->nsteps && a->work_count == b->work_count &&
           0 == memcmp(a->steps, b->steps, a->nsteps * sizeof(*a->steps)) &&
           a->ncopy_in == b->ncopy_in && a->ncopy_out == b->ncopy_out;
}

typedef struct {
    themis_topology_t topo;
    uint32_t n;
    int *c2r;
    uint64_t *rc, total, whole, in_n, *out_n;
    themis_schedule_t sched;
    themis_intra_order_t order;
} hworld_t;

static themis_plan_request_t request(const hcase_t *c, const hworld_t *w, int rank)
{
    themis_plan_request_t req;
    memset(&req, 0, sizeof(req));
    req.coll = c->coll;
    req.ndims = w->topo.ndims;
    for (int d = 0; d < w->topo.ndims; d++) {
        req.dim_size[d] = w->topo.dims[d].size;
        req.dim_algo[d] = themis_dim_algo_for(w->topo.dims[d].kind, w->topo.dims[d].size, 3);
    }
    req.rank = rank;
    req.coord_to_rank = w->c2r;
    req.count = c->count;
    req.recvcounts = w->rc;
    req.chunks_in_flight = c->in_flight;
    return req;
}

static int world_init(const hcase_t *c, hworld_t *w)
{
    themis_sched_params_t sp;
    themis_sim_params_t simp = {.policy = THEMIS_ORDER_SCF, .chunks_in_flight = c->in_flight};
    themis_sim_result_t sim;
    memset(w, 0, sizeof(*w));
    w->topo = unit_topology(c->topo);
    w->n = (uint32_t) themis_topology_npus(&w->topo);
    w->c2r = malloc(w->n * sizeof(int));
    w->rc = malloc(w->n * sizeof(uint64_t));
    w->out_n = malloc(w->n * sizeof(uint64_t));
    if (0 == w->n || NULL == w->c2r || NULL == w->rc || NULL == w->out_n) {
        return -1;
    }
    for (uint32_t l = 0; l < w->n; l++) {
        /* l -> (5 l + 3) mod n where 5 is prime to n, else a rotation */
        w->c2r[l] = (int) (c->permuted ? (0 != w->n % 5 ? 5 * l + 3 : l + 3) % w->n : l);
        w->rc[l] = (2 == l % 5) ? 0 : c->count + (l * 7) % 5;
        w->total += w->rc[l];
    }
    w->whole = THEMIS_COLL_ALLREDUCE == c->coll   ? c->count
               : THEMIS_COLL_ALLGATHER == c->coll ? c->count * w->n
                                                  : w->total;
    w->in_n = THEMIS_COLL_REDUCE_SCATTER == c->coll ? w->total : c->count;
    for (uint32_t r = 0; r < w->n; r++) {
        w->out_n[r] = THEMIS_COLL_REDUCE_SCATTER == c->coll ? w->rc[r] : w->whole;
    }
    themis_sched_params_init(&sp, c->coll, 8 * w->whole + c->nchunks, c->nchunks, c->kind);
    if (THEMIS_OK != themis_schedule_build(&w->topo, &sp, &w->sched)) {
        return -1;
    }
    if (THEMIS_OK != themis_simulate(&w->topo, &w->sched, &simp, &sim)) {
        return -1;
    }
    w->order = sim.order;
    memset(&sim.order, 0, sizeof(sim.order));
    themis_sim_result_free(&sim);
    return 0;
}

static void world_free(hworld_t *w)
{
    themis_schedule_free(&w->sched);
    themis_sim_result_t sim;
    memset(&sim, 0, sizeof(sim));
    sim.order = w->order;
    themis_sim_result_free(&sim);
    free(w->c2r);
    free(w->rc);
    free(w->out_n);
}

/* Offset of the scratch buffer in a compiled program's work: the input
 * and output in front of it (reduce-scatter, allgather). */
static uint64_t scratch_shift(const hcase_t *c, const hworld_t *w, uint32_t r)
{
    switch (c->coll) {
    case THEMIS_COLL_REDUCE_SCATTER:
        return w->total + w->rc[r];
    case THEMIS_COLL_ALLGATHER:
        return c->count + w->whole;
    default:
        return 0;
    }
}

static void run_hcase(const hcase_t *c)
{
    hworld_t w;
    char why[256] = "";
    themis_xfer_sched_t s;
    memset(&s, 0, sizeof(s));
    UNIT_CHECK(0 == world_init(c, &w));
    uint32_t n = w.n;
    themis_program_t *oldp = calloc(n, sizeof(*oldp)), *newp = calloc(n, sizeof(*newp));
    themis_program_t *slp = calloc(n, sizeof(*slp));
    double **o[3];
    for (int v = 0; v < 3; v++) {
        o[v] = calloc(n, sizeof(double *));
    }
    themis_plan_request_t req = request(c, &w, 0);
    if (!unit_case_failed) {
        UNIT_CHECK(THEMIS_OK == themis_xfer_hier(&req, &w.sched, &w.order, 0, &s));
    }
    if (!unit_case_failed) {
        UNIT_CHECKF(THEMIS_OK == themis_xfer_check(&s, why, sizeof(why)), "%s", why);
    }
    for (uint32_t r = 0; r < n && !unit_case_failed; r++) {
        req = request(c, &w, (int) r);
        for (int v = 0; v < 3; v++) {
            o[v][r] = malloc((w.out_n[r] + 1) * sizeof(double));
        }
        UNIT_CHECK(THEMIS_OK == themis_program_build_hier(&req, &w.sched, &w.order, &oldp[r]));
        UNIT_CHECKF(THEMIS_OK ==
                        themis_xfer_compile(&s, (int) r, w.whole,
                                            THEMIS_COLL_REDUCE_SCATTER == c->coll ? w.rc : NULL,
                                            c->in_flight, &newp[r], why, sizeof(why)),
                    "rank %u: %s", r, why);
        themis_xfer_slice_t sl;
        UNIT_CHECK(THEMIS_OK == themis_xfer_hier_slice(&req, &w.sched, &w.order, r, &sl));
        UNIT_CHECKF(THEMIS_OK == themis_xfer_slice_compile(
                                     &sl, w.whole,
                                     THEMIS_COLL_REDUCE_SCATTER == c->coll ? w.rc : NULL,
                                     c->in_flight, 0, &slp[r], why, sizeof(why)),
                    "rank %u slice: %s", r, why);
        themis_xfer_slice_free(&sl);
        if (unit_case_failed) {
            break;
        }
        UNIT_CHECKF(same_steps(&newp[r], &slp[r]),
                    "rank %u: the slice compiles to other steps "
                    "than the whole list",
                    r);
        uint32_t na = 0, nb = 0;
        msg_t *a = messages(&oldp[r], 0, &na);
        msg_t *b = messages(&newp[r], scratch_shift(c, &w, r), &nb);
        UNIT_CHECKF(na == nb && 0 == memcmp(a, b, na * sizeof(*a)),
                    "rank %u: %u messages in the program, %u in the list's, or they differ", r,
                    na, nb);
        free(a);
        free(b);
        /* the slice's ops name the stages the program's ops are */
        uint64_t *la = stage_labels(&oldp[r], 1, &na), *lb = stage_labels(&slp[r], 0, &nb);
        UNIT_CHECKF(na == nb && 0 == memcmp(la, lb, na * sizeof(*la)),
                    "rank %u: %u stages with messages in the program, %u in the slice's "
                    "labels, or they differ",
                    r, na, nb);
        free(la);
        free(lb);
    }
    if (!unit_case_failed) {
        themis_program_t *ps[3] = {oldp, newp, slp};
        for (int v = 0; v < 3 && !unit_case_failed; v++) {
            UNIT_CHECKF(0 ==
                            run_f64(n, ps[v], c->coll, w.in_n, w.out_n, o[v], why, sizeof(why)),
                        "%s: %s",
                        0 == v   ? "programs"
                        : 1 == v ? "list"
                                 : "slices",
                        why);
        }
    }
    for (uint32_t r = 0; r < n && !unit_case_failed; r++) {
        UNIT_CHECKF(0 == memcmp(o[0][r], o[1][r], w.out_n[r] * sizeof(double)) &&
                        0 == memcmp(o[0][r], o[2][r], w.out_n[r] * sizeof(double)),
                    "rank %u: results differ in their bits", r);
    }
    if (unit_case_failed) {
        printf("  %s %s count %llu chunks %u in flight %u %s%s\n", c->topo,
               themis_coll_name(c->coll), (unsigned long long) c->count, c->nchunks,
               c->in_flight, THEMIS_SCHED_THEMIS == c->kind ? "themis" : "baseline",
               c->permuted ? " permuted" : "");
    }
    for (uint32_t r = 0; r < n; r++) {
        themis_program_free(&oldp[r]);
        themis_program_free(&newp[r]);
        themis_program_free(&slp[r]);
        for (int v = 0; v < 3; v++) {
            free(NULL != o[v] ? o[v][r] : NULL);
        }
    }
    for (int v = 0; v < 3; v++) {
        free(o[v]);
    }
    free(oldp);
    free(newp);
    free(slp);
    themis_xfer_free(&s);
    world_free(&w);
}

static const char *const topos[] = {
    /* two birings of different sizes: cuts inside leaves on both levels */
    "biring:4:100Gb:1us_biring:3:50Gb:1us",
    /* a direct, a ring and a biring dimension, unequal rates: the chunks
     * take different dimension orders */
    "fc:2:200Gb:1us_ring:3:100Gb:2us_biring:2:25Gb:1us",
    /* a biring of 5 alone: halves of every leaf */
    "biring:5:100Gb:1us",
};

static void hcases(themis_sched_kind_t kind)
{
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    static const uint64_t counts[] = {1, 13, 97};
    for (size_t t = 0; t < sizeof(topos) / sizeof(topos[0]) && !unit_case_failed; t++) {
        for (int ci = 0; ci < 3 && !unit_case_failed; ci++) {
            for (int k = 0; k < 3 && !unit_case_failed; k++) {
                hcase_t c = {.topo = topos[t],
                             .coll = colls[ci],
                             .count = counts[k],
                             .nchunks = 1 + 2 * (uint32_t) k,
                             .in_flight = 1 + (uint32_t) k % 2,
                             .kind = kind,
                             .permuted = k % 2};
                run_hcase(&c);
            }
        }
    }
}

static void test_hier_themis_same_messages(void)
{
    hcases(THEMIS_SCHED_THEMIS);
}

static void test_hier_baseline_same_messages(void)
{
    hcases(THEMIS_SCHED_BASELINE);
}

/* The per-element list (the link simulator's representative call) sends
 * the programs' messages too, and passes the check. */
static void test_hier_per_element(void)
{
    hcase_t c = {.topo = topos[1],
                 .coll = THEMIS_COLL_ALLREDUCE,
                 .count = 24,
                 .nchunks = 2,
                 .in_flight = 2,
                 .kind = THEMIS_SCHED_THEMIS};
    for (int ci = 0; ci < 3 && !unit_case_failed; ci++) {
        hworld_t w;
        char why[256] = "";
        themis_xfer_sched_t s;
        c.coll = (themis_coll_t) ci;
        UNIT_CHECK(0 == world_init(&c, &w));
        themis_plan_request_t req = request(&c, &w, 0);
        uint64_t *even = malloc(w.n * sizeof(uint64_t));
        for (uint32_t r = 0; r < w.n; r++) {
            even[r] = c.count;
        }
        req.recvcounts = even;
        UNIT_CHECK(THEMIS_OK == themis_xfer_hier(&req, &w.sched, &w.order, 1, &s));
        UNIT_CHECKF(THEMIS_OK == themis_xfer_check(&s, why, sizeof(why)), "%s", why);
        UNIT_CHECK(NULL == s.unit_off);
        uint64_t whole = THEMIS_COLL_ALLREDUCE == c.coll ? c.count : c.count * w.n;
        UNIT_CHECK(whole == s.nunits);
        for (uint32_t r = 0; r < w.n && !unit_case_failed; r++) {
            themis_program_t a, b;
            req.rank = (int) r;
            UNIT_CHECK(THEMIS_OK == themis_program_build_hier(&req, &w.sched, &w.order, &a));
            UNIT_CHECKF(THEMIS_OK == themis_xfer_compile(
                                         &s, (int) r, whole,
                                         THEMIS_COLL_REDUCE_SCATTER == c.coll ? even : NULL,
                                         c.in_flight, &b, why, sizeof(why)),
                        "%s", why);
            uint32_t na = 0, nb = 0;
            uint64_t shift = THEMIS_COLL_ALLREDUCE == c.coll ? 0 : whole + c.count;
            msg_t *ma = messages(&a, 0, &na), *mb = messages(&b, shift, &nb);
            UNIT_CHECKF(na == nb && 0 == memcmp(ma, mb, na * sizeof(*ma)),
                        "%s rank %u: %u messages in the program, %u in the list's",
                        themis_coll_name(c.coll), r, na, nb);
            free(ma);
            free(mb);
            themis_program_free(&a);
            themis_program_free(&b);
        }
        /* unequal counts have no one-element units */
        themis_xfer_free(&s);
        req.recvcounts = w.rc;
        UNIT_CHECK(THEMIS_COLL_REDUCE_SCATTER != c.coll ||
                   THEMIS_ERR_UNSUPPORTED == themis_xfer_hier(&req, &w.sched, &w.order, 1, &s));
        free(even);
        themis_xfer_free(&s);
        world_free(&w);
    }
}

/* The list is cut for its call: another call's counts are refused, and
 * so are inconsistent plans. */
static void test_hier_refusals(void)
{
    hcase_t c = {.topo = topos[0],
                 .coll = THEMIS_COLL_REDUCE_SCATTER,
                 .count = 10,
                 .nchunks = 2,
                 .in_flight = 1,
                 .kind = THEMIS_SCHED_THEMIS};
    hworld_t w;
    char why[256] = "";
    themis_xfer_sched_t s;
    themis_program_t p;
    UNIT_CHECK(0 == world_init(&c, &w));
    themis_plan_request_t req = request(&c, &w, 0);
    UNIT_CHECK(THEMIS_OK == themis_xfer_hier(&req, &w.sched, &w.order, 0, &s));
    UNIT_CHECK(NULL != s.unit_off);
    uint64_t *other = malloc(w.n * sizeof(uint64_t));
    memcpy(other, w.rc, w.n * sizeof(uint64_t));
    other[0]++;
    other[1]--;
    UNIT_CHECK(THEMIS_ERR_INVALID ==
               themis_xfer_compile(&s, 0, w.total, other, 1, &p, why, sizeof(why)));
    UNIT_CHECKF(NULL != strstr(why, "cut for other counts"), "%s", why);
    UNIT_CHECK(THEMIS_ERR_INVALID ==
               themis_xfer_compile(&s, 0, w.total + 1, NULL, 1, &p, why, sizeof(why)));
    themis_xfer_slice_t sl;
    UNIT_CHECK(THEMIS_ERR_INVALID ==
               themis_xfer_hier_slice(&req, &w.sched, &w.order, w.n, &sl));
    UNIT_CHECK(NULL == sl.s.xfers && NULL == sl.tag);
    themis_xfer_free(&s); /* the refusals below reuse it */
    /* an order that names a chunk's stage on another dimension */
    themis_order_entry_t e = w.order.entries[0][0];
    w.order.entries[0][0].stage ^= 1;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_hier(&req, &w.sched, &w.order, 0, &s));
    w.order.entries[0][0] = e;
    req.dim_algo[0] = (themis_dim_algo_t) 7;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_hier(&req, &w.sched, &w.order, 0, &s));
    free(other);
    themis_xfer_free(&s);
    world_free(&w);
}

int main(void)
{
    UNIT_RUN(test_hier_themis_same_messages);
    UNIT_RUN(test_hier_baseline_same_messages);
    UNIT_RUN(test_hier_per_element);
    UNIT_RUN(test_hier_refusals);
    UNIT_EXIT();
}
