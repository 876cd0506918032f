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
 * counts) and the agreed setup.  Datatype layout is not one of them (a
 * rank may send a vector where the others send contiguous data), so it
 * never decides the path: non-contiguous data is staged (below).
 *
 * Elements: predefined types run as given.  A derived type with a
 * predefined op runs as its single predefined base type (count x n), as
 * the predefined reduction functions loop over base elements; one without
 * a single base type falls back (the type signature decides, so every
 * rank does).  With a user-defined op the user's type is kept, so the op
 * sees what it was written for.  Allgather moves bytes.
 *
 * Staging, per call, only for non-contiguous data:
 *   PACK     data packed into contiguous base elements (allgather: bytes)
 *            and unpacked into the user's buffer afterwards;
 *   LAYOUT   a user op (or a predefined type with holes, such as
 *            MPI_SHORT_INT) keeps its type: the data is copied into a
 *            private span of count x extent bytes, the engine runs there
 *            in place, and the result is copied back, so nothing outside
 *            the type map of the user's buffer is ever written.
 * Buffers are bases for the type's displacements, so MPI_BOTTOM with
 * absolute addresses works as given.  Byte counts are 64-bit throughout:
 * int counts of large types exceed 2 GiB of data.
 *
 * Observing, never deciding: with coll_themis_trace every call and every
 * fallback is recorded (coll_themis_trace.c), and a program of many tiny
 * messages is warned about once per process (below).
 */
#include "ompi_config.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>

#include "opal/datatype/opal_convertor.h"
#include "opal/util/output.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include "coll_themis.h"
#include "util.h"

#define VERBOSE_CALL 20

/*
 * The tiny-messages warning.  Every transfer has a fixed cost the latency
 * model does not see (matching; within one node a CPU copy through shared
 * memory and, oversubscribed, a context switch), so a program of thousands
 * of small transfers runs far slower than its schedule predicts (a 16 MiB
 * allreduce on 8 ranks of one node with coll_themis_min_chunk_bytes=1:
 * 3.4 s against 0.38 s for stock Open MPI).  A call is flagged when this rank
 * sends and receives more than TINY_MESSAGES transfers averaging below
 * TINY_AVG_NODE bytes within one node, or below TINY_AVG_NETWORK across
 * nodes.  The automatic chunk floors stay clear of both: 2 MiB chunks
 * within one node give transfers of 16 KiB and more up to 128 ranks, and
 * across nodes, where the NIC moves the bytes, the default 1024 chunks of
 * 16 KiB (2-4 KiB transfers) measured fastest on netbed
 * (benchmarks/README.md).
 */
#define TINY_MESSAGES 1000
#define TINY_AVG_NODE (16 * 1024)
#define TINY_AVG_NETWORK 1024

static bool contiguous(ompi_datatype_t *dtype, uint64_t count)
{
    /* Contiguity of n > 1 elements does not depend on n. */
    return 0 != ompi_datatype_is_contiguous_memory_layout(dtype, count > 1 ? 2 : 1);
}

/* Returns NULL when the data can run, else why not (the answer depends
 * on the type signature and the op only). */
static const char *reduction_elements(ompi_datatype_t *dtype, uint64_t count, ompi_op_t *op,
                                      mca_coll_themis_elems_t *out)
{
    size_t size = 0;
    const bool contig = contiguous(dtype, count);

    ompi_datatype_type_size(dtype, &size);
    out->shift = 0;
    if (ompi_datatype_is_predefined(dtype) || !ompi_op_is_intrinsic(op)) {
        out->dtype = dtype;
        out->factor = 1;
        out->elem_size = size;
        out->stage = contig ? MCA_COLL_THEMIS_STAGE_NONE : MCA_COLL_THEMIS_STAGE_LAYOUT;
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
    out->stage = contig ? MCA_COLL_THEMIS_STAGE_NONE : MCA_COLL_THEMIS_STAGE_PACK;
    out->shift = contig ? true_lb : 0;
    return NULL;
}

/* ------------------------------------------------------------- staging */

/* Packs (to_user false) `count` elements of `dtype` at `user` into the
 * contiguous `flat`, or unpacks them back (to_user true). */
static int convert(void *user, ompi_datatype_t *dtype, uint64_t count, void *flat,
                   size_t bytes, bool to_user)
{
    opal_convertor_t conv;
    size_t done = 0;
    int rc = OMPI_SUCCESS;

    OBJ_CONSTRUCT(&conv, opal_convertor_t);
    if (to_user) {
        rc = opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &dtype->super,
                                                      (size_t) count, user, 0, &conv);
    } else {
        rc = opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &dtype->super,
                                                      (size_t) count, user, 0, &conv);
    }
    while (OMPI_SUCCESS == rc && done < bytes) {
        struct iovec iov = {.iov_base = (char *) flat + done, .iov_len = bytes - done};
        uint32_t niov = 1;
        size_t max_data = bytes - done;
        int32_t r = to_user ? opal_convertor_unpack(&conv, &iov, &niov, &max_data)
                            : opal_convertor_pack(&conv, &iov, &niov, &max_data);
        if (r < 0 || 0 == max_data) {
            rc = OMPI_ERROR;
            break;
        }
        done += max_data;
    }
    OBJ_DESTRUCT(&conv);
    return rc;
}

/* `count` elements of `dtype` at `user` (`bytes` of data) as a pointer
 * to contiguous bytes: the user's own when contiguous, else a copy in
 * *stage, packed when pack is set (else left for the caller to fill). */
