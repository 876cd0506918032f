/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Ring phases as transfer schedules (xfer_ring.h): the classic ring, and
 * HammingMesh's rings and torus2d, whose ring phases run on the same
 * step functions.  Dependencies come from a
 * conflict tracker rather than from ring algebra: whatever the steps,
 * each transfer waits for the last writer of every unit it reads or
 * writes and for the readers since of every unit it writes, which is
 * exactly what transfer.h's race rule asks.
 */
#include "xfer_ring.h"

#include "xfer_sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* P-1 steps in buf over the ranks pos[0..p) in ring order, position i
 * sending to i + 1 at every step, positions in order.  REDUCE: position
 * i ends with units unit[i] .. unit[i] + n - 1 reduced (at step k it
 * sends the block whose reduction started at position i - k).  COPY:
 * position i starts with the n units at unit[i].  A slice takes only the
 * rank's two transfers of each step (to and from its neighbours). */
static themis_status_t ring_steps(themis_xfer_sink_t *sk, const uint32_t *pos,
                                  const uint32_t *unit, uint32_t p, uint8_t buf, uint64_t n,
                                  int reduce)
{
    themis_status_t st = THEMIS_OK;
    const uint32_t base = sk->next;
    uint32_t me = NONE, mine[2] = {0, 0};
    for (uint32_t i = 0; NULL != sk->sl && i < p; i++) {
        me = pos[i] == sk->sl->rank ? i : me;
    }
    if (NULL != sk->sl && p >= 2) {
        if (NONE == me) {
            sk->next = base + (p - 1) * p;
            return THEMIS_OK;
        }
        /* the rank receives from position me - 1 and sends as me */
        mine[0] = 0 == me ? me : me - 1;
        mine[1] = 0 == me ? p - 1 : me;
    }
    for (uint32_t k = 0; k + 1 < p && THEMIS_OK == st; k++) {
        for (uint32_t j = 0; j < (NULL != sk->sl ? 2 : p) && THEMIS_OK == st; j++) {
            uint32_t i = NULL != sk->sl ? mine[j] : j;
            uint32_t u = reduce ? unit[(i + 2 * p - k - 1) % p] : unit[(i + p - k) % p];
            sk->next = base + k * p + i;
            st = themis_xfer_sink_add(sk, pos[i], pos[(i + 1) % p],
                          reduce ? THEMIS_XFER_REDUCE : THEMIS_XFER_COPY, buf, u, buf, u, n);
        }
    }
    sk->next = base + (p > 0 ? (p - 1) * p : 0);
    return st;
}

static themis_status_t reduce_steps(themis_xfer_sink_t *sk, const uint32_t *pos,
                                    const uint32_t *unit, uint32_t p, uint8_t buf, uint64_t n)
{
    return ring_steps(sk, pos, unit, p, buf, n, 1);
}

static themis_status_t gather_steps(themis_xfer_sink_t *sk, const uint32_t *pos,
                                    const uint32_t *unit, uint32_t p, uint8_t buf, uint64_t n)
{
    return ring_steps(sk, pos, unit, p, buf, n, 0);
}

