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
 *
 * Units of different sizes (transfer.h, themis_xfer_layout): which global
 * unit a buffer unit holds when a transfer reads it follows from running
 * the list in order (what themis_xfer_check proved), for every rank, so
 * that both sides of a transfer size its message and split it into
 * contiguous runs alike.
 */
#include "transfer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "plan_builder.h"
#include "program_runs.h"
#include "transfer_slice.h"
#include "util.h"

static int involves(const themis_xfer_t *x, uint32_t rank)
{
    return x->src == rank || x->dst == rank;
}

#define WHY(st, ...) (snprintf(why, len, __VA_ARGS__), (st))

/* Offsets of the per units of a block of n elements starting at `at`
 * (transfer.h's nested layout from level l on, split its levels): each
 * level's parts in one pass, a division per part, not per unit. */
static void nested_offsets(const themis_xfer_sched_t *s, const uint32_t *split, uint32_t l,
                           uint64_t at, uint64_t n, uint64_t per, uint64_t *off)
{
    const uint64_t parts = l < s->nsplit ? split[l] : per;
    const uint64_t q = n / parts, extra = n % parts, sub = per / parts;
    for (uint64_t d = 0; d < parts; ++d) {
        uint64_t o = at + d * q + (d < extra ? d : extra);
        if (l + 1 >= s->nsplit) {
            off[d] = o;   /* the last level (or the one even split) */
            continue;
        }
        const uint32_t *next = 0 == l && 0 != s->split_alt_from && d >= s->split_alt_from
                                   ? s->split_alt
                                   : split;
        nested_offsets(s, next, l + 1, o, q + (d < extra ? 1 : 0), sub, off + d * sub);
    }
}

/* s's explicit layout, where the call's blocks are the ones it was cut
 * for (transfer.h). */
static themis_status_t explicit_layout(const themis_xfer_sched_t *s, uint64_t total,
                                       const uint64_t *counts, uint32_t per, uint64_t *off,
                                       char *why, size_t len)
{
    const uint64_t *u = s->unit_off;
    if (0 != u[0] || u[s->nunits] != total) {
        return WHY(THEMIS_ERR_INVALID, "the schedule was cut for a call of %llu elements, "
                   "not %llu", (unsigned long long) (u[s->nunits] - u[0]),
                   (unsigned long long) total);
    }
    for (uint32_t g = 0; g < s->nunits; ++g) {
        if (u[g + 1] < u[g]) {
            return WHY(THEMIS_ERR_INVALID, "unit %u of the schedule's layout ends before it "
                       "begins", g);
        }
    }
    for (uint32_t r = 0; THEMIS_COLL_ALLREDUCE != s->coll && r < s->nranks; ++r) {
        uint64_t n = NULL != counts ? counts[r] : themis_split_part(total, s->nranks, r);
        if (u[(size_t) (r + 1) * per] - u[(size_t) r * per] != n) {
            return WHY(THEMIS_ERR_INVALID, "the schedule was cut for other counts (rank %u: "
                       "%llu elements, not %llu)", r,
                       (unsigned long long) (u[(size_t) (r + 1) * per] - u[(size_t) r * per]),
                       (unsigned long long) n);
        }
    }
    memcpy(off, u, ((size_t) s->nunits + 1) * sizeof(*off));
    return THEMIS_OK;
}

themis_status_t themis_xfer_layout(const themis_xfer_sched_t *s, uint64_t total,
                                   const uint64_t *counts, uint64_t *off, char *why, size_t len)
{
    int all = THEMIS_COLL_ALLREDUCE == s->coll;
    uint32_t nblocks = all ? 1 : s->nranks;
    if (0 == s->nranks || 0 == s->nunits || 0 != s->nunits % nblocks) {
        return WHY(THEMIS_ERR_INVALID, "%u units do not divide into %u blocks", s->nunits,
                   nblocks);
    }
    uint64_t levels = 1, alt = 1;
    for (uint32_t l = 0; l < s->nsplit && l < THEMIS_XFER_MAX_SPLIT; ++l) {
        levels *= 0 != s->split[l] ? s->split[l] : UINT32_MAX;
        alt *= 0 == l ? s->split[0] : 0 != s->split_alt[l] ? s->split_alt[l] : UINT32_MAX;
    }
    if (s->nsplit > THEMIS_XFER_MAX_SPLIT || (0 != s->nsplit && levels != s->nunits / nblocks)
        || (0 != s->split_alt_from && alt != levels)) {
        return WHY(THEMIS_ERR_INVALID, "%u split levels do not make the %u units of a block",
                   s->nsplit, s->nunits / nblocks);
    }
    if (THEMIS_COLL_ALLGATHER == s->coll && NULL == counts && 0 != total % s->nranks) {
        return WHY(THEMIS_ERR_INVALID, "an allgather of %llu elements over %u ranks: not %u "
                   "equal blocks", (unsigned long long) total, s->nranks, s->nranks);
    }
    uint32_t per = s->nunits / nblocks;
    uint64_t at = 0;
    if (NULL != s->unit_off) {
        return explicit_layout(s, total, counts, per, off, why, len);
    }
    for (uint32_t r = 0; r < nblocks; ++r) {
        uint64_t n = all ? total
                         : NULL != counts ? counts[r] : themis_split_part(total, nblocks, r);
        nested_offsets(s, s->split, 0, at, n, per, &off[(size_t) r * per]);
        if (__builtin_add_overflow(at, n, &at)) {
            return WHY(THEMIS_ERR_INVALID, "the block counts overflow");
        }
    }
    off[s->nunits] = at;
    if (at != total) {
        return WHY(THEMIS_ERR_INVALID, "the blocks have %llu elements, the call %llu",
                   (unsigned long long) at, (unsigned long long) total);
    }
    return THEMIS_OK;
}

/* Every rank's buffer units: the global unit each holds as the list runs,
 * and its size (elements): the largest it ever holds, at least that of the
 * unit the collective puts there (input, result).  When every unit has
 * the same size (`even`, the count divides) all are that size and nothing
 * is tracked: the common case costs no pass over every rank's units. */
typedef struct {
    const themis_xfer_sched_t *s;
    const uint64_t *off;        /* the layout */
    uint64_t even;              /* the size of every unit, or 0: tracked */
    /* A slice's stationary units (transfer_slice.h): each unit's global
     * unit is its home or scratch_unit's, nothing tracked. */
    const uint32_t *scratch_unit;
    int stationary;
    uint64_t per_block;         /* units of a rank's block: nunits / nranks */
    uint64_t base[THEMIS_NBUFS], per_rank;
    uint32_t *gid;              /* UINT32_MAX: nothing yet */
    uint64_t *size;
    uint64_t *carried_first;    /* [nxfers + 1] into carried[] */
    uint32_t *carried;          /* the global unit of each unit of each transfer */
} units_t;

static uint64_t unit_len(const units_t *m, uint32_t g)
{
    return m->off[g + 1] - m->off[g];
}

static size_t unit_at(const units_t *m, uint32_t rank, uint8_t buf, uint64_t unit)
{
    return (size_t) (rank * m->per_rank + m->base[buf] + unit);
}

/* The global unit the collective puts in (rank, buf, unit), UINT32_MAX
 * where it puts none (scratch, the output of an allreduce in place). */
static uint32_t home_unit(const themis_xfer_sched_t *s, uint64_t per_block, uint32_t rank,
                          int buf, uint64_t unit)
{
    uint64_t block = (uint64_t) rank * per_block;
    if (THEMIS_BUF_INPUT == buf) {
        return (uint32_t) ((THEMIS_COLL_ALLGATHER == s->coll ? block : 0) + unit);
    }
    if (THEMIS_BUF_OUTPUT == buf && THEMIS_BUF_OUTPUT == s->result_buf) {
        return (uint32_t) ((THEMIS_COLL_REDUCE_SCATTER == s->coll ? block : 0) + unit);
    }
    return UINT32_MAX;
}

