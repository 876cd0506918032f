/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The engine's per-program preparation (coll_themis_engine.h): the check
 * that a program is well formed for this communicator, and the layout of
 * its receive temporaries, made once per cached program and shared by
 * every call that runs it (coll_themis_engine.c).
 */

#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_themis_engine.h"
#include "coll_themis_engine_impl.h"

/* The layout's arrays, carved the same way. */
static size_t layout_carve(mca_coll_themis_engine_layout_t *e, const themis_program_t *p,
                           char *base)
{
    size_t off = 0;
    CARVE(temp_off, e->nstored_steps);
    CARVE(chain_back, e->nstored_steps);
    CARVE(op_queue, e->nstored_ops);
    CARVE(op_nchains, e->nstored_ops);
    CARVE(q_peak, p->nqueues);
    return off;
}

#undef CARVE

/*
 * REDUCE temporaries of one op, as one stack per chain, the chains' regions
 * side by side.  A step's temporary is live from its start until its
 * receive is reduced.  When step j (after_prev) starts, the previous step
 * of its chain has completed, and since it was the last step placed on the
 * chain's stack it sits on top: pop it.  Earlier steps may still be live
 * and stay below.  Records how far back each step's chain predecessor is
 * (op_advance waits on it).  Returns the op's peak in elements.  steps:
 * the op's stored steps, from ss on in temp_off and chain_back (a run's
 * copies have the same counts and chains: one layout serves them all).
 */
static uint64_t temp_layout_op(const themis_step_t *steps, uint32_t nsteps, uint8_t nchains,
                               uint64_t *temp_off, uint32_t *chain_back)
{
    uint64_t base = 0;
    for (uint8_t c = 0; c < nchains; ++c) {
        uint64_t top = base, peak = base;
        uint32_t prev = UINT32_MAX;
        for (uint32_t j = 0; j < nsteps; ++j) {
            const themis_step_t *st = &steps[j];
            if (c != st->chain) {
                continue;
            }
            chain_back[j] = UINT32_MAX != prev ? j - prev : 0;
            if (UINT32_MAX != prev && st->after_prev && step_reduces(&steps[prev])) {
                top = temp_off[prev];
            }
            temp_off[j] = 0;
            if (step_reduces(st)) {
                temp_off[j] = top;
                top += st->recv_count;
                if (top > peak) {
                    peak = top;
                }
            }
            prev = j;
        }
        base = peak;
    }
    return base;
}

/* One queue entry, the logical op `op`: on no queue yet (state, per
 * stored op: a run's copies are listed with it), and with runs after the
 * entry before it (*prev), so that the queues are in increasing order. */
static int queue_entry(const themis_program_t *p, mca_coll_themis_engine_layout_t *l,
                       uint8_t *state, uint32_t q, uint32_t op, uint32_t *prev)
{
    if (op >= p->nops) {
        return engine_bad("queue lists an op out of range", q, op);
    }
    const uint32_t so = stored_op(p, op);
    if (OP_IDLE != state[so] || (0 < p->nruns && UINT32_MAX != *prev && op <= *prev)) {
        return engine_bad("queue lists an op twice, or out of order in a periodic program", q,
                          op);
    }
    state[so] = OP_ACTIVE;
    l->op_queue[so] = q;
    *prev = op;
    return OMPI_SUCCESS;
}

/* Each op exactly once on a queue: every stored entry (a run's copy 0;
 * copies list their own ops, program_runs.h), each stored op once. */
