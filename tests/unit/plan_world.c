/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The plan compiler's test world (plan_world.h): schedules real and
 * hand-made, every rank's program and buffers, the run in vexec under a
 * seeded interleaving and the check of every output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_world.h"
#include "vexec.h"

#define CANARY 4 /* guard elements after every output buffer */

/* ------------------------------------------------------------ elements */

static size_t elem_size(elem_kind_t k)
{
    return (ELEM_I64_SUM == k) ? 8 : (ELEM_I32_MAX == k) ? 4 : 2;
}

static int64_t elem_get(elem_kind_t k, const unsigned char *buf, uint64_t i)
{
    int64_t a;
    int32_t b;
    uint16_t c;
    switch (k) {
    case ELEM_I64_SUM:
        memcpy(&a, buf + i * 8, 8);
        return a;
    case ELEM_I32_MAX:
        memcpy(&b, buf + i * 4, 4);
        return b;
    default:
        memcpy(&c, buf + i * 2, 2);
        return c;
    }
}

static void elem_put(elem_kind_t k, unsigned char *buf, uint64_t i, int64_t v)
{
    int32_t b = (int32_t)v;
    uint16_t c = (uint16_t)v;
    switch (k) {
    case ELEM_I64_SUM:
        memcpy(buf + i * 8, &v, 8);
        break;
    case ELEM_I32_MAX:
        memcpy(buf + i * 4, &b, 4);
        break;
    default:
        memcpy(buf + i * 2, &c, 2);
        break;
    }
}

static void reduce_sum_i64(void *inout, const void *in, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        ((int64_t *)inout)[i] += ((const int64_t *)in)[i];
    }
}

static void reduce_max_i32(void *inout, const void *in, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        int32_t a = ((int32_t *)inout)[i], b = ((const int32_t *)in)[i];
        ((int32_t *)inout)[i] = (b > a) ? b : a;
    }
}

static int64_t combine(elem_kind_t k, int64_t acc, int64_t v)
{
    return (ELEM_I32_MAX == k) ? ((v > acc) ? v : acc) : acc + v;
}

/* Input element i of rank r: small signed values, distinct per rank. */
static int64_t input_value(int r, uint64_t i)
{
    return (int64_t)((r * 2654435761ULL + i * 40503ULL + 17) % 2001) - 1000;
}

/* ------------------------------------------------------------ cases */

static const char *sched_name(sched_src_t s)
{
    static const char *names[] = {"baseline", "themis", "rotate", "permute"};
    return names[s];
}

void describe(const plan_case_t *c, char *buf, size_t len)
{
    int at = snprintf(buf, len, "%s ", themis_coll_name(c->coll));
    for (int k = 0; k < c->ndims && at < (int)len; k++) {
        at += snprintf(buf + at, len - at, "%s%u", k ? "x" : "", c->size[k]);
    }
    if (at < (int)len) {
        snprintf(buf + at, len - at,
                 " count %llu%s chunks %u %s %s chunks_in_flight %u algo %d perm %d inplace %d elem %d "
                 "seed %u", (unsigned long long)c->count, c->uneven ? " uneven" : "", c->nchunks,
                 sched_name(c->sched), themis_order_policy_name(c->policy), c->chunks_in_flight, c->algo,
                 c->permuted, c->in_place, (int)c->elem, c->seed);
    }
}

uint32_t case_nranks(const plan_case_t *c)
{
    uint32_t p = 1;
    for (int k = 0; k < c->ndims; k++) {
        p *= c->size[k];
    }
    return p;
}

/* ------------------------------------------------------------ schedules */

/* The index-th permutation of 0..n-1 (factorial number system). */
static void nth_permutation(int n, uint32_t index, uint8_t *perm)
{
    uint8_t pool[THEMIS_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        pool[i] = (uint8_t)i;
    }
    for (int i = 0; i < n; i++) {
        uint32_t left = (uint32_t)(n - i), pick = index % left;
        index /= left;
        perm[i] = pool[pick];
        memmove(&pool[pick], &pool[pick + 1], (size_t)(left - pick - 1));
    }
}

