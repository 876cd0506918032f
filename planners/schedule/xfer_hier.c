/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The Themis plan as a transfer schedule, or one rank's slice of it
 * (xfer_hier.h).  The leaf layout is plan.c's: leaves in the chunk's
 * level order (its RS order, reversed AG order for allgather), a level's
 * block for member m the run of leaves with this group's digits above
 * the level and m on it.
 */
#include "xfer_hier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_builder.h"
#include "xfer_sink.h"

#define NONE UINT32_MAX

typedef struct {
    const themis_plan_request_t *req;
    const themis_schedule_t *sched;
    themis_grid_t grid;
    uint32_t P, K, S, B, U; /* ranks, chunks, stages, biring dims, units a leaf */
    int nd;
    int per_element;
    uint8_t buf;           /* where the phases run */
    uint8_t *lvl_dim;      /* [K nd] level -> dimension */
    uint8_t *dim_lvl;      /* [K nd] dimension -> level */
    uint32_t *weight;      /* [K nd] leaves in a block of the level */
    uint8_t *slot_lvl;     /* [K B] the level of each biring cut */
    uint32_t *leaf_lin;    /* [K P] leaf -> linear index */
    uint32_t *lin_leaf;    /* [K P] linear index -> leaf */
    uint64_t *cut;         /* [K P U] where each piece of a leaf starts (work elements) */
    uint8_t *slot_pos;     /* [K P B] the piece a biring cut starts */
    uint64_t *base;        /* [K + 1] each chunk's first work element */
    uint64_t *cnt, *displ; /* [P] each rank's block and its offset (RS, AG) */
    themis_xfer_sink_t sk;
} hier_t;

static int biring(const hier_t *h, int dim)
{
    return THEMIS_DIM_ALGO_BIRING == h->req->dim_algo[dim] && h->req->dim_size[dim] >= 2;
}

/* Work element where piece j (0 .. U, U: the leaf's end) of leaf x
 * (0 .. P, P: the chunk's end) of chunk k starts. */
static uint64_t elem(const hier_t *h, uint32_t k, uint32_t x, uint32_t j)
{
    if (j == h->U) {
        x++;
        j = 0;
    }
    return x == h->P ? h->base[k + 1] : h->cut[((size_t) k * h->P + x) * h->U + j];
}

/* The same in units of the work buffer. */
static uint64_t at(const hier_t *h, uint32_t k, uint32_t x, uint32_t j)
{
    return h->per_element ? elem(h, k, x, j) : ((uint64_t) k * h->P + x) * h->U + j;
}

static uint32_t leaf_of(const hier_t *h, uint32_t k, uint32_t rank)
{
    return h->lin_leaf[(size_t) k * h->P + h->grid.rank_to_linear[rank]];
}

static uint32_t rank_at(const hier_t *h, uint32_t k, uint32_t x)
{
    return (uint32_t) h->grid.linear_to_rank[h->leaf_lin[(size_t) k * h->P + x]];
}

/* Rank r's piece of chunk k in its block: the whole vector's unit
 * (global) or the rank's own buffer's (RS output, AG input). */
static uint64_t piece(const hier_t *h, uint32_t r, uint32_t k, int global)
{
    if (!h->per_element) {
        return (global ? (uint64_t) r * h->K * h->U : 0) + (uint64_t) k * h->U;
    }
    return (global ? h->displ[r] : 0) + themis_split_offset(h->cnt[r], h->K, k);
}

static uint64_t leaf_len(const hier_t *h, uint32_t k, uint32_t x)
{
    return at(h, k, x + 1, 0) - at(h, k, x, 0);
}

static uint64_t leaf_elems(const hier_t *h, uint32_t k, uint32_t l, const uint8_t *ld)
{
    const themis_plan_request_t *req = h->req;
    switch (req->coll) {
    case THEMIS_COLL_ALLREDUCE: {
        uint64_t n = themis_split_part(req->count, h->K, k);
        for (int i = 0; i < h->nd; i++) {
            n = themis_split_part(n, h->grid.size[ld[i]],
                                  themis_grid_coord(&h->grid, l, ld[i]));
        }
        return n;
    }
    default:
        return themis_split_part(h->cnt[h->grid.linear_to_rank[l]], h->K, k);
    }
}

/* Chunk k's levels, leaves and pieces (plan.c's layout_chunk, with the
 * biring cuts). */
