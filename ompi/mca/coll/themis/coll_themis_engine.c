/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The execution engine (see coll_themis_engine.h and planners/themis/plan.h).
 *
 * One call is a state machine: start (validate the arguments, size the
 * scratch, copy_in, start what can start), advance (below; as often as
 * needed, from the blocking loop of mca_coll_themis_engine_run or from
 * the progress callback of a nonblocking call, coll_themis_nbc.c), and
 * finally copy_out.  Each advance
 *   - starts queue heads (strict queue order, at most `window` active ops
 *     per queue, only once all the op's dependencies completed),
 *   - starts the steps of active ops, each chain's in order and the chains
 *     independently (after_prev waits for the completion of the previous
 *     step of the chain, otherwise the step starts with it); a local copy
 *     or reduce step is carried out when it starts,
 *   - tests the outstanding requests, kept in a compact array (O(active)),
 *     without driving progress (the caller does, or is progress),
 *   - reduces REDUCE receives into work in a fixed order (below).
 * All of a call's state is in its engine_t; the program and layout are
 * only read, so any number of calls may share them.
 *
 * Tags: a call runs in a lane (args->lane of args->nlanes), and a step's
 * tag becomes (tag mod lane_tags) x nlanes + lane, so calls in different
 * lanes never match each other's messages (coll_themis_nbc.c assigns
 * lanes).
 *
 * Reduction order: the REDUCE receives of one chain of an op are applied
 * in step order, whatever order they arrive in (a direct exchange receives
 * p-1 contributions at once).  Floating-point sums then give the same bits
 * on every run.  A step counts as complete only once its receive has been
 * reduced, so chained steps (rings) see reduced data as before.
 *
 * Receive temporaries are assigned statically: queue q owns
 * min(window, ops on q) op slots of peak_q elements; an active op holds
 * one slot, and each REDUCE step of the op has a fixed offset inside it
 * (temp_layout_op(), coll_themis_engine_layout.c).  Nothing is allocated
 * per step at run time.
 *
 * A transfer larger than mca_coll_themis_engine_max_message_bytes or
 * INT_MAX elements goes as consecutive messages with the step's tag; both
 * sides split the same count the same way and MPI's non-overtaking rule
 * pairs the pieces in order.  A REDUCE piece is reduced when it arrives.
 * Transfers of 0 elements are skipped on both sides.
 *
 * With args->op_ns the loop also stamps each op's start and completion
 * (coll_themis_trace); without it, that is one untaken branch per op.
 */

#include "ompi_config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll_themis_engine.h"
#include "coll_themis_engine_impl.h"
#include "util.h"
#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/message/message.h"
#include "ompi/mca/bml/base/base.h"
#include "ompi/mca/bml/bml.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/mca/pml/base/base.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"
#include "opal/class/opal_list.h"
#include "opal/mca/btl/base/base.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"

size_t mca_coll_themis_engine_max_message_bytes = (size_t) 1 << 30;

/* How long a failed run waits for cancelled requests before detaching. */
#define ENGINE_DRAIN_NSEC 1000000000LL
/* How long a call goes without a message before it looks for a message it
 * cannot expect (stall_check), and again after each look. */
#define ENGINE_STALL_NSEC 200000000LL

/* Who an outstanding request belongs to. */
typedef struct {
    uint32_t op;
    uint32_t step;      /* absolute step index */
    uint32_t piece;     /* which message of a split transfer */
    uint8_t is_recv;
    uint8_t unmatched;  /* a receive to match before posting it: no request yet */
    uint8_t bounce;     /* a message larger than due, drained into e->bounce */
} engine_owner_t;

typedef struct mca_coll_themis_engine_t engine_t;

/* Which receives are matched before they are posted (match_recv): none,
 * all (folded tags may repeat), or those that may go rendezvous. */
typedef enum { MATCH_NONE = 0, MATCH_ALL, MATCH_RNDV } engine_match_t;

struct mca_coll_themis_engine_t {
    const themis_program_t *prog;
    ompi_communicator_t *comm;
    ompi_datatype_t *dtype;
    ompi_op_t *op;
    uint64_t lane_tags;        /* (tag_ub + 1) / nlanes: tags of one lane */
    uint32_t lane, nlanes;     /* args: tag = step tag mod lane_tags, x nlanes + lane */
    size_t extent;
    size_t type_size;          /* bytes of data per element */
    ptrdiff_t true_lb;
    size_t true_extent;
    uint64_t piece_elems;      /* elements per PML message */
    engine_match_t match;      /* which receives are matched first (match_recv) */
    int tags_collide;          /* folded step tags may repeat: keep their order */
    char *work;                /* buffer pointers: element i at + i * extent */
    char *temp;
    void *block;               /* the bookkeeping allocation */
    uint64_t *op_ns;           /* args->op_ns: op start/end times, or NULL */

    /* static, from the layout (mca_coll_themis_engine_prepare) */
    const mca_coll_themis_engine_layout_t *layout;
    const uint64_t *temp_off;  /* per stored step: REDUCE temporary offset in the op slot */
    const uint32_t *chain_back;/* per stored step: steps back to its chain's previous, 0 */
    const uint32_t *op_queue;  /* per stored op */
    const uint64_t *q_peak;    /* elements per op slot */

    /* per step */
    uint32_t *remaining;       /* messages outstanding once started, plus one
                                * while a REDUCE receive waits to be reduced */
    uint32_t *recv_left;       /* receive pieces not yet arrived */
    uint32_t *matched;         /* receive pieces matched so far (match_recv) */
    /* per op */
    uint64_t *op_temp;         /* element offset of the op's slot in temp */
    uint32_t *op_next;         /* [op * THEMIS_STEP_CHAINS + chain]: next step of
                                * the chain to start, relative to first_step */
    uint32_t *op_red_next;     /* [op * THEMIS_STEP_CHAINS + chain]: the next step
                                * of the chain whose receive is to be reduced,
                                * relative to first_step */
    uint32_t *op_pending;      /* started steps not yet complete */
    uint32_t *op_slot;
    uint8_t *op_state;
    /* per queue */
    uint32_t window;           /* active ops per queue (args chunks_in_flight) */
    uint64_t temp_elems;       /* receive temporaries: the queues' slots */
    uint64_t *q_temp_base;     /* element offset of the queue's slots in temp */
    uint32_t *q_nslots;        /* min(window, ops on the queue) */
    uint32_t *q_slot_first;    /* the queue's free-slot stack in q_free */
    uint32_t *q_next;          /* position in queue_ops of the next op to start */
    uint32_t *q_active;
    uint32_t *q_nfree;
    uint32_t *q_free;
    uint32_t ops_done;