static int flat_bytes(void *user, ompi_datatype_t *dtype, uint64_t count, size_t bytes,
                      bool pack, char **stage, char **flat)
{
    ptrdiff_t lb = 0, extent = 0;

    ompi_datatype_get_true_extent(dtype, &lb, &extent);
    *stage = NULL;
    *flat = (char *) user + lb;
    if (contiguous(dtype, count)) {
        return OMPI_SUCCESS;
    }
    *stage = malloc(bytes > 0 ? bytes : 1);
    if (NULL == *stage) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *flat = *stage;
    return pack ? convert(user, dtype, count, *stage, bytes, false) : OMPI_SUCCESS;
}

/* Bytes that `count` elements of `dtype` span from their true lower bound. */
static int span_bytes(ompi_datatype_t *dtype, uint64_t count, size_t *bytes)
{
    ptrdiff_t extent = 0, true_lb = 0, true_extent = 0;

    ompi_datatype_type_extent(dtype, &extent);
    ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
    if (0 == count) {
        *bytes = 0;
        return OMPI_SUCCESS;
    }
    if (extent <= 0 || true_extent <= 0
        || __builtin_mul_overflow((size_t) (count - 1), (size_t) extent, bytes)
        || __builtin_add_overflow(*bytes, (size_t) true_extent, bytes)) {
        return OMPI_ERR_BAD_PARAM;
    }
    return OMPI_SUCCESS;
}

/* A reduction's data in staging (el->stage != MCA_COLL_THEMIS_STAGE_NONE): copies `count`
 * user elements from `src` into *stage and returns the engine's buffer
 * pointer for them in *buf. */
static int stage_in(const mca_coll_themis_elems_t *el, ompi_datatype_t *dtype, const void *src,
                    uint64_t count, char **stage, char **buf)
{
    ptrdiff_t true_lb = 0, true_extent = 0;
    size_t size = 0, bytes = 0;
    int rc;

    *stage = NULL;
    ompi_datatype_type_size(dtype, &size);
    if (MCA_COLL_THEMIS_STAGE_PACK == el->stage) {   /* only non-contiguous data is staged */
        if (__builtin_mul_overflow((size_t) count, size, &bytes)) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        return flat_bytes((void *) src, dtype, count, bytes, true, stage, buf);
    }
    rc = span_bytes(dtype, count, &bytes);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    *stage = malloc(bytes > 0 ? bytes : 1);
    if (NULL == *stage) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
    *buf = *stage - true_lb;
    return ompi_datatype_copy_content_same_ddt(dtype, (size_t) count, *buf, (char *) src);
}

/* Runs setup on a blocking (or persistent init) first call and tells
 * whether the themis path exists; a blocking call or persistent init made
 * while a nonblocking setup runs waits for it and for the calls deferred
 * behind it (they come first in the call order).  *rc carries a setup error back to the caller. */
static bool themis_ready(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                         const mca_coll_themis_call_t *c, int *rc)
{
    *rc = OMPI_SUCCESS;
    if (MCA_COLL_THEMIS_STATE_NEW == m->state) {
        *rc = mca_coll_themis_lazy_setup(m, comm);
    } else if ((NULL == c->request || c->id >= 2 * MCA_COLL_THEMIS_NBLOCKING)
               && mca_coll_themis_setup_busy(m)) {
        mca_coll_themis_setup_wait(m);
    }
    return MCA_COLL_THEMIS_STATE_READY == m->state;
}

/* Whether a return address lies in MPI's binding of MPI_Iallreduce
 * (PMPI_Iallreduce; MPI_Iallreduce is its alias, and Fortran's and
 * profiling tools' wrappers call it): the user's call.  Its code range,
 * once found, is kept (every thread would find the same). */
static bool from_binding(const void *ret)
{
    static uintptr_t lo, hi;   /* [lo, hi): PMPI_Iallreduce, once found */
    const uintptr_t a = (uintptr_t) ret;
    const ElfW(Sym) *sym = NULL;
    Dl_info info;

    if (0 != __atomic_load_n(&hi, __ATOMIC_ACQUIRE)) {
        return __atomic_load_n(&lo, __ATOMIC_RELAXED) <= a && a < hi;
    }
    if (NULL == ret || 0 == dladdr1(ret, &info, (void **) &sym, RTLD_DL_SYMENT)
        || NULL == sym || NULL == info.dli_sname || NULL == info.dli_saddr
        || a >= (uintptr_t) info.dli_saddr + sym->st_size
        || (0 != strcmp(info.dli_sname, "PMPI_Iallreduce")
            && 0 != strcmp(info.dli_sname, "MPI_Iallreduce"))) {
        return false;
    }
    __atomic_store_n(&lo, (uintptr_t) info.dli_saddr, __ATOMIC_RELAXED);
    __atomic_store_n(&hi, (uintptr_t) info.dli_saddr + sym->st_size, __ATOMIC_RELEASE);
    return true;
}

/* Open MPI agrees on communicator ids with MPI_Iallreduce of one MPI_INT
 * (MPI_MAX, then MPI_MIN) on the parent, started from inside progress;
 * our own nonblocking setup duplicates the communicator that way.  Those
 * calls never wait behind the setup they are part of, and they must not
 * go to the previous component either: its nonblocking collectives on
 * the parent are matched by call order (coll/libnbc numbers them), and a
 * call started from progress takes a place in that order that differs
 * between ranks, so the user's own nonblocking collectives would match
 * the wrong messages.  They run here by point-to-point with a tag of
 * their own (mca_coll_themis_cid_start), whatever the state, counted
 * apart (coll_themis_cid_agreements).  Open MPI calls the module
 * directly (ompi/communicator/comm_cid.c), the user through MPI's
 * binding: who called decides, the same code on every rank, so a user's
 * own one-int MPI_MAX takes the path of any call (if the binding cannot
 * be found, e.g. a static libmpi without symbols, it is taken for an
 * agreement, which computes the same value). */
