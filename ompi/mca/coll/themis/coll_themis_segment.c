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

/* Slice s of the vector as an allreduce of its own: in place or not,
 * each reads and writes only its slice. */
static int run_allreduce_slices(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                                const mca_coll_themis_blocks_t *call,
                                mca_coll_themis_engine_args_t *args, uint64_t total, uint64_t S)
{
    const char *input = args->input;
    char *output = args->output;
    int rc = OMPI_SUCCESS;
    for (uint64_t s = 0; OMPI_SUCCESS == rc && s < S; ++s) {
        uint64_t off, len;
        slice(total, S, s, &off, &len);
        if (0 == len) {
            continue;
        }
        rc = mca_coll_themis_plan_get(m, comm, THEMIS_COLL_ALLREDUCE, len, NULL, call->elem_size,
                                      &args->prog, &args->layout, NULL);
        if (OMPI_SUCCESS != rc) {
            break;   /* refused for a segment after others ran: an error, not a fallback */
        }
        args->input = input + (size_t) off * call->extent;
        args->output = output + (size_t) off * call->extent;
        rc = mca_coll_themis_engine_run(args);
    }
    return rc;
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

int mca_coll_themis_run_blocks(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                               const mca_coll_themis_blocks_t *call,
                               const mca_coll_themis_engine_args_t *whole,
                               uint64_t *segments)
{
    const int nranks = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    const bool rs = THEMIS_COLL_REDUCE_SCATTER == call->coll;
    const uint64_t max = mca_coll_themis_component.config.scratch_max;
    mca_coll_themis_engine_args_t args = *whole;
    uint64_t total = 0, need, S;
    int rc = OMPI_SUCCESS;

    for (int r = 0; r < nranks; ++r) {
        total += rs ? call->counts[r] : call->count;
    }
    if (THEMIS_COLL_ALLREDUCE == call->coll) {
        total = call->count;
    }
    need = work_need(call, whole->prog, nranks);
    *segments = 1;
    if (!mca_coll_themis_blocks_segmented(call, whole->prog, nranks)) {
        return mca_coll_themis_engine_run(whole);
    }
    S = (need * call->elem_size + max - 1) / max;
    *segments = S;
    args.op_ns = NULL;   /* op times are the whole program's; segments run others */
    if (THEMIS_COLL_ALLREDUCE == call->coll) {
        return run_allreduce_slices(m, comm, call, &args, total, S);
    }

    uint64_t *buf = malloc(5 * sizeof(uint64_t) * (size_t) nranks);
    char *result = whole->output, *own = NULL;
    if (NULL == buf) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    uint64_t *displ = buf, *off = buf + nranks, *len = buf + 2 * nranks,
             *seg_displ = buf + 3 * nranks, *n = buf + 4 * nranks;
    for (int r = 0; r < nranks; ++r) {
        n[r] = rs ? call->counts[r] : call->count;
        displ[r] = 0 == r ? 0 : displ[r - 1] + n[r - 1];
    }
    /* A reduce-scatter in place (or on staged data) writes its block where
     * later segments still read input: collect it aside. */
    ptrdiff_t true_lb = 0, true_extent = 0;
    size_t span = 0;
    ompi_datatype_get_true_extent(whole->dtype, &true_lb, &true_extent);
    if (rs && n[me] > 0) {
        const char *in_lo = (const char *) whole->input + true_lb;
        const char *out_lo = (const char *) whole->output + true_lb;
        span = (size_t) (n[me] - 1) * call->extent + (size_t) true_extent;
        if (out_lo < in_lo + total * call->extent && in_lo < out_lo + span) {
            own = malloc(span);
            if (NULL == own) {
                free(buf);
                return OMPI_ERR_OUT_OF_RESOURCE;
            }
            result = own - true_lb;
        }
    }
    for (uint64_t s = 0; OMPI_SUCCESS == rc && s < S; ++s) {
        uint64_t seg_total = 0;
        for (int r = 0; r < nranks; ++r) {
            slice(n[r], S, s, &off[r], &len[r]);
            seg_displ[r] = seg_total;
            seg_total += len[r];
        }
        if (0 == seg_total) {
            continue;   /* every block ended earlier: the same on every rank */
        }
        const themis_program_t *prog;
        const mca_coll_themis_engine_layout_t *seg_layout;
        rc = mca_coll_themis_plan_get(m, comm, call->coll, rs ? seg_total : len[0],
                                      rs ? len : NULL, call->elem_size, &prog, &seg_layout,
                                      NULL);
        if (OMPI_SUCCESS != rc) {
            break;   /* refused for a segment after others ran: an error, not a fallback */
        }
        themis_program_t seg = *prog;
        themis_copy_t *moved = rs ? move_copies(prog->copy_in, prog->ncopy_in, true, nranks,
                                                seg_displ, len, displ, off, &seg.ncopy_in)
                                  : move_copies(prog->copy_out, prog->ncopy_out, false, nranks,
                                                seg_displ, len, displ, off, &seg.ncopy_out);
        if (NULL == moved) {
            rc = OMPI_ERR_OUT_OF_RESOURCE;
            break;
        }
        if (rs) {
            seg.copy_in = moved;
            args.output = result + (size_t) off[me] * call->extent;
        } else {
            seg.copy_out = moved;
            args.input = (const char *) whole->input + (size_t) off[me] * call->extent;
        }
        args.prog = &seg;
        args.layout = seg_layout;   /* the copy differs on the user's side only */
        rc = mca_coll_themis_engine_run(&args);
        free(moved);
    }
    if (OMPI_SUCCESS == rc && NULL != own) {
        memcpy((char *) whole->output + true_lb, own, span);
    }
    free(own);
    free(buf);
    return rc;
}
