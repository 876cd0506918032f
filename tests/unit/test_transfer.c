/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Transfer schedules (planners/schedule/transfer.h): the check accepts correct
 * schedules and names what is wrong with broken ones; compiled programs
 * compute the collective under many interleavings (vexec).
 */
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "transfer.h"
#include "unit.h"
#include "vexec.h"
#include "xfer_run.h"
#include "xfer_ring.h"
#include "xfer_tracker.h"
#include "hamiltonian.h"

static uint32_t add(themis_xfer_sched_t *s, uint32_t src, uint32_t dst, int kind, int sb,
                    uint64_t so, int db, uint64_t dof, uint64_t n, const uint32_t *deps,
                    uint32_t nd)
{
    themis_xfer_t x = {.src = src, .dst = dst, .kind = (uint8_t)kind, .src_buf = (uint8_t)sb,
                       .dst_buf = (uint8_t)db, .src_off = so, .dst_off = dof, .count = n};
    uint32_t idx = UINT32_MAX;
    UNIT_CHECK(THEMIS_OK == themis_xfer_add(s, &x, deps, nd, &idx));
    return idx;
}

enum { IN = THEMIS_BUF_INPUT, OUT = THEMIS_BUF_OUTPUT, SCR = THEMIS_BUF_SCRATCH };
enum { CP = THEMIS_XFER_COPY, RED = THEMIS_XFER_REDUCE };

/*
 * Binary-tree allreduce of `units` pipelined units, root 0: each rank
 * copies its input to its output; children's partial sums land in scratch
 * slots (one per child, so they arrive concurrently); local reduces fold
 * them in, and the send to the parent waits for all of them (a join);
 * then the result goes down the tree.
 */
static void tree_allreduce(themis_xfer_sched_t *s, uint32_t p, uint32_t units)
{
    themis_xfer_init(s, THEMIS_COLL_ALLREDUCE, p, units);
    s->buf_units[IN] = units;
    s->buf_units[OUT] = units;
    s->buf_units[SCR] = 2 * units;
    uint32_t *init = calloc(p, sizeof(*init)), *up = calloc((size_t)p * units, sizeof(*up));
    uint32_t *down = calloc((size_t)p * units, sizeof(*down));
    for (uint32_t r = 0; r < p; r++) {
        init[r] = add(s, r, r, CP, IN, 0, OUT, 0, units, NULL, 0);
    }
    /* Children have higher ranks than parents: go up from the last rank. */
    for (uint32_t r = p; r-- > 0;) {
        for (uint32_t j = 0; j < units; j++) {
            uint32_t last = init[r], deps[3];
            for (uint32_t c = 0; c < 2; c++) {
                uint32_t child = 2 * r + 1 + c;
                if (child >= p) {
                    continue;
                }
                uint32_t d0 = up[child * units + j];
                uint32_t got = add(s, child, r, CP, OUT, j, SCR, c * units + j, 1, &d0, 1);
                deps[0] = got;
                deps[1] = last;
                last = add(s, r, r, RED, SCR, c * units + j, OUT, j, 1, deps, 2);
            }
            up[r * units + j] = last;
        }
    }
    for (uint32_t r = 0; r < p; r++) {
        for (uint32_t j = 0; j < units; j++) {
            uint32_t have = 0 == r ? up[j] : down[r * units + j];
            for (uint32_t c = 0; c < 2; c++) {
                uint32_t child = 2 * r + 1 + c;
                if (child < p) {
                    /* The child's output unit was last read by its send up. */
                    uint32_t deps[2] = {have, up[child * units + j]};
                    down[child * units + j] = add(s, r, child, CP, OUT, j, OUT, j, 1, deps, 2);
                }
            }
        }
    }
    free(init);
    free(up);
    free(down);
}

/* Direct allgather: own block locally, then everyone sends it to all. */
static void direct_allgather(themis_xfer_sched_t *s, uint32_t p, uint32_t k)
{
    themis_xfer_init(s, THEMIS_COLL_ALLGATHER, p, p * k);
    s->buf_units[IN] = k;
    s->buf_units[OUT] = (uint64_t)p * k;
    for (uint32_t r = 0; r < p; r++) {
        add(s, r, r, CP, IN, 0, OUT, r * k, k, NULL, 0);
    }
    for (uint32_t d = 1; d < p; d++) {
        for (uint32_t r = 0; r < p; r++) {
            add(s, r, (r + d) % p, CP, IN, 0, OUT, r * k, k, NULL, 0);
        }
    }
}

/* Direct reduce-scatter: block q of every input to rank q's scratch slot,
 * folded into the output by a chain of local reduces. */