static themis_status_t layout(hier_t *h, uint32_t k)
{
    const themis_stage_t *st = &h->sched->stages[(size_t) k * h->S];
    const int n = h->nd, ag = THEMIS_COLL_ALLGATHER == h->req->coll;
    uint8_t *ld = &h->lvl_dim[(size_t) k * n], *dl = &h->dim_lvl[(size_t) k * n];
    uint32_t *w = &h->weight[(size_t) k * n], *leaf_lin = &h->leaf_lin[(size_t) k * h->P];
    uint32_t b = 0;
    for (int i = 0; i < n; i++) {
        ld[i] = ag ? st[n - 1 - i].dim : st[i].dim;
        dl[ld[i]] = (uint8_t) i;
        if (biring(h, ld[i])) {
            h->slot_lvl[(size_t) k * h->B + b++] = (uint8_t) i;
        }
    }
    uint64_t acc = 1;
    for (int i = n - 1; i >= 0; i--) {
        w[i] = (uint32_t) acc;
        acc *= h->grid.size[ld[i]];
    }
    for (uint32_t l = 0; l < h->P; l++) {
        uint32_t x = 0;
        for (int i = 0; i < n; i++) {
            x += themis_grid_coord(&h->grid, l, ld[i]) * w[i];
        }
        leaf_lin[x] = l;
        h->lin_leaf[(size_t) k * h->P + l] = x;
    }
    uint64_t pos = h->base[k];
    for (uint32_t x = 0; x < h->P; x++) {
        uint64_t len = leaf_elems(h, k, leaf_lin[x], ld);
        for (uint32_t j = 0; j < h->U; j++) {
            h->cut[((size_t) k * h->P + x) * h->U + j] = pos;
        }
        if (__builtin_add_overflow(pos, len, &pos)) {
            return THEMIS_ERR_INVALID;
        }
    }
    h->base[k + 1] = pos;
    /* Each biring block's half point, clamped to the leaf; the pieces in
     * element order, ties by level. */
    for (uint32_t x = 0; x < h->P && h->B > 0; x++) {
        uint64_t c[THEMIS_MAX_DIMS], lo = elem(h, k, x, 0), hi = elem(h, k, x + 1, 0);
        uint32_t order[THEMIS_MAX_DIMS];
        for (uint32_t s = 0; s < h->B; s++) {
            uint32_t ww = w[h->slot_lvl[(size_t) k * h->B + s]], xs = x / ww * ww;
            uint64_t bs = elem(h, k, xs, 0), be = elem(h, k, xs + ww, 0);
            uint64_t half = bs + themis_split_part(be - bs, 2, 0);
            c[s] = half < lo ? lo : half > hi ? hi : half;
            uint32_t i = s;
            for (; i > 0 && c[order[i - 1]] > c[s]; i--) {
                order[i] = order[i - 1];
            }
            order[i] = s;
        }
        for (uint32_t i = 0; i < h->B; i++) {
            h->slot_pos[((size_t) k * h->P + x) * h->B + order[i]] = (uint8_t) (1 + i);
            h->cut[((size_t) k * h->P + x) * h->U + 1 + i] = c[order[i]];
        }
    }
    return THEMIS_OK;
}

/* The label (transfer_slice.h) of chunk k's stage s. */
static uint64_t stage_label(const hier_t *h, uint32_t k, uint32_t s)
{
    const themis_stage_t *stg = &h->sched->stages[(size_t) k * h->S + s];
    return (uint64_t) k << 16 | (uint64_t) stg->phase << 8 | stg->dim;
}

static themis_status_t put(hier_t *h, uint32_t src, uint32_t dst, uint8_t kind, uint8_t sbuf,
                           uint64_t soff, uint8_t dbuf, uint64_t doff, uint64_t n)
{
    if (0 == n) { /* no elements: no transfer (per element only) */
        h->sk.next++;
        return THEMIS_OK;
    }
    return themis_xfer_sink_add(&h->sk, src, dst, kind, sbuf, soff, dbuf, doff, n);
}

/* The slice's rank, or NONE. */
static uint32_t only(const hier_t *h)
{
    return NULL != h->sk.sl ? h->sk.sl->rank : NONE;
}

/* The leaf copies of rank q (in: before the phases), rank after rank:
 * every leaf of a chunk (RS in, AG out) or the rank's own. */
