/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "vexec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_IDLE = 0, OP_ACTIVE = 1, OP_DONE = 2 };
enum { PEND_SEND = 1, PEND_RECV = 2 };
enum { ACT_START_OP, ACT_START_STEP, ACT_DELIVER };

/* A posted transfer not yet delivered. */
typedef struct {
    int used;
    int rank, peer, is_send;
    uint32_t op, step, tag;  /* step: global index in the rank's program */
    uint64_t off, count;
    uint8_t mode;
    unsigned char *data;     /* send: snapshot taken when posted */
    uint32_t partner;        /* matching slot, UINT32_MAX if none yet */
} vx_xfer_t;

typedef struct {
    const themis_program_t *prog;
    unsigned char *work;
    int own_work;
    uint8_t *op_state;
    uint32_t *op_next;       /* [op * THEMIS_STEP_CHAINS + chain]: where the
                              * chain's next step (0-based in op) is sought */
    uint32_t *op_done_steps;
    uint32_t *op_reduces;    /* outstanding REDUCE receives */
    uint8_t *step_started;
    uint8_t *step_pending;   /* PEND_* bits */
    uint32_t *queue_pos;
    uint32_t *queue_active;
    uint32_t *active;        /* active op indices */
    uint32_t nactive;
    uint32_t ops_done;
} vx_rank_t;

typedef struct {
    int type, rank;
    uint32_t a;              /* queue, op or send slot */
} vx_action_t;

typedef struct {
    int nranks;
    vx_rank_t *ranks;
    size_t es;
    vexec_reduce_fn reduce;
    uint64_t rng;
    vx_xfer_t *xfers;
    uint32_t nxfers, cap_xfers;
    vx_action_t *acts;
    size_t nacts, cap_acts;
    char *err;
    size_t errlen;
    int failed;
} vx_t;

/* ------------------------------------------------------------ helpers */

static int vx_fail(vx_t *v, const char *fmt, ...)
{
    if (!v->failed && NULL != v->err && v->errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->err, v->errlen, fmt, ap);
        va_end(ap);
    }
    v->failed = 1;
    return -1;
}

static uint64_t vx_random(vx_t *v)
{
    uint64_t x = v->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    v->rng = x;
    return x * 2685821657736338717ULL;
}

static int in_range(uint64_t off, uint64_t count, uint64_t limit)
{
    return off <= limit && count <= limit - off;
}

static int overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
    return an > 0 && bn > 0 && a < b + bn && b < a + an;
}

static unsigned char *work_at(const vx_t *v, int rank, uint64_t off)
{
    return v->ranks[rank].work + off * v->es;
}

/* ------------------------------------------------------------ validation */

static int check_queues(vx_t *v, int r)
{
    const themis_program_t *p = v->ranks[r].prog;
    if (0 == p->nqueues || NULL == p->queue_first || 0 != p->queue_first[0] ||
        p->queue_first[p->nqueues] != p->nops) {
        return vx_fail(v, "rank %d: queue_first malformed or not covering %u ops", r, p->nops);
    }
    uint8_t *seen = calloc(p->nops + 1, 1);
    int rc = (NULL == seen) ? vx_fail(v, "out of memory") : 0;
    for (uint32_t q = 0; q < p->nqueues && 0 == rc; q++) {
        if (p->queue_first[q] > p->queue_first[q + 1]) {
            rc = vx_fail(v, "rank %d: queue_first not monotone at queue %u", r, q);
        }
        for (uint32_t i = p->queue_first[q]; i < p->queue_first[q + 1] && 0 == rc; i++) {
            uint32_t op = p->queue_ops[i];
            if (op >= p->nops || seen[op] || p->ops[op].queue != q) {
                rc = vx_fail(v, "rank %d: queue %u lists op %u twice, out of range or of "
                             "another queue", r, q, op);
            } else {
                seen[op] = 1;
            }
        }
    }
    free(seen);
    return rc;
}