    /* outstanding requests, compact */
    size_t nactive, cap;
    ompi_request_t **reqs;
    engine_owner_t *owners;
    engine_owner_t *done;
    /* receive buffers of messages larger than due (match_recv) */
    void **bounce;
    size_t nbounce;
    int bounce_leak;           /* one is detached still receiving: never freed */

    /* The call, from start to finish.  prog and layout point at these
     * copies: a cached program's arrays outlive its cache entry while a
     * call holds them (coll_themis_nbc.c), its struct may not. */
    themis_program_t prog_copy;
    mca_coll_themis_engine_layout_t layout_copy;
    const void *input;
    void *output;
    mca_coll_themis_scratch_t *scratch;
    int status;                /* OMPI_SUCCESS, else the first error */
    long long quiet_since;     /* last look for progress without any; 0: progress */
    bool in_progress;          /* args' in_progress: no probes */
    int finished;              /* copy_out done, or failed and drained */
};

static inline char *elem_ptr(char *base, uint64_t off, size_t extent)
{
    return base + (size_t) off * extent;
}

static inline uint64_t npieces(const engine_t *e, uint64_t count)
{
    return (count + e->piece_elems - 1) / e->piece_elems;
}

static inline uint64_t piece_count(const engine_t *e, uint64_t total, uint64_t piece)
{
    uint64_t left = total - piece * e->piece_elems;
    return left < e->piece_elems ? left : e->piece_elems;
}

static size_t engine_carve(engine_t *e, char *base)
{
    const themis_program_t *p = e->prog;
    size_t off = 0;
    CARVE(remaining, p->nsteps);
    CARVE(recv_left, p->nsteps);
    CARVE(matched, p->nsteps);
    CARVE(op_temp, p->nops);
    CARVE(op_next, (size_t) p->nops * THEMIS_STEP_CHAINS);
    CARVE(op_red_next, (size_t) p->nops * THEMIS_STEP_CHAINS);
    CARVE(op_pending, p->nops);
    CARVE(op_slot, p->nops);
    CARVE(op_state, p->nops);
    CARVE(q_next, p->nqueues);
    CARVE(q_active, p->nqueues);
    CARVE(q_nfree, p->nqueues);
    CARVE(q_temp_base, p->nqueues);
    CARVE(q_nslots, p->nqueues);
    CARVE(q_slot_first, p->nqueues);
    /* No queue holds more slots than it has ops. */
    CARVE(q_free, p->nops);
    return off;
}

#undef CARVE

/* Byte size of the work and temp regions for this call's datatype. */
static int scratch_bytes(const engine_t *e, ptrdiff_t true_extent, size_t *work_bytes,
                         size_t *total_bytes)
{
    const themis_program_t *p = e->prog;

    /* n elements span (n - 1) * extent + true_extent bytes from the true
     * lower bound; regions are rounded up to stay aligned. */
    size_t span[2] = {0, 0};
    uint64_t n[2] = {p->work_is_output ? 0 : p->work_count, e->temp_elems};
    for (int r = 0; r < 2; ++r) {
        size_t bytes;
        if (0 == n[r]) {
            continue;
        }
        if (n[r] - 1 > SIZE_MAX || __builtin_mul_overflow((size_t) (n[r] - 1), e->extent, &bytes)
            || __builtin_add_overflow(bytes, (size_t) true_extent + ENGINE_ALIGN - 1, &bytes)) {
            return engine_bad("scratch size overflows", n[r], e->extent);
        }
        span[r] = bytes / ENGINE_ALIGN * ENGINE_ALIGN;
    }
    if (__builtin_add_overflow(span[0], span[1], total_bytes)
        || *total_bytes > (size_t) PTRDIFF_MAX) {
        return engine_bad("scratch size overflows", span[0], span[1]);
    }
    *work_bytes = span[0];
    return OMPI_SUCCESS;
}

