/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Plan compiler tests: every rank's program is built and all of them run
 * together in vexec (tests/unit/vexec.h) under several interleavings; the
 * outputs are compared with results computed directly from the inputs.
 * Schedules come from the real scheduler + simulator (baseline, themis;
 * FIFO, SCF) and from hand-made ones that give chunks rotated or permuted
 * dimension orders.
 */
#include <stdlib.h>
#include <string.h>

#include "plan_world.h"
#include "unit.h"
#include "vexec.h"

/* ------------------------------------------------------------ matrix */

typedef struct {
    int ndims;
    uint32_t size[3];
    const char *name;
} shape_t;

static const shape_t shapes[] = {
    {1, {2}, "2"},       {1, {3}, "3"},       {2, {2, 2}, "2x2"},      {2, {3, 2}, "3x2"},
    {2, {2, 3}, "2x3"},  {2, {4, 2}, "4x2"},  {3, {2, 2, 2}, "2x2x2"}, {3, {3, 1, 2}, "3x1x2"},
    {1, {5}, "5"},
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* Choices not swept exhaustively vary pseudo-randomly with the case id. */
static void pick_variations(plan_case_t *c, uint64_t id)
{
    uint64_t h = mix(id + 1);
    c->algo = (int)(h % 4);
    c->permuted = (int)((h >> 8) & 1);
    c->in_place = (int)((h >> 9) & 1);
    if (THEMIS_COLL_ALLGATHER == c->coll) {
        c->elem = ((h >> 10) & 1) ? ELEM_U16 : ELEM_I64_SUM;
    } else {
        c->elem = ((h >> 10) & 1) ? ELEM_I32_MAX : ELEM_I64_SUM;
    }
    c->seed = (uint32_t)(h >> 32);
}

/* Sweep counts x chunks x schedules x orders x chunks_in_flight for one shape; two
 * interleavings per case. */
static int sweep_shape(themis_coll_t coll, const shape_t *s, int quick, int *cases)
{
    static const uint32_t chunk_list[] = {1, 3, 8};
    int failures = 0;
    uint64_t id = (uint64_t)coll * 1000003 + (uint64_t)(s - shapes) * 100003;
    plan_case_t c = {.coll = coll, .ndims = s->ndims};
    memcpy(c.size, s->size, sizeof(s->size));
    uint32_t p = case_nranks(&c);
    for (int ci = 0; ci < 3; ci++) {
        uint64_t cp = chunk_list[ci] * p;
        uint64_t counts[] = {0, 1, p - 1, p, 7, 1000, cp - 1, cp + 1};
        for (size_t ni = 0; ni < sizeof(counts) / sizeof(counts[0]); ni++) {
            for (int sk = 0; sk < 4; sk++) {
                for (int v = 0; v < 8; v++, id++) {
                    if (quick && 0 != mix(id) % 16) {
                        continue;
                    }
                    c.count = counts[ni];
                    c.nchunks = chunk_list[ci];
                    c.sched = (sched_src_t)sk;
                    c.policy = (v & 1) ? THEMIS_ORDER_SCF : THEMIS_ORDER_FIFO;
                    c.chunks_in_flight = (v & 2) ? 3 : 1;
                    c.uneven = (v >> 2) & 1;
                    if (THEMIS_COLL_REDUCE_SCATTER != coll && c.uneven) {
                        continue;
                    }
                    pick_variations(&c, id);
                    for (int rep = 0; rep < 2; rep++, c.seed += 7919) {
                        char why[600], desc[300];
                        (*cases)++;
                        if (0 != run_case(&c, why, sizeof(why)) && failures++ < 3) {
                            describe(&c, desc, sizeof(desc));
                            printf("  %s: %s\n", desc, why);
                        }
                    }
                }
            }
        }
    }
    return failures;
}

static void run_matrix(int quick)
{
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    for (size_t ci = 0; ci < 3; ci++) {
        for (size_t si = 0; si < NSHAPES; si++) {
            int cases = 0;
            int failed = sweep_shape(colls[ci], &shapes[si], quick, &cases);
            printf("%s: matrix_%s_%s (%d runs%s)\n", failed ? "FAIL" : "PASS",
                   themis_coll_name(colls[ci]), shapes[si].name, cases,
                   failed ? ", see above" : "");
            unit_failed_cases += failed ? 1 : 0;
        }
    }
}

/* ------------------------------------------------------------ helpers for single cases */

static plan_case_t simple_case(themis_coll_t coll, int ndims, const uint32_t *size,
                               uint64_t count, uint32_t nchunks, int algo)
{
    plan_case_t c = {.coll = coll, .ndims = ndims, .count = count, .nchunks = nchunks,
                     .sched = SCHED_ROTATE, .policy = THEMIS_ORDER_FIFO, .chunks_in_flight = 1,
                     .algo = algo, .elem = ELEM_I64_SUM, .seed = 1};
    memcpy(c.size, size, (size_t)ndims * sizeof(uint32_t));
    return c;
}

/* world_init for single tests: on failure report, free, return -1. */
static int setup_world(world_t *w, const plan_case_t *c)
{
    char why[600];
    if (0 == world_init(w, c, why, sizeof(why))) {
        return 0;
    }
    UNIT_CHECKF(0, "setup: %s", why);
    world_free(w);
    return -1;
}

static int steps_equal(const themis_step_t *s, int sp, uint64_t so, uint64_t sc, int rp,
                       uint64_t ro, uint64_t rcnt, int mode, int after_prev, uint32_t tag)
{
    return s->send_peer == sp && s->send_off == so && s->send_count == sc && s->recv_peer == rp &&
           s->recv_off == ro && s->recv_count == rcnt && s->recv_mode == mode &&
           s->after_prev == after_prev && s->tag == tag;
}

/* ------------------------------------------------------------ explicit programs */

/* Allreduce on a ring of 4, 8 elements, rank 1: blocks of 2. */
static void test_ring_allreduce_steps(void)
{
    uint32_t size[] = {4};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 1, size, 8, 1, 0);
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    const themis_program_t *p = &w.progs[1];
    UNIT_CHECK(1 == p->nqueues && 2 == p->nops && 6 == p->nsteps && 1 == p->ncopy_in);
    if (unit_case_failed) {
        world_free(&w);
        return;
    }
    UNIT_CHECK(1 == p->work_is_output && 8 == p->work_count);
    UNIT_CHECK(1 == p->ncopy_in && 0 == p->copy_in[0].src_off && 0 == p->copy_in[0].dst_off &&
               8 == p->copy_in[0].count && 0 == p->ncopy_out);
    UNIT_CHECK(0 == p->queue_first[0] && 2 == p->queue_first[1] && 0 == p->queue_ops[0] &&
               1 == p->queue_ops[1]);
    UNIT_CHECK(0 == p->ops[0].ndeps && 1 == p->ops[1].ndeps &&
               0 == p->op_deps[p->ops[1].dep_first] && THEMIS_PHASE_AG == p->ops[1].phase);
    UNIT_CHECK(2 == p->max_recv_count && 1 == p->max_op_reduce_recvs && 1 == p->chunks_in_flight);
    /* RS: send blocks 0, 3, 2; reduce blocks 3, 2, 1 (keeps block 1). */
    const themis_step_t *s = p->steps;
    UNIT_CHECK(steps_equal(&s[0], 2, 0, 2, 0, 6, 2, THEMIS_RECV_REDUCE, 0, 0));
    UNIT_CHECK(steps_equal(&s[1], 2, 6, 2, 0, 4, 2, THEMIS_RECV_REDUCE, 1, 1));
    UNIT_CHECK(steps_equal(&s[2], 2, 4, 2, 0, 2, 2, THEMIS_RECV_REDUCE, 1, 2));
    /* AG: send blocks 1, 0, 3; copy blocks 0, 3, 2. */
    UNIT_CHECK(steps_equal(&s[3], 2, 2, 2, 0, 0, 2, THEMIS_RECV_COPY, 0, 3));
    UNIT_CHECK(steps_equal(&s[4], 2, 0, 2, 0, 6, 2, THEMIS_RECV_COPY, 1, 4));
    UNIT_CHECK(steps_equal(&s[5], 2, 6, 2, 0, 4, 2, THEMIS_RECV_COPY, 1, 5));
    world_free(&w);
}