static int check_step(vx_t *v, int r, uint32_t i)
{
    const themis_program_t *p = v->ranks[r].prog;
    const themis_step_t *s = &p->steps[i];
    if (s->send_peer >= v->nranks || s->recv_peer >= v->nranks) {
        return vx_fail(v, "rank %d step %u: peer out of range", r, i);
    }
    if (s->chain >= THEMIS_STEP_CHAINS) {
        return vx_fail(v, "rank %d step %u: chain %u out of range", r, i, (unsigned)s->chain);
    }
    if (THEMIS_LOCAL_COPY == s->recv_mode || THEMIS_LOCAL_REDUCE == s->recv_mode) {
        if (s->send_peer >= 0 || s->recv_peer >= 0 || s->send_count != s->recv_count ||
            !in_range(s->send_off, s->send_count, p->work_count) ||
            !in_range(s->recv_off, s->recv_count, p->work_count) ||
            overlap(s->send_off, s->send_count, s->recv_off, s->recv_count)) {
            return vx_fail(v, "rank %d step %u: bad local step", r, i);
        }
        return 0;
    }
    if (s->send_peer >= 0 && !in_range(s->send_off, s->send_count, p->work_count)) {
        return vx_fail(v, "rank %d step %u: send range %llu+%llu beyond work %llu", r, i,
                       (unsigned long long)s->send_off, (unsigned long long)s->send_count,
                       (unsigned long long)p->work_count);
    }
    if (s->recv_peer < 0) {
        return 0;
    }
    if (!in_range(s->recv_off, s->recv_count, p->work_count)) {
        return vx_fail(v, "rank %d step %u: recv range %llu+%llu beyond work %llu", r, i,
                       (unsigned long long)s->recv_off, (unsigned long long)s->recv_count,
                       (unsigned long long)p->work_count);
    }
    if (THEMIS_RECV_COPY != s->recv_mode && THEMIS_RECV_REDUCE != s->recv_mode) {
        return vx_fail(v, "rank %d step %u: receive without a mode", r, i);
    }
    if (THEMIS_RECV_REDUCE == s->recv_mode &&
        (NULL == v->reduce || s->recv_count > p->max_recv_count)) {
        return vx_fail(v, "rank %d step %u: REDUCE receive of %llu without reduce function or "
                       "above max_recv_count %llu", r, i, (unsigned long long)s->recv_count,
                       (unsigned long long)p->max_recv_count);
    }
    return 0;
}

static int check_ops(vx_t *v, int r)
{
    const themis_program_t *p = v->ranks[r].prog;
    for (uint32_t o = 0; o < p->nops; o++) {
        const themis_op_t *op = &p->ops[o];
        if (op->dep_first > p->nop_deps || op->ndeps > p->nop_deps - op->dep_first ||
            op->first_step > p->nsteps || op->nsteps > p->nsteps - op->first_step) {
            return vx_fail(v, "rank %d op %u: dependencies %u+%u or steps %u+%u out of range", r,
                           o, op->dep_first, op->ndeps, op->first_step, op->nsteps);
        }
        for (uint32_t d = 0; d < op->ndeps; d++) {
            uint32_t dep = p->op_deps[op->dep_first + d];
            if (dep >= p->nops || dep == o) {
                return vx_fail(v, "rank %d op %u: bad dependency %u", r, o, dep);
            }
        }
    }
    for (uint32_t i = 0; i < p->nsteps; i++) {
        if (0 != check_step(v, r, i)) {
            return -1;
        }
    }
    return 0;
}

static int check_copies(vx_t *v, int r, const themis_copy_t *c, uint32_t n, int work_is_dst)
{
    const themis_program_t *p = v->ranks[r].prog;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t off = work_is_dst ? c[i].dst_off : c[i].src_off;
        if (!in_range(off, c[i].count, p->work_count)) {
            return vx_fail(v, "rank %d: copy_%s %u reaches beyond work %llu", r,
                           work_is_dst ? "in" : "out", i, (unsigned long long)p->work_count);
        }
    }
    return 0;
}

static int check_program(vx_t *v, int r)
{
    const themis_program_t *p = v->ranks[r].prog;
    if (NULL == p || 0 == p->chunks_in_flight) {
        return vx_fail(v, "rank %d: no program or chunks_in_flight 0", r);
    }
    if (0 != check_queues(v, r) || 0 != check_ops(v, r)) {
        return -1;
    }
    if (0 != check_copies(v, r, p->copy_in, p->ncopy_in, 1)) {
        return -1;
    }
    return check_copies(v, r, p->copy_out, p->ncopy_out, 0);
}