static int scratch_reserve(mca_coll_themis_scratch_t *sc, size_t bytes)
{
    if (sc->size >= bytes) {
        return OMPI_SUCCESS;
    }
    free(sc->base);
    sc->base = malloc(bytes);
    if (NULL == sc->base) {
        sc->size = 0;
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    sc->size = bytes;
    return OMPI_SUCCESS;
}

/*
 * Receives of more bytes than this are matched before they are posted
 * (match_recv).  ob1's rendezvous get (seen with btl/vader's CMA in Open
 * MPI 4.1.4 and 5.0.9) reads the sender's whole message into the receive
 * buffer even when it is larger than the receive: the request ends in
 * MPI_ERR_TRUNCATE, but the bytes past the buffer overwrite whatever
 * follows it.  In an erroneous program whose ranks pass different counts
 * that corrupted the heap and btl/vader's fragments (segfaults in its
 * progress; stock Open MPI corrupts its receive buffer's neighbour the same
 * way).  Eager messages are truncated safely, so under ob1 only messages
 * that may go rendezvous are matched first: over the eager limit of the
 * BTLs ob1 sends a first fragment to that peer with (its endpoint's
 * btl_eager), less room for ob1's header.  Not the smallest limit of all
 * BTLs: btl/self's 1 KiB would have every TCP receive matched first, and
 * a matched-first receive is not posted when its eager data arrives (an
 * unexpected message, copied twice) and each miss of improbe runs a
 * progress round (with mpi_yield_when_idle, a sched_yield): that made
 * blocking calls on the test bed 20-30 % slower than nonblocking ones.
 * Other PMLs truncate in their transport: nothing is matched first.
 */
#define ENGINE_MATCH_HDR_ROOM 256

static inline size_t eager_room(size_t limit)
{
    return limit > ENGINE_MATCH_HDR_ROOM ? limit - ENGINE_MATCH_HDR_ROOM : 0;
}

static bool engine_pml_is_ob1(void)
{
    static int known, ob1;
    if (!__atomic_load_n(&known, __ATOMIC_ACQUIRE)) {
        const char *pml = mca_pml_base_selected_component.pmlm_version.mca_component_name;
        ob1 = 0 == strcmp(pml, "ob1");   /* every thread computes the same */
        __atomic_store_n(&known, 1, __ATOMIC_RELEASE);
    }
    return ob1;
}

/* Under ob1: the largest message that goes eager to `peer`; the smallest
 * limit of all BTLs when its endpoint is unknown. */
static size_t peer_eager_bytes(const engine_t *e, int peer)
{
    ompi_proc_t *proc = ompi_comm_peer_lookup(e->comm, peer);
    mca_bml_base_endpoint_t *ep = NULL == proc ? NULL : mca_bml_base_get_endpoint(proc);
    size_t n = NULL == ep ? 0 : mca_bml_base_btl_array_get_size(&ep->btl_eager);
    size_t b = SIZE_MAX;

    for (size_t i = 0; i < n; ++i) {
        size_t limit = eager_room(mca_bml_base_btl_array_get_index(&ep->btl_eager, i)
                                      ->btl->btl_eager_limit);
        b = limit < b ? limit : b;
    }
    if (0 == n) {
        mca_btl_base_selected_module_t *sm;
        OPAL_LIST_FOREACH (sm, &mca_btl_base_modules_initialized,
                           mca_btl_base_selected_module_t) {
            size_t limit = eager_room(sm->btl_module->btl_eager_limit);
            b = limit < b ? limit : b;
        }
    }
    return b;
}

/* Is the receive of step st matched before it is posted (match_recv)? */
static int recv_matched_first(const engine_t *e, const themis_step_t *st)
{
    switch (e->match) {
    case MATCH_ALL:
        return 1;
    case MATCH_RNDV:
        return e->type_size > 0
               && st->recv_count > peer_eager_bytes(e, st->recv_peer) / e->type_size;
    default:
        return 0;
    }
}

static int active_grow(engine_t *e)
{
    size_t cap = e->cap ? 2 * e->cap : 64;
    ompi_request_t **r = realloc(e->reqs, cap * sizeof(*r));
    if (NULL != r) {
        e->reqs = r;
    }
    engine_owner_t *o = realloc(e->owners, cap * sizeof(*o));
    if (NULL != o) {
        e->owners = o;
    }
    engine_owner_t *d = realloc(e->done, cap * sizeof(*d));
    if (NULL != d) {
        e->done = d;
    }
    if (NULL == r || NULL == o || NULL == d) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    e->cap = cap;
    return OMPI_SUCCESS;
}

static inline int step_tag(const engine_t *e, const themis_step_t *st)
{
    return (int) ((uint64_t) st->tag % e->lane_tags * e->nlanes + e->lane);
}

/* Where a step receives: its temporary when it reduces, else work. */
static char *recv_base(const engine_t *e, uint32_t op, uint32_t s, const themis_step_t *st)
{
    return step_reduces(st) ? elem_ptr(e->temp,
                                       e->op_temp[op] + e->temp_off[stored_step(e->prog, s)],
                                       e->extent)
                            : elem_ptr(e->work, st->recv_off, e->extent);
}

/* Post the messages of one side of a step (split at piece_elems); a
 * receive to match first is only entered (match_recv posts it). */
static int post_side(engine_t *e, uint32_t op, uint32_t s, int is_recv, int unmatched,
                     char *base, uint64_t count, int peer, int tag)
{
    engine_owner_t owner = {.op = op, .step = s, .is_recv = (uint8_t) is_recv,
                            .unmatched = (uint8_t) unmatched};
    uint64_t n = npieces(e, count);
    for (uint64_t k = 0; k < n; ++k) {
        ompi_request_t *req = NULL;
        char *buf = elem_ptr(base, k * e->piece_elems, e->extent);
        size_t cnt = (size_t) piece_count(e, count, k);
        int rc;
        if (e->nactive == e->cap && OMPI_SUCCESS != (rc = active_grow(e))) {
            return rc;
        }
        if (unmatched) {
            rc = OMPI_SUCCESS;
        } else if (is_recv) {
            rc = MCA_PML_CALL(irecv(buf, cnt, e->dtype, peer, tag, e->comm, &req));
        } else {
            rc = MCA_PML_CALL(isend(buf, cnt, e->dtype, peer, tag, MCA_PML_BASE_SEND_STANDARD,
                                    e->comm, &req));
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        owner.piece = (uint32_t) k;
        e->reqs[e->nactive] = req;
        e->owners[e->nactive] = owner;
        e->nactive++;
        e->remaining[s]++;
    }
    return OMPI_SUCCESS;
}

/* Contiguous copy of the span of `count` elements: (count - 1) x extent +
 * true_extent bytes from the true lower bound, not count x extent, which
 * would run past the last element's data when the extent ends in padding
 * (a buffer, e.g. a staged copy of MPI_DOUBLE_INT data, may end there).
 * Skipped when source and destination are the same memory (in place).
 * memmove: a bad program may overlap them partially. */
static void copy_elems(char *dst, const char *src, uint64_t count, size_t extent,
                       ptrdiff_t true_lb, size_t true_extent)
{
    if (0 == count || dst == src) {
        return;
    }
    memmove(dst + true_lb, src + true_lb, (size_t) (count - 1) * extent + true_extent);
}

/* A local copy or reduce, in pieces like messages (ompi_op_reduce takes
 * an int count). */
static void local_step(engine_t *e, const themis_step_t *st)
{
    for (uint64_t piece = 0, n = npieces(e, st->recv_count); piece < n; ++piece) {
        uint64_t off = piece * e->piece_elems;
        char *src = elem_ptr(e->work, st->send_off + off, e->extent);
        char *dst = elem_ptr(e->work, st->recv_off + off, e->extent);
        size_t cnt = (size_t) piece_count(e, st->recv_count, piece);
        if (THEMIS_LOCAL_REDUCE == st->recv_mode) {
            ompi_op_reduce(e->op, src, dst, cnt, e->dtype);
        } else {
            copy_elems(dst, src, cnt, e->extent, e->true_lb, e->true_extent);
        }
    }
}

/* Post one step: its receive first, then its send. */
static int step_start(engine_t *e, uint32_t op, uint32_t s)
{
    const themis_step_t stv = themis_program_step(e->prog, s), *st = &stv;
    int tag = step_tag(e, st);
    int rc = OMPI_SUCCESS;

    e->remaining[s] = 0;
    e->recv_left[s] = 0;
    if (step_is_local(st)) {
        local_step(e, st);
        return OMPI_SUCCESS;
    }
    if (step_has_recv(st)) {
        rc = post_side(e, op, s, 1, recv_matched_first(e, st), recv_base(e, op, s, st),
                       st->recv_count, st->recv_peer, tag);
        e->recv_left[s] = e->remaining[s];
        if (step_reduces(st)) {
            e->remaining[s]++;   /* the reduction itself, see reduce_in_order() */
        }
    }
    if (OMPI_SUCCESS == rc && step_has_send(st)) {
        rc = post_side(e, op, s, 0, 0, elem_ptr(e->work, st->send_off, e->extent),
                       st->send_count, st->send_peer, tag);
    }
    return rc;
}

static void op_complete(engine_t *e, uint32_t op)
{
    uint32_t q = e->op_queue[stored_op(e->prog, op)];
    if (NULL != e->op_ns) {
        e->op_ns[2 * (size_t) op + 1] = themis_now_ns();
    }
    e->op_state[op] = OP_DONE;
    e->ops_done++;
    e->q_active[q]--;
    e->q_free[e->q_slot_first[q] + e->q_nfree[q]++] = e->op_slot[op];
}

/* Start every step of an active op that may start now: each chain's steps
 * in order, the chains independently. */
static int op_advance(engine_t *e, uint32_t op)
{
    const themis_op_t ov = themis_program_op(e->prog, op), *o = &ov;
    const uint32_t so = stored_op(e->prog, op), ss0 = stored_step(e->prog, o->first_step);
    int all_started = 1;
    for (uint32_t c = 0; c < e->layout->op_nchains[so]; ++c) {
        uint32_t *next = &e->op_next[(size_t) op * THEMIS_STEP_CHAINS + c];
        while (*next < o->nsteps) {
            uint32_t s = o->first_step + *next;
            /* an op's steps are stored together: the stored one is ss0 on */
            const themis_step_t st = themis_program_step(e->prog, s);
            const uint32_t back = e->chain_back[ss0 + *next];
            if (c != st.chain) {
                ++*next;
                continue;
            }
            if (st.after_prev && 0 != back && 0 != e->remaining[s - back]) {
                break;
            }
            int rc = step_start(e, op, s);
            ++*next;
            if (0 != e->remaining[s]) {
                e->op_pending[op]++;
            }
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
        }
        all_started = all_started && *next == o->nsteps;
    }
    if (all_started && 0 == e->op_pending[op]) {
        op_complete(e, op);
    }
    return OMPI_SUCCESS;
}

/* Start queue heads until nothing more can start (an op without messages
 * completes at once and may unblock others). */
static int start_ops(engine_t *e)
{
    const themis_program_t *p = e->prog;
    uint32_t done_before;
    do {
        done_before = e->ops_done;
        for (uint32_t q = 0; q < p->nqueues; ++q) {
            while (e->q_next[q] < p->queue_first[q + 1] && e->q_active[q] < e->window) {
                uint32_t op = themis_program_queue_op(p, q, e->q_next[q]);
                if (!deps_done(p, op, e->op_state, OP_DONE)) {
                    break;
                }
                e->q_next[q]++;
                e->q_active[q]++;
                e->op_state[op] = OP_ACTIVE;
                e->op_slot[op] = e->q_free[e->q_slot_first[q] + --e->q_nfree[q]];
                e->op_temp[op] = e->q_temp_base[q] + (uint64_t) e->op_slot[op] * e->q_peak[q];
                if (NULL != e->op_ns) {
                    e->op_ns[2 * (size_t) op] = themis_now_ns();
                }
                int rc = op_advance(e, op);
                if (OMPI_SUCCESS != rc) {
                    return rc;
                }
            }
        }
    } while (e->ops_done != done_before);
    return OMPI_SUCCESS;
}

/*
 * A message of another size than the program expects: the ranks disagree
 * on the count (an erroneous program).  Every rank computes the same
 * program from its own count, so a peer with a larger count sends more and
 * one with a smaller count less, which the PML accepts: without this check
 * the call would return MPI_SUCCESS with data missing.  Said once per
 * process.
 */
static int wrong_size(const engine_t *e, const engine_owner_t *o, size_t got, int peer)
{
    static int said;
    size_t want = (size_t) piece_count(e, themis_program_step(e->prog, o->step).recv_count,
                                       o->piece)
                  * e->type_size;
    if (got == want) {
        return OMPI_SUCCESS;
    }
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
        opal_output(0, "coll:themis: rank %d received %zu bytes from rank %d where %zu were "
                    "due: the ranks passed different counts (an erroneous program); the "
                    "call fails with MPI_ERR_TRUNCATE", ompi_comm_rank(e->comm), got, peer,
                    want);
    }
    return MPI_ERR_TRUNCATE;
}

/* Do an earlier entry of the active array and entry i wait for the same
 * message (equal peer and folded tag), the earlier one not matched yet? */
static int earlier_unmatched(const engine_t *e, size_t i)
{
    const themis_step_t stv = themis_program_step(e->prog, e->owners[i].step), *st = &stv;
    for (size_t j = 0; j < i; ++j) {
        const themis_step_t sjv = themis_program_step(e->prog, e->owners[j].step), *sj = &sjv;
        if (e->owners[j].unmatched && sj->recv_peer == st->recv_peer
            && step_tag(e, sj) == step_tag(e, st)) {
            return 1;
        }
    }
    return 0;
}

/*
 * Match the receive of entry i before posting it (receives over
 * the eager limit, see peer_eager_bytes()): improbe shows the message's size
 * before any data moves.  A message of the size due, or smaller (the
 * completion then fails it in wrong_size()), is received in place; a
 * larger one is received whole into a bounce buffer and fails the call
 * with MPI_ERR_TRUNCATE, so that it never reaches the receive buffer.
 * Messages of one peer and tag are matched in the order the engine would
 * have posted them: a split transfer's pieces in order, and, where folded
 * tags may repeat, no entry before an earlier one for the same message.
 * Returns 1 when entry i has a request now; *err takes the first error.
 */
static int match_recv(engine_t *e, size_t i, int *err)
{
    engine_owner_t *o = &e->owners[i];
    const themis_step_t stv = themis_program_step(e->prog, o->step), *st = &stv;
    ompi_message_t *msg = NULL;
    ompi_status_public_t status;
    ompi_request_t *req = NULL;
    int found = 0, rc;

    if (e->matched[o->step] != o->piece || (e->tags_collide && earlier_unmatched(e, i))) {
        return 0;
    }
    rc = MCA_PML_CALL(improbe(st->recv_peer, step_tag(e, st), e->comm, &found, &msg, &status));
    if (OMPI_SUCCESS != rc || !found) {
        *err = OMPI_SUCCESS == *err ? rc : *err;
        return 0;
    }
    e->matched[o->step]++;
    e->quiet_since = 0;
    size_t cnt = (size_t) piece_count(e, st->recv_count, o->piece);
    if (status._ucount > cnt * e->type_size) {
        void *b = malloc(status._ucount);
        void **list = realloc(e->bounce, (e->nbounce + 1) * sizeof(*list));
        if (NULL != list) {
            e->bounce = list;
        }
        rc = wrong_size(e, o, status._ucount, status.MPI_SOURCE);
        if (NULL != b && NULL != list) {
            e->bounce[e->nbounce++] = b;
            o->bounce = 1;
            rc = MCA_PML_CALL(imrecv(b, status._ucount, MPI_BYTE, &msg, &req));
            rc = OMPI_SUCCESS == rc ? MPI_ERR_TRUNCATE : rc;
        } else {
            free(b);   /* left matched: its sender's call ends by its own drain */
        }
    } else {
        rc = MCA_PML_CALL(imrecv(elem_ptr(recv_base(e, o->op, o->step, st),
                                          o->piece * e->piece_elems, e->extent),
                                 cnt, e->dtype, &msg, &req));
    }
    *err = OMPI_SUCCESS == *err ? rc : *err;
    if (NULL == req) {
        return 0;
    }
    e->reqs[i] = req;
    o->unmatched = 0;
    return 1;
}

/*
 * Test the outstanding requests once, without driving progress (the
 * engine also runs inside the progress callback; a receive still to be
 * matched is probed, and ob1's improbe progresses on a miss, which the
 * callback's trylock makes harmless), and move the completed ones to
 * e->done (*ndone of them), keeping the active array compact.  A request
 * that completed with an error still counts as done; the first error is
 * returned, as is MPI_ERR_TRUNCATE for a message of another size than due.
 * Once the call failed, receives not matched yet are dropped.
 */
static int test_active(engine_t *e, size_t *ndone)
{
    int err = OMPI_SUCCESS;
    size_t w = 0;

    *ndone = 0;
    for (size_t i = 0; i < e->nactive; ++i) {
        if (e->owners[i].unmatched) {
            if (OMPI_SUCCESS != e->status) {
                continue;
            }
            if (!match_recv(e, i, &err)) {
                e->reqs[w] = e->reqs[i];
                e->owners[w++] = e->owners[i];
                continue;
            }
        }
        ompi_request_t *r = e->reqs[i];
        if (!REQUEST_COMPLETE(r)) {
            e->reqs[w] = r;
            e->owners[w++] = e->owners[i];
            continue;
        }
        opal_atomic_rmb();
        if (OMPI_SUCCESS == err && MPI_SUCCESS != r->req_status.MPI_ERROR) {
            err = r->req_status.MPI_ERROR;
        } else if (OMPI_SUCCESS == err && e->owners[i].is_recv && !e->owners[i].bounce) {
            err = wrong_size(e, &e->owners[i], r->req_status._ucount,
                             r->req_status.MPI_SOURCE);
        }
        ompi_request_free(&r);
        e->done[(*ndone)++] = e->owners[i];
    }
    e->nactive = w;
    return err;
}

/* Does this program receive a message of folded tag `tag` and `bytes`
 * bytes (a whole step or one of its pieces) from `peer`? */
static int expects(const engine_t *e, int peer, int tag, size_t bytes)
{
    if ((uint64_t) tag % e->nlanes != e->lane) {
        return 1;   /* another lane's call: not ours to judge */
    }
    for (uint32_t s = 0; s < e->prog->nsteps; ++s) {
        const themis_step_t stv = themis_program_step(e->prog, s), *st = &stv;
        if (step_has_recv(st) && st->recv_peer == peer && step_tag(e, st) == tag) {
            uint64_t last = npieces(e, st->recv_count) - 1;
            if (bytes == piece_count(e, st->recv_count, 0) * e->type_size
                || bytes == piece_count(e, st->recv_count, last) * e->type_size) {
                return 1;
            }
        }
    }
    return 0;
}

/*
 * A call that waits long without any message looks at the first message
 * each peer it waits for has sent (iprobe, nothing is taken).  Ranks that
 * passed different counts compile programs of different shapes, whose
 * messages may never match: without this the call would hang where stock
 * Open MPI fails with MPI_ERR_TRUNCATE.  A peer we still wait for cannot be
 * in a later call of this lane (it has not sent what we wait for), so a
 * message of this lane that this program never receives from it (no step
 * of its tag and size) proves the programs differ.  A late peer shows nothing and is waited
 * for as before; a look costs an iprobe per waiting receive every
 * ENGINE_STALL_NSEC.
 */
static int stall_check(engine_t *e)
{
    static int said;
    long long now;

    if (e->in_progress) {
        return OMPI_SUCCESS;
    }
    now = (long long) themis_now_ns();
    if (0 == e->quiet_since || now - e->quiet_since < ENGINE_STALL_NSEC) {
        e->quiet_since = 0 == e->quiet_since ? now : e->quiet_since;
        return OMPI_SUCCESS;
    }
    e->quiet_since = now;
    for (size_t i = 0; i < e->nactive; ++i) {
        int peer = themis_program_step(e->prog, e->owners[i].step).recv_peer;
        ompi_status_public_t status;
        int found = 0;
        if (!e->owners[i].is_recv
            || OMPI_SUCCESS != MCA_PML_CALL(iprobe(peer, MPI_ANY_TAG, e->comm, &found, &status))
            || !found || expects(e, peer, status.MPI_TAG, status._ucount)) {
            continue;
        }
        if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
            opal_output(0, "coll:themis: rank %d has a message from rank %d (tag %d, %zu "
                        "bytes) that its program never receives: the ranks passed different "
                        "counts (an erroneous program); the call fails with MPI_ERR_TRUNCATE",
                        ompi_comm_rank(e->comm), peer, status.MPI_TAG, (size_t) status._ucount);
        }
        return MPI_ERR_TRUNCATE;
    }
    return OMPI_SUCCESS;
}

