/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MSCCL-XML export (msccl.h): a transfer schedule as thread blocks and
 * steps, on the layout of msccl_layout.c.  CLI and tests only: it is in the
 * offline library, not in the component.
 */
#include "msccl_internal.h"

#include <inttypes.h>
#include <string.h>

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
    themis_msccl_layout_t l;
    entry_t *ent = NULL;
    uint32_t nent = 0, cap = 0, *count = NULL, *rank_first = NULL, *dl = NULL;
    uint32_t *node_step = NULL;
    uint8_t *hasdep = NULL;
    themis_status_t st = THEMIS_OK;

    if (inplace && (THEMIS_COLL_ALLREDUCE != s->coll || 0 != s->buf_units[THEMIS_BUF_OUTPUT])) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    if (THEMIS_OK != themis_msccl_layout_build(s, &l)) {
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
        uint32_t g = themis_msccl_node_rank(s, v), T = l.tb[v], nd = 0;
        for (uint32_t k = 0; k < x->ndeps; k++) {
            uint32_t m = themis_msccl_node_on(s, s->deps[x->dep_first + k], g);
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
                int local = themis_msccl_is_local(x);
                const char *type = local ? (THEMIS_XFER_COPY == x->kind ? "cpy" : "re")
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
    themis_msccl_layout_free(&l);
    return st;
}
