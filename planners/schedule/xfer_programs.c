/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Programs of all ranks -> a transfer schedule (xfer_programs.h).
 */
#include "xfer_programs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xfer_tracker.h"

enum { IDLE = 0, ACTIVE = 1, DONE = 2 };
enum { PART_SEND = 1, PART_RECV = 2 };
/* The programs' work buffer. */
#define WORK THEMIS_BUF_SCRATCH

/* Indices, appended mostly in order, taken in order. */
typedef struct {
    uint32_t *v, n;
    int sorted;
} worklist_t;

typedef struct {
    const themis_program_t *p;
    uint8_t *op_state;
    uint32_t *op_open;          /* started steps not yet done */
    uint32_t *cursor;           /* [op * THEMIS_STEP_CHAINS + chain] */
    uint32_t *last;             /* the chain's last posted step, UINT32_MAX: none */
    uint8_t *step_state;        /* IDLE, ACTIVE (posted), DONE */
    uint8_t *parts;             /* PART_* still to be matched */
    uint32_t *q_next, *q_active;
    uint32_t *step_op;
    uint32_t ops_done;
    /* Work lists, so that a round touches only what can move: the active
     * ops and the posted receives, each kept in index order (the order
     * the full scans took). */
    worklist_t active, recvs;
    /* The send steps sorted by (peer, tag, step): a receive finds its
     * send by binary search instead of a scan of the sender's steps. */
    uint32_t *sends, nsends;
} rank_t;

typedef struct {
    uint32_t p;
    rank_t *ranks;
    themis_xfer_tracker_t tr;
    int progress;
} exec_t;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return (x > y) - (x < y);
}

static void wl_push(worklist_t *l, uint32_t x)
{
    l->sorted &= 0 == l->n || l->v[l->n - 1] < x;
    l->v[l->n++] = x;
}

static void wl_sort(worklist_t *l)
{
    if (!l->sorted) {
        qsort(l->v, l->n, sizeof(uint32_t), cmp_u32);
        l->sorted = 1;
    }
}

/* qsort has no context argument; the conversion is single-threaded per
 * call but may run in several threads, hence thread-local. */
static _Thread_local const themis_program_t *sort_prog;

static int send_key_cmp(const themis_step_t *a, uint32_t sa, int32_t peer, uint32_t tag,
                        uint32_t step)
{
    if (a->send_peer != peer) {
        return a->send_peer < peer ? -1 : 1;
    }
    if (a->tag != tag) {
        return a->tag < tag ? -1 : 1;
    }
    return (sa > step) - (sa < step);
}

static int cmp_send(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    const themis_step_t *sy = &sort_prog->steps[y];
    return send_key_cmp(&sort_prog->steps[x], x, sy->send_peer, sy->tag, y);
}

static int rank_init(rank_t *k, const themis_program_t *p)
{
    memset(k, 0, sizeof(*k));
    k->p = p;
    k->op_state = calloc((size_t) p->nops + 1, 1);
    k->op_open = calloc((size_t) p->nops + 1, sizeof(uint32_t));
    k->cursor = calloc(((size_t) p->nops + 1) * THEMIS_STEP_CHAINS, sizeof(uint32_t));
    k->last = malloc(((size_t) p->nops + 1) * THEMIS_STEP_CHAINS * sizeof(uint32_t));
    k->active.v = malloc(((size_t) p->nops + 1) * sizeof(uint32_t));
    k->recvs.v = malloc(((size_t) p->nsteps + 1) * sizeof(uint32_t));
    k->sends = malloc(((size_t) p->nsteps + 1) * sizeof(uint32_t));
    k->step_state = calloc((size_t) p->nsteps + 1, 1);
    k->parts = calloc((size_t) p->nsteps + 1, 1);
    k->q_next = calloc((size_t) p->nqueues + 1, sizeof(uint32_t));
    k->q_active = calloc((size_t) p->nqueues + 1, sizeof(uint32_t));
    k->step_op = calloc((size_t) p->nsteps + 1, sizeof(uint32_t));
    if (NULL == k->op_state || NULL == k->op_open || NULL == k->cursor || NULL == k->step_state
        || NULL == k->parts || NULL == k->q_next || NULL == k->q_active || NULL == k->step_op
        || NULL == k->last || NULL == k->active.v || NULL == k->recvs.v || NULL == k->sends) {
        return -1;
    }
    memset(k->last, 0xff, ((size_t) p->nops + 1) * THEMIS_STEP_CHAINS * sizeof(uint32_t));
    k->active.sorted = k->recvs.sorted = 1;
    for (uint32_t s = 0; s < p->nsteps; ++s) {
        if (p->steps[s].send_peer >= 0 && p->steps[s].send_count > 0
            && THEMIS_LOCAL_COPY != p->steps[s].recv_mode
            && THEMIS_LOCAL_REDUCE != p->steps[s].recv_mode) {
            k->sends[k->nsends++] = s;
        }
    }
    sort_prog = p;
    qsort(k->sends, k->nsends, sizeof(uint32_t), cmp_send);
    for (uint32_t q = 0; q < p->nqueues; ++q) {
        k->q_next[q] = p->queue_first[q];
    }
    for (uint32_t o = 0; o < p->nops; ++o) {
        for (uint32_t j = 0; j < p->ops[o].nsteps; ++j) {
            k->step_op[p->ops[o].first_step + j] = o;
        }
    }
    return 0;
}