/* Reduce-scatter over 3 ranks, direct, segments 1, 2, 3; rank 0. */
static void test_direct_reduce_scatter_steps(void)
{
    uint32_t size[] = {3};
    uint64_t rc[] = {1, 2, 3};
    plan_case_t c = simple_case(THEMIS_COLL_REDUCE_SCATTER, 1, size, 0, 1, 1);
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    themis_plan_request_t req;
    themis_program_t p;
    case_request(&w, 0, &req);
    req.recvcounts = rc;
    UNIT_CHECK(THEMIS_OK == themis_program_build_hier(&req, &w.sched, &w.order, &p));
    UNIT_CHECK(0 == p.work_is_output && 6 == p.work_count && 2 == p.nsteps);
    if (unit_case_failed) {
        themis_program_free(&p);
        world_free(&w);
        return;
    }
    UNIT_CHECK(1 == p.ncopy_in && 0 == p.copy_in[0].src_off && 6 == p.copy_in[0].count);
    UNIT_CHECK(1 == p.ncopy_out && 0 == p.copy_out[0].src_off && 0 == p.copy_out[0].dst_off &&
               1 == p.copy_out[0].count);
    UNIT_CHECK(steps_equal(&p.steps[0], 1, 1, 2, 2, 0, 1, THEMIS_RECV_REDUCE, 0, 0));
    UNIT_CHECK(steps_equal(&p.steps[1], 2, 3, 3, 1, 0, 1, THEMIS_RECV_REDUCE, 0, 1));
    UNIT_CHECK(1 == p.max_recv_count && 2 == p.max_op_reduce_recvs);
    themis_program_free(&p);
    world_free(&w);
}

