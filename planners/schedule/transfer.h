/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A transfer schedule: one list of transfers, the same on every rank, that
 * computes a collective.  Synthesizers (TACOS, tree packing), generators
 * (rings on a graph) and importers (MSCCL-XML) produce it; the link
 * simulator predicts its time; themis_xfer_compile turns it into one
 * rank's themis_program_t (plan.h).
 *
 * Buffers.  Every rank has three buffers, addressed in units:
 *   INPUT    holds the rank's input when the collective starts
 *   OUTPUT   where the result is left (unless result_buf says INPUT)
 *   SCRATCH  temporary
 * Global unit g is a range of the collective's whole vector (count for
 * allreduce, the sum of the per-rank counts for allgather and
 * reduce-scatter) given by the call's unit layout (themis_xfer_layout):
 * units differ by at most one element within a rank's block, and are empty
 * where a block has fewer elements than units, so any count runs.
 * Allgather inputs are the rank's block (input units j are global units
 * r * buf_units[INPUT] + j); reduce-scatter outputs are block r of the
 * reduced vector (output unit k is global unit r * buf_units[OUTPUT] + k).
 *
 * Transfers.  A transfer moves `count` units from (src, src_buf, src_off)
 * to (dst, dst_buf, dst_off): COPY overwrites the destination, REDUCE
 * combines into it (dst = src op dst).  src == dst is a local copy or
 * reduce.  A transfer starts once every transfer in its dependency list
 * completed (a join when there are several); its source is read and its
 * destination written between its start and its completion.
 *
 * Rules checked by themis_xfer_check (a schedule that breaks one is
 * rejected with a message, never run):
 *   - indices, buffers and unit ranges in bounds; count > 0;
 *   - dependencies point to earlier transfers (the list is in a
 *     topological order), without duplicates;
 *   - no race: two transfers that touch overlapping units of one rank's
 *     buffer, at least one of them writing, are ordered by the (transitive)
 *     dependencies, so every execution gives the same bits;
 *   - the collective: executed in list order on symbolic values (which
 *     rank's contribution to which global unit each unit holds), every
 *     rank ends with exactly the collective's result in its result buffer,
 *     no unit is reduced twice, nothing reads a unit nobody wrote.
 * The transfer's position in the list is its message tag, so both sides of
 * a message agree on it without communication.
 *
 * Deadlock freedom under MPI: with dependencies pointing backwards, the
 * earliest unfinished transfer can always start on both ranks (programs
 * start a queue's ops in list order), so every schedule that passes the
 * check completes with any transport, eager or rendezvous.
 */
#ifndef THEMIS_TRANSFER_H
#define THEMIS_TRANSFER_H

#include "themis_types.h"

typedef enum {
    THEMIS_BUF_INPUT = 0,
    THEMIS_BUF_OUTPUT = 1,
    THEMIS_BUF_SCRATCH = 2
} themis_buf_t;
#define THEMIS_NBUFS 3

typedef enum {
    THEMIS_XFER_COPY = 0,
    THEMIS_XFER_REDUCE = 1
} themis_xfer_kind_t;

typedef struct {
    uint32_t src, dst;          /* ranks */
    uint8_t kind;               /* themis_xfer_kind_t */
    uint8_t src_buf, dst_buf;   /* themis_buf_t */
    uint64_t src_off, dst_off, count;   /* units */
    uint32_t dep_first, ndeps;  /* into deps[] */
} themis_xfer_t;

/* Levels of a nested unit layout (rings: quarter, chunk, ring block). */
#define THEMIS_XFER_MAX_SPLIT 4

typedef struct {
    themis_coll_t coll;
    uint32_t nranks;
    uint32_t nunits;                      /* units of the whole vector */
    uint64_t buf_units[THEMIS_NBUFS];     /* per rank */
    themis_buf_t result_buf;              /* OUTPUT, or INPUT (in place) */
    /* The unit layout inside a block (themis_xfer_layout): 0 levels, one
     * even split; else split[0] parts, each split into split[1], ...;
     * parts of the first level from split_alt_from on (0: none) by
     * split_alt's levels instead (its first entry unused). */
    uint32_t nsplit;
    uint32_t split[THEMIS_XFER_MAX_SPLIT];
    uint32_t split_alt_from;
    uint32_t split_alt[THEMIS_XFER_MAX_SPLIT];
    /* An explicit layout for one call instead (NULL: the rule above):
     * global unit g is elements unit_off[g] .. unit_off[g + 1] - 1 of the
     * whole vector, unit_off[nunits] its total.  A row that plans each
     * call (themis) cuts its units where its messages begin and end,
     * which no even split gives (a biring's halves inside a leaf); the
     * schedule then runs that call alone.  Owned, freed with it. */
    uint64_t *unit_off;
    uint32_t nxfers, cap_xfers;
    themis_xfer_t *xfers;
    uint32_t ndeps, cap_deps;
    uint32_t *deps;                       /* transfer indices */
    char name[64];                        /* for messages and traces */
} themis_xfer_sched_t;

/* An empty schedule; buffers sized by the caller (fields above). */
void themis_xfer_init(themis_xfer_sched_t *s, themis_coll_t coll, uint32_t nranks,
                      uint32_t nunits);
/* Append a transfer whose dependencies are deps[0..ndeps).  Returns its
 * index in *idx (may be NULL); THEMIS_ERR_NOMEM.  Inline where the
 * arrays have room (the generators append 300,000 transfers a setup,
 * mostly with room left); growing them is _full's. */
themis_status_t themis_xfer_add_full(themis_xfer_sched_t *s, const themis_xfer_t *x,
                                     const uint32_t *deps, uint32_t ndeps, uint32_t *idx);
static inline themis_status_t themis_xfer_add(themis_xfer_sched_t *s, const themis_xfer_t *x,
                                              const uint32_t *deps, uint32_t ndeps,
                                              uint32_t *idx)
{
    if (s->nxfers == s->cap_xfers || ndeps > s->cap_deps - s->ndeps) {
        return themis_xfer_add_full(s, x, deps, ndeps, idx);
    }
    themis_xfer_t *t = &s->xfers[s->nxfers];
    *t = *x;
    t->dep_first = s->ndeps;
    t->ndeps = ndeps;
    /* a few: no memcpy call; deps may be NULL while ndeps is 0 */
    for (uint32_t d = 0; d < ndeps; d++) {
        s->deps[s->ndeps + d] = deps[d];
    }
    s->ndeps += ndeps;
    if (NULL != idx) {
        *idx = s->nxfers;
    }
    s->nxfers++;
    return THEMIS_OK;
}
/* Room for at least nxfers transfers and ndeps dependencies in all, so
 * that a builder that knows its list's length appends without growing
 * it (a slice's, xfer_sink.h); more may still be added.
 * THEMIS_ERR_NOMEM (s unchanged).  Not for the setup's whole lists:
 * reserved in one piece, glibc maps them fresh at every setup (7,000
 * more page faults in 7 8x8 setups, 1-3 ms each), while doubled ones
 * come back from its heap. */
themis_status_t themis_xfer_reserve(themis_xfer_sched_t *s, uint64_t nxfers, uint64_t ndeps);
void themis_xfer_free(themis_xfer_sched_t *s);
/* out: a copy of s that owns its arrays (freed with themis_xfer_free);
 * THEMIS_ERR_NOMEM (out then empty). */
themis_status_t themis_xfer_copy(const themis_xfer_sched_t *s, themis_xfer_sched_t *out);
/* Reorders the list by key[i] of transfer i (ties: the old order), with
 * dependencies renumbered.  Programs run each peer's queue in list order,
 * so sorting by, e.g., simulated start times makes them serve transfers in
 * the simulated order.  THEMIS_ERR_INVALID (s unchanged) when a
 * dependency would come after its transfer (key[dep] > key[i]);
 * THEMIS_ERR_NOMEM. */
themis_status_t themis_xfer_sort(themis_xfer_sched_t *s, const uint64_t *key);

/* Every rule above.  THEMIS_ERR_INVALID with the first violation in why
 * ("transfer 12 (rank 3 -> 4): reads scratch units 4..5 of rank 3, which
 * nobody wrote"), THEMIS_ERR_UNSUPPORTED when the schedule is too large to
 * check (more than THEMIS_XFER_CHECK_MAX transfers or THEMIS_XFER_CHECK_MAX_BYTES
 * of memory), THEMIS_ERR_NOMEM. */
#define THEMIS_XFER_CHECK_MAX 16384u
/* Most memory the check may take (per unit of every rank a rank set, per
 * transfer its ancestors); a larger schedule is refused before. */
#define THEMIS_XFER_CHECK_MAX_BYTES (256u << 20)
themis_status_t themis_xfer_check(const themis_xfer_sched_t *s, char *why, size_t len);

/* Hash of everything that decides what runs (not the name). */
uint64_t themis_xfer_hash(const themis_xfer_sched_t *s);

/* The unit layout of a call: global unit g is elements off[g] ..
 * off[g + 1] - 1 of the whole vector (off has nunits + 1 entries,
 * off[nunits] == total).  Allreduce: the vector in nunits units, the first
 * total % nunits one element larger.  Reduce-scatter and allgather: rank
 * r's block (counts[r] elements; NULL: total split evenly over the ranks,
 * the first total % nranks one larger) split alike into its nunits /
 * nranks units.  With nsplit levels the block is split nested instead:
 * into split[0] parts as evenly, each part into split[1], and so on, unit
 * index = the parts' indices outer to inner (the product of the levels is
 * the block's units; parts of the first level from split_alt_from on are
 * split by split_alt's levels, of the same product): builders whose pieces
 * are nested splits keep their messages' element ranges (torus2d's
 * quarters split their chunks along one dimension first or the other).
 * With unit_off set, that layout, for the call it was cut for alone.  It
 * depends only on the call's counts, which MPI makes equal on every rank.
 * THEMIS_ERR_INVALID (why says so) when the counts do not add up to total,
 * the units do not divide into the ranks, or an explicit layout was cut
 * for other counts. */
themis_status_t themis_xfer_layout(const themis_xfer_sched_t *s, uint64_t total,
                                   const uint64_t *counts, uint64_t *off, char *why, size_t len);

/* Rank `rank`'s program for a call whose whole vector has `total`
 * elements, in the unit layout of (total, counts) above.  Work holds the
 * three buffers one after the other, each unit as large as the largest
 * global unit it ever holds (input and result units at least the
 * collective's unit there, so they are packed as the user's vectors unless
 * a schedule parks a larger unit in one); work_count is the largest
 * rank's, equal on every rank.  copy_in fills INPUT from the call's input,
 * copy_out takes the result buffer to the output.  Each transfer becomes
 * an op on the ranks it involves (a send, a receive or a local step), with the
 * transfer's dependencies on this rank as the op's dependencies; one queue
 * per peer and direction plus one for local steps, each in list order, at
 * most chunks_in_flight ops active on each.  Tags are transfer indices.  A
 * transfer of several units is one message where its units lie back to
 * back on both ranks, else one message per contiguous run (chained steps
 * of the op, same tag); a transfer of empty units is an empty step (no
 * message).  The schedule must have passed themis_xfer_check.
 * THEMIS_ERR_UNSUPPORTED (why says so) for an empty call or a work buffer
 * beyond 64 bits; THEMIS_ERR_INVALID, THEMIS_ERR_NOMEM. */
struct themis_program;
themis_status_t themis_xfer_compile(const themis_xfer_sched_t *s, int rank, uint64_t total,
                                    const uint64_t *counts, uint32_t chunks_in_flight,
                                    struct themis_program *out, char *why, size_t len);

/* What compiling reads of the whole schedule for one rank, independent of
 * the call's counts: each of the rank's transfers' dependencies on the
 * rank, through the other ranks' transfers (every transfer's ancestors:
 * most of a compile).  A row keeps it with its schedule, so that a new
 * message size compiles from it.  One schedule per value; zeroed to
 * start, freed with themis_xfer_rank_deps_free. */
typedef struct {
    int valid;
    uint32_t rank, nxfers, ndeps;   /* what it was made for */
    uint32_t nmine, *mine;          /* the rank's transfers, in order (its ops) */
    uint32_t *first, *n;            /* [nmine]: each one's list in anc */
    uint32_t *anc;                  /* ops (positions in mine) */
} themis_xfer_rank_deps_t;
void themis_xfer_rank_deps_free(themis_xfer_rank_deps_t *d);
/* d made for (s, rank) unless it is already: THEMIS_ERR_NOMEM, else
 * THEMIS_OK. */
themis_status_t themis_xfer_rank_deps_make(const themis_xfer_sched_t *s, uint32_t rank,
                                           themis_xfer_rank_deps_t *d);
/* themis_xfer_compile with deps: made for (s, rank) when it was made for
 * another rank (or never), else taken as it is (the caller keeps one per
 * schedule). */
themis_status_t themis_xfer_compile_with(const themis_xfer_sched_t *s, int rank, uint64_t total,
                                         const uint64_t *counts, uint32_t chunks_in_flight,
                                         themis_xfer_rank_deps_t *deps,
                                         struct themis_program *out, char *why, size_t len);

#endif
