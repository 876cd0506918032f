/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A program's periodic form: runs of repeated slots stored once.
 *
 * A software-pipelined schedule (rings, torus2d) repeats one slot of ops
 * per chunk: at 256 MiB a rank's program is some 140,000 ops and steps,
 * nearly all copies of a few hundred.  Building and validating them per
 * new message size costs milliseconds; stored once, they cost what a
 * small call costs.  A program with nruns > 0 is read only through the
 * accessors below, which give the logical program (the one
 * themis_program_expand() materialises) index by index.
 *
 * Logical and stored indices.  nops, nsteps and nop_deps (plan.h) count
 * the logical program; the arrays ops, steps, op_deps and queue_ops hold
 * it with every run's copies 1 .. count - 1 left out.  Run j covers the
 * logical ops [op_at, op_at + nops * count), stored once at
 * [op_store, op_store + nops); likewise its steps, its dependency
 * entries and, on each queue q, its queue entries.  Stored entries hold
 * copy 0's logical values (an op's first_step and dep_first, a
 * dependency's op, a queue entry's op, a step's offsets and tag); copy r
 * adds, per copy:
 *   - an op: nsteps to first_step, ndeps to dep_first, chunk_shift to
 *     chunk (a slice's op is labelled by its transfer's index);
 *   - a dependency on op d: nops where d >= keep (the slots), keep_shift
 *     where d < keep (ops ahead of the slots: 0 where one serves every
 *     copy, else each copy's own);
 *   - a queue entry: nops;
 *   - a step: tag_shift to its tag, send_shift[k] and recv_shift[k] to
 *     its offsets (k its place in the slot; counts, peers and modes are
 *     copy 0's).
 * Runs are ordered and disjoint in every index space; entries outside
 * runs are stored as they are (their values logical).  Every dependency
 * of a run's op points to an earlier op, and every queue lists its ops
 * in increasing order, in every copy: programs of this form come from
 * the slice compiler (transfer_slice.h), whose programs have both, so a
 * reader may check a run on its first and last copies.
 */
#ifndef THEMIS_PROGRAM_RUNS_H
#define THEMIS_PROGRAM_RUNS_H

#include "plan.h"

typedef struct themis_program_run {
    uint32_t count;                 /* copies of the slot, >= 2 */
    uint32_t op_at, op_store, nops;
    uint32_t step_at, step_store, nsteps;
    uint32_t dep_at, dep_store, ndeps;
    uint32_t keep, keep_shift;
    uint32_t tag_shift, chunk_shift;
    /* [nqueues] each: logical and stored position in queue_ops of the
     * run's first entry on queue q (where it would be when it has none),
     * and its entries a copy.  queue_ops is the logical list (queue_first
     * over it) with the copies left out, so a stored position is the
     * logical one less every entry left out before it, of any queue. */
    uint32_t *queue_at, *queue_store, *queue_n;
    /* [nsteps] per copy, elements (signed: a slot may walk down). */
    int64_t *send_shift, *recv_shift;
} themis_program_run_t;

/* Where a logical index lies: stored index and copy (0 outside runs). */
typedef struct {
    uint32_t at;
    uint32_t copy;
    const themis_program_run_t *run;   /* NULL outside runs */
} themis_program_pos_t;

/* Logical index i of one index space (ops, steps or dependencies) of a
 * program with runs: the run at or before i by binary search (runs are
 * few), then the stored index. */
#define THEMIS_PROGRAM_LOCATE(p, i, AT, STORE, N)                                             \
    do {                                                                                      \
        uint32_t lo_ = 0, hi_ = (p)->nruns;                                                   \
        while (lo_ < hi_) {                                                                   \
            uint32_t mid_ = (lo_ + hi_) / 2;                                                  \
            if ((p)->runs[mid_].AT <= (i)) {                                                  \
                lo_ = mid_ + 1;                                                               \
            } else {                                                                          \
                hi_ = mid_;                                                                   \
            }                                                                                 \
        }                                                                                     \
        pos.at = (i);                                                                         \
        pos.copy = 0;                                                                         \
        pos.run = NULL;                                                                       \
        if (0 < lo_) {                                                                        \
            const themis_program_run_t *r_ = &(p)->runs[lo_ - 1];                             \
            const uint64_t in_ = (uint64_t) (i) - r_->AT;                                     \
            if (in_ < (uint64_t) r_->N * r_->count) {                                         \
                pos.run = r_;                                                                 \
                pos.copy = (uint32_t) (in_ / r_->N);                                          \
                pos.at = r_->STORE + (uint32_t) (in_ % r_->N);                                \
            } else {                                                                          \
                pos.at = (uint32_t) ((i) - (r_->AT - r_->STORE)                               \
                                     - (uint64_t) r_->N * (r_->count - 1));                   \
            }                                                                                 \
        }                                                                                     \
    } while (0)

static inline themis_program_pos_t themis_program_op_pos(const themis_program_t *p, uint32_t i)
{
    themis_program_pos_t pos;
    THEMIS_PROGRAM_LOCATE(p, i, op_at, op_store, nops);
    return pos;
}

static inline themis_program_pos_t themis_program_step_pos(const themis_program_t *p,
                                                           uint32_t s)
{
    themis_program_pos_t pos;
    THEMIS_PROGRAM_LOCATE(p, s, step_at, step_store, nsteps);
    return pos;
}

static inline themis_program_pos_t themis_program_dep_pos(const themis_program_t *p, uint32_t k)
{
    themis_program_pos_t pos;
    THEMIS_PROGRAM_LOCATE(p, k, dep_at, dep_store, ndeps);
    return pos;
}

/* Logical op i (i < nops). */
static inline themis_op_t themis_program_op(const themis_program_t *p, uint32_t i)
{
    if (0 == p->nruns) {
        return p->ops[i];
    }
    themis_program_pos_t pos = themis_program_op_pos(p, i);
    themis_op_t o = p->ops[pos.at];
    if (NULL != pos.run) {
        o.first_step += pos.copy * pos.run->nsteps;
        o.dep_first += pos.copy * pos.run->ndeps;
        o.chunk += pos.copy * pos.run->chunk_shift;
    }
    return o;
}

/* Logical step s (s < nsteps). */
static inline themis_step_t themis_program_step(const themis_program_t *p, uint32_t s)
{
    if (0 == p->nruns) {
        return p->steps[s];
    }
    themis_program_pos_t pos = themis_program_step_pos(p, s);
    themis_step_t st = p->steps[pos.at];
    if (NULL != pos.run && 0 < pos.copy) {
        const uint32_t k = pos.at - pos.run->step_store;
        st.tag += pos.copy * pos.run->tag_shift;
        st.send_off += (uint64_t) ((int64_t) pos.copy * pos.run->send_shift[k]);
        st.recv_off += (uint64_t) ((int64_t) pos.copy * pos.run->recv_shift[k]);
    }
    return st;
}

/* The op of logical dependency entry k (k < nop_deps). */
static inline uint32_t themis_program_dep(const themis_program_t *p, uint32_t k)
{
    if (0 == p->nruns) {
        return p->op_deps[k];
    }
    themis_program_pos_t pos = themis_program_dep_pos(p, k);
    uint32_t d = p->op_deps[pos.at];
    if (NULL != pos.run) {
        d += pos.copy * (d >= pos.run->keep ? pos.run->nops : pos.run->keep_shift);
    }
    return d;
}

/* The op at logical position i of queue q's list
 * (queue_first[q] <= i < queue_first[q + 1]; queue_first is logical). */
static inline uint32_t themis_program_queue_op(const themis_program_t *p, uint32_t q, uint32_t i)
{
    if (0 == p->nruns) {
        return p->queue_ops[i];
    }
    uint32_t lo = 0, hi = p->nruns;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (p->runs[mid].queue_at[q] <= i) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    /* runs without entries on q sit at the same position: the last one
     * at or before i owns it only if i falls inside its entries; before
     * the first, only other queues' copies are left out, as at run 0 */
    const themis_program_run_t *r = &p->runs[0 < lo ? lo - 1 : 0];
    const uint64_t in = (uint64_t) i - r->queue_at[q];
    const uint64_t n = r->queue_n[q];
    if (0 < lo && in < n * r->count) {
        return p->queue_ops[r->queue_store[q] + (uint32_t) (in % n)]
               + (uint32_t) (in / n) * r->nops;
    }
    return p->queue_ops[i - (r->queue_at[q] - r->queue_store[q])
                        - (0 < lo ? (uint32_t) (n * (r->count - 1)) : 0)];
}

/* Stored lengths of the arrays (the logical ones without runs). */
uint32_t themis_program_stored_ops(const themis_program_t *p);
uint32_t themis_program_stored_steps(const themis_program_t *p);
uint32_t themis_program_stored_deps(const themis_program_t *p);

/* A reader's walk over the stored ops (or steps) in order, index by
 * index from 0, without a search: start it zeroed. */
typedef struct {
    uint32_t run;    /* the first run not yet passed */
    uint32_t gone;   /* entries left out before it (copies 1 ..) */
} themis_program_walk_t;

/* Stored op (steps: step) i, the next one of walk w: its run (NULL
 * outside runs) and its logical index (copy 0's) in *logical. */
static inline const themis_program_run_t *
themis_program_walk(const themis_program_t *p, themis_program_walk_t *w, int steps, uint32_t i,
                    uint32_t *logical)
{
    const themis_program_run_t *r = w->run < p->nruns ? &p->runs[w->run] : NULL;
    const uint32_t store = NULL == r ? 0 : steps ? r->step_store : r->op_store;
    *logical = i + w->gone;
    if (NULL == r || i < store) {
        return NULL;
    }
    const uint32_t n = steps ? r->nsteps : r->nops;
    if (i + 1 == store + n) {
        w->gone += (r->count - 1) * n;
        w->run++;
    }
    return r;
}

/* The run table is consistent with the stored arrays (every run's
 * ranges inside them, ordered, disjoint, count >= 2, shifts that keep
 * the last copy's indices within the logical counts): 0, else -1 with
 * why.  Readers call it before any accessor on a program from outside. */
int themis_program_runs_check(const themis_program_t *p, char *why, size_t len);

/* The logical program, materialised (nruns 0); a program without runs is
 * copied.  THEMIS_ERR_NOMEM or THEMIS_ERR_INVALID (runs_check fails),
 * *out empty. */
themis_status_t themis_program_expand(const themis_program_t *in, themis_program_t *out);

#endif
