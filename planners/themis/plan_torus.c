/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * rings and torus2d program builders (plan_torus.h).  Both emit, for each
 * quarter q and chunk k, a chain of stages (ops with dep = the previous
 * stage) through the shared plan_builder pieces; a backward ring is the
 * ring helper with the group's reverse flag set.
 */
#include "plan_torus.h"

#include <stdlib.h>
#include <string.h>

#include "plan_builder.h"

#define NQ 4u   /* quarters: one per directed ring / link direction */

typedef struct {
    const themis_plan_request_t *req;
    uint32_t nchunks, nstages;
    themis_grid_t grid;
    uint32_t me;                 /* this rank's linear index */
    uint32_t n;                  /* ranks */
    uint64_t *displ;             /* RS: [n] segment displacements by rank */
    uint64_t total;              /* RS: sum of recvcounts */
    themis_block_t *blocks;      /* [max group] */
    themis_plan_builder_t b;
    /* rings */
    const themis_ham_t *ham;
    int *ring_members[NQ];       /* [n] ring order of ranks, reversal built in */
    uint32_t ring_me[NQ];
    /* torus2d */
    int *dim_members[2];         /* this rank's row (dim 0) and column (dim 1) */
    uint32_t my_coord[2];
    uint64_t *region;            /* RS/AG: [NQ * nchunks] work offset of (q, k) */
    uint64_t *leaf_off;          /* RS/AG: [n + 1] */
} torus_ctx_t;

typedef themis_status_t (*stage_fn)(torus_ctx_t *c, uint32_t q, uint32_t k, uint32_t s,
                                    int32_t dep, int32_t *op);

/* ------------------------------------------------------------ common */

/* Chunk k of quarter q of n elements: offset and length. */
static void piece(uint64_t n, uint32_t nchunks, uint32_t q, uint32_t k, uint64_t *off,
                  uint64_t *cnt)
{
    uint64_t qn = themis_split_part(n, NQ, q);
    *off = themis_split_offset(n, NQ, q) + themis_split_offset(qn, nchunks, k);
    *cnt = themis_split_part(qn, nchunks, k);
}

static themis_status_t check_request(const themis_plan_request_t *req, uint32_t nchunks)
{
    if (NULL == req || 2 != req->ndims || 0 == req->dim_size[0] || 0 == req->dim_size[1] ||
        0 == req->chunks_in_flight || 0 == nchunks) {
        return THEMIS_ERR_INVALID;
    }
    switch (req->coll) {
    case THEMIS_COLL_ALLREDUCE:
    case THEMIS_COLL_ALLGATHER:
        return THEMIS_OK;
    case THEMIS_COLL_REDUCE_SCATTER:
        return (NULL == req->recvcounts) ? THEMIS_ERR_INVALID : THEMIS_OK;
    }
    return THEMIS_ERR_INVALID;
}

static void ctx_free(torus_ctx_t *c)
{
    themis_grid_free(&c->grid);
    free(c->displ);
    free(c->blocks);
    for (uint32_t q = 0; q < NQ; q++) {
        free(c->ring_members[q]);
    }
    free(c->dim_members[0]);
    free(c->dim_members[1]);
    free(c->region);
    free(c->leaf_off);
    themis_pb_free(&c->b);
}

/* Grid, rank, sizes and scratch for groups of up to maxp members. */
static themis_status_t ctx_init(torus_ctx_t *c, const themis_plan_request_t *req,
                                uint32_t nchunks, uint32_t maxp, uint32_t tag_stride)
{
    memset(c, 0, sizeof(*c));
    c->req = req;
    c->nchunks = nchunks;
    c->nstages = (THEMIS_COLL_ALLREDUCE == req->coll) ? 2 : 1;
    themis_status_t st = themis_grid_init(&c->grid, 2, req->dim_size, req->coord_to_rank);
    if (THEMIS_OK != st) {
        return st;
    }
    c->n = c->grid.nranks;
    if (req->rank < 0 || (uint32_t)req->rank >= c->n) {
        return THEMIS_ERR_INVALID;
    }
    c->me = c->grid.rank_to_linear[req->rank];
    if (THEMIS_COLL_ALLGATHER == req->coll && 0 != req->count &&
        req->count > UINT64_MAX / c->n) {
        return THEMIS_ERR_INVALID;
    }
    if (THEMIS_COLL_REDUCE_SCATTER == req->coll) {
        c->displ = malloc(c->n * sizeof(*c->displ));
        if (NULL == c->displ) {
            return THEMIS_ERR_NOMEM;
        }
        for (uint32_t r = 0; r < c->n; r++) {
            c->displ[r] = c->total;
            if (req->recvcounts[r] > UINT64_MAX - c->total) {
                return THEMIS_ERR_INVALID;
            }
            c->total += req->recvcounts[r];
        }
    }
    c->blocks = malloc(maxp * sizeof(*c->blocks));
    if (NULL == c->blocks) {
        return THEMIS_ERR_NOMEM;
    }
    return themis_pb_init(&c->b, NQ, (tag_stride < 1) ? 1 : tag_stride, req->chunks_in_flight);
}