/* ------------------------------------------------------------ setup */

static int rank_alloc(vx_t *v, int r, void *output)
{
    vx_rank_t *k = &v->ranks[r];
    const themis_program_t *p = k->prog;
    size_t ops = (size_t)p->nops + 1, steps = (size_t)p->nsteps + 1, qs = p->nqueues;
    k->op_state = calloc(ops, 1);
    k->op_next = calloc((size_t)ops * THEMIS_STEP_CHAINS, sizeof(uint32_t));
    k->op_done_steps = calloc(ops, sizeof(uint32_t));
    k->op_reduces = calloc(ops, sizeof(uint32_t));
    k->step_started = calloc(steps, 1);
    k->step_pending = calloc(steps, 1);
    k->queue_pos = calloc(qs, sizeof(uint32_t));
    k->queue_active = calloc(qs, sizeof(uint32_t));
    k->active = calloc(ops, sizeof(uint32_t));
    if (p->work_is_output) {
        if (NULL == output && p->work_count > 0) {
            return vx_fail(v, "rank %d: work is the output but there is no output buffer", r);
        }
        k->work = output;
    } else {
        k->own_work = 1;
        k->work = malloc(p->work_count * v->es + 1);
    }
    if (NULL == k->op_state || NULL == k->op_next || NULL == k->op_done_steps ||
        NULL == k->op_reduces || NULL == k->step_started || NULL == k->step_pending ||
        NULL == k->queue_pos || NULL == k->queue_active || NULL == k->active ||
        (NULL == k->work && p->work_count > 0)) {
        return vx_fail(v, "out of memory");
    }
    return 0;
}

/* Scratch starts as noise so a read of never-written work shows. */
static void poison_work(vx_t *v, int r)
{
    vx_rank_t *k = &v->ranks[r];
    if (!k->own_work) {
        return;
    }
    size_t n = k->prog->work_count * v->es;
    for (size_t i = 0; i < n; i++) {
        k->work[i] = (unsigned char)(vx_random(v) >> 56);
    }
}

static void rank_release(vx_rank_t *k)
{
    free(k->op_state);
    free(k->op_next);
    free(k->op_done_steps);
    free(k->op_reduces);
    free(k->step_started);
    free(k->step_pending);
    free(k->queue_pos);
    free(k->queue_active);
    free(k->active);
    if (k->own_work) {
        free(k->work);
    }
}

static void run_copies(const vx_t *v, unsigned char *dst, const unsigned char *src,
                       const themis_copy_t *c, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        unsigned char *d = dst + c[i].dst_off * v->es;
        const unsigned char *s = src + c[i].src_off * v->es;
        if (d != s) {
            memmove(d, s, c[i].count * v->es);
        }
    }
}

/* ------------------------------------------------------------ transfers */

static uint32_t xfer_alloc(vx_t *v)
{
    for (uint32_t i = 0; i < v->nxfers; i++) {
        if (!v->xfers[i].used) {
            return i;
        }
    }
    if (v->nxfers == v->cap_xfers) {
        uint32_t ncap = v->cap_xfers ? 2 * v->cap_xfers : 64;
        vx_xfer_t *x = realloc(v->xfers, ncap * sizeof(*x));
        if (NULL == x) {
            return UINT32_MAX;
        }
        v->xfers = x;
        v->cap_xfers = ncap;
    }
    return v->nxfers++;
}

static void xfer_release(vx_t *v, uint32_t i)
{
    free(v->xfers[i].data);
    memset(&v->xfers[i], 0, sizeof(v->xfers[i]));
}

/* A receive over a pending transfer, or a send over a pending receive, on
 * the same rank is a race (concurrent REDUCE receives are fine: the engine
 * applies them one at a time). */