/* 2x2 reduce-scatter, RS on dim 0 then dim 1: the work buffer holds the
 * segments in lexicographic (coord0, coord1) order = ranks 0, 2, 1, 3. */
static void test_reduce_scatter_layout(void)
{
    uint32_t size[] = {2, 2};
    plan_case_t c = simple_case(THEMIS_COLL_REDUCE_SCATTER, 2, size, 1, 1, 0);
    c.sched = SCHED_BASELINE;
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    const themis_program_t *p = &w.progs[3];
    static const uint64_t src[] = {0, 2, 1, 3};
    UNIT_CHECK(4 == p->ncopy_in && 4 == p->work_count);
    for (uint32_t i = 0; i < 4 && 4 == p->ncopy_in; i++) {
        UNIT_CHECK(src[i] == p->copy_in[i].src_off && i == p->copy_in[i].dst_off &&
                   1 == p->copy_in[i].count);
    }
    UNIT_CHECK(1 == p->ncopy_out && 3 == p->copy_out[0].src_off && 0 == p->copy_out[0].dst_off);
    world_free(&w);
}

/* Op numbering, deps, queues and tags follow plan.h on every rank. */
static void check_numbering(const world_t *w, const themis_program_t *p, uint32_t tstride)
{
    uint32_t ns = w->sched.nstages;
    UNIT_CHECK(p->nops == w->sched.nchunks * ns);
    for (uint32_t o = 0; o < p->nops; o++) {
        const themis_op_t *op = &p->ops[o];
        UNIT_CHECK(op->chunk == o / ns && op->ndeps == ((o % ns) ? 1u : 0u));
        UNIT_CHECK(0 == o % ns || o - 1 == p->op_deps[op->dep_first]);
        UNIT_CHECK(op->queue == w->sched.stages[o].dim && op->phase == w->sched.stages[o].phase);
        for (uint32_t i = 0; i < op->nsteps; i++) {
            UNIT_CHECK(p->steps[op->first_step + i].tag == o * tstride + i);
        }
    }
    for (int k = 0; k < w->c->ndims; k++) {
        UNIT_CHECK(p->queue_first[k + 1] - p->queue_first[k] == w->order.count[k]);
        for (uint32_t i = 0; i < w->order.count[k] && !unit_case_failed; i++) {
            const themis_order_entry_t *e = &w->order.entries[k][i];
            UNIT_CHECK(p->queue_ops[p->queue_first[k] + i] == e->chunk * ns + e->stage);
        }
    }
}

