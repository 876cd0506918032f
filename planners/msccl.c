/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MSCCL-XML import and export (msccl.h).  Import: libxml2 DOM -> steps
 * (file steps plus virtual ones for copies and in-place slices) -> the
 * happens-before relation as ancestor bitsets -> transfers and their
 * dependencies by walking the steps in a topological order and tracking,
 * per unit, the last writer and the readers since -> canonical order.
 * Points are step * 8 + phase: the parts of one step (a local copy, the
 * receive, the send) happen in phase order.
 */
#include "msccl.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#define NONE UINT32_MAX
/* Unit accesses one import may track (steps x chunks per step). */
#define MAX_ACCESSES (1u << 26)

enum {
    ST_NOP, ST_S, ST_R, ST_RCS, ST_RRC, ST_RRCS, ST_RRS, ST_CPY, ST_RE,
    ST_NFILE,               /* the types above appear in files */
    ST_VINIT = ST_NFILE,    /* in-place allgather: input -> its output slice */
    ST_VCOPY,               /* a <copy> element */
    ST_VFINI                /* in-place reduce_scatter: input slice -> output */
};

static const struct {
    const char *name;
    uint8_t sends, recvs, src, dst;   /* which parts and references it has */
} step_kinds[ST_NFILE] = {
    [ST_NOP] = {"nop", 0, 0, 0, 0},   [ST_S] = {"s", 1, 0, 1, 0},
    [ST_R] = {"r", 0, 1, 0, 1},       [ST_RCS] = {"rcs", 1, 1, 0, 1},
    [ST_RRC] = {"rrc", 0, 1, 1, 1},   [ST_RRCS] = {"rrcs", 1, 1, 1, 1},
    [ST_RRS] = {"rrs", 1, 1, 1, 0},   [ST_CPY] = {"cpy", 0, 0, 1, 1},
    [ST_RE] = {"re", 0, 0, 1, 1},
};

static const char *const buf_names[THEMIS_NBUFS] = {"input", "output", "scratch"};
static const char buf_letters[THEMIS_NBUFS] = {'i', 'o', 's'};

typedef struct {
    uint8_t type, src_buf, dst_buf;   /* buffers as in the schedule */
    int32_t tb;                       /* -1: virtual */
    uint32_t gpu, idx;                /* idx: step in tb, or copy number */
    uint64_t src_off, dst_off, cnt;
    int64_t depid, deps;              /* as in the file */
    uint32_t prev;                    /* program-order predecessor */
    uint32_t dep;                     /* depid/deps resolved */
    uint32_t peer;                    /* sending step: its receive */
    uint32_t from;                    /* receiving step: its send */
} mstep_t;

typedef struct {
    int32_t send, recv, chan;
    uint32_t gpu, id, first, n;
} mtb_t;

typedef struct {
    uint64_t raw[THEMIS_NBUFS];       /* i_chunks, o_chunks, s_chunks */
    uint32_t tb_first, ntb;
    uint32_t last_pro;                /* last virtual step before the tbs */
} mgpu_t;

typedef struct {
    char *why;
    size_t len;
    themis_msccl_info_t info;
    themis_coll_t coll;
    uint32_t P, nunits;
    int inplace;
    uint64_t bufu[THEMIS_NBUFS];      /* temporaries excluded */
    mgpu_t *gpus;
    mtb_t *tbs;
    uint32_t ntbs, cap_tbs;
    mstep_t *steps;
    uint32_t nsteps, cap_steps;
    uint32_t *pfirst, *preds;         /* HB predecessors, CSR */
    uint32_t *order;                  /* a topological order */
    uint64_t *reach;                  /* reach[v * words]: steps HB-before v */
    size_t words;
    int doctype_line;                 /* > 0: where a refused DOCTYPE is */
} ctx_t;

static themis_status_t fail(ctx_t *c, themis_status_t st, const char *fmt, ...)
{
    if (NULL != c->why && c->len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, c->len, fmt, ap);
        va_end(ap);
    }
    return st;
}

static int grow(void **p, uint32_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap) {
        return 0;
    }
    uint64_t n = *cap ? *cap : 64;
    while (n < need) {
        n *= 2;
    }
    if (n > UINT32_MAX) {
        return -1;
    }
    void *q = realloc(*p, (size_t) n * elem);
    if (NULL == q) {
        return -1;
    }
    *p = q;
    *cap = (uint32_t) n;
    return 0;
}

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

/* ------------------------------------------------------------ attributes */

static int is_elem(const xmlNode *n, const char *name)
{
    return XML_ELEMENT_NODE == n->type && 0 == strcmp((const char *) n->name, name);
}

static themis_status_t attr_int(ctx_t *c, xmlNode *n, const char *name, int required,
                                int64_t def, int64_t lo, int64_t hi, int64_t *out,
                                const char *where)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *) name);
    if (NULL == v) {
        *out = def;
        return required ? fail(c, THEMIS_ERR_PARSE, "%s: missing attribute %s", where, name)
                        : THEMIS_OK;
    }
    char *end;
    errno = 0;
    long long x = strtoll((const char *) v, &end, 10);
    themis_status_t st = THEMIS_OK;
    if (0 != errno || end == (char *) v || '\0' != *end || x < lo || x > hi) {
        st = fail(c, THEMIS_ERR_PARSE, "%s: %s=\"%.32s\" is not an integer in %" PRId64
                  "..%" PRId64, where, name, (const char *) v, lo, hi);
    }
    xmlFree(v);
    *out = x;
    return st;
}

/* The attribute's text (truncated to n - 1), "" when absent. */
static int attr_str(xmlNode *n, const char *name, char *buf, size_t len)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *) name);
    buf[0] = '\0';
    if (NULL == v) {
        return 0;
    }
    snprintf(buf, len, "%s", (const char *) v);
    xmlFree(v);
    return 1;
}