/* The global unit a stationary schedule's (rank, buf, unit) holds. */
static uint32_t stationary_unit(const themis_xfer_sched_t *s, const uint32_t *scratch_unit,
                                uint64_t per_block, uint32_t rank, uint8_t buf, uint64_t unit)
{
    return THEMIS_BUF_SCRATCH == buf ? scratch_unit[unit]
                                     : home_unit(s, per_block, rank, buf, unit);
}

/* The size of a unit of the buffers. */
static uint64_t slot_size(const units_t *m, uint32_t rank, uint8_t buf, uint64_t unit)
{
    if (0 != m->even) {
        return m->even;
    }
    if (m->stationary) {
        uint32_t g = stationary_unit(m->s, m->scratch_unit, m->per_block, rank, buf, unit);
        return UINT32_MAX != g ? unit_len(m, g) : 0;
    }
    return m->size[unit_at(m, rank, buf, unit)];
}

/* Elements of unit k of transfer x, list index i. */
static uint64_t carried_len(const units_t *m, const themis_xfer_t *x, uint32_t i, uint64_t k)
{
    if (0 != m->even) {
        return m->even;
    }
    if (m->stationary) {
        return slot_size(m, x->src, x->src_buf, x->src_off + k);
    }
    return unit_len(m, m->carried[m->carried_first[i] + k]);
}

static void units_free(units_t *m)
{
    free(m->gid);
    free(m->size);
    free(m->carried_first);
    free(m->carried);
}

/* sl: the slice compiled (stationary units), or NULL: the whole list s. */
static themis_status_t units_run(const themis_xfer_sched_t *s, const uint64_t *off,
                                 const themis_xfer_slice_t *sl, units_t *m, char *why, size_t len)
{
    uint64_t ncarried = 0;
    memset(m, 0, sizeof(*m));
    m->s = s;
    m->off = off;
    m->stationary = NULL != sl;
    m->scratch_unit = NULL != sl ? sl->scratch_unit : NULL;
    m->per_block = s->nunits / s->nranks;
    for (int b = 0; b < THEMIS_NBUFS; ++b) {
        m->base[b] = m->per_rank;
        m->per_rank += s->buf_units[b];
    }
    m->even = unit_len(m, 0);
    for (uint32_t g = 1; g < s->nunits && 0 != m->even; ++g) {
        m->even = unit_len(m, g) == m->even ? m->even : 0;
    }
    if (0 != m->even || m->stationary) {
        return THEMIS_OK;
    }
    for (uint32_t i = 0; i < s->nxfers; ++i) {
        ncarried += s->xfers[i].count;
    }
    size_t n = (size_t) s->nranks * m->per_rank;
    m->gid = malloc((n + 1) * sizeof(*m->gid));
    m->size = calloc(n + 1, sizeof(*m->size));
    m->carried_first = malloc(((size_t) s->nxfers + 1) * sizeof(*m->carried_first));
    m->carried = malloc(((size_t) ncarried + 1) * sizeof(*m->carried));
    if (NULL == m->gid || NULL == m->size || NULL == m->carried_first
        || NULL == m->carried) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t r = 0; r < s->nranks; ++r) {
        for (int b = 0; b < THEMIS_NBUFS; ++b) {
            for (uint64_t u = 0; u < s->buf_units[b]; ++u) {
                size_t a = unit_at(m, r, (uint8_t) b, u);
                uint32_t h = home_unit(s, m->per_block, r, b, u);
                m->gid[a] = THEMIS_BUF_INPUT == b ? h : UINT32_MAX;
                m->size[a] = UINT32_MAX != h ? unit_len(m, h) : 0;
            }
        }
    }
    ncarried = 0;
    for (uint32_t i = 0; i < s->nxfers; ++i) {
        const themis_xfer_t *x = &s->xfers[i];
        uint32_t *c = &m->carried[ncarried];
        m->carried_first[i] = ncarried;
        ncarried += x->count;
        for (uint64_t k = 0; k < x->count; ++k) {
            c[k] = m->gid[unit_at(m, x->src, x->src_buf, x->src_off + k)];
            if (UINT32_MAX == c[k]) {
                return WHY(THEMIS_ERR_INVALID, "transfer %u reads a unit nobody wrote "
                           "(themis_xfer_check rejects the schedule)", i);
            }
        }
        for (uint64_t k = 0; k < x->count; ++k) {
            size_t a = unit_at(m, x->dst, x->dst_buf, x->dst_off + k);
            uint64_t l = unit_len(m, c[k]);
            if (l > m->size[a]) {
                m->size[a] = l;
            }
            m->gid[a] = c[k];
        }
    }
    return THEMIS_OK;
}

/* Whether unit k of transfer x (list index i) ends where the next one
 * starts on both ranks (a message may go on past it). */
static int runs_on(const units_t *m, const themis_xfer_t *x, uint32_t i, uint64_t k)
{
    uint64_t l = carried_len(m, x, i, k);
    return l == slot_size(m, x->src, x->src_buf, x->src_off + k)
           && l == slot_size(m, x->dst, x->dst_buf, x->dst_off + k);
}

static uint32_t transfer_runs(const units_t *m, const themis_xfer_t *x, uint32_t i)
{
    uint32_t n = 1;
    for (uint64_t k = 0; k + 1 < x->count; ++k) {
        n += !runs_on(m, x, i, k);
    }
    return n;
}

/* Copies between the user's vector and buffer `buf` of rank me, whose
 * units are the collective's units of that vector in order: back to back,
 * one copy, unless a unit is made larger by one it holds on the way. */
static uint32_t vector_copies(const units_t *m, uint32_t me, uint8_t buf, const uint64_t *at,
                              int to_work, themis_copy_t *out)
{
    uint32_t n = 0;
    uint32_t first = home_unit(m->s, m->per_block, me, buf, 0);
    if (m->stationary) {
        /* each unit holds its home unit (slot_size: its length), so both
         * sides run on together: one copy of the whole block */
        const uint64_t l = m->off[first + m->s->buf_units[buf]] - m->off[first];
        out[0] = (themis_copy_t) {.src_off = to_work ? 0 : at[m->base[buf]],
                                  .dst_off = to_work ? at[m->base[buf]] : 0, .count = l};
        return 0 < l ? 1 : 0;
    }
    for (uint64_t j = 0; j < m->s->buf_units[buf]; ++j) {
        uint32_t g = home_unit(m->s, m->per_block, me, buf, j);
        uint64_t l = unit_len(m, g), user = m->off[g] - m->off[first];
        uint64_t work = at[m->base[buf] + j];
        uint64_t src = to_work ? user : work, dst = to_work ? work : user;
        if (0 == l) {
            continue;
        }
        if (n > 0 && out[n - 1].src_off + out[n - 1].count == src
            && out[n - 1].dst_off + out[n - 1].count == dst) {
            out[n - 1].count += l;
            continue;
        }
        out[n++] = (themis_copy_t) {.src_off = src, .dst_off = dst, .count = l};
    }
    return n;
}

void themis_xfer_rank_deps_free(themis_xfer_rank_deps_t *d)
{
    free(d->mine);
    free(d->first);
    free(d->n);
    free(d->anc);
    memset(d, 0, sizeof(*d));
}

/* deps for (s, rank): kept where they were made for them, else made.
 * Each of the rank's transfers lists the rank's transfers it waits for
 * as local_deps() would (its dependencies in order, another rank's
 * transfer standing for its own list, first occurrences kept), found by
 * walking back from it.  A bitset per other rank's transfer of the rank's
 * transfers it waits for lets the walk skip what adds nothing new, so
 * the cost is the rank's lists, not every transfer's. */
