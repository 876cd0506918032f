/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MSCCL-XML import (msccl.h): the file's elements and attributes, checked,
 * into steps (msccl_internal.h); msccl.c gives them their meaning.
 */
#include "msccl_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

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
        if ((themis_msccl_buf_letters[b] == v[0] && '\0' == v[1]) || 0 == strcmp(v, themis_msccl_buf_names[b])) {
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
                    "the buffer (%" PRIu64 " chunks)", where, themis_msccl_buf_letters[raw], off, cnt, size);
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
    while (t < ST_NFILE && 0 != strcmp(type, themis_msccl_step_kinds[t].name)) {
        t++;
    }
    if (ST_NFILE == t) {
        return fail(c, THEMIS_ERR_PARSE, "%s: unknown step type '%s'", where, type);
    }
    if (themis_msccl_step_kinds[t].sends && tb->send < 0) {
        return fail(c, THEMIS_ERR_INVALID, "%s: %s sends, but the thread block has no send peer",
                    where, type);
    }
    if (themis_msccl_step_kinds[t].recvs && tb->recv < 0) {
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
    if (themis_msccl_step_kinds[t].src) {
        if (THEMIS_OK != (st = attr_buf(c, n, "srcbuf", &raw, where)) ||
            THEMIS_OK != (st = attr_int(c, n, "srcoff", 1, 0, INT64_MIN, INT64_MAX, &off, where)) ||
            THEMIS_OK != (st = map_ref(c, g, raw, off, cnt, &s->src_buf, &s->src_off, where))) {
            return st;
        }
    }
    if (themis_msccl_step_kinds[t].dst) {
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
        st = themis_msccl_schedule(&c, out);
    }
    if (THEMIS_OK == st) {
        c.info.nxfers = out->nxfers;
        c.info.extra_scratch = out->buf_units[THEMIS_BUF_SCRATCH] - c.bufu[THEMIS_BUF_SCRATCH];
        if (NULL != info) {
            *info = c.info;
        }
    }
    themis_msccl_ctx_free(&c);
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