static themis_status_t attr_buf(ctx_t *c, xmlNode *n, const char *name, int *out,
                                const char *where)
{
    char v[16];
    if (!attr_str(n, name, v, sizeof(v))) {
        return fail(c, THEMIS_ERR_PARSE, "%s: missing attribute %s", where, name);
    }
    for (int b = 0; b < THEMIS_NBUFS; b++) {
        if ((buf_letters[b] == v[0] && '\0' == v[1]) || 0 == strcmp(v, buf_names[b])) {
            *out = b;
            return THEMIS_OK;
        }
    }
    return fail(c, THEMIS_ERR_PARSE, "%s: unknown buffer %s=\"%s\" (i, o or s)", where, name, v);
}

/* A reference of gpu g's file buffer `raw` into the schedule's buffers
 * (in-place aliasing, msccl.h). */
static themis_status_t map_ref(ctx_t *c, uint32_t g, int raw, int64_t off, int64_t cnt,
                               uint8_t *buf, uint64_t *moff, const char *where)
{
    uint64_t size = c->gpus[g].raw[raw];
    if (off < 0 || (uint64_t) off > size || (uint64_t) cnt > size - (uint64_t) off) {
        return fail(c, THEMIS_ERR_INVALID, "%s: %c[%" PRId64 "] + %" PRId64 " chunks is outside "
                    "the buffer (%" PRIu64 " chunks)", where, buf_letters[raw], off, cnt, size);
    }
    *buf = (uint8_t) raw;
    *moff = (uint64_t) off;
    if (c->inplace) {
        uint64_t slice = c->nunits / c->P;
        if (THEMIS_COLL_ALLREDUCE == c->coll && THEMIS_BUF_OUTPUT == raw) {
            *buf = THEMIS_BUF_INPUT;
        } else if (THEMIS_COLL_ALLGATHER == c->coll && THEMIS_BUF_INPUT == raw) {
            *buf = THEMIS_BUF_OUTPUT;
            *moff = g * slice + (uint64_t) off;
        } else if (THEMIS_COLL_REDUCE_SCATTER == c->coll && THEMIS_BUF_OUTPUT == raw) {
            *buf = THEMIS_BUF_INPUT;
            *moff = g * slice + (uint64_t) off;
        }
    }
    return THEMIS_OK;
}

/* ------------------------------------------------------------ parsing */

static themis_status_t new_step(ctx_t *c, uint32_t g, int32_t tb, uint32_t idx, uint8_t type,
                                uint32_t *id)
{
    if (c->nsteps >= THEMIS_MSCCL_MAX_STEPS + 2 * THEMIS_MSCCL_MAX_GPUS) {
        return fail(c, THEMIS_ERR_UNSUPPORTED, "too large: more than %u steps and copies",
                    THEMIS_MSCCL_MAX_STEPS);
    }
    if (0 != grow((void **) &c->steps, &c->cap_steps, c->nsteps + 1, sizeof(mstep_t))) {
        return fail(c, THEMIS_ERR_NOMEM, "out of memory");
    }
    mstep_t *s = &c->steps[c->nsteps];
    memset(s, 0, sizeof(*s));
    s->type = type;
    s->gpu = g;
    s->tb = tb;
    s->idx = idx;
    s->depid = s->deps = -1;
    s->prev = s->dep = s->peer = s->from = NONE;
    *id = c->nsteps++;
    return THEMIS_OK;
}

static themis_status_t parse_step(ctx_t *c, uint32_t g, mtb_t *tb, xmlNode *n, uint32_t k,
                                  uint32_t prev)
{
    char where[96], type[16];
    int64_t v;
    themis_status_t st;
    int is_op = is_elem(n, "op");

    snprintf(where, sizeof(where), "gpu %u tb %u step %u", g, tb->id, k);
    if (THEMIS_OK != (st = attr_int(c, n, is_op ? "step" : "s", 1, 0, 0, INT32_MAX, &v, where))) {
        return st;
    }
    if ((uint64_t) v != k) {
        return fail(c, THEMIS_ERR_PARSE, "gpu %u tb %u: step %" PRId64 " out of order (want %u)",
                    g, tb->id, v, k);
    }
    if (!attr_str(n, "type", type, sizeof(type))) {
        return fail(c, THEMIS_ERR_PARSE, "%s: missing attribute type", where);
    }
    int t = 0;
    while (t < ST_NFILE && 0 != strcmp(type, step_kinds[t].name)) {
        t++;
    }
    if (ST_NFILE == t) {
        return fail(c, THEMIS_ERR_PARSE, "%s: unknown step type '%s'", where, type);
    }
    if (step_kinds[t].sends && tb->send < 0) {
        return fail(c, THEMIS_ERR_INVALID, "%s: %s sends, but the thread block has no send peer",
                    where, type);
    }
    if (step_kinds[t].recvs && tb->recv < 0) {
        return fail(c, THEMIS_ERR_INVALID, "%s: %s receives, but the thread block has no "
                    "receive peer", where, type);
    }
    uint32_t id;
    if (THEMIS_OK != (st = new_step(c, g, (int32_t) tb->id, k, (uint8_t) t, &id))) {
        return st;
    }
    mstep_t *s = &c->steps[id];
    s->prev = prev;
    if (THEMIS_OK != (st = attr_int(c, n, "depid", 0, -1, -1, INT32_MAX, &s->depid, where)) ||
        THEMIS_OK != (st = attr_int(c, n, "deps", 0, -1, -1, INT32_MAX, &s->deps, where))) {
        return st;
    }
    if (ST_NOP == t) {
        return THEMIS_OK;
    }
    int64_t cnt, off;
    int raw;
    if (THEMIS_OK != (st = attr_int(c, n, "cnt", 1, 0, 1, THEMIS_MSCCL_MAX_CHUNKS, &cnt, where))) {
        return st;
    }
    s->cnt = (uint64_t) cnt;
    if (step_kinds[t].src) {
        if (THEMIS_OK != (st = attr_buf(c, n, "srcbuf", &raw, where)) ||
            THEMIS_OK != (st = attr_int(c, n, "srcoff", 1, 0, INT64_MIN, INT64_MAX, &off, where)) ||
            THEMIS_OK != (st = map_ref(c, g, raw, off, cnt, &s->src_buf, &s->src_off, where))) {
            return st;
        }
    }
    if (step_kinds[t].dst) {
        if (THEMIS_OK != (st = attr_buf(c, n, "dstbuf", &raw, where)) ||
            THEMIS_OK != (st = attr_int(c, n, "dstoff", 1, 0, INT64_MIN, INT64_MAX, &off, where)) ||
            THEMIS_OK != (st = map_ref(c, g, raw, off, cnt, &s->dst_buf, &s->dst_off, where))) {
            return st;
        }
    }
    return THEMIS_OK;
}

