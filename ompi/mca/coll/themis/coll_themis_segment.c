/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Bounded scratch for large reduce-scatters and allgathers.  Their
 * programs work in engine scratch about as large as the whole vector
 * (plan.c lays each chunk's blocks out contiguously), so a 1 GiB call
 * would need 1 GiB of scratch, and keeping it would hold that memory for
 * the life of the communicator while freeing it would pay the page faults
 * of a fresh gigabyte on every call.  Instead, a call whose vector exceeds
 * coll_themis_scratch_max runs as S consecutive segments: rank r's block
 * of n_r elements is cut into S slices of ceil(n_r / S) (the last ones
 * shorter or empty), and segment s is the collective over slice s of every
 * block.  Each segment's program is an ordinary program for its counts
 * (cached like any other); its copies from the input (reduce-scatter) or
 * into the output (allgather) are moved from the segment's packed layout
 * to where the slices sit in the user's buffers, so the engine runs it
 * unchanged.  S follows from the agreed scratch_max and the program's
 * work buffer, which is the same on every rank (the whole vector for
 * Themis' and the torus programs, the largest rank's for transfer
 * schedules, transfer.h: their input, output and scratch units, a few
 * times the vector): every rank segments alike.  Programs that work in
 * the output (ring allgather, Themis' allreduce) need no such scratch and
 * run whole.  An allreduce that works in scratch (transfer schedules) runs
 * as S allreduces of consecutive slices of the vector.
 *
 * A blocking call runs the segments one after another; a nonblocking or
 * persistent one starts the next segment's engine from progress when one
 * completes (coll_themis_nbc.c).  Every segment's program is resolved and
 * pinned when the call starts, in the caller's thread, because progress
 * must not touch the plan cache (it is not safe against the user's
 * threads); a segment's moved copies are made when it starts.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_themis.h"

/* Slice s of a block of n elements cut into S: offset and length. */
static void slice(uint64_t n, uint64_t S, uint64_t s, uint64_t *off, uint64_t *len)
{
    uint64_t per = n / S + (0 != n % S ? 1 : 0);
    uint64_t start = s * per < n ? s * per : n;
    *off = start;
    *len = n - start < per ? n - start : per;
}

/* Copies whose `moved` side (src for copy_in, dst for copy_out) is in the
 * segment's layout (block r at seg_displ[r], in rank order), moved to the
 * full layout (block r at displ[r] + off[r]); entries that cross a block
 * boundary are split.  Returns the new array (*n entries) or NULL. */
static themis_copy_t *move_copies(const themis_copy_t *in, uint32_t nin, bool move_src,
                                  int nranks, const uint64_t *seg_displ,
                                  const uint64_t *seg_len, const uint64_t *displ,
                                  const uint64_t *off, uint32_t *n)
{
    size_t cap = (size_t) nin + (size_t) nranks, k = 0;
    themis_copy_t *out = malloc(cap * sizeof(*out));
    if (NULL == out) {
        return NULL;
    }
    for (uint32_t i = 0; i < nin; ++i) {
        themis_copy_t c = in[i];
        while (c.count > 0) {
            uint64_t x = move_src ? c.src_off : c.dst_off;
            int r = 0;
            while (r + 1 < nranks && seg_displ[r + 1] <= x) {
                ++r;
            }
            uint64_t room = seg_displ[r] + seg_len[r] - x;
            uint64_t take = c.count < room ? c.count : room;
            if (0 == take || k == cap) {
                free(out);   /* outside the segment: not a program of this layout */
                return NULL;
            }
            out[k] = c;
            out[k].count = take;
            if (move_src) {
                out[k].src_off = displ[r] + off[r] + (x - seg_displ[r]);
            } else {
                out[k].dst_off = displ[r] + off[r] + (x - seg_displ[r]);
            }
            ++k;
            c.count -= take;
            c.src_off += take;
            c.dst_off += take;
        }
    }
    *n = (uint32_t) k;
    return out;
}

/* Elements the call needs in work at once: its whole vector, or the
 * program's work where that is larger. */
static uint64_t work_need(const mca_coll_themis_blocks_t *call, const themis_program_t *prog,
                          int nranks)
{
    const bool rs = THEMIS_COLL_REDUCE_SCATTER == call->coll;
    uint64_t total = 0;

    if (THEMIS_COLL_ALLREDUCE == call->coll) {
        total = call->count;
    } else {
        for (int r = 0; r < nranks; ++r) {
            total += rs ? call->counts[r] : call->count;
        }
    }
    return total > prog->work_count ? total : prog->work_count;
}

bool mca_coll_themis_blocks_segmented(const mca_coll_themis_blocks_t *call,
                                      const themis_program_t *prog, int nranks)
{
    const uint64_t max = mca_coll_themis_component.config.scratch_max;
    return !prog->work_is_output && 0 != max && work_need(call, prog, nranks) * call->elem_size > max;
}

/* One program the call's segments run: a copy of the cache entry's
 * program and layout, whose arrays the pin keeps. */
typedef struct {
    themis_program_t prog;
    mca_coll_themis_engine_layout_t layout;
    struct mca_coll_themis_plan_pin_t *pin;
} seg_plan_t;

struct mca_coll_themis_segments_t {
    mca_coll_themis_blocks_t call;
    mca_coll_themis_engine_args_t args;   /* the call's own, kept by the first next */
    const char *input;                   /* the whole call's buffers */
    char *output, *result;               /* result: output, or own */
    char *own;                           /* reduce-scatter's block collected aside */
    ptrdiff_t true_lb;
    size_t span;
    int nranks, me;
    uint64_t S, next, total;
    uint64_t *buf;                       /* n, displ, off, len, seg_displ: [nranks] each */
    uint32_t *plan_of;                   /* [S]: index in plans, UINT32_MAX when empty */
    seg_plan_t *plans;
    uint32_t nplans;
    themis_program_t seg;                /* the running segment's, copies moved */
    themis_copy_t *moved;
};

#define NO_PLAN UINT32_MAX

/* Segment s's slices: off, len and seg_displ per rank; returns their
 * total (for an allreduce, len[0] is the slice of the vector). */
static uint64_t segment_slices(const mca_coll_themis_segments_t *g, uint64_t s, uint64_t *off,
                               uint64_t *len, uint64_t *seg_displ)
{
    const uint64_t *n = g->buf;
    uint64_t seg_total = 0;

    if (THEMIS_COLL_ALLREDUCE == g->call.coll) {
        slice(g->total, g->S, s, &off[0], &len[0]);
        return len[0];
    }
    for (int r = 0; r < g->nranks; ++r) {
        slice(n[r], g->S, s, &off[r], &len[r]);
        seg_displ[r] = seg_total;
        seg_total += len[r];
    }
    return seg_total;
}

void mca_coll_themis_segments_free(mca_coll_themis_segments_t *g)
{
    if (NULL == g) {
        return;
    }
    for (uint32_t i = 0; i < g->nplans; ++i) {
        mca_coll_themis_plan_unpin(g->plans[i].pin);
    }
    free(g->plans);
    free(g->plan_of);
    free(g->moved);
    free(g->own);
    free(g->buf);
    free(g);
}

int mca_coll_themis_segments_prepare(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                                     const mca_coll_themis_blocks_t *call,
                                     const mca_coll_themis_engine_args_t *whole,
                                     mca_coll_themis_segments_t **out)
{
    const int nranks = ompi_comm_size(comm);
    const bool rs = THEMIS_COLL_REDUCE_SCATTER == call->coll;
    const uint64_t max = mca_coll_themis_component.config.scratch_max;
    mca_coll_themis_segments_t *g;

    *out = NULL;
    if (!mca_coll_themis_blocks_segmented(call, whole->prog, nranks)) {
        return OMPI_SUCCESS;
    }
    g = calloc(1, sizeof(*g));
    if (NULL == g) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    g->call = *call;
    g->call.counts = NULL;   /* n below holds them */
    g->input = whole->input;
    g->output = g->result = whole->output;
    g->nranks = nranks;
    g->me = ompi_comm_rank(comm);
    g->S = (work_need(call, whole->prog, nranks) * call->elem_size + max - 1) / max;
    g->buf = malloc(5 * sizeof(uint64_t) * (size_t) nranks);
    g->plan_of = malloc(sizeof(uint32_t) * g->S);
    if (NULL == g->buf || NULL == g->plan_of) {
        mca_coll_themis_segments_free(g);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    uint64_t *n = g->buf, *displ = n + nranks, *off = n + 2 * nranks, *len = n + 3 * nranks,
             *seg_displ = n + 4 * nranks;
    for (int r = 0; r < nranks; ++r) {
        n[r] = THEMIS_COLL_ALLREDUCE == call->coll ? 0 : rs ? call->counts[r] : call->count;
        displ[r] = 0 == r ? 0 : displ[r - 1] + n[r - 1];
        g->total += n[r];
    }
    if (THEMIS_COLL_ALLREDUCE == call->coll) {
        g->total = call->count;
    }
    /* A reduce-scatter in place (or on staged data) writes its block where
     * later segments still read input: collect it aside. */
    ptrdiff_t true_extent = 0;
    ompi_datatype_get_true_extent(whole->dtype, &g->true_lb, &true_extent);
    if (rs && n[g->me] > 0) {
        const char *in_lo = g->input + g->true_lb, *out_lo = g->output + g->true_lb;
        g->span = (size_t) (n[g->me] - 1) * call->extent + (size_t) true_extent;
        if (out_lo < in_lo + g->total * call->extent && in_lo < out_lo + g->span) {
            g->own = malloc(g->span);
            if (NULL == g->own) {
                mca_coll_themis_segments_free(g);
                return OMPI_ERR_OUT_OF_RESOURCE;
            }
            g->result = g->own - g->true_lb;
        }
    }

    /* Every segment's program, here in the caller's thread: the engines
     * of a nonblocking call start from progress, which must not touch
     * the plan cache.  Slices shrink monotonically from segment to
     * segment, so equal counts are consecutive: a new program where they
     * change (two for an allreduce or allgather, full and remainder). */
    uint64_t *prev = malloc(sizeof(uint64_t) * (size_t) nranks);
    /* Each rank's slice changes at most twice (full to remainder to 0). */
    g->plans = calloc(2 * (size_t) nranks + 1, sizeof(seg_plan_t));
    int rc = NULL == prev || NULL == g->plans ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    const size_t ncmp = sizeof(uint64_t) * (rs ? (size_t) nranks : 1);
    for (uint64_t s = 0; OMPI_SUCCESS == rc && s < g->S; ++s) {
        uint64_t seg_total = segment_slices(g, s, off, len, seg_displ);
        if (0 == seg_total) {
            g->plan_of[s] = NO_PLAN;   /* every block ended earlier: alike on every rank */
            continue;
        }
        if (g->nplans > 0 && 0 == memcmp(prev, len, ncmp)) {
            g->plan_of[s] = g->nplans - 1;
            continue;
        }
        if (g->nplans == 2 * (uint32_t) nranks + 1) {
            rc = OMPI_ERR_BAD_PARAM;   /* cannot happen: slices changed more often */
            break;
        }
        const themis_program_t *prog;
        const mca_coll_themis_engine_layout_t *layout;
        rc = mca_coll_themis_plan_get(m, comm, call->coll, rs ? seg_total : len[0],
                                      rs ? len : NULL, call->elem_size, &prog, &layout, NULL);
        if (OMPI_SUCCESS != rc) {
            break;   /* refused for a segment: an error, not a fallback (see run_blocks) */
        }
        seg_plan_t *sp = &g->plans[g->nplans];
        sp->pin = mca_coll_themis_plan_pin(prog);
        if (NULL == sp->pin) {
            rc = OMPI_ERR_OUT_OF_RESOURCE;
            break;
        }
        sp->prog = *prog;
        sp->layout = *layout;
        g->plan_of[s] = g->nplans++;
        memcpy(prev, len, ncmp);
    }
    free(prev);
    if (OMPI_SUCCESS != rc) {
        mca_coll_themis_segments_free(g);
        return rc;
    }
    *out = g;
    return OMPI_SUCCESS;
}

uint64_t mca_coll_themis_segments_count(const mca_coll_themis_segments_t *g)
{
    return NULL == g ? 1 : g->S;
}

int mca_coll_themis_segments_next(mca_coll_themis_segments_t *g,
                                  mca_coll_themis_engine_args_t *args, bool *more)
{
    const bool rs = THEMIS_COLL_REDUCE_SCATTER == g->call.coll;
    const int nranks = g->nranks, me = g->me;
    uint64_t *n = g->buf, *displ = n + nranks, *off = n + 2 * nranks, *len = n + 3 * nranks,
             *seg_displ = n + 4 * nranks;

    if (0 == g->next) {
        g->args = *args;
        g->args.op_ns = NULL;   /* op times are the whole program's; segments run others */
    }
    free(g->moved);
    g->moved = NULL;
    while (g->next < g->S && NO_PLAN == g->plan_of[g->next]) {
        ++g->next;
    }
    *more = g->next < g->S;
    if (!*more) {
        return OMPI_SUCCESS;
    }
    const uint64_t s = g->next++;
    const seg_plan_t *sp = &g->plans[g->plan_of[s]];
    *args = g->args;
    args->layout = &sp->layout;   /* the copy differs on the user's side only */
    (void) segment_slices(g, s, off, len, seg_displ);
    if (THEMIS_COLL_ALLREDUCE == g->call.coll) {
        /* Slice s of the vector as an allreduce of its own: in place or
         * not, each reads and writes only its slice. */
        args->prog = &sp->prog;
        args->input = g->input + (size_t) off[0] * g->call.extent;
        args->output = g->output + (size_t) off[0] * g->call.extent;
        return OMPI_SUCCESS;
    }
    g->seg = sp->prog;
    g->moved = rs ? move_copies(sp->prog.copy_in, sp->prog.ncopy_in, true, nranks, seg_displ, len,
                                displ, off, &g->seg.ncopy_in)
                  : move_copies(sp->prog.copy_out, sp->prog.ncopy_out, false, nranks, seg_displ,
                                len, displ, off, &g->seg.ncopy_out);
    if (NULL == g->moved) {
        *more = false;
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (rs) {
        g->seg.copy_in = g->moved;
        args->input = g->input;
        args->output = g->result + (size_t) off[me] * g->call.extent;
    } else {
        g->seg.copy_out = g->moved;
        args->input = g->input + (size_t) off[me] * g->call.extent;
        args->output = g->output;
    }
    args->prog = &g->seg;
    return OMPI_SUCCESS;
}

int mca_coll_themis_segments_finish(mca_coll_themis_segments_t *g, int rc)
{
    if (NULL != g && OMPI_SUCCESS == rc && NULL != g->own) {
        memcpy(g->output + g->true_lb, g->own, g->span);
    }
    mca_coll_themis_segments_free(g);
    return rc;
}

int mca_coll_themis_run_blocks(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                               const mca_coll_themis_blocks_t *call,
                               const mca_coll_themis_engine_args_t *whole,
                               uint64_t *segments)
{
    mca_coll_themis_segments_t *g;
    mca_coll_themis_engine_args_t args = *whole;
    bool more = true;
    int rc = mca_coll_themis_segments_prepare(m, comm, call, whole, &g);

    *segments = mca_coll_themis_segments_count(g);
    if (OMPI_SUCCESS != rc || NULL == g) {
        return OMPI_SUCCESS != rc ? rc : mca_coll_themis_engine_run(whole);
    }
    while (OMPI_SUCCESS == rc && more) {
        rc = mca_coll_themis_segments_next(g, &args, &more);
        if (OMPI_SUCCESS == rc && more) {
            rc = mca_coll_themis_engine_run(&args);
        }
    }
    return mca_coll_themis_segments_finish(g, rc);
}
