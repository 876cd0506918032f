/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Plan compiler tests: every rank's program is built and all of them run
 * together in vexec (tests/unit/vexec.h) under several interleavings; the
 * outputs are compared with results computed directly from the inputs.
 * Schedules come from the real scheduler + simulator (baseline, themis;
 * FIFO, SCF) and from hand-made ones that give chunks rotated or permuted
 * dimension orders.
 */
#include <stdlib.h>
#include <string.h>

#include "plan_builder.h"
#include "scheduler.h"
#include "simulator.h"
#include "unit.h"
#include "vexec.h"

#define CANARY 4 /* guard elements after every output buffer */

/* ------------------------------------------------------------ elements */

typedef enum { ELEM_I64_SUM, ELEM_I32_MAX, ELEM_U16 } elem_kind_t;

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

typedef enum { SCHED_BASELINE, SCHED_THEMIS, SCHED_ROTATE, SCHED_PERMUTE } sched_src_t;

typedef struct {
    themis_coll_t coll;
    int ndims;
    uint32_t size[THEMIS_MAX_DIMS];
    uint64_t count;          /* AR: elements; AG: per rank; RS: base segment */
    int uneven;              /* RS: uneven segments with zeros */
    uint32_t nchunks;
    sched_src_t sched;
    /* real schedules: simulator policy; hand ones: FIFO = chunks in
     * ascending order per stage, SCF = descending */
    themis_order_policy_t policy;
    uint32_t chunks_in_flight;
    int algo;                /* 0 ring, 1 direct, 2 ring on even dims, direct on odd,
                              * 3 biring */
    int permuted;            /* non-identity coord_to_rank */
    int in_place;
    elem_kind_t elem;
    uint32_t seed;
} plan_case_t;

static const char *sched_name(sched_src_t s)
{
    static const char *names[] = {"baseline", "themis", "rotate", "permute"};
    return names[s];
}

static void describe(const plan_case_t *c, char *buf, size_t len)
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

static uint32_t case_nranks(const plan_case_t *c)
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
static int hand_order(const themis_schedule_t *s, int descending, themis_intra_order_t *o)
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

static void order_free(themis_intra_order_t *o)
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

typedef struct {
    const plan_case_t *c;
    uint32_t nranks;
    size_t es;
    int *coord_to_rank;
    uint64_t *recvcounts, *displ;
    uint64_t total;              /* RS: sum of segments */
    themis_schedule_t sched;
    themis_intra_order_t order;
    themis_program_t *progs;
    unsigned char **in, **out, **expect;
    const void **inputs;
    uint64_t *out_count;         /* allocated output elements */
    uint64_t *result_count;      /* elements to check */
} world_t;

static void world_free(world_t *w)
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

static void case_request(const world_t *w, int rank, themis_plan_request_t *req)
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
static int world_init(world_t *w, const plan_case_t *c, char *why, size_t len)
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

static int world_execute(world_t *w, uint32_t seed, char *why, size_t len)
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

static int world_check(const world_t *w, char *why, size_t len)
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
static int run_case(const plan_case_t *c, char *why, size_t len)
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

/* ------------------------------------------------------------ matrix */

typedef struct {
    int ndims;
    uint32_t size[3];
    const char *name;
} shape_t;