static themis_status_t parse_copy(ctx_t *c, uint32_t g, xmlNode *n, uint32_t k, uint32_t prev,
                                  uint32_t *id)
{
    char where[64];
    int64_t i_off, o_off, cnt;
    themis_status_t st;
    mstep_t s;

    snprintf(where, sizeof(where), "gpu %u copy %u", g, k);
    memset(&s, 0, sizeof(s));
    if (THEMIS_OK != (st = attr_int(c, n, "i_off", 1, 0, INT64_MIN, INT64_MAX, &i_off, where)) ||
        THEMIS_OK != (st = attr_int(c, n, "o_off", 1, 0, INT64_MIN, INT64_MAX, &o_off, where)) ||
        THEMIS_OK != (st = attr_int(c, n, "cnt", 0, 1, 1, THEMIS_MSCCL_MAX_CHUNKS, &cnt, where)) ||
        THEMIS_OK != (st = map_ref(c, g, THEMIS_BUF_INPUT, i_off, cnt, &s.src_buf, &s.src_off,
                                   where)) ||
        THEMIS_OK != (st = map_ref(c, g, THEMIS_BUF_OUTPUT, o_off, cnt, &s.dst_buf, &s.dst_off,
                                   where)) ||
        THEMIS_OK != (st = new_step(c, g, -1, k, ST_VCOPY, id))) {
        return st;
    }
    mstep_t *d = &c->steps[*id];
    d->src_buf = s.src_buf;
    d->src_off = s.src_off;
    d->dst_buf = s.dst_buf;
    d->dst_off = s.dst_off;
    /* in place, a copy onto itself says what the aliasing already does */
    d->cnt = (s.src_buf == s.dst_buf && s.src_off == s.dst_off) ? 0 : (uint64_t) cnt;
    d->prev = prev;
    return THEMIS_OK;
}

static themis_status_t parse_gpu(ctx_t *c, uint32_t g, xmlNode *gn)
{
    char where[64];
    themis_status_t st = THEMIS_OK;
    uint32_t ntb = 0, ncopy = 0, prev = NONE, id;
    mgpu_t *gp = &c->gpus[g];

    for (xmlNode *n = gn->children; NULL != n; n = n->next) {
        if (is_elem(n, "tb")) {
            ntb++;
        } else if (is_elem(n, "copy")) {
            ncopy++;
        } else if (XML_ELEMENT_NODE == n->type) {
            return fail(c, THEMIS_ERR_PARSE, "gpu %u: unexpected element <%s>", g,
                        (const char *) n->name);
        }
    }
    if (THEMIS_COLL_ALLGATHER == c->coll && c->inplace) {
        if (THEMIS_OK != (st = new_step(c, g, -1, 0, ST_VINIT, &id))) {
            return st;
        }
        mstep_t *s = &c->steps[id];
        s->src_buf = THEMIS_BUF_INPUT;
        s->dst_buf = THEMIS_BUF_OUTPUT;
        s->cnt = c->nunits / c->P;
        s->dst_off = g * s->cnt;
        prev = id;
    }
    ncopy = 0;
    for (xmlNode *n = gn->children; NULL != n; n = n->next) {
        if (is_elem(n, "copy")) {
            if (THEMIS_OK != (st = parse_copy(c, g, n, ncopy++, prev, &id))) {
                return st;
            }
            prev = id;
        }
    }
    c->info.ncopies += ncopy;
    gp->last_pro = prev;

    /* thread blocks by id */
    xmlNode **tbn = calloc(ntb ? ntb : 1, sizeof(*tbn));
    if (NULL == tbn) {
        return fail(c, THEMIS_ERR_NOMEM, "out of memory");
    }
    for (xmlNode *n = gn->children; NULL != n && THEMIS_OK == st; n = n->next) {
        int64_t tid;
        if (!is_elem(n, "tb")) {
            continue;
        }
        snprintf(where, sizeof(where), "gpu %u <tb>", g);
        if (THEMIS_OK != (st = attr_int(c, n, "id", 1, 0, INT32_MIN, INT32_MAX, &tid, where))) {
            break;
        }
        if (tid < 0 || (uint64_t) tid >= ntb) {
            st = fail(c, THEMIS_ERR_PARSE, "gpu %u: tb ids must be 0..%u (tb id %" PRId64 ")", g,
                      ntb - 1, tid);
        } else if (NULL != tbn[tid]) {
            st = fail(c, THEMIS_ERR_PARSE, "gpu %u: duplicate tb id %" PRId64, g, tid);
        } else {
            tbn[tid] = n;
        }
    }
    if (0 != grow((void **) &c->tbs, &c->cap_tbs, (uint64_t) c->ntbs + ntb, sizeof(mtb_t))) {
        st = fail(c, THEMIS_ERR_NOMEM, "out of memory");
    }
    gp->tb_first = c->ntbs;
    gp->ntb = ntb;
    for (uint32_t t = 0; t < ntb && THEMIS_OK == st; t++) {
        mtb_t *tb = &c->tbs[c->ntbs++];
        int64_t send, recv, chan;
        snprintf(where, sizeof(where), "gpu %u tb %u", g, t);
        memset(tb, 0, sizeof(*tb));
        tb->gpu = g;
        tb->id = t;
        if (THEMIS_OK != (st = attr_int(c, tbn[t], "send", 1, 0, -1, c->P - 1, &send, where)) ||
            THEMIS_OK != (st = attr_int(c, tbn[t], "recv", 1, 0, -1, c->P - 1, &recv, where)) ||
            THEMIS_OK != (st = attr_int(c, tbn[t], "chan", 0, 0, 0, 65535, &chan, where))) {
            break;
        }
        if ((int64_t) g == send || (int64_t) g == recv) {
            st = fail(c, THEMIS_ERR_INVALID, "%s: %s itself", where,
                      (int64_t) g == send ? "sends to" : "receives from");
            break;
        }
        tb->send = (int32_t) send;
        tb->recv = (int32_t) recv;
        tb->chan = (int32_t) chan;
        tb->first = c->nsteps;
        uint32_t k = 0, p = gp->last_pro;
        for (xmlNode *n = tbn[t]->children; NULL != n && THEMIS_OK == st; n = n->next) {
            if (is_elem(n, "step") || is_elem(n, "op")) {
                if (THEMIS_OK == (st = parse_step(c, g, tb, n, k++, p))) {
                    p = c->nsteps - 1;
                }
            } else if (XML_ELEMENT_NODE == n->type) {
                st = fail(c, THEMIS_ERR_PARSE, "%s: unexpected element <%s>", where,
                          (const char *) n->name);
            }
        }
        tb->n = k;
        c->info.nsteps += k;
    }
    free(tbn);
    if (THEMIS_OK != st) {
        return st;
    }
    if (c->info.nsteps + c->info.ncopies > THEMIS_MSCCL_MAX_STEPS) {
        return fail(c, THEMIS_ERR_UNSUPPORTED, "too large: more than %u steps and copies",
                    THEMIS_MSCCL_MAX_STEPS);
    }
    /* depid/deps name a step of another thread block of this gpu */
    for (uint32_t t = 0; t < ntb; t++) {
        const mtb_t *tb = &c->tbs[gp->tb_first + t];
        for (uint32_t k = 0; k < tb->n; k++) {
            mstep_t *s = &c->steps[tb->first + k];
            if (s->depid < 0) {
                continue;
            }
            if ((uint64_t) s->depid >= ntb || s->deps < 0 ||
                (uint64_t) s->deps >= c->tbs[gp->tb_first + s->depid].n) {
                return fail(c, THEMIS_ERR_INVALID, "gpu %u tb %u step %u: depends on tb %" PRId64
                            " step %" PRId64 ", which does not exist", g, t, k, s->depid,
                            s->deps);
            }
            s->dep = c->tbs[gp->tb_first + s->depid].first + (uint32_t) s->deps;
        }
    }
    if (THEMIS_COLL_REDUCE_SCATTER == c->coll && c->inplace) {
        if (THEMIS_OK != (st = new_step(c, g, -1, 0, ST_VFINI, &id))) {
            return st;
        }
        mstep_t *s = &c->steps[id];
        s->src_buf = THEMIS_BUF_INPUT;
        s->dst_buf = THEMIS_BUF_OUTPUT;
        s->cnt = c->nunits / c->P;
        s->src_off = g * s->cnt;
    }
    return THEMIS_OK;
}

