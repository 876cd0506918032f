/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MSCCL-XML import and export (msccl.h): the semantics of a parsed file
 * (msccl_import.c reads it, msccl_export.c writes one).  Import: libxml2 DOM -> steps
 * (file steps plus virtual ones for copies and in-place slices) -> the
 * happens-before relation as ancestor bitsets -> transfers and their
 * dependencies by walking the steps in a topological order and tracking,
 * per unit, the last writer and the readers since -> canonical order.
 * Points are step * 8 + phase: the parts of one step (a local copy, the
 * receive, the send) happen in phase order.
 */
#include "msccl_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "heap.h"

const themis_msccl_step_kind_t themis_msccl_step_kinds[ST_NFILE] = {
    [ST_NOP] = {"nop", 0, 0, 0, 0},   [ST_S] = {"s", 1, 0, 1, 0},
    [ST_R] = {"r", 0, 1, 0, 1},       [ST_RCS] = {"rcs", 1, 1, 0, 1},
    [ST_RRC] = {"rrc", 0, 1, 1, 1},   [ST_RRCS] = {"rrcs", 1, 1, 1, 1},
    [ST_RRS] = {"rrs", 1, 1, 1, 0},   [ST_CPY] = {"cpy", 0, 0, 1, 1},
    [ST_RE] = {"re", 0, 0, 1, 1},
};

const char *const themis_msccl_buf_names[THEMIS_NBUFS] = {"input", "output", "scratch"};
const char themis_msccl_buf_letters[THEMIS_NBUFS] = {'i', 'o', 's'};

static const char *step_name(const ctx_t *c, uint32_t id, char *buf, size_t n)
{
    const mstep_t *s = &c->steps[id];
    switch (s->type) {
    case ST_VINIT:
        snprintf(buf, n, "gpu %u in-place input copy", s->gpu);
        break;
    case ST_VCOPY:
        snprintf(buf, n, "gpu %u copy %u", s->gpu, s->idx);
        break;
    case ST_VFINI:
        snprintf(buf, n, "gpu %u in-place result copy", s->gpu);
        break;
    default:
        snprintf(buf, n, "gpu %u tb %d step %u", s->gpu, s->tb, s->idx);
    }
    return buf;
}

/* ------------------------------------------------------------ messages, HB */

typedef struct {
    uint32_t sender, receiver, tb;
    int32_t chan;
} conn_t;

static int conn_cmp(const void *a, const void *b)
{
    const conn_t *x = a, *y = b;
    if (x->sender != y->sender) {
        return x->sender < y->sender ? -1 : 1;
    }
    if (x->receiver != y->receiver) {
        return x->receiver < y->receiver ? -1 : 1;
    }
    return x->chan < y->chan ? -1 : x->chan > y->chan;
}

static uint32_t count_parts(const ctx_t *c, const mtb_t *tb, int sends)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < tb->n; k++) {
        const mstep_t *s = &c->steps[tb->first + k];
        n += sends ? themis_msccl_step_kinds[s->type].sends : themis_msccl_step_kinds[s->type].recvs;
    }
    return n;
}

static themis_status_t unmatched(ctx_t *c, const conn_t *x, int sends)
{
    const mtb_t *tb = &c->tbs[x->tb];
    if (0 == count_parts(c, tb, sends)) {
        return THEMIS_OK;
    }
    if (sends) {
        return fail(c, THEMIS_ERR_INVALID, "gpu %u tb %u sends to gpu %u on channel %d, which "
                    "has no thread block receiving from gpu %u on that channel", x->sender,
                    tb->id, x->receiver, x->chan, x->sender);
    }
    return fail(c, THEMIS_ERR_INVALID, "gpu %u tb %u receives from gpu %u on channel %d, "
                "which has no thread block sending to gpu %u on that channel", x->receiver,
                tb->id, x->sender, x->chan, x->receiver);
}

static themis_status_t pair_tbs(ctx_t *c, const mtb_t *st, const mtb_t *rt)
{
    uint32_t i = 0, j = 0;
    char a[64], b[64];
    for (;;) {
        while (i < st->n && !themis_msccl_step_kinds[c->steps[st->first + i].type].sends) {
            i++;
        }
        while (j < rt->n && !themis_msccl_step_kinds[c->steps[rt->first + j].type].recvs) {
            j++;
        }
        if (i == st->n || j == rt->n) {
            break;
        }
        mstep_t *s = &c->steps[st->first + i], *r = &c->steps[rt->first + j];
        if (s->cnt != r->cnt) {
            return fail(c, THEMIS_ERR_INVALID, "%s sends %" PRIu64 " chunks, its receive %s "
                        "takes %" PRIu64, step_name(c, st->first + i, a, sizeof(a)), s->cnt,
                        step_name(c, rt->first + j, b, sizeof(b)), r->cnt);
        }
        s->peer = rt->first + j;
        r->from = st->first + i;
        i++;
        j++;
    }
    if (i < st->n || j < rt->n) {
        return fail(c, THEMIS_ERR_INVALID, "gpu %u sends %u messages to gpu %u on channel %d "
                    "(tb %u), gpu %u receives %u (tb %u)", st->gpu, count_parts(c, st, 1),
                    rt->gpu, st->chan, st->id, rt->gpu, count_parts(c, rt, 0), rt->id);
    }
    return THEMIS_OK;
}