static int rank_deps(const themis_xfer_sched_t *s, uint32_t rank, themis_xfer_rank_deps_t *d)
{
    if (d->valid && d->rank == rank && d->nxfers == s->nxfers && d->ndeps == s->ndeps) {
        return 0;
    }
    themis_xfer_rank_deps_free(d);
    const uint32_t nx = s->nxfers;
    uint32_t nmine = 0;
    uint32_t *idx = malloc(((size_t) nx + 1) * sizeof(*idx));
    for (uint32_t i = 0; NULL != idx && i < nx; ++i) {
        idx[i] = involves(&s->xfers[i], rank) ? nmine++ : UINT32_MAX;
    }
    const size_t words = ((size_t) nmine + 63) / 64 + 1;
    uint64_t *bits = NULL != idx ? calloc((size_t) nx * words + 1, sizeof(*bits)) : NULL;
    uint64_t *seen = calloc(words, sizeof(*seen));
    /* visited[t] == i + 1: t added nothing new to i's list, or all of it */
    uint32_t *visited = calloc((size_t) nx + 1, sizeof(*visited));
    /* the walk: (transfer, next dependency) frames */
    uint32_t *stack = malloc(2 * ((size_t) nx + 1) * sizeof(*stack));
    size_t cap = 1024, n = 0;
    d->mine = malloc(((size_t) nmine + 1) * sizeof(*d->mine));
    d->first = malloc(((size_t) nmine + 1) * sizeof(*d->first));
    d->n = calloc((size_t) nmine + 1, sizeof(*d->n));
    d->anc = malloc(cap * sizeof(*d->anc));
    int rc = NULL != bits && NULL != seen && NULL != visited && NULL != stack && NULL != d->mine
                     && NULL != d->first && NULL != d->n
                     && NULL != d->anc
                 ? 0
                 : -1;
    for (uint32_t i = 0; 0 == rc && i < nx; ++i) {
        const themis_xfer_t *x = &s->xfers[i];
        if (UINT32_MAX == idx[i]) {
            uint64_t *b = bits + (size_t) i * words;
            for (uint32_t k = 0; k < x->ndeps; ++k) {
                const uint32_t dep = s->deps[x->dep_first + k];
                if (UINT32_MAX != idx[dep]) {
                    b[idx[dep] / 64] |= 1ull << (idx[dep] % 64);
                } else {
                    const uint64_t *db = bits + (size_t) dep * words;
                    for (size_t w = 0; w < words; ++w) {
                        b[w] |= db[w];
                    }
                }
            }
            continue;
        }
        d->mine[idx[i]] = i;
        d->first[idx[i]] = (uint32_t) n;
        memset(seen, 0, words * sizeof(*seen));
        size_t top = 0;
        stack[top++] = i;
        stack[top++] = 0;
        while (0 == rc && top > 0) {
            const themis_xfer_t *y = &s->xfers[stack[top - 2]];
            const uint32_t k = stack[top - 1];
            if (k == y->ndeps) {
                top -= 2;
                continue;
            }
            stack[top - 1] = k + 1;
            const uint32_t dep = s->deps[y->dep_first + k];
            if (UINT32_MAX != idx[dep]) {
                const uint64_t bit = 1ull << (idx[dep] % 64);
                if (0 == (seen[idx[dep] / 64] & bit)) {
                    seen[idx[dep] / 64] |= bit;
                    if (n == cap) {
                        uint32_t *a = realloc(d->anc, 2 * cap * sizeof(*a));
                        rc = NULL != a ? 0 : -1;
                        d->anc = NULL != a ? a : d->anc;
                        cap *= 2;
                    }
                    if (0 == rc) {
                        d->anc[n++] = idx[dep];
                    }
                }
                continue;
            }
            if (i + 1 == visited[dep]) {
                continue;
            }
            visited[dep] = i + 1;
            const uint64_t *db = bits + (size_t) dep * words;
            int news = 0;
            for (size_t w = 0; w < words && !news; ++w) {
                news = 0 != (db[w] & ~seen[w]);
            }
            if (news) {
                stack[top++] = dep;
                stack[top++] = 0;
            }
        }
        d->n[idx[i]] = (uint32_t) (n - d->first[idx[i]]);
    }
    free(idx);
    free(bits);
    free(seen);
    free(visited);
    free(stack);
    if (0 != rc) {
        themis_xfer_rank_deps_free(d);
        return -1;
    }
    d->valid = 1;
    d->rank = rank;
    d->nmine = nmine;
    d->nxfers = nx;
    d->ndeps = s->ndeps;
    return 0;
}

themis_status_t themis_xfer_rank_deps_make(const themis_xfer_sched_t *s, uint32_t rank,
                                           themis_xfer_rank_deps_t *d)
{
    return 0 == rank_deps(s, rank, d) ? THEMIS_OK : THEMIS_ERR_NOMEM;
}

/* The work buffer's size on rank r of a stationary schedule: a buffer
 * whose units are the collective's block of the rank (allgather input,
 * reduce-scatter output) holds the block's elements, any other the same
 * on every rank as on me (sum_me). */
static uint64_t stationary_work(const units_t *m, uint32_t r, const uint64_t *sum_me)
{
    const themis_xfer_sched_t *s = m->s;
    uint64_t per = s->nunits / s->nranks, sum = 0;
    for (int b = 0; b < THEMIS_NBUFS; ++b) {
        int block = (THEMIS_BUF_INPUT == b && THEMIS_COLL_ALLGATHER == s->coll)
                    || (THEMIS_BUF_OUTPUT == b && THEMIS_BUF_OUTPUT == s->result_buf
                        && THEMIS_COLL_REDUCE_SCATTER == s->coll);
        sum += block ? m->off[r * per + s->buf_units[b]] - m->off[r * per] : sum_me[b];
    }
    return sum;
}

/* What compile_rank makes its ops from. */
typedef struct {
    const themis_xfer_sched_t *s;
    const themis_xfer_slice_t *sl;
    const themis_xfer_rank_deps_t *deps;
    const units_t *m;
    const uint64_t *at;
    const uint32_t *qid;
    uint32_t me;
    int one;
} ops_src_t;

/* One of the rank's transfers as compile_rank makes an op of it: x with
 * its index in the whole list (tag), dependencies (ops) and label. */
typedef struct {
    const themis_xfer_t *x;
    uint32_t i;
    const uint32_t *anc;
    uint32_t ndeps;
    const uint64_t *label;      /* NULL: none */
} op_src_t;

/* Op o (the rank's o-th stored transfer) as op_src_t. */
static op_src_t stored_src(const ops_src_t *e, uint32_t o)
{
    const themis_xfer_slice_t *sl = e->sl;
    const uint32_t i = e->deps->mine[o];
    op_src_t t = {.x = NULL != sl ? &sl->s.xfers[o] : &e->s->xfers[i], .i = i};
    /* a slice's dependencies are its transfers' (transfer_slice.h) */
    t.ndeps = NULL != sl ? t.x->ndeps : e->deps->n[o];
    t.anc = NULL != sl ? &e->s->deps[t.x->dep_first] : &e->deps->anc[e->deps->first[o]];
    t.label = NULL != sl && NULL != sl->label ? &sl->label[o] : NULL;
    return t;
}

/* The op of t at p->ops[so], its steps from p->steps[*ss] on and its
 * dependencies from p->op_deps[*sd] on (stored indices, program_runs.h;
 * the logical ones without runs), its first step and dependency at the
 * logical ls and ld. */
