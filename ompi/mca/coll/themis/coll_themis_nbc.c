/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Nonblocking calls on the engine: requests, the progress callback, tag
 * lanes and plan pins.
 *
 * A started call is a request on one process-wide list; a progress
 * callback (registered with opal_progress on the first call, kept until
 * component close, one atomic load while nothing is outstanding) advances
 * every engine on the list once per progress round and completes the
 * finished ones.  The list has a mutex; the callback only tries it, so a
 * thread already advancing (or an engine's own progress) never waits.
 * Each call owns its engine state and scratch, the scratch taken from its
 * module's pool and given back when it finishes (a fresh buffer per call
 * paid its page faults every time); programs are the plan cache's, shared
 * read-only.  A call larger than coll_themis_scratch_max
 * runs its segments one after another: when one segment's engine
 * completes, the progress callback starts the next one's, whose program
 * was resolved and pinned at the start (coll_themis_segment.c).
 *
 * Lanes: outstanding calls on one communicator must not match each
 * other's messages.  Every themis-path call, blocking or not, takes the
 * next lane (seq mod nlanes) of its module, and the engine folds the lane
 * into its tags (coll_themis_engine.h).  MPI orders collectives on a
 * communicator alike on every rank, so seq, and with it the lane, is equal
 * across ranks.  A call whose lane is still in flight (nlanes calls
 * earlier) waits for it, driving progress: the other ranks started that
 * call before this one, so it completes as they progress.  nlanes is the
 * largest power of two up to MCA_COLL_THEMIS_MAX_LANES that leaves each
 * lane at least 2^16 tags (256 lanes of 2^23 tags with ob1's tag_ub).
 *
 * Persistent requests (coll_themis_persistent.c) take no lane: MPI orders
 * their init calls but not their starts, so each has a private
 * communicator of its own instead; between starts they keep their scratch
 * and pin.
 *
 * Pins: the plan cache may replace an entry while a call runs its
 * program.  A call pins the entry; freeing a pinned entry hands its arrays
 * to the pin, and the last call to finish frees them.
 *
 * MPI_Cancel of a collective request is erroneous (MPI 4.0, 3.7.3): it
 * does nothing here.  MPI_Request_free of an active one (erroneous as
 * well, but harmless here) lets the call complete; the progress callback
 * then releases it.
 */
#include "ompi_config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"

#include "coll_themis.h"

typedef struct mca_coll_themis_plan_pin_t {
    uint32_t refs;
    /* The cache entry that owns prog and layout; NULL once it let go
     * and the pin owns them. */
    mca_coll_themis_plan_entry_t *entry;
    themis_program_t prog;
    mca_coll_themis_engine_layout_t layout;
} mca_coll_themis_plan_pin_t;

/* Least tags a lane keeps. */
#define LANE_MIN_TAGS ((uint64_t) 1 << 16)

static pthread_mutex_t nbc_lock = PTHREAD_MUTEX_INITIALIZER;
static mca_coll_themis_request_t *outstanding;   /* under nbc_lock */
static int noutstanding;                         /* atomic, deferred calls included */
static bool progress_registered;                 /* under nbc_lock */
/* Modules whose nonblocking setup runs and has deferred calls, linked
 * through next_pending; under nbc_lock. */
static mca_coll_themis_module_t *pending_modules;

static int nbc_req_free(ompi_request_t **request);
static int register_progress(void);
static int nbc_req_cancel(ompi_request_t *request, int complete);

/* An ompi_coll_base_nbc_request_t: Open MPI 4.1's bindings of nonblocking
 * collectives retain user ops and derived types through its fields
 * (ompi_coll_base_retain_op/datatypes) on whatever request we return. */
OBJ_CLASS_INSTANCE(mca_coll_themis_request_t, ompi_coll_base_nbc_request_t, NULL, NULL);

/* ---------------------------------------------------------------- lanes */

uint32_t mca_coll_themis_lane_acquire(mca_coll_themis_module_t *m)
{
    if (0 == m->nlanes) {
        uint64_t tags = (uint64_t) (m->tag_ub > 0 ? m->tag_ub : 0) + 1;
        m->nlanes = MCA_COLL_THEMIS_MAX_LANES;
        while (m->nlanes > 1 && tags / m->nlanes < LANE_MIN_TAGS) {
            m->nlanes /= 2;
        }
    }
    uint32_t lane = m->seq++ % m->nlanes;
    while (__atomic_load_n(&m->lane_busy[lane], __ATOMIC_ACQUIRE)) {
        opal_progress();
    }
    m->lane_busy[lane] = 1;
    return lane;
}

void mca_coll_themis_lane_release(mca_coll_themis_module_t *m, uint32_t lane)
{
    __atomic_store_n(&m->lane_busy[lane], 0, __ATOMIC_RELEASE);
}

/* ----------------------------------------------------------------- pins */

/* prog is the program of a plan cache entry (mca_coll_themis_plan_get). */
mca_coll_themis_plan_pin_t *mca_coll_themis_plan_pin(const themis_program_t *prog)
{
    mca_coll_themis_plan_entry_t *e =
        (mca_coll_themis_plan_entry_t *) ((char *) prog
                                          - offsetof(mca_coll_themis_plan_entry_t, prog));
    mca_coll_themis_plan_pin_t *pin;

    pthread_mutex_lock(&nbc_lock);
    pin = e->pin;
    if (NULL == pin) {
        pin = calloc(1, sizeof(*pin));
        if (NULL != pin) {
            pin->entry = e;
            e->pin = pin;
        }
    }
    if (NULL != pin) {
        pin->refs++;
    }
    pthread_mutex_unlock(&nbc_lock);
    return pin;
}

void mca_coll_themis_plan_unpin(mca_coll_themis_plan_pin_t *pin)
{
    bool owned = false;

    if (NULL == pin) {
        return;
    }
    pthread_mutex_lock(&nbc_lock);
    if (0 != --pin->refs) {
        pin = NULL;
    } else if (NULL != pin->entry) {
        pin->entry->pin = NULL;
    } else {
        owned = true;
    }
    pthread_mutex_unlock(&nbc_lock);
    if (owned) {
        mca_coll_themis_engine_layout_free(&pin->layout);
        themis_program_free(&pin->prog);
    }
    free(pin);
}

bool mca_coll_themis_plan_pin_adopt(struct mca_coll_themis_plan_pin_t **slot,
                                    themis_program_t *prog,
                                    mca_coll_themis_engine_layout_t *layout)
{
    bool adopted = false;

    pthread_mutex_lock(&nbc_lock);
    mca_coll_themis_plan_pin_t *pin = *slot;
    if (NULL != pin) {
        pin->prog = *prog;
        pin->layout = *layout;
        pin->entry = NULL;
        *slot = NULL;
        adopted = true;
    }
    pthread_mutex_unlock(&nbc_lock);
    return adopted;
}

/* ------------------------------------------------------------- requests */

/* A call's scratch comes from its module's pool and goes back when the
 * call finishes; a persistent request keeps its own. */
static void scratch_take(mca_coll_themis_request_t *req)
{
    if (req->persistent || NULL != req->scratch.base) {
        return;
    }
    pthread_mutex_lock(&nbc_lock);
    mca_coll_themis_scratch_pool_take(&req->module->nbc_scratch, &req->scratch);
    pthread_mutex_unlock(&nbc_lock);
}

static void scratch_give(mca_coll_themis_request_t *req)
{
    if (req->persistent || NULL == req->scratch.base) {
        mca_coll_themis_engine_scratch_release(&req->scratch);
        return;
    }
    pthread_mutex_lock(&nbc_lock);
    mca_coll_themis_scratch_pool_give(&req->module->nbc_scratch, &req->scratch,
                                      mca_coll_themis_component.config.scratch_max);
    pthread_mutex_unlock(&nbc_lock);
}

mca_coll_themis_request_t *mca_coll_themis_request_new(mca_coll_themis_module_t *m,
                                                       ompi_communicator_t *comm)
{
    mca_coll_themis_request_t *req = OBJ_NEW(mca_coll_themis_request_t);

    if (NULL != req) {
        mca_coll_themis_request_init(req, m, comm);
    }
    return req;
}

void mca_coll_themis_request_init(mca_coll_themis_request_t *req, mca_coll_themis_module_t *m,
                                  ompi_communicator_t *comm)
{
    OMPI_REQUEST_INIT(&req->super.super, false);
    req->super.super.req_type = OMPI_REQUEST_COLL;
    req->super.super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.super.req_mpi_object.comm = comm;
    req->super.super.req_free = nbc_req_free;
    req->super.super.req_cancel = nbc_req_cancel;
    req->next = NULL;
    req->module = m;
    req->comm = comm;
    OBJ_RETAIN(comm);
    req->engine = NULL;
    req->scratch.base = NULL;
    req->scratch.size = 0;
    req->pin = NULL;
    req->segs = NULL;
    req->dtypes[0] = req->dtypes[1] = NULL;
    req->op = NULL;
    req->lane = UINT32_MAX;
    req->persistent = false;
    req->p2p_comm = NULL;
    req->p2p_index = 0;
    req->tag_ub = 0;
    req->call = NULL;
    req->defer_next = NULL;
    req->inner = NULL;
    req->is_cid = false;
    memset(&req->cid, 0, sizeof(req->cid));
    req->done = false;
    req->freed = false;
    memset(&req->fin, 0, sizeof(req->fin));
}

/* Everything the request holds, and the request. */
void mca_coll_themis_request_release(mca_coll_themis_request_t *req)
{
    mca_coll_themis_engine_free(req->engine);
    req->engine = NULL;
    mca_coll_themis_segments_free(req->segs);
    scratch_give(req);
    if (UINT32_MAX != req->lane) {
        mca_coll_themis_lane_release(req->module, req->lane);
    }
    mca_coll_themis_plan_unpin(req->pin);
    for (int i = 0; i < 2; ++i) {
        if (NULL != req->dtypes[i]) {
            OBJ_RELEASE(req->dtypes[i]);
        }
    }
    if (NULL != req->op) {
        OBJ_RELEASE(req->op);
    }
    free(req->fin.stage[0]);
    free(req->fin.stage[1]);
    free(req->fin.op_ns);
    mca_coll_themis_private_comm_free(&req->p2p_comm, req->p2p_index);
    free(req->call);
    if (NULL != req->cid.sreq) {
        ompi_request_free(&req->cid.sreq);   /* of a failed round */
    }
    if (NULL != req->cid.rreq) {
        ompi_request_free(&req->cid.rreq);
    }
    if (NULL != req->inner) {
        ompi_request_free(&req->inner);
    }
    OBJ_RELEASE(req->comm);
    OMPI_REQUEST_FINI(&req->super.super);
    OBJ_RELEASE(req);
}

/* The request is complete for MPI, or released when the user freed it
 * while active (the flag and done change under the lock, see
 * nbc_req_free). */
void mca_coll_themis_request_complete_now(mca_coll_themis_request_t *req, int rc)
{
    bool freed;

    req->super.super.req_status.MPI_ERROR = rc;
    req->super.super.req_status._cancelled = 0;
    pthread_mutex_lock(&nbc_lock);
    freed = req->freed;
    if (!freed) {
        req->done = true;
        ompi_request_complete(&req->super.super, true);
    }
    pthread_mutex_unlock(&nbc_lock);
    if (freed) {
        mca_coll_themis_request_release(req);
    }
}

/* Once the engine finished: what its resources no longer need to hold. */
static int finish(mca_coll_themis_request_t *req, int rc)
{
    mca_coll_themis_engine_free(req->engine);
    req->engine = NULL;
    if (NULL != req->segs) {
        req->fin.t.op_ns = NULL;   /* the segments ran other programs: no op times */
    }
    rc = mca_coll_themis_segments_finish(req->segs, rc);
    req->segs = NULL;
    rc = mca_coll_themis_call_finish(&req->fin, rc);
    if (req->persistent) {
        return rc;   /* scratch and pin serve the next start */
    }
    scratch_give(req);
    mca_coll_themis_lane_release(req->module, req->lane);
    req->lane = UINT32_MAX;
    mca_coll_themis_plan_unpin(req->pin);
    req->pin = NULL;
    return rc;
}

/* --------------------------------------------------- id agreements */

/* The tag of id agreements on the user's communicator: no Open MPI
 * collective uses it (coll/base/coll_tags.h starts at -7; -1 is
 * MPI_ANY_TAG, which never matches negative tags). */
#define CID_TAG (-5)

/* Posts the round at distance cid.dist (rank + dist gets our value, rank
 * - dist sends its own), or finishes; under nbc_lock.  MPI_MAX and
 * MPI_MIN are idempotent, so after ceil(log2 p) rounds every rank holds
 * the reduction of all (each value reaches every rank at least once).
 * One agreement runs at a time per communicator and each round has its
 * own peers, so a message always matches the receive it was sent for. */
static int cid_round(mca_coll_themis_request_t *req, bool *done)
{
    ompi_communicator_t *comm = req->comm;
    const int p = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    int rc;

    *done = req->cid.dist >= (uint32_t) p;
    if (*done) {
        *req->cid.out = req->cid.val;
        return OMPI_SUCCESS;
    }
    const int d = (int) req->cid.dist;
    rc = MCA_PML_CALL(irecv(&req->cid.in, 1, MPI_INT, (me - d + p) % p, CID_TAG, comm,
                            &req->cid.rreq));
    if (OMPI_SUCCESS == rc) {
        rc = MCA_PML_CALL(isend(&req->cid.val, 1, MPI_INT, (me + d) % p, CID_TAG,
                                MCA_PML_BASE_SEND_STANDARD, comm, &req->cid.sreq));
    }
    *done = OMPI_SUCCESS != rc;   /* requests of a failed round are dropped below */
    return rc;
}

/* Advances an id agreement; under nbc_lock. */
static int cid_advance(mca_coll_themis_request_t *req, bool *done)
{
    int rc = OMPI_SUCCESS;

    *done = false;
    if (!req->cid.active) {
        if (req->module->cid_head != req) {
            return OMPI_SUCCESS;   /* an earlier one on the communicator runs */
        }
        req->cid.active = true;
        req->cid.dist = 1;
        rc = cid_round(req, done);
    } else if ((NULL == req->cid.sreq || REQUEST_COMPLETE(req->cid.sreq))
               && (NULL == req->cid.rreq || REQUEST_COMPLETE(req->cid.rreq))) {
        rc = req->cid.rreq->req_status.MPI_ERROR;
        if (OMPI_SUCCESS == rc) {
            rc = req->cid.sreq->req_status.MPI_ERROR;
        }
        if (OMPI_SUCCESS == rc) {
            req->cid.val = req->cid.max ? (req->cid.in > req->cid.val ? req->cid.in : req->cid.val)
                                        : (req->cid.in < req->cid.val ? req->cid.in : req->cid.val);
        }
        ompi_request_free(&req->cid.sreq);
        ompi_request_free(&req->cid.rreq);
        req->cid.dist *= 2;
        rc = OMPI_SUCCESS == rc ? cid_round(req, done) : rc;
        *done = *done || OMPI_SUCCESS != rc;
    }
    if (*done) {
        /* Off the queue: the next agreement on the communicator may start. */
        req->module->cid_head = req->cid.next;
        if (NULL == req->cid.next) {
            req->module->cid_tail = NULL;
        }
    }
    return rc;
}

int mca_coll_themis_cid_start(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                              const void *sbuf, void *rbuf, ompi_op_t *op,
                              ompi_request_t **request)
{
    mca_coll_themis_request_t *req = mca_coll_themis_request_new(m, comm);
    int rc;

    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    req->is_cid = true;
    req->cid.out = rbuf;
    req->cid.val = *(const int *) (MPI_IN_PLACE == sbuf ? rbuf : sbuf);
    req->cid.max = MPI_MAX == op;
    pthread_mutex_lock(&nbc_lock);
    rc = register_progress();
    if (OPAL_SUCCESS == rc) {
        if (NULL == m->cid_tail) {
            m->cid_head = req;
        } else {
            m->cid_tail->cid.next = req;
        }
        m->cid_tail = req;
        req->next = outstanding;
        outstanding = req;
        __atomic_fetch_add(&noutstanding, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&nbc_lock);
    if (OPAL_SUCCESS != rc) {
        mca_coll_themis_request_release(req);
        return rc;
    }
    *request = &req->super.super;
    return OMPI_SUCCESS;
}

/* Advances a call's engine; when a segment completes, starts the next
 * one's (their programs were resolved at the start, so no plan cache
 * here). */
static int request_advance(mca_coll_themis_request_t *req, bool *done, int *events)
{
    int rc = mca_coll_themis_engine_advance(req->engine, done, events);

    while (*done && OMPI_SUCCESS == rc && NULL != req->segs) {
        mca_coll_themis_engine_args_t a;
        bool more = false;
        mca_coll_themis_engine_free(req->engine);
        req->engine = NULL;
        rc = mca_coll_themis_segments_next(req->segs, &a, &more);
        if (OMPI_SUCCESS != rc || !more) {
            break;
        }
        rc = mca_coll_themis_engine_start(&a, &req->engine);
        if (OMPI_SUCCESS != rc) {
            break;
        }
        rc = mca_coll_themis_engine_advance(req->engine, done, events);
    }
    return rc;
}

/* Starts the calls deferred behind m's setup, in call order; calls made
 * meanwhile queue behind them (m->draining). */
static void drain(mca_coll_themis_module_t *m)
{
    for (;;) {
        pthread_mutex_lock(&nbc_lock);
        mca_coll_themis_request_t *req = m->defer_head;
        m->defer_head = m->defer_tail = NULL;
        if (NULL == req) {
            __atomic_store_n(&m->draining, false, __ATOMIC_RELEASE);
            pthread_mutex_unlock(&nbc_lock);
            return;
        }
        pthread_mutex_unlock(&nbc_lock);
        while (NULL != req) {
            mca_coll_themis_request_t *next = req->defer_next;
            req->defer_next = NULL;
            __atomic_fetch_sub(&noutstanding, 1, __ATOMIC_RELEASE);
            int rc = mca_coll_themis_call_resume(req);
            if (OMPI_SUCCESS != rc || NULL == req->inner) {
                mca_coll_themis_request_complete_now(req, OMPI_SUCCESS != rc ? rc : OMPI_ERROR);
            } else {
                pthread_mutex_lock(&nbc_lock);
                req->next = outstanding;
                outstanding = req;
                __atomic_fetch_add(&noutstanding, 1, __ATOMIC_RELEASE);
                pthread_mutex_unlock(&nbc_lock);
            }
            req = next;
        }
    }
}

/* Returns the events of the round: messages the engines found complete,
 * calls completed and setups drained.  opal_progress yields the core after
 * a round without events (mpi_yield_when_idle, set when oversubscribed);
 * counting only completed calls made every MPI_Test that moved a call
 * along give its core away as well. */
static int nbc_progress(void)
{
    mca_coll_themis_request_t *finished = NULL, **link;
    mca_coll_themis_module_t *ready = NULL, **ml;
    int count = 0;

    if (0 == __atomic_load_n(&noutstanding, __ATOMIC_ACQUIRE)
        || 0 != pthread_mutex_trylock(&nbc_lock)) {
        return 0;
    }
    link = &outstanding;
    while (NULL != *link) {
        mca_coll_themis_request_t *req = *link;
        bool done = false;
        int rc = OMPI_SUCCESS;
        if (req->is_cid) {
            rc = cid_advance(req, &done);
        } else if (NULL != req->inner) {
            /* A started deferred call: its request's completion, read
             * without driving progress (this is progress). */
            done = REQUEST_COMPLETE(req->inner);
        } else {
            rc = request_advance(req, &done, &count);
        }
        if (!done) {
            link = &req->next;
            continue;
        }
        req->super.super.req_status.MPI_ERROR = rc;
        *link = req->next;
        req->next = finished;
        finished = req;
        __atomic_fetch_sub(&noutstanding, 1, __ATOMIC_RELEASE);
    }

    /* Setups: draining is raised before a setup can leave PENDING, so a
     * new call never sees it over while deferred calls still wait. */
    ml = &pending_modules;
    while (NULL != *ml) {
        mca_coll_themis_module_t *m = *ml;
        bool over = false;
        __atomic_store_n(&m->draining, true, __ATOMIC_RELEASE);
        (void) mca_coll_themis_setup_test(m, m->defer_head->comm, &over);
        if (!over) {
            __atomic_store_n(&m->draining, false, __ATOMIC_RELEASE);
            ml = &m->next_pending;
            continue;
        }
        *ml = m->next_pending;
        m->next_pending = ready;
        ready = m;
    }
    pthread_mutex_unlock(&nbc_lock);

    /* Unstaging and the trace outside the lock: the requests are off the
     * list and still active, so no one else touches them. */
    while (NULL != finished) {
        mca_coll_themis_request_t *req = finished;
        finished = req->next;
        int rc;
        if (req->is_cid) {
            rc = req->super.super.req_status.MPI_ERROR;
        } else if (NULL != req->inner) {
            rc = req->inner->req_status.MPI_ERROR;
            ompi_request_free(&req->inner);
        } else {
            rc = finish(req, req->super.super.req_status.MPI_ERROR);
        }
        mca_coll_themis_request_complete_now(req, rc);
        ++count;
    }
    while (NULL != ready) {
        mca_coll_themis_module_t *m = ready;
        ready = m->next_pending;
        m->next_pending = NULL;
        drain(m);
        ++count;
    }
    return count;
}

/* Under nbc_lock. */
static int register_progress(void)
{
    int rc = progress_registered ? OPAL_SUCCESS : opal_progress_register(nbc_progress);
    progress_registered = OPAL_SUCCESS == rc;
    return rc;
}

bool mca_coll_themis_setup_busy(mca_coll_themis_module_t *m)
{
    return MCA_COLL_THEMIS_STATE_PENDING == __atomic_load_n(&m->state, __ATOMIC_ACQUIRE)
           || __atomic_load_n(&m->draining, __ATOMIC_ACQUIRE);
}

bool mca_coll_themis_defer(mca_coll_themis_module_t *m, mca_coll_themis_request_t *req)
{
    bool deferred = false;

    pthread_mutex_lock(&nbc_lock);
    if ((MCA_COLL_THEMIS_STATE_PENDING == m->state || m->draining)
        && OPAL_SUCCESS == register_progress()) {
        req->defer_next = NULL;
        if (NULL == m->defer_tail) {
            m->defer_head = req;
        } else {
            m->defer_tail->defer_next = req;
        }
        m->defer_tail = req;
        bool listed = false;
        for (mca_coll_themis_module_t *p = pending_modules; NULL != p && !listed;
             p = p->next_pending) {
            listed = p == m;
        }
        if (MCA_COLL_THEMIS_STATE_PENDING == m->state && !listed) {
            m->next_pending = pending_modules;
            pending_modules = m;
        }
        __atomic_fetch_add(&noutstanding, 1, __ATOMIC_RELEASE);
        deferred = true;
    }
    pthread_mutex_unlock(&nbc_lock);
    return deferred;
}

void mca_coll_themis_setup_wait(mca_coll_themis_module_t *m)
{
    for (;;) {
        pthread_mutex_lock(&nbc_lock);
        bool busy = MCA_COLL_THEMIS_STATE_PENDING == m->state || m->draining
                    || NULL != m->defer_head;
        pthread_mutex_unlock(&nbc_lock);
        if (!busy) {
            return;
        }
        opal_progress();
    }
}

int mca_coll_themis_request_hold(mca_coll_themis_request_t *req,
                                 const mca_coll_themis_engine_args_t *args)
{
    int rc;

    req->dtypes[0] = args->dtype;
    OBJ_RETAIN(req->dtypes[0]);
    if (NULL != req->fin.dtype) {
        req->dtypes[1] = req->fin.dtype;
        OBJ_RETAIN(req->dtypes[1]);
    }
    if (NULL != args->op) {
        req->op = args->op;
        OBJ_RETAIN(req->op);
    }
    pthread_mutex_lock(&nbc_lock);
    rc = register_progress();
    pthread_mutex_unlock(&nbc_lock);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    req->pin = mca_coll_themis_plan_pin(args->prog);
    return NULL == req->pin ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/* The planner collective of a call, for its per-collective parameters. */
static themis_coll_t planner_coll(mca_coll_themis_coll_id_t id)
{
    switch (mca_coll_themis_blocking_id(id)) {
    case MCA_COLL_THEMIS_REDUCE_SCATTER:
    case MCA_COLL_THEMIS_REDUCE_SCATTER_BLOCK:
        return THEMIS_COLL_REDUCE_SCATTER;
    case MCA_COLL_THEMIS_ALLGATHER:
        return THEMIS_COLL_ALLGATHER;
    case MCA_COLL_THEMIS_ALLREDUCE:
    default:
        return THEMIS_COLL_ALLREDUCE;
    }
}

int mca_coll_themis_request_launch(mca_coll_themis_request_t *req,
                                   const mca_coll_themis_engine_args_t *args,
                                   const mca_coll_themis_blocks_t *blocks)
{
    mca_coll_themis_engine_args_t a = *args;
    bool more = true;
    int rc = OMPI_SUCCESS;

    if (NULL != blocks) {
        rc = mca_coll_themis_segments_prepare(req->module, req->comm, blocks, args, &req->segs);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }

    if (req->persistent) {
        a.p2p_comm = req->p2p_comm;
        a.tag_ub = req->tag_ub;
        a.lane = 0;
        a.nlanes = 0;
    } else {
        req->lane = mca_coll_themis_lane_acquire(req->module);
        a.lane = req->lane;
        a.nlanes = req->module->nlanes;
    }
    scratch_take(req);
    a.scratch = &req->scratch;
    a.in_progress = true;
    /* The call moves only when the application enters MPI: keep more of
     * its schedule posted (coll_themis_nbc_chunks_in_flight). */
    const uint32_t window =
        mca_coll_themis_component.config.nbc_chunks_in_flight[planner_coll(req->fin.coll)];
    if (window > args->prog->chunks_in_flight) {
        a.chunks_in_flight = window;
    }
    req->done = false;
    if (NULL != req->segs) {
        /* A segment with data exists: the call is larger than the scratch. */
        rc = mca_coll_themis_segments_next(req->segs, &a, &more);
    }
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_themis_engine_start(&a, &req->engine);
    }
    if (OMPI_SUCCESS != rc) {
        mca_coll_themis_segments_free(req->segs);
        req->segs = NULL;
        req->done = true;
        if (!req->persistent) {
            mca_coll_themis_lane_release(req->module, req->lane);
            req->lane = UINT32_MAX;
        }
        return rc;
    }

    pthread_mutex_lock(&nbc_lock);
    req->next = outstanding;
    outstanding = req;
    __atomic_fetch_add(&noutstanding, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&nbc_lock);
    return OMPI_SUCCESS;
}

int mca_coll_themis_request_start(mca_coll_themis_request_t *req,
                                  const mca_coll_themis_engine_args_t *args,
                                  const mca_coll_themis_blocks_t *blocks)
{
    /* Held (the whole program pinned, for the trace) before the segments'
     * programs are looked up, which may replace its cache entry. */
    int rc = mca_coll_themis_request_hold(req, args);

    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_themis_request_launch(req, args, blocks);
    }
    if (OMPI_SUCCESS != rc) {
        mca_coll_themis_request_release(req);
    }
    return rc;
}

static int nbc_req_free(ompi_request_t **request)
{
    mca_coll_themis_request_t *req = (mca_coll_themis_request_t *) *request;

    pthread_mutex_lock(&nbc_lock);
    if (!req->done) {
        req->freed = true;   /* released when it completes */
        pthread_mutex_unlock(&nbc_lock);
        *request = MPI_REQUEST_NULL;
        return OMPI_SUCCESS;
    }
    pthread_mutex_unlock(&nbc_lock);
    mca_coll_themis_request_release(req);
    *request = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int nbc_req_cancel(ompi_request_t *request, int complete)
{
    (void) request;
    (void) complete;
    return OMPI_SUCCESS;
}

void mca_coll_themis_nbc_fini(void)
{
    pthread_mutex_lock(&nbc_lock);
    if (progress_registered) {
        opal_progress_unregister(nbc_progress);
        progress_registered = false;
    }
    pthread_mutex_unlock(&nbc_lock);
}
