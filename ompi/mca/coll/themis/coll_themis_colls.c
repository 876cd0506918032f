/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The four entry points.  Each call either runs this rank's cached
 * program on the engine (counted in coll_themis_<coll>_calls) or goes to
 * the saved previous function (counted in coll_themis_<coll>_fallbacks).
 *
 * The choice must be the same on every rank.  It uses only what MPI makes
 * equal across ranks (message bytes from the type signature, the op, the
 * counts) and the agreed setup, plus datatype contiguity, which MPI does
 * not require to match: ranks that describe the same data with a
 * contiguous type on some ranks and a non-contiguous one on others are not
 * supported (they would take different paths).
 *
 * Elements: predefined types run as given.  A contiguous derived type with
 * a predefined op runs as its single predefined base type (count x n), as
 * the predefined reduction functions loop over base elements; one without
 * a single base type falls back.  With a user-defined op the user's type
 * is kept, so the op sees what it was written for.  Allgather moves bytes.
 * Byte counts are 64-bit throughout: int counts of large types exceed
 * 2 GiB of data.
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "opal/util/output.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include "coll_themis.h"

typedef struct {
    ompi_datatype_t *dtype;     /* what the engine works with */
    uint64_t factor;            /* engine elements per user element */
    size_t elem_size;           /* bytes of one engine element */
    ptrdiff_t shift;            /* data offset from the user's pointer */
} themis_elems_t;

#define VERBOSE_CALL 20

static bool contiguous(ompi_datatype_t *dtype, uint64_t count)
{
    /* Contiguity of n > 1 elements does not depend on n. */
    return 0 != ompi_datatype_is_contiguous_memory_layout(dtype, count > 1 ? 2 : 1);
}

/* Returns NULL when the data can run, else why not. */
static const char *reduction_elements(ompi_datatype_t *dtype, uint64_t count, ompi_op_t *op,
                                      themis_elems_t *out)
{
    size_t size = 0;

    ompi_datatype_type_size(dtype, &size);
    if (!contiguous(dtype, count)) {
        return "non-contiguous datatype";
    }
    if (ompi_datatype_is_predefined(dtype) || !ompi_op_is_intrinsic(op)) {
        out->dtype = dtype;
        out->factor = 1;
        out->elem_size = size;
        out->shift = 0;
        return NULL;
    }
    ompi_datatype_t *base = ompi_datatype_get_single_predefined_type_from_args(dtype);
    size_t bsize = 0;
    ptrdiff_t true_lb = 0, true_extent = 0;
    if (NULL == base) {
        return "derived datatype not built from one predefined type";
    }
    ompi_datatype_type_size(base, &bsize);
    if (0 == bsize || 0 != size % bsize || !contiguous(base, 2)) {
        return "derived datatype does not split into its base type";
    }
    ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
    out->dtype = base;
    out->factor = size / bsize;
    out->elem_size = bsize;
    out->shift = true_lb;
    return NULL;
}

/* Runs setup on the first call and tells whether the themis path exists.
 * *rc carries a setup error back to the caller. */
static bool themis_ready(mca_coll_themis_module_t *m, ompi_communicator_t *comm, int *rc)
{
    *rc = OMPI_SUCCESS;
    if (MCA_COLL_THEMIS_STATE_NEW == m->state) {
        *rc = mca_coll_themis_lazy_setup(m, comm);
    }
    return MCA_COLL_THEMIS_STATE_READY == m->state;
}

static void log_fallback(ompi_communicator_t *comm, mca_coll_themis_coll_id_t coll,
                         uint64_t bytes, const char *why)
{
    mca_coll_themis_count_fallback(coll);
    opal_output_verbose(VERBOSE_CALL, mca_coll_themis_component.output,
                        "coll:themis: %s: %s of %llu bytes -> previous component (%s)",
                        comm->c_name, mca_coll_themis_coll_name(coll),
                        (unsigned long long) bytes, why);
}

static int run_program(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                       mca_coll_themis_coll_id_t coll, const themis_program_t *prog,
                       const mca_coll_themis_plan_choice_t *choice, const void *input,
                       void *output, ompi_datatype_t *dtype, ompi_op_t *op, uint64_t bytes)
{
    mca_coll_themis_engine_args_t args = {
        .prog = prog,
        .input = input,
        .output = output,
        .dtype = dtype,
        .op = op,
        .p2p_comm = m->p2p_comm,
        .tag_ub = m->tag_ub,
        .scratch = &m->scratch,
    };
    int rc = mca_coll_themis_engine_run(&args);

    /* After communication started a fallback could not repair anything:
     * report the error. */
    if (OMPI_SUCCESS != rc) {
        opal_output_verbose(1, mca_coll_themis_component.output,
                            "coll:themis: %s: %s of %llu bytes failed in the engine: %d",
                            comm->c_name, mca_coll_themis_coll_name(coll),
                            (unsigned long long) bytes, rc);
        return rc;
    }
    mca_coll_themis_count_call(coll);
    mca_coll_themis_count_algorithm(coll, choice);
    opal_output_verbose(VERBOSE_CALL, mca_coll_themis_component.output,
                        "coll:themis: %s: %s of %llu bytes ran on themis (%s%s)", comm->c_name,
                        mca_coll_themis_coll_name(coll), (unsigned long long) bytes,
                        themis_algo_name(choice->algo),
                        choice->substituted ? ", substituted" : "");
    return OMPI_SUCCESS;
}

