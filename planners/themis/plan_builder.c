/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "plan_builder.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ splitting */

uint64_t themis_split_part(uint64_t n, uint32_t parts, uint32_t i)
{
    return n / parts + ((uint64_t)i < n % parts ? 1 : 0);
}

uint64_t themis_split_offset(uint64_t n, uint32_t parts, uint32_t i)
{
    uint64_t extra = n % parts;
    return (uint64_t)i * (n / parts) + ((uint64_t)i < extra ? i : extra);
}

uint64_t themis_request_elements(const themis_plan_request_t *req, uint32_t nranks)
{
    uint64_t total = 0;
    if (THEMIS_COLL_ALLREDUCE == req->coll) {
        return req->count;
    }
    for (uint32_t r = 0; r < nranks; r++) {
        uint64_t n = THEMIS_COLL_REDUCE_SCATTER == req->coll ? req->recvcounts[r] : req->count;
        if (__builtin_add_overflow(total, n, &total)) {
            return UINT64_MAX;
        }
    }
    return total;
}

void themis_block_split_even(uint64_t off, uint64_t n, uint32_t p, themis_block_t *blocks)
{
    for (uint32_t j = 0; j < p; j++) {
        blocks[j].off = off + themis_split_offset(n, p, j);
        blocks[j].count = themis_split_part(n, p, j);
    }
}

/* ------------------------------------------------------------ rank grid */

static themis_status_t grid_fill_ranks(themis_grid_t *g, const int *coord_to_rank)
{
    for (uint32_t r = 0; r < g->nranks; r++) {
        g->rank_to_linear[r] = UINT32_MAX;
    }
    for (uint32_t l = 0; l < g->nranks; l++) {
        int r = (NULL == coord_to_rank) ? (int)l : coord_to_rank[l];
        if (r < 0 || (uint32_t)r >= g->nranks || UINT32_MAX != g->rank_to_linear[r]) {
            return THEMIS_ERR_INVALID; /* not a permutation */
        }
        g->linear_to_rank[l] = r;
        g->rank_to_linear[r] = l;
    }
    return THEMIS_OK;
}

themis_status_t themis_grid_init(themis_grid_t *g, int ndims, const uint32_t *size,
                                 const int *coord_to_rank)
{
    memset(g, 0, sizeof(*g));
    if (ndims < 1 || ndims > THEMIS_MAX_DIMS) {
        return THEMIS_ERR_INVALID;
    }
    uint64_t n = 1;
    for (int k = 0; k < ndims; k++) {
        if (0 == size[k]) {
            return THEMIS_ERR_INVALID;
        }
        g->size[k] = size[k];
        g->stride[k] = (uint32_t)n;
        n *= size[k];
        if (n > INT32_MAX) {
            return THEMIS_ERR_INVALID;
        }
    }
    g->ndims = ndims;
    g->nranks = (uint32_t)n;
    g->linear_to_rank = malloc(n * sizeof(*g->linear_to_rank));
    g->rank_to_linear = malloc(n * sizeof(*g->rank_to_linear));
    if (NULL == g->linear_to_rank || NULL == g->rank_to_linear) {
        themis_grid_free(g);
        return THEMIS_ERR_NOMEM;
    }
    themis_status_t st = grid_fill_ranks(g, coord_to_rank);
    if (THEMIS_OK != st) {
        themis_grid_free(g);
    }
    return st;
}

void themis_grid_free(themis_grid_t *g)
{
    free(g->linear_to_rank);
    free(g->rank_to_linear);
    memset(g, 0, sizeof(*g));
}

uint32_t themis_grid_coord(const themis_grid_t *g, uint32_t linear, int dim)
{
    return (linear / g->stride[dim]) % g->size[dim];
}

void themis_grid_group(const themis_grid_t *g, uint32_t linear, int dim, int *members)
{
    uint32_t first = linear - themis_grid_coord(g, linear, dim) * g->stride[dim];
    for (uint32_t j = 0; j < g->size[dim]; j++) {
        members[j] = g->linear_to_rank[first + j * g->stride[dim]];
    }
}