static void direct_reduce_scatter(themis_xfer_sched_t *s, uint32_t p)
{
    themis_xfer_init(s, THEMIS_COLL_REDUCE_SCATTER, p, p);
    s->buf_units[IN] = p;
    s->buf_units[OUT] = 1;
    s->buf_units[SCR] = p;
    uint32_t *recv = calloc((size_t)p * p, sizeof(*recv)), *last = calloc(p, sizeof(*last));
    for (uint32_t r = 0; r < p; r++) {
        last[r] = add(s, r, r, CP, IN, r, OUT, 0, 1, NULL, 0);
    }
    for (uint32_t d = 1; d < p; d++) {
        for (uint32_t r = 0; r < p; r++) {
            uint32_t q = (r + d) % p;
            recv[q * p + r] = add(s, r, q, CP, IN, q, SCR, r, 1, NULL, 0);
        }
    }
    for (uint32_t d = 1; d < p; d++) {
        for (uint32_t q = 0; q < p; q++) {
            uint32_t r = (q + p - d) % p, deps[2] = {recv[q * p + r], last[q]};
            last[q] = add(s, q, q, RED, SCR, r, OUT, 0, 1, deps, 2);
        }
    }
    free(recv);
    free(last);
}

static void test_tree_allreduce_joins(void)
{
    themis_xfer_sched_t s;
    tree_allreduce(&s, 7, 3);
    xfer_run_schedule(&s, 3 * 5, 2, 30);
    /* Joins reach the program: a send up waits for the local reduce of
     * both children's data and nothing else on that queue blocks it. */
    themis_program_t p;
    char why[128];
    UNIT_CHECK(THEMIS_OK == themis_xfer_compile(&s, 1, 3, NULL, 1, &p, why, sizeof(why)));
    uint32_t joins = 0;
    for (uint32_t o = 0; o < p.nops; o++) {
        joins += p.ops[o].ndeps >= 2;
    }
    UNIT_CHECK(joins >= 3);
    themis_program_free(&p);
    themis_xfer_free(&s);
    tree_allreduce(&s, 2, 1);
    xfer_run_schedule(&s, 4, 1, 10);
    themis_xfer_free(&s);
}

static void test_direct_allgather(void)
{
    themis_xfer_sched_t s;
    direct_allgather(&s, 5, 2);
    xfer_run_schedule(&s, 5 * 2 * 3, 1, 20);
    xfer_run_schedule(&s, 5 * 2, 8, 20);
    themis_xfer_free(&s);
}

static void test_direct_reduce_scatter(void)
{
    themis_xfer_sched_t s;
    direct_reduce_scatter(&s, 4);
    xfer_run_schedule(&s, 4 * 3, 2, 20);
    themis_xfer_free(&s);
}

/* planners/schedule/xfer_ring.c's rings pass the check and compute their
 * collective, in identity and shuffled rank orders. */
static void test_rings(void)
{
    static const uint32_t order5[5] = {3, 0, 4, 2, 1};
    for (uint32_t p = 1; p <= 6; p++) {
        for (int c = 0; c < 3; c++) {
            themis_xfer_sched_t s;
            UNIT_CHECK(THEMIS_OK == themis_xfer_ring((themis_coll_t)c, p, NULL, &s));
            xfer_run_schedule(&s, (uint64_t)p * 3, 1 + p % 3, 8);
            themis_xfer_free(&s);
        }
    }
    themis_xfer_sched_t s;
    UNIT_CHECK(THEMIS_OK == themis_xfer_ring(THEMIS_COLL_ALLREDUCE, 5, order5, &s));
    xfer_run_schedule(&s, 10, 2, 20);
    themis_xfer_free(&s);
}

/* themis_xfer_sort: a topological key reorders the list (ties keep the
 * old order) and renumbers dependencies, so the schedule still passes and
 * computes the sum; a key that puts a dependency after its transfer is
 * refused and leaves the list as it was. */
static void test_sort(void)
{
    themis_xfer_sched_t s;
    tree_allreduce(&s, 7, 3);
    uint64_t *key = calloc(s.nxfers, sizeof(*key));
    /* Depth in the dependency graph, deepest last. */
    for (uint32_t i = 0; i < s.nxfers; i++) {
        for (uint32_t d = 0; d < s.xfers[i].ndeps; d++) {
            uint64_t k = key[s.deps[s.xfers[i].dep_first + d]] + 1;
            key[i] = k > key[i] ? k : key[i];
        }
    }
    uint64_t h = themis_xfer_hash(&s);
    UNIT_CHECK(THEMIS_OK == themis_xfer_sort(&s, key));
    UNIT_CHECK(themis_xfer_hash(&s) != h);
    for (uint32_t i = 1; i < 7; i++) {
        /* The 7 input copies (depth 0) stay first, in rank order. */
        UNIT_CHECK(s.xfers[i].src == i && s.xfers[i].dst == i && 0 == s.xfers[i].ndeps);
    }
    char why[160];
    UNIT_CHECKF(THEMIS_OK == themis_xfer_check(&s, why, sizeof(why)), "%s", why);
    xfer_run_schedule(&s, 3 * 5, 2, 30);
    for (uint32_t i = 0; i < s.nxfers; i++) {
        key[i] = s.nxfers - i;
    }
    h = themis_xfer_hash(&s);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_sort(&s, key));
    UNIT_CHECK(themis_xfer_hash(&s) == h);
    free(key);
    themis_xfer_free(&s);
}

static void test_hash_stable(void)
{
    themis_xfer_sched_t a, b;
    tree_allreduce(&a, 5, 2);
    tree_allreduce(&b, 5, 2);
    UNIT_CHECK(themis_xfer_hash(&a) == themis_xfer_hash(&b));
    b.xfers[3].dst_off ^= 1;
    UNIT_CHECK(themis_xfer_hash(&a) != themis_xfer_hash(&b));
    themis_xfer_free(&a);
    themis_xfer_free(&b);
}