static void test_numbering_and_tags(void)
{
    uint32_t size[] = {3, 2, 4};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 3, size, 100, 3, 2);
    c.sched = SCHED_PERMUTE;
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    for (uint32_t r = 0; r < w.nranks; r++) {
        check_numbering(&w, &w.progs[r], 3); /* largest group 4: 3 steps */
    }
    world_free(&w);
}

/* Chunks of the schedule whose first-half order is not baseline's. */
static uint32_t non_baseline_chunks(const themis_schedule_t *s)
{
    uint32_t n = 0;
    int ag = (THEMIS_COLL_ALLGATHER == s->coll);
    for (uint32_t ch = 0; ch < s->nchunks; ch++) {
        const themis_stage_t *st = &s->stages[(size_t)ch * s->nstages];
        int differs = 0;
        for (int i = 0; i < s->ndims; i++) {
            differs |= st[i].dim != (ag ? s->ndims - 1 - i : i);
        }
        n += (uint32_t)differs;
    }
    return n;
}

/* The matrix's themis cases really mix dimension orders. */
static void test_themis_orders_vary(void)
{
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    for (size_t si = 0; si < NSHAPES; si++) {
        for (int ci = 0; ci < 3 && shapes[si].ndims > 1; ci++) {
            plan_case_t c = simple_case(colls[ci], shapes[si].ndims, shapes[si].size, 1000, 8, 0);
            c.sched = SCHED_THEMIS;
            world_t w;
            if (0 != setup_world(&w, &c)) {
                return;
            }
            uint32_t n = non_baseline_chunks(&w.sched);
            UNIT_CHECKF(n > 0, "%s %s: all 8 chunks baseline", themis_coll_name(colls[ci]),
                        shapes[si].name);
            world_free(&w);
        }
    }
}

/* ------------------------------------------------------------ invalid input */

typedef void (*corrupt_fn)(themis_plan_request_t *req, themis_schedule_t *s,
                           themis_intra_order_t *o);

static void bad_inflight(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    r->chunks_in_flight = 0;
}
static void bad_rank(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    r->rank = 6;
}
static void bad_dim_size(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    r->dim_size[1] = 0;
}
static void bad_coll(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    s->coll = THEMIS_COLL_ALLGATHER;
}
static void repeated_dim(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    s->stages[1].dim = s->stages[0].dim;
}
static void wrong_queue(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    themis_order_entry_t t = o->entries[0][0];
    o->entries[0][0] = o->entries[1][0];
    o->entries[1][0] = t;
}
static void missing_op(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    o->count[1]--;
}
static void bad_algo(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    r->dim_algo[0] = (themis_dim_algo_t)7;
}

static void not_permutation(themis_plan_request_t *r, themis_schedule_t *s,
                            themis_intra_order_t *o)
{
    static const int map[] = {0, 1, 2, 3, 4, 4};
    r->coord_to_rank = map;
}

/* AR stages RS d0 RS d1 AG d0 AG d1: AG does not undo RS. */
static void ag_not_reversed(themis_plan_request_t *r, themis_schedule_t *s,
                            themis_intra_order_t *o)
{
    uint8_t d = s->stages[2].dim;
    s->stages[2].dim = s->stages[3].dim;
    s->stages[3].dim = d;
    order_free(o);
    hand_order(s, 0, o);
}