static int check_race(vx_t *v, uint32_t slot)
{
    const vx_xfer_t *n = &v->xfers[slot];
    for (uint32_t i = 0; i < v->nxfers; i++) {
        const vx_xfer_t *x = &v->xfers[i];
        if (i == slot || !x->used || x->rank != n->rank || (x->is_send && n->is_send) ||
            !overlap(x->off, x->count, n->off, n->count)) {
            continue;
        }
        if (!x->is_send && !n->is_send && THEMIS_RECV_REDUCE == x->mode &&
            THEMIS_RECV_REDUCE == n->mode) {
            continue;
        }
        return vx_fail(v, "rank %d: race: step %u %s [%llu,+%llu) while step %u %s overlaps it",
                       n->rank, n->step, n->is_send ? "sends" : "receives",
                       (unsigned long long)n->off, (unsigned long long)n->count, x->step,
                       x->is_send ? "sends" : "receives");
    }
    return 0;
}

/* Find the counterpart of n (same src, dst, tag), rejecting duplicates. */
static int match_xfer(vx_t *v, uint32_t slot)
{
    vx_xfer_t *n = &v->xfers[slot];
    for (uint32_t i = 0; i < v->nxfers; i++) {
        vx_xfer_t *x = &v->xfers[i];
        if (i == slot || !x->used || x->tag != n->tag) {
            continue;
        }
        if (x->rank == n->rank && x->peer == n->peer && x->is_send == n->is_send) {
            return vx_fail(v, "rank %d: duplicate %s with peer %d tag %u", n->rank,
                           n->is_send ? "send" : "receive", n->peer, n->tag);
        }
        if (x->rank == n->peer && x->peer == n->rank && x->is_send != n->is_send) {
            x->partner = slot;
            n->partner = i;
        }
    }
    return 0;
}

static int post(vx_t *v, int r, uint32_t op, uint32_t step, int is_send)
{
    const themis_step_t *s = &v->ranks[r].prog->steps[step];
    uint32_t slot = xfer_alloc(v);
    if (UINT32_MAX == slot) {
        return vx_fail(v, "out of memory");
    }
    vx_xfer_t *x = &v->xfers[slot];
    *x = (vx_xfer_t){.used = 1, .rank = r, .peer = is_send ? s->send_peer : s->recv_peer,
                     .is_send = is_send, .op = op, .step = step, .tag = s->tag,
                     .off = is_send ? s->send_off : s->recv_off,
                     .count = is_send ? s->send_count : s->recv_count,
                     .mode = is_send ? THEMIS_RECV_NONE : s->recv_mode, .partner = UINT32_MAX};
    if (is_send) {
        x->data = malloc(x->count * v->es + 1);
        if (NULL == x->data) {
            return vx_fail(v, "out of memory");
        }
        memcpy(x->data, work_at(v, r, x->off), x->count * v->es);
    }
    if (0 != check_race(v, slot)) {
        return -1;
    }
    return match_xfer(v, slot);
}

/* ------------------------------------------------------------ progress */

static void op_finish(vx_t *v, int r, uint32_t op)
{
    vx_rank_t *k = &v->ranks[r];
    k->op_state[op] = OP_DONE;
    k->queue_active[k->prog->ops[op].queue]--;
    k->ops_done++;
    for (uint32_t i = 0; i < k->nactive; i++) {
        if (k->active[i] == op) {
            k->active[i] = k->active[--k->nactive];
            break;
        }
    }
}

static void step_finish(vx_t *v, int r, uint32_t op)
{
    vx_rank_t *k = &v->ranks[r];
    if (++k->op_done_steps[op] == k->prog->ops[op].nsteps) {
        op_finish(v, r, op);
    }
}

/* Index in op of the chain's next unstarted step, nsteps when none. */
static uint32_t chain_next(const vx_rank_t *k, uint32_t op, uint32_t chain)
{
    const themis_op_t *o = &k->prog->ops[op];
    uint32_t i = k->op_next[op * THEMIS_STEP_CHAINS + chain];
    while (i < o->nsteps && k->prog->steps[o->first_step + i].chain != chain) {
        i++;
    }
    return i;
}

/* A local copy or reduce happens when it starts: a pending receive into
 * either range, or a pending send from the destination, is a race. */