static themis_status_t copies(hier_t *h, int in)
{
    const int rs = THEMIS_COLL_REDUCE_SCATTER == h->req->coll;
    const int all = in == rs;
    const uint32_t per = all ? h->P : 1, first = h->sk.next;
    themis_status_t st = THEMIS_OK;
    if (THEMIS_COLL_ALLREDUCE == h->req->coll) {
        return THEMIS_OK;
    }
    for (uint32_t q = 0; q < h->P && THEMIS_OK == st; q++) {
        if (NONE != only(h) && q != only(h)) {
            continue;
        }
        for (uint32_t k = 0; k < h->K && THEMIS_OK == st; k++) {
            h->sk.label = stage_label(h, k, in ? 0 : h->S - 1);
            for (uint32_t i = 0; i < per && THEMIS_OK == st; i++) {
                uint32_t x = all ? i : leaf_of(h, k, q);
                uint64_t outer = piece(h, all ? rank_at(h, k, x) : q, k, all);
                uint8_t ob = in ? THEMIS_BUF_INPUT : THEMIS_BUF_OUTPUT;
                h->sk.next = first + ((uint32_t) q * h->K + k) * per + i;
                st = in ? put(h, q, q, THEMIS_XFER_COPY, ob, outer, THEMIS_BUF_SCRATCH,
                              at(h, k, x, 0), leaf_len(h, k, x))
                        : put(h, q, q, THEMIS_XFER_COPY, THEMIS_BUF_SCRATCH, at(h, k, x, 0), ob,
                              outer, leaf_len(h, k, x));
            }
        }
    }
    h->sk.next = first + h->P * h->K * per;
    return st;
}

/* Stage s of chunk k: every group's phase along the stage's dimension,
 * step by step (plan_builder.c's ring, direct and biring steps). */
static themis_status_t phase(hier_t *h, uint32_t k, uint32_t s)
{
    const themis_stage_t *stg = &h->sched->stages[(size_t) k * h->S + s];
    const int d = stg->dim, rs = THEMIS_PHASE_RS == stg->phase;
    const uint32_t p = h->grid.size[d];
    if (p < 2) {
        return THEMIS_OK;
    }
    const themis_dim_algo_t algo = h->req->dim_algo[d];
    const int bi = THEMIS_DIM_ALGO_BIRING == algo, direct = THEMIS_DIM_ALGO_DIRECT == algo;
    const uint32_t nsteps = (p - 1) * (bi ? 2 : 1), stride = h->grid.stride[d], ng = h->P / p;
    const uint32_t lv = h->dim_lvl[(size_t) k * h->nd + d];
    const uint32_t w = h->weight[(size_t) k * h->nd + lv], first = h->sk.next;
    h->sk.label = stage_label(h, k, s);
    uint32_t slot = 0, g_lo = 0, g_hi = ng, me = NONE;
    while (bi && h->slot_lvl[(size_t) k * h->B + slot] != lv) {
        slot++;
    }
    if (NONE != only(h)) {
        uint32_t l = h->grid.rank_to_linear[only(h)];
        me = themis_grid_coord(&h->grid, l, d);
        g_lo = l % stride + l / (stride * p) * stride;
        g_hi = g_lo + 1;
    }
    themis_status_t st = THEMIS_OK;
    for (uint32_t t = 0; t < nsteps && THEMIS_OK == st; t++) {
        const uint32_t step = bi ? t / 2 : direct ? t + 1 : t;
        const int back = bi && 1 == t % 2;
        for (uint32_t g = g_lo; g < g_hi && THEMIS_OK == st; g++) {
            const uint32_t l0 = g % stride + g / stride * stride * p;
            uint32_t leaf0 = 0;
            for (uint32_t i = 0; i < lv; i++) {
                int di = h->lvl_dim[(size_t) k * h->nd + i];
                leaf0 +=
                    themis_grid_coord(&h->grid, l0, di) * h->weight[(size_t) k * h->nd + i];
            }
            /* senders: every member, or the slice's two (in member order) */
            uint32_t from = NONE == me ? 0
                            : direct   ? (me + p - step) % p
                            : back     ? (me + 1) % p
                                       : (me + p - 1) % p;
            uint32_t js[2] = {from < me ? from : me, from < me ? me : from};
            for (uint32_t i = 0; i < (NONE == me ? p : 2) && THEMIS_OK == st; i++) {
                const uint32_t j = NONE == me ? i : js[i];
                uint32_t dst, m;
                if (direct) {
                    dst = (j + step) % p;
                    m = rs ? dst : j;
                } else if (back) {
                    dst = (j + p - 1) % p;
                    m = (j + step + (rs ? 1 : 0)) % p;
                } else {
                    dst = (j + 1) % p;
                    m = (j + 2 * p - step - (rs ? 1 : 0)) % p;
                }
                uint32_t xs = leaf0 + m * w, xe = xs + w;
                uint64_t lo = at(h, k, xs, 0), hi = at(h, k, xe, 0);
                if (bi) {
                    /* the leaf holding the block's half point: the last
                     * whose start is not beyond it */
                    uint64_t bs = elem(h, k, xs, 0), be = elem(h, k, xe, 0);
                    uint64_t half = bs + themis_split_part(be - bs, 2, 0);
                    uint32_t a = xs, z = xe - 1;
                    while (a < z) {
                        uint32_t mid = a + (z - a + 1) / 2;
                        if (elem(h, k, mid, 0) <= half) {
                            a = mid;
                        } else {
                            z = mid - 1;
                        }
                    }
                    uint64_t cut =
                        at(h, k, a, h->slot_pos[((size_t) k * h->P + a) * h->B + slot]);
                    lo = back ? cut : lo;
                    hi = back ? hi : cut;
                }
                h->sk.next = first + (t * ng + g) * p + j;
                st = put(h, (uint32_t) h->grid.linear_to_rank[l0 + j * stride],
                         (uint32_t) h->grid.linear_to_rank[l0 + dst * stride],
                         rs ? THEMIS_XFER_REDUCE : THEMIS_XFER_COPY, h->buf, lo, h->buf, lo,
                         hi - lo);
            }
        }
    }
    h->sk.next = first + nsteps * h->P;
    return st;
}

