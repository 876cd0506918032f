/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MSCCL-XML export (msccl.h): a transfer schedule as thread blocks and
 * steps, and the check the import makes that a schedule can be exported.
 */
#include "msccl_internal.h"

#include <inttypes.h>
#include <string.h>

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
int themis_msccl_export_violations(const themis_xfer_sched_t *s, const rside_t *rs,
                                   uint8_t *forced)
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
            "deps=\"%" PRId64 "\" hasdep=\"%d\"/>\n", idx, type, themis_msccl_buf_letters[sb], so,
            themis_msccl_buf_letters[db], dof, cnt, depid, deps, hasdep);
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