/* Sizes of the collective (msccl.h, Units). */
static themis_status_t check_sizes(ctx_t *c)
{
    uint32_t n = c->nunits, P = c->P;
    uint64_t want_i = n, want_o = n;
    const char *coll = themis_coll_name(c->coll);

    if (THEMIS_COLL_ALLREDUCE != c->coll) {
        if (0 != n % P) {
            return fail(c, THEMIS_ERR_INVALID, "%s: nchunksperloop=%u does not divide by "
                        "ngpus=%u", coll, n, P);
        }
        if (THEMIS_COLL_ALLGATHER == c->coll) {
            want_i = n / P;
        } else {
            want_o = n / P;
        }
    }
    for (uint32_t g = 0; g < P; g++) {
        const uint64_t *r = c->gpus[g].raw;
        /* in place, MSCCL may leave the aliased buffer at 0 chunks */
        int ok_i = want_i == r[0] ||
                   (c->inplace && THEMIS_COLL_ALLGATHER == c->coll && 0 == r[0]);
        int ok_o = want_o == r[1] || (c->inplace && THEMIS_COLL_ALLGATHER != c->coll && 0 == r[1]);
        if (!ok_i || !ok_o) {
            return fail(c, THEMIS_ERR_INVALID, "%s with nchunksperloop=%u on %u gpus wants "
                        "i_chunks=%" PRIu64 " o_chunks=%" PRIu64 "%s; gpu %u has %" PRIu64
                        " and %" PRIu64, coll, n, P, want_i, want_o,
                        c->inplace ? " (or 0 for the aliased one)" : "", g, r[0], r[1]);
        }
        if (r[2] > c->bufu[THEMIS_BUF_SCRATCH]) {
            c->bufu[THEMIS_BUF_SCRATCH] = r[2];
        }
    }
    c->bufu[THEMIS_BUF_INPUT] = want_i;
    c->bufu[THEMIS_BUF_OUTPUT] = (THEMIS_COLL_ALLREDUCE == c->coll && c->inplace) ? 0 : want_o;
    uint64_t per = c->bufu[0] + c->bufu[1] + c->bufu[2];
    if (per * P > THEMIS_MSCCL_MAX_UNITS) {
        return fail(c, THEMIS_ERR_UNSUPPORTED, "too large: %u gpus x %" PRIu64 " chunks "
                    "(limit %u)", P, per, THEMIS_MSCCL_MAX_UNITS);
    }
    return THEMIS_OK;
}