/* First-half order of a hand-made chunk: RS order, or AG order for AG. */
static void hand_chunk_order(const plan_case_t *c, uint32_t chunk, uint8_t *order)
{
    if (SCHED_ROTATE == c->sched) {
        for (int i = 0; i < c->ndims; i++) {
            order[i] = (uint8_t)((i + chunk) % (uint32_t)c->ndims);
        }
    } else {
        nth_permutation(c->ndims, chunk * 5 + c->seed, order);
    }
}

static int hand_schedule(const plan_case_t *c, themis_schedule_t *s)
{
    int n = c->ndims, ar = (THEMIS_COLL_ALLREDUCE == c->coll);
    memset(s, 0, sizeof(*s));
    s->coll = c->coll;
    s->ndims = n;
    s->nchunks = c->nchunks;
    s->nstages = (uint32_t)(ar ? 2 * n : n);
    s->chunk_bytes = calloc(c->nchunks, sizeof(uint64_t));
    s->stages = calloc((size_t)c->nchunks * s->nstages, sizeof(themis_stage_t));
    if (NULL == s->chunk_bytes || NULL == s->stages) {
        return -1;
    }
    uint8_t phase = (THEMIS_COLL_ALLGATHER == c->coll) ? THEMIS_PHASE_AG : THEMIS_PHASE_RS;
    for (uint32_t ch = 0; ch < c->nchunks; ch++) {
        uint8_t order[THEMIS_MAX_DIMS];
        themis_stage_t *st = &s->stages[(size_t)ch * s->nstages];
        hand_chunk_order(c, ch, order);
        for (int i = 0; i < n; i++) {
            st[i] = (themis_stage_t){.dim = order[i], .phase = phase};
            if (ar) {
                st[2 * n - 1 - i] = (themis_stage_t){.dim = order[i], .phase = THEMIS_PHASE_AG};
            }
        }
    }
    return 0;
}

/* Each dimension's queue: ops by stage, then chunk (ascending or not): a
 * restriction of one global order in which deps come first. */
int hand_order(const themis_schedule_t *s, int descending, themis_intra_order_t *o)
{
    memset(o, 0, sizeof(*o));
    o->ndims = s->ndims;
    for (int k = 0; k < s->ndims; k++) {
        o->entries[k] = calloc((size_t)s->nchunks * s->nstages, sizeof(themis_order_entry_t));
        if (NULL == o->entries[k]) {
            return -1;
        }
    }
    for (uint32_t st = 0; st < s->nstages; st++) {
        for (uint32_t i = 0; i < s->nchunks; i++) {
            uint32_t ch = descending ? s->nchunks - 1 - i : i;
            int k = s->stages[(size_t)ch * s->nstages + st].dim;
            o->entries[k][o->count[k]++] =
                (themis_order_entry_t){.chunk = ch, .stage = (uint16_t)st};
        }
    }
    return 0;
}

void order_free(themis_intra_order_t *o)
{
    for (int k = 0; k < THEMIS_MAX_DIMS; k++) {
        free(o->entries[k]);
    }
    memset(o, 0, sizeof(*o));
}

/* Outer dimensions faster and step latencies tiny, so that even the
 * tests' small vectors make themis depart from baseline for most chunks
 * (test_themis_orders_vary keeps that true). */
static void case_topology(const plan_case_t *c, themis_topology_t *t)
{
    static const themis_dim_kind_t kinds[] = {THEMIS_DIM_RING, THEMIS_DIM_SWITCH, THEMIS_DIM_FC};
    memset(t, 0, sizeof(*t));
    t->ndims = c->ndims;
    for (int k = 0; k < c->ndims; k++) {
        t->dims[k].size = c->size[k];
        t->dims[k].kind = kinds[k % 3];
        t->dims[k].bw_bps = 100000000000ULL * (uint64_t)(k + 1);
        t->dims[k].step_latency = 1000ULL * (uint64_t)(k + 1);
    }
}