/* The check's message for a broken schedule contains `needle`. */
static void expect_bad(const themis_xfer_sched_t *s, const char *needle)
{
    char why[256] = "";
    themis_status_t st = themis_xfer_check(s, why, sizeof(why));
    UNIT_CHECKF(THEMIS_OK != st && NULL != strstr(why, needle), "want '%s', got '%s'", needle,
                why);
}

static void test_check_rejects(void)
{
    themis_xfer_sched_t s;
    uint32_t d;

    /* Two reductions into one unit that nothing orders: a race. */
    themis_xfer_init(&s, THEMIS_COLL_ALLREDUCE, 3, 1);
    s.buf_units[IN] = s.buf_units[OUT] = 1;
    d = add(&s, 0, 0, CP, IN, 0, OUT, 0, 1, NULL, 0);
    add(&s, 1, 0, RED, IN, 0, OUT, 0, 1, &d, 1);
    add(&s, 2, 0, RED, IN, 0, OUT, 0, 1, &d, 1);
    expect_bad(&s, "race");
    themis_xfer_free(&s);

    /* Reading the output before anyone wrote it. */
    themis_xfer_init(&s, THEMIS_COLL_ALLREDUCE, 2, 1);
    s.buf_units[IN] = s.buf_units[OUT] = 1;
    add(&s, 0, 1, CP, OUT, 0, OUT, 0, 1, NULL, 0);
    expect_bad(&s, "nobody wrote");
    themis_xfer_free(&s);

    /* Adding rank 0's data twice. */
    themis_xfer_init(&s, THEMIS_COLL_ALLREDUCE, 2, 1);
    s.buf_units[IN] = 1;
    s.result_buf = THEMIS_BUF_INPUT;
    d = add(&s, 0, 1, RED, IN, 0, IN, 0, 1, NULL, 0);
    add(&s, 0, 1, RED, IN, 0, IN, 0, 1, &d, 1);
    expect_bad(&s, "twice");
    themis_xfer_free(&s);

    /* Reducing block 1 into block 0. */
    themis_xfer_init(&s, THEMIS_COLL_ALLREDUCE, 2, 2);
    s.buf_units[IN] = 2;
    s.result_buf = THEMIS_BUF_INPUT;
    add(&s, 0, 1, RED, IN, 1, IN, 0, 1, NULL, 0);
    expect_bad(&s, "reduces block 1 into block 0");
    themis_xfer_free(&s);

    /* An incomplete allreduce: rank 0 never gets rank 1's data. */
    themis_xfer_init(&s, THEMIS_COLL_ALLREDUCE, 2, 1);
    s.buf_units[IN] = 1;
    s.result_buf = THEMIS_BUF_INPUT;
    add(&s, 0, 1, RED, IN, 0, IN, 0, 1, NULL, 0);
    expect_bad(&s, "rank 0 ends with a partial sum");
    themis_xfer_free(&s);

    /* A dependency on a later transfer, and on itself. */
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 2, 2);
    s.buf_units[IN] = 1;
    s.buf_units[OUT] = 2;
    d = 1;
    add(&s, 0, 0, CP, IN, 0, OUT, 0, 1, &d, 1);
    add(&s, 1, 1, CP, IN, 0, OUT, 1, 1, NULL, 0);
    expect_bad(&s, "not earlier in the list");
    themis_xfer_free(&s);

    /* Units outside a buffer, a local copy onto itself, a wrong shape. */
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 2, 2);
    s.buf_units[IN] = 1;
    s.buf_units[OUT] = 2;
    add(&s, 0, 1, CP, IN, 0, OUT, 2, 1, NULL, 0);
    expect_bad(&s, "outside the buffers");
    s.xfers[0] = (themis_xfer_t){.src = 0, .dst = 0, .src_buf = OUT, .dst_buf = OUT,
                                 .src_off = 0, .dst_off = 1, .count = 2};
    s.buf_units[OUT] = 3;
    expect_bad(&s, "needs an input of 1 units per rank");
    s.buf_units[OUT] = 2;
    s.xfers[0].count = 1;
    s.xfers[0].dst_off = 0;
    expect_bad(&s, "overlaps itself");
    themis_xfer_free(&s);

    /* An allgather that reduces. */
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 2, 2);
    s.buf_units[IN] = 1;
    s.buf_units[OUT] = 2;
    d = add(&s, 1, 1, CP, IN, 0, OUT, 0, 1, NULL, 0);
    add(&s, 0, 1, RED, IN, 0, OUT, 0, 1, &d, 1);
    expect_bad(&s, "only moves data");
    themis_xfer_free(&s);
}