static void emit_op(const ops_src_t *e, const op_src_t *t, themis_program_t *p, uint32_t so,
                    uint32_t *ss, uint32_t *sd, uint32_t ls, uint32_t ld)
{
    const uint32_t i = t->i, me = e->me;
    const themis_xfer_t *x = t->x;
    size_t key = x->src == x->dst ? 0 : x->src == me ? 1 + 2 * (size_t) x->dst
                                                      : 2 + 2 * (size_t) x->src;
    themis_op_t *op = &p->ops[so];

    memset(op, 0, sizeof(*op));   /* a slot that joined a run is written over */
    op->queue = e->qid[key];
    op->first_step = ls;
    op->chunk = i;
    op->phase = THEMIS_XFER_REDUCE == x->kind ? THEMIS_PHASE_RS : THEMIS_PHASE_AG;
    if (NULL != t->label) {
        op->chunk = (uint32_t) (*t->label >> 16);
        op->phase = (uint8_t) (*t->label >> 8);
        op->dim = (uint8_t) *t->label;
    }
    op->dep_first = ld;
    op->ndeps = t->ndeps;
    for (uint32_t a = 0; a < op->ndeps; ++a) {
        p->op_deps[(*sd)++] = t->anc[a];
    }

    /* One step per contiguous run of the transfer's units, chained. */
    const uint32_t s0 = *ss;
    for (uint64_t k = 0; k < x->count; ++k) {
        themis_step_t *stp = &p->steps[*ss];
        uint64_t cnt = carried_len(e->m, x, i, k);
        if (k > 0 && (e->one || runs_on(e->m, x, i, k - 1))) {
            stp[-1].send_count += x->src == me ? cnt : 0;
            stp[-1].recv_count += x->dst == me ? cnt : 0;
            continue;
        }
        (*ss)++;
        op->nsteps++;
        memset(stp, 0, sizeof(*stp));
        stp->after_prev = k > 0;
        stp->send_peer = -1;
        stp->recv_peer = -1;
        stp->tag = i;
        if (x->src == me) {
            stp->send_off = e->at[e->m->base[x->src_buf] + x->src_off + k];
            stp->send_count = cnt;
        }
        if (x->dst == me) {
            stp->recv_off = e->at[e->m->base[x->dst_buf] + x->dst_off + k];
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
        }
    }
    for (uint32_t k = s0; k < *ss; ++k) {
        themis_step_t *stp = &p->steps[k];
        /* A run of empty units is an empty step on both sides (they
         * agree on its length): no message, as the builders drop them. */
        if (0 == stp->send_count && 0 == stp->recv_count && x->src != x->dst) {
            stp->send_peer = stp->recv_peer = -1;
            stp->recv_mode = THEMIS_RECV_NONE;
        }
        if (THEMIS_RECV_REDUCE == stp->recv_mode && stp->recv_count > p->max_recv_count) {
            p->max_recv_count = stp->recv_count;
        }
    }
}

/* A periodic program's runs as they are found: the table, and every
 * run's step shifts and queue positions in pools, packed into one
 * allocation at the end (themis_program_free frees it). */
typedef struct {
    themis_program_run_t *runs;
    uint32_t n, cap;
    int64_t *shift;             /* each run's send_shift, recv_shift */
    uint32_t nshift, cap_shift;
    uint32_t *queue;            /* each run's queue_at, queue_store, queue_n */
    uint32_t cap_queue;
    uint32_t *gone;             /* [nqueues] entries left out of each queue */
} runs_build_t;

static int step_shifted(const themis_step_t *a, const themis_step_t *b, uint32_t c,
                        const themis_program_run_t *r, uint32_t k)
{
    return a->send_peer == b->send_peer && a->recv_peer == b->recv_peer
           && a->send_count == b->send_count && a->recv_count == b->recv_count
           && a->recv_mode == b->recv_mode && a->after_prev == b->after_prev
           && a->chain == b->chain && b->tag == a->tag + c * r->tag_shift
           && b->send_off == a->send_off + (uint64_t) ((int64_t) c * r->send_shift[k])
           && b->recv_off == a->recv_off + (uint64_t) ((int64_t) c * r->recv_shift[k]);
}

/* Whether the slot stored at ops so, steps ss and dependencies sd is
 * copy c of run r, as the accessors of program_runs.h would give it:
 * every op, dependency and step compared. */
static int slot_is_copy(const themis_program_t *p, const themis_program_run_t *r, uint32_t c,
                        uint32_t so, uint32_t ss, uint32_t sd)
{
    for (uint32_t k = 0; k < r->nops; ++k) {
        const themis_op_t *a = &p->ops[r->op_store + k], *b = &p->ops[so + k];
        if (a->queue != b->queue || a->ndeps != b->ndeps || a->nsteps != b->nsteps
            || a->phase != b->phase || a->dim != b->dim
            || b->first_step != a->first_step + c * r->nsteps
            || b->dep_first != a->dep_first + c * r->ndeps
            || b->chunk != a->chunk + c * r->chunk_shift) {
            return 0;
        }
    }
    for (uint32_t k = 0; k < r->ndeps; ++k) {
        uint32_t a = p->op_deps[r->dep_store + k];
        if (p->op_deps[sd + k] != a + c * (a >= r->keep ? r->nops : r->keep_shift)) {
            return 0;
        }
    }
    for (uint32_t k = 0; k < r->nsteps; ++k) {
        if (!step_shifted(&p->steps[r->step_store + k], &p->steps[ss + k], c, r, k)) {
            return 0;
        }
    }
    return 1;
}

/* The slot of ops [o, o + n), just stored at ops so, steps ss and
 * dependencies sd (nss and nsd of them), repeating the n ops before it
 * (rp): 1 where it is the open run's next copy or the second copy of a
 * new run (left out: the caller stores over it), 0 where it stays stored,
 * -1 out of memory.  qpos: each queue's next logical position. */
static int slot_join(runs_build_t *rb, themis_program_t *p, uint32_t keep, uint32_t keep_shift,
                     uint32_t o, uint32_t n, uint32_t so, uint32_t ss, uint32_t sd, uint32_t nss,
                     uint32_t nsd, const uint32_t *qpos)
{
    const uint32_t nq = p->nqueues;
    themis_program_run_t *r = 0 < rb->n ? &rb->runs[rb->n - 1] : NULL;
    const uint64_t end = NULL != r ? r->op_at + (uint64_t) r->nops * r->count : 0;
    if (NULL != r && end == o && r->nops == n && r->nsteps == nss && r->ndeps == nsd
        && slot_is_copy(p, r, r->count, so, ss, sd)) {
        const uint32_t *qn = rb->queue + (size_t) 3 * nq * (rb->n - 1) + 2 * nq;
        for (uint32_t q = 0; q < nq; ++q) {
            rb->gone[q] += qn[q];
        }
        r->count++;
        return 1;
    }
    /* a new run: its first copy the n ops before, stored as they are */
    if (o < n || o - n < end) {
        return 0;
    }
    if (0 != themis_grow((void **) &rb->runs, rb->n, &rb->cap, sizeof(*rb->runs), 16u)) {
        return -1;
    }
    while ((uint64_t) rb->nshift + 2 * (uint64_t) nss > rb->cap_shift) {
        if (0 != themis_grow_full((void **) &rb->shift, &rb->cap_shift, sizeof(*rb->shift),
                                  64u)) {
            return -1;
        }
    }
    while ((uint64_t) 3 * nq * (rb->n + 1) > rb->cap_queue) {
        if (0 != themis_grow_full((void **) &rb->queue, &rb->cap_queue, sizeof(*rb->queue),
                                  64u)) {
            return -1;
        }
    }
    const themis_op_t *base = &p->ops[so - n];
    r = &rb->runs[rb->n];
    memset(r, 0, sizeof(*r));
    r->op_at = o - n;
    r->op_store = so - n;
    r->nops = n;
    r->step_at = base->first_step;
    r->nsteps = p->ops[so].first_step - base->first_step;
    r->dep_at = base->dep_first;
    r->ndeps = p->ops[so].dep_first - base->dep_first;
    if (r->nsteps != nss || r->ndeps != nsd) {
        return 0;
    }
    r->step_store = ss - nss;
    r->dep_store = sd - nsd;
    r->keep = keep;
    r->keep_shift = keep_shift;
    r->chunk_shift = p->ops[so].chunk - base->chunk;
    r->send_shift = rb->shift + rb->nshift;
    r->recv_shift = r->send_shift + nss;
    for (uint32_t k = 0; k < nss; ++k) {
        const themis_step_t *a = &p->steps[r->step_store + k], *b = &p->steps[ss + k];
        r->tag_shift = 0 == k ? b->tag - a->tag : r->tag_shift;
        r->send_shift[k] = (int64_t) (b->send_off - a->send_off);
        r->recv_shift[k] = (int64_t) (b->recv_off - a->recv_off);
    }
    if (!slot_is_copy(p, r, 1, so, ss, sd)) {
        return 0;
    }
    uint32_t *qa = rb->queue + (size_t) 3 * nq * rb->n;
    memset(qa, 0, (size_t) 3 * nq * sizeof(*qa));
    for (uint32_t k = 0; k < n; ++k) {
        qa[2 * nq + base[k].queue]++;
    }
    for (uint32_t q = 0; q < nq; ++q) {
        /* both copies are on the queue: the first ends where the second starts */
        qa[q] = qpos[q] - 2 * qa[2 * nq + q];
        qa[nq + q] = qa[q] - rb->gone[q];   /* less the other queues' at the end */
        rb->gone[q] += qa[2 * nq + q];
    }
    r->count = 2;
    rb->n++;
    rb->nshift += 2 * nss;
    return 1;
}