/* One ring phase of the current op; rev runs it backwards (to
 * members[me - 1]). */
static themis_status_t ring_phase(torus_ctx_t *c, themis_phase_t phase, int rev, uint32_t p,
                                  uint32_t me, const int *members, const themis_block_t *blocks)
{
    themis_group_phase_t g = {.p = p, .me = me, .members = members, .blocks = blocks,
                              .reverse = rev};
    return themis_pb_group_phase(&c->b, THEMIS_DIM_ALGO_RING, phase, &g);
}

/* Emit every (quarter, chunk, stage) op, software-pipelined: slot t holds
 * the stages s of chunks k = t - s, later stages first.  Deps point to the
 * previous slot and each queue lists its ops in creation order, the same
 * on every rank, so no rank waits for an op another rank has not started. */
static themis_status_t emit_all(torus_ctx_t *c, stage_fn stage)
{
    uint32_t n = c->nchunks, ns = c->nstages;
    int32_t *prev = malloc((size_t)NQ * n * sizeof(*prev));
    if (NULL == prev) {
        return THEMIS_ERR_NOMEM;
    }
    themis_status_t st = THEMIS_OK;
    for (uint64_t t = 0; t + 1 < (uint64_t)n + ns && THEMIS_OK == st; t++) {
        for (uint32_t s = ns; s-- > 0 && THEMIS_OK == st;) {
            if (t < s || t - s >= n) {
                continue;
            }
            uint32_t k = (uint32_t)(t - s);
            for (uint32_t q = 0; q < NQ && THEMIS_OK == st; q++) {
                int32_t *op = &prev[q * n + k];
                st = stage(c, q, k, s, (0 == s) ? -1 : *op, op);
            }
        }
    }
    free(prev);
    return st;
}

static themis_status_t begin(torus_ctx_t *c, uint32_t queue, int32_t dep, uint32_t q,
                             uint32_t k, themis_phase_t phase, int32_t *op)
{
    uint32_t idx;
    themis_status_t st = themis_pb_begin_op(&c->b, queue, dep, q * c->nchunks + k, phase, &idx);
    if (THEMIS_OK == st && idx > INT32_MAX) {
        st = THEMIS_ERR_UNSUPPORTED;
    }
    *op = (int32_t)idx;
    return st;
}

/* ------------------------------------------------------------ rings */

static themis_phase_t one_stage_phase(const torus_ctx_t *c)
{
    return (THEMIS_COLL_ALLGATHER == c->req->coll) ? THEMIS_PHASE_AG : THEMIS_PHASE_RS;
}

static themis_status_t rings_stage(torus_ctx_t *c, uint32_t q, uint32_t k, uint32_t s,
                                   int32_t dep, int32_t *op)
{
    const themis_plan_request_t *req = c->req;
    themis_phase_t phase = (2 == c->nstages) ? (themis_phase_t)s : one_stage_phase(c);
    themis_status_t st = begin(c, q, dep, q, k, phase, op);
    if (THEMIS_OK != st) {
        return st;
    }
    const int *members = c->ring_members[q];
    uint64_t off, cnt;
    if (THEMIS_COLL_ALLREDUCE == req->coll) {
        piece(req->count, c->nchunks, q, k, &off, &cnt);
        themis_block_split_even(off, cnt, c->n, c->blocks);
    } else {
        for (uint32_t j = 0; j < c->n; j++) {
            int x = members[j];
            if (THEMIS_COLL_REDUCE_SCATTER == req->coll) {
                piece(req->recvcounts[x], c->nchunks, q, k, &off, &cnt);
                c->blocks[j] = (themis_block_t){.off = c->displ[x] + off, .count = cnt};
            } else {
                piece(req->count, c->nchunks, q, k, &off, &cnt);
                c->blocks[j] = (themis_block_t){.off = (uint64_t)x * req->count + off,
                                                .count = cnt};
            }
        }
    }
    st = ring_phase(c, phase, 0, c->n, c->ring_me[q], members, c->blocks);
    return (THEMIS_OK == st) ? themis_pb_queue_push(&c->b, q, (uint32_t)*op) : st;
}