static void test_compile_rejects(void)
{
    themis_xfer_sched_t s;
    themis_program_t p;
    char why[128] = "";
    uint64_t counts[3] = {2, 2, 1};
    direct_allgather(&s, 3, 2);
    UNIT_CHECK(THEMIS_ERR_INVALID
               == themis_xfer_compile(&s, 0, 7, NULL, 1, &p, why, sizeof(why)));
    UNIT_CHECK(NULL != strstr(why, "allgather"));
    UNIT_CHECK(THEMIS_ERR_INVALID
               == themis_xfer_compile(&s, 0, 6, counts, 1, &p, why, sizeof(why)));
    UNIT_CHECK(NULL != strstr(why, "the blocks have 5 elements, the call 6"));
    UNIT_CHECK(THEMIS_ERR_UNSUPPORTED
               == themis_xfer_compile(&s, 0, 0, NULL, 1, &p, why, sizeof(why)));
    UNIT_CHECK(THEMIS_ERR_INVALID
               == themis_xfer_compile(&s, 3, 6, NULL, 1, &p, why, sizeof(why)));
    UNIT_CHECK(THEMIS_ERR_INVALID
               == themis_xfer_compile(&s, 0, 6, NULL, 0, &p, why, sizeof(why)));
    themis_xfer_free(&s);
}

static void expect_layout(const themis_xfer_sched_t *s, uint64_t total, const uint64_t *counts,
                          const uint64_t *want)
{
    uint64_t off[16];
    char why[128] = "";
    UNIT_CHECKF(THEMIS_OK == themis_xfer_layout(s, total, counts, off, why, sizeof(why)), "%s",
                why);
    for (uint32_t g = 0; g <= s->nunits; g++) {
        UNIT_CHECKF(off[g] == want[g], "%s of %llu: unit %u at %llu, want %llu",
                    themis_coll_name(s->coll), (unsigned long long)total, g,
                    (unsigned long long)off[g], (unsigned long long)want[g]);
    }
}

/* Unit layouts, offsets worked out by hand: uneven units differ by one
 * element within a block (the first ones larger), blocks smaller than
 * their units leave empty units. */
static void test_layout(void)
{
    themis_xfer_sched_t s;
    themis_xfer_init(&s, THEMIS_COLL_ALLREDUCE, 2, 4);
    expect_layout(&s, 10, NULL, (const uint64_t[]){0, 3, 6, 8, 10});
    expect_layout(&s, 8, NULL, (const uint64_t[]){0, 2, 4, 6, 8});
    expect_layout(&s, 2, NULL, (const uint64_t[]){0, 1, 2, 2, 2});
    themis_xfer_init(&s, THEMIS_COLL_REDUCE_SCATTER, 3, 6);
    expect_layout(&s, 7, (const uint64_t[]){5, 0, 2}, (const uint64_t[]){0, 3, 5, 5, 5, 6, 7});
    expect_layout(&s, 7, NULL, (const uint64_t[]){0, 2, 3, 4, 5, 6, 7});
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 2, 4);
    expect_layout(&s, 6, NULL, (const uint64_t[]){0, 2, 3, 5, 6});
    expect_layout(&s, 2, NULL, (const uint64_t[]){0, 1, 1, 2, 2});
    uint64_t off[8];
    char why[128] = "";
    themis_xfer_init(&s, THEMIS_COLL_REDUCE_SCATTER, 4, 6);
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_xfer_layout(&s, 8, NULL, off, why, sizeof(why)));
}

/* A schedule without transfers, buffers of bufs[IN, OUT, SCR] units. */
static void empty_schedule(themis_xfer_sched_t *s, themis_coll_t coll, uint32_t p, uint32_t units,
                           const uint64_t *bufs)
{
    themis_xfer_init(s, coll, p, units);
    memcpy(s->buf_units, bufs, sizeof(s->buf_units));
}

/*
 * Allreduce on 2 ranks over 4 units through 2 scratch units used twice:
 * rank 1 sends output units 0..1, then 2..3, into rank 0's scratch 0..1,
 * which folds each pair into its output; rank 0 sends the result back.
 * At 6 elements (units 2, 2, 1, 1) scratch units are 2 elements and the
 * second pair (1 + 1) is not contiguous there: two messages.
 */