static void rank_free(rank_t *k)
{
    free(k->op_state);
    free(k->op_open);
    free(k->cursor);
    free(k->step_state);
    free(k->parts);
    free(k->q_next);
    free(k->q_active);
    free(k->step_op);
    free(k->last);
    free(k->active.v);
    free(k->recvs.v);
    free(k->sends);
}

static void op_maybe_done(exec_t *x, rank_t *k, uint32_t o)
{
    const themis_op_t *op = &k->p->ops[o];
    if (ACTIVE != k->op_state[o] || 0 != k->op_open[o]) {
        return;
    }
    for (uint32_t c = 0; c < THEMIS_STEP_CHAINS; ++c) {
        if (k->cursor[(size_t) o * THEMIS_STEP_CHAINS + c] < op->nsteps) {
            return;
        }
    }
    k->op_state[o] = DONE;
    k->q_active[op->queue]--;
    k->ops_done++;
    x->progress = 1;
}

static void part_done(exec_t *x, rank_t *k, uint32_t s, uint8_t part)
{
    k->parts[s] &= (uint8_t) ~part;
    if (0 == k->parts[s] && ACTIVE == k->step_state[s]) {
        k->step_state[s] = DONE;
        k->op_open[k->step_op[s]]--;
        op_maybe_done(x, k, k->step_op[s]);
    }
}

/* Post the steps of op o that may start, each chain in order. */
static themis_status_t advance(exec_t *x, uint32_t r, uint32_t o)
{
    rank_t *k = &x->ranks[r];
    const themis_op_t *op = &k->p->ops[o];
    for (uint32_t c = 0; c < THEMIS_STEP_CHAINS; ++c) {
        uint32_t *cur = &k->cursor[(size_t) o * THEMIS_STEP_CHAINS + c];
        uint32_t *prev_p = &k->last[(size_t) o * THEMIS_STEP_CHAINS + c];
        uint32_t prev = *prev_p;
        while (*cur < op->nsteps) {
            uint32_t s = op->first_step + *cur;
            const themis_step_t *st = &k->p->steps[s];
            if (c != st->chain) {
                ++*cur;
                continue;
            }
            if (st->after_prev && UINT32_MAX != prev && DONE != k->step_state[prev]) {
                break;
            }
            ++*cur;
            prev = *prev_p = s;
            x->progress = 1;
            k->step_state[s] = ACTIVE;
            k->op_open[o]++;
            if (THEMIS_LOCAL_COPY == st->recv_mode || THEMIS_LOCAL_REDUCE == st->recv_mode) {
                themis_status_t rc = THEMIS_OK;
                if (st->recv_count > 0) {
                    rc = themis_xfer_tracker_add(&x->tr, r, r,
                                                 THEMIS_LOCAL_REDUCE == st->recv_mode
                                                     ? THEMIS_XFER_REDUCE
                                                     : THEMIS_XFER_COPY,
                                                 WORK, st->send_off, WORK, st->recv_off,
                                                 st->recv_count);
                }
                if (THEMIS_OK != rc) {
                    return rc;
                }
                part_done(x, k, s, 0);
                continue;
            }
            k->parts[s] = (uint8_t) ((st->send_peer >= 0 && st->send_count > 0 ? PART_SEND : 0)
                                     | (st->recv_peer >= 0 && st->recv_count > 0 ? PART_RECV
                                                                                 : 0));
            if (0 != (k->parts[s] & PART_RECV)) {
                wl_push(&k->recvs, s);
            }
            part_done(x, k, s, 0);
        }
    }
    op_maybe_done(x, k, o);
    return THEMIS_OK;
}