/* The run table in one allocation, and queue_ops packed: each queue's
 * stored entries after the ones below it. */
static themis_status_t runs_pack(runs_build_t *rb, themis_program_t *p)
{
    const uint32_t nq = p->nqueues;
    const size_t qn = (size_t) 3 * nq * rb->n;
    char *b = malloc(rb->n * sizeof(*rb->runs) + rb->nshift * sizeof(*rb->shift)
                     + qn * sizeof(*rb->queue));
    if (NULL == b) {
        return THEMIS_ERR_NOMEM;
    }
    themis_program_run_t *runs = (themis_program_run_t *) b;
    int64_t *shift = (int64_t *) (runs + rb->n);
    uint32_t *queue = (uint32_t *) (shift + rb->nshift);
    memcpy(runs, rb->runs, rb->n * sizeof(*runs));
    memcpy(shift, rb->shift, rb->nshift * sizeof(*shift));
    memcpy(queue, rb->queue, qn * sizeof(*queue));
    uint32_t below = 0;
    for (uint32_t q = 0; q < nq; ++q) {
        for (uint32_t j = 0; j < rb->n; ++j) {
            queue[(size_t) 3 * nq * j + nq + q] -= below;
        }
        memmove(p->queue_ops + p->queue_first[q] - below, p->queue_ops + p->queue_first[q],
                (p->queue_first[q + 1] - p->queue_first[q] - rb->gone[q])
                    * sizeof(*p->queue_ops));
        below += rb->gone[q];
    }
    for (uint32_t j = 0, at = 0; j < rb->n; ++j) {
        runs[j].send_shift = shift + at;
        runs[j].recv_shift = shift + at + runs[j].nsteps;
        at += 2 * runs[j].nsteps;
        runs[j].queue_at = queue + (size_t) 3 * nq * j;
        runs[j].queue_store = runs[j].queue_at + nq;
        runs[j].queue_n = runs[j].queue_at + 2 * nq;
    }
    p->runs = runs;
    p->nruns = rb->n;
    return THEMIS_OK;
}

/* Shrink a stored array to its n entries (a failure keeps it larger). */
static void shrink(void **v, size_t n, size_t size)
{
    void *r = realloc(*v, (n + 1) * size);
    *v = NULL != r ? r : *v;
}

static int stationary_xfer(const themis_xfer_slice_t *sl, uint64_t per_block,
                           const themis_xfer_t *x);

/* A slice run's tracks, made once per run so that its copies join in
 * one check (copies_join): at[v] the rank's unit v's offset, s the run's
 * shift in v's buffer; at_trk[v] = how many copies on from v the offsets
 * move by the same distance (at[v + c s] = at[v] + c (at[v + s] - at[v])
 * for c <= at_trk[v]); scr_trk[u] = how many copies on from scratch unit
 * u its global unit moves by the run's unit_shift, as a home buffer's
 * units do. */
typedef struct {
    const themis_xfer_slice_run_t *sr;
    uint32_t *at_trk, *scr_trk;
} tracks_t;

static themis_status_t tracks_make(const ops_src_t *e, const themis_xfer_slice_run_t *sr,
                                   tracks_t *t)
{
    const units_t *m = e->m;
    const uint64_t n = m->per_rank, ns = e->s->buf_units[THEMIS_BUF_SCRATCH];
    const uint32_t *su = e->sl->scratch_unit;
    free(t->at_trk);
    free(t->scr_trk);
    t->sr = sr;
    t->at_trk = calloc(n + 1, sizeof(*t->at_trk));
    t->scr_trk = calloc(ns + 1, sizeof(*t->scr_trk));
    if (NULL == t->at_trk || NULL == t->scr_trk) {
        return THEMIS_ERR_NOMEM;
    }
    /* only the units the run's copies reach in each buffer (and one shift
     * on): tracks cut there are shorter, never wrong - the copies past
     * them compile */
    uint64_t lo[THEMIS_NBUFS], hi[THEMIS_NBUFS];
    for (int b = 0; b < THEMIS_NBUFS; ++b) {
        lo[b] = e->s->buf_units[b];
        hi[b] = 0;
    }
    for (uint32_t k = 0; k < sr->len; ++k) {
        const themis_xfer_t *x = &e->sl->s.xfers[sr->store + k];
        const uint8_t buf[2] = {x->src_buf, x->dst_buf};
        const uint64_t off[2] = {x->src_off, x->dst_off};
        for (int d = 0; d < 2; ++d) {
            lo[buf[d]] = off[d] < lo[buf[d]] ? off[d] : lo[buf[d]];
            hi[buf[d]] = off[d] + x->count > hi[buf[d]] ? off[d] + x->count : hi[buf[d]];
        }
    }
    for (int b = 0; b < THEMIS_NBUFS; ++b) {
        const uint64_t s = themis_xfer_slice_run_shift(sr, (uint8_t) b), nb = e->s->buf_units[b];
        const uint64_t top = hi[b] + sr->count * s < nb ? hi[b] + sr->count * s : nb;
        if (0 == s || top < lo[b] + s) {
            continue;
        }
        const uint64_t *at = e->at + m->base[b];
        uint32_t *trk = t->at_trk + m->base[b];
        /* v + s <= top from top - s down, v + 2 s <= top from top - 2 s
         * down (where some v has it: deep) */
        const int deep = top >= lo[b] + 2 * s;
        for (uint64_t v = top - s + 1; v-- > (deep ? top - 2 * s + 1 : lo[b]);) {
            trk[v] = 1;
        }
        for (uint64_t v = deep ? top - 2 * s + 1 : lo[b]; v-- > lo[b];) {
            const uint32_t more = at[v + 2 * s] - at[v + s] == at[v + s] - at[v] ? trk[v + s] : 0;
            trk[v] = 1 + (UINT32_MAX > more ? more : 0);
        }
        uint32_t *strk = t->scr_trk;
        for (uint64_t u = top - s; THEMIS_BUF_SCRATCH == b && u-- > lo[b];) {
            const uint32_t more = UINT32_MAX > strk[u + s] ? strk[u + s] : 0;
            strk[u] = UINT32_MAX != su[u] && su[u + s] == su[u] + sr->unit_shift ? 1 + more : 0;
        }
    }
    return THEMIS_OK;
}

/* How many copies from copy c0 on (c0 itself checked) one end of
 * transfer x keeps its units' global units: a home buffer's while they
 * stay in it, a scratch unit's along its track. */
static uint64_t end_copies(const ops_src_t *e, const tracks_t *t, uint8_t buf, uint64_t off,
                           uint64_t n)
{
    const uint64_t s = t->sr->unit_shift;
    if (THEMIS_BUF_SCRATCH != buf) {
        return off + n <= e->s->buf_units[buf] ? (e->s->buf_units[buf] - off - n) / s : 0;
    }
    uint64_t lim = UINT64_MAX;
    for (uint64_t k = 0; k < n; ++k) {
        lim = t->scr_trk[off + k] < lim ? t->scr_trk[off + k] : lim;
    }
    return lim;
}

/* How many copies from copy c0 on my end of a transfer (n units from
 * offset off of buffer buf) keeps its step as the run's shift d says:
 * both the offset and the count move as the tracks of its first unit
 * and the one past it. */
static uint64_t mine_copies(const ops_src_t *e, const tracks_t *t, uint8_t buf, uint64_t off,
                            uint64_t n, int64_t d)
{
    const uint64_t s = themis_xfer_slice_run_shift(t->sr, buf), v = e->m->base[buf] + off;
    if (off + n + s > e->s->buf_units[buf] || (uint64_t) d != e->at[v + s] - e->at[v]
        || (uint64_t) d != e->at[v + n + s] - e->at[v + n]) {
        return 0;
    }
    return t->at_trk[v] < t->at_trk[v + n] ? t->at_trk[v] : t->at_trk[v + n];
}

