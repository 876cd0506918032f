/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * What the MSCCL-XML reader (msccl_import.c), its semantics (msccl.c:
 * messages, happens-before, transfers, canonical order), the export's
 * layout (msccl_layout.c) and the writer (msccl_export.c) share; not a
 * public interface.
 */
#ifndef THEMIS_MSCCL_INTERNAL_H
#define THEMIS_MSCCL_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "msccl.h"
#include "util.h"

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

typedef struct {
    const char *name;
    uint8_t sends, recvs, src, dst;   /* which parts and references it has */
} themis_msccl_step_kind_t;
/* Which parts and references each step type of a file has. */
extern const themis_msccl_step_kind_t themis_msccl_step_kinds[ST_NFILE];

extern const char *const themis_msccl_buf_names[THEMIS_NBUFS];   /* input output scratch */
extern const char themis_msccl_buf_letters[THEMIS_NBUFS];        /* i o s */

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

/* The schedule of the expansion, in canonical order; rfirst/rdeps (CSR over
 * new indices): each transfer's receive-side dependencies; rstep: its
 * receiving step (NONE for local ones). */
typedef struct {
    uint32_t *rfirst, *rdeps, *rstep;
} rside_t;

static inline themis_status_t fail(ctx_t *c, themis_status_t st, const char *fmt, ...)
{
    if (NULL != c->why && c->len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, c->len, fmt, ap);
        va_end(ap);
    }
    return st;
}

static inline int grow(void **p, uint32_t *cap, uint64_t need, size_t elem)
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

/* The schedule of a parsed file (msccl.c): matches sends and receives,
 * builds happens-before and expands the steps into transfers. */
themis_status_t themis_msccl_schedule(ctx_t *c, themis_xfer_sched_t *out);
void themis_msccl_ctx_free(ctx_t *c);
/* The thread blocks of the export (msccl_layout.c): node 2i is transfer
 * i's send (or local) side, 2i + 1 its receive side. */
typedef struct {
    uint32_t nnodes, ntb;
    uint32_t *tb;           /* node -> global thread block, NONE unused */
    uint64_t *keys;         /* global thread block -> rank * (2P + 1) + key */
    uint32_t *tbprev;       /* node -> previous node of its thread block */
} themis_msccl_layout_t;

themis_status_t themis_msccl_layout_build(const themis_xfer_sched_t *s,
                                          themis_msccl_layout_t *l);
void themis_msccl_layout_free(themis_msccl_layout_t *l);
/* A transfer within one rank (a cpy or re step). */
int themis_msccl_is_local(const themis_xfer_t *x);
/* The rank a node runs on. */
uint32_t themis_msccl_node_rank(const themis_xfer_sched_t *s, uint32_t node);
/* Transfer d's node on rank g, NONE when d does not touch g. */
uint32_t themis_msccl_node_on(const themis_xfer_sched_t *s, uint32_t d, uint32_t g);
/* How many more steps must be forced to keep their order for the
 * schedule to be exportable (marked in forced); -1: out of memory
 * (msccl_layout.c). */
int themis_msccl_export_violations(const themis_xfer_sched_t *s, const rside_t *rs,
                                   uint8_t *forced);

#endif