/* The phases, merged from the per-dimension orders: round robin over the
 * dimensions, a queue's next phase once its chunk's previous one is in. */
static themis_status_t phases(hier_t *h, const themis_intra_order_t *order)
{
    uint32_t *done = calloc(h->K, sizeof(*done)), cur[THEMIS_MAX_DIMS] = {0};
    uint64_t left = (uint64_t) h->K * h->S;
    themis_status_t st = NULL != done ? THEMIS_OK : THEMIS_ERR_NOMEM;
    while (THEMIS_OK == st && left > 0) {
        int moved = 0;
        for (int d = 0; d < h->nd && THEMIS_OK == st; d++) {
            if (cur[d] >= order->count[d]) {
                continue;
            }
            const themis_order_entry_t *e = &order->entries[d][cur[d]];
            if (e->chunk >= h->K || e->stage >= h->S ||
                h->sched->stages[(size_t) e->chunk * h->S + e->stage].dim != d) {
                st = THEMIS_ERR_INVALID;
            } else if (e->stage == done[e->chunk]) {
                st = phase(h, e->chunk, e->stage);
                done[e->chunk]++;
                cur[d]++;
                left--;
                moved = 1;
            }
        }
        st = THEMIS_OK == st && !moved ? THEMIS_ERR_INVALID : st;
    }
    for (int d = 0; d < h->nd && THEMIS_OK == st; d++) {
        st = cur[d] == order->count[d] ? THEMIS_OK : THEMIS_ERR_INVALID;
    }
    free(done);
    return st;
}

static void hier_free(hier_t *h)
{
    themis_grid_free(&h->grid);
    free(h->lvl_dim);
    free(h->dim_lvl);
    free(h->weight);
    free(h->slot_lvl);
    free(h->leaf_lin);
    free(h->lin_leaf);
    free(h->cut);
    free(h->slot_pos);
    free(h->base);
    free(h->cnt);
    free(h->displ);
    themis_xfer_tracker_free(&h->sk.tr);
}

/* Transfers of the whole list (0 where it overflows). */
static uint64_t hier_xfers(const hier_t *h)
{
    uint64_t n =
        THEMIS_COLL_ALLREDUCE == h->req->coll ? 0 : 2 * (uint64_t) h->P * h->K * (h->P + 1);
    for (uint32_t k = 0; k < h->K; k++) {
        for (uint32_t s = 0; s < h->S; s++) {
            const themis_stage_t *stg = &h->sched->stages[(size_t) k * h->S + s];
            uint64_t p = h->grid.size[stg->dim];
            n += (p - 1) * (biring(h, stg->dim) ? 2 : 1) * h->P;
        }
    }
    return n;
}

/* The units each buffer holds, the explicit layout and (a slice's) the
 * global unit of each scratch unit. */