static void test_uneven_scratch(void)
{
    themis_xfer_sched_t s;
    themis_program_t p;
    char why[128] = "";
    empty_schedule(&s, THEMIS_COLL_ALLREDUCE, 2, 4, (const uint64_t[]){4, 4, 2});
    uint32_t t0 = add(&s, 0, 0, CP, IN, 0, OUT, 0, 4, NULL, 0);
    uint32_t t1 = add(&s, 1, 1, CP, IN, 0, OUT, 0, 4, NULL, 0);
    uint32_t t2 = add(&s, 1, 0, CP, OUT, 0, SCR, 0, 2, &t1, 1);
    uint32_t t3 = add(&s, 0, 0, RED, SCR, 0, OUT, 0, 2, (const uint32_t[]){t0, t2}, 2);
    uint32_t t4 = add(&s, 1, 0, CP, OUT, 2, SCR, 0, 2, (const uint32_t[]){t1, t3}, 2);
    uint32_t t5 = add(&s, 0, 0, RED, SCR, 0, OUT, 2, 2, (const uint32_t[]){t0, t4}, 2);
    add(&s, 0, 1, CP, OUT, 0, OUT, 0, 4, (const uint32_t[]){t3, t5}, 2);
    for (uint64_t total = 1; total <= 13; total++) {
        xfer_run_schedule(&s, total, 1 + total % 2, 6);
    }
    UNIT_CHECK(THEMIS_OK == themis_xfer_compile(&s, 0, 6, NULL, 1, &p, why, sizeof(why)));
    /* Input 0..5, output 6..11, scratch units at 12 and 14. */
    UNIT_CHECK(16 == p.work_count);
    UNIT_CHECK(1 == p.ncopy_in && 0 == p.copy_in[0].dst_off && 6 == p.copy_in[0].count);
    UNIT_CHECK(1 == p.ncopy_out && 6 == p.copy_out[0].src_off && 6 == p.copy_out[0].count);
    const themis_op_t *first = &p.ops[1], *second = &p.ops[3];   /* t2, t4 (no t1) */
    UNIT_CHECK(t2 == first->chunk && 1 == first->nsteps);
    UNIT_CHECK(12 == p.steps[first->first_step].recv_off
               && 4 == p.steps[first->first_step].recv_count);
    UNIT_CHECK(t4 == second->chunk && 2 == second->nsteps);
    const themis_step_t *a = &p.steps[second->first_step], *b = a + 1;
    UNIT_CHECK(12 == a->recv_off && 1 == a->recv_count && 0 == a->after_prev);
    UNIT_CHECK(14 == b->recv_off && 1 == b->recv_count && 1 == b->after_prev);
    UNIT_CHECK(t4 == a->tag && t4 == b->tag && 1 == a->recv_peer && 1 == b->recv_peer);
    /* The local reduce of the second pair: scratch 12 -> output 8, 14 -> 9. */
    const themis_op_t *fold = &p.ops[4];
    UNIT_CHECK(t5 == fold->chunk && 2 == fold->nsteps);
    UNIT_CHECK(12 == p.steps[fold->first_step].send_off
               && 10 == p.steps[fold->first_step].recv_off);
    UNIT_CHECK(14 == p.steps[fold->first_step + 1].send_off
               && 11 == p.steps[fold->first_step + 1].recv_off);
    themis_program_free(&p);
    /* At 8 elements every unit is 2: one message each. */
    UNIT_CHECK(THEMIS_OK == themis_xfer_compile(&s, 0, 8, NULL, 1, &p, why, sizeof(why)));
    UNIT_CHECK(p.nsteps == p.nops && 8 + 8 + 4 == p.work_count);
    themis_program_free(&p);
    themis_xfer_free(&s);
}

/* An allgather that parks unit 0 in output unit 1 of rank 1 on its way:
 * where unit 0 is the larger one (3 elements per rank: units 2, 1, 2, 1)
 * output unit 1 grows to 2 elements and the result leaves in two copies. */
static void test_parked_unit(void)
{
    themis_xfer_sched_t s;
    themis_program_t p;
    char why[160] = "";
    empty_schedule(&s, THEMIS_COLL_ALLGATHER, 2, 4, (const uint64_t[]){2, 4, 0});
    uint32_t t0 = add(&s, 0, 1, CP, IN, 0, OUT, 1, 1, NULL, 0);
    uint32_t t1 = add(&s, 1, 1, CP, OUT, 1, OUT, 0, 1, &t0, 1);
    add(&s, 0, 1, CP, IN, 1, OUT, 1, 1, &t1, 1);
    add(&s, 1, 1, CP, IN, 0, OUT, 2, 2, NULL, 0);
    add(&s, 1, 0, CP, IN, 0, OUT, 2, 2, NULL, 0);
    add(&s, 0, 0, CP, IN, 0, OUT, 0, 2, NULL, 0);
    for (uint64_t count = 1; count <= 5; count++) {
        xfer_run_schedule(&s, 2 * count, 1 + count % 2, 6);
    }
    UNIT_CHECKF(THEMIS_OK == themis_xfer_compile(&s, 1, 6, NULL, 1, &p, why, sizeof(why)), "%s",
                why);
    /* Input 0..2; output units at 3 (2), 5 (2, holds 1), 7 (2), 9 (1). */
    UNIT_CHECK(10 == p.work_count);
    UNIT_CHECK(1 == p.ncopy_in && 0 == p.copy_in[0].src_off && 0 == p.copy_in[0].dst_off
               && 3 == p.copy_in[0].count);
    UNIT_CHECK(2 == p.ncopy_out);
    UNIT_CHECK(3 == p.copy_out[0].src_off && 0 == p.copy_out[0].dst_off
               && 3 == p.copy_out[0].count);
    UNIT_CHECK(7 == p.copy_out[1].src_off && 3 == p.copy_out[1].dst_off
               && 3 == p.copy_out[1].count);
    themis_program_free(&p);
    themis_xfer_free(&s);
}

/* Counts the units do not divide, down to fewer elements than units and
 * reduce-scatters with unequal (and empty) blocks. */