static int check_queues(const themis_program_t *p, mca_coll_themis_engine_layout_t *l,
                        uint8_t *state)
{
    int rc = OMPI_SUCCESS;
    for (uint32_t q = 0; q < p->nqueues && OMPI_SUCCESS == rc; ++q) {
        if (p->queue_first[q] > p->queue_first[q + 1]) {
            return engine_bad("queue_first decreases", q, p->queue_first[q]);
        }
        uint32_t i = p->queue_first[q], prev = UINT32_MAX;
        for (uint32_t j = 0; j <= p->nruns && OMPI_SUCCESS == rc; ++j) {
            const themis_program_run_t *r = j < p->nruns ? &p->runs[j] : NULL;
            const uint32_t end = NULL != r ? r->queue_at[q] : p->queue_first[q + 1];
            for (; i < end && OMPI_SUCCESS == rc; ++i) {
                rc = queue_entry(p, l, state, q, themis_program_queue_op(p, q, i), &prev);
            }
            for (uint32_t k = 0; NULL != r && k < r->queue_n[q] && OMPI_SUCCESS == rc; ++k) {
                rc = queue_entry(p, l, state, q, themis_program_queue_op(p, q, i + k), &prev);
            }
            if (NULL != r && 0 < r->queue_n[q]) {
                /* the last copy's last entry: copies are nops apart */
                prev += (r->count - 1) * r->nops;
                i += r->queue_n[q] * r->count;
            }
        }
    }
    return rc;
}

/* A step as some copy has it (i: its logical index). */
static int check_step(const themis_program_t *p, int size, mca_coll_themis_engine_layout_t *l,
                      const themis_step_t *s, uint32_t i)
{
    if (s->send_peer < -1 || s->send_peer >= size) {
        return engine_bad("send peer outside the communicator", i,
                          (uint64_t) (int64_t) s->send_peer);
    }
    if (s->chain >= THEMIS_STEP_CHAINS) {
        return engine_bad("step chain out of range", i, s->chain);
    }
    if (s->recv_peer < -1 || s->recv_peer >= size) {
        return engine_bad("receive peer outside the communicator", i,
                          (uint64_t) (int64_t) s->recv_peer);
    }
    if (step_is_local(s)) {
        if (s->send_peer >= 0 || s->recv_peer >= 0 || s->send_count != s->recv_count
            || !range_ok(s->send_off, s->send_count, p->work_count)
            || !range_ok(s->recv_off, s->recv_count, p->work_count)
            || (s->send_off < s->recv_off + s->recv_count
                && s->recv_off < s->send_off + s->send_count && s->recv_count > 0)) {
            return engine_bad("local step with peers, unequal counts, outside work or "
                              "overlapping itself", i, s->recv_off);
        }
        l->has_reduce |= THEMIS_LOCAL_REDUCE == s->recv_mode && s->recv_count > 0;
        return OMPI_SUCCESS;
    }
    if (s->send_peer >= 0 && !range_ok(s->send_off, s->send_count, p->work_count)) {
        return engine_bad("send outside work", i, s->send_off);
    }
    if (s->recv_peer >= 0) {
        if (!range_ok(s->recv_off, s->recv_count, p->work_count)) {
            return engine_bad("receive outside work", i, s->recv_off);
        }
        if (THEMIS_RECV_COPY != s->recv_mode && THEMIS_RECV_REDUCE != s->recv_mode) {
            return engine_bad("receive without a mode", i, s->recv_mode);
        }
        l->has_reduce |= step_reduces(s);
    }
    if (step_has_send(s) && s->send_count > l->max_transfer) {
        l->max_transfer = s->send_count;
    }
    if (s->tag > l->max_tag) {
        l->max_tag = s->tag;
    }
    if (step_has_recv(s) && s->recv_count > l->max_transfer) {
        l->max_transfer = s->recv_count;
    }
    return OMPI_SUCCESS;
}

/* The stored steps: outside runs as they are; a run's at its first and
 * last copy, whose offsets bound every copy's (they move linearly; a
 * local step's ends stay on one side of each other) - the rest is equal
 * in every copy. */