/* Ring q: cycle q / 2, backwards for odd q; node index = linear index. */
static themis_status_t rings_members(torus_ctx_t *c)
{
    uint32_t n = c->n;
    for (uint32_t q = 0; q < NQ; q++) {
        c->ring_members[q] = malloc(n * sizeof(int));
        if (NULL == c->ring_members[q]) {
            return THEMIS_ERR_NOMEM;
        }
        const uint32_t *cyc = c->ham->cycle[q / 2];
        for (uint32_t j = 0; j < n; j++) {
            uint32_t node = (q & 1) ? cyc[(n - j) % n] : cyc[j];
            c->ring_members[q][j] = c->grid.linear_to_rank[node];
            if (node == c->me) {
                c->ring_me[q] = j;
            }
        }
    }
    return THEMIS_OK;
}

static themis_status_t rings_copies(torus_ctx_t *c, uint64_t *work_count, int *is_output)
{
    const themis_plan_request_t *req = c->req;
    switch (req->coll) {
    case THEMIS_COLL_ALLREDUCE:
        *work_count = req->count;
        *is_output = 1;
        return themis_pb_copy_in(&c->b, 0, 0, req->count);
    case THEMIS_COLL_REDUCE_SCATTER: {
        *work_count = c->total;
        *is_output = 0;
        themis_status_t st = themis_pb_copy_in(&c->b, 0, 0, c->total);
        return (THEMIS_OK == st) ? themis_pb_copy_out(&c->b, c->displ[req->rank], 0,
                                                      req->recvcounts[req->rank])
                                 : st;
    }
    case THEMIS_COLL_ALLGATHER:
        *work_count = (uint64_t)c->n * req->count;
        *is_output = 1;
        return themis_pb_copy_in(&c->b, 0, (uint64_t)req->rank * req->count, req->count);
    }
    return THEMIS_ERR_INVALID;
}

themis_status_t themis_program_build_rings(const themis_plan_request_t *req,
                                           const themis_ham_t *cycles, uint32_t nchunks,
                                           themis_program_t *out)
{
    if (NULL == out) {
        return THEMIS_ERR_INVALID;
    }
    memset(out, 0, sizeof(*out));
    themis_status_t st = check_request(req, nchunks);
    if (THEMIS_OK != st) {
        return st;
    }
    uint32_t cols = req->dim_size[0], rows = req->dim_size[1];
    if (rows < 3 || cols < 3) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    themis_ham_t own;
    memset(&own, 0, sizeof(own));
    if (NULL == cycles) {
        st = themis_ham_build(rows, cols, &own, NULL, 0);
        cycles = &own;
    } else if (cycles->rows != rows || cycles->cols != cols || NULL == cycles->cycle[0] ||
               NULL == cycles->cycle[1]) {
        st = THEMIS_ERR_INVALID;
    }
    if (THEMIS_OK != st) {
        themis_ham_free(&own);
        return st;
    }
    torus_ctx_t c;
    uint64_t work_count = 0;
    int is_output = 0;
    uint64_t n = (uint64_t)rows * cols;
    st = ctx_init(&c, req, nchunks, (uint32_t)n, (uint32_t)(n - 1));
    c.ham = cycles;
    if (THEMIS_OK == st) {
        st = rings_members(&c);
    }
    if (THEMIS_OK == st) {
        st = rings_copies(&c, &work_count, &is_output);
    }
    if (THEMIS_OK == st) {
        st = emit_all(&c, rings_stage);
    }
    if (THEMIS_OK == st) {
        st = themis_pb_finish(&c.b, work_count, is_output, out);
    }
    ctx_free(&c);
    themis_ham_free(&own);
    return st;
}

/* ------------------------------------------------------------ torus2d */

/* Quarter q: first dimension, direction. */
static int t2d_dim_a(uint32_t q)
{
    return (q < 2) ? 0 : 1;
}