static themis_status_t set_units(hier_t *h, uint64_t total, themis_xfer_sched_t *out)
{
    const themis_coll_t coll = h->req->coll;
    const uint64_t work = h->per_element ? h->base[h->K] : (uint64_t) h->K * h->P * h->U;
    const uint64_t units = h->per_element ? total : (uint64_t) h->K * h->P * h->U;
    if (units > UINT32_MAX - 1 || work > UINT32_MAX - 1 || 0 == units) {
        return 0 == units ? THEMIS_ERR_INVALID : THEMIS_ERR_UNSUPPORTED;
    }
    themis_xfer_init(out, coll, h->P, (uint32_t) units);
    snprintf(out->name, sizeof(out->name), "themis %s %u ranks", themis_coll_name(coll), h->P);
    const uint64_t block = units / h->P;
    switch (coll) {
    case THEMIS_COLL_ALLREDUCE: /* in place */
        out->buf_units[THEMIS_BUF_INPUT] = units;
        out->result_buf = THEMIS_BUF_INPUT;
        break;
    case THEMIS_COLL_REDUCE_SCATTER:
        out->buf_units[THEMIS_BUF_INPUT] = units;
        out->buf_units[THEMIS_BUF_OUTPUT] = block;
        out->buf_units[THEMIS_BUF_SCRATCH] = work;
        break;
    case THEMIS_COLL_ALLGATHER:
        out->buf_units[THEMIS_BUF_INPUT] = block;
        out->buf_units[THEMIS_BUF_OUTPUT] = units;
        out->buf_units[THEMIS_BUF_SCRATCH] = work;
        break;
    }
    if (h->per_element) {
        return THEMIS_OK;
    }
    out->unit_off = malloc((units + 1) * sizeof(*out->unit_off));
    if (NULL == out->unit_off) {
        return THEMIS_ERR_NOMEM;
    }
    uint64_t g = 0;
    for (uint32_t r = 0; r < (THEMIS_COLL_ALLREDUCE == coll ? 1 : h->P); r++) {
        for (uint32_t k = 0; k < h->K; k++) {
            for (uint32_t x = 0; x < h->P; x++) {
                if (THEMIS_COLL_ALLREDUCE != coll && x != leaf_of(h, k, r)) {
                    continue;
                }
                for (uint32_t j = 0; j < h->U; j++) {
                    out->unit_off[g++] = THEMIS_COLL_ALLREDUCE == coll
                                             ? elem(h, k, x, j)
                                             : h->displ[r] +
                                                   themis_split_offset(h->cnt[r], h->K, k) +
                                                   elem(h, k, x, j) - elem(h, k, x, 0);
                }
            }
        }
    }
    out->unit_off[units] = total;
    themis_xfer_slice_t *sl = h->sk.sl;
    if (NULL == sl || THEMIS_COLL_ALLREDUCE == coll) {
        return THEMIS_OK;
    }
    sl->scratch_unit = malloc((work + 1) * sizeof(*sl->scratch_unit));
    if (NULL == sl->scratch_unit) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t k = 0; k < h->K; k++) {
        for (uint32_t x = 0; x < h->P; x++) {
            for (uint32_t j = 0; j < h->U; j++) {
                sl->scratch_unit[((size_t) k * h->P + x) * h->U + j] =
                    (uint32_t) (piece(h, rank_at(h, k, x), k, 1) + j);
            }
        }
    }
    return THEMIS_OK;
}