static const shape_t shapes[] = {
    {1, {2}, "2"},       {1, {3}, "3"},       {2, {2, 2}, "2x2"},      {2, {3, 2}, "3x2"},
    {2, {2, 3}, "2x3"},  {2, {4, 2}, "4x2"},  {3, {2, 2, 2}, "2x2x2"}, {3, {3, 1, 2}, "3x1x2"},
    {1, {5}, "5"},
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* Choices not swept exhaustively vary pseudo-randomly with the case id. */
static void pick_variations(plan_case_t *c, uint64_t id)
{
    uint64_t h = mix(id + 1);
    c->algo = (int)(h % 4);
    c->permuted = (int)((h >> 8) & 1);
    c->in_place = (int)((h >> 9) & 1);
    if (THEMIS_COLL_ALLGATHER == c->coll) {
        c->elem = ((h >> 10) & 1) ? ELEM_U16 : ELEM_I64_SUM;
    } else {
        c->elem = ((h >> 10) & 1) ? ELEM_I32_MAX : ELEM_I64_SUM;
    }
    c->seed = (uint32_t)(h >> 32);
}

/* Sweep counts x chunks x schedules x orders x chunks_in_flight for one shape; two
 * interleavings per case. */
static int sweep_shape(themis_coll_t coll, const shape_t *s, int quick, int *cases)
{
    static const uint32_t chunk_list[] = {1, 3, 8};
    int failures = 0;
    uint64_t id = (uint64_t)coll * 1000003 + (uint64_t)(s - shapes) * 100003;
    plan_case_t c = {.coll = coll, .ndims = s->ndims};
    memcpy(c.size, s->size, sizeof(s->size));
    uint32_t p = case_nranks(&c);
    for (int ci = 0; ci < 3; ci++) {
        uint64_t cp = chunk_list[ci] * p;
        uint64_t counts[] = {0, 1, p - 1, p, 7, 1000, cp - 1, cp + 1};
        for (size_t ni = 0; ni < sizeof(counts) / sizeof(counts[0]); ni++) {
            for (int sk = 0; sk < 4; sk++) {
                for (int v = 0; v < 8; v++, id++) {
                    if (quick && 0 != mix(id) % 16) {
                        continue;
                    }
                    c.count = counts[ni];
                    c.nchunks = chunk_list[ci];
                    c.sched = (sched_src_t)sk;
                    c.policy = (v & 1) ? THEMIS_ORDER_SCF : THEMIS_ORDER_FIFO;
                    c.chunks_in_flight = (v & 2) ? 3 : 1;
                    c.uneven = (v >> 2) & 1;
                    if (THEMIS_COLL_REDUCE_SCATTER != coll && c.uneven) {
                        continue;
                    }
                    pick_variations(&c, id);
                    for (int rep = 0; rep < 2; rep++, c.seed += 7919) {
                        char why[600], desc[300];
                        (*cases)++;
                        if (0 != run_case(&c, why, sizeof(why)) && failures++ < 3) {
                            describe(&c, desc, sizeof(desc));
                            printf("  %s: %s\n", desc, why);
                        }
                    }
                }
            }
        }
    }
    return failures;
}

static void run_matrix(int quick)
{
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    for (size_t ci = 0; ci < 3; ci++) {
        for (size_t si = 0; si < NSHAPES; si++) {
            int cases = 0;
            int failed = sweep_shape(colls[ci], &shapes[si], quick, &cases);
            printf("%s: matrix_%s_%s (%d runs%s)\n", failed ? "FAIL" : "PASS",
                   themis_coll_name(colls[ci]), shapes[si].name, cases,
                   failed ? ", see above" : "");
            unit_failed_cases += failed ? 1 : 0;
        }
    }
}

/* ------------------------------------------------------------ helpers for single cases */

static plan_case_t simple_case(themis_coll_t coll, int ndims, const uint32_t *size,
                               uint64_t count, uint32_t nchunks, int algo)
{
    plan_case_t c = {.coll = coll, .ndims = ndims, .count = count, .nchunks = nchunks,
                     .sched = SCHED_ROTATE, .policy = THEMIS_ORDER_FIFO, .chunks_in_flight = 1,
                     .algo = algo, .elem = ELEM_I64_SUM, .seed = 1};
    memcpy(c.size, size, (size_t)ndims * sizeof(uint32_t));
    return c;
}

/* world_init for single tests: on failure report, free, return -1. */
static int setup_world(world_t *w, const plan_case_t *c)
{
    char why[600];
    if (0 == world_init(w, c, why, sizeof(why))) {
        return 0;
    }
    UNIT_CHECKF(0, "setup: %s", why);
    world_free(w);
    return -1;
}

static int steps_equal(const themis_step_t *s, int sp, uint64_t so, uint64_t sc, int rp,
                       uint64_t ro, uint64_t rcnt, int mode, int after_prev, uint32_t tag)
{
    return s->send_peer == sp && s->send_off == so && s->send_count == sc && s->recv_peer == rp &&
           s->recv_off == ro && s->recv_count == rcnt && s->recv_mode == mode &&
           s->after_prev == after_prev && s->tag == tag;
}

/* ------------------------------------------------------------ explicit programs */

/* Allreduce on a ring of 4, 8 elements, rank 1: blocks of 2. */
static void test_ring_allreduce_steps(void)
{
    uint32_t size[] = {4};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 1, size, 8, 1, 0);
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    const themis_program_t *p = &w.progs[1];
    UNIT_CHECK(1 == p->nqueues && 2 == p->nops && 6 == p->nsteps && 1 == p->ncopy_in);
    if (unit_case_failed) {
        world_free(&w);
        return;
    }
    UNIT_CHECK(1 == p->work_is_output && 8 == p->work_count);
    UNIT_CHECK(1 == p->ncopy_in && 0 == p->copy_in[0].src_off && 0 == p->copy_in[0].dst_off &&
               8 == p->copy_in[0].count && 0 == p->ncopy_out);
    UNIT_CHECK(0 == p->queue_first[0] && 2 == p->queue_first[1] && 0 == p->queue_ops[0] &&
               1 == p->queue_ops[1]);
    UNIT_CHECK(0 == p->ops[0].ndeps && 1 == p->ops[1].ndeps &&
               0 == p->op_deps[p->ops[1].dep_first] && THEMIS_PHASE_AG == p->ops[1].phase);
    UNIT_CHECK(2 == p->max_recv_count && 1 == p->max_op_reduce_recvs && 1 == p->chunks_in_flight);
    /* RS: send blocks 0, 3, 2; reduce blocks 3, 2, 1 (keeps block 1). */
    const themis_step_t *s = p->steps;
    UNIT_CHECK(steps_equal(&s[0], 2, 0, 2, 0, 6, 2, THEMIS_RECV_REDUCE, 0, 0));
    UNIT_CHECK(steps_equal(&s[1], 2, 6, 2, 0, 4, 2, THEMIS_RECV_REDUCE, 1, 1));
    UNIT_CHECK(steps_equal(&s[2], 2, 4, 2, 0, 2, 2, THEMIS_RECV_REDUCE, 1, 2));
    /* AG: send blocks 1, 0, 3; copy blocks 0, 3, 2. */
    UNIT_CHECK(steps_equal(&s[3], 2, 2, 2, 0, 0, 2, THEMIS_RECV_COPY, 0, 3));
    UNIT_CHECK(steps_equal(&s[4], 2, 0, 2, 0, 6, 2, THEMIS_RECV_COPY, 1, 4));
    UNIT_CHECK(steps_equal(&s[5], 2, 6, 2, 0, 4, 2, THEMIS_RECV_COPY, 1, 5));
    world_free(&w);
}