themis_status_t themis_xfer_ring(themis_coll_t coll, uint32_t nranks, const uint32_t *order,
                                 themis_xfer_sched_t *out)
{
    uint32_t p = nranks;
    memset(out, 0, sizeof(*out));
    if (0 == p || p > THEMIS_XFER_RING_MAX_RANKS ||
        (THEMIS_COLL_ALLREDUCE != coll && THEMIS_COLL_REDUCE_SCATTER != coll &&
         THEMIS_COLL_ALLGATHER != coll)) {
        return THEMIS_ERR_INVALID;
    }
    uint32_t *pos = malloc((size_t) p * sizeof(*pos));
    uint8_t *seen = calloc(p, 1);
    if (NULL == pos || NULL == seen) {
        free(pos);
        free(seen);
        return THEMIS_ERR_NOMEM;
    }
    themis_status_t st = THEMIS_OK;
    for (uint32_t i = 0; i < p; i++) {
        pos[i] = (NULL != order) ? order[i] : i;
        if (pos[i] >= p || seen[pos[i]]) {
            st = THEMIS_ERR_INVALID;
            break;
        }
        seen[pos[i]] = 1;
    }
    free(seen);
    if (THEMIS_OK != st) {
        free(pos);
        return st;
    }

    themis_xfer_init(out, coll, p, p);
    snprintf(out->name, sizeof(out->name), "ring %s", themis_coll_name(coll));
    switch (coll) {
    case THEMIS_COLL_ALLREDUCE:
        out->buf_units[THEMIS_BUF_INPUT] = p;
        out->buf_units[THEMIS_BUF_OUTPUT] = p;
        break;
    case THEMIS_COLL_REDUCE_SCATTER:
        out->buf_units[THEMIS_BUF_INPUT] = p;
        out->buf_units[THEMIS_BUF_SCRATCH] = p;
        out->buf_units[THEMIS_BUF_OUTPUT] = 1;
        break;
    case THEMIS_COLL_ALLGATHER:
        out->buf_units[THEMIS_BUF_INPUT] = 1;
        out->buf_units[THEMIS_BUF_OUTPUT] = p;
        break;
    }
    themis_xfer_sink_t tr;
    memset(&tr, 0, sizeof(tr));
    st = themis_xfer_tracker_init(&tr.tr, out);
    for (uint32_t i = 0; i < p && THEMIS_OK == st; i++) {
        uint32_t r = pos[i];
        if (THEMIS_COLL_ALLGATHER == coll) {
            st = themis_xfer_sink_add(&tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, 0,
                                      THEMIS_BUF_OUTPUT, r, 1);
        } else {
            st = themis_xfer_sink_add(
                &tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, 0,
                THEMIS_COLL_ALLREDUCE == coll ? THEMIS_BUF_OUTPUT : THEMIS_BUF_SCRATCH, 0, p);
        }
    }
    if (THEMIS_OK == st && THEMIS_COLL_ALLGATHER != coll) {
        st = reduce_steps(
            &tr, pos, pos, p,
            THEMIS_COLL_ALLREDUCE == coll ? THEMIS_BUF_OUTPUT : THEMIS_BUF_SCRATCH, 1);
    }
    if (THEMIS_OK == st && THEMIS_COLL_REDUCE_SCATTER != coll) {
        st = gather_steps(&tr, pos, pos, p, THEMIS_BUF_OUTPUT, 1);
    }
    for (uint32_t i = 0; i < p && THEMIS_OK == st && THEMIS_COLL_REDUCE_SCATTER == coll; i++) {
        st = themis_xfer_sink_add(&tr, pos[i], pos[i], THEMIS_XFER_COPY, THEMIS_BUF_SCRATCH,
                                  pos[i], THEMIS_BUF_OUTPUT, 0, 1);
    }
    themis_xfer_tracker_free(&tr.tr);
    free(pos);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}

/* ------------------------------------------------------------ rings */

#define NQ 4

typedef struct {
    themis_coll_t coll;
    uint32_t n, nchunks;
    uint32_t *members[NQ];      /* ring q's ranks in ring order */
    uint32_t *unit;             /* [n] scratch: the units of one stage */
    themis_xfer_sink_t tr;
} rings_ctx_t;

/* Stage s of chunk k of quarter q (transfer.h's nested layout: allreduce
 * unit (q K + k) n + j is ring position j's block; otherwise unit
 * x 4K + q K + k is rank x's piece). */
static themis_status_t rings_stage(rings_ctx_t *c, uint32_t q, uint32_t k, uint32_t s,
                                   uint32_t nstages)
{
    const uint32_t *pos = c->members[q];
    uint32_t per = NQ * c->nchunks;
    int all = THEMIS_COLL_ALLREDUCE == c->coll;
    for (uint32_t j = 0; j < c->n; j++) {
        c->unit[j] = all ? (q * c->nchunks + k) * c->n + j : pos[j] * per + q * c->nchunks + k;
    }
    int gather = 2 == nstages ? 1 == s : THEMIS_COLL_ALLGATHER == c->coll;
    uint8_t buf = THEMIS_COLL_ALLGATHER == c->coll ? THEMIS_BUF_OUTPUT : THEMIS_BUF_INPUT;
    return gather ? gather_steps(&c->tr, pos, c->unit, c->n, buf, 1)
                  : reduce_steps(&c->tr, pos, c->unit, c->n, buf, 1);
}

/* Stage s of chunk k of quarter q of a pipelined generator. */
typedef themis_status_t (*stage_fn_t)(void *ctx, uint32_t q, uint32_t k, uint32_t s);

/* Whether a quarter's block of a stage (len transfers from f) waits only
 * for transfers of the slots (from keep on).  Where a generator's
 * quarters q and q + twin are twins (rings alike by position, on units
 * of their own) and the blocks of quarters below twin do so, quarter q's
 * block waits as quarter q - twin's does, twin len on (every block len
 * long), and the whole list stamps it (xfer_sink.h) instead of tracking
 * it; copies ahead of the slots serve all quarters: tracked. */