static int local_step(vx_t *v, int r, uint32_t op, uint32_t step)
{
    const themis_step_t *s = &v->ranks[r].prog->steps[step];
    for (uint32_t i = 0; i < v->nxfers; i++) {
        const vx_xfer_t *x = &v->xfers[i];
        if (!x->used || x->rank != r) {
            continue;
        }
        if ((!x->is_send && overlap(x->off, x->count, s->send_off, s->send_count)) ||
            overlap(x->off, x->count, s->recv_off, s->recv_count)) {
            return vx_fail(v, "rank %d: race: local step %u touches [%llu,+%llu) of step %u "
                           "still in flight", r, step, (unsigned long long)x->off,
                           (unsigned long long)x->count, x->step);
        }
    }
    unsigned char *dst = work_at(v, r, s->recv_off);
    const unsigned char *src = work_at(v, r, s->send_off);
    if (THEMIS_LOCAL_REDUCE == s->recv_mode) {
        if (NULL == v->reduce) {
            return vx_fail(v, "rank %d step %u: local reduce without reduce function", r, step);
        }
        v->reduce(dst, src, s->recv_count);
    } else {
        memmove(dst, src, s->recv_count * v->es);
    }
    step_finish(v, r, op);
    return 0;
}

/* act = op * THEMIS_STEP_CHAINS + chain */
static int start_step(vx_t *v, int r, uint32_t act)
{
    vx_rank_t *k = &v->ranks[r];
    const themis_program_t *p = k->prog;
    uint32_t op = act / THEMIS_STEP_CHAINS, i = chain_next(k, op, act % THEMIS_STEP_CHAINS);
    k->op_next[act] = i + 1;
    uint32_t step = p->ops[op].first_step + i;
    const themis_step_t *s = &p->steps[step];
    k->step_started[step] = 1;
    if (THEMIS_LOCAL_COPY == s->recv_mode || THEMIS_LOCAL_REDUCE == s->recv_mode) {
        return local_step(v, r, op, step);
    }
    if (s->send_peer >= 0) {
        k->step_pending[step] |= PEND_SEND;
        if (0 != post(v, r, op, step, 1)) {
            return -1;
        }
    }
    if (s->recv_peer >= 0) {
        k->step_pending[step] |= PEND_RECV;
        if (THEMIS_RECV_REDUCE == s->recv_mode && ++k->op_reduces[op] > p->max_op_reduce_recvs) {
            return vx_fail(v, "rank %d op %u: %u REDUCE receives outstanding, program sized "
                           "temps for %u", r, op, k->op_reduces[op], p->max_op_reduce_recvs);
        }
        if (0 != post(v, r, op, step, 0)) {
            return -1;
        }
    }
    if (0 == k->step_pending[step]) {
        step_finish(v, r, op);
    }
    return 0;
}

static int start_op(vx_t *v, int r, uint32_t q)
{
    vx_rank_t *k = &v->ranks[r];
    const themis_program_t *p = k->prog;
    uint32_t op = p->queue_ops[p->queue_first[q] + k->queue_pos[q]++];
    k->queue_active[q]++;
    k->op_state[op] = OP_ACTIVE;
    k->active[k->nactive++] = op;
    if (0 == p->ops[op].nsteps) {
        op_finish(v, r, op);
        return 0;
    }
    return start_step(v, r, op * THEMIS_STEP_CHAINS + p->steps[p->ops[op].first_step].chain);
}

static void clear_pending(vx_t *v, const vx_xfer_t *x)
{
    vx_rank_t *k = &v->ranks[x->rank];
    k->step_pending[x->step] &= (uint8_t)~(x->is_send ? PEND_SEND : PEND_RECV);
    if (!x->is_send && THEMIS_RECV_REDUCE == x->mode) {
        k->op_reduces[x->op]--;
    }
    if (0 == k->step_pending[x->step]) {
        step_finish(v, x->rank, x->op);
    }
}