/* Reduce-scatter over 3 ranks, direct, segments 1, 2, 3; rank 0. */
static void test_direct_reduce_scatter_steps(void)
{
    uint32_t size[] = {3};
    uint64_t rc[] = {1, 2, 3};
    plan_case_t c = simple_case(THEMIS_COLL_REDUCE_SCATTER, 1, size, 0, 1, 1);
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    themis_plan_request_t req;
    themis_program_t p;
    case_request(&w, 0, &req);
    req.recvcounts = rc;
    UNIT_CHECK(THEMIS_OK == themis_program_build_hier(&req, &w.sched, &w.order, &p));
    UNIT_CHECK(0 == p.work_is_output && 6 == p.work_count && 2 == p.nsteps);
    if (unit_case_failed) {
        themis_program_free(&p);
        world_free(&w);
        return;
    }
    UNIT_CHECK(1 == p.ncopy_in && 0 == p.copy_in[0].src_off && 6 == p.copy_in[0].count);
    UNIT_CHECK(1 == p.ncopy_out && 0 == p.copy_out[0].src_off && 0 == p.copy_out[0].dst_off &&
               1 == p.copy_out[0].count);
    UNIT_CHECK(steps_equal(&p.steps[0], 1, 1, 2, 2, 0, 1, THEMIS_RECV_REDUCE, 0, 0));
    UNIT_CHECK(steps_equal(&p.steps[1], 2, 3, 3, 1, 0, 1, THEMIS_RECV_REDUCE, 0, 1));
    UNIT_CHECK(1 == p.max_recv_count && 2 == p.max_op_reduce_recvs);
    themis_program_free(&p);
    world_free(&w);
}

