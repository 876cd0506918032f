/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A program's periodic form (program_runs.h): stored lengths, the run
 * table's check, and the logical program materialised.
 */
#include "program_runs.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Entries a run leaves out of one index space: its copies 1 .. count - 1. */
static uint64_t left_out(const themis_program_t *p, size_t field)
{
    uint64_t n = 0;
    for (uint32_t j = 0; j < p->nruns; ++j) {
        const themis_program_run_t *r = &p->runs[j];
        uint32_t per = *(const uint32_t *) ((const char *) r + field);
        n += (uint64_t) per * (r->count - 1);
    }
    return n;
}

uint32_t themis_program_stored_ops(const themis_program_t *p)
{
    return (uint32_t) (p->nops - left_out(p, offsetof(themis_program_run_t, nops)));
}

uint32_t themis_program_stored_steps(const themis_program_t *p)
{
    return (uint32_t) (p->nsteps - left_out(p, offsetof(themis_program_run_t, nsteps)));
}

uint32_t themis_program_stored_deps(const themis_program_t *p)
{
    return (uint32_t) (p->nop_deps - left_out(p, offsetof(themis_program_run_t, ndeps)));
}

#define WHY(...) (snprintf(why, len, __VA_ARGS__), -1)

/* One index space of run j: after the previous run's copies, inside the
 * logical count, stored where the copies before it leave it. */
static int space_check(uint32_t j, const char *what, uint64_t at, uint64_t store, uint64_t n,
                       uint64_t count, uint64_t end_prev, uint64_t gone, uint64_t total,
                       char *why, size_t len)
{
    if (at < end_prev || at + n * count > total) {
        return WHY("run %u: its %s [%llu, +%llu x %llu) overlap the previous run's or pass "
                   "the program's %llu", j, what, (unsigned long long) at,
                   (unsigned long long) n, (unsigned long long) count,
                   (unsigned long long) total);
    }
    if (store != at - gone) {
        return WHY("run %u: its %s are stored at %llu, not %llu", j, what,
                   (unsigned long long) store, (unsigned long long) (at - gone));
    }
    return 0;
}

/* Run j's queue entries: on each queue after the previous run's, inside
 * the queue, stored where every copy before them leaves them, ops of the
 * run's copy 0 on that queue, as many as the run has ops. */
static int queues_check(const themis_program_t *p, uint32_t j, const uint64_t *gone_below,
                        uint64_t *gone_on, char *why, size_t len)
{
    const themis_program_run_t *r = &p->runs[j];
    uint64_t nq = 0;
    for (uint32_t q = 0; q < p->nqueues; ++q) {
        const uint64_t at = r->queue_at[q], n = r->queue_n[q];
        const uint64_t from = 0 < j ? (uint64_t) p->runs[j - 1].queue_at[q]
                                          + (uint64_t) p->runs[j - 1].queue_n[q]
                                                * p->runs[j - 1].count
                                    : p->queue_first[q];
        if (at < from || at + n * r->count > p->queue_first[q + 1]
            || r->queue_store[q] != at - gone_below[q] - gone_on[q]) {
            return WHY("run %u: its entries on queue %u (at %llu, stored %u, %llu a copy) are "
                       "not inside the queue after the previous run's", j, q,
                       (unsigned long long) at, r->queue_store[q], (unsigned long long) n);
        }
        for (uint64_t k = 0; k < n; ++k) {
            uint32_t o = p->queue_ops[r->queue_store[q] + k];
            if (o < r->op_at || o - r->op_at >= r->nops
                || p->ops[r->op_store + (o - r->op_at)].queue != q) {
                return WHY("run %u: queue %u lists op %u, not one of its ops on that queue", j,
                           q, o);
            }
        }
        gone_on[q] += n * (r->count - 1);
        nq += n;
    }
    if (nq != r->nops) {
        return WHY("run %u: its queues list %llu entries a copy for %u ops", j,
                   (unsigned long long) nq, r->nops);
    }
    return 0;
}

/* Run j's stored ops: their steps and dependencies inside the run's,
 * each dependency on an earlier op; the shifts keep every copy's tags,
 * chunks and offsets in range. */