static int twin_block(const themis_xfer_sched_t *s, uint32_t f, uint32_t len, uint32_t keep)
{
    for (uint32_t i = f; i < f + len; i++) {
        const themis_xfer_t *x = &s->xfers[i];
        for (uint32_t d = 0; d < x->ndeps; d++) {
            if (s->deps[x->dep_first + d] < keep) {
                return 0;   /* a copy ahead of the slots, which quarters share */
            }
        }
    }
    return 0 < len;
}

/* The stages in the old programs' software-pipelined order: slot t holds
 * stage s of chunk t - s, later stages first, quarters in order.  A
 * chunk's units are its own (unit_shift apart from the next chunk's in
 * the home buffers, scratch_shift in SCRATCH): its stage s waits only for
 * its stages before s, at most span slots back, across the stages after
 * s in its slot, full slots, and the stages before s' in the slot of
 * stage s'.  From slot 2 span on, all of those are full for slot t and
 * slot t - 1 alike, so in a slice slot t is slot t - 1 one chunk on:
 * repeated (themis_xfer_sink_repeat) instead of tracked transfer by
 * transfer; the first and last slots are emitted.
 * twin: quarters q and q + twin are twins (twin_block); 0: none.  alone:
 * the slots are the whole list (no copies ahead or after), so every
 * block of a twin waits for its own quarter's only: the tracker need not
 * note the stamped ones, which no tracked transfer looks at.  last:
 * nothing after the slots looks at their units but the sink's watched
 * ones (xfer_sink.h), so only the last slots before the drain need
 * noting in full (a chunk's units are touched in slots k .. k + span, the
 * drain's chunks from nchunks - span on). */
static themis_status_t pipelined_emit(themis_xfer_sink_t *sk, uint32_t nchunks, uint32_t ns,
                                      uint64_t unit_shift, uint64_t scratch_shift,
                                      uint32_t keep_shift, uint32_t twin, int alone, int last,
                                      stage_fn_t stage, void *ctx)
{
    themis_xfer_slice_t *sl = sk->sl;
    const uint64_t nslots = (uint64_t) nchunks + ns - 1, span = ns - 1;
    uint32_t *first = NULL, *tag = NULL;
    const uint32_t keep = NULL != sl ? sl->s.nxfers : 0;
    const uint64_t from = 0 < span ? 2 * span : 1;   /* the first slot repeated */
    if (NULL != sl && nchunks > from) {
        first = malloc(nslots * sizeof(*first));
        tag = malloc(nslots * sizeof(*tag));
        if (NULL == first || NULL == tag) {
            free(first);
            free(tag);
            return THEMIS_ERR_NOMEM;
        }
    }
    themis_status_t st = THEMIS_OK;
    const uint32_t first0 = sk->tr.s->nxfers;
    sk->stamp_unnoted = alone && 0 == first0;
    int unnoted = 0;   /* stamped transfers left out of the tracker */
    for (uint64_t t = 0; t < nslots && THEMIS_OK == st; t++) {
        if (NULL != first) {
            first[t] = sl->s.nxfers + sk->tr.id_shift;
            tag[t] = sk->next;
        }
        if (NULL != first && t >= from && t < nchunks) {
            st = themis_xfer_sink_repeat(sk, first[t - 1], keep, keep_shift, first[t - 1 - span],
                                         sk->next - tag[t - 1], unit_shift, scratch_shift,
                                         !last || t + span >= nchunks);
            if (THEMIS_ERR_UNSUPPORTED != st) {
                continue;
            }
            st = THEMIS_OK;
        }
        for (uint32_t s = ns; s-- > 0 && THEMIS_OK == st;) {
            if (t < s || t - s >= nchunks) {
                continue;
            }
            const uint32_t f0 = sk->tr.s->nxfers;
            uint32_t len = 0;
            int stamp = 0 < twin && twin < NQ && NULL == sl;
            for (uint32_t q = 0; q < NQ && THEMIS_OK == st; q++) {
                const uint32_t f = sk->tr.s->nxfers;
                if (stamp && q >= twin) {
                    sk->stamp_from = f - twin * len;
                    sk->stamp_shift = twin * len;
                    sk->stamp_left = len;
                }
                st = stage(ctx, q, (uint32_t) (t - s), s);
                len = 0 == q ? sk->tr.s->nxfers - f0 : len;
                if (stamp && q < twin) {
                    stamp = sk->tr.s->nxfers - f == len && twin_block(sk->tr.s, f, len, first0);
                    /* the twins' units noted so far are not all there */
                    st = !stamp && sk->stamp_unnoted && unnoted ? THEMIS_ERR_INVALID : st;
                    unnoted |= stamp && sk->stamp_unnoted && q + 1 == twin;
                } else if (THEMIS_OK == st && (0 != sk->stamp_left
                                               || (stamp && sk->tr.s->nxfers - f != len))) {
                    st = THEMIS_ERR_INVALID;   /* not twins: a block of another length */
                }
                sk->stamp_left = 0;
            }
        }
    }
    sk->stamp_unnoted = 0;
    free(first);
    free(tag);
    return st;
}

