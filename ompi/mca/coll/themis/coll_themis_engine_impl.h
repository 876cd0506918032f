/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * What the engine's two files share (coll_themis_engine.c runs a call,
 * coll_themis_engine_layout.c checks a program and lays out its
 * temporaries once): the step predicates, the program check's message,
 * range arithmetic and the carving of bookkeeping arrays.
 */
#ifndef MCA_COLL_THEMIS_ENGINE_IMPL_H
#define MCA_COLL_THEMIS_ENGINE_IMPL_H

#include "coll_themis_engine.h"
#include "program_runs.h"
#include "ompi/constants.h"
#include "ompi/mca/coll/base/base.h"
#include "opal/util/output.h"

#define ENGINE_ALIGN 64

/* An op's state, in the program check and in a running call. */
enum { OP_IDLE = 0, OP_ACTIVE = 1, OP_DONE = 2 };

static inline int engine_bad(const char *why, uint64_t a, uint64_t b)
{
    opal_output_verbose(1, ompi_coll_base_framework.framework_output,
                        "coll:themis:engine: bad program: %s (%llu, %llu)", why,
                        (unsigned long long) a, (unsigned long long) b);
    return OMPI_ERR_BAD_PARAM;
}

/* off + count <= limit without overflow. */
static inline int range_ok(uint64_t off, uint64_t count, uint64_t limit)
{
    return off <= limit && count <= limit - off;
}

static inline int step_has_send(const themis_step_t *s)
{
    return s->send_peer >= 0 && s->send_count > 0;
}

static inline int step_has_recv(const themis_step_t *s)
{
    return s->recv_peer >= 0 && s->recv_count > 0;
}

static inline int step_reduces(const themis_step_t *s)
{
    return step_has_recv(s) && THEMIS_RECV_REDUCE == s->recv_mode;
}

static inline int step_is_local(const themis_step_t *s)
{
    return THEMIS_LOCAL_COPY == s->recv_mode || THEMIS_LOCAL_REDUCE == s->recv_mode;
}

/* Have all of op's dependencies completed?  (Logical indices: a
 * periodic program is read through program_runs.h.) */
static inline int deps_done(const themis_program_t *p, uint32_t op, const uint8_t *state,
                            uint8_t done)
{
    const themis_op_t o = themis_program_op(p, op);
    for (uint32_t k = 0; k < o.ndeps; ++k) {
        if (done != state[themis_program_dep(p, o.dep_first + k)]) {
            return 0;
        }
    }
    return 1;
}

/* The stored op or step a logical one is a copy of: the layout's index. */
static inline uint32_t stored_op(const themis_program_t *p, uint32_t op)
{
    return 0 == p->nruns ? op : themis_program_op_pos(p, op).at;
}

static inline uint32_t stored_step(const themis_program_t *p, uint32_t s)
{
    return 0 == p->nruns ? s : themis_program_step_pos(p, s).at;
}

/* Bookkeeping arrays carved from one zeroed block; with base == NULL only
 * the size is computed. */
#define CARVE(field, n)                                                     \
    do {                                                                    \
        off = (off + 7) & ~(size_t) 7;                                      \
        if (NULL != base) {                                                 \
            e->field = (void *) (base + off);                               \
        }                                                                   \
        off += (size_t) (n) * sizeof(*e->field);                            \
    } while (0)

#endif