/* Copies c, c + 1, ... of slice run sr (transfer_slice.h) as the open
 * program run's next copies, without compiling them: a copy's ops,
 * dependencies, tags and queues are copy 0's shifted by the slice's rule,
 * which is the program's (program_runs.h: op index = logical transfer
 * index, one op and one step a transfer), so only what follows from unit
 * sizes can differ - each step's offsets and counts, and whether the
 * units stay stationary - and the tracks say for how many copies they
 * move as the run's shifts say.  Returns how many joined (0: the caller
 * compiles copy c; a chunk crossing the remainder ends the run there). */
static uint32_t copies_join(const ops_src_t *e, runs_build_t *rb, themis_program_t *p,
                            const tracks_t *t, uint32_t c, uint32_t *qpos)
{
    const themis_xfer_slice_run_t *sr = t->sr;
    if (0 == rb->n || !e->one || 0 == sr->unit_shift || 0 == sr->scratch_shift) {
        return 0;
    }
    themis_program_run_t *r = &rb->runs[rb->n - 1];
    const uint64_t end = r->op_at + (uint64_t) r->nops * r->count;
    if (r->nops != sr->len || r->nsteps != sr->len || end != sr->at + (uint64_t) c * sr->len
        || r->op_at < sr->at) {
        return 0;
    }
    /* the program run's copy 0 is the slice's copy c0 */
    const uint64_t c0 = c - r->count;
    uint64_t lim = sr->count - 1 - c0;
    for (uint32_t k = 0; k < sr->len && r->count <= lim; ++k) {
        const themis_xfer_t *x = &e->sl->s.xfers[sr->store + k];
        const uint64_t n = x->count;
        const uint64_t so = x->src_off + c0 * themis_xfer_slice_run_shift(sr, x->src_buf);
        const uint64_t dso = x->dst_off + c0 * themis_xfer_slice_run_shift(sr, x->dst_buf);
        uint64_t l = end_copies(e, t, x->src_buf, so, n);
        const uint64_t ld = end_copies(e, t, x->dst_buf, dso, n);
        l = ld < l ? ld : l;
        if (x->src == e->me) {
            const uint64_t lm = mine_copies(e, t, x->src_buf, so, n, r->send_shift[k]);
            l = lm < l ? lm : l;
        }
        if (x->dst == e->me) {
            const uint64_t lm = mine_copies(e, t, x->dst_buf, dso, n, r->recv_shift[k]);
            l = lm < l ? lm : l;
        }
        lim = l < lim ? l : lim;
    }
    if (lim < r->count) {
        return 0;
    }
    const uint32_t joined = (uint32_t) (lim + 1 - r->count);
    const uint32_t nq = p->nqueues;
    const uint32_t *qn = rb->queue + (size_t) 3 * nq * (rb->n - 1) + 2 * nq;
    for (uint32_t q = 0; q < nq; ++q) {
        rb->gone[q] += joined * qn[q];
        qpos[q] += joined * qn[q];
    }
    r->count += joined;
    return joined;
}

/* Every op of the rank, in logical order, queue_ops filled from the
 * logical positions qpos.  A periodic slice's runs (transfer_slice.h)
 * give their copies; with periodic the program keeps a copy once where
 * it is the open run's next one (copies_join, else compiled and compared
 * op by op: slot_join), without it every copy is compiled. */
static themis_status_t emit_ops(const ops_src_t *e, int periodic, themis_program_t *p,
                                uint32_t *qpos, char *why, size_t len)
{
    runs_build_t rb;
    tracks_t tr = {NULL, NULL, NULL};
    memset(&rb, 0, sizeof(rb));
    rb.gone = calloc((size_t) p->nqueues + 1, sizeof(*rb.gone));
    if (NULL == rb.gone) {
        return THEMIS_ERR_NOMEM;
    }
    const themis_xfer_slice_t *sl = e->sl;
    const uint32_t nruns = NULL != sl ? sl->nruns : 0;
    uint32_t *anc = NULL, cap_anc = 0;
    uint32_t so = 0, ss = 0, sd = 0, ls = 0, ld = 0, o = 0, pos = 0;
    themis_status_t st = THEMIS_OK;
    for (uint32_t ri = 0; ri <= nruns && THEMIS_OK == st; ++ri) {
        const themis_xfer_slice_run_t *sr = ri < nruns ? &sl->runs[ri] : NULL;
        /* the stored transfers up to the run (all of them after the last) */
        for (const uint32_t end = NULL != sr ? sr->store : e->deps->nmine; pos < end;
             ++pos, ++o, ++so) {
            const op_src_t t = stored_src(e, pos);
            emit_op(e, &t, p, so, &ss, &sd, ls, ld);
            ls += p->ops[so].nsteps;
            ld += p->ops[so].ndeps;
            p->queue_ops[qpos[p->ops[so].queue]++ - rb.gone[p->ops[so].queue]] = o;
        }
        for (uint32_t c = 0; NULL != sr && c < sr->count && THEMIS_OK == st; ++c) {
            if (periodic && 0 < c && tr.sr != sr) {
                st = tracks_make(e, sr, &tr);
                if (THEMIS_OK != st) {
                    break;
                }
            }
            const uint32_t more = periodic && 0 < c ? copies_join(e, &rb, p, &tr, c, qpos) : 0;
            if (0 < more) {
                const themis_program_run_t *r = &rb.runs[rb.n - 1];
                ls += more * r->nsteps;
                ld += more * r->ndeps;
                o += more * sr->len;
                c += more - 1;
                continue;
            }
            const uint32_t ss0 = ss, sd0 = sd;
            for (uint32_t k = 0; k < sr->len && THEMIS_OK == st; ++k) {
                op_src_t t = stored_src(e, sr->store + k);
                themis_xfer_t x = *t.x;
                x.src_off += (uint64_t) c * themis_xfer_slice_run_shift(sr, x.src_buf);
                x.dst_off += (uint64_t) c * themis_xfer_slice_run_shift(sr, x.dst_buf);
                t.x = &x;
                t.i += c * sr->tag_span;
                if (0 < c && !stationary_xfer(sl, sl->s.nunits / sl->s.nranks, &x)) {
                    st = WHY(THEMIS_ERR_INVALID, "copy %u of slice run %u moves a unit to where "
                             "another one lives: not a stationary schedule", c, ri);
                    break;
                }
                while (cap_anc <= t.ndeps && THEMIS_OK == st) {
                    st = 0 != themis_grow_full((void **) &anc, &cap_anc, sizeof(*anc), 16u)
                             ? THEMIS_ERR_NOMEM
                             : st;
                }
                if (THEMIS_OK != st) {
                    break;
                }
                for (uint32_t a = 0; a < t.ndeps; ++a) {
                    anc[a] = t.anc[a] + c * (t.anc[a] >= sr->keep ? sr->len : sr->keep_shift);
                }
                t.anc = anc;
                emit_op(e, &t, p, so + k, &ss, &sd, ls, ld);
                ls += p->ops[so + k].nsteps;
                ld += p->ops[so + k].ndeps;
                p->queue_ops[qpos[p->ops[so + k].queue]++ - rb.gone[p->ops[so + k].queue]]
                    = o + k;
            }
            const int joined = THEMIS_OK == st && periodic && 0 < c
                                   ? slot_join(&rb, p, sr->keep, sr->keep_shift, o, sr->len, so,
                                               ss0, sd0, ss - ss0, sd - sd0, qpos)
                                   : 0;
            if (0 > joined) {
                st = THEMIS_ERR_NOMEM;
            } else if (joined) {
                ss = ss0;
                sd = sd0;
            } else {
                so += sr->len;
            }
            o += sr->len;
        }
        pos = NULL != sr ? sr->store + sr->len : pos;
    }
    if (THEMIS_OK == st && 0 < rb.n) {
        st = runs_pack(&rb, p);
        uint32_t nq = 0;
        for (uint32_t q = 0; q < p->nqueues; ++q) {
            nq += rb.gone[q];
        }
        shrink((void **) &p->ops, so, sizeof(*p->ops));
        shrink((void **) &p->steps, ss, sizeof(*p->steps));
        shrink((void **) &p->op_deps, sd, sizeof(*p->op_deps));
        shrink((void **) &p->queue_ops, p->nops - nq, sizeof(*p->queue_ops));
    }
    free(anc);
    free(tr.at_trk);
    free(tr.scr_trk);
    free(rb.runs);
    free(rb.shift);
    free(rb.queue);
    free(rb.gone);
    return st;
}

