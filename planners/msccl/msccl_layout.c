/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The thread blocks an MSCCL-XML export would use (msccl_internal.h) and
 * the check the import makes with them that a schedule can be exported
 * again.  The writer itself (msccl_export.c) is CLI-only and lives in the
 * offline library; this part runs in the component.
 */
#include "msccl_internal.h"

#include <string.h>

int themis_msccl_is_local(const themis_xfer_t *x)
{
    return x->src == x->dst;
}

static uint64_t node_key(const themis_xfer_sched_t *s, uint32_t node)
{
    const themis_xfer_t *x = &s->xfers[node / 2];
    uint64_t P = s->nranks, per = 2 * P + 1;
    if (themis_msccl_is_local(x)) {
        return x->src * per + 2 * P;
    }
    return 0 == node % 2 ? x->src * per + x->dst : x->dst * per + P + x->src;
}

uint32_t themis_msccl_node_rank(const themis_xfer_sched_t *s, uint32_t node)
{
    const themis_xfer_t *x = &s->xfers[node / 2];
    return 0 == node % 2 ? x->src : x->dst;
}

/* Transfer d's node on rank g, NONE when d does not touch g. */
uint32_t themis_msccl_node_on(const themis_xfer_sched_t *s, uint32_t d, uint32_t g)
{
    const themis_xfer_t *x = &s->xfers[d];
    if (x->src == g) {
        return 2 * d;
    }
    return x->dst == g ? 2 * d + 1 : NONE;
}

void themis_msccl_layout_free(themis_msccl_layout_t *l)
{
    free(l->tb);
    free(l->keys);
    free(l->tbprev);
    memset(l, 0, sizeof(*l));
}

themis_status_t themis_msccl_layout_build(const themis_xfer_sched_t *s,
                                          themis_msccl_layout_t *l)
{
    uint32_t *last = NULL;
    memset(l, 0, sizeof(*l));
    l->nnodes = 2 * s->nxfers;
    l->tb = malloc(((size_t) l->nnodes + 1) * sizeof(uint32_t));
    l->tbprev = malloc(((size_t) l->nnodes + 1) * sizeof(uint32_t));
    l->keys = malloc(((size_t) l->nnodes + 1) * sizeof(uint64_t));
    if (NULL == l->tb || NULL == l->tbprev || NULL == l->keys) {
        themis_msccl_layout_free(l);
        return THEMIS_ERR_NOMEM;
    }
    uint32_t nk = 0;
    for (uint32_t v = 0; v < l->nnodes; v++) {
        if (0 == v % 2 || !themis_msccl_is_local(&s->xfers[v / 2])) {
            l->keys[nk++] = node_key(s, v);
        }
    }
    qsort(l->keys, nk, sizeof(uint64_t), themis_cmp_u64);
    for (uint32_t k = 0; k < nk; k++) {
        if (0 == l->ntb || l->keys[l->ntb - 1] != l->keys[k]) {
            l->keys[l->ntb++] = l->keys[k];
        }
    }
    last = malloc(((size_t) l->ntb + 1) * sizeof(uint32_t));
    if (NULL == last) {
        themis_msccl_layout_free(l);
        return THEMIS_ERR_NOMEM;
    }
    for (uint32_t t = 0; t < l->ntb; t++) {
        last[t] = NONE;
    }
    for (uint32_t v = 0; v < l->nnodes; v++) {
        l->tb[v] = l->tbprev[v] = NONE;
        if (1 == v % 2 && themis_msccl_is_local(&s->xfers[v / 2])) {
            continue;
        }
        uint64_t key = node_key(s, v);
        const uint64_t *hit =
            bsearch(&key, l->keys, l->ntb, sizeof(uint64_t), themis_cmp_u64);
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
    themis_msccl_layout_t l;
    uint32_t *stamp = NULL, *stack = NULL;
    int found = 0;

    if (THEMIS_OK != themis_msccl_layout_build(s, &l)) {
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
            uint32_t v = stack[--ns], g = themis_msccl_node_rank(s, v);
            const themis_xfer_t *x = &s->xfers[v / 2];
            uint32_t cand[2] = {l.tbprev[v], 1 == v % 2 ? v - 1 : NONE};
            for (uint32_t k = 0; k < 2 + x->ndeps; k++) {
                uint32_t p = k < 2 ? cand[k]
                                   : themis_msccl_node_on(s, s->deps[x->dep_first + k - 2], g);
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
    themis_msccl_layout_free(&l);
    return found;
}
