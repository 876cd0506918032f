/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The execution engine: runs one rank's themis_program_t (planners/plan.h)
 * over non-blocking PML point-to-point on a private communicator, reducing
 * with ompi_op_reduce.  It executes step lists it did not design.
 */
#ifndef MCA_COLL_THEMIS_ENGINE_H
#define MCA_COLL_THEMIS_ENGINE_H

#include "ompi_config.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"
#include "plan.h"

/*
 * Scratch owned by a module and reused across calls; grows on demand and
 * is freed by mca_coll_themis_engine_scratch_release.  Its size is bounded
 * by the plan: work_count elements (when the work buffer is not the output)
 * plus inflight x queues x max_recv_count elements of receive temporaries.
 */
typedef struct mca_coll_themis_scratch_t {
    char *base;
    size_t size;
} mca_coll_themis_scratch_t;

typedef struct mca_coll_themis_engine_args_t {
    const themis_program_t *prog;
    const void *input;             /* element 0 of the program's input */
    void *output;                  /* element 0 of the output buffer */
    ompi_datatype_t *dtype;        /* contiguous; extent may exceed 2 GiB x count */
    ompi_op_t *op;                 /* NULL for pure data movement (allgather) */
    ompi_communicator_t *p2p_comm; /* private communicator: tags are ours */
    int tag_ub;                    /* MPI_TAG_UB of p2p_comm */
    mca_coll_themis_scratch_t *scratch;
} mca_coll_themis_engine_args_t;

/* Returns OMPI_SUCCESS or an OMPI error; all requests are complete or
 * cancelled when it returns. */
int mca_coll_themis_engine_run(const mca_coll_themis_engine_args_t *args);

void mca_coll_themis_engine_scratch_release(mca_coll_themis_scratch_t *scratch);

#endif