static int check_steps(const themis_program_t *p, int size, mca_coll_themis_engine_layout_t *l)
{
    themis_program_walk_t w = {0, 0};
    for (uint32_t ss = 0; ss < l->nstored_steps; ++ss) {
        uint32_t first;
        const themis_program_run_t *r = themis_program_walk(p, &w, 1, ss, &first);
        if (NULL == r) {
            int rc = check_step(p, size, l, &p->steps[ss], first);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
            continue;
        }
        const uint32_t last = first + (r->count - 1) * r->nsteps;
        const themis_step_t a = themis_program_step(p, first), b = themis_program_step(p, last);
        int rc = check_step(p, size, l, &a, first);
        rc = OMPI_SUCCESS == rc ? check_step(p, size, l, &b, last) : rc;
        if (OMPI_SUCCESS == rc && step_is_local(&a) && 0 < a.recv_count
            && (a.send_off < a.recv_off) != (b.send_off < b.recv_off)) {
            rc = engine_bad("a periodic local step's copies cross themselves", first, last);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* The stored ops: their dependencies and steps in range (a run's: its
 * check, program_runs.h), their chains; with runs every dependency on an
 * earlier op (a run's: its check). */
static int check_ops(const themis_program_t *p, mca_coll_themis_engine_layout_t *l)
{
    themis_program_walk_t w = {0, 0};
    for (uint32_t so = 0; so < l->nstored_ops; ++so) {
        uint32_t i;
        const themis_op_t *o = &p->ops[so];
        if (NULL == themis_program_walk(p, &w, 0, so, &i)) {
            if (!range_ok(o->dep_first, o->ndeps, p->nop_deps)) {
                return engine_bad("op dependencies outside the dependency array", i,
                                  o->dep_first);
            }
            for (uint32_t k = 0; k < o->ndeps; ++k) {
                uint32_t d = themis_program_dep(p, o->dep_first + k);
                if (d >= p->nops || d == i || (0 < p->nruns && d > i)) {
                    return engine_bad("bad dependency", i, d);
                }
            }
            if (!range_ok(o->first_step, o->nsteps, p->nsteps)) {
                return engine_bad("op steps outside the step array", i, o->first_step);
            }
        }
        const uint32_t ss = stored_step(p, o->first_step);
        l->op_nchains[so] = 0;
        for (uint32_t k = 0; k < o->nsteps; ++k) {
            uint8_t c = p->steps[ss + k].chain;
            if (c < THEMIS_STEP_CHAINS && c >= l->op_nchains[so]) {
                l->op_nchains[so] = (uint8_t) (c + 1);
            }
        }
    }
    return OMPI_SUCCESS;
}

/*
 * Everything the run indexes is checked here, once per program, so the
 * event loop cannot go out of bounds or wait for an op that can never
 * start.  state[stored ops] and q_next[nqueues] are scratch for the checks.
 * A periodic program is checked in its stored size: its run table, then
 * the stored entries (a run's at its ends).
 */
/* The arrays there, the queues covering the ops, a run table that fits
 * them: before anything is sized by the stored counts. */
static int check_form(const themis_program_t *p)
{
    char why[160];
    if ((p->nqueues > 0 && (NULL == p->queue_first || NULL == p->queue_ops))
        || (p->nops > 0 && NULL == p->ops) || (p->nsteps > 0 && NULL == p->steps)
        || (p->nop_deps > 0 && NULL == p->op_deps)
        || (p->ncopy_in > 0 && NULL == p->copy_in)
        || (p->ncopy_out > 0 && NULL == p->copy_out)) {
        return engine_bad("missing array", p->nops, p->nsteps);
    }
    if (p->nops > 0 && (0 == p->nqueues || 0 == p->chunks_in_flight)) {
        return engine_bad("ops without queues or chunks_in_flight", p->nqueues, p->chunks_in_flight);
    }
    if (p->nqueues > 0
        && (0 != p->queue_first[0] || p->nops != p->queue_first[p->nqueues])) {
        return engine_bad("queue_first does not cover the ops", p->queue_first[0],
                          p->queue_first[p->nqueues]);
    }
    if (0 != themis_program_runs_check(p, why, sizeof(why))) {
        opal_output_verbose(1, ompi_coll_base_framework.framework_output,
                            "coll:themis:engine: bad periodic program: %s", why);
        return engine_bad("run table", p->nruns, p->nops);
    }
    return OMPI_SUCCESS;
}

static int check_program(const themis_program_t *p, int size,
                         mca_coll_themis_engine_layout_t *l, uint8_t *state, uint32_t *q_next)
{
    int rc = check_queues(p, l, state);
    rc = OMPI_SUCCESS == rc ? check_ops(p, l) : rc;
    rc = OMPI_SUCCESS == rc ? check_steps(p, size, l) : rc;
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    for (uint32_t i = 0; i < p->ncopy_in; ++i) {
        if (!range_ok(p->copy_in[i].dst_off, p->copy_in[i].count, p->work_count)) {
            return engine_bad("copy_in outside work", i, p->copy_in[i].dst_off);
        }
    }
    for (uint32_t i = 0; i < p->ncopy_out; ++i) {
        if (!range_ok(p->copy_out[i].src_off, p->copy_out[i].count, p->work_count)) {
            return engine_bad("copy_out outside work", i, p->copy_out[i].src_off);
        }
    }
    if (0 < p->nruns) {
        /* every dependency on an earlier op and every queue in increasing
         * order (checked above): every wait points back, no cycle */
        return OMPI_SUCCESS;
    }

    /*
     * Local deadlock check: assuming every message completes, can every op
     * start?  An op waits for its queue predecessor and its dependencies,
     * so this is a cycle check on those edges.  Sweeps repeat only while a
     * dependency on another queue unblocks something: at most nops sweeps,
     * usually 2.
     */
    memset(state, OP_IDLE, p->nops);
    for (uint32_t q = 0; q < p->nqueues; ++q) {
        q_next[q] = p->queue_first[q];
    }
    uint32_t started = 0, before;
    do {
        before = started;
        for (uint32_t q = 0; q < p->nqueues; ++q) {
            while (q_next[q] < p->queue_first[q + 1]) {
                uint32_t op = p->queue_ops[q_next[q]];
                if (!deps_done(p, op, state, OP_DONE)) {
                    break;
                }
                state[op] = OP_DONE;
                q_next[q]++;
                started++;
            }
        }
    } while (started != before);
    if (started != p->nops) {
        return engine_bad("ops wait on each other (dependency cycle)", started, p->nops);
    }
    return OMPI_SUCCESS;
}

/* Receive temporaries: the elements of each queue's op slot (a run's
 * copies need what their stored op does). */
static void layout_temps(const themis_program_t *p, mca_coll_themis_engine_layout_t *l)
{
    memset(l->q_peak, 0, (size_t) p->nqueues * sizeof(*l->q_peak));
    for (uint32_t so = 0; so < l->nstored_ops; ++so) {
        const themis_op_t *o = &p->ops[so];
        const uint32_t ss = stored_step(p, o->first_step), q = l->op_queue[so];
        uint64_t pk = temp_layout_op(&p->steps[ss], o->nsteps, l->op_nchains[so],
                                     &l->temp_off[ss], &l->chain_back[ss]);
        if (pk > l->q_peak[q]) {
            l->q_peak[q] = pk;
        }
    }
}

int mca_coll_themis_engine_prepare(const themis_program_t *p, int comm_size,
                                   mca_coll_themis_engine_layout_t *l)
{
    uint8_t *state;
    uint32_t *q_next;
    int rc;

    memset(l, 0, sizeof(*l));
    if (NULL == p) {
        return engine_bad("no program", 0, 0);
    }
    rc = check_form(p);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    l->nstored_ops = themis_program_stored_ops(p);
    l->nstored_steps = themis_program_stored_steps(p);
    l->block = calloc(1, layout_carve(l, p, NULL) + 8);
    state = calloc((size_t) p->nops + 1, 1);
    q_next = calloc((size_t) p->nqueues + 1, sizeof(*q_next));
    if (NULL == l->block || NULL == state || NULL == q_next) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
    } else {
        layout_carve(l, p, l->block);
        rc = check_program(p, comm_size, l, state, q_next);
        if (OMPI_SUCCESS == rc) {
            layout_temps(p, l);
        }
    }
    free(state);
    free(q_next);
    if (OMPI_SUCCESS != rc) {
        mca_coll_themis_engine_layout_free(l);
        return rc;
    }
    l->comm_size = comm_size;
    l->nops = p->nops;
    l->nsteps = p->nsteps;
    l->nqueues = p->nqueues;
    return OMPI_SUCCESS;
}

void mca_coll_themis_engine_layout_free(mca_coll_themis_engine_layout_t *l)
{
    if (NULL != l) {
        free(l->block);
        memset(l, 0, sizeof(*l));
    }
}