/* The k-th send of each connection to the k-th receive. */
static themis_status_t match_messages(ctx_t *c)
{
    conn_t *s = malloc((c->ntbs + 1) * sizeof(*s)), *r = malloc((c->ntbs + 1) * sizeof(*r));
    uint32_t ns = 0, nr = 0, i = 0, j = 0;
    themis_status_t st = THEMIS_OK;

    if (NULL == s || NULL == r) {
        free(s);
        free(r);
        return fail(c, THEMIS_ERR_NOMEM, "out of memory");
    }
    for (uint32_t t = 0; t < c->ntbs; t++) {
        const mtb_t *tb = &c->tbs[t];
        if (tb->send >= 0) {
            s[ns++] = (conn_t) {tb->gpu, (uint32_t) tb->send, t, tb->chan};
        }
        if (tb->recv >= 0) {
            r[nr++] = (conn_t) {(uint32_t) tb->recv, tb->gpu, t, tb->chan};
        }
    }
    qsort(s, ns, sizeof(*s), conn_cmp);
    qsort(r, nr, sizeof(*r), conn_cmp);
    for (uint32_t k = 1; k < ns && THEMIS_OK == st; k++) {
        if (0 == conn_cmp(&s[k - 1], &s[k])) {
            st = fail(c, THEMIS_ERR_INVALID, "gpu %u: tb %u and tb %u both send to gpu %u on "
                      "channel %d", s[k].sender, c->tbs[s[k - 1].tb].id, c->tbs[s[k].tb].id,
                      s[k].receiver, s[k].chan);
        }
    }
    for (uint32_t k = 1; k < nr && THEMIS_OK == st; k++) {
        if (0 == conn_cmp(&r[k - 1], &r[k])) {
            st = fail(c, THEMIS_ERR_INVALID, "gpu %u: tb %u and tb %u both receive from gpu %u "
                      "on channel %d", r[k].receiver, c->tbs[r[k - 1].tb].id, c->tbs[r[k].tb].id,
                      r[k].sender, r[k].chan);
        }
    }
    while (THEMIS_OK == st && (i < ns || j < nr)) {
        int cmp = i == ns ? 1 : j == nr ? -1 : conn_cmp(&s[i], &r[j]);
        if (cmp < 0) {
            st = unmatched(c, &s[i++], 1);
        } else if (cmp > 0) {
            st = unmatched(c, &r[j++], 0);
        } else {
            st = pair_tbs(c, &c->tbs[s[i++].tb], &c->tbs[r[j++].tb]);
        }
    }
    free(s);
    free(r);
    return st;
}

static uint32_t npreds_of(const ctx_t *c, uint32_t v, uint32_t *out)
{
    const mstep_t *s = &c->steps[v];
    uint32_t n = 0;
    if (ST_VFINI == s->type) {
        const mgpu_t *gp = &c->gpus[s->gpu];
        if (NONE != gp->last_pro) {
            if (out) {
                out[n] = gp->last_pro;
            }
            n++;
        }
        for (uint32_t t = 0; t < gp->ntb; t++) {
            const mtb_t *tb = &c->tbs[gp->tb_first + t];
            if (tb->n > 0) {
                if (out) {
                    out[n] = tb->first + tb->n - 1;
                }
                n++;
            }
        }
        return n;
    }
    const uint32_t cand[3] = {s->prev, s->dep, s->from};
    for (int k = 0; k < 3; k++) {
        if (NONE != cand[k]) {
            if (out) {
                out[n] = cand[k];
            }
            n++;
        }
    }
    return n;
}

/* Min-heap of step ids: Kahn's algorithm takes the smallest (gpu, tb,
 * step) first, which is the smallest id.  Sized for every step, it never
 * grows. */
#define ID_LESS(ctx, a, b) (*(a) < *(b))
THEMIS_HEAP_DEFINE(id_heap, uint32_t, const ctx_t *, ID_LESS, 2u, 1u)