static themis_status_t rings_stage_fn(void *ctx, uint32_t q, uint32_t k, uint32_t s)
{
    rings_ctx_t *c = ctx;
    return rings_stage(c, q, k, s, THEMIS_COLL_ALLREDUCE == c->coll ? 2 : 1);
}

/* Allreduce: ring block j of chunk k is unit (q K + k) n + j; otherwise
 * rank x's piece k is unit x 4K + q K + k.  One copy ahead of the slots
 * (allgather) serves every chunk. */
static themis_status_t rings_emit(rings_ctx_t *c)
{
    const uint64_t shift = THEMIS_COLL_ALLREDUCE == c->coll ? c->n : 1;
    return pipelined_emit(&c->tr, c->nchunks, THEMIS_COLL_ALLREDUCE == c->coll ? 2 : 1, shift,
                          shift, 0, 1, THEMIS_COLL_ALLREDUCE == c->coll, 1, rings_stage_fn, c);
}

/* The whole list (sl NULL) or rank sl->rank's slice of it in sl->s. */
static themis_status_t rings_make(themis_coll_t coll, const themis_ham_t *cycles,
                                  const int *linear_to_rank, uint32_t nchunks,
                                  themis_xfer_sched_t *out, themis_xfer_slice_t *sl)
{
    memset(out, 0, sizeof(*out));
    if (NULL == cycles || NULL == cycles->cycle[0] || NULL == cycles->cycle[1]
        || cycles->rows < 3 || cycles->cols < 3 || 0 == nchunks
        || (THEMIS_COLL_ALLREDUCE != coll && THEMIS_COLL_REDUCE_SCATTER != coll
            && THEMIS_COLL_ALLGATHER != coll)) {
        return THEMIS_ERR_INVALID;
    }
    uint64_t n = (uint64_t) cycles->rows * cycles->cols;
    uint64_t per_chunk = NQ * (THEMIS_COLL_ALLREDUCE == coll ? 2 : 1) * n * (n - 1);
    if (NULL != sl && sl->rank >= n) {
        return THEMIS_ERR_INVALID;
    }
    if (per_chunk >
        (NULL != sl ? THEMIS_XFER_SLICE_MAX_XFERS : THEMIS_XFER_RINGS_MAX_XFERS) / nchunks) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    rings_ctx_t c;
    memset(&c, 0, sizeof(c));
    c.tr.sl = sl;
    c.coll = coll;
    c.n = (uint32_t) n;
    c.nchunks = nchunks;
    themis_status_t st = THEMIS_ERR_NOMEM;
    c.unit = malloc(n * sizeof(*c.unit));
    for (uint32_t q = 0; q < NQ; q++) {
        c.members[q] = malloc(n * sizeof(*c.members[q]));
    }
    uint8_t *seen = calloc(n, 1);
    if (NULL == c.unit || NULL == c.members[0] || NULL == c.members[1] || NULL == c.members[2]
        || NULL == c.members[3] || NULL == seen) {
        goto done;
    }
    st = THEMIS_OK;
    for (uint32_t j = 0; j < n && NULL != linear_to_rank; j++) {
        uint32_t r = (uint32_t) linear_to_rank[j];
        if (linear_to_rank[j] < 0 || r >= n || seen[r]) {
            st = THEMIS_ERR_INVALID;
            goto done;
        }
        seen[r] = 1;
    }
    /* Ring q: cycle q / 2, backwards for odd q (plan_torus.h). */
    for (uint32_t q = 0; q < NQ; q++) {
        const uint32_t *cyc = cycles->cycle[q / 2];
        for (uint32_t j = 0; j < n; j++) {
            uint32_t node = (q & 1) ? cyc[(n - j) % n] : cyc[j];
            c.members[q][j] = NULL != linear_to_rank ? (uint32_t) linear_to_rank[node] : node;
        }
    }
    uint32_t per = NQ * nchunks;
    themis_xfer_init(out, coll, c.n, per * c.n);
    snprintf(out->name, sizeof(out->name), "rings %ux%u %s", cycles->rows, cycles->cols,
             themis_coll_name(coll));
    out->nsplit = THEMIS_COLL_ALLREDUCE == coll ? 3 : 2;
    out->split[0] = NQ;
    out->split[1] = nchunks;
    out->split[2] = c.n;
    switch (coll) {
    case THEMIS_COLL_ALLREDUCE:   /* in place: reduce and gather in INPUT */
        out->buf_units[THEMIS_BUF_INPUT] = out->nunits;
        out->result_buf = THEMIS_BUF_INPUT;
        break;
    case THEMIS_COLL_REDUCE_SCATTER:   /* reduce in INPUT, own pieces to OUTPUT */
        out->buf_units[THEMIS_BUF_INPUT] = out->nunits;
        out->buf_units[THEMIS_BUF_OUTPUT] = per;
        break;
    case THEMIS_COLL_ALLGATHER:   /* own pieces to OUTPUT, gather there */
        out->buf_units[THEMIS_BUF_INPUT] = per;
        out->buf_units[THEMIS_BUF_OUTPUT] = out->nunits;
        break;
    }
    /* the rank's: two transfers a ring step, a copy at either end (the
     * whole list grows as it goes: reserved up front, its pages came
     * fresh from the kernel at every setup, slower than the copies) */
    st = themis_xfer_slice_reserve(
        sl,
        (uint64_t) NQ * nchunks * (THEMIS_COLL_ALLREDUCE == coll ? 2 : 1) * 2 * (n - 1) + 2);
    if (THEMIS_OK == st) {
        st = themis_xfer_tracker_init_rank(&c.tr.tr, out, NULL != sl ? sl->rank : NONE);
    }
    for (uint32_t r = 0; r < c.n && THEMIS_OK == st && THEMIS_COLL_ALLGATHER == coll; r++) {
        st = themis_xfer_sink_add(&c.tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT, 0,
                                  THEMIS_BUF_OUTPUT, (uint64_t) r * per, per);
    }
    /* a reduce-scatter's closing copy reads the rank's own pieces: a
     * slice's repeated slots note what touches them */
    if (NULL != sl && THEMIS_COLL_REDUCE_SCATTER == coll) {
        c.tr.watch_buf = THEMIS_BUF_INPUT;
        c.tr.watch_lo = (uint64_t) sl->rank * per;
        c.tr.watch_hi = c.tr.watch_lo + per;
    }
    if (THEMIS_OK == st) {
        st = rings_emit(&c);
    }
    for (uint32_t r = 0; r < c.n && THEMIS_OK == st && THEMIS_COLL_REDUCE_SCATTER == coll;
         r++) {
        st = themis_xfer_sink_add(&c.tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_INPUT,
                                  (uint64_t) r * per, THEMIS_BUF_OUTPUT, 0, per);
    }
    themis_xfer_tracker_free(&c.tr.tr);
done:
    free(seen);
    free(c.unit);
    for (uint32_t q = 0; q < NQ; q++) {
        free(c.members[q]);
    }
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}