static int ops_check(const themis_program_t *p, uint32_t j, char *why, size_t len)
{
    const themis_program_run_t *r = &p->runs[j];
    const uint64_t last = r->count - 1;
    for (uint32_t k = 0; k < r->nops; ++k) {
        const themis_op_t *o = &p->ops[r->op_store + k];
        if (o->queue >= p->nqueues || o->first_step < r->step_at
            || (uint64_t) o->first_step + o->nsteps > (uint64_t) r->step_at + r->nsteps
            || o->dep_first < r->dep_at
            || (uint64_t) o->dep_first + o->ndeps > (uint64_t) r->dep_at + r->ndeps
            || UINT32_MAX < (uint64_t) o->chunk + last * r->chunk_shift) {
            return WHY("run %u: op %u's queue, steps, dependencies or chunk leave the run", j,
                       r->op_at + k);
        }
        for (uint32_t d = 0; d < o->ndeps; ++d) {
            uint32_t dep = p->op_deps[r->dep_store + (o->dep_first - r->dep_at) + d];
            if (dep >= r->op_at + k) {
                return WHY("run %u: op %u depends on op %u, not an earlier one", j,
                           r->op_at + k, dep);
            }
        }
    }
    for (uint32_t k = 0; k < r->nsteps; ++k) {
        const themis_step_t *s = &p->steps[r->step_store + k];
        const int64_t sh[2] = {r->send_shift[k], r->recv_shift[k]};
        const uint64_t off[2] = {s->send_off, s->recv_off};
        for (int e = 0; e < 2; ++e) {
            int64_t span, end;
            if (__builtin_mul_overflow(sh[e], (int64_t) last, &span) || INT64_MAX < off[e]
                || __builtin_add_overflow((int64_t) off[e], span, &end) || 0 > end) {
                return WHY("run %u: step %u's offset %llu leaves range by %lld a copy", j,
                           r->step_at + k, (unsigned long long) off[e], (long long) sh[e]);
            }
        }
        if (UINT32_MAX < (uint64_t) s->tag + last * r->tag_shift) {
            return WHY("run %u: step %u's tag passes 32 bits", j, r->step_at + k);
        }
    }
    return 0;
}

int themis_program_runs_check(const themis_program_t *p, char *why, size_t len)
{
    if (0 == p->nruns) {
        return 0;
    }
    if (NULL == p->runs || NULL == p->queue_first || 0 != p->queue_first[0]
        || p->nops != p->queue_first[p->nqueues]) {
        return WHY("%u runs without a run table or a queue list of %u ops", p->nruns, p->nops);
    }
    for (uint32_t q = 0; q < p->nqueues; ++q) {
        if (p->queue_first[q + 1] < p->queue_first[q]) {
            return WHY("queue %u ends before it begins", q);
        }
    }
    uint64_t *gone = calloc(2 * (size_t) p->nqueues + 1, sizeof(*gone));
    if (NULL == gone) {
        return WHY("out of memory");
    }
    uint64_t *gone_on = gone + p->nqueues;
    /* every run's copies on the queues below q, which positions on q skip */
    for (uint32_t j = 0; j < p->nruns; ++j) {
        const themis_program_run_t *r = &p->runs[j];
        if (2 > r->count || 0 == r->nops || (0 < r->nsteps && (NULL == r->send_shift
                                                                || NULL == r->recv_shift))
            || (0 < p->nqueues && (NULL == r->queue_at || NULL == r->queue_store
                                   || NULL == r->queue_n))) {
            free(gone);
            return WHY("run %u: %u copies of %u ops, or its arrays missing", j, r->count,
                       r->nops);
        }
        for (uint32_t q = 0; q + 1 < p->nqueues; ++q) {
            gone[q + 1] += (uint64_t) r->queue_n[q] * (r->count - 1);
        }
    }
    for (uint32_t q = 1; q < p->nqueues; ++q) {
        gone[q] += gone[q - 1];
    }
    uint64_t ends[3] = {0, 0, 0}, gones[3] = {0, 0, 0};
    int rc = 0;
    for (uint32_t j = 0; j < p->nruns && 0 == rc; ++j) {
        const themis_program_run_t *r = &p->runs[j];
        rc = space_check(j, "ops", r->op_at, r->op_store, r->nops, r->count, ends[0], gones[0],
                         p->nops, why, len);
        rc = 0 != rc ? rc
                     : space_check(j, "steps", r->step_at, r->step_store, r->nsteps, r->count,
                                   ends[1], gones[1], p->nsteps, why, len);
        rc = 0 != rc ? rc
                     : space_check(j, "dependencies", r->dep_at, r->dep_store, r->ndeps,
                                   r->count, ends[2], gones[2], p->nop_deps, why, len);
        if (0 == rc && r->keep_shift > r->nops) {
            rc = WHY("run %u: dependencies ahead of it move %u ops a copy, more than its %u", j,
                     r->keep_shift, r->nops);
        }
        rc = 0 != rc ? rc : queues_check(p, j, gone, gone_on, why, len);
        rc = 0 != rc ? rc : ops_check(p, j, why, len);
        ends[0] = r->op_at + (uint64_t) r->nops * r->count;
        ends[1] = r->step_at + (uint64_t) r->nsteps * r->count;
        ends[2] = r->dep_at + (uint64_t) r->ndeps * r->count;
        gones[0] += (uint64_t) r->nops * (r->count - 1);
        gones[1] += (uint64_t) r->nsteps * (r->count - 1);
        gones[2] += (uint64_t) r->ndeps * (r->count - 1);
    }
    free(gone);
    return rc;
}