static void test_any_count(void)
{
    themis_xfer_sched_t s;
    tree_allreduce(&s, 7, 3);
    for (uint64_t total = 1; total <= 8; total++) {
        xfer_run_schedule(&s, total, 2, 6);
    }
    xfer_run_schedule(&s, 3 * 5 + 1, 1, 10);
    themis_xfer_free(&s);
    direct_allgather(&s, 5, 2);
    xfer_run_schedule(&s, 5 * 3, 1, 10);
    xfer_run_schedule(&s, 5 * 1, 2, 10);
    themis_xfer_free(&s);
    direct_reduce_scatter(&s, 5);
    xfer_run_counts(&s, 13, (const uint64_t[]){3, 0, 1, 7, 2}, 2, 10);
    xfer_run_schedule(&s, 13, 1, 10);
    xfer_run_schedule(&s, 3, 1, 10);
    themis_xfer_free(&s);
    for (int c = 0; c < 3; c++) {
        UNIT_CHECK(THEMIS_OK == themis_xfer_ring((themis_coll_t)c, 4, NULL, &s));
        xfer_run_schedule(&s, 4 * 5 + (THEMIS_COLL_ALLGATHER == c ? 0 : 3), 2, 8);
        if (THEMIS_COLL_REDUCE_SCATTER == c) {
            xfer_run_counts(&s, 9, (const uint64_t[]){0, 5, 1, 3}, 1, 8);
        }
        themis_xfer_free(&s);
    }
}

/* What compiling reads of the schedule for a rank, kept across calls
 * (themis_xfer_compile_with): the same programs as compiling afresh, for
 * other counts and, made again, for another rank. */
static void test_rank_deps_reused(void)
{
    themis_xfer_sched_t s;
    themis_xfer_rank_deps_t deps;
    char why[128];
    tree_allreduce(&s, 7, 3);
    memset(&deps, 0, sizeof(deps));
    for (int r = 0; r < 7; r += 3) {
        for (uint64_t total = 1; total <= 40; total += 13) {
            themis_program_t a, b;
            UNIT_CHECK(THEMIS_OK == themis_xfer_compile(&s, r, total, NULL, 2, &a, why,
                                                        sizeof(why)));
            UNIT_CHECK(THEMIS_OK == themis_xfer_compile_with(&s, r, total, NULL, 2, &deps, &b,
                                                             why, sizeof(why)));
            UNIT_CHECK(deps.valid && (uint32_t) r == deps.rank);
            UNIT_CHECK(themis_program_hash(&a) == themis_program_hash(&b) && 0 < a.nop_deps);
            themis_program_free(&a);
            themis_program_free(&b);
        }
    }
    themis_xfer_rank_deps_free(&deps);
    themis_xfer_free(&s);
}

/* A schedule and its tracker copied mid-way go on as the original does
 * (TACOS' allreduce forms share their reduce-scatter part so): the same
 * dependencies, the readers and writers seen before the copy included,
 * and neither copy touches the other. */
/* reads and writes over the same units, so that later transfers wait for
 * earlier readers (the pool) and writers: src, dst, src buffer and unit,
 * dst buffer (unit 0), count */
static const uint32_t tracker_steps_list[9][6] = {
    {0, 1, IN, 0, SCR, 2},  {1, 2, IN, 1, SCR, 1},  {2, 0, IN, 2, SCR, 1},
    {1, 1, SCR, 0, IN, 2},  {0, 1, IN, 1, SCR, 1},  {2, 1, IN, 0, OUT, 3},
    {1, 0, IN, 0, OUT, 2},  {1, 2, OUT, 0, SCR, 1}, {0, 0, OUT, 0, IN, 2},
};

/* The schedule tracker_steps_list fits: 3 ranks, 4 units. */
static void tracker_sched(themis_xfer_sched_t *s)
{
    themis_xfer_init(s, THEMIS_COLL_ALLGATHER, 3, 4);
    s->buf_units[IN] = 4;
    s->buf_units[OUT] = 4;
    s->buf_units[SCR] = 2;
}

static void tracker_steps(themis_xfer_tracker_t *tr, int from, int to)
{
    for (int i = from; i < to; ++i) {
        const uint32_t *t = tracker_steps_list[i];
        UNIT_CHECK(THEMIS_OK == themis_xfer_tracker_add(tr, t[0], t[1], THEMIS_XFER_COPY,
                                                        (uint8_t) t[2], t[3], (uint8_t) t[4],
                                                        0, t[5]));
    }
}

static void test_tracker_copy(void)
{
    for (int cut = 0; cut <= 9; ++cut) {
        themis_xfer_sched_t s, c;
        themis_xfer_tracker_t tr, tc;
        tracker_sched(&s);
        s.unit_off = malloc(5 * sizeof(*s.unit_off));
        for (uint32_t g = 0; g <= 4; ++g) {
            s.unit_off[g] = 3 * g;
        }
        UNIT_CHECK(THEMIS_OK == themis_xfer_tracker_init(&tr, &s));
        tracker_steps(&tr, 0, cut);
        UNIT_CHECK(THEMIS_OK == themis_xfer_copy(&s, &c));
        UNIT_CHECK(THEMIS_OK == themis_xfer_tracker_copy(&tr, &c, &tc));
        const uint64_t at_cut = themis_xfer_hash(&s);
        UNIT_CHECK(at_cut == themis_xfer_hash(&c) && c.unit_off != s.unit_off);
        tracker_steps(&tc, cut, 9);
        UNIT_CHECKF(at_cut == themis_xfer_hash(&s), "cut %d: the copy changed the original",
                    cut);
        tracker_steps(&tr, cut, 9);
        UNIT_CHECKF(s.nxfers == c.nxfers && s.ndeps == c.ndeps
                        && themis_xfer_hash(&s) == themis_xfer_hash(&c),
                    "cut %d: %u/%u transfers, %u/%u dependencies after the copy", cut, s.nxfers,
                    c.nxfers, s.ndeps, c.ndeps);
        themis_xfer_tracker_free(&tr);
        themis_xfer_tracker_free(&tc);
        themis_xfer_free(&s);
        themis_xfer_free(&c);
    }
}