themis_status_t themis_xfer_rings(themis_coll_t coll, const themis_ham_t *cycles,
                                  const int *linear_to_rank, uint32_t nchunks,
                                  themis_xfer_sched_t *out)
{
    return rings_make(coll, cycles, linear_to_rank, nchunks, out, NULL);
}

themis_status_t themis_xfer_rings_slice(themis_coll_t coll, const themis_ham_t *cycles,
                                        const int *linear_to_rank, uint32_t nchunks,
                                        uint32_t rank, themis_xfer_slice_t *out)
{
    const int periodic = out->periodic;   /* the caller's ask */
    memset(out, 0, sizeof(*out));
    out->periodic = periodic;
    out->rank = rank;
    return themis_xfer_slice_done(
        out, rings_make(coll, cycles, linear_to_rank, nchunks, &out->s, out));
}

/* ------------------------------------------------------------ torus2d */

typedef struct {
    themis_coll_t coll;
    uint32_t size[2], n, nchunks, nstages;
    const int *map;             /* node -> rank, NULL: identity */
    uint32_t *node_of;          /* [n] rank -> node */
    uint32_t *pos, *unit;       /* [max size] scratch: one ring */
    themis_xfer_sink_t tr;
} t2d_ctx_t;

static uint32_t t2d_rank(const t2d_ctx_t *c, uint32_t node)
{
    return NULL != c->map ? (uint32_t) c->map[node] : node;
}