/* 2x2 reduce-scatter, RS on dim 0 then dim 1: the work buffer holds the
 * segments in lexicographic (coord0, coord1) order = ranks 0, 2, 1, 3. */
static void test_reduce_scatter_layout(void)
{
    uint32_t size[] = {2, 2};
    plan_case_t c = simple_case(THEMIS_COLL_REDUCE_SCATTER, 2, size, 1, 1, 0);
    c.sched = SCHED_BASELINE;
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    const themis_program_t *p = &w.progs[3];
    static const uint64_t src[] = {0, 2, 1, 3};
    UNIT_CHECK(4 == p->ncopy_in && 4 == p->work_count);
    for (uint32_t i = 0; i < 4 && 4 == p->ncopy_in; i++) {
        UNIT_CHECK(src[i] == p->copy_in[i].src_off && i == p->copy_in[i].dst_off &&
                   1 == p->copy_in[i].count);
    }
    UNIT_CHECK(1 == p->ncopy_out && 3 == p->copy_out[0].src_off && 0 == p->copy_out[0].dst_off);
    world_free(&w);
}

/* Op numbering, deps, queues and tags follow plan.h on every rank. */
static void check_numbering(const world_t *w, const themis_program_t *p, uint32_t tstride)
{
    uint32_t ns = w->sched.nstages;
    UNIT_CHECK(p->nops == w->sched.nchunks * ns);
    for (uint32_t o = 0; o < p->nops; o++) {
        const themis_op_t *op = &p->ops[o];
        UNIT_CHECK(op->chunk == o / ns && op->ndeps == ((o % ns) ? 1u : 0u));
        UNIT_CHECK(0 == o % ns || o - 1 == p->op_deps[op->dep_first]);
        UNIT_CHECK(op->queue == w->sched.stages[o].dim && op->phase == w->sched.stages[o].phase);
        for (uint32_t i = 0; i < op->nsteps; i++) {
            UNIT_CHECK(p->steps[op->first_step + i].tag == o * tstride + i);
        }
    }
    for (int k = 0; k < w->c->ndims; k++) {
        UNIT_CHECK(p->queue_first[k + 1] - p->queue_first[k] == w->order.count[k]);
        for (uint32_t i = 0; i < w->order.count[k] && !unit_case_failed; i++) {
            const themis_order_entry_t *e = &w->order.entries[k][i];
            UNIT_CHECK(p->queue_ops[p->queue_first[k] + i] == e->chunk * ns + e->stage);
        }
    }
}

static void test_numbering_and_tags(void)
{
    uint32_t size[] = {3, 2, 4};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 3, size, 100, 3, 2);
    c.sched = SCHED_PERMUTE;
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    for (uint32_t r = 0; r < w.nranks; r++) {
        check_numbering(&w, &w.progs[r], 3); /* largest group 4: 3 steps */
    }
    world_free(&w);
}