/* ------------------------------------------------------------ world */

void world_free(world_t *w)
{
    for (uint32_t r = 0; NULL != w->progs && r < w->nranks; r++) {
        themis_program_free(&w->progs[r]);
    }
    for (uint32_t r = 0; r < w->nranks; r++) {
        free(NULL != w->in ? w->in[r] : NULL);
        free(NULL != w->out ? w->out[r] : NULL);
        free(NULL != w->expect ? w->expect[r] : NULL);
    }
    free(w->progs);
    free(w->in);
    free(w->out);
    free(w->expect);
    free(w->inputs);
    free(w->out_count);
    free(w->result_count);
    free(w->coord_to_rank);
    free(w->recvcounts);
    free(w->displ);
    themis_schedule_free(&w->sched);
    order_free(&w->order);
    memset(w, 0, sizeof(*w));
}

/* A fixed pseudo-random permutation of linear indices to ranks. */
static int make_coord_to_rank(world_t *w)
{
    w->coord_to_rank = malloc(w->nranks * sizeof(int));
    if (NULL == w->coord_to_rank) {
        return -1;
    }
    for (uint32_t i = 0; i < w->nranks; i++) {
        w->coord_to_rank[i] = (int)i;
    }
    uint64_t x = 0x2545F4914F6CDD1DULL + w->c->seed;
    for (uint32_t i = w->nranks; i > 1; i--) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t j = (uint32_t)((x >> 33) % i);
        int t = w->coord_to_rank[i - 1];
        w->coord_to_rank[i - 1] = w->coord_to_rank[j];
        w->coord_to_rank[j] = t;
    }
    return 0;
}

static int make_recvcounts(world_t *w)
{
    w->recvcounts = malloc(w->nranks * sizeof(uint64_t));
    w->displ = malloc(w->nranks * sizeof(uint64_t));
    if (NULL == w->recvcounts || NULL == w->displ) {
        return -1;
    }
    w->total = 0;
    for (uint32_t r = 0; r < w->nranks; r++) {
        uint64_t n = w->c->count;
        w->recvcounts[r] = !w->c->uneven ? n : (1 == r % 3) ? 0 : n + (r * 5) % 7;
        w->displ[r] = w->total;
        w->total += w->recvcounts[r];
    }
    return 0;
}

/* Bytes the scheduler sees: the collective's vector, at least one per chunk. */
static uint64_t sched_bytes(const world_t *w)
{
    uint64_t n = (THEMIS_COLL_ALLREDUCE == w->c->coll) ? w->c->count
                 : (THEMIS_COLL_REDUCE_SCATTER == w->c->coll) ? w->total
                                                              : w->c->count * w->nranks;
    uint64_t b = n * w->es;
    return (b < w->c->nchunks) ? w->c->nchunks : b;
}

static int real_schedule(world_t *w, char *why, size_t len)
{
    const plan_case_t *c = w->c;
    themis_topology_t topo;
    themis_sched_params_t sp;
    themis_sim_params_t simp = {.policy = c->policy, .chunks_in_flight = c->chunks_in_flight, .record_events = 0};
    themis_sim_result_t sim;
    case_topology(c, &topo);
    themis_sched_kind_t kind =
        (SCHED_THEMIS == c->sched) ? THEMIS_SCHED_THEMIS : THEMIS_SCHED_BASELINE;
    themis_sched_params_init(&sp, c->coll, sched_bytes(w), c->nchunks, kind);
    themis_status_t st = themis_schedule_build(&topo, &sp, &w->sched);
    if (THEMIS_OK == st) {
        st = themis_simulate(&topo, &w->sched, &simp, &sim);
    }
    if (THEMIS_OK != st) {
        snprintf(why, len, "scheduler/simulator: %s", themis_status_string(st));
        return -1;
    }
    w->order = sim.order; /* take the order; free the rest */
    memset(&sim.order, 0, sizeof(sim.order));
    themis_sim_result_free(&sim);
    return 0;
}

