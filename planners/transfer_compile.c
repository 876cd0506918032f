/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Transfer schedule -> one rank's program (transfer.h, plan.h).
 *
 * Dependencies on transfers this rank takes no part in cannot be waited
 * for locally; they are replaced by their nearest ancestors on this rank
 * (computed once, in list order), which keeps every ordering the race
 * check relied on between this rank's own accesses.
 */
#include "transfer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

typedef struct {
    uint32_t *first, *n;        /* per transfer: its local ancestors in anc[] */
    uint32_t *anc;
    size_t nanc, cap;
} local_deps_t;

static int anc_push(local_deps_t *l, uint32_t v)
{
    if (l->nanc == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        uint32_t *n = realloc(l->anc, cap * sizeof(*n));
        if (NULL == n) {
            return -1;
        }
        l->anc = n;
        l->cap = cap;
    }
    l->anc[l->nanc++] = v;
    return 0;
}

static int involves(const themis_xfer_t *x, uint32_t rank)
{
    return x->src == rank || x->dst == rank;
}

/* For every transfer, the transfers of `rank` it must wait for: its own
 * dependencies on this rank, and for the others their local ancestors.
 * mark[] dedupes within one transfer. */
static int local_deps(const themis_xfer_sched_t *s, uint32_t rank, local_deps_t *l)
{
    uint32_t *mark = malloc(((size_t) s->nxfers + 1) * sizeof(*mark));
    l->first = malloc(((size_t) s->nxfers + 1) * sizeof(*l->first));
    l->n = malloc(((size_t) s->nxfers + 1) * sizeof(*l->n));
    if (NULL == mark || NULL == l->first || NULL == l->n) {
        free(mark);
        return -1;
    }
    for (uint32_t i = 0; i < s->nxfers; ++i) {
        mark[i] = UINT32_MAX;
    }
    for (uint32_t i = 0; i < s->nxfers; ++i) {
        const themis_xfer_t *x = &s->xfers[i];
        size_t start = l->nanc;
        for (uint32_t k = 0; k < x->ndeps; ++k) {
            uint32_t d = s->deps[x->dep_first + k];
            if (involves(&s->xfers[d], rank)) {
                if (mark[d] != i && 0 != anc_push(l, d)) {
                    free(mark);
                    return -1;
                }
                mark[d] = i;
                continue;
            }
            for (uint32_t a = 0; a < l->n[d]; ++a) {
                uint32_t v = l->anc[l->first[d] + a];
                if (mark[v] != i && 0 != anc_push(l, v)) {
                    free(mark);
                    return -1;
                }
                mark[v] = i;
            }
        }
        l->first[i] = (uint32_t) start;
        l->n[i] = (uint32_t) (l->nanc - start);
    }
    free(mark);
    return 0;
}

#define WHY(st, ...) (snprintf(why, len, __VA_ARGS__), (st))