/* Chunks of the schedule whose first-half order is not baseline's. */
static uint32_t non_baseline_chunks(const themis_schedule_t *s)
{
    uint32_t n = 0;
    int ag = (THEMIS_COLL_ALLGATHER == s->coll);
    for (uint32_t ch = 0; ch < s->nchunks; ch++) {
        const themis_stage_t *st = &s->stages[(size_t)ch * s->nstages];
        int differs = 0;
        for (int i = 0; i < s->ndims; i++) {
            differs |= st[i].dim != (ag ? s->ndims - 1 - i : i);
        }
        n += (uint32_t)differs;
    }
    return n;
}

/* The matrix's themis cases really mix dimension orders. */
static void test_themis_orders_vary(void)
{
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    for (size_t si = 0; si < NSHAPES; si++) {
        for (int ci = 0; ci < 3 && shapes[si].ndims > 1; ci++) {
            plan_case_t c = simple_case(colls[ci], shapes[si].ndims, shapes[si].size, 1000, 8, 0);
            c.sched = SCHED_THEMIS;
            world_t w;
            if (0 != setup_world(&w, &c)) {
                return;
            }
            uint32_t n = non_baseline_chunks(&w.sched);
            UNIT_CHECKF(n > 0, "%s %s: all 8 chunks baseline", themis_coll_name(colls[ci]),
                        shapes[si].name);
            world_free(&w);
        }
    }
}

/* ------------------------------------------------------------ invalid input */

typedef void (*corrupt_fn)(themis_plan_request_t *req, themis_schedule_t *s,
                           themis_intra_order_t *o);

static void bad_inflight(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    r->chunks_in_flight = 0;
}
static void bad_rank(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    r->rank = 6;
}
static void bad_dim_size(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    r->dim_size[1] = 0;
}
static void bad_coll(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    s->coll = THEMIS_COLL_ALLGATHER;
}
static void repeated_dim(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    s->stages[1].dim = s->stages[0].dim;
}
static void wrong_queue(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    themis_order_entry_t t = o->entries[0][0];
    o->entries[0][0] = o->entries[1][0];
    o->entries[1][0] = t;
}
static void missing_op(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    o->count[1]--;
}
static void bad_algo(themis_plan_request_t *r, themis_schedule_t *s, themis_intra_order_t *o)
{
    r->dim_algo[0] = (themis_dim_algo_t)7;
}

static void not_permutation(themis_plan_request_t *r, themis_schedule_t *s,
                            themis_intra_order_t *o)
{
    static const int map[] = {0, 1, 2, 3, 4, 4};
    r->coord_to_rank = map;
}

/* AR stages RS d0 RS d1 AG d0 AG d1: AG does not undo RS. */
static void ag_not_reversed(themis_plan_request_t *r, themis_schedule_t *s,
                            themis_intra_order_t *o)
{
    uint8_t d = s->stages[2].dim;
    s->stages[2].dim = s->stages[3].dim;
    s->stages[3].dim = d;
    order_free(o);
    hand_order(s, 0, o);
}

static void expect_rejected(const char *what, corrupt_fn fn, themis_status_t want)
{
    uint32_t size[] = {3, 2};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 2, size, 10, 2, 0);
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    themis_plan_request_t req;
    themis_program_t p;
    case_request(&w, 1, &req);
    fn(&req, &w.sched, &w.order);
    themis_status_t st = themis_program_build_hier(&req, &w.sched, &w.order, &p);
    UNIT_CHECKF(want == st, "%s: got %s", what, themis_status_string(st));
    UNIT_CHECKF(0 == p.nops && NULL == p.ops && NULL == p.steps && NULL == p.queue_ops, "%s", what);
    themis_program_free(&p);
    world_free(&w);
}

