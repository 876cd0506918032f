/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Hierarchical (Themis / baseline) plan compiler.
 *
 * Each chunk owns a contiguous region of the work buffer, laid out as one
 * "leaf" per rank: the part of the chunk that rank ends up owning after
 * all RS stages (or owns before any AG stage).  Leaves are ordered
 * lexicographically by the ranks' coordinates along the chunk's level
 * order: its RS dimension order (reverse AG order for allgather), first
 * dimension most significant.  Then the block a stage on level i splits
 * off for group member m is the contiguous run of leaves whose digits
 * match this rank's on levels < i and equal m on level i.
 *   allreduce:      leaf sizes come from nested even splits of the chunk's
 *                   element range, so the layout is the identity and the
 *                   work buffer is the output;
 *   reduce-scatter: leaf = the chunk's piece of that rank's segment;
 *   allgather:      leaf = the chunk's piece of that rank's contribution.
 */
#include "plan_builder.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "program_runs.h"

typedef struct {
    const themis_plan_request_t *req;
    const themis_schedule_t *sched;
    themis_grid_t grid;
    uint32_t me;                /* this rank's linear index */
    uint32_t nchunks;
    uint32_t nstages;
    uint64_t *displ;            /* RS: [P] segment displacements */
    /* layout of the chunk being compiled */
    int level_dim[THEMIS_MAX_DIMS];   /* level -> dimension */
    int dim_level[THEMIS_MAX_DIMS];   /* dimension -> level */
    uint64_t level_weight[THEMIS_MAX_DIMS]; /* leaf-index weight of a level digit */
    uint64_t base;              /* work offset of the chunk's region */
    uint64_t *leaf_off;         /* [P + 1] region offsets of leaves */
    uint32_t *leaf_linear;      /* [P] linear index of each leaf's rank */
    int *members;               /* [max dim size] */
    themis_block_t *blocks;     /* [max dim size] */
    themis_plan_builder_t b;
} hier_ctx_t;

/* ------------------------------------------------------------ validation */

static int expected_stages(themis_coll_t coll, int ndims, uint32_t *nstages)
{
    switch (coll) {
    case THEMIS_COLL_ALLREDUCE:
        *nstages = 2 * (uint32_t)ndims;
        return 1;
    case THEMIS_COLL_REDUCE_SCATTER:
    case THEMIS_COLL_ALLGATHER:
        *nstages = (uint32_t)ndims;
        return 1;
    }
    return 0;
}

static themis_status_t check_request(const themis_plan_request_t *req,
                                     const themis_schedule_t *sched,
                                     const themis_intra_order_t *order)
{
    uint32_t nstages;
    if (NULL == req || NULL == sched || NULL == order || req->ndims < 1 ||
        req->ndims > THEMIS_MAX_DIMS || 0 == req->chunks_in_flight ||
        !expected_stages(req->coll, req->ndims, &nstages)) {
        return THEMIS_ERR_INVALID;
    }
    if (sched->coll != req->coll || sched->ndims != req->ndims || sched->nstages != nstages ||
        0 == sched->nchunks || NULL == sched->stages || order->ndims != req->ndims) {
        return THEMIS_ERR_INVALID;
    }
    if (THEMIS_COLL_REDUCE_SCATTER == req->coll && NULL == req->recvcounts) {
        return THEMIS_ERR_INVALID;
    }
    for (int k = 0; k < req->ndims; k++) {
        themis_dim_algo_t a = req->dim_algo[k];
        if (THEMIS_DIM_ALGO_RING != a && THEMIS_DIM_ALGO_DIRECT != a &&
            THEMIS_DIM_ALGO_BIRING != a) {
            return THEMIS_ERR_INVALID;
        }
    }
    return THEMIS_OK;
}

static const themis_stage_t *chunk_stages(const hier_ctx_t *c, uint32_t chunk)
{
    return &c->sched->stages[(size_t)chunk * c->nstages];
}