/* ---------------------------------------------------------------- allreduce */

int mca_coll_themis_allreduce(const void *sbuf, void *rbuf, int count,
                              struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                              struct ompi_communicator_t *comm,
                              mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const themis_program_t *prog;
    mca_coll_themis_plan_choice_t choice;
    themis_elems_t el;
    const char *why;
    size_t size = 0;
    uint64_t bytes;
    int rc;

    if (m->in_setup) {
        return m->prev_allreduce(sbuf, rbuf, count, dtype, op, comm, m->prev_allreduce_module);
    }
    if (!themis_ready(m, comm, &rc)) {
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        why = "not set up on this communicator";
        goto fallback;
    }
    ompi_datatype_type_size(dtype, &size);
    bytes = (uint64_t) count * size;
    if (bytes < m->min_bytes) {
        why = "below coll_themis_min_bytes";
        goto fallback;
    }
    if (0 == bytes) {
        mca_coll_themis_count_call(MCA_COLL_THEMIS_ALLREDUCE);
        return OMPI_SUCCESS;
    }
    if (!ompi_op_is_commute(op)) {
        why = "non-commutative op";
        goto fallback;
    }
    why = reduction_elements(dtype, (uint64_t) count, op, &el);
    if (NULL != why) {
        goto fallback;
    }

    rc = mca_coll_themis_plan_get(m, comm, THEMIS_COLL_ALLREDUCE, (uint64_t) count * el.factor,
                                  NULL, el.elem_size, &prog, &choice);
    if (OMPI_ERR_NOT_SUPPORTED == rc) {
        why = "the planners refused it (coll_themis_verbose 1 says why)";
        goto fallback;
    }
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    return run_program(m, comm, MCA_COLL_THEMIS_ALLREDUCE, prog, &choice,
                       (const char *) (MPI_IN_PLACE == sbuf ? rbuf : sbuf) + el.shift,
                       (char *) rbuf + el.shift, el.dtype, op, bytes);

fallback:
    log_fallback(comm, MCA_COLL_THEMIS_ALLREDUCE, (uint64_t) count * size, why);
    return m->prev_allreduce(sbuf, rbuf, count, dtype, op, comm, m->prev_allreduce_module);
}

/* ---------------------------------------------------------- reduce_scatter */

/* Shared by reduce_scatter and reduce_scatter_block: `rcounts` NULL means
 * every rank gets `rcount`.  Returns 1 when the caller must fall back. */
static int reduce_scatter_common(mca_coll_themis_module_t *m, mca_coll_themis_coll_id_t coll,
                                 const void *sbuf, void *rbuf, const int *rcounts, int rcount,
                                 ompi_datatype_t *dtype, ompi_op_t *op, ompi_communicator_t *comm,
                                 int *result)
{
    const int nranks = ompi_comm_size(comm);
    const themis_program_t *prog;
    mca_coll_themis_plan_choice_t choice;
    uint64_t total = 0, bytes, *counts;
    themis_elems_t el;
    const char *why;
    size_t size = 0;
    int rc;

    *result = OMPI_SUCCESS;
    if (!themis_ready(m, comm, &rc)) {
        if (OMPI_SUCCESS != rc) {
            *result = rc;
            return 0;
        }
        why = "not set up on this communicator";
        goto fallback;
    }
    ompi_datatype_type_size(dtype, &size);
    for (int r = 0; r < nranks; ++r) {
        total += (uint64_t) (NULL == rcounts ? rcount : rcounts[r]);
    }
    bytes = total * size;
    if (bytes < m->min_bytes) {
        why = "below coll_themis_min_bytes";
        goto fallback;
    }
    if (0 == bytes) {
        mca_coll_themis_count_call(coll);
        return 0;
    }
    if (!ompi_op_is_commute(op)) {
        why = "non-commutative op";
        goto fallback;
    }
    why = reduction_elements(dtype, total, op, &el);
    if (NULL != why) {
        goto fallback;
    }

    counts = malloc(sizeof(uint64_t) * (size_t) nranks);
    if (NULL == counts) {
        *result = OMPI_ERR_OUT_OF_RESOURCE;
        return 0;
    }
    for (int r = 0; r < nranks; ++r) {
        counts[r] = (uint64_t) (NULL == rcounts ? rcount : rcounts[r]) * el.factor;
    }
    rc = mca_coll_themis_plan_get(m, comm, THEMIS_COLL_REDUCE_SCATTER, total * el.factor, counts,
                                  el.elem_size, &prog, &choice);
    free(counts);
    if (OMPI_ERR_NOT_SUPPORTED == rc) {
        why = "the planners refused it (coll_themis_verbose 1 says why)";
        goto fallback;
    }
    if (OMPI_SUCCESS != rc) {
        *result = rc;
        return 0;
    }
    *result = run_program(m, comm, coll, prog, &choice,
                          (const char *) (MPI_IN_PLACE == sbuf ? rbuf : sbuf) + el.shift,
                          (char *) rbuf + el.shift, el.dtype, op, bytes);
    return 0;

fallback:
    log_fallback(comm, coll, total * size, why);
    return 1;
}