/* Dimension and phase of stage s of quarter q (plan_torus.h). */
static void t2d_stage_of(const t2d_ctx_t *c, uint32_t q, uint32_t s, int *dim, int *gather)
{
    int a = q < 2 ? 0 : 1, b = 1 - a;
    switch (c->coll) {
    case THEMIS_COLL_ALLREDUCE:   /* RS A, RS B, AG B, AG A */
        *dim = (0 == s || 3 == s) ? a : b;
        *gather = s >= 2;
        return;
    case THEMIS_COLL_REDUCE_SCATTER:   /* RS A, RS B */
        *dim = 0 == s ? a : b;
        *gather = 0;
        return;
    default:   /* allgather: AG B, AG A */
        *dim = 0 == s ? b : a;
        *gather = 1;
        return;
    }
}

/* The rank whose piece leaf x of a quarter on A = a holds: leaf x =
 * digit on A * p_B + digit on B. */
static uint32_t t2d_owner(const t2d_ctx_t *c, int a, uint32_t x)
{
    uint32_t pb = c->size[1 - a], da = x / pb, db = x % pb;
    return t2d_rank(c, 0 == a ? da + c->size[0] * db : db + c->size[0] * da);
}

/* Rank r's copies of piece k of quarter q (unit x 4K + q K + k of rank
 * x) to or from its leaf (q K + k) P + x in SCRATCH: every rank's piece
 * (all: a reduce-scatter's input, an allgather's output) or its own.
 * Rank after rank; a slice's alone. */
static themis_status_t t2d_leaf_copies(t2d_ctx_t *c, uint32_t q, uint32_t k, int in, int all)
{
    const int a = q < 2 ? 0 : 1;
    const uint32_t per = NQ * c->nchunks, each = all ? c->n : 1;
    const uint32_t from = NULL != c->tr.sl ? c->tr.sl->rank : 0;
    const uint32_t to = NULL != c->tr.sl ? from + 1 : c->n;
    const uint32_t base = c->tr.next;
    const uint64_t m = (uint64_t) q * c->nchunks + k;
    const uint8_t outer = in ? THEMIS_BUF_INPUT : THEMIS_BUF_OUTPUT;
    themis_status_t st = THEMIS_OK;
    c->tr.next = base + from * each;
    for (uint32_t r = from; r < to && THEMIS_OK == st; r++) {
        /* the rank's own leaf: its node's digits, A first */
        const uint32_t nd = c->node_of[r], d0 = nd % c->size[0], d1 = nd / c->size[0];
        const uint32_t own = 0 == a ? d0 * c->size[1] + d1 : nd;
        for (uint32_t j = 0; j < each && THEMIS_OK == st; j++) {
            const uint32_t x = all ? j : own;
            const uint64_t leaf = m * c->n + x;
            const uint64_t unit = (all ? (uint64_t) t2d_owner(c, a, x) * per : 0) + m;
            st = in ? themis_xfer_sink_add(&c->tr, r, r, THEMIS_XFER_COPY, outer, unit,
                                           THEMIS_BUF_SCRATCH, leaf, 1)
                    : themis_xfer_sink_add(&c->tr, r, r, THEMIS_XFER_COPY, THEMIS_BUF_SCRATCH,
                                           leaf, outer, unit, 1);
        }
    }
    c->tr.next = base + c->n * each;
    return st;
}

/* Node of coordinate j on dim and o on the other dimension. */
static uint32_t t2d_node(const t2d_ctx_t *c, int dim, uint32_t j, uint32_t o)
{
    return 0 == dim ? j + c->size[0] * o : o + c->size[0] * j;
}

/* Every ring of stage s of chunk k of quarter q: one per line along dim,
 * forward for even q, backward for odd q.  The piece's units are its
 * leaves, leaf x = digit on A * p_B + digit on B: a ring on A moves
 * blocks of p_B leaves, one on B single leaves of its A digit.  A
 * reduce-scatter or allgather copies the chunk's pieces to their leaves
 * before its first stage and back after its last, inside the chunk's
 * slots: a slice's repeated slots carry them (scratch_shift). */