static bool cid_agreement(const mca_coll_themis_call_t *c)
{
    return MCA_COLL_THEMIS_IALLREDUCE == c->id && 1 == c->count && MPI_INT == c->dtype
           && (MPI_MAX == c->op || MPI_MIN == c->op) && !from_binding(c->caller);
}

/* A nonblocking call: starts the nonblocking setup on a new communicator
 * and, while it runs, defers the call behind it (*deferred, the request
 * returned). */
static int nb_setup(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                    const mca_coll_themis_call_t *c, bool *deferred)
{
    mca_coll_themis_request_t *req;
    int rc;

    *deferred = false;
    if (MCA_COLL_THEMIS_STATE_NEW == m->state) {
        rc = mca_coll_themis_setup_start(m, comm);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (!mca_coll_themis_setup_busy(m)) {
        return OMPI_SUCCESS;
    }
    req = mca_coll_themis_request_new(m, comm);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    req->call = malloc(sizeof(*c));
    if (NULL == req->call) {
        mca_coll_themis_request_release(req);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    memcpy(req->call, c, sizeof(*c));
    req->dtypes[0] = c->dtype;
    OBJ_RETAIN(c->dtype);
    if (NULL != c->sdtype) {
        req->dtypes[1] = c->sdtype;
        OBJ_RETAIN(c->sdtype);
    }
    if (NULL != c->op) {
        req->op = c->op;
        OBJ_RETAIN(c->op);
    }
    *deferred = mca_coll_themis_defer(m, req);
    if (!*deferred) {
        mca_coll_themis_request_release(req);   /* the setup ended meanwhile */
        return MCA_COLL_THEMIS_STATE_PENDING == m->state ? OMPI_ERR_OUT_OF_RESOURCE
                                                         : OMPI_SUCCESS;
    }
    *c->request = &req->super.super;
    return OMPI_SUCCESS;
}

/* Below the decision's threshold (coll_themis_min_bytes or a rule's)? */
static bool below_min_bytes(const mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                            themis_coll_t coll, uint64_t bytes)
{
    mca_coll_themis_decision_t d;
    mca_coll_themis_decide(m, ompi_comm_size(comm), coll, bytes, &d);
    return bytes < d.min_bytes;
}

static void log_fallback(ompi_communicator_t *comm, mca_coll_themis_coll_id_t coll,
                         uint64_t bytes, const char *why)
{
    mca_coll_themis_count_fallback(coll);
    if (mca_coll_themis_trace_on()) {
        mca_coll_themis_trace_fallback(comm, coll, bytes, why);
    }
    /* every rank falls back alike: the lowest one says so */
    if (0 == ompi_comm_rank(comm)) {
        opal_output_verbose(VERBOSE_CALL, mca_coll_themis_component.output,
                            "coll:themis: %s: %s of %llu bytes -> previous component (%s)",
                            comm->c_name, mca_coll_themis_coll_name(coll),
                            (unsigned long long) bytes, why);
    }
}

/* A call of 0 bytes at or above min_bytes: done, without a program (a
 * nonblocking one gets a request complete at once). */
static int empty_call(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                      const mca_coll_themis_call_t *c, size_t dtype_size)
{
    const mca_coll_themis_coll_id_t coll = c->id;

    if (NULL != c->request) {
        mca_coll_themis_request_t *req = mca_coll_themis_request_new(m, comm);
        if (NULL == req) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        mca_coll_themis_request_complete_now(req, OMPI_SUCCESS);
        *c->request = &req->super.super;
    }
    mca_coll_themis_count_call(coll);
    if (mca_coll_themis_trace_on()) {
        mca_coll_themis_trace_call_t t = {.comm = comm, .coll = coll, .dtype_size = dtype_size,
                                          .module = m};
        mca_coll_themis_trace_call(&t);
    }
    return OMPI_SUCCESS;
}

void mca_coll_themis_plan_messages(const themis_program_t *prog, size_t elem_size,
                                   mca_coll_themis_plan_choice_t *choice)
{
    uint64_t n = 0, elems = 0;

    /* stored steps, each as many times as its run has copies (counts and
     * peers are every copy's, program_runs.h) */
    themis_program_walk_t walk = {0, 0};
    for (uint32_t i = 0, ns = themis_program_stored_steps(prog); i < ns; ++i) {
        const themis_step_t *s = &prog->steps[i];
        uint32_t logical;
        const themis_program_run_t *r = themis_program_walk(prog, &walk, 1, i, &logical);
        const uint64_t w = NULL != r ? r->count : 1;
        if (s->send_peer >= 0 && s->send_count > 0) {
            n += w;
            elems += w * s->send_count;
        }
        if (s->recv_peer >= 0 && s->recv_count > 0) {
            n += w;
            elems += w * s->recv_count;
        }
    }
    choice->messages = n;
    choice->message_bytes = elems * elem_size;
}

/* Counts a call whose program makes many tiny messages; shows why once
 * per process, on rank 0 of the call's communicator (one message for all
 * its ranks, whose programs are alike). */
static void check_tiny(const mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                       mca_coll_themis_coll_id_t coll, const mca_coll_themis_plan_choice_t *choice,
                       uint64_t bytes)
{
    static bool shown = false;
    const mca_coll_themis_component_t *c = &mca_coll_themis_component;
    const uint64_t avg_limit = m->spans_nodes ? TINY_AVG_NETWORK : TINY_AVG_NODE;

    if (choice->messages <= TINY_MESSAGES
        || choice->message_bytes >= avg_limit * choice->messages) {
        return;
    }
    mca_coll_themis_count_tiny();
    if (0 != ompi_comm_rank(comm) || __atomic_exchange_n(&shown, true, __ATOMIC_RELAXED)) {
        return;
    }
    mca_coll_themis_show_help("tiny-messages", comm->c_name, ompi_comm_size(comm),
                              mca_coll_themis_coll_name(coll), (unsigned long long) bytes,
                              (unsigned long long) choice->messages,
                              (unsigned long long) (choice->message_bytes / choice->messages),
                              TINY_MESSAGES, (unsigned long long) avg_limit,
                              m->spans_nodes ? "that spans nodes" : "within one node",
                              choice->nchunks, c->config.chunks,
                              (unsigned long long) m->min_chunk_bytes,
                              0 == c->config.min_chunk_bytes ? " (automatic)" : "");
}

int mca_coll_themis_call_finish(mca_coll_themis_finish_t *f, int rc)
{
    if (OMPI_SUCCESS == rc && MCA_COLL_THEMIS_UNSTAGE_COPY == f->unstage) {
        rc = ompi_datatype_copy_content_same_ddt(f->dtype, (size_t) f->count, f->out, f->buf);
    } else if (OMPI_SUCCESS == rc && MCA_COLL_THEMIS_UNSTAGE_UNPACK == f->unstage) {
        rc = convert(f->out, f->dtype, f->count, f->buf, f->nbytes, true);
    }
    free(f->stage[0]);
    free(f->stage[1]);
    f->stage[0] = f->stage[1] = NULL;
    if (f->trace) {
        f->t.end_ns = themis_now_ns();
        if (OMPI_SUCCESS == rc) {
            mca_coll_themis_trace_call(&f->t);
        }
        free(f->op_ns);
        f->op_ns = NULL;
    }

    /* After communication started a fallback could not repair anything:
     * report the error. */
    if (OMPI_SUCCESS != rc) {
        opal_output_verbose(1, mca_coll_themis_component.output,
                            "coll:themis: %s: rank %d: %s of %llu bytes failed in the engine: %d",
                            f->comm->c_name, ompi_comm_rank(f->comm),
                            mca_coll_themis_coll_name(f->coll), (unsigned long long) f->bytes, rc);
        return rc;
    }
    mca_coll_themis_count_call(f->coll);
    mca_coll_themis_count_algorithm(f->coll, &f->choice);
    check_tiny(f->module, f->comm, f->coll, &f->choice, f->bytes);
    if (0 == ompi_comm_rank(f->comm)) {   /* alike on every rank: said once */
        opal_output_verbose(VERBOSE_CALL, mca_coll_themis_component.output,
                            "coll:themis: %s: %s of %llu bytes ran on themis (%s%s)",
                            f->comm->c_name, mca_coll_themis_coll_name(f->coll),
                            (unsigned long long) f->bytes,
                            mca_coll_themis_algorithm_name(f->choice.algo),
                            f->choice.substituted ? ", substituted" : "");
    }
    return OMPI_SUCCESS;
}

/* A nonblocking call, or a start of a persistent one: the engine runs
 * from progress, fin goes with the request (its staging included). */
static int start_program(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                         const mca_coll_themis_call_t *c, const mca_coll_themis_blocks_t *blocks,
                         mca_coll_themis_engine_args_t *args, mca_coll_themis_finish_t *fin)
{
    mca_coll_themis_request_t *req = c->persist;
    int rc;

    if (NULL == req) {
        req = mca_coll_themis_request_new(m, comm);
        if (NULL == req) {
            return mca_coll_themis_call_finish(fin, OMPI_ERR_OUT_OF_RESOURCE);
        }
    }
    req->fin = *fin;
    req->fin.t.choice = &req->fin.choice;
    req->fin.t.prog = &req->fin.prog;
    if (NULL != c->persist) {
        /* The request's own communicator, scratch and pinned program. */
        rc = mca_coll_themis_request_launch(req, args, blocks);
        if (OMPI_SUCCESS != rc) {
            (void) mca_coll_themis_call_finish(&req->fin, rc);
        }
        return rc;
    }
    rc = mca_coll_themis_request_start(req, args, blocks);   /* releases req on error */
    if (OMPI_SUCCESS == rc) {
        *c->request = &req->super.super;
    }
    return rc;
}

/* p->blocks: for reduce-scatter and allgather the call's counts, so that
 * a large one can run in segments (its buffers and types are the ones
 * given here).  fin holds the call's staging (or none); it is finished
 * here, or handed to the request of a nonblocking or persistent call. */
static int run_program(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                       const mca_coll_themis_call_t *c, const mca_coll_themis_planned_t *p,
                       const void *input, void *output, ompi_datatype_t *dtype,
                       size_t dtype_size, mca_coll_themis_finish_t *fin)
{
    mca_coll_themis_engine_args_t args = {
        .prog = p->prog,
        .layout = p->layout,
        .input = input,
        .output = output,
        .dtype = dtype,
        .op = c->op,
        .p2p_comm = m->p2p_comm,
        .tag_ub = m->tag_ub,
        .scratch = &m->scratch,
    };
    uint64_t segments = 1;
    int rc;

    fin->module = m;
    fin->comm = comm;
    fin->coll = c->id;
    fin->bytes = p->bytes;
    fin->dtype_size = dtype_size;
    fin->choice = p->choice;
    fin->prog = *p->prog;
    fin->trace = mca_coll_themis_trace_on();
    fin->t = (mca_coll_themis_trace_call_t){.comm = comm, .coll = c->id, .bytes = p->bytes,
                                             .dtype_size = dtype_size, .module = m,
                                             .prog = &fin->prog, .choice = &fin->choice};
    if (fin->trace) {
        /* Without memory for the times the record lists no ops. */
        fin->op_ns = calloc(2 * (size_t) p->prog->nops + 1, sizeof(uint64_t));
        ompi_datatype_type_size(dtype, &fin->t.elem_size);
        fin->t.op_ns = fin->op_ns;
        fin->t.start_ns = themis_now_ns();
    }
    args.op_ns = fin->op_ns;
    if (NULL != c->request || NULL != c->persist) {
        return start_program(m, comm, c, &p->blocks, &args, fin);
    }

    /* Blocking: start and wait on the same engine, in a lane like any
     * call (nonblocking ones may be outstanding on the communicator). */
    args.lane = mca_coll_themis_lane_acquire(m);
    args.nlanes = m->nlanes;
    rc = mca_coll_themis_run_blocks(m, comm, &p->blocks, &args, &segments);
    mca_coll_themis_lane_release(m, args.lane);
    if (segments > 1) {
        fin->t.op_ns = NULL;   /* the segments ran other programs: no op times */
    }
    return mca_coll_themis_call_finish(fin, rc);
}

/* A reduction reading `count_in` elements at `in` and writing `count_out`
 * at `out` (the user's type), through staging when p->el says so. */
static int run_reduction(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                         const mca_coll_themis_call_t *c, const mca_coll_themis_planned_t *p,
                         const void *in, uint64_t count_in, void *out, uint64_t count_out)
{
    const mca_coll_themis_elems_t *el = &p->el;
    mca_coll_themis_finish_t fin;
    char *stage = NULL, *buf = NULL;
    size_t dtype_size = 0;
    int rc;

    memset(&fin, 0, sizeof(fin));
    ompi_datatype_type_size(c->dtype, &dtype_size);
    if (MCA_COLL_THEMIS_STAGE_NONE == el->stage) {
        return run_program(m, comm, c, p, (const char *) in + el->shift,
                           (char *) out + el->shift, el->dtype, dtype_size, &fin);
    }
    /* The engine reads its input only before it writes its output, so the
     * staged data can be both (as with MPI_IN_PLACE). */
    rc = stage_in(el, c->dtype, in, count_in, &stage, &buf);
    if (OMPI_SUCCESS != rc) {
        free(stage);
        return rc;
    }
    fin.stage[0] = stage;
    fin.unstage = MCA_COLL_THEMIS_STAGE_PACK == el->stage ? MCA_COLL_THEMIS_UNSTAGE_UNPACK
                                                          : MCA_COLL_THEMIS_UNSTAGE_COPY;
    fin.dtype = c->dtype;
    fin.out = out;
    fin.count = count_out;
    fin.buf = buf;
    fin.nbytes = (size_t) count_out * dtype_size;
    return run_program(m, comm, c, p, buf, buf, el->dtype, dtype_size, &fin);
}

/* Why no row serves the call, kept past the call's choice (which is
 * local to the collective's body) until the fallback is logged. */
static const char *refusal(const mca_coll_themis_plan_choice_t *choice)
{
    return NULL != choice->why_refused ? choice->why_refused : "the planners refused it";
}

/* Element count of the full vector, in the user's type. */
static uint64_t call_elements(const mca_coll_themis_call_t *c, int nranks)
{
    uint64_t total = 0;
    switch (mca_coll_themis_blocking_id(c->id)) {
    case MCA_COLL_THEMIS_REDUCE_SCATTER:
    case MCA_COLL_THEMIS_REDUCE_SCATTER_BLOCK:
        for (int r = 0; r < nranks; ++r) {
            total += (uint64_t) (NULL == c->rcounts ? c->rcount : c->rcounts[r]);
        }
        return total;
    case MCA_COLL_THEMIS_ALLGATHER:
        return (uint64_t) c->count * (uint64_t) nranks;
    case MCA_COLL_THEMIS_ALLREDUCE:
    default:
        return (uint64_t) c->count;
    }
}

static int plan_allreduce(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                          const mca_coll_themis_call_t *c, mca_coll_themis_planned_t *p,
                          const char **why)
{
    ptrdiff_t extent = 0;
    int rc;

    *why = reduction_elements(c->dtype, (uint64_t) c->count, c->op, &p->el);
    if (NULL != *why) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    rc = mca_coll_themis_plan_get(m, comm, THEMIS_COLL_ALLREDUCE,
                                  (uint64_t) c->count * p->el.factor, NULL, p->el.elem_size,
                                  &p->prog, &p->layout, &p->choice);
    if (OMPI_SUCCESS != rc) {
        *why = refusal(&p->choice);
        return rc;
    }
    ompi_datatype_type_extent(p->el.dtype, &extent);
    p->blocks = (mca_coll_themis_blocks_t){.coll = THEMIS_COLL_ALLREDUCE,
                                           .count = (uint64_t) c->count * p->el.factor,
                                           .elem_size = p->el.elem_size,
                                           .extent = (size_t) extent};
    return OMPI_SUCCESS;
}

/* Both reduce-scatters. */
static int plan_reduce_scatter(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                               const mca_coll_themis_call_t *c, mca_coll_themis_planned_t *p,
                               const char **why)
{
    const int nranks = ompi_comm_size(comm);
    ptrdiff_t extent = 0;
    int rc;

    *why = reduction_elements(c->dtype, p->total, c->op, &p->el);
    if (NULL != *why) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    p->counts = malloc(sizeof(uint64_t) * (size_t) nranks);
    if (NULL == p->counts) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int r = 0; r < nranks; ++r) {
        p->counts[r] = (uint64_t) (NULL == c->rcounts ? c->rcount : c->rcounts[r]) * p->el.factor;
    }
    rc = mca_coll_themis_plan_get(m, comm, THEMIS_COLL_REDUCE_SCATTER, p->total * p->el.factor,
                                  p->counts, p->el.elem_size, &p->prog, &p->layout, &p->choice);
    if (OMPI_SUCCESS != rc) {
        *why = refusal(&p->choice);
        return rc;
    }
    ompi_datatype_type_extent(p->el.dtype, &extent);
    p->blocks = (mca_coll_themis_blocks_t){.coll = THEMIS_COLL_REDUCE_SCATTER,
                                           .counts = p->counts, .elem_size = p->el.elem_size,
                                           .extent = (size_t) extent};
    return OMPI_SUCCESS;
}

/* ---------------------------------------------------------------- allgather */

static int plan_allgather(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                          const mca_coll_themis_call_t *c, mca_coll_themis_planned_t *p,
                          const char **why)
{
    const uint64_t block = p->bytes / (uint64_t) ompi_comm_size(comm);
    size_t ssize = 0;
    int rc;

    if (MPI_IN_PLACE != c->sbuf) {
        ompi_datatype_type_size(c->sdtype, &ssize);
        if ((uint64_t) c->scount * ssize != block) {
            /* An erroneous program; falling back on this rank alone would
             * leave the others waiting. */
            opal_output(0, "coll:themis: %s: allgather sends %llu bytes but receives %llu "
                        "per rank: type signatures differ", comm->c_name,
                        (unsigned long long) ((uint64_t) c->scount * ssize),
                        (unsigned long long) block);
            return MPI_ERR_TRUNCATE;
        }
    }
    rc = mca_coll_themis_plan_get(m, comm, THEMIS_COLL_ALLGATHER, block, NULL, 1, &p->prog,
                                  &p->layout, &p->choice);
    if (OMPI_SUCCESS != rc) {
        *why = refusal(&p->choice);
        return rc;
    }
    p->blocks = (mca_coll_themis_blocks_t){.coll = THEMIS_COLL_ALLGATHER, .count = block,
                                           .elem_size = 1, .extent = 1};
    return OMPI_SUCCESS;
}

/* Layouts may differ between ranks (MPI matches signatures only):
 * non-contiguous sides are packed here, so every rank runs the same
 * program on contiguous bytes. */
static int run_allgather(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                         const mca_coll_themis_call_t *c, const mca_coll_themis_planned_t *p)
{
    const int nranks = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    const uint64_t block = p->blocks.count;
    ptrdiff_t r_extent = 0;
    size_t rsize = 0;
    char *in_stage = NULL, *out_stage = NULL, *input = NULL, *output = NULL;
    int rc;

    ompi_datatype_type_extent(c->dtype, &r_extent);
    ompi_datatype_type_size(c->dtype, &rsize);
    rc = flat_bytes(c->rbuf, c->dtype, (uint64_t) c->count * (uint64_t) nranks,
                    (size_t) p->bytes, false, &out_stage, &output);
    if (OMPI_SUCCESS == rc && MPI_IN_PLACE == c->sbuf) {
        if (NULL == out_stage) {
            input = output + (size_t) me * block;
        } else {
            rc = flat_bytes((char *) c->rbuf + (ptrdiff_t) me * c->count * r_extent, c->dtype,
                            (uint64_t) c->count, (size_t) block, true, &in_stage, &input);
        }
    } else if (OMPI_SUCCESS == rc) {
        rc = flat_bytes((void *) c->sbuf, c->sdtype, (uint64_t) c->scount, (size_t) block,
                        true, &in_stage, &input);
    }
    if (OMPI_SUCCESS != rc) {
        free(in_stage);
        free(out_stage);
        return rc;
    }
    mca_coll_themis_finish_t fin;
    memset(&fin, 0, sizeof(fin));
    fin.stage[0] = in_stage;
    fin.stage[1] = out_stage;
    if (NULL != out_stage) {
        fin.unstage = MCA_COLL_THEMIS_UNSTAGE_UNPACK;
        fin.dtype = c->dtype;
        fin.out = c->rbuf;
        fin.count = (uint64_t) c->count * (uint64_t) nranks;
        fin.buf = out_stage;
        fin.nbytes = (size_t) p->bytes;
    }
    return run_program(m, comm, c, p, input, output, MPI_BYTE, rsize, &fin);
}

/* Bytes of the call's full vector. */
static uint64_t call_bytes(const mca_coll_themis_call_t *c, ompi_communicator_t *comm)
{
    size_t size = 0;

    ompi_datatype_type_size(c->dtype, &size);
    return call_elements(c, ompi_comm_size(comm)) * size;
}

/*
 * The decision every collective shares once set up: the decision's
 * threshold, empty calls, the op, then the collective's own plan.  Only
 * what MPI makes equal across ranks decides a fallback.  OMPI_SUCCESS with
 * *p filled, OMPI_ERR_NOT_SUPPORTED with *why (fall back), or an error.
 */
static int call_plan(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                     const mca_coll_themis_call_t *c, mca_coll_themis_planned_t *p,
                     const char **why)
{
    const int nranks = ompi_comm_size(comm);
    size_t size = 0;
    int rc;

    memset(p, 0, sizeof(*p));
    ompi_datatype_type_size(c->dtype, &size);
    p->total = call_elements(c, nranks);
    p->bytes = p->total * size;
    if (below_min_bytes(m, comm, c->coll, p->bytes)) {
        *why = "below coll_themis_min_bytes";
        return OMPI_ERR_NOT_SUPPORTED;
    }
    if (0 == p->bytes) {
        p->empty = true;
        return OMPI_SUCCESS;
    }
    if (NULL != c->op && !ompi_op_is_commute(c->op)) {
        *why = "non-commutative op";
        return OMPI_ERR_NOT_SUPPORTED;
    }
    switch (mca_coll_themis_blocking_id(c->id)) {
    case MCA_COLL_THEMIS_ALLREDUCE:
        rc = plan_allreduce(m, comm, c, p, why);
        break;
    case MCA_COLL_THEMIS_ALLGATHER:
        rc = plan_allgather(m, comm, c, p, why);
        break;
    default:
        rc = plan_reduce_scatter(m, comm, c, p, why);
        break;
    }
    if (OMPI_SUCCESS != rc) {
        mca_coll_themis_planned_free(p);
    }
    return rc;
}

void mca_coll_themis_planned_free(mca_coll_themis_planned_t *p)
{
    free(p->counts);
    p->counts = NULL;
}

int mca_coll_themis_call_run(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                             const mca_coll_themis_call_t *c, const mca_coll_themis_planned_t *p)
{
    const int me = ompi_comm_rank(comm);
    const void *in = MPI_IN_PLACE == c->sbuf ? c->rbuf : c->sbuf;

    switch (mca_coll_themis_blocking_id(c->id)) {
    case MCA_COLL_THEMIS_ALLREDUCE:
        return run_reduction(m, comm, c, p, in, (uint64_t) c->count, c->rbuf,
                             (uint64_t) c->count);
    case MCA_COLL_THEMIS_ALLGATHER:
        return run_allgather(m, comm, c, p);
    default:
        return run_reduction(m, comm, c, p, in, p->total, c->rbuf,
                             (uint64_t) (NULL == c->rcounts ? c->rcount : c->rcounts[me]));
    }
}

int mca_coll_themis_call(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                         const mca_coll_themis_call_t *c, bool *fallback)
{
    const bool persistent = c->id >= 2 * MCA_COLL_THEMIS_NBLOCKING;
    mca_coll_themis_planned_t p;
    const char *why = NULL;
    size_t size = 0;
    bool deferred = false;
    int rc;

    *fallback = false;
    if (cid_agreement(c)) {
        mca_coll_themis_count_cid();
        return mca_coll_themis_cid_start(m, comm, c->sbuf, c->rbuf, c->op, c->request);
    } else if (NULL != c->request && !persistent && !c->resumed
               && MCA_COLL_THEMIS_STATE_NEW == m->state
               && mca_coll_themis_component.config.probe) {
        /* The probe times blocking ping-pongs.  Every rank makes the same
         * calls, so every rank is still NEW here. */
        why = "not set up yet: with coll_themis_probe a communicator is set up by its first "
              "blocking call";
    } else if (NULL != c->request && !persistent && !c->resumed
               && (OMPI_SUCCESS != (rc = nb_setup(m, comm, c, &deferred)) || deferred)) {
        /* A persistent init is nonlocal: it sets up blocking (themis_ready). */
        return rc;
    } else if (!themis_ready(m, comm, c, &rc)) {
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        why = "not set up on this communicator";
    } else {
        rc = call_plan(m, comm, c, &p, &why);
        if (OMPI_SUCCESS == rc && persistent) {
            return mca_coll_themis_persistent_create(m, comm, c, &p);
        }
        if (OMPI_SUCCESS == rc) {
            ompi_datatype_type_size(c->dtype, &size);
            rc = p.empty ? empty_call(m, comm, c, size) : mca_coll_themis_call_run(m, comm, c, &p);
            mca_coll_themis_planned_free(&p);
            return rc;
        }
        if (OMPI_ERR_NOT_SUPPORTED != rc) {
            return rc;
        }
    }
    log_fallback(comm, c->id, call_bytes(c, comm), why);
    *fallback = true;
    return OMPI_SUCCESS;
}

/* A deferred call the themis path declined, after the setup: on the
 * previous component of the private communicator, whose call order only
 * we make (the user's communicator has its own, which a call started
 * from progress would break). */
static int private_fallback(mca_coll_themis_module_t *m, const mca_coll_themis_call_t *c)
{
    ompi_communicator_t *pc = m->p2p_comm;
    mca_coll_base_comm_coll_t *t;

    if (NULL == pc) {
        return OMPI_ERR_NOT_AVAILABLE;   /* the setup failed: said at verbose 1 */
    }
    t = pc->c_coll;
    switch (c->id) {
    case MCA_COLL_THEMIS_IALLREDUCE:
        return t->coll_iallreduce(c->sbuf, c->rbuf, c->count, c->dtype, c->op, pc, c->request,
                                  t->coll_iallreduce_module);
    case MCA_COLL_THEMIS_IREDUCE_SCATTER:
        return t->coll_ireduce_scatter(c->sbuf, c->rbuf, c->rcounts, c->dtype, c->op, pc,
                                       c->request, t->coll_ireduce_scatter_module);
    case MCA_COLL_THEMIS_IREDUCE_SCATTER_BLOCK:
        return t->coll_ireduce_scatter_block(c->sbuf, c->rbuf, c->rcount, c->dtype, c->op, pc,
                                             c->request, t->coll_ireduce_scatter_block_module);
    case MCA_COLL_THEMIS_IALLGATHER:
        return t->coll_iallgather(c->sbuf, c->scount, c->sdtype, c->rbuf, c->count, c->dtype,
                                  pc, c->request, t->coll_iallgather_module);
    default:
        return OMPI_ERR_BAD_PARAM;
    }
}

int mca_coll_themis_call_resume(mca_coll_themis_request_t *req)
{
    mca_coll_themis_call_t c = *(const mca_coll_themis_call_t *) req->call;
    bool fallback = false;
    int rc;

    c.request = &req->inner;
    c.resumed = true;
    rc = mca_coll_themis_call(req->module, req->comm, &c, &fallback);
    if (OMPI_SUCCESS == rc && fallback) {
        rc = private_fallback(req->module, &c);
    }
    return rc;
}

/* ------------------------------------------------------------ entry points */

int mca_coll_themis_allreduce(const void *sbuf, void *rbuf, int count,
                              struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                              struct ompi_communicator_t *comm,
                              mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_ALLREDUCE];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_ALLREDUCE,
                                      .coll = THEMIS_COLL_ALLREDUCE, .sbuf = sbuf, .rbuf = rbuf,
                                      .dtype = dtype, .op = op, .count = count};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.allreduce(sbuf, rbuf, count, dtype, op, comm, p->module));
}