static int make_schedule(world_t *w, char *why, size_t len)
{
    const plan_case_t *c = w->c;
    if (SCHED_BASELINE == c->sched || SCHED_THEMIS == c->sched) {
        return real_schedule(w, why, len);
    }
    if (0 != hand_schedule(c, &w->sched) ||
        0 != hand_order(&w->sched, THEMIS_ORDER_SCF == c->policy, &w->order)) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    return 0;
}

void case_request(const world_t *w, int rank, themis_plan_request_t *req)
{
    const plan_case_t *c = w->c;
    memset(req, 0, sizeof(*req));
    req->coll = c->coll;
    req->ndims = c->ndims;
    for (int k = 0; k < c->ndims; k++) {
        req->dim_size[k] = c->size[k];
        int direct = (1 == c->algo) || (2 == c->algo && 1 == k % 2);
        req->dim_algo[k] = direct ? THEMIS_DIM_ALGO_DIRECT : THEMIS_DIM_ALGO_RING;
        req->dim_algo[k] = (3 == c->algo) ? THEMIS_DIM_ALGO_BIRING : req->dim_algo[k];
    }
    req->rank = rank;
    req->coord_to_rank = w->coord_to_rank;
    req->count = c->count;
    req->recvcounts = w->recvcounts;
    req->chunks_in_flight = c->chunks_in_flight;
}