static themis_status_t t2d_stage(t2d_ctx_t *c, uint32_t q, uint32_t k, uint32_t s)
{
    int dim, gather, a = q < 2 ? 0 : 1;
    t2d_stage_of(c, q, s, &dim, &gather);
    uint32_t p = c->size[dim], lines = c->size[1 - dim], pb = c->size[1 - a];
    uint32_t base = (q * c->nchunks + k) * c->n;
    uint8_t buf = THEMIS_COLL_ALLREDUCE == c->coll ? THEMIS_BUF_INPUT : THEMIS_BUF_SCRATCH;
    themis_status_t st = THEMIS_OK;
    if (THEMIS_COLL_ALLREDUCE != c->coll && 0 == s) {
        st = t2d_leaf_copies(c, q, k, 1, THEMIS_COLL_REDUCE_SCATTER == c->coll);
    }
    for (uint32_t o = 0; o < lines && p >= 2 && THEMIS_OK == st; o++) {
        for (uint32_t j = 0; j < p; j++) {
            uint32_t m = (q & 1) ? p - 1 - j : j;
            c->pos[j] = t2d_rank(c, t2d_node(c, dim, m, o));
            c->unit[j] = dim == a ? base + m * pb : base + o * pb + m;
        }
        uint64_t cnt = dim == a ? pb : 1;
        st = gather ? gather_steps(&c->tr, c->pos, c->unit, p, buf, cnt)
                    : reduce_steps(&c->tr, c->pos, c->unit, p, buf, cnt);
    }
    if (THEMIS_OK == st && THEMIS_COLL_ALLREDUCE != c->coll && c->nstages - 1 == s) {
        st = t2d_leaf_copies(c, q, k, 0, THEMIS_COLL_ALLGATHER == c->coll);
    }
    return st;
}

static themis_status_t t2d_stage_fn(void *ctx, uint32_t q, uint32_t k, uint32_t s)
{
    return t2d_stage(ctx, q, k, s);
}

/* The global unit each SCRATCH leaf holds throughout (rank x's piece k
 * of quarter q in leaf (q K + k) P + x, alike on every rank): a slice's
 * units (transfer_slice.h). */
static themis_status_t t2d_scratch_units(const t2d_ctx_t *c, themis_xfer_slice_t *sl)
{
    uint32_t per = NQ * c->nchunks;
    sl->scratch_unit = malloc(((size_t) per * c->n + 1) * sizeof(*sl->scratch_unit));
    if (NULL == sl->scratch_unit) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t q = 0; q < NQ; q++) {
        for (uint32_t x = 0; x < c->n; x++) {
            const uint32_t owner = t2d_owner(c, q < 2 ? 0 : 1, x);
            for (uint32_t k = 0; k < c->nchunks; k++) {
                sl->scratch_unit[(size_t) (q * c->nchunks + k) * c->n + x] =
                    owner * per + q * c->nchunks + k;
            }
        }
    }
    return THEMIS_OK;
}