/* Stages [first, first + ndims) all of `phase`, each dimension once. */
static int stages_cover_dims(const themis_stage_t *st, int ndims, uint32_t first,
                             themis_phase_t phase)
{
    unsigned seen = 0;
    for (int i = 0; i < ndims; i++) {
        const themis_stage_t *s = &st[first + i];
        if (s->phase != phase || s->dim >= ndims || (seen & (1u << s->dim))) {
            return 0;
        }
        seen |= 1u << s->dim;
    }
    return 1;
}

/* The leaf layout needs allreduce's AG order to undo its RS order. */
static int ag_reverses_rs(const themis_stage_t *st, int ndims)
{
    for (int i = 0; i < ndims; i++) {
        if (st[ndims + i].dim != st[ndims - 1 - i].dim) {
            return 0;
        }
    }
    return 1;
}

static themis_status_t check_chunk_stages(const hier_ctx_t *c, uint32_t chunk)
{
    const themis_stage_t *st = chunk_stages(c, chunk);
    int n = c->req->ndims;
    switch (c->req->coll) {
    case THEMIS_COLL_ALLREDUCE:
        if (!stages_cover_dims(st, n, 0, THEMIS_PHASE_RS) ||
            !stages_cover_dims(st, n, n, THEMIS_PHASE_AG)) {
            return THEMIS_ERR_INVALID;
        }
        return ag_reverses_rs(st, n) ? THEMIS_OK : THEMIS_ERR_UNSUPPORTED;
    case THEMIS_COLL_REDUCE_SCATTER:
        return stages_cover_dims(st, n, 0, THEMIS_PHASE_RS) ? THEMIS_OK : THEMIS_ERR_INVALID;
    case THEMIS_COLL_ALLGATHER:
        return stages_cover_dims(st, n, 0, THEMIS_PHASE_AG) ? THEMIS_OK : THEMIS_ERR_INVALID;
    }
    return THEMIS_ERR_INVALID;
}

themis_status_t themis_hier_check(const themis_plan_request_t *req,
                                  const themis_schedule_t *sched,
                                  const themis_intra_order_t *order)
{
    themis_status_t st = check_request(req, sched, order);
    hier_ctx_t c = {.req = req, .sched = sched};
    c.nstages = NULL != sched ? sched->nstages : 0;
    for (uint32_t k = 0; THEMIS_OK == st && k < sched->nchunks; k++) {
        st = check_chunk_stages(&c, k);
    }
    return st;
}

/* ------------------------------------------------------------ context */

static uint32_t max_dim_size(const themis_plan_request_t *req)
{
    uint32_t m = 1;
    for (int k = 0; k < req->ndims; k++) {
        m = (req->dim_size[k] > m) ? req->dim_size[k] : m;
    }
    return m;
}

/* RS segment displacements; INVALID when the total overflows. */
static themis_status_t compute_displ(hier_ctx_t *c)
{
    uint32_t n = c->grid.nranks;
    c->displ = malloc(n * sizeof(*c->displ));
    if (NULL == c->displ) {
        return THEMIS_ERR_NOMEM;
    }
    uint64_t sum = 0;
    for (uint32_t r = 0; r < n; r++) {
        c->displ[r] = sum;
        if (c->req->recvcounts[r] > UINT64_MAX - sum) {
            return THEMIS_ERR_INVALID;
        }
        sum += c->req->recvcounts[r];
    }
    return THEMIS_OK;
}

static void ctx_free(hier_ctx_t *c)
{
    themis_grid_free(&c->grid);
    free(c->displ);
    free(c->leaf_off);
    free(c->leaf_linear);
    free(c->members);
    free(c->blocks);
    themis_pb_free(&c->b);
}

/* Tag stride: most steps of any op, from group sizes and algorithms only
 * (BIRING runs two chains of size - 1 steps). */
static uint32_t hier_tag_stride(const themis_plan_request_t *req)
{
    uint32_t t = 1;
    for (int k = 0; k < req->ndims; k++) {
        uint32_t n = (req->dim_size[k] > 0) ? req->dim_size[k] - 1 : 0;
        n *= (THEMIS_DIM_ALGO_BIRING == req->dim_algo[k]) ? 2 : 1;
        t = (n > t) ? n : t;
    }
    return t;
}