/* ------------------------------------------------------------ builder */

/* Grow *arr (elements of elem bytes) so that it holds at least need. */
static themis_status_t grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) {
        return THEMIS_OK;
    }
    uint64_t ncap = (0 == *cap) ? 16 : 2 * (uint64_t)*cap;
    while (ncap < need) {
        ncap *= 2;
    }
    if (ncap > UINT32_MAX) {
        return THEMIS_ERR_NOMEM;
    }
    void *p = realloc(*arr, ncap * elem);
    if (NULL == p) {
        return THEMIS_ERR_NOMEM;
    }
    *arr = p;
    *cap = (uint32_t)ncap;
    return THEMIS_OK;
}

themis_status_t themis_pb_init(themis_plan_builder_t *b, uint32_t nqueues, uint32_t tag_stride,
                               uint32_t chunks_in_flight)
{
    memset(b, 0, sizeof(*b));
    b->cur_op = UINT32_MAX;
    if (0 == nqueues || 0 == tag_stride || 0 == chunks_in_flight) {
        return THEMIS_ERR_INVALID;
    }
    b->prog.nqueues = nqueues;
    b->prog.chunks_in_flight = chunks_in_flight;
    b->tag_stride = tag_stride;
    b->queue_len = calloc(nqueues, sizeof(*b->queue_len));
    b->queue_cap = calloc(nqueues, sizeof(*b->queue_cap));
    b->queue_list = calloc(nqueues, sizeof(*b->queue_list));
    if (NULL == b->queue_len || NULL == b->queue_cap || NULL == b->queue_list) {
        themis_pb_free(b);
        return THEMIS_ERR_NOMEM;
    }
    return THEMIS_OK;
}

void themis_pb_free(themis_plan_builder_t *b)
{
    if (NULL != b->queue_list) {
        for (uint32_t q = 0; q < b->prog.nqueues; q++) {
            free(b->queue_list[q]);
        }
    }
    free(b->queue_list);
    free(b->queue_len);
    free(b->queue_cap);
    themis_program_free(&b->prog);
    memset(b, 0, sizeof(*b));
    b->cur_op = UINT32_MAX;
}