static void expect_rejected(const char *what, corrupt_fn fn, themis_status_t want)
{
    uint32_t size[] = {3, 2};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 2, size, 10, 2, 0);
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    themis_plan_request_t req;
    themis_program_t p;
    case_request(&w, 1, &req);
    fn(&req, &w.sched, &w.order);
    themis_status_t st = themis_program_build_hier(&req, &w.sched, &w.order, &p);
    UNIT_CHECKF(want == st, "%s: got %s", what, themis_status_string(st));
    UNIT_CHECKF(0 == p.nops && NULL == p.ops && NULL == p.steps && NULL == p.queue_ops, "%s", what);
    themis_program_free(&p);
    world_free(&w);
}

static void test_invalid_input(void)
{
    expect_rejected("chunks_in_flight 0", bad_inflight, THEMIS_ERR_INVALID);
    expect_rejected("rank out of range", bad_rank, THEMIS_ERR_INVALID);
    expect_rejected("dimension of size 0", bad_dim_size, THEMIS_ERR_INVALID);
    expect_rejected("schedule of another collective", bad_coll, THEMIS_ERR_INVALID);
    expect_rejected("dimension twice in RS", repeated_dim, THEMIS_ERR_INVALID);
    expect_rejected("order entry on the wrong queue", wrong_queue, THEMIS_ERR_INVALID);
    expect_rejected("order missing an op", missing_op, THEMIS_ERR_INVALID);
    expect_rejected("unknown algorithm", bad_algo, THEMIS_ERR_INVALID);
    expect_rejected("coord_to_rank not a permutation", not_permutation, THEMIS_ERR_INVALID);
    expect_rejected("allreduce AG order not reverse RS", ag_not_reversed, THEMIS_ERR_UNSUPPORTED);
    themis_program_t p;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_program_build_hier(NULL, NULL, NULL, &p));
    themis_program_free(&p);
    themis_program_free(NULL);
}

static void test_reduce_scatter_needs_counts(void)
{
    uint32_t size[] = {2};
    plan_case_t c = simple_case(THEMIS_COLL_REDUCE_SCATTER, 1, size, 4, 1, 0);
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    themis_plan_request_t req;
    themis_program_t p;
    case_request(&w, 0, &req);
    req.recvcounts = NULL;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_program_build_hier(&req, &w.sched, &w.order, &p));
    world_free(&w);
}

/* ------------------------------------------------------------ the checks can fail */

/* A 2x2 allreduce, 2 chunks, baseline order, chunks_in_flight 1. */
static int negative_world(world_t *w, plan_case_t *c)
{
    uint32_t size[] = {2, 2};
    *c = simple_case(THEMIS_COLL_ALLREDUCE, 2, size, 16, 2, 0);
    c->sched = SCHED_BASELINE;
    return setup_world(w, c);
}

static void expect_vexec_error(world_t *w, const char *needle, uint32_t seeds)
{
    for (uint32_t seed = 0; seed < seeds; seed++) {
        char why[600];
        int rc = world_execute(w, seed, why, sizeof(why));
        UNIT_CHECKF(0 != rc && NULL != strstr(why, needle), "seed %u: rc %d, '%s', want '%s'",
                    seed, rc, rc ? why : "", needle);
    }
}

static void test_vexec_detects_swapped_queue(void)
{
    plan_case_t c;
    world_t w;
    if (0 != negative_world(&w, &c)) {
        return;
    }
    uint32_t *q = w.progs[0].queue_ops;
    UNIT_CHECK(0 == q[0] && 4 == q[1]); /* queue 0 starts chunk 0, then chunk 1 */
    uint32_t t = q[0];
    q[0] = q[1];
    q[1] = t;
    expect_vexec_error(&w, "deadlock", 5);
    world_free(&w);
}

static void test_vexec_detects_size_mismatch(void)
{
    plan_case_t c;
    world_t w;
    if (0 != negative_world(&w, &c)) {
        return;
    }
    w.progs[0].steps[0].recv_count--;
    expect_vexec_error(&w, "size mismatch", 5);
    world_free(&w);
}

static void test_vexec_detects_out_of_range(void)
{
    plan_case_t c;
    world_t w;
    if (0 != negative_world(&w, &c)) {
        return;
    }
    w.progs[2].steps[0].send_off = w.progs[2].work_count;
    expect_vexec_error(&w, "beyond work", 1);
    world_free(&w);
}