static int deps_done(const rank_t *k, uint32_t o)
{
    const themis_op_t *op = &k->p->ops[o];
    for (uint32_t d = 0; d < op->ndeps; ++d) {
        if (DONE != k->op_state[k->p->op_deps[op->dep_first + d]]) {
            return 0;
        }
    }
    return 1;
}

static themis_status_t start_ops(exec_t *x, uint32_t r)
{
    rank_t *k = &x->ranks[r];
    const themis_program_t *p = k->p;
    for (uint32_t q = 0; q < p->nqueues; ++q) {
        while (k->q_next[q] < p->queue_first[q + 1] && k->q_active[q] < p->chunks_in_flight) {
            uint32_t o = p->queue_ops[k->q_next[q]];
            if (!deps_done(k, o)) {
                break;
            }
            k->q_next[q]++;
            k->q_active[q]++;
            k->op_state[o] = ACTIVE;
            wl_push(&k->active, o);
            x->progress = 1;
            themis_status_t st = advance(x, r, o);
            if (THEMIS_OK != st) {
                return st;
            }
        }
    }
    wl_sort(&k->active);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < k->active.n; ++i) {
        uint32_t o = k->active.v[i];
        if (ACTIVE == k->op_state[o]) {
            themis_status_t st = advance(x, r, o);
            if (THEMIS_OK != st) {
                return st;
            }
        }
        if (ACTIVE == k->op_state[o]) {
            k->active.v[kept++] = o;
        }
    }
    k->active.n = kept;
    return THEMIS_OK;
}

/* The first posted, unmatched send of rank `from` to r with this tag, in
 * step order; UINT32_MAX: none yet. */
