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
    CARVE(temp_off, p->nsteps);
    CARVE(chain_prev, p->nsteps);
    CARVE(op_queue, p->nops);
    CARVE(op_nchains, p->nops);
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
 * and stay below.  Records each step's chain predecessor (op_advance
 * waits on it).  Returns the op's peak in elements.
 */
static uint64_t temp_layout_op(const themis_program_t *prog, const themis_op_t *o,
                               uint8_t nchains, uint64_t *temp_off, uint32_t *chain_prev)
{
    uint64_t base = 0;
    for (uint8_t c = 0; c < nchains; ++c) {
        uint64_t top = base, peak = base;
        uint32_t prev = UINT32_MAX;
        for (uint32_t j = 0; j < o->nsteps; ++j) {
            uint32_t s = o->first_step + j;
            const themis_step_t *st = &prog->steps[s];
            if (c != st->chain) {
                continue;
            }
            chain_prev[s] = prev;
            if (UINT32_MAX != prev && st->after_prev && step_reduces(&prog->steps[prev])) {
                top = temp_off[prev];
            }
            temp_off[s] = 0;
            if (step_reduces(st)) {
                temp_off[s] = top;
                top += st->recv_count;
                if (top > peak) {
                    peak = top;
                }
            }
            prev = s;
        }
        base = peak;
    }
    return base;
}

/*
 * Everything the run indexes is checked here, once per program, so the
 * event loop cannot go out of bounds or wait for an op that can never
 * start.  state[nops] and q_next[nqueues] are scratch for the checks.
 */
static int check_program(const themis_program_t *p, int size,
                         mca_coll_themis_engine_layout_t *l, uint8_t *state, uint32_t *q_next)
{
    if ((p->nqueues > 0 && (NULL == p->queue_first || NULL == p->queue_ops))
        || (p->nops > 0 && NULL == p->ops) || (p->nsteps > 0 && NULL == p->steps)
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
    /* Each op exactly once on a queue (op_state is the seen mark). */
    for (uint32_t q = 0; q < p->nqueues; ++q) {
        if (p->queue_first[q] > p->queue_first[q + 1]) {
            return engine_bad("queue_first decreases", q, p->queue_first[q]);
        }
        for (uint32_t i = p->queue_first[q]; i < p->queue_first[q + 1]; ++i) {
            uint32_t op = p->queue_ops[i];
            if (op >= p->nops || OP_IDLE != state[op]) {
                return engine_bad("queue lists an op twice or out of range", q, op);
            }
            state[op] = OP_ACTIVE;
            l->op_queue[op] = q;
        }
    }

    if (p->nop_deps > 0 && NULL == p->op_deps) {
        return engine_bad("missing dependency array", p->nop_deps, 0);
    }
    for (uint32_t i = 0; i < p->nops; ++i) {
        const themis_op_t *o = &p->ops[i];
        if (!range_ok(o->dep_first, o->ndeps, p->nop_deps)) {
            return engine_bad("op dependencies outside the dependency array", i, o->dep_first);
        }
        for (uint32_t k = 0; k < o->ndeps; ++k) {
            uint32_t d = p->op_deps[o->dep_first + k];
            if (d >= p->nops || d == i) {
                return engine_bad("bad dependency", i, d);
            }
        }
        if (!range_ok(o->first_step, o->nsteps, p->nsteps)) {
            return engine_bad("op steps outside the step array", i, o->first_step);
        }
        l->op_nchains[i] = 0;
        for (uint32_t j = 0; j < o->nsteps && o->first_step + j < p->nsteps; ++j) {
            uint8_t c = p->steps[o->first_step + j].chain;
            if (c < THEMIS_STEP_CHAINS && c >= l->op_nchains[i]) {
                l->op_nchains[i] = (uint8_t) (c + 1);
            }
        }
    }

    for (uint32_t i = 0; i < p->nsteps; ++i) {
        const themis_step_t *s = &p->steps[i];
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
            continue;
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

/* Receive temporaries: the elements of each queue's op slot. */
static void layout_temps(const themis_program_t *p, mca_coll_themis_engine_layout_t *l)
{
    for (uint32_t q = 0; q < p->nqueues; ++q) {
        uint64_t peak = 0;
        for (uint32_t i = p->queue_first[q]; i < p->queue_first[q + 1]; ++i) {
            uint32_t op = p->queue_ops[i];
            uint64_t pk = temp_layout_op(p, &p->ops[op], l->op_nchains[op], l->temp_off,
                                         l->chain_prev);
            if (pk > peak) {
                peak = pk;
            }
        }
        l->q_peak[q] = peak;
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