static void test_vexec_detects_wrong_tag(void)
{
    plan_case_t c;
    world_t w;
    if (0 != negative_world(&w, &c)) {
        return;
    }
    w.progs[1].steps[0].tag += 1000;
    expect_vexec_error(&w, "deadlock", 5);
    world_free(&w);
}

/* Runs case c under 20 seeds with `mutate` applied to every step of every
 * rank; returns how many seeds exposed the mutation (an execution error or
 * a wrong result), or -1 when the world cannot be set up. */
static int seeds_exposing(const plan_case_t *c, void (*mutate)(themis_step_t *))
{
    int detected = 0;
    for (uint32_t seed = 0; seed < 20; seed++) {
        world_t w;
        char why[600];
        if (0 != setup_world(&w, c)) {
            return -1;
        }
        for (uint32_t r = 0; r < w.nranks; r++) {
            for (uint32_t i = 0; i < w.progs[r].nsteps; i++) {
                mutate(&w.progs[r].steps[i]);
            }
        }
        detected += (0 != world_execute(&w, seed, why, sizeof(why)) ||
                     0 != world_check(&w, why, sizeof(why)));
        world_free(&w);
    }
    return detected;
}

static void unchain(themis_step_t *st)
{
    st->after_prev = 0;
}

/* Ring steps that forward what they just reduced must be chained. */
static void test_vexec_detects_unchained_ring(void)
{
    uint32_t size[] = {4};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 1, size, 8, 1, 0);
    int detected = seeds_exposing(&c, unchain);
    if (detected < 0) {
        return;
    }
    UNIT_CHECKF(detected > 0, "no interleaving exposed the missing chaining");
}

/* BIRING on groups of 2..5 members (2: both directions link the same pair
 * with distinct tags), every collective, uneven counts, several seeds. */
static void test_biring(void)
{
    static const shape_t bshapes[] = {
        {1, {2}, "2"}, {1, {3}, "3"}, {1, {4}, "4"}, {1, {5}, "5"},
        {2, {5, 2}, "5x2"}, {2, {3, 4}, "3x4"}, {3, {2, 3, 2}, "2x3x2"},
    };
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    for (size_t si = 0; si < sizeof(bshapes) / sizeof(bshapes[0]); si++) {
        for (size_t ci = 0; ci < 3; ci++) {
            uint64_t counts[] = {0, 1, 3, 7, 101};
            for (size_t ni = 0; ni < sizeof(counts) / sizeof(counts[0]); ni++) {
                plan_case_t c = simple_case(colls[ci], bshapes[si].ndims, bshapes[si].size,
                                            counts[ni], 1 + (uint32_t)ni % 3, 3);
                c.sched = (sched_src_t)(ni % 4);
                c.uneven = (THEMIS_COLL_REDUCE_SCATTER == colls[ci]) ? (int)(ni & 1) : 0;
                c.chunks_in_flight = 1 + (uint32_t)(ni & 1) * 2;
                c.permuted = (int)(si & 1);
                for (uint32_t seed = 0; seed < 4; seed++) {
                    char why[600];
                    c.seed = seed * 7919 + (uint32_t)si;
                    int rc = run_case(&c, why, sizeof(why));
                    UNIT_CHECKF(0 == rc, "%s %s count %llu seed %u: %s", bshapes[si].name,
                                themis_coll_name(colls[ci]), (unsigned long long)counts[ni],
                                c.seed, why);
                }
            }
        }
    }
}

/* BIRING ops: 2(p-1) steps alternating chains 0/1, forward to the next
 * member and backward to the previous, tags numbered by the stride 2(p-1). */