/* Rank me's program from its transfers: the whole list's (sl NULL; deps
 * made for it here) or a slice's (sl; deps its own, mine its tags),
 * periodic (program_runs.h) where asked, of a slice. */
static themis_status_t compile_rank(const themis_xfer_sched_t *s, const themis_xfer_slice_t *sl,
                                    uint32_t me, uint64_t total, const uint64_t *counts,
                                    uint32_t chunks_in_flight, int periodic,
                                    themis_xfer_rank_deps_t *deps, themis_program_t *p,
                                    char *why, size_t len)
{
    units_t m;
    uint32_t *qid = NULL, *qfill = NULL;
    uint64_t *off = NULL, *at = NULL;
    themis_status_t st = THEMIS_ERR_NOMEM;

    memset(p, 0, sizeof(*p));
    memset(&m, 0, sizeof(m));
    if (me >= s->nranks || 0 == chunks_in_flight || 0 == s->nunits) {
        return WHY(THEMIS_ERR_INVALID, "rank %u, %u in flight, %u units: cannot compile", me,
                   chunks_in_flight, s->nunits);
    }
    if (0 == total) {
        return WHY(THEMIS_ERR_UNSUPPORTED, "an empty call has nothing to transfer");
    }
    off = malloc(((size_t) s->nunits + 1) * sizeof(*off));
    if (NULL == off) {
        goto out;
    }
    if (THEMIS_OK != (st = themis_xfer_layout(s, total, counts, off, why, len))
        || THEMIS_OK != (st = units_run(s, off, sl, &m, why, len))) {
        goto out;
    }
    /* This rank's units, back to back: input, output, scratch.  The work
     * buffer is the largest rank's, the same on every rank, so that
     * callers may cut a call into segments by it alike. */
    st = THEMIS_ERR_NOMEM;
    at = malloc(((size_t) m.per_rank + 1) * sizeof(*at));
    if (NULL == at) {
        goto out;
    }
    /* Every unit of a transfer the same size at both ends (even units, or
     * a stationary slice's, which the slice check proved hold one global
     * unit at both ends): runs_on() holds throughout, one step a
     * transfer. */
    const int one = 0 != m.even || m.stationary;
    uint64_t sum_me[THEMIS_NBUFS] = {0, 0, 0};
    for (uint32_t r = one ? me : 0; r < (one ? me + 1 : s->nranks); ++r) {
        uint64_t sum = 0;
        for (int b = 0; b < THEMIS_NBUFS; ++b) {
            uint64_t from = sum;
            const uint32_t g0 = home_unit(s, m.per_block, r, b, 0);
            if (m.stationary && THEMIS_BUF_SCRATCH != b && UINT32_MAX != g0) {
                /* each unit its home unit's length (slot_size): the layout's */
                for (uint64_t u = 0; u < s->buf_units[b]; ++u) {
                    at[m.base[b] + u] = sum + off[g0 + u] - off[g0];
                }
                sum += off[g0 + s->buf_units[b]] - off[g0];
                sum_me[b] = sum - from;
                continue;
            }
            for (uint64_t u = 0; u < s->buf_units[b]; ++u) {
                if (r == me) {
                    at[m.base[b] + u] = sum;
                }
                if (__builtin_add_overflow(sum, slot_size(&m, r, (uint8_t) b, u), &sum)) {
                    st = WHY(THEMIS_ERR_UNSUPPORTED, "the work buffer overflows");
                    goto out;
                }
            }
            sum_me[b] = sum - from;
        }
        if (r == me) {
            at[m.per_rank] = sum;
        }
        p->work_count = sum > p->work_count ? sum : p->work_count;
    }
    for (uint32_t r = 0; m.stationary && 0 == m.even && r < s->nranks; ++r) {
        uint64_t w = stationary_work(&m, r, sum_me);
        p->work_count = w > p->work_count ? w : p->work_count;
    }

    /* Ops of this rank, one per transfer it takes part in. */
    qid = calloc(2 * (size_t) s->nranks + 1, sizeof(*qid));
    qfill = calloc(2 * (size_t) s->nranks + 1, sizeof(*qfill));
    if (NULL == qid || NULL == qfill || (NULL == sl && 0 != rank_deps(s, me, deps))) {
        goto out;
    }
    /* Queue keys: 0 local, 1 + 2 peer send, 2 + 2 peer receive.  Op o is
     * the rank's o-th transfer (deps->mine: its index in the list); a
     * periodic slice's run copies its stored transfers (one step each:
     * slices are stationary). */
    for (uint32_t o = 0, ri = 0; o < deps->nmine; ++o) {
        const uint32_t i = deps->mine[o];
        const themis_xfer_t *x = NULL != sl ? &sl->s.xfers[o] : &s->xfers[i];
        size_t key = x->src == x->dst ? 0 : x->src == me ? 1 + 2 * (size_t) x->dst
                                                          : 2 + 2 * (size_t) x->src;
        while (NULL != sl && ri < sl->nruns && sl->runs[ri].store + sl->runs[ri].len <= o) {
            ri++;
        }
        const uint32_t copies = NULL != sl && ri < sl->nruns && sl->runs[ri].store <= o
                                    ? sl->runs[ri].count
                                    : 1;
        p->nops += copies;
        p->nop_deps += copies * (NULL != sl ? x->ndeps : deps->n[o]);
        p->nsteps += copies * (one ? 1 : transfer_runs(&m, x, i));
        qfill[key] += copies;
    }
    for (size_t k = 0; k <= 2 * (size_t) s->nranks; ++k) {
        qid[k] = qfill[k] > 0 ? p->nqueues++ : UINT32_MAX;
    }
    /* Logical sizes: a periodic program stores a fraction and shrinks
     * them; emit_op writes every entry it keeps, so the rest of these
     * pages is never touched. */
    p->ops = malloc(((size_t) p->nops + 1) * sizeof(*p->ops));
    p->steps = malloc(((size_t) p->nsteps + 1) * sizeof(*p->steps));
    p->op_deps = malloc(((size_t) p->nop_deps + 1) * sizeof(*p->op_deps));
    p->queue_first = calloc((size_t) p->nqueues + 1, sizeof(*p->queue_first));
    p->queue_ops = malloc(((size_t) p->nops + 1) * sizeof(*p->queue_ops));
    p->copy_in = calloc(m.stationary ? 1 : s->buf_units[THEMIS_BUF_INPUT] + 1,
                        sizeof(*p->copy_in));
    p->copy_out = calloc(m.stationary ? 1 : s->buf_units[s->result_buf] + 1,
                         sizeof(*p->copy_out));
    if (NULL == p->ops || NULL == p->steps || NULL == p->op_deps || NULL == p->queue_first
        || NULL == p->queue_ops || NULL == p->copy_in || NULL == p->copy_out) {
        goto out;
    }
    /* queue_first by prefix sums over the non-empty keys, in key order;
     * qfill[q] then each queue's next logical position */
    for (size_t k = 0, q = 0; k <= 2 * (size_t) s->nranks; ++k) {
        if (UINT32_MAX != qid[k]) {
            p->queue_first[q + 1] = p->queue_first[q] + qfill[k];
            q++;
        }
    }
    memcpy(qfill, p->queue_first, p->nqueues * sizeof(*qfill));

    const ops_src_t e = {.s = s, .sl = sl, .deps = deps, .m = &m, .at = at, .qid = qid,
                         .me = me, .one = one};
    st = emit_ops(&e, periodic, p, qfill, why, len);
    if (THEMIS_OK != st) {
        goto out;
    }
    p->chunks_in_flight = chunks_in_flight;
    p->max_op_reduce_recvs = p->max_recv_count > 0 ? 1 : 0;
    p->work_is_output = 0;
    p->ncopy_in = vector_copies(&m, me, THEMIS_BUF_INPUT, at, 1, p->copy_in);
    p->ncopy_out = vector_copies(&m, me, (uint8_t) s->result_buf, at, 0, p->copy_out);
    /* An allreduce in place whose work buffer is the vector as it is
     * (input alone, packed): the steps run in the output, as the
     * builders' in-place programs do, without scratch or a copy out. */
    if (THEMIS_COLL_ALLREDUCE == s->coll && THEMIS_BUF_INPUT == s->result_buf
        && p->work_count == total && 1 == p->ncopy_in && 1 == p->ncopy_out
        && 0 == p->copy_in[0].src_off && 0 == p->copy_in[0].dst_off
        && total == p->copy_in[0].count && 0 == p->copy_out[0].src_off
        && 0 == p->copy_out[0].dst_off && total == p->copy_out[0].count) {
        p->work_is_output = 1;
        p->ncopy_out = 0;
    }
    st = THEMIS_OK;
out:
    free(off);
    free(at);
    units_free(&m);
    free(qid);
    free(qfill);
    if (THEMIS_OK != st) {
        themis_program_free(p);
        if (THEMIS_ERR_NOMEM == st) {
            snprintf(why, len, "out of memory");
        }
    }
    return st;
}