static int deliver(vx_t *v, uint32_t send_slot)
{
    vx_xfer_t *s = &v->xfers[send_slot], *d = &v->xfers[s->partner];
    if (s->count != d->count) {
        return vx_fail(v, "size mismatch: rank %d sends %llu to rank %d tag %u, which "
                       "receives %llu", s->rank, (unsigned long long)s->count, d->rank, s->tag,
                       (unsigned long long)d->count);
    }
    size_t bytes = s->count * v->es;
    if (0 != memcmp(s->data, work_at(v, s->rank, s->off), bytes)) {
        return vx_fail(v, "rank %d: race: send range of step %u changed while in flight",
                       s->rank, s->step);
    }
    unsigned char *dst = work_at(v, d->rank, d->off);
    if (THEMIS_RECV_REDUCE == d->mode) {
        v->reduce(dst, s->data, s->count); /* s->data plays the temp buffer */
    } else {
        memcpy(dst, s->data, bytes);
    }
    vx_xfer_t sc = *s, dc = *d;
    uint32_t recv_slot = s->partner;
    clear_pending(v, &sc);
    clear_pending(v, &dc);
    xfer_release(v, send_slot);
    xfer_release(v, recv_slot);
    return 0;
}

/* ------------------------------------------------------------ scheduling */

static int add_action(vx_t *v, int type, int rank, uint32_t a)
{
    if (v->nacts == v->cap_acts) {
        size_t ncap = v->cap_acts ? 2 * v->cap_acts : 256;
        vx_action_t *n = realloc(v->acts, ncap * sizeof(*n));
        if (NULL == n) {
            return vx_fail(v, "out of memory");
        }
        v->acts = n;
        v->cap_acts = ncap;
    }
    v->acts[v->nacts++] = (vx_action_t){.type = type, .rank = rank, .a = a};
    return 0;
}

/* The op a queue would start next, if the engine may start it now. */
static int queue_ready(const vx_rank_t *k, uint32_t q)
{
    const themis_program_t *p = k->prog;
    if (k->queue_pos[q] >= p->queue_first[q + 1] - p->queue_first[q] ||
        k->queue_active[q] >= p->chunks_in_flight) {
        return 0;
    }
    const themis_op_t *o = &p->ops[p->queue_ops[p->queue_first[q] + k->queue_pos[q]]];
    for (uint32_t d = 0; d < o->ndeps; d++) {
        if (OP_DONE != k->op_state[p->op_deps[o->dep_first + d]]) {
            return 0;
        }
    }
    return 1;
}

/* Steps of one chain start in order; chains independently. */
static int step_ready(const vx_rank_t *k, uint32_t op, uint32_t chain)
{
    const themis_op_t *o = &k->prog->ops[op];
    uint32_t i = chain_next(k, op, chain);
    if (i >= o->nsteps) {
        return 0;
    }
    uint32_t step = o->first_step + i;
    const themis_step_t *s = &k->prog->steps[step];
    if (!s->after_prev) {
        return 1;
    }
    /* wait for the previous step of the same chain, if any */
    for (uint32_t j = step; j > o->first_step; j--) {
        if (k->prog->steps[j - 1].chain == s->chain) {
            return 0 == k->step_pending[j - 1];
        }
    }
    return 1;
}

static int collect_actions(vx_t *v)
{
    v->nacts = 0;
    int rc = 0;
    for (int r = 0; r < v->nranks && 0 == rc; r++) {
        const vx_rank_t *k = &v->ranks[r];
        for (uint32_t q = 0; q < k->prog->nqueues && 0 == rc; q++) {
            rc = queue_ready(k, q) ? add_action(v, ACT_START_OP, r, q) : 0;
        }
        for (uint32_t i = 0; i < k->nactive && 0 == rc; i++) {
            for (uint32_t ch = 0; ch < THEMIS_STEP_CHAINS && 0 == rc; ch++) {
                rc = step_ready(k, k->active[i], ch)
                         ? add_action(v, ACT_START_STEP, r,
                                      k->active[i] * THEMIS_STEP_CHAINS + ch)
                         : 0;
            }
        }
    }
    for (uint32_t i = 0; i < v->nxfers && 0 == rc; i++) {
        const vx_xfer_t *x = &v->xfers[i];
        if (x->used && x->is_send && UINT32_MAX != x->partner) {
            rc = add_action(v, ACT_DELIVER, x->rank, i);
        }
    }
    return rc;
}

static int run_action(vx_t *v, const vx_action_t *a)
{
    switch (a->type) {
    case ACT_START_OP:
        return start_op(v, a->rank, a->a);
    case ACT_START_STEP:
        return start_step(v, a->rank, a->a);
    default:
        return deliver(v, a->a);
    }
}