static themis_status_t build_hb(ctx_t *c)
{
    uint32_t N = c->nsteps, *indeg = NULL, *sfirst = NULL, *succ = NULL, *heap = NULL, fill;
    uint64_t E = 0;
    themis_status_t st = THEMIS_OK;

    c->pfirst = calloc((size_t) N + 1, sizeof(uint32_t));
    c->order = malloc(((size_t) N + 1) * sizeof(uint32_t));
    indeg = calloc((size_t) N + 1, sizeof(uint32_t));
    sfirst = calloc((size_t) N + 2, sizeof(uint32_t));
    heap = malloc(((size_t) N + 1) * sizeof(uint32_t));
    if (NULL == c->pfirst || NULL == c->order || NULL == indeg || NULL == sfirst || NULL == heap) {
        st = fail(c, THEMIS_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint32_t v = 0; v < N; v++) {
        c->pfirst[v] = (uint32_t) E;
        E += npreds_of(c, v, NULL);
    }
    c->pfirst[N] = (uint32_t) E;
    c->preds = malloc((E + 1) * sizeof(uint32_t));
    succ = malloc((E + 1) * sizeof(uint32_t));
    if (NULL == c->preds || NULL == succ) {
        st = fail(c, THEMIS_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint32_t v = 0; v < N; v++) {
        npreds_of(c, v, &c->preds[c->pfirst[v]]);
        indeg[v] = c->pfirst[v + 1] - c->pfirst[v];
        for (uint32_t e = c->pfirst[v]; e < c->pfirst[v + 1]; e++) {
            sfirst[c->preds[e] + 1]++;
        }
    }
    for (uint32_t v = 0; v < N; v++) {
        sfirst[v + 1] += sfirst[v];
    }
    for (uint32_t v = 0; v < N; v++) {
        for (uint32_t e = c->pfirst[v]; e < c->pfirst[v + 1]; e++) {
            succ[sfirst[c->preds[e]]++] = v;
        }
    }
    for (uint32_t v = N; v > 0; v--) {
        sfirst[v] = sfirst[v - 1];
    }
    sfirst[0] = 0;

    uint32_t nh = 0, done = 0, cap = N + 1;
    for (uint32_t v = 0; v < N; v++) {
        if (0 == indeg[v]) {
            (void) id_heap_push(c, &heap, &nh, &cap, v);
        }
    }
    while (nh > 0) {
        uint32_t v = id_heap_pop(c, heap, &nh);
        c->order[done++] = v;
        for (uint32_t e = sfirst[v]; e < sfirst[v + 1]; e++) {
            if (0 == --indeg[succ[e]]) {
                (void) id_heap_push(c, &heap, &nh, &cap, succ[e]);
            }
        }
    }
    if (done < N) {
        /* walk unfinished predecessors until a step repeats: it is on a cycle */
        uint32_t v = 0, len = 0;
        char a[64], b[64];
        while (0 == indeg[v]) {
            v++;
        }
        for (uint32_t k = 0; k < N; k++) {
            for (fill = c->pfirst[v]; 0 == indeg[c->preds[fill]]; fill++) {
            }
            v = c->preds[fill];
        }
        uint32_t u = v, w = v;
        do {
            for (fill = c->pfirst[w]; 0 == indeg[c->preds[fill]]; fill++) {
            }
            w = c->preds[fill];
            if (1 == ++len) {
                u = w;
            }
        } while (w != v);
        st = fail(c, THEMIS_ERR_INVALID, "dependency cycle of %u steps: %s waits for %s", len,
                  step_name(c, v, a, sizeof(a)), step_name(c, u, b, sizeof(b)));
        goto out;
    }
    c->words = ((size_t) N + 63) / 64;
    c->reach = calloc((size_t) N * c->words + 1, sizeof(uint64_t));
    if (NULL == c->reach) {
        st = fail(c, THEMIS_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint32_t k = 0; k < N; k++) {
        uint32_t v = c->order[k];
        uint64_t *rv = &c->reach[(size_t) v * c->words];
        for (uint32_t e = c->pfirst[v]; e < c->pfirst[v + 1]; e++) {
            uint32_t p = c->preds[e];
            const uint64_t *rp = &c->reach[(size_t) p * c->words];
            for (size_t w = 0; w < c->words; w++) {
                rv[w] |= rp[w];
            }
            rv[p / 64] |= 1ull << (p % 64);
        }
    }
out:
    free(indeg);
    free(sfirst);
    free(succ);
    free(heap);
    return st;
}

/* Point p happens before point q. */
static int hb(const ctx_t *c, uint32_t p, uint32_t q)
{
    uint32_t sp = p >> 3, sq = q >> 3;
    if (sp == sq) {
        return (p & 7) < (q & 7);
    }
    return (int) ((c->reach[(size_t) sq * c->words + sp / 64] >> (sp % 64)) & 1);
}

/* ------------------------------------------------------------ transfers */

typedef struct {
    int32_t wx;             /* last writer; -1 nobody, -2 the call's input */
    uint32_t wpt, rhead;    /* its point; readers since (list) */
} unit_t;

typedef struct {
    uint32_t x, pt, next;
} reader_t;

/* Where garbage entered: a read of a unit nobody wrote. */
typedef struct {
    uint32_t pt, g;
    uint8_t b;
    uint64_t unit;
} origin_t;

typedef struct {
    themis_xfer_t x;
    uint32_t defpt;         /* the send's point, or the local step's */
    uint32_t rstep;         /* network: the receiving step */
    uint8_t network, redirected;
    uint8_t dead;           /* moves data that derives from a unit nobody wrote */
    origin_t origin;        /* dead: where that data came from */
} px_t;

typedef struct {
    uint32_t t, d;
    uint8_t rside;          /* from t's receive */
} dep_t;

typedef struct {
    ctx_t *c;
    const uint8_t *forced;  /* receiving steps that go through a temporary */
    unit_t **u;             /* [gpu * 3 + buf] */
    uint64_t *usize;
    uint64_t *temp_next;    /* per gpu */
    reader_t *rd;
    uint32_t nrd, cap_rd;
    px_t *px;
    uint32_t npx, cap_px;
    dep_t *dp;
    uint32_t ndp, cap_dp;
    uint32_t *tmp;          /* transfers conflicting with the current access */
    uint32_t ntmp, cap_tmp;
    uint32_t *sent;         /* sending step -> its transfer */
    uint64_t accesses;
} ex_t;

static void ex_free(ex_t *e)
{
    if (NULL != e->u) {
        for (uint32_t i = 0; i < 3 * e->c->P; i++) {
            free(e->u[i]);
        }
    }
    free(e->u);
    free(e->usize);
    free(e->temp_next);
    free(e->rd);
    free(e->px);
    free(e->dp);
    free(e->tmp);
    free(e->sent);
    memset(e, 0, sizeof(*e));
}

static themis_status_t ex_init(ex_t *e, ctx_t *c, const uint8_t *forced)
{
    memset(e, 0, sizeof(*e));
    e->c = c;
    e->forced = forced;
    e->u = calloc(3 * (size_t) c->P, sizeof(*e->u));
    e->usize = calloc(3 * (size_t) c->P, sizeof(*e->usize));
    e->temp_next = calloc(c->P, sizeof(*e->temp_next));
    e->sent = malloc(((size_t) c->nsteps + 1) * sizeof(*e->sent));
    if (NULL == e->u || NULL == e->usize || NULL == e->temp_next || NULL == e->sent) {
        return fail(c, THEMIS_ERR_NOMEM, "out of memory");
    }
    for (uint32_t g = 0; g < c->P; g++) {
        e->temp_next[g] = c->bufu[THEMIS_BUF_SCRATCH];
        for (int b = 0; b < THEMIS_NBUFS; b++) {
            e->usize[g * 3 + b] = c->bufu[b];
        }
    }
    return THEMIS_OK;
}

/* A buffer's units, made when a step first touches it: memory grows with
 * what the file's steps use, not with gpus x chunks.  NULL: no memory. */
static unit_t *units_of(ex_t *e, uint32_t g, int b)
{
    unit_t **slot = &e->u[g * 3 + b];
    if (NULL == *slot) {
        uint64_t n = e->usize[g * 3 + b];
        unit_t *u = malloc((n + 1) * sizeof(*u));
        if (NULL == u) {
            fail(e->c, THEMIS_ERR_NOMEM, "out of memory");
            return NULL;
        }
        for (uint64_t k = 0; k < n; k++) {
            u[k] = (unit_t) {THEMIS_BUF_INPUT == b ? -2 : -1, 0, NONE};
        }
        *slot = u;
    }
    return *slot;
}

static themis_status_t alloc_temp(ex_t *e, uint32_t g, uint64_t cnt, uint64_t *off)
{
    uint64_t n = e->temp_next[g] + cnt;
    unit_t **slot = &e->u[g * 3 + THEMIS_BUF_SCRATCH];
    if ((uint64_t) e->c->P * n > THEMIS_MSCCL_MAX_UNITS) {
        return fail(e->c, THEMIS_ERR_UNSUPPORTED, "too large: more than %u scratch units for "
                    "temporaries", THEMIS_MSCCL_MAX_UNITS);
    }
    if (NULL == units_of(e, g, THEMIS_BUF_SCRATCH)) {
        return THEMIS_ERR_NOMEM;
    }
    unit_t *u = realloc(*slot, (n + 1) * sizeof(*u));
    if (NULL == u) {
        return fail(e->c, THEMIS_ERR_NOMEM, "out of memory");
    }
    for (uint64_t k = e->temp_next[g]; k < n; k++) {
        u[k] = (unit_t) {-1, 0, NONE};
    }
    *slot = u;
    *off = e->temp_next[g];
    e->temp_next[g] = n;
    e->usize[g * 3 + THEMIS_BUF_SCRATCH] = n;
    return THEMIS_OK;
}

static themis_status_t push_tmp(ex_t *e, uint32_t x)
{
    if (e->ntmp > 0 && e->tmp[e->ntmp - 1] == x) {
        return THEMIS_OK;
    }
    if (0 != grow((void **) &e->tmp, &e->cap_tmp, e->ntmp + 1, sizeof(uint32_t))) {
        return fail(e->c, THEMIS_ERR_NOMEM, "out of memory");
    }
    e->tmp[e->ntmp++] = x;
    return THEMIS_OK;
}

static themis_status_t race(ex_t *e, uint32_t g, int b, uint64_t unit, uint32_t p, uint32_t q)
{
    char a[64], z[64];
    return fail(e->c, THEMIS_ERR_INVALID, "race on gpu %u %s unit %" PRIu64 ": %s and %s "
                "access it without an order between them", g, themis_msccl_buf_names[b], unit,
                step_name(e->c, p >> 3, a, sizeof(a)), step_name(e->c, q >> 3, z, sizeof(z)));
}

enum { ACC_READ, ACC_WRITE, ACC_UPDATE };   /* UPDATE: reduce into (reads too) */

/* Checks an access of transfer t at point pt and appends the transfers it
 * depends on to e->tmp.  A read of garbage - a unit nobody wrote, or one
 * last written by a dead transfer - makes t dead: what t writes is
 * garbage too.  Whether garbage reaches a result is decided at the end
 * (garbage_in_result); until then a dead transfer is tracked like any
 * other.  An unordered pair of accesses is a race unless only garbage is
 * at stake: both transfers dead, or a dead one reading what a live one
 * writes (dead transfers are skipped, and what they read or write reaches
 * no result); no dependency is recorded between such a pair. */
static themis_status_t collect(ex_t *e, uint32_t t, uint32_t pt, uint32_t g, int b, uint64_t off,
                               uint64_t cnt, int mode)
{
    const unit_t *u = units_of(e, g, b);
    themis_status_t st;
    if (NULL == u) {
        return THEMIS_ERR_NOMEM;
    }
    e->accesses += cnt;
    if (e->accesses > MAX_ACCESSES) {
        return fail(e->c, THEMIS_ERR_UNSUPPORTED, "too large: more than %u unit accesses",
                    MAX_ACCESSES);
    }
    for (uint64_t k = off; k < off + cnt; k++) {
        if (ACC_WRITE != mode && !e->px[t].dead) {
            if (-1 == u[k].wx) {
                e->px[t].dead = 1;
                e->px[t].origin = (origin_t) {pt, g, (uint8_t) b, k};
            } else if (u[k].wx >= 0 && e->px[u[k].wx].dead) {
                e->px[t].dead = 1;
                e->px[t].origin = e->px[u[k].wx].origin;
            }
        }
        if (u[k].wx >= 0) {
            int ordered = hb(e->c, u[k].wpt, pt);
            if (!ordered && !(e->px[t].dead && (e->px[u[k].wx].dead || ACC_READ == mode))) {
                return race(e, g, b, k, u[k].wpt, pt);
            }
            if (ordered && THEMIS_OK != (st = push_tmp(e, (uint32_t) u[k].wx))) {
                return st;
            }
        }
        if (ACC_READ == mode) {
            continue;
        }
        for (uint32_t r = u[k].rhead; NONE != r; r = e->rd[r].next) {
            if (e->rd[r].x == t) {
                continue;
            }
            if (!hb(e->c, e->rd[r].pt, pt)) {
                if (e->px[e->rd[r].x].dead) {
                    continue;
                }
                return race(e, g, b, k, e->rd[r].pt, pt);
            }
            if (THEMIS_OK != (st = push_tmp(e, e->rd[r].x))) {
                return st;
            }
        }
    }
    return THEMIS_OK;
}

static themis_status_t record(ex_t *e, uint32_t t, uint32_t pt, uint32_t g, int b, uint64_t off,
                              uint64_t cnt, int write)
{
    unit_t *u = units_of(e, g, b);
    if (NULL == u) {
        return THEMIS_ERR_NOMEM;
    }
    for (uint64_t k = off; k < off + cnt; k++) {
        if (write) {
            u[k] = (unit_t) {(int32_t) t, pt, NONE};
            continue;
        }
        if (0 != grow((void **) &e->rd, &e->cap_rd, (uint64_t) e->nrd + 1, sizeof(reader_t))) {
            return fail(e->c, THEMIS_ERR_NOMEM, "out of memory");
        }
        e->rd[e->nrd] = (reader_t) {t, pt, u[k].rhead};
        u[k].rhead = e->nrd++;
    }
    return THEMIS_OK;
}

static themis_status_t add_deps(ex_t *e, uint32_t t, const uint32_t *d, uint32_t n, int rside)
{
    if (0 != grow((void **) &e->dp, &e->cap_dp, (uint64_t) e->ndp + n, sizeof(dep_t))) {
        return fail(e->c, THEMIS_ERR_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < n; k++) {
        e->dp[e->ndp++] = (dep_t) {t, d[k], (uint8_t) rside};
    }
    return THEMIS_OK;
}

static themis_status_t new_px(ex_t *e, const themis_xfer_t *x, uint32_t defpt, uint32_t *t)
{
    if (e->npx >= THEMIS_XFER_CHECK_MAX) {
        return fail(e->c, THEMIS_ERR_UNSUPPORTED, "too large: more than %u transfers",
                    THEMIS_XFER_CHECK_MAX);
    }
    if (0 != grow((void **) &e->px, &e->cap_px, (uint64_t) e->npx + 1, sizeof(px_t))) {
        return fail(e->c, THEMIS_ERR_NOMEM, "out of memory");
    }
    px_t *p = &e->px[e->npx];
    memset(p, 0, sizeof(*p));
    p->x = *x;
    p->defpt = defpt;
    p->rstep = NONE;
    *t = e->npx++;
    return THEMIS_OK;
}

static themis_status_t local_op(ex_t *e, uint32_t g, uint32_t pt, int kind, int sb, uint64_t so,
                                int db, uint64_t dof, uint64_t cnt)
{
    themis_status_t st;
    uint32_t t;
    if (sb == db && so < dof + cnt && dof < so + cnt) {
        char a[64];
        return fail(e->c, THEMIS_ERR_INVALID, "%s: %s units %" PRIu64 "..%" PRIu64 " overlap "
                    "their source %" PRIu64 "..%" PRIu64, step_name(e->c, pt >> 3, a, sizeof(a)),
                    themis_msccl_buf_names[db], dof, dof + cnt, so, so + cnt);
    }
    themis_xfer_t x = {.src = g, .dst = g, .kind = (uint8_t) kind, .src_buf = (uint8_t) sb,
                       .dst_buf = (uint8_t) db, .src_off = so, .dst_off = dof, .count = cnt};
    if (THEMIS_OK != (st = new_px(e, &x, pt, &t))) {
        return st;
    }
    e->ntmp = 0;
    if (THEMIS_OK != (st = collect(e, t, pt, g, sb, so, cnt, ACC_READ)) ||
        THEMIS_OK != (st = collect(e, t, pt, g, db, dof, cnt,
                                   THEMIS_XFER_REDUCE == kind ? ACC_UPDATE : ACC_WRITE)) ||
        THEMIS_OK != (st = add_deps(e, t, e->tmp, e->ntmp, 0)) ||
        THEMIS_OK != (st = record(e, t, pt, g, sb, so, cnt, 0))) {
        return st;
    }
    return record(e, t, pt, g, db, dof, cnt, 1);
}

static themis_status_t send_op(ex_t *e, uint32_t v, uint32_t pt, int sb, uint64_t so)
{
    const mstep_t *s = &e->c->steps[v];
    themis_status_t st;
    uint32_t t;
    themis_xfer_t x = {.src = s->gpu, .dst = e->c->steps[s->peer].gpu, .src_buf = (uint8_t) sb,
                       .src_off = so, .count = s->cnt};
    if (THEMIS_OK != (st = new_px(e, &x, pt, &t))) {
        return st;
    }
    e->px[t].network = 1;
    e->px[t].rstep = s->peer;
    e->sent[v] = t;
    e->ntmp = 0;
    if (THEMIS_OK != (st = collect(e, t, pt, s->gpu, sb, so, s->cnt, ACC_READ)) ||
        THEMIS_OK != (st = add_deps(e, t, e->tmp, e->ntmp, 0))) {
        return st;
    }
    return record(e, t, pt, s->gpu, sb, so, s->cnt, 0);
}

static themis_status_t recv_op(ex_t *e, uint32_t v, uint32_t pt, int kind, int db, uint64_t dof)
{
    const mstep_t *s = &e->c->steps[v];
    uint32_t t = e->sent[s->from], g = s->gpu;
    uint32_t send_pt = e->px[t].defpt;
    themis_status_t st;
    int redirect = NULL != e->forced && e->forced[v];
    /* t's own data (from the send); a reduce into garbage is charged
     * below to whichever transfer does it */
    const px_t before = e->px[t];

    e->ntmp = 0;
    st = collect(e, t, pt, g, db, dof, s->cnt, THEMIS_XFER_REDUCE == kind ? ACC_UPDATE : ACC_WRITE);
    if (THEMIS_OK != st) {
        return st;
    }
    for (uint32_t k = 0; k < e->ntmp && !redirect; k++) {
        redirect = !hb(e->c, e->px[e->tmp[k]].defpt, send_pt);
    }
    if (!redirect) {
        px_t *p = &e->px[t];
        p->x.kind = (uint8_t) kind;
        p->x.dst_buf = (uint8_t) db;
        p->x.dst_off = dof;
        if (THEMIS_OK != (st = add_deps(e, t, e->tmp, e->ntmp, 1))) {
            return st;
        }
        return record(e, t, pt, g, db, dof, s->cnt, 1);
    }
    /* receive into a fresh temporary; a local step carries the waits */
    uint64_t temp;
    uint32_t l;
    if (THEMIS_OK != (st = alloc_temp(e, g, s->cnt, &temp)) ||
        THEMIS_OK != (st = record(e, t, pt, g, THEMIS_BUF_SCRATCH, temp, s->cnt, 1))) {
        return st;
    }
    px_t *p = &e->px[t];
    const uint8_t dst_dead = p->dead && !before.dead;
    const origin_t dst_origin = p->origin;
    p->x.kind = THEMIS_XFER_COPY;
    p->x.dst_buf = THEMIS_BUF_SCRATCH;
    p->x.dst_off = temp;
    p->redirected = 1;
    p->dead = before.dead;
    p->origin = before.origin;
    themis_xfer_t x = {.src = g, .dst = g, .kind = (uint8_t) kind,
                       .src_buf = THEMIS_BUF_SCRATCH, .dst_buf = (uint8_t) db, .src_off = temp,
                       .dst_off = dof, .count = s->cnt};
    if (THEMIS_OK != (st = new_px(e, &x, pt + 1, &l))) {
        return st;
    }
    e->px[l].dead = e->px[t].dead || dst_dead;
    e->px[l].origin = e->px[t].dead ? e->px[t].origin : dst_origin;
    if (THEMIS_OK != (st = add_deps(e, l, e->tmp, e->ntmp, 0)) ||
        THEMIS_OK != (st = add_deps(e, l, &t, 1, 0)) ||
        THEMIS_OK != (st = record(e, l, pt + 1, g, THEMIS_BUF_SCRATCH, temp, s->cnt, 0))) {
        return st;
    }
    return record(e, l, pt + 1, g, db, dof, s->cnt, 1);
}

static themis_status_t expand_step(ex_t *e, uint32_t v)
{
    const mstep_t *s = &e->c->steps[v];
    const uint32_t pt = v << 3, g = s->gpu;
    const int same = s->src_buf == s->dst_buf && s->src_off == s->dst_off;
    themis_status_t st = THEMIS_OK;
    uint64_t temp;

    switch (s->type) {
    case ST_S:
        return send_op(e, v, pt, s->src_buf, s->src_off);
    case ST_R:
        return recv_op(e, v, pt, THEMIS_XFER_COPY, s->dst_buf, s->dst_off);
    case ST_RCS:
        if (THEMIS_OK != (st = recv_op(e, v, pt, THEMIS_XFER_COPY, s->dst_buf, s->dst_off))) {
            return st;
        }
        return send_op(e, v, pt + 2, s->dst_buf, s->dst_off);
    case ST_RRC:
    case ST_RRCS:
        if (!same) {
            st = local_op(e, g, pt, THEMIS_XFER_COPY, s->src_buf, s->src_off, s->dst_buf,
                          s->dst_off, s->cnt);
        }
        if (THEMIS_OK == st) {
            st = recv_op(e, v, pt + 2, THEMIS_XFER_REDUCE, s->dst_buf, s->dst_off);
        }
        if (THEMIS_OK == st && ST_RRCS == s->type) {
            st = send_op(e, v, pt + 4, s->dst_buf, s->dst_off);
        }
        return st;
    case ST_RRS:
        /* received into a fresh temporary, src reduced into it, sent on */
        if (THEMIS_OK != (st = alloc_temp(e, g, s->cnt, &temp)) ||
            THEMIS_OK != (st = recv_op(e, v, pt, THEMIS_XFER_COPY, THEMIS_BUF_SCRATCH, temp)) ||
            THEMIS_OK != (st = local_op(e, g, pt + 2, THEMIS_XFER_REDUCE, s->src_buf, s->src_off,
                                        THEMIS_BUF_SCRATCH, temp, s->cnt))) {
            return st;
        }
        return send_op(e, v, pt + 4, THEMIS_BUF_SCRATCH, temp);
    case ST_RE:
        return local_op(e, g, pt, THEMIS_XFER_REDUCE, s->src_buf, s->src_off, s->dst_buf,
                        s->dst_off, s->cnt);
    case ST_CPY:
    case ST_VINIT:
    case ST_VCOPY:
    case ST_VFINI:
        if (0 == s->cnt) {
            return THEMIS_OK;
        }
        return local_op(e, g, pt, THEMIS_XFER_COPY, s->src_buf, s->src_off, s->dst_buf,
                        s->dst_off, s->cnt);
    default:
        return THEMIS_OK;
    }
}

/* ------------------------------------------------------------ canonical order */

static int dep_cmp(const void *a, const void *b)
{
    const dep_t *x = a, *y = b;
    if (x->t != y->t) {
        return x->t < y->t ? -1 : 1;
    }
    if (x->d != y->d) {
        return x->d < y->d ? -1 : 1;
    }
    return (int) x->rside - (int) y->rside;
}

typedef struct {
    uint32_t depth, dst, dst_buf, old;
    uint64_t dst_off;
} okey_t;

static int okey_cmp(const void *a, const void *b)
{
    const okey_t *x = a, *y = b;
    if (x->depth != y->depth) {
        return x->depth < y->depth ? -1 : 1;
    }
    if (x->dst != y->dst) {
        return x->dst < y->dst ? -1 : 1;
    }
    if (x->dst_buf != y->dst_buf) {
        return x->dst_buf < y->dst_buf ? -1 : 1;
    }
    if (x->dst_off != y->dst_off) {
        return x->dst_off < y->dst_off ? -1 : 1;
    }
    return x->old < y->old ? -1 : x->old > y->old;
}

/* The buffer that holds the result, and how many of its units do. */
static int result_buf_of(const ctx_t *c)
{
    return (THEMIS_COLL_ALLREDUCE == c->coll && c->inplace) ? THEMIS_BUF_INPUT
                                                            : THEMIS_BUF_OUTPUT;
}

/* A dead transfer may be skipped only if its garbage reaches no result
 * unit: then nothing live reads what it wrote (that read would have made
 * the reader dead), so dropping it changes no result.  Refused, as any
 * read of an unwritten unit was before, when some result unit's last
 * writer is dead. */
static themis_status_t garbage_in_result(ex_t *e)
{
    const ctx_t *c = e->c;
    const int rb = result_buf_of(c);
    const uint64_t nres = (THEMIS_COLL_REDUCE_SCATTER == c->coll) ? c->nunits / c->P : c->nunits;
    for (uint32_t g = 0; g < c->P; g++) {
        const unit_t *u = e->u[g * 3 + rb];   /* NULL: nobody wrote it (units_of) */
        for (uint64_t k = 0; NULL != u && k < nres && k < e->usize[g * 3 + rb]; k++) {
            if (u[k].wx < 0 || !e->px[u[k].wx].dead) {
                continue;
            }
            const origin_t *o = &e->px[u[k].wx].origin;
            char a[64];
            return fail(e->c, THEMIS_ERR_INVALID, "%s reads %s unit %" PRIu64 " of gpu %u, "
                        "which nobody wrote, and that data reaches result unit %" PRIu64
                        " of gpu %u", step_name(e->c, o->pt >> 3, a, sizeof(a)),
                        themis_msccl_buf_names[o->b], o->unit, o->g, k, g);
        }
    }
    return THEMIS_OK;
}

/* Dead transfers leave the schedule; whoever depended on one depends on
 * what it depended on instead (transitively), so every order between live
 * transfers that ran through a dead one stays.  e->dp sorted by t. */
static themis_status_t bypass_dead(ex_t *e)
{
    uint32_t n = e->npx, ndead = 0;
    for (uint32_t t = 0; t < n; t++) {
        ndead += e->px[t].dead;
    }
    if (0 == ndead) {
        return THEMIS_OK;
    }
    /* in[t]: t's live predecessors (CSR over creation order, which is
     * topological), a dead t's standing for it */
    uint32_t *ifirst = calloc((size_t) n + 1, sizeof(uint32_t)), *stamp = NULL, *in = NULL;
    uint32_t nin = 0, cap = 0;
    dep_t *out = NULL;
    uint32_t nout = 0, cap_out = 0;
    themis_status_t st = THEMIS_OK;
    stamp = calloc((size_t) n + 1, sizeof(uint32_t));
    if (NULL == ifirst || NULL == stamp) {
        st = fail(e->c, THEMIS_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint32_t t = 0, k = 0; t < n; t++) {
        ifirst[t] = nin;
        for (; k < e->ndp && e->dp[k].t == t; k++) {
            uint32_t d = e->dp[k].d, lo = e->px[d].dead ? ifirst[d] : 0;
            uint32_t hi = e->px[d].dead ? ifirst[d + 1] : 1;
            for (uint32_t j = lo; j < hi; j++) {
                uint32_t p = e->px[d].dead ? in[j] : d;
                if (stamp[p] == t + 1) {
                    continue;
                }
                stamp[p] = t + 1;
                if (e->px[t].dead) {
                    if (0 != grow((void **) &in, &cap, (uint64_t) nin + 1, sizeof(uint32_t))) {
                        st = fail(e->c, THEMIS_ERR_NOMEM, "out of memory");
                        goto out;
                    }
                    in[nin++] = p;
                } else {
                    if (0 != grow((void **) &out, &cap_out, (uint64_t) nout + 1, sizeof(dep_t))) {
                        st = fail(e->c, THEMIS_ERR_NOMEM, "out of memory");
                        goto out;
                    }
                    out[nout++] = (dep_t) {t, p, e->dp[k].rside};
                }
            }
        }
        ifirst[t + 1] = nin;
    }
    free(e->dp);
    e->dp = out;
    e->ndp = nout;
    e->cap_dp = cap_out;
    out = NULL;
    if (e->ndp > 0) {
        qsort(e->dp, e->ndp, sizeof(dep_t), dep_cmp);
    }
out:
    free(ifirst);
    free(stamp);
    free(in);
    free(out);
    return st;
}

static themis_status_t canonical(ex_t *e, themis_xfer_sched_t *s, rside_t *rs)
{
    ctx_t *c = e->c;
    uint32_t n = e->npx, nlive = 0, *first = NULL, *depth = NULL, *newi = NULL, *buf = NULL;
    okey_t *keys = NULL;
    themis_status_t st = THEMIS_OK;

    if (e->ndp > 0) {
        qsort(e->dp, e->ndp, sizeof(dep_t), dep_cmp);
    }
    if (THEMIS_OK != (st = bypass_dead(e))) {
        return st;
    }
    first = calloc((size_t) n + 1, sizeof(uint32_t));
    depth = calloc((size_t) n + 1, sizeof(uint32_t));
    newi = malloc(((size_t) n + 1) * sizeof(uint32_t));
    keys = malloc(((size_t) n + 1) * sizeof(okey_t));
    buf = malloc(((size_t) e->ndp + 1) * sizeof(uint32_t));
    rs->rfirst = calloc((size_t) n + 1, sizeof(uint32_t));
    rs->rdeps = malloc(((size_t) e->ndp + 1) * sizeof(uint32_t));
    rs->rstep = malloc(((size_t) n + 1) * sizeof(uint32_t));
    if (NULL == first || NULL == depth || NULL == newi || NULL == keys || NULL == buf ||
        NULL == rs->rfirst || NULL == rs->rdeps || NULL == rs->rstep) {
        st = fail(c, THEMIS_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint32_t k = 0; k < e->ndp; k++) {
        first[e->dp[k].t + 1]++;
    }
    for (uint32_t t = 0; t < n; t++) {
        first[t + 1] += first[t];
    }
    /* creation order is topological: a transfer is made at its defining
     * point, after those of its dependencies */
    for (uint32_t t = 0; t < n; t++) {
        for (uint32_t k = first[t]; k < first[t + 1]; k++) {
            if (e->dp[k].d >= t) {
                st = fail(c, THEMIS_ERR_INVALID, "internal: dependency %u of transfer %u is not "
                          "earlier", e->dp[k].d, t);
                goto out;
            }
            if (depth[e->dp[k].d] + 1 > depth[t]) {
                depth[t] = depth[e->dp[k].d] + 1;
            }
        }
        const themis_xfer_t *x = &e->px[t].x;
        if (!e->px[t].dead) {
            keys[nlive++] = (okey_t) {depth[t], x->dst, x->dst_buf, t, x->dst_off};
        }
    }
    qsort(keys, nlive, sizeof(okey_t), okey_cmp);
    for (uint32_t i = 0; i < nlive; i++) {
        newi[keys[i].old] = i;
    }
    themis_xfer_init(s, c->coll, c->P, c->nunits);
    memcpy(s->buf_units, c->bufu, sizeof(s->buf_units));
    s->result_buf = (themis_buf_t) result_buf_of(c);
    snprintf(s->name, sizeof(s->name), "%s", c->info.name);
    uint32_t nr = 0;
    for (uint32_t i = 0; i < nlive; i++) {
        uint32_t t = keys[i].old, nd = 0, mark = nr;
        for (uint32_t k = first[t]; k < first[t + 1]; k++) {
            uint32_t d = newi[e->dp[k].d];
            buf[nd++] = d;
            if (e->dp[k].rside && (nr == mark || rs->rdeps[nr - 1] != d)) {
                rs->rdeps[nr++] = d;
            }
        }
        qsort(buf, nd, sizeof(uint32_t), themis_cmp_u32);
        uint32_t m = 0;
        for (uint32_t k = 0; k < nd; k++) {
            if (0 == m || buf[m - 1] != buf[k]) {
                buf[m++] = buf[k];
            }
        }
        rs->rfirst[i + 1] = nr;
        rs->rstep[i] = e->px[t].network ? e->px[t].rstep : NONE;
        if (THEMIS_OK != themis_xfer_add(s, &e->px[t].x, buf, m, NULL)) {
            st = fail(c, THEMIS_ERR_NOMEM, "out of memory");
            goto out;
        }
    }
    s->buf_units[THEMIS_BUF_SCRATCH] = c->bufu[THEMIS_BUF_SCRATCH];
    for (uint32_t g = 0; g < c->P; g++) {
        if (e->temp_next[g] > s->buf_units[THEMIS_BUF_SCRATCH]) {
            s->buf_units[THEMIS_BUF_SCRATCH] = e->temp_next[g];
        }
    }
out:
    free(first);
    free(depth);
    free(newi);
    free(keys);
    free(buf);
    return st;
}

/* ------------------------------------------------------------ schedule */

void themis_msccl_ctx_free(ctx_t *c)
{
    free(c->gpus);
    free(c->tbs);
    free(c->steps);
    free(c->pfirst);
    free(c->preds);
    free(c->order);
    free(c->reach);
}

themis_status_t themis_msccl_schedule(ctx_t *c, themis_xfer_sched_t *out)
{
    themis_status_t st = match_messages(c);
    if (THEMIS_OK == st) {
        st = build_hb(c);
    }
    if (THEMIS_OK != st) {
        return st;
    }
    uint8_t *forced = calloc((size_t) c->nsteps + 1, 1);
    if (NULL == forced) {
        return fail(c, THEMIS_ERR_NOMEM, "out of memory");
    }
    for (;;) {
        ex_t e;
        rside_t rs = {NULL, NULL, NULL};
        st = ex_init(&e, c, forced);
        for (uint32_t k = 0; k < c->nsteps && THEMIS_OK == st; k++) {
            st = expand_step(&e, c->order[k]);
        }
        if (THEMIS_OK == st) {
            st = garbage_in_result(&e);
        }
        if (THEMIS_OK == st) {
            st = canonical(&e, out, &rs);
        }
        int more = 0;
        if (THEMIS_OK == st) {
            more = themis_msccl_export_violations(out, &rs, forced);
            if (more < 0) {
                st = fail(c, THEMIS_ERR_NOMEM, "out of memory");
            }
        }
        if (THEMIS_OK == st) {
            c->info.nredirects = 0;
            c->info.ndead = 0;
            for (uint32_t t = 0; t < e.npx; t++) {
                c->info.nredirects += e.px[t].redirected && !e.px[t].dead;
                c->info.ndead += e.px[t].dead;
            }
        }
        free(rs.rfirst);
        free(rs.rdeps);
        free(rs.rstep);
        ex_free(&e);
        if (THEMIS_OK != st || 0 == more) {
            break;
        }
        themis_xfer_free(out);
    }
    free(forced);
    if (THEMIS_OK != st) {
        themis_xfer_free(out);
    }
    return st;
}