themis_status_t themis_program_expand(const themis_program_t *in, themis_program_t *out)
{
    char why[160];
    memset(out, 0, sizeof(*out));
    if (0 != themis_program_runs_check(in, why, sizeof(why))) {
        return THEMIS_ERR_INVALID;
    }
    *out = *in;
    out->nruns = 0;
    out->runs = NULL;
    out->queue_first = malloc(((size_t) in->nqueues + 1) * sizeof(*out->queue_first));
    out->queue_ops = malloc(((size_t) in->nops + 1) * sizeof(*out->queue_ops));
    out->ops = malloc(((size_t) in->nops + 1) * sizeof(*out->ops));
    out->op_deps = malloc(((size_t) in->nop_deps + 1) * sizeof(*out->op_deps));
    out->steps = malloc(((size_t) in->nsteps + 1) * sizeof(*out->steps));
    out->copy_in = malloc(((size_t) in->ncopy_in + 1) * sizeof(*out->copy_in));
    out->copy_out = malloc(((size_t) in->ncopy_out + 1) * sizeof(*out->copy_out));
    if (NULL == out->queue_first || NULL == out->queue_ops || NULL == out->ops
        || NULL == out->op_deps || NULL == out->steps || NULL == out->copy_in
        || NULL == out->copy_out) {
        themis_program_free(out);
        return THEMIS_ERR_NOMEM;
    }
    if (NULL != in->queue_first) {
        memcpy(out->queue_first, in->queue_first,
               ((size_t) in->nqueues + 1) * sizeof(*out->queue_first));
    }
    for (uint32_t q = 0; NULL != in->queue_first && q < in->nqueues; ++q) {
        for (uint32_t i = in->queue_first[q]; i < in->queue_first[q + 1]; ++i) {
            out->queue_ops[i] = themis_program_queue_op(in, q, i);
        }
    }
    /* each entry's bytes from its stored one (padding as compiled), then
     * the fields a copy shifts, from the accessors */
    for (uint32_t i = 0; i < in->nops; ++i) {
        const themis_op_t o = themis_program_op(in, i);
        themis_op_t *x = &out->ops[i];
        memcpy(x, &in->ops[themis_program_op_pos(in, i).at], sizeof(*x));
        x->first_step = o.first_step;
        x->dep_first = o.dep_first;
        x->chunk = o.chunk;
    }
    for (uint32_t k = 0; k < in->nop_deps; ++k) {
        out->op_deps[k] = themis_program_dep(in, k);
    }
    for (uint32_t s = 0; s < in->nsteps; ++s) {
        const themis_step_t st = themis_program_step(in, s);
        themis_step_t *x = &out->steps[s];
        memcpy(x, &in->steps[themis_program_step_pos(in, s).at], sizeof(*x));
        x->tag = st.tag;
        x->send_off = st.send_off;
        x->recv_off = st.recv_off;
    }
    if (0 < in->ncopy_in) {
        memcpy(out->copy_in, in->copy_in, in->ncopy_in * sizeof(*out->copy_in));
    }
    if (0 < in->ncopy_out) {
        memcpy(out->copy_out, in->copy_out, in->ncopy_out * sizeof(*out->copy_out));
    }
    return THEMIS_OK;
}