static void test_invalid_input(void)
{
    expect_rejected("chunks_in_flight 0", bad_inflight, THEMIS_ERR_INVALID);
    expect_rejected("rank out of range", bad_rank, THEMIS_ERR_INVALID);
    expect_rejected("dimension of size 0", bad_dim_size, THEMIS_ERR_INVALID);
    expect_rejected("schedule of another collective", bad_coll, THEMIS_ERR_INVALID);
    expect_rejected("dimension twice in RS", repeated_dim, THEMIS_ERR_INVALID);
    expect_rejected("order entry on the wrong queue", wrong_queue, THEMIS_ERR_INVALID);
    expect_rejected("order missing an op", missing_op, THEMIS_ERR_INVALID);
    expect_rejected("unknown algorithm", bad_algo, THEMIS_ERR_INVALID);
    expect_rejected("coord_to_rank not a permutation", not_permutation, THEMIS_ERR_INVALID);
    expect_rejected("allreduce AG order not reverse RS", ag_not_reversed, THEMIS_ERR_UNSUPPORTED);
    themis_program_t p;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_program_build_hier(NULL, NULL, NULL, &p));
    themis_program_free(&p);
    themis_program_free(NULL);
}

static void test_reduce_scatter_needs_counts(void)
{
    uint32_t size[] = {2};
    plan_case_t c = simple_case(THEMIS_COLL_REDUCE_SCATTER, 1, size, 4, 1, 0);
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    themis_plan_request_t req;
    themis_program_t p;
    case_request(&w, 0, &req);
    req.recvcounts = NULL;
    UNIT_CHECK(THEMIS_ERR_INVALID == themis_program_build_hier(&req, &w.sched, &w.order, &p));
    world_free(&w);
}

/* ------------------------------------------------------------ the checks can fail */

/* A 2x2 allreduce, 2 chunks, baseline order, chunks_in_flight 1. */
static int negative_world(world_t *w, plan_case_t *c)
{
    uint32_t size[] = {2, 2};
    *c = simple_case(THEMIS_COLL_ALLREDUCE, 2, size, 16, 2, 0);
    c->sched = SCHED_BASELINE;
    return setup_world(w, c);
}

static void expect_vexec_error(world_t *w, const char *needle, uint32_t seeds)
{
    for (uint32_t seed = 0; seed < seeds; seed++) {
        char why[600];
        int rc = world_execute(w, seed, why, sizeof(why));
        UNIT_CHECKF(0 != rc && NULL != strstr(why, needle), "seed %u: rc %d, '%s', want '%s'",
                    seed, rc, rc ? why : "", needle);
    }
}

static void test_vexec_detects_swapped_queue(void)
{
    plan_case_t c;
    world_t w;
    if (0 != negative_world(&w, &c)) {
        return;
    }
    uint32_t *q = w.progs[0].queue_ops;
    UNIT_CHECK(0 == q[0] && 4 == q[1]); /* queue 0 starts chunk 0, then chunk 1 */
    uint32_t t = q[0];
    q[0] = q[1];
    q[1] = t;
    expect_vexec_error(&w, "deadlock", 5);
    world_free(&w);
}

static void test_vexec_detects_size_mismatch(void)
{
    plan_case_t c;
    world_t w;
    if (0 != negative_world(&w, &c)) {
        return;
    }
    w.progs[0].steps[0].recv_count--;
    expect_vexec_error(&w, "size mismatch", 5);
    world_free(&w);
}

static void test_vexec_detects_out_of_range(void)
{
    plan_case_t c;
    world_t w;
    if (0 != negative_world(&w, &c)) {
        return;
    }
    w.progs[2].steps[0].send_off = w.progs[2].work_count;
    expect_vexec_error(&w, "beyond work", 1);
    world_free(&w);
}

static void test_vexec_detects_wrong_tag(void)
{
    plan_case_t c;
    world_t w;
    if (0 != negative_world(&w, &c)) {
        return;
    }
    w.progs[1].steps[0].tag += 1000;
    expect_vexec_error(&w, "deadlock", 5);
    world_free(&w);
}

/* Runs case c under 20 seeds with `mutate` applied to every step of every
 * rank; returns how many seeds exposed the mutation (an execution error or
 * a wrong result), or -1 when the world cannot be set up. */