static themis_status_t ctx_init(hier_ctx_t *c, const themis_plan_request_t *req,
                                const themis_schedule_t *sched)
{
    memset(c, 0, sizeof(*c));
    c->req = req;
    c->sched = sched;
    c->nchunks = sched->nchunks;
    c->nstages = sched->nstages;
    themis_status_t st = themis_grid_init(&c->grid, req->ndims, req->dim_size, req->coord_to_rank);
    if (THEMIS_OK != st) {
        return st;
    }
    if (req->rank < 0 || (uint32_t)req->rank >= c->grid.nranks) {
        return THEMIS_ERR_INVALID;
    }
    if ((uint64_t)c->nchunks * c->nstages > INT32_MAX) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    c->me = c->grid.rank_to_linear[req->rank];
    uint32_t p = c->grid.nranks, dmax = max_dim_size(req);
    c->leaf_off = malloc(((size_t)p + 1) * sizeof(*c->leaf_off));
    c->leaf_linear = malloc((size_t)p * sizeof(*c->leaf_linear));
    c->members = malloc(dmax * sizeof(*c->members));
    c->blocks = malloc(dmax * sizeof(*c->blocks));
    if (NULL == c->leaf_off || NULL == c->leaf_linear || NULL == c->members || NULL == c->blocks) {
        return THEMIS_ERR_NOMEM;
    }
    if (THEMIS_COLL_REDUCE_SCATTER == req->coll && THEMIS_OK != (st = compute_displ(c))) {
        return st;
    }
    return themis_pb_init(&c->b, (uint32_t)req->ndims, hier_tag_stride(req), req->chunks_in_flight);
}

/* ------------------------------------------------------------ chunk layout */

/* Levels = RS order (allgather: reverse AG order), most significant first. */
static void set_levels(hier_ctx_t *c, uint32_t chunk)
{
    const themis_stage_t *st = chunk_stages(c, chunk);
    int n = c->req->ndims;
    for (int i = 0; i < n; i++) {
        int dim = (THEMIS_COLL_ALLGATHER == c->req->coll) ? st[n - 1 - i].dim : st[i].dim;
        c->level_dim[i] = dim;
        c->dim_level[dim] = i;
    }
    uint64_t w = 1;
    for (int i = n - 1; i >= 0; i--) {
        c->level_weight[i] = w;
        w *= c->grid.size[c->level_dim[i]];
    }
}

/* Digit of linear index `l` on level i. */
static uint32_t level_digit(const hier_ctx_t *c, uint32_t l, int i)
{
    return themis_grid_coord(&c->grid, l, c->level_dim[i]);
}

static uint64_t leaf_index(const hier_ctx_t *c, uint32_t l)
{
    uint64_t idx = 0;
    for (int i = 0; i < c->req->ndims; i++) {
        idx += level_digit(c, l, i) * c->level_weight[i];
    }
    return idx;
}

/* Allreduce leaf: nested even split of the chunk's elements. */
static uint64_t allreduce_leaf_size(const hier_ctx_t *c, uint32_t l, uint64_t chunk_count)
{
    uint64_t n = chunk_count;
    for (int i = 0; i < c->req->ndims; i++) {
        n = themis_split_part(n, c->grid.size[c->level_dim[i]], level_digit(c, l, i));
    }
    return n;
}

static uint64_t leaf_size(const hier_ctx_t *c, uint32_t chunk, uint32_t l)
{
    const themis_plan_request_t *req = c->req;
    switch (req->coll) {
    case THEMIS_COLL_ALLREDUCE:
        return allreduce_leaf_size(c, l, themis_split_part(req->count, c->nchunks, chunk));
    case THEMIS_COLL_REDUCE_SCATTER:
        return themis_split_part(req->recvcounts[c->grid.linear_to_rank[l]], c->nchunks, chunk);
    case THEMIS_COLL_ALLGATHER:
        return themis_split_part(req->count, c->nchunks, chunk);
    }
    return 0;
}