static themis_status_t parse_algo(ctx_t *c, xmlNode *root)
{
    const char *w = "<algo>";
    char coll[32];
    int64_t v;
    themis_status_t st;

    if (NULL == root || !is_elem(root, "algo")) {
        return fail(c, THEMIS_ERR_PARSE, "root element is <%s>, want <algo>",
                    NULL == root ? "" : (const char *) root->name);
    }
    attr_str(root, "name", c->info.name, sizeof(c->info.name));
    attr_str(root, "proto", c->info.proto, sizeof(c->info.proto));
    attr_str(root, "redop", c->info.redop, sizeof(c->info.redop));
    if (!attr_str(root, "coll", coll, sizeof(coll))) {
        return fail(c, THEMIS_ERR_PARSE, "%s: missing attribute coll", w);
    }
    if (0 == strcmp(coll, "allreduce")) {
        c->coll = THEMIS_COLL_ALLREDUCE;
    } else if (0 == strcmp(coll, "allgather")) {
        c->coll = THEMIS_COLL_ALLGATHER;
    } else if (0 == strcmp(coll, "reduce_scatter") || 0 == strcmp(coll, "reducescatter")) {
        c->coll = THEMIS_COLL_REDUCE_SCATTER;
    } else {
        return fail(c, THEMIS_ERR_UNSUPPORTED, "collective '%s' is not supported (allreduce, "
                    "allgather, reduce_scatter)", coll);
    }
    c->info.coll = c->coll;
    if (THEMIS_OK != (st = attr_int(c, root, "ngpus", 1, 0, 1, THEMIS_MSCCL_MAX_GPUS, &v, w))) {
        return st;
    }
    c->P = c->info.ngpus = (uint32_t) v;
    if (THEMIS_OK != (st = attr_int(c, root, "nchunksperloop", 0, 0, 1, THEMIS_MSCCL_MAX_CHUNKS,
                                    &v, w))) {
        return st;
    }
    c->nunits = (uint32_t) v;
    if (THEMIS_OK != (st = attr_int(c, root, "nchannels", 0, 1, 0, 65536, &v, w))) {
        return st;
    }
    c->info.nchannels = (uint32_t) v;
    if (THEMIS_OK != (st = attr_int(c, root, "inplace", 0, 0, 0, 1, &v, w))) {
        return st;
    }
    c->inplace = c->info.inplace = (int) v;
    if (THEMIS_OK != (st = attr_int(c, root, "minBytes", 0, 0, 0, INT64_MAX, &v, w))) {
        return st;
    }
    c->info.min_bytes = (uint64_t) v;
    if (THEMIS_OK != (st = attr_int(c, root, "maxBytes", 0, -1, 0, INT64_MAX, &v, w))) {
        return st;
    }
    c->info.max_bytes = v < 0 ? UINT64_MAX : (uint64_t) v;

    /* gpus by id */
    xmlNode **gn = calloc(c->P, sizeof(*gn));
    c->gpus = calloc(c->P, sizeof(*c->gpus));
    if (NULL == gn || NULL == c->gpus) {
        free(gn);
        return fail(c, THEMIS_ERR_NOMEM, "out of memory");
    }
    uint32_t count = 0;
    st = THEMIS_OK;
    for (xmlNode *n = root->children; NULL != n && THEMIS_OK == st; n = n->next) {
        int64_t id, chunks[THEMIS_NBUFS];
        static const char *const attrs[THEMIS_NBUFS] = {"i_chunks", "o_chunks", "s_chunks"};
        if (XML_ELEMENT_NODE != n->type) {
            continue;
        }
        if (!is_elem(n, "gpu")) {
            st = fail(c, THEMIS_ERR_PARSE, "<algo>: unexpected element <%s>",
                      (const char *) n->name);
            break;
        }
        if (THEMIS_OK != (st = attr_int(c, n, "id", 1, 0, INT32_MIN, INT32_MAX, &id, "<gpu>"))) {
            break;
        }
        if (id < 0 || id >= c->P) {
            st = fail(c, THEMIS_ERR_PARSE, "gpu ids must be 0..%u (ngpus=%u): gpu id %" PRId64,
                      c->P - 1, c->P, id);
            break;
        }
        if (NULL != gn[id]) {
            st = fail(c, THEMIS_ERR_PARSE, "duplicate gpu id %" PRId64, id);
            break;
        }
        gn[id] = n;
        count++;
        char where[32];
        snprintf(where, sizeof(where), "gpu %" PRId64, id);
        for (int b = 0; b < THEMIS_NBUFS && THEMIS_OK == st; b++) {
            st = attr_int(c, n, attrs[b], 1, 0, 0, THEMIS_MSCCL_MAX_CHUNKS, &chunks[b], where);
            c->gpus[id].raw[b] = (uint64_t) chunks[b];
        }
    }
    if (THEMIS_OK == st && count != c->P) {
        st = fail(c, THEMIS_ERR_PARSE, "ngpus=%u but %u <gpu> elements", c->P, count);
    }
    if (THEMIS_OK == st && 0 == c->nunits) {
        /* the newer format leaves it out: MSCCL's runtime takes the largest buffer */
        for (uint32_t g = 0; g < c->P; g++) {
            for (int b = 0; b < 2; b++) {
                if (c->gpus[g].raw[b] > c->nunits) {
                    c->nunits = (uint32_t) c->gpus[g].raw[b];
                }
            }
        }
        if (0 == c->nunits) {
            st = fail(c, THEMIS_ERR_INVALID, "no nchunksperloop and no buffer has chunks");
        }
    }
    c->info.nchunksperloop = c->nunits;
    if (THEMIS_OK == st) {
        st = check_sizes(c);
    }
    for (uint32_t g = 0; g < c->P && THEMIS_OK == st; g++) {
        st = parse_gpu(c, g, gn[g]);
    }
    free(gn);
    c->info.ntbs = c->ntbs;
    return st;
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
        n += sends ? step_kinds[s->type].sends : step_kinds[s->type].recvs;
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
        while (i < st->n && !step_kinds[c->steps[st->first + i].type].sends) {
            i++;
        }
        while (j < rt->n && !step_kinds[c->steps[rt->first + j].type].recvs) {
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
 * step) first, which is the smallest id. */
static void heap_push(uint32_t *h, uint32_t *n, uint32_t v)
{
    uint32_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2] > v) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static uint32_t heap_pop(uint32_t *h, uint32_t *n)
{
    uint32_t top = h[0], v = h[--(*n)], i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, m = l;
        if (l >= *n) {
            break;
        }
        if (l + 1 < *n && h[l + 1] < h[l]) {
            m = l + 1;
        }
        if (h[m] >= v) {
            break;
        }
        h[i] = h[m];
        i = m;
    }
    if (*n > 0) {
        h[i] = v;
    }
    return top;
}

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

    uint32_t nh = 0, done = 0;
    for (uint32_t v = 0; v < N; v++) {
        if (0 == indeg[v]) {
            heap_push(heap, &nh, v);
        }
    }
    while (nh > 0) {
        uint32_t v = heap_pop(heap, &nh);
        c->order[done++] = v;
        for (uint32_t e = sfirst[v]; e < sfirst[v + 1]; e++) {
            if (0 == --indeg[succ[e]]) {
                heap_push(heap, &nh, succ[e]);
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
                "access it without an order between them", g, buf_names[b], unit,
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
                    buf_names[db], dof, dof + cnt, so, so + cnt);
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

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return x < y ? -1 : x > y;
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
                        buf_names[o->b], o->unit, o->g, k, g);
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

/* The schedule of the expansion, in canonical order; rfirst/rdeps (CSR over
 * new indices): each transfer's receive-side dependencies; rstep: its
 * receiving step (NONE for local ones). */
typedef struct {
    uint32_t *rfirst, *rdeps, *rstep;
} rside_t;

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
        qsort(buf, nd, sizeof(uint32_t), u32_cmp);
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

/* ------------------------------------------------------------ exported layout */

/* The thread blocks of the export: node 2i is transfer i's send (or local)
 * side, 2i + 1 its receive side. */
typedef struct {
    uint32_t nnodes, ntb;
    uint32_t *tb;           /* node -> global thread block, NONE unused */
    uint64_t *keys;         /* global thread block -> rank * (2P + 1) + key */
    uint32_t *tbprev;       /* node -> previous node of its thread block */
} layout_t;

static int is_local(const themis_xfer_t *x)
{
    return x->src == x->dst;
}

static uint64_t node_key(const themis_xfer_sched_t *s, uint32_t node)
{
    const themis_xfer_t *x = &s->xfers[node / 2];
    uint64_t P = s->nranks, per = 2 * P + 1;
    if (is_local(x)) {
        return x->src * per + 2 * P;
    }
    return 0 == node % 2 ? x->src * per + x->dst : x->dst * per + P + x->src;
}

static uint32_t node_rank(const themis_xfer_sched_t *s, uint32_t node)
{
    const themis_xfer_t *x = &s->xfers[node / 2];
    return 0 == node % 2 ? x->src : x->dst;
}

/* Transfer d's node on rank g, NONE when d does not touch g. */
static uint32_t node_on(const themis_xfer_sched_t *s, uint32_t d, uint32_t g)
{
    const themis_xfer_t *x = &s->xfers[d];
    if (x->src == g) {
        return 2 * d;
    }
    return x->dst == g ? 2 * d + 1 : NONE;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

static void layout_free(layout_t *l)
{
    free(l->tb);
    free(l->keys);
    free(l->tbprev);
    memset(l, 0, sizeof(*l));
}

static themis_status_t layout_build(const themis_xfer_sched_t *s, layout_t *l)
{
    uint32_t *last = NULL;
    memset(l, 0, sizeof(*l));
    l->nnodes = 2 * s->nxfers;
    l->tb = malloc(((size_t) l->nnodes + 1) * sizeof(uint32_t));
    l->tbprev = malloc(((size_t) l->nnodes + 1) * sizeof(uint32_t));
    l->keys = malloc(((size_t) l->nnodes + 1) * sizeof(uint64_t));
    if (NULL == l->tb || NULL == l->tbprev || NULL == l->keys) {
        layout_free(l);
        return THEMIS_ERR_NOMEM;
    }
    uint32_t nk = 0;
    for (uint32_t v = 0; v < l->nnodes; v++) {
        if (0 == v % 2 || !is_local(&s->xfers[v / 2])) {
            l->keys[nk++] = node_key(s, v);
        }
    }
    qsort(l->keys, nk, sizeof(uint64_t), u64_cmp);
    for (uint32_t k = 0; k < nk; k++) {
        if (0 == l->ntb || l->keys[l->ntb - 1] != l->keys[k]) {
            l->keys[l->ntb++] = l->keys[k];
        }
    }
    last = malloc(((size_t) l->ntb + 1) * sizeof(uint32_t));
    if (NULL == last) {
        layout_free(l);
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t t = 0; t < l->ntb; t++) {
        last[t] = NONE;
    }
    for (uint32_t v = 0; v < l->nnodes; v++) {
        l->tb[v] = l->tbprev[v] = NONE;
        if (1 == v % 2 && is_local(&s->xfers[v / 2])) {
            continue;
        }
        uint64_t key = node_key(s, v);
        const uint64_t *hit = bsearch(&key, l->keys, l->ntb, sizeof(uint64_t), u64_cmp);
        l->tb[v] = (uint32_t) (hit - l->keys);
        l->tbprev[v] = last[l->tb[v]];
        last[l->tb[v]] = v;
    }
    free(last);
    return THEMIS_OK;
}

/* Receives whose receive-side dependencies are not all HB-before their send
 * in the exported form: marks their receiving steps in forced.  Returns how
 * many, or -1 when out of memory. */
static int export_violations(const themis_xfer_sched_t *s, const rside_t *rs, uint8_t *forced)
{
    layout_t l;
    uint32_t *stamp = NULL, *stack = NULL;
    int found = 0;

    if (THEMIS_OK != layout_build(s, &l)) {
        return -1;
    }
    stamp = calloc((size_t) l.nnodes + 1, sizeof(uint32_t));
    stack = malloc(((size_t) l.nnodes + 1) * sizeof(uint32_t));
    if (NULL == stamp || NULL == stack) {
        found = -1;
        goto out;
    }
    for (uint32_t i = 0; i < s->nxfers; i++) {
        uint32_t lo = UINT32_MAX, ns = 0;
        if (rs->rfirst[i] == rs->rfirst[i + 1]) {
            continue;
        }
        for (uint32_t k = rs->rfirst[i]; k < rs->rfirst[i + 1]; k++) {
            lo = rs->rdeps[k] < lo ? rs->rdeps[k] : lo;
        }
        /* ancestors of i's send node: edges only go to later transfers, so
         * nodes of transfers before lo cannot lead to a dependency */
        stack[ns++] = 2 * i;
        stamp[2 * i] = i + 1;
        while (ns > 0) {
            uint32_t v = stack[--ns], g = node_rank(s, v);
            const themis_xfer_t *x = &s->xfers[v / 2];
            uint32_t cand[2] = {l.tbprev[v], 1 == v % 2 ? v - 1 : NONE};
            for (uint32_t k = 0; k < 2 + x->ndeps; k++) {
                uint32_t p = k < 2 ? cand[k] : node_on(s, s->deps[x->dep_first + k - 2], g);
                if (NONE != p && p / 2 >= lo && stamp[p] != i + 1) {
                    stamp[p] = i + 1;
                    stack[ns++] = p;
                }
            }
        }
        for (uint32_t k = rs->rfirst[i]; k < rs->rfirst[i + 1]; k++) {
            if (stamp[2 * rs->rdeps[k]] != i + 1) {
                forced[rs->rstep[i]] = 1;
                found++;
                break;
            }
        }
    }
out:
    free(stamp);
    free(stack);
    layout_free(&l);
    return found;
}

/* ------------------------------------------------------------ import */

static void ctx_free(ctx_t *c)
{
    free(c->gpus);
    free(c->tbs);
    free(c->steps);
    free(c->pfirst);
    free(c->preds);
    free(c->order);
    free(c->reach);
}

static themis_status_t build(ctx_t *c, themis_xfer_sched_t *out)
{
    uint8_t *forced = calloc((size_t) c->nsteps + 1, 1);
    themis_status_t st = THEMIS_OK;
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
            more = export_violations(out, &rs, forced);
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

/* SAX: a DOCTYPE stops the parse before any entity is declared or used
 * (expansion of internal entities costs time and memory by design). */
static void refuse_doctype(void *ctx, const xmlChar *name, const xmlChar *ext,
                           const xmlChar *sys)
{
    xmlParserCtxt *px = ctx;
    ctx_t *c = px->_private;
    (void) name;
    (void) ext;
    (void) sys;
    c->doctype_line = px->input != NULL && px->input->line > 0 ? px->input->line : 1;
    xmlStopParser(px);
}

themis_status_t themis_msccl_parse(const char *text, size_t size, themis_xfer_sched_t *out,
                                   themis_msccl_info_t *info, char *why, size_t len)
{
    ctx_t c;
    themis_status_t st;

    memset(&c, 0, sizeof(c));
    memset(out, 0, sizeof(*out));
    c.why = why;
    c.len = len;
    if (NULL != why && len > 0) {
        why[0] = '\0';
    }
    if (size > THEMIS_MSCCL_MAX_FILE) {
        return fail(&c, THEMIS_ERR_UNSUPPORTED, "too large: more than %u bytes",
                    THEMIS_MSCCL_MAX_FILE);
    }
    xmlParserCtxt *px = xmlNewParserCtxt();
    if (NULL == px) {
        return fail(&c, THEMIS_ERR_NOMEM, "out of memory");
    }
    px->sax->internalSubset = refuse_doctype;
    px->_private = &c;
    xmlResetLastError();
    xmlDoc *doc = xmlCtxtReadMemory(px, text, (int) size, "msccl.xml", NULL,
                                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (c.doctype_line > 0) {
        xmlFreeDoc(doc);
        xmlFreeParserCtxt(px);
        xmlResetLastError();
        return fail(&c, THEMIS_ERR_PARSE, "line %d: a DOCTYPE declaration: MSCCL-XML has no "
                    "DTD or entities, files with one are refused", c.doctype_line);
    }
    if (NULL == doc) {
        const xmlError *x = xmlGetLastError();
        char msg[160] = "empty";
        int line = 0;
        if (NULL != x && NULL != x->message) {
            snprintf(msg, sizeof(msg), "%s", x->message);
            msg[strcspn(msg, "\n")] = '\0';
            line = x->line;
        }
        xmlFreeParserCtxt(px);
        xmlResetLastError();
        /* libxml2's limits (nesting 256, text 10 MB) suggest an option
         * that this reader does not offer: say it is a limit instead. */
        char *huge = strstr(msg, "use XML_PARSE_HUGE");
        if (NULL != huge) {
            snprintf(huge, sizeof(msg) - (size_t) (huge - msg), "(a limit of this reader)");
        }
        return fail(&c, THEMIS_ERR_PARSE, "not XML: line %d: %s", line, msg);
    }
    xmlFreeParserCtxt(px);
    st = parse_algo(&c, xmlDocGetRootElement(doc));
    xmlFreeDoc(doc);
    if (THEMIS_OK == st) {
        st = match_messages(&c);
    }
    if (THEMIS_OK == st) {
        st = build_hb(&c);
    }
    if (THEMIS_OK == st) {
        st = build(&c, out);
    }
    if (THEMIS_OK == st) {
        c.info.nxfers = out->nxfers;
        c.info.extra_scratch = out->buf_units[THEMIS_BUF_SCRATCH] - c.bufu[THEMIS_BUF_SCRATCH];
        if (NULL != info) {
            *info = c.info;
        }
    }
    ctx_free(&c);
    return st;
}

themis_status_t themis_msccl_load(const char *path, themis_xfer_sched_t *out,
                                  themis_msccl_info_t *info, char *why, size_t len)
{
    themis_parse_error_t e;
    char *buf;

    memset(out, 0, sizeof(*out));
    themis_status_t st = themis_read_text_file(path, THEMIS_MSCCL_MAX_FILE, "MSCCL-XML file",
                                               &buf, &e);
    if (THEMIS_OK != st) {
        snprintf(why, len, "%s", e.message);
        return st;
    }
    st = themis_msccl_parse(buf, strlen(buf), out, info, why, len);
    free(buf);
    return st;
}

/* ------------------------------------------------------------ export */

typedef struct {
    uint32_t tb, step;      /* global thread block, index in it */
    uint32_t node;          /* NONE: a nop */
    uint32_t dep_tb, dep_step;   /* NONE: no depid */
} entry_t;

static int entry_cmp(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    if (x->tb != y->tb) {
        return x->tb < y->tb ? -1 : 1;
    }
    return x->step < y->step ? -1 : x->step > y->step;
}

static void put_name(FILE *f, const char *s)
{
    for (; '\0' != *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static void put_step(FILE *f, uint32_t idx, const char *type, int sb, int64_t so, int db,
                     int64_t dof, uint64_t cnt, int64_t depid, int64_t deps, int hasdep)
{
    fprintf(f, "      <step s=\"%u\" type=\"%s\" srcbuf=\"%c\" srcoff=\"%" PRId64 "\" "
            "dstbuf=\"%c\" dstoff=\"%" PRId64 "\" cnt=\"%" PRIu64 "\" depid=\"%" PRId64 "\" "
            "deps=\"%" PRId64 "\" hasdep=\"%d\"/>\n", idx, type, buf_letters[sb], so,
            buf_letters[db], dof, cnt, depid, deps, hasdep);
}

themis_status_t themis_msccl_write(const themis_xfer_sched_t *s, FILE *f)
{
    const uint64_t P = s->nranks, per = 2 * P + 1;
    int inplace = THEMIS_BUF_INPUT == s->result_buf;
    layout_t l;
    entry_t *ent = NULL;
    uint32_t nent = 0, cap = 0, *count = NULL, *rank_first = NULL, *dl = NULL;
    uint32_t *node_step = NULL;
    uint8_t *hasdep = NULL;
    themis_status_t st = THEMIS_OK;

    if (inplace && (THEMIS_COLL_ALLREDUCE != s->coll || 0 != s->buf_units[THEMIS_BUF_OUTPUT])) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    if (THEMIS_OK != layout_build(s, &l)) {
        return THEMIS_ERR_NOMEM;
    }
    count = calloc((size_t) l.ntb + 1, sizeof(uint32_t));
    rank_first = calloc((size_t) P + 1, sizeof(uint32_t));
    node_step = malloc(((size_t) l.nnodes + 1) * sizeof(uint32_t));
    hasdep = calloc((size_t) l.nnodes + 1, 1);
    dl = malloc(((size_t) s->ndeps + 1) * sizeof(uint32_t));
    if (NULL == count || NULL == rank_first || NULL == node_step || NULL == hasdep || NULL == dl) {
        st = THEMIS_ERR_NOMEM;
        goto out;
    }
    for (uint32_t t = l.ntb; t > 0; t--) {
        rank_first[l.keys[t - 1] / per] = t - 1;
    }
    /* steps in list order; cross-tb waits as depid/deps, nops for extra ones */
    for (uint32_t v = 0; v < l.nnodes; v++) {
        if (NONE == l.tb[v]) {
            continue;
        }
        const themis_xfer_t *x = &s->xfers[v / 2];
        uint32_t g = node_rank(s, v), T = l.tb[v], nd = 0;
        for (uint32_t k = 0; k < x->ndeps; k++) {
            uint32_t m = node_on(s, s->deps[x->dep_first + k], g);
            if (NONE != m && l.tb[m] != T) {
                dl[nd++] = m;
                hasdep[m] = 1;
            }
        }
        if (0 != grow((void **) &ent, &cap, (uint64_t) nent + nd + 1, sizeof(entry_t))) {
            st = THEMIS_ERR_NOMEM;
            goto out;
        }
        for (uint32_t k = 0; k < nd || 0 == k; k++) {
            entry_t *e = &ent[nent++];
            int last = k + 1 >= nd;
            e->tb = T;
            e->step = count[T]++;
            e->node = last ? v : NONE;
            e->dep_tb = nd > 0 ? l.tb[dl[k]] - rank_first[g] : NONE;
            e->dep_step = nd > 0 ? node_step[dl[k]] : NONE;
            if (last) {
                node_step[v] = e->step;
                break;
            }
        }
    }
    if (nent > 0) {
        qsort(ent, nent, sizeof(entry_t), entry_cmp);
    }

    fprintf(f, "<algo name=\"");
    put_name(f, s->name);
    fprintf(f, "\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"%u\" ngpus=\"%u\" "
            "coll=\"%s\" inplace=\"%d\" redop=\"nop\">\n", s->nunits, s->nranks, themis_coll_name(s->coll),
            inplace);
    uint32_t t = 0, k = 0;
    for (uint32_t g = 0; g < P; g++) {
        fprintf(f, "  <gpu id=\"%u\" i_chunks=\"%" PRIu64 "\" o_chunks=\"%" PRIu64 "\" "
                "s_chunks=\"%" PRIu64 "\">\n", g, s->buf_units[THEMIS_BUF_INPUT],
                s->buf_units[THEMIS_BUF_OUTPUT], s->buf_units[THEMIS_BUF_SCRATCH]);
        for (; t < l.ntb && l.keys[t] / per == g; t++) {
            uint64_t key = l.keys[t] % per;
            int64_t send = key < P ? (int64_t) key : -1;
            int64_t recv = key >= P && key < 2 * P ? (int64_t) (key - P) : -1;
            fprintf(f, "    <tb id=\"%u\" send=\"%" PRId64 "\" recv=\"%" PRId64 "\" chan=\"0\">\n",
                    t - rank_first[g], send, recv);
            for (; k < nent && ent[k].tb == t; k++) {
                const entry_t *e = &ent[k];
                int64_t depid = NONE == e->dep_tb ? -1 : (int64_t) e->dep_tb;
                int64_t deps = NONE == e->dep_step ? -1 : (int64_t) e->dep_step;
                if (NONE == e->node) {
                    put_step(f, e->step, "nop", THEMIS_BUF_INPUT, -1, THEMIS_BUF_OUTPUT, -1, 0,
                             depid, deps, 0);
                    continue;
                }
                const themis_xfer_t *x = &s->xfers[e->node / 2];
                const char *type = is_local(x) ? (THEMIS_XFER_COPY == x->kind ? "cpy" : "re")
                                   : 0 == e->node % 2 ? "s"
                                   : THEMIS_XFER_COPY == x->kind ? "r" : "rrc";
                int recv_reduce = 1 == e->node % 2 && THEMIS_XFER_REDUCE == x->kind;
                put_step(f, e->step, type, recv_reduce ? x->dst_buf : x->src_buf,
                         (int64_t) (recv_reduce ? x->dst_off : x->src_off), x->dst_buf,
                         (int64_t) x->dst_off, x->count, depid, deps, hasdep[e->node]);
            }
            fprintf(f, "    </tb>\n");
        }
        fprintf(f, "  </gpu>\n");
    }
    fprintf(f, "</algo>\n");
    if (ferror(f)) {
        st = THEMIS_ERR_IO;
    }
out:
    free(ent);
    free(count);
    free(rank_first);
    free(node_step);
    free(hasdep);
    free(dl);
    layout_free(&l);
    return st;
}