static int seeds_exposing(const plan_case_t *c, void (*mutate)(themis_step_t *))
{
    int detected = 0;
    for (uint32_t seed = 0; seed < 20; seed++) {
        world_t w;
        char why[600];
        if (0 != setup_world(&w, c)) {
            return -1;
        }
        for (uint32_t r = 0; r < w.nranks; r++) {
            for (uint32_t i = 0; i < w.progs[r].nsteps; i++) {
                mutate(&w.progs[r].steps[i]);
            }
        }
        detected += (0 != world_execute(&w, seed, why, sizeof(why)) ||
                     0 != world_check(&w, why, sizeof(why)));
        world_free(&w);
    }
    return detected;
}

static void unchain(themis_step_t *st)
{
    st->after_prev = 0;
}

/* Ring steps that forward what they just reduced must be chained. */
static void test_vexec_detects_unchained_ring(void)
{
    uint32_t size[] = {4};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 1, size, 8, 1, 0);
    int detected = seeds_exposing(&c, unchain);
    if (detected < 0) {
        return;
    }
    UNIT_CHECKF(detected > 0, "no interleaving exposed the missing chaining");
}

/* BIRING on groups of 2..5 members (2: both directions link the same pair
 * with distinct tags), every collective, uneven counts, several seeds. */
static void test_biring(void)
{
    static const shape_t bshapes[] = {
        {1, {2}, "2"}, {1, {3}, "3"}, {1, {4}, "4"}, {1, {5}, "5"},
        {2, {5, 2}, "5x2"}, {2, {3, 4}, "3x4"}, {3, {2, 3, 2}, "2x3x2"},
    };
    static const themis_coll_t colls[] = {THEMIS_COLL_ALLREDUCE, THEMIS_COLL_REDUCE_SCATTER,
                                          THEMIS_COLL_ALLGATHER};
    for (size_t si = 0; si < sizeof(bshapes) / sizeof(bshapes[0]); si++) {
        for (size_t ci = 0; ci < 3; ci++) {
            uint64_t counts[] = {0, 1, 3, 7, 101};
            for (size_t ni = 0; ni < sizeof(counts) / sizeof(counts[0]); ni++) {
                plan_case_t c = simple_case(colls[ci], bshapes[si].ndims, bshapes[si].size,
                                            counts[ni], 1 + (uint32_t)ni % 3, 3);
                c.sched = (sched_src_t)(ni % 4);
                c.uneven = (THEMIS_COLL_REDUCE_SCATTER == colls[ci]) ? (int)(ni & 1) : 0;
                c.chunks_in_flight = 1 + (uint32_t)(ni & 1) * 2;
                c.permuted = (int)(si & 1);
                for (uint32_t seed = 0; seed < 4; seed++) {
                    char why[600];
                    c.seed = seed * 7919 + (uint32_t)si;
                    int rc = run_case(&c, why, sizeof(why));
                    UNIT_CHECKF(0 == rc, "%s %s count %llu seed %u: %s", bshapes[si].name,
                                themis_coll_name(colls[ci]), (unsigned long long)counts[ni],
                                c.seed, why);
                }
            }
        }
    }
}

/* BIRING ops: 2(p-1) steps alternating chains 0/1, forward to the next
 * member and backward to the previous, tags numbered by the stride 2(p-1). */
static void test_biring_steps(void)
{
    uint32_t size[] = {4, 3};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 2, size, 96, 2, 3);
    world_t w;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    for (uint32_t r = 0; r < w.nranks; r++) {
        const themis_program_t *p = &w.progs[r];
        check_numbering(&w, p, 6);
        for (uint32_t o = 0; o < p->nops; o++) {
            const themis_op_t *op = &p->ops[o];
            uint32_t gp = size[op->queue];
            UNIT_CHECK(op->nsteps == 2 * (gp - 1));
            for (uint32_t i = 0; i < op->nsteps; i++) {
                const themis_step_t *st = &p->steps[op->first_step + i];
                UNIT_CHECK(st->chain == i % 2 && st->after_prev == (i >= 2));
                /* both directions: forward send = backward receive peer */
                if (1 == i % 2) {
                    const themis_step_t *f = st - 1;
                    UNIT_CHECK(st->send_peer == f->recv_peer && st->recv_peer == f->send_peer);
                }
            }
        }
    }
    world_free(&w);
}