/* Fill leaf_linear / leaf_off for chunk; INVALID on overflow. */
static themis_status_t layout_chunk(hier_ctx_t *c, uint32_t chunk)
{
    uint32_t p = c->grid.nranks;
    set_levels(c, chunk);
    for (uint32_t l = 0; l < p; l++) {
        c->leaf_linear[leaf_index(c, l)] = l;
    }
    c->leaf_off[0] = 0;
    for (uint32_t x = 0; x < p; x++) {
        uint64_t n = leaf_size(c, chunk, c->leaf_linear[x]);
        if (n > UINT64_MAX - c->base - c->leaf_off[x]) {
            return THEMIS_ERR_INVALID;
        }
        c->leaf_off[x + 1] = c->leaf_off[x] + n;
    }
    return THEMIS_OK;
}

/* ------------------------------------------------------------ copies */

static themis_status_t copy_in_reduce_scatter(hier_ctx_t *c, uint32_t chunk)
{
    themis_status_t st = THEMIS_OK;
    const uint64_t *rc = c->req->recvcounts;
    for (uint32_t x = 0; x < c->grid.nranks && THEMIS_OK == st; x++) {
        int r = c->grid.linear_to_rank[c->leaf_linear[x]];
        uint64_t src = c->displ[r] + themis_split_offset(rc[r], c->nchunks, chunk);
        st = themis_pb_copy_in(&c->b, src, c->base + c->leaf_off[x],
                               c->leaf_off[x + 1] - c->leaf_off[x]);
    }
    return st;
}

static themis_status_t copy_out_reduce_scatter(hier_ctx_t *c, uint32_t chunk)
{
    uint64_t mine = leaf_index(c, c->me);
    uint64_t n = c->req->recvcounts[c->req->rank];
    return themis_pb_copy_out(&c->b, c->base + c->leaf_off[mine],
                              themis_split_offset(n, c->nchunks, chunk),
                              c->leaf_off[mine + 1] - c->leaf_off[mine]);
}

static themis_status_t copy_in_allgather(hier_ctx_t *c, uint32_t chunk)
{
    uint64_t mine = leaf_index(c, c->me);
    return themis_pb_copy_in(&c->b, themis_split_offset(c->req->count, c->nchunks, chunk),
                             c->base + c->leaf_off[mine],
                             c->leaf_off[mine + 1] - c->leaf_off[mine]);
}

static themis_status_t copy_out_allgather(hier_ctx_t *c, uint32_t chunk)
{
    themis_status_t st = THEMIS_OK;
    uint64_t piece_off = themis_split_offset(c->req->count, c->nchunks, chunk);
    for (uint32_t x = 0; x < c->grid.nranks && THEMIS_OK == st; x++) {
        uint64_t r = (uint64_t)c->grid.linear_to_rank[c->leaf_linear[x]];
        st = themis_pb_copy_out(&c->b, c->base + c->leaf_off[x], r * c->req->count + piece_off,
                                c->leaf_off[x + 1] - c->leaf_off[x]);
    }
    return st;
}

/* Copies of one chunk (allreduce copies the whole vector once, up front). */
static themis_status_t chunk_copies(hier_ctx_t *c, uint32_t chunk)
{
    themis_status_t st;
    switch (c->req->coll) {
    case THEMIS_COLL_ALLREDUCE:
        return THEMIS_OK;
    case THEMIS_COLL_REDUCE_SCATTER:
        st = copy_in_reduce_scatter(c, chunk);
        return (THEMIS_OK == st) ? copy_out_reduce_scatter(c, chunk) : st;
    case THEMIS_COLL_ALLGATHER:
        st = copy_in_allgather(c, chunk);
        return (THEMIS_OK == st) ? copy_out_allgather(c, chunk) : st;
    }
    return THEMIS_ERR_INVALID;
}

/* ------------------------------------------------------------ ops */

/* Blocks of the group phase on level i: for member m, the leaves that
 * share this rank's digits above level i and have digit m on it. */
static void level_blocks(hier_ctx_t *c, int level, uint32_t p)
{
    uint64_t first = 0;
    for (int i = 0; i < level; i++) {
        first += level_digit(c, c->me, i) * c->level_weight[i];
    }
    uint64_t w = c->level_weight[level];
    for (uint32_t m = 0; m < p; m++) {
        uint64_t lo = first + m * w, hi = lo + w;
        c->blocks[m].off = c->base + c->leaf_off[lo];
        c->blocks[m].count = c->leaf_off[hi] - c->leaf_off[lo];
    }
}