int mca_coll_themis_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm,
                                   mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_REDUCE_SCATTER];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_REDUCE_SCATTER,
                             .coll = THEMIS_COLL_REDUCE_SCATTER, .sbuf = sbuf, .rbuf = rbuf,
                             .dtype = dtype, .op = op, .rcounts = rcounts};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.reduce_scatter(sbuf, rbuf, rcounts, dtype, op, comm, p->module));
}

int mca_coll_themis_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                         struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                         struct ompi_communicator_t *comm,
                                         mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_REDUCE_SCATTER_BLOCK];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_REDUCE_SCATTER_BLOCK,
                             .coll = THEMIS_COLL_REDUCE_SCATTER, .sbuf = sbuf, .rbuf = rbuf,
                             .dtype = dtype, .op = op, .rcount = rcount};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.reduce_scatter_block(sbuf, rbuf, rcount, dtype, op, comm,
                                                     p->module));
}

int mca_coll_themis_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                              void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                              struct ompi_communicator_t *comm,
                              mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_ALLGATHER];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_ALLGATHER,
                                      .coll = THEMIS_COLL_ALLGATHER, .sbuf = sbuf, .rbuf = rbuf,
                                      .dtype = rdtype, .count = rcount, .scount = scount,
                                      .sdtype = sdtype};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                          p->module));
}