themis_status_t themis_xfer_compile(const themis_xfer_sched_t *s, int rank, uint64_t total,
                                    const uint64_t *counts, uint32_t chunks_in_flight,
                                    themis_program_t *out, char *why, size_t len)
{
    themis_xfer_rank_deps_t deps;
    memset(&deps, 0, sizeof(deps));
    themis_status_t st = themis_xfer_compile_with(s, rank, total, counts, chunks_in_flight, &deps,
                                                  out, why, len);
    themis_xfer_rank_deps_free(&deps);
    return st;
}

themis_status_t themis_xfer_compile_with(const themis_xfer_sched_t *s, int rank, uint64_t total,
                                         const uint64_t *counts, uint32_t chunks_in_flight,
                                         themis_xfer_rank_deps_t *deps, themis_program_t *out,
                                         char *why, size_t len)
{
    if (rank < 0) {
        memset(out, 0, sizeof(*out));
        return WHY(THEMIS_ERR_INVALID, "rank %d: cannot compile", rank);
    }
    return compile_rank(s, NULL, (uint32_t) rank, total, counts, chunks_in_flight, 0, deps, out,
                        why, len);
}

void themis_xfer_slice_free(themis_xfer_slice_t *sl)
{
    themis_xfer_free(&sl->s);
    free(sl->tag);
    free(sl->scratch_unit);
    free(sl->label);
    free(sl->runs);
    memset(sl, 0, sizeof(*sl));
}

/* Whether transfer x keeps every unit's global unit (transfer_slice.h). */
static int stationary_xfer(const themis_xfer_slice_t *sl, uint64_t per_block,
                           const themis_xfer_t *x)
{
    for (uint64_t k = 0; k < x->count; ++k) {
        uint32_t g = stationary_unit(&sl->s, sl->scratch_unit, per_block, x->src, x->src_buf,
                                     x->src_off + k);
        if (UINT32_MAX == g
            || g != stationary_unit(&sl->s, sl->scratch_unit, per_block, x->dst, x->dst_buf,
                                    x->dst_off + k)) {
            return 0;
        }
    }
    return 1;
}

themis_status_t themis_xfer_slice_compile(const themis_xfer_slice_t *sl, uint64_t total,
                                          const uint64_t *counts, uint32_t chunks_in_flight,
                                          int periodic, themis_program_t *out, char *why,
                                          size_t len)
{
    const themis_xfer_sched_t *s = &sl->s;
    themis_xfer_rank_deps_t d;

    memset(out, 0, sizeof(*out));
    memset(&d, 0, sizeof(d));
    const uint64_t per_block = 0 != s->nranks ? s->nunits / s->nranks : 0;
    if (sl->rank >= s->nranks
        || (0 != s->buf_units[THEMIS_BUF_SCRATCH] && NULL == sl->scratch_unit)) {
        return WHY(THEMIS_ERR_INVALID, "a slice for rank %u of %u ranks%s", sl->rank, s->nranks,
                   NULL == sl->scratch_unit ? " without its scratch units" : "");
    }
    /* Stored transfer o is logical transfer o + left: the copies of the
     * runs before it left out (transfer_slice.h). */
    uint32_t ri = 0;
    uint64_t left = 0;
    for (uint32_t o = 0; o < s->nxfers; ++o) {
        const themis_xfer_t *x = &s->xfers[o];
        const uint64_t lo = o + left;
        if (!involves(x, sl->rank) || x->src >= s->nranks || x->dst >= s->nranks
            || (o > 0 && sl->tag[o] <= sl->tag[o - 1])) {
            return WHY(THEMIS_ERR_INVALID, "slice transfer %u (tag %u, rank %u -> %u) is not "
                       "rank %u's or out of order", o, sl->tag[o], x->src, x->dst, sl->rank);
        }
        for (uint32_t k = 0; k < x->ndeps; ++k) {
            if (s->deps[x->dep_first + k] >= lo) {
                return WHY(THEMIS_ERR_INVALID, "slice transfer %u depends on a later one", o);
            }
        }
        if (!stationary_xfer(sl, per_block, x)) {
            return WHY(THEMIS_ERR_INVALID, "slice transfer %u (tag %u) moves a unit to where "
                       "another one lives: not a stationary schedule", o, sl->tag[o]);
        }
        const themis_xfer_slice_run_t *r = ri < sl->nruns ? &sl->runs[ri] : NULL;
        if (NULL == r || o + 1 != r->store + r->len) {
            continue;
        }
        /* the run's last stored transfer: the copies' tags stay in order
         * and below the next transfer's, their dependencies point back
         * (keep_shift <= len) and those ahead of the slots stay there
         * (the program's runs shift them by the same rule) */
        const uint64_t span = (uint64_t) r->tag_span * (r->count - 1);
        int ok = r->store + left == r->at && 2 <= r->count && 0 < r->len
                 && r->keep_shift <= r->len && NULL == sl->label
                 && sl->tag[o] - sl->tag[r->store] < r->tag_span
                 && sl->tag[o] + span <= UINT32_MAX
                 && (o + 1 == s->nxfers || sl->tag[o + 1] > sl->tag[o] + span)
                 && r->at + (uint64_t) r->len * r->count <= UINT32_MAX;
        for (uint32_t t = r->store; ok && t <= o; ++t) {
            const themis_xfer_t *y = &s->xfers[t];
            for (uint32_t k = 0; ok && k < y->ndeps; ++k) {
                const uint32_t dep = s->deps[y->dep_first + k];
                ok = dep >= r->keep || dep + (uint64_t) r->keep_shift * (r->count - 1) < r->keep;
            }
        }
        if (!ok) {
            return WHY(THEMIS_ERR_INVALID, "slice run %u (transfers %u.., %u copies of %u) is "
                       "not a pipeline's repeated slot", ri, r->store, r->count, r->len);
        }
        left += (uint64_t) r->len * (r->count - 1);
        ri++;
    }
    if (ri != sl->nruns) {
        return WHY(THEMIS_ERR_INVALID, "slice runs %u of %u inside its %u transfers", ri,
                   sl->nruns, s->nxfers);
    }
    /* The slice's own dependencies are its ops' (transfer_slice.h):
     * compile_rank reads them from its transfers. */
    d.nmine = s->nxfers;
    d.mine = sl->tag;
    return compile_rank(s, sl, sl->rank, total, counts, chunks_in_flight, periodic, &d, out, why,
                        len);
}