static uint32_t find_send(const rank_t *from, uint32_t r, uint32_t tag)
{
    uint32_t lo = 0, hi = from->nsends;
    while (lo < hi) {   /* first entry not below (r, tag, 0) */
        uint32_t mid = lo + (hi - lo) / 2;
        if (send_key_cmp(&from->p->steps[from->sends[mid]], from->sends[mid], (int32_t) r, tag,
                         0) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (; lo < from->nsends; ++lo) {
        uint32_t t = from->sends[lo];
        const themis_step_t *ss = &from->p->steps[t];
        if (ss->send_peer != (int32_t) r || ss->tag != tag) {
            break;
        }
        if (ACTIVE == from->step_state[t] && 0 != (from->parts[t] & PART_SEND)) {
            return t;
        }
    }
    return UINT32_MAX;
}

/* Every posted receive of rank r, in step order, meets its posted send. */
static themis_status_t deliver(exec_t *x, uint32_t r)
{
    rank_t *k = &x->ranks[r];
    wl_sort(&k->recvs);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < k->recvs.n; ++i) {
        uint32_t s = k->recvs.v[i];
        const themis_step_t *rs = &k->p->steps[s];
        if (ACTIVE != k->step_state[s] || 0 == (k->parts[s] & PART_RECV)) {
            continue;
        }
        uint32_t t = (uint32_t) rs->recv_peer < x->p
                         ? find_send(&x->ranks[rs->recv_peer], r, rs->tag)
                         : UINT32_MAX;
        if (UINT32_MAX == t) {
            k->recvs.v[kept++] = s;
            continue;
        }
        rank_t *from = &x->ranks[rs->recv_peer];
        const themis_step_t *ss = &from->p->steps[t];
        if (ss->send_count != rs->recv_count) {
            return THEMIS_ERR_INVALID;
        }
        themis_status_t st = themis_xfer_tracker_add(
            &x->tr, (uint32_t) rs->recv_peer, r,
            THEMIS_RECV_REDUCE == rs->recv_mode ? THEMIS_XFER_REDUCE : THEMIS_XFER_COPY,
            WORK, ss->send_off, WORK, rs->recv_off, rs->recv_count);
        if (THEMIS_OK != st) {
            return st;
        }
        x->progress = 1;
        part_done(x, from, t, PART_SEND);
        part_done(x, k, s, PART_RECV);
    }
    k->recvs.n = kept;
    return THEMIS_OK;
}

#define WHY(st, ...) (snprintf(why, len, __VA_ARGS__), (st))

themis_status_t themis_xfer_from_programs(themis_coll_t coll, uint32_t nranks,
                                          const themis_program_t *progs, uint64_t in_count,
                                          uint64_t out_count, themis_xfer_sched_t *out,
                                          char *why, size_t len)
{
    exec_t x = {.p = nranks};
    uint64_t work = 0, total;
    themis_status_t st = THEMIS_OK;

    memset(out, 0, sizeof(*out));
    if (len > 0) {
        why[0] = '\0';
    }
    if (0 == nranks || 0 == in_count || 0 == out_count) {
        return WHY(THEMIS_ERR_INVALID, "no ranks or no elements");
    }
    for (uint32_t r = 0; r < nranks; ++r) {
        if (progs[r].work_count > work) {
            work = progs[r].work_count;
        }
    }
    total = THEMIS_COLL_ALLREDUCE == coll ? in_count
            : THEMIS_COLL_ALLGATHER == coll ? out_count : in_count;
    if (work > THEMIS_XFER_PROGRAMS_MAX_UNITS || total > THEMIS_XFER_PROGRAMS_MAX_UNITS) {
        return WHY(THEMIS_ERR_UNSUPPORTED, "%llu elements: more than the %u an export takes",
                   (unsigned long long) (work > total ? work : total),
                   THEMIS_XFER_PROGRAMS_MAX_UNITS);
    }
    themis_xfer_init(out, coll, nranks, (uint32_t) total);
    snprintf(out->name, sizeof(out->name), "themis_%s_%u", themis_coll_name(coll), nranks);
    out->buf_units[THEMIS_BUF_INPUT] = in_count;
    out->buf_units[THEMIS_BUF_OUTPUT] = out_count;
    out->buf_units[THEMIS_BUF_SCRATCH] = work;
    x.ranks = calloc(nranks, sizeof(*x.ranks));
    if (NULL == x.ranks || THEMIS_OK != themis_xfer_tracker_init(&x.tr, out)) {
        free(x.ranks);
        themis_xfer_free(out);
        return WHY(THEMIS_ERR_NOMEM, "out of memory");
    }
    for (uint32_t r = 0; r < nranks && THEMIS_OK == st; ++r) {
        const themis_program_t *p = &progs[r];
        if (0 != rank_init(&x.ranks[r], p)) {
            st = WHY(THEMIS_ERR_NOMEM, "out of memory");
        }
        for (uint32_t i = 0; THEMIS_OK == st && i < p->ncopy_in; ++i) {
            const themis_copy_t *c = &p->copy_in[i];
            st = c->count > 0 ? themis_xfer_tracker_add(&x.tr, r, r, THEMIS_XFER_COPY,
                                                        THEMIS_BUF_INPUT, c->src_off, WORK,
                                                        c->dst_off, c->count)
                              : THEMIS_OK;
        }
    }
    do {
        x.progress = 0;
        for (uint32_t r = 0; THEMIS_OK == st && r < nranks; ++r) {
            st = start_ops(&x, r);
        }
        for (uint32_t r = 0; THEMIS_OK == st && r < nranks; ++r) {
            st = deliver(&x, r);
        }
    } while (THEMIS_OK == st && x.progress);
    for (uint32_t r = 0; THEMIS_OK == st && r < nranks; ++r) {
        const themis_program_t *p = &progs[r];
        if (x.ranks[r].ops_done != p->nops) {
            st = WHY(THEMIS_ERR_INVALID, "rank %u: %u of %u ops can never finish (a message "
                     "without its other side, or a deadlock)", r, p->nops - x.ranks[r].ops_done,
                     p->nops);
            break;
        }
        for (uint32_t i = 0; THEMIS_OK == st && i < p->ncopy_out; ++i) {
            const themis_copy_t *c = &p->copy_out[i];
            st = c->count > 0 ? themis_xfer_tracker_add(&x.tr, r, r, THEMIS_XFER_COPY, WORK,
                                                        c->src_off, THEMIS_BUF_OUTPUT,
                                                        c->dst_off, c->count)
                              : THEMIS_OK;
        }
        if (THEMIS_OK == st && p->work_is_output) {
            st = themis_xfer_tracker_add(&x.tr, r, r, THEMIS_XFER_COPY, WORK, 0,
                                         THEMIS_BUF_OUTPUT, 0, out_count);
        }
    }
    if (THEMIS_ERR_INVALID == st && '\0' == why[0]) {
        snprintf(why, len, "a send and its receive differ in size");
    } else if (THEMIS_ERR_NOMEM == st) {
        snprintf(why, len, "out of memory");
    }
    for (uint32_t r = 0; r < nranks; ++r) {
        rank_free(&x.ranks[r]);
    }
    free(x.ranks);
    themis_xfer_tracker_free(&x.tr);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}