/* Stage s of quarter q: dimension and phase. */
static void t2d_stage_of(const torus_ctx_t *c, uint32_t q, uint32_t s, int *dim,
                         themis_phase_t *phase)
{
    int a = t2d_dim_a(q), b = 1 - a;
    switch (c->req->coll) {
    case THEMIS_COLL_ALLREDUCE:   /* RS A, RS B, AG B, AG A */
        *dim = (0 == s || 3 == s) ? a : b;
        *phase = (s < 2) ? THEMIS_PHASE_RS : THEMIS_PHASE_AG;
        return;
    case THEMIS_COLL_REDUCE_SCATTER:   /* RS A, RS B */
        *dim = (0 == s) ? a : b;
        *phase = THEMIS_PHASE_RS;
        return;
    case THEMIS_COLL_ALLGATHER:   /* AG B, AG A */
        *dim = (0 == s) ? b : a;
        *phase = THEMIS_PHASE_AG;
        return;
    }
}

/* Leaf x = digit on A * p_B + digit on B; its linear index. */
static uint32_t t2d_leaf_linear(const torus_ctx_t *c, uint32_t q, uint32_t x)
{
    int a = t2d_dim_a(q), b = 1 - a;
    uint32_t pb = c->grid.size[b];
    return (x / pb) * c->grid.stride[a] + (x % pb) * c->grid.stride[b];
}

/* RS / AG: element count of leaf x of piece (q, k). */
static uint64_t t2d_leaf_size(const torus_ctx_t *c, uint32_t q, uint32_t k, uint32_t x)
{
    uint64_t off, cnt, n = c->req->count;
    if (THEMIS_COLL_REDUCE_SCATTER == c->req->coll) {
        n = c->req->recvcounts[c->grid.linear_to_rank[t2d_leaf_linear(c, q, x)]];
    }
    piece(n, c->nchunks, q, k, &off, &cnt);
    return cnt;
}

static void t2d_layout(torus_ctx_t *c, uint32_t q, uint32_t k)
{
    c->leaf_off[0] = 0;
    for (uint32_t x = 0; x < c->n; x++) {
        c->leaf_off[x + 1] = c->leaf_off[x] + t2d_leaf_size(c, q, k, x);
    }
}

/* Blocks of a phase on dimension dim: level 0 (dim A) member m holds the
 * leaves with digit m on A, level 1 (dim B) member m the leaf with this
 * rank's digit on A and m on B.  Allreduce leaves are nested even splits
 * of the piece in place, so the layout is the identity. */
static void t2d_blocks(torus_ctx_t *c, uint32_t q, uint32_t k, int dim)
{
    int a = t2d_dim_a(q), b = 1 - a;
    uint32_t pa = c->grid.size[a], pb = c->grid.size[b], my_a = c->my_coord[a];
    int level0 = (dim == a);
    if (THEMIS_COLL_ALLREDUCE == c->req->coll) {
        uint64_t off, cnt;
        piece(c->req->count, c->nchunks, q, k, &off, &cnt);
        if (level0) {
            themis_block_split_even(off, cnt, pa, c->blocks);
        } else {
            themis_block_split_even(off + themis_split_offset(cnt, pa, my_a),
                                    themis_split_part(cnt, pa, my_a), pb, c->blocks);
        }
        return;
    }
    uint64_t base = c->region[q * c->nchunks + k];
    t2d_layout(c, q, k);
    uint32_t p = level0 ? pa : pb;
    for (uint32_t m = 0; m < p; m++) {
        uint32_t lo = level0 ? m * pb : my_a * pb + m, hi = level0 ? lo + pb : lo + 1;
        c->blocks[m].off = base + c->leaf_off[lo];
        c->blocks[m].count = c->leaf_off[hi] - c->leaf_off[lo];
    }
}

static themis_status_t t2d_stage(torus_ctx_t *c, uint32_t q, uint32_t k, uint32_t s,
                                 int32_t dep, int32_t *op)
{
    int dim = 0;
    themis_phase_t phase = THEMIS_PHASE_RS;
    t2d_stage_of(c, q, s, &dim, &phase);
    int rev = (int)(q & 1);
    uint32_t queue = 2 * (uint32_t)dim + (uint32_t)rev;
    themis_status_t st = begin(c, queue, dep, q, k, phase, op);
    uint32_t p = c->grid.size[dim];
    if (THEMIS_OK == st && p >= 2) {
        t2d_blocks(c, q, k, dim);
        st = ring_phase(c, phase, rev, p, c->my_coord[dim], c->dim_members[dim], c->blocks);
    }
    return (THEMIS_OK == st) ? themis_pb_queue_push(&c->b, queue, (uint32_t)*op) : st;
}