/* Chaining a BIRING direction to the other direction's previous step (all
 * steps on chain 0) lets a step forward a half block before it arrived. */
static void one_chain(themis_step_t *st)
{
    st->chain = 0;
}

static void test_vexec_detects_biring_cross_chain(void)
{
    uint32_t size[] = {5};
    plan_case_t c = simple_case(THEMIS_COLL_ALLREDUCE, 1, size, 40, 1, 3);
    int detected = seeds_exposing(&c, one_chain);
    if (detected < 0) {
        return;
    }
    UNIT_CHECKF(detected > 0, "no interleaving exposed the cross-chain waits");
}

/* A COPY where a REDUCE belongs runs fine but gives a wrong sum. */
static void test_check_detects_wrong_result(void)
{
    plan_case_t c;
    world_t w;
    char why[600];
    if (0 != negative_world(&w, &c)) {
        return;
    }
    w.progs[3].steps[0].recv_mode = THEMIS_RECV_COPY;
    UNIT_CHECKF(0 == world_execute(&w, 3, why, sizeof(why)), "%s", why);
    UNIT_CHECK(0 != world_check(&w, why, sizeof(why)));
    world_free(&w);
}

/* Direct RS posts p-1 REDUCE receives at once: vexec holds the program to
 * its declared temp count. */
static void test_vexec_enforces_temp_count(void)
{
    uint32_t size[] = {4};
    plan_case_t c = simple_case(THEMIS_COLL_REDUCE_SCATTER, 1, size, 3, 1, 1);
    world_t w;
    int detected = 0;
    if (0 != setup_world(&w, &c)) {
        return;
    }
    UNIT_CHECK(3 == w.progs[0].max_op_reduce_recvs);
    for (uint32_t r = 0; r < w.nranks; r++) {
        w.progs[r].max_op_reduce_recvs = 1;
    }
    for (uint32_t seed = 0; seed < 5; seed++) {
        char why[600];
        detected += (0 != world_execute(&w, seed, why, sizeof(why)) &&
                     NULL != strstr(why, "REDUCE receives outstanding"));
    }
    UNIT_CHECKF(detected > 0, "never more than one REDUCE receive outstanding");
    world_free(&w);
}

int main(int argc, char **argv)
{
    int quick = (argc > 1 && 0 == strcmp(argv[1], "--quick"));
    UNIT_RUN(test_ring_allreduce_steps);
    UNIT_RUN(test_biring);
    UNIT_RUN(test_biring_steps);
    UNIT_RUN(test_vexec_detects_biring_cross_chain);
    UNIT_RUN(test_direct_reduce_scatter_steps);
    UNIT_RUN(test_reduce_scatter_layout);
    UNIT_RUN(test_numbering_and_tags);
    UNIT_RUN(test_themis_orders_vary);
    UNIT_RUN(test_invalid_input);
    UNIT_RUN(test_reduce_scatter_needs_counts);
    UNIT_RUN(test_vexec_detects_swapped_queue);
    UNIT_RUN(test_vexec_detects_size_mismatch);
    UNIT_RUN(test_vexec_detects_out_of_range);
    UNIT_RUN(test_vexec_detects_wrong_tag);
    UNIT_RUN(test_vexec_detects_unchained_ring);
    UNIT_RUN(test_check_detects_wrong_result);
    UNIT_RUN(test_vexec_enforces_temp_count);
    run_matrix(quick);
    UNIT_EXIT();
}