static themis_status_t stage_op(hier_ctx_t *c, uint32_t chunk, uint32_t stage)
{
    const themis_stage_t *s = &chunk_stages(c, chunk)[stage];
    int dim = s->dim;
    uint32_t p = c->grid.size[dim], op;
    int32_t dep = (0 == stage) ? -1 : (int32_t)(chunk * c->nstages + stage - 1);
    themis_status_t st = themis_pb_begin_op(&c->b, (uint32_t)dim, dep, chunk,
                                            (themis_phase_t)s->phase, &op);
    if (THEMIS_OK != st || p < 2) {
        return st;
    }
    themis_grid_group(&c->grid, c->me, dim, c->members);
    level_blocks(c, c->dim_level[dim], p);
    themis_group_phase_t g = {.p = p, .me = themis_grid_coord(&c->grid, c->me, dim),
                              .members = c->members, .blocks = c->blocks};
    return themis_pb_group_phase(&c->b, c->req->dim_algo[dim], (themis_phase_t)s->phase, &g);
}

static themis_status_t compile_chunk(hier_ctx_t *c, uint32_t chunk)
{
    themis_status_t st = check_chunk_stages(c, chunk);
    if (THEMIS_OK == st) {
        st = layout_chunk(c, chunk);
    }
    if (THEMIS_OK == st) {
        st = chunk_copies(c, chunk);
    }
    for (uint32_t s = 0; s < c->nstages && THEMIS_OK == st; s++) {
        st = stage_op(c, chunk, s);
    }
    return st;
}

/* Chunk regions follow each other in chunk order. */
static themis_status_t compile_chunks(hier_ctx_t *c, uint64_t *work_count)
{
    themis_status_t st = THEMIS_OK;
    c->base = 0;
    for (uint32_t ch = 0; ch < c->nchunks && THEMIS_OK == st; ch++) {
        st = compile_chunk(c, ch);
        c->base += (THEMIS_OK == st) ? c->leaf_off[c->grid.nranks] : 0;
    }
    *work_count = c->base;
    return st;
}

/* Queues follow the intra-dimension order: entry (chunk, stage) = op
 * chunk * nstages + stage, and it must run on that queue's dimension. */
static themis_status_t queue_ops(hier_ctx_t *c, const themis_intra_order_t *order)
{
    themis_status_t st = THEMIS_OK;
    for (int k = 0; k < c->req->ndims && THEMIS_OK == st; k++) {
        if (order->count[k] > 0 && NULL == order->entries[k]) {
            return THEMIS_ERR_INVALID;
        }
        for (uint32_t i = 0; i < order->count[k] && THEMIS_OK == st; i++) {
            const themis_order_entry_t *e = &order->entries[k][i];
            if (e->chunk >= c->nchunks || e->stage >= c->nstages ||
                chunk_stages(c, e->chunk)[e->stage].dim != k) {
                return THEMIS_ERR_INVALID;
            }
            st = themis_pb_queue_push(&c->b, (uint32_t)k, e->chunk * c->nstages + e->stage);
        }
    }
    return st;
}

themis_status_t themis_program_build_hier(const themis_plan_request_t *req,
                                          const themis_schedule_t *sched,
                                          const themis_intra_order_t *order,
                                          themis_program_t *out)
{
    if (NULL == out) {
        return THEMIS_ERR_INVALID;
    }
    memset(out, 0, sizeof(*out));
    themis_status_t st = check_request(req, sched, order);
    if (THEMIS_OK != st) {
        return st;
    }
    hier_ctx_t c;
    uint64_t work_count = 0;
    st = ctx_init(&c, req, sched);
    if (THEMIS_OK == st && THEMIS_COLL_ALLREDUCE == req->coll) {
        st = themis_pb_copy_in(&c.b, 0, 0, req->count);
    }
    if (THEMIS_OK == st) {
        st = compile_chunks(&c, &work_count);
    }
    if (THEMIS_OK == st) {
        st = queue_ops(&c, order);
    }
    if (THEMIS_OK == st) {
        st = themis_pb_finish(&c.b, work_count, THEMIS_COLL_ALLREDUCE == req->coll, out);
    }
    ctx_free(&c);
    return st;
}