/* RS / AG: region offsets of the pieces, and the copies into and out of
 * leaf order. */
static themis_status_t t2d_regions(torus_ctx_t *c, uint64_t *work_count)
{
    const themis_plan_request_t *req = c->req;
    uint32_t nk = c->nchunks;
    c->region = malloc((size_t)NQ * nk * sizeof(*c->region));
    if (NULL == c->region) {
        return THEMIS_ERR_NOMEM;
    }
    uint64_t base = 0;
    themis_status_t st = THEMIS_OK;
    for (uint32_t q = 0; q < NQ && THEMIS_OK == st; q++) {
        int a = t2d_dim_a(q);
        uint32_t my_leaf = c->my_coord[a] * c->grid.size[1 - a] + c->my_coord[1 - a];
        for (uint32_t k = 0; k < nk && THEMIS_OK == st; k++) {
            c->region[q * nk + k] = base;
            t2d_layout(c, q, k);
            uint64_t off, cnt;
            if (THEMIS_COLL_REDUCE_SCATTER == req->coll) {
                for (uint32_t x = 0; x < c->n && THEMIS_OK == st; x++) {
                    int r = c->grid.linear_to_rank[t2d_leaf_linear(c, q, x)];
                    piece(req->recvcounts[r], nk, q, k, &off, &cnt);
                    st = themis_pb_copy_in(&c->b, c->displ[r] + off, base + c->leaf_off[x], cnt);
                }
                piece(req->recvcounts[req->rank], nk, q, k, &off, &cnt);
                if (THEMIS_OK == st) {
                    st = themis_pb_copy_out(&c->b, base + c->leaf_off[my_leaf], off, cnt);
                }
            } else {
                piece(req->count, nk, q, k, &off, &cnt);
                st = themis_pb_copy_in(&c->b, off, base + c->leaf_off[my_leaf], cnt);
                for (uint32_t x = 0; x < c->n && THEMIS_OK == st; x++) {
                    uint64_t r = (uint64_t)c->grid.linear_to_rank[t2d_leaf_linear(c, q, x)];
                    st = themis_pb_copy_out(&c->b, base + c->leaf_off[x], r * req->count + off,
                                            cnt);
                }
            }
            base += c->leaf_off[c->n];
        }
    }
    *work_count = base;
    return st;
}

themis_status_t themis_program_build_torus2d(const themis_plan_request_t *req, uint32_t nchunks,
                                             themis_program_t *out)
{
    if (NULL == out) {
        return THEMIS_ERR_INVALID;
    }
    memset(out, 0, sizeof(*out));
    themis_status_t st = check_request(req, nchunks);
    if (THEMIS_OK != st) {
        return st;
    }
    uint32_t cols = req->dim_size[0], rows = req->dim_size[1];
    uint32_t maxp = (rows > cols) ? rows : cols;
    torus_ctx_t c;
    uint64_t work_count = 0;
    st = ctx_init(&c, req, nchunks, maxp, maxp - 1);
    if (THEMIS_OK == st) {
        c.nstages *= 2;   /* two dimensions */
        for (int d = 0; d < 2 && THEMIS_OK == st; d++) {
            c.dim_members[d] = malloc(c.grid.size[d] * sizeof(int));
            if (NULL == c.dim_members[d]) {
                st = THEMIS_ERR_NOMEM;
                break;
            }
            themis_grid_group(&c.grid, c.me, d, c.dim_members[d]);
            c.my_coord[d] = themis_grid_coord(&c.grid, c.me, d);
        }
    }
    if (THEMIS_OK == st && THEMIS_COLL_ALLREDUCE == req->coll) {
        work_count = req->count;
        st = themis_pb_copy_in(&c.b, 0, 0, req->count);
    } else if (THEMIS_OK == st) {
        c.leaf_off = malloc(((size_t)c.n + 1) * sizeof(*c.leaf_off));
        st = (NULL == c.leaf_off) ? THEMIS_ERR_NOMEM : t2d_regions(&c, &work_count);
    }
    if (THEMIS_OK == st) {
        st = emit_all(&c, t2d_stage);
    }
    if (THEMIS_OK == st) {
        st = themis_pb_finish(&c.b, work_count, THEMIS_COLL_ALLREDUCE == req->coll, out);
    }
    ctx_free(&c);
    return st;
}
