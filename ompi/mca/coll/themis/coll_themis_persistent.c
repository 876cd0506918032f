/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Persistent collectives (MPI-4 MPI_Allreduce_init, MPI_Reduce_scatter_init,
 * MPI_Reduce_scatter_block_init, MPI_Allgather_init; Open MPI 4.1's
 * MPIX_*_init) on the engine.
 *
 * Init decides and plans once, as a call of the same arguments would
 * (coll_themis_colls.c: threshold, op, datatype, the plan cache's program),
 * pins the program and keeps a copy of the arguments; a fallback is
 * decided there too and hands the whole request to the previous component
 * (counted in coll_themis_p<coll>_fallbacks).  Each MPI_Start stages the
 * buffers' current contents if the datatype needs it and starts the
 * engine like a nonblocking call (coll_themis_nbc.c: the same progress
 * callback completes it); the request's scratch stays from start to start.
 *
 * Init may synchronise.  MPI-4.0 makes the init calls of persistent
 * collectives nonlocal and orders them like any collective
 * (mpi-forum/mpi-issues#142 asks to make them local and is not part of
 * the standard), so init runs the communicator's setup when it is the
 * first call there and duplicates the private communicator (below).
 *
 * Messages: MPI orders the init calls, not the starts (MPI 4.1 adds
 * mpi_assert_strict_persistent_collective_ordering for programs that
 * order them), so ranks may start two requests in different orders, and
 * a lane taken per start (as nonblocking calls do) could pair one
 * request's messages with another's.  Each request therefore has its own
 * private communicator, a duplicate of the module's made at init: its
 * messages cannot match those of any other call, and all its tags are its
 * own.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"
#include "ompi/request/request.h"

#include "coll_themis.h"

typedef struct {
    mca_coll_themis_request_t super;
    mca_coll_themis_call_t call;        /* the init's arguments */
    int *rcounts;                       /* reduce_scatter: a copy of the init's */
    mca_coll_themis_planned_t planned;  /* prog and layout: the copies below */
    themis_program_t prog;              /* arrays held by the request's pin */
    mca_coll_themis_engine_layout_t layout;
} persistent_request_t;

static void persistent_destruct(persistent_request_t *req)
{
    free(req->rcounts);
    mca_coll_themis_planned_free(&req->planned);
}

OBJ_CLASS_INSTANCE(persistent_request_t, mca_coll_themis_request_t, NULL, persistent_destruct);

/* MPI_Start and MPI_Startall (Open MPI groups requests of one start
 * function).  The requests are inactive (the bindings check it). */
static int persistent_start(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; ++i) {
        persistent_request_t *req = (persistent_request_t *) requests[i];
        mca_coll_themis_request_t *r = &req->super;
        int rc = OMPI_SUCCESS;

        r->super.super.req_state = OMPI_REQUEST_ACTIVE;
        r->super.super.req_complete = REQUEST_PENDING;
        r->super.super.req_status.MPI_ERROR = OMPI_SUCCESS;
        if (req->planned.empty) {
            mca_coll_themis_count_call(req->call.id);
            r->done = false;
            mca_coll_themis_request_complete_now(r, OMPI_SUCCESS);
            continue;
        }
        rc = mca_coll_themis_call_run(r->module, r->comm, &req->call, &req->planned);
        if (OMPI_SUCCESS != rc) {
            /* Nothing was sent: the request is inactive again. */
            r->super.super.req_state = OMPI_REQUEST_INACTIVE;
            r->super.super.req_complete = REQUEST_COMPLETED;
            r->done = true;
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* Arguments copied, plan pinned, the private communicator made. */
int mca_coll_themis_persistent_create(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                                      const mca_coll_themis_call_t *c,
                                      mca_coll_themis_planned_t *p)
{
    persistent_request_t *req = OBJ_NEW(persistent_request_t);
    mca_coll_themis_request_t *r;
    char name[MPI_MAX_OBJECT_NAME];
    int rc = OMPI_SUCCESS;

    if (NULL == req) {
        mca_coll_themis_planned_free(p);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    r = &req->super;
    mca_coll_themis_request_init(r, m, comm);
    OMPI_REQUEST_INIT(&r->super.super, true);   /* persistent, complete: inactive */
    r->super.super.req_state = OMPI_REQUEST_INACTIVE;
    r->super.super.req_start = persistent_start;
    r->persistent = true;
    r->done = true;
    req->call = *c;
    req->call.request = NULL;
    req->call.persist = r;
    req->planned = *p;   /* takes p->counts */
    req->rcounts = NULL;
    if (!p->empty) {
        /* Collective: first, before anything that can fail on one rank. */
        snprintf(name, sizeof(name), "coll/themis persistent %s of %.30s",
                 mca_coll_themis_coll_name(c->id), comm->c_name);
        rc = mca_coll_themis_private_comm(m->p2p_comm, name, &r->p2p_comm, &r->p2p_index,
                                          &r->tag_ub);
        if (OMPI_SUCCESS != rc) {
            mca_coll_themis_request_release(r);
            return rc;
        }
    }
    if (NULL != c->rcounts) {
        const size_t n = (size_t) ompi_comm_size(comm);
        req->rcounts = malloc(sizeof(int) * n);
        if (NULL == req->rcounts) {
            mca_coll_themis_request_release(r);
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        memcpy(req->rcounts, c->rcounts, sizeof(int) * n);
        req->call.rcounts = req->rcounts;
    }
    if (!p->empty) {
        const bool gather = MCA_COLL_THEMIS_ALLGATHER == mca_coll_themis_blocking_id(c->id);
        const mca_coll_themis_engine_args_t args = {
            .prog = p->prog, .dtype = gather ? MPI_BYTE : p->el.dtype, .op = c->op};
        r->fin.dtype = c->dtype;
        rc = mca_coll_themis_request_hold(r, &args);
        r->fin.dtype = NULL;
        if (OMPI_SUCCESS == rc) {
            /* The pin keeps the arrays if the cache lets the entry go. */
            req->prog = *p->prog;
            req->layout = *p->layout;
            req->planned.prog = &req->prog;
            req->planned.layout = &req->layout;
        }
        if (OMPI_SUCCESS != rc) {
            mca_coll_themis_request_release(r);
            return rc;
        }
    }
    *c->request = &r->super.super;
    return OMPI_SUCCESS;
}

int mca_coll_themis_allreduce_init(const void *sbuf, void *rbuf, int count,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                   ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_PALLREDUCE];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_PALLREDUCE,
                                      .coll = THEMIS_COLL_ALLREDUCE, .sbuf = sbuf, .rbuf = rbuf,
                                      .dtype = dtype, .op = op, .count = count,
                                      .request = request};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.allreduce_init(sbuf, rbuf, count, dtype, op, comm, info, request,
                                               p->module));
}

int mca_coll_themis_reduce_scatter_init(const void *sbuf, void *rbuf, const int *rcounts,
                                        struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                        struct ompi_communicator_t *comm,
                                        struct ompi_info_t *info, ompi_request_t **request,
                                        mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_PREDUCE_SCATTER];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_PREDUCE_SCATTER,
                                      .coll = THEMIS_COLL_REDUCE_SCATTER, .sbuf = sbuf,
                                      .rbuf = rbuf, .dtype = dtype, .op = op,
                                      .rcounts = rcounts, .request = request};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.reduce_scatter_init(sbuf, rbuf, rcounts, dtype, op, comm, info,
                                                    request, p->module));
}

int mca_coll_themis_reduce_scatter_block_init(const void *sbuf, void *rbuf, int rcount,
                                              struct ompi_datatype_t *dtype,
                                              struct ompi_op_t *op,
                                              struct ompi_communicator_t *comm,
                                              struct ompi_info_t *info,
                                              ompi_request_t **request,
                                              mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_PREDUCE_SCATTER_BLOCK];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_PREDUCE_SCATTER_BLOCK,
                                      .coll = THEMIS_COLL_REDUCE_SCATTER, .sbuf = sbuf,
                                      .rbuf = rbuf, .dtype = dtype, .op = op, .rcount = rcount,
                                      .request = request};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.reduce_scatter_block_init(sbuf, rbuf, rcount, dtype, op, comm, info,
                                                          request, p->module));
}

int mca_coll_themis_allgather_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                   void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                   struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                   ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_PALLGATHER];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_PALLGATHER,
                                      .coll = THEMIS_COLL_ALLGATHER, .sbuf = sbuf, .rbuf = rbuf,
                                      .dtype = rdtype, .count = rcount, .scount = scount,
                                      .sdtype = sdtype, .request = request};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.allgather_init(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                               info, request, p->module));
}