static void test_biring_steps(void)
{
    uint32_t size[] = {4, 3};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 2, size, 96, 2, 3);
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    for (uint32_t r = 0; r < w.nranks; r++) {
        const themis_program_t *p = &w.progs[r];
        check_numbering(&w, p, 6);
        for (uint32_t o = 0; o < p->nops; o++) {
            const themis_op_t *op = &p->ops[o];
            uint32_t gp = size[op->queue];
            UNIT_CHECK(op->nsteps == 2 * (gp - 1));
            for (uint32_t i = 0; i < op->nsteps; i++) {
                const themis_step_t *st = &p->steps[op->first_step + i];
                UNIT_CHECK(st->chain == i % 2 && st->after_prev == (i >= 2));
                /* both directions: forward send = backward receive peer */
                if (1 == i % 2) {
                    const themis_step_t *f = st - 1;
                    UNIT_CHECK(st->send_peer == f->recv_peer && st->recv_peer == f->send_peer);
                }
            }
        }
    }
    world_free(&w);
}

/* Chaining a BIRING direction to the other direction's previous step (all
 * steps on chain 0) lets a step forward a half block before it arrived. */
static void one_chain(themis_step_t *st)
{
    st->chain = 0;
}

static void test_vexec_detects_biring_cross_chain(void)
{
    uint32_t size[] = {5};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 1, size, 40, 1, 3);
    int detected = seeds_exposing(&c, one_chain);
    if (detected < 0) {
        return;
    }
    UNIT_CHECKF(detected > 0, "no interleaving exposed the cross-chain waits");
}

/* A COPY where a REDUCE belongs runs fine but gives a wrong sum. */
static void test_check_detects_wrong_result(void)
{
    plan_case_t c;
    world_t w;
    char why[600];
    if (0 != negative_world(&w, &c)) {
        return;
    }
    w.progs[3].steps[0].recv_mode = THEMIS_RECV_COPY;
    UNIT_CHECKF(0 == world_execute(&w, 3, why, sizeof(why)), "%s", why);
    UNIT_CHECK(0 != world_check(&w, why, sizeof(why)));
    world_free(&w);
}

/* Direct RS posts p-1 REDUCE receives at once: vexec holds the program to
 * its declared temp count. */
static void test_vexec_enforces_temp_count(void)
{
    uint32_t size[] = {4};
    plan_case_t c = simple_case(THEMIS_COLL_REDUCE_SCATTER, 1, size, 3, 1, 1);
    world_t w;
    int detected = 0;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    UNIT_CHECK(3 == w.progs[0].max_op_reduce_recvs);
    for (uint32_t r = 0; r < w.nranks; r++) {
        w.progs[r].max_op_reduce_recvs = 1;
    }
    for (uint32_t seed = 0; seed < 5; seed++) {
        char why[600];
        detected += (0 != world_execute(&w, seed, why, sizeof(why)) &&
                     NULL != strstr(why, "REDUCE receives outstanding"));
    }
    UNIT_CHECKF(detected > 0, "never more than one REDUCE receive outstanding");
    world_free(&w);
}

int main(int argc, char **argv)
{
    int quick = (argc > 1 && 0 == strcmp(argv[1], "--quick"));
    UNIT_RUN(test_ring_allreduce_steps);
    UNIT_RUN(test_biring);
    UNIT_RUN(test_biring_steps);
    UNIT_RUN(test_vexec_detects_biring_cross_chain);
    UNIT_RUN(test_direct_reduce_scatter_steps);
    UNIT_RUN(test_reduce_scatter_layout);
    UNIT_RUN(test_numbering_and_tags);
    UNIT_RUN(test_themis_orders_vary);
    UNIT_RUN(test_invalid_input);
    UNIT_RUN(test_reduce_scatter_needs_counts);
    UNIT_RUN(test_vexec_detects_swapped_queue);
    UNIT_RUN(test_vexec_detects_size_mismatch);
    UNIT_RUN(test_vexec_detects_out_of_range);
    UNIT_RUN(test_vexec_detects_wrong_tag);
    UNIT_RUN(test_vexec_detects_unchained_ring);
    UNIT_RUN(test_check_detects_wrong_result);
    UNIT_RUN(test_vexec_enforces_temp_count);
    run_matrix(quick);
    UNIT_EXIT();
}