static int build_programs(world_t *w, char *why, size_t len)
{
    w->progs = calloc(w->nranks, sizeof(*w->progs));
    if (NULL == w->progs) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    for (uint32_t r = 0; r < w->nranks; r++) {
        themis_plan_request_t req;
        case_request(w, (int)r, &req);
        themis_status_t st = themis_program_build_hier(&req, &w->sched, &w->order, &w->progs[r]);
        if (THEMIS_OK != st) {
            snprintf(why, len, "build for rank %u: %s", r, themis_status_string(st));
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ buffers */

static uint64_t input_count(const world_t *w)
{
    return (THEMIS_COLL_REDUCE_SCATTER == w->c->coll) ? w->total : w->c->count;
}

/* Output elements rank r gets and checks. */
static void output_counts(const world_t *w, uint32_t r, uint64_t *alloc, uint64_t *result)
{
    switch (w->c->coll) {
    case THEMIS_COLL_ALLREDUCE:
        *alloc = *result = w->c->count;
        break;
    case THEMIS_COLL_REDUCE_SCATTER:
        *result = w->recvcounts[r];
        *alloc = w->c->in_place ? w->total : *result;
        break;
    default:
        *alloc = *result = w->c->count * w->nranks;
        break;
    }
}

static void expected_values(const world_t *w, uint32_t r, unsigned char *e)
{
    const plan_case_t *c = w->c;
    for (uint64_t i = 0; i < w->result_count[r]; i++) {
        int64_t v;
        if (THEMIS_COLL_ALLGATHER == c->coll) {
            v = input_value((int)(i / c->count), i % c->count);
        } else {
            uint64_t at = (THEMIS_COLL_REDUCE_SCATTER == c->coll) ? w->displ[r] + i : i;
            v = input_value(0, at);
            for (uint32_t q = 1; q < w->nranks; q++) {
                v = combine(c->elem, v, input_value((int)q, at));
            }
        }
        elem_put(c->elem, e, i, v);
    }
}

/* Own input, either in a separate exact-size buffer or inside the output
 * where MPI_IN_PLACE puts it. */
static void place_input(world_t *w, uint32_t r)
{
    const plan_case_t *c = w->c;
    uint64_t n = input_count(w);
    unsigned char *dst = w->in[r];
    if (c->in_place) {
        dst = w->out[r] + ((THEMIS_COLL_ALLGATHER == c->coll) ? r * c->count * w->es : 0);
    }
    for (uint64_t i = 0; i < n; i++) {
        elem_put(c->elem, dst, i, input_value((int)r, i));
    }
    w->inputs[r] = dst;
}

static int make_rank_buffers(world_t *w, uint32_t r)
{
    output_counts(w, r, &w->out_count[r], &w->result_count[r]);
    size_t out_bytes = (w->out_count[r] + CANARY) * w->es;
    w->out[r] = malloc(out_bytes);
    w->expect[r] = malloc(w->result_count[r] * w->es + 1);
    w->in[r] = w->c->in_place ? NULL : malloc(input_count(w) * w->es + 1);
    if (NULL == w->out[r] || NULL == w->expect[r] || (!w->c->in_place && NULL == w->in[r])) {
        return -1;
    }
    memset(w->out[r], 0xA5, out_bytes);
    place_input(w, r);
    expected_values(w, r, w->expect[r]);
    return 0;
}

static int make_buffers(world_t *w)
{
    uint32_t n = w->nranks;
    w->in = calloc(n, sizeof(*w->in));
    w->out = calloc(n, sizeof(*w->out));
    w->expect = calloc(n, sizeof(*w->expect));
    w->inputs = calloc(n, sizeof(*w->inputs));
    w->out_count = calloc(n, sizeof(uint64_t));
    w->result_count = calloc(n, sizeof(uint64_t));
    if (NULL == w->in || NULL == w->out || NULL == w->expect || NULL == w->inputs ||
        NULL == w->out_count || NULL == w->result_count) {
        return -1;
    }
    for (uint32_t r = 0; r < n; r++) {
        if (0 != make_rank_buffers(w, r)) {
            return -1;
        }
    }
    return 0;
}

/* Build everything for case c up to (not including) execution. */
int world_init(world_t *w, const plan_case_t *c, char *why, size_t len)
{
    memset(w, 0, sizeof(*w));
    w->c = c;
    w->nranks = case_nranks(c);
    w->es = elem_size(c->elem);
    if ((c->permuted && 0 != make_coord_to_rank(w)) || 0 != make_recvcounts(w)) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    if (0 != make_schedule(w, why, len) || 0 != build_programs(w, why, len)) {
        return -1;
    }
    if (0 != make_buffers(w)) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    return 0;
}

int world_execute(world_t *w, uint32_t seed, char *why, size_t len)
{
    static const vexec_reduce_fn fns[] = {reduce_sum_i64, reduce_max_i32, NULL};
    char err[512];
    themis_program_t **pp = malloc(w->nranks * sizeof(*pp));
    if (NULL == pp) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    for (uint32_t r = 0; r < w->nranks; r++) {
        pp[r] = &w->progs[r];
    }
    int rc = vexec_run((int)w->nranks, pp, w->inputs, (void *const *)w->out, w->es,
                       fns[w->c->elem], seed, err, sizeof(err));
    free(pp);
    if (0 != rc) {
        snprintf(why, len, "vexec: %s", err);
    }
    return rc;
}

int world_check(const world_t *w, char *why, size_t len)
{
    elem_kind_t k = w->c->elem;
    for (uint32_t r = 0; r < w->nranks; r++) {
        for (uint64_t i = 0; i < w->result_count[r]; i++) {
            if (elem_get(k, w->out[r], i) != elem_get(k, w->expect[r], i)) {
                snprintf(why, len, "rank %u element %llu: got %lld, expected %lld", r,
                         (unsigned long long)i, (long long)elem_get(k, w->out[r], i),
                         (long long)elem_get(k, w->expect[r], i));
                return -1;
            }
        }
        const unsigned char *tail = w->out[r] + w->out_count[r] * w->es;
        for (size_t b = 0; b < CANARY * w->es; b++) {
            if (0xA5 != tail[b]) {
                snprintf(why, len, "rank %u wrote past its output", r);
                return -1;
            }
        }
    }
    return 0;
}

/* Build, run with `seed`, check. */
int run_case(const plan_case_t *c, char *why, size_t len)
{
    world_t w;
    int rc = world_init(&w, c, why, len);
    if (0 == rc) {
        rc = world_execute(&w, c->seed, why, len);
    }
    if (0 == rc) {
        rc = world_check(&w, why, len);
    }
    world_free(&w);
    return rc;
}