static themis_status_t hier_init(hier_t *h, const themis_plan_request_t *req,
                                 const themis_schedule_t *sched, uint64_t *total)
{
    themis_status_t st =
        themis_grid_init(&h->grid, req->ndims, req->dim_size, req->coord_to_rank);
    if (THEMIS_OK != st) {
        return st;
    }
    h->req = req;
    h->sched = sched;
    h->nd = req->ndims;
    h->P = h->grid.nranks;
    h->K = sched->nchunks;
    h->S = sched->nstages;
    for (int d = 0; d < h->nd; d++) {
        h->B += (uint32_t) biring(h, d);
    }
    h->U = 1 + h->B;
    h->buf = THEMIS_COLL_ALLREDUCE == req->coll ? THEMIS_BUF_INPUT : THEMIS_BUF_SCRATCH;
    size_t kn = (size_t) h->K * (size_t) h->nd, kp = (size_t) h->K * h->P;
    h->lvl_dim = malloc(kn + 1);
    h->dim_lvl = malloc(kn + 1);
    h->weight = malloc((kn + 1) * sizeof(*h->weight));
    h->slot_lvl = malloc((size_t) h->K * h->B + 1);
    h->leaf_lin = malloc((kp + 1) * sizeof(*h->leaf_lin));
    h->lin_leaf = malloc((kp + 1) * sizeof(*h->lin_leaf));
    h->cut = malloc((kp * h->U + 1) * sizeof(*h->cut));
    h->slot_pos = malloc(kp * h->B + 1);
    h->base = calloc((size_t) h->K + 1, sizeof(*h->base));
    h->cnt = calloc(h->P, sizeof(*h->cnt));
    h->displ = calloc(h->P, sizeof(*h->displ));
    if (NULL == h->lvl_dim || NULL == h->dim_lvl || NULL == h->weight || NULL == h->slot_lvl ||
        NULL == h->leaf_lin || NULL == h->lin_leaf || NULL == h->cut || NULL == h->slot_pos ||
        NULL == h->base || NULL == h->cnt || NULL == h->displ) {
        return THEMIS_ERR_NOMEM;
    }
    *total = req->count;
    if (THEMIS_COLL_ALLREDUCE != req->coll) {
        *total = 0;
        for (uint32_t r = 0; r < h->P; r++) {
            h->cnt[r] =
                THEMIS_COLL_REDUCE_SCATTER == req->coll ? req->recvcounts[r] : req->count;
            h->displ[r] = *total;
            if (__builtin_add_overflow(*total, h->cnt[r], total)) {
                return THEMIS_ERR_INVALID;
            }
            if (h->per_element && h->cnt[r] != h->cnt[0]) {
                return THEMIS_ERR_UNSUPPORTED;
            }
        }
    }
    for (uint32_t k = 0; k < h->K && THEMIS_OK == st; k++) {
        st = layout(h, k);
    }
    return st;
}

/* The whole list (sl NULL) or rank sl->rank's slice of it in out. */
static themis_status_t hier_make(const themis_plan_request_t *req,
                                 const themis_schedule_t *sched,
                                 const themis_intra_order_t *order, int per_element,
                                 themis_xfer_sched_t *out, themis_xfer_slice_t *sl)
{
    hier_t h;
    uint64_t total = 0;
    memset(out, 0, sizeof(*out));
    memset(&h, 0, sizeof(h));
    themis_status_t st = themis_hier_check(req, sched, order);
    if (THEMIS_OK != st) {
        return st;
    }
    h.per_element = per_element;
    h.sk.sl = sl;
    h.sk.labelled = 1;
    st = hier_init(&h, req, sched, &total);
    if (THEMIS_OK == st && NULL != sl && sl->rank >= h.P) {
        st = THEMIS_ERR_INVALID;
    }
    uint64_t n = THEMIS_OK == st ? hier_xfers(&h) : 0;
    if (THEMIS_OK == st &&
        n > (NULL != sl ? THEMIS_XFER_SLICE_MAX_XFERS : THEMIS_XFER_HIER_MAX_XFERS)) {
        st = THEMIS_ERR_UNSUPPORTED;
    }
    if (THEMIS_OK == st) {
        st = set_units(&h, total, out);
    }
    if (THEMIS_OK == st && NULL != sl) {
        /* the rank's: two transfers a step of each phase, its copies */
        st = themis_xfer_slice_reserve(sl, 2 * n / h.P + 2 * (uint64_t) h.K * (h.P + 1));
    }
    if (THEMIS_OK == st) {
        st = themis_xfer_tracker_init_rank(&h.sk.tr, out, NULL != sl ? sl->rank : NONE);
    }
    if (THEMIS_OK == st) {
        st = copies(&h, 1);
    }
    if (THEMIS_OK == st) {
        st = phases(&h, order);
    }
    if (THEMIS_OK == st) {
        st = copies(&h, 0);
    }
    hier_free(&h);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}

themis_status_t themis_xfer_hier(const themis_plan_request_t *req,
                                 const themis_schedule_t *sched,
                                 const themis_intra_order_t *order, int per_element,
                                 themis_xfer_sched_t *out)
{
    return hier_make(req, sched, order, per_element, out, NULL);
}

themis_status_t themis_xfer_hier_slice(const themis_plan_request_t *req,
                                       const themis_schedule_t *sched,
                                       const themis_intra_order_t *order, uint32_t rank,
                                       themis_xfer_slice_t *out)
{
    memset(out, 0, sizeof(*out));
    out->rank = rank;
    return themis_xfer_slice_done(out, hier_make(req, sched, order, 0, &out->s, out));
}