static int step_finish_one(engine_t *e, uint32_t op, uint32_t s)
{
    if (0 == --e->remaining[s]) {
        e->op_pending[op]--;
        return op_advance(e, op);
    }
    return OMPI_SUCCESS;
}

/* Apply the arrived REDUCE receives of one chain of an op in step order:
 * stop at the first one that has not started or not fully arrived. */
static int reduce_in_order(engine_t *e, uint32_t op, uint8_t chain)
{
    const themis_op_t ov = themis_program_op(e->prog, op), *o = &ov;
    const uint32_t ss0 = stored_step(e->prog, o->first_step);
    const size_t k = (size_t) op * THEMIS_STEP_CHAINS + chain;
    uint32_t *next = &e->op_red_next[k];

    while (*next < o->nsteps) {
        uint32_t s = o->first_step + *next;
        const uint64_t temp_off = e->temp_off[ss0 + *next];
        const themis_step_t stv = themis_program_step(e->prog, s), *st = &stv;
        if (chain != st->chain || !step_reduces(st)) {
            ++*next;
            continue;
        }
        if (*next >= e->op_next[k] || 0 != e->recv_left[s]) {
            break;   /* not started, or still arriving */
        }
        ++*next;
        for (uint64_t piece = 0, n = npieces(e, st->recv_count); piece < n; ++piece) {
            uint64_t off = piece * e->piece_elems;
            ompi_op_reduce(e->op,
                           elem_ptr(e->temp, e->op_temp[op] + temp_off + off, e->extent),
                           elem_ptr(e->work, st->recv_off + off, e->extent),
                           (size_t) piece_count(e, st->recv_count, piece), e->dtype);
        }
        int rc = step_finish_one(e, op, s);
        if (OMPI_SUCCESS != rc || OP_DONE == e->op_state[op]) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* A message finished: complete its step (and maybe its op) when it was the
 * step's last message; a REDUCE receive is reduced in order first. */
static int handle_done(engine_t *e, engine_owner_t d)
{
    const themis_step_t stv = themis_program_step(e->prog, d.step), *st = &stv;
    int rc = step_finish_one(e, d.op, d.step);
    if (OMPI_SUCCESS == rc && d.is_recv && THEMIS_RECV_REDUCE == st->recv_mode
        && 0 == --e->recv_left[d.step]) {
        rc = reduce_in_order(e, d.op, st->chain);
    }
    return rc;
}

/* Does an outstanding message use scratch memory? */
static int uses_scratch(const engine_t *e, const engine_owner_t *o)
{
    if (o->is_recv && THEMIS_RECV_REDUCE == themis_program_step(e->prog, o->step).recv_mode) {
        return 1;
    }
    return !e->prog->work_is_output;
}

/*
 * After an error: cancel the outstanding receives and drain.  A cancelled
 * receive completes at once.  Sends are never cancelled (ob1 ignores it and
 * Open MPI 4.1's mtl/ofi crashes on it) and may wait for a peer that will
 * never receive, so the drain is bounded and leftovers are detached (freed
 * while active: the PML releases them when they finish; a bounce buffer
 * of a detached receive is then never freed).  Returns 1 when a detached
 * request uses the scratch.
 */
static int drain_after_error(engine_t *e)
{
    size_t ndone;
    for (size_t i = 0; i < e->nactive; ++i) {
        if (e->owners[i].is_recv && !e->owners[i].unmatched) {
            ompi_request_cancel(e->reqs[i]);
        }
    }
    long long deadline = (long long) themis_now_ns() + ENGINE_DRAIN_NSEC;
    while (e->nactive > 0 && (long long) themis_now_ns() < deadline) {
        (void) test_active(e, &ndone);
        if (0 == ndone) {
            opal_progress();
        }
    }
    if (0 == e->nactive) {
        return 0;
    }
    int scratch_used = 0;
    for (size_t i = 0; i < e->nactive; ++i) {
        if (e->owners[i].bounce) {
            e->bounce_leak = 1;
        } else {
            scratch_used |= uses_scratch(e, &e->owners[i]);
        }
        ompi_request_free(&e->reqs[i]);
    }
    opal_output(0, "coll:themis:engine: %zu requests still active after an error: detached%s",
                e->nactive, scratch_used ? "; their scratch is abandoned" : "");
    e->nactive = 0;
    return scratch_used;
}

static void engine_free(engine_t *e)
{
    for (size_t i = 0; !e->bounce_leak && i < e->nbounce; ++i) {
        free(e->bounce[i]);
    }
    free(e->bounce);
    free(e->block);
    free(e->reqs);
    free(e->owners);
    free(e->done);
}

/* After an error: drain, and give up the scratch if a detached request
 * may still touch it (a bounded leak, on a failure path only). */
static void engine_fail(engine_t *e, int rc)
{
    e->status = rc;
    e->finished = 1;
    if (drain_after_error(e)) {
        e->scratch->base = NULL;
        e->scratch->size = 0;
    }
}

int mca_coll_themis_engine_start(const mca_coll_themis_engine_args_t *args,
                                 mca_coll_themis_engine_t **out)
{
    ptrdiff_t extent, true_lb, true_extent;
    size_t work_bytes = 0, total_bytes = 0;
    int rc;

    *out = NULL;
    if (NULL == args || NULL == args->prog || NULL == args->dtype || NULL == args->p2p_comm
        || NULL == args->scratch || NULL == args->layout || args->tag_ub < 0
        || args->lane >= (args->nlanes > 0 ? args->nlanes : 1)
        || (uint64_t) args->tag_ub + 1 < (args->nlanes > 0 ? args->nlanes : 1)) {
        return engine_bad("missing argument, negative tag_ub or a lane outside the tags", 0, 0);
    }
    const mca_coll_themis_engine_layout_t *l = args->layout;
    if (NULL == l->block || l->comm_size != ompi_comm_size(args->p2p_comm)
        || l->nops != args->prog->nops || l->nsteps != args->prog->nsteps
        || l->nqueues != args->prog->nqueues) {
        return engine_bad("the layout is not this program's", l->nops, args->prog->nops);
    }
    if (l->has_reduce && NULL == args->op) {
        return engine_bad("REDUCE step without an op", 0, 0);
    }
    ompi_datatype_type_extent(args->dtype, &extent);
    ompi_datatype_get_true_extent(args->dtype, &true_lb, &true_extent);
    if (extent <= 0 || true_extent <= 0) {
        return engine_bad("datatype without extent", (uint64_t) extent, 0);
    }

    engine_t *e = calloc(1, sizeof(*e));
    if (NULL == e) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    e->prog_copy = *args->prog;
    e->layout_copy = *l;
    e->prog = &e->prog_copy;
    l = &e->layout_copy;
    e->comm = args->p2p_comm;
    e->dtype = args->dtype;
    e->op = args->op;
    e->op_ns = args->op_ns;
    e->nlanes = args->nlanes > 0 ? args->nlanes : 1;
    e->lane = args->lane;
    e->lane_tags = ((uint64_t) args->tag_ub + 1) / e->nlanes;
    e->extent = (size_t) extent;
    ompi_datatype_type_size(args->dtype, &e->type_size);
    e->true_lb = true_lb;
    e->true_extent = (size_t) true_extent;
    e->input = args->input;
    e->output = args->output;
    e->scratch = args->scratch;
    /* Where folded tags may repeat, every receive is matched first, in
     * order, so that none overtakes an earlier one for the same message. */
    e->tags_collide = l->max_tag >= e->lane_tags;
    e->in_progress = args->in_progress;
    e->match = e->in_progress || !engine_pml_is_ob1() ? MATCH_NONE
               : e->tags_collide                         ? MATCH_ALL
                                                         : MATCH_RNDV;
    e->piece_elems = mca_coll_themis_engine_max_message_bytes / e->extent;
    if (e->piece_elems > INT_MAX) {
        e->piece_elems = INT_MAX;
    } else if (0 == e->piece_elems) {
        e->piece_elems = 1;
    }

    /* A step's send and receive, each split into pieces, count in
     * 32 bits. */
    if (2 * npieces(e, l->max_transfer) >= UINT32_MAX) {
        rc = engine_bad("a step splits into too many messages", l->max_transfer, e->extent);
        free(e);
        return rc;
    }
    e->layout = l;
    e->temp_off = l->temp_off;
    e->chain_back = l->chain_back;
    e->op_queue = l->op_queue;
    e->q_peak = l->q_peak;
    e->window = args->chunks_in_flight > 0 ? args->chunks_in_flight : e->prog->chunks_in_flight;

    e->block = calloc(1, engine_carve(e, NULL) + 8);
    if (NULL == e->block) {
        free(e);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    engine_carve(e, e->block);
    rc = OMPI_SUCCESS;
    for (uint32_t q = 0, first = 0; q < e->prog->nqueues; ++q) {
        uint32_t nq = e->prog->queue_first[q + 1] - e->prog->queue_first[q];
        uint64_t add;
        e->q_nslots[q] = nq < e->window ? nq : e->window;
        e->q_slot_first[q] = first;
        first += e->q_nslots[q];   /* at most nops: q_free's size */
        e->q_temp_base[q] = e->temp_elems;
        if (__builtin_mul_overflow((uint64_t) e->q_nslots[q], l->q_peak[q], &add)
            || __builtin_add_overflow(e->temp_elems, add, &e->temp_elems)) {
            rc = engine_bad("temporaries overflow", q, l->q_peak[q]);
        }
        e->q_next[q] = e->prog->queue_first[q];
        e->q_nfree[q] = e->q_nslots[q];
        for (uint32_t k = 0; k < e->q_nslots[q]; ++k) {
            e->q_free[e->q_slot_first[q] + k] = e->q_nslots[q] - 1 - k;
        }
    }

    if (OMPI_SUCCESS == rc) {
        rc = scratch_bytes(e, true_extent, &work_bytes, &total_bytes);
    }
    if (OMPI_SUCCESS == rc) {
        rc = scratch_reserve(args->scratch, total_bytes);
    }
    if (OMPI_SUCCESS != rc) {
        engine_free(e);
        free(e);
        return rc;
    }
    /* Buffer pointers are shifted by the true lower bound so that data
     * starts at the region start. */
    e->work = (char *) args->output;
    if (NULL != args->scratch->base) {
        if (!e->prog->work_is_output) {
            e->work = args->scratch->base - true_lb;
        }
        e->temp = args->scratch->base + work_bytes - true_lb;
    }

    for (uint32_t i = 0; i < e->prog->ncopy_in; ++i) {
        const themis_copy_t *c = &e->prog->copy_in[i];
        copy_elems(elem_ptr(e->work, c->dst_off, e->extent),
                   elem_ptr((char *) args->input, c->src_off, e->extent), c->count, e->extent,
                   true_lb, (size_t) true_extent);
    }
    *out = e;
    rc = start_ops(e);
    if (OMPI_SUCCESS != rc) {
        engine_fail(e, rc);
    }
    return OMPI_SUCCESS;
}

/* Once every op is done: the program's result into the output. */
static void engine_finish(engine_t *e)
{
    for (uint32_t i = 0; i < e->prog->ncopy_out; ++i) {
        const themis_copy_t *c = &e->prog->copy_out[i];
        copy_elems(elem_ptr((char *) e->output, c->dst_off, e->extent),
                   elem_ptr(e->work, c->src_off, e->extent), c->count, e->extent, e->true_lb,
                   e->true_extent);
    }
    e->finished = 1;
}

int mca_coll_themis_engine_advance(mca_coll_themis_engine_t *e, bool *done, int *events)
{
    int rc = OMPI_SUCCESS;
    size_t ndone = 0;

    if (!e->finished && e->ops_done < e->prog->nops) {
        if (0 == e->nactive) {
            /* validate() rules this out; never spin on it. */
            rc = engine_bad("no op can make progress", e->ops_done, e->prog->nops);
        } else {
            rc = test_active(e, &ndone);
        }
        if (NULL != events) {
            *events += (int) ndone;
        }
        for (size_t k = 0; OMPI_SUCCESS == rc && k < ndone; ++k) {
            rc = handle_done(e, e->done[k]);
        }
        if (OMPI_SUCCESS == rc && ndone > 0) {
            e->quiet_since = 0;
            rc = start_ops(e);
        } else if (OMPI_SUCCESS == rc) {
            rc = stall_check(e);
        }
        if (OMPI_SUCCESS != rc) {
            engine_fail(e, rc);
        }
    }
    if (!e->finished && e->ops_done == e->prog->nops) {
        engine_finish(e);
    }
    *done = 0 != e->finished;
    return *done ? e->status : OMPI_SUCCESS;
}

void mca_coll_themis_engine_free(mca_coll_themis_engine_t *e)
{
    if (NULL != e) {
        engine_free(e);
        free(e);
    }
}

/* The blocking call: start, then advance, driving progress while nothing
 * completes. */
int mca_coll_themis_engine_run(const mca_coll_themis_engine_args_t *args)
{
    mca_coll_themis_engine_t *e;
    bool done = false;
    int rc = mca_coll_themis_engine_start(args, &e);

    while (OMPI_SUCCESS == rc) {
        rc = mca_coll_themis_engine_advance(e, &done, NULL);
        if (done) {
            break;
        }
        opal_progress();
    }
    mca_coll_themis_engine_free(e);
    return rc;
}

void mca_coll_themis_engine_scratch_release(mca_coll_themis_scratch_t *scratch)
{
    if (NULL == scratch) {
        return;
    }
    free(scratch->base);
    scratch->base = NULL;
    scratch->size = 0;
}

void mca_coll_themis_scratch_pool_take(mca_coll_themis_scratch_pool_t *pool,
                                       mca_coll_themis_scratch_t *scratch)
{
    mca_coll_themis_scratch_t *best = NULL;

    for (int i = 0; i < MCA_COLL_THEMIS_SCRATCH_KEEP; ++i) {
        if (NULL != pool->kept[i].base && (NULL == best || pool->kept[i].size > best->size)) {
            best = &pool->kept[i];
        }
    }
    if (NULL != best) {
        *scratch = *best;
        best->base = NULL;
        best->size = 0;
    }
}

void mca_coll_themis_scratch_pool_give(mca_coll_themis_scratch_pool_t *pool,
                                       mca_coll_themis_scratch_t *scratch, uint64_t max_bytes)
{
    if (NULL == scratch->base) {
        return;
    }
    /* Free the smallest kept buffers while the pool has no slot or would
     * exceed max_bytes, as long as they are smaller than this one. */
    for (;;) {
        mca_coll_themis_scratch_t *small = NULL, *empty = NULL;
        uint64_t total = scratch->size;
        for (int i = 0; i < MCA_COLL_THEMIS_SCRATCH_KEEP; ++i) {
            mca_coll_themis_scratch_t *k = &pool->kept[i];
            if (NULL == k->base) {
                empty = NULL == empty ? k : empty;
                continue;
            }
            total += k->size;
            small = NULL == small || k->size < small->size ? k : small;
        }
        bool fits = 0 == max_bytes || total <= max_bytes;
        if (NULL != empty && fits) {
            *empty = *scratch;
            break;
        }
        if (NULL == small || small->size >= scratch->size) {
            free(scratch->base);   /* what is kept is as large: keep that */
            break;
        }
        mca_coll_themis_engine_scratch_release(small);
    }
    scratch->base = NULL;
    scratch->size = 0;
}

void mca_coll_themis_scratch_pool_clear(mca_coll_themis_scratch_pool_t *pool)
{
    for (int i = 0; i < MCA_COLL_THEMIS_SCRATCH_KEEP; ++i) {
        mca_coll_themis_engine_scratch_release(&pool->kept[i]);
    }
}
