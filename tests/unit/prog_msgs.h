/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Comparing programs (plan.h) in unit tests: the messages a program sends
 * and receives, and its results on doubles whose sums depend on the
 * order of the additions (run under vexec.h).
 */
#ifndef THEMIS_PROG_MSGS_H
#define THEMIS_PROG_MSGS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "vexec.h"

/* One message of a program: direction, peer, elements, receive mode and
 * offset (allgather's shifted by the input the compiled program keeps in
 * front of its output). */
typedef struct {
    int32_t dir, peer;
    uint64_t count, off;
    int32_t mode;
} msg_t;

static int msg_cmp(const void *a, const void *b)
{
    const msg_t *x = a, *y = b;
    if (x->dir != y->dir) {
        return x->dir < y->dir ? -1 : 1;
    }
    if (x->peer != y->peer) {
        return x->peer < y->peer ? -1 : 1;
    }
    if (x->off != y->off) {
        return x->off < y->off ? -1 : 1;
    }
    if (x->count != y->count) {
        return x->count < y->count ? -1 : 1;
    }
    return (x->mode > y->mode) - (x->mode < y->mode);
}

/* The non-empty messages of p, sorted; their number in *n.  Offsets less
 * shift, or all 0 for shift UINT64_MAX (the pieces in another order). */
static inline msg_t *messages(const themis_program_t *p, uint64_t shift, uint32_t *n)
{
    int offs = UINT64_MAX != shift;
    msg_t *m = calloc(2 * (size_t)p->nsteps + 1, sizeof(*m));
    *n = 0;
    for (uint32_t i = 0; NULL != m && i < p->nsteps; i++) {
        const themis_step_t *st = &p->steps[i];
        if (st->send_peer >= 0 && st->send_count > 0) {
            m[(*n)++] = (msg_t){0, st->send_peer, st->send_count,
                                offs ? st->send_off - shift : 0, 0};
        }
        if (st->recv_peer >= 0 && st->recv_count > 0) {
            m[(*n)++] = (msg_t){1, st->recv_peer, st->recv_count,
                                offs ? st->recv_off - shift : 0, st->recv_mode};
        }
    }
    if (NULL != m) {
        qsort(m, *n, sizeof(*m), msg_cmp);
    }
    return m;
}

static void sum_f64(void *inout, const void *in, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        ((double *)inout)[i] += ((const double *)in)[i];
    }
}

/* Doubles whose sum depends on the order of the additions. */
static double fvalue(uint32_t r, uint64_t i)
{
    return (1.0 + (double)((r * 31u + i * 17u) % 97u) / 7.0) * (double)(1u << ((r + i) % 24u));
}

/* Runs progs under vexec on doubles; 0 and the outputs in out[]. */
static int run_f64(uint32_t n, themis_program_t *progs, themis_coll_t coll, uint64_t in_n,
                   const uint64_t *out_n, double **out, char *why, size_t len)
{
    themis_program_t **pp = calloc(n, sizeof(*pp));
    double **in = calloc(n, sizeof(*in));
    int rc = -1;
    for (uint32_t r = 0; NULL != pp && NULL != in && r < n; r++) {
        pp[r] = &progs[r];
        in[r] = malloc((in_n + 1) * sizeof(double));
        if (NULL == in[r]) {
            goto done;
        }
        for (uint64_t i = 0; i < in_n; i++) {
            in[r][i] = fvalue(r, THEMIS_COLL_ALLGATHER == coll ? r * in_n + i : i);
        }
        memset(out[r], 0, (out_n[r] + 1) * sizeof(double));
    }
    if (NULL != pp && NULL != in) {
        rc = vexec_run((int)n, pp, (const void *const *)in, (void *const *)out, sizeof(double),
                       sum_f64, 3, why, len);
    }
done:
    for (uint32_t r = 0; NULL != in && r < n; r++) {
        free(in[r]);
    }
    free(in);
    free(pp);
    return rc;
}

#endif