themis_status_t themis_xfer_compile(const themis_xfer_sched_t *s, int rank, uint64_t total,
                                    uint32_t chunks_in_flight, themis_program_t *out,
                                    char *why, size_t len)
{
    themis_program_t *p = out;
    local_deps_t l = {0};
    uint32_t me = (uint32_t) rank, *op_of = NULL, *qid = NULL, *qfill = NULL;
    uint64_t u, off[THEMIS_NBUFS], units = 0;
    themis_status_t st = THEMIS_ERR_NOMEM;

    memset(p, 0, sizeof(*p));
    if (rank < 0 || me >= s->nranks || 0 == chunks_in_flight || 0 == s->nunits) {
        return WHY(THEMIS_ERR_INVALID, "rank %d, %u in flight, %u units: cannot compile", rank,
                   chunks_in_flight, s->nunits);
    }
    if (0 == total || 0 != total % s->nunits) {
        return WHY(THEMIS_ERR_UNSUPPORTED, "%llu elements do not divide into the schedule's "
                   "%u units", (unsigned long long) total, s->nunits);
    }
    u = total / s->nunits;
    for (int b = 0; b < THEMIS_NBUFS; ++b) {
        off[b] = units * u;
        if (__builtin_add_overflow(units, s->buf_units[b], &units)) {
            return WHY(THEMIS_ERR_INVALID, "buffers overflow");
        }
    }
    if (__builtin_mul_overflow(units, u, &p->work_count)) {
        return WHY(THEMIS_ERR_UNSUPPORTED, "%llu elements per unit: work buffer overflows",
                   (unsigned long long) u);
    }

    /* Ops of this rank, one per transfer it takes part in. */
    op_of = malloc(((size_t) s->nxfers + 1) * sizeof(*op_of));
    qid = calloc(2 * (size_t) s->nranks + 1, sizeof(*qid));
    qfill = calloc(2 * (size_t) s->nranks + 1, sizeof(*qfill));
    if (NULL == op_of || NULL == qid || NULL == qfill || 0 != local_deps(s, me, &l)) {
        goto out;
    }
    /* Queue keys: 0 local, 1 + 2 peer send, 2 + 2 peer receive. */
    for (uint32_t i = 0; i < s->nxfers; ++i) {
        const themis_xfer_t *x = &s->xfers[i];
        op_of[i] = UINT32_MAX;
        if (!involves(x, me)) {
            continue;
        }
        size_t key = x->src == x->dst ? 0 : x->src == me ? 1 + 2 * (size_t) x->dst
                                                          : 2 + 2 * (size_t) x->src;
        op_of[i] = p->nops++;
        p->nop_deps += l.n[i];
        qfill[key]++;
    }
    for (size_t k = 0; k <= 2 * (size_t) s->nranks; ++k) {
        qid[k] = qfill[k] > 0 ? p->nqueues++ : UINT32_MAX;
    }
    p->ops = calloc((size_t) p->nops + 1, sizeof(*p->ops));
    p->steps = calloc((size_t) p->nops + 1, sizeof(*p->steps));
    p->op_deps = malloc(((size_t) p->nop_deps + 1) * sizeof(*p->op_deps));
    p->queue_first = calloc((size_t) p->nqueues + 1, sizeof(*p->queue_first));
    p->queue_ops = malloc(((size_t) p->nops + 1) * sizeof(*p->queue_ops));
    p->copy_in = calloc(1, sizeof(*p->copy_in));
    p->copy_out = calloc(1, sizeof(*p->copy_out));
    if (NULL == p->ops || NULL == p->steps || NULL == p->op_deps || NULL == p->queue_first
        || NULL == p->queue_ops || NULL == p->copy_in || NULL == p->copy_out) {
        goto out;
    }
    /* queue_first by prefix sums over the non-empty keys, in key order. */
    for (size_t k = 0, q = 0; k <= 2 * (size_t) s->nranks; ++k) {
        if (UINT32_MAX != qid[k]) {
            p->queue_first[q + 1] = p->queue_first[q] + qfill[k];
            qfill[k] = p->queue_first[q];
            q++;
        }
    }

    uint32_t nd = 0;
    for (uint32_t i = 0; i < s->nxfers; ++i) {
        const themis_xfer_t *x = &s->xfers[i];
        if (UINT32_MAX == op_of[i]) {
            continue;
        }
        uint32_t o = op_of[i];
        size_t key = x->src == x->dst ? 0 : x->src == me ? 1 + 2 * (size_t) x->dst
                                                          : 2 + 2 * (size_t) x->src;
        themis_op_t *op = &p->ops[o];
        themis_step_t *stp = &p->steps[o];
        uint64_t cnt = x->count * u;

        op->queue = qid[key];
        op->first_step = o;
        op->nsteps = 1;
        op->chunk = i;
        op->phase = THEMIS_XFER_REDUCE == x->kind ? THEMIS_PHASE_RS : THEMIS_PHASE_AG;
        op->dep_first = nd;
        op->ndeps = l.n[i];
        for (uint32_t a = 0; a < l.n[i]; ++a) {
            p->op_deps[nd++] = op_of[l.anc[l.first[i] + a]];
        }
        p->queue_ops[qfill[key]++] = o;

        stp->send_peer = -1;
        stp->recv_peer = -1;
        stp->tag = i;
        if (x->src == me) {
            stp->send_off = off[x->src_buf] + x->src_off * u;
            stp->send_count = cnt;
        }
        if (x->dst == me) {
            stp->recv_off = off[x->dst_buf] + x->dst_off * u;
            stp->recv_count = cnt;
        }
        if (x->src == x->dst) {
            stp->recv_mode = THEMIS_XFER_REDUCE == x->kind ? THEMIS_LOCAL_REDUCE
                                                           : THEMIS_LOCAL_COPY;
        } else if (x->src == me) {
            stp->send_peer = (int32_t) x->dst;
        } else {
            stp->recv_peer = (int32_t) x->src;
            stp->recv_mode = THEMIS_XFER_REDUCE == x->kind ? THEMIS_RECV_REDUCE
                                                           : THEMIS_RECV_COPY;
            if (THEMIS_XFER_REDUCE == x->kind && cnt > p->max_recv_count) {
                p->max_recv_count = cnt;
            }
        }
    }
    p->nsteps = p->nops;
    p->chunks_in_flight = chunks_in_flight;
    p->max_op_reduce_recvs = p->max_recv_count > 0 ? 1 : 0;
    p->work_is_output = 0;
    p->ncopy_in = 1;
    p->copy_in[0] = (themis_copy_t) {.src_off = 0, .dst_off = off[THEMIS_BUF_INPUT],
                                     .count = s->buf_units[THEMIS_BUF_INPUT] * u};
    p->ncopy_out = 1;
    p->copy_out[0] = (themis_copy_t) {.src_off = off[s->result_buf], .dst_off = 0,
                                      .count = (THEMIS_COLL_REDUCE_SCATTER == s->coll
                                                    ? s->nunits / s->nranks
                                                    : s->nunits) * u};
    st = THEMIS_OK;
out:
    free(op_of);
    free(qid);
    free(qfill);
    free(l.first);
    free(l.n);
    free(l.anc);
    if (THEMIS_OK != st) {
        themis_program_free(p);
        if (THEMIS_ERR_NOMEM == st) {
            snprintf(why, len, "out of memory");
        }
    }
    return st;
}