/* The nonblocking forms take the same path and decisions; a themis-path
 * call returns a request advanced by progress (coll_themis_nbc.c). */
int mca_coll_themis_iallreduce(const void *sbuf, void *rbuf, int count,
                               struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_IALLREDUCE];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_IALLREDUCE,
                                      .coll = THEMIS_COLL_ALLREDUCE, .sbuf = sbuf, .rbuf = rbuf,
                                      .dtype = dtype, .op = op, .count = count, .request = request,
                                      .caller = __builtin_return_address(0)};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.iallreduce(sbuf, rbuf, count, dtype, op, comm, request, p->module));
}

int mca_coll_themis_ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
                                    struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                    struct ompi_communicator_t *comm,
                                    ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_IREDUCE_SCATTER];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_IREDUCE_SCATTER,
                             .coll = THEMIS_COLL_REDUCE_SCATTER, .sbuf = sbuf, .rbuf = rbuf,
                             .dtype = dtype, .op = op, .rcounts = rcounts, .request = request};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.ireduce_scatter(sbuf, rbuf, rcounts, dtype, op, comm, request,
                                                p->module));
}

int mca_coll_themis_ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                          struct ompi_datatype_t *dtype,
                                          struct ompi_op_t *op,
                                          struct ompi_communicator_t *comm,
                                          ompi_request_t **request,
                                          mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_IREDUCE_SCATTER_BLOCK];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_IREDUCE_SCATTER_BLOCK,
                             .coll = THEMIS_COLL_REDUCE_SCATTER, .sbuf = sbuf, .rbuf = rbuf,
                             .dtype = dtype, .op = op, .rcount = rcount, .request = request};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.ireduce_scatter_block(sbuf, rbuf, rcount, dtype, op, comm, request,
                                                      p->module));
}

int mca_coll_themis_iallgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                               void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module)
{
    mca_coll_themis_module_t *m = (mca_coll_themis_module_t *) module;
    const mca_coll_themis_prev_t *p = &m->prev[MCA_COLL_THEMIS_IALLGATHER];
    const mca_coll_themis_call_t c = {.id = MCA_COLL_THEMIS_IALLGATHER,
                                      .coll = THEMIS_COLL_ALLGATHER, .sbuf = sbuf, .rbuf = rbuf,
                                      .dtype = rdtype, .count = rcount, .scount = scount,
                                      .sdtype = sdtype, .request = request};
    MCA_COLL_THEMIS_ENTRY(m, comm, c,
                          p->fn.iallgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                           request, p->module));
}