themis_status_t themis_pb_begin_op(themis_plan_builder_t *b, uint32_t queue, int32_t dep,
                                   uint32_t chunk, themis_phase_t phase, uint32_t *op_index)
{
    themis_program_t *p = &b->prog;
    if (queue >= p->nqueues || dep < -1 || (dep >= 0 && (uint32_t)dep >= p->nops)) {
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = grow((void **)&p->ops, &b->cap_ops, p->nops + 1, sizeof(*p->ops));
    if (THEMIS_OK != st) {
        return st;
    }
    if (dep >= 0) {
        st = grow((void **)&p->op_deps, &b->cap_op_deps, p->nop_deps + 1, sizeof(*p->op_deps));
        if (THEMIS_OK != st) {
            return st;
        }
    }
    themis_op_t *op = &p->ops[p->nops];
    memset(op, 0, sizeof(*op));
    op->queue = queue;
    op->dep_first = p->nop_deps;
    if (dep >= 0) {
        p->op_deps[p->nop_deps++] = (uint32_t)dep;
        op->ndeps = 1;
    }
    op->first_step = p->nsteps;
    op->chunk = chunk;
    op->phase = (uint8_t)phase;
    b->cur_op = p->nops++;
    if (NULL != op_index) {
        *op_index = b->cur_op;
    }
    return THEMIS_OK;
}

/* The tag of the next step of the current op, if it fits. */
static themis_status_t next_tag(const themis_plan_builder_t *b, uint32_t *tag)
{
    uint32_t index = b->prog.ops[b->cur_op].nsteps;
    if (index >= b->tag_stride) {
        return THEMIS_ERR_INVALID; /* builder asked for too small a stride */
    }
    uint64_t t = (uint64_t)b->cur_op * b->tag_stride + index;
    if (t > INT32_MAX) {
        return THEMIS_ERR_UNSUPPORTED; /* MPI tags are non-negative ints */
    }
    *tag = (uint32_t)t;
    return THEMIS_OK;
}

static void drop_empty_transfers(themis_step_t *s)
{
    if (0 == s->send_count) {
        s->send_peer = -1;
        s->send_off = 0;
    }
    if (0 == s->recv_count || THEMIS_RECV_NONE == s->recv_mode) {
        s->recv_peer = -1;
        s->recv_off = 0;
        s->recv_count = 0;
        s->recv_mode = THEMIS_RECV_NONE;
    }
    if (s->send_peer < 0) {
        s->send_count = 0;
    }
    if (s->recv_peer < 0) {
        s->recv_count = 0;
        s->recv_mode = THEMIS_RECV_NONE;
    }
}

themis_status_t themis_pb_add_step(themis_plan_builder_t *b, themis_step_t step)
{
    themis_program_t *p = &b->prog;
    if (UINT32_MAX == b->cur_op) {
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = next_tag(b, &step.tag);
    if (THEMIS_OK == st) {
        st = grow((void **)&p->steps, &b->cap_steps, p->nsteps + 1, sizeof(*p->steps));
    }
    if (THEMIS_OK != st) {
        return st;
    }
    drop_empty_transfers(&step);
    p->steps[p->nsteps++] = step;
    p->ops[b->cur_op].nsteps++;
    return THEMIS_OK;
}

themis_status_t themis_pb_queue_push(themis_plan_builder_t *b, uint32_t queue, uint32_t op)
{
    if (queue >= b->prog.nqueues) {
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = grow((void **)&b->queue_list[queue], &b->queue_cap[queue],
                              b->queue_len[queue] + 1, sizeof(**b->queue_list));
    if (THEMIS_OK == st) {
        b->queue_list[queue][b->queue_len[queue]++] = op;
    }
    return st;
}

static themis_status_t append_copy(themis_copy_t **arr, uint32_t *n, uint32_t *cap,
                                   uint64_t src_off, uint64_t dst_off, uint64_t count)
{
    if (0 == count) {
        return THEMIS_OK;
    }
    if (*n > 0) {
        themis_copy_t *last = &(*arr)[*n - 1];
        if (last->src_off + last->count == src_off && last->dst_off + last->count == dst_off) {
            last->count += count;
            return THEMIS_OK;
        }
    }
    themis_status_t st = grow((void **)arr, cap, *n + 1, sizeof(**arr));
    if (THEMIS_OK == st) {
        (*arr)[(*n)++] = (themis_copy_t){.src_off = src_off, .dst_off = dst_off, .count = count};
    }
    return st;
}

themis_status_t themis_pb_copy_in(themis_plan_builder_t *b, uint64_t src_off, uint64_t dst_off,
                                  uint64_t count)
{
    return append_copy(&b->prog.copy_in, &b->prog.ncopy_in, &b->cap_copy_in, src_off, dst_off,
                       count);
}

themis_status_t themis_pb_copy_out(themis_plan_builder_t *b, uint64_t src_off, uint64_t dst_off,
                                   uint64_t count)
{
    return append_copy(&b->prog.copy_out, &b->prog.ncopy_out, &b->cap_copy_out, src_off, dst_off,
                       count);
}

/* Every op on exactly one queue, the one it names. */
static themis_status_t check_queues(const themis_plan_builder_t *b)
{
    const themis_program_t *p = &b->prog;
    uint8_t *seen = calloc(p->nops + 1, 1);
    if (NULL == seen) {
        return THEMIS_ERR_NOMEM;
    }
    themis_status_t st = THEMIS_OK;
    uint64_t total = 0;
    for (uint32_t q = 0; q < p->nqueues && THEMIS_OK == st; q++) {
        for (uint32_t i = 0; i < b->queue_len[q]; i++) {
            uint32_t op = b->queue_list[q][i];
            if (op >= p->nops || seen[op] || p->ops[op].queue != q) {
                st = THEMIS_ERR_INVALID;
                break;
            }
            seen[op] = 1;
            total++;
        }
    }
    if (THEMIS_OK == st && total != p->nops) {
        st = THEMIS_ERR_INVALID;
    }
    free(seen);
    return st;
}

static themis_status_t build_queue_csr(themis_plan_builder_t *b)
{
    themis_program_t *p = &b->prog;
    p->queue_first = malloc((p->nqueues + 1) * sizeof(*p->queue_first));
    p->queue_ops = malloc(((size_t)p->nops + 1) * sizeof(*p->queue_ops));
    if (NULL == p->queue_first || NULL == p->queue_ops) {
        return THEMIS_ERR_NOMEM;
    }
    uint32_t n = 0;
    for (uint32_t q = 0; q < p->nqueues; q++) {
        p->queue_first[q] = n;
        if (b->queue_len[q] > 0) {
            memcpy(p->queue_ops + n, b->queue_list[q], b->queue_len[q] * sizeof(uint32_t));
        }
        n += b->queue_len[q];
    }
    p->queue_first[p->nqueues] = n;
    return THEMIS_OK;
}

/* REDUCE receives an op can have outstanding together: within a chain,
 * steps that start with their predecessor (after_prev = 0) run
 * concurrently with it; chains run concurrently with each other. */
static uint32_t op_concurrent_reduces(const themis_program_t *p, const themis_op_t *op)
{
    uint32_t best[THEMIS_STEP_CHAINS] = {0}, run[THEMIS_STEP_CHAINS] = {0}, total = 0;
    for (uint32_t i = 0; i < op->nsteps; i++) {
        const themis_step_t *s = &p->steps[op->first_step + i];
        uint32_t c = (s->chain < THEMIS_STEP_CHAINS) ? s->chain : 0;
        if (s->after_prev) {
            run[c] = 0;
        }
        if (THEMIS_RECV_REDUCE == s->recv_mode) {
            run[c]++;
        }
        best[c] = (run[c] > best[c]) ? run[c] : best[c];
    }
    for (uint32_t c = 0; c < THEMIS_STEP_CHAINS; c++) {
        total += best[c];
    }
    return total;
}

static void derive_temp_sizing(themis_program_t *p)
{
    p->max_recv_count = 0;
    p->max_op_reduce_recvs = 0;
    for (uint32_t i = 0; i < p->nsteps; i++) {
        const themis_step_t *s = &p->steps[i];
        if (THEMIS_RECV_REDUCE == s->recv_mode && s->recv_count > p->max_recv_count) {
            p->max_recv_count = s->recv_count;
        }
    }
    for (uint32_t o = 0; o < p->nops; o++) {
        uint32_t n = op_concurrent_reduces(p, &p->ops[o]);
        p->max_op_reduce_recvs = (n > p->max_op_reduce_recvs) ? n : p->max_op_reduce_recvs;
    }
}

themis_status_t themis_pb_finish(themis_plan_builder_t *b, uint64_t work_count,
                                 int work_is_output, themis_program_t *out)
{
    themis_status_t st = check_queues(b);
    if (THEMIS_OK == st) {
        st = build_queue_csr(b);
    }
    if (THEMIS_OK != st) {
        return st;
    }
    b->prog.work_count = work_count;
    b->prog.work_is_output = work_is_output;
    derive_temp_sizing(&b->prog);
    *out = b->prog;
    memset(&b->prog, 0, sizeof(b->prog));
    b->prog.nqueues = out->nqueues; /* so themis_pb_free releases the queue lists */
    return THEMIS_OK;
}

/* ------------------------------------------------------------ group phases */

static uint32_t member_add(uint32_t j, uint32_t d, uint32_t p)
{
    return (j + d) % p;
}

static uint32_t member_sub(uint32_t j, uint32_t d, uint32_t p)
{
    return (j + p - d % p) % p;
}

static themis_step_t transfer_step(int send_peer, const themis_block_t *send, int recv_peer,
                                   const themis_block_t *recv, themis_recv_mode_t mode,
                                   int after_prev)
{
    themis_step_t s;
    memset(&s, 0, sizeof(s));
    s.send_peer = send_peer;
    s.send_off = send->off;
    s.send_count = send->count;
    s.recv_peer = recv_peer;
    s.recv_off = recv->off;
    s.recv_count = recv->count;
    s.recv_mode = (uint8_t)mode;
    s.after_prev = (uint8_t)(after_prev ? 1 : 0);
    return s;
}

static int valid_group(const themis_group_phase_t *g)
{
    return g->p >= 1 && g->me < g->p && NULL != g->members && NULL != g->blocks;
}

/* Member / block at ring position k (reverse reads the lists backwards). */
static int ring_member(const themis_group_phase_t *g, uint32_t k)
{
    return g->members[g->reverse ? g->p - 1 - k : k];
}

static const themis_block_t *ring_block(const themis_group_phase_t *g, uint32_t k)
{
    return &g->blocks[g->reverse ? g->p - 1 - k : k];
}

static uint32_t ring_me(const themis_group_phase_t *g)
{
    return g->reverse ? g->p - 1 - g->me : g->me;
}

/* Step s of the ring RS: member j sends block j-s-1 and reduces block
 * j-s-2 from its predecessor; step s forwards what step s-1 reduced, hence
 * the chaining. */
static themis_step_t ring_rs_step(const themis_group_phase_t *g, uint32_t s)
{
    uint32_t p = g->p, j = ring_me(g);
    themis_step_t st = transfer_step(ring_member(g, member_add(j, 1, p)),
                                     ring_block(g, member_sub(j, s + 1, p)),
                                     ring_member(g, member_sub(j, 1, p)),
                                     ring_block(g, member_sub(j, s + 2, p)), THEMIS_RECV_REDUCE,
                                     s > 0);
    st.chain = g->chain;
    return st;
}

static themis_step_t ring_ag_step(const themis_group_phase_t *g, uint32_t s)
{
    uint32_t p = g->p, j = ring_me(g);
    themis_step_t st = transfer_step(ring_member(g, member_add(j, 1, p)),
                                     ring_block(g, member_sub(j, s, p)),
                                     ring_member(g, member_sub(j, 1, p)),
                                     ring_block(g, member_sub(j, s + 1, p)), THEMIS_RECV_COPY,
                                     s > 0);
    st.chain = g->chain;
    return st;
}

themis_status_t themis_pb_ring_reduce_scatter(themis_plan_builder_t *b,
                                              const themis_group_phase_t *g)
{
    if (!valid_group(g)) {
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = THEMIS_OK;
    for (uint32_t s = 0; s + 1 < g->p && THEMIS_OK == st; s++) {
        st = themis_pb_add_step(b, ring_rs_step(g, s));
    }
    return st;
}

themis_status_t themis_pb_ring_allgather(themis_plan_builder_t *b, const themis_group_phase_t *g)
{
    if (!valid_group(g)) {
        return THEMIS_ERR_INVALID;
    }
    themis_status_t st = THEMIS_OK;
    for (uint32_t s = 0; s + 1 < g->p && THEMIS_OK == st; s++) {
        st = themis_pb_add_step(b, ring_ag_step(g, s));
    }
    return st;
}

/* Both directions' steps, forward then backward for each s. */
static themis_status_t biring_phase(themis_plan_builder_t *b, const themis_group_phase_t *g,
                                    int rs)
{
    if (!valid_group(g)) {
        return THEMIS_ERR_INVALID;
    }
    uint32_t p = g->p;
    themis_block_t *half = malloc(2 * (size_t)p * sizeof(*half));
    if (NULL == half) {
        return THEMIS_ERR_NOMEM;
    }
    /* forward ring: first halves half[0..p); backward: second halves */
    themis_block_t *fwd_blocks = half, *bwd_blocks = half + p;
    for (uint32_t k = 0; k < p; k++) {
        uint64_t n0 = themis_split_part(g->blocks[k].count, 2, 0);
        fwd_blocks[k].off = g->blocks[k].off;
        fwd_blocks[k].count = n0;
        bwd_blocks[k].off = g->blocks[k].off + n0;
        bwd_blocks[k].count = g->blocks[k].count - n0;
    }
    themis_group_phase_t fwd = {.p = p, .me = g->me, .members = g->members,
                                .blocks = fwd_blocks, .reverse = 0, .chain = 0};
    themis_group_phase_t bwd = {.p = p, .me = g->me, .members = g->members,
                                .blocks = bwd_blocks, .reverse = 1, .chain = 1};
    themis_status_t st = THEMIS_OK;
    for (uint32_t s = 0; s + 1 < p && THEMIS_OK == st; s++) {
        st = themis_pb_add_step(b, rs ? ring_rs_step(&fwd, s) : ring_ag_step(&fwd, s));
        if (THEMIS_OK == st) {
            st = themis_pb_add_step(b, rs ? ring_rs_step(&bwd, s) : ring_ag_step(&bwd, s));
        }
    }
    free(half);
    return st;
}

themis_status_t themis_pb_biring_reduce_scatter(themis_plan_builder_t *b,
                                                const themis_group_phase_t *g)
{
    return biring_phase(b, g, 1);
}

themis_status_t themis_pb_biring_allgather(themis_plan_builder_t *b,
                                           const themis_group_phase_t *g)
{
    return biring_phase(b, g, 0);
}

themis_status_t themis_pb_direct_reduce_scatter(themis_plan_builder_t *b,
                                                const themis_group_phase_t *g)
{
    if (!valid_group(g)) {
        return THEMIS_ERR_INVALID;
    }
    uint32_t p = g->p, j = g->me;
    themis_status_t st = THEMIS_OK;
    for (uint32_t s = 1; s < p && THEMIS_OK == st; s++) {
        uint32_t to = member_add(j, s, p), from = member_sub(j, s, p);
        st = themis_pb_add_step(b, transfer_step(g->members[to], &g->blocks[to], g->members[from],
                                                 &g->blocks[j], THEMIS_RECV_REDUCE, 0));
    }
    return st;
}

themis_status_t themis_pb_direct_allgather(themis_plan_builder_t *b,
                                           const themis_group_phase_t *g)
{
    if (!valid_group(g)) {
        return THEMIS_ERR_INVALID;
    }
    uint32_t p = g->p, j = g->me;
    themis_status_t st = THEMIS_OK;
    for (uint32_t s = 1; s < p && THEMIS_OK == st; s++) {
        uint32_t to = member_add(j, s, p), from = member_sub(j, s, p);
        st = themis_pb_add_step(b, transfer_step(g->members[to], &g->blocks[j], g->members[from],
                                                 &g->blocks[from], THEMIS_RECV_COPY, 0));
    }
    return st;
}

themis_status_t themis_pb_group_phase(themis_plan_builder_t *b, themis_dim_algo_t algo,
                                      themis_phase_t phase, const themis_group_phase_t *g)
{
    int rs = (THEMIS_PHASE_RS == phase);
    switch (algo) {
    case THEMIS_DIM_ALGO_RING:
        return rs ? themis_pb_ring_reduce_scatter(b, g) : themis_pb_ring_allgather(b, g);
    case THEMIS_DIM_ALGO_DIRECT:
        return rs ? themis_pb_direct_reduce_scatter(b, g) : themis_pb_direct_allgather(b, g);
    case THEMIS_DIM_ALGO_BIRING:
        return rs ? themis_pb_biring_reduce_scatter(b, g) : themis_pb_biring_allgather(b, g);
    }
    return THEMIS_ERR_INVALID;
}