/* themis_xfer_reserve: room reserved takes that many appends without
 * moving the arrays, keeps what the list holds, never shrinks it, and
 * the list grows past it as before. */
static void test_reserve(void)
{
    themis_xfer_sched_t s;
    themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 2, 4);
    const uint32_t d[2] = {0, 1};
    add(&s, 0, 1, CP, IN, 0, OUT, 0, 1, NULL, 0);
    UNIT_CHECK(THEMIS_OK == themis_xfer_reserve(&s, 100, 200));
    UNIT_CHECK(s.cap_xfers >= 100 && s.cap_deps >= 200 && 1 == s.nxfers);
    const themis_xfer_t *xf = s.xfers;
    const uint32_t *dp = s.deps;
    for (uint32_t i = 1; i < 100; i++) {
        add(&s, i % 2, 1 - i % 2, CP, IN, i, OUT, i, 1, d, i > 1 ? 2 : 1);
    }
    UNIT_CHECK(xf == s.xfers && dp == s.deps && 100 == s.nxfers && 197 == s.ndeps);
    UNIT_CHECK(THEMIS_OK == themis_xfer_reserve(&s, 10, 10));   /* never shrinks */
    UNIT_CHECK(s.cap_xfers >= 100 && s.cap_deps >= 197 && 0 == s.xfers[0].src
               && 99 == s.xfers[99].src_off && 1 == s.deps[196]);
    add(&s, 0, 1, CP, IN, 0, OUT, 0, 1, d, 2);
    UNIT_CHECK(101 == s.nxfers && 197 == s.xfers[100].dep_first && 199 == s.ndeps);
    UNIT_CHECK(THEMIS_ERR_NOMEM == themis_xfer_reserve(&s, (uint64_t) UINT32_MAX + 1, 0));
    UNIT_CHECK(101 == s.nxfers);
    themis_xfer_free(&s);
}

/* s's transfers, in order, added to a fresh tracker: the dependencies
 * the tracker finds for them, in *out (s's layout). */
static void retrack(const themis_xfer_sched_t *s, themis_xfer_sched_t *out)
{
    themis_xfer_tracker_t tr;
    UNIT_CHECK(THEMIS_OK == themis_xfer_copy(s, out));
    out->nxfers = out->ndeps = 0;
    UNIT_CHECK(THEMIS_OK == themis_xfer_tracker_init(&tr, out));
    for (uint32_t i = 0; i < s->nxfers; i++) {
        const themis_xfer_t *x = &s->xfers[i];
        UNIT_CHECK(THEMIS_OK == themis_xfer_tracker_add(&tr, x->src, x->dst, x->kind, x->src_buf,
                                                        x->src_off, x->dst_buf, x->dst_off,
                                                        x->count));
    }
    themis_xfer_tracker_free(&tr);
}

/* The whole lists stamp a stage's twin quarters from earlier ones: the
 * rings' quarters 1-3 from quarter 0 (twin rings on units of their own),
 * a square torus2d's quarters 2, 3 from 0, 1 (the transposed torus).
 * Each list is the one the tracker builds transfer by transfer, on
 * several shapes (square or not), placements and chunk counts, all three
 * collectives. */
static void test_twin_stamp(void)
{
    static const uint32_t shapes[][2] = {{3, 3}, {3, 4}, {4, 5}, {5, 3}, {4, 4}, {2, 2}};
    static const uint32_t chunks[] = {1, 2, 3, 5};
    int place[20];
    for (int h = 0; h < 6; h++) {
        themis_ham_t ham;
        const uint32_t n = shapes[h][0] * shapes[h][1];
        const int rings = shapes[h][0] >= 3 && shapes[h][1] >= 3;
        UNIT_CHECK(!rings || THEMIS_OK == themis_ham_build(shapes[h][0], shapes[h][1], &ham,
                                                           NULL, 0));
        for (uint32_t j = 0; j < n; j++) {
            place[j] = (int) ((7 * j + 3) % n);   /* 7 is prime to every n here */
        }
        for (int row = rings ? 0 : 1; row < 2; row++) {
            for (int c = 0; c < 3; c++) {
                for (int k = 0; k < 4; k++) {
                    themis_xfer_sched_t s, r;
                    const int *pl = h % 2 ? place : NULL;
                    UNIT_CHECK(THEMIS_OK
                               == (0 == row ? themis_xfer_rings((themis_coll_t) c, &ham, pl,
                                                                chunks[k], &s)
                                            : themis_xfer_torus2d((themis_coll_t) c,
                                                                  shapes[h][0], shapes[h][1],
                                                                  pl, chunks[k], &s)));
                    retrack(&s, &r);
                    UNIT_CHECKF(s.nxfers == r.nxfers && s.ndeps == r.ndeps
                                    && themis_xfer_hash(&s) == themis_xfer_hash(&r),
                                "%s %ux%u coll %d K %u: %u/%u dependencies, not the tracker's",
                                0 == row ? "rings" : "torus2d", shapes[h][0], shapes[h][1], c,
                                chunks[k], s.ndeps, r.ndeps);
                    themis_xfer_free(&s);
                    themis_xfer_free(&r);
                }
            }
        }
        if (rings) {
            themis_ham_free(&ham);
        }
    }
}