int mca_coll_themis_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm,
                                   mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    int result;

    if (m->in_setup
        || reduce_scatter_common(m, MCA_COLL_THEMIS_REDUCE_SCATTER, sbuf, rbuf, rcounts, 0,
                                 dtype, op, comm, &result)) {
        return m->prev_reduce_scatter(sbuf, rbuf, rcounts, dtype, op, comm,
                                      m->prev_reduce_scatter_module);
    }
    return result;
}

int mca_coll_themis_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                         struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                         struct ompi_communicator_t *comm,
                                         mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    int result;

    if (m->in_setup
        || reduce_scatter_common(m, MCA_COLL_THEMIS_REDUCE_SCATTER_BLOCK, sbuf, rbuf, NULL,
                                 rcount, dtype, op, comm, &result)) {
        return m->prev_reduce_scatter_block(sbuf, rbuf, rcount, dtype, op, comm,
                                            m->prev_reduce_scatter_block_module);
    }
    return result;
}

/* ---------------------------------------------------------------- allgather */

int mca_coll_themis_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                              void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                              struct ompi_communicator_t *comm,
                              mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const int nranks = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    const bool in_place = MPI_IN_PLACE == sbuf;
    const themis_program_t *prog;
    mca_coll_themis_plan_choice_t choice;
    ptrdiff_t r_lb = 0, r_extent = 0, s_lb = 0, s_extent = 0;
    size_t rsize = 0, ssize = 0;
    uint64_t block, bytes = 0;
    const char *input;
    const char *why;
    int rc;

    if (m->in_setup) {
        return m->prev_allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                 m->prev_allgather_module);
    }
    if (!themis_ready(m, comm, &rc)) {
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        why = "not set up on this communicator";
        goto fallback;
    }
    ompi_datatype_type_size(rdtype, &rsize);
    block = (uint64_t) rcount * rsize;    /* bytes per rank */
    bytes = block * (uint64_t) nranks;
    if (bytes < m->min_bytes) {
        why = "below coll_themis_min_bytes";
        goto fallback;
    }
    if (0 == bytes) {
        mca_coll_themis_count_call(MCA_COLL_THEMIS_ALLGATHER);
        return OMPI_SUCCESS;
    }
    if (!contiguous(rdtype, (uint64_t) rcount * (uint64_t) nranks)) {
        why = "non-contiguous receive datatype";
        goto fallback;
    }
    ompi_datatype_get_true_extent(rdtype, &r_lb, &r_extent);
    if (in_place) {
        input = (const char *) rbuf + r_lb + (size_t) me * block;
    } else {
        ompi_datatype_type_size(sdtype, &ssize);
        if ((uint64_t) scount * ssize != block) {
            why = "send and receive sizes differ";
            goto fallback;
        }
        if (!contiguous(sdtype, (uint64_t) scount)) {
            why = "non-contiguous send datatype";
            goto fallback;
        }
        ompi_datatype_get_true_extent(sdtype, &s_lb, &s_extent);
        input = (const char *) sbuf + s_lb;
    }

    rc = mca_coll_themis_plan_get(m, comm, THEMIS_COLL_ALLGATHER, block, NULL, 1, &prog,
                                  &choice);
    if (OMPI_ERR_NOT_SUPPORTED == rc) {
        why = "the planners refused it (coll_themis_verbose 1 says why)";
        goto fallback;
    }
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    return run_program(m, comm, MCA_COLL_THEMIS_ALLGATHER, prog, &choice, input,
                       (char *) rbuf + r_lb, MPI_BYTE, NULL, bytes);

fallback:
    log_fallback(comm, MCA_COLL_THEMIS_ALLGATHER, bytes, why);
    return m->prev_allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                             m->prev_allgather_module);
}