/* The whole list (sl NULL) or rank sl->rank's slice of it in sl->s. */
static themis_status_t torus2d_make(themis_coll_t coll, uint32_t rows, uint32_t cols,
                                    const int *linear_to_rank, uint32_t nchunks,
                                    themis_xfer_sched_t *out, themis_xfer_slice_t *sl)
{
    memset(out, 0, sizeof(*out));
    if (0 == rows || 0 == cols || 0 == nchunks
        || (THEMIS_COLL_ALLREDUCE != coll && THEMIS_COLL_REDUCE_SCATTER != coll
            && THEMIS_COLL_ALLGATHER != coll)) {
        return THEMIS_ERR_INVALID;
    }
    uint64_t n = (uint64_t) rows * cols, most = rows > cols ? rows : cols;
    /* every stage moves each rank's blocks over at most max(r, c) - 1
     * steps; leaf copies add 4 K P per rank */
    uint64_t per_chunk = NQ * 4 * n * most + 2 * NQ * n * n;
    uint64_t limit = NULL != sl ? THEMIS_XFER_SLICE_MAX_XFERS : THEMIS_XFER_RINGS_MAX_XFERS;
    if (NULL != sl && sl->rank >= n) {
        return THEMIS_ERR_INVALID;
    }
    if (n > UINT32_MAX / NQ || per_chunk > limit / nchunks) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    t2d_ctx_t c;
    memset(&c, 0, sizeof(c));
    c.tr.sl = sl;
    c.coll = coll;
    c.size[0] = cols;
    c.size[1] = rows;
    c.n = (uint32_t) n;
    c.nchunks = nchunks;
    c.nstages = THEMIS_COLL_ALLREDUCE == coll ? 4 : 2;
    c.map = linear_to_rank;
    themis_status_t st = THEMIS_ERR_NOMEM;
    c.node_of = malloc(n * sizeof(*c.node_of));
    c.pos = malloc(most * sizeof(*c.pos));
    c.unit = malloc(most * sizeof(*c.unit));
    if (NULL == c.node_of || NULL == c.pos || NULL == c.unit) {
        goto done;
    }
    st = THEMIS_OK;
    for (uint32_t j = 0; j < n; j++) {
        c.node_of[j] = NULL != linear_to_rank ? UINT32_MAX : j;
    }
    for (uint32_t j = 0; j < n && NULL != linear_to_rank; j++) {
        if (linear_to_rank[j] < 0 || (uint64_t) linear_to_rank[j] >= n
            || UINT32_MAX != c.node_of[linear_to_rank[j]]) {
            st = THEMIS_ERR_INVALID;
            goto done;
        }
        c.node_of[linear_to_rank[j]] = j;
    }
    uint32_t per = NQ * nchunks;
    themis_xfer_init(out, coll, c.n, per * c.n);
    snprintf(out->name, sizeof(out->name), "torus2d %ux%u %s", rows, cols,
             themis_coll_name(coll));
    out->split[0] = NQ;
    out->split[1] = nchunks;
    if (THEMIS_COLL_ALLREDUCE == coll) {
        /* in place; a piece's leaves split on A first: cols for quarters
         * 0, 1, rows for 2, 3 (the transposed torus) */
        out->buf_units[THEMIS_BUF_INPUT] = out->nunits;
        out->result_buf = THEMIS_BUF_INPUT;
        out->nsplit = 4;
        out->split[2] = cols;
        out->split[3] = rows;
        out->split_alt_from = 2;
        out->split_alt[1] = nchunks;
        out->split_alt[2] = rows;
        out->split_alt[3] = cols;
    } else {
        /* the pieces in leaf order in SCRATCH (plan_torus.h) */
        out->nsplit = 2;
        int ag = THEMIS_COLL_ALLGATHER == coll;
        out->buf_units[THEMIS_BUF_INPUT] = ag ? per : out->nunits;
        out->buf_units[THEMIS_BUF_OUTPUT] = ag ? out->nunits : per;
        out->buf_units[THEMIS_BUF_SCRATCH] = out->nunits;
        st = NULL != sl ? t2d_scratch_units(&c, sl) : THEMIS_OK;
    }
    /* the rank's: two transfers a ring step, its leaf copies */
    if (THEMIS_OK == st) {
        st = themis_xfer_slice_reserve(sl, (uint64_t) NQ * nchunks
                                   * (c.nstages * 2 * (most - 1)
                                      + (THEMIS_COLL_ALLREDUCE == coll ? 0 : n + 1)));
    }
    if (THEMIS_OK == st) {
        st = themis_xfer_tracker_init_rank(&c.tr.tr, out, NULL != sl ? sl->rank : NONE);
    }
    /* software-pipelined, as the rings; chunk k's leaves are units
     * (q K + k) P + x, a reduce-scatter's or allgather's leaf copies in
     * its first and last stages (t2d_stage): its quarters' blocks are of
     * other lengths in other stages, no twins */
    if (THEMIS_OK == st) {
        const int ar = THEMIS_COLL_ALLREDUCE == coll;
        st = pipelined_emit(&c.tr, nchunks, c.nstages, ar ? c.n : 1, c.n, 0,
                            ar && rows == cols ? 2 : 0, 1, 1, t2d_stage_fn, &c);
    }
    themis_xfer_tracker_free(&c.tr.tr);
done:
    free(c.node_of);
    free(c.pos);
    free(c.unit);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}

themis_status_t themis_xfer_torus2d(themis_coll_t coll, uint32_t rows, uint32_t cols,
                                    const int *linear_to_rank, uint32_t nchunks,
                                    themis_xfer_sched_t *out)
{
    return torus2d_make(coll, rows, cols, linear_to_rank, nchunks, out, NULL);
}

themis_status_t themis_xfer_torus2d_slice(themis_coll_t coll, uint32_t rows, uint32_t cols,
                                          const int *linear_to_rank, uint32_t nchunks,
                                          uint32_t rank, themis_xfer_slice_t *out)
{
    const int periodic = out->periodic;   /* the caller's ask */
    memset(out, 0, sizeof(*out));
    out->periodic = periodic;
    out->rank = rank;
    return themis_xfer_slice_done(
        out, torus2d_make(coll, rows, cols, linear_to_rank, nchunks, &out->s, out));
}