static int all_done(const vx_t *v)
{
    for (int r = 0; r < v->nranks; r++) {
        if (v->ranks[r].ops_done < v->ranks[r].prog->nops) {
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------ deadlock report */

static size_t append(char *buf, size_t len, size_t at, const char *fmt, ...)
{
    if (at >= len) {
        return at;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + at, len - at, fmt, ap);
    va_end(ap);
    return (n < 0) ? at : at + (size_t)n;
}

static int report_deadlock(vx_t *v)
{
    char msg[768];
    size_t at = 0;
    uint64_t left = 0, shown = 0;
    for (int r = 0; r < v->nranks; r++) {
        left += v->ranks[r].prog->nops - v->ranks[r].ops_done;
    }
    at = append(msg, sizeof(msg), at, "deadlock: %llu ops unfinished; pending:",
                (unsigned long long)left);
    for (uint32_t i = 0; i < v->nxfers && shown < 6; i++) {
        const vx_xfer_t *x = &v->xfers[i];
        if (x->used) {
            at = append(msg, sizeof(msg), at, " r%d %s r%d tag %u (op %u);", x->rank,
                        x->is_send ? "send->" : "recv<-", x->peer, x->tag, x->op);
            shown++;
        }
    }
    if (0 == shown) {
        at = append(msg, sizeof(msg), at, " none (blocked on queue order or deps)");
    }
    return vx_fail(v, "%s", msg);
}

/* ------------------------------------------------------------ entry */

static int execute(vx_t *v)
{
    for (;;) {
        if (0 != collect_actions(v)) {
            return -1;
        }
        if (0 == v->nacts) {
            return all_done(v) ? 0 : report_deadlock(v);
        }
        if (0 != run_action(v, &v->acts[vx_random(v) % v->nacts])) {
            return -1;
        }
    }
}

static int setup(vx_t *v, themis_program_t *const *progs, const void *const *inputs,
                 void *const *outputs)
{
    for (int r = 0; r < v->nranks; r++) {
        v->ranks[r].prog = progs[r];
        if (0 != check_program(v, r) || 0 != rank_alloc(v, r, outputs[r])) {
            return -1;
        }
        const themis_program_t *p = progs[r];
        if (p->ncopy_in > 0 && NULL == inputs[r]) {
            return vx_fail(v, "rank %d: copy_in without an input buffer", r);
        }
        poison_work(v, r);
        run_copies(v, v->ranks[r].work, inputs[r], p->copy_in, p->ncopy_in);
    }
    return 0;
}

int vexec_run(int nranks, themis_program_t *const *progs, const void *const *inputs,
              void *const *outputs, size_t elem_size, vexec_reduce_fn reduce, uint32_t seed,
              char *err, size_t errlen)
{
    vx_t v;
    memset(&v, 0, sizeof(v));
    v.nranks = nranks;
    v.es = elem_size;
    v.reduce = reduce;
    v.err = err;
    v.errlen = errlen;
    v.rng = 0x9E3779B97F4A7C15ULL * ((uint64_t)seed + 1) | 1;
    if (NULL != err && errlen > 0) {
        err[0] = '\0';
    }
    if (nranks < 1 || 0 == elem_size || NULL == progs || NULL == inputs || NULL == outputs) {
        return vx_fail(&v, "bad arguments");
    }
    v.ranks = calloc((size_t)nranks, sizeof(*v.ranks));
    int rc = (NULL == v.ranks) ? vx_fail(&v, "out of memory") : setup(&v, progs, inputs, outputs);
    if (0 == rc) {
        rc = execute(&v);
    }
    for (int r = 0; r < nranks && 0 == rc; r++) {
        const themis_program_t *p = v.ranks[r].prog;
        run_copies(&v, outputs[r], v.ranks[r].work, p->copy_out, p->ncopy_out);
    }
    for (uint32_t i = 0; i < v.nxfers; i++) {
        xfer_release(&v, i);
    }
    for (int r = 0; NULL != v.ranks && r < nranks; r++) {
        rank_release(&v.ranks[r]);
    }
    free(v.ranks);
    free(v.xfers);
    free(v.acts);
    return rc;
}