uint64_t themis_program_hash(const themis_program_t *p)
{
    /* the logical program (program_runs.h): a periodic one and its
     * expansion hash alike */
    uint64_t h = themis_fnv1a_u64(THEMIS_FNV_OFFSET, p->nqueues);

    for (uint32_t i = 0; i < p->nops; ++i) {
        const themis_op_t o = themis_program_op(p, i);
        h = themis_fnv1a_u64(h, ((uint64_t) o.queue << 32) | o.ndeps);
        for (uint32_t k = 0; k < o.ndeps; ++k) {
            h = themis_fnv1a_u64(h, themis_program_dep(p, o.dep_first + k));
        }
        h = themis_fnv1a_u64(h, ((uint64_t) o.first_step << 32) | o.nsteps);
        h = themis_fnv1a_u64(h, ((uint64_t) o.chunk << 8) | o.phase);
    }
    for (uint32_t q = 0; NULL != p->queue_first && q < p->nqueues; ++q) {
        for (uint32_t i = p->queue_first[q]; i < p->queue_first[q + 1]; ++i) {
            h = themis_fnv1a_u64(h, themis_program_queue_op(p, q, i));
        }
    }
    for (uint32_t i = 0; i < p->nsteps; ++i) {
        const themis_step_t s = themis_program_step(p, i);
        h = themis_fnv1a_u64(h, ((uint64_t) (uint32_t) s.send_peer << 32)
                                            | (uint32_t) s.recv_peer);
        h = themis_fnv1a_u64(h, s.send_off);
        h = themis_fnv1a_u64(h, s.send_count);
        h = themis_fnv1a_u64(h, s.recv_off);
        h = themis_fnv1a_u64(h, s.recv_count);
        h = themis_fnv1a_u64(h, ((uint64_t) s.tag << 24) | ((uint64_t) s.recv_mode << 16)
                                            | ((uint64_t) s.after_prev << 8) | s.chain);
    }
    for (uint32_t i = 0; i < p->ncopy_in; ++i) {
        h = themis_fnv1a_u64(h, p->copy_in[i].src_off ^ (p->copy_in[i].dst_off << 1));
        h = themis_fnv1a_u64(h, p->copy_in[i].count);
    }
    for (uint32_t i = 0; i < p->ncopy_out; ++i) {
        h = themis_fnv1a_u64(h, p->copy_out[i].src_off ^ (p->copy_out[i].dst_off << 1));
        h = themis_fnv1a_u64(h, p->copy_out[i].count);
    }
    h = themis_fnv1a_u64(h, p->work_count);
    return themis_fnv1a_u64(h, (uint64_t) p->work_is_output);
}

themis_dim_algo_t themis_dim_algo_for(themis_dim_kind_t kind, uint32_t size, uint32_t direct_max)
{
    switch (kind) {
    case THEMIS_DIM_FC:
        return THEMIS_DIM_ALGO_DIRECT;
    case THEMIS_DIM_SWITCH:
        return size <= direct_max ? THEMIS_DIM_ALGO_DIRECT : THEMIS_DIM_ALGO_RING;
    case THEMIS_DIM_BIRING:
        /* both link directions, as the latency model assumes */
        return THEMIS_DIM_ALGO_BIRING;
    case THEMIS_DIM_RING:
    default:
        return THEMIS_DIM_ALGO_RING;
    }
}

void themis_program_free(themis_program_t *p)
{
    if (NULL == p) {
        return;
    }
    free(p->queue_first);
    free(p->queue_ops);
    free(p->ops);
    free(p->op_deps);
    free(p->steps);
    free(p->copy_in);
    free(p->copy_out);
    free(p->runs);   /* one allocation: the table and every run's arrays */
    memset(p, 0, sizeof(*p));
}