/* themis_xfer_sort orders by key, ties in list order, whatever bytes
 * the keys differ in (the radix sort skips bytes alike in every key):
 * keys differing in bytes 0, 1, 5 and 7 with many ties, and all alike. */
static void test_sort_keys(void)
{
    for (int form = 0; form < 3; form++) {
        const uint32_t n = 1000;
        themis_xfer_sched_t s;
        uint64_t *key = malloc(n * sizeof(*key));
        themis_xfer_init(&s, THEMIS_COLL_ALLGATHER, 1, n);
        for (uint32_t i = 0; i < n; i++) {
            add(&s, 0, 0, CP, IN, i, OUT, i, 1, NULL, 0);
            key[i] = 0 == form   ? (uint64_t) ((i * 2654435761u) % 7) << 40 | (i % 3) << 8
                     : 1 == form ? (0 == i % 5 ? UINT64_MAX - i % 2 : (uint64_t) (i * 37 % 11))
                                 : 42;
        }
        UNIT_CHECK(THEMIS_OK == themis_xfer_sort(&s, key));
        for (uint32_t k = 1; k < n; k++) {
            const uint64_t a = s.xfers[k - 1].src_off, b = s.xfers[k].src_off;
            UNIT_CHECKF(key[a] < key[b] || (key[a] == key[b] && a < b),
                        "form %d: transfer %lu (key %lx) before %lu (key %lx)", form,
                        (unsigned long) a, (unsigned long) key[a], (unsigned long) b,
                        (unsigned long) key[b]);
            if (unit_case_failed) {
                break;
            }
        }
        free(key);
        themis_xfer_free(&s);
    }
}

/* themis_xfer_tracker_add_xfer lists what themis_xfer_tracker_add does
 * for the same transfers (the fields one by one), `after` included. */
static void test_tracker_add_xfer(void)
{
    themis_xfer_sched_t a, b;
    themis_xfer_tracker_t ta, tb;
    tracker_sched(&a);
    tracker_sched(&b);
    UNIT_CHECK(THEMIS_OK == themis_xfer_tracker_init(&ta, &a));
    UNIT_CHECK(THEMIS_OK == themis_xfer_tracker_init(&tb, &b));
    tracker_steps(&ta, 0, 9);
    for (int i = 0; i < 9; ++i) {
        const uint32_t *s = tracker_steps_list[i];
        themis_xfer_t x = {.src = s[0], .dst = s[1], .kind = CP, .src_buf = (uint8_t) s[2],
                           .src_off = s[3], .dst_buf = (uint8_t) s[4], .count = s[5]};
        UNIT_CHECK(THEMIS_OK == themis_xfer_tracker_add_xfer(&tb, &x, UINT32_MAX, NULL));
    }
    UNIT_CHECK(9 == b.nxfers && themis_xfer_hash(&a) == themis_xfer_hash(&b));
    uint32_t ia = 0, ib = 0;
    const themis_xfer_t x = {.src = 2, .dst = 2, .kind = CP, .src_buf = IN, .dst_buf = IN,
                             .src_off = 3, .dst_off = 3, .count = 1};
    UNIT_CHECK(THEMIS_OK == themis_xfer_tracker_add_after(&ta, 4, 2, 2, CP, IN, 3, IN, 3, 1, &ia));
    UNIT_CHECK(THEMIS_OK == themis_xfer_tracker_add_xfer(&tb, &x, 4, &ib));
    UNIT_CHECK(9 == ia && 9 == ib && 1 == b.xfers[9].ndeps && 4 == b.deps[b.xfers[9].dep_first]
               && themis_xfer_hash(&a) == themis_xfer_hash(&b));
    themis_xfer_tracker_free(&ta);
    themis_xfer_tracker_free(&tb);
    themis_xfer_free(&a);
    themis_xfer_free(&b);
}

int main(void)
{
    UNIT_RUN(test_tree_allreduce_joins);
    UNIT_RUN(test_direct_allgather);
    UNIT_RUN(test_direct_reduce_scatter);
    UNIT_RUN(test_rings);
    UNIT_RUN(test_sort);
    UNIT_RUN(test_sort_keys);
    UNIT_RUN(test_hash_stable);
    UNIT_RUN(test_check_rejects);
    UNIT_RUN(test_compile_rejects);
    UNIT_RUN(test_layout);
    UNIT_RUN(test_uneven_scratch);
    UNIT_RUN(test_any_count);
    UNIT_RUN(test_parked_unit);
    UNIT_RUN(test_rank_deps_reused);
    UNIT_RUN(test_tracker_copy);
    UNIT_RUN(test_tracker_add_xfer);
    UNIT_RUN(test_reserve);
    UNIT_RUN(test_twin_stamp);
    UNIT_EXIT();
}
